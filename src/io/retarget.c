/* src/io/retarget.c - offline retargeting (stance/retarget.h, issue 27 item
 * 2): the plan shared by a clip's retargeting and its measures (both maps,
 * the bind poses in model space, the shared slots, their segments, the
 * rest-pose alignment, the leg ratio), one frame of the source played on the
 * target, the foot contacts kept with two-bone IK, and the clip and asset
 * built from it. The measures are retarget_measure.c's. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/internal.h"
#include "core/math/qmath.h"
#include "io/retarget_internal.h"
#include "stance/build.h"
#include "stance/footlock.h"
#include "stance/ik.h"
#include "stance_lesson/lesson.h"

/* The slot chains, top down; -1 ends a chain (the finger chains after). */
#define FINGER_CHAINS 10
static const int chains[5][5] = {
    {STANCE_SLOT_HIPS, STANCE_SLOT_SPINE, STANCE_SLOT_CHEST, STANCE_SLOT_NECK, STANCE_SLOT_HEAD},
    {STANCE_SLOT_LEFT_UPPER_LEG, STANCE_SLOT_LEFT_LOWER_LEG, STANCE_SLOT_LEFT_FOOT, STANCE_SLOT_LEFT_TOES, -1},
    {STANCE_SLOT_RIGHT_UPPER_LEG, STANCE_SLOT_RIGHT_LOWER_LEG, STANCE_SLOT_RIGHT_FOOT, STANCE_SLOT_RIGHT_TOES, -1},
    {STANCE_SLOT_LEFT_SHOULDER, STANCE_SLOT_LEFT_UPPER_ARM, STANCE_SLOT_LEFT_LOWER_ARM, STANCE_SLOT_LEFT_HAND, -1},
    {STANCE_SLOT_RIGHT_SHOULDER, STANCE_SLOT_RIGHT_UPPER_ARM, STANCE_SLOT_RIGHT_LOWER_ARM, STANCE_SLOT_RIGHT_HAND, -1},
};
static const int leg_slots[2][3] = {
    {STANCE_SLOT_LEFT_UPPER_LEG, STANCE_SLOT_LEFT_LOWER_LEG, STANCE_SLOT_LEFT_FOOT},
    {STANCE_SLOT_RIGHT_UPPER_LEG, STANCE_SLOT_RIGHT_LOWER_LEG, STANCE_SLOT_RIGHT_FOOT},
};

qm_vec3 rt_v(const float *p) { return qm_v3(p[0], p[1], p[2]); }
qm_quat rt_q(const float *q) { return qm_q(q[0], q[1], q[2], q[3]); }

/* The shortest rotation taking unit a onto unit b. */
qm_quat rt_swing(qm_vec3 a, qm_vec3 b) { return qm_swing(a, b); }

/* Unit direction from a to b; (0, 1, 0) when they meet. */
qm_vec3 rt_dir(qm_vec3 a, qm_vec3 b) {
    qm_vec3 d = qm_sub(b, a);
    float l = qm_len3(d);
    return l > 1e-12f ? qm_scale(d, 1.0f / l) : qm_v3(0, 1, 0);
}

/* The finger a joint's name names (0 thumb .. 4 little), -1 none: its name
 * after the last ':' or '|', lowercase, holding the finger's word. */
static int finger_of(const char *name) {
    const char *c = strrchr(name, ':'), *b = strrchr(name, '|');
    if (c) name = c + 1;
    if (b && b + 1 > name) name = b + 1;
    char low[64];
    size_t n = 0;
    for (; name[n] && n + 1 < sizeof low; n++) low[n] = (char)tolower((unsigned char)name[n]);
    low[n] = 0;
    static const char *const words[5][3] = {{"thumb", NULL, NULL}, {"index", NULL, NULL}, {"middle", NULL, NULL},
                                            {"ring", NULL, NULL}, {"little", "pinky", "pinkie"}};
    for (int f = 0; f < 5; f++)
        for (int w = 0; w < 3 && words[f][w]; w++)
            if (strstr(low, words[f][w])) return f;
    return -1;
}

/* Each side's fingers (stance_retarget_desc.fingers): under the hand, or the
 * lower arm without one, the shallowest joint naming each finger, then down
 * its first child, up to three joints. */
static void find_fingers(rt_side *x) {
    const stance_skeleton *sk = x->sk;
    for (int side = 0; side < 2; side++) {
        int root = x->map.joint[side ? STANCE_SLOT_RIGHT_HAND : STANCE_SLOT_LEFT_HAND];
        if (root < 0) root = x->map.joint[side ? STANCE_SLOT_RIGHT_LOWER_ARM : STANCE_SLOT_LEFT_LOWER_ARM];
        if (root < 0) continue;
        for (int f = 0; f < 5; f++) {
            int best = -1, best_depth = 0;
            for (int j = root + 1; j < sk->joint_count; j++) {
                if (!stance_skeleton_is_descendant(sk, j, root) || finger_of(stance_skeleton_joint_name(sk, j)) != f) continue;
                int depth = 0;
                for (int q = j; q != root; q = sk->parents[q]) depth++;
                if (best < 0 || depth < best_depth) best = j, best_depth = depth;
            }
            int *slot = &x->joint[STANCE_SLOT_FINGERS + 15 * side + 3 * f];
            for (int k = 0; k < 3 && best >= 0; k++) {
                for (int i = 0; i < STANCE_HUMANOID_SLOTS; i++)
                    if (x->map.joint[i] == best) best = -1; /* a joint the map gave a slot */
                if (best < 0) break;
                slot[k] = best;
                int child = -1;
                for (int j = best + 1; j < sk->joint_count && child < 0; j++)
                    if (sk->parents[j] == best) child = j;
                best = child;
            }
        }
    }
}

static stance_status side_make(rt_side *x, const stance_skeleton *sk, const char *map_file, int fingers, const char *who,
                               stance_error *err) {
    memset(x, 0, sizeof *x);
    x->sk = sk;
    stance_humanoid_map_desc md = {0};
    md.map_file = map_file;
    stance_status s = stance_humanoid_map_find(sk, &md, &x->map, err);
    if (s) return s;
    for (int l = 0; l < 2; l++)
        for (int i = 0; i < 3; i++)
            if (x->map.joint[leg_slots[l][i]] < 0)
                return st_fail(err, STANCE_ERR_NOT_FOUND, "retarget: the %s skeleton has no %s (stance retarget-map; --map)",
                               who, stance_humanoid_slot_name(leg_slots[l][i]));
    if (x->map.joint[STANCE_SLOT_HIPS] < 0)
        return st_fail(err, STANCE_ERR_NOT_FOUND, "retarget: the %s skeleton has no hips (stance retarget-map; --map)", who);
    x->pos = malloc(sizeof *x->pos * (size_t)sk->joint_count);
    x->rot = malloc(sizeof *x->rot * (size_t)sk->joint_count);
    if (!x->pos || !x->rot) return st_fail(err, STANCE_ERR_MEMORY, "retarget: out of memory");
    rt_rest_positions(sk, x->pos, x->rot);
    x->floor = 0.5f * (x->pos[x->map.joint[STANCE_SLOT_LEFT_FOOT]][1] + x->pos[x->map.joint[STANCE_SLOT_RIGHT_FOOT]][1]);
    float leg = 0.0f;
    for (int l = 0; l < 2; l++) {
        const int *g = leg_slots[l];
        qm_vec3 a = rt_v(x->pos[x->map.joint[g[0]]]), b = rt_v(x->pos[x->map.joint[g[1]]]), c = rt_v(x->pos[x->map.joint[g[2]]]);
        leg += 0.5f * (qm_len3(qm_sub(b, a)) + qm_len3(qm_sub(c, b)));
    }
    if (!(leg > 0.0f) || !isfinite(leg))
        return st_fail(err, STANCE_ERR_VALUE, "retarget: the %s skeleton's legs have no length at the bind pose", who);
    x->leg = leg;
    /* the pelvis: the hips when they carry both legs, else the legs' nearest
     * common ancestor (RobotExpressive: Body carries Hips and the legs) */
    int h = x->map.joint[STANCE_SLOT_HIPS], a = x->map.joint[STANCE_SLOT_LEFT_UPPER_LEG], b = x->map.joint[STANCE_SLOT_RIGHT_UPPER_LEG];
    x->pelvis = h;
    if (!stance_skeleton_is_descendant(sk, a, h) || !stance_skeleton_is_descendant(sk, b, h))
        for (int q = sk->parents[a]; q >= 0; q = sk->parents[q])
            if (stance_skeleton_is_descendant(sk, b, q)) {
                x->pelvis = q;
                break;
            }
    for (int i = 0; i < STANCE_RETARGET_SLOTS; i++) x->joint[i] = i < STANCE_HUMANOID_SLOTS ? x->map.joint[i] : -1;
    if (fingers) find_fingers(x);
    for (int c = 0; c < 3; c++)
        x->socket[c] = 0.5f * (x->pos[x->map.joint[STANCE_SLOT_LEFT_UPPER_LEG]][c] + x->pos[x->map.joint[STANCE_SLOT_RIGHT_UPPER_LEG]][c]);
    return STANCE_OK;
}

void rt_plan_free(rt_plan *p) {
    if (!p) return;
    free(p->s.pos), free(p->s.rot), free(p->t.pos), free(p->t.rot), free(p->tslot);
    memset(p, 0, sizeof *p);
}

stance_status rt_plan_make(rt_plan *p, const stance_skeleton *source, const stance_skeleton *target,
                           const stance_retarget_desc *desc, stance_error *err) {
    memset(p, 0, sizeof *p);
    stance_retarget_desc d = {0};
    if (desc) d = *desc;
    if (!source || !target) return st_fail(err, STANCE_ERR_ARGUMENT, "retarget: NULL skeleton");
    if (d.blend_time < 0.0f || !isfinite(d.blend_time) || d.blend_time > 10.0f)
        return st_fail(err, STANCE_ERR_ARGUMENT, "retarget: blend_time must be in [0, 10] s");
    p->blend_time = d.blend_time > 0.0f ? d.blend_time : 0.2f;
    p->free_feet = d.free_feet != 0;
    stance_status s = side_make(&p->s, source, d.source_map, d.fingers, "source", err);
    if (!s) s = side_make(&p->t, target, d.target_map, d.fingers, "target", err);
    if (!s && !(p->tslot = malloc(sizeof *p->tslot * (size_t)target->joint_count)))
        s = st_fail(err, STANCE_ERR_MEMORY, "retarget: out of memory");
    if (s) {
        rt_plan_free(p);
        return s;
    }
    p->k = p->t.leg / p->s.leg;
    for (int j = 0; j < target->joint_count; j++) p->tslot[j] = -1;
    for (int i = 0; i < STANCE_RETARGET_SLOTS; i++) {
        p->shared[i] = p->s.joint[i] >= 0 && p->t.joint[i] >= 0;
        p->next[i] = p->prev[i] = -1;
        p->align[i][3] = 1.0f;
        if (p->shared[i]) p->tslot[p->t.joint[i]] = i;
    }
    for (int c = 0; c < 5 + FINGER_CHAINS; c++) {
        qm_quat up = qm_qid(); /* the alignment of the last segment, for an end slot */
        int chain[5];
        for (int a = 0; a < 5; a++) chain[a] = c < 5 ? chains[c][a] : a < 3 ? STANCE_SLOT_FINGERS + 3 * (c - 5) + a : -1;
        for (int a = 0; a < 5 && chain[a] >= 0; a++) {
            int i = chain[a];
            if (!p->shared[i]) continue;
            for (int b = a + 1; b < 5 && chain[b] >= 0; b++)
                if (p->shared[chain[b]]) {
                    p->next[i] = chain[b];
                    p->prev[chain[b]] = i;
                    break;
                }
            qm_quat al = up;
            if (p->next[i] >= 0) {
                int n = p->next[i];
                qm_vec3 sd = rt_dir(rt_v(p->s.pos[p->s.joint[i]]), rt_v(p->s.pos[p->s.joint[n]]));
                qm_vec3 td = rt_dir(rt_v(p->t.pos[p->t.joint[i]]), rt_v(p->t.pos[p->t.joint[n]]));
                al = rt_swing(td, sd);
                p->sdir[i][0] = sd.x, p->sdir[i][1] = sd.y, p->sdir[i][2] = sd.z;
                up = al;
            }
            p->align[i][0] = al.x, p->align[i][1] = al.y, p->align[i][2] = al.z, p->align[i][3] = al.w;
        }
    }
    /* a joint its chain parent does not carry (an IK bone under the root) */
    for (int i = 0; i < STANCE_RETARGET_SLOTS; i++) {
        int q = p->prev[i];
        if (!p->shared[i] || q < 0) continue;
        int j = p->t.joint[i], pj = p->t.joint[q];
        if (stance_skeleton_is_descendant(target, j, pj)) continue;
        p->carried[i] = 1;
        qm_vec3 off = qm_sub(rt_v(p->t.pos[j]), rt_v(p->t.pos[pj]));
        off = qm_qrot(qm_qconj(rt_q(p->t.rot[pj])), off);
        p->carry[i][0] = off.x, p->carry[i][1] = off.y, p->carry[i][2] = off.z;
    }
    return st_ok(err);
}

/* Sets joint j's local translation so its model position is `pos`, given its
 * parent's model transform in (tpos, trot, tsc). */
static void place(const stance_skeleton *sk, int j, qm_vec3 pos, float (*tpos)[3], float (*trot)[4], float (*tsc)[3],
                  stance_pose *local) {
    int par = sk->parents[j];
    qm_vec3 v = pos;
    if (par >= 0) {
        v = qm_qrot(qm_qconj(rt_q(trot[par])), qm_sub(pos, rt_v(tpos[par])));
        v = qm_v3(v.x / tsc[par][0], v.y / tsc[par][1], v.z / tsc[par][2]);
    }
    local->tx[j] = v.x, local->ty[j] = v.y, local->tz[j] = v.z;
}

/* The model transforms of `local` (parents first). */
static void forward(const stance_skeleton *sk, const stance_pose *local, float (*tpos)[3], float (*trot)[4], float (*tsc)[3]) {
    for (int j = 0; j < sk->joint_count; j++) {
        int par = sk->parents[j];
        qm_quat pr = par >= 0 ? rt_q(trot[par]) : qm_qid();
        qm_vec3 pp = par >= 0 ? rt_v(tpos[par]) : qm_v3(0, 0, 0), ps = par >= 0 ? rt_v(tsc[par]) : qm_v3(1, 1, 1);
        qm_vec3 pos = qm_add(pp, qm_qrot(pr, qm_mul3(ps, qm_v3(local->tx[j], local->ty[j], local->tz[j]))));
        qm_quat rot = qm_qnorm(qm_qmul(pr, qm_q(local->qx[j], local->qy[j], local->qz[j], local->qw[j])));
        tpos[j][0] = pos.x, tpos[j][1] = pos.y, tpos[j][2] = pos.z;
        trot[j][0] = rot.x, trot[j][1] = rot.y, trot[j][2] = rot.z, trot[j][3] = rot.w;
        tsc[j][0] = ps.x * local->sx[j], tsc[j][1] = ps.y * local->sy[j], tsc[j][2] = ps.z * local->sz[j];
    }
}

/* Moves each carried joint where its chain parent carries it (after the
 * whole pose: the carrier may come later in joint order), then refreshes
 * the model transforms. */
static void carry_feet(const rt_plan *p, float (*tpos)[3], float (*trot)[4], float (*tsc)[3], stance_pose *local) {
    int any = 0;
    for (int i = 0; i < STANCE_RETARGET_SLOTS; i++) {
        if (!p->shared[i] || !p->carried[i]) continue;
        int j = p->t.joint[i], cj = p->t.joint[p->prev[i]];
        qm_vec3 pos = qm_add(rt_v(tpos[cj]), qm_qrot(rt_q(trot[cj]), rt_v(p->carry[i])));
        place(p->t.sk, j, pos, tpos, trot, tsc, local);
        any = 1;
    }
    if (any) forward(p->t.sk, local, tpos, trot, tsc);
}

/* One frame without foot IK: the target's local pose (`local`) and model
 * transforms (tpos, trot, tsc, joint_count each) from the source's model pose. */
static void rt_frame(const rt_plan *p, const stance_pose *smodel, float ground, float (*tpos)[3], float (*trot)[4],
                     float (*tsc)[3], stance_pose *local) {
    const stance_skeleton *sk = p->t.sk;
    stance_pose_set_rest(local, sk, NULL);
    for (int j = 0; j < sk->joint_count; j++) {
        const stance_transform *r = &sk->rest[j];
        int par = sk->parents[j], i = p->tslot[j];
        qm_quat pr = par >= 0 ? rt_q(trot[par]) : qm_qid();
        qm_vec3 pp = par >= 0 ? rt_v(tpos[par]) : qm_v3(0, 0, 0);
        qm_vec3 ps = par >= 0 ? rt_v(tsc[par]) : qm_v3(1, 1, 1);
        qm_quat rot = qm_qmul(pr, rt_q(r->r));
        qm_vec3 pos = qm_add(pp, qm_qrot(pr, qm_mul3(ps, rt_v(r->t))));
        if (i >= 0) {
            int sj = p->s.joint[i];
            qm_quat srot = qm_q(smodel->qx[sj], smodel->qy[sj], smodel->qz[sj], smodel->qw[sj]);
            qm_quat dq = qm_qmul(srot, qm_qconj(rt_q(p->s.rot[sj])));
            rot = qm_qmul(qm_qmul(dq, rt_q(p->align[i])), rt_q(p->t.rot[j]));
            if (p->next[i] >= 0) {
                int sn = p->s.joint[p->next[i]];
                qm_vec3 now = rt_dir(qm_v3(smodel->tx[sj], smodel->ty[sj], smodel->tz[sj]),
                                     qm_v3(smodel->tx[sn], smodel->ty[sn], smodel->tz[sn]));
                qm_vec3 pred = qm_qrot(dq, rt_v(p->sdir[i]));
                rot = qm_qmul(rt_swing(qm_norm3(pred), now), rot);
            }
            rot = qm_qnorm(rot);
        }
        if (j == p->t.pelvis) {
            if (i < 0) { /* a pelvis apart from the hips (RobotExpressive's Body): the source pelvis' turn */
                int sp = p->s.pelvis;
                qm_quat srot = qm_q(smodel->qx[sp], smodel->qy[sp], smodel->qz[sp], smodel->qw[sp]);
                rot = qm_qnorm(qm_qmul(qm_qmul(srot, qm_qconj(rt_q(p->s.rot[sp]))), rt_q(p->t.rot[j])));
            }
            {
                /* the leg sockets' midpoint follows the source's times k
                 * (its height above the source's lowest feet in the clip, onto
                 * the target's feet at the bind pose); the pelvis sits where
                 * its turn puts it */
                int a = p->s.joint[STANCE_SLOT_LEFT_UPPER_LEG], b = p->s.joint[STANCE_SLOT_RIGHT_UPPER_LEG];
                qm_vec3 sm = qm_scale(qm_v3(smodel->tx[a] + smodel->tx[b], smodel->ty[a] + smodel->ty[b],
                                            smodel->tz[a] + smodel->tz[b]), 0.5f);
                qm_vec3 tm = qm_add(rt_v(p->t.socket), qm_scale(qm_sub(sm, rt_v(p->s.socket)), p->k));
                tm.y = p->t.floor + p->k * (sm.y - ground);
                qm_quat turn = qm_qmul(rot, qm_qconj(rt_q(p->t.rot[j])));
                pos = qm_sub(tm, qm_qrot(turn, qm_sub(rt_v(p->t.socket), rt_v(p->t.pos[j]))));
                place(sk, j, pos, tpos, trot, tsc, local);
            }
        }
        if (i >= 0 || j == p->t.pelvis) {
            qm_quat lr = qm_qnorm(qm_qmul(qm_qconj(pr), rot));
            local->qx[j] = lr.x, local->qy[j] = lr.y, local->qz[j] = lr.z, local->qw[j] = lr.w;
        }
        tpos[j][0] = pos.x, tpos[j][1] = pos.y, tpos[j][2] = pos.z;
        trot[j][0] = rot.x, trot[j][1] = rot.y, trot[j][2] = rot.z, trot[j][3] = rot.w;
        tsc[j][0] = ps.x * r->s[0], tsc[j][1] = ps.y * r->s[1], tsc[j][2] = ps.z * r->s[2];
    }
    carry_feet(p, tpos, trot, tsc, local);
}

/* ---- the foot contacts: two-bone IK -------------------------------------- */

typedef struct foot_track {
    int was;          /* planted the frame before */
    qm_vec3 anchor_t; /* where the target's foot landed */
    qm_vec3 anchor_s; /* k x the source's foot then */
    qm_vec3 off;      /* the correction now */
    qm_vec3 off_lift; /* the correction at the lift */
    float since;      /* s since the lift */
    qm_vec3 nat;      /* the pose's foot at this key, before the IK */
    qm_vec3 shift;    /* ft[0] only: the pelvis' correction, kept while neither foot is down */
} foot_track;

static float smoothstep01(float x) {
    x = x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x;
    return x * x * (3.0f - 2.0f * x);
}

/* Moves each target foot after the source's while it is planted (at this
 * key or before the next, `span` s ahead). model is
 * scratch; tpos/trot/tsc are refreshed from the corrected pose. */
static stance_status feet_ik(const rt_plan *p, const stance_contacts *c, float time, float dt, float span, foot_track *ft,
                             const stance_pose *smodel, stance_pose *local, stance_pose *model, float (*tpos)[3],
                             float (*trot)[4], float (*tsc)[3], stance_error *err) {
    const stance_skeleton *sk = p->t.sk;
    stance_status s = stance_local_to_model(model, local, sk, NULL, err);
    if (s) return s;
    qm_vec3 goal[2];
    int moved = 0;
    float w[2]; /* how planted each foot is: 1, fading after the lift */
    for (int l = 0; l < 2; l++) {
        int fj = p->t.joint[leg_slots[l][2]], sf = p->s.joint[leg_slots[l][2]];
        qm_vec3 nat = qm_v3(model->tx[fj], model->ty[fj], model->tz[fj]);
        qm_vec3 src = qm_scale(qm_v3(smodel->tx[sf], smodel->ty[sf], smodel->tz[sf]), p->k);
        foot_track *f = &ft[l];
        /* planted at this key, or at a sample before the next one (a sample
         * at the next key, within a quarter sample, is the next key's: a
         * round trip's way back, on another key grid, plants it there too) */
        int planted = stance_contacts_planted(c, l, time);
        double from = (double)time * c->rate + 0.25, to = ((double)time + span) * c->rate - 0.25;
        for (int i = (int)floor(from) + 1; !planted && i < c->sample_count && i < to; i++)
            planted = stance_contacts_planted(c, l, (float)i / c->rate);
        if (planted) {
            if (!f->was) f->anchor_t = qm_add(nat, f->off), f->anchor_s = src;
            f->off = qm_sub(qm_add(f->anchor_t, qm_sub(src, f->anchor_s)), nat);
            f->off.y = 0.0f; /* the height stays the pose's: only sliding is mended */
            w[l] = 1.0f;
        } else {
            if (f->was) f->off_lift = f->off, f->since = 0.0f;
            f->since += dt;
            w[l] = 1.0f - smoothstep01(f->since / p->blend_time);
        }
        f->was = planted;
        f->nat = nat;
    }
    /* the pelvis takes the planted feet's corrections, weighted by how
     * planted each is (a foot fading out after its lift by its correction
     * then); with neither foot down it keeps the last one. On one foot the
     * pelvis takes all of it, pivoting about that foot, so the leg keeps the
     * source's direction; a foot in the air is no contact: its correction
     * fades into the pelvis' over blend_time (it goes with the pelvis), so it
     * lands where the body carries it. */
    qm_vec3 shift = ft[0].shift;
    float ws = w[0] + w[1];
    if (ws > 1e-6f) {
        qm_vec3 a = qm_scale(ft[0].was ? ft[0].off : ft[0].off_lift, w[0]);
        qm_vec3 b = qm_scale(ft[1].was ? ft[1].off : ft[1].off_lift, w[1]);
        shift = ft[0].shift = qm_scale(qm_add(a, b), 1.0f / ws);
    }
    for (int l = 0; l < 2; l++)
        if (!ft[l].was) {
            float u = smoothstep01(ft[l].since / p->blend_time);
            ft[l].off = qm_add(qm_scale(ft[l].off_lift, 1.0f - u), qm_scale(shift, u));
        }
    for (int l = 0; l < 2; l++) {
        goal[l] = qm_add(ft[l].nat, ft[l].off);
        moved |= qm_len3(ft[l].off) > 1e-6f * p->t.leg;
    }
    if (!moved) return STANCE_OK;
    /* besides that shift, the pelvis takes the planted feet's turn through
     * the leg sockets' midpoint (least squares, weighted as above: in double
     * support a wide pelvis turning over two planted feet); the legs take the
     * rest. The pelvis' children keep their model rotations. The turn is
     * about the hips -> spine segment when it is shared and stands up (else
     * the vertical): a direction both skeletons give the same (the segment
     * points where the source's does) and that the turn leaves alone, so the
     * trunk keeps the source's direction, and a way back (a round trip)
     * turns its pelvis about the axis the way there did, whichever joint its
     * pelvis is (the hips; RobotExpressive's Body above them). */
    int h = p->t.pelvis;
    forward(sk, local, tpos, trot, tsc);
    qm_vec3 sock[2], mid;
    for (int l = 0; l < 2; l++) sock[l] = rt_v(tpos[p->t.joint[leg_slots[l][0]]]);
    mid = qm_scale(qm_add(sock[0], sock[1]), 0.5f);
    qm_vec3 axis = qm_v3(0, 1, 0);
    if (p->shared[STANCE_SLOT_HIPS] && p->next[STANCE_SLOT_HIPS] >= 0) {
        qm_vec3 u = rt_dir(rt_v(tpos[p->t.joint[STANCE_SLOT_HIPS]]), rt_v(tpos[p->t.joint[p->next[STANCE_SLOT_HIPS]]]));
        if (u.y > 0.5f) axis = u;
    }
    /* a turn by a small angle moves a socket by the angle times axis x r;
     * only its horizontal part is asked for (the corrections are horizontal) */
    float num = 0.0f, den = 0.0f;
    for (int l = 0; l < 2; l++) {
        qm_vec3 v = qm_cross(axis, qm_sub(sock[l], mid)), d = qm_sub(ft[l].off, shift);
        num += w[l] * (d.x * v.x + d.z * v.z);
        den += w[l] * (v.x * v.x + v.z * v.z);
    }
    float yaw = den > 1e-12f ? num / den : 0.0f;
    yaw = yaw > 0.5f ? 0.5f : yaw < -0.5f ? -0.5f : yaw;
    qm_quat q = qm_qaxis(axis, yaw);
    /* a turn about a leaning axis lifts one socket and lowers the other: the
     * foot goes with its socket (its height is the pose's, as it would be if
     * this were the pose's own turn), so the legs keep their bend. A round
     * trip's way back finds the way there's turn in its pose (the pelvis'
     * turn is transferred) and takes it back, feet and all */
    for (int l = 0; l < 2; l++) goal[l].y += qm_sub(qm_qrot(q, qm_sub(sock[l], mid)), qm_sub(sock[l], mid)).y;
    qm_quat hrot = qm_qnorm(qm_qmul(q, rt_q(trot[h])));
    qm_vec3 hpos = qm_add(qm_add(mid, qm_qrot(q, qm_sub(rt_v(tpos[h]), mid))), shift);
    int hp = sk->parents[h];
    qm_quat lr = qm_qnorm(qm_qmul(hp >= 0 ? qm_qconj(rt_q(trot[hp])) : qm_qid(), hrot));
    local->qx[h] = lr.x, local->qy[h] = lr.y, local->qz[h] = lr.z, local->qw[h] = lr.w;
    place(sk, h, hpos, tpos, trot, tsc, local);
    /* the shared joints next below the pelvis (the upper legs; the hips
     * under RobotExpressive's Body) keep their model rotations; joints no
     * slot names between (CMU's LHipJoint) are the pelvis' and turn with it,
     * so the sockets swing about their midpoint as the turn assumed */
    for (int ch = h + 1; ch < sk->joint_count; ch++) {
        int par = sk->parents[ch], a = par;
        if (p->tslot[ch] < 0 || par < 0) continue;
        while (a >= 0 && a != h && p->tslot[a] < 0) a = sk->parents[a];
        if (a != h) continue;
        qm_quat pr = par == h ? hrot : qm_qnorm(qm_qmul(q, rt_q(trot[par])));
        lr = qm_qnorm(qm_qmul(qm_qconj(pr), rt_q(trot[ch])));
        local->qx[ch] = lr.x, local->qy[ch] = lr.y, local->qz[ch] = lr.z, local->qw[ch] = lr.w;
    }
    forward(sk, local, tpos, trot, tsc);
    carry_feet(p, tpos, trot, tsc, local);
    s = stance_local_to_model(model, local, sk, NULL, err);
    if (s) return s;
    for (int l = 0; l < 2; l++) {
        const int *g = leg_slots[l];
        stance_two_bone_desc td = {0};
        td.upper = p->t.joint[g[0]], td.lower = p->t.joint[g[1]], td.end = p->t.joint[g[2]];
        td.target[0] = goal[l].x, td.target[1] = goal[l].y, td.target[2] = goal[l].z;
        td.keep_end_rotation = 1;
        s = stance_ik_two_bone(&td, 1.0f, sk, local, model, NULL, err);
        if (s) return s;
    }
    /* refresh the model transforms, then move carried feet after their leg */
    forward(sk, local, tpos, trot, tsc);
    carry_feet(p, tpos, trot, tsc, local);
    return STANCE_OK;
}

stance_status rt_source_ground(const rt_plan *p, const stance_clip *clip, float *ground, stance_error *err) {
    stance_pose l, m;
    stance_status s = stance_pose_create(&l, p->s.sk->joint_count, NULL, err);
    if (s) return s;
    s = stance_pose_create(&m, p->s.sk->joint_count, NULL, err);
    if (s) {
        stance_pose_destroy(&l);
        return s;
    }
    int a = p->s.joint[STANCE_SLOT_LEFT_FOOT], b = p->s.joint[STANCE_SLOT_RIGHT_FOOT];
    float low = INFINITY;
    for (int k = 0; k < clip->key_count && !s; k++) {
        s = stance_clip_sample(clip, clip->times[k], NULL, &l, err);
        if (!s) s = stance_local_to_model(&m, &l, p->s.sk, NULL, err);
        if (!s) low = fminf(low, fminf(m.ty[a], m.ty[b]));
    }
    stance_pose_destroy(&l), stance_pose_destroy(&m);
    *ground = isfinite(low) ? low : p->s.floor;
    return s;
}

/* The contact events a retargeted clip carries (the left foot, then the right). */
static const char *const contact_down[2] = {"footdown_l", "footdown_r"}, *const contact_up[2] = {"footup_l", "footup_r"};

/* 1 when the clip carries contacts as events: each foot has a down event
 * and its down and up events alternate, starting with a down (what
 * contact_events below writes). A foot planted through the end has no up
 * event (RobotExpressive's Punch, an idle), so the up events are not asked
 * for; footsteps marked by down events alone are not contacts. */
static int has_contact_events(const stance_clip *clip) {
    for (int l = 0; l < 2; l++) {
        int down = 0, last = 0; /* last: 1 after a down, 2 after an up */
        for (int e = 0; e < clip->event_count; e++) {
            int d = !strcmp(clip->events[e].name, contact_down[l]), u = !strcmp(clip->events[e].name, contact_up[l]);
            if ((d && last == 1) || (u && last != 1)) return 0;
            if (d) down = 1, last = 1;
            if (u) last = 2;
        }
        if (!down) return 0;
    }
    return 1;
}

/* A source foot that its lower leg does not carry (an IK bone under the
 * root: RobotExpressive's Foot.L) can be animated out of the leg's reach
 * (Punch's right foot, a third of a leg past it for 0.25 s). Its contacts
 * count only while it is where the leg puts it (its bind offset in the lower
 * leg's frame) within STANCE_CONTACT_HEIGHT_LEGS of the leg: elsewhere the
 * leg, which the target copies, is in the air, and the target's foot (at
 * its leg's end) is not that bone. The block is rt_contacts' own. */
static stance_status reachable_feet(const rt_plan *p, const stance_clip *clip, stance_contacts *c, stance_error *err) {
    const stance_skeleton *sk = p->s.sk;
    int foot[2], lower[2], any = 0;
    qm_vec3 off[2];
    for (int l = 0; l < 2; l++) {
        foot[l] = p->s.joint[leg_slots[l][2]], lower[l] = p->s.joint[leg_slots[l][1]];
        off[l] = qm_qrot(qm_qconj(rt_q(p->s.rot[lower[l]])), qm_sub(rt_v(p->s.pos[foot[l]]), rt_v(p->s.pos[lower[l]])));
        any |= !stance_skeleton_is_descendant(sk, foot[l], lower[l]);
    }
    if (!any) return STANCE_OK;
    stance_pose lo, mo;
    stance_status s = stance_pose_create(&lo, sk->joint_count, NULL, err);
    if (s) return s;
    s = stance_pose_create(&mo, sk->joint_count, NULL, err);
    if (s) {
        stance_pose_destroy(&lo);
        return s;
    }
    unsigned char *planted = (unsigned char *)c->planted;
    for (int i = 0; i < c->sample_count && !s; i++) {
        if (!planted[i] && !planted[c->sample_count + i]) continue;
        s = stance_clip_sample(clip, (float)i / c->rate, NULL, &lo, err);
        if (!s) s = stance_local_to_model(&mo, &lo, sk, NULL, err);
        for (int l = 0; l < 2 && !s; l++) {
            if (stance_skeleton_is_descendant(sk, foot[l], lower[l])) continue;
            int f = foot[l], j = lower[l];
            qm_vec3 at = qm_add(qm_v3(mo.tx[j], mo.ty[j], mo.tz[j]), qm_qrot(qm_q(mo.qx[j], mo.qy[j], mo.qz[j], mo.qw[j]), off[l]));
            if (qm_len3(qm_sub(at, qm_v3(mo.tx[f], mo.ty[f], mo.tz[f]))) > STANCE_CONTACT_HEIGHT_LEGS * p->s.leg)
                planted[l * c->sample_count + i] = 0;
        }
    }
    stance_pose_destroy(&lo), stance_pose_destroy(&mo);
    return s;
}

stance_status rt_contacts(const rt_plan *p, const stance_clip *clip, stance_contacts **out, stance_error *err) {
    int feet[2] = {p->s.joint[STANCE_SLOT_LEFT_FOOT], p->s.joint[STANCE_SLOT_RIGHT_FOOT]};
    stance_contact_desc cd = {0};
    cd.foot_count = 2, cd.feet = feet;
    if (clip->root_key_count == 0 && clip->root_speed == 0.0f)
        stance_walk_velocity(p->s.sk, clip, feet[0], feet[1], NULL, cd.root_velocity);
    stance_status s = stance_contacts_create(&cd, clip, p->s.sk, NULL, out, err);
    if (s) return s;
    if (!has_contact_events(clip)) return reachable_feet(p, clip, *out, err);
    /* the clip carries its contacts (a retargeted clip: its source's, below):
     * planted from each footdown event to the next footup event, at the same
     * samples, so a way back finds the contacts of the way there. The block
     * is this call's own (created above). */
    stance_contacts *c = *out;
    unsigned char *planted = (unsigned char *)c->planted;
    for (int l = 0; l < 2; l++) {
        int on = 0, e = 0;
        for (int i = 0; i < c->sample_count; i++) {
            float t = (float)i / c->rate;
            for (; e < clip->event_count && clip->events[e].time <= t; e++) {
                if (!strcmp(clip->events[e].name, contact_down[l])) on = 1;
                else if (!strcmp(clip->events[e].name, contact_up[l])) on = 0;
            }
            planted[l * c->sample_count + i] = (unsigned char)on;
        }
    }
    return s;
}

/* The contacts as events (footdown_l at a contact's first planted sample,
 * footup_l at the first sample after it; _r the right foot), after `ev`'s
 * first `n`; returns the new count. ev holds n + contact_event_count(c). */
static int contact_event_count(const stance_contacts *c) {
    int m = 0;
    for (int l = 0; l < 2; l++)
        for (int i = 0; i < c->sample_count; i++)
            m += c->planted[l * c->sample_count + i] != (i ? c->planted[l * c->sample_count + i - 1] : 0);
    return m;
}
static int contact_events(const stance_contacts *c, stance_event_desc *ev, int n) {
    for (int l = 0; l < 2; l++)
        for (int i = 0; i < c->sample_count; i++) {
            int now = c->planted[l * c->sample_count + i], before = i ? c->planted[l * c->sample_count + i - 1] : 0;
            if (now != before) ev[n].name = now ? contact_down[l] : contact_up[l], ev[n].time = (float)i / c->rate, n++;
        }
    return n;
}

/* ---- the clip -------------------------------------------------------------- */

typedef struct work {
    stance_pose slocal, smodel, tlocal, tmodel;
    float (*tpos)[3], (*trot)[4], (*tsc)[3];
    float *rvals, *tvals, *root_vals, *times;
    stance_track_desc *tracks;
    stance_event_desc *events;
    stance_contacts *contacts;
} work;

static void work_free(work *w) {
    stance_pose_destroy(&w->slocal), stance_pose_destroy(&w->smodel);
    stance_pose_destroy(&w->tlocal), stance_pose_destroy(&w->tmodel);
    free(w->tpos), free(w->trot), free(w->tsc), free(w->rvals), free(w->tvals), free(w->root_vals), free(w->times);
    free(w->tracks), free(w->events);
    stance_contacts_destroy(w->contacts);
}

static stance_status retarget_with(const rt_plan *p, const stance_clip *clip, const stance_allocator *allocator,
                                   stance_clip **out, stance_error *err) {
    const stance_skeleton *ts = p->t.sk, *ss = p->s.sk;
    if (clip->joint_count != ss->joint_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "retarget: clip '%s' has %d joints, the source skeleton %d", clip->name,
                       clip->joint_count, ss->joint_count);
    work w;
    memset(&w, 0, sizeof w);
    /* the source's key grid, or 60 keys a second where it is sparser (a
     * carried foot's translation is linear between keys, its leg turns) */
    int n = clip->key_count, tj = ts->joint_count;
    const float *times = clip->times;
    if (clip->duration > 0.0f && (float)n < clip->duration * 60.0f && clip->duration < 3600.0f) {
        n = (int)ceilf(clip->duration * 60.0f) + 1;
        if (!(w.times = malloc(sizeof(float) * (size_t)n))) return st_fail(err, STANCE_ERR_MEMORY, "retarget: out of memory");
        for (int k = 0; k < n; k++) w.times[k] = fminf((float)k / 60.0f, clip->duration);
        w.times[n - 1] = clip->duration;
        if (n > 1 && w.times[n - 2] >= clip->duration) n--, w.times[n - 1] = clip->duration;
        times = w.times;
    }
    int rot_joints[STANCE_RETARGET_SLOTS + 1], tr_joints[STANCE_RETARGET_SLOTS + 1], nr = 0, nt = 0;
    for (int j = 0; j < tj; j++) {
        int i = p->tslot[j];
        if (i < 0 && j != p->t.pelvis) continue;
        rot_joints[nr++] = j;
        if (j == p->t.pelvis || (i >= 0 && p->carried[i])) tr_joints[nt++] = j;
    }
    stance_status s = stance_pose_create(&w.slocal, ss->joint_count, NULL, err);
    if (!s) s = stance_pose_create(&w.smodel, ss->joint_count, NULL, err);
    if (!s) s = stance_pose_create(&w.tlocal, tj, NULL, err);
    if (!s) s = stance_pose_create(&w.tmodel, tj, NULL, err);
    if (s) {
        work_free(&w);
        return s;
    }
    w.tpos = malloc(sizeof *w.tpos * (size_t)tj);
    w.trot = malloc(sizeof *w.trot * (size_t)tj);
    w.tsc = malloc(sizeof *w.tsc * (size_t)tj);
    w.rvals = malloc(sizeof(float) * 4 * (size_t)n * (size_t)(nr ? nr : 1));
    w.tvals = malloc(sizeof(float) * 3 * (size_t)n * (size_t)(nt ? nt : 1));
    w.tracks = malloc(sizeof *w.tracks * (size_t)(nr + nt + 1));
    if (!p->free_feet) {
        s = rt_contacts(p, clip, &w.contacts, err);
        if (s) {
            work_free(&w);
            return s;
        }
    }
    /* the source's contacts go with the clip as events, unless it carries them */
    int extra = w.contacts && !has_contact_events(clip) ? contact_event_count(w.contacts) : 0;
    w.events = malloc(sizeof *w.events * (size_t)(clip->event_count + extra + 1));
    if (!w.tpos || !w.trot || !w.tsc || !w.rvals || !w.tvals || !w.tracks || !w.events) {
        work_free(&w);
        return st_fail(err, STANCE_ERR_MEMORY, "retarget: out of memory");
    }
    float ground = 0.0f;
    s = rt_source_ground(p, clip, &ground, err);
    if (s) {
        work_free(&w);
        return s;
    }
    foot_track ft[2];
    memset(ft, 0, sizeof ft);
    for (int k = 0; k < n && !s; k++) {
        float t = times[k];
        s = stance_clip_sample(clip, t, NULL, &w.slocal, err);
        if (!s) s = stance_local_to_model(&w.smodel, &w.slocal, ss, NULL, err);
        if (s) break;
        rt_frame(p, &w.smodel, ground, w.tpos, w.trot, w.tsc, &w.tlocal);
        if (w.contacts)
            s = feet_ik(p, w.contacts, t, k ? t - times[k - 1] : 0.0f, k + 1 < n ? times[k + 1] - t : 0.0f, ft, &w.smodel, &w.tlocal, &w.tmodel, w.tpos,
                        w.trot, w.tsc, err);
        for (int a = 0; a < nr; a++) {
            int j = rot_joints[a];
            float *v = w.rvals + 4 * ((size_t)a * (size_t)n + (size_t)k);
            v[0] = w.tlocal.qx[j], v[1] = w.tlocal.qy[j], v[2] = w.tlocal.qz[j], v[3] = w.tlocal.qw[j];
            if (k > 0 && v[0] * v[-4] + v[1] * v[-3] + v[2] * v[-2] + v[3] * v[-1] < 0.0f)
                v[0] = -v[0], v[1] = -v[1], v[2] = -v[2], v[3] = -v[3];
        }
        for (int a = 0; a < nt; a++) {
            int j = tr_joints[a];
            float *v = w.tvals + 3 * ((size_t)a * (size_t)n + (size_t)k);
            v[0] = w.tlocal.tx[j], v[1] = w.tlocal.ty[j], v[2] = w.tlocal.tz[j];
        }
    }
    if (s) {
        work_free(&w);
        return s;
    }
    int tc = 0;
    for (int a = 0; a < nr; a++)
        w.tracks[tc++] = (stance_track_desc){rot_joints[a], STANCE_CHANNEL_ROTATION, n, times, w.rvals + 4 * (size_t)a * (size_t)n};
    for (int a = 0; a < nt; a++)
        w.tracks[tc++] = (stance_track_desc){tr_joints[a], STANCE_CHANNEL_TRANSLATION, n, times, w.tvals + 3 * (size_t)a * (size_t)n};
    for (int e = 0; e < clip->event_count; e++) w.events[e].name = clip->events[e].name, w.events[e].time = clip->events[e].time;
    stance_clip_desc cd = {0};
    cd.name = clip->name;
    cd.duration = clip->duration;
    cd.track_count = tc;
    cd.tracks = w.tracks;
    cd.event_count = extra ? contact_events(w.contacts, w.events, clip->event_count) : clip->event_count;
    cd.events = w.events;
    cd.slerp = clip->slerp;
    if (clip->root_key_count > 0 && !clip->root_from_joint0) {
        w.root_vals = malloc(sizeof(float) * 3 * (size_t)clip->root_key_count);
        if (!w.root_vals) {
            work_free(&w);
            return st_fail(err, STANCE_ERR_MEMORY, "retarget: out of memory");
        }
        for (int i = 0; i < 3 * clip->root_key_count; i++) w.root_vals[i] = clip->root_values[i] * p->k;
        cd.root_key_count = clip->root_key_count;
        cd.root_times = clip->root_times;
        cd.root_values = w.root_vals;
        cd.root_yaw = clip->root_yaw;
        cd.root_speed = clip->root_speed * p->k;
    }
    s = stance_clip_create(&cd, ts, allocator, out, err);
    work_free(&w);
    return s;
}

stance_status stance_retarget_clip(const stance_clip *clip, const stance_skeleton *source, const stance_skeleton *target,
                                   const stance_retarget_desc *desc, const stance_allocator *allocator, stance_clip **out,
                                   stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "stance_retarget_clip: NULL out");
    *out = NULL;
    if (!clip) return st_fail(err, STANCE_ERR_ARGUMENT, "stance_retarget_clip: NULL clip");
    stance_status s = st_check_allocator(allocator, "stance_retarget_clip", err);
    if (s) return s;
    rt_plan p;
    s = rt_plan_make(&p, source, target, desc, err);
    if (s) return s;
    s = retarget_with(&p, clip, allocator, out, err);
    rt_plan_free(&p);
    return s;
}

stance_status stance_retarget_asset(stance_asset *target, const stance_asset *source, const stance_retarget_desc *desc,
                                    stance_error *err) {
    if (!target || !source || !target->skeleton || !source->skeleton)
        return st_fail(err, STANCE_ERR_ARGUMENT, "stance_retarget_asset: NULL or empty asset");
    if (target->graph) return st_fail(err, STANCE_ERR_ARGUMENT, "stance_retarget_asset: the target carries a graph (it points at its clips)");
    if (source->clip_count < 1) return st_fail(err, STANCE_ERR_ARGUMENT, "stance_retarget_asset: the source has no clips");
    rt_plan p;
    stance_status s = rt_plan_make(&p, source->skeleton, target->skeleton, desc, err);
    if (s) return s;
    int n = source->clip_count;
    stance_clip **clips = st_alloc(&target->allocator, sizeof *clips * (size_t)n, sizeof(void *));
    if (!clips) s = st_fail(err, STANCE_ERR_MEMORY, "retarget: out of memory");
    int made = 0;
    for (; !s && made < n; made++) {
        s = retarget_with(&p, source->clips[made], &target->allocator, &clips[made], err);
        if (s) break;
    }
    rt_plan_free(&p);
    if (s) {
        for (int i = 0; clips && i < made; i++) stance_clip_destroy(clips[i]);
        if (clips) st_free(&target->allocator, clips, sizeof *clips * (size_t)n);
        return s;
    }
    for (int i = 0; i < target->clip_count; i++) stance_clip_destroy(target->clips[i]);
    if (target->clips) st_free(&target->allocator, target->clips, sizeof(stance_clip *) * (size_t)target->clip_count);
    target->clips = clips;
    target->clip_count = n;
    return st_ok(err);
}
