/* src/core/load/graph_bind.h - binding a compiled graph (graph_bind.c), for the .stance loader (asset_graph.c) and the
 * builder (src/build: stance_graph_create binds what it compiled, so every
 * graph is one the runtime checked). Not public API. */
#ifndef STANCE_GRAPH_BIND_H
#define STANCE_GRAPH_BIND_H

#include <stddef.h>

#include "core/graph/graph_internal.h"
#include "core/graph/graph_check.h"

/* Binds a GRPH section body of format 2 (`size` bytes; graph_layout.h) to
 * the skeleton and the clips its indices name (the file's clips, in order):
 * one block from `allocator` plus the delta clips, every count, index and
 * value checked (STANCE_ERR_FORMAT naming what is wrong; an unknown format
 * STANCE_ERR_UNSUPPORTED). Never reads outside the body. */
stance_status st_graph_bind(const unsigned char *body, size_t size, const stance_skeleton *skeleton,
                            const stance_clip *const *clips, int clip_count, const stance_allocator *allocator,
                            stance_graph **out, stance_error *err);

#endif
