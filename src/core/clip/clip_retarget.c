/* src/core/clip/clip_retarget.c - sampling a retargeted clip (issue 27 item
 * 3; the block is described in clip_retarget.h, built by
 * src/io/retarget_live.c): one pass over the mapped target joints, each
 * reading the source clip's keys of the few source joints its baked chain
 * names; with the source's foot contacts, the pelvis' baked correction in
 * that pass and a two-bone IK per leg to its baked foot goal after it. No
 * allocation, no state: the block is read only. */
#include <string.h>

#include "core/base/internal.h"
#include "core/clip/clip_retarget.h"
#include "core/clip/fused.h" /* st_find_key */
#include "core/math/qmath.h"

/* The source's local rotation of joint j at key interval (a, b, u), not
 * normalized: the copy's keys are unit and each in the hemisphere of the
 * one before (retarget_live.c), so the lerp is a rotation scaled by at
 * least 1/sqrt(2). */
static qm_quat src_rot(const stance_clip *s, const float *a, const float *b, float u, int j) {
    const int pc = s->padded_count;
    qm_quat qa = qm_q(a[j], a[pc + j], a[2 * pc + j], a[3 * pc + j]);
    if (a == b) return qa;
    qm_quat qb = qm_q(b[j], b[pc + j], b[2 * pc + j], b[3 * pc + j]);
    return qm_q(qa.x + (qb.x - qa.x) * u, qa.y + (qb.y - qa.y) * u, qa.z + (qb.z - qa.z) * u, qa.w + (qb.w - qa.w) * u);
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

/* The foot contacts' corrections at the source's key interval (k, u) or, on
 * a grid of its own, at t: interpolated into out (dq normalized). */
static void fix_at(const st_rt_fix *f, int k, float u, float t, float *out) {
    int i = k;
    float w = u;
    if (f->rate > 0.0f) {
        float x = t * f->rate;
        i = x > 0.0f ? (int)x : 0;
        if (i > f->key_count - 2) i = f->key_count - 2;
        if (i < 0) i = 0;
        const float t0 = (float)i / f->rate, t1 = fminf((float)(i + 1) / f->rate, f->duration);
        w = t1 > t0 ? (t - t0) / (t1 - t0) : 0.0f;
        w = w < 0.0f ? 0.0f : w > 1.0f ? 1.0f : w;
    }
    const float *a = f->keys + (size_t)ST_RT_FIX_FLOATS * (size_t)i;
    const float *b = i + 1 < f->key_count ? a + ST_RT_FIX_FLOATS : a;
    for (int c = 0; c < ST_RT_FIX_FLOATS; c++) out[c] = a[c] + (b[c] - a[c]) * w;
    qm_quat q = qm_qnorm(qm_q(out[0], out[1], out[2], out[3]));
    out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
}

/* Two-bone IK (A hip, B knee, C ankle, T the goal; no pole, no softness):
 * the knee's model turn about its bend axis (qbend, first) and the hip's
 * swing (qtop), as stance_ik_two_bone computes them (the knee's angles from
 * their sines and cosines here, without trigonometry). */
static void two_bone(qm_vec3 A, qm_vec3 B, qm_vec3 C, qm_vec3 T, qm_quat *qtop, qm_quat *qbend) {
    const qm_vec3 ab = qm_sub(B, A), bc = qm_sub(C, B);
    const float l1 = qm_len3(ab), l2 = qm_len3(bc);
    *qtop = *qbend = qm_qid();
    if (l1 < 1e-6f || l2 < 1e-6f) return;
    const qm_vec3 at = qm_sub(T, A), ac = qm_sub(C, A);
    const float dist = qm_len3(at);
    const qm_vec3 dir = dist > 1e-6f * (l1 + l2) ? qm_scale(at, 1.0f / dist) : qm_len3(ac) > 1e-6f ? qm_norm3(ac) : qm_norm3(ab);
    const float reach = l1 + l2, fold = fabsf(l1 - l2);
    const float span = dist > reach ? reach : dist < fold ? fold : dist;
    qm_vec3 hinge = qm_cross(bc, qm_scale(ab, -1.0f));
    const float hl = qm_len3(hinge);
    if (hl > 1e-4f * l1 * l2) {
        hinge = qm_scale(hinge, 1.0f / hl);
    } else { /* straight: a fixed perpendicular of the thigh */
        qm_vec3 v = qm_scale(ab, 1.0f / l1);
        hinge = qm_norm3(qm_cross(v, fabsf(v.x) < 0.9f ? qm_v3(1, 0, 0) : qm_v3(0, 1, 0)));
    }
    const float inv = 1.0f / (l1 * l2);
    const float cc = -qm_dot3(ab, bc) * inv, sc = hl * inv; /* the knee's angle now */
    float cw = (l1 * l1 + l2 * l2 - span * span) * 0.5f * inv; /* the one that spans `span` */
    cw = cw < -1.0f ? -1.0f : cw > 1.0f ? 1.0f : cw;
    const float sw = sqrtf(1.0f - cw * cw);
    const float c = cc * cw + sc * sw, sn = sc * cw - cc * sw; /* cos, sin of (now - wanted) */
    *qbend = 1.0f + c > 1e-12f ? qm_qnorm(qm_q(hinge.x * sn, hinge.y * sn, hinge.z * sn, 1.0f + c))
                               : qm_q(hinge.x, hinge.y, hinge.z, 0.0f);
    const qm_vec3 ac1 = qm_sub(qm_add(B, qm_qrot(*qbend, bc)), A);
    const float l3 = qm_len3(ac1);
    if (l3 > 1e-6f) *qtop = qm_swing(qm_scale(ac1, 1.0f / l3), dir);
}

static void put_q(stance_pose *o, int j, qm_quat q) { o->qx[j] = q.x, o->qy[j] = q.y, o->qz[j] = q.z, o->qw[j] = q.w; }

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
    for (int n = 0; n < rt->need_unit; n++) sq[n] = qm_qnorm(src_rot(s, ra, rb, u, rt->need[n]));
    for (int n = rt->need_unit; n < rt->need_count; n++) sq[n] = src_rot(s, ra, rb, u, rt->need[n]);
    /* the foot contacts' corrections */
    const st_rt_fix *fx = &rt->fix;
    float fv[ST_RT_FIX_FLOATS];
    const int fixing = fx->key_count > 0 && fx->stage > 0;
    if (fixing) fix_at(fx, k, u, t, fv);
    qm_quat undo = qm_qid(); /* the pelvis' turn undone for its children */
    /* model transforms of the entries: only when a carried joint needs them */
    qm_quat mrot[STANCE_RETARGET_MAX_ENTRIES], prot[STANCE_RETARGET_MAX_ENTRIES], aim[STANCE_RETARGET_MAX_ENTRIES];
    qm_vec3 mpos[STANCE_RETARGET_MAX_ENTRIES];
    for (int i = 0; i < rt->entry_count; i++) {
        const st_rt_entry *e = &rt->entries[i];
        qm_quat d = qm_qid();
        qm_vec3 p = qm_v3(0, 0, 0);
        const int top = i == rt->top;
        /* the products start from their first factor (a product with the
         * identity is that factor exactly: skipped) */
        const int *dc = rt->chain + e->down;
        if (top) { /* the source joint's model position, along its chain from the root */
            for (int n = 0; n < e->down_count; n++) {
                p = qm_add(p, qm_qrot(d, qm_mul3(vf(rt->chain_scale[e->down + n]), src_pos(s, ta, tb, u, rt->need[dc[n]]))));
                d = n ? qm_qmul(d, sq[dc[n]]) : sq[dc[n]];
            }
        } else if (e->down_count) {
            d = sq[dc[0]];
            for (int n = 1; n < e->down_count; n++) d = qm_qmul(d, sq[dc[n]]);
        }
        if (e->up_count) {
            const int *uc = rt->chain + e->up;
            qm_quat up = sq[uc[0]];
            for (int n = 1; n < e->up_count; n++) up = qm_qmul(up, sq[uc[n]]);
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
        qm_quat g = e->aim_count ? qm_qmul(d, aim[i]) : d;
        if (e->paim) g = qm_qmul(qm_qconj(aim[e->parent]), g);
        const float *m = e->m; /* pre * g * post */
        qm_quat l = qm_qnorm(qm_q(m[0] * g.x + m[1] * g.y + m[2] * g.z + m[3] * g.w,
                                  m[4] * g.x + m[5] * g.y + m[6] * g.z + m[7] * g.w,
                                  m[8] * g.x + m[9] * g.y + m[10] * g.z + m[11] * g.w,
                                  m[12] * g.x + m[13] * g.y + m[14] * g.z + m[15] * g.w));
        if (fixing && e->pchild) { /* below the pelvis: the turn undone in its parent's frame (cpar: the joints between at rest) */
            const qm_quat ud = e->cpar_id ? undo : qm_qmul(qm_qconj(qf(e->cpar)), qm_qmul(undo, qf(e->cpar)));
            l = qm_qnorm(qm_qmul(ud, l));
        }
        const int j = e->joint;
        qm_vec3 pos = qm_v3(0, 0, 0);
        if (top) {
            pos = qm_add(qm_add(vf(rt->c), qm_scale(p, rt->k)), qm_qrot(d, qm_sub(vf(rt->w1), qm_qrot(aim[i], vf(rt->w2)))));
            if (fixing) { /* the pelvis turned by dq in model space and shifted by dp */
                const qm_quat m1 = qm_qmul(qf(e->cpar), l), m2 = qm_qnorm(qm_qmul(qm_q(fv[0], fv[1], fv[2], fv[3]), m1));
                l = qm_qnorm(qm_qmul(qm_qconj(qf(e->cpar)), m2));
                undo = qm_qmul(qm_qconj(m2), m1);
                pos = qm_add(pos, qm_v3(fv[4], fv[5], fv[6]));
            }
            qm_vec3 lt = to_local(e, pos);
            out->tx[j] = lt.x, out->ty[j] = lt.y, out->tz[j] = lt.z;
        }
        out->qx[j] = l.x, out->qy[j] = l.y, out->qz[j] = l.z, out->qw[j] = l.w;
        if (e->model) {
            /* this joint's model transform from its parent entry's (the
             * joints between at rest): R = R_pe * cpar * L, p = p_pe + R_pe off */
            qm_quat pr = e->parent >= 0 ? mrot[e->parent] : qm_qid();
            qm_vec3 pp = e->parent >= 0 ? mpos[e->parent] : qm_v3(0, 0, 0);
            prot[i] = e->cpar_id ? pr : qm_qmul(pr, qf(e->cpar)); /* the joint's parent */
            mrot[i] = qm_qmul(prot[i], l);
            mpos[i] = top ? pos : qm_add(pp, qm_qrot(pr, vf(e->off)));
        }
    }
    if (fixing) {
        for (int leg = 0; fx->stage > 1 && leg < 2; leg++) {
            const int eu = fx->legs[leg][0], el = fx->legs[leg][1], ef = fx->legs[leg][2];
            const st_rt_entry *f = &rt->entries[ef];
            const qm_vec3 A = mpos[eu], B = mpos[el];
            const qm_vec3 C = f->carrier >= 0 ? qm_add(mpos[f->carrier], qm_qrot(mrot[f->carrier], vf(f->carry))) : mpos[ef];
            qm_quat qtop, qbend;
            two_bone(A, B, C, qm_add(C, qm_v3(fv[7 + 3 * leg], fv[8 + 3 * leg], fv[9 + 3 * leg])), &qtop, &qbend);
            const int ju = rt->entries[eu].joint, jl = rt->entries[el].joint;
            /* model turns made local: the upper leg's parent stays, the
             * lower leg's turned by qtop, the foot's by both (undone) */
            mrot[eu] = qm_qmul(qtop, mrot[eu]);
            put_q(out, ju, qm_qnorm(qm_qmul(qm_qconj(prot[eu]), mrot[eu])));
            const qm_quat both = qm_qmul(qtop, qbend);
            put_q(out, jl, qm_qnorm(qm_qmul(qm_qconj(prot[el]), qm_qmul(qbend, mrot[el]))));
            if (f->carrier < 0) put_q(out, f->joint, qm_qnorm(qm_qmul(qm_qconj(qm_qmul(both, prot[ef])), mrot[ef])));
            mrot[el] = qm_qmul(both, mrot[el]);
            mpos[el] = qm_add(A, qm_qrot(qtop, qm_sub(B, A)));
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
