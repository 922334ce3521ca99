/* src/core/base/internal.h - helpers shared by the runtime's .c files: error
 * reporting, allocation through the caller's allocator, finite checks.
 * Not part of the public API. */
#ifndef STANCE_INTERNAL_H
#define STANCE_INTERNAL_H

#include <math.h>
#include <stddef.h>

#include "core/base/platform.h"
#include "stance/base.h"

/* The one escaping of text into a message (issue 22): names and strings
 * from files, and libraries' messages, may hold any bytes. Printable ASCII
 * and printable UTF-8 characters stay as they are; every other byte (a
 * control byte, DEL, a C1 control, a byte that is not part of valid UTF-8)
 * becomes the 4 characters \xNN (lowercase hex). out always ends with a
 * zero; an escape or a character is never cut. Returns the bytes written.
 * st_fail applies it to every message, so a message is always printable
 * UTF-8 on one line; the importers' warnings go through it too. */
size_t st_escape(char *out, size_t cap, const char *text);
/* st_escape of a message in its own buffer (cap bytes; up to 1023 are read). */
void st_escape_in_place(char *msg, size_t cap);

/* Sets err (if not NULL) and returns status. printf-style message, escaped
 * with st_escape. */
stance_status st_fail(stance_error *err, stance_status status, const char *fmt, ...) ST_PRINTF(3, 4);
/* Success: err (if not NULL) gets STANCE_OK and an empty message. Inline:
 * the per-frame calls pass NULL, and a test and a branch is all it costs. */
static inline stance_status st_ok(stance_error *err) {
    if (err) {
        err->status = STANCE_OK;
        err->message[0] = 0;
    }
    return STANCE_OK;
}

/* st_fail, built only when err is not NULL: in a body compiled with err a
 * constant NULL (ST_BODY below) a refusal folds to its status. */
#define ST_FAIL(err, status, ...) ((err) ? st_fail((err), (status), __VA_ARGS__) : (status))
/* The one body of a public function and of its st_ twin (below). */
#define ST_BODY ST_FORCEINLINE

/* The allocator to use: *a, or malloc/free when a is NULL or all zero. */
stance_allocator st_allocator(const stance_allocator *a);
void *st_alloc(const stance_allocator *a, size_t size, size_t align); /* zeroed */
/* The one check of a caller's allocator, used by every function that takes
 * one (runtime and importer): NULL or both fields zero = malloc/free; alloc
 * without free or free without alloc is refused (STANCE_ERR_ARGUMENT) with
 * one message, "WHO: allocator has alloc but no free ...". */
stance_status st_check_allocator(const stance_allocator *a, const char *who, stance_error *err);
void st_free(const stance_allocator *a, void *ptr, size_t size);

static inline int st_finite(float x) { return isfinite(x) != 0; }
static inline int st_finite_n(const float *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i])) return 0;
    return 1;
}
/* The update step contract (issue 12): dt in [0, 1], finite; a step under
 * STANCE_MIN_DT (stance/instance.h; subnormal or tiny) counts as 0, so nothing
 * divides by it. */
#define st_step(dt) ((dt) < STANCE_MIN_DT ? 0.0f : (dt)) /* a macro: STANCE_MIN_DT is in stance/instance.h */
static inline size_t st_align_up(size_t n, size_t a) { return (n + a - 1) & ~(a - 1); }
static inline int st_pad8(int n) { return (n + 7) & ~7; }


/* The one check of the limits of stance/base.h (issue 22). NULL when the
 * values are inside them; else `why` (cap bytes) gets a phrase naming them
 * and is returned, for the caller's message ("WHERE: " + why). */
typedef enum st_values {
    ST_TRANSLATION,  /* 3 floats (also a position: a vertex, an IK target or pole) */
    ST_SCALE,        /* 3 floats */
    ST_ROTATION,     /* 4 floats, x y z w: finite and normalizable */
    ST_INVERSE_BIND  /* 16 floats, column-major; the phrase starts with "is " */
} st_values;
const char *st_check_values(st_values kind, const float *v, char *why, size_t cap);
/* t, r, s (3, 4, 3 floats, each may be NULL) in that order: the first phrase. */
const char *st_check_trs(const float *t, const float *r, const float *s, char *why, size_t cap);
/* The chain rule: the first joint (parents before children) where the
 * product down its chain of peak[j] (the largest |scale| component joint j
 * can take) passes STANCE_MAX_SCALE, its product in *product; -1 if none
 * (skeleton.c). */
int st_chain_scale_over(const int *parents, int joint_count, const float *peak, double *product);

/* Copies a name into a fixed buffer; returns 0 if it is empty or too long. */
int st_copy_name(char *dst, size_t cap, const char *src);

#endif
