/* src/core/load/asset_graph.h - the compiled-graph section (GRPH) of the .stance
 * format, for src/core/load/asset.c: a section body bound into a stance_graph
 * (format 2, graph_bind.c), or handed to the reader of the older
 * description form (format 1) when the caller gives one
 * (libstance_build's loaders do). Not public API. */
#ifndef STANCE_ASSET_GRAPH_H
#define STANCE_ASSET_GRAPH_H

#include <stddef.h>

#include "stance/asset.h"

/* A reader of the GRPH section's format 1 (the description form): builds
 * the graph from the body against the loaded asset. */
typedef stance_status (*st_graph_v1_fn)(const unsigned char *body, size_t size, const stance_asset *asset,
                                        const stance_allocator *allocator, stance_graph **out, stance_error *err);

/* Reads a section body of `size` bytes against the asset's skeleton and
 * clips (already loaded): format 2 is bound; format 1 goes to v1, or is
 * refused (STANCE_ERR_UNSUPPORTED, saying how to recompile) when v1 is
 * NULL. Never reads outside the body. */
stance_status st_graph_section_load(const unsigned char *body, size_t size, const stance_asset *asset,
                                    const stance_allocator *allocator, st_graph_v1_fn v1, stance_graph **out,
                                    stance_error *err);

/* stance_asset_load_memory and _file with a reader of the GRPH section's
 * format 1 (NULL: refused), for libstance_build's loaders (asset.c). */
stance_status st_asset_load_memory_v1(const void *bytes, size_t size, const stance_allocator *allocator, st_graph_v1_fn v1,
                                      stance_asset *out, stance_error *err);
stance_status st_asset_load_file_v1(const char *path, const stance_allocator *allocator, st_graph_v1_fn v1,
                                    stance_asset *out, stance_error *err);

#endif
