/* tests/test_io_real.c - the importer on real assets, checked against the
 * numbers stored in the files, read here independently of assimp: a small
 * GLB reader (JSON chunk + binary chunk) for RobotExpressive.glb and
 * Fox.glb, and a BVH reader (hierarchy + motion text) for CMU 01_01.bvh.
 *
 * At every key time the sampled local rotations equal the file's, and the
 * model-space positions and rotations equal the file's node hierarchy
 * evaluated here (in double), within 1e-5 (relative for positions beyond
 * 1 unit). Joint counts and names, clip names and durations, and an
 * import -> .stance -> load round trip are checked too.
 *
 * Data: STANCE_DATA (../shared/data) and assimp-testmodels. When CI=true a
 * missing file fails the test; elsewhere it is skipped with a message. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stance/import.h"
#include "stance/asset.h"
#include "stance/pose.h"
#include "stance/build.h"

#define BVH_PATH "/usr/share/assimp/models/BVH/01_01.bvh"

#include "real_files.h"


typedef struct errors {
    double pos, rot, local_rot, local_pos;
    long compared;
} errors;

/* Compares a stance local pose (and its model pose) with the file's
 * transforms: world[] per stance joint, local[] per stance joint. */
static void compare_pose(const stance_skeleton *sk, const stance_pose *local, const stance_pose *model,
                         const trs *world, const trs *file_local, const unsigned char *check_local, double above_scale,
                         double tol, errors *e) {
    for (int j = 0; j < sk->joint_count; j++) {
        double mag = sqrt(world[j].t[0] * world[j].t[0] + world[j].t[1] * world[j].t[1] + world[j].t[2] * world[j].t[2]);
        float mt[3] = {model->tx[j], model->ty[j], model->tz[j]};
        float mq[4] = {model->qx[j], model->qy[j], model->qz[j], model->qw[j]};
        double dp = 0;
        for (int c = 0; c < 3; c++) dp = fmax(dp, fabs(world[j].t[c] - mt[c]));
        dp /= fmax(1.0, mag);
        double dq = qdiff(world[j].r, mq);
        CHECK(dp <= tol);
        CHECK(dq <= tol);
        if (dp > tol || dq > tol)
            fprintf(stderr, "  joint %d '%s': position error %g (relative), rotation error %g\n", j,
                    stance_skeleton_joint_name(sk, j), dp, dq);
        e->pos = fmax(e->pos, dp), e->rot = fmax(e->rot, dq);
        if (check_local && check_local[j] && j > 0) {
            float lq[4] = {local->qx[j], local->qy[j], local->qz[j], local->qw[j]};
            double fq[4] = {file_local[j].r[0], file_local[j].r[1], file_local[j].r[2], file_local[j].r[3]};
            qnorm(fq);
            double d = qdiff(fq, lq);
            CHECK(d <= tol);
            e->local_rot = fmax(e->local_rot, d);
            float lt[3] = {local->tx[j], local->ty[j], local->tz[j]};
            double m = 0, dt = 0;
            for (int c = 0; c < 3; c++) {
                double want = file_local[j].t[c] * above_scale;
                m = fmax(m, fabs(want));
                dt = fmax(dt, fabs(want - lt[c]));
            }
            dt /= fmax(1.0, m);
            CHECK(dt <= tol);
            e->local_pos = fmax(e->local_pos, dt);
        }
        e->compared++;
    }
}

/* ---- the .stance round trip of an imported asset ----------------------------- */

static void check_round_trip(const stance_asset *a, const char *label) {
    void *bytes = NULL;
    size_t size = 0;
    stance_error err;
    CHECK_OK(stance_asset_save_memory(a, &bytes, &size, NULL, &err));
    stance_asset b;
    CHECK_OK(stance_asset_load_memory(bytes, size, NULL, &b, &err));
    stance_asset_free_bytes(bytes, size, NULL);
    if (!b.skeleton) return;
    CHECK(b.clip_count == a->clip_count && b.skeleton->joint_count == a->skeleton->joint_count);
    stance_pose pa, pb;
    CHECK_OK(stance_pose_create(&pa, a->skeleton->joint_count, NULL, NULL));
    CHECK_OK(stance_pose_create(&pb, a->skeleton->joint_count, NULL, NULL));
    long floats = 0, rot_differ = 0, other_differ = 0;
    double rot_max = 0;
    for (int i = 0; i < a->clip_count && i < b.clip_count; i++) {
        const stance_clip *c = a->clips[i], *d = b.clips[i];
        CHECK(!strcmp(c->name, d->name) && c->duration == d->duration && c->key_count == d->key_count);
        for (int k = 0; k < 2 * c->key_count; k++) {
            float t = k % 2 == 0 ? c->times[k / 2] : k / 2 + 1 < c->key_count ? 0.5f * (c->times[k / 2] + c->times[k / 2 + 1]) : c->duration;
            CHECK_OK(stance_clip_sample(c, t, NULL, &pa, NULL));
            CHECK_OK(stance_clip_sample(d, t, NULL, &pb, NULL));
            const float *xa[10] = {pa.tx, pa.ty, pa.tz, pa.sx, pa.sy, pa.sz, pa.qx, pa.qy, pa.qz, pa.qw};
            const float *xb[10] = {pb.tx, pb.ty, pb.tz, pb.sx, pb.sy, pb.sz, pb.qx, pb.qy, pb.qz, pb.qw};
            for (int comp = 0; comp < 10; comp++)
                for (int j = 0; j < pa.joint_count; j++) {
                    floats++;
                    if (!memcmp(&xa[comp][j], &xb[comp][j], sizeof(float))) continue;
                    if (comp < 6) other_differ++;
                    else rot_differ++, rot_max = fmax(rot_max, fabs(xa[comp][j] - xb[comp][j]));
                }
        }
    }
    /* import -> save -> load gives identical samples, bit for bit */
    CHECK(other_differ == 0);
    CHECK(rot_differ == 0);
    printf("     %s round trip: %zu bytes, %ld sampled floats, %ld translation/scale differ, %ld rotation floats differ (max %.2g)\n",
           label, size, floats, other_differ, rot_differ, rot_max);
    stance_pose_destroy(&pa);
    stance_pose_destroy(&pb);
    stance_asset_destroy(&b);
}

/* ---- glTF assets ------------------------------------------------------------- */

typedef struct want_clip {
    const char *name;
    float duration; /* 0: not checked */
} want_clip;

static void check_gltf(const char *rel, int want_joints, int want_clips, const want_clip *want, int want_n) {
    char path[512];
    data_path(path, sizeof path, rel);
    gltf g;
    if (!gltf_open(&g, path)) {
        gltf_free(&g);
        return;
    }
    stance_import_warnings warnings;
    stance_import_options opt = {.warnings = &warnings};
    stance_asset a;
    stance_error err;
    stance_status s = stance_import_file(path, &opt, NULL, &a, &err);
    if (s) fprintf(stderr, "%s\n", err.message);
    CHECK_OK(s);
    if (s) {
        gltf_free(&g);
        return;
    }
    const stance_skeleton *sk = a.skeleton;

    /* the skeleton is the skins' joints, by name */
    const jv *skins = jget(&g.json, "skins");
    int *skin_node = calloc((size_t)g.node_count, sizeof(int));
    int skin_joints = 0;
    for (int k = 0; k < jlen(skins); k++) {
        const jv *joints = jget(jat(skins, k), "joints");
        for (int i = 0; i < jlen(joints); i++) {
            int n = (int)jnum(jat(joints, i), -1);
            if (n >= 0 && n < g.node_count && !skin_node[n]) skin_node[n] = 1, skin_joints++;
        }
    }
    CHECK(skin_joints == want_joints);
    CHECK(sk->joint_count == want_joints);
    int *node_of = malloc(sizeof(int) * (size_t)sk->joint_count);
    for (int j = 0; j < sk->joint_count; j++) {
        node_of[j] = -1;
        for (int n = 0; n < g.node_count; n++)
            if (skin_node[n] && !strcmp(node_name(&g, n), stance_skeleton_joint_name(sk, j))) node_of[j] = n;
        CHECK(node_of[j] >= 0);
        if (node_of[j] < 0) fprintf(stderr, "  joint '%s' is not a skin joint\n", stance_skeleton_joint_name(sk, j));
        if (node_of[j] < 0) node_of[j] = 0;
        if (j > 0) CHECK(g.parent[node_of[j]] == node_of[sk->parents[j]]);
    }

    /* clips: names and durations from the files' key times */
    const jv *anims = jget(&g.json, "animations");
    CHECK(jlen(anims) == want_clips && a.clip_count == want_clips);
    for (int i = 0; i < want_n; i++) {
        const stance_clip *c = stance_asset_find_clip(&a, want[i].name);
        CHECK(c != NULL);
        if (c && want[i].duration > 0) CHECK_NEAR(c->duration, want[i].duration, 0.0005);
    }

    /* what lies above the skeleton's root, evaluated from the file */
    trs above = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    {
        int chain[64], depth = 0;
        for (int p = g.parent[node_of[0]]; p >= 0 && depth < 64; p = g.parent[p]) chain[depth++] = p;
        for (int i = depth - 1; i >= 0; i--) {
            trs local;
            memcpy(local.t, g.t[chain[i]], sizeof local.t), memcpy(local.r, g.r[chain[i]], sizeof local.r), memcpy(local.s, g.s[chain[i]], sizeof local.s);
            above = compose(&above, &local);
        }
    }
    double above_scale = (above.s[0] + above.s[1] + above.s[2]) / 3.0;

    stance_pose local, model;
    CHECK_OK(stance_pose_create(&local, sk->joint_count, NULL, NULL));
    CHECK_OK(stance_pose_create(&model, sk->joint_count, NULL, NULL));
    trs *file_local = malloc(sizeof(trs) * (size_t)sk->joint_count);
    trs *world = malloc(sizeof(trs) * (size_t)sk->joint_count);
    unsigned char *keyed = malloc((size_t)sk->joint_count);
    errors e = {0, 0, 0, 0, 0};
    long poses = 0;
    for (int ai = 0; ai < jlen(anims); ai++) {
        const jv *an = jat(anims, ai);
        const jv *name = jget(an, "name");
        const stance_clip *clip = stance_asset_find_clip(&a, name && name->type == J_STR ? name->str : "");
        CHECK(clip != NULL);
        if (!clip) continue;
        const jv *channels = jget(an, "channels"), *samplers = jget(an, "samplers");
        /* the channels' key data, read once */
        int nch = jlen(channels);
        float **in = calloc((size_t)nch, sizeof(float *)), **out = calloc((size_t)nch, sizeof(float *));
        int *in_n = calloc((size_t)nch, sizeof(int)), *joint = calloc((size_t)nch, sizeof(int)), *path_kind = calloc((size_t)nch, sizeof(int));
        int grid = -1;
        float file_duration = 0;
        for (int c = 0; c < nch; c++) {
            const jv *ch = jat(channels, c), *target = jget(ch, "target");
            const jv *pth = jget(target, "path");
            const jv *smp = jat(samplers, (int)jnum(jget(ch, "sampler"), -1));
            int node = (int)jnum(jget(target, "node"), -1);
            joint[c] = -1;
            path_kind[c] = !pth || pth->type != J_STR ? -1 : !strcmp(pth->str, "translation") ? 0 : !strcmp(pth->str, "rotation") ? 1 : !strcmp(pth->str, "scale") ? 2 : -1;
            for (int j = 0; j < sk->joint_count; j++)
                if (node_of[j] == node) joint[c] = j;
            if (path_kind[c] < 0 || joint[c] < 0) continue; /* morph weights, or not a joint */
            const jv *interp = jget(smp, "interpolation");
            CHECK(!interp || (interp->type == J_STR && !strcmp(interp->str, "LINEAR")));
            int comps = 0, oc = 0, on = 0;
            in[c] = accessor_floats(&g, (int)jnum(jget(smp, "input"), -1), &in_n[c], &comps);
            out[c] = accessor_floats(&g, (int)jnum(jget(smp, "output"), -1), &on, &oc);
            CHECK(in[c] && out[c] && comps == 1 && on == in_n[c] && oc == (path_kind[c] == 1 ? 4 : 3));
            if (!in[c] || !out[c] || on != in_n[c]) {
                joint[c] = -1;
                continue;
            }
            if (in[c][in_n[c] - 1] > file_duration) file_duration = in[c][in_n[c] - 1];
            if (grid < 0) grid = c;
        }
        CHECK_NEAR(clip->duration, file_duration, 1e-5);
        /* key times every joint channel has: compare there */
        for (int k = 0; grid >= 0 && k < in_n[grid]; k++) {
            float t = in[grid][k];
            for (int j = 0; j < sk->joint_count; j++) {
                const int n = node_of[j];
                memcpy(file_local[j].t, g.t[n], sizeof file_local[j].t);
                memcpy(file_local[j].r, g.r[n], sizeof file_local[j].r);
                memcpy(file_local[j].s, g.s[n], sizeof file_local[j].s);
                keyed[j] = 0;
            }
            int everywhere = 1;
            for (int c = 0; c < nch && everywhere; c++) {
                if (joint[c] < 0) continue;
                int key = -1;
                for (int q = 0; q < in_n[c]; q++)
                    if (in[c][q] == t) key = q;
                if (key < 0) {
                    everywhere = 0;
                    break;
                }
                int w = path_kind[c] == 1 ? 4 : 3;
                double *dst = path_kind[c] == 0 ? file_local[joint[c]].t : path_kind[c] == 1 ? file_local[joint[c]].r : file_local[joint[c]].s;
                for (int q = 0; q < w; q++) dst[q] = out[c][(size_t)key * (size_t)w + (size_t)q];
                keyed[joint[c]] = 1;
            }
            if (!everywhere) continue;
            for (int j = 0; j < sk->joint_count; j++) {
                trs l = file_local[j];
                qnorm(l.r);
                world[j] = compose(j == 0 ? &above : &world[sk->parents[j]], &l);
            }
            CHECK_OK(stance_clip_sample(clip, t, NULL, &local, NULL));
            CHECK_OK(stance_local_to_model(&model, &local, sk, NULL, NULL));
            compare_pose(sk, &local, &model, world, file_local, keyed, above_scale, 1e-5, &e);
            poses++;
        }
        for (int c = 0; c < nch; c++) free(in[c]), free(out[c]);
        free(in), free(out), free(in_n), free(joint), free(path_kind);
    }
    CHECK(poses > 0);
    printf("     %s: %d joints, %d clips, %ld poses at key times, %ld joint transforms; max error: model position %.2g (relative), "
           "model rotation %.2g, local rotation %.2g, local translation %.2g; %d warnings\n",
           rel, sk->joint_count, a.clip_count, poses, e.compared, e.pos, e.rot, e.local_rot, e.local_pos, warnings.count);
    check_round_trip(&a, rel);

    free(file_local), free(world), free(keyed), free(node_of), free(skin_node);
    stance_pose_destroy(&local);
    stance_pose_destroy(&model);
    stance_asset_destroy(&a);
    gltf_free(&g);
}

static void test_robot_expressive(void) {
    static const want_clip want[] = {{"Idle", 3.333f},    {"Walking", 0.958f}, {"Running", 0.958f}, {"Jump", 0.708f},
                                     {"Wave", 1.833f},    {"Yes", 1.667f},     {"No", 1.667f},      {"WalkJump", 0.833f},
                                     {"Punch", 0.833f},   {"ThumbsUp", 1.583f}, {"Dance", 3.333f},   {"Death", 0.958f},
                                     {"Sitting", 0.417f}, {"Standing", 0.417f}};
    check_gltf("robot_expressive/RobotExpressive.glb", 43, 14, want, (int)(sizeof want / sizeof want[0]));
}

static void test_fox(void) {
    static const want_clip want[] = {{"Survey", 3.417f}, {"Walk", 0.708f}, {"Run", 1.158f}};
    check_gltf("fox/Fox.glb", 24, 3, want, 3);
}

/* --scale multiplies translations: model positions scale, rotations do not. */
static void test_scale_option(void) {
    char path[512];
    data_path(path, sizeof path, "fox/Fox.glb");
    size_t size = 0;
    unsigned char *bytes = read_all(path, &size);
    if (!bytes) return;
    free(bytes);
    stance_asset a, b;
    stance_import_options opt = {.scale = 0.01f};
    CHECK_OK(stance_import_file(path, NULL, NULL, &a, NULL));
    CHECK_OK(stance_import_file(path, &opt, NULL, &b, NULL));
    if (!a.skeleton || !b.skeleton) return;
    stance_pose la, lb, ma, mb;
    int J = a.skeleton->joint_count;
    CHECK_OK(stance_pose_create(&la, J, NULL, NULL));
    CHECK_OK(stance_pose_create(&lb, J, NULL, NULL));
    CHECK_OK(stance_pose_create(&ma, J, NULL, NULL));
    CHECK_OK(stance_pose_create(&mb, J, NULL, NULL));
    CHECK_OK(stance_clip_sample(a.clips[1], 0.3f, NULL, &la, NULL));
    CHECK_OK(stance_clip_sample(b.clips[1], 0.3f, NULL, &lb, NULL));
    CHECK_OK(stance_local_to_model(&ma, &la, a.skeleton, NULL, NULL));
    CHECK_OK(stance_local_to_model(&mb, &lb, b.skeleton, NULL, NULL));
    for (int j = 0; j < J; j++) {
        CHECK_NEAR(mb.tx[j], 0.01 * ma.tx[j], 1e-5);
        CHECK_NEAR(mb.ty[j], 0.01 * ma.ty[j], 1e-5);
        CHECK_NEAR(mb.tz[j], 0.01 * ma.tz[j], 1e-5);
        CHECK_NEAR(mb.qw[j], ma.qw[j], 1e-6);
    }
    stance_pose_destroy(&la), stance_pose_destroy(&lb), stance_pose_destroy(&ma), stance_pose_destroy(&mb);
    stance_asset_destroy(&a);
    stance_asset_destroy(&b);
    stance_error err;
    opt.scale = -1.0f;
    CHECK_STATUS(stance_import_file(path, &opt, NULL, &a, &err), STANCE_ERR_ARGUMENT);
    opt.scale = NAN;
    CHECK_STATUS(stance_import_file(path, &opt, NULL, &a, &err), STANCE_ERR_ARGUMENT);
}

/* ---- BVH --------------------------------------------------------------------- */

typedef struct bvh_joint {
    char name[64];
    int parent;
    double offset[3];
    int channels, first; /* channel count, index of the first in a frame */
    int kind[6];         /* 0..2 X/Y/Z position, 3..5 X/Y/Z rotation */
} bvh_joint;

typedef struct bvh {
    bvh_joint joint[256];
    int joint_count, channel_count, frames;
    double frame_time;
    double *motion;
} bvh;

/* The next whitespace-separated token (zero-terminated in place), or "". */
static char *next_tok(char **p) {
    char *s = *p;
    while (*s && isspace((unsigned char)*s)) s++;
    char *start = s;
    while (*s && !isspace((unsigned char)*s)) s++;
    if (*s) *s++ = 0;
    *p = s;
    return start;
}

static int bvh_parse(bvh *b, char *text) {
    memset(b, 0, sizeof *b);
    int stack[256], top = 0, in_end_site = 0, ok = 1;
    char *save = text;
    for (char *tok = next_tok(&save); *tok && ok; tok = next_tok(&save)) {
        if (!strcmp(tok, "ROOT") || !strcmp(tok, "JOINT")) {
            bvh_joint *j = &b->joint[b->joint_count];
            snprintf(j->name, sizeof j->name, "%s", next_tok(&save));
            j->parent = top > 0 ? stack[top - 1] : -1;
            stack[top++] = b->joint_count++;
            ok = b->joint_count < 256 && top < 256;
        } else if (!strcmp(tok, "End")) {
            next_tok(&save); /* Site */
            in_end_site = 1;
        } else if (!strcmp(tok, "OFFSET")) {
            double o[3];
            for (int c = 0; c < 3; c++) o[c] = strtod(next_tok(&save), NULL);
            if (!in_end_site) memcpy(b->joint[stack[top - 1]].offset, o, sizeof o);
        } else if (!strcmp(tok, "CHANNELS")) {
            bvh_joint *j = &b->joint[stack[top - 1]];
            j->channels = atoi(next_tok(&save));
            j->first = b->channel_count;
            b->channel_count += j->channels;
            for (int c = 0; c < j->channels && c < 6; c++) {
                const char *ch = next_tok(&save);
                j->kind[c] = (ch[0] - 'X') + (strstr(ch, "rotation") ? 3 : 0);
            }
        } else if (!strcmp(tok, "}")) {
            if (in_end_site) in_end_site = 0;
            else top--;
        } else if (!strcmp(tok, "Frames:")) {
            b->frames = atoi(next_tok(&save));
        } else if (!strcmp(tok, "Frame")) {
            next_tok(&save); /* Time: */
            b->frame_time = strtod(next_tok(&save), NULL);
            size_t n = (size_t)b->frames * (size_t)b->channel_count;
            b->motion = malloc(sizeof(double) * n);
            for (size_t i = 0; i < n && ok; i++) {
                const char *v = next_tok(&save);
                ok = *v != 0;
                if (v) b->motion[i] = strtod(v, NULL);
            }
            break;
        }
    }
    return ok && b->motion && b->frames > 0 && b->frame_time > 0;
}

static void test_bvh(void) {
    size_t size = 0;
    char *text = (char *)read_all(BVH_PATH, &size);
    if (!text) return;
    bvh *b = malloc(sizeof *b);
    CHECK(bvh_parse(b, text));
    free(text);
    stance_asset a;
    stance_error err;
    stance_import_warnings warnings;
    stance_import_options opt = {.warnings = &warnings};
    stance_status s = stance_import_file(BVH_PATH, &opt, NULL, &a, &err);
    if (s) fprintf(stderr, "%s\n", err.message);
    CHECK_OK(s);
    if (s) {
        free(b->motion), free(b);
        return;
    }
    const stance_skeleton *sk = a.skeleton;
    CHECK(b->joint_count == 31 && sk->joint_count == 31);
    CHECK(b->frames == 2752 && a.clip_count == 1);
    CHECK_NEAR(1.0 / b->frame_time, 120.0, 0.01);
    int *bj = malloc(sizeof(int) * (size_t)sk->joint_count); /* stance joint -> bvh joint */
    for (int j = 0; j < sk->joint_count; j++) {
        bj[j] = 0;
        int found = 0;
        for (int k = 0; k < b->joint_count; k++)
            if (!strcmp(b->joint[k].name, stance_skeleton_joint_name(sk, j))) bj[j] = k, found = 1;
        CHECK(found);
        if (j > 0) CHECK(b->joint[bj[j]].parent == bj[sk->parents[j]]);
    }
    const stance_clip *clip = a.clips[0];
    CHECK(clip->key_count == b->frames);
    CHECK_NEAR(clip->duration, (b->frames - 1) * b->frame_time, 1e-3);
    CHECK_NEAR(clip->duration, 22.925, 0.01);

    stance_pose local, model;
    CHECK_OK(stance_pose_create(&local, sk->joint_count, NULL, NULL));
    CHECK_OK(stance_pose_create(&model, sk->joint_count, NULL, NULL));
    trs *world = malloc(sizeof(trs) * (size_t)sk->joint_count);
    trs *file_local = malloc(sizeof(trs) * (size_t)sk->joint_count);
    unsigned char *all = malloc((size_t)sk->joint_count);
    memset(all, 1, (size_t)sk->joint_count);
    errors e = {0, 0, 0, 0, 0};
    int frames_checked = 0;
    for (int f = 0; f < b->frames; f += (f < 10 || f > b->frames - 10) ? 1 : 7) {
        const double *row = b->motion + (size_t)f * (size_t)b->channel_count;
        for (int j = 0; j < sk->joint_count; j++) {
            const bvh_joint *jt = &b->joint[bj[j]];
            trs l = {{jt->offset[0], jt->offset[1], jt->offset[2]}, {0, 0, 0, 1}, {1, 1, 1}};
            for (int c = 0; c < jt->channels; c++) {
                double v = row[jt->first + c];
                int k = jt->kind[c];
                if (k < 3) {
                    l.t[k] += v; /* the root's position channels add to its (zero) offset */
                } else { /* rotations compose in channel order: R = R1 * R2 * R3 */
                    double half = v * 3.14159265358979323846 / 360.0, q[4] = {0, 0, 0, cos(half)}, r[4];
                    q[k - 3] = sin(half);
                    qmul(l.r, q, r);
                    memcpy(l.r, r, sizeof r);
                }
            }
            file_local[j] = l;
            world[j] = j == 0 ? l : compose(&world[sk->parents[j]], &l);
        }
        float t = (float)(f * b->frame_time);
        CHECK_OK(stance_clip_sample(clip, t, NULL, &local, NULL));
        CHECK_OK(stance_local_to_model(&model, &local, sk, NULL, NULL));
        /* assimp builds BVH rotations in single precision through a rotation
         * matrix per channel; its quaternions are off by up to ~1.5e-5 */
        compare_pose(sk, &local, &model, world, file_local, all, 1.0, 5e-5, &e);
        frames_checked++;
    }
    printf("     01_01.bvh: %d joints, %d frames at %.1f fps (%.3f s), %d frames compared, %ld joint transforms; max error: "
           "model position %.2g (relative), model rotation %.2g, local rotation %.2g, local translation %.2g; %d warnings\n",
           sk->joint_count, clip->key_count, 1.0 / b->frame_time, (double)clip->duration, frames_checked, e.compared, e.pos,
           e.rot, e.local_rot, e.local_pos, warnings.count);
    check_round_trip(&a, "01_01.bvh");
    stance_pose_destroy(&local);
    stance_pose_destroy(&model);
    free(world), free(file_local), free(all), free(bj), free(b->motion), free(b);
    stance_asset_destroy(&a);
}

/* ---- errors ------------------------------------------------------------------ */

static void test_import_errors(void) {
    stance_asset a;
    stance_error err;
    CHECK_STATUS(stance_import_file("/nonexistent/x.glb", NULL, NULL, &a, &err), STANCE_ERR_IO);
    CHECK(strstr(err.message, "/nonexistent/x.glb") != NULL);
    CHECK_STATUS(stance_import_file(".", NULL, NULL, &a, &err), STANCE_ERR_IO);
    CHECK_STATUS(stance_import_file(NULL, NULL, NULL, &a, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_import_file("x", NULL, NULL, NULL, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_open_file("/nonexistent/x.stance", NULL, NULL, &a, &err), STANCE_ERR_IO);
    CHECK(a.skeleton == NULL && a.clips == NULL);
}

int main(void) {
    RUN(test_robot_expressive);
    RUN(test_fox);
    RUN(test_scale_option);
    RUN(test_bvh);
    RUN(test_import_errors);
    return check_summary();
}
