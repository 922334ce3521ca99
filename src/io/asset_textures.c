/* src/io/asset_textures.c - the .stance texture section ("txtr", format
 * version 6): read, check and written into a file's bytes. Owns its layout
 * (docs/stance-format.md, "Textures"):
 *
 *   txtr  u32 image_count N (1..64)
 *         per image: u32 kind (1 PNG, 2 JPEG), u32 size, u8 bytes[size]
 *                    (the encoded image as the source stores it; its first
 *                    bytes are the kind's signature)
 *         u32 mesh_count M (the file's MESH sections)
 *         i32 image[M] (-1: none; else 0..N-1, and that MESH has UVs)
 *
 * An optional section (lowercase tag) of version 6: at most one, after the
 * MESH sections and before GRPH. The runtime's loader skips it
 * (src/core/load/asset.c); the file's header, section heads and checksum are
 * checked here as the loader checks them, so a reader of only this section
 * trusts nothing else. */
#include <stdlib.h>
#include <string.h>

#include "core/load/asset_internal.h"
#include "io/asset_textures.h"
#include "io/files.h"

#define HEAD ST_ASSET_HEADER_BYTES
#define SECTION_HEAD 16
#define MESH_UVS 1u

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
    memset(tex, 0, sizeof *tex);
}

/* The file's sections, checked: MESH count and UV flags, where the texture
 * section and the graph are (offsets of their heads, or 0). */
typedef struct layout {
    uint32_t version;
    int mesh_count;
    unsigned char mesh_uvs[STANCE_MAX_MESHES];
    size_t txtr_at, txtr_len, grph_at;
} layout;

static stance_status walk(const unsigned char *b, size_t size, layout *lay, stance_error *err) {
    memset(lay, 0, sizeof *lay);
    if (!b || size < HEAD || memcmp(b, ST_ASSET_MAGIC, 8)) return st_fail(err, STANCE_ERR_FORMAT, "not a stance file");
    reader h = {b + 8, b + HEAD, 0};
    uint32_t version = r_u32(&h), flags = r_u32(&h);
    uint64_t payload = r_u64(&h), sum = r_u64(&h);
    if (version < 1 || version > ST_ASSET_VERSION_READ || flags != 0)
        return st_fail(err, STANCE_ERR_UNSUPPORTED, "format version %u or header flags 0x%x not read here", (unsigned)version,
                       (unsigned)flags);
    if (payload != (uint64_t)(size - HEAD) || stance_asset_checksum(b + HEAD, size - HEAD) != sum)
        return st_fail(err, STANCE_ERR_FORMAT, "the file is truncated or corrupted (payload size or checksum)");
    lay->version = version;
    reader all = {b + HEAD, b + size, 0};
    while (r_left(&all) > 0) {
        const size_t at = (size_t)(all.p - b);
        const unsigned char *tag = all.p;
        all.p += r_left(&all) >= 4 ? 4 : r_left(&all);
        uint32_t zero = r_u32(&all);
        uint64_t len = r_u64(&all);
        if (all.bad || zero != 0 || len > r_left(&all))
            return st_fail(err, STANCE_ERR_FORMAT, "a section head at byte %zu is bad or runs past the end", at);
        if (!memcmp(tag, "txtr", 4)) {
            if (version < ST_ASSET_VERSION_OPTIONAL)
                return st_fail(err, STANCE_ERR_FORMAT, "texture section: in a version %u file (needs version 6)", (unsigned)version);
            if (lay->txtr_at) return st_fail(err, STANCE_ERR_FORMAT, "texture section: more than one");
            if (lay->grph_at) return st_fail(err, STANCE_ERR_FORMAT, "texture section: after the graph section");
            lay->txtr_at = at, lay->txtr_len = (size_t)len;
        } else if (!memcmp(tag, "MESH", 4)) {
            if (lay->txtr_at) return st_fail(err, STANCE_ERR_FORMAT, "texture section: before a MESH section");
            if (lay->mesh_count == STANCE_MAX_MESHES) return st_fail(err, STANCE_ERR_FORMAT, "more than %d meshes", STANCE_MAX_MESHES);
            reader m = {all.p, all.p + len, 0};
            unsigned n = r_u8(&m);
            r_take(&m, NULL, n);
            (void)r_u32(&m); /* skin */
            uint32_t mflags = r_u32(&m);
            if (m.bad) return st_fail(err, STANCE_ERR_FORMAT, "MESH section %d is too short", lay->mesh_count);
            lay->mesh_uvs[lay->mesh_count++] = (mflags & MESH_UVS) != 0;
        } else if (!memcmp(tag, "GRPH", 4)) {
            lay->grph_at = at;
        }
        all.p += len;
    }
    return STANCE_OK;
}

stance_status stance_textures_read(const void *bytes, size_t size, stance_textures *out, stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "textures: out is NULL");
    memset(out, 0, sizeof *out);
    layout lay;
    stance_status s = walk(bytes, size, &lay, err);
    if (s) return s;
    out->mesh_count = lay.mesh_count;
    for (int i = 0; i < lay.mesh_count; i++) out->mesh_image[i] = -1;
    if (!lay.txtr_at) return st_ok(err);
    const unsigned char *body = (const unsigned char *)bytes + lay.txtr_at + SECTION_HEAD;
    reader r = {body, body + lay.txtr_len, 0};
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
    if (r.bad || m != (uint32_t)lay.mesh_count || r_left(&r) != 4u * m) {
        memset(out, 0, sizeof *out);
        return st_fail(err, STANCE_ERR_FORMAT, "texture section: %u meshes and %zu bytes left for them; the file has %d meshes",
                       (unsigned)m, r_left(&r), lay.mesh_count);
    }
    for (uint32_t i = 0; i < m; i++) {
        int32_t k = (int32_t)r_u32(&r);
        if (k < -1 || k >= (int32_t)n || (k >= 0 && !lay.mesh_uvs[i])) {
            memset(out, 0, sizeof *out);
            return st_fail(err, STANCE_ERR_FORMAT, "texture section: mesh %u's image %d is not -1..%u%s", (unsigned)i, (int)k,
                           (unsigned)n - 1, k >= 0 && k < (int32_t)n ? " with UVs (the mesh has none)" : "");
        }
        out->mesh_image[i] = k;
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

stance_status stance_textures_insert(const void *bytes, size_t size, const stance_textures *tex, void **out,
                                     size_t *out_size, stance_error *err) {
    if (!out || !out_size || !tex) return st_fail(err, STANCE_ERR_ARGUMENT, "textures: tex, out or out_size is NULL");
    *out = NULL, *out_size = 0;
    layout lay;
    stance_status s = walk(bytes, size, &lay, err);
    if (s) return s;
    if (tex->image_count < 1 || tex->image_count > STANCE_TEXTURE_MAX_IMAGES || tex->mesh_count != lay.mesh_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "textures: %d images (1..%d) for %d meshes (the file has %d)", tex->image_count,
                       STANCE_TEXTURE_MAX_IMAGES, tex->mesh_count, lay.mesh_count);
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
    for (int i = 0; i < tex->mesh_count; i++) {
        const int k = tex->mesh_image[i];
        if (k < -1 || k >= tex->image_count || (k >= 0 && !lay.mesh_uvs[i]))
            return st_fail(err, STANCE_ERR_ARGUMENT, "textures: mesh %d's image %d is not -1..%d, or the mesh has no UVs", i, k,
                           tex->image_count - 1);
    }
    const unsigned char *b = bytes;
    /* the sections before (the old texture section left out), the new one, the rest */
    const size_t cut = lay.grph_at ? lay.grph_at : size;
    const size_t old = lay.txtr_at ? SECTION_HEAD + lay.txtr_len : 0;
    const size_t n = size - old + SECTION_HEAD + body;
    unsigned char *o = malloc(n);
    if (!o) return st_fail(err, STANCE_ERR_MEMORY, "textures: allocation of %zu bytes failed", n);
    size_t w = 0;
    if (lay.txtr_at) { /* (before the graph: walk() checked it) */
        memcpy(o, b, lay.txtr_at);
        memcpy(o + lay.txtr_at, b + lay.txtr_at + old, cut - lay.txtr_at - old);
        w = cut - old;
    } else {
        memcpy(o, b, cut);
        w = cut;
    }
    memcpy(o + w, "txtr", 4);
    put_u32(o + w + 4, 0);
    put_u64(o + w + 8, (uint64_t)body);
    w += SECTION_HEAD;
    put_u32(o + w, (uint32_t)tex->image_count), w += 4;
    for (int i = 0; i < tex->image_count; i++) {
        put_u32(o + w, (uint32_t)tex->images[i].kind);
        put_u32(o + w + 4, (uint32_t)tex->images[i].size);
        memcpy(o + w + 8, tex->images[i].bytes, tex->images[i].size);
        w += 8 + tex->images[i].size;
    }
    put_u32(o + w, (uint32_t)tex->mesh_count), w += 4;
    for (int i = 0; i < tex->mesh_count; i++) put_u32(o + w, (uint32_t)tex->mesh_image[i]), w += 4;
    memcpy(o + w, b + cut, size - cut);
    w += size - cut;
    put_u32(o + 8, ST_ASSET_VERSION_OPTIONAL);
    put_u64(o + 16, (uint64_t)(w - HEAD));
    put_u64(o + 24, stance_asset_checksum(o + HEAD, w - HEAD));
    *out = o, *out_size = w;
    return st_ok(err);
}

stance_status stance_textures_save_file(const stance_asset *asset, const stance_graph_desc *graph, const stance_textures *tex,
                                        const char *path, stance_error *err) {
    if (!tex || tex->image_count == 0) return stance_asset_save_graph_file(asset, graph, path, err);
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
