/* src/build/graph_write.h - the compiled-graph section (GRPH) writer, for
 * src/build/asset_write.c: check a graph against the asset it is saved
 * with, then measure and write its section body. Not public API. */
#ifndef STANCE_BUILD_GRAPH_WRITE_H
#define STANCE_BUILD_GRAPH_WRITE_H

#include <stddef.h>

#include "stance/asset.h"

/* Checks that every clip the description names is one of asset's clips and
 * that masks are the skeleton's size. */
stance_status st_graph_section_check(const stance_graph_desc *desc, const stance_asset *asset, stance_error *err);
/* Writes the section body into out (NULL: only measures); returns its size.
 * desc must have passed st_graph_section_check. */
size_t st_graph_section_write(const stance_graph_desc *desc, const stance_asset *asset, unsigned char *out);

#endif
