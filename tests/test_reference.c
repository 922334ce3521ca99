/* tests/test_reference.c - every fast path against its reference
 * (docs/fast-paths.md): the same instances updated through the three copies
 * of the frame's passes (st_workspace_set_frame) - the fast paths as the
 * CPU runs them (VEX on a CPU with AVX), the fast paths with the fused
 * passes and local-to-model forced to SSE2, and the reference with every
 * fast path off - must give bit-identical local and model poses, events
 * (type, layer, machine, state, other, time, name), root motion and clips
 * sampled after every update. Workloads: the lesson's 810-frame script
 * (stance_scenario_input, the lesson library's) once per switch mode, and a
 * crowd of 16 instances x 900 updates with varied speeds, triggers, layer
 * fades, play requests, switch modes and steps; on graphs/builtin.json and
 * graphs/robot.json (RobotExpressive, skipped when ../shared/data lacks it). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/clip/fused.h"
#include "core/frame/workspace.h"
#include "real_files.h"
#include "graph_files.h"
#include "graph_speed.h"
#include "stance/graphfile.h"
#include "stance/stance.h"
#include "stance_lesson/lesson.h"

enum { COPIES = 3, CROWD = 16, CROWD_UPDATES = 900 };
static const st_frame_copy copy_of[COPIES] = {ST_FRAME_FAST, ST_FRAME_SSE2, ST_FRAME_REFERENCE};
static const char *copy_name[COPIES];
static long updates_compared, events_compared;

/* The first difference between instance a (copy 0) and b (copy k) after an
 * update, written into why; 0 when bit for bit the same. */
static int differs(const stance_instance *a, const stance_instance *b, char *why, size_t cap) {
    const stance_pose *pose_a[2] = {stance_instance_local_pose(a), stance_instance_model_pose(a)};
    const stance_pose *pose_b[2] = {stance_instance_local_pose(b), stance_instance_model_pose(b)};
    for (int p = 0; p < 2; p++) {
        const int J = pose_a[p]->joint_count;
        const float *ch_a[10] = {pose_a[p]->tx, pose_a[p]->ty, pose_a[p]->tz, pose_a[p]->qx, pose_a[p]->qy,
                                 pose_a[p]->qz, pose_a[p]->qw, pose_a[p]->sx, pose_a[p]->sy, pose_a[p]->sz};
        const float *ch_b[10] = {pose_b[p]->tx, pose_b[p]->ty, pose_b[p]->tz, pose_b[p]->qx, pose_b[p]->qy,
                                 pose_b[p]->qz, pose_b[p]->qw, pose_b[p]->sx, pose_b[p]->sy, pose_b[p]->sz};
        for (int c = 0; c < 10; c++)
            for (int j = 0; j < J; j++)
                if (memcmp(&ch_a[c][j], &ch_b[c][j], sizeof(float))) {
                    snprintf(why, cap, "%s pose, joint %d channel %d: %.9g vs %.9g", p ? "model" : "local", j, c,
                             (double)ch_a[c][j], (double)ch_b[c][j]);
                    return 1;
                }
    }
    float ra[3], rb[3];
    stance_instance_root_motion(a, ra), stance_instance_root_motion(b, rb);
    if (memcmp(ra, rb, sizeof ra)) {
        snprintf(why, cap, "root motion (%.9g %.9g %.9g) vs (%.9g %.9g %.9g)", (double)ra[0], (double)ra[1],
                 (double)ra[2], (double)rb[0], (double)rb[1], (double)rb[2]);
        return 1;
    }
    int na, nb, da, db;
    const stance_event *ea = stance_instance_events(a, &na, &da), *eb = stance_instance_events(b, &nb, &db);
    if (na != nb || da != db) {
        snprintf(why, cap, "events: %d (%d dropped) vs %d (%d dropped)", na, da, nb, db);
        return 1;
    }
    for (int i = 0; i < na; i++) {
        const stance_event *x = &ea[i], *y = &eb[i];
        if (x->type != y->type || x->layer != y->layer || x->machine != y->machine || x->state != y->state ||
            x->other != y->other || memcmp(&x->time, &y->time, sizeof x->time) ||
            strcmp(x->name ? x->name : "", y->name ? y->name : "")) {
            snprintf(why, cap, "event %d: type %d state %d at %.9g '%s' vs type %d state %d at %.9g '%s'", i,
                     (int)x->type, x->state, (double)x->time, x->name ? x->name : "", (int)y->type, y->state,
                     (double)y->time, y->name ? y->name : "");
            return 1;
        }
    }
    events_compared += na;
    if (stance_instance_clips_sampled(a) != stance_instance_clips_sampled(b)) {
        snprintf(why, cap, "clips sampled: %d vs %d", stance_instance_clips_sampled(a), stance_instance_clips_sampled(b));
        return 1;
    }
    return 0;
}

/* Copy 0 against copies 1 and 2 for n instances; reports the first
 * difference of the run (*failed keeps it to one line a run). */
static void compare(stance_instance *const *inst[COPIES], int n, const char *what, int update, int *failed) {
    for (int i = 0; i < n; i++) {
        for (int k = 1; k < COPIES; k++) {
            char why[256];
            if (!differs(inst[0][i], inst[k][i], why, sizeof why)) continue;
            if (!*failed)
                fprintf(stderr, "  %s: update %d, instance %d: %s against %s: %s\n", what, update, i, copy_name[0],
                        copy_name[k], why);
            *failed = 1;
        }
        updates_compared++;
    }
}

/* Workspaces for the three copies, from g. */
static int make_workspaces(const stance_graph *g, stance_workspace *ws[COPIES]) {
    for (int k = 0; k < COPIES; k++) {
        ws[k] = NULL;
        CHECK_OK(stance_workspace_create(g, NULL, &ws[k], NULL));
        if (!ws[k]) return 0;
        CHECK(st_workspace_set_frame(ws[k], copy_of[k]) != NULL);
    }
    return 1;
}

/* The lesson's script (LESSON.md: 13.5 s at 60 Hz, its inputs from the
 * lesson library) with every transition switched by each mode in turn. */
static void lesson_script(const stance_graph *g, const char *label) {
    const int speed = stance_graph_find_param(g, "speed"), jump = stance_graph_find_param(g, "jump");
    CHECK(speed >= 0 && jump >= 0);
    if (speed < 0 || jump < 0) return;
    stance_workspace *ws[COPIES];
    if (!make_workspaces(g, ws)) goto done;
    for (int mi = 0; mi < STANCE_SCENARIO_MODES; mi++) {
        const stance_switch_mode mode = stance_scenario_modes[mi];
        stance_instance *one[COPIES] = {NULL};
        stance_instance *const *inst[COPIES] = {&one[0], &one[1], &one[2]};
        for (int k = 0; k < COPIES; k++) {
            CHECK_OK(stance_instance_create(g, NULL, &one[k], NULL));
            if (one[k]) CHECK_OK(stance_instance_override_switch(one[k], (int)mode, 0.25f, STANCE_EASE_SMOOTHSTEP, NULL));
        }
        char what[96];
        snprintf(what, sizeof what, "%s, the lesson's script, %s", label, stance_switch_mode_name(mode));
        int failed = 0;
        if (one[0] && one[1] && one[2])
            for (int f = 0; f < STANCE_SCENARIO_FRAMES; f++) {
                float v;
                int pressed;
                stance_scenario_input((float)f / 60.0f, &v, &pressed);
                for (int k = 0; k < COPIES; k++) {
                    stance_instance_set_float(one[k], speed, v, NULL);
                    if (pressed) stance_instance_set_trigger(one[k], jump, NULL);
                    CHECK_OK(stance_instance_update(one[k], 1.0f / 60.0f, ws[k], NULL));
                }
                compare(inst, 1, what, f, &failed);
            }
        CHECK(!failed);
        printf("  %s: %d updates, %s\n", what, STANCE_SCENARIO_FRAMES, failed ? "DIFFER" : "bit for bit");
        for (int k = 0; k < COPIES; k++) stance_instance_destroy(one[k]);
    }
done:
    for (int k = 0; k < COPIES; k++) stance_workspace_destroy(ws[k]);
}

/* A crowd of CROWD instances x CROWD_UPDATES updates (stance_instances_update,
 * as the benchmark's crowd): speeds along waves of their own, jump triggers,
 * each instance its own switch mode, layers faded in and out and turned
 * off, play requests, and steps of 1/60 s with some of 1/30 s and of 0. */
static void crowd(const stance_graph *g, const char *label) {
    const int speed = stance_graph_find_param(g, "speed"), jump = stance_graph_find_param(g, "jump");
    const int layers = stance_graph_layer_count(g), states = stance_graph_state_count(g);
    const float run_speed = graph_run_speed(g);
    stance_workspace *ws[COPIES];
    stance_instance *all[COPIES][CROWD];
    memset(all, 0, sizeof all);
    stance_instance *const *inst[COPIES] = {all[0], all[1], all[2]};
    int made = make_workspaces(g, ws);
    for (int k = 0; k < COPIES && made; k++)
        for (int i = 0; i < CROWD; i++) {
            CHECK_OK(stance_instance_create(g, NULL, &all[k][i], NULL));
            if (!all[k][i]) made = 0;
        }
    int failed = 0;
    for (int f = 0; f < CROWD_UPDATES && made; f++) {
        for (int k = 0; k < COPIES; k++)
            for (int i = 0; i < CROWD; i++) {
                stance_instance *in = all[k][i];
                if (f == 0) crowd_first_frame(in, i, layers);
                if (speed >= 0) {
                    double ph = 0.6180339887 * i * 6.2831853 + (double)f / 60.0 * 6.2831853 / (3.0 + (i % 5));
                    double s = (0.5 + 0.5 * sin(ph)) * 1.1 - 0.1;
                    stance_instance_set_float(in, speed, s > 0.0 ? (float)s * run_speed : 0.0f, NULL);
                }
                if (jump >= 0 && (f + 37 * i) % 150 == 0) stance_instance_set_trigger(in, jump, NULL);
                if (layers > 1 && (f + 11 * i) % 90 == 0) { /* a layer fades to a new weight */
                    const int l = 1 + (f / 90 + i) % (layers - 1);
                    stance_instance_set_layer_weight(in, l, (float)((f / 90 + i) % 3) / 2.0f, 0.3f, NULL);
                }
                if (layers > 1 && (f + 5 * i) % 211 == 0) { /* a layer off for a while, then on */
                    const int l = 1 + i % (layers - 1);
                    stance_instance_set_layer_enabled(in, l, !stance_instance_layer_enabled(in, l), NULL);
                }
                if (states > 0 && (f + 13 * i) % 173 == 0) /* a play request (of the machine owning the state) */
                    stance_instance_play(in, (f / 173 + i) % states, (stance_switch_mode)(i % 6), STANCE_EASE_SMOOTHSTEP,
                                         0.2f, NULL);
            }
        const float dt = f % 61 == 60 ? 0.0f : f % 17 == 16 ? 1.0f / 30.0f : 1.0f / 60.0f;
        for (int k = 0; k < COPIES; k++) CHECK_OK(stance_instances_update(all[k], CROWD, dt, ws[k], NULL));
        char what[96];
        snprintf(what, sizeof what, "%s, the crowd", label);
        compare(inst, CROWD, what, f, &failed);
    }
    CHECK(made);
    CHECK(!failed);
    printf("  %s, the crowd: %d instances x %d updates, %s\n", label, CROWD, CROWD_UPDATES,
           failed ? "DIFFER" : "bit for bit");
    for (int k = 0; k < COPIES; k++) {
        for (int i = 0; i < CROWD; i++) stance_instance_destroy(all[k][i]);
        stance_workspace_destroy(ws[k]);
    }
}

static void both_workloads(const char *rel) {
    stance_graphfile *gf = load_graph(rel);
    if (!gf) return;
    const stance_graph *g = stance_graphfile_graph(gf);
    lesson_script(g, rel);
    crowd(g, rel);
    stance_graphfile_destroy(gf);
}

static void test_builtin_json(void) { both_workloads("graphs/builtin.json"); }

static void test_robot_json(void) {
    if (!data_present("robot_expressive/RobotExpressive.glb", "graphs/robot.json")) return;
    both_workloads("graphs/robot.json");
}

/* The copies are what they say: the switch reaches each copy, and the
 * reference copy's own (unfused) evaluation differs from the fast one's
 * only in which code ran, not in what it computed (the tests above). */
static void test_copies(void) {
    stance_workspace *ws = NULL;
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    stance_graph *g = NULL;
    CHECK_OK(stance_builtin_lesson_graph(&b, NULL, &g, NULL));
    if (g) CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
    if (ws) {
        CHECK(ws->frame == NULL); /* a new workspace runs the fast paths */
        CHECK(!strcmp(st_workspace_set_frame(ws, ST_FRAME_REFERENCE), "reference") && ws->frame != NULL);
        stance_status (*ref)(stance_instance *, stance_workspace *, float, unsigned) = ws->frame;
        CHECK(!strcmp(st_workspace_set_frame(ws, ST_FRAME_SSE2), "sse2") && ws->frame != NULL && ws->frame != ref);
        CHECK(!strcmp(st_workspace_set_frame(ws, ST_FRAME_FAST), "fast") && ws->frame == NULL);
        CHECK(st_workspace_set_frame(ws, (st_frame_copy)7) == NULL);
    }
    CHECK(st_workspace_set_frame(NULL, ST_FRAME_REFERENCE) == NULL);
    stance_workspace_destroy(ws);
    stance_graph_destroy(g);
    stance_builtin_destroy(&b);
}

int main(void) {
    const int vex = st_fused_vex_runs();
    copy_name[0] = vex ? "fast (fused passes and local-to-model in VEX: this CPU has AVX)"
                       : "fast (fused passes and local-to-model in SSE2: no VEX copies on this CPU or build)";
    copy_name[1] = "fast with SSE2 forced";
    copy_name[2] = "reference (every fast path off)";
    printf("  copies run: %s; %s; %s\n", copy_name[0], copy_name[1], copy_name[2]);
    if (!vex)
        printf("  the VEX copies: skipped (this CPU has no AVX, or the build has no VEX copies): the fast and SSE2 "
               "runs are the same code, each still compared with the reference\n");
    RUN(test_copies);
    RUN(test_builtin_json);
    RUN(test_robot_json);
    printf("  %ld instance updates compared with each other copy, %ld events\n", updates_compared, events_compared);
    return check_summary();
}
