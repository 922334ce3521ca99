/* lab/stance_lab.c - the animation lab's glue: a thin layer of exported
 * functions over the public stance API, compiled to WebAssembly with the
 * runtime (scripts: `make lab`). JavaScript only draws, reads controls and
 * calls these; every pose, transition, measure and figure comes from here.
 *
 * Three views, each one graph and one instance:
 *   0 state machine: the built-in character on the lesson graph, driven by
 *     speed and jump by hand or by the lesson's 13.5 s script, with the
 *     switch mode / blend time / easing overridden. Its instance is a
 *     stance_scenario runner's (the lesson library's, the code of
 *     `stance scenario`): the script's frames are stance_scenario_step,
 *     the hand's stance_scenario_step_by_hand, and the jump at a switch is
 *     the runner's, so the lab's figures are the CLI's by construction.
 *   1 layers: a small graph (base idle/walk/run; additive breathing and lean;
 *     the wave as an override layer on a mask, local or mesh space), rebuilt
 *     when the mask or the space changes; live foot sliding and arm angle.
 *   2, 3 a .stance file's character: its graph, its clips (lab/lab_asset.c).
 * Figures tables: stance_scenario_run and stance_layers_run, printed in the
 * same format as `stance scenario --json` and `stance layers --json`.
 *
 * Pointers handed to JavaScript point into the wasm heap; JavaScript reads
 * them through fresh HEAP views each frame (the heap may grow). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stance/asset.h"
#include "stance/stance.h"
#include "stance/build.h"
#include "stance_lesson/stance_lesson.h"

#include "lab.h"

/* ---- errors --------------------------------------------------------------- */

static char g_msg[512];

static int fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_msg, sizeof g_msg, fmt, ap);
    va_end(ap);
    return -1;
}

LAB_API const char *lab_error(void) { return g_msg; }
int lab_fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_msg, sizeof g_msg, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- a view: one graph, one instance, a root, foot tracking ---------------- */


static lab_view g_view[LAB_VIEWS];
static stance_scenario *g_runner; /* view 0's: it owns view 0's instance */
static stance_builtin g_builtin;
static int g_ready;

static void track_reset(lab_view *v) {
    v->count = v->head = 0;
    v->root[0] = v->root[1] = v->root[2] = 0.0f;
    v->planted[0] = v->planted[1] = 0;
    v->lowest[0] = v->lowest[1] = 0.0f;
}

/* After an update: root motion, then the feet in world space; a foot is
 * planted when it is within the sliding band (a share of its leg,
 * stance/footlock.h) of its lowest height over the window. */
static void track_frame(lab_view *v) {
    float d[3] = {0.0f, 0.0f, 0.0f};
    if (v->band_feet[0] != v->feet[0] || v->band_feet[1] != v->feet[1] || !(v->band > 0.0f)) {
        stance_slide_bands(v->skeleton, v->feet, 2, 0.0f, &v->band, NULL, NULL);
        v->band_feet[0] = v->feet[0], v->band_feet[1] = v->feet[1];
    }
    if (v->move_root) stance_instance_root_motion(v->inst, d);
    for (int k = 0; k < 3; k++) v->root[k] += d[k];
    const stance_pose *m = stance_instance_model_pose(v->inst);
    int slot = v->head;
    for (int f = 0; f < 2; f++) {
        int j = v->feet[f];
        float *p = v->feet_pos[slot][f];
        if (j < 0) { p[0] = p[1] = p[2] = 0.0f; continue; }
        p[0] = m->tx[j] + v->root[0], p[1] = m->ty[j] + v->root[1], p[2] = m->tz[j] + v->root[2];
    }
    v->travel[slot] = sqrtf(d[0] * d[0] + d[2] * d[2]);
    v->head = (v->head + 1) % LAB_WINDOW;
    if (v->count < LAB_WINDOW) v->count++;
    for (int f = 0; f < 2; f++) {
        float lo = 1e30f;
        for (int i = 0; i < v->count; i++)
            if (v->feet_pos[i][f][1] < lo) lo = v->feet_pos[i][f][1];
        v->lowest[f] = lo;
        v->planted[f] = v->feet[f] >= 0 && v->feet_pos[slot][f][1] <= lo + v->band;
    }
}

/* LESSON.md measure 2 over the window, by the CLI's code (stance_foot_slide):
 * both feet's positions in frame order, per metre the root travelled. -1
 * while the root has not moved 5 cm. */
static float track_slide(const lab_view *v) {
    if (v->count < 2 || v->feet[0] < 0 || v->feet[1] < 0) return -1.0f;
    static float pos[LAB_WINDOW * 2 * 3];
    float metres = 0.0f;
    int first = (v->head - v->count + LAB_WINDOW) % LAB_WINDOW;
    for (int i = 0; i < v->count; i++) {
        int slot = (first + i) % LAB_WINDOW;
        if (i) metres += v->travel[slot];
        memcpy(&pos[6 * i], v->feet_pos[slot], sizeof(float) * 6);
    }
    return metres > 0.05f ? stance_foot_slide(pos, v->count, 2, metres, v->band, 0.0f, 1.0f / 60.0f) : -1.0f;
}

/* The rest pose's height; fills side[] (which side of the body each joint is on). */
static float rest_height(const stance_skeleton *sk, signed char *side) {
    stance_pose l, m;
    if (stance_pose_create(&l, sk->joint_count, NULL, NULL)) return 1.0f;
    if (stance_pose_create(&m, sk->joint_count, NULL, NULL)) { stance_pose_destroy(&l); return 1.0f; }
    stance_pose_set_rest(&l, sk, NULL);
    stance_local_to_model(&m, &l, sk, NULL, NULL);
    float lo = 1e30f, hi = -1e30f;
    for (int j = 0; j < sk->joint_count; j++) {
        if (m.ty[j] < lo) lo = m.ty[j];
        if (m.ty[j] > hi) hi = m.ty[j];
    }
    for (int j = 0; j < sk->joint_count; j++)
        side[j] = (signed char)(m.tx[j] > 0.01f * (hi - lo) ? 1 : m.tx[j] < -0.01f * (hi - lo) ? -1 : 0);
    stance_pose_destroy(&l), stance_pose_destroy(&m);
    return hi - lo > 1e-3f ? hi - lo : 1.0f;
}

static void view_close(lab_view *v) {
    if (v == &g_view[0] && g_runner) stance_scenario_destroy(g_runner), g_runner = NULL;
    else stance_instance_destroy(v->inst);
    stance_workspace_destroy(v->ws);
    if (v->owns_graph) stance_graph_destroy(v->graph);
    v->inst = NULL, v->ws = NULL, v->graph = NULL, v->owns_graph = 0;
    v->skin_count = v->mesh_count = 0;
}

/* Draw the built-in character's skin and mesh. */
static void view_builtin_mesh(lab_view *v) {
    v->skin_count = g_builtin.skin ? 1 : 0;
    v->skins[0] = g_builtin.skin;
    v->mesh_count = g_builtin.mesh && g_builtin.skin ? 1 : 0;
    v->meshes[0] = g_builtin.mesh;
}

/* Makes the instance; takes ownership of graph when owns is 1. */
static int view_open(lab_view *v, stance_graph *graph, int owns) {
    stance_error err = {0};
    view_close(v);
    v->graph = graph;
    v->owns_graph = owns;
    v->skeleton = stance_graph_skeleton(graph);
    /* the lab switches any machine by any mode: every machine keeps history */
    const stance_instance_desc all = {.history = STANCE_HISTORY_ALL};
    if (stance_instance_create_ex(graph, &all, NULL, &v->inst, &err) ||
        stance_workspace_create(graph, NULL, &v->ws, &err)) {
        view_close(v);
        return fail("instance: %s", err.message);
    }
    track_reset(v);
    return 0;
}

static lab_view *view_at(int view) { return view >= 0 && view < LAB_VIEWS && g_view[view].inst ? &g_view[view] : NULL; }
lab_view *lab_view_at(int view) { return view_at(view); }
lab_view *lab_view_slot(int view) { return view >= 0 && view < LAB_VIEWS ? &g_view[view] : &g_view[0]; }
int lab_view_open(lab_view *v, stance_graph *graph, int owns) { return view_open(v, graph, owns); }
void lab_view_close(lab_view *v) { view_close(v); }
float lab_rest_height(const stance_skeleton *sk, signed char *side) { return rest_height(sk, side); }
void lab_track_frame(lab_view *v) { track_frame(v); }
const stance_builtin *lab_builtin(void) { return &g_builtin; }

LAB_API int lab_joint_count(int view) {
    lab_view *v = view_at(view);
    return v ? v->skeleton->joint_count : 0;
}
LAB_API int lab_joint_parent(int view, int joint) {
    lab_view *v = view_at(view);
    return v && joint >= 0 && joint < v->skeleton->joint_count ? v->skeleton->parents[joint] : -1;
}
LAB_API const char *lab_joint_name(int view, int joint) {
    lab_view *v = view_at(view);
    return v ? stance_skeleton_joint_name(v->skeleton, joint) : "";
}
/* The model pose's translations (axis 0 x, 1 y, 2 z): joint_count floats. */
LAB_API const float *lab_pose(int view, int axis) {
    lab_view *v = view_at(view);
    if (!v) return NULL;
    const stance_pose *m = stance_instance_model_pose(v->inst);
    return axis == 0 ? m->tx : axis == 1 ? m->ty : m->tz;
}
/* 1 when the joint is on the character's left (+x in the rest pose), -1 right, 0 middle. */
LAB_API int lab_joint_side(int view, int joint) {
    lab_view *v = view_at(view);
    return v && joint >= 0 && joint < v->skeleton->joint_count ? v->side[joint] : 0;
}
LAB_API const float *lab_root(int view) { return view_at(view) ? g_view[view].root : NULL; }
LAB_API float lab_height(int view) { return view_at(view) ? g_view[view].height : 1.0f; }
LAB_API int lab_foot(int view, int k) { return view_at(view) && (k == 0 || k == 1) ? g_view[view].feet[k] : -1; }
LAB_API int lab_foot_planted(int view, int k) { return view_at(view) && (k == 0 || k == 1) ? g_view[view].planted[k] : 0; }
LAB_API float lab_foot_slide(int view) { return view_at(view) ? track_slide(&g_view[view]) : -1.0f; }
LAB_API float lab_time(int view) { return view_at(view) ? stance_instance_time(g_view[view].inst) : 0.0f; }
LAB_API int lab_clips_sampled(int view) { return view_at(view) ? stance_instance_clips_sampled(view_at(view)->inst) : 0; }
LAB_API const char *lab_state_name(int view, int state) {
    lab_view *v = view_at(view);
    const char *n = v ? stance_graph_state_name(v->graph, state) : NULL;
    return n ? n : "";
}

/* ---- view 0: the lesson's state machine ------------------------------------ */

static struct {
    int p_speed, p_jump, machine;
    float speed;                   /* what gameplay sets */
    int mode, easing;
    float blend;
    int script;                    /* 1: the script drives (stance_scenario_step), 0: the hand */
    /* the last step */
    int state, from;
    float progress, jump_cm;
    int jump_joint;
    char transition[160];          /* the last transition started: "From->To" */
} sm;

/* The step's figures from the runner's frame record. */
static void sm_take(const stance_scenario_frame *fr) {
    const lab_view *v = &g_view[0];
    sm.jump_cm = fr->jump_cm;
    if (fr->jump_cm >= 0.0f) {
        sm.jump_joint = fr->jump_joint;
        snprintf(sm.transition, sizeof sm.transition, "%s->%s", stance_graph_state_name(v->graph, fr->jump_from),
                 stance_graph_state_name(v->graph, fr->jump_to));
    }
    sm.state = fr->state, sm.from = fr->from_state, sm.progress = fr->progress;
}

static int sm_open(void) {
    stance_error err = {0};
    stance_graph *g = NULL;
    if (stance_builtin_lesson_graph(&g_builtin, NULL, &g, &err)) return fail("lesson graph: %s", err.message);
    lab_view *v = &g_view[0];
    view_close(v);
    v->graph = g, v->owns_graph = 1, v->skeleton = stance_graph_skeleton(g);
    sm.mode = STANCE_SWITCH_CUT, sm.blend = 0.25f, sm.easing = STANCE_EASE_SMOOTHSTEP;
    const stance_scenario_desc sd = {.mode = (stance_switch_mode)sm.mode, .blend_time = sm.blend, .easing = (stance_easing)sm.easing};
    if (stance_scenario_create(g, &sd, NULL, &g_runner, &err)) {
        view_close(v);
        return fail("scenario: %s", err.message);
    }
    v->inst = stance_scenario_instance(g_runner);
    track_reset(v);
    view_builtin_mesh(v);
    v->move_root = 1;
    v->height = rest_height(v->skeleton, v->side);
    v->feet[0] = stance_skeleton_find(v->skeleton, "foot_l");
    v->feet[1] = stance_skeleton_find(v->skeleton, "foot_r");
    sm.p_speed = stance_graph_find_param(g, "speed");
    sm.p_jump = stance_graph_find_param(g, "jump");
    sm.machine = stance_graph_layer_machine(g, 0);
    sm.script = 0;
    sm.state = -1, sm.from = -1, sm.jump_cm = -1.0f, sm.jump_joint = -1;
    snprintf(sm.transition, sizeof sm.transition, "none");
    stance_scenario_frame fr;
    if (stance_scenario_step_by_hand(g_runner, 0.0f, &fr, &err)) return fail("scenario: %s", err.message);
    sm_take(&fr);
    track_frame(v);
    return 0;
}

LAB_API void lab_sm_set_speed(float speed) {
    if (!(speed >= 0.0f && speed <= 10.0f)) return;
    sm.speed = speed;
    if (g_view[0].inst) stance_instance_set_float(g_view[0].inst, sm.p_speed, speed, NULL);
}
LAB_API void lab_sm_jump(void) {
    if (g_view[0].inst) stance_instance_set_trigger(g_view[0].inst, sm.p_jump, NULL);
}
/* mode: a stance_switch_mode; blend_time in (0, 10] s; easing 0 smoothstep, 1 linear. */
LAB_API int lab_sm_set_switch(int mode, float blend_time, int easing) {
    if (mode < 0 || mode >= STANCE_SWITCH_MODE_COUNT) return fail("unknown switch mode %d", mode);
    if (!(blend_time > 0.0f && blend_time <= 10.0f)) return fail("blend time must be in (0, 10] s");
    if (easing != STANCE_EASE_SMOOTHSTEP && easing != STANCE_EASE_LINEAR) return fail("unknown easing %d", easing);
    stance_error err = {0};
    if (stance_scenario_set_switch(g_runner, (stance_switch_mode)mode, blend_time, (stance_easing)easing, &err))
        return fail("%s", err.message);
    sm.mode = mode, sm.blend = blend_time, sm.easing = easing;
    return 0;
}
LAB_API const char *lab_mode_name(int mode) { return stance_switch_mode_name((stance_switch_mode)mode); }
LAB_API int lab_mode_count(void) { return STANCE_SWITCH_MODE_COUNT; }
LAB_API int lab_scenario_mode(int i) { return i >= 0 && i < STANCE_SCENARIO_MODES ? (int)stance_scenario_modes[i] : -1; }

/* Plays the lesson's script from a fresh start (stance_scenario_restart):
 * stance_scenario_step drives speed and jump, one frame of 1/60 s a step,
 * with the current switch. */
LAB_API void lab_sm_script_start(void) {
    lab_view *v = &g_view[0];
    if (!v->inst || stance_scenario_restart(g_runner, NULL)) return;
    track_reset(v);
    sm.script = 1;
    sm.speed = 0.0f;
    sm.state = -1, sm.from = -1, sm.jump_cm = -1.0f;
}
LAB_API void lab_sm_script_stop(void) { sm.script = 0; }
/* Seconds into the script (end of the last frame), or -1 when driven by hand. */
LAB_API float lab_sm_script_time(void) { return sm.script ? (float)stance_scenario_frame_index(g_runner) * LAB_DT : -1.0f; }

/* One update: the script's next frame (the step is then always 1/60 s) or
 * one by hand. Returns the current state (global index) or -1 on failure. */
LAB_API int lab_sm_step(float dt) {
    lab_view *v = &g_view[0];
    if (!v->inst) return fail("not initialised");
    stance_error err = {0};
    stance_scenario_frame fr;
    if (sm.script) {
        if (stance_scenario_step(g_runner, &fr, &err)) return fail("update: %s", err.message);
        sm.speed = fr.speed;
    } else {
        if (!(dt >= 0.0f && dt <= 0.25f)) return fail("dt %g out of range", (double)dt);
        if (stance_scenario_step_by_hand(g_runner, dt, &fr, &err)) return fail("update: %s", err.message);
    }
    sm_take(&fr);
    track_frame(v);
    if (sm.script && stance_scenario_script_done(g_runner)) sm.script = 0;
    return sm.state;
}
LAB_API int lab_sm_state(void) { return sm.state; }
LAB_API int lab_sm_from(void) { return sm.from; }
LAB_API float lab_sm_progress(void) { return sm.progress; }
/* The jump (cm) if a transition started on the last step, else -1. */
LAB_API float lab_sm_jump_cm(void) { return sm.jump_cm; }
LAB_API const char *lab_sm_jump_joint(void) { return lab_joint_name(0, sm.jump_joint); }
LAB_API const char *lab_sm_transition(void) { return sm.transition; }
LAB_API float lab_sm_speed(void) { return sm.speed; }
LAB_API float lab_sm_speed_seen(void) { return g_view[0].inst ? stance_instance_param(g_view[0].inst, sm.p_speed) : 0.0f; }
LAB_API int lab_sm_state_count(void) { return g_view[0].graph ? stance_graph_state_count(g_view[0].graph) : 0; }

/* The script for all six modes: the same JSON as `stance scenario --json
 * --blend-time B --easing E` on the built-in character. */
static char g_json[4096];
LAB_API const char *lab_scenario_json(float blend_time, int easing) {
    stance_error err = {0};
    if (!g_view[0].graph) { fail("not initialised"); return NULL; }
    if (!(blend_time > 0.0f && blend_time <= 10.0f)) { fail("blend time must be in (0, 10] s"); return NULL; }
    size_t at = (size_t)snprintf(g_json, sizeof g_json, "{\"graph\":\"built-in character\",\"blend_time_s\":%.3f,\"easing\":\"%s\",\"modes\":[",
                                 (double)blend_time, easing == STANCE_EASE_LINEAR ? "linear" : "smoothstep");
    for (int m = 0; m < STANCE_SCENARIO_MODES; m++) {
        stance_scenario_result r;
        if (stance_scenario_run(g_view[0].graph, stance_scenario_modes[m], blend_time, (stance_easing)easing, &r, NULL, NULL, &err)) {
            fail("scenario: %s", err.message);
            return NULL;
        }
        at += (size_t)snprintf(g_json + at, sizeof g_json - at,
                               "%s{\"mode\":\"%s\",\"worst_jump_cm\":%.2f,\"at_s\":%.3f,\"transition\":\"%s\",\"joint\":\"%s\","
                               "\"max_clips_sampled\":%d,\"transitions\":%d}",
                               m ? "," : "", stance_switch_mode_name(r.mode), (double)r.worst_jump_cm, (double)r.worst_at_s,
                               r.worst_transition, stance_skeleton_joint_name(g_builtin.skeleton, r.worst_joint),
                               r.max_clips_sampled, r.transitions);
        if (at >= sizeof g_json) { fail("scenario: JSON too long"); return NULL; }
    }
    snprintf(g_json + at, sizeof g_json - at, "]}");
    return g_json;
}

/* ---- view 1: layers -------------------------------------------------------- */

enum { MASK_OFF = 0, MASK_WHOLE, MASK_UPPER, MASK_ARM };
enum { L_BASE = 0, L_BREATHE, L_LEAN, L_WAVE };

static struct {
    int mask, space, base;
    float w_breathe, w_lean, w_wave;  /* effective weights (0 when off) */
    int p_base, wave_machine, arm, elbow;
    float mask_weights[STANCE_MAX_JOINTS];
    stance_pose wave_local, authored;  /* the wave clip as authored, at the layer's time */
    float angle, angle_max[LAB_WINDOW];
    int angle_count, angle_head;
} ly;

static int ly_build(void) {
    const stance_builtin *b = &g_builtin;
    const stance_skeleton *sk = b->skeleton;
    const stance_clip *idle = stance_builtin_clip(b, "idle"), *walk = stance_builtin_clip(b, "walk");
    const stance_clip *run = stance_builtin_clip(b, "run"), *wave = stance_builtin_clip(b, "wave");
    const stance_clip *lean = stance_builtin_clip(b, "lean"), *breathe = stance_builtin_clip(b, "breathe");
    stance_error err = {0};
    const float *mask = NULL;
    if (ly.mask == MASK_UPPER || ly.mask == MASK_ARM) {
        int root = stance_skeleton_find(sk, ly.mask == MASK_UPPER ? "spine" : "upperarm_r");
        if (stance_mask_subtree(sk, root, 1.0f, 0, ly.mask_weights, &err)) return fail("mask: %s", err.message);
        mask = ly.mask_weights;
    }
    const stance_param_desc params[] = {{"base", STANCE_PARAM_INT, (float)ly.base, 0.0f}};
    const stance_state_desc base_states[] = {
        {.name = "Idle", .clip = idle}, {.name = "Walk", .clip = walk}, {.name = "Run", .clip = run}};
    const stance_condition_desc c_base[3] = {{.param = "base", .op = STANCE_CMP_EQ, .value = 0.0f},
                                             {.param = "base", .op = STANCE_CMP_EQ, .value = 1.0f},
                                             {.param = "base", .op = STANCE_CMP_EQ, .value = 2.0f}};
    const stance_transition_desc base_trans[3] = {
        {.from = "*", .to = "Idle", .condition_count = 1, .conditions = &c_base[0], .blend_time = 0.3f},
        {.from = "*", .to = "Walk", .condition_count = 1, .conditions = &c_base[1], .blend_time = 0.3f},
        {.from = "*", .to = "Run", .condition_count = 1, .conditions = &c_base[2], .blend_time = 0.3f}};
    const char *entry = ly.base == 2 ? "Run" : ly.base == 1 ? "Walk" : "Idle";
    const stance_state_desc breathe_states[] = {{.name = "Breathe", .clip = breathe}};
    const stance_state_desc lean_states[] = {{.name = "Lean", .clip = lean, .once = 1}};
    const stance_state_desc wave_states[] = {{.name = "Wave", .clip = wave}};
    const stance_machine_desc machines[] = {
        {.name = "Base", .state_count = 3, .states = base_states, .entry = entry, .transition_count = 3, .transitions = base_trans},
        {.name = "Breathing", .state_count = 1, .states = breathe_states},
        {.name = "Leaning", .state_count = 1, .states = lean_states},
        {.name = "Waving", .state_count = 1, .states = wave_states},
    };
    /* the lesson's order: additives onto the base first, the masked override on top */
    const stance_layer_desc layers[] = {
        {.name = "base", .machine = "Base", .weight = 1.0f},
        {.name = "breathe", .machine = "Breathing", .weight = ly.w_breathe, .mode = STANCE_LAYER_ADDITIVE},
        {.name = "lean", .machine = "Leaning", .weight = ly.w_lean, .mode = STANCE_LAYER_ADDITIVE},
        {.name = "wave", .machine = "Waving", .weight = ly.mask == MASK_OFF ? 0.0f : ly.w_wave,
         .space = ly.space ? STANCE_SPACE_MESH : STANCE_SPACE_LOCAL, .mask = mask},
    };
    stance_graph_desc gd = {.skeleton = sk, .param_count = 1, .params = params, .machine_count = 4, .machines = machines,
                            .layer_count = 4, .layers = layers};
    stance_graph *g = NULL;
    if (stance_graph_create(&gd, NULL, &g, &err)) return fail("layer graph: %s", err.message);
    lab_view *v = &g_view[1];
    if (view_open(v, g, 1)) return -1;
    view_builtin_mesh(v);
    v->move_root = 1;
    v->height = rest_height(sk, v->side);
    v->feet[0] = stance_skeleton_find(sk, "foot_l");
    v->feet[1] = stance_skeleton_find(sk, "foot_r");
    ly.p_base = stance_graph_find_param(g, "base");
    ly.wave_machine = stance_graph_find_machine(g, "Waving");
    ly.angle_count = ly.angle_head = 0;
    return 0;
}

/* The wave clip as authored at the wave layer's playback time, and the
 * angle between its right upper arm and the output's. */
static void ly_measure(void) {
    lab_view *v = &g_view[1];
    const stance_clip *wave = stance_builtin_clip(&g_builtin, "wave");
    stance_machine_status ms;
    stance_instance_machine_status(v->inst, ly.wave_machine, &ms, NULL);
    float nt = ms.normalized_time - floorf(ms.normalized_time);
    /* the lesson library's measure (stance_layers_run's) */
    ly.angle = stance_arm_angle_to_clip(stance_instance_model_pose(v->inst), wave, nt * wave->duration, v->skeleton,
                                        ly.arm, ly.elbow, &ly.wave_local, &ly.authored);
    ly.angle_max[ly.angle_head] = ly.angle;
    ly.angle_head = (ly.angle_head + 1) % LAB_WINDOW;
    if (ly.angle_count < LAB_WINDOW) ly.angle_count++;
}

static int ly_open(void) {
    stance_error err = {0};
    const stance_skeleton *sk = g_builtin.skeleton;
    if (stance_pose_create(&ly.wave_local, sk->joint_count, NULL, &err) ||
        stance_pose_create(&ly.authored, sk->joint_count, NULL, &err))
        return fail("pose: %s", err.message);
    ly.arm = stance_skeleton_find(sk, "upperarm_r"), ly.elbow = stance_skeleton_find(sk, "forearm_r");
    ly.mask = MASK_ARM, ly.space = 0, ly.base = 2;
    ly.w_breathe = 0.0f, ly.w_lean = 0.0f, ly.w_wave = 1.0f;
    if (ly_build()) return -1;
    lab_update(g_view[1].inst, 0.0f, g_view[1].ws, NULL);
    track_frame(&g_view[1]);
    ly_measure();
    return 0;
}

/* mask: 0 off, 1 whole body, 2 upper body (from spine), 3 right arm (from
 * upperarm_r); space: 0 local, 1 mesh; base: 0 idle, 1 walk, 2 run.
 * A new mask or space rebuilds the graph (and restarts the instance). */
LAB_API int lab_ly_config(int mask, int space, int base) {
    if (mask < MASK_OFF || mask > MASK_ARM || (space != 0 && space != 1) || base < 0 || base > 2)
        return fail("layers: bad configuration %d %d %d", mask, space, base);
    int rebuild = mask != ly.mask || space != ly.space || !g_view[1].inst;
    ly.mask = mask, ly.space = space, ly.base = base;
    if (rebuild) {
        if (ly_build()) return -1;
        lab_update(g_view[1].inst, 0.0f, g_view[1].ws, NULL);
        track_frame(&g_view[1]);
        ly_measure();
    } else {
        stance_instance_set_int(g_view[1].inst, ly.p_base, base, NULL);
    }
    return 0;
}
/* Layer weights in [0, 1]; an additive that is off has weight 0. Fades over 0.2 s. */
LAB_API int lab_ly_weights(float breathe, float lean, float wave) {
    if (!(breathe >= 0.0f && breathe <= 1.0f && lean >= 0.0f && lean <= 1.0f && wave >= 0.0f && wave <= 1.0f))
        return fail("layers: weights must be in [0, 1]");
    ly.w_breathe = breathe, ly.w_lean = lean, ly.w_wave = wave;
    stance_instance *in = g_view[1].inst;
    if (!in) return fail("not initialised");
    stance_instance_set_layer_weight(in, L_BREATHE, breathe, 0.2f, NULL);
    stance_instance_set_layer_weight(in, L_LEAN, lean, 0.2f, NULL);
    stance_instance_set_layer_weight(in, L_WAVE, ly.mask == MASK_OFF ? 0.0f : wave, 0.2f, NULL);
    return 0;
}
LAB_API int lab_ly_step(float dt) {
    lab_view *v = &g_view[1];
    if (!v->inst) return fail("not initialised");
    if (!(dt >= 0.0f && dt <= 0.25f)) return fail("dt %g out of range", (double)dt);
    stance_error err;
    if (lab_update(v->inst, dt, v->ws, &err)) return fail("layers: %s", err.message);
    track_frame(v);
    ly_measure();
    stance_machine_status ms;
    stance_instance_machine_status(v->inst, stance_graph_layer_machine(v->graph, 0), &ms, NULL);
    return ms.state;
}
/* The right upper arm's angle to the wave as authored: now, and the largest over the last 4 s. */
LAB_API float lab_ly_arm_angle(void) { return ly.angle; }
LAB_API float lab_ly_arm_angle_max(void) {
    float m = 0.0f;
    for (int i = 0; i < ly.angle_count; i++)
        if (ly.angle_max[i] > m) m = ly.angle_max[i];
    return m;
}
LAB_API const float *lab_ly_authored(int axis) { return axis == 0 ? ly.authored.tx : axis == 1 ? ly.authored.ty : ly.authored.tz; }
LAB_API int lab_ly_arm(void) { return ly.arm; }
LAB_API int lab_ly_elbow(void) { return ly.elbow; }
LAB_API float lab_ly_layer_weight(int layer) { return g_view[1].inst ? stance_instance_layer_weight(g_view[1].inst, layer) : 0.0f; }

/* The lesson's layer experiments: the same JSON as `stance layers --json`. */
LAB_API const char *lab_layers_json(void) {
    stance_error err = {0};
    stance_layer_setup su;
    stance_layer_result r;
    if (stance_builtin_layer_setup(&g_builtin, &su, &err)) { fail("layers: %s", err.message); return NULL; }
    if (stance_layers_run(&su, &r, NULL, &err)) { fail("layers: %s", err.message); return NULL; }
    snprintf(g_json, sizeof g_json,
             "{\"graph\":\"built-in character\",\"foot_slide_cm_per_m\":{\"whole\":%.3f,\"upper\":%.3f},"
             "\"arm_angle_error_deg\":{\"local\":%.2f,\"local_lean\":%.2f,\"mesh\":%.3f,\"mesh_lean\":%.3f}}",
             (double)r.slide_whole, (double)r.slide_upper, (double)r.arm_local, (double)r.arm_local_lean,
             (double)r.arm_mesh, (double)r.arm_mesh_lean);
    return g_json;
}

/* ---- start ------------------------------------------------------------------ */

/* Creates the built-in character, the lesson graph instance and the layer
 * graph. 0 on success, else -1 (lab_error says why). */
LAB_API int lab_init(void) {
    if (g_ready) return 0;
    stance_error err = {0};
    if (stance_builtin_create(NULL, &g_builtin, &err)) return fail("built-in character: %s", err.message);
    if (sm_open() || ly_open()) return -1;
    g_ready = 1;
    return 0;
}
