/* lab/lab_json.c - the JSON reader behind lab/json/jansson.h: the part of
 * jansson's API the graph file reader (src/io/graphfile*.c) uses, so the lab's
 * WebAssembly build reads graph files with the same code as the CLI (the
 * native builds use Debian's jansson). Strict RFC 8259: one value and white
 * space, no comments, no NaN/Infinity, strings valid UTF-8 with no raw
 * control characters and no \u0000, duplicate object keys rejected, nesting
 * at most 2048 deep; a number without '.', 'e' or 'E' is an integer (and must
 * fit 64 bits), others are reals (and must be finite). Errors carry jansson's
 * 1-based line and column (columns count bytes, as jansson's do). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/jansson.h"

#define MAX_DEPTH 2048

typedef struct rd {
    const char *s;
    size_t n, i;
    int line, col;      /* of s[i] */
    json_error_t *err;
    int failed;
} rd;

static void fail(rd *r, const char *fmt, ...) {
    if (r->failed) return;
    r->failed = 1;
    if (!r->err) return;
    r->err->line = r->line;
    r->err->column = r->col;
    r->err->position = (int)r->i;
    snprintf(r->err->source, sizeof r->err->source, "<buffer>");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err->text, sizeof r->err->text, fmt, ap);
    va_end(ap);
}

/* A failure at the token of `len` bytes at the reader, as jansson reports
 * one: after lexing the whole token, so the column is its last byte's, and
 * "near '<the token>'". */
static void fail_tok(rd *r, size_t len, const char *what) {
    if (r->i >= r->n || !len) { fail(r, "%s near end of file", what); return; }
    if (r->i + len > r->n) len = r->n - r->i;
    r->col += (int)len - 1;
    fail(r, "%s near '%.*s'", what, (int)(len < 40 ? len : 40), r->s + r->i);
}

/* The same at the token jansson's lexer would read here: a string (to its
 * closing quote), a number's characters, a word's letters, or one byte. */
static void fail_near(rd *r, const char *what) {
    size_t k = r->i;
    if (k < r->n && r->s[k] == '"') {
        k++;
        while (k < r->n && r->s[k] != '"' && r->s[k] != '\n') k += r->s[k] == '\\' ? 2 : 1;
        if (k < r->n && r->s[k] == '"') k++;
        if (k > r->n) k = r->n;
    } else if (k < r->n && (r->s[k] == '-' || (r->s[k] >= '0' && r->s[k] <= '9'))) {
        k++;
        while (k < r->n && strchr("0123456789+-.eE", r->s[k])) k++;
    } else if (k < r->n && ((r->s[k] | 32) >= 'a' && (r->s[k] | 32) <= 'z')) {
        while (k < r->n && (r->s[k] | 32) >= 'a' && (r->s[k] | 32) <= 'z') k++;
    } else if (k < r->n) {
        k++;
    }
    fail_tok(r, k - r->i, what);
}

static void advance(rd *r) {
    if (r->i >= r->n) return;
    if (r->s[r->i] == '\n') r->line++, r->col = 1;
    else r->col++;
    r->i++;
}

static void skip_space(rd *r) {
    while (r->i < r->n && (r->s[r->i] == ' ' || r->s[r->i] == '\t' || r->s[r->i] == '\n' || r->s[r->i] == '\r'))
        advance(r);
}

static json_t *new_value(rd *r, json_type t) {
    json_t *v = calloc(1, sizeof *v);
    if (!v) fail(r, "out of memory");
    else v->type = t;
    return v;
}

void json_decref(json_t *v) {
    if (!v) return;
    for (size_t k = 0; k < v->count && v->items; k++) {
        json_decref(v->items[k]);
        if (v->keys) free(v->keys[k]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
    free(v);
}

static int utf8_length(unsigned char c) {
    return c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
}

static int hex4(const char *p, unsigned *out) {
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char c = p[k];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return -1;
    }
    *out = v;
    return 0;
}

static size_t put_utf8(char *d, unsigned cp) {
    if (cp < 0x80) { d[0] = (char)cp; return 1; }
    if (cp < 0x800) { d[0] = (char)(0xC0 | (cp >> 6)); d[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        d[0] = (char)(0xE0 | (cp >> 12)); d[1] = (char)(0x80 | ((cp >> 6) & 0x3F)); d[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    d[0] = (char)(0xF0 | (cp >> 18)); d[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    d[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); d[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* A failure inside the string that starts at s0 (line0, col0): jansson's
 * token is the string read so far, up to byte `upto` (exclusive). */
static void fail_in_string(rd *r, size_t s0, int line0, int col0, size_t upto, const char *what) {
    r->i = s0, r->line = line0, r->col = col0;
    fail_tok(r, upto - s0, what);
}

/* A string at r->s[r->i] == '"': its bytes (NUL-terminated, malloc'd) and length. */
static char *read_string(rd *r, size_t *len) {
    size_t start = r->i + 1, end = start, s0 = r->i;
    int line0 = r->line, col0 = r->col;
    while (end < r->n && r->s[end] != '"') end += r->s[end] == '\\' ? 2 : 1;
    if (end >= r->n) { fail_near(r, "premature end of input"); return NULL; }
    char *out = malloc(end - start + 1); /* decoding never grows a string */
    if (!out) { fail(r, "out of memory"); return NULL; }
    size_t o = 0;
    advance(r); /* the quote */
    while (r->s[r->i] != '"') {
        unsigned char c = (unsigned char)r->s[r->i];
        if (c < 0x20) {
            char m[40];
            snprintf(m, sizeof m, "control character 0x%x", c);
            fail_in_string(r, s0, line0, col0, r->i, m);
            free(out);
            return NULL;
        }
        if (c == '\\') {
            if (r->i + 1 >= r->n) { fail_near(r, "premature end of input"); free(out); return NULL; }
            char e = r->s[r->i + 1];
            char plain = e == '"' ? '"' : e == '\\' ? '\\' : e == '/' ? '/' : e == 'b' ? '\b' : e == 'f' ? '\f'
                       : e == 'n' ? '\n' : e == 'r' ? '\r' : e == 't' ? '\t' : 0;
            if (plain) {
                out[o++] = plain;
                advance(r), advance(r);
                continue;
            }
            unsigned cp = 0, lo;
            if (e != 'u' || r->i + 6 > r->n || hex4(r->s + r->i + 2, &cp)) {
                size_t bad = r->i + 2; /* jansson's token ends with the first character that does not fit */
                if (e == 'u')
                    while (bad < r->n && bad < r->i + 6 && strchr("0123456789abcdefABCDEF", r->s[bad])) bad++;
                fail_in_string(r, s0, line0, col0, bad + (e == 'u' && bad < r->n), "invalid escape");
                free(out);
                return NULL;
            }
            size_t used = 6;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (r->i + 12 > r->n || r->s[r->i + 6] != '\\' || r->s[r->i + 7] != 'u' || hex4(r->s + r->i + 8, &lo) ||
                    lo < 0xDC00 || lo > 0xDFFF) {
                    char m[40];
                    snprintf(m, sizeof m, "invalid Unicode '\\u%04X'", cp);
                    fail_in_string(r, s0, line0, col0, end + 1, m);
                    free(out);
                    return NULL;
                }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                used = 12;
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                char m[40];
                snprintf(m, sizeof m, "invalid Unicode '\\u%04X'", cp);
                fail_in_string(r, s0, line0, col0, end + 1, m);
                free(out);
                return NULL;
            }
            if (cp == 0) {
                fail_in_string(r, s0, line0, col0, end + 1, "\\u0000 is not allowed without JSON_ALLOW_NUL");
                free(out);
                return NULL;
            }
            o += put_utf8(out + o, cp);
            for (size_t k = 0; k < used; k++) advance(r);
            continue;
        }
        int n = utf8_length(c);
        int ok = n > 0 && r->i + (size_t)n <= end;
        for (int k = 1; ok && k < n; k++) ok = ((unsigned char)r->s[r->i + (size_t)k] & 0xC0) == 0x80;
        if (ok && n > 1) { /* no overlong forms, no surrogates, nothing past U+10FFFF */
            unsigned cp = c & (0x7F >> n);
            for (int k = 1; k < n; k++) cp = (cp << 6) | ((unsigned char)r->s[r->i + (size_t)k] & 0x3F);
            ok = !(n == 2 && cp < 0x80) && !(n == 3 && cp < 0x800) && !(n == 4 && cp < 0x10000) && cp <= 0x10FFFF &&
                 !(cp >= 0xD800 && cp <= 0xDFFF);
        }
        if (!ok) {
            char m[40];
            snprintf(m, sizeof m, "unable to decode byte 0x%x", c);
            fail_in_string(r, s0, line0, col0, r->i, m);
            free(out);
            return NULL;
        }
        for (int k = 0; k < n; k++) out[o++] = r->s[r->i], advance(r);
    }
    advance(r); /* the closing quote */
    out[o] = 0;
    *len = o;
    return out;
}

static json_t *read_value(rd *r, int depth);

static int push(rd *r, json_t *v, char *key, json_t *item, size_t *cap) {
    if (v->count == *cap) {
        size_t nc = *cap ? *cap * 2 : 4;
        json_t **ni = realloc(v->items, nc * sizeof *ni);
        if (!ni) { fail(r, "out of memory"); return -1; }
        v->items = ni;
        if (v->type == JSON_OBJECT) {
            char **nk = realloc(v->keys, nc * sizeof *nk);
            if (!nk) { fail(r, "out of memory"); return -1; }
            v->keys = nk;
        }
        *cap = nc;
    }
    if (v->type == JSON_OBJECT) v->keys[v->count] = key;
    v->items[v->count++] = item;
    return 0;
}

static json_t *read_container(rd *r, int depth, int object) {
    if (depth > MAX_DEPTH) { fail_near(r, "maximum parsing depth reached"); return NULL; }
    json_t *v = new_value(r, object ? JSON_OBJECT : JSON_ARRAY);
    if (!v) return NULL;
    char close = object ? '}' : ']';
    size_t cap = 0;
    advance(r);
    skip_space(r);
    if (r->i < r->n && r->s[r->i] == close) { advance(r); return v; }
    for (;;) {
        char *key = NULL;
        if (object) {
            skip_space(r);
            if (r->i >= r->n || r->s[r->i] != '"') { fail_near(r, "string or '}' expected"); break; }
            size_t klen = 0;
            int kline = r->line, kcol = r->col;
            size_t kat = r->i;
            if (!(key = read_string(r, &klen))) break;
            if (strlen(key) != klen) { fail_near(r, "NUL byte in object key not supported"); free(key); break; }
            int dup = 0;
            for (size_t k = 0; k < v->count && !dup; k++) dup = !strcmp(v->keys[k], key);
            if (dup) {
                r->line = kline, r->col = kcol, r->i = kat;
                fail_near(r, "duplicate object key");
                free(key);
                break;
            }
            skip_space(r);
            if (r->i >= r->n || r->s[r->i] != ':') { fail_near(r, "':' expected"); free(key); break; }
            advance(r);
        }
        json_t *item = read_value(r, depth + 1);
        if (!item) { free(key); break; }
        if (push(r, v, key, item, &cap)) { free(key); json_decref(item); break; }
        skip_space(r);
        if (r->i < r->n && r->s[r->i] == ',') { advance(r); continue; }
        if (r->i < r->n && r->s[r->i] == close) { advance(r); return v; }
        fail_near(r, object ? "'}' expected" : "']' expected");
        break;
    }
    json_decref(v);
    return NULL;
}

static json_t *read_number(rd *r) {
    size_t k = r->i;
    int real = 0;
    if (k < r->n && r->s[k] == '-') k++;
    if (k < r->n && r->s[k] == '0') {
        k++;
        if (k < r->n && r->s[k] >= '0' && r->s[k] <= '9') { fail_tok(r, k - r->i, "invalid token"); return NULL; } /* a leading zero */
    }
    else if (k < r->n && r->s[k] >= '1' && r->s[k] <= '9') while (k < r->n && r->s[k] >= '0' && r->s[k] <= '9') k++;
    else { fail_near(r, "invalid token"); return NULL; }
    if (k < r->n && r->s[k] == '.') {
        real = 1, k++;
        if (!(k < r->n && r->s[k] >= '0' && r->s[k] <= '9')) { fail_near(r, "invalid token"); return NULL; }
        while (k < r->n && r->s[k] >= '0' && r->s[k] <= '9') k++;
    }
    if (k < r->n && (r->s[k] == 'e' || r->s[k] == 'E')) {
        real = 1, k++;
        if (k < r->n && (r->s[k] == '+' || r->s[k] == '-')) k++;
        if (!(k < r->n && r->s[k] >= '0' && r->s[k] <= '9')) { fail_near(r, "invalid token"); return NULL; }
        while (k < r->n && r->s[k] >= '0' && r->s[k] <= '9') k++;
    }
    char buf[512];
    size_t len = k - r->i;
    if (len >= sizeof buf) { fail_near(r, "number too long"); return NULL; }
    memcpy(buf, r->s + r->i, len);
    buf[len] = 0;
    json_t *v = new_value(r, real ? JSON_REAL : JSON_INTEGER);
    if (!v) return NULL;
    errno = 0;
    if (real) {
        v->real = strtod(buf, NULL);
        if (!isfinite(v->real)) { fail_tok(r, len, "real number overflow"); json_decref(v); return NULL; }
    } else {
        v->integer = strtoll(buf, NULL, 10);
        if (errno == ERANGE) {
            if (buf[0] == '-') { /* jansson names no token for this one */
                r->col += (int)len - 1;
                fail(r, "too big negative integer");
            } else {
                fail_tok(r, len, "too big integer");
            }
            json_decref(v);
            return NULL;
        }
    }
    while (r->i < k) advance(r);
    return v;
}

static json_t *read_value(rd *r, int depth) {
    skip_space(r);
    if (r->i >= r->n) { fail_near(r, "'[' or '{' or a value expected"); return NULL; }
    char c = r->s[r->i];
    if (c == '{' || c == '[') return read_container(r, depth, c == '{');
    if (c == '"') {
        json_t *v = new_value(r, JSON_STRING);
        if (v && !(v->string = read_string(r, &v->count))) { json_decref(v); return NULL; }
        return v;
    }
    static const struct { const char *word; json_type type; } words[] = {
        {"true", JSON_TRUE}, {"false", JSON_FALSE}, {"null", JSON_NULL}};
    size_t w = 0; /* the run of letters: one word, as jansson lexes it */
    while (r->i + w < r->n && (r->s[r->i + w] | 32) >= 'a' && (r->s[r->i + w] | 32) <= 'z') w++;
    for (int k = 0; k < 3; k++) {
        size_t n = strlen(words[k].word);
        if (w == n && !memcmp(r->s + r->i, words[k].word, n)) {
            json_t *v = new_value(r, words[k].type);
            for (size_t a = 0; v && a < n; a++) advance(r);
            return v;
        }
    }
    if (c == '-' || (c >= '0' && c <= '9')) return read_number(r);
    fail_near(r, c == '}' || c == ']' || c == ',' || c == ':' ? "unexpected token" : "invalid token");
    return NULL;
}

json_t *json_loadb(const char *buffer, size_t buflen, size_t flags, json_error_t *error) {
    (void)flags; /* duplicates are always rejected */
    rd r = {buffer, buflen, 0, 1, 1, error, 0};
    if (error) memset(error, 0, sizeof *error);
    if (!buffer) { fail(&r, "wrong arguments"); return NULL; }
    skip_space(&r);
    if (r.i >= r.n || (r.s[r.i] != '{' && r.s[r.i] != '[')) {
        /* jansson reads only arrays and objects at the top (without JSON_DECODE_ANY) */
        fail_near(&r, "'[' or '{' expected");
        return NULL;
    }
    json_t *v = read_value(&r, 1);
    if (!v) return NULL;
    skip_space(&r);
    if (r.i < r.n) {
        fail_near(&r, "end of file expected");
        json_decref(v);
        return NULL;
    }
    return v;
}

json_t *json_load_file(const char *path, size_t flags, json_error_t *error) {
    FILE *f = path ? fopen(path, "rb") : NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    while (f) {
        if (n == cap) {
            char *nb = cap < (64u << 20) ? realloc(buf, cap = cap ? cap * 2 : 4096) : NULL;
            if (!nb) break;
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (!got) {
            json_t *v = feof(f) ? json_loadb(buf ? buf : "", n, flags, error) : NULL;
            fclose(f);
            free(buf);
            return v;
        }
    }
    if (f) fclose(f);
    free(buf);
    if (error) {
        memset(error, 0, sizeof *error);
        error->line = error->column = -1;
        snprintf(error->text, sizeof error->text, "unable to open %s", path ? path : "(null)");
    }
    return NULL;
}

json_t *json_object_get(const json_t *o, const char *key) {
    if (!json_is_object(o) || !key) return NULL;
    for (size_t k = 0; k < o->count; k++)
        if (!strcmp(o->keys[k], key)) return o->items[k];
    return NULL;
}
size_t json_object_size(const json_t *o) { return json_is_object(o) ? o->count : 0; }
size_t json_array_size(const json_t *a) { return json_is_array(a) ? a->count : 0; }
json_t *json_array_get(const json_t *a, size_t i) { return json_is_array(a) && i < a->count ? a->items[i] : NULL; }
const char *json_string_value(const json_t *s) { return json_is_string(s) ? s->string : NULL; }
size_t json_string_length(const json_t *s) { return json_is_string(s) ? s->count : 0; }
json_int_t json_integer_value(const json_t *v) { return json_is_integer(v) ? v->integer : 0; }
double json_number_value(const json_t *v) {
    return json_is_integer(v) ? (double)v->integer : json_is_real(v) ? v->real : 0.0;
}
const char *lab_json_key_at(const json_t *o, size_t i) { return json_is_object(o) && i < o->count ? o->keys[i] : NULL; }
json_t *lab_json_value_at(const json_t *o, size_t i) { return json_is_object(o) && i < o->count ? o->items[i] : NULL; }
