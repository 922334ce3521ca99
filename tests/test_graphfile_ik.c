/* tests/test_graphfile_ik.c - the "ik" section of graph files: the stage
 * read from graphs/robot_footlock.json gives RobotExpressive's walk the
 * slide figure of the standalone job (stance_footlock_run) and the goal
 * (< 1 cm/m, from 27.1), with no NaN; bad entries are refused with
 * FILE:LINE:COLUMN messages. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ws.h"
#include "stance/io.h"
#include "stance_lesson/stance_lesson.h"

static const char *source_dir(void) {
    const char *s = getenv("STANCE_SOURCE");
    return s ? s : ".";
}

static void test_robot_walk(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/graphs/robot_footlock.json", source_dir());
    FILE *f = fopen(path, "rb");
    if (!f) { printf("  skipped: %s missing\n", path); return; }
    fclose(f);
    stance_graphfile *gf = NULL;
    stance_error err = {0};
    stance_status s = stance_graphfile_load(path, NULL, &gf, &err);
    if (s == STANCE_ERR_IO || s == STANCE_ERR_NOT_FOUND) { printf("  skipped: %s\n", err.message); return; }
    CHECK_OK(s);
    if (s) return;
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
    stance_footlock_setup su = {sk, walk, "Foot.L", "Foot.R", 4.0f, 0.0f};
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
        CHECK_OK(stance_instance_update(inst, fr ? dt : 0.0f, ws));
        if (fr > 0) stance_clip_advance(walk, t, dt, 1, &t, NULL, 0, NULL, NULL);
        stance_clip_sample(walk, t, NULL, &l);
        stance_local_to_model(&m, &l, sk, NULL);
        const stance_pose *gm = stance_instance_model_pose(inst);
        for (int k = 0; k < 2; k++) {
            float *p = off + 3 * (2 * fr + k), *q = on + 3 * (2 * fr + k);
            p[0] = m.tx[feet[k]] + root.t[0], p[1] = m.ty[feet[k]], p[2] = m.tz[feet[k]] + root.t[2];
            q[0] = gm->tx[feet[k]] + root.t[0], q[1] = gm->ty[feet[k]], q[2] = gm->tz[feet[k]] + root.t[2];
        }
        for (int j = 0; j < sk->joint_count; j++) finite = finite && isfinite(gm->tx[j]) && isfinite(gm->qw[j]);
    }
    const float metres = sqrtf(vel[0] * vel[0] + vel[2] * vel[2]) * N * dt;
    const float s_off = stance_foot_slide(off, N + 1, 2, metres), s_on = stance_foot_slide(on, N + 1, 2, metres);
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
            CHECK_OK(stance_instance_update(both[k], 1.0f / 60.0f, test_ws(stance_instance_graph(both[k]))));
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
    CHECK_OK(stance_instance_update(ia, 0.0f, test_ws(ga)));
    CHECK(fabsf(pa->tx[hand] - hx) + fabsf(pa->ty[hand] - hy) + fabsf(pa->tz[hand] - hz) > 0.01f);
    stance_instance_destroy(ia), stance_instance_destroy(ib);
    stance_asset_destroy(&loaded);
    stance_asset_free_bytes(bytes, size, NULL);
    stance_graphfile_destroy(gf);
}

int main(void) {
    RUN(test_robot_walk);
    RUN(test_bad_entries);
    RUN(test_all_kinds_compiled_identical);
    return check_summary();
}
