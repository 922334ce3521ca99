/* src/build/graph_ik_build.c - building the IK stage of a graph
 * (libstance_build): the entries of stance_graph_desc.ik checked, their
 * joint names resolved, each entry tried with one solve on the rest pose
 * (gr_ik_trial, the runtime's: binding a compiled graph runs the same), and
 * each footlock entry's contacts found once per clip the states play (from
 * the clips' events or their motion). Allocates (once); the per-update
 * stage is the runtime's (src/core/graph/graph_ik.c). */
#include <string.h>

#include "build/graph_build.h"
#include "core/graph/graph_derive.h"
#include "core/base/internal.h"
#include "core/base/names.h"


static const char *joint_at(const void *sk, int i) { return stance_skeleton_joint_name(sk, i); }

static stance_status find_joint(const stance_skeleton *sk, const char *what, int e, const char *name, int *out,
                                stance_error *err) {
    if (!name || !name[0]) return st_fail(err, STANCE_ERR_ARGUMENT, "ik entry %d: %s joint name is missing", e, what);
    *out = stance_skeleton_find(sk, name);
    if (*out >= 0) return STANCE_OK;
    char hint[200];
    st_suggest(hint, sizeof hint, name, joint_at, sk, sk->joint_count);
    return st_fail(err, STANCE_ERR_NOT_FOUND, "ik entry %d: %s: no joint named '%s'%s", e, what, name, hint);
}

/* The velocity an in-place clip implies: the mean velocity of the feet
 * over the samples where they are down, reversed (a planted foot moves
 * back at the walk speed in model space). */
static stance_status inplace_velocity(const stance_clip *c, const stance_skeleton *sk, const int *feet, int F,
                                      const stance_allocator *al, float vel[3], stance_error *err) {
    vel[0] = vel[1] = vel[2] = 0.0f;
    stance_pose l, m;
    stance_status s = stance_pose_create(&l, sk->joint_count, al, err);
    if (s) return s;
    if ((s = stance_pose_create(&m, sk->joint_count, al, err))) { stance_pose_destroy(&l); return s; }
    enum { N = 240 };
    float lowest[STANCE_FOOT_MAX], prev[STANCE_FOOT_MAX][3], sum[2] = {0, 0};
    int count = 0;
    float band[STANCE_FOOT_MAX]; /* a foot within the sliding band of its lowest is down (stance/footlock.h) */
    for (int k = 0; k < F; k++) {
        lowest[k] = 1e30f;
        float leg = 0.0f;
        band[k] = stance_leg_length(sk, feet[k], &leg, NULL) ? 0.0f : STANCE_SLIDE_BAND_LEGS * leg;
    }
    const float dt = c->duration / N;
    for (int pass = 0; pass < 2; pass++)
        for (int f = 0; f <= N; f++) {
            stance_clip_sample(c, dt * (float)f, NULL, &l, NULL);
            stance_local_to_model(&m, &l, sk, NULL, NULL);
            for (int k = 0; k < F; k++) {
                const int j = feet[k];
                const float p[3] = {m.tx[j], m.ty[j], m.tz[j]};
                if (pass == 0 && p[1] < lowest[k]) lowest[k] = p[1];
                if (pass == 1 && f > 0 && dt > 0.0f && p[1] <= lowest[k] + band[k] && prev[k][1] <= lowest[k] + band[k]) {
                    sum[0] += (p[0] - prev[k][0]) / dt, sum[1] += (p[2] - prev[k][2]) / dt;
                    count++;
                }
                memcpy(prev[k], p, sizeof p);
            }
        }
    if (count > 0) vel[0] = -sum[0] / (float)count, vel[2] = -sum[1] / (float)count;
    stance_pose_destroy(&l), stance_pose_destroy(&m);
    return STANCE_OK;
}

static int clip_has_event(const stance_clip *c, const char *name) {
    for (int i = 0; name && i < c->event_count; i++)
        if (!strcmp(c->events[i].name, name)) return 1;
    return 0;
}

static stance_status check_entry(const stance_graph_desc *d, int e, stance_error *err) {
    const stance_ik_desc *k = &d->ik[e];
    if (!k->name || !k->name[0] || strlen(k->name) >= G_NAME)
        return st_fail(err, STANCE_ERR_ARGUMENT, "ik entry %d: name is empty or longer than 63 bytes", e);
    for (int o = 0; o < e; o++)
        if (d->ik[o].name && !strcmp(d->ik[o].name, k->name))
            return st_fail(err, STANCE_ERR_ARGUMENT, "ik entry %d: the name '%s' is taken by entry %d", e, k->name, o);
    if ((unsigned)k->kind >= STANCE_IK_KIND_COUNT)
        return st_fail(err, STANCE_ERR_ARGUMENT, "ik '%s': unknown kind %d", k->name, (int)k->kind);
    if (k->kind == STANCE_IK_AIM) {
        if (k->chain_count < 1 || k->chain_count > STANCE_AIM_MAX_CHAIN)
            return st_fail(err, STANCE_ERR_ARGUMENT, "ik '%s': chain_count %d is not in 1..%d", k->name, k->chain_count, STANCE_AIM_MAX_CHAIN);
        if (!st_finite_n(k->forward, 3) || !st_finite(k->max_angle) || k->max_angle < 0.0f || k->max_angle > 3.14159265f)
            return st_fail(err, STANCE_ERR_VALUE, "ik '%s': forward must be finite and max_angle in [0, pi]", k->name);
        return STANCE_OK;
    }
    const int legs_max = k->kind == STANCE_IK_TWO_BONE ? 1 : STANCE_FOOT_MAX;
    if (k->leg_count < 1 || k->leg_count > legs_max)
        return st_fail(err, STANCE_ERR_ARGUMENT, "ik '%s': leg_count %d is not in 1..%d", k->name, k->leg_count, legs_max);
    const float v[6] = {k->blend_time, k->plant_time, k->softness, k->contact_height, k->contact_speed, k->contact_min_duration};
    for (int i = 0; i < 6; i++)
        if (!st_finite(v[i]) || v[i] < 0.0f)
            return st_fail(err, STANCE_ERR_VALUE, "ik '%s': blend_time, plant_time, softness and the contact thresholds must be "
                           "finite and >= 0", k->name);
    if (!st_finite_n(k->root_velocity, 3)) return st_fail(err, STANCE_ERR_VALUE, "ik '%s': root_velocity is not finite", k->name);
    for (int i = 0; i < k->leg_count; i++)
        if ((k->legs[i].down_event == NULL) != (k->legs[i].up_event == NULL))
            return st_fail(err, STANCE_ERR_ARGUMENT, "ik '%s': leg %d: give both down_event and up_event, or neither", k->name, i);
    return STANCE_OK;
}

static stance_status resolve_aim(stance_graph *g, const stance_ik_desc *k, int e, stance_error *err) {
    g_ik *gi = &g->ik[e];
    gi->chain_count = k->chain_count;
    for (int i = 0; i < k->chain_count; i++) {
        stance_status s = find_joint(g->skeleton, "chain", e, k->chain[i], &gi->chain[i], err);
        if (s) return s;
        gi->max_angles[i] = k->max_angle;
    }
    memcpy(gi->forward, k->forward, sizeof gi->forward);
    return gr_ik_trial(g, e, err);
}

/* Resolves entry e into g->ik[e] and checks it with one frame on the rest pose. */
static stance_status resolve_entry(stance_graph *g, const stance_graph_desc *d, int e, stance_error *err) {
    const stance_ik_desc *k = &d->ik[e];
    const stance_skeleton *sk = g->skeleton;
    g_ik *gi = &g->ik[e];
    memcpy(gi->name, k->name, strlen(k->name) + 1);
    gi->kind = k->kind;
    stance_footlock_desc *fd = &gi->fd;
    memset(fd, 0, sizeof *fd);
    gi->chain_count = 0;
    if (k->kind == STANCE_IK_AIM) return resolve_aim(g, k, e, err);
    fd->leg_count = k->leg_count;
    for (int i = 0; i < k->leg_count; i++) {
        stance_status s = find_joint(sk, "hip", e, k->legs[i].hip, &fd->legs[i].upper, err);
        if (!s) s = find_joint(sk, "knee", e, k->legs[i].knee, &fd->legs[i].lower, err);
        if (!s) s = find_joint(sk, "ankle", e, k->legs[i].ankle, &fd->legs[i].foot, err);
        if (s) return s;
    }
    if (!k->pelvis) fd->pelvis = 0;
    else if (!k->pelvis[0]) fd->pelvis = -1;
    else {
        stance_status s = find_joint(sk, "pelvis", e, k->pelvis, &fd->pelvis, err);
        if (s) return s;
        if (fd->pelvis == 0) { /* joint 0 named explicitly: 0 means "the default" in the desc */
            if (sk->parents[fd->legs[0].upper] != 0)
                return st_fail(err, STANCE_ERR_ARGUMENT, "ik '%s': the pelvis may be joint 0 only when it is the first hip's parent", k->name);
        }
    }
    fd->blend_time = k->blend_time, fd->plant_time = k->plant_time, fd->softness = k->softness;
    if (k->kind == STANCE_IK_TWO_BONE && !(fd->softness < 1.0f))
        return st_fail(err, STANCE_ERR_VALUE, "ik '%s': softness must be below 1", k->name);
    return gr_ik_trial(g, e, err);
}

static stance_status build_contacts(stance_graph *g, const stance_graph_desc *d, int e, stance_error *err) {
    const stance_ik_desc *k = &d->ik[e];
    const g_ik *gi = &g->ik[e];
    int feet[STANCE_FOOT_MAX];
    const char *down[STANCE_FOOT_MAX], *up[STANCE_FOOT_MAX];
    for (int i = 0; i < gi->fd.leg_count; i++) feet[i] = gi->fd.legs[i].foot, down[i] = k->legs[i].down_event, up[i] = k->legs[i].up_event;
    for (int c = 0; c < g->ik_clip_count; c++) {
        const stance_clip *clip = g->ik_clips[c];
        stance_contact_desc cd;
        memset(&cd, 0, sizeof cd);
        cd.foot_count = gi->fd.leg_count, cd.feet = feet;
        cd.height = k->contact_height, cd.speed = k->contact_speed, cd.min_duration = k->contact_min_duration;
        int events = 1;
        for (int i = 0; i < cd.foot_count; i++) events = events && clip_has_event(clip, down[i]) && clip_has_event(clip, up[i]);
        if (events) cd.down_events = down, cd.up_events = up;
        if (!(clip->root_speed > 0.0f) && clip->root_key_count == 0) {
            if (k->root_velocity[0] != 0.0f || k->root_velocity[1] != 0.0f || k->root_velocity[2] != 0.0f)
                memcpy(cd.root_velocity, k->root_velocity, sizeof cd.root_velocity);
            else {
                stance_status s = inplace_velocity(clip, g->skeleton, feet, cd.foot_count, &g->allocator, cd.root_velocity, err);
                if (s) return s;
            }
        }
        stance_error e2 = {0};
        stance_status s = stance_contacts_create(&cd, clip, g->skeleton, &g->allocator, &g->contacts[e * g->ik_clip_count + c], &e2);
        if (s) return st_fail(err, s, "ik '%s': clip '%s': %s", k->name, clip->name, e2.message);
    }
    return STANCE_OK;
}

stance_status gr_build_ik(stance_graph *g, const stance_graph_desc *d, stance_error *err) {
    g->ik_count = 0, g->ik_clip_count = 0, g->ik = NULL, g->ik_clips = NULL, g->contacts = NULL, g->ik_bytes = 0;
    if (d->ik_count == 0) return STANCE_OK;
    if (d->ik_count < 0 || d->ik_count > STANCE_MAX_IK || !d->ik)
        return st_fail(err, STANCE_ERR_ARGUMENT, "graph: ik_count %d is not in 0..%d (or ik is NULL)", d->ik_count, STANCE_MAX_IK);
    for (int e = 0; e < d->ik_count; e++) {
        stance_status s = check_entry(d, e, err);
        if (s) return s;
    }
    const int C = stance_graph_clips(g, NULL, 0), K = d->ik_count;
    const size_t o_clips = st_align_up(sizeof(g_ik) * (size_t)K, 16);
    const size_t o_contacts = st_align_up(o_clips + sizeof(stance_clip *) * (size_t)(C ? C : 1), 16);
    const size_t bytes = o_contacts + sizeof(stance_contacts *) * (size_t)(K * (C ? C : 1));
    unsigned char *mem = st_alloc(&g->allocator, bytes, 16);
    if (!mem) return st_fail(err, STANCE_ERR_MEMORY, "graph: allocation of %zu bytes for the ik stage failed", bytes);
    memset(mem, 0, bytes);
    g->ik = (g_ik *)mem;
    g->ik_clips = (const stance_clip **)(mem + o_clips);
    g->contacts = (stance_contacts **)(mem + o_contacts);
    g->ik_bytes = bytes;
    g->ik_count = K;
    g->ik_clip_count = stance_graph_clips(g, g->ik_clips, C);
    for (int e = 0; e < K; e++) {
        stance_status s = resolve_entry(g, d, e, err);
        if (!s && d->ik[e].kind == STANCE_IK_FOOTLOCK) s = build_contacts(g, d, e, err);
        if (s) return s; /* the caller destroys the graph, which frees what was built */
    }
    return STANCE_OK;
}

void gr_destroy_ik(stance_graph *g) {
    if (!g->ik) return;
    for (int i = 0; i < g->ik_count * g->ik_clip_count; i++) stance_contacts_destroy(g->contacts[i]);
    st_free(&g->allocator, g->ik, g->ik_bytes);
    g->ik = NULL;
}
