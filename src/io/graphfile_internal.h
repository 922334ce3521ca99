/* src/io/graphfile_internal.h - what the graph file reader's files share
 * (src/io/graphfile*.c): the graphfile object, paths into the document and
 * their positions, the reading context, value readers that fail with
 * FILE:LINE:COLUMN, and the readers of each section. Not public API. */
#ifndef STANCE_IO_GRAPHFILE_INTERNAL_H
#define STANCE_IO_GRAPHFILE_INTERNAL_H

#include <stddef.h>

#include "stance/graphfile.h"
#include "stance/build.h"
#include "core/base/platform.h" /* ST_PRINTF */

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
    int compiled;              /* read from a .stance file: no description is kept */
    stance_clip **retargeted;  /* clips played from other skeletons ("clips": {"N": {"retarget": ...}}) */
    int retargeted_count;
    void *notes_json;          /* the asset's clip notes, parsed (json_t *; stance_asset.clip_notes), or NULL */
};

/* One step from the document's root: a key of an object, or (key NULL) an
 * index of an array. Chained from the leaf up, on the stack. */
typedef struct jpath {
    const struct jpath *up;
    const char *key;
    int index;
} jpath;

/* A name of the format's enums and its value; tables end with {NULL, 0}. */
typedef struct named {
    const char *name;
    int value;
} named;

#ifdef STANCE_HAVE_JANSSON
#include <jansson.h>

/* A clip's notes: its entry in the graph file's "clips" sidecar and in the
 * asset's clip notes (stance_asset.clip_notes), either may be NULL; a key
 * the sidecar gives is the sidecar's, another the asset's
 * (graphfile_clips.c, gf_clip_key). */
typedef struct gf_clip_entry {
    const char *name;
    json_t *g, *a;
    jpath pg, pa;    /* their paths: "clips" -> name, in the graph file or under gf_notes_top */
} gf_clip_entry;

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
    struct gf_curves *cv;   /* curve names, tracks and bindings (graphfile_curves.c) */
    const char *base_dir;  /* the file's directory: relative paths in it are from there (NULL = the working one) */
    gf_clip_entry *clips;  /* the sidecar's clips, then the asset's notes' others (gf_gather_clips) */
    int clip_entries;
    const char *notes_text; /* the asset's clip notes: paths under gf_notes_top are positioned in this text */
    size_t notes_size;
    const char *notes_name; /* "ASSET (clip notes)" in messages */
} ctx;

/* An object being read: its value, its path, and what it is ("a state"). */
typedef struct jobj {
    json_t *v;
    const jpath *at;
    const char *what;
} jobj;

/* graphfile.c */
void *gf_alloc(stance_graphfile *gf, size_t count, size_t size);

extern const named gf_param_types[], gf_ops[], gf_modes[], gf_easings[], gf_layer_modes[], gf_spaces[];

/* graphfile_pos.c */
size_t gf_locate(const char *s, size_t n, const jpath *at, int at_key);
void gf_line_col(const char *s, size_t n, size_t off, int *line, int *col);
/* graphfile_values.c */
const char *gf_named_at(const void *set, int i);
int gf_named_count(const named *t);
/* Fails with status and "FILE:LINE:COLUMN: message", the position of the
 * value at `at` (of its key when at_key). */
stance_status gf_fail_at(ctx *c, const jpath *at, int at_key, stance_status status, const char *fmt, ...) ST_PRINTF(5, 6);
void gf_position_of(const ctx *c, const jpath *at, int at_key, int *line, int *col);
const char *gf_type_name(const json_t *v);
stance_status gf_want_object(ctx *c, json_t *v, const jpath *at, const char *what);
stance_status gf_check_keys(ctx *c, const jobj *o, const char *const *allowed);
stance_status gf_require(ctx *c, const jobj *o, const char *key);
stance_status gf_get_string(ctx *c, const jobj *o, const char *key, int required, const char **out);
stance_status gf_check_name(ctx *c, const jpath *at, const char *name, int no_slash);
stance_status gf_get_name(ctx *c, const jobj *o, const char *key, int required, int no_slash,
                              const char **out);
stance_status gf_get_number(ctx *c, const jobj *o, const char *key, int required, double lo, double hi,
                                int lo_open, float *out);
stance_status gf_get_int(ctx *c, const jobj *o, const char *key, int lo, int hi, int *out);
stance_status gf_get_bool(ctx *c, const jobj *o, const char *key, int *out);
stance_status gf_get_enum(ctx *c, const jobj *o, const char *key, const char *kind, const named *table,
                              int *out);
stance_status gf_get_array(ctx *c, const jobj *o, const char *key, int required, int lo, int hi,
                               json_t **out, int *count);
stance_status gf_no_memory(ctx *c);
/* graphfile_names.c */
stance_status gf_find_clip(ctx *c, const jpath *at, const char *name, const stance_clip **out);
/* the same, the message at the key of `at` when at_key */
stance_status gf_find_clip_at(ctx *c, const jpath *at, int at_key, const char *name, const stance_clip **out);
stance_status gf_find_joint(ctx *c, const jpath *at, int at_key, const char *name, int *out);
int gf_param_index(const ctx *c, const char *name);
stance_status gf_find_param(ctx *c, const jpath *at, const char *name, int *out);
int gf_machine_index(const ctx *c, const char *name);
stance_status gf_find_machine(ctx *c, const jpath *at, const char *name, int *out);
int gf_state_index(const stance_machine_desc *m, const char *name);
stance_status gf_find_state(ctx *c, const jpath *at, const stance_machine_desc *m, const char *name);
stance_status gf_duplicate(ctx *c, const jpath *second, const jpath *first, const char *kind, const char *name);
/* graphfile_params.c */
stance_status gf_read_params(ctx *c, const jobj *root);
/* graphfile_machines.c */
stance_status gf_read_machines(ctx *c, const jobj *root);
/* graphfile_layers.c */
stance_status gf_read_layers(ctx *c, const jobj *root, stance_graph_desc *gd);
stance_status gf_check_machine_use(ctx *c, const stance_graph_desc *gd);
/* graphfile_ik.c */
stance_status gf_read_ik(ctx *c, const jobj *root, stance_graph_desc *gd);
/* graphfile_clips.c: the "clips" sidecar (events with payloads, windows) */
stance_status gf_read_clips(ctx *c, const jobj *root, stance_graph_desc *gd);
/* graphfile_pos.c: the "clips" of the asset's clip notes: the top of their paths (positions in c->notes_text) */
extern const jpath gf_notes_top;
/* graphfile_notes.c */
/* c->clips from the sidecar and the asset's clip notes (parsed once, kept in gf); after the asset is read */
stance_status gf_gather_clips(ctx *c, const jobj *root);
/* the object giving `key` of a clip: the sidecar's entry when it has the key, else the asset's (v NULL: neither) */
jobj gf_clip_key(const gf_clip_entry *e, const char *key);
/* graphfile_sync.c: the sidecar's "markers" and "speed", and the states' sync groups */
stance_status gf_read_sync(ctx *c, const jobj *root, stance_graph_desc *gd);
/* graphfile_curves.c: curve names from the sidecar (before everything that
 * may name one), a clip's "curves", and bindings: a weight that is a number
 * (number_ok) or {"param": P} / {"curve": C} (a drive of `name`); a blend
 * position {"param": P} / {"curve": C} as a parameter's name; a condition's
 * "curve"; then the description's curves and drives */
stance_status gf_scan_curves(ctx *c, const jobj *root);
stance_status gf_read_clip_curves(ctx *c, const jobj *co, const stance_clip *clip);
stance_status gf_read_weight(ctx *c, const jobj *o, const char *key, stance_drive_target target, const char *name,
                             int number_ok, float *weight);
stance_status gf_read_source_param(ctx *c, const jobj *o, const char *key, const char **out);
stance_status gf_read_condition_curve(ctx *c, const jobj *o, const char **param);
void gf_finish_curves(ctx *c, stance_graph_desc *gd);
/* graphfile_retarget.c: the clips of "clips" with "retarget" (played from
 * another skeleton's file), built before the machines name them */
stance_status gf_read_retargets(ctx *c, const jobj *root);

#endif /* STANCE_HAVE_JANSSON */
#endif
