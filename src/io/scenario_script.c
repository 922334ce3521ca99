/* src/io/scenario_script.c - reads a scenario script file (scenario_script.h):
 *   {"duration": 10, "changes": [{"t": 0, "set": {"velocity": 0.5, "alert": false}},
 *                                {"t": 3, "trigger": "jump"}]}
 * one stance_scenario_change per parameter set or trigger, in file order
 * (times must not go back). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/internal.h"
#include "core/base/names.h"
#include "io/scenario_script.h"

void stance_scenario_script_free(stance_scenario_script *s) {
    if (!s) return;
    free((void *)s->changes);
    s->changes = NULL, s->change_count = 0;
}

#ifdef STANCE_HAVE_JANSSON
#include <jansson.h>

static const char *param_name_at(const void *g, int i) { return stance_graph_param_name((const stance_graph *)g, i); }

static stance_status unknown_param(const char *path, int i, const char *name, const stance_graph *g, stance_error *err) {
    char hint[200];
    st_suggest(hint, sizeof hint, name, param_name_at, g, stance_graph_param_count(g));
    return st_fail(err, STANCE_ERR_NOT_FOUND, "%s: changes[%d]: the graph has no parameter '%s'%s", path, i, name, hint);
}

static stance_status read_doc(const char *path, json_t *doc, const stance_graph *g, stance_scenario_change *out, int *n,
                              float *duration, stance_error *err) {
    if (!json_is_object(doc)) return st_fail(err, STANCE_ERR_FORMAT, "%s: a script is a JSON object with \"duration\" and \"changes\"", path);
    const char *key;
    json_t *v;
    json_object_foreach(doc, key, v) {
        if (strcmp(key, "duration") && strcmp(key, "changes") && strcmp(key, "$schema") && strcmp(key, "comment"))
            return st_fail(err, STANCE_ERR_FORMAT, "%s: unknown key '%s' (a script has \"duration\" and \"changes\")", path, key);
    }
    json_t *d = json_object_get(doc, "duration"), *ch = json_object_get(doc, "changes");
    if (!json_is_number(d)) return st_fail(err, STANCE_ERR_FORMAT, "%s: \"duration\" (seconds, a number) is required", path);
    *duration = (float)json_number_value(d);
    if (!json_is_array(ch)) return st_fail(err, STANCE_ERR_FORMAT, "%s: \"changes\" (an array) is required", path);
    *n = 0;
    for (size_t i = 0; i < json_array_size(ch); i++) {
        json_t *e = json_array_get(ch, i), *t = json_object_get(e, "t"), *set = json_object_get(e, "set"),
               *trig = json_object_get(e, "trigger");
        const int ii = (int)i;
        if (!json_is_object(e) || !json_is_number(t))
            return st_fail(err, STANCE_ERR_FORMAT, "%s: changes[%d]: an object with \"t\" (seconds) and \"set\" and/or \"trigger\"", path, ii);
        json_object_foreach(e, key, v) {
            if (strcmp(key, "t") && strcmp(key, "set") && strcmp(key, "trigger"))
                return st_fail(err, STANCE_ERR_FORMAT, "%s: changes[%d]: unknown key '%s' (t, set, trigger)", path, ii, key);
        }
        if (!set && !trig) return st_fail(err, STANCE_ERR_FORMAT, "%s: changes[%d]: nothing to change (\"set\" or \"trigger\")", path, ii);
        const float time = (float)json_number_value(t);
        if (set) {
            if (!json_is_object(set)) return st_fail(err, STANCE_ERR_FORMAT, "%s: changes[%d]: \"set\" is an object of parameter: value", path, ii);
            json_object_foreach(set, key, v) {
                const int p = stance_graph_find_param(g, key);
                if (p < 0) return unknown_param(path, ii, key, g, err);
                const stance_param_type ty = stance_graph_param_type(g, p);
                float value;
                if (ty == STANCE_PARAM_BOOL && json_is_boolean(v)) value = json_is_true(v) ? 1.0f : 0.0f;
                else if (ty == STANCE_PARAM_INT && json_is_integer(v)) value = (float)json_integer_value(v);
                else if (ty == STANCE_PARAM_FLOAT && json_is_number(v)) value = (float)json_number_value(v);
                else
                    return st_fail(err, STANCE_ERR_FORMAT, "%s: changes[%d]: '%s' is a%s parameter: %s", path, ii, key,
                                   ty == STANCE_PARAM_INT ? "n int" : ty == STANCE_PARAM_BOOL ? " bool" : ty == STANCE_PARAM_FLOAT ? " float" : " trigger",
                                   ty == STANCE_PARAM_INT ? "a whole number" : ty == STANCE_PARAM_BOOL ? "true or false" :
                                   ty == STANCE_PARAM_FLOAT ? "a number" : "name it in \"trigger\"");
                if (*n >= STANCE_SCENARIO_MAX_CHANGES)
                    return st_fail(err, STANCE_ERR_FORMAT, "%s: more than %d changes", path, STANCE_SCENARIO_MAX_CHANGES);
                out[(*n)++] = (stance_scenario_change){time, p, value};
            }
        }
        if (trig) {
            if (!json_is_string(trig)) return st_fail(err, STANCE_ERR_FORMAT, "%s: changes[%d]: \"trigger\" names a trigger parameter", path, ii);
            const int p = stance_graph_find_param(g, json_string_value(trig));
            if (p < 0) return unknown_param(path, ii, json_string_value(trig), g, err);
            if (stance_graph_param_type(g, p) != STANCE_PARAM_TRIGGER)
                return st_fail(err, STANCE_ERR_FORMAT, "%s: changes[%d]: '%s' is not a trigger (put it in \"set\")", path, ii,
                               json_string_value(trig));
            if (*n >= STANCE_SCENARIO_MAX_CHANGES)
                return st_fail(err, STANCE_ERR_FORMAT, "%s: more than %d changes", path, STANCE_SCENARIO_MAX_CHANGES);
            out[(*n)++] = (stance_scenario_change){time, p, 1.0f};
        }
    }
    return STANCE_OK;
}

stance_status stance_scenario_script_load(const char *path, const stance_graph *g, stance_scenario_script *out, stance_error *err) {
    if (!path || !g || !out) return st_fail(err, STANCE_ERR_ARGUMENT, "scenario script: path, graph and out are required");
    memset(out, 0, sizeof *out);
    json_error_t je;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!doc)
        return st_fail(err, STANCE_ERR_FORMAT, "%s:%d:%d: %s", path, je.line > 0 ? je.line : 1, je.column > 0 ? je.column : 1, je.text);
    stance_scenario_change *ch = malloc(sizeof *ch * STANCE_SCENARIO_MAX_CHANGES);
    if (!ch) {
        json_decref(doc);
        return st_fail(err, STANCE_ERR_MEMORY, "%s: out of memory", path);
    }
    int n = 0;
    float duration = 0.0f;
    stance_status s = read_doc(path, doc, g, ch, &n, &duration, err);
    json_decref(doc);
    if (s) {
        free(ch);
        return s;
    }
    out->duration = duration, out->change_count = n, out->changes = ch;
    /* the runner's own checks (times, values), with the path */
    stance_scenario *probe = NULL;
    const stance_scenario_desc desc = {.script = out};
    if ((s = stance_scenario_create(g, &desc, NULL, &probe, err))) {
        char msg[sizeof err->message];
        snprintf(msg, sizeof msg, "%s", err ? err->message : "");
        stance_scenario_script_free(out);
        return st_fail(err, s, "%s: %s", path, msg);
    }
    stance_scenario_destroy(probe);
    return st_ok(err);
}
#else
stance_status stance_scenario_script_load(const char *path, const stance_graph *g, stance_scenario_script *out, stance_error *err) {
    (void)g;
    if (out) memset(out, 0, sizeof *out);
    return st_fail(err, STANCE_ERR_UNSUPPORTED, "%s: script files need a build with jansson", path ? path : "(null)");
}
#endif
