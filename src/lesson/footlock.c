/* src/lesson/footlock.c - the project's one foot-sliding measure (used by the
 * layer experiments and by the foot-locking experiment), the walk velocity
 * of an in-place clip, the leg finder, and the foot-locking experiment:
 * a walk played alone with and without stance_footlock_apply. */
#include <string.h>

#include "core/base/internal.h"
#include "core/math/qmath.h"
#include "stance/build.h"
#include "stance/footlock.h"
#include "stance/ik.h"
#include "stance_lesson/lesson.h"

#define RAD2DEG 57.29577951308232f
#define SLIDE_BAND 0.02f /* a foot within 2 cm of its lowest counts as planted */

float stance_foot_slide(const float *pos, int frames, int feet, float metres) {
    if (!pos || frames < 2 || feet < 1 || feet > 16 || !(metres > 0.0f)) return 0.0f;
    float lowest[16], total = 0.0f;
    for (int k = 0; k < feet; k++) lowest[k] = 1e30f;
    for (int f = 0; f < frames; f++)
        for (int k = 0; k < feet; k++) {
            float y = pos[3 * ((size_t)f * (size_t)feet + (size_t)k) + 1];
            if (y < lowest[k]) lowest[k] = y;
        }
    for (int f = 1; f < frames; f++)
        for (int k = 0; k < feet; k++) {
            const float *p = pos + 3 * ((size_t)f * (size_t)feet + (size_t)k), *q = p - 3 * (size_t)feet;
            if (p[1] <= lowest[k] + SLIDE_BAND) {
                float dx = p[0] - q[0], dz = p[2] - q[2];
                total += sqrtf(dx * dx + dz * dz);
            }
        }
    return total * 100.0f / metres;
}

void stance_walk_velocity(const stance_skeleton *sk, const stance_clip *c, int fl, int fr, const stance_allocator *al,
                          float vel[3]) {
    if (!vel) return;
    vel[0] = vel[1] = vel[2] = 0.0f;
    if (!sk || !c || fl < 0 || fr < 0 || fl >= sk->joint_count || fr >= sk->joint_count) return;
    vel[2] = c->root_speed;
    if (c->root_speed > 0.0f) return;
    stance_pose l, m;
    if (stance_pose_create(&l, sk->joint_count, al, NULL)) return;
    if (stance_pose_create(&m, sk->joint_count, al, NULL)) { stance_pose_destroy(&l); return; }
    enum { N = 240 };
    const int feet[2] = {fl, fr};
    float lowest[2] = {1e30f, 1e30f}, sum[3] = {0, 0, 0}, prev[2][3] = {{0}};
    int count = 0;
    const float dt = c->duration / N;
    for (int pass = 0; pass < 2; pass++)
        for (int f = 0; f <= N; f++) {
            stance_clip_sample(c, dt * (float)f, NULL, &l, NULL);
            stance_local_to_model(&m, &l, sk, NULL, NULL);
            for (int k = 0; k < 2; k++) {
                float p[3] = {m.tx[feet[k]], m.ty[feet[k]], m.tz[feet[k]]};
                if (pass == 0 && p[1] < lowest[k]) lowest[k] = p[1];
                if (pass == 1 && f > 0 && p[1] <= lowest[k] + SLIDE_BAND && prev[k][1] <= lowest[k] + SLIDE_BAND) {
                    sum[0] += (p[0] - prev[k][0]) / dt, sum[2] += (p[2] - prev[k][2]) / dt;
                    count++;
                }
                memcpy(prev[k], p, sizeof p);
            }
        }
    if (count > 0) vel[0] = -sum[0] / (float)count, vel[2] = -sum[2] / (float)count;
    stance_pose_destroy(&l), stance_pose_destroy(&m);
}

stance_status stance_find_leg(const stance_skeleton *sk, int foot, int *hip, int *knee, stance_error *err) {
    if (!sk || !hip || !knee || foot < 0 || foot >= sk->joint_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "find leg: bad skeleton, foot or outputs");
    int p = sk->parents[foot], g = p >= 0 ? sk->parents[p] : -1;
    if (p >= 0 && g >= 0 && sk->parents[g] >= 0) { /* foot <- knee <- hip <- pelvis */
        *knee = p, *hip = g;
        return st_ok(err);
    }
    /* an IK control bone: the nearest joint of another branch is the knee */
    stance_pose l, m;
    stance_status s = stance_pose_create(&l, sk->joint_count, NULL, err);
    if (s) return s;
    if ((s = stance_pose_create(&m, sk->joint_count, NULL, err))) { stance_pose_destroy(&l); return s; }
    stance_pose_set_rest(&l, sk, NULL);
    stance_local_to_model(&m, &l, sk, NULL, NULL);
    int best = -1;
    float bd = 1e30f;
    for (int j = 0; j < sk->joint_count; j++) {
        int pj = sk->parents[j];
        if (j == foot || pj < 0 || sk->parents[pj] < 0) continue;
        if (stance_skeleton_is_descendant(sk, foot, j) || stance_skeleton_is_descendant(sk, j, foot)) continue;
        float dx = m.tx[j] - m.tx[foot], dy = m.ty[j] - m.ty[foot], dz = m.tz[j] - m.tz[foot];
        float dd = dx * dx + dy * dy + dz * dz;
        if (dd < bd) bd = dd, best = j;
    }
    stance_pose_destroy(&l), stance_pose_destroy(&m);
    if (best < 0) return st_fail(err, STANCE_ERR_NOT_FOUND, "find leg: no leg found for foot '%s'", stance_skeleton_joint_name(sk, foot));
    *knee = best, *hip = sk->parents[best];
    return st_ok(err);
}

static float rot_change(const stance_pose *a, const stance_pose *b, int j) {
    return qm_qangle(qm_q(a->qx[j], a->qy[j], a->qz[j], a->qw[j]), qm_q(b->qx[j], b->qy[j], b->qz[j], b->qw[j])) * RAD2DEG;
}

stance_status stance_footlock_run(const stance_footlock_setup *su, stance_footlock_result *res, stance_footlock_frame *frames,
                                  int frame_capacity, const stance_allocator *al, stance_error *err) {
    if (!su || !su->skeleton || !su->clip || !res) return st_fail(err, STANCE_ERR_ARGUMENT, "footlock: setup (skeleton, clip) or result is NULL");
    if (!(su->seconds >= 0.0f && su->seconds <= 60.0f)) return st_fail(err, STANCE_ERR_VALUE, "footlock: seconds must be in [0, 60]");
    if (frame_capacity < 0) return st_fail(err, STANCE_ERR_ARGUMENT, "footlock: frame_capacity < 0");
    const stance_skeleton *sk = su->skeleton;
    const stance_clip *clip = su->clip;
    memset(res, 0, sizeof *res);
    const char *names[2] = {su->foot_l, su->foot_r};
    stance_footlock_desc fd;
    memset(&fd, 0, sizeof fd);
    fd.leg_count = 2;
    fd.plant_time = su->plant_time;
    for (int k = 0; k < 2; k++) {
        res->foot[k] = names[k] ? stance_skeleton_find(sk, names[k]) : -1;
        if (res->foot[k] < 0) return st_fail(err, STANCE_ERR_NOT_FOUND, "footlock: no joint named '%s'", names[k] ? names[k] : "(null)");
        stance_status s = stance_find_leg(sk, res->foot[k], &res->hip[k], &res->knee[k], err);
        if (s) return s;
        fd.legs[k].upper = res->hip[k], fd.legs[k].lower = res->knee[k], fd.legs[k].foot = res->foot[k];
    }
    float vel[3];
    stance_walk_velocity(sk, clip, res->foot[0], res->foot[1], al, vel);
    res->speed = sqrtf(vel[0] * vel[0] + vel[2] * vel[2]);

    stance_contact_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.foot_count = 2, cd.feet = res->foot;
    if (!(clip->root_speed > 0.0f)) memcpy(cd.root_velocity, vel, sizeof vel);
    stance_contacts *contacts = NULL;
    stance_status s = stance_contacts_create(&cd, clip, sk, al, &contacts, err);
    if (s) return s;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < contacts->sample_count; i++) res->contacts_found += contacts->planted[k * contacts->sample_count + i];

    const float dt = 1.0f / 60.0f, secs = su->seconds > 0.0f ? su->seconds : 4.0f;
    const int n = (int)(secs * 60.0f + 0.5f);
    const size_t pos_bytes = sizeof(float) * 6 * (size_t)(n + 1);
    float *off = st_alloc(al, pos_bytes, 16), *on = st_alloc(al, pos_bytes, 16);
    stance_pose l, m, l2, m2;
    memset(&l, 0, sizeof l), memset(&m, 0, sizeof m), memset(&l2, 0, sizeof l2), memset(&m2, 0, sizeof m2);
    if (!off || !on) s = st_fail(err, STANCE_ERR_MEMORY, "footlock: out of memory");
    if (!s) s = stance_pose_create(&l, sk->joint_count, al, err);
    if (!s) s = stance_pose_create(&m, sk->joint_count, al, err);
    if (!s) s = stance_pose_create(&l2, sk->joint_count, al, err);
    if (!s) s = stance_pose_create(&m2, sk->joint_count, al, err);
    stance_footlock_state state;
    memset(&state, 0, sizeof state);
    const float along = res->speed > 0.0f ? 1.0f / res->speed : 0.0f;
    float t = 0.0f;
    for (int f = 0; !s && f <= n; f++) {
        if (f > 0) stance_clip_advance(clip, t, dt, 1, &t, NULL, 0, NULL, NULL, NULL);
        const float tf = (float)f * dt;
        stance_clip_sample(clip, t, NULL, &l, NULL);
        stance_local_to_model(&m, &l, sk, NULL, NULL);
        stance_pose_copy(&l2, &l, NULL), stance_pose_copy(&m2, &m, NULL);
        stance_transform root = stance_transform_identity();
        root.t[0] = vel[0] * tf, root.t[2] = vel[2] * tf;
        float contact[2];
        for (int k = 0; k < 2; k++) contact[k] = (float)stance_contacts_planted(contacts, k, t);
        s = stance_footlock_apply(&fd, &state, contact, &root, f ? dt : 0.0f, sk, &l2, &m2, err);
        if (s) break;
        if (state.pelvis_drop > res->max_pelvis_drop) res->max_pelvis_drop = state.pelvis_drop;
        for (int k = 0; k < 2; k++) {
            const int j = res->foot[k];
            float *po = off + 3 * (2 * (size_t)f + (size_t)k), *pn = on + 3 * (2 * (size_t)f + (size_t)k);
            po[0] = m.tx[j] + root.t[0], po[1] = m.ty[j], po[2] = m.tz[j] + root.t[2];
            memcpy(pn, state.feet[k].out, sizeof(float) * 3);
            float a;
            if ((a = rot_change(&l, &l2, res->hip[k])) > res->hip_deg) res->hip_deg = a;
            if ((a = rot_change(&l, &l2, res->knee[k])) > res->knee_deg) res->knee_deg = a;
            if ((a = rot_change(&l, &l2, j)) > res->ankle_deg) res->ankle_deg = a;
            if (frames && f < frame_capacity) {
                stance_footlock_frame *fr = &frames[f];
                fr->time = tf;
                fr->height_off[k] = po[1], fr->height_on[k] = pn[1];
                fr->track_off[k] = (po[0] * vel[0] + po[2] * vel[2]) * along;
                fr->track_on[k] = (pn[0] * vel[0] + pn[2] * vel[2]) * along;
                fr->planted[k] = (int)contact[k];
            }
        }
    }
    if (!s) {
        const float metres = res->speed * (float)n * dt;
        res->slide_off = stance_foot_slide(off, n + 1, 2, metres);
        res->slide_on = stance_foot_slide(on, n + 1, 2, metres);
        res->max_angle_deg = fmaxf(res->hip_deg, fmaxf(res->knee_deg, res->ankle_deg));
    }
    stance_pose_destroy(&l), stance_pose_destroy(&m), stance_pose_destroy(&l2), stance_pose_destroy(&m2);
    st_free(al, off, pos_bytes), st_free(al, on, pos_bytes);
    stance_contacts_destroy(contacts);
    return s ? s : st_ok(err);
}
