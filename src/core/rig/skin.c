/* src/core/rig/skin.c - skins, skinned meshes and the per-frame skin matrices.
 *
 * Owns: the validation and the one-block layout of stance_skin and
 * stance_mesh, the normals a mesh gets when it has none (area-weighted), and
 * stance_skin_matrices, written as SoA loops over 8 skin joints at a time
 * so the compiler vectorizes the matrix arithmetic. No global state; the
 * per-frame call allocates nothing. */
#include <string.h>

#include "core/base/internal.h"
#include "stance/skin.h"

#define BLOCK 8

/* ---- skins ------------------------------------------------------------------ */

stance_status stance_skin_create(const stance_skin_desc *desc, const stance_skeleton *skeleton,
                                 const stance_allocator *allocator, stance_skin **out,
                                 stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "skin: out is NULL");
    *out = NULL;
    if (!desc || !skeleton) return st_fail(err, STANCE_ERR_ARGUMENT, "skin: desc or skeleton is NULL");
    if (allocator && (!allocator->alloc != !allocator->free))
        return st_fail(err, STANCE_ERR_ARGUMENT, "skin: allocator has alloc or free but not both");
    char name[64] = "skin";
    if (desc->name && desc->name[0] && !st_copy_name(name, sizeof name, desc->name))
        return st_fail(err, STANCE_ERR_ARGUMENT, "skin: name is longer than 63 bytes");
    const int n = desc->joint_count;
    if (n < 1 || n > STANCE_MAX_SKIN_JOINTS)
        return st_fail(err, STANCE_ERR_ARGUMENT, "skin '%s': joint_count %d is not in 1..%d", name, n,
                       STANCE_MAX_SKIN_JOINTS);
    if (!desc->joints) return st_fail(err, STANCE_ERR_ARGUMENT, "skin '%s': joints is NULL", name);
    for (int k = 0; k < n; k++)
        if (desc->joints[k] < 0 || desc->joints[k] >= skeleton->joint_count)
            return st_fail(err, STANCE_ERR_ARGUMENT, "skin '%s': joint %d is skeleton joint %d, not in 0..%d",
                           name, k, desc->joints[k], skeleton->joint_count - 1);
    if (desc->inverse_bind) {
        char why[240];
        for (int k = 0; k < n; k++) /* issue 22: the limits of stance/base.h */
            if (st_check_values(ST_INVERSE_BIND, desc->inverse_bind + 16 * (size_t)k, why, sizeof why))
                return st_fail(err, STANCE_ERR_VALUE, "skin '%s': inverse bind matrix %d %s", name, k, why);
    }

    const size_t padded = (size_t)st_pad8(n);
    size_t off_joints = st_align_up(sizeof(stance_skin), 64);
    size_t off_bind = st_align_up(off_joints + sizeof(int) * padded, 64);
    size_t off_rows = st_align_up(off_bind + sizeof(float) * 16 * (size_t)n, 64);
    size_t bytes = off_rows + sizeof(float) * 12 * padded;
    stance_allocator al = st_allocator(allocator);
    unsigned char *mem = st_alloc(&al, bytes, 64);
    if (!mem) return st_fail(err, STANCE_ERR_MEMORY, "skin '%s': allocation of %zu bytes failed", name, bytes);
    stance_skin *skin = (stance_skin *)mem;
    int *joints = (int *)(mem + off_joints); /* padding lanes read joint 0 */
    float *bind = (float *)(mem + off_bind);
    float *rows = (float *)(mem + off_rows);
    memcpy(joints, desc->joints, sizeof(int) * (size_t)n);
    for (int k = 0; k < n; k++) {
        float *m = bind + 16 * (size_t)k;
        if (desc->inverse_bind)
            memcpy(m, desc->inverse_bind + 16 * (size_t)k, sizeof(float) * 16);
        else
            m[0] = m[5] = m[10] = m[15] = 1.0f;
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 3; r++) rows[(size_t)(3 * c + r) * padded + (size_t)k] = m[4 * c + r];
    }
    memcpy(skin->name, name, sizeof name);
    skin->joint_count = n;
    skin->joints = joints;
    skin->inverse_bind = bind;
    skin->skeleton_joint_count = skeleton->joint_count;
    skin->bind_rows = rows;
    skin->allocator = al;
    skin->bytes = bytes;
    *out = skin;
    return st_ok(err);
}

void stance_skin_destroy(stance_skin *skin) {
    if (!skin) return;
    stance_allocator al = skin->allocator;
    st_free(&al, skin, skin->bytes);
}

/* Model pose transform -> affine [R S | t] for 8 skin joints, then times the
 * inverse bind, all as arrays of 8 lanes; the last step transposes into the
 * caller's column-major matrices. */
stance_status stance_skin_matrices(const stance_skin *skin, const stance_pose *model, float *matrices,
                                   int matrix_count, stance_error *err) {
    if (!skin || !model || !matrices || !model->memory || !model->tx || !model->qx || !model->sx)
        return st_fail(err, STANCE_ERR_ARGUMENT, "skin matrices: %s", !skin ? "skin is NULL" : !matrices ?
                       "matrices is NULL" : "model is NULL or not bound to memory");
    if (model->joint_count != skin->skeleton_joint_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "skin matrices: the model pose has %d joints, the skin's skeleton %d",
                       model->joint_count, skin->skeleton_joint_count);
    if (matrix_count < skin->joint_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "skin matrices: room for %d matrices, the skin '%s' has %d joints",
                       matrix_count, skin->name, skin->joint_count);
    const int n = skin->joint_count;
    const size_t padded = (size_t)st_pad8(n);
    const int *joints = skin->joints;
    const float *rows = skin->bind_rows;
    for (int b = 0; b < n; b += BLOCK) {
        float qx[BLOCK], qy[BLOCK], qz[BLOCK], qw[BLOCK], sx[BLOCK], sy[BLOCK], sz[BLOCK];
        float m[12][BLOCK], o[12][BLOCK];
        for (int l = 0; l < BLOCK; l++) { /* gather (padding lanes read joint 0) */
            int j = joints[b + l];
            qx[l] = model->qx[j], qy[l] = model->qy[j], qz[l] = model->qz[j], qw[l] = model->qw[j];
            sx[l] = model->sx[j], sy[l] = model->sy[j], sz[l] = model->sz[j];
            m[9][l] = model->tx[j], m[10][l] = model->ty[j], m[11][l] = model->tz[j];
        }
        for (int l = 0; l < BLOCK; l++) {
            float x = qx[l], y = qy[l], z = qz[l], w = qw[l];
            m[0][l] = (1 - 2 * (y * y + z * z)) * sx[l];
            m[1][l] = (2 * (x * y + z * w)) * sx[l];
            m[2][l] = (2 * (x * z - y * w)) * sx[l];
            m[3][l] = (2 * (x * y - z * w)) * sy[l];
            m[4][l] = (1 - 2 * (x * x + z * z)) * sy[l];
            m[5][l] = (2 * (y * z + x * w)) * sy[l];
            m[6][l] = (2 * (x * z + y * w)) * sz[l];
            m[7][l] = (2 * (y * z - x * w)) * sz[l];
            m[8][l] = (1 - 2 * (x * x + y * y)) * sz[l];
        }
        /* o(r, c) = sum_k m(r, k) bind(k, c), plus m(r, 3) in the last column */
        const float *bk = rows + b;
        for (int c = 0; c < 4; c++) {
            const float *b0 = bk + (size_t)(3 * c) * padded, *b1 = b0 + padded, *b2 = b1 + padded;
            for (int r = 0; r < 3; r++) {
                const float *m0 = m[r], *m1 = m[3 + r], *m2 = m[6 + r], *mt = m[9 + r];
                float *dst = o[3 * c + r];
                const float add = c == 3 ? 1.0f : 0.0f;
                for (int l = 0; l < BLOCK; l++) dst[l] = m0[l] * b0[l] + m1[l] * b1[l] + m2[l] * b2[l] + add * mt[l];
            }
        }
        const int lanes = n - b < BLOCK ? n - b : BLOCK;
        for (int l = 0; l < lanes; l++) {
            float *dst = matrices + (size_t)(b + l) * 16;
            dst[0] = o[0][l], dst[1] = o[1][l], dst[2] = o[2][l], dst[3] = 0.0f;
            dst[4] = o[3][l], dst[5] = o[4][l], dst[6] = o[5][l], dst[7] = 0.0f;
            dst[8] = o[6][l], dst[9] = o[7][l], dst[10] = o[8][l], dst[11] = 0.0f;
            dst[12] = o[9][l], dst[13] = o[10][l], dst[14] = o[11][l], dst[15] = 1.0f;
        }
    }
    return st_ok(err);
}

/* ---- meshes ----------------------------------------------------------------- */

/* Area-weighted vertex normals: each triangle adds its edge cross product
 * (twice its area, along its normal) to its three vertices; a vertex whose
 * sum is zero (only degenerate triangles, or none) gets +Y. */
static void compute_normals(float *normals, const float *p, int vertex_count, const uint32_t *idx,
                            int index_count) {
    memset(normals, 0, sizeof(float) * 3 * (size_t)vertex_count);
    for (int t = 0; t < index_count; t += 3) {
        const float *a = p + 3 * (size_t)idx[t], *b = p + 3 * (size_t)idx[t + 1], *c = p + 3 * (size_t)idx[t + 2];
        float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        float e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        float cr[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        for (int v = 0; v < 3; v++) {
            float *nv = normals + 3 * (size_t)idx[t + v];
            nv[0] += cr[0], nv[1] += cr[1], nv[2] += cr[2];
        }
    }
    for (int v = 0; v < vertex_count; v++) {
        float *nv = normals + 3 * (size_t)v;
        /* scale by the largest component first so the square cannot overflow */
        float big = fmaxf(fabsf(nv[0]), fmaxf(fabsf(nv[1]), fabsf(nv[2])));
        if (!(big > 0.0f) || !st_finite(big)) {
            nv[0] = 0.0f, nv[1] = 1.0f, nv[2] = 0.0f;
            continue;
        }
        float x = nv[0] / big, y = nv[1] / big, z = nv[2] / big;
        float inv = 1.0f / sqrtf(x * x + y * y + z * z);
        nv[0] = x * inv, nv[1] = y * inv, nv[2] = z * inv;
    }
}

static stance_status check_mesh(const stance_mesh_desc *d, const stance_skin *skin, const char *name,
                                stance_error *err) {
    const int V = d->vertex_count;
    if (V < 1 || V > STANCE_MAX_VERTICES)
        return st_fail(err, STANCE_ERR_ARGUMENT, "mesh '%s': vertex_count %d is not in 1..%d", name, V, STANCE_MAX_VERTICES);
    if (d->index_count < 3 || d->index_count > STANCE_MAX_INDICES || d->index_count % 3)
        return st_fail(err, STANCE_ERR_ARGUMENT, "mesh '%s': index_count %d is not a multiple of 3 in 3..%d", name,
                       d->index_count, STANCE_MAX_INDICES);
    if (!d->positions || !d->indices)
        return st_fail(err, STANCE_ERR_ARGUMENT, "mesh '%s': positions or indices is NULL", name);
    if (skin) {
        if (d->skin < 0)
            return st_fail(err, STANCE_ERR_ARGUMENT, "mesh '%s': has a skin but its skin index is %d", name, d->skin);
        if (!d->joints || !d->weights)
            return st_fail(err, STANCE_ERR_ARGUMENT, "mesh '%s': a skinned mesh needs joints and weights", name);
    } else {
        if (d->skin != -1)
            return st_fail(err, STANCE_ERR_ARGUMENT, "mesh '%s': skin index %d without a skin (a rigid mesh has -1)", name, d->skin);
        if (d->joints || d->weights)
            return st_fail(err, STANCE_ERR_ARGUMENT, "mesh '%s': joints or weights given for a rigid mesh", name);
    }
    char why[200];
    for (int v = 0; v < V; v++) {
        const float *p = d->positions + 3 * (size_t)v;
        if (st_check_values(ST_TRANSLATION, p, why, sizeof why)) /* a position: the limits of stance/base.h */
            return st_fail(err, STANCE_ERR_VALUE, "mesh '%s': vertex %d position: %s", name, v, why);
        if (d->normals) {
            const float *nv = d->normals + 3 * (size_t)v;
            if (!st_finite_n(nv, 3) || !(nv[0] * nv[0] + nv[1] * nv[1] + nv[2] * nv[2] > 1e-12f) ||
                !(fabsf(nv[0]) <= 1e3f && fabsf(nv[1]) <= 1e3f && fabsf(nv[2]) <= 1e3f))
                return st_fail(err, STANCE_ERR_VALUE, "mesh '%s': vertex %d normal (%g %g %g) is not a finite non-zero vector",
                               name, v, (double)nv[0], (double)nv[1], (double)nv[2]);
        }
        if (d->uvs && !st_finite_n(d->uvs + 2 * (size_t)v, 2))
            return st_fail(err, STANCE_ERR_VALUE, "mesh '%s': vertex %d uv is not finite", name, v);
        if (skin) {
            const uint16_t *jv = d->joints + STANCE_SKIN_INFLUENCES * (size_t)v;
            const float *wv = d->weights + STANCE_SKIN_INFLUENCES * (size_t)v;
            float sum = 0.0f;
            for (int k = 0; k < STANCE_SKIN_INFLUENCES; k++) {
                if (jv[k] >= skin->joint_count)
                    return st_fail(err, STANCE_ERR_ARGUMENT, "mesh '%s': vertex %d joint index %u is not below the skin's %d joints",
                                   name, v, (unsigned)jv[k], skin->joint_count);
                if (!st_finite(wv[k]) || wv[k] < 0.0f)
                    return st_fail(err, STANCE_ERR_VALUE, "mesh '%s': vertex %d weight %g is not finite and >= 0",
                                   name, v, (double)wv[k]);
                sum += wv[k];
            }
            if (!(fabsf(sum - 1.0f) <= 1e-3f))
                return st_fail(err, STANCE_ERR_VALUE, "mesh '%s': vertex %d weights sum to %g, not 1 (within 1e-3)",
                               name, v, (double)sum);
        }
    }
    for (int i = 0; i < d->index_count; i++)
        if (d->indices[i] >= (uint32_t)V)
            return st_fail(err, STANCE_ERR_ARGUMENT, "mesh '%s': index %d is vertex %u, not below %d", name, i,
                           (unsigned)d->indices[i], V);
    for (int c = 0; c < 4; c++)
        if (!st_finite(d->base_color[c]) || d->base_color[c] < 0.0f || d->base_color[c] > 1.0f)
            return st_fail(err, STANCE_ERR_VALUE, "mesh '%s': base colour component %d (%g) is not in [0, 1]", name, c,
                           (double)d->base_color[c]);
    return STANCE_OK;
}

stance_status stance_mesh_create(const stance_mesh_desc *desc, const stance_skin *skin,
                                 const stance_allocator *allocator, stance_mesh **out,
                                 stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "mesh: out is NULL");
    *out = NULL;
    if (!desc) return st_fail(err, STANCE_ERR_ARGUMENT, "mesh: desc is NULL");
    if (allocator && (!allocator->alloc != !allocator->free))
        return st_fail(err, STANCE_ERR_ARGUMENT, "mesh: allocator has alloc or free but not both");
    char name[64] = "mesh";
    if (desc->name && desc->name[0] && !st_copy_name(name, sizeof name, desc->name))
        return st_fail(err, STANCE_ERR_ARGUMENT, "mesh: name is longer than 63 bytes");
    stance_status s = check_mesh(desc, skin, name, err);
    if (s) return s;

    const size_t V = (size_t)desc->vertex_count, I = (size_t)desc->index_count;
    size_t off_pos = st_align_up(sizeof(stance_mesh), 64);
    size_t off_nrm = st_align_up(off_pos + sizeof(float) * 3 * V, 64);
    size_t off_uv = st_align_up(off_nrm + sizeof(float) * 3 * V, 64);
    size_t off_jnt = st_align_up(off_uv + (desc->uvs ? sizeof(float) * 2 * V : 0), 64);
    size_t off_wgt = st_align_up(off_jnt + (skin ? sizeof(uint16_t) * STANCE_SKIN_INFLUENCES * V : 0), 64);
    size_t off_idx = st_align_up(off_wgt + (skin ? sizeof(float) * STANCE_SKIN_INFLUENCES * V : 0), 64);
    size_t bytes = off_idx + sizeof(uint32_t) * I;
    stance_allocator al = st_allocator(allocator);
    unsigned char *mem = st_alloc(&al, bytes, 64);
    if (!mem) return st_fail(err, STANCE_ERR_MEMORY, "mesh '%s': allocation of %zu bytes failed", name, bytes);
    stance_mesh *m = (stance_mesh *)mem;
    float *pos = (float *)(mem + off_pos), *nrm = (float *)(mem + off_nrm);
    uint32_t *idx = (uint32_t *)(mem + off_idx);
    memcpy(pos, desc->positions, sizeof(float) * 3 * V);
    memcpy(idx, desc->indices, sizeof(uint32_t) * I);
    if (desc->normals)
        memcpy(nrm, desc->normals, sizeof(float) * 3 * V);
    else
        compute_normals(nrm, pos, (int)V, idx, (int)I);
    if (desc->uvs) {
        float *uv = (float *)(mem + off_uv);
        memcpy(uv, desc->uvs, sizeof(float) * 2 * V);
        m->uvs = uv;
    }
    if (skin) {
        uint16_t *jn = (uint16_t *)(mem + off_jnt);
        float *wg = (float *)(mem + off_wgt);
        memcpy(jn, desc->joints, sizeof(uint16_t) * STANCE_SKIN_INFLUENCES * V);
        memcpy(wg, desc->weights, sizeof(float) * STANCE_SKIN_INFLUENCES * V);
        for (size_t v = 0; v < V; v++) {
            float *w = wg + STANCE_SKIN_INFLUENCES * v;
            float sum = 0.0f;
            for (int k = 0; k < STANCE_SKIN_INFLUENCES; k++) sum += w[k];
            /* already normalized: keep the bits, so save -> load -> create is exact */
            if (fabsf(sum - 1.0f) > 1e-6f)
                for (int k = 0; k < STANCE_SKIN_INFLUENCES; k++) w[k] /= sum;
        }
        m->joints = jn;
        m->weights = wg;
    }
    memcpy(m->name, name, sizeof name);
    m->skin = skin ? desc->skin : -1;
    m->vertex_count = (int)V;
    m->positions = pos;
    m->normals = nrm;
    m->index_count = (int)I;
    m->indices = idx;
    const float *bc = desc->base_color;
    if (bc[0] == 0.0f && bc[1] == 0.0f && bc[2] == 0.0f && bc[3] == 0.0f) {
        m->base_color[0] = m->base_color[1] = m->base_color[2] = 0.8f;
        m->base_color[3] = 1.0f;
    } else {
        memcpy(m->base_color, bc, sizeof m->base_color);
    }
    m->allocator = al;
    m->bytes = bytes;
    *out = m;
    return st_ok(err);
}

void stance_mesh_destroy(stance_mesh *mesh) {
    if (!mesh) return;
    stance_allocator al = mesh->allocator;
    st_free(&al, mesh, mesh->bytes);
}
