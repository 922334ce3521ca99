/* src/io/import_scale.c - exact or refused: poses under an uneven scale.
 *
 * The runtime's transforms are translation, rotation and a per-axis scale,
 * composed as t = parent t + parent q (parent s * t), q = parent q * q,
 * s = parent s * s (local_to_model.c). That is the file's matrix product
 * while scales are uniform; under an uneven scale a rotated child makes
 * shear, which those transforms cannot hold, and the joints below it land
 * elsewhere. So when a scale above the skeleton, in its rest pose or in a
 * clip's keys differs per axis, the pose is composed both ways (the file's
 * affine matrices in double, and the runtime's formulas from the values
 * imported) at rest and at every key; a joint off by more than 1e-4 of the
 * model's size, or whose frame is off by more than 1e-4 of its scale,
 * refuses the file (rest) or drops the clip, in one line naming the joint
 * whose scale does it. Where scales are uniform nothing is checked.
 *
 * Both importers use it (assimp's, import_scene.c and import_clips.c; glTF's,
 * gltf.cpp and gltf_clips.cpp). Owns its temporary buffers only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/internal.h"
#include "import_scale.h"

typedef stance_bake_xform xform;

#define UNEVEN 1e-5    /* spread of |s| about its mean that makes a scale uneven */
#define POS_TOL 1e-4   /* of the model's size */
#define FRAME_TOL 1e-4 /* of a frame's scale */

int st_imp_is_uneven(const double s[3]) {
    double a = fabs(s[0]), b = fabs(s[1]), c = fabs(s[2]), m = (a + b + c) / 3.0;
    return fabs(a - m) > UNEVEN * m || fabs(b - m) > UNEVEN * m || fabs(c - m) > UNEVEN * m;
}

/* One joint's local transform in the skeleton's space (as imported). */
typedef struct local {
    double t[3], r[4], s[3];
} local;

/* The file's local transform of joint j from the imported one: the
 * inverse of stance_bake_joint_t / stance_bake_joint_r. */
static xform file_local(const stance_bake_space *im, int j, const local *l) {
    xform x;
    memcpy(x.r, l->r, sizeof x.r);
    memcpy(x.s, l->s, sizeof x.s);
    stance_bake_quat_normalize(x.r);
    if (j == 0 && !im->above_identity) {
        const double *a = im->above.r, ca[4] = {-a[0], -a[1], -a[2], a[3]};
        double v[3] = {l->t[0] / im->scale - im->above.t[0], l->t[1] / im->scale - im->above.t[1],
                       l->t[2] / im->scale - im->above.t[2]};
        stance_bake_quat_rotate(ca, v, x.t);
        for (int i = 0; i < 3; i++) x.t[i] /= im->push_scale;
        stance_bake_quat_mul(ca, x.r, x.r);
    } else {
        double k = im->scale * (j == 0 ? 1.0 : im->push_scale);
        for (int i = 0; i < 3; i++) x.t[i] = l->t[i] / k;
    }
    return x;
}

typedef struct verdict {
    int joint;          /* the joint furthest off in position, else in its frame; -1 when none is off */
    double pos, frame;  /* its position error in model units, its frame's (relative) */
} verdict;

/* A pose's scratch: the file's model matrices, the runtime's transforms. */
typedef struct scratch {
    stance_bake_mat *m;
    local *g;
} scratch;

static int scratch_init(scratch *w, int J) {
    w->m = malloc(sizeof(stance_bake_mat) * (size_t)J);
    w->g = malloc(sizeof(local) * (size_t)J);
    return w->m && w->g;
}
static void scratch_free(scratch *w) { free(w->m), free(w->g); }

/* Composes the pose both ways and finds the joint furthest off (in
 * position, else in its frame); fills positions[3 * J] (the file's, model
 * units) when not NULL. */
static verdict judge(const st_scale_ctx *ctx, const stance_skeleton *sk, const local *l, scratch *w, double *positions) {
    const stance_bake_space *im = &ctx->space;
    const int J = sk->joint_count;
    verdict v = {-1, 0.0, 0.0};
    stance_bake_mat *m = w->m;
    local *g = w->g;
    xform above = im->above;
    for (int i = 0; i < 3; i++) above.s[i] = fabs(above.s[i]); /* the mirror is dropped, as the import does */
    stance_bake_mat a = im->above_identity ? stance_bake_mat_identity() : stance_bake_mat_from_xform(&above);
    for (int j = 0; j < J; j++) {
        const int p = sk->parents[j];
        xform x = file_local(im, j, &l[j]);
        stance_bake_mat lm = stance_bake_mat_from_xform(&x);
        m[j] = stance_bake_mat_mul(p < 0 ? &a : &m[p], &lm);
        /* the runtime's composition of the imported values */
        local *o = &g[j];
        double q[4] = {l[j].r[0], l[j].r[1], l[j].r[2], l[j].r[3]};
        stance_bake_quat_normalize(q);
        if (p < 0) {
            *o = l[j];
            memcpy(o->r, q, sizeof q);
        } else {
            double st[3] = {g[p].s[0] * l[j].t[0], g[p].s[1] * l[j].t[1], g[p].s[2] * l[j].t[2]}, rt[3];
            stance_bake_quat_rotate(g[p].r, st, rt);
            for (int i = 0; i < 3; i++) o->t[i] = g[p].t[i] + rt[i], o->s[i] = g[p].s[i] * l[j].s[i];
            stance_bake_quat_mul(g[p].r, q, o->r);
        }
        /* positions: model units; frames: the runtime's carry the pushed scale */
        double pos = 0.0, frame = 0.0, big = 0.0;
        stance_bake_xform gx;
        memcpy(gx.t, o->t, sizeof gx.t), memcpy(gx.r, o->r, sizeof gx.r), memcpy(gx.s, o->s, sizeof gx.s);
        stance_bake_mat gm = stance_bake_mat_from_xform(&gx);
        for (int r = 0; r < 3; r++) {
            double d = im->scale * m[j].m[r][3] - o->t[r];
            pos += d * d;
            if (positions) positions[3 * j + r] = im->scale * m[j].m[r][3];
            for (int c = 0; c < 3; c++) {
                double f = im->scale * m[j].m[r][c], e = fabs(f - im->scale * im->push_scale * gm.m[r][c]);
                if (e > frame) frame = e;
                if (fabs(f) > big) big = fabs(f);
            }
        }
        pos = sqrt(pos), frame = big > 0.0 ? frame / big : 0.0;
        if (pos > POS_TOL * ctx->size ? pos > v.pos : v.pos == 0.0 && frame > FRAME_TOL && frame > v.frame)
            v.joint = j, v.pos = pos > POS_TOL * ctx->size ? pos : 0.0, v.frame = frame;
    }
    return v;
}

/* "joint 'A' scales unevenly (1 2 1)" or "the nodes above joint 'Root'
 * scale it unevenly (...)": the nearest joint above `joint` with an uneven
 * scale in this pose, else the nodes above the skeleton. */
static void culprit(const stance_bake_space *im, const stance_skeleton *sk, const local *l, int joint, char *out, size_t cap) {
    for (int p = sk->parents[joint]; p >= 0; p = sk->parents[p])
        if (st_imp_is_uneven(l[p].s)) {
            snprintf(out, cap, "joint '%s' scales unevenly (%.6g %.6g %.6g)", stance_skeleton_joint_name(sk, p), l[p].s[0],
                     l[p].s[1], l[p].s[2]);
            return;
        }
    snprintf(out, cap, "the nodes above joint '%s' scale it unevenly (%.6g %.6g %.6g)", stance_skeleton_joint_name(sk, 0),
             fabs(im->above.s[0]), fabs(im->above.s[1]), fabs(im->above.s[2]));
}

static stance_status refuse(const st_scale_ctx *im, const stance_skeleton *sk, const local *l, const char *where, verdict v) {
    char who[160], what[120];
    culprit(&im->space, sk, l, v.joint, who, sizeof who);
    if (v.pos > 0.0)
        snprintf(what, sizeof what, "joint '%s' would be %.3g units off (model %.3g units)", stance_skeleton_joint_name(sk, v.joint),
                 v.pos, im->size);
    else
        snprintf(what, sizeof what, "joint '%s' would be turned or sized %.2g%% off", stance_skeleton_joint_name(sk, v.joint),
                 100.0 * v.frame);
    return st_fail(im->err, STANCE_ERR_UNSUPPORTED,
                   "%s: %s%s and the runtime has no shear: %s; apply the scale before exporting",
                   im->path, where, who, what);
}

static void rest_locals(const stance_skeleton *sk, local *l) {
    for (int j = 0; j < sk->joint_count; j++) {
        const stance_transform *r = &sk->rest[j];
        for (int i = 0; i < 3; i++) l[j].t[i] = r->t[i], l[j].s[i] = r->s[i];
        for (int i = 0; i < 4; i++) l[j].r[i] = r->r[i];
    }
}

stance_status st_imp_check_rest(st_scale_ctx *im, const stance_skeleton *sk) {
    const int J = sk->joint_count;
    local *l = malloc(sizeof(local) * (size_t)J);
    double *pos = malloc(sizeof(double) * 3 * (size_t)J);
    scratch w;
    stance_status s = STANCE_OK;
    if (!scratch_init(&w, J) || !l || !pos) {
        s = st_fail(im->err, STANCE_ERR_MEMORY, "%s: out of memory", im->path);
        goto done;
    }
    rest_locals(sk, l);
    im->size = 1.0; /* the positions first, for the model's size */
    judge(im, sk, l, &w, pos);
    double lo[3] = {pos[0], pos[1], pos[2]}, hi[3] = {pos[0], pos[1], pos[2]}, d = 0.0;
    for (int j = 1; j < J; j++)
        for (int i = 0; i < 3; i++) {
            if (pos[3 * j + i] < lo[i]) lo[i] = pos[3 * j + i];
            if (pos[3 * j + i] > hi[i]) hi[i] = pos[3 * j + i];
        }
    for (int i = 0; i < 3; i++) d += (hi[i] - lo[i]) * (hi[i] - lo[i]);
    im->size = d > 1e-24 && isfinite(d) ? sqrt(d) : 1.0;
    if (!im->uneven) goto done;
    verdict v = judge(im, sk, l, &w, NULL);
    if (v.joint >= 0) s = refuse(im, sk, l, "", v);
done:
    free(l), free(pos), scratch_free(&w);
    return s;
}

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* A track's value at time t: held outside its keys, lerped (rotations
 * nlerped, sign-aligned) between them, as stance_clip_create fills its grid.
 * *key is the cursor (times asked in increasing order). */
static void track_at(const stance_track_desc *t, float time, int *key, double out[4]) {
    const int w = t->channel == STANCE_CHANNEL_ROTATION ? 4 : 3, n = t->key_count;
    int k = *key;
    while (k + 1 < n && t->times[k + 1] <= time) k++;
    *key = k;
    const float *a = t->values + (size_t)w * (size_t)k;
    if (k + 1 >= n || time <= t->times[k]) {
        for (int i = 0; i < w; i++) out[i] = a[i];
        return;
    }
    const float *b = a + w;
    double u = ((double)time - t->times[k]) / ((double)t->times[k + 1] - t->times[k]), sg = 1.0;
    if (w == 4 && a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0.0f) sg = -1.0;
    for (int i = 0; i < w; i++) out[i] = a[i] + (sg * b[i] - a[i]) * u;
}

stance_status st_imp_check_clip(const st_scale_ctx *im, const stance_skeleton *sk, const char *clip, const stance_track_desc *tracks,
                                int count) {
    int needed = im->uneven;
    for (int i = 0; i < count && !needed; i++) {
        if (tracks[i].channel != STANCE_CHANNEL_SCALE) continue;
        for (int k = 0; k < tracks[i].key_count && !needed; k++) {
            const float *f = tracks[i].values + 3 * (size_t)k;
            double s[3] = {f[0], f[1], f[2]};
            needed = st_imp_is_uneven(s);
        }
    }
    if (!needed) return STANCE_OK;
    const int J = sk->joint_count;
    size_t n = 0;
    for (int i = 0; i < count; i++) n += (size_t)tracks[i].key_count;
    float *times = malloc(sizeof(float) * (n ? n : 1));
    local *l = malloc(sizeof(local) * (size_t)J);
    int *cursor = calloc((size_t)(count > 0 ? count : 1), sizeof(int));
    scratch w;
    stance_status s = STANCE_OK;
    if (!scratch_init(&w, J) || !times || !l || !cursor) {
        s = st_fail(im->err, STANCE_ERR_MEMORY, "%s: out of memory", im->path);
        goto done;
    }
    n = 0;
    for (int i = 0; i < count; i++)
        for (int k = 0; k < tracks[i].key_count; k++) times[n++] = tracks[i].times[k];
    qsort(times, n, sizeof(float), cmp_float);
    for (size_t k = 0; k < n && !s; k++) {
        if (k > 0 && times[k] == times[k - 1]) continue;
        rest_locals(sk, l);
        for (int i = 0; i < count; i++) {
            double v[4];
            track_at(&tracks[i], times[k], &cursor[i], v);
            local *o = &l[tracks[i].joint];
            memcpy(tracks[i].channel == STANCE_CHANNEL_TRANSLATION ? o->t : tracks[i].channel == STANCE_CHANNEL_ROTATION ? o->r : o->s,
                   v, sizeof(double) * (tracks[i].channel == STANCE_CHANNEL_ROTATION ? 4 : 3));
        }
        verdict v = judge(im, sk, l, &w, NULL);
        if (v.joint >= 0) {
            char where[96];
            snprintf(where, sizeof where, "clip '%.40s' at %.4g s: ", clip, (double)times[k]);
            s = refuse(im, sk, l, where, v);
        }
    }
done:
    free(times), free(l), free(cursor), scratch_free(&w);
    return s;
}
