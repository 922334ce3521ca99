/* tests/test_io_meshes.c - skins and skinned meshes imported through assimp
 * (FBX and Collada files of assimp-testmodels): counts, the skin joints
 * named as skeleton joints, every skin matrix the identity at the rest pose
 * where the file's rest pose is its bind pose (and a warning where it is
 * not: animation_with_skeleton.fbx, whose bones disagree on the bind
 * transform), unit normals and weights that
 * sum to 1, and the skin and mesh surviving a .stance round trip bit for
 * bit. Skipped (with a message) when assimp-testmodels is missing, unless
 * CI=true. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "import.h"
#include "stance/stance.h"

typedef struct expect {
    const char *path;
    int meshes, vertices, triangles, skin_joints;
    int rest_is_bind;
} expect;

static const expect k_files[] = {
    {"/usr/share/assimp/models/FBX/animation_with_skeleton.fbx", 1, 4224, 2112, 14, 0},
    {"/usr/share/assimp/models/FBX/huesitos.fbx", 1, 256, 120, 9, 1},
    {"/usr/share/assimp/models/Collada/box_nested_animation.dae", 1, 36, 12, 1, 1},
};

static void check_file(const expect *x) {
    FILE *f = fopen(x->path, "rb");
    if (!f) {
        const char *ci = getenv("CI");
        printf("  skip: missing %s\n", x->path);
        CHECK(!(ci && !strcmp(ci, "true")));
        return;
    }
    fclose(f);
    stance_asset a;
    stance_error err;
    stance_import_warnings w;
    stance_import_options opt = {.warnings = &w};
    CHECK_OK(stance_import_file(x->path, &opt, NULL, &a, &err));
    if (!a.skeleton) {
        fprintf(stderr, "  %s\n", err.message);
        return;
    }
    CHECK(a.mesh_count == x->meshes && a.skin_count == x->meshes);
    if (a.mesh_count != x->meshes) return;
    const stance_mesh *m = a.meshes[0];
    const stance_skin *s = a.skins[m->skin];
    CHECK(m->vertex_count == x->vertices && m->index_count == 3 * x->triangles && s->joint_count == x->skin_joints);
    for (int k = 0; k < s->joint_count; k++) CHECK(s->joints[k] >= 0 && s->joints[k] < a.skeleton->joint_count);
    /* the rest pose is the bind pose: identity skin matrices */
    stance_pose local, model;
    CHECK_OK(stance_pose_create(&local, a.skeleton->joint_count, NULL, NULL));
    CHECK_OK(stance_pose_create(&model, a.skeleton->joint_count, NULL, NULL));
    CHECK_OK(stance_pose_set_rest(&local, a.skeleton));
    CHECK_OK(stance_local_to_model(&model, &local, a.skeleton, NULL));
    float *mats = malloc(sizeof(float) * 16 * (size_t)s->joint_count);
    CHECK_OK(stance_skin_matrices(s, &model, mats, s->joint_count));
    double worst = 0, extent = 0;
    for (int k = 0; k < s->joint_count; k++)
        for (int e = 0; e < 16; e++) {
            double d = fabs(mats[16 * k + e] - (e % 5 == 0 ? 1.0 : 0.0));
            if (d > worst) worst = d;
        }
    for (int v = 0; v < 3 * m->vertex_count; v++) extent = fmax(extent, fabs(m->positions[v]));
    printf("  %s: %d joints, mesh '%s' %d vertices (extent %.3g m), skin %d joints; rest pose: largest deviation "
           "from identity %.3g\n",
           strrchr(x->path, '/') + 1, a.skeleton->joint_count, m->name, m->vertex_count, extent, s->joint_count, worst);
    int warned = 0;
    for (int i = 0; i < w.count && i < STANCE_IMPORT_WARNINGS; i++) warned |= strstr(w.message[i], "not the bind pose") != NULL;
    if (x->rest_is_bind) CHECK(worst <= 1e-4 && !warned);
    else CHECK(worst > 1e-4 && warned);
    for (int v = 0; v < m->vertex_count; v++) {
        const float *n = m->normals + 3 * v;
        CHECK_NEAR(sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), 1.0, 1e-5);
        double sum = 0;
        for (int k = 0; k < 4; k++) sum += m->weights[4 * v + k];
        CHECK_NEAR(sum, 1.0, 1e-6);
    }
    free(mats);
    stance_pose_destroy(&local);
    stance_pose_destroy(&model);
    /* through .stance */
    void *bytes = NULL;
    size_t size = 0;
    CHECK_OK(stance_asset_save_memory(&a, &bytes, &size, NULL, &err));
    stance_asset b;
    CHECK_OK(stance_asset_load_memory(bytes, size, NULL, &b, &err));
    if (b.mesh_count == a.mesh_count) {
        const stance_mesh *q = b.meshes[0];
        CHECK(!memcmp(m->positions, q->positions, sizeof(float) * 3 * (size_t)m->vertex_count));
        CHECK(!memcmp(m->weights, q->weights, sizeof(float) * 4 * (size_t)m->vertex_count));
        CHECK(!memcmp(s->inverse_bind, b.skins[0]->inverse_bind, sizeof(float) * 16 * (size_t)s->joint_count));
    } else {
        CHECK(0);
    }
    stance_asset_destroy(&b);
    stance_asset_free_bytes(bytes, size, NULL);
    stance_asset_destroy(&a);
}

static void test_testmodels(void) {
    for (size_t i = 0; i < sizeof k_files / sizeof k_files[0]; i++) check_file(&k_files[i]);
}

int main(void) {
    RUN(test_testmodels);
    return check_summary();
}
