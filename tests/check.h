/* tests/check.h - a tiny test harness: CHECK macros and a summary line.
 * Each test file is its own executable; main() calls RUN(test_fn) and ends
 * with return check_summary(). */
#ifndef STANCE_TESTS_CHECK_H
#define STANCE_TESTS_CHECK_H
#include <math.h>
#include <stdio.h>

static int check_failures_;
static int check_passed_tests_;
static int check_failed_tests_;

#define CHECK(cond) do { if (!(cond)) { check_failures_++; \
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } } while (0)
#define CHECK_NEAR(a, b, tol) do { double a_ = (a), b_ = (b); \
    if (!(fabs(a_ - b_) <= (tol))) { check_failures_++; \
    fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.9g, %s = %.9g (tol %g)\n", \
            __FILE__, __LINE__, #a, a_, #b, b_, (double)(tol)); } } while (0)
#define CHECK_OK(expr) do { stance_status s_ = (expr); if (s_ != STANCE_OK) { check_failures_++; \
    fprintf(stderr, "%s:%d: %s returned %s\n", __FILE__, __LINE__, #expr, stance_status_name(s_)); } } while (0)
#define CHECK_STATUS(expr, want) do { stance_status s_ = (expr); if (s_ != (want)) { check_failures_++; \
    fprintf(stderr, "%s:%d: %s returned %s, wanted %s\n", __FILE__, __LINE__, #expr, \
            stance_status_name(s_), stance_status_name(want)); } } while (0)

#define RUN(fn) do { int before_ = check_failures_; fn(); \
    if (check_failures_ == before_) { check_passed_tests_++; printf("ok   %s\n", #fn); } \
    else { check_failed_tests_++; printf("FAIL %s\n", #fn); } } while (0)

static inline int check_summary(void) {
    printf("%d passed, %d failed\n", check_passed_tests_, check_failed_tests_);
    return check_failed_tests_ ? 1 : 0;
}
#endif
