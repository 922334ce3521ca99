/* src/core/graph/graph_derive.h - the fields a compiled graph derives from its own
 * arrays (graph_derive.c), the scale bounds of the chain rule
 * (graph_bounds.c), the frame's program (graph_program.c) and the IK
 * entries' trial solve (graph_ik.c): computed by
 * the builder (src/build), recomputed and compared by the binder
 * (graph_check.c), so both sides use one definition. Not public API. */
#ifndef STANCE_GRAPH_DERIVE_H
#define STANCE_GRAPH_DERIVE_H

#include "core/graph/graph_internal.h"

/* graph_program.c: the frame's program (g_step: every machine a layer runs,
 * layer by layer, each layer's tree children first) into steps (at most
 * machine_count), per machine its step (-1: no layer runs it) and root
 * layer (-1: none), per layer its first and last step; returns the steps.
 * The machines must be a forest (each nested at most once, no cycle,
 * graph_check.c checks before) with their has_trans flags. */
int gr_program(const stance_graph *g, g_step *steps, int *machine_step, int *root_layer, int *layer_first, int *layer_last);
/* IK entry e's local-to-model range (g_ik.l2m_from, l2m_to). */
void gr_ik_range(const stance_graph *g, int e, int *from, int *to);
/* The builder's: the program into g (steps, step_count, g_machine.step and
 * root_layer, g_layer.step_first and step_last), and the IK entries' ranges
 * (after the entries). */
void gr_fill_program(stance_graph *g);
void gr_fill_ik_ranges(stance_graph *g);
/* Per machine: the most clips one of its states samples (at least 1), whether
 * a velocity-mode transition enters it (history), whether any transition can
 * leave one of its states. */
void gr_machine_flags(const stance_graph *g, int *clip_cap, int *history, int *has_trans);
/* g_layer.fusable of layer l. */
int gr_layer_fusable(const stance_graph *g, int l);
/* g_state.same_scale of state s (after the delta clips). */
int gr_same_scale(const stance_graph *g, int s);
/* 1 when machine m's clips play as delta clips (its root layer is additive, first frame). */
int gr_wants_delta(const stance_graph *g, int m);

/* graph_bounds.c: the largest |scale| component each joint's local pose
 * takes from the rest pose and the states' clips (peak), and from the delta
 * clips (dpeak), padded_count each (the padding 1); then the chain rule of
 * stance/base.h over those bounds through the additive layers. */
void gr_scale_peaks(const stance_graph *g, float *peak, float *dpeak);
stance_status gr_check_chain(const stance_graph *g, const float *peak, const float *dpeak, stance_error *err);

/* graph_ik.c: entry e solved once on the rest pose (its joints' hierarchy
 * and values), "ik 'NAME': why" when it fails. */
stance_status gr_ik_trial(const stance_graph *g, int e, stance_error *err);

#endif
