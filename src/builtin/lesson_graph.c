/* src/builtin/lesson_graph.c - the lesson's state machine and layers on the
 * built-in character, described in code (the same graph as
 * graphs/builtin.json, for builds without a JSON library). */
#include <string.h>

#include "core/base/internal.h"
#include "stance_lesson/builtin.h"
#include "stance/build.h"

stance_status stance_builtin_lesson_graph(const stance_builtin *b, const stance_allocator *allocator,
                                          stance_graph **out, stance_error *err) {
    if (!b || !b->skeleton || !out) return st_fail(err, STANCE_ERR_ARGUMENT, "lesson graph: NULL argument");
    const stance_clip *idle = stance_builtin_clip(b, "idle"), *walk = stance_builtin_clip(b, "walk");
    const stance_clip *run = stance_builtin_clip(b, "run"), *jump = stance_builtin_clip(b, "jump");
    const stance_clip *wave = stance_builtin_clip(b, "wave"), *lean = stance_builtin_clip(b, "lean");
    const stance_clip *breathe = stance_builtin_clip(b, "breathe");
    if (!idle || !walk || !run || !jump || !wave || !lean || !breathe)
        return st_fail(err, STANCE_ERR_NOT_FOUND, "lesson graph: a built-in clip is missing");
    const stance_param_desc params[] = {
        {"speed", STANCE_PARAM_FLOAT, 0.0f, 0.1f}, /* smoothed with a 0.1 s halflife */
        {"jump", STANCE_PARAM_TRIGGER, 0.0f, 0.0f},
    };
    const stance_blend_entry_desc move[] = {{idle, 0.0f, 0}, {walk, walk->root_speed, 0}, {run, run->root_speed, 0}};
    const stance_state_desc loco_states[] = {
        {.name = "Idle", .type = STANCE_MOTION_CLIP, .clip = idle},
        {.name = "Move", .type = STANCE_MOTION_BLEND1D, .entry_count = 3, .entries = move, .param_x = "speed", .speed_warp = 1},
        {.name = "Jump", .type = STANCE_MOTION_CLIP, .clip = jump, .once = 1},
    };
    const stance_condition_desc c_jump[] = {{.param = "jump", .op = STANCE_CMP_TRUE}};
    const stance_condition_desc c_moving[] = {{.param = "speed", .op = STANCE_CMP_GE, .value = 0.1f}};
    const stance_condition_desc c_still[] = {{.param = "speed", .op = STANCE_CMP_LT, .value = 0.1f}};
    const stance_transition_desc loco_trans[] = {
        {.from = "Idle", .to = "Jump", .condition_count = 1, .conditions = c_jump},
        {.from = "Idle", .to = "Move", .condition_count = 1, .conditions = c_moving},
        {.from = "Move", .to = "Jump", .condition_count = 1, .conditions = c_jump},
        {.from = "Move", .to = "Idle", .condition_count = 1, .conditions = c_still},
        {.from = "Jump", .to = "Move", .condition_count = 1, .conditions = c_moving, .exit = STANCE_EXIT_AT_END},
        {.from = "Jump", .to = "Idle", .condition_count = 1, .conditions = c_still, .exit = STANCE_EXIT_AT_END},
    };
    const stance_state_desc breathe_states[] = {{.name = "Breathe", .type = STANCE_MOTION_CLIP, .clip = breathe}};
    const stance_state_desc lean_states[] = {{.name = "Lean", .type = STANCE_MOTION_CLIP, .clip = lean, .once = 1}};
    const stance_state_desc wave_states[] = {{.name = "Wave", .type = STANCE_MOTION_CLIP, .clip = wave}};
    const stance_machine_desc machines[] = {
        {.name = "Locomotion", .state_count = 3, .states = loco_states, .entry = "Idle", .transition_count = 6, .transitions = loco_trans},
        {.name = "Breathing", .state_count = 1, .states = breathe_states},
        {.name = "Leaning", .state_count = 1, .states = lean_states},
        {.name = "Waving", .state_count = 1, .states = wave_states},
    };
    const int J = b->skeleton->joint_count;
    float mask[STANCE_MAX_JOINTS];
    stance_status s = stance_mask_subtree(b->skeleton, stance_skeleton_find(b->skeleton, "spine"), 1.0f, 0, mask, err);
    if (s) return s;
    (void)J;
    const stance_layer_desc layers[] = {
        {.name = "base", .machine = "Locomotion", .weight = 1.0f},
        {.name = "breathe", .machine = "Breathing", .mode = STANCE_LAYER_ADDITIVE, .priority = 1},
        {.name = "lean", .machine = "Leaning", .mode = STANCE_LAYER_ADDITIVE, .priority = 2},
        {.name = "wave", .machine = "Waving", .mask = mask, .priority = 3},
    };
    stance_graph_desc gd = {
        .skeleton = b->skeleton,
        .param_count = 2, .params = params,
        .machine_count = 4, .machines = machines,
        .layer_count = 4, .layers = layers,
        .default_blend_time = 0.25f,
    };
    return stance_graph_create(&gd, allocator, out, err);
}
