/* tests/api_driver.h - the random public-API driver shared by the API fuzzer
 * (fuzz/fuzz_api.c), the soak test (tests/test_soak.c) and the thread test
 * (tests/test_threads.c).
 *
 * It owns: the byte source (fuzzer bytes or a seeded generator), the three
 * wrappers through which every update call of those harnesses goes (the one
 * place to change when update takes a workspace), the pose and weight
 * invariants checked after every successful update, the set of graphs the
 * calls run on, and one random call (drv_step) with the status the headers'
 * contracts promise for it. */
#ifndef STANCE_TESTS_API_DRIVER_H
#define STANCE_TESTS_API_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "stance/stance.h"
#include "stance_lesson/stance_lesson.h"

/* ---- the update wrappers (adapt here to the workspace API) --------------- */
stance_status drv_instance_update(stance_instance *inst, float dt, unsigned flags, stance_error *err);
stance_status drv_controller_update(stance_controller *ctl, float dt, stance_error *err);
stance_status drv_instance_play(stance_instance *inst, int state, stance_switch_mode mode, stance_easing easing,
                                float blend_time, stance_error *err);
/* The update wrappers take the workspace from a small per-thread cache; a
 * thread frees its cache with this before it ends. */
void drv_release_workspaces(void);

/* ---- byte source ---------------------------------------------------------- */
/* data != NULL: reads the bytes, then zeros (exhausted is set). data == NULL:
 * a splitmix64 generator seeded by rng, never exhausted. */
typedef struct drv_src {
    const uint8_t *data;
    size_t size, pos;
    uint64_t rng;
    int exhausted;
} drv_src;
uint32_t drv_u32(drv_src *s);
float drv_float(drv_src *s); /* any float: specials (NaN, inf, subnormal, huge, edges) or ordinary */
float drv_dt(drv_src *s);    /* mostly frame steps, often an edge or an invalid one */

/* ---- invariants ------------------------------------------------------------ */
/* 0 when every pose value of the instance (local and model) is finite, its
 * quaternions are unit within 1e-4, its layer weights are in [0, 1] and its
 * root motion is finite; else 1 with the reason in why. */
int drv_check_instance(const stance_instance *inst, char *why, size_t cap);
/* The same for the controller's instance, plus: exclusive layers' shares in
 * [0, 1] summing to 1 within 1e-4, additive weights in [0, 1]. */
int drv_check_controller(const stance_controller *ctl, char *why, size_t cap);
/* FNV-1a over the bits of every value of a pose's joints. */
uint64_t drv_hash_pose(uint64_t h, const stance_pose *p);

/* ---- graphs ---------------------------------------------------------------- */
#define DRV_MAX_GRAPHS 8
typedef struct drv_graphs {
    int count;
    const stance_graph *graph[DRV_MAX_GRAPHS];
    const char *name[DRV_MAX_GRAPHS];
    /* owned */
    stance_builtin builtin;
    stance_graph *lesson;
    void *files[DRV_MAX_GRAPHS]; /* stance_graphfile * (tools side) */
    int file_count;
} drv_graphs;
/* The built-in lesson graph, then (with libstance_io's JSON support) each
 * shipped graph file in source_dir/graphs that loads (robot*.json need the
 * shared data and assimp); `which` filters the files by substring (NULL =
 * all, "" = none). Prints nothing; names what it loaded in g->name. */
stance_status drv_graphs_load(drv_graphs *g, const char *source_dir, const char *which, stance_error *err);
void drv_graphs_free(drv_graphs *g);

/* ---- the random calls ------------------------------------------------------ */
#define DRV_SLOTS 4
typedef struct drv_world {
    const drv_graphs *graphs;
    stance_instance *inst[DRV_SLOTS];
    int inst_graph[DRV_SLOTS];
    stance_controller *ctl[DRV_SLOTS];
    int ctl_graph[DRV_SLOTS];
    float ground[DRV_SLOTS];  /* the height the ground callback of instance slot i answers (any float) */
    uint64_t checksum;        /* statuses and poses of every call */
    long calls, updates, refused;
    char failure[512];
} drv_world;
void drv_world_init(drv_world *w, const drv_graphs *graphs);
void drv_world_free(drv_world *w);
/* One public call chosen by src. Returns 0, or 1 with w->failure set when an
 * invariant broke or a call answered another status than its contract says. */
int drv_step(drv_world *w, drv_src *src);

#endif
