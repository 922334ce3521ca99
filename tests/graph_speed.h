/* tests/graph_speed.h - the crowd tests' speed scale (test_reference.c,
 * test_checksum.c): the largest root speed of the clips a graph plays, 4 when
 * none moves. */
#ifndef STANCE_TESTS_GRAPH_SPEED_H
#define STANCE_TESTS_GRAPH_SPEED_H

#include "stance/stance.h"

static inline float graph_run_speed(const stance_graph *g) {
    float run_speed = 0.0f;
    const stance_clip *clips[256];
    const int nc = stance_graph_clips(g, clips, 256);
    for (int c = 0; c < nc && c < 256; c++)
        if (clips[c]->root_speed > run_speed) run_speed = clips[c]->root_speed;
    return run_speed > 0.0f ? run_speed : 4.0f;
}

#endif
