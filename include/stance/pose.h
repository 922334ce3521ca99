/* stance/pose.h - structure-of-arrays pose buffers and the operations on them:
 * weighted blend, masked blend, mesh-space blend, additive, local-to-model,
 * pose distance.
 *
 * Per-frame functions here never allocate and never do I/O. They check their
 * arguments (NULL, unbound poses, joint counts that differ, weights out of
 * range) and return a status with its message in err, leaving the output
 * untouched; they do not re-check every float, which was checked when clips
 * and skeletons were created. */
#ifndef STANCE_POSE_H
#define STANCE_POSE_H

#include "base.h"
#include "skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A pose: 10 float arrays of `padded_count` entries each (padded_count is
 * joint_count rounded up to 8; the padding holds the identity). The same type
 * holds local poses (relative to the parent) and model poses (relative to the
 * character's root). Bind memory with stance_pose_init, or let
 * stance_pose_create allocate it.
 *
 * Layout: the arrays lie one after another in the bound block, in the order
 * below, padded_count floats apart (tx at the block's start, sz ending at
 * its end). The 4-wide loops may load any 4 consecutive entries inside one
 * array's padded_count, padding included; they never touch memory before an
 * array's first entry or past its padding (stance_local_to_model: checked
 * with guard pages on both sides of the block, tests/test_simd.c). Values
 * loaded from the padding never reach a joint's result, and
 * stance_local_to_model writes only the joint_count entries of each array. */
typedef struct stance_pose {
    int joint_count;
    int padded_count;
    float *tx, *ty, *tz;        /* translation */
    float *qx, *qy, *qz, *qw;   /* rotation, unit quaternion */
    float *sx, *sy, *sz;        /* scale */
    void *memory;               /* start of the bound block */
    stance_allocator allocator; /* set by stance_pose_create only */
} stance_pose;

/* Bytes of memory a pose of joint_count joints needs (aligned to 32); 0 for
 * a count outside 1..STANCE_MAX_JOINTS. */
STANCE_API size_t stance_pose_bytes(int joint_count);
/* Binds `memory` (at least stance_pose_bytes(joint_count) bytes, 32-byte
 * aligned) to `pose` and fills it with the identity. */
STANCE_API stance_status stance_pose_init(stance_pose *pose, int joint_count, void *memory,
                               size_t bytes, stance_error *err);
STANCE_API stance_status stance_pose_create(stance_pose *pose, int joint_count,
                                 const stance_allocator *allocator, stance_error *err);
STANCE_API void stance_pose_destroy(stance_pose *pose); /* for poses from stance_pose_create */

/* Every joint (the padding too) to the identity. */
STANCE_API stance_status stance_pose_set_identity(stance_pose *pose, stance_error *err);
/* The skeleton's rest pose (the same joint count). */
STANCE_API stance_status stance_pose_set_rest(stance_pose *pose, const stance_skeleton *skeleton, stance_error *err);
STANCE_API stance_status stance_pose_copy(stance_pose *dst, const stance_pose *src, stance_error *err);
STANCE_API stance_status stance_pose_get(const stance_pose *pose, int joint, stance_transform *out, stance_error *err);
/* Validates the transform (the limits of stance/base.h: translation, scale,
 * a normalizable rotation; else STANCE_ERR_VALUE naming the limit) and
 * stores it normalized. */
STANCE_API stance_status stance_pose_set(stance_pose *pose, int joint, const stance_transform *in, stance_error *err);

/* Weighted blend of `count` poses (1..64). Weights must be finite and >= 0;
 * they are normalized. Rotations are aligned to the first pose with a
 * non-zero weight and normalized (nlerp). When the weights sum to less than
 * `threshold` (0 = 1e-4), the output is the skeleton's rest pose. */
STANCE_API stance_status stance_pose_blend(stance_pose *out, const stance_pose *const *poses,
                                const float *weights, int count, float threshold,
                                const stance_skeleton *skeleton, stance_error *err);

/* Masked blend in local space: for each joint, out = lerp(base, layer, w)
 * with w = weight * joint_weights[j] (joint_weights NULL = 1 everywhere);
 * w = 0 keeps base exactly, w = 1 takes layer exactly. out may alias base. */
STANCE_API stance_status stance_pose_blend_masked(stance_pose *out, const stance_pose *base,
                                       const stance_pose *layer, const float *joint_weights,
                                       float weight, stance_error *err);

/* Masked blend in mesh (model) space: masked joints keep the layer's
 * model-space rotation (slerp-free nlerp towards it by w); the result is
 * converted back to local through the output's own parents, so a joint with
 * w = 1 has exactly the layer's model-space rotation whatever the base does.
 * Translations and scales blend in local space. `layer_model` is the layer's
 * model pose (from stance_local_to_model), `base_local` the pose below.
 * out must not alias the inputs. */
STANCE_API stance_status stance_pose_blend_mesh(stance_pose *out, const stance_pose *base_local,
                                     const stance_pose *layer_local,
                                     const stance_pose *layer_model,
                                     const float *joint_weights, float weight,
                                     const stance_skeleton *skeleton, stance_error *err);

/* Additive: delta = difference of pose from reference, per joint:
 * rotation inverse(ref) * pose, translation pose - ref, scale pose / ref. */
STANCE_API stance_status stance_pose_additive_make(stance_pose *delta, const stance_pose *pose,
                                        const stance_pose *reference, stance_error *err);
/* out = base + weight * delta per joint (joint_weights NULL = 1):
 * rotation base * nlerp(identity, delta, w), translation base + w * delta,
 * scale base * lerp(1, delta, w). out may alias base. */
STANCE_API stance_status stance_pose_additive_apply(stance_pose *out, const stance_pose *base,
                                         const stance_pose *delta, const float *joint_weights,
                                         float weight, stance_error *err);

/* Local to model: model[j] = model[parent[j]] * local[j] (root joints take
 * `root`, NULL = identity). Scale composes per axis (no shear). */
STANCE_API stance_status stance_local_to_model(stance_pose *model, const stance_pose *local,
                                    const stance_skeleton *skeleton,
                                    const stance_transform *root, stance_error *err);
/* Model to local, the inverse (used by mesh-space blending). */
STANCE_API stance_status stance_model_to_local(stance_pose *local, const stance_pose *model,
                                    const stance_skeleton *skeleton, stance_error *err);

/* Largest distance between the translations of two model poses; the joint
 * where it happens goes to *joint (may be NULL). */
STANCE_API stance_status stance_pose_distance(const stance_pose *a, const stance_pose *b,
                                   float *distance, int *joint, stance_error *err);

/* Column-major 4x4 matrices from a model pose (16 floats per joint;
 * matrix_count, the capacity of `matrices`, at least its joint count). */
STANCE_API stance_status stance_pose_to_matrices(const stance_pose *model, float *matrices,
                                      int matrix_count, stance_error *err);

#ifdef __cplusplus
}
#endif
#endif
