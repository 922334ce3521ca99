/* src/build/graph_write.c - the compiled-graph section (GRPH) writer
 * (libstance_build): a stance_graph_desc written beside the skeleton and
 * clips it animates, clips by index, in the layout src/core/asset_graph.c
 * owns and reads. */
#include <stdio.h>
#include <string.h>

#include "build/graph_write.h"
#include "core/internal.h"

#define GRPH_FORMAT 1u
#define NAME_CAP 64

/* ---- clips by index --------------------------------------------------------- */

static int clip_index(const stance_asset *a, const stance_clip *c) {
    for (int i = 0; i < a->clip_count; i++)
        if (a->clips[i] == c) return i;
    return -1;
}

static int name_len_ok(const char *s, int optional) {
    if (!s) return optional;
    size_t n = strlen(s);
    return (optional || n > 0) && n < NAME_CAP;
}

stance_status st_graph_section_check(const stance_graph_desc *d, const stance_asset *a, stance_error *err) {
    if (!d) return st_fail(err, STANCE_ERR_ARGUMENT, "graph: description is NULL");
    if (d->skeleton && d->skeleton != a->skeleton)
        return st_fail(err, STANCE_ERR_ARGUMENT, "graph: the description's skeleton is not the asset's");
    if (d->param_count < 0 || d->param_count > STANCE_MAX_PARAMS || (d->param_count && !d->params) ||
        d->machine_count < 1 || d->machine_count > STANCE_MAX_MACHINES || !d->machines || d->layer_count < 0 ||
        d->layer_count > STANCE_MAX_LAYERS || (d->layer_count && !d->layers))
        return st_fail(err, STANCE_ERR_ARGUMENT, "graph: a count is out of range or its array is NULL");
    for (int i = 0; i < d->param_count; i++)
        if (!name_len_ok(d->params[i].name, 0))
            return st_fail(err, STANCE_ERR_ARGUMENT, "graph: parameter %d has no name or one over 63 bytes", i);
    for (int m = 0; m < d->machine_count; m++) {
        const stance_machine_desc *md = &d->machines[m];
        if (!name_len_ok(md->name, 0) || !name_len_ok(md->entry, 1) || md->state_count < 1 ||
            md->state_count > STANCE_MAX_STATES || !md->states || md->transition_count < 0 ||
            md->transition_count > 4096 || (md->transition_count && !md->transitions))
            return st_fail(err, STANCE_ERR_ARGUMENT, "graph: machine %d has a bad name, count or array", m);
        for (int s = 0; s < md->state_count; s++) {
            const stance_state_desc *sd = &md->states[s];
            if (!name_len_ok(sd->name, 0) || !name_len_ok(sd->speed_param, 1) || (unsigned)sd->type > STANCE_MOTION_MACHINE)
                return st_fail(err, STANCE_ERR_ARGUMENT, "graph: machine '%s': state %d has a bad name or type", md->name, s);
            if (sd->type == STANCE_MOTION_CLIP && clip_index(a, sd->clip) < 0)
                return st_fail(err, STANCE_ERR_ARGUMENT, "graph: state '%s/%s' plays a clip that is not in the asset",
                               md->name, sd->name);
            if (sd->type == STANCE_MOTION_MACHINE && !name_len_ok(sd->machine, 0))
                return st_fail(err, STANCE_ERR_ARGUMENT, "graph: state '%s/%s' names no machine", md->name, sd->name);
            if (sd->type == STANCE_MOTION_BLEND1D || sd->type == STANCE_MOTION_BLEND2D) {
                if (sd->entry_count < 0 || sd->entry_count > STANCE_MAX_BLEND_ENTRIES || (sd->entry_count && !sd->entries) ||
                    !name_len_ok(sd->param_x, 1) || !name_len_ok(sd->param_y, 1))
                    return st_fail(err, STANCE_ERR_ARGUMENT, "graph: state '%s/%s' has a bad blend space", md->name, sd->name);
                for (int e = 0; e < sd->entry_count; e++)
                    if (clip_index(a, sd->entries[e].clip) < 0)
                        return st_fail(err, STANCE_ERR_ARGUMENT,
                                       "graph: state '%s/%s': entry %d plays a clip that is not in the asset", md->name,
                                       sd->name, e);
            }
        }
        for (int t = 0; t < md->transition_count; t++) {
            const stance_transition_desc *td = &md->transitions[t];
            if (!name_len_ok(td->from, 1) || !name_len_ok(td->to, 0) || td->condition_count < 0 ||
                td->condition_count > STANCE_MAX_CONDITIONS || (td->condition_count && !td->conditions))
                return st_fail(err, STANCE_ERR_ARGUMENT, "graph: machine '%s': transition %d is malformed", md->name, t);
            for (int c = 0; c < td->condition_count; c++)
                if (!name_len_ok(td->conditions[c].param, 0))
                    return st_fail(err, STANCE_ERR_ARGUMENT, "graph: machine '%s': transition %d: a condition names no parameter",
                                   md->name, t);
        }
    }
    for (int l = 0; l < d->layer_count; l++) {
        const stance_layer_desc *ld = &d->layers[l];
        if (!name_len_ok(ld->name, 0) || !name_len_ok(ld->machine, 0))
            return st_fail(err, STANCE_ERR_ARGUMENT, "graph: layer %d has a bad name or machine", l);
        if (ld->priority < -1000 || ld->priority > 1000)
            return st_fail(err, STANCE_ERR_ARGUMENT, "graph: layer '%s': priority %d is not in [-1000, 1000]", ld->name,
                           ld->priority);
        if (ld->ref_clip && clip_index(a, ld->ref_clip) < 0)
            return st_fail(err, STANCE_ERR_ARGUMENT, "graph: layer '%s': its reference clip is not in the asset", ld->name);
    }
    if (d->ik_count < 0 || d->ik_count > STANCE_MAX_IK || (d->ik_count && !d->ik))
        return st_fail(err, STANCE_ERR_ARGUMENT, "graph: ik_count %d is not in 0..%d (or ik is NULL)", d->ik_count, STANCE_MAX_IK);
    for (int i = 0; i < d->ik_count; i++) {
        const stance_ik_desc *k = &d->ik[i];
        int ok = name_len_ok(k->name, 0) && (unsigned)k->kind < STANCE_IK_KIND_COUNT && k->leg_count >= 1 &&
                 k->leg_count <= STANCE_FOOT_MAX && name_len_ok(k->pelvis, 1);
        for (int l = 0; ok && l < k->leg_count; l++)
            ok = name_len_ok(k->legs[l].hip, 0) && name_len_ok(k->legs[l].knee, 0) && name_len_ok(k->legs[l].ankle, 0) &&
                 name_len_ok(k->legs[l].down_event, 1) && name_len_ok(k->legs[l].up_event, 1);
        ok = ok || (k->kind == STANCE_IK_AIM && name_len_ok(k->name, 0) && k->leg_count == 0);
        ok = ok && k->chain_count >= 0 && k->chain_count <= STANCE_AIM_MAX_CHAIN;
        for (int l = 0; ok && l < k->chain_count; l++) ok = name_len_ok(k->chain[l], 0);
        if (!ok) return st_fail(err, STANCE_ERR_ARGUMENT, "graph: ik entry %d has a bad name, kind, leg count or joint name", i);
    }
    return STANCE_OK;
}

/* ---- writer: measures when buf is NULL ---------------------------------------- */

typedef struct gw {
    unsigned char *buf;
    size_t pos;
} gw;

static void w_raw(gw *w, const void *p, size_t n) {
    if (w->buf && n) memcpy(w->buf + w->pos, p, n);
    w->pos += n;
}
static void w_u8(gw *w, unsigned v) {
    unsigned char b = (unsigned char)v;
    w_raw(w, &b, 1);
}
static void w_u32(gw *w, uint32_t v) {
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
    w_raw(w, b, 4);
}
static void w_f32(gw *w, float f) {
    uint32_t v;
    memcpy(&v, &f, 4);
    w_u32(w, v);
}
static void w_name(gw *w, const char *s) { /* NULL writes an absent name */
    size_t n = s ? strlen(s) : 0;
    w_u8(w, (unsigned)n);
    w_raw(w, s, n);
}

size_t st_graph_section_write(const stance_graph_desc *d, const stance_asset *a, unsigned char *out) {
    gw w = {out, 0};
    w_u32(&w, GRPH_FORMAT);
    w_f32(&w, d->default_blend_time);
    w_f32(&w, d->deadblend_halflife);
    w_u32(&w, (uint32_t)d->param_count);
    for (int i = 0; i < d->param_count; i++) {
        const stance_param_desc *p = &d->params[i];
        w_name(&w, p->name);
        w_u8(&w, (unsigned)p->type);
        w_f32(&w, p->value);
        w_f32(&w, p->damping);
    }
    w_u32(&w, (uint32_t)d->machine_count);
    for (int m = 0; m < d->machine_count; m++) {
        const stance_machine_desc *md = &d->machines[m];
        w_name(&w, md->name);
        w_name(&w, md->entry);
        w_u32(&w, (uint32_t)md->state_count);
        w_u32(&w, (uint32_t)md->transition_count);
        for (int s = 0; s < md->state_count; s++) {
            const stance_state_desc *sd = &md->states[s];
            w_name(&w, sd->name);
            w_u8(&w, (unsigned)sd->type);
            w_u8(&w, (sd->once ? 1u : 0u) | (sd->speed_warp ? 2u : 0u));
            w_f32(&w, sd->speed);
            w_name(&w, sd->speed_param);
            w_f32(&w, sd->fade_time);
            if (sd->type == STANCE_MOTION_CLIP) {
                w_u32(&w, (uint32_t)clip_index(a, sd->clip));
            } else if (sd->type == STANCE_MOTION_MACHINE) {
                w_name(&w, sd->machine);
            } else {
                w_name(&w, sd->param_x);
                w_name(&w, sd->type == STANCE_MOTION_BLEND2D ? sd->param_y : NULL);
                w_u32(&w, (uint32_t)sd->entry_count);
                for (int e = 0; e < sd->entry_count; e++) {
                    w_u32(&w, (uint32_t)clip_index(a, sd->entries[e].clip));
                    w_f32(&w, sd->entries[e].x);
                    w_f32(&w, sd->entries[e].y);
                }
            }
        }
        for (int t = 0; t < md->transition_count; t++) {
            const stance_transition_desc *td = &md->transitions[t];
            w_name(&w, td->from);
            w_name(&w, td->to);
            w_u8(&w, (unsigned)td->exit);
            w_f32(&w, td->exit_time);
            w_f32(&w, td->blend_time);
            w_u8(&w, (unsigned)td->mode);
            w_u8(&w, (unsigned)td->easing);
            w_u8(&w, (td->uninterruptible ? 1u : 0u) | (td->allow_self ? 2u : 0u));
            w_u32(&w, (uint32_t)td->condition_count);
            for (int c = 0; c < td->condition_count; c++) {
                const stance_condition_desc *cd = &td->conditions[c];
                w_name(&w, cd->param);
                w_u8(&w, (unsigned)cd->op);
                w_f32(&w, cd->value);
                w_f32(&w, cd->hysteresis);
                w_u32(&w, (uint32_t)cd->group);
            }
        }
    }
    w_u32(&w, (uint32_t)d->layer_count);
    int joints = a->skeleton->joint_count;
    for (int l = 0; l < d->layer_count; l++) {
        const stance_layer_desc *ld = &d->layers[l];
        w_name(&w, ld->name);
        w_name(&w, ld->machine);
        w_f32(&w, ld->weight);
        w_u8(&w, (unsigned)ld->mode);
        w_u8(&w, (unsigned)ld->space);
        w_u8(&w, (unsigned)ld->additive_ref);
        w_u32(&w, (uint32_t)(ld->ref_clip ? clip_index(a, ld->ref_clip) : -1));
        w_u32(&w, (uint32_t)ld->priority);
        w_u8(&w, ld->mask != NULL);
        for (int j = 0; ld->mask && j < joints; j++) w_f32(&w, ld->mask[j]);
    }
    if (d->ik_count > 0) w_u32(&w, (uint32_t)d->ik_count);
    for (int i = 0; i < d->ik_count; i++) {
        const stance_ik_desc *k = &d->ik[i];
        w_name(&w, k->name);
        w_u8(&w, (unsigned)k->kind);
        w_u32(&w, (uint32_t)k->leg_count);
        for (int l = 0; l < k->leg_count; l++) {
            w_name(&w, k->legs[l].hip), w_name(&w, k->legs[l].knee), w_name(&w, k->legs[l].ankle);
            w_name(&w, k->legs[l].down_event), w_name(&w, k->legs[l].up_event);
        }
        w_u8(&w, !k->pelvis ? 0u : !k->pelvis[0] ? 1u : 2u);
        w_name(&w, k->pelvis && k->pelvis[0] ? k->pelvis : NULL);
        const float v[9] = {k->blend_time, k->plant_time, k->softness, k->contact_height, k->contact_speed, k->contact_min_duration,
                            k->root_velocity[0], k->root_velocity[1], k->root_velocity[2]};
        for (int j = 0; j < 9; j++) w_f32(&w, v[j]);
        w_u32(&w, (uint32_t)k->chain_count);
        for (int j = 0; j < k->chain_count; j++) w_name(&w, k->chain[j]);
        for (int j = 0; j < 3; j++) w_f32(&w, k->forward[j]);
        w_f32(&w, k->max_angle);
    }
    return w.pos;
}

