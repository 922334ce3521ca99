/* src/io/gltf.h - the glTF 2.0 importer (.gltf and .glb, through tinygltf),
 * a C interface to src/io/gltf.cpp. stance_import_file calls it for glTF
 * files; see import.h for the skeleton and clip rules, and gltf.cpp for how
 * each interpolation is baked onto the runtime's linear key grid.
 *
 * Tools side only (C++ behind this header); built when CMake finds
 * tinygltf (STANCE_HAVE_TINYGLTF). */
#ifndef STANCE_IO_GLTF_H
#define STANCE_IO_GLTF_H

#include "stance/import.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Imports the glTF file at `path` (binary when it starts with "glTF") into
 * *out (zeroed first). Options, warnings and the report as in import.h.
 * Never throws; every failure is a status and one line starting with the
 * path. */
stance_status stance_gltf_import(const char *path, const stance_import_options *opt,
                                 const stance_allocator *allocator, stance_asset *out,
                                 stance_error *err);

/* The base-colour images of the glTF at `path` for the meshes of `asset`
 * (its import): out->mesh_image per mesh, the PNG/JPEG bytes copied into
 * out->owned (stance_textures_free). A texture that cannot be kept (another
 * UV set, a missing or undecodable image) is a warning, not an error. */
struct stance_textures;
stance_status stance_gltf_textures(const char *path, const stance_asset *asset, struct stance_textures *out,
                                   stance_import_warnings *warnings, stance_error *err);

#ifdef __cplusplus
}
#endif
#endif
