/* src/core/clip/clip_packed.c - compressed ("packed") clips at runtime:
 * sampling one, freeing it (what clip.c calls for a packed clip). The layout
 * is in clip_packed.h; building one is clip_packed_create.c. */
#include <string.h>

#include "core/clip/clip_lattice.h"
#include "core/clip/clip_packed.h"
#include "core/base/internal.h"
#include "core/math/qmath.h"

void st_packed_destroy(const stance_clip *c) {
    stance_allocator al = c->allocator;
    st_free(&al, (void *)c->packed, c->packed->bytes);
}

/* The common rotation track (quantized, 16 bits at most, nlerp), sampled
 * between keys ia and ia + 1 into o (the pose's qx + joint, stride pc): both
 * keys decoded in a's stored order (the segment's largest component last),
 * b into a's order only when it lies in a segment that dropped another. */
static inline void rot16(const st_ptrack *tr, const unsigned char *data, uint32_t ia, float u, float *o, size_t pc) {
    const uint32_t ib = ia + (tr->n > 1u);
    const st_qseg *seg = (const st_qseg *)(const void *)(data + tr->par_at);
    const st_qseg *ga = seg + ia / ST_SEG_KEYS, *gb = seg + ib / ST_SEG_KEYS;
    const uint16_t *qa = (const uint16_t *)(const void *)(data + tr->q_at) + 3u * (size_t)ia, *qb = qa + 3u * (ib - ia);
    const float a0 = ga->off[0] + ga->scale[0] * (float)qa[0], a1 = ga->off[1] + ga->scale[1] * (float)qa[1];
    const float a2 = ga->off[2] + ga->scale[2] * (float)qa[2];
    float b0 = gb->off[0] + gb->scale[0] * (float)qb[0], b1 = gb->off[1] + gb->scale[1] * (float)qb[1];
    float b2 = gb->off[2] + gb->scale[2] * (float)qb[2];
    const float la = 1.0f - (a0 * a0 + a1 * a1 + a2 * a2), lb = 1.0f - (b0 * b0 + b1 * b1 + b2 * b2);
    const float a3 = la > 0.0f ? sqrtf(la) : 0.0f;
    float b3 = lb > 0.0f ? sqrtf(lb) : 0.0f;
    if (gb->drop != ga->drop) {
        float v[4];
        v[gb->slot[0]] = b0, v[gb->slot[1]] = b1, v[gb->slot[2]] = b2, v[gb->drop] = b3;
        b0 = v[ga->slot[0]], b1 = v[ga->slot[1]], b2 = v[ga->slot[2]], b3 = v[ga->drop];
    }
    if (a0 * b0 + a1 * b1 + a2 * b2 + a3 * b3 < 0.0f) b0 = -b0, b1 = -b1, b2 = -b2, b3 = -b3;
    const float q0 = a0 + (b0 - a0) * u, q1 = a1 + (b1 - a1) * u, q2 = a2 + (b2 - a2) * u, q3 = a3 + (b3 - a3) * u;
    const float n = 1.0f / sqrtf(q0 * q0 + q1 * q1 + q2 * q2 + q3 * q3);
    o[(size_t)ga->slot[0] * pc] = q0 * n, o[(size_t)ga->slot[1] * pc] = q1 * n;
    o[(size_t)ga->slot[2] * pc] = q2 * n, o[(size_t)ga->drop * pc] = q3 * n;
}

/* A quantized translation or scale track (16 bits at most), lerped between
 * keys ia and ia + 1 into o (the channel's x + joint, stride pc): the same
 * decode and arithmetic as st_rtrack_key and the lerp below, without the
 * per-key tests. */
static inline void vec16(const st_ptrack *tr, const unsigned char *data, uint32_t ia, float u, float *o, size_t pc) {
    const uint32_t ib = ia + (tr->n > 1u);
    const st_qseg *seg = (const st_qseg *)(const void *)(data + tr->par_at);
    const st_qseg *ga = seg + ia / ST_SEG_KEYS, *gb = seg + ib / ST_SEG_KEYS;
    const uint16_t *qa = (const uint16_t *)(const void *)(data + tr->q_at) + 3u * (size_t)ia, *qb = qa + 3u * (ib - ia);
    for (int e = 0; e < 3; e++) {
        const float a = ga->off[e] + ga->scale[e] * (float)qa[e], b = gb->off[e] + gb->scale[e] * (float)qb[e];
        o[(size_t)e * pc] = a + (b - a) * u;
    }
}

void st_packed_sample(const stance_clip *c, int k, float t, stance_pose *out, stance_pose *vel) {
    const st_packed *p = c->packed;
    const size_t pc = (size_t)c->padded_count;
    memcpy(out->tx, p->rest, sizeof(float) * 10 * pc); /* a pose's rows tx..sx are one block */
    const int K = c->key_count;
    const float *times = c->times;
    uint32_t ia[ST_PACK_MAX_SHIFT + 1];
    float fr[ST_PACK_MAX_SHIFT + 1], inv[ST_PACK_MAX_SHIFT + 1];
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
        inv[s] = 1.0f / span;
    }
    float *tdst[3] = {out->tx, out->qx, out->sx};
    const unsigned char *data = p->data;
    const float *raw = p->raw;
    const int slerp = c->slerp;
    for (int i = 0; i < p->track_count; i++) {
        const st_ptrack *tr = &p->tracks[i];
        const int s = tr->shift, j = tr->joint;
        const uint32_t a_i = ia[s], b_i = a_i + (tr->n > 1u);
        const float u = fr[s];
        const int kind = vel ? 0 : tr->kind;
        if (kind == ST_KIND_ROT16 && !slerp) {
            rot16(tr, data, a_i, u, out->qx + j, pc);
            continue;
        }
        if (kind == ST_KIND_VEC16) {
            vec16(tr, data, a_i, u, tdst[tr->channel] + j, pc);
            continue;
        }
        float a[4], b[4], v[4];
        st_rtrack_key(tr, data, raw, a_i, a);
        st_rtrack_key(tr, data, raw, b_i, b);
        float *o = tdst[tr->channel] + j;
        if (tr->channel != STANCE_CHANNEL_ROTATION) {
            o[0] = a[0] + (b[0] - a[0]) * u;
            o[pc] = a[1] + (b[1] - a[1]) * u;
            o[2 * pc] = a[2] + (b[2] - a[2]) * u;
            if (vel) {
                float *vv = (tr->channel == 0 ? vel->tx : vel->sx) + j;
                for (int e = 0; e < 3; e++) vv[(size_t)e * pc] = (b[e] - a[e]) * inv[s];
            }
            continue;
        }
        st_key_interp(1, a, b, u, slerp, v); /* b takes a's hemisphere */
        o[0] = v[0], o[pc] = v[1], o[2 * pc] = v[2], o[3 * pc] = v[3];
        if (!vel) continue;
        qm_quat qa = qm_qnorm(qm_q(a[0], a[1], a[2], a[3])), qb = qm_qnorm(qm_q(b[0], b[1], b[2], b[3]));
        qm_vec3 w = qm_scale(qm_qlog(qm_qmul(qb, qm_qconj(qa))), inv[s]);
        vel->qx[j] = w.x, vel->qy[j] = w.y, vel->qz[j] = w.z;
    }
}
