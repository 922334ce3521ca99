/* src/core/frame/advance.h - the advance stage (advance.c), the frame's first:
 * it decides (requests, transitions, playback, events, root motion) and
 * writes the plan into the workspace (docs/frame.md). Not public. */
#ifndef STANCE_ADVANCE_H
#define STANCE_ADVANCE_H

#include "core/frame/workspace.h"

/* The stage: one update of inst by dt (a valid step) with its flags. */
void adv_frame(stance_instance *inst, stance_workspace *ws, float dt, unsigned flags);
/* The stage on a frame the pose skips (stance_instance_advance): the same,
 * but planning only what root motion reads where adv_skip_plan can. */
void adv_frame_skip(stance_instance *inst, stance_workspace *ws, float dt);
/* advance_skip.c: the base machine's switch into its plan for root motion,
 * and 1; 0 (nothing written) when a machine keeps history or has a pending
 * inertialization (the whole plan moves them on). */
int adv_skip_plan(stance_instance *inst, stance_workspace *ws);
/* A whole skipped frame (skip_frame.c), the instance and workspace checked and bound
 * (stance_instance_advance's and stance_instances_advance's body). */
void adv_skip_frame(stance_instance *inst, stance_workspace *ws, float dt);
/* Machine m at its entry state, and the machine its entry nests, down the nesting. */
void adv_reset_machine(stance_instance *inst, int m);
/* A play's normalized time (cycles; a nested machine's state: that machine's). */
float adv_normalized(const stance_instance *inst, const g_play *p);
/* A blend space state's weights at the instance's parameters (entry_count of them). */
void adv_blend_weights(const stance_instance *inst, const g_state *s, float *w);

#endif
