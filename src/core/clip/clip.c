/* src/core/clip/clip.c - clips: validation and dense layout at creation, sampling
 * with a cursor (playback in time, events and root motion: clip_play.c).
 *
 * Layout: the tracks' key times are merged into one grid; each grid key
 * stores every joint's values as SoA blocks (x of all joints, then y, ...)
 * padded like a pose, so sampling is one 4-wide interpolation loop per
 * channel (core/math/simd.h). Consecutive rotation keys are sign-aligned at
 * creation so the per-frame nlerp needs no dot-product test. A channel whose
 * tracks are all constant is stored once. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "core/clip/clip_packed.h"
#include "core/clip/clip_retarget.h"
#include "core/clip/fused.h"
#include "core/base/internal.h"
#include "core/clip/clip_internal.h"
#include "core/math/qmath.h"
#include "core/math/simd.h"
#include "stance/clip.h"


static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static int cmp_event(const void *a, const void *b) {
    const stance_clip_event *x = a, *y = b;
    return (x->time > y->time) - (x->time < y->time);
}

static int width_of(stance_channel c) { return c == STANCE_CHANNEL_ROTATION ? 4 : 3; }

static const char *channel_name(stance_channel c) {
    return c == STANCE_CHANNEL_TRANSLATION ? "translation" : c == STANCE_CHANNEL_ROTATION ? "rotation" : "scale";
}

static stance_status validate_times(const char *clip, const float *times, int count, const char *what,
                                    int index, stance_error *err) {
    for (int k = 0; k < count; k++) {
        if (!st_finite(times[k]) || times[k] < 0.0f)
            return st_fail(err, STANCE_ERR_VALUE, "clip '%s': %s %d key %d time %g is not a finite time >= 0", clip, what, index, k, (double)times[k]);
        if (k > 0 && !(times[k] > times[k - 1]))
            return st_fail(err, STANCE_ERR_ORDER, "clip '%s': %s %d key %d time %g is not after key %d (%g)", clip, what, index, k, (double)times[k], k - 1, (double)times[k - 1]);
    }
    return STANCE_OK;
}

static stance_status validate(const stance_clip_desc *d, const stance_skeleton *sk, stance_error *err) {
    if (!d->name || !d->name[0] || strlen(d->name) >= 64)
        return st_fail(err, STANCE_ERR_ARGUMENT, "clip: name is empty, NULL or longer than 63 bytes");
    if (!st_finite(d->duration) || d->duration < 0.0f)
        return st_fail(err, STANCE_ERR_VALUE, "clip '%s': duration %g is not finite and >= 0", d->name, (double)d->duration);
    if (d->track_count < 0 || d->track_count > 3 * sk->joint_count || (d->track_count > 0 && !d->tracks))
        return st_fail(err, STANCE_ERR_ARGUMENT, "clip '%s': track_count %d is not in 0..%d (3 per joint)", d->name, d->track_count, 3 * sk->joint_count);
    if (d->event_count < 0 || d->event_count > STANCE_MAX_EVENTS || (d->event_count > 0 && !d->events))
        return st_fail(err, STANCE_ERR_ARGUMENT, "clip '%s': event_count %d is not in 0..%d", d->name, d->event_count, STANCE_MAX_EVENTS);
    if (!st_finite(d->root_speed) || d->root_speed < 0.0f)
        return st_fail(err, STANCE_ERR_VALUE, "clip '%s': root_speed %g is not finite and >= 0", d->name, (double)d->root_speed);
    if (d->slerp != 0 && d->slerp != 1)
        return st_fail(err, STANCE_ERR_ARGUMENT, "clip '%s': slerp must be 0 or 1", d->name);
    for (int i = 0; i < d->track_count; i++) {
        const stance_track_desc *t = &d->tracks[i];
        if (t->joint < 0 || t->joint >= sk->joint_count)
            return st_fail(err, STANCE_ERR_ARGUMENT, "clip '%s': track %d joint %d is not in 0..%d", d->name, i, t->joint, sk->joint_count - 1);
        if (t->channel != STANCE_CHANNEL_TRANSLATION && t->channel != STANCE_CHANNEL_ROTATION && t->channel != STANCE_CHANNEL_SCALE)
            return st_fail(err, STANCE_ERR_ARGUMENT, "clip '%s': track %d has an unknown channel %d", d->name, i, (int)t->channel);
        if (t->key_count < 1 || t->key_count > STANCE_MAX_KEYS || !t->times || !t->values)
            return st_fail(err, STANCE_ERR_ARGUMENT, "clip '%s': track %d has %d keys (1..%d) or NULL arrays", d->name, i, t->key_count, STANCE_MAX_KEYS);
        for (int k = 0; k < i; k++)
            if (d->tracks[k].joint == t->joint && d->tracks[k].channel == t->channel)
                return st_fail(err, STANCE_ERR_ARGUMENT, "clip '%s': joint %d has two %s tracks (%d and %d)", d->name, t->joint, channel_name(t->channel), k, i);
        stance_status s = validate_times(d->name, t->times, t->key_count, "track", i, err);
        if (s) return s;
        const int w = width_of(t->channel);
        const st_values kind = t->channel == STANCE_CHANNEL_TRANSLATION ? ST_TRANSLATION
                             : t->channel == STANCE_CHANNEL_ROTATION ? ST_ROTATION : ST_SCALE;
        char why[200];
        for (int k = 0; k < t->key_count; k++) /* issue 22: the limits of stance/base.h */
            if (st_check_values(kind, t->values + (size_t)k * (size_t)w, why, sizeof why))
                return st_fail(err, STANCE_ERR_VALUE, "clip '%s': track %d (joint %d %s) key %d: %s", d->name, i, t->joint, channel_name(t->channel), k, why);
    }
    if (d->root_key_count < 0 || d->root_key_count > STANCE_MAX_KEYS ||
        (d->root_key_count > 0 && (!d->root_times || !d->root_values)))
        return st_fail(err, STANCE_ERR_ARGUMENT, "clip '%s': root_key_count %d or its arrays are bad", d->name, d->root_key_count);
    if (d->root_key_count > 0) {
        stance_status s = validate_times(d->name, d->root_times, d->root_key_count, "root path", 0, err);
        if (s) return s;
        char why[200];
        for (int k = 0; k < d->root_key_count; k++)
            if (st_check_values(ST_TRANSLATION, d->root_values + 3 * (size_t)k, why, sizeof why))
                return st_fail(err, STANCE_ERR_VALUE, "clip '%s': root path key %d: %s", d->name, k, why);
        for (int k = 0; d->root_yaw && k < d->root_key_count; k++)
            if (!st_finite(d->root_yaw[k]) || fabsf(d->root_yaw[k]) > 1e6f ||
                (k > 0 && fabsf(d->root_yaw[k] - d->root_yaw[k - 1]) > 3.14159265f))
                return st_fail(err, STANCE_ERR_VALUE, "clip '%s': root yaw key %d (%g) is not finite, within 1e6 and within pi of the key "
                               "before (unwrapped)", d->name, k, (double)d->root_yaw[k]);
        if (d->root_yaw && d->root_rotation)
            return st_fail(err, STANCE_ERR_ARGUMENT, "clip '%s': root_yaw and root_rotation are both set (give one: the yaw or the full "
                           "rotation)", d->name);
        for (int k = 0; d->root_rotation && k < d->root_key_count; k++) {
            const float *q = d->root_rotation + 4 * (size_t)k;
            const double n2 = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3];
            if (!st_finite(q[0]) || !st_finite(q[1]) || !st_finite(q[2]) || !st_finite(q[3]) || !(n2 >= 1e-6 && n2 <= 1e6))
                return st_fail(err, STANCE_ERR_VALUE, "clip '%s': root rotation key %d (%g %g %g %g) is not a finite quaternion of length "
                               "in [1e-3, 1e3]", d->name, k, (double)q[0], (double)q[1], (double)q[2], (double)q[3]);
        }
    } else if (d->root_yaw || d->root_rotation) {
        return st_fail(err, STANCE_ERR_ARGUMENT, "clip '%s': %s without a root path (root_key_count 0)", d->name,
                       d->root_yaw ? "root_yaw" : "root_rotation");
    }
    return STANCE_OK;
}

/* Value of a track at time t (clamped), into v; *cur is a forward cursor. */
static void track_value(const stance_track_desc *t, float time, int slerp, int *cur, float *v) {
    int w = width_of(t->channel), n = t->key_count;
    int k = *cur;
    while (k + 1 < n && t->times[k + 1] <= time) k++;
    *cur = k;
    const float *a = t->values + (size_t)k * (size_t)w;
    if (k + 1 >= n || time <= t->times[k]) {
        memcpy(v, a, sizeof(float) * (size_t)w);
    } else {
        const float *b = a + w;
        float u = (time - t->times[k]) / (t->times[k + 1] - t->times[k]);
        if (w == 3) {
            for (int c = 0; c < 3; c++) v[c] = a[c] + (b[c] - a[c]) * u;
        } else {
            qm_quat qa = qm_qnorm(qm_q(a[0], a[1], a[2], a[3])), qb = qm_qnorm(qm_q(b[0], b[1], b[2], b[3]));
            qm_quat q = slerp ? qm_slerp(qa, qb, u) : qm_nlerp(qa, qb, u);
            v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
        }
    }
    if (w == 4 && fabsf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3] - 1.0f) > 1e-6f) {
        /* already unit: keep the bits, so a clip rebuilt from its own keys is identical */
        qm_quat q = qm_qnorm(qm_q(v[0], v[1], v[2], v[3]));
        v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
    }
}

static int track_constant(const stance_track_desc *t) {
    int w = width_of(t->channel);
    for (int k = 1; k < t->key_count; k++)
        if (memcmp(t->values, t->values + (size_t)k * (size_t)w, sizeof(float) * (size_t)w)) return 0;
    return 1;
}

stance_status stance_clip_create(const stance_clip_desc *d, const stance_skeleton *sk,
                                 const stance_allocator *allocator, stance_clip **out, stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "clip: out is NULL");
    *out = NULL;
    if (!d || !sk) return st_fail(err, STANCE_ERR_ARGUMENT, "clip: desc or skeleton is NULL");
    if (st_check_allocator(allocator, "clip", err)) return STANCE_ERR_ARGUMENT;
    stance_status s = validate(d, sk, err);
    if (s) return s;
    stance_allocator al = st_allocator(allocator);

    /* Duration: given, or the last key. */
    float last = 0.0f;
    size_t total_keys = 0;
    for (int i = 0; i < d->track_count; i++) {
        const stance_track_desc *t = &d->tracks[i];
        if (t->times[t->key_count - 1] > last) last = t->times[t->key_count - 1];
        total_keys += (size_t)t->key_count;
    }
    if (d->root_key_count > 0 && d->root_times[d->root_key_count - 1] > last)
        last = d->root_times[d->root_key_count - 1];
    float duration = d->duration > 0.0f ? d->duration : last;
    if (!(duration > 0.0f))
        return st_fail(err, STANCE_ERR_VALUE, "clip '%s': duration is zero (no key after t = 0 and no duration given)", d->name);
    for (int i = 0; i < d->event_count; i++) {
        const stance_event_desc *e = &d->events[i];
        if (!e->name || !e->name[0] || strlen(e->name) >= STANCE_EVENT_NAME)
            return st_fail(err, STANCE_ERR_ARGUMENT, "clip '%s': event %d name is empty or longer than %d bytes", d->name, i, STANCE_EVENT_NAME - 1);
        if (!st_finite(e->time) || e->time < 0.0f || e->time > duration)
            return st_fail(err, STANCE_ERR_VALUE, "clip '%s': event '%s' time %g is outside [0, %g]", d->name, e->name, (double)e->time, (double)duration);
    }

    /* The key grid: union of all track times (or just {0} with no keys).
     * Only equal times merge: keys one float apart stay two keys, so an
     * importer can put a step (a hold key at nextafterf(t, 0) and the new
     * value at t) on the grid exactly. */
    size_t cap = total_keys + 1;
    float *grid = st_alloc(&al, sizeof(float) * cap, 16);
    if (!grid) return st_fail(err, STANCE_ERR_MEMORY, "clip '%s': allocation of %zu key times failed", d->name, cap);
    size_t g = 0;
    for (int i = 0; i < d->track_count; i++)
        for (int k = 0; k < d->tracks[i].key_count; k++) grid[g++] = d->tracks[i].times[k];
    if (g == 0) grid[g++] = 0.0f;
    qsort(grid, g, sizeof(float), cmp_float);
    size_t K = 0;
    for (size_t i = 0; i < g; i++)
        if (K == 0 || grid[i] > grid[K - 1]) grid[K++] = grid[i];
    if (K > STANCE_MAX_KEYS) {
        st_free(&al, grid, sizeof(float) * cap);
        return st_fail(err, STANCE_ERR_ARGUMENT, "clip '%s': %zu distinct key times, more than %d", d->name, K, STANCE_MAX_KEYS);
    }

    /* Which channels vary. */
    int varies[3] = {0, 0, 0};
    for (int i = 0; i < d->track_count; i++)
        if (!track_constant(&d->tracks[i])) varies[d->tracks[i].channel] = 1;
    const int J = sk->joint_count, pc = sk->padded_count;
    int blocks[3] = {varies[0] ? (int)K : 1, varies[1] ? (int)K : 1, varies[2] ? (int)K : 1};
    int root_n = d->root_key_count;
    int root_from_joint0 = 0;
    const stance_track_desc *joint0_t = NULL;
    for (int i = 0; i < d->track_count; i++)
        if (d->tracks[i].joint == 0 && d->tracks[i].channel == STANCE_CHANNEL_TRANSLATION) joint0_t = &d->tracks[i];
    if (root_n == 0 && joint0_t) root_n = joint0_t->key_count, root_from_joint0 = 1;

    size_t o_times = st_align_up(sizeof(stance_clip), 64);
    size_t o_t = st_align_up(o_times + sizeof(float) * K, 64);
    /* one block per channel (a constant clip, a compressed clip's shell):
     * t, r, s back to back (16-aligned, pc a multiple of 8), so the default
     * pose is one block as a pose's rows tx..sx are (clip_packed.c copies it
     * in one go) */
    const size_t al_rs = blocks[0] == 1 && blocks[1] == 1 && blocks[2] == 1 ? 16 : 64;
    size_t o_r = st_align_up(o_t + sizeof(float) * 3 * (size_t)pc * (size_t)blocks[0], al_rs);
    size_t o_s = st_align_up(o_r + sizeof(float) * 4 * (size_t)pc * (size_t)blocks[1], al_rs);
    size_t o_anim = st_align_up(o_s + sizeof(float) * 3 * (size_t)pc * (size_t)blocks[2], 64);
    size_t o_ev = st_align_up(o_anim + (size_t)J, 64);
    size_t o_rt = st_align_up(o_ev + sizeof(stance_clip_event) * (size_t)d->event_count, 64);
    size_t o_rv = st_align_up(o_rt + sizeof(float) * (size_t)root_n, 64);
    const int has_yaw = d->root_yaw != NULL && !root_from_joint0, has_rot = d->root_rotation != NULL && !root_from_joint0;
    size_t o_ry = st_align_up(o_rv + sizeof(float) * 3 * (size_t)root_n, 64);
    size_t bytes = has_yaw ? o_ry + sizeof(float) * (size_t)root_n
                   : has_rot ? o_ry + sizeof(float) * 4 * (size_t)root_n : o_rv + sizeof(float) * 3 * (size_t)root_n;
    unsigned char *mem = st_alloc(&al, bytes, 64);
    if (!mem) {
        st_free(&al, grid, sizeof(float) * cap);
        return st_fail(err, STANCE_ERR_MEMORY, "clip '%s': allocation of %zu bytes failed", d->name, bytes);
    }
    stance_clip *c = (stance_clip *)mem;
    float *times = (float *)(mem + o_times);
    float *bt = (float *)(mem + o_t), *br = (float *)(mem + o_r), *bs = (float *)(mem + o_s);
    unsigned char *anim = mem + o_anim;
    stance_clip_event *ev = (stance_clip_event *)(mem + o_ev);
    float *rt = (float *)(mem + o_rt), *rv = (float *)(mem + o_rv);
    memcpy(times, grid, sizeof(float) * K);
    st_free(&al, grid, sizeof(float) * cap);

    /* Track index per joint and channel. */
    const stance_track_desc *by[3][STANCE_MAX_JOINTS];
    int cursor[3][STANCE_MAX_JOINTS];
    memset(by, 0, sizeof by);
    memset(cursor, 0, sizeof cursor);
    for (int i = 0; i < d->track_count; i++) {
        by[d->tracks[i].channel][d->tracks[i].joint] = &d->tracks[i];
        anim[d->tracks[i].joint] |= (unsigned char)(1u << d->tracks[i].channel);
    }
    float *base[3] = {bt, br, bs};
    for (int ch = 0; ch < 3; ch++) {
        int w = ch == 1 ? 4 : 3;
        for (int k = 0; k < blocks[ch]; k++) {
            float *blk = base[ch] + (size_t)k * (size_t)w * (size_t)pc;
            for (int j = 0; j < pc; j++) {
                float v[4];
                if (j >= J) {
                    v[0] = v[1] = v[2] = 0.0f, v[3] = 1.0f;
                    if (ch == 2) v[0] = v[1] = v[2] = 1.0f;
                } else if (by[ch][j]) {
                    track_value(by[ch][j], times[k], d->slerp, &cursor[ch][j], v);
                } else {
                    const stance_transform *rst = &sk->rest[j];
                    memcpy(v, ch == 0 ? rst->t : ch == 1 ? rst->r : rst->s, sizeof(float) * (size_t)w);
                }
                if (ch == 1 && k > 0) { /* sign-align with the previous key */
                    const float *p = blk - 4 * (size_t)pc;
                    if (v[0] * p[j] + v[1] * p[pc + j] + v[2] * p[2 * pc + j] + v[3] * p[3 * pc + j] < 0.0f)
                        v[0] = -v[0], v[1] = -v[1], v[2] = -v[2], v[3] = -v[3];
                }
                /* one block: the channel is sampled as stored, so a zero is kept as
                 * the lerp of keyed blocks gives it, +0 (v + 0; see clip_packed_create.c) */
                const float z = blocks[ch] == 1 ? 0.0f : -0.0f; /* v + -0 is v, -0 included */
                for (int cc = 0; cc < w; cc++) blk[(size_t)cc * (size_t)pc + (size_t)j] = v[cc] + z;
            }
        }
    }

    /* Uniform grid: O(1) key lookup. */
    float rate = 0.0f;
    if (K >= 2 && times[0] == 0.0f) {
        float step = times[K - 1] / (float)(K - 1);
        int uniform = step > 0.0f;
        for (size_t k = 1; k < K && uniform; k++)
            if (fabsf(times[k] - step * (float)k) > 1e-4f * step) uniform = 0;
        if (uniform) rate = 1.0f / step;
    }

    for (int i = 0; i < d->event_count; i++) {
        memcpy(ev[i].name, d->events[i].name, strlen(d->events[i].name) + 1);
        ev[i].time = d->events[i].time;
    }
    /* insertion sort keeps equal-time events in the given order (qsort is not stable) */
    for (int i = 1; i < d->event_count; i++)
        for (int k = i; k > 0 && cmp_event(&ev[k - 1], &ev[k]) > 0; k--) {
            stance_clip_event tmp = ev[k];
            ev[k] = ev[k - 1], ev[k - 1] = tmp;
        }

    if (root_from_joint0) {
        memcpy(rt, joint0_t->times, sizeof(float) * (size_t)root_n);
        memcpy(rv, joint0_t->values, sizeof(float) * 3 * (size_t)root_n);
    } else if (root_n > 0) {
        memcpy(rt, d->root_times, sizeof(float) * (size_t)root_n);
        memcpy(rv, d->root_values, sizeof(float) * 3 * (size_t)root_n);
    }
    if (has_yaw) memcpy(mem + o_ry, d->root_yaw, sizeof(float) * (size_t)root_n);
    if (has_rot) { /* normalized, each key in the hemisphere of the one before */
        float *rq = (float *)(mem + o_ry);
        for (int k = 0; k < root_n; k++) {
            const float *q = d->root_rotation + 4 * (size_t)k;
            double v[4] = {q[0], q[1], q[2], q[3]};
            const double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
            for (int i = 0; i < 4; i++) v[i] /= n;
            if (k > 0 && v[0] * rq[4 * k - 4] + v[1] * rq[4 * k - 3] + v[2] * rq[4 * k - 2] + v[3] * rq[4 * k - 1] < 0.0)
                for (int i = 0; i < 4; i++) v[i] = -v[i];
            for (int i = 0; i < 4; i++) rq[4 * k + i] = (float)v[i];
        }
    }

    memcpy(c->name, d->name, strlen(d->name) + 1);
    c->duration = duration;
    c->joint_count = J;
    c->padded_count = pc;
    c->key_count = (int)K;
    c->times = times;
    c->key_rate = rate;
    c->t_keys = blocks[0], c->r_keys = blocks[1], c->s_keys = blocks[2];
    c->t = bt, c->r = br, c->s = bs;
    c->animated = anim;
    c->slerp = d->slerp;
    c->event_count = d->event_count;
    c->events = ev;
    c->root_key_count = root_n;
    c->root_times = rt;
    c->root_values = rv;
    c->root_from_joint0 = root_from_joint0;
    c->root_yaw = has_yaw ? (const float *)(mem + o_ry) : NULL;
    c->root_rotation = has_rot ? (const float *)(mem + o_ry) : NULL;
    c->root_turn = has_yaw ? 1 : has_rot ? 2 : 0;
    c->allocator = al;
    c->bytes = bytes;
    c->root_speed = d->root_speed;
    if (c->root_speed == 0.0f && root_n > 0) {
        float a[3], b[3];
        stance_clip_root_position(c, 0.0f, a, NULL);
        stance_clip_root_position(c, duration, b, NULL);
        double dx = (double)b[0] - a[0], dy = (double)b[1] - a[1], dz = (double)b[2] - a[2];
        double speed = sqrt(dx * dx + dy * dy + dz * dz) / duration;
        if (!(speed <= FLT_MAX)) { /* finite keys can still give an infinite speed */
            st_free(&al, mem, bytes);
            return st_fail(err, STANCE_ERR_VALUE, "clip '%s': root speed (path length / duration) overflows a float", d->name);
        }
        c->root_speed = (float)speed;
    }
    *out = c;
    return st_ok(err);
}

void stance_clip_destroy(stance_clip *clip) {
    if (!clip) return;
    if (clip->packed) st_packed_destroy(clip);
    if (clip->retarget) { /* its block (clip_retarget.h) and the source clip it owns, with the clip's allocator */
        st_retarget *rt = (st_retarget *)clip->retarget;
        stance_clip_destroy((stance_clip *)rt->source);
        stance_allocator ra = clip->allocator;
        if (rt->fix.keys) st_free(&ra, rt->fix.keys, rt->fix.bytes);
        st_free(&ra, rt, rt->bytes);
    }
    stance_allocator al = clip->allocator;
    st_free(&al, clip, clip->bytes);
}

size_t stance_clip_data_bytes(const stance_clip *c) {
    if (!c) return 0;
    if (c->packed) return c->packed->stored_bytes;
    size_t pc = (size_t)c->padded_count;
    return sizeof(float) * ((size_t)c->key_count + pc * (3 * (size_t)c->t_keys + 4 * (size_t)c->r_keys + 3 * (size_t)c->s_keys)
                            + (c->root_yaw ? 5 : c->root_rotation ? 8 : 4) * (size_t)c->root_key_count);
}

int stance_clip_is_compressed(const stance_clip *c) { return c && c->packed; }

float stance_clip_max_error(const stance_clip *c, float *vertex_distance) {
    if (vertex_distance) *vertex_distance = c && c->packed ? c->packed->vertex_distance : 0.0f;
    return c && c->packed ? c->packed->max_error : 0.0f;
}

/* A keyed translation or scale channel: o = a + (b - a) u over n floats
 * (n = 3 pc, a multiple of 8; the clip's key blocks and the pose's rows are
 * 16-aligned), 4 vectors a step and 2 for the rest: the loads fold into the
 * arithmetic and the loop's own instructions come once per 4 vectors. */
ST_FORCEINLINE void lerp_block(float *restrict o, const float *restrict a, const float *restrict b, sv4 u, size_t n) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (size_t k = 0; k < 16; k += 4) sv_storea(o + i + k, sv_madd(sv_sub(sv_loada(b + i + k), sv_loada(a + i + k)), u, sv_loada(a + i + k)));
    for (; i < n; i += 8) {
        sv_storea(o + i, sv_madd(sv_sub(sv_loada(b + i), sv_loada(a + i)), u, sv_loada(a + i)));
        sv_storea(o + i + 4, sv_madd(sv_sub(sv_loada(b + i + 4), sv_loada(a + i + 4)), u, sv_loada(a + i + 4)));
    }
}

/* nlerp of the rotations of pc joints (pc a multiple of 8) stored as 4
 * blocks of pc (x.., y.., z.., w..), 4 joints a step: q = a + (b - a) u,
 * then q / sqrt(((x x + y y) + z z) + w w), the scalar expression's order.
 * Keys were sign-aligned at creation, so no dot-product test is needed.
 * One pointer per block and one index: the loop keeps them all in
 * registers. */
ST_FORCEINLINE void nlerp_block(float *restrict o, const float *restrict a, const float *restrict b, sv4 u, int pc) {
    const sv4 one = sv_set1(1.0f);
    const ptrdiff_t c1 = pc, c2 = 2 * (ptrdiff_t)pc, c3 = 3 * (ptrdiff_t)pc;
    for (const float *const end = a + pc; a < end; a += 4, b += 4, o += 4) {
        const sv4 x = sv_madd(sv_sub(sv_loada(b), sv_loada(a)), u, sv_loada(a));
        const sv4 y = sv_madd(sv_sub(sv_loada(b + c1), sv_loada(a + c1)), u, sv_loada(a + c1));
        const sv4 z = sv_madd(sv_sub(sv_loada(b + c2), sv_loada(a + c2)), u, sv_loada(a + c2));
        const sv4 w = sv_madd(sv_sub(sv_loada(b + c3), sv_loada(a + c3)), u, sv_loada(a + c3));
        const sv4 inv = sv_div(one, sv_sqrt(sv_add(sv_add(sv_add(sv_mul(x, x), sv_mul(y, y)), sv_mul(z, z)), sv_mul(w, w))));
        sv_storea(o, sv_mul(x, inv)), sv_storea(o + c1, sv_mul(y, inv));
        sv_storea(o + c2, sv_mul(z, inv)), sv_storea(o + c3, sv_mul(w, inv));
    }
}

/* A dense nlerp clip at key interval k (k1 = k + 1, or k for one key) and
 * fraction u into out: each keyed channel interpolated, each constant one
 * copied as stored. Compiled twice (as local_to_model.c): as it is (SSE2,
 * or the scalar form) and, where the build is for baseline x86-64, in VEX
 * encoding for CPUs with AVX (the same operations in the same order, no
 * FMA: the same bits; its 3-operand forms need no register copies). */
/* its translations and scales (the slerp path's too) */
ST_FORCEINLINE void ts_body(const stance_clip *c, int k, int k1, sv4 vu, stance_pose *out) {
    const size_t n3 = 3 * (size_t)c->padded_count;
    if (c->t_keys > 1) lerp_block(out->tx, c->t + n3 * (size_t)k, c->t + n3 * (size_t)k1, vu, n3);
    else memcpy(out->tx, c->t, sizeof(float) * n3);
    if (c->s_keys > 1) lerp_block(out->sx, c->s + n3 * (size_t)k, c->s + n3 * (size_t)k1, vu, n3);
    else memcpy(out->sx, c->s, sizeof(float) * n3);
}
ST_FORCEINLINE void dense_body(const stance_clip *c, int k, int k1, float u, stance_pose *out) {
    const int pc = c->padded_count;
    const size_t n4 = 4 * (size_t)pc;
    const sv4 vu = sv_set1(u);
    ts_body(c, k, k1, vu, out);
    if (c->r_keys > 1) nlerp_block(out->qx, c->r + n4 * (size_t)k, c->r + n4 * (size_t)k1, vu, pc);
    else memcpy(out->qx, c->r, sizeof(float) * n4);
}
SV_VEX_DEFINE(dense, (const stance_clip *c, int k, int k1, float u, stance_pose *out), (c, k, k1, u, out), dense_body)
static inline void sample_dense(const stance_clip *c, int k, int k1, float u, stance_pose *out) {
    SV_VEX_DISPATCH(dense, (c, k, k1, u, out));
}

int st_clip_sample_as(const stance_clip *c, float time, stance_pose *out, int vex) {
    if (!c || c->packed || c->slerp || c->retarget || !out || out->joint_count != c->joint_count || !st_finite(time)) return 0;
    float u;
    const float t = time < 0.0f ? 0.0f : time > c->duration ? c->duration : time;
    const int k = st_find_key(c, t, NULL, &u), k1 = c->key_count > 1 ? k + 1 : k;
    return SV_VEX_AS(vex, dense, (c, k, k1, u, out));
}

/* The checks of a sampling call: the clip, a bound pose of its joint count, a finite time. */
ST_BODY stance_status check_sample(const stance_clip *c, float time, const stance_pose *out, const char *who,
                                  const char *name, stance_error *err) {
    if (!c) return ST_FAIL(err, STANCE_ERR_ARGUMENT, "%s: clip is NULL", who);
    if (!out || !out->memory) return ST_FAIL(err, STANCE_ERR_ARGUMENT, "%s: %s is NULL or not bound to memory", who, name);
    if (out->joint_count != c->joint_count)
        return ST_FAIL(err, STANCE_ERR_ARGUMENT, "%s: %s has %d joints, clip '%s' %d", who, name, out->joint_count,
                       c->name, c->joint_count);
    if (!st_finite(time)) return ST_FAIL(err, STANCE_ERR_VALUE, "%s: time %g is not finite", who, (double)time);
    return STANCE_OK;
}

/* stance_clip_sample and st_clip_sample (core/base/internal.h). */
ST_BODY stance_status clip_sample(const stance_clip *c, float time, stance_cursor *cur, stance_pose *out,
                                  stance_error *err) {
    stance_status st = check_sample(c, time, out, "clip sample", "out", err);
    if (st) return st;
    st_ok(err); /* before the work: err is not kept through it */
    float t = time < 0.0f ? 0.0f : time > c->duration ? c->duration : time;
    /* a retargeted clip has one key of its own: its test sits on
     * st_find_key's one-key branch (the compiler merges the two), so other
     * clips pay nothing for it */
    if (c->key_count < 2 && c->retarget) {
        st_retarget_sample(c, time, cur, out);
        return STANCE_OK;
    }
    float u;
    const int k = st_find_key(c, t, cur, &u);
    if (c->packed) {
        st_packed_sample(c, k, t, out, NULL);
        return STANCE_OK;
    }
    const int k1 = c->key_count > 1 ? k + 1 : k;
    if (!c->slerp) {
        sample_dense(c, k, k1, u, out);
        return STANCE_OK;
    }
    const int pc = c->padded_count;
    const size_t n4 = 4 * (size_t)pc;
    ts_body(c, k, k1, sv_set1(u), out);
    if (c->r_keys > 1) {
        const float *a = c->r + n4 * (size_t)k, *b = c->r + n4 * (size_t)k1;
        for (int i = 0; i < pc; i++) {
            qm_quat qa = qm_q(a[i], a[pc + i], a[2 * pc + i], a[3 * pc + i]);
            qm_quat qb = qm_q(b[i], b[pc + i], b[2 * pc + i], b[3 * pc + i]);
            qm_quat q = qm_slerp(qa, qb, u);
            out->qx[i] = q.x, out->qy[i] = q.y, out->qz[i] = q.z, out->qw[i] = q.w;
        }
    } else {
        memcpy(out->qx, c->r, sizeof(float) * n4);
    }
    return STANCE_OK;
}

stance_status stance_clip_sample(const stance_clip *c, float time, stance_cursor *cur, stance_pose *out,
                                 stance_error *err) {
    return clip_sample(c, time, cur, out, err);
}
stance_status st_clip_sample(const stance_clip *c, float time, stance_cursor *cur, stance_pose *out) {
    return clip_sample(c, time, cur, out, NULL);
}

ST_BODY stance_status clip_sample_velocity(const stance_clip *c, float time, stance_cursor *cur, stance_pose *out,
                                           stance_pose *vel, stance_error *err) {
    stance_status s = check_sample(c, 0.0f, vel, "clip sample velocity", "velocity", err); /* time: below */
    if (s) return s;
    if (vel == out) return ST_FAIL(err, STANCE_ERR_ARGUMENT, "clip sample velocity: out and velocity are the same pose");
    s = clip_sample(c, time, cur, out, err);
    if (s) return s;
    if (c->packed) {
        memset(vel->memory, 0, stance_pose_bytes(c->joint_count));
        float u, t = time < 0.0f ? 0.0f : time > c->duration ? c->duration : time;
        st_packed_sample(c, st_find_key(c, t, NULL, &u), t, out, vel);
        return STANCE_OK; /* err: set by stance_clip_sample */
    }
    const int pc = c->padded_count, K = c->key_count;
    memset(vel->memory, 0, stance_pose_bytes(c->joint_count));
    float t = time < 0.0f ? 0.0f : time > c->duration ? c->duration : time;
    if (c->retarget) st_retarget_velocity(c, time, out, vel);
    if (K < 2) return STANCE_OK;
    float u;
    int k = st_find_key(c, t, NULL, &u);
    /* a key interval shorter than 10 us is a step (a hold key one float
     * before the next key): its rate of change is no velocity, report 0 */
    float span = c->times[k + 1] - c->times[k];
    float inv = span >= 1e-5f ? 1.0f / span : 0.0f;
    const size_t n3 = 3 * (size_t)pc, n4 = 4 * (size_t)pc;
    if (c->t_keys > 1) {
        const float *a = c->t + n3 * (size_t)k, *b = a + n3;
        for (size_t i = 0; i < n3; i++) vel->tx[i] = (b[i] - a[i]) * inv;
    }
    if (c->s_keys > 1) {
        const float *a = c->s + n3 * (size_t)k, *b = a + n3;
        for (size_t i = 0; i < n3; i++) vel->sx[i] = (b[i] - a[i]) * inv;
    }
    if (c->r_keys > 1) {
        const float *a = c->r + n4 * (size_t)k, *b = a + n4;
        for (int i = 0; i < c->joint_count; i++) {
            qm_quat qa = qm_q(a[i], a[pc + i], a[2 * pc + i], a[3 * pc + i]);
            qm_quat qb = qm_q(b[i], b[pc + i], b[2 * pc + i], b[3 * pc + i]);
            qm_vec3 w = qm_scale(qm_qlog(qm_qmul(qb, qm_qconj(qa))), inv);
            vel->qx[i] = w.x, vel->qy[i] = w.y, vel->qz[i] = w.z;
        }
    }
    return STANCE_OK;
}

stance_status stance_clip_sample_velocity(const stance_clip *c, float time, stance_cursor *cur, stance_pose *out,
                                          stance_pose *vel, stance_error *err) {
    return clip_sample_velocity(c, time, cur, out, vel, err);
}
stance_status st_clip_sample_velocity(const stance_clip *c, float time, stance_cursor *cur, stance_pose *out,
                                      stance_pose *vel) {
    return clip_sample_velocity(c, time, cur, out, vel, NULL);
}
