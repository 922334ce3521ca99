/* tests/test_graph_query.c - graph introspection (stance/graph_query.h):
 * a graph described here by hand is read back transition by transition and
 * condition by condition; the expected values are the description's own
 * (with the documented defaults filled in), indices worked out by hand. */
#include <string.h>

#include "check.h"
#include "stance/graph_query.h"
#include "stance/stance.h"
#include "stance/build.h"
#include "stance_lesson/stance_lesson.h"

static void test_transitions_read_back(void) {
    stance_error err = {0};
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, &err));
    const stance_clip *idle = stance_builtin_clip(&b, "idle"), *walk = stance_builtin_clip(&b, "walk");
    const stance_clip *wave = stance_builtin_clip(&b, "wave");
    const stance_param_desc params[] = {{"speed", STANCE_PARAM_FLOAT, 0, 0}, {"go", STANCE_PARAM_TRIGGER, 0, 0},
                                        {"mode", STANCE_PARAM_INT, 0, 0}};
    const stance_state_desc a_states[] = {{.name = "A", .clip = idle}, {.name = "B", .clip = walk}};
    const stance_state_desc w_states[] = {{.name = "W", .clip = wave}, {.name = "V", .clip = idle}};
    const stance_condition_desc c0[] = {{.param = "speed", .op = STANCE_CMP_GE, .value = 0.5f, .hysteresis = 0.05f},
                                        {.param = "mode", .op = STANCE_CMP_NE, .value = 2.0f, .group = 1}};
    const stance_condition_desc c1[] = {{.param = "go", .op = STANCE_CMP_TRUE}};
    const stance_transition_desc a_trans[] = {
        {.from = "A", .to = "B", .condition_count = 2, .conditions = c0, .blend_time = 0.4f, .mode = STANCE_SWITCH_CUT},
        {.from = "*", .to = "A", .condition_count = 1, .conditions = c1, .exit = STANCE_EXIT_NORMALIZED, .exit_time = 0.75f,
         .easing = STANCE_EASE_LINEAR, .uninterruptible = 1, .allow_self = 1},
    };
    const stance_transition_desc w_trans[] = {{.from = "V", .to = "W", .condition_count = 1, .conditions = c1}};
    const stance_machine_desc machines[] = {
        {.name = "M", .state_count = 2, .states = a_states, .entry = "B", .transition_count = 2, .transitions = a_trans},
        {.name = "N", .state_count = 2, .states = w_states, .transition_count = 1, .transitions = w_trans},
    };
    stance_graph_desc gd = {.skeleton = b.skeleton, .param_count = 3, .params = params, .machine_count = 2,
                            .machines = machines, .default_blend_time = 0.3f};
    stance_graph *g = NULL;
    CHECK_OK(stance_graph_create(&gd, NULL, &g, &err));
    if (!g) { stance_builtin_destroy(&b); return; }
    CHECK(stance_graph_transition_count(g) == 3);
    int first = -1, count = -1;
    CHECK_OK(stance_graph_machine_states(g, 1, &first, &count, NULL));
    CHECK(first == 2 && count == 2); /* machine N's states follow M's two */
    CHECK(stance_graph_machine_entry(g, 0) == 1);  /* B */
    CHECK(stance_graph_machine_entry(g, 1) == 2);  /* the first state, W */
    CHECK(stance_graph_state_motion(g, 0) == STANCE_MOTION_CLIP);

    stance_transition_info t;
    CHECK_OK(stance_graph_transition(g, 0, &t, NULL));
    CHECK(t.machine == 0 && t.from == 0 && t.to == 1 && t.condition_count == 2);
    CHECK(t.mode == STANCE_SWITCH_CUT && t.exit == STANCE_EXIT_NONE && t.uninterruptible == 0);
    CHECK(t.blend_time == 0.4f);
    stance_condition_info c;
    CHECK_OK(stance_graph_condition(g, 0, 0, &c, NULL));
    CHECK(c.param == 0 && c.op == STANCE_CMP_GE && c.group == 0);
    CHECK_NEAR(c.value, 0.5, 0);
    CHECK_NEAR(c.hysteresis, 0.05, 1e-7);
    CHECK_OK(stance_graph_condition(g, 0, 1, &c, NULL));
    CHECK(c.param == 2 && c.op == STANCE_CMP_NE && c.group == 1);
    CHECK_NEAR(c.value, 2.0, 0);

    CHECK_OK(stance_graph_transition(g, 1, &t, NULL));
    CHECK(t.machine == 0 && t.from == -1 && t.to == 0 && t.condition_count == 1);
    CHECK(t.exit == STANCE_EXIT_NORMALIZED && t.easing == STANCE_EASE_LINEAR && t.uninterruptible == 1 && t.allow_self == 1);
    CHECK(t.exit_time == 0.75f);
    CHECK_NEAR(t.blend_time, 0.3, 1e-7); /* 0 in the description: the graph's default */
    CHECK_OK(stance_graph_condition(g, 1, 0, &c, NULL));
    CHECK(c.param == 1 && c.op == STANCE_CMP_TRUE);

    CHECK_OK(stance_graph_transition(g, 2, &t, NULL));
    CHECK(t.machine == 1 && t.from == 3 && t.to == 2); /* V -> W, global indices */

    /* bad input */
    CHECK_STATUS(stance_graph_transition(g, 3, &t, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_graph_transition(g, -1, &t, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_graph_transition(NULL, 0, &t, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_graph_transition(g, 0, NULL, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_graph_condition(g, 0, 2, &c, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_graph_condition(g, 2, -1, &c, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_graph_machine_states(g, 2, &first, &count, NULL), STANCE_ERR_ARGUMENT);
    CHECK(stance_graph_machine_entry(g, 5) == -1 && stance_graph_state_motion(g, 4) == -1);
    CHECK(stance_graph_transition_count(NULL) == 0);
    CHECK(!strcmp(stance_compare_symbol(STANCE_CMP_LT), "<") && !strcmp(stance_compare_symbol((stance_compare)99), "?"));
    stance_graph_destroy(g);
    stance_builtin_destroy(&b);
}

/* Blend spaces: their parameters and entry positions as described (a 2D
 * space's y, a 1D space's y 0 and param_y -1); a clip state is refused. */
static void test_blend_spaces_read_back(void) {
    stance_error err = {0};
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, &err));
    const stance_clip *idle = stance_builtin_clip(&b, "idle"), *walk = stance_builtin_clip(&b, "walk");
    const stance_clip *run = stance_builtin_clip(&b, "run");
    const stance_param_desc params[] = {{"turn", STANCE_PARAM_FLOAT, 0, 0}, {"velocity", STANCE_PARAM_FLOAT, 0, 0},
                                        {"side", STANCE_PARAM_FLOAT, 0, 0}};
    const stance_blend_entry_desc e1[] = {{idle, 0.0f, 0}, {walk, 1.25f, 0}, {run, 3.5f, 0}};
    const stance_blend_entry_desc e2[] = {{idle, 0.0f, 0.0f}, {walk, 1.5f, -0.75f}, {run, 4.0f, 0.5f}};
    const stance_state_desc states[] = {
        {.name = "Still", .clip = idle},
        {.name = "Move", .type = STANCE_MOTION_BLEND1D, .entry_count = 3, .entries = e1, .param_x = "velocity"},
        {.name = "Strafe", .type = STANCE_MOTION_BLEND2D, .entry_count = 3, .entries = e2, .param_x = "velocity",
         .param_y = "side"},
    };
    const stance_machine_desc m = {.name = "M", .state_count = 3, .states = states};
    stance_graph_desc gd = {.skeleton = b.skeleton, .param_count = 3, .params = params, .machine_count = 1, .machines = &m};
    stance_graph *g = NULL;
    CHECK_OK(stance_graph_create(&gd, NULL, &g, &err));
    if (!g) { stance_builtin_destroy(&b); return; }
    stance_blend_info bi;
    float at[2];
    CHECK_OK(stance_graph_blend_space(g, 1, &bi, NULL));
    CHECK(bi.param_x == 1 && bi.param_y == -1 && bi.entry_count == 3);
    CHECK_OK(stance_graph_blend_entry(g, 1, 1, at, NULL));
    CHECK(at[0] == 1.25f && at[1] == 0.0f);
    CHECK_OK(stance_graph_blend_entry(g, 1, 2, at, NULL));
    CHECK(at[0] == 3.5f);
    CHECK_OK(stance_graph_blend_space(g, 2, &bi, NULL));
    CHECK(bi.param_x == 1 && bi.param_y == 2 && bi.entry_count == 3);
    CHECK_OK(stance_graph_blend_entry(g, 2, 1, at, NULL));
    CHECK(at[0] == 1.5f && at[1] == -0.75f);
    /* bad input */
    CHECK_STATUS(stance_graph_blend_space(g, 0, &bi, &err), STANCE_ERR_ARGUMENT); /* a clip state */
    CHECK(strstr(err.message, "not a blend space") != NULL);
    CHECK_STATUS(stance_graph_blend_space(g, 3, &bi, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_graph_blend_space(NULL, 1, &bi, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_graph_blend_space(g, 1, NULL, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_graph_blend_entry(g, 1, 3, at, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_graph_blend_entry(g, 1, -1, at, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_graph_blend_entry(g, 1, 0, NULL, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_graph_blend_entry(g, 0, 0, at, NULL), STANCE_ERR_ARGUMENT);
    stance_graph_destroy(g);
    stance_builtin_destroy(&b);
}

int main(void) {
    RUN(test_transitions_read_back);
    RUN(test_blend_spaces_read_back);
    return check_summary();
}
