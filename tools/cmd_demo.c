/* tools/cmd_demo.c - `stance demo`: the main demo on the built-in character:
 * what it is made of, how well its feet stay planted, then the lesson's
 * transition experiment with every switch mode. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "stance/stance.h"
#include "stance_lesson/stance_lesson.h"

/* Sliding of planted feet (cm per metre) for a loop clip played for `secs`
 * with the root advancing at the clip's speed (LESSON.md, measure 2). */
static float foot_slide(const stance_builtin *b, const stance_clip *c, float secs) {
    const stance_skeleton *sk = b->skeleton;
    int feet[2] = {stance_skeleton_find(sk, "foot_l"), stance_skeleton_find(sk, "foot_r")};
    stance_pose local, model;
    if (stance_pose_create(&local, sk->joint_count, NULL, NULL)) return -1;
    if (stance_pose_create(&model, sk->joint_count, NULL, NULL)) { stance_pose_destroy(&local); return -1; }
    const int n = (int)(secs * 60.0f);
    float lowest[2] = {1e9f, 1e9f};
    for (int pass = 0; pass < 2; pass++) {
        float t = 0.0f, prev[2][3] = {{0}}, slide = 0.0f;
        stance_cursor cur = {0};
        for (int f = 0; f <= n; f++) {
            float root_z = c->root_speed * (float)f / 60.0f;
            stance_clip_sample(c, t, &cur, &local, NULL);
            stance_local_to_model(&model, &local, sk, NULL, NULL);
            for (int k = 0; k < 2; k++) {
                float p[3] = {model.tx[feet[k]], model.ty[feet[k]], model.tz[feet[k]] + root_z};
                if (pass == 0 && p[1] < lowest[k]) lowest[k] = p[1];
                if (pass == 1 && f > 0 && p[1] <= lowest[k] + 0.02f)
                    slide += sqrtf((p[0] - prev[k][0]) * (p[0] - prev[k][0]) + (p[2] - prev[k][2]) * (p[2] - prev[k][2]));
                memcpy(prev[k], p, sizeof p);
            }
            stance_clip_advance(c, t, 1.0f / 60.0f, 1, &t, NULL, 0, NULL, NULL, NULL);
        }
        if (pass == 1) {
            stance_pose_destroy(&local), stance_pose_destroy(&model);
            float metres = c->root_speed * (float)n / 60.0f;
            return metres > 0 ? slide * 100.0f / metres : 0.0f;
        }
    }
    return -1;
}

int cmd_demo(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: stance demo\nThe built-in character: its skeleton and clips, foot planting, and the lesson's\n"
                   "transition experiment (the same as `stance scenario`).\n");
            return 0;
        }
        fprintf(stderr, "stance demo: unknown option '%s'\n", argv[i]);
        return 2;
    }
    stance_builtin b;
    stance_error err = {0};
    if (stance_builtin_create(NULL, &b, &err)) { fprintf(stderr, "stance demo: %s\n", err.message); return 1; }
    const stance_skeleton *sk = b.skeleton;
    printf("stance demo: the built-in character\n\n");
    printf("skeleton: %d joints (metres, Y up, facing +Z)\n  ", sk->joint_count);
    for (int j = 0; j < sk->joint_count; j++)
        printf("%s%s", stance_skeleton_joint_name(sk, j), j + 1 < sk->joint_count ? (j % 8 == 7 ? ",\n  " : ", ") : "\n");
    if (b.mesh && b.skin)
        printf("mesh: '%s', %d vertices, %d triangles, skinned to %d joints (one capsule per bone)\n", b.mesh->name,
               b.mesh->vertex_count, b.mesh->index_count / 3, b.skin->joint_count);
    printf("\n| clip | duration (s) | keys | root speed (m/s) | events | foot sliding (cm/m) |\n|---|---|---|---|---|---|\n");
    for (int i = 0; i < b.clip_count; i++) {
        const stance_clip *c = b.clips[i];
        char ev[128] = "";
        for (int e = 0; e < c->event_count; e++) {
            char one[48];
            snprintf(one, sizeof one, "%s%s@%.2f", e ? " " : "", c->events[e].name, (double)c->events[e].time);
            strncat(ev, one, sizeof ev - strlen(ev) - 1);
        }
        char slide[32] = "-";
        if (c->root_speed > 0.0f) snprintf(slide, sizeof slide, "%.3f", (double)foot_slide(&b, c, 4.0f));
        printf("| %s | %.3f | %d | %.2f | %s | %s |\n", c->name, (double)c->duration, c->key_count,
               (double)c->root_speed, ev[0] ? ev : "-", slide);
    }
    stance_graph *g = NULL;
    if (stance_builtin_lesson_graph(&b, NULL, &g, &err)) {
        fprintf(stderr, "stance demo: %s\n", err.message);
        stance_builtin_destroy(&b);
        return 1;
    }
    printf("\nThe lesson's transition experiment (13.5 s script at 60 Hz, blend 0.25 s, smoothstep):\n\n");
    printf("| mode | worst jump at a switch (cm) | at (s) | transition | max clips sampled in a frame |\n|---|---|---|---|---|\n");
    int rc = 0;
    for (int m = 0; m < STANCE_SCENARIO_MODES; m++) {
        stance_scenario_result r;
        if (stance_scenario_run(g, stance_scenario_modes[m], 0.25f, STANCE_EASE_SMOOTHSTEP, &r, NULL, NULL, &err)) {
            fprintf(stderr, "stance demo: %s\n", err.message);
            rc = 1;
            break;
        }
        printf("| %s | %.2f | %.2f | %s | %d |\n", stance_switch_mode_name(r.mode), (double)r.worst_jump_cm,
               (double)r.worst_at_s, r.worst_transition, r.max_clips_sampled);
    }
    printf("\nMore: `stance scenario --svg out.svg`, `stance bench`, `stance --help`.\n");
    stance_graph_destroy(g);
    stance_builtin_destroy(&b);
    return rc;
}
