#define _POSIX_C_SOURCE 200809L
/* tools/cmd_bench.c - `stance bench`: times the reference workload
 * (bench/WORKLOAD.md) and prints medians per character and per joint, the
 * three passes, clip size, and the check value. With --clips FILE: the
 * cost of sampling each clip of FILE as stored (exact or compressed). With
 * --load FILE: the time and allocations of loading FILE (bench_load.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

#include "bench_load.h"
#include "commands.h"
#include "stance/import.h"
#include "info_graph.h"
#include "tool_json.h"
#include "crowd.h"
#include "tool_graph.h"
#include "workload.h"

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof(double), bench_cmp_double);
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
            double t0 = bench_now_ns();
            for (int f = 0; f < FRAMES; f++)
                for (int k = 0; k < CHARS; k++) {
                    stance_clip_sample(c, t[k], &cur[k], &pose, NULL);
                    check += pose.qw[0];
                    t[k] += 1.0f / 60.0f;
                    if (t[k] >= c->duration) t[k] -= c->duration, cur[k].key = 0;
                }
            runs[r] = (bench_now_ns() - t0) / (CHARS * FRAMES);
        }
        double m = median(runs, REPS);
        total += m;
        if (json) {
            printf("%s{\"name\":", i ? "," : "");
            tool_put_json_string(stdout, c->name);
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

#define CROWD_WARMUP 60

static void cpu_and_load(char *cpu, size_t cap, double *load);

/* The calling thread's CPU time in ms. */
static double thread_cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

/* The crowd workload of bench/WORKLOAD.md on a graph file. */
static int bench_crowd(const char *path, const char *asset, int N, int T, int chunk, int F, int W, int prefetch, int json) {
    tool_graph tg;
    stance_error err = {0};
    if (tool_graph_open(&tg, path, asset, &err)) { fprintf(stderr, "stance bench: %s\n", err.message); return 1; }
    crowd *c = NULL;
    if (crowd_create(tg.graph, N, T, chunk, &c, &err)) {
        fprintf(stderr, "stance bench: %s\n", err.message);
        tool_graph_close(&tg);
        return 1;
    }
    crowd_prefetch(c, prefetch);
    for (int k = 0; k < W; k++) crowd_frame_warm(c);
    double *ms = malloc(sizeof(double) * (size_t)F);
    if (!ms) { crowd_destroy(c); tool_graph_close(&tg); return 1; }
    /* the calling thread's CPU time per frame too: on a loaded machine a
     * frame longer than a time slice waits for other jobs in its wall time
     * (with one thread, the CPU time is the whole frame's work) */
    double *cpu = malloc(sizeof(double) * (size_t)F);
    if (!cpu) { free(ms); crowd_destroy(c); tool_graph_close(&tg); return 1; }
    double load0, load1;
    char cpu_name[256];
    cpu_and_load(cpu_name, sizeof cpu_name, &load0);
    for (int k = 0; k < F; k++) {
        const double c0 = thread_cpu_ms();
        ms[k] = 1e3 * crowd_frame_timed(c);
        cpu[k] = thread_cpu_ms() - c0;
    }
    cpu_and_load(cpu_name, sizeof cpu_name, &load1);
    double check = crowd_check(c);
    const double cpu_med = median(cpu, F);
    free(cpu);
    qsort(ms, (size_t)F, sizeof(double), bench_cmp_double);
    double med = F % 2 ? ms[F / 2] : 0.5 * (ms[F / 2 - 1] + ms[F / 2]);
    int i95 = (int)ceil(0.95 * F) - 1;
    double p95 = ms[i95 < 0 ? 0 : i95 >= F ? F - 1 : i95];
    double us_core = med * 1e3 * T / N, per_frame = 16.7 / med * N;
    if (json) {
        printf("{\"graph\":\"%s\",\"characters\":%d,\"threads\":%d,\"chunk\":%d,\"frames\":%d,\"warmup\":%d,"
               "\"frame_ms_median\":%.3f,\"frame_ms_p95\":%.3f,\"us_per_update_per_core\":%.3f,"
               "\"characters_per_16_7ms\":%.0f,\"instance_bytes\":%zu,\"instance_hot_bytes\":%zu,\"prefetch\":%d,\"workspace_bytes\":%zu,"
               "\"clips_sampled_per_update\":%.3f,\"cpu_ms_median\":%.3f,\"us_per_update_cpu\":%.3f,\"load_start\":%.2f,"
               "\"load_end\":%.2f,\"check\":%.3f}\n",
               tg.name, N, T, chunk, F, W, med, p95, us_core, per_frame, crowd_instance_bytes(c), crowd_instance_hot_bytes(c), prefetch,
               crowd_workspace_bytes(c), crowd_clips_per_update(c), cpu_med, T == 1 ? cpu_med * 1e3 / N : -1.0, load0, load1,
               check);
    } else {
        printf("stance bench: %s, %d characters, %d thread(s), %d frames after %d warm-up\n", tg.name, N, T, F, W);
        printf("  frame median      %9.3f ms   (p95 %.3f ms)\n", med, p95);
        printf("  per update        %9.3f us per core\n", us_core);
        if (T == 1) printf("  per update, CPU   %9.3f us (the thread's CPU time, median frame)\n", cpu_med * 1e3 / N);
        printf("  load              %.2f at the start, %.2f at the end\n", load0, load1);
        printf("  fit in 16.7 ms    %9.0f characters\n", per_frame);
        printf("  instance          %9zu bytes (%zu hot: what every update touches)\n", crowd_instance_bytes(c),
               crowd_instance_hot_bytes(c));
        printf("  workspace         %9zu bytes (one per thread)\n", crowd_workspace_bytes(c));
        printf("  clips per update  %9.3f\n", crowd_clips_per_update(c));
        printf("  check value       %.3f\n", check);
    }
    free(ms);
    crowd_destroy(c);
    tool_graph_close(&tg);
    return 0;
}

/* The CPU's name (/proc/cpuinfo "model name") and the 1-minute load. */
static void cpu_and_load(char *cpu, size_t cap, double *load) {
    snprintf(cpu, cap, "unknown");
    *load = -1.0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10)) continue;
        const char *v = strchr(line, ':');
        if (!v) continue;
        v++;
        while (*v == ' ') v++;
        snprintf(cpu, cap, "%s", v);
        cpu[strcspn(cpu, "\n")] = 0;
        break;
    }
    if (f) fclose(f);
    f = fopen("/proc/loadavg", "r");
    if (f && fscanf(f, "%lf", load) != 1) *load = -1.0;
    if (f) fclose(f);
}

enum { BENCH_SHOW_ALL, BENCH_SHOW_SCREEN, BENCH_SHOW_NONE };
#define LOD_WARM 20    /* full-rate frames before the costs are measured */
#define LOD_MEASURE 10 /* frames measured for each cost */
/* The screen the error in pixels is measured for (docs/lod.md): 1080 pixels
 * high, a vertical field of view of 60 degrees (16:9: 91.5 degrees across,
 * inside the 120 degree cone that decides who is on screen). One metre at
 * distance d spans LOD_SCREEN_PX / (2 d tan(LOD_FOV_Y / 2)) pixels. */
#define LOD_SCREEN_PX 1080.0
#define LOD_FOV_Y_DEG 60.0

/* The crowd with animation LOD (docs/lod.md): the costs of an update and
 * of a skipped frame measured on this crowd, characters on a disc in front
 * of a camera with stance_lod_significance, the plan of stance_lod_allocate
 * for the budget (budget_ms of wall time on T threads: T x budget of work),
 * then F frames timed, the skipped frames' pose error measured against
 * full-rate twins of every (N / 1000)-th character. */
static int bench_lod(const char *path, const char *asset, int N, int T, int F, double budget_ms, int max_rate, int summed,
                     const double costs[2], int show, int ahead, double pop_cm, double guard_cm, int batch, int json) {
    tool_graph tg;
    stance_error err = {0};
    if (tool_graph_open(&tg, path, asset, &err)) { fprintf(stderr, "stance bench: %s\n", err.message); return 1; }
    crowd *c = NULL;
    const int every = N >= 2000 ? N / 1000 : 1;
    double *ms = malloc(sizeof(double) * (size_t)(F > LOD_MEASURE ? F : LOD_MEASURE));
    void *scratch = malloc(stance_lod_scratch_bytes(N));
    unsigned char *shown = calloc((size_t)N, 1);
    float *px_per_m = calloc((size_t)N, sizeof(float));
    int rc = 1;
    char cpu[256];
    double load0, load1;
    cpu_and_load(cpu, sizeof cpu, &load0);
    if (!ms || !scratch || !shown || !px_per_m) goto done;
    if (crowd_create(tg.graph, N, T, 0, &c, &err) || crowd_lod_enable(c, every, &err) || (ahead && crowd_lod_ahead(c, ahead == 2, &err)) ||
        (guard_cm > 0.0 && crowd_lod_guard(c, guard_cm, &err))) {
        fprintf(stderr, "stance bench: %s\n", err.message);
        goto done;
    }
    stance_lod_item *items = crowd_lod_items(c);
    /* the characters on a disc of radius 100 m (golden-angle spiral), the
     * camera at its centre at eye height looking along +z with the default
     * 120 degree view: a third of them on screen (known before the costs
     * are measured: a skipped frame blends the pose of those shown) */
    stance_lod_view view = {{0.0f, 1.7f, 0.0f}, {0.0f, 0.0f, 1.0f}, 0.0f, 0.0f};
    for (int i = 0; i < N; i++) {
        const double r = 100.0 * sqrt((i + 0.5) / N), a = 2.39996322972865332 * i;
        const float pos[3] = {(float)(r * cos(a)), 0.9f, (float)(r * sin(a))};
        if (stance_lod_significance(&view, pos, 1.0f, &items[i].significance, &err)) goto fail;
        /* on screen: the significance was not weighted down (radius / distance > 0.25 / 1, or inside) */
        const double dx = pos[0] - view.eye[0], dy = pos[1] - view.eye[1], dz = pos[2] - view.eye[2];
        const double dist = sqrt(dx * dx + dy * dy + dz * dz);
        const int on_screen = items[i].significance >= (float)(0.999 / dist);
        shown[i] = show == BENCH_SHOW_ALL || (show == BENCH_SHOW_SCREEN && on_screen);
        if (on_screen) px_per_m[i] = (float)(LOD_SCREEN_PX / (2.0 * dist * tan(0.5 * LOD_FOV_Y_DEG * 3.14159265358979 / 180.0)));
    }
    crowd_lod_pixels(c, px_per_m);
    crowd_lod_batch(c, batch);
    for (int k = 0; k < LOD_WARM; k++) crowd_frame_warm(c), crowd_lod_twins(c);
    for (int k = 0; k < LOD_MEASURE; k++) ms[k] = crowd_frame_warm(c), crowd_lod_twins(c);
    double update_us = median(ms, LOD_MEASURE) * 1e6 * T / N;
    crowd_lod_mode(c, CROWD_LOD_SKIP, summed);
    crowd_lod_shown(c, shown); /* from here: the skipped frames' cost with the poses shown as asked */
    for (int k = 0; k < LOD_MEASURE; k++) ms[k] = crowd_frame_warm(c), crowd_lod_twins(c);
    double skip_us = median(ms, LOD_MEASURE) * 1e6 * T / N;
    if (ahead) { /* an update ahead costs more (an advance, the copy): everyone at rate 2 costs (ahead + skip) / 2 */
        for (int i = 0; i < N; i++) items[i].rate = 2, items[i].phase = i & 1;
        crowd_lod_mode(c, CROWD_LOD_PLAN, summed);
        for (int k = 0; k < LOD_MEASURE; k++) ms[k] = crowd_frame_warm(c), crowd_lod_twins(c);
        const double both = median(ms, LOD_MEASURE) * 1e6 * T / N * 2.0 - skip_us;
        if (both > update_us) update_us = both;
        for (int i = 0; i < N; i++) items[i].rate = 1, items[i].phase = 0;
    }
    crowd_lod_pop_cm(c, pop_cm);
    const int given = costs[0] > 0.0;
    if (given) update_us = costs[0], skip_us = costs[1]; /* --costs: the plan the same on any machine (callgrind) */
    for (int i = 0; i < N; i++) items[i].update_us = (float)update_us, items[i].skip_us = (float)skip_us;
    stance_lod_desc desc = {(float)(budget_ms * 1e3 * T), max_rate, 0};
    stance_lod_result plan;
    /* planned twice: the second time is a re-plan's cost (the scratch's pages touched already) */
    double alloc_ms = 0.0;
    for (int k = 0; k < 2; k++) {
        const double a0 = bench_now_ns();
        if (stance_lod_allocate(&desc, items, N, scratch, stance_lod_scratch_bytes(N), &plan, &err)) goto fail;
        alloc_ms = (bench_now_ns() - a0) * 1e-6;
    }
    crowd_lod_mode(c, CROWD_LOD_PLAN, summed);
    for (int k = 0; k < 2 * (max_rate ? max_rate : 8); k++) crowd_frame_warm(c), crowd_lod_twins(c);
    crowd_lod_measure(c, 1);
    const long u0 = crowd_lod_updates(c), f0 = crowd_lod_forced(c);
    double *tcpu = malloc(sizeof(double) * (size_t)F);
    if (!tcpu) goto done;
    for (int k = 0; k < F; k++) ms[k] = 1e3 * crowd_frame_timed(c), tcpu[k] = crowd_frame_cpu_ms(c), crowd_lod_twins(c);
    const double cpu_med = median(tcpu, F);
    free(tcpu);
    const double per_frame_updates = (double)(crowd_lod_updates(c) - u0) / F;
    /* error-aware: the updates run off the plan, and what they add to it at the plan's costs */
    const double per_frame_forced = (double)(crowd_lod_forced(c) - f0) / F;
    const double forced_ms = per_frame_forced * (update_us - skip_us) * 1e-3 / T;
    crowd_lod_error e;
    crowd_lod_errors(c, &e);
    qsort(ms, (size_t)F, sizeof(double), bench_cmp_double);
    const double med = F % 2 ? ms[F / 2] : 0.5 * (ms[F / 2 - 1] + ms[F / 2]);
    int i95 = (int)ceil(0.95 * F) - 1;
    const double p95 = ms[i95 < 0 ? 0 : i95 >= F ? F - 1 : i95];
    cpu_and_load(cpu, sizeof cpu, &load1);
    if (json) {
        printf("{\"graph\":\"%s\",\"characters\":%d,\"threads\":%d,\"frames\":%d,\"cpu\":", tg.name, N, T, F);
        tool_put_json_string(stdout, cpu);
        printf(",\"load_start\":%.2f,\"load_end\":%.2f,\"budget_ms\":%.3f,\"max_rate\":%d,\"step\":\"%s\",\"pose\":\"%s\",\"show\":\"%s\",\"costs\":\"%s\",\"update_us\":%.4f,\"skip_us\":%.4f,"
               "\"full_rate_ms\":%.3f,\"planned_ms\":%.3f,\"fits\":%s,\"allocate_ms\":%.3f,\"share\":{",
               load0, load1, budget_ms, desc.max_rate ? desc.max_rate : 8, summed ? "summed" : "exact", ahead == 2 ? "ahead-stepped" : ahead ? "ahead" : "extrapolate", show == BENCH_SHOW_ALL ? "all" : show == BENCH_SHOW_SCREEN ? "screen" : "none",
               given ? "given" : "measured", update_us, skip_us, plan.full_us * 1e-3 / T,
               plan.frame_us * 1e-3 / T, plan.fits ? "true" : "false", alloc_ms);
        for (int l = 0, first = 1; l < STANCE_LOD_LEVELS; l++) {
            if (!plan.at_rate[l]) continue;
            printf("%s\"%d\":%.4f", first ? "" : ",", 1 << l, (double)plan.at_rate[l] / N);
            first = 0;
        }
        printf("},\"frame_ms_median\":%.3f,\"frame_ms_p95\":%.3f,\"frame_cpu_ms_median\":%.3f,\"updates_per_frame\":%.1f,\"twins\":%d,"
               "\"joint_samples\":%ld,\"error_cm_worst\":%.4f,\"error_cm_mean\":%.4f,\"late_cm_worst\":%.4f,"
               "\"late_cm_mean\":%.4f,\"updated_cm_worst\":%.6f,\"updated_cm_mean\":%.6f,\"pop_cm\":%.3f,\"pop_frames\":%ld,"
               "\"pop_max_cm\":%.3f,\"calm_samples\":%ld,\"calm_cm_worst\":%.4f,\"calm_cm_mean\":%.4f,"
               "\"guard_cm\":%.3f,\"forced_per_frame\":%.1f,\"forced_share\":%.4f,\"forced_ms\":%.3f,\"forced_cm_worst\":%.6f,"
               "\"screen_px\":%.0f,\"fov_y_deg\":%.1f,\"px_samples\":%ld,\"error_px_worst\":%.4f,\"error_px_mean\":%.5f}\n",
               med, p95, cpu_med, per_frame_updates, e.twins, e.joint_samples, 100 * e.worst, 100 * e.mean, 100 * e.late_worst,
               100 * e.late_mean, 100 * e.updated_worst, 100 * e.updated_mean, pop_cm, e.pop_frames, 100 * e.pop_max,
               e.calm_samples, 100 * e.calm_worst, 100 * e.calm_mean, guard_cm, per_frame_forced, per_frame_forced / N, forced_ms,
               100 * e.forced_worst, LOD_SCREEN_PX, LOD_FOV_Y_DEG, e.px_samples, e.px_worst, e.px_mean);
    } else {
        int on = 0;
        for (int i = 0; i < N; i++) on += shown[i];
        printf("stance bench: %s, %d characters, %d thread(s), LOD budget %.3f ms, max rate %d, %s steps, %d frames\n", tg.name, N,
               T, budget_ms, desc.max_rate ? desc.max_rate : 8, summed ? "summed" : "exact", F);
        printf("  shown             skipped frames blend the pose of %d characters (--show %s)\n", on,
               show == BENCH_SHOW_ALL ? "all" : show == BENCH_SHOW_SCREEN ? "screen" : "none");
        printf("  cpu               %s, load %.2f at the start, %.2f at the end\n", cpu, load0, load1);
        printf("  cost %s    %.3f us per update, %.3f us per skipped frame (per core)\n", given ? "given   " : "measured", update_us,
               skip_us);
        printf("  plan              %.3f ms per frame (%s; all at rate 1: %.3f ms), a plan takes %.3f ms\n",
               plan.frame_us * 1e-3 / T, plan.fits ? "fits" : "over the budget even at the max rate", plan.full_us * 1e-3 / T,
               alloc_ms);
        for (int l = 0; l < STANCE_LOD_LEVELS; l++)
            if (plan.at_rate[l])
                printf("  rate %-2d           %6.2f %% of the characters (%d)\n", 1 << l, 100.0 * plan.at_rate[l] / N, plan.at_rate[l]);
        printf("  frame median      %9.3f ms   (p95 %.3f ms); CPU time of the slowest thread %.3f ms (median)\n", med, p95, cpu_med);
        printf("  updates per frame %9.1f\n", per_frame_updates);
        if (guard_cm > 0.0)
            printf("  error-aware       %.1f more updates per frame off the plan (%.2f %% of character-frames; +%.3f ms a frame at "
                   "the plan's costs: %.3f ms in all), predicted over %.2f cm; those frames %.6f cm from the twins\n",
                   per_frame_forced, 100.0 * per_frame_forced / N, forced_ms, plan.frame_us * 1e-3 / T + forced_ms, guard_cm,
                   100 * e.forced_worst);
        printf("  skipped frames    error against full-rate twins of %d characters (%ld joint samples)\n", e.twins, e.joint_samples);
        printf("    shown (%s)  worst %.3f cm, mean %.4f cm\n", ahead ? "interpolated, evaluated ahead" : "extrapolated", 100 * e.worst,
               100 * e.mean);
        printf("    in pixels       worst %.3f px, mean %.4f px (twins on screen, %ld joint samples; %.0f px high, %.0f degree "
               "vertical view; docs/lod.md)\n", e.px_worst, e.px_mean, e.px_samples, LOD_SCREEN_PX, LOD_FOV_Y_DEG);
        if (!ahead) printf("    interpolated, 1 interval late  worst %.3f cm, mean %.4f cm\n", 100 * e.late_worst, 100 * e.late_mean);
        printf("    calm (no pop > %.2f cm of the twin's own in the last two intervals)  worst %.3f cm, mean %.4f cm"
               " (%ld joint samples; %ld twin frames popped, largest %.2f cm)\n",
               pop_cm, 100 * e.calm_worst, 100 * e.calm_mean, e.calm_samples, e.pop_frames, 100 * e.pop_max);
        printf("  updated frames    worst %.6f cm, mean %.6f cm against the twins (%s)\n", 100 * e.updated_worst,
               100 * e.updated_mean, ahead ? "the pose evaluated for the frame one interval before" : "0: the controller stepped exactly");
    }
    rc = 0;
    goto done;
fail:
    fprintf(stderr, "stance bench: %s\n", err.message);
done:
    free(ms);
    free(scratch);
    crowd_destroy(c);
    free(shown);
    free(px_per_m);
    tool_graph_close(&tg);
    return rc;
}

int cmd_bench(int argc, char **argv) {
    int J = 64, N = 1000, F = 100, json = 0, T = 1, frames_given = 0, chunk = 0, prefetch = 1, W = CROWD_WARMUP;
    const char *graph = NULL, *asset = NULL, *clips = NULL, *load = NULL;
    double budget_ms = 0.0;
    int max_rate = 0, summed = 0, show = BENCH_SHOW_SCREEN, show_given = 0, ahead = 0;
    double pop_cm = 1.0, guard_cm = 0.0;
    int lod_batch = 1;
    double costs[2] = {0.0, 0.0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--graph") && i + 1 < argc) graph = argv[++i];
        else if (!strcmp(a, "--clips") && i + 1 < argc) clips = argv[++i];
        else if (!strcmp(a, "--load") && i + 1 < argc) load = argv[++i];
        else if (!strcmp(a, "--asset") && i + 1 < argc) asset = argv[++i];
        else if (!strcmp(a, "--budget-ms") && i + 1 < argc) {
            char *end;
            budget_ms = strtod(argv[++i], &end);
            if (*end || !(budget_ms > 0.0 && budget_ms <= 1000.0)) { fprintf(stderr, "stance bench: --budget-ms must be a number in (0, 1000]\n"); return 2; }
        }
        else if (!strcmp(a, "--costs") && i + 1 < argc) {
            char *end;
            const char *v = argv[++i];
            costs[0] = strtod(v, &end);
            if (*end == ',') costs[1] = strtod(end + 1, &end);
            if (*end || !(costs[0] > 0.0 && costs[0] < 1e6) || !(costs[1] >= 0.0 && costs[1] < 1e6)) {
                fprintf(stderr, "stance bench: --costs must be UPDATE_US,SKIP_US (update > 0, skip >= 0)\n");
                return 2;
            }
        }
        else if (!strcmp(a, "--show") && i + 1 < argc) {
            const char *v = argv[++i];
            show_given = 1;
            if (!strcmp(v, "all")) show = BENCH_SHOW_ALL;
            else if (!strcmp(v, "screen")) show = BENCH_SHOW_SCREEN;
            else if (!strcmp(v, "none")) show = BENCH_SHOW_NONE;
            else { fprintf(stderr, "stance bench: --show must be all, screen or none\n"); return 2; }
        }
        else if (!strcmp(a, "--lod-pose") && i + 1 < argc) {
            const char *v = argv[++i];
            if (!strcmp(v, "extrapolate")) ahead = 0;
            else if (!strcmp(v, "ahead")) ahead = 1;
            else if (!strcmp(v, "ahead-stepped")) ahead = 2;
            else { fprintf(stderr, "stance bench: --lod-pose must be extrapolate, ahead or ahead-stepped\n"); return 2; }
        }
        else if (!strcmp(a, "--lod-batch") && i + 1 < argc) {
            if (!parse_int(argv[++i], 0, 1, &lod_batch)) { fprintf(stderr, "stance bench: --lod-batch must be 0 or 1\n"); return 2; }
        }
        else if (!strcmp(a, "--lod-guard-cm") && i + 1 < argc) {
            char *end;
            guard_cm = strtod(argv[++i], &end);
            if (*end || !(guard_cm > 0.0 && guard_cm <= 1000.0)) { fprintf(stderr, "stance bench: --lod-guard-cm must be a number in (0, 1000]\n"); return 2; }
        }
        else if (!strcmp(a, "--pop-cm") && i + 1 < argc) {
            char *end;
            pop_cm = strtod(argv[++i], &end);
            if (*end || !(pop_cm > 0.0 && pop_cm <= 1000.0)) { fprintf(stderr, "stance bench: --pop-cm must be a number in (0, 1000]\n"); return 2; }
        }
        else if (!strcmp(a, "--lod-step") && i + 1 < argc) {
            const char *v = argv[++i];
            if (!strcmp(v, "exact")) summed = 0;
            else if (!strcmp(v, "summed")) summed = 1;
            else { fprintf(stderr, "stance bench: --lod-step must be exact or summed\n"); return 2; }
        }
        else if (!strcmp(a, "--max-rate") && i + 1 < argc) {
            if (!parse_int(argv[++i], 1, STANCE_LOD_MAX_RATE, &max_rate) || (max_rate & (max_rate - 1))) {
                fprintf(stderr, "stance bench: --max-rate must be a power of two in 1..%d\n", STANCE_LOD_MAX_RATE);
                return 2;
            }
        }
        else if (!strcmp(a, "--threads") && i + 1 < argc) {
            if (!parse_int(argv[++i], 1, 64, &T)) { fprintf(stderr, "stance bench: --threads must be 1..64\n"); return 2; }
        }
        else if (!strcmp(a, "--warmup") && i + 1 < argc) {
            if (!parse_int(argv[++i], 0, 1000000, &W)) { fprintf(stderr, "stance bench: --warmup must be 0..1000000\n"); return 2; }
        }
        else if (!strcmp(a, "--prefetch") && i + 1 < argc) {
            if (!parse_int(argv[++i], 0, 2, &prefetch)) { fprintf(stderr, "stance bench: --prefetch must be 0, 1 or 2\n"); return 2; }
        }
        else if (!strcmp(a, "--chunk") && i + 1 < argc) {
            if (!parse_int(argv[++i], 1, 1000000, &chunk)) { fprintf(stderr, "stance bench: --chunk must be 1..1000000\n"); return 2; }
        }
        else if (!strcmp(a, "--joints") && i + 1 < argc) {
            if (!parse_int(argv[++i], 2, STANCE_MAX_JOINTS, &J)) { fprintf(stderr, "stance bench: --joints must be 2..%d\n", STANCE_MAX_JOINTS); return 2; }
        } else if (!strcmp(a, "--characters") && i + 1 < argc) {
            if (!parse_int(argv[++i], 1, 1000000, &N)) { fprintf(stderr, "stance bench: --characters must be 1..1000000\n"); return 2; }
        } else if (!strcmp(a, "--frames") && i + 1 < argc) {
            if (!parse_int(argv[++i], 1, 1000000, &F)) { fprintf(stderr, "stance bench: --frames must be 1..1000000\n"); return 2; }
            frames_given = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: stance bench [--joints 64] [--characters 1000] [--frames 100] [--json]\n"
                   "       stance bench --clips FILE [--json]   sampling cost of each clip of FILE as stored\n"
                   "       stance bench --load FILE [--json]    median of 100 loads of FILE (from memory, the runtime's\n"
                   "                                            loader), the allocations of one, and the same without its graph\n"
                   "       stance bench --graph FILE [--asset F] [--characters N] [--threads T] [--chunk C] [--frames 600]\n"
                   "                    [--warmup 60] [--prefetch 1|0|2] [--json]\n"
                   "Without --graph: the reference workload of bench/WORKLOAD.md (sample x2, blend, local-to-model):\n"
                   "%d warm-up frames, then %d repetitions of FRAMES frames; prints medians.\n"
                   "With --graph: the crowd workload: N instances of the graph (speed patterns, staggered jumps,\n"
                   "breathe 0.5, lean 0.3, wave 1.0 on every third), %d warm-up frames (--warmup) then FRAMES frames at 60 Hz\n"
                   "split over T threads (a workspace each) in equal slices, or with --chunk C in chunks of C\n"
                   "characters each thread takes from a shared counter; prints the median and p95 frame time.\n"
                   "--prefetch: whether the batch update asks for the next instance's hot part ahead: 1 (default) when the\n"
                   "batch's hot parts come to 2 MiB or more, 0 never, 2 always (docs/performance.md).\n"
                   "       stance bench --graph FILE --characters N --budget-ms B [--threads T] [--max-rate 8]\n"
                   "                    [--lod-step exact|summed] [--lod-pose extrapolate|ahead|ahead-stepped] [--pop-cm 1] [--costs UPDATE_US,SKIP_US]\n"
                   "                    [--show all|screen|none] [--lod-guard-cm E] [--lod-batch 1|0] [--frames 600] [--json]\n"
                   "With --budget-ms: animation LOD (docs/lod.md): the costs of an update and of a skipped frame measured,\n"
                   "rates planned by stance_lod_allocate for B ms of wall time on T threads, the frames timed, and the\n"
                   "skipped frames' pose error against full-rate twins of 1 in N/1000 characters. --lod-step exact (default):\n"
                   "a skipped frame advances the controller (stance_instance_advance); summed: it does nothing and the\n"
                   "next update steps by the frames' summed dt. --costs: plan with these costs (us per core) instead of the\n"
                   "measured ones (the same plan on any machine, e.g. under callgrind). --show: whose pose a skipped frame\n"
                   "blends on the CPU: those on screen (default: nothing draws the others), all, or none (left to the skinning\n"
                   "shader). --lod-pose:\n"
                   "a skipped frame's pose extrapolated from the last two updates (default), or interpolated between poses\n"
                   "evaluated one interval ahead (an update evaluates a copy at its next update's time; ahead-stepped: the copy\n"
                   "steps the interval frame by frame). --pop-cm: the calm\n"
                   "error leaves out skipped frames within two intervals after a twin's own pop (a joint's second difference\n"
                   "over three frames above this many cm). --lod-guard-cm (with --lod-pose ahead): error-aware rates: a\n"
                   "character whose next interval's interpolation error is predicted over E cm (its last three evaluated\n"
                   "poses' second difference / 8), or whose skipped frame starts a transition, updates every frame of that\n"
                   "interval, on top of the plan (reported: those updates and what they add to the frame). --lod-batch 1\n"
                   "(default): exact extrapolated frames run 64 characters at a time (inputs, then stance_instances_update and\n"
                   "stance_instances_advance), 0: one character at a time (the same result bit for bit). The error is also\n"
                   "given in pixels for the twins on screen (1080 px high, 60 degree vertical view).\n",
                   WARMUP, REPS, CROWD_WARMUP);
            return 0;
        } else { fprintf(stderr, "stance bench: unknown option '%s' (see --help)\n", a); return 2; }
    }
    if (clips) return bench_clips(clips, json);
    if (load) return bench_load(load, json);
    if ((budget_ms > 0.0 || max_rate) && (!graph || chunk)) { fprintf(stderr, "stance bench: --budget-ms and --max-rate need --graph (and no --chunk)\n"); return 2; }
    if ((max_rate || summed || ahead || pop_cm != 1.0 || costs[0] > 0.0 || show_given) && budget_ms <= 0.0) { fprintf(stderr, "stance bench: --max-rate, --lod-step, --lod-pose, --pop-cm, --costs and --show need --budget-ms\n"); return 2; }
    if (ahead && summed) { fprintf(stderr, "stance bench: --lod-pose ahead needs --lod-step exact\n"); return 2; }
    if (guard_cm > 0.0 && (budget_ms <= 0.0 || ahead != 1)) { fprintf(stderr, "stance bench: --lod-guard-cm needs --budget-ms and --lod-pose ahead\n"); return 2; }
    if (graph && budget_ms > 0.0) return bench_lod(graph, asset, N, T, frames_given ? F : 600, budget_ms, max_rate, summed, costs, show, ahead, pop_cm, guard_cm, lod_batch, json);
    if (graph) return bench_crowd(graph, asset, N, T, chunk, frames_given ? F : 600, W, prefetch, json);
    if (asset || T != 1 || chunk || prefetch != 1 || W != CROWD_WARMUP) { fprintf(stderr, "stance bench: --asset, --threads, --chunk, --warmup and --prefetch need --graph\n"); return 2; }
    workload w;
    stance_error err = {0};
    if (workload_create(&w, J, N, &err)) { fprintf(stderr, "stance bench: %s\n", err.message); return 1; }
    long f = 0;
    for (int k = 0; k < WARMUP; k++) workload_frame(&w, f++);
    double full[REPS];
    for (int r = 0; r < REPS; r++) {
        double t0 = bench_now_ns();
        for (int k = 0; k < F; k++) workload_frame(&w, f++);
        full[r] = (bench_now_ns() - t0) / ((double)F * N);
    }
    double check = workload_check(&w);
    /* The same frames again in the specification's separate calls (sample
     * x2, blend, local-to-model): the same poses, so the same check. */
    double sep[REPS];
    f = WARMUP;
    for (int r = 0; r < REPS; r++) {
        double t0 = bench_now_ns();
        for (int k = 0; k < F; k++) workload_frame_separate(&w, f++);
        sep[r] = (bench_now_ns() - t0) / ((double)F * N);
    }
    const double check_sep = workload_check(&w);
    /* The passes, each timed on its own over the same frames (after the check). */
    double ps[REPS], pb[REPS], pl[REPS];
    long g = 0;
    for (int r = 0; r < REPS; r++) {
        double ts = 0, tb = 0, tl = 0;
        for (int k = 0; k < F; k++) {
            double t0 = bench_now_ns();
            workload_pass_sample(&w, g++);
            double t1 = bench_now_ns();
            workload_pass_blend(&w);
            double t2 = bench_now_ns();
            workload_pass_l2m(&w);
            double t3 = bench_now_ns();
            ts += t1 - t0, tb += t2 - t1, tl += t3 - t2;
        }
        ps[r] = ts / ((double)F * N), pb[r] = tb / ((double)F * N), pl[r] = tl / ((double)F * N);
    }
    double m = median(full, REPS), msep = median(sep, REPS), ms = median(ps, REPS), mb = median(pb, REPS), ml = median(pl, REPS);
    size_t clip_bytes = stance_clip_data_bytes(w.clips[0]);
    if (json) {
        printf("{\"joints\":%d,\"characters\":%d,\"frames\":%d,\"repetitions\":%d,"
               "\"update_ns\":%.1f,\"ns_per_joint\":%.2f,\"update_separate_ns\":%.1f,\"sample_ns\":%.1f,\"blend_ns\":%.1f,"
               "\"local_to_model_ns\":%.1f,\"clip_bytes\":%zu,\"check\":%.2f,\"check_separate\":%.2f}\n",
               J, N, F, REPS, m, m / J, msep, ms, mb, ml, clip_bytes, check, check_sep);
    } else {
        printf("stance bench: %d joints, %d characters, %d frames x %d repetitions (median)\n", J, N, F, REPS);
        printf("  full update      %9.1f ns/character  %6.2f ns/joint  (sample and blend in one call)\n", m, m / J);
        printf("  separate calls   %9.1f ns/character  %6.2f ns/joint  (sample x2, blend, local-to-model)\n", msep, msep / J);
        printf(" the separate passes, each over all characters:\n");
        printf("  sample x2 pass   %9.1f ns/character\n", ms);
        printf("  blend pass       %9.1f ns/character\n", mb);
        printf("  local-to-model   %9.1f ns/character\n", ml);
        printf("  clip size        %9zu bytes (%.1f KB)\n", clip_bytes, clip_bytes / 1000.0);
        printf("  check value      %.2f (separate calls %.2f)\n", check, check_sep);
    }
    workload_destroy(&w);
    if (check != check_sep) {
        fprintf(stderr, "stance bench: the one-call update and the separate calls give other poses (check %.17g, %.17g)\n",
                check, check_sep);
        return 1;
    }
    return 0;
}
