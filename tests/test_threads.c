/* tests/test_threads.c - instances and controllers of shared graphs on
 * different threads (issue 12; run under ThreadSanitizer by make test-tsan,
 * and in the ordinary builds too). Four threads each drive their own
 * instance of the built-in lesson graph and their own controller of
 * graphs/bullet_waste.json (both graphs shared, read-only) for 3,000 frames
 * with a seeded script of parameters, triggers, switches and set/reset.
 * Every frame's poses must equal, bit for bit, a serial run of the same
 * scripts. All updates go through tests/api_driver.c's wrappers. Then four
 * stance_scenario runners (the lesson library) on the shared lesson graph,
 * one per thread, against a serial run. */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "api_driver.h"
#include "check.h"

#define THREADS 4
#define FRAMES 3000

static drv_graphs G;
static const stance_graph *LESSON, *CTL_GRAPH;

typedef struct run {
    int index;
    uint64_t frame_hash[FRAMES]; /* the instance's and the controller's model poses after each frame */
    float final_pose[2][10 * 64];
    int failures;
    char why[256];
} run;

static run SERIAL[THREADS], PARALLEL[THREADS];

static uint32_t next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}

static void keep_pose(float *dst, const stance_pose *p) {
    const float *ch[10] = {p->tx, p->ty, p->tz, p->qx, p->qy, p->qz, p->qw, p->sx, p->sy, p->sz};
    int n = p->joint_count < 64 ? p->joint_count : 64;
    for (int c = 0; c < 10; c++) memcpy(dst + c * 64, ch[c], sizeof(float) * (size_t)n);
}

/* One character's script, the same whichever thread runs it. */
static void *character(void *arg) {
    run *r = arg;
    uint64_t rng = 0x5EED0000u + (uint64_t)r->index;
    stance_instance *inst = NULL;
    stance_controller *ctl = NULL;
    if (stance_instance_create(LESSON, NULL, &inst, NULL) || stance_controller_create(CTL_GRAPH, NULL, NULL, &ctl, NULL)) {
        r->failures++;
        snprintf(r->why, sizeof r->why, "create failed");
        stance_instance_destroy(inst);
        return NULL;
    }
    const int speed = stance_graph_find_param(LESSON, "speed"), jump = stance_graph_find_param(LESSON, "jump");
    const int states = stance_graph_state_count(LESSON), cstates = stance_graph_state_count(CTL_GRAPH);
    const int cjump = stance_graph_find_state(CTL_GRAPH, "Jump");
    for (int f = 0; f < FRAMES; f++) {
        uint32_t k = next(&rng) % 100;
        if (k < 10) stance_instance_set_float(inst, speed, (float)(next(&rng) % 700) / 100.0f, NULL);
        else if (k < 14) stance_instance_set_trigger(inst, jump, NULL);
        else if (k < 16)
            drv_instance_play(inst, (int)(next(&rng) % (uint32_t)states), (stance_switch_mode)(next(&rng) % STANCE_SWITCH_MODE_COUNT),
                              STANCE_EASE_SMOOTHSTEP, 0.2f, NULL);
        else if (k < 18) stance_instance_set_layer_weight(inst, 1 + (int)(next(&rng) % 3), (float)(next(&rng) % 5) / 4.0f, 0.3f, NULL);
        uint32_t c = next(&rng) % 100;
        if (c < 6) stance_controller_set(ctl, (int)(next(&rng) % (uint32_t)cstates), NULL);
        else if (c < 8) stance_controller_reset(ctl, cjump, NULL);
        float dt = next(&rng) % 10 == 0 ? 1.0f / 30 : 1.0f / 60;
        if (drv_instance_update(inst, dt, 0, NULL) || drv_controller_update(ctl, dt, NULL)) {
            r->failures++;
            snprintf(r->why, sizeof r->why, "frame %d: update refused", f);
            break;
        }
        if (!r->failures && (drv_check_instance(inst, r->why, sizeof r->why) || drv_check_controller(ctl, r->why, sizeof r->why)))
            r->failures++;
        uint64_t h = drv_hash_pose(0xCBF29CE484222325ull, stance_instance_model_pose(inst));
        r->frame_hash[f] = drv_hash_pose(h, stance_instance_model_pose(stance_controller_instance(ctl)));
    }
    keep_pose(r->final_pose[0], stance_instance_model_pose(inst));
    keep_pose(r->final_pose[1], stance_instance_model_pose(stance_controller_instance(ctl)));
    stance_controller_destroy(ctl);
    stance_instance_destroy(inst);
    drv_release_workspaces();
    return NULL;
}

static void test_threads_equal_serial(void) {
    for (int t = 0; t < THREADS; t++) {
        SERIAL[t].index = PARALLEL[t].index = t;
        character(&SERIAL[t]);
    }
    pthread_t th[THREADS];
    int started = 0;
    for (int t = 0; t < THREADS; t++) {
        if (pthread_create(&th[t], NULL, character, &PARALLEL[t])) break;
        started++;
    }
    CHECK(started == THREADS);
    for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < started; t++) {
        CHECK(SERIAL[t].failures == 0 && PARALLEL[t].failures == 0);
        if (SERIAL[t].failures || PARALLEL[t].failures) fprintf(stderr, "  thread %d: %s %s\n", t, SERIAL[t].why, PARALLEL[t].why);
        int first = -1;
        for (int f = 0; f < FRAMES && first < 0; f++)
            if (SERIAL[t].frame_hash[f] != PARALLEL[t].frame_hash[f]) first = f;
        CHECK(first < 0);
        if (first >= 0) fprintf(stderr, "  thread %d: frame %d differs from the serial run\n", t, first);
        CHECK(memcmp(SERIAL[t].final_pose, PARALLEL[t].final_pose, sizeof SERIAL[t].final_pose) == 0);
    }
    /* the scripts differ between characters, so equal runs are not trivially equal */
    CHECK(SERIAL[0].frame_hash[FRAMES - 1] != SERIAL[1].frame_hash[FRAMES - 1]);
    printf("threads: %d characters x %d frames (an instance and a controller each), last frame %016" PRIx64 "\n", THREADS,
           FRAMES, SERIAL[0].frame_hash[FRAMES - 1]);
}

/* The lesson library's scenario runner on the shared lesson graph: one
 * runner per thread, each with its own switch mode, stepped through the
 * script; the measures and every frame equal a serial run's. */
typedef struct script_run {
    stance_switch_mode mode;
    stance_status status;
    stance_scenario_result result;
    stance_scenario_frame frames[STANCE_SCENARIO_FRAMES];
} script_run;
static script_run SCRIPT_SERIAL[THREADS], SCRIPT_PARALLEL[THREADS];

static void *script(void *arg) {
    script_run *r = arg;
    stance_scenario *sc = NULL;
    const stance_scenario_desc d = {.mode = r->mode};
    r->status = stance_scenario_create(LESSON, &d, NULL, &sc, NULL);
    for (int f = 0; f < STANCE_SCENARIO_FRAMES && !r->status; f++) r->status = stance_scenario_step(sc, &r->frames[f], NULL);
    if (!r->status) r->status = stance_scenario_measures(sc, &r->result, NULL);
    stance_scenario_destroy(sc);
    return NULL;
}

static void test_scenario_runners_on_threads(void) {
    for (int t = 0; t < THREADS; t++) {
        SCRIPT_SERIAL[t].mode = SCRIPT_PARALLEL[t].mode = stance_scenario_modes[t + 1]; /* frozen .. deadblend */
        script(&SCRIPT_SERIAL[t]);
    }
    pthread_t th[THREADS];
    int started = 0;
    for (int t = 0; t < THREADS; t++) {
        if (pthread_create(&th[t], NULL, script, &SCRIPT_PARALLEL[t])) break;
        started++;
    }
    CHECK(started == THREADS);
    for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < started; t++) {
        CHECK(SCRIPT_SERIAL[t].status == STANCE_OK && SCRIPT_PARALLEL[t].status == STANCE_OK);
        CHECK(SCRIPT_SERIAL[t].result.transitions > 0);
        CHECK(memcmp(&SCRIPT_SERIAL[t].result, &SCRIPT_PARALLEL[t].result, sizeof SCRIPT_SERIAL[t].result) == 0);
        CHECK(memcmp(SCRIPT_SERIAL[t].frames, SCRIPT_PARALLEL[t].frames, sizeof SCRIPT_SERIAL[t].frames) == 0);
    }
    CHECK(SCRIPT_SERIAL[0].result.worst_jump_cm != SCRIPT_SERIAL[1].result.worst_jump_cm); /* the modes differ */
}

int main(void) {
    stance_error err;
    const char *src = getenv("STANCE_SOURCE");
    if (drv_graphs_load(&G, src ? src : ".", "bullet_waste", &err)) {
        fprintf(stderr, "threads: %s\n", err.message);
        return 1;
    }
    LESSON = G.graph[0];
    CTL_GRAPH = G.count > 1 ? G.graph[1] : G.graph[0]; /* without JSON support: the lesson graph */
    printf("threads: controllers run %s\n", G.name[G.count > 1 ? 1 : 0]);
    RUN(test_threads_equal_serial);
    RUN(test_scenario_runners_on_threads);
    drv_graphs_free(&G);
    return check_summary();
}
