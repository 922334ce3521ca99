/* tests/test_builtin.c - the built-in character: skeleton layout and rest
 * pose, every clip present and well formed, seamless loops, planted feet in
 * walk and run (the lesson's sliding measure, on and off the key grid), gait
 * phases, events, jump height, additive references, the wave and the run's
 * lean, lookup, and allocation failure without leaks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stance/stance.h"
#include "stance_lesson/stance_lesson.h"
#include "core/base/platform.h" /* st_aligned_alloc / st_aligned_free */

#define PI_D 3.14159265358979323846

static stance_builtin g_b; /* created once in main, read-only afterwards */

/* ---- helpers ------------------------------------------------------------ */

typedef struct sampler {
    stance_pose local, model;
    stance_cursor cursor;
} sampler;

static void sampler_init(sampler *s) {
    memset(s, 0, sizeof *s);
    CHECK_OK(stance_pose_create(&s->local, g_b.skeleton->joint_count, NULL, NULL));
    CHECK_OK(stance_pose_create(&s->model, g_b.skeleton->joint_count, NULL, NULL));
}

static void sampler_free(sampler *s) {
    stance_pose_destroy(&s->local);
    stance_pose_destroy(&s->model);
}

/* Samples `clip` at `time` (no cursor) into s->local and s->model. */
static void sample_at(sampler *s, const stance_clip *clip, float time) {
    CHECK_OK(stance_clip_sample(clip, time, NULL, &s->local, NULL));
    CHECK_OK(stance_local_to_model(&s->model, &s->local, g_b.skeleton, NULL, NULL));
}

static int joint(const char *name) {
    int j = stance_skeleton_find(g_b.skeleton, name);
    if (j < 0) fprintf(stderr, "joint %s not found\n", name);
    CHECK(j >= 0);
    return j < 0 ? 0 : j;
}

static const stance_clip *clip(const char *name) {
    const stance_clip *c = stance_builtin_clip(&g_b, name);
    if (!c) fprintf(stderr, "clip %s not found\n", name);
    CHECK(c != NULL);
    return c;
}

static double mpos(const sampler *s, int j, int axis) {
    const float *a[3] = {s->model.tx, s->model.ty, s->model.tz};
    return a[axis][j];
}

/* Largest difference over every local channel of two poses; rotations are
 * compared up to sign. */
static double local_diff(const stance_pose *a, const stance_pose *b) {
    double worst = 0.0;
    for (int j = 0; j < a->joint_count; j++) {
        const float *ca[] = {a->tx, a->ty, a->tz, a->sx, a->sy, a->sz};
        const float *cb[] = {b->tx, b->ty, b->tz, b->sx, b->sy, b->sz};
        for (int k = 0; k < 6; k++) worst = fmax(worst, fabs((double)ca[k][j] - cb[k][j]));
        double dot = (double)a->qx[j] * b->qx[j] + (double)a->qy[j] * b->qy[j] +
                     (double)a->qz[j] * b->qz[j] + (double)a->qw[j] * b->qw[j];
        double sgn = dot < 0.0 ? -1.0 : 1.0;
        worst = fmax(worst, fabs(a->qx[j] - sgn * b->qx[j]));
        worst = fmax(worst, fabs(a->qy[j] - sgn * b->qy[j]));
        worst = fmax(worst, fabs(a->qz[j] - sgn * b->qz[j]));
        worst = fmax(worst, fabs(a->qw[j] - sgn * b->qw[j]));
    }
    return worst;
}

/* ---- skeleton ----------------------------------------------------------- */

static const char *const k_names[] = {
    "root", "hips", "spine", "spine1", "chest", "neck", "head",
    "shoulder_l", "upperarm_l", "forearm_l", "hand_l",
    "shoulder_r", "upperarm_r", "forearm_r", "hand_r",
    "upleg_l", "leg_l", "foot_l", "toe_l", "upleg_r", "leg_r", "foot_r", "toe_r",
};

static void test_skeleton_layout(void) {
    const stance_skeleton *sk = g_b.skeleton;
    CHECK(sk != NULL);
    if (!sk) return;
    CHECK(sk->joint_count >= 20 && sk->joint_count <= 30);
    const int n_names = (int)(sizeof k_names / sizeof k_names[0]);
    for (int i = 0; i < n_names; i++) CHECK(stance_skeleton_find(sk, k_names[i]) >= 0);
    CHECK(stance_skeleton_find(sk, "tail") == -1);
    CHECK(sk->parents[0] == -1);
    for (int j = 1; j < sk->joint_count; j++) CHECK(sk->parents[j] >= 0 && sk->parents[j] < j);
    /* the chains hang where they should */
    CHECK(sk->parents[joint("hips")] == joint("root"));
    CHECK(sk->parents[joint("foot_l")] == joint("leg_l"));
    CHECK(sk->parents[joint("toe_r")] == joint("foot_r"));
    CHECK(sk->parents[joint("hand_r")] == joint("forearm_r"));
    CHECK(stance_skeleton_is_descendant(sk, joint("hand_l"), joint("chest")));
    CHECK(!stance_skeleton_is_descendant(sk, joint("hand_l"), joint("shoulder_r")));
    for (int j = 0; j < sk->joint_count; j++) {
        const float *r = sk->rest[j].r;
        CHECK_NEAR(r[3], 1.0, 1e-6); /* identity rest rotations */
    }
}

static void test_rest_pose(void) {
    sampler s;
    sampler_init(&s);
    CHECK_OK(stance_pose_set_rest(&s.local, g_b.skeleton, NULL));
    CHECK_OK(stance_local_to_model(&s.model, &s.local, g_b.skeleton, NULL, NULL));
    CHECK_NEAR(mpos(&s, joint("root"), 1), 0.0, 1e-6);
    CHECK(mpos(&s, joint("hips"), 1) > 0.85 && mpos(&s, joint("hips"), 1) < 1.1);
    CHECK_NEAR(mpos(&s, joint("foot_l"), 1), 0.08, 0.005); /* ankles 8 cm up */
    CHECK_NEAR(mpos(&s, joint("foot_r"), 1), 0.08, 0.005);
    CHECK_NEAR(mpos(&s, joint("toe_l"), 1), 0.0, 0.005); /* toes on the ground */
    CHECK_NEAR(mpos(&s, joint("toe_r"), 1), 0.0, 0.005);
    CHECK(mpos(&s, joint("toe_l"), 2) > mpos(&s, joint("foot_l"), 2) + 0.05); /* forward */
    /* legs straight down, thigh and shin 0.45 */
    CHECK_NEAR(mpos(&s, joint("upleg_l"), 1) - mpos(&s, joint("leg_l"), 1), 0.45, 1e-4);
    CHECK_NEAR(mpos(&s, joint("leg_l"), 1) - mpos(&s, joint("foot_l"), 1), 0.45, 1e-4);
    CHECK_NEAR(mpos(&s, joint("upleg_l"), 0), mpos(&s, joint("foot_l"), 0), 1e-6);
    /* left on +X, right on -X, arms straight out along X at one height */
    CHECK(mpos(&s, joint("upleg_l"), 0) > 0.05 && mpos(&s, joint("upleg_r"), 0) < -0.05);
    CHECK(mpos(&s, joint("hand_l"), 0) > 0.6 && mpos(&s, joint("hand_r"), 0) < -0.6);
    CHECK_NEAR(mpos(&s, joint("hand_l"), 1), mpos(&s, joint("upperarm_l"), 1), 1e-6);
    CHECK_NEAR(mpos(&s, joint("hand_r"), 2), 0.0, 1e-6);
    CHECK(mpos(&s, joint("head"), 1) > mpos(&s, joint("chest"), 1));
    sampler_free(&s);
}

/* ---- clips -------------------------------------------------------------- */

static void test_clips_present(void) {
    static const char *const names[] = {"idle", "walk", "run", "jump", "wave", "lean", "breathe"};
    CHECK(g_b.clip_count == STANCE_BUILTIN_CLIPS);
    for (int i = 0; i < 7; i++) {
        const stance_clip *c = clip(names[i]);
        if (!c) continue;
        CHECK(strcmp(c->name, names[i]) == 0);
        CHECK(c->joint_count == g_b.skeleton->joint_count);
        CHECK(c->key_count >= 30);
        CHECK(c->key_rate >= 30.0f);
        /* every joint keyed for rotation, the hips for translation */
        for (int j = 0; j < c->joint_count; j++) CHECK(c->animated[j] & 2);
        CHECK(c->animated[joint("hips")] & 1);
    }
    const stance_clip *idle = clip("idle"), *walk = clip("walk"), *run = clip("run");
    const stance_clip *jump = clip("jump"), *wave = clip("wave"), *lean = clip("lean");
    const stance_clip *breathe = clip("breathe");
    if (!idle || !walk || !run || !jump || !wave || !lean || !breathe) return;
    CHECK(idle->duration >= 2.0f && idle->duration <= 4.0f);
    CHECK(walk->duration >= 0.85f && walk->duration <= 1.05f);
    CHECK(run->duration >= 0.6f && run->duration <= 0.8f);
    CHECK(jump->duration >= 1.0f && jump->duration <= 1.5f);
    CHECK(wave->duration >= 1.2f && wave->duration <= 2.5f);
    CHECK(lean->duration >= 0.5f && lean->duration <= 1.5f);
    CHECK(breathe->duration >= 2.0f && breathe->duration <= 4.0f);
    CHECK_NEAR(walk->root_speed, 1.5, 1e-5);
    CHECK_NEAR(run->root_speed, 4.0, 1e-5);
    CHECK_NEAR(idle->root_speed, 0.0, 1e-6);
    CHECK_NEAR(jump->root_speed, 0.0, 1e-6);
    CHECK_NEAR(wave->root_speed, 0.0, 1e-6);
    /* walk and run are in place with a root path along +Z */
    const stance_clip *movers[2] = {walk, run};
    sampler s;
    sampler_init(&s);
    for (int i = 0; i < 2; i++) {
        const stance_clip *c = movers[i];
        CHECK(c->root_key_count >= 2);
        float p[3];
        CHECK_OK(stance_clip_root_position(c, c->duration * 0.5f, p, NULL));
        CHECK_NEAR(p[0], 0.0, 1e-6);
        CHECK_NEAR(p[2], c->root_speed * c->duration * 0.5, 1e-4);
        for (int k = 0; k <= 10; k++) {
            sample_at(&s, c, c->duration * (float)k / 10.0f);
            CHECK_NEAR(mpos(&s, 0, 0), 0.0, 1e-6);
            CHECK_NEAR(mpos(&s, 0, 2), 0.0, 1e-6);
            CHECK(fabs(mpos(&s, joint("hips"), 2)) < 0.05);
        }
    }
    sampler_free(&s);
}

static void test_loops_seamless(void) {
    static const char *const loops[] = {"idle", "walk", "run", "wave", "breathe"};
    sampler a, b;
    sampler_init(&a);
    sampler_init(&b);
    for (int i = 0; i < 5; i++) {
        const stance_clip *c = clip(loops[i]);
        if (!c) continue;
        CHECK_OK(stance_clip_sample(c, 0.0f, NULL, &a.local, NULL));
        CHECK_OK(stance_clip_sample(c, c->duration, NULL, &b.local, NULL));
        double d = local_diff(&a.local, &b.local);
        if (!(d <= 1e-4)) fprintf(stderr, "%s: start/end differ by %g\n", loops[i], d);
        CHECK(d <= 1e-4);
        /* and no pop anywhere, the wrap included: over one cycle at ~60 Hz,
         * no frame-to-frame step (largest joint distance in model space) is
         * much larger than both of its neighbours */
        enum { MAXN = 512 };
        float step[MAXN], dist;
        int n = (int)lroundf(c->duration * 60.0f);
        CHECK(n >= 3 && n <= MAXN);
        if (n < 3 || n > MAXN) continue;
        for (int k = 0; k < n; k++) {
            sample_at(&a, c, c->duration * (float)k / (float)n);
            sample_at(&b, c, c->duration * (float)(k + 1) / (float)n);
            CHECK_OK(stance_pose_distance(&a.model, &b.model, &dist, NULL, NULL));
            step[k] = dist;
        }
        for (int k = 0; k < n; k++) {
            float prev = step[(k + n - 1) % n], next = step[(k + 1) % n];
            float limit = 2.0f * (prev > next ? prev : next) + 2e-4f;
            if (step[k] > limit)
                fprintf(stderr, "%s: step %d of %d is %g m, neighbours %g, %g\n", loops[i], k, n,
                        (double)step[k], (double)prev, (double)next);
            CHECK(step[k] <= limit);
        }
    }
    sampler_free(&a);
    sampler_free(&b);
}

static void test_rotations_unit(void) {
    sampler s;
    sampler_init(&s);
    for (int i = 0; i < g_b.clip_count; i++) {
        const stance_clip *c = g_b.clips[i];
        /* at every key and half way between keys */
        for (int k = 0; k < 2 * c->key_count - 1; k++) {
            float t = k % 2 == 0 ? c->times[k / 2]
                                 : 0.5f * (c->times[k / 2] + c->times[k / 2 + 1]);
            CHECK_OK(stance_clip_sample(c, t, NULL, &s.local, NULL));
            for (int j = 0; j < c->joint_count; j++) {
                double n = sqrt((double)s.local.qx[j] * s.local.qx[j] +
                                (double)s.local.qy[j] * s.local.qy[j] +
                                (double)s.local.qz[j] * s.local.qz[j] +
                                (double)s.local.qw[j] * s.local.qw[j]);
                if (fabs(n - 1.0) > 1e-4) {
                    fprintf(stderr, "%s joint %d t %g: |q| = %g\n", c->name, j, (double)t, n);
                    CHECK(0);
                    k = 2 * c->key_count; /* one message per clip */
                    break;
                }
            }
        }
        /* the stored keys too */
        for (int k = 0; k < c->r_keys; k++)
            for (int j = 0; j < c->joint_count; j++) {
                const float *r = c->r + (size_t)k * 4 * c->padded_count;
                int pc = c->padded_count;
                double n = sqrt((double)r[j] * r[j] + (double)r[pc + j] * r[pc + j] +
                                (double)r[2 * pc + j] * r[2 * pc + j] +
                                (double)r[3 * pc + j] * r[3 * pc + j]);
                CHECK(fabs(n - 1.0) <= 1e-4);
            }
    }
    sampler_free(&s);
}

/* ---- feet --------------------------------------------------------------- */

typedef struct foot_run {
    double sliding_cm_per_m;
    int frames, any_planted_all, neither_frames, both_frames, single_frames;
    double min_ankle, min_toe;
} foot_run;

/* The lesson's sliding measure on a clip played in place with its root
 * advancing at root_speed along +Z: `seconds` at `rate` Hz. A foot is planted
 * on a frame when its height is within 2 cm of its lowest height over the
 * run; each frame, a foot planted on that frame or the one before adds the
 * horizontal world distance it moved. */
static foot_run measure_feet(const stance_clip *c, double rate, double seconds) {
    foot_run r;
    memset(&r, 0, sizeof r);
    const int frames = (int)(seconds * rate) + 1;
    const int feet[2] = {joint("foot_l"), joint("foot_r")};
    const int toes[2] = {joint("toe_l"), joint("toe_r")};
    double *wx = malloc(sizeof(double) * (size_t)frames * 2);
    double *wy = malloc(sizeof(double) * (size_t)frames * 2);
    double *wz = malloc(sizeof(double) * (size_t)frames * 2);
    CHECK(wx && wy && wz);
    if (!wx || !wy || !wz) {
        free(wx); free(wy); free(wz);
        return r;
    }
    sampler s;
    sampler_init(&s);
    r.min_ankle = r.min_toe = 1e9;
    double low[2] = {1e9, 1e9};
    for (int i = 0; i < frames; i++) {
        double t = (double)i / rate;
        float ct = (float)fmod(t, (double)c->duration);
        CHECK_OK(stance_clip_sample(c, ct, &s.cursor, &s.local, NULL));
        CHECK_OK(stance_local_to_model(&s.model, &s.local, g_b.skeleton, NULL, NULL));
        for (int f = 0; f < 2; f++) {
            wx[i * 2 + f] = s.model.tx[feet[f]];
            wy[i * 2 + f] = s.model.ty[feet[f]];
            wz[i * 2 + f] = s.model.tz[feet[f]] + (double)c->root_speed * t;
            low[f] = fmin(low[f], wy[i * 2 + f]);
            r.min_ankle = fmin(r.min_ankle, s.model.ty[feet[f]]);
            r.min_toe = fmin(r.min_toe, s.model.ty[toes[f]]);
        }
    }
    double slide = 0.0;
    r.any_planted_all = 1;
    for (int i = 0; i < frames; i++) {
        int planted[2];
        for (int f = 0; f < 2; f++) {
            planted[f] = wy[i * 2 + f] <= low[f] + 0.02;
            if (i > 0 && (planted[f] || wy[(i - 1) * 2 + f] <= low[f] + 0.02)) {
                double dx = wx[i * 2 + f] - wx[(i - 1) * 2 + f];
                double dz = wz[i * 2 + f] - wz[(i - 1) * 2 + f];
                slide += sqrt(dx * dx + dz * dz);
            }
        }
        int n = planted[0] + planted[1];
        if (n == 0) { r.any_planted_all = 0; r.neither_frames++; }
        if (n == 1) r.single_frames++;
        if (n == 2) r.both_frames++;
    }
    double metres = (double)c->root_speed * (double)(frames - 1) / rate;
    r.sliding_cm_per_m = metres > 0.0 ? 100.0 * slide / metres : 0.0;
    r.frames = frames;
    sampler_free(&s);
    free(wx); free(wy); free(wz);
    return r;
}

static void check_gait(const char *name, int is_run) {
    const stance_clip *c = clip(name);
    if (!c) return;
    static const double rates[] = {60.0, 47.0, 33.0, 97.3, 240.0};
    for (int k = 0; k < 5; k++) {
        foot_run r = measure_feet(c, rates[k], 6.0 * c->duration + 0.37);
        printf("  %s at %g Hz: foot sliding %.4f cm/m; frames %d: both planted %d, one %d, "
               "neither %d; lowest ankle %.4f m, toe %.4f m\n",
               name, rates[k], r.sliding_cm_per_m, r.frames, r.both_frames, r.single_frames,
               r.neither_frames, r.min_ankle, r.min_toe);
        CHECK(r.sliding_cm_per_m < 0.5);
        CHECK(r.min_ankle > 0.08 - 0.001); /* nothing goes through the ground */
        CHECK(r.min_toe > -0.001);
        CHECK(r.single_frames > r.frames / 10); /* each foot spends time alone on the ground */
        if (is_run) {
            CHECK(r.neither_frames > r.frames / 20); /* a flight phase */
        } else {
            CHECK(r.any_planted_all); /* a walk always has a foot down */
            CHECK(r.both_frames > 0); /* and double support */
        }
    }
}

static void test_walk_feet(void) { check_gait("walk", 0); }
static void test_run_feet(void) { check_gait("run", 1); }

/* The measure itself must be able to fail: the same walk with its root moved
 * at the wrong speed slides a lot. */
static void test_sliding_measure_detects_sliding(void) {
    const stance_clip *c = clip("walk");
    if (!c) return;
    stance_clip fake = *c;
    fake.root_speed = c->root_speed * 1.2f;
    foot_run r = measure_feet(&fake, 60.0, 4.0);
    printf("  walk with a 20%% wrong root speed: %.2f cm/m\n", r.sliding_cm_per_m);
    CHECK(r.sliding_cm_per_m > 5.0);
}

/* The height of both ankles (model y) at a time. */
static void ankles_at(sampler *s, const stance_clip *c, float t, double y[2]) {
    sample_at(s, c, t);
    y[0] = mpos(s, joint("foot_l"), 1);
    y[1] = mpos(s, joint("foot_r"), 1);
}

static const stance_clip_event *find_event(const stance_clip *c, const char *name) {
    for (int i = 0; i < c->event_count; i++)
        if (strcmp(c->events[i].name, name) == 0) return &c->events[i];
    return NULL;
}

static void test_gait_events(void) {
    static const char *const gaits[] = {"walk", "run"};
    sampler s;
    sampler_init(&s);
    for (int g = 0; g < 2; g++) {
        const stance_clip *c = clip(gaits[g]);
        if (!c) continue;
        const stance_clip_event *el = find_event(c, "foot_l"), *er = find_event(c, "foot_r");
        CHECK(el != NULL && er != NULL);
        if (!el || !er) continue;
        /* half a cycle apart */
        double gap = fmod((double)er->time - el->time + c->duration, c->duration);
        CHECK_NEAR(gap, 0.5 * c->duration, 0.02);
        const stance_clip_event *ev[2] = {el, er};
        for (int f = 0; f < 2; f++) {
            double y[2], before[2];
            float t = ev[f]->time;
            ankles_at(&s, c, t, y);
            float tb = t - 0.1f * c->duration;
            if (tb < 0.0f) tb += c->duration;
            ankles_at(&s, c, tb, before);
            CHECK(y[f] < 0.08 + 0.005);      /* on the ground at its event */
            CHECK(before[f] > 0.08 + 0.02);  /* in the air just before */
        }
        /* playback reports them once per cycle */
        stance_event_hit hits[8];
        int count = 0, wraps = 0;
        float nt;
        CHECK_OK(stance_clip_advance(c, 0.001f, c->duration, 1, &nt, hits, 8, &count, &wraps, NULL));
        CHECK(count == 2);
        CHECK(wraps == 1);
    }
    sampler_free(&s);
}

static void test_jump(void) {
    const stance_clip *c = clip("jump");
    if (!c) return;
    const stance_clip_event *to = find_event(c, "takeoff"), *land = find_event(c, "land");
    CHECK(to != NULL && land != NULL);
    if (!to || !land) return;
    CHECK(to->time > 0.1f && to->time < land->time && land->time < c->duration - 0.1f);
    sampler s;
    sampler_init(&s);
    const int hips = joint("hips");
    double y[2];
    sample_at(&s, c, 0.0f);
    double hips0 = mpos(&s, hips, 1);
    double foot0[2] = {mpos(&s, joint("foot_l"), 2), mpos(&s, joint("foot_r"), 2)};
    ankles_at(&s, c, 0.0f, y);
    CHECK_NEAR(y[0], 0.08, 0.002);
    CHECK_NEAR(y[1], 0.08, 0.002);
    ankles_at(&s, c, c->duration, y);
    CHECK_NEAR(y[0], 0.08, 0.002);
    CHECK_NEAR(y[1], 0.08, 0.002);
    sample_at(&s, c, c->duration);
    CHECK_NEAR(mpos(&s, hips, 1), hips0, 0.002); /* back to standing */
    double highest = 0.0, crouch = 1e9;
    for (float t = 0.0f; t <= c->duration; t += 1.0f / 120.0f) {
        sample_at(&s, c, t);
        double h = mpos(&s, hips, 1);
        if (t < to->time) crouch = fmin(crouch, h);
        if (t > to->time && t < land->time) highest = fmax(highest, h);
        ankles_at(&s, c, t, y);
        if (t <= to->time || t >= land->time) { /* on the ground: planted */
            CHECK(y[0] < 0.08 + 0.003 && y[1] < 0.08 + 0.003);
            CHECK(fabs(mpos(&s, joint("foot_l"), 2) - foot0[0]) < 0.002);
            CHECK(fabs(mpos(&s, joint("foot_r"), 2) - foot0[1]) < 0.002);
        }
        CHECK(y[0] > 0.079 && y[1] > 0.079);
    }
    printf("  jump: standing hips %.3f m, crouch %.3f m, apex %.3f m (+%.3f)\n", hips0, crouch,
           highest, highest - hips0);
    CHECK(highest - hips0 >= 0.2);
    CHECK(crouch < hips0 - 0.1);
    /* mid-air both feet are well off the ground */
    ankles_at(&s, c, 0.5f * (to->time + land->time), y);
    CHECK(y[0] > 0.08 + 0.2 && y[1] > 0.08 + 0.2);
    sampler_free(&s);
}

/* Knees bend forward: the knee lies in front of the line from hip to ankle
 * (or on it), in every clip. */
static void test_knees_forward(void) {
    sampler s;
    sampler_init(&s);
    static const char *const sides[2][3] = {{"upleg_l", "leg_l", "foot_l"},
                                            {"upleg_r", "leg_r", "foot_r"}};
    for (int i = 0; i < g_b.clip_count; i++) {
        const stance_clip *c = g_b.clips[i];
        double least = 1e9;
        for (float t = 0.0f; t <= c->duration; t += 1.0f / 60.0f) {
            sample_at(&s, c, t);
            for (int f = 0; f < 2; f++) {
                int h = joint(sides[f][0]), k = joint(sides[f][1]), a = joint(sides[f][2]);
                double hy = mpos(&s, h, 1), hz = mpos(&s, h, 2);
                double ky = mpos(&s, k, 1), kz = mpos(&s, k, 2);
                double ay = mpos(&s, a, 1), az = mpos(&s, a, 2);
                /* signed distance of the knee from the hip-ankle line in the
                 * sagittal plane, positive towards +Z */
                double dy = ay - hy, dz = az - hz, len = sqrt(dy * dy + dz * dz);
                double side = ((kz - hz) * (-dy) + (ky - hy) * dz) / len;
                least = fmin(least, side);
                /* and the leg keeps its lengths */
                double thigh = sqrt((kz - hz) * (kz - hz) + (ky - hy) * (ky - hy) +
                                    pow(mpos(&s, k, 0) - mpos(&s, h, 0), 2));
                CHECK_NEAR(thigh, 0.45, 1e-3);
            }
        }
        if (!(least > -1e-3)) fprintf(stderr, "%s: a knee bends backwards by %g m\n", c->name, least);
        CHECK(least > -1e-3);
    }
    sampler_free(&s);
}

/* ---- layers' sources ------------------------------------------------------ */

/* Angle (degrees) between the model-space "up" of joint j and +Y, positive
 * when it leans towards +Z. */
static double forward_lean_deg(const sampler *s, int j) {
    double x = s->model.qx[j], y = s->model.qy[j], z = s->model.qz[j], w = s->model.qw[j];
    /* rotate (0, 1, 0) */
    double ux = 2.0 * (x * y - w * z), uy = 1.0 - 2.0 * (x * x + z * z), uz = 2.0 * (y * z + w * x);
    (void)ux;
    return atan2(uz, uy) * 180.0 / PI_D;
}

static void test_additive_sources(void) {
    const stance_clip *idle = clip("idle"), *lean = clip("lean"), *breathe = clip("breathe");
    if (!idle || !lean || !breathe) return;
    sampler a, b;
    sampler_init(&a);
    sampler_init(&b);
    sample_at(&a, idle, 0.0f);
    sample_at(&b, lean, 0.0f);
    CHECK(local_diff(&a.local, &b.local) < 1e-5); /* lean starts at idle's first frame */
    sample_at(&b, breathe, 0.0f);
    CHECK(local_diff(&a.local, &b.local) < 1e-5); /* so does breathe */
    const int chest = joint("chest");
    double idle_lean = forward_lean_deg(&a, chest);
    sample_at(&b, lean, lean->duration);
    double end_lean = forward_lean_deg(&b, chest) - idle_lean;
    printf("  lean: chest pitches %.1f deg forward by the end\n", end_lean);
    CHECK(end_lean > 15.0 && end_lean < 25.0);
    /* progressive: half way it leans less than at the end */
    sample_at(&b, lean, 0.25f * lean->duration);
    CHECK(forward_lean_deg(&b, chest) - idle_lean < end_lean - 3.0);
    /* legs do not move in the lean */
    const int foot = joint("foot_l");
    CHECK(fabs(mpos(&b, foot, 1) - mpos(&a, foot, 1)) < 1e-4);
    /* breathe: small, and the shoulders rise */
    double worst = 0.0, rise = 0.0;
    const int sh = joint("upperarm_l");
    for (float t = 0.0f; t <= breathe->duration; t += 0.05f) {
        sample_at(&b, breathe, t);
        worst = fmax(worst, fabs(forward_lean_deg(&b, chest) - idle_lean));
        rise = fmax(rise, mpos(&b, sh, 1) - mpos(&a, sh, 1));
    }
    CHECK(worst > 0.5 && worst < 8.0);
    CHECK(rise > 0.003 && rise < 0.05);
    sampler_free(&a);
    sampler_free(&b);
}

static void test_idle_stands(void) {
    const stance_clip *c = clip("idle");
    if (!c) return;
    sampler s;
    sampler_init(&s);
    const int fl = joint("foot_l"), hips = joint("hips"), hand = joint("hand_l");
    sample_at(&s, c, 0.0f);
    double f0[3] = {mpos(&s, fl, 0), mpos(&s, fl, 1), mpos(&s, fl, 2)};
    double hmin = 1e9, hmax = -1e9;
    for (float t = 0.0f; t <= c->duration; t += 1.0f / 47.0f) {
        sample_at(&s, c, t);
        for (int a = 0; a < 3; a++) CHECK(fabs(mpos(&s, fl, a) - f0[a]) < 5e-4); /* planted */
        hmin = fmin(hmin, mpos(&s, hips, 1));
        hmax = fmax(hmax, mpos(&s, hips, 1));
        /* arms hang: hands below the hips' height plus a little, near the body */
        CHECK(mpos(&s, hand, 1) < mpos(&s, hips, 1) + 0.15);
        CHECK(mpos(&s, hand, 0) > 0.1 && mpos(&s, hand, 0) < 0.45);
    }
    printf("  idle: hips bob %.1f mm\n", 1000.0 * (hmax - hmin));
    CHECK(hmax - hmin > 0.005 && hmax - hmin < 0.02);
    sampler_free(&s);
}

static void test_wave(void) {
    const stance_clip *c = clip("wave"), *run = clip("run"), *walk = clip("walk");
    if (!c || !run || !walk) return;
    sampler s;
    sampler_init(&s);
    const int hand_r = joint("hand_r"), head = joint("head"), hand_l = joint("hand_l");
    const int fr = joint("foot_r");
    sample_at(&s, c, 0.0f);
    double f0 = mpos(&s, fr, 2);
    double hx_min = 1e9, hx_max = -1e9;
    for (float t = 0.0f; t <= c->duration; t += 1.0f / 60.0f) {
        sample_at(&s, c, t);
        CHECK(mpos(&s, hand_r, 1) > mpos(&s, head, 1));  /* raised */
        CHECK(mpos(&s, hand_r, 0) < -0.2);               /* and out on the right */
        CHECK(mpos(&s, hand_l, 1) < mpos(&s, joint("hips"), 1) + 0.15);
        CHECK(fabs(mpos(&s, fr, 2) - f0) < 5e-4);        /* standing */
        hx_min = fmin(hx_min, mpos(&s, hand_r, 0));
        hx_max = fmax(hx_max, mpos(&s, hand_r, 0));
    }
    CHECK(hx_max - hx_min > 0.1); /* waving side to side */
    /* the run leans forward (the arm-angle experiment needs it), the walk less */
    double run_lean = 0.0, walk_lean = 0.0;
    const int chest = joint("chest"), hips = joint("hips");
    for (int k = 0; k < 10; k++) {
        sample_at(&s, run, run->duration * (float)k / 10.0f);
        run_lean += forward_lean_deg(&s, chest) / 10.0;
        CHECK(forward_lean_deg(&s, hips) > 5.0);
        sample_at(&s, walk, walk->duration * (float)k / 10.0f);
        walk_lean += forward_lean_deg(&s, chest) / 10.0;
    }
    printf("  chest lean: run %.1f deg, walk %.1f deg\n", run_lean, walk_lean);
    CHECK(run_lean > 10.0 && run_lean < 18.0);
    CHECK(walk_lean < run_lean - 5.0);
    sampler_free(&s);
}

/* Arms swing against the legs in the walk: when the left foot strikes (front)
 * the left hand is behind the right. */
static void test_arms_swing(void) {
    const stance_clip *c = clip("walk");
    if (!c) return;
    sampler s;
    sampler_init(&s);
    const stance_clip_event *el = find_event(c, "foot_l");
    if (el) {
        sample_at(&s, c, el->time);
        CHECK(mpos(&s, joint("foot_l"), 2) > mpos(&s, joint("foot_r"), 2));
        CHECK(mpos(&s, joint("hand_l"), 2) < mpos(&s, joint("hand_r"), 2) - 0.1);
    }
    sampler_free(&s);
}

/* ---- API ----------------------------------------------------------------- */

static void test_lookup(void) {
    CHECK(stance_builtin_clip(&g_b, "walk") == g_b.clips[1]);
    CHECK(stance_builtin_clip(&g_b, "idle") == g_b.clips[0]);
    CHECK(stance_builtin_clip(&g_b, "breathe") == g_b.clips[6]);
    CHECK(stance_builtin_clip(&g_b, "Walk") == NULL);
    CHECK(stance_builtin_clip(&g_b, "") == NULL);
    CHECK(stance_builtin_clip(&g_b, "walking") == NULL);
    CHECK(stance_builtin_clip(&g_b, NULL) == NULL);
    CHECK(stance_builtin_clip(NULL, "walk") == NULL);
    stance_builtin empty;
    memset(&empty, 0, sizeof empty);
    CHECK(stance_builtin_clip(&empty, "walk") == NULL);
}

typedef struct counting {
    long live, allocs, fail_at; /* fail the allocation numbered fail_at (0-based); -1 never */
    size_t live_bytes;
    int bad_free;
} counting;

static void *count_alloc(void *user, size_t size, size_t align) {
    counting *c = user;
    long index = c->allocs++;
    if (index == c->fail_at) return NULL;
    if (align < sizeof(void *)) align = sizeof(void *);
    void *p = st_aligned_alloc(align, (size + align - 1) / align * align);
    if (p) { c->live++; c->live_bytes += size; }
    return p;
}

static void count_free(void *user, void *ptr, size_t size) {
    counting *c = user;
    if (!ptr) return;
    if (size > c->live_bytes) c->bad_free = 1;
    else c->live_bytes -= size;
    c->live--;
    st_aligned_free(ptr);
}

static void test_allocator(void) {
    /* everything goes through the allocator and comes back */
    counting cnt = {0, 0, -1, 0, 0};
    stance_allocator al = {count_alloc, count_free, &cnt};
    stance_builtin b;
    stance_error err;
    CHECK_OK(stance_builtin_create(&al, &b, &err));
    long total = cnt.allocs;
    CHECK(total >= 1 + STANCE_BUILTIN_CLIPS);
    CHECK(cnt.live == 3 + STANCE_BUILTIN_CLIPS); /* temporaries freed: the skeleton, clips, skin and mesh stay */
    stance_builtin_destroy(&b);
    CHECK(cnt.live == 0 && cnt.live_bytes == 0 && !cnt.bad_free);
    CHECK(b.skeleton == NULL && b.clip_count == 0);
    stance_builtin_destroy(&b); /* twice is harmless */
    stance_builtin_destroy(NULL);
    /* every allocation failing in turn: a memory error, a message, no leak */
    for (long n = 0; n < total; n++) {
        counting c2 = {0, 0, n, 0, 0};
        stance_allocator a2 = {count_alloc, count_free, &c2};
        stance_builtin b2;
        memset(&err, 0, sizeof err);
        CHECK_STATUS(stance_builtin_create(&a2, &b2, &err), STANCE_ERR_MEMORY);
        CHECK(err.status == STANCE_ERR_MEMORY && err.message[0] != 0);
        CHECK(c2.live == 0 && c2.live_bytes == 0 && !c2.bad_free);
        CHECK(b2.skeleton == NULL && b2.clip_count == 0);
        for (int i = 0; i < STANCE_BUILTIN_CLIPS; i++) CHECK(b2.clips[i] == NULL);
    }
    /* allocator NULL: malloc */
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    stance_builtin_destroy(&b);
    CHECK_STATUS(stance_builtin_create(NULL, NULL, &err), STANCE_ERR_ARGUMENT);
    CHECK(err.message[0] != 0);
}

/* Two builds give identical clips: no hidden state. */
static void test_deterministic(void) {
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    for (int i = 0; i < STANCE_BUILTIN_CLIPS; i++) {
        const stance_clip *x = b.clips[i], *y = g_b.clips[i];
        CHECK(x->key_count == y->key_count && x->r_keys == y->r_keys);
        if (x->key_count == y->key_count && x->r_keys == y->r_keys)
            CHECK(memcmp(x->r, y->r, sizeof(float) * 4 * (size_t)x->padded_count * (size_t)x->r_keys) == 0);
    }
    stance_builtin_destroy(&b);
}

int main(void) {
    stance_error err;
    if (stance_builtin_create(NULL, &g_b, &err) != STANCE_OK) {
        printf("FAIL stance_builtin_create: %s\n", err.message);
        return 1;
    }
    RUN(test_skeleton_layout);
    RUN(test_rest_pose);
    RUN(test_clips_present);
    RUN(test_loops_seamless);
    RUN(test_rotations_unit);
    RUN(test_walk_feet);
    RUN(test_run_feet);
    RUN(test_sliding_measure_detects_sliding);
    RUN(test_gait_events);
    RUN(test_jump);
    RUN(test_knees_forward);
    RUN(test_additive_sources);
    RUN(test_idle_stands);
    RUN(test_wave);
    RUN(test_arms_swing);
    RUN(test_lookup);
    RUN(test_allocator);
    RUN(test_deterministic);
    stance_builtin_destroy(&g_b);
    return check_summary();
}
