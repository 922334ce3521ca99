/* tests/refusal.h - how the tests check the error convention (stance/base.h,
 * docs/api.md): REFUSED runs a call with err and with NULL and checks the
 * status, err's status, the phrases of its message and that what the call
 * was given is unchanged; ACCEPTED checks a call clears a stale err. */
#ifndef STANCE_TESTS_REFUSAL_H
#define STANCE_TESTS_REFUSAL_H
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stance/base.h"

/* err as a caller may leave it: a stale failure */
static inline stance_error *junk(stance_error *e) {
    e->status = STANCE_ERR_IO;
    strcpy(e->message, "junk from an earlier call");
    return e;
}

/* The bytes of one object, to check a refusal left it as it was. */
typedef struct snapshot {
    const void *at;
    size_t size;
    unsigned char *bytes;
} snapshot;
static inline snapshot take(const void *at, size_t size) {
    snapshot s = {at, size, at && size ? malloc(size) : NULL};
    if (s.bytes) memcpy(s.bytes, at, size);
    return s;
}
static inline int kept(snapshot *s) {
    int same = !s->at || !s->size || (s->bytes && !memcmp(s->bytes, s->at, s->size));
    free(s->bytes);
    s->bytes = NULL;
    return same;
}

/* expr uses E (the err pointer): run once with err, once with NULL. Both
 * return `want`; err gets it and a message holding every phrase; the
 * object at `at` (size bytes; NULL: none) is unchanged. */
#define REFUSED(at, size, want, expr, ...) do { \
    snapshot snap_ = take((at), (size)); \
    stance_error e_; \
    stance_error *E = junk(&e_); \
    stance_status got_ = (expr); \
    CHECK_STATUS(got_, want); \
    CHECK(e_.status == (want)); \
    const char *has_[] = {__VA_ARGS__, NULL}; \
    for (int h_ = 0; has_[h_]; h_++) \
        if (!strstr(e_.message, has_[h_])) { \
            check_failures_++; \
            fprintf(stderr, "%s:%d: message \"%s\" lacks \"%s\"\n", __FILE__, __LINE__, e_.message, has_[h_]); \
        } \
    E = NULL; \
    CHECK_STATUS((expr), want); \
    CHECK(kept(&snap_)); \
} while (0)
/* expr accepted: STANCE_OK, err STANCE_OK with an empty message */
#define ACCEPTED(expr) do { \
    stance_error e_; \
    stance_error *E = junk(&e_); \
    CHECK_OK(expr); \
    CHECK(e_.status == STANCE_OK && e_.message[0] == 0); \
    (void)E; \
} while (0)
#endif
