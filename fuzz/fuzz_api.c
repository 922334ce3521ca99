/* fuzz/fuzz_api.c - libFuzzer target over the public runtime API: the input
 * bytes drive tests/api_driver.c's random calls (create/destroy instances
 * and controllers on the shipped graphs and the built-in lesson graph,
 * parameters, triggers, update with any dt, play, layer weights and fades,
 * reset, copy, transfer, controller set/reset/reload). Every call must
 * answer the status its header promises, and after every successful update
 * every pose value is finite, quaternions are unit within 1e-4, layer
 * weights are in [0, 1] and the controller's exclusive layers sum to 1;
 * anything else aborts with the reason. The graphs are loaded once. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "api_driver.h"

static drv_graphs graphs;
static int loaded;
static long long total_calls, total_updates, total_refused, inputs;

static void totals(void) {
    fprintf(stderr, "fuzz_api: %lld inputs, %lld API calls (%lld successful updates checked, %lld refused as their contract says)\n",
            inputs, total_calls, total_updates, total_refused);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!loaded) {
        stance_error err;
        const char *src = getenv("STANCE_SOURCE");
        if (drv_graphs_load(&graphs, src ? src : ".", NULL, &err)) {
            fprintf(stderr, "fuzz_api: %s\n", err.message);
            abort();
        }
        fprintf(stderr, "fuzz_api: %d graphs:", graphs.count);
        for (int i = 0; i < graphs.count; i++) fprintf(stderr, " %s;", graphs.name[i]);
        fprintf(stderr, "\n");
        loaded = 1;
        atexit(totals);
    }
    drv_src s = {.data = data, .size = size};
    drv_world w;
    drv_world_init(&w, &graphs);
    for (int i = 0; i < 4096 && !s.exhausted; i++)
        if (drv_step(&w, &s)) {
            fprintf(stderr, "fuzz_api: %s\n", w.failure);
            abort();
        }
    inputs++, total_calls += w.calls, total_updates += w.updates, total_refused += w.refused;
    drv_world_free(&w);
    return 0;
}
