/* lab/lab_crowd.c - the crowd view: N instances of the lesson's graph on the
 * built-in character (one shared graph), each with its own speed schedule and
 * jumps, updated together in WebAssembly; the update's time is measured here
 * (emscripten_get_now). Each frame the skinning matrices of every character
 * (stance_skin_matrices, the engine's call) are placed in the world (its
 * position and facing) and written as the top three rows of each matrix, in
 * the layout of the texture JavaScript uploads in one call for one instanced
 * draw (one texture row per character, three RGBA texels per skin joint).
 * The crowd's level of detail, a mesh of 12 boxes over the bones (100
 * triangles against the full mesh's 7080), is built here from the rest pose,
 * in the built-in skin's bind space (checked: its inverse binds are the rest
 * pose's). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"

#define CROWD_MAX 400
#define CROWD_AREA 24.0f /* metres: characters walk towards +z (each turned a little) and wrap around */

static struct {
    stance_graph *graph;
    stance_workspace *ws;      /* one for all: they update one after another */
    stance_instance *inst[CROWD_MAX];
    int n, joints, p_speed, p_jump;
    float *rows;               /* n * joints * 12: per character, per skin joint, rows 0..2 of its world matrix */
    float skin[STANCE_MAX_SKIN_JOINTS * 16]; /* one character's skin matrices (stance_skin_matrices) */
    float place[CROWD_MAX][4]; /* x, y, z, facing (radians about +y; 0 faces +z) */
    float column[CROWD_MAX];   /* x where each one starts again after wrapping */
    float phase[CROWD_MAX], rate[CROWD_MAX], top[CROWD_MAX], next_jump[CROWD_MAX];
    float time;
    double update_ms, skin_ms;  /* the last frame's */
    double avg_ms;              /* update + skinning, smoothed over about 1 s */
} cr;

/* ---- the crowd's low-detail mesh ------------------------------------------ */

/* A box along a chain of bones: from joint a's rest position (moved back by
 * ext0 along the box) to joint b's (moved on by ext1), half sizes (ru, rw)
 * at each end across the box (ru: sideways for the torso and the legs,
 * vertical for the arms), its bottom ring bound to joint ja, its top ring to
 * jb; cap: a lid on the top end. */
typedef struct lod_part {
    const char *a, *b;
    float ext0, ext1, ru0, rw0, ru1, rw1;
    const char *ja, *jb;
    int cap;
} lod_part;
static const lod_part lod_parts[] = {
    {"hips", "neck", 0.08f, 0.0f, 0.14f, 0.085f, 0.16f, 0.09f, "hips", "chest", 1},
    {"neck", "head", 0.0f, 0.26f, 0.06f, 0.07f, 0.085f, 0.10f, "neck", "head", 1},
    {"upperarm_l", "forearm_l", 0.02f, 0.0f, 0.05f, 0.05f, 0.045f, 0.045f, "upperarm_l", "upperarm_l", 0},
    {"forearm_l", "hand_l", 0.0f, 0.12f, 0.042f, 0.042f, 0.035f, 0.03f, "forearm_l", "forearm_l", 0},
    {"upperarm_r", "forearm_r", 0.02f, 0.0f, 0.05f, 0.05f, 0.045f, 0.045f, "upperarm_r", "upperarm_r", 0},
    {"forearm_r", "hand_r", 0.0f, 0.12f, 0.042f, 0.042f, 0.035f, 0.03f, "forearm_r", "forearm_r", 0},
    {"upleg_l", "leg_l", 0.04f, 0.0f, 0.075f, 0.075f, 0.06f, 0.06f, "upleg_l", "upleg_l", 0},
    {"leg_l", "foot_l", 0.0f, 0.0f, 0.055f, 0.055f, 0.045f, 0.045f, "leg_l", "leg_l", 0},
    {"foot_l", "toe_l", 0.02f, 0.08f, 0.05f, 0.04f, 0.045f, 0.025f, "foot_l", "foot_l", 0},
    {"upleg_r", "leg_r", 0.04f, 0.0f, 0.075f, 0.075f, 0.06f, 0.06f, "upleg_r", "upleg_r", 0},
    {"leg_r", "foot_r", 0.0f, 0.0f, 0.055f, 0.055f, 0.045f, 0.045f, "leg_r", "leg_r", 0},
    {"foot_r", "toe_r", 0.02f, 0.08f, 0.05f, 0.04f, 0.045f, 0.025f, "foot_r", "foot_r", 0},
};
#define LOD_PARTS ((int)(sizeof lod_parts / sizeof lod_parts[0]))
#define LOD_MAX_V (LOD_PARTS * 12)
#define LOD_MAX_I (LOD_PARTS * 30)
static struct {
    int vertices, indices;
    float pos[LOD_MAX_V * 3], nrm[LOD_MAX_V * 3], wgt[LOD_MAX_V * 4];
    uint16_t jnt[LOD_MAX_V * 4];
    uint32_t idx[LOD_MAX_I];
} lod;

/* one vertex bound to skin joint k alone */
static void lod_vertex(const float p[3], const float n[3], int k) {
    int v = lod.vertices++;
    for (int c = 0; c < 3; c++) lod.pos[3 * v + c] = p[c], lod.nrm[3 * v + c] = n[c];
    for (int c = 0; c < 4; c++) lod.jnt[4 * v + c] = (uint16_t)(c ? 0 : k), lod.wgt[4 * v + c] = c ? 0.0f : 1.0f;
}

/* The box of part q between bind-space points a and b, rings bound to skin
 * joints ka and kb. The frame (u, w, d) is right-handed with d along the box,
 * so corners taken counterclockwise about d give outward-facing triangles. */
static void lod_box(const lod_part *q, const float a0[3], const float b0[3], int ka, int kb) {
    float d[3] = {b0[0] - a0[0], b0[1] - a0[1], b0[2] - a0[2]};
    float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int c = 0; c < 3; c++) d[c] /= len;
    float a[3], b[3];
    for (int c = 0; c < 3; c++) a[c] = a0[c] - q->ext0 * d[c], b[c] = b0[c] + q->ext1 * d[c];
    /* u: sideways (x) unless the box itself runs sideways, then vertical */
    float sv[3] = {fabsf(d[0]) < 0.9f ? 1.0f : 0.0f, fabsf(d[0]) < 0.9f ? 0.0f : 1.0f, 0.0f};
    float sd = sv[0] * d[0] + sv[1] * d[1] + sv[2] * d[2];
    float u[3] = {sv[0] - sd * d[0], sv[1] - sd * d[1], sv[2] - sd * d[2]};
    float ul = sqrtf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int c = 0; c < 3; c++) u[c] /= ul;
    float w[3] = {d[1] * u[2] - d[2] * u[1], d[2] * u[0] - d[0] * u[2], d[0] * u[1] - d[1] * u[0]};
    int first = lod.vertices;
    for (int end = 0; end < 2; end++) {
        const float *o = end ? b : a;
        float ru = end ? q->ru1 : q->ru0, rw = end ? q->rw1 : q->rw0;
        for (int s = 0; s < 4; s++) { /* corners at 45, 135, 225, 315 degrees: faces front, back and sides */
            float cu = (s == 0 || s == 3) ? 1.0f : -1.0f, cw = s < 2 ? 1.0f : -1.0f;
            float p[3], n[3];
            for (int c = 0; c < 3; c++) p[c] = o[c] + cu * ru * u[c] + cw * rw * w[c], n[c] = cu / ru * u[c] + cw / rw * w[c];
            float nl = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            for (int c = 0; c < 3; c++) n[c] /= nl;
            lod_vertex(p, n, end ? kb : ka);
        }
    }
    for (int s = 0; s < 4; s++) {
        uint32_t i0 = (uint32_t)(first + s), i1 = (uint32_t)(first + (s + 1) % 4);
        uint32_t t[6] = {i0, i1, i0 + 4, i1, i1 + 4, i0 + 4};
        for (int k = 0; k < 6; k++) lod.idx[lod.indices++] = t[k];
    }
    if (q->cap) { /* the lid: its own vertices, facing d */
        int lid = lod.vertices;
        for (int s = 0; s < 4; s++) lod_vertex(lod.pos + 3 * (first + 4 + s), d, kb);
        uint32_t t[6] = {0, 1, 2, 0, 2, 3};
        for (int k = 0; k < 6; k++) lod.idx[lod.indices++] = (uint32_t)lid + t[k];
    }
}

/* The skin joint of skeleton joint j, -1 if the skin has none. */
static int skin_joint(const stance_skin *skin, int j) {
    for (int k = 0; k < skin->joint_count; k++)
        if (skin->joints[k] == j) return k;
    return -1;
}

static float g_rest_matrices[STANCE_MAX_SKIN_JOINTS * 16];
static int lod_build(const stance_skeleton *sk, const stance_skin *skin) {
    stance_pose l, m;
    stance_error err = {0};
    if (stance_pose_create(&l, sk->joint_count, NULL, &err)) return lab_fail("crowd: %s", err.message);
    if (stance_pose_create(&m, sk->joint_count, NULL, &err)) { stance_pose_destroy(&l); return lab_fail("crowd: %s", err.message); }
    stance_pose_set_rest(&l, sk, NULL);
    stance_local_to_model(&m, &l, sk, NULL, NULL);
    int bad = 0;
    /* the rest pose must be the skin's bind pose: every skin matrix the identity */
    if (stance_skin_matrices(skin, &m, g_rest_matrices, STANCE_MAX_SKIN_JOINTS, NULL)) bad = lab_fail("crowd: skin matrices failed");
    for (int k = 0; !bad && k < 16 * skin->joint_count; k++)
        if (fabsf(g_rest_matrices[k] - ((k % 16) % 5 == 0 ? 1.0f : 0.0f)) > 1e-3f)
            bad = lab_fail("crowd: the skin's bind pose is not the skeleton's rest pose");
    lod.vertices = lod.indices = 0;
    for (int i = 0; !bad && i < LOD_PARTS; i++) {
        const lod_part *q = &lod_parts[i];
        int a = stance_skeleton_find(sk, q->a), b = stance_skeleton_find(sk, q->b);
        int ka = skin_joint(skin, stance_skeleton_find(sk, q->ja)), kb = skin_joint(skin, stance_skeleton_find(sk, q->jb));
        if (a < 0 || b < 0 || ka < 0 || kb < 0) { bad = lab_fail("crowd: the low-detail mesh needs the joints %s, %s, %s, %s", q->a, q->b, q->ja, q->jb); break; }
        float pa[3] = {m.tx[a], m.ty[a], m.tz[a]}, pb[3] = {m.tx[b], m.ty[b], m.tz[b]};
        float dx = pb[0] - pa[0], dy = pb[1] - pa[1], dz = pb[2] - pa[2];
        if (dx * dx + dy * dy + dz * dz < 1e-6f) { bad = lab_fail("crowd: %s and %s are at the same place", q->a, q->b); break; }
        lod_box(q, pa, pb, ka, kb);
    }
    stance_pose_destroy(&l), stance_pose_destroy(&m);
    return bad ? -1 : 0;
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
    free(cr.rows);
    memset(&cr, 0, sizeof cr);
}

/* Makes n characters (1..400) in a grid, 1.5 m apart. 0 or -1. */
LAB_API int lab_crowd_open(int n) {
    if (n < 1 || n > CROWD_MAX) return lab_fail("crowd: %d characters (1..%d)", n, CROWD_MAX);
    lab_crowd_close();
    const stance_builtin *b = lab_builtin();
    stance_error err = {0};
    if (!b->skin) return lab_fail("crowd: the built-in character has no skin");
    if (lod_build(b->skeleton, b->skin)) return -1;
    if (stance_builtin_lesson_graph(b, NULL, &cr.graph, &err)) return lab_fail("crowd: %s", err.message);
    if (stance_workspace_create(cr.graph, NULL, &cr.ws, &err)) { lab_crowd_close(); return lab_fail("crowd: %s", err.message); }
    cr.joints = b->skin->joint_count;
    cr.rows = malloc(sizeof(float) * 12 * (size_t)cr.joints * (size_t)n);
    if (!cr.rows) { lab_crowd_close(); return lab_fail("crowd: out of memory"); }
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
        cr.place[i][3] = 0.4f * (rnd() - 0.5f); /* +-11 degrees off +z */
        cr.column[i] = cr.place[i][0];
        cr.phase[i] = rnd() * 6.2831853f;
        cr.rate[i] = 0.15f + 0.35f * rnd();   /* speed cycle, rad/s */
        cr.top[i] = 0.5f + 4.0f * rnd();      /* top speed, m/s */
        cr.next_jump[i] = 1.0f + 8.0f * rnd();
    }
    cr.time = 0.0f;
    cr.avg_ms = 0.0;
    return 0;
}

/* Character i's skin matrices in the world: W * S for each skin matrix S,
 * W = translation(place) * rotation about +y by the facing, written as the
 * top three rows (4 floats each) per skin joint; the last row stays 0 0 0 1. */
static void place_rows(int i, float *out) {
    const float *pl = cr.place[i], c = cosf(pl[3]), s = sinf(pl[3]);
    const float rot[3][3] = {{c, 0.0f, s}, {0.0f, 1.0f, 0.0f}, {-s, 0.0f, c}};
    for (int k = 0; k < cr.joints; k++) {
        const float *m = cr.skin + 16 * k; /* column-major: element (row r, column q) at m[4q + r] */
        float *o = out + 12 * k;
        for (int r = 0; r < 3; r++)
            for (int q = 0; q < 4; q++)
                o[4 * r + q] = rot[r][0] * m[4 * q] + rot[r][1] * m[4 * q + 1] + rot[r][2] * m[4 * q + 2] + (q == 3 ? pl[r] : 0.0f);
    }
}

/* Advances every character by dt: speed follows its own slow cycle between 0
 * and its top speed, jumps come every few seconds; then the skin matrices,
 * placed in the world. */
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
        stance_error err;
        if (lab_update(cr.inst[i], dt, cr.ws, &err)) return lab_fail("crowd: %s", err.message);
        float d[3], c = cosf(cr.place[i][3]), sn = sinf(cr.place[i][3]);
        stance_instance_root_motion(cr.inst[i], d); /* in the character's frame: turned by its facing */
        cr.place[i][0] += c * d[0] + sn * d[2], cr.place[i][2] += -sn * d[0] + c * d[2];
        if (cr.place[i][2] > 0.5f * CROWD_AREA) cr.place[i][2] -= CROWD_AREA, cr.place[i][0] = cr.column[i];
    }
    double t1 = now_ms();
    const stance_skin *skin = lab_builtin()->skin;
    for (int i = 0; i < cr.n; i++) {
        if (stance_skin_matrices(skin, stance_instance_model_pose(cr.inst[i]), cr.skin, STANCE_MAX_SKIN_JOINTS, NULL))
            return lab_fail("crowd: skin matrices failed");
        place_rows(i, cr.rows + (size_t)i * 12 * (size_t)cr.joints);
    }
    double t2 = now_ms();
    cr.update_ms = t1 - t0, cr.skin_ms = t2 - t1;
    cr.avg_ms = cr.avg_ms > 0.0 ? cr.avg_ms + (cr.update_ms + cr.skin_ms - cr.avg_ms) / 60.0 : cr.update_ms + cr.skin_ms;
    return 0;
}
LAB_API int lab_crowd_count(void) { return cr.n; }
LAB_API int lab_crowd_joints(void) { return cr.joints; }
/* count() * joints() * 12 floats: character i's texture row at 12 * joints() * i */
LAB_API const float *lab_crowd_rows(void) { return cr.rows; }
/* x, y, z, facing (radians) per character */
LAB_API const float *lab_crowd_places(void) { return &cr.place[0][0]; }
/* Character i's model pose (the tests' reference for the rows), NULL if none. */
LAB_API const stance_pose *lab_crowd_model_pose(int i) { return i >= 0 && i < cr.n ? stance_instance_model_pose(cr.inst[i]) : NULL; }
/* The last step's graph update time and skinning time (skin matrices placed
 * in the world, ms), and their average. */
LAB_API double lab_crowd_update_ms(void) { return cr.update_ms; }
LAB_API double lab_crowd_skin_ms(void) { return cr.skin_ms; }
LAB_API double lab_crowd_avg_ms(void) { return cr.avg_ms; }
