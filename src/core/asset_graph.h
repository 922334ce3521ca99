/* src/core/asset_graph.h - the compiled-graph section (GRPH) of the .stance
 * format, for src/core/asset.c: read a section body back into a
 * stance_graph (src/build/graph_write.c writes it). Not public API. */
#ifndef STANCE_ASSET_GRAPH_H
#define STANCE_ASSET_GRAPH_H

#include <stddef.h>

#include "stance/asset.h"
#include "stance/build.h"

/* Reads a section body of `size` bytes against the asset's skeleton and
 * clips (already loaded) and builds the graph from `allocator`. Checks every
 * count against the bytes left, every enum and index against its range, then
 * stance_graph_create checks the description. Never reads outside the body. */
stance_status st_graph_section_load(const unsigned char *body, size_t size, const stance_asset *asset,
                                    const stance_allocator *allocator, stance_graph **out, stance_error *err);

#endif
