/* src/core/rig/pose.c - SoA pose buffers and the per-frame operations on them:
 * blend, masked blend (local and mesh space), additive make/apply,
 * model-to-local (local-to-model is local_to_model.c), pose distance, matrices.
 *
 * Loops run over plain float arrays so the compiler vectorizes them; nothing
 * here allocates (except stance_pose_create) or keeps state between calls. */
#include <float.h>
#include <string.h>

#include "core/base/internal.h"
#include "core/rig/rig_internal.h"
#include "core/math/pose_math.h"
#include "core/math/simd.h"
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

/* Every joint and the padding to the identity (the pose bound). */
static void set_identity(stance_pose *pose) {
    size_t pc = (size_t)pose->padded_count;
    memset(pose->tx, 0, pc * 3 * sizeof(float));
    memset(pose->qx, 0, pc * 3 * sizeof(float));
    for (size_t i = 0; i < pc; i++) pose->qw[i] = 1.0f, pose->sx[i] = 1.0f, pose->sy[i] = 1.0f, pose->sz[i] = 1.0f;
}

static int valid(const stance_pose *p) { return p && p->memory && p->joint_count > 0; }

/* The one check of a pose argument (issue 23: every refusal has its
 * message): NULL or not bound to memory, or a joint count other than n
 * (n 0: any). `who` names the call, `name` the argument. */
ST_BODY stance_status check_pose(const stance_pose *p, const char *who, const char *name, int n, stance_error *err) {
    if (!valid(p)) return ST_FAIL(err, STANCE_ERR_ARGUMENT, "%s: %s is NULL or not bound to memory", who, name);
    if (n && p->joint_count != n)
        return ST_FAIL(err, STANCE_ERR_ARGUMENT, "%s: %s has %d joints, not %d", who, name, p->joint_count, n);
    return STANCE_OK;
}

/* A blend weight: finite, in [0, 1]. */
ST_BODY stance_status check_weight(float w, const char *who, stance_error *err) {
    if (!st_finite(w) || w < 0.0f || w > 1.0f)
        return ST_FAIL(err, STANCE_ERR_VALUE, "%s: weight %g is not finite in [0, 1]", who, (double)w);
    return STANCE_OK;
}

stance_status stance_pose_set_identity(stance_pose *pose, stance_error *err) {
    if (check_pose(pose, "pose set identity", "pose", 0, err)) return STANCE_ERR_ARGUMENT;
    set_identity(pose);
    return st_ok(err);
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
    set_identity(pose);
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
    set_identity(pose);
    return st_ok(err);
}

void stance_pose_destroy(stance_pose *pose) {
    if (!pose || !pose->memory) return;
    stance_allocator al = pose->allocator;
    st_free(&al, pose->memory, stance_pose_bytes(pose->joint_count));
    memset(pose, 0, sizeof *pose);
}

stance_status stance_pose_set_rest(stance_pose *pose, const stance_skeleton *sk, stance_error *err) {
    if (!sk) return st_fail(err, STANCE_ERR_ARGUMENT, "pose set rest: skeleton is NULL");
    if (check_pose(pose, "pose set rest", "pose", sk->joint_count, err)) return STANCE_ERR_ARGUMENT;
    for (int j = 0; j < sk->joint_count; j++) {
        const stance_transform *t = &sk->rest[j];
        pose->tx[j] = t->t[0], pose->ty[j] = t->t[1], pose->tz[j] = t->t[2];
        pose->qx[j] = t->r[0], pose->qy[j] = t->r[1], pose->qz[j] = t->r[2], pose->qw[j] = t->r[3];
        pose->sx[j] = t->s[0], pose->sy[j] = t->s[1], pose->sz[j] = t->s[2];
    }
    return st_ok(err);
}

ST_BODY stance_status pose_copy(stance_pose *dst, const stance_pose *src, stance_error *err) {
    if (check_pose(src, "pose copy", "src", 0, err) || check_pose(dst, "pose copy", "dst", src->joint_count, err))
        return STANCE_ERR_ARGUMENT;
    if (dst != src) memcpy(dst->memory, src->memory, stance_pose_bytes(src->joint_count));
    return st_ok(err);
}
stance_status stance_pose_copy(stance_pose *dst, const stance_pose *src, stance_error *err) {
    return pose_copy(dst, src, err);
}
stance_status st_pose_copy(stance_pose *dst, const stance_pose *src) { return pose_copy(dst, src, NULL); }

/* A joint index and an out pointer. */
static stance_status check_joint(const stance_pose *p, int j, const void *ptr, const char *who, const char *ptr_name,
                                 stance_error *err) {
    if (check_pose(p, who, "pose", 0, err)) return STANCE_ERR_ARGUMENT;
    if (!ptr) return st_fail(err, STANCE_ERR_ARGUMENT, "%s: %s is NULL", who, ptr_name);
    if (j < 0 || j >= p->joint_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "%s: joint %d is not in 0..%d", who, j, p->joint_count - 1);
    return STANCE_OK;
}

stance_status stance_pose_get(const stance_pose *p, int j, stance_transform *out, stance_error *err) {
    if (check_joint(p, j, out, "pose get", "out", err)) return STANCE_ERR_ARGUMENT;
    out->t[0] = p->tx[j], out->t[1] = p->ty[j], out->t[2] = p->tz[j];
    out->r[0] = p->qx[j], out->r[1] = p->qy[j], out->r[2] = p->qz[j], out->r[3] = p->qw[j];
    out->s[0] = p->sx[j], out->s[1] = p->sy[j], out->s[2] = p->sz[j];
    return st_ok(err);
}

stance_status stance_pose_set(stance_pose *p, int j, const stance_transform *in, stance_error *err) {
    if (check_joint(p, j, in, "pose set", "transform", err)) return STANCE_ERR_ARGUMENT;
    char why[200];
    if (st_check_trs(in->t, in->r, in->s, why, sizeof why)) /* the limits of stance/base.h */
        return st_fail(err, STANCE_ERR_VALUE, "pose set: joint %d: %s", j, why);
    float inv = 1.0f / sqrtf(in->r[0] * in->r[0] + in->r[1] * in->r[1] + in->r[2] * in->r[2] + in->r[3] * in->r[3]);
    p->tx[j] = in->t[0], p->ty[j] = in->t[1], p->tz[j] = in->t[2];
    p->qx[j] = in->r[0] * inv, p->qy[j] = in->r[1] * inv, p->qz[j] = in->r[2] * inv, p->qw[j] = in->r[3] * inv;
    p->sx[j] = in->s[0], p->sy[j] = in->s[1], p->sz[j] = in->s[2];
    return st_ok(err);
}

/* Padding joints hold the identity, so the 4-wide blocks run over
 * padded_count (a multiple of 8) with no tail. */
static void normalize_rotations(stance_pose *o, int pc) { sv_block_normalize_rot(o->qx, pc, o->padded_count); }

/* stance_pose_blend past its common case: every check, with its message. */
ST_NOINLINE static stance_status blend_general(stance_pose *out, const stance_pose *const *poses, const float *weights, int count,
                                   float threshold, const stance_skeleton *sk, stance_error *err) {
    static const char who[] = "pose blend";
    if (check_pose(out, who, "out", 0, err)) return STANCE_ERR_ARGUMENT;
    if (!poses || !weights || count < 1 || count > 64)
        return st_fail(err, STANCE_ERR_ARGUMENT, "%s: poses or weights is NULL, or count %d is not in 1..64", who, count);
    if (!st_finite(threshold) || threshold < 0.0f)
        return st_fail(err, STANCE_ERR_VALUE, "%s: threshold %g is not finite and >= 0", who, (double)threshold);
    if (threshold == 0.0f) threshold = 1e-4f;
    const int n = out->joint_count, pc = out->padded_count;
    float total = 0.0f;
    int first = -1;
    for (int i = 0; i < count; i++) {
        if (!valid(poses[i]) || poses[i]->joint_count != n)
            return st_fail(err, STANCE_ERR_ARGUMENT, "%s: poses[%d] is NULL, not bound to memory or has %d joints, not %d",
                           who, i, poses[i] ? poses[i]->joint_count : 0, n);
        if (!st_finite(weights[i]) || weights[i] < 0.0f)
            return st_fail(err, STANCE_ERR_VALUE, "%s: weights[%d] = %g is not finite and >= 0", who, i, (double)weights[i]);
        if (weights[i] > 0.0f && first < 0) first = i;
        total += weights[i];
    }
    /* weights whose sum passes the float range (each <= FLT_MAX): all scaled
     * by 1/64, exactly, before they are normalized (else 1 / total is 0) */
    float scale = 1.0f;
    if (total > FLT_MAX) {
        scale = 1.0f / 64.0f, total = 0.0f;
        for (int i = 0; i < count; i++) total += weights[i] * scale;
    }
    if (total < threshold) {
        if (!sk || sk->joint_count != n)
            return st_fail(err, STANCE_ERR_ARGUMENT, "%s: the weights sum to %g, under the threshold, and the skeleton "
                           "for the rest pose is NULL or has another joint count", who, (double)total);
        return stance_pose_set_rest(out, sk, err);
    }
    for (int i = 1; i < count; i++)
        if (poses[i] == out && weights[i] > 0.0f) /* only poses[0] may alias */
            return st_fail(err, STANCE_ERR_ARGUMENT, "%s: poses[%d] is out (only poses[0] may be)", who, i);
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
        const float wa = weights[used[0]] * scale * inv_total, wb = weights[used[1]] * scale * inv_total;
        sv_block_lerp2(o, a, b, wb, 3 * pc);
        sv_block_lerp2(o + 7 * pc, a + 7 * pc, b + 7 * pc, wb, 3 * pc);
        sv_block_nlerp2(o + 3 * pc, a + 3 * pc, b + 3 * pc, wa, wb, pc, pc);
        return st_ok(err);
    }
    int started = 0;
    for (int i = 0; i < count; i++) {
        if (!(weights[i] > 0.0f)) continue;
        const float w = weights[i] * scale * inv_total;
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
    return st_ok(err);
}

/* The two-pose blend's pass (sv_block_blend2), compiled as it is (SSE2, or
 * the scalar form) and, where the build is for baseline x86-64, in VEX
 * encoding for CPUs with AVX: the same operations in the same order, no
 * FMA, so the same bits (as local_to_model.c's two copies). */
SV_VEX_DEFINE(blend2, (float *o, const float *a, const float *b, float wa, float wb, int pc), (o, a, b, wa, wb, pc),
              sv_block_blend2)
static inline void blend2_pass(float *o, const float *a, const float *b, float wa, float wb, int pc) {
    SV_VEX_DISPATCH(blend2, (o, a, b, wa, wb, pc));
}

int st_pose_blend2_as(float *o, const float *a, const float *b, float wa, float wb, int pc, int vex) {
    return SV_VEX_AS(vex, blend2, (o, a, b, wa, wb, pc));
}

stance_status stance_pose_blend(stance_pose *out, const stance_pose *const *poses, const float *weights,
                                int count, float threshold, const stance_skeleton *sk, stance_error *err) {
    /* The common case, checked and blended in one go: two poses, both
     * weights finite and > 0 (NaN fails the comparisons), their sum finite and above
     * the threshold (a finite one >= 0), poses[1] not out. Anything else
     * (and every refusal, with its message) is blend_general's. */
    if (count == 2 && valid(out) && poses && weights && threshold >= 0.0f && threshold <= FLT_MAX) {
        const stance_pose *a = poses[0], *b = poses[1];
        const float w0 = weights[0], w1 = weights[1];
        if (valid(a) && valid(b) && a->joint_count == out->joint_count && b->joint_count == out->joint_count &&
            b != out && w0 > 0.0f && w1 > 0.0f && w0 + w1 <= FLT_MAX && w0 + w1 >= (threshold > 0.0f ? threshold : 1e-4f)) {
            const float inv_total = 1.0f / (w0 + w1);
            st_ok(err); /* before the work: err is not kept through it */
            blend2_pass(out->tx, a->tx, b->tx, w0 * inv_total, w1 * inv_total, out->padded_count);
            return STANCE_OK;
        }
    }
    return blend_general(out, poses, weights, count, threshold, sk, err);
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

ST_BODY stance_status blend_masked(stance_pose *out, const stance_pose *base, const stance_pose *layer,
                                   const float *jw, float weight, stance_error *err) {
    static const char who[] = "pose blend masked";
    if (check_pose(out, who, "out", 0, err) || check_pose(base, who, "base", out->joint_count, err) ||
        check_pose(layer, who, "layer", out->joint_count, err))
        return STANCE_ERR_ARGUMENT;
    if (check_weight(weight, who, err)) return STANCE_ERR_VALUE;
    const int n = out->joint_count;
    const int n4 = n & ~3;
    masked_block(out, base, layer, jw, weight, n4);
    for (int j = n4; j < n; j++) masked_joint(out, base, layer, jw ? weight * jw[j] : weight, j);
    return st_ok(err);
}
stance_status stance_pose_blend_masked(stance_pose *out, const stance_pose *base, const stance_pose *layer,
                                       const float *jw, float weight, stance_error *err) {
    return blend_masked(out, base, layer, jw, weight, err);
}

ST_BODY stance_status blend_mesh(stance_pose *out, const stance_pose *base, const stance_pose *layer,
                                 const stance_pose *layer_model, const float *jw, float weight,
                                 const stance_skeleton *sk, stance_error *err) {
    static const char who[] = "pose blend mesh";
    if (!sk) return ST_FAIL(err, STANCE_ERR_ARGUMENT, "%s: skeleton is NULL", who);
    const int n = sk->joint_count;
    if (check_pose(out, who, "out", n, err) || check_pose(base, who, "base_local", n, err) ||
        check_pose(layer, who, "layer_local", n, err) || check_pose(layer_model, who, "layer_model", n, err))
        return STANCE_ERR_ARGUMENT;
    if (out == base || out == layer || out == layer_model)
        return ST_FAIL(err, STANCE_ERR_ARGUMENT, "%s: out is one of the inputs (it must not alias them)", who);
    if (check_weight(weight, who, err)) return STANCE_ERR_VALUE;
    /* Translations and scales: local blend. Rotations: pass 1 writes each
     * joint's output model rotation into out->q (parents first). */
    stance_status s = blend_masked(out, base, layer, jw, weight, err);
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
    return st_ok(err);
}
stance_status stance_pose_blend_mesh(stance_pose *out, const stance_pose *base, const stance_pose *layer,
                                     const stance_pose *layer_model, const float *jw, float weight,
                                     const stance_skeleton *sk, stance_error *err) {
    return blend_mesh(out, base, layer, layer_model, jw, weight, sk, err);
}
stance_status st_pose_blend_mesh(stance_pose *out, const stance_pose *base, const stance_pose *layer,
                                 const stance_pose *layer_model, const float *jw, float weight, const stance_skeleton *sk) {
    return blend_mesh(out, base, layer, layer_model, jw, weight, sk, NULL);
}

ST_BODY stance_status additive_make(stance_pose *delta, const stance_pose *pose, const stance_pose *ref,
                                    stance_error *err) {
    static const char who[] = "pose additive make";
    if (check_pose(delta, who, "delta", 0, err) || check_pose(pose, who, "pose", delta->joint_count, err) ||
        check_pose(ref, who, "reference", delta->joint_count, err))
        return STANCE_ERR_ARGUMENT;
    const int n = delta->joint_count;
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
    return st_ok(err);
}
stance_status stance_pose_additive_make(stance_pose *delta, const stance_pose *pose, const stance_pose *ref,
                                        stance_error *err) {
    return additive_make(delta, pose, ref, err);
}
stance_status st_pose_additive_make(stance_pose *delta, const stance_pose *pose, const stance_pose *ref) {
    return additive_make(delta, pose, ref, NULL);
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

ST_BODY stance_status additive_apply(stance_pose *out, const stance_pose *base, const stance_pose *delta,
                                     const float *jw, float weight, stance_error *err) {
    static const char who[] = "pose additive apply";
    if (check_pose(out, who, "out", 0, err) || check_pose(base, who, "base", out->joint_count, err) ||
        check_pose(delta, who, "delta", out->joint_count, err))
        return STANCE_ERR_ARGUMENT;
    if (check_weight(weight, who, err)) return STANCE_ERR_VALUE;
    const int n = out->joint_count;
    const int n4 = n & ~3;
    additive_block(out, base, delta, jw, weight, n4);
    for (int j = n4; j < n; j++) additive_joint(out, base, delta, jw ? weight * jw[j] : weight, j);
    return st_ok(err);
}
stance_status stance_pose_additive_apply(stance_pose *out, const stance_pose *base, const stance_pose *delta,
                                         const float *jw, float weight, stance_error *err) {
    return additive_apply(out, base, delta, jw, weight, err);
}
stance_status st_pose_additive_apply(stance_pose *out, const stance_pose *base, const stance_pose *delta,
                                     const float *jw, float weight) {
    return additive_apply(out, base, delta, jw, weight, NULL);
}

void st_additive_apply_padded(stance_pose *out, const stance_pose *base, const stance_pose *delta, const float *mask,
                              float weight) {
    additive_block(out, base, delta, mask, weight, out->padded_count);
}

stance_status stance_model_to_local(stance_pose *local, const stance_pose *model, const stance_skeleton *sk,
                                    stance_error *err) {
    static const char who[] = "model to local";
    if (!sk) return st_fail(err, STANCE_ERR_ARGUMENT, "%s: skeleton is NULL", who);
    const int n = sk->joint_count;
    if (check_pose(local, who, "local", n, err) || check_pose(model, who, "model", n, err)) return STANCE_ERR_ARGUMENT;
    if (model == local) return st_fail(err, STANCE_ERR_ARGUMENT, "%s: local and model are the same pose", who);
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
    return st_ok(err);
}

stance_status stance_pose_distance(const stance_pose *a, const stance_pose *b, float *distance, int *joint,
                                   stance_error *err) {
    static const char who[] = "pose distance";
    if (check_pose(a, who, "a", 0, err) || check_pose(b, who, "b", a->joint_count, err)) return STANCE_ERR_ARGUMENT;
    if (!distance) return st_fail(err, STANCE_ERR_ARGUMENT, "%s: distance is NULL", who);
    float best = 0.0f;
    int at = 0;
    for (int j = 0; j < a->joint_count; j++) {
        float dx = a->tx[j] - b->tx[j], dy = a->ty[j] - b->ty[j], dz = a->tz[j] - b->tz[j];
        float d = sqrtf(dx * dx + dy * dy + dz * dz);
        if (d > best) best = d, at = j;
    }
    *distance = best;
    if (joint) *joint = at;
    return st_ok(err);
}

stance_status stance_pose_to_matrices(const stance_pose *m, float *out, int matrix_count, stance_error *err) {
    static const char who[] = "pose to matrices";
    if (check_pose(m, who, "model", 0, err)) return STANCE_ERR_ARGUMENT;
    if (!out || matrix_count < m->joint_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "%s: matrices is NULL or holds %d matrices, the pose has %d joints", who,
                       matrix_count, m->joint_count);
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
    return st_ok(err);
}
