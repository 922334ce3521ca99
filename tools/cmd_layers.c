/* tools/cmd_layers.c - `stance layers`: the lesson's layer experiments
 * (foot sliding with a whole vs upper-body wave; arm angle error in local vs
 * mesh space, with and without an additive lean), on the built-in character
 * or on a graph file's asset, as a table, JSON, or the lesson's side view. */
#include <stdio.h>
#include <math.h>
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
    fprintf(f, "usage: stance layers [--graph FILE] [--asset FILE] [--json] [--svg OUT.svg]\n"
               "Foot sliding (cm per metre) of a wave over a walk with a whole-body vs an upper-body mask,\n"
               "and the right upper arm's angle error (degrees) of a right-arm wave over a run, blended in\n"
               "local vs mesh space, with and without an additive lean (experiments/LESSON.md).\n"
               "With --graph, the graph file's \"lesson_layers\" section names the clips and joints.\n");
}

static const char *cfg_name[4] = {"local", "local + lean", "mesh", "mesh + lean"};

static void draw_figure(FILE *f, const stance_skeleton *sk, const stance_pose *m, const stance_pose *a, int arm,
                        int elbow, double ox, double oy, double scale) {
    /* side view: model z to the right, y up */
    for (int j = 0; j < sk->joint_count; j++) {
        int p = sk->parents[j];
        if (p < 0 || sk->parents[p] < 0) continue; /* not the root's own bone */
        int right_arm = stance_skeleton_is_descendant(sk, j, arm) || j == arm;
        fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='%s' stroke-width='%s' stroke-linecap='round'/>\n",
                ox + m->tz[p] * scale, oy - m->ty[p] * scale, ox + m->tz[j] * scale, oy - m->ty[j] * scale,
                right_arm ? "#d62828" : "#555", right_arm ? "3" : "2");
    }
    /* the authored upper-arm direction, dashed, from the output's shoulder */
    double dx = a->tz[elbow] - a->tz[arm], dy = a->ty[elbow] - a->ty[arm], dz = a->tx[elbow] - a->tx[arm];
    double len = sqrt(dx * dx + dy * dy + dz * dz);
    double ux = m->tz[arm], uy = m->ty[arm];
    double k = len > 0 ? 0.5 / len : 0;
    fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#1d4ed8' stroke-width='2' stroke-dasharray='5,4'/>\n",
            ox + ux * scale, oy - uy * scale, ox + (ux + dx * k) * scale, oy - (uy + dy * k) * scale);
    fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#aaa'/>\n", ox - 0.6 * scale, oy, ox + 0.6 * scale, oy);
}

int cmd_layers(int argc, char **argv) {
    tool_opts o = {0};
    for (int i = 1; i < argc; i++) {
        if (tool_common_option(argc, argv, &i, &o)) continue;
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 0; }
        else { fprintf(stderr, "stance layers: unknown option '%s'\n", a); usage(stderr); return 2; }
    }
    const char *svg = o.svg;
    const int json = o.json;
    stance_error err = {0};
    tool_graph tg;
    if (tool_graph_open(&tg, o.graph, o.asset, &err)) { fprintf(stderr, "stance: %s\n", err.message); return 1; }
    const char *name = tg.name;
    stance_layer_setup su;
    if (tool_graph_layer_setup(&tg, &su, &err)) {
        tool_graph_close(&tg);
        return 1;
    }
    stance_layer_result r;
    int rc = 0;
    if (stance_layers_run(&su, &r, NULL, &err)) {
        fprintf(stderr, "stance: %s: %s\n", name, err.message);
        rc = 1;
        goto done;
    }
    if (json) {
        printf("{\"graph\":\"%s\",\"walk_speed_m_s\":%.3f,\"foot_slide_cm_per_m\":{\"whole\":%.3f,\"upper\":%.3f,\"walk_alone\":%.3f},"
               "\"arm_angle_error_deg\":{\"local\":%.2f,\"local_lean\":%.2f,\"mesh\":%.3f,\"mesh_lean\":%.3f}}\n",
               name, (double)r.walk_speed, (double)r.slide_whole, (double)r.slide_upper, (double)r.slide_base, (double)r.arm_local, (double)r.arm_local_lean,
               (double)r.arm_mesh, (double)r.arm_mesh_lean);
    } else {
        printf("The lesson's layer experiments on %s\n\n", name);
        printf("| wave over a walk, root at %.2f m/s%s | foot sliding (cm per metre, both feet) |\n|---|---|\n", (double)r.walk_speed,
               su.walk->root_speed > 0.0f ? "" : " (from its planted feet)");
        printf("| whole-body mask | %.2f |\n| upper-body mask (from %s) | %.3f |\n| the walk alone (no wave) | %.3f |\n\n",
               (double)r.slide_whole, su.spine, (double)r.slide_upper, (double)r.slide_base);
        printf("| right-arm wave over a run | arm angle error (degrees) |\n|---|---|\n");
        printf("| local space | %.2f |\n| local space + additive lean | %.2f |\n| mesh space | %.3f |\n| mesh space + additive lean | %.3f |\n",
               (double)r.arm_local, (double)r.arm_local_lean, (double)r.arm_mesh, (double)r.arm_mesh_lean);
    }
    if (svg) {
        FILE *f = fopen(svg, "w");
        if (!f) { fprintf(stderr, "stance: %s: cannot create\n", svg); rc = 1; goto done; }
        const stance_skeleton *sk = su.skeleton;
        int arm = stance_skeleton_find(sk, su.arm), elbow = stance_skeleton_find(sk, su.elbow);
        stance_pose m, a;
        stance_pose_create(&m, sk->joint_count, NULL, NULL), stance_pose_create(&a, sk->joint_count, NULL, NULL);
        /* size from the rest pose's height */
        stance_pose rl;
        stance_pose_create(&rl, sk->joint_count, NULL, NULL);
        stance_pose_set_rest(&rl, sk, NULL);
        stance_local_to_model(&m, &rl, sk, NULL, NULL);
        float hmax = 0.1f;
        for (int j = 0; j < sk->joint_count; j++) if (m.ty[j] > hmax) hmax = m.ty[j];
        stance_pose_destroy(&rl);
        const float times[4] = {0.5f, 1.0f, 1.5f, 2.0f};
        const double cw = 190, ch = 190, left = 130, top = 60, scale = 150.0 / hmax;
        fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%.0f' height='%.0f' font-family='sans-serif' font-size='12'>\n",
                left + 4 * cw + 20, top + 4 * ch + 20);
        fprintf(f, "<rect width='100%%' height='100%%' fill='white'/>\n");
        fprintf(f, "<text x='10' y='22' font-size='16' font-weight='bold'>Right-arm wave over a run, seen from the side (%s)</text>\n", name);
        fprintf(f, "<text x='10' y='42' fill='#555'>red: the output's right arm; dashed blue: the upper arm as the wave clip authored it; "
                   "angle = their difference</text>\n");
        for (int c = 0; c < 4; c++) {
            fprintf(f, "<text x='10' y='%.0f' font-weight='bold'>%s</text>\n", top + c * ch + ch / 2, cfg_name[c]);
            for (int t = 0; t < 4; t++) {
                float ang = 0;
                if (stance_layers_arm_pose(&su, (stance_arm_config)c, times[t], &m, &a, &ang, NULL, &err)) {
                    fprintf(stderr, "stance: %s\n", err.message);
                    rc = 1;
                    break;
                }
                double ox = left + t * cw + cw / 2, oy = top + c * ch + ch - 25;
                draw_figure(f, sk, &m, &a, arm, elbow, ox, oy, scale);
                fprintf(f, "<text x='%.0f' y='%.0f' text-anchor='middle'>t = %.1f s: %.1f&#176;</text>\n", ox, oy + 18, (double)times[t], (double)ang);
            }
        }
        fprintf(f, "</svg>\n");
        stance_pose_destroy(&m), stance_pose_destroy(&a);
        if (fclose(f)) { fprintf(stderr, "stance: %s: write failed\n", svg); rc = 1; }
    }
done:
    tool_graph_close(&tg);
    return rc;
}
