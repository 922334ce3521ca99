/* tests/test_save.c - saved instance states (stance_instance_state_size /
 * _save / _restore, issue 24 item 6): rollback bit for bit, and every
 * refusal.
 *
 * The reference is the instance's own first run: 600 frames of varied
 * inputs (dt, every parameter by its type, triggers, layer fades, IK
 * targets and poles, play requests), saved before frame 300; the run goes
 * on past 600 with other inputs (it diverges), then the state is restored
 * and frames 300..599 re-run with the first run's inputs: the model pose,
 * the events (type, layer, machine, state, other, time, name) and the root
 * motion of every frame are bit for bit the first run's. The same again
 * into a fresh instance with its own workspace. On the lesson's built-in
 * graph and the graph files in graphs/ (the robot's need ../shared/data),
 * with both history options.
 *
 * Refusals, each with its status and message and the instance unchanged
 * byte for byte: another graph's state, another history option, a buffer
 * of the wrong size, a wrong magic, a wrong version (the header hash made
 * to match), a corrupt header, a corrupt body; a save into a buffer too
 * small. Then the mutation sweep: each body word in turn set to NaN, inf,
 * 1e30, -1.0, the int -1 and INT_MAX with both hashes made to match (FNV-1a
 * 64, computed here): restore refuses (the instance unchanged) or accepts,
 * and then updates give finite poses and root motion. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "real_files.h"
#include "graph_files.h"
#include "stance/stance.h"
#include "stance_lesson/lesson.h"

#define FRAMES 600
#define SAVE_AT 300
/* the header's layout (src/core/frame/instance_save.c): version at 4, the
 * body's hash at 64, the header's hash (of bytes 0..71) at 72, the body from 80 */
#define H_VERSION 4
#define H_BODY_HASH 64
#define H_HASH 72
#define H_SIZE 80

static uint64_t fnv(const unsigned char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* makes both hashes match the bytes (a forged but well-formed buffer) */
static void rehash(unsigned char *buf, size_t size) {
    uint64_t b = fnv(buf + H_SIZE, size - H_SIZE);
    memcpy(buf + H_BODY_HASH, &b, 8);
    uint64_t h = fnv(buf, H_HASH);
    memcpy(buf + H_HASH, &h, 8);
}

/* what one frame made: hashes of the model pose, the events and the root motion */
typedef struct frame_out {
    uint64_t pose, events, root;
} frame_out;

static frame_out observe(const stance_instance *inst) {
    frame_out o;
    const stance_pose *p = stance_instance_model_pose(inst);
    uint64_t h = 0xcbf29ce484222325ull;
    const float *ch[10] = {p->tx, p->ty, p->tz, p->qx, p->qy, p->qz, p->qw, p->sx, p->sy, p->sz};
    for (int c = 0; c < 10; c++) h ^= fnv((const unsigned char *)ch[c], sizeof(float) * (size_t)p->joint_count) + (uint64_t)c;
    o.pose = h;
    int n = 0, dropped = 0;
    const stance_event *ev = stance_instance_events(inst, &n, &dropped);
    h = fnv((const unsigned char *)&n, sizeof n) ^ (uint64_t)dropped;
    for (int i = 0; i < n; i++) {
        int f[5] = {(int)ev[i].type, ev[i].layer, ev[i].machine, ev[i].state, ev[i].other};
        h = h * 31 + fnv((const unsigned char *)f, sizeof f);
        h = h * 31 + fnv((const unsigned char *)&ev[i].time, sizeof ev[i].time);
        h = h * 31 + fnv((const unsigned char *)ev[i].name, strlen(ev[i].name));
    }
    o.events = h;
    float rm[3];
    stance_instance_root_motion(inst, rm);
    stance_transform root;
    stance_instance_root(inst, &root);
    o.root = fnv((const unsigned char *)rm, sizeof rm) ^ (fnv((const unsigned char *)&root, sizeof root) * 3);
    return o;
}

static int finite_out(const stance_instance *inst) {
    const stance_pose *p = stance_instance_model_pose(inst);
    const float *ch[10] = {p->tx, p->ty, p->tz, p->qx, p->qy, p->qz, p->qw, p->sx, p->sy, p->sz};
    for (int c = 0; c < 10; c++)
        for (int j = 0; j < p->joint_count; j++)
            if (!isfinite(ch[c][j])) return 0;
    float rm[3];
    stance_instance_root_motion(inst, rm);
    return isfinite(rm[0]) && isfinite(rm[1]) && isfinite(rm[2]);
}

/* The inputs of frame f (variant 0: the run; 1: the divergence), then its update. */
static float drive(stance_instance *inst, const stance_graph *g, int f, int variant) {
    const float t = (float)f / 60.0f + (variant ? 7.3f : 0.0f);
    for (int p = 0; p < stance_graph_param_count(g); p++) {
        switch (stance_graph_param_type(g, p)) {
        case STANCE_PARAM_FLOAT:
            stance_instance_set_float(inst, p, 3.5f + 3.0f * sinf(t * (0.7f + 0.3f * (float)p)), NULL);
            break;
        case STANCE_PARAM_INT:
            stance_instance_set_int(inst, p, (f / 40 + p + variant) % 3, NULL);
            break;
        case STANCE_PARAM_BOOL:
            stance_instance_set_bool(inst, p, ((f / 70 + p + variant) & 1), NULL);
            break;
        case STANCE_PARAM_TRIGGER:
            if ((f + 13 * p + 17 * variant) % 57 == 0) stance_instance_set_trigger(inst, p, NULL);
            break;
        }
    }
    for (int l = 1; l < stance_graph_layer_count(g); l++)
        if ((f + 11 * l) % 90 == 0) stance_instance_set_layer_weight(inst, l, (float)((f / 90 + l + variant) % 3) * 0.5f, 0.4f, NULL);
    for (int i = 0; i < stance_graph_ik_count(g); i++) {
        const int kind = stance_graph_ik_kind(g, i);
        if (kind == STANCE_IK_FOOTLOCK) continue;
        const float tgt[3] = {0.3f * sinf(t), 0.8f + 0.2f * cosf(1.3f * t), 0.4f};
        stance_instance_set_ik_target(inst, i, tgt, 0.5f + 0.5f * sinf(0.5f * t), NULL);
        if (kind == STANCE_IK_TWO_BONE && f % 100 < 50) {
            const float pole[3] = {0.0f, 0.5f, 1.0f};
            stance_instance_set_ik_pole(inst, i, pole, NULL);
        } else if (kind == STANCE_IK_TWO_BONE) {
            stance_instance_set_ik_pole(inst, i, NULL, NULL);
        }
    }
    const int S = stance_graph_state_count(g);
    if (S > 0 && (f + 31 * variant) % 137 == 100)
        stance_instance_play(inst, (f / 137 + variant) % S, (stance_switch_mode)((f / 137) % STANCE_SWITCH_MODE_COUNT),
                             STANCE_EASE_SMOOTHSTEP, 0.2f, NULL);
    return (1.0f + 0.25f * sinf(0.37f * (float)f)) / 60.0f;
}

static int step(stance_instance *inst, const stance_graph *g, stance_workspace *ws, int f, int variant) {
    float dt = drive(inst, g, f, variant);
    stance_error err;
    stance_status s = stance_instance_update(inst, dt, ws, &err);
    if (s) fprintf(stderr, "  frame %d: %s\n", f, err.message);
    return s == STANCE_OK;
}

/* The frames from..to compared with the first run's; 0 when all match. */
static int rerun(stance_instance *inst, const stance_graph *g, stance_workspace *ws, const frame_out *ref, const char *what) {
    int bad = 0;
    for (int f = SAVE_AT; f < FRAMES; f++) {
        if (!step(inst, g, ws, f, 0)) { bad++; break; }
        frame_out o = observe(inst);
        if (memcmp(&o, &ref[f], sizeof o)) {
            if (bad++ < 3)
                fprintf(stderr, "  %s: frame %d differs (pose %d, events %d, root %d)\n", what, f, o.pose != ref[f].pose,
                        o.events != ref[f].events, o.root != ref[f].root);
        }
    }
    return bad;
}

/* A restore that must be refused with `want` and a message holding `says`; the instance unchanged. */
static void refused(stance_instance *inst, const void *buf, size_t size, stance_status want, const char *says,
                    const char *what) {
    const size_t n = stance_instance_bytes(inst);
    unsigned char *before = malloc(n);
    memcpy(before, inst, n);
    stance_error err = {0};
    stance_status s = stance_instance_restore(inst, buf, size, &err);
    if (s != want || !strstr(err.message, says)) {
        fprintf(stderr, "  %s: %s \"%s\", wanted %s and \"%s\"\n", what, stance_status_name(s), err.message,
                stance_status_name(want), says);
        CHECK(0);
    }
    CHECK(memcmp(before, inst, n) == 0);
    free(before);
}

typedef struct sweep_count { long refused, accepted, bad; } sweep_count;

/* Each body word in turn at each hostile value, the hashes made to match. */
static void sweep(stance_instance *inst, const stance_graph *g, stance_workspace *ws, const unsigned char *state,
                  size_t size, sweep_count *sc) {
    const size_t n = stance_instance_bytes(inst);
    unsigned char *before = malloc(n), *buf = malloc(size), *clean = malloc(size);
    memcpy(clean, state, size);
    const float fv[4] = {NAN, INFINITY, 1e30f, -1.0f};
    const int32_t iv[2] = {-1, INT_MAX};
    for (size_t w = H_SIZE; w + 4 <= size; w += 4) {
        for (int k = 0; k < 6; k++) {
            memcpy(buf, clean, size);
            if (k < 4) memcpy(buf + w, &fv[k], 4);
            else memcpy(buf + w, &iv[k - 4], 4);
            if (!memcmp(buf + w, clean + w, 4)) continue; /* the word held that already */
            rehash(buf, size);
            memcpy(before, inst, n);
            stance_error err = {0};
            stance_status s = stance_instance_restore(inst, buf, size, &err);
            if (s) {
                sc->refused++;
                if (getenv("SWEEP_VERBOSE") && k == 3) printf("    word %zu: %s\n", (w - H_SIZE) / 4, err.message);
                if (memcmp(before, inst, n) || !err.message[0]) {
                    if (sc->bad++ < 5) fprintf(stderr, "  sweep word %zu value %d: refused but changed or no message\n", (w - H_SIZE) / 4, k);
                }
                continue;
            }
            sc->accepted++;
            int ok = 1;
            for (int f = 0; f < 3 && ok; f++) ok = step(inst, g, ws, SAVE_AT + f, 0) && finite_out(inst);
            if (!ok && sc->bad++ < 5)
                fprintf(stderr, "  sweep word %zu value %d: accepted, then an update failed or gave a non-finite pose\n",
                        (w - H_SIZE) / 4, k);
            stance_instance_restore(inst, clean, size, NULL); /* back to a known state */
        }
    }
    free(before), free(buf), free(clean);
}

/* One graph and one history option: the round trip, the refusals, the sweep.
 * other_graph: another graph (its instance refuses this graph's state). */
static void round_trip(const stance_graph *g, stance_history history, const char *label, const stance_graph *other_graph,
                       int do_sweep) {
    stance_instance_desc desc = {history};
    stance_instance *inst = NULL, *fresh = NULL, *wrong_hist = NULL, *other = NULL;
    if (other_graph) CHECK_OK(stance_instance_create_ex(other_graph, &desc, NULL, &other, NULL));
    stance_workspace *ws = NULL, *ws2 = NULL;
    CHECK_OK(stance_instance_create_ex(g, &desc, NULL, &inst, NULL));
    CHECK_OK(stance_instance_create_ex(g, &desc, NULL, &fresh, NULL));
    stance_instance_desc other_desc = {history == STANCE_HISTORY_ALL ? STANCE_HISTORY_AUTO : STANCE_HISTORY_ALL};
    CHECK_OK(stance_instance_create_ex(g, &other_desc, NULL, &wrong_hist, NULL));
    CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
    CHECK_OK(stance_workspace_create(g, NULL, &ws2, NULL));
    if (!inst || !fresh || !ws || !ws2 || !wrong_hist) return;
    size_t size = 0;
    CHECK_OK(stance_instance_state_size(g, &desc, &size, NULL));
    CHECK(size > H_SIZE);
    unsigned char *state = malloc(size), *later = malloc(size + 8);
    frame_out *ref = malloc(sizeof(frame_out) * FRAMES);
    int ran = 1;
    for (int f = 0; f < FRAMES && ran; f++) {
        if (f == SAVE_AT) CHECK_OK(stance_instance_save(inst, state, size, NULL));
        ran = step(inst, g, ws, f, 0);
        ref[f] = observe(inst);
    }
    CHECK(ran);
    for (int f = FRAMES; f < FRAMES + 120 && ran; f++) ran = step(inst, g, ws, f, 1); /* diverge */
    frame_out moved = observe(inst);
    CHECK(memcmp(&moved, &ref[FRAMES - 1], sizeof moved) != 0);
    /* rewind: the same instance, then a fresh one with its own workspace */
    CHECK_OK(stance_instance_restore(inst, state, size, NULL));
    const int bad_same = rerun(inst, g, ws, ref, label);
    CHECK(bad_same == 0);
    CHECK_OK(stance_instance_restore(fresh, state, size, NULL));
    const int bad_fresh = rerun(fresh, g, ws2, ref, label);
    CHECK(bad_fresh == 0);
    printf("  %s: %zu bytes, frames %d..%d re-run after a restore %s; into a fresh instance %s\n", label, size, SAVE_AT,
           FRAMES - 1, bad_same ? "DIFFER" : "bit for bit", bad_fresh ? "DIFFER" : "bit for bit");

    /* save: the buffer, the size */
    stance_error err = {0};
    CHECK_STATUS(stance_instance_save(inst, state, size - 1, &err), STANCE_ERR_MEMORY);
    CHECK(strstr(err.message, "stance_instance_state_size") != NULL);
    CHECK_STATUS(stance_instance_save(inst, NULL, size, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_instance_state_size(g, NULL, NULL, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_instance_restore(NULL, state, size, &err), STANCE_ERR_ARGUMENT);
    /* refusals: inst now holds frame 600's state; each leaves it as it is */
    CHECK_OK(stance_instance_save(inst, later, size + 8, NULL)); /* a larger buffer is fine for save */
    if (other) refused(other, state, size, STANCE_ERR_ARGUMENT, "another graph", "another graph's instance");
    refused(wrong_hist, state, size, STANCE_ERR_ARGUMENT, "history", "another history option");
    refused(inst, state, size - 4, STANCE_ERR_FORMAT, "bytes", "4 bytes short");
    refused(inst, later, size + 4, STANCE_ERR_FORMAT, "bytes", "4 bytes long");
    refused(inst, state, 16, STANCE_ERR_FORMAT, "too few", "16 bytes");
    unsigned char *bad = malloc(size);
    memcpy(bad, state, size);
    bad[0] ^= 0x20;
    refused(inst, bad, size, STANCE_ERR_FORMAT, "not a saved instance state", "wrong magic");
    memcpy(bad, state, size);
    bad[H_VERSION] += 1;
    rehash(bad, size);
    refused(inst, bad, size, STANCE_ERR_UNSUPPORTED, "version 3", "version 3");
    memcpy(bad, state, size);
    bad[8] ^= 1; /* the size, the header hash left as it was */
    refused(inst, bad, size, STANCE_ERR_FORMAT, "header is corrupt", "corrupt header");
    memcpy(bad, state, size);
    bad[size / 2 + 1] ^= 0x10;
    refused(inst, bad, size, STANCE_ERR_FORMAT, "body is corrupt", "corrupt body");
    /* a value out of range with matching hashes: the layer 0 weight is the
     * first float after the machines; simpler, the event count word (the
     * instance section's second word) past the queue */
    memcpy(bad, state, size);
    int32_t big = STANCE_EVENT_QUEUE + 1;
    memcpy(bad + H_SIZE + 4, &big, 4);
    rehash(bad, size);
    refused(inst, bad, size, STANCE_ERR_FORMAT, "event count", "event count past the queue");
    /* after all that the instance still holds frame 600's state, bit for bit */
    CHECK_OK(stance_instance_save(inst, bad, size, NULL));
    CHECK(memcmp(bad, later, size) == 0);
    free(bad);

    if (do_sweep) {
        sweep_count sc = {0, 0, 0};
        sweep(inst, g, ws, state, size, &sc);
        CHECK(sc.bad == 0);
        CHECK(sc.refused > 0 && sc.accepted > 0);
        printf("  %s: mutation sweep over %zu words x 6 values: %ld refused (instance unchanged), %ld accepted "
               "(updates finite), %ld wrong\n", label, (size - H_SIZE) / 4, sc.refused, sc.accepted, sc.bad);
    }
    free(state), free(later), free(ref);
    stance_instance_destroy(inst);
    stance_instance_destroy(fresh);
    stance_instance_destroy(wrong_hist);
    stance_instance_destroy(other);
    stance_workspace_destroy(ws);
    stance_workspace_destroy(ws2);
}

static void both_histories(const stance_graph *g, const char *name, const stance_graph *other_graph, int do_sweep) {
    char label[128];
    snprintf(label, sizeof label, "%s, history auto", name);
    round_trip(g, STANCE_HISTORY_AUTO, label, other_graph, do_sweep);
    snprintf(label, sizeof label, "%s, history all", name);
    round_trip(g, STANCE_HISTORY_ALL, label, other_graph, do_sweep);
}

static stance_builtin builtin;
static stance_graph *lesson;

static void test_lesson_graph(void) {
    CHECK_OK(stance_builtin_create(NULL, &builtin, NULL));
    CHECK_OK(stance_builtin_lesson_graph(&builtin, NULL, &lesson, NULL));
    stance_graphfile *gf = load_graph("graphs/builtin_ik.json");
    if (lesson && gf) both_histories(lesson, "the lesson's graph", stance_graphfile_graph(gf), 1);
    stance_graphfile_destroy(gf);
}

/* other: the lesson's graph, or for graphs/builtin.json (the lesson's graph
 * as a file: the same identity) graphs/builtin_ik.json */
static void graph_file(const char *rel, int needs_robot, int do_sweep) {
    if (needs_robot && !data_present("robot_expressive/RobotExpressive.glb", rel)) return;
    stance_graphfile *gf = load_graph(rel), *ik = NULL;
    const stance_graph *other = lesson;
    if (!strcmp(rel, "graphs/builtin.json")) {
        ik = load_graph("graphs/builtin_ik.json");
        other = ik ? stance_graphfile_graph(ik) : NULL;
    }
    if (gf) both_histories(stance_graphfile_graph(gf), rel, other, do_sweep);
    stance_graphfile_destroy(gf);
    stance_graphfile_destroy(ik);
}

static void test_builtin_json(void) { graph_file("graphs/builtin.json", 0, 0); }
static void test_builtin_ik_json(void) { graph_file("graphs/builtin_ik.json", 0, 1); }
static void test_bullet_waste_json(void) { graph_file("graphs/bullet_waste.json", 0, 0); }
static void test_robot_json(void) { graph_file("graphs/robot.json", 1, 0); }
static void test_robot_footlock_json(void) { graph_file("graphs/robot_footlock.json", 1, 1); }

/* The same graph loaded twice: two graph objects of one identity; a state moves between them. */
static void test_same_description(void) {
    stance_graphfile *a = load_graph("graphs/builtin.json"), *b = load_graph("graphs/builtin.json");
    if (!a || !b) { stance_graphfile_destroy(a), stance_graphfile_destroy(b); return; }
    const stance_graph *ga = stance_graphfile_graph(a), *gb = stance_graphfile_graph(b);
    CHECK(ga != gb);
    stance_instance *ia = NULL, *ib = NULL;
    stance_workspace *ws = NULL;
    CHECK_OK(stance_instance_create(ga, NULL, &ia, NULL));
    CHECK_OK(stance_instance_create(gb, NULL, &ib, NULL));
    CHECK_OK(stance_workspace_create(ga, NULL, &ws, NULL));
    size_t size = 0;
    CHECK_OK(stance_instance_state_size(ga, NULL, &size, NULL));
    unsigned char *s = malloc(size);
    for (int f = 0; f < 200; f++) step(ia, ga, ws, f, 0);
    CHECK_OK(stance_instance_save(ia, s, size, NULL));
    CHECK_OK(stance_instance_restore(ib, s, size, NULL));
    int same = 1;
    for (int f = 200; f < 260; f++) {
        step(ia, ga, ws, f, 0), step(ib, gb, ws, f, 0);
        frame_out x = observe(ia), y = observe(ib);
        same &= memcmp(&x, &y, sizeof x) == 0;
    }
    CHECK(same);
    free(s);
    stance_instance_destroy(ia), stance_instance_destroy(ib);
    stance_workspace_destroy(ws);
    stance_graphfile_destroy(a), stance_graphfile_destroy(b);
}

int main(void) {
    RUN(test_lesson_graph);
    RUN(test_builtin_json);
    RUN(test_builtin_ik_json);
    RUN(test_bullet_waste_json);
    RUN(test_robot_json);
    RUN(test_robot_footlock_json);
    RUN(test_same_description);
    stance_graph_destroy(lesson);
    stance_builtin_destroy(&builtin);
    return check_summary();
}
