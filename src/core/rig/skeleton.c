/* src/core/rig/skeleton.c - skeleton creation and validation, name lookup,
 * joint sets (mask weights), the local-to-model schedule (tiles and groups,
 * or runs) and stance_skeleton_fast_order. Owns the skeleton's single
 * memory block. */
#include <stdio.h>
#include <string.h>

#include "core/base/internal.h"
#include "core/rig/rig_internal.h"
#include "stance/skeleton.h"

int st_chain_scale_over(const int *parents, int n, const float *peak, double *product) {
    double chain[STANCE_MAX_JOINTS]; /* doubles: a product past FLT_MAX is still compared, not inf */
    for (int j = 0; j < n; j++) {
        chain[j] = (parents[j] >= 0 ? chain[parents[j]] : 1.0) * (double)peak[j];
        if (!(chain[j] <= (double)STANCE_MAX_SCALE)) {
            *product = chain[j];
            return j;
        }
    }
    return -1;
}

/* ---- the local-to-model schedule ------------------------------------------
 * Items of 9 shorts, run in order, each after the items holding its joints'
 * parents:
 *  - a group (g[0] = 1..4): that many joints that depend on none of each
 *    other (g[1..4], lanes past the count repeat the last), parents g[5..8];
 *  - a tile (g[0] = 5..8): 4 lanes, each a run of consecutive joints a,
 *    a+1, .. where each is the parent of the next; g[1..4] the runs' first
 *    joints (a lane may repeat another), g[5..8] their parents. Lanes 0..2
 *    hold 4 joints, lane 3 holds 9 - g[0] (4, 3, 2 or 1: the rest of a
 *    chain cut into 4s; its first joint a has a + 9 - g[0] - 4 >= 0, so
 *    the 4 floats that end at its last joint are in the pose). A tile reads
 *    and writes 4 floats a lane per channel, so it costs a 4x4 transpose
 *    instead of 4 gathers and 4 scatters per step.
 * An item's lanes are all roots (parent -1) or none of them.
 * Built once: chains (j follows j-1 when j-1 is its parent and has no other
 * child) are cut into runs of 4 from their first joint, the rest of a chain
 * is a short run; a tile takes up to 4 runs of 4 none of which hangs below
 * another's joints, and when it has fewer, one short run in lane 3; a tile
 * of one lane is dissolved. The items are then ordered by Kahn's algorithm
 * (ready tiles first, then up to 4 ready joints, lowest index first); if
 * tiles made a cycle, none are used. */
static int l2m_order(const int *parents, int n, const short *tile_of, int tiles, const short (*lanes)[4],
                     const short *last_len, short *out) {
    /* per joint: 1 when computed; per tile: 1 when emitted */
    unsigned char done[STANCE_MAX_JOINTS] = {0}, used[STANCE_MAX_JOINTS] = {0};
    int gc = 0, left = n;
    while (left > 0) {
        int emitted = 0;
        for (int t = 0; t < tiles; t++) { /* a ready tile: every lane's parent computed */
            if (used[t]) continue;
            int ready = 1;
            for (int i = 0; i < 4 && ready; i++) {
                int p = parents[lanes[t][i]];
                if (p >= 0 && !done[p]) ready = 0;
            }
            if (!ready) continue;
            short *g = out + (size_t)gc++ * 9;
            g[0] = (short)(9 - last_len[t]);
            for (int i = 0; i < 4; i++) g[1 + i] = lanes[t][i], g[5 + i] = (short)parents[lanes[t][i]];
            for (int i = 0; i < 4; i++)
                for (int k = 0; k < (i == 3 ? last_len[t] : 4); k++)
                    if (!done[lanes[t][i] + k]) done[lanes[t][i] + k] = 1, left--;
            used[t] = 1, emitted = 1;
            break;
        }
        if (emitted) continue;
        short *g = NULL;
        for (int j = 0; j < n; j++) {
            if (done[j] || tile_of[j] >= 0 || (parents[j] >= 0 && !done[parents[j]])) continue;
            if (g && (parents[j] < 0) != (g[5] < 0)) continue; /* roots and others in separate groups */
            if (g && g[0] == 4) break;
            if (!g) g = out + (size_t)gc++ * 9, g[0] = 0;
            g[1 + g[0]] = (short)j, g[5 + g[0]] = (short)parents[j];
            g[0]++;
            for (int k = g[0]; k < 4; k++) g[1 + k] = (short)j, g[5 + k] = (short)parents[j];
        }
        if (!g) return -1; /* nothing ready: the tiles made a cycle */
        for (int i = 0; i < g[0]; i++) done[g[1 + i]] = 1, left--;
    }
    return gc;
}

/* 1 when run a (len joints) and run b (blen joints) can share a tile: the
 * first joint of neither hangs below the other's joints, and both or
 * neither start at a root */
static int l2m_apart(const int *parents, int a, int len, int b, int blen) {
    if ((parents[a] < 0) != (parents[b] < 0)) return 0;
    for (int x = parents[a]; x >= 0; x = parents[x])
        if (x >= b && x < b + blen) return 0;
    for (int x = parents[b]; x >= 0; x = parents[x])
        if (x >= a && x < a + len) return 0;
    return 1;
}

static int l2m_schedule(const int *parents, int n, short *out) {
    short tile_of[STANCE_MAX_JOINTS], lanes[STANCE_MAX_JOINTS / 4][4], last_len[STANCE_MAX_JOINTS / 4];
    int tiles = 0;
    for (int j = 0; j < n; j++) tile_of[j] = -1;
    /* runs of 4 (runs) and the short rests of chains (rests, rest_len) */
    int run_count = 0, rest_count = 0;
    short runs[STANCE_MAX_JOINTS / 4], rests[STANCE_MAX_JOINTS], rest_len[STANCE_MAX_JOINTS];
    short children[STANCE_MAX_JOINTS] = {0};
    for (int j = 0; j < n; j++)
        if (parents[j] >= 0) children[parents[j]]++;
    for (int j = 0, len = 0; j < n; j++) {
        len = j > 0 && parents[j] == j - 1 && children[j - 1] == 1 && len < 4 ? len + 1 : 1;
        if (len == 4) runs[run_count++] = (short)(j - 3), len = 0;
        const int next_follows = j + 1 < n && parents[j + 1] == j && children[j] == 1;
        if (len > 0 && !next_follows && j - 3 >= 0) /* a short rest whose last 4 floats are in the pose */
            rests[rest_count] = (short)(j - len + 1), rest_len[rest_count++] = (short)len;
    }
    /* tiles: up to 4 runs, none below a joint of another (through its ancestors) */
    unsigned char taken[STANCE_MAX_JOINTS / 4] = {0}, rest_taken[STANCE_MAX_JOINTS] = {0};
    for (int r = 0; r < run_count; r++) {
        if (taken[r]) continue;
        int lane_n = 0;
        short lane[4];
        for (int q = r; q < run_count && lane_n < 4; q++) {
            if (taken[q]) continue;
            int ok = 1;
            for (int i = 0; i < lane_n && ok; i++) ok = l2m_apart(parents, runs[q], 4, lane[i], 4);
            if (ok) lane[lane_n++] = runs[q], taken[q] = 1;
        }
        int rest = -1; /* the longest short rest that fits in lane 3 */
        for (int q = 0; q < rest_count && lane_n < 4; q++) {
            if (rest_taken[q] || (rest >= 0 && rest_len[q] <= rest_len[rest])) continue;
            int ok = 1;
            for (int i = 0; i < lane_n && ok; i++) ok = l2m_apart(parents, rests[q], rest_len[q], lane[i], 4);
            if (ok) rest = q;
        }
        if (lane_n + (rest >= 0) < 2) continue; /* one run: its joints go in groups */
        for (int i = 0; i < 3; i++) lanes[tiles][i] = lane[i < lane_n ? i : lane_n - 1];
        lanes[tiles][3] = rest >= 0 ? rests[rest] : lane[lane_n - 1];
        last_len[tiles] = rest >= 0 ? rest_len[rest] : 4;
        if (rest >= 0) rest_taken[rest] = 1;
        for (int i = 0; i < lane_n; i++)
            for (int k = 0; k < 4; k++) tile_of[lane[i] + k] = (short)tiles;
        if (rest >= 0)
            for (int k = 0; k < rest_len[rest]; k++) tile_of[rests[rest] + k] = (short)tiles;
        tiles++;
    }
    int gc = l2m_order(parents, n, tile_of, tiles, (const short (*)[4])lanes, last_len, out);
    if (gc < 0) { /* no tiles */
        for (int j = 0; j < n; j++) tile_of[j] = -1;
        gc = l2m_order(parents, n, tile_of, 0, (const short (*)[4])lanes, last_len, out);
    }
    return gc;
}

/* ---- runs: consecutive joints that depend on none of each other ---------
 * In a skeleton ordered so (stance_skeleton_fast_order), up to 4
 * consecutive joints are one load and one store a channel. Runs are cut
 * greedily in joint order: a run grows while the next joint's parent comes
 * before the run and it is a root exactly when the first is. The parents
 * come from the last run's results in registers when they are its lanes in
 * order (shifted by g[3]), else one broadcast, one row, or a gather. */
static int l2m_build_runs(const int *parents, int n, short *out) {
    const int pc = st_pad8(n);
    int rc = 0, pj = -1, pk = 0;
    for (int j = 0; j < n;) {
        int k = 1;
        while (k < 4 && j + k < n && parents[j + k] < j && (parents[j + k] < 0) == (parents[j] < 0)) k++;
        short *g = out + (size_t)rc++ * 9;
        g[0] = (short)k, g[1] = (short)j;
        for (int i = 0; i < 4; i++) g[5 + i] = (short)parents[j + (i < k ? i : k - 1)];
        const int p0 = parents[j];
        int same = 1, row = 1, kind = ST_RUN_GATHER, shift = 0;
        for (int i = 1; i < k; i++) same &= parents[j + i] == p0, row &= parents[j + i] == p0 + i;
        if (p0 < 0)
            kind = ST_RUN_ROOT;
        else if (pj >= 0 && row && p0 >= pj && p0 - pj + k <= pk)
            kind = ST_RUN_X, shift = p0 - pj;
        else if (same)
            kind = ST_RUN_ONE;
        else if (row && p0 + 3 < pc)
            kind = ST_RUN_ROW;
        g[2] = (short)kind, g[3] = (short)shift;
        g[4] = (short)((j + 3 < pc ? ST_RUN_LOAD4 : 0) | (j + 3 < n ? ST_RUN_STORE4 : 0));
        if (kind == ST_RUN_X) out[(size_t)(rc - 2) * 9 + 4] |= ST_RUN_KEEP; /* the last run keeps its results */
        pj = j, pk = k;
        j += k;
    }
    return rc;
}

/* Rough instructions of a schedule (SSE2, callgrind on the crowd workload:
 * a run about 200 with its parents in registers, a group of 4 about 300, a
 * tile of 16 joints 1,100, a single joint 150), to pick the runs or the
 * chains. */
static long l2m_cost_runs(const short *g, int rc) {
    static const int fetch[] = {0, 0, 20, 10, 70}; /* ST_RUN_X .. ST_RUN_GATHER */
    long c = 0;
    for (int k = 0; k < rc; k++, g += 9) c += 200 + fetch[g[2]] + (g[2] == ST_RUN_X && g[3] ? 10 : 0);
    return c;
}
static long l2m_cost_items(const short *g, int gc) {
    long c = 0;
    for (int k = 0; k < gc; k++, g += 9) c += g[0] >= 5 ? 1100 : g[0] > 1 ? 300 : 150;
    return c;
}

int st_l2m_schedule_as(const int *parents, int n, int runs, short *out) {
    return runs ? l2m_build_runs(parents, n, out) : l2m_schedule(parents, n, out);
}

stance_status stance_skeleton_fast_order(const int *parents, int n, int *order, stance_error *err) {
    if (!parents || !order) return st_fail(err, STANCE_ERR_ARGUMENT, "fast order: parents or order is NULL");
    if (n < 1 || n > STANCE_MAX_JOINTS)
        return st_fail(err, STANCE_ERR_ARGUMENT, "fast order: joint_count %d is not in 1..%d", n, STANCE_MAX_JOINTS);
    for (int j = 0; j < n; j++)
        if (parents[j] < -1 || parents[j] >= j)
            return st_fail(err, STANCE_ERR_ORDER, "fast order: joint %d has parent %d; parents must come before children", j,
                           parents[j]);
    /* height: joints on the longest chain down from a joint, itself included */
    int height[STANCE_MAX_JOINTS], pos[STANCE_MAX_JOINTS], ready[STANCE_MAX_JOINTS];
    for (int j = 0; j < n; j++) height[j] = 1, pos[j] = -1;
    for (int j = n - 1; j > 0; j--)
        if (parents[j] >= 0 && height[parents[j]] < height[j] + 1) height[parents[j]] = height[j] + 1;
    int nready = 0, count = 0;
    for (int j = 0; j < n; j++)
        if (parents[j] < 0) ready[nready++] = j;
    while (count < n) {
        /* up to 4 ready joints (roots first, alone), highest first, then by index */
        int pick[4], np = 0, roots = 0;
        for (int r = 0; r < nready; r++) roots |= parents[ready[r]] < 0;
        for (; np < 4; np++) {
            int best = -1;
            for (int r = 0; r < nready; r++) {
                const int j = ready[r];
                if (j < 0 || (roots && parents[j] >= 0)) continue;
                if (best < 0 || height[j] > height[ready[best]] || (height[j] == height[ready[best]] && j < ready[best]))
                    best = r;
            }
            if (best < 0) break;
            pick[np] = ready[best], ready[best] = -1;
        }
        /* lanes in the order of their parents, so children follow their parents' lanes */
        for (int a = 1; a < np; a++)
            for (int b = a; b > 0; b--) {
                const int x = pick[b - 1], y = pick[b];
                const int px = parents[x] < 0 ? -1 : pos[parents[x]], py = parents[y] < 0 ? -1 : pos[parents[y]];
                if (px < py || (px == py && x < y)) break;
                pick[b - 1] = y, pick[b] = x;
            }
        int w = 0; /* the ready list without the picked, then their children */
        for (int r = 0; r < nready; r++)
            if (ready[r] >= 0) ready[w++] = ready[r];
        nready = w;
        for (int i = 0; i < np; i++) pos[pick[i]] = count, order[count++] = pick[i];
        for (int i = 0; i < np; i++)
            for (int c = pick[i] + 1; c < n; c++)
                if (parents[c] == pick[i]) ready[nready++] = c;
    }
    return st_ok(err);
}

stance_status stance_skeleton_create(const stance_skeleton_desc *desc,
                                     const stance_allocator *allocator, stance_skeleton **out,
                                     stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "skeleton: out is NULL");
    *out = NULL;
    if (!desc) return st_fail(err, STANCE_ERR_ARGUMENT, "skeleton: desc is NULL");
    if (st_check_allocator(allocator, "skeleton", err)) return STANCE_ERR_ARGUMENT;
    int n = desc->joint_count;
    if (n < 1 || n > STANCE_MAX_JOINTS)
        return st_fail(err, STANCE_ERR_ARGUMENT, "skeleton: joint_count %d is not in 1..%d", n,
                       STANCE_MAX_JOINTS);
    if (!desc->parents) return st_fail(err, STANCE_ERR_ARGUMENT, "skeleton: parents is NULL");
    for (int j = 0; j < n; j++) {
        int p = desc->parents[j];
        if (p < -1 || p >= n)
            return st_fail(err, STANCE_ERR_ARGUMENT, "skeleton: joint %d has parent %d, not in -1..%d", j, p, n - 1);
        if (p >= j)
            return st_fail(err, STANCE_ERR_ORDER, "skeleton: joint %d has parent %d; parents must come before children", j, p);
    }
    if (desc->names) {
        for (int j = 0; j < n; j++) {
            const char *nm = desc->names[j];
            size_t len = nm ? strlen(nm) : 0;
            if (len == 0 || len >= STANCE_MAX_NAME)
                return st_fail(err, STANCE_ERR_ARGUMENT, "skeleton: joint %d name is %s", j,
                               len == 0 ? "empty or NULL" : "longer than 63 bytes");
        }
        /* unique names: n is small enough (<= 1024) for the quadratic check */
        for (int j = 0; j < n; j++)
            for (int k = 0; k < j; k++)
                if (!strcmp(desc->names[j], desc->names[k]))
                    return st_fail(err, STANCE_ERR_ARGUMENT, "skeleton: joints %d and %d are both named '%s'", k, j, desc->names[j]);
    }
    if (desc->rest) { /* issue 22: the limits of stance/base.h, and the chain rule */
        float peak[STANCE_MAX_JOINTS];
        char why[200];
        for (int j = 0; j < n; j++) {
            const stance_transform *t = &desc->rest[j];
            if (st_check_trs(t->t, t->r, t->s, why, sizeof why))
                return st_fail(err, STANCE_ERR_VALUE, "skeleton: joint %d%s%s%s rest %s", j, desc->names ? " '" : "",
                               desc->names ? desc->names[j] : "", desc->names ? "'" : "", why);
            peak[j] = fmaxf(fabsf(t->s[0]), fmaxf(fabsf(t->s[1]), fabsf(t->s[2])));
        }
        double product = 0.0;
        const int over = st_chain_scale_over(desc->parents, n, peak, &product);
        if (over >= 0)
            return st_fail(err, STANCE_ERR_VALUE, "skeleton: joint %d%s%s%s: its rest scales multiply down its chain to %g, "
                           "beyond %g (STANCE_MAX_SCALE, the chain rule of stance/base.h)", over, desc->names ? " '" : "",
                           desc->names ? desc->names[over] : "", desc->names ? "'" : "", product, (double)STANCE_MAX_SCALE);
    }

    size_t off_parents = st_align_up(sizeof(stance_skeleton), 64);
    size_t off_names = st_align_up(off_parents + sizeof(int) * (size_t)n, 64);
    size_t off_rest = st_align_up(off_names + (size_t)STANCE_MAX_NAME * (size_t)n, 64);
    size_t off_groups = st_align_up(off_rest + sizeof(stance_transform) * (size_t)n, 64);
    size_t bytes = off_groups + sizeof(short) * 9 * (size_t)n;
    stance_allocator al = st_allocator(allocator);
    unsigned char *mem = st_alloc(&al, bytes, 64);
    if (!mem) return st_fail(err, STANCE_ERR_MEMORY, "skeleton: allocation of %zu bytes failed", bytes);

    stance_skeleton *sk = (stance_skeleton *)mem;
    int *parents = (int *)(mem + off_parents);
    char *names = (char *)(mem + off_names);
    stance_transform *rest = (stance_transform *)(mem + off_rest);
    for (int j = 0; j < n; j++) {
        parents[j] = desc->parents[j];
        char *dst = names + (size_t)j * STANCE_MAX_NAME;
        if (desc->names)
            memcpy(dst, desc->names[j], strlen(desc->names[j]) + 1);
        else
            snprintf(dst, STANCE_MAX_NAME, "joint%d", j);
        rest[j] = desc->rest ? desc->rest[j] : stance_transform_identity();
        float *r = rest[j].r;
        float l2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3];
        if (fabsf(l2 - 1.0f) > 1e-6f) { /* already unit: keep the bits (normalizing is not idempotent) */
            float inv = 1.0f / sqrtf(l2);
            for (int c = 0; c < 4; c++) r[c] *= inv;
        }
    }
    short *groups = (short *)(mem + off_groups);
    int gc = l2m_schedule(parents, n, groups);
    short runs[9 * STANCE_MAX_JOINTS];
    const int rc = l2m_build_runs(parents, n, runs);
    sk->l2m_runs = l2m_cost_runs(runs, rc) < l2m_cost_items(groups, gc);
    if (sk->l2m_runs) memcpy(groups, runs, sizeof(short) * 9 * (size_t)rc), gc = rc;
    sk->l2m_group_count = gc;
    sk->l2m_groups = groups;
    sk->joint_count = n;
    sk->padded_count = st_pad8(n);
    sk->parents = parents;
    sk->names = names;
    sk->rest = rest;
    sk->allocator = al;
    sk->bytes = bytes;
    *out = sk;
    return st_ok(err);
}

void stance_skeleton_destroy(stance_skeleton *skeleton) {
    if (!skeleton) return;
    stance_allocator al = skeleton->allocator;
    st_free(&al, skeleton, skeleton->bytes);
}

const char *stance_skeleton_joint_name(const stance_skeleton *skeleton, int joint) {
    if (!skeleton || joint < 0 || joint >= skeleton->joint_count) return "";
    return skeleton->names + (size_t)joint * STANCE_MAX_NAME;
}

int stance_skeleton_find(const stance_skeleton *skeleton, const char *name) {
    if (!skeleton || !name) return -1;
    for (int j = 0; j < skeleton->joint_count; j++)
        if (!strcmp(skeleton->names + (size_t)j * STANCE_MAX_NAME, name)) return j;
    return -1;
}

int stance_skeleton_is_descendant(const stance_skeleton *skeleton, int joint, int ancestor) {
    if (!skeleton || joint < 0 || joint >= skeleton->joint_count || ancestor < 0) return 0;
    for (int j = joint; j >= 0; j = skeleton->parents[j])
        if (j == ancestor) return 1;
    return 0;
}

static stance_status check_mask_args(const stance_skeleton *sk, float weight, float *weights,
                                     stance_error *err) {
    if (!sk || !weights) return st_fail(err, STANCE_ERR_ARGUMENT, "mask: skeleton or weights is NULL");
    if (!st_finite(weight) || weight < 0.0f || weight > 1.0f)
        return st_fail(err, STANCE_ERR_VALUE, "mask: weight %g is not in [0, 1]", (double)weight);
    return STANCE_OK;
}

stance_status stance_mask_subtree(const stance_skeleton *skeleton, int root_joint, float weight,
                                  int falloff, float *weights, stance_error *err) {
    stance_status s = check_mask_args(skeleton, weight, weights, err);
    if (s) return s;
    if (root_joint < 0 || root_joint >= skeleton->joint_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "mask: joint %d is not in 0..%d", root_joint, skeleton->joint_count - 1);
    if (falloff < 0 || falloff > STANCE_MAX_JOINTS)
        return st_fail(err, STANCE_ERR_ARGUMENT, "mask: falloff %d is negative or too large", falloff);
    for (int j = 0; j < skeleton->joint_count; j++) {
        int depth = 0, found = 0;
        for (int k = j; k >= 0; k = skeleton->parents[k], depth++)
            if (k == root_joint) { found = 1; break; }
        float w = 0.0f;
        if (found) {
            w = weight;
            if (falloff > 0 && depth < falloff) w = weight * (float)(depth + 1) / (float)(falloff + 1);
        }
        weights[j] = w;
    }
    return st_ok(err);
}

stance_status stance_mask_names(const stance_skeleton *skeleton, const char *const *names,
                                int name_count, float weight, float *weights, stance_error *err) {
    stance_status s = check_mask_args(skeleton, weight, weights, err);
    if (s) return s;
    if (name_count < 0 || (name_count > 0 && !names))
        return st_fail(err, STANCE_ERR_ARGUMENT, "mask: bad name list");
    for (int i = 0; i < name_count; i++)
        if (stance_skeleton_find(skeleton, names[i]) < 0)
            return st_fail(err, STANCE_ERR_NOT_FOUND, "mask: no joint named '%s'", names[i] ? names[i] : "(null)");
    for (int j = 0; j < skeleton->joint_count; j++) weights[j] = 0.0f;
    for (int i = 0; i < name_count; i++) weights[stance_skeleton_find(skeleton, names[i])] = weight;
    return st_ok(err);
}

stance_status stance_mask_weights(const stance_skeleton *skeleton, const float *in, float *weights,
                                  stance_error *err) {
    stance_status s = check_mask_args(skeleton, 1.0f, weights, err);
    if (s) return s;
    if (!in) return st_fail(err, STANCE_ERR_ARGUMENT, "mask: input weights are NULL");
    for (int j = 0; j < skeleton->joint_count; j++)
        if (!st_finite(in[j]) || in[j] < 0.0f || in[j] > 1.0f)
            return st_fail(err, STANCE_ERR_VALUE, "mask: weight of joint %d (%g) is not in [0, 1]", j, (double)in[j]);
    memcpy(weights, in, sizeof(float) * (size_t)skeleton->joint_count);
    return st_ok(err);
}
