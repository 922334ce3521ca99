/* tests/test_graphfile_labjson.c - the lab's JSON reader (lab/lab_json.c,
 * lab/json/jansson.h: the part of jansson's API the graph file reader uses,
 * for the WebAssembly build of the graph editor) against Debian's jansson as
 * the CLI uses it: on 34 malformed documents the two give the same line,
 * column and message (the reference is stance_graphfile_load_string's "invalid
 * JSON" line, read by jansson); every shipped graph (five of graphs/) parses;
 * values read back as the text says (integers, reals, escapes to UTF-8, key
 * order, nesting). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/jansson.h"
#include "stance/graphfile.h"

static int failures = 0;
#define CHECK(c, ...) do { if (!(c)) { failures++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

/* The lab reader's message, formatted as graphfile.c formats jansson's. */
static void lab_message(const char *text, char *out, size_t size) {
    json_error_t e;
    json_t *v = json_loadb(text, strlen(text), JSON_REJECT_DUPLICATES, &e);
    if (v) snprintf(out, size, "(parsed)");
    else snprintf(out, size, "doc.json:%d:%d: invalid JSON: %s", e.line > 0 ? e.line : 1, e.column > 0 ? e.column : 1, e.text);
    json_decref(v);
}

static void malformed(void) {
    static const char *const docs[] = {
        "{\"version\": 1,}", "{\"version\": 1 \"asset\": 2}", "{\"a\": 1, \"a\": 2}", "{\"a\": 1e999}", "{\"a\": tru}",
        "{\"a\": \"x", "[1,2]]", "{\"a\":\n  [1, 2,\n   3x]}", "{\"a\": \"\\u0000\"}", "{\"a\": 99999999999999999999}",
        "{\"a\": -99999999999999999999}", "{\"a\": -}", "{\"a\": 01}", "{\"a\": 1} x", "{\"a\" 1}", "{1: 2}",
        "{\"a\": [1,}", "{\"a\": nul}", "{\"a\": 1.}", "{\"a\": .5}", "{\"a\": +1}", "{\"a\": \"\\q\"}",
        "{\"a\": \"ab\tc\"}", "{\"a\": \"\\ud800\"}", "{\"a\": \"\\udc00\"}", "{\"a\": \"x\\ud800y\"}", "{\"a\": 12e}",
        "{\"a\": [1 2]}", "{\"a\": \"\xff\"}", "{\"a\": \"\xc3\"}", "  {\n\t\"b\": {\"c\": [true, false, nulll]}}",
        "{\"a\": {\"b\": 1,\n \"b\": 2}}", "{\"a\": \"\\u12\"}", "true",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        char want[300], got[300];
        stance_graphfile *gf = NULL;
        stance_error err = {STANCE_OK, ""};
        if (!stance_graphfile_load_string(docs[i], "doc.json", NULL, NULL, &gf, &err)) {
            stance_graphfile_destroy(gf);
            CHECK(0, "doc %zu loads as a graph", i);
            continue;
        }
        snprintf(want, sizeof want, "%s", err.message);
        lab_message(docs[i], got, sizeof got);
        CHECK(!strcmp(want, got), "doc %zu: jansson '%s', lab '%s'", i, want, got);
    }
}

static char *read_all(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = size >= 0 ? malloc((size_t)size + 1) : NULL;
    *n = b ? fread(b, 1, (size_t)size, f) : 0;
    fclose(f);
    if (b) b[*n] = 0;
    return b;
}

static void shipped(void) {
    const char *src = getenv("STANCE_SOURCE");
    static const char *const names[] = {"builtin.json", "robot.json", "robot_events.json", "builtin_ik.json", "robot_footlock.json"};
    for (size_t i = 0; src && i < sizeof names / sizeof names[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/graphs/%s", src, names[i]);
        size_t n = 0;
        char *text = read_all(path, &n);
        CHECK(text, "%s: cannot read", path);
        if (!text) continue;
        json_error_t e;
        json_t *v = json_loadb(text, n, JSON_REJECT_DUPLICATES, &e);
        CHECK(json_is_object(v) && json_is_array(json_object_get(v, "machines")), "%s: %d:%d: %s", names[i], e.line, e.column, e.text);
        json_decref(v);
        free(text);
    }
    CHECK(src, "STANCE_SOURCE is not set");
}

static void values(void) {
    const char *t = "{\"z\": 1, \"a\": -0.5e-3, \"m\": [true, false, null, 9007199254740993, -12],"
                    " \"s\": \"\\u00e9\\ud83d\\ude00\\n\\\"/\\\\\", \"o\": {\"k\": [[[]]]}}";
    json_error_t e;
    json_t *v = json_loadb(t, strlen(t), JSON_REJECT_DUPLICATES, &e);
    CHECK(v, "valid document refused: %d:%d: %s", e.line, e.column, e.text);
    if (!v) return;
    const char *key;
    json_t *val;
    const char *order[] = {"z", "a", "m", "s", "o"};
    int k = 0;
    json_object_foreach(v, key, val) {
        CHECK(k < 5 && !strcmp(key, order[k]) && val, "key %d is '%s'", k, key);
        k++;
    }
    CHECK(k == 5 && json_object_size(v) == 5, "%d keys", k);
    CHECK(json_is_integer(json_object_get(v, "z")) && json_integer_value(json_object_get(v, "z")) == 1, "z");
    CHECK(json_is_real(json_object_get(v, "a")) && json_number_value(json_object_get(v, "a")) == -0.5e-3, "a");
    json_t *m = json_object_get(v, "m");
    CHECK(json_array_size(m) == 5 && json_is_true(json_array_get(m, 0)) && json_is_false(json_array_get(m, 1)) &&
              json_is_null(json_array_get(m, 2)) && json_integer_value(json_array_get(m, 3)) == 9007199254740993LL &&
              json_integer_value(json_array_get(m, 4)) == -12 && !json_array_get(m, 5),
          "m");
    const char *s = json_string_value(json_object_get(v, "s"));
    CHECK(s && !strcmp(s, "\xc3\xa9\xf0\x9f\x98\x80\n\"/\\") && json_string_length(json_object_get(v, "s")) == strlen(s),
          "s is '%s'", s ? s : "(null)");
    json_t *deep = json_object_get(json_object_get(v, "o"), "k");
    CHECK(json_array_size(json_array_get(json_array_get(deep, 0), 0)) == 0 && json_is_array(json_array_get(json_array_get(deep, 0), 0)), "nesting");
    json_decref(v);
    /* 2048 levels read, 2049 refused */
    for (int depth = 2048; depth <= 2049; depth++) {
        char *b = malloc((size_t)depth * 2 + 1);
        for (int i = 0; i < depth; i++) b[i] = '[', b[depth * 2 - 1 - i] = ']';
        json_t *d = json_loadb(b, (size_t)depth * 2, 0, &e);
        CHECK((d != NULL) == (depth == 2048), "depth %d: %s", depth, d ? "read" : e.text);
        json_decref(d);
        free(b);
    }
}

int main(void) {
    malformed();
    shipped();
    values();
    if (failures) {
        printf("%d failures\n", failures);
        return 1;
    }
    printf("ok: the lab's JSON reader gives jansson's messages on 34 malformed documents and reads the shipped graphs\n");
    return 0;
}
