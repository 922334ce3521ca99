/* src/core/clip/fused.c - the fused passes of evaluation (see core/clip/fused.h):
 * a dense clip sampled block by block straight into what uses it (the
 * additive apply, the two-clip blend, the masked override, the crossfade
 * from an old clip, or a pose), with the same arithmetic in the same order
 * as stance_clip_sample followed by the unfused operation, so the results
 * are those of the unfused path. The common key layout (translations and
 * rotations keyed, scale constant) is compiled as its own loop. Owns no
 * state. */
#include <float.h>

#include "core/clip/fused.h"
#include "core/base/internal.h"
#include "core/clip/clip_internal.h"
#include "core/math/simd.h"

int st_delta_flags(const stance_clip *c) {
    if (!c || c->packed) return 0;
    const int n = 3 * c->padded_count;
    int t0 = c->t_keys == 1, s1 = c->s_keys == 1;
    for (int i = 0; i < n && t0; i++) t0 = c->t[i] == 0.0f;
    for (int i = 0; i < n && s1; i++) s1 = c->s[i] == 1.0f;
    return (t0 ? ST_DELTA_T0 : 0) | (s1 ? ST_DELTA_S1 : 0);
}

unsigned long long st_delta_still_blocks(const stance_clip *c) {
    if (!c || c->packed) return 0;
    const int pc = c->padded_count, blocks = pc / 4 < 64 ? pc / 4 : 64;
    unsigned long long still = 0;
    for (int b = 0; b < blocks; b++) {
        int id = 1;
        for (int k = 0; k < c->r_keys && id; k++)
            for (int j = 4 * b; j < 4 * b + 4 && id; j++) {
                const float *r = c->r + (size_t)k * 4 * (size_t)pc + (size_t)j;
                id = r[0] == 0.0f && r[pc] == 0.0f && r[2 * pc] == 0.0f && r[3 * pc] == 1.0f;
            }
        if (id) still |= 1ull << b;
    }
    return still;
}

/* The clip's key blocks at interval k (k1 = k + 1 when it has keys), or its
 * one block for a constant channel: k0 and k1 the same block. */
typedef struct keys {
    const float *t0, *t1, *r0, *r1, *s0, *s1;
    int t_lerp, r_lerp, s_lerp;
} keys;

static inline keys keys_at(const stance_clip *c, int k) {
    const size_t n3 = 3 * (size_t)c->padded_count, n4 = 4 * (size_t)c->padded_count;
    const int k1 = c->key_count > 1 ? k + 1 : k;
    keys K;
    K.t_lerp = c->t_keys > 1, K.r_lerp = c->r_keys > 1, K.s_lerp = c->s_keys > 1;
    K.t0 = c->t + (K.t_lerp ? n3 * (size_t)k : 0), K.t1 = c->t + (K.t_lerp ? n3 * (size_t)k1 : 0);
    K.r0 = c->r + (K.r_lerp ? n4 * (size_t)k : 0), K.r1 = c->r + (K.r_lerp ? n4 * (size_t)k1 : 0);
    K.s0 = c->s + (K.s_lerp ? n3 * (size_t)k : 0), K.s1 = c->s + (K.s_lerp ? n3 * (size_t)k1 : 0);
    return K;
}

/* a + (b - a) u, as clip.c's lerp_block */
static inline sv4 key_lerp(const float *a, const float *b, sv4 u, int lerp, int i) {
    const sv4 x = sv_loada(a + i);
    return lerp ? sv_madd(sv_sub(sv_loada(b + i), x), u, x) : x;
}

/* 4 joints' rotations at the key fraction u, normalized as clip.c's
 * nlerp_block (the squared length summed x, y, z, w in that order). */
static inline void key_nlerp(const float *a, const float *b, sv4 u, int lerp, int pc, int i, sv4 *q) {
    for (int c = 0; c < 4; c++) q[c] = key_lerp(a + c * pc, b + c * pc, u, lerp, i);
    if (!lerp) return; /* a constant channel is sampled as stored */
    const sv4 l2 = sv_add(sv_add(sv_add(sv_mul(q[0], q[0]), sv_mul(q[1], q[1])), sv_mul(q[2], q[2])), sv_mul(q[3], q[3]));
    const sv4 inv = sv_div(sv_set1(1.0f), sv_sqrt(l2));
    for (int c = 0; c < 4; c++) q[c] = sv_mul(q[c], inv);
}

#define ST_INLINE ST_FORCEINLINE

/* st_fused_additive's pass with its flags given (constants for the common
 * delta: rotations keyed, translation 0 and scale 1, no mask, in place). */
ST_INLINE void additive_body(stance_pose *out, const stance_pose *base, const keys *KP, float uf, int flags,
                             unsigned long long still, const float *mask, float weight, int rl) {
    const keys K = *KP;
    const int pc = out->padded_count;
    const sv4 u = sv_set1(uf), one = sv_set1(1.0f), vweight = sv_set1(weight);
    const float *const b0 = base->tx;
    float *const o0 = out->tx;
    /* rotations: the delta's, then nlerp(identity, delta, w) and base * that (pose.c's additive_block) */
    for (int j = 0; j < pc; j += 4) {
        if (j < 256 && (still >> (j / 4) & 1)) { /* the identity: base as it is */
            if (out == base) { /* skip the run of still blocks */
                while (j + 4 < pc && j + 4 < 256 && (still >> ((j + 4) / 4) & 1)) j += 4;
                continue;
            }
            for (int c = 3; c < 7; c++) sv_storea(o0 + c * pc + j, sv_loada(b0 + c * pc + j));
            continue;
        }
        const sv4 w = mask ? sv_mul(vweight, sv_load(mask + j)) : vweight;
        sv4 d[4];
        key_nlerp(K.r0, K.r1, u, rl, pc, j, d);
        sv4 dx = sv_mul(d[0], w), dy = sv_mul(d[1], w), dz = sv_mul(d[2], w);
        sv4 dw = sv_madd(d[3], w, sv_copysign(sv_sub(one, w), d[3]));
        const sv4 inv = sv_div(one, sv_sqrt(sv_dot4(dx, dy, dz, dw, dx, dy, dz, dw)));
        dx = sv_mul(dx, inv), dy = sv_mul(dy, inv), dz = sv_mul(dz, inv), dw = sv_mul(dw, inv);
        const float *b = b0 + 3 * pc + j;
        float *o = o0 + 3 * pc + j;
        const sv4 qx = sv_loada(b), qy = sv_loada(b + pc), qz = sv_loada(b + 2 * pc), qw = sv_loada(b + 3 * pc);
        sv_storea(o, sv_sub(sv_add(sv_add(sv_mul(qw, dx), sv_mul(qx, dw)), sv_mul(qy, dz)), sv_mul(qz, dy)));
        sv_storea(o + pc, sv_add(sv_add(sv_sub(sv_mul(qw, dy), sv_mul(qx, dz)), sv_mul(qy, dw)), sv_mul(qz, dx)));
        sv_storea(o + 2 * pc, sv_add(sv_sub(sv_add(sv_mul(qw, dz), sv_mul(qx, dy)), sv_mul(qy, dx)), sv_mul(qz, dw)));
        sv_storea(o + 3 * pc, sv_sub(sv_sub(sv_sub(sv_mul(qw, dw), sv_mul(qx, dx)), sv_mul(qy, dy)), sv_mul(qz, dz)));
    }
    /* translations: base + w delta; nothing to do for a zero delta */
    const int n3 = 3 * pc;
    if (!(flags & ST_DELTA_T0)) {
        for (int i = 0; i < n3; i += 4) {
            const int j = i % pc; /* the joint block of this vector */
            const sv4 w = mask ? sv_mul(vweight, sv_load(mask + j)) : vweight;
            sv_storea(o0 + i, sv_madd(key_lerp(K.t0, K.t1, u, K.t_lerp, i), w, sv_loada(b0 + i)));
        }
    } else if (out != base) {
        for (int i = 0; i < n3; i += 4) sv_storea(o0 + i, sv_loada(b0 + i));
    }
    /* scales: base * lerp(1, delta, w); nothing to do for a delta of 1 */
    if (!(flags & ST_DELTA_S1)) {
        for (int i = 0; i < n3; i += 4) {
            const int j = i % pc;
            const sv4 w = mask ? sv_mul(vweight, sv_load(mask + j)) : vweight;
            const sv4 ds = key_lerp(K.s0, K.s1, u, K.s_lerp, i);
            sv_storea(o0 + 7 * pc + i, sv_mul(sv_loada(b0 + 7 * pc + i), sv_madd(sv_sub(ds, one), w, one)));
        }
    } else if (out != base) {
        for (int i = 0; i < n3; i += 4) sv_storea(o0 + 7 * pc + i, sv_loada(b0 + 7 * pc + i));
    }
}


/* One block of 4 joints of the common delta (rotations keyed, no mask, in
 * place): additive_body's rotation step, the same arithmetic. */
ST_INLINE void additive_rot_block(float *const o0, const float *r0, const float *r1, sv4 u, sv4 w, sv4 one, sv4 w1,
                                  int pc, int j) {
    sv4 d[4];
    key_nlerp(r0, r1, u, 1, pc, j, d);
    sv4 dx = sv_mul(d[0], w), dy = sv_mul(d[1], w), dz = sv_mul(d[2], w);
    sv4 dw = sv_madd(d[3], w, sv_copysign(w1, d[3]));
    const sv4 inv = sv_div(one, sv_sqrt(sv_dot4(dx, dy, dz, dw, dx, dy, dz, dw)));
    dx = sv_mul(dx, inv), dy = sv_mul(dy, inv), dz = sv_mul(dz, inv), dw = sv_mul(dw, inv);
    float *o = o0 + 3 * pc + j;
    const sv4 qx = sv_loada(o), qy = sv_loada(o + pc), qz = sv_loada(o + 2 * pc), qw = sv_loada(o + 3 * pc);
    sv_storea(o, sv_sub(sv_add(sv_add(sv_mul(qw, dx), sv_mul(qx, dw)), sv_mul(qy, dz)), sv_mul(qz, dy)));
    sv_storea(o + pc, sv_add(sv_add(sv_sub(sv_mul(qw, dy), sv_mul(qx, dz)), sv_mul(qy, dw)), sv_mul(qz, dx)));
    sv_storea(o + 2 * pc, sv_add(sv_sub(sv_add(sv_mul(qw, dz), sv_mul(qx, dy)), sv_mul(qy, dx)), sv_mul(qz, dw)));
    sv_storea(o + 3 * pc, sv_sub(sv_sub(sv_sub(sv_mul(qw, dw), sv_mul(qx, dx)), sv_mul(qy, dy)), sv_mul(qz, dz)));
}

/* The index of the lowest set bit of a non-zero mask. */
static inline int lowest_bit(unsigned long long m) { return st_ctz64(m); }

ST_INLINE void fused_additive(stance_pose *out, const stance_pose *base, const stance_clip *delta, int flags,
                       unsigned long long still, float time, stance_cursor *cur, const float *mask, float weight) {
    float uf;
    const int k = st_clip_find_key(delta, time, cur, &uf);
    if (delta->r_keys > 1 && !mask && out == base && (flags & (ST_DELTA_T0 | ST_DELTA_S1)) == (ST_DELTA_T0 | ST_DELTA_S1)) {
        /* the common delta: only its rotation blocks that are not still, found from the mask's bits */
        const int pc = out->padded_count, blocks = pc / 4;
        const size_t n4 = 4 * (size_t)delta->padded_count;
        const float *const r0 = delta->r + n4 * (size_t)k, *const r1 = delta->r + n4 * (size_t)(delta->key_count > 1 ? k + 1 : k);
        const sv4 u = sv_set1(uf), one = sv_set1(1.0f), w = sv_set1(weight), w1 = sv_sub(one, w);
        float *const o0 = out->tx;
        unsigned long long active = ~still;
        if (blocks < 64) active &= (1ull << blocks) - 1;
        while (active) {
            const int b = lowest_bit(active);
            active &= active - 1;
            additive_rot_block(o0, r0, r1, u, w, one, w1, pc, 4 * b);
        }
        for (int j = 256; j < pc; j += 4) additive_rot_block(o0, r0, r1, u, w, one, w1, pc, j); /* past the mask's 64 blocks */
        return;
    }
    const keys K = keys_at(delta, k);
    additive_body(out, base, &K, uf, flags, still, mask, weight, K.r_lerp);
}


/* The blend of st_fused_blend2 with the key flags given: called with
 * constants for the common clip (translations and rotations keyed, scales
 * constant) so the compiler drops the per-vector tests, and with the clips'
 * own flags otherwise. The arithmetic is the same either way. */
ST_INLINE void blend2_body(float *const o, const keys *A, const keys *B, sv4 ua, sv4 ub, sv4 u, float wa, float wb,
                           int pc, int at, int ar, int as, int bt, int br, int bs, int same_s) {
    const int n3 = 3 * pc;
    /* translations and scales: each clip's key lerp, then the blend a + (b - a) u */
    for (int i = 0; i < n3; i += 4) {
        const sv4 ta = key_lerp(A->t0, A->t1, ua, at, i), tb = key_lerp(B->t0, B->t1, ub, bt, i);
        sv_storea(o + i, sv_madd(sv_sub(tb, ta), u, ta));
    }
    if (same_s && !as && !bs) /* a + (b - a) u with b = a (no -0): a */
        for (int i = 0; i < n3; i += 4) sv_storea(o + 7 * pc + i, sv_loada(A->s0 + i));
    else for (int i = 0; i < n3; i += 4) {
        const sv4 sa = key_lerp(A->s0, A->s1, ua, as, i), sb = key_lerp(B->s0, B->s1, ub, bs, i);
        sv_storea(o + 7 * pc + i, sv_madd(sv_sub(sb, sa), u, sa));
    }
    /* rotations: each clip's nlerp, then sv_block_nlerp2's blend */
    const sv4 va = sv_set1(wa), vb = sv_set1(wb), one = sv_set1(1.0f), tiny = sv_set1(FLT_MIN);
    for (int j = 0; j < pc; j += 4) {
        sv4 qa[4], qb[4];
        key_nlerp(A->r0, A->r1, ua, ar, pc, j, qa);
        key_nlerp(B->r0, B->r1, ub, br, pc, j, qb);
        const sv4 ws = sv_xorsign(vb, sv_dot4(qa[0], qa[1], qa[2], qa[3], qb[0], qb[1], qb[2], qb[3]));
        sv4 x[4];
        for (int c = 0; c < 4; c++) x[c] = sv_madd(qb[c], ws, sv_mul(qa[c], va));
        const sv4 inv = sv_div(one, sv_sqrt(sv_max(sv_dot4(x[0], x[1], x[2], x[3], x[0], x[1], x[2], x[3]), tiny)));
        for (int c = 0; c < 4; c++) sv_storea(o + (3 + c) * pc + j, sv_mul(x[c], inv));
    }
}

ST_INLINE void fused_blend2(stance_pose *out, const stance_clip *a, float ta, stance_cursor *ca, const stance_clip *b,
                     float tb, stance_cursor *cb, float wa, float wb, int same_s) {
    float ua_f, ub_f;
    const keys A = keys_at(a, st_clip_find_key(a, ta, ca, &ua_f));
    const keys B = keys_at(b, st_clip_find_key(b, tb, cb, &ub_f));
    const int pc = out->padded_count;
    const sv4 ua = sv_set1(ua_f), ub = sv_set1(ub_f), u = sv_set1(wb / (wa + wb));
    if (A.t_lerp && A.r_lerp && !A.s_lerp && B.t_lerp && B.r_lerp && !B.s_lerp)
        blend2_body(out->tx, &A, &B, ua, ub, u, wa, wb, pc, 1, 1, 0, 1, 1, 0, same_s);
    else
        blend2_body(out->tx, &A, &B, ua, ub, u, wa, wb, pc, A.t_lerp, A.r_lerp, A.s_lerp, B.t_lerp, B.r_lerp, B.s_lerp,
                    same_s);
}

/* One block of rotations faded under: out's rotations at oq (pc apart)
 * over base rotations b, out's weight vw and b's wb = 1 - w (pose.c's
 * masked_block for one weight in (0, 1): b's hemisphere by the sign of the
 * dot, the sum normalized). */
ST_INLINE void fade_rot_block(float *oq, int pc, const sv4 *b, sv4 vw, sv4 wb, sv4 one) {
    const sv4 lx = sv_loada(oq), ly = sv_loada(oq + pc), lz = sv_loada(oq + 2 * pc), lw = sv_loada(oq + 3 * pc);
    const sv4 wl = sv_xorsign(vw, sv_dot4(b[0], b[1], b[2], b[3], lx, ly, lz, lw));
    const sv4 x = sv_add(sv_mul(b[0], wb), sv_mul(lx, wl)), y = sv_add(sv_mul(b[1], wb), sv_mul(ly, wl));
    const sv4 z = sv_add(sv_mul(b[2], wb), sv_mul(lz, wl)), ww = sv_add(sv_mul(b[3], wb), sv_mul(lw, wl));
    const sv4 inv = sv_div(one, sv_sqrt(sv_dot4(x, y, z, ww, x, y, z, ww)));
    sv_storea(oq, sv_mul(x, inv));
    sv_storea(oq + pc, sv_mul(y, inv));
    sv_storea(oq + 2 * pc, sv_mul(z, inv));
    sv_storea(oq + 3 * pc, sv_mul(ww, inv));
}

/* st_fused_blend2_under's pass with the key flags given (constants for the
 * common clips, as blend2_body): blend2_body's blend of a and b, block by
 * block, taken as the base of pose.c's masked_block with out as the layer
 * and one weight w in (0, 1) (no joint at either end). */
ST_INLINE void blend2_under_body(float *const o, const keys *A, const keys *B, sv4 ua, sv4 ub, sv4 u, float wa, float wb,
                                 sv4 vw, int pc, int at, int ar, int as, int bt, int br, int bs, int same_s) {
    const int n3 = 3 * pc;
    for (int i = 0; i < n3; i += 4) {
        const sv4 ta = key_lerp(A->t0, A->t1, ua, at, i), tb = key_lerp(B->t0, B->t1, ub, bt, i);
        const sv4 base = sv_madd(sv_sub(tb, ta), u, ta), lt = sv_loada(o + i);
        sv_storea(o + i, sv_madd(sv_sub(lt, base), vw, base));
    }
    if (same_s && !as && !bs)
        for (int i = 0; i < n3; i += 4) {
            const sv4 base = sv_loada(A->s0 + i), ls = sv_loada(o + 7 * pc + i);
            sv_storea(o + 7 * pc + i, sv_madd(sv_sub(ls, base), vw, base));
        }
    else for (int i = 0; i < n3; i += 4) {
        const sv4 sa = key_lerp(A->s0, A->s1, ua, as, i), sb = key_lerp(B->s0, B->s1, ub, bs, i);
        const sv4 base = sv_madd(sv_sub(sb, sa), u, sa), ls = sv_loada(o + 7 * pc + i);
        sv_storea(o + 7 * pc + i, sv_madd(sv_sub(ls, base), vw, base));
    }
    const sv4 va = sv_set1(wa), vb = sv_set1(wb), one = sv_set1(1.0f), tiny = sv_set1(FLT_MIN), wl0 = sv_sub(one, vw);
    for (int j = 0; j < pc; j += 4) {
        sv4 qa[4], qb[4];
        key_nlerp(A->r0, A->r1, ua, ar, pc, j, qa);
        key_nlerp(B->r0, B->r1, ub, br, pc, j, qb);
        const sv4 ws = sv_xorsign(vb, sv_dot4(qa[0], qa[1], qa[2], qa[3], qb[0], qb[1], qb[2], qb[3]));
        sv4 x[4];
        for (int c = 0; c < 4; c++) x[c] = sv_madd(qb[c], ws, sv_mul(qa[c], va));
        const sv4 inv = sv_div(one, sv_sqrt(sv_max(sv_dot4(x[0], x[1], x[2], x[3], x[0], x[1], x[2], x[3]), tiny)));
        sv4 b[4];
        for (int c = 0; c < 4; c++) b[c] = sv_mul(x[c], inv);
        fade_rot_block(o + 3 * pc + j, pc, b, vw, wl0, one);
    }
}

ST_INLINE void fused_blend2_under(stance_pose *out, const stance_clip *a, float ta, stance_cursor *ca, const stance_clip *b,
                           float tb, stance_cursor *cb, float wa, float wb, int same_s, float w) {
    w = w < 0.0f ? 0.0f : w > 1.0f ? 1.0f : w;
    if (w <= 0.0f) { /* the old blend alone */
        st_fused_blend2(out, a, ta, ca, b, tb, cb, wa, wb, same_s);
        return;
    }
    float ua_f, ub_f;
    const keys A = keys_at(a, st_clip_find_key(a, ta, ca, &ua_f));
    const keys B = keys_at(b, st_clip_find_key(b, tb, cb, &ub_f));
    if (w >= 1.0f) return; /* out alone (the cursors moved) */
    const int pc = out->padded_count;
    const sv4 ua = sv_set1(ua_f), ub = sv_set1(ub_f), u = sv_set1(wb / (wa + wb)), vw = sv_set1(w);
    if (A.t_lerp && A.r_lerp && !A.s_lerp && B.t_lerp && B.r_lerp && !B.s_lerp)
        blend2_under_body(out->tx, &A, &B, ua, ub, u, wa, wb, vw, pc, 1, 1, 0, 1, 1, 0, same_s);
    else
        blend2_under_body(out->tx, &A, &B, ua, ub, u, wa, wb, vw, pc, A.t_lerp, A.r_lerp, A.s_lerp, B.t_lerp, B.r_lerp,
                          B.s_lerp, same_s);
}

/* st_fused_override's pass with the key flags given (constants for the
 * common clip, as blend2_body). */
ST_INLINE void override_body(float *const o0, const float *const b0, const keys *K, sv4 u, const float *mask, float weight,
                             int pc, int tl, int rl, int sl) {
    const sv4 zero = sv_set1(0.0f), one = sv_set1(1.0f), vweight = sv_set1(weight);
    for (int j = 0; j < pc; j += 4) {
        if (mask && !(weight * mask[j] > 0.0f) && !(weight * mask[j + 1] > 0.0f) && !(weight * mask[j + 2] > 0.0f) &&
            !(weight * mask[j + 3] > 0.0f)) { /* no joint of the block takes the layer: exactly base */
            if (o0 != b0)
                for (int c = 0; c < 10; c++) sv_storea(o0 + c * pc + j, sv_loada(b0 + c * pc + j));
            continue;
        }
        if (mask ? weight * mask[j] >= 1.0f && weight * mask[j + 1] >= 1.0f && weight * mask[j + 2] >= 1.0f &&
                       weight * mask[j + 3] >= 1.0f
                 : weight >= 1.0f) { /* every joint of the block takes the layer alone: the sample as it is */
            for (int c = 0; c < 3; c++) {
                sv_storea(o0 + c * pc + j, key_lerp(K->t0 + c * pc, K->t1 + c * pc, u, tl, j));
                sv_storea(o0 + (7 + c) * pc + j, key_lerp(K->s0 + c * pc, K->s1 + c * pc, u, sl, j));
            }
            sv4 l[4];
            key_nlerp(K->r0, K->r1, u, rl, pc, j, l);
            for (int c = 0; c < 4; c++) sv_storea(o0 + (3 + c) * pc + j, l[c]);
            continue;
        }
        /* pose.c's masked_block on the block sampled here */
        const sv4 w = mask ? sv_mul(vweight, sv_load(mask + j)) : vweight;
        const sv4 lo = sv_le(w, zero), hi = sv_ge(w, one);
        for (int c = 0; c < 3; c++) {
            const sv4 bt = sv_loada(b0 + c * pc + j), lt = key_lerp(K->t0 + c * pc, K->t1 + c * pc, u, tl, j);
            const sv4 bs = sv_loada(b0 + (7 + c) * pc + j), ls = key_lerp(K->s0 + c * pc, K->s1 + c * pc, u, sl, j);
            sv_storea(o0 + c * pc + j, sv_select(lo, bt, sv_select(hi, lt, sv_madd(sv_sub(lt, bt), w, bt))));
            sv_storea(o0 + (7 + c) * pc + j, sv_select(lo, bs, sv_select(hi, ls, sv_madd(sv_sub(ls, bs), w, bs))));
        }
        sv4 l[4];
        key_nlerp(K->r0, K->r1, u, rl, pc, j, l);
        const float *bq = b0 + 3 * pc + j;
        const sv4 bx = sv_loada(bq), by = sv_loada(bq + pc), bz = sv_loada(bq + 2 * pc), bw = sv_loada(bq + 3 * pc);
        const sv4 wl = sv_xorsign(w, sv_dot4(bx, by, bz, bw, l[0], l[1], l[2], l[3])), wb = sv_sub(one, w);
        const sv4 x = sv_add(sv_mul(bx, wb), sv_mul(l[0], wl)), y = sv_add(sv_mul(by, wb), sv_mul(l[1], wl));
        const sv4 z = sv_add(sv_mul(bz, wb), sv_mul(l[2], wl)), ww = sv_add(sv_mul(bw, wb), sv_mul(l[3], wl));
        const sv4 inv = sv_div(one, sv_sqrt(sv_dot4(x, y, z, ww, x, y, z, ww)));
        float *oq = o0 + 3 * pc + j;
        sv_storea(oq, sv_select(lo, bx, sv_select(hi, l[0], sv_mul(x, inv))));
        sv_storea(oq + pc, sv_select(lo, by, sv_select(hi, l[1], sv_mul(y, inv))));
        sv_storea(oq + 2 * pc, sv_select(lo, bz, sv_select(hi, l[2], sv_mul(z, inv))));
        sv_storea(oq + 3 * pc, sv_select(lo, bw, sv_select(hi, l[3], sv_mul(ww, inv))));
    }
}

ST_INLINE void fused_override(stance_pose *out, const stance_pose *base, const stance_clip *layer, float time,
                       stance_cursor *cur, const float *mask, float weight) {
    float uf;
    const keys K = keys_at(layer, st_clip_find_key(layer, time, cur, &uf));
    const sv4 u = sv_set1(uf);
    if (K.t_lerp && K.r_lerp && !K.s_lerp && mask)
        override_body(out->tx, base->tx, &K, u, mask, weight, out->padded_count, 1, 1, 0);
    else
        override_body(out->tx, base->tx, &K, u, mask, weight, out->padded_count, K.t_lerp, K.r_lerp, K.s_lerp);
}

ST_INLINE void fused_override_pose(stance_pose *out, const stance_pose *base, const stance_pose *layer, const float *mask,
                                   float weight) {
    keys K; /* the layer's values as a clip's one block per channel: sampled as stored */
    K.t0 = K.t1 = layer->tx, K.r0 = K.r1 = layer->qx, K.s0 = K.s1 = layer->sx;
    K.t_lerp = K.r_lerp = K.s_lerp = 0;
    override_body(out->tx, base->tx, &K, sv_set1(0.0f), mask, weight, out->padded_count, 0, 0, 0);
}

/* fused_under's fade over the old clip's keys K at fraction u, w in (0, 1). */
ST_INLINE void under_body(stance_pose *out, const keys *KP, float uf, float w) {
    const keys K = *KP;
    const int pc = out->padded_count, n3 = 3 * pc;
    const sv4 u = sv_set1(uf), one = sv_set1(1.0f), vw = sv_set1(w), wb = sv_set1(1.0f - w);
    float *const o = out->tx;
    /* pose.c's masked_block with base = the old clip, layer = out, one weight in (0, 1) */
    for (int i = 0; i < n3; i += 4) {
        const sv4 bt = key_lerp(K.t0, K.t1, u, K.t_lerp, i), lt = sv_loada(o + i);
        sv_storea(o + i, sv_madd(sv_sub(lt, bt), vw, bt));
    }
    for (int i = 0; i < n3; i += 4) {
        const sv4 bs = key_lerp(K.s0, K.s1, u, K.s_lerp, i), ls = sv_loada(o + 7 * pc + i);
        sv_storea(o + 7 * pc + i, sv_madd(sv_sub(ls, bs), vw, bs));
    }
    for (int j = 0; j < pc; j += 4) {
        sv4 b[4];
        key_nlerp(K.r0, K.r1, u, K.r_lerp, pc, j, b);
        fade_rot_block(o + 3 * pc + j, pc, b, vw, wb, one);
    }
}

ST_INLINE void fused_under(stance_pose *out, const stance_clip *old, float time, stance_cursor *cur, float w) {
    w = w < 0.0f ? 0.0f : w > 1.0f ? 1.0f : w;
    if (w <= 0.0f) { /* the old clip alone */
        st_clip_sample(old, time, cur, out);
        return;
    }
    float uf;
    const keys K = keys_at(old, st_clip_find_key(old, time, cur, &uf));
    if (w >= 1.0f) return; /* out alone (the cursor moved) */
    under_body(out, &K, uf, w);
}

/* 1 when block b (of 4 joints) is in mask m (b < 64). */
static inline int in_mask(unsigned long long m, int b) { return b < 64 && (m >> b & 1u); }

ST_INLINE void fused_under_pose(stance_pose *out, const stance_pose *old, float w, unsigned long long t_same,
                                unsigned long long s_same) {
    w = w < 0.0f ? 0.0f : w > 1.0f ? 1.0f : w;
    if (w <= 0.0f) { /* old alone */
        st_pose_copy(out, old);
        return;
    }
    if (w >= 1.0f) return; /* out alone */
    const int pc = out->padded_count;
    const sv4 one = sv_set1(1.0f), vw = sv_set1(w), wb = sv_set1(1.0f - w);
    float *const o = out->tx;
    const float *const b0 = old->tx;
    /* pose.c's masked_block with base = old, layer = out, one weight in (0,
     * 1), as under_body; a block both hold the same is b + (l - b) w = b = l */
    for (int j = 0; j < pc; j += 4) {
        for (int r = 0; r < 3; r++) {
            if (!in_mask(t_same, j / 4)) {
                const sv4 bt = sv_loada(b0 + r * pc + j), lt = sv_loada(o + r * pc + j);
                sv_storea(o + r * pc + j, sv_madd(sv_sub(lt, bt), vw, bt));
            }
            if (!in_mask(s_same, j / 4)) {
                const sv4 bs = sv_loada(b0 + (7 + r) * pc + j), ls = sv_loada(o + (7 + r) * pc + j);
                sv_storea(o + (7 + r) * pc + j, sv_madd(sv_sub(ls, bs), vw, bs));
            }
        }
        sv4 q[4];
        for (int c = 0; c < 4; c++) q[c] = sv_loada(b0 + (3 + c) * pc + j);
        fade_rot_block(o + 3 * pc + j, pc, q, vw, wb, one);
    }
}

ST_INLINE void fused_blend2_pose(stance_pose *out, const stance_pose *a, const stance_pose *b, float wa, float wb,
                                 unsigned long long t_same, unsigned long long s_same) {
    const int pc = out->padded_count;
    const sv4 u = sv_set1(wb / (wa + wb));
    float *const o = out->tx;
    const float *const a0 = a->tx, *const b0 = b->tx;
    /* sv_block_lerp2_ts's a + (b - a) u; a block both hold the same is a */
    for (int j = 0; j < pc; j += 4)
        for (int r = 0; r < 3; r++) {
            if (!in_mask(t_same, j / 4)) {
                const sv4 x = sv_loada(a0 + r * pc + j);
                sv_storea(o + r * pc + j, sv_madd(sv_sub(sv_loada(b0 + r * pc + j), x), u, x));
            } else if (o != a0) {
                sv_storea(o + r * pc + j, sv_loada(a0 + r * pc + j));
            }
            if (!in_mask(s_same, j / 4)) {
                const sv4 x = sv_loada(a0 + (7 + r) * pc + j);
                sv_storea(o + (7 + r) * pc + j, sv_madd(sv_sub(sv_loada(b0 + (7 + r) * pc + j), x), u, x));
            } else if (o != a0) {
                sv_storea(o + (7 + r) * pc + j, sv_loada(a0 + (7 + r) * pc + j));
            }
        }
    sv_block_nlerp2(out->qx, a->qx, b->qx, wa, wb, pc, pc);
}

ST_INLINE void fused_sample(stance_pose *out, const stance_clip *c, float time, stance_cursor *cur) {
    float uf;
    const keys K = keys_at(c, st_clip_find_key(c, time, cur, &uf));
    const int pc = out->padded_count, n3 = 3 * pc;
    const sv4 u = sv_set1(uf);
    float *const o = out->tx;
    if (K.t_lerp) for (int i = 0; i < n3; i += 4) sv_storea(o + i, key_lerp(K.t0, K.t1, u, 1, i));
    else for (int i = 0; i < n3; i += 4) sv_storea(o + i, sv_loada(K.t0 + i));
    if (K.s_lerp) for (int i = 0; i < n3; i += 4) sv_storea(o + 7 * pc + i, key_lerp(K.s0, K.s1, u, 1, i));
    else for (int i = 0; i < n3; i += 4) sv_storea(o + 7 * pc + i, sv_loada(K.s0 + i));
    for (int j = 0; j < pc; j += 4) {
        sv4 q[4];
        key_nlerp(K.r0, K.r1, u, K.r_lerp, pc, j, q);
        for (int ch = 0; ch < 4; ch++) sv_storea(o + (3 + ch) * pc + j, q[ch]);
    }
}

/* n floats of translations or scales: each clip's key lerp, then
 * a + (b - a) u; 4 vectors a step (the loop's own instructions once per 4),
 * then 1. */
ST_INLINE void sb2_rows(float *const o, const float *a0, const float *a1, const float *b0, const float *b1, sv4 ua,
                        sv4 ub, sv4 vu, int al, int bl, int n) {
    int i = 0;
    for (; i + 16 <= n; i += 16)
        for (int v = i; v < i + 16; v += 4) {
            const sv4 x = key_lerp(a0, a1, ua, al, v), y = key_lerp(b0, b1, ub, bl, v);
            sv_storea(o + v, sv_madd(sv_sub(y, x), vu, x));
        }
    for (; i < n; i += 4) {
        const sv4 x = key_lerp(a0, a1, ua, al, i), y = key_lerp(b0, b1, ub, bl, i);
        sv_storea(o + i, sv_madd(sv_sub(y, x), vu, x));
    }
}
/* stance_clip_sample of a and of b, then stance_pose_blend's two-pose pass
 * (core/math/simd.h's sv_blend2_loop_) with the normalized weights wa, wb
 * (both > 0) and a_big = wa >= wb, in one pass: each clip's key lerp (and
 * nlerp) as clip.c's lerp_block and nlerp_block, then o = a + (b - a) wb
 * for translations and scales and the rotations' k-weighted sum, the same
 * operations in the same order, so the same bits as the three calls. The
 * key flags are given (constants for the common clips, as blend2_body). */
ST_INLINE void sb2_body(float *const o, const keys *A, const keys *B, sv4 ua, sv4 ub, float wa, float wb, int pc,
                        int at, int ar, int as, int bt, int br, int bs, int a_big) {
    const sv4 vu = sv_set1(wb);
    sb2_rows(o, A->t0, A->t1, B->t0, B->t1, ua, ub, vu, at, bt, 3 * pc);
    sb2_rows(o + 7 * pc, A->s0, A->s1, B->s0, B->s1, ua, ub, vu, as, bs, 3 * pc);
    const sv4 vk = sv_set1(a_big ? wb / wa : wa / wb), one = sv_set1(1.0f), tiny = sv_set1(FLT_MIN);
    for (int j = 0; j < pc; j += 4) {
        sv4 qa[4], qb[4], x[4];
        key_nlerp(A->r0, A->r1, ua, ar, pc, j, qa);
        key_nlerp(B->r0, B->r1, ub, br, pc, j, qb);
        const sv4 sgn = sv_signbits(sv_dot4(qa[0], qa[1], qa[2], qa[3], qb[0], qb[1], qb[2], qb[3]));
        const sv4 ks = sv_xor(vk, sgn);
        for (int c = 0; c < 4; c++) x[c] = a_big ? sv_madd(qb[c], ks, qa[c]) : sv_madd(qa[c], ks, qb[c]);
        sv4 inv = sv_div(one, sv_sqrt(sv_max(sv_dot4(x[0], x[1], x[2], x[3], x[0], x[1], x[2], x[3]), tiny)));
        if (!a_big) inv = sv_xor(inv, sgn);
        for (int c = 0; c < 4; c++) sv_storea(o + (3 + c) * pc + j, sv_mul(x[c], inv));
    }
}

ST_INLINE void fused_sample_blend2(stance_pose *out, const stance_clip *a, float ta, stance_cursor *ca,
                                   const stance_clip *b, float tb, stance_cursor *cb, float wa, float wb) {
    float ua_f, ub_f;
    const keys A = keys_at(a, st_clip_find_key(a, ta, ca, &ua_f));
    const keys B = keys_at(b, st_clip_find_key(b, tb, cb, &ub_f));
    const int pc = out->padded_count;
    const sv4 ua = sv_set1(ua_f), ub = sv_set1(ub_f);
    if (A.t_lerp && A.r_lerp && !A.s_lerp && B.t_lerp && B.r_lerp && !B.s_lerp) {
        if (wa >= wb) sb2_body(out->tx, &A, &B, ua, ub, wa, wb, pc, 1, 1, 0, 1, 1, 0, 1);
        else sb2_body(out->tx, &A, &B, ua, ub, wa, wb, pc, 1, 1, 0, 1, 1, 0, 0);
    } else if (wa >= wb) {
        sb2_body(out->tx, &A, &B, ua, ub, wa, wb, pc, A.t_lerp, A.r_lerp, A.s_lerp, B.t_lerp, B.r_lerp, B.s_lerp, 1);
    } else {
        sb2_body(out->tx, &A, &B, ua, ub, wa, wb, pc, A.t_lerp, A.r_lerp, A.s_lerp, B.t_lerp, B.r_lerp, B.s_lerp, 0);
    }
}

/* ---- the passes in two encodings ------------------------------------------
 * Each pass is compiled as it is (SSE2, or the scalar form) and, where the
 * build is for baseline x86-64, again in VEX encoding, which the CPUs with
 * AVX run (as local_to_model.c does): the same operations in the same order,
 * no FMA, so the same results bit for bit (tests/test_reference.c runs the
 * frame with the VEX copies, the baseline copies st_fused_*_base, and the
 * unfused reference, and requires them equal); the 3-operand forms need no
 * register copies. */
#define FUSED_VEX(name, params, args)                                                                             \
    SV_VEX_DEFINE(name, params, args, fused_##name)                                                              \
    void st_fused_##name params { SV_VEX_DISPATCH(name, args); }                                                 \
    void st_fused_##name##_base params { name##_sse args; }
int st_fused_vex_runs(void) {
#if defined(SV_VEX_COPY)
    return SV_CPU_HAS_AVX() ? 1 : 0;
#else
    return 0;
#endif
}
ST_FUSED_PASSES(FUSED_VEX)
