/* tests/test_controller.c - the gameplay controller (seeds/004, Bullet
 * Waste): the blog's example step by step, set on a lower layer, interrupts,
 * one-shot completion and fallback, reset, sequences, fade times, random
 * calls, and hot reload (a workspace too small for the new graph, a stale
 * instance pointer). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ws.h"
#include "stance/stance.h"
#include "stance/build.h"
#include "stance_lesson/stance_lesson.h"
#include "core/base/platform.h" /* st_aligned_alloc / st_aligned_free */

static stance_builtin B;
static const float DT = 1.0f / 60.0f;
static const stance_clip *clip(const char *n) { return stance_builtin_clip(&B, n); }

/* Layers: 0 "ground" (Run loop, Idle loop), 1 "air" (Jump once; Hop once -> Land once: a sequence),
 * 2 "wave" (Wave loop), 3 "breath" additive (Breathe loop). rename: a second version of the file. */
static stance_graph *blog_graph(int rename, float jump_fade) {
    stance_state_desc ground[2] = {{.name = "Run", .clip = clip("run")}, {.name = "Idle", .clip = clip("idle")}};
    stance_state_desc air[3] = {{.name = rename ? "Leap" : "Jump", .clip = clip("jump"), .once = 1, .fade_time = jump_fade},
                                {.name = "Hop", .clip = clip("jump"), .once = 1},
                                {.name = "Land", .clip = clip("lean"), .once = 1}};
    stance_transition_desc seq = {.from = "Hop", .to = "Land", .exit = STANCE_EXIT_AT_END, .blend_time = 0.1f};
    stance_state_desc wave = {.name = "Wave", .clip = clip("wave")};
    stance_state_desc breath = {.name = "Breathe", .clip = clip("breathe")};
    stance_machine_desc ms[4] = {{.name = "Ground", .state_count = 2, .states = ground},
                                 {.name = "Air", .state_count = 3, .states = air, .transition_count = 1, .transitions = &seq},
                                 {.name = "Waving", .state_count = 1, .states = &wave},
                                 {.name = "Breathing", .state_count = 1, .states = &breath}};
    stance_layer_desc ls[4] = {{.name = "ground", .machine = "Ground", .weight = 1},
                               {.name = "air", .machine = "Air", .priority = 1},
                               {.name = "wave", .machine = "Waving", .priority = 2},
                               {.name = "breath", .machine = "Breathing", .mode = STANCE_LAYER_ADDITIVE}};
    stance_param_desc params[1] = {{"speed", STANCE_PARAM_FLOAT, 0, 0}};
    stance_graph_desc gd = {.skeleton = B.skeleton, .param_count = 1, .params = params, .machine_count = 4, .machines = ms, .layer_count = 4, .layers = ls};
    stance_graph *g = NULL;
    stance_error err;
    if (stance_graph_create(&gd, NULL, &g, &err)) fprintf(stderr, "blog_graph: %s\n", err.message);
    return g;
}

static int id(const stance_graph *g, const char *name) { return stance_graph_find_state(g, name); }

static int saw(const stance_controller *c, stance_event_type t, int layer) {
    int n;
    const stance_event *e = stance_controller_events(c, &n);
    for (int i = 0; i < n; i++)
        if (e[i].type == t && (layer < 0 || e[i].layer == layer)) return 1;
    return 0;
}

static void step(stance_controller *c, int frames) {
    for (int i = 0; i < frames; i++) stance_controller_update(c, DT, TEST_WS_CTL(c), NULL);
}

static void test_blog_example(void) {
    stance_graph *g = blog_graph(0, 0);
    stance_controller *c;
    CHECK_OK(stance_controller_create(g, NULL, NULL, &c, NULL));
    /* Run plays on layer 0, weight 1; layer 1 weight 0 */
    step(c, 1);
    CHECK(stance_controller_layer_state(c, 0) == id(g, "Run"));
    CHECK(stance_controller_visible_layer(c) == 0);
    CHECK_NEAR(stance_controller_layer_weight(c, 0), 1, 0);
    CHECK_NEAR(stance_controller_layer_weight(c, 1), 0, 0);
    /* Jump on layer 1: it becomes visible, weights cross over 0.25 s */
    CHECK_OK(stance_controller_set(c, id(g, "Jump"), NULL));
    stance_controller_update(c, DT, TEST_WS_CTL(c), NULL);
    CHECK(saw(c, STANCE_EVENT_LAYER_SHOWN, 1) && saw(c, STANCE_EVENT_LAYER_HIDDEN, 0));
    CHECK(saw(c, STANCE_EVENT_STATE_ENTERED, 1));
    CHECK(stance_controller_visible_layer(c) == 1);
    step(c, 7); /* 8 frames = 0.133 s */
    CHECK_NEAR(stance_controller_layer_weight(c, 1), 8 * DT / 0.25, 0.01);
    CHECK_NEAR(stance_controller_layer_weight(c, 0) + stance_controller_layer_weight(c, 1), 1.0, 1e-6);
    step(c, 10);
    CHECK_NEAR(stance_controller_layer_weight(c, 1), 1, 0);
    CHECK_NEAR(stance_controller_layer_weight(c, 0), 0, 0);
    /* Run keeps playing underneath */
    stance_machine_status ms;
    stance_instance_machine_status(stance_controller_instance(c), 0, &ms, NULL);
    CHECK(ms.state == id(g, "Run") && ms.state_time > 0.3f);
    /* the output is the jump's pose */
    /* Jump ends (1.2 s): the layer empties, Run shows again */
    int ended = 0, shown0 = 0, frames = 0;
    for (; frames < 120 && !ended; frames++) {
        stance_controller_update(c, DT, TEST_WS_CTL(c), NULL);
        ended = saw(c, STANCE_EVENT_STATE_ENDED, 1);
        shown0 = saw(c, STANCE_EVENT_LAYER_SHOWN, 0);
    }
    CHECK(ended && shown0);
    CHECK_NEAR((frames + 18) * DT, 1.2 + DT, 2 * DT);
    CHECK(stance_controller_visible_layer(c) == 0);
    CHECK(!stance_controller_layer_playing(c, 1));
    step(c, 15);
    CHECK_NEAR(stance_controller_layer_weight(c, 0), 1, 0);
    stance_controller_destroy(c);
    stance_graph_destroy(g);
}

static void test_lower_layer_and_interrupt(void) {
    stance_graph *g = blog_graph(0, 0);
    stance_controller *c;
    stance_controller_create(g, NULL, NULL, &c, NULL);
    stance_controller_set(c, id(g, "Jump"), NULL);
    step(c, 20);
    /* a set on the lower layer starts unseen */
    CHECK_OK(stance_controller_set(c, id(g, "Idle"), NULL));
    stance_controller_update(c, DT, TEST_WS_CTL(c), NULL);
    CHECK(saw(c, STANCE_EVENT_STATE_ENDED, 0)); /* Run was interrupted */
    CHECK(stance_controller_visible_layer(c) == 1);
    CHECK(stance_controller_layer_state(c, 0) == id(g, "Idle"));
    for (int f = 0; f < 120 && stance_controller_visible_layer(c) == 1; f++) stance_controller_update(c, DT, TEST_WS_CTL(c), NULL);
    CHECK(stance_controller_visible_layer(c) == 0 && stance_controller_layer_state(c, 0) == id(g, "Idle"));
    /* interruption on the same layer: a higher one shown, then another state on it */
    stance_controller_set(c, id(g, "Jump"), NULL);
    step(c, 10);
    CHECK_OK(stance_controller_set(c, id(g, "Hop"), NULL));
    stance_controller_update(c, DT, TEST_WS_CTL(c), NULL);
    CHECK(saw(c, STANCE_EVENT_STATE_ENDED, 1) && saw(c, STANCE_EVENT_TRANSITION_STARTED, 1));
    CHECK(stance_controller_layer_state(c, 1) == id(g, "Hop") && stance_controller_visible_layer(c) == 1);
    stance_controller_destroy(c);
    stance_graph_destroy(g);
}

static void test_sequence_reset_fades(void) {
    stance_graph *g = blog_graph(0, 0.5f);
    stance_controller *c;
    stance_controller_create(g, NULL, NULL, &c, NULL);
    /* sequence: Hop then Land with no gameplay code, then the layer empties */
    stance_controller_set(c, id(g, "Hop"), NULL);
    int saw_land = 0, ended_land = 0;
    for (int f = 0; f < 240 && !ended_land; f++) {
        stance_controller_update(c, DT, TEST_WS_CTL(c), NULL);
        int n;
        const stance_event *e = stance_controller_events(c, &n);
        for (int i = 0; i < n; i++) {
            if (e[i].type == STANCE_EVENT_STATE_ENTERED && e[i].state == id(g, "Land")) saw_land = 1;
            if (e[i].type == STANCE_EVENT_STATE_ENDED && e[i].state == id(g, "Land")) ended_land = 1;
            CHECK(!(e[i].type == STANCE_EVENT_STATE_ENDED && e[i].state == id(g, "Hop")));
        }
    }
    CHECK(saw_land && ended_land);
    /* reset of a looped state */
    stance_controller_set(c, id(g, "Wave"), NULL);
    step(c, 30);
    CHECK(stance_controller_visible_layer(c) == 2);
    CHECK_OK(stance_controller_reset(c, id(g, "Wave"), NULL));
    stance_controller_update(c, DT, TEST_WS_CTL(c), NULL);
    CHECK(saw(c, STANCE_EVENT_STATE_ENDED, 2) && saw(c, STANCE_EVENT_LAYER_SHOWN, 0));
    CHECK_STATUS(stance_controller_reset(c, id(g, "Run"), NULL), STANCE_ERR_ARGUMENT); /* base always plays */
    step(c, 20);
    /* per-state fade: Jump fades in over 0.5 s, Wave over the uniform 0.25 s */
    stance_controller_set(c, id(g, "Jump"), NULL);
    step(c, 15);
    CHECK_NEAR(stance_controller_layer_weight(c, 1), 0.5, 0.02);
    stance_controller_destroy(c);
    stance_graph_destroy(g);
    /* additive layer fades on its own */
    g = blog_graph(0, 0);
    stance_controller_create(g, NULL, NULL, &c, NULL);
    stance_controller_set(c, id(g, "Breathe"), NULL);
    step(c, 15);
    CHECK_NEAR(stance_controller_layer_weight(c, 3), 1, 0);
    CHECK(stance_controller_visible_layer(c) == 0);
    stance_controller_destroy(c);
    stance_graph_destroy(g);
}

static void test_random_calls(void) {
    stance_graph *g = blog_graph(0, 0.3f);
    stance_controller *c;
    stance_controller_create(g, NULL, NULL, &c, NULL);
    unsigned seed = 7;
    const int S = stance_graph_state_count(g);
    int bad = 0;
    for (int i = 0; i < 5000; i++) {
        seed = seed * 1103515245u + 12345u;
        int r = (int)(seed >> 16) % 10, st = (int)(seed >> 8) % S;
        if (r < 3) stance_controller_set(c, st, NULL);
        else if (r < 5) stance_controller_reset(c, st, NULL);
        else if (r < 6) stance_controller_set_float(c, 0, (float)(seed % 100) / 10.0f, NULL);
        stance_controller_update(c, DT * (float)(1 + seed % 3), TEST_WS_CTL(c), NULL);
        float sum = 0;
        for (int l = 0; l < 4; l++) {
            float w = stance_controller_layer_weight(c, l);
            if (!(w >= 0.0f && w <= 1.0f)) bad++;
            if (l < 3) sum += w;
        }
        if (fabsf(sum - 1.0f) > 1e-5f) bad++;
        const stance_pose *m = stance_instance_model_pose(stance_controller_instance(c));
        for (int j = 0; j < m->joint_count; j++)
            if (!isfinite(m->tx[j]) || !isfinite(m->qw[j])) bad++;
    }
    CHECK(bad == 0);
    /* bad ids */
    stance_error err;
    CHECK_STATUS(stance_controller_set(c, 999, &err), STANCE_ERR_NOT_FOUND);
    CHECK_STATUS(stance_controller_update(c, NAN, TEST_WS_CTL(c), NULL), STANCE_ERR_VALUE);
    stance_controller_destroy(c);
    stance_graph_destroy(g);
}

static void test_hot_reload(void) {
    stance_graph *g1 = blog_graph(0, 0), *g2 = blog_graph(1, 0);
    stance_controller *c;
    stance_controller_create(g1, NULL, NULL, &c, NULL);
    stance_controller_set(c, id(g1, "Idle"), NULL);
    stance_controller_set(c, id(g1, "Wave"), NULL);
    stance_controller_set_float(c, 0, 2.5f, NULL);
    step(c, 40);
    stance_machine_status before;
    stance_instance_machine_status(stance_controller_instance(c), 2, &before, NULL);
    char report[512];
    CHECK_OK(stance_controller_reload(c, g2, report, sizeof report, NULL));
    stance_graph_destroy(g1);
    CHECK(stance_controller_graph(c) == g2);
    CHECK(stance_controller_layer_state(c, 0) == id(g2, "Idle"));
    CHECK(stance_controller_layer_state(c, 2) == id(g2, "Wave") && stance_controller_visible_layer(c) == 2);
    stance_machine_status after;
    stance_instance_machine_status(stance_controller_instance(c), 2, &after, NULL);
    CHECK_NEAR(after.state_time, before.state_time, 1e-6);
    CHECK(stance_instance_param(stance_controller_instance(c), 0) == 2.5f);
    step(c, 10);
    /* a state that was renamed: the running one is said to be dropped */
    stance_controller_set(c, id(g2, "Leap"), NULL);
    step(c, 5);
    stance_graph *g3 = blog_graph(0, 0);
    CHECK_OK(stance_controller_reload(c, g3, report, sizeof report, NULL));
    CHECK(strstr(report, "dropped state 'Leap'") != NULL);
    /* a broken graph leaves the running one untouched */
    stance_state_desc st = {.name = "A", .clip = clip("idle")};
    stance_machine_desc m2[2] = {{.name = "M", .state_count = 1, .states = &st}, {.name = "N", .state_count = 1, .states = &st}};
    stance_layer_desc bad_layers[2] = {{.name = "a", .machine = "M", .weight = 1, .priority = 5}, {.name = "b", .machine = "N", .priority = 1}};
    stance_graph_desc gd = {.skeleton = B.skeleton, .machine_count = 2, .machines = m2, .layer_count = 2, .layers = bad_layers};
    stance_graph *gb = NULL;
    CHECK_OK(stance_graph_create(&gd, NULL, &gb, NULL));
    stance_error err;
    CHECK_STATUS(stance_controller_reload(c, gb, report, sizeof report, &err), STANCE_ERR_ORDER);
    CHECK(stance_controller_graph(c) == g3);
    step(c, 5);
    stance_controller_destroy(c);
    stance_graph_destroy(g2), stance_graph_destroy(g3), stance_graph_destroy(gb);
}

/* Issue 22: a reload onto a graph with more machines than the caller's
 * workspace serves is refused up front (STANCE_ERR_MEMORY, the bytes a
 * workspace for it needs in the message and the report), nothing changes
 * and updates go on; with a workspace made from the new graph it goes
 * through and updates work. (Before, the reload said nothing and every
 * later update returned STANCE_ERR_MEMORY.) */
static void test_reload_workspace_too_small(void) {
    stance_state_desc ground[2] = {{.name = "Run", .clip = clip("run")}, {.name = "Idle", .clip = clip("idle")}};
    stance_machine_desc m = {.name = "Ground", .state_count = 2, .states = ground};
    stance_layer_desc l = {.name = "ground", .machine = "Ground", .weight = 1};
    stance_graph_desc gd = {.skeleton = B.skeleton, .machine_count = 1, .machines = &m, .layer_count = 1, .layers = &l};
    stance_graph *small = NULL, *big = blog_graph(0, 0);
    CHECK_OK(stance_graph_create(&gd, NULL, &small, NULL));
    stance_workspace *ws_small = NULL, *ws_big = NULL;
    CHECK_OK(stance_workspace_create(small, NULL, &ws_small, NULL));
    CHECK(stance_workspace_fits(ws_small, big, NULL) == STANCE_ERR_MEMORY); /* the premise: 1 machine, the blog graph 4 */
    stance_controller *c = NULL;
    CHECK_OK(stance_controller_create(small, NULL, NULL, &c, NULL));
    for (int f = 0; f < 5; f++) CHECK_OK(stance_controller_update(c, DT, ws_small, NULL));
    stance_instance *before = stance_controller_instance(c);
    char report[512] = "untouched", need[64];
    stance_error err;
    /* the plain reload checks against the workspace of the last update */
    CHECK_STATUS(stance_controller_reload(c, big, report, sizeof report, &err), STANCE_ERR_MEMORY);
    snprintf(need, sizeof need, "%zu bytes", stance_workspace_bytes(big));
    CHECK(strstr(err.message, need) != NULL && strstr(err.message, "4 machines") != NULL);
    CHECK(strstr(report, "workspace too small") != NULL && strstr(report, need) != NULL);
    CHECK(strstr(report, "4 machines") != NULL);
    CHECK(stance_controller_graph(c) == small && stance_controller_instance(c) == before); /* nothing changed */
    for (int f = 0; f < 5; f++) CHECK_OK(stance_controller_update(c, DT, ws_small, NULL));
    /* the same with the workspace named, or NULL (the last update's) */
    strcpy(report, "untouched");
    CHECK_STATUS(stance_controller_reload_ws(c, big, ws_small, report, sizeof report, &err), STANCE_ERR_MEMORY);
    CHECK(strstr(err.message, need) != NULL && strstr(report, "workspace too small") != NULL);
    CHECK_STATUS(stance_controller_reload_ws(c, big, NULL, report, sizeof report, &err), STANCE_ERR_MEMORY);
    CHECK(stance_controller_graph(c) == small && stance_controller_instance(c) == before);
    /* a workspace from the new graph: the reload goes through and updates work */
    CHECK_OK(stance_workspace_create(big, NULL, &ws_big, NULL));
    CHECK_OK(stance_controller_reload_ws(c, big, ws_big, report, sizeof report, &err));
    CHECK(stance_controller_graph(c) == big);
    CHECK_OK(stance_controller_set(c, id(big, "Wave"), NULL));
    for (int f = 0; f < 30; f++) CHECK_OK(stance_controller_update(c, DT, ws_big, NULL));
    CHECK(stance_controller_layer_state(c, 2) == id(big, "Wave"));
    /* the updates of the old workspace are refused, as stance_workspace_fits says */
    CHECK_STATUS(stance_controller_update(c, DT, ws_small, NULL), STANCE_ERR_MEMORY);
    /* and back onto the small graph: the big workspace serves it, a plain reload goes through */
    CHECK_OK(stance_controller_reload(c, small, report, sizeof report, &err));
    for (int f = 0; f < 5; f++) CHECK_OK(stance_controller_update(c, DT, ws_big, NULL));
    stance_controller_destroy(c);
    stance_workspace_destroy(ws_small), stance_workspace_destroy(ws_big);
    stance_graph_destroy(small), stance_graph_destroy(big);
}

/* An allocator that records frees and keeps the blocks until the test ends,
 * so a stale pointer can be read without touching freed memory. */
#define KEEP_MAX 32
typedef struct keeper {
    void *ptr[KEEP_MAX];
    size_t size[KEEP_MAX];
    int frees[KEEP_MAX];
    int count;
} keeper;
static void *keep_alloc(void *user, size_t size, size_t align) {
    keeper *k = user;
    if (k->count >= KEEP_MAX) return NULL;
    if (align < sizeof(void *)) align = sizeof(void *);
    void *p = st_aligned_alloc(align, (size + align - 1) / align * align);
    if (p) k->ptr[k->count] = p, k->size[k->count] = size, k->frees[k->count++] = 0;
    return p;
}
static void keep_free(void *user, void *ptr, size_t size) {
    keeper *k = user;
    for (int i = 0; i < k->count; i++)
        if (k->ptr[i] == ptr) { CHECK(k->size[i] == size); k->frees[i]++; return; }
    CHECK(0); /* not ours */
}
static int keep_index(const keeper *k, const void *p) {
    for (int i = 0; i < k->count; i++)
        if (k->ptr[i] == p) return i;
    return -1;
}

/* Issue 22: the instance pointer is not stable across a reload
 * (controller.h); one kept past it is refused by every public instance
 * call, destroying it again frees nothing twice, and a debug build has
 * filled the freed block with 0xDB. (Before, the stale instance went on
 * working on freed memory.) */
static void test_reload_stale_instance(void) {
    stance_graph *g1 = blog_graph(0, 0), *g2 = blog_graph(1, 0);
    keeper k = {{0}, {0}, {0}, 0};
    stance_allocator al = {keep_alloc, keep_free, &k};
    stance_controller *c = NULL;
    CHECK_OK(stance_controller_create(g1, NULL, &al, &c, NULL));
    stance_instance *old = stance_controller_instance(c);
    step(c, 5);
    CHECK_OK(stance_controller_reload_ws(c, g2, test_ws(g2), NULL, 0, NULL));
    stance_instance *now = stance_controller_instance(c);
    CHECK(now != NULL && now != old);
    const int oi = keep_index(&k, old);
    CHECK(oi >= 0 && k.frees[oi] == 1); /* the reload destroyed it */
    stance_error err;
    CHECK_STATUS(stance_instance_update(old, DT, test_ws(g1), NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_instance_set_float(old, 0, 1.0f, &err), STANCE_ERR_ARGUMENT);
    CHECK(strstr(err.message, "destroyed") != NULL && strstr(err.message, "stance_controller_reload") != NULL);
    CHECK_STATUS(stance_instance_play(old, 0, STANCE_SWITCH_CUT, STANCE_EASE_LINEAR, 0.0f, &err), STANCE_ERR_ARGUMENT);
    const stance_transform id_root = stance_transform_identity();
    CHECK_STATUS(stance_instance_set_root(old, &id_root, 0, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_instance_set_layer_weight(old, 1, 0.5f, 0.0f, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_instance_transfer(now, old, NULL, 0, NULL), STANCE_ERR_ARGUMENT);
    CHECK(stance_instance_model_pose(old) == NULL && stance_instance_graph(old) == NULL);
    CHECK(stance_instance_bytes(old) == 0 && stance_instance_layer_weight(old, 0) == 0.0f);
    stance_instance_destroy(old); /* a second destroy frees nothing */
    CHECK(k.frees[oi] == 1);
#ifndef NDEBUG
    { /* poisoned: every byte 0xDB but the 4 of the dead mark */
        const unsigned char *b = (const unsigned char *)old;
        size_t other = 0;
        for (size_t i = 0; i < k.size[oi]; i++) other += b[i] != 0xDB;
        CHECK(other <= 4);
    }
#endif
    CHECK_OK(stance_controller_set(c, id(g2, "Leap"), NULL));
    step(c, 5);
    CHECK(stance_controller_layer_state(c, 1) == id(g2, "Leap"));
    stance_controller_destroy(c);
    for (int i = 0; i < k.count; i++) {
        CHECK(k.frees[i] == 1); /* every block freed once */
        st_aligned_free(k.ptr[i]);
    }
    stance_graph_destroy(g1), stance_graph_destroy(g2);
}

int main(void) {
    stance_error err;
    if (stance_builtin_create(NULL, &B, &err)) { fprintf(stderr, "%s\n", err.message); return 1; }
    RUN(test_blog_example);
    RUN(test_lower_layer_and_interrupt);
    RUN(test_sequence_reset_fades);
    RUN(test_random_calls);
    RUN(test_hot_reload);
    RUN(test_reload_workspace_too_small);
    RUN(test_reload_stale_instance);
    stance_builtin_destroy(&B);
    return check_summary();
}
