/* src/io/retarget_internal.h - what the humanoid map's files share (not
 * public API): the slot names, the bind pose in model space, the map file. */
#ifndef STANCE_RETARGET_INTERNAL_H
#define STANCE_RETARGET_INTERNAL_H
#include "stance/retarget.h"
const char *const *rt_slot_names(void);
/* Model-space rest positions and rotations (x, y, z, w) of every joint. */
void rt_rest_positions(const stance_skeleton *s, float (*pos)[3], float (*rot)[4]);
/* Reads the JSON map file and applies its slots to *m. */
stance_status rt_apply_map_file(const char *path, const stance_skeleton *s, stance_humanoid_map *m, stance_error *err);
#endif
