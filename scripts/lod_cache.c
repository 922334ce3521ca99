/* scripts/lod_cache.c - the LOD crowd of `stance bench --budget-ms`
 * (tools/crowd.c) with every character at rate 8 (phase i % 8) from the
 * start, no full-rate warm-up and no twins, for scripts/lod_cache.sh: SETTLE
 * frames, then FRAMES frames through crowd_frame_timed, which callgrind
 * collects alone (--toggle-collect) with its cache simulator, so that the
 * instructions and the last-level misses per character-frame come out the
 * same on any machine and load. SHOW: all (every skipped frame blends its
 * pose), screen (every third character's), none. BATCH: 1 the frame in
 * batches of 64 (crowd_lod_batch), 0 one character at a time. Not a test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd.h"
#include "tool_graph.h"

int main(int argc, char **argv) {
    if (argc < 7) { fprintf(stderr, "usage: lod_cache GRAPH CHARACTERS SETTLE FRAMES all|screen|none BATCH\n"); return 2; }
    const int n = atoi(argv[2]), settle = atoi(argv[3]), frames = atoi(argv[4]), batch = atoi(argv[6]);
    tool_graph tg;
    stance_error err = {0};
    crowd *c = NULL;
    if (tool_graph_open(&tg, argv[1], NULL, &err) || crowd_create(tg.graph, n, 1, 0, &c, &err) || crowd_lod_enable(c, 0, &err)) {
        fprintf(stderr, "lod_cache: %s\n", err.message);
        return 1;
    }
    unsigned char *shown = calloc((size_t)n, 1);
    if (!shown) return 1;
    for (int i = 0; i < n; i++) shown[i] = !strcmp(argv[5], "all") || (!strcmp(argv[5], "screen") && i % 3 == 0);
    stance_lod_item *items = crowd_lod_items(c);
    for (int i = 0; i < n; i++) items[i].rate = 8, items[i].phase = i % 8;
    crowd_lod_shown(c, shown);
    crowd_lod_batch(c, batch);
    for (int k = 0; k < settle; k++) crowd_frame_warm(c);
    for (int k = 0; k < frames; k++) crowd_frame_timed(c);
    printf("lod_cache: %d characters, %d frames timed, check %.6f\n", n, frames, crowd_check(c));
    crowd_destroy(c);
    free(shown);
    tool_graph_close(&tg);
    return 0;
}
