/* src/build/root_extract.c - root motion extraction (libstance_build): the
 * legs of a skeleton and their bind-pose length (the unit of the contact and
 * sliding thresholds), the pelvis finder, and in-place copies of clips whose
 * travel is in the pelvis' (or a root bone's) track: the travel becomes the
 * clip's root path (docs/root-motion.md). Creation-time work: allocates from
 * the caller's allocator. */
#include <string.h>

#include "core/base/internal.h"
#include "core/math/smath.h"
#include "core/math/qmath.h"
#include "stance/build.h"

stance_status stance_leg_find(const stance_skeleton *sk, int foot, int *hip, int *knee, stance_error *err) {
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

static float dist3(const stance_pose *m, int a, int b) {
    float dx = m->tx[a] - m->tx[b], dy = m->ty[a] - m->ty[b], dz = m->tz[a] - m->tz[b];
    return sqrtf(dx * dx + dy * dy + dz * dz);
}

stance_status stance_leg_length(const stance_skeleton *sk, int foot, float *out, stance_error *err) {
    if (out) *out = 0.0f;
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "leg length: out is NULL");
    int hip = -1, knee = -1;
    stance_status s = stance_leg_find(sk, foot, &hip, &knee, err);
    if (s) return s;
    stance_pose l, m;
    if ((s = stance_pose_create(&l, sk->joint_count, NULL, err))) return s;
    if ((s = stance_pose_create(&m, sk->joint_count, NULL, err))) { stance_pose_destroy(&l); return s; }
    stance_pose_set_rest(&l, sk, NULL);
    stance_local_to_model(&m, &l, sk, NULL, NULL);
    const float len = dist3(&m, hip, knee) + dist3(&m, knee, foot);
    stance_pose_destroy(&l), stance_pose_destroy(&m);
    if (!(len > 0.0f) || !st_finite(len))
        return st_fail(err, STANCE_ERR_VALUE, "leg length: the leg of '%s' has no length in the rest pose", stance_skeleton_joint_name(sk, foot));
    *out = len;
    return st_ok(err);
}

/* The first joint (in order) at least two of whose child branches reach below
 * it by a quarter of the rest pose's height (the legs' carrier); with
 * `keys`, only joints with translation keys count. m: the rest pose in model
 * space. -1 when none. */
/* the rest pose's height: the spread of its joints' model-space y */
static float rest_height(const stance_pose *m, int J) {
    float ylo = m->ty[0], yhi = m->ty[0];
    for (int j = 1; j < J; j++) ylo = fminf(ylo, m->ty[j]), yhi = fmaxf(yhi, m->ty[j]);
    return yhi - ylo;
}

static int legs_carrier(const stance_skeleton *sk, const stance_pose *m, const unsigned char *keys) {
    const int J = sk->joint_count;
    const float reach = 0.25f * rest_height(m, J);
    for (int j = 0; j < J && reach > 0.0f; j++) {
        if (keys && !(keys[j] & 1)) continue;
        /* child branches of j reaching below it by `reach` */
        int legs = 0;
        for (int c = j + 1; c < J && legs < 2; c++) {
            if (sk->parents[c] != j) continue;
            int low = 0;
            for (int d = c; d < J && !low; d++)
                if ((d == c || stance_skeleton_is_descendant(sk, d, c)) && m->ty[j] - m->ty[d] >= reach) low = 1;
            legs += low;
        }
        if (legs >= 2) return j;
    }
    return -1;
}

/* the rest pose in model space, into l (local) and m (model) */
static stance_status rest_model(const stance_skeleton *sk, stance_pose *l, stance_pose *m, stance_error *err) {
    stance_status s = stance_pose_create(l, sk->joint_count, NULL, err);
    if (s) return s;
    if ((s = stance_pose_create(m, sk->joint_count, NULL, err))) { stance_pose_destroy(l); return s; }
    stance_pose_set_rest(l, sk, NULL);
    stance_local_to_model(m, l, sk, NULL, NULL);
    return STANCE_OK;
}

stance_status stance_root_find_joint(const stance_skeleton *sk, const stance_clip *clip, int *out, stance_error *err) {
    if (out) *out = -1;
    if (!sk || !clip || !out) return st_fail(err, STANCE_ERR_ARGUMENT, "find root joint: skeleton, clip or out is NULL");
    if (clip->joint_count != sk->joint_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "find root joint: clip '%s' has %d joints, the skeleton %d", clip->name, clip->joint_count,
                       sk->joint_count);
    stance_pose l, m;
    stance_status s = rest_model(sk, &l, &m, err);
    if (s) return s;
    const int found = legs_carrier(sk, &m, clip->animated);
    stance_pose_destroy(&l), stance_pose_destroy(&m);
    if (found < 0)
        return st_fail(err, STANCE_ERR_NOT_FOUND, "find root joint: clip '%s' has no joint with translation keys that carries two legs "
                       "(name it with --root-joint)", clip->name);
    *out = found;
    return st_ok(err);
}

stance_status stance_root_find_bone(const stance_skeleton *sk, const stance_clip *clip, int *out, stance_error *err) {
    if (out) *out = -1;
    if (!sk || !clip || !out) return st_fail(err, STANCE_ERR_ARGUMENT, "find root bone: skeleton, clip or out is NULL");
    if (clip->joint_count != sk->joint_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "find root bone: clip '%s' has %d joints, the skeleton %d", clip->name, clip->joint_count,
                       sk->joint_count);
    const int J = sk->joint_count;
    stance_pose l, m;
    stance_status s = rest_model(sk, &l, &m, err);
    if (s) return s;
    const int legs = legs_carrier(sk, &m, NULL);
    /* the ancestors of the legs' carrier with translation keys: how far each one's local translation moves over the clip */
    float lo[STANCE_MAX_JOINTS][3], hi[STANCE_MAX_JOINTS][3];
    int cand = 0;
    for (int a = legs >= 0 ? sk->parents[legs] : -1; a >= 0; a = sk->parents[a])
        if (clip->animated[a] & 1) cand++;
    for (int k = 0; k < clip->key_count && cand > 0 && !s; k++) {
        if ((s = stance_clip_sample(clip, clip->times[k], NULL, &l, err))) break;
        for (int a = sk->parents[legs]; a >= 0; a = sk->parents[a]) {
            const float v[3] = {l.tx[a], l.ty[a], l.tz[a]};
            for (int c = 0; c < 3; c++) {
                if (k == 0 || v[c] < lo[a][c]) lo[a][c] = v[c];
                if (k == 0 || v[c] > hi[a][c]) hi[a][c] = v[c];
            }
        }
    }
    int best = -1;
    float bm = 1e-5f * rest_height(&m, J); /* moving: more than 1e-5 of the rest height */
    for (int a = cand > 0 && !s ? sk->parents[legs] : -1; a >= 0; a = sk->parents[a]) {
        if (!(clip->animated[a] & 1)) continue;
        float r = 0.0f;
        for (int c = 0; c < 3; c++) r = fmaxf(r, hi[a][c] - lo[a][c]);
        if (r >= bm) bm = r, best = a; /* the one that moves most; on a tie the higher one */
    }
    stance_pose_destroy(&l), stance_pose_destroy(&m);
    if (s) return s;
    if (best < 0) {
        if (legs < 0)
            return st_fail(err, STANCE_ERR_NOT_FOUND, "find root bone: clip '%s': no joint carries two legs, so no root bone above "
                           "the pelvis; name it with --root-joint", clip->name);
        return st_fail(err, STANCE_ERR_NOT_FOUND, "find root bone: clip '%s': no joint above '%s' (the legs' joint) has moving "
                       "translation keys; use --root-motion hips (the pelvis' travel) or --root-joint NAME", clip->name,
                       stance_skeleton_joint_name(sk, legs));
    }
    *out = best;
    return st_ok(err);
}

/* Joint j's local transform in l from a model-space position and rotation
 * (under its parent's model transform in m, its uniform scale undone). */
static void set_model(stance_pose *l, const stance_pose *m, const stance_skeleton *sk, int j, qm_vec3 t, qm_quat q) {
    const int p = sk->parents[j];
    if (p >= 0) {
        const float sc = m->sx[p] != 0.0f ? m->sx[p] : 1.0f;
        const qm_quat qpi = qm_qconj(qm_q(m->qx[p], m->qy[p], m->qz[p], m->qw[p]));
        t = qm_scale(qm_qrot(qpi, qm_v3(t.x - m->tx[p], t.y - m->ty[p], t.z - m->tz[p])), 1.0f / sc);
        q = qm_qnorm(qm_qmul(qpi, q));
    }
    if (q.w < 0.0f) q = qm_qneg(q);
    l->tx[j] = t.x, l->ty[j] = t.y, l->tz[j] = t.z;
    l->qx[j] = q.x, l->qy[j] = q.y, l->qz[j] = q.z, l->qw[j] = q.w;
}

stance_status stance_clip_extract_root(const stance_clip *clip, const stance_skeleton *sk, const stance_root_desc *d,
                                       const stance_allocator *allocator, stance_clip **out, stance_error *err) {
    if (out) *out = NULL;
    if (!clip || !sk || !d || !out) return st_fail(err, STANCE_ERR_ARGUMENT, "extract root: clip, skeleton, desc or out is NULL");
    if (clip->joint_count != sk->joint_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "extract root: clip '%s' has %d joints, the skeleton %d", clip->name, clip->joint_count,
                       sk->joint_count);
    if (d->mode != STANCE_ROOT_NONE && d->mode != STANCE_ROOT_HIPS && d->mode != STANCE_ROOT_ROOT)
        return st_fail(err, STANCE_ERR_ARGUMENT, "extract root: mode %d is not none, hips or root", (int)d->mode);
    if (d->rotation && d->mode == STANCE_ROOT_HIPS)
        return st_fail(err, STANCE_ERR_ARGUMENT, "extract root: full rotation (--root-rotation) is for a root bone (--root-motion root); "
                       "the pelvis pitches and rolls with the gait: use --root-yaw for its turn");
    if (d->rotation && d->yaw)
        return st_fail(err, STANCE_ERR_ARGUMENT, "extract root: --root-yaw and --root-rotation are both set (the rotation holds the yaw)");
    int j = -1;
    stance_status s = STANCE_OK;
    if (d->joint && d->joint[0]) {
        if ((j = stance_skeleton_find(sk, d->joint)) < 0)
            return st_fail(err, STANCE_ERR_NOT_FOUND, "extract root: no joint named '%s'", d->joint);
    } else if (d->mode == STANCE_ROOT_HIPS) {
        if ((s = stance_root_find_joint(sk, clip, &j, err))) return s;
    } else if (d->mode == STANCE_ROOT_ROOT) {
        if ((s = stance_root_find_bone(sk, clip, &j, err))) return s;
    } else {
        j = 0;
    }
    if (d->mode != STANCE_ROOT_NONE && !(clip->animated[j] & 1))
        return st_fail(err, STANCE_ERR_NOT_FOUND, "extract root: clip '%s' has no translation keys on '%s'", clip->name,
                       stance_skeleton_joint_name(sk, j));
    const int J = sk->joint_count, K = clip->key_count, P = J * 10;
    stance_allocator al = st_allocator(allocator);
    /* per key: the local pose (10 floats a joint: t, q, s), then the path */
    const int with_yaw = d->mode != STANCE_ROOT_NONE && d->yaw, with_rot = d->mode == STANCE_ROOT_ROOT && d->rotation;
    const size_t vbytes = sizeof(float) * ((size_t)K * (size_t)P + 8 * (size_t)K);
    const size_t tbytes = sizeof(stance_track_desc) * 3 * (size_t)J;
    float *v = st_alloc(&al, vbytes, 16);
    stance_track_desc *tracks = st_alloc(&al, tbytes, 16);
    stance_pose l, m;
    memset(&l, 0, sizeof l), memset(&m, 0, sizeof m);
    if (!v || !tracks) s = st_fail(err, STANCE_ERR_MEMORY, "extract root: out of memory");
    if (!s) s = stance_pose_create(&l, J, &al, err);
    if (!s) s = stance_pose_create(&m, J, &al, err);
    float *path = v ? v + (size_t)K * (size_t)P : NULL;
    float *yaws = path ? path + 3 * (size_t)K : NULL, *rots = path ? path + 4 * (size_t)K : NULL;
    float p0[3] = {0, 0, 0}, res_y = 0.0f, prev_yaw = 0.0f;
    qm_quat q0 = qm_qid();
    for (int pass = 0; !s && pass < 2; pass++)
        for (int k = 0; k < K && !s; k++) {
            const int kk = pass == 0 ? (k == 0 ? 0 : K - 1) : k; /* pass 0: the first and last keys only */
            if (pass == 0 && k > 1) break;
            if ((s = stance_clip_sample(clip, clip->times[kk], NULL, &l, err))) break;
            stance_local_to_model(&m, &l, sk, NULL, NULL);
            const float px = m.tx[j], py = m.ty[j], pz = m.tz[j];
            if (pass == 0) {
                if (kk == 0) p0[0] = px, p0[1] = py, p0[2] = pz, q0 = qm_q(m.qx[j], m.qy[j], m.qz[j], m.qw[j]);
                else if (clip->duration > 0.0f && clip->times[kk] >= clip->duration) res_y = py - p0[1];
                if (K == 1) break;
                continue;
            }
            float *row = v + (size_t)kk * (size_t)P;
            if (with_rot) {
                /* the bone's rotation since time 0, R = Q Q0^-1, and the path p - R p0: the bone keeps its time-0
                 * model transform (p0, Q0) in the path's frame; its children, local to it, follow */
                const qm_quat Q = qm_q(m.qx[j], m.qy[j], m.qz[j], m.qw[j]);
                qm_quat R = qm_qnorm(qm_qmul(Q, qm_qconj(q0)));
                if (kk > 0 && R.x * rots[4 * kk - 4] + R.y * rots[4 * kk - 3] + R.z * rots[4 * kk - 2] + R.w * rots[4 * kk - 1] < 0.0f)
                    R = qm_qneg(R);
                const qm_vec3 turned = qm_qrot(R, qm_v3(p0[0], p0[1], p0[2]));
                path[3 * kk] = px - turned.x, path[3 * kk + 1] = py - turned.y, path[3 * kk + 2] = pz - turned.z;
                rots[4 * kk] = R.x, rots[4 * kk + 1] = R.y, rots[4 * kk + 2] = R.z, rots[4 * kk + 3] = R.w;
                set_model(&l, &m, sk, j, qm_v3(p0[0], p0[1], p0[2]), q0);
            } else if (with_yaw) {
                const float u = clip->duration > 0.0f ? clip->times[kk] / clip->duration : 0.0f;
                /* the pelvis' turn about +Y since time 0 (the twist of its model rotation relative to time 0), unwrapped */
                const qm_quat Q = qm_q(m.qx[j], m.qy[j], m.qz[j], m.qw[j]), rel = qm_qmul(Q, qm_qconj(q0));
                float yaw = 2.0f * sm_atan2f(rel.y, rel.w);
                while (yaw - prev_yaw > 3.14159265f) yaw -= 6.28318531f;
                while (yaw - prev_yaw < -3.14159265f) yaw += 6.28318531f;
                prev_yaw = yaw;
                const qm_quat Y = qm_q(0.0f, sm_sinf(0.5f * yaw), 0.0f, sm_cosf(0.5f * yaw)), Yi = qm_qconj(Y);
                /* the path keeps the in-place pelvis over its spot at time 0: p_h(t) - Y(yaw) p0_h */
                const qm_vec3 turned = qm_qrot(Y, qm_v3(p0[0], 0.0f, p0[2]));
                const qm_vec3 pa = qm_v3(px - turned.x, 0.0f, pz - turned.z);
                path[3 * kk] = pa.x, path[3 * kk + 1] = 0.0f, path[3 * kk + 2] = pa.z, yaws[kk] = yaw;
                /* the pelvis in the path's frame (and the height residual spread), then local to its parent */
                qm_vec3 dt = qm_qrot(Yi, qm_v3(px - pa.x, py, pz - pa.z));
                dt.y -= res_y * u;
                set_model(&l, &m, sk, j, dt, qm_qnorm(qm_qmul(Yi, Q)));
            } else if (d->mode != STANCE_ROOT_NONE) {
                const float u = clip->duration > 0.0f ? clip->times[kk] / clip->duration : 0.0f;
                /* the model-space offset taken from the pelvis: the path, and the height residual spread */
                const qm_vec3 off = qm_v3(px - p0[0], res_y * u, pz - p0[2]);
                path[3 * kk] = off.x, path[3 * kk + 1] = 0.0f, path[3 * kk + 2] = off.z;
                qm_vec3 lo = off;
                const int p = sk->parents[j];
                if (p >= 0) {
                    const float sc = m.sx[p] != 0.0f ? m.sx[p] : 1.0f;
                    lo = qm_scale(qm_qrot(qm_qconj(qm_q(m.qx[p], m.qy[p], m.qz[p], m.qw[p])), off), 1.0f / sc);
                }
                l.tx[j] -= lo.x, l.ty[j] -= lo.y, l.tz[j] -= lo.z;
            }
            for (int i = 0; i < J; i++) {
                float *o = row + 10 * i;
                o[0] = l.tx[i], o[1] = l.ty[i], o[2] = l.tz[i];
                o[3] = l.qx[i], o[4] = l.qy[i], o[5] = l.qz[i], o[6] = l.qw[i];
                o[7] = l.sx[i], o[8] = l.sy[i], o[9] = l.sz[i];
            }
        }
    /* tracks over the grid, channel-major per joint, values transposed from the rows */
    float *tv = NULL;
    size_t tvbytes = 0;
    int nt = 0;
    if (!s) {
        for (int i = 0; i < J; i++)
            for (int ch = 0; ch < 3; ch++) nt += ((clip->animated[i] | ((with_yaw || with_rot) && i == j ? 2 : 0)) >> ch) & 1;
        tvbytes = sizeof(float) * (size_t)nt * 4 * (size_t)K;
        tv = st_alloc(&al, tvbytes ? tvbytes : 16, 16);
        if (!tv) s = st_fail(err, STANCE_ERR_MEMORY, "extract root: out of memory");
    }
    if (!s) {
        int t = 0;
        float *w = tv;
        for (int i = 0; i < J; i++)
            for (int ch = 0; ch < 3; ch++) {
                if (!(((clip->animated[i] | ((with_yaw || with_rot) && i == j ? 2 : 0)) >> ch) & 1)) continue;
                const int width = ch == 1 ? 4 : 3, off = ch == 0 ? 0 : ch == 1 ? 3 : 7;
                stance_track_desc *tr = &tracks[t++];
                tr->joint = i, tr->channel = (stance_channel)ch, tr->key_count = K, tr->times = clip->times, tr->values = w;
                for (int k = 0; k < K; k++)
                    for (int c = 0; c < width; c++) *w++ = v[(size_t)k * (size_t)P + 10 * (size_t)i + (size_t)off + (size_t)c];
            }
        stance_event_desc ev[64];
        stance_event_desc *evp = clip->event_count <= 64 ? ev : st_alloc(&al, sizeof *evp * (size_t)clip->event_count, 16);
        if (!evp) s = st_fail(err, STANCE_ERR_MEMORY, "extract root: out of memory");
        for (int e = 0; !s && e < clip->event_count; e++) evp[e].name = clip->events[e].name, evp[e].time = clip->events[e].time;
        stance_clip_desc cd;
        memset(&cd, 0, sizeof cd);
        cd.name = clip->name, cd.duration = clip->duration, cd.track_count = nt, cd.tracks = tracks;
        cd.event_count = clip->event_count, cd.events = evp, cd.slerp = clip->slerp;
        if (d->mode != STANCE_ROOT_NONE) {
            cd.root_key_count = K, cd.root_times = clip->times, cd.root_values = path, cd.root_yaw = with_yaw ? yaws : NULL;
            cd.root_rotation = with_rot ? rots : NULL;
        } else if (clip->root_key_count > 0 && !clip->root_from_joint0) {
            cd.root_key_count = clip->root_key_count, cd.root_times = clip->root_times, cd.root_values = clip->root_values;
            cd.root_yaw = clip->root_yaw, cd.root_rotation = clip->root_rotation;
            cd.root_speed = clip->root_speed;
        } else {
            cd.root_speed = clip->root_speed;
        }
        if (!s) s = stance_clip_create(&cd, sk, &al, out, err);
        if (evp && evp != ev) st_free(&al, evp, sizeof *evp * (size_t)clip->event_count);
    }
    if (tv) st_free(&al, tv, tvbytes ? tvbytes : 16);
    stance_pose_destroy(&l), stance_pose_destroy(&m);
    st_free(&al, v, vbytes), st_free(&al, tracks, tbytes);
    return s;
}

stance_status stance_asset_extract_root(stance_asset *a, const stance_root_desc *d, stance_error *err) {
    if (!a || !a->skeleton || !d) return st_fail(err, STANCE_ERR_ARGUMENT, "extract root: asset, its skeleton or desc is NULL");
    if (a->graph) return st_fail(err, STANCE_ERR_ARGUMENT, "extract root: the asset has a graph playing its clips; extract before building it");
    if (d->mode == STANCE_ROOT_NONE) return st_ok(err);
    const int named = d->joint && d->joint[0];
    int bone = -1;
    if (d->mode == STANCE_ROOT_ROOT && !named) {
        /* one root bone for the asset: the first clip's in which one moves (an idle's root may stand still) */
        stance_status first = STANCE_OK;
        stance_error e0 = {0};
        for (int i = 0; i < a->clip_count && bone < 0; i++) {
            if (!a->clips[i]) continue;
            stance_error e = {0};
            stance_status s = stance_root_find_bone(a->skeleton, a->clips[i], &bone, &e);
            if (s && !first) first = s, e0 = e;
        }
        if (bone < 0) {
            if (!first) return st_fail(err, STANCE_ERR_NOT_FOUND, "extract root: the asset has no clips to find a root bone in");
            if (err) *err = e0;
            return first;
        }
    }
    stance_root_desc dd = *d;
    if (bone >= 0) dd.joint = stance_skeleton_joint_name(a->skeleton, bone);
    for (int i = 0; i < a->clip_count; i++) {
        stance_clip *c = a->clips[i];
        if (!c) continue;
        int j = bone;
        if (named) j = stance_skeleton_find(a->skeleton, d->joint);
        else if (d->mode == STANCE_ROOT_HIPS && stance_root_find_joint(a->skeleton, c, &j, NULL)) j = -1;
        if (j >= 0 && !(c->animated[j] & 1)) continue; /* nothing travels in this clip */
        if (j < 0 && !named) continue;
        stance_clip *z = NULL;
        stance_status s = stance_clip_extract_root(c, a->skeleton, &dd, &a->allocator, &z, err);
        if (s) return s;
        stance_clip_destroy(c);
        a->clips[i] = z;
    }
    return st_ok(err);
}
