/* stance/base.h - status codes and the one error convention (stance_error;
 * every call listed in docs/api.md), allocator, transforms, the limits of values.
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
#define STANCE_VERSION_MINOR 2
#define STANCE_VERSION_PATCH 0
/* One number to compare: MAJOR * 10000 + MINOR * 100 + PATCH (0.2.0 = 200),
 * e.g. #if STANCE_VERSION_NUMBER >= 200 */
#define STANCE_VERSION_NUMBER (STANCE_VERSION_MAJOR * 10000 + STANCE_VERSION_MINOR * 100 + STANCE_VERSION_PATCH)

/* STANCE_API marks every public function: the only symbols a shared stance
 * library exports (the libraries build with -fvisibility=hidden and, on
 * ELF, cmake/exports.map; tests/test_exports.sh checks). GCC and Clang:
 * default visibility. Windows (MSVC, MinGW): a program using a stance DLL
 * defines STANCE_SHARED (dllimport); a DLL's own build defines
 * STANCE_BUILDING_SHARED as well (dllexport); static libraries need
 * neither. */
#if defined(_WIN32) || defined(__CYGWIN__)
#  if defined(STANCE_BUILDING_SHARED)
#    define STANCE_API __declspec(dllexport)
#  elif defined(STANCE_SHARED)
#    define STANCE_API __declspec(dllimport)
#  else
#    define STANCE_API
#  endif
#elif defined(__GNUC__) || defined(__clang__)
#  define STANCE_API __attribute__((visibility("default")))
#else
#  define STANCE_API
#endif

/* "MAJOR.MINOR.PATCH" of the library linked (which may differ from the
 * header's macros when a program runs against another shared library). */
STANCE_API const char *stance_version(void);
/* STANCE_VERSION_NUMBER of the library linked. */
STANCE_API int stance_version_number(void);

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

/* A status plus a readable sentence. The convention of every public call
 * that can fail (docs/api.md lists them all): it returns a stance_status
 * and takes `stance_error *err` as its last parameter. err may be NULL
 * (nothing is written). On success it gets STANCE_OK and an empty message;
 * on failure the status returned and one line saying what was wrong (the
 * call, the argument, the value or name, and for an unknown name the
 * closest known one), and unless its header says otherwise (a batch
 * update, a compression of many clips) the call changed nothing. Queries
 * that cannot fail beyond a NULL object or a bad index take no err and
 * answer -1, 0 or NULL (each header says which). */
typedef struct stance_error {
    stance_status status;
    char message[256];
} stance_error;

/* A short fixed name for a status ("ok", "bad argument", ...). Never NULL. */
STANCE_API const char *stance_status_name(stance_status status);

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
STANCE_API stance_transform stance_transform_identity(void);

/* ---- the limits of transforms (issue 22) -----------------------------------
 * One rule, checked where values enter the library by one function (the same
 * check and the same message everywhere):
 *   translation  every component finite and |x| <= STANCE_MAX_TRANSLATION
 *   scale        every component finite and STANCE_MIN_SCALE <= |x| <=
 *                STANCE_MAX_SCALE (either sign: a negative scale mirrors)
 *   rotation     finite with a squared length > 1e-12 (it is normalized;
 *                the world root's must be within 1e-3 of unit length)
 *   skin matrix  an inverse bind: finite, its 3x3 part |x| <= STANCE_MAX_SCALE,
 *                its translation column |x| <= STANCE_MAX_TRANSLATION, its
 *                last row 0 0 0 1 within 1e-4
 *   position     a mesh vertex or an IK target or pole: as a translation
 *   chain        the product of the largest |scale| component along every
 *                chain (a root joint down to each joint) <= STANCE_MAX_SCALE:
 *                for a skeleton's rest pose (stance_skeleton_create), and for
 *                what a graph's clips, additive layers and rest pose can give
 *                each joint (stance_graph_create; see build.h)
 * Where values enter: stance_instance_set_root (and the footlock stage's
 * root), stance_pose_set, stance_skeleton_create (rest pose and chains),
 * stance_clip_create (translation and scale keys, the root path), compressed
 * clips (the ranges their keys decode to: a .stance file's and the
 * compressor's), stance_skin_create (inverse binds), stance_mesh_create
 * (positions), stance_instance_set_ik_target / _pole, stance_graph_create
 * (chains). Files go through the same functions: the .stance loader
 * (src/core/asset*.c) and its compiled graph, graph files and the importers
 * (src/io) build everything through them, so a file gets the same rule and
 * message (after its path), and a reload's graph too.
 *
 * Why these bounds keep every pose and skin matrix finite (the worst case:
 * a chain of N <= STANCE_MAX_JOINTS = 1024 joints, every one at the limits;
 * T = STANCE_MAX_TRANSLATION, S = STANCE_MAX_SCALE, FLT_MAX ~ 3.4e38):
 *  - Scales multiply down a chain (model s = parent s * local s, per axis),
 *    so a bound per joint is not enough: S^N overflows from N = 7. The chain
 *    rule bounds every model-space scale component by S. At run time it
 *    holds on every frame: a machine outputs clip samples (lerps of keys),
 *    blends and fades of them (convex), or a velocity-mode switch's
 *    transient, which is held within the largest |scale| the graph's clips
 *    give the joint (src/core/graph/graph_bounds.c); layers lerp, and an additive
 *    layer multiplies by at most its delta's largest, which the graph's
 *    chain rule counts.
 *  - Translations add: model t = parent t + rotate(parent s * local t), so
 *    |model t| <= sqrt(3) L (1 + (N - 1) S) for local translations within L
 *    per component. Keys are within T; a transient is held within 16 T; at
 *    most 15 additive layers add at most as much each: L <= 256 T = 2.6e8,
 *    so |model t| <= 4.6e17 and squared distances (the IK solves) stay
 *    below 4e36.
 *  - The world root: |t| <= T and |s| <= S put world positions within 8e23.
 *    The footlock stage maps world locks back (dividing by the root's scale,
 *    >= STANCE_MIN_SCALE: at most 8e29) and lets go of a lock further than
 *    1e17 from the character, so its targets stay within 1e17 of it; its
 *    pelvis drop (at most such a distance, over the parent's model scale,
 *    floored at 1e-12) keeps the local pose finite.
 *  - A skin matrix is model * inverse bind: its 3x3 entries within 3 S S =
 *    3e12, its translation within 3 S T + |model t| <= 4.6e17.
 * Every figure is below FLT_MAX, the squared distances by a factor of 80,
 * the others by more than 1e8: far more than float rounding can add. tests/test_edges.c builds that chain (1024 joints
 * at the limits, every switch mode, an additive layer, a footlock, the root
 * jumping between the limits) and checks its poses and skin matrices. */
#define STANCE_MAX_TRANSLATION 1e6f
#define STANCE_MIN_SCALE 1e-6f
#define STANCE_MAX_SCALE 1e6f

#ifdef __cplusplus
}
#endif
#endif
