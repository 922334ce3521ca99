/* tests/test_simd.c - the 4-wide pose loops (src/core/math/simd.h) against
 * scalar references written here from the formulas (qmath.h): blend,
 * masked blend, additive apply, local-to-model on a branching skeleton
 * (chains, siblings, several roots), and the simd.h helpers themselves;
 * local-to-model of every tree of up to 7 joints and of random forests, in
 * both schedules and both encodings, with each pose between guard pages. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS (tests/guard_pages.h) under -std=c11 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "guard_pages.h"
#include "core/base/internal.h"
#include "core/rig/rig_internal.h"
#include "core/math/qmath.h"
#include "core/math/simd.h"
#include "stance/io.h"
#include "stance/stance.h"
#include "core/clip/clip_internal.h"
#include "workload.h"

#define RANDOM_POSE_SEED 12345u
#include "random_pose.h"

static qm_quat qget(const stance_pose *p, int j) { return qm_q(p->qx[j], p->qy[j], p->qz[j], p->qw[j]); }
static qm_vec3 tget(const stance_pose *p, int j) { return qm_v3(p->tx[j], p->ty[j], p->tz[j]); }
static qm_vec3 sget(const stance_pose *p, int j) { return qm_v3(p->sx[j], p->sy[j], p->sz[j]); }

/* largest difference of a joint against expected t, q (either sign), s */
static float diff(const stance_pose *p, int j, qm_vec3 t, qm_quat q, qm_vec3 s) {
    float d = qm_len3(qm_sub(tget(p, j), t));
    float dq = fminf(qm_len3(qm_v3(p->qx[j] - q.x, p->qy[j] - q.y, p->qz[j] - q.z)) + fabsf(p->qw[j] - q.w),
                     qm_len3(qm_v3(p->qx[j] + q.x, p->qy[j] + q.y, p->qz[j] + q.z)) + fabsf(p->qw[j] + q.w));
    float ds = qm_len3(qm_sub(sget(p, j), s));
    return fmaxf(d, fmaxf(dq, ds));
}

/* 37 joints: two roots; chains of different lengths, siblings, a fan */
static stance_skeleton *branching(void) {
    int parents[37];
    parents[0] = -1;
    for (int j = 1; j < 37; j++) parents[j] = j == 20 ? -1 : (j % 5 == 0 ? (j * 7) % j / 2 : j - 1 - (j % 3 == 0));
    for (int j = 1; j < 37; j++)
        if (parents[j] >= j) parents[j] = j - 1;
    stance_skeleton_desc d = {.joint_count = 37, .parents = parents};
    stance_skeleton *sk = NULL;
    stance_skeleton_create(&d, NULL, &sk, NULL);
    return sk;
}

/* The builtin character's 23 joints: a spine chain and 4 limbs of 4 joints */
static stance_skeleton *limbs(void) {
    const int parents[23] = {-1, 0, 1, 2, 3, 4, 5, 4, 7, 8, 9, 4, 11, 12, 13, 1, 15, 16, 17, 1, 19, 20, 21};
    stance_skeleton_desc d = {.joint_count = 23, .parents = parents};
    stance_skeleton *sk = NULL;
    stance_skeleton_create(&d, NULL, &sk, NULL);
    return sk;
}

/* The reference workload's skeleton: a root and 4 chains (J=64: 16/16/16/15) */
static stance_skeleton *chains(int J) {
    int parents[256];
    parents[0] = -1;
    for (int l = 0, j = 1; l < 4; l++)
        for (int k = 0; k < (J - 1) / 4 + (l < (J - 1) % 4); k++, j++) parents[j] = k == 0 ? 0 : j - 1;
    stance_skeleton_desc d = {.joint_count = J, .parents = parents};
    stance_skeleton *sk = NULL;
    stance_skeleton_create(&d, NULL, &sk, NULL);
    return sk;
}

/* Many roots among chains (a group must not mix roots with other joints:
 * a root's parent is the root transform, not a joint), and chains of every
 * length 1..9 from a shared joint, hands of 3-joint fingers (short lanes) */
static stance_skeleton *mixed(void) {
    int parents[96], n = 0;
    parents[n++] = -1;
    parents[n++] = 0;
    for (int r = 0; r < 5; r++) parents[n++] = -1; /* roots 2..6 */
    parents[7] = 3, parents[8] = 7, parents[9] = -1, n = 10;
    for (int len = 1; len <= 9; len++) /* chains under joint 1 */
        for (int k = 0; k < len; k++, n++) parents[n] = k == 0 ? 1 : n - 1;
    for (int h = 0; h < 2; h++) { /* a palm of 2, 5 fingers of 3 */
        const int palm = n;
        parents[n] = h == 0 ? 4 : 0, parents[n + 1] = n, n += 2;
        for (int f = 0; f < 5; f++)
            for (int k = 0; k < 3; k++, n++) parents[n] = k == 0 ? palm + 1 : n - 1;
    }
    stance_skeleton_desc d = {.joint_count = n, .parents = parents};
    stance_skeleton *sk = NULL;
    stance_skeleton_create(&d, NULL, &sk, NULL);
    return sk;
}

/* A root, 3 chains of 8 and one of 4 + rest: the second tile's lane 3 holds rest joints */
static stance_skeleton *chains_rest(int rest) {
    int parents[40], n = 1;
    parents[0] = -1;
    for (int c = 0; c < 4; c++)
        for (int k = 0; k < (c < 3 ? 8 : 4 + rest); k++, n++) parents[n] = k == 0 ? 0 : n - 1;
    stance_skeleton_desc d = {.joint_count = n, .parents = parents};
    stance_skeleton *sk = NULL;
    stance_skeleton_create(&d, NULL, &sk, NULL);
    return sk;
}

/* RobotExpressive's 43 joints (the parents of its glTF file, in its node
 * order): no chain of 4 joints each the only child of the previous (chains
 * of 3 and 2: spine, arms, fingers, legs), so it has no tiles, only groups.
 * (Tiles of 3 and 2 steps were tried for it: a tile of 3 steps costs about
 * what one of 4 does, 929 instructions against 3 groups' ~1,200, but taking
 * the chains out of the depth layers left the other groups half empty, and
 * local-to-model went from 5,312 to 5,781-5,987 instructions.) The importer
 * gives it in stance_skeleton_fast_order, where it is 14 runs. */
static stance_skeleton *robot_shape(void) {
    const int parents[43] = {-1, 0,  0,  2,  3,  4,  5,  6,  5,  8,  9,  10, 11, 12, 10, 14, 10, 16, 17, 10, 19, 20,
                             5,  22, 23, 24, 25, 26, 24, 28, 24, 30, 31, 24, 33, 34, 2,  36, 2,  38, 0,  0,  0};
    stance_skeleton_desc d = {.joint_count = 43, .parents = parents};
    stance_skeleton *sk = NULL;
    stance_skeleton_create(&d, NULL, &sk, NULL);
    return sk;
}

/* sk's tree in stance_skeleton_fast_order (its names "joint<old index>") */
static stance_skeleton *fast_ordered(const stance_skeleton *sk) {
    const int n = sk->joint_count;
    int order[256], pos[256], parents[256];
    char names[256][16];
    const char *np[256];
    CHECK_OK(stance_skeleton_fast_order(sk->parents, n, order, NULL));
    int seen[256] = {0};
    for (int i = 0; i < n; i++) {
        CHECK(order[i] >= 0 && order[i] < n && !seen[order[i]]);
        if (order[i] < 0 || order[i] >= n) return NULL;
        seen[order[i]] = 1, pos[order[i]] = i;
    }
    for (int i = 0; i < n; i++) {
        const int p = sk->parents[order[i]];
        parents[i] = p < 0 ? -1 : pos[p];
        CHECK(parents[i] < i); /* parents still before children */
        snprintf(names[i], sizeof names[i], "joint%d", order[i]), np[i] = names[i];
    }
    stance_skeleton_desc d = {.joint_count = n, .names = np, .parents = parents};
    stance_skeleton *out = NULL;
    CHECK_OK(stance_skeleton_create(&d, NULL, &out, NULL));
    return out;
}

static int encodings_checked; /* bit 0 SSE2 (or scalar), bit 1 VEX: compared with stance_local_to_model */

/* The schedule (every joint once, after its parent; an item's lanes all
 * roots or none; a short lane 3's 4 floats in the pose), and the model pose
 * against the formulas joint by joint; returns the tiles it has. */
static int check_local_to_model(stance_skeleton *sk) {
    const int J = sk->joint_count;
    int seen[256] = {0}, item_of[256], tiles = 0;
    for (int k = 0; k < sk->l2m_group_count && sk->l2m_runs; k++) {
        /* runs: 1..4 consecutive joints from g[1], in joint order, each
         * parent before the run, all roots or none */
        const short *g = sk->l2m_groups + 9 * k;
        CHECK(g[0] >= 1 && g[0] <= 4 && g[1] >= 0 && g[1] + g[0] <= J);
        CHECK(k == 0 || g[1] == sk->l2m_groups[9 * (k - 1) + 1] + sk->l2m_groups[9 * (k - 1)]);
        for (int i = 0; i < g[0] && g[1] + i < J; i++) {
            const int j = g[1] + i;
            seen[j]++, item_of[j] = k;
            CHECK(g[5 + i] == sk->parents[j] && sk->parents[j] < g[1] && (sk->parents[j] < 0) == (g[5] < 0));
        }
    }
    for (int k = 0; k < sk->l2m_group_count && !sk->l2m_runs; k++) {
        const short *g = sk->l2m_groups + 9 * k;
        CHECK(g[0] >= 1 && g[0] <= 8);
        for (int i = 1; i < 4; i++) CHECK((g[5 + i] < 0) == (g[5] < 0));
        if (g[0] >= 5) {
            tiles++;
            for (int i = 0; i < 4; i++) {
                const int len = i == 3 ? 9 - g[0] : 4;
                int dup = 0;
                for (int q = 0; q < i; q++) dup |= g[1 + q] == g[1 + i];
                CHECK(g[5 + i] == sk->parents[g[1 + i]]);
                CHECK(g[1 + i] + len - 4 >= 0);
                for (int s = 0; s < len; s++) {
                    int j = g[1 + i] + s;
                    CHECK(j < J);
                    if (j >= J) continue;
                    if (s > 0) CHECK(sk->parents[j] == j - 1);
                    if (!dup) seen[j]++;
                    item_of[j] = k;
                }
            }
            continue;
        }
        for (int i = 0; i < g[0]; i++) {
            seen[g[1 + i]]++;
            item_of[g[1 + i]] = k;
            CHECK(g[5 + i] == sk->parents[g[1 + i]]);
        }
    }
    for (int j = 0; j < J; j++) {
        CHECK(seen[j] == 1);
        int p = sk->parents[j];
        if (p >= 0) CHECK(item_of[p] < item_of[j] || (item_of[p] == item_of[j] && p == j - 1 && sk->l2m_groups[9 * item_of[j]] >= 5));
    }
    stance_pose local, model;
    stance_pose_create(&local, J, NULL, NULL), stance_pose_create(&model, J, NULL, NULL);
    stance_transform root = {{0.5f, -1, 2}, {0, 0.6f, 0, 0.8f}, {1, 2, 1}};
    float worst = 0.0f;
    for (int rep = 0; rep < 20; rep++) {
        random_pose(&local);
        CHECK_OK(stance_local_to_model(&model, &local, sk, rep % 2 ? &root : NULL, NULL));
        /* both encodings (SSE2 and, where the CPU has AVX, VEX) bit for bit the same */
        for (int vex = 0; vex < 2; vex++) {
            stance_pose other;
            stance_pose_create(&other, J, NULL, NULL);
            if (st_local_to_model_as(&other, &local, sk, rep % 2 ? &root : NULL, vex)) {
                CHECK(!memcmp(other.memory, model.memory, stance_pose_bytes(J)));
                encodings_checked |= 1 << vex;
            }
            stance_pose_destroy(&other);
        }
        qm_vec3 mt[256], ms[256];
        qm_quat mq[256];
        for (int j = 0; j < J; j++) {
            int p = sk->parents[j];
            qm_vec3 pt = p >= 0 ? mt[p] : rep % 2 ? qm_v3(root.t[0], root.t[1], root.t[2]) : qm_v3(0, 0, 0);
            qm_quat pq = p >= 0 ? mq[p] : rep % 2 ? qm_q(root.r[0], root.r[1], root.r[2], root.r[3]) : qm_qid();
            qm_vec3 ps = p >= 0 ? ms[p] : rep % 2 ? qm_v3(root.s[0], root.s[1], root.s[2]) : qm_v3(1, 1, 1);
            mt[j] = qm_add(pt, qm_qrot(pq, qm_mul3(ps, tget(&local, j))));
            mq[j] = qm_qmul(pq, qget(&local, j));
            ms[j] = qm_mul3(ps, sget(&local, j));
            /* chains of 64 joints with scales up to 1.5 grow: relative error */
            float size = 1.0f + qm_len3(mt[j]) + qm_len3(ms[j]);
            float d = diff(&model, j, mt[j], mq[j], ms[j]) / size;
            if (d > worst) worst = d;
        }
        /* the padding past joint_count is untouched (the identity) */
        for (int j = J; j < model.padded_count; j++) CHECK(model.qw[j] == 1.0f && model.tx[j] == 0.0f && model.sx[j] == 1.0f);
    }
    printf("  local-to-model, %d joints, %d %s (%d tiles), against the scalar reference: %.2e\n", J,
           sk->l2m_group_count, sk->l2m_runs ? "runs" : "items", tiles, (double)worst);
    CHECK(worst < 2e-5f);
    stance_pose_destroy(&local), stance_pose_destroy(&model);
    return tiles;
}

static void test_local_to_model(void) {
    stance_skeleton *sk[9] = {branching(), limbs(), chains(64), chains(256), mixed(), chains_rest(1), chains_rest(2), chains_rest(3),
                              robot_shape()};
    const int want_tiles[9] = {-1, 1, 4, 16, -1, 2, 2, 2, 0}; /* -1: any number */
    int kinds[ST_RUN_GATHER + 1] = {0}, shifted = 0, short_end = 0, kept = 0;
    for (int i = 0; i < 9; i++) {
        CHECK(sk[i] != NULL);
        if (!sk[i]) continue;
        int tiles = check_local_to_model(sk[i]);
        if (want_tiles[i] >= 0) CHECK(tiles == want_tiles[i]);
        if (i >= 5 && i <= 7) CHECK(sk[i]->l2m_group_count == 3 && sk[i]->l2m_groups[2 * 9] == 9 - (i - 4)); /* lane 3 short */
        if (i == 8) { /* robot: groups of 3 or 4 joints (depth layers of its bushy tree) hold 37 of its 43 joints */
            int in_wide = 0;
            for (int k = 0; k < sk[i]->l2m_group_count; k++)
                if (sk[i]->l2m_groups[9 * k] >= 3 && sk[i]->l2m_groups[9 * k] <= 4) in_wide += sk[i]->l2m_groups[9 * k];
            CHECK(in_wide == 37);
        }
        /* the same tree in the fast order: runs, every way of fetching the
         * parents and the short run at the end among them */
        stance_skeleton *fo = fast_ordered(sk[i]);
        CHECK(fo != NULL);
        if (fo) {
            check_local_to_model(fo);
            CHECK(fo->l2m_runs == 1);
            for (int k = 0; k < fo->l2m_group_count && fo->l2m_runs; k++) {
                const short *g = fo->l2m_groups + 9 * k;
                kinds[g[2]]++, shifted += g[2] == ST_RUN_X && g[3] > 0, short_end += !(g[4] & ST_RUN_STORE4);
                kept += (g[4] & ST_RUN_KEEP) != 0;
            }
            if (i == 8) CHECK(fo->l2m_group_count == 14); /* 43 joints: 1 + 4 + 4 + 3 + 1 + 3 + 3 + 2 + 4 x 5 + 2 */
            stance_skeleton_destroy(fo);
        }
        stance_skeleton_destroy(sk[i]);
    }
    for (int k = ST_RUN_X; k <= ST_RUN_GATHER; k++) CHECK(kinds[k] > 0);
    CHECK(encodings_checked & 1);
    printf("  local-to-model encodings compared bit for bit: %s\n", encodings_checked & 2 ? "SSE2 and VEX" : "one (no VEX here)");
    CHECK(shifted > 0 && short_end > 0 && kept > 0);
    printf("  fast order: runs fetching their parents from the last run %d (shifted %d), as roots %d, one parent %d, "
           "a row %d, gathered %d; short at the end %d\n",
           kinds[ST_RUN_X], shifted, kinds[ST_RUN_ROOT], kinds[ST_RUN_ONE], kinds[ST_RUN_ROW], kinds[ST_RUN_GATHER],
           short_end);
    /* the real file, when it is there: the importer's skeleton */
    char glb[1024];
    const char *dir = getenv("STANCE_DATA");
    snprintf(glb, sizeof glb, "%s/robot_expressive/RobotExpressive.glb", dir && dir[0] ? dir : "../shared/data");
    FILE *f = fopen(glb, "rb");
    if (!f) {
        const char *ci = getenv("CI");
        printf("  %s: %s\n", ci && !strcmp(ci, "true") ? "MISSING (CI=true: failing)" : "missing, skipped", glb);
        CHECK(!(ci && !strcmp(ci, "true")));
        return;
    }
    fclose(f);
    stance_asset asset = {0};
    stance_error err = {0};
    if (stance_open_file(glb, NULL, NULL, &asset, &err)) {
        printf("  %s: %s (no importer: skipped)\n", glb, err.message);
        return;
    }
    CHECK(asset.skeleton && asset.skeleton->joint_count == 43);
    if (asset.skeleton && asset.skeleton->joint_count == 43) {
        /* the file's tree in the fast order (the names say which node each is) */
        stance_skeleton *shape = robot_shape(), *fo = shape ? fast_ordered(shape) : NULL;
        CHECK(fo != NULL);
        for (int j = 0; j < 43 && fo; j++) CHECK(asset.skeleton->parents[j] == fo->parents[j]);
        stance_skeleton_destroy(fo), stance_skeleton_destroy(shape);
        CHECK(!strcmp(stance_skeleton_joint_name(asset.skeleton, 0), "Bone"));
        CHECK(!strcmp(stance_skeleton_joint_name(asset.skeleton, 9), "Abdomen")); /* node order: joint 4 */
        CHECK(check_local_to_model(asset.skeleton) == 0 && asset.skeleton->l2m_runs && asset.skeleton->l2m_group_count == 14);
    }
    stance_asset_destroy(&asset);
}

static void test_blends(void) {
    stance_skeleton *sk = branching();
    const int J = sk->joint_count;
    stance_pose a, b, out;
    stance_pose_create(&a, J, NULL, NULL), stance_pose_create(&b, J, NULL, NULL), stance_pose_create(&out, J, NULL, NULL);
    float mask[64];
    float wb = 0.0f, wm = 0.0f, wa = 0.0f;
    for (int rep = 0; rep < 20; rep++) {
        random_pose(&a), random_pose(&b);
        for (int j = 0; j < J; j++) mask[j] = j % 7 == 0 ? 0.0f : j % 5 == 0 ? 1.0f : frand(0, 1);
        /* weighted blend: normalized weights, b aligned to a */
        const stance_pose *in[2] = {&a, &b};
        /* both orders: the blend folds the weights into the smaller over the larger */
        const float w[2] = {rep % 2 ? 0.7f : 0.3f + 0.02f * rep, rep % 2 ? 0.3f + 0.02f * rep : 0.7f};
        CHECK_OK(stance_pose_blend(&out, in, w, 2, 0.0f, sk, NULL));
        const float u = w[1] / (w[0] + w[1]);
        for (int j = 0; j < J; j++) {
            float d = diff(&out, j, qm_lerp3(tget(&a, j), tget(&b, j), u), qm_nlerp(qget(&a, j), qget(&b, j), u),
                           qm_lerp3(sget(&a, j), sget(&b, j), u));
            if (d > wb) wb = d;
        }
        /* masked blend */
        const float lw = rep % 3 == 0 ? 1.0f : 0.1f + 0.04f * rep;
        CHECK_OK(stance_pose_blend_masked(&out, &a, &b, mask, lw, NULL));
        for (int j = 0; j < J; j++) {
            float m = mask[j] * lw;
            float d = diff(&out, j, qm_lerp3(tget(&a, j), tget(&b, j), m), qm_nlerp(qget(&a, j), qget(&b, j), m),
                           qm_lerp3(sget(&a, j), sget(&b, j), m));
            if (m <= 0.0f) d = memcmp(&out.tx[j], &a.tx[j], 4) || out.qw[j] != a.qw[j] ? 1.0f : 0.0f; /* exactly base */
            if (m >= 1.0f) d = out.tx[j] != b.tx[j] || out.qw[j] != b.qw[j] ? 1.0f : 0.0f;            /* exactly layer */
            if (d > wm) wm = d;
        }
        /* additive: base * nlerp(identity, delta, w), base t + w dt, base s * lerp(1, ds, w) */
        CHECK_OK(stance_pose_additive_apply(&out, &a, &b, rep % 2 ? mask : NULL, lw, NULL));
        for (int j = 0; j < J; j++) {
            float m = (rep % 2 ? mask[j] : 1.0f) * lw;
            qm_quat dq = qget(&b, j);
            if (dq.w < 0.0f) dq = qm_qneg(dq);
            qm_quat e = qm_qmul(qget(&a, j), qm_nlerp(qm_qid(), dq, m));
            qm_vec3 s = qm_mul3(sget(&a, j), qm_lerp3(qm_v3(1, 1, 1), sget(&b, j), m));
            float d = diff(&out, j, qm_add(tget(&a, j), qm_scale(tget(&b, j), m)), e, s);
            if (d > wa) wa = d;
        }
    }
    /* weights far apart (the folded ratio stays finite): the heavier pose, to rounding */
    for (int k = 0; k < 2; k++) {
        const stance_pose *in[2] = {&a, &b};
        const float w[2] = {k ? 1e30f : 1e-30f, k ? 1e-30f : 1e30f};
        CHECK_OK(stance_pose_blend(&out, in, w, 2, 0.0f, sk, NULL));
        const stance_pose *heavy = k ? &a : &b;
        for (int j = 0; j < J; j++) {
            float d = diff(&out, j, tget(heavy, j), qget(heavy, j), sget(heavy, j));
            CHECK(d < 2e-6f);
        }
    }
    printf("  blend %.2e, masked blend %.2e, additive %.2e against the scalar references\n", (double)wb, (double)wm, (double)wa);
    CHECK(wb < 2e-6f && wm < 2e-6f && wa < 2e-6f);
    stance_pose_destroy(&a), stance_pose_destroy(&b), stance_pose_destroy(&out);
    stance_skeleton_destroy(sk);
}

static void test_helpers(void) {
    float a[8], b[8], q[16], o[16];
    for (int i = 0; i < 8; i++) a[i] = frand(-2, 2), b[i] = frand(-2, 2);
    float r[8];
    memcpy(r, a, sizeof r);
    sv_block_add(r, b, 0.25f, 8);
    for (int i = 0; i < 8; i++) CHECK_NEAR(r[i], a[i] + 0.25f * b[i], 1e-6);
    sv_block_scale(r, a, -3.0f, 8);
    for (int i = 0; i < 8; i++) CHECK_NEAR(r[i], -3.0f * a[i], 1e-6);
    /* normalize: a zero quaternion becomes the identity, others unit */
    for (int i = 0; i < 16; i++) q[i] = frand(-1, 1);
    q[1] = q[5] = q[9] = q[13] = 0.0f;
    memcpy(o, q, sizeof o);
    sv_block_normalize_rot(o, 4, 4);
    for (int i = 0; i < 4; i++) {
        qm_quat e = i == 1 ? qm_qid() : qm_qnorm(qm_q(q[i], q[4 + i], q[8 + i], q[12 + i]));
        CHECK_NEAR(o[i], e.x, 1e-6);
        CHECK_NEAR(o[4 + i], e.y, 1e-6);
        CHECK_NEAR(o[8 + i], e.z, 1e-6);
        CHECK_NEAR(o[12 + i], e.w, 1e-6);
    }
    /* sign-aligned accumulation */
    float acc[16], p[16];
    for (int i = 0; i < 16; i++) acc[i] = frand(-1, 1), p[i] = frand(-1, 1);
    memcpy(o, acc, sizeof o);
    sv_block_add_rot(o, p, 0.5f, 4, 4);
    for (int i = 0; i < 4; i++) {
        float d = acc[i] * p[i] + acc[4 + i] * p[4 + i] + acc[8 + i] * p[8 + i] + acc[12 + i] * p[12 + i];
        float w = d < 0.0f ? -0.5f : 0.5f;
        for (int c = 0; c < 4; c++) CHECK_NEAR(o[4 * c + i], acc[4 * c + i] + w * p[4 * c + i], 1e-6);
    }
    short idx[4] = {5, 2, 2, 7};
    sv4 g = sv_gather(a, idx);
    float gv[4];
    sv_store(gv, g);
    CHECK(gv[0] == a[5] && gv[1] == a[2] && gv[2] == a[2] && gv[3] == a[7]);
    float z[8] = {0};
    sv_scatter(z, idx, g);
    CHECK(z[5] == a[5] && z[2] == a[2] && z[7] == a[7] && z[0] == 0.0f);
    float m[16], mt[16];
    for (int i = 0; i < 16; i++) m[i] = (float)i;
    sv4 rows[4] = {sv_load(m), sv_load(m + 4), sv_load(m + 8), sv_load(m + 12)};
    sv_transpose4(rows);
    for (int k = 0; k < 4; k++) sv_store(mt + 4 * k, rows[k]);
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 4; i++) CHECK(mt[4 * k + i] == m[4 * i + k]);
    sv4 cs = sv_copysign(sv_set1(2.0f), sv_load(a));
    sv_store(gv, cs);
    for (int i = 0; i < 4; i++) CHECK(gv[i] == (a[i] < 0 ? -2.0f : 2.0f));
}

/* stance_skeleton_fast_order on random forests: a permutation that keeps
 * parents before children (roots first, a single root stays joint 0), runs
 * of up to 4 joints, as many runs as the tree's longest chain at least; and
 * the errors. */
static void test_fast_order(void) {
    int parents[300], order[300];
    for (int rep = 0; rep < 200; rep++) {
        const int n = 1 + (int)frand(0, 255.99f); /* check_local_to_model holds 256 */
        const int roots = rep % 5 == 0 ? 1 + (int)frand(0, 3.99f) : 1;
        for (int j = 0; j < n; j++) parents[j] = j < roots ? -1 : (int)frand(0, (float)j - 0.001f);
        if (rep % 7 == 1)
            for (int j = roots; j < n; j++) parents[j] = j - 1; /* one chain */
        CHECK_OK(stance_skeleton_fast_order(parents, n, order, NULL));
        int pos[300], seen[300] = {0}, ok = 1;
        for (int i = 0; i < n; i++) ok &= order[i] >= 0 && order[i] < n && !seen[order[i]]++, pos[order[i] < 0 || order[i] >= n ? 0 : order[i]] = i;
        CHECK(ok);
        if (!ok) continue;
        for (int i = 0; i < n; i++) CHECK(parents[order[i]] < 0 ? i < roots : pos[parents[order[i]]] < i);
        if (roots == 1) CHECK(order[0] == 0);
        stance_skeleton_desc d = {.joint_count = n, .parents = NULL};
        int np[300];
        for (int i = 0; i < n; i++) np[i] = parents[order[i]] < 0 ? -1 : pos[parents[order[i]]];
        d.parents = np;
        stance_skeleton *sk = NULL;
        CHECK_OK(stance_skeleton_create(&d, NULL, &sk, NULL));
        if (!sk) continue;
        int depth[300], deepest = 0;
        for (int j = 0; j < n; j++) depth[j] = np[j] < 0 ? 1 : depth[np[j]] + 1, deepest = depth[j] > deepest ? depth[j] : deepest;
        if (sk->l2m_runs) CHECK(sk->l2m_group_count >= deepest && sk->l2m_group_count >= (n + 3) / 4);
        if (rep < 20) check_local_to_model(sk);
        stance_skeleton_destroy(sk);
    }
    stance_error err = {0};
    parents[0] = -1, parents[1] = 1;
    CHECK(stance_skeleton_fast_order(parents, 2, order, &err) == STANCE_ERR_ORDER && strstr(err.message, "joint 1"));
    CHECK(stance_skeleton_fast_order(NULL, 2, order, &err) == STANCE_ERR_ARGUMENT);
    CHECK(stance_skeleton_fast_order(parents, 0, order, &err) == STANCE_ERR_ARGUMENT);
    CHECK(stance_skeleton_fast_order(parents, STANCE_MAX_JOINTS + 1, order, &err) == STANCE_ERR_ARGUMENT);
}

/* ---- local-to-model against guard pages ---------------------------------
 * Each pose's block sits flush against an inaccessible page, once at its end
 * and once at its start, so a read or write before a pose's first array or
 * past its last faults. The padding of every array and the whole model pose
 * start as a NaN sentinel: the padding must come back untouched, and a lane
 * that carried a padding value or an uncomputed model joint into a joint's
 * result would make it NaN. Every run is compared with a reference composed
 * here in double (rotation matrices, not the kernels' quaternion form).
 * The kernels address every array alike (channel c at c * padded_count plus
 * the same offsets), so a read before tx's first entry stands for one before
 * any array's, and one past sz's padding for one past any array's. */
#define L2M_SENTINEL 0x7fc0de22u

/* what the schedules exercised, over the whole test */
static struct {
    int cases, calls, group[5], tile_last[5], chain4, run_kind[ST_RUN_GATHER + 1], run_short_load4, run_short_end;
    int run_near_start; /* a short run whose 4 floats that end at its last joint would begin before joint 0 */
    int tile_at_start; /* a short lane 3 whose 4 floats begin at joint 0 */
    float worst;
} cov;

static void l2m_cover(const short *g, int count, int runs) {
    for (int k = 0; k < count; k++, g += 9) {
        if (runs) {
            cov.run_kind[g[2]]++;
            if (!(g[4] & ST_RUN_STORE4)) g[4] & ST_RUN_LOAD4 ? cov.run_short_load4++ : cov.run_short_end++;
            cov.run_near_start += !(g[4] & ST_RUN_STORE4) && g[1] + g[0] < 4;
        } else if (g[0] >= 5) {
            cov.tile_last[9 - g[0]]++, cov.tile_at_start += g[4] + (9 - g[0]) - 4 == 0;
        } else {
            cov.group[g[0]]++;
            /* 4 single joints j..j+3, each the parent of the next (SSE2's AoS chain) */
            cov.chain4 += g[0] == 1 && k + 3 < count && g[9] == 1 && g[18] == 1 && g[27] == 1 && g[10] == g[1] + 1 &&
                          g[19] == g[1] + 2 && g[28] == g[1] + 3 && g[14] == g[1] && g[23] == g[1] + 1 && g[32] == g[1] + 2;
        }
    }
}

/* model[j] = model[parent] * local[j] in double: t = pt + R(pq) (ps * lt),
 * q = pq lq (Hamilton), s = ps * ls; a root's parent is root (NULL: the
 * identity). out[j]: t, q (x, y, z, w), s. */
static void l2m_reference(const int *parents, int n, const float *const ch[10], const stance_transform *root,
                          double (*out)[10]) {
    for (int j = 0; j < n; j++) {
        double P[10] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1}, L[10];
        for (int c = 0; c < 10; c++) L[c] = ch[c][j];
        if (parents[j] >= 0)
            memcpy(P, out[parents[j]], sizeof P);
        else if (root) {
            for (int c = 0; c < 3; c++) P[c] = root->t[c], P[7 + c] = root->s[c];
            for (int c = 0; c < 4; c++) P[3 + c] = root->r[c];
        }
        const double x = P[3], y = P[4], z = P[5], w = P[6];
        const double R[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                                {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                                {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
        double *o = out[j];
        for (int r = 0; r < 3; r++)
            o[r] = P[r] + R[r][0] * P[7] * L[0] + R[r][1] * P[8] * L[1] + R[r][2] * P[9] * L[2];
        o[3] = w * L[3] + x * L[6] + y * L[5] - z * L[4];
        o[4] = w * L[4] - x * L[5] + y * L[6] + z * L[3];
        o[5] = w * L[5] + x * L[4] - y * L[3] + z * L[6];
        o[6] = w * L[6] - x * L[3] - y * L[4] - z * L[5];
        for (int c = 7; c < 10; c++) o[c] = P[c] * L[c];
    }
}

static float l2m_sentinel(void) {
    const unsigned bits = L2M_SENTINEL;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}
static int is_sentinel(const float *f) { return !memcmp(f, &(unsigned){L2M_SENTINEL}, sizeof *f); }

/* One tree: both schedules, no root and a root, both encodings, both
 * placements against the guards; in one schedule, with one root, every
 * encoding and placement gives the same bits, and stance_local_to_model
 * those of the skeleton's own schedule. */
static void l2m_guarded(const int *parents, int n) {
    stance_skeleton_desc d = {.joint_count = n, .parents = parents};
    stance_skeleton *sk = NULL;
    CHECK_OK(stance_skeleton_create(&d, NULL, &sk, NULL));
    if (!sk) return;
    const size_t bytes = stance_pose_bytes(n);
    const int pc = st_pad8(n);
    guarded gl[2], gm[2];
    stance_pose local[2], model[2];
    for (int at = 0; at < 2; at++) {
        void *lm = guarded_alloc(&gl[at], bytes, at == 0), *mm = guarded_alloc(&gm[at], bytes, at == 0);
        CHECK(lm && mm);
        if (!lm || !mm) return;
        CHECK_OK(stance_pose_init(&local[at], n, lm, bytes, NULL));
        CHECK_OK(stance_pose_init(&model[at], n, mm, bytes, NULL));
    }
    /* the local pose (translations in [-1, 1], unit rotations, scales in
     * [0.5, 1.5]), its padding the sentinel; one copy in each placement */
    static float values[10 * 256], want_bits[10 * 256];
    static double ref[256][10];
    for (int i = 0; i < 10 * pc; i++) values[i] = l2m_sentinel();
    for (int j = 0; j < n; j++) {
        float q[4], l2 = 0.0f;
        for (int c = 0; c < 4; c++) q[c] = frand(-1, 1), l2 += q[c] * q[c];
        if (l2 < 1e-3f) q[3] = 1.0f, l2 = 1.0f;
        for (int c = 0; c < 3; c++) values[c * pc + j] = frand(-1, 1), values[(7 + c) * pc + j] = frand(0.5f, 1.5f);
        for (int c = 0; c < 4; c++) values[(3 + c) * pc + j] = q[c] / sqrtf(l2);
    }
    for (int at = 0; at < 2; at++) memcpy(local[at].memory, values, bytes);
    const float *ch[10];
    for (int c = 0; c < 10; c++) ch[c] = values + c * pc;
    const stance_transform root = {{0.5f, -1, 2}, {0, 0.6f, 0, 0.8f}, {1, 2, 0.5f}};
    short sched[9 * 256];
    for (int runs = 0; runs < 2; runs++) {
        stance_skeleton alt = *sk; /* the same tree, the schedule chosen */
        alt.l2m_group_count = st_l2m_schedule_as(parents, n, runs, sched), alt.l2m_groups = sched, alt.l2m_runs = runs;
        l2m_cover(sched, alt.l2m_group_count, runs);
        for (int r = 0; r < 2; r++) {
            const stance_transform *rt = r ? &root : NULL;
            l2m_reference(parents, n, ch, rt, ref);
            int have = 0; /* want_bits holds this schedule's and root's result */
            for (int vex = 0; vex < 3; vex++)
                for (int at = 0; at < 2; at++) {
                    float *m = model[at].memory;
                    for (int i = 0; i < 10 * pc; i++) m[i] = l2m_sentinel();
                    if (vex == 2) { /* the public function: the skeleton's own schedule */
                        if (runs != sk->l2m_runs) continue;
                        CHECK_OK(stance_local_to_model(&model[at], &local[at], sk, rt, NULL));
                    } else if (!st_local_to_model_as(&model[at], &local[at], &alt, rt, vex)) {
                        continue; /* no VEX in this build or CPU */
                    }
                    cov.calls++;
                    CHECK(!memcmp(local[at].memory, values, bytes)); /* the input untouched */
                    int pad_ok = 1;
                    for (int c = 0; c < 10; c++)
                        for (int j = n; j < pc; j++) pad_ok &= is_sentinel(m + c * pc + j);
                    CHECK(pad_ok);
                    float worst = 0.0f;
                    for (int j = 0; j < n; j++) {
                        const double *e = ref[j];
                        double size = 1.0, dt = 0.0, dq = 0.0, dqn = 0.0, ds = 0.0;
                        for (int c = 0; c < 3; c++) size += fabs(e[c]) + fabs(e[7 + c]);
                        for (int c = 0; c < 3; c++)
                            dt = fmax(dt, fabs(m[c * pc + j] - e[c])), ds = fmax(ds, fabs(m[(7 + c) * pc + j] - e[7 + c]));
                        for (int c = 3; c < 7; c++)
                            dq = fmax(dq, fabs(m[c * pc + j] - e[c])), dqn = fmax(dqn, fabs(m[c * pc + j] + e[c]));
                        const double dj = fmax(fmax(dt, ds) / size, fmin(dq, dqn));
                        if (!(dj <= 1e-5)) worst = INFINITY; /* NaN too */
                        else if ((float)dj > worst) worst = (float)dj;
                    }
                    if (worst > cov.worst) cov.worst = worst;
                    if (!(worst <= 1e-5f)) {
                        CHECK(worst <= 1e-5f);
                        fprintf(stderr, "  %d joints, %s, root %d, encoding %d, at the %s guard\n", n,
                                runs ? "runs" : "items", r, vex, at ? "start" : "end");
                    }
                    if (!have) memcpy(want_bits, m, bytes), have = 1;
                    else CHECK(!memcmp(want_bits, m, bytes));
                }
        }
    }
    cov.cases++;
    for (int at = 0; at < 2; at++) guarded_free(&gl[at]), guarded_free(&gm[at]);
    stance_skeleton_destroy(sk);
}

/* The case the .stance fuzzer found (issue 22): a root with two children.
 * Its runs are joint 0, then joints 1 and 2, the last run short at the end
 * of the pose while its 4 floats from joint 1 are all in the pose: the old
 * l2m_run_short loaded the 4 floats that end at joint 2, tx[-1] onwards,
 * which faults with the local pose flush against the start guard. */
static void test_l2m_root_two_children(void) {
    const int parents[3] = {-1, 0, 0};
    stance_skeleton_desc d = {.joint_count = 3, .parents = parents};
    stance_skeleton *sk = NULL;
    CHECK_OK(stance_skeleton_create(&d, NULL, &sk, NULL));
    if (!sk) return;
    /* the skeleton's own schedule is the runs that read before the pose */
    CHECK(sk->l2m_runs && sk->l2m_group_count == 2);
    const short *g = sk->l2m_groups + 9;
    CHECK(g[0] == 2 && g[1] == 1 && g[2] == ST_RUN_ONE && (g[4] & ST_RUN_LOAD4) && !(g[4] & ST_RUN_STORE4));
    stance_skeleton_destroy(sk);
    l2m_guarded(parents, 3);
}

/* Every parent array of 1..7 joints with parents before children (parent[0]
 * = -1, parent[i] in -1..i-1: several roots are allowed), i.e. 1! + 2! +
 * .. + 7! = 5,913 trees; then random forests up to 256 joints, in their
 * order and in stance_skeleton_fast_order. */
static void test_l2m_every_tree(void) {
    memset(&cov, 0, sizeof cov);
    int parents[256], trees = 0;
    for (int n = 1; n <= 7; n++) {
        for (int j = 0; j < n; j++) parents[j] = -1;
        for (;;) {
            l2m_guarded(parents, n), trees++;
            int i = n - 1; /* the next array: joint i's parent counts up -1..i-1, carrying down */
            while (i > 0 && parents[i] == i - 1) parents[i--] = -1;
            if (i == 0) break;
            parents[i]++;
        }
    }
    CHECK(trees == 5913 && cov.cases == 5913);
    const int small_calls = cov.calls;
    int order[256], pos[256], fo[256];
    for (int rep = 0; rep < 120; rep++) {
        const int n = rep < 8 ? 249 + rep : 1 + (int)frand(0, 255.99f);
        const float chain = rep % 3 == 0 ? 0.0f : rep % 3 == 1 ? 0.6f : 0.9f; /* chance a joint follows the last */
        const int roots = 1 + rep % 4;
        for (int j = 0; j < n; j++)
            parents[j] = j < roots || frand(0, 1) < 0.02f ? -1 : frand(0, 1) < chain ? j - 1 : (int)frand(0, (float)j - 0.001f);
        l2m_guarded(parents, n);
        CHECK_OK(stance_skeleton_fast_order(parents, n, order, NULL));
        for (int i = 0; i < n; i++) pos[order[i]] = i;
        for (int i = 0; i < n; i++) fo[i] = parents[order[i]] < 0 ? -1 : pos[parents[order[i]]];
        l2m_guarded(fo, n);
    }
    printf("  local-to-model between guard pages: %d trees of 1..7 joints (%d calls), %d random forests up to 256 "
           "(%d calls); worst %.2e against the double reference\n",
           trees, small_calls, cov.cases - trees, cov.calls - small_calls, (double)cov.worst);
    printf("  schedules: groups of 1-4 joints %d %d %d %d, AoS chains of 4 %d, tiles with lane 3 of 4-1 joints "
           "%d %d %d %d (%d from joint 0); runs from the last run %d, roots %d, one parent %d, a row %d, gathered %d, "
"short with 4 floats from the first joint %d (%d of them ending before joint 3), short at the end %d\n",
           cov.group[1], cov.group[2], cov.group[3], cov.group[4], cov.chain4, cov.tile_last[4], cov.tile_last[3],
           cov.tile_last[2], cov.tile_last[1], cov.tile_at_start, cov.run_kind[ST_RUN_X], cov.run_kind[ST_RUN_ROOT],
           cov.run_kind[ST_RUN_ONE], cov.run_kind[ST_RUN_ROW], cov.run_kind[ST_RUN_GATHER], cov.run_short_load4,
           cov.run_near_start, cov.run_short_end);
    /* every path of both schedules ran */
    for (int i = 1; i <= 4; i++) CHECK(cov.group[i] > 0 && cov.tile_last[i] > 0);
    for (int k = ST_RUN_X; k <= ST_RUN_GATHER; k++) CHECK(cov.run_kind[k] > 0);
    CHECK(cov.chain4 > 0 && cov.tile_at_start > 0 && cov.run_short_load4 > 0 && cov.run_near_start > 0 && cov.run_short_end > 0);
}

/* The reference workload's sampling and blend passes (clip.c's dense pass,
 * pose.c's two-pose blend) in both encodings (SSE2 or the scalar form, and
 * VEX where the CPU has AVX): bit for bit the public calls' results and the
 * scalar formulas computed here from the clip's key blocks. */
static float sign_of(float x) { return signbit(x) ? -1.0f : 1.0f; }
static void test_workload_encodings(void) {
    int checked = 0, samples = 0, blends = 0;
    const int sizes[2] = {64, 13};
    for (int si = 0; si < 2; si++) {
        const int J = sizes[si];
        workload w;
        CHECK_OK(workload_create(&w, J, 1, NULL));
        stance_pose p, o, ref;
        stance_pose_create(&p, J, NULL, NULL), stance_pose_create(&o, J, NULL, NULL), stance_pose_create(&ref, J, NULL, NULL);
        const int pc = p.padded_count;
        const size_t bytes = stance_pose_bytes(J);
        for (int step = 0; step < 125; step++) {
            const stance_clip *c = w.clips[step % 3];
            const float time = (float)step / 120.0f - 0.02f; /* before the first key to past the end */
            CHECK_OK(stance_clip_sample(c, time, NULL, &p, NULL));
            /* the scalar formulas: the key interval holding t, then per float */
            const float t = time < 0.0f ? 0.0f : time > c->duration ? c->duration : time;
            int k = 0;
            while (k < c->key_count - 2 && c->times[k + 1] <= t) k++;
            float u = (t - c->times[k]) / (c->times[k + 1] - c->times[k]);
            u = u < 0.0f ? 0.0f : u > 1.0f ? 1.0f : u;
            CHECK(c->t_keys > 1 && c->r_keys > 1 && c->s_keys == 1);
            const float *ta = c->t + (size_t)3 * pc * k, *tb = ta + 3 * pc, *ra = c->r + (size_t)4 * pc * k, *rb = ra + 4 * pc;
            for (int i = 0; i < 3 * pc; i++) ref.tx[i] = ta[i] + (tb[i] - ta[i]) * u, ref.sx[i] = c->s[i];
            for (int j = 0; j < pc; j++) {
                float q[4];
                for (int ch = 0; ch < 4; ch++) q[ch] = ra[ch * pc + j] + (rb[ch * pc + j] - ra[ch * pc + j]) * u;
                const float inv = 1.0f / sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
                for (int ch = 0; ch < 4; ch++) ref.qx[ch * pc + j] = q[ch] * inv;
            }
            CHECK(!memcmp(p.memory, ref.memory, bytes));
            for (int vex = 0; vex < 2; vex++) {
                memset(o.memory, 0xff, bytes);
                if (!st_clip_sample_as(c, time, &o, vex)) continue;
                CHECK(!memcmp(o.memory, ref.memory, bytes));
                checked |= 1 << vex;
            }
            samples++;
        }
        /* the blend: random poses, weights with the first larger, smaller and equal */
        stance_pose a, b;
        stance_pose_create(&a, J, NULL, NULL), stance_pose_create(&b, J, NULL, NULL);
        const float weights[4][2] = {{0.3f, 0.7f}, {0.7f, 0.3f}, {0.5f, 0.5f}, {2.0f, 1e-3f}};
        for (int rep = 0; rep < 40; rep++) {
            random_pose(&a), random_pose(&b);
            const float *wt = weights[rep % 4];
            const stance_pose *in[2] = {&a, &b};
            CHECK_OK(stance_pose_blend(&p, in, wt, 2, 0.0f, NULL, NULL));
            const float inv_total = 1.0f / (wt[0] + wt[1]), wa = wt[0] * inv_total, wb = wt[1] * inv_total;
            const int a_big = wa >= wb;
            const float kk = a_big ? wb / wa : wa / wb;
            for (int i = 0; i < 3 * pc; i++) {
                ref.tx[i] = a.tx[i] + (b.tx[i] - a.tx[i]) * wb;
                ref.sx[i] = a.sx[i] + (b.sx[i] - a.sx[i]) * wb;
            }
            for (int j = 0; j < pc; j++) {
                const float *qa[4] = {a.qx, a.qy, a.qz, a.qw}, *qb[4] = {b.qx, b.qy, b.qz, b.qw};
                const float d = (qa[0][j] * qb[0][j] + qa[1][j] * qb[1][j]) + (qa[2][j] * qb[2][j] + qa[3][j] * qb[3][j]);
                const float ks = kk * sign_of(d);
                float x[4];
                for (int ch = 0; ch < 4; ch++) x[ch] = a_big ? qb[ch][j] * ks + qa[ch][j] : qa[ch][j] * ks + qb[ch][j];
                float l = (x[0] * x[0] + x[1] * x[1]) + (x[2] * x[2] + x[3] * x[3]);
                l = l > FLT_MIN ? l : FLT_MIN;
                float inv = 1.0f / sqrtf(l);
                if (!a_big) inv *= sign_of(d);
                float *qo[4] = {ref.qx, ref.qy, ref.qz, ref.qw};
                for (int ch = 0; ch < 4; ch++) qo[ch][j] = x[ch] * inv;
            }
            CHECK(!memcmp(p.memory, ref.memory, bytes));
            for (int vex = 0; vex < 2; vex++) {
                memset(o.memory, 0xff, bytes);
                if (!st_pose_blend2_as(o.tx, a.tx, b.tx, wa, wb, pc, vex)) continue;
                CHECK(!memcmp(o.memory, ref.memory, bytes));
                checked |= 4 << vex;
            }
            blends++;
        }
        stance_pose_destroy(&a), stance_pose_destroy(&b);
        stance_pose_destroy(&p), stance_pose_destroy(&o), stance_pose_destroy(&ref);
        workload_destroy(&w);
    }
    CHECK((checked & 5) == 5); /* SSE2 (or the scalar form) always runs */
    printf("  workload sampling (%d) and blends (%d), J=64 and 13: the scalar formulas bit for bit, encodings: %s\n", samples,
           blends, (checked & 10) == 10 ? "SSE2 and VEX" : "SSE2 (or scalar) only: no VEX here");
}

int main(void) {
#if defined(SV_SSE2)
    printf("  simd.h: SSE2, 4 lanes\n");
#elif defined(SV_NEON)
    printf("  simd.h: NEON, 4 lanes\n");
#else
    printf("  simd.h: scalar form\n");
#endif
    RUN(test_helpers);
    RUN(test_blends);
    RUN(test_local_to_model);
    RUN(test_fast_order);
    RUN(test_l2m_root_two_children);
    RUN(test_l2m_every_tree);
    RUN(test_workload_encodings);
    return check_summary();
}
