/* src/build/graph_build.c - compiles a stance_graph from its description
 * (libstance_build): validates every name, index and value, resolves names
 * to indices, orders each state's transitions, flattens the machine trees
 * into the frame's program (src/core/graph/graph_program.c),
 * precomputes additive reference poses, then (graph_deltas.c,
 * graph_ik_build.c) the delta clips, the scale caps and the IK stage; then
 * writes it as a compiled graph (graph_write.c) and binds that
 * (src/core/load/graph_bind.c), so the graph a caller gets is exactly what
 * loading a compiled file gives, checked by the same runtime code. */
#include <stdio.h>
#include <math.h>
#include <string.h>

#include "build/graph_build.h"
#include "core/load/graph_bind.h"
#include "core/graph/graph_derive.h"
#include "core/graph/graph_sync.h"
#include "core/graph/graph_curves.h"
#include "core/base/internal.h"
#include "core/base/names.h"
#include "stance/build.h"

#define FAIL(...) return st_fail(err, __VA_ARGS__)

static int name_ok(const char *s) { return s && s[0] && strlen(s) < G_NAME; }

static int find_param(const stance_graph_desc *d, const char *name) {
    if (!name) return -1;
    for (int i = 0; i < d->param_count; i++)
        if (!strcmp(d->params[i].name, name)) return i;
    return -1;
}

static int find_machine(const stance_graph_desc *d, const char *name) {
    if (!name) return -1;
    for (int i = 0; i < d->machine_count; i++)
        if (!strcmp(d->machines[i].name, name)) return i;
    return -1;
}

static int find_state_in(const stance_machine_desc *m, const char *name) {
    if (!name) return -1;
    for (int i = 0; i < m->state_count; i++)
        if (!strcmp(m->states[i].name, name)) return i;
    return -1;
}

/* An unknown name's hint (src/core/base/names.c): " (did you mean 'x'?)" or the known names. */
static const char *param_desc_at(const void *set, int i) { return ((const stance_graph_desc *)set)->params[i].name; }
static const char *state_desc_at(const void *set, int i) { return ((const stance_machine_desc *)set)->states[i].name; }
typedef struct hint {
    char text[200];
} hint;
static hint param_hint(const stance_graph_desc *d, const char *name) {
    hint h;
    st_suggest(h.text, sizeof h.text, name ? name : "", param_desc_at, d, d->param_count);
    return h;
}
static hint state_hint(const stance_machine_desc *m, const char *name) {
    hint h;
    st_suggest(h.text, sizeof h.text, name ? name : "", state_desc_at, m, m->state_count);
    return h;
}

static stance_status check_clip(const stance_clip *c, const stance_skeleton *sk, const char *where,
                                stance_error *err) {
    if (!c) FAIL(STANCE_ERR_ARGUMENT, "%s: clip is NULL", where);
    if (c->joint_count != sk->joint_count)
        FAIL(STANCE_ERR_ARGUMENT, "%s: clip '%s' has %d joints, the skeleton %d", where, c->name, c->joint_count, sk->joint_count);
    return STANCE_OK;
}

static stance_status need_numeric(const stance_graph_desc *d, const char *pname, const char *where, int *out,
                                  stance_error *err) {
    int p = find_param(d, pname);
    if (p < 0)
        FAIL(STANCE_ERR_NOT_FOUND, "%s: unknown parameter '%s'%s", where, pname ? pname : "(null)", param_hint(d, pname).text);
    if (d->params[p].type != STANCE_PARAM_FLOAT && d->params[p].type != STANCE_PARAM_INT)
        FAIL(STANCE_ERR_ARGUMENT, "%s: parameter '%s' is not a float or int", where, pname);
    *out = p;
    return STANCE_OK;
}

static stance_status validate(const stance_graph_desc *d, stance_error *err, int *n_states, int *n_trans,
                              int *n_conds, int *n_entries) {
    const stance_skeleton *sk = d->skeleton;
    if (!sk) FAIL(STANCE_ERR_ARGUMENT, "graph: skeleton is NULL");
    if (d->param_count < 0 || d->param_count > STANCE_MAX_PARAMS || (d->param_count && !d->params))
        FAIL(STANCE_ERR_ARGUMENT, "graph: param_count %d is not in 0..%d", d->param_count, STANCE_MAX_PARAMS);
    if (d->machine_count < 1 || d->machine_count > STANCE_MAX_MACHINES || !d->machines)
        FAIL(STANCE_ERR_ARGUMENT, "graph: machine_count %d is not in 1..%d", d->machine_count, STANCE_MAX_MACHINES);
    if (d->layer_count < 0 || d->layer_count > STANCE_MAX_LAYERS || (d->layer_count && !d->layers))
        FAIL(STANCE_ERR_ARGUMENT, "graph: layer_count %d is not in 0..%d", d->layer_count, STANCE_MAX_LAYERS);
    if (!st_finite(d->default_blend_time) || d->default_blend_time < 0.0f || d->default_blend_time > 60.0f)
        FAIL(STANCE_ERR_VALUE, "graph: default_blend_time %g is not in [0, 60]", (double)d->default_blend_time);
    if (!st_finite(d->deadblend_halflife) || d->deadblend_halflife < 0.0f || d->deadblend_halflife > 60.0f)
        FAIL(STANCE_ERR_VALUE, "graph: deadblend_halflife %g is not in [0, 60]", (double)d->deadblend_halflife);
    for (int i = 0; i < d->param_count; i++) {
        const stance_param_desc *p = &d->params[i];
        if (!name_ok(p->name)) FAIL(STANCE_ERR_ARGUMENT, "graph: parameter %d name is empty or longer than 63 bytes", i);
        if (find_param(d, p->name) != i) FAIL(STANCE_ERR_ARGUMENT, "graph: two parameters are named '%s'", p->name);
        if ((unsigned)p->type > STANCE_PARAM_TRIGGER) FAIL(STANCE_ERR_ARGUMENT, "graph: parameter '%s' has an unknown type", p->name);
        if (!st_finite(p->value)) FAIL(STANCE_ERR_VALUE, "graph: parameter '%s' initial value is not finite", p->name);
        if (!st_finite(p->damping) || p->damping < 0.0f || p->damping > 60.0f)
            FAIL(STANCE_ERR_VALUE, "graph: parameter '%s' damping %g is not in [0, 60] s", p->name, (double)p->damping);
        if (p->damping > 0.0f && p->type != STANCE_PARAM_FLOAT)
            FAIL(STANCE_ERR_ARGUMENT, "graph: parameter '%s': only float parameters can be damped", p->name);
    }
    int states = 0, trans = 0, conds = 0, entries = 0;
    int used[STANCE_MAX_MACHINES] = {0};
    for (int m = 0; m < d->machine_count; m++) {
        const stance_machine_desc *md = &d->machines[m];
        if (!name_ok(md->name)) FAIL(STANCE_ERR_ARGUMENT, "graph: machine %d name is empty or longer than 63 bytes", m);
        if (find_machine(d, md->name) != m) FAIL(STANCE_ERR_ARGUMENT, "graph: two machines are named '%s'", md->name);
        if (md->state_count < 1 || md->state_count > STANCE_MAX_STATES || !md->states)
            FAIL(STANCE_ERR_ARGUMENT, "machine '%s': state_count %d is not in 1..%d", md->name, md->state_count, STANCE_MAX_STATES);
        if (md->transition_count < 0 || md->transition_count > 4096 || (md->transition_count && !md->transitions))
            FAIL(STANCE_ERR_ARGUMENT, "machine '%s': transition_count %d is not in 0..4096", md->name, md->transition_count);
        if (md->entry && find_state_in(md, md->entry) < 0)
            FAIL(STANCE_ERR_NOT_FOUND, "machine '%s': unknown entry state '%s'%s", md->name, md->entry, state_hint(md, md->entry).text);
        for (int s = 0; s < md->state_count; s++) {
            const stance_state_desc *sd = &md->states[s];
            char where[160];
            if (!name_ok(sd->name)) FAIL(STANCE_ERR_ARGUMENT, "machine '%s': state %d name is empty or longer than 63 bytes", md->name, s);
            snprintf(where, sizeof where, "state '%s/%s'", md->name, sd->name);
            if (find_state_in(md, sd->name) != s) FAIL(STANCE_ERR_ARGUMENT, "machine '%s': two states are named '%s'", md->name, sd->name);
            if (!st_finite(sd->speed) || sd->speed < -100.0f || sd->speed > 100.0f) FAIL(STANCE_ERR_VALUE, "%s: speed %g is not in [-100, 100]", where, (double)sd->speed);
            if (!st_finite(sd->fade_time) || sd->fade_time < 0.0f || sd->fade_time > 60.0f) FAIL(STANCE_ERR_VALUE, "%s: fade_time %g is not in [0, 60]", where, (double)sd->fade_time);
            if (sd->once != 0 && sd->once != 1) FAIL(STANCE_ERR_ARGUMENT, "%s: once must be 0 or 1", where);
            if (sd->speed_param) {
                int p;
                stance_status st = need_numeric(d, sd->speed_param, where, &p, err);
                if (st) return st;
            }
            switch (sd->type) {
            case STANCE_MOTION_CLIP: {
                stance_status st = check_clip(sd->clip, sk, where, err);
                if (st) return st;
                break;
            }
            case STANCE_MOTION_BLEND1D:
            case STANCE_MOTION_BLEND2D: {
                if (sd->entry_count < 2 || sd->entry_count > STANCE_MAX_BLEND_ENTRIES || !sd->entries)
                    FAIL(STANCE_ERR_ARGUMENT, "%s: a blend space needs 2..%d entries, not %d", where, STANCE_MAX_BLEND_ENTRIES, sd->entry_count);
                int p;
                stance_status st = need_numeric(d, sd->param_x, where, &p, err);
                if (st) return st;
                if (sd->type == STANCE_MOTION_BLEND2D) {
                    st = need_numeric(d, sd->param_y, where, &p, err);
                    if (st) return st;
                }
                for (int e = 0; e < sd->entry_count; e++) {
                    const stance_blend_entry_desc *en = &sd->entries[e];
                    st = check_clip(en->clip, sk, where, err);
                    if (st) return st;
                    if (!st_finite(en->x) || !st_finite(en->y)) FAIL(STANCE_ERR_VALUE, "%s: entry %d position is not finite", where, e);
                    for (int k = 0; k < e; k++) {
                        const stance_blend_entry_desc *o = &sd->entries[k];
                        if (o->x == en->x && (sd->type == STANCE_MOTION_BLEND1D || o->y == en->y))
                            FAIL(STANCE_ERR_ARGUMENT, "%s: entries %d and %d are at the same position", where, k, e);
                    }
                }
                entries += sd->entry_count;
                break;
            }
            case STANCE_MOTION_MACHINE: {
                int sub = find_machine(d, sd->machine);
                if (sub < 0) FAIL(STANCE_ERR_NOT_FOUND, "%s: unknown machine '%s'", where, sd->machine ? sd->machine : "(null)");
                if (sub == m) FAIL(STANCE_ERR_ARGUMENT, "%s: a machine cannot nest itself", where);
                if (used[sub]++) FAIL(STANCE_ERR_ARGUMENT, "%s: machine '%s' is already used by another state or layer", where, sd->machine);
                break;
            }
            default:
                FAIL(STANCE_ERR_ARGUMENT, "%s: unknown motion type %d", where, (int)sd->type);
            }
        }
        for (int t = 0; t < md->transition_count; t++) {
            const stance_transition_desc *td = &md->transitions[t];
            char where[200];
            snprintf(where, sizeof where, "machine '%s' transition %d (%s -> %s)", md->name, t,
                     td->from ? td->from : "*", td->to ? td->to : "(null)");
            int any = !td->from || !strcmp(td->from, "*");
            if (!any && find_state_in(md, td->from) < 0)
                FAIL(STANCE_ERR_NOT_FOUND, "%s: unknown state '%s'%s", where, td->from, state_hint(md, td->from).text);
            if (find_state_in(md, td->to) < 0)
                FAIL(STANCE_ERR_NOT_FOUND, "%s: unknown state '%s'%s", where, td->to ? td->to : "(null)", state_hint(md, td->to).text);
            if (td->condition_count < 0 || td->condition_count > STANCE_MAX_CONDITIONS || (td->condition_count && !td->conditions))
                FAIL(STANCE_ERR_ARGUMENT, "%s: condition_count %d is not in 0..%d", where, td->condition_count, STANCE_MAX_CONDITIONS);
            if ((unsigned)td->exit > STANCE_EXIT_AT_END) FAIL(STANCE_ERR_ARGUMENT, "%s: unknown exit mode", where);
            if (!st_finite(td->exit_time) || td->exit_time < 0.0f) FAIL(STANCE_ERR_VALUE, "%s: exit_time %g is not finite and >= 0", where, (double)td->exit_time);
            if (!st_finite(td->blend_time) || td->blend_time < 0.0f || td->blend_time > 60.0f) FAIL(STANCE_ERR_VALUE, "%s: blend_time %g is not in [0, 60]", where, (double)td->blend_time);
            if ((unsigned)td->mode >= STANCE_SWITCH_MODE_COUNT) FAIL(STANCE_ERR_ARGUMENT, "%s: unknown switch mode %d", where, (int)td->mode);
            if ((unsigned)td->easing > STANCE_EASE_LINEAR) FAIL(STANCE_ERR_ARGUMENT, "%s: unknown easing %d", where, (int)td->easing);
            /* no exit and no condition: an unconditional transition (a sequence step) */
            for (int c = 0; c < td->condition_count; c++) {
                const stance_condition_desc *cd = &td->conditions[c];
                int p = find_param(d, cd->param);
                if (p < 0) FAIL(STANCE_ERR_NOT_FOUND, "%s: unknown parameter '%s'%s", where, cd->param ? cd->param : "(null)", param_hint(d, cd->param).text);
                if ((unsigned)cd->op > STANCE_CMP_FALSE) FAIL(STANCE_ERR_ARGUMENT, "%s: unknown comparison %d", where, (int)cd->op);
                if (!st_finite(cd->value) || !st_finite(cd->hysteresis) || cd->hysteresis < 0.0f)
                    FAIL(STANCE_ERR_VALUE, "%s: condition on '%s' has a value or hysteresis that is not finite (or negative hysteresis)", where, cd->param);
                if (d->params[p].type == STANCE_PARAM_TRIGGER && cd->op != STANCE_CMP_TRUE)
                    FAIL(STANCE_ERR_ARGUMENT, "%s: trigger '%s' can only be tested for being set", where, cd->param);
                if (cd->group < 0 || cd->group >= STANCE_MAX_CONDITIONS) FAIL(STANCE_ERR_ARGUMENT, "%s: condition group %d is not in 0..%d", where, cd->group, STANCE_MAX_CONDITIONS - 1);
            }
            conds += td->condition_count;
        }
        states += md->state_count;
        trans += md->transition_count;
    }
    if (states > STANCE_MAX_STATES) FAIL(STANCE_ERR_ARGUMENT, "graph: %d states, more than %d", states, STANCE_MAX_STATES);
    /* nesting depth (no cycles: each machine is nested at most once, never by itself) */
    for (int m = 0; m < d->machine_count; m++) {
        int depth = 0, cur = m;
        while (depth <= STANCE_MAX_NEST) {
            int parent = -1;
            for (int k = 0; k < d->machine_count && parent < 0; k++)
                for (int s = 0; s < d->machines[k].state_count; s++) {
                    const stance_state_desc *sd = &d->machines[k].states[s];
                    if (sd->type == STANCE_MOTION_MACHINE && find_machine(d, sd->machine) == cur) { parent = k; break; }
                }
            if (parent < 0) break;
            cur = parent;
            depth++;
        }
        if (depth > STANCE_MAX_NEST) FAIL(STANCE_ERR_ARGUMENT, "machine '%s': nested deeper than %d (or in a cycle)", d->machines[m].name, STANCE_MAX_NEST);
    }
    if (d->layer_count == 0 && used[0])
        FAIL(STANCE_ERR_ARGUMENT, "graph: with no layers the first machine ('%s') is the base layer, so a state cannot nest it", d->machines[0].name);
    for (int l = 0; l < d->layer_count; l++) {
        const stance_layer_desc *ld = &d->layers[l];
        if (!name_ok(ld->name)) FAIL(STANCE_ERR_ARGUMENT, "graph: layer %d name is empty or longer than 63 bytes", l);
        for (int k = 0; k < l; k++)
            if (!strcmp(d->layers[k].name, ld->name)) FAIL(STANCE_ERR_ARGUMENT, "graph: two layers are named '%s'", ld->name);
        int m = find_machine(d, ld->machine);
        if (m < 0) FAIL(STANCE_ERR_NOT_FOUND, "layer '%s': unknown machine '%s'", ld->name, ld->machine ? ld->machine : "(null)");
        if (used[m]++) FAIL(STANCE_ERR_ARGUMENT, "layer '%s': machine '%s' is already used by another state or layer", ld->name, ld->machine);
        if (!st_finite(ld->weight) || ld->weight < 0.0f || ld->weight > 1.0f) FAIL(STANCE_ERR_VALUE, "layer '%s': weight %g is not in [0, 1]", ld->name, (double)ld->weight);
        if ((unsigned)ld->mode > STANCE_LAYER_ADDITIVE) FAIL(STANCE_ERR_ARGUMENT, "layer '%s': unknown mode", ld->name);
        if ((unsigned)ld->space > STANCE_SPACE_MESH) FAIL(STANCE_ERR_ARGUMENT, "layer '%s': unknown space", ld->name);
        if ((unsigned)ld->additive_ref > STANCE_ADDITIVE_REF_CLIP_SYNC) FAIL(STANCE_ERR_ARGUMENT, "layer '%s': unknown additive reference", ld->name);
        if (ld->additive_ref == STANCE_ADDITIVE_REF_CLIP_SYNC && !ld->ref_clip) FAIL(STANCE_ERR_ARGUMENT, "layer '%s': a synced additive reference needs ref_clip", ld->name);
        if (ld->ref_clip) {
            stance_status st = check_clip(ld->ref_clip, sk, ld->name, err);
            if (st) return st;
        }
        if (ld->mask)
            for (int j = 0; j < sk->joint_count; j++)
                if (!st_finite(ld->mask[j]) || ld->mask[j] < 0.0f || ld->mask[j] > 1.0f)
                    FAIL(STANCE_ERR_VALUE, "layer '%s': mask weight of joint %d is not in [0, 1]", ld->name, j);
        if (!st_finite((float)ld->priority)) FAIL(STANCE_ERR_VALUE, "layer '%s': bad priority", ld->name);
    }
    *n_states = states, *n_trans = trans, *n_conds = conds, *n_entries = entries;
    return STANCE_OK;
}

typedef struct layout {
    size_t off, params, states, trans, state_trans, any_trans, conds, entries, machines, layers, masks, ref_structs, ref_mem,
        steps, deltas, scale_cap;
} layout;

static size_t take(size_t *off, size_t bytes) {
    size_t at = st_align_up(*off, 64);
    *off = at + bytes;
    return at;
}

/* The machine trees in one flat order, each machine's root layer, cursor
 * count and flags, and the layers the fused passes may take (the runtime's
 * definitions: src/core/graph/graph_derive.c). */
static void flatten(stance_graph *g) {
    int cap[STANCE_MAX_MACHINES], hist[STANCE_MAX_MACHINES], has[STANCE_MAX_MACHINES];
    gr_machine_flags(g, cap, hist, has);
    for (int m = 0; m < g->machine_count; m++) {
        g_machine *gm = &g->machines[m];
        gm->clip_cap = cap[m], gm->history = hist[m], gm->has_trans = has[m];
    }
    gr_fill_program(g); /* the frame's program and the root layers (src/core/graph/graph_program.c) */
    for (int l = 0; l < g->layer_count; l++) g->layers[l].fusable = gr_layer_fusable(g, l);
}

/* The scale caps (src/core/graph/graph_bounds.c): the bounds the chain rule holds
 * for, refused when a chain multiplies past STANCE_MAX_SCALE; those of delta
 * clips never below a legal scale. After the delta clips. */
static stance_status build_bounds(stance_graph *g, stance_error *err) {
    const int pc = st_pad8(g->skeleton->joint_count);
    float *peak = g->scale_cap, *dpeak = g->scale_cap + pc;
    gr_scale_peaks(g, peak, dpeak);
    stance_status s = gr_check_chain(g, peak, dpeak, err);
    for (int j = 0; j < g->skeleton->joint_count; j++) dpeak[j] = fmaxf(dpeak[j], STANCE_MIN_SCALE);
    return s;
}

/* The description's sync groups (per state, in the graph's state order)
 * and clip markers (src/core/graph/graph_sync.c checks them). */
static stance_status build_sync(stance_graph *g, const stance_graph_desc *d, stance_error *err) {
    int any = 0;
    for (int m = 0; m < d->machine_count && !any; m++)
        for (int i = 0; i < d->machines[m].state_count && !any; i++) any = d->machines[m].states[i].sync != NULL;
    if (!any) return gr_sync_build(g, NULL, d->clip_sync, d->clip_sync_count, err);
    const size_t bytes = sizeof(const char *) * (size_t)g->state_count;
    const char **names = st_alloc(&g->allocator, bytes, 16);
    if (!names) FAIL(STANCE_ERR_MEMORY, "graph: allocation of %zu bytes failed", bytes);
    for (int m = 0; m < d->machine_count; m++)
        for (int i = 0; i < d->machines[m].state_count; i++)
            names[g->machines[m].state_first + i] = d->machines[m].states[i].sync;
    stance_status st = gr_sync_build(g, names, d->clip_sync, d->clip_sync_count, err);
    st_free(&g->allocator, names, bytes);
    return st;
}

/* The description's clip notes (events, windows) as the graph keeps them
 * (src/core/graph/graph_notes.c checks and merges them). */
static stance_status build_notes(stance_graph *g, const stance_graph_desc *d, stance_error *err) {
    unsigned char all[STANCE_MAX_STATES];
    int any = 0;
    for (int m = 0; m < d->machine_count; m++)
        for (int i = 0; i < d->machines[m].state_count; i++) {
            const int v = d->machines[m].states[i].blend_events;
            if (v != STANCE_BLEND_EVENTS_DOMINANT && v != STANCE_BLEND_EVENTS_ALL)
                FAIL(STANCE_ERR_VALUE, "graph: state '%s': blend_events %d is not STANCE_BLEND_EVENTS_DOMINANT or _ALL",
                     d->machines[m].states[i].name, v);
            all[g->machines[m].state_first + i] = (unsigned char)v, any |= v;
        }
    stance_status bs = gr_notes_blend_all(g, any ? all : NULL, err);
    if (bs) return bs;
    const int n = d->clip_notes_count;
    if (n < 0 || (n > 0 && !d->clip_notes)) FAIL(STANCE_ERR_ARGUMENT, "graph: clip_notes_count %d without clip_notes", n);
    if (n == 0) return gr_notes_build(g, NULL, 0, err);
    int ev = 0, wn = 0;
    for (int i = 0; i < n; i++) {
        const stance_clip_notes_desc *c = &d->clip_notes[i];
        if (c->event_count < 0 || c->event_count > STANCE_MAX_EVENTS || c->window_count < 0 ||
            c->window_count > STANCE_MAX_WINDOWS || (c->event_count && !c->events) || (c->window_count && !c->windows))
            FAIL(STANCE_ERR_ARGUMENT, "graph: clip notes %d: event_count %d (0..%d) or window_count %d (0..%d) without "
                 "its array", i, c->event_count, STANCE_MAX_EVENTS, c->window_count, STANCE_MAX_WINDOWS);
        ev += c->event_count, wn += c->window_count;
    }
    const size_t bytes = sizeof(gr_notes_src) * (size_t)n + sizeof(g_authored) * (size_t)ev + sizeof(g_window) * (size_t)wn;
    unsigned char *mem = st_alloc(&g->allocator, bytes, 16);
    if (!mem) FAIL(STANCE_ERR_MEMORY, "graph: allocation of %zu bytes failed", bytes);
    gr_notes_src *src = (gr_notes_src *)mem;
    g_authored *au = (g_authored *)(mem + sizeof(gr_notes_src) * (size_t)n);
    g_window *wi = (g_window *)(au + ev);
    stance_status st = STANCE_OK;
    for (int i = 0; i < n && !st; i++) {
        const stance_clip_notes_desc *c = &d->clip_notes[i];
        const char *cn = c->clip ? c->clip->name : "(null)";
        src[i].clip = c->clip, src[i].event_count = c->event_count, src[i].window_count = c->window_count;
        src[i].events = au, src[i].windows = wi;
        for (int k = 0; k < c->event_count && !st; k++, au++) {
            const stance_notify_desc *e = &c->events[k];
            if (!e->name || !e->name[0] || strlen(e->name) >= STANCE_EVENT_NAME)
                st = st_fail(err, STANCE_ERR_VALUE, "graph: clip '%s' notes: event %d: the name is NULL, empty or over %d bytes",
                             cn, k, STANCE_EVENT_NAME - 1);
            else if ((e->payload.flags & STANCE_PAYLOAD_STRING) && !memchr(e->payload.s, 0, sizeof e->payload.s))
                st = st_fail(err, STANCE_ERR_VALUE, "graph: clip '%s' notes: event '%s': the payload's string is over %d bytes",
                             cn, e->name, STANCE_PAYLOAD_STRING_MAX);
            if (st) break;
            memcpy(au->name, e->name, strlen(e->name));
            au->time = e->time, au->min_weight = e->min_weight, au->payload = e->payload;
        }
        for (int k = 0; k < c->window_count && !st; k++, wi++) {
            const stance_window_desc *w = &c->windows[k];
            if (!w->name || !w->name[0] || strlen(w->name) >= STANCE_EVENT_NAME)
                st = st_fail(err, STANCE_ERR_VALUE, "graph: clip '%s' notes: window %d: the name is NULL, empty or over %d bytes",
                             cn, k, STANCE_EVENT_NAME - 1);
            if (st) break;
            memcpy(wi->name, w->name, strlen(w->name));
            wi->from = w->from, wi->to = w->to, wi->min_weight = w->min_weight;
        }
    }
    if (!st) st = gr_notes_build(g, src, n, err);
    st_free(&g->allocator, mem, bytes);
    return st;
}

stance_status gb_compile(const stance_graph_desc *d, const stance_allocator *allocator, stance_graph **out,
                         stance_error *err) {
    if (!out) FAIL(STANCE_ERR_ARGUMENT, "graph: out is NULL");
    *out = NULL;
    if (!d) FAIL(STANCE_ERR_ARGUMENT, "graph: desc is NULL");
    if (st_check_allocator(allocator, "graph", err)) return STANCE_ERR_ARGUMENT;
    int S = 0, T = 0, C = 0, E = 0;
    stance_status st = validate(d, err, &S, &T, &C, &E);
    if (st) return st;
    const stance_skeleton *sk = d->skeleton;
    const int J = sk->joint_count, L = d->layer_count ? d->layer_count : 1, M = d->machine_count;
    /* Reference poses: one per clip state of additive layers' machines, one per ref_clip. */
    int R = 0;
    for (int l = 0; l < d->layer_count; l++) {
        const stance_layer_desc *ld = &d->layers[l];
        if (ld->mode != STANCE_LAYER_ADDITIVE) continue;
        if (ld->ref_clip) { R++; continue; }
        R += d->machines[find_machine(d, ld->machine)].state_count;
    }
    size_t pose_bytes = stance_pose_bytes(J);
    layout lo = {0};
    size_t off = sizeof(stance_graph);
    lo.params = take(&off, sizeof(g_param) * (size_t)d->param_count);
    lo.states = take(&off, sizeof(g_state) * (size_t)S);
    lo.trans = take(&off, sizeof(g_trans) * (size_t)T);
    lo.state_trans = take(&off, sizeof(int) * (size_t)T);
    lo.any_trans = take(&off, sizeof(int) * (size_t)T);
    lo.conds = take(&off, sizeof(g_cond) * (size_t)C);
    lo.entries = take(&off, sizeof(g_entry) * (size_t)E);
    lo.machines = take(&off, sizeof(g_machine) * (size_t)M);
    lo.layers = take(&off, sizeof(g_layer) * (size_t)L);
    lo.masks = take(&off, sizeof(float) * (size_t)st_pad8(J) * (size_t)L); /* padded with zeros */
    lo.ref_structs = take(&off, sizeof(stance_pose) * (size_t)R);
    lo.ref_mem = take(&off, pose_bytes * (size_t)R);
    lo.steps = take(&off, sizeof(g_step) * (size_t)M);
    lo.deltas = take(&off, sizeof(stance_clip *) * (size_t)(S + E));
    lo.scale_cap = take(&off, sizeof(float) * 2 * (size_t)st_pad8(J));
    size_t bytes = off;
    stance_allocator al = st_allocator(allocator);
    unsigned char *mem = st_alloc(&al, bytes, 64);
    if (!mem) FAIL(STANCE_ERR_MEMORY, "graph: allocation of %zu bytes failed", bytes);
    stance_graph *g = (stance_graph *)mem;
    g->skeleton = sk;
    g->params = (g_param *)(mem + lo.params);
    g->states = (g_state *)(mem + lo.states);
    g->trans = (g_trans *)(mem + lo.trans);
    g->state_trans = (int *)(mem + lo.state_trans);
    g->any_trans = (int *)(mem + lo.any_trans);
    g->conds = (g_cond *)(mem + lo.conds);
    g->entries = (g_entry *)(mem + lo.entries);
    g->machines = (g_machine *)(mem + lo.machines);
    g->layers = (g_layer *)(mem + lo.layers);
    g->masks = (float *)(mem + lo.masks);
    g->ref_poses = (stance_pose *)(mem + lo.ref_structs);
    g->steps = (g_step *)(mem + lo.steps);
    g->deltas = (stance_clip **)(mem + lo.deltas);
    g->scale_cap = (float *)(mem + lo.scale_cap);
    g->param_count = d->param_count, g->state_count = S, g->machine_count = M, g->layer_count = L;
    g->trans_count = T, g->cond_count = C, g->entry_count = E, g->ref_pose_count = 0;
    g->default_blend_time = d->default_blend_time > 0.0f ? d->default_blend_time : 0.25f;
    g->deadblend_halflife = d->deadblend_halflife > 0.0f ? d->deadblend_halflife : 0.05f;
    g->allocator = al;
    g->bytes = bytes;
    g->ik = NULL, g->ik_count = g->ik_clip_count = 0;
    for (int i = 0; i < d->param_count; i++) {
        memcpy(g->params[i].name, d->params[i].name, strlen(d->params[i].name) + 1);
        g->params[i].type = d->params[i].type;
        g->params[i].value = d->params[i].value;
        g->params[i].damping = d->params[i].damping;
    }
    /* states and machines */
    int s_at = 0, e_at = 0;
    for (int m = 0; m < M; m++) {
        const stance_machine_desc *md = &d->machines[m];
        g_machine *gm = &g->machines[m];
        memcpy(gm->name, md->name, strlen(md->name) + 1);
        gm->state_first = s_at, gm->state_count = md->state_count;
        gm->entry = s_at + (md->entry ? find_state_in(md, md->entry) : 0);
        gm->parent_state = -1, gm->layer = -1;
        for (int s = 0; s < md->state_count; s++, s_at++) {
            const stance_state_desc *sd = &md->states[s];
            g_state *gs = &g->states[s_at];
            memcpy(gs->name, sd->name, strlen(sd->name) + 1);
            gs->machine = m;
            gs->type = sd->type;
            gs->clip = sd->type == STANCE_MOTION_CLIP ? sd->clip : NULL; /* a blend space plays its entries */
            gs->once = sd->once;
            gs->speed_warp = sd->speed_warp != 0;
            gs->fade_time = sd->fade_time;
            gs->speed = sd->speed != 0.0f ? sd->speed : 1.0f;
            gs->speed_param = sd->speed_param ? find_param(d, sd->speed_param) : -1;
            gs->param_x = gs->param_y = gs->sub_machine = -1;
            gs->ref_pose = -1;
            if (sd->type == STANCE_MOTION_BLEND1D || sd->type == STANCE_MOTION_BLEND2D) {
                gs->entry_first = e_at, gs->entry_count = sd->entry_count;
                gs->param_x = find_param(d, sd->param_x);
                if (sd->type == STANCE_MOTION_BLEND2D) gs->param_y = find_param(d, sd->param_y);
                for (int e = 0; e < sd->entry_count; e++) {
                    g_entry en = {sd->entries[e].clip, NULL, sd->entries[e].x, sd->entries[e].y, -1};
                    int k = e_at + e;
                    if (sd->type == STANCE_MOTION_BLEND1D) /* insertion sort by x */
                        while (k > e_at && g->entries[k - 1].x > en.x) { g->entries[k] = g->entries[k - 1]; k--; }
                    g->entries[k] = en;
                }
                e_at += sd->entry_count;
            }
            if (sd->type == STANCE_MOTION_MACHINE) gs->sub_machine = find_machine(d, sd->machine);
        }
    }
    for (int s = 0; s < S; s++)
        if (g->states[s].sub_machine >= 0) g->machines[g->states[s].sub_machine].parent_state = s;
    /* transitions, per state in priority order, then any-state per machine */
    int t_at = 0, c_at = 0;
    for (int m = 0; m < M; m++) {
        const stance_machine_desc *md = &d->machines[m];
        int base = g->machines[m].state_first;
        for (int t = 0; t < md->transition_count; t++, t_at++) {
            const stance_transition_desc *td = &md->transitions[t];
            g_trans *gt = &g->trans[t_at];
            int any = !td->from || !strcmp(td->from, "*");
            gt->from = any ? -1 : base + find_state_in(md, td->from);
            gt->to = base + find_state_in(md, td->to);
            gt->cond_first = c_at, gt->cond_count = td->condition_count;
            gt->exit = td->exit, gt->exit_time = td->exit_time, gt->blend_time = td->blend_time;
            gt->mode = td->mode, gt->easing = td->easing;
            gt->uninterruptible = td->uninterruptible != 0, gt->allow_self = td->allow_self != 0;
            for (int c = 0; c < td->condition_count; c++, c_at++) {
                const stance_condition_desc *cd = &td->conditions[c];
                g->conds[c_at] = (g_cond){find_param(d, cd->param), cd->op, cd->value, cd->hysteresis, cd->group};
            }
        }
    }
    int st_at = 0;
    for (int s = 0; s < S; s++) {
        g->states[s].trans_first = st_at;
        for (int t = 0; t < T; t++)
            if (g->trans[t].from == s) g->state_trans[st_at++] = t;
        g->states[s].trans_count = st_at - g->states[s].trans_first;
    }
    int any_at = 0;
    for (int m = 0; m < M; m++) {
        g->machines[m].any_first = any_at;
        for (int t = 0; t < T; t++)
            if (g->trans[t].from < 0 && g->states[g->trans[t].to].machine == m) g->any_trans[any_at++] = t;
        g->machines[m].any_count = any_at - g->machines[m].any_first;
    }
    /* layers */
    for (int l = 0; l < L; l++) {
        g_layer *gl = &g->layers[l];
        float *mask = g->masks + (size_t)l * (size_t)st_pad8(J);
        if (d->layer_count == 0) {
            strcpy(gl->name, "base");
            gl->machine = 0, gl->weight = 1.0f;
            for (int j = 0; j < J; j++) mask[j] = 1.0f;
            gl->mask = mask, gl->ref_clip_pose = -1;
        } else {
            const stance_layer_desc *ld = &d->layers[l];
            memcpy(gl->name, ld->name, strlen(ld->name) + 1);
            gl->machine = find_machine(d, ld->machine);
            gl->weight = l == 0 ? 1.0f : ld->weight;
            gl->mode = ld->mode, gl->space = ld->space;
            gl->has_mask = ld->mask != NULL;
            for (int j = 0; j < J; j++) mask[j] = ld->mask ? ld->mask[j] : 1.0f;
            gl->mask = mask;
            gl->additive_ref = ld->additive_ref;
            gl->ref_clip = ld->ref_clip;
            gl->priority = ld->priority;
            gl->ref_clip_pose = -1;
        }
        g->machines[gl->machine].layer = l;
    }
    /* additive reference poses (first frames) */
    unsigned char *pm = mem + lo.ref_mem;
    for (int l = 0; l < L; l++) {
        g_layer *gl = &g->layers[l];
        if (gl->mode != STANCE_LAYER_ADDITIVE) continue;
        const g_machine *gm = &g->machines[gl->machine];
        int n = gl->ref_clip ? 1 : gm->state_count;
        for (int i = 0; i < n; i++) {
            stance_pose *p = &g->ref_poses[g->ref_pose_count];
            stance_pose_init(p, J, pm + pose_bytes * (size_t)g->ref_pose_count, pose_bytes, NULL);
            const stance_clip *clip = NULL;
            if (gl->ref_clip) {
                clip = gl->ref_clip;
                gl->ref_clip_pose = g->ref_pose_count;
            } else {
                g_state *gs = &g->states[gm->state_first + i];
                clip = gs->type == STANCE_MOTION_CLIP ? gs->clip
                     : gs->entry_count ? g->entries[gs->entry_first].clip : NULL;
                gs->ref_pose = g->ref_pose_count;
            }
            if (clip) stance_clip_sample(clip, 0.0f, NULL, p, NULL);
            else stance_pose_set_rest(p, sk, NULL);
            g->ref_pose_count++;
        }
    }
    flatten(g);
    st = gr_build_deltas(g, err);
    if (!st) st = build_bounds(g, err); /* issue 22: the chain rule */
    for (int s = 0; !st && s < g->state_count; s++) g->states[s].same_scale = gr_same_scale(g, s);
    if (!st) st = gr_build_ik(g, d, err);
    if (!st) gr_fill_ik_ranges(g); /* each entry's local-to-model range (src/core/graph/graph_program.c) */
    if (!st) st = build_notes(g, d, err);
    if (!st) st = build_sync(g, d, err);
    if (!st) st = gb_build_curves(g, d, err);
    if (st) {
        gb_destroy(g);
        return st;
    }
    *out = g;
    return STANCE_OK;
}

void gb_destroy(stance_graph *g) {
    if (!g) return;
    gr_notes_destroy(g);
    gr_sync_destroy(g);
    gr_curves_destroy(g);
    for (int i = 0; i < g->delta_count; i++) stance_clip_destroy(g->deltas[i]);
    gr_destroy_ik(g);
    stance_allocator al = g->allocator;
    st_free(&al, g, g->bytes);
}

stance_status gb_bind_compiled(const stance_graph *built, const stance_clip *const *clips, int clip_count,
                               const stance_allocator *allocator, stance_graph **out, stance_error *err) {
    size_t size = 0;
    stance_status s = st_graph_section_check(built, clips, clip_count, err);
    if (s) return s;
    size = st_graph_section_write(built, clips, clip_count, NULL);
    stance_allocator al = st_allocator(allocator);
    unsigned char *bytes = st_alloc(&al, size, 16);
    if (!bytes) return st_fail(err, STANCE_ERR_MEMORY, "graph: allocation of %zu bytes failed", size);
    st_graph_section_write(built, clips, clip_count, bytes);
    stance_error e = {STANCE_OK, ""};
    s = st_graph_bind(bytes, size, built->skeleton, clips, clip_count, &al, out, &e);
    st_free(&al, bytes, size);
    if (s == STANCE_ERR_MEMORY) return st_fail(err, s, "%s", e.message);
    if (s) return st_fail(err, s, "graph: internal error: the compiled graph does not bind (%s)", e.message);
    return STANCE_OK;
}

stance_status stance_graph_create(const stance_graph_desc *d, const stance_allocator *allocator, stance_graph **out,
                                  stance_error *err) {
    if (!out) FAIL(STANCE_ERR_ARGUMENT, "graph: out is NULL");
    *out = NULL;
    stance_graph *built = NULL;
    stance_status s = gb_compile(d, allocator, &built, err);
    if (s) return s;
    /* the clips it plays, by index: stance_graph_clips's order, then the layers' reference clips */
    const int n = stance_graph_clips(built, NULL, 0);
    stance_allocator al = st_allocator(allocator);
    const size_t tb = sizeof(const stance_clip *) * (size_t)(n + built->layer_count + 1);
    const stance_clip **table = st_alloc(&al, tb, 16);
    if (!table) {
        gb_destroy(built);
        return st_fail(err, STANCE_ERR_MEMORY, "graph: allocation of %zu bytes failed", tb);
    }
    int count = stance_graph_clips(built, table, n);
    for (int l = 0; l < built->layer_count; l++) {
        const stance_clip *r = built->layers[l].ref_clip;
        int seen = !r;
        for (int i = 0; i < count && !seen; i++) seen = table[i] == r;
        if (!seen) table[count++] = r;
    }
    s = gb_bind_compiled(built, table, count, allocator, out, err);
    st_free(&al, table, tb);
    gb_destroy(built);
    return s ? s : st_ok(err);
}


