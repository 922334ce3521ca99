/* tools/cmd_scenario.c - `stance scenario`: the lesson's transition
 * experiment (experiments/LESSON.md) per switch mode, as a table, JSON, or
 * an SVG like the lesson's canvas (state band and jump bars per mode). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "io/scenario_script.h"
#include "stance/stance.h"
#include "stance_lesson/stance_lesson.h"
#include "tool_graph.h"

static void usage(FILE *f) {
    fprintf(f, "usage: stance scenario [--graph FILE] [--asset FILE] [--script FILE] [--mode MODE|all] [--blend-time S]\n"
               "                       [--easing smoothstep|linear] [--json] [--svg OUT.svg]\n"
               "Runs the lesson's 13.5 s script at 60 Hz and reports, per switch mode, the worst joint\n"
               "jump at a switch (cm), when and on which transition, and the most clips sampled in a frame.\n"
               "Modes: cut, frozen, crossfade, inertialize-simple, inertialize, deadblend (default: all).\n"
               "Without --graph it uses the built-in character and its lesson graph.\n"
               "--script FILE: your own parameter changes over time in place of the lesson's (which drives\n"
               "'speed' and 'jump'), for any graph: {\"duration\": S, \"changes\": [{\"t\": S, \"set\":\n"
               "{\"param\": value, ...}}, {\"t\": S, \"trigger\": \"name\"}]} (docs/graph-format.md, Scripts).\n"
               "--poses OUT.json (one --mode): every frame's model-space joint positions, {\"joints\": N,\n"
               "\"frames\": [[x0, y0, z0, x1, ...], ...]} (the lab's graph editor compares its own with them).\n");
}

static const char *state_color(const char *name) {
    if (!strcmp(name, "Idle")) return "#9aa5b1";
    if (!strcmp(name, "Move")) return "#4c8bf5";
    if (!strcmp(name, "Jump")) return "#f59f00";
    return "#6c757d";
}

static void write_svg(FILE *f, const stance_graph *g, const char *graph_name, int count,
                      const stance_scenario_result *res, const stance_scenario_frame *all_frames, int nframes) {
    const double W = 1000, left = 190, right = 20, top = 80, row_h = 125, band_h = 26, bar_max_h = 60;
    const double plot_w = W - left - right, H = top + row_h * count + 60, T = nframes / 60.0;
    double max_jump = 1.0;
    for (int m = 0; m < count; m++)
        if (res[m].worst_jump_cm > max_jump) max_jump = res[m].worst_jump_cm;
    static const double nice[] = {5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000};
    double scale_cm = nice[9];
    for (int i = 0; i < 10; i++)
        if (max_jump <= nice[i]) { scale_cm = nice[i]; break; }
    fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%.0f' height='%.0f' viewBox='0 0 %.0f %.0f' "
               "font-family='sans-serif' font-size='12'>\n", W, H, W, H);
    fprintf(f, "<rect width='100%%' height='100%%' fill='white'/>\n");
    fprintf(f, "<text x='%.0f' y='22' font-size='16' font-weight='bold'>Jump at a switch, per mode "
               "(%s, blend %.2f s)</text>\n", left, graph_name, (double)res[0].blend_time);
    /* legend */
    const char *names[3] = {"Idle", "Move", "Jump"};
    for (int i = 0; i < 3; i++) {
        double x = left + i * 90;
        fprintf(f, "<rect x='%.0f' y='32' width='14' height='14' fill='%s'/><text x='%.0f' y='44'>%s</text>\n",
                x, state_color(names[i]), x + 18, names[i]);
    }
    fprintf(f, "<rect x='%.0f' y='32' width='14' height='14' fill='url(#hatch)'/><text x='%.0f' y='44'>transition</text>\n",
            left + 270, left + 288);
    fprintf(f, "<rect x='%.0f' y='32' width='14' height='14' fill='#d62828'/><text x='%.0f' y='44'>jump at switch (cm)</text>\n",
            left + 380, left + 398);
    /* acceleration ratio scale, shared by the rows */
    double max_ratio = 2.0;
    for (int m = 0; m < count; m++)
        if (res[m].accel_ratio > max_ratio) max_ratio = res[m].accel_ratio;
    static const double nice_r[] = {2, 5, 10, 20, 50, 100, 200, 500, 1000, 10000, 1e6, 1e9};
    double scale_r = nice_r[11];
    for (int i = 0; i < 12; i++)
        if (max_ratio <= nice_r[i]) { scale_r = nice_r[i]; break; }
    fprintf(f, "<line x1='%.0f' y1='59' x2='%.0f' y2='59' stroke='#7b2cbf' stroke-width='2'/><text x='%.0f' y='64'>"
               "in each blend window: largest joint acceleration / that of the clips alone (log scale, 0 to %g); "
               "overshoot past the target pose</text>\n", left, left + 16, left + 20, scale_r);
    fprintf(f, "<defs><pattern id='hatch' width='6' height='6' patternUnits='userSpaceOnUse' patternTransform='rotate(45)'>"
               "<rect width='6' height='6' fill='white' fill-opacity='0.0'/><line x1='0' y1='0' x2='0' y2='6' stroke='black' stroke-opacity='0.45' stroke-width='2'/></pattern></defs>\n");
    for (int m = 0; m < count; m++) {
        double y0 = top + row_h * m;
        double band_y = y0 + bar_max_h + 8;
        fprintf(f, "<text x='%.0f' y='%.0f' text-anchor='end' font-weight='bold'>%s</text>\n", left - 10, band_y + 17,
                stance_switch_mode_name(res[m].mode));
        fprintf(f, "<text x='%.0f' y='%.0f' text-anchor='end' fill='#555'>worst %.1f cm, %d clips</text>\n",
                left - 10, band_y + 32, (double)res[m].worst_jump_cm, res[m].max_clips_sampled);
        fprintf(f, "<text x='%.0f' y='%.0f' text-anchor='end' fill='#7b2cbf'>accel x%.2f, over %.2f cm</text>\n",
                left - 10, band_y + 47, (double)res[m].accel_ratio, (double)res[m].overshoot_cm);
        /* jump axis */
        fprintf(f, "<line x1='%.0f' y1='%.0f' x2='%.0f' y2='%.0f' stroke='#999'/>\n", left, y0, left, y0 + bar_max_h);
        fprintf(f, "<text x='%.0f' y='%.0f' text-anchor='end' font-size='10' fill='#555'>%.0f cm</text>\n", left - 4, y0 + 8, scale_cm);
        fprintf(f, "<text x='%.0f' y='%.0f' text-anchor='end' font-size='10' fill='#555'>0</text>\n", left - 4, y0 + bar_max_h);
        fprintf(f, "<line x1='%.0f' y1='%.0f' x2='%.0f' y2='%.0f' stroke='#eee'/>\n", left, y0 + bar_max_h, W - right, y0 + bar_max_h);
        /* state band: runs of the same state */
        const stance_scenario_frame *fr = all_frames + (size_t)m * (size_t)nframes;
        int start = 0;
        for (int i = 1; i <= nframes; i++) {
            if (i < nframes && fr[i].state == fr[start].state) continue;
            double x0 = left + plot_w * (fr[start].time - 1.0 / 60) / T, x1 = left + plot_w * fr[i - 1].time / T;
            fprintf(f, "<rect x='%.1f' y='%.0f' width='%.1f' height='%.0f' fill='%s'/>\n", x0, band_y, x1 - x0, band_h,
                    state_color(stance_graph_state_name(g, fr[start].state)));
            start = i;
        }
        for (int i = 0; i < nframes; i++) /* transitions: hatched over the band */
            if (fr[i].from_state >= 0) {
                double x0 = left + plot_w * (fr[i].time - 1.0 / 60) / T;
                fprintf(f, "<rect x='%.1f' y='%.0f' width='%.2f' height='%.0f' fill='url(#hatch)'/>\n", x0, band_y,
                        plot_w / 60 / T + 0.3, band_h);
            }
        /* the acceleration ratio inside the blend windows, one polyline per window */
        for (int i = 0; i < nframes; i++) {
            if (fr[i].accel_ratio < 0 || (i > 0 && fr[i - 1].accel_ratio >= 0)) continue;
            fprintf(f, "<polyline fill='none' stroke='#7b2cbf' stroke-width='1.5' points='");
            for (int k = i; k < nframes && fr[k].accel_ratio >= 0; k++) {
                double r = fr[k].accel_ratio > scale_r ? scale_r : fr[k].accel_ratio;
                fprintf(f, "%.1f,%.1f ", left + plot_w * fr[k].time / T, y0 + bar_max_h - bar_max_h * log10(1 + r) / log10(1 + scale_r));
            }
            fprintf(f, "'/>\n");
        }
        for (int i = 0; i < nframes; i++)
            if (fr[i].jump_cm >= 0) {
                double h = bar_max_h * (fr[i].jump_cm > scale_cm ? 1.0 : fr[i].jump_cm / scale_cm);
                if (h < 1) h = 1;
                double x = left + plot_w * fr[i].time / T;
                fprintf(f, "<rect x='%.1f' y='%.1f' width='5' height='%.1f' fill='#d62828'/>\n", x - 2.5, y0 + bar_max_h - h, h);
                fprintf(f, "<text x='%.1f' y='%.1f' font-size='9' text-anchor='middle' fill='#d62828'>%.1f</text>\n", x,
                        y0 + bar_max_h - h - 2, (double)fr[i].jump_cm);
            }
    }
    /* time axis */
    double ay = top + row_h * count + 5;
    fprintf(f, "<line x1='%.0f' y1='%.0f' x2='%.0f' y2='%.0f' stroke='black'/>\n", left, ay, W - right, ay);
    for (int s = 0; s <= (int)T; s++) {
        double x = left + plot_w * s / T;
        fprintf(f, "<line x1='%.1f' y1='%.0f' x2='%.1f' y2='%.0f' stroke='black'/><text x='%.1f' y='%.0f' text-anchor='middle'>%d</text>\n",
                x, ay, x, ay + 5, x, ay + 18, s);
    }
    fprintf(f, "<text x='%.0f' y='%.0f' text-anchor='middle'>time (s)</text>\n", left + plot_w / 2, ay + 36);
    fprintf(f, "</svg>\n");
}

/* --poses: the measured instance's model-space joint positions after each frame of the script. */
static stance_status write_poses(const char *path, const stance_graph *g, const stance_scenario_desc *sd, stance_error *err) {
    stance_scenario *run = NULL;
    stance_status s = stance_scenario_create(g, sd, NULL, &run, err);
    if (s) return s;
    FILE *f = fopen(path, "w");
    if (!f) {
        stance_scenario_destroy(run);
        snprintf(err->message, sizeof err->message, "%s: cannot create", path);
        return err->status = STANCE_ERR_IO;
    }
    const int joints = stance_graph_skeleton(g)->joint_count, frames = stance_scenario_frame_count(run);
    fprintf(f, "{\"joints\":%d,\"frames\":[", joints);
    for (int fr = 0; !s && fr < frames; fr++) {
        if ((s = stance_scenario_step(run, NULL, err))) break;
        const stance_pose *p = stance_instance_model_pose(stance_scenario_instance(run));
        fprintf(f, "%s\n[", fr ? "," : "");
        for (int j = 0; j < joints; j++)
            fprintf(f, "%s%.9g,%.9g,%.9g", j ? "," : "", (double)p->tx[j], (double)p->ty[j], (double)p->tz[j]);
        fprintf(f, "]");
    }
    fprintf(f, "]}\n");
    stance_scenario_destroy(run);
    if (fclose(f) && !s) {
        snprintf(err->message, sizeof err->message, "%s: write failed", path);
        s = err->status = STANCE_ERR_IO;
    }
    return s;
}

int cmd_scenario(int argc, char **argv) {
    tool_opts o = {0};
    const char *mode_name = "all", *script_path = NULL, *poses_path = NULL;
    float blend = 0.25f;
    int easing = STANCE_EASE_SMOOTHSTEP;
    for (int i = 1; i < argc; i++) {
        if (tool_common_option(argc, argv, &i, &o)) continue;
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--mode") && more) mode_name = argv[++i];
        else if (!strcmp(a, "--script") && more) script_path = argv[++i];
        else if (!strcmp(a, "--poses") && more) poses_path = argv[++i];
        else if (!strcmp(a, "--blend-time") && more) {
            char *end;
            blend = strtof(argv[++i], &end);
            if (*end || !(blend > 0.0f && blend <= 10.0f)) { fprintf(stderr, "stance scenario: --blend-time must be in (0, 10] s\n"); return 2; }
        } else if (!strcmp(a, "--easing") && more) {
            const char *e = argv[++i];
            if (!strcmp(e, "smoothstep")) easing = STANCE_EASE_SMOOTHSTEP;
            else if (!strcmp(e, "linear")) easing = STANCE_EASE_LINEAR;
            else { fprintf(stderr, "stance scenario: unknown easing '%s' (smoothstep or linear)\n", e); return 2; }
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 0; }
        else { fprintf(stderr, "stance scenario: unknown option '%s'\n", a); usage(stderr); return 2; }
    }
    stance_switch_mode modes[STANCE_SCENARIO_MODES];
    int count = 0;
    if (!strcmp(mode_name, "all")) {
        for (int i = 0; i < STANCE_SCENARIO_MODES; i++) modes[count++] = stance_scenario_modes[i];
    } else {
        int m = stance_switch_mode_parse(mode_name);
        if (m < 0) { fprintf(stderr, "stance scenario: unknown mode '%s' (cut, frozen, crossfade, inertialize-simple, inertialize, deadblend, all)\n", mode_name); return 2; }
        modes[count++] = (stance_switch_mode)m;
    }
    if (poses_path && count != 1) { fprintf(stderr, "stance scenario: --poses needs one --mode\n"); return 2; }
    const char *svg = o.svg;
    const int json = o.json;
    tool_graph tg;
    stance_error err = {0};
    if (tool_graph_open(&tg, o.graph, o.asset, &err)) { fprintf(stderr, "stance: %s\n", err.message); return 1; }
    stance_scenario_script script = {0};
    if (script_path && stance_scenario_script_load(script_path, tg.graph, &script, &err)) {
        fprintf(stderr, "stance: %s\n", err.message);
        tool_graph_close(&tg);
        return 1;
    }
    const int nframes = script_path ? (int)(script.duration * 60.0f + 0.5f) > 0 ? (int)(script.duration * 60.0f + 0.5f) : 1
                                    : STANCE_SCENARIO_FRAMES;
    stance_scenario_result res[STANCE_SCENARIO_MODES];
    stance_scenario_frame *frames = calloc((size_t)STANCE_SCENARIO_MODES * (size_t)nframes, sizeof *frames);
    if (!frames) { stance_scenario_script_free(&script); tool_graph_close(&tg); fprintf(stderr, "stance scenario: out of memory\n"); return 1; }
    int rc = 0;
    for (int m = 0; m < count; m++) {
        const stance_scenario_desc sd = {.mode = modes[m], .blend_time = blend, .easing = (stance_easing)easing,
                                         .script = script_path ? &script : NULL};
        if (stance_scenario_run_desc(tg.graph, &sd, &res[m], frames + (size_t)m * (size_t)nframes, nframes, NULL, &err)) {
            fprintf(stderr, "stance: %s: %s\n", tg.name, err.message);
            rc = 1;
            goto done;
        }
    }
    if (poses_path) {
        const stance_scenario_desc sd = {.mode = modes[0], .blend_time = blend, .easing = (stance_easing)easing,
                                         .script = script_path ? &script : NULL};
        if (write_poses(poses_path, tg.graph, &sd, &err)) {
            fprintf(stderr, "stance: %s\n", err.message);
            rc = 1;
            goto done;
        }
    }
    if (json) {
        printf("{\"graph\":\"%s\",", tg.name);
        if (script_path) printf("\"script\":\"%s\",\"duration_s\":%.3f,", script_path, nframes / 60.0);
        printf("\"blend_time_s\":%.3f,\"easing\":\"%s\",\"modes\":[", (double)blend,
               easing == STANCE_EASE_LINEAR ? "linear" : "smoothstep");
        for (int m = 0; m < count; m++)
            printf("%s{\"mode\":\"%s\",\"worst_jump_cm\":%.2f,\"at_s\":%.3f,\"transition\":\"%s\",\"joint\":\"%s\","
                   "\"max_clips_sampled\":%d,\"transitions\":%d,\"accel_ratio\":%.3f,\"accel_at_s\":%.3f,"
                   "\"max_accel_m_s2\":%.3f,\"ref_accel_m_s2\":%.3f,\"overshoot_cm\":%.3f,\"overshoot_at_s\":%.3f}",
                   m ? "," : "", stance_switch_mode_name(res[m].mode), (double)res[m].worst_jump_cm,
                   (double)res[m].worst_at_s, res[m].worst_transition,
                   stance_skeleton_joint_name(stance_graph_skeleton(tg.graph), res[m].worst_joint),
                   res[m].max_clips_sampled, res[m].transitions, (double)res[m].accel_ratio, (double)res[m].accel_at_s,
                   (double)res[m].max_accel, (double)res[m].ref_accel, (double)res[m].overshoot_cm, (double)res[m].overshoot_at_s);
        printf("]}\n");
    } else {
        if (script_path) printf("The script %s (%.2f s at 60 Hz)", script_path, nframes / 60.0);
        else printf("The lesson's script (13.5 s at 60 Hz)");
        printf(" on %s, blend %.2f s, %s\n", tg.name, (double)blend, easing == STANCE_EASE_LINEAR ? "linear" : "smoothstep");
        printf("| mode | worst jump (cm) | at (s) | transition | joint | max clips sampled | transitions | accel ratio | at (s) | overshoot (cm) |\n");
        printf("|---|---|---|---|---|---|---|---|---|---|\n");
        for (int m = 0; m < count; m++)
            printf("| %s | %.2f | %.2f | %s | %s | %d | %d | %.2f | %.2f | %.2f |\n", stance_switch_mode_name(res[m].mode),
                   (double)res[m].worst_jump_cm, (double)res[m].worst_at_s, res[m].worst_transition,
                   stance_skeleton_joint_name(stance_graph_skeleton(tg.graph), res[m].worst_joint),
                   res[m].max_clips_sampled, res[m].transitions, (double)res[m].accel_ratio, (double)res[m].accel_at_s,
                   (double)res[m].overshoot_cm);
    }
    if (svg) {
        FILE *f = fopen(svg, "w");
        if (!f) { fprintf(stderr, "stance: %s: cannot create\n", svg); rc = 1; goto done; }
        write_svg(f, tg.graph, tg.name, count, res, frames, nframes);
        if (fclose(f)) { fprintf(stderr, "stance: %s: write failed\n", svg); rc = 1; }
    }
done:
    free(frames);
    stance_scenario_script_free(&script);
    tool_graph_close(&tg);
    return rc;
}
