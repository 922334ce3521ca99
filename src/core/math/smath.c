/* src/core/math/smath.c - the runtime's own transcendental functions (smath.h).
 *
 * Everything is computed in double with + - * / and sqrt, each step written
 * out so that no compiler may reorder or fuse it (the build turns contraction
 * off: -ffp-contract=off, /fp:precise), then rounded to float once. The
 * methods are the textbook ones:
 *   sin, cos   k = nearest integer to x * 2/pi, r = x - k pi/2 with pi/2 in
 *              three pieces (the first two 33 bits wide, so k * piece is exact
 *              for |k| < 2^20: Cody and Waite's reduction), then the Taylor
 *              series of sin r and cos r on |r| <= pi/4 (to r^15 and r^16).
 *   atan       on [0, 1]: atan t = a + atan((t - c) / (1 + t c)) with c = tan a,
 *              a in {0, pi/8, pi/4} chosen so the argument is within
 *              tan(pi/16), then the series of atan to u^21; atan2, asin and
 *              acos from it (1 - x^2 = (1 - x)(1 + x) is exact in double for a
 *              float x).
 *   exp, exp2  x = k ln2 + r, |r| <= ln2 / 2 (ln2 in two pieces, the first 42
 *              bits wide), the Taylor series of e^r to r^13, times 2^k made from
 *              its bits.
 *   log2       (for pow) x = m 2^e with m in [sqrt2/2, sqrt2), ln m = 2 atanh s,
 *              s = (m - 1) / (m + 1), the series to s^21.
 *   hypot      sqrt(x^2 + y^2) in double: x^2 is exact for a float x. */
#include "core/math/smath.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* pi/2 = PIO2_1 + PIO2_2 + PIO2_3 (+ < 2^-120) */
#define PIO2_1 0x1.921fb544p+0
#define PIO2_2 0x1.0b4611a6p-34
#define PIO2_3 0x1.3198a2e037073p-69
#define INV_PIO2 0x1.45f306dc9c883p-1 /* 2/pi */
#define PI_D 0x1.921fb54442d18p+1
#define PIO2_D 0x1.921fb54442d18p+0
#define PIO4_D 0x1.921fb54442d18p-1
#define PIO8_D 0x1.921fb54442d18p-2
#define TAN_PIO8 0x1.a827999fcef32p-2    /* sqrt(2) - 1 */
#define TAN_PIO16 0.19891236737965800691 /* interval ends of atan's reduction */
#define TAN_3PIO16 0.66817863791929891999
#define LN2_HI 0x1.62e42fefa38p-1 /* ln 2 = LN2_HI + LN2_LO (+ < 2^-100) */
#define LN2_LO 0x1.ef35793c7673p-45
#define LN2_D 0x1.62e42fefa39efp-1
#define INV_LN2 0x1.71547652b82fep+0
#define SQRT2_D 0x1.6a09e667f3bcdp+0

/* the nearest integer (ties away from zero) of |v| < 2^62, by conversion */
static int64_t nearest(double v) { return (int64_t)(v < 0.0 ? v - 0.5 : v + 0.5); }

/* 2^k for -1022 <= k <= 1023, from its bits */
static double pow2i(int64_t k) {
    uint64_t bits = (uint64_t)(k + 1023) << 52;
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* sin r and cos r for |r| <= pi/4 (a little more is fine) */
static double sin_poly(double r) {
    double r2 = r * r;
    double p = -1.0 / 1307674368000.0;
    p = 1.0 / 6227020800.0 + r2 * p;
    p = -1.0 / 39916800.0 + r2 * p;
    p = 1.0 / 362880.0 + r2 * p;
    p = -1.0 / 5040.0 + r2 * p;
    p = 1.0 / 120.0 + r2 * p;
    p = -1.0 / 6.0 + r2 * p;
    return r + (r * r2) * p;
}
static double cos_poly(double r) {
    double r2 = r * r;
    double p = 1.0 / 20922789888000.0;
    p = -1.0 / 87178291200.0 + r2 * p;
    p = 1.0 / 479001600.0 + r2 * p;
    p = -1.0 / 3628800.0 + r2 * p;
    p = 1.0 / 40320.0 + r2 * p;
    p = -1.0 / 720.0 + r2 * p;
    p = 1.0 / 24.0 + r2 * p;
    p = -0.5 + r2 * p;
    return 1.0 + r2 * p;
}

/* x = n pi/2 + r, |r| <= pi/4 (about), n mod 4 returned; x finite */
static int reduce_pio2(double x, double *r) {
    int n = 0;
    /* past 2^20, take k in steps whose multiples of the pieces stay exact
     * (20 significant bits); accuracy is not promised there (smath.h) */
    while (fabs(x) > 0x1p20) {
        double k = x * INV_PIO2;
        int e = 0;
        (void)frexp(k, &e); /* exact: the exponent of k */
        double unit = pow2i(e - 20);
        double kk = (double)nearest(k / unit) * unit;
        x = ((x - kk * PIO2_1) - kk * PIO2_2) - kk * PIO2_3;
        if (e - 20 < 2) n += (int)((int64_t)(kk) & 3);
    }
    int64_t k = nearest(x * INV_PIO2);
    double kd = (double)k;
    *r = ((x - kd * PIO2_1) - kd * PIO2_2) - kd * PIO2_3;
    return (int)((k + n) & 3);
}

float sm_sinf(float x) {
    if (!isfinite(x)) return x - x;
    if (x == 0.0f) return x; /* keeps -0's sign */
    double r;
    switch (reduce_pio2((double)x, &r)) {
    case 0: return (float)sin_poly(r);
    case 1: return (float)cos_poly(r);
    case 2: return (float)-sin_poly(r);
    default: return (float)-cos_poly(r);
    }
}

float sm_cosf(float x) {
    if (!isfinite(x)) return x - x;
    double r;
    switch (reduce_pio2((double)x, &r)) {
    case 0: return (float)cos_poly(r);
    case 1: return (float)-sin_poly(r);
    case 2: return (float)-cos_poly(r);
    default: return (float)sin_poly(r);
    }
}

void sm_sincosf(float x, float *s, float *c) {
    if (!isfinite(x)) {
        *s = *c = x - x;
        return;
    }
    double r;
    int n = reduce_pio2((double)x, &r);
    double sr = x == 0.0f ? (double)x : sin_poly(r), cr = cos_poly(r);
    switch (n) {
    case 0: *s = (float)sr, *c = (float)cr; break;
    case 1: *s = (float)cr, *c = (float)-sr; break;
    case 2: *s = (float)-sr, *c = (float)-cr; break;
    default: *s = (float)-cr, *c = (float)sr; break;
    }
}

/* atan t for 0 <= t <= 1 (NaN gives NaN) */
static double atan01(double t) {
    double a, u;
    if (t <= TAN_PIO16) a = 0.0, u = t;
    else if (t <= TAN_3PIO16) a = PIO8_D, u = (t - TAN_PIO8) / (1.0 + t * TAN_PIO8);
    else a = PIO4_D, u = (t - 1.0) / (t + 1.0);
    double u2 = u * u;
    double p = 1.0 / 21.0;
    p = -1.0 / 19.0 + u2 * p;
    p = 1.0 / 17.0 + u2 * p;
    p = -1.0 / 15.0 + u2 * p;
    p = 1.0 / 13.0 + u2 * p;
    p = -1.0 / 11.0 + u2 * p;
    p = 1.0 / 9.0 + u2 * p;
    p = -1.0 / 7.0 + u2 * p;
    p = 1.0 / 5.0 + u2 * p;
    p = -1.0 / 3.0 + u2 * p;
    return a + (u + (u * u2) * p);
}

static double atan2_d(double y, double x) {
    double ay = fabs(y), ax = fabs(x), a;
    if (isinf(ax) && isinf(ay)) a = PIO4_D;
    else if (ay <= ax) a = ax == 0.0 ? 0.0 : atan01(ay / ax);
    else a = PIO2_D - atan01(ax / ay); /* NaN arrives here and stays NaN */
    if (signbit(x)) a = PI_D - a;
    return signbit(y) ? -a : a;
}

float sm_atan2f(float y, float x) { return (float)atan2_d((double)y, (double)x); }

float sm_asinf(float x) {
    double d = (double)x;
    if (!(fabs(d) <= 1.0)) return (x - x) / (x - x);
    return (float)atan2_d(d, sqrt((1.0 - d) * (1.0 + d)));
}

float sm_acosf(float x) {
    double d = (double)x;
    if (!(fabs(d) <= 1.0)) return (x - x) / (x - x);
    return (float)atan2_d(sqrt((1.0 - d) * (1.0 + d)), d);
}

/* e^r for |r| <= ln2 / 2 (about) */
static double exp_poly(double r) {
    double p = 1.0 / 6227020800.0;
    p = 1.0 / 479001600.0 + r * p;
    p = 1.0 / 39916800.0 + r * p;
    p = 1.0 / 3628800.0 + r * p;
    p = 1.0 / 362880.0 + r * p;
    p = 1.0 / 40320.0 + r * p;
    p = 1.0 / 5040.0 + r * p;
    p = 1.0 / 720.0 + r * p;
    p = 1.0 / 120.0 + r * p;
    p = 1.0 / 24.0 + r * p;
    p = 1.0 / 6.0 + r * p;
    p = 0.5 + r * p;
    p = 1.0 + r * p;
    return 1.0 + r * p;
}

/* 2^w for -1000 <= w <= 1000 */
static double exp2_d(double w) {
    int64_t k = nearest(w);
    double r = w - (double)k; /* exact */
    return exp_poly(r * LN2_D) * pow2i(k);
}

float sm_expf(float x) {
    if (isnan(x)) return x;
    if (x > 89.0f) return INFINITY;
    if (x < -104.0f) return 0.0f;
    double d = (double)x;
    int64_t k = nearest(d * INV_LN2);
    double kd = (double)k;
    double r = (d - kd * LN2_HI) - kd * LN2_LO;
    return (float)(exp_poly(r) * pow2i(k));
}

float sm_exp2f(float x) {
    if (isnan(x)) return x;
    if (x >= 128.0f) return INFINITY;
    if (x < -151.0f) return 0.0f;
    return (float)exp2_d((double)x);
}

/* log2 x for a positive finite normal double x */
static double log2_d(double x) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int64_t e = (int64_t)((bits >> 52) & 0x7ff) - 1023;
    bits = (bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
    double m;
    memcpy(&m, &bits, sizeof m); /* [1, 2) */
    if (m > SQRT2_D) m = m * 0.5, e += 1;
    double s = (m - 1.0) / (m + 1.0), s2 = s * s;
    double p = 1.0 / 21.0;
    p = 1.0 / 19.0 + s2 * p;
    p = 1.0 / 17.0 + s2 * p;
    p = 1.0 / 15.0 + s2 * p;
    p = 1.0 / 13.0 + s2 * p;
    p = 1.0 / 11.0 + s2 * p;
    p = 1.0 / 9.0 + s2 * p;
    p = 1.0 / 7.0 + s2 * p;
    p = 1.0 / 5.0 + s2 * p;
    p = 1.0 / 3.0 + s2 * p;
    double ln_m = 2.0 * (s + (s * s2) * p);
    return (double)e + ln_m * INV_LN2;
}

/* |x|^y for x, y finite and nonzero, |x| != 1 handled by the caller too */
static double pow_abs(double ax, double y) {
    double w = y * log2_d(ax);
    if (w > 1000.0) return INFINITY;
    if (w < -1000.0) return 0.0;
    return exp2_d(w);
}

float sm_powf(float x, float y) {
    if (y == 0.0f || x == 1.0f) return 1.0f;
    if (isnan(x) || isnan(y)) return x + y;
    float ay = fabsf(y);
    /* y an odd integer? (floats of 2^24 and above are even) */
    int integer = isinf(y) || ay >= 0x1p24f || (float)(int32_t)ay == ay;
    int odd = !isinf(y) && ay < 0x1p24f && integer && ((int32_t)ay & 1);
    if (x < 0.0f && !integer) return (x - x) / (x - x);
    float neg = (x < 0.0f || (x == 0.0f && signbit(x))) && odd ? -1.0f : 1.0f;
    float ax = fabsf(x);
    if (isinf(y)) {
        if (ax == 1.0f) return 1.0f;
        return (ax < 1.0f) == (y < 0.0f) ? INFINITY : 0.0f;
    }
    if (ax == 0.0f) return neg * (y > 0.0f ? 0.0f : INFINITY);
    if (isinf(ax)) return neg * (y > 0.0f ? INFINITY : 0.0f);
    return neg * (float)pow_abs((double)ax, (double)y);
}

double sm_pow(double x, double y) {
    if (!(x > 0.0) || !isfinite(x) || !isfinite(y)) return (x - x) / (x - x) + y;
    if (x < 0x1p-1022) return y > 0.0 ? 0.0 : INFINITY; /* subnormal x: not used */
    return pow_abs(x, y);
}

float sm_hypotf(float x, float y) {
    if (isinf(x) || isinf(y)) return INFINITY;
    double dx = (double)x, dy = (double)y;
    return (float)sqrt(dx * dx + dy * dy);
}
