/* src/io/bvh_scan.h - a cheap text pre-scan of a BVH file before assimp
 * reads it (src/io/bvh_scan.c). */
#ifndef STANCE_IO_BVH_SCAN_H
#define STANCE_IO_BVH_SCAN_H

#include <stddef.h>

#include "stance/base.h"

#define STANCE_BVH_MAX_DEPTH 256   /* joints from the root to the deepest joint */
#define STANCE_BVH_MAX_JOINTS 4096 /* ROOT and JOINT entries */

/* Reads `path` up to its "Frame Time:" line and checks what assimp does
 * not: hierarchy depth <= STANCE_BVH_MAX_DEPTH, joint count <=
 * STANCE_BVH_MAX_JOINTS, balanced braces, CHANNELS counts of 0..6,
 * "Frames:" >= 1, a finite "Frame Time:" > 0, and that the motion data
 * (frames x channels floats, as assimp stores them) fits in `max_memory`
 * bytes. Each problem is one line naming the path (and the line). */
stance_status stance_bvh_prescan(const char *path, size_t max_memory, stance_error *err);

#endif
