/* src/core/frame/frame_copy.h - which compilation of the frame's stages
 * (advance.c, evaluate.c, ik_stage.c, and their order in core/frame/frame.h) a
 * file is, and the switch every fast path of theirs is guarded by
 * (docs/fast-paths.md lists them).
 *
 * The stages are compiled once as they are (the fast paths: ST_FAST is 1,
 * the fused passes and local-to-model in the CPU's best encoding) and again
 * by frame_reference.c and frame_sse2.c as two copies a workspace can be
 * switched to by tests (st_workspace_set_frame, core/frame/workspace.h):
 *  - ST_FRAME_COPY_REFERENCE: every fast path off (ST_FAST is 0, so each
 *    `if (ST_FAST && ...)` takes the general path; the IK entries'
 *    local-to-model the whole pass) and the baseline encoding (SSE2, or the
 *    scalar form) of local-to-model;
 *  - ST_FRAME_COPY_SSE2: the fast paths, with the fused passes and
 *    local-to-model forced to the baseline encoding (the copies the CPUs
 *    without AVX run), whatever the CPU.
 * The switch is a compile-time constant in each copy, so the fast path pays
 * nothing for it; a workspace picks its copy once per update call
 * (frame.c). Include this first: in a copy it renames the stages' external
 * functions (name_reference, name_sse2). */
#ifndef STANCE_FRAME_COPY_H
#define STANCE_FRAME_COPY_H

#include "core/base/internal.h"
#include "core/clip/clip_internal.h"
#include "core/rig/rig_internal.h"

#if defined(ST_FRAME_COPY_REFERENCE) || defined(ST_FRAME_COPY_SSE2)
#if defined(ST_FRAME_COPY_REFERENCE)
#define ST_FAST 0
#define ST_COPY_NAME(name) name##_reference
#else
#define ST_FAST 1
#define ST_COPY_NAME(name) name##_sse2
#endif
#define adv_frame ST_COPY_NAME(adv_frame)
#define adv_frame_skip ST_COPY_NAME(adv_frame_skip)
#define adv_reset_machine ST_COPY_NAME(adv_reset_machine)
#define adv_blend_weights ST_COPY_NAME(adv_blend_weights)
#define adv_normalized ST_COPY_NAME(adv_normalized)
#define ev_frame ST_COPY_NAME(ev_frame)
#define ev_jobs ST_COPY_NAME(ev_jobs)
#define ik_frame ST_COPY_NAME(ik_frame)
/* the baseline encoding of the fused passes (fused.h) and of local-to-model */
#define ST_FUSED(name) st_fused_##name##_base
#define ST_L2M(model, local, sk) ((void)st_local_to_model_as(model, local, sk, NULL, 0))
#else
#define ST_FAST 1
#define ST_FUSED(name) st_fused_##name
#define ST_L2M(model, local, sk) st_local_to_model_range(model, local, sk, -1, 0)
#endif
/* local-to-model of the joints an IK entry turned (g_ik.l2m_from, l2m_to):
 * their subtree, or (from -1, and in the reference) the whole pass */
#define ST_L2M_SUBTREE(model, local, sk, from, to)                                             \
    do {                                                                                       \
        if (ST_FAST && (from) >= 0) st_local_to_model_range(model, local, sk, from, to);      \
        else ST_L2M(model, local, sk);                                                         \
    } while (0)

/* clip.c's general paths (core/clip/clip_internal.h): what the reference
 * copy's advance calls; the fast copy calls the st_ twins with shortcuts */
#if ST_FAST
#define ST_CLIP_ADVANCE st_clip_advance
#define ST_CLIP_ROOT_MOTION st_clip_root_motion
#else
#define ST_CLIP_ADVANCE st_clip_advance_general
#define ST_CLIP_ROOT_MOTION st_clip_root_motion_general
#endif

#endif
