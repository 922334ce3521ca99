/* src/core/load/asset_mesh.c - the SKIN and MESH sections of the .stance format
 * (version 2): their byte layout and loading with every count checked against the bytes present before anything is
 * allocated. Skins and meshes are built only through stance_skin_create and
 * stance_mesh_create, so a file gets every check a caller's description
 * does. Section order and the header are in asset.c. Bodies (little-endian):
 *
 *   SKIN  u8 name length (1..63), name bytes
 *         u32 joint_count (1..STANCE_MAX_SKIN_JOINTS)
 *         u32 joints[joint_count]          (skeleton joint of each skin joint)
 *         f32 inverse_bind[16 joint_count] (column-major 4x4 per skin joint)
 *   MESH  u8 name length (1..63), name bytes
 *         i32 skin (-1: rigid, else the index of a SKIN section, 0 first)
 *         u32 flags (bit 0: uvs present; any other bit is rejected)
 *         u32 vertex_count (V), u32 index_count (I, a multiple of 3)
 *         f32 base_color[4] (linear RGBA)
 *         f32 positions[3 V], f32 normals[3 V]
 *         with bit 0: f32 uvs[2 V]
 *         with a skin: u16 joints[4 V] (skin joint indices), f32 weights[4 V]
 *         u32 indices[I]
 *
 * A section's size must be exactly what its counts say. */
#include "core/load/asset_internal.h"

stance_status st_asset_load_skin(reader *r, const stance_skeleton *sk, const stance_allocator *al, int index,
                                 stance_skin **out, stance_error *err) {
    char name[64];
    if (!r_name(r, name, sizeof name)) return st_fail(err, STANCE_ERR_FORMAT, "skin %d: bad name", index);
    uint32_t n = r_u32(r);
    /* each skin joint takes 4 + 64 bytes */
    if (r->bad || n < 1 || n > STANCE_MAX_SKIN_JOINTS || r_left(r) / 68 < n || r_left(r) != 68 * (size_t)n)
        return st_fail(err, STANCE_ERR_FORMAT, "skin %d '%s': joint count %u is not in 1..%d or does not match the section",
                       index, name, (unsigned)n, STANCE_MAX_SKIN_JOINTS);
    scratch s = {al, {0}, {0}, 0};
    int *joints = scratch_alloc(&s, sizeof(int) * n);
    float *bind = scratch_alloc(&s, sizeof(float) * 16 * n);
    stance_status st;
    if (!joints || !bind) {
        st = st_fail(err, STANCE_ERR_MEMORY, "skin %d '%s': allocation for %u joints failed", index, name, (unsigned)n);
    } else {
        for (uint32_t k = 0; k < n; k++) {
            uint32_t j = r_u32(r);
            joints[k] = j > (uint32_t)STANCE_MAX_JOINTS ? -1 : (int)j; /* out of range either way: create says so */
        }
        r_f32n(r, bind, 16 * (size_t)n);
        stance_skin_desc d = {name, (int)n, joints, bind};
        st = r->bad ? st_fail(err, STANCE_ERR_FORMAT, "skin %d '%s': section ends early", index, name)
                    : stance_skin_create(&d, sk, al, out, err);
    }
    scratch_release(&s);
    return st;
}

stance_status st_asset_load_mesh(reader *r, stance_skin *const *skins, int skin_count, const stance_allocator *al,
                                 int index, stance_mesh **out, stance_error *err) {
    char name[64];
    if (!r_name(r, name, sizeof name)) return st_fail(err, STANCE_ERR_FORMAT, "mesh %d: bad name", index);
    int32_t skin = (int32_t)r_u32(r);
    uint32_t flags = r_u32(r), V = r_u32(r), I = r_u32(r);
    float color[4];
    r_f32n(r, color, 4);
    if (r->bad || (flags & ~MESH_UVS))
        return st_fail(err, STANCE_ERR_FORMAT, "mesh %d '%s': bad header or unknown flags", index, name);
    if (skin < -1 || skin >= skin_count)
        return st_fail(err, STANCE_ERR_FORMAT, "mesh %d '%s': skin %d is not in -1..%d", index, name, (int)skin,
                       skin_count - 1);
    if (V < 1 || V > STANCE_MAX_VERTICES || I < 3 || I > STANCE_MAX_INDICES || I % 3)
        return st_fail(err, STANCE_ERR_FORMAT, "mesh %d '%s': %u vertices and %u indices are out of range", index, name,
                       (unsigned)V, (unsigned)I);
    const int uvs = (flags & MESH_UVS) != 0, skinned = skin >= 0;
    /* both counts are bounded, so this cannot overflow */
    size_t need = 24 * (size_t)V + (uvs ? 8 * (size_t)V : 0) + (skinned ? 24 * (size_t)V : 0) + 4 * (size_t)I;
    if (r_left(r) != need)
        return st_fail(err, STANCE_ERR_FORMAT, "mesh %d '%s': %u vertices and %u indices need %zu bytes, the section has %zu",
                       index, name, (unsigned)V, (unsigned)I, need, r_left(r));
    scratch s = {al, {0}, {0}, 0};
    float *pos = scratch_alloc(&s, sizeof(float) * 3 * V);
    float *nrm = scratch_alloc(&s, sizeof(float) * 3 * V);
    float *uv = uvs ? scratch_alloc(&s, sizeof(float) * 2 * V) : NULL;
    uint16_t *jn = skinned ? scratch_alloc(&s, sizeof(uint16_t) * STANCE_SKIN_INFLUENCES * V) : NULL;
    float *wg = skinned ? scratch_alloc(&s, sizeof(float) * STANCE_SKIN_INFLUENCES * V) : NULL;
    uint32_t *idx = scratch_alloc(&s, sizeof(uint32_t) * I);
    stance_status st;
    if (!pos || !nrm || (uvs && !uv) || (skinned && (!jn || !wg)) || !idx) {
        st = st_fail(err, STANCE_ERR_MEMORY, "mesh %d '%s': allocation for %u vertices failed", index, name, (unsigned)V);
        goto done;
    }
    r_f32n(r, pos, 3 * (size_t)V);
    r_f32n(r, nrm, 3 * (size_t)V);
    if (uv) r_f32n(r, uv, 2 * (size_t)V);
    if (skinned) {
        for (size_t i = 0; i < STANCE_SKIN_INFLUENCES * (size_t)V; i++) {
            unsigned char b[2];
            r_take(r, b, 2);
            jn[i] = (uint16_t)(b[0] | b[1] << 8);
        }
        r_f32n(r, wg, STANCE_SKIN_INFLUENCES * (size_t)V);
    }
    for (uint32_t i = 0; i < I; i++) idx[i] = r_u32(r);
    if (r->bad || r_left(r) != 0) {
        st = st_fail(err, STANCE_ERR_FORMAT, "mesh %d '%s': section size does not match its content", index, name);
        goto done;
    }
    stance_mesh_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.skin = skin;
    d.vertex_count = (int)V;
    d.positions = pos;
    d.normals = nrm;
    d.uvs = uv;
    d.joints = jn;
    d.weights = wg;
    d.index_count = (int)I;
    d.indices = idx;
    memcpy(d.base_color, color, sizeof color);
    if (color[0] == 0.0f && color[1] == 0.0f && color[2] == 0.0f && color[3] == 0.0f) {
        /* stored colours are never all 0 (that asks for the default) */
        st = st_fail(err, STANCE_ERR_FORMAT, "mesh %d '%s': base colour is all zero", index, name);
        goto done;
    }
    st = stance_mesh_create(&d, skinned ? skins[skin] : NULL, al, out, err);
done:
    scratch_release(&s);
    return st;
}
