/* tests/test_root_rotation.c - root paths with full rotation (issue 25:
 * stance_clip_desc.root_rotation, stance_clip_root_rotation,
 * stance_clip_root_motion_rot, the instance's world root, the CLIP file
 * flag, the saved state). References are this test's own maths in double:
 *  - SCREW: the root climbs a ramp (10 deg pitched in its own frame) at a
 *    constant speed while turning at a constant rate about a tilted axis:
 *    its pose at time tau is a closed form (p(tau), Q(tau)), and played
 *    continuously over any number of cycles the world root is that closed
 *    form at the total time;
 *  - BANK: a path that yaws, pitches 10 deg up a ramp and banks (rolls) back
 *    and forth, a loop that does not close: its pose at a time is this
 *    test's function; motion across wraps is composed here cycle by cycle.
 * The instance is checked playing SCREW, through a crossfade to BANK and in
 * a 1-D blend of SCREW and another screw, against the rigid transforms
 * composed here update by update (blended as the docs say: translations and
 * rotation vectors weighted). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stance/build.h"
#include "stance/stance.h"

#define PI 3.14159265358979323846

/* ---- rigid transforms in double: p, q (x y z w) ---- */
typedef struct { double p[3], q[4]; } rigid;

static void qmul(double o[4], const double a[4], const double b[4]) {
    double r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1], a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                   a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3], a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    memcpy(o, r, sizeof r);
}
static void qrot(double o[3], const double q[4], const double v[3]) {
    const double c[4] = {-q[0], -q[1], -q[2], q[3]}, vq[4] = {v[0], v[1], v[2], 0.0};
    double t[4], r[4];
    qmul(t, q, vq), qmul(r, t, c);
    o[0] = r[0], o[1] = r[1], o[2] = r[2];
}
static void qaxis(double o[4], const double u[3], double angle) {
    const double n = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]), s = sin(0.5 * angle);
    o[0] = u[0] / n * s, o[1] = u[1] / n * s, o[2] = u[2] / n * s, o[3] = cos(0.5 * angle);
}
/* a then b (b in a's frame) */
static rigid compose(const rigid *a, const rigid *b) {
    rigid r;
    double w[3];
    qrot(w, a->q, b->p);
    for (int i = 0; i < 3; i++) r.p[i] = a->p[i] + w[i];
    qmul(r.q, a->q, b->q);
    return r;
}
static rigid inverse(const rigid *a) {
    rigid r;
    double c[4] = {-a->q[0], -a->q[1], -a->q[2], a->q[3]}, w[3];
    qrot(w, c, a->p);
    for (int i = 0; i < 3; i++) r.p[i] = -w[i];
    memcpy(r.q, c, sizeof c);
    return r;
}
/* the rotation vector (angle x axis, angle in [0, pi]) and back */
static void qlog(double v[3], const double q[4]) {
    double s = q[3] < 0.0 ? -1.0 : 1.0, n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    double a = n > 0.0 ? 2.0 * atan2(n, s * q[3]) : 0.0;
    for (int i = 0; i < 3; i++) v[i] = n > 0.0 ? s * q[i] / n * a : 0.0;
}
static void qexp(double q[4], const double v[3]) {
    double a = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (a == 0.0) { q[0] = q[1] = q[2] = 0.0, q[3] = 1.0; return; }
    qaxis(q, v, a);
}
/* the angle between two rotations (radians; q and -q are one rotation) */
static double qdist(const double a[4], const float b[4]) {
    const double ai[4] = {-a[0], -a[1], -a[2], a[3]}, bd[4] = {b[0], b[1], b[2], b[3]};
    double d[4];
    qmul(d, ai, bd);
    const double n = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    return 2.0 * atan2(n, fabs(d[3]));
}

/* ---- SCREW: speed V up a 10 deg ramp (its own frame), turning at W about U ---- */
typedef struct { double v, w, u[3]; } screw;
static const screw SA = {1.3, 0.6, {0.2, 1.0, -0.3}}, SB = {0.7, 1.1, {-0.4, 1.0, 0.5}};

static void screw_pose(const screw *s, double tau, rigid *out) {
    const double n = sqrt(s->u[0] * s->u[0] + s->u[1] * s->u[1] + s->u[2] * s->u[2]);
    const double u[3] = {s->u[0] / n, s->u[1] / n, s->u[2] / n};
    const double e[3] = {0.0, s->v * sin(10.0 * PI / 180.0), s->v * cos(10.0 * PI / 180.0)};
    const double along = e[0] * u[0] + e[1] * u[1] + e[2] * u[2];
    const double ep[3] = {e[0] - along * u[0], e[1] - along * u[1], e[2] - along * u[2]};
    const double x[3] = {u[1] * ep[2] - u[2] * ep[1], u[2] * ep[0] - u[0] * ep[2], u[0] * ep[1] - u[1] * ep[0]};
    const double a = s->w * tau;
    /* p = integral of Q(s) e ds: the part along the axis grows linearly, the rest turns */
    for (int i = 0; i < 3; i++) out->p[i] = tau * along * u[i] + sin(a) / s->w * ep[i] + (1.0 - cos(a)) / s->w * x[i];
    qaxis(out->q, u, a);
}

/* ---- BANK: yaw 0.5 rad/s, pitched 10 deg up, rolling 0.3 sin(2 pi tau); travel not closing ---- */
static void bank_pose(double tau, rigid *out) {
    const double Y[3] = {0, 1, 0}, X[3] = {1, 0, 0}, Z[3] = {0, 0, 1};
    double qy[4], qp[4], qr[4], t[4];
    qaxis(qy, Y, 0.5 * tau), qaxis(qp, X, -10.0 * PI / 180.0), qaxis(qr, Z, 0.3 * sin(2.0 * PI * tau));
    qmul(t, qy, qp), qmul(out->q, t, qr);
    out->p[0] = 0.2 * sin(2.0 * PI * tau) + 0.3 * tau * tau, out->p[1] = 0.176 * tau + 0.01 * sin(4.0 * PI * tau);
    out->p[2] = 1.0 * tau + 0.05 * sin(2.0 * PI * tau);
}

enum { KA = 241, KB = 241 };
static const float DA = 1.0f, DB = 0.8f;

typedef struct {
    float times[KA], pos[3 * KA], rot[4 * KA];
} keys;

static stance_clip *make_clip(const stance_skeleton *sk, const char *name, int which, const screw *s, keys *k, int n, float dur) {
    for (int i = 0; i < n; i++) {
        k->times[i] = dur * (float)i / (float)(n - 1);
        rigid r;
        if (which == 0) screw_pose(s, k->times[i], &r);
        else bank_pose(k->times[i], &r);
        for (int c = 0; c < 3; c++) k->pos[3 * i + c] = (float)r.p[c];
        const double sg = (i % 3 == 1) ? -1.0 : 1.0; /* some keys in the other hemisphere: creation aligns them */
        for (int c = 0; c < 4; c++) k->rot[4 * i + c] = (float)(sg * r.q[c]);
    }
    stance_clip_desc cd = {.name = name, .duration = dur, .root_key_count = n, .root_times = k->times, .root_values = k->pos,
                           .root_rotation = k->rot};
    stance_clip *c = NULL;
    CHECK_OK(stance_clip_create(&cd, sk, NULL, &c, NULL));
    return c;
}

/* the test's pose of clip `which` at a time inside its cycle */
static void clip_pose(int which, const screw *s, double tau, rigid *out) {
    if (which == 0) screw_pose(s, tau, out);
    else bank_pose(tau, out);
}

/* the motion from clip time a over dt (>= 0, looped, duration D), in the
 * frame at a, composed cycle by cycle */
static rigid motion_ref(int which, const screw *s, double D, double a, double dt) {
    rigid acc = {{0, 0, 0}, {0, 0, 0, 1}}, pa, pb;
    double t = a;
    while (dt > 0.0) {
        const double end = t + dt < D ? t + dt : D;
        clip_pose(which, s, t, &pa), clip_pose(which, s, end, &pb);
        rigid ia = inverse(&pa), piece = compose(&ia, &pb);
        acc = compose(&acc, &piece);
        dt -= end - t;
        t = end >= D ? 0.0 : end;
    }
    return acc;
}

static stance_skeleton *one_joint(void) {
    stance_transform rest = stance_transform_identity();
    const int parent = -1;
    stance_skeleton_desc sd = {1, NULL, &parent, &rest};
    stance_skeleton *sk = NULL;
    CHECK_OK(stance_skeleton_create(&sd, NULL, &sk, NULL));
    return sk;
}

static keys KEYS_A, KEYS_B, KEYS_C;

static void test_clip(void) {
    stance_skeleton *sk = one_joint();
    stance_clip *a = make_clip(sk, "screw", 0, &SA, &KEYS_A, KA, DA), *b = make_clip(sk, "bank", 1, NULL, &KEYS_B, KB, DB);
    CHECK(a && a->root_rotation && a->root_turn == 2 && !a->root_yaw);
    /* the orientation: the keys (whichever sign given) and the slerp between them */
    float q[4];
    double worst = 0.0;
    for (int i = 0; i < 600; i++) {
        const double tau = 0.001 + (double)i * (DA - 0.002) / 599.0;
        rigid r;
        screw_pose(&SA, tau, &r);
        CHECK_OK(stance_clip_root_rotation(a, (float)tau, q, NULL));
        const double d = qdist(r.q, q);
        if (d > worst) worst = d;
    }
    printf("  screw path: orientation between keys vs closed form: off by <= %.3g rad\n", worst);
    CHECK(worst < 2e-6);
    for (int k = 1; k < KA; k++) { /* creation put consecutive keys in one hemisphere */
        double d = 0.0;
        for (int c = 0; c < 4; c++) d += (double)a->root_rotation[4 * k + c] * a->root_rotation[4 * k - 4 + c];
        CHECK(d > 0.0);
    }

    /* motion across many wraps, forwards and backwards, against the cycles composed one by one here */
    const float starts[4] = {0.3f, 0.05f, 0.71f, 0.5f}, dts[4] = {57.35f, 3.2f, 0.01f, -7.45f};
    for (int which = 0; which < 2; which++) {
        const stance_clip *c = which ? b : a;
        const double D = which ? DB : DA;
        for (int i = 0; i < 4; i++) {
            float t[3], rq[4];
            const float s0 = which ? starts[i] * DB : starts[i];
            CHECK_OK(stance_clip_root_motion_rot(c, s0, dts[i], 1, t, rq, NULL));
            rigid ref;
            if (dts[i] >= 0.0f) {
                ref = motion_ref(which, which ? NULL : &SA, D, s0, dts[i]);
            } else { /* backwards: the inverse of the forward motion from where it ends */
                double e = fmod((double)s0 + dts[i], D);
                if (e < 0.0) e += D;
                rigid f = motion_ref(which, which ? NULL : &SA, D, e, -(double)dts[i]);
                ref = inverse(&f);
            }
            double err = 0.0;
            for (int k = 0; k < 3; k++) err = fmax(err, fabs(ref.p[k] - t[k]));
            const double scale = fabs((double)dts[i]) + 1.0;
            printf("  %s from %.2f over %+.2f s: translation off by %.2g (of %.3g s), rotation off by %.2g\n", c->name,
                   (double)s0, (double)dts[i], err, scale, qdist(ref.q, rq));
            CHECK(err <= 2e-5 * scale * scale);
            CHECK(qdist(ref.q, rq) <= 2e-6 * scale);
            CHECK(rq[3] >= 0.0f);
            float t3[3]; /* stance_clip_root_motion gives the same translation */
            CHECK_OK(stance_clip_root_motion(c, s0, dts[i], 1, t3, NULL));
            CHECK(t3[0] == t[0] && t3[1] == t[1] && t3[2] == t[2]);
        }
    }
    /* the screw over 57 cycles is also its closed form */
    {
        float t[3], rq[4];
        CHECK_OK(stance_clip_root_motion_rot(a, 0.0f, 57.25f, 1, t, rq, NULL));
        rigid r;
        screw_pose(&SA, 57.25, &r);
        CHECK_NEAR(t[0], r.p[0], 2e-3);
        CHECK_NEAR(t[1], r.p[1], 2e-3);
        CHECK_NEAR(t[2], r.p[2], 2e-3);
        CHECK(qdist(r.q, rq) < 1e-4);
    }
    /* a yaw path gives its yaw about +Y; a path that does not turn the identity */
    {
        float times[2] = {0.0f, 1.0f}, pos[6] = {0, 0, 0, 0, 0, 1}, yaw[2] = {0.0f, 0.8f};
        stance_clip_desc cd = {.name = "yaw", .duration = 1.0f, .root_key_count = 2, .root_times = times, .root_values = pos,
                               .root_yaw = yaw};
        stance_clip *y = NULL, *n = NULL;
        CHECK_OK(stance_clip_create(&cd, sk, NULL, &y, NULL));
        float t[3], rq[4], ty[3], yy;
        CHECK_OK(stance_clip_root_motion_rot(y, 0.25f, 0.5f, 1, t, rq, NULL));
        CHECK_OK(stance_clip_root_motion_yaw(y, 0.25f, 0.5f, 1, ty, &yy, NULL));
        CHECK(t[0] == ty[0] && t[2] == ty[2]);
        CHECK_NEAR(yy, 0.4, 1e-6);
        CHECK_NEAR(rq[1], sin(0.2), 1e-6);
        CHECK_NEAR(rq[3], cos(0.2), 1e-6);
        CHECK(rq[0] == 0.0f && rq[2] == 0.0f);
        cd.root_yaw = NULL;
        cd.name = "straight";
        CHECK_OK(stance_clip_create(&cd, sk, NULL, &n, NULL));
        CHECK_OK(stance_clip_root_motion_rot(n, 0.25f, 0.5f, 1, t, rq, NULL));
        CHECK(rq[0] == 0.0f && rq[1] == 0.0f && rq[2] == 0.0f && rq[3] == 1.0f && t[2] == 0.5f);
        CHECK_OK(stance_clip_root_rotation(n, 0.3f, rq, NULL));
        CHECK(rq[3] == 1.0f);
        /* refusals: both yaw and rotation, a bad quaternion, no path, NULLs */
        stance_clip *no = NULL;
        float rots[8] = {0, 0, 0, 1, 0, 0, 0, 1};
        cd.root_yaw = yaw, cd.root_rotation = rots;
        stance_error err;
        CHECK(stance_clip_create(&cd, sk, NULL, &no, &err) == STANCE_ERR_ARGUMENT && !no);
        printf("  both: %s\n", err.message);
        cd.root_yaw = NULL;
        rots[5] = NAN;
        CHECK(stance_clip_create(&cd, sk, NULL, &no, NULL) == STANCE_ERR_VALUE && !no);
        rots[4] = rots[5] = rots[6] = rots[7] = 0.0f;
        CHECK(stance_clip_create(&cd, sk, NULL, &no, &err) == STANCE_ERR_VALUE && !no);
        printf("  zero quaternion: %s\n", err.message);
        rots[7] = 1.0f;
        cd.root_key_count = 0;
        CHECK(stance_clip_create(&cd, sk, NULL, &no, NULL) == STANCE_ERR_ARGUMENT && !no);
        CHECK(stance_clip_root_motion_rot(a, 0.0f, 0.1f, 1, t, NULL, NULL) == STANCE_ERR_ARGUMENT);
        CHECK(stance_clip_root_motion_rot(a, NAN, 0.1f, 1, t, rq, NULL) == STANCE_ERR_VALUE);
        CHECK(stance_clip_root_rotation(NULL, 0.0f, rq, NULL) == STANCE_ERR_ARGUMENT);
        CHECK(stance_clip_root_rotation(a, INFINITY, rq, NULL) == STANCE_ERR_VALUE);
        stance_clip_destroy(y), stance_clip_destroy(n);
    }

    /* the file keeps the rotation: save, load, the same motion (exact and compressed) */
    stance_asset as;
    memset(&as, 0, sizeof as);
    stance_clip *clips[2] = {a, b};
    as.skeleton = sk, as.clip_count = 2, as.clips = clips;
    for (int pass = 0; pass < 2; pass++) {
        stance_clip *za = NULL, *zb = NULL;
        if (pass == 1) {
            stance_compress_settings cs = {0.0001f, 0.03f, 0};
            CHECK_OK(stance_clip_compress(a, sk, &cs, NULL, &za, NULL));
            CHECK_OK(stance_clip_compress(b, sk, &cs, NULL, &zb, NULL));
            clips[0] = za, clips[1] = zb;
            CHECK(za && za->root_rotation && stance_clip_is_compressed(za));
        }
        void *bytes = NULL;
        size_t size = 0;
        CHECK_OK(stance_asset_save_memory(&as, &bytes, &size, NULL, NULL));
        stance_asset ld;
        memset(&ld, 0, sizeof ld);
        CHECK_OK(stance_asset_load_memory(bytes, size, NULL, &ld, NULL));
        CHECK(ld.clip_count == 2 && ld.clips[0]->root_rotation && ld.clips[1]->root_rotation && !ld.clips[0]->root_yaw);
        CHECK(stance_clip_is_compressed(ld.clips[0]) == pass);
        for (int c = 0; c < 2; c++) {
            float t0[3], t1[3], q0[4], q1[4];
            CHECK_OK(stance_clip_root_motion_rot(clips[c], 0.3f, 5.9f, 1, t0, q0, NULL));
            CHECK_OK(stance_clip_root_motion_rot(ld.clips[c], 0.3f, 5.9f, 1, t1, q1, NULL));
            CHECK(memcmp(t0, t1, sizeof t0) == 0 && memcmp(q0, q1, sizeof q0) == 0);
        }
        stance_asset_destroy(&ld);
        stance_asset_free_bytes(bytes, size, NULL);
        stance_clip_destroy(za), stance_clip_destroy(zb);
        clips[0] = a, clips[1] = b;
    }
    stance_clip_destroy(a), stance_clip_destroy(b), stance_skeleton_destroy(sk);
}

/* ---- the instance ---- */
static double pose_err(const stance_transform *r, const rigid *ref) {
    double e = 0.0;
    for (int k = 0; k < 3; k++) e = fmax(e, fabs(r->t[k] - ref->p[k]));
    return e;
}

/* a play's step as the test models it: clip time, motion over dt */
typedef struct { int which; const screw *s; double D; float pos; } play;
static rigid play_step(play *p, float dt) {
    rigid m = motion_ref(p->which, p->s, p->D, p->pos, dt);
    p->pos = (float)fmod((double)p->pos + dt, p->D);
    return m;
}
/* translations and rotation vectors weighted */
static rigid blend2(const rigid *a, const rigid *b, double w) {
    rigid r;
    double va[3], vb[3], v[3];
    qlog(va, a->q), qlog(vb, b->q);
    for (int k = 0; k < 3; k++) r.p[k] = a->p[k] * (1.0 - w) + b->p[k] * w, v[k] = va[k] * (1.0 - w) + vb[k] * w;
    qexp(r.q, v);
    return r;
}

/* one update of the instance, and the test's world root moved by m: the largest differences so far */
static void follow(stance_instance *inst, stance_workspace *ws, float dt, rigid *world, const rigid *m, double *worst,
                   double *worst_q) {
    stance_transform r;
    CHECK_OK(stance_instance_update(inst, dt, ws, NULL));
    *world = compose(world, m);
    stance_instance_root(inst, &r);
    *worst = fmax(*worst, pose_err(&r, world)), *worst_q = fmax(*worst_q, qdist(world->q, r.r));
}

static void test_instance(void) {
    stance_skeleton *sk = one_joint();
    stance_clip *a = make_clip(sk, "screw", 0, &SA, &KEYS_A, KA, DA), *b = make_clip(sk, "bank", 1, NULL, &KEYS_B, KB, DB);
    stance_clip *c = make_clip(sk, "screw2", 0, &SB, &KEYS_C, KA, DA);
    stance_blend_entry_desc en[2] = {{a, 0.0f, 0.0f}, {c, 1.0f, 0.0f}};
    stance_state_desc st[3] = {{.name = "screw", .clip = a}, {.name = "bank", .clip = b},
                               {.name = "mix", .type = STANCE_MOTION_BLEND1D, .entry_count = 2, .entries = en, .param_x = "x"}};
    stance_param_desc pd = {.name = "x", .type = STANCE_PARAM_FLOAT, .value = 0.3f};
    stance_machine_desc md = {.name = "m", .state_count = 3, .states = st};
    stance_graph_desc gd = {.skeleton = sk, .param_count = 1, .params = &pd, .machine_count = 1, .machines = &md};
    stance_graph *g = NULL;
    stance_instance *inst = NULL, *copy = NULL;
    stance_workspace *ws = NULL;
    CHECK_OK(stance_graph_create(&gd, NULL, &g, NULL));
    CHECK_OK(stance_instance_create(g, NULL, &inst, NULL));
    CHECK_OK(stance_instance_create(g, NULL, &copy, NULL));
    CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
    const float dt = 1.0f / 60.0f;
    /* SCREW alone for 3.5 s: the closed form */
    CHECK_OK(stance_instance_update(inst, 0.0f, ws, NULL));
    for (int f = 0; f < 210; f++) CHECK_OK(stance_instance_update(inst, dt, ws, NULL));
    stance_transform r;
    stance_instance_root(inst, &r);
    rigid ref;
    screw_pose(&SA, 210.0 * dt, &ref);
    printf("  instance on the screw, 3.5 s: off by %.2g, rotation off by %.2g\n", pose_err(&r, &ref), qdist(ref.q, r.r));
    CHECK(pose_err(&r, &ref) < 2e-3 && qdist(ref.q, r.r) < 1e-4);
    float tq[4];
    stance_instance_root_rotation(inst, tq);
    rigid step = motion_ref(0, &SA, DA, fmod(209.0 * dt, 1.0), dt);
    CHECK(qdist(step.q, tq) < 1e-6);

    /* save mid-clip, go on 50 updates, restore into another instance: the same root, bit for bit */
    size_t size = 0;
    CHECK_OK(stance_instance_state_size(g, NULL, &size, NULL));
    void *buf = malloc(size);
    CHECK_OK(stance_instance_save(inst, buf, size, NULL));
    CHECK_OK(stance_instance_restore(copy, buf, size, NULL));
    stance_transform r1, r2;
    float q1[4], q2[4];
    for (int f = 0; f < 50; f++) {
        CHECK_OK(stance_instance_update(inst, dt, ws, NULL));
        CHECK_OK(stance_instance_update(copy, dt, ws, NULL));
    }
    stance_instance_root(inst, &r1), stance_instance_root(copy, &r2);
    stance_instance_root_rotation(inst, q1), stance_instance_root_rotation(copy, q2);
    CHECK(memcmp(&r1, &r2, sizeof r1) == 0 && memcmp(q1, q2, sizeof q1) == 0);
    free(buf);

    /* crossfade to BANK (0.25 s, linear): the test composes each update's blended step */
    screw_pose(&SA, 260.0 * dt, &ref);
    stance_instance_root(inst, &r);
    CHECK(pose_err(&r, &ref) < 3e-3);
    rigid world;
    for (int k = 0; k < 3; k++) world.p[k] = r.t[k];
    for (int k = 0; k < 4; k++) world.q[k] = r.r[k];
    play pa = {0, &SA, DA, (float)fmod(260.0 * dt, 1.0)}, pb = {1, NULL, DB, 0.0f};
    CHECK_OK(stance_instance_play(inst, 1, STANCE_SWITCH_CROSSFADE, STANCE_EASE_LINEAR, 0.25f, NULL));
    float elapsed = 0.0f;
    double worst = 0.0, worst_q = 0.0;
    for (int f = 0; f < 90; f++) {
        elapsed += dt;
        rigid mb = play_step(&pb, dt), m = mb;
        if (elapsed < 0.25f) {
            rigid ma = play_step(&pa, dt);
            m = blend2(&ma, &mb, (double)(elapsed / 0.25f));
        }
        follow(inst, ws, dt, &world, &m, &worst, &worst_q);
    }
    printf("  crossfade screw -> bank and 1.25 s of bank: off by %.2g, rotation off by %.2g\n", worst, worst_q);
    CHECK(worst < 1e-3 && worst_q < 1e-4);

    /* a cut to the 1-D blend (x 0.3: weights 0.7, 0.3; both 1 s long: each clip's time moves by dt) */
    CHECK_OK(stance_instance_play(inst, 2, STANCE_SWITCH_CUT, STANCE_EASE_LINEAR, 0.0f, NULL));
    play p0 = {0, &SA, DA, 0.0f}, p1 = {0, &SB, DA, 0.0f};
    worst = worst_q = 0.0;
    for (int f = 0; f < 150; f++) {
        rigid m0 = play_step(&p0, dt), m1 = play_step(&p1, dt), m = blend2(&m0, &m1, 0.3);
        follow(inst, ws, dt, &world, &m, &worst, &worst_q);
    }
    printf("  1-D blend of two screws (0.7, 0.3), 2.5 s: off by %.2g, rotation off by %.2g\n", worst, worst_q);
    CHECK(worst < 1e-3 && worst_q < 1e-4);

    /* every other switch mode takes the current play's motion: inertialize back to SCREW (0.3 s) */
    CHECK_OK(stance_instance_play(inst, 0, STANCE_SWITCH_INERTIALIZE, STANCE_EASE_LINEAR, 0.3f, NULL));
    play p2 = {0, &SA, DA, 0.0f};
    worst = worst_q = 0.0;
    for (int f = 0; f < 40; f++) {
        rigid m = play_step(&p2, dt);
        follow(inst, ws, dt, &world, &m, &worst, &worst_q);
    }
    printf("  inertialized switch back to the screw, 0.67 s: off by %.2g, rotation off by %.2g\n", worst, worst_q);
    CHECK(worst < 1e-3 && worst_q < 1e-4);

    stance_workspace_destroy(ws), stance_instance_destroy(inst), stance_instance_destroy(copy), stance_graph_destroy(g);
    stance_clip_destroy(a), stance_clip_destroy(b), stance_clip_destroy(c), stance_skeleton_destroy(sk);
}

int main(void) {
    RUN(test_clip);
    RUN(test_instance);
    return check_summary();
}
