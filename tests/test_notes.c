/* tests/test_notes.c - clip notes (issue 26): events a graph authors for a
 * clip, with payloads, and windows, at run time.
 *
 * Counts: every playback case (a loop at small steps, steps spanning
 * several events, steps spanning several cycles with the queue overflowing,
 * playing backwards, a once clip, a restart mid-clip) against counts the
 * test computes from the unwrapped playback time (the number of n with
 * e + n D inside the span); the per-event weight threshold through a
 * linear crossfade; a blend space's dominant entry. Windows: begin and end
 * always in pairs over 10,000 random sequences of plays, switch modes,
 * rates, layer disables, seeks, saves and restores and resets (seeded).
 * Seeks (stance_instance_seek): counts over a seek against the crossings of
 * the span before it and the span from the new position, the windows it
 * ends and begins, a once state, a blend space, the pose, refusals. Payloads:
 * graphs/robot_events.json on RobotExpressive, JSON -> compiled .stance ->
 * an instance's events, bit for bit against the values the test reads from
 * the file itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "real_files.h"
#include "graph_files.h"
#include "ws.h"
#include "stance/io.h"
#include "stance/build.h"

/* ---- a two-joint skeleton and clips of given durations ------------------------ */

typedef struct rig {
    stance_skeleton *sk;
    stance_clip *loop, *loop2, *once;
} rig;

static stance_clip *make_clip(const stance_skeleton *sk, const char *name, float D, const stance_event_desc *ev, int ne) {
    const float times[2] = {0.0f, D};
    const float rot[8] = {0, 0, 0, 1, 0, 0.3826834f, 0, 0.9238795f};
    stance_track_desc tr = {1, STANCE_CHANNEL_ROTATION, 2, times, rot};
    stance_clip_desc d;
    memset(&d, 0, sizeof d);
    d.name = name, d.duration = D, d.track_count = 1, d.tracks = &tr, d.event_count = ne, d.events = ev;
    stance_clip *c = NULL;
    stance_error err;
    CHECK_OK(stance_clip_create(&d, sk, NULL, &c, &err));
    return c;
}

static void rig_make(rig *r) {
    const int parents[2] = {-1, 0};
    stance_skeleton_desc sd = {2, NULL, parents, NULL};
    stance_error err;
    CHECK_OK(stance_skeleton_create(&sd, NULL, &r->sk, &err));
    const stance_event_desc own[1] = {{"own0", 0.0f}}; /* the clip's own event, at its start */
    r->loop = make_clip(r->sk, "L", 1.0f, own, 1);
    r->loop2 = make_clip(r->sk, "L2", 1.0f, NULL, 0);
    r->once = make_clip(r->sk, "O", 0.5f, NULL, 0);
}

static void rig_free(rig *r) {
    stance_clip_destroy(r->loop), stance_clip_destroy(r->loop2), stance_clip_destroy(r->once);
    stance_skeleton_destroy(r->sk);
}

/* L: own0 at 0, "a" at 0.31 (int 7), "b" at 0.79 (float 2.5, "gravel"); window "w" 0.4..0.8 and "all" 0..1.
 * L2: "light" at 0.2, "heavy" at 0.2 and 0.7 with min_weight 0.5; window "v" 0.1..0.3.
 * O (once, 0.5 s): "o1" at 0.1, "oend" at 0.5; window "ow" 0.2..0.5. */
static stance_notify_desc ev_l[2], ev_l2[3], ev_o[2];
static const stance_window_desc win_l[2] = {{"w", 0.4f, 0.8f, 0.0f}, {"all", 0.0f, 1.0f, 0.0f}};
static const stance_window_desc win_l2[1] = {{"v", 0.1f, 0.3f, 0.0f}};
static const stance_window_desc win_o[1] = {{"ow", 0.2f, 0.5f, 0.0f}};

static void notes_fill(const rig *r, stance_clip_notes_desc nd[3]) {
    memset(ev_l, 0, sizeof ev_l), memset(ev_l2, 0, sizeof ev_l2), memset(ev_o, 0, sizeof ev_o);
    ev_l[0].name = "a", ev_l[0].time = 0.31f, ev_l[0].payload.flags = STANCE_PAYLOAD_INT, ev_l[0].payload.i = 7;
    ev_l[1].name = "b", ev_l[1].time = 0.79f, ev_l[1].payload.flags = STANCE_PAYLOAD_FLOAT | STANCE_PAYLOAD_STRING;
    ev_l[1].payload.f = 2.5f;
    strcpy(ev_l[1].payload.s, "gravel");
    ev_l2[0].name = "light", ev_l2[0].time = 0.2f;
    ev_l2[1].name = "heavy", ev_l2[1].time = 0.2f, ev_l2[1].min_weight = 0.5f;
    ev_l2[2].name = "heavy", ev_l2[2].time = 0.7f, ev_l2[2].min_weight = 0.5f;
    ev_o[0].name = "o1", ev_o[0].time = 0.1f;
    ev_o[1].name = "oend", ev_o[1].time = 0.5f;
    memset(nd, 0, sizeof(stance_clip_notes_desc) * 3);
    nd[0] = (stance_clip_notes_desc){r->loop, 2, ev_l, 2, win_l};
    nd[1] = (stance_clip_notes_desc){r->loop2, 3, ev_l2, 1, win_l2};
    nd[2] = (stance_clip_notes_desc){r->once, 2, ev_o, 1, win_o};
}

/* Blend's events: STANCE_BLEND_EVENTS_DOMINANT (the default) or _ALL */
static int blend_mode;

/* Machine "M": Loop (L at speed param "rate"), Loop2 (L2), Once (O), Blend (L at x 0, L2 at x 1, its
 * events blend_mode's); machine "W" (layer 1): Wl (L). */
static stance_graph *make_graph(const rig *r) {
    static stance_param_desc params[2];
    params[0] = (stance_param_desc){"rate", STANCE_PARAM_FLOAT, 1.0f, 0.0f};
    params[1] = (stance_param_desc){"x", STANCE_PARAM_FLOAT, 0.0f, 0.0f};
    static stance_blend_entry_desc entries[2];
    entries[0] = (stance_blend_entry_desc){r->loop, 0.0f, 0.0f};
    entries[1] = (stance_blend_entry_desc){r->loop2, 1.0f, 0.0f};
    static stance_state_desc states[4], wstates[1];
    memset(states, 0, sizeof states), memset(wstates, 0, sizeof wstates);
    states[0].name = "Loop", states[0].type = STANCE_MOTION_CLIP, states[0].clip = r->loop, states[0].speed_param = "rate";
    states[1].name = "Loop2", states[1].type = STANCE_MOTION_CLIP, states[1].clip = r->loop2;
    states[2].name = "Once", states[2].type = STANCE_MOTION_CLIP, states[2].clip = r->once, states[2].once = 1;
    states[3].name = "Blend", states[3].type = STANCE_MOTION_BLEND1D, states[3].entry_count = 2, states[3].entries = entries;
    states[3].param_x = "x", states[3].blend_events = blend_mode;
    wstates[0].name = "Wl", wstates[0].type = STANCE_MOTION_CLIP, wstates[0].clip = r->loop;
    static stance_machine_desc machines[2];
    memset(machines, 0, sizeof machines);
    machines[0].name = "M", machines[0].state_count = 4, machines[0].states = states;
    machines[1].name = "W", machines[1].state_count = 1, machines[1].states = wstates;
    static stance_layer_desc layers[2];
    memset(layers, 0, sizeof layers);
    layers[0].name = "base", layers[0].machine = "M", layers[0].weight = 1.0f;
    layers[1].name = "top", layers[1].machine = "W", layers[1].weight = 0.5f;
    static stance_clip_notes_desc nd[3];
    notes_fill(r, nd);
    stance_graph_desc gd;
    memset(&gd, 0, sizeof gd);
    gd.skeleton = r->sk, gd.param_count = 2, gd.params = params, gd.machine_count = 2, gd.machines = machines;
    gd.layer_count = 2, gd.layers = layers, gd.clip_notes_count = 3, gd.clip_notes = nd;
    stance_graph *g = NULL;
    stance_error err;
    CHECK_OK(stance_graph_create(&gd, NULL, &g, &err));
    if (!g) fprintf(stderr, "graph: %s\n", err.message);
    return g;
}

/* ---- counts the test computes ------------------------------------------------------ */

/* Crossings of a point at e (0 <= e < D) by playback over the unwrapped
 * span from 0 by T (either sign): forward e + nD in [0, T); backward in
 * (T, 0] for e > 0, [T, 0) for e = 0 (stance/clip.h's rule). */
static long crossings(double e, double D, double T) {
    long n = 0;
    for (long k = -100000; k <= 100000; k++) {
        const double g = e + (double)k * D;
        if (T >= 0.0 ? (g >= 0.0 && g < T) : e > 0.0 ? (g > T && g <= 0.0) : (g >= T && g < 0.0)) n++;
        if (g > fabs(T) + D) break;
    }
    return n;
}

typedef struct tally {
    long marker[8];     /* by name below */
    long begin[4], end[4];
    int dropped;
} tally;

static const char *const marker_names[8] = {"own0", "a", "b", "light", "heavy", "o1", "oend", NULL};
static const char *const window_names[4] = {"w", "all", "v", "ow"};

static int name_at(const char *const *t, int n, const char *name) {
    for (int i = 0; i < n && t[i]; i++)
        if (!strcmp(t[i], name)) return i;
    return -1;
}

static void tally_events(const stance_instance *inst, tally *t, int machine) {
    int n = 0, dropped = 0;
    const stance_event *ev = stance_instance_events(inst, &n, &dropped);
    t->dropped += dropped;
    for (int i = 0; i < n; i++) {
        if (ev[i].machine != machine) continue;
        if (ev[i].type == STANCE_EVENT_CLIP_MARKER) {
            int k = name_at(marker_names, 8, ev[i].name);
            CHECK(k >= 0);
            if (k >= 0) t->marker[k]++;
        } else if (ev[i].type == STANCE_EVENT_WINDOW_BEGIN || ev[i].type == STANCE_EVENT_WINDOW_END) {
            int k = name_at(window_names, 4, ev[i].name);
            CHECK(k >= 0);
            if (k >= 0) (ev[i].type == STANCE_EVENT_WINDOW_BEGIN ? t->begin : t->end)[k]++;
        }
    }
}

/* Plays state Loop at `rate` for `frames` updates of dt; the tallies of machine M. */
static void run_loop(const stance_graph *g, float rate, float dt, int frames, tally *t) {
    stance_instance *inst = NULL;
    stance_error err;
    memset(t, 0, sizeof *t);
    CHECK_OK(stance_instance_create(g, NULL, &inst, &err));
    if (!inst) return;
    stance_instance_set_float_by_name(inst, "rate", rate, &err);
    stance_instance_set_layer_enabled(inst, 1, 0, &err);
    for (int f = 0; f < frames; f++) {
        CHECK_OK(stance_instance_update(inst, dt, TEST_WS_INST(inst), &err));
        tally_events(inst, t, 0);
    }
    stance_instance_destroy(inst);
}

static void check_loop_counts(const stance_graph *g, float rate, float dt, int frames, int overflow) {
    tally t;
    run_loop(g, rate, dt, frames, &t);
    const double T = (double)rate * (double)dt * frames;
    const long own0 = crossings(0.0, 1.0, T), a = crossings(0.31, 1.0, T), b = crossings(0.79, 1.0, T);
    /* "w" 0.4..0.8 begins crossing 0.4 forward (0.8 backward), ends crossing the other; "all" is open throughout */
    const long wb = T >= 0 ? crossings(0.4, 1.0, T) : crossings(0.8, 1.0, T);
    const long we = T >= 0 ? crossings(0.8, 1.0, T) : crossings(0.4, 1.0, T);
    if (!overflow) {
        CHECK(t.dropped == 0);
        CHECK(t.marker[0] == own0);
        CHECK(t.marker[1] == a);
        CHECK(t.marker[2] == b);
        CHECK(t.begin[0] == wb);
        CHECK(t.end[0] == we);
        CHECK(t.begin[1] == 1 && t.end[1] == 0); /* the whole-cycle window stays open across every wrap */
        if (t.marker[1] != a || t.begin[0] != wb || t.end[0] != we)
            fprintf(stderr, "  rate %g dt %g frames %d: a %ld/%ld w %ld/%ld %ld/%ld\n", (double)rate, (double)dt, frames,
                    t.marker[1], a, t.begin[0], wb, t.end[0], we);
    } else { /* what the queue missed is counted: recorded + dropped = crossed */
        const long recorded = t.marker[0] + t.marker[1] + t.marker[2] + t.begin[0] + t.end[0] + t.begin[1];
        CHECK(t.dropped > 0);
        CHECK(recorded + t.dropped == own0 + a + b + wb + we + 1);
        if (recorded + t.dropped != own0 + a + b + wb + we + 1)
            fprintf(stderr, "  overflow: recorded %ld + dropped %d, crossed %ld\n", recorded, t.dropped, own0 + a + b + wb + we + 1);
    }
}

static void test_playback_counts(void) {
    rig r;
    rig_make(&r);
    stance_graph *g = make_graph(&r);
    if (g) {
        check_loop_counts(g, 1.0f, 1.0f / 60.0f, 611, 0);   /* small steps, ten cycles */
        check_loop_counts(g, 1.0f, 0.9f, 47, 0);            /* each step spans several events */
        check_loop_counts(g, 2.3f, 1.0f, 9, 0);             /* each step spans two cycles and more */
        check_loop_counts(g, -1.0f, 1.0f / 60.0f, 611, 0);  /* backwards */
        check_loop_counts(g, -2.3f, 0.9f, 11, 0);           /* backwards over several cycles a step */
        check_loop_counts(g, 9.3f, 1.0f, 3, 1);             /* nine cycles a step: the queue overflows, reported */
    }
    stance_graph_destroy(g);
    rig_free(&r);
}

/* A rig, its graph and an instance with layer 1 off. */
typedef struct fixture {
    rig r;
    stance_graph *g;
    stance_instance *inst;
} fixture;

static int fixture_open(fixture *fx) {
    stance_error err;
    memset(fx, 0, sizeof *fx);
    rig_make(&fx->r);
    fx->g = make_graph(&fx->r);
    if (fx->g) CHECK_OK(stance_instance_create(fx->g, NULL, &fx->inst, &err));
    if (fx->inst) stance_instance_set_layer_enabled(fx->inst, 1, 0, &err);
    return fx->inst != NULL;
}

static void fixture_close(fixture *fx) {
    stance_instance_destroy(fx->inst);
    stance_graph_destroy(fx->g);
    rig_free(&fx->r);
}

/* n updates of 1/60 s (a play of `state` before update play_at, -1 none):
 * machine M's tallies from zero, its window ends by reason, its finishes. */
static void run_frames(fixture *fx, int n, int play_at, int state, tally *t, int reasons[3], int *finished) {
    stance_error err;
    memset(t, 0, sizeof *t);
    reasons[0] = reasons[1] = reasons[2] = 0, *finished = 0;
    for (int f = 0; f < n; f++) {
        if (f == play_at) CHECK_OK(stance_instance_play(fx->inst, state, STANCE_SWITCH_CUT, STANCE_EASE_LINEAR, 0.0f, &err));
        CHECK_OK(stance_instance_update(fx->inst, 1.0f / 60.0f, TEST_WS_INST(fx->inst), &err));
        tally_events(fx->inst, t, 0);
        int k;
        const stance_event *ev = stance_instance_events(fx->inst, &k, NULL);
        for (int i = 0; i < k; i++) {
            if (ev[i].machine != 0) continue;
            *finished += ev[i].type == STANCE_EVENT_CLIP_FINISHED;
            if (ev[i].type == STANCE_EVENT_WINDOW_END) reasons[ev[i].reason]++;
        }
    }
}

/* A once clip: each event once, its window begins and ends (finished) once;
 * a restart mid-clip (a play of the state itself) ends the windows
 * (interrupted) and crosses everything again from 0. */
static void test_once_and_restart(void) {
    fixture fx;
    stance_error err;
    if (fixture_open(&fx)) {
        const int once = stance_graph_find_state(fx.g, "Once"), loop = stance_graph_find_state(fx.g, "Loop");
        tally t;
        int reasons[3], finished;
        run_frames(&fx, 90, 0, once, &t, reasons, &finished);
        CHECK(t.marker[5] == 1 && t.marker[6] == 1 && finished == 1);
        CHECK(t.begin[3] == 1 && t.end[3] == 1 && reasons[STANCE_WINDOW_FINISHED] == 1);
        /* Loop for 0.5 s (frames 0..29: "w" opened at 0.4), then restarted: */
        CHECK_OK(stance_instance_play(fx.inst, loop, STANCE_SWITCH_CUT, STANCE_EASE_LINEAR, 0.0f, &err));
        run_frames(&fx, 30 + 50, 30, loop, &t, reasons, &finished);
        const double T1 = 30.0 / 60.0, T2 = 50.0 / 60.0;
        CHECK(t.marker[0] == crossings(0.0, 1.0, T1) + crossings(0.0, 1.0, T2));
        CHECK(t.marker[1] == crossings(0.31, 1.0, T1) + crossings(0.31, 1.0, T2));
        CHECK(t.marker[2] == crossings(0.79, 1.0, T1) + crossings(0.79, 1.0, T2));
        CHECK(t.begin[0] == crossings(0.4, 1.0, T1) + crossings(0.4, 1.0, T2));
        CHECK(t.end[0] == 1 + crossings(0.8, 1.0, T2));      /* interrupted once, then its own end */
        CHECK(reasons[STANCE_WINDOW_INTERRUPTED] == 2);      /* "w" and "all" at the restart */
        /* reset: the open windows end with reason reset, in the queue until the next update */
        CHECK_OK(stance_instance_reset(fx.inst, &err));
        int n = 0;
        const stance_event *ev = stance_instance_events(fx.inst, &n, NULL);
        int resets = 0;
        for (int i = 0; i < n; i++) resets += ev[i].type == STANCE_EVENT_WINDOW_END && ev[i].reason == STANCE_WINDOW_RESET;
        CHECK(resets == 1 + (t.begin[0] > t.end[0])); /* "all", and "w" if open */
    }
    fixture_close(&fx);
}

/* The threshold: Loop -> Loop2 by a linear 1 s crossfade; "heavy" (min 0.5)
 * at 0.2 is crossed at weight ~0.2 (not fired), at 0.7 at weight ~0.7
 * (fired); "light" (min 0) fires. A blend space fires its dominant
 * entry's notes only, with weight = the entry's. */
static void test_threshold_and_blend(void) {
    fixture fx;
    stance_error err;
    if (fixture_open(&fx)) {
        const stance_graph *g = fx.g;
        CHECK_OK(stance_instance_play(fx.inst, stance_graph_find_state(g, "Loop2"), STANCE_SWITCH_CROSSFADE, STANCE_EASE_LINEAR,
                                      1.0f, &err));
        tally t;
        int reasons[3], finished;
        run_frames(&fx, 50, -1, -1, &t, reasons, &finished); /* 0.83 s: inside the blend */
        CHECK(t.marker[3] == 1); /* light */
        CHECK(t.marker[4] == 1); /* heavy at 0.7 only */
        /* the outgoing Loop (min 0 events) keeps firing while it fades: "a" at 0.31, "b" at 0.79 */
        CHECK(t.marker[1] == 1 && t.marker[2] == 1);
        /* the blend space: x 0.3 -> L dominant (its events), x 0.7 -> L2 (L's windows end, interrupted) */
        stance_instance_set_float_by_name(fx.inst, "x", 0.3f, &err);
        run_frames(&fx, 60, 0, stance_graph_find_state(g, "Blend"), &t, reasons, &finished);
        CHECK(t.marker[1] == 1 && t.marker[2] == 1 && t.marker[3] == 0);
        CHECK(t.begin[1] == 1 && t.end[1] == 0);
        stance_instance_set_float_by_name(fx.inst, "x", 0.7f, &err);
        run_frames(&fx, 60, -1, -1, &t, reasons, &finished);
        CHECK(t.end[1] == 1 && reasons[STANCE_WINDOW_INTERRUPTED] >= 1);
        CHECK(t.marker[1] == 0 && t.marker[3] == 1); /* L2's "light" (weight 0.7), not L's */
        CHECK(t.marker[4] == 2);                     /* "heavy" at 0.2 and 0.7: weight 0.7 >= 0.5 */
    }
    fixture_close(&fx);
}

/* ---- windows in pairs under random interruptions ------------------------------------ */

typedef struct tracker {
    unsigned open[2];  /* per machine: open windows by name index */
    long begins, ends;
    int bad;
} tracker;

static void track(const stance_instance *inst, int from, tracker *tr) {
    int n = 0, dropped = 0;
    const stance_event *ev = stance_instance_events(inst, &n, &dropped);
    if (dropped) tr->bad++;
    for (int i = from; i < n; i++) {
        if (ev[i].type != STANCE_EVENT_WINDOW_BEGIN && ev[i].type != STANCE_EVENT_WINDOW_END) continue;
        const int k = name_at(window_names, 4, ev[i].name);
        if (k < 0 || ev[i].machine < 0 || ev[i].machine > 1) { tr->bad++; continue; }
        const unsigned bit = 1u << k;
        if (ev[i].type == STANCE_EVENT_WINDOW_BEGIN) {
            if (tr->open[ev[i].machine] & bit) tr->bad++;
            tr->open[ev[i].machine] |= bit;
            tr->begins++;
        } else {
            if (!(tr->open[ev[i].machine] & bit)) tr->bad++;
            tr->open[ev[i].machine] &= ~bit;
            tr->ends++;
        }
    }
}

static void windows_paired(void) {
    rig r;
    rig_make(&r);
    stance_graph *g = make_graph(&r);
    stance_instance *inst = NULL;
    stance_error err;
    if (g) CHECK_OK(stance_instance_create(g, NULL, &inst, &err));
    size_t ss = 0;
    if (inst) CHECK_OK(stance_instance_state_size(g, NULL, &ss, &err));
    unsigned char *saved = ss ? malloc(ss) : NULL;
    uint64_t rng = 0x2606u;
    tracker tr;
    memset(&tr, 0, sizeof tr);
    long sequences = 0, interrupted = 0, restores = 0, seeks = 0;
    for (int seq = 0; inst && saved && seq < 10000; seq++) {
        CHECK_OK(stance_instance_reset(inst, &err));
        track(inst, 0, &tr);
        if (tr.open[0] || tr.open[1]) tr.bad++; /* the reset ended every window */
        tracker at_save = tr;
        int have_save = 0;
        const int steps = 8 + (int)((rng >> 33) % 24);
        for (int s = 0; s < steps; s++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            const unsigned x = (unsigned)(rng >> 32);
            switch (x % 9) {
            case 0: case 1: { /* a play: any state, any mode, blend 0..0.5 s */
                const int st = (int)((x >> 4) % 4);
                CHECK_OK(stance_instance_play(inst, st, (stance_switch_mode)((x >> 8) % STANCE_SWITCH_MODE_COUNT),
                                              STANCE_EASE_SMOOTHSTEP, (float)((x >> 12) % 6) * 0.1f, &err));
                interrupted++;
                break;
            }
            case 2: stance_instance_set_float(inst, 0, (float)((int)((x >> 4) % 9) - 4) * 0.6f, &err); break;
            case 3: stance_instance_set_float(inst, 1, (float)((x >> 4) % 11) * 0.1f, &err); break;
            case 4: {
                int before = 0;
                stance_instance_events(inst, &before, NULL);
                CHECK_OK(stance_instance_set_layer_enabled(inst, 1, (x >> 4) & 1, &err));
                track(inst, before, &tr);
                break;
            }
            case 5:
                CHECK_OK(stance_instance_save(inst, saved, ss, &err));
                at_save = tr, have_save = 1;
                break;
            case 6:
                if (have_save) {
                    CHECK_OK(stance_instance_restore(inst, saved, ss, &err));
                    if (err.status) fprintf(stderr, "  restore: %s\n", err.message);
                    tr.open[0] = at_save.open[0], tr.open[1] = at_save.open[1];
                    restores++;
                }
                break;
            case 7: { /* a seek of either machine anywhere in 0..2.7 s: refused while it switches */
                int before = 0;
                stance_instance_events(inst, &before, NULL);
                const stance_status st = stance_instance_seek(inst, (x >> 4) & 1, (float)((x >> 6) % 40) * 0.07f, &err);
                CHECK(st == STANCE_OK || st == STANCE_ERR_ARGUMENT);
                seeks += st == STANCE_OK;
                track(inst, before, &tr);
                break;
            }
            default: break;
            }
            const float dt = (float)((x >> 20) % 13) * (1.0f / 60.0f);
            CHECK_OK(stance_instance_update(inst, dt, TEST_WS_INST(inst), &err));
            track(inst, 0, &tr);
        }
        sequences++;
    }
    if (inst) {
        CHECK_OK(stance_instance_reset(inst, &err));
        track(inst, 0, &tr);
    }
    printf("     blend events %s: %ld sequences, %ld plays, %ld restores, %ld seeks: %ld windows begun, %ld ended, %d "
           "unpaired\n",
           blend_mode ? "all" : "dominant", sequences, interrupted, restores, seeks, tr.begins, tr.ends, tr.bad);
    CHECK(sequences == 10000 && tr.bad == 0 && tr.begins > 10000 && seeks > 5000);
    CHECK(tr.open[0] == 0 && tr.open[1] == 0);
    free(saved);
    stance_instance_destroy(inst);
    stance_graph_destroy(g);
    rig_free(&r);
}

/* every blend-events choice: windows paired under 10,000 random sequences */
static void test_windows_paired(void) {
    for (blend_mode = STANCE_BLEND_EVENTS_DOMINANT; blend_mode <= STANCE_BLEND_EVENTS_ALL; blend_mode++) windows_paired();
    blend_mode = STANCE_BLEND_EVENTS_DOMINANT;
}

/* Blend (L at x 0, L2 at x 1, both 1 s: its phase is its time) at x for `frames` steps of dt after a cut
 * into it, events "dominant" or "all": each event's count against the test's own, from the weights
 * 1 - x and x: the dominant entry (L unless x > 0.5) fires its events (its weight is at least 0.5, so
 * "heavy" too); with "all" the other entry fires those whose min_weight its weight reaches, when above 0.
 * Windows are the dominant entry's in both. "a" keeps its payload (int 7) whichever entry fires it. */
static void blend_counts(const stance_graph *g, int mode, float x, float dt, int frames) {
    stance_instance *inst = NULL;
    stance_error err;
    CHECK_OK(stance_instance_create(g, NULL, &inst, &err));
    if (!inst) return;
    stance_instance_set_layer_enabled(inst, 1, 0, &err);
    CHECK_OK(stance_instance_set_float_by_name(inst, "x", x, &err));
    CHECK_OK(stance_instance_play(inst, stance_graph_find_state(g, "Blend"), STANCE_SWITCH_CUT, STANCE_EASE_LINEAR, 0.0f, &err));
    tally t;
    memset(&t, 0, sizeof t);
    int payload_ok = 1;
    for (int f = 0; f < frames; f++) {
        CHECK_OK(stance_instance_update(inst, dt, TEST_WS_INST(inst), &err));
        tally_events(inst, &t, 0);
        int n = 0;
        const stance_event *ev = stance_instance_events(inst, &n, NULL);
        for (int i = 0; i < n; i++)
            if (ev[i].type == STANCE_EVENT_CLIP_MARKER && !strcmp(ev[i].name, "a"))
                payload_ok &= ev[i].payload && ev[i].payload->flags == STANCE_PAYLOAD_INT && ev[i].payload->i == 7;
    }
    stance_instance_destroy(inst);
    const double T = (double)dt * frames, wl = 1.0 - x, wl2 = x;
    const int l_dom = !(wl2 > wl), all = mode == STANCE_BLEND_EVENTS_ALL;
    const int l_fires = l_dom || (all && wl > 0.0);                   /* L's events: min_weight 0 */
    const int light = !l_dom || (all && wl2 > 0.0);                   /* L2's "light": 0 */
    const int heavy = !l_dom || (all && wl2 > 0.0 && wl2 >= 0.5);     /* L2's "heavy": 0.5 */
    const long want[5] = {l_fires * crossings(0.0, 1.0, T), l_fires * crossings(0.31, 1.0, T), l_fires * crossings(0.79, 1.0, T),
                          light * crossings(0.2, 1.0, T), heavy * (crossings(0.2, 1.0, T) + crossings(0.7, 1.0, T))};
    int ok = t.dropped == 0 && payload_ok;
    for (int k = 0; k < 5; k++) ok &= t.marker[k] == want[k];
    /* windows: L's "w" (0.4..0.8) and "all" when L leads, else L2's "v" (0.1..0.3) */
    ok &= t.begin[0] == (l_dom ? crossings(0.4, 1.0, T) : 0) && t.begin[2] == (l_dom ? 0 : crossings(0.1, 1.0, T));
    ok &= t.begin[1] == (l_dom ? 1 : 0);
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "  %s x %g dt %g: own0 %ld/%ld a %ld/%ld b %ld/%ld light %ld/%ld heavy %ld/%ld w %ld v %ld payload %d\n",
                all ? "all" : "dominant", (double)x, (double)dt, t.marker[0], want[0], t.marker[1], want[1], t.marker[2], want[2],
                t.marker[3], want[3], t.marker[4], want[4], t.begin[0], t.begin[2], payload_ok);
}

static void test_blend_events_all(void) {
    rig r;
    rig_make(&r);
    const float xs[6] = {0.0f, 0.3f, 0.5f, 0.7f, 0.25f, 1.0f};
    for (int mode = STANCE_BLEND_EVENTS_DOMINANT; mode <= STANCE_BLEND_EVENTS_ALL; mode++) {
        blend_mode = mode;
        stance_graph *g = make_graph(&r);
        for (int i = 0; g && i < 6; i++) {
            blend_counts(g, mode, xs[i], 1.0f / 60.0f, 611); /* ten cycles in small steps */
            blend_counts(g, mode, xs[i], 0.9f, 47);          /* each step spans several events */
        }
        stance_graph_destroy(g);
    }
    blend_mode = STANCE_BLEND_EVENTS_DOMINANT;
    /* "all" on a state that is no blend space, or an unknown value: refused */
    stance_graph_desc gd;
    stance_state_desc st;
    stance_machine_desc md;
    memset(&gd, 0, sizeof gd), memset(&st, 0, sizeof st), memset(&md, 0, sizeof md);
    st.name = "S", st.type = STANCE_MOTION_CLIP, st.clip = r.loop, st.blend_events = STANCE_BLEND_EVENTS_ALL;
    md.name = "M", md.state_count = 1, md.states = &st;
    gd.skeleton = r.sk, gd.machine_count = 1, gd.machines = &md;
    stance_graph *bad = NULL;
    stance_error err;
    CHECK(stance_graph_create(&gd, NULL, &bad, &err) == STANCE_ERR_VALUE && strstr(err.message, "'S' is not a blend space"));
    st.type = STANCE_MOTION_CLIP, st.blend_events = 2;
    CHECK(stance_graph_create(&gd, NULL, &bad, &err) == STANCE_ERR_VALUE && strstr(err.message, "blend_events 2"));
    rig_free(&r);
}

/* ---- refusals of the description ------------------------------------------------ */

static void test_desc_refusals(void) {
    rig r;
    rig_make(&r);
    const stance_state_desc st = {.name = "S", .type = STANCE_MOTION_CLIP, .clip = r.loop};
    const stance_machine_desc m = {.name = "M", .state_count = 1, .states = &st};
    stance_notify_desc ev = {.name = "e", .time = 2.0f};
    stance_window_desc w = {.name = "w", .from = 0.6f, .to = 0.2f};
    stance_clip_notes_desc nd = {r.loop, 1, &ev, 0, NULL};
    stance_graph_desc gd = {.skeleton = r.sk, .machine_count = 1, .machines = &m, .clip_notes_count = 1, .clip_notes = &nd};
    stance_graph *g = NULL;
    stance_error err;
    CHECK_STATUS(stance_graph_create(&gd, NULL, &g, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "outside the clip") != NULL);
    nd = (stance_clip_notes_desc){r.loop, 0, NULL, 1, &w};
    CHECK_STATUS(stance_graph_create(&gd, NULL, &g, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "from <= to") != NULL);
    ev.time = 0.5f, ev.payload.flags = 8;
    nd = (stance_clip_notes_desc){r.loop, 1, &ev, 0, NULL};
    CHECK_STATUS(stance_graph_create(&gd, NULL, &g, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "unknown type") != NULL);
    CHECK(g == NULL);
    rig_free(&r);
}

/* ---- payloads: JSON -> compiled -> instance, bit for bit (RobotExpressive) ----------- */

/* The payload of event `name` of clip `clip` as graphs/robot_events.json writes it, read by the test's own JSON reader. */
static int file_payload(const jv *doc, const char *clip, const char *name, stance_event_payload *out) {
    memset(out, 0, sizeof *out);
    const jv *clips = jget(doc, "clips"), *c = clips ? jget(clips, clip) : NULL, *evs = c ? jget(c, "events") : NULL;
    for (int i = 0; evs && i < evs->n; i++) {
        const jv *e = &evs->items[i], *nm = jget(e, "name"), *p = jget(e, "payload");
        if (!nm || strcmp(nm->str, name)) continue;
        if (!p) return 1;
        const jv *iv = jget(p, "int"), *fv = jget(p, "float"), *sv = jget(p, "string");
        if (iv) out->flags |= STANCE_PAYLOAD_INT, out->i = (int)iv->num;
        if (fv) out->flags |= STANCE_PAYLOAD_FLOAT, out->f = (float)fv->num;
        if (sv) out->flags |= STANCE_PAYLOAD_STRING, memcpy(out->s, sv->str, strlen(sv->str));
        return 1;
    }
    return 0;
}

static void test_payload_round_trip(void) {
    robot_round_trip rt;
    if (!robot_round_trip_open(&rt, "robot_events")) return;
    const jv doc = rt.doc;
    const stance_asset *a = rt.asset, loaded = rt.loaded;
    const stance_graph *gj = rt.graph, *gc = rt.loaded.graph;
    stance_error err;
    const char *const clips[3] = {"Walking", "Jump", "Wave"};
    int compared = 0;
    for (int k = 0; gc && k < 3; k++) { /* the graph's lists: the same notes in both forms, payloads byte for byte */
        const stance_clip *cj = stance_asset_find_clip(a, clips[k]), *cc = stance_asset_find_clip(&loaded, clips[k]);
        stance_clip_note nj[16], nc[16];
        stance_clip_window wj[8], wc[8];
        const int ej = stance_graph_clip_events(gj, cj, nj, 16), ec = stance_graph_clip_events(gc, cc, nc, 16);
        CHECK(ej == ec && ej >= 0);
        for (int i = 0; i < ej && i < ec && i < 16; i++) {
            stance_event_payload want;
            CHECK(file_payload(&doc, clips[k], nj[i].name, &want));
            CHECK(!strcmp(nj[i].name, nc[i].name) && nj[i].time == nc[i].time && nj[i].min_weight == nc[i].min_weight);
            CHECK((nj[i].payload != NULL) == (want.flags != 0) && (nc[i].payload != NULL) == (want.flags != 0));
            if (nj[i].payload && nc[i].payload) {
                CHECK(!memcmp(nj[i].payload, &want, sizeof want) && !memcmp(nc[i].payload, &want, sizeof want));
                compared++;
            }
        }
        const int wnj = stance_graph_clip_windows(gj, cj, wj, 8), wnc = stance_graph_clip_windows(gc, cc, wc, 8);
        CHECK(wnj == wnc && wnj >= 1);
        for (int i = 0; i < wnj && i < wnc && i < 8; i++)
            CHECK(!strcmp(wj[i].name, wc[i].name) && wj[i].from == wc[i].from && wj[i].to == wc[i].to);
    }
    CHECK(compared == 3);
    /* an instance of the compiled graph walking: its markers carry the file's payloads */
    stance_instance *inst = NULL;
    if (gc) CHECK_OK(stance_instance_create(gc, NULL, &inst, &err));
    int seen = 0, begins = 0, ends = 0;
    if (inst) {
        stance_instance_set_float_by_name(inst, "speed", 4.0f, &err);
        for (int f = 0; f < 240; f++) {
            CHECK_OK(stance_instance_update(inst, 1.0f / 60.0f, TEST_WS_INST(inst), &err));
            int n = 0, dropped = 0;
            const stance_event *ev = stance_instance_events(inst, &n, &dropped);
            CHECK(dropped == 0);
            for (int i = 0; i < n; i++) {
                begins += ev[i].type == STANCE_EVENT_WINDOW_BEGIN, ends += ev[i].type == STANCE_EVENT_WINDOW_END;
                if (ev[i].type != STANCE_EVENT_CLIP_MARKER) continue;
                stance_event_payload want;
                CHECK(file_payload(&doc, "Walking", ev[i].name, &want));
                CHECK(ev[i].payload != NULL && !memcmp(ev[i].payload, &want, sizeof want));
                seen++;
            }
        }
    }
    printf("     robot walk: %d markers with their payloads, %d windows begun, %d ended\n", seen, begins, ends);
    CHECK(seen >= 6 && begins >= 2 && begins - ends <= 2); /* "moving" (the whole clip) and "can_cancel" may be open */
    stance_instance_destroy(inst);
    robot_round_trip_close(&rt);
}

/* ---- seeks ------------------------------------------------------------------------ */

/* Crossings of a point at clip time e (0 <= e < D) by playback over the
 * unwrapped span from t0 by T (either sign), stance/clip.h's rule:
 * forward e + kD in [t0, t0 + T); backward in (t0 + T, t0] for e > 0,
 * [t0 + T, t0) for e = 0. */
static long span_crossings(double e, double D, double t0, double T) {
    long n = 0;
    const double t1 = t0 + T;
    for (long k = -1000; k <= 1000; k++) {
        const double g = e + (double)k * D;
        if (T >= 0.0 ? (g >= t0 && g < t1) : e > 0.0 ? (g > t1 && g <= t0) : (g >= t1 && g < t0)) n++;
    }
    return n;
}

/* The events (of machine 0) from index `from` of the list. */
static void tally_new(const stance_instance *inst, tally *t, int from, int *seek_ends) {
    int n = 0, dropped = 0;
    const stance_event *ev = stance_instance_events(inst, &n, &dropped);
    t->dropped += dropped;
    for (int i = from; i < n; i++) {
        if (ev[i].machine != 0) continue;
        if (ev[i].type == STANCE_EVENT_CLIP_MARKER) {
            const int k = name_at(marker_names, 8, ev[i].name);
            CHECK(k >= 0);
            if (k >= 0) t->marker[k]++;
        } else if (ev[i].type == STANCE_EVENT_WINDOW_BEGIN || ev[i].type == STANCE_EVENT_WINDOW_END) {
            const int k = name_at(window_names, 4, ev[i].name);
            CHECK(k >= 0);
            if (k >= 0) (ev[i].type == STANCE_EVENT_WINDOW_BEGIN ? t->begin : t->end)[k]++;
            if (seek_ends && ev[i].type == STANCE_EVENT_WINDOW_END && ev[i].reason == STANCE_WINDOW_SEEK) (*seek_ends)++;
        }
    }
}

static void frames_tally(stance_instance *inst, int n, tally *t) {
    stance_error err;
    for (int f = 0; f < n; f++) {
        CHECK_OK(stance_instance_update(inst, 1.0f / 60.0f, TEST_WS_INST(inst), &err));
        tally_new(inst, t, 0, NULL);
    }
}

/* Loop (L, 1 s: own0 0, a 0.31, b 0.79; "w" 0.4..0.8, "all" the whole loop)
 * at `rate` for n1 frames of 1/60 s from a cut into it, a seek to `to`
 * seconds, n2 frames: each event's count and w's begins and ends against
 * the test's own: the crossings of the span before the seek and of the span
 * from the seek's wrapped position (none between), w ended by the seek
 * (reason seek) when open before and not holding the new position, begun
 * by it when shut and holding it; "all" begun once, never ended. */
static void seek_case(float rate, int n1, float to, int n2) {
    fixture fx;
    stance_error err;
    if (!fixture_open(&fx)) { fixture_close(&fx); return; }
    stance_instance *inst = fx.inst;
    stance_instance_set_float_by_name(inst, "rate", rate, &err);
    tally t;
    memset(&t, 0, sizeof t);
    frames_tally(inst, n1, &t);
    int before = 0, seek_ends = 0;
    stance_instance_events(inst, &before, NULL);
    CHECK_OK(stance_instance_seek(inst, 0, to, &err));
    tally_new(inst, &t, before, &seek_ends);
    frames_tally(inst, n2, &t);
    const double T1 = (double)rate * n1 / 60.0, T2 = (double)rate * n2 / 60.0, s = fmod((double)to, 1.0);
    const double p1 = T1 - floor(T1);
    const int back = rate < 0.0f;
    const double w0 = (double)0.4f, w1 = (double)0.8f; /* the times as the graph holds them (floats) */
    const double wopen = back ? w1 : w0, wshut = back ? w0 : w1;
    const int open1 = back ? (p1 > w0 && p1 <= w1) : (p1 >= w0 && p1 < w1);
    const int holds = back ? (s > w0 && s <= w1) : (s >= w0 && s < w1);
    const double ev[3] = {0.0, (double)0.31f, (double)0.79f};
    int ok = 1;
    for (int k = 0; k < 3; k++) {
        const long want = span_crossings(ev[k], 1.0, 0.0, T1) + span_crossings(ev[k], 1.0, s, T2);
        CHECK(t.marker[k] == want);
        ok &= t.marker[k] == want;
    }
    /* a seek onto w's opening bound opens it (it holds the position): the next step's crossing of that
       bound, at its start, opens nothing more */
    const long wb = span_crossings(wopen, 1.0, 0.0, T1) + (!open1 && holds) + span_crossings(wopen, 1.0, s, T2) -
                    (n2 > 0 && s == wopen);
    const long we = span_crossings(wshut, 1.0, 0.0, T1) + (open1 && !holds) + span_crossings(wshut, 1.0, s, T2);
    CHECK(t.begin[0] == wb && t.end[0] == we);
    CHECK(seek_ends == (open1 && !holds));
    CHECK(t.begin[1] == 1 && t.end[1] == 0);
    CHECK(t.dropped == 0);
    if (!ok || t.begin[0] != wb || t.end[0] != we)
        fprintf(stderr, "  seek rate %g %d -> %g %d: own0 %ld a %ld b %ld w %ld/%ld (want %ld/%ld)\n", (double)rate, n1,
                (double)to, n2, t.marker[0], t.marker[1], t.marker[2], t.begin[0], t.end[0], wb, we);
    fixture_close(&fx);
}

/* The pose after a seek is the clip's at the new position: a seek backwards
 * of Loop to 0.3 then an update of dt 0 against stance_clip_sample at 0.3
 * with no cursor (a binary search), joint 1's rotation bit for bit. */
static void seek_pose(void) {
    fixture fx;
    stance_error err;
    stance_pose ref;
    if (!fixture_open(&fx)) { fixture_close(&fx); return; }
    CHECK_OK(stance_pose_create(&ref, 2, NULL, &err));
    frames_tally(fx.inst, 45, &(tally){{0}, {0}, {0}, 0});
    CHECK_OK(stance_instance_seek(fx.inst, 0, 0.3f, &err));
    CHECK_OK(stance_instance_update(fx.inst, 0.0f, TEST_WS_INST(fx.inst), &err));
    CHECK_OK(stance_clip_sample(fx.r.loop, 0.3f, NULL, &ref, &err));
    const stance_pose *lp = stance_instance_local_pose(fx.inst);
    CHECK(lp && lp->qx[1] == ref.qx[1] && lp->qy[1] == ref.qy[1] && lp->qz[1] == ref.qz[1] && lp->qw[1] == ref.qw[1]);
    CHECK(ref.qy[1] > 0.05f); /* not the rest pose (and not the pose at 0.75 s, where it was) */
    stance_pose_destroy(&ref);
    fixture_close(&fx);
}

static void test_seek_counts(void) {
    seek_pose();
    seek_case(1.0f, 40, 0.2f, 50);    /* back, out of the open window "w": it ends (seek) */
    seek_case(1.0f, 20, 0.5f, 30);    /* forward over "a" (not fired) into "w": it begins */
    seek_case(1.0f, 40, 0.6f, 10);    /* inside the open "w": it stays open, no pair */
    seek_case(1.0f, 10, 2.62f, 70);   /* past the end of the loop: wraps to 0.62 */
    seek_case(1.0f, 40, 0.31f, 30);   /* onto "a": the next step crosses it, once */
    seek_case(1.0f, 40, 0.0f, 130);   /* onto own0 at 0, then two wraps */
    seek_case(2.7f, 40, 0.35f, 47);   /* steps over several events */
    seek_case(-1.0f, 40, 0.7f, 30);   /* backwards: "w" holds (0.4, 0.8]: begins, ends crossing 0.4 */
    seek_case(-1.0f, 30, 0.8f, 30);   /* backwards onto w's end */
    seek_case(-2.3f, 25, 3.05f, 40);  /* backwards over several cycles a step, from a wrapped seek */
    seek_case(1.0f, 100, 0.45f, 0);   /* a seek and no update after */
    seek_case(1.0f, 40, 0.4f, 30);    /* onto w's start from inside it: stays open, not begun again */
    seek_case(1.0f, 20, 0.4f, 30);    /* onto w's start from outside: begins at the seek, once */
}

/* A once state: finished, seeked back (plays again, finishes again), seeked
 * to where it finished (nothing); several seeks without an update; a blend
 * space's seek in its dominant clip's seconds; and the refusals. */
static void test_seek_once_blend_refusals(void) {
    fixture fx;
    stance_error err;
    if (!fixture_open(&fx)) { fixture_close(&fx); return; }
    stance_instance *inst = fx.inst;
    const stance_graph *g = fx.g;
    const int once = stance_graph_find_state(g, "Once"), blend = stance_graph_find_state(g, "Blend");
    tally t;
    int reasons[3], finished, n = 0;
    run_frames(&fx, 40, 0, once, &t, reasons, &finished); /* O: o1 0.1, oend 0.5, "ow" 0.2..0.5 */
    CHECK(t.marker[5] == 1 && t.marker[6] == 1 && finished == 1 && t.begin[3] == 1 && t.end[3] == 1);
    CHECK_OK(stance_instance_seek(inst, 0, 0.15f, &err)); /* plays again from 0.15: o1 not crossed */
    stance_instance_events(inst, &n, NULL);
    run_frames(&fx, 30, -1, -1, &t, reasons, &finished);
    CHECK(t.marker[5] == 0 && t.marker[6] == 1 && finished == 1 && t.begin[3] == 1 && t.end[3] == 1);
    CHECK(reasons[STANCE_WINDOW_FINISHED] == 1);
    int before = 0;
    stance_instance_events(inst, &before, NULL);
    CHECK_OK(stance_instance_seek(inst, 0, 7.0f, &err)); /* clamps to 0.5, where it finished: nothing */
    stance_instance_events(inst, &n, NULL);
    CHECK(n == before);
    run_frames(&fx, 10, -1, -1, &t, reasons, &finished);
    CHECK(t.marker[6] == 0 && finished == 0);
    /* seeks without an update: 0.3 ("ow" begins), 0.4 (stays), 0.05 (ends, seek), 0.25 (begins) */
    memset(&t, 0, sizeof t);
    stance_instance_events(inst, &before, NULL);
    int seek_ends = 0;
    CHECK_OK(stance_instance_seek(inst, 0, 0.3f, &err));
    CHECK_OK(stance_instance_seek(inst, 0, 0.4f, &err));
    CHECK_OK(stance_instance_seek(inst, 0, 0.05f, &err));
    CHECK_OK(stance_instance_seek(inst, 0, 0.25f, &err));
    tally_new(inst, &t, before, &seek_ends);
    CHECK(t.begin[3] == 2 && t.end[3] == 1 && seek_ends == 1);
    stance_machine_status ms;
    CHECK_OK(stance_instance_machine_status(inst, 0, &ms, &err));
    CHECK(ms.state == once && fabsf(ms.normalized_time - 0.25f / 0.5f) < 1e-6f);
    /* a blend space at x 0.8: L2 dominant (1 s); seek 1.3 -> phase 0.3, "v" (0.1..0.3) of L2 not holding 0.3 */
    stance_instance_set_float_by_name(inst, "x", 0.8f, &err);
    run_frames(&fx, 3, 0, blend, &t, reasons, &finished);
    memset(&t, 0, sizeof t);
    stance_instance_events(inst, &before, NULL);
    CHECK_OK(stance_instance_seek(inst, 0, 1.3f, &err));
    CHECK_OK(stance_instance_seek(inst, 0, 0.15f, &err)); /* "v" holds 0.15: begins */
    tally_new(inst, &t, before, NULL);
    CHECK(t.begin[2] == 1 && t.end[2] == 0);
    CHECK_OK(stance_instance_machine_status(inst, 0, &ms, &err));
    CHECK(fabsf(ms.normalized_time - (float)(int)ms.normalized_time - 0.15f) < 1e-6f);
    memset(&t, 0, sizeof t);
    run_frames(&fx, 12, -1, -1, &t, reasons, &finished); /* 0.15 -> 0.35: L2's 0.2 ("light", "heavy": weight 0.8) */
    CHECK(t.marker[3] == 1 && t.marker[4] == 1 && t.end[2] == 1 && t.marker[1] == 0);
    /* refusals: nothing changes, nothing is appended */
    stance_instance_events(inst, &before, NULL);
    CHECK(stance_instance_seek(NULL, 0, 0.1f, &err) == STANCE_ERR_ARGUMENT);
    CHECK(stance_instance_seek(inst, -1, 0.1f, &err) == STANCE_ERR_ARGUMENT);
    CHECK(stance_instance_seek(inst, stance_graph_machine_count(g), 0.1f, &err) == STANCE_ERR_ARGUMENT);
    CHECK(strstr(err.message, "not in 0..1") != NULL);
    CHECK(stance_instance_seek(inst, 0, NAN, &err) == STANCE_ERR_VALUE);
    CHECK(stance_instance_seek(inst, 0, INFINITY, &err) == STANCE_ERR_VALUE);
    CHECK(stance_instance_seek(inst, 0, -0.1f, &err) == STANCE_ERR_VALUE);
    CHECK_OK(stance_instance_play(inst, once, STANCE_SWITCH_CROSSFADE, STANCE_EASE_LINEAR, 0.5f, &err));
    CHECK(stance_instance_seek(inst, 0, 0.1f, &err) == STANCE_ERR_ARGUMENT); /* a play request pending */
    CHECK(strstr(err.message, "play request") != NULL);
    CHECK_OK(stance_instance_update(inst, 1.0f / 60.0f, TEST_WS_INST(inst), &err));
    stance_instance_events(inst, &before, NULL);
    CHECK(stance_instance_seek(inst, 0, 0.1f, &err) == STANCE_ERR_ARGUMENT); /* switching */
    CHECK(strstr(err.message, "switching") != NULL);
    CHECK_OK(stance_instance_machine_status(inst, 0, &ms, &err));
    CHECK(ms.transition >= 0 && ms.normalized_time < 0.1f);
    stance_instance_events(inst, &n, NULL);
    CHECK(n == before);
    fixture_close(&fx);
}

int main(void) {
    RUN(test_playback_counts);
    RUN(test_once_and_restart);
    RUN(test_threshold_and_blend);
    RUN(test_windows_paired);
    RUN(test_seek_counts);
    RUN(test_seek_once_blend_refusals);
    RUN(test_blend_events_all);
    RUN(test_desc_refusals);
    RUN(test_payload_round_trip);
    return check_summary();
}
