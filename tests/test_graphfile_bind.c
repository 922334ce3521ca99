/* tests/test_graphfile_bind.c - binding a compiled graph (GRPH format 2):
 * the runtime refuses a hostile file with one line naming what is wrong
 * and never crashes, loops or allocates without bound.
 *
 * graphs/builtin_ik.json (a blend space, transitions, two additive
 * first-frame layers with their delta clips, a masked override, footlock,
 * two_bone and aim entries) is compiled; then single fields are changed at
 * the offsets docs/build.md's layout gives them (the test knows the layout
 * from the document, not from the code), the file's checksum mended, and
 * each load must fail with STANCE_ERR_FORMAT and the message expected:
 * values out of range or not finite, indices beyond their arrays, counts
 * beyond the bytes or not what the others make, the post order, a
 * machine's clip_cap, the transition lists, a missing delta clip, scale caps
 * below the clips', contacts out of range, IK joints out of range or not a
 * chain; a machine tree with a cycle (a small graph built by hand); a huge
 * count (refused before anything near it is allocated); every truncation
 * at a row boundary. The unchanged file loads and plays exactly like the
 * graph built from the description. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ws.h"
#include "stance/build.h"
#include "stance/io.h"
#include "stance_lesson/stance_lesson.h"
#include "core/base/platform.h" /* st_aligned_alloc / st_aligned_free */

/* docs/build.md: bytes of one record per row, and the offsets used below */
enum { REC_MACH = 112, REC_STAT = 148, REC_TRAN = 44, REC_LAYR = 112, REC_IKEN = 344 };
enum { MACH_CLIP_CAP = 100, MACH_PARENT = 84, STAT_MACHINE = 64, STAT_TYPE = 68, STAT_DELTA = 120, STAT_SUB = 104,
       IK_LEG0_UPPER = 72, IK_CHAIN = 196 };

static const char *source_dir(void) {
    const char *s = getenv("STANCE_SOURCE");
    return s ? s : ".";
}

static uint32_t rd32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void wr32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void wrf(unsigned char *p, float f) {
    uint32_t v;
    memcpy(&v, &f, 4);
    wr32(p, v);
}
static uint64_t rd64(const unsigned char *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static void wr64(unsigned char *p, uint64_t v) { wr32(p, (uint32_t)v), wr32(p + 4, (uint32_t)(v >> 32)); }

typedef struct file {
    unsigned char *saved, *work;
    size_t size, body, len; /* the GRPH body and its length */
} file;

static size_t grph(const unsigned char *b, size_t size, size_t *len) {
    size_t at = 32;
    while (at + 16 <= size) {
        const size_t n = (size_t)rd64(b + at + 8);
        if (!memcmp(b + at, "GRPH", 4)) { *len = n; return at + 16; }
        at += 16 + n;
    }
    return 0;
}

/* The payload of row `tag` in the working copy, and its count. */
static unsigned char *row(const file *f, const char *tag, uint32_t *count) {
    size_t at = f->body + 12;
    while (at + 12 <= f->body + f->len) {
        if (!memcmp(f->work + at, tag, 4)) {
            if (count) *count = rd32(f->work + at + 4);
            return f->work + at + 12;
        }
        at += 12 + rd32(f->work + at + 8);
    }
    return NULL;
}

/* Record i of row `tag` whose name (its first 64 bytes) is `name`, or record i. */
static unsigned char *named(const file *f, const char *tag, size_t rec, const char *name) {
    uint32_t n = 0;
    unsigned char *p = row(f, tag, &n);
    for (uint32_t i = 0; p && i < n; i++)
        if (!strcmp((const char *)p + rec * i, name)) return p + rec * i;
    return NULL;
}

static void fresh(file *f) { memcpy(f->work, f->saved, f->size); }

static void refused_(file *f, size_t size, stance_status want, const char *message, int line) {
    wr64(f->work + 16, size - 32);
    wr64(f->work + 24, stance_asset_checksum(f->work + 32, size - 32));
    stance_asset a;
    stance_error err = {STANCE_OK, ""};
    const stance_status s = stance_asset_load_memory(f->work, size, NULL, &a, &err);
    if (s != want || !strstr(err.message, message)) {
        check_failures_++;
        fprintf(stderr, "%s:%d: got %s '%s', wanted %s with '%s'\n", __FILE__, line, stance_status_name(s), err.message,
                stance_status_name(want), message);
    }
    if (!s) stance_asset_destroy(&a);
    CHECK(!strchr(err.message, '\n'));
}
#define REFUSED(f, msg) refused_(f, (f)->size, STANCE_ERR_FORMAT, msg, __LINE__)

static int compile(const char *graph, stance_graphfile **gf, file *f) {
    char path[1024];
    snprintf(path, sizeof path, "%s/graphs/%s", source_dir(), graph);
    stance_error err;
    memset(f, 0, sizeof *f);
    CHECK_OK(stance_graphfile_load(path, NULL, gf, &err));
    if (!*gf) return 0;
    void *bytes = NULL;
    CHECK_OK(stance_asset_save_graph_memory(stance_graphfile_asset(*gf), stance_graphfile_desc(*gf), &bytes, &f->size, NULL, &err));
    if (!bytes) return 0;
    f->saved = bytes;
    f->work = malloc(f->size);
    f->body = grph(f->saved, f->size, &f->len);
    fresh(f);
    return f->body > 0;
}
static void release(file *f, stance_graphfile *gf) {
    stance_asset_free_bytes(f->saved, f->size, NULL);
    free(f->work);
    stance_graphfile_destroy(gf);
}

/* The unchanged file: loads, and plays as the graph built from its description. */
static void test_intact(void) {
    stance_graphfile *gf = NULL;
    file f;
    if (!compile("builtin_ik.json", &gf, &f)) return;
    stance_asset a;
    stance_error err;
    CHECK_OK(stance_asset_load_memory(f.saved, f.size, NULL, &a, &err));
    const stance_graph *g = a.graph, *ref = stance_graphfile_graph(gf);
    CHECK(g && stance_graph_ik_count(g) == 3 && stance_graph_layer_count(g) == 4);
    stance_instance *ia = NULL, *ib = NULL;
    if (g) CHECK_OK(stance_instance_create(g, NULL, &ia, &err));
    CHECK_OK(stance_instance_create(ref, NULL, &ib, &err));
    const float target[3] = {0.3f, 1.2f, 0.4f};
    int same = ia && ib;
    for (int k = 0; same && k < 2; k++) {
        stance_instance *in = k ? ib : ia;
        CHECK_OK(stance_instance_set_float_by_name(in, "speed", 2.0f, &err));
        CHECK_OK(stance_instance_set_ik_target(in, stance_graph_find_ik(k ? ref : g, "look"), target, 1.0f, &err));
    }
    for (int i = 0; same && i < 240; i++) {
        CHECK_OK(stance_instance_update(ia, 1.0f / 60, TEST_WS_INST(ia), NULL));
        CHECK_OK(stance_instance_update(ib, 1.0f / 60, TEST_WS_INST(ib), NULL));
        const stance_pose *pa = stance_instance_model_pose(ia), *pb = stance_instance_model_pose(ib);
        same = !memcmp(pa->memory, pb->memory, stance_pose_bytes(pa->joint_count));
    }
    CHECK(same);
    stance_instance_destroy(ia), stance_instance_destroy(ib);
    stance_asset_destroy(&a);
    release(&f, gf);
}

static void test_fields(void) {
    stance_graphfile *gf = NULL;
    file f;
    if (!compile("builtin_ik.json", &gf, &f)) return;
    unsigned char *p;
    /* a value not finite, and one out of its range */
    fresh(&f), wrf(row(&f, "HEAD", NULL), NAN);
    REFUSED(&f, "graph: head: default_blend_time nan is not finite and in [0, 60]");
    fresh(&f), p = row(&f, "MASK", NULL), wrf(p + 4 * 9, 2.0f);
    REFUSED(&f, "graph: mask weight 9: weight 2 is not in [0, 1]");
    /* an index beyond its array */
    fresh(&f), p = named(&f, "STAT", REC_STAT, "Jump"), wr32(p + STAT_MACHINE, 9);
    REFUSED(&f, "graph: state 2 'Jump': machine 9 is not 0..3 (the graph's machines)");
    fresh(&f), p = named(&f, "STAT", REC_STAT, "Jump"), wr32(p + STAT_TYPE, 7);
    REFUSED(&f, "graph: state 2 'Jump': type 7 is not in 0..3");
    /* what a machine samples: Locomotion's blend space plays more clips than one cursor */
    fresh(&f), p = named(&f, "MACH", REC_MACH, "Locomotion"), wr32(p + MACH_CLIP_CAP, 1);
    REFUSED(&f, "graph: machine 'Locomotion': clip_cap 1, one of its states samples");
    /* the frame's program: its first step's machine is another's */
    fresh(&f), p = row(&f, "STEP", NULL), wr32(p, 1);
    REFUSED(&f, "graph: program step 0 does not match the layers' machine trees (machine 1, its tree says 0)");
    /* an IK entry's local-to-model range */
    fresh(&f), p = named(&f, "IKEN", REC_IKEN, "look"), wr32(p + REC_IKEN - 8, 0);
    REFUSED(&f, "graph: ik 'look': its local-to-model range 0..");
    /* the transition lists: a state's first transition swapped for another */
    uint32_t n = 0;
    fresh(&f), p = row(&f, "STRN", &n);
    CHECK(n >= 2);
    if (n >= 2) {
        const uint32_t t0 = rd32(p), t1 = rd32(p + 4);
        wr32(p, t1), wr32(p + 4, t0);
        REFUSED(&f, "its transitions are not the ones from it in order");
    }
    /* an additive first-frame layer's state without its delta clip */
    fresh(&f), p = named(&f, "STAT", REC_STAT, "Breathe"), wr32(p + STAT_DELTA, 0xffffffffu);
    REFUSED(&f, "graph: state 'Breathing/Breathe': its delta clip is missing");
    /* a scale cap below what the clips give */
    fresh(&f), p = row(&f, "SCAP", NULL), wrf(p + 4 * 3, 1e-6f);
    REFUSED(&f, "graph: joint 3: scale caps");
    /* IK: a joint out of range, an aim chain that is not one (end first) */
    fresh(&f), p = named(&f, "IKEN", REC_IKEN, "feet"), wr32(p + IK_LEG0_UPPER, 999);
    REFUSED(&f, "graph: ik entry 0 'feet': fd.legs[0].upper 999 is not 0..22 (the graph's joints)");
    fresh(&f), p = named(&f, "IKEN", REC_IKEN, "look");
    if (p) {
        const uint32_t c0 = rd32(p + IK_CHAIN), c1 = rd32(p + IK_CHAIN + 4);
        wr32(p + IK_CHAIN, c1), wr32(p + IK_CHAIN + 4, c0);
        REFUSED(&f, "graph: ik 'look': ");
    }
    /* contacts: a sample neither 0 nor 1, a height that is not finite (the first slot is the first clip's, footlock) */
    fresh(&f), p = row(&f, "CTCT", &n);
    CHECK(p && rd32(p) == 1);
    if (p && rd32(p) == 1) {
        const uint32_t feet = rd32(p + 4), samples = rd32(p + 4 + 28);
        CHECK(feet == 2 && samples > 10);
        p[4 + 52 + 5] = 2;
        REFUSED(&f, "graph: ik 'feet': clip ");
        fresh(&f), p = row(&f, "CTCT", NULL);
        wrf(p + 4 + 52 + feet * samples + 4 * 7, INFINITY);
        REFUSED(&f, "is not 0 or 1, or its height is not finite");
    }
    /* counts: one the others make (the masks: layers x padded joints), one far beyond the bytes */
    fresh(&f), p = row(&f, "MASK", NULL), wr32(p - 8, rd32(p - 8) - 1), wr32(p - 4, rd32(p - 4) - 4);
    memmove(p + rd32(p - 4), p + rd32(p - 4) + 4, (size_t)(f.work + f.size - (p + rd32(p - 4) + 4)));
    wr64(f.work + f.body - 8, f.len - 4);
    refused_(&f, f.size - 4, STANCE_ERR_FORMAT, "graph: the mask weight array has 95 records, the graph's counts make 96", __LINE__);
    fresh(&f), p = row(&f, "STAT", NULL), wr32(p - 8, 0xffffffffu);
    REFUSED(&f, "graph: the state array has 4294967295 records, more than 1024");
    fresh(&f), p = row(&f, "TRAN", NULL), wr32(p - 8, 100000);
    REFUSED(&f, "graph: the transition array's 100000 records take 4400000 bytes, it has");
    /* the form: another format, arrays out of order */
    fresh(&f), wr32(f.work + f.body, 3);
    refused_(&f, f.size, STANCE_ERR_UNSUPPORTED, "graph: section format 3, this build binds 2", __LINE__);
    fresh(&f), memcpy(row(&f, "COND", NULL) - 12, "XXXX", 4);
    REFUSED(&f, "graph: array 8 is not 'COND'");
    /* truncated at every row boundary (and one byte inside each): always refused */
    size_t at = f.body + 12;
    while (at + 12 <= f.body + f.len) {
        for (int in = 0; in < 2; in++) {
            fresh(&f);
            const size_t cut = f.body + f.len - (at + (size_t)in);
            wr64(f.work + f.body - 8, f.len - cut);
            refused_(&f, f.size - cut, STANCE_ERR_FORMAT, "graph: ", __LINE__);
        }
        at += 12 + rd32(f.saved + at + 8);
    }
    release(&f, gf);
}

/* A huge count is refused before anything near its size is allocated. */
typedef struct counter {
    size_t peak, live;
} counter;
static void *c_alloc(void *u, size_t size, size_t align) {
    counter *c = u;
    if (align < sizeof(void *)) align = sizeof(void *);
    void *p = st_aligned_alloc(align, (size + align) / align * align);
    if (!p) return NULL;
    c->live += size;
    if (c->live > c->peak) c->peak = c->live;
    return p;
}
static void c_free(void *u, void *p, size_t size) {
    ((counter *)u)->live -= size;
    st_aligned_free(p);
}
static void test_bounded(void) {
    stance_graphfile *gf = NULL;
    file f;
    if (!compile("builtin_ik.json", &gf, &f)) return;
    const char *tags[] = {"PARM", "MACH", "DELT", "STAT", "TRAN", "STRN", "COND", "ENTR", "LAYR", "REFP", "IKEN", "IKCL", "CTCT"};
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
        fresh(&f);
        unsigned char *p = row(&f, tags[i], NULL);
        wr32(p - 8, rd32(p - 8) + 1000); /* more records than the bytes hold, or than the row allows */
        wr64(f.work + 16, f.size - 32);
        wr64(f.work + 24, stance_asset_checksum(f.work + 32, f.size - 32));
        counter c = {0, 0};
        const stance_allocator al = {c_alloc, c_free, &c};
        stance_asset a;
        stance_error err;
        CHECK_STATUS(stance_asset_load_memory(f.work, f.size, &al, &a, &err), STANCE_ERR_FORMAT);
        CHECK(c.live == 0);
        if (c.peak > 4 * f.size) fprintf(stderr, "%s: peak %zu for a file of %zu\n", tags[i], c.peak, f.size);
        CHECK(c.peak <= 4 * f.size); /* the clips and skins it loaded before the graph, no more */
    }
    release(&f, gf);
}

/* A machine tree with a cycle: N1 nests N2 and N2 nests N1 (neither runs on a layer). */
static void test_cycle(void) {
    stance_builtin b;
    stance_error err;
    CHECK_OK(stance_builtin_create(NULL, &b, &err));
    const stance_state_desc s0 = {.name = "Idle", .clip = b.clips[0]}, s1 = {.name = "One", .clip = b.clips[1]},
                            s2 = {.name = "Two", .clip = b.clips[1]};
    const stance_machine_desc m[3] = {{.name = "Base", .state_count = 1, .states = &s0},
                                      {.name = "N1", .state_count = 1, .states = &s1},
                                      {.name = "N2", .state_count = 1, .states = &s2}};
    const stance_graph_desc d = {.skeleton = b.skeleton, .machine_count = 3, .machines = m};
    stance_asset asset = {.skeleton = b.skeleton, .clip_count = b.clip_count, .clips = b.clips};
    file f = {0};
    void *bytes = NULL;
    CHECK_OK(stance_asset_save_graph_memory(&asset, &d, &bytes, &f.size, NULL, &err));
    if (bytes) {
        f.saved = bytes, f.work = malloc(f.size), f.body = grph(f.saved, f.size, &f.len);
        fresh(&f);
        unsigned char *one = named(&f, "STAT", REC_STAT, "One"), *two = named(&f, "STAT", REC_STAT, "Two");
        unsigned char *n1 = named(&f, "MACH", REC_MACH, "N1"), *n2 = named(&f, "MACH", REC_MACH, "N2");
        CHECK(one && two && n1 && n2);
        if (one && two && n1 && n2) {
            wr32(one + STAT_TYPE, 3), wr32(one + 72, 0xffffffffu), wr32(one + STAT_SUB, 2); /* a machine state, no clip */
            wr32(two + STAT_TYPE, 3), wr32(two + 72, 0xffffffffu), wr32(two + STAT_SUB, 1);
            wr32(n1 + MACH_PARENT, 2), wr32(n2 + MACH_PARENT, 1);
            REFUSED(&f, "graph: machine 'N1': nested deeper than 4 (or in a cycle)");
        }
        stance_asset_free_bytes(f.saved, f.size, NULL);
        free(f.work);
    }
    stance_builtin_destroy(&b);
}

int main(void) {
    RUN(test_intact);
    RUN(test_fields);
    RUN(test_bounded);
    RUN(test_cycle);
    return check_summary();
}
