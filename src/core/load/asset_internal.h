/* src/core/load/asset_internal.h - the byte-level helpers of the .stance format
 * shared by its section readers (asset.c: header, SKEL, CLIP; asset_packed.c:
 * compressed CLIPs; asset_mesh.c: SKIN, MESH; asset_graph.c: GRPH): a
 * bounds-checked reader, the per-load scratch memory, and the constants the
 * writer (src/build/write.h, libstance_build) shares with them. Not public. */
#ifndef STANCE_ASSET_INTERNAL_H
#define STANCE_ASSET_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "core/load/asset_graph.h"
#include "core/base/internal.h"
#include "stance/asset.h"

/* ---- reader: every read is bounds-checked; a failed read sets `bad` ------- */

typedef struct reader {
    const unsigned char *p, *end;
    int bad;
} reader;

static inline size_t r_left(const reader *r) { return (size_t)(r->end - r->p); }
static inline int r_take(reader *r, void *dst, size_t n) {
    if (r->bad || r_left(r) < n) {
        r->bad = 1;
        if (dst && n) memset(dst, 0, n);
        return 0;
    }
    if (dst && n) memcpy(dst, r->p, n);
    r->p += n;
    return 1;
}
static inline unsigned r_u8(reader *r) {
    unsigned char b = 0;
    r_take(r, &b, 1);
    return b;
}
static inline uint32_t r_u32(reader *r) {
    unsigned char b[4];
    r_take(r, b, 4);
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
static inline uint64_t r_u64(reader *r) {
    uint64_t lo = r_u32(r);
    return lo | (uint64_t)r_u32(r) << 32;
}
static inline float r_f32(reader *r) {
    uint32_t v = r_u32(r);
    float f;
    memcpy(&f, &v, 4);
    return f;
}
static inline void r_f32n(reader *r, float *dst, size_t n) {
    if (r->bad || r_left(r) / 4 < n) {
        r->bad = 1;
        return;
    }
    for (size_t i = 0; i < n; i++) dst[i] = r_f32(r);
}
/* A name of 1..cap-1 bytes with no zero byte inside, zero-terminated into dst. */
static inline int r_name(reader *r, char *dst, size_t cap) {
    size_t n = r_u8(r);
    dst[0] = 0;
    if (r->bad || n == 0 || n >= cap || r_left(r) < n) return 0;
    r_take(r, dst, n);
    dst[n] = 0;
    return strlen(dst) == n;
}

/* Temporary memory of one load, all from the caller's allocator. */
typedef struct scratch {
    const stance_allocator *al;
    void *ptr[8];
    size_t size[8];
    int count;
} scratch;

static inline void *scratch_alloc(scratch *s, size_t size) {
    if (s->count == 8) return NULL;
    void *p = st_alloc(s->al, size ? size : 1, 16);
    if (!p) return NULL;
    s->ptr[s->count] = p;
    s->size[s->count] = size ? size : 1;
    s->count++;
    return p;
}
static inline void scratch_release(scratch *s) {
    while (s->count > 0) {
        s->count--;
        st_free(s->al, s->ptr[s->count], s->size[s->count]);
    }
}

/* The header: magic, u32 version, u32 flags, u64 payload size, u64 checksum. */
#define ST_ASSET_MAGIC "STANCE\0" /* 8 bytes with the string's own zero */
#define ST_ASSET_HEADER_BYTES 32
/* Version 6 (written only for a file that has one) allows optional sections:
 * a tag whose first byte is a lowercase letter ("txtr", src/io/asset_textures.c)
 * may stand anywhere after SKEL and before GRPH; readers that do not know it
 * skip it. Versions 1..5 have none. STANCE_ASSET_VERSION (5) is what the
 * writer puts in a file without them. */
#define ST_ASSET_VERSION_OPTIONAL 6
#define ST_ASSET_VERSION_READ 6
static inline int st_asset_optional_tag(const unsigned char *tag, uint32_t version) {
    return version >= ST_ASSET_VERSION_OPTIONAL && tag[0] >= 'a' && tag[0] <= 'z';
}

/* ---- the container: header and section heads (asset_sections.c) ----------
 * Version 6 allows sections after the MESHes that carry optional data, and
 * the first letter of the tag says what a reader that does not know one must
 * do (as PNG's chunk names do): uppercase, understand it or refuse the file
 * ("META", the clip notes, which the runtime reads); lowercase, skip it
 * ("txtr", "vcol": what only viewers use, read by src/io/asset_textures.c). */
enum {
    ST_SECTION_SKEL, ST_SECTION_CLIP, ST_SECTION_SKIN, ST_SECTION_MESH, /* in file order (SKIN, MESH from version 2) */
    ST_SECTION_META,     /* the clip notes (version 6) */
    ST_SECTION_OPTIONAL, /* a lowercase tag (version 6): may be skipped */
    ST_SECTION_GRPH,     /* a compiled graph, the last section */
    ST_SECTION_UNKNOWN = -1
};
typedef struct st_section {
    unsigned char tag[4];
    int kind;                  /* ST_SECTION_*, from the tag and the file's version */
    int index;                 /* 0 for the first section */
    const unsigned char *body; /* inside the file's bytes */
    size_t size;               /* the body's bytes */
    size_t at;                 /* the head's offset in the file */
} st_section;
typedef struct st_sections {
    const unsigned char *file, *p, *end;
    uint32_t version;
    int index;
} st_sections;
/* Checks the header of the file in bytes[0..size) (magic, version 1..6, flags
 * 0, payload size, checksum) and starts a walk of its sections; no allocation.
 * Messages do not name the source. */
stance_status st_sections_begin(st_sections *it, const void *bytes, size_t size, stance_error *err);
/* The next section with its head checked (the zero word, a size within the
 * file): 1 with *out filled, 0 after the last, -1 with err set (the walk
 * then ends). */
int st_sections_next(st_sections *it, st_section *out, stance_error *err);
/* ST_SECTION_* of a tag in a file of `version` (SKIN and MESH from 2, lowercase from 6). */
int st_section_kind(const unsigned char tag[4], uint32_t version);

/* CLIP flags: slerp, root path is joint 0's translation, compressed (version 3). */
#define FLAG_SLERP 1u
#define FLAG_ROOT_JOINT0 2u
#define FLAG_PACKED 4u
#define FLAG_ROOT_YAW 8u /* the root path has yaw: root_n f32 after its values (stance 0.x issue 25; readers before refuse the bit) */
#define FLAG_ROOT_ROT 16u /* the root path has full rotation: root_n x 4 f32 (x y z w) after its values (issue 25; never with 2 or 8) */
/* MESH flags: uvs present. */
#define MESH_UVS 1u

/* Prefixes err's message with `what: ` (returns s). */
stance_status st_asset_prefixed(stance_status s, const char *what, stance_error *err);

/* A CLIP section's body (asset.c; `version` of the file: compressed clips
 * from 3 on), built with stance_clip_create or st_clip_create_packed. */
stance_status st_asset_load_clip(reader *r, const stance_skeleton *sk, const stance_allocator *al, int index,
                                uint32_t version, stance_clip **out, stance_error *err);
/* Clip sections: events and root path (asset.c, both encodings), the
 * compressed encoding (asset_packed.c; K already checked). */
stance_status st_asset_read_events_root(reader *r, scratch *s, int index, const char *name, stance_event_desc *events,
                                        char (*event_names)[STANCE_EVENT_NAME], uint32_t *event_count, uint32_t *root_n,
                                        float **root, float **turn, int turn_width, stance_error *err);
stance_status st_asset_load_packed_clip(reader *r, const stance_skeleton *sk, const stance_allocator *al, int index,
                                        const char *name, float duration, uint32_t flags, float root_speed, uint32_t K, uint32_t version,
                                        stance_clip **out, stance_error *err);

/* Sections of the skins and meshes (asset_mesh.c). */
stance_status st_asset_load_skin(reader *r, const stance_skeleton *sk, const stance_allocator *al, int index,
                                 stance_skin **out, stance_error *err);
stance_status st_asset_load_mesh(reader *r, stance_skin *const *skins, int skin_count, const stance_allocator *al,
                                 int index, stance_mesh **out, stance_error *err);

#endif
