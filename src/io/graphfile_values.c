/* src/io/graphfile_values.c - reading one value of a graph file: the
 * checks of type, range, names and allowed keys, each failing with the
 * value's FILE:LINE:COLUMN; the tables of the format's enums; and gf_alloc,
 * the graph file's blocks (freed by stance_graphfile_destroy). The section
 * readers (graphfile_*.c) and graphfile.c call these; they call none of
 * them back. */
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

/* count items of size bytes, zeroed, in a block the graph file owns. */
void *gf_alloc(stance_graphfile *gf, size_t count, size_t size) {
    if (size && count > (SIZE_MAX - sizeof(gf_block)) / size) return NULL;
    gf_block *b = calloc(1, sizeof(gf_block) + count * size);
    if (!b) return NULL;
    b->next = gf->blocks;
    gf->blocks = b;
    return b + 1;
}

const char *gf_named_at(const void *set, int i) { return ((const named *)set)[i].name; }
int gf_named_count(const named *t) {
    int n = 0;
    while (t[n].name) n++;
    return n;
}

const named gf_param_types[] = {
    {"float", STANCE_PARAM_FLOAT}, {"int", STANCE_PARAM_INT}, {"bool", STANCE_PARAM_BOOL},
    {"trigger", STANCE_PARAM_TRIGGER}, {NULL, 0}};
const named gf_ops[] = {
    {">=", STANCE_CMP_GE}, {">", STANCE_CMP_GT}, {"<=", STANCE_CMP_LE}, {"<", STANCE_CMP_LT},
    {"==", STANCE_CMP_EQ}, {"!=", STANCE_CMP_NE}, {"true", STANCE_CMP_TRUE}, {"false", STANCE_CMP_FALSE},
    {NULL, 0}};
const named gf_modes[] = {
    {"cut", STANCE_SWITCH_CUT}, {"frozen", STANCE_SWITCH_FROZEN}, {"crossfade", STANCE_SWITCH_CROSSFADE},
    {"inertialize", STANCE_SWITCH_INERTIALIZE}, {"inertialize_simple", STANCE_SWITCH_INERTIALIZE_SIMPLE},
    {"deadblend", STANCE_SWITCH_DEADBLEND}, {NULL, 0}};
const named gf_easings[] = {{"smoothstep", STANCE_EASE_SMOOTHSTEP}, {"linear", STANCE_EASE_LINEAR}, {NULL, 0}};
const named gf_layer_modes[] = {{"override", STANCE_LAYER_OVERRIDE}, {"additive", STANCE_LAYER_ADDITIVE}, {NULL, 0}};
const named gf_spaces[] = {{"local", STANCE_SPACE_LOCAL}, {"mesh", STANCE_SPACE_MESH}, {NULL, 0}};

/* 1 when `at` is in the asset's clip notes (its top is gf_notes_top), not in the graph file */
static int in_notes(const ctx *c, const jpath *at) {
    while (at && at->up) at = at->up;
    return at == &gf_notes_top && c->notes_text;
}

stance_status gf_fail_at(ctx *c, const jpath *at, int at_key, stance_status status, const char *fmt, ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line, col;
    gf_position_of(c, at, at_key, &line, &col);
    return st_fail(c->err, status, "%s:%d:%d: %s", in_notes(c, at) ? c->notes_name : c->name, line, col, msg);
}

void gf_position_of(const ctx *c, const jpath *at, int at_key, int *line, int *col) {
    if (in_notes(c, at))
        gf_line_col(c->notes_text, c->notes_size, gf_locate(c->notes_text, c->notes_size, at, at_key), line, col);
    else
        gf_line_col(c->text, c->size, gf_locate(c->text, c->size, at, at_key), line, col);
}

const char *gf_type_name(const json_t *v) {
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

stance_status gf_want_object(ctx *c, json_t *v, const jpath *at, const char *what) {
    if (json_is_object(v)) return STANCE_OK;
    return gf_fail_at(c, at, 0, STANCE_ERR_FORMAT, "expected %s (an object), got %s", what, gf_type_name(v));
}

/* Rejects keys not in `allowed` (NULL-terminated); keys starting with '_'
 * are comments. */
stance_status gf_check_keys(ctx *c, const jobj *o, const char *const *allowed) {
    const char *key;
    json_t *val;
    json_object_foreach(o->v, key, val) {
        (void)val;
        if (key[0] == '_') continue;
        int known = 0;
        for (int i = 0; allowed[i] && !known; i++) known = !strcmp(key, allowed[i]);
        if (known) continue;
        char hint[200];
        st_suggest(hint, sizeof hint, key, st_list_name_at, allowed, st_list_count(allowed));
        jpath p = {o->at, key, -1};
        return gf_fail_at(c, &p, 1, STANCE_ERR_FORMAT, "unknown key \"%.63s\" in %s%s", key, o->what, hint);
    }
    return STANCE_OK;
}

stance_status gf_require(ctx *c, const jobj *o, const char *key) {
    if (json_object_get(o->v, key)) return STANCE_OK;
    return gf_fail_at(c, o->at, 0, STANCE_ERR_FORMAT, "missing \"%s\" in %s", key, o->what);
}

stance_status gf_get_string(ctx *c, const jobj *o, const char *key, int required, const char **out) {
    json_t *v = json_object_get(o->v, key);
    jpath p = {o->at, key, -1};
    if (!v) return required ? gf_require(c, o, key) : STANCE_OK;
    if (!json_is_string(v))
        return gf_fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"%s\": expected a string, got %s", key, gf_type_name(v));
    if (strlen(json_string_value(v)) != json_string_length(v))
        return gf_fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"%s\": the string contains a NUL character", key);
    *out = json_string_value(v);
    return STANCE_OK;
}

/* A name of the graph: 1..63 bytes; with no_slash, no '/' and not "*"
 * (machine and state names, which "Machine/State" and "*" would confuse). */
stance_status gf_check_name(ctx *c, const jpath *at, const char *name, int no_slash) {
    size_t n = strlen(name);
    if (n == 0) return gf_fail_at(c, at, 0, STANCE_ERR_FORMAT, "expected a name, got an empty string");
    if (n >= STANCE_MAX_NAME)
        return gf_fail_at(c, at, 0, STANCE_ERR_FORMAT, "name '%.40s...' is %zu bytes; at most %d", name, n,
                       STANCE_MAX_NAME - 1);
    if (no_slash && (strchr(name, '/') || !strcmp(name, "*")))
        return gf_fail_at(c, at, 0, STANCE_ERR_FORMAT, "name '%s' may not contain '/' or be \"*\"", name);
    return STANCE_OK;
}

stance_status gf_get_name(ctx *c, const jobj *o, const char *key, int required, int no_slash,
                              const char **out) {
    stance_status s = gf_get_string(c, o, key, required, out);
    if (s || !*out) return s;
    jpath p = {o->at, key, -1};
    return gf_check_name(c, &p, *out, no_slash);
}

/* A number in [lo, hi] (or (lo, hi] when lo_open). Absent keeps *out. */
stance_status gf_get_number(ctx *c, const jobj *o, const char *key, int required, double lo, double hi,
                                int lo_open, float *out) {
    json_t *v = json_object_get(o->v, key);
    jpath p = {o->at, key, -1};
    if (!v) return required ? gf_require(c, o, key) : STANCE_OK;
    if (!json_is_number(v))
        return gf_fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"%s\": expected a number, got %s", key, gf_type_name(v));
    double d = json_number_value(v);
    if (!isfinite(d) || (lo_open ? !(d > lo) : !(d >= lo)) || !(d <= hi))
        return gf_fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"%s\": expected a number in %c%g, %g], got %g", key,
                       lo_open ? '(' : '[', lo, hi, d);
    *out = (float)d;
    return STANCE_OK;
}

stance_status gf_get_int(ctx *c, const jobj *o, const char *key, int lo, int hi, int *out) {
    json_t *v = json_object_get(o->v, key);
    jpath p = {o->at, key, -1};
    if (!v) return STANCE_OK;
    double d = json_is_number(v) ? json_number_value(v) : NAN;
    if (!json_is_number(v) || d != floor(d) || d < lo || d > hi)
        return gf_fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"%s\": expected a whole number in [%d, %d]", key, lo, hi);
    *out = (int)d;
    return STANCE_OK;
}

stance_status gf_get_bool(ctx *c, const jobj *o, const char *key, int *out) {
    json_t *v = json_object_get(o->v, key);
    jpath p = {o->at, key, -1};
    if (!v) return STANCE_OK;
    if (!json_is_boolean(v))
        return gf_fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"%s\": expected true or false, got %s", key, gf_type_name(v));
    *out = json_is_true(v);
    return STANCE_OK;
}

/* One of a table's names; `kind` names it in messages. Absent keeps *out. */
stance_status gf_get_enum(ctx *c, const jobj *o, const char *key, const char *kind, const named *table,
                              int *out) {
    const char *s = NULL;
    stance_status st = gf_get_string(c, o, key, 0, &s);
    if (st || !s) return st;
    for (int i = 0; table[i].name; i++)
        if (!strcmp(table[i].name, s)) { *out = table[i].value; return STANCE_OK; }
    char hint[200];
    st_suggest(hint, sizeof hint, s, gf_named_at, table, gf_named_count(table));
    jpath p = {o->at, key, -1};
    return gf_fail_at(c, &p, 0, STANCE_ERR_FORMAT, "unknown %s '%.63s'%s", kind, s, hint);
}

/* An array member: absent = count 0 (or an error when required). */
stance_status gf_get_array(ctx *c, const jobj *o, const char *key, int required, int lo, int hi,
                               json_t **out, int *count) {
    json_t *v = json_object_get(o->v, key);
    jpath p = {o->at, key, -1};
    *out = NULL;
    *count = 0;
    if (!v) return required ? gf_require(c, o, key) : STANCE_OK;
    if (!json_is_array(v))
        return gf_fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"%s\": expected an array, got %s", key, gf_type_name(v));
    size_t n = json_array_size(v);
    if (n < (size_t)lo || n > (size_t)hi)
        return gf_fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"%s\": expected %d to %d items, got %zu", key, lo, hi, n);
    *out = v;
    *count = (int)n;
    return STANCE_OK;
}

stance_status gf_no_memory(ctx *c) {
    return st_fail(c->err, STANCE_ERR_MEMORY, "%s: out of memory", c->name);
}

#endif /* STANCE_HAVE_JANSSON */
