/* src/io/retarget_internal.h - what the humanoid map's files share (not
 * public API): the slot names, the bind pose in model space, the map file;
 * the retargeting plan (retarget.c) its measures use (retarget_measure.c). */
#ifndef STANCE_RETARGET_INTERNAL_H
#define STANCE_RETARGET_INTERNAL_H
#include "core/math/qmath.h"
#include "stance/footlock.h"
#include "stance/retarget.h"
const char *const *rt_slot_names(void);
/* Model-space rest positions and rotations (x, y, z, w) of every joint. */
void rt_rest_positions(const stance_skeleton *s, float (*pos)[3], float (*rot)[4]);
/* Reads the JSON map file and applies its slots to *m. */
stance_status rt_apply_map_file(const char *path, const stance_skeleton *s, stance_humanoid_map *m, stance_error *err);
/* One skeleton of a retargeting: its map, its bind pose in model space, the
 * feet's mean bind height, the mean leg length, the leg sockets. */
typedef struct rt_side {
    const stance_skeleton *sk;
    stance_humanoid_map map;
    int joint[STANCE_RETARGET_SLOTS]; /* the map's joints, then the fingers' (-1 none) */
    float (*pos)[3], (*rot)[4];
    float floor, leg;
    float socket[3];  /* the upper legs' midpoint at the bind pose */
    int pelvis;       /* the hips when they carry both legs, else the legs' common ancestor */
} rt_side;
/* Source to target: the shared slots (mapped in both), each one's segment
 * end (next) and start (prev) slot, the alignment swing, the source's bind
 * segment direction, the target joints carried by their chain parent (an
 * offset in its bind frame), the slot of each target joint (-1 not shared),
 * the leg ratio k = leg_T / leg_S. */
typedef struct rt_plan {
    rt_side s, t;
    int shared[STANCE_RETARGET_SLOTS], next[STANCE_RETARGET_SLOTS], prev[STANCE_RETARGET_SLOTS];
    float align[STANCE_RETARGET_SLOTS][4], sdir[STANCE_RETARGET_SLOTS][3];
    int carried[STANCE_RETARGET_SLOTS];
    float carry[STANCE_RETARGET_SLOTS][3];
    int *tslot;
    float k, blend_time;
    int free_feet;
} rt_plan;
stance_status rt_plan_make(rt_plan *p, const stance_skeleton *source, const stance_skeleton *target,
                           const stance_retarget_desc *desc, stance_error *err);
void rt_plan_free(rt_plan *p);
/* The source's foot contacts in `clip` (from the motion; an in-place clip
 * without root motion moving at stance_walk_velocity). */
stance_status rt_contacts(const rt_plan *p, const stance_clip *clip, stance_contacts **out, stance_error *err);
/* The source's lowest foot (model height) over the clip's keys: its ground. */
stance_status rt_source_ground(const rt_plan *p, const stance_clip *clip, float *ground, stance_error *err);
qm_vec3 rt_v(const float *p);
qm_quat rt_q(const float *q);
qm_quat rt_swing(qm_vec3 a, qm_vec3 b);  /* the shortest rotation taking unit a onto unit b */
qm_vec3 rt_dir(qm_vec3 a, qm_vec3 b);    /* unit a -> b; +Y when they meet */
#endif
