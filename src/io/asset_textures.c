/* src/io/asset_textures.c - the .stance texture and vertex colour sections
 * ("txtr" and "vcol", format version 6): read, checked and written into a
 * file's bytes. Owns their layout (docs/stance-format.md, "Textures" and
 * "Vertex colours"):
 *
 *   txtr  u32 image_count N (1..64)
 *         per image: u32 kind (1 PNG, 2 JPEG), u32 size, u8 bytes[size]
 *                    (the encoded image as the source stores it; its first
 *                    bytes are the kind's signature)
 *         u32 mesh_count M (the file's MESH sections)
 *         i32 image[M] (-1: none; else 0..N-1, and that MESH has UVs)
 *   vcol  u32 mesh_count M (the file's MESH sections)
 *         per mesh: u32 V (0: none; else that MESH's vertex count),
 *                   u16 rgba[4 V] (value / 65535, linear, glTF COLOR_0)
 *         (at least one mesh has colours)
 *
 * Optional sections (lowercase tags) of version 6: each at most once, after
 * the MESH sections and before GRPH. The runtime's loader skips them
 * (src/core/load/asset.c); the file's header, section heads and checksum are
 * checked here by the loader's own walk (asset_sections.c), so a reader of
 * only these sections trusts nothing else. */
#include <stdlib.h>
#include <string.h>

#include "core/load/asset_internal.h"
#include "io/asset_textures.h"
#include "io/files.h"

#define HEAD ST_ASSET_HEADER_BYTES
#define SECTION_HEAD 16

static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};

const char *stance_texture_kind_name(int kind) {
    return kind == STANCE_TEXTURE_PNG ? "png" : kind == STANCE_TEXTURE_JPEG ? "jpeg" : "unknown";
}

int stance_texture_sniff(const unsigned char *b, size_t n) {
    if (b && n >= 8 && !memcmp(b, png_sig, 8)) return STANCE_TEXTURE_PNG;
    if (b && n >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) return STANCE_TEXTURE_JPEG;
    return 0;
}

void stance_textures_free(stance_textures *tex) {
    if (!tex) return;
    free(tex->owned);
    free(tex->owned_colors);
    memset(tex, 0, sizeof *tex);
}

/* The file's sections, checked: MESH count, UV flags and vertex counts, where
 * the texture and vertex colour sections and the graph are (offsets of their
 * heads, or 0). */
typedef struct layout {
    int mesh_count;
    unsigned char mesh_uvs[STANCE_MAX_MESHES];
    uint32_t mesh_vertices[STANCE_MAX_MESHES];
    st_section txtr, vcol;
    size_t grph_at;
} layout;

/* One optional section of ours ("txtr" or "vcol", named `what`) at most once, after the MESHes, before GRPH. */
static stance_status place(const layout *lay, const st_section *sec, st_section *slot, uint32_t version, const char *what,
                           stance_error *err) {
    if (version < ST_ASSET_VERSION_OPTIONAL)
        return st_fail(err, STANCE_ERR_FORMAT, "%s section: in a version %u file (needs version 6)", what, (unsigned)version);
    if (slot->at) return st_fail(err, STANCE_ERR_FORMAT, "%s section: more than one", what);
    if (lay->grph_at) return st_fail(err, STANCE_ERR_FORMAT, "%s section: after the graph section", what);
    *slot = *sec;
    return STANCE_OK;
}

static stance_status walk(const unsigned char *b, size_t size, layout *lay, stance_error *err) {
    memset(lay, 0, sizeof *lay);
    st_sections it;
    stance_status s = st_sections_begin(&it, b, size, err);
    if (s) return s;
    st_section sec;
    int more;
    while ((more = st_sections_next(&it, &sec, err)) > 0) {
        if (!memcmp(sec.tag, "txtr", 4)) {
            if ((s = place(lay, &sec, &lay->txtr, it.version, "texture", err))) return s;
        } else if (!memcmp(sec.tag, "vcol", 4)) {
            if ((s = place(lay, &sec, &lay->vcol, it.version, "vertex colour", err))) return s;
        } else if (sec.kind == ST_SECTION_MESH) {
            if (lay->txtr.at) return st_fail(err, STANCE_ERR_FORMAT, "texture section: before a MESH section");
            if (lay->vcol.at) return st_fail(err, STANCE_ERR_FORMAT, "vertex colour section: before a MESH section");
            if (lay->mesh_count == STANCE_MAX_MESHES) return st_fail(err, STANCE_ERR_FORMAT, "more than %d meshes", STANCE_MAX_MESHES);
            reader m = {sec.body, sec.body + sec.size, 0};
            unsigned n = r_u8(&m);
            r_take(&m, NULL, n);
            (void)r_u32(&m); /* skin */
            const uint32_t mflags = r_u32(&m), vertices = r_u32(&m);
            if (m.bad) return st_fail(err, STANCE_ERR_FORMAT, "MESH section %d is too short", lay->mesh_count);
            lay->mesh_vertices[lay->mesh_count] = vertices;
            lay->mesh_uvs[lay->mesh_count++] = (mflags & MESH_UVS) != 0;
        } else if (sec.kind == ST_SECTION_GRPH) {
            lay->grph_at = sec.at;
        }
    }
    return more < 0 ? STANCE_ERR_FORMAT : STANCE_OK;
}

/* The texture section's body into out (images point into it). */
static stance_status read_txtr(const layout *lay, stance_textures *out, stance_error *err) {
    reader r = {lay->txtr.body, lay->txtr.body + lay->txtr.size, 0};
    uint32_t n = r_u32(&r);
    if (r.bad || n < 1 || n > STANCE_TEXTURE_MAX_IMAGES)
        return st_fail(err, STANCE_ERR_FORMAT, "texture section: %u images (1..%d)", (unsigned)n, STANCE_TEXTURE_MAX_IMAGES);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t kind = r_u32(&r), bytes_n = r_u32(&r);
        if (r.bad || bytes_n > r_left(&r))
            return st_fail(err, STANCE_ERR_FORMAT, "texture section: image %u's %u bytes run past the section's end", (unsigned)i,
                           (unsigned)bytes_n);
        if ((kind != STANCE_TEXTURE_PNG && kind != STANCE_TEXTURE_JPEG) || stance_texture_sniff(r.p, bytes_n) != (int)kind)
            return st_fail(err, STANCE_ERR_FORMAT, "texture section: image %u is kind %u but its bytes are %s", (unsigned)i,
                           (unsigned)kind, stance_texture_kind_name(stance_texture_sniff(r.p, bytes_n)));
        out->images[i] = (stance_texture_image){(int)kind, r.p, bytes_n};
        r.p += bytes_n;
    }
    out->image_count = (int)n;
    uint32_t m = r_u32(&r);
    if (r.bad || m != (uint32_t)lay->mesh_count || r_left(&r) != 4u * m)
        return st_fail(err, STANCE_ERR_FORMAT, "texture section: %u meshes and %zu bytes left for them; the file has %d meshes",
                       (unsigned)m, r_left(&r), lay->mesh_count);
    for (uint32_t i = 0; i < m; i++) {
        int32_t k = (int32_t)r_u32(&r);
        if (k < -1 || k >= (int32_t)n || (k >= 0 && !lay->mesh_uvs[i]))
            return st_fail(err, STANCE_ERR_FORMAT, "texture section: mesh %u's image %d is not -1..%u%s", (unsigned)i, (int)k,
                           (unsigned)n - 1, k >= 0 && k < (int32_t)n ? " with UVs (the mesh has none)" : "");
        out->mesh_image[i] = k;
    }
    return STANCE_OK;
}

/* The vertex colour section's body into out (colours point into it). */
static stance_status read_vcol(const layout *lay, stance_textures *out, stance_error *err) {
    reader r = {lay->vcol.body, lay->vcol.body + lay->vcol.size, 0};
    const uint32_t m = r_u32(&r);
    if (r.bad || m != (uint32_t)lay->mesh_count)
        return st_fail(err, STANCE_ERR_FORMAT, "vertex colour section: %u meshes; the file has %d", (unsigned)m, lay->mesh_count);
    for (uint32_t i = 0; i < m; i++) {
        const uint32_t v = r_u32(&r);
        if (r.bad || (v != 0 && v != lay->mesh_vertices[i]))
            return st_fail(err, STANCE_ERR_FORMAT, "vertex colour section: mesh %u has %u colours (0 or its %u vertices)%s",
                           (unsigned)i, (unsigned)v, (unsigned)lay->mesh_vertices[i], r.bad ? ", past the section's end" : "");
        if (v == 0) continue;
        if (r_left(&r) / 8 < v)
            return st_fail(err, STANCE_ERR_FORMAT, "vertex colour section: mesh %u's %u colours run past the section's end",
                           (unsigned)i, (unsigned)v);
        out->mesh_colors[i] = r.p;
        out->color_count++;
        r.p += 8 * (size_t)v;
    }
    if (r_left(&r) != 0 || out->color_count == 0)
        return st_fail(err, STANCE_ERR_FORMAT, "vertex colour section: %s",
                       r_left(&r) ? "bytes after the last mesh's colours" : "no mesh has colours");
    return STANCE_OK;
}

stance_status stance_textures_read(const void *bytes, size_t size, stance_textures *out, stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "textures: out is NULL");
    memset(out, 0, sizeof *out);
    layout lay;
    stance_status s = walk(bytes, size, &lay, err);
    if (s) return s;
    out->mesh_count = lay.mesh_count;
    for (int i = 0; i < lay.mesh_count; i++) out->mesh_image[i] = -1, out->mesh_vertices[i] = (int)lay.mesh_vertices[i];
    if (lay.txtr.at && (s = read_txtr(&lay, out, err))) {
        memset(out, 0, sizeof *out);
        return s;
    }
    if (lay.vcol.at && (s = read_vcol(&lay, out, err))) {
        memset(out, 0, sizeof *out);
        return s;
    }
    return st_ok(err);
}

static void put_u32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void put_u64(unsigned char *p, uint64_t v) {
    put_u32(p, (uint32_t)v);
    put_u32(p + 4, (uint32_t)(v >> 32));
}

static int has_looks(const stance_textures *tex) { return tex->image_count > 0 || tex->color_count > 0; }

/* Checks tex against the file's layout: what stance_textures_insert writes. */
static stance_status check_looks(const stance_textures *tex, const layout *lay, size_t *txtr_body, size_t *vcol_body,
                                 stance_error *err) {
    if (tex->image_count < 0 || tex->image_count > STANCE_TEXTURE_MAX_IMAGES || tex->mesh_count != lay->mesh_count ||
        !has_looks(tex))
        return st_fail(err, STANCE_ERR_ARGUMENT, "textures: %d images (0..%d) and %d meshes with colours for %d meshes (the file has %d)",
                       tex->image_count, STANCE_TEXTURE_MAX_IMAGES, tex->color_count, tex->mesh_count, lay->mesh_count);
    size_t body = 8 + 4 * (size_t)tex->mesh_count, total = 0;
    for (int i = 0; i < tex->image_count; i++) {
        const stance_texture_image *im = &tex->images[i];
        if (!im->bytes || stance_texture_sniff(im->bytes, im->size) != im->kind || im->size > 0xFFFFFFFFu)
            return st_fail(err, STANCE_ERR_ARGUMENT, "textures: image %d is not the PNG or JPEG its kind says", i);
        total += im->size;
        if (total > STANCE_TEXTURE_MAX_BYTES)
            return st_fail(err, STANCE_ERR_ARGUMENT, "textures: the images take more than %zu bytes", STANCE_TEXTURE_MAX_BYTES);
        body += 8 + im->size;
    }
    *txtr_body = tex->image_count ? body : 0;
    int colored = 0;
    body = 4 + 4 * (size_t)tex->mesh_count;
    for (int i = 0; i < tex->mesh_count; i++) {
        const int k = tex->mesh_image[i];
        if (tex->image_count && (k < -1 || k >= tex->image_count || (k >= 0 && !lay->mesh_uvs[i])))
            return st_fail(err, STANCE_ERR_ARGUMENT, "textures: mesh %d's image %d is not -1..%d, or the mesh has no UVs", i, k,
                           tex->image_count - 1);
        if (tex->mesh_colors[i]) {
            if (tex->mesh_vertices[i] != (int)lay->mesh_vertices[i])
                return st_fail(err, STANCE_ERR_ARGUMENT, "textures: mesh %d's colours are for %d vertices, it has %u", i,
                               tex->mesh_vertices[i], (unsigned)lay->mesh_vertices[i]);
            body += 8 * (size_t)lay->mesh_vertices[i];
            colored++;
        }
    }
    if (colored != tex->color_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "textures: color_count %d, but %d meshes have colours", tex->color_count, colored);
    *vcol_body = colored ? body : 0;
    return STANCE_OK;
}

static unsigned char *put_head(unsigned char *o, const char tag[4], size_t body) {
    memcpy(o, tag, 4);
    put_u32(o + 4, 0);
    put_u64(o + 8, (uint64_t)body);
    return o + SECTION_HEAD;
}

stance_status stance_textures_insert(const void *bytes, size_t size, const stance_textures *tex, void **out,
                                     size_t *out_size, stance_error *err) {
    if (!out || !out_size || !tex) return st_fail(err, STANCE_ERR_ARGUMENT, "textures: tex, out or out_size is NULL");
    *out = NULL, *out_size = 0;
    layout lay;
    stance_status s = walk(bytes, size, &lay, err);
    if (s) return s;
    size_t txtr_body = 0, vcol_body = 0;
    if ((s = check_looks(tex, &lay, &txtr_body, &vcol_body, err))) return s;
    const size_t old = (lay.txtr.at ? SECTION_HEAD + lay.txtr.size : 0) + (lay.vcol.at ? SECTION_HEAD + lay.vcol.size : 0);
    const size_t n = size - old + (txtr_body ? SECTION_HEAD + txtr_body : 0) + (vcol_body ? SECTION_HEAD + vcol_body : 0);
    unsigned char *o = malloc(n), *w = o;
    if (!o) return st_fail(err, STANCE_ERR_MEMORY, "textures: allocation of %zu bytes failed", n);
    /* the header, the sections before the graph but the old texture and colour sections, the new ones, the graph */
    const unsigned char *b = bytes;
    memcpy(w, b, HEAD), w += HEAD;
    st_sections it;
    st_section sec;
    st_sections_begin(&it, b, size, NULL); /* (walk checked it) */
    while (st_sections_next(&it, &sec, NULL) > 0 && sec.kind != ST_SECTION_GRPH)
        if (sec.at != lay.txtr.at && sec.at != lay.vcol.at) memcpy(w, b + sec.at, SECTION_HEAD + sec.size), w += SECTION_HEAD + sec.size;
    if (txtr_body) {
        w = put_head(w, "txtr", txtr_body);
        put_u32(w, (uint32_t)tex->image_count), w += 4;
        for (int i = 0; i < tex->image_count; i++) {
            put_u32(w, (uint32_t)tex->images[i].kind);
            put_u32(w + 4, (uint32_t)tex->images[i].size);
            memcpy(w + 8, tex->images[i].bytes, tex->images[i].size);
            w += 8 + tex->images[i].size;
        }
        put_u32(w, (uint32_t)tex->mesh_count), w += 4;
        for (int i = 0; i < tex->mesh_count; i++) put_u32(w, (uint32_t)tex->mesh_image[i]), w += 4;
    }
    if (vcol_body) {
        w = put_head(w, "vcol", vcol_body);
        put_u32(w, (uint32_t)tex->mesh_count), w += 4;
        for (int i = 0; i < tex->mesh_count; i++) {
            const size_t v = tex->mesh_colors[i] ? lay.mesh_vertices[i] : 0;
            put_u32(w, (uint32_t)v), w += 4;
            if (v) memcpy(w, tex->mesh_colors[i], 8 * v), w += 8 * v;
        }
    }
    if (lay.grph_at) memcpy(w, b + lay.grph_at, size - lay.grph_at), w += size - lay.grph_at;
    put_u32(o + 8, ST_ASSET_VERSION_OPTIONAL);
    put_u64(o + 16, (uint64_t)(n - HEAD));
    put_u64(o + 24, stance_asset_checksum(o + HEAD, n - HEAD));
    *out = o, *out_size = (size_t)(w - o);
    return st_ok(err);
}

stance_status stance_textures_save_file(const stance_asset *asset, const stance_graph_desc *graph, const stance_textures *tex,
                                        const char *path, stance_error *err) {
    if (!tex || !has_looks(tex)) return stance_asset_save_graph_file(asset, graph, path, err);
    if (!path || !path[0]) return st_fail(err, STANCE_ERR_ARGUMENT, "asset save: path is NULL or empty");
    void *bytes = NULL, *with = NULL;
    size_t size = 0, with_size = 0;
    stance_status s = stance_asset_save_graph_memory(asset, graph, &bytes, &size, NULL, err);
    if (!s) s = stance_textures_insert(bytes, size, tex, &with, &with_size, err);
    stance_asset_free_bytes(bytes, size, NULL);
    if (!s) s = stance_io_write_file(path, with, with_size, err);
    free(with);
    return s ? st_asset_prefixed(s, path, err) : s;
}
