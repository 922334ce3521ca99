/* tools/cmd_footlock.c - `stance footlock`: foot sliding of the walk and run
 * played alone, without and with foot locking (contacts found from each
 * clip, two-bone IK legs, pelvis drop), and the largest joint angle change
 * locking needed; as a table, JSON, or an SVG of foot heights, contacts and
 * the locked vs unlocked foot tracks. With a graph file that has an IK
 * stage ("ik"), each clip is also played through that stage (its entries
 * on a graph of the clip alone, the character moved at the walk's speed)
 * and its sliding reported beside the job's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "stance/stance.h"
#include "stance_lesson/stance_lesson.h"
#include "tool_graph.h"
#ifdef STANCE_HAVE_JANSSON
#include "io/lesson_setup.h"
#endif

static void usage(FILE *f) {
    fprintf(f, "usage: stance footlock [--graph FILE] [--asset FILE] [--plant-time S] [--json] [--svg OUT.svg]\n"
               "Foot sliding (cm per metre) of the walk and the run played alone, without and with foot\n"
               "locking, and the largest hip, knee and ankle rotation change locking made (degrees).\n"
               "With --graph, the graph file's \"lesson_layers\" section names the clips and feet; when the\n"
               "file has an \"ik\" stage, each clip is also played through it (column / field \"stage\").\n"
               "--plant-time S: a planting foot slows into its lock over S seconds (default 0.05;\n"
               "below a frame it stops at once).\n");
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
        if (!s) s = stance_instance_update(inst, f ? dt : 0.0f, ws);
        const stance_pose *m = stance_instance_model_pose(inst);
        for (int k = 0; k < 2; k++) {
            float *p = on + 3 * (2 * f + k);
            p[0] = m->tx[feet[k]] + root.t[0], p[1] = m->ty[feet[k]] + root.t[1], p[2] = m->tz[feet[k]] + root.t[2];
        }
    }
    if (!s) *out = stance_foot_slide(on, FRAMES, 2, sqrtf(vel[0] * vel[0] + vel[2] * vel[2]) * (float)(FRAMES - 1) * dt);
    free(on);
    stance_workspace_destroy(ws);
    stance_instance_destroy(inst);
    stance_graph_destroy(g);
    return s;
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

int cmd_footlock(int argc, char **argv) {
    tool_opts o = {0};
    float plant_time = 0.0f;
    for (int i = 1; i < argc; i++) {
        if (tool_common_option(argc, argv, &i, &o)) continue;
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--plant-time") && more) {
            char *end;
            plant_time = strtof(argv[++i], &end);
            if (*end || !(plant_time > 0.0f && plant_time <= 10.0f)) { fprintf(stderr, "stance footlock: --plant-time must be in (0, 10] s\n"); return 2; }
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 0; }
        else { fprintf(stderr, "stance footlock: unknown option '%s'\n", a); usage(stderr); return 2; }
    }
    const char *svg = o.svg;
    const int json = o.json;
    stance_error err = {0};
    tool_graph tg;
    if (tool_graph_open(&tg, o.graph, o.asset, &err)) { fprintf(stderr, "stance: %s\n", err.message); return 1; }
    stance_layer_setup su;
    if (tool_graph_layer_setup(&tg, &su, &err)) {
        tool_graph_close(&tg);
        return 1;
    }
    const stance_clip *clips[2] = {su.walk, su.run};
    stance_footlock_result res[2];
    stance_footlock_frame *frames = calloc(2 * FRAMES, sizeof *frames);
    int rc = 0;
    if (!frames) { fprintf(stderr, "stance footlock: out of memory\n"); tool_graph_close(&tg); return 1; }
    for (int c = 0; c < 2; c++) {
        stance_footlock_setup fs = {su.skeleton, clips[c], su.foot_l, su.foot_r, 4.0f, plant_time};
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
