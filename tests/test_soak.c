/* tests/test_soak.c - the soak test (issue 12): 1,000,000 seeded random
 * public-API calls through tests/api_driver.c (the API fuzzer's calls, from
 * a fixed-seed generator instead of fuzzer bytes) on the built-in lesson
 * graph and every shipped graph that loads. Each call must answer the status
 * its header promises, and every successful update keeps the pose finite,
 * unit quaternions, weights in [0, 1] and exclusive layers summing to 1.
 * Deterministic: it prints a checksum of every status and pose, and replays
 * the first 100,000 calls in a fresh world to check it gets the same one.
 * SOAK_CALLS and SOAK_SEED override the count and the seed. */
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>

#include "api_driver.h"
#include "check.h"

static drv_graphs G;

static long env_long(const char *name, long def) {
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 10) : def;
}

/* Runs `calls` calls from `seed`; returns the checksum (0 and a message on a failure). */
static uint64_t soak(uint64_t seed, long calls, long checkpoint, uint64_t *at_checkpoint, drv_world *out_stats) {
    drv_src s = {.rng = seed};
    drv_world w;
    drv_world_init(&w, &G);
    uint64_t result = 0;
    int failed = 0;
    for (long i = 0; i < calls; i++) {
        if (drv_step(&w, &s)) {
            check_failures_++;
            fprintf(stderr, "soak (seed %" PRIu64 "): %s\n", seed, w.failure);
            failed = 1;
            break;
        }
        if (i + 1 == checkpoint && at_checkpoint) *at_checkpoint = w.checksum;
    }
    if (!failed) result = w.checksum;
    if (out_stats) *out_stats = w;
    drv_world_free(&w);
    return result;
}

static void test_soak(void) {
    const long calls = env_long("SOAK_CALLS", 1000000), replay = calls < 100000 ? calls : 100000;
    const uint64_t seed = (uint64_t)env_long("SOAK_SEED", 12);
    struct timespec t0, t1;
    timespec_get(&t0, TIME_UTC);
    uint64_t at_replay = 0;
    drv_world stats;
    uint64_t sum = soak(seed, calls, replay, &at_replay, &stats);
    timespec_get(&t1, TIME_UTC);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("soak: seed %" PRIu64 ", %ld calls (%ld updates, %ld refused as their contract says) in %.1f s\n", seed,
           stats.calls, stats.updates, stats.refused, secs);
    printf("soak: checksum %016" PRIx64 "\n", sum);
    CHECK(stats.calls == calls);
    CHECK(stats.updates > calls / 5);      /* the mix reaches updates ... */
    CHECK(stats.refused > calls / 100);    /* ... and refusals */
    /* the same seed from a fresh world: the same statuses and poses */
    uint64_t again = 0;
    soak(seed, replay, replay, &again, NULL);
    CHECK(again == at_replay);
    printf("soak: replay of the first %ld calls: %016" PRIx64 " %s\n", replay, again, again == at_replay ? "(same)" : "(DIFFERENT)");
}

int main(void) {
    stance_error err;
    const char *src = getenv("STANCE_SOURCE");
    if (drv_graphs_load(&G, src ? src : ".", NULL, &err)) {
        fprintf(stderr, "soak: %s\n", err.message);
        return 1;
    }
    printf("soak: %d graphs:", G.count);
    for (int i = 0; i < G.count; i++) printf(" %s;", G.name[i]);
    printf("\n");
    RUN(test_soak);
    drv_graphs_free(&G);
    return check_summary();
}
