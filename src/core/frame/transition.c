/* src/core/frame/transition.c - the maths of switching poses: history velocity and
 * extrapolation, inertialization (the lesson's per-component quintic, and
 * Bollo's vector form: his overshoot-free quintic along the offset's axis
 * (his t1; the starting acceleration at or above his that minimises the
 * curve's peak acceleration),
 * the rest of the velocity on its own bounded quintics, for vectors and
 * quaternions),
 * dead blending's decaying extrapolation, eased weights.
 *
 * Works on whole SoA poses; owns no state (the records live in the
 * instance). Rotational offsets are left-multiplied (parent frame):
 * out = offset * target, with angular velocities in the parent frame. */
#include <string.h>

#include "core/frame/transition.h"
#include "core/base/internal.h"
#include "core/rig/rig_internal.h"
#include "core/math/qmath.h"
#include "stance/instance.h"

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
 * reach zero without passing it. tr_bollo_a0 below keeps his t1 and uses
 * his a0 as a lower bound. */
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

/* The starting acceleration stance uses instead of Bollo's (issue 15).
 *
 * In units of x0 and t1 (s = t / t1, r = -v0 t1 / x0, 0 <= r <= 5 after
 * the clamp, a = a0 t1^2 / x0) the quintic is (1-s)^3 (1 + (3-r) s + c s^2)
 * with c = (a - 6r + 12) / 2, and its acceleration is, exactly,
 *   p(s) = (1-s) (a + (36 - 12r - 16c) s + 20c s^2).
 * Bollo's a = max(0, 8r - 20) is the smallest starting acceleration at
 * which the curve never passes zero (8r - 20 makes 1 + (3-r)s + cs^2 vanish
 * at s = 1) and never starts by pulling away from the target (0). Any larger
 * a keeps both (the quadratic only grows with c on [0, 1]), so among those
 * we take the one with the smallest peak |p| over [0, 1]. It depends on r
 * alone: it is Bollo's own for r <= 1.73 and r >= 3.10 (the clamped
 * channels, r = 5, included), and lowers the peak by up to 27% in between
 * (r = 2.37; r = 2.5: 3.32 against 4.44 x0 / t1^2), where Bollo's a0 is 0
 * or small and the curve does all its braking after the switch.
 *
 * BOLLO_A_OPT holds that minimiser at r = 1.70, 1.75, ... 3.15, found
 * offline by a golden-section search of peak |p| (convex in a: a maximum
 * of |affine|) on a 20,000-point grid of s; between nodes it is
 * interpolated, and Bollo's bound is kept where its exact peak is no higher. The interpolated a's
 * peak is within 0.15% of the smallest; test_inertia checks the runtime's
 * a0 against its own search (every node, and 300 random cases). A table
 * instead of the search: the search cost about 2,700 instructions a
 * channel at the switch, the lookup and two exact peaks about a hundred. */
#define BOLLO_R0 1.7f
#define BOLLO_DR 0.05f
#define BOLLO_N 30
/* peak |p| over [0, 1] for r and a, from the extrema of the cubic */
static float bollo_peak(float r, float a) {
    const float c = 0.5f * (a - 6.0f * r + 12.0f);
    const float al = a, be = 36.0f - 12.0f * r - 16.0f * c, ga = 20.0f * c;
    /* p(s) = al + (be - al) s + (ga - be) s^2 - ga s^3; its extrema inside (0, 1) */
    const float k1 = be - al, k2 = 2.0f * (ga - be), k3 = -3.0f * ga;
    float best = fabsf(al), roots[2];
    int n = 0;
    if (fabsf(k3) > 1e-6f) {
        const float disc = k2 * k2 - 4.0f * k3 * k1;
        if (disc >= 0.0f) {
            const float sq = sqrtf(disc);
            roots[n++] = (-k2 + sq) / (2.0f * k3), roots[n++] = (-k2 - sq) / (2.0f * k3);
        }
    } else if (fabsf(k2) > 1e-6f) {
        roots[n++] = -k1 / k2;
    }
    for (int i = 0; i < n; i++) {
        const float u = roots[i];
        if (u > 0.0f && u < 1.0f) {
            const float pv = (1.0f - u) * (al + (be + ga * u) * u);
            if (fabsf(pv) > best) best = fabsf(pv);
        }
    }
    return best;
}

static const float BOLLO_A_OPT[BOLLO_N] = {
    0.00000f, 0.13715f, 0.50964f, 0.88213f, 1.25462f, 1.62711f, 1.99959f, 2.37208f, 2.68631f, 2.66797f,
    2.67221f, 2.70326f, 2.76481f, 2.85924f, 2.98690f, 3.14605f, 3.27523f, 3.40273f, 3.53024f, 3.65775f,
    3.78525f, 3.91276f, 4.04026f, 4.16777f, 4.29527f, 4.42278f, 4.55029f, 4.67779f, 4.80530f, 5.20000f,
};

float tr_bollo_a0(float x0, float v0, float blend) {
    if (!(x0 > 1e-9f) || !(v0 < 0.0f)) return 0.0f; /* no axis; or r = 0, where Bollo's 0 is the minimum */
    float a0, t1;
    tr_bollo_params(x0, v0, blend, &a0, &t1);
    const float r = -v0 * t1 / x0;
    /* outside the table the bound is the minimum: the clamp's own (1-s)^5
     * at r = 5 included, and t1 at its floor */
    const float u = (r - BOLLO_R0) / BOLLO_DR;
    if (!(u > 0.0f && u < (float)(BOLLO_N - 1))) return a0;
    const int i = (int)u;
    const float f = u - (float)i;
    const float a = BOLLO_A_OPT[i] + f * (BOLLO_A_OPT[i + 1] - BOLLO_A_OPT[i]);
    /* near the table's kinks the interpolated a can sit above a minimum
     * that is the bound itself: keep whichever of the two peaks lower */
    const float lo = a0 * t1 * t1 / x0;
    if (!(a > lo) || bollo_peak(r, lo) <= bollo_peak(r, a)) return a0;
    return a * x0 / (t1 * t1);
}

/* ---- the lesson's per-component quintic (inertialize-simple) ------------- */

static void init_simple(float *rec, qm_vec3 d, qm_vec3 dv, float blend) {
    rec[0] = d.x, rec[1] = d.y, rec[2] = d.z;
    rec[3] = dv.x, rec[4] = dv.y, rec[5] = dv.z;
    rec[6] = blend, rec[7] = 0.0f;
}

static qm_vec3 eval_simple(const float *rec, float t) {
    return qm_v3(tr_quintic(rec[0], rec[3], 0.0f, rec[6], t), tr_quintic(rec[1], rec[4], 0.0f, rec[6], t),
                 tr_quintic(rec[2], rec[5], 0.0f, rec[6], t));
}

void tr_inertialize_init(float *rec, const stance_pose *src, const stance_pose *sv, const stance_pose *dst,
                         const stance_pose *dv, float blend) {
    for (int j = 0; j < src->joint_count; j++) {
        float *r = rec + (size_t)j * INERT_FLOATS;
        qm_vec3 vs = sv ? qm_v3(sv->tx[j], sv->ty[j], sv->tz[j]) : qm_v3(0, 0, 0);
        qm_vec3 vd = dv ? qm_v3(dv->tx[j], dv->ty[j], dv->tz[j]) : qm_v3(0, 0, 0);
        init_simple(r, qm_v3(src->tx[j] - dst->tx[j], src->ty[j] - dst->ty[j], src->tz[j] - dst->tz[j]), qm_sub(vs, vd), blend);
        qm_quat q0 = qm_qmul(qget(src, j), qm_qconj(qget(dst, j)));
        qm_vec3 ws = sv ? qm_v3(sv->qx[j], sv->qy[j], sv->qz[j]) : qm_v3(0, 0, 0);
        qm_vec3 wd = dv ? qm_v3(dv->qx[j], dv->qy[j], dv->qz[j]) : qm_v3(0, 0, 0);
        init_simple(r + 8, qm_qlog(q0), qm_sub(ws, wd), blend); /* qlog takes the short way */
        qm_vec3 ss = sv ? qm_v3(sv->sx[j], sv->sy[j], sv->sz[j]) : qm_v3(0, 0, 0);
        qm_vec3 sd = dv ? qm_v3(dv->sx[j], dv->sy[j], dv->sz[j]) : qm_v3(0, 0, 0);
        init_simple(r + 16, qm_v3(src->sx[j] - dst->sx[j], src->sy[j] - dst->sy[j], src->sz[j] - dst->sz[j]), qm_sub(ss, sd), blend);
    }
}

void tr_inertialize_apply(stance_pose *out, const float *rec, float t) {
    for (int j = 0; j < out->joint_count; j++) {
        const float *r = rec + (size_t)j * INERT_FLOATS;
        qm_vec3 dt = eval_simple(r, t);
        out->tx[j] += dt.x, out->ty[j] += dt.y, out->tz[j] += dt.z;
        qm_vec3 dr = eval_simple(r + 8, t);
        qset(out, j, qm_qnorm(qm_qmul(qm_qexp(dr), qget(out, j))));
        qm_vec3 ds = eval_simple(r + 16, t);
        out->sx[j] += ds.x, out->sy[j] += ds.y, out->sz[j] += ds.z;
    }
}

/* ---- Bollo's inertialization, vector form ---------------------------------
 *
 * Per joint and channel (translation, rotation as the rotation vector of the
 * offset quaternion, scale) the record holds the offset X0 = source - target
 * at the switch and its velocity V. Bollo's quintic (GDC 2018) runs along the
 * offset's axis e = X0 / |X0|, so x0 = |X0| >= 0 (his sign choice), with the
 * velocity's component along it, v = V.e, clamped to v <= 0 (heading back to
 * zero): t1 = min(T, -5 x0 / v), a0 = max(0, (-8 v t1 - 20 x0) / t1^2). It
 * never passes zero. stance keeps his t1 and takes his a0 as a lower bound:
 * tr_bollo_a0 picks the a0 at or above it with the smallest peak
 * acceleration (stored per channel by tr_inertia_fit).
 *
 * What the clamp and the projection drop is kept, so the offset's velocity
 * at the switch is V exactly (no velocity kink): each remaining part is a
 * quintic with zero start offset, zero start acceleration and unit start
 * velocity, B(t; D) = D s (1-s)^3 (1+3s), s = t / D, which never changes
 * sign and peaks at 0.1975 D:
 *  - the part moving away from zero, max(v, 0) e, over D = t1 (= T then):
 *    with Bollo's part this is the quintic of x0 and v, which cannot pass
 *    zero when v >= 0;
 *  - the part across the axis, W = V - v e, over D = min(t1, 2 x0 /
 *    (0.1975 |W|)): done when the along part is, and its peak excursion
 *    across is at most twice the offset. (Unbounded, a body landing fast
 *    beside a target a few cm away swings the legs on through the target.)
 * With no offset (x0 = 0) the whole velocity moves away from zero: B over T.
 *
 * The velocity is the offset's own, measured over the first step after the
 * switch (tr_inertia_fit): the source extrapolated with its history velocity
 * minus the target as the graph really plays it. A target velocity sampled
 * from its clips misses a blend space's weights moving with a damped
 * parameter (Idle->Move as speed ramps up) and a nested machine's motion.
 * Until that step the offset is X0 and only its value is used. */

#define TR_BUMP_PEAK (16.0f / 81.0f) /* max of s (1-s)^3 (1+3s) on [0, 1], at s = 1/3 */

void tr_bollo_offset(const float *x0v, const float *v0v, float a0v, float T, float t, float *out) {
    out[0] = out[1] = out[2] = 0.0f;
    if (!(T > 0.0f) || t >= T) return;
    const qm_vec3 X0 = qm_v3(x0v[0], x0v[1], x0v[2]), V = qm_v3(v0v[0], v0v[1], v0v[2]);
    if (t <= 0.0f) {
        out[0] = X0.x, out[1] = X0.y, out[2] = X0.z;
        return;
    }
    const float x0 = qm_len3(X0);
    if (!(x0 > 1e-9f)) { /* no offset, no axis: all the velocity moves away from zero */
        const float b = tr_quintic(0.0f, 1.0f, 0.0f, T, t);
        out[0] = V.x * b, out[1] = V.y * b, out[2] = V.z * b;
        return;
    }
    const qm_vec3 e = qm_scale(X0, 1.0f / x0);
    const float v = qm_dot3(V, e);
    const float vin = v < 0.0f ? v : 0.0f, vout = v - vin; /* Bollo's clamp, and what it leaves */
    float a0, t1;
    tr_bollo_params(x0, vin, T, &a0, &t1); /* vout > 0 only when vin = 0, and then t1 = T */
    if (a0v > a0) a0 = a0v; /* tr_bollo_a0's, chosen when the velocity was known (never below Bollo's) */
    const float along = tr_quintic(x0, vin, a0, t1, t) + vout * tr_quintic(0.0f, 1.0f, 0.0f, t1, t);
    /* across the axis: done by t1 too, and never further out than 2 x0 */
    const qm_vec3 W = qm_sub(V, qm_scale(e, v));
    const float w = qm_len3(W);
    float Tp = t1;
    if (w * TR_BUMP_PEAK * Tp > 2.0f * x0) Tp = 2.0f * x0 / (TR_BUMP_PEAK * w);
    const float across = tr_quintic(0.0f, 1.0f, 0.0f, Tp, t);
    out[0] = e.x * along + W.x * across, out[1] = e.y * along + W.y * across, out[2] = e.z * along + W.z * across;
}

static qm_vec3 rec_v3(const float *r) { return qm_v3(r[0], r[1], r[2]); }
static void rec_set(float *r, qm_vec3 v) { r[0] = v.x, r[1] = v.y, r[2] = v.z; }

/* A switch's offsets and velocities are kept finite and bounded: poses
 * with coordinates near FLT_MAX would otherwise overflow a difference or a
 * quotient by dt, and the quintics would make inf of it. 1e6 units (and
 * units a second) is far beyond any animated motion; larger is scaled down
 * to it, a non-finite vector becomes zero. */
#define TR_REC_MAX 1e6f
static void rec_bound(float *r) {
    const double l2 = (double)r[0] * r[0] + (double)r[1] * r[1] + (double)r[2] * r[2];
    if (!(l2 <= 1e300)) {
        r[0] = r[1] = r[2] = 0.0f;
    } else if (l2 > (double)TR_REC_MAX * TR_REC_MAX) {
        const double k = TR_REC_MAX / sqrt(l2);
        for (int c = 0; c < 3; c++) r[c] = (float)(r[c] * k);
    }
}

void tr_inertia_begin(float *rec, const stance_pose *src, const stance_pose *sv, const stance_pose *dst, float blend) {
    for (int j = 0; j < src->joint_count; j++) {
        float *r = rec + (size_t)j * INERT_FLOATS;
        rec_set(r, qm_v3(src->tx[j] - dst->tx[j], src->ty[j] - dst->ty[j], src->tz[j] - dst->tz[j]));
        rec_set(r + 3, sv ? qm_v3(sv->tx[j], sv->ty[j], sv->tz[j]) : qm_v3(0, 0, 0));
        rec_set(r + 6, qm_qlog(qm_qmul(qget(src, j), qm_qconj(qget(dst, j))))); /* the short way */
        rec_set(r + 9, sv ? qm_v3(sv->qx[j], sv->qy[j], sv->qz[j]) : qm_v3(0, 0, 0));
        rec_set(r + 12, qm_v3(src->sx[j] - dst->sx[j], src->sy[j] - dst->sy[j], src->sz[j] - dst->sz[j]));
        rec_set(r + 15, sv ? qm_v3(sv->sx[j], sv->sy[j], sv->sz[j]) : qm_v3(0, 0, 0));
        r[18] = blend;
        r[19] = r[20] = r[21] = 0.0f; /* Bollo's own until tr_inertia_fit knows the velocity */
        for (int k = 0; k < 18; k += 3) rec_bound(r + k);
    }
}

/* along-axis starting acceleration of the channel at X (offset) and V (velocity) */
static float channel_a0(const float *X, const float *V, float blend) {
    const float x0 = sqrtf(X[0] * X[0] + X[1] * X[1] + X[2] * X[2]);
    if (!(x0 > 1e-9f)) return 0.0f;
    const float v = (X[0] * V[0] + X[1] * V[1] + X[2] * V[2]) / x0;
    return tr_bollo_a0(x0, v < 0.0f ? v : 0.0f, blend);
}

void tr_inertia_fit(float *rec, const stance_pose *src0, const stance_pose *dst1, float dt1) {
    const float inv = dt1 >= STANCE_MIN_DT ? 1.0f / dt1 : 0.0f;
    for (int j = 0; j < src0->joint_count; j++) {
        float *r = rec + (size_t)j * INERT_FLOATS;
        /* translation and scale: X1 - X0 = vs dt1 - (dst1 - dst0), dst0 = src0 - X0 */
        qm_vec3 d0 = qm_sub(qm_v3(src0->tx[j], src0->ty[j], src0->tz[j]), rec_v3(r));
        qm_vec3 vd = qm_scale(qm_sub(qm_v3(dst1->tx[j], dst1->ty[j], dst1->tz[j]), d0), inv);
        rec_set(r + 3, qm_sub(rec_v3(r + 3), vd));
        qm_vec3 s0 = qm_sub(qm_v3(src0->sx[j], src0->sy[j], src0->sz[j]), rec_v3(r + 12));
        qm_vec3 vsd = qm_scale(qm_sub(qm_v3(dst1->sx[j], dst1->sy[j], dst1->sz[j]), s0), inv);
        rec_set(r + 15, qm_sub(rec_v3(r + 15), vsd));
        /* rotation: the offset's rotation vector one step on, on the branch
         * nearest the one at the switch, differenced */
        qm_vec3 X0 = rec_v3(r + 6);
        qm_quat s1 = qm_qnorm(qm_qmul(qm_qexp(qm_scale(rec_v3(r + 9), dt1)), qget(src0, j)));
        qm_vec3 X1 = qm_qlog(qm_qmul(s1, qm_qconj(qget(dst1, j))));
        float a1 = qm_len3(X1);
        if (a1 > 1e-6f) {
            qm_vec3 alt = qm_sub(X1, qm_scale(X1, 6.2831853f / a1));
            qm_vec3 da = qm_sub(alt, X0), d1 = qm_sub(X1, X0);
            if (qm_dot3(da, da) < qm_dot3(d1, d1)) X1 = alt;
        }
        rec_set(r + 9, qm_scale(qm_sub(X1, X0), inv));
        rec_bound(r + 3), rec_bound(r + 9), rec_bound(r + 15);
        for (int c = 0; c < 3; c++) r[19 + c] = channel_a0(r + 6 * c, r + 6 * c + 3, r[18]);
    }
}

void tr_inertia_apply(stance_pose *out, const float *rec, float t) {
    for (int j = 0; j < out->joint_count; j++) {
        const float *r = rec + (size_t)j * INERT_FLOATS;
        float d[3];
        tr_bollo_offset(r, r + 3, r[19], r[18], t, d);
        out->tx[j] += d[0], out->ty[j] += d[1], out->tz[j] += d[2];
        tr_bollo_offset(r + 6, r + 9, r[20], r[18], t, d);
        qset(out, j, qm_qnorm(qm_qmul(qm_qexp(qm_v3(d[0], d[1], d[2])), qget(out, j))));
        tr_bollo_offset(r + 12, r + 15, r[21], r[18], t, d);
        out->sx[j] += d[0], out->sy[j] += d[1], out->sz[j] += d[2];
    }
}

void tr_deadblend_source(stance_pose *out, const stance_pose *h1, const float *vel, float t, float halflife) {
    const float lambda = 0.69314718f / halflife;
    const float f = (1.0f - sm_expf(-lambda * t)) / lambda;
    for (int j = 0; j < h1->joint_count; j++) {
        const float *v = vel + (size_t)j * 9;
        out->tx[j] = h1->tx[j] + v[0] * f, out->ty[j] = h1->ty[j] + v[1] * f, out->tz[j] = h1->tz[j] + v[2] * f;
        qset(out, j, qm_qnorm(qm_qmul(qm_qexp(qm_v3(v[3] * f, v[4] * f, v[5] * f)), qget(h1, j))));
        out->sx[j] = h1->sx[j] + v[6] * f, out->sy[j] = h1->sy[j] + v[7] * f, out->sz[j] = h1->sz[j] + v[8] * f;
    }
}

/* All padded joints 4 at a time (the runtime's poses keep identity
 * padding): the arithmetic of stance_pose_blend_masked's blocks, also on
 * its last joint_count % 4 joints, which it blends one by one. */
void tr_lerp(stance_pose *out, const stance_pose *a, const stance_pose *b, float w) {
    st_blend_masked_padded(out, a, b, NULL, w < 0.0f ? 0.0f : w > 1.0f ? 1.0f : w);
}
