/* src/core/graph/graph_ik.c - the graph's IK entries: an entry's trial solve on
 * the rest pose (the builder, src/build/graph_ik_build.c, resolves the
 * entries and finds the contacts; the binder runs the same trial on a
 * file's entries), the entries' queries, and the instance's side of them:
 * targets and two_bone poles, the world root (its root motion or the
 * caller's) and ground. The per-update IK stage is ik_stage.c; the world
 * root moves in the advance stage (advance.c). */
#include <string.h>

#include "core/graph/graph_derive.h"
#include "core/instance/instance_internal.h"
#include "core/base/internal.h"

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
        g_ik_aim_desc(gi, NULL, &ad);
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

const stance_contacts *stance_graph_ik_contacts(const stance_graph *g, int ik, const stance_clip *clip) {
    if (!g || ik < 0 || ik >= g->ik_count || !clip) return NULL;
    int c = g_ik_clip_index(g, clip);
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
