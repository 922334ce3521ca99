/* src/core/asset_graph.h - the compiled-graph section (GRPH) of the .stance
 * format, for src/core/asset.c: measure and write a graph description as a
 * section body, and read one back into a stance_graph. Not public API. */
#ifndef STANCE_ASSET_GRAPH_H
#define STANCE_ASSET_GRAPH_H

#include <stddef.h>

#include "stance/asset.h"
#include "stance/build.h"

/* Checks that every clip the description names is one of asset's clips and
 * that masks are the skeleton's size. */
stance_status st_graph_section_check(const stance_graph_desc *desc, const stance_asset *asset, stance_error *err);
/* Writes the section body into out (NULL: only measures); returns its size.
 * desc must have passed st_graph_section_check. */
size_t st_graph_section_write(const stance_graph_desc *desc, const stance_asset *asset, unsigned char *out);
/* Reads a section body of `size` bytes against the asset's skeleton and
 * clips (already loaded) and builds the graph from `allocator`. Checks every
 * count against the bytes left, every enum and index against its range, then
 * stance_graph_create checks the description. Never reads outside the body. */
stance_status st_graph_section_load(const unsigned char *body, size_t size, const stance_asset *asset,
                                    const stance_allocator *allocator, stance_graph **out, stance_error *err);

#endif
