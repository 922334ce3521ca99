/* stance/ik.h - inverse kinematics jobs on SoA poses: two-bone IK (legs,
 * arms) with a pole vector and a soft limit near full extension, and aim /
 * look-at distributed over a chain of joints.
 *
 * Each job reads a local pose and the model pose computed from it with
 * stance_local_to_model(model, local, skeleton, NULL, err) (the character's own
 * space: targets, poles and directions are given in that space), and writes
 * the corrected local rotations of the joints it solves into `local`. The
 * model pose is read only: joints below the solved ones are out of date
 * until the caller runs stance_local_to_model again. Nothing here allocates,
 * does I/O or keeps state; jobs on different characters run on different
 * threads freely.
 *
 * Inputs are validated (indices, hierarchy, finite targets, weights in
 * [0, 1]): bad ones return a status and leave the pose untouched. Targets
 * that cannot be reached, zero-length bones, a target on the root joint or a
 * pole on the leg's axis give a defined pose (documented per job), never
 * NaN. Chains are assumed free of non-uniform scale. */
#ifndef STANCE_IK_H
#define STANCE_IK_H

#include "base.h"
#include "pose.h"
#include "skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- two-bone IK --------------------------------------------------------- */

/* A hip/knee/ankle or shoulder/elbow/wrist chain and its goal. All zero
 * except the joints and the target is the plain solve: no pole (the knee
 * keeps bending the way it bends now), a hard limit at full extension, the
 * end joint's rotation carried along. */
typedef struct stance_two_bone_desc {
    int upper;   /* hip / shoulder */
    int lower;   /* knee / elbow: a descendant of `upper` */
    int end;     /* ankle / wrist: the effector. Normally a descendant of
                    `lower`; it may also be a joint outside the upper's
                    subtree (an IK control bone, as RobotExpressive's feet):
                    its model position is then taken as a point carried by
                    the lower bone, and the job does not move the joint. */
    float target[3];   /* where the end joint should be, model space */
    int use_pole;      /* 1: bend towards `pole`; 0: keep the current bend */
    float pole[3];     /* model-space point the knee points at (use_pole) */
    float softness;    /* [0, 1): the last fraction of the full reach over which
                          the soft limit eases the chain towards full extension
                          (d' = da + s (1 - exp(-(d - da) / s)), s = softness *
                          reach, da = reach - s); 0 = hard limit */
    int keep_end_rotation; /* 1: the end joint keeps its model rotation (a
                              foot stays as the clip oriented it) */
    float hinge[3];    /* the knee's hinge axis in the lower joint's local
                          frame, used only when the chain is straight (no
                          bend plane to keep); zero = a fixed perpendicular */
} stance_two_bone_desc;

typedef struct stance_two_bone_result {
    float error;       /* distance from the solved end joint to the target
                          (at weight 1): 0 when reached, > 0 when out of reach
                          or eased by the soft limit */
    int unreachable;   /* the target was beyond the reach or inside the
                          smallest fold; the chain points at it, straight or folded */
    int degenerate;    /* a zero-length bone: the pose was left as it was */
} stance_two_bone_result;

/* Solves the chain so the end joint reaches desc->target (or comes as close
 * as the bone lengths allow, pointing at it), then blends the new local
 * rotations of upper, lower (and end with keep_end_rotation) with the old
 * ones by `weight` in [0, 1] (0 leaves the pose unchanged). The knee stays a
 * hinge: it bends about the axis normal to its current bend plane, and the
 * whole chain then turns about the upper joint (towards the target, then
 * about the hip-target axis so the knee points at the pole).
 * Defined cases: target on the upper joint: the chain folds along its
 * current direction; pole on the hip-target axis: the current bend is kept;
 * straight chain without a pole: bends about `hinge` (or a fixed
 * perpendicular); a zero-length bone: nothing changes (result->degenerate).
 * result may be NULL. */
STANCE_API stance_status stance_ik_two_bone(const stance_two_bone_desc *desc, float weight,
                                 const stance_skeleton *skeleton, stance_pose *local,
                                 const stance_pose *model, stance_two_bone_result *result,
                                 stance_error *err);

/* ---- aim / look-at over a chain ------------------------------------------ */

#define STANCE_AIM_MAX_CHAIN 16

/* Turns a chain (spine, neck, head: each joint a descendant of the one
 * before) so that `forward`, an axis in the end joint's frame, points from
 * the end joint at the target. */
typedef struct stance_aim_desc {
    int chain_count;          /* 1..STANCE_AIM_MAX_CHAIN */
    const int *chain;         /* joints from the top (spine) to the end (head) */
    const float *weights;     /* per joint in [0, 1]: the share of the remaining
                                 turn that joint takes; NULL = spread evenly
                                 (joint i takes 1 / (n - i) of what remains, so
                                 the end joint takes the rest) */
    const float *max_angles;  /* per joint, the largest turn in radians [0, pi];
                                 NULL = no limits */
    float target[3];          /* model-space point to look at */
    float forward[3];         /* end joint's frame; zero = +Z */
    float up[3];              /* end joint's frame; zero = +Y (used with up_target) */
    int use_up;               /* 1: after aiming, the end joint twists about the
                                 forward axis so `up` leans to `up_target` */
    float up_target[3];       /* model-space direction for `up` */
} stance_aim_desc;

typedef struct stance_aim_result {
    float angle_error;        /* radians between forward and the target direction
                                 after the solve (at weight 1); > 0 when limits
                                 or weights stop it short */
    int degenerate;           /* target on the end joint: nothing changed */
} stance_aim_result;

/* Joint by joint from the top, each turns (about its own origin, shortest
 * way) by its share of the angle still left between the end's forward axis
 * and the direction from the end joint to the target, clamped to its limit;
 * the end joint then twists for `up`. New local rotations are blended with
 * the old ones by `weight` in [0, 1]. result may be NULL. */
STANCE_API stance_status stance_ik_aim(const stance_aim_desc *desc, float weight,
                            const stance_skeleton *skeleton, stance_pose *local,
                            const stance_pose *model, stance_aim_result *result,
                            stance_error *err);

#ifdef __cplusplus
}
#endif
#endif
