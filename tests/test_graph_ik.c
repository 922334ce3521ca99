/* tests/test_graph_ik.c - the graph's IK stage (stance_graph_desc.ik): the
 * stage in a graph gives the pose and the slide figures of the standalone
 * job (stance_contacts + stance_footlock_apply run by hand on the same
 * clip and world root), root motion moves the world root, the goals of
 * issue 15 on the built-in walk and run through a graph, a still clip keeps
 * the world root exactly (a -0 in it becomes +0), no allocation per
 * update, teleport and reset forget the locks, bad entries are refused,
 * no NaN on degenerate roots. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "builtin_feet.h"
#include "stance/stance.h"
#include "stance/build.h"
#include "stance_lesson/stance_lesson.h"
#include "core/base/platform.h" /* st_aligned_alloc / st_aligned_free */
#include "heap_use.h"

typedef struct counter { long allocs, frees, live; } counter;
static void *count_alloc(void *u, size_t size, size_t align) {
    counter *c = u;
    c->allocs++, c->live += (long)size;
    size_t a = align < sizeof(void *) ? sizeof(void *) : align;
    return st_aligned_alloc(a, (size + a - 1) / a * a + a);
}
static void count_free(void *u, void *p, size_t size) {
    counter *c = u;
    c->frees++, c->live -= (long)size;
    st_aligned_free(p);
}

static void expect_refused(const stance_builtin *b, const stance_ik_desc *k, int count, const char *needle);

/* a graph of one machine with one state playing `clip` */
static stance_status one_clip_graph(const stance_builtin *b, const stance_clip *clip, const stance_ik_desc *ik, int ik_count,
                                    const stance_allocator *al, stance_graph **g, stance_error *err) {
    stance_state_desc st = {.name = "play", .clip = clip};
    stance_machine_desc md = {.name = "m", .state_count = 1, .states = &st};
    stance_graph_desc gd = {.skeleton = b->skeleton, .machine_count = 1, .machines = &md, .ik_count = ik_count, .ik = ik};
    return stance_graph_create(&gd, al, g, err);
}

/* The stage against the job run by hand: the same clip, the same world root
 * (the caller moves the character 1.25 x faster than the clip's root speed,
 * so unlocked feet slide), the same contacts: the same pose each frame. */
static void test_stage_matches_the_job(void) {
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    const stance_skeleton *sk = b.skeleton;
    const stance_clip *walk = stance_builtin_clip(&b, "walk");
    stance_ik_desc k = builtin_feet();
    stance_graph *g = NULL;
    stance_error err = {0};
    CHECK_OK(one_clip_graph(&b, walk, &k, 1, NULL, &g, &err));
    CHECK(stance_graph_ik_count(g) == 1 && stance_graph_find_ik(g, "feet") == 0 && stance_graph_find_ik(g, "x") == -1);
    stance_instance *inst = NULL;
    stance_workspace *ws = NULL;
    CHECK_OK(stance_instance_create(g, NULL, &inst, NULL));
    CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
    /* the reference: contacts and locking by hand */
    const int feet[2] = {stance_skeleton_find(sk, "foot_l"), stance_skeleton_find(sk, "foot_r")};
    stance_contact_desc cd = {.foot_count = 2, .feet = feet};
    stance_contacts *c = NULL;
    CHECK_OK(stance_contacts_create(&cd, walk, sk, NULL, &c, NULL));
    const stance_contacts *gc = stance_graph_ik_contacts(g, 0, walk);
    CHECK(gc && gc->sample_count == c->sample_count && !memcmp(gc->planted, c->planted, (size_t)(2 * c->sample_count)));
    stance_footlock_desc fd;
    memset(&fd, 0, sizeof fd);
    fd.leg_count = 2;
    const char *hips[2] = {"upleg_l", "upleg_r"}, *knees[2] = {"leg_l", "leg_r"};
    for (int i = 0; i < 2; i++)
        fd.legs[i].upper = stance_skeleton_find(sk, hips[i]), fd.legs[i].lower = stance_skeleton_find(sk, knees[i]), fd.legs[i].foot = feet[i];
    stance_footlock_state st;
    memset(&st, 0, sizeof st);
    stance_pose l, m;
    stance_pose_create(&l, sk->joint_count, NULL, NULL), stance_pose_create(&m, sk->joint_count, NULL, NULL);
    enum { N = 240 };
    static float off[3 * 2 * (N + 1)], on[3 * 2 * (N + 1)], ref[3 * 2 * (N + 1)];
    const float speed = 1.25f * walk->root_speed, dt = 1.0f / 60.0f;
    float t = 0.0f, worst = 0.0f;
    for (int f = 0; f <= N; f++) {
        stance_transform root = stance_transform_identity();
        root.t[2] = speed * (float)f * dt;
        CHECK_OK(stance_instance_set_root(inst, &root, 0, NULL));
        CHECK_OK(stance_instance_update(inst, f ? dt : 0.0f, ws, NULL));
        if (f > 0) stance_clip_advance(walk, t, dt, 1, &t, NULL, 0, NULL, NULL, NULL);
        stance_clip_sample(walk, t, NULL, &l, NULL);
        stance_local_to_model(&m, &l, sk, NULL, NULL);
        for (int i = 0; i < 2; i++) { /* unlocked: the clip's feet moved by the root */
            float *p = off + 3 * (2 * f + i);
            p[0] = m.tx[feet[i]], p[1] = m.ty[feet[i]], p[2] = m.tz[feet[i]] + root.t[2];
        }
        const float contact[2] = {(float)stance_contacts_planted(c, 0, t), (float)stance_contacts_planted(c, 1, t)};
        CHECK_OK(stance_footlock_apply(&fd, &st, contact, &root, f ? dt : 0.0f, sk, &l, &m, NULL));
        const stance_pose *gm = stance_instance_model_pose(inst);
        for (int j = 0; j < sk->joint_count; j++) {
            float d = fabsf(gm->tx[j] - m.tx[j]) + fabsf(gm->ty[j] - m.ty[j]) + fabsf(gm->tz[j] - m.tz[j]);
            if (!(d <= worst)) worst = d; /* NaN counts as worst */
        }
        for (int i = 0; i < 2; i++) {
            float *p = on + 3 * (2 * f + i), *q = ref + 3 * (2 * f + i);
            p[0] = gm->tx[feet[i]], p[1] = gm->ty[feet[i]], p[2] = gm->tz[feet[i]] + root.t[2];
            q[0] = m.tx[feet[i]], q[1] = m.ty[feet[i]], q[2] = m.tz[feet[i]] + root.t[2];
        }
    }
    CHECK(worst < 1e-5f);
    const float metres = speed * N * dt;
    float band = 0.0f, vband = 0.0f;
    stance_slide_bands(sk, feet, 2, speed, &band, &vband, NULL);
    const float s_off = stance_foot_slide(off, N + 1, 2, metres, band, vband, dt);
    const float s_on = stance_foot_slide(on, N + 1, 2, metres, band, vband, dt);
    const float s_ref = stance_foot_slide(ref, N + 1, 2, metres, band, vband, dt);
    printf("  built-in walk, character moved 1.25 x: %.3f -> %.3f cm/m in the graph (job by hand %.3f)\n", (double)s_off,
           (double)s_on, (double)s_ref);
    CHECK(s_off > 10.0f);      /* 0.25 of the distance slides unlocked: ~20 cm/m on the planted share */
    CHECK(s_on < 0.5f);
    CHECK_NEAR(s_on, s_ref, 1e-3);
    /* the footlock state the instance exposes is the job's */
    const stance_footlock_state *gs = stance_instance_footlock_state(inst, 0);
    CHECK(gs && stance_instance_footlock_state(inst, 1) == NULL);
    CHECK(gs && gs->feet[0].planted == st.feet[0].planted && fabsf(gs->feet[0].out[2] - st.feet[0].out[2]) < 1e-5f);
    stance_pose_destroy(&l), stance_pose_destroy(&m);
    stance_contacts_destroy(c);
    stance_workspace_destroy(ws);
    stance_instance_destroy(inst);
    stance_graph_destroy(g);
    stance_builtin_destroy(&b);
}

/* Root motion places the character: without set_root the world root moves
 * by the clip's root path (0, 0, speed t), and the goals hold. */
static void test_root_motion_and_goals(void) {
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    const stance_skeleton *sk = b.skeleton;
    const char *names[2] = {"walk", "run"};
    const int feet[2] = {stance_skeleton_find(sk, "foot_l"), stance_skeleton_find(sk, "foot_r")};
    for (int ci = 0; ci < 2; ci++) {
        const stance_clip *clip = stance_builtin_clip(&b, names[ci]);
        stance_ik_desc k = builtin_feet();
        stance_graph *g = NULL;
        CHECK_OK(one_clip_graph(&b, clip, &k, 1, NULL, &g, NULL));
        stance_instance *inst = NULL;
        stance_workspace *ws = NULL;
        CHECK_OK(stance_instance_create(g, NULL, &inst, NULL));
        CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
        enum { N = 240 };
        static float on[3 * 2 * (N + 1)];
        const float dt = 1.0f / 60.0f;
        for (int f = 0; f <= N; f++) {
            CHECK_OK(stance_instance_update(inst, f ? dt : 0.0f, ws, NULL));
            stance_transform r;
            stance_instance_root(inst, &r);
            const stance_pose *gm = stance_instance_model_pose(inst);
            for (int i = 0; i < 2; i++) {
                float *p = on + 3 * (2 * f + i);
                p[0] = gm->tx[feet[i]] + r.t[0], p[1] = gm->ty[feet[i]] + r.t[1], p[2] = gm->tz[feet[i]] + r.t[2];
            }
        }
        stance_transform r;
        stance_instance_root(inst, &r);
        /* the analytic root path: speed x 4 s */
        CHECK_NEAR(r.t[2], clip->root_speed * N * dt, 1e-3 * clip->root_speed * N * dt);
        CHECK_NEAR(r.t[0], 0.0, 1e-4);
        float band = 0.0f, vband = 0.0f;
        stance_slide_bands(sk, feet, 2, clip->root_speed, &band, &vband, NULL);
        const float s = stance_foot_slide(on, N + 1, 2, clip->root_speed * N * dt, band, vband, dt);
        printf("  built-in %s through the graph, root motion: %.3f cm/m\n", names[ci], (double)s);
        CHECK(s < 0.5f);
        /* reset: the root goes back to the identity */
        CHECK_OK(stance_instance_reset(inst, NULL));
        stance_instance_root(inst, &r);
        CHECK(r.t[2] == 0.0f && !stance_instance_footlock_state(inst, 0)->started);
        stance_workspace_destroy(ws);
        stance_instance_destroy(inst);
        stance_graph_destroy(g);
    }
    stance_builtin_destroy(&b);
}

/* A clip without a root path moves nothing: the world root keeps its
 * translation exactly frame after frame (a zero step rotated and added is
 * the same number), and a -0 in it becomes the sum -0 + 0 = +0 (IEEE 754
 * round to nearest); a clip with one then moves it again. */
static void test_still_root(void) {
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    const stance_clip *idle = stance_builtin_clip(&b, "idle"), *walk = stance_builtin_clip(&b, "walk");
    CHECK(idle->root_key_count == 0 && walk->root_key_count > 0);
    for (int ci = 0; ci < 2; ci++) {
        stance_graph *g = NULL;
        CHECK_OK(one_clip_graph(&b, ci ? walk : idle, NULL, 0, NULL, &g, NULL));
        stance_instance *inst = NULL;
        stance_workspace *ws = NULL;
        CHECK_OK(stance_instance_create(g, NULL, &inst, NULL));
        CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
        stance_transform root = stance_transform_identity(), r;
        root.t[0] = 3.5f, root.t[1] = -0.0f, root.t[2] = 1e-3f;
        root.r[0] = 0.6f, root.r[3] = 0.8f; /* a turn about x */
        root.s[0] = root.s[1] = root.s[2] = 2.0f;
        CHECK_OK(stance_instance_set_root(inst, &root, 0, NULL));
        CHECK_OK(stance_instance_set_root(inst, NULL, 0, NULL)); /* root motion moves it again, from there */
        for (int f = 0; f < 30; f++) {
            CHECK_OK(stance_instance_update(inst, 1.0f / 60.0f, ws, NULL));
            stance_instance_root(inst, &r);
            if (ci == 0) {
                CHECK(r.t[0] == 3.5f && r.t[2] == 1e-3f);
                CHECK(r.t[1] == 0.0f && !signbit(r.t[1]));
            }
        }
        if (ci == 1) /* walk moves forward (+z in the clip, scaled by 2, turned about x into y and z) */
            CHECK(r.t[0] == 3.5f && fabsf(r.t[1]) + fabsf(r.t[2] - 1e-3f) > 0.1f);
        stance_workspace_destroy(ws);
        stance_instance_destroy(inst);
        stance_graph_destroy(g);
    }
    stance_builtin_destroy(&b);
}

/* The controller owns an instance: its update runs the stage, and the
 * instance it lends takes the root and gives the lock state. */
static void test_controller_runs_the_stage(void) {
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    const stance_clip *walk = stance_builtin_clip(&b, "walk");
    stance_ik_desc k = builtin_feet();
    stance_graph *g = NULL;
    CHECK_OK(one_clip_graph(&b, walk, &k, 1, NULL, &g, NULL));
    stance_controller *ctl = NULL;
    CHECK_OK(stance_controller_create(g, NULL, NULL, &ctl, NULL));
    stance_workspace *ws = NULL;
    CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
    stance_instance *inst = stance_controller_instance(ctl);
    const stance_footlock_state *st = stance_instance_footlock_state(inst, 0);
    CHECK(st && !st->started);
    int planted = 0;
    for (int f = 0; f < 60; f++) {
        CHECK_OK(stance_controller_update(ctl, 1.0f / 60.0f, ws, NULL));
        planted += st->feet[0].planted + st->feet[1].planted;
    }
    CHECK(st->started && planted > 0);
    stance_transform r;
    stance_instance_root(inst, &r);
    CHECK_NEAR(r.t[2], walk->root_speed * 1.0, 1e-3 * walk->root_speed); /* 60 frames of root motion */
    stance_workspace_destroy(ws);
    stance_controller_destroy(ctl);
    stance_graph_destroy(g);
    stance_builtin_destroy(&b);
}

/* two_bone and aim entries take their targets from the setter: the pose is
 * the job's run by hand on the layers' output, the ankle reaches its
 * target (analytic: a reachable point), the head's +Z points at its target. */
static void test_two_bone_and_aim(void) {
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    const stance_skeleton *sk = b.skeleton;
    const stance_clip *walk = stance_builtin_clip(&b, "walk");
    stance_ik_desc k[2];
    memset(k, 0, sizeof k);
    k[0].name = "reach", k[0].kind = STANCE_IK_TWO_BONE, k[0].leg_count = 1;
    k[0].legs[0] = (stance_ik_leg_desc){"upleg_l", "leg_l", "foot_l", NULL, NULL};
    k[1].name = "look", k[1].kind = STANCE_IK_AIM, k[1].chain_count = 3;
    k[1].chain[0] = "chest", k[1].chain[1] = "neck", k[1].chain[2] = "head";
    stance_graph *g = NULL;
    stance_error err = {0};
    CHECK_OK(one_clip_graph(&b, walk, k, 2, NULL, &g, &err));
    stance_instance *inst = NULL;
    stance_workspace *ws = NULL;
    CHECK_OK(stance_instance_create(g, NULL, &inst, NULL));
    CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
    const int hip = stance_skeleton_find(sk, "upleg_l"), knee = stance_skeleton_find(sk, "leg_l"), ankle = stance_skeleton_find(sk, "foot_l");
    const int chain[3] = {stance_skeleton_find(sk, "chest"), stance_skeleton_find(sk, "neck"), stance_skeleton_find(sk, "head")};
    stance_pose l, m;
    stance_pose_create(&l, sk->joint_count, NULL, NULL), stance_pose_create(&m, sk->joint_count, NULL, NULL);
    /* weight 0 (the initial target): the pose is the clip's */
    CHECK_OK(stance_instance_update(inst, 0.0f, ws, NULL));
    stance_clip_sample(walk, 0.0f, NULL, &l, NULL);
    stance_local_to_model(&m, &l, sk, NULL, NULL);
    CHECK(fabsf(stance_instance_model_pose(inst)->ty[ankle] - m.ty[ankle]) < 1e-6f);
    /* a reachable target: 10 cm above and forward of the hip's rest reach */
    const float tgt[3] = {m.tx[ankle], m.ty[ankle] + 0.15f, m.tz[ankle] + 0.1f};
    const float look[3] = {m.tx[chain[2]] + 1.0f, m.ty[chain[2]] + 0.2f, m.tz[chain[2]] + 2.0f};
    CHECK_OK(stance_instance_set_ik_target(inst, 0, tgt, 1.0f, NULL));
    CHECK_OK(stance_instance_set_ik_target(inst, 1, look, 1.0f, NULL));
    CHECK_OK(stance_instance_update(inst, 0.0f, ws, NULL));
    const stance_pose *gm = stance_instance_model_pose(inst);
    const float d = sqrtf((gm->tx[ankle] - tgt[0]) * (gm->tx[ankle] - tgt[0]) + (gm->ty[ankle] - tgt[1]) * (gm->ty[ankle] - tgt[1]) +
                          (gm->tz[ankle] - tgt[2]) * (gm->tz[ankle] - tgt[2]));
    CHECK(d < 1e-3f);
    /* the head's +Z (its model rotation applied to (0, 0, 1)) points at the target */
    const int h = chain[2];
    const float x = gm->qx[h], y = gm->qy[h], z = gm->qz[h], w = gm->qw[h];
    const float fz[3] = {2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)};
    float dir[3] = {look[0] - gm->tx[h], look[1] - gm->ty[h], look[2] - gm->tz[h]};
    const float dl = sqrtf(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    const float cosang = (fz[0] * dir[0] + fz[1] * dir[1] + fz[2] * dir[2]) / dl;
    CHECK(cosang > 0.9999f);
    /* the jobs by hand on the clip's pose give the same pose */
    stance_two_bone_desc tb;
    memset(&tb, 0, sizeof tb);
    tb.upper = hip, tb.lower = knee, tb.end = ankle, tb.keep_end_rotation = 1;
    memcpy(tb.target, tgt, sizeof tgt);
    CHECK_OK(stance_ik_two_bone(&tb, 1.0f, sk, &l, &m, NULL, NULL));
    stance_local_to_model(&m, &l, sk, NULL, NULL);
    stance_aim_desc ad;
    memset(&ad, 0, sizeof ad);
    ad.chain_count = 3, ad.chain = chain;
    memcpy(ad.target, look, sizeof look);
    CHECK_OK(stance_ik_aim(&ad, 1.0f, sk, &l, &m, NULL, NULL));
    stance_local_to_model(&m, &l, sk, NULL, NULL);
    float worst = 0.0f;
    for (int j = 0; j < sk->joint_count; j++) {
        float e = fabsf(gm->tx[j] - m.tx[j]) + fabsf(gm->ty[j] - m.ty[j]) + fabsf(gm->tz[j] - m.tz[j]) + fabsf(gm->qw[j] - m.qw[j]);
        if (!(e <= worst)) worst = e;
    }
    CHECK(worst < 1e-5f);
    /* bad targets refused; footlock entries take none */
    const float bad[3] = {0, NAN, 0};
    CHECK_STATUS(stance_instance_set_ik_target(inst, 0, bad, 1.0f, NULL), STANCE_ERR_VALUE);
    CHECK_STATUS(stance_instance_set_ik_target(inst, 0, tgt, 1.5f, NULL), STANCE_ERR_VALUE);
    CHECK_STATUS(stance_instance_set_ik_target(inst, 2, tgt, 1.0f, NULL), STANCE_ERR_NOT_FOUND);
    /* an unreachable target far away: a defined, finite pose */
    const float far[3] = {0.0f, -50.0f, 30.0f};
    CHECK_OK(stance_instance_set_ik_target(inst, 0, far, 1.0f, NULL));
    CHECK_OK(stance_instance_update(inst, 1.0f / 60.0f, ws, NULL));
    for (int j = 0; j < sk->joint_count; j++) CHECK(isfinite(gm->tx[j]) && isfinite(gm->qw[j]));
    stance_pose_destroy(&l), stance_pose_destroy(&m);
    stance_workspace_destroy(ws);
    stance_instance_destroy(inst);
    stance_graph_destroy(g);
    /* bad entries */
    stance_ik_desc bk = k[1];
    bk.chain[1] = "nek";
    expect_refused(&b, &bk, 1, "did you mean 'neck'");
    bk = k[1], bk.chain[0] = "head", bk.chain[2] = "chest";
    expect_refused(&b, &bk, 1, "ik 'look'");
    bk = k[1], bk.chain_count = 0;
    expect_refused(&b, &bk, 1, "chain_count 0");
    bk = k[0], bk.leg_count = 2;
    expect_refused(&b, &bk, 1, "leg_count 2 is not in 1..1");
    stance_builtin_destroy(&b);
}

/* A two_bone entry's pole: the knee bends towards it. Analytic: the ankle
 * on a reachable target, the knee in the plane of hip, target and pole and
 * on the pole's side of the hip-target line, on the other side when the
 * pole flips. Cleared (NULL) or after reset: the plain solve again. */
static void knee_side(const stance_pose *m, int hip, int knee, const float tgt[3], const float pole[3], float *off_plane,
                      float *side) {
    float a[3] = {tgt[0] - m->tx[hip], tgt[1] - m->ty[hip], tgt[2] - m->tz[hip]};
    float p[3] = {pole[0] - m->tx[hip], pole[1] - m->ty[hip], pole[2] - m->tz[hip]};
    float k[3] = {m->tx[knee] - m->tx[hip], m->ty[knee] - m->ty[hip], m->tz[knee] - m->tz[hip]};
    float n[3] = {a[1] * p[2] - a[2] * p[1], a[2] * p[0] - a[0] * p[2], a[0] * p[1] - a[1] * p[0]};
    float nl = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), al2 = a[0] * a[0] + a[1] * a[1] + a[2] * a[2];
    *off_plane = fabsf(n[0] * k[0] + n[1] * k[1] + n[2] * k[2]) / nl;
    /* the pole's and the knee's parts perpendicular to the hip-target line */
    float pa = (p[0] * a[0] + p[1] * a[1] + p[2] * a[2]) / al2, ka = (k[0] * a[0] + k[1] * a[1] + k[2] * a[2]) / al2;
    float pp[3] = {p[0] - pa * a[0], p[1] - pa * a[1], p[2] - pa * a[2]}, kp[3] = {k[0] - ka * a[0], k[1] - ka * a[1], k[2] - ka * a[2]};
    *side = pp[0] * kp[0] + pp[1] * kp[1] + pp[2] * kp[2];
}

static void test_two_bone_pole(void) {
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    const stance_skeleton *sk = b.skeleton;
    const stance_clip *walk = stance_builtin_clip(&b, "walk");
    stance_ik_desc k[2];
    memset(k, 0, sizeof k);
    k[0].name = "reach", k[0].kind = STANCE_IK_TWO_BONE, k[0].leg_count = 1;
    k[0].legs[0] = (stance_ik_leg_desc){"upleg_l", "leg_l", "foot_l", NULL, NULL};
    k[1].name = "look", k[1].kind = STANCE_IK_AIM, k[1].chain_count = 1;
    k[1].chain[0] = "head";
    stance_graph *g = NULL;
    CHECK_OK(one_clip_graph(&b, walk, k, 2, NULL, &g, NULL));
    stance_instance *inst = NULL, *plain = NULL, *copy = NULL;
    stance_workspace *ws = NULL;
    CHECK_OK(stance_instance_create(g, NULL, &inst, NULL));
    CHECK_OK(stance_instance_create(g, NULL, &plain, NULL));
    CHECK_OK(stance_instance_create(g, NULL, &copy, NULL));
    CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
    const int hip = stance_skeleton_find(sk, "upleg_l"), knee = stance_skeleton_find(sk, "leg_l"), ankle = stance_skeleton_find(sk, "foot_l");
    CHECK_OK(stance_instance_update(inst, 0.0f, ws, NULL));
    const stance_pose *gm = stance_instance_model_pose(inst);
    /* a reachable target 25 cm up and 10 cm forward of the ankle: the knee must bend */
    const float tgt[3] = {gm->tx[ankle], gm->ty[ankle] + 0.25f, gm->tz[ankle] + 0.1f};
    const float hipp[3] = {gm->tx[hip], gm->ty[hip], gm->tz[hip]};
    const float poles[3][3] = {{hipp[0] + 1.0f, hipp[1] - 0.4f, hipp[2]},   /* out to the side */
                               {hipp[0] - 1.0f, hipp[1] - 0.4f, hipp[2]},   /* the other side */
                               {hipp[0], hipp[1] - 0.4f, hipp[2] + 1.0f}};  /* forward */
    CHECK_OK(stance_instance_set_ik_target(inst, 0, tgt, 1.0f, NULL));
    for (int i = 0; i < 3; i++) {
        CHECK_OK(stance_instance_set_ik_pole(inst, 0, poles[i], NULL));
        CHECK_OK(stance_instance_update(inst, 0.0f, ws, NULL));
        float d = sqrtf((gm->tx[ankle] - tgt[0]) * (gm->tx[ankle] - tgt[0]) + (gm->ty[ankle] - tgt[1]) * (gm->ty[ankle] - tgt[1]) +
                        (gm->tz[ankle] - tgt[2]) * (gm->tz[ankle] - tgt[2]));
        float off, side;
        knee_side(gm, hip, knee, tgt, poles[i], &off, &side);
        printf("  pole %d: ankle %.2e m from the target, knee %.2e m off the plane, side %+.4f\n", i, (double)d, (double)off, (double)side);
        CHECK(d < 1e-3f);
        CHECK(off < 1e-4f);
        CHECK(side > 0.0f);
        /* against the other side's pole the knee is on the far side */
        float off2, side2;
        knee_side(gm, hip, knee, tgt, poles[i == 1 ? 0 : 1], &off2, &side2);
        if (i < 2) CHECK(side2 < 0.0f);
    }
    /* a copy carries the pole, and so does hot reload onto the same graph */
    CHECK_OK(stance_instance_copy(copy, inst, NULL));
    CHECK_OK(stance_instance_update(copy, 0.0f, ws, NULL));
    CHECK(fabsf(stance_instance_model_pose(copy)->tx[knee] - gm->tx[knee]) < 1e-6f);
    CHECK_OK(stance_instance_reset(copy, NULL));
    CHECK_OK(stance_instance_transfer(copy, inst, NULL, 0, NULL));
    CHECK_OK(stance_instance_update(copy, 0.0f, ws, NULL));
    CHECK(fabsf(stance_instance_model_pose(copy)->tx[knee] - gm->tx[knee]) < 1e-6f);
    /* cleared: the plain solve (an instance that never had a pole) */
    CHECK_OK(stance_instance_set_ik_target(plain, 0, tgt, 1.0f, NULL));
    CHECK_OK(stance_instance_update(plain, 0.0f, ws, NULL));
    const stance_pose *pm = stance_instance_model_pose(plain);
    CHECK_OK(stance_instance_set_ik_pole(inst, 0, NULL, NULL));
    CHECK_OK(stance_instance_update(inst, 0.0f, ws, NULL));
    CHECK(fabsf(gm->tx[knee] - pm->tx[knee]) + fabsf(gm->ty[knee] - pm->ty[knee]) + fabsf(gm->tz[knee] - pm->tz[knee]) < 1e-6f);
    /* reset clears it too */
    CHECK_OK(stance_instance_set_ik_pole(inst, 0, poles[0], NULL));
    CHECK_OK(stance_instance_reset(inst, NULL));
    CHECK_OK(stance_instance_set_ik_target(inst, 0, tgt, 1.0f, NULL));
    CHECK_OK(stance_instance_update(inst, 0.0f, ws, NULL));
    CHECK(fabsf(gm->tx[knee] - pm->tx[knee]) + fabsf(gm->ty[knee] - pm->ty[knee]) + fabsf(gm->tz[knee] - pm->tz[knee]) < 1e-6f);
    /* refused: a pole on an aim entry, a bad index, a NaN pole, no instance */
    const float nan_pole[3] = {0.0f, NAN, 0.0f};
    stance_error err = {0};
    CHECK_STATUS(stance_instance_set_ik_pole(inst, 1, poles[0], &err), STANCE_ERR_ARGUMENT);
    CHECK(strstr(err.message, "'look' is not a two_bone entry") != NULL);
    CHECK_STATUS(stance_instance_set_ik_pole(inst, 2, poles[0], NULL), STANCE_ERR_NOT_FOUND);
    CHECK_STATUS(stance_instance_set_ik_pole(inst, -1, poles[0], NULL), STANCE_ERR_NOT_FOUND);
    CHECK_STATUS(stance_instance_set_ik_pole(inst, 0, nan_pole, NULL), STANCE_ERR_VALUE);
    CHECK_STATUS(stance_instance_set_ik_pole(NULL, 0, poles[0], NULL), STANCE_ERR_ARGUMENT);
    /* a pole on the hip-target line (degenerate): a defined, finite pose */
    const float on_line[3] = {hipp[0] + 2.0f * (tgt[0] - hipp[0]), hipp[1] + 2.0f * (tgt[1] - hipp[1]), hipp[2] + 2.0f * (tgt[2] - hipp[2])};
    CHECK_OK(stance_instance_set_ik_pole(inst, 0, on_line, NULL));
    CHECK_OK(stance_instance_update(inst, 1.0f / 60.0f, ws, NULL));
    for (int j = 0; j < sk->joint_count; j++) CHECK(isfinite(gm->tx[j]) && isfinite(gm->qw[j]));
    stance_workspace_destroy(ws);
    stance_instance_destroy(inst), stance_instance_destroy(plain), stance_instance_destroy(copy);
    stance_graph_destroy(g);
    stance_builtin_destroy(&b);
}

/* While a switch blends, the footlock entry counts both sides' contacts,
 * the old by 1 - the eased weight, in every blending mode (not only
 * crossfade): Stand (both feet planted, from events) -> Air (neither) over
 * T = 0.26 s with smoothstep easing: contact = 1 - smoothstep(t / T), so the
 * feet stay locked while t <= T / 2 (7 frames at 60 Hz) and are released
 * from the next frame on. A cut releases them at the switch. */
static void test_contacts_both_sides(void) {
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    const stance_skeleton *sk = b.skeleton;
    const stance_event_desc stand_ev[4] = {{"down_l", 0.0f}, {"up_l", 0.99f}, {"down_r", 0.0f}, {"up_r", 0.99f}};
    const stance_event_desc air_ev[4] = {{"up_l", 0.0f}, {"down_l", 0.99f}, {"up_r", 0.0f}, {"down_r", 0.99f}};
    stance_clip_desc cs = {.name = "stand", .duration = 1.0f, .event_count = 4, .events = stand_ev};
    stance_clip_desc ca = {.name = "air", .duration = 1.0f, .event_count = 4, .events = air_ev};
    stance_clip *stand = NULL, *air = NULL;
    CHECK_OK(stance_clip_create(&cs, sk, NULL, &stand, NULL));
    CHECK_OK(stance_clip_create(&ca, sk, NULL, &air, NULL));
    stance_ik_desc k = builtin_feet();
    k.legs[0].down_event = "down_l", k.legs[0].up_event = "up_l";
    k.legs[1].down_event = "down_r", k.legs[1].up_event = "up_r";
    const float T = 0.26f;
    const stance_switch_mode modes[] = {STANCE_SWITCH_INERTIALIZE, STANCE_SWITCH_INERTIALIZE_SIMPLE, STANCE_SWITCH_DEADBLEND,
                                        STANCE_SWITCH_CROSSFADE, STANCE_SWITCH_CUT};
    for (int mi = 0; mi < 5; mi++) {
        stance_param_desc param = {"go", STANCE_PARAM_TRIGGER, 0, 0};
        stance_condition_desc go = {.param = "go", .op = STANCE_CMP_TRUE};
        stance_transition_desc tr = {.from = "Stand", .to = "Air", .condition_count = 1, .conditions = &go, .blend_time = T,
                                     .mode = modes[mi]};
        stance_state_desc st[2] = {{.name = "Stand", .clip = stand}, {.name = "Air", .clip = air}};
        stance_machine_desc md = {.name = "m", .state_count = 2, .states = st, .transition_count = 1, .transitions = &tr};
        stance_graph_desc gd = {.skeleton = sk, .param_count = 1, .params = &param, .machine_count = 1, .machines = &md,
                                .ik_count = 1, .ik = &k};
        stance_graph *g = NULL;
        CHECK_OK(stance_graph_create(&gd, NULL, &g, NULL));
        stance_instance *inst = NULL;
        stance_workspace *ws = NULL;
        CHECK_OK(stance_instance_create(g, NULL, &inst, NULL));
        CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
        const stance_footlock_state *fl = stance_instance_footlock_state(inst, 0);
        const int fs = 18;
        int last_planted = -1, first_free = -1;
        for (int f = 0; f < fs + 30; f++) {
            if (f == fs) CHECK_OK(stance_instance_set_trigger(inst, 0, NULL));
            CHECK_OK(stance_instance_update(inst, 1.0f / 60.0f, ws, NULL));
            const int planted = fl->feet[0].planted && fl->feet[1].planted, free_ = !fl->feet[0].planted && !fl->feet[1].planted;
            if (f < fs) CHECK(planted);
            if (f >= fs && planted) last_planted = f - fs;
            if (f >= fs && free_ && first_free < 0) first_free = f - fs;
        }
        printf("  %-18s feet locked through frame %d of the blend, free from %d\n", stance_switch_mode_name(modes[mi]), last_planted,
               first_free);
        if (modes[mi] == STANCE_SWITCH_CUT) CHECK(last_planted == -1 && first_free == 0);
        else CHECK(last_planted == 7 && first_free == 8); /* 7/60 <= T/2 = 0.13 < 8/60 */
        stance_workspace_destroy(ws);
        stance_instance_destroy(inst);
        stance_graph_destroy(g);
    }
    stance_clip_destroy(stand), stance_clip_destroy(air);
    stance_builtin_destroy(&b);
}

static void test_no_allocation_per_update(void) {
    counter cnt = {0, 0, 0};
    stance_allocator al = {count_alloc, count_free, &cnt};
    stance_builtin b;
    CHECK_OK(stance_builtin_create(&al, &b, NULL));
    stance_ik_desc k = builtin_feet();
    stance_graph *g = NULL;
    CHECK_OK(one_clip_graph(&b, stance_builtin_clip(&b, "walk"), &k, 1, &al, &g, NULL));
    stance_instance *inst = NULL;
    stance_workspace *ws = NULL;
    CHECK_OK(stance_instance_create(g, &al, &inst, NULL));
    CHECK_OK(stance_workspace_create(g, &al, &ws, NULL));
    const long allocs = cnt.allocs;
    const size_t heap_before = heap_in_use();
    for (int f = 0; f < 600; f++) {
        stance_transform root = stance_transform_identity();
        root.t[2] = 2.0f * (float)f / 60.0f;
        if (f % 200 == 199) CHECK_OK(stance_instance_set_root(inst, &root, 1, NULL)); /* a teleport */
        CHECK_OK(stance_instance_update(inst, 1.0f / 60.0f, ws, NULL));
    }
    const size_t heap_after = heap_in_use();
    CHECK(cnt.allocs == allocs);
    CHECK(heap_after == heap_before);
    stance_workspace_destroy(ws);
    stance_instance_destroy(inst);
    stance_graph_destroy(g);
    stance_builtin_destroy(&b);
    CHECK(cnt.live == 0 && cnt.allocs == cnt.frees);
}

static void test_teleport_forgets_locks(void) {
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    stance_ik_desc k = builtin_feet();
    stance_graph *g = NULL;
    CHECK_OK(one_clip_graph(&b, stance_builtin_clip(&b, "walk"), &k, 1, NULL, &g, NULL));
    stance_instance *inst = NULL;
    stance_workspace *ws = NULL;
    CHECK_OK(stance_instance_create(g, NULL, &inst, NULL));
    CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
    for (int f = 0; f < 30; f++) CHECK_OK(stance_instance_update(inst, 1.0f / 60.0f, ws, NULL));
    const stance_footlock_state *st = stance_instance_footlock_state(inst, 0);
    CHECK(st->started);
    stance_transform far = stance_transform_identity();
    far.t[0] = 100.0f;
    CHECK_OK(stance_instance_set_root(inst, &far, 1, NULL));
    CHECK(!st->started);
    CHECK_OK(stance_instance_update(inst, 1.0f / 60.0f, ws, NULL));
    /* the feet are where the animation puts them at the new place: no leg stretched back 100 m */
    const stance_pose *gm = stance_instance_model_pose(inst);
    const int fl = stance_skeleton_find(b.skeleton, "foot_l");
    CHECK(fabsf(gm->tx[fl]) < 1.0f && fabsf(st->feet[0].out[0] - 100.0f) < 1.0f);
    /* bad roots are refused, nothing changes */
    stance_transform bad = far;
    bad.t[1] = NAN;
    CHECK_STATUS(stance_instance_set_root(inst, &bad, 0, NULL), STANCE_ERR_VALUE);
    bad = far, bad.r[3] = 2.0f;
    CHECK_STATUS(stance_instance_set_root(inst, &bad, 0, NULL), STANCE_ERR_VALUE);
    bad = far, bad.s[1] = 0.0f;
    CHECK_STATUS(stance_instance_set_root(inst, &bad, 0, NULL), STANCE_ERR_VALUE);
    stance_transform r;
    stance_instance_root(inst, &r);
    CHECK(r.t[0] == 100.0f);
    CHECK_STATUS(stance_instance_set_root(NULL, &far, 0, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_instance_set_ground(NULL, NULL, NULL, NULL), STANCE_ERR_ARGUMENT);
    for (int j = 0; j < gm->joint_count; j++) CHECK(isfinite(gm->tx[j]) && isfinite(gm->qw[j]));
    /* hot reload: a new instance (here of a graph without the entry) takes the root; the entry is reported */
    stance_graph *g2 = NULL;
    stance_instance *i2 = NULL;
    CHECK_OK(one_clip_graph(&b, stance_builtin_clip(&b, "walk"), NULL, 0, NULL, &g2, NULL));
    CHECK_OK(stance_instance_create(g2, NULL, &i2, NULL));
    char report[256];
    CHECK_OK(stance_instance_transfer(i2, inst, report, sizeof report, NULL));
    stance_instance_root(i2, &r);
    CHECK(r.t[0] == 100.0f && strstr(report, "dropped ik entry 'feet'") != NULL);
    stance_instance_destroy(i2);
    stance_graph_destroy(g2);
    stance_workspace_destroy(ws);
    stance_instance_destroy(inst);
    stance_graph_destroy(g);
    stance_builtin_destroy(&b);
}

static float step_ground(void *user, float x, float z) {
    (void)x;
    return z > *(float *)user ? 0.1f : 0.0f;
}

/* Uneven ground from the instance's callback: a planted foot past the step sits 0.1 higher. */
static void test_ground_callback(void) {
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    stance_ik_desc k = builtin_feet();
    stance_graph *g = NULL;
    CHECK_OK(one_clip_graph(&b, stance_builtin_clip(&b, "walk"), &k, 1, NULL, &g, NULL));
    stance_instance *a = NULL, *c = NULL;
    stance_workspace *ws = NULL;
    CHECK_OK(stance_instance_create(g, NULL, &a, NULL));
    CHECK_OK(stance_instance_create(g, NULL, &c, NULL));
    CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
    float step = -1000.0f; /* all the ground is 0.1 up */
    CHECK_OK(stance_instance_set_ground(c, step_ground, &step, NULL));
    float worst = 0.0f;
    int planted = 0;
    for (int f = 0; f < 120; f++) {
        CHECK_OK(stance_instance_update(a, 1.0f / 60.0f, ws, NULL));
        CHECK_OK(stance_instance_update(c, 1.0f / 60.0f, ws, NULL));
        const stance_footlock_state *sa = stance_instance_footlock_state(a, 0), *sc = stance_instance_footlock_state(c, 0);
        for (int i = 0; i < 2; i++)
            if (sa->feet[i].planted && sc->feet[i].planted) {
                planted++;
                float d = fabsf(sc->feet[i].out[1] - sa->feet[i].out[1] - 0.1f);
                if (!(d <= worst)) worst = d;
            }
    }
    CHECK(planted > 20);
    CHECK(worst < 1e-3f);
    stance_workspace_destroy(ws);
    stance_instance_destroy(a), stance_instance_destroy(c);
    stance_graph_destroy(g);
    stance_builtin_destroy(&b);
}

static void expect_refused(const stance_builtin *b, const stance_ik_desc *k, int count, const char *needle) {
    stance_graph *g = NULL;
    stance_error err = {0};
    stance_status s = one_clip_graph(b, stance_builtin_clip(b, "walk"), k, count, NULL, &g, &err);
    CHECK(s != STANCE_OK && g == NULL);
    CHECK(strstr(err.message, needle) != NULL);
    if (!strstr(err.message, needle)) printf("  message: %s (wanted '%s')\n", err.message, needle);
    stance_graph_destroy(g);
}

static void test_bad_entries(void) {
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    stance_ik_desc k = builtin_feet(), two[2];
    k.legs[1].knee = "leg_rr";
    expect_refused(&b, &k, 1, "did you mean 'leg_r'");
    k = builtin_feet(), k.leg_count = 0;
    expect_refused(&b, &k, 1, "leg_count 0");
    k = builtin_feet(), k.kind = (stance_ik_kind)7;
    expect_refused(&b, &k, 1, "unknown kind");
    k = builtin_feet(), k.blend_time = NAN;
    expect_refused(&b, &k, 1, "finite");
    k = builtin_feet(), k.softness = 0.7f;
    expect_refused(&b, &k, 1, "softness");
    k = builtin_feet(), k.legs[1] = k.legs[0];
    expect_refused(&b, &k, 1, "overlap");
    k = builtin_feet(), k.legs[0].down_event = "footdown_l";
    expect_refused(&b, &k, 1, "both down_event and up_event");
    k = builtin_feet(), k.name = NULL;
    expect_refused(&b, &k, 1, "name is empty");
    two[0] = builtin_feet(), two[1] = builtin_feet();
    expect_refused(&b, two, 2, "taken");
    expect_refused(&b, two, STANCE_MAX_IK + 1, "ik_count");
    stance_builtin_destroy(&b);
}

int main(void) {
    RUN(test_stage_matches_the_job);
    RUN(test_root_motion_and_goals);
    RUN(test_still_root);
    RUN(test_controller_runs_the_stage);
    RUN(test_two_bone_and_aim);
    RUN(test_two_bone_pole);
    RUN(test_contacts_both_sides);
    RUN(test_no_allocation_per_update);
    RUN(test_teleport_forgets_locks);
    RUN(test_ground_callback);
    RUN(test_bad_entries);
    return check_summary();
}
