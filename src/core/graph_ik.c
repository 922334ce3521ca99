/* src/core/graph_ik.c - the graph's IK stage: an entry's trial solve on the
 * rest pose (the builder, src/build/graph_ik_build.c, resolves the entries
 * and finds the contacts; the binder runs the same trial on a file's
 * entries), the entries' queries, their targets and two_bone poles, the
 * instance's world root (its root motion or the caller's) and ground, and
 * the per-update stage that runs after the layers: the contact weights from
 * what the base layer plays, then stance_footlock_apply on the instance's
 * local and model poses.
 *
 * The per-update stage allocates nothing and touches only its instance and
 * the immutable graph. */
#include <stdint.h>
#include <string.h>

#include "core/graph_derive.h"
#include "core/internal.h"
#include "core/qmath.h"

static void aim_desc(const g_ik *gi, const float *target, stance_aim_desc *ad) {
    memset(ad, 0, sizeof *ad);
    ad->chain_count = gi->chain_count, ad->chain = gi->chain;
    ad->max_angles = gi->max_angles[0] > 0.0f ? gi->max_angles : NULL;
    memcpy(ad->forward, gi->forward, sizeof ad->forward);
    if (target) memcpy(ad->target, target, sizeof ad->target);
}

stance_status gr_ik_trial(const stance_graph *g, int e, stance_error *err) {
    const g_ik *gi = &g->ik[e];
    const stance_skeleton *sk = g->skeleton;
    stance_pose l, m;
    stance_status s = stance_pose_create(&l, sk->joint_count, &g->allocator, err);
    if (s) return s;
    if ((s = stance_pose_create(&m, sk->joint_count, &g->allocator, err))) { stance_pose_destroy(&l); return s; }
    stance_pose_set_rest(&l, sk, NULL);
    stance_local_to_model(&m, &l, sk, NULL, NULL);
    stance_error e2 = {0};
    if (gi->kind == STANCE_IK_TWO_BONE) {
        stance_two_bone_desc tb;
        memset(&tb, 0, sizeof tb);
        tb.upper = gi->fd.legs[0].upper, tb.lower = gi->fd.legs[0].lower, tb.end = gi->fd.legs[0].foot;
        tb.softness = gi->fd.softness;
        s = stance_ik_two_bone(&tb, 0.0f, sk, &l, &m, NULL, &e2);
    } else if (gi->kind == STANCE_IK_AIM) {
        stance_aim_desc ad;
        aim_desc(gi, NULL, &ad);
        ad.target[2] = 1.0f;
        s = stance_ik_aim(&ad, 0.0f, sk, &l, &m, NULL, &e2);
    } else { /* one frame of the lock checks the legs, the pelvis and the values */
        stance_footlock_state st;
        memset(&st, 0, sizeof st);
        const float contact[STANCE_FOOT_MAX] = {0, 0, 0, 0};
        const stance_transform root = stance_transform_identity();
        s = stance_footlock_apply(&gi->fd, &st, contact, &root, 0.0f, sk, &l, &m, &e2);
    }
    stance_pose_destroy(&l), stance_pose_destroy(&m);
    if (s) return st_fail(err, s, "ik '%s': %s", gi->name, e2.message);
    return STANCE_OK;
}


int stance_graph_ik_count(const stance_graph *g) { return g ? g->ik_count : 0; }
int stance_graph_ik_kind(const stance_graph *g, int ik) { return g && ik >= 0 && ik < g->ik_count ? (int)g->ik[ik].kind : -1; }

int stance_graph_find_ik(const stance_graph *g, const char *name) {
    if (!g || !name) return -1;
    for (int i = 0; i < g->ik_count; i++)
        if (!strcmp(g->ik[i].name, name)) return i;
    return -1;
}

static int clip_index(const stance_graph *g, const stance_clip *clip) {
    for (int c = 0; c < g->ik_clip_count; c++)
        if (g->ik_clips[c] == clip) return c;
    return -1;
}

const stance_contacts *stance_graph_ik_contacts(const stance_graph *g, int ik, const stance_clip *clip) {
    if (!g || ik < 0 || ik >= g->ik_count || !clip) return NULL;
    int c = clip_index(g, clip);
    return c >= 0 ? g->contacts[ik * g->ik_clip_count + c] : NULL;
}

/* ---- instance: world root and ground ------------------------------------------------ */

stance_status stance_instance_set_root(stance_instance *inst, const stance_transform *root, int teleport, stance_error *err) {
    if (!in_live(inst)) return st_fail(err, STANCE_ERR_ARGUMENT, "set root: instance is " IN_NOT_LIVE);
    if (root) {
        char why[200]; /* issue 22: the limits of stance/base.h, the footlock stage's too */
        if (st_check_trs(root->t, root->r, root->s, why, sizeof why)) return st_fail(err, STANCE_ERR_VALUE, "set root: %s", why);
        const float n = sqrtf(root->r[0] * root->r[0] + root->r[1] * root->r[1] + root->r[2] * root->r[2] + root->r[3] * root->r[3]);
        if (!(fabsf(n - 1.0f) <= 1e-3f)) return st_fail(err, STANCE_ERR_VALUE, "set root: the rotation is not a unit quaternion (length %g)", (double)n);
        inst->world_root = *root;
        for (int k = 0; k < 4; k++) inst->world_root.r[k] /= n;
        inst->root_owned = 1;
    } else {
        inst->root_owned = 0;
    }
    if (teleport) memset(inst->ik_state, 0, sizeof(stance_footlock_state) * (size_t)inst->graph->ik_count);
    return st_ok(err);
}

void stance_instance_root(const stance_instance *inst, stance_transform *out) {
    if (!out) return;
    *out = in_live(inst) ? inst->world_root : stance_transform_identity();
}

stance_status stance_instance_set_ground(stance_instance *inst, stance_ground_fn fn, void *user, stance_error *err) {
    if (!in_live(inst)) return st_fail(err, STANCE_ERR_ARGUMENT, "set ground: instance is " IN_NOT_LIVE);
    inst->ground = fn, inst->ground_user = fn ? user : NULL;
    return st_ok(err);
}

stance_status stance_instance_set_ik_target(stance_instance *inst, int ik, const float target[3], float weight, stance_error *err) {
    if (!in_live(inst) || !target) return st_fail(err, STANCE_ERR_ARGUMENT, "set ik target: target is NULL or instance is " IN_NOT_LIVE);
    const stance_graph *g = inst->graph;
    if (ik < 0 || ik >= g->ik_count) return st_fail(err, STANCE_ERR_NOT_FOUND, "set ik target: entry %d is not in 0..%d", ik, g->ik_count - 1);
    if (g->ik[ik].kind == STANCE_IK_FOOTLOCK)
        return st_fail(err, STANCE_ERR_ARGUMENT, "set ik target: '%s' is a footlock entry (its targets are the locks)", g->ik[ik].name);
    char why[200];
    if (st_check_values(ST_TRANSLATION, target, why, sizeof why)) return st_fail(err, STANCE_ERR_VALUE, "set ik target: the target %s", why);
    if (!(weight >= 0.0f && weight <= 1.0f))
        return st_fail(err, STANCE_ERR_VALUE, "set ik target: the weight %g is not in [0, 1]", (double)weight);
    float *t = inst->ik_target + IK_TARGET_FLOATS * (size_t)ik;
    t[0] = target[0], t[1] = target[1], t[2] = target[2], t[3] = weight;
    return st_ok(err);
}

stance_status stance_instance_set_ik_pole(stance_instance *inst, int ik, const float pole[3], stance_error *err) {
    if (!in_live(inst)) return st_fail(err, STANCE_ERR_ARGUMENT, "set ik pole: instance is " IN_NOT_LIVE);
    const stance_graph *g = inst->graph;
    if (ik < 0 || ik >= g->ik_count) return st_fail(err, STANCE_ERR_NOT_FOUND, "set ik pole: entry %d is not in 0..%d", ik, g->ik_count - 1);
    if (g->ik[ik].kind != STANCE_IK_TWO_BONE)
        return st_fail(err, STANCE_ERR_ARGUMENT, "set ik pole: '%s' is not a two_bone entry (only those bend towards a pole)", g->ik[ik].name);
    char why[200];
    if (pole && st_check_values(ST_TRANSLATION, pole, why, sizeof why)) return st_fail(err, STANCE_ERR_VALUE, "set ik pole: the pole %s", why);
    float *p = inst->ik_target + IK_TARGET_FLOATS * (size_t)ik + 4;
    if (pole) p[0] = pole[0], p[1] = pole[1], p[2] = pole[2], p[3] = 1.0f;
    else p[0] = p[1] = p[2] = p[3] = 0.0f;
    return st_ok(err);
}

const stance_footlock_state *stance_instance_footlock_state(const stance_instance *inst, int ik) {
    return in_live(inst) && ik >= 0 && ik < inst->graph->ik_count ? &inst->ik_state[ik] : NULL;
}

/* The root moves by this update's root motion (model space, rotated and
 * scaled by the root), unless the caller owns it. */
void in_root_advance(stance_instance *inst) {
    if (inst->root_owned) return;
    stance_transform *r = &inst->world_root;
    /* no motion (every delta +-0): the rotated step is +-0 (the root's
     * rotation and scale are finite), which leaves t as it is unless t
     * holds a -0 (0x80000000) */
    uint32_t db[3], tb[3];
    memcpy(db, inst->root_delta, sizeof db);
    memcpy(tb, r->t, sizeof tb);
    if (((db[0] | db[1] | db[2]) << 1) == 0 && tb[0] != 0x80000000u && tb[1] != 0x80000000u && tb[2] != 0x80000000u) return;
    const qm_vec3 d = qm_v3(inst->root_delta[0] * r->s[0], inst->root_delta[1] * r->s[1], inst->root_delta[2] * r->s[2]);
    const qm_vec3 w = qm_qrot(qm_q(r->r[0], r->r[1], r->r[2], r->r[3]), d);
    r->t[0] += w.x, r->t[1] += w.y, r->t[2] += w.z;
}

/* ---- the stage ------------------------------------------------------------------------- */

/* Adds weight x planted of every clip machine m plays (and its nested
 * machines'). While a switch blends, both sides count, the old one by
 * 1 - the eased weight: a crossfade shows the old clip that much, and
 * inertialization and dead blending show the old motion (the offset, the
 * extrapolated pose) fading out as fast, so a foot planted in the old clip
 * stays locked until the new side outweighs it. clips counts the clips
 * that weigh, planted[f] those of them that plant foot f. */
static void add_contacts(const stance_instance *inst, const stance_workspace *ws, int e, int m, float w, int depth, float *contact,
                         int *clips, int *planted) {
    const stance_graph *g = inst->graph;
    const g_plan *pl = &ws->plans[m];
    if (!pl->active || depth > STANCE_MAX_NEST + 1 || w <= 0.0f) return;
    const int two = pl->blend && (pl->mode == STANCE_SWITCH_CROSSFADE || pl->old.count > 0);
    for (int side = 0; side < 1 + two; side++) {
        const g_plan_src *src = side ? &pl->old : &pl->cur;
        const float ws_ = w * (two ? (side ? 1.0f - pl->w : pl->w) : 1.0f);
        if (src->sub >= 0) { add_contacts(inst, ws, e, src->sub, ws_, depth + 1, contact, clips, planted); continue; }
        float total = 0.0f;
        for (int i = 0; i < src->count; i++) total += src->weight[i];
        if (!(total > 0.0f)) continue;
        for (int i = 0; i < src->count; i++) {
            const int c = clip_index(g, src->clip[i]);
            if (c < 0 || !(ws_ * src->weight[i] > 0.0f)) continue;
            (*clips)++;
            const stance_contacts *ct = g->contacts[e * g->ik_clip_count + c];
            for (int f = 0; f < g->ik[e].fd.leg_count; f++) {
                const int p = stance_contacts_planted(ct, f, src->time[i]);
                contact[f] += ws_ * src->weight[i] / total * (float)p, planted[f] += p;
            }
        }
    }
}

stance_status ik_frame(stance_instance *inst, stance_workspace *ws, float dt) {
    const stance_graph *g = inst->graph;
    stance_status first = STANCE_OK;
    for (int e = 0; e < g->ik_count; e++) {
        const g_ik *gi = &g->ik[e];
        if (gi->kind != STANCE_IK_FOOTLOCK) {
            const float *t = inst->ik_target + IK_TARGET_FLOATS * (size_t)e;
            if (!(t[3] > 0.0f)) continue;
            stance_status s;
            if (gi->kind == STANCE_IK_TWO_BONE) {
                stance_two_bone_desc tb;
                memset(&tb, 0, sizeof tb);
                tb.upper = gi->fd.legs[0].upper, tb.lower = gi->fd.legs[0].lower, tb.end = gi->fd.legs[0].foot;
                tb.softness = gi->fd.softness, tb.keep_end_rotation = 1;
                memcpy(tb.target, t, sizeof tb.target);
                if (t[7] != 0.0f) tb.use_pole = 1, memcpy(tb.pole, t + 4, sizeof tb.pole);
                s = stance_ik_two_bone(&tb, t[3], g->skeleton, in_local(inst), in_model(inst), NULL, NULL);
            } else {
                stance_aim_desc ad;
                aim_desc(gi, t, &ad);
                s = stance_ik_aim(&ad, t[3], g->skeleton, in_local(inst), in_model(inst), NULL, NULL);
            }
            st_local_to_model(in_model(inst), in_local(inst), g->skeleton, NULL);
            if (s && !first) first = s;
            continue;
        }
        float contact[STANCE_FOOT_MAX] = {0, 0, 0, 0};
        int clips = 0, planted[STANCE_FOOT_MAX] = {0, 0, 0, 0};
        add_contacts(inst, ws, e, g->layers[0].machine, 1.0f, 0, contact, &clips, planted);
        /* a vote every clip agrees on is exactly 1 or 0 (the weights' sum
         * may round off it); a split one in (0, 1) */
        for (int f = 0; f < STANCE_FOOT_MAX; f++)
            contact[f] = planted[f] == 0 ? 0.0f : planted[f] == clips ? 1.0f : contact[f] < 1e-6f ? 1e-6f : contact[f] > 0.999999f ? 0.999999f : contact[f];
        stance_footlock_desc fd = g->ik[e].fd;
        fd.ground = inst->ground, fd.ground_user = inst->ground_user;
        /* several clips' vote: its locks are held only within the legs' reach */
        fd.blended = clips > 1 ? (1u << fd.leg_count) - 1u : 0u;
        stance_status s = stance_footlock_apply(&fd, &inst->ik_state[e], contact, &inst->world_root, dt, g->skeleton, in_local(inst),
                                                in_model(inst), NULL);
        if (s && !first) first = s;
    }
    return first;
}
