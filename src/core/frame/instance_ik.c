/* src/core/frame/instance_ik.c - the instance's side of the graph's IK
 * entries: targets and two_bone poles, the world root (its root motion or
 * the caller's) and ground, and the footlock state's query. The entries
 * themselves are graph/graph_ik.c; the per-update IK stage is ik_stage.c;
 * the world root moves in the advance stage (advance.c). */
#include <math.h>
#include <string.h>

#include "core/frame/instance_internal.h"
#include "core/base/internal.h"

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
