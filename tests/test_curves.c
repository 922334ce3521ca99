/* tests/test_curves.c - curves (issue 26 items 1 and 3): piecewise-linear
 * float tracks per clip, blended with the pose's weights, and the drives
 * that bind layer weights, IK weights, conditions and blend positions to
 * parameters and curves.
 *
 * Sampling: a looping clip played at rates 1, 0.7, -1.3 and 2.9 (loops and
 * backwards play), the value against the test's own evaluation (double,
 * keys written here) at the clip time the test computes from its own clock
 * (and at the position the instance reports). Crossfade: the value through
 * a switch against (1 - w) a + w b with w the test's own smoothstep and
 * linear easing of elapsed / blend time, outgoing and incoming clip times
 * from its own clock. A 1D blend space: its entries' weights computed by
 * the test. The refusals of the description and of the queries.
 * RobotExpressive (graphs/robot_curves.json): WaveWeight drives the wave
 * layer's weight (each update's weight = the curve where the last update
 * left the clips, its value checked against the file's keys read by the
 * test's own JSON reader), the curve-driven condition WaveDone >= 0.5 ends
 * the wave on the update the test predicts, and the graph goes JSON ->
 * compiled .stance -> instance with its keys and every per-frame value the
 * same bits. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stance/controller.h"
#include "real_files.h"
#include "graph_files.h"
#include "ws.h"
#include "stance/io.h"
#include "stance/build.h"

/* ---- the test's own evaluation ------------------------------------------------- */

/* Piecewise linear through (t, v) pairs, the end values held outside them. */
static double eval_keys(const float *k, int n, double t) {
    if (t <= k[0]) return k[1];
    for (int i = 0; i + 1 < n; i++)
        if (t <= k[2 * i + 2]) {
            const double t0 = k[2 * i], t1 = k[2 * i + 2];
            return k[2 * i + 1] + (k[2 * i + 3] - (double)k[2 * i + 1]) * (t - t0) / (t1 - t0);
        }
    return k[2 * n - 1];
}

/* t (any sign) into a loop of duration D: [0, D) */
static double wrap(double t, double D) {
    double r = fmod(t, D);
    return r < 0.0 ? r + D : r;
}

static double ease(int linear, double u) {
    u = u < 0.0 ? 0.0 : u > 1.0 ? 1.0 : u;
    return linear ? u : u * u * (3.0 - 2.0 * u);
}

/* ---- a two-joint rig, clips of 1 s, curves written here --------------------------- */

typedef struct rig {
    stance_skeleton *sk;
    stance_clip *a, *b;
    stance_graph *g;
} rig;

/* "c" on A and B, "d" on B only */
static const float keys_ca[8] = {0.0f, 0.0f, 0.25f, 1.0f, 0.6f, -0.5f, 1.0f, 0.3f};
static const float keys_cb[4] = {0.1f, 2.0f, 0.9f, 4.0f};
static const float keys_db[2] = {0.5f, 5.0f};

static stance_clip *make_clip(const stance_skeleton *sk, const char *name, float D) {
    const float times[2] = {0.0f, D};
    const float rot[8] = {0, 0, 0, 1, 0, 0.3826834f, 0, 0.9238795f};
    stance_track_desc tr = {1, STANCE_CHANNEL_ROTATION, 2, times, rot};
    stance_clip_desc d;
    memset(&d, 0, sizeof d);
    d.name = name, d.duration = D, d.track_count = 1, d.tracks = &tr;
    stance_clip *c = NULL;
    stance_error err;
    CHECK_OK(stance_clip_create(&d, sk, NULL, &c, &err));
    return c;
}

/* Machine M: A (clip A at speed param "rate"), B (clip B), Blend (A at x 0, B at x 1); machine W (layer "top",
 * weight driven by curve "d"): Wa (clip A); param "pd" follows curve "d". */
static stance_status make_graph(rig *r, const stance_curve_desc *curves, int nc, const stance_drive_desc *drives, int nd,
                                stance_graph **out, stance_error *err) {
    stance_param_desc params[3] = {{"rate", STANCE_PARAM_FLOAT, 1.0f, 0.0f}, {"x", STANCE_PARAM_FLOAT, 0.0f, 0.0f},
                                   {"pd", STANCE_PARAM_FLOAT, 0.0f, 0.0f}};
    stance_blend_entry_desc entries[2] = {{r->a, 0.0f, 0.0f}, {r->b, 1.0f, 0.0f}};
    stance_state_desc states[3], wst[1];
    memset(states, 0, sizeof states), memset(wst, 0, sizeof wst);
    states[0].name = "A", states[0].type = STANCE_MOTION_CLIP, states[0].clip = r->a, states[0].speed_param = "rate";
    states[1].name = "B", states[1].type = STANCE_MOTION_CLIP, states[1].clip = r->b;
    states[2].name = "Blend", states[2].type = STANCE_MOTION_BLEND1D, states[2].entry_count = 2, states[2].entries = entries;
    states[2].param_x = "x";
    wst[0].name = "Wa", wst[0].type = STANCE_MOTION_CLIP, wst[0].clip = r->a;
    stance_machine_desc machines[2];
    memset(machines, 0, sizeof machines);
    machines[0].name = "M", machines[0].state_count = 3, machines[0].states = states;
    machines[1].name = "W", machines[1].state_count = 1, machines[1].states = wst;
    stance_layer_desc layers[2];
    memset(layers, 0, sizeof layers);
    layers[0].name = "base", layers[0].machine = "M", layers[0].weight = 1.0f;
    layers[1].name = "top", layers[1].machine = "W", layers[1].weight = 0.5f;
    stance_graph_desc gd;
    memset(&gd, 0, sizeof gd);
    gd.skeleton = r->sk, gd.param_count = 3, gd.params = params, gd.machine_count = 2, gd.machines = machines;
    gd.layer_count = 2, gd.layers = layers;
    gd.curve_count = nc, gd.curves = curves, gd.drive_count = nd, gd.drives = drives;
    return stance_graph_create(&gd, NULL, out, err);
}

static void rig_make(rig *r) {
    const int parents[2] = {-1, 0};
    stance_skeleton_desc sd = {2, NULL, parents, NULL};
    stance_error err;
    CHECK_OK(stance_skeleton_create(&sd, NULL, &r->sk, &err));
    r->a = make_clip(r->sk, "A", 1.0f);
    r->b = make_clip(r->sk, "B", 1.0f);
    const stance_curve_desc cv[3] = {{r->a, "c", 4, keys_ca}, {r->b, "c", 2, keys_cb}, {r->b, "d", 1, keys_db}};
    const stance_drive_desc dr[2] = {{STANCE_DRIVE_LAYER_WEIGHT, "top", NULL, "d"}, {STANCE_DRIVE_PARAM, "pd", NULL, "d"}};
    r->g = NULL;
    CHECK_OK(make_graph(r, cv, 3, dr, 2, &r->g, &err));
    if (!r->g) fprintf(stderr, "graph: %s\n", err.message);
}

static void rig_free(rig *r) {
    stance_graph_destroy(r->g);
    stance_clip_destroy(r->a), stance_clip_destroy(r->b);
    stance_skeleton_destroy(r->sk);
}

static float curve(const stance_instance *inst, const char *name) {
    float v = NAN;
    stance_error err;
    CHECK_OK(stance_instance_curve_by_name(inst, name, &v, &err));
    return v;
}

/* ---- sampling: loops and negative rates ------------------------------------------ */

static void test_sampling(void) {
    rig r;
    rig_make(&r);
    if (!r.g) { rig_free(&r); return; }
    CHECK(stance_graph_curve_count(r.g) == 2 && stance_graph_find_curve(r.g, "c") == 0 && stance_graph_find_curve(r.g, "d") == 1);
    const float rates[4] = {1.0f, 0.7f, -1.3f, 2.9f};
    const double dt = 1.0 / 60.0;
    double worst = 0.0, worst_pos = 0.0;
    int samples = 0;
    for (int k = 0; k < 4; k++) {
        stance_instance *inst = NULL;
        stance_error err;
        CHECK_OK(stance_instance_create(r.g, NULL, &inst, &err));
        if (!inst) continue;
        CHECK_OK(stance_instance_set_layer_enabled(inst, 1, 0, &err)); /* the top layer's clip A would add */
        CHECK_OK(stance_instance_set_float_by_name(inst, "rate", rates[k], &err));
        CHECK_NEAR(curve(inst, "c"), keys_ca[1], 0.0);
        CHECK(curve(inst, "d") == 0.0f); /* no playing clip has it */
        for (int f = 1; f <= 300; f++) {
            CHECK_OK(stance_instance_update(inst, (float)dt, TEST_WS_INST(inst), &err));
            const double t = wrap((double)rates[k] * (float)dt * f, 1.0); /* the test's clock */
            stance_machine_status ms;
            CHECK_OK(stance_instance_machine_status(inst, 0, &ms, &err));
            const double pos = ms.normalized_time - floor(ms.normalized_time);
            double dp = fabs(pos - t);
            if (dp > 0.5) dp = 1.0 - dp; /* across the loop's seam */
            if (dp > worst_pos) worst_pos = dp;
            const double v = curve(inst, "c");
            const double want = eval_keys(keys_ca, 4, pos), want_clock = eval_keys(keys_ca, 4, t);
            CHECK_NEAR(v, want, 1e-5);
            /* the clock's time, away from the seam (where a hair either side is the other end of the curve) */
            if (fabs(pos - t) < 1e-4 && fabs(v - want_clock) > worst) worst = fabs(v - want_clock);
            samples++;
        }
        stance_instance_destroy(inst);
    }
    printf("     %d samples at rates 1, 0.7, -1.3, 2.9: position within %.2g s of the test's clock, value within %.2g of "
           "its own evaluation there\n", samples, worst_pos, worst);
    CHECK(worst_pos < 1e-4);
    CHECK(worst < 1e-3);
    rig_free(&r);
}

/* ---- a crossfade and a blend space ---------------------------------------------------- */

static void test_crossfade(void) {
    rig r;
    rig_make(&r);
    if (!r.g) { rig_free(&r); return; }
    const double dt = 1.0 / 60.0;
    int frames = 0;
    double worst = 0.0;
    for (int linear = 0; linear < 2; linear++) {
        stance_instance *inst = NULL;
        stance_error err;
        CHECK_OK(stance_instance_create(r.g, NULL, &inst, &err));
        if (!inst) continue;
        CHECK_OK(stance_instance_set_layer_enabled(inst, 1, 0, &err));
        const int before = 21; /* A plays 21 frames, then B over 0.5 s */
        for (int f = 0; f < before; f++) CHECK_OK(stance_instance_update(inst, (float)dt, TEST_WS_INST(inst), &err));
        CHECK_OK(stance_instance_play(inst, stance_graph_find_state(r.g, "B"), STANCE_SWITCH_CROSSFADE,
                                      linear ? STANCE_EASE_LINEAR : STANCE_EASE_SMOOTHSTEP, 0.5f, &err));
        for (int k = 1; k <= 45; k++) {
            CHECK_OK(stance_instance_update(inst, (float)dt, TEST_WS_INST(inst), &err));
            const double ta = wrap((float)dt * (double)(before + k), 1.0), tb = wrap((float)dt * (double)k, 1.0);
            const double w = k * dt >= 0.5 - 1e-9 ? 1.0 : ease(linear, (float)dt * (double)k / 0.5);
            const double want = (1.0 - w) * eval_keys(keys_ca, 4, ta) + w * eval_keys(keys_cb, 2, tb);
            const double v = curve(inst, "c");
            if (fabs(v - want) > worst) worst = fabs(v - want);
            CHECK_NEAR(v, want, 1e-4);
            /* "d" is B's alone: it fades in with B (0 while no playing clip has it) */
            CHECK_NEAR(curve(inst, "d"), w * keys_db[1], 1e-4);
            frames++;
        }
        stance_instance_destroy(inst);
    }
    printf("     crossfade A -> B (smoothstep, linear): %d frames within %.2g of (1 - w) a + w b\n", frames, worst);
    CHECK(frames == 90);

    /* a 1D blend space at x = 0.3: A at 0.7, B at 0.3, both at the phase (durations 1 s) */
    stance_instance *inst = NULL;
    stance_error err;
    CHECK_OK(stance_instance_create(r.g, NULL, &inst, &err));
    if (inst) {
        CHECK_OK(stance_instance_set_layer_enabled(inst, 1, 0, &err));
        CHECK_OK(stance_instance_set_float_by_name(inst, "x", 0.3f, &err));
        CHECK_OK(stance_instance_play(inst, stance_graph_find_state(r.g, "Blend"), STANCE_SWITCH_CUT, STANCE_EASE_LINEAR, 0.0f, &err));
        for (int f = 1; f <= 80; f++) {
            CHECK_OK(stance_instance_update(inst, (float)dt, TEST_WS_INST(inst), &err));
            stance_machine_status ms;
            CHECK_OK(stance_instance_machine_status(inst, 0, &ms, &err));
            const double ph = ms.normalized_time - floor(ms.normalized_time);
            const double u = (0.3f - 0.0) / (1.0 - 0.0);
            CHECK_NEAR(curve(inst, "c"), (1.0 - u) * eval_keys(keys_ca, 4, ph) + u * eval_keys(keys_cb, 2, ph), 1e-5);
            CHECK_NEAR(curve(inst, "d"), u * keys_db[1], 1e-5);
        }
        /* the top layer's clip A adds its "c" (layers add; its weight does not scale it) */
        const double base = curve(inst, "c");
        CHECK_OK(stance_instance_set_layer_enabled(inst, 1, 1, &err));
        CHECK_OK(stance_instance_update(inst, 0.0f, TEST_WS_INST(inst), &err));
        stance_machine_status ms, mw;
        CHECK_OK(stance_instance_machine_status(inst, 0, &ms, &err));
        CHECK_OK(stance_instance_machine_status(inst, 1, &mw, &err));
        const double ph = ms.normalized_time - floor(ms.normalized_time), ta = mw.normalized_time - floor(mw.normalized_time);
        CHECK_NEAR(base, 0.7 * eval_keys(keys_ca, 4, ph) + 0.3 * eval_keys(keys_cb, 2, ph), 1e-5);
        CHECK_NEAR(curve(inst, "c"), base + eval_keys(keys_ca, 4, ta), 1e-5);
        /* the drives: "top" and "pd" follow "d" (0.3 x 5 = 1.5: the weight clamped to 1) */
        CHECK_NEAR(stance_instance_layer_weight(inst, 1), 1.0, 0.0);
        CHECK_NEAR(stance_instance_param(inst, stance_graph_find_param(r.g, "pd")), 0.3f * 5.0f, 1e-5);
        stance_instance_destroy(inst);
    }
    rig_free(&r);
}

/* ---- refusals -------------------------------------------------------------------------- */

static void test_refusals(void) {
    rig r;
    rig_make(&r);
    if (!r.g) { rig_free(&r); return; }
    stance_error err;
    stance_graph *g = NULL;
    const float back[4] = {0.5f, 0.0f, 0.4f, 1.0f}, past[2] = {1.5f, 0.0f}, nan_v[2] = {0.0f, NAN};
    const stance_curve_desc bad_order = {r.a, "c", 2, back}, bad_past = {r.a, "c", 1, past}, bad_nan = {r.a, "c", 1, nan_v};
    CHECK_STATUS(make_graph(&r, &bad_order, 1, NULL, 0, &g, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "times must increase") != NULL);
    CHECK_STATUS(make_graph(&r, &bad_past, 1, NULL, 0, &g, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "outside the clip") != NULL);
    CHECK_STATUS(make_graph(&r, &bad_nan, 1, NULL, 0, &g, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "not finite") != NULL);
    const stance_curve_desc ok = {r.a, "c", 4, keys_ca};
    const stance_drive_desc unknown = {STANCE_DRIVE_LAYER_WEIGHT, "top", NULL, "cc"};
    CHECK_STATUS(make_graph(&r, &ok, 1, &unknown, 1, &g, &err), STANCE_ERR_NOT_FOUND);
    CHECK(strstr(err.message, "did you mean 'c'") != NULL);
    const stance_drive_desc base = {STANCE_DRIVE_LAYER_WEIGHT, "base", "x", NULL};
    CHECK_STATUS(make_graph(&r, &ok, 1, &base, 1, &g, &err), STANCE_ERR_VALUE);
    const stance_drive_desc both = {STANCE_DRIVE_LAYER_WEIGHT, "top", "x", "c"};
    CHECK_STATUS(make_graph(&r, &ok, 1, &both, 1, &g, &err), STANCE_ERR_ARGUMENT);
    const stance_drive_desc damped = {STANCE_DRIVE_PARAM, "rate", "x", NULL}; /* a parameter follows curves only */
    CHECK_STATUS(make_graph(&r, &ok, 1, &damped, 1, &g, &err), STANCE_ERR_VALUE);
    CHECK(g == NULL);
    stance_instance *inst = NULL;
    CHECK_OK(stance_instance_create(r.g, NULL, &inst, &err));
    float v = 7.0f;
    CHECK_STATUS(stance_instance_curve(inst, 2, &v, &err), STANCE_ERR_NOT_FOUND);
    CHECK(v == 0.0f);
    CHECK_STATUS(stance_instance_curve(inst, 0, NULL, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_instance_curve(NULL, 0, &v, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_instance_curve_by_name(inst, "dd", &v, &err), STANCE_ERR_NOT_FOUND);
    CHECK(strstr(err.message, "did you mean 'd'") != NULL);
    CHECK(!strcmp(stance_graph_closest_curve(r.g, "cx"), "c") && stance_graph_curve_name(r.g, 5) == NULL);
    stance_clip_curve cc[4];
    CHECK(stance_graph_clip_curves(r.g, r.b, cc, 4) == 2 && cc[0].curve == 0 && cc[1].curve == 1 && cc[1].keys[1] == 5.0f);
    stance_instance_destroy(inst);
    rig_free(&r);
}

/* ---- RobotExpressive: a curve drives the wave layer; JSON -> compiled -> instance -------- */

static const jv *file_keys(const jv *doc, const char *clip, const char *name) {
    const jv *c = jget(jget(doc, "clips"), clip);
    return jget(jget(c, "curves"), name);
}

/* the file's keys as the floats the graph keeps */
static int keys_of(const jv *k, float *out, int cap) {
    int n = 0;
    for (int i = 0; i < jlen(k) && i < cap; i++, n++)
        out[2 * i] = (float)jnum(jat(jat(k, i), 0), NAN), out[2 * i + 1] = (float)jnum(jat(jat(k, i), 1), NAN);
    return n;
}

static void test_robot(void) {
    robot_round_trip rt;
    if (!robot_round_trip_open(&rt, "robot_curves")) return;
    const jv doc = rt.doc;
    const stance_asset *a = rt.asset, loaded = rt.loaded;
    const stance_graph *gj = rt.graph, *gc = rt.loaded.graph;
    stance_error err;
    /* keys: the file's, in both forms, bit for bit */
    const char *const clips[3] = {"Wave", "Walking", "Running"};
    int tracks = 0;
    for (int k = 0; gc && k < 3; k++) {
        const stance_clip *cj = stance_asset_find_clip(a, clips[k]), *cc = stance_asset_find_clip(&loaded, clips[k]);
        stance_clip_curve tj[8], tc[8];
        const int nj = stance_graph_clip_curves(gj, cj, tj, 8), nc = stance_graph_clip_curves(gc, cc, tc, 8);
        CHECK(nj == nc && nj >= 1);
        for (int i = 0; i < nj && i < nc && i < 8; i++) {
            const char *name = stance_graph_curve_name(gj, tj[i].curve);
            CHECK(!strcmp(name, stance_graph_curve_name(gc, tc[i].curve)));
            float want[64];
            const int n = keys_of(file_keys(&doc, clips[k], name), want, 32);
            CHECK(n == tj[i].key_count && n == tc[i].key_count);
            if (n == tj[i].key_count && n == tc[i].key_count)
                CHECK(!memcmp(tj[i].keys, want, sizeof(float) * 2 * (size_t)n) && !memcmp(tc[i].keys, want, sizeof(float) * 2 * (size_t)n));
            tracks++;
        }
    }
    CHECK(tracks == 5);
    float wave[16];
    const int nw = keys_of(file_keys(&doc, "Wave", "WaveWeight"), wave, 8);
    const stance_clip *wclip = stance_asset_find_clip(a, "Wave");
    /* both graphs waving: the same bits every frame; the layer's weight is the curve where the last update left it */
    stance_instance *ij = NULL, *ic = NULL;
    CHECK_OK(stance_instance_create(gj, NULL, &ij, &err));
    if (gc) CHECK_OK(stance_instance_create(gc, NULL, &ic, &err));
    const int layer = stance_graph_find_layer(gj, "wave"), wm = stance_graph_find_machine(gj, "Waving");
    const int wave_state = stance_graph_find_state(gj, "Waving/Wave"), rest = stance_graph_find_state(gj, "Waving/Rest");
    const int cw = stance_graph_find_curve(gj, "WaveWeight"), cd = stance_graph_find_curve(gj, "WaveDone");
    int same = 1, frames = 0, ended = -1, predicted = -1, up = 0;
    double worst = 0.0;
    if (ij && ic && layer >= 1 && cw >= 0 && cd >= 0) {
        CHECK(stance_instance_layer_weight(ij, layer) == 0.0f); /* Rest plays Idle: no WaveWeight */
        const float dt = 1.0f / 60.0f;
        stance_instance *both[2] = {ij, ic};
        for (int i = 0; i < 2; i++) CHECK_OK(stance_instance_set_trigger_by_name(both[i], "wave", &err));
        float prev = 0.0f, prev_done = 0.0f;
        for (int f = 1; f <= 150 && ended < 0; f++) {
            float v[2] = {0, 0}, d[2] = {0, 0}, lw[2];
            for (int i = 0; i < 2; i++) {
                CHECK_OK(stance_instance_update(both[i], dt, TEST_WS_INST(both[i]), &err));
                lw[i] = stance_instance_layer_weight(both[i], layer);
                CHECK_OK(stance_instance_curve(both[i], cw, &v[i], &err));
                CHECK_OK(stance_instance_curve(both[i], cd, &d[i], &err));
            }
            same &= !memcmp(v, v + 1, sizeof v[0]) && !memcmp(d, d + 1, sizeof d[0]) && !memcmp(lw, lw + 1, sizeof lw[0]);
            CHECK(lw[0] == (prev < 0.0f ? 0.0f : prev > 1.0f ? 1.0f : prev));
            up |= lw[0] == 1.0f;
            if (predicted < 0 && prev_done >= 0.5f) predicted = f; /* WaveDone >= 0.5 at the update's start */
            stance_machine_status ms;
            CHECK_OK(stance_instance_machine_status(ij, wm, &ms, &err));
            if (ms.state == rest && ended < 0 && f > 2) ended = f;
            if (ms.state == wave_state && ms.transition < 0) { /* Wave alone: its clip time from the status */
                const double t = (ms.normalized_time - floor(ms.normalized_time)) * wclip->duration;
                const double want = eval_keys(wave, nw, t);
                if (fabs(v[0] - want) > worst) worst = fabs(v[0] - want);
                CHECK_NEAR(v[0], want, 1e-4);
            }
            prev = v[0], prev_done = d[0];
            frames++;
        }
    }
    printf("     robot wave: %d frames, compiled and JSON graphs the same bits: %s; WaveWeight within %.2g of the file's "
           "keys; the wave ends on update %d (predicted %d)\n", frames, same ? "yes" : "no", worst, ended, predicted);
    CHECK(same && frames > 60 && up);
    CHECK(ended > 0 && ended == predicted);
    stance_instance_destroy(ij), stance_instance_destroy(ic);
    robot_round_trip_close(&rt);
}

/* Issue 26: a bound layer's weight is its binding's. set_layer_weight on it
 * is refused with what to do instead (nothing changes); the controller
 * turns it on and off: set() of a state on it enables it and its weight is
 * the curve's, reset() disables it (it counts nothing while off). */
static void test_bound_layer(void) {
    robot_round_trip rt;
    if (!robot_round_trip_open(&rt, "robot_curves")) return;
    const stance_graph *g = rt.graph;
    stance_error err;
    const int layer = stance_graph_find_layer(g, "wave"), wave = stance_graph_find_state(g, "Waving/Wave");
    const int cw = stance_graph_find_curve(g, "WaveWeight");
    stance_controller *ctl = NULL;
    CHECK_OK(stance_controller_create(g, NULL, NULL, &ctl, &err));
    stance_instance *inst = ctl ? stance_controller_instance(ctl) : NULL;
    if (inst && layer > 0 && wave >= 0 && cw >= 0) {
        const float before = stance_instance_layer_weight(inst, layer), target = stance_instance_layer_target(inst, layer);
        CHECK(stance_instance_set_layer_weight(inst, layer, 0.5f, 0.2f, &err) == STANCE_ERR_ARGUMENT);
        printf("     %s\n", err.message);
        CHECK(strstr(err.message, "layer 'wave' is bound to curve 'WaveWeight' in the graph") != NULL);
        CHECK(stance_instance_layer_weight(inst, layer) == before && stance_instance_layer_target(inst, layer) == target);
        CHECK(!stance_instance_layer_enabled(inst, layer)); /* weight 0 at creation: the controller starts it empty */
        CHECK_OK(stance_controller_set(ctl, wave, &err));
        CHECK(stance_instance_layer_enabled(inst, layer));
        int on = 0, agree = 1;
        float prev = 0.0f; /* the curve where the update before left it: what the next one sets the weight to */
        CHECK_OK(stance_instance_curve(inst, cw, &prev, &err));
        for (int f = 0; f < 30; f++) {
            float v = 0.0f;
            CHECK_OK(stance_controller_update(ctl, 1.0f / 60.0f, TEST_WS_INST(inst), &err));
            CHECK_OK(stance_instance_curve(inst, cw, &v, &err));
            const float lw = stance_instance_layer_weight(inst, layer);
            on |= lw > 0.0f;
            agree &= lw == (prev < 0.0f ? 0.0f : prev > 1.0f ? 1.0f : prev);
            prev = v;
        }
        CHECK(on && agree);
        CHECK_OK(stance_controller_reset(ctl, wave, &err));
        CHECK(!stance_instance_layer_enabled(inst, layer));
        float v = 1.0f;
        CHECK_OK(stance_controller_update(ctl, 1.0f / 60.0f, TEST_WS_INST(inst), &err));
        CHECK_OK(stance_instance_curve(inst, cw, &v, &err));
        CHECK(v == 0.0f); /* a disabled layer's clips count nothing */
    }
    stance_controller_destroy(ctl);
    robot_round_trip_close(&rt);
}

int main(void) {
    RUN(test_sampling);
    RUN(test_crossfade);
    RUN(test_refusals);
    RUN(test_robot);
    RUN(test_bound_layer);
    return check_summary();
}
