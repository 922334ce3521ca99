/* src/core/graph_build.h - the parts of building a graph that live in their
 * own files, called by stance_graph_create (graph.c) in this order after it
 * has laid out and resolved the description: the delta clips, the bounds,
 * the IK entries, then the frame's program. Each returns a status with its
 * message; on a failure the caller destroys the graph, and each part's
 * destroy frees what it built. Not public. */
#ifndef STANCE_GRAPH_BUILD_H
#define STANCE_GRAPH_BUILD_H

#include "core/graph_internal.h"

/* graph_deltas.c: the delta clips of additive first-frame layers */
stance_status gr_build_deltas(stance_graph *g, stance_error *err);
/* graph_bounds.c: the chain rule of stance/base.h for the graph (after the
 * deltas) and what gr_cap_transient holds a switch's transient within */
stance_status gr_build_bounds(stance_graph *g, stance_error *err);
/* graph_ik.c: the IK entries (joints resolved, contacts found) */
stance_status gr_build_ik(stance_graph *g, const stance_graph_desc *d, stance_error *err);
void gr_destroy_ik(stance_graph *g);
/* graph_program.c: the frame's program (g_step, g_layer.step_first/last,
 * g_machine.step) and the IK entries' local-to-model ranges (after the IK) */
stance_status gr_build_program(stance_graph *g, stance_error *err);
void gr_destroy_program(stance_graph *g);

#endif
