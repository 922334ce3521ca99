/* src/core/clip/clip_play.c - a clip's playback in time (split from clip.c):
 * advancing a time by dt (loop or clamp) with the events crossed, each
 * exactly once, and the root's motion over that step (paths that turn go
 * to clip_root_rot.c). Sampling and creation are clip.c's. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "core/clip/clip_packed.h"
#include "core/base/internal.h"
#include "core/clip/clip_internal.h"
#include "core/math/qmath.h"
#include "stance/clip.h"

/* Event crossing rules, on unwrapped ("global") time g = cycle * D + e:
 * forward over [t0, t1): an event at e < D fires when t0 <= g < t1, one at
 * e = D when t0 < g <= t1 (it fires on reaching the end, before the next
 * cycle's events at 0). Backward mirrors it. Consecutive calls partition
 * time, so each crossing is reported exactly once. */
static void push(stance_event_hit *hits, int cap, long long *count, int index, long long cycle) {
    if (hits && *count < cap) {
        hits[*count].index = index;
        hits[*count].loop = (int)(cycle > 1000000 ? 1000000 : cycle < -1000000 ? -1000000 : cycle);
    }
    (*count)++;
}

static void emit_cycle(const stance_clip *c, double t0, double t1, long long cycle, int backward,
                       stance_event_hit *hits, int cap, long long *count) {
    const double D = c->duration;
    const int E = c->event_count;
    for (int n = 0; n < E; n++) {
        int i = backward ? E - 1 - n : n;
        double e = c->events[i].time, g = (double)cycle * D + e;
        int fire;
        if (!backward) fire = e < D ? (g >= t0 && g < t1) : (g > t0 && g <= t1);
        else fire = e > 0.0 ? (g > t1 && g <= t0) : (g >= t1 && g < t0);
        if (fire) push(hits, cap, count, i, cycle);
    }
}

/* stance_clip_advance and its twins; fast 0 (st_clip_advance_general, the
 * frame's reference copy) skips its first case: the general path alone. */
ST_BODY stance_status clip_advance(const stance_clip *c, float time, float dt, int loop, float *new_time,
                                   stance_event_hit *hits, int cap, int *hit_count, int *wraps, const int fast,
                                   stance_error *err) {
    if (!c || !new_time || cap < 0 || (cap > 0 && !hits))
        return ST_FAIL(err, STANCE_ERR_ARGUMENT, "clip advance: %s", !c ? "clip is NULL" : !new_time ? "new_time is NULL"
                       : "hit_capacity is negative, or positive with hits NULL");
    if (!st_finite(time) || !st_finite(dt))
        return ST_FAIL(err, STANCE_ERR_VALUE, "clip advance: time %g or dt %g is not finite", (double)time, (double)dt);
    const double D = c->duration;
    if (fast && loop && dt >= 0.0f && time >= 0.0f && time < c->duration && (double)time + (double)dt < D) {
        /* the common step: forward inside one cycle (what the general path
         * below computes for it, without its cycle bookkeeping) */
        const double s0 = time, s1 = s0 + (double)dt;
        long long n = 0;
        float ntf = (float)s1;
        if (ntf >= c->duration) ntf = 0.0f;
        /* up to where the next step starts (the float kept), so steps partition the time */
        if (cap > 0 || hit_count) emit_cycle(c, s0, ntf == 0.0f ? s1 : (double)ntf, 0, 0, hits, cap, &n);
        *new_time = ntf;
        if (hit_count) *hit_count = (int)n;
        if (wraps) *wraps = 0;
        return st_ok(err);
    }
    double t0 = time;
    if (t0 < 0.0) t0 = 0.0;
    if (loop && t0 >= D) t0 = fmod(t0, D);
    if (!loop && t0 > D) t0 = D;
    double t1 = t0 + (double)dt;
    long long C = 0, count = 0;
    if (!loop) {
        t1 = t1 < 0.0 ? 0.0 : t1 > D ? D : t1;
    } else if (t1 >= 0.0 && t1 < D) {
        C = 0; /* inside the first cycle: floor(t1 / D) is 0 (the common step, without a libm call) */
    } else {
        double cd = floor(t1 / D);
        if (cd > 1e9) cd = 1e9;
        if (cd < -1e9) cd = -1e9;
        C = (long long)cd;
    }
    const int backward = dt < 0.0f;
    const long long E = c->event_count;
    double nt = loop ? t1 - (double)C * D : t1;
    float ntf = (float)nt;
    if (loop && (ntf >= c->duration || ntf < 0.0f)) ntf = 0.0f;
    /* the crossings end where the next step starts (the float kept), so
     * consecutive steps partition the time: each event once */
    if (!loop) t1 = (double)ntf;
    else if (ntf != 0.0f || nt < 0.0) t1 = (double)C * D + (double)ntf;
    if (cap == 0 && !hit_count) {
        /* nobody counts the events (root motion): the clock alone */
    } else if (!backward) {
        for (long long cy = 0; cy <= C; cy++) {
            if (cy > 0 && cy < C && count >= cap) { count += E * (C - cy); cy = C - 1; continue; }
            emit_cycle(c, t0, t1, cy, 0, hits, cap, &count);
        }
    } else {
        for (long long cy = 0; cy >= C; cy--) {
            if (cy < 0 && cy > C && count >= cap) { count += E * (cy - C); cy = C + 1; continue; }
            emit_cycle(c, t0, t1, cy, 1, hits, cap, &count);
        }
    }
    *new_time = ntf;
    if (hit_count) *hit_count = count > 2147483647LL ? 2147483647 : (int)count;
    if (wraps) *wraps = (int)C;
    return st_ok(err);
}

stance_status stance_clip_advance(const stance_clip *c, float time, float dt, int loop, float *new_time,
                                  stance_event_hit *hits, int cap, int *hit_count, int *wraps, stance_error *err) {
    return clip_advance(c, time, dt, loop, new_time, hits, cap, hit_count, wraps, 1, err);
}
stance_status st_clip_advance(const stance_clip *c, float time, float dt, int loop, float *new_time,
                              stance_event_hit *hits, int cap, int *hit_count, int *wraps) {
    return clip_advance(c, time, dt, loop, new_time, hits, cap, hit_count, wraps, 1, NULL);
}
stance_status st_clip_advance_general(const stance_clip *c, float time, float dt, int loop, float *new_time,
                                      stance_event_hit *hits, int cap, int *hit_count, int *wraps) {
    return clip_advance(c, time, dt, loop, new_time, hits, cap, hit_count, wraps, 0, NULL);
}

/* The root path at a finite time (stance_clip_root_position without its checks). */
ST_FORCEINLINE void root_at(const stance_clip *c, float time, float out[3]) {
    out[0] = out[1] = out[2] = 0.0f;
    const int n = c->root_key_count;
    if (n == 0) return;
    const float *t = c->root_times, *v = c->root_values;
    if (time <= t[0] || n == 1) { memcpy(out, v, sizeof(float) * 3); return; }
    if (time >= t[n - 1]) { memcpy(out, v + 3 * (size_t)(n - 1), sizeof(float) * 3); return; }
    int lo = 0, hi = n - 2;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (t[mid] <= time) lo = mid; else hi = mid - 1;
    }
    float u = (time - t[lo]) / (t[lo + 1] - t[lo]);
    /* every load before the stores: no overlap check between out and the keys */
    const float *p = v + 3 * (size_t)lo;
    const float x = p[0] + (p[3] - p[0]) * u, y = p[1] + (p[4] - p[1]) * u, z = p[2] + (p[5] - p[2]) * u;
    out[0] = x, out[1] = y, out[2] = z;
}

stance_status stance_clip_root_position(const stance_clip *c, float time, float out[3], stance_error *err) {
    if (!c || !out) return st_fail(err, STANCE_ERR_ARGUMENT, "clip root position: clip or out is NULL");
    if (!st_finite(time)) return st_fail(err, STANCE_ERR_VALUE, "clip root position: time %g is not finite", (double)time);
    root_at(c, time, out);
    return st_ok(err);
}
float stance_clip_root_yaw(const stance_clip *c, float time) {
    if (!c || !st_finite(time)) return 0.0f;
    if (c->root_rotation && c->root_key_count > 0) { /* the twist about +Y */
        float q[4];
        st_root_rot_at(c, time, q);
        return q[1] == 0.0f && q[3] == 0.0f ? 0.0f : 2.0f * sm_atan2f(q[1], q[3]);
    }
    return st_root_yaw_at(c, time);
}

stance_status stance_clip_root_rotation(const stance_clip *c, float time, float q[4], stance_error *err) {
    if (!c || !q) return st_fail(err, STANCE_ERR_ARGUMENT, "clip root rotation: clip or q is NULL");
    if (!st_finite(time)) return st_fail(err, STANCE_ERR_VALUE, "clip root rotation: time %g is not finite", (double)time);
    if (c->root_rotation && c->root_key_count > 0) {
        st_root_rot_at(c, time, q);
    } else {
        const float h = 0.5f * st_root_yaw_at(c, time);
        q[0] = 0.0f, q[1] = sm_sinf(h), q[2] = 0.0f, q[3] = sm_cosf(h);
    }
    return st_ok(err);
}

/* A path that turns: its yaw or its full rotation (clip_root_rot.c, the
 * path's ends at hand). One call out of the hot path. */
static ST_NOINLINE ST_COLD void turn_motion(const stance_clip *c, float time, float nt, int wraps, const float a[3], const float b[3],
                                            float out[7], float *q) {
    float s0[3], s1[3];
    root_at(c, 0.0f, s0);
    root_at(c, c->duration, s1);
    if (c->root_yaw) st_root_yaw_motion(c, time, nt, wraps, a, b, s0, s1, out);
    else st_root_rot_motion(c, time, nt, wraps, a, b, s0, s1, out, q);
}

/* stance_clip_root_motion and its twins; fast 0 (st_clip_root_motion_general)
 * takes the general path: no shortcut for a clip without a root path or a
 * step inside one cycle. out[3..6] get the turn (angle, axis) for a path
 * that turns only (the callers zero out[3] or read it only then: the hot
 * path stays as it was); q (NULL but for stance_clip_root_motion_rot) the
 * rotation of a path with full rotation. */
ST_BODY stance_status clip_root_motion(const stance_clip *c, float time, float dt, int loop, float out[7], float *q,
                                       const int fast, stance_error *err) {
    if (!c || !out) return ST_FAIL(err, STANCE_ERR_ARGUMENT, "clip root motion: clip or out is NULL");
    if (!st_finite(time) || !st_finite(dt))
        return ST_FAIL(err, STANCE_ERR_VALUE, "clip root motion: time %g or dt %g is not finite", (double)time, (double)dt);
    float nt;
    int wraps = 0;
    const float D = c->duration;
    if (fast && c->root_key_count == 0) { /* no root path: no motion */
        out[0] = out[1] = out[2] = 0.0f;
        return st_ok(err);
    }
    if (time < 0.0f) time = 0.0f;
    if (loop && time >= D) time = fmodf(time, D);
    if (!loop && time > D) time = D;
    if (fast && loop && dt >= 0.0f && time < D && (double)time + (double)dt < (double)D) {
        /* inside one cycle: stance_clip_advance's first case */
        nt = (float)((double)time + (double)dt);
        if (nt >= D) nt = 0.0f;
    } else {
        stance_status s = fast ? st_clip_advance(c, time, dt, loop, &nt, NULL, 0, NULL, &wraps)
                               : st_clip_advance_general(c, time, dt, loop, &nt, NULL, 0, NULL, &wraps);
        if (s) return s; /* it cannot refuse: its arguments were checked above */
    }
    float a[3], b[3];
    root_at(c, time, a);
    root_at(c, nt, b);
    if (c->root_turn) { /* pieces in the root's frame, composed (out of the hot path) */
        turn_motion(c, time, nt, wraps, a, b, out, q);
        return st_ok(err);
    }
    if (wraps == 0) { /* no cycle crossed: the path's ends do not count (0 * (s1 - s0) is 0 for finite keys) */
        for (int i = 0; i < 3; i++) out[i] = b[i] - a[i];
        return st_ok(err);
    }
    float s0[3], s1[3];
    root_at(c, 0.0f, s0);
    root_at(c, D, s1);
    for (int i = 0; i < 3; i++) out[i] = b[i] - a[i] + (float)wraps * (s1[i] - s0[i]);
    return st_ok(err);
}

stance_status stance_clip_root_motion(const stance_clip *c, float time, float dt, int loop, float out[3],
                                      stance_error *err) {
    float o[7] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    stance_status s = clip_root_motion(c, time, dt, loop, out ? o : NULL, NULL, 1, err);
    if (!s) memcpy(out, o, sizeof(float) * 3);
    return s;
}
stance_status stance_clip_root_motion_yaw(const stance_clip *c, float time, float dt, int loop, float out[3], float *yaw,
                                          stance_error *err) {
    float o[7] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f}, q[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    if (yaw) *yaw = 0.0f;
    stance_status s = clip_root_motion(c, time, dt, loop, out ? o : NULL, q, 1, err);
    if (!s) {
        memcpy(out, o, sizeof(float) * 3);
        /* a path with full rotation: the twist of its rotation about +Y */
        if (yaw) *yaw = c->root_rotation ? (q[1] == 0.0f && q[3] == 0.0f ? 0.0f : 2.0f * sm_atan2f(q[1], q[3])) : o[3];
    }
    return s;
}
stance_status stance_clip_root_motion_rot(const stance_clip *c, float time, float dt, int loop, float t[3], float q[4],
                                          stance_error *err) {
    float o[7] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f}, r[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    if (!q) return st_fail(err, STANCE_ERR_ARGUMENT, "clip root motion: q is NULL");
    stance_status s = clip_root_motion(c, time, dt, loop, t ? o : NULL, r, 1, err);
    if (s) return s;
    memcpy(t, o, sizeof(float) * 3);
    if (c->root_yaw) { /* the yaw about +Y (w >= 0) */
        const float h = 0.5f * o[3];
        r[0] = 0.0f, r[1] = sm_sinf(h), r[2] = 0.0f, r[3] = sm_cosf(h);
        if (r[3] < 0.0f) r[1] = -r[1], r[3] = -r[3];
    }
    memcpy(q, r, sizeof r);
    return s;
}
stance_status st_clip_root_motion(const stance_clip *c, float time, float dt, int loop, float out[7]) {
    return clip_root_motion(c, time, dt, loop, out, NULL, 1, NULL);
}
stance_status st_clip_root_motion_general(const stance_clip *c, float time, float dt, int loop, float out[7]) {
    return clip_root_motion(c, time, dt, loop, out, NULL, 0, NULL);
}
