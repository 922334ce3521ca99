/* tests/test_graphfile_retarget.c - run-time retargeting (issue 27 item 3,
 * stance_retarget_clip_runtime and a graph file's "retarget" clips):
 * - the built-in character played on a copy of itself with other rest
 *   poses (1.3x the size, the left upper arm rolled 90 deg about itself,
 *   the right arm in an A-pose 35 deg down): per shared limb segment the
 *   run-time pose's direction (the test's own forward kinematics, in
 *   double) against the source's and against the offline retarget
 *   (stance_retarget_clip, free feet), and the leg sockets' midpoint at
 *   1.3x the source's;
 * - a graph file whose state plays RobotExpressive's Walking (the shared
 *   data) on the built-in character, and CMU 01_01 (Debian
 *   assimp-testmodels) on RobotExpressive: the instance's pose is the
 *   retargeted clip's sample (with "bake": false the run-time clip's,
 *   stance_retarget_clip_runtime; by default its bake, an exact clip,
 *   and both are measured below); with the source's foot contacts (the default)
 *   its limb directions are within 0.05 deg of the offline retarget with its
 *   foot IK, and its feet slide at most 1 cm/m while the source's are
 *   planted, by the project's measure and (CMU, which travels) by the
 *   test's own (its own kinematics and contact rule), where free feet slide
 *   over 5 cm/m; with "free_feet" it matches the offline free-feet retarget
 *   (figures printed for docs/retargeting.md);
 * - with contacts, a pelvis with ten children no slot names (a copy of the
 *   built-in character) and CMU 01_01's skeleton (legs under hip joints) as
 *   targets: the run-time clip as the offline one (test_pelvis_children);
 * - a graph file bakes its retargeted clip when it is read (the default):
 *   the same measures on the baked clip, which equals `stance compile`'s;
 * - refusals, each one line at the graph file's line and column: an
 *   unknown file, a map naming a joint the skeleton lacks, an unknown
 *   source clip, a name the asset's clips have, a source without legs. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stance/build.h"
#include "stance/graphfile.h"
#include "stance/import.h"
#include "stance/retarget.h"
#include "stance/stance.h"
#include "stance_lesson/builtin.h"

#define PI 3.14159265358979323846

#define ROBOT "/robot_expressive/RobotExpressive.glb"
#define CMU "/usr/share/assimp/models/BVH/01_01.bvh"

static const int chains[5][5] = {
    {STANCE_SLOT_HIPS, STANCE_SLOT_SPINE, STANCE_SLOT_CHEST, STANCE_SLOT_NECK, STANCE_SLOT_HEAD},
    {STANCE_SLOT_LEFT_UPPER_LEG, STANCE_SLOT_LEFT_LOWER_LEG, STANCE_SLOT_LEFT_FOOT, STANCE_SLOT_LEFT_TOES, -1},
    {STANCE_SLOT_RIGHT_UPPER_LEG, STANCE_SLOT_RIGHT_LOWER_LEG, STANCE_SLOT_RIGHT_FOOT, STANCE_SLOT_RIGHT_TOES, -1},
    {STANCE_SLOT_LEFT_SHOULDER, STANCE_SLOT_LEFT_UPPER_ARM, STANCE_SLOT_LEFT_LOWER_ARM, STANCE_SLOT_LEFT_HAND, -1},
    {STANCE_SLOT_RIGHT_SHOULDER, STANCE_SLOT_RIGHT_UPPER_ARM, STANCE_SLOT_RIGHT_LOWER_ARM, STANCE_SLOT_RIGHT_HAND, -1},
};

/* q * v for a unit quaternion (x y z w), in double */
static void qrot(const double q[4], const double v[3], double out[3]) {
    double tx = 2 * (q[1] * v[2] - q[2] * v[1]), ty = 2 * (q[2] * v[0] - q[0] * v[2]), tz = 2 * (q[0] * v[1] - q[1] * v[0]);
    out[0] = v[0] + q[3] * tx + q[1] * tz - q[2] * ty;
    out[1] = v[1] + q[3] * ty + q[2] * tx - q[0] * tz;
    out[2] = v[2] + q[3] * tz + q[0] * ty - q[1] * tx;
}
static void qmul(const double a[4], const double b[4], double o[4]) {
    double r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1], a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                   a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3], a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    memcpy(o, r, sizeof r);
}

/* The model positions of a local pose (the test's own forward kinematics). */
static void fk(const stance_skeleton *sk, const stance_pose *p, double (*pos)[3]) {
    double (*rot)[4] = malloc(sizeof *rot * (size_t)sk->joint_count), (*sc)[3] = malloc(sizeof *sc * (size_t)sk->joint_count);
    for (int j = 0; j < sk->joint_count; j++) {
        double q[4] = {p->qx[j], p->qy[j], p->qz[j], p->qw[j]}, t[3] = {p->tx[j], p->ty[j], p->tz[j]};
        double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        for (int c = 0; c < 4; c++) q[c] /= n;
        int par = sk->parents[j];
        if (par < 0) {
            memcpy(pos[j], t, sizeof t), memcpy(rot[j], q, sizeof q);
            sc[j][0] = p->sx[j], sc[j][1] = p->sy[j], sc[j][2] = p->sz[j];
            continue;
        }
        double v[3] = {t[0] * sc[par][0], t[1] * sc[par][1], t[2] * sc[par][2]}, w[3];
        qrot(rot[par], v, w);
        for (int c = 0; c < 3; c++) pos[j][c] = pos[par][c] + w[c];
        qmul(rot[par], q, rot[j]);
        sc[j][0] = sc[par][0] * p->sx[j], sc[j][1] = sc[par][1] * p->sy[j], sc[j][2] = sc[par][2] * p->sz[j];
    }
    free(rot), free(sc);
}

static double angle_deg(const double a[3], const double b[3]) {
    double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    return atan2(sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]), a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) * 180.0 / PI;
}

/* The shared segments' worst angle between pose a (on skeleton sa, map ma)
 * and pose b (sb, mb), over the limbs (legs and arms) and over the spine. */
static void seg_worst(const stance_humanoid_map *ma, double (*pa)[3], const stance_humanoid_map *mb, double (*pb)[3],
                      const stance_humanoid_map *ms, double (*ps)[3], double *limbs, double *spine, double *sum, int *n) {
    for (int c = 0; c < 5; c++)
        for (int i = 0; i < 5 && chains[c][i] >= 0; i++) {
            int s = chains[c][i];
            if (ma->joint[s] < 0 || mb->joint[s] < 0 || ms->joint[s] < 0) continue; /* shared slots only */
            int e = -1;
            for (int k = i + 1; k < 5 && chains[c][k] >= 0 && e < 0; k++)
                if (ma->joint[chains[c][k]] >= 0 && mb->joint[chains[c][k]] >= 0 && ms->joint[chains[c][k]] >= 0) e = chains[c][k];
            if (e < 0) continue;
            double da[3], db[3], ds[3];
            for (int k = 0; k < 3; k++) da[k] = pa[ma->joint[e]][k] - pa[ma->joint[s]][k], db[k] = pb[mb->joint[e]][k] - pb[mb->joint[s]][k];
            for (int k = 0; k < 3; k++) ds[k] = ps[ms->joint[e]][k] - ps[ms->joint[s]][k];
            /* a source segment without length (CMU's LowerBack sits on its
             * Hips) points nowhere: not compared */
            if (ds[0] * ds[0] + ds[1] * ds[1] + ds[2] * ds[2] < 1e-12) continue;
            double ang = angle_deg(da, db);
            double *w = c == 0 ? spine : limbs;
            if (ang > *w) *w = ang;
            if (c) *sum += ang, (*n)++;
        }
}

/* The built-in skeleton 1.3x, its left upper arm rolled 90 deg about itself
 * (the child's rest rotation undoes the roll, so the chain keeps its shape)
 * and its right upper arm turned 35 deg down (an A-pose). */
static stance_skeleton *other_rest(const stance_skeleton *sk) {
    int n = sk->joint_count;
    stance_transform *rest = malloc(sizeof *rest * (size_t)n);
    const char **names = malloc(sizeof *names * (size_t)n);
    for (int j = 0; j < n; j++) {
        rest[j] = sk->rest[j];
        for (int c = 0; c < 3; c++) rest[j].t[c] *= 1.3f;
        names[j] = stance_skeleton_joint_name(sk, j);
    }
    int la = stance_skeleton_find(sk, "upperarm_l"), lf = stance_skeleton_find(sk, "forearm_l");
    int ra = stance_skeleton_find(sk, "upperarm_r");
    CHECK(la >= 0 && lf >= 0 && ra >= 0 && sk->parents[lf] == la);
    if (la >= 0 && lf >= 0 && ra >= 0) {
        /* roll about the forearm's offset (in the upper arm's frame) */
        double t[3] = {sk->rest[lf].t[0], sk->rest[lf].t[1], sk->rest[lf].t[2]};
        double l = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]), s = sin(PI / 4), c = cos(PI / 4);
        double roll[4] = {s * t[0] / l, s * t[1] / l, s * t[2] / l, c}, r[4], inv[4] = {-roll[0], -roll[1], -roll[2], roll[3]};
        double a[4] = {sk->rest[la].r[0], sk->rest[la].r[1], sk->rest[la].r[2], sk->rest[la].r[3]};
        qmul(a, roll, r);
        for (int k = 0; k < 4; k++) rest[la].r[k] = (float)r[k];
        double b[4] = {sk->rest[lf].r[0], sk->rest[lf].r[1], sk->rest[lf].r[2], sk->rest[lf].r[3]};
        qmul(inv, b, r);
        for (int k = 0; k < 4; k++) rest[lf].r[k] = (float)r[k];
        /* forearm offset rotated with the roll stays (it is on the axis) */
        double down[4] = {0, 0, -sin(35.0 * PI / 360.0), cos(35.0 * PI / 360.0)}; /* about -Z: +X arm goes down */
        double ar[4] = {sk->rest[ra].r[0], sk->rest[ra].r[1], sk->rest[ra].r[2], sk->rest[ra].r[3]};
        qmul(down, ar, r);
        for (int k = 0; k < 4; k++) rest[ra].r[k] = (float)r[k];
    }
    stance_skeleton_desc d = {n, names, sk->parents, rest};
    stance_skeleton *out = NULL;
    CHECK_OK(stance_skeleton_create(&d, NULL, &out, NULL));
    free(rest), free(names);
    return out;
}

/* Runtime clip `rc` against the offline `oc` and the source `clip` at 60 Hz:
 * the worst limb / spine segment angles (degrees). */
static void compare(const stance_clip *clip, const stance_skeleton *ss, const stance_clip *rc, const stance_clip *oc,
                    const stance_skeleton *ts, double out[4], double *mean_src) {
    stance_humanoid_map ms, mt;
    CHECK_OK(stance_humanoid_map_find(ss, NULL, &ms, NULL));
    CHECK_OK(stance_humanoid_map_find(ts, NULL, &mt, NULL));
    stance_pose ps, pr, po;
    CHECK_OK(stance_pose_create(&ps, ss->joint_count, NULL, NULL));
    CHECK_OK(stance_pose_create(&pr, ts->joint_count, NULL, NULL));
    CHECK_OK(stance_pose_create(&po, ts->joint_count, NULL, NULL));
    double (*xs)[3] = malloc(sizeof *xs * (size_t)ss->joint_count), (*xr)[3] = malloc(sizeof *xr * (size_t)ts->joint_count),
           (*xo)[3] = malloc(sizeof *xo * (size_t)ts->joint_count);
    memset(out, 0, sizeof(double) * 4);
    double sum = 0.0, dummy = 0.0;
    int n = 0, nd = 0;
    stance_cursor cur = {0};
    for (int f = 0; f <= (int)(clip->duration * 60.0f); f++) {
        float t = (float)f / 60.0f;
        CHECK_OK(stance_clip_sample(clip, t, NULL, &ps, NULL));
        CHECK_OK(stance_clip_sample(rc, t, &cur, &pr, NULL));
        CHECK_OK(stance_clip_sample(oc, t, NULL, &po, NULL));
        fk(ss, &ps, xs), fk(ts, &pr, xr), fk(ts, &po, xo);
        seg_worst(&mt, xr, &mt, xo, &ms, xs, &out[0], &out[1], &dummy, &nd); /* against the offline */
        seg_worst(&mt, xr, &ms, xs, &ms, xs, &out[2], &out[3], &sum, &n);    /* against the source */
    }
    *mean_src = n ? sum / n : 0.0;
    free(xs), free(xr), free(xo);
    stance_pose_destroy(&ps), stance_pose_destroy(&pr), stance_pose_destroy(&po);
}

static void test_other_rest(void) {
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    stance_skeleton *ts = other_rest(b.skeleton);
    stance_retarget_desc d = {0};
    d.free_feet = 1;
    stance_humanoid_map ms;
    CHECK_OK(stance_humanoid_map_find(b.skeleton, NULL, &ms, NULL));
    const char *names[] = {"walk", "run", "wave", "jump"};
    for (int c = 0; c < 4; c++) {
        const stance_clip *clip = stance_builtin_clip(&b, names[c]);
        stance_clip *rc = NULL, *oc = NULL;
        CHECK_OK(stance_retarget_clip_runtime(clip, b.skeleton, ts, &d, NULL, &rc, NULL));
        CHECK_OK(stance_retarget_clip(clip, b.skeleton, ts, &d, NULL, &oc, NULL));
        if (!rc || !oc) continue;
        CHECK(!strcmp(rc->name, clip->name) && rc->duration == clip->duration && rc->event_count == clip->event_count);
        CHECK(rc->retarget != NULL && !stance_clip_is_compressed(rc));
        double w[4], mean;
        compare(clip, b.skeleton, rc, oc, ts, w, &mean);
        printf("  %s: limbs within %.4f deg of the offline retarget and %.4f deg of the source (mean %.5f); "
               "spine %.3f deg from the offline, %.3f from the source\n", names[c], w[0], w[2], mean, w[1], w[3]);
        /* the per-joint form is the offline one (float rounding only), the
         * spine across spine1 too (W re-aims it) */
        CHECK(w[0] < 0.01 && w[2] < 0.01 && w[1] < 0.01 && w[3] < 0.01);
        /* the leg sockets' midpoint: 1.3x the source's across */
        stance_pose ps, pr;
        CHECK_OK(stance_pose_create(&ps, b.skeleton->joint_count, NULL, NULL));
        CHECK_OK(stance_pose_create(&pr, ts->joint_count, NULL, NULL));
        double (*xs)[3] = malloc(sizeof *xs * (size_t)ts->joint_count), (*xr)[3] = malloc(sizeof *xr * (size_t)ts->joint_count);
        int la = ms.joint[STANCE_SLOT_LEFT_UPPER_LEG], ra = ms.joint[STANCE_SLOT_RIGHT_UPPER_LEG];
        double worst = 0.0;
        for (float t = 0.0f; t <= clip->duration; t += 0.05f) {
            CHECK_OK(stance_clip_sample(clip, t, NULL, &ps, NULL));
            CHECK_OK(stance_clip_sample(rc, t, NULL, &pr, NULL));
            fk(b.skeleton, &ps, xs), fk(ts, &pr, xr);
            for (int k = 0; k < 3; k += 2) {
                double e = fabs(0.5 * (xr[la][k] + xr[ra][k]) - 1.3 * 0.5 * (xs[la][k] + xs[ra][k]));
                if (e > worst) worst = e;
            }
        }
        CHECK(worst < 1e-4);
        free(xs), free(xr);
        stance_pose_destroy(&ps), stance_pose_destroy(&pr);
        /* the sampled velocity: a difference of the samples */
        stance_pose v;
        CHECK_OK(stance_pose_create(&v, ts->joint_count, NULL, NULL));
        CHECK_OK(stance_pose_create(&pr, ts->joint_count, NULL, NULL));
        CHECK_OK(stance_clip_sample_velocity(rc, 0.1f, NULL, &pr, &v, NULL));
        int j = stance_skeleton_find(ts, "upleg_l");
        stance_pose p2;
        CHECK_OK(stance_pose_create(&p2, ts->joint_count, NULL, NULL));
        CHECK_OK(stance_clip_sample(rc, 0.1f + 1.0f / 120.0f, NULL, &p2, NULL));
        CHECK_NEAR(v.qx[j], (p2.qx[j] - pr.qx[j]) * 120.0f, 1e-2);
        stance_pose_destroy(&v), stance_pose_destroy(&pr), stance_pose_destroy(&p2);
        /* a retargeted clip is not saved */
        stance_asset a = {0};
        a.skeleton = ts, a.clip_count = 1, a.clips = &rc;
        void *bytes = NULL;
        size_t size = 0;
        stance_error err;
        CHECK_STATUS(stance_asset_save_memory(&a, &bytes, &size, NULL, &err), STANCE_ERR_UNSUPPORTED);
        CHECK(strstr(err.message, "retargeted at run time") != NULL);
        /* baked into an ordinary clip, it saves, and plays as the run-time
         * clip at the source's keys; a clip that is not retargeted, or a
         * skeleton it is not made for, is refused */
        stance_clip *bk = NULL;
        CHECK_OK(stance_retarget_clip_bake(rc, ts, NULL, &bk, NULL));
        CHECK(bk != NULL && bk->retarget == NULL);
        if (bk) {
            a.clips = &bk;
            CHECK_OK(stance_asset_save_memory(&a, &bytes, &size, NULL, NULL));
            free(bytes);
            stance_pose x, y;
            CHECK_OK(stance_pose_create(&x, ts->joint_count, NULL, NULL));
            CHECK_OK(stance_pose_create(&y, ts->joint_count, NULL, NULL));
            double worst_q = 0, worst_t = 0; /* 1 - |dot| of the rotations; translation, model units */
            for (int k = 0; k < clip->key_count; k++) {
                CHECK_OK(stance_clip_sample(rc, clip->times[k], NULL, &x, NULL));
                CHECK_OK(stance_clip_sample(bk, clip->times[k], NULL, &y, NULL));
                for (int q = 0; q < ts->joint_count; q++) {
                    double dot = (double)x.qx[q] * y.qx[q] + (double)x.qy[q] * y.qy[q] + (double)x.qz[q] * y.qz[q] + (double)x.qw[q] * y.qw[q];
                    worst_q = fmax(worst_q, 1 - fabs(dot));
                    worst_t = fmax(worst_t, fabs(x.tx[q] - y.tx[q]) + fabs(x.ty[q] - y.ty[q]) + fabs(x.tz[q] - y.tz[q]));
                }
            }
            CHECK(worst_q < 1e-6 && worst_t < 1e-5);
            CHECK(bk->event_count == rc->event_count && fabsf(bk->duration - rc->duration) < 1e-6f);
            stance_pose_destroy(&x), stance_pose_destroy(&y);
            stance_clip_destroy(bk);
        }
        CHECK_STATUS(stance_retarget_clip_bake(oc, ts, NULL, &bk, &err), STANCE_ERR_ARGUMENT);
        CHECK(strstr(err.message, "is not retargeted at run time") != NULL && bk == NULL);
        CHECK_STATUS(stance_retarget_clip_bake(rc, ts, NULL, NULL, &err), STANCE_ERR_ARGUMENT);
        stance_clip_destroy(rc), stance_clip_destroy(oc);
    }
    stance_skeleton_destroy(ts);
    stance_builtin_destroy(&b);
}

static char dir[512];

static void write_file(const char *name, const char *text) {
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* A graph on `asset` with one state playing the retargeted clip "rt". */
static stance_status load_graph(const char *asset, const char *retarget, stance_graphfile **gf, stance_error *err) {
    char text[2048];
    snprintf(text, sizeof text,
             "{\"version\": 1, \"asset\": \"%s\",\n"
             " \"clips\": {\"rt\": {\"retarget\": %s}},\n"
             " \"machines\": [{\"name\": \"M\", \"states\": [{\"name\": \"S\", \"clip\": \"rt\"}]}]}\n",
             asset, retarget);
    return stance_graphfile_load_string(text, "g.json", dir, NULL, gf, err);
}

/* The test's own foot-slide measure: the source's feet (its own forward
 * kinematics at 60 Hz) are planted while within 3% of a leg of their lowest
 * height in the clip and moving slower than 0.1 legs a second across (the
 * project's contact finder allows 6% and 1.5x the body's speed + 0.2 legs/s:
 * these are a strict subset); over consecutive planted frames the target
 * foot's horizontal motion beyond k x the source foot's is summed, per metre
 * of k x the source hips' horizontal travel (cm/m, model units x 100). k is
 * the leg ratio measured here from both bind poses. */
static double own_slide(const stance_clip *clip, const stance_skeleton *ss, const stance_clip *rc, const stance_skeleton *ts,
                        int *planted_frames, double *slide_cm) {
    stance_humanoid_map ms, mt;
    CHECK_OK(stance_humanoid_map_find(ss, NULL, &ms, NULL));
    CHECK_OK(stance_humanoid_map_find(ts, NULL, &mt, NULL));
    stance_pose ps, pr;
    CHECK_OK(stance_pose_create(&ps, ss->joint_count, NULL, NULL));
    CHECK_OK(stance_pose_create(&pr, ts->joint_count, NULL, NULL));
    double (*xs)[3] = malloc(sizeof *xs * (size_t)ss->joint_count), (*xr)[3] = malloc(sizeof *xr * (size_t)ts->joint_count);
    const int legs[2][3] = {{STANCE_SLOT_LEFT_UPPER_LEG, STANCE_SLOT_LEFT_LOWER_LEG, STANCE_SLOT_LEFT_FOOT},
                            {STANCE_SLOT_RIGHT_UPPER_LEG, STANCE_SLOT_RIGHT_LOWER_LEG, STANCE_SLOT_RIGHT_FOOT}};
    double leg[2] = {0, 0};
    for (int w = 0; w < 2; w++) {
        const stance_skeleton *sk = w ? ts : ss;
        const stance_humanoid_map *m = w ? &mt : &ms;
        stance_pose *p = w ? &pr : &ps;
        double (*x)[3] = w ? xr : xs;
        stance_pose_set_rest(p, sk, NULL);
        fk(sk, p, x);
        for (int l = 0; l < 2; l++)
            for (int a = 0; a < 2; a++) {
                double *u = x[m->joint[legs[l][a]]], *v = x[m->joint[legs[l][a + 1]]];
                leg[w] += 0.5 * sqrt((u[0] - v[0]) * (u[0] - v[0]) + (u[1] - v[1]) * (u[1] - v[1]) + (u[2] - v[2]) * (u[2] - v[2]));
            }
    }
    const double k = leg[1] / leg[0];
    const int frames = (int)(clip->duration * 60.0f) + 1;
    double *sf = malloc(sizeof(double) * 6 * (size_t)frames), *tf = malloc(sizeof(double) * 6 * (size_t)frames);
    double *hips = malloc(sizeof(double) * 2 * (size_t)frames), low[2] = {1e30, 1e30};
    for (int f = 0; f < frames; f++) {
        float t = (float)f / 60.0f;
        CHECK_OK(stance_clip_sample(clip, t, NULL, &ps, NULL));
        CHECK_OK(stance_clip_sample(rc, t, NULL, &pr, NULL));
        fk(ss, &ps, xs), fk(ts, &pr, xr);
        for (int l = 0; l < 2; l++) {
            memcpy(sf + 6 * f + 3 * l, xs[ms.joint[legs[l][2]]], sizeof(double) * 3);
            memcpy(tf + 6 * f + 3 * l, xr[mt.joint[legs[l][2]]], sizeof(double) * 3);
            if (sf[6 * f + 3 * l + 1] < low[l]) low[l] = sf[6 * f + 3 * l + 1];
        }
        hips[2 * f] = xs[ms.joint[STANCE_SLOT_HIPS]][0], hips[2 * f + 1] = xs[ms.joint[STANCE_SLOT_HIPS]][2];
    }
    double slide = 0.0, travel = 0.0;
    int planted = 0;
    for (int f = 1; f < frames; f++) {
        travel += k * hypot(hips[2 * f] - hips[2 * f - 2], hips[2 * f + 1] - hips[2 * f - 1]);
        for (int l = 0; l < 2; l++) {
            const double *a = sf + 6 * (f - 1) + 3 * l, *b = sf + 6 * f + 3 * l;
            const double *ta = tf + 6 * (f - 1) + 3 * l, *tb = tf + 6 * f + 3 * l;
            double speed = hypot(b[0] - a[0], b[2] - a[2]) * 60.0 / leg[0];
            if (a[1] - low[l] > 0.03 * leg[0] || b[1] - low[l] > 0.03 * leg[0] || speed > 0.1) continue;
            planted++;
            slide += hypot((tb[0] - ta[0]) - k * (b[0] - a[0]), (tb[2] - ta[2]) - k * (b[2] - a[2]));
        }
    }
    *planted_frames = planted;
    *slide_cm = 100.0 * slide;
    free(xs), free(xr), free(sf), free(tf), free(hips);
    stance_pose_destroy(&ps), stance_pose_destroy(&pr);
    return travel > 0.5 * leg[1] ? 100.0 * slide / travel : -1.0;
}

/* The instance's pose against the clip's sample and the offline retarget. */
/* tol_deg, tol_spine: against the source (degrees); tol_off: the run-time
 * clip with contacts against the offline one; tol_free: free feet against
 * the offline free feet and the source; slide_goal: the most cm/m the run-time
 * feet may slide while the source's are planted (the project's measure, and
 * the test's own when the source travels). */
static void play(const char *asset, const char *from, const char *clip_name, double tol_deg, double tol_spine, double tol_off,
                 double tol_free, double slide_goal, int travels, int bake) {
    char spec[900];
    snprintf(spec, sizeof spec, "{\"from\": \"%s\", \"clip\": \"%s\"%s}", from, clip_name, bake ? "" : ", \"bake\": false");
    stance_graphfile *gf = NULL;
    stance_error err;
    stance_status s = load_graph(asset, spec, &gf, &err);
    CHECK_OK(s);
    if (s) {
        printf("  %s\n", err.message);
        return;
    }
    const stance_skeleton *ts = stance_graphfile_skeleton(gf);
    stance_asset src = {0};
    CHECK_OK(stance_open_file(from, NULL, NULL, &src, NULL));
    const stance_clip *clip = stance_asset_find_clip(&src, clip_name);
    CHECK(clip != NULL);
    stance_instance *inst = NULL;
    stance_workspace *ws = NULL;
    CHECK_OK(stance_instance_create(stance_graphfile_graph(gf), NULL, &inst, NULL));
    CHECK_OK(stance_workspace_create(stance_graphfile_graph(gf), NULL, &ws, NULL));
    stance_clip *own = NULL, *oc = NULL, *ownf = NULL, *ocf = NULL;
    stance_retarget_desc free_feet = {0};
    free_feet.free_feet = 1;
    /* the graph's clip keeps the source's contacts (the default); so does the
     * offline retarget with its foot IK */
    CHECK_OK(stance_retarget_clip_runtime(clip, src.skeleton, ts, NULL, NULL, &own, NULL));
    CHECK_OK(stance_retarget_clip(clip, src.skeleton, ts, NULL, NULL, &oc, NULL));
    CHECK_OK(stance_retarget_clip_runtime(clip, src.skeleton, ts, &free_feet, NULL, &ownf, NULL));
    CHECK_OK(stance_retarget_clip(clip, src.skeleton, ts, &free_feet, NULL, &ocf, NULL));
    /* the graph's clip: the run-time one (an equal copy of `own`), or its
     * bake (an exact clip, measured in its place) */
    const stance_graph_desc *gd = stance_graphfile_desc(gf);
    const stance_clip *gc = gd && gd->machine_count ? gd->machines[0].states[0].clip : NULL;
    CHECK(gc != NULL && (bake ? gc->retarget == NULL && gc->packed == NULL : gc->retarget != NULL));
    const stance_clip *mine = bake && gc ? gc : own;
    stance_pose p;
    CHECK_OK(stance_pose_create(&p, ts->joint_count, NULL, NULL));
    /* the instance plays the clip: its local pose is the clip's sample */
    double diff = 0.0;
    const float dt = 1.0f / 30.0f;
    for (int f = 1; f <= 60 && inst && ws && own; f++) {
        CHECK_OK(stance_instance_update(inst, dt, ws, NULL));
        const stance_pose *lp = stance_instance_local_pose(inst);
        float t = fmodf(f * dt, clip->duration);
        CHECK_OK(stance_clip_sample(mine, t, NULL, &p, NULL));
        for (int j = 0; j < ts->joint_count; j++) {
            double d = fabs(lp->qx[j] * p.qx[j] + lp->qy[j] * p.qy[j] + lp->qz[j] * p.qz[j] + lp->qw[j] * p.qw[j]);
            d = 1.0 - (d > 1.0 ? 1.0 : d);
            double e = fabs(lp->tx[j] - p.tx[j]) + fabs(lp->ty[j] - p.ty[j]) + fabs(lp->tz[j] - p.tz[j]);
            if (d > diff) diff = d;
            if (e > diff) diff = e;
        }
    }
    CHECK(diff < 1e-5);
    double w[4], wf[4], mean, meanf;
    if (own && oc && ownf && ocf) {
        compare(clip, src.skeleton, mine, oc, ts, w, &mean);
        compare(clip, src.skeleton, ownf, ocf, ts, wf, &meanf);
        printf("  %s '%s' on %s (%s): the instance = the clip's sample within %.1g\n"
               "    with contacts: limbs within %.3f deg of the offline retarget (foot IK), %.2f deg of the source (mean %.3f); "
               "spine %.3f / %.2f deg\n"
               "    free feet: limbs within %.3f deg of the offline retarget (free feet), %.2f deg of the source (mean %.3f); "
               "spine %.3f / %.2f deg\n",
               strrchr(from, '/') + 1, clip_name, strrchr(asset, '/') ? strrchr(asset, '/') + 1 : asset,
               bake ? "baked when the graph is read" : "\"bake\": false, sampled at run time", diff, w[0], w[2], mean,
               w[1], w[3], wf[0], wf[2], meanf, wf[1], wf[3]);
        CHECK(w[0] < tol_off && w[1] < tol_off && w[2] < tol_deg && w[3] < tol_spine);
        CHECK(wf[0] < tol_free && wf[2] < tol_free && wf[1] < tol_spine && wf[3] < tol_spine);
        /* the feet while the source's are planted, by the test's own measure */
        int pf[4];
        double sl[4], cm[4];
        const stance_clip *cl[4] = {mine, oc, ownf, ocf};
        for (int i = 0; i < 4; i++) sl[i] = own_slide(clip, src.skeleton, cl[i], ts, &pf[i], &cm[i]);
        printf("    own slide measure (%d planted foot-frames): run time %.3f cm/m (%.2f cm), offline %.3f cm/m (%.2f cm); "
               "free feet: run time %.2f cm/m (%.2f cm), offline %.2f cm/m (%.2f cm)\n",
               pf[0], sl[0], cm[0], sl[1], cm[1], sl[2], cm[2], sl[3], cm[3]);
        CHECK(pf[0] == pf[2]);
        /* a source that travels (CMU): its planted feet stand still, so the
         * test finds them (an in-place source's, RobotExpressive's Walking,
         * move back at the walk's speed: the project's measure below) */
        if (travels) CHECK(pf[0] > 100 && sl[0] >= 0.0 && sl[0] <= slide_goal && sl[2] > 5.0 * slide_goal);
        stance_retarget_report r, ro, rf;
        CHECK_OK(stance_retarget_measure(clip, src.skeleton, mine, ts, NULL, &r, NULL));
        CHECK_OK(stance_retarget_measure(clip, src.skeleton, ocf, ts, NULL, &rf, NULL));
        CHECK_OK(stance_retarget_measure(clip, src.skeleton, oc, ts, NULL, &ro, NULL));
        printf("    stance_retarget_measure: run time: direction mean %.3f worst %.2f deg (%s at %.2f s), slide %.3f cm/m;\n"
               "      offline free feet: %.3f / %.2f deg, slide %.2f cm/m; offline with foot IK: %.3f / %.2f deg (%s at %.2f s), "
               "slide %.3f cm/m\n",
               r.direction_mean_deg, r.direction_worst_deg, stance_humanoid_slot_name(r.worst_slot), r.worst_time,
               r.slide_cm_per_m, rf.direction_mean_deg, rf.direction_worst_deg, rf.slide_cm_per_m, ro.direction_mean_deg, ro.direction_worst_deg, stance_humanoid_slot_name(ro.worst_slot),
               ro.worst_time, ro.slide_cm_per_m);
        CHECK(r.direction_worst_deg <= tol_deg);
        CHECK(r.slide_cm_per_m >= 0.0f && r.slide_cm_per_m <= slide_goal && rf.slide_cm_per_m > 5.0 * slide_goal);
    }
    stance_pose_destroy(&p);
    stance_clip_destroy(own), stance_clip_destroy(oc), stance_clip_destroy(ownf), stance_clip_destroy(ocf);
    stance_instance_destroy(inst), stance_workspace_destroy(ws);
    stance_asset_destroy(&src);
    stance_graphfile_destroy(gf);
}

static void refuse(const char *asset, const char *retarget, const char *want, int line, int col) {
    stance_graphfile *gf = NULL;
    stance_error err;
    stance_status s = load_graph(asset, retarget, &gf, &err);
    CHECK(s != STANCE_OK && gf == NULL);
    char at[64];
    snprintf(at, sizeof at, "g.json:%d:%d: ", line, col);
    CHECK(strncmp(err.message, at, strlen(at)) == 0);
    CHECK(strstr(err.message, want) != NULL);
    CHECK(strchr(err.message, '\n') == NULL);
    printf("  refused: %s\n", err.message);
    stance_graphfile_destroy(gf);
}

/* `stance graph-check` takes graphs/robot_retarget.json; `stance compile`
 * refuses it in one line saying why. */
static void cli_checks(void) {
    const char *cli = getenv("STANCE_CLI"), *src = getenv("STANCE_SOURCE");
    if (!cli || !src) {
        printf("  SKIP the CLI: STANCE_CLI or STANCE_SOURCE not set\n");
        return;
    }
    char cmd[1200], line[600] = "";
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' graph-check graphs/robot_retarget.json 2>&1", src, cli);
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL);
    if (!p) return;
    int saw = 0;
    while (fgets(line, sizeof line, p)) saw |= strstr(line, "cmu_walk@4") != NULL;
    CHECK(pclose(p) == 0 && saw);
    /* compile writes the retargeted clip as an ordinary clip (exact keys
     * here): the compiled file's 'cmu_walk' against the run-time clip
     * (stance_retarget_clip_runtime, as the graph file's with "bake": false),
     * by the test's own forward kinematics, at the source's keys and at 4
     * samples per key interval between them; and the graph file's own clip
     * (baked when it is read) equals the compiled one */
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' compile graphs/robot_retarget.json --error-cm 0 -o %s/c.stance 2>&1", src, cli, dir);
    p = popen(cmd, "r");
    CHECK(p != NULL);
    if (!p) return;
    int lines = 0;
    char msg[600] = "";
    while (fgets(line, sizeof line, p)) lines++, snprintf(msg, sizeof msg, "%s", line);
    CHECK(pclose(p) == 0 && lines == 1 && strstr(msg, "and 1 retargeted at run time (baked)") != NULL);
    printf("  graph-check takes graphs/robot_retarget.json; compile: %s", msg);
    char path[700];
    snprintf(path, sizeof path, "%s/graphs/robot_retarget.json", src);
    stance_graphfile *gf = NULL;
    stance_asset out = {0};
    snprintf(cmd, sizeof cmd, "%s/c.stance", dir);
    CHECK_OK(stance_graphfile_load(path, NULL, &gf, NULL));
    CHECK_OK(stance_asset_load_file(cmd, NULL, &out, NULL));
    const stance_graph_desc *d = gf ? stance_graphfile_desc(gf) : NULL;
    const stance_clip *own = NULL, *baked = stance_asset_find_clip(&out, "cmu_walk");
    for (int m = 0; d && m < d->machine_count; m++)
        for (int st = 0; st < d->machines[m].state_count; st++)
            for (int e = 0; e < d->machines[m].states[st].entry_count; e++)
                if (!strcmp(d->machines[m].states[st].entries[e].clip->name, "cmu_walk")) own = d->machines[m].states[st].entries[e].clip;
    stance_asset cmu = {0};
    CHECK_OK(stance_open_file(CMU, NULL, NULL, &cmu, NULL));
    const stance_clip *sc = cmu.clip_count ? cmu.clips[0] : NULL; /* the source's keys */
    stance_clip *live = NULL;
    if (sc && gf) CHECK_OK(stance_retarget_clip_runtime(sc, cmu.skeleton, stance_graphfile_skeleton(gf), NULL, NULL, &live, NULL));
    CHECK(live != NULL && live->retarget != NULL && baked != NULL && baked->retarget == NULL && out.graph != NULL);
    CHECK(own != NULL && own->retarget == NULL);
    double own_diff = 0;
    stance_pose c0, c1;
    CHECK_OK(stance_pose_create(&c0, out.skeleton ? out.skeleton->joint_count : 1, NULL, NULL));
    CHECK_OK(stance_pose_create(&c1, out.skeleton ? out.skeleton->joint_count : 1, NULL, NULL));
    for (int f = 0; own && baked && sc && f <= 2000; f++) { /* the graph's bake against the compiled clip, sample by sample */
        float t = sc->duration * (float)f / 2000.0f;
        CHECK_OK(stance_clip_sample(own, t, NULL, &c0, NULL));
        CHECK_OK(stance_clip_sample(baked, t, NULL, &c1, NULL));
        for (int j = 0; j < c0.joint_count; j++) {
            const float a[10] = {c0.tx[j], c0.ty[j], c0.tz[j], c0.qx[j], c0.qy[j], c0.qz[j], c0.qw[j], c0.sx[j], c0.sy[j], c0.sz[j]};
            const float b[10] = {c1.tx[j], c1.ty[j], c1.tz[j], c1.qx[j], c1.qy[j], c1.qz[j], c1.qw[j], c1.sx[j], c1.sy[j], c1.sz[j]};
            for (int i = 0; i < 10; i++) own_diff = fmax(own_diff, fabs((double)a[i] - (double)b[i]));
        }
    }
    printf("  the graph file's 'cmu_walk' (baked when read) against the compiled one: largest difference %.3g (2001 samples)\n",
           own_diff);
    CHECK(own_diff == 0.0);
    stance_pose_destroy(&c0), stance_pose_destroy(&c1);
    if (live && baked && out.skeleton && sc) {
        const stance_skeleton *sk = out.skeleton;
        stance_pose a, b;
        CHECK_OK(stance_pose_create(&a, sk->joint_count, NULL, NULL));
        CHECK_OK(stance_pose_create(&b, sk->joint_count, NULL, NULL));
        double (*pa)[3] = malloc(sizeof *pa * (size_t)sk->joint_count), (*pb)[3] = malloc(sizeof *pb * (size_t)sk->joint_count);
        CHECK_OK(stance_clip_sample(live, 0.0f, NULL, &a, NULL));
        fk(sk, &a, pa);
        int head = stance_skeleton_find(sk, "Head"), foot = stance_skeleton_find(sk, "Foot.L");
        double height = pa[head][1] - pa[foot][1], at_keys = 0, between = 0, jump = 0, jump_t = 0;
        int skipped = 0;
        stance_pose s0, s1;
        CHECK_OK(stance_pose_create(&s0, cmu.skeleton->joint_count, NULL, NULL));
        CHECK_OK(stance_pose_create(&s1, cmu.skeleton->joint_count, NULL, NULL));
        for (int k = 0; k + 1 < sc->key_count; k++) {
            /* an interval where a source joint turns more than 30 deg between
             * two keys (CMU's 175 deg step): the two interpolate different
             * things, so only the keys are compared there */
            double turn = 0;
            CHECK_OK(stance_clip_sample(sc, sc->times[k], NULL, &s0, NULL));
            CHECK_OK(stance_clip_sample(sc, sc->times[k + 1], NULL, &s1, NULL));
            for (int j = 0; j < cmu.skeleton->joint_count; j++) {
                double dq = fabs((double)s0.qx[j] * s1.qx[j] + (double)s0.qy[j] * s1.qy[j] + (double)s0.qz[j] * s1.qz[j] +
                                 (double)s0.qw[j] * s1.qw[j]);
                turn = fmax(turn, 2 * acos(fmin(1.0, dq)) * 180.0 / PI);
            }
            skipped += turn > 30;
            for (int q = 0; q < (turn > 30 ? 1 : 4); q++) {
                float t = sc->times[k] + (sc->times[k + 1] - sc->times[k]) * (float)q / 4.0f;
                CHECK_OK(stance_clip_sample(live, t, NULL, &a, NULL));
                CHECK_OK(stance_clip_sample(baked, t, NULL, &b, NULL));
                fk(sk, &a, pa), fk(sk, &b, pb);
                for (int j = 0; j < sk->joint_count; j++) {
                    double dd = sqrt((pa[j][0] - pb[j][0]) * (pa[j][0] - pb[j][0]) + (pa[j][1] - pb[j][1]) * (pa[j][1] - pb[j][1]) +
                                     (pa[j][2] - pb[j][2]) * (pa[j][2] - pb[j][2])) / height;
                    if (q == 0) at_keys = fmax(at_keys, dd);
                    else between = fmax(between, dd);
                }
            }
            if (turn > jump) jump = turn, jump_t = sc->times[k];
        }
        stance_pose_destroy(&s0), stance_pose_destroy(&s1);
        printf("  compiled 'cmu_walk' against the run-time clip: joints within %.2g (at the source's %d keys) and %.2g "
               "(between them, but %d intervals where the source turns over 30 deg: the largest %.1f deg at %.2f s) of the "
               "character's height\n", at_keys, sc->key_count, between, skipped, jump, jump_t);
        CHECK(height > 0 && at_keys < 1e-5 && between < 2e-3);
        free(pa), free(pb);
        stance_pose_destroy(&a), stance_pose_destroy(&b);
    }
    stance_clip_destroy(live);
    stance_asset_destroy(&cmu);
    stance_asset_destroy(&out);
    stance_graphfile_destroy(gf);
}

/* Fingers: RobotExpressive's ThumbsUp onto RobotExpressive through a graph
 * file with "fingers": true (and without): the finger segments (Thumb ->
 * Thumb2, Index -> Index2, Middle1 -> Middle2, Ring1 -> Ring2 a side) point
 * as the source's own (the test's forward kinematics of both samples), and
 * without the key the graph's fingers keep their rest pose. */
static void fingers(const char *robot) {
    static const char *const segs[8][2] = {{"Thumb.L", "Thumb2.L"}, {"Index.L", "Index2.L"}, {"Middle1.L", "Middle2.L"},
                                           {"Ring1.L", "Ring2.L"},  {"Thumb.R", "Thumb2.R"}, {"Index.R", "Index2.R"},
                                           {"Middle1.R", "Middle2.R"}, {"Ring1.R", "Ring2.R"}};
    stance_asset src = {0};
    CHECK_OK(stance_open_file(robot, NULL, NULL, &src, NULL));
    const stance_clip *clip = stance_asset_find_clip(&src, "ThumbsUp");
    CHECK(clip != NULL);
    if (!clip) return;
    const stance_skeleton *sk = src.skeleton;
    for (int bake = 0; bake < 2; bake++) {
    double worst_on = 0, turn = 0, worst_rest = 0;
    for (int on = 0; on < 2; on++) {
        char spec[900];
        snprintf(spec, sizeof spec, "{\"from\": \"%s\", \"clip\": \"ThumbsUp\"%s%s}", robot, on ? ", \"fingers\": true" : "",
                 bake ? "" : ", \"bake\": false");
        stance_graphfile *gf = NULL;
        stance_error err;
        stance_status st = load_graph(robot, spec, &gf, &err);
        CHECK_OK(st);
        if (st) {
            printf("  %s\n", err.message);
            continue;
        }
        const stance_graph_desc *gd = stance_graphfile_desc(gf);
        const stance_clip *rc = gd && gd->machine_count ? gd->machines[0].states[0].clip : NULL;
        CHECK(rc != NULL && (bake ? rc->retarget == NULL : rc->retarget != NULL));
        stance_pose a, b;
        CHECK_OK(stance_pose_create(&a, sk->joint_count, NULL, NULL));
        CHECK_OK(stance_pose_create(&b, sk->joint_count, NULL, NULL));
        double (*pa)[3] = malloc(sizeof *pa * (size_t)sk->joint_count), (*pb)[3] = malloc(sizeof *pb * (size_t)sk->joint_count);
        for (int f = 0; rc && f <= 60; f++) {
            float t = clip->duration * (float)f / 60.0f;
            CHECK_OK(stance_clip_sample(clip, t, NULL, &a, NULL));
            CHECK_OK(stance_clip_sample(rc, t, NULL, &b, NULL));
            fk(sk, &a, pa), fk(sk, &b, pb);
            for (int g = 0; g < 8; g++) {
                int j0 = stance_skeleton_find(sk, segs[g][0]), j1 = stance_skeleton_find(sk, segs[g][1]);
                CHECK(j0 >= 0 && j1 >= 0);
                if (j0 < 0 || j1 < 0) continue;
                double da[3], db[3];
                for (int k = 0; k < 3; k++) da[k] = pa[j1][k] - pa[j0][k], db[k] = pb[j1][k] - pb[j0][k];
                if (on) worst_on = fmax(worst_on, angle_deg(da, db));
                double r[4] = {sk->rest[j0].r[0], sk->rest[j0].r[1], sk->rest[j0].r[2], sk->rest[j0].r[3]};
                double q[4] = {on ? a.qx[j0] : b.qx[j0], on ? a.qy[j0] : b.qy[j0], on ? a.qz[j0] : b.qz[j0], on ? a.qw[j0] : b.qw[j0]};
                double nr = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
                double nq = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
                double d = fabs(r[0] * q[0] + r[1] * q[1] + r[2] * q[2] + r[3] * q[3]) / (nr * nq);
                double ang = 2 * acos(fmin(1.0, d)) * 180.0 / PI;
                if (on) turn = fmax(turn, ang); /* how far the source's fingers turn off their rest */
                else worst_rest = fmax(worst_rest, ang);
            }
        }
        free(pa), free(pb);
        stance_pose_destroy(&a), stance_pose_destroy(&b);
        stance_graphfile_destroy(gf);
    }
    printf("  fingers (%s): RobotExpressive ThumbsUp through a graph file, finger segments worst %.4f deg (the source's turn "
           "up to %.1f deg off rest); without \"fingers\" %.2g deg off rest\n",
           bake ? "baked" : "\"bake\": false", worst_on, turn, worst_rest);
    CHECK(worst_on < 0.05 && turn > 5.0);
    CHECK(worst_rest < 1e-3);
    }
    stance_asset_destroy(&src);
}

static void test_graph_files(const char *data) {
    char robot[700];
    snprintf(robot, sizeof robot, "%s" ROBOT, data);
    stance_asset probe = {0};
    stance_error e;
    if (stance_open_file(robot, NULL, NULL, &probe, &e)) { /* no data, or built without the importers */
        printf("  SKIP the graph files on the shared data: %s\n", e.message);
        return;
    }
    stance_asset_destroy(&probe);
    FILE *f;
    play("builtin", robot, "Walking", 1.0, 0.05, 0.05, 1.5, 1.0, 0, 0);
    play("builtin", robot, "Walking", 1.0, 0.05, 0.05, 1.5, 1.0, 0, 1);
    fingers(robot);
    refuse("builtin", "{\"from\": \"builtin\", \"clip\": \"walk\", \"fingers\": 1}", "\"fingers\": expected true or false", 2, 78);
    f = fopen(CMU, "rb");
    if (f) {
        fclose(f);
        play(robot, CMU, "Motion", 2.0, 0.05, 0.05, 0.05, 1.0, 1, 0);
        play(robot, CMU, "Motion", 2.0, 0.05, 0.05, 0.05, 1.0, 1, 1);
        cli_checks();
    } else {
        printf("  SKIP CMU: no " CMU "\n");
    }
    /* refusals */
    refuse("builtin", "{\"from\": \"nowhere.glb\"}", "cannot load 'nowhere.glb'", 2, 40);
    write_file("map.json", "{\"slots\": {\"left_hand\": \"NoSuchJoint\"}}\n");
    refuse("builtin", "{\"from\": \"builtin\", \"clip\": \"walk\", \"source_map\": \"map.json\"}", "map.json:1:12: slot 'left_hand': the skeleton has no joint 'NoSuchJoint'", 2, 19);
    refuse("builtin", "{\"from\": \"builtin\", \"clip\": \"wlak\"}", "no clip 'wlak'", 2, 59);
    refuse("builtin", "{\"from\": \"builtin\", \"clip\": \"walk\", \"colour\": 1}", "unknown key \"colour\"", 2, 67);
    char spec[900];
    snprintf(spec, sizeof spec, "{\"from\": \"%s\", \"clip\": \"Walking\"}", robot);
    /* a name of the asset's own clips */
    {
        char text[2048];
        snprintf(text, sizeof text,
                 "{\"version\": 1, \"asset\": \"builtin\",\n \"clips\": {\"walk\": {\"retarget\": %s}},\n"
                 " \"machines\": [{\"name\": \"M\", \"states\": [{\"name\": \"S\", \"clip\": \"walk\"}]}]}\n", spec);
        stance_graphfile *gf = NULL;
        stance_error err;
        CHECK(stance_graphfile_load_string(text, "g.json", dir, NULL, &gf, &err) != STANCE_OK);
        CHECK(strstr(err.message, "g.json:2:12: clip 'walk' is the asset's own") != NULL);
        printf("  refused: %s\n", err.message);
    }
    /* a source without legs: a BVH written here */
    write_file("stick.bvh", "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation "
                            "Xrotation Yrotation\n JOINT Head\n {\n  OFFSET 0 10 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n"
                            "  End Site\n  {\n   OFFSET 0 5 0\n  }\n }\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n"
                            "0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0\n");
    refuse("builtin", "{\"from\": \"stick.bvh\"}", "source skeleton has no left_upper_leg", 2, 19);
}

/* With the source's contacts, a pelvis with many children no slot names
 * (10 leaves under the built-in character's pelvis, its thighs 1.3x and
 * shins 0.8x; more than 8 were refused): the run-time clip is built, its limbs within 0.05 deg of the
 * offline retarget's and those children's model rotations (the test's own
 * kinematics) within 0.05 deg of the offline clip's, which keeps them as
 * the pelvis turns. */
static void test_pelvis_children(void) {
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    const stance_skeleton *sk = b.skeleton;
    stance_humanoid_map ms;
    CHECK_OK(stance_humanoid_map_find(sk, NULL, &ms, NULL));
    const int hips = ms.joint[STANCE_SLOT_HIPS], n = sk->joint_count, extra = 10;
    CHECK(hips >= 0);
    stance_transform *rest = malloc(sizeof *rest * (size_t)(n + extra));
    const char **names = malloc(sizeof *names * (size_t)(n + extra));
    int *parents = malloc(sizeof *parents * (size_t)(n + extra));
    static const char *const pouch[10] = {"pouch0", "pouch1", "pouch2", "pouch3", "pouch4",
                                          "pouch5", "pouch6", "pouch7", "pouch8", "pouch9"};
    for (int j = 0; j < n; j++) rest[j] = sk->rest[j], names[j] = stance_skeleton_joint_name(sk, j), parents[j] = sk->parents[j];
    /* other proportions (thighs 1.3x, shins 0.8x), so the contacts move the pelvis */
    for (int side = 0; side < 2; side++) {
        int lo = ms.joint[side ? STANCE_SLOT_RIGHT_LOWER_LEG : STANCE_SLOT_LEFT_LOWER_LEG];
        int ft = ms.joint[side ? STANCE_SLOT_RIGHT_FOOT : STANCE_SLOT_LEFT_FOOT];
        CHECK(lo >= 0 && ft >= 0);
        for (int c = 0; lo >= 0 && ft >= 0 && c < 3; c++) rest[lo].t[c] *= 1.3f, rest[ft].t[c] *= 0.8f;
    }
    for (int k = 0; k < extra; k++) {
        stance_transform t = {{0.02f * (float)(k - 5), 0.0f, 0.08f}, {0.0f, 0.0f, 0.0f, 1.0f}, {1.0f, 1.0f, 1.0f}};
        if (k & 1) t.r[0] = sinf(0.3f), t.r[3] = cosf(0.3f); /* some turned at rest */
        rest[n + k] = t, names[n + k] = pouch[k], parents[n + k] = hips;
    }
    stance_skeleton_desc d = {n + extra, names, parents, rest};
    stance_skeleton *ts = NULL;
    CHECK_OK(stance_skeleton_create(&d, NULL, &ts, NULL));
    free(rest), free(names), free(parents);
    const stance_clip *clip = stance_builtin_clip(&b, "walk");
    stance_clip *rc = NULL, *oc = NULL;
    stance_error err = {0};
    CHECK_OK(stance_retarget_clip_runtime(clip, sk, ts, NULL, NULL, &rc, &err));
    if (!rc) printf("  %s\n", err.message);
    CHECK_OK(stance_retarget_clip(clip, sk, ts, NULL, NULL, &oc, NULL));
    if (rc && oc && ts) {
        double w[4], mean;
        compare(clip, sk, rc, oc, ts, w, &mean);
        stance_pose pr, po;
        CHECK_OK(stance_pose_create(&pr, ts->joint_count, NULL, NULL));
        CHECK_OK(stance_pose_create(&po, ts->joint_count, NULL, NULL));
        double worst = 0, turn = 0;
        for (int f = 0; f <= (int)(clip->duration * 60.0f); f++) {
            float t = (float)f / 60.0f;
            CHECK_OK(stance_clip_sample(rc, t, NULL, &pr, NULL));
            CHECK_OK(stance_clip_sample(oc, t, NULL, &po, NULL));
            /* model rotations: the test's own products down the chain, in double */
            for (int k = 0; k < extra; k++) {
                double qa[4] = {0, 0, 0, 1}, qb[4] = {0, 0, 0, 1}, r[4];
                for (int j = n + k; j >= 0; j = ts->parents[j]) {
                    double la[4] = {pr.qx[j], pr.qy[j], pr.qz[j], pr.qw[j]}, lb[4] = {po.qx[j], po.qy[j], po.qz[j], po.qw[j]};
                    qmul(la, qa, r), memcpy(qa, r, sizeof r);
                    qmul(lb, qb, r), memcpy(qb, r, sizeof r);
                }
                double na = sqrt(qa[0] * qa[0] + qa[1] * qa[1] + qa[2] * qa[2] + qa[3] * qa[3]);
                double nb = sqrt(qb[0] * qb[0] + qb[1] * qb[1] + qb[2] * qb[2] + qb[3] * qb[3]);
                double dt = fabs(qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3]) / (na * nb);
                worst = fmax(worst, 2 * acos(fmin(1.0, dt)) * 180.0 / PI);
                /* how far the pelvis turns the children off their rest (the pelvis' model rotation against its rest) */
                double pa[4] = {0, 0, 0, 1}, ra[4] = {0, 0, 0, 1};
                for (int j = hips; j >= 0; j = ts->parents[j]) {
                    double l[4] = {po.qx[j], po.qy[j], po.qz[j], po.qw[j]};
                    double l0[4] = {ts->rest[j].r[0], ts->rest[j].r[1], ts->rest[j].r[2], ts->rest[j].r[3]};
                    qmul(l, pa, r), memcpy(pa, r, sizeof r);
                    qmul(l0, ra, r), memcpy(ra, r, sizeof r);
                }
                double dp = fabs(pa[0] * ra[0] + pa[1] * ra[1] + pa[2] * ra[2] + pa[3] * ra[3]) /
                            sqrt((pa[0] * pa[0] + pa[1] * pa[1] + pa[2] * pa[2] + pa[3] * pa[3]) *
                                 (ra[0] * ra[0] + ra[1] * ra[1] + ra[2] * ra[2] + ra[3] * ra[3]));
                turn = fmax(turn, 2 * acos(fmin(1.0, dp)) * 180.0 / PI);
            }
        }
        printf("  a pelvis with %d children no slot names, with contacts: limbs within %.4f deg of the offline retarget; "
               "those children's model rotations within %.4f deg of the offline clip's (the pelvis turns up to %.1f deg)\n",
               extra, w[0], worst, turn);
        CHECK(w[0] < 0.05 && w[1] < 0.05 && worst < 0.05 && turn > 1.0);
        stance_pose_destroy(&pr), stance_pose_destroy(&po);
    }
    stance_clip_destroy(rc), stance_clip_destroy(oc);
    stance_skeleton_destroy(ts);
    /* CMU 01_01's skeleton as the target: its legs hang from LHipJoint and
     * RHipJoint, which no slot names, between the pelvis and the upper legs */
    stance_asset cmu = {0};
    if (stance_open_file(CMU, NULL, NULL, &cmu, NULL) == STANCE_OK) {
        rc = oc = NULL;
        CHECK_OK(stance_retarget_clip_runtime(clip, sk, cmu.skeleton, NULL, NULL, &rc, NULL));
        CHECK_OK(stance_retarget_clip(clip, sk, cmu.skeleton, NULL, NULL, &oc, NULL));
        if (rc && oc) {
            double w[4], mean;
            compare(clip, sk, rc, oc, cmu.skeleton, w, &mean);
            printf("  the built-in walk on CMU 01_01's skeleton (hip joints between the pelvis and the legs), with contacts: "
                   "limbs within %.4f deg of the offline retarget, spine %.4f\n", w[0], w[1]);
            CHECK(w[0] < 0.05 && w[1] < 0.05);
        }
        stance_clip_destroy(rc), stance_clip_destroy(oc);
        stance_asset_destroy(&cmu);
    } else {
        printf("  SKIP CMU as the target: no " CMU " (or no importer)\n");
    }
    stance_builtin_destroy(&b);
}

/* the graph files on the shared data (STANCE_DATA, else ../shared/data) */
static void test_shared_data(void) {
    const char *data = getenv("STANCE_DATA");
    test_graph_files(data ? data : "../shared/data");
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/stance_rt_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    RUN(test_other_rest);
    RUN(test_pelvis_children);
    RUN(test_shared_data);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    return check_summary();
}
