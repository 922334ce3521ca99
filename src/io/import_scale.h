/* src/io/import_scale.h - exact or refused: poses under an uneven scale
 * (src/io/import_scale.c), for both importers (assimp's and glTF's). */
#ifndef STANCE_IO_IMPORT_SCALE_H
#define STANCE_IO_IMPORT_SCALE_H

#include "gltf_bake.h"
#include "stance/clip.h"
#include "stance/skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct st_scale_ctx {
    const char *path;
    stance_error *err;
    stance_bake_space space; /* how the file's values became the skeleton's (above, push_scale, scale) */
    int uneven;              /* a scale above the skeleton or in its rest pose differs per axis */
    double size;             /* the rest pose's extent in model units (st_imp_check_rest; 1 when it has none) */
} st_scale_ctx;

/* |s| differ by more than 1e-5 of their mean. */
int st_imp_is_uneven(const double s[3]);
/* The rest pose: size set; when uneven, STANCE_ERR_UNSUPPORTED with one
 * line ("PATH: joint 'A' scales unevenly (...): joint 'B' would be ...")
 * when a joint's model-space position is off by more than 1e-4 of the
 * model's size or its frame by more than 1e-4 of its scale. */
stance_status st_imp_check_rest(st_scale_ctx *c, const stance_skeleton *sk);
/* The same at every key time of a clip's tracks (in the skeleton's space),
 * checked when uneven or a scale key is uneven. */
stance_status st_imp_check_clip(const st_scale_ctx *c, const stance_skeleton *sk, const char *clip,
                                const stance_track_desc *tracks, int count);

#ifdef __cplusplus
}
#endif
#endif
