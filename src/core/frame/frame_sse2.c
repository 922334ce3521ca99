/* src/core/frame/frame_sse2.c - the frame's stages (advance.c, evaluate.c,
 * ik_stage.c, in core/frame/frame.h's order) compiled a second time with their
 * fast paths on and the fused passes and local-to-model in the build's
 * baseline encoding (SSE2, or the scalar form) whatever the CPU: the copies
 * a CPU without AVX runs, run here on any CPU for tests (core/frame/frame_copy.h;
 * st_workspace_set_frame in frame_reference.c switches a workspace to it).
 * Owns no code of its own. */
#define ST_FRAME_COPY_SSE2 1
#include "core/frame/advance.c"
#include "core/frame/evaluate.c"
#include "core/frame/ik_stage.c"
#include "core/frame/frame.h"

stance_status st_frame_sse2(stance_instance *inst, stance_workspace *ws, float dt, unsigned flags);
stance_status st_frame_sse2(stance_instance *inst, stance_workspace *ws, float dt, unsigned flags) {
    return fr_stages(inst, ws, dt, flags);
}
