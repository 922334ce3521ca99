/* tests/test_graphfile_ids.c - the ids `stance gen-header` writes match the
 * graph: every state, layer, parameter and clip event enum has the index the
 * graph gives its name; clashing names are refused. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ws.h"
#include "stance/gen_header.h"
#include "stance/graphfile.h"
#include "stance/controller.h"

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

/* Hot reload from files: the running character moves onto the changed file,
 * keeping what still exists by name; a broken file changes nothing. */
static char *read_all(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
    if (buf) buf[n] = 0;
    fclose(f);
    return buf;
}

static void test_hot_reload_files(void) {
    const char *src = getenv("STANCE_SOURCE");
    char path[1024];
    snprintf(path, sizeof path, "%s/graphs/bullet_waste.json", src ? src : ".");
    char *text = read_all(path);
    CHECK(text != NULL);
    if (!text) return;
    stance_graphfile *v1 = NULL, *v2 = NULL, *bad = NULL;
    stance_error err;
    CHECK_OK(stance_graphfile_load_string(text, "v1.json", NULL, NULL, &v1, &err));
    stance_controller *ctl = NULL;
    CHECK_OK(stance_controller_create(stance_graphfile_graph(v1), NULL, NULL, &ctl, &err));
    const stance_graph *g1 = stance_graphfile_graph(v1);
    stance_controller_set(ctl, stance_graph_find_state(g1, "Idle"), NULL);
    stance_controller_set(ctl, stance_graph_find_state(g1, "Jump"), NULL);
    for (int f = 0; f < 30; f++) stance_controller_update(ctl, 1.0f / 60, TEST_WS_CTL(ctl), NULL);
    /* version 2 renames Idle to Rest and adds a layer */
    char *t2 = malloc(strlen(text) + 64);
    strcpy(t2, text);
    char *at = strstr(t2, "\"name\": \"Idle\"");
    CHECK(at != NULL);
    if (at) memcpy(at + 9, "Rest", 4);
    CHECK_OK(stance_graphfile_load_string(t2, "v2.json", NULL, NULL, &v2, &err));
    char report[512];
    CHECK_OK(stance_controller_reload(ctl, stance_graphfile_graph(v2), report, sizeof report, &err));
    CHECK(strstr(report, "dropped state 'Idle'") != NULL);
    const stance_graph *g2 = stance_graphfile_graph(v2);
    CHECK(stance_controller_layer_state(ctl, 1) == stance_graph_find_state(g2, "Jump"));
    stance_machine_status ms;
    stance_instance_machine_status(stance_controller_instance(ctl), 1, &ms, NULL);
    CHECK_NEAR(ms.state_time, 30.0 / 60, 1e-4); /* the jump went on where it was */
    stance_graphfile_destroy(v1);
    /* a broken file: the load fails, the running graph is untouched */
    t2[strlen(t2) / 2] = 0;
    CHECK(stance_graphfile_load_string(t2, "v3.json", NULL, NULL, &bad, &err) != STANCE_OK);
    CHECK(strncmp(err.message, "v3.json:", 8) == 0);
    CHECK(stance_controller_graph(ctl) == g2);
    for (int f = 0; f < 10; f++) CHECK_OK(stance_controller_update(ctl, 1.0f / 60, TEST_WS_CTL(ctl), NULL));
    stance_controller_destroy(ctl);
    stance_graphfile_destroy(v2);
    free(t2);
    free(text);
}

int main(void) {
    RUN(test_shipped_graphs);
    RUN(test_hot_reload_files);
    RUN(test_clash_and_prefix);
    return check_summary();
}
