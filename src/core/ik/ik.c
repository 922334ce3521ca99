/* src/core/ik/ik.c - the IK jobs of stance/ik.h: analytic two-bone IK (law of
 * cosines, knee as a hinge, swing then pole twist at the upper joint, soft
 * limit) and aim distributed over a chain with per-joint weights and limits.
 *
 * Owns no state and allocates nothing; reads the model pose, writes only the
 * local rotations of the joints it solves. */
#include <string.h>

#include "core/base/internal.h"
#include "core/math/qmath.h"
#include "stance/ik.h"

#define IK_EPS 1e-6f
#define IK_PI 3.14159265358979f

static qm_vec3 mpos(const stance_pose *m, int j) { return qm_v3(m->tx[j], m->ty[j], m->tz[j]); }
static qm_quat mrot(const stance_pose *m, int j) { return qm_q(m->qx[j], m->qy[j], m->qz[j], m->qw[j]); }
static qm_quat parent_rot(const stance_skeleton *sk, const stance_pose *m, int j) {
    int p = sk->parents[j];
    return p >= 0 ? mrot(m, p) : qm_qid();
}
static void set_local_rot(stance_pose *l, int j, qm_quat q, float w) {
    qm_quat old = qm_q(l->qx[j], l->qy[j], l->qz[j], l->qw[j]);
    q = qm_qnorm(q);
    if (w < 1.0f) q = qm_nlerp(old, q, w);
    else if (qm_qdot(old, q) < 0.0f) q = qm_qneg(q); /* keep the sign the clip had */
    l->qx[j] = q.x, l->qy[j] = q.y, l->qz[j] = q.z, l->qw[j] = q.w;
}

/* The shortest rotation taking unit vector a to unit vector b. */
static qm_quat fromto(qm_vec3 a, qm_vec3 b) {
    float d = qm_dot3(a, b);
    if (d < -1.0f + 1e-6f) { /* opposite: half a turn about any perpendicular */
        qm_vec3 ax = qm_cross(a, qm_v3(1, 0, 0));
        if (qm_dot3(ax, ax) < 1e-6f) ax = qm_cross(a, qm_v3(0, 1, 0));
        return qm_qaxis(ax, IK_PI);
    }
    qm_vec3 c = qm_cross(a, b);
    return qm_qnorm(qm_q(c.x, c.y, c.z, 1.0f + d));
}

/* A unit vector perpendicular to unit v (deterministic). */
static qm_vec3 perpendicular(qm_vec3 v) {
    qm_vec3 a = fabsf(v.x) < 0.9f ? qm_v3(1, 0, 0) : qm_v3(0, 1, 0);
    return qm_norm3(qm_cross(v, a));
}

/* unit v, without overflow for far points; zero stays zero */
static qm_vec3 unit(qm_vec3 v) {
    const float big = fmaxf(fabsf(v.x), fmaxf(fabsf(v.y), fabsf(v.z)));
    return big > 0.0f ? qm_norm3(qm_scale(v, 1.0f / big)) : v;
}

static float clampf(float x, float lo, float hi) { return x < lo ? lo : x > hi ? hi : x; }

static int valid_pose(const stance_pose *p, const stance_skeleton *sk) {
    return p && p->memory && p->joint_count == sk->joint_count;
}

stance_status stance_ik_two_bone(const stance_two_bone_desc *d, float weight, const stance_skeleton *sk,
                                 stance_pose *local, const stance_pose *model, stance_two_bone_result *res,
                                 stance_error *err) {
    if (!d || !sk) return st_fail(err, STANCE_ERR_ARGUMENT, "two-bone IK: desc or skeleton is NULL");
    if (!valid_pose(local, sk) || !valid_pose(model, sk) || (const stance_pose *)local == model)
        return st_fail(err, STANCE_ERR_ARGUMENT, "two-bone IK: local and model must be two poses of the skeleton's %d joints",
                       sk->joint_count);
    const int n = sk->joint_count, u = d->upper, l = d->lower, e = d->end;
    if (u < 0 || u >= n || l < 0 || l >= n || e < 0 || e >= n || u == l || l == e || u == e)
        return st_fail(err, STANCE_ERR_ARGUMENT, "two-bone IK: joints %d, %d, %d must be three distinct joints in 0..%d", u, l, e, n - 1);
    if (!stance_skeleton_is_descendant(sk, l, u))
        return st_fail(err, STANCE_ERR_ARGUMENT, "two-bone IK: joint %d ('%s') is not below joint %d ('%s')", l,
                       stance_skeleton_joint_name(sk, l), u, stance_skeleton_joint_name(sk, u));
    const int end_child = stance_skeleton_is_descendant(sk, e, l);
    if (!end_child && stance_skeleton_is_descendant(sk, e, u))
        return st_fail(err, STANCE_ERR_ARGUMENT, "two-bone IK: end joint '%s' is below the upper joint but not below the lower one",
                       stance_skeleton_joint_name(sk, e));
    if (!st_finite_n(d->target, 3) || (d->use_pole && !st_finite_n(d->pole, 3)) || !st_finite_n(d->hinge, 3))
        return st_fail(err, STANCE_ERR_VALUE, "two-bone IK: target, pole and hinge must be finite");
    if (!(d->softness >= 0.0f && d->softness < 1.0f))
        return st_fail(err, STANCE_ERR_VALUE, "two-bone IK: softness %g is not in [0, 1)", (double)d->softness);
    if (!(weight >= 0.0f && weight <= 1.0f))
        return st_fail(err, STANCE_ERR_VALUE, "two-bone IK: weight %g is not in [0, 1]", (double)weight);
    stance_two_bone_result r = {0.0f, 0, 0};

    const qm_vec3 A = mpos(model, u), B = mpos(model, l), C = mpos(model, e), T = qm_v3(d->target[0], d->target[1], d->target[2]);
    const qm_vec3 ab = qm_sub(B, A), bc = qm_sub(C, B);
    const float l1 = qm_len3(ab), l2 = qm_len3(bc);
    if (l1 < IK_EPS || l2 < IK_EPS) {
        r.degenerate = 1, r.error = qm_len3(qm_sub(C, T));
        if (res) *res = r;
        return st_ok(err);
    }
    /* the direction to the target; on the upper joint itself: the current one */
    qm_vec3 at = qm_sub(T, A);
    /* the length and direction without overflow for far targets */
    const float big = fmaxf(fabsf(at.x), fmaxf(fabsf(at.y), fabsf(at.z)));
    const qm_vec3 at_s = big > 0.0f ? qm_scale(at, 1.0f / big) : at;
    float dist = big > 0.0f ? qm_len3(at_s) * big : 0.0f;
    qm_vec3 ac = qm_sub(C, A);
    qm_vec3 dir = dist > IK_EPS * (l1 + l2) ? qm_norm3(at_s)
                  : qm_len3(ac) > IK_EPS ? qm_norm3(ac) : qm_norm3(ab);
    /* the distance the chain will span: soft limit near full reach, and no
     * closer than the fold the bone lengths allow */
    const float reach = l1 + l2, fold = fabsf(l1 - l2);
    float span = dist;
    const float soft = d->softness * reach, da = reach - soft;
    if (soft > 0.0f && span > da) span = da + soft * (1.0f - sm_expf(-(span - da) / soft));
    if (span > reach) span = reach, r.unreachable = 1;
    if (span < fold) span = fold, r.unreachable = 1;
    if (dist > reach) r.unreachable = 1;

    /* 1. bend the knee about its hinge to the angle that spans `span` */
    qm_vec3 hinge = qm_cross(bc, qm_scale(ab, -1.0f));
    if (qm_len3(hinge) > 1e-4f * l1 * l2) {
        hinge = qm_norm3(hinge);
    } else { /* straight (or folded flat): the given hinge, or a fixed perpendicular */
        qm_vec3 h = qm_qrot(mrot(model, l), qm_v3(d->hinge[0], d->hinge[1], d->hinge[2]));
        qm_vec3 leg = qm_norm3(ab);
        h = qm_sub(h, qm_scale(leg, qm_dot3(h, leg)));
        hinge = qm_len3(h) > 1e-4f ? qm_norm3(h) : perpendicular(leg);
    }
    const float cur = sm_atan2f(qm_len3(qm_cross(ab, bc)), -qm_dot3(ab, bc)); /* angle at the knee, 0..pi */
    const float want = sm_acosf(clampf((l1 * l1 + l2 * l2 - span * span) / (2.0f * l1 * l2), -1.0f, 1.0f));
    const qm_quat qbend = qm_qaxis(hinge, cur - want);
    const qm_vec3 c1 = qm_add(B, qm_qrot(qbend, bc)); /* the end after bending */

    /* 2. swing the chain at the upper joint so the end lies on the target line */
    qm_vec3 ac1 = qm_sub(c1, A);
    qm_quat qtop = qm_len3(ac1) > IK_EPS ? fromto(qm_norm3(ac1), dir) : qm_qid();
    /* 3. twist about the target line so the knee points at the pole */
    if (d->use_pole) {
        qm_vec3 k = qm_qrot(qtop, ab);
        qm_vec3 p = qm_sub(qm_v3(d->pole[0], d->pole[1], d->pole[2]), A);
        k = qm_sub(k, qm_scale(dir, qm_dot3(k, dir)));
        p = qm_sub(p, qm_scale(dir, qm_dot3(p, dir)));
        if (qm_len3(k) > 1e-4f * l1 && qm_len3(p) > IK_EPS) {
            float ang = sm_atan2f(qm_dot3(dir, qm_cross(k, p)), qm_dot3(k, p));
            qtop = qm_qmul(qm_qaxis(dir, ang), qtop);
        }
    }
    const qm_vec3 end = qm_add(A, qm_qrot(qtop, ac1));
    {   /* in double: a far target's distance does not overflow */
        double ex = (double)end.x - T.x, ey = (double)end.y - T.y, ez = (double)end.z - T.z;
        double miss = sqrt(ex * ex + ey * ey + ez * ez);
        r.error = miss < 3e38 ? (float)miss : 3e38f;
    }

    /* local rotations: a model-space turn D of joint j is local' = inv(P) D M */
    const qm_quat U = mrot(model, u), L = mrot(model, l);
    const qm_quat upper_local = qm_qmul(qm_qconj(parent_rot(sk, model, u)), qm_qmul(qtop, U));
    const qm_quat lower_local = qm_qmul(qm_qconj(parent_rot(sk, model, l)), qm_qmul(qbend, L));
    set_local_rot(local, u, upper_local, weight);
    set_local_rot(local, l, lower_local, weight);
    if (d->keep_end_rotation && end_child) {
        /* the end's parent turned by qtop * qbend; undo that for the end */
        const qm_quat pe = qm_qmul(qtop, qm_qmul(qbend, parent_rot(sk, model, e)));
        set_local_rot(local, e, qm_qmul(qm_qconj(pe), mrot(model, e)), weight);
    }
    if (res) *res = r;
    return st_ok(err);
}

stance_status stance_ik_aim(const stance_aim_desc *d, float weight, const stance_skeleton *sk, stance_pose *local,
                            const stance_pose *model, stance_aim_result *res, stance_error *err) {
    if (!d || !sk) return st_fail(err, STANCE_ERR_ARGUMENT, "aim IK: desc or skeleton is NULL");
    if (!valid_pose(local, sk) || !valid_pose(model, sk) || (const stance_pose *)local == model)
        return st_fail(err, STANCE_ERR_ARGUMENT, "aim IK: local and model must be two poses of the skeleton's %d joints",
                       sk->joint_count);
    const int cn = d->chain_count;
    if (cn < 1 || cn > STANCE_AIM_MAX_CHAIN || !d->chain)
        return st_fail(err, STANCE_ERR_ARGUMENT, "aim IK: chain_count %d is not in 1..%d (or chain is NULL)", cn, STANCE_AIM_MAX_CHAIN);
    for (int i = 0; i < cn; i++) {
        int j = d->chain[i];
        if (j < 0 || j >= sk->joint_count) return st_fail(err, STANCE_ERR_ARGUMENT, "aim IK: chain[%d] = %d is not a joint", i, j);
        if (i > 0 && (j == d->chain[i - 1] || !stance_skeleton_is_descendant(sk, j, d->chain[i - 1])))
            return st_fail(err, STANCE_ERR_ARGUMENT, "aim IK: chain[%d] ('%s') is not below chain[%d]", i,
                           stance_skeleton_joint_name(sk, j), i - 1);
        if (d->weights && !(d->weights[i] >= 0.0f && d->weights[i] <= 1.0f))
            return st_fail(err, STANCE_ERR_VALUE, "aim IK: weights[%d] is not in [0, 1]", i);
        if (d->max_angles && !(d->max_angles[i] >= 0.0f && d->max_angles[i] <= IK_PI + 1e-4f))
            return st_fail(err, STANCE_ERR_VALUE, "aim IK: max_angles[%d] is not in [0, pi]", i);
    }
    if (!st_finite_n(d->target, 3) || !st_finite_n(d->forward, 3) || !st_finite_n(d->up, 3) ||
        (d->use_up && !st_finite_n(d->up_target, 3)))
        return st_fail(err, STANCE_ERR_VALUE, "aim IK: target, forward, up and up_target must be finite");
    if (!(weight >= 0.0f && weight <= 1.0f))
        return st_fail(err, STANCE_ERR_VALUE, "aim IK: weight %g is not in [0, 1]", (double)weight);
    qm_vec3 fwd = qm_v3(d->forward[0], d->forward[1], d->forward[2]);
    qm_vec3 up = qm_v3(d->up[0], d->up[1], d->up[2]);
    fwd = qm_len3(fwd) > IK_EPS ? qm_norm3(fwd) : qm_v3(0, 0, 1);
    up = qm_len3(up) > IK_EPS ? qm_norm3(up) : qm_v3(0, 1, 0);
    const qm_vec3 T = qm_v3(d->target[0], d->target[1], d->target[2]);
    stance_aim_result r = {0.0f, 0};

    qm_quat rot[STANCE_AIM_MAX_CHAIN], parent[STANCE_AIM_MAX_CHAIN];
    qm_vec3 pos[STANCE_AIM_MAX_CHAIN];
    for (int i = 0; i < cn; i++) {
        rot[i] = mrot(model, d->chain[i]), pos[i] = mpos(model, d->chain[i]);
        parent[i] = parent_rot(sk, model, d->chain[i]);
    }
    qm_vec3 to = qm_sub(T, pos[cn - 1]);
    if (qm_len3(to) < IK_EPS) {
        r.degenerate = 1;
        if (res) *res = r;
        return st_ok(err);
    }
    /* p, m: the chain's model positions and rotations as the joints turn;
     * acc: the turn of everything below the joint being solved */
    qm_vec3 p[STANCE_AIM_MAX_CHAIN];
    qm_quat m[STANCE_AIM_MAX_CHAIN];
    for (int i = 0; i < cn; i++) p[i] = pos[i], m[i] = rot[i];
    qm_quat acc = qm_qid();
    for (int i = 0; i < cn; i++) {
        qm_vec3 f = qm_qrot(m[cn - 1], fwd);
        qm_vec3 want = qm_sub(T, p[cn - 1]);
        if (qm_len3(want) < IK_EPS) break; /* the chain moved its end onto the target */
        want = unit(want);
        float angle = sm_atan2f(qm_len3(qm_cross(f, want)), qm_dot3(f, want));
        float share = d->weights ? d->weights[i] : 1.0f / (float)(cn - i);
        float a = angle * share;
        if (d->max_angles && a > d->max_angles[i]) a = d->max_angles[i];
        qm_quat q = qm_qid();
        if (angle > 1e-7f && a > 0.0f) {
            qm_vec3 axis = qm_cross(f, want);
            if (qm_len3(axis) < 1e-6f) axis = perpendicular(f); /* facing away: turn about any side axis */
            q = qm_qaxis(axis, a);
        }
        /* the joint's new local rotation: its parent has turned by acc (for
         * i > 0, the parent lies at or below chain[i - 1]) */
        qm_quat pnew = i > 0 ? qm_qmul(acc, parent[i]) : parent[i];
        qm_quat mnew = qm_qmul(q, m[i]);
        if (i == cn - 1 && d->use_up) {
            /* twist about the new forward so up leans towards up_target */
            qm_vec3 nf = qm_qrot(mnew, fwd), nu = qm_qrot(mnew, up);
            qm_vec3 ut = qm_v3(d->up_target[0], d->up_target[1], d->up_target[2]);
            nu = qm_sub(nu, qm_scale(nf, qm_dot3(nu, nf)));
            ut = qm_sub(ut, qm_scale(nf, qm_dot3(ut, nf)));
            if (qm_len3(nu) > 1e-4f && qm_len3(ut) > 1e-4f) {
                float tw = sm_atan2f(qm_dot3(nf, qm_cross(nu, ut)), qm_dot3(nu, ut));
                float wi = d->weights ? d->weights[i] : 1.0f;
                q = qm_qmul(qm_qaxis(nf, tw * wi), q);
                mnew = qm_qmul(q, m[i]);
            }
        }
        set_local_rot(local, d->chain[i], qm_qmul(qm_qconj(pnew), mnew), weight);
        /* turn this joint's subtree about its origin */
        for (int k = i; k < cn; k++) {
            if (k > i) p[k] = qm_add(p[i], qm_qrot(q, qm_sub(p[k], p[i])));
            m[k] = qm_qnorm(qm_qmul(q, m[k]));
        }
        acc = qm_qnorm(qm_qmul(q, acc));
    }
    qm_vec3 f = qm_qrot(m[cn - 1], fwd), want = qm_sub(T, p[cn - 1]);
    if (qm_len3(want) > IK_EPS) {
        want = unit(want);
        r.angle_error = sm_atan2f(qm_len3(qm_cross(f, want)), qm_dot3(f, want));
    }
    if (res) *res = r;
    return st_ok(err);
}
