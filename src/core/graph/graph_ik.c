/* src/core/graph/graph_ik.c - the graph's IK entries: an entry's trial solve on
 * the rest pose (the builder, src/build/graph_ik_build.c, resolves the
 * entries and finds the contacts; the binder runs the same trial on a
 * file's entries) and the entries' queries. The instance's side of them
 * (targets, poles, the world root, ground) is frame/instance_ik.c; the
 * per-update IK stage is frame/ik_stage.c. */
#include <string.h>

#include "core/graph/graph_derive.h"
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
