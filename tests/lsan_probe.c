/* tests/lsan_probe.c - run by tests/test_lsan.sh in the sanitizer build
 * (not a test itself): leaks once inside libassimp (a BVH parse error that
 * assimp itself is given) and, unless given "clean", once through stance's
 * allocator (an instance never destroyed), so the script can check that
 * tests/lsan.supp hides the first and never the second.
 *
 * Why the report cannot depend on chance: LeakSanitizer scans the heap
 * conservatively from its roots (globals, live threads' stacks, registers and
 * TLS), so a leaked pointer left in a dead stack slot or a callee-saved
 * register of the main thread can make a leak look reachable (an earlier form
 * of this probe leaked on the main thread and LSan missed the leak about one
 * run in four). Here each leak happens on a thread of its own that is joined
 * before main returns: every copy of a leaked pointer - in the leaking
 * function's frames, in stance's and assimp's frames below it, in that
 * thread's registers - lived only on that thread, and a joined thread is no
 * longer a root (LSan scans only threads that are running when it stops the
 * world; the dead thread's stack is plain mapped memory, never scanned). The
 * pointers are never written to the heap or to a global, and main's own stack
 * and registers never held them, so no root can reach either block: LSan
 * sees both leaks on every run. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <assimp/cimport.h>

#include "bad_bvh.h"
#include "stance/import.h"
#include "stance/stance.h"
#include "stance_lesson/stance_lesson.h"

typedef struct probe_job {
    const char *bvh; /* scratch file */
    int rc;          /* 0 ok, 2 the probe itself failed */
    char message[256];
} probe_job;

static int write_file(const char *path, const char *body) {
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fputs(body, f);
    return fclose(f) == 0;
}

/* thread 1: stance refuses the bad files; assimp, handed the last one
 * itself, leaks its half-built root node (assimp 5.2: 1,144 bytes, every time) */
static void *leak_in_assimp(void *arg) {
    probe_job *job = arg;
    stance_asset a;
    stance_error err;
    job->rc = 2;
    for (int i = 0; i < BAD_BVH_COUNT; i++) {
        if (!write_file(job->bvh, bad_bvh[i])) return NULL;
        if (stance_import_file(job->bvh, NULL, NULL, &a, &err) == STANCE_OK) {
            snprintf(job->message, sizeof job->message, "a bad BVH imported");
            return NULL;
        }
        remove(job->bvh);
    }
    snprintf(job->message, sizeof job->message, "%s", err.message);
    /* stance's BVH pre-scan refuses the CHANNELS 99 file before assimp sees it */
    if (!write_file(job->bvh, bad_bvh[2])) return NULL;
    if (aiImportFile(job->bvh, 0)) {
        snprintf(job->message, sizeof job->message, "assimp read a bad BVH");
        return NULL;
    }
    remove(job->bvh);
    job->rc = 0;
    return NULL;
}

/* thread 2: an instance made through stance's allocator and never destroyed */
static void *leak_in_stance(void *arg) {
    probe_job *job = arg;
    stance_builtin b;
    stance_graph *g = NULL;
    stance_instance *inst = NULL;
    stance_error err;
    job->rc = 2;
    if (stance_builtin_create(NULL, &b, &err) || stance_builtin_lesson_graph(&b, NULL, &g, &err) ||
        stance_instance_create(g, NULL, &inst, &err)) {
        snprintf(job->message, sizeof job->message, "%s", err.message);
        return NULL;
    }
    stance_graph_destroy(g); /* the instance is leaked on purpose */
    stance_builtin_destroy(&b);
    job->rc = 0;
    return NULL;
}

static int run(void *(*fn)(void *), probe_job *job) {
    pthread_t t;
    if (pthread_create(&t, NULL, fn, job) != 0 || pthread_join(t, NULL) != 0) {
        fprintf(stderr, "probe: no thread\n");
        return 2;
    }
    if (job->rc) fprintf(stderr, "probe: %s\n", job->message);
    return job->rc;
}

int main(int argc, char **argv) {
    probe_job job = {argc > 1 ? argv[1] : "lsan_probe.bvh", 0, ""};
    if (run(leak_in_assimp, &job)) return 2;
    printf("probe: import refused: %s\nprobe: assimp refused it too\n", job.message);
    if (argc > 2 && !strcmp(argv[2], "clean")) return 0;
    if (run(leak_in_stance, &job)) return 2;
    printf("probe: leaked an instance\n");
    return 0;
}
