/* tests/test_lab_native.c - the lab's C (lab/ *.c files) built natively and run
 * under the sanitizers with `make test-asan`: the lesson machine, the graph
 * description read through graph_query, a .stance file made here from the
 * built-in character (its clips' names give the lesson's roles), the role
 * mapping, the crowd, and bad input. References: the lesson graph's
 * documented transitions (stance/builtin.h), the clip order of
 * stance_builtin, the skin's definition. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "stance/stance.h"
#include "stance_lesson/stance_lesson.h"

/* from the lab C files (no header of their own for JavaScript's sake) */
int lab_init(void);
const char *lab_error(void);
int lab_sm_step(float dt);
void lab_sm_set_speed(float speed);
const char *lab_graph_json(int view);
const float *lab_live(int view);
const float *lab_skin_matrices(int view, int skin);
int lab_skin_count(int view);
int lab_triangle_count(int view);
const char *lab_base_state(int view);
unsigned char *lab_asset_buffer(int size);
int lab_asset_load(void);
int lab_asset_step(int view, float dt);
int lab_asset_graph_kind(void);
int lab_asset_role_clip(int role);
int lab_asset_map(int role, int clip);
int lab_param_set(int view, int param, float value);
int lab_crowd_open(int n);
int lab_crowd_step(float dt);
int lab_crowd_count(void);
const float *lab_crowd_places(void);
double lab_crowd_avg_ms(void);
void lab_crowd_close(void);

static void test_lesson_view(void) {
    CHECK(lab_init() == 0);
    const char *j = lab_graph_json(0);
    CHECK(j != NULL);
    if (!j) return;
    /* the lesson's transitions as stance/builtin.h documents them */
    CHECK(strstr(j, "\"conds\":\"speed >= 0.1\"") != NULL);
    CHECK(strstr(j, "\"conds\":\"speed < 0.1, at end\"") != NULL);
    CHECK(strstr(j, "\"conds\":\"jump\"") != NULL);
    CHECK(strstr(j, "{\"name\":\"Move\",\"machine\":0,\"motion\":\"blend1d\"}") != NULL);
    lab_sm_set_speed(2.0f);
    for (int i = 0; i < 90; i++) CHECK(lab_sm_step(1.0f / 60.0f) >= 0);
    CHECK(!strcmp(lab_base_state(0), "Move"));
    const float *live = lab_live(0);
    /* 4 machines x 3, then speed (damped towards 2 with a 0.1 s halflife: 1.5 s is 15 halflives) */
    CHECK(live && fabsf(live[12] - 2.0f) < 1e-3f);
    CHECK(lab_skin_count(0) == 1 && lab_skin_matrices(0, 0) != NULL && lab_skin_matrices(0, 1) == NULL);
    CHECK(lab_sm_step(1.0f) < 0); /* dt out of range */
}

static void test_asset_roles(void) {
    stance_builtin b;
    stance_error err = {0};
    CHECK_OK(stance_builtin_create(NULL, &b, &err));
    /* a .stance of the built-in character, its skin and mesh, without a graph */
    stance_asset a = {0};
    a.skeleton = b.skeleton, a.clip_count = b.clip_count, a.clips = b.clips;
    a.skin_count = 1, a.skins = &b.skin, a.mesh_count = 1, a.meshes = &b.mesh;
    void *bytes = NULL;
    size_t size = 0;
    CHECK_OK(stance_asset_save_memory(&a, &bytes, &size, NULL, &err));
    unsigned char *buf = lab_asset_buffer((int)size);
    CHECK(buf != NULL);
    if (buf) memcpy(buf, bytes, size);
    CHECK(lab_asset_load() == b.clip_count);
    CHECK(lab_asset_graph_kind() == 2); /* the lesson's graph from the clips' names */
    for (int r = 0; r < 5; r++) CHECK(lab_asset_role_clip(r) == r); /* idle walk run jump wave: stance_builtin's order */
    CHECK(lab_triangle_count(2) == b.mesh->index_count / 3);
    CHECK(lab_param_set(2, 0, 3.0f) == 0);
    for (int i = 0; i < 60; i++) CHECK(lab_asset_step(2, 1.0f / 60.0f) >= 0);
    CHECK(!strcmp(lab_base_state(2), "Move"));
    CHECK(lab_param_set(2, 7, 1.0f) < 0);
    /* without walk and run there is no lesson graph, and the message says why */
    CHECK(lab_asset_map(1, -1) == 0);
    CHECK(lab_asset_map(2, -1) < 0 && strstr(lab_error(), "walk or run") != NULL);
    CHECK(lab_asset_graph_kind() == 0 && lab_asset_step(2, 0.01f) < 0 && lab_asset_step(3, 0.01f) >= 0);
    CHECK(lab_asset_map(0, 999) < 0 && lab_asset_map(9, 0) < 0);
    /* a corrupted file is refused with the loader's message */
    buf = lab_asset_buffer((int)size);
    if (buf) { memcpy(buf, bytes, size); buf[size - 1] ^= 0xff; }
    CHECK(lab_asset_load() < 0 && strstr(lab_error(), "checksum") != NULL);
    CHECK(lab_asset_buffer(0) == NULL && lab_asset_buffer(-5) == NULL);
    stance_asset_free_bytes(bytes, size, NULL);
    stance_builtin_destroy(&b);
}

static void test_crowd(void) {
    CHECK(lab_crowd_open(0) < 0 && lab_crowd_open(401) < 0);
    CHECK(lab_crowd_open(100) == 0 && lab_crowd_count() == 100);
    float z0[100];
    for (int i = 0; i < 100; i++) z0[i] = lab_crowd_places()[4 * i + 2];
    for (int i = 0; i < 240; i++) CHECK(lab_crowd_step(1.0f / 60.0f) == 0);
    int moved = 0;
    for (int i = 0; i < 100; i++) moved += fabsf(lab_crowd_places()[4 * i + 2] - z0[i]) > 0.05f;
    CHECK(moved > 50); /* speeds cycle from 0 to 0.5..4.5 m/s: most walk off within 4 s */
    CHECK(lab_crowd_avg_ms() >= 0.0);
    CHECK(lab_crowd_step(-1.0f) < 0);
    lab_crowd_close();
    CHECK(lab_crowd_count() == 0 && lab_crowd_step(0.01f) < 0);
}

int main(void) {
    RUN(test_lesson_view);
    RUN(test_asset_roles);
    RUN(test_crowd);
    return check_summary();
}
