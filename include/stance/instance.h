/* stance/instance.h - the per-character instance that runs a graph, and
 * the per-thread workspace it updates in.
 *
 * A stance_graph is shared and immutable; a stance_instance is one
 * character's persistent state (parameters, machine states, cursors, the
 * history its switch modes need, its output poses and events), created once
 * with all its memory. Evaluation scratch lives in a stance_workspace the
 * caller owns, one per thread. Updating an instance allocates nothing, does
 * no I/O and touches no other instance, so instances of one graph update
 * safely on different threads, each thread with its own workspace:
 *
 *     // thread t of T updates characters [t*N/T, (t+1)*N/T) with workspace ws[t]
 *     stance_instances_update(inst + t * N / T, (t + 1) * N / T - t * N / T, dt, ws[t], &err[t]);
 *
 * The result does not depend on how a crowd is split (each instance's
 * update reads only itself and the graph). */
#ifndef STANCE_INSTANCE_H
#define STANCE_INSTANCE_H

#include "events.h"
#include "graph.h"
#include "params.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STANCE_MIN_DT 1e-6f       /* update steps below this (subnormal, tiny) are treated as 0 */

/* ---- workspace: per-thread evaluation scratch --------------------------------
 * Sized from a graph: it serves every graph with no more joints and machines
 * (so one workspace made from the largest graph serves them all); a graph
 * that does not fit is refused (update returns STANCE_ERR_MEMORY;
 * stance_workspace_fits says why). One thread at a time uses a workspace;
 * nothing in it outlives an update. */
STANCE_API stance_status stance_workspace_create(const stance_graph *graph, const stance_allocator *allocator,
                                      stance_workspace **out, stance_error *err);
STANCE_API void stance_workspace_destroy(stance_workspace *workspace); /* NULL is fine */
/* What create allocates for `graph`, and a workspace's size; 0 for NULL. */
STANCE_API size_t stance_workspace_bytes(const stance_graph *graph);
STANCE_API size_t stance_workspace_size(const stance_workspace *workspace);
/* STANCE_OK when `workspace` serves `graph`; else STANCE_ERR_MEMORY naming
 * both sizes (STANCE_ERR_ARGUMENT for NULL). */
STANCE_API stance_status stance_workspace_fits(const stance_workspace *workspace, const stance_graph *graph,
                                    stance_error *err);

typedef enum stance_history {
    /* Two past output poses and a switch record only for machines whose
     * transitions use inertialization or dead blending. On other machines
     * those modes (asked for by stance_instance_play or
     * stance_instance_override_switch) fade from the frozen last pose
     * instead, and stance_instance_machine_status reports STANCE_SWITCH_FROZEN. */
    STANCE_HISTORY_AUTO = 0,
    STANCE_HISTORY_ALL        /* history for every machine (experiments, the lab) */
} stance_history;

typedef struct stance_instance_desc {
    stance_history history;
} stance_instance_desc;

/* desc may be NULL (all defaults). */
STANCE_API stance_status stance_instance_create_ex(const stance_graph *graph, const stance_instance_desc *desc,
                                        const stance_allocator *allocator, stance_instance **out,
                                        stance_error *err);
STANCE_API stance_status stance_instance_create(const stance_graph *graph, const stance_allocator *allocator,
                                     stance_instance **out, stance_error *err);
/* Bytes of the instance's one block (its whole persistent state) and the
 * graph it runs; 0 and NULL for a NULL (or destroyed) instance. */
STANCE_API size_t stance_instance_bytes(const stance_instance *instance);
STANCE_API const stance_graph *stance_instance_graph(const stance_instance *instance);
STANCE_API void stance_instance_destroy(stance_instance *instance); /* NULL is fine */
/* Copies the whole state of src into dst (same graph, same desc; else
 * STANCE_ERR_ARGUMENT and dst unchanged). */
STANCE_API stance_status stance_instance_copy(stance_instance *dst, const stance_instance *src, stance_error *err);
/* Back to the initial state: parameters at their defaults, entry states, time 0. */
STANCE_API stance_status stance_instance_reset(stance_instance *instance, stance_error *err);

/* ---- saved states: rollback, replays, rewinds ----------------------------------
 * An instance's whole persistent state (everything an update reads: the
 * parameters, each machine's play state, switch, history and requests, its
 * cursors, layer weights, poses, switch records, IK locks and targets, the
 * world root, the events of the last update) in a caller's buffer, with no
 * allocation: save at frame N, run on, restore, and the updates from N are
 * bit for bit those of the first run. The ground callback is not state: an
 * instance restored keeps its own. The buffer is in the machine's byte order
 * (for this build's platform; docs/api.md).
 *
 * state_size: the bytes a state of an instance of `graph` created with
 * `desc` (NULL: defaults) takes. It depends only on the graph and desc.
 * save: writes that many bytes into buf (size >= them, else
 * STANCE_ERR_MEMORY naming both). restore: buf must be a state saved from
 * an instance of a graph of the same identity (shape, names and clip
 * lengths: the same graph, or one built from the same description) and the
 * same desc, of exactly state_size bytes; every field is checked first
 * (magic, format version, size, the header's and the body's hashes, then
 * every index in range, every float finite and within the limits of
 * stance/base.h, weights in [0, 1]) and a refused restore changes nothing:
 * STANCE_ERR_ARGUMENT for another graph or desc, STANCE_ERR_UNSUPPORTED for
 * another format version, STANCE_ERR_FORMAT for a buffer that is not a
 * state, of the wrong size, corrupt or with a value out of range. */
STANCE_API stance_status stance_instance_state_size(const stance_graph *graph, const stance_instance_desc *desc, size_t *size,
                                         stance_error *err);
STANCE_API stance_status stance_instance_save(const stance_instance *instance, void *buf, size_t size, stance_error *err);
STANCE_API stance_status stance_instance_restore(stance_instance *instance, const void *buf, size_t size, stance_error *err);

/* Overrides every transition's switch mode / blend time / easing (for
 * experiments and the lab). mode < 0, blend_time <= 0, easing < 0 = no
 * override; a mode or easing past the last is STANCE_ERR_ARGUMENT, a blend
 * time not finite or over 60 s STANCE_ERR_VALUE (nothing changes). */
STANCE_API stance_status stance_instance_override_switch(stance_instance *inst, int mode, float blend_time, int easing,
                                              stance_error *err);

#define STANCE_UPDATE_NO_TRANSITIONS 1 /* update flag: start no transition this update */

/* Advances by dt seconds and evaluates: carries out play requests, checks
 * transitions, advances playback, evaluates every machine (nested ones
 * too, with the same dt), composes the layers, builds the local and model
 * poses, records events and root motion. dt must be finite and in [0, 1]
 * (else STANCE_ERR_VALUE, nothing changes); a dt below STANCE_MIN_DT
 * (subnormal or tiny) is treated as 0: the pose is evaluated, nothing
 * moves, and no velocity is ever taken over such a step. workspace: see
 * above (NULL: STANCE_ERR_ARGUMENT; one that does not fit the graph:
 * STANCE_ERR_MEMORY, the message as stance_workspace_fits's). */
STANCE_API stance_status stance_instance_update(stance_instance *inst, float dt, stance_workspace *workspace,
                                     stance_error *err);
STANCE_API stance_status stance_instance_update_ex(stance_instance *inst, float dt, unsigned flags,
                                        stance_workspace *workspace, stance_error *err);
/* Updates instances[0..count) in order with one workspace, exactly as
 * count calls of stance_instance_update (bit for bit). The instances may
 * belong to different graphs that fit the workspace. Returns the first
 * error (its message names the instance's index), after updating all the
 * others. */
STANCE_API stance_status stance_instances_update(stance_instance *const *instances, int count, float dt,
                                      stance_workspace *workspace, stance_error *err);

/* A frame whose pose is skipped (animation LOD, stance/lod.h, docs/lod.md):
 * the update's first stage alone, exactly as stance_instance_update runs
 * it: play requests, parameters, transitions, playback, events (read with
 * stance_instance_events as after an update), root motion and the world
 * root; no clip is sampled and the local and model poses stay those of the
 * last update (IK and foot locks do not run). So an instance that advances
 * on the frames it skips and updates on the others has the events, root
 * motion and transitions of one updated every frame, bit for bit. A
 * machine that keeps history (inertialization, dead blending) records none
 * for a skipped frame: its history is cleared. Checks and errors as
 * stance_instance_update's. */
STANCE_API stance_status stance_instance_advance(stance_instance *inst, float dt, stance_workspace *workspace,
                                      stance_error *err);
/* Advances instances[0..count) in order with one workspace, exactly as
 * count calls of stance_instance_advance (bit for bit), asking for each
 * next instance's state ahead when the batch does not stay in the cache
 * (docs/lod.md). Returns the first error (its message names the
 * instance's index), after advancing all the others. */
STANCE_API stance_status stance_instances_advance(stance_instance *const *instances, int count, float dt,
                                       stance_workspace *workspace, stance_error *err);

/* ---- what the last update made ------------------------------------------------
 * Queries: a NULL (or destroyed) instance answers NULL, 0 or zeros. */
STANCE_API const stance_pose *stance_instance_local_pose(const stance_instance *inst);
STANCE_API const stance_pose *stance_instance_model_pose(const stance_instance *inst);
/* Root displacement of the last update (the base layer's motion, model
 * space: in the root's frame at the update's start); out NULL writes nothing. */
STANCE_API void stance_instance_root_motion(const stance_instance *inst, float out[3]);
/* The root's turn in the last update (radians about the root's up axis):
 * the base layer's clips' root yaw (stance_clip_root_motion_yaw), weighted
 * like the translation through blends and crossfades. Unless the caller
 * owns the root, the world root moved by the translation and then turned by
 * this about its own +Y. 0 for clips without root yaw; for a turn about
 * another axis (a path with full rotation) its twist about +Y. */
STANCE_API float stance_instance_root_yaw(const stance_instance *inst);
/* The root's turn in the last update as a unit quaternion (x y z w) in the
 * root's frame: the base layer's clips' root rotation
 * (stance_clip_root_motion_rot; a yaw about +Y), weighted through blend
 * spaces and crossfades as rotation vectors (angle x axis: about one axis
 * the weighted angle), every other switch mode taking the current play's.
 * Unless the caller owns the root, the world root moved by the translation
 * and then turned by this (world = world x q). The identity when the root
 * did not turn; q NULL writes nothing. */
STANCE_API void stance_instance_root_rotation(const stance_instance *inst, float q[4]);
/* Clips sampled by the last update (a cost measure). */
STANCE_API int stance_instance_clips_sampled(const stance_instance *inst);
STANCE_API float stance_instance_time(const stance_instance *inst);

/* ---- the world root, the ground, IK targets ----------------------------------- */

/* The character's world transform, which places it for foot locking.
 * Until set, the instance starts at the identity and moves it by its own
 * root motion each update (rotated by the root's rotation). Once set, the
 * caller owns it: each update uses the last one set (set it every frame
 * for a character gameplay moves); root NULL = back to moving it by root
 * motion from where it is. teleport = 1 also forgets every lock (as on
 * reset): feet plant anew where they are. The rotation must be a unit
 * quaternion (within 1e-3; it is normalized); translation and scale within
 * the limits of stance/base.h (|t| <= STANCE_MAX_TRANSLATION, |s| in
 * [STANCE_MIN_SCALE, STANCE_MAX_SCALE]), the rule the footlock stage uses
 * too; else STANCE_ERR_VALUE naming the limit. */
STANCE_API stance_status stance_instance_set_root(stance_instance *inst, const stance_transform *root, int teleport,
                                       stance_error *err);
/* The world root now (the identity for a NULL instance; out NULL writes nothing). */
STANCE_API void stance_instance_root(const stance_instance *inst, stance_transform *out);
/* The ground under world (x, z) for the footlock entries; fn NULL = flat
 * ground at the root's height. */
STANCE_API stance_status stance_instance_set_ground(stance_instance *inst, stance_ground_fn fn, void *user,
                                         stance_error *err);
/* The target of a two_bone or aim entry, in model space (the character's
 * own space; a position within the limits of stance/base.h), and how much of
 * the solve shows, in [0, 1] (0, the initial value, leaves the pose as the
 * layers made it). Kept until set again;
 * reset returns it to weight 0. */
STANCE_API stance_status stance_instance_set_ik_target(stance_instance *inst, int ik, const float target[3], float weight,
                                            stance_error *err);
/* The pole of a two_bone entry, in model space (a position within the
 * limits of stance/base.h): the knee (the middle joint)
 * bends towards it (stance_two_bone_desc.pole). NULL clears it: the bend of
 * the layers' pose is kept, as before any pole was set. Kept until set
 * again; reset clears it; hot reload keeps it with the target. */
STANCE_API stance_status stance_instance_set_ik_pole(stance_instance *inst, int ik, const float pole[3], stance_error *err);
/* The lock state of footlock entry `ik` after the last update (NULL for a bad index). */
STANCE_API const stance_footlock_state *stance_instance_footlock_state(const stance_instance *inst, int ik);

/* ---- machines ------------------------------------------------------------------
 * What a machine is doing. */
typedef struct stance_machine_status {
    int state;             /* global index of the current (target) state */
    float state_time;      /* seconds in the current state */
    float normalized_time; /* current state's playback position / duration (loops count up) */
    int transition;        /* -1 when no transition is running, else the source state */
    float progress;        /* 0..1 through the running transition */
    stance_switch_mode mode;
} stance_machine_status;
/* STANCE_ERR_ARGUMENT for a NULL instance or out, or a machine out of range. */
STANCE_API stance_status stance_instance_machine_status(const stance_instance *inst, int machine,
                                             stance_machine_status *out, stance_error *err);
/* Switches the machine that owns `state` to it, like a transition with this
 * mode, easing and blend time (blend_time <= 0 or mode cut: at once). The
 * switch happens at the start of the next update (its events open that
 * update's list); until then stance_instance_machine_status reports the
 * state asked for, and a later play on the same machine replaces it. Used
 * by the gameplay controller; the state may be the current one (a restart). */
STANCE_API stance_status stance_instance_play(stance_instance *inst, int state, stance_switch_mode mode, stance_easing easing,
                                   float blend_time, stance_error *err);

/* Sets where machine `machine`'s current state is (machine numbers as
 * stance_instance_machine_status's: a layer's or a nested machine), at once:
 * `time` seconds into its clip; for a blend space, seconds of its dominant
 * entry's clip (the entry of the largest weight at the current parameters),
 * i.e. the phase time / that clip's duration. A looping state wraps (time
 * modulo the duration), a once state clamps at its end (seeking a finished
 * once state elsewhere plays it again; to its end, it finishes at the next
 * update unless it had). The loop count and the seconds in the state
 * (stance_machine_status.state_time) are kept.
 * A seek is a jump, not a crossing (docs/events.md, "Seeks"): no clip event
 * between the old and the new position fires, and from the next update
 * events fire once per crossing from the new position; open windows that do
 * not hold the new position end (STANCE_WINDOW_SEEK) and windows that hold it
 * begin (a window holds t when from <= t < to; playing backwards,
 * from < t <= to), appended to the last update's events; a window holding
 * both stays open. A seek moves no root (no root motion, the world root
 * unchanged) and the next pose is sampled at the new position (no blend).
 * Nothing is pending afterwards, so saved states carry it as any position.
 * Refused, nothing changed: STANCE_ERR_ARGUMENT for a NULL instance, a
 * machine out of range, a machine switching (a transition or blended play
 * running: seek when it has finished), a machine with a play request not
 * yet carried out, or a state that plays a nested machine (seek that
 * machine); STANCE_ERR_VALUE for a time not finite or negative. */
STANCE_API stance_status stance_instance_seek(stance_instance *inst, int machine, float time, stance_error *err);

/* ---- layers ------------------------------------------------------------------
 * The instance is the one owner of layer weights: set_layer_weight states a
 * target and the time to reach it (0 = at once, else a linear fade of
 * |target - weight| / fade_time per second), each update moves the weight
 * towards it. The weight must be finite in [0, 1] and fade_time finite in
 * [0, 60] s (else STANCE_ERR_VALUE); a bad layer, or a weight other than 1
 * for layer 0, is STANCE_ERR_ARGUMENT, and so is a layer whose weight the
 * graph binds to a parameter or curve (docs/curves.md: its weight is the
 * binding's; enable or disable it instead). */
STANCE_API stance_status stance_instance_set_layer_weight(stance_instance *inst, int layer, float weight,
                                               float fade_time, stance_error *err);
/* Current layer weight (after fades) and the target it moves to; 0 for a
 * NULL instance or a layer out of range. */
STANCE_API float stance_instance_layer_weight(const stance_instance *inst, int layer);
STANCE_API float stance_instance_layer_target(const stance_instance *inst, int layer);
/* A disabled layer's machine neither plays nor reports events (weight 0
 * layers still play). Layer 0 cannot be disabled (STANCE_ERR_ARGUMENT). */
STANCE_API stance_status stance_instance_set_layer_enabled(stance_instance *inst, int layer, int enabled,
                                                stance_error *err);
/* 1 when enabled; 0 when disabled, for a NULL instance or a layer out of range. */
STANCE_API int stance_instance_layer_enabled(const stance_instance *inst, int layer);

/* ---- curves (docs/curves.md) ----------------------------------------------------
 * A curve's value now: the sum, over the clips playing in enabled layers
 * whose clip has a track of the curve, of the track sampled at the clip's
 * cursor (where the last update left it) times the clip's weight in its
 * machine: a switch's eased progress for the incoming play and one minus
 * it for the outgoing one (in every switch mode, so a curve of a state that
 * fades out fades out with it), a blend space's entry weights, and the
 * weight of the nesting play for nested machines. Layer weights do not
 * scale it (so a curve may drive its own layer's weight), and layers
 * playing the same curve add. A clip without the curve counts 0: the value
 * is 0 when no playing clip has the curve. Allocates nothing.
 * STANCE_ERR_ARGUMENT for a NULL or destroyed instance or NULL value,
 * STANCE_ERR_NOT_FOUND for an unknown id or name (with the closest name). */
STANCE_API stance_status stance_instance_curve(const stance_instance *inst, int curve, float *value, stance_error *err);
STANCE_API stance_status stance_instance_curve_by_name(const stance_instance *inst, const char *name, float *value,
                                                       stance_error *err);

/* ---- hot reload ----------------------------------------------------------------
 * Moves what can be moved from `from` (an instance of another graph, e.g.
 * the previous version of a reloaded file) into `to`: parameters, layer
 * weights and each machine's current state and its time, matched by name;
 * the world root and ground; the locks, targets and poles of IK entries of the
 * same name and kind (locks only with the same leg count). What has no
 * counterpart is listed in `report` (may be NULL); a NULL instance is
 * STANCE_ERR_ARGUMENT (nothing moves). */
STANCE_API stance_status stance_instance_transfer(stance_instance *to, const stance_instance *from, char *report,
                                       size_t report_size, stance_error *err);

#ifdef __cplusplus
}
#endif
#endif
