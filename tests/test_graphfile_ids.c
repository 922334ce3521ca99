/* tests/test_graphfile_ids.c - the ids `stance gen-header` writes match the
 * graph: every state, layer, parameter and clip event enum has the index the
 * graph gives its name; clashing names are refused. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "io/gen_header.h"
#include "io/graphfile.h"

static void upper_ident(char *dst, const char *a, const char *b) {
    sprintf(dst, "%s%s%s", a, b ? "_" : "", b ? b : "");
    for (char *c = dst; *c; c++) *c = isalnum((unsigned char)*c) ? (char)toupper((unsigned char)*c) : '_';
}

static int lookup(const char *text, const char *ident) {
    char key[256];
    snprintf(key, sizeof key, "    %s = ", ident);
    const char *at = strstr(text, key);
    return at ? atoi(at + strlen(key)) : -1;
}

static void check_file(const char *path) {
    stance_graphfile *gf = NULL;
    stance_error err;
    CHECK_OK(stance_graphfile_load(path, NULL, &gf, &err));
    if (!gf) { fprintf(stderr, "%s\n", err.message); return; }
    const stance_graph *g = stance_graphfile_graph(gf);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK_OK(stance_write_id_header(f, g, "T", path, &err));
    fclose(f);
    char id[256], full[300];
    for (int s = 0; s < stance_graph_state_count(g); s++) {
        upper_ident(id, stance_graph_machine_name(g, stance_graph_state_machine(g, s)), stance_graph_state_name(g, s));
        snprintf(full, sizeof full, "T_STATE_%s", id);
        CHECK(lookup(text, full) == s);
    }
    for (int l = 0; l < stance_graph_layer_count(g); l++) {
        upper_ident(id, stance_graph_layer_name(g, l), NULL);
        snprintf(full, sizeof full, "T_LAYER_%s", id);
        CHECK(lookup(text, full) == l);
    }
    for (int p = 0; p < stance_graph_param_count(g); p++) {
        upper_ident(id, stance_graph_param_name(g, p), NULL);
        snprintf(full, sizeof full, "T_PARAM_%s", id);
        CHECK(lookup(text, full) == p);
    }
    CHECK(strstr(text, "T_STATE_COUNT") != NULL && strstr(text, "t_event_names") != NULL);
    free(text);
    stance_graphfile_destroy(gf);
}

static void test_shipped_graphs(void) {
    const char *src = getenv("STANCE_SOURCE");
    char path[1024];
    const char *files[] = {"graphs/builtin.json", "graphs/bullet_waste.json"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", src ? src : ".", files[i]);
        check_file(path);
    }
}

static void test_clash_and_prefix(void) {
    const char *text = "{\"version\":1,\"asset\":\"builtin\",\"params\":[{\"name\":\"a-b\",\"type\":\"float\"},{\"name\":\"a_b\",\"type\":\"float\"}],"
                       "\"machines\":[{\"name\":\"M\",\"states\":[{\"name\":\"S\",\"clip\":\"idle\"}]}],\"layers\":[{\"name\":\"base\",\"machine\":\"M\"}]}";
    stance_graphfile *gf = NULL;
    stance_error err;
    CHECK_OK(stance_graphfile_load_string(text, "clash.json", NULL, NULL, &gf, &err));
    if (!gf) { fprintf(stderr, "%s\n", err.message); return; }
    FILE *f = tmpfile();
    CHECK_STATUS(stance_write_id_header(f, stance_graphfile_graph(gf), "ANIM", "clash.json", &err), STANCE_ERR_ARGUMENT);
    CHECK(strstr(err.message, "ANIM_PARAM_A_B") != NULL);
    CHECK_STATUS(stance_write_id_header(f, stance_graphfile_graph(gf), "lower", "clash.json", &err), STANCE_ERR_ARGUMENT);
    fclose(f);
    stance_graphfile_destroy(gf);
}

int main(void) {
    RUN(test_shipped_graphs);
    RUN(test_clash_and_prefix);
    return check_summary();
}
