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

#endif
