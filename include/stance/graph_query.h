/* stance/graph_query.h - read-only introspection of a graph's transitions,
 * conditions and blend spaces, for editors and viewers (the lab's state-machine view): what
 * stance_graph_desc described, as the graph holds it after validation.
 *
 * Indices: transitions are numbered 0..stance_graph_transition_count-1 in the
 * order of each machine's description (machines in order); states and
 * parameters use the global indices of stance/graph.h. Nothing here
 * allocates or changes the graph. */
#ifndef STANCE_GRAPH_QUERY_H
#define STANCE_GRAPH_QUERY_H

#include "base.h"
#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One transition, as the graph runs it. */
typedef struct stance_transition_info {
    int machine;              /* the machine it belongs to */
    int from;                 /* global source state, -1 = any state of the machine */
    int to;                   /* global target state */
    int condition_count;      /* 0..STANCE_MAX_CONDITIONS */
    stance_exit_mode exit;
    float exit_time;          /* normalized (STANCE_EXIT_NORMALIZED) */
    float blend_time;         /* seconds, the graph's default filled in */
    stance_switch_mode mode;
    stance_easing easing;
    int uninterruptible, allow_self;
} stance_transition_info;

/* One condition of a transition. */
typedef struct stance_condition_info {
    int param;                /* global parameter index */
    stance_compare op;
    float value, hysteresis;
    int group;                /* AND within a group, OR between groups */
} stance_condition_info;

/* A blend space state (STANCE_MOTION_BLEND1D / BLEND2D): the parameters that
 * place it and how many entries (clips at positions) it blends. */
typedef struct stance_blend_info {
    int param_x;              /* global parameter index of the x axis */
    int param_y;              /* global parameter index of the y axis; -1 for a 1D space */
    int entry_count;          /* its entries, at most STANCE_MAX_BLEND_ENTRIES */
} stance_blend_info;

/* Transitions of every machine; 0 for NULL. */
STANCE_API int stance_graph_transition_count(const stance_graph *graph);
/* Fills *out for transition `transition`; STANCE_ERR_ARGUMENT for NULL or an index out of range. */
STANCE_API stance_status stance_graph_transition(const stance_graph *graph, int transition, stance_transition_info *out,
                                      stance_error *err);
/* Fills *out for condition `condition` (0..condition_count-1) of a transition
 * (STANCE_ERR_ARGUMENT as above). */
STANCE_API stance_status stance_graph_condition(const stance_graph *graph, int transition, int condition,
                                     stance_condition_info *out, stance_error *err);
/* The first global state of a machine and how many it has (a machine's states
 * are consecutive); STANCE_ERR_ARGUMENT for NULL or a bad machine. */
STANCE_API stance_status stance_graph_machine_states(const stance_graph *graph, int machine, int *first, int *count,
                                          stance_error *err);
/* The machine's entry state (global), -1 for a bad machine. */
STANCE_API int stance_graph_machine_entry(const stance_graph *graph, int machine);
/* How a state moves: clip, blend space or nested machine; -1 for a bad state. */
STANCE_API int stance_graph_state_motion(const stance_graph *graph, int state);
/* Fills *out for a blend space state; STANCE_ERR_ARGUMENT for NULL, a bad
 * state or a state that is not a blend space. */
STANCE_API stance_status stance_graph_blend_space(const stance_graph *graph, int state, stance_blend_info *out,
                                                  stance_error *err);
/* The position of entry `entry` (0..entry_count-1) of a blend space state:
 * position[0] its x, position[1] its y (0 in a 1D space); STANCE_ERR_ARGUMENT
 * as above or for an entry out of range. */
STANCE_API stance_status stance_graph_blend_entry(const stance_graph *graph, int state, int entry, float position[2],
                                                  stance_error *err);
/* "<", ">=", "==", "true", ...: the operator's text; "?" for an unknown one. */
STANCE_API const char *stance_compare_symbol(stance_compare op);

/* ---- what an editor needs to write a graph back (the lab's "Edit this graph")
 * Drives (stance_drive_desc, stance/build.h): what a parameter, a layer's
 * weight or an IK entry's weight follows each update, as the graph keeps
 * them: the parameter drives first, then the others, each group in the
 * description's order. */
typedef struct stance_drive_info {
    stance_drive_target target;  /* a parameter, a layer's weight or an IK entry's weight */
    int index;                   /* the parameter, layer or IK entry driven (global index) */
    int param;                   /* the source parameter (a float or int), -1 when the source is a curve */
    int curve;                   /* the source curve's id (stance_graph_curve_name), -1 when it is a parameter */
} stance_drive_info;
/* How many drives the graph has; 0 for NULL or none. */
STANCE_API int stance_graph_drive_count(const stance_graph *graph);
/* Fills *out for drive `drive` (0..count-1); STANCE_ERR_ARGUMENT for NULL or an index out of range. */
STANCE_API stance_status stance_graph_drive(const stance_graph *graph, int drive, stance_drive_info *out,
                                            stance_error *err);

/* Curve tracks (one clip's keys of one curve) in the order the description
 * gave them (tracks of clips no state plays left out): a writer that lists
 * each clip's curves in this order, the clips in the order of their first
 * track, gives the same curve ids back. 0 for NULL or none. */
STANCE_API int stance_graph_track_count(const stance_graph *graph);
/* Track `track`: *clip and *out (its curve id, key count and keys, which
 * live as long as the graph); STANCE_ERR_ARGUMENT for NULL or an index out of range. */
STANCE_API stance_status stance_graph_track(const stance_graph *graph, int track, const stance_clip **clip,
                                            stance_clip_curve *out, stance_error *err);
/* The played clips that have sync markers or a ground speed
 * (stance_clip_sync_desc), in the description's order: writes up to
 * `capacity` (clips may be NULL) and returns how many there are; 0 for NULL. */
STANCE_API int stance_graph_sync_clips(const stance_graph *graph, const stance_clip **clips, int capacity);

/* One IK entry as the graph runs it (stance_ik_desc resolved to joints).
 * What a footlock entry's contacts were found with (the contact thresholds,
 * root_velocity, down/up events) is not kept: the contacts themselves are
 * (stance_graph_ik_contacts). */
typedef struct stance_ik_info {
    const char *name;                    /* lives as long as the graph */
    stance_ik_kind kind;
    int leg_count;                       /* footlock 1..STANCE_FOOT_MAX, two_bone 1, aim 0 */
    int legs[STANCE_FOOT_MAX][3];        /* per leg: its hip, knee and ankle joints */
    int pelvis;                          /* footlock: the joint lowered when a leg cannot reach, -1 none */
    int pelvis_default;                  /* footlock: 1 when the description left it out (the first hip's parent) */
    float blend_time, plant_time;        /* footlock: as described, 0 = stance_footlock_desc's defaults */
    float softness;                      /* footlock and two_bone: as described, 0 = the default */
    int chain_count;                     /* aim: 1..STANCE_AIM_MAX_CHAIN joints, top to end; else 0 */
    int chain[STANCE_AIM_MAX_CHAIN];
    float forward[3];                    /* aim: the end joint's axis as described (zero = +Z) */
    float max_angle;                     /* aim: each joint's largest turn in radians, 0 = no limit */
} stance_ik_info;
/* Fills *out for IK entry `ik` (0..stance_graph_ik_count-1); STANCE_ERR_ARGUMENT for NULL or an index out of range. */
STANCE_API stance_status stance_graph_ik_info(const stance_graph *graph, int ik, stance_ik_info *out, stance_error *err);

#ifdef __cplusplus
}
#endif
#endif
