/* src/core/graph/graph_bind.h - binding a compiled graph (graph_bind.c) and its
 * checks (graph_check.c), for the .stance loader (asset_graph.c) and the
 * builder (src/build: stance_graph_create binds what it compiled, so every
 * graph is one the runtime checked). Not public API. */
#ifndef STANCE_GRAPH_BIND_H
#define STANCE_GRAPH_BIND_H

#include <stddef.h>

#include "core/graph/graph_internal.h"

/* Binds a GRPH section body of format 2 (`size` bytes; graph_layout.h) to
 * the skeleton and the clips its indices name (the file's clips, in order):
 * one block from `allocator` plus the delta clips, every count, index and
 * value checked (STANCE_ERR_FORMAT naming what is wrong; an unknown format
 * STANCE_ERR_UNSUPPORTED). Never reads outside the body. */
stance_status st_graph_bind(const unsigned char *body, size_t size, const stance_skeleton *skeleton,
                            const stance_clip *const *clips, int clip_count, const stance_allocator *allocator,
                            stance_graph **out, stance_error *err);

/* The rules of a bound graph beyond each field's range (graph_check.c):
 * ranges inside their arrays, the machine tree, the post order, the
 * transition lists, the derived flags, the delta clips, the scale caps and
 * the chain rule, the IK entries and contacts. strn, anyt: the lengths of
 * state_trans and any_trans. */
stance_status gc_check(const stance_graph *g, int strn, int anyt, stance_error *err);

#endif
