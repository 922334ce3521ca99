/* stance/retarget.h - the humanoid bone map (issue 27, item 1): which joint
 * of a skeleton plays each humanoid slot (hips, spine, chest, neck, head,
 * and per side the upper leg, lower leg, foot, toes, shoulder, upper arm,
 * lower arm and hand), found from the joints' names for the common naming
 * schemes (CMU/BVH, Mixamo, glTF characters such as RobotExpressive, the
 * Unreal mannequin, Unity and VRM humanoids), else from the skeleton's
 * structure and bind pose, and overridden by a JSON map file
 * (docs/retargeting.md, docs/retarget-map.schema.json); offline
 * retargeting (item 2): a clip made for one humanoid played on another's
 * skeleton, and its measures (item 4). Tools side (libstance_io; the map
 * file needs jansson). */
#ifndef STANCE_RETARGET_H
#define STANCE_RETARGET_H
#include "asset.h"
#include "skeleton.h"
#ifdef __cplusplus
extern "C" {
#endif
enum {
    STANCE_SLOT_HIPS, STANCE_SLOT_SPINE, STANCE_SLOT_CHEST, STANCE_SLOT_NECK, STANCE_SLOT_HEAD,
    STANCE_SLOT_LEFT_UPPER_LEG, STANCE_SLOT_LEFT_LOWER_LEG, STANCE_SLOT_LEFT_FOOT, STANCE_SLOT_LEFT_TOES,
    STANCE_SLOT_RIGHT_UPPER_LEG, STANCE_SLOT_RIGHT_LOWER_LEG, STANCE_SLOT_RIGHT_FOOT, STANCE_SLOT_RIGHT_TOES,
    STANCE_SLOT_LEFT_SHOULDER, STANCE_SLOT_LEFT_UPPER_ARM, STANCE_SLOT_LEFT_LOWER_ARM, STANCE_SLOT_LEFT_HAND,
    STANCE_SLOT_RIGHT_SHOULDER, STANCE_SLOT_RIGHT_UPPER_ARM, STANCE_SLOT_RIGHT_LOWER_ARM, STANCE_SLOT_RIGHT_HAND,
    STANCE_HUMANOID_SLOTS,
    /* finger slots (a retarget's segments with stance_retarget_desc.fingers;
     * not in the map or its file): per side (left then right) thumb, index,
     * middle, ring, little, each its first three joints */
    STANCE_SLOT_FINGERS = STANCE_HUMANOID_SLOTS,
    STANCE_RETARGET_SLOTS = STANCE_HUMANOID_SLOTS + 30
};
/* How a slot was filled. */
#define STANCE_FOUND_NONE 0      /* not mapped */
#define STANCE_FOUND_NAME 1      /* from the joint's name */
#define STANCE_FOUND_STRUCTURE 2 /* from the tree and the bind pose */
#define STANCE_FOUND_FILE 3      /* from the map file */
typedef struct stance_humanoid_map {
    int joint[STANCE_HUMANOID_SLOTS];  /* the joint's index, -1 when not mapped */
    int found[STANCE_HUMANOID_SLOTS];  /* STANCE_FOUND_* */
} stance_humanoid_map;
/* Zero = the defaults. */
typedef struct stance_humanoid_map_desc {
    const char *map_file;  /* a JSON map file applied last (NULL = none) */
    int no_names;          /* 1: ignore the names, map from the structure alone */
} stance_humanoid_map_desc;
/* Fills *out for `skeleton` (desc may be NULL): names first, then the
 * structure for the slots still empty, then the map file. The structure
 * assumes the bind pose faces +Z with the character's left at +X (glTF's
 * convention; CMU's BVH files too). A broken map file is one message
 * "FILE:LINE:COL: ..." (STANCE_ERR_FORMAT, or _NOT_FOUND for a joint the
 * skeleton lacks), and *out is left all unmapped. */
STANCE_API stance_status stance_humanoid_map_find(const stance_skeleton *skeleton, const stance_humanoid_map_desc *desc,
                                                  stance_humanoid_map *out, stance_error *err);
/* The slot's name as the map file spells it ("hips", "left_upper_leg",
 * ...); a finger slot's "left_thumb_1" ... "right_little_3" (below
 * STANCE_RETARGET_SLOTS); "" out of range. */
STANCE_API const char *stance_humanoid_slot_name(int slot);
/* 1 for the slots a humanoid may lack (toes, shoulders, neck, chest), 0 for
 * the others and out of range. */
STANCE_API int stance_humanoid_slot_optional(int slot);
/* ---- offline retargeting (docs/retargeting.md) ----------------------------
 * A slot mapped in both skeletons is "shared"; only shared slots move. Per
 * shared slot, the segment is from its joint to the next shared slot down its
 * chain (hips -> spine -> chest -> neck -> head; upper leg -> lower leg ->
 * foot -> toes; shoulder -> upper arm -> lower arm -> hand). At each key of
 * the source clip's grid, each shared joint's target model rotation is
 *   R_T(t) = S(t) * D(t) * A * R_T,bind,   D(t) = R_S(t) * inverse(R_S,bind)
 * (D the source joint's model-space turn since its bind pose; A the swing
 * taking the target's bind segment direction onto the source's, the rest-pose
 * alignment, an end slot taking its chain parent's; S(t) the swing taking
 * D(t) applied to the source's bind direction onto the source's segment
 * direction at t, so extra joints between two slots in either skeleton
 * change nothing): the target's segment points where the source's does,
 * and twists as the source joint does. The pelvis is the hips when they
 * carry both legs, else the legs' nearest common ancestor (RobotExpressive's
 * Body, which then turns as the source's pelvis does). The leg sockets'
 * midpoint m (the upper legs') follows the source's:
 *   m_T(t) = m_T,bind + k (m_S(t) - m_S,bind) across,
 *   m_T(t).y = f_T + k (m_S(t).y - g_S) up,  k = leg_T / leg_S
 * (leg = |upper - lower| + |lower - foot| at the bind pose, both sides'
 * mean; f_T the target's feet at the bind pose, g_S the source's lowest
 * foot in the clip), the pelvis where its turn puts it; a root path and
 * root speed are scaled by k. A shared joint whose chain parent slot is not
 * its ancestor (RobotExpressive's feet, IK bones
 * under the root) is moved where its chain parent carries it. Every other
 * joint keeps its rest pose (local). Then, unless free_feet, while the
 * source's foot is planted (stance_contacts_create from the motion), the
 * target's foot follows the source's foot motion times k from where it
 * landed, through the two-bone IK (stance_ik_two_bone, the foot keeping its
 * model rotation); the pelvis takes the planted feet's corrections (weighted
 * by how planted each is, so on one foot all of it) and their turn, and a
 * lifted foot's correction fades into the pelvis' over blend_time (so the
 * pelvis may leave the source's scaled path: pelvis_drift_legs).
 * Both skeletons' bind poses face +Z with the left at +X and Y up (as
 * stance_humanoid_map_find assumes). */
typedef struct stance_retarget_desc {
    const char *source_map;  /* map file for the source skeleton (NULL = found) */
    const char *target_map;  /* map file for the target skeleton (NULL = found) */
    int free_feet;           /* 1: no foot IK (directions exact, feet may slide) */
    int fingers;             /* 1: retarget the fingers both skeletons have: a
                                finger is the joints (up to 3) under the hand (or,
                                without one, the lower arm) whose names hold
                                thumb, index, middle, ring, or little/pinky, from
                                the shallowest down its first child; 0: the
                                target's fingers keep their rest pose */
    float blend_time;        /* s over which a foot's correction fades into the
                                pelvis' after a contact; 0 = 0.2 */
} stance_retarget_desc;

/* `clip` (made for `source`) played on `target`: a new exact clip on the
 * source clip's key grid (or 60 keys a second where that is sparser) with
 * its name, duration, events and root path (scaled). desc may be NULL. Fails (STANCE_ERR_NOT_FOUND) when either
 * skeleton lacks the hips or a leg's upper leg, lower leg or foot in its
 * map, naming the skeleton and the slot. */
STANCE_API stance_status stance_retarget_clip(const stance_clip *clip, const stance_skeleton *source,
                                              const stance_skeleton *target, const stance_retarget_desc *desc,
                                              const stance_allocator *allocator, stance_clip **out, stance_error *err);
/* Every clip of `source` played on `target`'s skeleton (stance_retarget_clip):
 * the target's own clips are replaced (its skeleton, skins and meshes kept).
 * Not with a graph. On failure the target is unchanged. */
STANCE_API stance_status stance_retarget_asset(stance_asset *target, const stance_asset *source,
                                               const stance_retarget_desc *desc, stance_error *err);

/* ---- run-time retargeting (item 3, docs/retargeting.md) -------------------
 * A clip of `target` that plays `clip` (made for `source`) when sampled:
 * the bone map and the rest-pose corrections are baked here, and each
 * sample is the source clip's keys read for the source joints the mapped
 * target joints need, then one pass over the mapped target joints writing
 *   L_T = pre * inverse(U) * D * post
 * (D, U: products of the source's local rotations between the joint's and
 * its mapped parent's source joints; pre, post: the bind poses and the
 * alignment A of stance_retarget_clip), the pelvis' translation by the leg
 * ratio, IK feet under the root carried by their lower leg; every other
 * target joint at its rest pose. Unless desc->free_feet, the source's foot
 * contacts are kept as stance_retarget_clip keeps them: that pass is run
 * here (with desc->blend_time), and per key of its grid the pelvis' model
 * turn and shift and each foot's goal (an offset from where the pose puts
 * it) are baked; each sample turns and shifts the pelvis (its children
 * keeping their model rotations) and solves both legs with a two-bone IK to
 * those goals (the knee keeps its bend plane, the foot its model rotation),
 * so it follows the offline clip (its limbs within 0.02 deg of it on CMU
 * 01_01). The clip has the source clip's name, duration, events and root
 * path (scaled); it owns an exact copy of the source clip (so `clip` and
 * `source` need not outlive it) and is not compressed or written to a
 * .stance file as it is (stance_asset_save refuses it;
 * stance_retarget_clip_bake makes an ordinary clip of it). Fails like
 * stance_retarget_clip (a skeleton without hips or a leg in its map,
 * STANCE_ERR_NOT_FOUND), and with STANCE_ERR_UNSUPPORTED for a target
 * whose pelvis or IK feet sit below a mapped joint. */
STANCE_API stance_status stance_retarget_clip_runtime(const stance_clip *clip, const stance_skeleton *source,
                                                      const stance_skeleton *target, const stance_retarget_desc *desc,
                                                      const stance_allocator *allocator, stance_clip **out,
                                                      stance_error *err);
/* An ordinary exact clip of `target` from a run-time retargeted clip
 * (stance_retarget_clip_runtime; `clip->retarget` set): its samples on the
 * source clip's key grid (and, where that is sparser than 60 keys a
 * second, the ticks of 60 a second too), a
 * rotation track per mapped joint and a translation track for the pelvis and
 * carried feet, the clip's name, duration, events and root path; nlerped
 * like the run-time clip's source keys. It can be compressed and saved
 * (`stance compile` writes a graph's retargeted clips so). Equal to the
 * run-time clip at its keys; between them it interpolates the result, the
 * run-time clip the source. STANCE_ERR_ARGUMENT for a clip that is not
 * retargeted or not made for `target`. */
STANCE_API stance_status stance_retarget_clip_bake(const stance_clip *clip, const stance_skeleton *target,
                                                   const stance_allocator *allocator, stance_clip **out,
                                                   stance_error *err);

/* The measures of one retargeted clip against its source, sampled at 60 per
 * second over the source clip's duration, in model space. */
typedef struct stance_retarget_report {
    char clip[64];              /* the target clip's name */
    int frames;                 /* samples taken */
    int segments;               /* shared segments compared per frame */
    /* the angle between each shared segment's direction in the target and in
     * the source, degrees: mean over segments and frames, and the worst */
    float direction_mean_deg, direction_worst_deg;
    int worst_slot;             /* the slot starting the worst segment; -1 none */
    float worst_time;           /* when, s */
    /* the target's feet while the source's foot was planted (the source's
     * contacts, stance_contacts_create): their horizontal motion beyond k x
     * the source foot's, in cm (model units x 100), and per metre travelled
     * (cm/m; travel = k x the source's: its root path, its hips' horizontal
     * travel or an in-place walk's stance_walk_velocity x duration, the
     * largest; -1 when that is under half the target's leg) */
    float slide_cm, slide_cm_per_m;
    float travel;               /* model units of the target */
    int planted_frames;         /* frames either source foot was planted */
    /* the pelvis' height (the leg sockets' midpoint above the feet: the
     * target's feet at its bind pose, the source's lowest in the clip),
     * target over source, mean over the frames; the leg-length ratio k */
    float pelvis_ratio, leg_ratio;
    /* the largest frame-to-frame change of a shared joint's model rotation,
     * degrees, in the target and in the source */
    float step_deg, source_step_deg;
    /* the leg sockets' midpoint's largest horizontal distance from where the
     * source's puts it (its bind place plus k x the source's motion), in
     * target leg lengths, and when (s): what keeping the contacts on other
     * proportions moved the pelvis off the source's scaled path (0 with
     * free_feet) */
    float pelvis_drift_legs, pelvis_drift_time;
} stance_retarget_report;

/* Measures `target_clip` (made for `target`, from stance_retarget_clip with the same
 * desc's maps) against `source_clip` (made for `source`). */
STANCE_API stance_status stance_retarget_measure(const stance_clip *source_clip, const stance_skeleton *source,
                                                 const stance_clip *target_clip, const stance_skeleton *target,
                                                 const stance_retarget_desc *desc, stance_retarget_report *out,
                                                 stance_error *err);
#ifdef __cplusplus
}
#endif
#endif
