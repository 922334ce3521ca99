/* src/core/frame/advance_skip.c - the advance stage on a frame the pose skips
 * (stance_instance_advance, stance_instances_advance: animation LOD,
 * docs/lod.md). Such a frame evaluates nothing, so of the stage's plan
 * (advance.c's plan(), about a fifth of the advance) it needs only what
 * root motion reads: whether the base layer's machine is in a switch, its
 * mode and its eased weight. The rest of the plan says what to sample, and
 * the next update plans afresh.
 *
 * The plan also moves machine state on (history frames, an inertializing
 * switch's pending fit): an instance with any of that takes the whole plan,
 * so what this skips changes nothing the instance keeps. It owns no state. */
#include "core/base/internal.h"
#include "core/frame/advance.h"
#include "core/frame/evaluate.h"
#include "core/frame/transition.h"

int adv_skip_plan(stance_instance *inst, stance_workspace *ws) {
    const stance_graph *g = inst->graph;
    for (int m = 0; m < g->machine_count; m++)
        if (inst->machines[m].has_history || inst->machines[m].pending_init) return 0;
    /* root_motion's reads of the base machine's plan, as plan_machine writes them */
    const int m = g->layers[0].machine;
    const g_machine_rt *rt = &inst->machines[m];
    g_plan *pl = &ws->plans[m];
    pl->active = 1;
    pl->blend = rt->trans >= 0;
    if (pl->blend) {
        pl->mode = rt->mode;
        pl->w = tr_ease(rt->easing, rt->duration > 0.0f ? rt->elapsed / rt->duration : 1.0f);
    }
    return 1;
}

void adv_skip_frame(stance_instance *inst, stance_workspace *ws, float dt) {
    adv_frame_skip(inst, ws, dt);
    ev_jobs(inst, ws);
    const stance_graph *g = inst->graph;
    for (int m = 0; m < g->machine_count; m++)
        if (inst->machines[m].has_history) inst->machines[m].hist = 0;
    inst->events_sealed = 1;
}

/* What a skipped frame reads and writes of an instance: the block up to
 * its pose structs (the struct, the machines' play state, parameters,
 * layer weights, IK state, the cursors: instance.c's layout), not the
 * poses after them, which it leaves as they are. */
static size_t skip_bytes(const stance_instance *inst) { return (size_t)((const char *)inst->poses - (const char *)inst); }

stance_status stance_instances_advance(stance_instance *const *instances, int count, float dt, stance_workspace *ws,
                                       stance_error *err) {
    static const char who[] = "instances advance";
    if ((!instances && count) || count < 0 || !ws)
        return st_fail(err, STANCE_ERR_ARGUMENT, "%s: %s", who, !ws ? "workspace is NULL" : count < 0 ? "count is negative" :
                       "instances is NULL");
    if (!st_finite(dt) || dt < 0.0f || dt > 1.0f) return st_fail(err, STANCE_ERR_VALUE, "%s: dt %g is not finite in [0, 1]", who, (double)dt);
    const float step = st_step(dt);
    /* the next instance's part on its way while one advances (a skipped
     * frame is short, and a crowd that skips frames is a large one; the
     * hints cost about 34 instructions a skipped frame for the built-in
     * graph's 21 lines, docs/lod.md).
     * The switch is stance_instances_update's (st_workspace_set_prefetch):
     * never, or else always. */
    const int ahead = ws->prefetch != WS_PREFETCH_NEVER;
    const stance_graph *fitted = NULL;
    int first = -1;
    stance_status fs = STANCE_OK;
    for (int i = 0; i < count; i++) {
        stance_instance *inst = instances[i];
        stance_status s = STANCE_OK;
        if (!in_live(inst)) s = STANCE_ERR_ARGUMENT;
        else if (inst->graph != fitted && stance_workspace_fits(ws, inst->graph, NULL)) s = STANCE_ERR_MEMORY;
        if (s) {
            if (first < 0) first = i, fs = s;
            continue;
        }
        if (inst->graph != fitted) ws_bind(ws, inst->graph), fitted = inst->graph;
        /* a hint only: the next one's part as this one's is laid out (no load of it waits here) */
        if (ahead && i + 1 < count && instances[i + 1]) in_prefetch(instances[i + 1], skip_bytes(inst));
        adv_skip_frame(inst, ws, step);
    }
    if (first < 0) return st_ok(err);
    if (fs == STANCE_ERR_MEMORY) {
        stance_error fit;
        stance_workspace_fits(ws, instances[first]->graph, &fit);
        return st_fail(err, fs, "%s: instance %d: %s", who, first, fit.message);
    }
    return st_fail(err, fs, "%s: instance %d: instance is " IN_NOT_LIVE, who, first);
}
