/* src/core/clip/clip_packed.c - compressed ("packed") clips at runtime:
 * sampling one, freeing it (what clip.c calls for a packed clip). The layout
 * is in clip_packed.h; building one is clip_packed_create.c. */
#include <string.h>

#include "core/clip/clip_lattice.h"
#include "core/clip/clip_packed.h"
#include "core/base/internal.h"
#include "core/math/qmath.h"
#include "core/math/simd.h"

void st_packed_destroy(const stance_clip *c) {
    stance_allocator al = c->allocator;
    st_free(&al, (void *)c->packed, c->packed->bytes);
}

/* A group of common rotation tracks (quantized, 16 bits at most, nlerp;
 * st_pgroup) sampled between keys ia and ia + 1 at fraction u into the
 * pose's qx (stride pc), lane l being track l of the group: both keys
 * decoded in a's stored order (the segment's largest component last), b
 * into a's order only when it lies in a segment that dropped another, b to
 * a's hemisphere, the nlerp: the arithmetic of st_rtrack_key and
 * st_key_interp in the same order on each lane (so the same bits), without
 * their per-key tests. Lanes past the group's m hold zeros (the identity,
 * no NaN) and are not written. */
ST_FORCEINLINE void rot16g(const st_pgroup *g, const unsigned char *data, uint32_t ia, float uf, float *qx) {
    const uint32_t ib = ia + (g->n > 1u);
    const st_qseg4 *seg = (const st_qseg4 *)(const void *)(data + g->par_at);
    const st_qseg4 *ga = seg + ia / ST_SEG_KEYS, *gb = seg + ib / ST_SEG_KEYS;
    const uint16_t *qa = (const uint16_t *)(const void *)(data + g->q_at) + 12u * (size_t)ia, *qb = qa + 12u * (ib - ia);
    const sv4 one = sv_set1(1.0f), zero = sv_set1(0.0f), minus = sv_set1(-0.0f), u = sv_set1(uf);
    const sv4 sa = sv_load(ga->scale), sb = sv_load(gb->scale);
    sv4 A[4], B[4];
    for (int c = 0; c < 3; c++) {
        A[c] = sv_add(sv_load(ga->off[c]), sv_mul(sa, sv_load_u16(qa + 4 * c)));
        B[c] = sv_add(sv_load(gb->off[c]), sv_mul(sb, sv_load_u16(qb + 4 * c)));
    }
    const sv4 la = sv_sub(one, sv_add(sv_add(sv_mul(A[0], A[0]), sv_mul(A[1], A[1])), sv_mul(A[2], A[2])));
    const sv4 lb = sv_sub(one, sv_add(sv_add(sv_mul(B[0], B[0]), sv_mul(B[1], B[1])), sv_mul(B[2], B[2])));
    A[3] = sv_sqrt(sv_max(la, zero)); /* la > 0 ? sqrt(la) : +0 */
    B[3] = sv_sqrt(sv_max(lb, zero));
    const int m = g->m;
    if (ga != gb && memcmp(ga->drop, gb->drop, sizeof ga->drop)) {
        /* b into a's slot order on the lanes whose segments dropped different components */
        float bb[4][4];
        for (int c = 0; c < 4; c++) sv_store(bb[c], B[c]);
        for (int l = 0; l < m; l++) {
            const int da = ga->drop[l], db = gb->drop[l];
            if (da == db) continue;
            float v[4];
            for (int k = 0; k < 4; k++) v[st_slot(db, k)] = bb[k][l];
            for (int k = 0; k < 4; k++) bb[k][l] = v[st_slot(da, k)];
        }
        for (int c = 0; c < 4; c++) B[c] = sv_load(bb[c]);
    }
    const sv4 dot = sv_add(sv_add(sv_add(sv_mul(A[0], B[0]), sv_mul(A[1], B[1])), sv_mul(A[2], B[2])), sv_mul(A[3], B[3]));
    /* dot < 0 (not dot >= 0): b = -b, each sign flipped as the scalar
     * negation does: b xor the sign bit, one mask for the four components */
    const sv4 flip = sv_select(sv_ge(dot, zero), zero, minus);
    sv4 Q[4];
    for (int c = 0; c < 4; c++) Q[c] = sv_add(A[c], sv_mul(sv_sub(sv_xorsign(B[c], flip), A[c]), u));
    const sv4 n = sv_div(one, sv_sqrt(sv_add(sv_add(sv_add(sv_mul(Q[0], Q[0]), sv_mul(Q[1], Q[1])), sv_mul(Q[2], Q[2])), sv_mul(Q[3], Q[3]))));
    float r[4][4];
    for (int c = 0; c < 4; c++) sv_store(r[c], sv_mul(Q[c], n));
    for (int l = 0; l < m; l++) {
        const uint16_t *dst = ga->dst[l];
        qx[dst[0]] = r[0][l], qx[dst[1]] = r[1][l], qx[dst[2]] = r[2][l], qx[dst[3]] = r[3][l];
    }
}

/* A group of translation and scale tracks (quantized, 16 bits at most;
 * st_pgroup) lerped between keys ia and ia + 1 at fraction u into the
 * pose's tx (rows tx..sx, stride pc; lane l's component c at dst[l][c]):
 * the arithmetic of st_rtrack_key and the scalar lerp of vec16 in the same
 * order on each lane (so the same bits). Lanes past the group's m are not
 * written. */
ST_FORCEINLINE void vec16g(const st_pgroup *g, const unsigned char *data, uint32_t ia, float uf, float *tx) {
    const uint32_t ib = ia + (g->n > 1u);
    const st_qseg4 *seg = (const st_qseg4 *)(const void *)(data + g->par_at);
    const st_qseg4 *ga = seg + ia / ST_SEG_KEYS, *gb = seg + ib / ST_SEG_KEYS;
    const uint16_t *qa = (const uint16_t *)(const void *)(data + g->q_at) + 12u * (size_t)ia, *qb = qa + 12u * (ib - ia);
    const sv4 u = sv_set1(uf);
    const sv4 sa = sv_load(ga->scale), sb = sv_load(gb->scale);
    float r[3][4];
    for (int c = 0; c < 3; c++) {
        const sv4 A = sv_add(sv_load(ga->off[c]), sv_mul(sa, sv_load_u16(qa + 4 * c)));
        const sv4 B = sv_add(sv_load(gb->off[c]), sv_mul(sb, sv_load_u16(qb + 4 * c)));
        sv_store(r[c], sv_add(A, sv_mul(sv_sub(B, A), u)));
    }
    for (int l = 0; l < g->m; l++) {
        const uint16_t *dst = ga->dst[l];
        tx[dst[0]] = r[0][l], tx[dst[1]] = r[1][l], tx[dst[2]] = r[2][l];
    }
}

/* A quantized translation or scale track (16 bits at most), lerped between
 * keys ia and ia + 1 into o (the channel's x + joint, stride pc): the same
 * decode and arithmetic as st_rtrack_key and the lerp below, without the
 * per-key tests. */
ST_FORCEINLINE void vec16(const st_ptrack *tr, const unsigned char *data, uint32_t ia, float u, float *o, size_t pc) {
    const uint32_t ib = ia + (tr->n > 1u);
    const st_qseg *seg = (const st_qseg *)(const void *)(data + tr->par_at);
    const st_qseg *ga = seg + ia / ST_SEG_KEYS, *gb = seg + ib / ST_SEG_KEYS;
    const uint16_t *qa = (const uint16_t *)(const void *)(data + tr->q_at) + 3u * (size_t)ia, *qb = qa + 3u * (ib - ia);
    for (int e = 0; e < 3; e++) {
        const float a = ga->off[e] + ga->scale[e] * (float)qa[e], b = gb->off[e] + gb->scale[e] * (float)qb[e];
        o[(size_t)e * pc] = a + (b - a) * u;
    }
}

/* Any track (raw or quantized, expanded) between keys ia and ia + 1 at
 * fraction u into o (the channel's x + joint, stride pc), as st_rtrack_key
 * decodes each key: lerp, or a hemisphere check then nlerp (slerp when
 * asked); with vel, its velocity per second (inv: 1 / the keys' span) at
 * joint j. */
static void track(const st_ptrack *tr, const unsigned char *data, const float *raw, uint32_t ia, float u, int slerp,
                  float *o, size_t pc, stance_pose *vel, float inv, int j) {
    const uint32_t ib = ia + (tr->n > 1u);
    float a[4], b[4], v[4];
    st_rtrack_key(tr, data, raw, ia, a);
    st_rtrack_key(tr, data, raw, ib, b);
    if (tr->channel != STANCE_CHANNEL_ROTATION) {
        o[0] = a[0] + (b[0] - a[0]) * u;
        o[pc] = a[1] + (b[1] - a[1]) * u;
        o[2 * pc] = a[2] + (b[2] - a[2]) * u;
        if (vel) {
            float *vv = (tr->channel == 0 ? vel->tx : vel->sx) + j;
            for (int e = 0; e < 3; e++) vv[(size_t)e * pc] = (b[e] - a[e]) * inv;
        }
        return;
    }
    st_key_interp(1, a, b, u, slerp, v); /* b takes a's hemisphere */
    o[0] = v[0], o[pc] = v[1], o[2 * pc] = v[2], o[3 * pc] = v[3];
    if (!vel) return;
    qm_quat qa = qm_qnorm(qm_q(a[0], a[1], a[2], a[3])), qb = qm_qnorm(qm_q(b[0], b[1], b[2], b[3]));
    qm_vec3 w = qm_scale(qm_qlog(qm_qmul(qb, qm_qconj(qa))), inv);
    vel->qx[j] = w.x, vel->qy[j] = w.y, vel->qz[j] = w.z;
}

/* The sample without velocities after the default pose's copy: the
 * rotation groups, the translation and scale groups, then the other tracks
 * (loose). Compiled as it is and, where the build is for baseline x86-64,
 * again in VEX encoding for CPUs with AVX (as fused.c's passes: the same
 * operations in the same order, no FMA, so the same bits; the 3-operand
 * forms need no register copies and take unaligned loads as operands). */
ST_FORCEINLINE void sample_tracks(const st_packed *p, const uint32_t *ia, const float *fr, int slerp,
                                         stance_pose *out) {
    const size_t pc = (size_t)out->padded_count;
    float *tdst[3] = {out->tx, out->qx, out->sx};
    const unsigned char *data = p->data;
    for (int i = 0; i < p->group_count; i++) rot16g(&p->groups[i], data, ia[p->groups[i].shift], fr[p->groups[i].shift], out->qx);
    for (int i = 0; i < p->vgroup_count; i++) vec16g(&p->vgroups[i], data, ia[p->vgroups[i].shift], fr[p->vgroups[i].shift], out->tx);
    for (int i = 0; i < p->loose_count; i++) {
        const st_ptrack *tr = &p->tracks[p->loose[i]];
        const int s = tr->shift;
        if (tr->kind == ST_KIND_VEC16) vec16(tr, data, ia[s], fr[s], tdst[tr->channel] + tr->joint, pc);
        else track(tr, data, p->raw, ia[s], fr[s], slerp, tdst[tr->channel] + tr->joint, pc, NULL, 0.0f, 0);
    }
}

SV_VEX_DEFINE(sample_tracks, (const st_packed *p, const uint32_t *ia, const float *fr, int slerp, stance_pose *out),
              (p, ia, fr, slerp, out), sample_tracks)

/* The default pose copied into out, then each key shift's key ia[s], its
 * fraction fr[s] and (with vel) 1 / its keys' span inv[s], for grid
 * interval k at clamped time t. */
ST_FORCEINLINE void begin_sample(const stance_clip *c, const st_packed *p, int k, float t, int vel, stance_pose *out,
                                 uint32_t *ia, float *fr, float *inv) {
    const size_t pc = (size_t)c->padded_count;
    memcpy(out->tx, p->rest, sizeof(float) * 10 * pc); /* a pose's rows tx..sx are one block */
    const int K = c->key_count;
    const float *times = c->times;
    for (int s = 0; s <= p->max_shift; s++) {
        if (!(p->shifts_used >> s & 1u)) continue;
        if (K < 2) {
            ia[s] = 0, fr[s] = 0.0f, inv[s] = 0.0f;
            continue;
        }
        int ga = (k >> s) << s, gb = ga + (1 << s);
        if (gb > K - 1) gb = K - 1;
        float span = times[gb] - times[ga], f = (t - times[ga]) / span;
        ia[s] = (uint32_t)(k >> s);
        fr[s] = f < 0.0f ? 0.0f : f > 1.0f ? 1.0f : f;
        inv[s] = vel ? 1.0f / span : 0.0f;
    }
}

void st_packed_sample(const stance_clip *c, int k, float t, stance_pose *out, stance_pose *vel) {
    const st_packed *p = c->packed;
    const size_t pc = (size_t)c->padded_count;
    uint32_t ia[ST_PACK_MAX_SHIFT + 1];
    float fr[ST_PACK_MAX_SHIFT + 1], inv[ST_PACK_MAX_SHIFT + 1];
    begin_sample(c, p, k, t, vel != NULL, out, ia, fr, inv);
    float *tdst[3] = {out->tx, out->qx, out->sx};
    const unsigned char *data = p->data;
    const float *raw = p->raw;
    const int slerp = c->slerp;
    if (!vel) {
        SV_VEX_DISPATCH(sample_tracks, (p, ia, fr, slerp, out));
        return;
    }
    for (int i = 0; i < p->track_count; i++) { /* with velocities: every track as st_rtrack_key decodes it */
        const st_ptrack *tr = &p->tracks[i];
        const int s = tr->shift;
        track(tr, data, raw, ia[s], fr[s], slerp, tdst[tr->channel] + tr->joint, pc, vel, inv[s], tr->joint);
    }
}

int st_packed_sample_as(const stance_clip *c, int k, float t, stance_pose *out, int vex) {
    if (!c || !c->packed || !out || out->joint_count != c->joint_count || k < 0 || (c->key_count > 1 && k > c->key_count - 2) ||
        !(t >= 0.0f && t <= c->duration))
        return 0;
    const st_packed *p = c->packed;
    uint32_t ia[ST_PACK_MAX_SHIFT + 1];
    float fr[ST_PACK_MAX_SHIFT + 1], inv[ST_PACK_MAX_SHIFT + 1];
    begin_sample(c, p, k, t, 0, out, ia, fr, inv);
    return SV_VEX_AS(vex, sample_tracks, (p, ia, fr, c->slerp, out));
}
