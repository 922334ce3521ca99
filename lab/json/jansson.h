/* lab/json/jansson.h - the part of jansson's API that the graph file reader
 * (src/io/graphfile*.c) uses, for the lab's WebAssembly build (make lab puts
 * this directory on the include path; the CLI and the libraries use Debian's
 * jansson). Implemented in lab/lab_json.c: a strict RFC 8259 reader that
 * keeps object keys in document order, rejects duplicate keys (the reader
 * always behaves as with JSON_REJECT_DUPLICATES), non-finite numbers and
 * nesting deeper than 2048, and reports errors with a 1-based line and
 * column as jansson does. Values are read-only once loaded. */
#ifndef STANCE_LAB_JANSSON_H
#define STANCE_LAB_JANSSON_H

#include <stddef.h>

/* Its own symbol names, so a native build of the lab C files (the test_lab_native test)
 * that also links Debian's jansson (through libstance_io) keeps both apart. */
#define json_loadb lab_json_loadb
#define json_load_file lab_json_load_file
#define json_decref lab_json_decref
#define json_object_get lab_json_object_get
#define json_object_size lab_json_object_size
#define json_array_size lab_json_array_size
#define json_array_get lab_json_array_get
#define json_string_value lab_json_string_value
#define json_string_length lab_json_string_length
#define json_integer_value lab_json_integer_value
#define json_number_value lab_json_number_value

typedef enum { JSON_OBJECT, JSON_ARRAY, JSON_STRING, JSON_INTEGER, JSON_REAL, JSON_TRUE, JSON_FALSE, JSON_NULL } json_type;

typedef struct json_t json_t;
struct json_t {
    json_type type;
    size_t count;      /* object members / array items / string bytes */
    char **keys;       /* object: its keys in document order */
    json_t **items;    /* object: its values; array: its items */
    char *string;      /* string: NUL-terminated (may hold NULs: count is its length) */
    long long integer;
    double real;
};

typedef long long json_int_t;

#define JSON_ERROR_TEXT_LENGTH 160
typedef struct json_error_t {
    int line, column, position;
    char source[80];
    char text[JSON_ERROR_TEXT_LENGTH];
} json_error_t;

#define JSON_REJECT_DUPLICATES 0x1

json_t *json_loadb(const char *buffer, size_t buflen, size_t flags, json_error_t *error);
json_t *json_load_file(const char *path, size_t flags, json_error_t *error);
void json_decref(json_t *json);

#define json_typeof(v) ((v)->type)
#define json_is_object(v) ((v) && (v)->type == JSON_OBJECT)
#define json_is_array(v) ((v) && (v)->type == JSON_ARRAY)
#define json_is_string(v) ((v) && (v)->type == JSON_STRING)
#define json_is_integer(v) ((v) && (v)->type == JSON_INTEGER)
#define json_is_real(v) ((v) && (v)->type == JSON_REAL)
#define json_is_number(v) (json_is_integer(v) || json_is_real(v))
#define json_is_true(v) ((v) && (v)->type == JSON_TRUE)
#define json_is_false(v) ((v) && (v)->type == JSON_FALSE)
#define json_is_boolean(v) (json_is_true(v) || json_is_false(v))
#define json_is_null(v) ((v) && (v)->type == JSON_NULL)

json_t *json_object_get(const json_t *object, const char *key);
size_t json_object_size(const json_t *object);
size_t json_array_size(const json_t *array);
json_t *json_array_get(const json_t *array, size_t index);
const char *json_string_value(const json_t *string);
size_t json_string_length(const json_t *string);
json_int_t json_integer_value(const json_t *integer);
double json_number_value(const json_t *json);

/* member i of an object: its key and value (NULL past the end) */
const char *lab_json_key_at(const json_t *object, size_t i);
json_t *lab_json_value_at(const json_t *object, size_t i);
/* the counter is named after the line, so loops nested on other lines do not shadow it (-Wshadow) */
#define LAB_JSON_CAT2(a, b) a##b
#define LAB_JSON_CAT(a, b) LAB_JSON_CAT2(a, b)
#define LAB_JSON_I LAB_JSON_CAT(lab_json_i_, __LINE__)
#define json_object_foreach(object, key, value)                                                              \
    for (size_t LAB_JSON_I = 0; ((key) = lab_json_key_at((object), LAB_JSON_I)) != NULL &&                   \
                                ((value) = lab_json_value_at((object), LAB_JSON_I)) != NULL;                 \
         LAB_JSON_I++)

#endif
