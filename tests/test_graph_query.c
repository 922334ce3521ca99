/* tests/test_graph_query.c - graph introspection (stance/graph_query.h):
 * a graph described here by hand is read back transition by transition and
 * condition by condition; the expected values are the description's own
 * (with the documented defaults filled in), indices worked out by hand.
 * Also what an editor reads to write a graph back: drives, curve tracks in
 * order, synced clips and IK entries. */
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

/* Drives, tracks, synced clips and IK entries read back as described: the
 * drives with parameter drives first, the tracks and synced clips in the
 * description's order (not by clip), an IK entry's joints by name. */
static void test_editor_queries_read_back(void) {
    stance_error err = {0};
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, &err));
    const stance_skeleton *sk = b.skeleton;
    const stance_clip *idle = stance_builtin_clip(&b, "idle"), *walk = stance_builtin_clip(&b, "walk");
    const stance_clip *wave = stance_builtin_clip(&b, "wave");
    const stance_param_desc params[] = {{"speed", STANCE_PARAM_FLOAT, 0, 0}, {"aim", STANCE_PARAM_FLOAT, 0, 0},
                                        {"follow", STANCE_PARAM_FLOAT, 0, 0}};
    const stance_state_desc base[] = {{.name = "Idle", .clip = idle}, {.name = "Walk", .clip = walk}};
    const stance_state_desc top[] = {{.name = "Wave", .clip = wave}};
    const stance_machine_desc machines[] = {{.name = "M", .state_count = 2, .states = base},
                                            {.name = "T", .state_count = 1, .states = top}};
    const stance_layer_desc layers[] = {{.name = "base", .machine = "M", .weight = 1},
                                        {.name = "top", .machine = "T", .weight = 0.5f}};
    const float ka[] = {0.0f, 1.0f}, kb[] = {0.0f, 2.0f, 0.5f, 3.0f}, kc[] = {0.25f, 4.0f};
    const stance_curve_desc curves[] = {{walk, "B", 2, kb}, {idle, "A", 1, ka}, {walk, "A", 1, kc}};
    const stance_drive_desc drives[] = {{STANCE_DRIVE_LAYER_WEIGHT, "top", NULL, "A"},
                                        {STANCE_DRIVE_IK_WEIGHT, "look", "aim", NULL},
                                        {STANCE_DRIVE_PARAM, "follow", NULL, "B"}};
    const stance_marker_desc marks[] = {{"R", 0.5f}, {"L", 0.1f}};
    const stance_clip_sync_desc sync[] = {{walk, 2, marks, 0.0f}, {idle, 0, NULL, 1.5f}};
    stance_ik_desc ik[3];
    memset(ik, 0, sizeof ik);
    ik[0].name = "feet", ik[0].kind = STANCE_IK_FOOTLOCK, ik[0].leg_count = 2, ik[0].plant_time = 0.1f;
    ik[0].legs[0] = (stance_ik_leg_desc){"upleg_l", "leg_l", "foot_l", NULL, NULL};
    ik[0].legs[1] = (stance_ik_leg_desc){"upleg_r", "leg_r", "foot_r", NULL, NULL};
    ik[1].name = "reach", ik[1].kind = STANCE_IK_TWO_BONE, ik[1].leg_count = 1, ik[1].softness = 0.05f, ik[1].pelvis = "";
    ik[1].legs[0] = (stance_ik_leg_desc){"upperarm_r", "forearm_r", "hand_r", NULL, NULL};
    ik[2].name = "look", ik[2].kind = STANCE_IK_AIM, ik[2].chain_count = 2, ik[2].chain[0] = "neck", ik[2].chain[1] = "head";
    ik[2].forward[2] = 1.0f, ik[2].max_angle = 1.0f;
    stance_graph_desc gd = {.skeleton = sk, .param_count = 3, .params = params, .machine_count = 2, .machines = machines,
                            .layer_count = 2, .layers = layers, .ik_count = 3, .ik = ik, .clip_sync_count = 2,
                            .clip_sync = sync, .curve_count = 3, .curves = curves, .drive_count = 3, .drives = drives};
    stance_graph *g = NULL;
    CHECK_OK(stance_graph_create(&gd, NULL, &g, &err));
    if (!g) { stance_builtin_destroy(&b); return; }

    CHECK(stance_graph_drive_count(g) == 3);
    stance_drive_info d;
    CHECK_OK(stance_graph_drive(g, 0, &d, NULL)); /* the parameter drive first */
    CHECK(d.target == STANCE_DRIVE_PARAM && d.index == 2 && d.param == -1 && !strcmp(stance_graph_curve_name(g, d.curve), "B"));
    CHECK_OK(stance_graph_drive(g, 1, &d, NULL));
    CHECK(d.target == STANCE_DRIVE_LAYER_WEIGHT && d.index == 1 && d.param == -1 && !strcmp(stance_graph_curve_name(g, d.curve), "A"));
    CHECK_OK(stance_graph_drive(g, 2, &d, NULL));
    CHECK(d.target == STANCE_DRIVE_IK_WEIGHT && d.index == 2 && d.param == 1 && d.curve == -1);

    CHECK(stance_graph_track_count(g) == 3);
    const stance_clip *c = NULL;
    stance_clip_curve cc;
    CHECK_OK(stance_graph_track(g, 0, &c, &cc, NULL));
    CHECK(c == walk && !strcmp(stance_graph_curve_name(g, cc.curve), "B") && cc.key_count == 2 && cc.keys[3] == 3.0f);
    CHECK_OK(stance_graph_track(g, 1, &c, &cc, NULL));
    CHECK(c == idle && !strcmp(stance_graph_curve_name(g, cc.curve), "A") && cc.key_count == 1 && cc.keys[1] == 1.0f);
    CHECK_OK(stance_graph_track(g, 2, &c, &cc, NULL));
    CHECK(c == walk && !strcmp(stance_graph_curve_name(g, cc.curve), "A") && cc.keys[0] == 0.25f);

    const stance_clip *synced[4] = {NULL, NULL, NULL, NULL};
    CHECK(stance_graph_sync_clips(g, synced, 1) == 2 && synced[0] == walk && synced[1] == NULL); /* capacity kept */
    CHECK(stance_graph_sync_clips(g, synced, 4) == 2 && synced[1] == idle);
    CHECK(stance_graph_sync_clips(g, NULL, 0) == 2 && stance_graph_sync_clips(NULL, synced, 4) == 0);

    stance_ik_info k;
    CHECK_OK(stance_graph_ik_info(g, 0, &k, NULL));
    CHECK(!strcmp(k.name, "feet") && k.kind == STANCE_IK_FOOTLOCK && k.leg_count == 2 && k.chain_count == 0);
    CHECK(k.legs[1][0] == stance_skeleton_find(sk, "upleg_r") && k.legs[1][1] == stance_skeleton_find(sk, "leg_r") &&
          k.legs[1][2] == stance_skeleton_find(sk, "foot_r"));
    CHECK(k.pelvis_default == 1 && k.pelvis == sk->parents[stance_skeleton_find(sk, "upleg_l")]);
    CHECK(k.plant_time == 0.1f && k.blend_time == 0.0f && k.softness == 0.0f);
    CHECK_OK(stance_graph_ik_info(g, 1, &k, NULL));
    CHECK(k.kind == STANCE_IK_TWO_BONE && k.leg_count == 1 && k.softness == 0.05f && k.pelvis == -1);
    CHECK(k.legs[0][2] == stance_skeleton_find(sk, "hand_r"));
    CHECK_OK(stance_graph_ik_info(g, 2, &k, NULL));
    CHECK(k.kind == STANCE_IK_AIM && k.leg_count == 0 && k.chain_count == 2 && k.chain[1] == stance_skeleton_find(sk, "head"));
    CHECK(k.forward[0] == 0.0f && k.forward[2] == 1.0f && k.max_angle == 1.0f);

    /* bad input */
    CHECK_STATUS(stance_graph_drive(g, 3, &d, &err), STANCE_ERR_ARGUMENT);
    CHECK(strstr(err.message, "not in 0..2") != NULL);
    CHECK_STATUS(stance_graph_drive(g, -1, &d, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_graph_drive(NULL, 0, &d, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_graph_drive(g, 0, NULL, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_graph_track(g, 3, &c, &cc, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_graph_track(g, 0, NULL, &cc, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_graph_track(g, 0, &c, NULL, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_graph_ik_info(g, 3, &k, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_graph_ik_info(g, 0, NULL, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_graph_ik_info(NULL, 0, &k, NULL), STANCE_ERR_ARGUMENT);
    CHECK(stance_graph_drive_count(NULL) == 0 && stance_graph_track_count(NULL) == 0);
    stance_graph_destroy(g);

    /* a graph without any: counts 0, every index refused */
    const stance_graph_desc plain = {.skeleton = sk, .machine_count = 1, .machines = machines};
    CHECK_OK(stance_graph_create(&plain, NULL, &g, &err));
    CHECK(stance_graph_drive_count(g) == 0 && stance_graph_track_count(g) == 0 && stance_graph_sync_clips(g, synced, 4) == 0);
    CHECK_STATUS(stance_graph_drive(g, 0, &d, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_graph_track(g, 0, &c, &cc, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_graph_ik_info(g, 0, &k, NULL), STANCE_ERR_ARGUMENT);
    stance_graph_destroy(g);
    stance_builtin_destroy(&b);
}

int main(void) {
    RUN(test_transitions_read_back);
    RUN(test_blend_spaces_read_back);
    RUN(test_editor_queries_read_back);
    return check_summary();
}
