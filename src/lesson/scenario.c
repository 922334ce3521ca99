/* src/lesson/scenario.c - the lesson's transition experiment: the 13.5 s
 * script at 60 Hz, the jump at each switch against a copy of the instance
 * that starts no transition, and the clips sampled per frame. */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "stance/lesson.h"

const stance_switch_mode stance_scenario_modes[STANCE_SCENARIO_MODES] = {
    STANCE_SWITCH_CUT, STANCE_SWITCH_FROZEN, STANCE_SWITCH_CROSSFADE,
    STANCE_SWITCH_INERTIALIZE_SIMPLE, STANCE_SWITCH_INERTIALIZE, STANCE_SWITCH_DEADBLEND,
};

static const char *const mode_names[STANCE_SWITCH_MODE_COUNT] = {
    [STANCE_SWITCH_CROSSFADE] = "crossfade", [STANCE_SWITCH_CUT] = "cut", [STANCE_SWITCH_FROZEN] = "frozen",
    [STANCE_SWITCH_INERTIALIZE] = "inertialize", [STANCE_SWITCH_INERTIALIZE_SIMPLE] = "inertialize-simple",
    [STANCE_SWITCH_DEADBLEND] = "deadblend",
};

const char *stance_switch_mode_name(stance_switch_mode m) {
    return (unsigned)m < STANCE_SWITCH_MODE_COUNT ? mode_names[m] : "unknown";
}

int stance_switch_mode_parse(const char *name) {
    if (!name) return -1;
    for (int i = 0; i < STANCE_SWITCH_MODE_COUNT; i++)
        if (!strcmp(name, mode_names[i])) return i;
    if (!strcmp(name, "inertialize_simple")) return STANCE_SWITCH_INERTIALIZE_SIMPLE;
    return -1;
}

/* LESSON.md: the script's table. */
void stance_scenario_input(float t, float *speed, int *jump) {
    static const struct { float from, speed; int jump; } rows[] = {
        {0.0f, 0.0f, 0}, {1.5f, 1.5f, 0}, {3.5f, 4.0f, 0}, {5.5f, 0.0f, 0},
        {7.0f, 0.0f, 1}, {8.5f, 1.5f, 0}, {10.0f, 1.5f, 1}, {11.5f, 0.0f, 0},
    };
    const float dt = 1.0f / 60.0f;
    int r = 0;
    for (int i = 0; i < 8; i++)
        if (t + 1e-4f >= rows[i].from) r = i;
    *speed = rows[r].speed;
    /* the press happens on the one frame that starts at the row's time */
    *jump = rows[r].jump && t + 1e-4f >= rows[r].from && t + 1e-4f < rows[r].from + dt;
}

stance_status stance_scenario_run(const stance_graph *g, stance_switch_mode mode, float blend_time,
                                  stance_easing easing, stance_scenario_result *res, stance_scenario_frame *frames,
                                  const stance_allocator *allocator, stance_error *err) {
    if (!g || !res) return st_fail(err, STANCE_ERR_ARGUMENT, "scenario: graph or result is NULL");
    if ((unsigned)mode >= STANCE_SWITCH_MODE_COUNT) return st_fail(err, STANCE_ERR_ARGUMENT, "scenario: unknown mode %d", (int)mode);
    if (!st_finite(blend_time) || blend_time < 0.0f || blend_time > 10.0f)
        return st_fail(err, STANCE_ERR_VALUE, "scenario: blend time %g is not in [0, 10] s", (double)blend_time);
    int p_speed = stance_graph_find_param(g, "speed"), p_jump = stance_graph_find_param(g, "jump");
    if (p_speed < 0 || stance_graph_param_type(g, p_speed) != STANCE_PARAM_FLOAT)
        return st_fail(err, STANCE_ERR_NOT_FOUND, "scenario: the graph has no float parameter 'speed'");
    if (p_jump < 0 || stance_graph_param_type(g, p_jump) != STANCE_PARAM_TRIGGER)
        return st_fail(err, STANCE_ERR_NOT_FOUND, "scenario: the graph has no trigger parameter 'jump'");
    stance_instance *inst = NULL, *shadow = NULL;
    stance_workspace *ws = NULL;
    /* every machine keeps history: the experiment switches any of them by any mode */
    const stance_instance_desc idesc = {.history = STANCE_HISTORY_ALL};
    stance_status s = stance_instance_create_ex(g, &idesc, allocator, &inst, err);
    if (!s) s = stance_instance_create_ex(g, &idesc, allocator, &shadow, err);
    if (!s) s = stance_workspace_create(g, allocator, &ws, err);
    if (s) { stance_instance_destroy(inst); stance_instance_destroy(shadow); return s; }
    memset(res, 0, sizeof *res);
    res->mode = mode;
    res->blend_time = blend_time > 0.0f ? blend_time : 0.25f;
    stance_instance_override_switch(inst, (int)mode, res->blend_time, (int)easing);
    const int base_machine = stance_graph_layer_machine(g, 0);
    const float dt = 1.0f / 60.0f;
    res->worst_jump_cm = 0.0f;
    res->worst_at_s = 0.0f;
    snprintf(res->worst_transition, sizeof res->worst_transition, "none");
    for (int f = 0; f < STANCE_SCENARIO_FRAMES; f++) {
        float t = (float)f * dt, speed;
        int jump;
        stance_scenario_input(t, &speed, &jump);
        stance_instance_set_float(inst, p_speed, speed, NULL);
        if (jump) stance_instance_set_trigger(inst, p_jump, NULL);
        stance_instance_copy(shadow, inst);
        stance_instance_update_ex(shadow, dt, STANCE_UPDATE_NO_TRANSITIONS, ws);
        s = stance_instance_update(inst, dt, ws);
        if (s) { st_fail(err, s, "scenario: update failed at %.3f s", (double)t); break; }
        int n;
        const stance_event *ev = stance_instance_events(inst, &n, NULL);
        float jump_cm = -1.0f;
        for (int i = 0; i < n; i++) {
            /* the base layer's transitions, at any nesting depth */
            if (ev[i].type != STANCE_EVENT_TRANSITION_STARTED || ev[i].layer != 0) continue;
            float d;
            int joint;
            stance_pose_distance(stance_instance_model_pose(inst), stance_instance_model_pose(shadow), &d, &joint);
            jump_cm = d * 100.0f;
            res->transitions++;
            if (jump_cm > res->worst_jump_cm || res->transitions == 1) {
                res->worst_jump_cm = jump_cm;
                res->worst_at_s = t + dt;
                res->worst_joint = joint;
                snprintf(res->worst_transition, sizeof res->worst_transition, "%s->%s",
                         stance_graph_state_name(g, ev[i].other), stance_graph_state_name(g, ev[i].state));
            }
        }
        int clips = stance_instance_clips_sampled(inst);
        if (clips > res->max_clips_sampled) res->max_clips_sampled = clips;
        if (frames) {
            stance_machine_status ms;
            stance_instance_machine_status(inst, base_machine, &ms);
            frames[f] = (stance_scenario_frame){t + dt, ms.state, ms.transition, ms.progress, jump_cm, clips, speed};
        }
    }
    stance_workspace_destroy(ws);
    stance_instance_destroy(shadow);
    stance_instance_destroy(inst);
    return s ? s : st_ok(err);
}
