/* tools/cmd_footlock.c - `stance footlock`: foot sliding of the walk and run
 * played alone, without and with foot locking (contacts found from each
 * clip, two-bone IK legs, pelvis drop), and the largest joint angle change
 * locking needed; as a table, JSON, or an SVG of foot heights, contacts and
 * the locked vs unlocked foot tracks. With a graph file that has an IK
 * stage ("ik"), each clip is also played through that stage (its entries
 * on a graph of the clip alone, the character moved at the walk's speed)
 * and its sliding reported beside the job's. --sweep: the graph's own
 * footlock stage over its "speed" parameter (sliding, reach and drag of
 * the locked feet per speed, beside what the clips alone do). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "stance/stance.h"
#include "stance/build.h"
#include "stance/import.h"
#include "stance_lesson/stance_lesson.h"
#include "tool_graph.h"
#ifdef STANCE_HAVE_JANSSON
#include "io/lesson_setup.h"
#endif

static void usage(FILE *f) {
    fprintf(f, "usage: stance footlock [--graph FILE] [--asset FILE] [--plant-time S] [--json] [--svg OUT.svg]\n"
               "       stance footlock --asset FILE --clip NAME --feet LEFT,RIGHT [--speed M/S] [--seconds T] [--plant-time S] [--json]\n"
               "       stance footlock --sweep --graph FILE [--speed-max V] [--speed-step S] [--seconds T] [--json]\n"
               "Foot sliding (cm per metre) of the walk and the run played alone, without and with foot\n"
               "locking, and the largest hip, knee and ankle rotation change locking made (degrees).\n"
               "With --graph, the graph file's \"lesson_layers\" section names the clips and feet; when the\n"
               "file has an \"ik\" stage, each clip is also played through it (column / field \"stage\").\n"
               "--plant-time S: a planting foot slows into its lock over S seconds (default 0.05;\n"
               "below a frame it stops at once).\n"
               "--sweep: the graph file's footlock stage with its \"speed\" parameter at 0, S, 2S, .. V\n"
               "(defaults 0.25 and 3), T seconds each (default 20) at 60 Hz, the character moved at that\n"
               "speed (by the caller when its clips play in place): per speed the sliding without and with\n"
               "locking (cm/m), the share of foot-frames locked, the worst reach (a locked foot's distance\n"
               "from its hip over the leg's length, thigh + shin in the rest pose), the worst drag (a\n"
               "locked foot's horizontal distance from where the animation puts it, in leg lengths) and\n"
               "the knee's range, beside the reach and knee range of the base machine's clips alone.\n"
               "The speeds are the graph's; the legs are its footlock entry's; \"lesson_layers\" gives\n"
               "the walk whose direction the caller moves an in-place character along.\n"
               "--clip: one clip of FILE (.stance or any importable file) with the feet named, T s at 60 Hz\n"
               "(default 4, at most 60), looped:\n"
               "sliding off and on, per foot its contacts (start and end times in the cycle, s), the largest\n"
               "joint angle change and the pelvis drop (units and share of the leg: hip-knee + knee-ankle at\n"
               "the bind pose). The character moves along the clip's root path (a path that is joint 0's own\n"
               "track moves the root, not the pose, so nothing counts twice); a clip without one at its\n"
               "declared speed or, for an in-place clip, --speed M/S or the speed its planted feet show.\n");
}

#define FRAMES 241 /* 4 s at 60 Hz */

/* The graph file's IK stage on `clip` alone: a graph of one state playing
 * it with the file's ik entries, moved at the walk velocity the job uses,
 * 4 s at 60 Hz; the locked feet's sliding in cm/m (the job's measure). */
static stance_status stage_slide(const stance_graph_desc *file, const stance_clip *clip, const char *fl, const char *fr,
                                 float *out, stance_error *err) {
    const stance_skeleton *sk = file->skeleton;
    const int feet[2] = {stance_skeleton_find(sk, fl), stance_skeleton_find(sk, fr)};
    if (feet[0] < 0 || feet[1] < 0) return STANCE_ERR_NOT_FOUND;
    float vel[3];
    stance_walk_velocity(sk, clip, feet[0], feet[1], NULL, vel);
    stance_state_desc st = {.name = "play", .clip = clip};
    stance_machine_desc md = {.name = "m", .state_count = 1, .states = &st};
    stance_graph_desc gd = {.skeleton = sk, .machine_count = 1, .machines = &md, .ik_count = file->ik_count, .ik = file->ik};
    stance_graph *g = NULL;
    stance_instance *inst = NULL;
    stance_workspace *ws = NULL;
    stance_status s = stance_graph_create(&gd, NULL, &g, err);
    if (!s) s = stance_instance_create(g, NULL, &inst, err);
    if (!s) s = stance_workspace_create(g, NULL, &ws, err);
    float *on = s ? NULL : malloc(sizeof(float) * 6 * FRAMES);
    if (!s && !on) s = STANCE_ERR_MEMORY;
    const float dt = 1.0f / 60.0f;
    for (int f = 0; !s && f < FRAMES; f++) {
        stance_transform root = stance_transform_identity();
        root.t[0] = vel[0] * (float)f * dt, root.t[2] = vel[2] * (float)f * dt;
        s = stance_instance_set_root(inst, &root, 0, err);
        if (!s) s = stance_instance_update(inst, f ? dt : 0.0f, ws, err);
        const stance_pose *m = stance_instance_model_pose(inst);
        for (int k = 0; k < 2; k++) {
            float *p = on + 3 * (2 * f + k);
            p[0] = m->tx[feet[k]] + root.t[0], p[1] = m->ty[feet[k]] + root.t[1], p[2] = m->tz[feet[k]] + root.t[2];
        }
    }
    const float v = sqrtf(vel[0] * vel[0] + vel[2] * vel[2]);
    float band = 0.0f, vband = 0.0f;
    stance_slide_bands(sk, feet, 2, v, &band, &vband, NULL);
    if (!s) *out = stance_foot_slide(on, FRAMES, 2, v * (float)(FRAMES - 1) * dt, band, vband, dt);
    free(on);
    stance_workspace_destroy(ws);
    stance_instance_destroy(inst);
    stance_graph_destroy(g);
    return s;
}

/* ---- --sweep ------------------------------------------------------------ */

typedef struct sweep_row {
    float speed, slide_off, slide_on; /* slides < 0: not measured (speed 0) */
    float locked, reach, drag, knee_lo, knee_hi;
} sweep_row;

static float dist3(const stance_pose *m, int a, int b) {
    const float x = m->tx[a] - m->tx[b], y = m->ty[a] - m->ty[b], z = m->tz[a] - m->tz[b];
    return sqrtf(x * x + y * y + z * z);
}

/* the angle at the knee between the thigh and the knee-ankle line, degrees
 * (atan2 of the sine and cosine parts: well conditioned near straight) */
static float knee_deg(const stance_pose *m, int h, int k, int a) {
    const float ux = m->tx[h] - m->tx[k], uy = m->ty[h] - m->ty[k], uz = m->tz[h] - m->tz[k];
    const float wx = m->tx[a] - m->tx[k], wy = m->ty[a] - m->ty[k], wz = m->tz[a] - m->tz[k];
    const float cx = uy * wz - uz * wy, cy = uz * wx - ux * wz, cz = ux * wy - uy * wx;
    return atan2f(sqrtf(cx * cx + cy * cy + cz * cz), ux * wx + uy * wy + uz * wz) * 57.29578f;
}

/* One speed: a fresh instance of the graph, its speed parameter set, `frames`
 * updates at 60 Hz; the feet of footlock entry `ik` (legs hip[k] > knee[k] >
 * foot[k], leg lengths len[k]) measured from its state (the animation's foot
 * and the locked one, world) and the locked pose. dir: the caller moves the
 * character along it at the speed; NULL = the graph's root motion does. */
static stance_status sweep_speed(const stance_graph *g, stance_workspace *ws, int param, int ik, const int *hip, const int *knee,
                                 const int *foot, const float *len, int legs, const float *dir, float v, int frames, float *anim,
                                 float *out, sweep_row *row, stance_error *err) {
    stance_instance *inst = NULL;
    stance_status s = stance_instance_create(g, NULL, &inst, err);
    if (!s) s = stance_instance_set_float(inst, param, v, err);
    const float dt = 1.0f / 60.0f;
    stance_transform root = stance_transform_identity();
    memset(row, 0, sizeof *row);
    row->speed = v, row->knee_lo = 1e9f, row->knee_hi = -1e9f;
    long locked = 0;
    for (int f = 0; !s && f <= frames; f++) {
        if (dir) {
            root.t[0] = dir[0] * v * dt * (float)f, root.t[2] = dir[2] * v * dt * (float)f;
            s = stance_instance_set_root(inst, &root, 0, err);
        }
        if (!s) s = stance_instance_update(inst, f ? dt : 0.0f, ws, err);
        if (s) break;
        const stance_footlock_state *st = stance_instance_footlock_state(inst, ik);
        const stance_pose *m = stance_instance_model_pose(inst);
        for (int k = 0; k < legs; k++) {
            const stance_foot_state *fs = &st->feet[k];
            memcpy(anim + 3 * ((size_t)f * (size_t)legs + (size_t)k), fs->anim, sizeof fs->anim);
            memcpy(out + 3 * ((size_t)f * (size_t)legs + (size_t)k), fs->out, sizeof fs->out);
            const float a = knee_deg(m, hip[k], knee[k], foot[k]);
            row->knee_lo = a < row->knee_lo ? a : row->knee_lo, row->knee_hi = a > row->knee_hi ? a : row->knee_hi;
            if (!fs->planted) continue;
            locked++;
            const float r = dist3(m, hip[k], foot[k]) / len[k];
            const float dg = hypotf(fs->out[0] - fs->anim[0], fs->out[2] - fs->anim[2]) / len[k];
            row->reach = r > row->reach ? r : row->reach, row->drag = dg > row->drag ? dg : row->drag;
        }
    }
    if (!s) {
        row->locked = (float)locked / (float)((frames + 1) * legs);
        /* how far the character went: the caller's root, or the graph's root motion */
        stance_transform r;
        stance_instance_root(inst, &r);
        const float metres = hypotf(r.t[0], r.t[2]);
        row->slide_off = row->slide_on = -1.0f;
        if (v > 0.0f && metres > 0.0f) {
            float band = 0.0f, vband = 0.0f;
            stance_slide_bands(stance_graph_skeleton(g), foot, legs, v, &band, &vband, NULL);
            row->slide_off = stance_foot_slide(anim, frames + 1, legs, metres, band, vband, dt);
            row->slide_on = stance_foot_slide(out, frames + 1, legs, metres, band, vband, dt);
        }
    }
    stance_instance_destroy(inst);
    return s;
}

/* What the clips of the base machine's looping states do themselves,
 * sampled at 60 Hz unlocked (l, m: scratch poses): the largest foot-hip
 * distance over the leg's length, and the knee's range. */
static void clip_limits(const stance_graph_desc *fd, const stance_skeleton *sk, const int *hip, const int *knee, const int *foot,
                        const float *len, int legs, stance_pose *l, stance_pose *m, sweep_row *out) {
    const char *base = fd->layer_count > 0 ? fd->layers[0].machine : fd->machines[0].name;
    out->reach = 0.0f, out->knee_lo = 1e9f, out->knee_hi = -1e9f;
    for (int i = 0; i < fd->machine_count; i++) {
        const stance_machine_desc *md = &fd->machines[i];
        for (int st = 0; !strcmp(md->name, base) && st < md->state_count; st++) {
            const stance_state_desc *sd = &md->states[st];
            for (int e = 0; !sd->once && e < (sd->clip ? 1 : sd->entry_count); e++) {
                const stance_clip *c = sd->clip ? sd->clip : sd->entries[e].clip;
                const int n = (int)(c->duration * 60.0f) + 1;
                for (int f = 0; c && f <= n; f++) {
                    stance_clip_sample(c, c->duration * (float)f / (float)n, NULL, l, NULL);
                    stance_local_to_model(m, l, sk, NULL, NULL);
                    for (int k = 0; k < legs; k++) {
                        const float a = knee_deg(m, hip[k], knee[k], foot[k]), r = dist3(m, hip[k], foot[k]) / len[k];
                        out->knee_lo = a < out->knee_lo ? a : out->knee_lo, out->knee_hi = a > out->knee_hi ? a : out->knee_hi;
                        out->reach = r > out->reach ? r : out->reach;
                    }
                }
            }
        }
    }
}

static int sweep(const tool_graph *tg, const stance_graph_desc *fdesc, const stance_layer_setup *su, int json, float vmax, float vstep,
                 float seconds) {
    const stance_graph *g = tg->graph;
    const stance_skeleton *sk = su->skeleton;
    const int param = stance_graph_find_param(g, "speed");
    int ik = -1;
    for (int e = 0; fdesc && e < fdesc->ik_count && ik < 0; e++)
        if (fdesc->ik[e].kind == STANCE_IK_FOOTLOCK) ik = e;
    if (param < 0 || ik < 0) {
        fprintf(stderr, "stance footlock: --sweep needs a graph file with a \"speed\" parameter and a footlock ik entry (%s has %s)\n",
                tg->name, param < 0 ? "no \"speed\"" : "no footlock entry");
        return 1;
    }
    const stance_ik_desc *k = &fdesc->ik[ik];
    const int legs = k->leg_count;
    int hip[STANCE_FOOT_MAX], knee[STANCE_FOOT_MAX], foot[STANCE_FOOT_MAX];
    float len[STANCE_FOOT_MAX];
    stance_pose rl, rm;
    memset(&rl, 0, sizeof rl), memset(&rm, 0, sizeof rm);
    stance_error err = {0};
    stance_status s = stance_pose_create(&rl, sk->joint_count, NULL, &err);
    if (!s) s = stance_pose_create(&rm, sk->joint_count, NULL, &err);
    if (!s) {
        stance_pose_set_rest(&rl, sk, NULL);
        stance_local_to_model(&rm, &rl, sk, NULL, NULL);
    }
    for (int i = 0; !s && i < legs; i++) {
        hip[i] = stance_skeleton_find(sk, k->legs[i].hip), knee[i] = stance_skeleton_find(sk, k->legs[i].knee);
        foot[i] = stance_skeleton_find(sk, k->legs[i].ankle); /* the graph was built: the names resolve */
        len[i] = dist3(&rm, hip[i], knee[i]) + dist3(&rm, knee[i], foot[i]);
    }
    sweep_row clips;
    memset(&clips, 0, sizeof clips);
    if (!s) clip_limits(fdesc, sk, hip, knee, foot, len, legs, &rl, &rm, &clips);
    stance_pose_destroy(&rl), stance_pose_destroy(&rm);
    /* in place (no root motion at the top speed): the caller moves the character along the walk */
    float vel[3], dir[3] = {0, 0, 1};
    stance_walk_velocity(sk, su->walk, su->foot_l ? stance_skeleton_find(sk, su->foot_l) : -1,
                         su->foot_r ? stance_skeleton_find(sk, su->foot_r) : -1, NULL, vel);
    const float vn = hypotf(vel[0], vel[2]);
    if (vn > 0.0f) dir[0] = vel[0] / vn, dir[2] = vel[2] / vn;
    const int frames = (int)(seconds * 60.0f + 0.5f), count = (int)(vmax / vstep + 1e-3f) + 1;
    stance_workspace *ws = NULL;
    stance_instance *probe = NULL;
    int in_place = 1;
    if (!s) s = stance_workspace_create(g, NULL, &ws, &err);
    if (!s) s = stance_instance_create(g, NULL, &probe, &err);
    if (!s) s = stance_instance_set_float(probe, param, vmax, &err);
    for (int f = 0; !s && f < 60; f++) s = stance_instance_update(probe, 1.0f / 60.0f, ws, NULL);
    if (!s) {
        stance_transform r;
        stance_instance_root(probe, &r);
        in_place = r.t[0] == 0.0f && r.t[1] == 0.0f && r.t[2] == 0.0f;
    }
    stance_instance_destroy(probe);
    float *anim = s ? NULL : malloc(sizeof(float) * 6 * (size_t)legs * (size_t)(frames + 1));
    float *out = anim ? anim + 3 * (size_t)legs * (size_t)(frames + 1) : NULL;
    sweep_row *rows = anim ? calloc((size_t)count, sizeof *rows) : NULL;
    if (!s && !rows) s = STANCE_ERR_MEMORY, snprintf(err.message, sizeof err.message, "out of memory");
    for (int i = 0; !s && i < count; i++)
        s = sweep_speed(g, ws, param, ik, hip, knee, foot, len, legs, in_place ? dir : NULL, vstep * (float)i, frames, anim, out, &rows[i], &err);
    if (s) {
        fprintf(stderr, "stance: %s: --sweep: %s\n", tg->name, err.message);
    } else if (json) {
        printf("{\"graph\":\"%s\",\"sweep\":{\"param\":\"speed\",\"ik\":\"%s\",\"seconds\":%.3f,\"hz\":60,\"moved_by\":\"%s\",\"leg_length\":[",
               tg->name, k->name, (double)seconds, in_place ? "caller" : "root_motion");
        for (int i = 0; i < legs; i++) printf("%s%.4f", i ? "," : "", (double)len[i]);
        printf("],\"clips\":{\"reach\":%.4f,\"knee_deg\":[%.2f,%.2f]},\"speeds\":[", (double)clips.reach, (double)clips.knee_lo,
               (double)clips.knee_hi);
        for (int i = 0; i < count; i++) {
            const sweep_row *r = &rows[i];
            printf("%s{\"speed\":%.3f,\"slide_cm_per_m\":", i ? "," : "", (double)r->speed);
            if (r->slide_off >= 0.0f) printf("{\"off\":%.3f,\"on\":%.3f}", (double)r->slide_off, (double)r->slide_on);
            else printf("null");
            printf(",\"locked_share\":%.4f,\"worst_reach\":%.4f,\"worst_drag\":%.4f,\"knee_deg\":[%.2f,%.2f]}", (double)r->locked,
                   (double)r->reach, (double)r->drag, (double)r->knee_lo, (double)r->knee_hi);
        }
        printf("]}}\n");
    } else {
        printf("Foot locking swept over \"speed\" on %s (ik '%s'; %.0f s at 60 Hz per speed; the character moved by %s)\n", tg->name,
               k->name, (double)seconds, in_place ? "the caller at that speed" : "its root motion");
        printf("worst reach: a locked foot's distance from its hip over the leg's length (thigh + shin, rest pose)\n"
               "worst drag: a locked foot's horizontal distance from the animation's foot, in leg lengths\n"
               "the clips alone (the base machine's looping states, unlocked): reach up to %.3f, knee %.1f..%.1f deg\n\n",
               (double)clips.reach, (double)clips.knee_lo, (double)clips.knee_hi);
        printf("| speed | sliding off (cm/m) | with locking (cm/m) | locked | worst reach | worst drag | knee (deg) |\n");
        printf("|---|---|---|---|---|---|---|\n");
        for (int i = 0; i < count; i++) {
            const sweep_row *r = &rows[i];
            if (r->slide_off >= 0.0f) printf("| %.2f | %.3f | %.3f ", (double)r->speed, (double)r->slide_off, (double)r->slide_on);
            else printf("| %.2f | - | - ", (double)r->speed);
            printf("| %.1f%% | %.3f | %.3f | %.1f..%.1f |\n", 100.0 * (double)r->locked, (double)r->reach, (double)r->drag,
                   (double)r->knee_lo, (double)r->knee_hi);
        }
    }
    free(rows);
    free(anim);
    stance_workspace_destroy(ws);
    return s ? 1 : 0;
}

/* track: the foot's position along the walk relative to the root (world
 * position minus the root's travel), so a locked foot is a straight line */
static double value(const stance_footlock_frame *fr, int k, int on, int track, double speed) {
    if (!track) return on ? fr->height_on[k] : fr->height_off[k];
    return (on ? fr->track_on[k] : fr->track_off[k]) - speed * fr->time;
}

static void plot(FILE *f, const char *title, const stance_footlock_frame *fr, int n, double x0, double y0, double w, double h,
                 int track, double speed) {
    double lo = 1e30, hi = -1e30;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 2; k++) {
            double a = value(&fr[i], k, 0, track, speed), b = value(&fr[i], k, 1, track, speed);
            lo = a < lo ? a : lo, lo = b < lo ? b : lo, hi = a > hi ? a : hi, hi = b > hi ? b : hi;
        }
    if (hi - lo < 1e-6) hi = lo + 1;
    const double T = fr[n - 1].time > 0 ? fr[n - 1].time : 1;
    fprintf(f, "<rect x='%.0f' y='%.0f' width='%.0f' height='%.0f' fill='none' stroke='#999'/>\n", x0, y0, w, h);
    fprintf(f, "<text x='%.0f' y='%.0f' font-weight='bold'>%s</text>\n", x0, y0 - 6, title);
    static const char *col[2] = {"#1d4ed8", "#d62828"};
    for (int k = 0; k < 2; k++) {
        /* contacts: a band per foot at the bottom */
        for (int i = 0; i < n; i++)
                if (fr[i].planted[k])
                    fprintf(f, "<rect x='%.1f' y='%.1f' width='%.2f' height='6' fill='%s' fill-opacity='0.35'/>\n",
                            x0 + w * fr[i].time / T, y0 + h - 14 + 7 * k, w / (n - 1) + 0.3, col[k]);
        for (int pass = 0; pass < 2; pass++) {
            fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='%s'%s points='", col[k], pass ? "1.6" : "1.2",
                    pass ? "" : " stroke-dasharray='4,3' stroke-opacity='0.7'");
            for (int i = 0; i < n; i++) {
                double v = value(&fr[i], k, pass, track, speed);
                fprintf(f, "%.1f,%.1f ", x0 + w * fr[i].time / T, y0 + h - 18 - (h - 26) * (v - lo) / (hi - lo));
            }
            fprintf(f, "'/>\n");
        }
    }
    fprintf(f, "<text x='%.0f' y='%.0f' font-size='10' fill='#555'>%.3f</text><text x='%.0f' y='%.0f' font-size='10' fill='#555'>%.3f</text>\n",
            x0 + w + 4, y0 + 10, hi, x0 + w + 4, y0 + h - 18, lo);
    fprintf(f, "<text x='%.0f' y='%.0f' font-size='10' fill='#555' text-anchor='end'>%.1f s</text>\n", x0 + w, y0 + h + 12, T);
}

/* --clip: one clip of an asset or importable file, with the feet named. */
static int clip_footlock(const char *path, const char *clip_name, const char *feet_arg, float speed, float plant_time, float seconds,
                         int json) {
    char fl[128], fr[128];
    const char *comma = strchr(feet_arg, ',');
    if (!comma || comma == feet_arg || !comma[1] || (size_t)(comma - feet_arg) >= sizeof fl || strlen(comma + 1) >= sizeof fr) {
        fprintf(stderr, "stance footlock: --feet needs LEFT,RIGHT joint names\n");
        return 2;
    }
    memcpy(fl, feet_arg, (size_t)(comma - feet_arg)), fl[comma - feet_arg] = 0;
    strcpy(fr, comma + 1);
    stance_asset asset;
    memset(&asset, 0, sizeof asset);
    stance_error err = {0};
    if (stance_open_file(path, NULL, NULL, &asset, &err)) { fprintf(stderr, "stance: %s\n", err.message); return 1; }
    const stance_clip *clip = stance_asset_find_clip(&asset, clip_name);
    if (!clip) {
        fprintf(stderr, "stance: %s: no clip named '%s'\n", path, clip_name);
        stance_asset_destroy(&asset);
        return 1;
    }
    const stance_skeleton *sk = asset.skeleton;
    stance_footlock_setup fs = {sk, clip, fl, fr, seconds, plant_time, speed};
    stance_footlock_result res;
    if (stance_footlock_run(&fs, &res, NULL, 0, NULL, &err)) {
        fprintf(stderr, "stance: %s: %s: %s\n", path, clip_name, err.message);
        stance_asset_destroy(&asset);
        return 1;
    }
    float a[3] = {0, 0, 0}, b[3] = {0, 0, 0};
    stance_clip_root_position(clip, 0.0f, a, NULL);
    stance_clip_root_position(clip, clip->duration, b, NULL);
    const float travel = clip->root_key_count > 0 ? hypotf(b[0] - a[0], b[2] - a[2]) : clip->root_speed * clip->duration;
    const char *root = clip->root_key_count == 0 ? "none" : clip->root_from_joint0 ? "joint0_track" : "path";
    const float drop_share = res.leg > 0.0f ? res.max_pelvis_drop / res.leg : 0.0f;
    if (json) {
        printf("{\"asset\":\"%s\",\"clip\":\"%s\",\"duration_s\":%.4f,\"root\":\"%s\",\"root_travel_per_cycle\":%.5f,"
               "\"speed_m_s\":%.4f,\"leg_length\":%.5f,\"slide_cm_per_m\":{\"off\":%.3f,\"on\":%.3f},"
               "\"max_joint_angle_change_deg\":%.2f,\"hip_deg\":%.2f,\"knee_deg\":%.2f,\"ankle_deg\":%.2f,"
               "\"max_pelvis_drop\":%.5f,\"pelvis_drop_legs\":%.5f,\"contacts\":[",
               path, clip->name, (double)clip->duration, root, (double)travel, (double)res.speed, (double)res.leg, (double)res.slide_off,
               (double)res.slide_on, (double)res.max_angle_deg, (double)res.hip_deg, (double)res.knee_deg, (double)res.ankle_deg,
               (double)res.max_pelvis_drop, (double)drop_share);
        for (int k = 0; k < 2; k++) {
            printf("%s{\"foot\":\"%s\",\"times\":[", k ? "," : "", stance_skeleton_joint_name(sk, res.foot[k]));
            for (int c = 0; c < res.contact_count[k]; c++)
                printf("%s[%.4f,%.4f]", c ? "," : "", (double)res.contact_start[k][c], (double)res.contact_end[k][c]);
            printf("]}");
        }
        printf("]}\n");
    } else {
        printf("Foot locking on %s, clip %s (%.2f s at 60 Hz; root %s, %.4f per cycle; leg %.4f)\n", path, clip->name, (double)seconds, root, (double)travel,
               (double)res.leg);
        printf("speed %.3f, sliding %.3f -> %.3f cm/m, largest angle change %.2f deg, pelvis drop %.4f (%.2f%% of the leg)\n",
               (double)res.speed, (double)res.slide_off, (double)res.slide_on, (double)res.max_angle_deg, (double)res.max_pelvis_drop,
               100.0 * (double)drop_share);
        for (int k = 0; k < 2; k++) {
            printf("contacts of %s:", stance_skeleton_joint_name(sk, res.foot[k]));
            for (int c = 0; c < res.contact_count[k]; c++) printf(" %.3f-%.3f s", (double)res.contact_start[k][c], (double)res.contact_end[k][c]);
            printf("\n");
        }
    }
    stance_asset_destroy(&asset);
    return 0;
}

int cmd_footlock(int argc, char **argv) {
    tool_opts o = {0};
    float plant_time = 0.0f, vmax = 3.0f, vstep = 0.25f, seconds = 20.0f;
    int sweeping = 0;
    const char *clip_name = NULL, *feet_arg = NULL;
    float speed = 0.0f;
    int seconds_given = 0;
    for (int i = 1; i < argc; i++) {
        if (tool_common_option(argc, argv, &i, &o)) continue;
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--plant-time") && more) {
            char *end;
            plant_time = strtof(argv[++i], &end);
            if (*end || !(plant_time > 0.0f && plant_time <= 10.0f)) { fprintf(stderr, "stance footlock: --plant-time must be in (0, 10] s\n"); return 2; }
        } else if (!strcmp(a, "--clip") && more) {
            clip_name = argv[++i];
        } else if (!strcmp(a, "--feet") && more) {
            feet_arg = argv[++i];
        } else if (!strcmp(a, "--speed") && more) {
            char *end;
            speed = strtof(argv[++i], &end);
            if (*end || !(speed > 0.0f && speed <= 100.0f)) { fprintf(stderr, "stance footlock: --speed must be in (0, 100] m/s\n"); return 2; }
        } else if (!strcmp(a, "--sweep")) {
            sweeping = 1;
        } else if ((!strcmp(a, "--speed-max") || !strcmp(a, "--speed-step") || !strcmp(a, "--seconds")) && more) {
            char *end;
            const float x = strtof(argv[++i], &end);
            const int step = !strcmp(a, "--speed-step"), secs = !strcmp(a, "--seconds");
            if (*end || !(x >= (step ? 0.01f : secs ? 0.1f : 0.0f) && x <= (secs ? 120.0f : 100.0f))) {
                fprintf(stderr, "stance footlock: %s must be in [%s, %s]\n", a, step ? "0.01" : secs ? "0.1" : "0", secs ? "120" : "100");
                return 2;
            }
            *(step ? &vstep : secs ? &seconds : &vmax) = x;
            seconds_given |= secs;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 0; }
        else { fprintf(stderr, "stance footlock: unknown option '%s'\n", a); usage(stderr); return 2; }
    }
    const char *svg = o.svg;
    const int json = o.json;
    stance_error err = {0};
    if (clip_name || feet_arg) {
        if (!clip_name || !feet_arg || !o.asset || o.graph || sweeping) {
            fprintf(stderr, "stance footlock: --clip needs --asset FILE and --feet LEFT,RIGHT (no --graph, no --sweep)\n");
            return 2;
        }
        return clip_footlock(o.asset, clip_name, feet_arg, speed, plant_time, seconds_given ? (seconds > 60.0f ? 60.0f : seconds) : 4.0f, json);
    }
    tool_graph tg;
    if (tool_graph_open(&tg, o.graph, o.asset, &err)) { fprintf(stderr, "stance: %s\n", err.message); return 1; }
    stance_layer_setup su;
    if (tool_graph_layer_setup(&tg, &su, &err)) {
        tool_graph_close(&tg);
        return 1;
    }
    if (sweeping) {
        const stance_graph_desc *sd = NULL;
#ifdef STANCE_HAVE_JANSSON
        sd = tg.file ? stance_graphfile_desc(tg.file) : NULL;
#endif
        const int rc = sweep(&tg, sd, &su, json, vmax, vstep, seconds);
        tool_graph_close(&tg);
        return rc;
    }
    const stance_clip *clips[2] = {su.walk, su.run};
    stance_footlock_result res[2];
    stance_footlock_frame *frames = calloc(2 * FRAMES, sizeof *frames);
    int rc = 0;
    if (!frames) { fprintf(stderr, "stance footlock: out of memory\n"); tool_graph_close(&tg); return 1; }
    for (int c = 0; c < 2; c++) {
        stance_footlock_setup fs = {su.skeleton, clips[c], su.foot_l, su.foot_r, 4.0f, plant_time, 0.0f};
        if (stance_footlock_run(&fs, &res[c], frames + c * FRAMES, FRAMES, NULL, &err)) {
            fprintf(stderr, "stance: %s: %s: %s\n", tg.name, clips[c]->name, err.message);
            rc = 1;
            goto done;
        }
    }
    /* the graph file's own IK stage, when it has one */
    float stage[2] = {-1.0f, -1.0f};
    const stance_graph_desc *fdesc = NULL;
#ifdef STANCE_HAVE_JANSSON
    fdesc = tg.file ? stance_graphfile_desc(tg.file) : NULL;
#endif
    for (int c = 0; fdesc && fdesc->ik_count > 0 && c < 2; c++)
        if (stage_slide(fdesc, clips[c], su.foot_l, su.foot_r, &stage[c], &err)) {
            fprintf(stderr, "stance: %s: %s: the graph's IK stage: %s\n", tg.name, clips[c]->name, err.message);
            rc = 1;
            goto done;
        }
    const stance_skeleton *sk = su.skeleton;
    if (json) {
        printf("{\"graph\":\"%s\",\"clips\":[", tg.name);
        for (int c = 0; c < 2; c++) {
            printf("%s{\"name\":\"%s\",\"speed_m_s\":%.3f,\"slide_cm_per_m\":{\"off\":%.3f,\"on\":%.3f},"
                   "\"max_joint_angle_change_deg\":%.2f,\"hip_deg\":%.2f,\"knee_deg\":%.2f,\"ankle_deg\":%.2f,"
                   "\"max_pelvis_drop\":%.4f,\"legs\":[[\"%s\",\"%s\",\"%s\"],[\"%s\",\"%s\",\"%s\"]]",
                   c ? "," : "", clips[c]->name, (double)res[c].speed, (double)res[c].slide_off, (double)res[c].slide_on,
                   (double)res[c].max_angle_deg, (double)res[c].hip_deg, (double)res[c].knee_deg, (double)res[c].ankle_deg,
                   (double)res[c].max_pelvis_drop, stance_skeleton_joint_name(sk, res[c].hip[0]),
                   stance_skeleton_joint_name(sk, res[c].knee[0]), stance_skeleton_joint_name(sk, res[c].foot[0]),
                   stance_skeleton_joint_name(sk, res[c].hip[1]), stance_skeleton_joint_name(sk, res[c].knee[1]),
                   stance_skeleton_joint_name(sk, res[c].foot[1]));
            if (stage[c] >= 0.0f) printf(",\"stage_slide_cm_per_m\":%.3f", (double)stage[c]);
            printf("}");
        }
        printf("]}\n");
    } else {
        printf("Foot locking on %s (each clip alone, 4 s at 60 Hz; legs %s > %s > %s and %s > %s > %s)\n\n", tg.name,
               stance_skeleton_joint_name(sk, res[0].hip[0]), stance_skeleton_joint_name(sk, res[0].knee[0]),
               stance_skeleton_joint_name(sk, res[0].foot[0]), stance_skeleton_joint_name(sk, res[0].hip[1]),
               stance_skeleton_joint_name(sk, res[0].knee[1]), stance_skeleton_joint_name(sk, res[0].foot[1]));
        printf("| clip | root speed | foot sliding off (cm/m) | with locking (cm/m) | largest angle change (deg) | hip / knee / ankle (deg) | pelvis drop |\n");
        printf("|---|---|---|---|---|---|---|\n");
        for (int c = 0; c < 2; c++)
            printf("| %s | %.2f | %.3f | %.3f | %.2f | %.2f / %.2f / %.2f | %.4f |\n", clips[c]->name, (double)res[c].speed,
                   (double)res[c].slide_off, (double)res[c].slide_on, (double)res[c].max_angle_deg, (double)res[c].hip_deg,
                   (double)res[c].knee_deg, (double)res[c].ankle_deg, (double)res[c].max_pelvis_drop);
        if (stage[0] >= 0.0f)
            printf("\nThrough the graph file's IK stage (each clip alone, moved at the walk's speed): %s %.3f cm/m, %s %.3f cm/m\n",
                   clips[0]->name, (double)stage[0], clips[1]->name, (double)stage[1]);
    }
    if (svg) {
        FILE *f = fopen(svg, "w");
        if (!f) { fprintf(stderr, "stance: %s: cannot create\n", svg); rc = 1; goto done; }
        const double W = 1000, H = 2 * 380 + 60;
        fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%.0f' height='%.0f' font-family='sans-serif' font-size='12'>\n", W, H);
        fprintf(f, "<rect width='100%%' height='100%%' fill='white'/>\n");
        fprintf(f, "<text x='20' y='24' font-size='16' font-weight='bold'>Foot locking on %s</text>\n", tg.name);
        fprintf(f, "<text x='20' y='44' fill='#555'>blue: left foot, red: right foot; dashed: the clip alone, solid: locked; "
                   "bands: contacts found in the clip</text>\n");
        for (int c = 0; c < 2; c++) {
            char title[320];
            double y = 80 + c * 380;
            snprintf(title, sizeof title, "%s: foot height (world), sliding %.2f -> %.2f cm/m", clips[c]->name,
                     (double)res[c].slide_off, (double)res[c].slide_on);
            plot(f, title, frames + c * FRAMES, FRAMES, 20, y, 900, 150, 0, res[c].speed);
            snprintf(title, sizeof title, "%s: foot position along the walk relative to the root: a locked foot is a straight line "
                     "(largest angle change %.1f deg)", clips[c]->name, (double)res[c].max_angle_deg);
            plot(f, title, frames + c * FRAMES, FRAMES, 20, y + 190, 900, 150, 1, res[c].speed);
        }
        fprintf(f, "</svg>\n");
        if (fclose(f)) { fprintf(stderr, "stance: %s: write failed\n", svg); rc = 1; }
    }
done:
    free(frames);
    tool_graph_close(&tg);
    return rc;
}
