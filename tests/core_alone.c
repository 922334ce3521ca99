/* tests/core_alone.c - a program on the runtime alone (libstance, <stance/stance.h>):
 * it loads a compiled graph and runs it. `core_alone FILE` loads FILE (a
 * .stance file with a GRPH section), updates an instance of its graph for
 * half a second at 60 Hz and prints where joint 1 is: for the file the
 * writer form makes (a two-joint skeleton, a clip raising joint 1 by 1 m
 * over 1 s, a one-state graph) the tip is at 0.500 m (linear keys).
 *
 * Built with -DCORE_ALONE_WRITE (and libstance_build, <stance/build.h>) it
 * is the writer: `core_alone_write FILE` compiles that graph into FILE.
 * tests/test_core_alone.sh and tests/test_install.sh build the reader
 * against libstance only. Not a ctest executable of its own (not named test_*). */
#include <stance/stance.h>
#include <stdio.h>
#ifdef CORE_ALONE_WRITE
#include <stance/build.h>

int main(int argc, char **argv) {
    if (argc != 2) { puts("usage: core_alone_write OUT.stance"); return 2; }
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
    stance_asset a = {.skeleton = sk, .clip_count = 1, .clips = &clip};
    const stance_graph_desc gd = {.skeleton = sk, .machine_count = 1, .machines = &m};
    const int rc = stance_asset_save_graph_file(&a, &gd, argv[1], &err) != STANCE_OK;
    puts(rc ? err.message : "compiled");
    stance_clip_destroy(clip), stance_skeleton_destroy(sk);
    return rc;
}
#else
int main(int argc, char **argv) {
    if (argc != 2) { puts("usage: core_alone FILE.stance"); return 2; }
    stance_error err;
    stance_asset a = {0};
    if (stance_asset_load_file(argv[1], NULL, &a, &err)) { puts(err.message); return 1; }
    if (!a.graph) { puts("the file has no compiled graph"); stance_asset_destroy(&a); return 1; }
    stance_instance *inst;
    stance_workspace *ws;
    if (stance_instance_create(a.graph, NULL, &inst, &err) || stance_workspace_create(a.graph, NULL, &ws, &err)) { puts(err.message); return 1; }
    for (int i = 0; i < 30; i++) stance_instance_update(inst, 1.0f / 60, ws, NULL);
    printf("runtime alone %s: tip at %.3f m\n", stance_version(), stance_instance_model_pose(inst)->ty[1]);
    stance_instance_destroy(inst), stance_workspace_destroy(ws), stance_asset_destroy(&a);
    return 0;
}
#endif
