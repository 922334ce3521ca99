/* src/builtin/mesh.c - the built-in character's procedural skinned mesh:
 * a rounded capsule around each bone (hemispherical caps, a radius that
 * tapers from one joint to the next), with weights that blend smoothly into
 * the neighbouring joint within a short zone around each joint, and a base
 * colour. Built once with the character; the skin is every skeleton joint in
 * skeleton order, its inverse binds the inverse rest model transforms.
 *
 * Owns the segment table and the capsule tessellation. It builds the skin
 * and mesh only through stance_skin_create / stance_mesh_create (normals are
 * left to stance_mesh_create, area-weighted from the triangles), uses the
 * caller's allocator for its temporary buffers and holds no state.
 *
 * Winding: each capsule is tessellated so that every triangle is
 * counter-clockwise seen from outside (its normal points away from the bone
 * axis); each capsule is a closed surface. */
#include <string.h>

#include "builtin/mesh.h"
#include "core/base/internal.h"
#include "core/math/qmath.h"

#define SIDES 12        /* vertices around a ring */
#define CAP_RINGS 4     /* latitude steps of a hemisphere, equator included */
#define RING_SPACING 0.035f
#define BLEND_ZONE 0.07f /* half-width of the weight blend around a joint (m) */
#define PI_F 3.14159265358979323846f
#define MAX_BUILTIN_JOINTS 64 /* the rest transforms are composed on the stack */

/* A bone's capsule from joint `from` to joint `to` (or, for a free end, to
 * `from` plus `end` in model space). With blend_start the vertices near
 * `from` blend with from's parent; with blend_end those near `to` blend with
 * `to` (whose own capsule continues the limb). */
typedef struct segment {
    const char *from, *to;
    float end[3];
    float r0, r1;
    int blend_start, blend_end;
} segment;

static const segment k_segments[] = {
    {"hips", "spine", {0}, 0.125f, 0.12f, 0, 1},
    {"spine", "spine1", {0}, 0.12f, 0.125f, 1, 1},
    {"spine1", "chest", {0}, 0.125f, 0.135f, 1, 1},
    {"chest", "neck", {0}, 0.135f, 0.07f, 1, 1},
    {"neck", "head", {0}, 0.05f, 0.05f, 1, 1},
    {"head", NULL, {0.0f, 0.17f, 0.02f}, 0.10f, 0.095f, 1, 0},
    {"shoulder_l", "upperarm_l", {0}, 0.055f, 0.05f, 1, 1},
    {"upperarm_l", "forearm_l", {0}, 0.05f, 0.04f, 1, 1},
    {"forearm_l", "hand_l", {0}, 0.04f, 0.032f, 1, 1},
    {"hand_l", NULL, {0.09f, 0.0f, 0.0f}, 0.035f, 0.03f, 1, 0},
    {"shoulder_r", "upperarm_r", {0}, 0.055f, 0.05f, 1, 1},
    {"upperarm_r", "forearm_r", {0}, 0.05f, 0.04f, 1, 1},
    {"forearm_r", "hand_r", {0}, 0.04f, 0.032f, 1, 1},
    {"hand_r", NULL, {-0.09f, 0.0f, 0.0f}, 0.035f, 0.03f, 1, 0},
    {"upleg_l", "leg_l", {0}, 0.075f, 0.055f, 1, 1},
    {"leg_l", "foot_l", {0}, 0.055f, 0.042f, 1, 1},
    {"foot_l", "toe_l", {0}, 0.042f, 0.032f, 1, 1},
    {"toe_l", NULL, {0.0f, 0.0f, 0.06f}, 0.032f, 0.028f, 1, 0},
    {"upleg_r", "leg_r", {0}, 0.075f, 0.055f, 1, 1},
    {"leg_r", "foot_r", {0}, 0.055f, 0.042f, 1, 1},
    {"foot_r", "toe_r", {0}, 0.042f, 0.032f, 1, 1},
    {"toe_r", NULL, {0.0f, 0.0f, 0.06f}, 0.032f, 0.028f, 1, 0},
};
#define SEGMENTS ((int)(sizeof k_segments / sizeof k_segments[0]))

static const float k_base_color[4] = {0.56f, 0.63f, 0.76f, 1.0f};

static int body_rings(float len) {
    int n = (int)ceilf(len / RING_SPACING) + 1;
    return n < 2 ? 2 : n;
}
static int segment_vertices(float len) { return (2 * (CAP_RINGS - 1) + body_rings(len)) * SIDES + 2; }
static int segment_triangles(float len) { return 2 * SIDES * (2 * (CAP_RINGS - 1) + body_rings(len) - 1) + 2 * SIDES; }

static float smooth01(float u) {
    u = u < 0.0f ? 0.0f : (u > 1.0f ? 1.0f : u);
    return u * u * (3.0f - 2.0f * u);
}

typedef struct out_buf {
    float *pos, *w;
    uint16_t *jn;
    uint32_t *idx;
    int v, i;
} out_buf;

/* Appends one capsule. a, b: axis end points; ja: the bone's joint; js, je:
 * the joints blended in near a and b (-1: none). */
static void add_capsule(out_buf *o, qm_vec3 a, qm_vec3 b, float r0, float r1, int ja, int js, int je) {
    qm_vec3 axis = qm_sub(b, a);
    const float len = qm_len3(axis);
    const qm_vec3 d = qm_scale(axis, 1.0f / len);
    /* e1, e2, d right-handed */
    qm_vec3 helper = fabsf(d.y) < 0.9f ? qm_v3(0, 1, 0) : qm_v3(1, 0, 0);
    const qm_vec3 e1 = qm_norm3(qm_cross(helper, d)), e2 = qm_cross(d, e1);
    const float h = fminf(BLEND_ZONE, 0.45f * len);
    const int body = body_rings(len), rings = 2 * (CAP_RINGS - 1) + body;
    const int first = o->v;

    /* ring r's axial coordinate x (0 at a, len at b) and radius */
    for (int r = -1; r <= rings; r++) {
        float x, rho;
        if (r == -1) {
            x = -r0, rho = 0.0f;
        } else if (r == rings) {
            x = len + r1, rho = 0.0f;
        } else if (r < CAP_RINGS - 1) {
            float phi = 0.5f * PI_F * (float)(r + 1) / (float)CAP_RINGS;
            x = -r0 * sm_cosf(phi), rho = r0 * sm_sinf(phi);
        } else if (r < CAP_RINGS - 1 + body) {
            float u = (float)(r - (CAP_RINGS - 1)) / (float)(body - 1);
            x = u * len, rho = r0 + (r1 - r0) * u;
        } else {
            int k = rings - r; /* CAP_RINGS - 1 .. 1 */
            float phi = 0.5f * PI_F * (float)k / (float)CAP_RINGS;
            x = len + r1 * sm_cosf(phi), rho = r1 * sm_sinf(phi);
        }
        float ws = js >= 0 ? smooth01((h - x) / (2.0f * h)) : 0.0f;
        float we = je >= 0 ? smooth01((x - (len - h)) / (2.0f * h)) : 0.0f;
        float wa = 1.0f - ws - we;
        const int count = (r == -1 || r == rings) ? 1 : SIDES;
        for (int s = 0; s < count; s++) {
            float th = 2.0f * PI_F * (float)s / (float)SIDES;
            qm_vec3 radial = qm_add(qm_scale(e1, sm_cosf(th)), qm_scale(e2, sm_sinf(th)));
            qm_vec3 p = qm_add(qm_add(a, qm_scale(d, x)), qm_scale(radial, rho));
            float *pp = o->pos + 3 * (size_t)o->v;
            pp[0] = p.x, pp[1] = p.y, pp[2] = p.z;
            uint16_t *jj = o->jn + 4 * (size_t)o->v;
            float *ww = o->w + 4 * (size_t)o->v;
            jj[0] = (uint16_t)ja, jj[1] = (uint16_t)(js >= 0 ? js : ja), jj[2] = (uint16_t)(je >= 0 ? je : ja), jj[3] = (uint16_t)ja;
            ww[0] = wa, ww[1] = ws, ww[2] = we, ww[3] = 0.0f;
            o->v++;
        }
    }
    /* vertex of ring r, side s (poles: r = -1 and r = rings) */
#define RV(r, s) ((uint32_t)((r) == -1 ? first : (r) == rings ? first + 1 + rings * SIDES : first + 1 + (r) * SIDES + ((s) % SIDES)))
#define TRI(p, q, t) (o->idx[o->i++] = (p), o->idx[o->i++] = (q), o->idx[o->i++] = (t))
    for (int s = 0; s < SIDES; s++) TRI(RV(-1, 0), RV(0, s + 1), RV(0, s));
    for (int r = 0; r + 1 < rings; r++)
        for (int s = 0; s < SIDES; s++) {
            TRI(RV(r, s), RV(r, s + 1), RV(r + 1, s + 1));
            TRI(RV(r, s), RV(r + 1, s + 1), RV(r + 1, s));
        }
    for (int s = 0; s < SIDES; s++) TRI(RV(rings - 1, s), RV(rings - 1, s + 1), RV(rings, 0));
#undef RV
#undef TRI
}

stance_status st_builtin_mesh(const stance_skeleton *sk, const stance_allocator *al, stance_skin **skin_out,
                              stance_mesh **mesh_out, stance_error *err) {
    *skin_out = NULL;
    *mesh_out = NULL;
    const int n = sk->joint_count;
    if (n > MAX_BUILTIN_JOINTS) return st_fail(err, STANCE_ERR_ARGUMENT, "builtin mesh: more than %d joints", MAX_BUILTIN_JOINTS);
    /* rest model transforms (rotation and translation; the built-in rest has no scale) */
    qm_quat mq[MAX_BUILTIN_JOINTS];
    qm_vec3 mt[MAX_BUILTIN_JOINTS];
    for (int j = 0; j < n; j++) {
        const stance_transform *r = &sk->rest[j];
        if (r->s[0] != 1.0f || r->s[1] != 1.0f || r->s[2] != 1.0f)
            return st_fail(err, STANCE_ERR_VALUE, "builtin mesh: joint %d has a rest scale", j);
        qm_quat q = qm_q(r->r[0], r->r[1], r->r[2], r->r[3]);
        qm_vec3 t = qm_v3(r->t[0], r->t[1], r->t[2]);
        int p = sk->parents[j];
        mq[j] = p < 0 ? q : qm_qnorm(qm_qmul(mq[p], q));
        mt[j] = p < 0 ? t : qm_add(mt[p], qm_qrot(mq[p], t));
    }
    /* the segments' joints and sizes */
    int ja[SEGMENTS], jb[SEGMENTS];
    qm_vec3 pa[SEGMENTS], pb[SEGMENTS];
    int vertices = 0, triangles = 0;
    for (int i = 0; i < SEGMENTS; i++) {
        const segment *g = &k_segments[i];
        ja[i] = stance_skeleton_find(sk, g->from);
        jb[i] = g->to ? stance_skeleton_find(sk, g->to) : -1;
        if (ja[i] < 0 || (g->to && jb[i] < 0))
            return st_fail(err, STANCE_ERR_NOT_FOUND, "builtin mesh: no joint '%s'", ja[i] < 0 ? g->from : g->to);
        pa[i] = mt[ja[i]];
        pb[i] = g->to ? mt[jb[i]] : qm_add(pa[i], qm_qrot(mq[ja[i]], qm_v3(g->end[0], g->end[1], g->end[2])));
        float len = qm_len3(qm_sub(pb[i], pa[i]));
        vertices += segment_vertices(len);
        triangles += segment_triangles(len);
    }
    /* temporary buffers, one block */
    const size_t V = (size_t)vertices, I = 3 * (size_t)triangles, J = (size_t)n;
    size_t bytes = sizeof(float) * (3 * V + 4 * V + 16 * J) + sizeof(uint16_t) * 4 * V + sizeof(uint32_t) * I +
                   sizeof(int) * J;
    unsigned char *mem = st_alloc(al, bytes, 16);
    if (!mem) return st_fail(err, STANCE_ERR_MEMORY, "builtin mesh: allocation of %zu bytes failed", bytes);
    out_buf o;
    o.pos = (float *)mem;
    o.w = o.pos + 3 * V;
    float *ib = o.w + 4 * V;
    o.idx = (uint32_t *)(ib + 16 * J);
    int *joints = (int *)(o.idx + I);
    o.jn = (uint16_t *)(joints + J);
    o.v = o.i = 0;
    for (int i = 0; i < SEGMENTS; i++) {
        const segment *g = &k_segments[i];
        int js = g->blend_start ? sk->parents[ja[i]] : -1;
        int je = g->blend_end ? jb[i] : -1;
        add_capsule(&o, pa[i], pb[i], g->r0, g->r1, ja[i], js, je);
    }
    /* inverse bind: the inverse of the rest model transform (R, t): (R^T, -R^T t) */
    for (int j = 0; j < n; j++) {
        joints[j] = j;
        qm_quat c = qm_qconj(mq[j]);
        qm_vec3 cx = qm_qrot(c, qm_v3(1, 0, 0)), cy = qm_qrot(c, qm_v3(0, 1, 0)), cz = qm_qrot(c, qm_v3(0, 0, 1));
        qm_vec3 t = qm_scale(qm_qrot(c, mt[j]), -1.0f);
        float *m = ib + 16 * (size_t)j;
        m[0] = cx.x, m[1] = cx.y, m[2] = cx.z, m[3] = 0.0f;
        m[4] = cy.x, m[5] = cy.y, m[6] = cy.z, m[7] = 0.0f;
        m[8] = cz.x, m[9] = cz.y, m[10] = cz.z, m[11] = 0.0f;
        m[12] = t.x, m[13] = t.y, m[14] = t.z, m[15] = 1.0f;
    }
    stance_skin_desc sd = {"body", n, joints, ib};
    stance_status st = stance_skin_create(&sd, sk, al, skin_out, err);
    if (!st) {
        stance_mesh_desc md;
        memset(&md, 0, sizeof md);
        md.name = "body";
        md.skin = 0;
        md.vertex_count = o.v;
        md.positions = o.pos;
        md.joints = o.jn;
        md.weights = o.w;
        md.index_count = o.i;
        md.indices = o.idx;
        memcpy(md.base_color, k_base_color, sizeof k_base_color);
        st = stance_mesh_create(&md, *skin_out, al, mesh_out, err);
        if (st) {
            stance_skin_destroy(*skin_out);
            *skin_out = NULL;
        }
    }
    st_free(al, mem, bytes);
    return st;
}
