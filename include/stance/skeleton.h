/* stance/skeleton.h - joints, hierarchy, rest pose, and joint sets for masks.
 *
 * A skeleton is shared and immutable once created; any number of characters
 * and threads may read it at once. */
#ifndef STANCE_SKELETON_H
#define STANCE_SKELETON_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STANCE_MAX_JOINTS 1024
#define STANCE_MAX_NAME 64 /* bytes of a name, including the terminating zero */

/* What stance_skeleton_create reads. Zero fields take the defaults named. */
typedef struct stance_skeleton_desc {
    int joint_count;                 /* 1..STANCE_MAX_JOINTS */
    const char *const *names;        /* joint_count names, unique, 1..63 bytes; NULL = "joint<i>" */
    const int *parents;              /* joint_count indices; -1 for a root; parent < child */
    const stance_transform *rest;    /* joint_count local rest transforms; NULL = identity */
} stance_skeleton_desc;

/* Read-only after creation. Fields are public so a debugger and a tool can
 * read them; change none of them. */
typedef struct stance_skeleton {
    int joint_count;
    int padded_count;        /* joint_count rounded up to a multiple of 8 */
    const int *parents;      /* joint_count */
    const char *names;       /* joint_count * STANCE_MAX_NAME bytes */
    const stance_transform *rest; /* joint_count local rest transforms (rotations normalized) */
    /* The local-to-model schedule, items of 9 shorts run in order, each
     * after the items holding its joints' parents. A group: g[0] = 1..4
     * joints g[1..4] that depend on none of each other (lanes past the count
     * repeat the last), their parents g[5..8]. A tile: g[0] = 5..8, 4 lanes,
     * each a run of consecutive joints a, a+1, .. where each is the parent
     * of the next, 4 of them in lanes 0..2 and 9 - g[0] (4..1) in lane 3;
     * g[1..4] the runs' first joints (a lane may repeat another), g[5..8]
     * their parents. An item's lanes are all roots (parent -1) or none.
     * When l2m_runs is 1 every item is a run instead: g[0] = 1..4
     * consecutive joints from g[1] that depend on none of each other, whose
     * parents g[5..8] come earlier (lanes past the count repeat the last);
     * g[2] how the parents are fetched, g[3] a lane shift, g[4] flags
     * (src/core/rig/local_to_model.c). A skeleton in the order of
     * stance_skeleton_fast_order gets runs. */
    int l2m_group_count;
    const short *l2m_groups;
    int l2m_runs;
    stance_allocator allocator;
    size_t bytes;            /* size of the one block that holds this skeleton */
} stance_skeleton;

/* Validates the description (counts, names, parent order, rest values within
 * the limits of stance/base.h and its chain rule: the product of the largest
 * |rest scale| down every chain <= STANCE_MAX_SCALE; rotations that
 * normalize) and creates the skeleton in one allocation. */
STANCE_API stance_status stance_skeleton_create(const stance_skeleton_desc *desc,
                                     const stance_allocator *allocator, /* NULL = malloc */
                                     stance_skeleton **out, stance_error *err);
STANCE_API void stance_skeleton_destroy(stance_skeleton *skeleton); /* NULL is fine */

/* A joint order under which local-to-model (and so every update) runs 4
 * joints at a time: consecutive joints that depend on none of each other,
 * their parents computed before them, longest chains first. parents: as
 * stance_skeleton_desc.parents (joint_count of them, parent < child).
 * order[i] receives the index, in parents' numbering, of the joint to put at
 * position i (parents still come before children; a single root stays
 * joint 0). The importers build skeletons in this order; a skeleton in any
 * other order works the same, at the speed of its chains. */
STANCE_API stance_status stance_skeleton_fast_order(const int *parents, int joint_count, int *order, stance_error *err);

/* The joint's name; "" for an index out of range. */
STANCE_API const char *stance_skeleton_joint_name(const stance_skeleton *skeleton, int joint);
/* The index of a joint by exact name, or -1. */
STANCE_API int stance_skeleton_find(const stance_skeleton *skeleton, const char *name);
/* 1 when `joint` is `ancestor` or lies below it, else 0. */
STANCE_API int stance_skeleton_is_descendant(const stance_skeleton *skeleton, int joint, int ancestor);

/* ---- joint sets (masks): a weight in [0, 1] per joint -------------------
 * Each writes skeleton->joint_count floats into `weights` (caller-owned). */

/* `weight` on `root_joint` and every joint below it, 0 elsewhere. With
 * falloff > 0 the weight ramps in over the first `falloff` levels below the
 * root: depth d gets weight * min(1, (d + 1) / (falloff + 1)). */
STANCE_API stance_status stance_mask_subtree(const stance_skeleton *skeleton, int root_joint,
                                  float weight, int falloff, float *weights,
                                  stance_error *err);
/* `weight` on each named joint (only those joints), 0 elsewhere. */
STANCE_API stance_status stance_mask_names(const stance_skeleton *skeleton, const char *const *names,
                                int name_count, float weight, float *weights,
                                stance_error *err);
/* Validates explicit per-joint weights (finite, in [0, 1]) and copies them. */
STANCE_API stance_status stance_mask_weights(const stance_skeleton *skeleton, const float *in,
                                  float *weights, stance_error *err);

#ifdef __cplusplus
}
#endif
#endif
