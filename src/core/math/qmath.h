/* src/core/math/qmath.h - small inline vector and quaternion maths (scalar).
 *
 * Quaternions are (x, y, z, w) with w the real part. Owns no state. The SoA
 * pose loops in pose.c/clip.c use their own inlined forms of these; the
 * functions here are the reference the tests compare against. */
#ifndef STANCE_QMATH_H
#define STANCE_QMATH_H

#include <math.h>

#include "core/math/smath.h"

typedef struct qm_vec3 { float x, y, z; } qm_vec3;
typedef struct qm_quat { float x, y, z, w; } qm_quat;

static inline qm_vec3 qm_v3(float x, float y, float z) { qm_vec3 v = {x, y, z}; return v; }
static inline qm_vec3 qm_add(qm_vec3 a, qm_vec3 b) { return qm_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline qm_vec3 qm_sub(qm_vec3 a, qm_vec3 b) { return qm_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline qm_vec3 qm_scale(qm_vec3 a, float s) { return qm_v3(a.x * s, a.y * s, a.z * s); }
static inline qm_vec3 qm_mul3(qm_vec3 a, qm_vec3 b) { return qm_v3(a.x * b.x, a.y * b.y, a.z * b.z); }
static inline float qm_dot3(qm_vec3 a, qm_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline float qm_len3(qm_vec3 a) { return sqrtf(qm_dot3(a, a)); }
static inline qm_vec3 qm_cross(qm_vec3 a, qm_vec3 b) {
    return qm_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline qm_vec3 qm_norm3(qm_vec3 a) {
    float l = qm_len3(a);
    return l > 0.0f ? qm_scale(a, 1.0f / l) : a;
}
static inline qm_vec3 qm_lerp3(qm_vec3 a, qm_vec3 b, float t) {
    return qm_v3(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t);
}

static inline qm_quat qm_q(float x, float y, float z, float w) { qm_quat q = {x, y, z, w}; return q; }
static inline qm_quat qm_qid(void) { return qm_q(0, 0, 0, 1); }
static inline float qm_qdot(qm_quat a, qm_quat b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
static inline qm_quat qm_qnorm(qm_quat q) {
    float l = sqrtf(qm_qdot(q, q));
    if (!(l > 0.0f)) return qm_qid();
    float s = 1.0f / l;
    return qm_q(q.x * s, q.y * s, q.z * s, q.w * s);
}
static inline qm_quat qm_qconj(qm_quat q) { return qm_q(-q.x, -q.y, -q.z, q.w); }
static inline qm_quat qm_qneg(qm_quat q) { return qm_q(-q.x, -q.y, -q.z, -q.w); }
/* a * b: rotate by b first, then by a. */
static inline qm_quat qm_qmul(qm_quat a, qm_quat b) {
    return qm_q(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}
static inline qm_vec3 qm_qrot(qm_quat q, qm_vec3 v) {
    /* v + 2w (u x v) + 2 u x (u x v), u = q.xyz */
    qm_vec3 u = qm_v3(q.x, q.y, q.z);
    qm_vec3 t = qm_scale(qm_cross(u, v), 2.0f);
    return qm_add(qm_add(v, qm_scale(t, q.w)), qm_cross(u, t));
}
static inline qm_quat qm_qaxis(qm_vec3 axis, float angle) {
    axis = qm_norm3(axis);
    float s = sm_sinf(angle * 0.5f);
    return qm_q(axis.x * s, axis.y * s, axis.z * s, sm_cosf(angle * 0.5f));
}
/* The shortest rotation taking unit a onto unit b (b opposite a: a half
 * turn about an axis across a). */
static inline qm_quat qm_swing(qm_vec3 a, qm_vec3 b) {
    float d = qm_dot3(a, b);
    if (d < -0.999999f) {
        qm_vec3 ax = qm_cross(a, qm_v3(1, 0, 0));
        if (qm_dot3(ax, ax) < 1e-6f) ax = qm_cross(a, qm_v3(0, 1, 0));
        ax = qm_norm3(ax);
        return qm_q(ax.x, ax.y, ax.z, 0.0f);
    }
    qm_vec3 c = qm_cross(a, b);
    return qm_qnorm(qm_q(c.x, c.y, c.z, 1.0f + d));
}
/* Shortest-path normalized lerp. */
static inline qm_quat qm_nlerp(qm_quat a, qm_quat b, float t) {
    if (qm_qdot(a, b) < 0.0f) b = qm_qneg(b);
    return qm_qnorm(qm_q(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t,
                         a.z + (b.z - a.z) * t, a.w + (b.w - a.w) * t));
}
/* Shortest-path spherical lerp. */
static inline qm_quat qm_slerp(qm_quat a, qm_quat b, float t) {
    float d = qm_qdot(a, b);
    if (d < 0.0f) { b = qm_qneg(b); d = -d; }
    if (d > 0.9995f) return qm_nlerp(a, b, t);
    float th = sm_acosf(d), s = sm_sinf(th);
    float wa = sm_sinf((1.0f - t) * th) / s, wb = sm_sinf(t * th) / s;
    return qm_qnorm(qm_q(a.x * wa + b.x * wb, a.y * wa + b.y * wb, a.z * wa + b.z * wb, a.w * wa + b.w * wb));
}
/* Scaled angle-axis (log): the rotation vector angle * axis, shortest way. */
static inline qm_vec3 qm_qlog(qm_quat q) {
    if (q.w < 0.0f) q = qm_qneg(q);
    float s = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z);
    if (s < 1e-8f) return qm_v3(2.0f * q.x, 2.0f * q.y, 2.0f * q.z);
    float angle = 2.0f * sm_atan2f(s, q.w);
    return qm_scale(qm_v3(q.x, q.y, q.z), angle / s);
}
/* Inverse of qm_qlog. */
static inline qm_quat qm_qexp(qm_vec3 v) {
    float angle = qm_len3(v);
    if (angle < 1e-8f) return qm_qnorm(qm_q(v.x * 0.5f, v.y * 0.5f, v.z * 0.5f, 1.0f));
    float s = sm_sinf(angle * 0.5f) / angle;
    return qm_q(v.x * s, v.y * s, v.z * s, sm_cosf(angle * 0.5f));
}
/* Angle in radians between two rotations (0..pi). */
static inline float qm_qangle(qm_quat a, qm_quat b) {
    /* atan2 of the relative rotation stays accurate near zero, where acos of
     * the dot product loses half the digits */
    qm_quat r = qm_qmul(qm_qconj(a), b);
    float s = sqrtf(r.x * r.x + r.y * r.y + r.z * r.z);
    return 2.0f * sm_atan2f(s, fabsf(r.w));
}
static inline int qm_finite(float x) { return isfinite(x); }

#endif
