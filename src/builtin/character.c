/* src/builtin/character.c - the built-in character: a 23-joint humanoid
 * skeleton made in code and its procedural clips (idle, walk, run, jump,
 * wave, lean, breathe); its skin and mesh come from mesh.c.
 *
 * Owns: the joint table (names, parents, rest offsets), the pose generators
 * of each clip (a pure function of time), the two-bone leg IK that keeps feet
 * planted, and the keying of those poses into stance clips. It must not touch
 * the insides of skeletons or clips: it builds them through
 * stance_skeleton_create / stance_clip_create only, with the caller's
 * allocator (temporary key buffers included), and holds no global mutable
 * state.
 *
 * Conventions: metres, Y up, the character faces +Z, its left side is +X.
 * Rest pose = T-pose, identity rest rotations, translations are bone offsets.
 * Rotation signs used below: a positive rotation about X pitches an up-bone
 * forward (+Y towards +Z) and a down-bone backward; about Z, +X goes to +Y.
 *
 * Feet: walk and run are in place with a root path (0, 0, speed * t). Each
 * ankle follows a model-space target: while its foot is on the ground it
 * moves backwards at exactly the root speed (so it is fixed in the world);
 * in swing it lifts (sin-shaped) and moves forward in the world only once it
 * has been more than 2 cm above the ground for a frame's time, and stops
 * before it comes back down (see FOOT_CLEAR). The legs reach the targets
 * by analytic two-bone IK with the knee towards +Z, the feet stay flat.
 * If a target is out of reach (more than 98% of the leg length) the clip is
 * rejected with STANCE_ERR_VALUE: a generator bug shows up as an error rather
 * than as sliding feet. */
#include <math.h>
#include <string.h>

#include "builtin/mesh.h"
#include "core/base/internal.h"
#include "core/math/qmath.h"
#include "stance_lesson/builtin.h"

#define PI_F 3.14159265358979323846f
#define DEG(x) ((x) * (PI_F / 180.0f))
#define KEY_RATE 60.0f       /* keys per second */
#define GAIT_KEY_RATE 120.0f /* walk and run: their planted feet come from IK, and
                              * between keys the interpolated joint angles bend
                              * an ankle's straight path by ~ L * dangle^2 / 8 */
#define ANKLE_H 0.08f  /* ankle height above the ground with the foot flat */

/* ---- skeleton --------------------------------------------------------- */

enum {
    J_ROOT, J_HIPS, J_SPINE, J_SPINE1, J_CHEST, J_NECK, J_HEAD,
    J_SHOULDER_L, J_UPPERARM_L, J_FOREARM_L, J_HAND_L,
    J_SHOULDER_R, J_UPPERARM_R, J_FOREARM_R, J_HAND_R,
    J_UPLEG_L, J_LEG_L, J_FOOT_L, J_TOE_L,
    J_UPLEG_R, J_LEG_R, J_FOOT_R, J_TOE_R,
    NJ
};

typedef struct joint_def {
    const char *name;
    int parent;
    float t[3]; /* offset from the parent in the rest pose */
} joint_def;

/* Hips at 1.06 m in the rest pose: upleg 0.08 below, thigh 0.45, shin 0.45,
 * so the ankle is 0.08 m above the ground with straight legs. */
static const joint_def k_joints[NJ] = {
    {"root", -1, {0.0f, 0.0f, 0.0f}},
    {"hips", J_ROOT, {0.0f, 1.06f, 0.0f}},
    {"spine", J_HIPS, {0.0f, 0.10f, 0.0f}},
    {"spine1", J_SPINE, {0.0f, 0.12f, 0.0f}},
    {"chest", J_SPINE1, {0.0f, 0.12f, 0.0f}},
    {"neck", J_CHEST, {0.0f, 0.20f, 0.0f}},
    {"head", J_NECK, {0.0f, 0.10f, 0.0f}},
    {"shoulder_l", J_CHEST, {0.03f, 0.15f, 0.0f}},
    {"upperarm_l", J_SHOULDER_L, {0.15f, 0.0f, 0.0f}},
    {"forearm_l", J_UPPERARM_L, {0.30f, 0.0f, 0.0f}},
    {"hand_l", J_FOREARM_L, {0.26f, 0.0f, 0.0f}},
    {"shoulder_r", J_CHEST, {-0.03f, 0.15f, 0.0f}},
    {"upperarm_r", J_SHOULDER_R, {-0.15f, 0.0f, 0.0f}},
    {"forearm_r", J_UPPERARM_R, {-0.30f, 0.0f, 0.0f}},
    {"hand_r", J_FOREARM_R, {-0.26f, 0.0f, 0.0f}},
    {"upleg_l", J_HIPS, {0.09f, -0.08f, 0.0f}},
    {"leg_l", J_UPLEG_L, {0.0f, -0.45f, 0.0f}},
    {"foot_l", J_LEG_L, {0.0f, -0.45f, 0.0f}},
    {"toe_l", J_FOOT_L, {0.0f, -0.08f, 0.12f}},
    {"upleg_r", J_HIPS, {-0.09f, -0.08f, 0.0f}},
    {"leg_r", J_UPLEG_R, {0.0f, -0.45f, 0.0f}},
    {"foot_r", J_LEG_R, {0.0f, -0.45f, 0.0f}},
    {"toe_r", J_FOOT_R, {0.0f, -0.08f, 0.12f}},
};

/* ---- a pose as the generators see it ---------------------------------- */

typedef struct body {
    qm_vec3 t[NJ];
    qm_quat q[NJ];
} body;

static qm_quat rot_x(float a) { return qm_qaxis(qm_v3(1, 0, 0), a); }
static qm_quat rot_y(float a) { return qm_qaxis(qm_v3(0, 1, 0), a); }
static qm_quat rot_z(float a) { return qm_qaxis(qm_v3(0, 0, 1), a); }

static void body_rest(body *b) {
    for (int j = 0; j < NJ; j++) {
        b->t[j] = qm_v3(k_joints[j].t[0], k_joints[j].t[1], k_joints[j].t[2]);
        b->q[j] = qm_qid();
    }
}

/* Local to model (no scale). */
static void body_fk(const body *local, body *model) {
    for (int j = 0; j < NJ; j++) {
        int p = k_joints[j].parent;
        if (p < 0) {
            model->t[j] = local->t[j];
            model->q[j] = local->q[j];
        } else {
            model->q[j] = qm_qnorm(qm_qmul(model->q[p], local->q[j]));
            model->t[j] = qm_add(model->t[p], qm_qrot(model->q[p], local->t[j]));
        }
    }
}

static float clampf(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }
static float smoothstep(float u) {
    u = clampf(u, 0.0f, 1.0f);
    return u * u * (3.0f - 2.0f * u);
}
static float frac(float x) { return x - floorf(x); }

/* Rotation matrix (columns cx, cy, cz: images of the X, Y, Z axes) to a
 * quaternion (Shepperd's method). */
static qm_quat quat_from_axes(qm_vec3 cx, qm_vec3 cy, qm_vec3 cz) {
    float m00 = cx.x, m10 = cx.y, m20 = cx.z;
    float m01 = cy.x, m11 = cy.y, m21 = cy.z;
    float m02 = cz.x, m12 = cz.y, m22 = cz.z;
    float tr = m00 + m11 + m22;
    qm_quat q;
    if (tr > 0.0f) {
        float s = sqrtf(tr + 1.0f) * 2.0f;
        q = qm_q((m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25f * s);
    } else if (m00 > m11 && m00 > m22) {
        float s = sqrtf(1.0f + m00 - m11 - m22) * 2.0f;
        q = qm_q(0.25f * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s);
    } else if (m11 > m22) {
        float s = sqrtf(1.0f + m11 - m00 - m22) * 2.0f;
        q = qm_q((m01 + m10) / s, 0.25f * s, (m12 + m21) / s, (m02 - m20) / s);
    } else {
        float s = sqrtf(1.0f + m22 - m00 - m11) * 2.0f;
        q = qm_q((m02 + m20) / s, (m12 + m21) / s, 0.25f * s, (m10 - m01) / s);
    }
    return qm_qnorm(q);
}

/* The rotation taking unit vector a to unit vector b by the shortest arc. */
static qm_quat quat_between(qm_vec3 a, qm_vec3 b) {
    qm_vec3 c = qm_cross(a, b);
    float d = qm_dot3(a, b);
    if (d < -0.9999f) { /* opposite: any perpendicular axis */
        qm_vec3 axis = fabsf(a.x) < 0.9f ? qm_cross(a, qm_v3(1, 0, 0)) : qm_cross(a, qm_v3(0, 1, 0));
        return qm_qaxis(axis, PI_F);
    }
    return qm_qnorm(qm_q(c.x, c.y, c.z, 1.0f + d));
}

/* Sets joint j's local rotation so that its model-space bone direction (the
 * rest direction `rest_dir`) points along `dir`, shortest arc from the rest.
 * Joints above j must already be final in `local`. */
static void aim_joint(body *local, int j, qm_vec3 rest_dir, qm_vec3 dir) {
    body model;
    body_fk(local, &model);
    qm_quat want = quat_between(qm_norm3(rest_dir), qm_norm3(dir));
    local->q[j] = qm_qnorm(qm_qmul(qm_qconj(model.q[k_joints[j].parent]), want));
}

/* Two-bone leg IK. Puts the ankle (foot joint) of the leg starting at
 * `upleg` on `target` (model space) with the knee towards +Z, and gives the
 * foot the model rotation `foot_rot`. Returns 1 when the target is out of
 * reach (farther than 98% of the leg or nearer than 0.2 m), else 0. */
static int leg_ik(body *local, int upleg, qm_vec3 target, qm_quat foot_rot) {
    const int leg = upleg + 1, foot = upleg + 2;
    body model;
    body_fk(local, &model);
    const float l1 = qm_len3(local->t[leg]), l2 = qm_len3(local->t[foot]);
    qm_vec3 h = model.t[upleg];
    qm_vec3 dv = qm_sub(target, h);
    float d = qm_len3(dv);
    int bad = 0;
    if (d > 0.98f * (l1 + l2)) { bad = 1; d = 0.98f * (l1 + l2); }
    if (d < 0.2f) { bad = 1; d = 0.2f; }
    qm_vec3 u = qm_norm3(dv);
    qm_vec3 pole = qm_v3(0, 0, 1);
    qm_vec3 v = qm_norm3(qm_sub(pole, qm_scale(u, qm_dot3(pole, u))));
    float ca = clampf((l1 * l1 + d * d - l2 * l2) / (2.0f * l1 * d), -1.0f, 1.0f);
    float sa = sqrtf(fmaxf(0.0f, 1.0f - ca * ca));
    qm_vec3 t1 = qm_add(qm_scale(u, ca), qm_scale(v, sa));      /* thigh direction */
    qm_vec3 knee = qm_add(h, qm_scale(t1, l1));
    qm_vec3 ankle = qm_add(h, qm_scale(u, d));
    qm_vec3 t2 = qm_norm3(qm_sub(ankle, knee));                  /* shin direction */
    qm_vec3 n = qm_norm3(qm_cross(u, v));                        /* (-1,0,0) at rest */
    /* A bone frame maps rest down (0,-1,0) to the bone direction and rest
     * side (-1,0,0) to n; so X -> -n, Y -> -dir, Z -> -(dir x n). */
    qm_quat q1 = quat_from_axes(qm_scale(n, -1.0f), qm_scale(t1, -1.0f),
                                qm_scale(qm_cross(t1, n), -1.0f));
    qm_quat q2 = quat_from_axes(qm_scale(n, -1.0f), qm_scale(t2, -1.0f),
                                qm_scale(qm_cross(t2, n), -1.0f));
    local->q[upleg] = qm_qnorm(qm_qmul(qm_qconj(model.q[k_joints[upleg].parent]), q1));
    local->q[leg] = qm_qnorm(qm_qmul(qm_qconj(q1), q2));
    local->q[foot] = qm_qnorm(qm_qmul(qm_qconj(q2), foot_rot));
    local->q[foot + 1] = qm_qid();
    return bad;
}

/* Arms hanging at the sides: `down` is how far the upper arms come down from
 * the T-pose, `swing_l/_r` a pitch about the parent's X (positive = back),
 * `elbow_l/_r` the elbow bend towards the front. */
static void arms_hang(body *b, float down, float swing_l, float swing_r, float elbow_l,
                      float elbow_r) {
    b->q[J_UPPERARM_L] = qm_qmul(rot_x(swing_l), rot_z(-down));
    b->q[J_UPPERARM_R] = qm_qmul(rot_x(swing_r), rot_z(down));
    b->q[J_FOREARM_L] = rot_y(-elbow_l);
    b->q[J_FOREARM_R] = rot_y(elbow_r);
    b->q[J_HAND_L] = rot_z(-DEG(8.0f));
    b->q[J_HAND_R] = rot_z(DEG(8.0f));
}

/* ---- idle -------------------------------------------------------------- */

#define IDLE_PERIOD 3.0f
#define IDLE_HIPS 1.01f
#define STAND_FOOT_X 0.11f

/* Both feet flat on the ground under the hips. */
static int stand_feet(body *b) {
    int bad = leg_ik(b, J_UPLEG_L, qm_v3(STAND_FOOT_X, ANKLE_H, 0.0f), qm_qid());
    bad += leg_ik(b, J_UPLEG_R, qm_v3(-STAND_FOOT_X, ANKLE_H, 0.0f), qm_qid());
    return bad;
}

static int pose_idle(const void *ctx, float t, body *b) {
    (void)ctx;
    float w = 2.0f * PI_F * t / IDLE_PERIOD;
    body_rest(b);
    /* breathing: the hips bob 1 cm, the spine and chest pitch a little */
    b->t[J_HIPS] = qm_v3(0.006f * sm_sinf(w), IDLE_HIPS + 0.005f * sm_cosf(w), 0.0f);
    b->q[J_HIPS] = qm_qmul(rot_z(DEG(1.0f) * sm_sinf(w)), rot_x(DEG(2.0f)));
    b->q[J_SPINE] = rot_x(DEG(0.8f) * sm_sinf(w));
    b->q[J_SPINE1] = rot_x(DEG(-1.0f) * sm_sinf(w));
    b->q[J_CHEST] = qm_qmul(rot_z(DEG(-1.0f) * sm_sinf(w)), rot_x(DEG(-1.5f) * sm_sinf(w)));
    b->q[J_NECK] = rot_x(DEG(-1.0f));
    b->q[J_HEAD] = rot_x(DEG(1.0f) * sm_sinf(w));
    arms_hang(b, DEG(78.0f), DEG(1.5f) * sm_sinf(w), DEG(1.5f) * sm_sinf(w), DEG(12.0f), DEG(12.0f));
    return stand_feet(b);
}

/* ---- walk and run ------------------------------------------------------- */

typedef struct gait {
    float period;    /* seconds per cycle (two steps) */
    float speed;     /* m/s, root speed */
    float duty;      /* fraction of the cycle a foot is in contact */
    float lift;      /* swing height of the ankle, m */
    float lift_pow;  /* lift profile sin(pi s)^lift_pow: < 1 leaves the ground faster */
    float ramp;      /* share of the swing's world motion spent speeding up (and down) */
    float centre;    /* model z of the middle of the planted stretch */
    float foot_x;    /* ankle x */
    float hips_y, bob;   /* pelvis height and bob amplitude */
    float bob_phase;     /* cycle phase of the highest pelvis */
    float sway;          /* pelvis side sway, m */
    float lean;          /* pelvis pitch forward, rad */
    float spine_lean;    /* extra pitch of each of spine, spine1, chest */
    float yaw, roll;     /* pelvis twist and list amplitudes */
    float arm_down, arm_swing, arm_back, elbow, elbow_swing;
} gait;

static const gait k_walk = {
    .period = 0.9f, .speed = 1.5f, .duty = 0.55f, .lift = 0.12f, .lift_pow = 1.0f,
    .ramp = 0.25f, .centre = 0.0f, .foot_x = 0.10f,
    .hips_y = 0.915f, .bob = 0.012f, .bob_phase = 0.275f, .sway = 0.02f,
    .lean = DEG(3.0f), .spine_lean = DEG(1.0f), .yaw = DEG(5.0f), .roll = DEG(3.0f),
    .arm_down = DEG(78.0f), .arm_swing = DEG(20.0f), .arm_back = DEG(0.0f),
    .elbow = DEG(15.0f), .elbow_swing = DEG(10.0f),
};

/* The run leans forward: pelvis 9 deg plus 1.5 deg in each spine joint. */
static const gait k_run = {
    .period = 0.7f, .speed = 4.0f, .duty = 0.27f, .lift = 0.20f, .lift_pow = 0.7f,
    .ramp = 0.12f, .centre = 0.0f, .foot_x = 0.09f,
    .hips_y = 0.86f, .bob = 0.02f, .bob_phase = 0.385f, .sway = 0.015f,
    .lean = DEG(9.0f), .spine_lean = DEG(1.5f), .yaw = DEG(7.0f), .roll = DEG(3.0f),
    .arm_down = DEG(72.0f), .arm_swing = DEG(40.0f), .arm_back = DEG(-8.0f),
    .elbow = DEG(85.0f), .elbow_swing = DEG(15.0f),
};

/* The sliding measure counts a foot as planted while it is within FOOT_CLEAR
 * of its lowest height, and on a frame it adds the distance moved since the
 * previous frame. So a swinging foot holds its world position until
 * HOLD_MARGIN seconds (one frame at 40 Hz and up) after it has risen above
 * FOOT_CLEAR, and again from HOLD_MARGIN before it comes back below. */
#define FOOT_CLEAR 0.02f
#define HOLD_MARGIN 0.025f

/* Fraction of the swing at each end during which the foot stays put. */
static float gait_hold(const gait *g) {
    float swing_time = (1.0f - g->duty) * g->period;
    float s_clear = sm_asinf(sm_powf(FOOT_CLEAR / g->lift, 1.0f / g->lift_pow)) / PI_F;
    return s_clear + HOLD_MARGIN / swing_time;
}

/* World motion of a swing, 0..1 over u = 0..1: the velocity eases in over
 * the first `r` (smoothstep), holds, and eases out over the last `r`. A
 * quicker start than smootherstep keeps the foot from drifting far behind
 * the hips in model space before it comes forward. */
static float swing_profile(float u, float r) {
    if (u <= 0.0f) return 0.0f;
    if (u >= 1.0f) return 1.0f;
    if (u > 1.0f - r) return 1.0f - swing_profile(1.0f - u, r);
    float vm = 1.0f / (1.0f - r);
    if (u < r) {
        float x = u / r;
        return vm * r * (x * x * x - 0.5f * x * x * x * x);
    }
    return vm * (0.5f * r + u - r);
}

/* The ankle's model-space target at cycle phase p (0 = heel strike). */
static qm_vec3 gait_ankle(const gait *g, float p, float x) {
    const float stride = g->speed * g->period;        /* world metres per cycle */
    const float swing = 1.0f - g->duty;
    const float hold = gait_hold(g);
    const float lift_at = g->duty + hold * swing;      /* leaves its world spot */
    const float moving = swing * (1.0f - 2.0f * hold); /* phase span moving in world */
    float world = 0.0f;
    if (p >= lift_at + moving) world = stride;
    else if (p > lift_at) world = stride * swing_profile((p - lift_at) / moving, g->ramp);
    /* planted stretch centred on `centre`: from z0 + stride*hold*swing down
     * to z0 - stride*lift_at, with z0 the model z at heel strike */
    float z0 = g->centre + 0.5f * stride * g->duty;
    float z = z0 + world - stride * p;
    float y = ANKLE_H;
    if (p > g->duty)
        y += g->lift * sm_powf(fmaxf(0.0f, sm_sinf(PI_F * (p - g->duty) / swing)), g->lift_pow);
    return qm_v3(x, y, z);
}

static int pose_gait(const void *ctx, float t, body *b) {
    const gait *g = ctx;
    const float p = frac(t / g->period);
    const float c = 2.0f * PI_F * p;
    body_rest(b);
    /* pelvis: bob twice a cycle, sway over the stance foot, twist, list */
    float mid = 0.5f * g->duty; /* left mid-stance */
    b->t[J_HIPS] = qm_v3(g->sway * sm_cosf(c - 2.0f * PI_F * mid),
                         g->hips_y + g->bob * sm_cosf(2.0f * c - 4.0f * PI_F * g->bob_phase), 0.0f);
    float yaw = -g->yaw * sm_cosf(c);
    float roll = g->roll * sm_cosf(c - 2.0f * PI_F * mid);
    float pitch = g->lean + DEG(1.0f) * sm_cosf(2.0f * c);
    b->q[J_HIPS] = qm_qmul(rot_y(yaw), qm_qmul(rot_z(roll), rot_x(pitch)));
    /* spine: leans with the gait, turns the chest against the pelvis */
    b->q[J_SPINE] = qm_qmul(rot_y(-0.6f * yaw), qm_qmul(rot_z(-0.5f * roll), rot_x(g->spine_lean)));
    b->q[J_SPINE1] = qm_qmul(rot_y(-0.5f * yaw), rot_x(g->spine_lean));
    b->q[J_CHEST] = qm_qmul(rot_y(-0.5f * yaw), qm_qmul(rot_z(-0.4f * roll), rot_x(g->spine_lean)));
    float trunk = g->lean + 3.0f * g->spine_lean;
    b->q[J_NECK] = rot_x(-0.4f * trunk);
    b->q[J_HEAD] = qm_qmul(rot_y(0.4f * yaw), rot_x(-0.5f * trunk));
    /* arms against the legs: the left arm is back when the left foot strikes */
    float sw = g->arm_swing * sm_cosf(c);
    float base = g->arm_back - 0.8f * trunk;
    arms_hang(b, g->arm_down, base + sw, base - sw,
              g->elbow + g->elbow_swing * 0.5f * (1.0f - sm_cosf(c)),
              g->elbow + g->elbow_swing * 0.5f * (1.0f + sm_cosf(c)));
    /* legs */
    int bad = leg_ik(b, J_UPLEG_L, gait_ankle(g, p, g->foot_x), qm_qid());
    bad += leg_ik(b, J_UPLEG_R, gait_ankle(g, frac(p + 0.5f), -g->foot_x), qm_qid());
    return bad;
}

/* ---- jump --------------------------------------------------------------- */

#define JUMP_DURATION 1.2f
#define JUMP_TAKEOFF 0.45f
#define JUMP_LAND 0.90f
#define JUMP_HIPS_OFF 1.0f  /* pelvis height at take-off and landing */
#define JUMP_RISE 0.32f     /* pelvis rise at the apex */

/* A piecewise curve through (kt, kv) keys, smoothstep between keys. */
static float curve(const float *kt, const float *kv, int n, float t) {
    if (t <= kt[0]) return kv[0];
    for (int i = 1; i < n; i++)
        if (t <= kt[i]) {
            float u = smoothstep((t - kt[i - 1]) / (kt[i] - kt[i - 1]));
            return kv[i - 1] + (kv[i] - kv[i - 1]) * u;
        }
    return kv[n - 1];
}

static int pose_jump(const void *ctx, float t, body *b) {
    (void)ctx;
    static const float kt[] = {0.0f, 0.10f, 0.33f, JUMP_TAKEOFF, JUMP_LAND, 1.03f, 1.2f};
    static const float hips[] = {IDLE_HIPS + 0.005f, IDLE_HIPS + 0.005f, 0.79f, JUMP_HIPS_OFF,
                                 JUMP_HIPS_OFF, 0.84f, IDLE_HIPS + 0.005f};
    static const float lean[] = {2.0f, 2.0f, 22.0f, 4.0f, 8.0f, 18.0f, 2.0f};
    static const float arm[] = {0.0f, 0.0f, 45.0f, -70.0f, -30.0f, -20.0f, 0.0f};
    static const float down[] = {78.0f, 78.0f, 75.0f, 60.0f, 70.0f, 75.0f, 78.0f};
    const int n = (int)(sizeof kt / sizeof kt[0]);
    body_rest(b);
    float y = curve(kt, hips, n, t);
    float tuck = 0.0f;
    if (t > JUMP_TAKEOFF && t < JUMP_LAND) {
        float u = (t - JUMP_TAKEOFF) / (JUMP_LAND - JUMP_TAKEOFF);
        y = JUMP_HIPS_OFF + JUMP_RISE * 4.0f * u * (1.0f - u);
        tuck = 0.20f * sm_sinf(PI_F * u);
    }
    float ln = DEG(curve(kt, lean, n, t));
    b->t[J_HIPS] = qm_v3(0.0f, y, 0.0f);
    b->q[J_HIPS] = rot_x(0.5f * ln);
    b->q[J_SPINE] = rot_x(0.2f * ln);
    b->q[J_SPINE1] = rot_x(0.15f * ln);
    b->q[J_CHEST] = rot_x(0.15f * ln);
    b->q[J_NECK] = rot_x(-0.5f * ln);
    b->q[J_HEAD] = rot_x(-0.3f * ln);
    float a = DEG(curve(kt, arm, n, t)) - 0.8f * ln;
    float dn = DEG(curve(kt, down, n, t));
    arms_hang(b, dn, a, a, DEG(15.0f), DEG(15.0f));
    /* feet on the ground except in flight, where they follow the pelvis up
     * and tuck under it */
    float fy = ANKLE_H;
    if (t > JUMP_TAKEOFF && t < JUMP_LAND) fy += (y - JUMP_HIPS_OFF) + tuck;
    int bad = leg_ik(b, J_UPLEG_L, qm_v3(STAND_FOOT_X, fy, 0.0f), qm_qid());
    bad += leg_ik(b, J_UPLEG_R, qm_v3(-STAND_FOOT_X, fy, 0.0f), qm_qid());
    return bad;
}

/* ---- wave --------------------------------------------------------------- */

#define WAVE_DURATION 1.8f

static int pose_wave(const void *ctx, float t, body *b) {
    (void)ctx;
    float w = 2.0f * PI_F * t / WAVE_DURATION;
    body_rest(b);
    b->t[J_HIPS] = qm_v3(-0.01f + 0.004f * sm_sinf(w), IDLE_HIPS + 0.003f * sm_cosf(w), 0.0f);
    b->q[J_HIPS] = qm_qmul(rot_z(DEG(-1.0f)), rot_x(DEG(2.0f)));
    b->q[J_SPINE] = rot_z(DEG(1.0f));
    b->q[J_SPINE1] = rot_x(DEG(0.5f) * sm_sinf(w));
    b->q[J_CHEST] = rot_z(DEG(1.0f));
    b->q[J_NECK] = rot_x(DEG(-1.0f));
    b->q[J_HEAD] = qm_qmul(rot_y(DEG(-10.0f)), rot_z(DEG(-3.0f)));
    arms_hang(b, DEG(78.0f), 0.0f, 0.0f, DEG(12.0f), 0.0f);
    /* right arm up and out, the forearm waving side to side three times */
    b->q[J_SHOULDER_R] = rot_z(DEG(-12.0f));
    aim_joint(b, J_UPPERARM_R, qm_v3(-1, 0, 0), qm_v3(-0.62f, 0.76f, 0.18f));
    float sway = DEG(25.0f) * sm_sinf(3.0f * w);
    aim_joint(b, J_FOREARM_R, qm_v3(-1, 0, 0), qm_v3(-sm_sinf(sway), sm_cosf(sway), 0.12f));
    float flick = DEG(35.0f) * sm_sinf(3.0f * w) + sway;
    aim_joint(b, J_HAND_R, qm_v3(-1, 0, 0), qm_v3(-sm_sinf(flick), sm_cosf(flick), 0.12f));
    return stand_feet(b);
}

/* ---- lean and breathe (additive sources; frame 0 = idle frame 0) --------- */

#define LEAN_DURATION 1.0f
#define BREATHE_PERIOD 3.0f

static int pose_lean(const void *ctx, float t, body *b) {
    (void)ctx;
    int bad = pose_idle(NULL, 0.0f, b);
    float a = DEG(20.0f / 3.0f) * smoothstep(t / 0.8f); /* per joint: 20 deg in all */
    b->q[J_SPINE] = qm_qmul(b->q[J_SPINE], rot_x(a));
    b->q[J_SPINE1] = qm_qmul(b->q[J_SPINE1], rot_x(a));
    b->q[J_CHEST] = qm_qmul(b->q[J_CHEST], rot_x(a));
    return bad;
}

static int pose_breathe(const void *ctx, float t, body *b) {
    (void)ctx;
    int bad = pose_idle(NULL, 0.0f, b);
    float s = 0.5f * (1.0f - sm_cosf(2.0f * PI_F * t / BREATHE_PERIOD)); /* 0 at t = 0 */
    b->q[J_SPINE1] = qm_qmul(b->q[J_SPINE1], rot_x(DEG(-1.5f) * s));
    b->q[J_CHEST] = qm_qmul(b->q[J_CHEST], rot_x(DEG(-2.5f) * s));
    b->q[J_SHOULDER_L] = qm_qmul(b->q[J_SHOULDER_L], rot_z(DEG(4.0f) * s));
    b->q[J_SHOULDER_R] = qm_qmul(b->q[J_SHOULDER_R], rot_z(DEG(-4.0f) * s));
    b->q[J_UPPERARM_L] = qm_qmul(b->q[J_UPPERARM_L], rot_z(DEG(-4.0f) * s)); /* arms stay down */
    b->q[J_UPPERARM_R] = qm_qmul(b->q[J_UPPERARM_R], rot_z(DEG(4.0f) * s));
    return bad;
}

/* ---- keying ------------------------------------------------------------- */

typedef int (*pose_fn)(const void *ctx, float t, body *out);

typedef struct clip_spec {
    const char *name;
    float duration;
    float rate;        /* keys per second */
    int loop;          /* the last key is made a copy of the first */
    float root_speed;  /* > 0: in place with a root path (0, 0, speed * t) */
    pose_fn pose;
    const void *ctx;
    int event_count;
    stance_event_desc events[2];
} clip_spec;

/* Samples spec->pose at spec->rate and builds the clip: a rotation track for
 * every joint and a translation track for the hips. */
static stance_status build_clip(const clip_spec *spec, const stance_skeleton *sk,
                                const stance_allocator *al, stance_clip **out,
                                stance_error *err) {
    const int keys = (int)lroundf(spec->duration * spec->rate) + 1;
    /* times, NJ rotation tracks, the hips translation track */
    const size_t floats = (size_t)keys * (1 + 4 * NJ + 3);
    const size_t bytes = floats * sizeof(float);
    float *buf = st_alloc(al, bytes, 16);
    if (!buf)
        return st_fail(err, STANCE_ERR_MEMORY, "builtin: %s: allocation of %zu key bytes failed",
                       spec->name, bytes);
    float *times = buf;
    float *rot = buf + keys;                       /* joint j at rot + j * keys * 4 */
    float *hips_t = rot + (size_t)keys * 4 * NJ;
    stance_status st = STANCE_OK;
    for (int k = 0; k < keys && st == STANCE_OK; k++) {
        float t = k == keys - 1 ? spec->duration : (float)k / spec->rate;
        times[k] = t;
        body b;
        int src = spec->loop && k == keys - 1 ? 0 : k;
        if (src != k) { /* a loop ends exactly where it starts */
            for (int j = 0; j < NJ; j++)
                memcpy(rot + ((size_t)j * keys + k) * 4, rot + (size_t)j * keys * 4, 4 * sizeof(float));
            memcpy(hips_t + (size_t)k * 3, hips_t, 3 * sizeof(float));
            continue;
        }
        if (spec->pose(spec->ctx, t, &b) != 0) {
            st = st_fail(err, STANCE_ERR_VALUE,
                         "builtin: %s: leg IK target out of reach at t = %.3f s", spec->name,
                         (double)t);
            break;
        }
        for (int j = 0; j < NJ; j++) {
            qm_quat q = qm_qnorm(b.q[j]);
            if (q.w < 0.0f) q = qm_qneg(q); /* one hemisphere: all angles are < 180 deg */
            float *r = rot + ((size_t)j * keys + k) * 4;
            r[0] = q.x; r[1] = q.y; r[2] = q.z; r[3] = q.w;
        }
        hips_t[k * 3 + 0] = b.t[J_HIPS].x;
        hips_t[k * 3 + 1] = b.t[J_HIPS].y;
        hips_t[k * 3 + 2] = b.t[J_HIPS].z;
    }
    if (st == STANCE_OK) {
        stance_track_desc tracks[NJ + 1];
        for (int j = 0; j < NJ; j++) {
            tracks[j].joint = j;
            tracks[j].channel = STANCE_CHANNEL_ROTATION;
            tracks[j].key_count = keys;
            tracks[j].times = times;
            tracks[j].values = rot + (size_t)j * keys * 4;
        }
        tracks[NJ].joint = J_HIPS;
        tracks[NJ].channel = STANCE_CHANNEL_TRANSLATION;
        tracks[NJ].key_count = keys;
        tracks[NJ].times = times;
        tracks[NJ].values = hips_t;
        float root_times[2] = {0.0f, spec->duration};
        float root_values[6] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, spec->root_speed * spec->duration};
        stance_clip_desc d;
        memset(&d, 0, sizeof d);
        d.name = spec->name;
        d.duration = spec->duration;
        d.track_count = NJ + 1;
        d.tracks = tracks;
        d.event_count = spec->event_count;
        d.events = spec->events;
        if (spec->root_speed > 0.0f) {
            d.root_key_count = 2;
            d.root_times = root_times;
            d.root_values = root_values;
            d.root_speed = spec->root_speed;
        }
        st = stance_clip_create(&d, sk, al, out, err);
    }
    st_free(al, buf, bytes);
    return st;
}

/* ---- public ------------------------------------------------------------- */

static stance_status build_skeleton(const stance_allocator *al, stance_skeleton **out,
                                    stance_error *err) {
    const char *names[NJ];
    int parents[NJ];
    stance_transform rest[NJ];
    for (int j = 0; j < NJ; j++) {
        names[j] = k_joints[j].name;
        parents[j] = k_joints[j].parent;
        rest[j] = stance_transform_identity();
        memcpy(rest[j].t, k_joints[j].t, sizeof rest[j].t);
    }
    stance_skeleton_desc d;
    memset(&d, 0, sizeof d);
    d.joint_count = NJ;
    d.names = names;
    d.parents = parents;
    d.rest = rest;
    return stance_skeleton_create(&d, al, out, err);
}

stance_status stance_builtin_create(const stance_allocator *allocator, stance_builtin *out,
                                    stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "builtin: out is NULL");
    memset(out, 0, sizeof *out);
    if (st_check_allocator(allocator, "builtin", err)) return STANCE_ERR_ARGUMENT;
    const float walk_len = k_walk.period, run_len = k_run.period;
    const clip_spec specs[STANCE_BUILTIN_CLIPS] = {
        {"idle", IDLE_PERIOD, KEY_RATE, 1, 0.0f, pose_idle, NULL, 0, {{NULL, 0.0f}, {NULL, 0.0f}}},
        {"walk", walk_len, GAIT_KEY_RATE, 1, k_walk.speed, pose_gait, &k_walk, 2,
         {{"foot_l", 0.0f}, {"foot_r", 0.5f * walk_len}}},
        {"run", run_len, GAIT_KEY_RATE, 1, k_run.speed, pose_gait, &k_run, 2,
         {{"foot_l", 0.0f}, {"foot_r", 0.5f * run_len}}},
        {"jump", JUMP_DURATION, KEY_RATE, 0, 0.0f, pose_jump, NULL, 2,
         {{"takeoff", JUMP_TAKEOFF}, {"land", JUMP_LAND}}},
        {"wave", WAVE_DURATION, KEY_RATE, 1, 0.0f, pose_wave, NULL, 0, {{NULL, 0.0f}, {NULL, 0.0f}}},
        {"lean", LEAN_DURATION, KEY_RATE, 0, 0.0f, pose_lean, NULL, 0, {{NULL, 0.0f}, {NULL, 0.0f}}},
        {"breathe", BREATHE_PERIOD, KEY_RATE, 1, 0.0f, pose_breathe, NULL, 0, {{NULL, 0.0f}, {NULL, 0.0f}}},
    };
    stance_status st = build_skeleton(allocator, &out->skeleton, err);
    for (int i = 0; i < STANCE_BUILTIN_CLIPS && st == STANCE_OK; i++) {
        st = build_clip(&specs[i], out->skeleton, allocator, &out->clips[i], err);
        if (st == STANCE_OK) out->clip_count = i + 1;
    }
    if (st == STANCE_OK) st = st_builtin_mesh(out->skeleton, allocator, &out->skin, &out->mesh, err);
    if (st != STANCE_OK) {
        stance_builtin_destroy(out);
        return st;
    }
    return st_ok(err);
}

void stance_builtin_destroy(stance_builtin *builtin) {
    if (!builtin) return;
    for (int i = 0; i < STANCE_BUILTIN_CLIPS; i++) {
        if (builtin->clips[i]) stance_clip_destroy(builtin->clips[i]);
        builtin->clips[i] = NULL;
    }
    stance_mesh_destroy(builtin->mesh);
    stance_skin_destroy(builtin->skin);
    builtin->mesh = NULL;
    builtin->skin = NULL;
    stance_skeleton_destroy(builtin->skeleton);
    builtin->skeleton = NULL;
    builtin->clip_count = 0;
}

const stance_clip *stance_builtin_clip(const stance_builtin *builtin, const char *name) {
    if (!builtin || !name) return NULL;
    for (int i = 0; i < builtin->clip_count && i < STANCE_BUILTIN_CLIPS; i++)
        if (builtin->clips[i] && strcmp(builtin->clips[i]->name, name) == 0)
            return builtin->clips[i];
    return NULL;
}
