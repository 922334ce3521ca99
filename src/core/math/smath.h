/* src/core/math/smath.h - the runtime's own transcendental functions.
 *
 * sin, cos, asin, acos, atan2, exp, exp2, pow and hypot computed with + - * /
 * and sqrt only (IEEE 754 rounds each of these correctly, so every compiler and
 * C library gives the same bits), in double precision, in a fixed order, with
 * one final rounding to float. libm's sinf, expf, ... differ between glibc, the
 * Windows CRT, musl/emscripten and Apple's libm; these do not, so poses, events
 * and root motion are the same on every platform (docs/determinism.md).
 *
 * Maximum error against the exact result (tests/test_smath.c measures it
 * against double-precision libm over millions of arguments and fails above it):
 *   sm_sinf, sm_cosf, sm_sincosf   <= 0.5001 ulp for |x| <= 2^20 (above 2^20
 *                                  the results stay in [-1, 1] and are the same
 *                                  everywhere, but no bound is promised)
 *   every other float function     <= 0.5001 ulp over its whole domain
 * (0.5 ulp is the rounding to float itself: the double-precision value before
 * it is within about 1e-14 of the exact result, so results are correctly
 * rounded except for arguments whose result lies within ~1e-6 ulp of a
 * midpoint between two floats.) sm_pow (double) has a relative error below
 * 1e-13. Non-finite arguments give what C's functions give for them (NaN for
 * sin(inf), inf for exp(inf), ...); the runtime rejects them at its edge. */
#ifndef STANCE_SMATH_H
#define STANCE_SMATH_H

float sm_sinf(float x);
float sm_cosf(float x);
void sm_sincosf(float x, float *s, float *c);
float sm_asinf(float x);             /* [-1, 1] -> [-pi/2, pi/2]; NaN outside */
float sm_acosf(float x);             /* [-1, 1] -> [0, pi]; NaN outside */
float sm_atan2f(float y, float x);   /* C's atan2f, signed zeros included */
float sm_expf(float x);
float sm_exp2f(float x);
float sm_powf(float x, float y);     /* C's powf for finite arguments */
float sm_hypotf(float x, float y);
double sm_pow(double x, double y);   /* x > 0 finite (the builder's error budgets); NaN otherwise */

#endif
