/* src/lesson/footlock.c - the project's one foot-sliding measure (used by the
 * layer experiments and by the foot-locking experiment), the walk velocity
 * of an in-place clip, the leg finder, and the foot-locking experiment:
 * a walk played alone with and without stance_footlock_apply. */
#include <string.h>

#include "core/base/internal.h"
#include "core/math/smath.h"
#include "core/math/qmath.h"
#include "stance/build.h"
#include "stance/footlock.h"
#include "stance/ik.h"
#include "stance_lesson/lesson.h"

#define RAD2DEG 57.29577951308232f
float stance_foot_slide(const float *pos, int frames, int feet, float metres, float band, float speed, float dt) {
    if (!pos || frames < 2 || feet < 1 || feet > 16 || !(metres > 0.0f) || !(band >= 0.0f) || !(speed >= 0.0f) || !(dt > 0.0f))
        return 0.0f;
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
            if (p[1] <= lowest[k] + band) {
                float dx = p[0] - q[0], dz = p[2] - q[2], d = sqrtf(dx * dx + dz * dz);
                if (speed <= 0.0f || d < speed * dt) total += d;
            }
        }
    return total * 100.0f / metres;
}

void stance_slide_bands(const stance_skeleton *sk, const int *feet, int n, float root_speed, float *band, float *speed, float *leg_out) {
    float sum = 0.0f;
    int count = 0;
    for (int k = 0; sk && feet && k < n; k++) {
        float leg = 0.0f;
        if (!stance_leg_length(sk, feet[k], &leg, NULL)) sum += leg, count++;
    }
    float leg = count ? sum / (float)count : 0.0f;
    if (!(leg > 0.0f) && sk) { /* no leg: half the rest pose's height */
        stance_pose l, m;
        if (!stance_pose_create(&l, sk->joint_count, NULL, NULL)) {
            if (!stance_pose_create(&m, sk->joint_count, NULL, NULL)) {
                stance_pose_set_rest(&l, sk, NULL);
                stance_local_to_model(&m, &l, sk, NULL, NULL);
                float lo = m.ty[0], hi = m.ty[0];
                for (int j = 1; j < sk->joint_count; j++) lo = fminf(lo, m.ty[j]), hi = fmaxf(hi, m.ty[j]);
                leg = 0.5f * (hi - lo);
                stance_pose_destroy(&m);
            }
            stance_pose_destroy(&l);
        }
    }
    if (!(leg > 0.0f)) leg = 1.0f;
    if (band) *band = STANCE_SLIDE_BAND_LEGS * leg;
    if (speed) *speed = STANCE_CONTACT_SPEED_ROOT * (root_speed > 0.0f ? root_speed : 0.0f) + STANCE_CONTACT_SPEED_LEGS * leg;
    if (leg_out) *leg_out = leg;
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
    float band = 0.0f;
    stance_slide_bands(sk, feet, 2, 0.0f, &band, NULL, NULL);
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
                if (pass == 1 && f > 0 && p[1] <= lowest[k] + band && prev[k][1] <= lowest[k] + band) {
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
    return stance_leg_find(sk, foot, hip, knee, err);
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
    /* The frame the root defines: a root path (in-place clip) or joint 0's own
     * track (the pose moves: its horizontal travel is taken out of joint 0
     * and accumulated into the root, so nothing counts twice and a loop's
     * wrap does not jump); else the walk velocity (declared or estimated). */
    const int path = clip->root_key_count > 0;
    float vel[3];
    stance_walk_velocity(sk, clip, res->foot[0], res->foot[1], al, vel);
    if (path) vel[0] = 0.0f, vel[1] = 0.0f, vel[2] = clip->root_speed;
    if (su->speed > 0.0f && !path) {
        const float v = sqrtf(vel[0] * vel[0] + vel[2] * vel[2]);
        if (v > 0.0f) vel[0] *= su->speed / v, vel[2] *= su->speed / v;
        else vel[0] = 0.0f, vel[2] = su->speed;
    }
    res->speed = sqrtf(vel[0] * vel[0] + vel[2] * vel[2]);
    float band = 0.0f, vband = 0.0f;
    stance_slide_bands(sk, res->foot, 2, res->speed, &band, &vband, &res->leg);

    stance_contact_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.foot_count = 2, cd.feet = res->foot;
    if (!path && (!(clip->root_speed > 0.0f) || su->speed > 0.0f)) memcpy(cd.root_velocity, vel, sizeof vel);
    stance_contacts *contacts = NULL;
    stance_status s = stance_contacts_create(&cd, clip, sk, al, &contacts, err);
    if (s) return s;
    for (int k = 0; k < 2; k++) {
        const unsigned char *pl = contacts->planted + k * contacts->sample_count;
        for (int i = 0; i < contacts->sample_count; i++) {
            res->contacts_found += pl[i];
            if (pl[i] && (i == 0 || !pl[i - 1]) && res->contact_count[k] < STANCE_FOOTLOCK_MAX_CONTACTS) {
                int e = i;
                while (e + 1 < contacts->sample_count && pl[e + 1]) e++;
                res->contact_start[k][res->contact_count[k]] = (float)i / contacts->rate;
                res->contact_end[k][res->contact_count[k]] = fminf((float)(e + 1) / contacts->rate, contacts->duration);
                res->contact_count[k]++;
            }
        }
    }

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
    float p0[3] = {0, 0, 0}, acc[3] = {0, 0, 0}, metres = 0.0f, acc_yaw = 0.0f;
    /* a path with full rotation: the root's rotation so far (the steps turned by it, the height kept) */
    const int full = path && clip->root_rotation != NULL;
    qm_quat acc_q = qm_qid();
    if (path) stance_clip_root_position(clip, 0.0f, p0, NULL);
    float t = 0.0f;
    for (int f = 0; !s && f <= n; f++) {
        if (f > 0) {
            float d[3] = {0, 0, 0}, dyaw = 0.0f;
            if (full) {
                float q[4];
                stance_clip_root_motion_rot(clip, t, dt, 1, d, q, NULL);
                const qm_vec3 w = qm_qrot(acc_q, qm_v3(d[0], d[1], d[2]));
                acc_q = qm_qnorm(qm_qmul(acc_q, qm_q(q[0], q[1], q[2], q[3])));
                d[0] = w.x, d[2] = w.z, acc[1] += w.y;
            } else if (path) {
                stance_clip_root_motion_yaw(clip, t, dt, 1, d, &dyaw, NULL);
            } else {
                d[0] = vel[0] * dt, d[2] = vel[2] * dt;
            }
            if (acc_yaw != 0.0f) { /* the step is in the root's frame: turn it into the world's */
                const float c = sm_cosf(acc_yaw), sn = sm_sinf(acc_yaw), x = d[0];
                d[0] = c * x + sn * d[2], d[2] = -sn * x + c * d[2];
            }
            acc[0] += d[0], acc[2] += d[2], acc_yaw += dyaw;
            metres += sqrtf(d[0] * d[0] + d[2] * d[2]);
            stance_clip_advance(clip, t, dt, 1, &t, NULL, 0, NULL, NULL, NULL);
        }
        const float tf = (float)f * dt;
        stance_clip_sample(clip, t, NULL, &l, NULL);
        if (path && clip->root_from_joint0) {
            float r[3];
            stance_clip_root_position(clip, t, r, NULL);
            l.tx[0] -= r[0] - p0[0], l.tz[0] -= r[2] - p0[2];
        }
        stance_local_to_model(&m, &l, sk, NULL, NULL);
        stance_pose_copy(&l2, &l, NULL), stance_pose_copy(&m2, &m, NULL);
        stance_transform root = stance_transform_identity();
        root.t[0] = acc[0], root.t[2] = acc[2];
        if (acc_yaw != 0.0f) root.r[1] = sm_sinf(0.5f * acc_yaw), root.r[3] = sm_cosf(0.5f * acc_yaw);
        if (full) root.t[1] = acc[1], root.r[0] = acc_q.x, root.r[1] = acc_q.y, root.r[2] = acc_q.z, root.r[3] = acc_q.w;
        float contact[2];
        for (int k = 0; k < 2; k++) contact[k] = (float)stance_contacts_planted(contacts, k, t);
        s = stance_footlock_apply(&fd, &state, contact, &root, f ? dt : 0.0f, sk, &l2, &m2, err);
        if (s) break;
        if (state.pelvis_drop > res->max_pelvis_drop) res->max_pelvis_drop = state.pelvis_drop;
        const float hv = sqrtf(vel[0] * vel[0] + vel[2] * vel[2]), along = hv > 0.0f ? 1.0f / hv : 0.0f;
        for (int k = 0; k < 2; k++) {
            const int j = res->foot[k];
            float *po = off + 3 * (2 * (size_t)f + (size_t)k), *pn = on + 3 * (2 * (size_t)f + (size_t)k);
            if (full) {
                const qm_vec3 w = qm_qrot(acc_q, qm_v3(m.tx[j], m.ty[j], m.tz[j]));
                po[0] = w.x + root.t[0], po[1] = w.y + root.t[1], po[2] = w.z + root.t[2];
            } else if (acc_yaw != 0.0f) {
                const float c = sm_cosf(acc_yaw), sn = sm_sinf(acc_yaw);
                po[0] = c * m.tx[j] + sn * m.tz[j] + root.t[0], po[1] = m.ty[j], po[2] = -sn * m.tx[j] + c * m.tz[j] + root.t[2];
            } else {
                po[0] = m.tx[j] + root.t[0], po[1] = m.ty[j], po[2] = m.tz[j] + root.t[2];
            }
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
        if (!path) metres = res->speed * (float)n * dt;
        res->slide_off = stance_foot_slide(off, n + 1, 2, metres, band, vband, dt);
        res->slide_on = stance_foot_slide(on, n + 1, 2, metres, band, vband, dt);
        res->max_angle_deg = fmaxf(res->hip_deg, fmaxf(res->knee_deg, res->ankle_deg));
    }
    stance_pose_destroy(&l), stance_pose_destroy(&m), stance_pose_destroy(&l2), stance_pose_destroy(&m2);
    st_free(al, off, pos_bytes), st_free(al, on, pos_bytes);
    stance_contacts_destroy(contacts);
    return s ? s : st_ok(err);
}
