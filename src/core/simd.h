/* src/core/simd.h - the one place with intrinsics: 4 floats at once (SSE2
 * on x86-64, the portable default; with -DSTANCE_AVX2=ON the compiler emits
 * VEX/FMA forms of the same code), and the scalar form of the same
 * operations everywhere else (WebAssembly, other CPUs, -DSTANCE_SCALAR).
 * The SoA pose loops in pose.c and evaluate.c use these on blocks of 4
 * joints; tests/test_simd.c checks them against scalar references.
 * Owns no state. */
#ifndef STANCE_SIMD_H
#define STANCE_SIMD_H

#include <math.h>

#if defined(__SSE2__) && !defined(STANCE_SCALAR)
#include <emmintrin.h>
#define SV_SSE2 1
typedef __m128 sv4;
static inline sv4 sv_load(const float *p) { return _mm_loadu_ps(p); }
static inline void sv_store(float *p, sv4 a) { _mm_storeu_ps(p, a); }
static inline sv4 sv_set1(float x) { return _mm_set1_ps(x); }
static inline sv4 sv_add(sv4 a, sv4 b) { return _mm_add_ps(a, b); }
static inline sv4 sv_sub(sv4 a, sv4 b) { return _mm_sub_ps(a, b); }
static inline sv4 sv_mul(sv4 a, sv4 b) { return _mm_mul_ps(a, b); }
static inline sv4 sv_div(sv4 a, sv4 b) { return _mm_div_ps(a, b); }
static inline sv4 sv_sqrt(sv4 a) { return _mm_sqrt_ps(a); }
static inline sv4 sv_signbits(sv4 a) { return _mm_and_ps(a, _mm_set1_ps(-0.0f)); }
/* |mag| with the sign of sgn */
static inline sv4 sv_copysign(sv4 mag, sv4 sgn) {
    const sv4 m = _mm_set1_ps(-0.0f);
    return _mm_or_ps(_mm_andnot_ps(m, mag), _mm_and_ps(m, sgn));
}
/* a with its sign flipped where s has the sign bit set */
static inline sv4 sv_xorsign(sv4 a, sv4 s) { return _mm_xor_ps(a, sv_signbits(s)); }
static inline sv4 sv_min(sv4 a, sv4 b) { return _mm_min_ps(a, b); }
static inline sv4 sv_max(sv4 a, sv4 b) { return _mm_max_ps(a, b); }
/* 1 where a == 0, else 0 */
static inline sv4 sv_is0(sv4 a) { return _mm_and_ps(_mm_cmpeq_ps(a, _mm_setzero_ps()), _mm_set1_ps(1.0f)); }
/* where m (a comparison) holds take a, else b */
static inline sv4 sv_le(sv4 a, sv4 b) { return _mm_cmple_ps(a, b); }
static inline sv4 sv_ge(sv4 a, sv4 b) { return _mm_cmpge_ps(a, b); }
static inline sv4 sv_select(sv4 m, sv4 a, sv4 b) { return _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b)); }
#else
typedef struct sv4 { float v[4]; } sv4;
#define SV_EACH(expr) do { for (int i_ = 0; i_ < 4; i_++) { expr; } } while (0)
static inline sv4 sv_load(const float *p) { sv4 r; SV_EACH(r.v[i_] = p[i_]); return r; }
static inline void sv_store(float *p, sv4 a) { SV_EACH(p[i_] = a.v[i_]); }
static inline sv4 sv_set1(float x) { sv4 r; SV_EACH(r.v[i_] = x); return r; }
static inline sv4 sv_add(sv4 a, sv4 b) { SV_EACH(a.v[i_] += b.v[i_]); return a; }
static inline sv4 sv_sub(sv4 a, sv4 b) { SV_EACH(a.v[i_] -= b.v[i_]); return a; }
static inline sv4 sv_mul(sv4 a, sv4 b) { SV_EACH(a.v[i_] *= b.v[i_]); return a; }
static inline sv4 sv_div(sv4 a, sv4 b) { SV_EACH(a.v[i_] /= b.v[i_]); return a; }
static inline sv4 sv_sqrt(sv4 a) { SV_EACH(a.v[i_] = sqrtf(a.v[i_])); return a; }
static inline sv4 sv_copysign(sv4 mag, sv4 sgn) { SV_EACH(mag.v[i_] = copysignf(mag.v[i_], sgn.v[i_])); return mag; }
static inline sv4 sv_xorsign(sv4 a, sv4 s) { SV_EACH(a.v[i_] = signbit(s.v[i_]) ? -a.v[i_] : a.v[i_]); return a; }
static inline sv4 sv_min(sv4 a, sv4 b) { SV_EACH(a.v[i_] = a.v[i_] < b.v[i_] ? a.v[i_] : b.v[i_]); return a; }
static inline sv4 sv_max(sv4 a, sv4 b) { SV_EACH(a.v[i_] = a.v[i_] > b.v[i_] ? a.v[i_] : b.v[i_]); return a; }
static inline sv4 sv_is0(sv4 a) { SV_EACH(a.v[i_] = a.v[i_] == 0.0f ? 1.0f : 0.0f); return a; }
/* comparisons give 1 (true) or 0 per lane; select takes a where the lane is non-zero */
static inline sv4 sv_le(sv4 a, sv4 b) { SV_EACH(a.v[i_] = a.v[i_] <= b.v[i_] ? 1.0f : 0.0f); return a; }
static inline sv4 sv_ge(sv4 a, sv4 b) { SV_EACH(a.v[i_] = a.v[i_] >= b.v[i_] ? 1.0f : 0.0f); return a; }
static inline sv4 sv_select(sv4 m, sv4 a, sv4 b) { SV_EACH(a.v[i_] = m.v[i_] != 0.0f ? a.v[i_] : b.v[i_]); return a; }
#endif

/* lanes b[i[0]], .., b[i[3]] / b[i[k]] = lane k, in lane order (a repeated
 * index takes the last lane, which holds the same value in our uses) */
static inline sv4 sv_gather(const float *b, const short *i) {
#if defined(SV_SSE2)
    return _mm_set_ps(b[i[3]], b[i[2]], b[i[1]], b[i[0]]);
#else
    sv4 r;
    SV_EACH(r.v[i_] = b[i[i_]]);
    return r;
#endif
}
static inline void sv_scatter(float *b, const short *i, sv4 a) {
    float t[4];
    sv_store(t, a);
    b[i[0]] = t[0], b[i[1]] = t[1], b[i[2]] = t[2], b[i[3]] = t[3];
}

static inline sv4 sv_madd(sv4 a, sv4 b, sv4 c) { return sv_add(sv_mul(a, b), c); } /* a * b + c */
static inline sv4 sv_dot4(sv4 ax, sv4 ay, sv4 az, sv4 aw, sv4 bx, sv4 by, sv4 bz, sv4 bw) {
    return sv_add(sv_add(sv_mul(ax, bx), sv_mul(ay, by)), sv_add(sv_mul(az, bz), sv_mul(aw, bw)));
}

/* ---- blocks of floats (n a multiple of 4) ---------------------------------- */

/* o = p * w */
static inline void sv_block_scale(float *o, const float *p, float w, int n) {
    const sv4 vw = sv_set1(w);
    for (int i = 0; i < n; i += 4) sv_store(o + i, sv_mul(sv_load(p + i), vw));
}
/* o += p * w */
static inline void sv_block_add(float *o, const float *p, float w, int n) {
    const sv4 vw = sv_set1(w);
    for (int i = 0; i < n; i += 4) sv_store(o + i, sv_madd(sv_load(p + i), vw, sv_load(o + i)));
}
/* Rotations of n joints (4 blocks of stride floats, x.. y.. z.. w..):
 * o += w * p, p's sign flipped where it points away from o. */
static inline void sv_block_add_rot(float *o, const float *p, float w, int n, int stride) {
    const sv4 vw = sv_set1(w);
    for (int i = 0; i < n; i += 4) {
        sv4 ox = sv_load(o + i), oy = sv_load(o + stride + i), oz = sv_load(o + 2 * stride + i), ow = sv_load(o + 3 * stride + i);
        sv4 px = sv_load(p + i), py = sv_load(p + stride + i), pz = sv_load(p + 2 * stride + i), pw = sv_load(p + 3 * stride + i);
        sv4 ws = sv_xorsign(vw, sv_dot4(ox, oy, oz, ow, px, py, pz, pw));
        sv_store(o + i, sv_madd(px, ws, ox));
        sv_store(o + stride + i, sv_madd(py, ws, oy));
        sv_store(o + 2 * stride + i, sv_madd(pz, ws, oz));
        sv_store(o + 3 * stride + i, sv_madd(pw, ws, ow));
    }
}
/* Two poses at once (one pass): o = a wa + b wb over n floats (n a
 * multiple of 8: two vectors a step). o may be a. */
static inline void sv_block_lerp2(float *o, const float *a, const float *b, float wa, float wb, int n) {
    const sv4 va = sv_set1(wa), vb = sv_set1(wb);
    for (int i = 0; i < n; i += 8) {
        const sv4 r0 = sv_madd(sv_load(b + i), vb, sv_mul(sv_load(a + i), va));
        const sv4 r1 = sv_madd(sv_load(b + i + 4), vb, sv_mul(sv_load(a + i + 4), va));
        sv_store(o + i, r0);
        sv_store(o + i + 4, r1);
    }
}
/* Rotations of n joints: o = normalize(a wa + b wb), b's sign flipped
 * where it points away from a; a zero sum becomes the identity. o may be a. */
static inline void sv_block_nlerp2(float *o, const float *a, const float *b, float wa, float wb, int n, int stride) {
    const sv4 va = sv_set1(wa), vb = sv_set1(wb), one = sv_set1(1.0f);
    for (int i = 0; i < n; i += 4) {
        sv4 x = sv_mul(sv_load(a + i), va), y = sv_mul(sv_load(a + stride + i), va);
        sv4 z = sv_mul(sv_load(a + 2 * stride + i), va), w = sv_mul(sv_load(a + 3 * stride + i), va);
        const sv4 bx = sv_load(b + i), by = sv_load(b + stride + i), bz = sv_load(b + 2 * stride + i), bw = sv_load(b + 3 * stride + i);
        const sv4 ws = sv_xorsign(vb, sv_dot4(x, y, z, w, bx, by, bz, bw));
        x = sv_madd(bx, ws, x), y = sv_madd(by, ws, y), z = sv_madd(bz, ws, z), w = sv_madd(bw, ws, w);
        sv4 l2 = sv_dot4(x, y, z, w, x, y, z, w);
        const sv4 zero = sv_is0(l2);
        w = sv_add(w, zero);
        l2 = sv_add(l2, zero);
        const sv4 inv = sv_div(one, sv_sqrt(l2));
        sv_store(o + i, sv_mul(x, inv));
        sv_store(o + stride + i, sv_mul(y, inv));
        sv_store(o + 2 * stride + i, sv_mul(z, inv));
        sv_store(o + 3 * stride + i, sv_mul(w, inv));
    }
}

/* Normalizes the rotations of n joints; a zero quaternion becomes the identity. */
static inline void sv_block_normalize_rot(float *q, int n, int stride) {
    const sv4 one = sv_set1(1.0f);
    for (int i = 0; i < n; i += 4) {
        sv4 x = sv_load(q + i), y = sv_load(q + stride + i), z = sv_load(q + 2 * stride + i), w = sv_load(q + 3 * stride + i);
        sv4 l2 = sv_dot4(x, y, z, w, x, y, z, w);
        /* zero length: (0,0,0,1) (w gets 1 added where l2 is 0, so it normalizes to 1) */
        sv4 zero = sv_is0(l2);
        w = sv_add(w, zero);
        l2 = sv_add(l2, zero);
        sv4 inv = sv_div(one, sv_sqrt(l2));
        sv_store(q + i, sv_mul(x, inv));
        sv_store(q + stride + i, sv_mul(y, inv));
        sv_store(q + 2 * stride + i, sv_mul(z, inv));
        sv_store(q + 3 * stride + i, sv_mul(w, inv));
    }
}

#endif
