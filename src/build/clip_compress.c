/* src/build/clip_compress.c - the clip compressor: per track, the cheapest
 * key spacing and precision (clip_packed.h) that keeps the model-space error
 * of virtual vertices under the tolerance; and stance_asset_compress.
 *
 * The error: for each joint, the points at vertex_distance along its three
 * local axes, in model space (double precision), exact clip against the
 * candidate, at every grid key and 3 points between each. Joints are
 * processed parents first, each with the error of the ancestors already
 * chosen applied, so the measured error is the accumulated one. A joint at
 * depth d whose subtree reaches depth D may use (d + 1) / (D + 1) of the
 * tolerance on its subtree, leaving the rest to its descendants (the walk
 * that measures a candidate is clip_compress_error.c, shared with the
 * variable-rate search, clip_compress_vbr.c). Creation
 * time only: it allocates its working set from the caller's allocator. */
#include <float.h>
#include <string.h>

#include "core/math/smath.h"
#include "core/clip/clip_packed.h"
#include "core/base/internal.h"
#include "stance/asset.h"
#include "stance/build.h"

#include "build/clip_compress.h"

/* Max error over j's subtree with track t (keys in data/raw) as j's channel,
 * or > limit (stops early) when it is exceeded. apply: write the result
 * into loc and mod. */
static double evaluate(work *w, const st_ptrack *t, const unsigned char *data, const float *raw, double limit,
                       int apply) {
    const int J = w->J, j = w->sub[0], ch = t->channel;
    const int off = ch == 0 ? 0 : ch == 1 ? 3 : 7, width = ch == 1 ? 4 : 3;
    double worst = 0.0;
    for (int e = 0; e < w->E; e++) {
        float l[10];
        memcpy(l, w->loc + ((size_t)e * (size_t)J + (size_t)j) * 10, sizeof l);
        const int slot = e * (ST_PACK_MAX_SHIFT + 1) + t->shift;
        st_ptrack_interp(t, data, raw, w->ia[slot], w->fr[slot], w->clip->slerp, l + off);
        worst = st_compress_key_error(w, e, l, off, width, worst, limit, apply);
        if (worst > limit && !apply) return worst;
    }
    return worst;
}

/* One candidate's keys: every 2^shift-th grid value of vals, raw or
 * quantized to bits. Writes the head into t, keys into data or raw. */
static void build(const float *vals, int K, int ch, int shift, int bits, st_ptrack *t, unsigned char *data,
                  float *raw) {
    const int w = ch == 1 ? 4 : 3;
    const uint32_t n = st_ptrack_keys((uint32_t)K, shift);
    memset(t, 0, sizeof *t);
    t->channel = (uint8_t)ch, t->shift = (uint8_t)shift, t->bits = (uint8_t)bits, t->n = n;
    if (bits == ST_PACK_RAW) {
        for (uint32_t i = 0; i < n; i++) {
            size_t g = (size_t)i << shift;
            if (g > (size_t)K - 1) g = (size_t)K - 1;
            memcpy(raw + (size_t)i * (size_t)w, vals + g * (size_t)w, sizeof(float) * (size_t)w);
        }
        return;
    }
    const int seg = (bits & ST_PACK_SEG) != 0, b = bits & ~ST_PACK_SEG;
    const uint32_t levels_u = (1u << b) - 1u;
    const float levels = (float)levels_u;
    /* the keys as stored: rotations with w >= 0, x y z */
    float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    for (uint32_t i = 0; i < n; i++) {
        size_t g = (size_t)i << shift;
        if (g > (size_t)K - 1) g = (size_t)K - 1;
        const float *v = vals + g * (size_t)w;
        float sg = w == 4 && v[3] < 0.0f ? -1.0f : 1.0f;
        for (int c = 0; c < 3; c++) {
            raw[3 * i + c] = sg * v[c];
            if (raw[3 * i + c] < lo[c]) lo[c] = raw[3 * i + c];
            if (raw[3 * i + c] > hi[c]) hi[c] = raw[3 * i + c];
        }
    }
    for (int c = 0; c < 3; c++) {
        t->min[c] = lo[c];
        float ext = hi[c] - lo[c];
        while (ext > 0.0f && lo[c] + ext > (w == 4 ? 1.0f : FLT_MAX)) ext = nextafterf(ext, 0.0f);
        t->ext[c] = ext;
        t->step[c] = ext / (seg ? 255.0f : levels);
    }
    t->inv_levels = 1.0f / levels;
    t->keys_at = (uint32_t)st_ptrack_heads(n, bits);
    memset(data, 0, st_ptrack_bytes(n, bits) + 4);
    unsigned char *keys = data + t->keys_at;
    for (uint32_t i = 0; i < n; i++) {
        unsigned char *h = data + (size_t)(i / ST_SEG_KEYS) * 6u;
        if (seg && i % ST_SEG_KEYS == 0) { /* this segment's range, in 255ths of the track's */
            uint32_t end = i + ST_SEG_KEYS < n ? i + ST_SEG_KEYS : n;
            for (int c = 0; c < 3; c++) {
                float a = FLT_MAX, z = -FLT_MAX;
                for (uint32_t k = i; k < end; k++) {
                    if (raw[3 * k + c] < a) a = raw[3 * k + c];
                    if (raw[3 * k + c] > z) z = raw[3 * k + c];
                }
                seg_head(t->min[c], t->ext[c], t->step[c], a, z, h + 2 * c);
            }
        }
        for (int c = 0; c < 3; c++) {
            float q;
            if (!(t->ext[c] > 0.0f)) q = 0.0f;
            else if (seg) q = ((raw[3 * i + c] - t->min[c]) / t->step[c] - (float)h[2 * c]) / (float)h[2 * c + 1] * levels;
            else q = (raw[3 * i + c] - t->min[c]) / t->step[c];
            uint32_t qi = q <= 0.0f ? 0u : q >= levels ? levels_u : (uint32_t)(q + 0.5f);
            size_t pos = ((size_t)i * 3u + (size_t)c) * (size_t)b;
            for (int k = 0; k < b; k++, pos++)
                if (qi >> k & 1u) keys[pos >> 3] |= (unsigned char)(1u << (pos & 7u));
        }
    }
}

static size_t cost_bits(const st_ptrack *t, int w) {
    return t->bits == ST_PACK_RAW ? (size_t)t->n * (size_t)w * 32u : 192u + 8u * st_ptrack_bytes(t->n, t->bits);
}


static void release(stance_allocator *al, chosen *ch, int n) {
    for (int i = 0; i < n; i++) {
        if (ch[i].raw) st_free(al, ch[i].raw, ch[i].constant ? sizeof(float) * 4 : sizeof(float) * ch[i].raw_floats);
        if (ch[i].data) st_free(al, ch[i].data, ch[i].data_bytes);
        ch[i].raw = NULL, ch[i].data = NULL;
    }
}

static stance_status fail_free(stance_allocator *al, void **ptr, size_t *size, int n, stance_status s) {
    for (int i = 0; i < n; i++)
        if (ptr[i]) st_free(al, ptr[i], size[i]);
    return s;
}

/* Time of evaluation point e: grid key e / SUB and (e % SUB) / SUB of the way to the next. */
static float point_time(const stance_clip *c, int e) {
    const int K = c->key_count;
    int g = e / SUB, i = e % SUB;
    if (g >= K - 1) g = K - 1, i = 0;
    return K < 2 ? 0.0f : g < K - 1 ? c->times[g] + (c->times[g + 1] - c->times[g]) * ((float)i / SUB) : c->times[K - 1];
}

/* Evaluation times, the exact local poses and model-space points, key
 * index and fraction per shift. */
static void init_points(work *wp, stance_pose *pp) {
    work w = *wp;
    stance_pose pose = *pp;
    const stance_clip *c = w.clip;
    const stance_skeleton *sk = w.sk;
    const int J = w.J, K = w.K, E = w.E, NS = ST_PACK_MAX_SHIFT + 1;
    const double dist = w.dist;
    for (int e = 0; e < E; e++) {
        int g = e / SUB;
        if (g >= K - 1) g = K - 1;
        float t = point_time(c, e);
        stance_clip_sample(c, t, NULL, &pose, NULL);
        float *le = w.loc + (size_t)e * (size_t)J * 10;
        for (int j = 0; j < J; j++) {
            float *l = le + (size_t)j * 10;
            l[0] = pose.tx[j], l[1] = pose.ty[j], l[2] = pose.tz[j];
            l[3] = pose.qx[j], l[4] = pose.qy[j], l[5] = pose.qz[j], l[6] = pose.qw[j];
            l[7] = pose.sx[j], l[8] = pose.sy[j], l[9] = pose.sz[j];
            double *m = w.mod + ((size_t)e * (size_t)J + (size_t)j) * 12;
            int p = sk->parents[j];
            model_of(&w, e, j, l, p >= 0 ? w.mod + ((size_t)e * (size_t)J + (size_t)p) * 12 : NULL, m);
            vertex_points(m, dist, w.ref + ((size_t)e * (size_t)J + (size_t)j) * 9);
        }
        for (int s = 0; s < NS; s++) {
            uint32_t *ia = &w.ia[e * NS + s];
            float *fr = &w.fr[e * NS + s];
            if (K < 2) { *ia = 0, *fr = 0.0f; continue; }
            int k = g < K - 1 ? g : K - 2;
            int ga = (k >> s) << s, gb = ga + (1 << s);
            if (gb > K - 1) gb = K - 1;
            float f = (t - c->times[ga]) / (c->times[gb] - c->times[ga]);
            *ia = (uint32_t)(k >> s);
            *fr = f < 0.0f ? 0.0f : f > 1.0f ? 1.0f : f;
        }
    }

}

/* The largest error of clip z (as it samples) against the exact points. */
static double measure_clip(work *wp, const stance_clip *z, stance_pose *pose) {
    const int J = wp->J;
    double worst = 0.0;
    for (int e = 0; e < wp->E; e++) {
        stance_clip_sample(z, point_time(wp->clip, e), NULL, pose, NULL);
        double *m = wp->tmp;
        for (int j = 0; j < J; j++) {
            float l[10] = {pose->tx[j], pose->ty[j], pose->tz[j], pose->qx[j], pose->qy[j], pose->qz[j], pose->qw[j],
                           pose->sx[j], pose->sy[j], pose->sz[j]};
            int p = wp->sk->parents[j];
            model_of(wp, e, j, l, p >= 0 ? m + (size_t)p * 12 : NULL, m + (size_t)j * 12);
            double er = vertex_error(m + (size_t)j * 12, wp->ref + ((size_t)e * (size_t)J + (size_t)j) * 9, wp->dist);
            if (er > worst) worst = er;
        }
    }
    return worst;
}

enum { A_LOC, A_MOD, A_REF, A_TMP, A_IA, A_FR, A_SUB, A_POSE, A_VALS, A_DATA, A_RAW, A_CH, A_TR, A_BEST, A_N };

/* The working set's blocks (size) and all that compressing c allocates at
 * most: the blocks, the keys of two results of the first search, and the
 * second search's tracks, values and streams. */
static size_t work_bytes(const stance_clip *c, size_t *size) {
    const int J = c->joint_count, K = c->key_count, NS = ST_PACK_MAX_SHIFT + 1;
    const int E = K < 2 ? 1 : (K - 1) * SUB + 1;
    const size_t s[A_N] = {
        sizeof(float) * 10 * (size_t)E * (size_t)J, sizeof(double) * 12 * (size_t)E * (size_t)J,
        sizeof(double) * 9 * (size_t)E * (size_t)J, sizeof(double) * 12 * (size_t)J,
        sizeof(uint32_t) * (size_t)E * (size_t)NS, sizeof(float) * (size_t)E * (size_t)NS, sizeof(int) * (size_t)J,
        stance_pose_bytes(J), sizeof(float) * 4 * (size_t)K, st_ptrack_bytes((uint32_t)K, ST_PACK_SEG | ST_PACK_MAX_BITS) + 8,
        sizeof(float) * 4 * (size_t)K, sizeof(chosen) * 3 * (size_t)J, sizeof(st_ptrack_desc) * 3 * (size_t)J,
        sizeof(chosen) * 3 * (size_t)J};
    size_t total = 0;
    for (int i = 0; i < A_N; i++) size[i] = s[i], total += s[i] + 64;
    size_t T = 0;
    for (int j = 0; j < J; j++) T += (size_t)(c->animated[j] & 1u) + (c->animated[j] >> 1 & 1u) + (c->animated[j] >> 2 & 1u);
    const size_t keys = sizeof(float) * 4 * (size_t)K + 64; /* one track's raw keys, or its stream at most */
    total += 2 * T * keys;                                  /* the first search: the best and the current result */
    total += T * (sizeof(chosen) + sizeof(float *) + 2 * keys) + st_compress_vbr_bytes((int)T, K, J);
    return total;
}

size_t stance_clip_compress_memory(const stance_clip *c, const stance_skeleton *sk) {
    if (!c || !sk || c->packed || c->joint_count != sk->joint_count) return 0;
    const int K = c->key_count, E = K < 2 ? 1 : (K - 1) * SUB + 1;
    if ((size_t)E * (size_t)c->joint_count > MAX_WORK) return 0;
    size_t size[A_N];
    return work_bytes(c, size);
}

stance_status stance_clip_compress(const stance_clip *c, const stance_skeleton *sk, const stance_compress_settings *set,
                                   const stance_allocator *allocator, stance_clip **out, stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "compress: out is NULL");
    *out = NULL;
    if (!c || !sk) return st_fail(err, STANCE_ERR_ARGUMENT, "compress: clip or skeleton is NULL");
    if (c->packed) return st_fail(err, STANCE_ERR_ARGUMENT, "compress: clip '%s' is already compressed", c->name);
    if (c->joint_count != sk->joint_count || c->padded_count != sk->padded_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "compress: clip '%s' has %d joints, the skeleton %d", c->name, c->joint_count, sk->joint_count);
    float tol = set && set->max_error != 0.0f ? set->max_error : 1e-4f;
    float dist = set && set->vertex_distance != 0.0f ? set->vertex_distance : 0.03f;
    if (!st_finite(tol) || !(tol > 0.0f) || !st_finite(dist) || !(dist > 0.0f))
        return st_fail(err, STANCE_ERR_VALUE, "compress: max_error %g and vertex_distance %g must be finite and > 0", (double)tol, (double)dist);
    const int J = c->joint_count, K = c->key_count, pc = c->padded_count;
    const int E = K < 2 ? 1 : (K - 1) * SUB + 1;
    if ((size_t)E * (size_t)J > MAX_WORK)
        return st_fail(err, STANCE_ERR_ARGUMENT, "compress: clip '%s' (%d keys x %d joints) is too large to compress (at most %u evaluation points x joints)", c->name, K, J, MAX_WORK);
    stance_allocator al = st_allocator(allocator);
    size_t size[A_N];
    const size_t need = work_bytes(c, size);
    if (set && set->max_memory && need > set->max_memory)
        return st_fail(err, STANCE_ERR_MEMORY, "compress: clip '%s' (%d keys x %d joints) needs %.1f MB of working memory, over the budget of %.1f MB (max_memory)",
                       c->name, K, J, (double)need / 1048576.0, (double)set->max_memory / 1048576.0);
    void *ptr[A_N] = {0};
    for (int i = 0; i < A_N; i++)
        if (!(ptr[i] = st_alloc(&al, size[i], 64)))
            return fail_free(&al, ptr, size, A_N, st_fail(err, STANCE_ERR_MEMORY, "compress: clip '%s': allocation of %zu bytes failed", c->name, size[i]));
    work w = {c, sk, J, K, E, ptr[A_LOC], ptr[A_MOD], ptr[A_REF], ptr[A_TMP], ptr[A_IA], ptr[A_FR], ptr[A_SUB], 0, dist};
    stance_pose pose;
    stance_pose_init(&pose, J, ptr[A_POSE], size[A_POSE], NULL);

    /* Depth and the deepest depth below each joint. */
    int depth[STANCE_MAX_JOINTS], below[STANCE_MAX_JOINTS];
    for (int j = 0; j < J; j++) depth[j] = sk->parents[j] >= 0 ? depth[sk->parents[j]] + 1 : 0, below[j] = depth[j];
    for (int j = J - 1; j > 0; j--) {
        int p = sk->parents[j];
        if (p >= 0 && below[j] > below[p]) below[p] = below[j];
    }

    /* Three ways to share the tolerance down the hierarchy, joint share
     * ((depth + 1) / (deepest below + 1))^gamma: the cheapest result wins. */
    static const double gammas[3] = {1.0, 0.5, 0.25};
    chosen *ch = ptr[A_CH], *best_ch = ptr[A_BEST];
    int nch = 0, best_n = -1;
    size_t best_cost = 0;
    double best_worst = 0.0;
    float *vals = ptr[A_VALS];
    unsigned char *cand_data = ptr[A_DATA];
    float *cand_raw = ptr[A_RAW];
    stance_status st = STANCE_OK;
    const float *blocks[3] = {c->t, c->r, c->s};
    const int nblk[3] = {c->t_keys, c->r_keys, c->s_keys};
    for (int attempt = 0; attempt < 3 && !st; attempt++) {
    nch = 0;
    init_points(&w, &pose);

    for (int j = 0; j < J && !st; j++) {
        st_compress_subtree(&w, j);
        const double limit = 0.98 * (double)tol * sm_pow((double)(depth[j] + 1) / (below[j] + 1), gammas[attempt]);
        for (int pass = 0; pass < 3 && !st; pass++) {
            const int chn = pass == 0 ? 1 : pass == 1 ? 0 : 2; /* rotation first */
            if (!(c->animated[j] & (1u << chn))) continue;
            const int wd = chn == 1 ? 4 : 3;
            for (int g = 0; g < K; g++) {
                const float *blk = blocks[chn] + (size_t)(nblk[chn] > 1 ? g : 0) * (size_t)wd * (size_t)pc;
                for (int e = 0; e < wd; e++) vals[(size_t)g * (size_t)wd + (size_t)e] = blk[(size_t)e * (size_t)pc + (size_t)j];
            }
            int constant = 1;
            for (int g = 1; g < K && constant; g++) constant = !memcmp(vals, vals + (size_t)g * (size_t)wd, sizeof(float) * (size_t)wd);
            const float *rest = chn == 0 ? sk->rest[j].t : chn == 1 ? sk->rest[j].r : sk->rest[j].s;
            if (constant && !memcmp(vals, rest, sizeof(float) * (size_t)wd)) continue; /* the rest value */
            chosen *o = &ch[nch];
            memset(o, 0, sizeof *o);
            if (constant) {
                o->constant = 1, o->t.channel = (uint8_t)chn, o->t.joint = (uint16_t)j, o->raw_floats = (size_t)wd;
                if (!(o->raw = st_alloc(&al, sizeof(float) * 4, 16))) { st = st_fail(err, STANCE_ERR_MEMORY, "compress: allocation failed"); break; }
                memcpy(o->raw, vals, sizeof(float) * (size_t)wd);
                nch++;
                continue;
            }
            int fit = 1;
            for (int g = 0; g < K * wd; g++) fit &= fabsf(vals[g]) <= 1e30f;
            /* best so far: raw at shift 0 (the exact keys) */
            st_ptrack best, cand;
            build(vals, K, chn, 0, ST_PACK_RAW, &best, cand_data, cand_raw);
            int best_shift = 0, best_bits = ST_PACK_RAW;
            for (int s = 0; s <= ST_PACK_MAX_SHIFT && fit; s++) {
                if (s > 0 && (1 << (s - 1)) >= K - 1) break;
                int any = 0;
                if (s > 0) {
                    build(vals, K, chn, s, ST_PACK_RAW, &cand, cand_data, cand_raw);
                    if (evaluate(&w, &cand, cand_data, cand_raw, limit, 0) <= limit) {
                        any = 1;
                        if (cost_bits(&cand, wd) < cost_bits(&best, wd)) best = cand, best_shift = s, best_bits = ST_PACK_RAW;
                    }
                }
                for (int sg = 0; sg < 2; sg++) {
                    const int flag = sg ? ST_PACK_SEG : 0;
                    if (sg && st_ptrack_keys((uint32_t)K, s) <= ST_SEG_KEYS) break;
                    build(vals, K, chn, s, flag | ST_PACK_MAX_BITS, &cand, cand_data, cand_raw);
                    if (evaluate(&w, &cand, cand_data, cand_raw, limit, 0) > limit) continue;
                    any = 1;
                    int lo = 1, hi = ST_PACK_MAX_BITS;
                    while (lo < hi) {
                        int mid = (lo + hi) / 2;
                        build(vals, K, chn, s, flag | mid, &cand, cand_data, cand_raw);
                        if (evaluate(&w, &cand, cand_data, cand_raw, limit, 0) <= limit) hi = mid;
                        else lo = mid + 1;
                    }
                    build(vals, K, chn, s, flag | lo, &cand, cand_data, cand_raw);
                    if (cost_bits(&cand, wd) < cost_bits(&best, wd)) best = cand, best_shift = s, best_bits = flag | lo;
                }
                if (!any && s > 0) break;
            }
            /* keep the choice's keys and apply it */
            build(vals, K, chn, best_shift, best_bits, &best, cand_data, cand_raw);
            best.joint = (uint16_t)j;
            o->t = best;
            if (best_bits == ST_PACK_RAW) {
                o->raw_floats = (size_t)best.n * (size_t)wd;
                if (!(o->raw = st_alloc(&al, sizeof(float) * o->raw_floats, 16))) { st = st_fail(err, STANCE_ERR_MEMORY, "compress: allocation failed"); break; }
                memcpy(o->raw, cand_raw, sizeof(float) * o->raw_floats);
                evaluate(&w, &best, NULL, o->raw, DBL_MAX, 1);
            } else {
                o->data_bytes = st_ptrack_bytes(best.n, best_bits) + 4;
                if (!(o->data = st_alloc(&al, o->data_bytes, 16))) { st = st_fail(err, STANCE_ERR_MEMORY, "compress: allocation failed"); break; }
                memcpy(o->data, cand_data, o->data_bytes);
                evaluate(&w, &best, o->data, NULL, DBL_MAX, 1);
            }
            nch++;
        }
    }
    if (!st) {
        /* the error of this result, over every joint and point, and its cost */
        double worst = 0.0;
        for (int e = 0; e < E; e++)
            for (int j = 0; j < J; j++) {
                double err1 = vertex_error(w.mod + ((size_t)e * (size_t)J + (size_t)j) * 12, w.ref + ((size_t)e * (size_t)J + (size_t)j) * 9, dist);
                if (err1 > worst) worst = err1;
            }
        size_t cost = 0;
        for (int i = 0; i < nch; i++) cost += ch[i].constant ? 32u * ch[i].raw_floats : cost_bits(&ch[i].t, ch[i].t.channel == 1 ? 4 : 3);
        if (best_n < 0 || cost < best_cost) {
            chosen *tmp = best_ch;
            best_ch = ch, ch = tmp;
            int tn = best_n;
            best_n = nch, nch = tn < 0 ? 0 : tn;
            best_cost = cost, best_worst = worst;
        }
    }
    release(&al, ch, nch); /* the losing attempt's keys */
    nch = 0;
    }
    ch = best_ch, nch = best_n < 0 ? 0 : best_n;

    /* The second search: a bit rate per segment for the same moving tracks
     * (st_compress_vbr); the cheaper result is kept when its error, measured
     * on the built clip, is within the tolerance. */
    int T = 0;
    for (int i = 0; i < nch; i++) T += !ch[i].constant;
    chosen *vch = NULL;
    const float **vv = NULL;
    float *vbuf = NULL;
    int use_vbr = 0;
    if (!st && T > 0 && K > 1) {
        vch = st_alloc(&al, sizeof(chosen) * (size_t)T, 64);
        vv = st_alloc(&al, sizeof(float *) * (size_t)T, 64);
        vbuf = st_alloc(&al, sizeof(float) * 4 * (size_t)K * (size_t)T, 64);
        if (!vch || !vv || !vbuf) st = st_fail(err, STANCE_ERR_MEMORY, "compress: clip '%s': allocation failed", c->name);
        size_t old_cost = 0;
        for (int i = 0, m = 0; i < nch && !st; i++) {
            if (ch[i].constant) continue;
            const int chn = ch[i].t.channel, j = ch[i].t.joint, wd = chn == 1 ? 4 : 3;
            memset(&vch[m], 0, sizeof vch[m]);
            vch[m].t.joint = (uint16_t)j, vch[m].t.channel = (uint8_t)chn;
            float *v = vbuf + 4 * (size_t)K * (size_t)m;
            for (int g = 0; g < K; g++) {
                const float *blk = blocks[chn] + (size_t)(nblk[chn] > 1 ? g : 0) * (size_t)wd * (size_t)pc;
                for (int e = 0; e < wd; e++) v[(size_t)g * (size_t)wd + (size_t)e] = blk[(size_t)e * (size_t)pc + (size_t)j];
            }
            vv[m++] = v;
            old_cost += cost_bits(&ch[i].t, wd);
        }
        if (!st) {
            double share[STANCE_MAX_JOINTS];
            for (int j = 0; j < J; j++) share[j] = (double)(depth[j] + 1) / (below[j] + 1);
            init_points(&w, &pose);
            size_t vcost = 0;
            stance_error e2;
            stance_status vs = st_compress_vbr(&w, T, vch, vv, (double)tol, share, &al, &vcost, &e2);
            if (vs == STANCE_ERR_MEMORY) st = st_fail(err, vs, "%s", e2.message);
            else use_vbr = vs == STANCE_OK && vcost < old_cost;
        }
    }

    for (int attempt = use_vbr ? 0 : 1; attempt < 2 && !st; attempt++) {
        const int vbr = attempt == 0;
        double worst = best_worst;
        st_ptrack_desc *td = ptr[A_TR];
        for (int i = 0, m = 0; i < nch; i++) {
            st_ptrack_desc *t = &td[i];
            memset(t, 0, sizeof *t);
            t->joint = ch[i].t.joint, t->channel = ch[i].t.channel;
            if (ch[i].constant) {
                t->bits = 0, t->values = ch[i].raw;
                continue;
            }
            const chosen *o = vbr ? &vch[m++] : &ch[i];
            t->shift = o->t.shift, t->bits = o->t.bits;
            for (int k = 0; k < 3; k++) t->min[k] = o->t.min[k], t->ext[k] = o->t.ext[k];
            t->values = o->raw, t->data = o->data;
            if (vbr) t->data_bytes = o->data_bytes - 4; /* the stream, without the reader's padding */
        }
        stance_event_desc ev[STANCE_MAX_EVENTS];
        for (int i = 0; i < c->event_count; i++) ev[i].name = c->events[i].name, ev[i].time = c->events[i].time;
        st_packed_desc d;
        memset(&d, 0, sizeof d);
        d.name = c->name, d.duration = c->duration, d.slerp = c->slerp;
        d.key_count = K, d.times = c->times;
        d.track_count = nch, d.tracks = td;
        d.event_count = c->event_count, d.events = ev;
        /* joint 0's translation is the root path: derived from the stored track */
        if (c->root_from_joint0) d.root_key_count = 0;
        else d.root_key_count = c->root_key_count, d.root_times = c->root_times, d.root_values = c->root_values, d.root_yaw = c->root_yaw,
             d.root_rotation = c->root_rotation;
        d.root_from_joint0 = c->root_from_joint0, d.root_speed = c->root_speed;
        d.max_error = (float)worst, d.vertex_distance = dist;
        st = st_clip_create_packed(&d, sk, &al, out, err);
        if (st || !vbr) break;
        worst = measure_clip(&w, *out, &pose);
        if (worst <= (double)tol) {
            ((st_packed *)(uintptr_t)(*out)->packed)->max_error = (float)worst;
            break;
        }
        stance_clip_destroy(*out); /* over the tolerance after all: the first search's result */
        *out = NULL;
    }
    if (vch) release(&al, vch, T);
    if (vch) st_free(&al, vch, sizeof(chosen) * (size_t)T);
    if (vv) st_free(&al, vv, sizeof(float *) * (size_t)T);
    if (vbuf) st_free(&al, vbuf, sizeof(float) * 4 * (size_t)K * (size_t)T);
    release(&al, ch, nch);
    fail_free(&al, ptr, size, A_N, STANCE_OK);
    return st;
}

stance_status stance_asset_compress(stance_asset *a, const stance_compress_settings *set, stance_error *err) {
    if (!a || !a->skeleton) return st_fail(err, STANCE_ERR_ARGUMENT, "compress: asset or its skeleton is NULL");
    if (a->graph) return st_fail(err, STANCE_ERR_ARGUMENT, "compress: the asset has a graph playing its clips; compress before building it");
    for (int i = 0; i < a->clip_count; i++) {
        if (!a->clips[i] || a->clips[i]->packed) continue;
        stance_clip *z = NULL;
        stance_status s = stance_clip_compress(a->clips[i], a->skeleton, set, &a->allocator, &z, err);
        if (s) return s;
        stance_clip_destroy(a->clips[i]);
        a->clips[i] = z;
    }
    return st_ok(err);
}
