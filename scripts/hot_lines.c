/* scripts/hot_lines.c - the crowd of `stance bench --graph` (tools/crowd.c)
 * with a few characters, for scripts/hot_lines.sh: it prints each
 * instance's block (address, bytes) and loads a marker before and after
 * the frames to measure, so valgrind's lackey trace shows which of the
 * instances' cache lines a steady-state update touches. With a fifth
 * argument "skip": the LOD crowd (tools/crowd.c) on frames every character
 * skips (stance_instance_advance and the pose blended from its last two,
 * `stance bench --budget-ms`), one pass over the characters a frame. Not a test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd.h"
#include "tool_graph.h"

volatile int hot_lines_marker[16];

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: hot_lines GRAPH CHARACTERS WARM FRAMES [skip]\n"); return 2; }
    const int n = atoi(argv[2]), warm = atoi(argv[3]), frames = atoi(argv[4]), skip = argc > 5 && !strcmp(argv[5], "skip");
    tool_graph tg;
    stance_error err = {0};
    crowd *c = NULL;
    if (tool_graph_open(&tg, argv[1], NULL, &err) || crowd_create(tg.graph, n, 1, 0, &c, &err)) {
        fprintf(stderr, "hot_lines: %s\n", err.message);
        return 1;
    }
    if (skip && crowd_lod_enable(c, 0, &err)) { fprintf(stderr, "hot_lines: %s\n", err.message); return 1; }
    for (int k = 0; k < warm; k++) crowd_frame_warm(c);
    if (skip) crowd_lod_mode(c, CROWD_LOD_SKIP, 0);
    fprintf(stderr, "MARKER %p\n", (void *)hot_lines_marker);
    for (int i = 0; i < n; i++) fprintf(stderr, "INSTANCE %p %zu\n", (void *)crowd_instance(c, i), crowd_instance_bytes(c));
    /* the parts of the block: the hot part's end, the local and model poses */
    const stance_instance *i0 = crowd_instance(c, 0);
    const char *b0 = (const char *)i0;
    const size_t pb = stance_pose_bytes(stance_instance_local_pose(i0)->joint_count);
    fprintf(stderr, "PARTS %zu %zu %zu %zu\n", crowd_instance_hot_bytes(c),
            (size_t)((const char *)stance_instance_local_pose(i0)->memory - b0),
            (size_t)((const char *)stance_instance_model_pose(i0)->memory - b0), pb);
    fprintf(stderr, "WORKSPACE %p %zu\n", crowd_workspace(c), crowd_workspace_bytes(c));
    fflush(stderr);
    (void)hot_lines_marker[0];
    for (int k = 0; k < frames; k++) crowd_frame_timed(c);
    (void)hot_lines_marker[0];
    crowd_destroy(c);
    tool_graph_close(&tg);
    return 0;
}
