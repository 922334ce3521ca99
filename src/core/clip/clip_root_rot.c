/* src/core/clip/clip_root_rot.c - root paths that turn (issue 25): with yaw
 * (stance_clip_desc.root_yaw: linear between keys, pieces about +Y) and
 * with full rotation (stance_clip_desc.root_rotation): the path's
 * orientation at a time (slerp between keys) and the root's motion as a
 * rigid transform, pieces in the root's frame composed across wraps, whole
 * cycles in closed form. Cold: only clips whose path turns come here
 * (clip.c dispatches).
 *
 * The root at time t is (p(t), Q(t)) in the clip's frame. A piece of
 * playback from time a to time b moves it by l = Q(a)^-1 (p(b) - p(a)) in
 * its own frame and turns it by r = Q(a)^-1 Q(b). Pieces compose as rigid
 * transforms: (t, R) then (l, r) is (t + R l, R r). n whole cycles of (l, r)
 * with r a turn by theta about the unit axis u:
 *   sum_{k<n} r^k l = n (l.u) u + s (cos phi l_perp + sin phi u x l_perp),
 *   s = sin(n theta / 2) / sin(theta / 2), phi = (n - 1) theta / 2,
 *   r^n = (u sin(n theta / 2), cos(n theta / 2)),
 * l_perp = l - (l.u) u (the part along the axis grows by n; the rest is the
 * rotation series clip.c's yaw_piece sums about +Y). */
#include <math.h>
#include <string.h>

#include "core/base/internal.h"
#include "core/clip/clip_internal.h"
#include "core/math/smath.h"

/* Hamilton product a b of quaternions (x, y, z, w). */
static void q_mul(double o[4], const double a[4], const double b[4]) {
    const double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    const double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    const double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    const double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    o[0] = x, o[1] = y, o[2] = z, o[3] = w;
}

/* v turned by the unit quaternion q: v + 2 w (u x v) + 2 u x (u x v). */
static void q_rot(double o[3], const double q[4], const double v[3]) {
    const double cx = q[1] * v[2] - q[2] * v[1], cy = q[2] * v[0] - q[0] * v[2], cz = q[0] * v[1] - q[1] * v[0];
    const double ex = q[1] * cz - q[2] * cy, ey = q[2] * cx - q[0] * cz, ez = q[0] * cy - q[1] * cx;
    o[0] = v[0] + 2.0 * (q[3] * cx + ex), o[1] = v[1] + 2.0 * (q[3] * cy + ey), o[2] = v[2] + 2.0 * (q[3] * cz + ez);
}

static void q_norm(double q[4]) {
    const double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++) q[i] /= n;
}

float st_root_yaw_at(const stance_clip *c, float time) {
    const int n = c->root_key_count;
    if (!c->root_yaw || n == 0) return 0.0f;
    const float *v = c->root_yaw;
    float u = 0.0f;
    const int lo = st_root_interval(c->root_times, n, time, &u);
    if (lo == -1) return v[0];
    if (lo == -2) return v[n - 1];
    return v[lo] + (v[lo + 1] - v[lo]) * u;
}

/* One piece of a path with yaw: from (pa, ya) to (pb, yb), the displacement
 * in the frame at pa, accumulated (turned by acc[3] so far) into acc. */
static void yaw_piece(double acc[4], const float pa[3], float ya, const float pb[3], float yb, double times) {
    const double dx = (double)pb[0] - pa[0], dy = (double)pb[1] - pa[1], dz = (double)pb[2] - pa[2];
    const double c = (double)sm_cosf(-ya), s = (double)sm_sinf(-ya);
    /* the piece in its own frame (rotation about +Y by -ya: x' = c x + s z, z' = -s x + c z) */
    const double lx = c * dx + s * dz, lz = -s * dx + c * dz, dyaw = (double)yb - ya;
    /* `times` pieces one after another: sum over k of R(acc + k dyaw) l = R(acc) l sum_k R(k dyaw) */
    double sx = times, sz = 0.0; /* sum_k (cos k dyaw, sin k dyaw) as a complex number */
    if (times != 1.0 && fabs(dyaw) > 1e-12) {
        const float h = (float)(0.5 * dyaw), ang = (float)((times - 1.0) * h);
        const double r = (double)sm_sinf((float)(times * h)) / (double)sm_sinf(h);
        sx = r * (double)sm_cosf(ang), sz = r * (double)sm_sinf(ang);
    }
    /* rotate l by the complex sum (a rotation about +Y by angle phi maps x to c x + s z, z to -s x + c z) */
    const double mx = sx * lx + sz * lz, mz = -sz * lx + sx * lz;
    const double ca = (double)sm_cosf((float)acc[3]), sa = (double)sm_sinf((float)acc[3]);
    acc[0] += ca * mx + sa * mz, acc[1] += times * dy, acc[2] += -sa * mx + ca * mz;
    acc[3] += times * dyaw;
}

/* A path with yaw: from `time` (at a) to nt (at b) across `wraps` cycles,
 * pieces in the root's frame composed: to the cycle's end, whole cycles,
 * from its start. out[3] gets the turn, out[4..6] its axis (+Y). */
void st_root_yaw_motion(const stance_clip *c, float time, float nt, int wraps, const float a[3], const float b[3],
                        const float s0[3], const float s1[3], float out[7]) {
    const float D = c->duration;
    double acc[4] = {0.0, 0.0, 0.0, 0.0};
    const float ya = st_root_yaw_at(c, time), yb = st_root_yaw_at(c, nt);
    if (wraps == 0) {
        yaw_piece(acc, a, ya, b, yb, 1.0);
    } else {
        const float y0 = st_root_yaw_at(c, 0.0f), y1 = st_root_yaw_at(c, D);
        if (wraps > 0) {
            yaw_piece(acc, a, ya, s1, y1, 1.0);
            if (wraps > 1) yaw_piece(acc, s0, y0, s1, y1, (double)(wraps - 1));
            yaw_piece(acc, s0, y0, b, yb, 1.0);
        } else {
            yaw_piece(acc, a, ya, s0, y0, 1.0);
            if (wraps < -1) yaw_piece(acc, s1, y1, s0, y0, (double)(-wraps - 1));
            yaw_piece(acc, s1, y1, b, yb, 1.0);
        }
    }
    for (int i = 0; i < 4; i++) out[i] = (float)acc[i];
    out[4] = 0.0f, out[5] = 1.0f, out[6] = 0.0f; /* the turn's axis: +Y */
}

void st_root_rot_at(const stance_clip *c, float time, float q[4]) {
    const int n = c->root_key_count;
    const float *v = c->root_rotation;
    float u = 0.0f;
    const int lo = st_root_interval(c->root_times, n, time, &u);
    if (lo == -1) { memcpy(q, v, sizeof(float) * 4); return; }
    if (lo == -2) { memcpy(q, v + 4 * (size_t)(n - 1), sizeof(float) * 4); return; }
    const float *a = v + 4 * (size_t)lo, *b = a + 4; /* one hemisphere (clip creation) */
    float dm = 0.0f, dp = 0.0f;
    for (int i = 0; i < 4; i++) dm += (a[i] - b[i]) * (a[i] - b[i]), dp += (a[i] + b[i]) * (a[i] + b[i]);
    /* the angle between the keys as 4-vectors, 2 atan2(|a - b|, |a + b|) (exact near 0) */
    const float om = 2.0f * sm_atan2f(sqrtf(dm), sqrtf(dp));
    float wa = 1.0f - u, wb = u;
    if (om > 1e-4f) {
        const float so = sm_sinf(om);
        wa = sm_sinf((1.0f - u) * om) / so, wb = sm_sinf(u * om) / so;
    }
    double r[4];
    for (int i = 0; i < 4; i++) r[i] = (double)wa * a[i] + (double)wb * b[i];
    q_norm(r);
    for (int i = 0; i < 4; i++) q[i] = (float)r[i];
}

/* `times` pieces (l, r) from (pa, qa) to (pb, qb), composed into (acc_t, acc_q). */
static void rot_piece(double acc_t[3], double acc_q[4], const float pa[3], const float qa[4], const float pb[3],
                      const float qb[4], double times) {
    const double ai[4] = {-(double)qa[0], -(double)qa[1], -(double)qa[2], qa[3]}, bq[4] = {qb[0], qb[1], qb[2], qb[3]};
    const double d[3] = {(double)pb[0] - pa[0], (double)pb[1] - pa[1], (double)pb[2] - pa[2]};
    double l[3], r[4], sum[3], rn[4];
    q_rot(l, ai, d);
    q_mul(r, ai, bq);
    if (r[3] < 0.0) for (int i = 0; i < 4; i++) r[i] = -r[i];
    q_norm(r);
    const double sv = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    if (times == 1.0) {
        memcpy(sum, l, sizeof sum), memcpy(rn, r, sizeof rn);
    } else if (sv > 1e-12) {
        const double u[3] = {r[0] / sv, r[1] / sv, r[2] / sv};
        const float h = sm_atan2f((float)sv, (float)r[3]); /* theta / 2, in [0, pi / 2] */
        const double along = l[0] * u[0] + l[1] * u[1] + l[2] * u[2];
        const double p[3] = {l[0] - along * u[0], l[1] - along * u[1], l[2] - along * u[2]};
        const double x[3] = {u[1] * p[2] - u[2] * p[1], u[2] * p[0] - u[0] * p[2], u[0] * p[1] - u[1] * p[0]};
        const float nh = (float)(times * (double)h), phi = (float)((times - 1.0) * (double)h);
        const double s = (double)sm_sinf(nh) / (double)sm_sinf(h), cp = (double)sm_cosf(phi), spp = (double)sm_sinf(phi);
        for (int i = 0; i < 3; i++) sum[i] = times * along * u[i] + s * (cp * p[i] + spp * x[i]);
        const double sn = (double)sm_sinf(nh);
        rn[0] = u[0] * sn, rn[1] = u[1] * sn, rn[2] = u[2] * sn, rn[3] = (double)sm_cosf(nh);
    } else { /* no turn: the displacement n times */
        for (int i = 0; i < 3; i++) sum[i] = times * l[i];
        rn[0] = rn[1] = rn[2] = 0.0, rn[3] = 1.0;
    }
    double w[3];
    q_rot(w, acc_q, sum);
    for (int i = 0; i < 3; i++) acc_t[i] += w[i];
    q_mul(acc_q, acc_q, rn);
    q_norm(acc_q);
}

void st_root_rot_motion(const stance_clip *c, float time, float nt, int wraps, const float a[3], const float b[3],
                        const float s0[3], const float s1[3], float out[7], float q[4]) {
    double t[3] = {0.0, 0.0, 0.0}, r[4] = {0.0, 0.0, 0.0, 1.0};
    float qa[4], qb[4];
    st_root_rot_at(c, time, qa);
    st_root_rot_at(c, nt, qb);
    if (wraps == 0) {
        rot_piece(t, r, a, qa, b, qb, 1.0);
    } else {
        float q0[4], q1[4];
        st_root_rot_at(c, 0.0f, q0);
        st_root_rot_at(c, c->duration, q1);
        if (wraps > 0) {
            rot_piece(t, r, a, qa, s1, q1, 1.0);
            if (wraps > 1) rot_piece(t, r, s0, q0, s1, q1, (double)(wraps - 1));
            rot_piece(t, r, s0, q0, b, qb, 1.0);
        } else {
            rot_piece(t, r, a, qa, s0, q0, 1.0);
            if (wraps < -1) rot_piece(t, r, s1, q1, s0, q0, (double)(-wraps - 1));
            rot_piece(t, r, s1, q1, b, qb, 1.0);
        }
    }
    if (r[3] < 0.0) for (int i = 0; i < 4; i++) r[i] = -r[i];
    for (int i = 0; i < 3; i++) out[i] = (float)t[i];
    /* the turn as angle and unit axis (angle 0 when there is none) */
    const double sv = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    if (sv > 1e-30) {
        out[3] = 2.0f * sm_atan2f((float)sv, (float)r[3]);
        out[4] = (float)(r[0] / sv), out[5] = (float)(r[1] / sv), out[6] = (float)(r[2] / sv);
    } else {
        out[3] = 0.0f, out[4] = 0.0f, out[5] = 1.0f, out[6] = 0.0f;
    }
    if (out[3] == 0.0f) out[3] = 0.0f; /* never -0 */
    if (q)
        for (int i = 0; i < 4; i++) q[i] = (float)r[i];
}
