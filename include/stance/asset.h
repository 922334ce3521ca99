/* stance/asset.h - an asset: one skeleton, the clips made for it, its skins
 * and meshes, and the native binary file format `.stance` that stores them.
 *
 * The format (version 4, all integers and floats little-endian; version 4
 * adds bit rates per segment, a uniform grid as one step and a root path
 * derived from joint 0 to compressed CLIPs; version 3 adds the compressed
 * CLIP encoding; version 3 and 2 files load as before, and
 * version 1 files, which have no SKIN or MESH sections, still load):
 *
 *   header, 32 bytes:
 *     0  magic    "STANCE\0\0"
 *     8  u32      version (4; 3, 2 and 1 are read too)
 *    12  u32      flags (0; any other bit is rejected)
 *    16  u64      payload size in bytes (the file is exactly 32 + this)
 *    24  u64      checksum of the payload (stance_asset_checksum)
 *   payload: sections, each a 16-byte head {char tag[4], u32 zero, u64 size}
 *   and `size` bytes of body. "SKEL" comes first and once, then one "CLIP"
 *   per clip, then (version 2) one "SKIN" per skin, then one "MESH" per mesh
 *   (a mesh names its skin by its index among the SKIN sections), then
 *   optionally one "GRPH" (a compiled graph: format 2, its arrays as laid
 *   out in memory, clips by index; docs/build.md), last. Bodies are
 *   described in src/core/load/asset.c (SKEL, CLIP; compressed CLIPs in
 *   asset_packed.c), asset_mesh.c (SKIN, MESH)
 *   and graph_layout.h (GRPH).
 *
 * A clip is stored as its dense key grid (clip->times and the values of the
 * joints and channels it animates), so load(save(x)) samples like x. Loading
 * checks every count and size against the bytes present before using it,
 * then the checksum, then builds the skeleton, clips, skins and meshes
 * through stance_skeleton_create, stance_clip_create, stance_skin_create and
 * stance_mesh_create, so every value check of the runtime applies to a file
 * too. */
#ifndef STANCE_ASSET_H
#define STANCE_ASSET_H

#include "base.h"
#include "clip.h"
#include "graph.h"
#include "skeleton.h"
#include "skin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STANCE_ASSET_VERSION 5
#define STANCE_MAX_CLIPS 4096
#define STANCE_MAX_CLIP_NOTES_BYTES ((size_t)1 << 24) /* 16 MiB of clip notes (stance_asset.clip_notes) */

/* Owns its skeleton, clips, skins and meshes (all from `allocator`). Zero-initialize before
 * use; stance_asset_destroy frees everything and zeroes it again. */
typedef struct stance_asset {
    stance_skeleton *skeleton;
    int clip_count;
    stance_clip **clips;        /* clip_count clips, each made for `skeleton` */
    int skin_count;             /* 0..STANCE_MAX_SKINS */
    stance_skin **skins;        /* skin_count skins of `skeleton` */
    int mesh_count;             /* 0..STANCE_MAX_MESHES */
    stance_mesh **meshes;       /* mesh_count meshes; mesh->skin indexes `skins` or is -1 */
    stance_allocator allocator; /* what the skeleton, clips and array came from */
    /* The graph a compiled file carries (its GRPH section), bound to this
     * skeleton and these clips when loaded (every count, index and value
     * checked; no name resolved, no clip sampled); NULL when the file has
     * none. A GRPH of format 1 (files written before compiled graphs were
     * bound) is refused here with what to do; stance_build_load_asset_*
     * (stance/build.h) rebuild it.
     * Destroyed with the asset. The stance_asset_save_* functions of
     * stance/build.h do not write it: stance_asset_save_graph_* write a graph
     * from its description. */
    stance_graph *graph;
    /* Clip metadata the file carries (its optional "META" section, issue 26;
     * docs/stance-format.md): JSON text, NUL-terminated, clip_notes_size
     * bytes without the NUL, of the form {"clips": {CLIP: {"events",
     * "windows", "curves", "markers", "speed"}}}: the graph file's "clips"
     * sidecar (docs/graph-format.md) for clips of this asset. `stance
     * import` takes it from glTF animations' "extras" (docs/import.md). The
     * runtime keeps it unread (no byte 0 in it, at most
     * STANCE_MAX_CLIP_NOTES_BYTES); the graph file reader gives it to every
     * graph it reads on this asset, the sidecar's own keys first
     * (docs/events.md). NULL when none; owned, from `allocator`. */
    char *clip_notes;
    size_t clip_notes_size;
} stance_asset;

STANCE_API void stance_asset_destroy(stance_asset *asset); /* NULL and a zeroed asset are fine */

/* The clip of that exact name, or NULL. */
STANCE_API const stance_clip *stance_asset_find_clip(const stance_asset *asset, const char *name);

/* FNV-1a 64 of `size` bytes: the checksum the format stores. */
STANCE_API uint64_t stance_asset_checksum(const void *bytes, size_t size);

/* Parses and validates `size` bytes into *out (which it overwrites; on
 * failure *out is zeroed and nothing is leaked). Never reads outside
 * [bytes, bytes + size). */
STANCE_API stance_status stance_asset_load_memory(const void *bytes, size_t size,
                                       const stance_allocator *allocator, stance_asset *out,
                                       stance_error *err);

/* The same through a file: one read of the whole file. Messages start with
 * the path. */
STANCE_API stance_status stance_asset_load_file(const char *path, const stance_allocator *allocator,
                                     stance_asset *out, stance_error *err);

/* 1 when the bytes start with the format's magic (a cheap sniff). */
STANCE_API int stance_asset_is_native(const void *bytes, size_t size);

#ifdef __cplusplus
}
#endif
#endif
