/* src/core/frame/evaluate.h - the evaluate stage (evaluate.c), the frame's
 * second: it computes the local pose from the plan the advance stage wrote
 * (docs/frame.md). Not public. */
#ifndef STANCE_EVALUATE_H
#define STANCE_EVALUATE_H

#include "core/frame/workspace.h"

/* The stage: the workspace's jobs, then every layer's machines as planned,
 * composed into the instance's local pose. */
void ev_frame(stance_instance *inst, stance_workspace *ws);
/* The workspace's jobs alone (the snapshots of the switches the advance
 * stage began): stance_instance_advance, a frame whose pose is not evaluated. */
void ev_jobs(stance_instance *inst, stance_workspace *ws);

#endif
