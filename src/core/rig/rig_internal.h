/* src/core/rig/rig_internal.h - what rig/ (skeleton, poses, local-to-model)
 * gives the layers above it beyond the public API: the local-to-model runs'
 * encoding, the frame's subtree pass, the padded blends, and the frame's
 * calls of public pose functions without the message buffer. Not public. */
#ifndef STANCE_RIG_INTERNAL_H
#define STANCE_RIG_INTERNAL_H

#include "core/base/internal.h"

struct stance_pose;
struct stance_skeleton;

/* local-to-model runs (stance_skeleton.l2m_runs): how a run fetches its
 * parents (g[2]) and what it may load and store whole (g[4]) */
enum { ST_RUN_X, ST_RUN_ROOT, ST_RUN_ONE, ST_RUN_ROW, ST_RUN_GATHER };
enum { ST_RUN_LOAD4 = 1, ST_RUN_STORE4 = 2, ST_RUN_KEEP = 4 /* the next run takes its parents from this one's results */ };

/* local_to_model.c, for tests: stance_local_to_model in one encoding (0 SSE2 or the
 * scalar form, 1 VEX); 0 when that encoding is not in this build or CPU,
 * else 1 (the checks are the caller's) */
int st_local_to_model_as(struct stance_pose *model, const struct stance_pose *local, const struct stance_skeleton *sk,
                         const stance_transform *root, int vex);
/* pose.c, for tests: stance_pose_blend's two-pose pass (sv_block_blend2 on
 * poses of pc padded joints, weights wa, wb > 0 summing to 1) in one
 * encoding, as st_local_to_model_as */
int st_pose_blend2_as(float *o, const float *a, const float *b, float wa, float wb, int pc, int vex);
/* local_to_model.c: the frame's local-to-model stage on the runtime's own
 * poses (the checks are the caller's). from < 0: every joint (the
 * schedule, as stance_local_to_model without a root transform); else joint
 * from's subtree, within from..to (the rest keeps its model transforms),
 * from the subtree's local transforms and its parents' model ones. */
void st_local_to_model_range(struct stance_pose *model, const struct stance_pose *local, const struct stance_skeleton *sk,
                             int from, int to);
/* skeleton.c, for tests: the local-to-model schedule of a tree (n joints,
 * parents as stance_skeleton_desc's, already validated) in one form, runs 1
 * (stance_skeleton.l2m_runs) or 0 (tiles and groups), into out (9 n
 * shorts); returns the item count. stance_skeleton_create picks the cheaper. */
int st_l2m_schedule_as(const int *parents, int n, int runs, short *out);
/* pose.c, for the runtime's own poses: the masked blend and the additive
 * apply of stance_pose.h over all padded_count joints, 4 at a time, with a
 * mask (or NULL) of padded_count weights. No checks. */
void st_blend_masked_padded(struct stance_pose *out, const struct stance_pose *base, const struct stance_pose *layer,
                            const float *mask, float weight);
void st_additive_apply_padded(struct stance_pose *out, const struct stance_pose *base, const struct stance_pose *delta,
                              const float *mask, float weight);

/* ---- the frame's own calls of public functions (issue 23) ---------
 * Each is its public function without the message buffer (one body,
 * compiled with err a constant NULL), for the per-update path: the frame
 * passes checked arguments and wants no message, so it pays for no err
 * argument and no test of it. The statuses are the public function's. */
stance_status st_pose_copy(struct stance_pose *dst, const struct stance_pose *src);
stance_status st_pose_additive_make(struct stance_pose *delta, const struct stance_pose *pose,
                                    const struct stance_pose *reference);
stance_status st_pose_additive_apply(struct stance_pose *out, const struct stance_pose *base,
                                     const struct stance_pose *delta, const float *joint_weights, float weight);
stance_status st_pose_blend_mesh(struct stance_pose *out, const struct stance_pose *base_local,
                                 const struct stance_pose *layer_local, const struct stance_pose *layer_model,
                                 const float *joint_weights, float weight, const struct stance_skeleton *skeleton);
stance_status st_local_to_model(struct stance_pose *model, const struct stance_pose *local,
                                const struct stance_skeleton *skeleton, const stance_transform *root);

#endif
