/* src/io/graphfile.c - graph files: JSON (docs/graph-format.md) read with
 * jansson into a stance_graph_desc, built with stance_graph_create.
 *
 * Owns the format's rules and its messages: every field is checked here,
 * with the file position of the offending value, before the runtime sees the
 * description (the runtime checks again; its messages carry no position).
 * jansson keeps no positions for values, so a small scanner (locate) walks
 * the raw text once per error to map a path of keys and indices to a
 * line:column. It does not touch the runtime's internals: the graph is made
 * only through the public stance_graph_create. */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "io/files.h"
#include "io/graphfile.h"
#include "io/import.h"
#include "stance/builtin.h"

#ifdef STANCE_HAVE_JANSSON
#include <jansson.h>
#endif

/* Every array of the description comes from one of these blocks. */
typedef union gf_block {
    union gf_block *next;
    max_align_t align_;
} gf_block;

struct stance_graphfile {
    char *name;                /* as messages print it */
    char *asset_name;          /* "builtin", the path loaded, or "(borrowed)" */
    stance_asset owned;        /* the asset loaded for this file (zero when borrowed) */
    const stance_asset *asset; /* &owned or the borrowed one */
    stance_graph *graph;
    stance_graph_desc desc;    /* its names point into json */
    gf_block *blocks;
    void *json;                /* the parsed document (json_t *): owns the name strings */
};

void stance_graphfile_destroy(stance_graphfile *gf) {
    if (!gf) return;
    stance_graph_destroy(gf->graph);
    stance_asset_destroy(&gf->owned);
    while (gf->blocks) {
        gf_block *next = gf->blocks->next;
        free(gf->blocks);
        gf->blocks = next;
    }
#ifdef STANCE_HAVE_JANSSON
    json_decref((json_t *)gf->json);
#endif
    free(gf->name);
    free(gf->asset_name);
    free(gf);
}

const stance_graph *stance_graphfile_graph(const stance_graphfile *gf) { return gf ? gf->graph : NULL; }
const stance_skeleton *stance_graphfile_skeleton(const stance_graphfile *gf) {
    return gf && gf->asset ? gf->asset->skeleton : NULL;
}
const stance_asset *stance_graphfile_asset(const stance_graphfile *gf) { return gf ? gf->asset : NULL; }
const char *stance_graphfile_name(const stance_graphfile *gf) { return gf && gf->name ? gf->name : ""; }
const char *stance_graphfile_asset_name(const stance_graphfile *gf) {
    return gf && gf->asset_name ? gf->asset_name : "";
}
const stance_graph_desc *stance_graphfile_desc(const stance_graphfile *gf) { return gf ? &gf->desc : NULL; }

#ifndef STANCE_HAVE_JANSSON

stance_status stance_graphfile_load(const char *path, const stance_graphfile_options *opt,
                                    stance_graphfile **out, stance_error *err) {
    (void)opt;
    if (out) *out = NULL;
    return st_fail(err, STANCE_ERR_UNSUPPORTED, "%s: cannot read graph files: built without jansson",
                   path ? path : "(null)");
}

stance_status stance_graphfile_load_string(const char *text, const char *display_name,
                                           const char *base_dir, const stance_graphfile_options *opt,
                                           stance_graphfile **out, stance_error *err) {
    (void)text, (void)base_dir, (void)opt;
    if (out) *out = NULL;
    return st_fail(err, STANCE_ERR_UNSUPPORTED, "%s: cannot read graph files: built without jansson",
                   display_name ? display_name : "<string>");
}

#else

static char *dup_string(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static void *gf_alloc(stance_graphfile *gf, size_t count, size_t size) {
    if (size && count > (SIZE_MAX - sizeof(gf_block)) / size) return NULL;
    gf_block *b = calloc(1, sizeof(gf_block) + count * size);
    if (!b) return NULL;
    b->next = gf->blocks;
    gf->blocks = b;
    return b + 1;
}

/* ---- positions: a path of keys and indices -> line:column ------------------ */

/* One step from the document's root: a key of an object, or (key NULL) an
 * index of an array. Chained from the leaf up, on the stack. */
typedef struct jpath {
    const struct jpath *up;
    const char *key;
    int index;
} jpath;

#define MAX_PATH 32

typedef struct scanner {
    const char *s;
    size_t n, p;
} scanner;

static void sc_space(scanner *z) {
    while (z->p < z->n && (z->s[z->p] == ' ' || z->s[z->p] == '\t' || z->s[z->p] == '\n' ||
                           z->s[z->p] == '\r'))
        z->p++;
}

static int hex4(scanner *z, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        if (z->p >= z->n || !isxdigit((unsigned char)z->s[z->p])) return 0;
        char ch = z->s[z->p++];
        v = v * 16 + (unsigned)(isdigit((unsigned char)ch) ? ch - '0' : tolower((unsigned char)ch) - 'a' + 10);
    }
    *out = v;
    return 1;
}

/* One character of a string body (z->p inside the quotes) as UTF-8 bytes,
 * escapes decoded. Returns the byte count; 0 at the closing quote or the end. */
static int sc_char(scanner *z, unsigned char out[4]) {
    if (z->p >= z->n || z->s[z->p] == '"') return 0;
    unsigned char ch = (unsigned char)z->s[z->p++];
    if (ch != '\\') {
        out[0] = ch;
        return 1;
    }
    if (z->p >= z->n) return 0;
    ch = (unsigned char)z->s[z->p++];
    unsigned cp = ch;
    switch (ch) {
    case 'b': cp = '\b'; break;
    case 'f': cp = '\f'; break;
    case 'n': cp = '\n'; break;
    case 'r': cp = '\r'; break;
    case 't': cp = '\t'; break;
    case 'u':
        if (!hex4(z, &cp)) return 0;
        if (cp >= 0xD800 && cp < 0xDC00 && z->p + 1 < z->n && z->s[z->p] == '\\' && z->s[z->p + 1] == 'u') {
            size_t keep = z->p;
            unsigned lo;
            z->p += 2;
            if (hex4(z, &lo) && lo >= 0xDC00 && lo < 0xE000)
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            else
                z->p = keep;
        }
        break;
    default: break; /* '"', '\\', '/' stand for themselves */
    }
    if (cp < 0x80) { out[0] = (unsigned char)cp; return 1; }
    if (cp < 0x800) {
        out[0] = (unsigned char)(0xC0 | (cp >> 6));
        out[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (unsigned char)(0xE0 | (cp >> 12));
        out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (unsigned char)(0xF0 | (cp >> 18));
    out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* At an opening quote: reads the string and says whether it decodes to key. */
static int sc_string_is(scanner *z, const char *key) {
    z->p++;
    size_t k = 0;
    int same = 1, m;
    unsigned char b[4];
    while ((m = sc_char(z, b)) > 0)
        for (int i = 0; i < m; i++) {
            if (same && key[k] && (unsigned char)key[k] == b[i]) k++;
            else same = 0;
        }
    if (z->p < z->n) z->p++; /* the closing quote */
    return same && key[k] == 0;
}

static void sc_skip_string(scanner *z) {
    z->p++;
    while (z->p < z->n) {
        char ch = z->s[z->p++];
        if (ch == '\\') z->p++;
        else if (ch == '"') return;
    }
}

/* Skips one value; nesting is counted, not recursed into. */
static void sc_skip_value(scanner *z) {
    if (z->p >= z->n) return;
    char ch = z->s[z->p];
    if (ch == '"') { sc_skip_string(z); return; }
    if (ch == '{' || ch == '[') {
        long depth = 0;
        while (z->p < z->n) {
            ch = z->s[z->p];
            if (ch == '"') { sc_skip_string(z); continue; }
            z->p++;
            if (ch == '{' || ch == '[') depth++;
            else if ((ch == '}' || ch == ']') && --depth == 0) return;
        }
        return;
    }
    while (z->p < z->n && z->s[z->p] && !strchr(",]} \t\r\n", z->s[z->p])) z->p++;
}

/* The byte offset of the value at `at` (of its key when at_key), or of the
 * deepest enclosing value found. The text is valid JSON (jansson read it). */
static size_t locate(const char *s, size_t n, const jpath *at, int at_key) {
    const jpath *chain[MAX_PATH];
    int depth = 0;
    for (const jpath *q = at; q; q = q->up) {
        if (depth == MAX_PATH) return 0;
        chain[depth++] = q;
    }
    scanner z = {s, n, 0};
    sc_space(&z);
    size_t best = z.p;
    for (int d = depth - 1; d >= 0; d--) {
        const jpath *q = chain[d];
        if (q->key) {
            if (z.p >= n || s[z.p] != '{') return best;
            z.p++;
            for (;;) {
                sc_space(&z);
                if (z.p >= n || s[z.p] != '"') return best;
                size_t key_at = z.p;
                int match = sc_string_is(&z, q->key);
                sc_space(&z);
                if (z.p < n && s[z.p] == ':') z.p++;
                sc_space(&z);
                if (match) {
                    if (d == 0 && at_key) return key_at;
                    break;
                }
                sc_skip_value(&z);
                sc_space(&z);
                if (z.p < n && s[z.p] == ',') { z.p++; continue; }
                return best;
            }
        } else {
            if (z.p >= n || s[z.p] != '[') return best;
            z.p++;
            for (int i = 0;; i++) {
                sc_space(&z);
                if (z.p >= n || s[z.p] == ']') return best;
                if (i == q->index) break;
                sc_skip_value(&z);
                sc_space(&z);
                if (z.p < n && s[z.p] == ',') { z.p++; continue; }
                return best;
            }
        }
        best = z.p;
    }
    return best;
}

/* 1-based line and column (in characters) of a byte offset. */
static void line_col(const char *s, size_t n, size_t off, int *line, int *col) {
    int l = 1, c = 1;
    for (size_t i = 0; i < off && i < n; i++) {
        unsigned char b = (unsigned char)s[i];
        if (b == '\n') { if (l < INT_MAX) l++; c = 1; }
        else if ((b & 0xC0) != 0x80 && c < INT_MAX) c++;
    }
    *line = l;
    *col = c;
}

/* ---- closest names ----------------------------------------------------------- */

typedef const char *(*name_at_fn)(const void *set, int i);

/* Optimal string alignment distance (edits, with adjacent swaps as one). */
static int edit_distance(const char *a, const char *b) {
    enum { CAP = 64 };
    size_t la = strlen(a), lb = strlen(b);
    if (la >= CAP || lb >= CAP) return INT_MAX;
    int rows[3][CAP + 1];
    int *pp = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= lb; j++) prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int cost = a[i - 1] != b[j - 1];
            int v = prev[j - 1] + cost;
            if (prev[j] + 1 < v) v = prev[j] + 1;
            if (cur[j - 1] + 1 < v) v = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v)
                v = pp[j - 2] + 1;
            cur[j] = v;
        }
        int *t = pp;
        pp = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}

/* " (did you mean 'x'?)", or the known names when there are few, or "". */
static void suggest(char *buf, size_t cap, const char *name, name_at_fn at, const void *set, int n) {
    buf[0] = 0;
    size_t len = strlen(name);
    int limit = len < 4 ? 1 : len < 9 ? 2 : 3, best_d = INT_MAX;
    const char *best = NULL;
    for (int i = 0; i < n; i++) {
        const char *cand = at(set, i);
        if (!cand) continue;
        int d = edit_distance(name, cand);
        if (d < best_d) { best_d = d; best = cand; }
    }
    if (best && best_d <= limit) {
        snprintf(buf, cap, " (did you mean '%s'?)", best);
        return;
    }
    if (n == 0) { snprintf(buf, cap, " (there are none)"); return; }
    if (n > 12) return;
    size_t used = (size_t)snprintf(buf, cap, " (known: ");
    for (int i = 0, listed = 0; i < n && used < cap; i++) {
        const char *cand = at(set, i);
        if (cand) used += (size_t)snprintf(buf + used, cap - used, "%s%s", listed++ ? ", " : "", cand);
    }
    if (used < cap) snprintf(buf + used, cap - used, ")");
}

static const char *list_name_at(const void *set, int i) { return ((const char *const *)set)[i]; }
static int list_count(const char *const *list) {
    int n = 0;
    while (list[n]) n++;
    return n;
}

typedef struct named {
    const char *name;
    int value;
} named;

static const char *named_at(const void *set, int i) { return ((const named *)set)[i].name; }
static int named_count(const named *t) {
    int n = 0;
    while (t[n].name) n++;
    return n;
}

static const named k_param_types[] = {
    {"float", STANCE_PARAM_FLOAT}, {"int", STANCE_PARAM_INT}, {"bool", STANCE_PARAM_BOOL},
    {"trigger", STANCE_PARAM_TRIGGER}, {NULL, 0}};
static const named k_ops[] = {
    {">=", STANCE_CMP_GE}, {">", STANCE_CMP_GT}, {"<=", STANCE_CMP_LE}, {"<", STANCE_CMP_LT},
    {"==", STANCE_CMP_EQ}, {"!=", STANCE_CMP_NE}, {"true", STANCE_CMP_TRUE}, {"false", STANCE_CMP_FALSE},
    {NULL, 0}};
static const named k_modes[] = {
    {"cut", STANCE_SWITCH_CUT}, {"frozen", STANCE_SWITCH_FROZEN}, {"crossfade", STANCE_SWITCH_CROSSFADE},
    {"inertialize", STANCE_SWITCH_INERTIALIZE}, {"inertialize_simple", STANCE_SWITCH_INERTIALIZE_SIMPLE},
    {"deadblend", STANCE_SWITCH_DEADBLEND}, {NULL, 0}};
static const named k_easings[] = {{"smoothstep", STANCE_EASE_SMOOTHSTEP}, {"linear", STANCE_EASE_LINEAR}, {NULL, 0}};
static const named k_layer_modes[] = {{"override", STANCE_LAYER_OVERRIDE}, {"additive", STANCE_LAYER_ADDITIVE}, {NULL, 0}};
static const named k_spaces[] = {{"local", STANCE_SPACE_LOCAL}, {"mesh", STANCE_SPACE_MESH}, {NULL, 0}};

/* ---- the reading context ------------------------------------------------------ */

typedef struct ctx {
    const char *text;  /* the raw document, for positions */
    size_t size;
    const char *name;  /* the file's name in messages */
    stance_error *err;
    stance_graphfile *gf;
    const stance_asset *asset;
    stance_param_desc *params;
    int param_count;
    stance_machine_desc *machines;
    int machine_count;
    int state_total;
} ctx;

/* An object being read: its value, its path, and what it is ("a state"). */
typedef struct jobj {
    json_t *v;
    const jpath *at;
    const char *what;
} jobj;

static stance_status fail_at(ctx *c, const jpath *at, int at_key, stance_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static stance_status fail_at(ctx *c, const jpath *at, int at_key, stance_status status, const char *fmt, ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line, col;
    line_col(c->text, c->size, locate(c->text, c->size, at, at_key), &line, &col);
    return st_fail(c->err, status, "%s:%d:%d: %s", c->name, line, col, msg);
}

static void position_of(const ctx *c, const jpath *at, int at_key, int *line, int *col) {
    line_col(c->text, c->size, locate(c->text, c->size, at, at_key), line, col);
}

static const char *type_name(const json_t *v) {
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

static stance_status want_object(ctx *c, json_t *v, const jpath *at, const char *what) {
    if (json_is_object(v)) return STANCE_OK;
    return fail_at(c, at, 0, STANCE_ERR_FORMAT, "expected %s (an object), got %s", what, type_name(v));
}

/* Rejects keys not in `allowed` (NULL-terminated); keys starting with '_'
 * are comments. */
static stance_status check_keys(ctx *c, const jobj *o, const char *const *allowed) {
    const char *key;
    json_t *val;
    json_object_foreach(o->v, key, val) {
        (void)val;
        if (key[0] == '_') continue;
        int known = 0;
        for (int i = 0; allowed[i] && !known; i++) known = !strcmp(key, allowed[i]);
        if (known) continue;
        char hint[200];
        suggest(hint, sizeof hint, key, list_name_at, allowed, list_count(allowed));
        jpath p = {o->at, key, -1};
        return fail_at(c, &p, 1, STANCE_ERR_FORMAT, "unknown key \"%.63s\" in %s%s", key, o->what, hint);
    }
    return STANCE_OK;
}

static stance_status require(ctx *c, const jobj *o, const char *key) {
    if (json_object_get(o->v, key)) return STANCE_OK;
    return fail_at(c, o->at, 0, STANCE_ERR_FORMAT, "missing \"%s\" in %s", key, o->what);
}

static stance_status get_string(ctx *c, const jobj *o, const char *key, int required, const char **out) {
    json_t *v = json_object_get(o->v, key);
    jpath p = {o->at, key, -1};
    if (!v) return required ? require(c, o, key) : STANCE_OK;
    if (!json_is_string(v))
        return fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"%s\": expected a string, got %s", key, type_name(v));
    if (strlen(json_string_value(v)) != json_string_length(v))
        return fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"%s\": the string contains a NUL character", key);
    *out = json_string_value(v);
    return STANCE_OK;
}

/* A name of the graph: 1..63 bytes; with no_slash, no '/' and not "*"
 * (machine and state names, which "Machine/State" and "*" would confuse). */
static stance_status check_name(ctx *c, const jpath *at, const char *name, int no_slash) {
    size_t n = strlen(name);
    if (n == 0) return fail_at(c, at, 0, STANCE_ERR_FORMAT, "expected a name, got an empty string");
    if (n >= STANCE_MAX_NAME)
        return fail_at(c, at, 0, STANCE_ERR_FORMAT, "name '%.40s...' is %zu bytes; at most %d", name, n,
                       STANCE_MAX_NAME - 1);
    if (no_slash && (strchr(name, '/') || !strcmp(name, "*")))
        return fail_at(c, at, 0, STANCE_ERR_FORMAT, "name '%s' may not contain '/' or be \"*\"", name);
    return STANCE_OK;
}

static stance_status get_name(ctx *c, const jobj *o, const char *key, int required, int no_slash,
                              const char **out) {
    stance_status s = get_string(c, o, key, required, out);
    if (s || !*out) return s;
    jpath p = {o->at, key, -1};
    return check_name(c, &p, *out, no_slash);
}

/* A number in [lo, hi] (or (lo, hi] when lo_open). Absent keeps *out. */
static stance_status get_number(ctx *c, const jobj *o, const char *key, int required, double lo, double hi,
                                int lo_open, float *out) {
    json_t *v = json_object_get(o->v, key);
    jpath p = {o->at, key, -1};
    if (!v) return required ? require(c, o, key) : STANCE_OK;
    if (!json_is_number(v))
        return fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"%s\": expected a number, got %s", key, type_name(v));
    double d = json_number_value(v);
    if (!isfinite(d) || (lo_open ? !(d > lo) : !(d >= lo)) || !(d <= hi))
        return fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"%s\": expected a number in %c%g, %g], got %g", key,
                       lo_open ? '(' : '[', lo, hi, d);
    *out = (float)d;
    return STANCE_OK;
}

static stance_status get_int(ctx *c, const jobj *o, const char *key, int lo, int hi, int *out) {
    json_t *v = json_object_get(o->v, key);
    jpath p = {o->at, key, -1};
    if (!v) return STANCE_OK;
    double d = json_is_number(v) ? json_number_value(v) : NAN;
    if (!json_is_number(v) || d != floor(d) || d < lo || d > hi)
        return fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"%s\": expected a whole number in [%d, %d]", key, lo, hi);
    *out = (int)d;
    return STANCE_OK;
}

static stance_status get_bool(ctx *c, const jobj *o, const char *key, int *out) {
    json_t *v = json_object_get(o->v, key);
    jpath p = {o->at, key, -1};
    if (!v) return STANCE_OK;
    if (!json_is_boolean(v))
        return fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"%s\": expected true or false, got %s", key, type_name(v));
    *out = json_is_true(v);
    return STANCE_OK;
}

/* One of a table's names; `kind` names it in messages. Absent keeps *out. */
static stance_status get_enum(ctx *c, const jobj *o, const char *key, const char *kind, const named *table,
                              int *out) {
    const char *s = NULL;
    stance_status st = get_string(c, o, key, 0, &s);
    if (st || !s) return st;
    for (int i = 0; table[i].name; i++)
        if (!strcmp(table[i].name, s)) { *out = table[i].value; return STANCE_OK; }
    char hint[200];
    suggest(hint, sizeof hint, s, named_at, table, named_count(table));
    jpath p = {o->at, key, -1};
    return fail_at(c, &p, 0, STANCE_ERR_FORMAT, "unknown %s '%.63s'%s", kind, s, hint);
}

/* An array member: absent = count 0 (or an error when required). */
static stance_status get_array(ctx *c, const jobj *o, const char *key, int required, int lo, int hi,
                               json_t **out, int *count) {
    json_t *v = json_object_get(o->v, key);
    jpath p = {o->at, key, -1};
    *out = NULL;
    *count = 0;
    if (!v) return required ? require(c, o, key) : STANCE_OK;
    if (!json_is_array(v))
        return fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"%s\": expected an array, got %s", key, type_name(v));
    size_t n = json_array_size(v);
    if (n < (size_t)lo || n > (size_t)hi)
        return fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"%s\": expected %d to %d items, got %zu", key, lo, hi, n);
    *out = v;
    *count = (int)n;
    return STANCE_OK;
}

static stance_status no_memory(ctx *c) {
    return st_fail(c->err, STANCE_ERR_MEMORY, "%s: out of memory", c->name);
}

/* ---- names of the graph -------------------------------------------------------- */

static const char *clip_name_at(const void *set, int i) {
    const stance_asset *a = set;
    return a->clips[i] ? a->clips[i]->name : NULL;
}
static const char *joint_name_at(const void *set, int i) {
    return stance_skeleton_joint_name((const stance_skeleton *)set, i);
}
static const char *param_name_at(const void *set, int i) { return ((const ctx *)set)->params[i].name; }
static const char *machine_name_at(const void *set, int i) { return ((const ctx *)set)->machines[i].name; }
static const char *state_name_at(const void *set, int i) {
    return ((const stance_machine_desc *)set)->states[i].name;
}

static stance_status find_clip(ctx *c, const jpath *at, const char *name, const stance_clip **out) {
    *out = stance_asset_find_clip(c->asset, name);
    if (*out) return STANCE_OK;
    char hint[200];
    suggest(hint, sizeof hint, name, clip_name_at, c->asset, c->asset->clip_count);
    return fail_at(c, at, 0, STANCE_ERR_NOT_FOUND, "unknown clip '%.63s'%s", name, hint);
}

static stance_status find_joint(ctx *c, const jpath *at, int at_key, const char *name, int *out) {
    const stance_skeleton *sk = c->asset->skeleton;
    *out = stance_skeleton_find(sk, name);
    if (*out >= 0) return STANCE_OK;
    char hint[200];
    suggest(hint, sizeof hint, name, joint_name_at, sk, sk->joint_count);
    return fail_at(c, at, at_key, STANCE_ERR_NOT_FOUND, "unknown joint '%.63s'%s", name, hint);
}

static int param_index(const ctx *c, const char *name) {
    for (int i = 0; i < c->param_count; i++)
        if (!strcmp(c->params[i].name, name)) return i;
    return -1;
}

static stance_status find_param(ctx *c, const jpath *at, const char *name, int *out) {
    *out = param_index(c, name);
    if (*out >= 0) return STANCE_OK;
    char hint[200];
    suggest(hint, sizeof hint, name, param_name_at, c, c->param_count);
    return fail_at(c, at, 0, STANCE_ERR_NOT_FOUND, "unknown parameter '%.63s'%s", name, hint);
}

static int machine_index(const ctx *c, const char *name) {
    for (int i = 0; i < c->machine_count; i++)
        if (c->machines[i].name && !strcmp(c->machines[i].name, name)) return i;
    return -1;
}

static stance_status find_machine(ctx *c, const jpath *at, const char *name, int *out) {
    *out = machine_index(c, name);
    if (*out >= 0) return STANCE_OK;
    char hint[200];
    suggest(hint, sizeof hint, name, machine_name_at, c, c->machine_count);
    return fail_at(c, at, 0, STANCE_ERR_NOT_FOUND, "unknown machine '%.63s'%s", name, hint);
}

static int state_index(const stance_machine_desc *m, const char *name) {
    for (int i = 0; i < m->state_count; i++)
        if (!strcmp(m->states[i].name, name)) return i;
    return -1;
}

static stance_status find_state(ctx *c, const jpath *at, const stance_machine_desc *m, const char *name) {
    if (state_index(m, name) >= 0) return STANCE_OK;
    char hint[200];
    suggest(hint, sizeof hint, name, state_name_at, m, m->state_count);
    return fail_at(c, at, 0, STANCE_ERR_NOT_FOUND, "unknown state '%.63s' in machine '%s'%s", name, m->name, hint);
}

/* "NAME is defined twice" pointing at the second, naming the first's line. */
static stance_status duplicate(ctx *c, const jpath *second, const jpath *first, const char *kind, const char *name) {
    int line, col;
    position_of(c, first, 0, &line, &col);
    return fail_at(c, second, 0, STANCE_ERR_FORMAT, "%s '%s' is defined twice (first at line %d, column %d)", kind,
                   name, line, col);
}

/* ---- the asset ------------------------------------------------------------------ */

static stance_status load_builtin(stance_asset *out, stance_error *err) {
    stance_builtin b;
    stance_status s = stance_builtin_create(NULL, &b, err);
    if (s) return s;
    memset(out, 0, sizeof *out);
    out->clips = st_alloc(&out->allocator, sizeof(stance_clip *) * (size_t)b.clip_count, sizeof(void *));
    if (!out->clips) {
        stance_builtin_destroy(&b);
        return st_fail(err, STANCE_ERR_MEMORY, "builtin: out of memory");
    }
    out->skins = st_alloc(&out->allocator, sizeof(stance_skin *), sizeof(void *));
    out->meshes = st_alloc(&out->allocator, sizeof(stance_mesh *), sizeof(void *));
    if (!out->skins || !out->meshes) {
        st_free(&out->allocator, out->skins, sizeof(stance_skin *));
        st_free(&out->allocator, out->meshes, sizeof(stance_mesh *));
        st_free(&out->allocator, out->clips, sizeof(stance_clip *) * (size_t)b.clip_count);
        memset(out, 0, sizeof *out);
        stance_builtin_destroy(&b);
        return st_fail(err, STANCE_ERR_MEMORY, "builtin: out of memory");
    }
    out->skeleton = b.skeleton;
    out->clip_count = b.clip_count;
    for (int i = 0; i < b.clip_count; i++) out->clips[i] = b.clips[i];
    out->skin_count = out->mesh_count = 1;
    out->skins[0] = b.skin;
    out->meshes[0] = b.mesh;
    return STANCE_OK;
}

static char *join_path(const char *dir, const char *rel) {
    if (!dir || !dir[0] || rel[0] == '/') return dup_string(rel);
    size_t a = strlen(dir), b = strlen(rel);
    char *s = malloc(a + b + 2);
    if (!s) return NULL;
    memcpy(s, dir, a);
    s[a] = '/';
    memcpy(s + a + 1, rel, b + 1);
    return s;
}

static stance_status read_asset(ctx *c, const jobj *root, const char *base_dir, const stance_graphfile_options *opt) {
    stance_graphfile *gf = c->gf;
    const char *spec = NULL;
    stance_status s = get_string(c, root, "asset", !(opt && (opt->asset || opt->asset_override)), &spec);
    if (s) return s;
    if (opt && opt->asset) {
        if (!opt->asset->skeleton || opt->asset->clip_count < 0 || (opt->asset->clip_count && !opt->asset->clips))
            return st_fail(c->err, STANCE_ERR_ARGUMENT, "%s: the borrowed asset has no skeleton", c->name);
        gf->asset = opt->asset;
        gf->asset_name = dup_string("(borrowed)");
        return gf->asset_name ? STANCE_OK : no_memory(c);
    }
    const char *dir = base_dir;
    jpath p = {root->at, "asset", -1};
    if (opt && opt->asset_override) {
        spec = opt->asset_override;
        dir = NULL;
    } else if (!spec[0]) {
        return fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"asset\": expected \"builtin\" or a path, got \"\"");
    }
    stance_error e = {0};
    if (!strcmp(spec, "builtin")) {
        gf->asset_name = dup_string("builtin");
        if (!gf->asset_name) return no_memory(c);
        s = load_builtin(&gf->owned, &e);
    } else {
        gf->asset_name = join_path(dir, spec);
        if (!gf->asset_name) return no_memory(c);
        s = stance_open_file(gf->asset_name, NULL, NULL, &gf->owned, &e);
    }
    if (s) {
        if (opt && opt->asset_override)
            return st_fail(c->err, s, "%s: cannot load the asset: %s", c->name, e.message);
        return fail_at(c, &p, 0, s, "cannot load the asset: %s", e.message);
    }
    if (!gf->owned.skeleton) {
        stance_asset_destroy(&gf->owned);
        return fail_at(c, &p, 0, STANCE_ERR_FORMAT, "the asset has no skeleton");
    }
    gf->asset = &gf->owned;
    return STANCE_OK;
}

/* ---- parameters ------------------------------------------------------------------ */

static stance_status read_params(ctx *c, const jobj *root) {
    static const char *const keys[] = {"name", "type", "value", "damping", NULL};
    json_t *arr;
    int n;
    stance_status s = get_array(c, root, "params", 0, 0, STANCE_MAX_PARAMS, &arr, &n);
    if (s || !n) return s;
    jpath pa = {root->at, "params", -1};
    c->params = gf_alloc(c->gf, (size_t)n, sizeof *c->params);
    if (!c->params) return no_memory(c);
    for (int i = 0; i < n; i++) {
        jpath pi = {&pa, NULL, i};
        jobj o = {json_array_get(arr, (size_t)i), &pi, "a parameter"};
        stance_param_desc *d = &c->params[i];
        int type = -1;
        if ((s = want_object(c, o.v, &pi, "a parameter")) || (s = check_keys(c, &o, keys)) ||
            (s = get_name(c, &o, "name", 1, 0, &d->name)) || (s = require(c, &o, "type")) ||
            (s = get_enum(c, &o, "type", "parameter type", k_param_types, &type)))
            return s;
        jpath pn = {&pi, "name", -1};
        for (int k = 0; k < i; k++)
            if (!strcmp(c->params[k].name, d->name)) {
                jpath pk = {&pa, NULL, k}, pkn = {&pk, "name", -1};
                return duplicate(c, &pn, &pkn, "parameter", d->name);
            }
        d->type = (stance_param_type)type;
        json_t *v = json_object_get(o.v, "value");
        jpath pv = {&pi, "value", -1};
        if (v && d->type == STANCE_PARAM_TRIGGER)
            return fail_at(c, &pv, 0, STANCE_ERR_FORMAT, "a trigger has no \"value\" (it starts unset)");
        if (v && d->type == STANCE_PARAM_BOOL) {
            int b = 0;
            if ((s = get_bool(c, &o, "value", &b))) return s;
            d->value = (float)b;
        } else if (d->type == STANCE_PARAM_INT) {
            int iv = 0;
            if ((s = get_int(c, &o, "value", -16777216, 16777216, &iv))) return s;
            d->value = (float)iv;
        } else if (d->type == STANCE_PARAM_FLOAT) {
            if ((s = get_number(c, &o, "value", 0, -1e30, 1e30, 0, &d->value))) return s;
        }
        if (json_object_get(o.v, "damping")) {
            jpath pd = {&pi, "damping", -1};
            if (d->type != STANCE_PARAM_FLOAT)
                return fail_at(c, &pd, 1, STANCE_ERR_FORMAT, "\"damping\" is for float parameters; '%s' is a %s",
                               d->name, k_param_types[d->type].name);
            if ((s = get_number(c, &o, "damping", 0, 0.0, 60.0, 0, &d->damping))) return s;
        }
        c->param_count = i + 1;
    }
    return STANCE_OK;
}

/* ---- states --------------------------------------------------------------------- */

/* A blend space position: a number, or "speed_of:CLIP" (the clip's root speed). */
static stance_status get_position(ctx *c, const jobj *o, const char *key, float *out) {
    json_t *v = json_object_get(o->v, key);
    jpath p = {o->at, key, -1};
    if (!v) return require(c, o, key);
    if (json_is_number(v)) return get_number(c, o, key, 1, -1e6, 1e6, 0, out);
    const char *s = json_is_string(v) ? json_string_value(v) : NULL;
    if (!s || strncmp(s, "speed_of:", 9) != 0) {
        if (s)
            return fail_at(c, &p, 0, STANCE_ERR_FORMAT,
                           "\"%s\": expected a number or \"speed_of:CLIP\", got \"%.63s\"", key, s);
        return fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"%s\": expected a number or \"speed_of:CLIP\", got %s", key,
                       type_name(v));
    }
    const stance_clip *clip;
    stance_status st = find_clip(c, &p, s + 9, &clip);
    if (st) return st;
    if (!(clip->root_speed > 0.0f) || !isfinite(clip->root_speed))
        return fail_at(c, &p, 0, STANCE_ERR_VALUE,
                       "clip '%s' has no root speed (it plays in place); give \"%s\" as a number", clip->name, key);
    *out = clip->root_speed;
    return STANCE_OK;
}

static stance_status param_for_blend(ctx *c, const jobj *o, const char *key, const char **out) {
    stance_status s = get_string(c, o, key, 1, out);
    if (s) return s;
    jpath p = {o->at, key, -1};
    int i;
    if ((s = find_param(c, &p, *out, &i))) return s;
    if (c->params[i].type != STANCE_PARAM_FLOAT && c->params[i].type != STANCE_PARAM_INT)
        return fail_at(c, &p, 0, STANCE_ERR_FORMAT, "parameter '%s' is a %s; expected a float or int parameter",
                       *out, k_param_types[c->params[i].type].name);
    return STANCE_OK;
}

static stance_status read_blend(ctx *c, const jobj *o, int dims, stance_state_desc *st) {
    static const char *const keys1[] = {"param", "speed_warp", "entries", NULL};
    static const char *const keys2[] = {"param_x", "param_y", "entries", NULL};
    static const char *const ekeys1[] = {"clip", "x", NULL};
    static const char *const ekeys2[] = {"clip", "x", "y", NULL};
    stance_status s;
    if ((s = want_object(c, o->v, o->at, o->what)) || (s = check_keys(c, o, dims == 1 ? keys1 : keys2))) return s;
    if (dims == 1) {
        if ((s = param_for_blend(c, o, "param", &st->param_x)) || (s = get_bool(c, o, "speed_warp", &st->speed_warp)))
            return s;
    } else if ((s = param_for_blend(c, o, "param_x", &st->param_x)) || (s = param_for_blend(c, o, "param_y", &st->param_y))) {
        return s;
    }
    json_t *arr;
    int n;
    if ((s = get_array(c, o, "entries", 1, 2, STANCE_MAX_BLEND_ENTRIES, &arr, &n))) return s;
    stance_blend_entry_desc *e = gf_alloc(c->gf, (size_t)n, sizeof *e);
    if (!e) return no_memory(c);
    jpath pa = {o->at, "entries", -1};
    for (int i = 0; i < n; i++) {
        jpath pi = {&pa, NULL, i};
        jobj eo = {json_array_get(arr, (size_t)i), &pi, "a blend space entry"};
        const char *clip = NULL;
        if ((s = want_object(c, eo.v, &pi, eo.what)) || (s = check_keys(c, &eo, dims == 1 ? ekeys1 : ekeys2)) ||
            (s = get_string(c, &eo, "clip", 1, &clip)))
            return s;
        jpath pc = {&pi, "clip", -1};
        if ((s = find_clip(c, &pc, clip, &e[i].clip)) || (s = get_position(c, &eo, "x", &e[i].x))) return s;
        if (dims == 2 && (s = get_position(c, &eo, "y", &e[i].y))) return s;
        jpath px = {&pi, "x", -1};
        for (int k = 0; k < i; k++) {
            if (e[k].x != e[i].x || (dims == 2 && e[k].y != e[i].y)) continue;
            if (dims == 1)
                return fail_at(c, &px, 0, STANCE_ERR_VALUE, "entries %d and %d are both at x = %g", k, i,
                               (double)e[i].x);
            return fail_at(c, &px, 0, STANCE_ERR_VALUE, "entries %d and %d are both at (%g, %g)", k, i,
                           (double)e[i].x, (double)e[i].y);
        }
    }
    st->entries = e;
    st->entry_count = n;
    return STANCE_OK;
}

static stance_status read_state(ctx *c, int m, const jobj *o, stance_state_desc *st) {
    static const char *const keys[] = {"name", "clip", "blend1d", "blend2d", "machine", "once", "speed",
                                       "speed_param", NULL};
    static const char *const motions[] = {"clip", "blend1d", "blend2d", "machine", NULL};
    stance_status s = check_keys(c, o, keys);
    if (s) return s;
    const char *first = NULL;
    for (int i = 0; motions[i]; i++) {
        if (!json_object_get(o->v, motions[i])) continue;
        if (first) {
            jpath p = {o->at, motions[i], -1};
            return fail_at(c, &p, 1, STANCE_ERR_FORMAT,
                           "a state plays one thing: \"%s\" and \"%s\" are both given", first, motions[i]);
        }
        first = motions[i];
    }
    if (!first)
        return fail_at(c, o->at, 0, STANCE_ERR_FORMAT,
                       "state '%s' plays nothing: expected one of \"clip\", \"blend1d\", \"blend2d\" or \"machine\"",
                       st->name);
    jpath pm = {o->at, first, -1};
    if (!strcmp(first, "clip")) {
        const char *clip = NULL;
        st->type = STANCE_MOTION_CLIP;
        if ((s = get_string(c, o, "clip", 1, &clip)) || (s = find_clip(c, &pm, clip, &st->clip))) return s;
    } else if (!strcmp(first, "machine")) {
        int target;
        st->type = STANCE_MOTION_MACHINE;
        if ((s = get_string(c, o, "machine", 1, &st->machine)) || (s = find_machine(c, &pm, st->machine, &target)))
            return s;
        if (target == m)
            return fail_at(c, &pm, 0, STANCE_ERR_FORMAT, "machine '%s' cannot contain itself", st->machine);
    } else {
        int dims = first[5] - '0';
        st->type = dims == 1 ? STANCE_MOTION_BLEND1D : STANCE_MOTION_BLEND2D;
        jobj bo = {json_object_get(o->v, first), &pm, dims == 1 ? "a 1D blend space" : "a 2D blend space"};
        if ((s = read_blend(c, &bo, dims, st))) return s;
    }
    if ((s = get_bool(c, o, "once", &st->once))) return s;
    if ((s = get_number(c, o, "speed", 0, -100.0, 100.0, 0, &st->speed))) return s;
    jpath ps = {o->at, "speed", -1};
    if (json_object_get(o->v, "speed") && st->speed == 0.0f)
        return fail_at(c, &ps, 0, STANCE_ERR_VALUE, "\"speed\" must not be 0 (leave it out for 1)");
    if ((s = get_string(c, o, "speed_param", 0, &st->speed_param))) return s;
    if (st->speed_param) {
        jpath pp = {o->at, "speed_param", -1};
        int i;
        if ((s = find_param(c, &pp, st->speed_param, &i))) return s;
        if (c->params[i].type != STANCE_PARAM_FLOAT && c->params[i].type != STANCE_PARAM_INT)
            return fail_at(c, &pp, 0, STANCE_ERR_FORMAT, "parameter '%s' is a %s; expected a float or int parameter",
                           st->speed_param, k_param_types[c->params[i].type].name);
    }
    return STANCE_OK;
}

/* ---- transitions ------------------------------------------------------------------ */

static stance_status read_condition(ctx *c, const jobj *o, int group, stance_condition_desc *d) {
    static const char *const keys[] = {"param", "op", "value", "hysteresis", NULL};
    stance_status s;
    if ((s = want_object(c, o->v, o->at, o->what)) || (s = check_keys(c, o, keys)) ||
        (s = get_string(c, o, "param", 1, &d->param)))
        return s;
    jpath pp = {o->at, "param", -1}, po = {o->at, "op", -1}, pv = {o->at, "value", -1};
    int pi, op = -1;
    if ((s = find_param(c, &pp, d->param, &pi))) return s;
    stance_param_type type = c->params[pi].type;
    const char *tname = k_param_types[type].name;
    int logical = type == STANCE_PARAM_BOOL || type == STANCE_PARAM_TRIGGER;
    if ((s = get_enum(c, o, "op", "op", k_ops, &op))) return s;
    if (op < 0) {
        if (!logical)
            return fail_at(c, o->at, 0, STANCE_ERR_FORMAT,
                           "missing \"op\" for %s parameter '%s' (one of >=, >, <=, <, ==, !=)", tname, d->param);
        op = STANCE_CMP_TRUE;
    }
    int test = op == STANCE_CMP_TRUE || op == STANCE_CMP_FALSE;
    if (logical && !test)
        return fail_at(c, &po, 0, STANCE_ERR_FORMAT, "'%s' is a %s: test it with \"true\" or \"false\", not '%s'",
                       d->param, tname, k_ops[op].name);
    if (!logical && test)
        return fail_at(c, &po, 0, STANCE_ERR_FORMAT, "op '%s' needs a bool or trigger; '%s' is a %s",
                       k_ops[op].name, d->param, tname);
    if (type == STANCE_PARAM_TRIGGER && op == STANCE_CMP_FALSE)
        return fail_at(c, &po, 0, STANCE_ERR_FORMAT, "a trigger can only be tested for \"true\"");
    d->op = (stance_compare)op;
    if (test) {
        if (json_object_get(o->v, "value"))
            return fail_at(c, &pv, 0, STANCE_ERR_FORMAT, "\"value\" has no meaning with op '%s'", k_ops[op].name);
    } else if ((s = get_number(c, o, "value", 1, -1e30, 1e30, 0, &d->value))) {
        return s;
    }
    if (json_object_get(o->v, "hysteresis")) {
        jpath ph = {o->at, "hysteresis", -1};
        if (test || op == STANCE_CMP_EQ || op == STANCE_CMP_NE)
            return fail_at(c, &ph, 0, STANCE_ERR_FORMAT, "\"hysteresis\" needs op >=, >, <= or <");
        if ((s = get_number(c, o, "hysteresis", 0, 0.0, 1e30, 0, &d->hysteresis))) return s;
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
    if ((s = want_object(c, o->v, o->at, o->what)) || (s = check_keys(c, o, keys)) ||
        (s = get_string(c, o, "from", 1, &t->from)) || (s = get_string(c, o, "to", 1, &t->to)))
        return s;
    jpath pf = {o->at, "from", -1}, pt = {o->at, "to", -1};
    int any = !strcmp(t->from, "*");
    if ((!any && (s = find_state(c, &pf, m, t->from))) || (s = find_state(c, &pt, m, t->to))) return s;
    if (!any && !strcmp(t->from, t->to))
        return fail_at(c, &pt, 0, STANCE_ERR_FORMAT,
                       "a transition from '%s' to itself; use \"from\": \"*\" with \"allow_self\": true to restart a state",
                       t->to);

    /* conditions: "when" (AND) and "any_of" (OR of AND groups); with both,
     * each group is "when" AND that group */
    json_t *when, *any_of;
    int wn, gn;
    if ((s = get_array(c, o, "when", 0, 0, STANCE_MAX_CONDITIONS, &when, &wn)) ||
        (s = get_array(c, o, "any_of", 0, 1, STANCE_MAX_CONDITIONS, &any_of, &gn)))
        return s;
    jpath pw = {o->at, "when", -1}, pa = {o->at, "any_of", -1};
    int total = gn ? 0 : wn;
    for (int g = 0; g < gn; g++) {
        json_t *grp = json_array_get(any_of, (size_t)g);
        jpath pg = {&pa, NULL, g};
        if (!json_is_array(grp))
            return fail_at(c, &pg, 0, STANCE_ERR_FORMAT, "expected an array of conditions (one \"any_of\" group), got %s",
                           type_name(grp));
        if (json_array_size(grp) == 0)
            return fail_at(c, &pg, 0, STANCE_ERR_FORMAT, "an \"any_of\" group needs at least one condition");
        total += wn + (int)(json_array_size(grp) > STANCE_MAX_CONDITIONS ? STANCE_MAX_CONDITIONS + 1 : json_array_size(grp));
        if (total > STANCE_MAX_CONDITIONS) break;
    }
    if (total > STANCE_MAX_CONDITIONS)
        return fail_at(c, gn ? &pa : &pw, 0, STANCE_ERR_FORMAT,
                       "too many conditions: at most %d, counting \"when\" once per \"any_of\" group",
                       STANCE_MAX_CONDITIONS);
    stance_condition_desc *cd = total ? gf_alloc(c->gf, (size_t)total, sizeof *cd) : NULL;
    if (total && !cd) return no_memory(c);
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
        if ((s = get_number(c, o, "exit", 1, 0.0, 1e6, 0, &t->exit_time))) return s;
        t->exit = STANCE_EXIT_NORMALIZED;
    } else if (exit) {
        return fail_at(c, &pe, 0, STANCE_ERR_FORMAT,
                       "\"exit\": expected \"end\" or a normalized time (a number >= 0), got %s%s%.40s%s",
                       type_name(exit), json_is_string(exit) ? " \"" : "",
                       json_is_string(exit) ? json_string_value(exit) : "", json_is_string(exit) ? "\"" : "");
    }
    t->blend_time = def->blend_time;
    int mode = def->mode, easing = def->easing;
    if ((s = get_number(c, o, "blend_time", 0, 0.0, 60.0, 1, &t->blend_time)) ||
        (s = get_enum(c, o, "mode", "mode", k_modes, &mode)) ||
        (s = get_enum(c, o, "easing", "easing", k_easings, &easing)) ||
        (s = get_bool(c, o, "uninterruptible", &t->uninterruptible)) ||
        (s = get_bool(c, o, "allow_self", &t->allow_self)))
        return s;
    t->mode = (stance_switch_mode)mode;
    t->easing = (stance_easing)easing;
    if (t->allow_self && !any) {
        jpath ps = {o->at, "allow_self", -1};
        return fail_at(c, &ps, 0, STANCE_ERR_FORMAT, "\"allow_self\" is for transitions from \"*\" (any state)");
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
    if ((s = check_keys(c, o, keys)) ||
        (s = get_array(c, o, "states", 1, 1, STANCE_MAX_STATES, &states, &ns)) ||
        (s = get_array(c, o, "transitions", 0, 0, 4096, &trans, &nt)))
        return s;
    jpath ps = {o->at, "states", -1}, pt = {o->at, "transitions", -1};
    if (ns > STANCE_MAX_STATES - c->state_total)
        return fail_at(c, &ps, 0, STANCE_ERR_FORMAT, "too many states: the graph may have at most %d",
                       STANCE_MAX_STATES);
    c->state_total += ns;
    stance_state_desc *sd = gf_alloc(c->gf, (size_t)ns, sizeof *sd);
    if (!sd) return no_memory(c);
    m->states = sd;
    /* names first, so transitions and the entry can name any state */
    for (int i = 0; i < ns; i++) {
        jpath pi = {&ps, NULL, i};
        jobj so = {json_array_get(states, (size_t)i), &pi, "a state"};
        if ((s = want_object(c, so.v, &pi, "a state")) || (s = get_name(c, &so, "name", 1, 1, &sd[i].name))) return s;
        jpath pn = {&pi, "name", -1};
        for (int k = 0; k < i; k++)
            if (!strcmp(sd[k].name, sd[i].name)) {
                jpath pk = {&ps, NULL, k}, pkn = {&pk, "name", -1};
                return duplicate(c, &pn, &pkn, "state", sd[i].name);
            }
        m->state_count = i + 1;
    }
    for (int i = 0; i < ns; i++) {
        jpath pi = {&ps, NULL, i};
        jobj so = {json_array_get(states, (size_t)i), &pi, "a state"};
        if ((s = read_state(c, mi, &so, &sd[i]))) return s;
    }
    if ((s = get_string(c, o, "entry", 0, &m->entry))) return s;
    jpath pe = {o->at, "entry", -1};
    if (m->entry && (s = find_state(c, &pe, m, m->entry))) return s;

    transition_defaults def = {0.0f, STANCE_SWITCH_CROSSFADE, STANCE_EASE_SMOOTHSTEP};
    if ((s = get_number(c, o, "blend_time", 0, 0.0, 60.0, 1, &def.blend_time)) ||
        (s = get_enum(c, o, "mode", "mode", k_modes, &def.mode)) ||
        (s = get_enum(c, o, "easing", "easing", k_easings, &def.easing)))
        return s;
    stance_transition_desc *td = nt ? gf_alloc(c->gf, (size_t)nt, sizeof *td) : NULL;
    if (nt && !td) return no_memory(c);
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
                int t = machine_index(c, st->machine);
                if (t >= 0 && depth[t] + 1 > depth[m]) depth[m] = depth[t] + 1;
            }
    for (int m = 0; m < c->machine_count; m++)
        for (int i = 0; i < c->machines[m].state_count; i++) {
            const stance_state_desc *st = &c->machines[m].states[i];
            if (st->type != STANCE_MOTION_MACHINE || depth[m] <= STANCE_MAX_NEST) continue;
            jpath pm = {machines_at, NULL, m}, ps = {&pm, "states", -1}, pi = {&ps, NULL, i},
                  pk = {&pi, "machine", -1};
            return fail_at(c, &pk, 0, STANCE_ERR_FORMAT,
                           "nested machines form a cycle or nest deeper than %d levels (through '%s')",
                           STANCE_MAX_NEST, st->machine);
        }
    return STANCE_OK;
}

static stance_status read_machines(ctx *c, const jobj *root) {
    json_t *arr;
    int n;
    stance_status s = get_array(c, root, "machines", 1, 1, STANCE_MAX_MACHINES, &arr, &n);
    if (s) return s;
    jpath pa = {root->at, "machines", -1};
    c->machines = gf_alloc(c->gf, (size_t)n, sizeof *c->machines);
    if (!c->machines) return no_memory(c);
    /* names first: states and layers may name any machine */
    for (int i = 0; i < n; i++) {
        jpath pi = {&pa, NULL, i};
        jobj o = {json_array_get(arr, (size_t)i), &pi, "a machine"};
        if ((s = want_object(c, o.v, &pi, "a machine")) || (s = get_name(c, &o, "name", 1, 1, &c->machines[i].name)))
            return s;
        jpath pn = {&pi, "name", -1};
        for (int k = 0; k < i; k++)
            if (!strcmp(c->machines[k].name, c->machines[i].name)) {
                jpath pk = {&pa, NULL, k}, pkn = {&pk, "name", -1};
                return duplicate(c, &pn, &pkn, "machine", c->machines[i].name);
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

/* ---- layers ------------------------------------------------------------------------- */

static stance_status read_mask(ctx *c, const jobj *o, const float **out) {
    static const char *const keys[] = {"subtree", "falloff", "weight", "joints", "weights", NULL};
    static const char *const kinds[] = {"subtree", "joints", "weights", NULL};
    stance_status s;
    if ((s = want_object(c, o->v, o->at, "a mask")) || (s = check_keys(c, o, keys))) return s;
    const char *kind = NULL;
    for (int i = 0; kinds[i]; i++) {
        if (!json_object_get(o->v, kinds[i])) continue;
        if (kind) {
            jpath p = {o->at, kinds[i], -1};
            return fail_at(c, &p, 1, STANCE_ERR_FORMAT, "a mask is one of \"subtree\", \"joints\" or \"weights\": "
                           "\"%s\" and \"%s\" are both given", kind, kinds[i]);
        }
        kind = kinds[i];
    }
    if (!kind)
        return fail_at(c, o->at, 0, STANCE_ERR_FORMAT, "a mask needs \"subtree\", \"joints\" or \"weights\"");
    const stance_skeleton *sk = c->asset->skeleton;
    float *w = gf_alloc(c->gf, (size_t)sk->joint_count, sizeof *w);
    if (!w) return no_memory(c);
    float weight = 1.0f;
    int falloff = 0;
    jpath pk = {o->at, kind, -1};
    if ((s = get_number(c, o, "weight", 0, 0.0, 1.0, 0, &weight))) return s;
    if (strcmp(kind, "subtree") && json_object_get(o->v, "falloff")) {
        jpath pf = {o->at, "falloff", -1};
        return fail_at(c, &pf, 1, STANCE_ERR_FORMAT, "\"falloff\" is for \"subtree\" masks");
    }
    if (!strcmp(kind, "weights") && json_object_get(o->v, "weight")) {
        jpath pw = {o->at, "weight", -1};
        return fail_at(c, &pw, 1, STANCE_ERR_FORMAT, "\"weight\" has no meaning with \"weights\" (each joint has its own)");
    }
    stance_error e = {0};
    if (!strcmp(kind, "subtree")) {
        const char *joint = NULL;
        int j;
        if ((s = get_string(c, o, "subtree", 1, &joint)) || (s = find_joint(c, &pk, 0, joint, &j)) ||
            (s = get_int(c, o, "falloff", 0, 64, &falloff)))
            return s;
        s = stance_mask_subtree(sk, j, weight, falloff, w, &e);
    } else if (!strcmp(kind, "joints")) {
        json_t *arr = json_object_get(o->v, "joints");
        if (!json_is_array(arr) || json_array_size(arr) == 0)
            return fail_at(c, &pk, 0, STANCE_ERR_FORMAT, "\"joints\": expected a non-empty array of joint names");
        for (size_t i = 0; i < json_array_size(arr); i++) {
            json_t *v = json_array_get(arr, i);
            jpath pi = {&pk, NULL, (int)i};
            int j;
            if (!json_is_string(v))
                return fail_at(c, &pi, 0, STANCE_ERR_FORMAT, "expected a joint name, got %s", type_name(v));
            if ((s = find_joint(c, &pi, 0, json_string_value(v), &j))) return s;
            w[j] = weight;
        }
    } else {
        json_t *obj = json_object_get(o->v, "weights");
        if (!json_is_object(obj) || json_object_size(obj) == 0)
            return fail_at(c, &pk, 0, STANCE_ERR_FORMAT, "\"weights\": expected an object of joint names to weights");
        const char *key;
        json_t *v;
        jobj wo = {obj, &pk, "\"weights\""};
        json_object_foreach(obj, key, v) {
            jpath pj = {&pk, key, -1};
            int j;
            float x;
            if ((s = find_joint(c, &pj, 1, key, &j)) || (s = get_number(c, &wo, key, 1, 0.0, 1.0, 0, &x))) return s;
            w[j] = x;
        }
    }
    if (s) return fail_at(c, o->at, 0, s, "bad mask: %s", e.message);
    *out = w;
    return STANCE_OK;
}

/* "first_frame", "first_frame:CLIP" or "clip:CLIP" (synced). */
static stance_status read_additive_ref(ctx *c, const jobj *o, stance_layer_desc *l) {
    const char *ref = NULL;
    stance_status s = get_string(c, o, "additive_ref", 0, &ref);
    if (s || !ref) return s;
    jpath p = {o->at, "additive_ref", -1};
    if (l->mode != STANCE_LAYER_ADDITIVE)
        return fail_at(c, &p, 1, STANCE_ERR_FORMAT, "\"additive_ref\" is for additive layers (\"mode\": \"additive\")");
    if (!strcmp(ref, "first_frame")) {
        l->additive_ref = STANCE_ADDITIVE_FIRST_FRAME;
        return STANCE_OK;
    }
    if (!strncmp(ref, "first_frame:", 12)) {
        l->additive_ref = STANCE_ADDITIVE_FIRST_FRAME;
        return find_clip(c, &p, ref + 12, &l->ref_clip);
    }
    if (!strncmp(ref, "clip:", 5)) {
        l->additive_ref = STANCE_ADDITIVE_REF_CLIP_SYNC;
        return find_clip(c, &p, ref + 5, &l->ref_clip);
    }
    return fail_at(c, &p, 0, STANCE_ERR_FORMAT,
                   "\"additive_ref\": expected \"first_frame\", \"first_frame:CLIP\" or \"clip:CLIP\", got \"%.63s\"",
                   ref);
}

static stance_status read_layers(ctx *c, const jobj *root, stance_graph_desc *gd) {
    static const char *const keys[] = {"name", "machine", "mode", "space", "weight", "mask", "additive_ref",
                                       "priority", NULL};
    json_t *arr;
    int n;
    stance_status s = get_array(c, root, "layers", 0, 1, STANCE_MAX_LAYERS, &arr, &n);
    if (s || !n) return s;
    jpath pa = {root->at, "layers", -1};
    stance_layer_desc *ld = gf_alloc(c->gf, (size_t)n, sizeof *ld);
    if (!ld) return no_memory(c);
    for (int i = 0; i < n; i++) {
        jpath pi = {&pa, NULL, i};
        jobj o = {json_array_get(arr, (size_t)i), &pi, "a layer"};
        stance_layer_desc *l = &ld[i];
        int mi, mode = STANCE_LAYER_OVERRIDE, space = STANCE_SPACE_LOCAL;
        l->weight = 1.0f;
        if ((s = want_object(c, o.v, &pi, "a layer")) || (s = check_keys(c, &o, keys)) ||
            (s = get_name(c, &o, "name", 1, 0, &l->name)))
            return s;
        jpath pn = {&pi, "name", -1}, pm = {&pi, "machine", -1};
        for (int k = 0; k < i; k++)
            if (!strcmp(ld[k].name, l->name)) {
                jpath pk = {&pa, NULL, k}, pkn = {&pk, "name", -1};
                return duplicate(c, &pn, &pkn, "layer", l->name);
            }
        if ((s = get_string(c, &o, "machine", 1, &l->machine)) || (s = find_machine(c, &pm, l->machine, &mi)) ||
            (s = get_enum(c, &o, "mode", "layer mode", k_layer_modes, &mode)) ||
            (s = get_enum(c, &o, "space", "space", k_spaces, &space)) ||
            (s = get_number(c, &o, "weight", 0, 0.0, 1.0, 0, &l->weight)) ||
            (s = get_int(c, &o, "priority", -1000, 1000, &l->priority)))
            return s;
        l->mode = (stance_layer_mode)mode;
        l->space = (stance_layer_space)space;
        if (i == 0 && l->mode != STANCE_LAYER_OVERRIDE) {
            jpath p = {&pi, "mode", -1};
            return fail_at(c, &p, 0, STANCE_ERR_FORMAT, "the first layer is the base: it must be an override layer");
        }
        if (i == 0 && l->weight != 1.0f) {
            jpath p = {&pi, "weight", -1};
            return fail_at(c, &p, 0, STANCE_ERR_FORMAT, "the first layer is the base: its weight is always 1");
        }
        if ((s = read_additive_ref(c, &o, l))) return s;
        json_t *mask = json_object_get(o.v, "mask");
        if (mask) {
            jpath pk = {&pi, "mask", -1};
            jobj mo = {mask, &pk, "a mask"};
            if ((s = read_mask(c, &mo, &l->mask))) return s;
        }
    }
    gd->layers = ld;
    gd->layer_count = n;
    return STANCE_OK;
}

/* A machine runs in one place: one nesting state or one layer. */
static stance_status check_machine_use(ctx *c, const stance_graph_desc *gd) {
    char used[STANCE_MAX_MACHINES][128];
    memset(used, 0, sizeof used);
    jpath pm = {NULL, "machines", -1}, pl = {NULL, "layers", -1};
    for (int m = 0; m < c->machine_count; m++)
        for (int i = 0; i < c->machines[m].state_count; i++) {
            const stance_state_desc *st = &c->machines[m].states[i];
            int t = st->type == STANCE_MOTION_MACHINE ? machine_index(c, st->machine) : -1;
            if (t < 0) continue;
            jpath pi = {&pm, NULL, m}, ps = {&pi, "states", -1}, pj = {&ps, NULL, i}, pk = {&pj, "machine", -1};
            if (used[t][0])
                return fail_at(c, &pk, 0, STANCE_ERR_FORMAT, "machine '%s' already runs in %s; a machine runs in one place",
                               st->machine, used[t]);
            snprintf(used[t], sizeof used[t], "state '%.50s/%.50s'", c->machines[m].name, st->name);
        }
    for (int l = 0; l < gd->layer_count; l++) {
        int t = machine_index(c, gd->layers[l].machine);
        jpath pi = {&pl, NULL, l}, pk = {&pi, "machine", -1};
        if (used[t][0])
            return fail_at(c, &pk, 0, STANCE_ERR_FORMAT, "machine '%s' already runs in %s; a machine runs in one place",
                           gd->layers[l].machine, used[t]);
        snprintf(used[t], sizeof used[t], "layer '%.63s'", gd->layers[l].name);
    }
    return STANCE_OK;
}

/* ---- the document ------------------------------------------------------------------- */

static stance_status read_graph(ctx *c, json_t *doc, const char *base_dir, const stance_graphfile_options *opt) {
    /* "lesson_layers" is read by io/lesson_setup.c (`stance layers --graph`) */
    static const char *const keys[] = {"version", "asset", "default_blend_time", "deadblend_halflife", "params",
                                       "machines", "layers", "lesson_layers", NULL};
    stance_graphfile *gf = c->gf;
    stance_graph_desc *gd = &gf->desc;
    jobj root = {doc, NULL, "the graph"};
    stance_status s;
    if (!json_is_object(doc))
        return fail_at(c, NULL, 0, STANCE_ERR_FORMAT, "expected a graph (an object) at the top, got %s", type_name(doc));
    int version = 1;
    if ((s = check_keys(c, &root, keys)) || (s = get_int(c, &root, "version", 1, 1, &version)) ||
        (s = get_number(c, &root, "default_blend_time", 0, 0.0, 60.0, 1, &gd->default_blend_time)) ||
        (s = get_number(c, &root, "deadblend_halflife", 0, 0.0, 60.0, 1, &gd->deadblend_halflife)) ||
        (s = read_asset(c, &root, base_dir, opt)))
        return s;
    c->asset = gf->asset;
    if ((s = read_params(c, &root)) || (s = read_machines(c, &root)) || (s = read_layers(c, &root, gd)) ||
        (s = check_machine_use(c, gd)))
        return s;
    gd->skeleton = gf->asset->skeleton;
    gd->params = c->params;
    gd->param_count = c->param_count;
    gd->machines = c->machines;
    gd->machine_count = c->machine_count;
    stance_error e = {0};
    s = stance_graph_create(gd, NULL, &gf->graph, &e);
    if (s) return st_fail(c->err, s, "%s: %s", c->name, e.message);
    return STANCE_OK;
}

static stance_status load_text(const char *text, size_t size, const char *name, const char *base_dir,
                               const stance_graphfile_options *opt, stance_graphfile **out, stance_error *err) {
    /* a UTF-8 byte order mark is skipped */
    if (size >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) text += 3, size -= 3;
    size_t i = 0;
    while (i < size && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) i++;
    if (i == size) return st_fail(err, STANCE_ERR_FORMAT, "%s:1:1: the file is empty; expected a graph (a JSON object)", name);
    json_error_t je;
    json_t *doc = json_loadb(text, size, JSON_REJECT_DUPLICATES, &je);
    if (!doc)
        return st_fail(err, STANCE_ERR_FORMAT, "%s:%d:%d: invalid JSON: %s", name, je.line > 0 ? je.line : 1,
                       je.column > 0 ? je.column : 1, je.text);
    stance_graphfile *gf = calloc(1, sizeof *gf);
    if (!gf) {
        json_decref(doc);
        return st_fail(err, STANCE_ERR_MEMORY, "%s: out of memory", name);
    }
    gf->json = doc;
    gf->name = dup_string(name);
    ctx c = {0};
    c.text = text;
    c.size = size;
    c.name = name;
    c.err = err;
    c.gf = gf;
    stance_status s = gf->name ? read_graph(&c, doc, base_dir, opt) : no_memory(&c);
    if (s) {
        stance_graphfile_destroy(gf);
        return s;
    }
    *out = gf;
    return st_ok(err);
}

stance_status stance_graphfile_load_string(const char *text, const char *display_name, const char *base_dir,
                                           const stance_graphfile_options *opt, stance_graphfile **out,
                                           stance_error *err) {
    const char *name = display_name ? display_name : "<string>";
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "%s: out is NULL", name);
    *out = NULL;
    if (!text) return st_fail(err, STANCE_ERR_ARGUMENT, "%s: text is NULL", name);
    return load_text(text, strlen(text), name, base_dir, opt, out, err);
}

stance_status stance_graphfile_load(const char *path, const stance_graphfile_options *opt, stance_graphfile **out,
                                    stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "graph file: out is NULL");
    *out = NULL;
    if (!path || !path[0]) return st_fail(err, STANCE_ERR_ARGUMENT, "graph file: path is NULL or empty");
    void *bytes = NULL;
    size_t size = 0;
    stance_error e = {0};
    stance_status s = stance_io_read_file(path, &bytes, &size, &e);
    if (s) return st_fail(err, s, "%s: %s", path, e.message);
    char *dir = NULL;
    const char *slash = strrchr(path, '/');
    if (slash) {
        size_t n = slash == path ? 1 : (size_t)(slash - path);
        dir = malloc(n + 1);
        if (!dir) {
            free(bytes);
            return st_fail(err, STANCE_ERR_MEMORY, "%s: out of memory", path);
        }
        memcpy(dir, path, n);
        dir[n] = 0;
    }
    s = load_text(bytes, size, path, dir, opt, out, err);
    free(dir);
    free(bytes);
    return s;
}

#endif /* STANCE_HAVE_JANSSON */
