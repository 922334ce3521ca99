/* tests/test_graphfile_layout.c - the instance's block in a hot part and a
 * cold part (issue 29 item 1, docs/performance.md): on graphs/builtin.json
 * and graphs/robot.json, with and without history on every machine, what
 * every update touches (the struct, machines, parameters, layer weights,
 * IK state, cursors, the local and model poses) lies in the first
 * hot_bytes, a whole number of cache lines, and what only switches and
 * events touch (the machines' persistent poses, inertialization records,
 * the event queue) after it, none overlapping; and the batch update's
 * prefetch of the next instance changes nothing: a crowd updated with it
 * and without it, and one instance at a time, gives the same bits, with a
 * NULL in the batch too. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/frame/transition.h" /* INERT_FLOATS */
#include "core/frame/workspace.h"
#include "stance/graphfile.h"
#include "stance/stance.h"

typedef struct range {
    size_t from, to; /* offsets in the block */
    const char *what;
} range;

static int add(range *r, int n, const stance_instance *inst, const void *p, size_t bytes, const char *what) {
    const size_t at = (size_t)((const char *)p - (const char *)inst);
    r[n].from = at, r[n].to = at + bytes, r[n].what = what;
    return n + 1;
}

static int by_start(const void *a, const void *b) {
    const range *x = a, *y = b;
    return x->from < y->from ? -1 : x->from > y->from;
}

/* Every range of `inst` inside the block and on its side of hot_bytes,
 * and no two overlapping. */
static void check_layout(const stance_instance *inst, const char *name) {
    const stance_graph *g = inst->graph;
    const int J = g->skeleton->joint_count, M = g->machine_count, L = g->layer_count;
    const size_t pb = stance_pose_bytes(J);
    range hot[64], cold[8];
    int nh = 0, nc = 0, poses = 0, cursors = 0;
    for (int m = 0; m < M; m++) {
        poses += inst->machines[m].has_history ? 3 : 1;
        cursors += 2 * inst->machines[m].cursor_cap;
    }
    nh = add(hot, nh, inst, inst, sizeof *inst, "struct");
    nh = add(hot, nh, inst, inst->machines, sizeof(g_machine_rt) * (size_t)M, "machines");
    nh = add(hot, nh, inst, inst->params, sizeof(float) * (size_t)g->param_count, "params");
    nh = add(hot, nh, inst, inst->param_target, sizeof(float) * (size_t)g->param_count, "param targets");
    nh = add(hot, nh, inst, inst->layer_weight, sizeof(float) * (size_t)L, "layer weights");
    nh = add(hot, nh, inst, inst->layer_target, sizeof(float) * (size_t)L, "layer targets");
    nh = add(hot, nh, inst, inst->layer_rate, sizeof(float) * (size_t)L, "layer rates");
    nh = add(hot, nh, inst, inst->layer_off, (size_t)L, "layers off");
    nh = add(hot, nh, inst, inst->ik_state, sizeof(stance_footlock_state) * (size_t)g->ik_count, "IK state");
    nh = add(hot, nh, inst, inst->ik_target, sizeof(float) * IK_TARGET_FLOATS * (size_t)g->ik_count, "IK targets");
    nh = add(hot, nh, inst, inst->machines[0].cursors, sizeof(stance_cursor) * (size_t)cursors, "cursors");
    nh = add(hot, nh, inst, inst->poses, sizeof(stance_pose) * PI_COUNT, "pose structs");
    for (int i = 0; i < PI_COUNT; i++) nh = add(hot, nh, inst, inst->poses[i].memory, pb, i ? "model pose" : "local pose");
    nc = add(cold, nc, inst, inst->machine_pose_mem, pb * (size_t)poses, "machine poses");
    nc = add(cold, nc, inst, inst->events, sizeof(stance_event) * STANCE_EVENT_QUEUE, "events");
    for (int m = 0; m < M; m++)
        if (inst->machines[m].rec)
            nc = nc < 8 ? add(cold, nc, inst, inst->machines[m].rec, sizeof(float) * INERT_FLOATS * (size_t)J, "a record") : nc;
    int in_hot = 1, in_cold = 1, disjoint = 1;
    for (int i = 0; i < nh; i++) in_hot &= hot[i].to <= inst->hot_bytes;
    for (int i = 0; i < nc; i++) in_cold &= cold[i].from >= inst->hot_bytes && cold[i].to <= inst->bytes;
    range all[72];
    memcpy(all, hot, sizeof(range) * (size_t)nh);
    memcpy(all + nh, cold, sizeof(range) * (size_t)nc);
    qsort(all, (size_t)(nh + nc), sizeof(range), by_start);
    size_t end = 0; /* the furthest end so far */
    for (int i = 0; i < nh + nc; i++) {
        if (all[i].from < end && all[i].to > all[i].from) { /* (an empty range overlaps nothing) */
            disjoint = 0;
            printf("  %s: %s [%zu, %zu) overlaps what ends at %zu\n", name, all[i].what, all[i].from, all[i].to, end);
        }
        if (all[i].to > end) end = all[i].to;
    }
    printf("  %s: %zu bytes, %zu hot (%zu lines), %d machines, %d machine poses\n", name, inst->bytes, inst->hot_bytes,
           inst->hot_bytes / 64, M, poses);
    CHECK(inst->hot_bytes % 64 == 0 && inst->hot_bytes > 0 && inst->hot_bytes < inst->bytes);
    CHECK(in_hot && in_cold && disjoint);
    CHECK(offsetof(stance_instance, magic) >= 16); /* past what a freed block's allocator may write */
}

/* character i's inputs at frame f (a speed wave between 0 and 5 m/s, a jump every 2 s at its own time) */
static void inputs(stance_instance *in, int i, int f) {
    const int ps = stance_graph_find_param(in->graph, "speed"), pj = stance_graph_find_param(in->graph, "jump");
    const float s = (float)((f * 7 + i * 13) % 120) / 24.0f;
    if (ps >= 0) stance_instance_set_float(in, ps, s, NULL);
    if (pj >= 0 && (f + 17 * i) % 120 == 0) stance_instance_set_trigger(in, pj, NULL);
}

static int same(const stance_instance *a, const stance_instance *b) {
    const size_t pb = stance_pose_bytes(a->graph->skeleton->joint_count);
    return !memcmp(stance_instance_model_pose(a)->memory, stance_instance_model_pose(b)->memory, pb) &&
           !memcmp(stance_instance_local_pose(a)->memory, stance_instance_local_pose(b)->memory, pb) &&
           a->event_count == b->event_count;
}

enum { N = 9, FRAMES = 300 };

/* three crowds of N: batch with the prefetch, batch without, one at a
 * time; then a batch with a NULL at index 4 */
static void check_prefetch(const stance_graph *g, const char *name) {
    stance_instance *a[N], *b[N], *c[N];
    stance_workspace *wa = NULL, *wb = NULL, *wc = NULL;
    for (int i = 0; i < N; i++) {
        CHECK_OK(stance_instance_create(g, NULL, &a[i], NULL));
        CHECK_OK(stance_instance_create(g, NULL, &b[i], NULL));
        CHECK_OK(stance_instance_create(g, NULL, &c[i], NULL));
    }
    CHECK_OK(stance_workspace_create(g, NULL, &wa, NULL));
    CHECK_OK(stance_workspace_create(g, NULL, &wb, NULL));
    CHECK_OK(stance_workspace_create(g, NULL, &wc, NULL));
    CHECK(wa->prefetch == WS_PREFETCH_LARGE && wb->prefetch == WS_PREFETCH_LARGE);
    st_workspace_set_prefetch(wa, WS_PREFETCH_ALWAYS); /* N instances are far under WS_PREFETCH_BATCH_BYTES */
    st_workspace_set_prefetch(wb, WS_PREFETCH_NEVER);
    CHECK(wa->prefetch == WS_PREFETCH_ALWAYS && wb->prefetch == WS_PREFETCH_NEVER);
    int all = 1, moved = 0;
    for (int f = 0; f < FRAMES; f++) {
        for (int i = 0; i < N; i++) inputs(a[i], i, f), inputs(b[i], i, f), inputs(c[i], i, f);
        CHECK_OK(stance_instances_update(a, N, 1.0f / 60.0f, wa, NULL));
        CHECK_OK(stance_instances_update(b, N, 1.0f / 60.0f, wb, NULL));
        for (int i = 0; i < N; i++) CHECK_OK(stance_instance_update(c[i], 1.0f / 60.0f, wc, NULL));
        for (int i = 0; i < N; i++) all &= same(a[i], b[i]) && same(a[i], c[i]);
    }
    /* a NULL in the batch: refused at its index, the others updated (the one before it asks for nothing) */
    stance_instance *holed[N];
    memcpy(holed, a, sizeof holed);
    holed[4] = NULL;
    stance_error err;
    CHECK_STATUS(stance_instances_update(holed, N, 1.0f / 60.0f, wa, &err), STANCE_ERR_ARGUMENT);
    CHECK(strstr(err.message, "instance 4") != NULL);
    for (int i = 0; i < N; i++)
        if (i != 4) CHECK_OK(stance_instance_update(c[i], 1.0f / 60.0f, wc, NULL));
    for (int i = 0; i < N; i++)
        if (i != 4) all &= same(a[i], c[i]), moved += !same(a[i], b[i]);
    printf("  %s: %d instances x %d frames with and without the prefetch and one at a time: %s; after the batch with a "
           "NULL, %d of %d moved on as one at a time\n", name, N, FRAMES, all ? "the same bits" : "DIFFERENT", moved, N - 1);
    CHECK(all && moved == N - 1);
    for (int i = 0; i < N; i++) stance_instance_destroy(a[i]), stance_instance_destroy(b[i]), stance_instance_destroy(c[i]);
    stance_workspace_destroy(wa), stance_workspace_destroy(wb), stance_workspace_destroy(wc);
}

static void test_graph(const char *file) {
    const char *src = getenv("STANCE_SOURCE");
    char path[1024];
    snprintf(path, sizeof path, "%s/graphs/%s", src ? src : ".", file);
    stance_graphfile *gf = NULL;
    stance_error err;
    if (stance_graphfile_load(path, NULL, &gf, &err)) {
        printf("  %s: %s\n", path, err.message);
        CHECK(0);
        return;
    }
    const stance_graph *g = stance_graphfile_graph(gf);
    for (int h = 0; h < 2; h++) {
        stance_instance_desc d = {.history = h ? STANCE_HISTORY_ALL : STANCE_HISTORY_AUTO};
        stance_instance *inst = NULL;
        CHECK_OK(stance_instance_create_ex(g, &d, NULL, &inst, NULL));
        char name[128];
        snprintf(name, sizeof name, "%s%s", file, h ? " (history on every machine)" : "");
        if (inst) check_layout(inst, name);
        stance_instance_destroy(inst);
    }
    check_prefetch(g, file);
    stance_graphfile_destroy(gf);
}

static void test_builtin(void) { test_graph("builtin.json"); }
static void test_robot(void) { test_graph("robot.json"); }

int main(void) {
    RUN(test_builtin);
    RUN(test_robot);
    return check_summary();
}
