/* examples/skinning.c - the example docs/skinning.md quotes: the built-in walk on the built-in
 * mesh (sample, model space, one matrix per skin joint, then linear blend
 * skinning on the CPU; an engine uploads the matrices to its vertex shader
 * instead). Links the runtime and, for the built-in character, the lesson
 * library. */
#include <stdio.h>
#include <stdlib.h>
#include <stance/stance.h>
#include <stance_lesson/stance_lesson.h>

int main(void) {
    stance_builtin b;
    stance_error err;
    if (stance_builtin_create(NULL, &b, &err)) { fprintf(stderr, "%s\n", err.message); return 1; }
    const stance_mesh *mesh = b.mesh;
    const stance_skin *skin = b.skin;              /* mesh->skin == 0 */
    stance_pose local, model;
    stance_pose_create(&local, b.skeleton->joint_count, NULL, NULL);
    stance_pose_create(&model, b.skeleton->joint_count, NULL, NULL);
    float *mats = malloc(sizeof(float) * 16 * (size_t)skin->joint_count);
    float *out = malloc(sizeof(float) * 3 * (size_t)mesh->vertex_count);

    stance_clip_sample(stance_builtin_clip(&b, "walk"), 0.3f, NULL, &local, NULL);
    stance_local_to_model(&model, &local, b.skeleton, NULL, NULL);
    if (stance_skin_matrices(skin, &model, mats, skin->joint_count, NULL)) return 1; /* no allocation */
    for (int v = 0; v < mesh->vertex_count; v++) {
        const float *p = mesh->positions + 3 * v;
        float o[3] = {0, 0, 0};
        for (int k = 0; k < STANCE_SKIN_INFLUENCES; k++) {
            const float *m = mats + 16 * mesh->joints[4 * v + k], w = mesh->weights[4 * v + k];
            for (int r = 0; r < 3; r++) o[r] += w * (m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r]);
        }
        out[3 * v] = o[0], out[3 * v + 1] = o[1], out[3 * v + 2] = o[2];
    }
    printf("%d vertices skinned; vertex 0 at (%.3f %.3f %.3f)\n", mesh->vertex_count, out[0], out[1], out[2]);
    free(out), free(mats);
    stance_pose_destroy(&local), stance_pose_destroy(&model);
    stance_builtin_destroy(&b);
    return 0;
}
