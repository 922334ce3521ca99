/* tests/test_params.c - the parameters of stance/params.h (issue 23): the
 * by-name setters and getter equal the by-index ones bit for bit over an
 * update sequence; every refusal (wrong type, unknown name, NULL, NaN,
 * an int or a bool out of range, an index out of range) returns its status
 * with a message naming the call and what was wrong, and changes nothing
 * (the instance's whole block compared byte for byte). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "refusal.h"
#include "stance/build.h"
#include "stance/stance.h"
#include "stance_lesson/stance_lesson.h"
#include "ws.h"

static stance_builtin B;

/* A graph over the built-in clips with one parameter of each type: speed
 * (float, damped) moves a 1D blend between walk and run; gait (int) == 2
 * runs Wave; crouch (bool) runs Lean; jump (trigger) runs Jump. */
static stance_graph *four_types(void) {
    static const stance_param_desc params[] = {{"speed", STANCE_PARAM_FLOAT, 0.0f, 0.1f},
                                               {"gait", STANCE_PARAM_INT, 0.0f, 0.0f},
                                               {"crouch", STANCE_PARAM_BOOL, 0.0f, 0.0f},
                                               {"jump", STANCE_PARAM_TRIGGER, 0.0f, 0.0f}};
    const stance_blend_entry_desc move[] = {{stance_builtin_clip(&B, "walk"), 1.0f, 0.0f},
                                            {stance_builtin_clip(&B, "run"), 4.0f, 0.0f}};
    const stance_state_desc states[] = {
        {.name = "Idle", .clip = stance_builtin_clip(&B, "idle")},
        {.name = "Move", .type = STANCE_MOTION_BLEND1D, .entry_count = 2, .entries = move, .param_x = "speed"},
        {.name = "Wave", .clip = stance_builtin_clip(&B, "wave")},
        {.name = "Lean", .clip = stance_builtin_clip(&B, "lean"), .once = 1},
        {.name = "Jump", .clip = stance_builtin_clip(&B, "jump"), .once = 1}};
    const stance_condition_desc fast = {.param = "speed", .op = STANCE_CMP_GE, .value = 0.5f, .hysteresis = 0.1f};
    const stance_condition_desc slow = {.param = "speed", .op = STANCE_CMP_LT, .value = 0.5f, .hysteresis = 0.1f};
    const stance_condition_desc gait2 = {.param = "gait", .op = STANCE_CMP_EQ, .value = 2.0f};
    const stance_condition_desc not2 = {.param = "gait", .op = STANCE_CMP_NE, .value = 2.0f};
    const stance_condition_desc crouch = {.param = "crouch", .op = STANCE_CMP_TRUE};
    const stance_condition_desc jump = {.param = "jump", .op = STANCE_CMP_TRUE};
    const stance_transition_desc tr[] = {
        {.from = "*", .to = "Jump", .condition_count = 1, .conditions = &jump, .mode = STANCE_SWITCH_INERTIALIZE},
        {.from = "Idle", .to = "Move", .condition_count = 1, .conditions = &fast},
        {.from = "Move", .to = "Idle", .condition_count = 1, .conditions = &slow},
        {.from = "Idle", .to = "Wave", .condition_count = 1, .conditions = &gait2},
        {.from = "Wave", .to = "Idle", .condition_count = 1, .conditions = &not2},
        {.from = "Idle", .to = "Lean", .condition_count = 1, .conditions = &crouch},
        {.from = "Lean", .to = "Idle", .exit = STANCE_EXIT_AT_END},
        {.from = "Jump", .to = "Idle", .exit = STANCE_EXIT_AT_END}};
    const stance_machine_desc m = {.name = "Base", .state_count = 5, .states = states,
                                   .transition_count = (int)(sizeof tr / sizeof tr[0]), .transitions = tr};
    const stance_graph_desc gd = {.skeleton = B.skeleton, .param_count = 4, .params = params, .machine_count = 1,
                                  .machines = &m};
    stance_graph *g = NULL;
    stance_error err;
    if (stance_graph_create(&gd, NULL, &g, &err)) fprintf(stderr, "four_types: %s\n", err.message);
    return g;
}

/* A pose's bytes (the whole bound block, padding included). */
static int same_pose(const stance_pose *a, const stance_pose *b) {
    return a->joint_count == b->joint_count && !memcmp(a->memory, b->memory, stance_pose_bytes(a->joint_count));
}

static int same_events(const stance_instance *a, const stance_instance *b) {
    int na, nb, da, db;
    const stance_event *ea = stance_instance_events(a, &na, &da), *eb = stance_instance_events(b, &nb, &db);
    if (na != nb || da != db) return 0;
    for (int i = 0; i < na; i++)
        if (ea[i].type != eb[i].type || ea[i].state != eb[i].state || ea[i].other != eb[i].other ||
            memcmp(&ea[i].time, &eb[i].time, sizeof(float)))
            return 0;
    return 1;
}

/* A deterministic script (an LCG): at frame f, which parameter is set to what. */
typedef struct script {
    uint32_t x;
} script;
static uint32_t next(script *s) { return s->x = s->x * 1664525u + 1013904223u; }

static void test_by_name_equals_by_index(void) {
    stance_graph *g = four_types();
    CHECK(g != NULL);
    if (!g) return;
    stance_instance *a = NULL, *b = NULL;
    CHECK_OK(stance_instance_create(g, NULL, &a, NULL));
    CHECK_OK(stance_instance_create(g, NULL, &b, NULL));
    const char *names[4] = {"speed", "gait", "crouch", "jump"};
    int ids[4];
    for (int i = 0; i < 4; i++) ids[i] = stance_graph_find_param(g, names[i]);
    CHECK(ids[0] >= 0 && ids[1] >= 0 && ids[2] >= 0 && ids[3] >= 0);
    script sc = {12345u};
    int visited[5] = {0, 0, 0, 0, 0}, sets[4] = {0, 0, 0, 0}, same = 1;
    stance_error ea, eb;
    for (int f = 0; f < 600 && same; f++) {
        if (f % 7 == 0) {
            const uint32_t r = next(&sc);
            const int which = (int)(r >> 28) % 4;
            stance_status sa = STANCE_OK, sb = STANCE_OK;
            if (which == 0) { /* speed in [0, 5), sometimes a jump to 0 */
                const float v = (r & 3u) == 0 ? 0.0f : (float)((r >> 4) & 0xFFFFu) / 65536.0f * 5.0f;
                sa = stance_instance_set_float(a, ids[0], v, &ea);
                sb = stance_instance_set_float_by_name(b, names[0], v, &eb);
            } else if (which == 1) { /* gait 0..3: 2 waves */
                const int v = (int)((r >> 4) & 3u);
                sa = stance_instance_set_int(a, ids[1], v, &ea);
                sb = stance_instance_set_int_by_name(b, names[1], v, &eb);
            } else if (which == 2) {
                const int v = (int)((r >> 4) & 1u);
                sa = stance_instance_set_bool(a, ids[2], v, &ea);
                sb = stance_instance_set_bool_by_name(b, names[2], v, &eb);
            } else if (((r >> 4) & 7u) == 0) {
                sa = stance_instance_set_trigger(a, ids[3], &ea);
                sb = stance_instance_set_trigger_by_name(b, names[3], &eb);
            }
            CHECK(sa == STANCE_OK && sb == STANCE_OK);
            sets[which]++;
        }
        const float dt = f % 13 == 0 ? 1.0f / 30 : 1.0f / 60;
        CHECK_OK(stance_instance_update(a, dt, TEST_WS_INST(a), NULL));
        CHECK_OK(stance_instance_update(b, dt, TEST_WS_INST(b), NULL));
        same = same_pose(stance_instance_model_pose(a), stance_instance_model_pose(b)) &&
               same_pose(stance_instance_local_pose(a), stance_instance_local_pose(b)) && same_events(a, b);
        for (int i = 0; i < 4 && same; i++) { /* the getter by name is the one by index, bit for bit */
            float va = stance_instance_param(a, ids[i]), vb = -1.0f;
            CHECK_OK(stance_instance_param_by_name(b, names[i], &vb, NULL));
            same = !memcmp(&va, &vb, sizeof va);
        }
        stance_machine_status ms;
        CHECK_OK(stance_instance_machine_status(a, 0, &ms, NULL));
        if (ms.state >= 0 && ms.state < 5) visited[ms.state] = 1;
    }
    CHECK(same);
    /* the script reached every state and set every type, so the comparison covered them */
    for (int s = 0; s < 5; s++) CHECK(visited[s]);
    for (int i = 0; i < 4; i++) CHECK(sets[i] > 5);
    stance_instance_destroy(a), stance_instance_destroy(b);
    stance_graph_destroy(g);
}

static void test_refusals(void) {
    stance_graph *g = four_types();
    CHECK(g != NULL);
    if (!g) return;
    stance_instance *inst = NULL;
    CHECK_OK(stance_instance_create(g, NULL, &inst, NULL));
    const size_t nb = stance_instance_bytes(inst); /* the whole block: a refusal leaves every byte */
    const int speed = stance_graph_find_param(g, "speed"), gait = stance_graph_find_param(g, "gait");
    const int crouch = stance_graph_find_param(g, "crouch"), jump = stance_graph_find_param(g, "jump");
    /* wrong type: named, with the setter that fits */
    REFUSED(inst, nb, STANCE_ERR_ARGUMENT, stance_instance_set_bool_by_name(inst, "speed", 1, E),
            "set_bool", "'speed' is a float parameter", "stance_instance_set_float");
    REFUSED(inst, nb, STANCE_ERR_ARGUMENT, stance_instance_set_float(inst, crouch, 1.0f, E),
            "set_float", "'crouch' is a bool", "set_bool");
    REFUSED(inst, nb, STANCE_ERR_ARGUMENT, stance_instance_set_int_by_name(inst, "jump", 1, E),
            "'jump' is a trigger", "set_trigger");
    REFUSED(inst, nb, STANCE_ERR_ARGUMENT, stance_instance_set_trigger(inst, gait, E), "'gait' is a int", "set_int");
    /* unknown names: the closest known one */
    REFUSED(inst, nb, STANCE_ERR_NOT_FOUND, stance_instance_set_int_by_name(inst, "gaitt", 1, E),
            "set_int_by_name", "unknown parameter 'gaitt'", "did you mean 'gait'");
    REFUSED(inst, nb, STANCE_ERR_NOT_FOUND, stance_instance_set_bool_by_name(inst, "crouc", 1, E),
            "set_bool_by_name", "did you mean 'crouch'");
    {
        float v = 42.0f;
        REFUSED(inst, nb, STANCE_ERR_NOT_FOUND, stance_instance_param_by_name(inst, "sped", &v, E),
                "param_by_name", "did you mean 'speed'");
        CHECK(v == 42.0f); /* written only on success */
        REFUSED(inst, nb, STANCE_ERR_ARGUMENT, stance_instance_param_by_name(inst, "speed", NULL, E),
                "param_by_name", "value is NULL");
        REFUSED(inst, nb, STANCE_ERR_ARGUMENT, stance_instance_param_by_name(NULL, "speed", &v, E),
                "param_by_name", "instance is NULL");
    }
    /* NULL */
    REFUSED(inst, nb, STANCE_ERR_ARGUMENT, stance_instance_set_float_by_name(inst, NULL, 1.0f, E),
            "set_float_by_name", "name is NULL");
    REFUSED(inst, nb, STANCE_ERR_ARGUMENT, stance_instance_set_trigger_by_name(inst, NULL, E), "name is NULL");
    REFUSED(inst, nb, STANCE_ERR_ARGUMENT, stance_instance_set_int_by_name(NULL, "gait", 1, E),
            "set_int_by_name", "instance is NULL");
    REFUSED(inst, nb, STANCE_ERR_ARGUMENT, stance_instance_set_bool(NULL, crouch, 1, E),
            "set_bool", "instance is NULL");
    /* NaN and infinities */
    REFUSED(inst, nb, STANCE_ERR_VALUE, stance_instance_set_float_by_name(inst, "speed", NAN, E),
            "set_float", "'speed'", "not finite");
    REFUSED(inst, nb, STANCE_ERR_VALUE, stance_instance_set_float(inst, speed, -INFINITY, E), "not finite");
    REFUSED(inst, nb, STANCE_ERR_VALUE, stance_instance_set_float(inst, gait, INFINITY, E), "not finite");
    /* ints past +-2^24, by either setter */
    REFUSED(inst, nb, STANCE_ERR_VALUE, stance_instance_set_int(inst, gait, STANCE_PARAM_INT_MAX + 1, E),
            "set_int", "'gait'", "16777217", "outside +-16777216");
    REFUSED(inst, nb, STANCE_ERR_VALUE, stance_instance_set_int_by_name(inst, "gait", -STANCE_PARAM_INT_MAX - 1, E),
            "-16777217");
    REFUSED(inst, nb, STANCE_ERR_VALUE, stance_instance_set_int(inst, speed, 2147483647, E), "outside");
    REFUSED(inst, nb, STANCE_ERR_VALUE, stance_instance_set_float(inst, gait, 1e30f, E),
            "set_float", "int parameter 'gait'", "outside");
    REFUSED(inst, nb, STANCE_ERR_VALUE, stance_instance_set_float_by_name(inst, "gait", -16777218.0f, E),
            "-1.67772e+07 is outside");
    /* bools other than 0 and 1 */
    REFUSED(inst, nb, STANCE_ERR_VALUE, stance_instance_set_bool(inst, crouch, 2, E),
            "set_bool", "'crouch'", "2 is not 0 or 1");
    REFUSED(inst, nb, STANCE_ERR_VALUE, stance_instance_set_bool_by_name(inst, "crouch", -1, E), "-1 is not 0 or 1");
    /* an index out of range */
    REFUSED(inst, nb, STANCE_ERR_NOT_FOUND, stance_instance_set_int(inst, 4, 1, E),
            "set_int", "parameter 4 is not in 0..3");
    REFUSED(inst, nb, STANCE_ERR_NOT_FOUND, stance_instance_set_trigger(inst, -1, E), "parameter -1");
    (void)jump;
    stance_instance_destroy(inst);
    stance_graph_destroy(g);
}

/* The edges that are accepted: +-2^24 exactly, 0 and 1, a float rounded
 * down on an int parameter; success leaves err STANCE_OK and empty. */
static void test_accepted_edges(void) {
    stance_graph *g = four_types();
    CHECK(g != NULL);
    if (!g) return;
    stance_instance *inst = NULL;
    CHECK_OK(stance_instance_create(g, NULL, &inst, NULL));
    stance_error err = {STANCE_ERR_IO, "junk"};
    float v = 0.0f;
    CHECK_OK(stance_instance_set_int_by_name(inst, "gait", STANCE_PARAM_INT_MAX, &err));
    CHECK(err.status == STANCE_OK && err.message[0] == 0);
    CHECK_OK(stance_instance_param_by_name(inst, "gait", &v, &err));
    CHECK(v == 16777216.0f);
    CHECK_OK(stance_instance_set_int(inst, stance_graph_find_param(g, "gait"), -STANCE_PARAM_INT_MAX, &err));
    CHECK(stance_instance_param(inst, stance_graph_find_param(g, "gait")) == -16777216.0f);
    CHECK_OK(stance_instance_set_float_by_name(inst, "gait", 2.75f, &err));
    CHECK_OK(stance_instance_param_by_name(inst, "gait", &v, &err));
    CHECK(v == 2.0f);
    CHECK_OK(stance_instance_set_float_by_name(inst, "gait", -8388607.5f, &err)); /* floor: -8388608 */
    CHECK_OK(stance_instance_param_by_name(inst, "gait", &v, &err));
    CHECK(v == -8388608.0f);
    CHECK_OK(stance_instance_set_int_by_name(inst, "speed", 3, &err)); /* an int on a float parameter (damped) */
    CHECK_OK(stance_instance_set_bool_by_name(inst, "crouch", 1, &err));
    CHECK_OK(stance_instance_param_by_name(inst, "crouch", &v, &err));
    CHECK(v == 1.0f);
    CHECK_OK(stance_instance_set_bool_by_name(inst, "crouch", 0, &err));
    CHECK_OK(stance_instance_param_by_name(inst, "crouch", &v, &err));
    CHECK(v == 0.0f);
    CHECK_OK(stance_instance_set_trigger_by_name(inst, "jump", &err));
    CHECK_OK(stance_instance_param_by_name(inst, "jump", &v, &err));
    CHECK(v == 1.0f);
    CHECK(err.status == STANCE_OK && err.message[0] == 0);
    /* the controller's int setter is the instance's */
    stance_controller *ctl = NULL;
    CHECK_OK(stance_controller_create(g, NULL, NULL, &ctl, &err));
    CHECK_OK(stance_controller_set_int(ctl, stance_graph_find_param(g, "gait"), 3, &err));
    CHECK(stance_instance_param(stance_controller_instance(ctl), stance_graph_find_param(g, "gait")) == 3.0f);
    CHECK_STATUS(stance_controller_set_int(ctl, stance_graph_find_param(g, "gait"), 1 << 25, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "set_int") != NULL);
    CHECK_STATUS(stance_controller_set_int(NULL, 0, 1, &err), STANCE_ERR_ARGUMENT);
    stance_controller_destroy(ctl);
    stance_instance_destroy(inst);
    stance_graph_destroy(g);
}

int main(void) {
    stance_error err;
    if (stance_builtin_create(NULL, &B, &err)) {
        fprintf(stderr, "builtin: %s\n", err.message);
        return 1;
    }
    RUN(test_by_name_equals_by_index);
    RUN(test_refusals);
    RUN(test_accepted_edges);
    stance_builtin_destroy(&B);
    return check_summary();
}
