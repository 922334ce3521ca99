/* tests/test_robust.c - issue 12: no NaN, no silent acceptance. The reduced
 * NaN trace and the dt contract (tiny, subnormal, huge and invalid steps),
 * controller reload onto another skeleton, the half-set allocator refused by
 * every create function with one message, a BVH parse error under the
 * sanitizer build (the LeakSanitizer suppression's case), and each finding
 * of the API fuzzer as a regression. Expected values come from the headers'
 * contracts, not from the code. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api_driver.h"
#include "check.h"
#include "stance/stance.h"
#include "stance_lesson/stance_lesson.h"
#if defined(STANCE_HAVE_ASSIMP)
#include "bad_bvh.h"
#include "stance/import.h"
#endif
#include "stance/build.h"

static stance_builtin B;
static stance_graph *LESSON;

/* every pose value finite and every quaternion unit (the API driver's check) */
static int pose_ok(const stance_instance *inst) {
    char why[256];
    if (drv_check_instance(inst, why, sizeof why)) {
        fprintf(stderr, "  %s\n", why);
        return 0;
    }
    return 1;
}

/* The reduced trace: update(0.099), update(1e-40), a dead-blend
 * switch, update(0.016). Joint 0 was NaN with status OK. Run with every
 * tiny step kind and every history-based switch mode. */
static void test_nan_trace(void) {
    const float tiny[] = {1e-40f, FLT_TRUE_MIN, 9.99e-7f, 1e-7f, 0.0f};
    const stance_switch_mode modes[] = {STANCE_SWITCH_DEADBLEND, STANCE_SWITCH_INERTIALIZE,
                                        STANCE_SWITCH_INERTIALIZE_SIMPLE, STANCE_SWITCH_FROZEN};
    int jump = stance_graph_find_state(LESSON, "Jump");
    CHECK(jump >= 0);
    for (size_t t = 0; t < sizeof tiny / sizeof tiny[0]; t++)
        for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
            stance_instance *inst;
            CHECK_OK(stance_instance_create(LESSON, NULL, &inst, NULL));
            CHECK_OK(stance_instance_set_float(inst, 0, 3.0f, NULL));
            CHECK_OK(drv_instance_update(inst, 0.099f, 0, NULL));
            float before = stance_instance_time(inst);
            CHECK_OK(drv_instance_update(inst, tiny[t], 0, NULL)); /* inside the documented 0..1: accepted */
            /* a step under STANCE_MIN_DT is a zero step: no time passes */
            CHECK(stance_instance_time(inst) == before);
            CHECK_OK(drv_instance_play(inst, jump, modes[m], STANCE_EASE_SMOOTHSTEP, 0.3f, NULL));
            CHECK_OK(drv_instance_update(inst, 0.016f, 0, NULL));
            if (!pose_ok(inst)) {
                check_failures_++;
                fprintf(stderr, "%s:%d: NaN pose after dt %g, mode %d\n", __FILE__, __LINE__, (double)tiny[t], (int)modes[m]);
            }
            for (int f = 0; f < 30; f++) CHECK_OK(drv_instance_update(inst, 1.0f / 60, 0, NULL));
            CHECK(pose_ok(inst));
            stance_instance_destroy(inst);
        }
}

/* STANCE_MIN_DT itself is a real step; a huge step (1 s) right after it
 * extrapolates the old motion by a bounded amount. */
static void test_huge_after_tiny(void) {
    const stance_switch_mode modes[] = {STANCE_SWITCH_DEADBLEND, STANCE_SWITCH_INERTIALIZE,
                                        STANCE_SWITCH_INERTIALIZE_SIMPLE};
    int jump = stance_graph_find_state(LESSON, "Jump"), move = stance_graph_find_state(LESSON, "Move");
    for (size_t m = 0; m < 3; m++) {
        stance_instance *inst;
        CHECK_OK(stance_instance_create(LESSON, NULL, &inst, NULL));
        CHECK_OK(stance_instance_set_float(inst, 0, 6.0f, NULL));
        for (int f = 0; f < 20; f++) CHECK_OK(drv_instance_update(inst, 1.0f / 60, 0, NULL));
        float before = stance_instance_time(inst);
        CHECK_OK(drv_instance_update(inst, STANCE_MIN_DT, 0, NULL));
        CHECK(stance_instance_time(inst) > before);
        CHECK_OK(drv_instance_play(inst, jump, modes[m], STANCE_EASE_LINEAR, 0.5f, NULL));
        CHECK_OK(drv_instance_update(inst, 1.0f, 0, NULL));
        CHECK(pose_ok(inst));
        /* the pose stays near the character: every joint within 10 m of the
         * model origin (the built-in character is 1.8 m tall) */
        const stance_pose *p = stance_instance_model_pose(inst);
        for (int j = 0; j < p->joint_count; j++)
            CHECK(fabsf(p->tx[j]) < 10.0f && fabsf(p->ty[j]) < 10.0f && fabsf(p->tz[j]) < 10.0f);
        CHECK_OK(drv_instance_play(inst, move, modes[m], STANCE_EASE_LINEAR, 0.5f, NULL));
        CHECK_OK(drv_instance_update(inst, 1e-30f, 0, NULL));
        CHECK_OK(drv_instance_update(inst, 1.0f, 0, NULL));
        CHECK(pose_ok(inst));
        stance_instance_destroy(inst);
    }
}

/* instance.h: NaN, inf, negative and > 1 are refused with STANCE_ERR_VALUE and change nothing. */
static void test_invalid_dt_refused(void) {
    const float bad[] = {NAN, INFINITY, -INFINITY, -1e-40f, -0.1f, 1.0000001f, 2.0f, 1e30f, FLT_MAX};
    stance_instance *inst;
    CHECK_OK(stance_instance_create(LESSON, NULL, &inst, NULL));
    CHECK_OK(drv_instance_update(inst, 0.1f, 0, NULL));
    float t = stance_instance_time(inst);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_STATUS(drv_instance_update(inst, bad[i], 0, NULL), STANCE_ERR_VALUE);
        CHECK(stance_instance_time(inst) == t);
    }
    CHECK_OK(drv_instance_update(inst, -0.0f, 0, NULL)); /* -0 is 0 */
    CHECK_OK(drv_instance_update(inst, 1.0f, 0, NULL));
    CHECK(pose_ok(inst));
    stance_controller *c;
    CHECK_OK(stance_controller_create(LESSON, NULL, NULL, &c, NULL));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) CHECK_STATUS(drv_controller_update(c, bad[i], NULL), STANCE_ERR_VALUE);
    CHECK_OK(drv_controller_update(c, 1e-40f, NULL));
    CHECK_OK(drv_controller_update(c, 1.0f / 60, NULL));
    stance_controller_destroy(c);
    stance_instance_destroy(inst);
}

/* A two-joint character with one clip: another skeleton than the built-in one. */
static stance_skeleton *TINY_SK;
static stance_clip *TINY_CLIP;
static stance_graph *tiny_graph(void) {
    const char *names[2] = {"root", "tip"};
    const int parents[2] = {-1, 0};
    stance_skeleton_desc sd = {.joint_count = 2, .names = names, .parents = parents};
    if (!TINY_SK && stance_skeleton_create(&sd, NULL, &TINY_SK, NULL)) return NULL;
    const float times[2] = {0.0f, 1.0f}, rot[8] = {0, 0, 0, 1, 0, 0.7071068f, 0, 0.7071068f};
    stance_track_desc tr = {.joint = 1, .channel = STANCE_CHANNEL_ROTATION, .key_count = 2, .times = times, .values = rot};
    stance_clip_desc cd = {.name = "swing", .track_count = 1, .tracks = &tr};
    if (!TINY_CLIP && stance_clip_create(&cd, TINY_SK, NULL, &TINY_CLIP, NULL)) return NULL;
    stance_state_desc st = {.name = "Swing", .clip = TINY_CLIP};
    stance_machine_desc m = {.name = "M", .state_count = 1, .states = &st};
    stance_graph_desc gd = {.skeleton = TINY_SK, .machine_count = 1, .machines = &m};
    stance_graph *g = NULL;
    if (stance_graph_create(&gd, NULL, &g, NULL)) return NULL;
    return g;
}

/* controller.h: reload onto another skeleton is refused, nothing changes;
 * the same skeleton from another asset is accepted. */
static void test_reload_other_skeleton(void) {
    stance_graph *tiny = tiny_graph();
    CHECK(tiny != NULL);
    if (!tiny) return;
    stance_controller *c;
    stance_error err;
    CHECK_OK(stance_controller_create(LESSON, NULL, NULL, &c, NULL));
    for (int f = 0; f < 10; f++) CHECK_OK(drv_controller_update(c, 1.0f / 60, NULL));
    const int J = B.skeleton->joint_count;
    char report[256] = "untouched";
    CHECK_STATUS(stance_controller_reload(c, tiny, report, sizeof report, &err), STANCE_ERR_ARGUMENT);
    CHECK(err.status == STANCE_ERR_ARGUMENT && strstr(err.message, "another skeleton") != NULL);
    char counts[64];
    snprintf(counts, sizeof counts, "2 joints, the controller's %d", J);
    CHECK(strstr(err.message, counts) != NULL);
    CHECK(stance_controller_graph(c) == LESSON);
    CHECK(stance_instance_model_pose(stance_controller_instance(c))->joint_count == J);
    CHECK_OK(drv_controller_update(c, 1.0f / 60, NULL));
    char why[256];
    CHECK(drv_check_controller(c, why, sizeof why) == 0);
    /* and the other way: the tiny controller refuses the built-in graph */
    stance_controller *t;
    CHECK_OK(stance_controller_create(tiny, NULL, NULL, &t, NULL));
    CHECK_STATUS(stance_controller_reload(t, LESSON, NULL, 0, &err), STANCE_ERR_ARGUMENT);
    CHECK(stance_instance_model_pose(stance_controller_instance(t))->joint_count == 2);
    stance_controller_destroy(t);
    /* a second built-in character: a different skeleton object, the same joints */
    stance_builtin b2;
    stance_graph *g2 = NULL;
    CHECK_OK(stance_builtin_create(NULL, &b2, NULL));
    CHECK_OK(stance_builtin_lesson_graph(&b2, NULL, &g2, NULL));
    CHECK(stance_graph_skeleton(g2) != stance_graph_skeleton(LESSON));
    CHECK_OK(stance_controller_reload(c, g2, report, sizeof report, &err));
    CHECK(stance_controller_graph(c) == g2);
    CHECK_OK(drv_controller_update(c, 1.0f / 60, NULL));
    CHECK(drv_check_controller(c, why, sizeof why) == 0);
    stance_controller_destroy(c);
    stance_graph_destroy(g2);
    stance_builtin_destroy(&b2);
    stance_graph_destroy(tiny);
}

/* ---- a half-set allocator ---------------------------------------------------- */

static int half_calls;
static void *half_alloc(void *user, size_t size, size_t align) {
    (void)user, (void)align;
    half_calls++;
    return malloc(size);
}
static void half_free(void *user, void *ptr, size_t size) {
    (void)user, (void)size;
    half_calls++;
    free(ptr);
}

/* The one message of st_check_allocator: "WHO: allocator has X but no Y (...)". */
static void check_half(stance_status st, const stance_error *err, const char *who, int has_alloc) {
    CHECK(st == STANCE_ERR_ARGUMENT);
    char want[160];
    snprintf(want, sizeof want, "%s: allocator has %s but no %s (set both, or neither for malloc/free)", who,
             has_alloc ? "alloc" : "free", has_alloc ? "free" : "alloc");
    if (strcmp(err->message, want)) {
        check_failures_++;
        fprintf(stderr, "%s:%d: '%s', wanted '%s'\n", __FILE__, __LINE__, err->message, want);
    }
}

static void test_half_allocator(void) {
    const stance_allocator halves[2] = {{half_alloc, NULL, NULL}, {NULL, half_free, NULL}};
    const stance_allocator zero = {0};
    for (int h = 0; h < 2; h++) {
        const stance_allocator *a = &halves[h];
        const int has_alloc = h == 0;
        stance_error err;
        half_calls = 0;
        const char *names[1] = {"j"};
        const int parents[1] = {-1};
        stance_skeleton_desc sd = {.joint_count = 1, .names = names, .parents = parents};
        stance_skeleton *sk = NULL;
        check_half(stance_skeleton_create(&sd, a, &sk, &err), &err, "skeleton", has_alloc);
        CHECK(sk == NULL);
        const float times[1] = {0}, vals[3] = {0, 0, 0};
        stance_track_desc tr = {.joint = 0, .channel = STANCE_CHANNEL_TRANSLATION, .key_count = 1, .times = times, .values = vals};
        stance_clip_desc cd = {.name = "c", .duration = 1, .track_count = 1, .tracks = &tr};
        stance_clip *clip = NULL;
        check_half(stance_clip_create(&cd, B.skeleton, a, &clip, &err), &err, "clip", has_alloc);
        stance_pose pose;
        check_half(stance_pose_create(&pose, 4, a, &err), &err, "pose", has_alloc);
        stance_graph *g = NULL;
        check_half(stance_builtin_lesson_graph(&B, a, &g, &err), &err, "graph", has_alloc);
        CHECK(g == NULL);
        stance_instance *inst = NULL;
        check_half(stance_instance_create(LESSON, a, &inst, &err), &err, "instance", has_alloc);
        CHECK(inst == NULL);
        stance_controller *ctl = NULL;
        check_half(stance_controller_create(LESSON, NULL, a, &ctl, &err), &err, "controller", has_alloc);
        CHECK(ctl == NULL);
        stance_workspace *ws = NULL;
        check_half(stance_workspace_create(LESSON, a, &ws, &err), &err, "workspace", has_alloc);
        CHECK(ws == NULL);
        stance_builtin b;
        check_half(stance_builtin_create(a, &b, &err), &err, "builtin", has_alloc);
        stance_asset asset;
        const unsigned char junk[8] = {0};
        check_half(stance_asset_load_memory(junk, sizeof junk, a, &asset, &err), &err, "stance data", has_alloc);
        check_half(stance_asset_load_file("x.stance", a, &asset, &err), &err, "x.stance", has_alloc);
        stance_scenario_result sr;
        check_half(stance_scenario_run(LESSON, STANCE_SWITCH_CUT, 0.25f, STANCE_EASE_SMOOTHSTEP, &sr, NULL, a, &err), &err,
                   "scenario", has_alloc);
        stance_scenario *runner = NULL;
        check_half(stance_scenario_create(LESSON, NULL, a, &runner, &err), &err, "scenario", has_alloc);
        CHECK(runner == NULL);
        stance_layer_setup su;
        stance_layer_result lr;
        CHECK_OK(stance_builtin_layer_setup(&B, &su, NULL));
        check_half(stance_layers_run(&su, &lr, a, &err), &err, "layers", has_alloc);
#if defined(STANCE_HAVE_ASSIMP)
        check_half(stance_import_file("/nonexistent.bvh", NULL, a, &asset, &err), &err, "/nonexistent.bvh", has_alloc);
#endif
        CHECK(half_calls == 0); /* the half allocator was never called */
    }
    /* both fields zero still means malloc/free */
    stance_instance *inst = NULL;
    CHECK_OK(stance_instance_create(LESSON, &zero, &inst, NULL));
    stance_instance_destroy(inst);
}

#if defined(STANCE_HAVE_ASSIMP)
/* A BVH that assimp fails to parse: a clear error naming the file. Under the
 * sanitizer build this reaches libassimp's own leaks on its error path,
 * which tests/lsan.supp suppresses (stance's frames stay checked). */
static void test_bvh_parse_error(void) {
    for (int i = 0; i < BAD_BVH_COUNT; i++) {
        char path[64];
        snprintf(path, sizeof path, "robust_bad_%d.bvh", i);
        const char *const *bodies = bad_bvh;
        FILE *f = fopen(path, "wb");
        CHECK(f != NULL);
        if (!f) return;
        fputs(bodies[i], f);
        fclose(f);
        stance_asset a;
        stance_error err;
        stance_status s = stance_import_file(path, NULL, NULL, &a, &err);
        CHECK(s != STANCE_OK);
        if (s == STANCE_OK) stance_asset_destroy(&a);
        else CHECK(strncmp(err.message, path, strlen(path)) == 0);
        remove(path);
    }
}
#endif

/* ---- findings of the API fuzzer (make fuzz FUZZ_TARGET=api) ---------------- */

/* Finding 1: a fade time inside [0, 60] but tiny (1e-40) makes the fade rate
 * infinite; a zero step then multiplied inf by 0 and a layer weight became
 * NaN (controller additive layers, and instance layer fades). */
static void test_fuzz_tiny_fade_zero_step(void) {
    stance_controller_desc d = {.fade_time = 1e-40f};
    stance_controller *c;
    CHECK_OK(stance_controller_create(LESSON, &d, NULL, &c, NULL));
    int breathe = stance_graph_find_state(LESSON, "Breathe"), wave = stance_graph_find_state(LESSON, "Wave");
    CHECK_OK(stance_controller_set(c, breathe, NULL));
    CHECK_OK(stance_controller_set(c, wave, NULL));
    CHECK_OK(drv_controller_update(c, 0.0f, NULL));
    char why[256] = "";
    CHECK(drv_check_controller(c, why, sizeof why) == 0);
    CHECK_OK(drv_controller_update(c, 1.0f / 60, NULL));
    CHECK(drv_check_controller(c, why, sizeof why) == 0);
    /* a fade this short is over after any real step */
    CHECK(stance_controller_layer_weight(c, stance_graph_find_layer(LESSON, "breathe")) == 1.0f);
    CHECK(stance_controller_layer_weight(c, stance_graph_find_layer(LESSON, "wave")) == 1.0f);
    if (why[0]) fprintf(stderr, "  %s\n", why);
    stance_controller_destroy(c);
    stance_instance *inst;
    CHECK_OK(stance_instance_create(LESSON, NULL, &inst, NULL));
    CHECK_OK(stance_instance_set_layer_weight(inst, 3, 1.0f, 1e-40f, NULL));
    CHECK_OK(drv_instance_update(inst, 0.0f, 0, NULL));
    CHECK(stance_instance_layer_weight(inst, 3) == 0.0f); /* no time passed */
    CHECK_OK(drv_instance_update(inst, 1.0f / 60, 0, NULL));
    CHECK(stance_instance_layer_weight(inst, 3) == 1.0f);
    CHECK(pose_ok(inst));
    stance_instance_destroy(inst);
}

/* Finding 2 (soak, seed 12): a damped parameter following a target across
 * the float range: tgt + (v - tgt) * k overflowed (FLT_MAX - -FLT_MAX) and the
 * parameter became inf, then NaN downstream. */
static void test_fuzz_damped_param_range(void) {
    stance_instance *inst;
    CHECK_OK(stance_instance_create(LESSON, NULL, &inst, NULL));
    const int speed = stance_graph_find_param(LESSON, "speed"); /* damped, halflife 0.1 s */
    const float targets[] = {FLT_MAX, -FLT_MAX, FLT_MAX, 3.0f, -FLT_MAX, 0.0f};
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        CHECK_OK(stance_instance_set_float(inst, speed, targets[i], NULL));
        for (int f = 0; f < 3; f++) {
            CHECK_OK(drv_instance_update(inst, 1.0f / 60, 0, NULL));
            float v = stance_instance_param(inst, speed);
            CHECK(isfinite(v));
            CHECK(pose_ok(inst));
        }
    }
    /* the damping itself: after one halflife the value is halfway (2^-1) */
    CHECK_OK(stance_instance_reset(inst, NULL));
    CHECK_OK(stance_instance_set_float(inst, speed, 4.0f, NULL));
    CHECK_OK(drv_instance_update(inst, 0.1f, 0, NULL));
    CHECK_NEAR(stance_instance_param(inst, speed), 2.0f, 1e-5);
    stance_instance_destroy(inst);
}

int main(void) {
    stance_error err;
    if (stance_builtin_create(NULL, &B, &err) || stance_builtin_lesson_graph(&B, NULL, &LESSON, &err)) {
        fprintf(stderr, "setup: %s\n", err.message);
        return 1;
    }
    RUN(test_nan_trace);
    RUN(test_huge_after_tiny);
    RUN(test_invalid_dt_refused);
    RUN(test_reload_other_skeleton);
    RUN(test_half_allocator);
    RUN(test_fuzz_tiny_fade_zero_step);
    RUN(test_fuzz_damped_param_range);
#if defined(STANCE_HAVE_ASSIMP)
    RUN(test_bvh_parse_error);
#endif
    stance_graph_destroy(LESSON);
    stance_clip_destroy(TINY_CLIP);
    stance_skeleton_destroy(TINY_SK);
    stance_builtin_destroy(&B);
    return check_summary();
}
