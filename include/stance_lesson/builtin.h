/* stance_lesson/builtin.h - the built-in character: a humanoid skeleton made in
 * code (metres, Y up, facing +Z, its right hand on -X) and procedural clips.
 *
 * Clips: "idle" (loop), "walk" and "run" (loops, in place, with a declared
 * root speed and a root path; feet planted while in contact), "jump" (one
 * shot with "takeoff" and "land" events), "wave" (right arm, whole body
 * keyed), "lean" (forward spine lean, for an additive layer; its reference is
 * its first frame), "breathe" (additive; reference its first frame). walk and
 * run carry "foot_l" / "foot_r" events at each foot's contact.
 *
 * Skin and mesh: "body", a skin of every joint in skeleton order (inverse
 * binds from the rest pose, so at the rest pose every skin matrix is the
 * identity) and a closed skinned mesh of one rounded capsule per bone, its
 * weights blending smoothly into the neighbouring joint near each joint
 * (normals area-weighted from the triangles, base colour set, no uvs). */
#ifndef STANCE_BUILTIN_H
#define STANCE_BUILTIN_H

#include "../stance/base.h"
#include "../stance/clip.h"
#include "../stance/instance.h"
#include "../stance/skeleton.h"
#include "../stance/skin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STANCE_BUILTIN_CLIPS 7

typedef struct stance_builtin {
    stance_skeleton *skeleton;
    stance_clip *clips[STANCE_BUILTIN_CLIPS]; /* idle, walk, run, jump, wave, lean, breathe */
    int clip_count;
    stance_skin *skin;   /* every joint, skeleton order */
    stance_mesh *mesh;   /* bound to `skin` (mesh->skin is 0) */
} stance_builtin;

/* Creates the skeleton, the clips, the skin and the mesh (all from
 * `allocator`); destroy frees them all. */
STANCE_API stance_status stance_builtin_create(const stance_allocator *allocator, stance_builtin *out,
                                    stance_error *err);
STANCE_API void stance_builtin_destroy(stance_builtin *builtin);
/* The clip of that name, or NULL. */
STANCE_API const stance_clip *stance_builtin_clip(const stance_builtin *builtin, const char *name);

/* The lesson's graph (experiments/LESSON.md) on the built-in character.
 * Parameters: speed (float, m/s), jump (trigger), plus layer controls.
 * Machine "Locomotion": Idle (idle), Move (1D blend space over speed: idle at
 * 0, walk and run at their root speeds, phase-synced), Jump (once); the
 * transitions in the lesson's priority order, Jump leaving by exit time so
 * its blend ends as the clip ends. Blend 0.25 s, smoothstep, crossfade.
 * Layers, in the lesson's order: "base" (Locomotion), "breathe" and "lean"
 * (additive, weight 0), "wave" (override, upper body from spine, weight 0). */
STANCE_API stance_status stance_builtin_lesson_graph(const stance_builtin *builtin, const stance_allocator *allocator,
                                          stance_graph **out, stance_error *err);

#ifdef __cplusplus
}
#endif
#endif
