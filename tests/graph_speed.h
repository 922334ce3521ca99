/* tests/graph_speed.h - what the crowd tests (test_reference.c,
 * test_checksum.c) give every instance alike: the speed scale (the largest
 * root speed of the clips a graph plays, 4 when none moves) and the first
 * update's switch mode and layer weights for instance i. */
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

/* instance i's switch mode (every seventh the graph's own), blend time and
 * easing, and its layers' weights, set before its first update */
static inline void crowd_first_frame(stance_instance *in, int i, int layers) {
    stance_instance_override_switch(in, i % 7 == 6 ? -1 : i % 6, 0.1f + 0.05f * (float)(i % 5),
                                    i % 3 == 0 ? STANCE_EASE_LINEAR : STANCE_EASE_SMOOTHSTEP, NULL);
    for (int l = 1; l < layers; l++) stance_instance_set_layer_weight(in, l, (float)((i + l) % 4) / 3.0f, 0.0f, NULL);
}

#endif
