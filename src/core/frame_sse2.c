/* src/core/frame_sse2.c - the frame's passes (advance.c, evaluate.c)
 * compiled a second time with their fast paths on and the fused passes and
 * local-to-model in the build's baseline encoding (SSE2, or the scalar
 * form) whatever the CPU: the copies a CPU without AVX runs, run here on
 * any CPU for tests (core/frame_copy.h; st_workspace_set_frame in
 * frame_reference.c switches a workspace to it). Owns no code of its own. */
#define ST_FRAME_COPY_SSE2 1
#include "core/advance.c"
#include "core/evaluate.c"

void st_frame_sse2(stance_instance *inst, stance_workspace *ws, float dt, unsigned flags);
void st_frame_sse2(stance_instance *inst, stance_workspace *ws, float dt, unsigned flags) {
    in_frame_passes(inst, ws, dt, flags);
}
