/* lab/lab_time.c - the lab's time controls (issue 28 item 4): per view a
 * tape of its last 10 s, scrubbing, stepping back, the switch pops of every
 * character and the same switch replayed under another switch mode.
 *
 * A tape holds TAPE_FRAMES frames in memory allocated once when it opens
 * (for one graph and instance; nothing grows while it records). Per frame:
 * the instance's saved state before the update (stance_instance_save, after
 * the frame's inputs were set), and after the update the model pose's
 * translations, a hash of the whole local and model pose, the lab's world
 * root, the base machine's state, transition and time, and the jump at a
 * switch (the runner's measure, stance_scenario: the largest model-space
 * distance between the output and the old state alone, a copy of the frame's
 * state updated with STANCE_UPDATE_NO_TRANSITIONS).
 *
 * Showing frame n: restore its saved state and update by 1/60 s, the
 * frame's own update replayed; the pose is then compared with the recorded
 * hash (a difference is counted, never expected). A ghost replays a
 * recorded switch from the state before it with every transition switched
 * by another mode (stance_instance_override_switch), frame by frame with the
 * parameters the tape recorded; a second replay with the recorded switch is
 * the check that the inputs were replayed in full (it must equal the tape).
 *
 * The parameters a ghost replays are recorded beside each saved state with
 * the public queries (stance_instance_param and _param_target), never read
 * out of the saved state's bytes, whose layout is the runtime's own. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "stance/graph_query.h"

#define TAPE_FRAMES 600                /* 10 s at 60 Hz */

typedef struct tape {
    const stance_graph *graph;
    const stance_instance *inst;       /* the instance recorded (compared, never dereferenced after it changes) */
    size_t bytes;                      /* one saved state */
    int J, P;
    unsigned char *states;             /* per frame: the state before its update */
    float *model;                      /* per frame: J x 3 model translations after */
    uint64_t *hash;                    /* per frame: the local and model pose after */
    float *root;                       /* per frame: the lab's world root after */
    float *params;                     /* per frame: each parameter as the graph sees it after */
    float *pin;                        /* per frame: each parameter's value and target before (2 x P) */
    float *nt, *progress, *jump;       /* base machine: normalized time, transition progress; jump (cm) or -1 */
    double *time;                      /* instance time after */
    short *state, *from, *jump_joint;
    long long first;                   /* the oldest frame held (frames count from the tape's start) */
    int count;                         /* frames held */
    int cursor;                        /* frames back from the newest that are shown (0: live) */
    int pending;                       /* lab_time_before saved the frame being stepped */
    int mismatches, shown;             /* frames shown by replay whose pose differed / all of them */
    stance_instance *scratch;          /* the old state alone, for the jump */
    stance_workspace *ws;
    /* the ghost: a switch replayed under another mode (g[1]) and as recorded (g[0], the check) */
    stance_instance *g[2];
    float *gmodel;                     /* per frame: g[1]'s model translations */
    float *gfull;                      /* per frame: g[1]'s whole model pose, 10 channels of J (the side by side view) */
    long long g0, gnext;               /* the ghost's first frame and the next to replay */
    int gmode, geasing, gsame, gdiff;  /* g[0] frames equal to the tape / not */
    float gblend, gjump;
} tape;

static tape g_tape[LAB_VIEWS];
static float g_series[TAPE_FRAMES];

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}
static uint64_t pose_hash(const stance_pose *p, uint64_t h) {
    float *const ch[10] = {p->tx, p->ty, p->tz, p->qx, p->qy, p->qz, p->qw, p->sx, p->sy, p->sz};
    for (int k = 0; k < 10; k++) h = fnv(h, ch[k], sizeof(float) * (size_t)p->joint_count);
    return h;
}
static uint64_t inst_hash(const stance_instance *in) {
    return pose_hash(stance_instance_model_pose(in), pose_hash(stance_instance_local_pose(in), 14695981039346656037ull));
}

static void tape_free(tape *t) {
    free(t->states), free(t->model), free(t->hash), free(t->root), free(t->params), free(t->pin), free(t->nt), free(t->progress);
    free(t->jump), free(t->time), free(t->state), free(t->from), free(t->jump_joint), free(t->gmodel), free(t->gfull);
    stance_instance_destroy(t->scratch), stance_instance_destroy(t->g[0]), stance_instance_destroy(t->g[1]);
    stance_workspace_destroy(t->ws);
    memset(t, 0, sizeof *t);
}

/* A tape for the view's graph and instance: empty, its memory allocated here once. */
static int tape_open(tape *t, lab_view *v) {
    const stance_instance_desc all = {.history = STANCE_HISTORY_ALL}; /* every lab instance's desc */
    stance_error err = {0};
    size_t bytes = 0;
    if (stance_instance_state_size(v->graph, &all, &bytes, &err)) return lab_fail("time: %s", err.message);
    const int J = v->skeleton->joint_count, P = stance_graph_param_count(v->graph);
    if (t->graph != v->graph || t->bytes != bytes) {
        tape_free(t);
        const size_t F = TAPE_FRAMES;
        t->states = malloc(F * bytes), t->model = malloc(F * 3 * (size_t)J * sizeof(float));
        t->gmodel = malloc(F * 3 * (size_t)J * sizeof(float));
        t->gfull = malloc(F * 10 * (size_t)J * sizeof(float));
        t->hash = malloc(F * sizeof(uint64_t)), t->root = malloc(F * 3 * sizeof(float));
        t->params = malloc(F * (size_t)(P > 0 ? P : 1) * sizeof(float));
        t->pin = malloc(F * 2 * (size_t)(P > 0 ? P : 1) * sizeof(float));
        t->nt = malloc(F * sizeof(float)), t->progress = malloc(F * sizeof(float)), t->jump = malloc(F * sizeof(float));
        t->time = malloc(F * sizeof(double));
        t->state = malloc(F * sizeof(short)), t->from = malloc(F * sizeof(short)), t->jump_joint = malloc(F * sizeof(short));
        if (!t->states || !t->model || !t->gmodel || !t->gfull || !t->hash || !t->root || !t->params || !t->pin || !t->nt || !t->progress || !t->jump ||
            !t->time || !t->state || !t->from || !t->jump_joint) {
            tape_free(t);
            return lab_fail("time: out of memory for a tape of %d frames", TAPE_FRAMES);
        }
        if (stance_instance_create_ex(v->graph, &all, NULL, &t->scratch, &err) ||
            stance_instance_create_ex(v->graph, &all, NULL, &t->g[0], &err) ||
            stance_instance_create_ex(v->graph, &all, NULL, &t->g[1], &err) ||
            stance_workspace_create(v->graph, NULL, &t->ws, &err)) {
            tape_free(t);
            return lab_fail("time: %s", err.message);
        }
    }
    t->graph = v->graph, t->inst = v->inst, t->bytes = bytes, t->J = J, t->P = P;
    t->first = 0, t->count = 0, t->cursor = 0, t->pending = 0;
    t->mismatches = t->shown = 0;
    t->g0 = t->gnext = -1;
    return 0;
}

static int slot(long long n) { return (int)(n % TAPE_FRAMES); }
static long long newest(const tape *t) { return t->first + t->count - 1; }
static unsigned char *state_at(const tape *t, long long n) { return t->states + (size_t)slot(n) * t->bytes; }
/* frame n's parameter p before its update: the value the graph saw (target 0) or the value set last (1) */
static float param_word(const tape *t, long long n, int p, int target) {
    return t->pin[(size_t)slot(n) * 2 * (size_t)t->P + 2 * (size_t)p + (size_t)target];
}

float lab_sm_script_time(void); /* stance_lab.c: the lesson's script's time, -1 when driven by hand */

static lab_view *time_view(int view, tape **t) {
    lab_view *v = lab_view_at(view);
    *t = view >= 0 && view < LAB_VIEWS ? &g_tape[view] : NULL;
    return v;
}

/* Before a live update of the view (its inputs set): a new tape when the
 * instance is another one or was restarted; frames newer than the one shown
 * are dropped (the run goes on from it); the state is saved. 0 or -1. */
LAB_API int lab_time_before(int view) {
    tape *t;
    lab_view *v = time_view(view, &t);
    if (!v) return lab_fail("time: view %d has no instance", view);
    if (t->graph != v->graph || t->inst != v->inst || !t->states ||
        (t->count && stance_instance_time(v->inst) != (float)t->time[slot(newest(t) - t->cursor)]))
        if (tape_open(t, v)) return -1;
    if (t->cursor) t->count -= t->cursor, t->cursor = 0, t->g0 = t->gnext = -1; /* the ghost's instances ran past it */
    if (t->count == TAPE_FRAMES) t->first++, t->count--;
    const long long n = t->first + t->count;
    stance_error err = {0};
    /* the lesson's script sets its inputs inside its step (stance_scenario_step): the same ones
     * set here first, so the state saved holds them (the runner's setting them again changes nothing) */
    const float ts = view == 0 ? lab_sm_script_time() : -1.0f;
    if (ts >= 0.0f) {
        float speed;
        int jump;
        stance_scenario_input(ts, &speed, &jump);
        stance_instance_set_float(v->inst, stance_graph_find_param(v->graph, "speed"), speed, NULL);
        if (jump) stance_instance_set_trigger(v->inst, stance_graph_find_param(v->graph, "jump"), NULL);
    }
    if (stance_instance_save(v->inst, state_at(t, n), t->bytes, &err)) return lab_fail("time: %s", err.message);
    for (int p = 0; p < t->P; p++) {
        float *in = t->pin + (size_t)slot(n) * 2 * (size_t)t->P + 2 * (size_t)p;
        in[0] = stance_instance_param(v->inst, p), in[1] = stance_instance_param_target(v->inst, p);
    }
    t->pending = 1;
    return 0;
}

/* The jump at frame n if a base-layer transition started in it: the frame's
 * state updated with no transition, against the output. */
static void measure_jump(tape *t, long long n, const stance_instance *out) {
    int ne = 0, s = slot(n);
    const stance_event *ev = stance_instance_events(out, &ne, NULL);
    t->jump[s] = -1.0f, t->jump_joint[s] = -1;
    for (int i = 0; i < ne; i++) {
        if (ev[i].type != STANCE_EVENT_TRANSITION_STARTED || ev[i].layer != 0) continue;
        float d = 0.0f;
        int joint = -1;
        if (stance_instance_restore(t->scratch, state_at(t, n), t->bytes, NULL) ||
            stance_instance_update_ex(t->scratch, LAB_DT, STANCE_UPDATE_NO_TRANSITIONS, t->ws, NULL) ||
            stance_pose_distance(stance_instance_model_pose(out), stance_instance_model_pose(t->scratch), &d, &joint, NULL))
            return;
        t->jump[s] = d * 100.0f, t->jump_joint[s] = (short)joint;
        return;
    }
}

/* After the live update lab_time_before saved: what the frame shows. */
LAB_API int lab_time_after(int view) {
    tape *t;
    lab_view *v = time_view(view, &t);
    if (!v || !t->pending || t->inst != v->inst) return 0;
    t->pending = 0;
    const long long n = t->first + t->count;
    const int s = slot(n), J = t->J;
    const stance_pose *m = stance_instance_model_pose(v->inst);
    float *out = t->model + (size_t)s * 3 * (size_t)J;
    for (int j = 0; j < J; j++) out[3 * j] = m->tx[j], out[3 * j + 1] = m->ty[j], out[3 * j + 2] = m->tz[j];
    t->hash[s] = inst_hash(v->inst);
    memcpy(t->root + 3 * s, v->root, sizeof(float) * 3);
    for (int p = 0; p < t->P; p++) t->params[(size_t)s * (size_t)t->P + (size_t)p] = stance_instance_param(v->inst, p);
    stance_machine_status ms;
    stance_instance_machine_status(v->inst, stance_graph_layer_machine(v->graph, 0), &ms, NULL);
    t->nt[s] = ms.normalized_time, t->progress[s] = ms.progress;
    t->state[s] = (short)ms.state, t->from[s] = (short)ms.transition;
    t->time[s] = stance_instance_time(v->inst);
    t->count++;
    measure_jump(t, n, v->inst);
    return 0;
}

/* Shows the frame `back` frames before the newest (0: the newest): its
 * saved state restored and its update replayed; the lab's root as recorded.
 * Returns 1 when the pose equals the recorded one bit for bit, 0 when not,
 * -1 on failure. */
LAB_API int lab_time_show(int view, int back) {
    tape *t;
    lab_view *v = time_view(view, &t);
    if (!v || t->inst != v->inst || !t->count) return lab_fail("time: nothing recorded in view %d", view);
    if (back < 0 || back >= t->count) return lab_fail("time: frame %d back is not held (%d frames)", back, t->count);
    const long long n = newest(t) - back;
    stance_error err = {0};
    if (stance_instance_restore(v->inst, state_at(t, n), t->bytes, &err)) return lab_fail("time: %s", err.message);
    stance_workspace *ws = v->ws ? v->ws : t->ws;
    if (lab_update(v->inst, LAB_DT, ws, &err)) return lab_fail("time: %s", err.message);
    memcpy(v->root, t->root + 3 * slot(n), sizeof(float) * 3);
    t->cursor = back;
    t->pending = 0;
    const int same = inst_hash(v->inst) == t->hash[slot(n)];
    t->shown++;
    if (!same) t->mismatches++;
    return same;
}

LAB_API int lab_time_count(int view) { tape *t; return time_view(view, &t) && t->inst == lab_view_at(view)->inst ? t->count : 0; }
LAB_API int lab_time_cursor(int view) { tape *t; return time_view(view, &t) ? t->cursor : 0; }
LAB_API int lab_time_capacity(void) { return TAPE_FRAMES; }
LAB_API int lab_time_mismatches(int view) { tape *t; return time_view(view, &t) ? t->mismatches : 0; }
LAB_API int lab_time_shown(int view) { tape *t; return time_view(view, &t) ? t->shown : 0; }
/* Bytes the view's tape holds (allocated once when it opened). */
LAB_API double lab_time_bytes(int view) {
    tape *t;
    if (!time_view(view, &t) || !t->states) return 0.0;
    return (double)TAPE_FRAMES * ((double)t->bytes + 2.0 * 12.0 * t->J + 40.0 * t->J + 8 + 12 + 4.0 * t->P + 12 + 8 + 6);
}

/* The recorded pose hash of a frame, as two 32-bit halves (half 0 low). */
LAB_API unsigned lab_time_hash(int view, int back, int half) {
    tape *t;
    if (!time_view(view, &t) || back < 0 || back >= t->count) return 0;
    uint64_t h = t->hash[slot(newest(t) - back)];
    return (unsigned)(half ? h >> 32 : h);
}
/* The hash of the pose the instance holds now (half 0 low). */
LAB_API unsigned lab_time_pose_hash(int view, int half) {
    lab_view *v = lab_view_at(view);
    if (!v) return 0;
    uint64_t h = inst_hash(v->inst);
    return (unsigned)(half ? h >> 32 : h);
}

/* A series over the frames held, oldest first (lab_time_count values):
 *   0-2  the joint's model-space x, y, z (m)         3 its speed (m/s, from the frame before)
 *   4    its acceleration (m/s^2, second difference) 5 base state   6 transition source or -1
 *   7    transition progress   8 jump at a switch (cm) or -1   9 the jump's joint
 *   10   base normalized time  11 instance time (s)
 *   12-14 the ghost's x, y, z of the joint (NaN where it has not replayed)
 *   15 the ghost's speed   16 its acceleration
 * Speeds and accelerations need the frames before: the first frames are NaN. */
LAB_API const float *lab_time_series(int view, int joint, int what) {
    tape *t;
    if (!time_view(view, &t) || !t->count) return g_series;
    const int J = t->J, ghost = what >= 12;
    const int kind = ghost ? what - 12 : what; /* 0-2 position, 3 speed, 4 acceleration */
    const float *base = ghost ? t->gmodel : t->model;
    if (joint < 0 || joint >= J) joint = 0;
    for (int i = 0; i < t->count; i++) {
        const long long n = t->first + i;
        const int s = slot(n);
        float r = NAN;
#define AT(k, c) base[(size_t)slot(n - (k)) * 3 * (size_t)J + 3 * (size_t)joint + (c)]
        if (kind <= 4) {
            const int need = kind == 3 ? 1 : kind == 4 ? 2 : 0;
            const long long from = ghost ? t->g0 : t->first;
            const int held = (!ghost || (t->g0 >= 0 && n < t->gnext)) && n - need >= from;
            if (held && kind <= 2) r = AT(0, kind);
            else if (held) {
                float d2 = 0.0f;
                for (int c = 0; c < 3; c++) {
                    float d = kind == 3 ? AT(0, c) - AT(1, c) : AT(0, c) - 2.0f * AT(1, c) + AT(2, c);
                    d2 += d * d;
                }
                r = sqrtf(d2) / (kind == 3 ? LAB_DT : LAB_DT * LAB_DT);
            }
        } else if (!ghost) {
            switch (what) {
            case 5: r = t->state[s]; break;
            case 6: r = t->from[s]; break;
            case 7: r = t->progress[s]; break;
            case 8: r = t->jump[s]; break;
            case 9: r = t->jump_joint[s]; break;
            case 10: r = t->nt[s]; break;
            case 11: r = (float)t->time[s]; break;
            default: break;
            }
        }
#undef AT
        g_series[i] = r;
    }
    return g_series;
}

/* The parameters of frame n replayed on a ghost: each float, int and bool
 * at its recorded target, a trigger fired where the frame's state has it set
 * and the frame before ended without it. */
static void ghost_inputs(const tape *t, stance_instance *in, long long n) {
    for (int p = 0; p < t->P; p++) {
        stance_param_type type = stance_graph_param_type(t->graph, p);
        float target = param_word(t, n, p, 1);
        if (type == STANCE_PARAM_FLOAT) stance_instance_set_float(in, p, target, NULL);
        else if (type == STANCE_PARAM_INT) stance_instance_set_int(in, p, (int)target, NULL);
        else if (type == STANCE_PARAM_BOOL) stance_instance_set_bool(in, p, target != 0.0f, NULL);
        else if (param_word(t, n, p, 0) != 0.0f && n > t->first && t->params[(size_t)slot(n - 1) * (size_t)t->P + (size_t)p] == 0.0f)
            stance_instance_set_trigger(in, p, NULL);
    }
}

/* A ghost from frame `back` frames before the newest (the frame a switch
 * starts in): g[1] replays it with every transition switched by mode (a
 * stance_switch_mode), blend time and easing; g[0] with the switch as
 * recorded. lab_time_ghost_advance replays them. 0 or -1. */
LAB_API int lab_time_ghost(int view, int back, int mode, float blend, int easing) {
    tape *t;
    lab_view *v = time_view(view, &t);
    if (!v || t->inst != v->inst || back < 0 || back >= t->count) return lab_fail("time: no frame %d back to replay", back);
    if (mode < 0 || mode >= STANCE_SWITCH_MODE_COUNT || !(blend > 0.0f && blend <= 10.0f) ||
        (easing != STANCE_EASE_SMOOTHSTEP && easing != STANCE_EASE_LINEAR))
        return lab_fail("time: bad ghost switch %d %g %d", mode, (double)blend, easing);
    t->g0 = t->gnext = newest(t) - back;
    t->gmode = mode, t->gblend = blend, t->geasing = easing;
    t->gsame = t->gdiff = 0, t->gjump = -1.0f;
    return 0;
}

/* Replays the ghost up to the newest frame held: every frame the tape holds
 * from its switch on (it follows the tape while it records; it ends when its
 * first frame leaves the tape). Returns the frames it holds, or -1. */
LAB_API int lab_time_ghost_advance(int view) {
    tape *t;
    lab_view *v = time_view(view, &t);
    if (!v || t->g0 < 0) return 0;
    if (t->g0 < t->first) { t->g0 = t->gnext = -1; return 0; }
    stance_error err = {0};
    while (t->gnext <= newest(t)) {
        const long long n = t->gnext;
        for (int k = 0; k < 2; k++) {
            stance_instance *in = t->g[k];
            if (n == t->g0) {
                if (stance_instance_restore(in, state_at(t, n), t->bytes, &err)) return lab_fail("time: %s", err.message);
                if (k && stance_instance_override_switch(in, t->gmode, t->gblend, t->geasing, &err))
                    return lab_fail("time: %s", err.message);
            } else {
                ghost_inputs(t, in, n);
            }
            if (stance_instance_update(in, LAB_DT, t->ws, &err)) return lab_fail("time: %s", err.message);
        }
        if (inst_hash(t->g[0]) == t->hash[slot(n)]) t->gsame++;
        else t->gdiff++;
        const stance_pose *m = stance_instance_model_pose(t->g[1]);
        float *out = t->gmodel + (size_t)slot(n) * 3 * (size_t)t->J;
        for (int j = 0; j < t->J; j++) out[3 * j] = m->tx[j], out[3 * j + 1] = m->ty[j], out[3 * j + 2] = m->tz[j];
        const float *const ch[10] = {m->tx, m->ty, m->tz, m->qx, m->qy, m->qz, m->qw, m->sx, m->sy, m->sz};
        for (int k = 0; k < 10; k++)
            memcpy(t->gfull + ((size_t)slot(n) * 10 + (size_t)k) * (size_t)t->J, ch[k], sizeof(float) * (size_t)t->J);
        if (n == t->g0) { /* the ghost's own pop: against the same old state alone as the tape's */
            int ne = 0;
            const stance_event *ev = stance_instance_events(t->g[1], &ne, NULL);
            for (int i = 0; i < ne; i++) {
                if (ev[i].type != STANCE_EVENT_TRANSITION_STARTED || ev[i].layer != 0) continue;
                float d = 0.0f;
                if (!stance_instance_restore(t->scratch, state_at(t, n), t->bytes, NULL) &&
                    !stance_instance_update_ex(t->scratch, LAB_DT, STANCE_UPDATE_NO_TRANSITIONS, t->ws, NULL) &&
                    !stance_pose_distance(m, stance_instance_model_pose(t->scratch), &d, NULL, NULL))
                    t->gjump = d * 100.0f;
                break;
            }
        }
        t->gnext++;
    }
    return (int)(t->gnext - t->g0);
}
/* The ghost: its first frame (frames back from the newest, -1 none), frames
 * replayed, the check's frames equal to the tape and not, its jump (cm). */
LAB_API int lab_time_ghost_start(int view) { tape *t; return time_view(view, &t) && t->g0 >= t->first ? (int)(newest(t) - t->g0) : -1; }
LAB_API int lab_time_ghost_frames(int view) { tape *t; return time_view(view, &t) && t->g0 >= 0 ? (int)(t->gnext - t->g0) : 0; }
LAB_API int lab_time_ghost_same(int view) { tape *t; return time_view(view, &t) ? t->gsame : 0; }
LAB_API int lab_time_ghost_diff(int view) { tape *t; return time_view(view, &t) ? t->gdiff : 0; }
LAB_API float lab_time_ghost_jump(int view) { tape *t; return time_view(view, &t) ? t->gjump : -1.0f; }
/* The ghost's model translations at the frame `back` before the newest (J x 3 floats), or NULL. */
LAB_API const float *lab_time_ghost_pose(int view, int back) {
    tape *t;
    if (!time_view(view, &t) || t->g0 < 0 || back < 0 || back >= t->count) return NULL;
    const long long n = newest(t) - back;
    return n >= t->g0 && n < t->gnext ? t->gmodel + (size_t)slot(n) * 3 * (size_t)t->J : NULL;
}
/* The ghost's whole model pose at the frame `back` before the newest: 10
 * channels of J floats (tx, ty, tz, qx, qy, qz, qw, sx, sy, sz), or NULL
 * where the ghost has not replayed that frame. */
LAB_API const float *lab_time_ghost_full(int view, int back) {
    tape *t;
    if (!time_view(view, &t) || t->g0 < 0 || back < 0 || back >= t->count) return NULL;
    const long long n = newest(t) - back;
    return n >= t->g0 && n < t->gnext ? t->gfull + (size_t)slot(n) * 10 * (size_t)t->J : NULL;
}
/* The recorded model translations of a frame (J x 3 floats), or NULL. */
LAB_API const float *lab_time_pose(int view, int back) {
    tape *t;
    if (!time_view(view, &t) || back < 0 || back >= t->count) return NULL;
    return t->model + (size_t)slot(newest(t) - back) * 3 * (size_t)t->J;
}
LAB_API const float *lab_time_root(int view, int back) {
    tape *t;
    if (!time_view(view, &t) || back < 0 || back >= t->count) return NULL;
    return t->root + 3 * slot(newest(t) - back);
}
