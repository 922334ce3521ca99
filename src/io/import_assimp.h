/* src/io/import_assimp.h - what the assimp importer's files share (internal).
 *
 * import.c owns the entry points and probing; import_scene.c picks the
 * skeleton out of assimp's node tree and assembles the asset; import_clips.c
 * turns assimp's animations into clips, import_keys.c makes their keys
 * what the runtime plays (keys before a take's start, rotation keys added
 * to follow slerp), import_scale.c refuses poses an uneven scale would put
 * wrong. Built only with assimp. */
#ifndef STANCE_IO_IMPORT_ASSIMP_H
#define STANCE_IO_IMPORT_ASSIMP_H

#include <assimp/scene.h>

#include "core/base/internal.h"
#include "gltf_bake.h"
#include "import_scale.h"
#include "stance/import.h"

typedef stance_bake_xform xform;
typedef stance_bake_mat mat4;

static inline mat4 mat_from_ai(const struct aiMatrix4x4 *a) {
    mat4 m = {{{a->a1, a->a2, a->a3, a->a4}, {a->b1, a->b2, a->b3, a->b4}, {a->c1, a->c2, a->c3, a->c4}}};
    return m;
}

typedef struct node_rec {
    const struct aiNode *node;
    int parent; /* index into the flat list; -1 for the scene root */
    int depth;
    int mark;   /* 1: a joint (bone or animated node), 2: a node that connects joints */
    int joint;  /* index in the skeleton, or -1 */
} node_rec;

enum { IMP_OTHER = 0, IMP_FBX = 1, IMP_COLLADA = 2 }; /* importer.kind */

typedef struct importer {
    const char *path;
    const stance_import_options *opt;
    stance_error *err;
    const struct aiScene *scene;
    node_rec *nodes;
    int node_count;
    int root;            /* flat index of the skeleton's root */
    int joint_count;
    int *joint_node;     /* joint -> flat index */
    double scale;        /* the option's scale */
    double push_scale;   /* uniform scale above the skeleton, moved into translations */
    xform above;         /* the transform above the skeleton root (its scale in push_scale) */
    int above_identity;  /* 1 when `above` changes nothing */
    size_t budget;       /* bytes the import may allocate for keys (options.max_memory) */
    size_t used;         /* bytes of the clips kept so far */
    int strict;          /* options.strict */
    int from_skin;       /* the skeleton is the meshes' bones */
    mat4 basis;          /* file world -> metres, Y up (FBX), else identity */
    int kind;            /* IMP_FBX, IMP_COLLADA (durations, rotation keys), else IMP_OTHER */
    double tol_u, tol_r; /* rotation keys are added until nlerp is within tol_r of slerp (options.tolerance_*) */
    int uneven;          /* a scale above the skeleton or in its rest pose differs per axis: poses are checked */
    double size;         /* the rest pose's extent in model units (import_scale.c; 1 when it has none) */
} importer;

/* import_scene.c */
void st_imp_warn(importer *im, const char *fmt, ...) ST_PRINTF(2, 3);
void st_imp_prefix_error(importer *im, stance_status s); /* err's message prefixed with the path */
size_t st_imp_ai_len(const struct aiString *s);
int st_imp_ai_eq(const struct aiString *a, const struct aiString *b);
const char *st_imp_ai_show(const struct aiString *s, char buf[64]);
/* "a camera", "a light", ... when the name is one of the scene's objects, else NULL */
const char *st_imp_object_kind(const struct aiScene *sc, const struct aiString *name);
/* a joint's local translation / rotation from the file into the skeleton's space */
void st_imp_joint_t(const importer *im, int joint, const double in[3], float out[3]);
void st_imp_joint_r(const importer *im, int joint, const double in[4], float out[4]);
/* The whole import once assimp read the scene: skeleton, clips, meshes. */
stance_status st_imp_scene(importer *im, const stance_allocator *allocator, stance_asset *out);

/* import.c */
int st_imp_strcasecmp(const char *a, const char *b); /* ASCII, case-insensitive: 0 when equal */

/* import_clips.c: one clip; `rep` (may be NULL) gets its keys in the file and keys added */
size_t st_imp_budget_left(const importer *im, size_t temp);
stance_status st_imp_build_clip(importer *im, const struct aiAnimation *an, int index, const stance_skeleton *sk,
                                 const stance_allocator *al, stance_clip **done, int done_count, stance_clip **out,
                                 stance_import_clip_report *rep);

/* import_keys.c: one track's keys, times in seconds, values in the skeleton's space */
typedef struct st_imp_track {
    float *times, *values;
    int count;
    float *file_times; /* the times before keys were added (NULL when none were) */
    int file_count;
} st_imp_track;
/* Drops the keys before t = 0 (a take's keys before its start, which assimp
 * keeps and shifts to negative times); when every key is before it, the
 * last one is kept, moved to 0. Returns how many were dropped. */
int st_imp_drop_before_start(st_imp_track *t, int width);
/* Adds rotation keys where the runtime's nlerp between two keys would leave
 * im->tol_r of their slerp (the shorter way), keeping the old times in
 * file_times. Returns the keys added, or -1 out of memory, -2 past
 * STANCE_MAX_KEYS, -3 when *bytes would pass max_bytes; *bytes grows by the
 * bytes added; *unmet counts intervals left outside (float resolution). */
int st_imp_follow_slerp(const importer *im, st_imp_track *t, size_t max_bytes, size_t *bytes, int *unmet);

/* import_scale.h, with the importer's space */
static inline st_scale_ctx st_imp_scale_ctx(const importer *im) {
    st_scale_ctx c;
    c.path = im->path, c.err = im->err, c.uneven = im->uneven, c.size = im->size;
    c.space.above = im->above, c.space.push_scale = im->push_scale, c.space.scale = im->scale;
    c.space.above_identity = im->above_identity;
    return c;
}

#endif
