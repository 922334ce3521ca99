/* tools/cmd_demo.c - `stance demo`: the main demo on the built-in character. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "stance/stance.h"

int cmd_demo(int argc, char **argv) {
    (void)argc, (void)argv;
    stance_builtin b;
    stance_error err = {0};
    if (stance_builtin_create(NULL, &b, &err)) { fprintf(stderr, "stance demo: %s\n", err.message); return 1; }
    printf("built-in character: %d joints, %d clips\n", b.skeleton->joint_count, b.clip_count);
    stance_builtin_destroy(&b);
    return 0;
}
