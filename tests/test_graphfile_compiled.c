/* tests/test_graphfile_compiled.c - compiled graphs: a graph file written
 * into a .stance file (GRPH section) and loaded by the runtime alone.
 *
 * The reference is the graph built from the JSON file: over the lesson's
 * whole script (810 frames at 60 Hz, LESSON.md's inputs) the compiled graph
 * must give bit-identical local and model poses and the same events, for
 * graphs/builtin.json, graphs/robot.json (RobotExpressive) and
 * graphs/robot_footlock.json (the same with an IK stage). Also: hot
 * reload between the two forms, the section's validation (the rows of
 * docs/build.md's layout, a clip index and a state type out of range at
 * the offsets the layout puts them, a count beyond the bytes, truncation,
 * every byte flipped with the checksum mended), and the errors of bad
 * saves. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ws.h"
#include "stance/io.h"
#include "stance/build.h"
#include "stance_lesson/stance_lesson.h"

static const char *source_dir(void) {
    const char *s = getenv("STANCE_SOURCE");
    return s ? s : ".";
}

static int have_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}

/* The asset of a graph file with only the clips its description uses, as
 * `stance compile` writes it. clips must hold a->clip_count pointers. */
static stance_asset used_view(const stance_graphfile *gf, const stance_clip **clips) {
    const stance_asset *a = stance_graphfile_asset(gf);
    const stance_graph_desc *d = stance_graphfile_desc(gf);
    stance_asset v = *a;
    v.clip_count = 0;
    v.clips = (stance_clip **)clips;
    for (int i = 0; i < a->clip_count; i++) {
        int used = 0;
        for (int m = 0; m < d->machine_count; m++)
            for (int s = 0; s < d->machines[m].state_count; s++) {
                const stance_state_desc *sd = &d->machines[m].states[s];
                used |= sd->type == STANCE_MOTION_CLIP && sd->clip == a->clips[i];
                for (int e = 0; sd->type != STANCE_MOTION_CLIP && e < sd->entry_count; e++)
                    used |= sd->entries[e].clip == a->clips[i];
            }
        for (int l = 0; l < d->layer_count; l++) used |= d->layers[l].ref_clip == a->clips[i];
        if (used) clips[v.clip_count++] = a->clips[i];
    }
    return v;
}

static int same_pose(const stance_pose *a, const stance_pose *b) {
    if (a->joint_count != b->joint_count) return 0;
    size_t n = sizeof(float) * (size_t)a->joint_count;
    const float *pa[10] = {a->tx, a->ty, a->tz, a->qx, a->qy, a->qz, a->qw, a->sx, a->sy, a->sz};
    const float *pb[10] = {b->tx, b->ty, b->tz, b->qx, b->qy, b->qz, b->qw, b->sx, b->sy, b->sz};
    for (int i = 0; i < 10; i++)
        if (memcmp(pa[i], pb[i], n)) return 0;
    return 1;
}

/* The lesson's script on both graphs: every frame's poses and events equal. */
static void check_identical(const stance_graph *ga, const stance_graph *gb, const char *what) {
    stance_instance *ia = NULL, *ib = NULL;
    stance_error err;
    CHECK_OK(stance_instance_create(ga, NULL, &ia, &err));
    CHECK_OK(stance_instance_create(gb, NULL, &ib, &err));
    if (!ia || !ib) return;
    int speed = stance_graph_find_param(ga, "speed"), jump = stance_graph_find_param(ga, "jump");
    CHECK(speed >= 0 && jump >= 0);
    CHECK(speed == stance_graph_find_param(gb, "speed") && jump == stance_graph_find_param(gb, "jump"));
    const float dt = 1.0f / 60.0f;
    int differ_at = -1, events = 0;
    for (int f = 0; f < STANCE_SCENARIO_FRAMES && differ_at < 0; f++) {
        float v;
        int pressed;
        stance_scenario_input((float)f * dt, &v, &pressed);
        stance_instance *both[2] = {ia, ib};
        for (int k = 0; k < 2; k++) {
            CHECK_OK(stance_instance_set_float(both[k], speed, v, NULL));
            if (pressed) CHECK_OK(stance_instance_set_trigger(both[k], jump, NULL));
            CHECK_OK(stance_instance_update(both[k], dt, TEST_WS_INST(both[k]), NULL));
        }
        int na, nb;
        const stance_event *ea = stance_instance_events(ia, &na, NULL), *eb = stance_instance_events(ib, &nb, NULL);
        int same = na == nb && same_pose(stance_instance_local_pose(ia), stance_instance_local_pose(ib)) &&
                   same_pose(stance_instance_model_pose(ia), stance_instance_model_pose(ib));
        for (int e = 0; same && e < na; e++)
            same = ea[e].type == eb[e].type && ea[e].state == eb[e].state && ea[e].other == eb[e].other &&
                   ea[e].time == eb[e].time;
        events += na;
        if (!same) differ_at = f;
    }
    if (differ_at >= 0) fprintf(stderr, "%s: the compiled graph differs at frame %d\n", what, differ_at);
    CHECK(differ_at < 0);
    CHECK(events > 0); /* the script switches states: the comparison saw transitions */
    stance_instance_destroy(ia);
    stance_instance_destroy(ib);
}

static void compile_and_compare(const char *graph_path, const char *what) {
    stance_graphfile *gf = NULL;
    stance_error err;
    CHECK_OK(stance_graphfile_load(graph_path, NULL, &gf, &err));
    if (!gf) { fprintf(stderr, "%s\n", err.message); return; }
    const stance_clip **clips = malloc(sizeof *clips * (size_t)(stance_graphfile_asset(gf)->clip_count + 1));
    stance_asset view = used_view(gf, clips);
    void *bytes = NULL;
    size_t size = 0;
    CHECK_OK(stance_asset_save_graph_memory(&view, stance_graphfile_desc(gf), &bytes, &size, NULL, &err));
    stance_asset loaded;
    CHECK_OK(stance_asset_load_memory(bytes, size, NULL, &loaded, &err));
    CHECK(loaded.graph != NULL);
    CHECK(loaded.clip_count == view.clip_count);
    if (loaded.graph) {
        const stance_graph *g = loaded.graph;
        CHECK(stance_graph_state_count(g) == stance_graph_state_count(stance_graphfile_graph(gf)));
        CHECK(stance_graph_layer_count(g) == stance_graph_layer_count(stance_graphfile_graph(gf)));
        CHECK(stance_graph_ik_count(g) == stance_graph_ik_count(stance_graphfile_graph(gf)));
        check_identical(stance_graphfile_graph(gf), g, what);
    }
    stance_asset_destroy(&loaded);
    /* a plain save of the loaded asset keeps no graph */
    stance_asset_free_bytes(bytes, size, NULL);
    free(clips);
    stance_graphfile_destroy(gf);
}

static void test_builtin_identical(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/graphs/builtin.json", source_dir());
    compile_and_compare(path, "builtin.json");
}

static void robot_identical(const char *name) {
    const char *data = getenv("STANCE_DATA");
    char glb[1024], path[1024];
    snprintf(glb, sizeof glb, "%s/robot_expressive/RobotExpressive.glb", data ? data : "../shared/data");
    if (!have_file(glb)) {
        CHECK(getenv("CI") == NULL); /* CI has the data */
        printf("skip %s: %s is missing\n", name, glb);
        return;
    }
    snprintf(path, sizeof path, "%s/graphs/%s", source_dir(), name);
    compile_and_compare(path, name);
}
static void test_robot_identical(void) { robot_identical("robot.json"); }
/* with an IK stage: the footlock entry's joints, thresholds and contacts come through */
static void test_robot_footlock_identical(void) { robot_identical("robot_footlock.json"); }

/* Hot reload takes either form: JSON -> compiled -> JSON, through files. */
static void test_reload_either_form(void) {
    char json[1024], out[1100];
    snprintf(json, sizeof json, "%s/graphs/bullet_waste.json", source_dir());
    snprintf(out, sizeof out, "compiled_reload_%d.stance", (int)(uintptr_t)&out % 9973);
    stance_graphfile *v1 = NULL, *v2 = NULL, *v3 = NULL;
    stance_error err;
    CHECK_OK(stance_graphfile_load(json, NULL, &v1, &err));
    if (!v1) return;
    const stance_clip **clips = malloc(sizeof *clips * (size_t)(stance_graphfile_asset(v1)->clip_count + 1));
    stance_asset view = used_view(v1, clips);
    CHECK_OK(stance_asset_save_graph_file(&view, stance_graphfile_desc(v1), out, &err));
    CHECK_OK(stance_graphfile_load(out, NULL, &v2, &err));
    CHECK(v2 && stance_graphfile_desc(v2) == NULL); /* compiled: no description kept */
    CHECK(v2 && !strcmp(stance_graphfile_name(v2), out));
    stance_controller *ctl = NULL;
    CHECK_OK(stance_controller_create(stance_graphfile_graph(v1), NULL, NULL, &ctl, &err));
    if (!ctl || !v2) goto done;
    const stance_graph *g1 = stance_graphfile_graph(v1), *g2 = stance_graphfile_graph(v2);
    int jump = stance_graph_find_state(g1, "Jump");
    CHECK_OK(stance_controller_set(ctl, jump, &err));
    for (int f = 0; f < 20; f++) CHECK_OK(stance_controller_update(ctl, 1.0f / 60, TEST_WS_CTL(ctl), NULL));
    char report[512];
    CHECK_OK(stance_controller_reload(ctl, g2, report, sizeof report, &err));
    CHECK(report[0] == 0); /* the same graph: nothing dropped */
    CHECK(stance_controller_graph(ctl) == g2);
    CHECK(stance_controller_layer_state(ctl, stance_graph_find_layer(g2, "layer1")) ==
          stance_graph_find_state(g2, "Jump"));
    for (int f = 0; f < 20; f++) CHECK_OK(stance_controller_update(ctl, 1.0f / 60, TEST_WS_CTL(ctl), NULL));
    CHECK_OK(stance_graphfile_load(json, NULL, &v3, &err));
    CHECK_OK(stance_controller_reload(ctl, stance_graphfile_graph(v3), report, sizeof report, &err));
    CHECK(report[0] == 0);
    CHECK_OK(stance_controller_update(ctl, 1.0f / 60, TEST_WS_CTL(ctl), NULL));
    /* an asset option with a compiled graph is an error, as is a .stance with no graph */
    stance_graphfile *bad = NULL;
    stance_graphfile_options opt = {.asset_override = "builtin"};
    CHECK_STATUS(stance_graphfile_load(out, &opt, &bad, &err), STANCE_ERR_ARGUMENT);
    CHECK(bad == NULL && strstr(err.message, "carries its asset"));
    CHECK_OK(stance_asset_save_file(&view, out, &err));
    CHECK_STATUS(stance_graphfile_load(out, NULL, &bad, &err), STANCE_ERR_FORMAT);
    CHECK(bad == NULL && strstr(err.message, "no graph"));
done:
    remove(out);
    stance_controller_destroy(ctl);
    stance_graphfile_destroy(v3);
    stance_graphfile_destroy(v2);
    stance_graphfile_destroy(v1);
    free(clips);
}

/* ---- the section's validation on a small graph built by hand ---------------- */

typedef struct small {
    stance_builtin b;
    stance_asset asset;          /* the builtin's skeleton and its first clip */
    stance_clip *clips[1];
    stance_state_desc state;
    stance_machine_desc machine;
    stance_graph_desc desc;
} small;

static int small_make(small *s) {
    memset(s, 0, sizeof *s);
    if (stance_builtin_create(NULL, &s->b, NULL)) return 0;
    s->clips[0] = s->b.clips[0];
    s->asset.skeleton = s->b.skeleton;
    s->asset.clips = s->clips;
    s->asset.clip_count = 1;
    s->state.name = "S";
    s->state.type = STANCE_MOTION_CLIP;
    s->state.clip = s->clips[0];
    s->machine.name = "M";
    s->machine.state_count = 1;
    s->machine.states = &s->state;
    s->desc.skeleton = s->b.skeleton;
    s->desc.machine_count = 1;
    s->desc.machines = &s->machine;
    return 1;
}

static uint32_t u32_at(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static size_t u64_at(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return (size_t)v;
}
static void put_u64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
/* The GRPH body's offset in a saved file (walking the section heads). */
static size_t grph_body(const unsigned char *bytes, size_t size, size_t *len) {
    size_t at = 32;
    while (at + 16 <= size) {
        size_t n = u64_at(bytes + at + 8);
        if (!memcmp(bytes + at, "GRPH", 4)) { *len = n; return at + 16; }
        at += 16 + n;
    }
    return 0;
}
static void mend_checksum(unsigned char *bytes, size_t size) {
    put_u64(bytes + 16, size - 32);
    put_u64(bytes + 24, stance_asset_checksum(bytes + 32, size - 32));
}

static void test_section_validation(void) {
    small s;
    CHECK(small_make(&s));
    void *saved = NULL;
    size_t size = 0;
    stance_error err;
    CHECK_OK(stance_asset_save_graph_memory(&s.asset, &s.desc, &saved, &size, NULL, &err));
    if (!saved) return;
    unsigned char *bytes = malloc(size);
    size_t len = 0, body = grph_body(saved, size, &len);
    CHECK(body > 0 && body + len == size); /* GRPH is the last section */
    /* the layout of docs/build.md (GRPH format 2): u32 format 2, u32 joints,
     * u32 rows, then each row: tag, u32 count, u32 bytes, its records */
    CHECK(u32_at(saved + body) == 2 && (int)u32_at(saved + body + 4) == s.b.skeleton->joint_count);
    const char *tags[] = {"HEAD", "PARM", "MACH", "DELT", "STAT", "TRAN", "STRN", "ANYT", "COND", "ENTR", "LAYR", "MASK",
                          "REFP", "STEP", "SCAP", "IKEN", "IKCL", "CTCT"};
    const int rows = (int)(sizeof tags / sizeof tags[0]);
    CHECK((int)u32_at(saved + body + 8) == rows);
    size_t at = body + 12, stat = 0, mach = 0;
    for (int i = 0; i < rows && at + 12 <= body + len; i++) {
        CHECK(!memcmp(saved + at, tags[i], 4));
        if (!memcmp(saved + at, "STAT", 4)) stat = at;
        if (!memcmp(saved + at, "MACH", 4)) mach = at;
        at += 12 + u32_at(saved + at + 8);
    }
    CHECK(at == body + len); /* the rows fill the section */
    CHECK(stat && u32_at(saved + stat + 4) == 1 && mach && u32_at(saved + mach + 4) == 1);
    /* the state's record: name[64], i32 machine, i32 type, i32 clip (its index among the file's clips) */
    CHECK(!memcmp(saved + stat + 12, "S", 2) && u32_at(saved + stat + 12 + 68) == 0 && u32_at(saved + stat + 12 + 72) == 0);
    memcpy(bytes, saved, size);
    bytes[stat + 12 + 72] = 99;
    mend_checksum(bytes, size);
    stance_asset a;
    CHECK_STATUS(stance_asset_load_memory(bytes, size, NULL, &a, &err), STANCE_ERR_FORMAT);
    CHECK(strstr(err.message, "graph: state 0 'S': clip 99 is not -1 or 0..0 (the file's clips)") != NULL);
    /* an unknown state type */
    memcpy(bytes, saved, size);
    bytes[stat + 12 + 68] = 7;
    mend_checksum(bytes, size);
    CHECK_STATUS(stance_asset_load_memory(bytes, size, NULL, &a, &err), STANCE_ERR_FORMAT);
    CHECK(strstr(err.message, "graph: state 0 'S': type 7 is not in 0..3") != NULL);
    /* a machine count far beyond the bytes */
    memcpy(bytes, saved, size);
    bytes[mach + 7] = 0x7f;
    mend_checksum(bytes, size);
    CHECK_STATUS(stance_asset_load_memory(bytes, size, NULL, &a, &err), STANCE_ERR_FORMAT);
    CHECK(strstr(err.message, "graph: the machine array has 2130706433 records, more than 64") != NULL);
    /* truncated by 1..len bytes: always an error, never a read past the end */
    for (size_t cut = 1; cut <= len; cut++) {
        memcpy(bytes, saved, size);
        put_u64(bytes + body - 8, len - cut);
        mend_checksum(bytes, size - cut);
        CHECK(stance_asset_load_memory(bytes, size - cut, NULL, &a, &err) != STANCE_OK);
    }
    /* every byte of the body with every bit pattern below flipped: a clean
     * error or a graph, never a crash (ASan runs this too) */
    int loaded = 0, refused = 0;
    const unsigned char flips[] = {0x01, 0x02, 0x10, 0x80, 0xff};
    for (size_t i = 0; i < len; i++)
        for (size_t k = 0; k < sizeof flips; k++) {
            memcpy(bytes, saved, size);
            bytes[body + i] ^= flips[k];
            mend_checksum(bytes, size);
            stance_status st = stance_asset_load_memory(bytes, size, NULL, &a, &err);
            if (st == STANCE_OK) {
                loaded++;
                CHECK(a.graph != NULL);
                stance_asset_destroy(&a);
            } else {
                refused++;
                CHECK(strncmp(err.message, "stance data: graph: ", 20) == 0);
            }
        }
    CHECK(refused > 0 && loaded > 0); /* e.g. a changed speed still loads */
    /* a second GRPH, or one before a clip, is refused */
    unsigned char *two = malloc(size + 16 + len);
    memcpy(two, saved, size);
    memcpy(two + size, saved + body - 16, 16 + len);
    mend_checksum(two, size + 16 + len);
    CHECK_STATUS(stance_asset_load_memory(two, size + 16 + len, NULL, &a, &err), STANCE_ERR_FORMAT);
    CHECK(strstr(err.message, "must be the last") != NULL);
    free(two);
    free(bytes);
    stance_asset_free_bytes(saved, size, NULL);

    /* saving: a clip that is not the asset's, a description on another skeleton */
    void *out = NULL;
    size_t n = 0;
    s.state.clip = s.b.clips[1];
    CHECK_STATUS(stance_asset_save_graph_memory(&s.asset, &s.desc, &out, &n, NULL, &err), STANCE_ERR_ARGUMENT);
    CHECK(strstr(err.message, "not in the asset") != NULL && out == NULL);
    s.state.clip = s.clips[0];
    s.machine.state_count = 0;
    CHECK_STATUS(stance_asset_save_graph_memory(&s.asset, &s.desc, &out, &n, NULL, &err), STANCE_ERR_ARGUMENT);
    stance_builtin_destroy(&s.b);
}

int main(void) {
    RUN(test_builtin_identical);
    RUN(test_robot_identical);
    RUN(test_robot_footlock_identical);
    RUN(test_reload_either_form);
    RUN(test_section_validation);
    return check_summary();
}
