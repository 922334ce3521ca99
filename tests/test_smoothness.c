/* tests/test_smoothness.c - the whole-transition smoothness measure of
 * stance_scenario_run on graphs where the answer is known:
 *  - two constant poses 10 cm apart: a cut accelerates the joint by
 *    d / dt^2, a linear crossfade over N frames by d / (N dt^2), an
 *    inertialization by the quintic's peak 10 / sqrt(3) d / T^2; the clips
 *    alone do not move (reference 0, floored), nothing overshoots;
 *  - a joint moving at 4 m/s onto a target 10 cm ahead: the lesson's
 *    per-component quintic carries it past the target, Bollo's does not;
 * and on the lesson's script, the existing figures stay as they were. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "stance/stance.h"
#include "stance/build.h"
#include "stance_lesson/stance_lesson.h"

static const double DT = 1.0 / 60.0;

typedef struct setup {
    stance_skeleton *sk;
    stance_clip *a, *b;
    stance_graph *g;
} setup;

/* joint 1 at x = xa + va t (a loop of 1 s) in Idle, at xb (constant) in Move */
static void make(setup *s, float xa, float va, float xb) {
    memset(s, 0, sizeof *s);
    const int parents[2] = {-1, 0};
    stance_skeleton_desc sd = {2, NULL, parents, NULL};
    CHECK_OK(stance_skeleton_create(&sd, NULL, &s->sk, NULL));
    float times[2] = {0.0f, 1.0f};
    float va_keys[6] = {xa, 1, 0, xa + va, 1, 0}, vb_keys[6] = {xb, 1, 0, xb, 1, 0};
    stance_track_desc ta = {1, STANCE_CHANNEL_TRANSLATION, 2, times, va_keys}, tb = {1, STANCE_CHANNEL_TRANSLATION, 2, times, vb_keys};
    stance_clip_desc ca = {.name = "a", .track_count = 1, .tracks = &ta}, cb = {.name = "b", .track_count = 1, .tracks = &tb};
    CHECK_OK(stance_clip_create(&ca, s->sk, NULL, &s->a, NULL));
    CHECK_OK(stance_clip_create(&cb, s->sk, NULL, &s->b, NULL));
    stance_param_desc params[2] = {{"speed", STANCE_PARAM_FLOAT, 0, 0}, {"jump", STANCE_PARAM_TRIGGER, 0, 0}};
    stance_state_desc states[2] = {{.name = "Idle", .clip = s->a}, {.name = "Move", .clip = s->b}};
    stance_condition_desc go = {"speed", STANCE_CMP_GE, 0.1f, 0, 0}, stop = {"speed", STANCE_CMP_LT, 0.1f, 0, 0};
    stance_transition_desc tr[2] = {{.from = "Idle", .to = "Move", .condition_count = 1, .conditions = &go},
                                    {.from = "Move", .to = "Idle", .condition_count = 1, .conditions = &stop}};
    stance_machine_desc m = {.name = "M", .state_count = 2, .states = states, .transition_count = 2, .transitions = tr};
    stance_graph_desc gd = {.skeleton = s->sk, .param_count = 2, .params = params, .machine_count = 1, .machines = &m};
    CHECK_OK(stance_graph_create(&gd, NULL, &s->g, NULL));
}
static void done(setup *s) {
    stance_graph_destroy(s->g);
    stance_clip_destroy(s->a), stance_clip_destroy(s->b);
    stance_skeleton_destroy(s->sk);
}
static stance_scenario_result run(setup *s, stance_switch_mode mode, stance_easing easing, stance_scenario_frame *frames) {
    stance_scenario_result r;
    memset(&r, 0, sizeof r);
    CHECK_OK(stance_scenario_run(s->g, mode, 0.25f, easing, &r, frames, NULL, NULL));
    return r;
}

static void test_constant_poses(void) {
    setup s;
    make(&s, 0.0f, 0.0f, 0.1f);
    const double d = 0.1, N = 15, T = 0.25;
    static stance_scenario_frame fr[STANCE_SCENARIO_FRAMES];
    stance_scenario_result cut = run(&s, STANCE_SWITCH_CUT, STANCE_EASE_LINEAR, fr);
    CHECK(cut.transitions == 4); /* Idle->Move at 1.5 and 8.5 s, back at 5.5 and 11.5 s */
    CHECK_NEAR(cut.max_accel, d / (DT * DT), 0.05);
    CHECK(cut.ref_accel == 0.0f); /* constant clips */
    CHECK_NEAR(cut.accel_ratio, d / (DT * DT) / STANCE_SCENARIO_ACCEL_FLOOR, 10.0);
    CHECK(cut.overshoot_cm < 1e-4f);
    int in_window = 0;
    for (int f = 0; f < STANCE_SCENARIO_FRAMES; f++) in_window += fr[f].accel_ratio >= 0.0f;
    CHECK(in_window >= 4 * 2 && in_window <= 4 * (int)(N + 1)); /* only the windows are marked */
    stance_scenario_result fade = run(&s, STANCE_SWITCH_CROSSFADE, STANCE_EASE_LINEAR, fr);
    CHECK_NEAR(fade.max_accel, d / (N * DT * DT), 0.05);
    CHECK_NEAR(fade.accel_ratio / cut.accel_ratio, 1.0 / N, 1e-4);
    CHECK(fade.overshoot_cm < 1e-4f);
    /* the quintic x0 (1 - 10 u^3 + 15 u^4 - 6 u^5): |x''| peaks at 10 / sqrt(3) x0 / T^2 */
    const double quintic_peak = 10.0 / sqrt(3.0) * d / (T * T);
    stance_scenario_result in = run(&s, STANCE_SWITCH_INERTIALIZE, STANCE_EASE_LINEAR, fr);
    stance_scenario_result is = run(&s, STANCE_SWITCH_INERTIALIZE_SIMPLE, STANCE_EASE_LINEAR, fr);
    CHECK_NEAR(in.max_accel, quintic_peak, 0.03 * quintic_peak);
    CHECK_NEAR(is.max_accel, quintic_peak, 0.03 * quintic_peak);
    CHECK(in.overshoot_cm < 1e-3f && is.overshoot_cm < 1e-3f);
    /* ordering: cut >> crossfade (linear) > inertialization */
    CHECK(cut.accel_ratio > 10 * fade.accel_ratio && fade.accel_ratio > in.accel_ratio);
    done(&s);
}

static void test_overshoot(void) {
    /* at 1.5 s the clip's time is 0.5 s: joint at 2.0 m moving +4 m/s; the
     * target 10 cm ahead: the offset heads back to zero at 4 m/s, 40 cm/s
     * per cm of offset, much faster than a 0.25 s quintic can stop */
    setup s;
    make(&s, 0.0f, 4.0f, 2.1f);
    stance_scenario_result is = run(&s, STANCE_SWITCH_INERTIALIZE_SIMPLE, STANCE_EASE_SMOOTHSTEP, NULL);
    stance_scenario_result in = run(&s, STANCE_SWITCH_INERTIALIZE, STANCE_EASE_SMOOTHSTEP, NULL);
    stance_scenario_result cut = run(&s, STANCE_SWITCH_CUT, STANCE_EASE_SMOOTHSTEP, NULL);
    printf("  overshoot: simple %.2f cm, Bollo %.3f cm, cut %.3f cm\n", (double)is.overshoot_cm, (double)in.overshoot_cm,
           (double)cut.overshoot_cm);
    CHECK(is.overshoot_cm > 1.0f);
    CHECK(in.overshoot_cm < 0.05f);
    CHECK(cut.overshoot_cm < 1e-4f);
    /* the clip alone moves at constant speed: its reference is the floor
     * except for the loop's wrap, which lies outside every window */
    CHECK(in.ref_accel < 1e-2f);
    done(&s);
}

/* The lesson's script on the built-in character: the new measure is there
 * for every mode and leaves the lesson's figures as they were. */
static void test_lesson_script(void) {
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    stance_graph *g;
    CHECK_OK(stance_builtin_lesson_graph(&b, NULL, &g, NULL));
    const float worst[STANCE_SCENARIO_MODES] = {47.96f, 5.00f, 0.00f, 2.93f, 2.93f, 3.09f}; /* docs/lesson.md's table */
    for (int m = 0; m < STANCE_SCENARIO_MODES; m++) {
        stance_scenario_result r;
        CHECK_OK(stance_scenario_run(g, stance_scenario_modes[m], 0.25f, STANCE_EASE_SMOOTHSTEP, &r, NULL, NULL, NULL));
        CHECK_NEAR(r.worst_jump_cm, worst[m], 0.006);
        CHECK(r.accel_ratio > 0.0f && isfinite(r.accel_ratio) && r.overshoot_cm >= 0.0f && isfinite(r.overshoot_cm));
        CHECK(r.ref_accel > 0.0f); /* the lesson's clips move */
        printf("  %-18s accel ratio %6.2f at %5.2f s, overshoot %5.2f cm\n", stance_switch_mode_name(r.mode), (double)r.accel_ratio,
               (double)r.accel_at_s, (double)r.overshoot_cm);
        if (stance_scenario_modes[m] == STANCE_SWITCH_CUT) CHECK(r.accel_ratio > 10.0f && r.overshoot_cm < 1e-4f);
    }
    stance_graph_destroy(g);
    stance_builtin_destroy(&b);
}

int main(void) {
    RUN(test_constant_poses);
    RUN(test_overshoot);
    RUN(test_lesson_script);
    return check_summary();
}
