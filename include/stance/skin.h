/* stance/skin.h - skins (which skeleton joints a mesh is bound to, and their
 * inverse bind matrices), skinned meshes, and the per-frame skinning
 * matrices an engine uploads to its vertex shader.
 *
 * A skin and a mesh are shared and immutable once created, like skeletons
 * and clips: each is built in one allocation by its _create function, which
 * validates everything. stance_skin_matrices is a per-frame call: no
 * allocation, no I/O.
 *
 * Spaces: a skin joint's matrix is model[skin joint] * inverse_bind, where
 * model is the skeleton's model pose (stance_local_to_model). The mesh's
 * positions and normals are in the space the inverse bind matrices expect
 * (glTF: the skinned mesh's bind space), so a vertex v is drawn at
 *   sum_k weights[k] * matrices[joints[k]] * v
 * and at the bind pose every skin matrix is the identity. */
#ifndef STANCE_SKIN_H
#define STANCE_SKIN_H

#include "base.h"
#include "pose.h"
#include "skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STANCE_MAX_SKIN_JOINTS STANCE_MAX_JOINTS
#define STANCE_MAX_SKINS 256
#define STANCE_MAX_MESHES 256
#define STANCE_MAX_VERTICES (1 << 22)  /* per mesh */
#define STANCE_MAX_INDICES (3 << 23)   /* per mesh, 3 per triangle */
#define STANCE_SKIN_INFLUENCES 4       /* joints per vertex */

/* ---- skins ------------------------------------------------------------------ */

typedef struct stance_skin_desc {
    const char *name;              /* 0..63 bytes; NULL or "" = "skin" */
    int joint_count;               /* 1..STANCE_MAX_SKIN_JOINTS */
    /* joint_count skeleton joint indices, in the mesh's order (a mesh's
     * vertex joint index k means skeleton joint joints[k]); repeats allowed. */
    const int *joints;
    /* 16 * joint_count floats, column-major 4x4 per joint, within the limits
     * of stance/base.h (the 3x3 part within STANCE_MAX_SCALE, the translation
     * within STANCE_MAX_TRANSLATION), last row (0 0 0 1) within 1e-4; NULL =
     * identity for every joint. */
    const float *inverse_bind;
} stance_skin_desc;

/* Read-only after creation. */
typedef struct stance_skin {
    char name[64];
    int joint_count;
    const int *joints;             /* joint_count skeleton joints */
    const float *inverse_bind;     /* 16 * joint_count floats, column-major */
    int skeleton_joint_count;      /* joints of the skeleton it was made for */
    /* Internal layout for stance_skin_matrices: the inverse binds' top three
     * rows as 12 arrays of joint_count rounded up to 8 (element (r, c) of
     * joint k at [(3 c + r) * padded + k]); read by nothing else. */
    const float *bind_rows;
    stance_allocator allocator;
    size_t bytes;                  /* the one block holding the skin */
} stance_skin;

/* Validates (joints inside the skeleton, finite affine matrices) and builds
 * the skin in one allocation. */
STANCE_API stance_status stance_skin_create(const stance_skin_desc *desc, const stance_skeleton *skeleton,
                                 const stance_allocator *allocator, stance_skin **out,
                                 stance_error *err);
STANCE_API void stance_skin_destroy(stance_skin *skin); /* NULL is fine */

/* One column-major 4x4 matrix per skin joint: model[joints[k]] * inverse_bind[k]
 * (16 * skin->joint_count floats into `matrices`, whose capacity is
 * `matrix_count` matrices). `model` is a model pose of the skin's skeleton. */
STANCE_API stance_status stance_skin_matrices(const stance_skin *skin, const stance_pose *model,
                                   float *matrices, int matrix_count, stance_error *err);

/* ---- meshes ----------------------------------------------------------------- */

typedef struct stance_mesh_desc {
    const char *name;              /* 0..63 bytes; NULL or "" = "mesh" */
    int skin;                      /* index of the asset's skin it is bound to, or -1 (rigid) */
    int vertex_count;              /* 1..STANCE_MAX_VERTICES */
    const float *positions;        /* 3 per vertex, within STANCE_MAX_TRANSLATION (stance/base.h) */
    const float *normals;          /* 3 per vertex, finite; NULL = computed from the triangles */
    const float *uvs;              /* 2 per vertex, finite; NULL = none */
    /* With a skin: STANCE_SKIN_INFLUENCES skin joint indices and weights per
     * vertex; weights finite, >= 0, summing to 1 within 1e-3 (they are
     * renormalized); an index with weight 0 may be anything < skin joint count. */
    const uint16_t *joints;
    const float *weights;
    int index_count;               /* a multiple of 3, 3..STANCE_MAX_INDICES */
    const uint32_t *indices;       /* each < vertex_count */
    float base_color[4];           /* linear RGBA; all 0 = (0.8 0.8 0.8 1) */
} stance_mesh_desc;

/* Read-only after creation. joints and weights are NULL for a rigid mesh. */
typedef struct stance_mesh {
    char name[64];
    int skin;
    int vertex_count;
    const float *positions, *normals;
    const float *uvs;              /* NULL when the mesh has none */
    const uint16_t *joints;
    const float *weights;
    int index_count;
    const uint32_t *indices;
    float base_color[4];
    stance_allocator allocator;
    size_t bytes;
} stance_mesh;

/* Validates against the skin (NULL for a rigid mesh: desc->skin must be -1)
 * and builds the mesh in one allocation. */
STANCE_API stance_status stance_mesh_create(const stance_mesh_desc *desc, const stance_skin *skin,
                                 const stance_allocator *allocator, stance_mesh **out,
                                 stance_error *err);
STANCE_API void stance_mesh_destroy(stance_mesh *mesh); /* NULL is fine */

#ifdef __cplusplus
}
#endif
#endif
