/* src/core/frame/frame.c - the update entry points: one instance, or many with
 * one workspace. Each update runs the frame's stages in order (core/frame/frame.h,
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
#include <stdio.h>

#include "core/frame/frame.h"

stance_status stance_instance_update(stance_instance *inst, float dt, stance_workspace *ws, stance_error *err) {
    return stance_instance_update_ex(inst, dt, 0, ws, err);
}

typedef stance_status (*frame_fn)(stance_instance *, stance_workspace *, float, unsigned);

/* One update, its instance and workspace checked (the workspace fits the
 * graph and is bound for it), dt a valid step. frame: the copy of the
 * stages a test switched the workspace to (ws->frame), or NULL for the
 * fast paths: a constant where the update is inlined, so the fast path
 * pays nothing for the switch. */
ST_FORCEINLINE stance_status update_one(stance_instance *inst, float dt, unsigned flags, stance_workspace *ws, frame_fn frame) {
    stance_status s = frame ? frame(inst, ws, dt, flags) : fr_stages(inst, ws, dt, flags);
    inst->events_sealed = 1;
    return s;
}

/* The update's refusals, with their messages (only a refused call gets
 * here: the per-update path builds none). index: the instance's in a batch,
 * or -1; in_frame: the frame ran and its IK stage refused it (a footlock's
 * world root outside the limits of stance/base.h). */
static stance_status update_refused(stance_status s, const stance_instance *inst, const stance_workspace *ws, float dt,
                                    const char *who, int index, int in_frame, stance_error *err) {
    char at[32] = "";
    if (index >= 0) snprintf(at, sizeof at, "instance %d: ", index);
    if (in_frame) return st_fail(err, s, "%s: %sthe IK stage refused the frame (%s)", who, at, stance_status_name(s));
    if (s == STANCE_ERR_VALUE) return st_fail(err, s, "%s: dt %g is not finite in [0, 1]", who, (double)dt);
    if (s == STANCE_ERR_MEMORY) {
        stance_error fit;
        stance_workspace_fits(ws, inst->graph, &fit);
        return st_fail(err, s, "%s: %s%s", who, at, fit.message);
    }
    if (!ws) return st_fail(err, s, "%s: workspace is NULL", who);
    return st_fail(err, s, "%s: %sinstance is " IN_NOT_LIVE, who, at);
}

stance_status stance_instance_update_ex(stance_instance *inst, float dt, unsigned flags, stance_workspace *ws,
                                        stance_error *err) {
    static const char who[] = "instance update";
    if (!in_live(inst) || !ws) return update_refused(STANCE_ERR_ARGUMENT, inst, ws, dt, who, -1, 0, err);
    if (!st_finite(dt) || dt < 0.0f || dt > 1.0f) return update_refused(STANCE_ERR_VALUE, inst, ws, dt, who, -1, 0, err);
    dt = st_step(dt); /* issue 12: a step under STANCE_MIN_DT is a zero step (no history, no velocity from it) */
    if (stance_workspace_fits(ws, inst->graph, NULL)) return update_refused(STANCE_ERR_MEMORY, inst, ws, dt, who, -1, 0, err);
    ws_bind(ws, inst->graph);
    const stance_status s = ws->frame ? update_one(inst, dt, flags, ws, ws->frame) : update_one(inst, dt, flags, ws, NULL);
    return s ? update_refused(s, inst, ws, dt, who, -1, 1, err) : st_ok(err);
}

/* A frame the pose skips (animation LOD, stance/lod.h): the advance stage
 * alone, exactly as in an update (requests, parameters, transitions,
 * playback, events, root motion, the world root), then the snapshots of the
 * switches it began; no sampling, no local or model pose, no IK. A machine
 * that keeps history records none for this frame: its history is cleared
 * (the next switch fades from the pose as it stands, without velocity). */
stance_status stance_instance_advance(stance_instance *inst, float dt, stance_workspace *ws, stance_error *err) {
    static const char who[] = "instance advance";
    if (!in_live(inst) || !ws) return update_refused(STANCE_ERR_ARGUMENT, inst, ws, dt, who, -1, 0, err);
    if (!st_finite(dt) || dt < 0.0f || dt > 1.0f) return update_refused(STANCE_ERR_VALUE, inst, ws, dt, who, -1, 0, err);
    dt = st_step(dt);
    if (stance_workspace_fits(ws, inst->graph, NULL)) return update_refused(STANCE_ERR_MEMORY, inst, ws, dt, who, -1, 0, err);
    ws_bind(ws, inst->graph);
    adv_skip_frame(inst, ws, dt); /* (skip_frame.c) */
    return st_ok(err);
}

/* stance_instances_update's loop, with the copy of the stages chosen once
 * for the batch (update_one), and `ahead` (a constant where it is inlined)
 * whether each update first asks for the next instance's hot part. The
 * first refusal: its index in *at, and in *in_frame whether its frame ran
 * (for the message). */
ST_FORCEINLINE stance_status update_batch(stance_instance *const *instances, int count, float step, stance_workspace *ws,
                                         frame_fn frame, int ahead, int *at, int *in_frame) {
    const stance_graph *fitted = NULL; /* the graph the workspace was last checked and bound for */
    stance_status first = STANCE_OK;
    for (int i = 0; i < count; i++) {
        stance_instance *inst = instances[i];
        stance_status s;
        int ran = 0;
        if (!in_live(inst)) {
            s = STANCE_ERR_ARGUMENT;
        } else if (inst->graph != fitted && stance_workspace_fits(ws, inst->graph, NULL)) {
            s = STANCE_ERR_MEMORY;
        } else {
            if (inst->graph != fitted) ws_bind(ws, inst->graph), fitted = inst->graph;
            /* the next instance's hot part is on its way while this one
             * updates (docs/performance.md) */
            if (ahead && i + 1 < count && instances[i + 1]) in_prefetch(instances[i + 1], inst->hot_bytes);
            s = update_one(inst, step, 0, ws, frame);
            ran = 1;
        }
        if (s && !first) first = s, *at = i, *in_frame = ran;
    }
    return first;
}

/* Whether a batch asks for each next instance ahead: as the workspace says
 * (st_workspace_set_prefetch): never, always, or (the default) when the
 * batch's hot parts come to WS_PREFETCH_BATCH_BYTES or more (the first live
 * instance's times the count). A smaller batch stays in the cache from one
 * frame to the next, where the hints would be instructions for nothing. */
static int batch_ahead(stance_instance *const *instances, int count, const stance_workspace *ws) {
    if (ws->prefetch == WS_PREFETCH_NEVER || count < 2) return 0;
    if (ws->prefetch == WS_PREFETCH_ALWAYS) return 1;
    for (int i = 0; i < count; i++)
        if (in_live(instances[i])) return (size_t)count * instances[i]->hot_bytes >= WS_PREFETCH_BATCH_BYTES;
    return 0;
}

stance_status stance_instances_update(stance_instance *const *instances, int count, float dt, stance_workspace *ws,
                                      stance_error *err) {
    static const char who[] = "instances update";
    if ((!instances && count) || count < 0 || !ws)
        return st_fail(err, STANCE_ERR_ARGUMENT, "%s: %s", who, !ws ? "workspace is NULL" : count < 0 ?
                       "count is negative" : "instances is NULL");
    if (!st_finite(dt) || dt < 0.0f || dt > 1.0f) return update_refused(STANCE_ERR_VALUE, NULL, ws, dt, who, -1, 0, err);
    const float step = st_step(dt);
    int at = -1, in_frame = 0;
    const int ahead = batch_ahead(instances, count, ws);
    const stance_status s = ws->frame ? update_batch(instances, count, step, ws, ws->frame, ahead, &at, &in_frame)
                            : ahead   ? update_batch(instances, count, step, ws, NULL, 1, &at, &in_frame)
                                      : update_batch(instances, count, step, ws, NULL, 0, &at, &in_frame);
    return s ? update_refused(s, instances[at], ws, dt, who, at, in_frame, err) : st_ok(err);
}
