/* src/lesson/scenario.c - the lesson's transition experiment: the 13.5 s
 * script at 60 Hz, the jump at each switch against a copy of the instance
 * that starts no transition, the clips sampled per frame, and the
 * whole-transition smoothness (acceleration over each blend window against
 * the clips alone, overshoot past the target pose). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/base/internal.h"
#include "stance_lesson/lesson.h"

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

/* ---- whole-transition smoothness ------------------------------------------ */

typedef struct smooth {
    const stance_graph *g;
    int J, p_speed, p_jump, base_machine;
    const stance_scenario_script *script; /* NULL: the lesson's */
    int frames;                       /* the script's frame count */
    float blend;
    stance_instance *out, *old, *nxt; /* the output, the old state alone, the new state alone */
    stance_workspace *ws;             /* one workspace serves every instance of the run */
    float *ring;                      /* 3 instances x 3 frames x J x 3 */
    float *hist;                      /* the main run's last two frames: 2 x J x 3 */
    float *start;                     /* the window's first frame, output and new state: 2 x J x 3 */
    float *track;                     /* per frame: the output's largest acceleration */
} smooth;

static float *ring_at(smooth *sm, int who, int frame) {
    return sm->ring + ((size_t)who * 3 + (size_t)(frame % 3)) * (size_t)sm->J * 3;
}

static void store(float *dst, const stance_pose *m, int J) {
    for (int j = 0; j < J; j++) dst[3 * j] = m->tx[j], dst[3 * j + 1] = m->ty[j], dst[3 * j + 2] = m->tz[j];
}

/* largest |a - 2b + c| / dt^2 over the joints */
static float accel(const float *a, const float *b, const float *c, int J, float dt) {
    float best = 0.0f;
    for (int i = 0; i < 3 * J; i += 3) {
        float x = a[i] - 2.0f * b[i] + c[i], y = a[i + 1] - 2.0f * b[i + 1] + c[i + 1], z = a[i + 2] - 2.0f * b[i + 2] + c[i + 2];
        float v = x * x + y * y + z * z;
        if (v > best) best = v;
    }
    return sqrtf(best) / (dt * dt);
}

/* How far the output's offset from the new state's pose has crossed to the
 * other side: per joint, -(out - new) . unit(start offset), where the start
 * offset is the same difference on the window's first frame (joints that
 * start within 1 mm of the target are skipped); the largest over joints. */
static float overshoot(const float *o, const float *t, const float *o0, const float *t0, int J) {
    float best = 0.0f;
    for (int i = 0; i < 3 * J; i += 3) {
        float dx = o0[i] - t0[i], dy = o0[i + 1] - t0[i + 1], dz = o0[i + 2] - t0[i + 2];
        float len = sqrtf(dx * dx + dy * dy + dz * dz);
        if (!(len > 1e-3f)) continue;
        float past = -((o[i] - t[i]) * dx + (o[i + 1] - t[i + 1]) * dy + (o[i + 2] - t[i + 2]) * dz) / len;
        if (past > best) best = past;
    }
    return best;
}

/* A user script's changes on the frame starting at t: those whose time lies
 * in [t - 1e-4, t + dt - 1e-4) (the lesson's rule for its rows). */
static void script_inputs(const stance_graph *g, const stance_scenario_script *sc, stance_instance *inst, float t) {
    const float dt = 1.0f / 60.0f;
    int lo = 0, hi = sc->change_count; /* the first change whose frame is not past (times are sorted) */
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (t + 1e-4f >= sc->changes[mid].time + dt) lo = mid + 1;
        else hi = mid;
    }
    for (int i = lo; i < sc->change_count; i++) {
        const stance_scenario_change *c = &sc->changes[i];
        if (!(t + 1e-4f >= c->time)) break; /* a later frame's */
        switch (stance_graph_param_type(g, c->param)) {
        case STANCE_PARAM_FLOAT: stance_instance_set_float(inst, c->param, c->value, NULL); break;
        case STANCE_PARAM_INT: stance_instance_set_int(inst, c->param, (int)c->value, NULL); break;
        case STANCE_PARAM_BOOL: stance_instance_set_bool(inst, c->param, c->value != 0.0f, NULL); break;
        default: stance_instance_set_trigger(inst, c->param, NULL); break;
        }
    }
}

static void set_inputs(smooth *sm, stance_instance *inst, int frame) {
    if (sm->script) {
        script_inputs(sm->g, sm->script, inst, (float)frame / 60.0f);
        return;
    }
    float speed;
    int jump;
    stance_scenario_input((float)frame / 60.0f, &speed, &jump);
    stance_instance_set_float(inst, sm->p_speed, speed, NULL);
    if (jump) stance_instance_set_trigger(inst, sm->p_jump, NULL);
}

/* The transition that started on frame fs (pre: the instance before that
 * frame's update): plays the output, the old state alone and the new state
 * alone through the window and measures it into res. */
static void measure_window(smooth *sm, const stance_instance *pre, int fs, stance_scenario_result *res) {
    const float dt = 1.0f / 60.0f;
    const int J = sm->J, N = (int)(sm->blend / dt + 0.5f) > 0 ? (int)(sm->blend / dt + 0.5f) : 1;
    stance_instance_copy(sm->out, pre, NULL);
    stance_instance_copy(sm->old, pre, NULL);
    stance_instance_copy(sm->nxt, pre, NULL);
    /* a cut with the same blend time: exit-time transitions start as early */
    stance_instance_override_switch(sm->nxt, STANCE_SWITCH_CUT, sm->blend, -1, NULL);
    const int have_before = fs >= 2; /* the main run's frames fs-2 and fs-1 */
    if (have_before)
        for (int w = 0; w < 2; w++) {
            memcpy(ring_at(sm, w, fs - 2), sm->hist, sizeof(float) * 3 * (size_t)J);
            memcpy(ring_at(sm, w, fs - 1), sm->hist + 3 * J, sizeof(float) * 3 * (size_t)J);
        }
    float out_max = 0.0f, ref_max = 0.0f, over = 0.0f, over_at = 0.0f;
    int last = fs - 1; /* frames whose acceleration was measured: fs-1 (if have_before) .. last */
    for (int k = fs; k <= fs + N && k < sm->frames; k++) {
        set_inputs(sm, sm->out, k), set_inputs(sm, sm->old, k), set_inputs(sm, sm->nxt, k);
        stance_instance_update(sm->out, dt, sm->ws, NULL);
        if (k > fs) { /* a new transition ends this one's window */
            int n, stop = 0;
            const stance_event *ev = stance_instance_events(sm->out, &n, NULL);
            for (int i = 0; i < n; i++)
                if (ev[i].type == STANCE_EVENT_TRANSITION_STARTED && ev[i].machine == sm->base_machine) stop = 1;
            if (stop) break;
        }
        stance_instance_update_ex(sm->old, dt, STANCE_UPDATE_NO_TRANSITIONS, sm->ws, NULL);
        stance_instance_update_ex(sm->nxt, dt, k == fs ? 0u : STANCE_UPDATE_NO_TRANSITIONS, sm->ws, NULL);
        store(ring_at(sm, 0, k), stance_instance_model_pose(sm->out), J);
        store(ring_at(sm, 1, k), stance_instance_model_pose(sm->old), J);
        store(ring_at(sm, 2, k), stance_instance_model_pose(sm->nxt), J);
        if (k == fs) {
            memcpy(sm->start, ring_at(sm, 0, k), sizeof(float) * 3 * (size_t)J);
            memcpy(sm->start + 3 * J, ring_at(sm, 2, k), sizeof(float) * 3 * (size_t)J);
        }
        if (k < fs + N) {
            float o = overshoot(ring_at(sm, 0, k), ring_at(sm, 2, k), sm->start, sm->start + 3 * J, J);
            if (o > over) over = o, over_at = (float)(k + 1) * dt;
        }
        const int f = k - 1; /* the frame whose three-frame acceleration is now known */
        if (f >= fs || have_before) {
            float a = accel(ring_at(sm, 0, f - 1), ring_at(sm, 0, f), ring_at(sm, 0, k), J, dt);
            float b = accel(ring_at(sm, 1, f - 1), ring_at(sm, 1, f), ring_at(sm, 1, k), J, dt);
            sm->track[f] = a;
            if (a > out_max) out_max = a;
            if (b > ref_max) ref_max = b;
            if (f - 1 >= fs) {
                float c = accel(ring_at(sm, 2, f - 1), ring_at(sm, 2, f), ring_at(sm, 2, k), J, dt);
                if (c > ref_max) ref_max = c;
            }
            last = f;
        }
    }
    const float ref = ref_max > STANCE_SCENARIO_ACCEL_FLOOR ? ref_max : STANCE_SCENARIO_ACCEL_FLOOR;
    for (int f = have_before ? fs - 1 : fs; f <= last; f++) sm->track[f] /= ref;
    const float ratio = out_max / ref;
    if (ratio > res->accel_ratio) {
        res->accel_ratio = ratio, res->accel_at_s = (float)fs * dt;
        res->max_accel = out_max, res->ref_accel = ref_max;
    }
    if (over * 100.0f > res->overshoot_cm) res->overshoot_cm = over * 100.0f, res->overshoot_at_s = over_at;
}

/* ---- the runner: the script one frame at a time -------------------------- */

struct stance_scenario {
    const stance_graph *g;
    stance_allocator al;
    int p_speed, p_jump, base_machine;
    int frame;                        /* frames stepped since the (re)start */
    int by_hand;                      /* 1 once a step by hand was taken since the (re)start */
    float time;                       /* seconds stepped since the (re)start */
    stance_easing easing;
    stance_instance *inst, *shadow, *pre;
    smooth sm;
    size_t ring_bytes, hist_bytes, track_bytes;
    stance_scenario_result res;
};

void stance_scenario_destroy(stance_scenario *sc) {
    if (!sc) return;
    st_free(&sc->al, sc->sm.ring, sc->ring_bytes), st_free(&sc->al, sc->sm.hist, sc->hist_bytes);
    st_free(&sc->al, sc->sm.track, sc->track_bytes);
    stance_instance_destroy(sc->sm.out), stance_instance_destroy(sc->sm.old), stance_instance_destroy(sc->sm.nxt);
    stance_workspace_destroy(sc->sm.ws);
    stance_instance_destroy(sc->pre), stance_instance_destroy(sc->shadow), stance_instance_destroy(sc->inst);
    stance_allocator al = sc->al;
    st_free(&al, sc, sizeof *sc);
}

static stance_status check_switch(stance_switch_mode mode, float blend_time, stance_easing easing, stance_error *err) {
    if ((unsigned)mode >= STANCE_SWITCH_MODE_COUNT) return st_fail(err, STANCE_ERR_ARGUMENT, "scenario: unknown mode %d", (int)mode);
    if (!st_finite(blend_time) || blend_time < 0.0f || blend_time > 10.0f)
        return st_fail(err, STANCE_ERR_VALUE, "scenario: blend time %g is not in [0, 10] s", (double)blend_time);
    if (easing != STANCE_EASE_SMOOTHSTEP && easing != STANCE_EASE_LINEAR)
        return st_fail(err, STANCE_ERR_ARGUMENT, "scenario: unknown easing %d", (int)easing);
    return STANCE_OK;
}

/* A user script: duration, count, each change's time (sorted), parameter
 * and value. *first_float: the first float parameter it changes, or -1. */
static stance_status check_script(const stance_graph *g, const stance_scenario_script *sc, int *first_float, stance_error *err) {
    *first_float = -1;
    if (!st_finite(sc->duration) || !(sc->duration > 0.0f) || sc->duration > STANCE_SCENARIO_MAX_SECONDS)
        return st_fail(err, STANCE_ERR_VALUE, "scenario script: duration %g s is not in (0, %g]", (double)sc->duration,
                       (double)STANCE_SCENARIO_MAX_SECONDS);
    if (sc->change_count < 0 || sc->change_count > STANCE_SCENARIO_MAX_CHANGES || (sc->change_count > 0 && !sc->changes))
        return st_fail(err, STANCE_ERR_ARGUMENT, "scenario script: %d changes (0..%d, with changes not NULL)", sc->change_count,
                       STANCE_SCENARIO_MAX_CHANGES);
    const int np = stance_graph_param_count(g);
    for (int i = 0; i < sc->change_count; i++) {
        const stance_scenario_change *c = &sc->changes[i];
        if (!st_finite(c->time) || c->time < 0.0f || c->time > sc->duration)
            return st_fail(err, STANCE_ERR_VALUE, "scenario script: change %d: time %g is not in [0, %g] s", i, (double)c->time,
                           (double)sc->duration);
        if (i > 0 && c->time < sc->changes[i - 1].time)
            return st_fail(err, STANCE_ERR_VALUE, "scenario script: change %d: time %g is before change %d's (%g): sort them",
                           i, (double)c->time, i - 1, (double)sc->changes[i - 1].time);
        if (c->param < 0 || c->param >= np)
            return st_fail(err, STANCE_ERR_NOT_FOUND, "scenario script: change %d: parameter %d is not the graph's (0..%d)", i,
                           c->param, np - 1);
        const char *name = stance_graph_param_name(g, c->param);
        const stance_param_type ty = stance_graph_param_type(g, c->param);
        if (!st_finite(c->value))
            return st_fail(err, STANCE_ERR_VALUE, "scenario script: change %d ('%s' at %g s): the value is not finite", i, name,
                           (double)c->time);
        if (ty == STANCE_PARAM_INT && (c->value != floorf(c->value) || fabsf(c->value) > 2147483520.0f))
            return st_fail(err, STANCE_ERR_VALUE, "scenario script: change %d ('%s' at %g s): %g is not a whole number for an int "
                           "parameter", i, name, (double)c->time, (double)c->value);
        if (ty == STANCE_PARAM_BOOL && c->value != 0.0f && c->value != 1.0f)
            return st_fail(err, STANCE_ERR_VALUE, "scenario script: change %d ('%s' at %g s): %g is not 0 or 1 for a bool "
                           "parameter", i, name, (double)c->time, (double)c->value);
        if (ty == STANCE_PARAM_FLOAT && *first_float < 0) *first_float = c->param;
    }
    return STANCE_OK;
}

/* The measures start again; the switch stays. */
static void clear_measures(stance_scenario *sc) {
    const stance_scenario_result keep = sc->res;
    for (int f = 0; f < sc->sm.frames; f++) sc->sm.track[f] = -1.0f;
    memset(sc->sm.hist, 0, sc->hist_bytes);
    memset(&sc->res, 0, sizeof sc->res);
    sc->res.mode = keep.mode;
    sc->res.blend_time = keep.blend_time;
    snprintf(sc->res.worst_transition, sizeof sc->res.worst_transition, "none");
    sc->frame = 0, sc->by_hand = 0, sc->time = 0.0f;
}

stance_status stance_scenario_create(const stance_graph *g, const stance_scenario_desc *desc, const stance_allocator *allocator,
                                     stance_scenario **out, stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "scenario: out is NULL");
    *out = NULL;
    if (!g) return st_fail(err, STANCE_ERR_ARGUMENT, "scenario: graph is NULL");
    if (st_check_allocator(allocator, "scenario", err)) return STANCE_ERR_ARGUMENT;
    const stance_scenario_desc zero = {0};
    if (!desc) desc = &zero;
    stance_status s = check_switch(desc->mode, desc->blend_time, desc->easing, err);
    if (s) return s;
    int p_speed = stance_graph_find_param(g, "speed"), p_jump = stance_graph_find_param(g, "jump"), frames = STANCE_SCENARIO_FRAMES;
    if (desc->script) {
        if ((s = check_script(g, desc->script, &p_speed, err))) return s;
        p_jump = -1;
        frames = (int)(desc->script->duration * 60.0f + 0.5f);
        if (frames < 1) frames = 1;
    } else if (p_speed < 0 || stance_graph_param_type(g, p_speed) != STANCE_PARAM_FLOAT) {
        return st_fail(err, STANCE_ERR_NOT_FOUND, "scenario: the graph has no float parameter 'speed' (the lesson's "
                       "script drives 'speed' and 'jump'; give a script of your own parameters)");
    } else if (p_jump < 0 || stance_graph_param_type(g, p_jump) != STANCE_PARAM_TRIGGER) {
        return st_fail(err, STANCE_ERR_NOT_FOUND, "scenario: the graph has no trigger parameter 'jump' (the lesson's "
                       "script drives 'speed' and 'jump'; give a script of your own parameters)");
    }
    stance_scenario *sc = st_alloc(allocator, sizeof *sc, 16);
    if (!sc) return st_fail(err, STANCE_ERR_MEMORY, "scenario: out of memory");
    sc->al = st_allocator(allocator);
    const stance_allocator *al = &sc->al;
    sc->g = g, sc->p_speed = p_speed, sc->p_jump = p_jump, sc->easing = desc->easing;
    smooth *sm = &sc->sm;
    sm->g = g, sm->J = stance_graph_skeleton(g)->joint_count, sm->p_speed = p_speed, sm->p_jump = p_jump;
    sm->script = desc->script, sm->frames = frames;
    sc->ring_bytes = sizeof(float) * 9 * 3 * (size_t)sm->J, sc->hist_bytes = sizeof(float) * 12 * (size_t)sm->J;
    sc->track_bytes = sizeof(float) * (size_t)frames;
    /* every machine keeps history: the experiment switches any of them by any mode */
    const stance_instance_desc idesc = {.history = STANCE_HISTORY_ALL};
    s = stance_instance_create_ex(g, &idesc, al, &sc->inst, err);
    if (!s) s = stance_instance_create_ex(g, &idesc, al, &sc->shadow, err);
    if (!s) s = stance_instance_create_ex(g, &idesc, al, &sc->pre, err);
    if (!s) s = stance_instance_create_ex(g, &idesc, al, &sm->out, err);
    if (!s) s = stance_instance_create_ex(g, &idesc, al, &sm->old, err);
    if (!s) s = stance_instance_create_ex(g, &idesc, al, &sm->nxt, err);
    if (!s) s = stance_workspace_create(g, al, &sm->ws, err);
    if (!s) {
        sm->ring = st_alloc(al, sc->ring_bytes, 16), sm->hist = st_alloc(al, sc->hist_bytes, 16);
        if (sm->hist) sm->start = sm->hist + 6 * sm->J;
        sm->track = st_alloc(al, sc->track_bytes, 16);
        if (!sm->ring || !sm->hist || !sm->track) s = st_fail(err, STANCE_ERR_MEMORY, "scenario: out of memory");
    }
    if (s) {
        stance_scenario_destroy(sc);
        return s;
    }
    sc->res.mode = desc->mode;
    sc->res.blend_time = desc->blend_time > 0.0f ? desc->blend_time : 0.25f;
    clear_measures(sc);
    stance_instance_override_switch(sc->inst, (int)desc->mode, sc->res.blend_time, (int)desc->easing, NULL);
    sc->base_machine = stance_graph_layer_machine(g, 0);
    sm->base_machine = sc->base_machine, sm->blend = sc->res.blend_time;
    *out = sc;
    return st_ok(err);
}

stance_status stance_scenario_restart(stance_scenario *sc, stance_error *err) {
    if (!sc) return st_fail(err, STANCE_ERR_ARGUMENT, "scenario: runner is NULL");
    stance_status s = stance_instance_reset(sc->inst, NULL);
    if (s) return st_fail(err, s, "scenario: the instance does not reset");
    stance_instance_override_switch(sc->inst, (int)sc->res.mode, sc->res.blend_time, (int)sc->easing, NULL);
    clear_measures(sc);
    return st_ok(err);
}

stance_status stance_scenario_set_switch(stance_scenario *sc, stance_switch_mode mode, float blend_time, stance_easing easing,
                                         stance_error *err) {
    if (!sc) return st_fail(err, STANCE_ERR_ARGUMENT, "scenario: runner is NULL");
    stance_status s = check_switch(mode, blend_time, easing, err);
    if (s) return s;
    sc->res.mode = mode;
    sc->res.blend_time = blend_time > 0.0f ? blend_time : 0.25f;
    sc->easing = easing;
    sc->sm.blend = sc->res.blend_time;
    stance_instance_override_switch(sc->inst, (int)mode, sc->res.blend_time, (int)easing, NULL);
    return st_ok(err);
}

/* One update of the measured instance and its measures. by_hand: the
 * caller set the parameters and chose dt, and the blend-window measures are
 * not taken (they play the script ahead). */
static stance_status step(stance_scenario *sc, float t, float dt, float speed, int by_hand, stance_scenario_frame *frame,
                          stance_error *err) {
    stance_scenario_result *res = &sc->res;
    smooth *sm = &sc->sm;
    const int f = sc->frame;
    stance_instance_copy(sc->shadow, sc->inst, NULL);
    if (!by_hand) stance_instance_copy(sc->pre, sc->inst, NULL);
    stance_instance_update_ex(sc->shadow, dt, STANCE_UPDATE_NO_TRANSITIONS, sm->ws, NULL);
    stance_status s = stance_instance_update(sc->inst, dt, sm->ws, NULL);
    if (s) return st_fail(err, s, "scenario: update failed at %.3f s", (double)t);
    if (by_hand || sm->script) /* what the graph sees now */
        speed = sc->p_speed >= 0 ? stance_instance_param(sc->inst, sc->p_speed) : 0.0f;
    int n;
    const stance_event *ev = stance_instance_events(sc->inst, &n, NULL);
    float jump_cm = -1.0f;
    int jump_joint = -1, jump_from = -1, jump_to = -1;
    for (int i = 0; i < n; i++) {
        /* the base layer's transitions, at any nesting depth */
        if (ev[i].type != STANCE_EVENT_TRANSITION_STARTED || ev[i].layer != 0) continue;
        float d;
        int joint;
        stance_pose_distance(stance_instance_model_pose(sc->inst), stance_instance_model_pose(sc->shadow), &d, &joint, NULL);
        jump_cm = d * 100.0f;
        if (jump_joint < 0) jump_joint = joint, jump_from = ev[i].other, jump_to = ev[i].state;
        res->transitions++;
        if (jump_cm > res->worst_jump_cm || res->transitions == 1) {
            res->worst_jump_cm = jump_cm;
            res->worst_at_s = t + dt;
            res->worst_joint = joint;
            snprintf(res->worst_transition, sizeof res->worst_transition, "%s->%s",
                     stance_graph_state_name(sc->g, ev[i].other), stance_graph_state_name(sc->g, ev[i].state));
        }
        if (!by_hand) measure_window(sm, sc->pre, f, res);
    }
    /* the main run's last two frames, for the acceleration at a window's start */
    memmove(sm->hist, sm->hist + 3 * sm->J, sizeof(float) * 3 * (size_t)sm->J);
    store(sm->hist + 3 * sm->J, stance_instance_model_pose(sc->inst), sm->J);
    int clips = stance_instance_clips_sampled(sc->inst);
    if (clips > res->max_clips_sampled) res->max_clips_sampled = clips;
    if (frame) {
        stance_machine_status ms;
        stance_instance_machine_status(sc->inst, sc->base_machine, &ms, NULL);
        *frame = (stance_scenario_frame){t + dt, ms.state, ms.transition, ms.progress, jump_cm, clips, speed,
                                         by_hand || f >= sm->frames ? -1.0f : sm->track[f],
                                         jump_joint, jump_from, jump_to};
    }
    sc->frame++;
    sc->time = t + dt;
    return st_ok(err);
}

stance_status stance_scenario_step(stance_scenario *sc, stance_scenario_frame *frame, stance_error *err) {
    if (!sc) return st_fail(err, STANCE_ERR_ARGUMENT, "scenario: runner is NULL");
    if (sc->by_hand) return st_fail(err, STANCE_ERR_ARGUMENT, "scenario: stepped by hand since the start: restart the script first");
    if (sc->frame >= sc->sm.frames)
        return st_fail(err, STANCE_ERR_ARGUMENT, "scenario: the script's %d frames are done", sc->sm.frames);
    const float dt = 1.0f / 60.0f, t = (float)sc->frame * dt;
    float speed = 0.0f;
    if (sc->sm.script) {
        script_inputs(sc->g, sc->sm.script, sc->inst, t);
    } else {
        int jump;
        stance_scenario_input(t, &speed, &jump);
        stance_instance_set_float(sc->inst, sc->p_speed, speed, NULL);
        if (jump) stance_instance_set_trigger(sc->inst, sc->p_jump, NULL);
    }
    return step(sc, t, dt, speed, 0, frame, err);
}

stance_status stance_scenario_step_by_hand(stance_scenario *sc, float dt, stance_scenario_frame *frame, stance_error *err) {
    if (!sc) return st_fail(err, STANCE_ERR_ARGUMENT, "scenario: runner is NULL");
    if (!st_finite(dt) || dt < 0.0f || dt > 1.0f) return st_fail(err, STANCE_ERR_VALUE, "scenario: dt %g is not in [0, 1] s", (double)dt);
    sc->by_hand = 1;
    return step(sc, sc->time, dt, 0.0f, 1, frame, err);
}

stance_status stance_scenario_measures(const stance_scenario *sc, stance_scenario_result *result, stance_error *err) {
    if (!sc || !result) return st_fail(err, STANCE_ERR_ARGUMENT, "scenario: runner or result is NULL");
    *result = sc->res;
    return st_ok(err);
}

float stance_scenario_accel_ratio(const stance_scenario *sc, int frame) {
    return sc && frame >= 0 && frame < sc->frame && frame < sc->sm.frames && !sc->by_hand ? sc->sm.track[frame] : -1.0f;
}

int stance_scenario_frame_count(const stance_scenario *sc) { return sc ? sc->sm.frames : 0; }

int stance_scenario_frame_index(const stance_scenario *sc) { return sc ? sc->frame : 0; }
int stance_scenario_script_done(const stance_scenario *sc) { return !sc || sc->by_hand || sc->frame >= sc->sm.frames; }

stance_instance *stance_scenario_instance(stance_scenario *sc) { return sc ? sc->inst : NULL; }

stance_status stance_scenario_run_desc(const stance_graph *g, const stance_scenario_desc *desc, stance_scenario_result *res,
                                       stance_scenario_frame *frames, int frame_capacity, const stance_allocator *allocator,
                                       stance_error *err) {
    if (!g || !res) return st_fail(err, STANCE_ERR_ARGUMENT, "scenario: graph or result is NULL");
    stance_scenario *sc;
    stance_status s = stance_scenario_create(g, desc, allocator, &sc, err);
    if (s) return s;
    const int n = sc->sm.frames;
    if (frames && frame_capacity < n) {
        stance_scenario_destroy(sc);
        return st_fail(err, STANCE_ERR_ARGUMENT, "scenario: %d frame records for a script of %d frames", frame_capacity, n);
    }
    for (int f = 0; f < n && !s; f++) s = stance_scenario_step(sc, frames ? &frames[f] : NULL, err);
    if (!s) {
        stance_scenario_measures(sc, res, NULL);
        /* a window's first frame is measured as the window starts: the frame before it after its step */
        if (frames)
            for (int f = 0; f < n; f++) frames[f].accel_ratio = stance_scenario_accel_ratio(sc, f);
    }
    stance_scenario_destroy(sc);
    return s ? s : st_ok(err);
}

stance_status stance_scenario_run(const stance_graph *g, stance_switch_mode mode, float blend_time, stance_easing easing,
                                  stance_scenario_result *res, stance_scenario_frame *frames, const stance_allocator *allocator,
                                  stance_error *err) {
    const stance_scenario_desc desc = {.mode = mode, .blend_time = blend_time, .easing = easing};
    return stance_scenario_run_desc(g, &desc, res, frames, STANCE_SCENARIO_FRAMES, allocator, err);
}
