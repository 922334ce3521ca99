/* src/core/load/asset.c - assets (a skeleton, its clips, skins and meshes) and
 * the native binary format `.stance`: the header, the section order, SKEL
 * and CLIP; load from bytes or a file with full validation (the writer is
 * libstance_build's, src/build/asset_write.c). A CLIP section's body is
 * read by asset_clip.c (its events and root path by asset_events.c), the
 * SKIN and MESH sections by asset_mesh.c; the byte helpers are in
 * asset_internal.h.
 *
 * Owns the byte layout below and nothing else: skeletons and clips are built
 * only through stance_skeleton_create and stance_clip_create, so a file goes
 * through exactly the checks a caller's description would. The header is in
 * include/stance/asset.h. Section bodies (little-endian; the same in
 * versions 1 and 2, which adds SKIN and MESH, see asset_mesh.c):
 *
 *   SKEL  u32 joint_count
 *         per joint: u8 name length (1..63), name bytes, i32 parent,
 *                    f32 t[3], r[4] (x y z w), s[3]      (the rest transform)
 *   CLIP  u8 name length (1..63), name bytes
 *         f32 duration, u32 flags (bit 0 slerp, bit 1 root path is joint 0's
 *         translation), f32 root_speed
 *         u32 key_count, f32 times[key_count]             (the shared grid)
 *         u8 animated[joint_count] (bit 0 T, bit 1 R, bit 2 S)
 *         u32 blocks[3]: keys stored per channel T, R, S (1 or key_count)
 *         for channel T, R, S, for each joint with that bit, blocks[c] keys
 *         of 3, 4, 3 floats (the values on the grid; one key = constant),
 *         except joint 0's translation when flag bit 1 is set
 *         u32 event_count, per event: u8 name length (1..31), name, f32 time
 *         u32 root_key_count, f32 root_times[n], f32 root_values[3 n]; with
 *         flag bit 1 these keys are also joint 0's translation track, kept at
 *         their own times (the clip keeps them as its root path), so the
 *         grid and the path come back exactly
 *
 *   CLIP  version 3, compressed (flag bit 2; read and written in
 *         src/core/load/asset_packed.c, the layout in src/core/clip/clip_packed.h):
 *         name, duration, flags, root_speed as above
 *         u32 key_count, f32 times[key_count]             (the shared grid)
 *         f32 max_error, f32 vertex_distance (as measured when compressed)
 *         u32 track_count; per track: u16 joint, u8 channel (0 T, 1 R, 2 S),
 *         u8 shift, u8 bits, then by bits: 0: f32 value[w]; 32: f32
 *         keys[n w]; 1..24: f32 min[3], f32 ext[3], u8 packed[ceil(3 n bits
 *         / 8)] (LSB first; bits 1..24); 64 + b: the same with segment
 *         heads first (clip_packed.h), n = ceil((key_count - 1) / 2^shift) + 1
 *         u32 event_count, events as above
 *         u32 root_key_count, f32 root_times[n], f32 root_values[3 n]
 *         (always explicit; flag bit 1 says the pose is not in place)
 *
 *   CLIP  version 4, compressed: as version 3 except
 *         u32 key_count, u8 grid (0: f32 times[key_count]; 1: f32 step,
 *         times[k] = (float)k * step, allowed when at least key_count / 4
 *         bytes follow), and tracks may have bits 128 (a bit rate per
 *         segment): f32 min[3], f32 ext[3], then the stream of clip_packed.h
 *         (u8 codes[S], u8 heads[6 S], keys); with flag bit 1 and
 *         root_key_count 0 the root path is joint 0's stored translation at
 *         every grid key
 *
 *   CLIP  version 5, compressed: as version 4, and tracks may have bits 130
 *         (ST_PACK_LAT): f32 min[3], f32 ext[3], u8 codes[S], u32 size, a
 *         bit stream of predicted, Rice-coded keys on one lattice per track
 *         (src/core/clip/clip_lattice.h)
 *
 *   CLIP  any version, dense or compressed, flag bit 3 (root yaw, issue 25;
 *         never with bit 1): after root_values, f32 root_yaw[root_key_count]
 *         (radians about +Y, unwrapped). Readers before it refuse the bit
 *         (unknown flags), so a file with it fails cleanly there; files
 *         without it read as before.
 *
 *   CLIP  any version, dense or compressed, flag bit 4 (value 16, root
 *         rotation, issue 25; never with bits 1 or 3): after root_values,
 *         f32 root_rotation[4 root_key_count] (x y z w per key, the root's
 *         orientation relative to the clip's frame). Readers before it
 *         refuse the bit; files without it read as before.
 *
 *   META  (version 6, optional, at most once, after the MESHes and before
 *         GRPH; issue 26) the clip notes: JSON text without a byte 0, at most
 *         STANCE_MAX_CLIP_NOTES_BYTES (stance_asset.clip_notes). The runtime
 *         keeps it unread. A file with it is written as version 6, which
 *         readers before it refuse; files without it are as before.
 *   txtr, vcol  version 6: optional sections (a lowercase tag; anywhere
 *         after SKEL, before GRPH): skipped here; the texture and vertex
 *         colour sections' reader is the tools' (src/io/asset_textures.c)
 *
 * The header and the section heads are walked by asset_sections.c, which
 * the tools' reader shares.
 *
 *   GRPH  (optional, last) a compiled graph: see src/core/load/asset_graph.c,
 *         which owns that section; this file only finds it and hands it over
 *
 * Every count is checked against the bytes left before anything is
 * allocated for it, so a short file cannot ask for much memory. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/load/asset_graph.h"
#include "core/load/asset_internal.h"

enum { SEC_SKEL = ST_SECTION_SKEL, SEC_CLIP = ST_SECTION_CLIP, SEC_SKIN = ST_SECTION_SKIN, SEC_MESH = ST_SECTION_MESH,
       SEC_KINDS = ST_SECTION_META }; /* in file order */
#define MAX_FILE_BYTES ((size_t)1 << 31)


/* ---- asset ----------------------------------------------------------------- */

void stance_asset_destroy(stance_asset *asset) {
    if (!asset) return;
    stance_graph_destroy(asset->graph); /* before the clips it plays */
    if (asset->clips) {
        for (int i = 0; i < asset->clip_count; i++) stance_clip_destroy(asset->clips[i]);
        st_free(&asset->allocator, asset->clips, sizeof(stance_clip *) * (size_t)asset->clip_count);
    }
    if (asset->meshes) {
        for (int i = 0; i < asset->mesh_count; i++) stance_mesh_destroy(asset->meshes[i]);
        st_free(&asset->allocator, asset->meshes, sizeof(stance_mesh *) * (size_t)asset->mesh_count);
    }
    if (asset->skins) {
        for (int i = 0; i < asset->skin_count; i++) stance_skin_destroy(asset->skins[i]);
        st_free(&asset->allocator, asset->skins, sizeof(stance_skin *) * (size_t)asset->skin_count);
    }
    stance_skeleton_destroy(asset->skeleton);
    if (asset->clip_notes) st_free(&asset->allocator, asset->clip_notes, asset->clip_notes_size + 1);
    memset(asset, 0, sizeof *asset);
}

const stance_clip *stance_asset_find_clip(const stance_asset *asset, const char *name) {
    if (!asset || !name || !asset->clips) return NULL;
    for (int i = 0; i < asset->clip_count; i++)
        if (asset->clips[i] && !strcmp(asset->clips[i]->name, name)) return asset->clips[i];
    return NULL;
}

static stance_status load_skeleton(reader *r, const stance_allocator *al, stance_skeleton **out,
                                   stance_error *err) {
    uint32_t n = r_u32(r);
    /* each joint needs at least 1 + 1 + 4 + 40 bytes */
    if (r->bad || n < 1 || n > STANCE_MAX_JOINTS || r_left(r) / 46 < n)
        return st_fail(err, STANCE_ERR_FORMAT, "skeleton: joint count %u is not in 1..%d or larger than the section",
                       (unsigned)n, STANCE_MAX_JOINTS);
    scratch s = {al, {0}, {0}, 0};
    char *names = scratch_alloc(&s, (size_t)n * STANCE_MAX_NAME);
    const char **name_ptr = scratch_alloc(&s, sizeof(char *) * n);
    int *parents = scratch_alloc(&s, sizeof(int) * n);
    stance_transform *rest = scratch_alloc(&s, sizeof(stance_transform) * n);
    if (!names || !name_ptr || !parents || !rest) {
        scratch_release(&s);
        return st_fail(err, STANCE_ERR_MEMORY, "skeleton: allocation for %u joints failed", (unsigned)n);
    }
    for (uint32_t j = 0; j < n; j++) {
        char *nm = names + (size_t)j * STANCE_MAX_NAME;
        name_ptr[j] = nm;
        if (!r_name(r, nm, STANCE_MAX_NAME)) {
            scratch_release(&s);
            return st_fail(err, STANCE_ERR_FORMAT, "skeleton: joint %u has a bad name", (unsigned)j);
        }
        parents[j] = (int)(int32_t)r_u32(r);
        r_f32n(r, rest[j].t, 3);
        r_f32n(r, rest[j].r, 4);
        r_f32n(r, rest[j].s, 3);
    }
    if (r->bad) {
        scratch_release(&s);
        return st_fail(err, STANCE_ERR_FORMAT, "skeleton: section ends inside the joints");
    }
    stance_skeleton_desc d = {(int)n, name_ptr, parents, rest};
    stance_status st = stance_skeleton_create(&d, al, out, err);
    scratch_release(&s);
    return st;
}

static stance_status pointer_arrays(stance_asset *a, const int *count, stance_error *err) {
    const stance_allocator *al = &a->allocator;
    if (count[SEC_CLIP] && !(a->clips = st_alloc(al, sizeof(stance_clip *) * (size_t)count[SEC_CLIP], 16)))
        return st_fail(err, STANCE_ERR_MEMORY, "allocation of %d clip pointers failed", count[SEC_CLIP]);
    a->clip_count = count[SEC_CLIP];
    if (count[SEC_SKIN] && !(a->skins = st_alloc(al, sizeof(stance_skin *) * (size_t)count[SEC_SKIN], 16)))
        return st_fail(err, STANCE_ERR_MEMORY, "allocation of %d skin pointers failed", count[SEC_SKIN]);
    a->skin_count = count[SEC_SKIN];
    if (count[SEC_MESH] && !(a->meshes = st_alloc(al, sizeof(stance_mesh *) * (size_t)count[SEC_MESH], 16)))
        return st_fail(err, STANCE_ERR_MEMORY, "allocation of %d mesh pointers failed", count[SEC_MESH]);
    a->mesh_count = count[SEC_MESH];
    return STANCE_OK;
}

/* Loads into *out; messages say what is wrong without naming the source. */
static stance_status load(const unsigned char *bytes, size_t size, const stance_allocator *allocator, st_graph_v1_fn v1,
                          stance_asset *out, stance_error *err) {
    st_sections it;
    stance_status s = st_sections_begin(&it, bytes, size, err);
    if (s) return s;
    const st_sections start = it; /* the second walk starts here */
    const uint32_t version = it.version;

    /* Walk the section heads once: SKEL first and once, then the CLIPs, then
     * (version 2) the SKINs, then the MESHes; then (version 6) the clip notes;
     * a graph last. Optional sections (version 6) may stand anywhere after
     * SKEL and are skipped. */
    static const char *const tags[SEC_KINDS] = {"SKEL", "CLIP", "SKIN", "MESH"};
    static const int max_count[SEC_KINDS] = {1, STANCE_MAX_CLIPS, STANCE_MAX_SKINS, STANCE_MAX_MESHES};
    int count[SEC_KINDS] = {0, 0, 0, 0};
    int sections = 0, last = -1;
    st_section graph = {{0}, 0, -1, NULL, 0, 0}, notes = graph, sec;
    int more;
    while ((more = st_sections_next(&it, &sec, err)) > 0) {
        if (graph.index >= 0)
            return st_fail(err, STANCE_ERR_FORMAT, "section %d: the graph section (GRPH) must be the last", sections);
        const int kind = sections > 0 ? sec.kind : sec.kind == ST_SECTION_SKEL ? ST_SECTION_SKEL : ST_SECTION_UNKNOWN;
        if (kind == ST_SECTION_OPTIONAL) continue; /* skipped */
        if (kind == ST_SECTION_GRPH) {
            graph = sec, graph.index = sections++;
            continue;
        }
        if (notes.index >= 0)
            return st_fail(err, STANCE_ERR_FORMAT, "section %d: only optional sections and a graph section (GRPH) may follow the clip notes (META)",
                           sections);
        if (kind == ST_SECTION_META) {
            if (version < ST_ASSET_VERSION_OPTIONAL)
                return st_fail(err, STANCE_ERR_FORMAT, "section %d: clip notes (META) in a version %u file (needs version 6)",
                               sections, (unsigned)version);
            if (sec.size > STANCE_MAX_CLIP_NOTES_BYTES || memchr(sec.body, 0, sec.size))
                return st_fail(err, STANCE_ERR_FORMAT, "section %d: clip notes (META) of %zu bytes: at most %zu, no byte 0",
                               sections, sec.size, STANCE_MAX_CLIP_NOTES_BYTES);
            notes = sec, notes.index = sections++;
            continue;
        }
        if (kind < 0 || kind >= SEC_KINDS || kind < last || (sections == 0) != (kind == SEC_SKEL))
            return st_fail(err, STANCE_ERR_FORMAT, "section %d: expected %s", sections,
                           sections == 0 ? "SKEL" : version >= 2 ? "CLIP, SKIN or MESH in that order" : "CLIP");
        if (++count[kind] > max_count[kind])
            return st_fail(err, STANCE_ERR_FORMAT, "more than %d %s sections", max_count[kind], tags[kind]);
        last = kind;
        sections++;
    }
    if (more < 0) return STANCE_ERR_FORMAT;
    if (sections == 0) return st_fail(err, STANCE_ERR_FORMAT, "no skeleton section");

    stance_asset a;
    memset(&a, 0, sizeof a);
    a.allocator = st_allocator(allocator);
    int at[SEC_KINDS] = {0, 0, 0, 0};
    it = start;
    while (st_sections_next(&it, &sec, NULL) > 0) {
        if (sec.kind < 0 || sec.kind >= SEC_KINDS) continue; /* the notes and the graph come after */
        reader body = {sec.body, sec.body + sec.size, 0};
        const int kind = sec.kind, k = at[kind]++;
        if (kind == SEC_SKEL) {
            s = load_skeleton(&body, &a.allocator, &a.skeleton, err);
            if (!s && r_left(&body) != 0)
                s = st_fail(err, STANCE_ERR_FORMAT, "skeleton: section size does not match its content");
            if (!s) s = pointer_arrays(&a, count, err);
        } else if (kind == SEC_CLIP) {
            s = st_asset_load_clip(&body, a.skeleton, &a.allocator, k, version, &a.clips[k], err);
        } else if (kind == SEC_SKIN) {
            s = st_asset_load_skin(&body, a.skeleton, &a.allocator, k, &a.skins[k], err);
        } else {
            s = st_asset_load_mesh(&body, a.skins, a.skin_count, &a.allocator, k, &a.meshes[k], err);
        }
        if (s) {
            stance_asset_destroy(&a);
            return s;
        }
    }
    if (notes.index >= 0) {
        if (!(a.clip_notes = st_alloc(&a.allocator, notes.size + 1, 1))) {
            stance_asset_destroy(&a);
            return st_fail(err, STANCE_ERR_MEMORY, "allocation of %zu bytes of clip notes failed", notes.size + 1);
        }
        memcpy(a.clip_notes, notes.body, notes.size);
        a.clip_notes[notes.size] = 0;
        a.clip_notes_size = notes.size;
    }
    if (graph.index >= 0) {
        s = st_graph_section_load(graph.body, graph.size, &a, &a.allocator, v1, &a.graph, err);
        if (s) {
            stance_asset_destroy(&a);
            return s;
        }
    }
    *out = a;
    return st_ok(err);
}

/* Prefixes err's message with `what: `. */
stance_status st_asset_prefixed(stance_status s, const char *what, stance_error *err) {
    if (s && err) {
        /* what + ": " + the old message, cut to fit (snprintf of a buffer into
         * itself is not allowed, and gcc warns of truncation) */
        char msg[sizeof err->message];
        const size_t cap = sizeof err->message - 1;
        const char *z = memchr(err->message, 0, cap);
        size_t n = strlen(what), m = z ? (size_t)(z - err->message) : cap;
        if (n > cap - 2) n = cap - 2;
        memcpy(msg, what, n);
        msg[n++] = ':', msg[n++] = ' ';
        if (m > cap - n) m = cap - n;
        memcpy(msg + n, err->message, m);
        msg[n + m] = 0;
        memcpy(err->message, msg, n + m + 1);
    }
    return s;
}

stance_status st_asset_load_memory_v1(const void *bytes, size_t size, const stance_allocator *allocator, st_graph_v1_fn v1,
                                      stance_asset *out, stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "stance data: out is NULL");
    memset(out, 0, sizeof *out);
    if (!bytes && size > 0) return st_fail(err, STANCE_ERR_ARGUMENT, "stance data: bytes is NULL");
    if (st_check_allocator(allocator, "stance data", err)) return STANCE_ERR_ARGUMENT;
    static const unsigned char none[1] = {0};
    return st_asset_prefixed(load(bytes ? bytes : none, size, allocator, v1, out, err), "stance data", err);
}

stance_status stance_asset_load_memory(const void *bytes, size_t size, const stance_allocator *allocator,
                                       stance_asset *out, stance_error *err) {
    return st_asset_load_memory_v1(bytes, size, allocator, NULL, out, err);
}

stance_status st_asset_load_file_v1(const char *path, const stance_allocator *allocator, st_graph_v1_fn v1,
                                    stance_asset *out, stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "asset load: out is NULL");
    memset(out, 0, sizeof *out);
    if (!path || !path[0]) return st_fail(err, STANCE_ERR_ARGUMENT, "asset load: path is NULL or empty");
    if (st_check_allocator(allocator, path, err)) return STANCE_ERR_ARGUMENT;
    FILE *f = fopen(path, "rb");
    if (!f) return st_fail(err, STANCE_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    /* a directory opens but cannot be read: find out before trusting its size */
    errno = 0;
    int first = fgetc(f);
    if (first == EOF && ferror(f)) {
        int e = errno;
        fclose(f);
        return st_fail(err, STANCE_ERR_IO, "%s: cannot read: %s", path, e ? strerror(e) : "read error");
    }
    long end = -1;
    if (fseek(f, 0, SEEK_END) == 0) end = ftell(f);
    if (end < 0 || (unsigned long)end > MAX_FILE_BYTES || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return st_fail(err, STANCE_ERR_IO, "%s: cannot find the file's size, or it is over %zu bytes", path, MAX_FILE_BYTES);
    }
    size_t size = (size_t)end;
    unsigned char *bytes = st_alloc(allocator, size ? size : 1, 16);
    if (!bytes) {
        fclose(f);
        return st_fail(err, STANCE_ERR_MEMORY, "%s: allocation of %zu bytes failed", path, size);
    }
    size_t got = fread(bytes, 1, size, f);
    fclose(f);
    stance_status s;
    if (got != size)
        s = st_fail(err, STANCE_ERR_IO, "%s: read %zu of %zu bytes", path, got, size);
    else
        s = st_asset_prefixed(load(bytes, size, allocator, v1, out, err), path, err);
    st_free(allocator, bytes, size ? size : 1);
    return s;
}

stance_status stance_asset_load_file(const char *path, const stance_allocator *allocator, stance_asset *out,
                                     stance_error *err) {
    return st_asset_load_file_v1(path, allocator, NULL, out, err);
}
