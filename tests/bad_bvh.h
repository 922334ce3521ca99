/* tests/bad_bvh.h - BVH files assimp fails to parse (a number that is not
 * one, a truncated OFFSET, CHANNELS 99), shared by tests/test_robust.c
 * (the import refuses each with a message naming the file) and
 * tests/lsan_probe.c (assimp's own leak on its error path). */
#ifndef STANCE_TESTS_BAD_BVH_H
#define STANCE_TESTS_BAD_BVH_H

#define BAD_BVH_COUNT 3
static const char *const bad_bvh[BAD_BVH_COUNT] = {
    "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
    " JOINT Chest\n {\n  OFFSET 0 5 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n  End Site\n  {\n   OFFSET 0 5 0\n  }\n }\n}\n"
    "MOTION\nFrames: 2\nFrame Time: 0.033333\n0 0 0 0 0 0 0 0 0\n0 0 0 oops\n",
    "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0\n",
    "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 99 Xposition\n}\nMOTION\nFrames: 1\n",
};

#endif
