/* tests/test_graphfile_v1.c - compiled files written before GRPH format 2
 * still load. tests/data/graph_v1.stance was written by stance 0.1 at git
 * 1bc150c (`stance compile tests/data/graph_v1.json -o
 * tests/data/graph_v1.stance`): its GRPH section is format 1, the graph's
 * description (parameters, a blend space, transitions, a nested machine,
 * an additive first-frame and a masked override layer, footlock, two_bone
 * and aim entries), on tests/data/builtin_v4.stance's skeleton and clips.
 *
 * The runtime alone (stance_asset_load_*) refuses it with one line saying
 * what to do; the builder's loader (stance_build_load_asset_*) and
 * libstance_io's (graph files, stance_open_file) rebuild its graph from the
 * description. The reference is today's graph compiled from the JSON file:
 * over a script of 400 frames (the blend space moved, the trigger fired,
 * the nested machine entered and left, an IK target set) the rebuilt graph
 * must give bit-identical model poses and the same events. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ws.h"
#include "stance/build.h"
#include "stance/import.h"
#include "stance/io.h"

static const char *source_dir(void) {
    const char *s = getenv("STANCE_SOURCE");
    return s ? s : ".";
}
static void data_path(char *out, size_t cap, const char *name) { snprintf(out, cap, "%s/tests/data/%s", source_dir(), name); }

static void test_runtime_refuses(void) {
    char path[1024];
    data_path(path, sizeof path, "graph_v1.stance");
    stance_asset a;
    stance_error err;
    CHECK_STATUS(stance_asset_load_file(path, NULL, &a, &err), STANCE_ERR_UNSUPPORTED);
    CHECK(strstr(err.message, "graph: format 1") && strstr(err.message, "recompile it (stance compile / stance import)") &&
          strstr(err.message, "stance_build_load_asset_file") && !strchr(err.message, '\n'));
    CHECK(a.skeleton == NULL && a.graph == NULL); /* nothing kept, nothing leaked */
    printf("  the runtime alone: %s\n", err.message);
}

/* The same script on both, compared frame by frame. */
static void compare(const stance_graph *old_form, const stance_graph *today) {
    stance_instance *ia = NULL, *ib = NULL;
    stance_error err;
    CHECK_OK(stance_instance_create(old_form, NULL, &ia, &err));
    CHECK_OK(stance_instance_create(today, NULL, &ib, &err));
    if (!ia || !ib) return;
    int differ_at = -1, events = 0;
    const float look[3] = {0.2f, 1.5f, 1.0f};
    for (int f = 0; f < 400 && differ_at < 0; f++) {
        for (int k = 0; k < 2; k++) {
            stance_instance *in = k ? ib : ia;
            const stance_graph *g = k ? today : old_form;
            if (f == 0) CHECK_OK(stance_instance_set_ik_target(in, stance_graph_find_ik(g, "look"), look, 0.7f, &err));
            if (f == 10) CHECK_OK(stance_instance_set_float_by_name(in, "mix", 0.6f, &err));
            if (f == 60) CHECK_OK(stance_instance_set_trigger_by_name(in, "go", &err));
            if (f == 70) CHECK_OK(stance_instance_set_bool(in, stance_graph_find_param(g, "hold"), 1, &err));
            if (f == 250) CHECK_OK(stance_instance_set_bool(in, stance_graph_find_param(g, "hold"), 0, &err));
            CHECK_OK(stance_instance_update(in, 1.0f / 60, TEST_WS_INST(in), NULL));
        }
        const stance_pose *pa = stance_instance_model_pose(ia), *pb = stance_instance_model_pose(ib);
        int na = 0, nb = 0, da = 0, db = 0;
        const stance_event *ea = stance_instance_events(ia, &na, &da), *eb = stance_instance_events(ib, &nb, &db);
        int same = !memcmp(pa->memory, pb->memory, stance_pose_bytes(pa->joint_count)) && na == nb && da == db;
        for (int i = 0; same && i < na; i++)
            same = ea[i].type == eb[i].type && ea[i].state == eb[i].state && ea[i].machine == eb[i].machine;
        events += na;
        if (!same) differ_at = f;
    }
    if (differ_at >= 0) fprintf(stderr, "the rebuilt format-1 graph differs at frame %d\n", differ_at);
    CHECK(differ_at < 0);
    CHECK(events >= 6); /* the script went through the transitions, the nested machine's too */
    stance_instance_destroy(ia), stance_instance_destroy(ib);
}

static void test_builder_rebuilds(void) {
    char path[1024], json[1024];
    data_path(path, sizeof path, "graph_v1.stance");
    data_path(json, sizeof json, "graph_v1.json");
    stance_error err;
    stance_graphfile *today = NULL;
    CHECK_OK(stance_graphfile_load(json, NULL, &today, &err));
    if (!today) return;
    /* the builder's loader */
    stance_asset a;
    CHECK_OK(stance_build_load_asset_file(path, NULL, &a, &err));
    CHECK(a.graph && stance_graph_machine_count(a.graph) == 4 && stance_graph_layer_count(a.graph) == 3 &&
          stance_graph_ik_count(a.graph) == 3);
    if (a.graph) compare(a.graph, stance_graphfile_graph(today));
    stance_asset_destroy(&a);
    /* from memory too, and a format-2 file through the same loader */
    FILE *fp = fopen(path, "rb");
    unsigned char buf[1 << 16];
    const size_t n = fp ? fread(buf, 1, sizeof buf, fp) : 0;
    if (fp) fclose(fp);
    CHECK(n > 1000 && n < sizeof buf);
    CHECK_OK(stance_build_load_asset_memory(buf, n, NULL, &a, &err));
    CHECK(a.graph != NULL);
    stance_asset_destroy(&a);
    void *bytes = NULL;
    size_t size = 0;
    CHECK_OK(stance_asset_save_graph_memory(stance_graphfile_asset(today), stance_graphfile_desc(today), &bytes, &size, NULL, &err));
    CHECK_OK(stance_build_load_asset_memory(bytes, size, NULL, &a, &err));
    CHECK(a.graph != NULL);
    if (a.graph) compare(a.graph, stance_graphfile_graph(today));
    stance_asset_destroy(&a);
    stance_asset_free_bytes(bytes, size, NULL);
    /* libstance_io: a graph file naming the compiled file, and stance_open_file */
    stance_graphfile *gf = NULL;
    CHECK_OK(stance_graphfile_load(path, NULL, &gf, &err));
    if (gf) compare(stance_graphfile_graph(gf), stance_graphfile_graph(today));
    stance_graphfile_destroy(gf);
    CHECK_OK(stance_open_file(path, NULL, NULL, &a, &err));
    CHECK(a.graph != NULL);
    stance_asset_destroy(&a);
    stance_graphfile_destroy(today);
}

int main(void) {
    RUN(test_runtime_refuses);
    RUN(test_builder_rebuilds);
    return check_summary();
}
