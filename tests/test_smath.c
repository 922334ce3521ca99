/* tests/test_smath.c - the runtime's own transcendentals (src/core/math/smath.h)
 * against double-precision libm, which is independent of them and ~2^29 times
 * finer than a float ulp: the largest error in float ulps over millions of
 * arguments per function, over the ranges the runtime, the built-in character
 * and the lesson library use (and wider), must stay within smath.h's bound.
 * A planted error (the result moved by one float) must be caught. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/math/smath.h"

#define FLT_MAX_D 3.4028234663852886e38
#define BOUND 0.5001 /* smath.h: every function, sin and cos for |x| <= 2^20 */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double uni(double a, double b) { return a + (b - a) * ((double)(rng() >> 11) * 0x1p-53); }
/* a float of random bits with |x| < 2^emax (every exponent equally often) */
static float bits_below(int emax) {
    for (;;) {
        uint32_t u = (uint32_t)rng();
        float f;
        memcpy(&f, &u, sizeof f);
        if (isfinite(f) && fabsf(f) < ldexpf(1.0f, emax)) return f;
    }
}

/* the error of float f against the double ref, in ulps of the float format at ref */
static double ulp_err(float f, double ref) {
    if (isnan(ref)) return isnan(f) ? 0.0 : 1e9;
    if (isinf(ref) || fabs(ref) > FLT_MAX_D) return (double)f == ref || isinf(f) ? 0.0 : 1e9;
    int e;
    frexp(ref, &e); /* |ref| in [2^(e-1), 2^e) */
    if (e - 1 < -126) e = -125;
    double ulp = ldexp(1.0, e - 1 - 23);
    return fabs((double)f - ref) / ulp;
}

typedef float (*fun1)(float);
typedef double (*ref1)(double);
typedef float (*fun2)(float, float);
typedef double (*ref2)(double, double);

static int planted; /* move every result by one float: the bound must fail */
static float plant(float f) { return planted ? nextafterf(f, INFINITY) : f; }

static double worst1(const char *name, fun1 f, ref1 r, int n, double lo, double hi, int emax) {
    double worst = 0.0;
    float at = 0.0f;
    for (int i = 0; i < n; i++) {
        float x = (i & 1) ? bits_below(emax) : (float)uni(lo, hi);
        if (!(x >= lo && x <= hi)) x = (float)uni(lo, hi);
        double e = ulp_err(plant(f(x)), r((double)x));
        if (e > worst) worst = e, at = x;
    }
    if (!planted) printf("  %-8s [%g, %g]: %d arguments, max %.7f ulp (at %.9g)\n", name, lo, hi, n, worst, (double)at);
    return worst;
}

static double worst2(const char *name, fun2 f, ref2 r, int n, float (*arg)(int, int)) {
    double worst = 0.0;
    float ax = 0.0f, ay = 0.0f;
    for (int i = 0; i < n; i++) {
        float x = arg(0, i), y = arg(1, i);
        double e = ulp_err(plant(f(x, y)), r((double)x, (double)y));
        if (e > worst) worst = e, ax = x, ay = y;
    }
    if (!planted) printf("  %-8s %d argument pairs, max %.7f ulp (at %.9g, %.9g)\n", name, n, worst, (double)ax, (double)ay);
    return worst;
}

static float sin_of(float x) { float s, c; sm_sincosf(x, &s, &c); return s; }
static float cos_of(float x) { float s, c; sm_sincosf(x, &s, &c); return c; }

static void test_sin_cos(void) {
    const double big = 1048576.0; /* 2^20 */
    CHECK(worst1("sinf", sm_sinf, sin, 2000000, -7.0, 7.0, 3) <= BOUND);
    CHECK(worst1("sinf", sm_sinf, sin, 1000000, -big, big, 20) <= BOUND);
    CHECK(worst1("cosf", sm_cosf, cos, 2000000, -7.0, 7.0, 3) <= BOUND);
    CHECK(worst1("cosf", sm_cosf, cos, 1000000, -big, big, 20) <= BOUND);
    CHECK(worst1("sincos.s", sin_of, sin, 500000, -big, big, 20) <= BOUND);
    CHECK(worst1("sincos.c", cos_of, cos, 500000, -big, big, 20) <= BOUND);
    /* every float from 0 to 2^-10 and the 2^20 floats around pi/2, pi, 3pi/2, 2pi, 100 pi */
    double worst = 0.0;
    const double centres[] = {0.0, 1.5707963267948966, 3.141592653589793, 4.71238898038469, 6.283185307179586, 314.1592653589793};
    for (int c = 0; c < 6; c++) {
        float x = (float)centres[c];
        for (int k = 0; k < 2000; k++) x = nextafterf(x, -INFINITY);
        for (int k = 0; k < 4000; k++, x = nextafterf(x, INFINITY)) {
            double es = ulp_err(sm_sinf(x), sin((double)x)), ec = ulp_err(sm_cosf(x), cos((double)x));
            worst = fmax(worst, fmax(es, ec));
        }
    }
    printf("  sin/cos  4,000 floats around each of 0, pi/2, pi, 3pi/2, 2pi, 100pi: max %.7f ulp\n", worst);
    CHECK(worst <= BOUND);
    /* past 2^20: no bound, but in [-1, 1] and finite */
    int bad = 0;
    for (int i = 0; i < 100000; i++) {
        float x = bits_below(127), s = sm_sinf(x), c = sm_cosf(x);
        if (!(fabsf(s) <= 1.0f && fabsf(c) <= 1.0f)) bad++;
    }
    CHECK(bad == 0);
    CHECK(isnan(sm_sinf(INFINITY)) && isnan(sm_cosf(-INFINITY)) && isnan(sm_sinf(NAN)));
    CHECK(sm_sinf(0.0f) == 0.0f && !signbit(sm_sinf(0.0f)) && signbit(sm_sinf(-0.0f)) && sm_cosf(0.0f) == 1.0f);
}

static void test_inverse(void) {
    CHECK(worst1("asinf", sm_asinf, asin, 2000000, -1.0, 1.0, 0) <= BOUND);
    CHECK(worst1("acosf", sm_acosf, acos, 2000000, -1.0, 1.0, 0) <= BOUND);
    /* the 100,000 floats next to -1, 0 and 1 */
    double worst = 0.0;
    const float ends[] = {-1.0f, 0.0f, 1.0f};
    for (int c = 0; c < 3; c++) {
        float x = ends[c];
        for (int k = 0; k < 50000; k++) x = nextafterf(x, -INFINITY);
        for (int k = 0; k < 100000; k++, x = nextafterf(x, INFINITY)) {
            if (fabsf(x) > 1.0f) continue;
            worst = fmax(worst, fmax(ulp_err(sm_asinf(x), asin(x)), ulp_err(sm_acosf(x), acos(x))));
        }
    }
    printf("  asin/acos 100,000 floats next to -1, 0 and 1: max %.7f ulp\n", worst);
    CHECK(worst <= BOUND);
    CHECK(isnan(sm_asinf(1.0000001f)) && isnan(sm_acosf(-2.0f)) && sm_acosf(1.0f) == 0.0f && sm_asinf(-0.0f) == 0.0f);
}

static float atan_arg(int which, int i) {
    (void)which;
    switch (i % 3) {
    case 0: return (float)uni(-2.0, 2.0);
    case 1: return bits_below(40);
    default: return (rng() & 1 ? 1.0f : -1.0f) * ldexpf((float)uni(1.0, 2.0), (int)(rng() % 60) - 30);
    }
}
static void test_atan2(void) {
    CHECK(worst2("atan2f", sm_atan2f, atan2, 4000000, atan_arg) <= BOUND);
    const float z[] = {0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY};
    int bad = 0;
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++) {
            float got = sm_atan2f(z[a], z[b]), want = atan2f(z[a], z[b]);
            if (fabsf(got - want) > 1e-6f || signbit(got) != signbit(want)) bad++;
        }
    CHECK(bad == 0);
    CHECK(isnan(sm_atan2f(NAN, 1.0f)) && isnan(sm_atan2f(1.0f, NAN)));
}

static void test_exp(void) {
    CHECK(worst1("expf", sm_expf, exp, 2000000, -103.9, 88.72, 7) <= BOUND);
    CHECK(worst1("expf", sm_expf, exp, 1000000, -1.0, 1.0, 0) <= BOUND);
    CHECK(worst1("exp2f", sm_exp2f, exp2, 2000000, -150.0, 127.99, 8) <= BOUND);
    CHECK(sm_expf(0.0f) == 1.0f && sm_exp2f(3.0f) == 8.0f && sm_exp2f(-149.0f) == 0x1p-149f);
    CHECK(sm_expf(-INFINITY) == 0.0f && isinf(sm_expf(INFINITY)) && isinf(sm_expf(89.0f)) && isnan(sm_expf(NAN)));
}

static float pow_arg(int which, int i) {
    if (which == 0) return (i & 1) ? (float)uni(0.0, 1.0) : (float)exp2(uni(-10.0, 10.0));
    return (i & 1) ? (float)uni(0.05, 10.0) : (float)uni(-12.0, 12.0);
}
static float pow_int_arg(int which, int i) {
    (void)i;
    return which == 0 ? (float)uni(-4.0, 4.0) : (float)((int)(rng() % 25) - 12);
}
static double pow_d(double x, double y) { return pow(x, y); }
static void test_pow(void) {
    CHECK(worst2("powf", sm_powf, pow_d, 3000000, pow_arg) <= BOUND);
    CHECK(worst2("powf int", sm_powf, pow_d, 500000, pow_int_arg) <= BOUND);
    CHECK(sm_powf(2.0f, 10.0f) == 1024.0f && sm_powf(0.0f, 2.0f) == 0.0f && sm_powf(-2.0f, 3.0f) == -8.0f);
    CHECK(isnan(sm_powf(-2.0f, 0.5f)) && sm_powf(NAN, 0.0f) == 1.0f && isinf(sm_powf(0.0f, -1.0f)));
    /* the double form (the builder's error budgets): relative error below 1e-13 */
    double worst = 0.0;
    for (int i = 0; i < 1000000; i++) {
        double x = exp2(uni(-20.0, 20.0)), y = uni(-8.0, 8.0), want = pow(x, y);
        worst = fmax(worst, fabs(sm_pow(x, y) - want) / want);
    }
    printf("  pow (double) 1,000,000 arguments: max relative error %.3g\n", worst);
    CHECK(worst < 1e-13);
}

static float hyp_arg(int which, int i) {
    (void)which;
    return (i & 1) ? (float)uni(-10.0, 10.0) : bits_below(127);
}
static void test_hypot(void) {
    CHECK(worst2("hypotf", sm_hypotf, hypot, 3000000, hyp_arg) <= BOUND);
    CHECK(sm_hypotf(3.0f, 4.0f) == 5.0f && isinf(sm_hypotf(INFINITY, NAN)) && sm_hypotf(0.0f, -0.0f) == 0.0f);
}

/* the measurement must see an error of one float */
static void test_planted(void) {
    planted = 1;
    CHECK(worst1("sinf", sm_sinf, sin, 10000, -7.0, 7.0, 3) > BOUND);
    CHECK(worst1("expf", sm_expf, exp, 10000, -10.0, 10.0, 3) > BOUND);
    CHECK(worst2("atan2f", sm_atan2f, atan2, 10000, atan_arg) > BOUND);
    planted = 0;
}

int main(void) {
    RUN(test_sin_cos);
    RUN(test_inverse);
    RUN(test_atan2);
    RUN(test_exp);
    RUN(test_pow);
    RUN(test_hypot);
    RUN(test_planted);
    return check_summary();
}
