/* src/io/import.c - skeletal animation from interchange files: the entry
 * points (stance_open_file, stance_import_file), probing the file (missing,
 * empty, its format by extension and magic, the GLB header, the BVH
 * pre-scan), glTF to gltf.cpp, the rest through the assimp C API: the scene
 * read here, the skeleton and asset built in import_scene.c, the clips in
 * import_clips.c.
 *
 * Owns nothing beyond one import: assimp's scene is released before
 * returning, temporaries are freed, the asset belongs to the caller.
 * Everything assimp hands over (pointers, counts, names, floats) is checked
 * before use: malformed files are expected here. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bvh_scan.h"
#include "collada_clips.h"
#include "gltf_bake.h"
#include "core/base/internal.h"
#include "core/load/asset_internal.h"
#include "gltf.h"
#include "stance/build.h"
#include "stance/import.h"
#include "import_mesh.h"
#include "io/asset_textures.h"
#include "io/files.h"

#ifdef STANCE_HAVE_ASSIMP
#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/material.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include "import_assimp.h"
#endif

/* Opens `path`, reads its first bytes and finds its size: a missing file,
 * a directory and an empty file get their own message. */
static stance_status probe_file(const char *path, unsigned char *head, size_t cap, size_t *got,
                                long *size, stance_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f) return st_fail(err, STANCE_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    errno = 0;
    size_t n = fread(head, 1, cap, f);
    int e = errno, failed = ferror(f);
    *size = -1;
    if (!failed && fseek(f, 0, SEEK_END) == 0) *size = ftell(f);
    fclose(f);
    if (failed) return st_fail(err, STANCE_ERR_IO, "%s: cannot read: %s", path, e ? strerror(e) : "read error");
    if (n == 0) return st_fail(err, STANCE_ERR_FORMAT, "%s: the file is empty", path);
    *got = n;
    return STANCE_OK;
}

static stance_status check_args(const char *path, const stance_import_options *opt,
                                const stance_allocator *allocator, stance_asset *out,
                                stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "import: out is NULL");
    memset(out, 0, sizeof *out);
    if (!path || !path[0]) return st_fail(err, STANCE_ERR_ARGUMENT, "import: path is NULL or empty");
    if (opt && (!isfinite(opt->scale) || opt->scale < 0.0f))
        return st_fail(err, STANCE_ERR_ARGUMENT, "%s: scale %g is not a finite number > 0", path, (double)opt->scale);
    if (opt && (!isfinite(opt->tolerance_units) || opt->tolerance_units < 0.0f || !isfinite(opt->tolerance_radians) ||
                opt->tolerance_radians < 0.0f))
        return st_fail(err, STANCE_ERR_ARGUMENT, "%s: tolerances must be finite numbers >= 0", path);
    if (st_check_allocator(allocator, path, err)) return STANCE_ERR_ARGUMENT;
    return STANCE_OK;
}

/* Checks the arguments, clears the warnings, reads the file's first bytes
 * and its size: the start that opening and importing share. */
#define HEAD_BYTES 20
static stance_status begin(const char *path, const stance_import_options *opt, const stance_allocator *allocator,
                           stance_asset *out, unsigned char *head, size_t *got, long *size, stance_error *err) {
    stance_status s = check_args(path, opt, allocator, out, err);
    if (s) return s;
    if (opt && opt->warnings) memset(opt->warnings, 0, sizeof *opt->warnings);
    if (opt && opt->report) opt->report->count = 0;
    return probe_file(path, head, HEAD_BYTES, got, size, err);
}

/* glTF (by the GLB magic or the .gltf/.glb extension) goes to gltf.cpp. */
static int is_gltf(const char *path, const unsigned char *head, size_t got) {
    if (got >= 4 && !memcmp(head, "glTF", 4)) return 1;
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash)) return 0;
    char ext[6] = {0};
    for (int i = 0; i < 5 && dot[1 + i]; i++) ext[i] = (char)tolower((unsigned char)dot[1 + i]);
    return !strcmp(ext, "gltf") || !strcmp(ext, "glb");
}

static stance_status import_gltf(const char *path, const stance_import_options *opt, const stance_allocator *allocator,
                                 stance_asset *out, stance_error *err) {
#ifdef STANCE_HAVE_TINYGLTF
    stance_status s = stance_gltf_import(path, opt, allocator, out, err);
    if (s && opt && opt->report) opt->report->count = 0;
    return s;
#else
    (void)opt, (void)allocator, (void)out;
    return st_fail(err, STANCE_ERR_UNSUPPORTED, "%s: cannot import glTF: built without tinygltf (install libtinygltf-dev)", path);
#endif
}

/* The import proper, once the file was probed (built with or without assimp). */
static stance_status import_probed(const char *path, const unsigned char *head, size_t got, long size,
                                   const stance_import_options *opt, const stance_allocator *allocator,
                                   stance_asset *out, stance_error *err);

/* opt's root motion mode on the imported clips (the message names the file). */
static stance_status extract_root(const char *path, const stance_import_options *opt, stance_asset *out, stance_error *err) {
    if (!opt || opt->root_motion == STANCE_ROOT_NONE) return STANCE_OK;
    stance_root_desc rd = {(stance_root_mode)opt->root_motion, opt->root_joint, opt->root_yaw, opt->root_rotation};
    stance_status s = stance_asset_extract_root(out, &rd, err);
    if (s) {
        if (err) {
            char m[sizeof err->message];
            memcpy(m, err->message, sizeof m);
            st_fail(err, s, "%s: %.200s", path, m);
        }
        stance_asset_destroy(out);
    }
    return s;
}

stance_status stance_open_file(const char *path, const stance_import_options *opt,
                               const stance_allocator *allocator, stance_asset *out, stance_error *err) {
    unsigned char head[HEAD_BYTES];
    size_t got = 0;
    long size = 0;
    stance_status s = begin(path, opt, allocator, out, head, &got, &size, err);
    if (s) return s;
    if (stance_asset_is_native(head, got)) return stance_build_load_asset_file(path, allocator, out, err); /* either GRPH form */
    if (is_gltf(path, head, got)) s = import_gltf(path, opt, allocator, out, err);
    else s = import_probed(path, head, got, size, opt, allocator, out, err);
    return s ? s : extract_root(path, opt, out, err);
}

#ifdef STANCE_HAVE_ASSIMP
/* The base-colour textures and vertex colours of the meshes imported from an
 * assimp format: the file read again, with FBX's embedded textures this time
 * (import_mesh.c's st_import_looks matches the meshes). */
static stance_status assimp_looks(const char *path, const stance_asset *asset, stance_textures *out, stance_import_warnings *warnings,
                                  stance_error *err) {
    struct aiPropertyStore *props = aiCreatePropertyStore();
    if (!props) return st_fail(err, STANCE_ERR_MEMORY, "%s: out of memory", path);
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, 0);
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_FBX_READ_TEXTURES, 1);
    const struct aiScene *scene = aiImportFileExWithProperties(path, aiProcess_ValidateDataStructure, NULL, props);
    aiReleasePropertyStore(props);
    if (!scene) return st_fail(err, STANCE_ERR_FORMAT, "%s: textures: cannot read the file again", path);
    stance_status s = st_import_looks(path, scene, asset, out, warnings, err);
    aiReleaseImport(scene);
    return s;
}
#endif

stance_status stance_textures_of_file(const char *path, const stance_asset *asset, stance_textures *out,
                                      stance_import_warnings *warnings, stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "textures: out is NULL");
    memset(out, 0, sizeof *out);
    if (!path || !asset) return st_fail(err, STANCE_ERR_ARGUMENT, "textures: path or asset is NULL");
    unsigned char head[HEAD_BYTES];
    size_t got = 0;
    long size = 0;
    stance_status s = probe_file(path, head, sizeof head, &got, &size, err);
    if (s) return s;
    if (stance_asset_is_native(head, got)) { /* its texture section, copied out of the file's bytes */
        void *bytes = NULL;
        size_t n = 0;
        stance_textures t;
        s = stance_io_read_file(path, &bytes, &n, err);
        if (!s) s = stance_textures_read(bytes, n, &t, err);
        if (s) {
            free(bytes);
            return st_asset_prefixed(s, path, err);
        }
        size_t total = 0, colors = 0;
        for (int i = 0; i < t.image_count; i++) total += t.images[i].size;
        for (int i = 0; i < t.mesh_count; i++) colors += t.mesh_colors[i] ? 8 * (size_t)t.mesh_vertices[i] : 0;
        if ((total && !(t.owned = malloc(total))) || (colors && !(t.owned_colors = malloc(colors)))) {
            free(t.owned);
            free(bytes);
            return st_fail(err, STANCE_ERR_MEMORY, "%s: textures: out of memory", path);
        }
        for (size_t i = 0, at = 0; i < (size_t)t.image_count; at += t.images[i].size, i++) {
            memcpy(t.owned + at, t.images[i].bytes, t.images[i].size);
            t.images[i].bytes = t.owned + at;
        }
        for (size_t i = 0, at = 0; i < (size_t)t.mesh_count; i++)
            if (t.mesh_colors[i]) {
                memcpy(t.owned_colors + at, t.mesh_colors[i], 8 * (size_t)t.mesh_vertices[i]);
                t.mesh_colors[i] = t.owned_colors + at;
                at += 8 * (size_t)t.mesh_vertices[i];
            }
        free(bytes);
        *out = t;
        return st_ok(err);
    }
    out->mesh_count = asset->mesh_count;
    for (int i = 0; i < asset->mesh_count && i < STANCE_MAX_MESHES; i++)
        out->mesh_image[i] = -1, out->mesh_vertices[i] = asset->meshes[i]->vertex_count;
#ifdef STANCE_HAVE_TINYGLTF
    if (is_gltf(path, head, got)) return stance_gltf_textures(path, asset, out, warnings, err);
#endif
#ifdef STANCE_HAVE_ASSIMP
    if (asset->mesh_count > 0) return assimp_looks(path, asset, out, warnings, err); /* (a BVH has none: never read again) */
#endif
    (void)warnings;
    return st_ok(err);
}

stance_status stance_import_file(const char *path, const stance_import_options *opt,
                                 const stance_allocator *allocator, stance_asset *out, stance_error *err) {
    unsigned char head[HEAD_BYTES];
    size_t got = 0;
    long size = 0;
    stance_status s = begin(path, opt, allocator, out, head, &got, &size, err);
    if (s) return s;
    if (is_gltf(path, head, got)) s = import_gltf(path, opt, allocator, out, err);
    else s = import_probed(path, head, got, size, opt, allocator, out, err);
    return s ? s : extract_root(path, opt, out, err);
}

void stance_import_warnings_print(const stance_import_warnings *w, const char *prefix, FILE *f) {
    if (!w || !f) return;
    for (int i = 0; i < w->count && i < STANCE_IMPORT_WARNINGS; i++)
        fprintf(f, "%s%.*s\n", prefix ? prefix : "", (int)sizeof w->message[i], w->message[i]);
    if (w->count > STANCE_IMPORT_WARNINGS)
        fprintf(f, "%s%d more warnings\n", prefix ? prefix : "", w->count - STANCE_IMPORT_WARNINGS);
}

#ifndef STANCE_HAVE_ASSIMP

static stance_status import_probed(const char *path, const unsigned char *head, size_t got, long size,
                                   const stance_import_options *opt, const stance_allocator *allocator,
                                   stance_asset *out, stance_error *err) {
    (void)head, (void)got, (void)size, (void)opt, (void)allocator, (void)out;
    return st_fail(err, STANCE_ERR_UNSUPPORTED, "%s: cannot import: built without assimp", path);
}

#else


/* Formats that can hold a skeleton and its animation. Others (OBJ, STL,
 * OFF, ...) are refused before assimp reads them: they cannot give a clip,
 * and some of assimp's readers spend minutes and gigabytes on a bad count. */
static int skeletal_format(const char *path) {
    static const char *const ext[] = {"gltf", "glb", "bvh", "fbx", "dae", "zae", "x", "smd", "vta",
                                      "md5mesh", "md5anim", "ms3d", "b3d", "ase"};
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash)) return 0;
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        const char *a = dot + 1, *b = ext[i];
        while (*a && *b && tolower((unsigned char)*a) == *b) a++, b++;
        if (!*a && !*b) return 1;
    }
    return 0;
}

static uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The binary glTF header and first chunk head, which assimp checks only in
 * part (a wrong total length goes through). */
static stance_status check_glb(const char *path, const unsigned char *h, size_t got, long size, stance_error *err) {
    if (got < 20 || size < 20)
        return st_fail(err, STANCE_ERR_FORMAT, "%s: GLB: shorter than its 20-byte header", path);
    if (memcmp(h, "glTF", 4) || le32(h + 4) != 2)
        return st_fail(err, STANCE_ERR_FORMAT, "%s: GLB: bad magic or version (want glTF 2)", path);
    if ((long)le32(h + 8) != size)
        return st_fail(err, STANCE_ERR_FORMAT, "%s: GLB: the header gives %u bytes, the file has %ld", path,
                       (unsigned)le32(h + 8), size);
    if (le32(h + 16) != 0x4E4F534Au || le32(h + 12) > (uint32_t)(size - 20))
        return st_fail(err, STANCE_ERR_FORMAT, "%s: GLB: the first chunk is not JSON or runs past the end", path);
    return STANCE_OK;
}

static stance_status import_probed(const char *path, const unsigned char *head, size_t got, long size,
                                   const stance_import_options *opt, const stance_allocator *allocator,
                                   stance_asset *out, stance_error *err) {
    stance_status s;
    const char *dot = strrchr(path, '.');
    if ((got >= 4 && !memcmp(head, "glTF", 4)) || (dot && !strcmp(dot, ".glb"))) {
        s = check_glb(path, head, got, size, err);
        if (s) return s;
    } else if (!skeletal_format(path)) {
        return st_fail(err, STANCE_ERR_UNSUPPORTED,
                       "%s: not a format with skeletal animation (stance imports glTF/GLB, BVH, FBX, Collada, X, SMD, "
                       "MD5, MS3D, B3D, ASE)", path);
    }

    const size_t budget = opt && opt->max_memory ? opt->max_memory : STANCE_IMPORT_DEFAULT_MEMORY;
    if ((dot && !st_imp_strcasecmp(dot + 1, "bvh")) || (got >= 9 && !memcmp(head, "HIERARCHY", 9))) {
        s = stance_bvh_prescan(path, budget, err); /* before assimp sees it */
        if (s) return s;
    }

    struct aiPropertyStore *props = aiCreatePropertyStore();
    if (!props) return st_fail(err, STANCE_ERR_MEMORY, "%s: out of memory", path);
    /* FBX: no pivot helper nodes between joints (units: see fbx_basis) */
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, 0);
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_FBX_READ_TEXTURES, 0);
    const struct aiScene *scene = aiImportFileExWithProperties(path, aiProcess_ValidateDataStructure, NULL, props);
    aiReleasePropertyStore(props);
    if (!scene) {
        const char *why = aiGetErrorString();
        char msg[200];
        snprintf(msg, sizeof msg, "%s", why && why[0] ? why : "unknown error"); /* st_fail escapes its newlines */
        return st_fail(err, STANCE_ERR_FORMAT, "%s: cannot import: %s", path, msg);
    }
    importer im;
    memset(&im, 0, sizeof im);
    im.path = path;
    im.opt = opt;
    im.err = err;
    im.scene = scene;
    im.scale = opt && opt->scale > 0.0f ? (double)opt->scale : 1.0;
    im.budget = budget;
    im.strict = opt && opt->strict;
    /* rotation keys follow slerp to the glTF path's tolerances */
    im.tol_u = opt && opt->tolerance_units > 0.0f ? (double)opt->tolerance_units : 1e-5;
    im.tol_r = opt && opt->tolerance_radians > 0.0f ? (double)opt->tolerance_radians : 1e-4;
    s = st_imp_scene(&im, allocator, out);
    if (s && opt && opt->report) opt->report->count = 0;
    free(im.nodes);
    free(im.joint_node);
    aiReleaseImport(scene);
    return s;
}

#endif /* STANCE_HAVE_ASSIMP */
