/* stance/base.h - status codes, error messages, allocator, transforms.
 *
 * Owns the few types every other header uses. Nothing here allocates or
 * touches global state. */
#ifndef STANCE_BASE_H
#define STANCE_BASE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version. CMakeLists.txt's project(VERSION) is the source:
 * configuring fails when these differ from it, and test_version checks the
 * built library, the .pc files and the CMake package against it. */
#define STANCE_VERSION_MAJOR 0
#define STANCE_VERSION_MINOR 1
#define STANCE_VERSION_PATCH 0

/* "MAJOR.MINOR.PATCH" of the library linked (which may differ from the
 * header's macros when a program runs against another shared library). */
const char *stance_version(void);

/* Every public function that can fail returns one of these. */
typedef enum stance_status {
    STANCE_OK = 0,
    STANCE_ERR_ARGUMENT,  /* a NULL pointer, a count out of range, a bad index */
    STANCE_ERR_VALUE,     /* NaN or infinity, a quaternion that cannot be normalized */
    STANCE_ERR_ORDER,     /* key times not increasing, a parent not before its child */
    STANCE_ERR_MEMORY,    /* the allocator returned NULL or a buffer is too small */
    STANCE_ERR_NOT_FOUND, /* an unknown name */
    STANCE_ERR_FORMAT,    /* a malformed file or description */
    STANCE_ERR_IO,        /* a file could not be read or written */
    STANCE_ERR_UNSUPPORTED
} stance_status;

/* A status plus a readable sentence. Pass NULL where the message is not wanted. */
typedef struct stance_error {
    stance_status status;
    char message[256];
} stance_error;

/* A short fixed name for a status ("ok", "bad argument", ...). Never NULL. */
const char *stance_status_name(stance_status status);

/* Memory comes from here. All fields zero (or a NULL pointer) = malloc/free.
 * alloc must return memory aligned to at least `align` (a power of two <= 64),
 * or NULL. free receives the pointer and the size that was asked for. One of
 * the two without the other is refused by every function that takes an
 * allocator (runtime and importer) with STANCE_ERR_ARGUMENT and the message
 * "WHO: allocator has alloc but no free (set both, or neither for
 * malloc/free)" (or "free but no alloc"); nothing is allocated then. */
typedef struct stance_allocator {
    void *(*alloc)(void *user, size_t size, size_t align);
    void (*free)(void *user, void *ptr, size_t size);
    void *user;
} stance_allocator;

/* One joint's transform: translation (metres), rotation quaternion (x, y, z, w)
 * and scale. Composition is parent * child: scale, then rotate, then translate. */
typedef struct stance_transform {
    float t[3];
    float r[4];
    float s[3];
} stance_transform;

/* The identity transform (t = 0, r = (0,0,0,1), s = 1). */
stance_transform stance_transform_identity(void);

#ifdef __cplusplus
}
#endif
#endif
