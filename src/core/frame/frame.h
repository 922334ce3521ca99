/* src/core/frame/frame.h - the frame's stages in order (docs/frame.md), compiled
 * in frame.c and in each copy of the stages (frame_reference.c,
 * frame_sse2.c, core/frame/frame_copy.h): advance (decides; the plan), evaluate
 * (the local pose, from the plan), local-to-model (the model pose), IK (each
 * entry, then the local-to-model of the joints it turned). No stage calls
 * another. Not public. */
#ifndef STANCE_FRAME_H
#define STANCE_FRAME_H

#include "core/frame/frame_copy.h"
#include "core/frame/advance.h"
#include "core/frame/evaluate.h"
#include "core/frame/ik_stage.h"

static inline stance_status fr_stages(stance_instance *inst, stance_workspace *ws, float dt, unsigned flags) {
    const stance_graph *g = inst->graph;
    adv_frame(inst, ws, dt, flags);
    ev_frame(inst, ws);
    ST_L2M(in_model(inst), in_local(inst), g->skeleton);
    return g->ik_count ? ik_frame(inst, ws, dt) : STANCE_OK;
}

#endif
