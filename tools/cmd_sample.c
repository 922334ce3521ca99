/* tools/cmd_sample.c - `stance sample FILE [--clip NAME] --times T1,T2,...
 * [--json [--root]]`: the sampled pose of each clip (or one) at the given
 * times, local (translation, rotation x y z w, scale per joint) and
 * model-space positions, and with --root the root path's position and
 * orientation, so an import can be checked against a DCC tool or a reference.
 *
 * Owns only its arguments and output. Works on .stance files and anything
 * the importer reads. Errors are one line on stderr, exit status 1; usage
 * errors exit 2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "stance/import.h"
#include "stance/asset.h"
#include "tool_json.h"

#define MAX_TIMES 100000

static int usage(FILE *f, int status) {
    fprintf(f, "usage: stance sample FILE [--clip NAME] --times T1,T2,... [--json [--root]]\n"
               "  FILE         a .stance file, or a file to import (glTF/GLB, BVH, FBX, Collada)\n"
               "  --clip NAME  only this clip (default: every clip)\n"
               "  --times ...  clip times in seconds, comma-separated (clamped to [0, duration])\n"
               "  --json       {\"joints\":[{\"name\",\"parent\"}],\"clips\":[{\"name\",\"samples\":[{\"t\",\n"
               "               \"local\":[[tx,ty,tz,qx,qy,qz,qw,sx,sy,sz],...],\"model\":[[x,y,z],...]}]}]}\n"
               "  --root       with --json: each sample also has \"root\":[x,y,z,qx,qy,qz,qw], the root path's\n"
               "               position and orientation (a clip without a root path: zeros and the identity)\n");
    return status;
}

/* Parses "T1,T2,..." into a new array; returns the count, or -1. */
static int parse_times(const char *s, float **out) {
    int cap = 16, n = 0;
    float *t = malloc(sizeof(float) * (size_t)cap);
    if (!t) return -1;
    for (;;) {
        char *end = NULL;
        double v = strtod(s, &end);
        if (end == s || !isfinite(v) || fabs(v) > 1e30 || (*end && *end != ',') || n >= MAX_TIMES) {
            free(t);
            return -1;
        }
        if (n == cap) {
            float *m = realloc(t, sizeof(float) * (size_t)(cap *= 2));
            if (!m) {
                free(t);
                return -1;
            }
            t = m;
        }
        t[n++] = (float)v;
        if (!*end) break;
        s = end + 1;
    }
    *out = t;
    return n;
}

static void print_json(const stance_asset *a, const stance_clip *only, const float *times, int nt, stance_pose *local,
                       stance_pose *model, int root) {
    const stance_skeleton *sk = a->skeleton;
    printf("{\"joints\":");
    tool_put_joints_json(stdout, sk);
    printf(",\"clips\":[");
    for (int c = 0, first = 1; c < a->clip_count; c++) {
        const stance_clip *clip = a->clips[c];
        if (only && clip != only) continue;
        printf("%s{\"name\":", first ? "" : ",");
        first = 0;
        tool_put_json_string(stdout, clip->name);
        printf(",\"samples\":[");
        for (int i = 0; i < nt; i++) {
            stance_clip_sample(clip, times[i], NULL, local, NULL);
            stance_local_to_model(model, local, sk, NULL, NULL);
            printf("%s{\"t\":%.9g,\"local\":[", i ? "," : "", (double)times[i]);
            for (int j = 0; j < sk->joint_count; j++)
                printf("%s[%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g]", j ? "," : "", (double)local->tx[j],
                       (double)local->ty[j], (double)local->tz[j], (double)local->qx[j], (double)local->qy[j],
                       (double)local->qz[j], (double)local->qw[j], (double)local->sx[j], (double)local->sy[j],
                       (double)local->sz[j]);
            printf("],\"model\":[");
            for (int j = 0; j < sk->joint_count; j++)
                printf("%s[%.9g,%.9g,%.9g]", j ? "," : "", (double)model->tx[j], (double)model->ty[j], (double)model->tz[j]);
            printf("]");
            if (root) {
                float p[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1};
                stance_clip_root_position(clip, times[i], p, NULL);
                stance_clip_root_rotation(clip, times[i], q, NULL);
                printf(",\"root\":[%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g]", (double)p[0], (double)p[1], (double)p[2], (double)q[0],
                       (double)q[1], (double)q[2], (double)q[3]);
            }
            printf("}");
        }
        printf("]}");
    }
    printf("]}\n");
}

static void print_text(const stance_asset *a, const stance_clip *only, const float *times, int nt, stance_pose *local,
                       stance_pose *model) {
    const stance_skeleton *sk = a->skeleton;
    for (int c = 0; c < a->clip_count; c++) {
        const stance_clip *clip = a->clips[c];
        if (only && clip != only) continue;
        printf("clip ");
        tool_put_plain(stdout, clip->name);
        printf(" (%.3f s)\n", (double)clip->duration);
        for (int i = 0; i < nt; i++) {
            stance_clip_sample(clip, times[i], NULL, local, NULL);
            stance_local_to_model(model, local, sk, NULL, NULL);
            printf("  t = %.6g s\n", (double)times[i]);
            printf("    %-24s %-32s %-40s %-28s %s\n", "joint", "translation", "rotation (x y z w)", "scale", "model position");
            for (int j = 0; j < sk->joint_count; j++) {
                char name[25];
                snprintf(name, sizeof name, "%s", stance_skeleton_joint_name(sk, j));
                for (char *p = name; *p; p++)
                    if ((unsigned char)*p < 32 || *p == 127) *p = '?';
                printf("    %-24s %10.5f %10.5f %10.5f %9.6f %9.6f %9.6f %9.6f %8.5f %8.5f %8.5f   %10.5f %10.5f %10.5f\n", name,
                       (double)local->tx[j], (double)local->ty[j], (double)local->tz[j], (double)local->qx[j], (double)local->qy[j],
                       (double)local->qz[j], (double)local->qw[j], (double)local->sx[j], (double)local->sy[j], (double)local->sz[j],
                       (double)model->tx[j], (double)model->ty[j], (double)model->tz[j]);
            }
        }
    }
}

int cmd_sample(int argc, char **argv) {
    const char *path = NULL, *clip_name = NULL, *times_arg = NULL;
    int json = 0, root = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout, 0);
        if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--root")) {
            root = 1;
        } else if (!strcmp(a, "--clip") || !strcmp(a, "--times")) {
            if (i + 1 >= argc) return usage(stderr, 2);
            if (a[2] == 'c') clip_name = argv[++i];
            else times_arg = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "stance sample: unknown option '%s' (see --help)\n", a);
            return 2;
        } else if (path) {
            fprintf(stderr, "stance sample: one FILE only (see --help)\n");
            return 2;
        } else {
            path = a;
        }
    }
    if (!path || !times_arg) return usage(stderr, 2);
    float *times = NULL;
    int nt = parse_times(times_arg, &times);
    if (nt < 0) {
        fprintf(stderr, "stance sample: --times needs finite numbers separated by commas (at most %d)\n", MAX_TIMES);
        return 2;
    }
    stance_import_warnings warnings;
    stance_import_options opt = {.warnings = &warnings};
    stance_asset asset;
    stance_error err = {STANCE_OK, ""};
    if (stance_open_file(path, &opt, NULL, &asset, &err)) {
        fprintf(stderr, "stance: ");
        tool_put_plain(stderr, err.message);
        fprintf(stderr, "\n");
        free(times);
        return 1;
    }
    const stance_clip *only = NULL;
    int status = 0;
    if (clip_name) {
        only = stance_asset_find_clip(&asset, clip_name);
        if (!only) {
            fprintf(stderr, "stance: ");
            tool_put_plain(stderr, path);
            fprintf(stderr, ": no clip named '");
            tool_put_plain(stderr, clip_name);
            fprintf(stderr, "'\n");
            status = 1;
        }
    }
    stance_pose local, model;
    memset(&local, 0, sizeof local), memset(&model, 0, sizeof model);
    if (!status && (stance_pose_create(&local, asset.skeleton->joint_count, NULL, &err) ||
                    stance_pose_create(&model, asset.skeleton->joint_count, NULL, &err))) {
        fprintf(stderr, "stance: %s\n", err.message);
        status = 1;
    }
    if (!status) {
        if (json) print_json(&asset, only, times, nt, &local, &model, root);
        else print_text(&asset, only, times, nt, &local, &model);
        stance_import_warnings_print(&warnings, "stance: warning: ", stderr);
    }
    if (local.memory) stance_pose_destroy(&local);
    if (model.memory) stance_pose_destroy(&model);
    stance_asset_destroy(&asset);
    free(times);
    return status;
}
