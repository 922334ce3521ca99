/* src/core/graph/graph_layout.h - the compiled graph as stored: the one table of
 * struct stance_graph's arrays (one row each) and of their records' fields,
 * which the GRPH section of format 2 holds as they are laid out in memory
 * (pointers as indices). The writer (src/build/graph_write.c) and the binder
 * (graph_bind.c) both walk it, so a new compiled array is one row here (and
 * its checks in graph_check.c). Not public API.
 *
 * The section body (little-endian; docs/build.md has the whole layout):
 *
 *   u32 format (2), u32 joint_count, u32 row_count (GL_ROWS)
 *   per row, in the table's order: char tag[4], u32 count, u32 bytes, then
 *   `bytes` bytes: for a row of records, count records of the fields below
 *   in order (i32 and f32: 4 bytes, u64: 8, a name: 64 bytes zero-padded; a
 *   clip: its i32 index in the file's clips, -1 none; a delta: its i32 index
 *   in the graph's delta clips, -1 none), bytes = count x the record's size;
 *   the other rows are described at their kind. */
#ifndef STANCE_GRAPH_LAYOUT_H
#define STANCE_GRAPH_LAYOUT_H

#include <stddef.h>

#include "core/graph/graph_internal.h"

#define GL_FORMAT 2u

/* What a field holds in the file (each 4 bytes but GL_U64 and GL_NAME). */
typedef enum gl_kind {
    GL_I32,   /* an int or an enum */
    GL_F32,   /* finite, in [lo, hi] */
    GL_U64,
    GL_NAME,  /* char[G_NAME]: 1..63 bytes and a zero */
    GL_CLIP,  /* const stance_clip *: an index in the file's clips (-1 none) */
    GL_DELTA  /* const stance_clip *: an index in the graph's delta clips (-1 none) */
} gl_kind;

/* What bounds an index field: its value is in [lo, count of that) (lo -1:
 * none allowed), or GL_FIXED: in [lo, hi]. */
typedef enum gl_ref {
    GL_FIXED = -1,
    GL_R_PARAM, GL_R_STATE, GL_R_TRANS, GL_R_COND, GL_R_ENTRY, GL_R_MACHINE, GL_R_LAYER, GL_R_REFPOSE,
    GL_R_STRN, GL_R_ANYT, GL_R_STEP, GL_R_JOINT,
    GL_REFS
} gl_ref;

typedef struct gl_field {
    const char *name;           /* in messages: "speed_param" */
    unsigned short at;          /* offset in the element */
    unsigned char kind;         /* gl_kind */
    unsigned char n;            /* values in a row (an array inside the struct), 4 bytes apart */
    signed char ref;            /* gl_ref (GL_I32) */
    float lo, hi;
} gl_field;

/* How a row is stored. */
typedef enum gl_rowkind {
    GL_RECORDS,  /* count records of the row's fields */
    GL_POSES,    /* ref_poses: count poses of f32 tx..sz, padded_count each (the pose memory as laid out) */
    GL_DELTAS,   /* delta clips: count exact CLIP sections (the 16-byte head and the body of src/core/load/asset.c) */
    GL_CONTACTS  /* contacts: count slots (ik_count x ik_clip_count): u32 0 (none) or 1, then i32 foot_count,
                    i32 feet[4], f32 duration, f32 rate, i32 sample_count, i32 from_events, f32 lowest[4],
                    u8 planted[foot_count x sample_count], f32 height[foot_count x sample_count] */
} gl_rowkind;

#define GL_SELF ((size_t)-1) /* a row whose one record is struct stance_graph itself */

typedef struct gl_row {
    char tag[5];
    const char *what;           /* in messages: "state 3 'Walk': ..." */
    unsigned char kind;         /* gl_rowkind */
    signed char ref;            /* the gl_ref its count is (GL_FIXED: none) */
    size_t base;                /* offsetof(struct stance_graph, the array's pointer), or GL_SELF */
    int count_at;               /* offsetof(struct stance_graph, its int count), or -1: then its count
                                   must be count(g) of the counts already bound, unless count_free */
    unsigned char count_free;   /* the count is the file's (a list whose length the records check) */
    size_t elem;                /* bytes of one element in memory */
    const gl_field *fields;
    int field_count;
    int cap;                    /* the most elements a row may have */
    int (*count)(const stance_graph *g); /* what the writer writes (for a row without count_at nor
                                            count_free, from the graph's counts and skeleton only) */
} gl_row;

enum {
    GL_HEAD, GL_PARM, GL_MACH, GL_DELT, GL_STAT, GL_TRAN, GL_STRN, GL_ANYT, GL_COND, GL_ENTR, GL_LAYR, GL_MASK,
    GL_REFP, GL_STEP, GL_SCAP, GL_IKEN, GL_IKCL, GL_CTCT,
    GL_ROWS
};
extern const gl_row gl_rows[GL_ROWS];

/* Bytes one record of the row takes in the file. */
size_t gl_record_bytes(const gl_row *row);
/* The bytes of one present contacts slot after its u32, without the samples. */
#define GL_CONTACT_HEAD 52

#endif
