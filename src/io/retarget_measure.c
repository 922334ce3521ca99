/* src/io/retarget_measure.c - the measures of a retargeted clip against its
 * source (stance_retarget_measure, issue 27 item 4): the shared segments'
 * direction error, the target's foot slide while the source's foot was
 * planted, the pelvis height ratio against the leg ratio and its drift
 * off the source's scaled path, the largest
 * frame-to-frame turn of a shared joint in both. The plan (maps, shared
 * slots, segments) is retarget.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/internal.h"
#include "core/math/qmath.h"
#include "io/retarget_internal.h"
#include "stance/build.h"
#include "stance/footlock.h"
#include "stance_lesson/lesson.h"

#define RATE 60.0f
#define DEG 57.29577951308232f

static qm_vec3 at(const stance_pose *m, int j) { return qm_v3(m->tx[j], m->ty[j], m->tz[j]); }
static qm_quat rot_at(const stance_pose *m, int j) { return qm_q(m->qx[j], m->qy[j], m->qz[j], m->qw[j]); }

/* Angle between two directions, degrees (0 when either is zero). */
static float angle_deg(qm_vec3 a, qm_vec3 b) {
    qm_vec3 c = qm_cross(a, b);
    return sm_atan2f(qm_len3(c), qm_dot3(a, b)) * DEG;
}

/* The leg sockets' mean height in a model pose. */
static float socket_y(const rt_side *x, const stance_pose *m) {
    return 0.5f * (m->ty[x->map.joint[STANCE_SLOT_LEFT_UPPER_LEG]] + m->ty[x->map.joint[STANCE_SLOT_RIGHT_UPPER_LEG]]);
}

static float flat(qm_vec3 d) { return sqrtf(d.x * d.x + d.z * d.z); }

typedef struct mwork {
    stance_pose sl, sm, tl, tm;
    stance_contacts *contacts;
} mwork;

static void mwork_free(mwork *w) {
    stance_pose_destroy(&w->sl), stance_pose_destroy(&w->sm), stance_pose_destroy(&w->tl), stance_pose_destroy(&w->tm);
    stance_contacts_destroy(w->contacts);
}

/* The source's travel (model units): the root path's, the hips' horizontal
 * travel, or an in-place walk's velocity x duration, the largest. */
static float source_travel(const rt_plan *p, const stance_clip *clip, int frames) {
    float travel = 0.0f, prev[3], cur[3];
    if (clip->root_key_count > 0) {
        float path = 0.0f;
        stance_clip_root_position(clip, 0.0f, prev, NULL);
        for (int f = 1; f < frames; f++) {
            float t = fminf((float)f / RATE, clip->duration);
            stance_clip_root_position(clip, t, cur, NULL);
            path += sqrtf((cur[0] - prev[0]) * (cur[0] - prev[0]) + (cur[2] - prev[2]) * (cur[2] - prev[2]));
            memcpy(prev, cur, sizeof prev);
        }
        travel = path;
    }
    float v[3];
    stance_walk_velocity(p->s.sk, clip, p->s.joint[STANCE_SLOT_LEFT_FOOT], p->s.joint[STANCE_SLOT_RIGHT_FOOT], NULL, v);
    float walk = sqrtf(v[0] * v[0] + v[2] * v[2]) * clip->duration;
    return walk > travel ? walk : travel;
}

stance_status stance_retarget_measure(const stance_clip *source_clip, const stance_skeleton *source,
                                      const stance_clip *target_clip, const stance_skeleton *target,
                                      const stance_retarget_desc *desc, stance_retarget_report *out, stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "stance_retarget_measure: NULL out");
    memset(out, 0, sizeof *out);
    out->worst_slot = -1;
    if (!source_clip || !target_clip) return st_fail(err, STANCE_ERR_ARGUMENT, "stance_retarget_measure: NULL clip");
    if (!source || !target || source_clip->joint_count != source->joint_count || target_clip->joint_count != target->joint_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "stance_retarget_measure: a clip is not made for its skeleton");
    rt_plan p;
    stance_status s = rt_plan_make(&p, source, target, desc, err);
    if (s) return s;
    mwork w;
    memset(&w, 0, sizeof w);
    s = stance_pose_create(&w.sl, source->joint_count, NULL, err);
    if (!s) s = stance_pose_create(&w.sm, source->joint_count, NULL, err);
    if (!s) s = stance_pose_create(&w.tl, target->joint_count, NULL, err);
    if (!s) s = stance_pose_create(&w.tm, target->joint_count, NULL, err);
    int feet[2] = {p.s.joint[STANCE_SLOT_LEFT_FOOT], p.s.joint[STANCE_SLOT_RIGHT_FOOT]};
    if (!s) s = rt_contacts(&p, source_clip, &w.contacts, err);
    float ground = 0.0f;
    if (!s) s = rt_source_ground(&p, source_clip, &ground, err);
    if (s) {
        mwork_free(&w);
        rt_plan_free(&p);
        return s;
    }
    snprintf(out->clip, sizeof out->clip, "%s", target_clip->name);
    int frames = (int)ceilf(source_clip->duration * RATE) + 1;
    if (frames > 1 << 22) frames = 1 << 22;
    double dir_sum = 0.0, pelvis_sum = 0.0, slide = 0.0;
    long dir_n = 0, pelvis_n = 0;
    qm_quat prev_s[STANCE_RETARGET_SLOTS], prev_t[STANCE_RETARGET_SLOTS];
    qm_vec3 prev_fs[2], prev_ft[2];
    int prev_planted[2] = {0, 0};
    int ss_hips = p.s.joint[STANCE_SLOT_HIPS];
    float hips_travel = 0.0f;
    qm_vec3 prev_hips = qm_v3(0, 0, 0);
    for (int f = 0; f < frames && !s; f++) {
        float t = fminf((float)f / RATE, source_clip->duration);
        s = stance_clip_sample(source_clip, t, NULL, &w.sl, err);
        if (!s) s = stance_local_to_model(&w.sm, &w.sl, source, NULL, err);
        if (!s) s = stance_clip_sample(target_clip, t, NULL, &w.tl, err);
        if (!s) s = stance_local_to_model(&w.tm, &w.tl, target, NULL, err);
        if (s) break;
        out->frames++;
        int segs = 0;
        for (int i = 0; i < STANCE_RETARGET_SLOTS; i++) {
            if (!p.shared[i]) continue;
            int sj = p.s.joint[i], tj = p.t.joint[i];
            if (p.next[i] >= 0) {
                int sn = p.s.joint[p.next[i]], tn = p.t.joint[p.next[i]];
                float a = angle_deg(qm_sub(at(&w.tm, tn), at(&w.tm, tj)), qm_sub(at(&w.sm, sn), at(&w.sm, sj)));
                dir_sum += a, dir_n++, segs++;
                if (a > out->direction_worst_deg) out->direction_worst_deg = a, out->worst_slot = i, out->worst_time = t;
            }
            qm_quat rs = rot_at(&w.sm, sj), rtq = rot_at(&w.tm, tj);
            if (f > 0) {
                float as = qm_qangle(prev_s[i], rs) * DEG, at_ = qm_qangle(prev_t[i], rtq) * DEG;
                if (as > out->source_step_deg) out->source_step_deg = as;
                if (at_ > out->step_deg) out->step_deg = at_;
            }
            prev_s[i] = rs, prev_t[i] = rtq;
        }
        out->segments = segs;
        float sh = socket_y(&p.s, &w.sm) - ground, th = socket_y(&p.t, &w.tm) - p.t.floor;
        if (sh > 1e-3f * p.s.leg) pelvis_sum += th / sh, pelvis_n++;
        {
            /* the leg sockets' midpoint against m_T,bind + k (m_S - m_S,bind), across */
            qm_vec3 ms = qm_scale(qm_add(at(&w.sm, p.s.joint[STANCE_SLOT_LEFT_UPPER_LEG]),
                                         at(&w.sm, p.s.joint[STANCE_SLOT_RIGHT_UPPER_LEG])), 0.5f);
            qm_vec3 mt = qm_scale(qm_add(at(&w.tm, p.t.joint[STANCE_SLOT_LEFT_UPPER_LEG]),
                                         at(&w.tm, p.t.joint[STANCE_SLOT_RIGHT_UPPER_LEG])), 0.5f);
            qm_vec3 want = qm_add(rt_v(p.t.socket), qm_scale(qm_sub(ms, rt_v(p.s.socket)), p.k));
            float d = flat(qm_sub(mt, want)) / p.t.leg;
            if (d > out->pelvis_drift_legs) out->pelvis_drift_legs = d, out->pelvis_drift_time = t;
        }
        qm_vec3 hp = at(&w.sm, ss_hips);
        if (f > 0) hips_travel += flat(qm_sub(hp, prev_hips));
        prev_hips = hp;
        int any = 0;
        for (int l = 0; l < 2; l++) {
            int tf = p.t.joint[l ? STANCE_SLOT_RIGHT_FOOT : STANCE_SLOT_LEFT_FOOT];
            qm_vec3 fs = at(&w.sm, feet[l]), ftp = at(&w.tm, tf);
            int planted = stance_contacts_planted(w.contacts, l, t);
            any |= planted;
            if (f > 0 && planted && prev_planted[l])
                slide += flat(qm_sub(qm_sub(ftp, prev_ft[l]), qm_scale(qm_sub(fs, prev_fs[l]), p.k)));
            prev_fs[l] = fs, prev_ft[l] = ftp, prev_planted[l] = planted;
        }
        out->planted_frames += any;
    }
    if (!s) {
        out->direction_mean_deg = dir_n ? (float)(dir_sum / (double)dir_n) : 0.0f;
        out->leg_ratio = p.k;
        out->pelvis_ratio = pelvis_n ? (float)(pelvis_sum / (double)pelvis_n) : 0.0f;
        float travel = source_travel(&p, source_clip, frames);
        if (hips_travel > travel) travel = hips_travel;
        out->travel = travel * p.k;
        out->slide_cm = (float)slide * 100.0f;
        out->slide_cm_per_m = out->travel >= 0.5f * p.t.leg ? out->slide_cm / out->travel : -1.0f;
        st_ok(err);
    }
    mwork_free(&w);
    rt_plan_free(&p);
    return s;
}
