/* src/core/base/base.c - status names, error messages (and the one escaping of
 * text in them), the default allocator, the one check of the limits of
 * transforms (stance/base.h). Owns no state: the default allocator is plain
 * malloc/free. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/internal.h"

#define ST_STR_(x) #x
#define ST_STR(x) ST_STR_(x)
int stance_version_number(void) { return STANCE_VERSION_NUMBER; }

const char *stance_version(void) {
    return ST_STR(STANCE_VERSION_MAJOR) "." ST_STR(STANCE_VERSION_MINOR) "." ST_STR(STANCE_VERSION_PATCH);
}

const char *stance_status_name(stance_status status) {
    switch (status) {
    case STANCE_OK: return "ok";
    case STANCE_ERR_ARGUMENT: return "bad argument";
    case STANCE_ERR_VALUE: return "bad value";
    case STANCE_ERR_ORDER: return "out of order";
    case STANCE_ERR_MEMORY: return "out of memory";
    case STANCE_ERR_NOT_FOUND: return "not found";
    case STANCE_ERR_FORMAT: return "bad format";
    case STANCE_ERR_IO: return "i/o error";
    case STANCE_ERR_UNSUPPORTED: return "unsupported";
    }
    return "unknown status";
}

stance_transform stance_transform_identity(void) {
    stance_transform t = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    return t;
}

/* Bytes of the printable UTF-8 character at p (2..4), or 0: not valid
 * UTF-8 (overlong, a surrogate, past U+10FFFF, cut short) or a C1 control
 * (U+0080..U+009F). */
static size_t utf8_char(const unsigned char *p) {
    const unsigned c = p[0];
    if (c >= 0xC2 && c <= 0xDF) return (p[1] & 0xC0) == 0x80 && !(c == 0xC2 && p[1] < 0xA0) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        const unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
        return p[1] >= lo && p[1] <= hi && (p[2] & 0xC0) == 0x80 ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        const unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
        return p[1] >= lo && p[1] <= hi && (p[2] & 0xC0) == 0x80 && (p[3] & 0xC0) == 0x80 ? 4 : 0;
    }
    return 0;
}

size_t st_escape(char *out, size_t cap, const char *text) {
    if (!cap) return 0;
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)text; p && *p;) {
        const size_t u = *p >= 0x80 ? utf8_char(p) : 0; /* a zero byte ends a check early: never read past it */
        const size_t w = u ? u : (*p >= 0x20 && *p < 0x7F) ? 1 : 4;
        if (n + w >= cap) break;
        if (w == 4 && !u) {
            static const char hex[] = "0123456789abcdef";
            out[n] = '\\', out[n + 1] = 'x', out[n + 2] = hex[*p >> 4], out[n + 3] = hex[*p & 15];
        } else {
            memcpy(out + n, p, w);
        }
        n += w, p += u ? u : 1;
    }
    out[n] = 0;
    return n;
}

void st_escape_in_place(char *msg, size_t cap) {
    char raw[1024];
    snprintf(raw, sizeof raw, "%s", msg);
    st_escape(msg, cap, raw);
}

stance_status st_fail(stance_error *err, stance_status status, const char *fmt, ...) {
    if (err) {
        char raw[1024]; /* room for the escapes of a message that quotes a file's bytes */
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(raw, sizeof raw, fmt, ap);
        va_end(ap);
        err->status = status;
        st_escape(err->message, sizeof err->message, raw);
    }
    return status;
}

static void *default_alloc(void *user, size_t size, size_t align) {
    (void)user;
    if (align < sizeof(void *)) align = sizeof(void *);
    size = st_align_up(size ? size : 1, align);
    return st_aligned_alloc(align, size);
}

static void default_free(void *user, void *ptr, size_t size) {
    (void)user;
    (void)size;
    st_aligned_free(ptr);
}

stance_allocator st_allocator(const stance_allocator *a) {
    if (a && a->alloc && a->free) return *a;
    stance_allocator d = {default_alloc, default_free, NULL};
    return d;
}

stance_status st_check_allocator(const stance_allocator *a, const char *who, stance_error *err) {
    if (a && !a->alloc != !a->free)
        return st_fail(err, STANCE_ERR_ARGUMENT,
                       "%s: allocator has %s but no %s (set both, or neither for malloc/free)", who,
                       a->alloc ? "alloc" : "free", a->alloc ? "free" : "alloc");
    return STANCE_OK;
}

void *st_alloc(const stance_allocator *a, size_t size, size_t align) {
    stance_allocator al = st_allocator(a);
    void *p = al.alloc(al.user, size, align);
    if (p) memset(p, 0, size);
    return p;
}

void st_free(const stance_allocator *a, void *ptr, size_t size) {
    if (!ptr) return;
    stance_allocator al = st_allocator(a);
    al.free(al.user, ptr, size);
}

/* ---- the limits of transforms (stance/base.h) ------------------------------ */

static int within(float x, float lo, float hi) {
    const float a = fabsf(x);
    return a >= lo && a <= hi; /* false for NaN */
}

const char *st_check_values(st_values kind, const float *v, char *why, size_t cap) {
    switch (kind) {
    case ST_TRANSLATION:
        for (int c = 0; c < 3; c++)
            if (!within(v[c], 0.0f, STANCE_MAX_TRANSLATION)) {
                snprintf(why, cap, "translation (%g %g %g) is not finite or beyond %g (STANCE_MAX_TRANSLATION)",
                         (double)v[0], (double)v[1], (double)v[2], (double)STANCE_MAX_TRANSLATION);
                return why;
            }
        return NULL;
    case ST_SCALE:
        for (int c = 0; c < 3; c++)
            if (!within(v[c], STANCE_MIN_SCALE, STANCE_MAX_SCALE)) {
                snprintf(why, cap, "scale (%g %g %g) is not finite or its size is not in [%g, %g] "
                         "(STANCE_MIN_SCALE, STANCE_MAX_SCALE)", (double)v[0], (double)v[1], (double)v[2],
                         (double)STANCE_MIN_SCALE, (double)STANCE_MAX_SCALE);
                return why;
            }
        return NULL;
    case ST_ROTATION: {
        const float l2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3];
        if (st_finite_n(v, 4) && l2 > 1e-12f && st_finite(l2)) return NULL;
        snprintf(why, cap, "rotation (%g %g %g %g) is not finite or cannot be normalized", (double)v[0], (double)v[1],
                 (double)v[2], (double)v[3]);
        return why;
    }
    case ST_INVERSE_BIND: /* column-major: element (r, c) at v[4 c + r] */
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 3; r++)
                if (!within(v[4 * c + r], 0.0f, c < 3 ? STANCE_MAX_SCALE : STANCE_MAX_TRANSLATION)) {
                    snprintf(why, cap, "is not finite or beyond the limits (element (%d, %d) is %g; the 3x3 part "
                             "within %g, STANCE_MAX_SCALE, the translation within %g, STANCE_MAX_TRANSLATION)", r, c,
                             (double)v[4 * c + r], (double)STANCE_MAX_SCALE, (double)STANCE_MAX_TRANSLATION);
                    return why;
                }
        if (!(fabsf(v[3]) <= 1e-4f && fabsf(v[7]) <= 1e-4f && fabsf(v[11]) <= 1e-4f && fabsf(v[15] - 1.0f) <= 1e-4f)) {
            snprintf(why, cap, "is not affine (last row %g %g %g %g, not 0 0 0 1)", (double)v[3], (double)v[7],
                     (double)v[11], (double)v[15]);
            return why;
        }
        return NULL;
    }
    return NULL;
}

const char *st_check_trs(const float *t, const float *r, const float *s, char *why, size_t cap) {
    const char *bad = t ? st_check_values(ST_TRANSLATION, t, why, cap) : NULL;
    if (!bad && r) bad = st_check_values(ST_ROTATION, r, why, cap);
    if (!bad && s) bad = st_check_values(ST_SCALE, s, why, cap);
    return bad;
}

int st_copy_name(char *dst, size_t cap, const char *src) {
    if (!src) return 0;
    size_t n = strlen(src);
    if (n == 0 || n >= cap) return 0;
    memcpy(dst, src, n + 1);
    return 1;
}
