/* src/core/graph_derive.h - the fields a compiled graph derives from its own
 * arrays (graph_derive.c), the scale bounds of the chain rule
 * (graph_bounds.c) and the IK entries' trial solve (graph_ik.c): computed by
 * the builder (src/build), recomputed and compared by the binder
 * (graph_check.c), so both sides use one definition. Not public API. */
#ifndef STANCE_GRAPH_DERIVE_H
#define STANCE_GRAPH_DERIVE_H

#include "core/graph_internal.h"

/* The machine trees in one order, each subtree children first, itself
 * last: post[], and per machine its range (post_first..post_at, indices
 * into post) and root layer. The tree must be a forest (each machine nested
 * at most once, no cycle: graph_check.c checks before calling). Returns the
 * machines placed. */
int gr_post_order(const stance_graph *g, int *post, int *post_first, int *post_at, int *root_layer);
/* Per machine: the most clips one of its states samples (at least 1), whether
 * a velocity-mode transition enters it (history), whether any transition can
 * leave one of its states. */
void gr_machine_flags(const stance_graph *g, int *clip_cap, int *history, int *has_trans);
/* g_layer.fusable of layer l (after the post order). */
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
