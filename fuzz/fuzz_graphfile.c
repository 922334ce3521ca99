/* fuzz/fuzz_graphfile.c - libFuzzer target for graph files: any text must
 * load or fail with a positioned error, never crash, hang or leak; a graph
 * that loads must also run, and must compile (a GRPH section) into a
 * .stance image that loads back into a graph giving bit-identical poses.
 * The built-in character is loaded once and lent to every input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stance/graphfile.h"
#include "stance/stance.h"
#include "stance/build.h"

static stance_graphfile *base; /* holds the built-in asset lent to every input */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    stance_error err;
    if (!base) {
        const char *seed = "{\"version\":1,\"asset\":\"builtin\",\"machines\":[{\"name\":\"M\",\"states\":[{\"name\":\"S\",\"clip\":\"idle\"}]}],"
                           "\"layers\":[{\"name\":\"base\",\"machine\":\"M\"}]}";
        if (stance_graphfile_load_string(seed, "seed", NULL, NULL, &base, &err)) abort();
    }
    if (size > 1 << 16) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    stance_graphfile_options opt = {.asset = stance_graphfile_asset(base)};
    stance_graphfile *gf = NULL;
    stance_status s = stance_graphfile_load_string(text, "fuzz.json", NULL, &opt, &gf, &err);
    if (s == STANCE_OK) {
        void *bytes = NULL;
        size_t n = 0;
        stance_asset compiled;
        if (stance_asset_save_graph_memory(stance_graphfile_asset(gf), stance_graphfile_desc(gf), &bytes, &n, NULL, &err) ||
            stance_asset_load_memory(bytes, n, NULL, &compiled, &err) || !compiled.graph)
            abort(); /* a graph that loads compiles, and its compiled form loads */
        stance_instance *inst = NULL, *twin = NULL;
        stance_workspace *ws = NULL;
        if (stance_instance_create(stance_graphfile_graph(gf), NULL, &inst, &err) == STANCE_OK &&
            stance_workspace_create(stance_graphfile_graph(gf), NULL, &ws, &err) == STANCE_OK) {
            if (stance_instance_create(compiled.graph, NULL, &twin, &err)) abort();
            if (stance_workspace_fits(ws, compiled.graph, &err)) abort(); /* the same skeleton and machines */
            for (int f = 0; f < 30; f++) {
                stance_status a = stance_instance_update(inst, 1.0f / 30, ws, NULL), b = stance_instance_update(twin, 1.0f / 30, ws, NULL);
                const stance_pose *pa = stance_instance_model_pose(inst), *pb = stance_instance_model_pose(twin);
                if (a != b || memcmp(pa->tx, pb->tx, sizeof(float) * (size_t)pa->joint_count) ||
                    memcmp(pa->qw, pb->qw, sizeof(float) * (size_t)pa->joint_count))
                    abort(); /* the compiled graph plays exactly like the JSON one */
            }
            stance_instance_destroy(twin);
        }
        stance_workspace_destroy(ws);
        stance_instance_destroy(inst);
        stance_asset_destroy(&compiled);
        stance_asset_free_bytes(bytes, n, NULL);
        stance_graphfile_destroy(gf);
    } else if (strncmp(err.message, "fuzz.json", 9) != 0) {
        abort(); /* every error names the file */
    }
    free(text);
    return 0;
}
