/* src/core/graph/graph_ik.c - the graph's IK entries: an entry's trial solve on
 * the rest pose (the builder, src/build/graph_ik_build.c, resolves the
 * entries and finds the contacts; the binder runs the same trial on a
 * file's entries) and the entries' queries. The instance's side of them
 * (targets, poles, the world root, ground) is frame/instance_ik.c; the
 * per-update IK stage is frame/ik_stage.c. */
#include <string.h>

#include "core/graph/graph_derive.h"
#include "core/base/internal.h"
#include "stance/graph_query.h"

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

stance_status stance_graph_ik_info(const stance_graph *g, int ik, stance_ik_info *out, stance_error *err) {
    if (!g || !out) return st_fail(err, STANCE_ERR_ARGUMENT, "graph ik info: graph or out is NULL");
    if (ik < 0 || ik >= g->ik_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "graph ik info: entry %d is not in 0..%d", ik, g->ik_count - 1);
    const g_ik *gi = &g->ik[ik];
    memset(out, 0, sizeof *out);
    out->name = gi->name, out->kind = gi->kind, out->pelvis = -1;
    if (gi->kind == STANCE_IK_AIM) {
        out->chain_count = gi->chain_count;
        memcpy(out->chain, gi->chain, sizeof(int) * (size_t)gi->chain_count);
        memcpy(out->forward, gi->forward, sizeof out->forward);
        out->max_angle = gi->max_angles[0];
        return STANCE_OK;
    }
    out->leg_count = gi->fd.leg_count;
    for (int i = 0; i < gi->fd.leg_count; i++)
        out->legs[i][0] = gi->fd.legs[i].upper, out->legs[i][1] = gi->fd.legs[i].lower, out->legs[i][2] = gi->fd.legs[i].foot;
    out->softness = gi->fd.softness;
    if (gi->kind == STANCE_IK_FOOTLOCK) {
        out->pelvis_default = gi->fd.pelvis == 0;
        out->pelvis = gi->fd.pelvis > 0 ? gi->fd.pelvis : gi->fd.pelvis == 0 ? g->skeleton->parents[gi->fd.legs[0].upper] : -1;
        out->blend_time = gi->fd.blend_time, out->plant_time = gi->fd.plant_time;
    }
    return STANCE_OK;
}
