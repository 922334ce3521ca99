/* tools/cmd_gen_header.c - `stance gen-header GRAPH.json [--prefix ANIM] [--asset FILE]`:
 * the C header of a graph's ids, on stdout. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "tool_graph.h"
#ifdef STANCE_HAVE_JANSSON
#include "stance/gen_header.h"
#endif

int cmd_gen_header(int argc, char **argv) {
    const char *path = NULL, *prefix = NULL, *asset = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--prefix") && i + 1 < argc) prefix = argv[++i];
        else if (!strcmp(argv[i], "--asset") && i + 1 < argc) asset = argv[++i];
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: stance gen-header GRAPH.json [--prefix ANIM] [--asset FILE] > anim_ids.h\n"
                   "Writes enums for the graph's states (PREFIX_STATE_MACHINE_STATE), layers, parameters and\n"
                   "clip events, so gameplay code passes ids to stance_controller_set, never strings.\n");
            return 0;
        } else if (argv[i][0] != '-' && !path) path = argv[i];
        else { fprintf(stderr, "stance gen-header: unknown option '%s'\n", argv[i]); return 2; }
    }
    if (!path) { fprintf(stderr, "stance gen-header: a graph file is needed (see --help)\n"); return 2; }
#ifdef STANCE_HAVE_JANSSON
    tool_graph tg;
    stance_error err = {0};
    if (tool_graph_open(&tg, path, asset, &err)) { fprintf(stderr, "stance: %s\n", err.message); return 1; }
    int rc = 0;
    if (stance_write_id_header(stdout, tg.graph, prefix, path, &err)) { fprintf(stderr, "stance: %s: %s\n", path, err.message); rc = 1; }
    tool_graph_close(&tg);
    return rc;
#else
    (void)prefix, (void)asset;
    fprintf(stderr, "stance: %s: graph files need a build with jansson\n", path);
    return 1;
#endif
}
