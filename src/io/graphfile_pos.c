/* src/io/graphfile_pos.c - positions in a graph file: a path of keys and
 * indices (jpath) mapped to FILE:LINE:COLUMN. jansson keeps no positions
 * for values, so a small scanner walks the raw text once per error; it
 * decodes string escapes to match keys exactly. */
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

#define MAX_PATH 32

/* The asset's clip notes ({"clips": {CLIP: {...}}}, stance_asset.clip_notes;
 * graphfile_notes.c) are read with the sidecar's readers; their values'
 * paths start here, so a message points into the notes' own text
 * ("ASSET (clip notes):LINE:COL", gf_fail_at). */
const jpath gf_notes_top = {NULL, "clips", -1};

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
size_t gf_locate(const char *s, size_t n, const jpath *at, int at_key) {
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
void gf_line_col(const char *s, size_t n, size_t off, int *line, int *col) {
    int l = 1, c = 1;
    for (size_t i = 0; i < off && i < n; i++) {
        unsigned char b = (unsigned char)s[i];
        if (b == '\n') { if (l < INT_MAX) l++; c = 1; }
        else if ((b & 0xC0) != 0x80 && c < INT_MAX) c++;
    }
    *line = l;
    *col = c;
}

#endif /* STANCE_HAVE_JANSSON */
