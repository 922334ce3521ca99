/* src/io/gltf_bake.c - the glTF import's maths (see gltf_bake.h): affine
 * transforms in double, accessor component decoding, curves evaluated as the
 * glTF 2.0 specification says, and the resampling that bakes them onto the
 * runtime's linear key grid. Owns nothing but the times buffer it grows for
 * its caller. */
#include "gltf_bake.h"

#include "stance/base.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- transforms ------------------------------------------------------------- */

void stance_bake_quat_mul(const double a[4], const double b[4], double o[4]) {
    double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    o[0] = x, o[1] = y, o[2] = z, o[3] = w;
}

void stance_bake_quat_rotate(const double q[4], const double v[3], double o[3]) {
    double tx = 2.0 * (q[1] * v[2] - q[2] * v[1]);
    double ty = 2.0 * (q[2] * v[0] - q[0] * v[2]);
    double tz = 2.0 * (q[0] * v[1] - q[1] * v[0]);
    o[0] = v[0] + q[3] * tx + (q[1] * tz - q[2] * ty);
    o[1] = v[1] + q[3] * ty + (q[2] * tx - q[0] * tz);
    o[2] = v[2] + q[3] * tz + (q[0] * ty - q[1] * tx);
}

int stance_bake_quat_normalize(double q[4]) {
    double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(l > 1e-12) || !isfinite(l)) return 0;
    for (int i = 0; i < 4; i++) q[i] /= l;
    return 1;
}

stance_bake_mat stance_bake_mat_identity(void) {
    stance_bake_mat m = {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}};
    return m;
}

stance_bake_mat stance_bake_mat_mul(const stance_bake_mat *a, const stance_bake_mat *b) {
    stance_bake_mat r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) {
            double v = j == 3 ? a->m[i][3] : 0.0;
            for (int k = 0; k < 3; k++) v += a->m[i][k] * b->m[k][j];
            r.m[i][j] = v;
        }
    return r;
}

stance_bake_mat stance_bake_mat_from_xform(const stance_bake_xform *x) {
    const double *q = x->r;
    double xx = q[0] * q[0], yy = q[1] * q[1], zz = q[2] * q[2];
    double xy = q[0] * q[1], xz = q[0] * q[2], yz = q[1] * q[2], wx = q[3] * q[0], wy = q[3] * q[1], wz = q[3] * q[2];
    double r[3][3] = {{1 - 2 * (yy + zz), 2 * (xy - wz), 2 * (xz + wy)},
                      {2 * (xy + wz), 1 - 2 * (xx + zz), 2 * (yz - wx)},
                      {2 * (xz - wy), 2 * (yz + wx), 1 - 2 * (xx + yy)}};
    stance_bake_mat m;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) m.m[i][j] = r[i][j] * x->s[j];
        m.m[i][3] = x->t[i];
    }
    return m;
}

int stance_bake_mat_inverse(const stance_bake_mat *a, stance_bake_mat *o) {
    const double(*m)[4] = a->m;
    double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                 m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    if (!(fabs(det) > 1e-30) || !isfinite(det)) return 0;
    double i[3][3] = {{(m[1][1] * m[2][2] - m[1][2] * m[2][1]) / det, (m[0][2] * m[2][1] - m[0][1] * m[2][2]) / det,
                       (m[0][1] * m[1][2] - m[0][2] * m[1][1]) / det},
                      {(m[1][2] * m[2][0] - m[1][0] * m[2][2]) / det, (m[0][0] * m[2][2] - m[0][2] * m[2][0]) / det,
                       (m[0][2] * m[1][0] - m[0][0] * m[1][2]) / det},
                      {(m[1][0] * m[2][1] - m[1][1] * m[2][0]) / det, (m[0][1] * m[2][0] - m[0][0] * m[2][1]) / det,
                       (m[0][0] * m[1][1] - m[0][1] * m[1][0]) / det}};
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) o->m[r][c] = i[r][c];
        o->m[r][3] = -(i[r][0] * m[0][3] + i[r][1] * m[1][3] + i[r][2] * m[2][3]);
    }
    return 1;
}

int stance_bake_decompose(const stance_bake_mat *mm, stance_bake_xform *x) {
    const double(*m)[4] = mm->m;
    double c[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            if (!isfinite(m[i][j])) return 0;
    for (int j = 0; j < 3; j++) {
        x->t[j] = m[j][3];
        double len = sqrt(m[0][j] * m[0][j] + m[1][j] * m[1][j] + m[2][j] * m[2][j]);
        if (!(len > 1e-30) || !isfinite(len)) return 0;
        x->s[j] = len;
        for (int i = 0; i < 3; i++) c[i][j] = m[i][j] / len;
    }
    double det = c[0][0] * (c[1][1] * c[2][2] - c[1][2] * c[2][1]) - c[0][1] * (c[1][0] * c[2][2] - c[1][2] * c[2][0]) +
                 c[0][2] * (c[1][0] * c[2][1] - c[1][1] * c[2][0]);
    if (det < 0.0) { /* a mirror: carry it in the x scale */
        x->s[0] = -x->s[0];
        for (int i = 0; i < 3; i++) c[i][0] = -c[i][0];
    }
    double tr = c[0][0] + c[1][1] + c[2][2], *q = x->r;
    if (tr > 0.0) {
        double s = sqrt(tr + 1.0) * 2.0;
        q[3] = 0.25 * s, q[0] = (c[2][1] - c[1][2]) / s, q[1] = (c[0][2] - c[2][0]) / s, q[2] = (c[1][0] - c[0][1]) / s;
    } else if (c[0][0] > c[1][1] && c[0][0] > c[2][2]) {
        double s = sqrt(1.0 + c[0][0] - c[1][1] - c[2][2]) * 2.0;
        q[3] = (c[2][1] - c[1][2]) / s, q[0] = 0.25 * s, q[1] = (c[0][1] + c[1][0]) / s, q[2] = (c[0][2] + c[2][0]) / s;
    } else if (c[1][1] > c[2][2]) {
        double s = sqrt(1.0 + c[1][1] - c[0][0] - c[2][2]) * 2.0;
        q[3] = (c[0][2] - c[2][0]) / s, q[0] = (c[0][1] + c[1][0]) / s, q[1] = 0.25 * s, q[2] = (c[1][2] + c[2][1]) / s;
    } else {
        double s = sqrt(1.0 + c[2][2] - c[0][0] - c[1][1]) * 2.0;
        q[3] = (c[1][0] - c[0][1]) / s, q[0] = (c[0][2] + c[2][0]) / s, q[1] = (c[1][2] + c[2][1]) / s, q[2] = 0.25 * s;
    }
    return stance_bake_quat_normalize(q);
}

double stance_bake_decode(const unsigned char *p, int ct, int norm) {
    switch (ct) {
    case 5126: {
        uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    case 5120: {
        double v = (double)(int8_t)p[0];
        return norm ? (v / 127.0 < -1.0 ? -1.0 : v / 127.0) : v;
    }
    case 5121: return norm ? p[0] / 255.0 : p[0];
    case 5122: {
        double v = (double)(int16_t)(uint16_t)(p[0] | p[1] << 8);
        return norm ? (v / 32767.0 < -1.0 ? -1.0 : v / 32767.0) : v;
    }
    case 5123: {
        double v = (double)(uint16_t)(p[0] | p[1] << 8);
        return norm ? v / 65535.0 : v;
    }
    case 5125: return (double)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
    default: return 0.0;
    }
}

/* ---- the skeleton's space ----------------------------------------------------- */

void stance_bake_joint_t(const stance_bake_space *sp, int joint, const double in[3], double out[3]) {
    if (joint == 0 && !sp->above_identity) {
        double v[3] = {in[0] * sp->push_scale, in[1] * sp->push_scale, in[2] * sp->push_scale}, r[3];
        stance_bake_quat_rotate(sp->above.r, v, r);
        for (int i = 0; i < 3; i++) out[i] = sp->scale * (sp->above.t[i] + r[i]);
    } else {
        double k = sp->scale * (joint == 0 ? 1.0 : sp->push_scale);
        for (int i = 0; i < 3; i++) out[i] = in[i] * k;
    }
}

void stance_bake_joint_r(const stance_bake_space *sp, int joint, const double in[4], double out[4]) {
    if (joint == 0 && !sp->above_identity) stance_bake_quat_mul(sp->above.r, in, out);
    else memcpy(out, in, sizeof(double) * 4);
}

int stance_bake_raise_scale(float v[3]) {
    int n = 0;
    for (int i = 0; i < 3; i++)
        if (fabsf(v[i]) < STANCE_MIN_SCALE) {
            v[i] = v[i] < 0.0f ? -STANCE_MIN_SCALE : STANCE_MIN_SCALE;
            n++;
        }
    return n;
}

/* ---- curves ------------------------------------------------------------------- */

/* The last key at or before t (t strictly inside the keys' span). */
static size_t key_before(const double *times, size_t n, double t) {
    size_t lo = 0, hi = n - 1; /* times[lo] <= t < times[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (times[mid] <= t) lo = mid;
        else hi = mid;
    }
    return lo;
}

int stance_bake_value(const stance_bake_curve *c, double t, double out[4]) {
    const double *T = c->times, *V = c->values;
    const size_t n = c->keys, w = c->path == STANCE_BAKE_R ? 4 : 3, per = c->interp == STANCE_BAKE_CUBICSPLINE ? 3 : 1;
    const size_t vp = per == 3 ? 1 : 0; /* cubic elements: 0 in-tangent, 1 value, 2 out-tangent */
#define VALUE(k, part) (&V[((k) * per + (part)) * w])
    if (t <= T[0] || n == 1) {
        memcpy(out, VALUE(0, vp), sizeof(double) * w);
    } else if (t >= T[n - 1]) {
        memcpy(out, VALUE(n - 1, vp), sizeof(double) * w);
    } else {
        size_t k = key_before(T, n, t);
        double td = T[k + 1] - T[k], u = (t - T[k]) / td;
        if (c->interp == STANCE_BAKE_STEP) {
            memcpy(out, VALUE(k, 0), sizeof(double) * w);
        } else if (c->interp == STANCE_BAKE_LINEAR) {
            const double *a = VALUE(k, 0), *b = VALUE(k + 1, 0);
            if (c->path != STANCE_BAKE_R) {
                for (size_t i = 0; i < w; i++) out[i] = a[i] + (b[i] - a[i]) * u;
            } else { /* slerp, the shorter way */
                double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3], sb = 1.0, wa, wb;
                if (d < 0.0) d = -d, sb = -1.0;
                if (d > 1.0 - 1e-12) {
                    wa = 1.0 - u, wb = u;
                } else {
                    double th = acos(d < 1.0 ? d : 1.0), st = sin(th);
                    wa = sin((1.0 - u) * th) / st, wb = sin(u * th) / st;
                }
                for (int i = 0; i < 4; i++) out[i] = wa * a[i] + sb * wb * b[i];
            }
        } else {
            double u2 = u * u, u3 = u2 * u;
            double h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
            const double *v0 = VALUE(k, 1), *b0 = VALUE(k, 2), *v1 = VALUE(k + 1, 1), *a1 = VALUE(k + 1, 0);
            for (size_t i = 0; i < w; i++) out[i] = h00 * v0[i] + h10 * td * b0[i] + h01 * v1[i] + h11 * td * a1[i];
        }
    }
#undef VALUE
    if (c->path == STANCE_BAKE_R && !stance_bake_quat_normalize(out)) {
        out[0] = out[1] = out[2] = 0.0, out[3] = 1.0;
        return 0;
    }
    return 1;
}

int stance_bake_value_f(const stance_bake_space *sp, const stance_bake_curve *c, double t, float out[4]) {
    double v[4], o[4];
    int ok = stance_bake_value(c, t, v);
    if (c->path == STANCE_BAKE_T) {
        stance_bake_joint_t(sp, c->joint, v, o);
    } else if (c->path == STANCE_BAKE_R) {
        stance_bake_joint_r(sp, c->joint, v, o);
        stance_bake_quat_normalize(o);
    } else {
        memcpy(o, v, sizeof o);
    }
    for (int i = 0; i < (c->path == STANCE_BAKE_R ? 4 : 3); i++) out[i] = (float)o[i];
    return ok;
}

#define CHECKS 15    /* points checked inside an interval */
#define MAX_DEPTH 12 /* halvings of one interval */

/* Is the runtime's interpolation of the baked keys at a and b within the
 * tolerance of every curve inside (a, b)? */
static int interval_ok(const stance_bake_space *sp, const stance_bake_curve *const *curves, int n, double a, double b,
                       double tol_u, double tol_r) {
    for (int ci = 0; ci < n; ci++) {
        const stance_bake_curve *c = curves[ci];
        const int w = c->path == STANCE_BAKE_R ? 4 : 3;
        float fa[4], fb[4];
        stance_bake_value_f(sp, c, a, fa);
        stance_bake_value_f(sp, c, b, fb);
        if (w == 4 && fa[0] * fb[0] + fa[1] * fb[1] + fa[2] * fb[2] + fa[3] * fb[3] < 0.0f)
            for (int i = 0; i < 4; i++) fb[i] = -fb[i]; /* as the runtime sign-aligns keys */
        if (w == 4 && c->interp == STANCE_BAKE_LINEAR) {
            /* nlerp strays from slerp by at most 0.0046 theta^3 rad over an
             * interval of rotation angle theta <= pi (computed numerically):
             * small intervals need no check */
            double dd = 0, ss = 0;
            for (int i = 0; i < 4; i++)
                dd += ((double)fa[i] - fb[i]) * ((double)fa[i] - fb[i]), ss += ((double)fa[i] + fb[i]) * ((double)fa[i] + fb[i]);
            double th = 4.0 * atan2(sqrt(dd), sqrt(ss));
            if (0.005 * th * th * th <= 0.5 * tol_r) continue;
        }
        for (int k = 1; k <= CHECKS; k++) {
            double u = (double)k / (CHECKS + 1), t = a + (b - a) * u, ex[4], ap[4];
            float e[4];
            stance_bake_value_f(sp, c, t, e);
            for (int i = 0; i < w; i++) ex[i] = e[i], ap[i] = fa[i] + (fb[i] - fa[i]) * u;
            if (w == 4) {
                stance_bake_quat_normalize(ap);
                double d = 0, s = 0, dd = 0;
                for (int i = 0; i < 4; i++) d += ex[i] * ap[i];
                double sg = d < 0 ? -1.0 : 1.0;
                for (int i = 0; i < 4; i++)
                    dd += (ex[i] - sg * ap[i]) * (ex[i] - sg * ap[i]), s += (ex[i] + sg * ap[i]) * (ex[i] + sg * ap[i]);
                /* the rotation angle between them: twice their angle in 4D */
                if (4.0 * atan2(sqrt(dd), sqrt(s)) > tol_r) return 0;
            } else {
                for (int i = 0; i < 3; i++) {
                    double m = fabs(ex[i]) > fabs(ap[i]) ? fabs(ex[i]) : fabs(ap[i]);
                    if (fabs(ex[i] - ap[i]) > tol_u + 8.0 * FLT_EPSILON * m) return 0; /* plus the float's resolution */
                }
            }
        }
    }
    return 1;
}

static int push_time(stance_bake_times *out, float t, size_t max_count) {
    if (out->count >= max_count) return -1;
    if (out->count == out->cap) {
        size_t cap = out->cap ? out->cap * 2 : 256;
        float *m = realloc(out->times, sizeof(float) * cap);
        if (!m) return -1;
        out->times = m, out->cap = cap;
    }
    out->times[out->count++] = t;
    return 0;
}

static int refine(const stance_bake_space *sp, const stance_bake_curve *const *curves, int n, float a, float b, int depth,
                  double tol_u, double tol_r, stance_bake_times *out, size_t max_count, int *unmet) {
    if (interval_ok(sp, curves, n, a, b, tol_u, tol_r)) return 0;
    float m = (float)(0.5 * ((double)a + (double)b));
    if (depth >= MAX_DEPTH || !(m > a && m < b)) {
        ++*unmet;
        return 0;
    }
    if (refine(sp, curves, n, a, m, depth + 1, tol_u, tol_r, out, max_count, unmet)) return -1;
    if (push_time(out, m, max_count)) return -1;
    return refine(sp, curves, n, m, b, depth + 1, tol_u, tol_r, out, max_count, unmet);
}

int stance_bake_refine(const stance_bake_space *sp, const stance_bake_curve *const *curves, int curve_count, float a, float b,
                       double tol_u, double tol_r, stance_bake_times *out, size_t max_count, int *unmet) {
    return refine(sp, curves, curve_count, a, b, 0, tol_u, tol_r, out, max_count, unmet);
}
