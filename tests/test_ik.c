/* tests/test_ik.c - the IK jobs against analytic answers: two-bone IK
 * (reachable targets hit within 1e-4, the knee angle from the law of
 * cosines, out of reach = straight towards the target, the soft limit's
 * exponential form, pole sides, weights, the end joint's rotation kept, an
 * IK control bone as the end), aim over a chain (the target direction hit,
 * per-joint limits, the up axis), and degenerate or bad input: no NaN, a
 * defined pose, errors for NaN targets. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "stance/stance.h"
#include "heap_use.h"

#define PI 3.14159265358979

typedef struct v3 { double x, y, z; } v3;
static v3 pos(const stance_pose *m, int j) { v3 r = {m->tx[j], m->ty[j], m->tz[j]}; return r; }
static v3 sub(v3 a, v3 b) { v3 r = {a.x - b.x, a.y - b.y, a.z - b.z}; return r; }
static double dot(v3 a, v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static double len(v3 a) { return sqrt(dot(a, a)); }
static v3 cross(v3 a, v3 b) { v3 r = {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; return r; }
static double angle(v3 a, v3 b) { return atan2(len(cross(a, b)), dot(a, b)); }
/* q rotates v (x y z w) */
static v3 qrot(const stance_pose *m, int j, v3 v) {
    double x = m->qx[j], y = m->qy[j], z = m->qz[j], w = m->qw[j];
    v3 u = {x, y, z}, t = cross(u, v);
    t.x *= 2, t.y *= 2, t.z *= 2;
    v3 c = cross(u, t), r = {v.x + w * t.x + c.x, v.y + w * t.y + c.y, v.z + w * t.z + c.z};
    return r;
}
static int finite_pose(const stance_pose *p) {
    for (int j = 0; j < p->joint_count; j++) {
        float v[10] = {p->tx[j], p->ty[j], p->tz[j], p->qx[j], p->qy[j], p->qz[j], p->qw[j], p->sx[j], p->sy[j], p->sz[j]};
        for (int i = 0; i < 10; i++)
            if (!isfinite(v[i])) return 0;
    }
    return 1;
}

/* pelvis (0) at y = 1, hip (1), knee (2) 0.5 below, ankle (3) 0.4 below the
 * knee, toe (4); a 5th joint, a control bone under the pelvis (5). The knee
 * is bent `bend` radians about X (its shin swings forward, +Z). */
enum { PELVIS, HIP, KNEE, ANKLE, TOE, CTRL, LEG_JOINTS };
static const double L1 = 0.5, L2 = 0.4;

static stance_skeleton *leg(float bend) {
    const int parents[LEG_JOINTS] = {-1, 0, 1, 2, 3, 0};
    stance_transform rest[LEG_JOINTS];
    for (int i = 0; i < LEG_JOINTS; i++) rest[i] = stance_transform_identity();
    rest[PELVIS].t[1] = 1.0f;
    rest[HIP].t[0] = 0.1f;
    rest[KNEE].t[1] = -(float)L1;
    rest[ANKLE].t[1] = -(float)L2;
    rest[TOE].t[2] = 0.1f;
    rest[CTRL].t[0] = 0.1f, rest[CTRL].t[1] = -0.9f;
    /* knee bend: rotation about -X moves the shin (down) towards +Z */
    rest[KNEE].r[0] = -sinf(bend / 2), rest[KNEE].r[3] = cosf(bend / 2);
    stance_skeleton_desc d = {LEG_JOINTS, NULL, parents, rest};
    stance_skeleton *sk = NULL;
    CHECK_OK(stance_skeleton_create(&d, NULL, &sk, NULL));
    return sk;
}

typedef struct rig { stance_skeleton *sk; stance_pose local, model; } rig;
static void rig_make(rig *r, float bend) {
    r->sk = leg(bend);
    stance_pose_create(&r->local, LEG_JOINTS, NULL, NULL);
    stance_pose_create(&r->model, LEG_JOINTS, NULL, NULL);
    stance_pose_set_rest(&r->local, r->sk, NULL);
    stance_local_to_model(&r->model, &r->local, r->sk, NULL, NULL);
}
static void rig_update(rig *r) { stance_local_to_model(&r->model, &r->local, r->sk, NULL, NULL); }
static void rig_free(rig *r) {
    stance_pose_destroy(&r->local), stance_pose_destroy(&r->model);
    stance_skeleton_destroy(r->sk);
}
static stance_two_bone_desc chain(double x, double y, double z) {
    stance_two_bone_desc d;
    memset(&d, 0, sizeof d);
    d.upper = HIP, d.lower = KNEE, d.end = ANKLE;
    d.target[0] = (float)x, d.target[1] = (float)y, d.target[2] = (float)z;
    return d;
}

static void test_reachable_targets_are_hit(void) {
    unsigned seed = 12345;
    int hits = 0;
    for (int i = 0; i < 200; i++) {
        rig r;
        rig_make(&r, 0.4f);
        /* a target around the hip (0.1, 1, 0), at 0.15..0.85 m */
        double u[3];
        for (int k = 0; k < 3; k++) seed = seed * 1103515245u + 12345u, u[k] = ((seed >> 8) & 0xffff) / 65535.0;
        double th = u[0] * 2 * PI, ph = acos(2 * u[1] - 1), d = 0.15 + 0.7 * u[2];
        v3 hip = pos(&r.model, HIP);
        v3 t = {hip.x + d * sin(ph) * cos(th), hip.y + d * cos(ph), hip.z + d * sin(ph) * sin(th)};
        stance_two_bone_desc td = chain(t.x, t.y, t.z);
        stance_two_bone_result res;
        CHECK_OK(stance_ik_two_bone(&td, 1.0f, r.sk, &r.local, &r.model, &res, NULL));
        rig_update(&r);
        v3 a = pos(&r.model, HIP), b = pos(&r.model, KNEE), c = pos(&r.model, ANKLE);
        double miss = len(sub(c, t));
        hits += miss <= 1e-4;
        if (miss > 1e-4) fprintf(stderr, "target %d at %.3f m missed by %g\n", i, d, miss);
        /* bones keep their lengths; the knee's angle is the law of cosines' */
        CHECK_NEAR(len(sub(b, a)), L1, 1e-5);
        CHECK_NEAR(len(sub(c, b)), L2, 1e-5);
        double want = acos((L1 * L1 + L2 * L2 - d * d) / (2 * L1 * L2));
        CHECK_NEAR(angle(sub(a, b), sub(c, b)), want, 1e-3);
        CHECK(!res.unreachable && res.error < 1e-4f);
        rig_free(&r);
    }
    CHECK(hits == 200);
}

static void test_unreachable_is_straight_towards_target(void) {
    rig r;
    rig_make(&r, 0.6f);
    v3 hip = pos(&r.model, HIP);
    v3 t = {hip.x + 0.8, hip.y - 1.2, hip.z + 0.5};
    stance_two_bone_desc td = chain(t.x, t.y, t.z);
    stance_two_bone_result res;
    CHECK_OK(stance_ik_two_bone(&td, 1.0f, r.sk, &r.local, &r.model, &res, NULL));
    rig_update(&r);
    v3 a = pos(&r.model, HIP), b = pos(&r.model, KNEE), c = pos(&r.model, ANKLE);
    CHECK(res.unreachable);
    CHECK_NEAR(len(sub(c, a)), L1 + L2, 1e-4);        /* straight */
    CHECK(angle(sub(c, a), sub(t, a)) < 1e-3);        /* towards the target */
    CHECK(angle(sub(b, a), sub(c, b)) < 2e-3);        /* knee on the line */
    CHECK_NEAR(res.error, len(sub(t, a)) - (L1 + L2), 1e-4);
    rig_free(&r);
}

static void test_straight_leg_bends_in_a_defined_plane(void) {
    rig r;
    rig_make(&r, 0.0f); /* no bend plane to keep */
    stance_two_bone_desc td = chain(0.1, 1.0 - 0.6, 0.0);
    td.hinge[0] = 1.0f; /* the knee hinges about X: it bends in the YZ plane */
    stance_two_bone_result res;
    CHECK_OK(stance_ik_two_bone(&td, 1.0f, r.sk, &r.local, &r.model, &res, NULL));
    rig_update(&r);
    CHECK(finite_pose(&r.local) && finite_pose(&r.model));
    CHECK_NEAR(len(sub(pos(&r.model, ANKLE), (v3){0.1, 0.4, 0.0})), 0.0, 1e-4);
    CHECK_NEAR(r.model.tx[KNEE], 0.1, 1e-4);           /* knee stays in the hinge plane */
    CHECK(fabs(r.model.tz[KNEE]) > 0.1);               /* and did bend */
    /* without a hinge: still defined and reached */
    rig r2;
    rig_make(&r2, 0.0f);
    stance_two_bone_desc t2 = chain(0.1, 0.4, 0.0);
    CHECK_OK(stance_ik_two_bone(&t2, 1.0f, r2.sk, &r2.local, &r2.model, &res, NULL));
    rig_update(&r2);
    CHECK(finite_pose(&r2.local));
    CHECK_NEAR(len(sub(pos(&r2.model, ANKLE), (v3){0.1, 0.4, 0.0})), 0.0, 1e-4);
    /* a straight leg asked to stay straight: nothing to do */
    rig r3;
    rig_make(&r3, 0.0f);
    stance_two_bone_desc t3 = chain(0.1, 1.0 - 0.9, 0.0);
    CHECK_OK(stance_ik_two_bone(&t3, 1.0f, r3.sk, &r3.local, &r3.model, &res, NULL));
    rig_update(&r3);
    CHECK_NEAR(r3.model.ty[ANKLE], 0.1, 1e-5);
    CHECK_NEAR(r3.model.tz[KNEE], 0.0, 1e-5);
    rig_free(&r), rig_free(&r2), rig_free(&r3);
}

static void test_pole_flips_knee(void) {
    for (int side = -1; side <= 1; side += 2) {
        rig r;
        rig_make(&r, 0.5f); /* knee bent forward (+Z) */
        stance_two_bone_desc td = chain(0.1, 0.35, 0.0);
        td.use_pole = 1;
        td.pole[0] = 0.1f, td.pole[1] = 0.7f, td.pole[2] = (float)side; /* in front or behind */
        CHECK_OK(stance_ik_two_bone(&td, 1.0f, r.sk, &r.local, &r.model, NULL, NULL));
        rig_update(&r);
        CHECK_NEAR(len(sub(pos(&r.model, ANKLE), (v3){0.1, 0.35, 0.0})), 0.0, 1e-4);
        CHECK(r.model.tz[KNEE] * side > 0.1);             /* the knee points at the pole's side */
        CHECK_NEAR(r.model.tx[KNEE], 0.1, 1e-4);          /* in the plane of hip, target and pole */
        rig_free(&r);
    }
    /* a pole to the side (+X) swings the knee out */
    rig r;
    rig_make(&r, 0.5f);
    stance_two_bone_desc td = chain(0.1, 0.35, 0.0);
    td.use_pole = 1, td.pole[0] = 2.0f, td.pole[1] = 0.7f;
    CHECK_OK(stance_ik_two_bone(&td, 1.0f, r.sk, &r.local, &r.model, NULL, NULL));
    rig_update(&r);
    CHECK(r.model.tx[KNEE] > 0.2 && fabs(r.model.tz[KNEE]) < 1e-4);
    rig_free(&r);
}

static void test_soft_limit(void) {
    const double s = 0.1, reach = L1 + L2, soft = s * reach, da = reach - soft;
    double last = 0;
    for (int i = 0; i <= 20; i++) {
        double d = 0.6 + 0.03 * i; /* across da = 0.81 and past the reach 0.9 */
        rig r;
        rig_make(&r, 0.5f);
        v3 hip = pos(&r.model, HIP);
        stance_two_bone_desc td = chain(hip.x, hip.y - d * 0.8, hip.z + d * 0.6);
        td.softness = (float)s;
        CHECK_OK(stance_ik_two_bone(&td, 1.0f, r.sk, &r.local, &r.model, NULL, NULL));
        rig_update(&r);
        double got = len(sub(pos(&r.model, ANKLE), hip));
        double want = d <= da ? d : da + soft * (1 - exp(-(d - da) / soft));
        CHECK_NEAR(got, want, 1e-4);
        CHECK(got < reach);
        CHECK(got >= last - 1e-6); /* monotone */
        last = got;
        rig_free(&r);
    }
}

static void test_weight_and_end_rotation(void) {
    rig r0, r1, rh;
    rig_make(&r0, 0.5f), rig_make(&r1, 0.5f), rig_make(&rh, 0.5f);
    stance_two_bone_desc td = chain(0.3, 0.4, 0.2);
    td.keep_end_rotation = 1;
    stance_pose before;
    stance_pose_create(&before, LEG_JOINTS, NULL, NULL);
    stance_pose_copy(&before, &r0.local, NULL);
    CHECK_OK(stance_ik_two_bone(&td, 0.0f, r0.sk, &r0.local, &r0.model, NULL, NULL));
    CHECK(!memcmp(before.memory, r0.local.memory, stance_pose_bytes(LEG_JOINTS))); /* weight 0: untouched */
    stance_transform ankle_before;
    stance_pose_get(&r1.model, ANKLE, &ankle_before, NULL);
    CHECK_OK(stance_ik_two_bone(&td, 1.0f, r1.sk, &r1.local, &r1.model, NULL, NULL));
    CHECK_OK(stance_ik_two_bone(&td, 0.5f, rh.sk, &rh.local, &rh.model, NULL, NULL));
    rig_update(&r1), rig_update(&rh);
    /* the ankle kept its model rotation */
    double dq = fabs(ankle_before.r[0] * r1.model.qx[ANKLE] + ankle_before.r[1] * r1.model.qy[ANKLE] +
                     ankle_before.r[2] * r1.model.qz[ANKLE] + ankle_before.r[3] * r1.model.qw[ANKLE]);
    CHECK_NEAR(dq, 1.0, 1e-6);
    /* half weight lands between the two */
    v3 c0 = {ankle_before.t[0], ankle_before.t[1], ankle_before.t[2]}, c1 = pos(&r1.model, ANKLE), ch = pos(&rh.model, ANKLE);
    CHECK(len(sub(ch, c0)) > 0.01 && len(sub(ch, c1)) > 0.01);
    CHECK(len(sub(ch, c0)) < len(sub(c1, c0)));
    stance_pose_destroy(&before);
    rig_free(&r0), rig_free(&r1), rig_free(&rh);
}

static void test_control_bone_end(void) {
    /* the end is CTRL, a joint under the pelvis placed at the ankle: the
     * lower bone carries it as a point */
    rig r;
    rig_make(&r, 0.5f);
    /* put the control bone where the ankle is */
    r.local.tx[CTRL] = r.model.tx[ANKLE] - r.model.tx[PELVIS];
    r.local.ty[CTRL] = r.model.ty[ANKLE] - r.model.ty[PELVIS];
    r.local.tz[CTRL] = r.model.tz[ANKLE] - r.model.tz[PELVIS];
    rig_update(&r);
    v3 off = sub(pos(&r.model, CTRL), pos(&r.model, KNEE));
    /* the offset in the knee's frame: inverse-rotate */
    stance_pose inv;
    stance_pose_create(&inv, LEG_JOINTS, NULL, NULL);
    inv.qx[0] = -r.model.qx[KNEE], inv.qy[0] = -r.model.qy[KNEE], inv.qz[0] = -r.model.qz[KNEE], inv.qw[0] = r.model.qw[KNEE];
    v3 off_local = qrot(&inv, 0, off);
    stance_two_bone_desc td = chain(0.25, 0.45, 0.15);
    td.end = CTRL;
    stance_transform ctrl_before;
    stance_pose_get(&r.local, CTRL, &ctrl_before, NULL);
    CHECK_OK(stance_ik_two_bone(&td, 1.0f, r.sk, &r.local, &r.model, NULL, NULL));
    rig_update(&r);
    v3 carried = qrot(&r.model, KNEE, off_local);
    v3 p = {r.model.tx[KNEE] + carried.x, r.model.ty[KNEE] + carried.y, r.model.tz[KNEE] + carried.z};
    CHECK_NEAR(len(sub(p, (v3){0.25, 0.45, 0.15})), 0.0, 1e-4);
    CHECK(r.local.tx[CTRL] == ctrl_before.t[0] && r.local.ty[CTRL] == ctrl_before.t[1]); /* not moved by the job */
    stance_pose_destroy(&inv);
    rig_free(&r);
}

static void test_degenerate_and_bad_input(void) {
    rig r;
    rig_make(&r, 0.5f);
    stance_pose before;
    stance_pose_create(&before, LEG_JOINTS, NULL, NULL);
    stance_pose_copy(&before, &r.local, NULL);
    stance_error err;
    stance_two_bone_desc td = chain(NAN, 0.5, 0.0);
    CHECK_STATUS(stance_ik_two_bone(&td, 1.0f, r.sk, &r.local, &r.model, NULL, &err), STANCE_ERR_VALUE);
    td = chain(INFINITY, 0.5, 0.0);
    CHECK_STATUS(stance_ik_two_bone(&td, 1.0f, r.sk, &r.local, &r.model, NULL, &err), STANCE_ERR_VALUE);
    td = chain(0.1, 0.5, 0.0);
    CHECK_STATUS(stance_ik_two_bone(&td, NAN, r.sk, &r.local, &r.model, NULL, &err), STANCE_ERR_VALUE);
    CHECK_STATUS(stance_ik_two_bone(&td, 1.5f, r.sk, &r.local, &r.model, NULL, &err), STANCE_ERR_VALUE);
    td.softness = 1.0f;
    CHECK_STATUS(stance_ik_two_bone(&td, 1.0f, r.sk, &r.local, &r.model, NULL, &err), STANCE_ERR_VALUE);
    td = chain(0.1, 0.5, 0.0);
    td.upper = KNEE, td.lower = HIP; /* not a chain */
    CHECK_STATUS(stance_ik_two_bone(&td, 1.0f, r.sk, &r.local, &r.model, NULL, &err), STANCE_ERR_ARGUMENT);
    td = chain(0.1, 0.5, 0.0);
    td.end = 99;
    CHECK_STATUS(stance_ik_two_bone(&td, 1.0f, r.sk, &r.local, &r.model, NULL, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_ik_two_bone(&td, 1.0f, r.sk, &r.local, &r.local, NULL, &err), STANCE_ERR_ARGUMENT);
    CHECK(!memcmp(before.memory, r.local.memory, stance_pose_bytes(LEG_JOINTS))); /* refused: untouched */

    /* target on the hip: the leg folds as far as it can along its direction */
    stance_two_bone_result res;
    td = chain(r.model.tx[HIP], r.model.ty[HIP], r.model.tz[HIP]);
    CHECK_OK(stance_ik_two_bone(&td, 1.0f, r.sk, &r.local, &r.model, &res, NULL));
    rig_update(&r);
    CHECK(finite_pose(&r.local) && finite_pose(&r.model) && res.unreachable);
    CHECK_NEAR(len(sub(pos(&r.model, ANKLE), pos(&r.model, HIP))), L1 - L2, 1e-4);
    /* pole on the hip-target axis: the current bend is kept, target reached */
    rig r2;
    rig_make(&r2, 0.5f);
    td = chain(0.1, 0.4, 0.0);
    td.use_pole = 1, td.pole[0] = 0.1f, td.pole[1] = 0.2f, td.pole[2] = 0.0f;
    CHECK_OK(stance_ik_two_bone(&td, 1.0f, r2.sk, &r2.local, &r2.model, &res, NULL));
    rig_update(&r2);
    CHECK(finite_pose(&r2.local));
    CHECK_NEAR(len(sub(pos(&r2.model, ANKLE), (v3){0.1, 0.4, 0.0})), 0.0, 1e-4);
    /* the rest knee lies behind its hip-ankle line (the shin swings forward):
     * it stays on that side */
    CHECK(r2.model.tz[KNEE] < -0.05);
    /* a zero-length bone: nothing changes */
    rig r3;
    rig_make(&r3, 0.5f);
    r3.local.ty[KNEE] = 0.0f;
    rig_update(&r3);
    stance_pose_copy(&before, &r3.local, NULL);
    td = chain(0.3, 0.3, 0.3);
    CHECK_OK(stance_ik_two_bone(&td, 1.0f, r3.sk, &r3.local, &r3.model, &res, NULL));
    CHECK(res.degenerate && isfinite(res.error));
    CHECK(!memcmp(before.memory, r3.local.memory, stance_pose_bytes(LEG_JOINTS)));
    /* huge and tiny targets */
    rig r4;
    rig_make(&r4, 0.5f);
    td = chain(3e30, -3e30, 1e30);
    CHECK_OK(stance_ik_two_bone(&td, 1.0f, r4.sk, &r4.local, &r4.model, &res, NULL));
    rig_update(&r4);
    CHECK(finite_pose(&r4.local) && finite_pose(&r4.model) && isfinite(res.error) && res.unreachable);
    /* straight towards it */
    CHECK(angle(sub(pos(&r4.model, ANKLE), pos(&r4.model, HIP)), (v3){3, -3, 1}) < 1e-3);
    stance_pose_destroy(&before);
    rig_free(&r), rig_free(&r2), rig_free(&r3), rig_free(&r4);
}

/* ---- aim ------------------------------------------------------------------ */

/* root, spine (0.1 up), chest (0.3 up), neck (0.3 up), head (0.1 up) */
enum { A_ROOT, A_SPINE, A_CHEST, A_NECK, A_HEAD, AIM_JOINTS };
static stance_skeleton *spine(void) {
    const int parents[AIM_JOINTS] = {-1, 0, 1, 2, 3};
    stance_transform rest[AIM_JOINTS];
    for (int i = 0; i < AIM_JOINTS; i++) rest[i] = stance_transform_identity();
    rest[A_SPINE].t[1] = 1.0f, rest[A_CHEST].t[1] = 0.3f, rest[A_NECK].t[1] = 0.3f, rest[A_HEAD].t[1] = 0.1f;
    /* a twist on the neck so frames are not all aligned */
    rest[A_NECK].r[1] = sinf(0.3f), rest[A_NECK].r[3] = cosf(0.3f);
    stance_skeleton_desc d = {AIM_JOINTS, NULL, parents, rest};
    stance_skeleton *sk = NULL;
    CHECK_OK(stance_skeleton_create(&d, NULL, &sk, NULL));
    return sk;
}

static double local_turn(const stance_pose *a, const stance_pose *b, int j) {
    double d = fabs(a->qx[j] * b->qx[j] + a->qy[j] * b->qy[j] + a->qz[j] * b->qz[j] + a->qw[j] * b->qw[j]);
    return 2 * acos(d > 1 ? 1 : d);
}

static void test_aim_hits_target(void) {
    stance_skeleton *sk = spine();
    const v3 targets[4] = {{1, 1.5, 1}, {-2, 2, 0.3}, {0, 0.5, -1}, {0.3, 1.8, 3}};
    for (int t = 0; t < 4; t++) {
        stance_pose l, m, l0;
        stance_pose_create(&l, AIM_JOINTS, NULL, NULL), stance_pose_create(&m, AIM_JOINTS, NULL, NULL);
        stance_pose_create(&l0, AIM_JOINTS, NULL, NULL);
        stance_pose_set_rest(&l, sk, NULL), stance_pose_copy(&l0, &l, NULL);
        stance_local_to_model(&m, &l, sk, NULL, NULL);
        int ch[3] = {A_CHEST, A_NECK, A_HEAD};
        stance_aim_desc ad;
        memset(&ad, 0, sizeof ad);
        ad.chain_count = 3, ad.chain = ch;
        ad.target[0] = (float)targets[t].x, ad.target[1] = (float)targets[t].y, ad.target[2] = (float)targets[t].z;
        stance_aim_result res;
        CHECK_OK(stance_ik_aim(&ad, 1.0f, sk, &l, &m, &res, NULL));
        stance_local_to_model(&m, &l, sk, NULL, NULL);
        v3 fwd = qrot(&m, A_HEAD, (v3){0, 0, 1}); /* +Z, the default forward */
        v3 want = sub(targets[t], pos(&m, A_HEAD));
        CHECK(angle(fwd, want) < 1e-4);
        CHECK(res.angle_error < 1e-4f);
        for (int k = 0; k < 3; k++) CHECK(local_turn(&l0, &l, ch[k]) > 1e-3); /* every joint took a share */
        stance_pose_destroy(&l), stance_pose_destroy(&m), stance_pose_destroy(&l0);
    }
    stance_skeleton_destroy(sk);
}

static void test_aim_limits_and_up(void) {
    stance_skeleton *sk = spine();
    stance_pose l, m, l0;
    stance_pose_create(&l, AIM_JOINTS, NULL, NULL), stance_pose_create(&m, AIM_JOINTS, NULL, NULL);
    stance_pose_create(&l0, AIM_JOINTS, NULL, NULL);
    stance_pose_set_rest(&l, sk, NULL), stance_pose_copy(&l0, &l, NULL);
    stance_local_to_model(&m, &l, sk, NULL, NULL);
    int ch[3] = {A_CHEST, A_NECK, A_HEAD};
    const float lim[3] = {0.1f, 0.1f, 0.2f};
    stance_aim_desc ad;
    memset(&ad, 0, sizeof ad);
    ad.chain_count = 3, ad.chain = ch, ad.max_angles = lim;
    ad.target[0] = -3.0f, ad.target[1] = 1.7f, ad.target[2] = -0.5f; /* far behind-left */
    stance_aim_result res;
    CHECK_OK(stance_ik_aim(&ad, 1.0f, sk, &l, &m, &res, NULL));
    stance_local_to_model(&m, &l, sk, NULL, NULL);
    for (int k = 0; k < 3; k++) CHECK(local_turn(&l0, &l, ch[k]) <= lim[k] + 1e-4);
    v3 fwd = qrot(&m, A_HEAD, (v3){0, 0, 1});
    double err_now = angle(fwd, sub((v3){-3, 1.7, -0.5}, pos(&m, A_HEAD)));
    CHECK(err_now > 0.5);                           /* the limits stop it short */
    CHECK_NEAR(res.angle_error, err_now, 1e-4);     /* and it says how short */
    /* weights: only the head turns */
    stance_pose_copy(&l, &l0, NULL);
    stance_local_to_model(&m, &l, sk, NULL, NULL);
    const float w[3] = {0.0f, 0.0f, 1.0f};
    ad.max_angles = NULL, ad.weights = w;
    ad.use_up = 1, ad.up_target[0] = 1.0f; /* the head's up leans to +X */
    CHECK_OK(stance_ik_aim(&ad, 1.0f, sk, &l, &m, &res, NULL));
    stance_local_to_model(&m, &l, sk, NULL, NULL);
    CHECK(local_turn(&l0, &l, A_CHEST) < 1e-6 && local_turn(&l0, &l, A_NECK) < 1e-6);
    fwd = qrot(&m, A_HEAD, (v3){0, 0, 1});
    CHECK(angle(fwd, sub((v3){-3, 1.7, -0.5}, pos(&m, A_HEAD))) < 1e-4);
    /* up lies in the plane of forward and up_target, on up_target's side */
    v3 up = qrot(&m, A_HEAD, (v3){0, 1, 0});
    CHECK(fabs(dot(up, cross(fwd, (v3){1, 0, 0}))) < 1e-4);
    CHECK(dot(up, (v3){1, 0, 0}) > 0);
    /* degenerate: target on the head; bad: NaN, a chain that is not one */
    stance_pose_copy(&l, &l0, NULL);
    stance_local_to_model(&m, &l, sk, NULL, NULL);
    ad.weights = NULL, ad.use_up = 0;
    ad.target[0] = m.tx[A_HEAD], ad.target[1] = m.ty[A_HEAD], ad.target[2] = m.tz[A_HEAD];
    CHECK_OK(stance_ik_aim(&ad, 1.0f, sk, &l, &m, &res, NULL));
    CHECK(res.degenerate && !memcmp(l.memory, l0.memory, stance_pose_bytes(AIM_JOINTS)));
    ad.target[0] = 0.0f, ad.target[1] = 1.7f, ad.target[2] = -5.0f; /* straight behind: 180 degrees */
    CHECK_OK(stance_ik_aim(&ad, 1.0f, sk, &l, &m, &res, NULL));
    stance_local_to_model(&m, &l, sk, NULL, NULL);
    CHECK(finite_pose(&l) && finite_pose(&m));
    fwd = qrot(&m, A_HEAD, (v3){0, 0, 1});
    CHECK(angle(fwd, sub((v3){0, 1.7, -5}, pos(&m, A_HEAD))) < 1e-3);
    ad.target[0] = 3e30f, ad.target[1] = 2e30f, ad.target[2] = -1e30f; /* far away: still aimed */
    stance_pose_copy(&l, &l0, NULL);
    stance_local_to_model(&m, &l, sk, NULL, NULL);
    CHECK_OK(stance_ik_aim(&ad, 1.0f, sk, &l, &m, &res, NULL));
    stance_local_to_model(&m, &l, sk, NULL, NULL);
    CHECK(finite_pose(&l) && isfinite(res.angle_error));
    CHECK(angle(qrot(&m, A_HEAD, (v3){0, 0, 1}), (v3){3, 2, -1}) < 1e-3);
    ad.target[0] = NAN;
    CHECK_STATUS(stance_ik_aim(&ad, 1.0f, sk, &l, &m, &res, NULL), STANCE_ERR_VALUE);
    int bad[2] = {A_HEAD, A_CHEST};
    ad.target[0] = 1.0f, ad.chain = bad, ad.chain_count = 2;
    CHECK_STATUS(stance_ik_aim(&ad, 1.0f, sk, &l, &m, &res, NULL), STANCE_ERR_ARGUMENT);
    const float badlim[2] = {-1.0f, 1.0f};
    int ok2[2] = {A_CHEST, A_HEAD};
    ad.chain = ok2, ad.max_angles = badlim;
    CHECK_STATUS(stance_ik_aim(&ad, 1.0f, sk, &l, &m, &res, NULL), STANCE_ERR_VALUE);
    stance_pose_destroy(&l), stance_pose_destroy(&m), stance_pose_destroy(&l0);
    stance_skeleton_destroy(sk);
}

/* The jobs take no allocator: they cannot allocate through stance; and the
 * process heap does not grow over many solves either. */
static void test_no_allocation(void) {
    rig r;
    rig_make(&r, 0.5f);
    stance_skeleton *sk = spine();
    stance_pose l, m;
    stance_pose_create(&l, AIM_JOINTS, NULL, NULL), stance_pose_create(&m, AIM_JOINTS, NULL, NULL);
    stance_pose_set_rest(&l, sk, NULL);
    int ch[3] = {A_CHEST, A_NECK, A_HEAD};
    const size_t heap_before = heap_in_use();
    for (int i = 0; i < 1000; i++) {
        stance_two_bone_desc td = chain(0.1 + 0.2 * sin(i * 0.1), 0.4, 0.2 * cos(i * 0.1));
        td.use_pole = i & 1, td.pole[2] = 1.0f;
        stance_ik_two_bone(&td, 1.0f, r.sk, &r.local, &r.model, NULL, NULL);
        rig_update(&r);
        stance_local_to_model(&m, &l, sk, NULL, NULL);
        stance_aim_desc ad;
        memset(&ad, 0, sizeof ad);
        ad.chain_count = 3, ad.chain = ch, ad.target[0] = (float)sin(i * 0.05), ad.target[1] = 1.6f, ad.target[2] = 1.0f;
        stance_ik_aim(&ad, 0.7f, sk, &l, &m, NULL, NULL);
    }
    const size_t heap_after = heap_in_use();
    CHECK(heap_after == heap_before);
    CHECK(finite_pose(&r.local) && finite_pose(&l));
    stance_pose_destroy(&l), stance_pose_destroy(&m);
    stance_skeleton_destroy(sk);
    rig_free(&r);
}

int main(void) {
    RUN(test_reachable_targets_are_hit);
    RUN(test_unreachable_is_straight_towards_target);
    RUN(test_straight_leg_bends_in_a_defined_plane);
    RUN(test_pole_flips_knee);
    RUN(test_soft_limit);
    RUN(test_weight_and_end_rotation);
    RUN(test_control_bone_end);
    RUN(test_degenerate_and_bad_input);
    RUN(test_aim_hits_target);
    RUN(test_aim_limits_and_up);
    RUN(test_no_allocation);
    return check_summary();
}
