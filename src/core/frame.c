/* src/core/frame.c - the update entry points: one instance, or many with
 * one workspace. Each update runs the frame's stages in order, each a loop
 * over what the graph compiled (docs/frame.md): advance (advance.c: play
 * requests, parameters, transitions, playback, events, root motion; the
 * plan), evaluate (evaluate.c: the plan's samples, blends and switches into
 * the local pose), local-to-model (local_to_model.c: the model pose), IK
 * (ik_stage.c: each entry, then the local-to-model of the joints it turned).
 * Skinning is the caller's, from the model pose. No stage calls another.
 *
 * An update allocates nothing and reads only its own instance, its
 * workspace and the shared, immutable graph and clips. */
#include "core/advance.h"
#include "core/evaluate.h"
#include "core/ik_stage.h"
#include "core/internal.h"

stance_status stance_instance_update(stance_instance *inst, float dt, stance_workspace *ws) {
    return stance_instance_update_ex(inst, dt, 0, ws);
}

/* One update, its instance and workspace checked (the workspace fits the
 * graph and is bound for it), dt a valid step. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline stance_status update_one(stance_instance *inst, float dt, unsigned flags, stance_workspace *ws) {
    const stance_graph *g = inst->graph;
    adv_frame(inst, ws, dt, flags);                                    /* decides; writes the plan */
    ev_frame(inst, ws);                                                /* the local pose, from the plan */
    st_local_to_model_range(in_model(inst), in_local(inst), g->skeleton, -1, 0); /* the model pose */
    stance_status s = g->ik_count ? ik_frame(inst, ws, dt) : STANCE_OK; /* each entry, then its joints' */
    inst->events_sealed = 1;
    return s;
}

stance_status stance_instance_update_ex(stance_instance *inst, float dt, unsigned flags, stance_workspace *ws) {
    if (!in_live(inst) || !ws) return STANCE_ERR_ARGUMENT;
    if (!st_finite(dt) || dt < 0.0f || dt > 1.0f) return STANCE_ERR_VALUE;
    dt = st_step(dt); /* issue 12: a step under STANCE_MIN_DT is a zero step (no history, no velocity from it) */
    if (stance_workspace_fits(ws, inst->graph, NULL)) return STANCE_ERR_MEMORY;
    ws_bind(ws, inst->graph);
    return update_one(inst, dt, flags, ws);
}

stance_status stance_instances_update(stance_instance *const *instances, int count, float dt, stance_workspace *ws) {
    if ((!instances && count) || count < 0 || !ws) return STANCE_ERR_ARGUMENT;
    if (!st_finite(dt) || dt < 0.0f || dt > 1.0f) return STANCE_ERR_VALUE;
    const float step = st_step(dt);
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
            s = update_one(inst, step, 0, ws);
        }
        if (s && !first) first = s;
    }
    return first;
}
