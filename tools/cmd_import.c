/* tools/cmd_import.c - `stance import FILE -o OUT.stance [--scale S]
 * [--tolerance U[,R]] [--strict] [--max-memory BYTES] [--error-cm CM] [--vertex-cm CM]
 * [--unit-cm CM] [--root-motion none|hips|root] [--root-joint NAME] [--root-yaw] [--root-rotation]`:
 * imports a glTF/GLB, BVH, FBX or Collada file (or re-saves a .stance file)
 * into the native format.
 *
 * Owns only the command's arguments and messages. Errors are one line on
 * stderr, exit status 1; usage errors exit 2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "stance/import.h"
#include "stance/asset.h"
#include "stance/build.h"
#include "io/asset_textures.h"

static int usage(FILE *f, int status) {
    fprintf(f, "usage: stance import FILE -o OUT.stance [--scale S] [--tolerance U[,R]] [--strict] [--max-memory BYTES]\n"
               "                     [--error-cm CM] [--vertex-cm CM] [--unit-cm CM]\n"
               "                     [--root-motion none|hips|root] [--root-joint NAME] [--root-yaw] [--root-rotation]\n"
               "  FILE       glTF/GLB, BVH, FBX, Collada (anything assimp reads), or a .stance file\n"
               "  -o OUT     the .stance file to write\n"
               "  --scale S  multiply translations by S (0.01 for centimetres, 0.0254 for inches);\n"
               "             imports only: a .stance file is copied as stored\n"
               "  --tolerance U[,R]  resampling tolerance (glTF curves; FBX/Collada rotation keys added\n"
               "             to follow slerp): U units for translations and scales (default 1e-5),\n"
               "             R radians for rotations (default 1e-4)\n"
               "  --strict   any problem is an error (default: a clip that cannot be imported is\n"
               "             dropped with a warning, and the file fails only when no clip is left)\n"
               "  --max-memory BYTES  the import's memory budget for keys and for compressing one clip\n"
               "             (suffix K, M or G; default 1G), checked before allocating\n"
               "  --error-cm CM   clip compression: largest model-space error at the virtual\n"
               "             vertices, in cm (default 0.01; 0 = exact, bit-identical keys; a .stance\n"
               "             FILE is copied as stored unless this is given)\n"
               "  --vertex-cm CM  distance of the virtual vertices from each joint (default 3)\n"
               "  --unit-cm CM    centimetres per model unit (default: the file's; metres, and\n"
               "                  for BVH, which has none, found from the rest pose's size)\n"
               "  --root-motion M  none (default): clips as in the file; hips: the pelvis' horizontal\n"
               "             travel becomes each clip's root path and the clip plays in place (the pelvis\n"
               "             keeps its height and its motion relative to the path); root: the root bone's\n"
               "             travel does (docs/root-motion.md)\n"
               "  --root-joint NAME  the pelvis (hips) or root bone (root); default: hips = the first joint\n"
               "             with translation keys that carries the legs, root = the joint above it whose\n"
               "             translation keys move most (a 'root' bone, an armature node)\n"
               "  --root-yaw with --root-motion: the joint's turn about up goes into the root path too\n"
               "             (the root turns, the in-place pelvis keeps its heading at time 0)\n"
               "  --root-rotation with --root-motion root: the root bone's full rotation (pitch, roll, yaw)\n"
               "             and 3-D travel go into the path; the bones below keep their model-space pose\n");
    return status;
}

/* The error message on one line: control bytes as '?'. */
static void print_error(const char *message) {
    fputs("stance: ", stderr);
    for (const char *s = message; *s; s++) fputc((unsigned char)*s < 32 || *s == 127 ? '?' : *s, stderr);
    fputc('\n', stderr);
}

int cmd_import(int argc, char **argv) {
    const char *in = NULL, *out = NULL;
    float scale = 1.0f, tol_u = 0.0f, tol_r = 0.0f;
    int strict = 0;
    size_t max_memory = 0;
    double error_cm = 0.01, vertex_cm = 3.0, unit_cm = 0.0; /* unit 0: the file's (stance_import_unit_cm) */
    int error_given = 0, root_motion = STANCE_ROOT_NONE;
    const char *root_joint = NULL;
    int root_yaw = 0, root_rotation = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout, 0);
        if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (i + 1 >= argc) return usage(stderr, 2);
            out = argv[++i];
        } else if (!strcmp(a, "--scale")) {
            char *end = NULL;
            double v = i + 1 < argc ? strtod(argv[++i], &end) : 0.0;
            if (!end || *end || !isfinite(v) || !(v > 0.0) || v > 1e6) {
                fprintf(stderr, "stance import: --scale needs a number > 0\n");
                return 2;
            }
            scale = (float)v;
        } else if (!strcmp(a, "--error-cm") || !strcmp(a, "--vertex-cm") || !strcmp(a, "--unit-cm")) {
            char *end = NULL;
            double v = i + 1 < argc ? strtod(argv[++i], &end) : -1.0;
            int zero_ok = !strcmp(a, "--error-cm");
            if (!end || *end || !isfinite(v) || v < 0.0 || (!zero_ok && v == 0.0) || v > 1e6) {
                fprintf(stderr, "stance import: %s needs a number of centimetres %s\n", a, zero_ok ? ">= 0" : "> 0");
                return 2;
            }
            *(a[2] == 'e' ? &error_cm : a[2] == 'v' ? &vertex_cm : &unit_cm) = v;
            error_given |= a[2] == 'e';
        } else if (!strcmp(a, "--tolerance")) {
            char *end = NULL;
            double u = i + 1 < argc ? strtod(argv[++i], &end) : 0.0, r = 0.0;
            if (end && *end == ',') {
                const char *rs = end + 1;
                r = strtod(rs, &end);
                if (end == rs) end = NULL;
            }
            if (!end || *end || !isfinite(u) || !(u > 0.0) || u > 1e3 || !isfinite(r) || r < 0.0 || r > 1.0) {
                fprintf(stderr, "stance import: --tolerance needs U[,R]: units in (0, 1000], radians in (0, 1]\n");
                return 2;
            }
            tol_u = (float)u, tol_r = (float)r;
        } else if (!strcmp(a, "--root-motion")) {
            const char *m = i + 1 < argc ? argv[++i] : "";
            if (!strcmp(m, "none")) root_motion = STANCE_ROOT_NONE;
            else if (!strcmp(m, "hips")) root_motion = STANCE_ROOT_HIPS;
            else if (!strcmp(m, "root")) root_motion = STANCE_ROOT_ROOT;
            else {
                fprintf(stderr, "stance import: --root-motion needs none, hips or root\n");
                return 2;
            }
        } else if (!strcmp(a, "--root-yaw")) {
            root_yaw = 1;
        } else if (!strcmp(a, "--root-rotation")) {
            root_rotation = 1;
        } else if (!strcmp(a, "--root-joint")) {
            if (i + 1 >= argc || !argv[i + 1][0]) {
                fprintf(stderr, "stance import: --root-joint needs a joint name\n");
                return 2;
            }
            root_joint = argv[++i];
        } else if (!strcmp(a, "--strict")) {
            strict = 1;
        } else if (!strcmp(a, "--max-memory")) {
            char *end = NULL;
            const char *arg = i + 1 < argc ? argv[++i] : "";
            unsigned long long v = (arg[0] >= '0' && arg[0] <= '9') ? strtoull(arg, &end, 10) : 0;
            unsigned long long unit = 1;
            if (end && (*end == 'K' || *end == 'k')) unit = 1ull << 10, end++;
            else if (end && (*end == 'M' || *end == 'm')) unit = 1ull << 20, end++;
            else if (end && (*end == 'G' || *end == 'g')) unit = 1ull << 30, end++;
            if (!end || *end || v == 0 || v > (1ull << 50) / unit) {
                fprintf(stderr, "stance import: --max-memory needs a byte count >= 1 (suffix K, M or G allowed)\n");
                return 2;
            }
            max_memory = (size_t)(v * unit);
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "stance import: unknown option '%s' (see --help)\n", a);
            return 2;
        } else if (in) {
            fprintf(stderr, "stance import: one FILE only (see --help)\n");
            return 2;
        } else {
            in = a;
        }
    }
    if (!in || !out || !out[0]) return usage(stderr, 2);
    if (root_rotation && root_motion != STANCE_ROOT_ROOT && root_motion != STANCE_ROOT_HIPS) {
        fprintf(stderr, "stance import: --root-rotation needs --root-motion root (the root bone's rotation goes into the path)\n");
        return 2;
    }

    stance_import_warnings warnings;
    stance_import_options opt = {.scale = scale, .warnings = &warnings, .tolerance_units = tol_u, .tolerance_radians = tol_r,
                                 .strict = strict, .max_memory = max_memory, .root_motion = root_motion,
                                 .root_joint = root_joint, .root_yaw = root_yaw,
                                 .root_rotation = root_rotation};
    stance_asset asset;
    stance_error err = {STANCE_OK, ""};
    if (stance_open_file(in, &opt, NULL, &asset, &err)) {
        print_error(err.message);
        return 1;
    }
    stance_status s = STANCE_OK;
    /* a .stance file is copied as stored unless --error-cm asks otherwise */
    unsigned char magic[8] = {0};
    FILE *probe = fopen(in, "rb");
    size_t got = probe ? fread(magic, 1, sizeof magic, probe) : 0;
    if (probe) fclose(probe);
    if (!error_given && stance_asset_is_native(magic, got)) error_cm = 0.0;
    char unit_how[160] = "";
    if (error_cm > 0.0 && unit_cm == 0.0) {
        float u = 0.0f;
        if (stance_import_unit_cm(in, &asset, &u, unit_how, sizeof unit_how, &err)) {
            print_error(err.message);
            stance_asset_destroy(&asset);
            return 1;
        }
        unit_cm = u;
    }
    if (error_cm > 0.0) {
        stance_compress_settings cs = {(float)(error_cm / unit_cm), (float)(vertex_cm / unit_cm),
                                       max_memory ? max_memory : STANCE_IMPORT_DEFAULT_MEMORY};
        if (!(cs.max_error > 0.0f) || !(cs.vertex_distance > 0.0f)) {
            fprintf(stderr, "stance import: --error-cm and --vertex-cm are too small for --unit-cm\n");
            stance_asset_destroy(&asset);
            return 2;
        }
        s = stance_asset_compress(&asset, &cs, &err);
    }
    /* the base-colour images and vertex colours (a glTF's or an assimp format's, or the texture and
     * vertex colour sections of a .stance FILE): a version 6 file when any */
    stance_textures tex = {0};
    if (!s) s = stance_textures_of_file(in, &asset, &tex, &warnings, &err);
    if (!s) s = stance_textures_save_file(&asset, NULL, &tex, out, &err);
    const int images = tex.image_count, colored = tex.color_count;
    stance_textures_free(&tex);
    if (s) {
        print_error(err.message);
        stance_asset_destroy(&asset);
        return 1;
    }
    stance_import_warnings_print(&warnings, "stance: warning: ", stderr);
    printf("%s: %d joints, %d clips -> %s\n", in, asset.skeleton->joint_count, asset.clip_count, out);
    if (images || colored)
        printf("  %d base-colour image%s and %d mesh%s' vertex colours kept: a version 6 file (builds before it refuse it; "
               "docs/stance-format.md)\n", images, images == 1 ? "" : "s", colored, colored == 1 ? "" : "es");
    if (strstr(unit_how, "BVH")) printf("  error bounds in cm with a model unit of %s\n", unit_how);
    stance_asset_destroy(&asset);
    return 0;
}
