/* tests/test_io_meshes.c - skins and skinned meshes imported through assimp
 * (FBX and Collada files of assimp-testmodels): counts, the skin joints
 * named as skeleton joints, every skin matrix the identity at the rest pose
 * where the file's rest pose is its bind pose (and a warning where it is
 * not: animation_with_skeleton.fbx, whose bones disagree on the bind
 * transform), the Collada cube where the file puts it (worked out by hand),
 * unit normals and weights that
 * sum to 1, and the skin and mesh surviving a .stance round trip bit for
 * bit. Skipped (with a message) when assimp-testmodels is missing, unless
 * CI=true. Also the Collada clip-name scan on a file written here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "io/collada_clips.h"
#include "stance/import.h"
#include "stance/stance.h"
#include "stance/build.h"

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
    CHECK_OK(stance_pose_set_rest(&local, a.skeleton, NULL));
    CHECK_OK(stance_local_to_model(&model, &local, a.skeleton, NULL, NULL));
    float *mats = malloc(sizeof(float) * 16 * (size_t)s->joint_count);
    CHECK_OK(stance_skin_matrices(s, &model, mats, s->joint_count, NULL));
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
    if (strstr(x->path, "box_nested_animation.dae")) {
        /* Worked by hand from the file: the cube's vertices are +-1, its skin's
         * bind shape matrix moves them by (-1, 1, 1) and its inverse bind is
         * the bone's bind world matrix, so at the bind pose the skinned cube
         * spans (-2..0, 0..2, 0..2) in the file's Z-up world, which assimp
         * turns Y-up by (x, y, z) -> (x, z, -y): (-2..0, 0..2, -2..0). */
        float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
        for (int v = 0; v < m->vertex_count; v++)
            for (int c = 0; c < 3; c++)
                lo[c] = fminf(lo[c], m->positions[3 * v + c]), hi[c] = fmaxf(hi[c], m->positions[3 * v + c]);
        const float want_lo[3] = {-2, 0, -2}, want_hi[3] = {0, 2, 0};
        for (int c = 0; c < 3; c++) {
            CHECK_NEAR(lo[c], want_lo[c], 1e-5);
            CHECK_NEAR(hi[c], want_hi[c], 1e-5);
        }
    }
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

static void test_collada_clip_names(void) {
    const char *path = "test_io_meshes_clips.dae";
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    fputs("<COLLADA><library_animation_clips>\n"
          "<animation_clip\n name=\"walk cycle\" start=\"0\" end=\"1\"><instance_animation url=\"#a\"/></animation_clip>\n"
          "<animation_clip id='run_id' end='2'/>\n"
          "<animation_clip>\n"
          "<animation_clip xname=\"no\" name = 'jump'>\n"
          "</library_animation_clips><animation_clipping name=\"not a clip\"/></COLLADA>\n", f);
    fclose(f);
    char names[8][64];
    CHECK(stance_collada_clip_names(path, names, 8) == 4);
    CHECK(!strcmp(names[0], "walk cycle") && !strcmp(names[1], "run_id") && !strcmp(names[2], "clip2") &&
          !strcmp(names[3], "jump"));
    CHECK(stance_collada_clip_names(path, names, 2) == 4); /* counts all, stores 2 */
    remove(path);
    CHECK(stance_collada_clip_names("/nonexistent/x.dae", names, 8) == -1);
}

int main(void) {
    RUN(test_testmodels);
    RUN(test_collada_clip_names);
    return check_summary();
}
