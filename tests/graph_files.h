/* tests/graph_files.h - the graph files the tests load (graphs/NAME.json,
 * relative to STANCE_SOURCE), shared by test_reference.c and test_save.c:
 * load_graph and whether a graph's asset in ../shared/data is there (a
 * missing one is skipped, or fails when CI=true). Include after check.h
 * and real_files.h. */
#ifndef STANCE_TESTS_GRAPH_FILES_H
#define STANCE_TESTS_GRAPH_FILES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "real_files.h"
#include "stance/graphfile.h"
#include "stance/build.h"

/* graphs/NAME.json loaded (NULL and a failed check when it does not load).
 * In a cross build without jansson (scripts/cross_test.sh) the same graph
 * compiled by the host's CLI: $STANCE_COMPILED_GRAPHS/NAME.stance */
static inline stance_graphfile *load_graph(const char *rel) {
    const char *src = getenv("STANCE_SOURCE"), *compiled = getenv("STANCE_COMPILED_GRAPHS");
    char path[1024];
    if (compiled && compiled[0]) {
        const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
        const int stem = (int)(strstr(base, ".json") ? (size_t)(strstr(base, ".json") - base) : strlen(base));
        snprintf(path, sizeof path, "%s/%.*s.stance", compiled, stem, base);
        printf("  %s: compiled by the host's CLI: %s\n", rel, path);
    } else {
        snprintf(path, sizeof path, "%s/%s", src ? src : ".", rel);
    }
    stance_graphfile *gf = NULL;
    stance_error err = {0};
    stance_status s = stance_graphfile_load(path, NULL, &gf, &err);
    if (s) fprintf(stderr, "  %s: %s\n", path, err.message);
    CHECK_OK(s);
    return gf;
}

/* 1 when ../shared/data/REL (STANCE_DATA) exists; else 0, reported for
 * `who`, and a failure when CI=true. */
static inline int data_present(const char *rel, const char *who) {
    char p[1024];
    data_path(p, sizeof p, rel);
    FILE *probe = fopen(p, "rb");
    if (probe) { fclose(probe); return 1; }
    printf("  %s: %s %s\n", who, p, in_ci() ? "MISSING (CI=true: failing)" : "is missing: skipped");
    CHECK(!in_ci());
    return 0;
}

/* graphs/NAME.json on RobotExpressive for a round trip (test_notes.c,
 * test_curves.c): the file as the test's own JSON reader reads it, the file
 * loaded, and its compiled form as `stance compile` writes it (the clips the
 * graph plays) loaded back. 0 when skipped: the data is missing, or a cross
 * build's io reads no JSON graph files (docs/platforms.md, said in a line). */
typedef struct robot_round_trip {
    jv doc;
    unsigned char *text;
    stance_graphfile *gf;
    const stance_asset *asset;   /* the file's */
    const stance_graph *graph;   /* the file's */
    void *bytes;
    size_t size;
    stance_asset loaded;         /* the compiled form's (loaded.graph) */
} robot_round_trip;

static inline void robot_round_trip_close(robot_round_trip *rt) {
    stance_asset_destroy(&rt->loaded);
    if (rt->bytes) stance_asset_free_bytes(rt->bytes, rt->size, NULL);
    stance_graphfile_destroy(rt->gf);
    jv_free(&rt->doc);
    free(rt->text);
    memset(rt, 0, sizeof *rt);
}

static inline int robot_round_trip_open(robot_round_trip *rt, const char *name) {
    memset(rt, 0, sizeof *rt);
    const char *src = getenv("STANCE_SOURCE");
    char glb[1024], path[1024];
    data_path(glb, sizeof glb, "robot_expressive/RobotExpressive.glb");
    snprintf(path, sizeof path, "%s/graphs/%s.json", src ? src : ".", name);
    size_t fsz = 0, tsz = 0;
    unsigned char *probe = read_all(glb, &fsz);
    rt->text = read_all(path, &tsz);
    if (!probe || !rt->text) { free(probe), robot_round_trip_close(rt); return 0; }
    free(probe);
    jp parser = {(const char *)rt->text, (const char *)rt->text + tsz, 0};
    j_value(&parser, &rt->doc, 0);
    CHECK(!parser.bad);
    stance_graphfile_options opt = {glb, NULL};
    stance_error err;
    const stance_status ls = stance_graphfile_load(path, &opt, &rt->gf, &err);
    if (ls == STANCE_ERR_UNSUPPORTED) {
        printf("     %s: skipped\n", err.message);
        robot_round_trip_close(rt);
        return 0;
    }
    CHECK_OK(ls);
    if (!rt->gf) { fprintf(stderr, "%s\n", err.message); robot_round_trip_close(rt); return 0; }
    rt->asset = stance_graphfile_asset(rt->gf);
    rt->graph = stance_graphfile_graph(rt->gf);
    const stance_clip *used[64];
    const int nu = stance_graph_clips(rt->graph, used, 64);
    stance_asset view = *rt->asset;
    view.clips = (stance_clip **)used, view.clip_count = nu;
    CHECK_OK(stance_asset_save_graph_memory(&view, stance_graphfile_desc(rt->gf), &rt->bytes, &rt->size, NULL, &err));
    CHECK_OK(stance_asset_load_memory(rt->bytes, rt->size, NULL, &rt->loaded, &err));
    CHECK(rt->loaded.graph != NULL);
    return 1;
}

#endif
