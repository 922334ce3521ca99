/* src/core/base/platform.h - the one place with compiler- and OS-specific
 * code in src/core: every macro here has a GCC/clang form and an MSVC form
 * (and a plain C11 fallback where one means the same). Nothing else in
 * src/core names __attribute__, __builtin_*, __asm__, __declspec or an
 * MSVC intrinsic (tests/test_msvc_syntax.sh checks). Owns no state.
 *
 *   ST_FORCEINLINE       a function inlined at every call (static inline too)
 *   ST_NOINLINE          never inlined
 *   ST_COLD              rarely run: laid out away from the hot code
 *   ST_PRINTF(f, a)      printf-style format check: argument f is the format,
 *                        the values start at argument a
 *   ST_RESTRICT          C99 restrict (MSVC: __restrict)
 *   st_ctz64(m)          trailing zero bits of a non-zero 64-bit value
 *   st_cpu_has_avx()     1 when the CPU and the OS run AVX (cpuid + xgetbv)
 *   st_aligned_alloc(a, s) / st_aligned_free(p)
 *                        an aligned allocation and its matching free
 *                        (_aligned_malloc/_aligned_free on Windows, mingw too;
 *                        C11 aligned_alloc/free elsewhere; s a multiple of a)
 *   ST_BARRIER(p)        compiler barrier: loads not moved above, stores not
 *                        moved below; p (a local array) kept in memory
 *   ST_OPAQUE(p)         p's value unknown to the compiler from here on
 *   ST_PREFETCH(p)       a hint: the cache line holding *p is wanted soon
 *   ST_TARGET_AVX        a function compiled for AVX in a baseline build
 *                        (GCC/clang only; ST_HAVE_TARGET_AVX says so) */
#ifndef STANCE_PLATFORM_H
#define STANCE_PLATFORM_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* MSVC, and clang in MSVC mode (clang-cl, --target=*-windows-msvc: what
 * tests/test_msvc_syntax.sh compiles with) */
#if defined(_MSC_VER)
#define ST_MSVC 1
#endif

#if defined(ST_MSVC)
#include <intrin.h>
#define ST_FORCEINLINE static __forceinline
#define ST_NOINLINE __declspec(noinline)
#define ST_COLD
#define ST_PRINTF(f, a)
#define ST_RESTRICT __restrict
#elif defined(__GNUC__) /* gcc, clang (mingw too) */
#define ST_FORCEINLINE static inline __attribute__((always_inline))
#define ST_NOINLINE __attribute__((noinline))
#define ST_COLD __attribute__((cold))
#if defined(__MINGW32__)
/* mingw: the build defines __USE_MINGW_ANSI_STDIO=1 (CMakeLists.txt), so
 * the printf family is mingw's C99 one (%zu, %lld), not msvcrt's */
#define ST_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#else
#define ST_PRINTF(f, a) __attribute__((format(printf, f, a)))
#endif
#define ST_RESTRICT restrict
#else
#define ST_FORCEINLINE static inline
#define ST_NOINLINE
#define ST_COLD
#define ST_PRINTF(f, a)
#define ST_RESTRICT restrict
#endif

/* trailing zero bits of m (m != 0) */
static inline int st_ctz64(uint64_t m) {
#if defined(ST_MSVC) && defined(_M_X64) || defined(ST_MSVC) && defined(_M_ARM64)
    unsigned long i;
    _BitScanForward64(&i, m);
    return (int)i;
#elif defined(__GNUC__)
    return __builtin_ctzll(m);
#else
    int n = 0;
    while (!(m & 1u)) m >>= 1, n++;
    return n;
#endif
}

/* AVX detection, asked of the CPU: cpuid leaf 1 ECX bit 28 (AVX) and bit 27
 * (OSXSAVE), then xgetbv(0) bits 1 and 2 (the OS saves the XMM and YMM
 * state). GCC and clang read it from libgcc's __cpu_model (filled once
 * before main); MSVC asks once and keeps the answer in the function's own
 * static (1 yes, -1 no, 0 not asked yet; an aligned volatile long, whose
 * loads and stores are atomic on x86-64: threads asking at once all write
 * the same value). Either way the hot passes pay a load and a test; the
 * probe is a function of its own (cpuid writes rbx: inlined, every caller
 * would save registers on its fast path). */
#if defined(__x86_64__) || defined(_M_X64)
#if defined(ST_MSVC)
static ST_NOINLINE int st_cpu_probe_avx_(void) {
    int r[4];
    __cpuid(r, 1);
    if ((r[2] & (1 << 27)) == 0 || (r[2] & (1 << 28)) == 0) return 0;
    return (_xgetbv(0) & 6u) == 6u;
}
static inline int st_cpu_has_avx(void) {
    static volatile long state;
    long v = state;
    if (v == 0) state = v = st_cpu_probe_avx_() ? 1 : -1;
    return v > 0;
}
#elif defined(__GNUC__)
/* GCC and clang (mingw too): libgcc's __cpu_model, filled once before main
 * by its constructor from the same cpuid and xgetbv words (AVX counts only
 * when the OS saves the YMM state); a load and a test per call, and no
 * state of stance's own. */
static inline int st_cpu_has_avx(void) { return __builtin_cpu_supports("avx"); }
#else
static inline int st_cpu_has_avx(void) { return 0; }
#endif
#else
static inline int st_cpu_has_avx(void) { return 0; }
#endif

#if defined(_WIN32)
#include <malloc.h>
static inline void *st_aligned_alloc(size_t align, size_t size) { return _aligned_malloc(size, align); }
static inline void st_aligned_free(void *p) { _aligned_free(p); }
#else
static inline void *st_aligned_alloc(size_t align, size_t size) { return aligned_alloc(align, size); }
static inline void st_aligned_free(void *p) { free(p); }
#endif

#if defined(ST_MSVC)
#define ST_BARRIER(p) ((void)(p), _ReadWriteBarrier())
#define ST_OPAQUE(p) ((void)0)
#elif defined(__GNUC__)
#define ST_BARRIER(p) __asm__ __volatile__("" : : "r"(p) : "memory")
#define ST_OPAQUE(p) __asm__("" : "+r"(p))
#else
#define ST_BARRIER(p) ((void)(p))
#define ST_OPAQUE(p) ((void)0)
#endif

#if defined(STANCE_PREFETCH_AS_LOAD)
/* measurement only (scripts/cache_sim.sh): a load, which cachegrind
 * simulates (it ignores hints), so the misses a prefetch covers are counted
 * at the prefetch; never in a release (a load faults where a hint does not) */
#define ST_PREFETCH(p) ((void)*(const volatile char *)(p))
#elif defined(ST_MSVC) && (defined(_M_X64) || defined(_M_IX86))
#include <xmmintrin.h>
#define ST_PREFETCH(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#elif defined(ST_MSVC) && defined(_M_ARM64) && !defined(__clang__)
#define ST_PREFETCH(p) __prefetch((const void *)(p))
#elif defined(__GNUC__) || defined(__clang__)
#define ST_PREFETCH(p) __builtin_prefetch((const void *)(p), 0, 3)
#else
#define ST_PREFETCH(p) ((void)(p))
#endif

/* A second copy of a function in VEX encoding: GCC/clang compile a function
 * with this attribute for AVX in a build for baseline x86-64. MSVC has no
 * per-function target (a whole file takes /arch:AVX), so there the copy is
 * not made and the baseline code runs on every CPU. STANCE_NO_VEX (a
 * compile definition) leaves the copies out too: a build that runs SSE2
 * alone on an AVX CPU, to count its instructions (docs/performance.md). */
#if !defined(ST_MSVC) && defined(__GNUC__) && defined(__x86_64__) && !defined(__AVX__) && !defined(STANCE_NO_VEX)
#define ST_HAVE_TARGET_AVX 1
#define ST_TARGET_AVX __attribute__((target("avx")))
#endif

#endif
