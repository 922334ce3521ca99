/* src/core/frame/ik_stage.h - the IK stage (ik_stage.c), after local-to-model:
 * the graph's IK entries on the instance's poses, from the plan's clips
 * (docs/frame.md). Not public. */
#ifndef STANCE_IK_STAGE_H
#define STANCE_IK_STAGE_H

#include "core/frame/workspace.h"

/* The stage: every entry in order; the first failing entry's status. */
stance_status ik_frame(stance_instance *inst, stance_workspace *ws, float dt);

#endif
