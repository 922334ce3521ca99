/* tests/test_inertia.c - Bollo's inertialization (STANCE_SWITCH_INERTIALIZE)
 * through the runtime on constructed cases whose answer is known in closed
 * form, and the issue-15 goal on the lesson's script (built-in character;
 * RobotExpressive in test_graphfile_inertia.c).
 *
 * One joint under the root moves on a straight line in state A (so the
 * source's extrapolation is exact) and sits still in state B (or moves,
 * inside a nested machine). On the trigger the machine inertializes A -> B
 * over T = 0.25 s. The output's offset from B at t after the switch is then,
 * from Bollo's formulas and the boundary conditions alone:
 *  - heading back at v = -5 x0 / t1 (t1 < T): x0 (1 - t/t1)^5, the quintic
 *    with x(0) = x0, x'(0) = v, x''(0) = a0 = 20 x0 / t1^2 and zero value,
 *    velocity and acceleration at t1 (its largest acceleration is a0);
 *  - moving away at v > 0: x0 (1 - 10 s^3 + 15 s^4 - 6 s^5) + v T s (1-s)^3
 *    (1+3s), s = t / T (never below zero);
 *  - moving across at w: x0 (1 - 10 s^3 + 15 s^4 - 6 s^5) along, and
 *    w D u (1-u)^3 (1+3u), u = t / D, across, D = min(T, 2 x0 / (16/81 w))
 *    (the bump peaks at u = 1/3, at 16/81 w D: 2 x0 when D < T).
 * In each the output's velocity right after the switch is the source's. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "stance/stance.h"
#include "stance_lesson/stance_lesson.h"

static const float DT = 1.0f / 60.0f, T = 0.25f;

typedef struct rig {
    stance_skeleton *sk;
    stance_clip *a, *b;
    stance_graph *g;
} rig;

/* clip: joint 1 at p + v t over 1 s */
static stance_clip *line_clip(const stance_skeleton *sk, const char *name, const float p[3], const float v[3]) {
    static const float times[2] = {0.0f, 1.0f};
    float keys[6] = {p[0], p[1], p[2], p[0] + v[0], p[1] + v[1], p[2] + v[2]};
    stance_track_desc tr = {1, STANCE_CHANNEL_TRANSLATION, 2, times, keys};
    stance_clip_desc cd = {.name = name, .track_count = 1, .tracks = &tr};
    stance_clip *c = NULL;
    CHECK_OK(stance_clip_create(&cd, sk, NULL, &c, NULL));
    return c;
}

/* A plays a line from pa at va; B plays pb + vb t, inside a nested machine when `nested` */
static void rig_make(rig *r, const float pa[3], const float va[3], const float pb[3], const float vb[3], int nested) {
    memset(r, 0, sizeof *r);
    const int parents[2] = {-1, 0};
    stance_skeleton_desc sd = {2, NULL, parents, NULL};
    CHECK_OK(stance_skeleton_create(&sd, NULL, &r->sk, NULL));
    r->a = line_clip(r->sk, "a", pa, va);
    r->b = line_clip(r->sk, "b", pb, vb);
    stance_param_desc params[1] = {{"go", STANCE_PARAM_TRIGGER, 0, 0}};
    stance_condition_desc go = {.param = "go", .op = STANCE_CMP_TRUE};
    stance_transition_desc tr = {.from = "A", .to = "B", .condition_count = 1, .conditions = &go, .blend_time = T,
                                 .mode = STANCE_SWITCH_INERTIALIZE};
    stance_state_desc states[2] = {{.name = "A", .clip = r->a}, {.name = "B", .clip = r->b}};
    stance_state_desc inner = {.name = "Bin", .clip = r->b};
    if (nested) states[1] = (stance_state_desc){.name = "B", .type = STANCE_MOTION_MACHINE, .machine = "Sub"};
    stance_machine_desc m[2] = {
        {.name = "M", .state_count = 2, .states = states, .transition_count = 1, .transitions = &tr},
        {.name = "Sub", .state_count = 1, .states = &inner},
    };
    stance_graph_desc gd = {.skeleton = r->sk, .param_count = 1, .params = params, .machine_count = nested ? 2 : 1, .machines = m};
    CHECK_OK(stance_graph_create(&gd, NULL, &r->g, NULL));
}

static void rig_done(rig *r) {
    stance_graph_destroy(r->g);
    stance_clip_destroy(r->a), stance_clip_destroy(r->b);
    stance_skeleton_destroy(r->sk);
}

enum { FS = 20, FRAMES = FS + 20 };

/* joint 1's model position per frame; the trigger is set before frame FS
 * (mode >= 0: every switch overridden to that mode) */
static void play(const rig *r, float out[FRAMES][3], int mode) {
    stance_instance *inst = NULL;
    stance_workspace *ws = NULL;
    CHECK_OK(stance_instance_create(r->g, NULL, &inst, NULL));
    CHECK_OK(stance_workspace_create(r->g, NULL, &ws, NULL));
    if (!inst || !ws) return;
    if (mode >= 0) CHECK_OK(stance_instance_override_switch(inst, mode, T, -1));
    for (int f = 0; f < FRAMES; f++) {
        if (f == FS) CHECK_OK(stance_instance_set_trigger(inst, 0, NULL));
        CHECK_OK(stance_instance_update(inst, DT, ws));
        const stance_pose *m = stance_instance_model_pose(inst);
        out[f][0] = m->tx[1], out[f][1] = m->ty[1], out[f][2] = m->tz[1];
        if (f == FS) {
            stance_machine_status ms;
            stance_instance_machine_status(inst, 0, &ms);
            CHECK(ms.state == 1); /* the switch happened on this frame */
        }
    }
    stance_workspace_destroy(ws);
    stance_instance_destroy(inst);
}

/* Where A puts the joint on the switch frame (A alone, no trigger): the
 * geometry of each case is set relative to it. */
static void source_at_switch(const float va[3], float p[3]) {
    const float pa[3] = {0.0f, 1.0f, 0.0f}, zero[3] = {0, 0, 0};
    rig r;
    rig_make(&r, pa, va, pa, zero, 0);
    stance_instance *inst = NULL;
    stance_workspace *ws = NULL;
    CHECK_OK(stance_instance_create(r.g, NULL, &inst, NULL));
    CHECK_OK(stance_workspace_create(r.g, NULL, &ws, NULL));
    for (int f = 0; f <= FS && inst && ws; f++) CHECK_OK(stance_instance_update(inst, DT, ws));
    const stance_pose *m = stance_instance_model_pose(inst);
    p[0] = m->tx[1], p[1] = m->ty[1], p[2] = m->tz[1];
    stance_workspace_destroy(ws);
    stance_instance_destroy(inst);
    rig_done(&r);
}

static double smooth5(double s) { return s >= 1.0 ? 0.0 : 1.0 - s * s * s * (10.0 - 15.0 * s + 6.0 * s * s); }
static double bump(double t, double D) {
    if (t >= D) return 0.0;
    double u = t / D;
    return D * u * (1 - u) * (1 - u) * (1 - u) * (1 + 3 * u);
}

/* Runs A -> B with A at velocity va and B still at pb = (source at the
 * switch) - x0 along +x; checks the output against want(t) (offset from B)
 * at every frame, the source's velocity right after the switch, and returns
 * the largest acceleration of the output over the blend. */
static float g_out[FRAMES][3], g_pb[3]; /* the last case's output and target */
typedef void (*want_fn)(double t, double x0, const float va[3], double off[3]);

static double run_case(const char *name, const float va[3], double x0, want_fn want) {
    const float pa[3] = {0.0f, 1.0f, 0.0f}, zero[3] = {0, 0, 0};
    float ps[3];
    source_at_switch(va, ps);
    const float pb[3] = {ps[0] - (float)x0, ps[1], ps[2]};
    rig r;
    rig_make(&r, pa, va, pb, zero, 0);
    float (*out)[3] = g_out;
    play(&r, out, -1);
    g_pb[0] = pb[0], g_pb[1] = pb[1], g_pb[2] = pb[2];
    /* on the switch frame the output is the source, extrapolated exactly */
    for (int k = 0; k < 3; k++) CHECK_NEAR(out[FS][k], 2 * out[FS - 1][k] - out[FS - 2][k], 2e-6);
    for (int k = 0; k < 3; k++) CHECK_NEAR(out[FS][k], ps[k], 2e-6);
    double worst = 0.0, amax = 0.0;
    for (int f = FS; f < FRAMES; f++) {
        double t = (f - FS) * (double)DT, off[3];
        want(t, x0, va, off);
        for (int k = 0; k < 3; k++) {
            double e = fabs((out[f][k] - pb[k]) - off[k]);
            if (e > worst) worst = e;
        }
        if (f > FS - 2 && f + 1 < FRAMES) {
            double a2 = 0;
            for (int k = 0; k < 3; k++) {
                double a = (out[f + 1][k] - 2.0 * out[f][k] + out[f - 1][k]) / ((double)DT * DT);
                a2 += a * a;
            }
            if (sqrt(a2) > amax) amax = sqrt(a2);
        }
    }
    printf("  %-8s offset vs closed form: worst %.2e m; largest acceleration %.2f m/s^2\n", name, worst, amax);
    CHECK(worst < 2e-5);
    rig_done(&r);
    return amax;
}

static void want_critical(double t, double x0, const float va[3], double off[3]) {
    double t1 = -5.0 * x0 / va[0], s = t / t1;
    off[0] = s >= 1.0 ? 0.0 : x0 * pow(1.0 - s, 5.0);
    off[1] = off[2] = 0.0;
}
static void want_outward(double t, double x0, const float va[3], double off[3]) {
    off[0] = x0 * smooth5(t / T) + va[0] * bump(t, T);
    off[1] = off[2] = 0.0;
}
static void want_across(double t, double x0, const float va[3], double off[3]) {
    double w = va[1], D = 2.0 * x0 / ((16.0 / 81.0) * w);
    if (D > T) D = T;
    off[0] = x0 * smooth5(t / T);
    off[1] = w * bump(t, D);
    off[2] = 0.0;
}

static void test_heading_back(void) {
    /* 5 cm off, closing at 5 x0 / 0.15 s: Bollo shortens the blend to 0.15 s */
    const double x0 = 0.05, t1 = 0.15;
    const float va[3] = {(float)(-5.0 * x0 / t1), 0.0f, 0.0f};
    double amax = run_case("back", va, x0, want_critical);
    CHECK(amax <= 20.0 * x0 / (t1 * t1) * 1.001); /* a0, the curve's largest */
}

static void test_moving_away(void) {
    const double x0 = 0.05;
    const float va[3] = {1.5f, 0.0f, 0.0f};
    run_case("away", va, x0, want_outward);
}

static void test_moving_across(void) {
    /* 5 cm off along x, moving at 4 m/s along y: the across part is bounded
     * to 2 x0 = 10 cm (unbounded it would reach 0.1975 * 4 * 0.25 = 19.8 cm) */
    const double x0 = 0.05;
    const float va[3] = {0.0f, 4.0f, 0.0f};
    run_case("across", va, x0, want_across);
    double peak = 0.0, lo = 0.0;
    for (int f = FS; f < FRAMES; f++) {
        peak = fmax(peak, g_out[f][1] - g_pb[1]);
        lo = fmin(lo, g_out[f][0] - g_pb[0]); /* along: never past the target */
    }
    printf("  across: peak excursion %.4f m (2 x0 = %.4f)\n", peak, 2.0 * x0);
    CHECK(peak <= 2.0 * x0 + 1e-5 && peak > 0.95 * 2.0 * x0); /* frames sample near u = 1/3 */
    CHECK(lo >= -1e-6);
}

/* The target moves (3 m/s along x), directly or inside a nested machine;
 * the source trails it at 1 m/s, a few cm behind. The offset's velocity is
 * then 1 - 3 = -2 m/s, moving away from zero along the offset (x0 < 0), and
 * the offset from the target alone (the same graph switching by a cut) is
 * the closed form x0 smooth5 + v bump with v = 2 m/s, whatever the nesting.
 * A target velocity sampled from clips (zero for a nested machine) would
 * make it -1 m/s heading back instead: Bollo's shortened curve. */
static void test_moving_target_nested(void) {
    const float pa[3] = {0.0f, 1.0f, 0.0f}, va[3] = {1.0f, 0.0f, 0.0f}, vb[3] = {3.0f, 0.0f, 0.0f};
    float ps[3];
    source_at_switch(va, ps);
    const float pb[3] = {ps[0] + 0.05f, ps[1], ps[2]};
    for (int nested = 0; nested < 2; nested++) {
        rig r;
        rig_make(&r, pa, va, pb, vb, nested);
        static float out[FRAMES][3], cut[FRAMES][3];
        play(&r, out, -1);
        play(&r, cut, STANCE_SWITCH_CUT); /* the target alone from the switch on */
        const double x0 = cut[FS][0] - out[FS][0]; /* offset -x0 along x */
        CHECK(x0 > 0.04 && x0 < 0.11 && fabs(out[FS][1] - cut[FS][1]) < 1e-6 && fabs(out[FS][2] - cut[FS][2]) < 1e-6);
        double worst = 0.0;
        for (int f = FS; f < FRAMES; f++) {
            double t = (f - FS) * (double)DT;
            double want = -(x0 * smooth5(t / T) + 2.0 * bump(t, T));
            worst = fmax(worst, fabs((out[f][0] - cut[f][0]) - want));
            worst = fmax(worst, fabs(out[f][1] - cut[f][1]) + fabs(out[f][2] - cut[f][2]));
        }
        const double v_before = (out[FS][0] - out[FS - 1][0]) / DT, v_after = (out[FS + 1][0] - out[FS][0]) / DT;
        /* the closed form's own first step: the source's 1 m/s less O(dt^2 / T^2) */
        const double v_form = (cut[FS + 1][0] - cut[FS][0]) / DT -
                              (x0 * smooth5(DT / T) + 2.0 * bump(DT, T) - x0) / DT;
        printf("  nested %d: offset vs closed form: worst %.2e m; velocity before %.3f, after %.3f m/s (closed form %.3f)\n",
               nested, worst, v_before, v_after, v_form);
        CHECK(worst < 2e-5);
        CHECK_NEAR(v_before, 1.0, 1e-3);
        CHECK_NEAR(v_after, v_form, 2e-3);
        CHECK_NEAR(v_after, 1.0, 0.06);
        rig_done(&r);
    }
}

/* Issue 15's goal on the lesson's script, built-in character: Bollo's
 * overshoot no larger than the per-component quintic's or crossfade's, and
 * its acceleration ratio no larger than the quintic's. */
static void test_lesson_goal_builtin(void) {
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    stance_graph *g = NULL;
    CHECK_OK(stance_builtin_lesson_graph(&b, NULL, &g, NULL));
    stance_scenario_result in, is, cf;
    CHECK_OK(stance_scenario_run(g, STANCE_SWITCH_INERTIALIZE, 0.25f, STANCE_EASE_SMOOTHSTEP, &in, NULL, NULL, NULL));
    CHECK_OK(stance_scenario_run(g, STANCE_SWITCH_INERTIALIZE_SIMPLE, 0.25f, STANCE_EASE_SMOOTHSTEP, &is, NULL, NULL, NULL));
    CHECK_OK(stance_scenario_run(g, STANCE_SWITCH_CROSSFADE, 0.25f, STANCE_EASE_SMOOTHSTEP, &cf, NULL, NULL, NULL));
    printf("  accel ratio: inertialize %.3f, simple %.3f, crossfade %.3f\n", (double)in.accel_ratio, (double)is.accel_ratio,
           (double)cf.accel_ratio);
    printf("  overshoot:   inertialize %.2f, simple %.2f, crossfade %.2f cm\n", (double)in.overshoot_cm, (double)is.overshoot_cm,
           (double)cf.overshoot_cm);
    CHECK(in.overshoot_cm <= is.overshoot_cm && in.overshoot_cm <= cf.overshoot_cm);
    CHECK(in.accel_ratio <= is.accel_ratio);
    stance_graph_destroy(g);
    stance_builtin_destroy(&b);
}

int main(void) {
    RUN(test_heading_back);
    RUN(test_moving_away);
    RUN(test_moving_across);
    RUN(test_moving_target_nested);
    RUN(test_lesson_goal_builtin);
    return check_summary();
}
