#define _POSIX_C_SOURCE 200809L
/* tools/cmd_bench.c - `stance bench`: times the reference workload
 * (bench/WORKLOAD.md) and prints medians per character and per joint, the
 * three passes, clip size, and the check value. With --clips FILE: the
 * cost of sampling each clip of FILE as stored (exact or compressed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "stance/import.h"
#include "info_graph.h"
#include "workload.h"

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#define REPS 5
#define WARMUP 10

static int parse_int(const char *s, int lo, int hi, int *out) {
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi) return 0;
    *out = (int)v;
    return 1;
}

/* Each clip played forward by 64 characters at 60 Hz from spread phases,
 * one stance_clip_sample per character per frame, with a cursor each. */
static int bench_clips(const char *path, int json) {
    stance_asset a;
    stance_error err = {0};
    stance_import_options opt = {0};
    if (stance_open_file(path, &opt, NULL, &a, &err)) { fprintf(stderr, "stance bench: %s\n", err.message); return 1; }
    enum { CHARS = 64, FRAMES = 240 };
    stance_pose pose;
    if (stance_pose_create(&pose, a.skeleton->joint_count, NULL, &err)) { stance_asset_destroy(&a); return 1; }
    double total = 0.0, check = 0.0;
    if (json) printf("{\"file\":\"%s\",\"joints\":%d,\"clips\":[", path, a.skeleton->joint_count);
    else printf("%s: %d joints, ns per sample (median of %d runs of %d characters x %d frames)\n", path, a.skeleton->joint_count, REPS, CHARS, FRAMES);
    for (int i = 0; i < a.clip_count; i++) {
        const stance_clip *c = a.clips[i];
        double runs[REPS];
        for (int r = 0; r < REPS; r++) {
            stance_cursor cur[CHARS];
            float t[CHARS];
            memset(cur, 0, sizeof cur);
            for (int k = 0; k < CHARS; k++) t[k] = c->duration * (float)k / CHARS;
            double t0 = now_ns();
            for (int f = 0; f < FRAMES; f++)
                for (int k = 0; k < CHARS; k++) {
                    stance_clip_sample(c, t[k], &cur[k], &pose);
                    check += pose.qw[0];
                    t[k] += 1.0f / 60.0f;
                    if (t[k] >= c->duration) t[k] -= c->duration, cur[k].key = 0;
                }
            runs[r] = (now_ns() - t0) / (CHARS * FRAMES);
        }
        double m = median(runs, REPS);
        total += m;
        if (json) {
            printf("%s{\"name\":", i ? "," : "");
            put_json_string(stdout, c->name);
            printf(",\"compressed\":%s,\"stored_bytes\":%zu,\"sample_ns\":%.1f}", stance_clip_is_compressed(c) ? "true" : "false",
                   stance_clip_data_bytes(c), m);
        } else {
            printf("  %-24.24s %s %8zu bytes %8.1f ns/sample %6.2f ns/joint\n", c->name, stance_clip_is_compressed(c) ? "compressed" : "exact     ",
                   stance_clip_data_bytes(c), m, m / a.skeleton->joint_count);
        }
    }
    if (json) printf("],\"mean_sample_ns\":%.1f,\"check\":%.2f}\n", a.clip_count ? total / a.clip_count : 0.0, check);
    else printf("  mean %.1f ns/sample (check %.2f)\n", a.clip_count ? total / a.clip_count : 0.0, check);
    stance_pose_destroy(&pose);
    stance_asset_destroy(&a);
    return 0;
}

int cmd_bench(int argc, char **argv) {
    int J = 64, N = 1000, F = 100, json = 0;
    const char *clips = NULL;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--clips") && i + 1 < argc) clips = argv[i + 1];
        else if (!strcmp(argv[i], "--json")) json = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--clips") && i + 1 < argc) i++;
        else if (!strcmp(a, "--joints") && i + 1 < argc) {
            if (!parse_int(argv[++i], 2, STANCE_MAX_JOINTS, &J)) { fprintf(stderr, "stance bench: --joints must be 2..%d\n", STANCE_MAX_JOINTS); return 2; }
        } else if (!strcmp(a, "--characters") && i + 1 < argc) {
            if (!parse_int(argv[++i], 1, 1000000, &N)) { fprintf(stderr, "stance bench: --characters must be 1..1000000\n"); return 2; }
        } else if (!strcmp(a, "--frames") && i + 1 < argc) {
            if (!parse_int(argv[++i], 1, 1000000, &F)) { fprintf(stderr, "stance bench: --frames must be 1..1000000\n"); return 2; }
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: stance bench [--joints 64] [--characters 1000] [--frames 100] [--json]\n"
                   "       stance bench --clips FILE [--json]   sampling cost of each clip of FILE as stored\n"
                   "Runs the reference workload of bench/WORKLOAD.md: %d warm-up frames, then %d repetitions\n"
                   "of FRAMES frames; prints medians.\n", WARMUP, REPS);
            return 0;
        } else { fprintf(stderr, "stance bench: unknown option '%s' (see --help)\n", a); return 2; }
    }
    if (clips) return bench_clips(clips, json);
    workload w;
    stance_error err = {0};
    if (workload_create(&w, J, N, &err)) { fprintf(stderr, "stance bench: %s\n", err.message); return 1; }
    long f = 0;
    for (int k = 0; k < WARMUP; k++) workload_frame(&w, f++);
    double full[REPS];
    for (int r = 0; r < REPS; r++) {
        double t0 = now_ns();
        for (int k = 0; k < F; k++) workload_frame(&w, f++);
        full[r] = (now_ns() - t0) / ((double)F * N);
    }
    double check = workload_check(&w);
    /* The passes, each timed on its own over the same frames (after the check). */
    double ps[REPS], pb[REPS], pl[REPS];
    long g = 0;
    for (int r = 0; r < REPS; r++) {
        double ts = 0, tb = 0, tl = 0;
        for (int k = 0; k < F; k++) {
            double t0 = now_ns();
            workload_pass_sample(&w, g++);
            double t1 = now_ns();
            workload_pass_blend(&w);
            double t2 = now_ns();
            workload_pass_l2m(&w);
            double t3 = now_ns();
            ts += t1 - t0, tb += t2 - t1, tl += t3 - t2;
        }
        ps[r] = ts / ((double)F * N), pb[r] = tb / ((double)F * N), pl[r] = tl / ((double)F * N);
    }
    double m = median(full, REPS), ms = median(ps, REPS), mb = median(pb, REPS), ml = median(pl, REPS);
    size_t clip_bytes = stance_clip_data_bytes(w.clips[0]);
    if (json) {
        printf("{\"joints\":%d,\"characters\":%d,\"frames\":%d,\"repetitions\":%d,"
               "\"update_ns\":%.1f,\"ns_per_joint\":%.2f,\"sample_ns\":%.1f,\"blend_ns\":%.1f,"
               "\"local_to_model_ns\":%.1f,\"clip_bytes\":%zu,\"check\":%.2f}\n",
               J, N, F, REPS, m, m / J, ms, mb, ml, clip_bytes, check);
    } else {
        printf("stance bench: %d joints, %d characters, %d frames x %d repetitions (median)\n", J, N, F, REPS);
        printf("  full update      %9.1f ns/character  %6.2f ns/joint\n", m, m / J);
        printf("  sample x2 pass   %9.1f ns/character\n", ms);
        printf("  blend pass       %9.1f ns/character\n", mb);
        printf("  local-to-model   %9.1f ns/character\n", ml);
        printf("  clip size        %9zu bytes (%.1f KB)\n", clip_bytes, clip_bytes / 1000.0);
        printf("  check value      %.2f\n", check);
    }
    workload_destroy(&w);
    return 0;
}
