/* src/core/ik/footlock.c - foot contacts looked up (found once per clip by
 * the builder: src/build/contacts.c) and per-frame foot locking on two-bone
 * IK, with a smooth release, pelvis drop and the caller's ground height.
 *
 * The per-frame stance_footlock_apply allocates nothing and keeps no state
 * of its own: everything it remembers lives in the caller's
 * stance_footlock_state. */
#include <string.h>

#include "core/base/internal.h"
#include "core/rig/rig_internal.h"
#include "core/math/qmath.h"
#include "stance/footlock.h"
#include "stance/ik.h"

/* ---- contacts ------------------------------------------------------------- */

int stance_contacts_planted(const stance_contacts *c, int foot, float time) {
    if (!c || foot < 0 || foot >= c->foot_count || !st_finite(time)) return 0;
    if (time < 0.0f) time = 0.0f;
    if (time > c->duration) time = c->duration;
    int i = (int)(time * c->rate + 0.5f);
    if (i >= c->sample_count) i = c->sample_count - 1;
    return c->planted[(size_t)foot * (size_t)c->sample_count + (size_t)i];
}

/* ---- locking -------------------------------------------------------------- */

static qm_vec3 to_world(const stance_transform *r, qm_vec3 p) {
    p = qm_v3(p.x * r->s[0], p.y * r->s[1], p.z * r->s[2]);
    return qm_add(qm_v3(r->t[0], r->t[1], r->t[2]), qm_qrot(qm_q(r->r[0], r->r[1], r->r[2], r->r[3]), p));
}
static qm_vec3 to_model(const stance_transform *r, qm_vec3 w) {
    qm_vec3 p = qm_qrot(qm_qconj(qm_q(r->r[0], r->r[1], r->r[2], r->r[3])), qm_sub(w, qm_v3(r->t[0], r->t[1], r->t[2])));
    return qm_v3(p.x / r->s[0], p.y / r->s[1], p.z / r->s[2]);
}
static qm_vec3 mpos(const stance_pose *m, int j) { return qm_v3(m->tx[j], m->ty[j], m->tz[j]); }
/* A foot's model-space target further than this on an axis releases its
 * lock (the bound stance/base.h's argument uses: squared distances stay
 * finite). */
#define FL_MAX_TARGET 1e17f
/* v in the frame of joint p of the model pose (rotation and scale; a zero
 * scale axis reads as 1 so nothing turns infinite) */
static qm_vec3 into_frame(const stance_pose *m, int p, qm_vec3 v) {
    v = qm_qrot(qm_qconj(qm_q(m->qx[p], m->qy[p], m->qz[p], m->qw[p])), v);
    float sx = fabsf(m->sx[p]) > 1e-12f ? m->sx[p] : 1.0f, sy = fabsf(m->sy[p]) > 1e-12f ? m->sy[p] : 1.0f;
    float sz = fabsf(m->sz[p]) > 1e-12f ? m->sz[p] : 1.0f;
    return qm_v3(v.x / sx, v.y / sy, v.z / sz);
}
/* the horizontal (x, z) velocity from a step (dx, dz) over dt > 0, finite */
static void hvel(float dx, float dz, float dt, float v[3]) {
    const float x = dx / dt, z = dz / dt;
    v[0] = x < -3e38f ? -3e38f : x > 3e38f ? 3e38f : x, v[1] = 0.0f, v[2] = z < -3e38f ? -3e38f : z > 3e38f ? 3e38f : z;
    if (!(v[0] == v[0])) v[0] = 0.0f; /* inf - inf: no step known */
    if (!(v[2] == v[2])) v[2] = 0.0f;
}
static float smooth01(float x) { return x <= 0.0f ? 0.0f : x >= 1.0f ? 1.0f : x * x * (3.0f - 2.0f * x); }
static float ground_at(const stance_footlock_desc *d, const stance_transform *root, float x, float z) {
    if (!d->ground) return root->t[1];
    float g = d->ground(d->ground_user, x, z);
    return st_finite(g) ? g : root->t[1]; /* a bad ground value reads as flat */
}

static stance_status check_desc(const stance_footlock_desc *d, const stance_skeleton *sk, int *pelvis, stance_error *err) {
    const int n = sk->joint_count;
    if (d->leg_count < 1 || d->leg_count > STANCE_FOOT_MAX)
        return st_fail(err, STANCE_ERR_ARGUMENT, "footlock: leg_count %d is not in 1..%d", d->leg_count, STANCE_FOOT_MAX);
    for (int i = 0; i < d->leg_count; i++) {
        const stance_leg_desc *g = &d->legs[i];
        int js[3] = {g->upper, g->lower, g->foot};
        for (int k = 0; k < 3; k++)
            if (js[k] < 0 || js[k] >= n) return st_fail(err, STANCE_ERR_ARGUMENT, "footlock: leg %d: joint %d is not in 0..%d", i, js[k], n - 1);
        if (g->upper == g->lower || g->lower == g->foot || g->upper == g->foot || !stance_skeleton_is_descendant(sk, g->lower, g->upper))
            return st_fail(err, STANCE_ERR_ARGUMENT, "footlock: leg %d: the knee must be below the hip and the three joints distinct", i);
        if (!stance_skeleton_is_descendant(sk, g->foot, g->lower) && stance_skeleton_is_descendant(sk, g->foot, g->upper))
            return st_fail(err, STANCE_ERR_ARGUMENT, "footlock: leg %d: the foot is below the hip but not below the knee", i);
        if (!st_finite_n(g->hinge, 3)) return st_fail(err, STANCE_ERR_VALUE, "footlock: leg %d: hinge is not finite", i);
        for (int o = 0; o < i; o++) /* legs must not share joints: each is solved on its own */
            if (stance_skeleton_is_descendant(sk, g->upper, d->legs[o].upper) || stance_skeleton_is_descendant(sk, d->legs[o].upper, g->upper))
                return st_fail(err, STANCE_ERR_ARGUMENT, "footlock: legs %d and %d overlap", o, i);
    }
    int p = d->pelvis == 0 ? sk->parents[d->legs[0].upper] : d->pelvis;
    if (p >= n) return st_fail(err, STANCE_ERR_ARGUMENT, "footlock: pelvis %d is not a joint", p);
    for (int i = 0; p >= 0 && i < d->leg_count; i++)
        if (stance_skeleton_is_descendant(sk, p, d->legs[i].upper))
            return st_fail(err, STANCE_ERR_ARGUMENT, "footlock: the pelvis '%s' lies inside leg %d", stance_skeleton_joint_name(sk, p), i);
    *pelvis = p;
    if (!st_finite(d->blend_time) || d->blend_time < 0.0f || d->blend_time > 10.0f)
        return st_fail(err, STANCE_ERR_VALUE, "footlock: blend_time %g is not in [0, 10] s", (double)d->blend_time);
    if (!st_finite(d->plant_time) || d->plant_time < 0.0f || d->plant_time > 10.0f)
        return st_fail(err, STANCE_ERR_VALUE, "footlock: plant_time %g is not in [0, 10] s", (double)d->plant_time);
    if (!(d->softness >= 0.0f && d->softness < 0.5f))
        return st_fail(err, STANCE_ERR_VALUE, "footlock: softness %g is not in [0, 0.5)", (double)d->softness);
    if (!(d->release_speed >= 0.0f && d->release_speed <= 1000.0f))
        return st_fail(err, STANCE_ERR_VALUE, "footlock: release_speed %g is not in [0, 1000] leg lengths per second", (double)d->release_speed);
    return STANCE_OK;
}

stance_status stance_footlock_apply(const stance_footlock_desc *d, stance_footlock_state *st, const float *contact,
                                    const stance_transform *root, float dt, const stance_skeleton *sk, stance_pose *local,
                                    stance_pose *model, stance_error *err) {
    if (!d || !st || !contact || !root || !sk || !local || !model)
        return st_fail(err, STANCE_ERR_ARGUMENT, "footlock: a required argument is NULL");
    if (!local->memory || !model->memory || local->joint_count != sk->joint_count || model->joint_count != sk->joint_count || local == model)
        return st_fail(err, STANCE_ERR_ARGUMENT, "footlock: local and model must be two poses of the skeleton's %d joints", sk->joint_count);
    int pelvis = -1;
    stance_status s = check_desc(d, sk, &pelvis, err);
    if (s) return s;
    for (int i = 0; i < d->leg_count; i++)
        if (!(contact[i] >= 0.0f && contact[i] <= 1.0f)) return st_fail(err, STANCE_ERR_VALUE, "footlock: contact[%d] is not in [0, 1]", i);
    char why[200]; /* issue 22: the limits of stance/base.h, as stance_instance_set_root */
    if (st_check_trs(root->t, root->r, root->s, why, sizeof why)) return st_fail(err, STANCE_ERR_VALUE, "footlock: the root %s", why);
    if (!(dt >= 0.0f && dt <= 10.0f)) return st_fail(err, STANCE_ERR_VALUE, "footlock: dt %g is not in [0, 10] s", (double)dt);
    const float bt = d->blend_time > 0.0f ? d->blend_time : 0.2f;
    const float soft = d->softness > 0.0f ? d->softness : 0.02f;
    const float pt = d->plant_time > 0.0f ? d->plant_time : 0.05f;
    stance_transform rt = *root;
    {   /* normalizable (checked above) */
        qm_quat q = qm_qnorm(qm_q(rt.r[0], rt.r[1], rt.r[2], rt.r[3]));
        rt.r[0] = q.x, rt.r[1] = q.y, rt.r[2] = q.z, rt.r[3] = q.w;
    }
    const float ref = rt.t[1];
    const float krel = d->release_speed > 0.0f ? d->release_speed : 0.1f;
    const float hscale = 0.5f * (fabsf(rt.s[0]) + fabsf(rt.s[2])); /* model lengths to world ones, horizontally */
    /* the body's horizontal velocity: the root's world motion, whoever moves
     * it (its root motion or the caller), and its speed */
    if (!st->started) memset(st->root_velocity, 0, sizeof st->root_velocity);
    else if (dt > 0.0f) hvel(rt.t[0] - st->root[0], rt.t[2] - st->root[2], dt, st->root_velocity);
    st->root[0] = rt.t[0], st->root[1] = rt.t[1], st->root[2] = rt.t[2];
    const float body = sm_hypotf(st->root_velocity[0], st->root_velocity[2]);

    /* 0. each leg as the animation has it: its reach and its soft limit R,
     * which starts at the reach less the softness, or further out where the
     * clip itself stretches the leg more, so a target the clip already
     * reaches is reached as it is */
    float reach[STANCE_FOOT_MAX], lim[STANCE_FOOT_MAX];
    for (int i = 0; i < d->leg_count; i++) {
        const stance_leg_desc *g = &d->legs[i];
        const qm_vec3 hip = mpos(model, g->upper), knee = mpos(model, g->lower), foot = mpos(model, g->foot);
        reach[i] = qm_len3(qm_sub(knee, hip)) + qm_len3(qm_sub(foot, knee));
        const float clip_d = qm_len3(qm_sub(foot, hip));
        lim[i] = reach[i] * (1.0f - soft);
        if (clip_d > lim[i]) lim[i] = clip_d < reach[i] ? clip_d : reach[i];
    }

    /* 1. where each foot goes, in world and model space */
    qm_vec3 target[STANCE_FOOT_MAX];
    for (int i = 0; i < d->leg_count; i++) {
        stance_foot_state *fs = &st->feet[i];
        const qm_vec3 hip = mpos(model, d->legs[i].upper);
        const int blended = (d->blended >> i) & 1u;
        const qm_vec3 fw = to_world(&rt, mpos(model, d->legs[i].foot));
        const float above = fw.y - ref; /* the clip's height above its ground */
        const qm_vec3 anim = qm_v3(fw.x, ground_at(d, &rt, fw.x, fw.z) + above, fw.z);
        if (!st->started) fs->planted = 0, fs->fade = 0.0f, fs->plant = 1.0f, fs->held = 0, memset(fs->velocity, 0, sizeof fs->velocity);
        else if (dt > 0.0f) hvel(fw.x - fs->anim[0], fw.z - fs->anim[2], dt, fs->velocity);
        fs->anim[0] = fw.x, fs->anim[1] = fw.y, fs->anim[2] = fw.z;
        /* A split vote (some clips say planted, some not) goes by the foot's
         * own motion: it swings when it overtakes the body, moving forward
         * (along the body's velocity) faster than the body and than krel
         * leg lengths a second; with the body still, when it moves faster
         * than that. A planted foot stays behind the body (still in the
         * world); a swinging one passes it at about twice its speed. */
        const float *fv = fs->velocity, *rv = st->root_velocity;
        const float ahead = body > 0.0f ? (fv[0] * rv[0] + fv[2] * rv[2]) / body : sm_hypotf(fv[0], fv[2]);
        const int split = contact[i] > 0.0f && contact[i] < 1.0f;
        const int moving = split && ahead > fmaxf(body, krel * reach[i] * hscale);
        if (!fs->planted && fs->fade > 0.0f) fs->fade = fmaxf(0.0f, fs->fade - dt / bt);
        if (fs->held && !(fs->fade > 0.0f)) fs->held = 0;
        /* where the foot goes when free: the animation plus what is left of the release offset */
        const float k = smooth01(fs->fade);
        const qm_vec3 free_pos = qm_add(anim, qm_v3(fs->offset[0] * k, fs->offset[1] * k, fs->offset[2] * k));
        if (fs->planted && fs->plant < 1.0f) {
            /* settling into the lock: the foot keeps 1 - smoothstep of the
             * animation's motion, so it slows down and stops where it stops */
            fs->plant = pt > 0.0f ? fminf(1.0f, fs->plant + dt / pt) : 1.0f;
            const float keep = 1.0f - smooth01(fs->plant);
            fs->lock[0] += keep * (free_pos.x - fs->free[0]), fs->lock[2] += keep * (free_pos.z - fs->free[2]);
        }
        const qm_vec3 lock_pos = qm_v3(fs->lock[0], ground_at(d, &rt, fs->lock[0], fs->lock[2]) + above, fs->lock[2]);
        /* the leg cannot hold the lock (and it is further than the free foot
         * is): a blended lock beyond the soft limit from the animation's hip;
         * one clip's lock once no pelvis drop brings it within (it is beyond
         * the soft limit sideways) */
        int beyond = 0;
        if (fs->planted) {
            const qm_vec3 v = qm_sub(to_model(&rt, lock_pos), hip), u = qm_sub(to_model(&rt, free_pos), hip);
            const float r2 = lim[i] * lim[i];
            if (blended) beyond = qm_dot3(v, v) > fmaxf(r2, qm_dot3(u, u));
            else beyond = v.x * v.x + v.z * v.z > fmaxf(r2, u.x * u.x + u.z * u.z);
        }
        const int want = contact[i] >= 0.5f && !moving && !beyond && !fs->held;
        qm_vec3 w = fs->planted ? lock_pos : free_pos;
        if (want && !fs->planted) { /* plant where the foot is now: no pop */
            fs->planted = 1;
            fs->plant = pt > 0.0f ? 0.0f : 1.0f;
            fs->lock[0] = free_pos.x, fs->lock[1] = free_pos.y, fs->lock[2] = free_pos.z;
            w = free_pos;
        } else if (!want && fs->planted) { /* release: blend from where it is held to the animation */
            fs->planted = 0;
            fs->fade = 1.0f;
            fs->held = moving || beyond; /* the animation moved it: no new plant until the blend is over */
            const qm_vec3 o = qm_sub(lock_pos, anim);
            fs->offset[0] = o.x, fs->offset[1] = o.y, fs->offset[2] = o.z;
            w = lock_pos;
        }
        fs->free[0] = free_pos.x, fs->free[1] = free_pos.y, fs->free[2] = free_pos.z;
        target[i] = to_model(&rt, w);
        if (!(fabsf(target[i].x) <= FL_MAX_TARGET && fabsf(target[i].y) <= FL_MAX_TARGET && fabsf(target[i].z) <= FL_MAX_TARGET)) {
            /* issue 22: a lock this far from the character (the root moved or shrank that much since it was
             * set) is let go: the foot follows the animation, and plants anew */
            target[i] = mpos(model, d->legs[i].foot);
            fs->planted = 0, fs->fade = 0.0f;
        }
    }
    st->started = 1;

    /* 2. the pelvis drops as far as the leg that reaches least needs */
    float drop = 0.0f;
    for (int i = 0; pelvis >= 0 && i < d->leg_count; i++) {
        const float R = lim[i];
        const qm_vec3 v = qm_sub(target[i], mpos(model, d->legs[i].upper));
        const float h2 = v.x * v.x + v.z * v.z, dy = -v.y; /* dy: how far the target is below the hip */
        if (v.x * v.x + v.y * v.y + v.z * v.z <= R * R) continue;
        float need = h2 < R * R ? dy - sqrtf(R * R - h2) : dy; /* out of reach sideways: bring the hip level */
        if (need > drop) drop = need;
    }
    if (drop > 0.0f) {
        /* model-space (0, -drop, 0) in the pelvis' parent frame */
        const int pp = sk->parents[pelvis];
        qm_vec3 v = qm_v3(0.0f, -drop, 0.0f);
        if (pp >= 0) v = into_frame(model, pp, v);
        local->tx[pelvis] += v.x, local->ty[pelvis] += v.y, local->tz[pelvis] += v.z;
        /* an ankle that is an IK control bone outside the pelvis goes down
         * with it, so the leg it ends keeps its length */
        for (int i = 0; i < d->leg_count; i++) {
            const int f = d->legs[i].foot, pf = sk->parents[f];
            if (stance_skeleton_is_descendant(sk, f, pelvis)) continue;
            qm_vec3 u = qm_v3(0.0f, -drop, 0.0f);
            if (pf >= 0) u = into_frame(model, pf, u);
            local->tx[f] += u.x, local->ty[f] += u.y, local->tz[f] += u.z;
        }
        /* only what moved: the pelvis' subtree, and such ankles' */
        st_local_to_model_range(model, local, sk, pelvis, sk->joint_count - 1);
        for (int i = 0; i < d->leg_count; i++)
            if (!stance_skeleton_is_descendant(sk, d->legs[i].foot, pelvis))
                st_local_to_model_range(model, local, sk, d->legs[i].foot, sk->joint_count - 1);
    }
    st->pelvis_drop = drop;

    /* 3. each leg reaches its target */
    for (int i = 0; i < d->leg_count; i++) {
        const stance_leg_desc *g = &d->legs[i];
        stance_two_bone_desc tb;
        memset(&tb, 0, sizeof tb);
        tb.upper = g->upper, tb.lower = g->lower, tb.end = g->foot;
        tb.target[0] = target[i].x, tb.target[1] = target[i].y, tb.target[2] = target[i].z;
        const float leg_soft = reach[i] > 0.0f ? (reach[i] - lim[i]) / reach[i] : 0.0f;
        tb.softness = leg_soft < 0.999f ? leg_soft : 0.999f, tb.keep_end_rotation = 1;
        memcpy(tb.hinge, g->hinge, sizeof tb.hinge);
        s = stance_ik_two_bone(&tb, 1.0f, sk, local, model, NULL, err);
        if (s) return s;
        if (!stance_skeleton_is_descendant(sk, g->foot, g->lower)) {
            /* an IK control bone: move it to the target itself */
            const int pf = sk->parents[g->foot];
            qm_vec3 v = target[i];
            if (pf >= 0) v = into_frame(model, pf, qm_sub(v, mpos(model, pf)));
            local->tx[g->foot] = v.x, local->ty[g->foot] = v.y, local->tz[g->foot] = v.z;
        }
    }
    /* only what the legs moved: each upper joint's subtree, and an IK control
     * foot's (the IK stage's rule, docs/frame.md) */
    for (int i = 0; i < d->leg_count; i++) {
        const stance_leg_desc *g = &d->legs[i];
        st_local_to_model_range(model, local, sk, g->upper, sk->joint_count - 1);
        if (!stance_skeleton_is_descendant(sk, g->foot, g->upper))
            st_local_to_model_range(model, local, sk, g->foot, sk->joint_count - 1);
    }
    for (int i = 0; i < d->leg_count; i++) {
        qm_vec3 w = to_world(&rt, mpos(model, d->legs[i].foot));
        st->feet[i].out[0] = w.x, st->feet[i].out[1] = w.y, st->feet[i].out[2] = w.z;
    }
    return st_ok(err);
}
