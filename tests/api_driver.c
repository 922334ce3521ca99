/* tests/api_driver.c - the random public-API driver (see api_driver.h):
 * byte source, update wrappers, invariants, graphs, and one random call with
 * the status its header promises. Expected statuses are computed here from
 * the documented contracts (instance.h, params.h, controller.h), not from the code. */
#include "api_driver.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#if defined(STANCE_HAVE_JANSSON)
#include "stance/graphfile.h"
#endif

/* ---- the update wrappers ---------------------------------------------------- */

/* Each thread keeps a few workspaces (nothing in one outlives an update, so
 * which one serves an update changes no result): the first that fits the
 * graph, else a new one made from it (replacing the oldest when all are
 * taken). drv_release_workspaces frees the calling thread's. */
#define DRV_WORKSPACES 4
static _Thread_local stance_workspace *drv_ws_[DRV_WORKSPACES];
static _Thread_local int drv_ws_next_;

static stance_workspace *drv_workspace(const stance_graph *g, stance_error *err) {
    if (!g) return NULL;
    for (int i = 0; i < DRV_WORKSPACES; i++)
        if (drv_ws_[i] && stance_workspace_fits(drv_ws_[i], g, NULL) == STANCE_OK) return drv_ws_[i];
    stance_workspace *ws = NULL;
    if (stance_workspace_create(g, NULL, &ws, err) != STANCE_OK) return NULL;
    stance_workspace_destroy(drv_ws_[drv_ws_next_]);
    drv_ws_[drv_ws_next_] = ws;
    drv_ws_next_ = (drv_ws_next_ + 1) % DRV_WORKSPACES;
    return ws;
}

void drv_release_workspaces(void) {
    for (int i = 0; i < DRV_WORKSPACES; i++) stance_workspace_destroy(drv_ws_[i]), drv_ws_[i] = NULL;
    drv_ws_next_ = 0;
}

stance_status drv_instance_update(stance_instance *inst, float dt, unsigned flags, stance_error *err) {
    if (!inst) return stance_instance_update_ex(inst, dt, flags, NULL, err); /* the NULL contract, unchanged */
    stance_workspace *ws = drv_workspace(stance_instance_graph(inst), err);
    if (!ws) return STANCE_ERR_MEMORY; /* err: the workspace's creation says why */
    return flags ? stance_instance_update_ex(inst, dt, flags, ws, err) : stance_instance_update(inst, dt, ws, err);
}
stance_status drv_controller_update(stance_controller *ctl, float dt, stance_error *err) {
    if (!ctl) return stance_controller_update(ctl, dt, NULL, err);
    stance_workspace *ws = drv_workspace(stance_controller_graph(ctl), err);
    if (!ws) return STANCE_ERR_MEMORY;
    return stance_controller_update(ctl, dt, ws, err);
}
stance_status drv_instance_play(stance_instance *inst, int state, stance_switch_mode mode, stance_easing easing,
                                float blend_time, stance_error *err) {
    return stance_instance_play(inst, state, mode, easing, blend_time, err);
}

/* ---- byte source ------------------------------------------------------------- */

static uint8_t next_byte(drv_src *s) {
    if (s->data) {
        if (s->pos < s->size) return s->data[s->pos++];
        s->exhausted = 1;
        return 0;
    }
    /* splitmix64 */
    uint64_t z = (s->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint8_t)((z ^ (z >> 31)) >> 56);
}

uint32_t drv_u32(drv_src *s) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v = (v << 8) | next_byte(s);
    return v;
}
static unsigned pick(drv_src *s, unsigned n) { return n ? next_byte(s) % n : 0; }

static float special(unsigned k) {
    static const float t[] = {0.0f, -0.0f, 1e-40f, -1e-40f, FLT_TRUE_MIN, 9.99e-7f, 1e-6f, 1.0000001e-6f,
                              1.0f, 1.0000001f, 0.99999994f, -1.0f, 60.0f, 60.000004f, 1e30f, -1e30f,
                              FLT_MAX, -FLT_MAX, 0.5f, 2.0f};
    const unsigned n = sizeof t / sizeof t[0];
    if (k < n) return t[k];
    switch (k - n) {
    case 0: return NAN;
    case 1: return INFINITY;
    default: return -INFINITY;
    }
}
#define SPECIALS 23

float drv_float(drv_src *s) {
    unsigned k = pick(s, 4);
    if (k == 0) return special(pick(s, SPECIALS));
    if (k == 1) { /* any bit pattern */
        uint32_t b = drv_u32(s);
        float f;
        memcpy(&f, &b, sizeof f);
        return f;
    }
    return ((float)(drv_u32(s) >> 8) / 16777216.0f) * 12.0f - 2.0f; /* -2..10 */
}

float drv_dt(drv_src *s) {
    unsigned k = pick(s, 8);
    if (k < 3) return 1.0f / 60.0f;
    if (k == 3) return 1.0f / 30.0f;
    if (k == 4) return (float)(drv_u32(s) >> 8) / 16777216.0f * 0.1f;
    if (k == 5) return drv_float(s);
    return special(pick(s, SPECIALS));
}

/* ---- invariants -------------------------------------------------------------- */

static int check_pose(const stance_pose *p, const char *what, char *why, size_t cap) {
    for (int j = 0; j < p->joint_count; j++) {
        const float v[10] = {p->tx[j], p->ty[j], p->tz[j], p->qx[j], p->qy[j], p->qz[j], p->qw[j], p->sx[j], p->sy[j], p->sz[j]};
        for (int c = 0; c < 10; c++)
            if (!isfinite(v[c])) {
                snprintf(why, cap, "%s pose: joint %d channel %d is %g", what, j, c, (double)v[c]);
                return 1;
            }
        double n = sqrt((double)v[3] * v[3] + (double)v[4] * v[4] + (double)v[5] * v[5] + (double)v[6] * v[6]);
        if (fabs(n - 1.0) > 1e-4) {
            snprintf(why, cap, "%s pose: joint %d quaternion has length %.7f", what, j, n);
            return 1;
        }
    }
    return 0;
}

int drv_check_instance(const stance_instance *inst, char *why, size_t cap) {
    if (check_pose(stance_instance_local_pose(inst), "local", why, cap)) return 1;
    if (check_pose(stance_instance_model_pose(inst), "model", why, cap)) return 1;
    /* the instance's graph is not reachable from the public API without a
     * const cast; layer weights are read through the controller or the
     * caller's graph (drv_step knows it) */
    float r[3];
    stance_instance_root_motion(inst, r);
    for (int k = 0; k < 3; k++)
        if (!isfinite(r[k])) { snprintf(why, cap, "root motion %d is %g", k, (double)r[k]); return 1; }
    if (!isfinite(stance_instance_time(inst))) { snprintf(why, cap, "instance time is not finite"); return 1; }
    return 0;
}

static int check_layers(const stance_instance *inst, const stance_graph *g, char *why, size_t cap) {
    for (int l = 0; l < stance_graph_layer_count(g); l++) {
        float w = stance_instance_layer_weight(inst, l);
        if (!(w >= 0.0f && w <= 1.0f)) { snprintf(why, cap, "layer %d weight %g is not in [0, 1]", l, (double)w); return 1; }
    }
    for (int p = 0; p < stance_graph_param_count(g); p++)
        if (!isfinite(stance_instance_param(inst, p))) { snprintf(why, cap, "parameter %d is not finite", p); return 1; }
    int n = -1, dropped = -1;
    const stance_event *ev = stance_instance_events(inst, &n, &dropped);
    if (n < 0 || n > STANCE_EVENT_QUEUE || dropped < 0 || (n > 0 && !ev)) { snprintf(why, cap, "events: count %d, dropped %d", n, dropped); return 1; }
    for (int i = 0; i < n; i++)
        if (!ev[i].name || ev[i].state < -1 || ev[i].state >= stance_graph_state_count(g) || ev[i].layer < -1 ||
            ev[i].layer >= stance_graph_layer_count(g) || !isfinite(ev[i].time)) {
            snprintf(why, cap, "event %d (type %d): state %d, layer %d", i, (int)ev[i].type, ev[i].state, ev[i].layer);
            return 1;
        }
    for (int m = 0; m < stance_graph_machine_count(g); m++) {
        stance_machine_status ms;
        stance_error e;
        if (stance_instance_machine_status(inst, m, &ms, &e)) { snprintf(why, cap, "machine %d status refused: %s", m, e.message); return 1; }
        if (!(ms.progress >= 0.0f && ms.progress <= 1.0f + 1e-6f) || !isfinite(ms.state_time) || !isfinite(ms.normalized_time)) {
            snprintf(why, cap, "machine %d status: progress %g, time %g, normalized %g", m, (double)ms.progress,
                     (double)ms.state_time, (double)ms.normalized_time);
            return 1;
        }
    }
    return 0;
}

int drv_check_controller(const stance_controller *ctl, char *why, size_t cap) {
    const stance_graph *g = stance_controller_graph(ctl);
    const stance_instance *inst = stance_controller_instance((stance_controller *)ctl);
    if (drv_check_instance(inst, why, cap) || check_layers(inst, g, why, cap)) return 1;
    double sum = 0.0;
    for (int l = 0; l < stance_graph_layer_count(g); l++) {
        float w = stance_controller_layer_weight(ctl, l);
        if (!(w >= 0.0f && w <= 1.0f)) { snprintf(why, cap, "controller layer %d weight %g is not in [0, 1]", l, (double)w); return 1; }
        if (stance_graph_layer_mode(g, l) == STANCE_LAYER_OVERRIDE) sum += w;
    }
    if (fabs(sum - 1.0) > 1e-4) { snprintf(why, cap, "exclusive layers' weights sum to %.7f", sum); return 1; }
    return 0;
}

uint64_t drv_hash_pose(uint64_t h, const stance_pose *p) {
    const float *ch[10] = {p->tx, p->ty, p->tz, p->qx, p->qy, p->qz, p->qw, p->sx, p->sy, p->sz};
    for (int c = 0; c < 10; c++)
        for (int j = 0; j < p->joint_count; j++) {
            uint32_t b;
            memcpy(&b, &ch[c][j], sizeof b);
            for (int k = 0; k < 4; k++) h = (h ^ ((b >> (8 * k)) & 0xffu)) * 0x100000001B3ull;
        }
    return h;
}
static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001B3ull; }

/* ---- graphs -------------------------------------------------------------------- */

stance_status drv_graphs_load(drv_graphs *g, const char *source_dir, const char *which, stance_error *err) {
    memset(g, 0, sizeof *g);
    stance_status s = stance_builtin_create(NULL, &g->builtin, err);
    if (s) return s;
    s = stance_builtin_lesson_graph(&g->builtin, NULL, &g->lesson, err);
    if (s) { stance_builtin_destroy(&g->builtin); return s; }
    g->graph[0] = g->lesson, g->name[0] = "builtin lesson graph", g->count = 1;
#if defined(STANCE_HAVE_JANSSON)
    static const char *const files[] = {"builtin.json", "bullet_waste.json", "robot.json", "robot_controller.json",
                                        "builtin_ik.json", "robot_footlock.json"};
    for (int i = 0; i < 6 && g->count < DRV_MAX_GRAPHS; i++) {
        if (which && !strstr(files[i], which)) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/graphs/%s", source_dir ? source_dir : ".", files[i]);
        stance_graphfile *gf = NULL;
        stance_error e2;
        if (stance_graphfile_load(path, NULL, &gf, &e2)) continue; /* robot*.json without assimp or data */
        g->files[g->file_count++] = gf;
        g->graph[g->count] = stance_graphfile_graph(gf), g->name[g->count] = files[i];
        g->count++;
    }
#else
    (void)source_dir, (void)which;
#endif
    return STANCE_OK;
}

void drv_graphs_free(drv_graphs *g) {
#if defined(STANCE_HAVE_JANSSON)
    for (int i = 0; i < g->file_count; i++) stance_graphfile_destroy(g->files[i]);
#endif
    stance_graph_destroy(g->lesson);
    stance_builtin_destroy(&g->builtin);
    memset(g, 0, sizeof *g);
}

/* ---- contracts ------------------------------------------------------------------ */

static int dt_ok(float dt) { return isfinite(dt) && dt >= 0.0f && dt <= 1.0f; }

static int same_skeleton(const stance_skeleton *a, const stance_skeleton *b) {
    if (a->joint_count != b->joint_count) return 0;
    for (int j = 0; j < a->joint_count; j++)
        if (a->parents[j] != b->parents[j] || strcmp(stance_skeleton_joint_name(a, j), stance_skeleton_joint_name(b, j)))
            return 0;
    return 1;
}

/* controller.h: override layers must come in increasing priority */
static int priorities_ok(const stance_graph *g) {
    int seen = 0, last = 0;
    for (int l = 0; l < stance_graph_layer_count(g); l++) {
        if (stance_graph_layer_mode(g, l) != STANCE_LAYER_OVERRIDE) continue;
        int p = stance_graph_layer_priority(g, l);
        if (seen && p <= last) return 0;
        seen = 1, last = p;
    }
    return 1;
}

/* the layer whose machine holds the state directly, or -1 (nested) */
static int layer_of(const stance_graph *g, int state) {
    int m = stance_graph_state_machine(g, state);
    for (int l = 0; l < stance_graph_layer_count(g); l++)
        if (stance_graph_layer_machine(g, l) == m) return l;
    return -1;
}

static int fail(drv_world *w, const char *call, stance_status got, int want_ok, const stance_error *err) {
    snprintf(w->failure, sizeof w->failure, "call %ld: %s returned %s (%s), the contract says %s", w->calls, call,
             stance_status_name(got), err && err->message[0] ? err->message : "no message",
             want_ok ? "ok" : "a refusal");
    return 1;
}

/* The status must be what the contract says; a refusal carries a message when err is given. */
static int expect(drv_world *w, const char *call, stance_status got, int want_ok, const stance_error *err) {
    w->checksum = mix(w->checksum, (uint64_t)got + 1);
    if ((got == STANCE_OK) != (want_ok != 0)) return fail(w, call, got, want_ok, err);
    if (got != STANCE_OK) {
        w->refused++;
        if (err && (err->status != got || !err->message[0])) {
            snprintf(w->failure, sizeof w->failure, "call %ld: %s refused (%s) without its message", w->calls, call,
                     stance_status_name(got));
            return 1;
        }
    }
    return 0;
}

static int after_instance_update(drv_world *w, int slot, const char *call) {
    stance_instance *inst = w->inst[slot];
    char why[256];
    if (drv_check_instance(inst, why, sizeof why) ||
        check_layers(inst, w->graphs->graph[w->inst_graph[slot]], why, sizeof why)) {
        snprintf(w->failure, sizeof w->failure, "call %ld: after %s on %s: %s", w->calls, call,
                 w->graphs->name[w->inst_graph[slot]], why);
        return 1;
    }
    w->updates++;
    w->checksum = drv_hash_pose(w->checksum, stance_instance_model_pose(inst));
    return 0;
}

static int after_controller_update(drv_world *w, int slot) {
    char why[256];
    if (drv_check_controller(w->ctl[slot], why, sizeof why)) {
        snprintf(w->failure, sizeof w->failure, "call %ld: after controller update on %s: %s", w->calls,
                 w->graphs->name[w->ctl_graph[slot]], why);
        return 1;
    }
    w->updates++;
    w->checksum = drv_hash_pose(w->checksum, stance_instance_model_pose(stance_controller_instance(w->ctl[slot])));
    return 0;
}

/* ---- the random calls ------------------------------------------------------------ */

void drv_world_init(drv_world *w, const drv_graphs *graphs) {
    memset(w, 0, sizeof *w);
    w->graphs = graphs;
    w->checksum = 0xCBF29CE484222325ull;
}

void drv_world_free(drv_world *w) {
    for (int i = 0; i < DRV_SLOTS; i++) {
        stance_instance_destroy(w->inst[i]);
        stance_controller_destroy(w->ctl[i]);
        w->inst[i] = NULL, w->ctl[i] = NULL;
    }
}

/* an index that is usually valid, sometimes just out of range, rarely wild */
static int any_index(drv_src *s, int n) {
    unsigned k = pick(s, 16);
    if (k == 0) return -1;
    if (k == 1) return n;
    if (k == 2) return (int)drv_u32(s);
    return n > 0 ? (int)pick(s, 255) % n : 0;
}

/* an int value for set_int and set_bool: usually 0 or 1, sometimes small,
 * sometimes at or past +-STANCE_PARAM_INT_MAX, rarely any 32 bits */
static int drv_int(drv_src *s) {
    unsigned k = pick(s, 8);
    if (k < 3) return (int)pick(s, 2);
    if (k < 5) return (int)pick(s, 200) - 100;
    if (k == 5) return (pick(s, 2) ? 1 : -1) * (STANCE_PARAM_INT_MAX + (int)pick(s, 3) - 1);
    return (int)drv_u32(s);
}
/* params.h's contracts of the values, independent of the code: set_float
 * takes float and int parameters, finite values, an int parameter's
 * rounded-down value within +-STANCE_PARAM_INT_MAX; set_int takes both
 * types, values within +-STANCE_PARAM_INT_MAX */
static int float_ok(stance_param_type t, float v) {
    if (t == STANCE_PARAM_FLOAT) return isfinite(v);
    return t == STANCE_PARAM_INT && isfinite(v) && fabs(floor((double)v)) <= STANCE_PARAM_INT_MAX;
}
static int int_ok(stance_param_type t, int v) {
    return (t == STANCE_PARAM_FLOAT || t == STANCE_PARAM_INT) && v >= -STANCE_PARAM_INT_MAX && v <= STANCE_PARAM_INT_MAX;
}

enum {
    OP_CREATE, OP_DESTROY, OP_SET_FLOAT, OP_SET_INT, OP_SET_BOOL, OP_SET_TRIGGER, OP_BY_NAME, OP_UPDATE, OP_UPDATE_NT,
    OP_PLAY, OP_LAYER_WEIGHT, OP_LAYER_ENABLED, OP_OVERRIDE, OP_RESET, OP_COPY, OP_TRANSFER,
    OP_CTL_CREATE, OP_CTL_DESTROY, OP_CTL_SET, OP_CTL_RESET, OP_CTL_PARAM, OP_CTL_UPDATE, OP_CTL_RELOAD,
    OP_CTL_INSTANCE, /* an instance call on the controller's own instance (stance_controller_instance) */
    OP_IK_TARGET, OP_IK_POLE, OP_SET_ROOT, OP_GROUND,
    OP_COUNT
};
/* how often each call comes (updates dominate, as in a game) */
static const unsigned char op_weight[OP_COUNT] = {2, 1, 4, 2, 2, 3, 2, 14, 2, 5, 3, 2, 1, 1, 1, 1,
                                                  2, 1, 5, 3, 3, 14, 1, 3, 3, 2, 2, 1};

static int pick_op(drv_src *s) {
    unsigned total = 0;
    for (int i = 0; i < OP_COUNT; i++) total += op_weight[i];
    unsigned r = (unsigned)(((uint64_t)drv_u32(s) * total) >> 32);
    for (int i = 0; i < OP_COUNT; i++) {
        if (r < op_weight[i]) return i;
        r -= op_weight[i];
    }
    return OP_UPDATE;
}

static int instance_call(drv_world *w, drv_src *s, int op, stance_instance *inst, const stance_graph *g);

/* A ground callback answering the height the world holds for the instance. */
static float drv_ground(void *user, float x, float z) {
    (void)x, (void)z;
    return *(const float *)user;
}

static int step_instance(drv_world *w, drv_src *s, int op, int slot) {
    const drv_graphs *G = w->graphs;
    stance_error err;
    memset(&err, 0, sizeof err);
    if (op == OP_CREATE) {
        int gi = (int)pick(s, (unsigned)G->count);
        stance_instance_destroy(w->inst[slot]);
        w->inst[slot] = NULL;
        stance_status st = stance_instance_create(G->graph[gi], NULL, &w->inst[slot], &err);
        w->inst_graph[slot] = gi;
        if (expect(w, "instance_create", st, 1, &err)) return 1;
        return after_instance_update(w, slot, "instance_create"); /* the rest pose holds the invariants too */
    }
    stance_instance *inst = w->inst[slot];
    if (!inst) return 0;
    const stance_graph *g = G->graph[w->inst_graph[slot]];
    switch (op) {
    case OP_DESTROY:
        stance_instance_destroy(inst);
        w->inst[slot] = NULL;
        return 0;
    case OP_UPDATE: case OP_UPDATE_NT: {
        float dt = drv_dt(s);
        stance_status st = drv_instance_update(inst, dt, op == OP_UPDATE_NT ? STANCE_UPDATE_NO_TRANSITIONS : 0, &err);
        if (expect(w, "instance_update", st, dt_ok(dt), &err)) return 1;
        return st == STANCE_OK ? after_instance_update(w, slot, "instance_update") : 0;
    }
    case OP_RESET:
        if (expect(w, "instance_reset", stance_instance_reset(inst, &err), 1, &err)) return 1;
        return after_instance_update(w, slot, "instance_reset");
    case OP_COPY: case OP_TRANSFER: {
        int o = (int)pick(s, DRV_SLOTS);
        if (!w->inst[o]) return 0;
        if (op == OP_COPY) {
            int ok = w->inst_graph[o] == w->inst_graph[slot] || G->graph[w->inst_graph[o]] == g;
            stance_status st = stance_instance_copy(inst, w->inst[o], &err);
            if (expect(w, "instance_copy", st, ok, &err)) return 1;
            if (st == STANCE_OK && o != slot) { /* instance.h: the whole state: both go on the same from here */
                float dt = drv_dt(s);
                stance_status a = drv_instance_update(inst, dt, 0, &err);
                if (expect(w, "instance_update", a, dt_ok(dt), &err)) return 1;
                stance_status b = drv_instance_update(w->inst[o], dt, 0, &err);
                if (expect(w, "instance_update", b, dt_ok(dt), &err)) return 1;
                uint64_t ha = drv_hash_pose(1, stance_instance_model_pose(inst)), hb = drv_hash_pose(1, stance_instance_model_pose(w->inst[o]));
                if (ha != hb) {
                    snprintf(w->failure, sizeof w->failure, "call %ld: a copy and its source differ after one update", w->calls);
                    return 1;
                }
            }
        } else {
            char report[128];
            if (expect(w, "instance_transfer", stance_instance_transfer(inst, w->inst[o], report, sizeof report, &err), 1, &err)) return 1;
        }
        return 0;
    }
    case OP_GROUND: { /* the ground under the feet: any height, NaN and infinities too, or flat (NULL) */
        w->ground[slot] = pick(s, 2) ? drv_float(s) : (float)pick(s, 5) * 0.1f - 0.2f;
        const int flat = pick(s, 4) == 0;
        return expect(w, "instance_set_ground", stance_instance_set_ground(inst, flat ? NULL : drv_ground, &w->ground[slot], &err), 1, &err);
    }
    default:
        return instance_call(w, s, op, inst, g);
    }
}

/* The instance calls that need only the instance and its graph. */
static int instance_call(drv_world *w, drv_src *s, int op, stance_instance *inst, const stance_graph *g) {
    stance_error err;
    memset(&err, 0, sizeof err);
    const int np = stance_graph_param_count(g), ns = stance_graph_state_count(g), nl = stance_graph_layer_count(g);
    switch (op) {
    case OP_SET_FLOAT: case OP_SET_INT: case OP_SET_BOOL: case OP_SET_TRIGGER: {
        int p = any_index(s, np);
        float v = drv_float(s);
        int iv = drv_int(s);
        int in = p >= 0 && p < np;
        stance_param_type t = in ? stance_graph_param_type(g, p) : STANCE_PARAM_FLOAT;
        stance_status st;
        int ok;
        if (op == OP_SET_FLOAT) {
            st = stance_instance_set_float(inst, p, v, &err);
            ok = in && float_ok(t, v);
        } else if (op == OP_SET_INT) {
            st = stance_instance_set_int(inst, p, iv, &err);
            ok = in && int_ok(t, iv);
        } else if (op == OP_SET_BOOL) {
            st = stance_instance_set_bool(inst, p, iv, &err);
            ok = in && t == STANCE_PARAM_BOOL && (iv == 0 || iv == 1);
        } else {
            st = stance_instance_set_trigger(inst, p, &err);
            ok = in && t == STANCE_PARAM_TRIGGER;
        }
        return expect(w, "instance_set_<param>", st, ok, &err);
    }
    case OP_BY_NAME: { /* params.h: each by-name call is its by-index one after the lookup */
        int p = (int)pick(s, (unsigned)np + 1);
        const char *name = p < np ? stance_graph_param_name(g, p) : pick(s, 8) ? "no such parameter" : NULL;
        const int known = p < np;
        const stance_param_type t = known ? stance_graph_param_type(g, p) : STANCE_PARAM_FLOAT;
        const float v = drv_float(s);
        const int iv = drv_int(s);
        switch (pick(s, 5)) {
        case 0: return expect(w, "instance_set_float_by_name", stance_instance_set_float_by_name(inst, name, v, &err),
                              known && float_ok(t, v), &err);
        case 1: return expect(w, "instance_set_int_by_name", stance_instance_set_int_by_name(inst, name, iv, &err),
                              known && int_ok(t, iv), &err);
        case 2: return expect(w, "instance_set_bool_by_name", stance_instance_set_bool_by_name(inst, name, iv, &err),
                              known && t == STANCE_PARAM_BOOL && (iv == 0 || iv == 1), &err);
        case 3: return expect(w, "instance_set_trigger_by_name", stance_instance_set_trigger_by_name(inst, name, &err),
                              known && t == STANCE_PARAM_TRIGGER, &err);
        default: {
            float got = -1.0f;
            stance_status st = stance_instance_param_by_name(inst, name, &got, &err);
            if (expect(w, "instance_param_by_name", st, known, &err)) return 1;
            if (st == STANCE_OK && memcmp(&got, &(float){stance_instance_param(inst, p)}, sizeof got)) {
                snprintf(w->failure, sizeof w->failure, "call %ld: param_by_name('%s') differs from param(%d)", w->calls,
                         name, p);
                return 1;
            }
            return 0;
        }
        }
    }
    case OP_PLAY: {
        int state = any_index(s, ns);
        int mode = pick(s, 12) ? (int)pick(s, STANCE_SWITCH_MODE_COUNT) : (int)pick(s, 255) - 100;
        int easing = pick(s, 12) ? (int)pick(s, 2) : 7;
        float blend = pick(s, 2) ? drv_float(s) : 0.3f;
        stance_status st = drv_instance_play(inst, state, (stance_switch_mode)mode, (stance_easing)easing, blend, &err);
        int ok = state >= 0 && state < ns && mode >= 0 && mode < STANCE_SWITCH_MODE_COUNT && easing >= 0 &&
                 easing <= STANCE_EASE_LINEAR && isfinite(blend) && blend <= 60.0f;
        return expect(w, "instance_play", st, ok, &err);
    }
    case OP_LAYER_WEIGHT: {
        int l = any_index(s, nl);
        float wt = pick(s, 2) ? drv_float(s) : (float)pick(s, 5) * 0.25f, fade = pick(s, 2) ? drv_float(s) : 0.2f;
        stance_status st = stance_instance_set_layer_weight(inst, l, wt, fade, &err);
        int ok = l >= 0 && l < nl && isfinite(wt) && wt >= 0.0f && wt <= 1.0f && isfinite(fade) && fade >= 0.0f &&
                 fade <= 60.0f && (l != 0 || wt == 1.0f);
        return expect(w, "instance_set_layer_weight", st, ok, &err);
    }
    case OP_LAYER_ENABLED: {
        int l = any_index(s, nl), on = (int)pick(s, 2);
        int ok = l >= 0 && l < nl && (l != 0 || on);
        return expect(w, "instance_set_layer_enabled", stance_instance_set_layer_enabled(inst, l, on, &err), ok, &err);
    }
    case OP_OVERRIDE: {
        int mode = (int)pick(s, STANCE_SWITCH_MODE_COUNT + 2) - 1, easing = (int)pick(s, 4) - 1;
        float blend = pick(s, 2) ? drv_float(s) : 0.0f;
        int ok = mode < STANCE_SWITCH_MODE_COUNT && easing <= STANCE_EASE_LINEAR && isfinite(blend) && blend <= 60.0f;
        return expect(w, "instance_override_switch", stance_instance_override_switch(inst, mode, blend, easing, &err), ok, &err);
    }
    case OP_IK_TARGET: case OP_IK_POLE: {
        const int ni = stance_graph_ik_count(g), ik = any_index(s, ni), kind = stance_graph_ik_kind(g, ik);
        float v[3] = {drv_float(s), drv_float(s), drv_float(s)};
        if (pick(s, 3)) /* mostly near the character, so the solves run */
            for (int c = 0; c < 3; c++) v[c] = isfinite(v[c]) ? fmodf(v[c], 2.0f) : v[c];
        /* base.h: a position within STANCE_MAX_TRANSLATION (false for NaN) */
        const int finite = fabsf(v[0]) <= STANCE_MAX_TRANSLATION && fabsf(v[1]) <= STANCE_MAX_TRANSLATION &&
                           fabsf(v[2]) <= STANCE_MAX_TRANSLATION;
        if (op == OP_IK_TARGET) {
            float wt = pick(s, 2) ? drv_float(s) : (float)pick(s, 5) * 0.25f;
            const int null_target = pick(s, 16) == 0;
            int ok = !null_target && ik >= 0 && ik < ni && kind != STANCE_IK_FOOTLOCK && finite && wt >= 0.0f && wt <= 1.0f;
            return expect(w, "instance_set_ik_target", stance_instance_set_ik_target(inst, ik, null_target ? NULL : v, wt, &err), ok, &err);
        }
        const int clear = pick(s, 4) == 0; /* NULL clears the pole */
        int ok = ik >= 0 && ik < ni && kind == STANCE_IK_TWO_BONE && (clear || finite);
        return expect(w, "instance_set_ik_pole", stance_instance_set_ik_pole(inst, ik, clear ? NULL : v, &err), ok, &err);
    }
    case OP_SET_ROOT: {
        stance_transform r = stance_transform_identity();
        const int mode = (int)pick(s, 4), teleport = (int)pick(s, 2);
        if (mode == 0) /* back to root motion */
            return expect(w, "instance_set_root", stance_instance_set_root(inst, NULL, teleport, &err), 1, &err);
        for (int c = 0; c < 3; c++) r.t[c] = mode == 1 ? drv_float(s) : fmodf((float)(drv_u32(s) >> 8), 200.0f) - 100.0f;
        float yaw = (float)(drv_u32(s) >> 8) / 16777216.0f * 6.2831853f;
        r.r[1] = sinf(0.5f * yaw), r.r[3] = cosf(0.5f * yaw);
        if (mode == 3) for (int c = 0; c < 4; c++) r.r[c] = drv_float(s); /* any quaternion */
        if (pick(s, 4) == 0) for (int c = 0; c < 3; c++) r.s[c] = drv_float(s);
        int ok = 1; /* base.h: the limits of a translation and a scale (false for NaN) */
        for (int c = 0; c < 3; c++)
            ok = ok && fabsf(r.t[c]) <= STANCE_MAX_TRANSLATION && fabsf(r.s[c]) >= STANCE_MIN_SCALE && fabsf(r.s[c]) <= STANCE_MAX_SCALE;
        double n2 = 0;
        for (int c = 0; c < 4; c++) ok = ok && isfinite(r.r[c]), n2 += (double)r.r[c] * r.r[c];
        /* instance.h: a unit quaternion within 1e-3 (the float length the runtime computes decides at the edge) */
        const float n = sqrtf(r.r[0] * r.r[0] + r.r[1] * r.r[1] + r.r[2] * r.r[2] + r.r[3] * r.r[3]);
        ok = ok && fabsf(n - 1.0f) <= 1e-3f;
        (void)n2;
        return expect(w, "instance_set_root", stance_instance_set_root(inst, &r, teleport, &err), ok, &err);
    }
    default:
        return 0;
    }
}

static int step_controller(drv_world *w, drv_src *s, int op, int slot) {
    const drv_graphs *G = w->graphs;
    stance_error err;
    memset(&err, 0, sizeof err);
    if (op == OP_CTL_CREATE) {
        int gi = (int)pick(s, (unsigned)G->count);
        stance_controller_desc d = {0};
        if (!pick(s, 4)) d.fade_time = drv_float(s), d.mode = (stance_switch_mode)((int)pick(s, STANCE_SWITCH_MODE_COUNT + 1));
        else d.mode = (stance_switch_mode)pick(s, STANCE_SWITCH_MODE_COUNT);
        stance_controller_destroy(w->ctl[slot]);
        w->ctl[slot] = NULL;
        stance_status st = stance_controller_create(G->graph[gi], &d, NULL, &w->ctl[slot], &err);
        int ok = isfinite(d.fade_time) && d.fade_time >= 0.0f && d.fade_time <= 60.0f &&
                 (int)d.mode < STANCE_SWITCH_MODE_COUNT && priorities_ok(G->graph[gi]);
        w->ctl_graph[slot] = gi;
        if (expect(w, "controller_create", st, ok, &err)) return 1;
        if (st) { w->ctl[slot] = NULL; return 0; }
        return after_controller_update(w, slot);
    }
    stance_controller *c = w->ctl[slot];
    if (!c) return 0;
    const stance_graph *g = stance_controller_graph(c);
    const int np = stance_graph_param_count(g), ns = stance_graph_state_count(g);
    switch (op) {
    case OP_CTL_DESTROY:
        stance_controller_destroy(c);
        w->ctl[slot] = NULL;
        return 0;
    case OP_CTL_SET: case OP_CTL_RESET: {
        int state = any_index(s, ns);
        int in = state >= 0 && state < ns, l = in ? layer_of(g, state) : -1;
        if (op == OP_CTL_SET)
            return expect(w, "controller_set", stance_controller_set(c, state, &err), in && l >= 0, &err);
        return expect(w, "controller_reset", stance_controller_reset(c, state, &err), in && l > 0, &err);
    }
    case OP_CTL_PARAM: {
        int p = any_index(s, np), in = p >= 0 && p < np;
        stance_param_type t = in ? stance_graph_param_type(g, p) : STANCE_PARAM_FLOAT;
        unsigned k = pick(s, 4);
        if (k == 0) {
            float v = drv_float(s);
            return expect(w, "controller_set_float", stance_controller_set_float(c, p, v, &err), in && float_ok(t, v), &err);
        }
        if (k == 3) {
            int v = drv_int(s);
            return expect(w, "controller_set_int", stance_controller_set_int(c, p, v, &err), in && int_ok(t, v), &err);
        }
        if (k == 1) return expect(w, "controller_set_bool", stance_controller_set_bool(c, p, 1, &err), in && t == STANCE_PARAM_BOOL, &err);
        return expect(w, "controller_set_trigger", stance_controller_set_trigger(c, p, &err), in && t == STANCE_PARAM_TRIGGER, &err);
    }
    case OP_CTL_UPDATE: {
        float dt = drv_dt(s);
        stance_status st = drv_controller_update(c, dt, &err);
        if (expect(w, "controller_update", st, dt_ok(dt), &err)) return 1;
        return st == STANCE_OK ? after_controller_update(w, slot) : 0;
    }
    case OP_CTL_RELOAD: {
        int gi = (int)pick(s, (unsigned)G->count);
        const stance_graph *ng = G->graph[gi];
        char report[256];
        int joints_before = stance_instance_model_pose(stance_controller_instance(c))->joint_count;
        /* with the workspace the updates will use (a graph with more machines than the last
         * update's workspace is refused by the plain reload, controller.h) */
        stance_status st = stance_controller_reload_ws(c, ng, drv_workspace(ng, NULL), report, sizeof report, &err);
        /* controller.h: a graph of another skeleton is refused; so is a bad layer order */
        int ok = same_skeleton(stance_graph_skeleton(g), stance_graph_skeleton(ng)) && priorities_ok(ng);
        if (expect(w, "controller_reload", st, ok, &err)) return 1;
        if (st == STANCE_OK) w->ctl_graph[slot] = gi;
        if (st != STANCE_OK && stance_instance_model_pose(stance_controller_instance(c))->joint_count != joints_before) {
            snprintf(w->failure, sizeof w->failure, "call %ld: a refused reload changed the joint count", w->calls);
            return 1;
        }
        return 0;
    }
    case OP_CTL_INSTANCE: {
        static const int calls[] = {OP_SET_FLOAT, OP_SET_TRIGGER, OP_PLAY, OP_LAYER_WEIGHT, OP_LAYER_ENABLED, OP_OVERRIDE};
        return instance_call(w, s, calls[pick(s, 6)], stance_controller_instance(c), g);
    }
    default:
        return 0;
    }
}

int drv_step(drv_world *w, drv_src *s) {
    w->calls++;
    int op = pick_op(s);
    int slot = (int)pick(s, DRV_SLOTS);
    w->checksum = mix(w->checksum, (uint64_t)op * 16 + (uint64_t)slot);
    /* the controller's calls; the IK setters, the world root and the ground after them are instance calls */
    return op >= OP_CTL_CREATE && op <= OP_CTL_INSTANCE ? step_controller(w, s, op, slot) : step_instance(w, s, op, slot);
}
