/* src/core/math/simd.h - the one place with intrinsics: 4 floats at once (SSE2
 * on x86-64, the portable default; with -DSTANCE_AVX2=ON the compiler emits
 * VEX forms of the same code; NEON on ARM64 and WebAssembly SIMD128 (emcc
 * -msimd128), each hand-written to give SSE2's results bit for bit: no FMA,
 * min/max with SSE2's rule), and the scalar form of the same operations
 * everywhere else (other CPUs, wasm without -msimd128, -DSTANCE_SCALAR).
 * SV_VEC4 is defined for SSE2 and NEON (local_to_model's AoS paths).
 * The SoA pose loops in pose.c and evaluate.c use these on blocks of 4
 * joints; tests/test_simd.c checks them against scalar references.
 * Owns no state. */
#ifndef STANCE_SIMD_H
#define STANCE_SIMD_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/platform.h"

#if defined(__SSE2__) && !defined(STANCE_SCALAR)
#include <emmintrin.h>
#define SV_SSE2 1
#define SV_VEC4 1
typedef __m128 sv4;
static inline sv4 sv_load(const float *p) { return _mm_loadu_ps(p); }
static inline void sv_store(float *p, sv4 a) { _mm_storeu_ps(p, a); }
/* 16-byte aligned forms (pose channels, clip keys at a multiple of 4
 * joints): SSE2 folds an aligned load into the arithmetic that uses it */
static inline sv4 sv_loada(const float *p) { return _mm_load_ps(p); }
/* a hint: the cache line holding *p is wanted soon */
#define SV_PREFETCH(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
static inline void sv_storea(float *p, sv4 a) { _mm_store_ps(p, a); }
static inline sv4 sv_set1(float x) { return _mm_set1_ps(x); }
/* lanes 0 and 1 into p[0], p[1] */
static inline void sv_store2(float *p, sv4 a) { _mm_storel_pi((__m64 *)(void *)p, a); }
static inline sv4 sv_add(sv4 a, sv4 b) { return _mm_add_ps(a, b); }
static inline sv4 sv_sub(sv4 a, sv4 b) { return _mm_sub_ps(a, b); }
static inline sv4 sv_mul(sv4 a, sv4 b) { return _mm_mul_ps(a, b); }
static inline sv4 sv_div(sv4 a, sv4 b) { return _mm_div_ps(a, b); }
static inline sv4 sv_sqrt(sv4 a) { return _mm_sqrt_ps(a); }
static inline sv4 sv_signbits(sv4 a) { return _mm_and_ps(a, _mm_set1_ps(-0.0f)); }
static inline sv4 sv_abs(sv4 a) { return _mm_andnot_ps(_mm_set1_ps(-0.0f), a); }
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
#elif (defined(__aarch64__) || defined(_M_ARM64)) && !defined(STANCE_SCALAR)
/* ARM64: NEON is in every ARMv8-A core. Each operation is the one SSE2's
 * form does (IEEE add, mul, div, sqrt, correctly rounded either way; no
 * fused multiply-add), so the poses are x86-64's bit for bit. */
#include <arm_neon.h>
#define SV_NEON 1
#define SV_VEC4 1
typedef float32x4_t sv4;
static inline sv4 sv_load(const float *p) { return vld1q_f32(p); }
static inline void sv_store(float *p, sv4 a) { vst1q_f32(p, a); }
static inline sv4 sv_loada(const float *p) { return vld1q_f32(p); }
#define SV_PREFETCH(p) ST_PREFETCH(p)
static inline void sv_storea(float *p, sv4 a) { vst1q_f32(p, a); }
static inline sv4 sv_set1(float x) { return vdupq_n_f32(x); }
static inline void sv_store2(float *p, sv4 a) { vst1_f32(p, vget_low_f32(a)); }
static inline sv4 sv_add(sv4 a, sv4 b) { return vaddq_f32(a, b); }
static inline sv4 sv_sub(sv4 a, sv4 b) { return vsubq_f32(a, b); }
static inline sv4 sv_mul(sv4 a, sv4 b) { return vmulq_f32(a, b); }
static inline sv4 sv_div(sv4 a, sv4 b) { return vdivq_f32(a, b); }
static inline sv4 sv_sqrt(sv4 a) { return vsqrtq_f32(a); }
static inline sv4 sv_signbits(sv4 a) {
    return vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(a), vdupq_n_u32(0x80000000u)));
}
static inline sv4 sv_abs(sv4 a) { return vabsq_f32(a); }
static inline sv4 sv_copysign(sv4 mag, sv4 sgn) { return vbslq_f32(vdupq_n_u32(0x80000000u), sgn, mag); }
static inline sv4 sv_xorsign(sv4 a, sv4 s) {
    return vreinterpretq_f32_u32(veorq_u32(vreinterpretq_u32_f32(a), vreinterpretq_u32_f32(sv_signbits(s))));
}
/* SSE2's rule, not NEON's fmin/fmax: a < b ? a : b (b when unordered or equal, so min(-0, 0) is 0) */
static inline sv4 sv_min(sv4 a, sv4 b) { return vbslq_f32(vcltq_f32(a, b), a, b); }
static inline sv4 sv_max(sv4 a, sv4 b) { return vbslq_f32(vcgtq_f32(a, b), a, b); }
static inline sv4 sv_is0(sv4 a) {
    return vreinterpretq_f32_u32(vandq_u32(vceqq_f32(a, vdupq_n_f32(0.0f)), vreinterpretq_u32_f32(vdupq_n_f32(1.0f))));
}
/* comparisons give all-ones lanes (as SSE2's); select takes a where the mask is set */
static inline sv4 sv_le(sv4 a, sv4 b) { return vreinterpretq_f32_u32(vcleq_f32(a, b)); }
static inline sv4 sv_ge(sv4 a, sv4 b) { return vreinterpretq_f32_u32(vcgeq_f32(a, b)); }
static inline sv4 sv_select(sv4 m, sv4 a, sv4 b) { return vbslq_f32(vreinterpretq_u32_f32(m), a, b); }
#elif defined(__wasm_simd128__) && !defined(STANCE_SCALAR)
#include <wasm_simd128.h>
#define SV_WASM 1
typedef v128_t sv4;
static inline sv4 sv_load(const float *p) { return wasm_v128_load(p); }
static inline void sv_store(float *p, sv4 a) { wasm_v128_store(p, a); }
static inline sv4 sv_loada(const float *p) { return wasm_v128_load(p); }
#define SV_PREFETCH(p) ((void)(p))
static inline void sv_storea(float *p, sv4 a) { wasm_v128_store(p, a); }
static inline sv4 sv_set1(float x) { return wasm_f32x4_splat(x); }
static inline void sv_store2(float *p, sv4 a) { p[0] = wasm_f32x4_extract_lane(a, 0), p[1] = wasm_f32x4_extract_lane(a, 1); }
static inline sv4 sv_add(sv4 a, sv4 b) { return wasm_f32x4_add(a, b); }
static inline sv4 sv_sub(sv4 a, sv4 b) { return wasm_f32x4_sub(a, b); }
static inline sv4 sv_mul(sv4 a, sv4 b) { return wasm_f32x4_mul(a, b); }
static inline sv4 sv_div(sv4 a, sv4 b) { return wasm_f32x4_div(a, b); }
static inline sv4 sv_sqrt(sv4 a) { return wasm_f32x4_sqrt(a); }
static inline sv4 sv_signbits(sv4 a) { return wasm_v128_and(a, wasm_f32x4_splat(-0.0f)); }
static inline sv4 sv_abs(sv4 a) { return wasm_v128_andnot(a, wasm_f32x4_splat(-0.0f)); }
static inline sv4 sv_copysign(sv4 mag, sv4 sgn) {
    const sv4 m = wasm_f32x4_splat(-0.0f);
    return wasm_v128_or(wasm_v128_andnot(mag, m), wasm_v128_and(sgn, m));
}
static inline sv4 sv_xorsign(sv4 a, sv4 s) { return wasm_v128_xor(a, sv_signbits(s)); }
/* SSE2's rule (a < b ? a : b; b when either is NaN or both are zeros), not
 * f32x4.min's: pmin(x, y) is y < x ? y : x */
static inline sv4 sv_min(sv4 a, sv4 b) { return wasm_f32x4_pmin(b, a); }
static inline sv4 sv_max(sv4 a, sv4 b) { return wasm_f32x4_pmax(b, a); } /* a > b ? a : b */
static inline sv4 sv_is0(sv4 a) { return wasm_v128_and(wasm_f32x4_eq(a, wasm_f32x4_splat(0.0f)), wasm_f32x4_splat(1.0f)); }
static inline sv4 sv_le(sv4 a, sv4 b) { return wasm_f32x4_le(a, b); }
static inline sv4 sv_ge(sv4 a, sv4 b) { return wasm_f32x4_ge(a, b); }
static inline sv4 sv_select(sv4 m, sv4 a, sv4 b) { return wasm_v128_bitselect(a, b, m); }
#else
typedef struct sv4 { float v[4]; } sv4;
#define SV_EACH(expr) do { for (int i_ = 0; i_ < 4; i_++) { expr; } } while (0)
static inline sv4 sv_load(const float *p) { sv4 r; SV_EACH(r.v[i_] = p[i_]); return r; }
static inline void sv_store(float *p, sv4 a) { SV_EACH(p[i_] = a.v[i_]); }
static inline sv4 sv_loada(const float *p) { return sv_load(p); }
#define SV_PREFETCH(p) ((void)(p))
static inline void sv_storea(float *p, sv4 a) { sv_store(p, a); }
static inline sv4 sv_set1(float x) { sv4 r; SV_EACH(r.v[i_] = x); return r; }
static inline void sv_store2(float *p, sv4 a) { p[0] = a.v[0], p[1] = a.v[1]; }
static inline sv4 sv_add(sv4 a, sv4 b) { SV_EACH(a.v[i_] += b.v[i_]); return a; }
static inline sv4 sv_sub(sv4 a, sv4 b) { SV_EACH(a.v[i_] -= b.v[i_]); return a; }
static inline sv4 sv_mul(sv4 a, sv4 b) { SV_EACH(a.v[i_] *= b.v[i_]); return a; }
static inline sv4 sv_div(sv4 a, sv4 b) { SV_EACH(a.v[i_] /= b.v[i_]); return a; }
static inline sv4 sv_sqrt(sv4 a) { SV_EACH(a.v[i_] = sqrtf(a.v[i_])); return a; }
static inline sv4 sv_copysign(sv4 mag, sv4 sgn) { SV_EACH(mag.v[i_] = copysignf(mag.v[i_], sgn.v[i_])); return mag; }
static inline sv4 sv_abs(sv4 a) { SV_EACH(a.v[i_] = fabsf(a.v[i_])); return a; }
static inline sv4 sv_signbits(sv4 a) { SV_EACH(a.v[i_] = signbit(a.v[i_]) ? -0.0f : 0.0f); return a; }
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
#elif defined(SV_NEON)
    const float t[4] = {b[i[0]], b[i[1]], b[i[2]], b[i[3]]};
    return vld1q_f32(t);
#elif defined(SV_WASM)
    return wasm_f32x4_make(b[i[0]], b[i[1]], b[i[2]], b[i[3]]);
#else
    sv4 r;
    SV_EACH(r.v[i_] = b[i[i_]]);
    return r;
#endif
}
/* the same from indices already in registers: b[i0], .., b[i3] */
static inline sv4 sv_gather_at(const float *b, ptrdiff_t i0, ptrdiff_t i1, ptrdiff_t i2, ptrdiff_t i3) {
#if defined(SV_SSE2)
    return _mm_setr_ps(b[i0], b[i1], b[i2], b[i3]);
#elif defined(SV_NEON)
    const float t[4] = {b[i0], b[i1], b[i2], b[i3]};
    return vld1q_f32(t);
#elif defined(SV_WASM)
    return wasm_f32x4_make(b[i0], b[i1], b[i2], b[i3]);
#else
    sv4 r = {{b[i0], b[i1], b[i2], b[i3]}};
    return r;
#endif
}
/* lanes (float)q[0], .., (float)q[3] of 4 unsigned 16-bit values (exact) */
static inline sv4 sv_load_u16(const uint16_t *q) {
#if defined(SV_SSE2)
    return _mm_cvtepi32_ps(_mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)(const void *)q), _mm_setzero_si128()));
#elif defined(SV_NEON)
    return vcvtq_f32_u32(vmovl_u16(vld1_u16(q)));
#elif defined(SV_WASM)
    return wasm_f32x4_convert_u32x4(wasm_u32x4_load16x4(q));
#else
    sv4 r = {{(float)q[0], (float)q[1], (float)q[2], (float)q[3]}};
    return r;
#endif
}
/* 4x4 transpose of 4 variables: rows become columns (lane i of r_k <- lane k of r_i) */
#if defined(SV_SSE2)
#define SV_TRANSPOSE4(r0, r1, r2, r3) _MM_TRANSPOSE4_PS(r0, r1, r2, r3)
#elif defined(SV_NEON)
/* pairs of lanes (trn1/trn2), then pairs of pairs (as 64-bit lanes) */
#define SV_F64(x) vreinterpretq_f64_f32(x)
#define SV_TRANSPOSE4(r0, r1, r2, r3) do { \
        const float32x4_t t0_ = vtrn1q_f32(r0, r1), t1_ = vtrn2q_f32(r0, r1); \
        const float32x4_t t2_ = vtrn1q_f32(r2, r3), t3_ = vtrn2q_f32(r2, r3); \
        r0 = vreinterpretq_f32_f64(vtrn1q_f64(SV_F64(t0_), SV_F64(t2_))); \
        r1 = vreinterpretq_f32_f64(vtrn1q_f64(SV_F64(t1_), SV_F64(t3_))); \
        r2 = vreinterpretq_f32_f64(vtrn2q_f64(SV_F64(t0_), SV_F64(t2_))); \
        r3 = vreinterpretq_f32_f64(vtrn2q_f64(SV_F64(t1_), SV_F64(t3_))); \
    } while (0)
#elif defined(SV_WASM)
#define SV_TRANSPOSE4(r0, r1, r2, r3) do { \
        const sv4 t0_ = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5), t1_ = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5); \
        const sv4 t2_ = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7), t3_ = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7); \
        r0 = wasm_i32x4_shuffle(t0_, t1_, 0, 1, 4, 5), r1 = wasm_i32x4_shuffle(t0_, t1_, 2, 3, 6, 7); \
        r2 = wasm_i32x4_shuffle(t2_, t3_, 0, 1, 4, 5), r3 = wasm_i32x4_shuffle(t2_, t3_, 2, 3, 6, 7); \
    } while (0)
#else
#define SV_TRANSPOSE4(r0, r1, r2, r3) do { \
        const sv4 t_[4] = {r0, r1, r2, r3}; \
        SV_EACH(r0.v[i_] = t_[i_].v[0]); SV_EACH(r1.v[i_] = t_[i_].v[1]); \
        SV_EACH(r2.v[i_] = t_[i_].v[2]); SV_EACH(r3.v[i_] = t_[i_].v[3]); \
    } while (0)
#endif
/* the same on an array r[0..3] */
static inline void sv_transpose4(sv4 *r) { SV_TRANSPOSE4(r[0], r[1], r[2], r[3]); }

/* A second copy in VEX encoding (the hot passes of local_to_model.c and
 * fused.c): where the build is for baseline x86-64 SSE2 with GCC or clang,
 * a function marked SV_VEX_TARGET is compiled for AVX, and SV_CPU_HAS_AVX()
 * says at run time whether it may run. Such a copy is the same source: the
 * same operations in the same order, no FMA, so the same results. */
#if defined(SV_SSE2) && defined(ST_HAVE_TARGET_AVX)
#define SV_VEX_COPY 1
#define SV_VEX_TARGET ST_TARGET_AVX
#define SV_CPU_HAS_AVX() st_cpu_has_avx()
#endif
/* The two copies of a pass and the choice between them, the same in every
 * pass (clip.c, clip_packed.c, fused.c, pose.c, local_to_model.c):
 *   SV_VEX_DEFINE(name, params, args, fn)  static void name##_sse params
 *       { fn args; } as the build compiles it (SSE2, or the scalar form)
 *       and, where SV_VEX_COPY, name##_vex, the same in VEX encoding
 *   SV_VEX_DISPATCH(name, args)  a statement: name##_vex args on CPUs with
 *       AVX, else name##_sse args (just that where there is no VEX copy:
 *       MSVC, other compilers, ARM64, WebAssembly, STANCE_NO_VEX)
 *   SV_VEX_AS(vex, name, args)  an int: runs the copy asked for (vex 1 the
 *       VEX copy, 0 the baseline one, -1 whichever the CPU runs best) and
 *       gives 1, or gives 0 when that copy is not here or the CPU cannot
 *       run it (for the tests that compare the encodings) */
#if defined(SV_VEX_COPY)
#define SV_VEX_DEFINE(name, params, args, fn) \
    static void name##_sse params { fn args; } \
    SV_VEX_TARGET static void name##_vex params { fn args; }
#define SV_VEX_DISPATCH(name, args) do { if (SV_CPU_HAS_AVX()) name##_vex args; else name##_sse args; } while (0)
#define SV_VEX_AS(vex, name, args) \
    ((vex) != 0 && SV_CPU_HAS_AVX() ? (name##_vex args, 1) : (vex) == 1 ? 0 : (name##_sse args, 1))
#else
#define SV_VEX_DEFINE(name, params, args, fn) static void name##_sse params { fn args; }
#define SV_VEX_DISPATCH(name, args) name##_sse args
#define SV_VEX_AS(vex, name, args) ((vex) == 1 ? 0 : (name##_sse args, 1))
#endif

/* A compiler barrier: loads are not moved above it nor stores below it. A
 * kernel split by it into parts keeps only one part's values in registers
 * (SSE2 has 16) instead of spilling what the compiler hoisted. */
#define SV_BARRIER(p) ST_BARRIER(p) /* p: a local array kept in memory */
/* p's value unknown to the compiler from here on: a pointer stepped row by
 * row stays one register and one add a row, instead of a precomputed
 * address per row that the compiler keeps (and spills) */
#define SV_OPAQUE(p) ST_OPAQUE(p)

static inline sv4 sv_madd(sv4 a, sv4 b, sv4 c) { return sv_add(sv_mul(a, b), c); } /* a * b + c */
static inline sv4 sv_dot4(sv4 ax, sv4 ay, sv4 az, sv4 aw, sv4 bx, sv4 by, sv4 bz, sv4 bw) {
    return sv_add(sv_add(sv_mul(ax, bx), sv_mul(ay, by)), sv_add(sv_mul(az, bz), sv_mul(aw, bw)));
}

/* One transform in AoS form: lanes x, y, z, w of a vector. */
#if defined(SV_SSE2)
static inline sv4 sv_setr(float x, float y, float z, float w) { return _mm_setr_ps(x, y, z, w); }
/* lanes (a[i0], a[i1], a[i2], a[i3]) */
#define SV_SHUF(a, i0, i1, i2, i3) _mm_shuffle_ps((a), (a), _MM_SHUFFLE(i3, i2, i1, i0))
static inline float sv_lane0(sv4 a) { return _mm_cvtss_f32(a); }
static inline sv4 sv_xor(sv4 a, sv4 b) { return _mm_xor_ps(a, b); }
#elif defined(SV_NEON)
static inline sv4 sv_setr(float x, float y, float z, float w) {
    const float t[4] = {x, y, z, w};
    return vld1q_f32(t);
}
/* lanes (a[i0], a[i1], a[i2], a[i3]), constant indices: the compiler
 * folds the lane copies into dup / ins / ext / zip as the pattern allows */
#define SV_SHUF(a, i0, i1, i2, i3) \
    vcopyq_laneq_f32(vcopyq_laneq_f32(vcopyq_laneq_f32(vdupq_laneq_f32((a), i0), 1, (a), i1), 2, (a), i2), 3, (a), i3)
static inline float sv_lane0(sv4 a) { return vgetq_lane_f32(a, 0); }
static inline sv4 sv_xor(sv4 a, sv4 b) {
    return vreinterpretq_f32_u32(veorq_u32(vreinterpretq_u32_f32(a), vreinterpretq_u32_f32(b)));
}
#elif defined(SV_WASM)
static inline sv4 sv_setr(float x, float y, float z, float w) { return wasm_f32x4_make(x, y, z, w); }
#define SV_SHUF(a, i0, i1, i2, i3) wasm_i32x4_shuffle((a), (a), i0, i1, i2, i3)
static inline float sv_lane0(sv4 a) { return wasm_f32x4_extract_lane(a, 0); }
static inline sv4 sv_xor(sv4 a, sv4 b) { return wasm_v128_xor(a, b); }
#else
static inline sv4 sv_setr(float x, float y, float z, float w) { sv4 r = {{x, y, z, w}}; return r; }
static inline sv4 sv_shuf_(sv4 a, int i0, int i1, int i2, int i3) { sv4 r = {{a.v[i0], a.v[i1], a.v[i2], a.v[i3]}}; return r; }
#define SV_SHUF(a, i0, i1, i2, i3) sv_shuf_((a), i0, i1, i2, i3)
static inline float sv_lane0(sv4 a) { return a.v[0]; }
/* sign flips only: b holds 0 or -0 per lane */
static inline sv4 sv_xor(sv4 a, sv4 b) { SV_EACH(a.v[i_] = signbit(b.v[i_]) ? -a.v[i_] : a.v[i_]); return a; }
#endif
/* the 4 lanes into p[0], p[stride], p[2 stride], p[3 stride] (n of them) */
static inline void sv_store_lanes(float *p, int stride, sv4 a, int n) {
    p[0] = sv_lane0(a), p[stride] = sv_lane0(SV_SHUF(a, 1, 1, 1, 1)), p[2 * stride] = sv_lane0(SV_SHUF(a, 2, 2, 2, 2));
    if (n > 3) p[3 * stride] = sv_lane0(SV_SHUF(a, 3, 3, 3, 3));
}
/* b[i[k]] = lane k (a repeated index gets the same value twice in our uses) */
static inline void sv_scatter(float *b, const short *i, sv4 a) {
    b[i[0]] = sv_lane0(a), b[i[1]] = sv_lane0(SV_SHUF(a, 1, 1, 1, 1));
    b[i[2]] = sv_lane0(SV_SHUF(a, 2, 2, 2, 2)), b[i[3]] = sv_lane0(SV_SHUF(a, 3, 3, 3, 3));
}
/* the same to indices already in registers: b[ik] = lane k */
static inline void sv_scatter_at(float *b, ptrdiff_t i0, ptrdiff_t i1, ptrdiff_t i2, ptrdiff_t i3, sv4 a) {
    b[i0] = sv_lane0(a), b[i1] = sv_lane0(SV_SHUF(a, 1, 1, 1, 1));
    b[i2] = sv_lane0(SV_SHUF(a, 2, 2, 2, 2)), b[i3] = sv_lane0(SV_SHUF(a, 3, 3, 3, 3));
}
/* q p for AoS quaternions (x, y, z, w) */
static inline sv4 sv_qmul_aos(sv4 p, sv4 q) {
    const sv4 s1 = sv_setr(0.0f, -0.0f, 0.0f, -0.0f), s2 = sv_setr(0.0f, 0.0f, -0.0f, -0.0f), s3 = sv_setr(-0.0f, 0.0f, 0.0f, -0.0f);
    sv4 r = sv_mul(SV_SHUF(p, 3, 3, 3, 3), q);
    r = sv_madd(SV_SHUF(p, 0, 0, 0, 0), sv_xor(SV_SHUF(q, 3, 2, 1, 0), s1), r);
    r = sv_madd(SV_SHUF(p, 1, 1, 1, 1), sv_xor(SV_SHUF(q, 2, 3, 0, 1), s2), r);
    return sv_madd(SV_SHUF(p, 2, 2, 2, 2), sv_xor(SV_SHUF(q, 1, 0, 3, 2), s3), r);
}
/* v rotated by the unit quaternion q (AoS; lane 3 of v is 0 and stays 0):
 * t = 2 (q.xyz x v), v + q.w t + q.xyz x t */
static inline sv4 sv_qrot_aos(sv4 q, sv4 v) {
    const sv4 qyzx = SV_SHUF(q, 1, 2, 0, 3);
    /* a x b = (a b.yzx - a.yzx b).yzx */
    sv4 t = SV_SHUF(sv_sub(sv_mul(q, SV_SHUF(v, 1, 2, 0, 3)), sv_mul(qyzx, v)), 1, 2, 0, 3);
    t = sv_add(t, t);
    const sv4 u = SV_SHUF(sv_sub(sv_mul(q, SV_SHUF(t, 1, 2, 0, 3)), sv_mul(qyzx, t)), 1, 2, 0, 3);
    return sv_add(sv_madd(SV_SHUF(q, 3, 3, 3, 3), t, v), u);
}

/* ---- blocks of floats (n a multiple of 4) ---------------------------------- */

/* o = p * w */
static inline void sv_block_scale(float *o, const float *p, float w, int n) {
    const sv4 vw = sv_set1(w);
    for (int i = 0; i < n; i += 4) sv_storea(o + i, sv_mul(sv_loada(p + i), vw));
}
/* o += p * w */
static inline void sv_block_add(float *o, const float *p, float w, int n) {
    const sv4 vw = sv_set1(w);
    for (int i = 0; i < n; i += 4) sv_storea(o + i, sv_madd(sv_loada(p + i), vw, sv_loada(o + i)));
}
/* Rotations of n joints (4 blocks of stride floats, x.. y.. z.. w..):
 * o += w * p, p's sign flipped where it points away from o. */
static inline void sv_block_add_rot(float *o, const float *p, float w, int n, int stride) {
    const sv4 vw = sv_set1(w);
    for (int i = 0; i < n; i += 4) {
        sv4 ox = sv_loada(o + i), oy = sv_loada(o + stride + i), oz = sv_loada(o + 2 * stride + i), ow = sv_loada(o + 3 * stride + i);
        sv4 px = sv_loada(p + i), py = sv_loada(p + stride + i), pz = sv_loada(p + 2 * stride + i), pw = sv_loada(p + 3 * stride + i);
        sv4 ws = sv_xorsign(vw, sv_dot4(ox, oy, oz, ow, px, py, pz, pw));
        sv_storea(o + i, sv_madd(px, ws, ox));
        sv_storea(o + stride + i, sv_madd(py, ws, oy));
        sv_storea(o + 2 * stride + i, sv_madd(pz, ws, oz));
        sv_storea(o + 3 * stride + i, sv_madd(pw, ws, ow));
    }
}
/* Two poses at once (one pass): o = a + (b - a) u over n floats (n a
 * multiple of 4), the blend a (1 - u) + b u written so
 * that SSE2 folds both loads into the arithmetic. o may be a. */
static inline void sv_block_lerp2(float *o, const float *a, const float *b, float u, int n) {
    const sv4 vu = sv_set1(u);
    int i = 0;
    for (; i + 16 <= n; i += 16) /* four vectors a step */
        for (int k = 0; k < 16; k += 4)
            sv_storea(o + i + k, sv_madd(sv_sub(sv_loada(b + i + k), sv_loada(a + i + k)), vu, sv_loada(a + i + k)));
    for (; i < n; i += 4) sv_storea(o + i, sv_madd(sv_sub(sv_loada(b + i), sv_loada(a + i)), vu, sv_loada(a + i)));
}
/* Translations and scales of a pose in one pass: sv_block_lerp2 over
 * [0, n) and [off, off + n) (n a multiple of 8). */
static inline void sv_block_lerp2_ts(float *o, const float *a, const float *b, float u, int n, int off) {
    const sv4 vu = sv_set1(u);
    for (int i = 0; i < n; i += 8) {
        const sv4 t0 = sv_madd(sv_sub(sv_loada(b + i), sv_loada(a + i)), vu, sv_loada(a + i));
        const sv4 t1 = sv_madd(sv_sub(sv_loada(b + i + 4), sv_loada(a + i + 4)), vu, sv_loada(a + i + 4));
        const sv4 s0 = sv_madd(sv_sub(sv_loada(b + off + i), sv_loada(a + off + i)), vu, sv_loada(a + off + i));
        const sv4 s1 = sv_madd(sv_sub(sv_loada(b + off + i + 4), sv_loada(a + off + i + 4)), vu, sv_loada(a + off + i + 4));
        sv_storea(o + i, t0), sv_storea(o + i + 4, t1), sv_storea(o + off + i, s0), sv_storea(o + off + i + 4, s1);
    }
}
/* Rotations of n joints: o = normalize(a wa + b wb), b's sign flipped
 * where it points away from a. A zero sum (only from zero quaternions,
 * which a pose does not hold) gives 0, never NaN. o may be a. */
static inline void sv_block_nlerp2(float *o, const float *a, const float *b, float wa, float wb, int n, int stride) {
    const sv4 va = sv_set1(wa), vb = sv_set1(wb), one = sv_set1(1.0f), tiny = sv_set1(FLT_MIN);
    /* one pointer per channel: the loop steps one index */
    const float *a0 = a, *a1 = a + stride, *a2 = a + 2 * stride, *a3 = a + 3 * stride;
    const float *b0 = b, *b1 = b + stride, *b2 = b + 2 * stride, *b3 = b + 3 * stride;
    float *o0 = o, *o1 = o + stride, *o2 = o + 2 * stride, *o3 = o + 3 * stride;
    for (int i = 0; i < n; i += 4) {
        const sv4 ax = sv_loada(a0 + i), ay = sv_loada(a1 + i), az = sv_loada(a2 + i), aw = sv_loada(a3 + i);
        const sv4 bx = sv_loada(b0 + i), by = sv_loada(b1 + i), bz = sv_loada(b2 + i), bw = sv_loada(b3 + i);
        const sv4 ws = sv_xorsign(vb, sv_dot4(ax, ay, az, aw, bx, by, bz, bw));
        const sv4 x = sv_madd(bx, ws, sv_mul(ax, va)), y = sv_madd(by, ws, sv_mul(ay, va));
        const sv4 z = sv_madd(bz, ws, sv_mul(az, va)), w = sv_madd(bw, ws, sv_mul(aw, va));
        const sv4 inv = sv_div(one, sv_sqrt(sv_max(sv_dot4(x, y, z, w, x, y, z, w), tiny)));
        sv_storea(o0 + i, sv_mul(x, inv));
        sv_storea(o1 + i, sv_mul(y, inv));
        sv_storea(o2 + i, sv_mul(z, inv));
        sv_storea(o3 + i, sv_mul(w, inv));
    }
}

/* A whole pose of two (10 channels of pc floats, pc a multiple of 4: t 0..2,
 * q 3..6, s 7..9), in one pass of 4 joints a step: translations and scales
 * o = a + (b - a) wb, rotations o = normalize(wa a + s wb b) with s the
 * sign of a.b (b flipped into a's hemisphere), the result in a's
 * hemisphere. wa, wb > 0 with wa + wb = 1. Normalizing makes the scale of
 * the sum free, so it takes the smaller weight over the larger, k <= 1
 * (finite for any positive pair), and one multiply-add a channel:
 * a + (s k) b when wa >= wb, else s (k (s a) + b) = k a + s b with the
 * outer s folded into the length's inverse. A zero sum (only from zero
 * quaternions, which a pose does not hold) gives 0, never NaN. The
 * channels are reached from one pointer per pose and 5 distances (c pc for
 * c = 1, 3, 5, 7, 9; 2, 4, 6, 8 as their multiples), so the loop keeps
 * them all in registers. o may be a. */
/* inlined in each caller, one copy per a_big */
ST_FORCEINLINE void sv_blend2_loop_(float *o, const float *a, const float *b, float wa, float wb, int pc, int a_big) {
    const ptrdiff_t c1 = pc, c3 = 3 * (ptrdiff_t)pc, c5 = 5 * (ptrdiff_t)pc, c7 = 7 * (ptrdiff_t)pc, c9 = 9 * (ptrdiff_t)pc;
    const sv4 vu = sv_set1(wb), vk = sv_set1(a_big ? wb / wa : wa / wb), one = sv_set1(1.0f), tiny = sv_set1(FLT_MIN);
    for (const float *const end = a + pc; a < end; o += 4, a += 4, b += 4) {
        sv_storea(o, sv_madd(sv_sub(sv_loada(b), sv_loada(a)), vu, sv_loada(a)));
        sv_storea(o + c1, sv_madd(sv_sub(sv_loada(b + c1), sv_loada(a + c1)), vu, sv_loada(a + c1)));
        sv_storea(o + 2 * c1, sv_madd(sv_sub(sv_loada(b + 2 * c1), sv_loada(a + 2 * c1)), vu, sv_loada(a + 2 * c1)));
        sv_storea(o + c7, sv_madd(sv_sub(sv_loada(b + c7), sv_loada(a + c7)), vu, sv_loada(a + c7)));
        sv_storea(o + 8 * c1, sv_madd(sv_sub(sv_loada(b + 8 * c1), sv_loada(a + 8 * c1)), vu, sv_loada(a + 8 * c1)));
        sv_storea(o + c9, sv_madd(sv_sub(sv_loada(b + c9), sv_loada(a + c9)), vu, sv_loada(a + c9)));
        const sv4 ax = sv_loada(a + c3), ay = sv_loada(a + 4 * c1), az = sv_loada(a + c5), aw = sv_loada(a + 2 * c3);
        const sv4 bx = sv_loada(b + c3), by = sv_loada(b + 4 * c1), bz = sv_loada(b + c5), bw = sv_loada(b + 2 * c3);
        const sv4 sgn = sv_signbits(sv_dot4(ax, ay, az, aw, bx, by, bz, bw));
        const sv4 ks = sv_xor(vk, sgn);
        sv4 x, y, z, w;
        if (a_big) {
            x = sv_madd(bx, ks, ax), y = sv_madd(by, ks, ay), z = sv_madd(bz, ks, az), w = sv_madd(bw, ks, aw);
        } else {
            x = sv_madd(ax, ks, bx), y = sv_madd(ay, ks, by), z = sv_madd(az, ks, bz), w = sv_madd(aw, ks, bw);
        }
        sv4 inv = sv_div(one, sv_sqrt(sv_max(sv_dot4(x, y, z, w, x, y, z, w), tiny)));
        if (!a_big) inv = sv_xor(inv, sgn);
        sv_storea(o + c3, sv_mul(x, inv));
        sv_storea(o + 4 * c1, sv_mul(y, inv));
        sv_storea(o + c5, sv_mul(z, inv));
        sv_storea(o + 2 * c3, sv_mul(w, inv));
    }
}
ST_FORCEINLINE void sv_block_blend2(float *o, const float *a, const float *b, float wa, float wb, int pc) {
    if (wa >= wb) /* one loop for each case (a_big a constant in each) */
        sv_blend2_loop_(o, a, b, wa, wb, pc, 1);
    else
        sv_blend2_loop_(o, a, b, wa, wb, pc, 0);
}

/* Normalizes the rotations of n joints; a zero quaternion becomes the identity. */
static inline void sv_block_normalize_rot(float *q, int n, int stride) {
    const sv4 one = sv_set1(1.0f);
    for (int i = 0; i < n; i += 4) {
        sv4 x = sv_loada(q + i), y = sv_loada(q + stride + i), z = sv_loada(q + 2 * stride + i), w = sv_loada(q + 3 * stride + i);
        sv4 l2 = sv_dot4(x, y, z, w, x, y, z, w);
        /* zero length: (0,0,0,1) (w gets 1 added where l2 is 0, so it normalizes to 1) */
        sv4 zero = sv_is0(l2);
        w = sv_add(w, zero);
        l2 = sv_add(l2, zero);
        sv4 inv = sv_div(one, sv_sqrt(l2));
        sv_storea(q + i, sv_mul(x, inv));
        sv_storea(q + stride + i, sv_mul(y, inv));
        sv_storea(q + 2 * stride + i, sv_mul(z, inv));
        sv_storea(q + 3 * stride + i, sv_mul(w, inv));
    }
}

#endif
