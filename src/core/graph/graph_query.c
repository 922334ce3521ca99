/* src/core/graph/graph_query.c - the compiled graph's read-only queries: its
 * parameters, machines, states and layers by index and by name (stance/graph.h),
 * and the introspection of its transitions, conditions, blend spaces and machine layout
 * (stance/graph_query.h) for viewers such as the lab's state-machine view.
 * Reads the bound graph block only. */
#include <string.h>

#include "core/graph/graph_internal.h"
#include "core/base/internal.h"
#include "core/base/names.h"
#include "stance/graph_query.h"

const stance_skeleton *stance_graph_skeleton(const stance_graph *g) { return g ? g->skeleton : NULL; }
int stance_graph_param_count(const stance_graph *g) { return g ? g->param_count : 0; }
int stance_graph_find_param(const stance_graph *g, const char *name) {
    if (!g || !name) return -1;
    for (int i = 0; i < g->param_count; i++)
        if (!strcmp(g->params[i].name, name)) return i;
    return -1;
}
const char *stance_graph_param_name(const stance_graph *g, int p) {
    return g && p >= 0 && p < g->param_count ? g->params[p].name : "";
}
stance_param_type stance_graph_param_type(const stance_graph *g, int p) {
    return g && p >= 0 && p < g->param_count ? g->params[p].type : STANCE_PARAM_FLOAT;
}
int stance_graph_machine_count(const stance_graph *g) { return g ? g->machine_count : 0; }
int stance_graph_find_machine(const stance_graph *g, const char *name) {
    if (!g || !name) return -1;
    for (int i = 0; i < g->machine_count; i++)
        if (!strcmp(g->machines[i].name, name)) return i;
    return -1;
}
const char *stance_graph_machine_name(const stance_graph *g, int m) {
    return g && m >= 0 && m < g->machine_count ? g->machines[m].name : "";
}
int stance_graph_state_count(const stance_graph *g) { return g ? g->state_count : 0; }
int stance_graph_find_state(const stance_graph *g, const char *name) {
    if (!g || !name) return -1;
    const char *slash = strchr(name, '/');
    if (slash) {
        size_t ml = (size_t)(slash - name);
        for (int s = 0; s < g->state_count; s++) {
            const char *mn = g->machines[g->states[s].machine].name;
            if (strlen(mn) == ml && !strncmp(mn, name, ml) && !strcmp(g->states[s].name, slash + 1)) return s;
        }
        return -1;
    }
    int found = -1;
    for (int s = 0; s < g->state_count; s++)
        if (!strcmp(g->states[s].name, name)) {
            if (found >= 0) return -1; /* ambiguous: say Machine/State */
            found = s;
        }
    return found;
}
const char *stance_graph_state_name(const stance_graph *g, int s) {
    return g && s >= 0 && s < g->state_count ? g->states[s].name : "";
}
int stance_graph_state_machine(const stance_graph *g, int s) {
    return g && s >= 0 && s < g->state_count ? g->states[s].machine : -1;
}
int stance_graph_layer_count(const stance_graph *g) { return g ? g->layer_count : 0; }
int stance_graph_find_layer(const stance_graph *g, const char *name) {
    if (!g || !name) return -1;
    for (int i = 0; i < g->layer_count; i++)
        if (!strcmp(g->layers[i].name, name)) return i;
    return -1;
}
const char *stance_graph_layer_name(const stance_graph *g, int l) {
    return g && l >= 0 && l < g->layer_count ? g->layers[l].name : "";
}
int stance_graph_layer_machine(const stance_graph *g, int l) {
    return g && l >= 0 && l < g->layer_count ? g->layers[l].machine : -1;
}
int stance_graph_layer_priority(const stance_graph *g, int l) {
    return g && l >= 0 && l < g->layer_count ? g->layers[l].priority : 0;
}
static const char *param_at(const void *set, int i) { return ((const stance_graph *)set)->params[i].name; }
const char *stance_graph_closest_param(const stance_graph *g, const char *name) {
    const char *best = g ? st_closest_name(name, param_at, g, g->param_count, NULL) : NULL;
    return best ? best : "";
}

float stance_graph_state_fade_time(const stance_graph *g, int s) {
    return g && s >= 0 && s < g->state_count ? g->states[s].fade_time : 0.0f;
}
int stance_graph_state_once(const stance_graph *g, int s) {
    return g && s >= 0 && s < g->state_count ? g->states[s].once : 0;
}
stance_layer_mode stance_graph_layer_mode(const stance_graph *g, int l) {
    return g && l >= 0 && l < g->layer_count ? g->layers[l].mode : STANCE_LAYER_OVERRIDE;
}

/* How many clips state s plays, and its i-th. */
static int state_clip_count(const g_state *st) {
    return st->type == STANCE_MOTION_CLIP ? 1 : st->type == STANCE_MOTION_MACHINE ? 0 : st->entry_count;
}
static const stance_clip *state_clip(const stance_graph *g, const g_state *st, int i) {
    return st->type == STANCE_MOTION_CLIP ? st->clip : g->entries[st->entry_first + i].clip;
}

int stance_graph_clips(const stance_graph *g, const stance_clip **clips, int cap) {
    if (!g) return 0;
    int n = 0;
    for (int s = 0; s < g->state_count; s++)
        for (int i = 0; i < state_clip_count(&g->states[s]); i++) {
            const stance_clip *c = state_clip(g, &g->states[s], i);
            int seen = 0; /* first use: no earlier (state, entry) plays it */
            for (int s2 = 0; s2 <= s && !seen; s2++)
                for (int i2 = 0; i2 < (s2 < s ? state_clip_count(&g->states[s2]) : i) && !seen; i2++)
                    seen = state_clip(g, &g->states[s2], i2) == c;
            if (seen) continue;
            if (clips && n < cap) clips[n] = c;
            n++;
        }
    return n;
}


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

static const g_state *blend_state(const stance_graph *graph, int state, const char *what, stance_error *err) {
    if (!graph) { st_fail(err, STANCE_ERR_ARGUMENT, "%s: graph is NULL", what); return NULL; }
    if (state < 0 || state >= graph->state_count) {
        st_fail(err, STANCE_ERR_ARGUMENT, "%s: state %d is not in 0..%d", what, state, graph->state_count - 1);
        return NULL;
    }
    const g_state *s = &graph->states[state];
    if (s->type != STANCE_MOTION_BLEND1D && s->type != STANCE_MOTION_BLEND2D) {
        st_fail(err, STANCE_ERR_ARGUMENT, "%s: state '%s' is not a blend space", what, s->name);
        return NULL;
    }
    return s;
}

stance_status stance_graph_blend_space(const stance_graph *graph, int state, stance_blend_info *out, stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "graph blend space: out is NULL");
    const g_state *s = blend_state(graph, state, "graph blend space", err);
    if (!s) return STANCE_ERR_ARGUMENT;
    out->param_x = s->param_x;
    out->param_y = s->type == STANCE_MOTION_BLEND2D ? s->param_y : -1;
    out->entry_count = s->entry_count;
    return st_ok(err);
}

stance_status stance_graph_blend_entry(const stance_graph *graph, int state, int entry, float position[2],
                                       stance_error *err) {
    if (!position) return st_fail(err, STANCE_ERR_ARGUMENT, "graph blend entry: position is NULL");
    const g_state *s = blend_state(graph, state, "graph blend entry", err);
    if (!s) return STANCE_ERR_ARGUMENT;
    if (entry < 0 || entry >= s->entry_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "graph blend entry: entry %d is not in 0..%d (state '%s')", entry,
                       s->entry_count - 1, s->name);
    const g_entry *e = &graph->entries[s->entry_first + entry];
    position[0] = e->x;
    position[1] = s->type == STANCE_MOTION_BLEND2D ? e->y : 0.0f;
    return st_ok(err);
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
