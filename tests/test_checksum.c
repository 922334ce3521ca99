/* tests/test_checksum.c - the same pose everywhere (docs/determinism.md): one
 * FNV-1a 64 checksum over the bits of every pose float (local and model, all
 * ten channels of every joint), every event (type, layer, machine, state,
 * other, time bits, name) and every root-motion value and clip count, after
 * every update of
 *   - the lesson's 810-frame script (LESSON.md; stance_scenario_input) once
 *     per switch mode (all six), and
 *   - a crowd of 10 instances x 100 updates (1,000 updates: speeds, jumps,
 *     layer fades, play requests, switch modes, dt of 1/60, 1/30 and 0, all
 *     from integer schedules, no libm),
 * on the built-in character (stance_builtin_lesson_graph: no file needed) and
 * on graphs/robot.json (RobotExpressive from ../shared/data, read with
 * jansson: "robot") and on the same graph compiled by the host's CLI
 * (STANCE_COMPILED_GRAPHS=DIR with DIR/robot.stance from `stance compile
 * graphs/robot.json -o DIR/robot.stance --error-cm 0`, exact keys, as
 * scripts/cross_test.sh compiles it: "robot_compiled", for builds without
 * jansson; tests/test_checksum_compiled.sh), through each copy
 * of the frame (st_workspace_set_frame: fast, SSE2, reference), against the
 * values committed in tests/data/checksum.txt. Every build on every platform
 * (gcc, clang, ASan, wine, qemu, node) must give the committed values; a
 * checksum that moved is printed by name with both values.
 * STANCE_CHECKSUM_WRITE=FILE writes this build's values (to update the file
 * after a change that is meant to move poses: say so in the commit).
 * Plain C, no shell: it runs as it is under wine, qemu and node. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "graph_speed.h"
#include "core/frame/workspace.h"
#include "stance/stance.h"
#include "stance_lesson/stance_lesson.h"
#ifndef STANCE_NO_GRAPHFILE
#include "stance/graphfile.h"
#endif

#ifndef STANCE_SOURCE_DIR
#define STANCE_SOURCE_DIR "."
#endif

enum { COPIES = 3, CROWD = 10, CROWD_UPDATES = 100, MAX_SUMS = 64 };
static const st_frame_copy copy_of[COPIES] = {ST_FRAME_FAST, ST_FRAME_SSE2, ST_FRAME_REFERENCE};
static const char *const copy_label[COPIES] = {"fast", "sse2", "reference"};

typedef struct sum { char name[64]; uint64_t value[COPIES]; } sum;
static sum sums[MAX_SUMS];
static int sum_count;

/* ---- FNV-1a 64 ---------------------------------------------------------------- */
#define FNV_START 0xcbf29ce484222325ull
static void fnv_bytes(uint64_t *h, const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++) *h = (*h ^ p[i]) * 0x100000001b3ull;
}
static void fnv_u32(uint64_t *h, uint32_t v) { /* little-endian, whatever the host */
    const unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                                (unsigned char)(v >> 24)};
    fnv_bytes(h, b, 4);
}
static void fnv_float(uint64_t *h, float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    fnv_u32(h, u);
}
static void fnv_int(uint64_t *h, int v) { fnv_u32(h, (uint32_t)v); }

/* everything an update produced */
static void fnv_instance(uint64_t *h, const stance_instance *in) {
    const stance_pose *p[2] = {stance_instance_local_pose(in), stance_instance_model_pose(in)};
    for (int k = 0; k < 2; k++) {
        const float *ch[10] = {p[k]->tx, p[k]->ty, p[k]->tz, p[k]->qx, p[k]->qy,
                               p[k]->qz, p[k]->qw, p[k]->sx, p[k]->sy, p[k]->sz};
        for (int c = 0; c < 10; c++)
            for (int j = 0; j < p[k]->joint_count; j++) fnv_float(h, ch[c][j]);
    }
    float rm[3];
    stance_instance_root_motion(in, rm);
    for (int i = 0; i < 3; i++) fnv_float(h, rm[i]);
    int n, dropped;
    const stance_event *ev = stance_instance_events(in, &n, &dropped);
    fnv_int(h, n), fnv_int(h, dropped);
    for (int i = 0; i < n; i++) {
        fnv_int(h, (int)ev[i].type), fnv_int(h, ev[i].layer), fnv_int(h, ev[i].machine);
        fnv_int(h, ev[i].state), fnv_int(h, ev[i].other), fnv_float(h, ev[i].time);
        const char *name = ev[i].name ? ev[i].name : "";
        fnv_bytes(h, (const unsigned char *)name, strlen(name) + 1);
    }
    fnv_int(h, stance_instance_clips_sampled(in));
}

static sum *new_sum(const char *graph, const char *what) {
    CHECK(sum_count < MAX_SUMS);
    if (sum_count >= MAX_SUMS) return NULL;
    sum *s = &sums[sum_count++];
    snprintf(s->name, sizeof s->name, "%s.%s", graph, what);
    for (int k = 0; k < COPIES; k++) s->value[k] = FNV_START;
    return s;
}

/* ---- the workloads ------------------------------------------------------------- */

/* every machine keeps history, so every switch mode runs as asked (as the scenario runner's) */
static const stance_instance_desc all_history = {.history = STANCE_HISTORY_ALL};

/* The lesson's script with every transition switched by `mode`, one copy. */
static uint64_t script(const stance_graph *g, stance_workspace *ws, stance_switch_mode mode) {
    const int speed = stance_graph_find_param(g, "speed"), jump = stance_graph_find_param(g, "jump");
    uint64_t h = FNV_START;
    stance_instance *in = NULL;
    CHECK(speed >= 0 && jump >= 0);
    CHECK_OK(stance_instance_create_ex(g, &all_history, NULL, &in, NULL));
    if (!in || speed < 0 || jump < 0) goto done;
    CHECK_OK(stance_instance_override_switch(in, (int)mode, 0.25f, STANCE_EASE_SMOOTHSTEP, NULL));
    for (int f = 0; f < STANCE_SCENARIO_FRAMES; f++) {
        float v;
        int pressed;
        stance_scenario_input((float)f / 60.0f, &v, &pressed);
        stance_instance_set_float(in, speed, v, NULL);
        if (pressed) stance_instance_set_trigger(in, jump, NULL);
        CHECK_OK(stance_instance_update(in, 1.0f / 60.0f, ws, NULL));
        fnv_instance(&h, in);
    }
done:
    stance_instance_destroy(in);
    return h;
}

/* A triangle wave in [0, 1] of integer period, at integer step n. */
static float tri(long n, long period) {
    const long m = n % period, half = period / 2;
    return (float)(m < half ? m : period - m) / (float)half;
}

/* CROWD instances x CROWD_UPDATES updates (stance_instances_update), one copy. */
static uint64_t crowd(const stance_graph *g, stance_workspace *ws) {
    const int speed = stance_graph_find_param(g, "speed"), jump = stance_graph_find_param(g, "jump");
    const int layers = stance_graph_layer_count(g), states = stance_graph_state_count(g);
    const float run_speed = graph_run_speed(g);
    stance_instance *all[CROWD] = {NULL};
    uint64_t h = FNV_START;
    int made = 1;
    for (int i = 0; i < CROWD; i++) {
        CHECK_OK(stance_instance_create_ex(g, &all_history, NULL, &all[i], NULL));
        if (!all[i]) made = 0;
    }
    for (int f = 0; f < CROWD_UPDATES && made; f++) {
        for (int i = 0; i < CROWD; i++) {
            stance_instance *in = all[i];
            if (f == 0) crowd_first_frame(in, i, layers);
            if (speed >= 0) {
                const float s = 1.1f * tri(f + 17L * i, 40 + 6 * (i % 5)) - 0.1f;
                stance_instance_set_float(in, speed, s > 0.0f ? s * run_speed : 0.0f, NULL);
            }
            if (jump >= 0 && (f + 7 * i) % 45 == 0) stance_instance_set_trigger(in, jump, NULL);
            if (layers > 1 && (f + 11 * i) % 30 == 0) {
                const int l = 1 + (f / 30 + i) % (layers - 1);
                stance_instance_set_layer_weight(in, l, (float)((f / 30 + i) % 3) / 2.0f, 0.3f, NULL);
            }
            if (layers > 1 && (f + 5 * i) % 53 == 0) {
                const int l = 1 + i % (layers - 1);
                stance_instance_set_layer_enabled(in, l, !stance_instance_layer_enabled(in, l), NULL);
            }
            if (states > 0 && (f + 13 * i) % 37 == 0)
                stance_instance_play(in, (f / 37 + i) % states, (stance_switch_mode)(i % 6), STANCE_EASE_SMOOTHSTEP,
                                     0.2f, NULL);
        }
        const float dt = f % 31 == 30 ? 0.0f : f % 17 == 16 ? 1.0f / 30.0f : 1.0f / 60.0f;
        CHECK_OK(stance_instances_update(all, CROWD, dt, ws, NULL));
        for (int i = 0; i < CROWD; i++) fnv_instance(&h, all[i]);
    }
    CHECK(made);
    for (int i = 0; i < CROWD; i++) stance_instance_destroy(all[i]);
    return h;
}

/* Every workload on graph g through each copy of the frame. */
static void checksums(const stance_graph *g, const char *label) {
    sum *s[STANCE_SCENARIO_MODES + 1];
    for (int m = 0; m < STANCE_SCENARIO_MODES; m++) {
        char what[48];
        snprintf(what, sizeof what, "script.%s", stance_switch_mode_name(stance_scenario_modes[m]));
        s[m] = new_sum(label, what);
    }
    s[STANCE_SCENARIO_MODES] = new_sum(label, "crowd");
    for (int k = 0; k < COPIES; k++) {
        stance_workspace *ws = NULL;
        CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
        if (!ws) continue;
        CHECK(st_workspace_set_frame(ws, copy_of[k]) != NULL);
        for (int m = 0; m < STANCE_SCENARIO_MODES; m++)
            if (s[m]) s[m]->value[k] = script(g, ws, stance_scenario_modes[m]);
        if (s[STANCE_SCENARIO_MODES]) s[STANCE_SCENARIO_MODES]->value[k] = crowd(g, ws);
        stance_workspace_destroy(ws);
    }
}

static void test_builtin(void) {
    stance_builtin b;
    stance_graph *g = NULL;
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    CHECK_OK(stance_builtin_lesson_graph(&b, NULL, &g, NULL));
    if (g) checksums(g, "builtin");
    stance_graph_destroy(g);
    stance_builtin_destroy(&b);
}

static int in_ci(void) {
    const char *ci = getenv("CI");
    return ci && !strcmp(ci, "true");
}

/* robot_compiled: the host CLI's compiled file (no jansson needed here) */
static void test_robot_compiled(void) {
    const char *dir = getenv("STANCE_COMPILED_GRAPHS");
    if (!dir || !dir[0]) {
        printf("  robot_compiled: STANCE_COMPILED_GRAPHS is not set (tests/test_checksum_compiled.sh sets it): skipped\n");
        return;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/robot.stance", dir);
    stance_asset a;
    stance_error err = {0};
    stance_status st = stance_asset_load_file(path, NULL, &a, &err);
    if (st) fprintf(stderr, "  %s\n", err.message);
    CHECK_OK(st);
    if (st) return;
    CHECK(a.graph != NULL);
    if (a.graph) checksums(a.graph, "robot_compiled");
    stance_asset_destroy(&a);
}

/* robot: graphs/robot.json read and compiled here (jansson) */
static void test_robot(void) {
    char path[1024];
    const char *data = getenv("STANCE_DATA");
    snprintf(path, sizeof path, "%s/robot_expressive/RobotExpressive.glb",
             data && data[0] ? data : STANCE_SOURCE_DIR "/../shared/data");
    FILE *probe = fopen(path, "rb");
    if (probe) fclose(probe);
    if (!probe) {
        printf("  robot: %s %s\n", path, in_ci() ? "MISSING (CI=true: failing)" : "is missing: the robot's checksums are skipped");
        CHECK(!in_ci());
        return;
    }
#ifdef STANCE_NO_GRAPHFILE
    printf("  robot: this build reads no graph files (STANCE_COMPILED_GRAPHS gives robot_compiled): skipped\n");
#else
    const char *src = getenv("STANCE_SOURCE");
    snprintf(path, sizeof path, "%s/graphs/robot.json", src && src[0] ? src : STANCE_SOURCE_DIR);
    stance_graphfile *gf = NULL;
    stance_error err = {0};
    stance_status st = stance_graphfile_load(path, NULL, &gf, &err);
    if (st == STANCE_ERR_UNSUPPORTED) { /* built without jansson */
        printf("  robot: %s (STANCE_COMPILED_GRAPHS gives robot_compiled): skipped\n", err.message);
        return;
    }
    if (st) fprintf(stderr, "  %s\n", err.message);
    CHECK_OK(st);
    if (gf) checksums(stance_graphfile_graph(gf), "robot");
    stance_graphfile_destroy(gf);
#endif
}

/* ---- the committed values --------------------------------------------------------- */

static uint64_t total(int k) {
    uint64_t h = FNV_START;
    for (int i = 0; i < sum_count; i++) {
        fnv_u32(&h, (uint32_t)sums[i].value[k]), fnv_u32(&h, (uint32_t)(sums[i].value[k] >> 32));
    }
    return h;
}

static void test_against_committed(void) {
    const char *out = getenv("STANCE_CHECKSUM_WRITE");
    if (out && out[0]) {
        FILE *f = fopen(out, "w");
        CHECK(f != NULL);
        if (!f) return;
        fprintf(f, "# tests/test_checksum.c: FNV-1a 64 of every update's poses, events and root motion\n"
                   "# (docs/determinism.md). Every build on every platform must give these.\n");
        for (int i = 0; i < sum_count; i++)
            fprintf(f, "%s 0x%016llx\n", sums[i].name, (unsigned long long)sums[i].value[0]);
        fclose(f);
        printf("  wrote %d checksums to %s\n", sum_count, out);
    }
    const char *file = getenv("STANCE_CHECKSUM_FILE");
    char path[1024];
    snprintf(path, sizeof path, "%s", file && file[0] ? file : STANCE_SOURCE_DIR "/tests/data/checksum.txt");
    FILE *f = fopen(path, "r");
    if (!f) fprintf(stderr, "  %s: cannot open (STANCE_CHECKSUM_FILE names another)\n", path);
    CHECK(f != NULL);
    if (!f) return;
    char name[MAX_SUMS][64];
    unsigned long long want[MAX_SUMS];
    int n = 0;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        if (n < MAX_SUMS && sscanf(line, "%63s %llx", name[n], &want[n]) == 2) n++;
        else CHECK(!"tests/data/checksum.txt: a line that is not 'name 0xHEX'");
    }
    fclose(f);
    int moved = 0, matched = 0, skipped = 0;
    for (int i = 0; i < sum_count; i++) {
        int w = -1;
        for (int j = 0; j < n; j++)
            if (!strcmp(name[j], sums[i].name)) w = j;
        if (w < 0) {
            fprintf(stderr, "  %-32s not in %s\n", sums[i].name, path);
            moved++;
            continue;
        }
        for (int k = 0; k < COPIES; k++) {
            if (sums[i].value[k] == (uint64_t)want[w]) continue;
            fprintf(stderr, "  MOVED %-32s %-9s committed 0x%016llx, this build 0x%016llx\n", sums[i].name,
                    copy_label[k], want[w], (unsigned long long)sums[i].value[k]);
            moved++;
        }
        matched++;
    }
    for (int j = 0; j < n; j++) {
        int found = 0;
        for (int i = 0; i < sum_count; i++) found |= !strcmp(name[j], sums[i].name);
        /* a graph this run could not load (no data, no jansson, no compiled file) is skipped;
         * a graph it ran must give every committed line */
        size_t glen = strcspn(name[j], ".");
        int graph_ran = 0;
        for (int i = 0; i < sum_count; i++) graph_ran |= !strncmp(name[j], sums[i].name, glen) && sums[i].name[glen] == '.';
        if (!found && graph_ran) {
            fprintf(stderr, "  %-32s committed but not computed\n", name[j]);
            moved++;
        } else if (!found) skipped++;
    }
    printf("  %d checksums x %d copies of the frame against %s: %d moved, %d committed lines of graphs not run "
           "here skipped; total of these 0x%016llx\n", matched, COPIES, path, moved, skipped, (unsigned long long)total(0));
    CHECK(moved == 0);
    CHECK(matched >= STANCE_SCENARIO_MODES + 1); /* the built-in character's at least */
}

int main(void) {
    RUN(test_builtin);
    RUN(test_robot);
    RUN(test_robot_compiled);
    RUN(test_against_committed);
    return check_summary();
}
