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

#ifdef __cplusplus
}
#endif
#endif
