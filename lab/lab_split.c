/* lab/lab_split.c - the side by side view of lab/lab_split.js (issue 28 item
 * 4): the skinning matrices of the ghost, the view's recorded switch replayed
 * under another switch mode (lab/lab_time.c), at the frame the view shows,
 * so the page draws it as a second whole character beside the one as played.
 * The ghost's pose is the one lab_time.c replayed and kept per frame; this
 * file only makes the matrices an engine would skin it with. */
#include <string.h>

#include "lab.h"

const float *lab_time_ghost_full(int view, int back); /* lab_time.c */

static float g_split[STANCE_MAX_SKIN_JOINTS * 16];
static _Alignas(32) unsigned char g_pose_mem[(STANCE_MAX_JOINTS + 8) * 10 * sizeof(float)]; /* a pose, padded to 8 joints */

/* Skin `s`'s matrices (stance_skin_matrices' layout) for the ghost's pose at
 * the frame `back` before the newest of view `view`'s tape; NULL (lab_error)
 * where the ghost has not replayed that frame. */
LAB_API const float *lab_split_skin_matrices(int view, int back, int s) {
    lab_view *v = lab_view_at(view);
    if (!v || s < 0 || s >= v->skin_count) { lab_fail("split: no skin %d in view %d", s, view); return NULL; }
    const float *full = lab_time_ghost_full(view, back);
    if (!full) { lab_fail("split: the ghost has not replayed frame %d back", back); return NULL; }
    const int J = v->skeleton->joint_count;
    stance_pose pose;
    stance_error err = {0};
    if (stance_pose_init(&pose, J, g_pose_mem, sizeof g_pose_mem, &err)) { lab_fail("split: %s", err.message); return NULL; }
    float *const ch[10] = {pose.tx, pose.ty, pose.tz, pose.qx, pose.qy, pose.qz, pose.qw, pose.sx, pose.sy, pose.sz};
    for (int k = 0; k < 10; k++) memcpy(ch[k], full + (size_t)k * (size_t)J, sizeof(float) * (size_t)J);
    if (stance_skin_matrices(v->skins[s], &pose, g_split, STANCE_MAX_SKIN_JOINTS, &err)) {
        lab_fail("split: %s", err.message);
        return NULL;
    }
    return g_split;
}
