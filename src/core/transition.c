/* src/core/transition.c - the maths of switching poses: history velocity and
 * extrapolation, inertialization (the lesson's per-component quintic and
 * Bollo's axis form with overshoot control, for vectors and quaternions),
 * dead blending's decaying extrapolation, eased weights.
 *
 * Works on whole SoA poses; owns no state (the records live in the
 * instance). Rotational offsets are left-multiplied (parent frame):
 * out = offset * target, with angular velocities in the parent frame. */
#include <string.h>

#include "core/graph_internal.h"
#include "core/qmath.h"

float tr_ease(stance_easing e, float p) {
    p = p < 0.0f ? 0.0f : p > 1.0f ? 1.0f : p;
    return e == STANCE_EASE_LINEAR ? p : p * p * (3.0f - 2.0f * p);
}

static qm_quat qget(const stance_pose *p, int j) { return qm_q(p->qx[j], p->qy[j], p->qz[j], p->qw[j]); }
static void qset(stance_pose *p, int j, qm_quat q) { p->qx[j] = q.x, p->qy[j] = q.y, p->qz[j] = q.z, p->qw[j] = q.w; }

/* Issue 12: history frames closer than STANCE_MIN_DT give no velocity (a
 * division by a subnormal step overflowed to inf and made NaN), and an
 * extrapolation reaches at most TR_MAX_EXTRAPOLATE history steps ahead (a
 * 1 s step after a 1e-6 s one would otherwise throw the old pose a million
 * steps away). */
#define TR_MAX_EXTRAPOLATE 4.0f

void tr_velocity(stance_pose *vel, const stance_pose *h1, const stance_pose *h2, float hist_dt) {
    const float inv = hist_dt >= STANCE_MIN_DT ? 1.0f / hist_dt : 0.0f;
    for (int j = 0; j < h1->joint_count; j++) {
        vel->tx[j] = (h1->tx[j] - h2->tx[j]) * inv;
        vel->ty[j] = (h1->ty[j] - h2->ty[j]) * inv;
        vel->tz[j] = (h1->tz[j] - h2->tz[j]) * inv;
        vel->sx[j] = (h1->sx[j] - h2->sx[j]) * inv;
        vel->sy[j] = (h1->sy[j] - h2->sy[j]) * inv;
        vel->sz[j] = (h1->sz[j] - h2->sz[j]) * inv;
        qm_vec3 w = qm_scale(qm_qlog(qm_qmul(qget(h1, j), qm_qconj(qget(h2, j)))), inv);
        vel->qx[j] = w.x, vel->qy[j] = w.y, vel->qz[j] = w.z, vel->qw[j] = 0.0f;
    }
}

void tr_extrapolate(stance_pose *out, const stance_pose *h1, const stance_pose *h2, float hist_dt, float dt) {
    float k = hist_dt >= STANCE_MIN_DT && dt > 0.0f ? dt / hist_dt : 0.0f;
    if (k > TR_MAX_EXTRAPOLATE) k = TR_MAX_EXTRAPOLATE;
    for (int j = 0; j < h1->joint_count; j++) {
        out->tx[j] = h1->tx[j] + (h1->tx[j] - h2->tx[j]) * k;
        out->ty[j] = h1->ty[j] + (h1->ty[j] - h2->ty[j]) * k;
        out->tz[j] = h1->tz[j] + (h1->tz[j] - h2->tz[j]) * k;
        out->sx[j] = h1->sx[j] + (h1->sx[j] - h2->sx[j]) * k;
        out->sy[j] = h1->sy[j] + (h1->sy[j] - h2->sy[j]) * k;
        out->sz[j] = h1->sz[j] + (h1->sz[j] - h2->sz[j]) * k;
        qm_quat q1 = qget(h1, j);
        qm_vec3 w = qm_scale(qm_qlog(qm_qmul(q1, qm_qconj(qget(h2, j)))), k);
        qset(out, j, qm_qnorm(qm_qmul(qm_qexp(w), q1)));
    }
}

float tr_quintic(float x0, float v0, float a0, float T, float t) {
    if (!(T > 0.0f) || t >= T) return 0.0f;
    if (t <= 0.0f) return x0;
    float T2 = T * T, T3 = T2 * T;
    float A = -(a0 * T2 + 6.0f * v0 * T + 12.0f * x0) / (2.0f * T3 * T2);
    float B = (3.0f * a0 * T2 + 16.0f * v0 * T + 30.0f * x0) / (2.0f * T3 * T);
    float C = -(3.0f * a0 * T2 + 12.0f * v0 * T + 20.0f * x0) / (2.0f * T3);
    return (((((A * t + B) * t + C) * t + 0.5f * a0) * t + v0) * t) + x0;
}

/* Bollo (GDC 2018): with x0 >= 0 along the offset axis, a velocity heading
 * back to zero (v0 < 0) shortens the blend to at most -5 x0 / v0, and the
 * starting acceleration (-8 v0 T - 20 x0) / T^2, kept >= 0, makes the curve
 * reach zero without passing it. */
void tr_bollo_params(float x0, float v0, float blend, float *a0, float *T) {
    float t1 = blend;
    if (v0 < 0.0f) {
        float lim = -5.0f * x0 / v0;
        if (lim < t1) t1 = lim;
    }
    if (t1 < 1e-6f) t1 = 1e-6f;
    float a = (-8.0f * v0 * t1 - 20.0f * x0) / (t1 * t1);
    *a0 = a > 0.0f ? a : 0.0f;
    *T = t1;
}

static void init_channel(float *rec, qm_vec3 d, qm_vec3 dv, float blend, int simple) {
    if (simple) {
        rec[0] = d.x, rec[1] = d.y, rec[2] = d.z;
        rec[3] = dv.x, rec[4] = dv.y, rec[5] = dv.z;
        rec[6] = blend, rec[7] = 0.0f;
        return;
    }
    float x0 = qm_len3(d);
    qm_vec3 axis;
    if (x0 > 1e-9f) {
        axis = qm_scale(d, 1.0f / x0);
    } else {
        float lv = qm_len3(dv);
        axis = lv > 1e-9f ? qm_scale(dv, 1.0f / lv) : qm_v3(1.0f, 0.0f, 0.0f);
        x0 = 0.0f;
    }
    float v0 = qm_dot3(dv, axis), a0, T;
    tr_bollo_params(x0, v0, blend, &a0, &T);
    rec[0] = axis.x, rec[1] = axis.y, rec[2] = axis.z;
    rec[3] = x0, rec[4] = v0, rec[5] = a0, rec[6] = T, rec[7] = 0.0f;
}

static qm_vec3 eval_channel(const float *rec, float t, int simple) {
    if (simple)
        return qm_v3(tr_quintic(rec[0], rec[3], 0.0f, rec[6], t), tr_quintic(rec[1], rec[4], 0.0f, rec[6], t),
                     tr_quintic(rec[2], rec[5], 0.0f, rec[6], t));
    float x = tr_quintic(rec[3], rec[4], rec[5], rec[6], t);
    return qm_v3(rec[0] * x, rec[1] * x, rec[2] * x);
}

void tr_inertialize_init(float *rec, const stance_pose *src, const stance_pose *sv, const stance_pose *dst,
                         const stance_pose *dv, float blend, int simple) {
    for (int j = 0; j < src->joint_count; j++) {
        float *r = rec + (size_t)j * INERT_FLOATS;
        qm_vec3 vs = sv ? qm_v3(sv->tx[j], sv->ty[j], sv->tz[j]) : qm_v3(0, 0, 0);
        qm_vec3 vd = dv ? qm_v3(dv->tx[j], dv->ty[j], dv->tz[j]) : qm_v3(0, 0, 0);
        init_channel(r, qm_v3(src->tx[j] - dst->tx[j], src->ty[j] - dst->ty[j], src->tz[j] - dst->tz[j]),
                     qm_sub(vs, vd), blend, simple);
        qm_quat q0 = qm_qmul(qget(src, j), qm_qconj(qget(dst, j)));
        qm_vec3 ws = sv ? qm_v3(sv->qx[j], sv->qy[j], sv->qz[j]) : qm_v3(0, 0, 0);
        qm_vec3 wd = dv ? qm_v3(dv->qx[j], dv->qy[j], dv->qz[j]) : qm_v3(0, 0, 0);
        init_channel(r + 8, qm_qlog(q0), qm_sub(ws, wd), blend, simple); /* qlog takes the short way */
        qm_vec3 ss = sv ? qm_v3(sv->sx[j], sv->sy[j], sv->sz[j]) : qm_v3(0, 0, 0);
        qm_vec3 sd = dv ? qm_v3(dv->sx[j], dv->sy[j], dv->sz[j]) : qm_v3(0, 0, 0);
        init_channel(r + 16, qm_v3(src->sx[j] - dst->sx[j], src->sy[j] - dst->sy[j], src->sz[j] - dst->sz[j]),
                     qm_sub(ss, sd), blend, simple);
    }
}

void tr_inertialize_apply(stance_pose *out, const float *rec, float t, int simple) {
    for (int j = 0; j < out->joint_count; j++) {
        const float *r = rec + (size_t)j * INERT_FLOATS;
        qm_vec3 dt = eval_channel(r, t, simple);
        out->tx[j] += dt.x, out->ty[j] += dt.y, out->tz[j] += dt.z;
        qm_vec3 dr = eval_channel(r + 8, t, simple);
        qset(out, j, qm_qnorm(qm_qmul(qm_qexp(dr), qget(out, j))));
        qm_vec3 ds = eval_channel(r + 16, t, simple);
        out->sx[j] += ds.x, out->sy[j] += ds.y, out->sz[j] += ds.z;
    }
}

void tr_deadblend_source(stance_pose *out, const stance_pose *h1, const float *vel, float t, float halflife) {
    const float lambda = 0.69314718f / halflife;
    const float f = (1.0f - expf(-lambda * t)) / lambda;
    for (int j = 0; j < h1->joint_count; j++) {
        const float *v = vel + (size_t)j * 9;
        out->tx[j] = h1->tx[j] + v[0] * f, out->ty[j] = h1->ty[j] + v[1] * f, out->tz[j] = h1->tz[j] + v[2] * f;
        qset(out, j, qm_qnorm(qm_qmul(qm_qexp(qm_v3(v[3] * f, v[4] * f, v[5] * f)), qget(h1, j))));
        out->sx[j] = h1->sx[j] + v[6] * f, out->sy[j] = h1->sy[j] + v[7] * f, out->sz[j] = h1->sz[j] + v[8] * f;
    }
}

void tr_lerp(stance_pose *out, const stance_pose *a, const stance_pose *b, float w) {
    stance_pose_blend_masked(out, a, b, NULL, w < 0.0f ? 0.0f : w > 1.0f ? 1.0f : w);
}
