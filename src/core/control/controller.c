/* src/core/control/controller.c - the gameplay controller over an instance:
 * set/reset by state id, exclusive priority layers with fades, one-shot
 * completion, controller events, hot reload. Owns its instance.
 *
 * The instance is the one owner of layer weights and their fades: the
 * controller only states targets (stance_instance_set_layer_weight with a
 * fade time) when what is visible changes, and reads the weights back. A
 * layer whose weight the graph binds to a parameter or a curve is turned
 * on and off instead (show), at once: its fades are its binding's. */
#include <stdio.h>
#include <string.h>

#include "core/base/internal.h"
#include "core/frame/workspace.h"
#include "core/graph/graph_curves.h"
#include "stance/controller.h"

#define CTL_MAX_EVENTS (2 * STANCE_EVENT_QUEUE)

struct stance_controller {
    const stance_graph *graph;
    stance_instance *inst;
    stance_allocator allocator;
    float fade_time;
    stance_switch_mode mode;
    int layer_count;
    unsigned char playing[STANCE_MAX_LAYERS];
    int visible;                          /* the visible exclusive layer */
    stance_event events[CTL_MAX_EVENTS];
    int event_count;
    float time;
    stance_event pending[16];             /* events raised by set/reset between updates */
    int pending_count;
    int ws_joints, ws_machines;           /* what the workspace of the last update serves (at creation: the graph's needs) */
};

static int exclusive(const stance_controller *c, int l) {
    return stance_graph_layer_mode(c->graph, l) == STANCE_LAYER_OVERRIDE;
}

static void push(stance_controller *c, stance_event_type type, int layer, int state) {
    stance_event e = {.type = type, .layer = layer, .machine = layer >= 0 ? stance_graph_layer_machine(c->graph, layer) : -1,
                      .state = state, .other = -1, .time = c->time,
                      .name = state >= 0 ? stance_graph_state_name(c->graph, state) : stance_graph_layer_name(c->graph, layer)};
    if (c->pending_count < 16) c->pending[c->pending_count++] = e;
}

static int layer_of_state(const stance_graph *g, int state) {
    int m = stance_graph_state_machine(g, state);
    for (int l = 0; l < stance_graph_layer_count(g); l++)
        if (stance_graph_layer_machine(g, l) == m) return l;
    return -1;
}

static int current_state(const stance_controller *c, int l) {
    stance_machine_status ms;
    if (stance_instance_machine_status(c->inst, stance_graph_layer_machine(c->graph, l), &ms, NULL)) return -1;
    return ms.state;
}

/* Layer l towards weight w over `fade` seconds; a bound layer (its weight
 * follows a parameter or curve, docs/curves.md) is enabled for w > 0 and
 * disabled for 0 instead. */
static void show(stance_controller *c, int l, float w, float fade) {
    if (gr_layer_drive(c->graph, l)) stance_instance_set_layer_enabled(c->inst, l, w > 0.0f, NULL);
    else stance_instance_set_layer_weight(c->inst, l, w, fade, NULL);
}

/* Picks the visible exclusive layer; when it changes, states the weight
 * targets: a higher layer fades in over the ones below, the layers above
 * a lower one fade out from over it (it shows at once underneath). */
static void choose_visible(stance_controller *c, float fade) {
    int v = 0;
    for (int l = 0; l < c->layer_count; l++)
        if (exclusive(c, l) && c->playing[l]) v = l;
    if (v == c->visible) return;
    push(c, STANCE_EVENT_LAYER_HIDDEN, c->visible, -1);
    push(c, STANCE_EVENT_LAYER_SHOWN, v, -1);
    c->visible = v;
    stance_instance_set_layer_enabled(c->inst, v, 1, NULL);
    for (int l = 1; l < c->layer_count; l++) {
        if (!exclusive(c, l)) continue;
        if (l == v) {
            float w = stance_instance_layer_weight(c->inst, l);
            int covered = 0; /* a layer above still shows: v can take its full weight underneath */
            for (int k = l + 1; k < c->layer_count; k++)
                if (exclusive(c, k) && stance_instance_layer_weight(c->inst, k) > 0.0f) covered = 1;
            show(c, l, 1.0f, covered || w >= 1.0f ? 0.0f : fade);
        } else if (l > v) {
            show(c, l, 0.0f, fade);
        }
    }
}

/* The share of an exclusive layer in the output: its weight times what
 * the exclusive layers above it leave (the shares sum to 1). */
static float share(const stance_controller *c, int l) {
    float w = l == 0 ? 1.0f : stance_instance_layer_weight(c->inst, l);
    for (int k = l + 1; k < c->layer_count; k++)
        if (exclusive(c, k)) w *= 1.0f - stance_instance_layer_weight(c->inst, k);
    return w;
}

stance_status stance_controller_create(const stance_graph *g, const stance_controller_desc *desc,
                                       const stance_allocator *allocator, stance_controller **out, stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "controller: out is NULL");
    *out = NULL;
    if (!g) return st_fail(err, STANCE_ERR_ARGUMENT, "controller: graph is NULL");
    if (st_check_allocator(allocator, "controller", err)) return STANCE_ERR_ARGUMENT; /* issue 12 */
    stance_controller_desc d = desc ? *desc : (stance_controller_desc){0};
    if (!st_finite(d.fade_time) || d.fade_time < 0.0f || d.fade_time > 60.0f)
        return st_fail(err, STANCE_ERR_VALUE, "controller: fade_time %g is not in [0, 60]", (double)d.fade_time);
    if ((unsigned)d.mode >= STANCE_SWITCH_MODE_COUNT) return st_fail(err, STANCE_ERR_ARGUMENT, "controller: unknown switch mode");
    const int L = stance_graph_layer_count(g);
    int last_priority = -2147483647;
    for (int l = 0; l < L; l++) {
        if (stance_graph_layer_mode(g, l) != STANCE_LAYER_OVERRIDE) continue;
        int p = stance_graph_layer_priority(g, l);
        if (l > 0 && p <= last_priority)
            return st_fail(err, STANCE_ERR_ORDER, "controller: layer '%s' (priority %d) comes after a layer of priority %d; "
                           "override layers must come in increasing priority", stance_graph_layer_name(g, l), p, last_priority);
        last_priority = p;
    }
    stance_allocator al = st_allocator(allocator);
    stance_controller *c = st_alloc(&al, sizeof *c, 64);
    if (!c) return st_fail(err, STANCE_ERR_MEMORY, "controller: out of memory");
    /* a controller that switches by a velocity mode keeps history on every layer's machine */
    const int velocity = d.mode == STANCE_SWITCH_INERTIALIZE || d.mode == STANCE_SWITCH_INERTIALIZE_SIMPLE ||
                         d.mode == STANCE_SWITCH_DEADBLEND;
    const stance_instance_desc idesc = {.history = velocity ? STANCE_HISTORY_ALL : STANCE_HISTORY_AUTO};
    stance_status s = stance_instance_create_ex(g, &idesc, &al, &c->inst, err);
    if (s) { st_free(&al, c, sizeof *c); return s; }
    c->graph = g;
    c->allocator = al;
    c->fade_time = d.fade_time > 0.0f ? d.fade_time : 0.25f;
    c->mode = d.mode;
    c->layer_count = L;
    c->ws_joints = stance_graph_skeleton(g)->joint_count, c->ws_machines = stance_graph_machine_count(g);
    for (int l = 0; l < L; l++) {
        c->playing[l] = l == 0 || stance_instance_layer_weight(c->inst, l) > 0.0f;
        if (!c->playing[l]) stance_instance_set_layer_enabled(c->inst, l, 0, NULL);
    }
    c->visible = 0;
    for (int l = 0; l < L; l++)
        if (exclusive(c, l) && c->playing[l]) c->visible = l;
    /* the visible layer shows at once, the other exclusive ones not; additive layers that play at full weight */
    for (int l = 1; l < L; l++)
        show(c, l, exclusive(c, l) ? (l == c->visible ? 1.0f : 0.0f) : (c->playing[l] ? 1.0f : 0.0f), 0.0f);
    *out = c;
    return st_ok(err);
}

void stance_controller_destroy(stance_controller *c) {
    if (!c) return;
    stance_allocator al = c->allocator;
    stance_instance_destroy(c->inst);
    st_free(&al, c, sizeof *c);
}

static float fade_of(const stance_controller *c, int state) {
    float f = stance_graph_state_fade_time(c->graph, state);
    return f > 0.0f ? f : c->fade_time;
}

stance_status stance_controller_set(stance_controller *c, int state, stance_error *err) {
    if (!c) return st_fail(err, STANCE_ERR_ARGUMENT, "controller is NULL");
    if (state < 0 || state >= stance_graph_state_count(c->graph))
        return st_fail(err, STANCE_ERR_NOT_FOUND, "set: state id %d is not in 0..%d", state, stance_graph_state_count(c->graph) - 1);
    int l = layer_of_state(c->graph, state);
    if (l < 0)
        return st_fail(err, STANCE_ERR_ARGUMENT, "set: state '%s' is inside a nested machine; set the state that holds it",
                       stance_graph_state_name(c->graph, state));
    float fade = fade_of(c, state);
    int cur = current_state(c, l);
    stance_status s;
    if (c->playing[l]) {
        if (cur == state && !stance_graph_state_once(c->graph, state)) return st_ok(err); /* already looping */
        if (cur != state) push(c, STANCE_EVENT_STATE_ENDED, l, cur);
        s = stance_instance_play(c->inst, state, c->mode, STANCE_EASE_SMOOTHSTEP, fade, err);
    } else {
        stance_instance_set_layer_enabled(c->inst, l, 1, NULL);
        s = stance_instance_play(c->inst, state, STANCE_SWITCH_CUT, STANCE_EASE_SMOOTHSTEP, 0.0f, err);
        c->playing[l] = 1;
    }
    if (s) return s;
    if (exclusive(c, l)) choose_visible(c, fade);
    else show(c, l, 1.0f, fade);
    return st_ok(err);
}

static void empty_layer(stance_controller *c, int l, int state, float fade) {
    c->playing[l] = 0;
    push(c, STANCE_EVENT_STATE_ENDED, l, state);
    if (exclusive(c, l)) choose_visible(c, fade);
    else show(c, l, 0.0f, fade);
}

stance_status stance_controller_reset(stance_controller *c, int state, stance_error *err) {
    if (!c) return st_fail(err, STANCE_ERR_ARGUMENT, "controller is NULL");
    if (state < 0 || state >= stance_graph_state_count(c->graph))
        return st_fail(err, STANCE_ERR_NOT_FOUND, "reset: state id %d is not in 0..%d", state, stance_graph_state_count(c->graph) - 1);
    int l = layer_of_state(c->graph, state);
    if (l < 0) return st_fail(err, STANCE_ERR_ARGUMENT, "reset: state '%s' is inside a nested machine", stance_graph_state_name(c->graph, state));
    if (l == 0) return st_fail(err, STANCE_ERR_ARGUMENT, "reset: '%s' is on the base layer, which always plays a state; set another one", stance_graph_state_name(c->graph, state));
    if (!c->playing[l] || current_state(c, l) != state) return st_ok(err); /* not playing: nothing to stop */
    empty_layer(c, l, state, fade_of(c, state));
    return st_ok(err);
}

stance_status stance_controller_set_float(stance_controller *c, int p, float v, stance_error *err) {
    return c ? stance_instance_set_float(c->inst, p, v, err) : st_fail(err, STANCE_ERR_ARGUMENT, "controller is NULL");
}
stance_status stance_controller_set_int(stance_controller *c, int p, int v, stance_error *err) {
    return c ? stance_instance_set_int(c->inst, p, v, err) : st_fail(err, STANCE_ERR_ARGUMENT, "controller is NULL");
}
stance_status stance_controller_set_bool(stance_controller *c, int p, int v, stance_error *err) {
    return c ? stance_instance_set_bool(c->inst, p, v, err) : st_fail(err, STANCE_ERR_ARGUMENT, "controller is NULL");
}
stance_status stance_controller_set_trigger(stance_controller *c, int p, stance_error *err) {
    return c ? stance_instance_set_trigger(c->inst, p, err) : st_fail(err, STANCE_ERR_ARGUMENT, "controller is NULL");
}

stance_status stance_controller_update(stance_controller *c, float dt, stance_workspace *ws, stance_error *err) {
    if (!c || !ws) return st_fail(err, STANCE_ERR_ARGUMENT, "controller update: %s is NULL", c ? "workspace" : "controller");
    if (!st_finite(dt) || dt < 0.0f || dt > 1.0f)
        return st_fail(err, STANCE_ERR_VALUE, "controller update: dt %g is not finite in [0, 1]", (double)dt);
    dt = st_step(dt); /* issue 12: the instance's dt contract */
    c->time += dt;
    stance_status s = stance_instance_update(c->inst, dt, ws, err);
    if (s) return s;
    c->ws_joints = ws->joint_cap, c->ws_machines = ws->machine_cap; /* what a reload is checked against */
    /* events: the set/reset ones first, then the instance's */
    c->event_count = 0;
    for (int i = 0; i < c->pending_count && c->event_count < CTL_MAX_EVENTS; i++) c->events[c->event_count++] = c->pending[i];
    c->pending_count = 0;
    int n;
    const stance_event *ev = stance_instance_events(c->inst, &n, NULL);
    for (int i = 0; i < n && c->event_count < CTL_MAX_EVENTS; i++) c->events[c->event_count++] = ev[i];
    /* one-shots that finished with nothing following empty their layer */
    for (int l = 1; l < c->layer_count; l++) {
        if (!c->playing[l]) continue;
        stance_machine_status ms;
        stance_instance_machine_status(c->inst, stance_graph_layer_machine(c->graph, l), &ms, NULL);
        int finished = 0;
        for (int i = 0; i < n; i++)
            if (ev[i].type == STANCE_EVENT_CLIP_FINISHED && ev[i].layer == l && ev[i].state == ms.state) finished = 1;
        if (finished && ms.transition < 0) {
            empty_layer(c, l, ms.state, fade_of(c, ms.state));
            for (int i = 0; i < c->pending_count && c->event_count < CTL_MAX_EVENTS; i++) c->events[c->event_count++] = c->pending[i];
            c->pending_count = 0;
        }
    }
    /* layers that are empty and faded out stop playing */
    for (int l = 1; l < c->layer_count; l++)
        if (!c->playing[l] && stance_instance_layer_weight(c->inst, l) <= 0.0f) stance_instance_set_layer_enabled(c->inst, l, 0, NULL);
    /* the ends of the windows those layers had open (appended to the instance's list) are this update's too */
    int n2;
    ev = stance_instance_events(c->inst, &n2, NULL);
    for (int i = n; i < n2 && c->event_count < CTL_MAX_EVENTS; i++) c->events[c->event_count++] = ev[i];
    return st_ok(err);
}

const stance_event *stance_controller_events(const stance_controller *c, int *count) {
    if (count) *count = c ? c->event_count : 0;
    return c ? c->events : NULL;
}
int stance_controller_visible_layer(const stance_controller *c) { return c ? c->visible : -1; }
int stance_controller_layer_playing(const stance_controller *c, int l) {
    return c && l >= 0 && l < c->layer_count ? c->playing[l] : 0;
}
float stance_controller_layer_weight(const stance_controller *c, int l) {
    if (!c || l < 0 || l >= c->layer_count) return 0.0f;
    return exclusive(c, l) ? share(c, l) : stance_instance_layer_weight(c->inst, l);
}
int stance_controller_layer_state(const stance_controller *c, int l) {
    if (!c || l < 0 || l >= c->layer_count || !c->playing[l]) return -1;
    return current_state(c, l);
}
stance_instance *stance_controller_instance(stance_controller *c) { return c ? c->inst : NULL; }
const stance_graph *stance_controller_graph(const stance_controller *c) { return c ? c->graph : NULL; }

/* The reload's workspace check (issue 22): the new graph must fit the
 * workspace the controller's updates use (ws, or NULL: what the workspace of
 * its last update serves); else STANCE_ERR_MEMORY, the reason in err and in
 * the report (the bytes a workspace for the graph needs), nothing changed. */
static stance_status reload_fits(const stance_controller *c, const stance_workspace *ws, const stance_graph *g,
                                 char *report, size_t cap, stance_error *err) {
    const int J = stance_graph_skeleton(g)->joint_count, M = stance_graph_machine_count(g);
    const int wj = ws ? ws->joint_cap : c->ws_joints, wm = ws ? ws->machine_cap : c->ws_machines;
    if (J <= wj && M <= wm) return STANCE_OK;
    const size_t need = stance_workspace_bytes(g);
    if (report && cap)
        snprintf(report, cap, "workspace too small: the new graph needs a workspace of %zu bytes (%d joints, %d machines; "
                 "stance_workspace_create from it), %s serves %d joints and %d machines; nothing changed", need, J, M,
                 ws ? "the one given" : "the one of the last update", wj, wm);
    return st_fail(err, STANCE_ERR_MEMORY, "reload: the new graph has %d joints and %d machines, %s serves %d and %d, so "
                   "every update would fail: a workspace for the new graph needs %zu bytes (stance_workspace_create from it, "
                   "then stance_controller_reload_ws with it); nothing changed", J, M,
                   ws ? "the workspace given" : "the workspace of the last update", wj, wm, need);
}

stance_status stance_controller_reload(stance_controller *c, const stance_graph *g, char *report, size_t cap,
                                       stance_error *err) {
    return stance_controller_reload_ws(c, g, NULL, report, cap, err);
}

stance_status stance_controller_reload_ws(stance_controller *c, const stance_graph *g, const stance_workspace *ws,
                                          char *report, size_t cap, stance_error *err) {
    if (!c || !g) return st_fail(err, STANCE_ERR_ARGUMENT, "reload: NULL argument");
    { /* issue 12: a reload keeps the skeleton (same joints, names and parents) */
        const stance_skeleton *a = stance_graph_skeleton(c->graph), *b = stance_graph_skeleton(g);
        int j = 0;
        if (a->joint_count == b->joint_count)
            while (j < a->joint_count && a->parents[j] == b->parents[j] &&
                   !strcmp(stance_skeleton_joint_name(a, j), stance_skeleton_joint_name(b, j))) j++;
        if (a->joint_count != b->joint_count || j < a->joint_count)
            return st_fail(err, STANCE_ERR_ARGUMENT,
                           "reload: the new graph animates another skeleton (%d joints, the controller's %d, "
                           "first difference at joint %d); nothing changed, create a new controller for it",
                           b->joint_count, a->joint_count, j);
    }
    stance_status s = reload_fits(c, ws, g, report, cap, err);
    if (s) return s;
    stance_controller *fresh = NULL;
    stance_controller_desc d = {c->fade_time, c->mode};
    s = stance_controller_create(g, &d, &c->allocator, &fresh, err);
    if (s) return s;
    stance_instance_transfer(fresh->inst, c->inst, report, cap, NULL); /* weights and their fades too */
    /* layers by name: what plays */
    for (int l = 0; l < fresh->layer_count; l++) {
        int o = stance_graph_find_layer(c->graph, stance_graph_layer_name(g, l));
        if (o < 0) continue;
        fresh->playing[l] = l == 0 || c->playing[o];
        stance_instance_set_layer_enabled(fresh->inst, l, fresh->playing[l] || stance_instance_layer_weight(c->inst, o) > 0.0f, NULL);
    }
    int v = 0;
    for (int l = 0; l < fresh->layer_count; l++)
        if (exclusive(fresh, l) && fresh->playing[l]) v = l;
    fresh->visible = v;
    fresh->time = c->time;
    /* swap contents: the caller's controller pointer stays valid; its old
     * instance is destroyed (poisoned in a debug build, see controller.h) */
    stance_instance *old_inst = c->inst;
    stance_allocator al = c->allocator;
    const int wj = ws ? ws->joint_cap : c->ws_joints, wm = ws ? ws->machine_cap : c->ws_machines;
    memcpy(c, fresh, sizeof *c);
    c->allocator = al;
    c->ws_joints = wj, c->ws_machines = wm;
    fresh->inst = old_inst;
    stance_controller_destroy(fresh);
    return st_ok(err);
}
