/* examples/robot.c - RobotExpressive behind the gameplay controller:
 * walking on the base layer, a Wave on the upper body, a Jump over
 * everything, and Yes/No nods added on the head. Prints weights and events.
 * Usage: robot [graphs/robot_controller.json] */
#include <stdio.h>
#include <stdlib.h>

#include "stance/graphfile.h"
#include "robot_ids.h"
#include "stance/stance.h"

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "graphs/robot_controller.json";
    stance_error err;
    stance_graphfile *gf = NULL;
    if (stance_graphfile_load(path, NULL, &gf, &err)) { fprintf(stderr, "robot: %s\n", err.message); return 1; }
    stance_controller *ctl = NULL;
    if (stance_controller_create(stance_graphfile_graph(gf), NULL, NULL, &ctl, &err)) {
        fprintf(stderr, "robot: %s\n", err.message);
        stance_graphfile_destroy(gf);
        return 1;
    }
    stance_workspace *ws = NULL; /* evaluation scratch: one per thread */
    if (stance_workspace_create(stance_graphfile_graph(gf), NULL, &ws, &err)) {
        fprintf(stderr, "robot: %s\n", err.message);
        stance_controller_destroy(ctl);
        stance_graphfile_destroy(gf);
        return 1;
    }
    const float dt = 1.0f / 60.0f;
    int failures = 0, ended_yes = 0, ended_jump = 0;
    for (int f = 0; f <= 360; f++) {
        float t = f * dt;
        if (f == 0) stance_controller_set_float(ctl, ROBOT_PARAM_SPEED, 4.0f, NULL);
        if (f == 30) stance_controller_set(ctl, ROBOT_STATE_WAVING_WAVE, NULL);
        if (f == 60) stance_controller_set(ctl, ROBOT_STATE_NODDING_YES, NULL);
        if (f == 150) stance_controller_set(ctl, ROBOT_STATE_JUMPING_JUMP, NULL);
        if (f == 240) stance_controller_reset(ctl, ROBOT_STATE_WAVING_WAVE, NULL);
        if (f == 260) stance_controller_set(ctl, ROBOT_STATE_SHAKING_NO, NULL);
        if (stance_controller_update(ctl, dt, ws, NULL)) failures++;
        int n;
        const stance_event *ev = stance_controller_events(ctl, &n);
        for (int i = 0; i < n; i++) {
            if (ev[i].type == STANCE_EVENT_STATE_ENDED || ev[i].type == STANCE_EVENT_LAYER_SHOWN || ev[i].type == STANCE_EVENT_STATE_ENTERED)
                printf("t=%.2f  %s %s (layer %d)\n", ev[i].time,
                       ev[i].type == STANCE_EVENT_STATE_ENDED ? "ended  " : ev[i].type == STANCE_EVENT_LAYER_SHOWN ? "shown  " : "entered",
                       ev[i].name, ev[i].layer);
            if (ev[i].type == STANCE_EVENT_STATE_ENDED && ev[i].state == ROBOT_STATE_NODDING_YES) ended_yes = 1;
            if (ev[i].type == STANCE_EVENT_STATE_ENDED && ev[i].state == ROBOT_STATE_JUMPING_JUMP) ended_jump = 1;
        }
        if (f % 30 == 0) {
            printf("t=%.2f  weights:", t + dt);
            for (int l = 0; l < ROBOT_LAYER_COUNT; l++)
                printf(" %s %.2f", stance_graph_layer_name(stance_graphfile_graph(gf), l), stance_controller_layer_weight(ctl, l));
            printf("\n");
        }
    }
    if (!ended_yes || !ended_jump) { fprintf(stderr, "robot: the Yes nod and the Jump should both have ended\n"); failures++; }
    stance_controller_destroy(ctl);
    stance_workspace_destroy(ws);
    stance_graphfile_destroy(gf);
    return failures ? 1 : 0;
}
