/* tests/lsan_probe.c - run by tests/test_lsan.sh in the sanitizer build
 * (not a test itself): leaks once inside libassimp (a BVH parse error that
 * assimp itself is given) and,
 * unless given "clean", once through stance's allocator (an instance never
 * destroyed), so the script can check that tests/lsan.supp hides the first
 * and never the second. */
#include <stdio.h>
#include <string.h>

#include <assimp/cimport.h>

#include "stance/import.h"
#include "stance/stance.h"
#include "stance_lesson/stance_lesson.h"

int main(int argc, char **argv) {
    const char *bvh = argc > 1 ? argv[1] : "lsan_probe.bvh";
    /* the bad files of tests/test_robust.c: test_bvh_parse_error */
    const char *bodies[] = {
        "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
        " JOINT Chest\n {\n  OFFSET 0 5 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n  End Site\n  {\n   OFFSET 0 5 0\n  }\n }\n}\n"
        "MOTION\nFrames: 2\nFrame Time: 0.033333\n0 0 0 0 0 0 0 0 0\n0 0 0 oops\n",
        "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0\n",
        "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 99 Xposition\n}\nMOTION\nFrames: 1\n",
    };
    stance_asset a;
    stance_error err;
    for (int i = 0; i < (int)(sizeof bodies / sizeof bodies[0]); i++) {
        FILE *f = fopen(bvh, "wb");
        if (!f) return 2;
        fputs(bodies[i], f);
        fclose(f);
        if (stance_import_file(bvh, NULL, NULL, &a, &err) == STANCE_OK) { fprintf(stderr, "probe: a bad BVH imported\n"); return 2; }
        remove(bvh);
    }
    printf("probe: import refused: %s\n", err.message);
    /* stance's BVH pre-scan now refuses the CHANNELS 99 file before assimp
     * sees it, so hand it to assimp itself: assimp 5.2 leaks its half-built
     * root node on that error (1,144 bytes, every time) */
    FILE *f = fopen(bvh, "wb");
    if (!f) return 2;
    fputs(bodies[2], f);
    fclose(f);
    if (aiImportFile(bvh, 0)) { fprintf(stderr, "probe: assimp read a bad BVH\n"); return 2; }
    remove(bvh);
    printf("probe: assimp refused it too\n");
    if (argc > 2 && !strcmp(argv[2], "clean")) return 0;
    stance_builtin b;
    stance_graph *g = NULL;
    stance_instance *inst = NULL;
    if (stance_builtin_create(NULL, &b, &err) || stance_builtin_lesson_graph(&b, NULL, &g, &err) ||
        stance_instance_create(g, NULL, &inst, &err)) { fprintf(stderr, "probe: %s\n", err.message); return 2; }
    stance_graph_destroy(g); /* the instance is leaked on purpose */
    stance_builtin_destroy(&b);
    printf("probe: leaked an instance\n");
    return 0;
}
