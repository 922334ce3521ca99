/* tests/core_alone.c - a program on the runtime alone (libstance, <stance/stance.h>):
 * a two-joint skeleton, a clip raising joint 1 by 1 m over 1 s, a one-state
 * graph, half a second of updates at 60 Hz: the tip is at 0.500 m (linear
 * keys). tests/test_core_alone.sh and tests/test_install.sh build it against
 * libstance only. Not a ctest executable of its own (not named test_*). */
#include <stance/stance.h>
#include <stance/build.h>
#include <stdio.h>

int main(void) {
    stance_error err;
    const char *names[2] = {"root", "tip"};
    const int parents[2] = {-1, 0};
    stance_skeleton *sk;
    if (stance_skeleton_create(&(stance_skeleton_desc){2, names, parents, NULL}, NULL, &sk, &err)) { puts(err.message); return 1; }
    const float times[2] = {0.0f, 1.0f}, up[6] = {0, 0, 0, 0, 1, 0};
    const stance_track_desc track = {1, STANCE_CHANNEL_TRANSLATION, 2, times, up};
    stance_clip *clip;
    if (stance_clip_create(&(stance_clip_desc){.name = "rise", .track_count = 1, .tracks = &track}, sk, NULL, &clip, &err)) { puts(err.message); return 1; }
    const stance_state_desc st = {.name = "Rise", .clip = clip, .once = 1};
    const stance_machine_desc m = {.name = "M", .state_count = 1, .states = &st};
    stance_graph *g;
    if (stance_graph_create(&(stance_graph_desc){.skeleton = sk, .machine_count = 1, .machines = &m}, NULL, &g, &err)) { puts(err.message); return 1; }
    stance_instance *inst;
    stance_workspace *ws;
    if (stance_instance_create(g, NULL, &inst, &err) || stance_workspace_create(g, NULL, &ws, &err)) { puts(err.message); return 1; }
    for (int i = 0; i < 30; i++) stance_instance_update(inst, 1.0f / 60, ws, NULL);
    printf("runtime alone %s: tip at %.3f m\n", stance_version(), stance_instance_model_pose(inst)->ty[1]);
    stance_instance_destroy(inst), stance_workspace_destroy(ws), stance_graph_destroy(g), stance_clip_destroy(clip);
    stance_skeleton_destroy(sk);
    return 0;
}
