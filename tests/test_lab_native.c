/* tests/test_lab_native.c - the lab's C (lab/ *.c files) built natively and run
 * under the sanitizers with `make test-asan`: the lesson machine, the graph
 * description read through graph_query, a .stance file made here from the
 * built-in character (its clips' names give the lesson's roles), the role
 * mapping, the crowd (its world-placed skin rows and its low-detail mesh),
 * and bad input. References: the lesson graph's documented transitions
 * (stance/builtin.h), the clip order of stance_builtin, the skin's
 * definition (a joint's bind position goes to its model position), the
 * built-in full mesh's extent. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "stance/stance.h"
#include "stance/build.h"
#include "stance_lesson/stance_lesson.h"

/* from the lab C files (no header of their own for JavaScript's sake) */
int lab_init(void);
const char *lab_error(void);
int lab_sm_step(float dt);
void lab_sm_set_speed(float speed);
const char *lab_graph_json(int view);
const float *lab_live(int view);
const float *lab_skin_matrices(int view, int skin);
int lab_skin_count(int view);
int lab_triangle_count(int view);
const char *lab_base_state(int view);
unsigned char *lab_asset_buffer(int size);
int lab_asset_load(void);
int lab_asset_step(int view, float dt);
int lab_asset_graph_kind(void);
int lab_asset_role_clip(int role);
int lab_asset_map(int role, int clip);
int lab_param_set(int view, int param, float value);
int lab_crowd_open(int n);
int lab_crowd_step(float dt);
int lab_crowd_count(void);
const float *lab_crowd_places(void);
const float *lab_crowd_rows(void);
int lab_crowd_joints(void);
const stance_pose *lab_crowd_model_pose(int i);
int lab_crowd_lod_vertex_count(void);
int lab_crowd_lod_index_count(void);
const float *lab_crowd_lod_positions(void);
const float *lab_crowd_lod_normals(void);
const uint16_t *lab_crowd_lod_joints(void);
const float *lab_crowd_lod_weights(void);
const uint32_t *lab_crowd_lod_indices(void);
double lab_crowd_avg_ms(void);
void lab_crowd_close(void);

static void test_lesson_view(void) {
    CHECK(lab_init() == 0);
    const char *j = lab_graph_json(0);
    CHECK(j != NULL);
    if (!j) return;
    /* the lesson's transitions as stance/builtin.h documents them */
    CHECK(strstr(j, "\"conds\":\"speed >= 0.1\"") != NULL);
    CHECK(strstr(j, "\"conds\":\"speed < 0.1, at end\"") != NULL);
    CHECK(strstr(j, "\"conds\":\"jump\"") != NULL);
    CHECK(strstr(j, "{\"name\":\"Move\",\"machine\":0,\"motion\":\"blend1d\"}") != NULL);
    lab_sm_set_speed(2.0f);
    for (int i = 0; i < 90; i++) CHECK(lab_sm_step(1.0f / 60.0f) >= 0);
    CHECK(!strcmp(lab_base_state(0), "Move"));
    const float *live = lab_live(0);
    /* 4 machines x 3, then speed (damped towards 2 with a 0.1 s halflife: 1.5 s is 15 halflives) */
    CHECK(live && fabsf(live[12] - 2.0f) < 1e-3f);
    CHECK(lab_skin_count(0) == 1 && lab_skin_matrices(0, 0) != NULL && lab_skin_matrices(0, 1) == NULL);
    CHECK(lab_sm_step(1.0f) < 0); /* dt out of range */
}

static void test_asset_roles(void) {
    stance_builtin b;
    stance_error err = {0};
    CHECK_OK(stance_builtin_create(NULL, &b, &err));
    /* a .stance of the built-in character, its skin and mesh, without a graph */
    stance_asset a = {0};
    a.skeleton = b.skeleton, a.clip_count = b.clip_count, a.clips = b.clips;
    a.skin_count = 1, a.skins = &b.skin, a.mesh_count = 1, a.meshes = &b.mesh;
    void *bytes = NULL;
    size_t size = 0;
    CHECK_OK(stance_asset_save_memory(&a, &bytes, &size, NULL, &err));
    unsigned char *buf = lab_asset_buffer((int)size);
    CHECK(buf != NULL);
    if (buf) memcpy(buf, bytes, size);
    CHECK(lab_asset_load() == b.clip_count);
    CHECK(lab_asset_graph_kind() == 2); /* the lesson's graph from the clips' names */
    for (int r = 0; r < 5; r++) CHECK(lab_asset_role_clip(r) == r); /* idle walk run jump wave: stance_builtin's order */
    CHECK(lab_triangle_count(2) == b.mesh->index_count / 3);
    CHECK(lab_param_set(2, 0, 3.0f) == 0);
    for (int i = 0; i < 60; i++) CHECK(lab_asset_step(2, 1.0f / 60.0f) >= 0);
    CHECK(!strcmp(lab_base_state(2), "Move"));
    CHECK(lab_param_set(2, 7, 1.0f) < 0);
    /* without walk and run there is no lesson graph, and the message says why */
    CHECK(lab_asset_map(1, -1) == 0);
    CHECK(lab_asset_map(2, -1) < 0 && strstr(lab_error(), "walk or run") != NULL);
    CHECK(lab_asset_graph_kind() == 0 && lab_asset_step(2, 0.01f) < 0 && lab_asset_step(3, 0.01f) >= 0);
    CHECK(lab_asset_map(0, 999) < 0 && lab_asset_map(9, 0) < 0);
    /* a corrupted file is refused with the loader's message */
    buf = lab_asset_buffer((int)size);
    if (buf) { memcpy(buf, bytes, size); buf[size - 1] ^= 0xff; }
    CHECK(lab_asset_load() < 0 && strstr(lab_error(), "checksum") != NULL);
    CHECK(lab_asset_buffer(0) == NULL && lab_asset_buffer(-5) == NULL);
    stance_asset_free_bytes(bytes, size, NULL);
    stance_builtin_destroy(&b);
}

/* Each character's texture row, applied to a skin joint's bind position,
 * gives that joint's place in the world: the facing's rotation about +y
 * (0 faces +z) of its model-pose position, plus the character's position.
 * (The built-in skin's bind pose is its rest pose, so the bind position is
 * the rest pose's model position, computed here from the skeleton.) */
static void test_crowd_rows(void) {
    stance_builtin b;
    stance_error err = {0};
    CHECK_OK(stance_builtin_create(NULL, &b, &err));
    const stance_skeleton *sk = b.skeleton;
    stance_pose l, m;
    CHECK_OK(stance_pose_create(&l, sk->joint_count, NULL, &err));
    CHECK_OK(stance_pose_create(&m, sk->joint_count, NULL, &err));
    stance_pose_set_rest(&l, sk, NULL);
    stance_local_to_model(&m, &l, sk, NULL, NULL);
    const int J = lab_crowd_joints();
    CHECK(J == b.skin->joint_count);
    const float *rows = lab_crowd_rows(), *places = lab_crowd_places();
    int turned = 0;
    double worst = 0.0;
    for (int i = 0; i < lab_crowd_count(); i++) {
        const stance_pose *mp = lab_crowd_model_pose(i);
        CHECK(mp != NULL);
        if (!mp) break;
        const float *pl = places + 4 * i;
        const double c = cos(pl[3]), s = sin(pl[3]);
        turned += fabs(pl[3]) > 0.01;
        for (int k = 0; k < J; k++) {
            const int j = b.skin->joints[k];
            const double bind[4] = {m.tx[j], m.ty[j], m.tz[j], 1.0};
            const double want[3] = {c * mp->tx[j] + s * mp->tz[j] + pl[0], mp->ty[j] + pl[1], -s * mp->tx[j] + c * mp->tz[j] + pl[2]};
            const float *r = rows + ((size_t)i * (size_t)J + (size_t)k) * 12;
            for (int a = 0; a < 3; a++) {
                double got = r[4 * a] * bind[0] + r[4 * a + 1] * bind[1] + r[4 * a + 2] * bind[2] + r[4 * a + 3] * bind[3];
                worst = fmax(worst, fabs(got - want[a]));
            }
        }
    }
    CHECK(worst < 1e-4);
    if (worst >= 1e-4) fprintf(stderr, "crowd rows: worst joint %.3g m off\n", worst);
    CHECK(turned > 50); /* the facings vary, so the rotation is exercised */
    CHECK(lab_crowd_model_pose(-1) == NULL && lab_crowd_model_pose(lab_crowd_count()) == NULL);
    stance_pose_destroy(&l), stance_pose_destroy(&m);
    stance_builtin_destroy(&b);
}

/* The low-detail mesh: valid indices, one skin joint per vertex, unit
 * normals, every triangle wound outwards (its face normal along its vertices'
 * normals, so back-face culling keeps the sides we see), and it spans the
 * character as the full built-in mesh does (within 4 cm). */
static void test_crowd_lod(void) {
    stance_builtin b;
    stance_error err = {0};
    CHECK_OK(stance_builtin_create(NULL, &b, &err));
    const int nv = lab_crowd_lod_vertex_count(), ni = lab_crowd_lod_index_count();
    const float *p = lab_crowd_lod_positions(), *n = lab_crowd_lod_normals(), *w = lab_crowd_lod_weights();
    const uint16_t *jn = lab_crowd_lod_joints();
    const uint32_t *ix = lab_crowd_lod_indices();
    CHECK(nv > 0 && ni > 0 && ni % 3 == 0);
    CHECK(ni / 3 < b.mesh->index_count / 3 / 20); /* a level of detail: under a twentieth of the full mesh */
    for (int v = 0; v < nv; v++) {
        CHECK(jn[4 * v] < b.skin->joint_count && w[4 * v] == 1.0f && w[4 * v + 1] == 0.0f);
        CHECK(fabs(sqrt(n[3 * v] * n[3 * v] + n[3 * v + 1] * n[3 * v + 1] + n[3 * v + 2] * n[3 * v + 2]) - 1.0) < 1e-4);
    }
    int inward = 0, bad_index = 0;
    for (int t = 0; t < ni; t += 3) {
        if (ix[t] >= (uint32_t)nv || ix[t + 1] >= (uint32_t)nv || ix[t + 2] >= (uint32_t)nv) { bad_index++; continue; }
        const float *a = p + 3 * ix[t], *bb = p + 3 * ix[t + 1], *cc = p + 3 * ix[t + 2];
        const double e1[3] = {bb[0] - a[0], bb[1] - a[1], bb[2] - a[2]}, e2[3] = {cc[0] - a[0], cc[1] - a[1], cc[2] - a[2]};
        const double f[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        double dn = 0.0;
        for (int k = 0; k < 3; k++)
            for (int q = 0; q < 3; q++) dn += f[q] * n[3 * ix[t + k] + q];
        inward += !(dn > 0.0);
    }
    CHECK(bad_index == 0 && inward == 0);
    /* extent against the full mesh (both in the bind space of the same skin) */
    double lo[2][3], hi[2][3];
    for (int q = 0; q < 2; q++)
        for (int k = 0; k < 3; k++) lo[q][k] = 1e9, hi[q][k] = -1e9;
    for (int v = 0; v < nv; v++)
        for (int k = 0; k < 3; k++) lo[0][k] = fmin(lo[0][k], p[3 * v + k]), hi[0][k] = fmax(hi[0][k], p[3 * v + k]);
    for (int v = 0; v < b.mesh->vertex_count; v++)
        for (int k = 0; k < 3; k++)
            lo[1][k] = fmin(lo[1][k], b.mesh->positions[3 * v + k]), hi[1][k] = fmax(hi[1][k], b.mesh->positions[3 * v + k]);
    for (int k = 0; k < 3; k++) {
        CHECK_NEAR(lo[0][k], lo[1][k], 0.04);
        CHECK_NEAR(hi[0][k], hi[1][k], 0.04);
    }
    stance_builtin_destroy(&b);
}

static void test_crowd(void) {
    CHECK(lab_crowd_open(0) < 0 && lab_crowd_open(401) < 0);
    CHECK(lab_crowd_open(100) == 0 && lab_crowd_count() == 100);
    float z0[100];
    for (int i = 0; i < 100; i++) z0[i] = lab_crowd_places()[4 * i + 2];
    for (int i = 0; i < 240; i++) CHECK(lab_crowd_step(1.0f / 60.0f) == 0);
    int moved = 0;
    for (int i = 0; i < 100; i++) moved += fabsf(lab_crowd_places()[4 * i + 2] - z0[i]) > 0.05f;
    CHECK(moved > 50); /* speeds cycle from 0 to 0.5..4.5 m/s: most walk off within 4 s */
    CHECK(lab_crowd_avg_ms() >= 0.0);
    test_crowd_rows();
    test_crowd_lod();
    CHECK(lab_crowd_step(-1.0f) < 0);
    lab_crowd_close();
    CHECK(lab_crowd_count() == 0 && lab_crowd_step(0.01f) < 0);
}

int main(void) {
    RUN(test_lesson_view);
    RUN(test_asset_roles);
    RUN(test_crowd);
    return check_summary();
}
