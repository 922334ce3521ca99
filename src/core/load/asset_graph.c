/* src/core/load/asset_graph.c - the compiled-graph section (GRPH) of the .stance
 * format: which form it holds. Format 2, the compiled graph as laid out in
 * memory (src/core/graph/graph_layout.h owns its bytes), is bound to the file's
 * skeleton and clips (graph_bind.c). Format 1, the description form written
 * before this runtime bound compiled graphs, needs the builder: it goes to
 * the caller's reader (libstance_build's stance_build_load_asset_*), or is
 * refused with what to do. */
#include <string.h>

#include "core/load/asset_graph.h"
#include "core/load/graph_bind.h"
#include "core/base/internal.h"

stance_status st_graph_section_load(const unsigned char *body, size_t size, const stance_asset *asset,
                                    const stance_allocator *allocator, st_graph_v1_fn v1, stance_graph **out,
                                    stance_error *err) {
    *out = NULL;
    if (size < 4) return st_fail(err, STANCE_ERR_FORMAT, "graph: the section is too short for its format (%zu bytes)", size);
    const uint32_t format = (uint32_t)body[0] | (uint32_t)body[1] << 8 | (uint32_t)body[2] << 16 | (uint32_t)body[3] << 24;
    if (format == 1u) {
        if (v1) return v1(body, size, asset, allocator, out, err);
        return st_fail(err, STANCE_ERR_UNSUPPORTED,
                       "graph: format 1 (a description, from before compiled graphs were bound): recompile it "
                       "(stance compile / stance import) or load it with libstance_build (stance_build_load_asset_file)");
    }
    return st_graph_bind(body, size, asset->skeleton, (const stance_clip *const *)asset->clips, asset->clip_count,
                         allocator, out, err);
}
