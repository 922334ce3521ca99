/* stance/retarget.h - the humanoid bone map (issue 27, item 1): which joint
 * of a skeleton plays each humanoid slot (hips, spine, chest, neck, head,
 * and per side the upper leg, lower leg, foot, toes, shoulder, upper arm,
 * lower arm and hand), found from the joints' names for the common naming
 * schemes (CMU/BVH, Mixamo, glTF characters such as RobotExpressive, the
 * Unreal mannequin, Unity and VRM humanoids), else from the skeleton's
 * structure and bind pose, and overridden by a JSON map file
 * (docs/retargeting.md, docs/retarget-map.schema.json). Tools side
 * (libstance_io; the map file needs jansson). */
#ifndef STANCE_RETARGET_H
#define STANCE_RETARGET_H
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
    STANCE_HUMANOID_SLOTS
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
 * ...); "" out of range. */
STANCE_API const char *stance_humanoid_slot_name(int slot);
/* 1 for the slots a humanoid may lack (toes, shoulders, neck, chest), 0 for
 * the others and out of range. */
STANCE_API int stance_humanoid_slot_optional(int slot);
#ifdef __cplusplus
}
#endif
#endif
