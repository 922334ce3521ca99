/* src/build/clip_compress_vbr.c - the compressor's second search: a bit rate
 * per segment of 16 keys for every moving track (ST_PACK_LAT, .stance v5),
 * rotations without their largest component (chosen per segment), every key
 * rounded to its track's lattice at the segment's step (clip_lattice.h: the
 * step U 2^-b, the same for the three components), the keys then coded by
 * prediction and Rice codes (lossless: the coding does not change the
 * values, only the bytes; the cost of a choice is its coded size). Segment by
 * segment, tracks parents first take the fewest bits that keep the error of
 * their subtree (descendants still exact) under their share of the
 * tolerance; then every track is lowered while the error of its subtree, all
 * tracks quantized, stays under the tolerance. The segment's evaluation
 * points are those after the previous segment's last key up to its own last
 * key, so the interval joining two segments is checked with both final.
 * Creation time only; allocates its working set from the caller's allocator
 * (st_compress_vbr_bytes). */
#include <float.h>

#include "build/clip_compress.h"
#include "core/math/smath.h"
#include "core/clip/clip_lattice.h"

typedef struct vtrack {
    int joint, ch, w, off;     /* off: first float of the channel in a local pose of 10 */
    const float *vals;         /* K x w */
    float *trip;               /* K x 3: the stored components (rotations: largest one dropped, sign fixed) */
    float *dec;                /* K x 4: keys as decoded (exact for segments not chosen yet) */
    unsigned char *stream;     /* codes[S] */
    uint32_t *Q;               /* K x 3: the keys on the lattice (clip_lattice.h) */
    st_lat_hist hs[3];         /* the coder's history after the segments chosen so far */
    int ob, odrop, stored[3];  /* their last bits and dropped component; components with ext > 0 */
    size_t bit;                /* coded bits of the segments chosen so far */
    float min[3], ext[3];
    int b;                     /* the current segment's bits */
    double part;               /* of its joint's share: (its index + 1) / tracks of the joint */
} vtrack;

#ifndef VBR_GAMMAS
#define VBR_GAMMAS 3 /* also try the parents-first shares ((depth + 1) / (deepest + 1))^gamma, 1..3 of them */
#endif
#ifndef VBR_MARGIN
#define VBR_MARGIN 0.995
#endif

#define MAXB ST_LAT_MAX_BITS

static size_t stream_cap(uint32_t S) { return (size_t)S + 8u; }

static size_t model_bytes(int T, int J);

size_t st_compress_vbr_bytes(int T, int K, int J) {
    const uint32_t S = st_vbr_segments((uint32_t)K);
    return (size_t)T * (sizeof(vtrack) + sizeof(float) * 7 * (size_t)K + sizeof(uint32_t) * 3 * (size_t)K + stream_cap(S) + 4 * 64) +
           model_bytes(T, J);
}
static size_t model_bytes(int T, int J) { return sizeof(double) * (size_t)T * (MAXB + 1) * (size_t)J + (size_t)T * (size_t)J; }

/* Segment s of track t at b bits: its code, its keys on the lattice, their decoded values. */
static void encode_segment(vtrack *t, uint32_t K, uint32_t s, int b, int drop) {
    const uint32_t m = st_vbr_seg_keys(K, s), k0 = s * ST_SEG_KEYS;
    const float step = st_lat_step(t->ext, b);
    const double top = ldexp(1.0, b);
    t->stream[s] = (unsigned char)(b | drop << 5);
    uint32_t lo[3] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
    for (uint32_t i = k0; i < k0 + m; i++)
        for (int c = 0; c < 3; c++) {
            double q = 0.0;
            if (t->stored[c]) q = floor(((double)t->trip[3 * (size_t)i + (size_t)c] - (double)t->min[c]) / (double)step + 0.5);
            q = q < 0.0 ? 0.0 : q > top ? top : q;
            t->Q[3 * (size_t)i + (size_t)c] = (uint32_t)q;
            if ((uint32_t)q < lo[c]) lo[c] = (uint32_t)q;
        }
    for (uint32_t i = k0; i < k0 + m; i++) {
        float x[3], *v = t->dec + 4 * (size_t)i;
        for (int c = 0; c < 3; c++) {
            float off, scale;
            st_lat_param(t->min[c], step, lo[c], &off, &scale);
            x[c] = off + scale * (float)(t->Q[3 * (size_t)i + (size_t)c] - lo[c]);
        }
        if (t->w == 3) {
            v[0] = x[0], v[1] = x[1], v[2] = x[2];
            continue;
        }
        float l = 1.0f - (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        for (int c = 0, k = 0; c < 4; c++) v[c] = c == drop ? (l > 0.0f ? sqrtf(l) : 0.0f) : x[k++];
    }
}

/* The coded bits of segment s of t as encoded now, after the segments
 * chosen so far; commit: they become chosen. */
static size_t segment_bits(vtrack *t, uint32_t K, uint32_t s, int commit) {
    const int b = t->stream[s] & 31, drop = t->stream[s] >> 5 & 3;
    st_lat_hist hs[3];
    memcpy(hs, t->hs, sizeof hs);
    for (int c = 0; c < 3 && t->ob >= 0; c++) st_lat_rebase(&hs[c], t->ob, b, drop != t->odrop);
    st_bitw w = {NULL, 0};
    const size_t n = st_lat_put_segment(&w, hs, t->Q + 3 * (size_t)s * ST_SEG_KEYS, st_vbr_seg_keys(K, s), b, t->stored);
    if (commit) {
        memcpy(t->hs, hs, sizeof hs);
        t->ob = b, t->odrop = drop, t->bit += n;
    }
    return n;
}

/* The track's exact keys of segment s in dec (as if not quantized). */
static void exact_segment(vtrack *t, uint32_t K, uint32_t s) {
    const uint32_t m = st_vbr_seg_keys(K, s), k0 = s * ST_SEG_KEYS;
    for (uint32_t i = k0; i < k0 + m; i++) memcpy(t->dec + 4 * (size_t)i, t->vals + (size_t)t->w * i, sizeof(float) * (size_t)t->w);
}

/* Track t's channel at evaluation point e from dec. */
static void track_value(const work *w, const vtrack *t, int e, float *v) {
    const int NS = ST_PACK_MAX_SHIFT + 1;
    const uint32_t k = w->ia[e * NS], k1 = w->K > 1 ? k + 1 : k;
    float a[4], b[4];
    memcpy(a, t->dec + 4 * (size_t)k, sizeof a);
    memcpy(b, t->dec + 4 * (size_t)k1, sizeof b);
    st_key_interp(t->w == 4, a, b, w->fr[e * NS], w->clip->slerp, v);
}

/* loc (tracked channels) and mod of every joint at points e0..e1 from dec. */
static void refresh(work *w, vtrack *tr, int T, int e0, int e1) {
    const int J = w->J;
    for (int e = e0; e <= e1; e++) {
        float *le = w->loc + (size_t)e * (size_t)J * 10;
        double *me = w->mod + (size_t)e * (size_t)J * 12;
        for (int i = 0; i < T; i++) track_value(w, &tr[i], e, le + (size_t)tr[i].joint * 10 + tr[i].off);
        for (int j = 0; j < J; j++) {
            int p = w->sk->parents[j];
            model_of(w, e, j, le + (size_t)j * 10, p >= 0 ? me + (size_t)p * 12 : NULL, me + (size_t)j * 12);
        }
    }
}

/* Largest error over the subtree in w->sub at e0..e1 with track t from dec
 * (stops past limit unless apply; apply writes loc and mod). */
static double eval_track(work *w, const vtrack *t, int e0, int e1, double limit, int apply) {
    const int J = w->J, j = w->sub[0];
    double worst = 0.0;
    for (int e = e0; e <= e1; e++) {
        float l[10];
        memcpy(l, w->loc + ((size_t)e * (size_t)J + (size_t)j) * 10, sizeof l);
        track_value(w, t, e, l + t->off);
        worst = st_compress_key_error(w, e, l, t->off, t->w, worst, limit, apply);
        if (worst > limit && !apply) return worst;
    }
    return worst;
}

/* The largest error of every joint of the subtree in w->sub at e0..e1 with
 * track t from dec, others as they are: errs[j] (joints of the subtree). */
static void eval_joints(work *w, const vtrack *t, int e0, int e1, double *errs) {
    const int J = w->J, j = w->sub[0], parent = w->sk->parents[j];
    for (int i = 0; i < w->sub_n; i++) errs[w->sub[i]] = 0.0;
    for (int e = e0; e <= e1; e++) {
        float *le = w->loc + (size_t)e * (size_t)J * 10;
        double *me = w->mod + (size_t)e * (size_t)J * 12, *re = w->ref + (size_t)e * (size_t)J * 9, *out = w->tmp;
        float l[10];
        memcpy(l, le + (size_t)j * 10, sizeof l);
        track_value(w, t, e, l + t->off);
        model_of(w, e, j, l, parent >= 0 ? me + (size_t)parent * 12 : NULL, out + (size_t)j * 12);
        errs[j] = fmax(errs[j], vertex_error(out + (size_t)j * 12, re + (size_t)j * 9, w->dist));
        for (int i = 1; i < w->sub_n; i++) {
            int d = w->sub[i], p = w->sk->parents[d];
            model_of(w, e, d, le + (size_t)d * 10, out + (size_t)p * 12, out + (size_t)d * 12);
            errs[d] = fmax(errs[d], vertex_error(out + (size_t)d * 12, re + (size_t)d * 9, w->dist));
        }
    }
}

/* Bits for segment s from a model: the error each track alone causes at
 * each joint for every bit rate (others exact), summed along the chain; a
 * greedy raise of the track that removes the most excess, until every
 * joint's sum is under lim. Leaves the tracks encoded at those bits. */
static void model_bits(work *w, vtrack *tr, int T, uint32_t s, int ek, int e1, double lim, const unsigned char *drops,
                       uint32_t S, double *Em, const unsigned char *anc) {
    const int J = w->J, NB = MAXB + 1;
    const uint32_t K = (uint32_t)w->K;
    for (int a = 0; a < T; a++) {
        vtrack *t = &tr[a];
        double *E = Em + (size_t)a * (size_t)NB * (size_t)J;
        memset(E, 0, sizeof(double) * (size_t)NB * (size_t)J);
        st_compress_subtree(w, t->joint);
        int b = 0;
        for (; b < NB; b++) {
            encode_segment(t, K, s, b, drops[(size_t)a * S + s]);
            eval_joints(w, t, ek, e1, E + (size_t)b * (size_t)J);
            double m = 0.0;
            for (int i = 0; i < w->sub_n; i++) m = fmax(m, E[(size_t)b * (size_t)J + (size_t)w->sub[i]]);
            if (m < 1e-3 * lim) break;
        }
        for (int c = b + 1; c < NB; c++) memcpy(E + (size_t)c * (size_t)J, E + (size_t)b * (size_t)J, sizeof(double) * (size_t)J);
        exact_segment(t, K, s);
        t->b = 0;
    }
    double excess[STANCE_MAX_JOINTS];
    for (;;) {
        int worst = -1;
        for (int j = 0; j < J; j++) {
            double sum = 0.0;
            for (int a = 0; a < T; a++)
                if (anc[(size_t)j * (size_t)T + (size_t)a]) sum += Em[((size_t)a * (size_t)NB + (size_t)tr[a].b) * (size_t)J + (size_t)j];
            excess[j] = sum - lim;
            if (excess[j] > 0.0 && (worst < 0 || excess[j] > excess[worst])) worst = j;
        }
        if (worst < 0) break;
        int pick = -1;
        double gain_best = -1.0;
        for (int a = 0; a < T; a++) {
            if (!anc[(size_t)worst * (size_t)T + (size_t)a] || tr[a].b >= MAXB) continue;
            const double *E0 = Em + ((size_t)a * (size_t)NB + (size_t)tr[a].b) * (size_t)J, *E1 = E0 + J;
            double gain = 0.0;
            for (int j = 0; j < J; j++)
                if (excess[j] > 0.0 && anc[(size_t)j * (size_t)T + (size_t)a]) gain += fmin(excess[j], E0[j] - E1[j]);
            if (gain > gain_best) gain_best = gain, pick = a;
        }
        if (pick < 0) break;
        tr[pick].b++;
    }
    for (int a = 0; a < T; a++) encode_segment(&tr[a], K, s, tr[a].b, drops[(size_t)a * S + s]);
}

/* Prepares track t: stored components, dropped component per segment, the
 * track's range and each segment's head. drops: S bytes. */
static void prepare(vtrack *t, uint32_t K, unsigned char *drops) {
    const uint32_t S = st_vbr_segments(K);
    float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    for (uint32_t s = 0; s < S; s++) {
        const uint32_t k0 = s * ST_SEG_KEYS, m = st_vbr_seg_keys(K, s);
        int drop = 0;
        if (t->w == 4) { /* the component whose smallest magnitude is the largest */
            float best = -1.0f;
            for (int c = 0; c < 4; c++) {
                float least = FLT_MAX;
                for (uint32_t i = k0; i < k0 + m; i++) least = fminf(least, fabsf(t->vals[4 * (size_t)i + (size_t)c]));
                if (least > best) best = least, drop = c;
            }
        }
        drops[s] = (unsigned char)drop;
        for (uint32_t i = k0; i < k0 + m; i++) {
            const float *v = t->vals + (size_t)t->w * i;
            float *x = t->trip + 3 * (size_t)i;
            if (t->w == 3) {
                x[0] = v[0], x[1] = v[1], x[2] = v[2];
            } else {
                const float sg = v[drop] < 0.0f ? -1.0f : 1.0f;
                for (int c = 0, k = 0; c < 4; c++)
                    if (c != drop) x[k++] = fmaxf(-1.0f, fminf(1.0f, sg * v[c]));
            }
            for (int c = 0; c < 3; c++) lo[c] = fminf(lo[c], x[c]), hi[c] = fmaxf(hi[c], x[c]);
        }
    }
    for (int c = 0; c < 3; c++) {
        float ext = hi[c] - lo[c];
        while (ext > 0.0f && lo[c] + ext > (t->w == 4 ? 1.0f : FLT_MAX)) ext = nextafterf(ext, 0.0f);
        t->min[c] = lo[c], t->ext[c] = ext, t->stored[c] = ext > 0.0f;
    }
    t->ob = -1, t->odrop = -1;
}

static int tr_joint(const chosen *ch, int a) { return ch[a].t.joint; }

stance_status st_compress_vbr(work *w, int T, chosen *ch, const float *const *vals, double tol, const double *share,
                              stance_allocator *al, size_t *cost_bits, stance_error *err) {
    const uint32_t K = (uint32_t)w->K, S = st_vbr_segments(K);
    const int E = w->E;
    const size_t cap = stream_cap(S);
    stance_status st = STANCE_OK;
    double *Em = NULL;
    unsigned char *anc = NULL;
    vtrack *tr = st_alloc(al, sizeof(vtrack) * (size_t)(T ? T : 1), 64);
    unsigned char *drops = st_alloc(al, (size_t)S * (size_t)(T ? T : 1), 64);
    if (!tr || !drops) {
        st = st_fail(err, STANCE_ERR_MEMORY, "compress: allocation failed");
        goto out;
    }
    memset(tr, 0, sizeof(vtrack) * (size_t)(T ? T : 1));
    const int J = w->J;
    Em = st_alloc(al, model_bytes(T ? T : 1, J), 64);
    if (!Em) {
        st = st_fail(err, STANCE_ERR_MEMORY, "compress: allocation failed");
        goto out;
    }
    anc = (unsigned char *)(Em + (size_t)(T ? T : 1) * (MAXB + 1) * (size_t)J);
    for (int j = 0; j < J; j++)
        for (int a = 0; a < T; a++) {
            int x = j;
            while (x >= 0 && x != tr_joint(ch, a)) x = w->sk->parents[x];
            anc[(size_t)j * (size_t)T + (size_t)a] = x >= 0;
        }
    for (int i = 0; i < T; i++) {
        vtrack *t = &tr[i];
        t->joint = ch[i].t.joint, t->ch = ch[i].t.channel, t->w = t->ch == 1 ? 4 : 3;
        t->off = t->ch == 0 ? 0 : t->ch == 1 ? 3 : 7;
        t->vals = vals[i];
        t->trip = st_alloc(al, sizeof(float) * 3 * K, 64);
        t->dec = st_alloc(al, sizeof(float) * 4 * K, 64);
        t->stream = st_alloc(al, cap, 64);
        t->Q = st_alloc(al, sizeof(uint32_t) * 3 * K, 64);
        if (!t->trip || !t->dec || !t->stream || !t->Q) {
            st = st_fail(err, STANCE_ERR_MEMORY, "compress: allocation failed");
            goto out;
        }
        memset(t->stream, 0, cap);
        prepare(t, K, drops + (size_t)i * S);
        for (uint32_t s = 0; s < S; s++) exact_segment(t, K, s);
    }
    for (int i = 0; i < T; i++) {
        int idx = 0, cnt = 0;
        for (int k = 0; k < T; k++)
            if (tr[k].joint == tr[i].joint) cnt++, idx += k < i;
        tr[i].part = (double)(idx + 1) / cnt;
    }
    static const double gammas[3] = {1.0, 0.5, 0.25};
    int best_b[3 * STANCE_MAX_JOINTS];
    for (uint32_t s = 0; s < S && !st; s++) {
        const int e0 = s == 0 ? 0 : (int)((s * ST_SEG_KEYS - 1u) * SUB + 1u);
        int e1 = (int)((s * ST_SEG_KEYS + st_vbr_seg_keys(K, s) - 1u) * SUB);
        if (e1 > E - 1) e1 = E - 1;
        const int ek = (int)(s * ST_SEG_KEYS * SUB) < e1 ? (int)(s * ST_SEG_KEYS * SUB) : e1; /* the segment's first key */
        size_t best_cost = SIZE_MAX;
        for (int g = -1; g < VBR_GAMMAS && !st; g++) {
            for (int i = 0; i < T; i++) exact_segment(&tr[i], K, s);
            refresh(w, tr, T, e0, e1);
            if (g < 0) {
                model_bits(w, tr, T, s, ek, e1, VBR_MARGIN * tol, drops, S, Em, anc);
                refresh(w, tr, T, e0, e1);
            }
            for (int i = 0; i < T && g >= 0; i++) { /* parents first: the fewest bits under the share */
                vtrack *t = &tr[i];
                st_compress_subtree(w, t->joint);
                const double limit = VBR_MARGIN * tol * sm_pow(share[t->joint], gammas[g]) * t->part;
                const int drop = drops[(size_t)i * S + s];
                encode_segment(t, K, s, MAXB, drop);
                if (eval_track(w, t, ek, e1, limit, 0) > limit) { /* this share is too small: the next attempt */
                    t->b = -1;
                    break;
                }
                int lo = 0, hi = MAXB;
                while (lo < hi) {
                    int mid = (lo + hi) / 2;
                    encode_segment(t, K, s, mid, drop);
                    if (eval_track(w, t, ek, e1, limit, 0) <= limit) hi = mid;
                    else lo = mid + 1;
                }
                t->b = lo;
                encode_segment(t, K, s, lo, drop);
                eval_track(w, t, e0, e1, DBL_MAX, 1);
            }
            if (st) break;
            int failed = 0;
            for (int i = 0; i < T; i++) failed |= tr[i].b < 0;
            if (failed) continue;
            /* the interval from the previous segment too: raise a track until its subtree is under the tolerance */
            for (int i = 0; i < T && !failed && (e0 < ek || g < 0); i++) {
                vtrack *t = &tr[i];
                st_compress_subtree(w, t->joint);
                while (!failed && eval_track(w, t, e0, e1, VBR_MARGIN * tol, 0) > VBR_MARGIN * tol) {
                    if (t->b >= MAXB) {
                        failed = 1;
                        break;
                    }
                    encode_segment(t, K, s, ++t->b, drops[(size_t)i * S + s]);
                    eval_track(w, t, e0, e1, DBL_MAX, 1);
                }
            }
            if (failed) continue;
            /* lower each track while its subtree stays under the tolerance, most bits first */
            for (int again = 1; again;) {
                again = 0;
                int order = -1;
                for (int i = 0; i < T; i++)
                    if (tr[i].b > 0 && !(tr[i].b & 0x100) && (order < 0 || tr[i].b > tr[order].b)) order = i;
                if (order < 0) break;
                vtrack *t = &tr[order];
                const int drop = drops[(size_t)order * S + s], b = t->b;
                st_compress_subtree(w, t->joint);
                encode_segment(t, K, s, b - 1, drop);
                if (eval_track(w, t, e0, e1, VBR_MARGIN * tol, 0) <= VBR_MARGIN * tol) {
                    t->b = b - 1;
                    eval_track(w, t, e0, e1, DBL_MAX, 1);
                } else {
                    encode_segment(t, K, s, b, drop);
                    t->b = b | 0x100; /* done */
                }
                again = 1;
            }
            size_t cost = 0;
            for (int i = 0; i < T; i++) {
                tr[i].b &= 0xFF;
                cost += segment_bits(&tr[i], K, s, 0);
            }
            if (cost < best_cost) {
                best_cost = cost;
                for (int i = 0; i < T; i++) best_b[i] = tr[i].b;
            }
        }
        if (st) break;
        if (best_cost == SIZE_MAX) {
            st = st_fail(err, STANCE_ERR_VALUE, "compress: segment %u does not meet the tolerance at %d bits", (unsigned)s, MAXB);
            break;
        }
        for (int i = 0; i < T; i++) {
            encode_segment(&tr[i], K, s, best_b[i], drops[(size_t)i * S + s]);
            segment_bits(&tr[i], K, s, 1);
        }
        refresh(w, tr, T, e0, e1);
    }
    size_t cost = 0;
    for (int i = 0; i < T && !st; i++) {
        vtrack *t = &tr[i];
        const size_t body = (t->bit + 7u) / 8u, nb = (size_t)S + 4u + body;
        memset(&ch[i].t, 0, sizeof ch[i].t);
        ch[i].t.joint = (uint16_t)t->joint, ch[i].t.channel = (uint8_t)t->ch, ch[i].t.bits = ST_PACK_LAT, ch[i].t.n = K;
        for (int c = 0; c < 3; c++) ch[i].t.min[c] = t->min[c], ch[i].t.ext[c] = t->ext[c];
        ch[i].data_bytes = nb + 4;
        if (!(ch[i].data = st_alloc(al, ch[i].data_bytes, 16))) {
            st = st_fail(err, STANCE_ERR_MEMORY, "compress: allocation failed");
            break;
        }
        memset(ch[i].data, 0, ch[i].data_bytes);
        memcpy(ch[i].data, t->stream, S);
        for (int k = 0; k < 4; k++) ch[i].data[S + (size_t)k] = (unsigned char)(body >> (8 * k));
        /* the whole stream again, written: the coder's history from the start */
        st_bitw bw = {ch[i].data + S + 4u, 0};
        st_lat_hist hs[3];
        memset(hs, 0, sizeof hs);
        for (uint32_t g = 0, ob = 0, od = 0; g < S; g++) {
            const int b = t->stream[g] & 31, drop = t->stream[g] >> 5 & 3;
            for (int c = 0; c < 3 && g > 0; c++) st_lat_rebase(&hs[c], (int)ob, b, drop != (int)od);
            st_lat_put_segment(&bw, hs, t->Q + 3 * (size_t)g * ST_SEG_KEYS, st_vbr_seg_keys(K, g), b, t->stored);
            ob = (uint32_t)b, od = (uint32_t)drop;
        }
        cost += 192u + 8u * nb;
    }
    *cost_bits = cost;
out:
    for (int i = 0; tr && i < T; i++) {
        if (tr[i].trip) st_free(al, tr[i].trip, sizeof(float) * 3 * K);
        if (tr[i].dec) st_free(al, tr[i].dec, sizeof(float) * 4 * K);
        if (tr[i].stream) st_free(al, tr[i].stream, cap);
        if (tr[i].Q) st_free(al, tr[i].Q, sizeof(uint32_t) * 3 * K);
    }
    if (tr) st_free(al, tr, sizeof(vtrack) * (size_t)(T ? T : 1));
    if (Em) st_free(al, Em, model_bytes(T ? T : 1, w->J));
    if (drops) st_free(al, drops, (size_t)S * (size_t)(T ? T : 1));
    return st;
}
