/* tests/test_builtin_mesh.c - the built-in character's skin and mesh: the
 * skin matrices are the identity at the rest pose; the mesh is closed (every
 * edge shared by exactly two triangles, in opposite directions) and every
 * triangle faces outwards from its capsule's axis, the pole-to-pole segment
 * found from the vertices here, on which the bone's joint lies; weights sum
 * to 1; posed frames of every clip, skinned here by linear blend skinning,
 * stretch no edge (posed / rest length) beyond a bound that the same mesh
 * with hard (one-joint) weights exceeds; the character through a .stance file keeps
 * its skin and mesh; allocation failures leak nothing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stance/stance.h"
#include "stance/build.h"
#include "stance_lesson/stance_lesson.h"
#include "core/base/platform.h" /* st_aligned_alloc / st_aligned_free */

/* The bound on edge stretch (posed length / rest length). Linear blend
 * skinning compresses the inside of a bend with any weights; what hard
 * weights add is a tear on the outside, where neighbours follow different
 * joints: edges there stretch several times over. */
#define MAX_STRETCH 2.5

static stance_builtin g_b;

static double dist3(const float *a, const float *b) {
    double x = a[0] - b[0], y = a[1] - b[1], z = a[2] - b[2];
    return sqrt(x * x + y * y + z * z);
}

static void rest_model(stance_pose *local, stance_pose *model) {
    CHECK_OK(stance_pose_set_rest(local, g_b.skeleton, NULL));
    CHECK_OK(stance_local_to_model(model, local, g_b.skeleton, NULL, NULL));
}

static void test_bind_pose(void) {
    const stance_skin *skin = g_b.skin;
    CHECK(skin && g_b.mesh);
    if (!skin || !g_b.mesh) return;
    CHECK(skin->joint_count == g_b.skeleton->joint_count && g_b.mesh->skin == 0);
    CHECK(g_b.mesh->joints && g_b.mesh->weights && g_b.mesh->normals);
    stance_pose local, model;
    CHECK_OK(stance_pose_create(&local, g_b.skeleton->joint_count, NULL, NULL));
    CHECK_OK(stance_pose_create(&model, g_b.skeleton->joint_count, NULL, NULL));
    rest_model(&local, &model);
    float *m = malloc(sizeof(float) * 16 * (size_t)skin->joint_count);
    CHECK_OK(stance_skin_matrices(skin, &model, m, skin->joint_count, NULL));
    double worst = 0;
    for (int k = 0; k < skin->joint_count; k++)
        for (int e = 0; e < 16; e++) {
            double d = fabs(m[16 * k + e] - (e % 5 == 0 ? 1.0 : 0.0));
            if (d > worst) worst = d;
        }
    printf("  %d vertices, %d triangles; bind pose: largest deviation from identity %.3g\n", g_b.mesh->vertex_count,
           g_b.mesh->index_count / 3, worst);
    CHECK(worst <= 1e-4);
    free(m);
    stance_pose_destroy(&local);
    stance_pose_destroy(&model);
}

/* connected components of the triangle graph, by union-find on vertices */
static int find_root(int *parent, int v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
}

static int dominant_joint(const stance_mesh *m, int v) {
    int best = 0;
    for (int k = 1; k < 4; k++)
        if (m->weights[4 * v + k] > m->weights[4 * v + best]) best = k;
    return m->joints[4 * v + best];
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_closed_and_outward(void) {
    const stance_mesh *m = g_b.mesh;
    if (!m) return;
    const int V = m->vertex_count, T = m->index_count / 3;
    const uint32_t *ix = m->indices;
    /* closed and consistently wound: each directed edge once, its reverse once */
    uint64_t *edges = malloc(sizeof(uint64_t) * 3 * (size_t)T);
    for (int t = 0; t < T; t++)
        for (int e = 0; e < 3; e++)
            edges[3 * t + e] = (uint64_t)ix[3 * t + e] << 32 | ix[3 * t + (e + 1) % 3];
    qsort(edges, 3 * (size_t)T, sizeof *edges, cmp_u64);
    long bad_edges = 0;
    for (size_t i = 0; i < 3 * (size_t)T; i++) {
        uint64_t rev = edges[i] << 32 | edges[i] >> 32;
        int twice = (i > 0 && edges[i - 1] == edges[i]) || (i + 1 < 3 * (size_t)T && edges[i + 1] == edges[i]);
        bad_edges += twice || !bsearch(&rev, edges, 3 * (size_t)T, sizeof *edges, cmp_u64);
    }
    free(edges);
    CHECK(bad_edges == 0);

    int *parent = malloc(sizeof(int) * (size_t)V);
    for (int v = 0; v < V; v++) parent[v] = v;
    for (int t = 0; t < 3 * T; t += 3) {
        int a = find_root(parent, (int)ix[t]), b = find_root(parent, (int)ix[t + 1]), c = find_root(parent, (int)ix[t + 2]);
        parent[b] = a;
        parent[find_root(parent, c)] = a;
    }
    stance_pose local, model;
    CHECK_OK(stance_pose_create(&local, g_b.skeleton->joint_count, NULL, NULL));
    CHECK_OK(stance_pose_create(&model, g_b.skeleton->joint_count, NULL, NULL));
    rest_model(&local, &model);
    int components = 0;
    long inward = 0, checked = 0;
    int *members = malloc(sizeof(int) * (size_t)V);
    for (int r = 0; r < V; r++) {
        if (find_root(parent, r) != r) continue;
        components++;
        int n = 0;
        for (int v = 0; v < V; v++)
            if (find_root(parent, v) == r) members[n++] = v;
        /* the axis: the two vertices farthest apart (the poles) */
        int pa = members[0], pb = members[0];
        double far = -1;
        for (int i = 0; i < n; i++)
            for (int k = i + 1; k < n; k++) {
                double d = dist3(m->positions + 3 * members[i], m->positions + 3 * members[k]);
                if (d > far) far = d, pa = members[i], pb = members[k];
            }
        const float *A = m->positions + 3 * pa, *B = m->positions + 3 * pb;
        double ab[3] = {B[0] - A[0], B[1] - A[1], B[2] - A[2]}, ab2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
        /* the bone's joint (the joint most vertices follow) lies on the axis */
        int votes[STANCE_MAX_JOINTS] = {0}, joint = 0;
        for (int i = 0; i < n; i++) votes[dominant_joint(m, members[i])]++;
        for (int j = 0; j < g_b.skeleton->joint_count; j++)
            if (votes[j] > votes[joint]) joint = j;
        const float P[3] = {model.tx[joint], model.ty[joint], model.tz[joint]};
        double s = ((P[0] - A[0]) * ab[0] + (P[1] - A[1]) * ab[1] + (P[2] - A[2]) * ab[2]) / ab2;
        double off = 0;
        for (int c = 0; c < 3; c++) off += pow(P[c] - (A[c] + s * ab[c]), 2);
        CHECK(sqrt(off) < 1e-3 && s > 0 && s < 1);
        /* every triangle of the component faces away from the axis */
        for (int t = 0; t < T; t++) {
            if (find_root(parent, (int)ix[3 * t]) != r) continue;
            const float *p0 = m->positions + 3 * ix[3 * t], *p1 = m->positions + 3 * ix[3 * t + 1], *p2 = m->positions + 3 * ix[3 * t + 2];
            double e1[3], e2[3], q[3], nrm[3];
            for (int c = 0; c < 3; c++) e1[c] = p1[c] - p0[c], e2[c] = p2[c] - p0[c], q[c] = (p0[c] + p1[c] + p2[c]) / 3;
            nrm[0] = e1[1] * e2[2] - e1[2] * e2[1], nrm[1] = e1[2] * e2[0] - e1[0] * e2[2], nrm[2] = e1[0] * e2[1] - e1[1] * e2[0];
            double u = ((q[0] - A[0]) * ab[0] + (q[1] - A[1]) * ab[1] + (q[2] - A[2]) * ab[2]) / ab2;
            u = u < 0 ? 0 : u > 1 ? 1 : u;
            double out = 0;
            for (int c = 0; c < 3; c++) out += nrm[c] * (q[c] - (A[c] + u * ab[c]));
            checked++;
            inward += !(out > 0);
        }
    }
    printf("  %d closed components (one per bone), %ld triangles checked, %ld facing inwards\n", components, checked, inward);
    CHECK(components >= 20 && checked == T && inward == 0);
    /* unit normals, weights >= 0 on skin joints, summing to 1 */
    for (int v = 0; v < V; v++) {
        const float *nv = m->normals + 3 * v;
        CHECK_NEAR(sqrt(nv[0] * nv[0] + nv[1] * nv[1] + nv[2] * nv[2]), 1.0, 1e-5);
        double s = 0;
        for (int k = 0; k < 4; k++) {
            CHECK(m->weights[4 * v + k] >= 0.0f && m->joints[4 * v + k] < g_b.skin->joint_count);
            s += m->weights[4 * v + k];
        }
        CHECK_NEAR(s, 1.0, 1e-6);
    }
    free(members);
    free(parent);
    stance_pose_destroy(&local);
    stance_pose_destroy(&model);
}

/* Linear blend skinning (written here) of every vertex with the runtime's
 * skin matrices; returns the largest edge stretch. */
static double worst_stretch(const stance_mesh *m, const float *weights, const float *mats) {
    const int V = m->vertex_count;
    float *p = malloc(sizeof(float) * 3 * (size_t)V);
    for (int v = 0; v < V; v++) {
        const float *x = m->positions + 3 * v;
        double o[3] = {0, 0, 0};
        for (int k = 0; k < 4; k++) {
            const float *M = mats + 16 * m->joints[4 * v + k];
            double w = weights[4 * v + k];
            for (int r = 0; r < 3; r++) o[r] += w * (M[r] * x[0] + M[4 + r] * x[1] + M[8 + r] * x[2] + M[12 + r]);
        }
        for (int r = 0; r < 3; r++) p[3 * v + r] = (float)o[r];
    }
    double worst = 1;
    for (int t = 0; t < m->index_count; t += 3)
        for (int e = 0; e < 3; e++) {
            uint32_t a = m->indices[t + e], b = m->indices[t + (e + 1) % 3];
            double rest = dist3(m->positions + 3 * a, m->positions + 3 * b), posed = dist3(p + 3 * a, p + 3 * b);
            double s = posed / rest;
            if (s > worst) worst = s;
        }
    free(p);
    return worst;
}

static void test_posed_smooth(void) {
    const stance_mesh *m = g_b.mesh;
    if (!m) return;
    const int V = m->vertex_count, J = g_b.skeleton->joint_count;
    /* the same mesh with hard weights: everything on the dominant joint */
    float *hard = malloc(sizeof(float) * 4 * (size_t)V);
    for (int v = 0; v < V; v++) {
        int best = 0;
        for (int k = 1; k < 4; k++)
            if (m->weights[4 * v + k] > m->weights[4 * v + best]) best = k;
        for (int k = 0; k < 4; k++) hard[4 * v + k] = k == best ? 1.0f : 0.0f;
    }
    stance_pose local, model;
    CHECK_OK(stance_pose_create(&local, J, NULL, NULL));
    CHECK_OK(stance_pose_create(&model, J, NULL, NULL));
    float *mats = malloc(sizeof(float) * 16 * (size_t)J);
    double smooth_worst = 0, hard_worst = 0;
    for (int c = 0; c < g_b.clip_count; c++) {
        const stance_clip *clip = g_b.clips[c];
        for (int f = 0; f < 8; f++) {
            CHECK_OK(stance_clip_sample(clip, clip->duration * (float)f / 8.0f, NULL, &local, NULL));
            CHECK_OK(stance_local_to_model(&model, &local, g_b.skeleton, NULL, NULL));
            CHECK_OK(stance_skin_matrices(g_b.skin, &model, mats, J, NULL));
            double s = worst_stretch(m, m->weights, mats);
            double h = worst_stretch(m, hard, mats);
            if (s > smooth_worst) smooth_worst = s;
            if (h > hard_worst) hard_worst = h;
        }
    }
    printf("  posed frames (8 per clip): largest edge stretch %.3f with the mesh's weights, %.3f with hard weights (bound %.2f)\n",
           smooth_worst, hard_worst, MAX_STRETCH);
    CHECK(smooth_worst <= MAX_STRETCH);
    CHECK(hard_worst > MAX_STRETCH); /* the bound tells smooth weights from hard ones */
    free(mats);
    free(hard);
    stance_pose_destroy(&local);
    stance_pose_destroy(&model);
}

/* save and load through .stance: the skin and mesh come back bit for bit */
static void test_through_file(void) {
    stance_asset a;
    memset(&a, 0, sizeof a);
    a.skeleton = g_b.skeleton;
    a.clip_count = g_b.clip_count;
    a.clips = g_b.clips;
    a.skin_count = 1;
    a.skins = &g_b.skin;
    a.mesh_count = 1;
    a.meshes = &g_b.mesh;
    void *bytes = NULL;
    size_t size = 0;
    stance_error err;
    CHECK_OK(stance_asset_save_memory(&a, &bytes, &size, NULL, &err));
    stance_asset b;
    CHECK_OK(stance_asset_load_memory(bytes, size, NULL, &b, &err));
    printf("  the character as a .stance file: %zu bytes\n", size);
    CHECK(b.skin_count == 1 && b.mesh_count == 1);
    if (b.mesh_count == 1) {
        const stance_mesh *p = g_b.mesh, *q = b.meshes[0];
        CHECK(p->vertex_count == q->vertex_count && p->index_count == q->index_count);
        CHECK(!memcmp(p->positions, q->positions, sizeof(float) * 3 * (size_t)p->vertex_count));
        CHECK(!memcmp(p->normals, q->normals, sizeof(float) * 3 * (size_t)p->vertex_count));
        CHECK(!memcmp(p->weights, q->weights, sizeof(float) * 4 * (size_t)p->vertex_count));
        CHECK(!memcmp(p->base_color, q->base_color, sizeof p->base_color));
        CHECK(!memcmp(g_b.skin->inverse_bind, b.skins[0]->inverse_bind, sizeof(float) * 16 * (size_t)g_b.skin->joint_count));
    }
    stance_asset_destroy(&b);
    stance_asset_free_bytes(bytes, size, NULL);
}

typedef struct counter { long allocs; long long live; int fail_after; } counter;
static void *count_alloc(void *u, size_t size, size_t align) {
    counter *c = u;
    if (c->fail_after >= 0 && c->allocs >= c->fail_after) return NULL;
    c->allocs++;
    c->live += (long long)size;
    return st_aligned_alloc(align < 8 ? 8 : align, (size + align - 1) / align * align);
}
static void count_free(void *u, void *p, size_t size) {
    counter *c = u;
    c->live -= (long long)size;
    st_aligned_free(p);
}

static void test_allocation_failures(void) {
    counter all = {0, 0, -1};
    stance_allocator al = {count_alloc, count_free, &all};
    stance_builtin b;
    CHECK_OK(stance_builtin_create(&al, &b, NULL));
    stance_builtin_destroy(&b);
    CHECK(all.live == 0 && b.skin == NULL && b.mesh == NULL);
    /* the last three allocations are the mesh's temporaries, the skin and the mesh */
    for (long n = all.allocs - 3; n < all.allocs; n++) {
        counter c = {0, 0, (int)n};
        stance_allocator fl = {count_alloc, count_free, &c};
        stance_error err;
        CHECK_STATUS(stance_builtin_create(&fl, &b, &err), STANCE_ERR_MEMORY);
        CHECK(c.live == 0 && b.skeleton == NULL && b.skin == NULL && b.mesh == NULL);
    }
}

int main(void) {
    stance_error err;
    if (stance_builtin_create(NULL, &g_b, &err)) {
        fprintf(stderr, "builtin: %s\n", err.message);
        return 1;
    }
    RUN(test_bind_pose);
    RUN(test_closed_and_outward);
    RUN(test_posed_smooth);
    RUN(test_through_file);
    RUN(test_allocation_failures);
    stance_builtin_destroy(&g_b);
    return check_summary();
}
