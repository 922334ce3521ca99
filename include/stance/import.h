/* stance/import.h - importing skeletal animation from interchange files
 * (glTF 2.0 .gltf/.glb, BVH, FBX, Collada and whatever else assimp reads)
 * into a stance_asset, and opening either kind of file by its content.
 *
 * Tools side: glTF (.gltf, .glb) through tinygltf (src/io/gltf.cpp, when
 * found: STANCE_HAVE_TINYGLTF), everything else through assimp (when found:
 * STANCE_HAVE_ASSIMP); without the library a format needs, stance_import_file
 * answers STANCE_ERR_UNSUPPORTED. glTF's STEP, CUBICSPLINE and slerp are baked
 * onto the runtime's linear key grid (see gltf.cpp and the options below). */
#ifndef STANCE_IMPORT_H
#define STANCE_IMPORT_H

#include <stdio.h>

#include "asset.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STANCE_IMPORT_WARNINGS 32
#define STANCE_IMPORT_DEFAULT_MEMORY ((size_t)1 << 30) /* max_memory 0: 1 GiB */

/* What an import ignored or changed (a channel for a node that is not a
 * joint, morph-weight channels, a renamed joint, ...): one line each,
 * starting with the path. */
typedef struct stance_import_warnings {
    int count;                                     /* all of them */
    char message[STANCE_IMPORT_WARNINGS][256];     /* the first ones */
} stance_import_warnings;

/* What an import found per clip: the interpolation modes of the channels it
 * kept and how many keys it added to bake them onto the runtime's linear
 * key grid (glTF STEP hold keys, CUBICSPLINE and slerp resampling; FBX and
 * Collada rotation keys added to follow slerp, the assimp path's other
 * formats LINEAR with none added). .stance files leave count 0. */
#define STANCE_INTERP_LINEAR 1u
#define STANCE_INTERP_STEP 2u
#define STANCE_INTERP_CUBICSPLINE 4u

typedef struct stance_import_clip_report {
    char name[64];             /* the clip's name in the asset */
    unsigned interpolations;   /* STANCE_INTERP_* bits */
    int file_keys;             /* distinct key times of its channels in the file */
    int keys_added;            /* the clip's key count minus file_keys */
} stance_import_clip_report;

typedef struct stance_import_report {
    stance_import_clip_report *clips; /* caller-owned, `capacity` entries (may be NULL if 0) */
    int capacity;
    int count;                 /* clips reported (zeroed first), in the asset's clip order */
} stance_import_report;

typedef struct stance_import_options {
    /* Multiplies every translation (rest, keys): 0.01 for a file in
     * centimetres, 0.0254 for inches. 0 = 1. */
    float scale;
    /* Filled with the warnings when not NULL (zeroed first). */
    stance_import_warnings *warnings;
    /* Resampling tolerance where the file's interpolation is not the
     * runtime's (glTF CUBICSPLINE; LINEAR rotations, which glTF slerps, and
     * FBX and Collada rotation keys, slerped between): keys are added until
     * the baked clip is within it. 0 = 1e-5 units for translations and
     * scales, 1e-4 radians for rotations. */
    float tolerance_units;
    float tolerance_radians;
    /* Bytes the import may allocate for keys, skins and meshes, checked
     * before allocating; 0 = 1 GiB. */
    size_t max_memory;
    /* 0: a clip that cannot be imported is dropped with a warning (the file
     * is an error only when no clip is left); 1: any problem is an error. */
    int strict;
    /* Filled when not NULL: one entry per imported clip (count = 0 first). */
    stance_import_report *report;
    /* Root motion extraction after the import (stance_asset_extract_root,
     * stance/build.h; docs/root-motion.md): STANCE_ROOT_NONE (0) keeps the
     * clips as they are; HIPS takes the pelvis' horizontal travel into each
     * clip's root path; ROOT takes a root bone's (stance_root_find_bone:
     * above the pelvis, carrying the travel). root_joint names the pelvis or
     * root bone (NULL = found). Not applied to .stance files. */
    int root_motion;
    const char *root_joint;
    int root_yaw;              /* 1: the path takes the pelvis' yaw too (stance_root_desc.yaw) */
} stance_import_options;

/* Writes each kept warning as one line, `prefix` first, then how many
 * more there were. */
STANCE_API void stance_import_warnings_print(const stance_import_warnings *warnings, const char *prefix, FILE *f);

/* Imports `path` (opt may be NULL). The skeleton is the union of the skin
 * joints of all meshes, plus the nodes between them and their common root
 * so the hierarchy is connected; a file without skins (BVH, many FBX and
 * Collada files) uses the nodes its animation channels target and their
 * ancestors up to one root: never cameras, lights or their ".Target" nodes,
 * and when the animated nodes spread over several subtrees of the scene root
 * (a character and an animated sky or prop), the subtree with the most of
 * them. Parents come before children, names are kept, the rest pose is the
 * node transforms. Transforms of the nodes above the skeleton are baked into
 * its root (a uniform scale there is moved into every translation), so model
 * space is the file's world space: metres and Y up for glTF. One clip per
 * animation or take, its name kept ("clip<i>" when empty; the file's name
 * when assimp named it after a node, as for Collada files without clips),
 * times in seconds. A clip that cannot be imported (a non-finite key time or
 * value, ...) is dropped with one warning unless opt->strict; the
 * file fails when no clip is left. A take's keys before its start are
 * dropped (one warning per clip); an FBX or Collada clip lasts to its
 * joints' last key. A scale that differs per axis is imported only where
 * the runtime's transforms give every joint's model-space position within
 * 1e-4 of the model's size (and its frame within 1e-4): otherwise
 * STANCE_ERR_UNSUPPORTED (rest pose) or the clip is dropped, in one line
 * naming the joint. BVH files are pre-scanned before assimp
 * reads them (bvh_scan.h). Key memory is checked against opt->max_memory
 * before it is allocated. Messages start with the path. */
STANCE_API stance_status stance_import_file(const char *path, const stance_import_options *opt,
                                 const stance_allocator *allocator, stance_asset *out,
                                 stance_error *err);

/* A .stance file (by its magic) through stance_build_load_asset_file (as
 * stance_asset_load_file, and a compiled graph written before format 2 is
 * rebuilt from its description), as stored (opt->scale does not apply),
 * anything else through stance_import_file. */
STANCE_API stance_status stance_open_file(const char *path, const stance_import_options *opt,
                               const stance_allocator *allocator, stance_asset *out,
                               stance_error *err);

/* How long one model unit of an imported file is, in centimetres: what error
 * bounds given in centimetres (stance import --error-cm, --vertex-cm) are
 * divided by. Translations after opt->scale. A format with a unit gives it:
 * glTF metres (its specification), FBX, Collada and the other assimp formats
 * metres as imported, a .stance file metres. A BVH file (by its extension
 * or its "HIERARCHY" head) has no unit: its rest pose's joints' largest
 * extent along an axis is read in metres, centimetres, millimetres and
 * inches, and the first under which it lies in [STANCE_UNIT_PERSON_MIN_M,
 * STANCE_UNIT_PERSON_MAX_M] metres (a person's size) is the unit; under none
 * (CMU's skeleton: 23.9 units, its unit 1/0.45 inch), the extent is read as
 * STANCE_UNIT_PERSON_M metres. `how` (may be NULL) gets one line saying
 * which and why. */
#define STANCE_UNIT_PERSON_MIN_M 1.0
#define STANCE_UNIT_PERSON_MAX_M 2.2
#define STANCE_UNIT_PERSON_M 1.5
STANCE_API stance_status stance_import_unit_cm(const char *path, const stance_asset *asset, float *unit_cm, char *how,
                                               size_t how_size, stance_error *err);

#ifdef __cplusplus
}
#endif
#endif
