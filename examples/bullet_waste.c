/* examples/bullet_waste.c - the Bullet Waste example (seeds/004) on the
 * built-in character. Run plays on layer 0; gameplay sets Jump, which lives
 * on layer 1: layer 1 fades in over Run (which keeps playing unseen); when
 * the one-shot Jump ends nothing follows it, so its layer empties and Run
 * shows again. Gameplay passes ids from the generated anim_ids.h, never
 * strings. Prints the layer weights and events at each step. */
#include <stdio.h>
#include <stdlib.h>

#include "anim_ids.h"
#include "stance/graphfile.h"
#include "stance/stance.h"

static const char *event_name(stance_event_type t) {
    static const char *names[] = {"state entered", "state exited", "transition started", "transition finished",
                                  "clip finished", "clip event", "layer shown", "layer hidden", "state ended"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "graphs/bullet_waste.json";
    stance_error err;
    stance_graphfile *gf = NULL;
    if (stance_graphfile_load(path, NULL, &gf, &err)) { fprintf(stderr, "bullet_waste: %s\n", err.message); return 1; }
    stance_controller *ctl = NULL;
    stance_controller_desc desc = {.fade_time = 0.25f};
    if (stance_controller_create(stance_graphfile_graph(gf), &desc, NULL, &ctl, &err)) {
        fprintf(stderr, "bullet_waste: %s\n", err.message);
        stance_graphfile_destroy(gf);
        return 1;
    }
    stance_workspace *ws = NULL; /* evaluation scratch: one per thread */
    if (stance_workspace_create(stance_graphfile_graph(gf), NULL, &ws, &err)) {
        fprintf(stderr, "bullet_waste: %s\n", err.message);
        stance_controller_destroy(ctl);
        stance_graphfile_destroy(gf);
        return 1;
    }
    const float dt = 1.0f / 60.0f;
    int jump_seen = 0, run_back = 0, failures = 0;
    for (int frame = 0; frame <= 150; frame++) {
        if (frame == 30) {
            printf("t=%.2f  gameplay: set(ANIM_STATE_AIR_JUMP)\n", frame * dt);
            if (stance_controller_set(ctl, ANIM_STATE_AIR_JUMP, &err)) { fprintf(stderr, "%s\n", err.message); failures++; }
        }
        stance_controller_update(ctl, dt, ws, NULL);
        int n;
        const stance_event *ev = stance_controller_events(ctl, &n);
        for (int i = 0; i < n; i++)
            if (ev[i].type != STANCE_EVENT_CLIP_MARKER || ev[i].layer == ANIM_LAYER_LAYER1)
                printf("t=%.2f  event: %-19s layer %d  %s\n", ev[i].time, event_name(ev[i].type), ev[i].layer, ev[i].name);
        float w0 = stance_controller_layer_weight(ctl, ANIM_LAYER_LAYER0), w1 = stance_controller_layer_weight(ctl, ANIM_LAYER_LAYER1);
        if (frame % 10 == 0)
            printf("t=%.2f  weights: layer0 %.2f  layer1 %.2f  visible %d  (layer0 plays %s)\n", (frame + 1) * dt, w0, w1,
                   stance_controller_visible_layer(ctl),
                   stance_graph_state_name(stance_graphfile_graph(gf), stance_controller_layer_state(ctl, ANIM_LAYER_LAYER0)));
        if (w1 == 1.0f) jump_seen = 1;
        if (jump_seen && w0 == 1.0f && stance_controller_layer_state(ctl, ANIM_LAYER_LAYER0) == ANIM_STATE_GROUND_RUN) run_back = 1;
    }
    if (!jump_seen || !run_back) {
        fprintf(stderr, "bullet_waste: expected Jump to show and Run to come back (jump %d, run back %d)\n", jump_seen, run_back);
        failures++;
    }
    printf("%s\n", failures ? "FAILED" : "Run -> Jump on the higher layer -> Run again: as in the blog post");
    stance_controller_destroy(ctl);
    stance_workspace_destroy(ws);
    stance_graphfile_destroy(gf);
    return failures ? 1 : 0;
}
