/* src/lesson/layers.c - the lesson's layer experiments: foot sliding with a
 * whole-body vs upper-body wave over a walk, and the arm angle error of a
 * right-arm wave over a run in local vs mesh space, with and without an
 * additive lean. Each configuration is a real graph with layers, run by the
 * instance runtime. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/internal.h"
#include "core/math/qmath.h"
#include "stance_lesson/lesson.h"
#include "stance/build.h"

#define RAD2DEG 57.29577951308232f

stance_status stance_builtin_layer_setup(const stance_builtin *b, stance_layer_setup *out, stance_error *err) {
    if (!b || !out) return st_fail(err, STANCE_ERR_ARGUMENT, "layer setup: builtin or out is NULL");
    memset(out, 0, sizeof *out);
    out->skeleton = b->skeleton;
    out->walk = stance_builtin_clip(b, "walk");
    out->run = stance_builtin_clip(b, "run");
    out->wave = stance_builtin_clip(b, "wave");
    out->lean = stance_builtin_clip(b, "lean");
    out->spine = "spine", out->arm = "upperarm_r", out->elbow = "forearm_r";
    out->foot_l = "foot_l", out->foot_r = "foot_r";
    if (!out->walk || !out->run || !out->wave || !out->lean)
        return st_fail(err, STANCE_ERR_NOT_FOUND, "layer setup: the built-in character lacks its %s clip",
                       !out->walk ? "walk" : !out->run ? "run" : !out->wave ? "wave" : "lean");
    return st_ok(err);
}

/* A lean made from the rest pose: 20 degrees forward (about model +X, the
 * character facing +Z) spread over the spine joint and the two below it. */
static stance_status make_lean(const stance_skeleton *sk, int spine, const stance_allocator *al, stance_clip **out,
                               stance_error *err) {
    const int J = sk->joint_count;
    stance_pose local, model;
    stance_status s = stance_pose_create(&local, J, al, err);
    if (s) return s;
    s = stance_pose_create(&model, J, al, err);
    if (s) { stance_pose_destroy(&local); return s; }
    stance_pose_set_rest(&local, sk, NULL);
    stance_local_to_model(&model, &local, sk, NULL, NULL);
    int chain[3], n = 0;
    for (int j = spine; j >= 0 && j < J && n < 3;) {
        chain[n++] = j;
        int next = -1;
        for (int k = j + 1; k < J; k++)
            if (sk->parents[k] == j) { next = k; break; }
        j = next;
    }
    float times[2] = {0.0f, 1.0f}, values[3][8];
    stance_track_desc tracks[3];
    const float step = 20.0f / RAD2DEG / (float)n;
    for (int i = 0; i < n; i++) {
        int j = chain[i];
        qm_quat rest = qm_q(local.qx[j], local.qy[j], local.qz[j], local.qw[j]);
        qm_quat mrot = qm_q(model.qx[j], model.qy[j], model.qz[j], model.qw[j]);
        /* a model-space pitch, seen in the joint's own frame */
        qm_quat d = qm_qmul(qm_qconj(mrot), qm_qmul(qm_qaxis(qm_v3(1, 0, 0), step), mrot));
        qm_quat leaned = qm_qnorm(qm_qmul(rest, d));
        float *v = values[i];
        v[0] = rest.x, v[1] = rest.y, v[2] = rest.z, v[3] = rest.w;
        v[4] = leaned.x, v[5] = leaned.y, v[6] = leaned.z, v[7] = leaned.w;
        tracks[i] = (stance_track_desc){j, STANCE_CHANNEL_ROTATION, 2, times, v};
    }
    stance_clip_desc cd = {.name = "lean (made)", .track_count = n, .tracks = tracks};
    s = stance_clip_create(&cd, sk, al, out, err);
    stance_pose_destroy(&local), stance_pose_destroy(&model);
    return s;
}

typedef struct rig {
    stance_graph *graph;
    stance_instance *inst;
    stance_workspace *ws;
    stance_clip *made_lean;
    float *mask;
} rig;

static void rig_free(rig *r, const stance_allocator *al) {
    stance_instance_destroy(r->inst);
    stance_workspace_destroy(r->ws);
    stance_graph_destroy(r->graph);
    stance_clip_destroy(r->made_lean);
    st_free(al, r->mask, sizeof(float) * STANCE_MAX_JOINTS);
    memset(r, 0, sizeof *r);
}

/* base clip, an additive lean (weight lean_on), and the wave on a mask
 * rooted at mask_root (-1 = whole body) in the given space. */
static stance_status rig_make(rig *r, const stance_layer_setup *su, const stance_clip *base, int lean_on,
                              int mask_root, stance_layer_space space, const stance_allocator *al, stance_error *err) {
    memset(r, 0, sizeof *r);
    const stance_skeleton *sk = su->skeleton;
    const stance_clip *lean = su->lean;
    stance_status s = STANCE_OK;
    if (!lean) {
        s = make_lean(sk, stance_skeleton_find(sk, su->spine), al, &r->made_lean, err);
        if (s) return s;
        lean = r->made_lean;
    }
    r->mask = st_alloc(al, sizeof(float) * STANCE_MAX_JOINTS, 16);
    if (!r->mask) { rig_free(r, al); return st_fail(err, STANCE_ERR_MEMORY, "layers: out of memory"); }
    if (mask_root >= 0) {
        s = stance_mask_subtree(sk, mask_root, 1.0f, 0, r->mask, err);
        if (s) { rig_free(r, al); return s; }
    }
    stance_state_desc sb = {.name = "Base", .clip = base}, sl = {.name = "Lean", .clip = lean, .once = 1};
    stance_state_desc sw = {.name = "Wave", .clip = su->wave};
    stance_machine_desc ms[3] = {{.name = "Base", .state_count = 1, .states = &sb},
                                 {.name = "Lean", .state_count = 1, .states = &sl},
                                 {.name = "Wave", .state_count = 1, .states = &sw}};
    stance_layer_desc ls[3] = {
        {.name = "base", .machine = "Base", .weight = 1.0f},
        {.name = "lean", .machine = "Lean", .weight = lean_on ? 1.0f : 0.0f, .mode = STANCE_LAYER_ADDITIVE},
        {.name = "wave", .machine = "Wave", .weight = 1.0f, .space = space, .mask = mask_root >= 0 ? r->mask : NULL},
    };
    stance_graph_desc gd = {.skeleton = sk, .machine_count = 3, .machines = ms, .layer_count = 3, .layers = ls};
    s = stance_graph_create(&gd, al, &r->graph, err);
    if (!s) s = stance_instance_create(r->graph, al, &r->inst, err);
    if (!s) s = stance_workspace_create(r->graph, al, &r->ws, err);
    if (s) rig_free(r, al);
    return s;
}

static stance_status check_setup(const stance_layer_setup *su, int *spine, int *arm, int *elbow, int *fl, int *fr,
                                 stance_error *err) {
    if (!su || !su->skeleton || !su->walk || !su->run || !su->wave)
        return st_fail(err, STANCE_ERR_ARGUMENT, "layers: the setup needs a skeleton and walk, run and wave clips");
    const stance_skeleton *sk = su->skeleton;
    const char *names[5] = {su->spine, su->arm, su->elbow, su->foot_l, su->foot_r};
    int *idx[5] = {spine, arm, elbow, fl, fr};
    for (int i = 0; i < 5; i++) {
        *idx[i] = stance_skeleton_find(sk, names[i]);
        if (*idx[i] < 0) return st_fail(err, STANCE_ERR_NOT_FOUND, "layers: no joint named '%s'", names[i] ? names[i] : "(null)");
    }
    if (!(su->seconds >= 0.0f && su->seconds <= 60.0f)) return st_fail(err, STANCE_ERR_VALUE, "layers: seconds must be in [0, 60]");
    return STANCE_OK;
}

/* mask_root: the wave's mask (-1 whole body, -2 no wave at all) */
static float slide(const stance_layer_setup *su, int mask_root, int fl, int fr, const stance_allocator *al,
                   stance_error *err, stance_status *st, float *speed) {
    rig r;
    *st = rig_make(&r, su, su->walk, 0, mask_root < -1 ? -1 : mask_root, STANCE_SPACE_LOCAL, al, err);
    if (*st) return -1.0f;
    if (mask_root < -1) stance_instance_set_layer_weight(r.inst, 2, 0.0f, 0.0f, NULL);
    float vel[3];
    stance_walk_velocity(su->skeleton, su->walk, fl, fr, al, vel);
    if (speed) *speed = sqrtf(vel[0] * vel[0] + vel[2] * vel[2]);
    const float dt = 1.0f / 60.0f, secs = su->seconds > 0.0f ? su->seconds : 4.0f;
    const float v = sqrtf(vel[0] * vel[0] + vel[2] * vel[2]);
    const int n = (int)(secs * 60.0f + 0.5f);
    const size_t bytes = sizeof(float) * 6 * (size_t)(n + 1);
    float *pos = st_alloc(al, bytes, 16);
    if (!pos) {
        rig_free(&r, al);
        *st = st_fail(err, STANCE_ERR_MEMORY, "layers: out of memory");
        return -1.0f;
    }
    int feet[2] = {fl, fr};
    for (int f = 0; f <= n; f++) {
        stance_instance_update(r.inst, f > 0 ? dt : 0.0f, r.ws, NULL);
        const stance_pose *m = stance_instance_model_pose(r.inst);
        const float tf = (float)f * dt;
        for (int k = 0; k < 2; k++) {
            float *p = pos + 3 * (2 * (size_t)f + (size_t)k);
            p[0] = m->tx[feet[k]] + vel[0] * tf, p[1] = m->ty[feet[k]], p[2] = m->tz[feet[k]] + vel[2] * tf;
        }
    }
    float band = 0.0f, vband = 0.0f;
    stance_slide_bands(su->skeleton, feet, 2, v, &band, &vband, NULL);
    float slide_cm = stance_foot_slide(pos, n + 1, 2, v * (float)n * dt, band, vband, dt);
    st_free(al, pos, bytes);
    rig_free(&r, al);
    return slide_cm;
}

float stance_arm_angle_deg(const stance_pose *a, const stance_pose *b, int arm, int elbow) {
    if (!a || !b || arm < 0 || elbow < 0 || arm >= a->joint_count || elbow >= a->joint_count || arm >= b->joint_count ||
        elbow >= b->joint_count)
        return -1.0f;
    qm_vec3 da = qm_norm3(qm_v3(a->tx[elbow] - a->tx[arm], a->ty[elbow] - a->ty[arm], a->tz[elbow] - a->tz[arm]));
    qm_vec3 db = qm_norm3(qm_v3(b->tx[elbow] - b->tx[arm], b->ty[elbow] - b->ty[arm], b->tz[elbow] - b->tz[arm]));
    float c = qm_dot3(da, db);
    float s = qm_len3(qm_cross(da, db));
    return sm_atan2f(s, c) * RAD2DEG;
}

float stance_arm_angle_to_clip(const stance_pose *model, const stance_clip *clip, float time, const stance_skeleton *sk,
                               int arm, int elbow, stance_pose *local, stance_pose *authored) {
    if (!model || !clip || !sk || !local || !authored || !st_finite(time)) return -1.0f;
    const int J = sk->joint_count;
    if (model->joint_count != J || local->joint_count != J || authored->joint_count != J) return -1.0f;
    if (stance_clip_sample(clip, time, NULL, local, NULL) || stance_local_to_model(authored, local, sk, NULL, NULL)) return -1.0f;
    return stance_arm_angle_deg(model, authored, arm, elbow);
}

/* Runs one arm configuration; with at_time >= 0 stops there and hands back the poses. */
static stance_status arm_run(const stance_layer_setup *su, stance_arm_config cfg, int arm, int elbow, float at_time,
                             float *worst, stance_pose *model_out, stance_pose *authored_out, const stance_allocator *al,
                             stance_error *err) {
    const int lean = cfg == STANCE_ARM_LOCAL_LEAN || cfg == STANCE_ARM_MESH_LEAN;
    const stance_layer_space space = cfg >= STANCE_ARM_MESH ? STANCE_SPACE_MESH : STANCE_SPACE_LOCAL;
    rig r;
    stance_status s = rig_make(&r, su, su->run, lean, arm, space, al, err);
    if (s) return s;
    const stance_skeleton *sk = su->skeleton;
    stance_pose wl, wm;
    s = stance_pose_create(&wl, sk->joint_count, al, err);
    if (!s) s = stance_pose_create(&wm, sk->joint_count, al, err);
    if (s) { stance_pose_destroy(&wl); rig_free(&r, al); return s; }
    const float dt = 1.0f / 60.0f, secs = at_time >= 0.0f ? at_time : (su->seconds > 0.0f ? su->seconds : 4.0f);
    const int n = (int)(secs * 60.0f + 0.5f);
    float wt = 0.0f;
    *worst = 0.0f;
    for (int f = 0; f <= n; f++) {
        stance_instance_update(r.inst, f ? dt : 0.0f, r.ws, NULL);
        if (f) stance_clip_advance(su->wave, wt, dt, 1, &wt, NULL, 0, NULL, NULL, NULL);
        float a = stance_arm_angle_to_clip(stance_instance_model_pose(r.inst), su->wave, wt, sk, arm, elbow, &wl, &wm);
        if (a > *worst) *worst = a;
        if (f == n && at_time >= 0.0f) {
            *worst = a;
            if (model_out) stance_pose_copy(model_out, stance_instance_model_pose(r.inst), NULL);
            if (authored_out) stance_pose_copy(authored_out, &wm, NULL);
        }
    }
    stance_pose_destroy(&wl), stance_pose_destroy(&wm);
    rig_free(&r, al);
    return STANCE_OK;
}

stance_status stance_layers_run(const stance_layer_setup *su, stance_layer_result *res, const stance_allocator *al,
                                stance_error *err) {
    int spine, arm, elbow, fl, fr;
    if (!res) return st_fail(err, STANCE_ERR_ARGUMENT, "layers: result is NULL");
    if (st_check_allocator(al, "layers", err)) return STANCE_ERR_ARGUMENT;
    stance_status s = check_setup(su, &spine, &arm, &elbow, &fl, &fr, err);
    if (s) return s;
    memset(res, 0, sizeof *res);
    res->slide_whole = slide(su, -1, fl, fr, al, err, &s, &res->walk_speed);
    if (s) return s;
    res->slide_upper = slide(su, spine, fl, fr, al, err, &s, NULL);
    if (s) return s;
    res->slide_base = slide(su, -2, fl, fr, al, err, &s, NULL);
    if (s) return s;
    float *out[4] = {&res->arm_local, &res->arm_local_lean, &res->arm_mesh, &res->arm_mesh_lean};
    for (int c = 0; c < 4; c++) {
        s = arm_run(su, (stance_arm_config)c, arm, elbow, -1.0f, out[c], NULL, NULL, al, err);
        if (s) return s;
    }
    return st_ok(err);
}

stance_status stance_layers_arm_pose(const stance_layer_setup *su, stance_arm_config cfg, float time, stance_pose *model,
                                     stance_pose *authored, float *angle, const stance_allocator *al, stance_error *err) {
    int spine, arm, elbow, fl, fr;
    if (st_check_allocator(al, "layers", err)) return STANCE_ERR_ARGUMENT;
    stance_status s = check_setup(su, &spine, &arm, &elbow, &fl, &fr, err);
    if (s) return s;
    if ((unsigned)cfg > STANCE_ARM_MESH_LEAN) return st_fail(err, STANCE_ERR_ARGUMENT, "layers: unknown arm configuration");
    if (!st_finite(time) || time < 0.0f || time > 60.0f) return st_fail(err, STANCE_ERR_VALUE, "layers: time must be in [0, 60] s");
    float a;
    s = arm_run(su, cfg, arm, elbow, time, &a, model, authored, al, err);
    if (!s && angle) *angle = a;
    return s;
}
