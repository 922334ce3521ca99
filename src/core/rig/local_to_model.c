/* src/core/rig/local_to_model.c - stance_local_to_model: runs the skeleton's
 * schedule (built in skeleton.c) over a pose's SoA blocks: runs of
 * consecutive independent joints, tiles of 4 chains, groups of 4
 * independent joints, single joints in AoS form; the whole pass compiled in
 * SSE2 (or the scalar form) and, taken at run time on CPUs with AVX, in VEX
 * encoding with the same results. Also the frame's local-to-model stage
 * (st_local_to_model_range): the whole pass, or one joint's subtree within
 * a range of joints, as ozz's LocalToModelJob takes from and to. Owns no
 * state. */
#include <stddef.h>

#include "core/base/internal.h"
#include "core/rig/rig_internal.h"
#include "core/math/pose_math.h"
#include "core/math/simd.h"
#include "stance/pose.h"

static int valid(const stance_pose *p) { return p && p->memory && p->joint_count > 0; }

/* ---- local-to-model --------------------------------------------------------
 * Runs the skeleton's schedule (skeleton.c): tiles (4 chains of 4 joints in
 * the 4 lanes) and groups (4 independent joints) in SoA, single joints in
 * AoS (SSE2 or NEON) or scalar form. The SoA items keep their last results in X
 * (10 channels of 4 lanes), updated in place: an item whose 4 parents are
 * exactly those joints takes them from there, so along chains the parents
 * never go through memory, and nothing is copied. */

#if !defined(SV_VEC4)
/* model[j] = parent * local[j] for one joint (the scalar reference of the
 * 4-wide forms below); parent p < 0 takes the root transform rv. m0 and l0
 * are the poses' blocks of 10 channels of pc floats; everything is read
 * before anything is written (stores through m0 may alias l0 for the
 * compiler). */
static void l2m_joint(float *m0, const float *l0, int pc, int p, int j, const float *rv) {
    float px, py, pz, pqx, pqy, pqz, pqw, psx, psy, psz;
    if (p >= 0) {
        const float *m = m0 + p;
        px = m[0], py = m[pc], pz = m[2 * pc], pqx = m[3 * pc], pqy = m[4 * pc], pqz = m[5 * pc], pqw = m[6 * pc];
        psx = m[7 * pc], psy = m[8 * pc], psz = m[9 * pc];
    } else {
        px = rv[0], py = rv[1], pz = rv[2], pqx = rv[3], pqy = rv[4], pqz = rv[5], pqw = rv[6];
        psx = rv[7], psy = rv[8], psz = rv[9];
    }
    const float *l = l0 + j;
    const float lx = l[0], ly = l[pc], lz = l[2 * pc], lqx = l[3 * pc], lqy = l[4 * pc], lqz = l[5 * pc], lqw = l[6 * pc];
    const float lsx = l[7 * pc], lsy = l[8 * pc], lsz = l[9 * pc];
    float vx = lx * psx, vy = ly * psy, vz = lz * psz, ox, oy, oz, qx, qy, qz, qw;
    QROT(ox, oy, oz, pqx, pqy, pqz, pqw, vx, vy, vz);
    QMUL(qx, qy, qz, qw, pqx, pqy, pqz, pqw, lqx, lqy, lqz, lqw);
    float *o = m0 + j;
    o[0] = px + ox, o[pc] = py + oy, o[2 * pc] = pz + oz;
    o[3 * pc] = qx, o[4 * pc] = qy, o[5 * pc] = qz, o[6 * pc] = qw;
    o[7 * pc] = psx * lsx, o[8 * pc] = psy * lsy, o[9 * pc] = psz * lsz;
}
#endif

/* The parts of M = P * L for 4 joints at once (SoA), in the expression
 * trees of the scalar reference's formulas:
 *   q = parent q * local q;  s = parent s * local s (per axis);
 *   t = parent t + rotate(parent q, local t * parent s), the rotation
 *   v + q.w u + q.xyz x u with u = 2 (q.xyz x v) (doubled as u + u,
 *   exactly 2 u). */
static inline void l2m_qmul(sv4 *o, sv4 qx, sv4 qy, sv4 qz, sv4 qw, sv4 bx, sv4 by, sv4 bz, sv4 bw) {
    o[0] = sv_sub(sv_add(sv_add(sv_mul(qw, bx), sv_mul(qx, bw)), sv_mul(qy, bz)), sv_mul(qz, by));
    o[1] = sv_add(sv_add(sv_sub(sv_mul(qw, by), sv_mul(qx, bz)), sv_mul(qy, bw)), sv_mul(qz, bx));
    o[2] = sv_add(sv_sub(sv_add(sv_mul(qw, bz), sv_mul(qx, by)), sv_mul(qy, bx)), sv_mul(qz, bw));
    o[3] = sv_sub(sv_sub(sv_sub(sv_mul(qw, bw), sv_mul(qx, bx)), sv_mul(qy, by)), sv_mul(qz, bz));
}
static inline void l2m_trans(sv4 *o, sv4 px, sv4 py, sv4 pz, sv4 qx, sv4 qy, sv4 qz, sv4 qw, sv4 sx, sv4 sy, sv4 sz,
                             sv4 lx, sv4 ly, sv4 lz) {
    const sv4 vx = sv_mul(lx, sx), vy = sv_mul(ly, sy), vz = sv_mul(lz, sz);
    sv4 u1 = sv_sub(sv_mul(qy, vz), sv_mul(qz, vy)), u2 = sv_sub(sv_mul(qz, vx), sv_mul(qx, vz));
    sv4 u3 = sv_sub(sv_mul(qx, vy), sv_mul(qy, vx));
    u1 = sv_add(u1, u1), u2 = sv_add(u2, u2), u3 = sv_add(u3, u3);
    o[0] = sv_add(px, sv_add(sv_add(vx, sv_mul(qw, u1)), sv_sub(sv_mul(qy, u3), sv_mul(qz, u2))));
    o[1] = sv_add(py, sv_add(sv_add(vy, sv_mul(qw, u2)), sv_sub(sv_mul(qz, u1), sv_mul(qx, u3))));
    o[2] = sv_add(pz, sv_add(sv_add(vz, sv_mul(qw, u3)), sv_sub(sv_mul(qx, u2), sv_mul(qy, u1))));
}
/* M = P * L, channel c of P at P[4 c], of L at L[4 c], of M at M[4 c]; M may be P */
static inline void l2m_step(const sv4 *P, const sv4 *L, sv4 *M) {
    const sv4 qx = P[12], qy = P[16], qz = P[20], qw = P[24], sx = P[28], sy = P[32], sz = P[36];
    sv4 t[3], q[4];
    l2m_trans(t, P[0], P[4], P[8], qx, qy, qz, qw, sx, sy, sz, L[0], L[4], L[8]);
    l2m_qmul(q, qx, qy, qz, qw, L[12], L[16], L[20], L[24]);
    M[0] = t[0], M[4] = t[1], M[8] = t[2], M[12] = q[0], M[16] = q[1], M[20] = q[2], M[24] = q[3];
    M[28] = sv_mul(sx, L[28]), M[32] = sv_mul(sy, L[32]), M[36] = sv_mul(sz, L[36]);
}


/* The SoA items' state: S[c][s], channel c of step s of the last item (a
 * group uses step 3 only); step 3 (X = &S[0][3], channel c at X[4 c])
 * holds the joints have[0..3]. */

/* X <- the parents pp[0..3] of an item's lanes: nothing to do when X holds
 * exactly those joints (have, NULL when it holds none); else gathered from
 * the model pose (one float per load, so the stores that wrote them forward
 * to the loads), or the root transform rv (an item's lanes are all roots or
 * none of them, see skeleton.c). */
static inline void l2m_parents(sv4 *X, const short *have, const float *m0, int pc, const short *pp, const float *rv) {
    if (have && pp[0] == have[0] && pp[1] == have[1] && pp[2] == have[2] && pp[3] == have[3]) return;
    if (pp[0] < 0) {
        for (int c = 0; c < 10; c++) X[4 * c] = sv_set1(rv[c]);
    } else if (pp[0] == pp[1] && pp[0] == pp[2] && pp[0] == pp[3]) { /* one parent (a fork): broadcast */
        const float *m = m0 + pp[0];
        for (int c = 0; c < 10; c++, m += pc) X[4 * c] = sv_set1(*m);
    } else {
        const ptrdiff_t i0 = pp[0], i1 = pp[1], i2 = pp[2], i3 = pp[3];
        const float *m = m0;
        for (int c = 0; c < 10; c++, m += pc) X[4 * c] = sv_gather_at(m, i0, i1, i2, i3);
    }
}

/* A group: four joints jj[0..3] that depend on none of each other; X
 * holds their parents and ends holding them. */
static inline void l2m_group(float *m0, const float *l0, int pc, const short *jj, sv4 *X) {
    sv4 L[10][4];
    /* the 4 indices read once (not once a channel: the stores through m0
     * could alias them for the compiler) */
    const ptrdiff_t i0 = jj[0], i1 = jj[1], i2 = jj[2], i3 = jj[3];
    const float *l = l0;
    for (int c = 0; c < 10; c++, l += pc) L[c][0] = sv_gather_at(l, i0, i1, i2, i3);
    l2m_step(X, &L[0][0], X);
    float *m = m0;
    for (int c = 0; c < 10; c++, m += pc) sv_scatter_at(m, i0, i1, i2, i3, X[4 * c]);
}

/* A tile: 4 lanes, lane i the consecutive joints a[i], a[i] + 1, .. each
 * the parent of the next, 4 of them (lane 3: last, 1..4). Per channel, a
 * lane's 4 local values are one load; a transpose makes them the 4 steps'
 * inputs (L[c][step]); the steps' results (S[c][step]) go back the same
 * way. The lanes are reached from lane 0's pointer and their distances to
 * it (one pointer a channel steps). A short lane 3 loads the 4 floats that
 * end at its last joint (the schedule keeps them in the pose) and shifts
 * its joints to the first lanes; past its joints it repeats the last one's
 * input, and stores only its joints. A repeated lane computes and writes
 * the same values twice. S's step 3 holds the parents on entry (X) and the
 * step's results on return (joints a[i] + 3, and lane 3's last joint's
 * child when it is short: a value nobody reads). */
static inline sv4 l2m_shift(sv4 v, int last) {
    switch (last) {
    case 3: return SV_SHUF(v, 1, 2, 3, 3);
    case 2: return SV_SHUF(v, 2, 3, 3, 3);
    case 1: return SV_SHUF(v, 3, 3, 3, 3);
    default: return v;
    }
}
static inline void l2m_store_short(float *p, sv4 v, int last) {
    switch (last) {
    case 3: sv_store2(p, v), p[2] = sv_lane0(SV_SHUF(v, 2, 2, 2, 2)); break;
    case 2: sv_store2(p, v); break;
    case 1: p[0] = sv_lane0(v); break;
    default: sv_store(p, v);
    }
}
/* One channel's rows of the 4 lanes (r at lane 0's), transposed: v[k] the
 * lanes' step k. */
ST_FORCEINLINE void l2m_tile_load(const float *r, ptrdiff_t d1, ptrdiff_t d2, ptrdiff_t d3, int last, sv4 *v0, sv4 *v1,
                                  sv4 *v2, sv4 *v3) {
    sv4 a0 = sv_load(r), a1 = sv_load(r + d1), a2 = sv_load(r + d2), a3 = l2m_shift(sv_load(r + d3 + last - 4), last);
    SV_TRANSPOSE4(a0, a1, a2, a3);
    *v0 = a0, *v1 = a1, *v2 = a2, *v3 = a3;
}
/* The steps' results of one channel transposed back and stored (w at lane 0's row). */
ST_FORCEINLINE void l2m_tile_store(float *w, ptrdiff_t d1, ptrdiff_t d2, ptrdiff_t d3, int last, sv4 v0, sv4 v1, sv4 v2,
                                   sv4 v3) {
    SV_TRANSPOSE4(v0, v1, v2, v3);
    sv_store(w, v0), sv_store(w + d1, v1), sv_store(w + d2, v2), l2m_store_short(w + d3, v3, last);
}
/* inlined for each last: no switch runs in the loops */
ST_FORCEINLINE void l2m_tile(float *m0, const float *l0, int pc, const short *a, sv4 (*S)[4], int last) {
    const ptrdiff_t d1 = a[1] - a[0], d2 = a[2] - a[0], d3 = a[3] - a[0];
    const float *r = l0 + a[0];
    if ((a[0] & 15) < 4) {
        /* lane 0's rows begin a cache line: ask for the next line of every
         * lane's rows in both poses, which the next tiles read and write.
         * Measured, not derived (no counters here): without it the J=256
         * reference workload's local-to-model took 5.0-6.5 us against the
         * old depth-first walk's 3.3-4.1 (whose scalar accesses the
         * hardware prefetchers followed), with it 3.3-3.5 us. The lines
         * asked for may lie past the poses: a prefetch is a hint, which
         * neither faults nor counts as a read. */
        const float *p = r + 16;
        const float *q = m0 + a[0] + 16;
        for (int c = 0; c < 10; c++, p += pc, q += pc) {
            SV_PREFETCH(p), SV_PREFETCH(p + d1), SV_PREFETCH(p + d2), SV_PREFETCH(p + d3);
            SV_PREFETCH(q), SV_PREFETCH(q + d1), SV_PREFETCH(q + d2), SV_PREFETCH(q + d3);
        }
    }
    /* channel by channel group, each stored as soon as it is done, so only
     * one group's inputs and results are live at a time: the scales, the
     * rotations along the lanes, then the translations (which read the
     * parents' rotations and scales, kept in S). The parents (S's step 3 on
     * entry) are read first. */
    const sv4 pqx = S[3][3], pqy = S[4][3], pqz = S[5][3], pqw = S[6][3], psx = S[7][3], psy = S[8][3], psz = S[9][3];
    float *const w = m0 + a[0];
    for (int c = 7; c < 10; c++) {
        sv4 v0, v1, v2, v3;
        l2m_tile_load(r + c * pc, d1, d2, d3, last, &v0, &v1, &v2, &v3);
        v0 = sv_mul(c == 7 ? psx : c == 8 ? psy : psz, v0);
        v1 = sv_mul(v0, v1), v2 = sv_mul(v1, v2), v3 = sv_mul(v2, v3);
        S[c][0] = v0, S[c][1] = v1, S[c][2] = v2, S[c][3] = v3;
        l2m_tile_store(w + c * pc, d1, d2, d3, last, v0, v1, v2, v3);
    }
    {
        sv4 L[4][4];
        for (int c = 0; c < 4; c++) l2m_tile_load(r + (3 + c) * pc, d1, d2, d3, last, &L[c][0], &L[c][1], &L[c][2], &L[c][3]);
        sv4 q[4] = {pqx, pqy, pqz, pqw};
        for (int k = 0; k < 4; k++) {
            l2m_qmul(q, q[0], q[1], q[2], q[3], L[0][k], L[1][k], L[2][k], L[3][k]);
            S[3][k] = q[0], S[4][k] = q[1], S[5][k] = q[2], S[6][k] = q[3];
        }
        for (int c = 3; c < 7; c++) l2m_tile_store(w + c * pc, d1, d2, d3, last, S[c][0], S[c][1], S[c][2], S[c][3]);
    }
    sv4 L[3][4], T[3][4];
    for (int c = 0; c < 3; c++) l2m_tile_load(r + c * pc, d1, d2, d3, last, &L[c][0], &L[c][1], &L[c][2], &L[c][3]);
    sv4 t[3] = {S[0][3], S[1][3], S[2][3]};
    l2m_trans(t, t[0], t[1], t[2], pqx, pqy, pqz, pqw, psx, psy, psz, L[0][0], L[1][0], L[2][0]);
    T[0][0] = t[0], T[1][0] = t[1], T[2][0] = t[2];
    for (int k = 1; k < 4; k++) {
        l2m_trans(t, t[0], t[1], t[2], S[3][k - 1], S[4][k - 1], S[5][k - 1], S[6][k - 1], S[7][k - 1], S[8][k - 1],
                  S[9][k - 1], L[0][k], L[1][k], L[2][k]);
        T[0][k] = t[0], T[1][k] = t[1], T[2][k] = t[2];
    }
    S[0][3] = t[0], S[1][3] = t[1], S[2][3] = t[2];
    for (int c = 0; c < 3; c++) l2m_tile_store(w + c * pc, d1, d2, d3, last, T[c][0], T[c][1], T[c][2], T[c][3]);
}

/* The run schedule (stance_skeleton.l2m_runs, built in skeleton.c): each
 * run is up to 4 consecutive joints j.. that depend on none of each other,
 * so their local rows are one load a channel, their model rows one store.
 * X (10 channels) holds the last run's results: a run whose parents are its
 * lanes in order takes them from there, shifted down by g[3] lanes. A run
 * near the end of the pose loads 4 floats inside each row (l2m_load_short)
 * and stores only its joints, so the padding keeps the identity; elsewhere
 * the lanes past a short run compute values the next runs overwrite. */
/* One run of 4 lanes: local rows from l, model rows to m, pc floats apart;
 * the parents in P (aligned: SSE2 arithmetic reads them in place), the
 * run's results into P too when keep. Each pointer steps row by row (one
 * register and one add a row; precomputed row addresses, which the
 * compiler otherwise keeps, do not fit the registers and measured slower). */
ST_FORCEINLINE void l2m_run(float *m, const float *l, ptrdiff_t pc, sv4 *P, int keep) {
    sv4 a, b, c, d;
    /* translations: t = pt + rotate(pq, lt * ps) */
    a = sv_load(l); l += pc; SV_OPAQUE(l);
    b = sv_load(l); l += pc; SV_OPAQUE(l);
    c = sv_load(l); l += pc; SV_OPAQUE(l);
    sv4 t[3];
    l2m_trans(t, P[0], P[1], P[2], P[3], P[4], P[5], P[6], P[7], P[8], P[9], a, b, c);
    sv_store(m, t[0]); m += pc; SV_OPAQUE(m);
    sv_store(m, t[1]); m += pc; SV_OPAQUE(m);
    sv_store(m, t[2]); m += pc; SV_OPAQUE(m);
    if (keep) P[0] = t[0], P[1] = t[1], P[2] = t[2];
    /* rotations: q = pq * lq */
    a = sv_load(l); l += pc; SV_OPAQUE(l);
    b = sv_load(l); l += pc; SV_OPAQUE(l);
    c = sv_load(l); l += pc; SV_OPAQUE(l);
    d = sv_load(l); l += pc; SV_OPAQUE(l);
    sv4 q[4];
    l2m_qmul(q, P[3], P[4], P[5], P[6], a, b, c, d);
    sv_store(m, q[0]); m += pc; SV_OPAQUE(m);
    sv_store(m, q[1]); m += pc; SV_OPAQUE(m);
    sv_store(m, q[2]); m += pc; SV_OPAQUE(m);
    sv_store(m, q[3]); m += pc; SV_OPAQUE(m);
    if (keep) P[3] = q[0], P[4] = q[1], P[5] = q[2], P[6] = q[3];
    /* scales: s = ps * ls */
    a = sv_mul(P[7], sv_load(l)); l += pc; SV_OPAQUE(l);
    b = sv_mul(P[8], sv_load(l)); l += pc; SV_OPAQUE(l);
    c = sv_mul(P[9], sv_load(l));
    sv_store(m, a); m += pc; SV_OPAQUE(m);
    sv_store(m, b); m += pc; SV_OPAQUE(m);
    sv_store(m, c);
    if (keep) P[7] = a, P[8] = b, P[9] = c;
}

/* A short run's 4 floats of one row (l at its first joint j, n < 4 joints):
 * those from j when they are in the row (ST_RUN_LOAD4: j + 3 < pc), else
 * those that end at its last joint, shifted down; its joints in lanes
 * 0..n-1 either way, the same values. Both stay in the row: without LOAD4,
 * j >= pc - 3 >= 5, so j + n - 4 > 0. (The 4 floats that end at the last
 * joint alone begin before the row when j + n < 4: a root with two
 * children, parents {-1, 0, 0}, read from tx[-1], issue 22.) */
static inline sv4 l2m_load_short(const float *l, int n, int flags) {
    return flags & ST_RUN_LOAD4 ? sv_load(l) : l2m_shift(sv_load(l + n - 4), n);
}

/* A short run at the end of the pose (n < 4 lanes): its joints' rows
 * (l2m_load_short); only its joints stored. */
ST_FORCEINLINE void l2m_run_short(float *m, const float *l, int pc, int n, int flags, sv4 *P) {
    sv4 L[10];
    for (int c = 0; c < 10; c++) L[c] = l2m_load_short(l + c * pc, n, flags);
    sv4 t[3], q[4];
    l2m_trans(t, P[0], P[1], P[2], P[3], P[4], P[5], P[6], P[7], P[8], P[9], L[0], L[1], L[2]);
    l2m_qmul(q, P[3], P[4], P[5], P[6], L[3], L[4], L[5], L[6]);
    P[7] = sv_mul(P[7], L[7]), P[8] = sv_mul(P[8], L[8]), P[9] = sv_mul(P[9], L[9]);
    P[0] = t[0], P[1] = t[1], P[2] = t[2], P[3] = q[0], P[4] = q[1], P[5] = q[2], P[6] = q[3];
    for (int c = 0; c < 10; c++) l2m_store_short(m + c * pc, P[c], n);
}

ST_FORCEINLINE void l2m_runs(float *m0, const float *l0, int pc, const short *g, int count, const float *rv, int identity_root) {
    sv4 P[10]; /* the run's parents; the last run's results when the next takes them (ST_RUN_KEEP) */
    for (int c = 0; c < 10; c++) P[c] = sv_set1(0.0f);
    for (int k = 0; k < count; k++, g += 9) {
        const int n = g[0], j = g[1], flags = g[4];
        if (g[2] == ST_RUN_ROOT && identity_root && (flags & ST_RUN_LOAD4) && (flags & ST_RUN_STORE4)) {
            /* roots under the identity: the local transforms as they are */
            const float *l = l0 + j;
            float *m = m0 + j;
            for (int c = 0; c < 10; c++) {
                P[c] = sv_load(l);
                sv_store(m, P[c]);
                l += pc;
                m += pc;
                SV_OPAQUE(l);
                SV_OPAQUE(m);
            }
            continue;
        }
        if (g[2] == ST_RUN_ROOT && identity_root) { /* the same, near the end of the pose */
            for (int c = 0; c < 10; c++) {
                const sv4 v = l2m_load_short(l0 + c * pc + j, n, flags);
                if (flags & ST_RUN_STORE4)
                    sv_store(m0 + c * pc + j, v);
                else
                    l2m_store_short(m0 + c * pc + j, v, n);
                P[c] = v;
            }
            continue;
        }
        switch (g[2]) {
        case ST_RUN_X:
            switch (g[3]) {
            case 0: break;
            case 1: for (int c = 0; c < 10; c++) P[c] = SV_SHUF(P[c], 1, 2, 3, 3); break;
            case 2: for (int c = 0; c < 10; c++) P[c] = SV_SHUF(P[c], 2, 3, 3, 3); break;
            default: for (int c = 0; c < 10; c++) P[c] = SV_SHUF(P[c], 3, 3, 3, 3);
            }
            break;
        case ST_RUN_ROOT:
            for (int c = 0; c < 10; c++) P[c] = sv_set1(rv[c]);
            break;
        case ST_RUN_ONE: {
            const float *m = m0 + g[5];
            for (int c = 0; c < 10; c++, m += pc) P[c] = sv_set1(*m);
            break;
        }
        case ST_RUN_ROW: {
            const float *m = m0 + g[5];
            for (int c = 0; c < 10; c++, m += pc) P[c] = sv_load(m);
            break;
        }
        default: {
            const ptrdiff_t i0 = g[5], i1 = g[6], i2 = g[7], i3 = g[8];
            const float *m = m0;
            for (int c = 0; c < 10; c++, m += pc) P[c] = sv_gather_at(m, i0, i1, i2, i3);
        }
        }
        if ((flags & (ST_RUN_LOAD4 | ST_RUN_STORE4)) != (ST_RUN_LOAD4 | ST_RUN_STORE4))
            l2m_run_short(m0 + j, l0 + j, pc, n, flags, P);
        else if (flags & ST_RUN_KEEP)
            l2m_run(m0 + j, l0 + j, pc, P, 1);
        else
            l2m_run(m0 + j, l0 + j, pc, P, 0);
    }
}

#if defined(SV_VEC4)
/* 1 when the 4 items from g are single joints j, j+1, j+2, j+3, each the
 * parent of the next */
static inline int l2m_aos_chain4(const short *g) {
    const int j = g[1];
    return g[9] == 1 && g[18] == 1 && g[27] == 1 && g[10] == j + 1 && g[19] == j + 2 && g[28] == j + 3 &&
           g[14] == j && g[23] == j + 1 && g[32] == j + 2;
}
#endif

/* The skeleton's schedule on the poses' blocks (after the checks): inlined
 * into two encodings of the same code below. */
ST_FORCEINLINE void l2m_schedule(float *m0, const float *l0, int pc, const stance_skeleton *sk, const float *rv,
                                const stance_transform *root) {
    const short *g = sk->l2m_groups;
    if (sk->l2m_runs) {
        l2m_runs(m0, l0, pc, g, sk->l2m_group_count, rv, !root);
        return;
    }
    sv4 S[10][4], *const X = &S[0][3]; /* the SoA items' state (above) */
    for (int c = 0; c < 10; c++) S[c][3] = sv_set1(0.0f);
    short have[4] = {-1, -1, -1, -1};
    const short *hp = NULL; /* have, once X holds joints */
#if defined(SV_VEC4)
    int aos = -1; /* the joint whose model transform is in AQ, AT, AS */
    sv4 AQ = sv_set1(0.0f), AT = AQ, AS = AQ;
#endif
    for (int k = 0; k < sk->l2m_group_count; k++, g += 9) {
        if (g[0] == 1) {
#if defined(SV_VEC4)
            if (k + 3 < sk->l2m_group_count && l2m_aos_chain4(g)) {
                /* 4 single-joint items j..j+3, each the parent of the next:
                 * their rows are one load a channel and a transpose to AoS
                 * (and back), instead of 10 scalar loads and stores a joint;
                 * the arithmetic is the one below, joint after joint */
                const int j = g[1], p = g[5];
                sv4 T[10], LT[4], LQ[4], LS[4];
                const float *l = l0 + j;
                for (int c = 0; c < 10; c++, l += pc) T[c] = sv_load(l);
                const sv4 zero = sv_set1(0.0f);
                LT[0] = T[0], LT[1] = T[1], LT[2] = T[2], LT[3] = zero;
                LQ[0] = T[3], LQ[1] = T[4], LQ[2] = T[5], LQ[3] = T[6];
                LS[0] = T[7], LS[1] = T[8], LS[2] = T[9], LS[3] = zero;
                sv_transpose4(LT), sv_transpose4(LQ), sv_transpose4(LS);
                int i0 = 0;
                if (p < 0 && !root) { /* a root under the identity: the local transform as it is */
                    AQ = LQ[0], AT = LT[0], AS = LS[0];
                    i0 = 1;
                } else if (p < 0) {
                    AQ = sv_setr(rv[3], rv[4], rv[5], rv[6]);
                    AT = sv_setr(rv[0], rv[1], rv[2], 0.0f), AS = sv_setr(rv[7], rv[8], rv[9], 0.0f);
                } else if (p != aos) {
                    const float *m = m0 + p;
                    AQ = sv_setr(m[3 * pc], m[4 * pc], m[5 * pc], m[6 * pc]);
                    AT = sv_setr(m[0], m[pc], m[2 * pc], 0.0f), AS = sv_setr(m[7 * pc], m[8 * pc], m[9 * pc], 0.0f);
                }
                sv4 OT[4], OQ[4], OS[4];
                if (i0) OT[0] = AT, OQ[0] = AQ, OS[0] = AS;
                for (int i = i0; i < 4; i++) {
                    AT = sv_add(AT, sv_qrot_aos(AQ, sv_mul(LT[i], AS)));
                    AQ = sv_qmul_aos(AQ, LQ[i]);
                    AS = sv_mul(AS, LS[i]);
                    OT[i] = AT, OQ[i] = AQ, OS[i] = AS;
                }
                sv_transpose4(OT), sv_transpose4(OQ), sv_transpose4(OS);
                float *m = m0 + j;
                for (int c = 0; c < 3; c++) sv_store(m + c * pc, OT[c]), sv_store(m + (7 + c) * pc, OS[c]);
                for (int c = 0; c < 4; c++) sv_store(m + (3 + c) * pc, OQ[c]);
                k += 3, g += 27, aos = j + 3;
                hp = NULL;
                continue;
            }
            /* one joint in AoS form (4 lanes x, y, z, w); along a chain the
             * parent is the previous joint, still in registers */
            const int j = g[1], p = g[5];
            const float *l = l0 + j;
            const sv4 lq = sv_setr(l[3 * pc], l[4 * pc], l[5 * pc], l[6 * pc]);
            const sv4 lt = sv_setr(l[0], l[pc], l[2 * pc], 0.0f), ls = sv_setr(l[7 * pc], l[8 * pc], l[9 * pc], 0.0f);
            if (p < 0 && !root) { /* a root under the identity: the local transform as it is */
                AQ = lq, AT = lt, AS = ls;
            } else {
                if (p < 0) {
                    AQ = sv_setr(rv[3], rv[4], rv[5], rv[6]);
                    AT = sv_setr(rv[0], rv[1], rv[2], 0.0f), AS = sv_setr(rv[7], rv[8], rv[9], 0.0f);
                } else if (p != aos) {
                    const float *m = m0 + p;
                    AQ = sv_setr(m[3 * pc], m[4 * pc], m[5 * pc], m[6 * pc]);
                    AT = sv_setr(m[0], m[pc], m[2 * pc], 0.0f), AS = sv_setr(m[7 * pc], m[8 * pc], m[9 * pc], 0.0f);
                }
                AT = sv_add(AT, sv_qrot_aos(AQ, sv_mul(lt, AS)));
                AQ = sv_qmul_aos(AQ, lq);
                AS = sv_mul(AS, ls);
            }
            sv_store_lanes(m0 + j, pc, AT, 3);
            sv_store_lanes(m0 + 3 * pc + j, pc, AQ, 4);
            sv_store_lanes(m0 + 7 * pc + j, pc, AS, 3);
            aos = j;
#else
            if (g[5] < 0 && !root) { /* a root under the identity: the local transform as it is */
                for (int c = 0; c < 10; c++) m0[c * pc + g[1]] = l0[c * pc + g[1]];
            } else {
                l2m_joint(m0, l0, pc, g[5], g[1], rv);
            }
#endif
            hp = NULL;
            continue;
        }
        l2m_parents(X, hp, m0, pc, g + 5, rv);
        if (g[0] == 5) {
            l2m_tile(m0, l0, pc, g + 1, S, 4);
            for (int i = 0; i < 4; i++) have[i] = (short)(g[1 + i] + 3);
        } else if (g[0] > 5) { /* lane 3 short: one copy of the tile for each length */
            if (g[0] == 6)
                l2m_tile(m0, l0, pc, g + 1, S, 3);
            else if (g[0] == 7)
                l2m_tile(m0, l0, pc, g + 1, S, 2);
            else
                l2m_tile(m0, l0, pc, g + 1, S, 1);
            for (int i = 0; i < 3; i++) have[i] = (short)(g[1 + i] + 3);
            have[3] = -2; /* no joint */
        } else {
            l2m_group(m0, l0, pc, g + 1, X);
            hp = g + 1; /* X holds the group's joints, as listed in the item */
            continue;
        }
        hp = have;
    }
    }

/* The schedule as compiled and, where SV_VEX_COPY, the same code in VEX
 * encoding (simd.h), taken at run time on CPUs with AVX (the build stays
 * portable x86-64): its 3-operand forms need none of the register copies
 * SSE2's 2-operand forms do (local-to-model of RobotExpressive: 3,043 ->
 * 2,600 instructions), with the same results. */
SV_VEX_DEFINE(l2m, (float *m0, const float *l0, int pc, const stance_skeleton *sk, const float *rv,
                    const stance_transform *root),
              (m0, l0, pc, sk, rv, root), l2m_schedule)

/* The root transform's 10 channels (the identity's when root is NULL), then
 * the schedule in one encoding: vex 1 VEX, 0 SSE2 (or the scalar form), -1
 * whichever the CPU runs best. 0 when the encoding asked for is not here. */
ST_FORCEINLINE int l2m_encoded(stance_pose *model, const stance_pose *local, const stance_skeleton *sk,
                       const stance_transform *root, int vex) {
    static const float identity[10] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 1.0f, 1.0f, 1.0f};
    float root_rv[10];
    const float *rv = identity;
    if (root) {
        for (int c = 0; c < 3; c++) root_rv[c] = root->t[c], root_rv[7 + c] = root->s[c];
        for (int c = 0; c < 4; c++) root_rv[3 + c] = root->r[c];
        rv = root_rv;
    }
    return SV_VEX_AS(vex, l2m, (model->tx, local->tx, model->padded_count, sk, rv, root));
}

/* One joint's model transform (parent p >= 0, from the model pose; a root
 * under the identity: its local transform), 4 lanes of the same values
 * through the 4-wide step the schedule's runs, tiles and groups take (the
 * scalar reference's expression trees, which its single joints share). */
static inline void l2m_one(float *m0, const float *l0, int pc, int p, int j) {
    if (p < 0) {
        for (int c = 0; c < 10; c++) m0[c * pc + j] = l0[c * pc + j];
        return;
    }
    sv4 P[40], L[40];
    for (int c = 0; c < 10; c++) P[4 * c] = sv_set1(m0[c * pc + p]), L[4 * c] = sv_set1(l0[c * pc + j]);
    l2m_step(P, L, P);
    for (int c = 0; c < 10; c++) m0[c * pc + j] = sv_lane0(P[4 * c]);
}

void st_local_to_model_range(stance_pose *model, const stance_pose *local, const stance_skeleton *sk, int from, int to) {
    if (from < 0) {
        l2m_encoded(model, local, sk, NULL, -1);
        return;
    }
    /* joints come parents first: from's subtree lies in from..to, each
     * member's parent a member before it */
    unsigned char in[STANCE_MAX_JOINTS];
    const int pc = model->padded_count;
    float *m0 = model->tx;
    const float *l0 = local->tx;
    for (int j = from; j <= to; j++) {
        const int p = sk->parents[j];
        in[j - from] = (unsigned char)(j == from || (p >= from && in[p - from]));
        if (in[j - from]) l2m_one(m0, l0, pc, p, j);
    }
}

int st_local_to_model_as(stance_pose *model, const stance_pose *local, const stance_skeleton *sk,
                         const stance_transform *root, int vex) {
    return l2m_encoded(model, local, sk, root, vex ? 1 : 0);
}

ST_BODY stance_status local_to_model(stance_pose *model, const stance_pose *local, const stance_skeleton *sk,
                                     const stance_transform *root, stance_error *err) {
    if (!valid(model) || !valid(local) || !sk || model == local)
        return ST_FAIL(err, STANCE_ERR_ARGUMENT, "local to model: %s", !sk ? "skeleton is NULL" : model == local ?
                       "model and local are the same pose" : "model or local is NULL or not bound to memory");
    const int n = sk->joint_count;
    if (model->joint_count != n || local->joint_count != n)
        return ST_FAIL(err, STANCE_ERR_ARGUMENT, "local to model: model has %d joints and local %d, the skeleton %d",
                       model->joint_count, local->joint_count, n);
    if (root && (!st_finite_n(root->t, 3) || !st_finite_n(root->r, 4) || !st_finite_n(root->s, 3)))
        return ST_FAIL(err, STANCE_ERR_VALUE, "local to model: the root transform is not finite");
    st_ok(err); /* before the work: err is not kept through it */
    l2m_encoded(model, local, sk, root, -1);
    return STANCE_OK;
}

stance_status stance_local_to_model(stance_pose *model, const stance_pose *local, const stance_skeleton *sk,
                                    const stance_transform *root, stance_error *err) {
    return local_to_model(model, local, sk, root, err);
}
stance_status st_local_to_model(stance_pose *model, const stance_pose *local, const stance_skeleton *sk,
                                const stance_transform *root) {
    return local_to_model(model, local, sk, root, NULL);
}
