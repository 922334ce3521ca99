/* src/core/frame/skip_frame.c - a whole frame the pose skips (animation LOD,
 * docs/lod.md): the advance stage with its short plan (advance.c,
 * advance_skip.c), the snapshots of the switches it began, the history
 * cleared; and stance_instances_advance, a batch of them with the next
 * instance's controller state asked for ahead. stance_instance_advance
 * (frame.c) runs one. Owns no state. */
#include "core/base/internal.h"
#include "core/frame/advance.h"
#include "core/frame/evaluate.h"

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
