/* src/core/graph_query.c - read-only introspection of a graph's transitions,
 * conditions and machine layout (stance/graph_query.h), for viewers such as
 * the lab's state-machine view. Reads the validated graph block only. */
#include "core/graph_internal.h"
#include "core/internal.h"
#include "stance/graph_query.h"

int stance_graph_transition_count(const stance_graph *graph) { return graph ? graph->trans_count : 0; }

/* The transition index check of both calls below. */
static stance_status check_transition(const stance_graph *graph, int transition, const void *out, const char *who,
                                      stance_error *err) {
    if (!graph || !out) return st_fail(err, STANCE_ERR_ARGUMENT, "%s: graph or out is NULL", who);
    if (transition < 0 || transition >= graph->trans_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "%s: transition %d is not in 0..%d", who, transition,
                       graph->trans_count - 1);
    return STANCE_OK;
}

stance_status stance_graph_transition(const stance_graph *graph, int transition, stance_transition_info *out,
                                      stance_error *err) {
    if (check_transition(graph, transition, out, "graph transition", err)) return STANCE_ERR_ARGUMENT;
    const g_trans *t = &graph->trans[transition];
    out->machine = graph->states[t->to].machine;
    out->from = t->from;
    out->to = t->to;
    out->condition_count = t->cond_count;
    out->exit = t->exit;
    out->exit_time = t->exit_time;
    out->blend_time = t->blend_time > 0.0f ? t->blend_time : graph->default_blend_time;
    out->mode = t->mode;
    out->easing = t->easing;
    out->uninterruptible = t->uninterruptible;
    out->allow_self = t->allow_self;
    return st_ok(err);
}

stance_status stance_graph_condition(const stance_graph *graph, int transition, int condition,
                                     stance_condition_info *out, stance_error *err) {
    if (check_transition(graph, transition, out, "graph condition", err)) return STANCE_ERR_ARGUMENT;
    const g_trans *t = &graph->trans[transition];
    if (condition < 0 || condition >= t->cond_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "graph condition: condition %d is not in 0..%d (transition %d)",
                       condition, t->cond_count - 1, transition);
    const g_cond *c = &graph->conds[t->cond_first + condition];
    out->param = c->param;
    out->op = c->op;
    out->value = c->value;
    out->hysteresis = c->hysteresis;
    out->group = c->group;
    return st_ok(err);
}

stance_status stance_graph_machine_states(const stance_graph *graph, int machine, int *first, int *count,
                                          stance_error *err) {
    if (!graph || !first || !count) return st_fail(err, STANCE_ERR_ARGUMENT, "graph machine states: graph, first or count is NULL");
    if (machine < 0 || machine >= graph->machine_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "graph machine states: machine %d is not in 0..%d", machine,
                       graph->machine_count - 1);
    *first = graph->machines[machine].state_first;
    *count = graph->machines[machine].state_count;
    return st_ok(err);
}

int stance_graph_machine_entry(const stance_graph *graph, int machine) {
    if (!graph || machine < 0 || machine >= graph->machine_count) return -1;
    return graph->machines[machine].entry;
}

int stance_graph_state_motion(const stance_graph *graph, int state) {
    if (!graph || state < 0 || state >= graph->state_count) return -1;
    return (int)graph->states[state].type;
}

const char *stance_compare_symbol(stance_compare op) {
    switch (op) {
    case STANCE_CMP_GE: return ">=";
    case STANCE_CMP_GT: return ">";
    case STANCE_CMP_LE: return "<=";
    case STANCE_CMP_LT: return "<";
    case STANCE_CMP_EQ: return "==";
    case STANCE_CMP_NE: return "!=";
    case STANCE_CMP_TRUE: return "true";
    case STANCE_CMP_FALSE: return "false";
    }
    return "?";
}
