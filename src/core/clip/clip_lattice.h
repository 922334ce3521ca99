/* src/core/clip/clip_lattice.h - the .stance v5 track stream ST_PACK_LAT: a bit
 * rate per segment of 16 keys on one lattice per track, the keys coded by
 * prediction and Rice codes. Shared by the compressor (src/build/clip_compress_vbr.c),
 * the runtime's expansion (clip_packed.c), the loader (asset_packed.c) and the writer (src/build/asset_write.c).
 * Not public API.
 *
 * Values: component c of a key is min[c] + step * Q, Q an integer in
 * 0..2^b, step = U 2^-b (U the largest ext[c] of the track, b the segment's
 * bits, 0..31), the same step for the three components; rotations store
 * three components of the key (the segment's dropped one rebuilt >= 0 as
 * sqrt(1 - the others^2), as ST_PACK_VBR). Components with ext[c] = 0 store
 * nothing (Q = 0).
 *
 * Stream (after the track's f32 min[3], ext[3]):
 *   u8 codes[S]     bits 0..4 b, bits 5..6 the dropped component (rotations;
 *                   0 otherwise), bit 7 zero
 *   u32 bytes       the bit stream's size
 *   bit stream      (LSB first) per segment: per stored component a 4-bit k,
 *                   then per key, per stored component, the code of
 *                   r = Q - P, P the prediction: 0 for the track's first key
 *                   and after the dropped component changes, the previous
 *                   Q after one key, else 2 Q[-1] - Q[-2] clamped to
 *                   0..2^b; previous keys of another bit rate are moved to
 *                   this one (times 2^d, or divided by 2^d rounding half up).
 *                   The code of u = zigzag(r) (2r, or -2r - 1): k = 15 none
 *                   (r = 0); else q = u >> k ones when q < 24, a zero, the
 *                   low k bits of u; or 24 ones and Q itself in b + 1 bits.
 * A decoded Q outside 0..2^b, a stream shorter than its codes or a bad code
 * byte is an error. Decoding runs at load and creation only; the sampler
 * reads the expanded keys (clip_packed.h). */
#ifndef STANCE_CLIP_LATTICE_H
#define STANCE_CLIP_LATTICE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/clip/clip_packed.h"

#define ST_PACK_LAT 0x82     /* track bits: the lattice stream (v5) */
#define ST_LAT_MAX_BITS 31
#define ST_LAT_ESC 24        /* a unary part this long escapes to Q itself */
#define ST_LAT_NONE 15       /* k: every residual of the component in the segment is 0 */
#define ST_LAT_KMAX 14

/* The lattice step at bits b: the largest ext times 2^-b (exact). */
static inline float st_lat_step(const float *ext, int b) {
    float u = ext[0] > ext[1] ? ext[0] : ext[1];
    u = u > ext[2] ? u : ext[2];
    return ldexpf(u, -b);
}

/* A component's history: the last two Q (on the lattice of bits `b`) and how many there are. */
typedef struct st_lat_hist {
    int64_t q1, q2;
    int h;
} st_lat_hist;

/* Moves a history to bits nb (and forgets it when the dropped component changed). */
static inline void st_lat_rebase(st_lat_hist *hs, int ob, int nb, int reset) {
    if (reset) {
        hs->h = 0;
        return;
    }
    const int64_t top = (int64_t)1 << nb;
    int64_t *v[2] = {&hs->q1, &hs->q2};
    for (int i = 0; i < 2; i++) {
        int64_t x = *v[i];
        if (nb > ob) x <<= nb - ob;
        else if (nb < ob) x = (x + ((int64_t)1 << (ob - nb - 1))) >> (ob - nb);
        *v[i] = x > top ? top : x;
    }
}

static inline int64_t st_lat_predict(const st_lat_hist *hs, int b) {
    if (hs->h == 0) return 0;
    if (hs->h == 1) return hs->q1;
    int64_t p = 2 * hs->q1 - hs->q2, top = (int64_t)1 << b;
    return p < 0 ? 0 : p > top ? top : p;
}

static inline void st_lat_push(st_lat_hist *hs, int64_t q) {
    hs->q2 = hs->q1, hs->q1 = q;
    if (hs->h < 2) hs->h++;
}

static inline uint64_t st_lat_zig(int64_t r) { return r >= 0 ? (uint64_t)r << 1 : ((uint64_t)(-(r + 1)) << 1) | 1u; }

/* Bits of one code (k 0..14). */
static inline size_t st_lat_code_bits(uint64_t u, int k, int b) {
    const uint64_t q = u >> k;
    return q < ST_LAT_ESC ? (size_t)q + 1u + (size_t)k : (size_t)ST_LAT_ESC + (size_t)b + 1u;
}

/* A bit writer (w->p NULL: counts only). */
typedef struct st_bitw {
    unsigned char *p;
    size_t pos;
} st_bitw;

static inline void st_bitw_put(st_bitw *w, uint64_t v, int n) {
    for (int i = 0; i < n; i++, w->pos++) {
        if (!w->p) continue;
        const unsigned char m = (unsigned char)(1u << (w->pos & 7u));
        if (v >> i & 1u) w->p[w->pos >> 3] |= m;
        else w->p[w->pos >> 3] &= (unsigned char)~m;
    }
}

static inline void st_lat_put_code(st_bitw *w, uint64_t u, int k, int b, int64_t q) {
    const uint64_t qu = u >> k;
    if (qu < ST_LAT_ESC) {
        for (uint64_t i = 0; i < qu; i++) st_bitw_put(w, 1u, 1);
        st_bitw_put(w, 0u, 1);
        st_bitw_put(w, u, k);
    } else {
        for (int i = 0; i < ST_LAT_ESC; i++) st_bitw_put(w, 1u, 1);
        st_bitw_put(w, (uint64_t)q, b + 1);
    }
}

/* Encodes (or counts, w->p NULL) one segment of m keys: Q[3 i + c], bits b,
 * components with stored[c]; updates the histories (already rebased to b).
 * Returns the bits written. */
static inline size_t st_lat_put_segment(st_bitw *w, st_lat_hist *hs, const uint32_t *Q, uint32_t m, int b,
                                        const int *stored) {
    const size_t at = w->pos;
    int k[3] = {ST_LAT_NONE, ST_LAT_NONE, ST_LAT_NONE};
    for (int c = 0; c < 3; c++) {
        if (!stored[c]) continue;
        size_t cost[ST_LAT_KMAX + 1] = {0};
        int any = 0;
        st_lat_hist t = hs[c];
        for (uint32_t i = 0; i < m; i++) {
            const int64_t q = (int64_t)Q[3 * i + (uint32_t)c], r = q - st_lat_predict(&t, b);
            any |= r != 0;
            const uint64_t u = st_lat_zig(r);
            for (int kk = 0; kk <= ST_LAT_KMAX; kk++) cost[kk] += st_lat_code_bits(u, kk, b);
            st_lat_push(&t, q);
        }
        if (!any) continue;
        k[c] = 0;
        for (int kk = 1; kk <= ST_LAT_KMAX; kk++)
            if (cost[kk] < cost[k[c]]) k[c] = kk;
    }
    for (int c = 0; c < 3; c++)
        if (stored[c]) st_bitw_put(w, (uint64_t)k[c], 4);
    for (uint32_t i = 0; i < m; i++)
        for (int c = 0; c < 3; c++) {
            if (!stored[c]) continue;
            const int64_t q = (int64_t)Q[3 * i + (uint32_t)c], r = q - st_lat_predict(&hs[c], b);
            if (k[c] != ST_LAT_NONE) st_lat_put_code(w, st_lat_zig(r), k[c], b, q);
            st_lat_push(&hs[c], q);
        }
    return w->pos - at;
}

/* A decoder over one track's stream. */
typedef struct st_lat_dec {
    const unsigned char *codes, *bits;
    size_t nbits, pos;
    uint32_t n, S, s;
    int rotation, stored[3], ob, odrop;
    st_lat_hist hs[3];
} st_lat_dec;

/* One decoded segment: Q[3 i + c] for its m keys, the least and largest Q per component. */
typedef struct st_lat_seg {
    uint32_t Q[3 * ST_SEG_KEYS];
    uint32_t lo[3], hi[3];
    uint32_t m;
    int b, drop;
} st_lat_seg;

/* Bytes of the stream of a track of n keys when `avail` bytes are readable
 * at p (0 when its codes or size do not fit). */
static inline size_t st_lat_bytes(uint32_t n, const unsigned char *p, size_t avail) {
    const size_t S = st_vbr_segments(n);
    if (avail < S + 4u) return 0;
    const size_t nb = (size_t)p[S] | (size_t)p[S + 1] << 8 | (size_t)p[S + 2] << 16 | (size_t)p[S + 3] << 24;
    return avail - S - 4u < nb ? 0 : S + 4u + nb;
}

/* Starts decoding the stream p (st_lat_bytes(n, p, ...) bytes). */
static inline void st_lat_begin(st_lat_dec *d, const unsigned char *p, uint32_t n, int rotation, const float *ext) {
    memset(d, 0, sizeof *d);
    d->S = st_vbr_segments(n), d->n = n, d->rotation = rotation;
    d->codes = p;
    d->bits = p + d->S + 4u;
    const size_t nb = (size_t)p[d->S] | (size_t)p[d->S + 1] << 8 | (size_t)p[d->S + 2] << 16 | (size_t)p[d->S + 3] << 24;
    d->nbits = 8u * nb;
    for (int c = 0; c < 3; c++) d->stored[c] = ext[c] > 0.0f;
    d->ob = -1, d->odrop = -1;
}

static inline int st_lat_get(st_lat_dec *d, int n, uint64_t *v) {
    if (d->nbits - d->pos < (size_t)n || d->pos > d->nbits) return -1;
    uint64_t x = 0;
    for (int i = 0; i < n; i++, d->pos++) x |= (uint64_t)(d->bits[d->pos >> 3] >> (d->pos & 7u) & 1u) << i;
    *v = x;
    return 0;
}

/* The next segment into o; -1 for a bad stream. */
static inline int st_lat_next(st_lat_dec *d, st_lat_seg *o) {
    if (d->s >= d->S) return -1;
    const unsigned code = d->codes[d->s];
    const int b = (int)(code & 31u), drop = (int)(code >> 5 & 3u);
    if ((code & 0x80u) || (!d->rotation && drop)) return -1;
    const int64_t top = (int64_t)1 << b;
    for (int c = 0; c < 3; c++)
        if (d->ob >= 0) st_lat_rebase(&d->hs[c], d->ob, b, drop != d->odrop);
    o->m = st_vbr_seg_keys(d->n, d->s);
    o->b = b, o->drop = drop;
    int k[3] = {ST_LAT_NONE, ST_LAT_NONE, ST_LAT_NONE};
    for (int c = 0; c < 3; c++) {
        uint64_t v = 0;
        if (d->stored[c] && st_lat_get(d, 4, &v)) return -1;
        k[c] = (int)v;
        if (k[c] > ST_LAT_KMAX && k[c] != ST_LAT_NONE) return -1;
        o->lo[c] = UINT32_MAX, o->hi[c] = 0;
    }
    for (uint32_t i = 0; i < o->m; i++)
        for (int c = 0; c < 3; c++) {
            int64_t q = 0;
            if (d->stored[c]) {
                const int64_t pr = st_lat_predict(&d->hs[c], b);
                q = pr;
                if (k[c] != ST_LAT_NONE) {
                    int ones = 0;
                    uint64_t bit = 1;
                    while (ones < ST_LAT_ESC) {
                        if (st_lat_get(d, 1, &bit)) return -1;
                        if (!bit) break;
                        ones++;
                    }
                    if (ones == ST_LAT_ESC) {
                        uint64_t raw;
                        if (st_lat_get(d, b + 1, &raw)) return -1;
                        q = (int64_t)raw;
                    } else {
                        uint64_t low;
                        if (st_lat_get(d, k[c], &low)) return -1;
                        const uint64_t u = (uint64_t)ones << k[c] | low;
                        const int64_t r = (u & 1u) ? -(int64_t)(u >> 1) - 1 : (int64_t)(u >> 1);
                        q = pr + r;
                    }
                }
                if (q < 0 || q > top) return -1;
                st_lat_push(&d->hs[c], q);
            }
            o->Q[3 * i + (uint32_t)c] = (uint32_t)q;
            if ((uint32_t)q < o->lo[c]) o->lo[c] = (uint32_t)q;
            if ((uint32_t)q > o->hi[c]) o->hi[c] = (uint32_t)q;
        }
    d->ob = b, d->odrop = drop;
    d->s++;
    return 0;
}

/* A decoded key's component from the segment's least Q: value = off + step (Q - lo),
 * off = min + step lo (one expression for the compressor and the runtime). */
static inline void st_lat_param(float min, float step, uint32_t lo, float *off, float *scale) {
    *off = min + step * (float)lo;
    *scale = step;
}

#endif
