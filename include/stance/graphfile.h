/* stance/graphfile.h - data-driven animation graphs: a JSON file (the format
 * is documented in docs/graph-format.md) read into a stance_graph together
 * with the asset it animates.
 *
 * Tools side: built on jansson when found (STANCE_HAVE_JANSSON); without it
 * the load functions answer STANCE_ERR_UNSUPPORTED. Every error message
 * starts with `FILE:LINE:COLUMN: ` (1-based; columns count characters) and
 * says what was expected; an unknown name names the closest known one. */
#ifndef STANCE_GRAPHFILE_H
#define STANCE_GRAPHFILE_H

#include "asset.h"
#include "build.h"
#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct stance_graphfile_options {
    /* Replaces the file's "asset" (like `--asset` on the command line):
     * "builtin", or a path relative to the working directory to a .stance
     * file or anything stance_import_file reads. NULL = the file's. */
    const char *asset_override;
    /* An asset already loaded, used instead of loading one (it wins over
     * asset_override). Borrowed: it must outlive the graphfile. */
    const stance_asset *asset;
} stance_graphfile_options;

/* Owns the asset (unless borrowed), the stance_graph, the description it was
 * built from (names, masks, conditions) and the file's name. Immutable once
 * loaded, like the graph. */
typedef struct stance_graphfile stance_graphfile;

/* Reads and builds `path` (opt may be NULL). A relative asset path in the
 * file is taken relative to the file's directory. `path` may also be a
 * compiled graph (a .stance file from `stance compile`, recognized by its
 * magic; no jansson needed; read by stance_build_load_asset_memory, so one
 * written before GRPH format 2 is rebuilt from its description): its graph
 * and asset are the file's, and no asset option may be given. So hot
 * reload takes either form. */
STANCE_API stance_status stance_graphfile_load(const char *path, const stance_graphfile_options *opt,
                                    stance_graphfile **out, stance_error *err);
/* The same from a NUL-terminated text. display_name starts the messages
 * (NULL = "<string>"); base_dir anchors a relative asset path (NULL = the
 * working directory). */
STANCE_API stance_status stance_graphfile_load_string(const char *text, const char *display_name,
                                           const char *base_dir,
                                           const stance_graphfile_options *opt,
                                           stance_graphfile **out, stance_error *err);
STANCE_API void stance_graphfile_destroy(stance_graphfile *gf); /* NULL is fine */

STANCE_API const stance_graph *stance_graphfile_graph(const stance_graphfile *gf);
STANCE_API const stance_skeleton *stance_graphfile_skeleton(const stance_graphfile *gf);
STANCE_API const stance_asset *stance_graphfile_asset(const stance_graphfile *gf);
/* The name messages use: the path as given, or the display name. */
STANCE_API const char *stance_graphfile_name(const stance_graphfile *gf);
/* Where the asset came from: "builtin", the path loaded, or "(borrowed)". */
STANCE_API const char *stance_graphfile_asset_name(const stance_graphfile *gf);
/* The description the graph was built from; valid while gf lives. Layer
 * masks are expanded to per-joint weights, "speed_of:" positions to numbers
 * and "any_of" groups to condition groups. NULL for a compiled graph (the
 * graph's queries, stance_graph_*, describe it). */
STANCE_API const stance_graph_desc *stance_graphfile_desc(const stance_graphfile *gf);

#ifdef __cplusplus
}
#endif
#endif
