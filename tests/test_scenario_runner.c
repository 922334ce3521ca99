/* tests/test_scenario_runner.c - the lesson library's scenario runner
 * (stance_scenario_*), the code the CLI and the lab share:
 *  - by hand: each frame's jump at a switch equals the test's own measure
 *    (a copy of the instance updated with no transition, the largest joint
 *    distance computed here), and its transition's states are the events';
 *  - the script: the speed of each frame is LESSON.md's table, the states
 *    are the instance's, a step past the end or after a step by hand is
 *    refused, a restart plays the same figures again, the steps allocate
 *    nothing, and the stepped measures are stance_scenario_run's;
 *  - bad arguments give errors, never a crash. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stance/stance.h"
#include "stance/build.h"
#include "stance_lesson/stance_lesson.h"

/* LESSON.md's script table: speed from t */
static float table_speed(float t) {
    static const float from[8] = {0.0f, 1.5f, 3.5f, 5.5f, 7.0f, 8.5f, 10.0f, 11.5f};
    static const float speed[8] = {0.0f, 1.5f, 4.0f, 0.0f, 0.0f, 1.5f, 1.5f, 0.0f};
    float v = 0.0f;
    for (int i = 0; i < 8; i++)
        if (t + 1e-4f >= from[i]) v = speed[i];
    return v;
}

static float max_distance_cm(const stance_pose *a, const stance_pose *b) {
    double best = 0.0;
    for (int j = 0; j < a->joint_count; j++) {
        double dx = a->tx[j] - b->tx[j], dy = a->ty[j] - b->ty[j], dz = a->tz[j] - b->tz[j];
        double d = sqrt(dx * dx + dy * dy + dz * dz);
        if (d > best) best = d;
    }
    return (float)(best * 100.0);
}

/* counts what the runner allocates */
typedef struct counter { long allocs, frees; size_t live; } counter;
static void *count_alloc(void *user, size_t size, size_t align) {
    counter *c = user;
    (void)align;
    c->allocs++, c->live += size;
    return malloc(size);
}
static void count_free(void *user, void *ptr, size_t size) {
    counter *c = user;
    c->frees++, c->live -= size;
    free(ptr);
}

static stance_builtin B;
static stance_graph *G;

static void test_by_hand_jump_is_the_old_state_alone(void) {
    stance_error err;
    stance_scenario *sc;
    const stance_scenario_desc desc = {.mode = STANCE_SWITCH_CUT};
    CHECK_OK(stance_scenario_create(G, &desc, NULL, &sc, &err));
    if (!sc) return;
    stance_instance *inst = stance_scenario_instance(sc), *mine;
    stance_workspace *ws;
    const stance_instance_desc all = {.history = STANCE_HISTORY_ALL};
    CHECK_OK(stance_instance_create_ex(G, &all, NULL, &mine, &err));
    CHECK_OK(stance_workspace_create(G, NULL, &ws, &err));
    const int p_speed = stance_graph_find_param(G, "speed"), p_jump = stance_graph_find_param(G, "jump");
    int transitions = 0, idle_to_move = 0;
    float worst = 0.0f;
    for (int f = 0; f < 240; f++) {
        /* by hand: stand, walk, press jump, run, stop, with a frame time that is not the script's */
        float speed = f < 30 ? 0.0f : f < 90 ? 1.5f : f < 170 ? 4.0f : 0.0f;
        CHECK_OK(stance_instance_set_float(inst, p_speed, speed, NULL));
        if (f == 60) CHECK_OK(stance_instance_set_trigger(inst, p_jump, NULL));
        CHECK_OK(stance_instance_copy(mine, inst, NULL));
        stance_scenario_frame fr;
        CHECK_OK(stance_scenario_step_by_hand(sc, 1.0f / 50.0f, &fr, &err));
        CHECK_OK(stance_instance_update_ex(mine, 1.0f / 50.0f, STANCE_UPDATE_NO_TRANSITIONS, ws, NULL));
        int n, started = -1;
        const stance_event *ev = stance_instance_events(inst, &n, NULL);
        for (int i = 0; i < n && started < 0; i++)
            if (ev[i].type == STANCE_EVENT_TRANSITION_STARTED && ev[i].layer == 0) started = i;
        CHECK(fr.accel_ratio == -1.0f);
        CHECK(fr.speed == stance_instance_param(inst, p_speed)); /* what the graph sees: damped towards speed */
        CHECK(fr.speed >= 0.0f && fr.speed <= 4.0f);
        CHECK_NEAR(fr.time, (f + 1) / 50.0, 1e-4);
        stance_machine_status ms;
        CHECK_OK(stance_instance_machine_status(inst, stance_graph_layer_machine(G, 0), &ms, NULL));
        CHECK(fr.state == ms.state && fr.from_state == ms.transition);
        if (started < 0) {
            CHECK(fr.jump_cm == -1.0f && fr.jump_joint == -1 && fr.jump_from == -1 && fr.jump_to == -1);
            continue;
        }
        transitions++;
        const float want = max_distance_cm(stance_instance_model_pose(inst), stance_instance_model_pose(mine));
        CHECK_NEAR(fr.jump_cm, want, 1e-3);
        if (want > worst) worst = want;
        CHECK(fr.jump_from == ev[started].other && fr.jump_to == ev[started].state);
        CHECK(fr.jump_joint >= 0 && fr.jump_joint < B.skeleton->joint_count);
        if (!strcmp(stance_graph_state_name(G, fr.jump_from), "Idle") && !strcmp(stance_graph_state_name(G, fr.jump_to), "Move"))
            idle_to_move++;
    }
    CHECK(idle_to_move == 1);   /* speed 0 -> 1.5 at frame 30 */
    CHECK(transitions >= 4);    /* Idle->Move, Move->Jump, Jump->Move, Move->Idle */
    stance_scenario_result r;
    CHECK_OK(stance_scenario_measures(sc, &r, &err));
    CHECK(r.transitions == transitions);
    CHECK_NEAR(r.worst_jump_cm, worst, 1e-3);
    CHECK(worst > 1.0f);        /* a cut pops */
    /* the script cannot continue from a pose the hand left */
    CHECK_STATUS(stance_scenario_step(sc, NULL, &err), STANCE_ERR_ARGUMENT);
    CHECK(strstr(err.message, "restart") != NULL);
    CHECK(stance_scenario_script_done(sc) == 1);
    CHECK(stance_scenario_accel_ratio(sc, 0) == -1.0f);
    stance_instance_destroy(mine);
    stance_workspace_destroy(ws);
    stance_scenario_destroy(sc);
}

static int same_result(const stance_scenario_result *a, const stance_scenario_result *b) {
    return a->mode == b->mode && a->blend_time == b->blend_time && a->worst_jump_cm == b->worst_jump_cm &&
           a->worst_at_s == b->worst_at_s && !strcmp(a->worst_transition, b->worst_transition) &&
           a->worst_joint == b->worst_joint && a->max_clips_sampled == b->max_clips_sampled &&
           a->transitions == b->transitions && a->accel_ratio == b->accel_ratio && a->accel_at_s == b->accel_at_s &&
           a->max_accel == b->max_accel && a->ref_accel == b->ref_accel && a->overshoot_cm == b->overshoot_cm &&
           a->overshoot_at_s == b->overshoot_at_s;
}

static void test_script_steps(void) {
    stance_error err;
    counter c = {0, 0, 0};
    const stance_allocator al = {count_alloc, count_free, &c};
    stance_scenario *sc;
    const stance_scenario_desc desc = {.mode = STANCE_SWITCH_INERTIALIZE, .blend_time = 0.3f};
    CHECK_OK(stance_scenario_create(G, &desc, &al, &sc, &err));
    if (!sc) return;
    CHECK(c.allocs > 0);
    const int p_speed = stance_graph_find_param(G, "speed");
    static stance_scenario_frame frames[STANCE_SCENARIO_FRAMES];
    stance_scenario_result first;
    for (int pass = 0; pass < 2; pass++) {
        const long before = c.allocs;
        for (int f = 0; f < STANCE_SCENARIO_FRAMES; f++) {
            CHECK(stance_scenario_frame_index(sc) == f && !stance_scenario_script_done(sc));
            CHECK_OK(stance_scenario_step(sc, &frames[f], &err));
            CHECK(frames[f].speed == table_speed((float)f / 60.0f));
            CHECK(stance_instance_param(stance_scenario_instance(sc), p_speed) >= 0.0f);
            stance_machine_status ms;
            CHECK_OK(stance_instance_machine_status(stance_scenario_instance(sc), stance_graph_layer_machine(G, 0), &ms, NULL));
            CHECK(frames[f].state == ms.state);
        }
        CHECK(c.allocs == before); /* no allocation in the steps */
        CHECK(stance_scenario_script_done(sc));
        CHECK_STATUS(stance_scenario_step(sc, NULL, &err), STANCE_ERR_ARGUMENT);
        stance_scenario_result r;
        CHECK_OK(stance_scenario_measures(sc, &r, &err));
        CHECK(r.mode == STANCE_SWITCH_INERTIALIZE && r.blend_time == 0.3f);
        CHECK(r.transitions >= 5);
        if (pass == 0) {
            first = r;
            /* the same as the one-call run, frames included */
            stance_scenario_result whole;
            static stance_scenario_frame wf[STANCE_SCENARIO_FRAMES];
            CHECK_OK(stance_scenario_run(G, STANCE_SWITCH_INERTIALIZE, 0.3f, STANCE_EASE_SMOOTHSTEP, &whole, wf, NULL, &err));
            CHECK(same_result(&r, &whole));
            int windows = 0;
            for (int f = 0; f < STANCE_SCENARIO_FRAMES; f++) {
                CHECK(wf[f].accel_ratio == stance_scenario_accel_ratio(sc, f));
                CHECK(wf[f].jump_cm == frames[f].jump_cm && wf[f].state == frames[f].state);
                if (wf[f].accel_ratio >= 0.0f) windows++;
            }
            CHECK(windows > 0);
            CHECK_OK(stance_scenario_restart(sc, &err));
            CHECK(stance_scenario_frame_index(sc) == 0);
            CHECK_OK(stance_scenario_measures(sc, &r, &err));
            CHECK(r.transitions == 0 && r.worst_jump_cm == 0.0f && !strcmp(r.worst_transition, "none"));
        } else {
            CHECK(same_result(&r, &first)); /* a restart is a fresh start */
        }
    }
    stance_scenario_destroy(sc);
    CHECK(c.allocs == c.frees && c.live == 0);
}

static void test_set_switch(void) {
    stance_error err;
    stance_scenario *sc;
    CHECK_OK(stance_scenario_create(G, NULL, NULL, &sc, &err)); /* defaults: crossfade, 0.25 s, smoothstep */
    if (!sc) return;
    stance_scenario_result r, want;
    CHECK_OK(stance_scenario_measures(sc, &r, &err));
    CHECK(r.mode == STANCE_SWITCH_CROSSFADE && r.blend_time == 0.25f);
    CHECK_OK(stance_scenario_set_switch(sc, STANCE_SWITCH_DEADBLEND, 0.4f, STANCE_EASE_LINEAR, &err));
    CHECK_OK(stance_scenario_restart(sc, &err));
    while (!stance_scenario_script_done(sc)) CHECK_OK(stance_scenario_step(sc, NULL, &err));
    CHECK_OK(stance_scenario_measures(sc, &r, &err));
    CHECK_OK(stance_scenario_run(G, STANCE_SWITCH_DEADBLEND, 0.4f, STANCE_EASE_LINEAR, &want, NULL, NULL, &err));
    CHECK(same_result(&r, &want));
    CHECK_STATUS(stance_scenario_set_switch(sc, (stance_switch_mode)99, 0.2f, STANCE_EASE_LINEAR, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_scenario_set_switch(sc, STANCE_SWITCH_CUT, NAN, STANCE_EASE_LINEAR, &err), STANCE_ERR_VALUE);
    CHECK_STATUS(stance_scenario_set_switch(sc, STANCE_SWITCH_CUT, 0.2f, (stance_easing)7, &err), STANCE_ERR_ARGUMENT);
    CHECK_OK(stance_scenario_measures(sc, &r, &err));
    CHECK(r.mode == STANCE_SWITCH_DEADBLEND && r.blend_time == 0.4f); /* refused changes change nothing */
    stance_scenario_destroy(sc);
}

static void test_bad_arguments(void) {
    stance_error err;
    stance_scenario *sc = (stance_scenario *)&err;
    CHECK_STATUS(stance_scenario_create(NULL, NULL, NULL, &sc, &err), STANCE_ERR_ARGUMENT);
    CHECK(sc == NULL);
    CHECK_STATUS(stance_scenario_create(G, NULL, NULL, NULL, &err), STANCE_ERR_ARGUMENT);
    const stance_scenario_desc bad_mode = {.mode = (stance_switch_mode)STANCE_SWITCH_MODE_COUNT};
    CHECK_STATUS(stance_scenario_create(G, &bad_mode, NULL, &sc, &err), STANCE_ERR_ARGUMENT);
    const float blends[3] = {NAN, -0.1f, 11.0f};
    for (int i = 0; i < 3; i++) {
        const stance_scenario_desc d = {.blend_time = blends[i]};
        CHECK_STATUS(stance_scenario_create(G, &d, NULL, &sc, &err), STANCE_ERR_VALUE);
    }
    const stance_scenario_desc bad_easing = {.easing = (stance_easing)3};
    CHECK_STATUS(stance_scenario_create(G, &bad_easing, NULL, &sc, &err), STANCE_ERR_ARGUMENT);
    const stance_allocator half = {count_alloc, NULL, NULL};
    CHECK_STATUS(stance_scenario_create(G, NULL, &half, &sc, &err), STANCE_ERR_ARGUMENT);
    /* a graph without the script's parameters */
    const stance_state_desc st = {.name = "Idle", .clip = stance_builtin_clip(&B, "idle")};
    const stance_machine_desc m = {.name = "M", .state_count = 1, .states = &st};
    const stance_graph_desc gd = {.skeleton = B.skeleton, .machine_count = 1, .machines = &m};
    stance_graph *plain;
    CHECK_OK(stance_graph_create(&gd, NULL, &plain, &err));
    CHECK_STATUS(stance_scenario_create(plain, NULL, NULL, &sc, &err), STANCE_ERR_NOT_FOUND);
    CHECK(strstr(err.message, "speed") != NULL);
    stance_graph_destroy(plain);
    /* NULL runners */
    CHECK_STATUS(stance_scenario_step(NULL, NULL, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_scenario_step_by_hand(NULL, 0.1f, NULL, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_scenario_restart(NULL, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_scenario_measures(NULL, NULL, &err), STANCE_ERR_ARGUMENT);
    CHECK(stance_scenario_instance(NULL) == NULL && stance_scenario_accel_ratio(NULL, 0) == -1.0f);
    CHECK(stance_scenario_script_done(NULL) == 1 && stance_scenario_frame_index(NULL) == 0);
    stance_scenario_destroy(NULL);
    /* bad steps by hand change nothing */
    CHECK_OK(stance_scenario_create(G, NULL, NULL, &sc, &err));
    const float dts[4] = {NAN, INFINITY, -0.01f, 1.5f};
    for (int i = 0; i < 4; i++) CHECK_STATUS(stance_scenario_step_by_hand(sc, dts[i], NULL, &err), STANCE_ERR_VALUE);
    CHECK(stance_scenario_frame_index(sc) == 0);
    CHECK_OK(stance_scenario_step(sc, NULL, &err)); /* the script still may start */
    CHECK_STATUS(stance_scenario_measures(sc, NULL, &err), STANCE_ERR_ARGUMENT);
    CHECK(stance_scenario_accel_ratio(sc, -1) == -1.0f && stance_scenario_accel_ratio(sc, 5) == -1.0f);
    stance_scenario_destroy(sc);
}

int main(void) {
    stance_error err;
    if (stance_builtin_create(NULL, &B, &err) || stance_builtin_lesson_graph(&B, NULL, &G, &err)) {
        fprintf(stderr, "setup: %s\n", err.message);
        return 1;
    }
    RUN(test_by_hand_jump_is_the_old_state_alone);
    RUN(test_script_steps);
    RUN(test_set_switch);
    RUN(test_bad_arguments);
    stance_graph_destroy(G);
    stance_builtin_destroy(&B);
    return check_summary();
}
