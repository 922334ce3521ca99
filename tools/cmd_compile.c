/* tools/cmd_compile.c - `stance compile GRAPH.json [--asset FILE] -o OUT.stance`:
 * a graph file compiled into one .stance file that the dependency-free
 * runtime loads (stance_asset_load_* gives asset.graph): the skeleton, the
 * clips the graph plays (clip states, blend entries, additive references;
 * in the asset's order), the asset's skins and meshes, and the graph's
 * description in a GRPH section with clips by index. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "stance/graphfile.h"
#include "stance/build.h"

static int usage(FILE *f, int rc) {
    fprintf(f, "usage: stance compile GRAPH.json [--asset FILE] -o OUT.stance\n"
               "  writes the graph, its skeleton and the clips it plays (and the asset's skins and meshes)\n"
               "  into one .stance file; stance_asset_load_file gives the graph in asset.graph\n");
    return rc;
}

/* 1 when the description plays or references clip c. */
static int uses_clip(const stance_graph_desc *d, const stance_clip *c) {
    for (int m = 0; m < d->machine_count; m++)
        for (int s = 0; s < d->machines[m].state_count; s++) {
            const stance_state_desc *sd = &d->machines[m].states[s];
            if (sd->type == STANCE_MOTION_CLIP && sd->clip == c) return 1;
            if (sd->type == STANCE_MOTION_BLEND1D || sd->type == STANCE_MOTION_BLEND2D)
                for (int e = 0; e < sd->entry_count; e++)
                    if (sd->entries[e].clip == c) return 1;
        }
    for (int l = 0; l < d->layer_count; l++)
        if (d->layers[l].ref_clip == c) return 1;
    return 0;
}

int cmd_compile(int argc, char **argv) {
    const char *path = NULL, *asset_path = NULL, *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--asset") && i + 1 < argc) asset_path = argv[++i];
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return usage(stdout, 0);
        else if (argv[i][0] != '-' && !path) path = argv[i];
        else {
            fprintf(stderr, "stance compile: unknown or incomplete option '%s' (see --help)\n", argv[i]);
            return 2;
        }
    }
    if (!path || !out || !out[0]) return usage(stderr, 2);
    stance_graphfile_options opt;
    memset(&opt, 0, sizeof opt);
    opt.asset_override = asset_path;
    stance_graphfile *gf = NULL;
    stance_error err = {STANCE_OK, ""};
    if (stance_graphfile_load(path, &opt, &gf, &err)) {
        fprintf(stderr, "stance: %s\n", err.message);
        return 1;
    }
    const stance_graph_desc *d = stance_graphfile_desc(gf);
    if (!d) {
        fprintf(stderr, "stance: %s: is compiled already (compile its JSON graph file)\n", path);
        stance_graphfile_destroy(gf);
        return 1;
    }
    /* the asset as written: the same skeleton, skins and meshes, only the clips the graph uses */
    const stance_asset *a = stance_graphfile_asset(gf);
    stance_asset view = *a;
    view.graph = NULL;
    view.clip_count = 0;
    view.clips = a->clip_count ? malloc(sizeof(stance_clip *) * (size_t)a->clip_count) : NULL;
    if (a->clip_count && !view.clips) {
        fprintf(stderr, "stance: %s: out of memory\n", path);
        stance_graphfile_destroy(gf);
        return 1;
    }
    for (int i = 0; i < a->clip_count; i++)
        if (uses_clip(d, a->clips[i])) view.clips[view.clip_count++] = a->clips[i];
    int rc = 0;
    if (stance_asset_save_graph_file(&view, d, out, &err)) {
        fprintf(stderr, "stance: %s\n", err.message);
        rc = 1;
    } else {
        const stance_graph *g = stance_graphfile_graph(gf);
        printf("%s: graph of %s (%d parameters, %d machines, %d states, %d layers), %d joints, %d of %d clips\n", out,
               path, stance_graph_param_count(g), stance_graph_machine_count(g), stance_graph_state_count(g),
               stance_graph_layer_count(g), a->skeleton->joint_count, view.clip_count, a->clip_count);
    }
    free(view.clips);
    stance_graphfile_destroy(gf);
    return rc;
}
