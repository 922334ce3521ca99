/* src/core/lod/lod.c - animation LOD (stance/lod.h, docs/lod.md): the update
 * budget allocator (significance order by a stable radix sort in the
 * caller's scratch, then the rates level by level), the phases that spread
 * each rate's updates over its frames, a significance from a view, and the
 * pose shown on a skipped frame (a blend of the last two evaluated model
 * poses). No allocation, no global state; the sums are in double in index
 * order, so the same inputs give the same plan everywhere. */
#include <stdint.h>
#include <string.h>

#include "core/base/internal.h"
#include "core/math/simd.h"
#include "stance/lod.h"

#define LOD_DEFAULT_RATE 8

size_t stance_lod_scratch_bytes(int count) {
    if (count <= 0) return 0;
    /* two key arrays and two index arrays (the radix sort's ping-pong), plus
     * room to align them to 4 bytes */
    return (size_t)count * 16u + 4u;
}

int stance_lod_due(int rate, int phase, long long frame) {
    if (rate < 1 || frame < 0) return 0;
    return frame % rate == phase;
}

/* The sort key: ascending key = descending significance (-0 as +0). */
static uint32_t sig_key(float s) {
    s += 0.0f;
    uint32_t b;
    memcpy(&b, &s, sizeof b);
    b = (b & 0x80000000u) ? ~b : (b | 0x80000000u); /* ascending with the float */
    return ~b;
}

/* order[0..n): the instances by significance, most significant first, equal
 * ones in index order (an LSD radix sort, stable, 3 passes of 11 bits). */
static const int32_t *sort_order(const stance_lod_item *items, int n, uint32_t *ka, uint32_t *kb, int32_t *ia, int32_t *ib) {
    for (int i = 0; i < n; i++) ka[i] = sig_key(items[i].significance), ia[i] = i;
    for (int pass = 0; pass < 3; pass++) {
        const int shift = pass * 11;
        size_t hist[2048];
        memset(hist, 0, sizeof hist);
        for (int i = 0; i < n; i++) hist[(ka[i] >> shift) & 2047u]++;
        size_t sum = 0;
        for (int d = 0; d < 2048; d++) {
            const size_t c = hist[d];
            hist[d] = sum, sum += c;
        }
        for (int i = 0; i < n; i++) {
            const size_t at = hist[(ka[i] >> shift) & 2047u]++;
            kb[at] = ka[i], ib[at] = ia[i];
        }
        uint32_t *tk = ka;
        ka = kb, kb = tk;
        int32_t *ti = ia;
        ia = ib, ib = ti;
    }
    return ia;
}

static int level_of(int rate) {
    int k = 0;
    while ((1 << k) < rate) k++;
    return k;
}

static stance_status check_inputs(const stance_lod_desc *d, const stance_lod_item *items, int count, const void *scratch,
                                  size_t scratch_bytes, stance_error *err) {
    static const char who[] = "lod allocate";
    if (!d) return st_fail(err, STANCE_ERR_ARGUMENT, "%s: desc is NULL", who);
    if (count < 0) return st_fail(err, STANCE_ERR_ARGUMENT, "%s: count %d is negative", who, count);
    if (count > 0 && !items) return st_fail(err, STANCE_ERR_ARGUMENT, "%s: items is NULL", who);
    if (count > 0 && !scratch) return st_fail(err, STANCE_ERR_ARGUMENT, "%s: scratch is NULL", who);
    if (scratch_bytes < stance_lod_scratch_bytes(count))
        return st_fail(err, STANCE_ERR_MEMORY, "%s: scratch of %zu bytes, %d instances need %zu (stance_lod_scratch_bytes)",
                       who, scratch_bytes, count, stance_lod_scratch_bytes(count));
    if (!st_finite(d->budget_us) || !(d->budget_us > 0.0f))
        return st_fail(err, STANCE_ERR_VALUE, "%s: budget_us %g must be finite and > 0", who, (double)d->budget_us);
    const int mr = d->max_rate;
    if (mr < 0 || mr > STANCE_LOD_MAX_RATE || (mr & (mr - 1)))
        return st_fail(err, STANCE_ERR_VALUE, "%s: max_rate %d must be a power of two in [1, %d] (0 = %d)", who, mr,
                       STANCE_LOD_MAX_RATE, LOD_DEFAULT_RATE);
    if (d->keep_full < 0 || d->keep_full > count)
        return st_fail(err, STANCE_ERR_VALUE, "%s: keep_full %d must be in [0, count %d]", who, d->keep_full, count);
    for (int i = 0; i < count; i++) {
        const stance_lod_item *it = &items[i];
        if (!st_finite(it->significance))
            return st_fail(err, STANCE_ERR_VALUE, "%s: instance %d: significance %g is not finite", who, i, (double)it->significance);
        if (!st_finite(it->update_us) || it->update_us < 0.0f)
            return st_fail(err, STANCE_ERR_VALUE, "%s: instance %d: update_us %g must be finite and >= 0", who, i, (double)it->update_us);
        if (!st_finite(it->skip_us) || it->skip_us < 0.0f)
            return st_fail(err, STANCE_ERR_VALUE, "%s: instance %d: skip_us %g must be finite and >= 0", who, i, (double)it->skip_us);
    }
    return STANCE_OK;
}

stance_status stance_lod_allocate(const stance_lod_desc *d, stance_lod_item *items, int count, void *scratch,
                                  size_t scratch_bytes, stance_lod_result *result, stance_error *err) {
    const stance_status bad = check_inputs(d, items, count, scratch, scratch_bytes, err);
    if (bad) return bad;
    const int max_rate = d->max_rate ? d->max_rate : LOD_DEFAULT_RATE, K = level_of(max_rate);
    const double budget = d->budget_us;
    stance_lod_result res;
    memset(&res, 0, sizeof res);
    const int32_t *order = NULL;
    if (count > 0) {
        const uintptr_t at = ((uintptr_t)scratch + 3u) & ~(uintptr_t)3u;
        uint32_t *ka = (uint32_t *)at, *kb = ka + count;
        int32_t *ia = (int32_t *)(kb + count), *ib = ia + count;
        order = sort_order(items, count, ka, kb, ia, ib);
    }
    /* rank of each instance: rate 1 for the kept ones and those that save
     * nothing by skipping; the others ("free") all at 2^k, k the first level
     * whose total fits */
    double total[STANCE_LOD_LEVELS];
    for (int k = 0; k <= K; k++) total[k] = 0.0;
    /* items[i].rate marks the free ones for now (1 free, 0 kept) */
    for (int p = 0; p < count; p++) {
        stance_lod_item *it = &items[order[p]];
        it->rate = p >= d->keep_full && it->skip_us < it->update_us;
    }
    /* 1 / 2^k and 1 - 1 / 2^k are exact in double, so the products are
     * the quotients update_us / 2^k + skip_us (1 - 1 / 2^k) bit for bit, without a division per level */
    double inv[STANCE_LOD_LEVELS], rest[STANCE_LOD_LEVELS];
    for (int k = 0; k <= K; k++) inv[k] = 1.0 / (double)(1 << k), rest[k] = 1.0 - inv[k];
    for (int i = 0; i < count; i++) {
        const stance_lod_item *it = &items[i];
        const double u = it->update_us, sk = it->skip_us;
        if (!it->rate)
            for (int k = 0; k <= K; k++) total[k] += u;
        else
            for (int k = 0; k <= K; k++) total[k] += u * inv[k] + sk * rest[k];
    }
    res.full_us = total[0];
    int k = 0;
    while (k <= K && total[k] > budget) k++;
    int lower = 0, upper = 0; /* free instances at 2^lower, the tail moved on to 2^upper */
    double now = 0.0;
    if (k == 0) {
        lower = upper = 0;
    } else if (k > K) {
        lower = upper = K;
    } else {
        lower = k - 1, upper = k, now = total[k - 1];
    }
    /* rates: walk from the least significant; while over the budget, the
     * free ones move from 2^lower to 2^upper */
    const int rl = 1 << lower, ru = 1 << upper;
    for (int p = count - 1; p >= 0; p--) {
        stance_lod_item *it = &items[order[p]];
        if (!it->rate) { it->rate = 1; continue; }
        if (upper > lower && now > budget) {
            now -= ((double)it->update_us - (double)it->skip_us) * (1.0 / rl - 1.0 / ru);
            it->rate = ru;
        } else {
            it->rate = rl;
        }
    }
    /* phases: per rate, round robin in index order; the plan's cost */
    int next[STANCE_LOD_LEVELS] = {0};
    double frame = 0.0;
    for (int i = 0; i < count; i++) {
        stance_lod_item *it = &items[i];
        const int lv = level_of(it->rate);
        it->phase = next[lv];
        next[lv] = next[lv] + 1 == it->rate ? 0 : next[lv] + 1;
        res.at_rate[lv]++;
        frame += (double)it->update_us * inv[lv] + (double)it->skip_us * rest[lv];
    }
    res.frame_us = frame;
    res.fits = frame <= budget * (1.0 + 1e-9);
    if (result) *result = res;
    return st_ok(err);
}

stance_status stance_lod_significance(const stance_lod_view *v, const float pos[3], float radius, float *out,
                                      stance_error *err) {
    static const char who[] = "lod significance";
    if (!v || !pos || !out) return st_fail(err, STANCE_ERR_ARGUMENT, "%s: %s is NULL", who, !v ? "view" : !pos ? "position" : "out");
    if (!st_finite_n(v->eye, 3) || !st_finite_n(v->forward, 3) || !st_finite_n(pos, 3))
        return st_fail(err, STANCE_ERR_VALUE, "%s: eye, forward and position must be finite", who);
    if (!st_finite(radius) || !(radius > 0.0f)) return st_fail(err, STANCE_ERR_VALUE, "%s: radius %g must be finite and > 0", who, (double)radius);
    const float c = v->cos_half_fov == 0.0f ? 0.5f : v->cos_half_fov;
    const float off = v->off_screen == 0.0f ? 0.25f : v->off_screen;
    if (!st_finite(c) || c < -1.0f || c >= 1.0f)
        return st_fail(err, STANCE_ERR_VALUE, "%s: cos_half_fov %g must be in [-1, 1)", who, (double)v->cos_half_fov);
    if (!st_finite(off) || off < 0.0f || off > 1.0f)
        return st_fail(err, STANCE_ERR_VALUE, "%s: off_screen %g must be in [0, 1]", who, (double)v->off_screen);
    const double fx = v->forward[0], fy = v->forward[1], fz = v->forward[2];
    const double fl = sqrt(fx * fx + fy * fy + fz * fz);
    if (!(fl > 0.0) || !isfinite(fl)) return st_fail(err, STANCE_ERR_VALUE, "%s: forward must not be zero", who);
    const double dx = (double)pos[0] - v->eye[0], dy = (double)pos[1] - v->eye[1], dz = (double)pos[2] - v->eye[2];
    const double d = sqrt(dx * dx + dy * dy + dz * dz);
    if (d <= radius) {
        *out = 1.0f;
        return st_ok(err);
    }
    double s = (double)radius / d;
    /* outside the cone: the centre's distance to the cone's surface (along
     * the axis `along`, off it `perp`) is more than the radius */
    const double along = (dx * fx + dy * fy + dz * fz) / fl;
    const double perp2 = d * d - along * along, perp = perp2 > 0.0 ? sqrt(perp2) : 0.0;
    const double sn = sqrt(1.0 - (double)c * c);
    if (perp * c - along * sn > radius) s *= off;
    *out = (float)s;
    return st_ok(err);
}

stance_status stance_lod_pose_blend(const stance_pose *older, const stance_pose *last, float t, stance_pose *out,
                                    stance_error *err) {
    static const char who[] = "lod pose blend";
    if (!older || !last || !out || !older->tx || !last->tx || !out->tx)
        return st_fail(err, STANCE_ERR_ARGUMENT, "%s: a pose is NULL or unbound", who);
    if (older->joint_count != last->joint_count || out->joint_count != last->joint_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "%s: joint counts differ (%d, %d, out %d)", who, older->joint_count,
                       last->joint_count, out->joint_count);
    if (!st_finite(t) || t < -1.0f || t > 1.0f) return st_fail(err, STANCE_ERR_VALUE, "%s: t %g must be finite in [-1, 1]", who, (double)t);
    /* over the padded arrays, 4 joints at a time (the padding is the
     * identity in all three, and stays so) */
    const int pc = last->padded_count;
    const sv4 tt = sv_set1(t), one = sv_set1(1.0f);
    const float *o = older->tx, *l = last->tx;
    float *w = out->tx;
    for (int c = 0; c < 10; c += 7) { /* translation (channels 0-2) and scale (7-9): 3 x pc floats in a row each */
        const size_t at = (size_t)c * (size_t)pc;
        for (int j = 0; j < 3 * pc; j += 4) {
            const sv4 b = sv_load(l + at + j), a = sv_load(o + at + j);
            sv_store(w + at + j, sv_add(b, sv_mul(tt, sv_sub(b, a))));
        }
    }
    for (int j = 0; j < pc; j += 4) { /* rotation: the older one on the last's hemisphere */
        const sv4 ax = sv_load(older->qx + j), ay = sv_load(older->qy + j), az = sv_load(older->qz + j), aw = sv_load(older->qw + j);
        const sv4 bx = sv_load(last->qx + j), by = sv_load(last->qy + j), bz = sv_load(last->qz + j), bw = sv_load(last->qw + j);
        const sv4 d = sv_add(sv_add(sv_mul(ax, bx), sv_mul(ay, by)), sv_add(sv_mul(az, bz), sv_mul(aw, bw)));
        const sv4 qx = sv_add(bx, sv_mul(tt, sv_sub(bx, sv_xorsign(ax, d))));
        const sv4 qy = sv_add(by, sv_mul(tt, sv_sub(by, sv_xorsign(ay, d))));
        const sv4 qz = sv_add(bz, sv_mul(tt, sv_sub(bz, sv_xorsign(az, d))));
        const sv4 qw = sv_add(bw, sv_mul(tt, sv_sub(bw, sv_xorsign(aw, d))));
        /* |q| >= 1/sqrt(2) for t in [-1, 1] (both on one hemisphere) */
        const sv4 inv = sv_div(one, sv_sqrt(sv_add(sv_add(sv_mul(qx, qx), sv_mul(qy, qy)), sv_add(sv_mul(qz, qz), sv_mul(qw, qw)))));
        sv_store(out->qx + j, sv_mul(qx, inv)), sv_store(out->qy + j, sv_mul(qy, inv));
        sv_store(out->qz + j, sv_mul(qz, inv)), sv_store(out->qw + j, sv_mul(qw, inv));
    }
    return st_ok(err);
}
