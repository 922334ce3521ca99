/* tests/test_root_extract.c - root motion extraction (stance/build.h, issue
 * 25 item 1): the pelvis finder, leg lengths, and stance_clip_extract_root on
 * a clip whose travel is in the pelvis' track under an armature joint that
 * is rotated and scaled (as DCC exports put a character under a node). The
 * reference is the input clip itself, sampled and put in model space here
 * by a composition written in this test: the extracted clip's pelvis plus
 * its root path must give the input's pelvis horizontally at every key and
 * between keys; its height keeps its motion, with the loop's height residual
 * spread linearly; the declared motion is the per-cycle travel. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stance/build.h"
#include "stance/stance.h"

enum { ARM, PELVIS, HIP_L, KNEE_L, FOOT_L, HIP_R, KNEE_R, FOOT_R, SPINE, J };
static const int PARENTS[J] = {-1, ARM, PELVIS, HIP_L, KNEE_L, PELVIS, HIP_R, KNEE_R, PELVIS};
enum { K = 31 };
static const float T = 1.2f, SCALE = 0.01f, TRAVEL = 130.0f, RESIDUAL = 0.4f; /* armature units: centimetres */

/* the armature: 90 deg about Y and scale 0.01 (a file in centimetres, +X forward in the file) */
static void arm_rot(float q[4]) { q[0] = 0.0f, q[1] = sinf(0.25f * 3.14159265f), q[2] = 0.0f, q[3] = cosf(0.25f * 3.14159265f); }

/* v rotated by unit quaternion q (v + 2w(u x v) + 2u x (u x v)) */
static void rot(const float q[4], const float v[3], float o[3]) {
    const float ux = q[0], uy = q[1], uz = q[2], w = q[3];
    const float cx = uy * v[2] - uz * v[1], cy = uz * v[0] - ux * v[2], cz = ux * v[1] - uy * v[0];
    const float dx = uy * cz - uz * cy, dy = uz * cx - ux * cz, dz = ux * cy - uy * cx;
    o[0] = v[0] + 2.0f * (w * cx + dx), o[1] = v[1] + 2.0f * (w * cy + dy), o[2] = v[2] + 2.0f * (w * cz + dz);
}

/* the pelvis' model position from its local translation (the armature has no keys) */
static void pelvis_model(const float local[3], float out[3]) {
    float q[4], s[3] = {local[0] * SCALE, local[1] * SCALE, local[2] * SCALE};
    arm_rot(q);
    rot(q, s, out);
}

static void make(stance_skeleton **sk, stance_clip **clip, float residual) {
    stance_transform rest[J];
    for (int i = 0; i < J; i++) rest[i] = stance_transform_identity();
    arm_rot(rest[ARM].r);
    rest[ARM].s[0] = rest[ARM].s[1] = rest[ARM].s[2] = SCALE;
    rest[PELVIS].t[1] = 95.0f;
    rest[HIP_L].t[2] = 10.0f, rest[HIP_R].t[2] = -10.0f;
    rest[KNEE_L].t[1] = rest[KNEE_R].t[1] = -42.0f;
    rest[FOOT_L].t[1] = rest[FOOT_R].t[1] = -45.0f, rest[FOOT_L].t[0] = rest[FOOT_R].t[0] = 3.0f;
    rest[SPINE].t[1] = 20.0f;
    stance_skeleton_desc sd = {J, NULL, PARENTS, rest};
    CHECK_OK(stance_skeleton_create(&sd, NULL, sk, NULL));
    static float times[K], pt[3 * K], kr[4 * K];
    for (int k = 0; k < K; k++) {
        const float t = T * (float)k / (float)(K - 1), u = t / T;
        times[k] = t;
        /* forward (+X in the file) with a surge, a sway (Z) and a bob; the height ends `residual` higher */
        pt[3 * k] = TRAVEL * u + 3.0f * sinf(4.0f * 3.14159265f * u);
        pt[3 * k + 1] = 92.0f + 1.5f * cosf(4.0f * 3.14159265f * u) + residual * u;
        pt[3 * k + 2] = 2.0f * sinf(2.0f * 3.14159265f * u);
        const float a = 0.3f * sinf(2.0f * 3.14159265f * u);
        kr[4 * k] = 0.0f, kr[4 * k + 1] = 0.0f, kr[4 * k + 2] = sinf(a / 2), kr[4 * k + 3] = cosf(a / 2);
    }
    stance_track_desc tr[2] = {{PELVIS, STANCE_CHANNEL_TRANSLATION, K, times, pt}, {KNEE_L, STANCE_CHANNEL_ROTATION, K, times, kr}};
    stance_event_desc ev = {"footdown_l", 0.3f};
    stance_clip_desc cd = {.name = "walk", .duration = T, .track_count = 2, .tracks = tr, .event_count = 1, .events = &ev};
    CHECK_OK(stance_clip_create(&cd, *sk, NULL, clip, NULL));
}

static void test_extract(void) {
    stance_skeleton *sk = NULL;
    stance_clip *clip = NULL;
    make(&sk, &clip, RESIDUAL);

    /* the pelvis: the first joint with translation keys carrying two legs */
    int j = -2;
    CHECK_OK(stance_root_find_joint(sk, clip, &j, NULL));
    CHECK(j == PELVIS);
    /* leg length: |hip-knee| + |knee-foot| at the rest pose, model units (x 0.01) */
    float leg = 0.0f;
    CHECK_OK(stance_leg_length(sk, FOOT_L, &leg, NULL));
    CHECK_NEAR(leg, SCALE * (42.0f + sqrtf(45.0f * 45.0f + 3.0f * 3.0f)), 1e-5);
    int hip = -1, knee = -1;
    CHECK_OK(stance_leg_find(sk, FOOT_R, &hip, &knee, NULL));
    CHECK(hip == HIP_R && knee == KNEE_R);

    stance_root_desc rd = {STANCE_ROOT_HIPS, NULL, 0, 0};
    stance_clip *z = NULL;
    CHECK_OK(stance_clip_extract_root(clip, sk, &rd, NULL, &z, NULL));
    CHECK(z && z->root_key_count == clip->key_count && !z->root_from_joint0 && z->event_count == 1 && z->events[0].time == 0.3f);
    stance_pose l, m;
    stance_pose_create(&l, J, NULL, NULL), stance_pose_create(&m, J, NULL, NULL);
    float p0[3];
    {
        float loc0[3];
        CHECK_OK(stance_clip_sample(clip, 0.0f, NULL, &l, NULL));
        loc0[0] = l.tx[PELVIS], loc0[1] = l.ty[PELVIS], loc0[2] = l.tz[PELVIS];
        pelvis_model(loc0, p0);
    }
    double worst_h = 0.0, worst_v = 0.0, worst_other = 0.0;
    for (int i = 0; i <= 4 * (K - 1); i++) {
        const float t = T * (float)i / (float)(4 * (K - 1));
        /* the reference: the input's pelvis in model space (this test's composition) */
        CHECK_OK(stance_clip_sample(clip, t, NULL, &l, NULL));
        const float loc[3] = {l.tx[PELVIS], l.ty[PELVIS], l.tz[PELVIS]};
        const float knee_qz = l.qz[KNEE_L];
        float ref[3];
        pelvis_model(loc, ref);
        /* the in-place clip's pelvis (the runtime's local-to-model) plus its path */
        CHECK_OK(stance_clip_sample(z, t, NULL, &l, NULL));
        CHECK_OK(stance_local_to_model(&m, &l, sk, NULL, NULL));
        float r[3], r0[3];
        CHECK_OK(stance_clip_root_position(z, t, r, NULL));
        CHECK_OK(stance_clip_root_position(z, 0.0f, r0, NULL));
        CHECK(r[1] == 0.0f);
        const double dh = hypot(m.tx[PELVIS] + r[0] - r0[0] - ref[0], m.tz[PELVIS] + r[2] - r0[2] - ref[2]);
        /* the height: the input's minus the residual spread over the cycle */
        const double dv = fabs(m.ty[PELVIS] - (ref[1] - RESIDUAL * SCALE * t / T));
        /* the in-place pelvis stays where it was at time 0, horizontally */
        const double dp = hypot(m.tx[PELVIS] - p0[0], m.tz[PELVIS] - p0[2]);
        worst_h = dh > worst_h ? dh : worst_h, worst_v = dv > worst_v ? dv : worst_v;
        worst_other = fmax(worst_other, fmax(dp, fabs(l.qz[KNEE_L] - knee_qz)));
    }
    printf("  pelvis + path vs the input: %.2e horizontally, %.2e in height (residual spread); in place within %.2e\n", worst_h, worst_v,
           worst_other);
    CHECK(worst_h < 2e-5 && worst_v < 2e-5 && worst_other < 2e-5);
    /* the loop closes in height, and the declared motion is the per-cycle travel (model units) */
    CHECK_OK(stance_clip_sample(z, 0.0f, NULL, &l, NULL));
    const float y0 = l.ty[PELVIS];
    CHECK_OK(stance_clip_sample(z, T, NULL, &l, NULL));
    CHECK_NEAR(l.ty[PELVIS], y0, 1e-4);
    {
        float a[3], b[3], la[3] = {0.0f, 0.0f, 0.0f}, lb[3] = {TRAVEL, 0.0f, 0.0f};
        pelvis_model(la, a), pelvis_model(lb, b); /* the surge and sway are 0 at both ends */
        const float travel = hypotf(b[0] - a[0], b[2] - a[2]);
        CHECK_NEAR(z->root_speed, travel / T, 1e-4 * travel / T);
        float d[3];
        CHECK_OK(stance_clip_root_motion(z, 0.9f * T, 0.2f * T, 1, d, NULL)); /* across the wrap: no pop */
        float e[3], f[3], g[3], h[3];
        stance_clip_root_position(z, 0.9f * T, e, NULL), stance_clip_root_position(z, T, f, NULL);
        stance_clip_root_position(z, 0.1f * T, g, NULL), stance_clip_root_position(z, 0.0f, h, NULL);
        CHECK_NEAR(d[0], (f[0] - e[0]) + (g[0] - h[0]), 1e-4);
        CHECK_NEAR(d[2], (f[2] - e[2]) + (g[2] - h[2]), 1e-4);
    }
    stance_clip_destroy(z);

    /* ROOT: no ancestor of the pelvis moves here (the armature has no keys): refused, suggesting hips */
    stance_error err = {0};
    rd.mode = STANCE_ROOT_ROOT;
    CHECK(stance_clip_extract_root(clip, sk, &rd, NULL, &z, &err) == STANCE_ERR_NOT_FOUND && !z && strstr(err.message, "--root-motion hips"));
    CHECK(stance_root_find_bone(sk, clip, &j, &err) == STANCE_ERR_NOT_FOUND && j == -1 && strstr(err.message, "joint1"));
    /* by name, and bad input */
    rd.mode = STANCE_ROOT_HIPS, rd.joint = "joint1";
    CHECK_OK(stance_clip_extract_root(clip, sk, &rd, NULL, &z, NULL));
    stance_clip_destroy(z), z = NULL;
    rd.joint = "nobody";
    CHECK(stance_clip_extract_root(clip, sk, &rd, NULL, &z, &err) == STANCE_ERR_NOT_FOUND && strstr(err.message, "nobody"));
    rd.joint = NULL, rd.mode = (stance_root_mode)7;
    CHECK(stance_clip_extract_root(clip, sk, &rd, NULL, &z, &err) == STANCE_ERR_ARGUMENT);
    CHECK(stance_clip_extract_root(NULL, sk, &rd, NULL, &z, &err) == STANCE_ERR_ARGUMENT);
    CHECK(stance_root_find_joint(sk, NULL, &j, &err) == STANCE_ERR_ARGUMENT);
    CHECK(stance_leg_length(sk, J, &leg, &err) == STANCE_ERR_ARGUMENT && leg == 0.0f);
    /* NONE: an exact copy */
    rd.mode = STANCE_ROOT_NONE;
    CHECK_OK(stance_clip_extract_root(clip, sk, &rd, NULL, &z, NULL));
    CHECK_OK(stance_clip_sample(z, 0.37f, NULL, &l, NULL));
    CHECK_OK(stance_clip_sample(clip, 0.37f, NULL, &m, NULL));
    CHECK(l.tx[PELVIS] == m.tx[PELVIS] && l.qz[KNEE_L] == m.qz[KNEE_L]);
    stance_clip_destroy(z);

    /* a clip whose pelvis has no translation keys: no joint found */
    {
        float times[1] = {0.0f}, q[4] = {0, 0, 0, 1};
        stance_track_desc tr = {KNEE_L, STANCE_CHANNEL_ROTATION, 1, times, q};
        stance_clip_desc cd = {.name = "still", .duration = 1.0f, .track_count = 1, .tracks = &tr};
        stance_clip *still = NULL;
        CHECK_OK(stance_clip_create(&cd, sk, NULL, &still, NULL));
        CHECK(stance_root_find_joint(sk, still, &j, &err) == STANCE_ERR_NOT_FOUND && j == -1);
        stance_clip_destroy(still);
    }
    stance_pose_destroy(&l), stance_pose_destroy(&m);
    stance_clip_destroy(clip), stance_skeleton_destroy(sk);
}

/* ---- root paths with yaw: the clip's motion and the instance's world root ----
 * A path on a circle: heading w t, position (r (1 - cos w t), 0, r sin w t)
 * (forward +Z at 0, turning towards +X: +Y yaw), keyed densely. Played
 * continuously, the world root is that closed form at the total time,
 * whatever the wraps. */
static const float W = 0.5f, R = 2.0f;
enum { YK = 241 };

static void circle(float tau, float p[3], float *yaw) {
    p[0] = R * (1.0f - cosf(W * tau)), p[1] = 0.0f, p[2] = R * sinf(W * tau), *yaw = W * tau;
}

static void test_yaw_path(void) {
    stance_transform rest[2] = {stance_transform_identity(), stance_transform_identity()};
    const int parents[2] = {-1, 0};
    stance_skeleton_desc sd = {2, NULL, parents, rest};
    stance_skeleton *sk = NULL;
    CHECK_OK(stance_skeleton_create(&sd, NULL, &sk, NULL));
    static float times[YK], pos[3 * YK], yaw[YK], q[4 * YK];
    for (int k = 0; k < YK; k++) {
        times[k] = (float)k / (float)(YK - 1);
        circle(times[k], pos + 3 * k, &yaw[k]);
        q[4 * k] = q[4 * k + 1] = q[4 * k + 2] = 0.0f, q[4 * k + 3] = 1.0f;
    }
    stance_track_desc tr = {1, STANCE_CHANNEL_ROTATION, YK, times, q};
    stance_clip_desc cd = {.name = "arc", .duration = 1.0f, .track_count = 1, .tracks = &tr, .root_key_count = YK,
                           .root_times = times, .root_values = pos, .root_yaw = yaw};
    stance_clip *clip = NULL;
    CHECK_OK(stance_clip_create(&cd, sk, NULL, &clip, NULL));
    CHECK(clip && clip->root_yaw && stance_clip_root_yaw(clip, 0.5f) == yaw[120]);
    /* across wraps, both ways: the motion in the frame at the start, the turn */
    const float starts[3] = {0.7f, 0.2f, 0.9f}, dts[3] = {2.5f, -1.6f, 0.05f};
    for (int i = 0; i < 3; i++) {
        float d[3], y = 0.0f, a[3], b[3], ya, yb;
        CHECK_OK(stance_clip_root_motion_yaw(clip, starts[i], dts[i], 1, d, &y, NULL));
        circle(starts[i], a, &ya), circle(starts[i] + dts[i], b, &yb);
        const float c = cosf(-ya), sn = sinf(-ya), dx = b[0] - a[0], dz = b[2] - a[2];
        CHECK_NEAR(y, yb - ya, 1e-5);
        CHECK_NEAR(d[0], c * dx + sn * dz, 1e-4);
        CHECK_NEAR(d[2], -sn * dx + c * dz, 1e-4);
        float d3[3];
        CHECK_OK(stance_clip_root_motion(clip, starts[i], dts[i], 1, d3, NULL));
        CHECK(d3[0] == d[0] && d3[2] == d[2]);
    }
    /* bad yaw keys are refused */
    float bad[YK];
    memcpy(bad, yaw, sizeof bad);
    bad[7] = NAN;
    cd.root_yaw = bad;
    stance_clip *no = NULL;
    CHECK(stance_clip_create(&cd, sk, NULL, &no, NULL) == STANCE_ERR_VALUE && !no);
    bad[7] = yaw[7] + 4.0f; /* not unwrapped */
    CHECK(stance_clip_create(&cd, sk, NULL, &no, NULL) == STANCE_ERR_VALUE && !no);
    cd.root_yaw = yaw;

    /* the instance turns its world root: 3.5 s at 60 Hz */
    stance_state_desc st = {.name = "arc", .clip = clip};
    stance_machine_desc md = {.name = "m", .state_count = 1, .states = &st};
    stance_graph_desc gd = {.skeleton = sk, .machine_count = 1, .machines = &md};
    stance_graph *g = NULL;
    stance_instance *inst = NULL;
    stance_workspace *ws = NULL;
    CHECK_OK(stance_graph_create(&gd, NULL, &g, NULL));
    CHECK_OK(stance_instance_create(g, NULL, &inst, NULL));
    CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
    for (int f = 0; f <= 210; f++) CHECK_OK(stance_instance_update(inst, f ? 1.0f / 60.0f : 0.0f, ws, NULL));
    stance_transform r;
    stance_instance_root(inst, &r);
    float p[3], y;
    circle(3.5f, p, &y);
    printf("  world root after 3.5 s on the arc: (%.5f, %.5f) yaw %.5f (closed form (%.5f, %.5f) yaw %.5f)\n", (double)r.t[0],
           (double)r.t[2], 2.0 * atan2((double)r.r[1], (double)r.r[3]), (double)p[0], (double)p[2], (double)y);
    CHECK_NEAR(r.t[0], p[0], 2e-3);
    CHECK_NEAR(r.t[2], p[2], 2e-3);
    CHECK_NEAR(r.r[1], sinf(0.5f * y), 1e-4);
    CHECK_NEAR(r.r[3], cosf(0.5f * y), 1e-4);
    CHECK(r.r[0] == 0.0f && r.r[2] == 0.0f);
    CHECK_NEAR(stance_instance_root_yaw(inst), W / 60.0f, 1e-5);

    /* the file keeps the yaw: save, load, the same motion (exact and compressed) */
    stance_asset a;
    memset(&a, 0, sizeof a);
    stance_clip *clips[1] = {clip};
    a.skeleton = sk, a.clip_count = 1, a.clips = clips;
    for (int pass = 0; pass < 2; pass++) {
        stance_clip *src = clip, *zc = NULL;
        if (pass == 1) {
            stance_compress_settings cs = {0.0001f, 0.03f, 0};
            CHECK_OK(stance_clip_compress(clip, sk, &cs, NULL, &zc, NULL));
            clips[0] = src = zc;
        }
        void *bytes = NULL;
        size_t size = 0;
        CHECK_OK(stance_asset_save_memory(&a, &bytes, &size, NULL, NULL));
        stance_asset b;
        memset(&b, 0, sizeof b);
        CHECK_OK(stance_asset_load_memory(bytes, size, NULL, &b, NULL));
        CHECK(b.clip_count == 1 && b.clips[0]->root_yaw && b.clips[0]->root_key_count == YK);
        float d0[3], d1[3], y0 = 0.0f, y1 = 1.0f;
        CHECK_OK(stance_clip_root_motion_yaw(src, 0.3f, 1.9f, 1, d0, &y0, NULL));
        CHECK_OK(stance_clip_root_motion_yaw(b.clips[0], 0.3f, 1.9f, 1, d1, &y1, NULL));
        CHECK(y0 == y1 && d0[0] == d1[0] && d0[2] == d1[2]);
        stance_asset_destroy(&b);
        stance_asset_free_bytes(bytes, size, NULL);
        stance_clip_destroy(zc);
        clips[0] = clip;
    }
    stance_workspace_destroy(ws), stance_instance_destroy(inst), stance_graph_destroy(g);
    stance_clip_destroy(clip), stance_skeleton_destroy(sk);
}

/* ---- ROOT: a root bone (joint 1) carrying the travel under a static armature node (joint 0) ----
 * The bone's local track is made here (forward along +X in the file, a
 * sway, a constant 2 cm height); the reference is its model position
 * computed by hand (the armature's 90 deg about Y and 0.01 scale), not by
 * stance: the path is its horizontal travel since time 0, and the bone keeps
 * its height in the in-place clip. */
enum { B_ARM, B_ROOT, B_PELVIS, B_HIP_L, B_FOOT_L, B_HIP_R, B_FOOT_R, BJ };
static const int BP[BJ] = {-1, B_ARM, B_ROOT, B_PELVIS, B_HIP_L, B_PELVIS, B_HIP_R};
/* the rig: the armature node (90 deg about Y, 0.01), the root bone, the pelvis and two legs */
static stance_skeleton *root_rig(void) {
    stance_transform rest[BJ];
    for (int i = 0; i < BJ; i++) rest[i] = stance_transform_identity();
    arm_rot(rest[B_ARM].r);
    rest[B_ARM].s[0] = rest[B_ARM].s[1] = rest[B_ARM].s[2] = SCALE;
    rest[B_PELVIS].t[1] = 95.0f;
    rest[B_HIP_L].t[2] = 10.0f, rest[B_HIP_R].t[2] = -10.0f;
    rest[B_FOOT_L].t[1] = rest[B_FOOT_R].t[1] = -87.0f;
    stance_skeleton_desc sd = {BJ, NULL, BP, rest};
    stance_skeleton *sk = NULL;
    CHECK_OK(stance_skeleton_create(&sd, NULL, &sk, NULL));
    return sk;
}
static void test_root_bone(void) {
    stance_skeleton *sk = root_rig();
    static float times[K], rt[3 * K], pt[3 * K];
    for (int k = 0; k < K; k++) {
        const float t = T * (float)k / (float)(K - 1), u = t / T;
        times[k] = t;
        rt[3 * k] = TRAVEL * u, rt[3 * k + 1] = 2.0f, rt[3 * k + 2] = 1.5f * sinf(2.0f * 3.14159265f * u);
        /* the pelvis bobs above the root bone and sways a little, no travel */
        pt[3 * k] = 1.0f * sinf(4.0f * 3.14159265f * u), pt[3 * k + 1] = 93.0f + 1.5f * cosf(4.0f * 3.14159265f * u), pt[3 * k + 2] = 0.0f;
    }
    /* the armature has keys too, standing still (an exporter's armature node): not the root bone */
    static const float arm_t[6] = {0, 0, 0, 0, 0, 0}, two[2] = {0.0f, T};
    stance_track_desc tr[3] = {{B_ARM, STANCE_CHANNEL_TRANSLATION, 2, two, arm_t},
                               {B_ROOT, STANCE_CHANNEL_TRANSLATION, K, times, rt},
                               {B_PELVIS, STANCE_CHANNEL_TRANSLATION, K, times, pt}};
    stance_clip_desc cd = {.name = "walk_root", .duration = T, .track_count = 3, .tracks = tr};
    stance_clip *clip = NULL, *z = NULL;
    CHECK_OK(stance_clip_create(&cd, sk, NULL, &clip, NULL));
    int j = -1;
    CHECK_OK(stance_root_find_bone(sk, clip, &j, NULL));
    CHECK(j == B_ROOT);
    CHECK_OK(stance_root_find_joint(sk, clip, &j, NULL));
    CHECK(j == B_PELVIS);
    stance_root_desc rd = {STANCE_ROOT_ROOT, NULL, 0, 0};
    CHECK_OK(stance_clip_extract_root(clip, sk, &rd, NULL, &z, NULL));
    stance_pose l, m;
    CHECK_OK(stance_pose_create(&l, BJ, NULL, NULL));
    CHECK_OK(stance_pose_create(&m, BJ, NULL, NULL));
    float r0[3];
    pelvis_model(rt, r0);
    double worst = 0.0;
    for (int k = 0; k < K; k++) {
        float rk[3], p[3];
        pelvis_model(rt + 3 * k, rk);
        CHECK_OK(stance_clip_root_position(z, times[k], p, NULL));
        worst = fmax(worst, fmax(fabs(p[0] - (rk[0] - r0[0])), fabs(p[2] - (rk[2] - r0[2]))));
        CHECK_NEAR(p[1], 0.0, 1e-6);
        /* the in-place root bone keeps its height and stands over its spot at time 0 */
        CHECK_OK(stance_clip_sample(z, times[k], NULL, &l, NULL));
        stance_local_to_model(&m, &l, sk, NULL, NULL);
        CHECK_NEAR(m.ty[B_ROOT], rk[1], 1e-5);
        CHECK_NEAR(m.tx[B_ROOT], r0[0], 1e-4);
        CHECK_NEAR(m.tz[B_ROOT], r0[2], 1e-4);
    }
    float end[3];
    CHECK_OK(stance_clip_root_position(z, T, end, NULL));
    const double travel = TRAVEL * SCALE; /* the generator's own figure: 130 cm forward */
    printf("  root bone: joint %d, path travel %.5f m (made %.5f), worst path error %.2e m\n", B_ROOT,
           sqrt((double)end[0] * end[0] + (double)end[2] * end[2]), travel, worst);
    CHECK(fabs(sqrt((double)end[0] * end[0] + (double)end[2] * end[2]) - travel) <= 0.01 * travel);
    CHECK(worst <= 1e-4);
    stance_clip_destroy(z), z = NULL;
    stance_pose_destroy(&l), stance_pose_destroy(&m);
    stance_clip_destroy(clip), stance_skeleton_destroy(sk);
}

/* ---- ROOT with full rotation: the root bone (under the armature node) climbs
 * a ramp pitched 10 deg, banks (rolls) back and forth and turns. The
 * reference is this test's composition of the file's keys (armature 90 deg
 * about Y, scale 0.01, then the bone's keys, then the children's rest):
 * the path's rotation at each key is the bone's model rotation relative to
 * time 0, and the path applied to the extracted clip's model pose gives the
 * original model pose of the bone and every joint below it. */
static void qmul_d(double o[4], const double a[4], const double b[4]) {
    double r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1], a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                   a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3], a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    memcpy(o, r, sizeof r);
}
static void qrot_d(double o[3], const double q[4], const double v[3]) {
    const double c[4] = {-q[0], -q[1], -q[2], q[3]}, vq[4] = {v[0], v[1], v[2], 0.0};
    double t[4], r[4];
    qmul_d(t, q, vq), qmul_d(r, t, c);
    o[0] = r[0], o[1] = r[1], o[2] = r[2];
}
static void qaxis_d(double o[4], double x, double y, double z, double angle) {
    o[0] = x * sin(0.5 * angle), o[1] = y * sin(0.5 * angle), o[2] = z * sin(0.5 * angle), o[3] = cos(0.5 * angle);
}
/* the bone's local keys at u in [0, 1]: up a 10 deg ramp along +X (the file's forward), rolling and turning */
static void ramp_local(double u, double t[3], double q[4]) {
    const double pitch = 10.0 * 3.14159265358979 / 180.0, roll = 0.15 * sin(2.0 * 3.14159265358979 * u), yaw = 0.4 * u;
    double qy[4], qp[4], qr[4], a[4];
    qaxis_d(qy, 0, 1, 0, yaw), qaxis_d(qp, 0, 0, 1, pitch), qaxis_d(qr, 1, 0, 0, roll);
    qmul_d(a, qy, qp), qmul_d(q, a, qr);
    t[0] = TRAVEL * u, t[1] = 2.0 + TRAVEL * u * tan(pitch), t[2] = 4.0 * sin(2.0 * 3.14159265358979 * u);
}

static void test_root_rotation(void) {
    stance_skeleton *sk = root_rig();
    static float times[K], rt[3 * K], rq[4 * K], pt[3 * K];
    for (int k = 0; k < K; k++) {
        const float t = T * (float)k / (float)(K - 1), u = t / T;
        double tt[3], qq[4];
        ramp_local(u, tt, qq);
        times[k] = t;
        for (int c = 0; c < 3; c++) rt[3 * k + c] = (float)tt[c];
        for (int c = 0; c < 4; c++) rq[4 * k + c] = (float)qq[c];
        pt[3 * k] = 1.0f * sinf(4.0f * 3.14159265f * u), pt[3 * k + 1] = 93.0f + 1.5f * cosf(4.0f * 3.14159265f * u), pt[3 * k + 2] = 0.0f;
    }
    stance_track_desc tr[3] = {{B_ROOT, STANCE_CHANNEL_TRANSLATION, K, times, rt}, {B_ROOT, STANCE_CHANNEL_ROTATION, K, times, rq},
                               {B_PELVIS, STANCE_CHANNEL_TRANSLATION, K, times, pt}};
    stance_clip_desc cd = {.name = "ramp", .duration = T, .track_count = 3, .tracks = tr, .slerp = 1};
    stance_clip *clip = NULL, *z = NULL;
    CHECK_OK(stance_clip_create(&cd, sk, NULL, &clip, NULL));
    stance_root_desc rd = {STANCE_ROOT_ROOT, NULL, 0, 1};
    CHECK_OK(stance_clip_extract_root(clip, sk, &rd, NULL, &z, NULL));
    CHECK(z && z->root_rotation && !z->root_yaw && z->root_key_count == K);
    /* the test's model transforms: the armature (a[4], SCALE), the bone, the pelvis, hips, feet */
    const double aq[4] = {0.0, sin(0.25 * 3.14159265358979), 0.0, cos(0.25 * 3.14159265358979)};
    double q0[4] = {0, 0, 0, 1};
    stance_pose l, m;
    CHECK_OK(stance_pose_create(&l, BJ, NULL, NULL));
    CHECK_OK(stance_pose_create(&m, BJ, NULL, NULL));
    double worst_r = 0.0, worst_p = 0.0, bone0[3] = {0, 0, 0};
    for (int k = 0; k < K; k++) {
        double tt[3], qq[4], bq[4], bp3[3], st[3];
        ramp_local(times[k] / T, tt, qq);
        for (int c = 0; c < 3; c++) st[c] = SCALE * tt[c];
        qmul_d(bq, aq, qq), qrot_d(bp3, aq, st); /* the bone's model rotation and position */
        if (k == 0) memcpy(q0, bq, sizeof q0);
        /* the path's rotation: bq q0^-1 */
        const double q0i[4] = {-q0[0], -q0[1], -q0[2], q0[3]};
        double rel[4];
        qmul_d(rel, bq, q0i);
        float pr[4], pp[3];
        CHECK_OK(stance_clip_root_rotation(z, times[k], pr, NULL));
        CHECK_OK(stance_clip_root_position(z, times[k], pp, NULL));
        const double reli[4] = {-rel[0], -rel[1], -rel[2], rel[3]}, prq[4] = {pr[0], pr[1], pr[2], pr[3]};
        double dq[4]; /* the angle between them: 2 atan2(|v|, |w|) of rel^-1 pr */
        qmul_d(dq, reli, prq);
        worst_r = fmax(worst_r, 2.0 * atan2(sqrt(dq[0] * dq[0] + dq[1] * dq[1] + dq[2] * dq[2]), fabs(dq[3])));
        /* every joint from the bone down: the reference model position, and the path applied to stance's model pose */
        double ref[BJ][3];
        memcpy(ref[B_ROOT], bp3, sizeof bp3);
        const double pelvis_l[3] = {SCALE * pt[3 * k], SCALE * pt[3 * k + 1], SCALE * pt[3 * k + 2]};
        double w[3];
        qrot_d(w, bq, pelvis_l);
        for (int c = 0; c < 3; c++) ref[B_PELVIS][c] = bp3[c] + w[c];
        const double offs[4][3] = {{0, 0, 10.0 * SCALE}, {0, -87.0 * SCALE, 0}, {0, 0, -10.0 * SCALE}, {0, -87.0 * SCALE, 0}};
        const int js[4] = {B_HIP_L, B_FOOT_L, B_HIP_R, B_FOOT_R};
        for (int i = 0; i < 4; i++) {
            qrot_d(w, bq, offs[i]);
            for (int c = 0; c < 3; c++) ref[js[i]][c] = ref[BP[js[i]]][c] + w[c];
        }
        CHECK_OK(stance_clip_sample(z, times[k], NULL, &l, NULL));
        stance_local_to_model(&m, &l, sk, NULL, NULL);
        const double prd[4] = {pr[0], pr[1], pr[2], pr[3]};
        for (int jj = B_ROOT; jj < BJ; jj++) {
            const double mv[3] = {m.tx[jj], m.ty[jj], m.tz[jj]};
            double o[3];
            qrot_d(o, prd, mv);
            for (int c = 0; c < 3; c++) worst_p = fmax(worst_p, fabs(pp[c] + o[c] - ref[jj][c]));
        }
        /* the bone itself stands still in the path's frame: its time-0 model transform */
        if (k == 0) memcpy(bone0, bp3, sizeof bone0);
        CHECK_NEAR(m.tx[B_ROOT], bone0[0], 1e-5);
        CHECK_NEAR(m.ty[B_ROOT], bone0[1], 1e-5);
        CHECK_NEAR(m.tz[B_ROOT], bone0[2], 1e-5);
    }
    float end[3];
    CHECK_OK(stance_clip_root_position(z, T, end, NULL));
    printf("  root bone with full rotation (10 deg ramp, rolling, turning): path rotation off by <= %.2g rad, model positions "
           "off by <= %.2g m, travel (%.4f, %.4f, %.4f)\n", worst_r, worst_p, (double)end[0], (double)end[1], (double)end[2]);
    CHECK(worst_r <= 1e-5);
    CHECK(worst_p <= 2e-5);
    CHECK(end[1] > 0.2f); /* the ramp's climb is in the path: 1.3 m x tan 10 deg */
    CHECK_NEAR(end[1], TRAVEL * SCALE * tan(10.0 * 3.14159265358979 / 180.0), 1e-4);
    /* the hips mode refuses full rotation, suggesting the yaw */
    stance_root_desc hd = {STANCE_ROOT_HIPS, NULL, 0, 1};
    stance_clip *no = NULL;
    stance_error err;
    CHECK(stance_clip_extract_root(clip, sk, &hd, NULL, &no, &err) == STANCE_ERR_ARGUMENT && !no);
    CHECK(strstr(err.message, "--root-yaw") != NULL);
    printf("  hips with rotation: %s\n", err.message);
    stance_pose_destroy(&l), stance_pose_destroy(&m);
    stance_clip_destroy(z), stance_clip_destroy(clip), stance_skeleton_destroy(sk);
}

int main(void) {
    RUN(test_extract);
    RUN(test_yaw_path);
    RUN(test_root_bone);
    RUN(test_root_rotation);
    return check_summary();
}
