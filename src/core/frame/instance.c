/* src/core/frame/instance.c - one character running a graph: the instance's
 * memory (one block of persistent state made at creation, bound and
 * copied), the workspace (per-thread scratch, core/frame/workspace.h: its memory,
 * its binding and its views of an instance's machine poses), parameters,
 * queries, play requests and layer controls.
 *
 * The update entry points are frame.c, which runs the frame's stages in
 * order (docs/frame.md); hot-reload transfer is in transfer.c. */
#include <stdio.h>
#include <string.h>

#include "core/frame/advance.h"
#include "core/frame/curves.h"
#include "core/graph/graph_curves.h"
#include "core/frame/notes.h"
#include "core/base/internal.h"
#include "core/base/names.h"
#include "core/frame/transition.h"
#include "core/frame/workspace.h"
#include "core/math/smath.h"

/* ---- instance memory ------------------------------------------------------- */

/* The block: the hot part first, what every update reads or writes, packed
 * (the struct, the machines' play state, parameters, layer weights, IK
 * state, cursors, the pose structs, the local and model poses); then the
 * cold part (the machines' persistent poses: switch snapshots and history,
 * inertialization records, the event queue). Small arrays are 8-aligned,
 * poses 32-aligned as the 4- and 8-wide loops want them. */
typedef struct inst_layout {
    size_t params, ptarget, machines, lw, lt, lr, loff, pose_structs, pose_mem, mpose_mem, rec, cursors, ik, ikt, events,
        hot, total;
    int pose_count, rec_count, cursor_count;
} inst_layout;

static size_t grab_aligned(size_t *off, size_t bytes, size_t align) {
    size_t at = st_align_up(*off, align);
    *off = at + bytes;
    return at;
}
static size_t grab(size_t *off, size_t bytes) { return grab_aligned(off, bytes, 32); }
static size_t grab8(size_t *off, size_t bytes) { return grab_aligned(off, bytes, 8); }

static int keeps_history(const stance_graph *g, int history_all, int m) {
    return history_all || g->machines[m].history;
}

static inst_layout layout_of(const stance_graph *g, int history_all) {
    inst_layout lo;
    const int J = g->skeleton->joint_count, M = g->machine_count, L = g->layer_count;
    lo.pose_count = 0, lo.rec_count = 0, lo.cursor_count = 0;
    for (int m = 0; m < M; m++) {
        int h = keeps_history(g, history_all, m);
        lo.pose_count += h ? 3 : 1;
        lo.rec_count += h;
        lo.cursor_count += 2 * g->machines[m].clip_cap;
    }
    const size_t P = (size_t)(g->param_count ? g->param_count : 1);
    size_t off = sizeof(stance_instance);
    lo.machines = grab8(&off, sizeof(g_machine_rt) * (size_t)M);
    lo.params = grab8(&off, sizeof(float) * P);
    lo.ptarget = grab8(&off, sizeof(float) * P);
    lo.lw = grab8(&off, sizeof(float) * (size_t)L);
    lo.lt = grab8(&off, sizeof(float) * (size_t)L);
    lo.lr = grab8(&off, sizeof(float) * (size_t)L);
    lo.loff = grab8(&off, (size_t)L);
    lo.ik = grab8(&off, sizeof(stance_footlock_state) * (size_t)g->ik_count);
    lo.ikt = grab8(&off, sizeof(float) * IK_TARGET_FLOATS * (size_t)g->ik_count);
    lo.cursors = grab8(&off, sizeof(stance_cursor) * (size_t)lo.cursor_count);
    lo.pose_structs = grab8(&off, sizeof(stance_pose) * PI_COUNT);
    lo.pose_mem = grab(&off, stance_pose_bytes(J) * PI_COUNT);
    lo.hot = st_align_up(off, 64);
    off = lo.hot; /* the cold part starts on a line of its own */
    lo.mpose_mem = grab(&off, stance_pose_bytes(J) * (size_t)lo.pose_count);
    lo.rec = grab(&off, sizeof(float) * INERT_FLOATS * (size_t)J * (size_t)lo.rec_count);
    lo.events = grab8(&off, sizeof(stance_event) * STANCE_EVENT_QUEUE);
    lo.total = st_align_up(off, 64);
    return lo;
}

static void bind_pose(stance_pose *p, int J, void *pm) {
    int pc = st_pad8(J);
    float **ch[10] = {&p->tx, &p->ty, &p->tz, &p->qx, &p->qy, &p->qz, &p->qw, &p->sx, &p->sy, &p->sz};
    for (int c = 0; c < 10; c++) *ch[c] = (float *)pm + (size_t)c * (size_t)pc;
    p->memory = pm;
    p->joint_count = J, p->padded_count = pc;
    memset(&p->allocator, 0, sizeof p->allocator);
}

/* Points every internal pointer into the block at `inst` (after creation or a copy). */
static void bind(stance_instance *inst) {
    const stance_graph *g = inst->graph;
    unsigned char *mem = (unsigned char *)inst;
    inst_layout lo = layout_of(g, inst->history_all);
    const int J = g->skeleton->joint_count, M = g->machine_count;
    const size_t pb = stance_pose_bytes(J);
    inst->params = (float *)(mem + lo.params);
    inst->param_target = (float *)(mem + lo.ptarget);
    inst->machines = (g_machine_rt *)(mem + lo.machines);
    inst->layer_weight = (float *)(mem + lo.lw);
    inst->layer_target = (float *)(mem + lo.lt);
    inst->layer_rate = (float *)(mem + lo.lr);
    inst->layer_off = mem + lo.loff;
    inst->ik_state = (stance_footlock_state *)(mem + lo.ik);
    inst->ik_target = (float *)(mem + lo.ikt);
    inst->events = (stance_event *)(mem + lo.events);
    inst->poses = (stance_pose *)(mem + lo.pose_structs);
    for (int i = 0; i < PI_COUNT; i++) bind_pose(&inst->poses[i], J, mem + lo.pose_mem + pb * (size_t)i);
    inst->machine_pose_mem = (float *)(mem + lo.mpose_mem);
    int pose_at = 0, rec_at = 0, cur_at = 0;
    for (int m = 0; m < M; m++) {
        g_machine_rt *rt = &inst->machines[m];
        rt->has_history = keeps_history(g, inst->history_all, m);
        rt->pose_first = pose_at;
        pose_at += rt->has_history ? 3 : 1;
        rt->rec = rt->has_history ? (float *)(mem + lo.rec) + (size_t)rec_at++ * INERT_FLOATS * (size_t)J : NULL;
        rt->cursors = (stance_cursor *)(mem + lo.cursors) + cur_at;
        rt->cursor_cap = g->machines[m].clip_cap;
        cur_at += 2 * g->machines[m].clip_cap;
    }
}

static unsigned char *mpose_mem(const stance_instance *inst, int m, int which) {
    const size_t pb = stance_pose_bytes(inst->graph->skeleton->joint_count);
    return (unsigned char *)inst->machine_pose_mem + pb * (size_t)(inst->machines[m].pose_first + which);
}

/* The instance keeps the machines' pose blocks without pose structs (120
 * bytes each); the workspace lends a view bound on use. */
stance_pose *ws_mpose(stance_workspace *ws, stance_instance *inst, int m, int which) {
    stance_pose *v = &ws->views[m * 3 + which];
    bind_pose(v, inst->graph->skeleton->joint_count, mpose_mem(inst, m, which));
    return v;
}

static stance_pose *ipose(const stance_instance *inst, int which) { return &inst->poses[which]; }

/* ---- creation ------------------------------------------------------------------ */

stance_status stance_instance_create_ex(const stance_graph *g, const stance_instance_desc *desc,
                                        const stance_allocator *allocator, stance_instance **out, stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "instance: out is NULL");
    *out = NULL;
    if (!g) return st_fail(err, STANCE_ERR_ARGUMENT, "instance: graph is NULL");
    stance_instance_desc d = desc ? *desc : (stance_instance_desc){0};
    if ((unsigned)d.history > STANCE_HISTORY_ALL) return st_fail(err, STANCE_ERR_ARGUMENT, "instance: unknown history option %d", (int)d.history);
    if (st_check_allocator(allocator, "instance", err)) return STANCE_ERR_ARGUMENT; /* issue 12 */
    inst_layout lo = layout_of(g, d.history == STANCE_HISTORY_ALL);
    stance_allocator al = st_allocator(allocator);
    stance_instance *inst = st_alloc(&al, lo.total, 64);
    if (!inst) return st_fail(err, STANCE_ERR_MEMORY, "instance: allocation of %zu bytes failed", lo.total);
    inst->graph = g;
    inst->allocator = al;
    inst->bytes = lo.total;
    inst->hot_bytes = lo.hot;
    inst->magic = IN_LIVE;
    inst->history_all = d.history == STANCE_HISTORY_ALL;
    inst->ground = NULL, inst->ground_user = NULL;
    bind(inst);
    for (int i = 0; i < lo.pose_count; i++) { /* the machines' poses start at rest */
        stance_pose v;
        bind_pose(&v, g->skeleton->joint_count, (unsigned char *)inst->machine_pose_mem + stance_pose_bytes(g->skeleton->joint_count) * (size_t)i);
        stance_pose_set_identity(&v, NULL); /* the padding joints too: 4-wide loops read them */
        stance_pose_set_rest(&v, g->skeleton, NULL);
    }
    for (int i = 0; i < PI_COUNT; i++) stance_pose_set_identity(&inst->poses[i], NULL);
    stance_instance_reset(inst, NULL);
    *out = inst;
    return st_ok(err);
}

stance_status stance_instance_create(const stance_graph *g, const stance_allocator *allocator, stance_instance **out,
                                     stance_error *err) {
    return stance_instance_create_ex(g, NULL, allocator, out, err);
}

size_t stance_instance_bytes(const stance_instance *inst) { return in_live(inst) ? inst->bytes : 0; }

void stance_instance_destroy(stance_instance *inst) {
    if (!in_live(inst)) return; /* NULL, or destroyed already: never freed twice while the block holds IN_DEAD */
    const stance_allocator al = inst->allocator;
    const size_t bytes = inst->bytes;
#ifndef NDEBUG
    memset(inst, IN_POISON, bytes); /* a stale pointer reads garbage that no public function accepts */
#endif
    inst->magic = IN_DEAD;
    st_free(&al, inst, bytes);
}

stance_status stance_instance_copy(stance_instance *dst, const stance_instance *src, stance_error *err) {
    if (!in_live(dst) || !in_live(src)) return st_fail(err, STANCE_ERR_ARGUMENT, "instance copy: dst or src is " IN_NOT_LIVE);
    if (dst->graph != src->graph || dst->history_all != src->history_all)
        return st_fail(err, STANCE_ERR_ARGUMENT, "instance copy: dst and src %s", dst->graph != src->graph ?
                       "run different graphs" : "were created with different descs (history)");
    if (dst == src) return st_ok(err);
    stance_allocator al = dst->allocator;
    memcpy(dst, src, src->bytes);
    dst->allocator = al;
    bind(dst);
    /* events point at names in the graph; nothing else to fix */
    return st_ok(err);
}

stance_status stance_instance_reset(stance_instance *inst, stance_error *err) {
    if (!in_live(inst)) return st_fail(err, STANCE_ERR_ARGUMENT, "instance reset: instance is " IN_NOT_LIVE);
    const stance_graph *g = inst->graph;
    for (int i = 0; i < g->param_count; i++) inst->params[i] = inst->param_target[i] = g->params[i].value;
    /* the queue now holds the ends of the windows the reset closes (until the next update) */
    inst->event_count = inst->event_dropped = 0;
    for (int m = 0; m < g->machine_count; m++) nt_close(inst, m, STANCE_WINDOW_RESET);
    const int ends = inst->event_count, ends_dropped = inst->event_dropped;
    for (int m = 0; m < g->machine_count; m++) adv_reset_machine(inst, m);
    for (int l = 0; l < g->layer_count; l++) {
        inst->layer_weight[l] = inst->layer_target[l] = g->layers[l].weight;
        inst->layer_rate[l] = 0.0f;
        inst->layer_off[l] = 0;
    }
    inst->event_count = ends, inst->event_dropped = ends_dropped;
    inst->events_sealed = 0;
    memset(inst->root_delta, 0, sizeof inst->root_delta);
    inst->root_delta[5] = 1.0f; /* the turn's axis (unused while its angle is 0) */
    inst->world_root = stance_transform_identity();
    inst->root_owned = 0;
    memset(inst->ik_state, 0, sizeof(stance_footlock_state) * (size_t)g->ik_count);
    memset(inst->ik_target, 0, sizeof(float) * IK_TARGET_FLOATS * (size_t)g->ik_count);
    inst->clips_sampled = 0;
    inst->time = 0.0;
    inst->override_mode = inst->override_easing = -1;
    inst->override_blend = 0.0f;
    stance_pose_set_rest(ipose(inst, PI_LOCAL), g->skeleton, NULL);
    stance_local_to_model(ipose(inst, PI_MODEL), ipose(inst, PI_LOCAL), g->skeleton, NULL, NULL);
    if (g->curves && g->curves->drive_count) { /* the drives' values at the start (curves.c) */
        inst->requests |= CV_DRIVES;
        cv_drive(inst);
    }
    return st_ok(err);
}

/* ---- workspace ------------------------------------------------------------------- */

typedef struct ws_layout {
    size_t plans, weights, jobs, job_plans, pose_structs, pose_mem, views, total;
    int pose_count;
} ws_layout;

static ws_layout ws_layout_of(int J, int M) {
    ws_layout lo;
    lo.pose_count = M * PW_PER_MACHINE + PW_SHARED;
    size_t off = sizeof(stance_workspace);
    lo.plans = grab(&off, sizeof(g_plan) * (size_t)M);
    lo.weights = grab(&off, sizeof(g_weights) * (size_t)M);
    lo.jobs = grab(&off, sizeof(g_job) * WS_JOBS_PER_MACHINE * (size_t)M);
    lo.job_plans = grab(&off, sizeof(g_plan) * WS_JOB_PLANS_PER_MACHINE * (size_t)M);
    lo.pose_structs = grab(&off, sizeof(stance_pose) * (size_t)lo.pose_count);
    lo.pose_mem = grab(&off, stance_pose_bytes(J) * (size_t)lo.pose_count);
    lo.views = grab(&off, sizeof(stance_pose) * 3 * (size_t)M);
    lo.total = st_align_up(off, 64);
    return lo;
}

size_t stance_workspace_bytes(const stance_graph *g) {
    return g ? ws_layout_of(g->skeleton->joint_count, g->machine_count).total : 0;
}

stance_status stance_workspace_create(const stance_graph *g, const stance_allocator *allocator, stance_workspace **out,
                                      stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "workspace: out is NULL");
    *out = NULL;
    if (!g) return st_fail(err, STANCE_ERR_ARGUMENT, "workspace: graph is NULL");
    if (st_check_allocator(allocator, "workspace", err)) return STANCE_ERR_ARGUMENT; /* issue 12: one check */
    const int J = g->skeleton->joint_count, M = g->machine_count;
    ws_layout lo = ws_layout_of(J, M);
    stance_allocator al = st_allocator(allocator);
    stance_workspace *ws = st_alloc(&al, lo.total, 64);
    if (!ws) return st_fail(err, STANCE_ERR_MEMORY, "workspace: allocation of %zu bytes failed", lo.total);
    unsigned char *mem = (unsigned char *)ws;
    ws->allocator = al;
    ws->bytes = lo.total;
    ws->joint_cap = J, ws->machine_cap = M;
    ws->plans = (g_plan *)(mem + lo.plans);
    ws->weights = (g_weights *)(mem + lo.weights);
    for (int m = 0; m < M; m++) ws->weights[m].state = -1; /* none yet */
    ws->jobs = (g_job *)(mem + lo.jobs);
    ws->job_plans = (g_plan *)(mem + lo.job_plans);
    ws->poses = (stance_pose *)(mem + lo.pose_structs);
    ws->pose_count = lo.pose_count;
    ws->pose_mem = (float *)(mem + lo.pose_mem);
    ws->views = (stance_pose *)(mem + lo.views);
    ws->bound_joints = 0;
    ws->prefetch = WS_PREFETCH_LARGE;
    *out = ws;
    return st_ok(err);
}

void stance_workspace_destroy(stance_workspace *ws) {
    if (!ws) return;
    stance_allocator al = ws->allocator;
    st_free(&al, ws, ws->bytes);
}

size_t stance_workspace_size(const stance_workspace *ws) { return ws ? ws->bytes : 0; }

void st_workspace_set_prefetch(stance_workspace *ws, int mode) {
    if (ws) ws->prefetch = mode == WS_PREFETCH_NEVER || mode == WS_PREFETCH_ALWAYS ? mode : WS_PREFETCH_LARGE;
}

stance_status stance_workspace_fits(const stance_workspace *ws, const stance_graph *g, stance_error *err) {
    if (!ws || !g) return st_fail(err, STANCE_ERR_ARGUMENT, "workspace: workspace or graph is NULL");
    const int J = g->skeleton->joint_count, M = g->machine_count;
    if (J > ws->joint_cap || M > ws->machine_cap)
        return st_fail(err, STANCE_ERR_MEMORY,
                       "workspace: made for %d joints and %d machines, the graph has %d joints and %d machines; "
                       "create the workspace from the largest graph it serves", ws->joint_cap, ws->machine_cap, J, M);
    return st_ok(err);
}

/* Binds the workspace's poses for graph g's joint count (when it changes:
 * graphs of one skeleton size share the binding; scratch is always written
 * before it is read, only its padding joints must hold the identity). */
void ws_bind(stance_workspace *ws, const stance_graph *g) {
    const int J = g->skeleton->joint_count;
    if (ws->bound_joints == J) return;
    const size_t pb = stance_pose_bytes(ws->joint_cap);
    for (int i = 0; i < ws->pose_count; i++) {
        stance_pose *p = &ws->poses[i];
        bind_pose(p, J, (unsigned char *)ws->pose_mem + pb * (size_t)i);
        stance_pose_set_identity(p, NULL); /* the padding joints too: 4-wide loops read them */
        stance_pose_set_rest(p, g->skeleton, NULL);
    }
    ws->bound_joints = J;
}


/* ---- parameters --------------------------------------------------------------------- */

/* The one check of every parameter setter (stance/params.h): the instance,
 * the index, and the type (`who` the setter, which takes want_a or want_b). */
static const char *const param_type_name[] = {"float", "int", "bool", "trigger"};
static const char *const param_setter[] = {"set_float", "set_int", "set_bool", "set_trigger"};

ST_NOINLINE ST_COLD static stance_status param_refused(const stance_instance *inst, int p, const char *who, stance_error *err) {
    if (!in_live(inst)) return st_fail(err, STANCE_ERR_ARGUMENT, "%s: instance is " IN_NOT_LIVE, who);
    if (p < 0 || p >= inst->graph->param_count)
        return st_fail(err, STANCE_ERR_NOT_FOUND, "%s: parameter %d is not in 0..%d", who, p, inst->graph->param_count - 1);
    const stance_param_type t = inst->graph->params[p].type;
    return st_fail(err, STANCE_ERR_ARGUMENT, "%s: parameter '%s' is a %s parameter (set it with stance_instance_%s)",
                   who, inst->graph->params[p].name, param_type_name[t], param_setter[t]);
}

static inline stance_status check_param(const stance_instance *inst, int p, stance_param_type want_a,
                                        stance_param_type want_b, const char *who, stance_error *err) {
    if (in_live(inst) && p >= 0 && p < inst->graph->param_count) {
        const stance_param_type t = inst->graph->params[p].type;
        if (t == want_a || t == want_b) return STANCE_OK;
    }
    return param_refused(inst, p, who, err); /* the message, off the setters' path */
}

/* An int parameter's value: exact in the float the graph compares. */
static int int_in_range(double v) { return v >= -(double)STANCE_PARAM_INT_MAX && v <= (double)STANCE_PARAM_INT_MAX; }

stance_status stance_instance_set_float(stance_instance *inst, int p, float v, stance_error *err) {
    stance_status s = check_param(inst, p, STANCE_PARAM_FLOAT, STANCE_PARAM_INT, "set_float", err);
    if (s) return s;
    const g_param *gp = &inst->graph->params[p];
    if (!st_finite(v)) return st_fail(err, STANCE_ERR_VALUE, "set_float: parameter '%s': %g is not finite", gp->name, (double)v);
    if (gp->type == STANCE_PARAM_INT) {
        v = floorf(v);
        if (!int_in_range(v))
            return st_fail(err, STANCE_ERR_VALUE, "set_float: int parameter '%s': %g is outside +-%d", gp->name, (double)v,
                           STANCE_PARAM_INT_MAX);
    }
    inst->param_target[p] = v;
    if (!(gp->damping > 0.0f)) inst->params[p] = v;
    return st_ok(err);
}

stance_status stance_instance_set_int(stance_instance *inst, int p, int v, stance_error *err) {
    stance_status s = check_param(inst, p, STANCE_PARAM_INT, STANCE_PARAM_FLOAT, "set_int", err);
    if (s) return s;
    if (!int_in_range(v))
        return st_fail(err, STANCE_ERR_VALUE, "set_int: parameter '%s': %d is outside +-%d", inst->graph->params[p].name, v,
                       STANCE_PARAM_INT_MAX);
    inst->params[p] = inst->param_target[p] = (float)v;
    return st_ok(err);
}

stance_status stance_instance_set_bool(stance_instance *inst, int p, int v, stance_error *err) {
    stance_status s = check_param(inst, p, STANCE_PARAM_BOOL, STANCE_PARAM_BOOL, "set_bool", err);
    if (s) return s;
    if (v != 0 && v != 1)
        return st_fail(err, STANCE_ERR_VALUE, "set_bool: parameter '%s': %d is not 0 or 1", inst->graph->params[p].name, v);
    inst->params[p] = inst->param_target[p] = v ? 1.0f : 0.0f;
    return st_ok(err);
}

stance_status stance_instance_set_trigger(stance_instance *inst, int p, stance_error *err) {
    stance_status s = check_param(inst, p, STANCE_PARAM_TRIGGER, STANCE_PARAM_TRIGGER, "set_trigger", err);
    if (s) return s;
    inst->params[p] = inst->param_target[p] = 1.0f;
    return st_ok(err);
}

static const char *param_name_at(const void *graph, int i) { return stance_graph_param_name(graph, i); }

/* The name lookup of every by-name call: the index, or NOT_FOUND naming the closest known name. */
static stance_status by_name(const stance_instance *inst, const char *name, int *p, const char *who, stance_error *err) {
    if (!in_live(inst)) return st_fail(err, STANCE_ERR_ARGUMENT, "%s: instance is " IN_NOT_LIVE, who);
    if (!name) return st_fail(err, STANCE_ERR_ARGUMENT, "%s: name is NULL", who);
    *p = stance_graph_find_param(inst->graph, name);
    if (*p < 0) {
        char hint[200];
        st_suggest(hint, sizeof hint, name, param_name_at, inst->graph, stance_graph_param_count(inst->graph));
        return st_fail(err, STANCE_ERR_NOT_FOUND, "%s: unknown parameter '%s'%s", who, name, hint);
    }
    return STANCE_OK;
}

stance_status stance_instance_set_float_by_name(stance_instance *inst, const char *name, float v, stance_error *err) {
    int p = -1;
    stance_status s = by_name(inst, name, &p, "set_float_by_name", err);
    return s ? s : stance_instance_set_float(inst, p, v, err);
}

stance_status stance_instance_set_int_by_name(stance_instance *inst, const char *name, int v, stance_error *err) {
    int p = -1;
    stance_status s = by_name(inst, name, &p, "set_int_by_name", err);
    return s ? s : stance_instance_set_int(inst, p, v, err);
}

stance_status stance_instance_set_bool_by_name(stance_instance *inst, const char *name, int v, stance_error *err) {
    int p = -1;
    stance_status s = by_name(inst, name, &p, "set_bool_by_name", err);
    return s ? s : stance_instance_set_bool(inst, p, v, err);
}

stance_status stance_instance_set_trigger_by_name(stance_instance *inst, const char *name, stance_error *err) {
    int p = -1;
    stance_status s = by_name(inst, name, &p, "set_trigger_by_name", err);
    return s ? s : stance_instance_set_trigger(inst, p, err);
}

float stance_instance_param(const stance_instance *inst, int p) {
    return in_live(inst) && p >= 0 && p < inst->graph->param_count ? inst->params[p] : 0.0f;
}

float stance_instance_param_target(const stance_instance *inst, int p) {
    return in_live(inst) && p >= 0 && p < inst->graph->param_count ? inst->param_target[p] : 0.0f;
}

stance_status stance_instance_param_by_name(const stance_instance *inst, const char *name, float *value,
                                            stance_error *err) {
    int p = -1;
    stance_status s = by_name(inst, name, &p, "param_by_name", err);
    if (s) return s;
    if (!value) return st_fail(err, STANCE_ERR_ARGUMENT, "param_by_name: value is NULL");
    *value = inst->params[p];
    return st_ok(err);
}

stance_status stance_instance_override_switch(stance_instance *inst, int mode, float blend_time, int easing,
                                              stance_error *err) {
    if (!in_live(inst)) return st_fail(err, STANCE_ERR_ARGUMENT, "override switch: instance is " IN_NOT_LIVE);
    if (mode >= STANCE_SWITCH_MODE_COUNT || easing > STANCE_EASE_LINEAR)
        return st_fail(err, STANCE_ERR_ARGUMENT, "override switch: mode %d or easing %d is past the last (%d, %d)", mode,
                       easing, STANCE_SWITCH_MODE_COUNT - 1, (int)STANCE_EASE_LINEAR);
    if (!st_finite(blend_time) || blend_time > 60.0f)
        return st_fail(err, STANCE_ERR_VALUE, "override switch: blend time %g is not finite and <= 60", (double)blend_time);
    inst->override_mode = mode < 0 ? -1 : mode;
    inst->override_blend = blend_time > 0.0f ? blend_time : 0.0f;
    inst->override_easing = easing < 0 ? -1 : easing;
    return st_ok(err);
}

/* ---- queries --------------------------------------------------------------------------- */

const stance_pose *stance_instance_local_pose(const stance_instance *inst) { return in_live(inst) ? ipose(inst, PI_LOCAL) : NULL; }
const stance_pose *stance_instance_model_pose(const stance_instance *inst) { return in_live(inst) ? ipose(inst, PI_MODEL) : NULL; }

const stance_event *stance_instance_events(const stance_instance *inst, int *count, int *dropped) {
    if (count) *count = in_live(inst) ? inst->event_count : 0;
    if (dropped) *dropped = in_live(inst) ? inst->event_dropped : 0;
    return in_live(inst) ? inst->events : NULL;
}
void stance_instance_root_motion(const stance_instance *inst, float out[3]) {
    if (!out) return;
    for (int k = 0; k < 3; k++) out[k] = in_live(inst) ? inst->root_delta[k] : 0.0f;
}
/* the last update's turn as a unit quaternion (identity without one) */
static void turn_quat(const stance_instance *inst, float q[4]) {
    q[0] = q[1] = q[2] = 0.0f, q[3] = 1.0f;
    if (!in_live(inst) || inst->root_delta[3] == 0.0f) return;
    const float h = 0.5f * inst->root_delta[3], s = sm_sinf(h);
    q[0] = inst->root_delta[4] * s, q[1] = inst->root_delta[5] * s, q[2] = inst->root_delta[6] * s, q[3] = sm_cosf(h);
}
float stance_instance_root_yaw(const stance_instance *inst) {
    if (!in_live(inst)) return 0.0f;
    const float *d = inst->root_delta;
    if (d[3] == 0.0f || (d[4] == 0.0f && d[5] == 1.0f && d[6] == 0.0f)) return d[3];
    float q[4]; /* a turn about another axis: its twist about +Y */
    turn_quat(inst, q);
    return q[1] == 0.0f && q[3] == 0.0f ? 0.0f : 2.0f * sm_atan2f(q[1], q[3]);
}
void stance_instance_root_rotation(const stance_instance *inst, float q[4]) {
    if (q) turn_quat(inst, q);
}
int stance_instance_clips_sampled(const stance_instance *inst) { return in_live(inst) ? inst->clips_sampled : 0; }
float stance_instance_time(const stance_instance *inst) { return in_live(inst) ? (float)inst->time : 0.0f; }

stance_status stance_instance_machine_status(const stance_instance *inst, int m, stance_machine_status *out,
                                             stance_error *err) {
    if (!in_live(inst) || !out)
        return st_fail(err, STANCE_ERR_ARGUMENT, "machine status: %s", out ? "instance is " IN_NOT_LIVE : "out is NULL");
    if (m < 0 || m >= inst->graph->machine_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "machine status: machine %d is not in 0..%d", m,
                       inst->graph->machine_count - 1);
    const g_machine_rt *rt = &inst->machines[m];
    if (rt->req_state >= 0) { /* a play request the next update carries out */
        int blends = rt->req_mode != STANCE_SWITCH_CUT && rt->req_blend > 0.0f;
        out->state = rt->req_state;
        out->state_time = 0.0f;
        out->normalized_time = 0.0f;
        out->transition = blends ? rt->cur.state : -1;
        out->progress = blends ? 0.0f : 1.0f;
        out->mode = rt->req_mode;
        return st_ok(err);
    }
    out->state = rt->cur.state;
    out->state_time = (float)rt->cur.time;
    out->normalized_time = adv_normalized(inst, &rt->cur);
    out->transition = rt->trans >= 0 ? rt->from_state : -1;
    out->progress = rt->trans >= 0 && rt->duration > 0.0f ? rt->elapsed / rt->duration : (rt->trans >= 0 ? 0.0f : 1.0f);
    out->mode = rt->mode;
    return st_ok(err);
}

float stance_instance_layer_weight(const stance_instance *inst, int l) {
    return in_live(inst) && l >= 0 && l < inst->graph->layer_count ? inst->layer_weight[l] : 0.0f;
}

float stance_instance_layer_target(const stance_instance *inst, int l) {
    return in_live(inst) && l >= 0 && l < inst->graph->layer_count ? inst->layer_target[l] : 0.0f;
}

/* The layer index check of the layer setters. */
static stance_status check_layer(const stance_instance *inst, int l, const char *who, stance_error *err) {
    if (!in_live(inst)) return st_fail(err, STANCE_ERR_ARGUMENT, "%s: instance is " IN_NOT_LIVE, who);
    if (l < 0 || l >= inst->graph->layer_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "%s: layer %d is not in 0..%d", who, l, inst->graph->layer_count - 1);
    return STANCE_OK;
}

stance_status stance_instance_set_layer_weight(stance_instance *inst, int l, float w, float fade, stance_error *err) {
    static const char who[] = "set layer weight";
    if (check_layer(inst, l, who, err)) return STANCE_ERR_ARGUMENT;
    if (!st_finite(w) || w < 0.0f || w > 1.0f || !st_finite(fade) || fade < 0.0f || fade > 60.0f)
        return st_fail(err, STANCE_ERR_VALUE, "%s: layer '%s': weight %g is not finite in [0, 1] or fade time %g not in "
                       "[0, 60] s", who, inst->graph->layers[l].name, (double)w, (double)fade);
    if (l == 0)
        return w == 1.0f ? st_ok(err) : st_fail(err, STANCE_ERR_ARGUMENT, "%s: layer 0 (the base layer) keeps weight 1, "
                                                "not %g", who, (double)w);
    const g_drive *bound = gr_layer_drive(inst->graph, l);
    if (bound) /* a bound layer's weight is its binding's (docs/curves.md) */
        return st_fail(err, STANCE_ERR_ARGUMENT, "%s: layer '%s' is bound to %s '%s' in the graph: its weight follows it every "
                       "update; turn the layer on and off with stance_instance_set_layer_enabled, or bind it to a parameter "
                       "you set", who, inst->graph->layers[l].name, bound->src_curve >= 0 ? "curve" : "parameter",
                       bound->src_curve >= 0 ? stance_graph_curve_name(inst->graph, bound->src_curve)
                                             : inst->graph->params[bound->src_param].name);
    inst->layer_target[l] = w;
    if (fade <= 0.0f) {
        inst->layer_weight[l] = w;
        inst->layer_rate[l] = 0.0f;
    } else {
        float d = fabsf(w - inst->layer_weight[l]);
        inst->layer_rate[l] = d / fade;
        if (d == 0.0f) inst->layer_rate[l] = 1.0f;
    }
    return st_ok(err);
}

/* For the tests: a blend space state's weights at the current parameters. */
void stance_test_blend_weights(const stance_instance *inst, int state, float *w);
void stance_test_blend_weights(const stance_instance *inst, int state, float *w) {
    adv_blend_weights(inst, &inst->graph->states[state], w);
}

stance_status stance_instance_play(stance_instance *inst, int state, stance_switch_mode mode, stance_easing easing,
                                   float blend_time, stance_error *err) {
    if (!in_live(inst)) return st_fail(err, STANCE_ERR_ARGUMENT, "play: instance is " IN_NOT_LIVE);
    const stance_graph *g = inst->graph;
    if (state < 0 || state >= g->state_count) return st_fail(err, STANCE_ERR_NOT_FOUND, "play: state %d is not in 0..%d", state, g->state_count - 1);
    if ((unsigned)mode >= STANCE_SWITCH_MODE_COUNT || (unsigned)easing > STANCE_EASE_LINEAR)
        return st_fail(err, STANCE_ERR_ARGUMENT, "play: unknown mode or easing");
    if (!st_finite(blend_time) || blend_time > 60.0f) return st_fail(err, STANCE_ERR_VALUE, "play: blend time %g is not finite and <= 60", (double)blend_time);
    g_machine_rt *rt = &inst->machines[g->states[state].machine];
    rt->req_state = state;
    inst->requests |= 1;
    rt->req_mode = mode;
    rt->req_easing = easing;
    rt->req_blend = blend_time > 0.0f ? blend_time : 0.0f;
    return st_ok(err);
}

static void forget_history(stance_instance *inst, const g_layer *gl) {
    for (int i = gl->step_first; i <= gl->step_last; i++) inst->machines[inst->graph->steps[i].machine].hist = 0;
}

stance_status stance_instance_set_layer_enabled(stance_instance *inst, int layer, int enabled, stance_error *err) {
    if (check_layer(inst, layer, "set layer enabled", err)) return STANCE_ERR_ARGUMENT;
    if (layer == 0 && !enabled) /* the base layer always plays */
        return st_fail(err, STANCE_ERR_ARGUMENT, "set layer enabled: layer 0 (the base layer) cannot be disabled");
    if (!enabled && !inst->layer_off[layer]) /* its windows end (appended to the last update's events) */
        nt_close_nested(inst, inst->graph->layers[layer].machine, STANCE_WINDOW_INTERRUPTED);
    inst->layer_off[layer] = enabled ? 0 : 1;
    if (!enabled) forget_history(inst, &inst->graph->layers[layer]);
    return st_ok(err);
}

int stance_instance_layer_enabled(const stance_instance *inst, int layer) {
    return in_live(inst) && layer >= 0 && layer < inst->graph->layer_count ? !inst->layer_off[layer] : 0;
}

const stance_graph *stance_instance_graph(const stance_instance *inst) { return in_live(inst) ? inst->graph : NULL; }
