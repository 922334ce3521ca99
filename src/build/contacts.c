/* src/build/contacts.c - foot contacts found once per clip (libstance_build):
 * from the clip's events, or from the motion (the clip played alone in model
 * space, moved by its root motion: a foot near its lowest and slow is
 * planted, short runs dropped). The runtime only looks them up
 * (stance_contacts_planted, src/core/ik/footlock.c). */
#include <string.h>

#include "core/base/internal.h"
#include "core/math/qmath.h"
#include "core/math/smath.h"
#include "stance/build.h"

static int find_event(const stance_clip *c, const char *name) {
    for (int i = 0; i < c->event_count; i++)
        if (!strcmp(c->events[i].name, name)) return i;
    return -1;
}

/* Drops runs of `v` shorter than `min` samples (runs touching the ends are kept). */
static void drop_short_runs(unsigned char *p, int n, unsigned char v, int min) {
    int i = 0;
    while (i < n) {
        if (p[i] != v) { i++; continue; }
        int j = i;
        while (j < n && p[j] == v) j++;
        if (i > 0 && j < n && j - i < min) memset(p + i, !v, (size_t)(j - i));
        i = j;
    }
}

stance_status stance_contacts_create(const stance_contact_desc *d, const stance_clip *clip, const stance_skeleton *sk,
                                     const stance_allocator *allocator, stance_contacts **out, stance_error *err) {
    if (out) *out = NULL;
    if (!d || !clip || !sk || !out) return st_fail(err, STANCE_ERR_ARGUMENT, "contacts: desc, clip, skeleton or out is NULL");
    if (clip->joint_count != sk->joint_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "contacts: clip '%s' has %d joints, the skeleton %d", clip->name, clip->joint_count,
                       sk->joint_count);
    if (d->foot_count < 1 || d->foot_count > STANCE_FOOT_MAX || !d->feet)
        return st_fail(err, STANCE_ERR_ARGUMENT, "contacts: foot_count %d is not in 1..%d (or feet is NULL)", d->foot_count, STANCE_FOOT_MAX);
    for (int f = 0; f < d->foot_count; f++)
        if (d->feet[f] < 0 || d->feet[f] >= sk->joint_count)
            return st_fail(err, STANCE_ERR_ARGUMENT, "contacts: feet[%d] = %d is not a joint", f, d->feet[f]);
    if (!st_finite(d->height) || d->height < 0.0f || !st_finite(d->speed) || d->speed < 0.0f || !st_finite(d->min_duration) ||
        d->min_duration < 0.0f || d->min_duration > 10.0f || !st_finite_n(d->root_velocity, 3) || !st_finite(d->rate) ||
        d->rate < 0.0f || d->rate > 1000.0f)
        return st_fail(err, STANCE_ERR_VALUE, "contacts: height, speed, min_duration (<= 10 s), root_velocity and rate (<= 1000) "
                       "must be finite and >= 0");
    if ((d->down_events == NULL) != (d->up_events == NULL))
        return st_fail(err, STANCE_ERR_ARGUMENT, "contacts: give both down_events and up_events, or neither");
    const int from_events = d->down_events != NULL;
    int down[STANCE_FOOT_MAX], up[STANCE_FOOT_MAX];
    if (from_events)
        for (int f = 0; f < d->foot_count; f++) {
            const char *dn = d->down_events[f], *un = d->up_events[f];
            down[f] = dn ? find_event(clip, dn) : -1, up[f] = un ? find_event(clip, un) : -1;
            if (down[f] < 0 || up[f] < 0)
                return st_fail(err, STANCE_ERR_NOT_FOUND, "contacts: clip '%s' has no event '%s'", clip->name,
                               down[f] < 0 ? (dn ? dn : "(null)") : (un ? un : "(null)"));
        }
    const float rate = d->rate > 0.0f ? d->rate : 60.0f;
    const float fcount = clip->duration * rate;
    if (!(fcount < 1e6f)) return st_fail(err, STANCE_ERR_VALUE, "contacts: clip '%s' is too long for %g samples a second", clip->name, (double)rate);
    const int n = (int)fcount + 1, F = d->foot_count;
    const size_t o_planted = st_align_up(sizeof(stance_contacts), 16);
    const size_t o_height = st_align_up(o_planted + (size_t)F * (size_t)n, 16);
    const size_t bytes = o_height + sizeof(float) * (size_t)F * (size_t)n;
    stance_allocator al = st_allocator(allocator);
    unsigned char *block = st_alloc(&al, bytes, 16);
    if (!block) return st_fail(err, STANCE_ERR_MEMORY, "contacts: allocation of %zu bytes failed", bytes);
    stance_contacts *c = (stance_contacts *)block;
    unsigned char *planted = block + o_planted;
    float *height = (float *)(block + o_height);
    c->foot_count = F, c->duration = clip->duration, c->rate = rate, c->sample_count = n, c->from_events = from_events;
    c->planted = planted, c->height = height, c->allocator = al, c->bytes = bytes;
    for (int f = 0; f < F; f++) c->feet[f] = d->feet[f];

    stance_pose local, model, rest;
    stance_status s = stance_pose_create(&local, sk->joint_count, &al, err);
    if (!s) s = stance_pose_create(&model, sk->joint_count, &al, err);
    if (s) { stance_pose_destroy(&local); st_free(&al, block, bytes); return s; }
    /* world positions of the feet over the clip, and the character's height */
    float *pos = st_alloc(&al, sizeof(float) * 3 * (size_t)F * (size_t)n, 16);
    s = stance_pose_create(&rest, sk->joint_count, &al, err);
    if (!pos || s) {
        if (!s) stance_pose_destroy(&rest);
        st_free(&al, pos, sizeof(float) * 3 * (size_t)F * (size_t)n);
        stance_pose_destroy(&local), stance_pose_destroy(&model), st_free(&al, block, bytes);
        return s ? s : st_fail(err, STANCE_ERR_MEMORY, "contacts: out of memory");
    }
    stance_pose_set_rest(&local, sk, NULL);
    stance_local_to_model(&rest, &local, sk, NULL, NULL);
    float ylo = rest.ty[0], yhi = rest.ty[0];
    for (int j = 1; j < sk->joint_count; j++) ylo = rest.ty[j] < ylo ? rest.ty[j] : ylo, yhi = rest.ty[j] > yhi ? rest.ty[j] : yhi;
    const float char_h = yhi - ylo > 1e-6f ? yhi - ylo : 1.0f;
    stance_pose_destroy(&rest);
    const int has_vel = d->root_velocity[0] != 0.0f || d->root_velocity[1] != 0.0f || d->root_velocity[2] != 0.0f;
    float root_speed = 0.0f;
    float r0[3] = {0, 0, 0};
    if (!has_vel && clip->root_key_count > 0 && !clip->root_from_joint0) stance_clip_root_position(clip, 0.0f, r0, NULL);
    for (int i = 0; i < n; i++) {
        float t = (float)i / rate;
        if (t > clip->duration) t = clip->duration;
        stance_clip_sample(clip, t, NULL, &local, NULL);
        stance_local_to_model(&model, &local, sk, NULL, NULL);
        float r[3] = {0, 0, 0};
        if (has_vel) {
            for (int k = 0; k < 3; k++) r[k] = d->root_velocity[k] * t;
        } else if (clip->root_key_count > 0 && !clip->root_from_joint0 && clip->root_rotation) {
            /* a path with full rotation: the root's motion from 0 to t (in the frame at 0) and its rotation */
            float q[4] = {0, 0, 0, 1};
            stance_clip_root_motion_rot(clip, 0.0f, t, 0, r, q, NULL);
            const qm_quat rq = qm_q(q[0], q[1], q[2], q[3]);
            for (int f = 0; f < F; f++) {
                const int j = d->feet[f];
                const qm_vec3 v = qm_qrot(rq, qm_v3(model.tx[j], model.ty[j], model.tz[j]));
                model.tx[j] = v.x, model.ty[j] = v.y, model.tz[j] = v.z;
            }
        } else if (clip->root_key_count > 0 && !clip->root_from_joint0 && clip->root_yaw) {
            /* a path that turns: the root's motion from 0 to t (in the frame at 0) and its turn */
            float yaw = 0.0f;
            stance_clip_root_motion_yaw(clip, 0.0f, t, 0, r, &yaw, NULL);
            const float cy = sm_cosf(yaw), sy = sm_sinf(yaw);
            for (int f = 0; f < F; f++) {
                const int j = d->feet[f];
                const float x = model.tx[j], z = model.tz[j];
                model.tx[j] = cy * x + sy * z, model.tz[j] = -sy * x + cy * z;
            }
        } else if (clip->root_key_count > 0 && !clip->root_from_joint0) {
            stance_clip_root_position(clip, t, r, NULL);
            for (int k = 0; k < 3; k++) r[k] -= r0[k];
        } else if (clip->root_key_count == 0) {
            r[2] = clip->root_speed * t;
        } /* a root path that is joint 0's track already moves the pose */
        for (int f = 0; f < F; f++) {
            float *p = pos + 3 * ((size_t)f * (size_t)n + (size_t)i);
            int j = d->feet[f];
            p[0] = model.tx[j] + r[0], p[1] = model.ty[j] + r[1], p[2] = model.tz[j] + r[2];
        }
    }
    if (has_vel) root_speed = sqrtf(d->root_velocity[0] * d->root_velocity[0] + d->root_velocity[2] * d->root_velocity[2]);
    else root_speed = clip->root_speed;
    const int min_run = (int)((d->min_duration > 0.0f ? d->min_duration : 0.05f) * rate + 0.5f);
    for (int f = 0; f < F; f++) {
        /* the thresholds (stance/footlock.h): shares of the leg, or of half the rest height without one */
        float leg = 0.0f;
        if (stance_leg_length(sk, d->feet[f], &leg, NULL)) leg = 0.5f * char_h;
        const float hthr = d->height > 0.0f ? d->height : STANCE_CONTACT_HEIGHT_LEGS * leg;
        const float vthr = d->speed > 0.0f ? d->speed : STANCE_CONTACT_SPEED_ROOT * root_speed + STANCE_CONTACT_SPEED_LEGS * leg;
        const float *p = pos + 3 * (size_t)f * (size_t)n;
        float lo = p[1];
        for (int i = 1; i < n; i++) lo = p[3 * i + 1] < lo ? p[3 * i + 1] : lo;
        c->lowest[f] = lo;
        unsigned char *pl = planted + (size_t)f * (size_t)n;
        float *h = height + (size_t)f * (size_t)n;
        int on = 0;
        for (int i = 0; i < n; i++) {
            h[i] = p[3 * i + 1] - lo;
            int a = i > 0 ? i - 1 : i, b = i + 1 < n ? i + 1 : i;
            float dt = (float)(b - a) / rate, v = 0.0f;
            if (dt > 0.0f) {
                float dx = p[3 * b] - p[3 * a], dz = p[3 * b + 2] - p[3 * a + 2];
                v = sqrtf(dx * dx + dz * dz) / dt;
            }
            /* hysteresis: a planted foot stays planted up to 1.1 x the thresholds */
            const float k = on ? 1.1f : 1.0f;
            on = h[i] <= hthr * k && v <= vthr * k;
            pl[i] = (unsigned char)on;
        }
        if (from_events) {
            /* planted from a down event to the next up event, wrapping */
            const float td = clip->events[down[f]].time, tu = clip->events[up[f]].time;
            for (int i = 0; i < n; i++) {
                float t = (float)i / rate;
                pl[i] = (unsigned char)(td <= tu ? (t >= td && t < tu) : (t >= td || t < tu));
            }
        } else {
            drop_short_runs(pl, n, 0, min_run); /* fill short gaps */
            drop_short_runs(pl, n, 1, min_run); /* then drop short contacts */
        }
    }
    st_free(&al, pos, sizeof(float) * 3 * (size_t)F * (size_t)n);
    stance_pose_destroy(&local), stance_pose_destroy(&model);
    *out = c;
    return st_ok(err);
}

void stance_contacts_destroy(stance_contacts *c) {
    if (!c) return;
    stance_allocator al = c->allocator;
    st_free(&al, c, c->bytes);
}

