/* src/core/frame/frame_reference.c - the frame's stages (advance.c, evaluate.c,
 * ik_stage.c, in core/frame/frame.h's order) compiled a second time with every
 * fast path off (ST_FAST 0, core/frame/frame_copy.h): the reference the fast
 * paths are required to equal bit for bit (tests/test_reference.c,
 * docs/fast-paths.md); and the one test hook that switches a workspace
 * between the copies. A program that never calls the hook links neither
 * copy from libstance.a. */
#define ST_FRAME_COPY_REFERENCE 1
#include "core/frame/advance.c"
#include "core/frame/evaluate.c"
#include "core/frame/ik_stage.c"
#include "core/frame/frame.h"

static stance_status frame_reference(stance_instance *inst, stance_workspace *ws, float dt, unsigned flags) {
    return fr_stages(inst, ws, dt, flags);
}

stance_status st_frame_sse2(stance_instance *inst, stance_workspace *ws, float dt, unsigned flags); /* frame_sse2.c */

const char *st_workspace_set_frame(stance_workspace *ws, st_frame_copy copy) {
    if (!ws) return NULL;
    switch (copy) {
    case ST_FRAME_FAST: ws->frame = NULL; return "fast";
    case ST_FRAME_SSE2: ws->frame = st_frame_sse2; return "sse2";
    case ST_FRAME_REFERENCE: ws->frame = frame_reference; return "reference";
    }
    return NULL;
}
