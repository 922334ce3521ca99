#define _POSIX_C_SOURCE 200809L
/* tools/bench_load.c - `stance bench --load FILE`: what loading a .stance
 * file costs the runtime (stance_asset_load_memory from bytes already in
 * memory, the way a game holding its files would): the median wall time of
 * LOAD_RUNS loads, and the allocations one load makes (count and bytes,
 * through a counting allocator; the same every run). When the file has a
 * compiled graph (a GRPH section) the same is measured for the file without
 * it (the header mended), and the graph alone: the runtime's GRPH reader
 * (src/core/load/asset_graph.h) called on the section with the rest of the file
 * loaded once, LOAD_RUNS times. Built with -DBENCH_LOAD_1BC150C it calls
 * the reader as it was at git 1bc150c (one argument fewer), so the same
 * file measures the runtime before this change (docs/build.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_load.h"
#include "core/load/asset_graph.h"
#include "stance/stance.h"
#include "core/base/platform.h" /* st_aligned_alloc / st_aligned_free */

#ifdef BENCH_LOAD_1BC150C
#define GRAPH_LOAD(body, n, a, al, out, err) st_graph_section_load(body, n, a, al, out, err)
#else
#define GRAPH_LOAD(body, n, a, al, out, err) st_graph_section_load(body, n, a, al, NULL, out, err)
#endif

#define LOAD_RUNS 100

typedef struct counting {
    size_t count, bytes, live, peak;
} counting;

static void *c_alloc(void *user, size_t size, size_t align) {
    counting *c = user;
    if (align < sizeof(void *)) align = sizeof(void *);
    void *p = NULL;
    p = st_aligned_alloc(align, (size + align) / align * align);
    if (!p) return NULL;
    c->count++, c->bytes += size, c->live += size;
    if (c->live > c->peak) c->peak = c->live;
    return p;
}
static void c_free(void *user, void *ptr, size_t size) {
    counting *c = user;
    if (!ptr) return;
    c->live -= size;
    st_aligned_free(ptr);
}

double bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}
int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static uint64_t rd64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
static void wr64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* The file's GRPH section (the last), or size when there is none. */
static size_t grph_at(const unsigned char *b, size_t size) {
    size_t at = 32;
    while (at + 16 <= size) {
        if (!memcmp(b + at, "GRPH", 4)) return at;
        at += 16 + (size_t)rd64(b + at + 8);
    }
    return size;
}

typedef struct load_cost {
    double median_ns;
    counting one; /* the allocations of one load */
    int graph;    /* the load gave asset.graph */
} load_cost;

static int measure(const unsigned char *bytes, size_t size, load_cost *out, stance_error *err) {
    double t[LOAD_RUNS];
    memset(out, 0, sizeof *out);
    for (int r = 0; r < LOAD_RUNS; r++) {
        counting c = {0, 0, 0, 0};
        const stance_allocator al = {c_alloc, c_free, &c};
        stance_asset a;
        const double t0 = bench_now_ns();
        const stance_status s = stance_asset_load_memory(bytes, size, &al, &a, err);
        const double t1 = bench_now_ns();
        if (s) return 1;
        out->graph = a.graph != NULL;
        stance_asset_destroy(&a);
        t[r] = t1 - t0;
        if (r == 0) out->one = c;
    }
    qsort(t, LOAD_RUNS, sizeof t[0], bench_cmp_double);
    out->median_ns = 0.5 * (t[LOAD_RUNS / 2 - 1] + t[LOAD_RUNS / 2]);
    return 0;
}

/* The GRPH section alone, against the asset loaded once (bytes: the file without its GRPH). */
static int measure_graph(const unsigned char *bytes, size_t g, const unsigned char *body, size_t len, load_cost *out,
                         stance_error *err) {
    stance_asset a;
    memset(out, 0, sizeof *out);
    if (stance_asset_load_memory(bytes, g, NULL, &a, err)) return 1;
    double t[LOAD_RUNS];
    for (int r = 0; r < LOAD_RUNS; r++) {
        counting c = {0, 0, 0, 0};
        const stance_allocator al = {c_alloc, c_free, &c};
        stance_graph *graph = NULL;
        const double t0 = bench_now_ns();
        const stance_status s = GRAPH_LOAD(body, len, &a, &al, &graph, err);
        const double t1 = bench_now_ns();
        if (s) {
            stance_asset_destroy(&a);
            return 1;
        }
        stance_graph_destroy(graph);
        t[r] = t1 - t0;
        if (r == 0) out->one = c;
    }
    stance_asset_destroy(&a);
    qsort(t, LOAD_RUNS, sizeof t[0], bench_cmp_double);
    out->median_ns = 0.5 * (t[LOAD_RUNS / 2 - 1] + t[LOAD_RUNS / 2]);
    out->graph = 1;
    return 0;
}

int bench_load(const char *path, int json) {
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "stance bench: %s: cannot open\n", path); return 1; }
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = n > 0 ? malloc((size_t)n) : NULL;
    if (!bytes || fread(bytes, 1, (size_t)n, f) != (size_t)n) {
        fclose(f), free(bytes);
        fprintf(stderr, "stance bench: %s: cannot read\n", path);
        return 1;
    }
    fclose(f);
    const size_t size = (size_t)n, g = grph_at(bytes, size);
    stance_error err = {STANCE_OK, ""};
    load_cost all, alone, graph;
    int rc = measure(bytes, size, &all, &err);
    memset(&graph, 0, sizeof graph);
    if (!rc && g < size) { /* the same file without its graph, then the graph alone */
        unsigned char *body = malloc(size - g);
        memcpy(body, bytes + g, size - g);
        wr64(bytes + 16, g - 32);
        wr64(bytes + 24, stance_asset_checksum(bytes + 32, g - 32));
        rc = measure(bytes, g, &alone, &err);
        if (!rc) rc = measure_graph(bytes, g, body + 16, size - g - 16, &graph, &err);
        free(body);
    } else {
        alone = all;
    }
    free(bytes);
    if (rc) { fprintf(stderr, "stance bench: %s: %s\n", path, err.message); return 1; }
    const size_t grph = size - g;
    if (json) {
        printf("{\"file\":\"%s\",\"bytes\":%zu,\"graph_bytes\":%zu,\"runs\":%d,\"load_ns\":%.0f,\"allocations\":%zu,"
               "\"allocated_bytes\":%zu,\"peak_bytes\":%zu,\"without_graph\":{\"load_ns\":%.0f,\"allocations\":%zu,"
               "\"allocated_bytes\":%zu},\"graph\":{\"load_ns\":%.0f,\"allocations\":%zu,\"allocated_bytes\":%zu,"
               "\"peak_bytes\":%zu}}\n",
               path, size, grph, LOAD_RUNS, all.median_ns, all.one.count, all.one.bytes, all.one.peak, alone.median_ns,
               alone.one.count, alone.one.bytes, graph.median_ns, graph.one.count, graph.one.bytes, graph.one.peak);
        return 0;
    }
    printf("%s: %zu bytes (GRPH %zu), %s; median of %d loads from memory (stance_asset_load_memory):\n", path, size, grph,
           all.graph ? "a compiled graph" : "no graph", LOAD_RUNS);
    printf("  whole file       %10.1f us  %6zu allocations  %10zu bytes (peak %zu)\n", all.median_ns / 1e3, all.one.count,
           all.one.bytes, all.one.peak);
    if (g < size) {
        printf("  without its GRPH %10.1f us  %6zu allocations  %10zu bytes\n", alone.median_ns / 1e3, alone.one.count,
               alone.one.bytes);
        printf("  the graph alone  %10.1f us  %6zu allocations  %10zu bytes (peak %zu; its GRPH reader, the rest loaded once)\n",
               graph.median_ns / 1e3, graph.one.count, graph.one.bytes, graph.one.peak);
    }
    return 0;
}
