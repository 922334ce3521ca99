/* src/build/graph_build.h - the builder's internals (libstance_build):
 * compiling a description into a graph in its build-time form (its own
 * allocations: the block, the delta clips, the IK stage and its contacts),
 * the parts that build it, and writing it as the GRPH section of format 2
 * that src/core/load/graph_bind.c binds. Not public API. */
#ifndef STANCE_BUILD_GRAPH_BUILD_H
#define STANCE_BUILD_GRAPH_BUILD_H

#include <stddef.h>

#include "core/graph/graph_internal.h"
#include "stance/build.h"

/* graph_build.c: validates and builds (gb_destroy frees it, never
 * stance_graph_destroy); then binds it through its compiled form, clips by
 * their index in `clips` (every clip it names must be there). */
stance_status gb_compile(const stance_graph_desc *desc, const stance_allocator *allocator, stance_graph **out,
                         stance_error *err);
void gb_destroy(stance_graph *g);
stance_status gb_bind_compiled(const stance_graph *built, const stance_clip *const *clips, int clip_count,
                               const stance_allocator *allocator, stance_graph **out, stance_error *err);

/* graph_deltas.c: the delta clips of additive first-frame layers */
stance_status gr_build_deltas(stance_graph *g, stance_error *err);
/* graph_ik_build.c: the IK entries and their contacts (gr_destroy_ik frees them) */
stance_status gr_build_ik(stance_graph *g, const stance_graph_desc *d, stance_error *err);
void gr_destroy_ik(stance_graph *g);

/* graph_curves_build.c: the description's curves and drives (after the
 * notes); the "CURV" trailer (before the notes' "NOTE") */
stance_status gb_build_curves(stance_graph *g, const stance_graph_desc *d, stance_error *err);
struct writer;
void gb_write_curves(struct writer *w, const stance_graph *g, const stance_clip *const *clips, int n);

/* graph_write.c: every clip the graph plays or references must be one of
 * `clips` (they are stored by index); then the section body is written into
 * out (NULL: only measured) and its size returned. Works on a graph in
 * either form (built or bound). */
stance_status st_graph_section_check(const stance_graph *g, const stance_clip *const *clips, int clip_count,
                                     stance_error *err);
size_t st_graph_section_write(const stance_graph *g, const stance_clip *const *clips, int clip_count, unsigned char *out);

#endif
