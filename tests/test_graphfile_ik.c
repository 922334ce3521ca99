/* tests/test_graphfile_ik.c - the "ik" section of graph files: the stage
 * read from graphs/robot_footlock.json gives RobotExpressive's walk the
 * slide figure of the standalone job (stance_footlock_run) and the goal
 * (< 1 cm/m, from 27.1), with no NaN; swept over its speed parameter its
 * locks release before they leave the leg's reach (issue 22); bad entries
 * are refused with FILE:LINE:COLUMN messages. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ws.h"
#include "stance/io.h"
#include "stance/build.h"
#include "stance_lesson/stance_lesson.h"

static const char *source_dir(void) {
    const char *s = getenv("STANCE_SOURCE");
    return s ? s : ".";
}

/* graphs/robot_footlock.json, or NULL (skipped when the file or its asset is missing) */
static stance_graphfile *open_robot(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/graphs/robot_footlock.json", source_dir());
    stance_graphfile *gf = NULL;
    stance_error err = {0};
    stance_status s = stance_graphfile_load(path, NULL, &gf, &err);
    if (s == STANCE_ERR_IO || s == STANCE_ERR_NOT_FOUND) { printf("  skipped: %s\n", err.message); return NULL; }
    CHECK_OK(s);
    return s ? NULL : gf;
}

static void test_robot_walk(void) {
    stance_graphfile *gf = open_robot();
    if (!gf) return;
    const stance_graph *g = stance_graphfile_graph(gf);
    const stance_skeleton *sk = stance_graph_skeleton(g);
    CHECK(stance_graph_ik_count(g) == 1);
    const stance_asset *as = stance_graphfile_asset(gf);
    const stance_clip *walk = NULL;
    for (int i = 0; i < as->clip_count; i++)
        if (!strcmp(as->clips[i]->name, "Walking")) walk = as->clips[i];
    CHECK(walk != NULL);
    if (!walk) { stance_graphfile_destroy(gf); return; }
    /* the reference: the standalone job */
    stance_footlock_setup su = {sk, walk, "Foot.L", "Foot.R", 4.0f, 0.0f, 0.0f};
    stance_footlock_result ref;
    CHECK_OK(stance_footlock_run(&su, &ref, NULL, 0, NULL, NULL));
    const int feet[2] = {stance_skeleton_find(sk, "Foot.L"), stance_skeleton_find(sk, "Foot.R")};
    float vel[3];
    stance_walk_velocity(sk, walk, feet[0], feet[1], NULL, vel);
    /* the graph: play the Walk state, the caller moves the character at the walk's speed */
    stance_instance *inst = NULL;
    CHECK_OK(stance_instance_create(g, NULL, &inst, NULL));
    stance_workspace *ws = test_ws(g);
    CHECK_OK(stance_instance_play(inst, stance_graph_find_state(g, "Locomotion/Walk"), STANCE_SWITCH_CUT, STANCE_EASE_SMOOTHSTEP, 0.0f, NULL));
    enum { N = 240 };
    static float off[3 * 2 * (N + 1)], on[3 * 2 * (N + 1)];
    stance_pose l, m;
    stance_pose_create(&l, sk->joint_count, NULL, NULL), stance_pose_create(&m, sk->joint_count, NULL, NULL);
    const float dt = 1.0f / 60.0f;
    float t = 0.0f;
    int finite = 1;
    for (int fr = 0; fr <= N; fr++) {
        stance_transform root = stance_transform_identity();
        root.t[0] = vel[0] * (float)fr * dt, root.t[2] = vel[2] * (float)fr * dt;
        CHECK_OK(stance_instance_set_root(inst, &root, 0, NULL));
        CHECK_OK(stance_instance_update(inst, fr ? dt : 0.0f, ws, NULL));
        if (fr > 0) stance_clip_advance(walk, t, dt, 1, &t, NULL, 0, NULL, NULL, NULL);
        stance_clip_sample(walk, t, NULL, &l, NULL);
        stance_local_to_model(&m, &l, sk, NULL, NULL);
        const stance_pose *gm = stance_instance_model_pose(inst);
        for (int k = 0; k < 2; k++) {
            float *p = off + 3 * (2 * fr + k), *q = on + 3 * (2 * fr + k);
            p[0] = m.tx[feet[k]] + root.t[0], p[1] = m.ty[feet[k]], p[2] = m.tz[feet[k]] + root.t[2];
            q[0] = gm->tx[feet[k]] + root.t[0], q[1] = gm->ty[feet[k]], q[2] = gm->tz[feet[k]] + root.t[2];
        }
        for (int j = 0; j < sk->joint_count; j++) finite = finite && isfinite(gm->tx[j]) && isfinite(gm->qw[j]);
    }
    const float metres = sqrtf(vel[0] * vel[0] + vel[2] * vel[2]) * N * dt;
    float band = 0.0f, vband = 0.0f;
    stance_slide_bands(sk, feet, 2, sqrtf(vel[0] * vel[0] + vel[2] * vel[2]), &band, &vband, NULL);
    const float s_off = stance_foot_slide(off, N + 1, 2, metres, band, vband, dt);
    const float s_on = stance_foot_slide(on, N + 1, 2, metres, band, vband, dt);
    printf("  RobotExpressive walk in graphs/robot_footlock.json: %.3f -> %.3f cm/m (standalone job %.3f -> %.3f)\n",
           (double)s_off, (double)s_on, (double)ref.slide_off, (double)ref.slide_on);
    CHECK(finite);
    CHECK_NEAR(s_off, ref.slide_off, 1e-3);
    CHECK(s_on < 1.0f);
    CHECK_NEAR(s_on, ref.slide_on, 0.05);
    stance_pose_destroy(&l), stance_pose_destroy(&m);
    stance_instance_destroy(inst);
    stance_graphfile_destroy(gf);
}

/* ---- issue 22, item 3: foot locks that release ------------------------------
 * graphs/robot_footlock.json (RobotExpressive, whose clips play in place)
 * driven at every speed from 0 to 3 units/s in steps of 0.25, the caller
 * moving the character at that speed, for 20 s at a fixed 1/60 s: each
 * locked foot stays within its leg's reach of the hip, and every knee angle
 * within the range the locomotion clips themselves produce (both measured
 * here from the skeleton and the clips sampled unlocked, not from the
 * footlock code); locking still holds feet (sliding no worse than the
 * animation's, some frames locked at every speed, all of them standing);
 * the same run twice gives the same pose. Before the release rule the
 * blend space's Idle (always planted, weight >= 0.5 up to 2 units/s) kept
 * the feet locked: 3.3 leg lengths from the hip after 20 s at 0.25 units/s,
 * 26 at 2, beyond the reach (1.07 to 1.22) at 2.25 to 3 too, and the knee
 * straight (180 degrees) at every speed but 0. */

static double dist(const stance_pose *m, int a, int b) {
    const double x = m->tx[a] - m->tx[b], y = m->ty[a] - m->ty[b], z = m->tz[a] - m->tz[b];
    return sqrt(x * x + y * y + z * z);
}

/* the angle at the knee between the thigh and the knee-ankle line, degrees */
static double knee_angle(const stance_pose *m, int h, int k, int a) {
    const double u[3] = {m->tx[h] - m->tx[k], m->ty[h] - m->ty[k], m->tz[h] - m->tz[k]};
    const double w[3] = {m->tx[a] - m->tx[k], m->ty[a] - m->ty[k], m->tz[a] - m->tz[k]};
    const double c = (u[0] * w[0] + u[1] * w[1] + u[2] * w[2]) /
                     (sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) * sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]));
    return acos(c < -1.0 ? -1.0 : c > 1.0 ? 1.0 : c) * 57.29577951308232;
}

enum { LEGS = 2, SPEEDS = 13, FRAMES = 20 * 60 };

typedef struct legs {
    int hip[LEGS], knee[LEGS], foot[LEGS];
    double len[LEGS]; /* thigh + shin in the rest pose */
} legs;

/* One speed for FRAMES + 1 updates of a fresh instance: the locked feet's
 * worst hip distance over the leg, the knee range, the share of foot-frames
 * locked, the feet's world positions (pos: (FRAMES + 1) x LEGS x 3; NULL =
 * not kept) and the last pose. */
typedef struct run_out {
    double reach, knee_lo, knee_hi, locked;
    int finite;
    float *pos;
    stance_pose last;
} run_out;

static void run(const stance_graph *g, stance_workspace *ws, const legs *L, float v, run_out *o) {
    stance_instance *inst = NULL;
    CHECK_OK(stance_instance_create(g, NULL, &inst, NULL));
    CHECK_OK(stance_instance_set_float_by_name(inst, "speed", v, NULL));
    const int has_ik = stance_graph_ik_count(g) > 0;
    const float dt = 1.0f / 60.0f;
    o->reach = 0.0, o->knee_lo = 1e9, o->knee_hi = -1e9, o->finite = 1;
    long locked = 0;
    for (int f = 0; f <= FRAMES; f++) {
        stance_transform root = stance_transform_identity();
        root.t[2] = v * dt * (float)f; /* the robot walks along +Z (its walk's planted feet move back along -Z) */
        CHECK_OK(stance_instance_set_root(inst, &root, 0, NULL));
        CHECK_OK(stance_instance_update(inst, f ? dt : 0.0f, ws, NULL));
        const stance_pose *m = stance_instance_model_pose(inst);
        for (int j = 0; j < m->joint_count; j++) o->finite = o->finite && isfinite(m->tx[j]) && isfinite(m->ty[j]) && isfinite(m->qw[j]);
        const stance_footlock_state *st = has_ik ? stance_instance_footlock_state(inst, 0) : NULL;
        for (int k = 0; k < LEGS; k++) {
            if (o->pos) {
                float *p = o->pos + 3 * (LEGS * (size_t)f + (size_t)k);
                p[0] = m->tx[L->foot[k]] + root.t[0], p[1] = m->ty[L->foot[k]] + root.t[1], p[2] = m->tz[L->foot[k]] + root.t[2];
            }
            const double a = knee_angle(m, L->hip[k], L->knee[k], L->foot[k]);
            o->knee_lo = a < o->knee_lo ? a : o->knee_lo, o->knee_hi = a > o->knee_hi ? a : o->knee_hi;
            if (!st || !st->feet[k].planted) continue;
            locked++;
            /* the locked foot (an IK control bone: moved onto its lock) from its hip, in leg lengths */
            const double r = dist(m, L->hip[k], L->foot[k]) / L->len[k];
            o->reach = r > o->reach ? r : o->reach;
        }
    }
    o->locked = (double)locked / (double)((FRAMES + 1) * LEGS);
    stance_pose_copy(&o->last, stance_instance_model_pose(inst), NULL);
    stance_instance_destroy(inst);
}

static void test_robot_sweep(void) {
    stance_graphfile *gf = open_robot();
    if (!gf) return;
    const stance_graph *g = stance_graphfile_graph(gf);
    const stance_graph_desc *d = stance_graphfile_desc(gf);
    const stance_skeleton *sk = stance_graph_skeleton(g);
    CHECK(d->ik_count == 1 && d->ik[0].kind == STANCE_IK_FOOTLOCK && d->ik[0].leg_count == LEGS);
    /* the legs, and their length in the rest pose */
    legs L;
    stance_pose rl, rm;
    stance_pose_create(&rl, sk->joint_count, NULL, NULL), stance_pose_create(&rm, sk->joint_count, NULL, NULL);
    stance_pose_set_rest(&rl, sk, NULL);
    stance_local_to_model(&rm, &rl, sk, NULL, NULL);
    for (int k = 0; k < LEGS; k++) {
        L.hip[k] = stance_skeleton_find(sk, d->ik[0].legs[k].hip), L.knee[k] = stance_skeleton_find(sk, d->ik[0].legs[k].knee);
        L.foot[k] = stance_skeleton_find(sk, d->ik[0].legs[k].ankle);
        L.len[k] = dist(&rm, L.hip[k], L.knee[k]) + dist(&rm, L.knee[k], L.foot[k]);
    }
    /* what the locomotion clips themselves do, sampled unlocked at 60 Hz: the
     * clips of the base machine's looping states (Idle; Move: Idle, Walking,
     * Running; Walk, Run) */
    const char *base = d->layer_count > 0 ? d->layers[0].machine : d->machines[0].name;
    const stance_machine_desc *md = NULL;
    for (int i = 0; i < d->machine_count; i++)
        if (!strcmp(d->machines[i].name, base)) md = &d->machines[i];
    CHECK(md != NULL);
    double knee_lo = 1e9, knee_hi = -1e9, over = 0.0;
    int sampled = 0;
    for (int i = 0; md && i < md->state_count; i++) {
        const stance_state_desc *st = &md->states[i];
        if (st->once) continue;
        for (int e = 0; e < (st->clip ? 1 : st->entry_count); e++) {
            const stance_clip *c = st->clip ? st->clip : st->entries[e].clip;
            const int n = (int)(c->duration * 60.0f) + 1;
            for (int f = 0; f <= n; f++) {
                stance_clip_sample(c, c->duration * (float)f / (float)n, NULL, &rl, NULL);
                stance_local_to_model(&rm, &rl, sk, NULL, NULL);
                for (int k = 0; k < LEGS; k++) {
                    const double a = knee_angle(&rm, L.hip[k], L.knee[k], L.foot[k]);
                    const double r = dist(&rm, L.hip[k], L.foot[k]) / L.len[k];
                    knee_lo = a < knee_lo ? a : knee_lo, knee_hi = a > knee_hi ? a : knee_hi, over = r > over ? r : over;
                }
            }
            sampled++;
        }
    }
    stance_pose_destroy(&rl), stance_pose_destroy(&rm);
    /* The tolerance on reach: a locked foot may be as far from its hip as the
     * clips themselves carry it. RobotExpressive's feet are IK control bones
     * (Foot.L is not under LowerLeg.L), and its Walking puts the foot 3.6%
     * beyond thigh + shin of the rest pose; the two-bone solve reaches no
     * further than this frame's thigh + knee-ankle distance. */
    const double allowed = over > 1.0 ? over : 1.0;
    printf("  legs %.4f / %.4f long; %d clip entries unlocked: knee %.2f..%.2f deg, the foot up to %.4f legs from the hip\n", L.len[0], L.len[1],
           sampled, knee_lo, knee_hi, over);
    CHECK(sampled >= 3 && over < 1.05);

    stance_graph_desc d0 = *d; /* the same graph without the IK stage: the animation's feet */
    d0.ik_count = 0, d0.ik = NULL;
    stance_graph *g0 = NULL;
    CHECK_OK(stance_graph_create(&d0, NULL, &g0, NULL));
    stance_workspace *ws = NULL;
    CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
    float *on = malloc(sizeof(float) * 3 * LEGS * (FRAMES + 1)), *off = malloc(sizeof(float) * 3 * LEGS * (FRAMES + 1));
    run_out o, u;
    memset(&o, 0, sizeof o), memset(&u, 0, sizeof u);
    stance_pose_create(&o.last, sk->joint_count, NULL, NULL), stance_pose_create(&u.last, sk->joint_count, NULL, NULL);
    o.pos = on, u.pos = off;
    int bad_reach = 0, bad_knee = 0;
    printf("  speed | locked | worst hip-lock / leg (allowed %.4f) | knee (deg, clips %.1f..%.1f) | sliding off -> on (cm/m)\n", allowed,
           knee_lo, knee_hi);
    for (int i = 0; i < SPEEDS && on && off; i++) {
        const float v = 0.25f * (float)i;
        run(g, ws, &L, v, &o);
        run(g0, ws, &L, v, &u);
        const float metres = v * FRAMES / 60.0f;
        float band = 0.0f, vband = 0.0f;
        stance_slide_bands(sk, L.foot, LEGS, v, &band, &vband, NULL);
        const float s_on = metres > 0.0f ? stance_foot_slide(on, FRAMES + 1, LEGS, metres, band, vband, 1.0f / 60.0f) : 0.0f;
        const float s_off = metres > 0.0f ? stance_foot_slide(off, FRAMES + 1, LEGS, metres, band, vband, 1.0f / 60.0f) : 0.0f;
        const int reach_ok = o.reach <= allowed, knee_ok = o.knee_lo >= knee_lo && o.knee_hi <= knee_hi;
        printf("  %5.2f | %5.1f%% | %.4f%s | %.2f..%.2f%s | %.3f -> %.3f\n", (double)v, 100.0 * o.locked, o.reach,
               reach_ok ? "" : " BEYOND", o.knee_lo, o.knee_hi, knee_ok ? "" : " OUTSIDE", (double)s_off, (double)s_on);
        bad_reach += !reach_ok, bad_knee += !knee_ok;
        CHECK(o.finite);
        CHECK(o.locked > 0.0);                       /* locking still holds feet at every speed */
        if (i == 0) CHECK(o.locked == 1.0);          /* standing: always */
        else CHECK(s_on <= s_off + 1e-3f);           /* and slides no more than the animation */
    }
    CHECK(bad_reach == 0);
    CHECK(bad_knee == 0);
    /* deterministic: the same speed again, the same pose */
    stance_pose again;
    stance_pose_create(&again, sk->joint_count, NULL, NULL);
    run(g, ws, &L, 1.0f, &o);
    stance_pose_copy(&again, &o.last, NULL);
    run(g, ws, &L, 1.0f, &o);
    CHECK(!memcmp(again.memory, o.last.memory, stance_pose_bytes(sk->joint_count)));
    stance_pose_destroy(&again);
    stance_pose_destroy(&o.last), stance_pose_destroy(&u.last);
    free(on), free(off);
    stance_workspace_destroy(ws);
    stance_graph_destroy(g0);
    stance_graphfile_destroy(gf);
}

/* Loads a graph with `ik` as its "ik" array (line 3, from column 9) and
 * wants `msg` at the position of the first `token` in `ik` (token NULL:
 * just msg anywhere in the message). */
static void refused(const char *ik, const char *token, const char *msg) {
    char text[2048], want[512];
    snprintf(text, sizeof text,
             "{\"asset\": \"builtin\",\n \"machines\": [{\"name\": \"M\", \"states\": [{\"name\": \"W\", \"clip\": \"walk\"}]}],\n"
             " \"ik\": [%s]}",
             ik);
    if (token) snprintf(want, sizeof want, "ik.json:3:%d: %s", 9 + (int)(strstr(ik, token) - ik), msg);
    else snprintf(want, sizeof want, "%s", msg);
    stance_graphfile *gf = NULL;
    stance_error err = {0};
    stance_status s = stance_graphfile_load_string(text, "ik.json", NULL, NULL, &gf, &err);
    CHECK(s != STANCE_OK && gf == NULL);
    CHECK(strstr(err.message, want) != NULL);
    if (!strstr(err.message, want)) printf("  got '%s', wanted '%s'\n", err.message, want);
    stance_graphfile_destroy(gf);
}

#define LEGS "\"legs\": [{\"hip\": \"upleg_l\", \"knee\": \"leg_l\", \"ankle\": \"foot_l\"}]"

static void test_bad_entries(void) {
    refused("{\"name\": \"f\", \"kind\": \"footlok\", " LEGS "}", "\"footlok\"", "unknown ik kind 'footlok' (did you mean 'footlock'?)");
    refused("{\"name\": \"f\", " LEGS "}", "{", "");
    refused("{\"name\": \"f\", \"kind\": \"footlock\", \"legs\": [{\"hip\": \"upleg_l\", \"knee\": \"leg_ll\", \"ankle\": \"foot_l\"}]}",
            "\"leg_ll\"", "unknown joint 'leg_ll' (did you mean 'leg_l'?)");
    refused("{\"name\": \"f\", \"kind\": \"footlock\", \"legs\": []}", "[]", "\"legs\": expected 1 to 4 items");
    refused("{\"name\": \"f\", \"kind\": \"footlock\", \"softness\": 0.5, " LEGS "}", "0.5", "\"softness\" must be below 0.5");
    refused("{\"name\": \"f\", \"kind\": \"footlock\", \"blend_time\": -1, " LEGS "}", "-1", "\"blend_time\": expected a number in [0, 10]");
    refused("{\"name\": \"f\", \"kind\": \"footlock\", \"root_velocity\": [0, 1], " LEGS "}", "[0, 1]", "\"root_velocity\": expected an array of 3");
    refused("{\"name\": \"f\", \"kind\": \"footlock\", \"legs\": [{\"hip\": \"upleg_l\", \"knee\": \"leg_l\", \"ankle\": \"foot_l\", "
            "\"down_event\": \"d\"}]}", "\"down_event\"", "give both");
    refused("{\"name\": \"f\", \"kind\": \"footlock\", \"speed\": 1, " LEGS "}", "\"speed\"", "unknown key \"speed\" in an ik entry");
    refused("{\"name\": \"f\", \"kind\": \"aim\", " LEGS "}", "{", "missing \"chain\" in an ik entry");
    refused("{\"name\": \"f\", \"kind\": \"aim\", \"chain\": [\"head\"], \"softness\": 0.1}", "\"softness\"",
            "\"softness\" has no meaning for an aim entry");
    refused("{\"name\": \"f\", \"kind\": \"aim\", \"chain\": [\"hed\"]}", "\"hed\"", "unknown joint 'hed' (did you mean 'head'?)");
    refused("{\"name\": \"f\", \"kind\": \"footlock\", \"chain\": [\"head\"], " LEGS "}", "\"chain\"", "\"chain\" is for aim entries");
    refused("{\"name\": \"f\", \"kind\": \"two_bone\", \"legs\": [{\"hip\": \"upleg_l\", \"knee\": \"leg_l\", \"ankle\": \"foot_l\"}, "
            "{\"hip\": \"upleg_r\", \"knee\": \"leg_r\", \"ankle\": \"foot_r\"}]}", "[{", "\"legs\": expected 1 to 1 items");
    refused("{\"name\": \"f\", \"kind\": \"footlock\", " LEGS "}, {\"name\": \"f\", \"kind\": \"footlock\", " LEGS "}", NULL, "ik entry");
    /* the graph's own checks come through with the file's name */
    refused("{\"name\": \"f\", \"kind\": \"footlock\", \"legs\": [{\"hip\": \"upleg_l\", \"knee\": \"leg_l\", \"ankle\": \"foot_l\"}, "
            "{\"hip\": \"upleg_l\", \"knee\": \"leg_l\", \"ankle\": \"foot_l\"}]}", NULL, "ik.json: ik 'f': footlock: legs 0 and 1 overlap");
}

/* All three kinds read from a file, and the same graph compiled to a .stance
 * image and loaded: with targets set, every frame's pose is bit-identical. */
static const char *ALL_KINDS =
    "{\"asset\": \"builtin\",\n"
    " \"machines\": [{\"name\": \"M\", \"states\": [{\"name\": \"W\", \"clip\": \"walk\"}]}],\n"
    " \"ik\": [{\"name\": \"feet\", \"kind\": \"footlock\", \"plant_time\": 0.1, \"pelvis\": \"\",\n"
    "          \"legs\": [{\"hip\": \"upleg_l\", \"knee\": \"leg_l\", \"ankle\": \"foot_l\", \"down_event\": \"dl\", \"up_event\": \"ul\"},\n"
    "                   {\"hip\": \"upleg_r\", \"knee\": \"leg_r\", \"ankle\": \"foot_r\"}]},\n"
    "        {\"name\": \"reach\", \"kind\": \"two_bone\", \"softness\": 0.05,\n"
    "         \"legs\": [{\"hip\": \"upperarm_r\", \"knee\": \"forearm_r\", \"ankle\": \"hand_r\"}]},\n"
    "        {\"name\": \"look\", \"kind\": \"aim\", \"chain\": [\"chest\", \"neck\", \"head\"], \"forward\": [0, 0, 1], \"max_angle\": 1.0}]}";

static void test_all_kinds_compiled_identical(void) {
    stance_graphfile *gf = NULL;
    stance_error err = {0};
    CHECK_OK(stance_graphfile_load_string(ALL_KINDS, "kinds.json", NULL, NULL, &gf, &err));
    if (!gf) { printf("  %s\n", err.message); return; }
    void *bytes = NULL;
    size_t size = 0;
    CHECK_OK(stance_asset_save_graph_memory(stance_graphfile_asset(gf), stance_graphfile_desc(gf), &bytes, &size, NULL, &err));
    stance_asset loaded;
    memset(&loaded, 0, sizeof loaded);
    CHECK_OK(stance_asset_load_memory(bytes, size, NULL, &loaded, &err));
    const stance_graph *ga = stance_graphfile_graph(gf), *gb = loaded.graph;
    CHECK(gb && stance_graph_ik_count(gb) == 3 && stance_graph_find_ik(gb, "look") == 2);
    if (!gb) { stance_graphfile_destroy(gf); stance_asset_free_bytes(bytes, size, NULL); return; }
    stance_instance *ia = NULL, *ib = NULL;
    CHECK_OK(stance_instance_create(ga, NULL, &ia, NULL));
    CHECK_OK(stance_instance_create(gb, NULL, &ib, NULL));
    stance_instance *both[2] = {ia, ib};
    int differ_at = -1;
    const stance_skeleton *ska = stance_graph_skeleton(ga);
    const int hand = stance_skeleton_find(ska, "hand_r");
    for (int f = 0; f < 120 && differ_at < 0; f++) {
        const float reach[3] = {0.3f, 1.2f + 0.2f * sinf(0.1f * (float)f), 0.3f}, look[3] = {1.0f, 1.6f, 2.0f};
        for (int k = 0; k < 2; k++) {
            CHECK_OK(stance_instance_set_ik_target(both[k], 1, reach, 0.8f, NULL));
            CHECK_OK(stance_instance_set_ik_target(both[k], 2, look, 1.0f, NULL));
            CHECK_OK(stance_instance_update(both[k], 1.0f / 60.0f, test_ws(stance_instance_graph(both[k])), NULL));
        }
        const stance_pose *pa = stance_instance_model_pose(ia), *pb = stance_instance_model_pose(ib);
        const stance_pose *la = stance_instance_local_pose(ia), *lb = stance_instance_local_pose(ib);
        if (memcmp(pa->memory, pb->memory, stance_pose_bytes(pa->joint_count)) ||
            memcmp(la->memory, lb->memory, stance_pose_bytes(la->joint_count)))
            differ_at = f;
    }
    CHECK(differ_at < 0);
    /* the targets shaped those poses: at weight 0 the hand is elsewhere */
    const stance_pose *pa = stance_instance_model_pose(ia);
    const float hx = pa->tx[hand], hy = pa->ty[hand], hz = pa->tz[hand], zero[3] = {0, 0, 0};
    CHECK_OK(stance_instance_set_ik_target(ia, 1, zero, 0.0f, NULL));
    CHECK_OK(stance_instance_update(ia, 0.0f, test_ws(ga), NULL));
    CHECK(fabsf(pa->tx[hand] - hx) + fabsf(pa->ty[hand] - hy) + fabsf(pa->tz[hand] - hz) > 0.01f);
    stance_instance_destroy(ia), stance_instance_destroy(ib);
    stance_asset_destroy(&loaded);
    stance_asset_free_bytes(bytes, size, NULL);
    stance_graphfile_destroy(gf);
}

int main(void) {
    RUN(test_robot_walk);
    RUN(test_robot_sweep);
    RUN(test_bad_entries);
    RUN(test_all_kinds_compiled_identical);
    return check_summary();
}
