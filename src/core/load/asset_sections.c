/* src/core/load/asset_sections.c - the one reader of the .stance container:
 * the 32-byte header (magic, version, flags, payload size, checksum) and the
 * section heads ({char tag[4], u32 0, u64 size}), walked without allocating.
 * Every length is checked against the buffer before it is used, so a caller
 * gets only sections whose body lies inside the file. Used by the runtime's
 * loader (asset.c) and by the tools' readers of optional sections
 * (src/io/asset_textures.c); what each section holds is theirs. The kinds of
 * section and which version allows them are in asset_internal.h. Also the
 * file's checksum (FNV-1a 64 of the payload) and magic test, public. */
#include "core/load/asset_internal.h"

/* ---- checksum and magic ------------------------------------------------------ */

uint64_t stance_asset_checksum(const void *bytes, size_t size) {
    const unsigned char *p = bytes;
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < size; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

int stance_asset_is_native(const void *bytes, size_t size) {
    return bytes && size >= 8 && !memcmp(bytes, ST_ASSET_MAGIC, 8);
}

/* ---- the walk ------------------------------------------------------------------ */

stance_status st_sections_begin(st_sections *it, const void *bytes, size_t size, stance_error *err) {
    memset(it, 0, sizeof *it);
    const unsigned char *b = bytes;
    if (!b || size < ST_ASSET_HEADER_BYTES)
        return st_fail(err, STANCE_ERR_FORMAT, "too short for a stance file (%zu bytes, the header is %d)", b ? size : 0,
                       ST_ASSET_HEADER_BYTES);
    if (memcmp(b, ST_ASSET_MAGIC, 8)) return st_fail(err, STANCE_ERR_FORMAT, "not a stance file (bad magic)");
    reader r = {b + 8, b + ST_ASSET_HEADER_BYTES, 0};
    const uint32_t version = r_u32(&r), flags = r_u32(&r);
    const uint64_t payload = r_u64(&r), checksum = r_u64(&r);
    if (version < 1 || version > ST_ASSET_VERSION_READ)
        return st_fail(err, STANCE_ERR_UNSUPPORTED, "format version %u, this build reads versions 1..%d", (unsigned)version,
                       ST_ASSET_VERSION_READ);
    if (flags != 0) return st_fail(err, STANCE_ERR_UNSUPPORTED, "unknown header flags 0x%x", (unsigned)flags);
    if (payload != (uint64_t)(size - ST_ASSET_HEADER_BYTES))
        return st_fail(err, STANCE_ERR_FORMAT, "truncated or padded: the header says %llu payload bytes, there are %zu",
                       (unsigned long long)payload, size - ST_ASSET_HEADER_BYTES);
    if (stance_asset_checksum(b + ST_ASSET_HEADER_BYTES, size - ST_ASSET_HEADER_BYTES) != checksum)
        return st_fail(err, STANCE_ERR_FORMAT, "checksum mismatch (the file is corrupted)");
    it->file = b;
    it->p = b + ST_ASSET_HEADER_BYTES;
    it->end = b + size;
    it->version = version;
    return STANCE_OK;
}

int st_sections_next(st_sections *it, st_section *out, stance_error *err) {
    memset(out, 0, sizeof *out);
    if (!it->file || it->p == it->end) return 0;
    reader r = {it->p, it->end, 0};
    r_take(&r, out->tag, 4);
    const uint32_t zero = r_u32(&r);
    const uint64_t len = r_u64(&r);
    if (r.bad || zero != 0 || len > r_left(&r)) {
        st_fail(err, STANCE_ERR_FORMAT, "section %d: bad head or size beyond the end", it->index);
        it->p = it->end;
        return -1;
    }
    out->at = (size_t)(it->p - it->file);
    out->body = r.p;
    out->size = (size_t)len;
    out->index = it->index++;
    out->kind = st_section_kind(out->tag, it->version);
    it->p = r.p + len;
    return 1;
}

int st_section_kind(const unsigned char tag[4], uint32_t version) {
    static const char names[ST_SECTION_GRPH + 1][5] = {"SKEL", "CLIP", "SKIN", "MESH", "META", "", "GRPH"};
    for (int k = 0; k <= ST_SECTION_GRPH; k++)
        if (names[k][0] && !memcmp(tag, names[k], 4)) {
            if ((k == ST_SECTION_SKIN || k == ST_SECTION_MESH) && version < 2) return ST_SECTION_UNKNOWN;
            return k;
        }
    if (st_asset_optional_tag(tag, version)) return ST_SECTION_OPTIONAL;
    return ST_SECTION_UNKNOWN;
}
