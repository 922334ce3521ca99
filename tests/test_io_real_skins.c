/* tests/test_io_real_skins.c - imported skins and skinned meshes of real
 * assets (RobotExpressive.glb, Fox.glb) against the file's own numbers, read
 * here independently of the importer (tests/real_files.h): at the rest pose
 * every skin matrix (model pose x inverse bind) equals the file's node world
 * matrix x inverse bind matrix, and at a time inside a clip the skinned
 * vertices equal vertices skinned here from the file's node hierarchy
 * evaluated in double with the file's channels sampled by the spec.
 *
 * Data: STANCE_DATA (../shared/data). When CI=true a missing file fails the
 * test; elsewhere it is skipped with a message. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "real_files.h"
#include "stance/asset.h"
#include "stance/import.h"
#include "stance/pose.h"
#include "stance/skin.h"


/* Column-major 4x4 in double. */
typedef struct m4 {
    double m[16];
} m4;

static m4 m4_trs(const double t[3], const double q[4], const double s[3]) {
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y),
                   2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x),
                   2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)}; /* columns */
    m4 o;
    memset(&o, 0, sizeof o);
    for (int c = 0; c < 3; c++)
        for (int rr = 0; rr < 3; rr++) o.m[c * 4 + rr] = r[c * 3 + rr] * s[c];
    o.m[12] = t[0], o.m[13] = t[1], o.m[14] = t[2], o.m[15] = 1;
    return o;
}
static m4 m4_mul(const m4 *a, const m4 *b) {
    m4 o;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) {
            double v = 0;
            for (int k = 0; k < 4; k++) v += a->m[k * 4 + r] * b->m[c * 4 + k];
            o.m[c * 4 + r] = v;
        }
    return o;
}

/* An accessor of floats or unsigned bytes/shorts (normalized when flagged)
 * as doubles, count * comps, malloc'd. */
static double *accessor_any(const gltf *g, int index, int *count, int *comps) {
    const jv *acc = jat(jget(&g->json, "accessors"), index);
    const jv *type = jget(acc, "type");
    *comps = !type || type->type != J_STR ? 0 : !strcmp(type->str, "SCALAR") ? 1 : !strcmp(type->str, "VEC2") ? 2
           : !strcmp(type->str, "VEC3") ? 3 : !strcmp(type->str, "VEC4") ? 4 : !strcmp(type->str, "MAT4") ? 16 : 0;
    *count = (int)jnum(jget(acc, "count"), 0);
    int ct = (int)jnum(jget(acc, "componentType"), 0), cs = ct == 5126 || ct == 5125 ? 4 : ct == 5123 ? 2 : ct == 5121 ? 1 : 0;
    const jv *norm = jget(acc, "normalized");
    int normalized = norm && norm->type == J_BOOL && norm->num == 1;
    const jv *view = jat(jget(&g->json, "bufferViews"), (int)jnum(jget(acc, "bufferView"), -1));
    CHECK(acc && view && *comps && cs);
    if (!acc || !view || !*comps || !cs || *count <= 0) return NULL;
    size_t off = (size_t)jnum(jget(view, "byteOffset"), 0) + (size_t)jnum(jget(acc, "byteOffset"), 0);
    size_t stride = (size_t)jnum(jget(view, "byteStride"), (double)cs * *comps);
    CHECK(off + stride * (size_t)(*count - 1) + (size_t)cs * (size_t)*comps <= g->bin_size);
    double *out = malloc(sizeof(double) * (size_t)*count * (size_t)*comps);
    for (int k = 0; k < *count; k++)
        for (int c = 0; c < *comps; c++) {
            const unsigned char *p = g->bin + off + stride * (size_t)k + (size_t)cs * (size_t)c;
            double v;
            if (ct == 5126) {
                float f;
                uint32_t u = le32(p);
                memcpy(&f, &u, 4);
                v = f;
            } else if (ct == 5125) {
                v = le32(p);
            } else if (ct == 5123) {
                v = (double)(p[0] | p[1] << 8);
                if (normalized) v /= 65535.0;
            } else {
                v = p[0];
                if (normalized) v /= 255.0;
            }
            out[(size_t)k * (size_t)*comps + (size_t)c] = v;
        }
    return out;
}

/* Node world matrices from local TRS (parents first, by recursion). */
static void world_of(const gltf *g, int n, const double (*t)[3], const double (*r)[4], const double (*s)[3], m4 *world,
                     unsigned char *done) {
    if (done[n]) return;
    m4 local = m4_trs(t[n], r[n], s[n]);
    int p = g->parent[n];
    if (p >= 0) {
        world_of(g, p, t, r, s, world, done);
        world[n] = m4_mul(&world[p], &local);
    } else {
        world[n] = local;
    }
    done[n] = 1;
}

/* LINEAR channel value at time t (the spec: lerp, slerp for rotations). */
static void channel_at(const float *in, int n, const float *out, int w, double t, double *v) {
    int k = 0;
    while (k + 1 < n && in[k + 1] <= t) k++;
    if (k + 1 >= n || t <= in[k]) {
        for (int i = 0; i < w; i++) v[i] = out[(size_t)k * (size_t)w + (size_t)i];
        return;
    }
    double u = (t - in[k]) / (in[k + 1] - in[k]);
    const float *a = out + (size_t)k * (size_t)w, *b = a + w;
    if (w == 3) {
        for (int i = 0; i < 3; i++) v[i] = a[i] + (b[i] - a[i]) * u;
        return;
    }
    double qa[4] = {a[0], a[1], a[2], a[3]}, qb[4] = {b[0], b[1], b[2], b[3]};
    qnorm(qa), qnorm(qb);
    double d = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3], sg = d < 0 ? -1 : 1;
    d = fabs(d);
    double wa = 1 - u, wb = u;
    if (d < 1 - 1e-12) {
        double th = acos(d);
        wa = sin((1 - u) * th) / sin(th), wb = sin(u * th) / sin(th);
    }
    for (int i = 0; i < 4; i++) v[i] = wa * qa[i] + sg * wb * qb[i];
    qnorm(v);
}

/* At the rest pose every skin matrix is the identity; at a posed time the
 * skinned vertices equal sum_k w_k * world(joint_k) * inverse_bind_k * v
 * evaluated here from the file (nodes, channels, accessors). */
static void check_skins(const char *rel, const char *clip_name, double t) {
    char path[512];
    data_path(path, sizeof path, rel);
    gltf g;
    if (!gltf_open(&g, path)) {
        gltf_free(&g);
        return;
    }
    stance_asset a;
    stance_error err;
    stance_status st = stance_import_file(path, NULL, NULL, &a, &err);
    CHECK_OK(st);
    if (st) {
        fprintf(stderr, "%s\n", err.message);
        gltf_free(&g);
        return;
    }
    const stance_skeleton *sk = a.skeleton;
    const jv *skins = jget(&g.json, "skins"), *meshes = jget(&g.json, "meshes"), *nodes = jget(&g.json, "nodes");
    /* the file's skins, then "rigid" for meshes that hang from a joint */
    CHECK(a.skin_count == jlen(skins) || (a.skin_count == jlen(skins) + 1 && !strcmp(a.skins[jlen(skins)]->name, "rigid")));
    stance_pose local, model;
    CHECK_OK(stance_pose_create(&local, sk->joint_count, NULL, NULL));
    CHECK_OK(stance_pose_create(&model, sk->joint_count, NULL, NULL));
    float *mats = malloc(sizeof(float) * 16 * STANCE_MAX_SKIN_JOINTS);
    /* At the rest pose, a skin joint whose rest is its bind pose has an
     * identity skin matrix. Which joints those are comes from the file: the
     * world rest matrix x inverse bind equals the skin root's (the bind space
     * of the mesh). RobotExpressive's limbs rest in another pose than they
     * were bound in; its root, spine and feet are at their bind pose. */
    CHECK_OK(stance_pose_set_rest(&local, sk, NULL));
    CHECK_OK(stance_local_to_model(&model, &local, sk, NULL, NULL));
    double worst_bind = 0;
    int at_bind = 0, skin_joints = 0;
    {
        int N0 = g.node_count;
        m4 *rest_world = malloc(sizeof(m4) * (size_t)N0);
        unsigned char *done0 = calloc((size_t)N0, 1);
        for (int n = 0; n < N0; n++) world_of(&g, n, (const double (*)[3])g.t, (const double (*)[4])g.r, (const double (*)[3])g.s, rest_world, done0);
        for (int i = 0; i < a.skin_count && i < jlen(skins); i++) {
            const jv *joints = jget(jat(skins, i), "joints");
            int ibm_n = 0, ibm_c = 0;
            double *ibm = accessor_any(&g, (int)jnum(jget(jat(skins, i), "inverseBindMatrices"), -1), &ibm_n, &ibm_c);
            CHECK(ibm && ibm_n >= jlen(joints) && a.skins[i]->joint_count == jlen(joints));
            if (!ibm) continue;
            CHECK_OK(stance_skin_matrices(a.skins[i], &model, mats, STANCE_MAX_SKIN_JOINTS, NULL));
            /* the skin's root: the joint with no skin joint above it */
            int root = 0;
            for (int k = 0; k < jlen(joints); k++) {
                int n = (int)jnum(jat(joints, k), 0), above = 0;
                for (int p = g.parent[n]; p >= 0; p = g.parent[p])
                    for (int q = 0; q < jlen(joints); q++) above |= (int)jnum(jat(joints, q), -1) == p;
                if (!above) {
                    root = k;
                    break;
                }
            }
            m4 d_root, ib;
            memcpy(ib.m, ibm + 16 * root, sizeof ib.m);
            d_root = m4_mul(&rest_world[(int)jnum(jat(joints, root), 0)], &ib);
            double size = 0;
            for (int e = 0; e < 16; e++) size = fabs(d_root.m[e]) > size ? fabs(d_root.m[e]) : size;
            for (int k = 0; k < jlen(joints) && k < a.skins[i]->joint_count; k++, skin_joints++) {
                memcpy(ib.m, ibm + 16 * k, sizeof ib.m);
                m4 d = m4_mul(&rest_world[(int)jnum(jat(joints, k), 0)], &ib);
                double off = 0;
                for (int e = 0; e < 16; e++) off = fabs(d.m[e] - d_root.m[e]) > off ? fabs(d.m[e] - d_root.m[e]) : off;
                if (off > 1e-4 * size) continue;
                at_bind++;
                for (int e = 0; e < 16; e++) {
                    double dd = fabs(mats[16 * k + e] - (e % 5 == 0 ? 1.0 : 0.0));
                    if (dd > worst_bind) worst_bind = dd;
                }
            }
            free(ibm);
        }
        free(rest_world), free(done0);
    }
    CHECK(at_bind > 0 && worst_bind <= 1e-4);

    /* The bind pose itself, from the file: joint k's world at bind is
     * D_root x inverse_bind_k^-1. In stance's model space (the file's world,
     * the uniform scale above the skeleton moved out of the joints' frames)
     * that pose gives identity skin matrices for every joint. */
    double worst_true_bind = 0;
    int bind_checked = 0;
    {
        m4 *rest_world = malloc(sizeof(m4) * (size_t)g.node_count);
        unsigned char *done0 = calloc((size_t)g.node_count, 1);
        for (int n = 0; n < g.node_count; n++) world_of(&g, n, (const double (*)[3])g.t, (const double (*)[4])g.r, (const double (*)[3])g.s, rest_world, done0);
        /* the scale above the skeleton: the world scale of the root joint's parent */
        int root_node = -1;
        for (int n = 0; n < g.node_count; n++)
            if (!strcmp(node_name(&g, n), stance_skeleton_joint_name(sk, 0))) root_node = n;
        double above_s = 1;
        if (root_node >= 0 && g.parent[root_node] >= 0) {
            const double *m = rest_world[g.parent[root_node]].m;
            above_s = (sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]) + sqrt(m[4] * m[4] + m[5] * m[5] + m[6] * m[6]) +
                       sqrt(m[8] * m[8] + m[9] * m[9] + m[10] * m[10])) / 3;
        }
        for (int i = 0; i < a.skin_count && i < jlen(skins); i++) {
            const jv *joints = jget(jat(skins, i), "joints");
            int nj = jlen(joints), ibm_n = 0, ibm_c = 0;
            double *ibm = accessor_any(&g, (int)jnum(jget(jat(skins, i), "inverseBindMatrices"), -1), &ibm_n, &ibm_c);
            if (!ibm) continue;
            int root = 0;
            for (int k = 0; k < nj; k++) {
                int n = (int)jnum(jat(joints, k), 0), above = 0;
                for (int p = g.parent[n]; p >= 0; p = g.parent[p])
                    for (int q = 0; q < nj; q++) above |= (int)jnum(jat(joints, q), -1) == p;
                if (!above) {
                    root = k;
                    break;
                }
            }
            m4 ib, d_root;
            memcpy(ib.m, ibm + 16 * root, sizeof ib.m);
            d_root = m4_mul(&rest_world[(int)jnum(jat(joints, root), 0)], &ib);
            CHECK_OK(stance_pose_set_rest(&model, sk, NULL)); /* joints outside the skin: any value */
            for (int k = 0; k < nj; k++) {
                const char *nm = node_name(&g, (int)jnum(jat(joints, k), 0));
                int j = -1;
                for (int q = 0; q < sk->joint_count; q++)
                    if (!strcmp(stance_skeleton_joint_name(sk, q), nm)) j = q;
                CHECK(j >= 0 && a.skins[i]->joints[k] == j);
                if (j < 0) continue;
                /* B = D_root x inverse(inverse_bind): the inverse of an affine 4x4 */
                const double *m = ibm + 16 * k;
                double det = m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2]) + m[8] * (m[1] * m[6] - m[5] * m[2]);
                m4 inv;
                memset(&inv, 0, sizeof inv);
                inv.m[0] = (m[5] * m[10] - m[9] * m[6]) / det, inv.m[4] = (m[8] * m[6] - m[4] * m[10]) / det, inv.m[8] = (m[4] * m[9] - m[8] * m[5]) / det;
                inv.m[1] = (m[9] * m[2] - m[1] * m[10]) / det, inv.m[5] = (m[0] * m[10] - m[8] * m[2]) / det, inv.m[9] = (m[8] * m[1] - m[0] * m[9]) / det;
                inv.m[2] = (m[1] * m[6] - m[5] * m[2]) / det, inv.m[6] = (m[4] * m[2] - m[0] * m[6]) / det, inv.m[10] = (m[0] * m[5] - m[4] * m[1]) / det;
                for (int r = 0; r < 3; r++) inv.m[12 + r] = -(inv.m[r] * m[12] + inv.m[4 + r] * m[13] + inv.m[8 + r] * m[14]);
                inv.m[15] = 1;
                m4 b = m4_mul(&d_root, &inv);
                /* its translation, rotation and scale (no mirror in these files) */
                double sc[3], R[9];
                for (int c = 0; c < 3; c++) {
                    sc[c] = sqrt(b.m[4 * c] * b.m[4 * c] + b.m[4 * c + 1] * b.m[4 * c + 1] + b.m[4 * c + 2] * b.m[4 * c + 2]);
                    for (int r = 0; r < 3; r++) R[3 * c + r] = b.m[4 * c + r] / sc[c]; /* R[col][row] */
                }
                double q[4], tr = R[0] + R[4] + R[8];
                if (tr > 0) {
                    double w = sqrt(tr + 1) * 2;
                    q[3] = 0.25 * w, q[0] = (R[5] - R[7]) / w, q[1] = (R[6] - R[2]) / w, q[2] = (R[1] - R[3]) / w;
                } else if (R[0] > R[4] && R[0] > R[8]) {
                    double w = sqrt(1 + R[0] - R[4] - R[8]) * 2;
                    q[3] = (R[5] - R[7]) / w, q[0] = 0.25 * w, q[1] = (R[3] + R[1]) / w, q[2] = (R[6] + R[2]) / w;
                } else if (R[4] > R[8]) {
                    double w = sqrt(1 + R[4] - R[0] - R[8]) * 2;
                    q[3] = (R[6] - R[2]) / w, q[0] = (R[3] + R[1]) / w, q[1] = 0.25 * w, q[2] = (R[7] + R[5]) / w;
                } else {
                    double w = sqrt(1 + R[8] - R[0] - R[4]) * 2;
                    q[3] = (R[1] - R[3]) / w, q[0] = (R[6] + R[2]) / w, q[1] = (R[7] + R[5]) / w, q[2] = 0.25 * w;
                }
                qnorm(q);
                model.tx[j] = (float)b.m[12], model.ty[j] = (float)b.m[13], model.tz[j] = (float)b.m[14];
                model.qx[j] = (float)q[0], model.qy[j] = (float)q[1], model.qz[j] = (float)q[2], model.qw[j] = (float)q[3];
                model.sx[j] = (float)(sc[0] / above_s), model.sy[j] = (float)(sc[1] / above_s), model.sz[j] = (float)(sc[2] / above_s);
            }
            CHECK_OK(stance_skin_matrices(a.skins[i], &model, mats, STANCE_MAX_SKIN_JOINTS, NULL));
            for (int k = 0; k < a.skins[i]->joint_count; k++, bind_checked++)
                for (int e = 0; e < 16; e++) {
                    double dd = fabs(mats[16 * k + e] - (e % 5 == 0 ? 1.0 : 0.0));
                    if (dd > worst_true_bind) worst_true_bind = dd;
                }
            free(ibm);
        }
        free(rest_world), free(done0);
    }
    CHECK(bind_checked > 0 && worst_true_bind <= 1e-4);

    /* the posed frame: node TRS from the file, animated by the clip's channels */
    int N = g.node_count;
    double (*nt)[3] = malloc(sizeof(*nt) * (size_t)N), (*nr)[4] = malloc(sizeof(*nr) * (size_t)N), (*ns)[3] = malloc(sizeof(*ns) * (size_t)N);
    memcpy(nt, g.t, sizeof(*nt) * (size_t)N), memcpy(nr, g.r, sizeof(*nr) * (size_t)N), memcpy(ns, g.s, sizeof(*ns) * (size_t)N);
    const jv *anims = jget(&g.json, "animations");
    for (int ai = 0; ai < jlen(anims); ai++) {
        const jv *an = jat(anims, ai), *name = jget(an, "name");
        if (!name || name->type != J_STR || strcmp(name->str, clip_name)) continue;
        const jv *channels = jget(an, "channels"), *samplers = jget(an, "samplers");
        for (int c = 0; c < jlen(channels); c++) {
            const jv *ch = jat(channels, c), *target = jget(ch, "target"), *pth = jget(target, "path");
            const jv *smp = jat(samplers, (int)jnum(jget(ch, "sampler"), -1));
            int node = (int)jnum(jget(target, "node"), -1), n_in = 0, n_out = 0, ci = 0, co = 0;
            if (!pth || pth->type != J_STR || node < 0 || node >= N || !strcmp(pth->str, "weights")) continue;
            float *in = accessor_floats(&g, (int)jnum(jget(smp, "input"), -1), &n_in, &ci);
            float *out = accessor_floats(&g, (int)jnum(jget(smp, "output"), -1), &n_out, &co);
            if (in && out) {
                if (!strcmp(pth->str, "translation")) channel_at(in, n_in, out, 3, t, nt[node]);
                else if (!strcmp(pth->str, "rotation")) channel_at(in, n_in, out, 4, t, nr[node]);
                else if (!strcmp(pth->str, "scale")) channel_at(in, n_in, out, 3, t, ns[node]);
            }
            free(in), free(out);
        }
    }
    m4 *world = malloc(sizeof(m4) * (size_t)N);
    unsigned char *done = calloc((size_t)N, 1);
    for (int n = 0; n < N; n++) world_of(&g, n, (const double (*)[3])nt, (const double (*)[4])nr, (const double (*)[3])ns, world, done);
    const stance_clip *clip = stance_asset_find_clip(&a, clip_name);
    CHECK(clip != NULL);
    if (clip) {
        CHECK_OK(stance_clip_sample(clip, (float)t, NULL, &local, NULL));
        CHECK_OK(stance_local_to_model(&model, &local, sk, NULL, NULL));
    }
    int mi = 0;
    long vertices = 0;
    double worst = 0, size = 0;
    for (int n = 0; n < N && clip; n++) {
        const jv *node = jat(nodes, n);
        int skin = (int)jnum(jget(node, "skin"), -1), mesh = (int)jnum(jget(node, "mesh"), -1);
        if (skin < 0 || mesh < 0) continue;
        const jv *joints = jget(jat(skins, skin), "joints");
        int nj = jlen(joints), ibm_n = 0, ibm_c = 0;
        double *ibm = accessor_any(&g, (int)jnum(jget(jat(skins, skin), "inverseBindMatrices"), -1), &ibm_n, &ibm_c);
        const jv *prims = jget(jat(meshes, mesh), "primitives");
        for (int p = 0; p < jlen(prims) && ibm && mi < a.mesh_count; p++, mi++) {
            const stance_mesh *m = a.meshes[mi];
            const jv *attrs = jget(jat(prims, p), "attributes");
            int vc = 0, c3 = 0, jc = 0, c4 = 0, wc = 0, c4b = 0;
            double *pos = accessor_any(&g, (int)jnum(jget(attrs, "POSITION"), -1), &vc, &c3);
            double *jo = accessor_any(&g, (int)jnum(jget(attrs, "JOINTS_0"), -1), &jc, &c4);
            double *we = accessor_any(&g, (int)jnum(jget(attrs, "WEIGHTS_0"), -1), &wc, &c4b);
            CHECK(m->vertex_count == vc && jc == vc && wc == vc && c3 == 3 && c4 == 4 && c4b == 4);
            CHECK_OK(stance_skin_matrices(a.skins[m->skin], &model, mats, STANCE_MAX_SKIN_JOINTS, NULL));
            for (int v = 0; v < vc && m->vertex_count == vc; v++, vertices++) {
                double want[3] = {0, 0, 0}, got[3] = {0, 0, 0}, wsum = 0;
                for (int k = 0; k < 4; k++) wsum += we[4 * v + k];
                for (int k = 0; k < 4; k++) {
                    double w = we[4 * v + k] / wsum;
                    int j = (int)jo[4 * v + k];
                    if (w == 0 || j >= nj) continue;
                    m4 ib;
                    memcpy(ib.m, ibm + 16 * j, sizeof ib.m);
                    m4 sm = m4_mul(&world[(int)jnum(jat(joints, j), 0)], &ib);
                    const double *x = pos + 3 * v;
                    for (int r = 0; r < 3; r++) want[r] += w * (sm.m[r] * x[0] + sm.m[4 + r] * x[1] + sm.m[8 + r] * x[2] + sm.m[12 + r]);
                }
                for (int k = 0; k < 4; k++) {
                    const float *M = mats + 16 * m->joints[4 * v + k];
                    const float *x = m->positions + 3 * v;
                    double w = m->weights[4 * v + k];
                    for (int r = 0; r < 3; r++) got[r] += w * (M[r] * x[0] + M[4 + r] * x[1] + M[8 + r] * x[2] + M[12 + r]);
                }
                for (int r = 0; r < 3; r++) {
                    if (fabs(got[r] - want[r]) > worst) worst = fabs(got[r] - want[r]);
                    if (fabs(want[r]) > size) size = fabs(want[r]);
                }
            }
            free(pos), free(jo), free(we);
        }
        free(ibm);
    }
    /* meshes without a skin that hang from a joint follow it rigidly: the
     * file's node world matrix x vertex */
    long rigid_vertices = 0;
    for (int n = 0; n < N && clip; n++) {
        const jv *node = jat(nodes, n);
        int mesh = (int)jnum(jget(node, "mesh"), -1);
        if (mesh < 0 || jget(node, "skin")) continue;
        int under = 0;
        for (int q = n; q >= 0 && !under; q = g.parent[q])
            for (int j = 0; j < sk->joint_count; j++) under |= !strcmp(stance_skeleton_joint_name(sk, j), node_name(&g, q));
        if (!under) continue;
        const jv *prims = jget(jat(meshes, mesh), "primitives");
        for (int p = 0; p < jlen(prims) && mi < a.mesh_count; p++, mi++) {
            const stance_mesh *m = a.meshes[mi];
            int vc = 0, c3 = 0;
            double *pos = accessor_any(&g, (int)jnum(jget(jget(jat(prims, p), "attributes"), "POSITION"), -1), &vc, &c3);
            CHECK(pos && m->vertex_count == vc && c3 == 3 && m->skin >= 0);
            if (!pos || m->vertex_count != vc) {
                free(pos);
                continue;
            }
            CHECK_OK(stance_skin_matrices(a.skins[m->skin], &model, mats, STANCE_MAX_SKIN_JOINTS, NULL));
            const m4 *W = &world[n];
            for (int v = 0; v < vc; v++, rigid_vertices++) {
                const double *x = pos + 3 * v;
                double want[3], got[3] = {0, 0, 0};
                for (int r = 0; r < 3; r++) want[r] = W->m[r] * x[0] + W->m[4 + r] * x[1] + W->m[8 + r] * x[2] + W->m[12 + r];
                for (int k = 0; k < 4; k++) {
                    const float *M = mats + 16 * m->joints[4 * v + k];
                    const float *y = m->positions + 3 * v;
                    double w = m->weights[4 * v + k];
                    for (int r = 0; r < 3; r++) got[r] += w * (M[r] * y[0] + M[4 + r] * y[1] + M[8 + r] * y[2] + M[12 + r]);
                }
                for (int r = 0; r < 3; r++) {
                    if (fabs(got[r] - want[r]) > worst) worst = fabs(got[r] - want[r]);
                    if (fabs(want[r]) > size) size = fabs(want[r]);
                }
            }
            free(pos);
        }
    }
    CHECK(mi == a.mesh_count && vertices > 0);
    CHECK(worst <= 1e-4 * (size > 1 ? size : 1));
    printf("     %s: %d skins, %d meshes; bind pose (from the inverse binds): %d skin matrices within %.2g of identity; rest "
           "pose: %d of %d skin joints at their bind pose, within %.2g of identity; '%s' at %.3f s: %ld skinned and %ld "
           "rigid vertices within %.2g of the file's (extent %.3g)\n",
           rel, a.skin_count, a.mesh_count, bind_checked, worst_true_bind, at_bind, skin_joints, worst_bind, clip_name, t,
           vertices, rigid_vertices, worst, size);
    free(nt), free(nr), free(ns), free(world), free(done), free(mats);
    stance_pose_destroy(&local);
    stance_pose_destroy(&model);
    stance_asset_destroy(&a);
    gltf_free(&g);
}

static void test_robot_skins(void) { check_skins("robot_expressive/RobotExpressive.glb", "Wave", 0.61); }
static void test_fox_skins(void) { check_skins("fox/Fox.glb", "Run", 0.4); }
/* rest pose = bind pose for the whole Fox: every skin matrix is the identity there */

int main(void) {
    RUN(test_robot_skins);
    RUN(test_fox_skins);
    return check_summary();
}
