/* stance/controller.h - the gameplay controller: the animation graph hidden
 * behind Set/Reset by state id (the Bullet Waste design, seeds/004).
 *
 * Each layer runs its own state machine and has a priority (the graph's
 * layer order; higher layers later). Gameplay calls set(state): the state
 * starts on its layer. Override layers are exclusive: the highest one that
 * plays is visible, its weight rising to 1 while the previous one falls to 0
 * over the fade time (uniform, or the state's own). Lower layers keep
 * playing unseen and show again when the layers above finish: a one-shot
 * state that ends with nothing following it empties its layer, reset(state)
 * empties it too. A set on the same layer interrupts that layer's state.
 * Additive layers fade in and out on their own. Unconditional transitions
 * in the graph play sequences (A then B) with no gameplay code.
 *
 * Like an instance, a controller is created once with all its memory;
 * update allocates nothing. */
#ifndef STANCE_CONTROLLER_H
#define STANCE_CONTROLLER_H

#include "instance.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct stance_controller_desc {
    float fade_time;          /* seconds for a layer fade and a switch within a layer; 0 = 0.25 */
    stance_switch_mode mode;  /* how a set() switches within a playing layer (default crossfade) */
} stance_controller_desc;

typedef struct stance_controller stance_controller;

/* Override layers must come in increasing priority; layers with initial
 * weight 0 start empty, the others play their entry state. */
STANCE_API stance_status stance_controller_create(const stance_graph *graph, const stance_controller_desc *desc,
                                       const stance_allocator *allocator, stance_controller **out,
                                       stance_error *err);
STANCE_API void stance_controller_destroy(stance_controller *ctl); /* NULL is fine */

/* Starts `state` (a global state id, e.g. from `stance gen-header`) on its layer. */
STANCE_API stance_status stance_controller_set(stance_controller *ctl, int state, stance_error *err);
/* Stops `state` if it is playing: its layer empties and fades out. */
STANCE_API stance_status stance_controller_reset(stance_controller *ctl, int state, stance_error *err);
/* The instance's parameter setters (stance/params.h: the same checks and
 * messages); a NULL controller is STANCE_ERR_ARGUMENT. By name: through
 * stance_controller_instance and stance_instance_set_*_by_name. */
STANCE_API stance_status stance_controller_set_float(stance_controller *ctl, int param, float value, stance_error *err);
STANCE_API stance_status stance_controller_set_int(stance_controller *ctl, int param, int value, stance_error *err);
STANCE_API stance_status stance_controller_set_bool(stance_controller *ctl, int param, int value, stance_error *err);
STANCE_API stance_status stance_controller_set_trigger(stance_controller *ctl, int param, stance_error *err);

/* Updates the controller's instance with `workspace` (see instance.h: the
 * same statuses and messages; a NULL controller is STANCE_ERR_ARGUMENT). */
STANCE_API stance_status stance_controller_update(stance_controller *ctl, float dt, stance_workspace *workspace,
                                       stance_error *err);

/* Queries: a NULL controller or a layer out of range answers NULL, 0 or -1. */
/* Events of the last update: the instance's (state entered/exited,
 * transitions, clip markers, clip finished) and the controller's
 * (STANCE_EVENT_STATE_ENDED, STANCE_EVENT_LAYER_SHOWN / _HIDDEN), in order. */
STANCE_API const stance_event *stance_controller_events(const stance_controller *ctl, int *count);

/* The visible override layer (-1 for NULL), and 1 when a layer plays a state. */
STANCE_API int stance_controller_visible_layer(const stance_controller *ctl);
STANCE_API int stance_controller_layer_playing(const stance_controller *ctl, int layer);
/* The layer's visibility share (exclusive layers sum to 1) or an additive layer's weight. */
STANCE_API float stance_controller_layer_weight(const stance_controller *ctl, int layer);
/* The state a layer plays, or -1 when it is empty. */
STANCE_API int stance_controller_layer_state(const stance_controller *ctl, int layer);

/* The controller's instance, for queries and instance calls. Not stable
 * across stance_controller_reload: a reload destroys it and makes another,
 * so call this again after each reload and keep no copy of the pointer. A
 * pointer kept past a reload (or the controller's destroy) points at freed
 * memory; while that memory is not reused, every public instance function
 * refuses it (STANCE_ERR_ARGUMENT, "... destroyed ..."), and a debug build
 * (NDEBUG not defined) also fills the freed block with 0xDB bytes first. A
 * best effort, not a guarantee: the allocator may hand the block out again. */
STANCE_API stance_instance *stance_controller_instance(stance_controller *ctl);
STANCE_API const stance_graph *stance_controller_graph(const stance_controller *ctl);

/* Hot reload: moves the running character onto `graph` (another version of
 * the same file): parameters, layers and states carry over where the names
 * still exist; what was dropped is written to `report`. On error nothing
 * changes (the character keeps playing the old graph). The old graph must
 * outlive this call only. The controller pointer stays valid; the instance
 * pointer does not (see stance_controller_instance).
 *
 * The workspace (issue 22): a graph the controller's workspace does not fit
 * (more machines or joints than it was made for, see stance_workspace_fits
 * in instance.h), which every later update would refuse with STANCE_ERR_MEMORY,
 * is refused here instead, before anything else changes: STANCE_ERR_MEMORY,
 * a message naming what the workspace serves, what the graph needs and the
 * bytes of a workspace for it (stance_workspace_bytes), and the same as one
 * line in `report` ("workspace too small: ..."). stance_controller_reload
 * checks against the workspace of the controller's last successful update
 * (before any update, against one made for the controller's current graph);
 * stance_controller_reload_ws checks against `workspace` (NULL: as
 * stance_controller_reload) and is how a graph with more machines is taken:
 * create a workspace from the new graph (it also serves the old one, which
 * has fewer machines), reload with it, then update with it. So a reload
 * never leaves the controller on a graph its workspace cannot update.
 *
 * The skeleton stays: a graph whose skeleton differs (joint count, a joint's
 * name or parent) is refused with STANCE_ERR_ARGUMENT and a message naming
 * both joint counts, so the pose never changes its joint count under the
 * caller; create a new controller for another character. The same skeleton
 * loaded again (a reloaded file's own copy) is accepted. */
STANCE_API stance_status stance_controller_reload(stance_controller *ctl, const stance_graph *graph, char *report,
                                       size_t report_size, stance_error *err);
STANCE_API stance_status stance_controller_reload_ws(stance_controller *ctl, const stance_graph *graph,
                                          const stance_workspace *workspace, char *report, size_t report_size,
                                          stance_error *err);

#ifdef __cplusplus
}
#endif
#endif
