/* tests/test_skin.c - skins, skinned meshes and skin matrices.
 *
 * References are built here, independently of src/core: joint world
 * matrices by multiplying 4x4 matrices composed from each joint's TRS (in
 * double), inverse bind matrices by a Gauss-Jordan inverse, and skinned
 * vertex positions by linear blend skinning written with quaternion
 * rotations of points (no matrices at all). Also: identity at the bind
 * pose, analytic area-weighted normals, weight renormalization, every
 * validation failure with its message, and allocation failures that leak
 * nothing. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stance/pose.h"
#include "stance/skeleton.h"
#include "stance/skin.h"
#include "core/base/platform.h" /* st_aligned_alloc / st_aligned_free */

#define NJ 11

/* ---- the reference maths (double) ---------------------------------------- */

typedef struct dmat { double m[16]; } dmat; /* column-major: m[4 * col + row] */

static dmat dmat_mul(dmat a, dmat b) {
    dmat r;
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += a.m[4 * k + row] * b.m[4 * c + k];
            r.m[4 * c + row] = s;
        }
    return r;
}

/* T * R * S from a transform: the rotation matrix from the unit quaternion
 * written out from its definition R v = q v q*. */
static dmat dmat_trs(const stance_transform *t) {
    double x = t->r[0], y = t->r[1], z = t->r[2], w = t->r[3];
    double l = sqrt(x * x + y * y + z * z + w * w);
    x /= l, y /= l, z /= l, w /= l;
    double R[3][3] = {{w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)},
                      {2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x)},
                      {2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z}};
    dmat m;
    memset(&m, 0, sizeof m);
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 3; row++) m.m[4 * c + row] = R[row][c] * t->s[c];
    m.m[12] = t->t[0], m.m[13] = t->t[1], m.m[14] = t->t[2], m.m[15] = 1;
    return m;
}

static dmat dmat_inverse(dmat a) { /* Gauss-Jordan with partial pivoting */
    double w[4][8];
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 8; c++) w[r][c] = c < 4 ? a.m[4 * c + r] : (c - 4 == r);
    for (int c = 0; c < 4; c++) {
        int p = c;
        for (int r = c + 1; r < 4; r++)
            if (fabs(w[r][c]) > fabs(w[p][c])) p = r;
        for (int k = 0; k < 8; k++) { double t = w[c][k]; w[c][k] = w[p][k]; w[p][k] = t; }
        double d = w[c][c];
        for (int k = 0; k < 8; k++) w[c][k] /= d;
        for (int r = 0; r < 4; r++) {
            if (r == c) continue;
            double f = w[r][c];
            for (int k = 0; k < 8; k++) w[r][k] -= f * w[c][k];
        }
    }
    dmat r;
    for (int row = 0; row < 4; row++)
        for (int c = 0; c < 4; c++) r.m[4 * c + row] = w[row][4 + c];
    return r;
}

/* world[j] = world[parent] * TRS(local[j]) */
static void world_matrices(const int *parents, const stance_transform *local, int n, dmat *world) {
    for (int j = 0; j < n; j++) {
        dmat l = dmat_trs(&local[j]);
        world[j] = parents[j] < 0 ? l : dmat_mul(world[parents[j]], l);
    }
}

/* Quaternion point transforms (double), for linear blend skinning without
 * matrices: p -> t + q (s * p) q*, through the chain. */
typedef struct dq { double x, y, z, w; } dq;
static dq dq_mul(dq a, dq b) {
    dq r = {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
    return r;
}
static void dq_rotate(dq q, const double v[3], double out[3]) {
    dq p = {v[0], v[1], v[2], 0}, qc = {-q.x, -q.y, -q.z, q.w};
    dq r = dq_mul(dq_mul(q, p), qc);
    out[0] = r.x, out[1] = r.y, out[2] = r.z;
}
static dq dq_of(const stance_transform *t) {
    double l = sqrt((double)t->r[0] * t->r[0] + (double)t->r[1] * t->r[1] + (double)t->r[2] * t->r[2] +
                    (double)t->r[3] * t->r[3]);
    dq q = {t->r[0] / l, t->r[1] / l, t->r[2] / l, t->r[3] / l};
    return q;
}
/* joint j's local frame -> world, applied to a point */
static void to_world(const int *parents, const stance_transform *local, int j, const double in[3], double out[3]) {
    double p[3] = {in[0], in[1], in[2]};
    for (int k = j; k >= 0; k = parents[k]) {
        const stance_transform *t = &local[k];
        double s[3] = {p[0] * t->s[0], p[1] * t->s[1], p[2] * t->s[2]}, r[3];
        dq_rotate(dq_of(t), s, r);
        p[0] = r[0] + t->t[0], p[1] = r[1] + t->t[1], p[2] = r[2] + t->t[2];
    }
    out[0] = p[0], out[1] = p[1], out[2] = p[2];
}
/* the inverse: world -> joint j's local frame (root first) */
static void from_world(const int *parents, const stance_transform *local, int j, const double in[3], double out[3]) {
    int chain[NJ], n = 0;
    for (int k = j; k >= 0; k = parents[k]) chain[n++] = k;
    double p[3] = {in[0], in[1], in[2]};
    for (int i = n - 1; i >= 0; i--) {
        const stance_transform *t = &local[chain[i]];
        dq q = dq_of(t), qc = {-q.x, -q.y, -q.z, q.w};
        double d[3] = {p[0] - t->t[0], p[1] - t->t[1], p[2] - t->t[2]}, r[3];
        dq_rotate(qc, d, r);
        p[0] = r[0] / t->s[0], p[1] = r[1] / t->s[1], p[2] = r[2] / t->s[2];
    }
    out[0] = p[0], out[1] = p[1], out[2] = p[2];
}

/* ---- the fixture ------------------------------------------------------------ */

static const int k_parents[NJ] = {-1, 0, 1, 2, 3, 2, 5, 2, 7, 0, 9};

static void set_quat(float *q, double ax, double ay, double az, double angle) {
    double l = sqrt(ax * ax + ay * ay + az * az), s = sin(angle / 2) / l;
    q[0] = (float)(ax * s), q[1] = (float)(ay * s), q[2] = (float)(az * s), q[3] = (float)cos(angle / 2);
}

/* Rest: offsets, turns and uniform scales per joint (the runtime composes
 * scale per axis without shear, so non-uniform scale is only on leaves). */
static void rest_pose(stance_transform *rest) {
    for (int j = 0; j < NJ; j++) {
        rest[j] = stance_transform_identity();
        rest[j].t[0] = 0.05f * (float)(j % 3) - 0.04f;
        rest[j].t[1] = 0.2f + 0.03f * (float)j;
        rest[j].t[2] = 0.01f * (float)j;
        set_quat(rest[j].r, 0.3 + j, 1.0, 0.2 * j - 1.0, 0.15 * j - 0.4);
        float s = 1.0f + 0.05f * (float)(j % 4);
        rest[j].s[0] = rest[j].s[1] = rest[j].s[2] = s;
    }
    rest[4].s[0] = 1.3f, rest[4].s[2] = 0.7f; /* leaves */
    rest[10].s[1] = 0.6f;
}

/* A posed frame: every joint turned and moved away from the rest. */
static void posed(stance_transform *pose) {
    rest_pose(pose);
    for (int j = 0; j < NJ; j++) {
        set_quat(pose[j].r, sin(1.7 * j), cos(0.9 * j), 0.5, 0.6 + 0.21 * j);
        pose[j].t[0] += 0.02f * (float)j;
        pose[j].t[2] -= 0.03f;
    }
    pose[0].t[0] = 1.5f, pose[0].t[1] = -0.25f, pose[0].t[2] = 3.0f;
}

static stance_skeleton *make_skeleton(void) {
    static const char *names[NJ] = {"root", "hips", "spine", "head", "hat", "arm.L", "hand.L",
                                    "arm.R", "hand.R", "leg", "foot"};
    stance_transform rest[NJ];
    rest_pose(rest);
    stance_skeleton_desc d = {NJ, names, k_parents, rest};
    stance_skeleton *sk = NULL;
    CHECK_OK(stance_skeleton_create(&d, NULL, &sk, NULL));
    return sk;
}

/* skin joints in the mesh's order: shuffled, a repeat, not every joint */
#define SJ 10
static const int k_skin_joints[SJ] = {3, 0, 7, 8, 1, 10, 2, 5, 6, 3};

static void bind_matrices(float *ib) { /* inverse of each skin joint's world matrix at the rest pose */
    stance_transform rest[NJ];
    rest_pose(rest);
    dmat world[NJ];
    world_matrices(k_parents, rest, NJ, world);
    for (int k = 0; k < SJ; k++) {
        dmat inv = dmat_inverse(world[k_skin_joints[k]]);
        for (int e = 0; e < 16; e++) ib[16 * k + e] = (float)inv.m[e];
    }
}

static void load_pose(stance_pose *p, const stance_transform *t) {
    for (int j = 0; j < NJ; j++) CHECK_OK(stance_pose_set(p, j, &t[j], NULL));
}

static double max_identity_error(const float *m, int count) {
    double e = 0;
    for (int k = 0; k < count; k++)
        for (int i = 0; i < 16; i++) {
            double want = (i % 5 == 0) ? 1.0 : 0.0, d = fabs(m[16 * k + i] - want);
            if (d > e) e = d;
        }
    return e;
}

/* ---- tests ------------------------------------------------------------------ */

static void test_bind_pose_identity(void) {
    stance_skeleton *sk = make_skeleton();
    float ib[16 * SJ];
    bind_matrices(ib);
    stance_skin_desc d = {"body", SJ, k_skin_joints, ib};
    stance_skin *skin = NULL;
    CHECK_OK(stance_skin_create(&d, sk, NULL, &skin, NULL));
    CHECK(!strcmp(skin->name, "body"));
    CHECK(skin->joint_count == SJ && skin->joints[5] == 10);
    CHECK(!memcmp(skin->inverse_bind, ib, sizeof ib));
    stance_pose local, model;
    CHECK_OK(stance_pose_create(&local, NJ, NULL, NULL));
    CHECK_OK(stance_pose_create(&model, NJ, NULL, NULL));
    CHECK_OK(stance_pose_set_rest(&local, sk, NULL));
    CHECK_OK(stance_local_to_model(&model, &local, sk, NULL, NULL));
    float m[16 * SJ];
    CHECK_OK(stance_skin_matrices(skin, &model, m, SJ, NULL));
    double e = max_identity_error(m, SJ);
    printf("  bind pose: largest deviation from identity %.3g\n", e);
    CHECK(e <= 1e-4);
    stance_pose_destroy(&local);
    stance_pose_destroy(&model);
    stance_skin_destroy(skin);

    /* no inverse binds = identity binds: the matrices are the model matrices */
    stance_skin_desc d0 = {NULL, 1, (const int[]){0}, NULL};
    CHECK_OK(stance_skin_create(&d0, sk, NULL, &skin, NULL));
    CHECK(!strcmp(skin->name, "skin"));
    CHECK(max_identity_error(skin->inverse_bind, 1) == 0.0);
    stance_skin_destroy(skin);
    stance_skeleton_destroy(sk);
}

/* model[joint] * inverse_bind against the matrices composed here from TRS */
static void test_posed_matrices(void) {
    stance_skeleton *sk = make_skeleton();
    float ib[16 * SJ];
    bind_matrices(ib);
    stance_skin_desc d = {"body", SJ, k_skin_joints, ib};
    stance_skin *skin = NULL;
    CHECK_OK(stance_skin_create(&d, sk, NULL, &skin, NULL));
    stance_transform pose[NJ];
    posed(pose);
    stance_pose local, model;
    CHECK_OK(stance_pose_create(&local, NJ, NULL, NULL));
    CHECK_OK(stance_pose_create(&model, NJ, NULL, NULL));
    load_pose(&local, pose);
    CHECK_OK(stance_local_to_model(&model, &local, sk, NULL, NULL));
    float m[16 * SJ + 16];
    m[16 * SJ] = 12345.0f; /* past the skin's joints: untouched */
    CHECK_OK(stance_skin_matrices(skin, &model, m, SJ + 1, NULL));
    CHECK(m[16 * SJ] == 12345.0f);

    dmat world[NJ];
    world_matrices(k_parents, pose, NJ, world);
    double worst = 0;
    for (int k = 0; k < SJ; k++) {
        dmat ibd;
        for (int e = 0; e < 16; e++) ibd.m[e] = ib[16 * k + e];
        dmat want = dmat_mul(world[k_skin_joints[k]], ibd);
        for (int e = 0; e < 16; e++) {
            double err = fabs(m[16 * k + e] - want.m[e]);
            if (err > worst) worst = err;
        }
        CHECK(m[16 * k + 3] == 0.0f && m[16 * k + 7] == 0.0f && m[16 * k + 11] == 0.0f && m[16 * k + 15] == 1.0f);
    }
    printf("  posed: largest difference from the composed reference %.3g\n", worst);
    CHECK(worst <= 2e-5);
    stance_pose_destroy(&local);
    stance_pose_destroy(&model);
    stance_skin_destroy(skin);
    stance_skeleton_destroy(sk);
}

/* Linear blend skinning of a small mesh: the runtime's matrices applied to
 * the mesh's vertices against positions computed by quaternion transforms. */
static void test_skinned_vertices(void) {
    stance_skeleton *sk = make_skeleton();
    float ib[16 * SJ];
    bind_matrices(ib);
    stance_skin_desc sd = {"body", SJ, k_skin_joints, ib};
    stance_skin *skin = NULL;
    CHECK_OK(stance_skin_create(&sd, sk, NULL, &skin, NULL));

    enum { V = 40 };
    float pos[3 * V], w[4 * V];
    uint16_t jn[4 * V];
    uint32_t idx[3 * (V - 2)];
    for (int v = 0; v < V; v++) {
        pos[3 * v] = 0.1f * sinf((float)v), pos[3 * v + 1] = 0.05f * (float)v, pos[3 * v + 2] = 0.1f * cosf(0.7f * (float)v);
        float a = 1.0f + (float)(v % 3), b = (float)(v % 5), c = 0.5f * (float)(v % 2), e = (v % 7) == 0 ? 2.0f : 0.0f;
        float s = a + b + c + e;
        /* weights that sum to 1 only within 5e-4: they are renormalized */
        w[4 * v] = a / s * 1.0005f, w[4 * v + 1] = b / s * 1.0005f, w[4 * v + 2] = c / s * 1.0005f, w[4 * v + 3] = e / s * 1.0005f;
        jn[4 * v] = (uint16_t)(v % SJ), jn[4 * v + 1] = (uint16_t)((v * 3 + 1) % SJ);
        jn[4 * v + 2] = (uint16_t)((v * 7 + 2) % SJ), jn[4 * v + 3] = (uint16_t)((v + 5) % SJ);
    }
    for (int t = 0; t < V - 2; t++) idx[3 * t] = (uint32_t)t, idx[3 * t + 1] = (uint32_t)t + 1, idx[3 * t + 2] = (uint32_t)t + 2;
    stance_mesh_desc md;
    memset(&md, 0, sizeof md);
    md.name = "blob";
    md.skin = 0;
    md.vertex_count = V;
    md.positions = pos;
    md.joints = jn;
    md.weights = w;
    md.index_count = 3 * (V - 2);
    md.indices = idx;
    stance_mesh *mesh = NULL;
    stance_error err;
    CHECK_OK(stance_mesh_create(&md, skin, NULL, &mesh, &err));
    if (!mesh) {
        fprintf(stderr, "  %s\n", err.message);
        return;
    }
    CHECK(mesh->skin == 0 && mesh->uvs == NULL && mesh->base_color[0] == 0.8f && mesh->base_color[3] == 1.0f);
    for (int v = 0; v < V; v++) {
        double s = 0;
        for (int k = 0; k < 4; k++) {
            s += mesh->weights[4 * v + k];
            CHECK_NEAR(mesh->weights[4 * v + k], w[4 * v + k] / 1.0005, 1e-6);
        }
        CHECK_NEAR(s, 1.0, 1e-6);
    }

    stance_transform rest[NJ], pose[NJ];
    rest_pose(rest);
    posed(pose);
    stance_pose local, model;
    CHECK_OK(stance_pose_create(&local, NJ, NULL, NULL));
    CHECK_OK(stance_pose_create(&model, NJ, NULL, NULL));
    load_pose(&local, pose);
    CHECK_OK(stance_local_to_model(&model, &local, sk, NULL, NULL));
    float m[16 * SJ];
    CHECK_OK(stance_skin_matrices(skin, &model, m, SJ, NULL));
    double worst = 0;
    for (int v = 0; v < V; v++) {
        const float *p = mesh->positions + 3 * v;
        double got[3] = {0, 0, 0}, want[3] = {0, 0, 0};
        double pd[3] = {p[0], p[1], p[2]};
        double wsum = 0;
        for (int k = 0; k < 4; k++) {
            int sj = mesh->joints[4 * v + k];
            double wk = mesh->weights[4 * v + k];
            const float *mk = m + 16 * sj;
            for (int r = 0; r < 3; r++) got[r] += wk * (mk[r] * pd[0] + mk[4 + r] * pd[1] + mk[8 + r] * pd[2] + mk[12 + r]);
            /* reference: into the joint's frame at the rest, out of it at the pose */
            double wk_ref = w[4 * v + k];
            double in_joint[3], out[3];
            from_world(k_parents, rest, k_skin_joints[sj], pd, in_joint);
            to_world(k_parents, pose, k_skin_joints[sj], in_joint, out);
            for (int r = 0; r < 3; r++) want[r] += wk_ref * out[r];
            wsum += wk_ref;
        }
        for (int r = 0; r < 3; r++) {
            double e = fabs(got[r] - want[r] / wsum);
            if (e > worst) worst = e;
        }
    }
    printf("  skinned vertices: largest difference from quaternion LBS %.3g\n", worst);
    CHECK(worst <= 2e-5);
    stance_pose_destroy(&local);
    stance_pose_destroy(&model);
    stance_mesh_destroy(mesh);
    stance_skin_destroy(skin);
    stance_skeleton_destroy(sk);
}

/* A regular octahedron: each vertex touches 4 equal faces, so its
 * area-weighted normal is its own direction; an unused vertex gets +Y. */
static void test_computed_normals(void) {
    float pos[7 * 3] = {1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 5, 5, 5};
    /* faces wound outwards (counter-clockwise seen from outside) */
    uint32_t idx[24] = {0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5};
    stance_mesh_desc md;
    memset(&md, 0, sizeof md);
    md.skin = -1;
    md.vertex_count = 7;
    md.positions = pos;
    md.index_count = 24;
    md.indices = idx;
    md.base_color[0] = 0.25f, md.base_color[3] = 1.0f;
    stance_mesh *mesh = NULL;
    CHECK_OK(stance_mesh_create(&md, NULL, NULL, &mesh, NULL));
    if (!mesh) return;
    CHECK(!strcmp(mesh->name, "mesh") && mesh->skin == -1 && !mesh->joints && !mesh->weights);
    CHECK(mesh->base_color[0] == 0.25f && mesh->base_color[1] == 0.0f);
    for (int v = 0; v < 6; v++)
        for (int c = 0; c < 3; c++) CHECK_NEAR(mesh->normals[3 * v + c], pos[3 * v + c], 1e-6);
    CHECK(mesh->normals[18] == 0.0f && mesh->normals[19] == 1.0f && mesh->normals[20] == 0.0f);
    stance_mesh_destroy(mesh);

    /* a skewed fan: vertex 0 shares a big triangle in the XY plane and a small
     * one in the YZ plane; the weights are their areas (2 and 0.5) */
    float p2[5 * 3] = {0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 1, 0};
    uint32_t i2[6] = {0, 1, 2, 0, 4, 3};
    md.vertex_count = 5, md.positions = p2, md.index_count = 6, md.indices = i2;
    CHECK_OK(stance_mesh_create(&md, NULL, NULL, &mesh, NULL));
    if (!mesh) return;
    /* (0,1,0) x (0,0,1) = +X: (0,0,1) * 2 * 2 + (1,0,0) * 2 * 0.5 -> (1, 0, 4) / sqrt(17) */
    CHECK_NEAR(mesh->normals[0], 1.0 / sqrt(17.0), 1e-6);
    CHECK_NEAR(mesh->normals[1], 0.0, 1e-6);
    CHECK_NEAR(mesh->normals[2], 4.0 / sqrt(17.0), 1e-6);
    stance_mesh_destroy(mesh);
}

static int has(const stance_error *e, const char *what) {
    if (strstr(e->message, what)) return 1;
    fprintf(stderr, "  message '%s' lacks '%s'\n", e->message, what);
    return 0;
}

static void test_skin_validation(void) {
    stance_skeleton *sk = make_skeleton();
    float ib[16 * SJ];
    bind_matrices(ib);
    stance_skin *skin = (stance_skin *)1;
    stance_error e;
    stance_skin_desc d = {"s", SJ, k_skin_joints, ib};
    CHECK_STATUS(stance_skin_create(&d, NULL, NULL, &skin, &e), STANCE_ERR_ARGUMENT);
    CHECK(skin == NULL);
    CHECK_STATUS(stance_skin_create(NULL, sk, NULL, &skin, &e), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_skin_create(&d, sk, NULL, NULL, &e), STANCE_ERR_ARGUMENT);
    d.joint_count = 0;
    CHECK_STATUS(stance_skin_create(&d, sk, NULL, &skin, &e), STANCE_ERR_ARGUMENT);
    CHECK(has(&e, "joint_count 0"));
    d.joint_count = STANCE_MAX_SKIN_JOINTS + 1;
    CHECK_STATUS(stance_skin_create(&d, sk, NULL, &skin, &e), STANCE_ERR_ARGUMENT);
    d.joint_count = SJ;
    d.joints = NULL;
    CHECK_STATUS(stance_skin_create(&d, sk, NULL, &skin, &e), STANCE_ERR_ARGUMENT);
    CHECK(has(&e, "joints is NULL"));
    int bad[SJ];
    memcpy(bad, k_skin_joints, sizeof bad);
    bad[4] = NJ;
    d.joints = bad;
    CHECK_STATUS(stance_skin_create(&d, sk, NULL, &skin, &e), STANCE_ERR_ARGUMENT);
    CHECK(has(&e, "joint 4 is skeleton joint 11"));
    bad[4] = -1;
    CHECK_STATUS(stance_skin_create(&d, sk, NULL, &skin, &e), STANCE_ERR_ARGUMENT);
    d.joints = k_skin_joints;
    float ib2[16 * SJ];
    memcpy(ib2, ib, sizeof ib);
    ib2[16 * 2 + 5] = NAN;
    d.inverse_bind = ib2;
    CHECK_STATUS(stance_skin_create(&d, sk, NULL, &skin, &e), STANCE_ERR_VALUE);
    CHECK(has(&e, "matrix 2 is not finite"));
    ib2[16 * 2 + 5] = INFINITY;
    CHECK_STATUS(stance_skin_create(&d, sk, NULL, &skin, &e), STANCE_ERR_VALUE);
    memcpy(ib2, ib, sizeof ib);
    ib2[16 * 3 + 7] = 0.5f; /* projective */
    CHECK_STATUS(stance_skin_create(&d, sk, NULL, &skin, &e), STANCE_ERR_VALUE);
    CHECK(has(&e, "matrix 3 is not affine"));
    ib2[16 * 3 + 7] = 5e-5f; /* within 1e-4: accepted */
    CHECK_OK(stance_skin_create(&d, sk, NULL, &skin, &e));
    stance_skin_destroy(skin);
    char longname[80];
    memset(longname, 'a', 70);
    longname[70] = 0;
    d.inverse_bind = ib;
    d.name = longname;
    CHECK_STATUS(stance_skin_create(&d, sk, NULL, &skin, &e), STANCE_ERR_ARGUMENT);
    CHECK(has(&e, "longer than 63"));
    d.name = "ok";
    stance_allocator half = {NULL, NULL, NULL};
    half.alloc = (void *(*)(void *, size_t, size_t))1; /* alloc without free */
    CHECK_STATUS(stance_skin_create(&d, sk, &half, &skin, &e), STANCE_ERR_ARGUMENT);

    /* skin matrices: bad arguments */
    CHECK_OK(stance_skin_create(&d, sk, NULL, &skin, NULL));
    stance_pose model, small;
    CHECK_OK(stance_pose_create(&model, NJ, NULL, NULL));
    CHECK_OK(stance_pose_create(&small, NJ - 1, NULL, NULL));
    float m[16 * SJ];
    CHECK_STATUS(stance_skin_matrices(NULL, &model, m, SJ, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_skin_matrices(skin, NULL, m, SJ, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_skin_matrices(skin, &model, NULL, SJ, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_skin_matrices(skin, &model, m, SJ - 1, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_skin_matrices(skin, &small, m, SJ, NULL), STANCE_ERR_ARGUMENT);
    stance_pose zero;
    memset(&zero, 0, sizeof zero);
    CHECK_STATUS(stance_skin_matrices(skin, &zero, m, SJ, NULL), STANCE_ERR_ARGUMENT);
    CHECK_OK(stance_skin_matrices(skin, &model, m, SJ, NULL));
    stance_pose_destroy(&model);
    stance_pose_destroy(&small);
    stance_skin_destroy(skin);
    stance_skeleton_destroy(sk);
}

static void test_mesh_validation(void) {
    stance_skeleton *sk = make_skeleton();
    stance_skin_desc sd = {"s", 3, (const int[]){0, 1, 2}, NULL};
    stance_skin *skin = NULL;
    CHECK_OK(stance_skin_create(&sd, sk, NULL, &skin, NULL));
    float pos[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, nrm[12], uv[8] = {0, 0, 1, 0, 0, 1, 1, 1};
    for (int i = 0; i < 12; i++) nrm[i] = i % 3 == 1 ? 1.0f : 0.0f;
    float w[16];
    uint16_t jn[16];
    for (int i = 0; i < 16; i++) w[i] = i % 4 == 0 ? 1.0f : 0.0f, jn[i] = (uint16_t)(i % 3);
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    stance_mesh_desc good;
    memset(&good, 0, sizeof good);
    good.name = "m";
    good.skin = 0;
    good.vertex_count = 4;
    good.positions = pos;
    good.normals = nrm;
    good.uvs = uv;
    good.joints = jn;
    good.weights = w;
    good.index_count = 6;
    good.indices = idx;
    stance_mesh *mesh = NULL;
    stance_error e;
    CHECK_OK(stance_mesh_create(&good, skin, NULL, &mesh, &e));
    if (mesh) {
        CHECK(!memcmp(mesh->normals, nrm, sizeof nrm) && !memcmp(mesh->uvs, uv, sizeof uv));
        CHECK(!memcmp(mesh->weights, w, sizeof w) && !memcmp(mesh->joints, jn, sizeof jn));
        CHECK(!memcmp(mesh->indices, idx, sizeof idx) && !memcmp(mesh->positions, pos, sizeof pos));
    }
    stance_mesh_destroy(mesh);
    mesh = (stance_mesh *)1;

#define BAD(field_change, status, text) do { stance_mesh_desc d_ = good; field_change; \
    CHECK_STATUS(stance_mesh_create(&d_, skin, NULL, &mesh, &e), status); \
    CHECK(mesh == NULL); CHECK(has(&e, text)); } while (0)
    BAD(d_.vertex_count = 0, STANCE_ERR_ARGUMENT, "vertex_count 0");
    BAD(d_.vertex_count = STANCE_MAX_VERTICES + 1, STANCE_ERR_ARGUMENT, "vertex_count");
    BAD(d_.index_count = 5, STANCE_ERR_ARGUMENT, "multiple of 3");
    BAD(d_.index_count = 0, STANCE_ERR_ARGUMENT, "multiple of 3");
    BAD(d_.positions = NULL, STANCE_ERR_ARGUMENT, "positions or indices is NULL");
    BAD(d_.indices = NULL, STANCE_ERR_ARGUMENT, "positions or indices is NULL");
    BAD(d_.skin = -1, STANCE_ERR_ARGUMENT, "skin index is -1");
    BAD(d_.weights = NULL, STANCE_ERR_ARGUMENT, "needs joints and weights");
    BAD(d_.joints = NULL, STANCE_ERR_ARGUMENT, "needs joints and weights");
    BAD(d_.name = "0123456789012345678901234567890123456789012345678901234567890123456789",
        STANCE_ERR_ARGUMENT, "longer than 63");
    float p2[12];
    memcpy(p2, pos, sizeof pos);
    p2[7] = NAN;
    BAD(d_.positions = p2, STANCE_ERR_VALUE, "vertex 2 position");
    p2[7] = -INFINITY;
    BAD(d_.positions = p2, STANCE_ERR_VALUE, "vertex 2 position");
    p2[7] = 2e9f;
    BAD(d_.positions = p2, STANCE_ERR_VALUE, "beyond");
    float n2[12];
    memcpy(n2, nrm, sizeof nrm);
    n2[4] = NAN;
    BAD(d_.normals = n2, STANCE_ERR_VALUE, "vertex 1 normal");
    n2[4] = 0.0f;
    BAD(d_.normals = n2, STANCE_ERR_VALUE, "vertex 1 normal");
    float uv2[8];
    memcpy(uv2, uv, sizeof uv);
    uv2[5] = INFINITY;
    BAD(d_.uvs = uv2, STANCE_ERR_VALUE, "vertex 2 uv");
    float w2[16];
    memcpy(w2, w, sizeof w);
    w2[4] = 1.002f;
    BAD(d_.weights = w2, STANCE_ERR_VALUE, "vertex 1 weights sum to 1.002");
    w2[4] = 1.5f, w2[5] = -0.5f;
    BAD(d_.weights = w2, STANCE_ERR_VALUE, "vertex 1 weight -0.5");
    w2[4] = 0.0f, w2[5] = 0.0f;
    BAD(d_.weights = w2, STANCE_ERR_VALUE, "vertex 1 weights sum to 0");
    w2[4] = NAN, w2[5] = 0.0f;
    BAD(d_.weights = w2, STANCE_ERR_VALUE, "vertex 1 weight nan");
    uint16_t j2[16];
    memcpy(j2, jn, sizeof jn);
    j2[13] = 3; /* weight 0 there, but the index must still be in the skin */
    BAD(d_.joints = j2, STANCE_ERR_ARGUMENT, "vertex 3 joint index 3");
    uint32_t i2[6] = {0, 1, 2, 0, 2, 4};
    BAD(d_.indices = i2, STANCE_ERR_ARGUMENT, "index 5 is vertex 4");
    i2[5] = 0xffffffffu;
    BAD(d_.indices = i2, STANCE_ERR_ARGUMENT, "index 5 is vertex 4294967295");
    BAD(d_.base_color[1] = 1.5f, STANCE_ERR_VALUE, "base colour component 1");
    BAD(d_.base_color[2] = NAN, STANCE_ERR_VALUE, "base colour component 2");
    /* rigid meshes: no skin, skin index -1, no joints or weights */
    CHECK_STATUS(stance_mesh_create(&good, NULL, NULL, &mesh, &e), STANCE_ERR_ARGUMENT);
    CHECK(has(&e, "without a skin"));
    stance_mesh_desc rigid = good;
    rigid.skin = -1;
    CHECK_STATUS(stance_mesh_create(&rigid, NULL, NULL, &mesh, &e), STANCE_ERR_ARGUMENT);
    CHECK(has(&e, "rigid mesh"));
    rigid.joints = NULL, rigid.weights = NULL;
    CHECK_OK(stance_mesh_create(&rigid, NULL, NULL, &mesh, &e));
    stance_mesh_destroy(mesh);
    CHECK_STATUS(stance_mesh_create(NULL, skin, NULL, &mesh, &e), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_mesh_create(&good, skin, NULL, NULL, &e), STANCE_ERR_ARGUMENT);
    stance_mesh_destroy(NULL);
    stance_skin_destroy(NULL);
    stance_skin_destroy(skin);
    stance_skeleton_destroy(sk);
}

/* ---- allocation failures ----------------------------------------------------- */
typedef struct counter { long allocs; long long live; int fail_after; } counter;
static void *count_alloc(void *u, size_t size, size_t align) {
    counter *c = u;
    if (c->fail_after >= 0 && c->allocs >= c->fail_after) return NULL;
    c->allocs++;
    c->live += (long long)size;
    return st_aligned_alloc(align < 8 ? 8 : align, (size + align - 1) / align * align);
}
static void count_free(void *u, void *p, size_t size) {
    counter *c = u;
    c->live -= (long long)size;
    st_aligned_free(p);
}

static void test_allocation(void) {
    stance_skeleton *sk = make_skeleton();
    counter c = {0, 0, 0};
    stance_allocator al = {count_alloc, count_free, &c};
    stance_skin_desc sd = {"s", 2, (const int[]){0, 1}, NULL};
    stance_skin *skin = NULL;
    stance_error e;
    CHECK_STATUS(stance_skin_create(&sd, sk, &al, &skin, &e), STANCE_ERR_MEMORY);
    CHECK(skin == NULL && c.live == 0 && has(&e, "allocation"));
    c.fail_after = -1;
    CHECK_OK(stance_skin_create(&sd, sk, &al, &skin, &e));
    CHECK(c.allocs == 1 && (size_t)c.live == skin->bytes);
    float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, w[12] = {1, 0, 0, 0, 1, 0, 0, 0, 0.5f, 0.5f, 0, 0};
    uint16_t jn[12] = {0};
    jn[9] = 1;
    uint32_t idx[3] = {0, 1, 2};
    stance_mesh_desc md;
    memset(&md, 0, sizeof md);
    md.skin = 0, md.vertex_count = 3, md.positions = pos, md.joints = jn, md.weights = w;
    md.index_count = 3, md.indices = idx;
    stance_mesh *mesh = NULL;
    c.fail_after = (int)c.allocs;
    CHECK_STATUS(stance_mesh_create(&md, skin, &al, &mesh, &e), STANCE_ERR_MEMORY);
    CHECK(mesh == NULL && (size_t)c.live == skin->bytes);
    c.fail_after = -1;
    CHECK_OK(stance_mesh_create(&md, skin, &al, &mesh, &e));
    CHECK(c.allocs == 2);
    /* one flat triangle in XY, counter-clockwise: every normal is +Z */
    for (int v = 0; v < 3; v++) CHECK(mesh->normals[3 * v + 2] == 1.0f);
    stance_mesh_destroy(mesh);
    stance_skin_destroy(skin);
    CHECK(c.live == 0);
    stance_skeleton_destroy(sk);
}

int main(void) {
    RUN(test_bind_pose_identity);
    RUN(test_posed_matrices);
    RUN(test_skinned_vertices);
    RUN(test_computed_normals);
    RUN(test_skin_validation);
    RUN(test_mesh_validation);
    RUN(test_allocation);
    return check_summary();
}
