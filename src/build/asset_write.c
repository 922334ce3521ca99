/* src/build/asset_write.c - the .stance writer (libstance_build): the
 * header, SKEL, SKIN and MESH sections, CLIP sections (exact and
 * compressed: src/build/clip_write.c) and the compiled graph's GRPH section
 * (src/build/graph_write.c), to bytes or a file. The byte layout is owned and documented by the readers in the
 * runtime (src/core/load/asset.c, asset_packed.c, asset_mesh.c, asset_graph.c);
 * this file writes exactly what they read. Two passes: measure (buf NULL),
 * then write. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "build/graph_build.h"
#include "build/write.h"

static void write_skeleton(writer *w, const stance_skeleton *sk) {
    size_t at = begin_section(w, "SKEL");
    w_u32(w, (uint32_t)sk->joint_count);
    for (int j = 0; j < sk->joint_count; j++) {
        w_name(w, stance_skeleton_joint_name(sk, j));
        w_u32(w, (uint32_t)sk->parents[j]);
        const stance_transform *r = &sk->rest[j];
        for (int c = 0; c < 3; c++) w_f32(w, r->t[c]);
        for (int c = 0; c < 4; c++) w_f32(w, r->r[c]);
        for (int c = 0; c < 3; c++) w_f32(w, r->s[c]);
    }
    end_section(w, at);
}

static void w_u16(writer *w, unsigned v) {
    unsigned char b[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
    w_bytes(w, b, 2);
}

static stance_status check_skins(const stance_asset *a, stance_error *err) {
    if (a->skin_count < 0 || a->skin_count > STANCE_MAX_SKINS || (a->skin_count > 0 && !a->skins))
        return st_fail(err, STANCE_ERR_ARGUMENT, "asset: skin_count %d is not in 0..%d or skins is NULL",
                       a->skin_count, STANCE_MAX_SKINS);
    if (a->mesh_count < 0 || a->mesh_count > STANCE_MAX_MESHES || (a->mesh_count > 0 && !a->meshes))
        return st_fail(err, STANCE_ERR_ARGUMENT, "asset: mesh_count %d is not in 0..%d or meshes is NULL",
                       a->mesh_count, STANCE_MAX_MESHES);
    for (int i = 0; i < a->skin_count; i++) {
        const stance_skin *s = a->skins[i];
        if (!s) return st_fail(err, STANCE_ERR_ARGUMENT, "asset: skin %d is NULL", i);
        if (s->skeleton_joint_count != a->skeleton->joint_count)
            return st_fail(err, STANCE_ERR_ARGUMENT, "asset: skin '%s' was made for %d joints, the skeleton has %d",
                           s->name, s->skeleton_joint_count, a->skeleton->joint_count);
    }
    for (int i = 0; i < a->mesh_count; i++) {
        const stance_mesh *m = a->meshes[i];
        if (!m) return st_fail(err, STANCE_ERR_ARGUMENT, "asset: mesh %d is NULL", i);
        if (m->skin < -1 || m->skin >= a->skin_count)
            return st_fail(err, STANCE_ERR_ARGUMENT, "asset: mesh '%s' has skin %d, not in -1..%d", m->name, m->skin,
                           a->skin_count - 1);
        if (m->skin < 0) {
            if (m->joints || m->weights)
                return st_fail(err, STANCE_ERR_ARGUMENT, "asset: rigid mesh '%s' has joints or weights", m->name);
            continue;
        }
        if (!m->joints || !m->weights)
            return st_fail(err, STANCE_ERR_ARGUMENT, "asset: skinned mesh '%s' has no joints or weights", m->name);
        const int n = a->skins[m->skin]->joint_count;
        for (size_t k = 0; k < (size_t)STANCE_SKIN_INFLUENCES * (size_t)m->vertex_count; k++)
            if (m->joints[k] >= n)
                return st_fail(err, STANCE_ERR_ARGUMENT, "asset: mesh '%s' uses skin joint %u, skin '%s' has %d",
                               m->name, (unsigned)m->joints[k], a->skins[m->skin]->name, n);
    }
    return STANCE_OK;
}

static void write_skin(writer *w, const stance_skin *skin) {
    size_t at = begin_section(w, "SKIN");
    w_name(w, skin->name);
    w_u32(w, (uint32_t)skin->joint_count);
    for (int k = 0; k < skin->joint_count; k++) w_u32(w, (uint32_t)skin->joints[k]);
    for (size_t i = 0; i < 16 * (size_t)skin->joint_count; i++) w_f32(w, skin->inverse_bind[i]);
    end_section(w, at);
}

static void write_mesh(writer *w, const stance_mesh *m) {
    size_t at = begin_section(w, "MESH");
    const size_t V = (size_t)m->vertex_count;
    w_name(w, m->name);
    w_u32(w, (uint32_t)m->skin);
    w_u32(w, m->uvs ? MESH_UVS : 0u);
    w_u32(w, (uint32_t)m->vertex_count);
    w_u32(w, (uint32_t)m->index_count);
    for (int c = 0; c < 4; c++) w_f32(w, m->base_color[c]);
    for (size_t i = 0; i < 3 * V; i++) w_f32(w, m->positions[i]);
    for (size_t i = 0; i < 3 * V; i++) w_f32(w, m->normals[i]);
    if (m->uvs)
        for (size_t i = 0; i < 2 * V; i++) w_f32(w, m->uvs[i]);
    if (m->skin >= 0) {
        for (size_t i = 0; i < STANCE_SKIN_INFLUENCES * V; i++) w_u16(w, m->joints[i]);
        for (size_t i = 0; i < STANCE_SKIN_INFLUENCES * V; i++) w_f32(w, m->weights[i]);
    }
    for (int i = 0; i < m->index_count; i++) w_u32(w, m->indices[i]);
    end_section(w, at);
}
static void write_asset(writer *w, const stance_asset *a, const stance_graph *graph) {
    w_bytes(w, ST_ASSET_MAGIC, 8);
    /* version 6 only for a file with clip notes (META), as for optional sections (docs/stance-format.md) */
    w_u32(w, a->clip_notes ? (uint32_t)ST_ASSET_VERSION_OPTIONAL : (uint32_t)STANCE_ASSET_VERSION);
    w_u32(w, 0);
    w_u64(w, 0); /* payload size, patched by the caller */
    w_u64(w, 0); /* checksum, likewise */
    write_skeleton(w, a->skeleton);
    for (int i = 0; i < a->clip_count; i++) st_write_clip(w, a->clips[i]);
    for (int i = 0; i < a->skin_count; i++) write_skin(w, a->skins[i]);
    for (int i = 0; i < a->mesh_count; i++) write_mesh(w, a->meshes[i]);
    if (a->clip_notes) { /* the clip notes' JSON text, unread here (docs/stance-format.md) */
        size_t at = begin_section(w, "META");
        w_bytes(w, a->clip_notes, a->clip_notes_size);
        end_section(w, at);
    }
    if (graph) { /* the compiled graph, last (src/build/graph_write.c) */
        size_t at = begin_section(w, "GRPH");
        w->pos += st_graph_section_write(graph, (const stance_clip *const *)a->clips, a->clip_count, w->buf ? w->buf + w->pos : NULL);
        end_section(w, at);
    }
}

static stance_status check_asset(const stance_asset *a, stance_error *err) {
    if (!a || !a->skeleton)
        return st_fail(err, STANCE_ERR_ARGUMENT, "asset: asset or its skeleton is NULL");
    if (a->clip_count < 0 || a->clip_count > STANCE_MAX_CLIPS || (a->clip_count > 0 && !a->clips))
        return st_fail(err, STANCE_ERR_ARGUMENT, "asset: clip_count %d is not in 0..%d or clips is NULL",
                       a->clip_count, STANCE_MAX_CLIPS);
    for (int i = 0; i < a->clip_count; i++) {
        const stance_clip *c = a->clips[i];
        if (!c) return st_fail(err, STANCE_ERR_ARGUMENT, "asset: clip %d is NULL", i);
        if (c->retarget)
            return st_fail(err, STANCE_ERR_UNSUPPORTED, "asset: clip '%s' is retargeted at run time and cannot be saved "
                           "as it is (stance_retarget_clip_bake makes an ordinary clip of it)", c->name);
        if (c->joint_count != a->skeleton->joint_count)
            return st_fail(err, STANCE_ERR_ARGUMENT, "asset: clip '%s' has %d joints, the skeleton %d",
                           c->name, c->joint_count, a->skeleton->joint_count);
    }
    if (a->clip_notes && (a->clip_notes_size > STANCE_MAX_CLIP_NOTES_BYTES || memchr(a->clip_notes, 0, a->clip_notes_size)))
        return st_fail(err, STANCE_ERR_ARGUMENT, "asset: clip notes of %zu bytes: at most %zu, no byte 0",
                       a->clip_notes_size, STANCE_MAX_CLIP_NOTES_BYTES);
    return check_skins(a, err);
}

/* The graph `d` describes, compiled on the asset's skeleton; every clip it
 * plays must be one of the asset's (they are saved by index). */
static stance_status compile_for(const stance_asset *a, const stance_graph_desc *d, const stance_allocator *al,
                                 stance_graph **out, stance_error *err) {
    if (d->skeleton && d->skeleton != a->skeleton)
        return st_fail(err, STANCE_ERR_ARGUMENT, "graph: the description's skeleton is not the asset's");
    stance_graph_desc on = *d;
    on.skeleton = a->skeleton;
    stance_status s = gb_compile(&on, al, out, err);
    if (!s) s = st_graph_section_check(*out, (const stance_clip *const *)a->clips, a->clip_count, err);
    if (s) gb_destroy(*out), *out = NULL;
    return s;
}

stance_status stance_asset_save_graph_memory(const stance_asset *asset, const stance_graph_desc *graph,
                                             void **out_bytes, size_t *out_size, const stance_allocator *allocator,
                                             stance_error *err) {
    if (!out_bytes || !out_size)
        return st_fail(err, STANCE_ERR_ARGUMENT, "asset save: out_bytes or out_size is NULL");
    *out_bytes = NULL;
    *out_size = 0;
    if (st_check_allocator(allocator, "asset save", err)) return STANCE_ERR_ARGUMENT;
    stance_status s = check_asset(asset, err);
    stance_graph *g = NULL;
    if (!s && graph) s = compile_for(asset, graph, allocator, &g, err);
    if (s) return s;
    writer w = {NULL, 0};
    write_asset(&w, asset, g);
    size_t size = w.pos;
    unsigned char *buf = st_alloc(allocator, size, 16);
    if (!buf) {
        gb_destroy(g);
        return st_fail(err, STANCE_ERR_MEMORY, "asset save: allocation of %zu bytes failed", size);
    }
    w.buf = buf;
    w.pos = 0;
    write_asset(&w, asset, g);
    gb_destroy(g);
    writer head = {buf, 16};
    w_u64(&head, (uint64_t)(size - ST_ASSET_HEADER_BYTES));
    w_u64(&head, stance_asset_checksum(buf + ST_ASSET_HEADER_BYTES, size - ST_ASSET_HEADER_BYTES));
    *out_bytes = buf;
    *out_size = size;
    return st_ok(err);
}

stance_status stance_asset_save_memory(const stance_asset *asset, void **out_bytes, size_t *out_size,
                                       const stance_allocator *allocator, stance_error *err) {
    return stance_asset_save_graph_memory(asset, NULL, out_bytes, out_size, allocator, err);
}

void stance_asset_free_bytes(void *bytes, size_t size, const stance_allocator *allocator) {
    st_free(allocator, bytes, size);
}

stance_status stance_asset_save_file(const stance_asset *asset, const char *path, stance_error *err) {
    return stance_asset_save_graph_file(asset, NULL, path, err);
}

stance_status stance_asset_save_graph_file(const stance_asset *asset, const stance_graph_desc *graph, const char *path,
                                           stance_error *err) {
    if (!path || !path[0]) return st_fail(err, STANCE_ERR_ARGUMENT, "asset save: path is NULL or empty");
    void *bytes = NULL;
    size_t size = 0;
    stance_status s = stance_asset_save_graph_memory(asset, graph, &bytes, &size, NULL, err);
    if (s) return st_asset_prefixed(s, path, err);
    FILE *f = fopen(path, "wb");
    if (!f) {
        int e = errno;
        stance_asset_free_bytes(bytes, size, NULL);
        return st_fail(err, STANCE_ERR_IO, "%s: cannot open for writing: %s", path, strerror(e));
    }
    size_t wrote = fwrite(bytes, 1, size, f);
    int close_failed = fclose(f) != 0;
    stance_asset_free_bytes(bytes, size, NULL);
    if (wrote != size || close_failed) {
        remove(path);
        return st_fail(err, STANCE_ERR_IO, "%s: write failed", path);
    }
    return st_ok(err);
}

