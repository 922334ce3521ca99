/* tests/test_layers.c - layers: mask weights, mesh-space blending that keeps
 * authored directions whatever the layers below do, additive layers on
 * different bases, weight fades, the order of additive and override layers,
 * and the lesson's layer experiments on the built-in character. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "ws.h"
#include "core/math/qmath.h"
#include "stance/stance.h"
#include "stance/build.h"
#include "stance_lesson/stance_lesson.h"

static stance_builtin B;
static const float DT = 1.0f / 60.0f;
static const stance_clip *clip(const char *n) { return stance_builtin_clip(&B, n); }

/* base (clip), then layers per spec string: each char: 'a' additive lean, 'w' wave override local,
 * 'm' wave override mesh; mask for wave from mask_root (-1 whole). */
static stance_graph *make(const stance_clip *base, const char *spec, int mask_root, float weight) {
    static float mask[STANCE_MAX_JOINTS];
    if (mask_root >= 0) stance_mask_subtree(B.skeleton, mask_root, 1.0f, 0, mask, NULL);
    stance_state_desc sb = {.name = "Base", .clip = base}, sl = {.name = "Lean", .clip = clip("lean"), .once = 1};
    stance_state_desc sw = {.name = "Wave", .clip = clip("wave")};
    stance_machine_desc ms[3] = {{.name = "Base", .state_count = 1, .states = &sb},
                                 {.name = "Lean", .state_count = 1, .states = &sl},
                                 {.name = "Wave", .state_count = 1, .states = &sw}};
    stance_layer_desc ls[3] = {{.name = "base", .machine = "Base", .weight = 1.0f}};
    int n = 1;
    for (const char *c = spec; *c; c++) {
        if (*c == 'a') ls[n++] = (stance_layer_desc){.name = "lean", .machine = "Lean", .weight = weight, .mode = STANCE_LAYER_ADDITIVE};
        else ls[n++] = (stance_layer_desc){.name = "wave", .machine = "Wave", .weight = weight,
                                           .space = *c == 'm' ? STANCE_SPACE_MESH : STANCE_SPACE_LOCAL,
                                           .mask = mask_root >= 0 ? mask : NULL};
    }
    /* machines not used by a layer are allowed */
    stance_graph_desc gd = {.skeleton = B.skeleton, .machine_count = 3, .machines = ms, .layer_count = n, .layers = ls};
    stance_graph *g = NULL;
    stance_error err;
    if (stance_graph_create(&gd, NULL, &g, &err)) fprintf(stderr, "make: %s\n", err.message);
    return g;
}

static qm_quat mrot(const stance_pose *m, int j) { return qm_q(m->qx[j], m->qy[j], m->qz[j], m->qw[j]); }

static void test_layer_weight_extremes(void) {
    const int J = B.skeleton->joint_count;
    int spine = stance_skeleton_find(B.skeleton, "spine");
    stance_pose walk, wave;
    stance_pose_create(&walk, J, NULL, NULL), stance_pose_create(&wave, J, NULL, NULL);
    for (int wi = 0; wi < 3; wi++) {
        float w = wi == 0 ? 0.0f : wi == 1 ? 1.0f : 0.5f;
        stance_graph *g = make(clip("walk"), "w", spine, w);
        stance_instance *inst;
        stance_instance_create(g, NULL, &inst, NULL);
        for (int f = 0; f < 20; f++) stance_instance_update(inst, DT, TEST_WS_INST(inst), NULL);
        float t = 20 * DT;
        stance_clip_sample(clip("walk"), fmodf(t, clip("walk")->duration), NULL, &walk, NULL);
        stance_clip_sample(clip("wave"), t, NULL, &wave, NULL);
        const stance_pose *o = stance_instance_local_pose(inst);
        for (int j = 0; j < J; j++) {
            int in_mask = stance_skeleton_is_descendant(B.skeleton, j, spine);
            const stance_pose *want = (in_mask && w == 1.0f) ? &wave : &walk;
            if (w == 0.0f || w == 1.0f || !in_mask) {
                CHECK_NEAR(o->tx[j], want->tx[j], 1e-5); CHECK_NEAR(o->qx[j], want->qx[j], 1e-5); CHECK_NEAR(o->qw[j], want->qw[j], 1e-5);
            } else { /* halfway: the rotation halfway between */
                float a = qm_qangle(mrot(o, j), mrot(&walk, j)), b = qm_qangle(mrot(o, j), mrot(&wave, j));
                CHECK_NEAR(a, b, 1e-3);
            }
        }
        stance_instance_destroy(inst);
        stance_graph_destroy(g);
    }
    stance_pose_destroy(&walk), stance_pose_destroy(&wave);
}

static void test_mesh_space_keeps_directions(void) {
    const int J = B.skeleton->joint_count;
    int arm = stance_skeleton_find(B.skeleton, "upperarm_r");
    stance_pose wl, wm;
    stance_pose_create(&wl, J, NULL, NULL), stance_pose_create(&wm, J, NULL, NULL);
    const char *bases[3] = {"run", "idle", "jump"};
    for (int b = 0; b < 3; b++)
        for (int lean = 0; lean < 2; lean++) {
            stance_graph *g = make(clip(bases[b]), lean ? "am" : "m", arm, 1.0f);
            stance_instance *inst;
            stance_instance_create(g, NULL, &inst, NULL);
            float worst = 0;
            for (int f = 1; f <= 90; f++) {
                stance_instance_update(inst, DT, TEST_WS_INST(inst), NULL);
                stance_clip_sample(clip("wave"), f * DT, NULL, &wl, NULL);
                stance_local_to_model(&wm, &wl, B.skeleton, NULL, NULL);
                const stance_pose *o = stance_instance_model_pose(inst);
                for (int j = 0; j < J; j++)
                    if (stance_skeleton_is_descendant(B.skeleton, j, arm)) {
                        float a = qm_qangle(mrot(o, j), mrot(&wm, j));
                        if (a > worst) worst = a;
                    }
            }
            CHECK(worst < 1e-4f);
            stance_instance_destroy(inst);
            stance_graph_destroy(g);
        }
    stance_pose_destroy(&wl), stance_pose_destroy(&wm);
}

static void test_additive_on_bases(void) {
    /* the lean adds the same forward pitch to the chest whatever it is added to */
    int chest = stance_skeleton_find(B.skeleton, "chest");
    const char *bases[3] = {"idle", "run", "wave"};
    for (int b = 0; b < 3; b++) {
        stance_graph *g0 = make(clip(bases[b]), "", -1, 1.0f), *g1 = make(clip(bases[b]), "a", -1, 1.0f);
        stance_instance *i0, *i1;
        stance_instance_create(g0, NULL, &i0, NULL), stance_instance_create(g1, NULL, &i1, NULL);
        for (int f = 0; f < 90; f++) stance_instance_update(i0, DT, TEST_WS_INST(i0), NULL), stance_instance_update(i1, DT, TEST_WS_INST(i1), NULL);
        /* chest's local rotation differs by the lean's delta: 20 degrees over three joints */
        const stance_pose *a = stance_instance_model_pose(i0), *c = stance_instance_model_pose(i1);
        float ang = qm_qangle(mrot(a, chest), mrot(c, chest)) * 57.2958f;
        CHECK_NEAR(ang, 20.0, 1.5);
        stance_instance_destroy(i0), stance_instance_destroy(i1);
        stance_graph_destroy(g0), stance_graph_destroy(g1);
    }
}

static void test_weight_fades(void) {
    stance_graph *g = make(clip("walk"), "w", -1, 0.0f);
    stance_instance *inst;
    stance_instance_create(g, NULL, &inst, NULL);
    CHECK_OK(stance_instance_set_layer_weight(inst, 1, 1.0f, 0.5f, NULL));
    for (int f = 0; f < 15; f++) stance_instance_update(inst, DT, TEST_WS_INST(inst), NULL);
    CHECK_NEAR(stance_instance_layer_weight(inst, 1), 0.5, 0.02);
    for (int f = 0; f < 15; f++) stance_instance_update(inst, DT, TEST_WS_INST(inst), NULL);
    CHECK_NEAR(stance_instance_layer_weight(inst, 1), 1.0, 1e-6);
    CHECK_OK(stance_instance_set_layer_weight(inst, 1, 0.0f, 0.25f, NULL));
    float prev = 1.0f;
    int monotone = 1;
    for (int f = 0; f < 20; f++) {
        stance_instance_update(inst, DT, TEST_WS_INST(inst), NULL);
        float w = stance_instance_layer_weight(inst, 1);
        if (w > prev) monotone = 0;
        prev = w;
    }
    CHECK(monotone && prev == 0.0f);
    CHECK_STATUS(stance_instance_set_layer_weight(inst, 0, 0.5f, 0, NULL), STANCE_ERR_ARGUMENT); /* the base is always 1 */
    stance_instance_destroy(inst);
    stance_graph_destroy(g);
}

static void test_order_matters(void) {
    /* lean then an upper-body override: the override owns the chest, the lean is gone there.
     * override then lean: the lean leans the waving chest. */
    int spine = stance_skeleton_find(B.skeleton, "spine"), chest = stance_skeleton_find(B.skeleton, "chest");
    stance_graph *plain = make(clip("walk"), "w", spine, 1.0f);
    stance_graph *lean_first = make(clip("walk"), "aw", spine, 1.0f);
    stance_graph *lean_last = make(clip("walk"), "wa", spine, 1.0f);
    stance_instance *a, *b, *c;
    stance_instance_create(plain, NULL, &a, NULL), stance_instance_create(lean_first, NULL, &b, NULL), stance_instance_create(lean_last, NULL, &c, NULL);
    for (int f = 0; f < 90; f++) stance_instance_update(a, DT, TEST_WS_INST(a), NULL), stance_instance_update(b, DT, TEST_WS_INST(b), NULL), stance_instance_update(c, DT, TEST_WS_INST(c), NULL);
    float first = qm_qangle(mrot(stance_instance_model_pose(a), chest), mrot(stance_instance_model_pose(b), chest)) * 57.2958f;
    float last = qm_qangle(mrot(stance_instance_model_pose(a), chest), mrot(stance_instance_model_pose(c), chest)) * 57.2958f;
    CHECK(first < 0.01f);
    CHECK_NEAR(last, 20.0, 1.5);
    stance_instance_destroy(a), stance_instance_destroy(b), stance_instance_destroy(c);
    stance_graph_destroy(plain), stance_graph_destroy(lean_first), stance_graph_destroy(lean_last);
}

static void test_lesson_layer_experiments(void) {
    stance_layer_setup su;
    CHECK_OK(stance_builtin_layer_setup(&B, &su, NULL));
    stance_layer_result r;
    stance_error err;
    CHECK_OK(stance_layers_run(&su, &r, NULL, &err));
    printf("  slide whole %.2f upper %.3f cm/m; arm local %.2f, +lean %.2f, mesh %.4f, +lean %.4f deg\n",
           (double)r.slide_whole, (double)r.slide_upper, (double)r.arm_local, (double)r.arm_local_lean,
           (double)r.arm_mesh, (double)r.arm_mesh_lean);
    CHECK(r.slide_whole > 100.0f);
    CHECK(r.slide_upper < 1.0f);
    CHECK(r.arm_local > 3.0f && r.arm_local_lean > r.arm_local + 5.0f);
    CHECK(r.arm_mesh < 0.01f && r.arm_mesh_lean < 0.01f);
    /* a lean made from the rest pose (for assets without one) gives the same picture */
    su.lean = NULL;
    stance_layer_result r2;
    CHECK_OK(stance_layers_run(&su, &r2, NULL, &err));
    CHECK(r2.arm_local_lean > r2.arm_local + 5.0f && r2.arm_mesh_lean < 0.01f);
    /* errors */
    su.arm = "no_such_joint";
    CHECK_STATUS(stance_layers_run(&su, &r2, NULL, &err), STANCE_ERR_NOT_FOUND);
    CHECK(strstr(err.message, "no_such_joint") != NULL);
}

/* The angle between two upper-arm directions, against hand-worked cases. */
static void test_arm_angle(void) {
    stance_pose a, b;
    CHECK_OK(stance_pose_create(&a, 3, NULL, NULL));
    CHECK_OK(stance_pose_create(&b, 3, NULL, NULL));
    /* joint 1 the arm, 2 the elbow: a points along +x, b along +y (90 degrees) */
    a.tx[1] = 1, a.ty[1] = 2, a.tz[1] = 3, a.tx[2] = 3, a.ty[2] = 2, a.tz[2] = 3;
    b.tx[1] = 0, b.ty[1] = 0, b.tz[1] = 0, b.tx[2] = 0, b.ty[2] = 0.5f, b.tz[2] = 0;
    CHECK_NEAR(stance_arm_angle_deg(&a, &b, 1, 2), 90.0, 1e-4);
    /* (1, 1, 0) against +x: 45 degrees; lengths do not matter */
    b.tx[2] = 2, b.ty[2] = 2;
    CHECK_NEAR(stance_arm_angle_deg(&a, &b, 1, 2), 45.0, 1e-4);
    /* opposite directions: 180; the same pose: 0 */
    b.tx[2] = -4, b.ty[2] = 0;
    CHECK_NEAR(stance_arm_angle_deg(&a, &b, 1, 2), 180.0, 1e-4);
    CHECK_NEAR(stance_arm_angle_deg(&a, &a, 1, 2), 0.0, 1e-4);
    /* a zero-length arm gives 0, not NaN; bad joints and NULL give -1 */
    CHECK(stance_arm_angle_deg(&a, &b, 1, 1) == 0.0f);
    CHECK(stance_arm_angle_deg(&a, &b, 1, 3) == -1.0f && stance_arm_angle_deg(NULL, &b, 1, 2) == -1.0f &&
          stance_arm_angle_deg(&a, &b, -1, 2) == -1.0f);
    stance_pose_destroy(&a), stance_pose_destroy(&b);
}

/* Against a clip as authored: a three-joint arm (root, arm, elbow 1 m
 * along +x) whose clip turns the arm about +z from 0 at 0 s to 60 degrees
 * at 1 s (slerp keys). The rest pose against the clip at 0.5 s is 30
 * degrees apart; the clip against itself 0. */
static void test_arm_angle_to_clip(void) {
    const char *names[3] = {"root", "arm", "elbow"};
    const int parents[3] = {-1, 0, 1};
    stance_transform rest[3] = {stance_transform_identity(), stance_transform_identity(), stance_transform_identity()};
    rest[2].t[0] = 1.0f;
    stance_skeleton *sk;
    CHECK_OK(stance_skeleton_create(&(stance_skeleton_desc){3, names, parents, rest}, NULL, &sk, NULL));
    const float times[2] = {0.0f, 1.0f};
    const float h = 0.52359877559829887f; /* 60 degrees / 2 */
    const float rot[8] = {0, 0, 0, 1, 0, 0, sinf(h), cosf(h)};
    const stance_track_desc tr = {1, STANCE_CHANNEL_ROTATION, 2, times, rot};
    stance_clip *c;
    CHECK_OK(stance_clip_create(&(stance_clip_desc){.name = "turn", .track_count = 1, .tracks = &tr, .slerp = 1}, sk, NULL, &c, NULL));
    stance_pose local, model, sl, sm, other;
    CHECK_OK(stance_pose_create(&local, 3, NULL, NULL));
    CHECK_OK(stance_pose_create(&model, 3, NULL, NULL));
    CHECK_OK(stance_pose_create(&sl, 3, NULL, NULL));
    CHECK_OK(stance_pose_create(&sm, 3, NULL, NULL));
    CHECK_OK(stance_pose_create(&other, 4, NULL, NULL));
    stance_pose_set_rest(&local, sk, NULL);
    CHECK_OK(stance_local_to_model(&model, &local, sk, NULL, NULL));
    CHECK_NEAR(stance_arm_angle_to_clip(&model, c, 0.5f, sk, 1, 2, &sl, &sm), 30.0, 1e-3);
    CHECK_NEAR(sm.ty[2], sinf(30.0f / 57.29578f), 1e-5); /* the authored pose comes back */
    CHECK_NEAR(stance_arm_angle_to_clip(&model, c, 1.0f, sk, 1, 2, &sl, &sm), 60.0, 1e-3);
    CHECK_NEAR(stance_arm_angle_to_clip(&model, c, 0.0f, sk, 1, 2, &sl, &sm), 0.0, 1e-3);
    stance_pose_copy(&model, &sm, NULL);
    CHECK_NEAR(stance_arm_angle_to_clip(&model, c, 0.0f, sk, 1, 2, &sl, &sm), 0.0, 1e-3);
    /* refusals: -1, never NaN */
    CHECK(stance_arm_angle_to_clip(NULL, c, 0.5f, sk, 1, 2, &sl, &sm) == -1.0f);
    CHECK(stance_arm_angle_to_clip(&model, NULL, 0.5f, sk, 1, 2, &sl, &sm) == -1.0f);
    CHECK(stance_arm_angle_to_clip(&model, c, NAN, sk, 1, 2, &sl, &sm) == -1.0f);
    CHECK(stance_arm_angle_to_clip(&model, c, 0.5f, sk, 1, 2, &other, &sm) == -1.0f);
    CHECK(stance_arm_angle_to_clip(&model, c, 0.5f, sk, 1, 7, &sl, &sm) == -1.0f);
    stance_pose_destroy(&local), stance_pose_destroy(&model), stance_pose_destroy(&sl), stance_pose_destroy(&sm);
    stance_pose_destroy(&other);
    stance_clip_destroy(c);
    stance_skeleton_destroy(sk);
}

int main(void) {
    RUN(test_arm_angle);
    RUN(test_arm_angle_to_clip);
    stance_error err;
    if (stance_builtin_create(NULL, &B, &err)) { fprintf(stderr, "%s\n", err.message); return 1; }
    RUN(test_layer_weight_extremes);
    RUN(test_mesh_space_keeps_directions);
    RUN(test_additive_on_bases);
    RUN(test_weight_fades);
    RUN(test_order_matters);
    RUN(test_lesson_layer_experiments);
    stance_builtin_destroy(&B);
    return check_summary();
}
