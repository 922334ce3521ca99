/* lab/lab_crowd.c - the crowd view: N instances of the lesson's graph on the
 * built-in character (one shared graph), each with its own speed schedule and
 * jumps, updated together in WebAssembly; the update's time is measured here
 * (emscripten_get_now) and the skinning matrices of all of them are written to
 * one array that JavaScript uploads once per frame for an instanced draw.
 * A low-detail mesh for the crowd (a four-sided prism per bone, each vertex
 * bound to its bone's joint) is built here from the rest pose, in the
 * built-in skin's bind space (its inverse binds are the rest pose's). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"

#define CROWD_MAX 400
#define CROWD_AREA 24.0f /* metres: characters walk along +z and wrap around */

static struct {
    stance_graph *graph;
    stance_workspace *ws;      /* one for all: they update one after another */
    stance_instance *inst[CROWD_MAX];
    int n, joints, p_speed, p_jump;
    float *matrices;           /* n * joints * 16 */
    float place[CROWD_MAX][4]; /* x, y, z, facing (radians) */
    float phase[CROWD_MAX], rate[CROWD_MAX], top[CROWD_MAX], next_jump[CROWD_MAX];
    float time;
    double update_ms, skin_ms;  /* the last frame's */
    double avg_ms;              /* update + skinning, smoothed over about 1 s */
} cr;

/* ---- the crowd's low-detail mesh ------------------------------------------ */

#define LOD_SIDES 4
#define LOD_MAX_V (STANCE_MAX_JOINTS * LOD_SIDES * 2)
#define LOD_MAX_I (STANCE_MAX_JOINTS * LOD_SIDES * 6)
static struct {
    int vertices, indices;
    float pos[LOD_MAX_V * 3], nrm[LOD_MAX_V * 3], wgt[LOD_MAX_V * 4];
    uint16_t jnt[LOD_MAX_V * 4];
    uint32_t idx[LOD_MAX_I];
} lod;

static void lod_vertex(const float p[3], const float n[3], int joint) {
    int v = lod.vertices++;
    for (int k = 0; k < 3; k++) lod.pos[3 * v + k] = p[k], lod.nrm[3 * v + k] = n[k];
    for (int k = 0; k < 4; k++) lod.jnt[4 * v + k] = (uint16_t)(k ? 0 : joint), lod.wgt[4 * v + k] = k ? 0.0f : 1.0f;
}

/* One prism from joint a's rest position to its child b's, bound to a. */
static void lod_bone(const float a[3], const float b[3], float radius, int joint) {
    float d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (len < 1e-4f || lod.vertices + 2 * LOD_SIDES > LOD_MAX_V) return;
    for (int k = 0; k < 3; k++) d[k] /= len;
    float up[3] = {fabsf(d[1]) < 0.9f ? 0.0f : 1.0f, fabsf(d[1]) < 0.9f ? 1.0f : 0.0f, 0.0f};
    float u[3] = {up[1] * d[2] - up[2] * d[1], up[2] * d[0] - up[0] * d[2], up[0] * d[1] - up[1] * d[0]};
    float ul = sqrtf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int k = 0; k < 3; k++) u[k] /= ul;
    float w[3] = {d[1] * u[2] - d[2] * u[1], d[2] * u[0] - d[0] * u[2], d[0] * u[1] - d[1] * u[0]};
    int first = lod.vertices;
    /* 2 vertices per corner, the normal pointing out of the corner */
    for (int s = 0; s < LOD_SIDES; s++) {
        float t = 6.2831853f * (float)s / LOD_SIDES, c = cosf(t), sn = sinf(t);
        float n[3] = {c * u[0] + sn * w[0], c * u[1] + sn * w[1], c * u[2] + sn * w[2]};
        float p0[3], p1[3];
        for (int k = 0; k < 3; k++) p0[k] = a[k] + radius * n[k], p1[k] = b[k] + radius * 0.8f * n[k];
        lod_vertex(p0, n, joint);
        lod_vertex(p1, n, joint);
    }
    for (int s = 0; s < LOD_SIDES; s++) {
        uint32_t i0 = (uint32_t)(first + 2 * s), i1 = (uint32_t)(first + 2 * ((s + 1) % LOD_SIDES));
        uint32_t q[6] = {i0, i1, i0 + 1, i1, i1 + 1, i0 + 1};
        for (int k = 0; k < 6; k++) lod.idx[lod.indices++] = q[k];
    }
    /* no caps: the prisms overlap at the joints, and a vertex saved counts (SwiftShader) */
}

static int lod_build(const stance_skeleton *sk) {
    stance_pose l, m;
    stance_error err = {0};
    if (stance_pose_create(&l, sk->joint_count, NULL, &err)) return lab_fail("crowd: %s", err.message);
    if (stance_pose_create(&m, sk->joint_count, NULL, &err)) { stance_pose_destroy(&l); return lab_fail("crowd: %s", err.message); }
    stance_pose_set_rest(&l, sk);
    stance_local_to_model(&m, &l, sk, NULL);
    lod.vertices = lod.indices = 0;
    for (int j = 1; j < sk->joint_count; j++) {
        int p = sk->parents[j];
        if (p <= 0) continue; /* the root marker has no bone */
        float a[3] = {m.tx[p], m.ty[p], m.tz[p]}, b[3] = {m.tx[j], m.ty[j], m.tz[j]};
        float len = sqrtf((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) + (b[2] - a[2]) * (b[2] - a[2]));
        float r = 0.16f * len;
        r = r < 0.025f ? 0.025f : r > 0.075f ? 0.075f : r;
        lod_bone(a, b, r, p);
    }
    /* the head: a prism above the last joint named "head" */
    int head = stance_skeleton_find(sk, "head");
    if (head >= 0) {
        float a[3] = {m.tx[head], m.ty[head], m.tz[head]}, b[3] = {a[0], a[1] + 0.22f, a[2]};
        lod_bone(a, b, 0.09f, head);
    }
    stance_pose_destroy(&l), stance_pose_destroy(&m);
    return 0;
}
LAB_API int lab_crowd_lod_vertex_count(void) { return lod.vertices; }
LAB_API int lab_crowd_lod_index_count(void) { return lod.indices; }
LAB_API const float *lab_crowd_lod_positions(void) { return lod.pos; }
LAB_API const float *lab_crowd_lod_normals(void) { return lod.nrm; }
LAB_API const uint16_t *lab_crowd_lod_joints(void) { return lod.jnt; }
LAB_API const float *lab_crowd_lod_weights(void) { return lod.wgt; }
LAB_API const uint32_t *lab_crowd_lod_indices(void) { return lod.idx; }

static double now_ms(void) {
#ifdef __EMSCRIPTEN__
    return emscripten_get_now();
#else
    return 0.0;
#endif
}

/* A small deterministic sequence (no global RNG state outside this view). */
static unsigned g_seed = 12345u;
static float rnd(void) {
    g_seed = g_seed * 1664525u + 1013904223u;
    return (float)(g_seed >> 8) / 16777216.0f;
}

LAB_API void lab_crowd_close(void) {
    for (int i = 0; i < cr.n; i++) stance_instance_destroy(cr.inst[i]);
    stance_workspace_destroy(cr.ws);
    stance_graph_destroy(cr.graph);
    free(cr.matrices);
    memset(&cr, 0, sizeof cr);
}

/* Makes n characters (1..400) in a grid, 1.5 m apart. 0 or -1. */
LAB_API int lab_crowd_open(int n) {
    if (n < 1 || n > CROWD_MAX) return lab_fail("crowd: %d characters (1..%d)", n, CROWD_MAX);
    lab_crowd_close();
    const stance_builtin *b = lab_builtin();
    stance_error err = {0};
    if (!b->skin) return lab_fail("crowd: the built-in character has no skin");
    if (lod_build(b->skeleton)) return -1;
    if (stance_builtin_lesson_graph(b, NULL, &cr.graph, &err)) return lab_fail("crowd: %s", err.message);
    if (stance_workspace_create(cr.graph, NULL, &cr.ws, &err)) { lab_crowd_close(); return lab_fail("crowd: %s", err.message); }
    cr.joints = b->skin->joint_count;
    cr.matrices = malloc(sizeof(float) * 16 * (size_t)cr.joints * (size_t)n);
    if (!cr.matrices) { lab_crowd_close(); return lab_fail("crowd: out of memory"); }
    cr.p_speed = stance_graph_find_param(cr.graph, "speed");
    cr.p_jump = stance_graph_find_param(cr.graph, "jump");
    int side = (int)ceilf(sqrtf((float)n));
    g_seed = 12345u;
    for (int i = 0; i < n; i++) {
        if (stance_instance_create(cr.graph, NULL, &cr.inst[i], &err)) { lab_crowd_close(); return lab_fail("crowd: %s", err.message); }
        cr.n = i + 1;
        cr.place[i][0] = ((float)(i % side) - 0.5f * (float)(side - 1)) * 1.5f;
        cr.place[i][1] = 0.0f;
        cr.place[i][2] = ((float)(i / side) - 0.5f * (float)(side - 1)) * 1.5f;
        cr.place[i][3] = 0.0f;
        cr.phase[i] = rnd() * 6.2831853f;
        cr.rate[i] = 0.15f + 0.35f * rnd();   /* speed cycle, rad/s */
        cr.top[i] = 0.5f + 4.0f * rnd();      /* top speed, m/s */
        cr.next_jump[i] = 1.0f + 8.0f * rnd();
    }
    cr.time = 0.0f;
    cr.avg_ms = 0.0;
    return 0;
}

/* Advances every character by dt: speed follows its own slow cycle between 0
 * and its top speed, jumps come every few seconds; then the skin matrices. */
LAB_API int lab_crowd_step(float dt) {
    if (!cr.n) return lab_fail("crowd: not open");
    if (!(dt >= 0.0f && dt <= 0.25f)) return lab_fail("dt %g out of range", (double)dt);
    cr.time += dt;
    double t0 = now_ms();
    for (int i = 0; i < cr.n; i++) {
        float s = 0.5f - 0.5f * cosf(cr.phase[i] + cr.rate[i] * cr.time);
        stance_instance_set_float(cr.inst[i], cr.p_speed, s * cr.top[i], NULL);
        if (cr.time >= cr.next_jump[i]) {
            stance_instance_set_trigger(cr.inst[i], cr.p_jump, NULL);
            cr.next_jump[i] = cr.time + 3.0f + 6.0f * rnd();
        }
        if (lab_update(cr.inst[i], dt, cr.ws)) return lab_fail("crowd: update failed");
        float d[3];
        stance_instance_root_motion(cr.inst[i], d);
        cr.place[i][0] += d[0], cr.place[i][2] += d[2];
        if (cr.place[i][2] > 0.5f * CROWD_AREA) cr.place[i][2] -= CROWD_AREA;
    }
    double t1 = now_ms();
    const stance_skin *skin = lab_builtin()->skin;
    for (int i = 0; i < cr.n; i++)
        if (stance_skin_matrices(skin, stance_instance_model_pose(cr.inst[i]), cr.matrices + (size_t)i * 16 * (size_t)cr.joints, cr.joints))
            return lab_fail("crowd: skin matrices failed");
    double t2 = now_ms();
    cr.update_ms = t1 - t0, cr.skin_ms = t2 - t1;
    cr.avg_ms = cr.avg_ms > 0.0 ? cr.avg_ms + (cr.update_ms + cr.skin_ms - cr.avg_ms) / 60.0 : cr.update_ms + cr.skin_ms;
    return 0;
}
LAB_API int lab_crowd_count(void) { return cr.n; }
LAB_API int lab_crowd_joints(void) { return cr.joints; }
LAB_API const float *lab_crowd_matrices(void) { return cr.matrices; }
LAB_API const float *lab_crowd_places(void) { return &cr.place[0][0]; }
/* The last step's graph update time and skinning time (ms), and their average. */
LAB_API double lab_crowd_update_ms(void) { return cr.update_ms; }
LAB_API double lab_crowd_skin_ms(void) { return cr.skin_ms; }
LAB_API double lab_crowd_avg_ms(void) { return cr.avg_ms; }
