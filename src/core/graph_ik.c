/* src/core/graph_ik.c - the graph's IK stage: building the entries of
 * stance_graph_desc.ik (joint names resolved, each foot's contacts found
 * once per clip the states play; two_bone and aim entries checked with one
 * solve on the rest pose), their targets and two_bone poles, the instance's
 * world root (its root motion or the caller's) and ground, and the
 * per-update stage that runs after the layers: the contact weights from what the base layer plays,
 * then stance_footlock_apply on the instance's local and model poses.
 *
 * Building allocates (once); the per-update stage allocates nothing and
 * touches only its instance and the immutable graph. */
#include <stdint.h>
#include <string.h>

#include "core/graph_internal.h"
#include "core/internal.h"
#include "core/names.h"
#include "core/qmath.h"
#include "stance/build.h"

#define IK_BAND 0.02f /* a foot within 2 cm of its lowest is down (the project's sliding measure) */

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
    for (int k = 0; k < F; k++) lowest[k] = 1e30f;
    const float dt = c->duration / N;
    for (int pass = 0; pass < 2; pass++)
        for (int f = 0; f <= N; f++) {
            stance_clip_sample(c, dt * (float)f, NULL, &l, NULL);
            stance_local_to_model(&m, &l, sk, NULL, NULL);
            for (int k = 0; k < F; k++) {
                const int j = feet[k];
                const float p[3] = {m.tx[j], m.ty[j], m.tz[j]};
                if (pass == 0 && p[1] < lowest[k]) lowest[k] = p[1];
                if (pass == 1 && f > 0 && dt > 0.0f && p[1] <= lowest[k] + IK_BAND && prev[k][1] <= lowest[k] + IK_BAND) {
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

/* One solve on the rest pose checks the joints' hierarchy and the values. */
static stance_status trial(stance_graph *g, const stance_ik_desc *k, const stance_two_bone_desc *tb, const stance_aim_desc *ad,
                           stance_error *err) {
    const stance_skeleton *sk = g->skeleton;
    stance_pose l, m;
    stance_status s = stance_pose_create(&l, sk->joint_count, &g->allocator, err);
    if (s) return s;
    if ((s = stance_pose_create(&m, sk->joint_count, &g->allocator, err))) { stance_pose_destroy(&l); return s; }
    stance_pose_set_rest(&l, sk, NULL);
    stance_local_to_model(&m, &l, sk, NULL, NULL);
    stance_error e2 = {0};
    s = tb ? stance_ik_two_bone(tb, 0.0f, sk, &l, &m, NULL, &e2) : stance_ik_aim(ad, 0.0f, sk, &l, &m, NULL, &e2);
    stance_pose_destroy(&l), stance_pose_destroy(&m);
    if (s) return st_fail(err, s, "ik '%s': %s", k->name, e2.message);
    return STANCE_OK;
}

static void aim_desc(const g_ik *gi, const float *target, stance_aim_desc *ad) {
    memset(ad, 0, sizeof *ad);
    ad->chain_count = gi->chain_count, ad->chain = gi->chain;
    ad->max_angles = gi->max_angles[0] > 0.0f ? gi->max_angles : NULL;
    memcpy(ad->forward, gi->forward, sizeof ad->forward);
    if (target) memcpy(ad->target, target, sizeof ad->target);
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
    stance_aim_desc ad;
    aim_desc(gi, NULL, &ad);
    ad.target[2] = 1.0f;
    return trial(g, k, NULL, &ad, err);
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
    if (k->kind == STANCE_IK_TWO_BONE) {
        stance_two_bone_desc tb;
        memset(&tb, 0, sizeof tb);
        tb.upper = fd->legs[0].upper, tb.lower = fd->legs[0].lower, tb.end = fd->legs[0].foot, tb.softness = fd->softness;
        if (!(tb.softness < 1.0f)) return st_fail(err, STANCE_ERR_VALUE, "ik '%s': softness must be below 1", k->name);
        return trial(g, k, &tb, NULL, err);
    }
    /* one frame on the rest pose checks the legs, the pelvis and the values */
    stance_pose l, m;
    stance_status s = stance_pose_create(&l, sk->joint_count, &g->allocator, err);
    if (s) return s;
    if ((s = stance_pose_create(&m, sk->joint_count, &g->allocator, err))) { stance_pose_destroy(&l); return s; }
    stance_pose_set_rest(&l, sk, NULL);
    stance_local_to_model(&m, &l, sk, NULL, NULL);
    stance_footlock_state st;
    memset(&st, 0, sizeof st);
    const float contact[STANCE_FOOT_MAX] = {0, 0, 0, 0};
    const stance_transform root = stance_transform_identity();
    stance_error e2 = {0};
    s = stance_footlock_apply(fd, &st, contact, &root, 0.0f, sk, &l, &m, &e2);
    stance_pose_destroy(&l), stance_pose_destroy(&m);
    if (s) return st_fail(err, s, "ik '%s': %s", k->name, e2.message);
    return STANCE_OK;
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
