/* src/io/import_mesh.h - skins and skinned meshes from an assimp scene
 * (src/io/import_mesh.c), for import.c. Not public. */
#ifndef STANCE_IO_IMPORT_MESH_H
#define STANCE_IO_IMPORT_MESH_H

#ifdef STANCE_HAVE_ASSIMP
#include <assimp/scene.h>

#include "io/asset_textures.h"
#include "stance/asset.h"
#include "stance/import.h"

typedef struct st_mesh_import {
    const char *path;
    const struct aiScene *scene;
    const stance_skeleton *skeleton;
    const struct aiNode *const *joint_node; /* skeleton joint -> its node */
    /* File world space -> the skeleton's model space (the importer's scale
     * and FBX basis), and the uniform scale the skeleton's model matrices
     * leave out of their linear part (it is pushed into translations). */
    double to_model[3][4];
    double pushed_scale;
    size_t budget;                          /* bytes the meshes may use */
    void (*warn)(void *ctx, const char *message);
    void *warn_ctx;
} st_mesh_import;

/* Adds a skin and a mesh to `asset` (skeleton set, skins and meshes empty)
 * for each mesh of the scene that has bones: skin joints in the mesh's bone
 * order mapped to skeleton joints by name, inverse binds from the bones'
 * offset matrices, positions and normals in the skeleton's model space at
 * the bind pose, up to 4 influences per vertex (the largest, renormalized),
 * polygons fanned into triangles, the material's diffuse colour. A mesh that
 * cannot be made is skipped with a warning; only an allocation failure or
 * the budget is an error. */
stance_status st_import_meshes(const st_mesh_import *mi, stance_asset *asset, stance_error *err);

/* Into *out (zeroed, mesh_count and mesh_image -1 set by the caller): the
 * looks of `asset`'s meshes, which st_import_meshes made from `scene` (read
 * again with FBX textures on), matched by name and vertex count in order:
 * the material's base-colour texture (else its diffuse one) on UV set 0 as
 * the PNG or JPEG bytes embedded in the file or in the file its path names
 * (relative to the model's folder), and the vertex colour set 0. What cannot
 * be kept is a warning ("PATH: textures: ..."); only memory is an error. */
stance_status st_import_looks(const char *path, const struct aiScene *scene, const stance_asset *asset, stance_textures *out,
                              stance_import_warnings *warnings, stance_error *err);
#endif

#endif
