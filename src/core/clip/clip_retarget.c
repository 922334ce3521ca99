/* src/core/clip/clip_retarget.c - sampling a retargeted clip (issue 27 item
 * 3; the block is described in clip_retarget.h, built by
 * src/io/retarget_live.c): one pass over the mapped target joints, each
 * reading the source clip's keys of the few source joints its baked chain
 * names. No allocation, no state: the block is read only. */
#include <string.h>

#include "core/base/internal.h"
#include "core/clip/clip_retarget.h"
#include "core/clip/fused.h" /* st_find_key */
#include "core/math/qmath.h"

/* The source's local rotation of joint j at key interval (a, b, u). */
static qm_quat src_rot(const stance_clip *s, const float *a, const float *b, float u, int j) {
    const int pc = s->padded_count;
    qm_quat qa = qm_q(a[j], a[pc + j], a[2 * pc + j], a[3 * pc + j]);
    if (a == b) return qm_qnorm(qa);
    qm_quat qb = qm_q(b[j], b[pc + j], b[2 * pc + j], b[3 * pc + j]);
    return qm_nlerp(qa, qb, u);
}

static qm_vec3 src_pos(const stance_clip *s, const float *a, const float *b, float u, int j) {
    const int pc = s->padded_count;
    qm_vec3 va = qm_v3(a[j], a[pc + j], a[2 * pc + j]);
    if (a == b) return va;
    return qm_lerp3(va, qm_v3(b[j], b[pc + j], b[2 * pc + j]), u);
}

static qm_quat qf(const float *q) { return qm_q(q[0], q[1], q[2], q[3]); }
static qm_vec3 vf(const float *v) { return qm_v3(v[0], v[1], v[2]); }

/* A model position made local to the joint's parent at rest. */
static qm_vec3 to_local(const st_rt_entry *e, qm_vec3 pos) {
    qm_vec3 v = qm_qrot(qf(e->pinv_rot), qm_sub(pos, vf(e->ppos)));
    return qm_mul3(v, vf(e->pinv_scale));
}

void st_retarget_apply(const stance_clip *c, float time, stance_cursor *cur, stance_pose *out) {
    const st_retarget *rt = c->retarget;
    const stance_clip *s = rt->source;
    float t = time < 0.0f ? 0.0f : time > s->duration ? s->duration : time;
    float u;
    const int k = st_find_key(s, t, cur, &u);
    const int k1 = s->key_count > 1 ? k + 1 : k;
    const size_t n3 = 3 * (size_t)s->padded_count, n4 = 4 * (size_t)s->padded_count;
    const float *ra = s->r, *rb = s->r, *ta = s->t, *tb = s->t;
    if (s->r_keys > 1) ra = s->r + n4 * (size_t)k, rb = s->r + n4 * (size_t)k1;
    if (s->t_keys > 1) ta = s->t + n3 * (size_t)k, tb = s->t + n3 * (size_t)k1;
    /* the source clip in its own skeleton's space: the joints the entries read */
    qm_quat sq[STANCE_RETARGET_MAX_NEED];
    for (int n = 0; n < rt->need_count; n++) sq[n] = src_rot(s, ra, rb, u, rt->need[n]);
    /* model transforms of the entries: only when a carried joint needs them */
    qm_quat mrot[STANCE_RETARGET_MAX_ENTRIES], aim[STANCE_RETARGET_MAX_ENTRIES];
    qm_vec3 mpos[STANCE_RETARGET_MAX_ENTRIES];
    for (int i = 0; i < rt->entry_count; i++) {
        const st_rt_entry *e = &rt->entries[i];
        qm_quat d = qm_qid();
        qm_vec3 p = qm_v3(0, 0, 0);
        const int top = i == rt->top;
        for (int n = 0; n < e->down_count; n++) {
            const int sn = rt->chain[e->down + n];
            if (top) /* the source joint's model position, along its chain from the root */
                p = qm_add(p, qm_qrot(d, qm_mul3(vf(rt->chain_scale[e->down + n]), src_pos(s, ta, tb, u, rt->need[sn]))));
            d = qm_qmul(d, sq[sn]);
        }
        if (e->up_count) {
            qm_quat up = qm_qid();
            for (int n = 0; n < e->up_count; n++) up = qm_qmul(up, sq[rt->chain[e->up + n]]);
            d = qm_qmul(qm_qconj(up), d);
        }
        /* W: the segment re-aimed across the source joints between slots */
        aim[i] = qm_qid();
        if (e->aim_count) {
            const int *ch = rt->chain + e->aim;
            qm_vec3 v = vf(rt->chain_t[e->aim + e->aim_count - 1]);
            for (int n = e->aim_count - 2; n >= 0; n--)
                v = qm_add(vf(rt->chain_t[e->aim + n]), qm_qrot(sq[ch[n]], v));
            const float len = qm_len3(v);
            if (len > 1e-12f) aim[i] = qm_swing(vf(e->cb), qm_scale(v, 1.0f / len));
        }
        qm_quat g = qm_qmul(d, aim[i]);
        if (e->parent >= 0 && rt->entries[e->parent].aim_count) g = qm_qmul(qm_qconj(aim[e->parent]), g);
        qm_quat l = qm_qnorm(qm_qmul(qm_qmul(qf(e->pre), g), qf(e->post)));
        const int j = e->joint;
        out->qx[j] = l.x, out->qy[j] = l.y, out->qz[j] = l.z, out->qw[j] = l.w;
        qm_vec3 pos = qm_v3(0, 0, 0);
        if (top) {
            pos = qm_add(qm_add(vf(rt->c), qm_scale(p, rt->k)), qm_qrot(d, qm_sub(vf(rt->w1), qm_qrot(aim[i], vf(rt->w2)))));
            qm_vec3 lt = to_local(e, pos);
            out->tx[j] = lt.x, out->ty[j] = lt.y, out->tz[j] = lt.z;
        }
        if (e->model) {
            /* this joint's model transform from its parent entry's (the
             * joints between at rest): R = R_pe * cpar * L, p = p_pe + R_pe off */
            qm_quat pr = e->parent >= 0 ? mrot[e->parent] : qm_qid();
            qm_vec3 pp = e->parent >= 0 ? mpos[e->parent] : qm_v3(0, 0, 0);
            mrot[i] = qm_qmul(qm_qmul(pr, qf(e->cpar)), l);
            mpos[i] = top ? pos : qm_add(pp, qm_qrot(pr, vf(e->off)));
        }
    }
    if (!rt->carried) return;
    /* the carried joints: where their carrier entry puts them */
    for (int i = 0; i < rt->entry_count; i++) {
        const st_rt_entry *e = &rt->entries[i];
        if (e->carrier < 0) continue;
        qm_vec3 pos = qm_add(mpos[e->carrier], qm_qrot(mrot[e->carrier], vf(e->carry)));
        qm_vec3 lt = to_local(e, pos);
        out->tx[e->joint] = lt.x, out->ty[e->joint] = lt.y, out->tz[e->joint] = lt.z;
    }
}

void st_retarget_sample(const stance_clip *c, float time, stance_cursor *cur, stance_pose *out) {
    const size_t pc = (size_t)c->padded_count;
    memcpy(out->tx, c->t, sizeof(float) * 3 * pc);
    memcpy(out->qx, c->r, sizeof(float) * 4 * pc);
    memcpy(out->sx, c->s, sizeof(float) * 3 * pc);
    st_retarget_apply(c, time, cur, out);
}

void st_retarget_velocity(const stance_clip *c, float time, const stance_pose *out, stance_pose *vel) {
    const float h = 1.0f / 120.0f;
    float t = time < 0.0f ? 0.0f : time > c->duration ? c->duration : time;
    float t2 = t + h <= c->duration ? t + h : t - h;
    st_retarget_sample(c, t2, NULL, vel); /* vel = the sample at t2 */
    const float inv = t2 > t ? 1.0f / h : -1.0f / h;
    for (int j = 0; j < c->joint_count; j++) {
        vel->tx[j] = (vel->tx[j] - out->tx[j]) * inv;
        vel->ty[j] = (vel->ty[j] - out->ty[j]) * inv;
        vel->tz[j] = (vel->tz[j] - out->tz[j]) * inv;
        vel->sx[j] = vel->sy[j] = vel->sz[j] = 0.0f;
        float sg = vel->qx[j] * out->qx[j] + vel->qy[j] * out->qy[j] + vel->qz[j] * out->qz[j] + vel->qw[j] * out->qw[j] < 0.0f
                       ? -1.0f : 1.0f;
        vel->qx[j] = (sg * vel->qx[j] - out->qx[j]) * inv;
        vel->qy[j] = (sg * vel->qy[j] - out->qy[j]) * inv;
        vel->qz[j] = (sg * vel->qz[j] - out->qz[j]) * inv;
        vel->qw[j] = (sg * vel->qw[j] - out->qw[j]) * inv;
    }
}
