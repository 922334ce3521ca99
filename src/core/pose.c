/* src/core/pose.c - SoA pose buffers and the per-frame operations on them:
 * blend, masked blend (local and mesh space), additive make/apply,
 * local-to-model and back, pose distance, matrices.
 *
 * Loops run over plain float arrays so the compiler vectorizes them; nothing
 * here allocates (except stance_pose_create) or keeps state between calls. */
#include <float.h>
#include <string.h>

#include "core/internal.h"
#include "core/simd.h"
#include "stance/pose.h"

#define POSE_CHANNELS 10

size_t stance_pose_bytes(int joint_count) {
    if (joint_count < 1 || joint_count > STANCE_MAX_JOINTS) return 0;
    return (size_t)st_pad8(joint_count) * POSE_CHANNELS * sizeof(float);
}

static void bind(stance_pose *p, int n, float *m) {
    int pc = st_pad8(n);
    p->joint_count = n;
    p->padded_count = pc;
    float **ch[POSE_CHANNELS] = {&p->tx, &p->ty, &p->tz, &p->qx, &p->qy, &p->qz, &p->qw, &p->sx, &p->sy, &p->sz};
    for (int c = 0; c < POSE_CHANNELS; c++) *ch[c] = m + (size_t)c * (size_t)pc;
    p->memory = m;
}

void stance_pose_set_identity(stance_pose *pose) {
    if (!pose || !pose->memory) return;
    size_t pc = (size_t)pose->padded_count;
    memset(pose->tx, 0, pc * 3 * sizeof(float));
    memset(pose->qx, 0, pc * 3 * sizeof(float));
    for (size_t i = 0; i < pc; i++) pose->qw[i] = 1.0f, pose->sx[i] = 1.0f, pose->sy[i] = 1.0f, pose->sz[i] = 1.0f;
}

stance_status stance_pose_init(stance_pose *pose, int joint_count, void *memory, size_t bytes,
                               stance_error *err) {
    if (!pose || !memory) return st_fail(err, STANCE_ERR_ARGUMENT, "pose: pose or memory is NULL");
    size_t need = stance_pose_bytes(joint_count);
    if (!need) return st_fail(err, STANCE_ERR_ARGUMENT, "pose: joint_count %d is not in 1..%d", joint_count, STANCE_MAX_JOINTS);
    if (bytes < need) return st_fail(err, STANCE_ERR_MEMORY, "pose: %zu bytes given, %zu needed", bytes, need);
    if ((uintptr_t)memory % 32) return st_fail(err, STANCE_ERR_ARGUMENT, "pose: memory is not 32-byte aligned");
    memset(pose, 0, sizeof *pose);
    bind(pose, joint_count, memory);
    stance_pose_set_identity(pose);
    return st_ok(err);
}

stance_status stance_pose_create(stance_pose *pose, int joint_count, const stance_allocator *allocator,
                                 stance_error *err) {
    if (!pose) return st_fail(err, STANCE_ERR_ARGUMENT, "pose: pose is NULL");
    if (st_check_allocator(allocator, "pose", err)) return STANCE_ERR_ARGUMENT;
    memset(pose, 0, sizeof *pose);
    size_t need = stance_pose_bytes(joint_count);
    if (!need) return st_fail(err, STANCE_ERR_ARGUMENT, "pose: joint_count %d is not in 1..%d", joint_count, STANCE_MAX_JOINTS);
    stance_allocator al = st_allocator(allocator);
    void *m = st_alloc(&al, need, 64);
    if (!m) return st_fail(err, STANCE_ERR_MEMORY, "pose: allocation of %zu bytes failed", need);
    bind(pose, joint_count, m);
    pose->allocator = al;
    stance_pose_set_identity(pose);
    return st_ok(err);
}

void stance_pose_destroy(stance_pose *pose) {
    if (!pose || !pose->memory) return;
    stance_allocator al = pose->allocator;
    st_free(&al, pose->memory, stance_pose_bytes(pose->joint_count));
    memset(pose, 0, sizeof *pose);
}

static int valid(const stance_pose *p) { return p && p->memory && p->joint_count > 0; }

stance_status stance_pose_set_rest(stance_pose *pose, const stance_skeleton *sk) {
    if (!valid(pose) || !sk) return STANCE_ERR_ARGUMENT;
    if (pose->joint_count != sk->joint_count) return STANCE_ERR_ARGUMENT;
    for (int j = 0; j < sk->joint_count; j++) {
        const stance_transform *t = &sk->rest[j];
        pose->tx[j] = t->t[0], pose->ty[j] = t->t[1], pose->tz[j] = t->t[2];
        pose->qx[j] = t->r[0], pose->qy[j] = t->r[1], pose->qz[j] = t->r[2], pose->qw[j] = t->r[3];
        pose->sx[j] = t->s[0], pose->sy[j] = t->s[1], pose->sz[j] = t->s[2];
    }
    return STANCE_OK;
}

stance_status stance_pose_copy(stance_pose *dst, const stance_pose *src) {
    if (!valid(dst) || !valid(src) || dst->joint_count != src->joint_count) return STANCE_ERR_ARGUMENT;
    if (dst != src) memcpy(dst->memory, src->memory, stance_pose_bytes(src->joint_count));
    return STANCE_OK;
}

stance_status stance_pose_get(const stance_pose *p, int j, stance_transform *out) {
    if (!valid(p) || !out || j < 0 || j >= p->joint_count) return STANCE_ERR_ARGUMENT;
    out->t[0] = p->tx[j], out->t[1] = p->ty[j], out->t[2] = p->tz[j];
    out->r[0] = p->qx[j], out->r[1] = p->qy[j], out->r[2] = p->qz[j], out->r[3] = p->qw[j];
    out->s[0] = p->sx[j], out->s[1] = p->sy[j], out->s[2] = p->sz[j];
    return STANCE_OK;
}

stance_status stance_pose_set(stance_pose *p, int j, const stance_transform *in) {
    if (!valid(p) || !in || j < 0 || j >= p->joint_count) return STANCE_ERR_ARGUMENT;
    if (!st_finite_n(in->t, 3) || !st_finite_n(in->r, 4) || !st_finite_n(in->s, 3)) return STANCE_ERR_VALUE;
    float l2 = in->r[0] * in->r[0] + in->r[1] * in->r[1] + in->r[2] * in->r[2] + in->r[3] * in->r[3];
    if (!(l2 > 1e-12f) || !st_finite(l2)) return STANCE_ERR_VALUE;
    float inv = 1.0f / sqrtf(l2);
    p->tx[j] = in->t[0], p->ty[j] = in->t[1], p->tz[j] = in->t[2];
    p->qx[j] = in->r[0] * inv, p->qy[j] = in->r[1] * inv, p->qz[j] = in->r[2] * inv, p->qw[j] = in->r[3] * inv;
    p->sx[j] = in->s[0], p->sy[j] = in->s[1], p->sz[j] = in->s[2];
    return STANCE_OK;
}

/* Padding joints hold the identity, so the 4-wide blocks run over
 * padded_count (a multiple of 8) with no tail. */
static void normalize_rotations(stance_pose *o, int pc) { sv_block_normalize_rot(o->qx, pc, o->padded_count); }

stance_status stance_pose_blend(stance_pose *out, const stance_pose *const *poses, const float *weights,
                                int count, float threshold, const stance_skeleton *sk) {
    if (!valid(out) || !poses || !weights || count < 1 || count > 64) return STANCE_ERR_ARGUMENT;
    if (!st_finite(threshold) || threshold < 0.0f) return STANCE_ERR_VALUE;
    if (count == 2) { /* the common case, checked and blended in one go */
        const stance_pose *a = poses[0], *b = poses[1];
        const float w0 = weights[0], w1 = weights[1];
        /* both weights finite and > 0 (NaN fails the comparisons), their sum above the threshold */
        if (valid(a) && valid(b) && a->joint_count == out->joint_count && b->joint_count == out->joint_count &&
            b != out && w0 > 0.0f && w1 > 0.0f && w0 <= FLT_MAX && w1 <= FLT_MAX && w0 + w1 >= (threshold > 0.0f ? threshold : 1e-4f)) {
            const float inv_total = 1.0f / (w0 + w1);
            sv_block_blend2(out->tx, a->tx, b->tx, w0 * inv_total, w1 * inv_total, out->padded_count);
            return STANCE_OK;
        }
    }
    if (threshold == 0.0f) threshold = 1e-4f;
    const int n = out->joint_count, pc = out->padded_count;
    float total = 0.0f;
    int first = -1;
    for (int i = 0; i < count; i++) {
        if (!valid(poses[i]) || poses[i]->joint_count != n) return STANCE_ERR_ARGUMENT;
        if (!st_finite(weights[i]) || weights[i] < 0.0f) return STANCE_ERR_VALUE;
        if (weights[i] > 0.0f && first < 0) first = i;
        total += weights[i];
    }
    if (total < threshold) {
        if (!sk || sk->joint_count != n) return STANCE_ERR_ARGUMENT;
        return stance_pose_set_rest(out, sk);
    }
    for (int i = 1; i < count; i++)
        if (poses[i] == out && weights[i] > 0.0f) return STANCE_ERR_ARGUMENT; /* only poses[0] may alias */
    const float inv_total = 1.0f / total;
    /* Rotations are sign-aligned to the running sum, which starts as the
     * first weighted pose. A pose is one block of 10 channels:
     * t [0, 3pc), q [3pc, 7pc), s [7pc, 10pc). */
    float *o = out->tx;
    int used[2], nused = 0;
    for (int i = 0; i < count && nused <= 2; i++)
        if (weights[i] > 0.0f) {
            if (nused < 2) used[nused] = i;
            nused++;
        }
    if (nused == 2) { /* the common case, in one pass */
        const float *a = poses[used[0]]->tx, *b = poses[used[1]]->tx;
        const float wa = weights[used[0]] * inv_total, wb = weights[used[1]] * inv_total;
        sv_block_lerp2(o, a, b, wb, 3 * pc);
        sv_block_lerp2(o + 7 * pc, a + 7 * pc, b + 7 * pc, wb, 3 * pc);
        sv_block_nlerp2(o + 3 * pc, a + 3 * pc, b + 3 * pc, wa, wb, pc, pc);
        return STANCE_OK;
    }
    int started = 0;
    for (int i = 0; i < count; i++) {
        if (!(weights[i] > 0.0f)) continue;
        const float w = weights[i] * inv_total;
        const float *p = poses[i]->tx;
        if (!started) {
            sv_block_scale(o, p, w, 10 * pc);
            started = 1;
        } else {
            sv_block_add(o, p, w, 3 * pc);
            sv_block_add(o + 7 * pc, p + 7 * pc, w, 3 * pc);
            sv_block_add_rot(o + 3 * pc, p + 3 * pc, w, pc, pc);
        }
    }
    normalize_rotations(out, pc);
    return STANCE_OK;
}

/* One joint of the masked blend (the scalar reference of the loop below). */
static void masked_joint(stance_pose *out, const stance_pose *base, const stance_pose *layer, float w, int j) {
    const float *tx = base->tx, *ty = base->ty, *tz = base->tz, *sx = base->sx, *sy = base->sy, *sz = base->sz;
    const float *qx = base->qx, *qy = base->qy, *qz = base->qz, *qw = base->qw;
    const float *lx = layer->tx, *ly = layer->ty, *lz = layer->tz, *lsx = layer->sx, *lsy = layer->sy, *lsz = layer->sz;
    const float *lqx = layer->qx, *lqy = layer->qy, *lqz = layer->qz, *lqw = layer->qw;
    if (w <= 0.0f) {
        out->tx[j] = tx[j], out->ty[j] = ty[j], out->tz[j] = tz[j];
        out->sx[j] = sx[j], out->sy[j] = sy[j], out->sz[j] = sz[j];
        out->qx[j] = qx[j], out->qy[j] = qy[j], out->qz[j] = qz[j], out->qw[j] = qw[j];
    } else if (w >= 1.0f) {
        out->tx[j] = lx[j], out->ty[j] = ly[j], out->tz[j] = lz[j];
        out->sx[j] = lsx[j], out->sy[j] = lsy[j], out->sz[j] = lsz[j];
        out->qx[j] = lqx[j], out->qy[j] = lqy[j], out->qz[j] = lqz[j], out->qw[j] = lqw[j];
    } else {
        out->tx[j] = tx[j] + (lx[j] - tx[j]) * w;
        out->ty[j] = ty[j] + (ly[j] - ty[j]) * w;
        out->tz[j] = tz[j] + (lz[j] - tz[j]) * w;
        out->sx[j] = sx[j] + (lsx[j] - sx[j]) * w;
        out->sy[j] = sy[j] + (lsy[j] - sy[j]) * w;
        out->sz[j] = sz[j] + (lsz[j] - sz[j]) * w;
        float d = qx[j] * lqx[j] + qy[j] * lqy[j] + qz[j] * lqz[j] + qw[j] * lqw[j];
        float wl = d < 0.0f ? -w : w, wb = 1.0f - w;
        float x = qx[j] * wb + lqx[j] * wl, y = qy[j] * wb + lqy[j] * wl;
        float z = qz[j] * wb + lqz[j] * wl, ww = qw[j] * wb + lqw[j] * wl;
        float inv = 1.0f / sqrtf(x * x + y * y + z * z + ww * ww);
        out->qx[j] = x * inv, out->qy[j] = y * inv, out->qz[j] = z * inv, out->qw[j] = ww * inv;
    }
}

/* Four joints at a time: lerp and nlerp by w, then exactly base where
 * w <= 0 and exactly layer where w >= 1 (as the scalar form). Pointers are
 * read once (see additive_block). */
static void masked_block(stance_pose *out, const stance_pose *base, const stance_pose *layer, const float *jw,
                         float weight, int n4) {
    const sv4 zero = sv_set1(0.0f), one = sv_set1(1.0f), vweight = sv_set1(weight);
    const float *const b0 = base->tx, *const l0 = layer->tx; /* a pose is one block of 10 channels */
    float *const o0 = out->tx;
    const int pc = out->padded_count;
    for (int j = 0; j < n4; j += 4) {
        const sv4 w = jw ? sv_mul(vweight, sv_load(jw + j)) : vweight;
        const sv4 lo = sv_le(w, zero), hi = sv_ge(w, one);
        for (int c = 0; c < 3; c++) { /* translation and scale */
            const sv4 bt = sv_loada(b0 + c * pc + j), lt = sv_loada(l0 + c * pc + j);
            const sv4 bs = sv_loada(b0 + (7 + c) * pc + j), ls = sv_loada(l0 + (7 + c) * pc + j);
            sv_storea(o0 + c * pc + j, sv_select(lo, bt, sv_select(hi, lt, sv_madd(sv_sub(lt, bt), w, bt))));
            sv_storea(o0 + (7 + c) * pc + j, sv_select(lo, bs, sv_select(hi, ls, sv_madd(sv_sub(ls, bs), w, bs))));
        }
        const float *bq = b0 + 3 * pc + j, *lq = l0 + 3 * pc + j;
        const sv4 bx = sv_loada(bq), by = sv_loada(bq + pc), bz = sv_loada(bq + 2 * pc), bw = sv_loada(bq + 3 * pc);
        const sv4 lx = sv_loada(lq), ly = sv_loada(lq + pc), lz = sv_loada(lq + 2 * pc), lw = sv_loada(lq + 3 * pc);
        const sv4 wl = sv_xorsign(w, sv_dot4(bx, by, bz, bw, lx, ly, lz, lw)), wb = sv_sub(one, w);
        const sv4 x = sv_add(sv_mul(bx, wb), sv_mul(lx, wl)), y = sv_add(sv_mul(by, wb), sv_mul(ly, wl));
        const sv4 z = sv_add(sv_mul(bz, wb), sv_mul(lz, wl)), ww = sv_add(sv_mul(bw, wb), sv_mul(lw, wl));
        const sv4 inv = sv_div(one, sv_sqrt(sv_dot4(x, y, z, ww, x, y, z, ww)));
        float *oq = o0 + 3 * pc + j;
        sv_storea(oq, sv_select(lo, bx, sv_select(hi, lx, sv_mul(x, inv))));
        sv_storea(oq + pc, sv_select(lo, by, sv_select(hi, ly, sv_mul(y, inv))));
        sv_storea(oq + 2 * pc, sv_select(lo, bz, sv_select(hi, lz, sv_mul(z, inv))));
        sv_storea(oq + 3 * pc, sv_select(lo, bw, sv_select(hi, lw, sv_mul(ww, inv))));
    }
}

void st_blend_masked_padded(stance_pose *out, const stance_pose *base, const stance_pose *layer, const float *mask,
                            float weight) {
    masked_block(out, base, layer, mask, weight, out->padded_count);
}

stance_status stance_pose_blend_masked(stance_pose *out, const stance_pose *base, const stance_pose *layer,
                                       const float *jw, float weight) {
    if (!valid(out) || !valid(base) || !valid(layer)) return STANCE_ERR_ARGUMENT;
    const int n = out->joint_count;
    if (base->joint_count != n || layer->joint_count != n) return STANCE_ERR_ARGUMENT;
    if (!st_finite(weight) || weight < 0.0f || weight > 1.0f) return STANCE_ERR_VALUE;
    const int n4 = n & ~3;
    masked_block(out, base, layer, jw, weight, n4);
    for (int j = n4; j < n; j++) masked_joint(out, base, layer, jw ? weight * jw[j] : weight, j);
    return STANCE_OK;
}

/* q = a * b, written out for the SoA loops. */
#define QMUL(ox, oy, oz, ow, ax, ay, az, aw, bx, by, bz, bw) do { \
    float mx_ = aw * bx + ax * bw + ay * bz - az * by;               \
    float my_ = aw * by - ax * bz + ay * bw + az * bx;               \
    float mz_ = aw * bz + ax * by - ay * bx + az * bw;               \
    float mw_ = aw * bw - ax * bx - ay * by - az * bz;               \
    ox = mx_, oy = my_, oz = mz_, ow = mw_; } while (0)

/* v' = q v q*, via t = 2 (u x v); v' = v + w t + u x t. */
#define QROT(ox, oy, oz, qx_, qy_, qz_, qw_, vx, vy, vz) do {   \
    float t1_ = 2.0f * (qy_ * vz - qz_ * vy);                    \
    float t2_ = 2.0f * (qz_ * vx - qx_ * vz);                    \
    float t3_ = 2.0f * (qx_ * vy - qy_ * vx);                    \
    ox = vx + qw_ * t1_ + (qy_ * t3_ - qz_ * t2_);               \
    oy = vy + qw_ * t2_ + (qz_ * t1_ - qx_ * t3_);               \
    oz = vz + qw_ * t3_ + (qx_ * t2_ - qy_ * t1_); } while (0)

stance_status stance_pose_blend_mesh(stance_pose *out, const stance_pose *base, const stance_pose *layer,
                                     const stance_pose *layer_model, const float *jw, float weight,
                                     const stance_skeleton *sk) {
    if (!valid(out) || !valid(base) || !valid(layer) || !valid(layer_model) || !sk) return STANCE_ERR_ARGUMENT;
    const int n = out->joint_count;
    if (base->joint_count != n || layer->joint_count != n || layer_model->joint_count != n || sk->joint_count != n)
        return STANCE_ERR_ARGUMENT;
    if (out == base || out == layer || out == layer_model) return STANCE_ERR_ARGUMENT;
    if (!st_finite(weight) || weight < 0.0f || weight > 1.0f) return STANCE_ERR_VALUE;
    /* Translations and scales: local blend. Rotations: pass 1 writes each
     * joint's output model rotation into out->q (parents first). */
    stance_status s = stance_pose_blend_masked(out, base, layer, jw, weight);
    if (s) return s;
    for (int j = 0; j < n; j++) {
        int p = sk->parents[j];
        float w = jw ? weight * jw[j] : weight;
        float bx = base->qx[j], by = base->qy[j], bz = base->qz[j], bw = base->qw[j];
        float mx, my, mz, mw;
        if (p >= 0) {
            QMUL(mx, my, mz, mw, out->qx[p], out->qy[p], out->qz[p], out->qw[p], bx, by, bz, bw);
        } else {
            mx = bx, my = by, mz = bz, mw = bw;
        }
        if (w >= 1.0f) {
            mx = layer_model->qx[j], my = layer_model->qy[j], mz = layer_model->qz[j], mw = layer_model->qw[j];
        } else if (w > 0.0f) {
            float lx = layer_model->qx[j], ly = layer_model->qy[j], lz = layer_model->qz[j], lw = layer_model->qw[j];
            float d = mx * lx + my * ly + mz * lz + mw * lw;
            float wl = d < 0.0f ? -w : w, wb = 1.0f - w;
            mx = mx * wb + lx * wl, my = my * wb + ly * wl, mz = mz * wb + lz * wl, mw = mw * wb + lw * wl;
            float inv = 1.0f / sqrtf(mx * mx + my * my + mz * mz + mw * mw);
            mx *= inv, my *= inv, mz *= inv, mw *= inv;
        }
        out->qx[j] = mx, out->qy[j] = my, out->qz[j] = mz, out->qw[j] = mw;
    }
    /* Pass 2, children first: back to local. Unmasked joints take base exactly. */
    for (int j = n - 1; j >= 0; j--) {
        int p = sk->parents[j];
        float w = jw ? weight * jw[j] : weight;
        if (w <= 0.0f) {
            out->qx[j] = base->qx[j], out->qy[j] = base->qy[j], out->qz[j] = base->qz[j], out->qw[j] = base->qw[j];
            continue;
        }
        if (p < 0) continue;
        float lx, ly, lz, lw;
        QMUL(lx, ly, lz, lw, -out->qx[p], -out->qy[p], -out->qz[p], out->qw[p],
             out->qx[j], out->qy[j], out->qz[j], out->qw[j]);
        float inv = 1.0f / sqrtf(lx * lx + ly * ly + lz * lz + lw * lw);
        out->qx[j] = lx * inv, out->qy[j] = ly * inv, out->qz[j] = lz * inv, out->qw[j] = lw * inv;
    }
    return STANCE_OK;
}

stance_status stance_pose_additive_make(stance_pose *delta, const stance_pose *pose, const stance_pose *ref) {
    if (!valid(delta) || !valid(pose) || !valid(ref)) return STANCE_ERR_ARGUMENT;
    const int n = delta->joint_count;
    if (pose->joint_count != n || ref->joint_count != n) return STANCE_ERR_ARGUMENT;
    for (int j = 0; j < n; j++) {
        float x, y, z, w;
        QMUL(x, y, z, w, -ref->qx[j], -ref->qy[j], -ref->qz[j], ref->qw[j], pose->qx[j], pose->qy[j], pose->qz[j], pose->qw[j]);
        if (w < 0.0f) x = -x, y = -y, z = -z, w = -w; /* keep deltas on the short side */
        delta->qx[j] = x, delta->qy[j] = y, delta->qz[j] = z, delta->qw[j] = w;
        delta->tx[j] = pose->tx[j] - ref->tx[j];
        delta->ty[j] = pose->ty[j] - ref->ty[j];
        delta->tz[j] = pose->tz[j] - ref->tz[j];
        delta->sx[j] = ref->sx[j] != 0.0f ? pose->sx[j] / ref->sx[j] : 1.0f;
        delta->sy[j] = ref->sy[j] != 0.0f ? pose->sy[j] / ref->sy[j] : 1.0f;
        delta->sz[j] = ref->sz[j] != 0.0f ? pose->sz[j] / ref->sz[j] : 1.0f;
    }
    normalize_rotations(delta, n);
    return STANCE_OK;
}

/* out = base + w * delta for one joint, w = weight * mask (the scalar
 * reference of the 4-wide loop below). */
static void additive_joint(stance_pose *out, const stance_pose *base, const stance_pose *delta, float w, int j) {
    float dx = delta->qx[j] * w, dy = delta->qy[j] * w, dz = delta->qz[j] * w;
    float dw = copysignf(1.0f - w, delta->qw[j]) + delta->qw[j] * w; /* nlerp(identity, delta, w) */
    float inv = 1.0f / sqrtf(dx * dx + dy * dy + dz * dz + dw * dw);
    dx *= inv, dy *= inv, dz *= inv, dw *= inv;
    float x, y, z, ww;
    QMUL(x, y, z, ww, base->qx[j], base->qy[j], base->qz[j], base->qw[j], dx, dy, dz, dw);
    out->qx[j] = x, out->qy[j] = y, out->qz[j] = z, out->qw[j] = ww;
    out->tx[j] = base->tx[j] + delta->tx[j] * w;
    out->ty[j] = base->ty[j] + delta->ty[j] * w;
    out->tz[j] = base->tz[j] + delta->tz[j] * w;
    out->sx[j] = base->sx[j] * (1.0f + (delta->sx[j] - 1.0f) * w);
    out->sy[j] = base->sy[j] * (1.0f + (delta->sy[j] - 1.0f) * w);
    out->sz[j] = base->sz[j] * (1.0f + (delta->sz[j] - 1.0f) * w);
}

/* Joints [0, n4) four at a time (n4 a multiple of 4); out may be base.
 * Every pointer is read once: an SSE store may alias anything, so pointers
 * read through the structs inside the loop would be read again each time. */
static void additive_block(stance_pose *out, const stance_pose *base, const stance_pose *delta, const float *jw,
                           float weight, int n4) {
    const sv4 one = sv_set1(1.0f), vweight = sv_set1(weight);
    /* a pose is one block of 10 channels of pc floats: t 0..2, q 3..6, s 7..9 */
    const int pc = out->padded_count;
    const float *const b0 = base->tx, *const d0 = delta->tx;
    float *const o0 = out->tx;
    for (int j = 0; j < n4; j += 4) {
        const sv4 w = jw ? sv_mul(vweight, sv_load(jw + j)) : vweight;
        const float *d = d0 + j, *b = b0 + j;
        float *o = o0 + j;
        sv4 dx = sv_mul(sv_loada(d + 3 * pc), w), dy = sv_mul(sv_loada(d + 4 * pc), w), dz = sv_mul(sv_loada(d + 5 * pc), w);
        const sv4 dw0 = sv_loada(d + 6 * pc);
        sv4 dw = sv_madd(dw0, w, sv_copysign(sv_sub(one, w), dw0));
        const sv4 inv = sv_div(one, sv_sqrt(sv_dot4(dx, dy, dz, dw, dx, dy, dz, dw)));
        dx = sv_mul(dx, inv), dy = sv_mul(dy, inv), dz = sv_mul(dz, inv), dw = sv_mul(dw, inv);
        for (int c = 0; c < 3; c++) {
            sv_storea(o + c * pc, sv_madd(sv_loada(d + c * pc), w, sv_loada(b + c * pc)));
            sv_storea(o + (7 + c) * pc, sv_mul(sv_loada(b + (7 + c) * pc), sv_madd(sv_sub(sv_loada(d + (7 + c) * pc), one), w, one)));
        }
        const sv4 qx = sv_loada(b + 3 * pc), qy = sv_loada(b + 4 * pc), qz = sv_loada(b + 5 * pc), qw = sv_loada(b + 6 * pc);
        /* base * d */
        sv_storea(o + 3 * pc, sv_sub(sv_add(sv_add(sv_mul(qw, dx), sv_mul(qx, dw)), sv_mul(qy, dz)), sv_mul(qz, dy)));
        sv_storea(o + 4 * pc, sv_add(sv_add(sv_sub(sv_mul(qw, dy), sv_mul(qx, dz)), sv_mul(qy, dw)), sv_mul(qz, dx)));
        sv_storea(o + 5 * pc, sv_add(sv_sub(sv_add(sv_mul(qw, dz), sv_mul(qx, dy)), sv_mul(qy, dx)), sv_mul(qz, dw)));
        sv_storea(o + 6 * pc, sv_sub(sv_sub(sv_sub(sv_mul(qw, dw), sv_mul(qx, dx)), sv_mul(qy, dy)), sv_mul(qz, dz)));
    }
}

stance_status stance_pose_additive_apply(stance_pose *out, const stance_pose *base, const stance_pose *delta,
                                         const float *jw, float weight) {
    if (!valid(out) || !valid(base) || !valid(delta)) return STANCE_ERR_ARGUMENT;
    const int n = out->joint_count;
    if (base->joint_count != n || delta->joint_count != n) return STANCE_ERR_ARGUMENT;
    if (!st_finite(weight) || weight < 0.0f || weight > 1.0f) return STANCE_ERR_VALUE;
    const int n4 = n & ~3;
    additive_block(out, base, delta, jw, weight, n4);
    for (int j = n4; j < n; j++) additive_joint(out, base, delta, jw ? weight * jw[j] : weight, j);
    return STANCE_OK;
}

void st_additive_apply_padded(stance_pose *out, const stance_pose *base, const stance_pose *delta, const float *mask,
                              float weight) {
    additive_block(out, base, delta, mask, weight, out->padded_count);
}

/* ---- local-to-model --------------------------------------------------------
 * Runs the skeleton's schedule (skeleton.c): tiles (4 chains of 4 joints in
 * the 4 lanes) and groups (4 independent joints) in SoA, single joints in
 * AoS (SSE2) or scalar form. The SoA items keep their last results in X
 * (10 channels of 4 lanes), updated in place: an item whose 4 parents are
 * exactly those joints takes them from there, so along chains the parents
 * never go through memory, and nothing is copied. */

#if !defined(SV_SSE2)
/* model[j] = parent * local[j] for one joint (the scalar reference of the
 * 4-wide forms below); parent p < 0 takes the root transform rv. m0 and l0
 * are the poses' blocks of 10 channels of pc floats; everything is read
 * before anything is written (stores through m0 may alias l0 for the
 * compiler). */
static void l2m_joint(float *m0, const float *l0, int pc, int p, int j, const float *rv) {
    float px, py, pz, pqx, pqy, pqz, pqw, psx, psy, psz;
    if (p >= 0) {
        const float *m = m0 + p;
        px = m[0], py = m[pc], pz = m[2 * pc], pqx = m[3 * pc], pqy = m[4 * pc], pqz = m[5 * pc], pqw = m[6 * pc];
        psx = m[7 * pc], psy = m[8 * pc], psz = m[9 * pc];
    } else {
        px = rv[0], py = rv[1], pz = rv[2], pqx = rv[3], pqy = rv[4], pqz = rv[5], pqw = rv[6];
        psx = rv[7], psy = rv[8], psz = rv[9];
    }
    const float *l = l0 + j;
    const float lx = l[0], ly = l[pc], lz = l[2 * pc], lqx = l[3 * pc], lqy = l[4 * pc], lqz = l[5 * pc], lqw = l[6 * pc];
    const float lsx = l[7 * pc], lsy = l[8 * pc], lsz = l[9 * pc];
    float vx = lx * psx, vy = ly * psy, vz = lz * psz, ox, oy, oz, qx, qy, qz, qw;
    QROT(ox, oy, oz, pqx, pqy, pqz, pqw, vx, vy, vz);
    QMUL(qx, qy, qz, qw, pqx, pqy, pqz, pqw, lqx, lqy, lqz, lqw);
    float *o = m0 + j;
    o[0] = px + ox, o[pc] = py + oy, o[2 * pc] = pz + oz;
    o[3 * pc] = qx, o[4 * pc] = qy, o[5 * pc] = qz, o[6 * pc] = qw;
    o[7 * pc] = psx * lsx, o[8 * pc] = psy * lsy, o[9 * pc] = psz * lsz;
}
#endif

/* The parts of M = P * L for 4 joints at once (SoA), in the expression
 * trees of the scalar reference's formulas:
 *   q = parent q * local q;  s = parent s * local s (per axis);
 *   t = parent t + rotate(parent q, local t * parent s), the rotation
 *   v + q.w u + q.xyz x u with u = 2 (q.xyz x v) (doubled as u + u,
 *   exactly 2 u). */
static inline void l2m_qmul(sv4 *o, sv4 qx, sv4 qy, sv4 qz, sv4 qw, sv4 bx, sv4 by, sv4 bz, sv4 bw) {
    o[0] = sv_sub(sv_add(sv_add(sv_mul(qw, bx), sv_mul(qx, bw)), sv_mul(qy, bz)), sv_mul(qz, by));
    o[1] = sv_add(sv_add(sv_sub(sv_mul(qw, by), sv_mul(qx, bz)), sv_mul(qy, bw)), sv_mul(qz, bx));
    o[2] = sv_add(sv_sub(sv_add(sv_mul(qw, bz), sv_mul(qx, by)), sv_mul(qy, bx)), sv_mul(qz, bw));
    o[3] = sv_sub(sv_sub(sv_sub(sv_mul(qw, bw), sv_mul(qx, bx)), sv_mul(qy, by)), sv_mul(qz, bz));
}
static inline void l2m_trans(sv4 *o, sv4 px, sv4 py, sv4 pz, sv4 qx, sv4 qy, sv4 qz, sv4 qw, sv4 sx, sv4 sy, sv4 sz,
                             sv4 lx, sv4 ly, sv4 lz) {
    const sv4 vx = sv_mul(lx, sx), vy = sv_mul(ly, sy), vz = sv_mul(lz, sz);
    sv4 u1 = sv_sub(sv_mul(qy, vz), sv_mul(qz, vy)), u2 = sv_sub(sv_mul(qz, vx), sv_mul(qx, vz));
    sv4 u3 = sv_sub(sv_mul(qx, vy), sv_mul(qy, vx));
    u1 = sv_add(u1, u1), u2 = sv_add(u2, u2), u3 = sv_add(u3, u3);
    o[0] = sv_add(px, sv_add(sv_add(vx, sv_mul(qw, u1)), sv_sub(sv_mul(qy, u3), sv_mul(qz, u2))));
    o[1] = sv_add(py, sv_add(sv_add(vy, sv_mul(qw, u2)), sv_sub(sv_mul(qz, u1), sv_mul(qx, u3))));
    o[2] = sv_add(pz, sv_add(sv_add(vz, sv_mul(qw, u3)), sv_sub(sv_mul(qx, u2), sv_mul(qy, u1))));
}
/* M = P * L, channel c of P at P[4 c], of L at L[4 c], of M at M[4 c]; M may be P */
static inline void l2m_step(const sv4 *P, const sv4 *L, sv4 *M) {
    const sv4 qx = P[12], qy = P[16], qz = P[20], qw = P[24], sx = P[28], sy = P[32], sz = P[36];
    sv4 t[3], q[4];
    l2m_trans(t, P[0], P[4], P[8], qx, qy, qz, qw, sx, sy, sz, L[0], L[4], L[8]);
    l2m_qmul(q, qx, qy, qz, qw, L[12], L[16], L[20], L[24]);
    M[0] = t[0], M[4] = t[1], M[8] = t[2], M[12] = q[0], M[16] = q[1], M[20] = q[2], M[24] = q[3];
    M[28] = sv_mul(sx, L[28]), M[32] = sv_mul(sy, L[32]), M[36] = sv_mul(sz, L[36]);
}


/* The SoA items' state: S[c][s], channel c of step s of the last item (a
 * group uses step 3 only); step 3 (X = &S[0][3], channel c at X[4 c])
 * holds the joints have[0..3]. */

/* X <- the parents pp[0..3] of an item's lanes: nothing to do when X holds
 * exactly those joints (have, NULL when it holds none); else gathered from
 * the model pose (one float per load, so the stores that wrote them forward
 * to the loads), or the root transform rv (an item's lanes are all roots or
 * none of them, see skeleton.c). */
static inline void l2m_parents(sv4 *X, const short *have, const float *m0, int pc, const short *pp, const float *rv) {
    if (have && pp[0] == have[0] && pp[1] == have[1] && pp[2] == have[2] && pp[3] == have[3]) return;
    if (pp[0] < 0) {
        for (int c = 0; c < 10; c++) X[4 * c] = sv_set1(rv[c]);
    } else if (pp[0] == pp[1] && pp[0] == pp[2] && pp[0] == pp[3]) { /* one parent (a fork): broadcast */
        const float *m = m0 + pp[0];
        for (int c = 0; c < 10; c++, m += pc) X[4 * c] = sv_set1(*m);
    } else {
        const ptrdiff_t i0 = pp[0], i1 = pp[1], i2 = pp[2], i3 = pp[3];
        const float *m = m0;
        for (int c = 0; c < 10; c++, m += pc) X[4 * c] = sv_gather_at(m, i0, i1, i2, i3);
    }
}

/* A group: four joints jj[0..3] that depend on none of each other; X
 * holds their parents and ends holding them. */
static inline void l2m_group(float *m0, const float *l0, int pc, const short *jj, sv4 *X) {
    sv4 L[10][4];
    /* the 4 indices read once (not once a channel: the stores through m0
     * could alias them for the compiler) */
    const ptrdiff_t i0 = jj[0], i1 = jj[1], i2 = jj[2], i3 = jj[3];
    const float *l = l0;
    for (int c = 0; c < 10; c++, l += pc) L[c][0] = sv_gather_at(l, i0, i1, i2, i3);
    l2m_step(X, &L[0][0], X);
    float *m = m0;
    for (int c = 0; c < 10; c++, m += pc) sv_scatter_at(m, i0, i1, i2, i3, X[4 * c]);
}

/* A tile: 4 lanes, lane i the consecutive joints a[i], a[i] + 1, .. each
 * the parent of the next, 4 of them (lane 3: last, 1..4). Per channel, a
 * lane's 4 local values are one load; a transpose makes them the 4 steps'
 * inputs (L[c][step]); the steps' results (S[c][step]) go back the same
 * way. The lanes are reached from lane 0's pointer and their distances to
 * it (one pointer a channel steps). A short lane 3 loads the 4 floats that
 * end at its last joint (the schedule keeps them in the pose) and shifts
 * its joints to the first lanes; past its joints it repeats the last one's
 * input, and stores only its joints. A repeated lane computes and writes
 * the same values twice. S's step 3 holds the parents on entry (X) and the
 * step's results on return (joints a[i] + 3, and lane 3's last joint's
 * child when it is short: a value nobody reads). */
static inline sv4 l2m_shift(sv4 v, int last) {
    switch (last) {
    case 3: return SV_SHUF(v, 1, 2, 3, 3);
    case 2: return SV_SHUF(v, 2, 3, 3, 3);
    case 1: return SV_SHUF(v, 3, 3, 3, 3);
    default: return v;
    }
}
static inline void l2m_store_short(float *p, sv4 v, int last) {
    switch (last) {
    case 3: sv_store2(p, v), p[2] = sv_lane0(SV_SHUF(v, 2, 2, 2, 2)); break;
    case 2: sv_store2(p, v); break;
    case 1: p[0] = sv_lane0(v); break;
    default: sv_store(p, v);
    }
}
#if defined(__GNUC__)
__attribute__((always_inline)) /* inlined for each last: no switch runs in the loops */
#endif
static inline void l2m_tile(float *m0, const float *l0, int pc, const short *a, sv4 (*S)[4], int last) {
    const ptrdiff_t d1 = a[1] - a[0], d2 = a[2] - a[0], d3 = a[3] - a[0];
    sv4 L[10][4];
    const float *r = l0 + a[0];
    if ((a[0] & 15) < 4) {
        /* lane 0's rows begin a cache line: ask for the next line of every
         * lane's rows in both poses, which the next tiles read and write.
         * Measured, not derived (no counters here): without it the J=256
         * reference workload's local-to-model took 5.0-6.5 us against the
         * old depth-first walk's 3.3-4.1 (whose scalar accesses the
         * hardware prefetchers followed), with it 3.3-3.5 us. */
        const float *p = r + 16;
        const float *q = m0 + a[0] + 16;
        for (int c = 0; c < 10; c++, p += pc, q += pc) {
            SV_PREFETCH(p), SV_PREFETCH(p + d1), SV_PREFETCH(p + d2), SV_PREFETCH(p + d3);
            SV_PREFETCH(q), SV_PREFETCH(q + d1), SV_PREFETCH(q + d2), SV_PREFETCH(q + d3);
        }
    }
    for (int c = 0; c < 10; c++, r += pc) {
        sv4 v0 = sv_load(r), v1 = sv_load(r + d1), v2 = sv_load(r + d2), v3 = l2m_shift(sv_load(r + d3 + last - 4), last);
        SV_TRANSPOSE4(v0, v1, v2, v3);
        L[c][0] = v0, L[c][1] = v1, L[c][2] = v2, L[c][3] = v3;
    }
    /* the steps in three passes of less pressure on the registers: the
     * rotations along the lanes, the scales, then the translations (which
     * read the parents' rotations and scales) */
    const sv4 pqx = S[3][3], pqy = S[4][3], pqz = S[5][3], pqw = S[6][3], psx = S[7][3], psy = S[8][3], psz = S[9][3];
    sv4 q[4] = {pqx, pqy, pqz, pqw};
    for (int k = 0; k < 4; k++) {
        l2m_qmul(q, q[0], q[1], q[2], q[3], L[3][k], L[4][k], L[5][k], L[6][k]);
        S[3][k] = q[0], S[4][k] = q[1], S[5][k] = q[2], S[6][k] = q[3];
    }
    sv4 sx = psx, sy = psy, sz = psz;
    for (int k = 0; k < 4; k++) {
        sx = sv_mul(sx, L[7][k]), sy = sv_mul(sy, L[8][k]), sz = sv_mul(sz, L[9][k]);
        S[7][k] = sx, S[8][k] = sy, S[9][k] = sz;
    }
    sv4 t[3] = {S[0][3], S[1][3], S[2][3]};
    l2m_trans(t, t[0], t[1], t[2], pqx, pqy, pqz, pqw, psx, psy, psz, L[0][0], L[1][0], L[2][0]);
    S[0][0] = t[0], S[1][0] = t[1], S[2][0] = t[2];
    for (int k = 1; k < 4; k++) {
        l2m_trans(t, t[0], t[1], t[2], S[3][k - 1], S[4][k - 1], S[5][k - 1], S[6][k - 1], S[7][k - 1], S[8][k - 1],
                  S[9][k - 1], L[0][k], L[1][k], L[2][k]);
        S[0][k] = t[0], S[1][k] = t[1], S[2][k] = t[2];
    }
    float *w = m0 + a[0];
    for (int c = 0; c < 10; c++, w += pc) {
        sv4 v0 = S[c][0], v1 = S[c][1], v2 = S[c][2], v3 = S[c][3];
        SV_TRANSPOSE4(v0, v1, v2, v3);
        sv_store(w, v0), sv_store(w + d1, v1), sv_store(w + d2, v2), l2m_store_short(w + d3, v3, last);
    }
}

/* The run schedule (stance_skeleton.l2m_runs, built in skeleton.c): each
 * run is up to 4 consecutive joints j.. that depend on none of each other,
 * so their local rows are one load a channel, their model rows one store.
 * X (10 channels) holds the last run's results: a run whose parents are its
 * lanes in order takes them from there, shifted down by g[3] lanes. A run
 * near the end of the pose loads the 4 floats that end at its last joint
 * (l2m_shift) and stores only its joints, so the padding keeps the identity;
 * elsewhere the lanes past a short run compute values the next runs
 * overwrite. */
static inline sv4 l2m_down(sv4 v, int s) {
    switch (s) {
    case 1: return SV_SHUF(v, 1, 2, 3, 3);
    case 2: return SV_SHUF(v, 2, 3, 3, 3);
    default: return SV_SHUF(v, 3, 3, 3, 3);
    }
}
static inline void l2m_store_first(float *p, sv4 v, int n) {
    switch (n) {
    case 3: sv_store2(p, v), p[2] = sv_lane0(SV_SHUF(v, 2, 2, 2, 2)); break;
    case 2: sv_store2(p, v); break;
    case 1: p[0] = sv_lane0(v); break;
    default: sv_store(p, v);
    }
}
/* One run of 4 lanes: local rows from l, model rows to m, pc floats apart;
 * the parents in P (aligned: SSE2 arithmetic reads them in place), the
 * run's results into P too when keep. Each pointer steps row by row (one
 * register and one add a row; precomputed row addresses, which the
 * compiler otherwise keeps, do not fit the registers and measured slower). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void l2m_run(float *m, const float *l, ptrdiff_t pc, sv4 *P, int keep) {
    sv4 a, b, c, d;
    /* translations: t = pt + rotate(pq, lt * ps) */
    a = sv_load(l); l += pc; SV_OPAQUE(l);
    b = sv_load(l); l += pc; SV_OPAQUE(l);
    c = sv_load(l); l += pc; SV_OPAQUE(l);
    sv4 t[3];
    l2m_trans(t, P[0], P[1], P[2], P[3], P[4], P[5], P[6], P[7], P[8], P[9], a, b, c);
    sv_store(m, t[0]); m += pc; SV_OPAQUE(m);
    sv_store(m, t[1]); m += pc; SV_OPAQUE(m);
    sv_store(m, t[2]); m += pc; SV_OPAQUE(m);
    if (keep) P[0] = t[0], P[1] = t[1], P[2] = t[2];
    /* rotations: q = pq * lq */
    a = sv_load(l); l += pc; SV_OPAQUE(l);
    b = sv_load(l); l += pc; SV_OPAQUE(l);
    c = sv_load(l); l += pc; SV_OPAQUE(l);
    d = sv_load(l); l += pc; SV_OPAQUE(l);
    sv4 q[4];
    l2m_qmul(q, P[3], P[4], P[5], P[6], a, b, c, d);
    sv_store(m, q[0]); m += pc; SV_OPAQUE(m);
    sv_store(m, q[1]); m += pc; SV_OPAQUE(m);
    sv_store(m, q[2]); m += pc; SV_OPAQUE(m);
    sv_store(m, q[3]); m += pc; SV_OPAQUE(m);
    if (keep) P[3] = q[0], P[4] = q[1], P[5] = q[2], P[6] = q[3];
    /* scales: s = ps * ls */
    a = sv_mul(P[7], sv_load(l)); l += pc; SV_OPAQUE(l);
    b = sv_mul(P[8], sv_load(l)); l += pc; SV_OPAQUE(l);
    c = sv_mul(P[9], sv_load(l));
    sv_store(m, a); m += pc; SV_OPAQUE(m);
    sv_store(m, b); m += pc; SV_OPAQUE(m);
    sv_store(m, c);
    if (keep) P[7] = a, P[8] = b, P[9] = c;
}

/* A short run at the end of the pose (n < 4 lanes): its 4 floats that end at
 * its last joint, shifted down; only its joints stored. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void l2m_run_short(float *m, const float *l, int pc, int n, sv4 *P) {
    sv4 L[10];
    for (int c = 0; c < 10; c++) L[c] = l2m_shift(sv_load(l + c * pc + n - 4), n);
    sv4 t[3], q[4];
    l2m_trans(t, P[0], P[1], P[2], P[3], P[4], P[5], P[6], P[7], P[8], P[9], L[0], L[1], L[2]);
    l2m_qmul(q, P[3], P[4], P[5], P[6], L[3], L[4], L[5], L[6]);
    P[7] = sv_mul(P[7], L[7]), P[8] = sv_mul(P[8], L[8]), P[9] = sv_mul(P[9], L[9]);
    P[0] = t[0], P[1] = t[1], P[2] = t[2], P[3] = q[0], P[4] = q[1], P[5] = q[2], P[6] = q[3];
    for (int c = 0; c < 10; c++) l2m_store_first(m + c * pc, P[c], n);
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void l2m_runs(float *m0, const float *l0, int pc, const short *g, int count, const float *rv, int identity_root) {
    sv4 P[10]; /* the run's parents; the last run's results when the next takes them (ST_RUN_KEEP) */
    for (int c = 0; c < 10; c++) P[c] = sv_set1(0.0f);
    for (int k = 0; k < count; k++, g += 9) {
        const int n = g[0], j = g[1], flags = g[4];
        if (g[2] == ST_RUN_ROOT && identity_root) { /* roots under the identity: the local transforms as they are */
            for (int c = 0; c < 10; c++) {
                const float *l = l0 + c * pc + j;
                const sv4 v = flags & ST_RUN_LOAD4 ? sv_load(l) : l2m_shift(sv_load(l + n - 4), n);
                if (flags & ST_RUN_STORE4)
                    sv_store(m0 + c * pc + j, v);
                else
                    l2m_store_first(m0 + c * pc + j, v, n);
                P[c] = v;
            }
            continue;
        }
        switch (g[2]) {
        case ST_RUN_X:
            if (g[3])
                for (int c = 0; c < 10; c++) P[c] = l2m_down(P[c], g[3]);
            break;
        case ST_RUN_ROOT:
            for (int c = 0; c < 10; c++) P[c] = sv_set1(rv[c]);
            break;
        case ST_RUN_ONE: {
            const float *m = m0 + g[5];
            for (int c = 0; c < 10; c++, m += pc) P[c] = sv_set1(*m);
            break;
        }
        case ST_RUN_ROW: {
            const float *m = m0 + g[5];
            for (int c = 0; c < 10; c++, m += pc) P[c] = sv_load(m);
            break;
        }
        default: {
            const ptrdiff_t i0 = g[5], i1 = g[6], i2 = g[7], i3 = g[8];
            const float *m = m0;
            for (int c = 0; c < 10; c++, m += pc) P[c] = sv_gather_at(m, i0, i1, i2, i3);
        }
        }
        if ((flags & (ST_RUN_LOAD4 | ST_RUN_STORE4)) != (ST_RUN_LOAD4 | ST_RUN_STORE4))
            l2m_run_short(m0 + j, l0 + j, pc, n, P);
        else if (flags & ST_RUN_KEEP)
            l2m_run(m0 + j, l0 + j, pc, P, 1);
        else
            l2m_run(m0 + j, l0 + j, pc, P, 0);
    }
}

#if defined(SV_SSE2)
/* 1 when the 4 items from g are single joints j, j+1, j+2, j+3, each the
 * parent of the next */
static inline int l2m_aos_chain4(const short *g) {
    const int j = g[1];
    return g[9] == 1 && g[18] == 1 && g[27] == 1 && g[10] == j + 1 && g[19] == j + 2 && g[28] == j + 3 &&
           g[14] == j && g[23] == j + 1 && g[32] == j + 2;
}
#endif

/* The skeleton's schedule on the poses' blocks (after the checks): inlined
 * into two encodings of the same code below. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void l2m_schedule(float *m0, const float *l0, int pc, const stance_skeleton *sk, const float *rv,
                                const stance_transform *root) {
    const short *g = sk->l2m_groups;
    if (sk->l2m_runs) {
        l2m_runs(m0, l0, pc, g, sk->l2m_group_count, rv, !root);
        return;
    }
    sv4 S[10][4], *const X = &S[0][3]; /* the SoA items' state (above) */
    for (int c = 0; c < 10; c++) S[c][3] = sv_set1(0.0f);
    short have[4] = {-1, -1, -1, -1};
    const short *hp = NULL; /* have, once X holds joints */
#if defined(SV_SSE2)
    int aos = -1; /* the joint whose model transform is in AQ, AT, AS */
    sv4 AQ = sv_set1(0.0f), AT = AQ, AS = AQ;
#endif
    for (int k = 0; k < sk->l2m_group_count; k++, g += 9) {
        if (g[0] == 1) {
#if defined(SV_SSE2)
            if (k + 3 < sk->l2m_group_count && l2m_aos_chain4(g)) {
                /* 4 single-joint items j..j+3, each the parent of the next:
                 * their rows are one load a channel and a transpose to AoS
                 * (and back), instead of 10 scalar loads and stores a joint;
                 * the arithmetic is the one below, joint after joint */
                const int j = g[1], p = g[5];
                sv4 T[10], LT[4], LQ[4], LS[4];
                const float *l = l0 + j;
                for (int c = 0; c < 10; c++, l += pc) T[c] = sv_load(l);
                const sv4 zero = sv_set1(0.0f);
                LT[0] = T[0], LT[1] = T[1], LT[2] = T[2], LT[3] = zero;
                LQ[0] = T[3], LQ[1] = T[4], LQ[2] = T[5], LQ[3] = T[6];
                LS[0] = T[7], LS[1] = T[8], LS[2] = T[9], LS[3] = zero;
                sv_transpose4(LT), sv_transpose4(LQ), sv_transpose4(LS);
                int i0 = 0;
                if (p < 0 && !root) { /* a root under the identity: the local transform as it is */
                    AQ = LQ[0], AT = LT[0], AS = LS[0];
                    i0 = 1;
                } else if (p < 0) {
                    AQ = sv_setr(rv[3], rv[4], rv[5], rv[6]);
                    AT = sv_setr(rv[0], rv[1], rv[2], 0.0f), AS = sv_setr(rv[7], rv[8], rv[9], 0.0f);
                } else if (p != aos) {
                    const float *m = m0 + p;
                    AQ = sv_setr(m[3 * pc], m[4 * pc], m[5 * pc], m[6 * pc]);
                    AT = sv_setr(m[0], m[pc], m[2 * pc], 0.0f), AS = sv_setr(m[7 * pc], m[8 * pc], m[9 * pc], 0.0f);
                }
                sv4 OT[4], OQ[4], OS[4];
                if (i0) OT[0] = AT, OQ[0] = AQ, OS[0] = AS;
                for (int i = i0; i < 4; i++) {
                    AT = sv_add(AT, sv_qrot_aos(AQ, sv_mul(LT[i], AS)));
                    AQ = sv_qmul_aos(AQ, LQ[i]);
                    AS = sv_mul(AS, LS[i]);
                    OT[i] = AT, OQ[i] = AQ, OS[i] = AS;
                }
                sv_transpose4(OT), sv_transpose4(OQ), sv_transpose4(OS);
                float *m = m0 + j;
                for (int c = 0; c < 3; c++) sv_store(m + c * pc, OT[c]), sv_store(m + (7 + c) * pc, OS[c]);
                for (int c = 0; c < 4; c++) sv_store(m + (3 + c) * pc, OQ[c]);
                k += 3, g += 27, aos = j + 3;
                hp = NULL;
                continue;
            }
            /* one joint in AoS form (4 lanes x, y, z, w); along a chain the
             * parent is the previous joint, still in registers */
            const int j = g[1], p = g[5];
            const float *l = l0 + j;
            const sv4 lq = sv_setr(l[3 * pc], l[4 * pc], l[5 * pc], l[6 * pc]);
            const sv4 lt = sv_setr(l[0], l[pc], l[2 * pc], 0.0f), ls = sv_setr(l[7 * pc], l[8 * pc], l[9 * pc], 0.0f);
            if (p < 0 && !root) { /* a root under the identity: the local transform as it is */
                AQ = lq, AT = lt, AS = ls;
            } else {
                if (p < 0) {
                    AQ = sv_setr(rv[3], rv[4], rv[5], rv[6]);
                    AT = sv_setr(rv[0], rv[1], rv[2], 0.0f), AS = sv_setr(rv[7], rv[8], rv[9], 0.0f);
                } else if (p != aos) {
                    const float *m = m0 + p;
                    AQ = sv_setr(m[3 * pc], m[4 * pc], m[5 * pc], m[6 * pc]);
                    AT = sv_setr(m[0], m[pc], m[2 * pc], 0.0f), AS = sv_setr(m[7 * pc], m[8 * pc], m[9 * pc], 0.0f);
                }
                AT = sv_add(AT, sv_qrot_aos(AQ, sv_mul(lt, AS)));
                AQ = sv_qmul_aos(AQ, lq);
                AS = sv_mul(AS, ls);
            }
            sv_store_lanes(m0 + j, pc, AT, 3);
            sv_store_lanes(m0 + 3 * pc + j, pc, AQ, 4);
            sv_store_lanes(m0 + 7 * pc + j, pc, AS, 3);
            aos = j;
#else
            if (g[5] < 0 && !root) { /* a root under the identity: the local transform as it is */
                for (int c = 0; c < 10; c++) m0[c * pc + g[1]] = l0[c * pc + g[1]];
            } else {
                l2m_joint(m0, l0, pc, g[5], g[1], rv);
            }
#endif
            hp = NULL;
            continue;
        }
        l2m_parents(X, hp, m0, pc, g + 5, rv);
        if (g[0] == 5) {
            l2m_tile(m0, l0, pc, g + 1, S, 4);
            for (int i = 0; i < 4; i++) have[i] = (short)(g[1 + i] + 3);
        } else if (g[0] > 5) { /* lane 3 short: one copy of the tile for each length */
            if (g[0] == 6)
                l2m_tile(m0, l0, pc, g + 1, S, 3);
            else if (g[0] == 7)
                l2m_tile(m0, l0, pc, g + 1, S, 2);
            else
                l2m_tile(m0, l0, pc, g + 1, S, 1);
            for (int i = 0; i < 3; i++) have[i] = (short)(g[1 + i] + 3);
            have[3] = -2; /* no joint */
        } else {
            l2m_group(m0, l0, pc, g + 1, X);
            hp = g + 1; /* X holds the group's joints, as listed in the item */
            continue;
        }
        hp = have;
    }
    }

static void l2m_sse(float *m0, const float *l0, int pc, const stance_skeleton *sk, const float *rv,
                    const stance_transform *root) {
    l2m_schedule(m0, l0, pc, sk, rv, root);
}
#if defined(SV_SSE2) && defined(__GNUC__) && defined(__x86_64__) && !defined(__AVX__)
/* The same code in VEX encoding, taken at run time on CPUs with AVX (the
 * build stays portable x86-64): its 3-operand forms need none of the
 * register copies SSE2's 2-operand forms do (local-to-model of
 * RobotExpressive: 3,043 -> 2,600 instructions). The same operations in the
 * same order, no FMA: the same results bit for bit. */
#define L2M_VEX 1
__attribute__((target("avx"))) static void l2m_vex(float *m0, const float *l0, int pc, const stance_skeleton *sk,
                                                   const float *rv, const stance_transform *root) {
    l2m_schedule(m0, l0, pc, sk, rv, root);
}
#endif

static const float l2m_identity_rv[10] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 1.0f, 1.0f, 1.0f};

int st_local_to_model_as(stance_pose *model, const stance_pose *local, const stance_skeleton *sk,
                         const stance_transform *root, int vex) {
    float rv[10];
    for (int c = 0; c < 10; c++) rv[c] = l2m_identity_rv[c];
    if (root) {
        for (int c = 0; c < 3; c++) rv[c] = root->t[c], rv[7 + c] = root->s[c];
        for (int c = 0; c < 4; c++) rv[3 + c] = root->r[c];
    }
    if (!vex) {
        l2m_sse(model->tx, local->tx, model->padded_count, sk, rv, root);
        return 1;
    }
#if defined(L2M_VEX)
    if (__builtin_cpu_supports("avx")) {
        l2m_vex(model->tx, local->tx, model->padded_count, sk, rv, root);
        return 1;
    }
#endif
    return 0;
}

stance_status stance_local_to_model(stance_pose *model, const stance_pose *local, const stance_skeleton *sk,
                                    const stance_transform *root) {
    if (!valid(model) || !valid(local) || !sk || model == local) return STANCE_ERR_ARGUMENT;
    const int n = sk->joint_count;
    if (model->joint_count != n || local->joint_count != n) return STANCE_ERR_ARGUMENT;
    /* the root transform's 10 channels (the identity's when root is NULL) */
    float root_rv[10];
    const float *rv = l2m_identity_rv;
    if (root) {
        if (!st_finite_n(root->t, 3) || !st_finite_n(root->r, 4) || !st_finite_n(root->s, 3)) return STANCE_ERR_VALUE;
        for (int c = 0; c < 3; c++) root_rv[c] = root->t[c], root_rv[7 + c] = root->s[c];
        for (int c = 0; c < 4; c++) root_rv[3 + c] = root->r[c];
        rv = root_rv;
    }
#if defined(L2M_VEX)
    if (__builtin_cpu_supports("avx")) {
        l2m_vex(model->tx, local->tx, model->padded_count, sk, rv, root);
        return STANCE_OK;
    }
#endif
    l2m_sse(model->tx, local->tx, model->padded_count, sk, rv, root);
    return STANCE_OK;
}

stance_status stance_model_to_local(stance_pose *local, const stance_pose *model, const stance_skeleton *sk) {
    if (!valid(model) || !valid(local) || !sk || model == local) return STANCE_ERR_ARGUMENT;
    const int n = sk->joint_count;
    if (model->joint_count != n || local->joint_count != n) return STANCE_ERR_ARGUMENT;
    for (int j = 0; j < n; j++) {
        int p = sk->parents[j];
        if (p < 0) {
            local->tx[j] = model->tx[j], local->ty[j] = model->ty[j], local->tz[j] = model->tz[j];
            local->qx[j] = model->qx[j], local->qy[j] = model->qy[j], local->qz[j] = model->qz[j], local->qw[j] = model->qw[j];
            local->sx[j] = model->sx[j], local->sy[j] = model->sy[j], local->sz[j] = model->sz[j];
            continue;
        }
        float ix = -model->qx[p], iy = -model->qy[p], iz = -model->qz[p], iw = model->qw[p];
        float dx = model->tx[j] - model->tx[p], dy = model->ty[j] - model->ty[p], dz = model->tz[j] - model->tz[p];
        float vx, vy, vz;
        QROT(vx, vy, vz, ix, iy, iz, iw, dx, dy, dz);
        float psx = model->sx[p], psy = model->sy[p], psz = model->sz[p];
        local->tx[j] = psx != 0.0f ? vx / psx : 0.0f;
        local->ty[j] = psy != 0.0f ? vy / psy : 0.0f;
        local->tz[j] = psz != 0.0f ? vz / psz : 0.0f;
        QMUL(local->qx[j], local->qy[j], local->qz[j], local->qw[j], ix, iy, iz, iw,
             model->qx[j], model->qy[j], model->qz[j], model->qw[j]);
        local->sx[j] = psx != 0.0f ? model->sx[j] / psx : 1.0f;
        local->sy[j] = psy != 0.0f ? model->sy[j] / psy : 1.0f;
        local->sz[j] = psz != 0.0f ? model->sz[j] / psz : 1.0f;
    }
    return STANCE_OK;
}

stance_status stance_pose_distance(const stance_pose *a, const stance_pose *b, float *distance, int *joint) {
    if (!valid(a) || !valid(b) || !distance || a->joint_count != b->joint_count) return STANCE_ERR_ARGUMENT;
    float best = 0.0f;
    int at = 0;
    for (int j = 0; j < a->joint_count; j++) {
        float dx = a->tx[j] - b->tx[j], dy = a->ty[j] - b->ty[j], dz = a->tz[j] - b->tz[j];
        float d = sqrtf(dx * dx + dy * dy + dz * dz);
        if (d > best) best = d, at = j;
    }
    *distance = best;
    if (joint) *joint = at;
    return STANCE_OK;
}

stance_status stance_pose_to_matrices(const stance_pose *m, float *out, int matrix_count) {
    if (!valid(m) || !out || matrix_count < m->joint_count) return STANCE_ERR_ARGUMENT;
    for (int j = 0; j < m->joint_count; j++) {
        float x = m->qx[j], y = m->qy[j], z = m->qz[j], w = m->qw[j];
        float *o = out + (size_t)j * 16;
        o[0] = (1 - 2 * (y * y + z * z)) * m->sx[j];
        o[1] = (2 * (x * y + z * w)) * m->sx[j];
        o[2] = (2 * (x * z - y * w)) * m->sx[j];
        o[3] = 0;
        o[4] = (2 * (x * y - z * w)) * m->sy[j];
        o[5] = (1 - 2 * (x * x + z * z)) * m->sy[j];
        o[6] = (2 * (y * z + x * w)) * m->sy[j];
        o[7] = 0;
        o[8] = (2 * (x * z + y * w)) * m->sz[j];
        o[9] = (2 * (y * z - x * w)) * m->sz[j];
        o[10] = (1 - 2 * (x * x + y * y)) * m->sz[j];
        o[11] = 0;
        o[12] = m->tx[j], o[13] = m->ty[j], o[14] = m->tz[j], o[15] = 1;
    }
    return STANCE_OK;
}
