/* src/core/base.c - status names, error messages, the default allocator.
 * Owns no state: the default allocator is plain malloc/free. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

#define ST_STR_(x) #x
#define ST_STR(x) ST_STR_(x)
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

stance_status st_fail(stance_error *err, stance_status status, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->status = status;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return status;
}

stance_status st_ok(stance_error *err) {
    if (err) {
        err->status = STANCE_OK;
        err->message[0] = 0;
    }
    return STANCE_OK;
}

static void *default_alloc(void *user, size_t size, size_t align) {
    (void)user;
    if (align < sizeof(void *)) align = sizeof(void *);
    size = st_align_up(size ? size : 1, align);
    return aligned_alloc(align, size);
}

static void default_free(void *user, void *ptr, size_t size) {
    (void)user;
    (void)size;
    free(ptr);
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

int st_copy_name(char *dst, size_t cap, const char *src) {
    if (!src) return 0;
    size_t n = strlen(src);
    if (n == 0 || n >= cap) return 0;
    memcpy(dst, src, n + 1);
    return 1;
}
