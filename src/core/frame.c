/* src/core/frame.c - the update entry points: one instance, or many with
 * one workspace. Each update runs the frame's stages in order (core/frame.h,
 * docs/frame.md), each a loop over what the graph compiled: advance
 * (advance.c: play requests, parameters, transitions, playback, events,
 * root motion; the plan), evaluate (evaluate.c: the plan's samples, blends
 * and switches into the local pose), local-to-model (local_to_model.c: the
 * model pose), IK (ik_stage.c: each entry, then the local-to-model of the
 * joints it turned). Skinning is the caller's, from the model pose. A test
 * may switch a workspace to another compilation of the stages (its fast
 * paths off, or their baseline encoding: docs/fast-paths.md).
 *
 * An update allocates nothing and reads only its own instance, its
 * workspace and the shared, immutable graph and clips. */
#include "core/frame.h"

stance_status stance_instance_update(stance_instance *inst, float dt, stance_workspace *ws) {
    return stance_instance_update_ex(inst, dt, 0, ws);
}

typedef stance_status (*frame_fn)(stance_instance *, stance_workspace *, float, unsigned);

/* One update, its instance and workspace checked (the workspace fits the
 * graph and is bound for it), dt a valid step. frame: the copy of the
 * stages a test switched the workspace to (ws->frame), or NULL for the
 * fast paths: a constant where the update is inlined, so the fast path
 * pays nothing for the switch. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline stance_status update_one(stance_instance *inst, float dt, unsigned flags, stance_workspace *ws, frame_fn frame) {
    stance_status s = frame ? frame(inst, ws, dt, flags) : fr_stages(inst, ws, dt, flags);
    inst->events_sealed = 1;
    return s;
}

stance_status stance_instance_update_ex(stance_instance *inst, float dt, unsigned flags, stance_workspace *ws) {
    if (!in_live(inst) || !ws) return STANCE_ERR_ARGUMENT;
    if (!st_finite(dt) || dt < 0.0f || dt > 1.0f) return STANCE_ERR_VALUE;
    dt = st_step(dt); /* issue 12: a step under STANCE_MIN_DT is a zero step (no history, no velocity from it) */
    if (stance_workspace_fits(ws, inst->graph, NULL)) return STANCE_ERR_MEMORY;
    ws_bind(ws, inst->graph);
    return ws->frame ? update_one(inst, dt, flags, ws, ws->frame) : update_one(inst, dt, flags, ws, NULL);
}

/* stance_instances_update's loop, with the copy of the stages chosen once
 * for the batch (update_one). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline stance_status update_batch(stance_instance *const *instances, int count, float step, stance_workspace *ws,
                                         frame_fn frame) {
    const stance_graph *fitted = NULL; /* the graph the workspace was last checked and bound for */
    stance_status first = STANCE_OK;
    for (int i = 0; i < count; i++) {
        stance_instance *inst = instances[i];
        stance_status s;
        if (!in_live(inst)) {
            s = STANCE_ERR_ARGUMENT;
        } else if (inst->graph != fitted && stance_workspace_fits(ws, inst->graph, NULL)) {
            s = STANCE_ERR_MEMORY;
        } else {
            if (inst->graph != fitted) ws_bind(ws, inst->graph), fitted = inst->graph;
            s = update_one(inst, step, 0, ws, frame);
        }
        if (s && !first) first = s;
    }
    return first;
}

stance_status stance_instances_update(stance_instance *const *instances, int count, float dt, stance_workspace *ws) {
    if ((!instances && count) || count < 0 || !ws) return STANCE_ERR_ARGUMENT;
    if (!st_finite(dt) || dt < 0.0f || dt > 1.0f) return STANCE_ERR_VALUE;
    const float step = st_step(dt);
    return ws->frame ? update_batch(instances, count, step, ws, ws->frame) : update_batch(instances, count, step, ws, NULL);
}
