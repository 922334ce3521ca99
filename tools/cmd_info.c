/* tools/cmd_info.c - `stance info FILE [--json] [--unit-cm CM]`: what an
 * asset holds (the joint tree, each clip's duration, key count, raw and
 * stored bytes, largest compression error and animated joints, each
 * skin's joint count, each mesh's vertex and triangle counts and skin), for
 * a .stance file or anything the importer reads.
 *
 * Owns only its output: text, or JSON written with plain fprintf (the CLI
 * builds without jansson). Errors are one line on stderr, exit status 1;
 * usage errors exit 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "info_graph.h"
#include "tool_json.h"
#include "stance/import.h"
#include "stance/asset.h"
#include "io/asset_textures.h"

static int animated_count(const stance_clip *c) {
    int n = 0;
    for (int j = 0; j < c->joint_count; j++) n += c->animated[j] != 0;
    return n;
}

/* Centimetres per model unit for max_error_cm (--unit-cm; metres by default). */
static double unit_cm = 100.0;

/* Raw size: 10 floats per joint per key of the grid (ACL's measure). */
static size_t raw_bytes(const stance_clip *c) { return (size_t)40 * (size_t)c->joint_count * (size_t)c->key_count; }

static const char *mesh_skin_name(const stance_asset *a, const stance_mesh *m) {
    return m->skin >= 0 && m->skin < a->skin_count ? a->skins[m->skin]->name : NULL;
}

/* Skins and meshes, when the asset has any. */
static void print_skins_text(const stance_asset *a) {
    if (a->skin_count > 0) printf("skins:\n");
    for (int i = 0; i < a->skin_count; i++) {
        printf("  ");
        tool_put_plain(stdout, a->skins[i]->name);
        printf(": %d joints\n", a->skins[i]->joint_count);
    }
    if (a->mesh_count > 0) printf("meshes:\n");
    for (int i = 0; i < a->mesh_count; i++) {
        const stance_mesh *m = a->meshes[i];
        printf("  ");
        tool_put_plain(stdout, m->name);
        printf(": %d vertices, %d triangles%s, ", m->vertex_count, m->index_count / 3, m->uvs ? ", uvs" : "");
        const char *skin = mesh_skin_name(a, m);
        if (skin) printf("skin "), tool_put_plain(stdout, skin);
        else printf("rigid");
        printf("\n");
    }
}

/* The import report's entry for clip i, or NULL (a .stance file). */
static const stance_import_clip_report *clip_report(const stance_import_report *r, const stance_asset *a, int i) {
    if (!r || !r->clips || r->count != a->clip_count || i >= r->capacity) return NULL;
    return &r->clips[i];
}

static const char *const interp_names[3] = {"LINEAR", "STEP", "CUBICSPLINE"};

static void print_text(const char *path, const stance_asset *a, const stance_import_report *rep) {
    const stance_skeleton *sk = a->skeleton;
    tool_put_plain(stdout, path);
    printf(": %d joints, %d clips\njoints:\n", sk->joint_count, a->clip_count);
    for (int j = 0; j < sk->joint_count; j++) {
        int depth = 0;
        for (int p = sk->parents[j]; p >= 0; p = sk->parents[p]) depth++;
        printf("  %4d %*s", j, 2 * depth, "");
        tool_put_plain(stdout, stance_skeleton_joint_name(sk, j));
        if (sk->parents[j] >= 0) printf("  (parent %d)", sk->parents[j]);
        printf("\n");
    }
    printf("clips:\n");
    for (int i = 0; i < a->clip_count; i++) {
        const stance_clip *c = a->clips[i];
        printf("  ");
        tool_put_plain(stdout, c->name);
        printf(": %.3f s, %d keys, %zu raw / %zu stored bytes, largest error %.6g cm, animates %d joints:",
               (double)c->duration, c->key_count, raw_bytes(c), stance_clip_data_bytes(c),
               (double)stance_clip_max_error(c, NULL) * unit_cm, animated_count(c));
        for (int j = 0, first = 1; j < c->joint_count; j++) {
            if (!c->animated[j]) continue;
            printf(first ? " " : ", ");
            tool_put_plain(stdout, stance_skeleton_joint_name(sk, j));
            first = 0;
        }
        printf("\n");
        const stance_import_clip_report *r = clip_report(rep, a, i);
        if (r) {
            printf("    interpolation:");
            for (int k = 0, first = 1; k < 3; k++)
                if (r->interpolations & (1u << k)) printf("%s%s", first ? " " : ", ", interp_names[k]), first = 0;
            printf("; %d keys in the file, %d added to bake it\n", r->file_keys, r->keys_added);
        }
    }
    print_skins_text(a);
}

/* The texture section (docs/stance-format.md): its images and each mesh's. */
static void print_textures(const stance_textures *t, int json) {
    if (t->image_count == 0) return;
    if (!json) printf("textures: %d image%s\n", t->image_count, t->image_count > 1 ? "s" : "");
    else printf(",\"textures\":{\"images\":[");
    for (int i = 0; i < t->image_count; i++) {
        if (json) printf("%s{\"format\":\"%s\",\"bytes\":%zu}", i ? "," : "", stance_texture_kind_name(t->images[i].kind), t->images[i].size);
        else printf("  %d: %s, %zu bytes\n", i, stance_texture_kind_name(t->images[i].kind), t->images[i].size);
    }
    if (json) printf("],\"meshes\":[");
    else printf("  meshes' images:");
    for (int i = 0; i < t->mesh_count; i++) printf(json ? "%s%d" : "%s %d", json && i ? "," : "", t->mesh_image[i]);
    printf(json ? "]}" : "\n");
}

/* The vertex colour section: which meshes have colours (their vertex counts, 0 none). */
static void print_colors(const stance_textures *t, int json) {
    if (t->color_count == 0) return;
    if (json) printf(",\"vertex_colors\":{\"meshes\":[");
    else printf("vertex colours: %d mesh%s\n  meshes' colours:", t->color_count, t->color_count > 1 ? "es" : "");
    for (int i = 0; i < t->mesh_count; i++)
        printf(json ? "%s%d" : "%s %d", json && i ? "," : "", t->mesh_colors[i] ? t->mesh_vertices[i] : 0);
    printf(json ? "]}" : "\n");
}

static void print_json(const stance_asset *a, const stance_import_report *rep, const stance_textures *tex) {
    const stance_skeleton *sk = a->skeleton;
    printf("{\"joints\":");
    tool_put_joints_json(stdout, sk);
    printf(",\"clips\":[");
    for (int i = 0; i < a->clip_count; i++) {
        const stance_clip *c = a->clips[i];
        printf("%s{\"name\":", i ? "," : "");
        tool_put_json_string(stdout, c->name);
        printf(",\"duration_s\":%.9g,\"keys\":%d,\"raw_bytes\":%zu,\"stored_bytes\":%zu,\"max_error_cm\":%.9g,"
               "\"compressed\":%s,\"joints\":[", (double)c->duration, c->key_count, raw_bytes(c), stance_clip_data_bytes(c),
               (double)stance_clip_max_error(c, NULL) * unit_cm, stance_clip_is_compressed(c) ? "true" : "false");
        for (int j = 0, first = 1; j < c->joint_count; j++) {
            if (!c->animated[j]) continue;
            if (!first) printf(",");
            tool_put_json_string(stdout, stance_skeleton_joint_name(sk, j));
            first = 0;
        }
        printf("]");
        const stance_import_clip_report *r = clip_report(rep, a, i);
        if (r) {
            printf(",\"interpolation\":[");
            for (int k = 0, first = 1; k < 3; k++)
                if (r->interpolations & (1u << k)) printf("%s\"%s\"", first ? "" : ",", interp_names[k]), first = 0;
            printf("],\"file_keys\":%d,\"keys_added\":%d", r->file_keys, r->keys_added);
        }
        printf("}");
    }
    printf("],\"skins\":[");
    for (int i = 0; i < a->skin_count; i++) {
        printf("%s{\"name\":", i ? "," : "");
        tool_put_json_string(stdout, a->skins[i]->name);
        printf(",\"joint_count\":%d}", a->skins[i]->joint_count);
    }
    printf("],\"meshes\":[");
    for (int i = 0; i < a->mesh_count; i++) {
        const stance_mesh *m = a->meshes[i];
        printf("%s{\"name\":", i ? "," : "");
        tool_put_json_string(stdout, m->name);
        printf(",\"vertices\":%d,\"triangles\":%d,\"uvs\":%s,\"skin\":", m->vertex_count, m->index_count / 3,
               m->uvs ? "true" : "false");
        const char *skin = mesh_skin_name(a, m);
        if (skin) tool_put_json_string(stdout, skin);
        else printf("null");
        printf("}");
    }
    printf("]");
    print_textures(tex, 1);
    print_colors(tex, 1);
    if (a->graph) printf(",\"graph\":"), info_graph_json(stdout, a->graph);
    printf("}\n");
}

int cmd_info(int argc, char **argv) {
    const char *path = NULL;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: stance info FILE [--json] [--unit-cm CM]\n"
                   "  FILE    a .stance file, or a file to import (glTF/GLB, BVH, FBX, Collada)\n"
                   "  --json  {\"joints\":[{\"name\",\"parent\"}],\"clips\":[{\"name\",\"duration_s\",\"keys\",\"raw_bytes\",\"stored_bytes\",\n"
                   "           \"max_error_cm\",\"compressed\",\"joints\"}],\n"
                   "           \"skins\":[{\"name\",\"joint_count\"}],\"meshes\":[{\"name\",\"vertices\",\"triangles\",\"uvs\",\"skin\"}]}\n"
                   "          (a mesh's \"skin\" is its skin's name, null when rigid; raw_bytes: 10 floats per\n"
                   "          joint per key; max_error_cm: measured when compressed, 0 for exact clips); imported clips add\n"
                   "          \"interpolation\":[\"LINEAR\"|\"STEP\"|\"CUBICSPLINE\",..], \"file_keys\", \"keys_added\"\n"
                   "  --unit-cm CM  centimetres per model unit for max_error_cm (default 100: metres)\n"
                   "          and for a compiled graph \"graph\":{\"params\":[{\"name\",\"type\"}],\n"
                   "          \"machines\":[{\"name\",\"states\":[...]}],\"layers\":[{\"name\",\"machine\",\"mode\",\"priority\"}],\n"
                   "          \"clips\":{CLIP:{\"events\":[{\"t\",\"name\",\"authored\",\"min_weight\",\"payload\"}],\n"
                   "          \"windows\":[{\"name\",\"from\",\"to\",\"min_weight\"}]}},\n"
                   "          \"sync\":{\"groups\":{GROUP:[STATE,..]},\"clips\":{CLIP:{\"markers\":[{\"t\",\"name\"}],\"speed\"}}}}}\n");
            return 0;
        } else if (!strcmp(a, "--unit-cm")) {
            char *end = NULL;
            double v = i + 1 < argc ? strtod(argv[++i], &end) : 0.0;
            if (!end || *end || !(v > 0.0) || v > 1e6) {
                fprintf(stderr, "stance info: --unit-cm needs centimetres per model unit > 0\n");
                return 2;
            }
            unit_cm = v;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "stance info: unknown option '%s' (see --help)\n", a);
            return 2;
        } else if (path) {
            fprintf(stderr, "stance info: one FILE only (see --help)\n");
            return 2;
        } else {
            path = a;
        }
    }
    if (!path) {
        fprintf(stderr, "usage: stance info FILE [--json] [--unit-cm CM]\n");
        return 2;
    }
    stance_import_warnings warnings;
    stance_import_report report = {calloc(STANCE_MAX_CLIPS, sizeof(stance_import_clip_report)), STANCE_MAX_CLIPS, 0};
    if (!report.clips) report.capacity = 0;
    stance_import_options opt = {.warnings = &warnings, .report = &report};
    stance_asset asset;
    stance_error err = {STANCE_OK, ""};
    if (stance_open_file(path, &opt, NULL, &asset, &err)) {
        fprintf(stderr, "stance: ");
        tool_put_plain(stderr, err.message);
        fprintf(stderr, "\n");
        free(report.clips);
        return 1;
    }
    stance_textures tex;
    if (stance_textures_of_file(path, &asset, &tex, NULL, &err)) {
        fprintf(stderr, "stance: ");
        tool_put_plain(stderr, err.message);
        fprintf(stderr, "\n");
        free(report.clips);
        stance_asset_destroy(&asset);
        return 1;
    }
    if (json) print_json(&asset, &report, &tex);
    else print_text(path, &asset, &report), print_textures(&tex, 0), print_colors(&tex, 0);
    stance_textures_free(&tex);
    if (!json && asset.graph) info_graph_text(stdout, asset.graph);
    free(report.clips);
    stance_import_warnings_print(&warnings, "stance: warning: ", stderr);
    stance_asset_destroy(&asset);
    return 0;
}
