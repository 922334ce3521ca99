/* src/io/graphfile_machines.c - the "machines" section of a graph file:
 * machines, their states (clips, 1D/2D blend spaces, nested machines),
 * transitions and conditions, and the nesting rules. */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/internal.h"
#include "core/base/names.h"
#include "io/graphfile_internal.h"

#ifdef STANCE_HAVE_JANSSON
#include <jansson.h>
#include "stance/build.h"

/* ---- states --------------------------------------------------------------------- */

/* A blend space position: a number, or "speed_of:CLIP" (the clip's root speed). */
static stance_status get_position(ctx *c, const jobj *o, const char *key, float *out) {
    json_t *v = json_object_get(o->v, key);
    jpath p = {o->at, key, -1};
    if (!v) return gf_require(c, o, key);
    if (json_is_number(v)) return gf_get_number(c, o, key, 1, -1e6, 1e6, 0, out);
    const char *s = json_is_string(v) ? json_string_value(v) : NULL;
    if (!s || strncmp(s, "speed_of:", 9) != 0) {
        if (s)
            return gf_fail_at(c, &p, 0, STANCE_ERR_FORMAT,
                           "\"%s\": expected a number or \"speed_of:CLIP\", got \"%.63s\"", key, s);
        return gf_fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"%s\": expected a number or \"speed_of:CLIP\", got %s", key,
                       gf_type_name(v));
    }
    const stance_clip *clip;
    stance_status st = gf_find_clip(c, &p, s + 9, &clip);
    if (st) return st;
    if (!(clip->root_speed > 0.0f) || !isfinite(clip->root_speed))
        return gf_fail_at(c, &p, 0, STANCE_ERR_VALUE,
                       "clip '%s' has no root speed (it plays in place); give \"%s\" as a number", clip->name, key);
    *out = clip->root_speed;
    return STANCE_OK;
}

static stance_status param_for_blend(ctx *c, const jobj *o, const char *key, const char **out) {
    stance_status s = json_is_object(json_object_get(o->v, key)) ? gf_read_source_param(c, o, key, out) /* a binding */
                                                                  : gf_get_string(c, o, key, 1, out);
    if (s) return s;
    jpath p = {o->at, key, -1};
    int i;
    if ((s = gf_find_param(c, &p, *out, &i))) return s;
    if (c->params[i].type != STANCE_PARAM_FLOAT && c->params[i].type != STANCE_PARAM_INT)
        return gf_fail_at(c, &p, 0, STANCE_ERR_FORMAT, "parameter '%s' is a %s; expected a float or int parameter",
                       *out, gf_param_types[c->params[i].type].name);
    return STANCE_OK;
}

static stance_status read_blend(ctx *c, const jobj *o, int dims, stance_state_desc *st) {
    static const char *const keys1[] = {"param", "speed_warp", "entries", "events", NULL};
    static const char *const keys2[] = {"param_x", "param_y", "entries", "events", NULL};
    static const named blend_events[] = {{"dominant", STANCE_BLEND_EVENTS_DOMINANT}, {"all", STANCE_BLEND_EVENTS_ALL}, {NULL, 0}};
    static const char *const ekeys1[] = {"clip", "x", NULL};
    static const char *const ekeys2[] = {"clip", "x", "y", NULL};
    stance_status s;
    if ((s = gf_want_object(c, o->v, o->at, o->what)) || (s = gf_check_keys(c, o, dims == 1 ? keys1 : keys2)) ||
        (s = gf_get_enum(c, o, "events", "blend events", blend_events, &st->blend_events)))
        return s;
    if (dims == 1) {
        if ((s = param_for_blend(c, o, "param", &st->param_x)) || (s = gf_get_bool(c, o, "speed_warp", &st->speed_warp)))
            return s;
    } else if ((s = param_for_blend(c, o, "param_x", &st->param_x)) || (s = param_for_blend(c, o, "param_y", &st->param_y))) {
        return s;
    }
    json_t *arr;
    int n;
    if ((s = gf_get_array(c, o, "entries", 1, 2, STANCE_MAX_BLEND_ENTRIES, &arr, &n))) return s;
    stance_blend_entry_desc *e = gf_alloc(c->gf, (size_t)n, sizeof *e);
    if (!e) return gf_no_memory(c);
    jpath pa = {o->at, "entries", -1};
    for (int i = 0; i < n; i++) {
        jpath pi = {&pa, NULL, i};
        jobj eo = {json_array_get(arr, (size_t)i), &pi, "a blend space entry"};
        const char *clip = NULL;
        if ((s = gf_want_object(c, eo.v, &pi, eo.what)) || (s = gf_check_keys(c, &eo, dims == 1 ? ekeys1 : ekeys2)) ||
            (s = gf_get_string(c, &eo, "clip", 1, &clip)))
            return s;
        jpath pc = {&pi, "clip", -1};
        if ((s = gf_find_clip(c, &pc, clip, &e[i].clip)) || (s = get_position(c, &eo, "x", &e[i].x))) return s;
        if (dims == 2 && (s = get_position(c, &eo, "y", &e[i].y))) return s;
        jpath px = {&pi, "x", -1};
        for (int k = 0; k < i; k++) {
            if (e[k].x != e[i].x || (dims == 2 && e[k].y != e[i].y)) continue;
            if (dims == 1)
                return gf_fail_at(c, &px, 0, STANCE_ERR_VALUE, "entries %d and %d are both at x = %g", k, i,
                               (double)e[i].x);
            return gf_fail_at(c, &px, 0, STANCE_ERR_VALUE, "entries %d and %d are both at (%g, %g)", k, i,
                           (double)e[i].x, (double)e[i].y);
        }
    }
    st->entries = e;
    st->entry_count = n;
    return STANCE_OK;
}

/* A state's "editor": {"x": X, "y": Y}, where an editor (the lab's diagram) places
 * the state's box. Checked like any key, then ignored: the graph does not hold it. */
static stance_status read_editor(ctx *c, const jobj *o) {
    static const char *const keys[] = {"x", "y", NULL};
    json_t *v = json_object_get(o->v, "editor");
    if (!v) return STANCE_OK;
    jpath pe = {o->at, "editor", -1};
    jobj eo = {v, &pe, "a state's \"editor\""};
    float x, y;
    stance_status s;
    if ((s = gf_want_object(c, v, &pe, eo.what)) || (s = gf_check_keys(c, &eo, keys)) ||
        (s = gf_get_number(c, &eo, "x", 1, -1e6, 1e6, 0, &x)) || (s = gf_get_number(c, &eo, "y", 1, -1e6, 1e6, 0, &y)))
        return s;
    return STANCE_OK;
}

static stance_status read_state(ctx *c, int m, const jobj *o, stance_state_desc *st) {
    static const char *const keys[] = {"name", "clip", "blend1d", "blend2d", "machine", "once", "speed",
                                       "speed_param", "sync", "editor", NULL};
    static const char *const motions[] = {"clip", "blend1d", "blend2d", "machine", NULL};
    stance_status s = gf_check_keys(c, o, keys);
    if (s) return s;
    const char *first = NULL;
    for (int i = 0; motions[i]; i++) {
        if (!json_object_get(o->v, motions[i])) continue;
        if (first) {
            jpath p = {o->at, motions[i], -1};
            return gf_fail_at(c, &p, 1, STANCE_ERR_FORMAT,
                           "a state plays one thing: \"%s\" and \"%s\" are both given", first, motions[i]);
        }
        first = motions[i];
    }
    if (!first)
        return gf_fail_at(c, o->at, 0, STANCE_ERR_FORMAT,
                       "state '%s' plays nothing: expected one of \"clip\", \"blend1d\", \"blend2d\" or \"machine\"",
                       st->name);
    jpath pm = {o->at, first, -1};
    if (!strcmp(first, "clip")) {
        const char *clip = NULL;
        st->type = STANCE_MOTION_CLIP;
        if ((s = gf_get_string(c, o, "clip", 1, &clip)) || (s = gf_find_clip(c, &pm, clip, &st->clip))) return s;
    } else if (!strcmp(first, "machine")) {
        int target;
        st->type = STANCE_MOTION_MACHINE;
        if ((s = gf_get_string(c, o, "machine", 1, &st->machine)) || (s = gf_find_machine(c, &pm, st->machine, &target)))
            return s;
        if (target == m)
            return gf_fail_at(c, &pm, 0, STANCE_ERR_FORMAT, "machine '%s' cannot contain itself", st->machine);
    } else {
        int dims = first[5] - '0';
        st->type = dims == 1 ? STANCE_MOTION_BLEND1D : STANCE_MOTION_BLEND2D;
        jobj bo = {json_object_get(o->v, first), &pm, dims == 1 ? "a 1D blend space" : "a 2D blend space"};
        if ((s = read_blend(c, &bo, dims, st))) return s;
    }
    if ((s = read_editor(c, o))) return s;
    if ((s = gf_get_bool(c, o, "once", &st->once))) return s;
    if ((s = gf_get_name(c, o, "sync", 0, 0, &st->sync))) return s; /* groups are checked by graphfile_sync.c */
    if ((s = gf_get_number(c, o, "speed", 0, -100.0, 100.0, 0, &st->speed))) return s;
    jpath ps = {o->at, "speed", -1};
    if (json_object_get(o->v, "speed") && st->speed == 0.0f)
        return gf_fail_at(c, &ps, 0, STANCE_ERR_VALUE, "\"speed\" must not be 0 (leave it out for 1)");
    if ((s = gf_get_string(c, o, "speed_param", 0, &st->speed_param))) return s;
    if (st->speed_param) {
        jpath pp = {o->at, "speed_param", -1};
        int i;
        if ((s = gf_find_param(c, &pp, st->speed_param, &i))) return s;
        if (c->params[i].type != STANCE_PARAM_FLOAT && c->params[i].type != STANCE_PARAM_INT)
            return gf_fail_at(c, &pp, 0, STANCE_ERR_FORMAT, "parameter '%s' is a %s; expected a float or int parameter",
                           st->speed_param, gf_param_types[c->params[i].type].name);
    }
    return STANCE_OK;
}

/* ---- transitions ------------------------------------------------------------------ */

static stance_status read_condition(ctx *c, const jobj *o, int group, stance_condition_desc *d) {
    static const char *const keys[] = {"param", "curve", "op", "value", "hysteresis", NULL};
    stance_status s;
    if ((s = gf_want_object(c, o->v, o->at, o->what)) || (s = gf_check_keys(c, o, keys)) ||
        (s = json_object_get(o->v, "curve") ? gf_read_condition_curve(c, o, &d->param) : gf_get_string(c, o, "param", 1, &d->param)))
        return s;
    jpath pp = {o->at, "param", -1}, po = {o->at, "op", -1}, pv = {o->at, "value", -1};
    int pi, op = -1;
    if ((s = gf_find_param(c, &pp, d->param, &pi))) return s;
    stance_param_type type = c->params[pi].type;
    const char *tname = gf_param_types[type].name;
    int logical = type == STANCE_PARAM_BOOL || type == STANCE_PARAM_TRIGGER;
    if ((s = gf_get_enum(c, o, "op", "op", gf_ops, &op))) return s;
    if (op < 0) {
        if (!logical)
            return gf_fail_at(c, o->at, 0, STANCE_ERR_FORMAT,
                           "missing \"op\" for %s parameter '%s' (one of >=, >, <=, <, ==, !=)", tname, d->param);
        op = STANCE_CMP_TRUE;
    }
    int test = op == STANCE_CMP_TRUE || op == STANCE_CMP_FALSE;
    if (logical && !test)
        return gf_fail_at(c, &po, 0, STANCE_ERR_FORMAT, "'%s' is a %s: test it with \"true\" or \"false\", not '%s'",
                       d->param, tname, gf_ops[op].name);
    if (!logical && test)
        return gf_fail_at(c, &po, 0, STANCE_ERR_FORMAT, "op '%s' needs a bool or trigger; '%s' is a %s",
                       gf_ops[op].name, d->param, tname);
    if (type == STANCE_PARAM_TRIGGER && op == STANCE_CMP_FALSE)
        return gf_fail_at(c, &po, 0, STANCE_ERR_FORMAT, "a trigger can only be tested for \"true\"");
    d->op = (stance_compare)op;
    if (test) {
        if (json_object_get(o->v, "value"))
            return gf_fail_at(c, &pv, 0, STANCE_ERR_FORMAT, "\"value\" has no meaning with op '%s'", gf_ops[op].name);
    } else if ((s = gf_get_number(c, o, "value", 1, -1e30, 1e30, 0, &d->value))) {
        return s;
    }
    if (json_object_get(o->v, "hysteresis")) {
        jpath ph = {o->at, "hysteresis", -1};
        if (test || op == STANCE_CMP_EQ || op == STANCE_CMP_NE)
            return gf_fail_at(c, &ph, 0, STANCE_ERR_FORMAT, "\"hysteresis\" needs op >=, >, <= or <");
        if ((s = gf_get_number(c, o, "hysteresis", 0, 0.0, 1e30, 0, &d->hysteresis))) return s;
    }
    d->group = group;
    return STANCE_OK;
}

/* An array of conditions (AND) at o[key] into out[0..n). */
static stance_status read_conditions(ctx *c, json_t *arr, const jpath *at, int group, stance_condition_desc *out) {
    int n = (int)json_array_size(arr);
    for (int i = 0; i < n; i++) {
        jpath pi = {at, NULL, i};
        jobj co = {json_array_get(arr, (size_t)i), &pi, "a condition"};
        stance_status s = read_condition(c, &co, group, &out[i]);
        if (s) return s;
    }
    return STANCE_OK;
}

typedef struct transition_defaults {
    float blend_time;
    int mode, easing;
} transition_defaults;

static stance_status read_transition(ctx *c, const stance_machine_desc *m, const jobj *o,
                                     const transition_defaults *def, stance_transition_desc *t) {
    static const char *const keys[] = {"from", "to", "when", "any_of", "exit", "blend_time", "mode", "easing",
                                       "uninterruptible", "allow_self", NULL};
    stance_status s;
    if ((s = gf_want_object(c, o->v, o->at, o->what)) || (s = gf_check_keys(c, o, keys)) ||
        (s = gf_get_string(c, o, "from", 1, &t->from)) || (s = gf_get_string(c, o, "to", 1, &t->to)))
        return s;
    jpath pf = {o->at, "from", -1}, pt = {o->at, "to", -1};
    int any = !strcmp(t->from, "*");
    if ((!any && (s = gf_find_state(c, &pf, m, t->from))) || (s = gf_find_state(c, &pt, m, t->to))) return s;
    if (!any && !strcmp(t->from, t->to))
        return gf_fail_at(c, &pt, 0, STANCE_ERR_FORMAT,
                       "a transition from '%s' to itself; use \"from\": \"*\" with \"allow_self\": true to restart a state",
                       t->to);

    /* conditions: "when" (AND) and "any_of" (OR of AND groups); with both,
     * each group is "when" AND that group */
    json_t *when, *any_of;
    int wn, gn;
    if ((s = gf_get_array(c, o, "when", 0, 0, STANCE_MAX_CONDITIONS, &when, &wn)) ||
        (s = gf_get_array(c, o, "any_of", 0, 1, STANCE_MAX_CONDITIONS, &any_of, &gn)))
        return s;
    jpath pw = {o->at, "when", -1}, pa = {o->at, "any_of", -1};
    int total = gn ? 0 : wn;
    for (int g = 0; g < gn; g++) {
        json_t *grp = json_array_get(any_of, (size_t)g);
        jpath pg = {&pa, NULL, g};
        if (!json_is_array(grp))
            return gf_fail_at(c, &pg, 0, STANCE_ERR_FORMAT, "expected an array of conditions (one \"any_of\" group), got %s",
                           gf_type_name(grp));
        if (json_array_size(grp) == 0)
            return gf_fail_at(c, &pg, 0, STANCE_ERR_FORMAT, "an \"any_of\" group needs at least one condition");
        total += wn + (int)(json_array_size(grp) > STANCE_MAX_CONDITIONS ? STANCE_MAX_CONDITIONS + 1 : json_array_size(grp));
        if (total > STANCE_MAX_CONDITIONS) break;
    }
    if (total > STANCE_MAX_CONDITIONS)
        return gf_fail_at(c, gn ? &pa : &pw, 0, STANCE_ERR_FORMAT,
                       "too many conditions: at most %d, counting \"when\" once per \"any_of\" group",
                       STANCE_MAX_CONDITIONS);
    stance_condition_desc *cd = total ? gf_alloc(c->gf, (size_t)total, sizeof *cd) : NULL;
    if (total && !cd) return gf_no_memory(c);
    if (!gn) {
        if ((s = read_conditions(c, when, &pw, 0, cd))) return s;
    } else {
        int at = 0;
        for (int g = 0; g < gn; g++) {
            json_t *grp = json_array_get(any_of, (size_t)g);
            jpath pg = {&pa, NULL, g};
            if ((s = read_conditions(c, when, &pw, g, cd + at))) return s;
            at += wn;
            if ((s = read_conditions(c, grp, &pg, g, cd + at))) return s;
            at += (int)json_array_size(grp);
        }
    }
    t->conditions = cd;
    t->condition_count = total;

    json_t *exit = json_object_get(o->v, "exit");
    jpath pe = {o->at, "exit", -1};
    if (exit && json_is_string(exit) && !strcmp(json_string_value(exit), "end")) {
        t->exit = STANCE_EXIT_AT_END;
    } else if (exit && json_is_number(exit)) {
        if ((s = gf_get_number(c, o, "exit", 1, 0.0, 1e6, 0, &t->exit_time))) return s;
        t->exit = STANCE_EXIT_NORMALIZED;
    } else if (exit) {
        return gf_fail_at(c, &pe, 0, STANCE_ERR_FORMAT,
                       "\"exit\": expected \"end\" or a normalized time (a number >= 0), got %s%s%.40s%s",
                       gf_type_name(exit), json_is_string(exit) ? " \"" : "",
                       json_is_string(exit) ? json_string_value(exit) : "", json_is_string(exit) ? "\"" : "");
    }
    t->blend_time = def->blend_time;
    int mode = def->mode, easing = def->easing;
    if ((s = gf_get_number(c, o, "blend_time", 0, 0.0, 60.0, 1, &t->blend_time)) ||
        (s = gf_get_enum(c, o, "mode", "mode", gf_modes, &mode)) ||
        (s = gf_get_enum(c, o, "easing", "easing", gf_easings, &easing)) ||
        (s = gf_get_bool(c, o, "uninterruptible", &t->uninterruptible)) ||
        (s = gf_get_bool(c, o, "allow_self", &t->allow_self)))
        return s;
    t->mode = (stance_switch_mode)mode;
    t->easing = (stance_easing)easing;
    if (t->allow_self && !any) {
        jpath ps = {o->at, "allow_self", -1};
        return gf_fail_at(c, &ps, 0, STANCE_ERR_FORMAT, "\"allow_self\" is for transitions from \"*\" (any state)");
    }
    return STANCE_OK;
}

/* ---- machines ---------------------------------------------------------------------- */

static stance_status read_machine(ctx *c, int mi, const jobj *o) {
    static const char *const keys[] = {"name", "entry", "states", "transitions", "blend_time", "mode", "easing", NULL};
    stance_machine_desc *m = &c->machines[mi];
    stance_status s;
    json_t *states, *trans;
    int ns, nt;
    if ((s = gf_check_keys(c, o, keys)) ||
        (s = gf_get_array(c, o, "states", 1, 1, STANCE_MAX_STATES, &states, &ns)) ||
        (s = gf_get_array(c, o, "transitions", 0, 0, 4096, &trans, &nt)))
        return s;
    jpath ps = {o->at, "states", -1}, pt = {o->at, "transitions", -1};
    if (ns > STANCE_MAX_STATES - c->state_total)
        return gf_fail_at(c, &ps, 0, STANCE_ERR_FORMAT, "too many states: the graph may have at most %d",
                       STANCE_MAX_STATES);
    c->state_total += ns;
    stance_state_desc *sd = gf_alloc(c->gf, (size_t)ns, sizeof *sd);
    if (!sd) return gf_no_memory(c);
    m->states = sd;
    /* names first, so transitions and the entry can name any state */
    for (int i = 0; i < ns; i++) {
        jpath pi = {&ps, NULL, i};
        jobj so = {json_array_get(states, (size_t)i), &pi, "a state"};
        if ((s = gf_want_object(c, so.v, &pi, "a state")) || (s = gf_get_name(c, &so, "name", 1, 1, &sd[i].name))) return s;
        jpath pn = {&pi, "name", -1};
        for (int k = 0; k < i; k++)
            if (!strcmp(sd[k].name, sd[i].name)) {
                jpath pk = {&ps, NULL, k}, pkn = {&pk, "name", -1};
                return gf_duplicate(c, &pn, &pkn, "state", sd[i].name);
            }
        m->state_count = i + 1;
    }
    for (int i = 0; i < ns; i++) {
        jpath pi = {&ps, NULL, i};
        jobj so = {json_array_get(states, (size_t)i), &pi, "a state"};
        if ((s = read_state(c, mi, &so, &sd[i]))) return s;
    }
    if ((s = gf_get_string(c, o, "entry", 0, &m->entry))) return s;
    jpath pe = {o->at, "entry", -1};
    if (m->entry && (s = gf_find_state(c, &pe, m, m->entry))) return s;

    transition_defaults def = {0.0f, STANCE_SWITCH_CROSSFADE, STANCE_EASE_SMOOTHSTEP};
    if ((s = gf_get_number(c, o, "blend_time", 0, 0.0, 60.0, 1, &def.blend_time)) ||
        (s = gf_get_enum(c, o, "mode", "mode", gf_modes, &def.mode)) ||
        (s = gf_get_enum(c, o, "easing", "easing", gf_easings, &def.easing)))
        return s;
    stance_transition_desc *td = nt ? gf_alloc(c->gf, (size_t)nt, sizeof *td) : NULL;
    if (nt && !td) return gf_no_memory(c);
    for (int i = 0; i < nt; i++) {
        jpath pi = {&pt, NULL, i};
        jobj to = {json_array_get(trans, (size_t)i), &pi, "a transition"};
        if ((s = read_transition(c, m, &to, &def, &td[i]))) return s;
    }
    m->transitions = td;
    m->transition_count = nt;
    return STANCE_OK;
}

/* Nested machines may not form a cycle or nest deeper than STANCE_MAX_NEST. */
static stance_status check_nesting(ctx *c, const jpath *machines_at) {
    int depth[STANCE_MAX_MACHINES] = {0};
    for (int round = 0; round <= STANCE_MAX_NEST + 1; round++)
        for (int m = 0; m < c->machine_count; m++)
            for (int i = 0; i < c->machines[m].state_count; i++) {
                const stance_state_desc *st = &c->machines[m].states[i];
                if (st->type != STANCE_MOTION_MACHINE) continue;
                int t = gf_machine_index(c, st->machine);
                if (t >= 0 && depth[t] + 1 > depth[m]) depth[m] = depth[t] + 1;
            }
    for (int m = 0; m < c->machine_count; m++)
        for (int i = 0; i < c->machines[m].state_count; i++) {
            const stance_state_desc *st = &c->machines[m].states[i];
            if (st->type != STANCE_MOTION_MACHINE || depth[m] <= STANCE_MAX_NEST) continue;
            jpath pm = {machines_at, NULL, m}, ps = {&pm, "states", -1}, pi = {&ps, NULL, i},
                  pk = {&pi, "machine", -1};
            return gf_fail_at(c, &pk, 0, STANCE_ERR_FORMAT,
                           "nested machines form a cycle or nest deeper than %d levels (through '%s')",
                           STANCE_MAX_NEST, st->machine);
        }
    return STANCE_OK;
}

stance_status gf_read_machines(ctx *c, const jobj *root) {
    json_t *arr;
    int n;
    stance_status s = gf_get_array(c, root, "machines", 1, 1, STANCE_MAX_MACHINES, &arr, &n);
    if (s) return s;
    jpath pa = {root->at, "machines", -1};
    c->machines = gf_alloc(c->gf, (size_t)n, sizeof *c->machines);
    if (!c->machines) return gf_no_memory(c);
    /* names first: states and layers may name any machine */
    for (int i = 0; i < n; i++) {
        jpath pi = {&pa, NULL, i};
        jobj o = {json_array_get(arr, (size_t)i), &pi, "a machine"};
        if ((s = gf_want_object(c, o.v, &pi, "a machine")) || (s = gf_get_name(c, &o, "name", 1, 1, &c->machines[i].name)))
            return s;
        jpath pn = {&pi, "name", -1};
        for (int k = 0; k < i; k++)
            if (!strcmp(c->machines[k].name, c->machines[i].name)) {
                jpath pk = {&pa, NULL, k}, pkn = {&pk, "name", -1};
                return gf_duplicate(c, &pn, &pkn, "machine", c->machines[i].name);
            }
        c->machine_count = i + 1;
    }
    for (int i = 0; i < n; i++) {
        jpath pi = {&pa, NULL, i};
        jobj o = {json_array_get(arr, (size_t)i), &pi, "a machine"};
        if ((s = read_machine(c, i, &o))) return s;
    }
    return check_nesting(c, &pa);
}

#endif /* STANCE_HAVE_JANSSON */
