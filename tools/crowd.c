#define _POSIX_C_SOURCE 200809L
/* tools/crowd.c - see crowd.h. Threads wait on a barrier per frame (a
 * spinning one: a sleeping barrier's wake-up took 0.2-0.3 ms a frame on this
 * VM, measured with 200 characters a thread); the calling thread is worker 0. Within a frame each thread updates its equal
 * slice (WORKLOAD.md), or with a chunk size takes chunks of characters from
 * a shared counter until none are left. */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crowd.h"
#include "core/base/platform.h" /* ST_FORCEINLINE, ST_NOINLINE, st_aligned_alloc */
#include "core/frame/workspace.h" /* the instance's hot part, the prefetch switch */

#define CROWD_MAX_THREADS 64

/* A barrier of n threads that spins (yielding now and then, so more
 * threads than cores still progress): generation gen ends when the n-th
 * thread arrives. */
typedef struct spin_barrier {
    atomic_int arrived, gen;
    int n;
} spin_barrier;

static void spin_barrier_wait(spin_barrier *b) {
    const int g = atomic_load_explicit(&b->gen, memory_order_acquire);
    if (atomic_fetch_add_explicit(&b->arrived, 1, memory_order_acq_rel) == b->n - 1) {
        atomic_store_explicit(&b->arrived, 0, memory_order_relaxed);
        atomic_store_explicit(&b->gen, g + 1, memory_order_release);
        return;
    }
    for (unsigned spins = 1; atomic_load_explicit(&b->gen, memory_order_acquire) == g; spins++) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
        __builtin_ia32_pause();
#endif
        if (spins % 4096 == 0) sched_yield();
    }
}

typedef struct worker {
    crowd *c;
    int index, first, count;
    stance_workspace *ws;
    stance_pose disp;           /* LOD: the pose shown on a skipped frame (as skinning would read it) */
    stance_instance *probe;     /* LOD ahead: the copy evaluated one interval ahead */
    long lod_updates;
    long forced;                /* error-aware: updates run on frames the plan skips */
    double cpu_ms;              /* this thread's CPU time in its slice of the last frame */
    long clips;
    stance_status status;
    pthread_t thread;
} worker;

struct crowd {
    const stance_graph *graph;
    int n, threads;
    stance_instance **inst;
    worker w[CROWD_MAX_THREADS];
    spin_barrier start, done;
    int chunk;                  /* > 0: characters a thread takes at a time from next */
    atomic_int next;            /* the first character no thread has taken this frame */
    int quit;
    long frame;
    long updates;
    long warm_frames, timed_frames;
    float run_speed;
    int p_speed, p_jump;
    /* LOD (crowd_lod_*): 0 every character updates every frame (the
     * workload); CROWD_LOD_PLAN by its item's rate and phase; CROWD_LOD_SKIP
     * every character skips (measures a skipped frame's cost) */
    int lod, summed;            /* summed: a skipped frame does not advance; the update takes the frames' sum */
    int batch;                  /* crowd_lod_batch: run_range_lod_batch where it applies */
    size_t model_at, pose_bytes; /* where an instance's model pose lies in its block, and its bytes */
    stance_lod_item *items;
    const unsigned char *shown; /* NULL: every skipped character's pose is blended; else only where shown[i] */
    stance_pose *older;         /* per character: its model pose before its last update */
    void *older_mem;
    long *last, *interval;      /* the frame of its last update, frames between its last two */
    /* ahead (crowd_lod_ahead): an update evaluates the pose one interval
     * ahead into ahead_pose[i] (older[i] is then the one it evaluated for now) and
     * a skipped frame interpolates between the two */
    int ahead;
    stance_pose *ahead_pose;
    void *ahead_mem;
    /* error-aware (crowd_lod_guard, ahead only): a character whose next
     * interval is predicted not interpolable within guard_m updates every
     * frame until force_until (its frames then show exact poses) */
    double guard_m;
    long *force_until, *forced_at; /* forced_at: the last frame it was updated off its plan */
    double frc_max, frc_sum;
    long frc_n;
    /* the error of skipped frames: full-rate twins of every twin_every-th character */
    int twin_every, twins, measure;
    stance_instance **twin;
    stance_workspace *twin_ws;
    stance_pose tmp;
    double err_max, err_sum, lag_max, lag_sum, upd_max, upd_sum;
    long err_n, lag_n, upd_n;
    stance_pose *twin_prev;     /* per twin: its pose on the frame before (the pop filter) */
    long *twin_pop;             /* per twin: the last frame its own pose popped */
    double pop_cm, cal_max, cal_sum, pop_max;
    long cal_n, pop_frames;
    const float *px_per_m;      /* crowd_lod_pixels: per character, pixels a metre spans at its distance (0: off screen) */
    double px_max, px_sum;
    long px_n;
};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Character i's inputs at frame f: speed along its own slow wave between 0
 * and the run speed (idle about a tenth of the time), a jump every 4 s at
 * a time of its own. */
ST_FORCEINLINE void inputs_of(crowd *c, stance_instance *in, int i, long f) {
    if (c->p_speed >= 0) {
        double ph = 0.6180339887 * i * 6.2831853 + (double)f / 60.0 * 6.2831853 / (6.0 + (i % 5));
        double s = (0.5 + 0.5 * sin(ph)) * 1.1 - 0.1;
        stance_instance_set_float(in, c->p_speed, s > 0.0 ? (float)s * c->run_speed : 0.0f, NULL);
    }
    if (c->p_jump >= 0 && (f + 37L * i) % 240 == 0) stance_instance_set_trigger(in, c->p_jump, NULL);
}
ST_FORCEINLINE void inputs(crowd *c, int i, long f) { inputs_of(c, c->inst[i], i, f); }

/* The pose character i shows on frame f, a frame it skips: extrapolated
 * from its last two updates, or (ahead) interpolated between the pose its
 * last update evaluated for its own frame and the one for the next. */
ST_FORCEINLINE void lod_show(const crowd *c, int i, long f, stance_pose *out) {
    const long a = f - c->last[i], iv = c->interval[i];
    if (c->ahead) {
        stance_lod_pose_blend(&c->older[i], &c->ahead_pose[i], a >= iv ? 0.0f : (float)a / (float)iv - 1.0f, out, NULL);
        return;
    }
    stance_lod_pose_blend(&c->older[i], stance_instance_model_pose(c->inst[i]), a >= iv ? 1.0f : (float)a / (float)iv, out,
                          NULL);
}

/* Asks for the two poses lod_show blends for character i (extrapolated:
 * its older pose and its model pose). */
static void lod_prefetch_poses(const crowd *c, int i) {
    /* the model pose at the same place in every instance of the graph: no
     * load of this one's pose struct (not yet in the cache) waits here */
    const char *a = c->older[i].memory, *b = (const char *)c->inst[i] + c->model_at;
    for (size_t o = 0; o < c->pose_bytes; o += 64) ST_PREFETCH(a + o), ST_PREFETCH(b + o);
}

/* The error predicted for interpolating between `now` and `next` (an
 * interval apart, the last evaluated `prev` an interval before): the
 * largest second difference of a joint's position over the three, / 8 (a
 * path of constant curvature leaves the chord by that much mid-interval),
 * in metres. A kink in either interval shows in it too. */
static double lod_predicted(const stance_pose *prev, const stance_pose *now, const stance_pose *next) {
    double worst = 0.0;
    for (int j = 0; j < now->joint_count; j++) {
        const double ax = (double)next->tx[j] - 2.0 * now->tx[j] + prev->tx[j], ay = (double)next->ty[j] - 2.0 * now->ty[j] + prev->ty[j],
                     az = (double)next->tz[j] - 2.0 * now->tz[j] + prev->tz[j];
        const double d = ax * ax + ay * ay + az * az;
        if (d > worst) worst = d;
    }
    return sqrt(worst) / 8.0;
}

/* Error-aware: whether the advance just run on a skipped frame started a
 * transition or entered a state (a jump triggered between updates: not in
 * the poses evaluated ahead). */
static int lod_switched(const stance_instance *in) {
    int n;
    const stance_event *ev = stance_instance_events(in, &n, NULL);
    for (int k = 0; k < n; k++)
        if (ev[k].type == STANCE_EVENT_TRANSITION_STARTED || ev[k].type == STANCE_EVENT_STATE_ENTERED) return 1;
    return 0;
}

/* An update of character i ahead (rate > 1): its controller advances
 * exactly by this frame (events, root motion, transitions on time); a copy
 * of it is updated by the interval to its next update (rate frames: the
 * inputs as they stand now), and that pose becomes ahead_pose[i]; the one the
 * last update evaluated for now becomes older[i] (shown on this frame). */
static stance_status lod_update_ahead(worker *w, stance_instance *in, int i, int rate) {
    crowd *c = w->c;
    const float dt = 1.0f / 60.0f;
    /* error-aware: the interval before ran at full rate, so this frame shows its exact pose too */
    const int exact = c->guard_m > 0.0 && c->force_until[i] >= c->frame;
    stance_status s = exact ? stance_instance_update(in, dt, w->ws, NULL) : stance_instance_advance(in, dt, w->ws, NULL);
    if (s) return s;
    if (exact) w->forced++, c->forced_at[i] = c->frame;
    stance_instance_copy(w->probe, in, NULL);
    if (c->ahead == 2) { /* stepped: the interval frame by frame (transitions on their frame, with the inputs of now) */
        for (int k = 1; k < rate && !s; k++) s = stance_instance_advance(w->probe, dt, w->ws, NULL);
        if (!s) s = stance_instance_update(w->probe, dt, w->ws, NULL);
    } else {
        s = stance_instance_update(w->probe, rate >= 60 ? 1.0f : (float)rate * dt, w->ws, NULL);
    }
    /* the pose shown now: evaluated for this frame an interval ago, or exact */
    const stance_pose *now = exact ? stance_instance_model_pose(in) : &c->ahead_pose[i], *next = stance_instance_model_pose(w->probe);
    if (c->guard_m > 0.0 && lod_predicted(&c->older[i], now, next) > c->guard_m) c->force_until[i] = c->frame + rate;
    if (exact) {
        stance_pose_copy(&c->older[i], now, NULL);
    } else {
        const stance_pose t = c->older[i];
        c->older[i] = c->ahead_pose[i], c->ahead_pose[i] = t;
    }
    stance_pose_copy(&c->ahead_pose[i], next, NULL);
    c->interval[i] = rate, c->last[i] = c->frame;
    return s;
}

/* The LOD frame of characters [first, first + count): each updates on its
 * due frames (its model pose before the update kept as `older`) and
 * otherwise advances and shows the pose extrapolated from its last two. */
static ST_NOINLINE void run_range_lod(worker *w, int first, int count) {
    crowd *c = w->c;
    const long f = c->frame;
    const float dt = 1.0f / 60.0f;
    for (int i = first; i < first + count; i++) {
        inputs(c, i, f);
        stance_instance *in = c->inst[i];
        const stance_lod_item *it = &c->items[i];
        stance_status s;
        if (c->ahead && c->lod != CROWD_LOD_SKIP && it->rate > 1 && stance_lod_due(it->rate, it->phase, f)) {
            s = lod_update_ahead(w, in, i, it->rate);
            w->clips += stance_instance_clips_sampled(w->probe);
            w->lod_updates++;
        } else if (c->lod != CROWD_LOD_SKIP && stance_lod_due(it->rate, it->phase, f)) {
            /* summed: one update over the frames since the last (at most 1 s) */
            const long since = c->last[i] >= 0 ? f - c->last[i] : 1;
            const float step = c->summed ? (since >= 60 ? 1.0f : (float)since * dt) : dt;
            stance_pose_copy(&c->older[i], stance_instance_model_pose(in), NULL);
            c->interval[i] = since;
            c->last[i] = f;
            s = stance_instance_update(in, step, w->ws, NULL);
            w->clips += stance_instance_clips_sampled(in);
            w->lod_updates++;
            if (c->ahead) stance_pose_copy(&c->ahead_pose[i], stance_instance_model_pose(in), NULL);
        } else if (c->guard_m > 0.0 && c->lod != CROWD_LOD_SKIP && f < c->force_until[i]) {
            s = stance_instance_update(in, dt, w->ws, NULL); /* error-aware: full rate for this interval */
            w->forced++, c->forced_at[i] = f;
        } else {
            s = c->summed ? STANCE_OK : stance_instance_advance(in, dt, w->ws, NULL);
            if (c->guard_m > 0.0 && it->rate > 1 && lod_switched(in)) c->force_until[i] = c->last[i] + it->rate;
            if (!c->shown || c->shown[i]) lod_show(c, i, f, &w->disp);
        }
        if (s && !w->status) w->status = s;
    }
}

/* The LOD frame as a game with one kind of LOD would run it, in batches
 * (exact steps, extrapolated poses, no error guard): for each chunk of
 * LOD_CHUNK characters, the inputs of all, then the ones due updated in one
 * call (each with its model pose before kept as `older`), the others
 * advanced in one call (stance_instances_advance: the next one's state
 * asked for ahead), then the poses of those shown extrapolated. Each
 * character's calls are those of run_range_lod, in the same order, so the
 * result is the same bit for bit; the chunk keeps what the inputs touched
 * in the cache for the calls after them. */
#define LOD_CHUNK 64
static ST_NOINLINE void run_range_lod_batch(worker *w, int first, int count) {
    crowd *c = w->c;
    const long f = c->frame;
    const float dt = 1.0f / 60.0f;
    stance_instance *upd[LOD_CHUNK], *skip[LOD_CHUNK];
    int skipped[LOD_CHUNK];
    for (int at = first, end = first + count; at < end; at += LOD_CHUNK) {
        const int n = end - at < LOD_CHUNK ? end - at : LOD_CHUNK;
        int nu = 0, ns = 0;
        for (int i = at; i < at + n; i++) {
            inputs(c, i, f);
            stance_instance *in = c->inst[i];
            const stance_lod_item *it = &c->items[i];
            if (c->lod != CROWD_LOD_SKIP && stance_lod_due(it->rate, it->phase, f)) {
                stance_pose_copy(&c->older[i], stance_instance_model_pose(in), NULL);
                c->interval[i] = c->last[i] >= 0 ? f - c->last[i] : 1;
                c->last[i] = f;
                upd[nu++] = in;
            } else {
                skip[ns] = in, skipped[ns++] = i;
            }
        }
        stance_status s = stance_instances_update(upd, nu, dt, w->ws, NULL);
        if (s && !w->status) w->status = s;
        s = stance_instances_advance(skip, ns, dt, w->ws, NULL);
        if (s && !w->status) w->status = s;
        for (int k = 0; k < nu; k++) w->clips += stance_instance_clips_sampled(upd[k]);
        w->lod_updates += nu;
        /* the poses shown, the next one's two poses asked for while one blends */
        int prev = -1;
        for (int k = 0; k < ns; k++) {
            const int i = skipped[k];
            if (c->shown && !c->shown[i]) continue;
            if (prev >= 0) lod_show(c, prev, f, &w->disp);
            lod_prefetch_poses(c, i);
            prev = i;
        }
        if (prev >= 0) lod_show(c, prev, f, &w->disp);
    }
}

static void run_range(worker *w, int first, int count) {
    crowd *c = w->c;
    if (c->lod) {
        if (c->batch && !c->ahead && !c->summed && !(c->guard_m > 0.0)) run_range_lod_batch(w, first, count);
        else run_range_lod(w, first, count);
        return;
    }
    const long f = c->frame;
    for (int i = first; i < first + count; i++) inputs(c, i, f);
    stance_status s = stance_instances_update(c->inst + first, count, 1.0f / 60.0f, w->ws, NULL);
    if (s && !w->status) w->status = s;
    for (int i = first; i < first + count; i++) w->clips += stance_instance_clips_sampled(c->inst[i]);
}

static double thread_cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

static void run_slice_work(worker *w);
/* A thread's part of a frame, its CPU time kept with LOD (crowd_frame_cpu_ms;
 * without, `stance bench --graph` times the calling thread itself and the
 * workload's instruction count stays the runtime's alone). */
static void run_slice(worker *w) {
    if (!w->c->lod) {
        run_slice_work(w);
        return;
    }
    const double c0 = thread_cpu_ms();
    run_slice_work(w);
    w->cpu_ms = thread_cpu_ms() - c0;
}

static void run_slice_work(worker *w) {
    crowd *c = w->c;
    if (c->chunk <= 0) {
        run_range(w, w->first, w->count);
        return;
    }
    for (;;) {
        const int first = atomic_fetch_add_explicit(&c->next, c->chunk, memory_order_relaxed);
        if (first >= c->n) break;
        run_range(w, first, first + c->chunk <= c->n ? c->chunk : c->n - first);
    }
}

static void *thread_main(void *p) {
    worker *w = p;
    for (;;) {
        spin_barrier_wait(&w->c->start);
        if (w->c->quit) return NULL;
        run_slice(w);
        spin_barrier_wait(&w->c->done);
    }
}

/* Largest distance between the joints' model-space positions of a and b;
 * the sum of all of them into *sum. */
static double pose_dist(const stance_pose *a, const stance_pose *b, double *sum) {
    double worst = 0.0;
    for (int j = 0; j < a->joint_count; j++) {
        const double dx = (double)a->tx[j] - b->tx[j], dy = (double)a->ty[j] - b->ty[j], dz = (double)a->tz[j] - b->tz[j];
        const double d = sqrt(dx * dx + dy * dy + dz * dz);
        if (d > worst) worst = d;
        *sum += d;
    }
    return worst;
}

/* After frame f (untimed): each twin updates at full rate with its
 * character's inputs; measuring, the character's pose is compared with
 * it: on an updated frame (0 for an exact update; ahead, the pose
 * evaluated for it one interval before) and on a skipped one as shown,
 * and (extrapolating) as it would be interpolated one interval late.
 * The twin's own pop (docs/lod.md): the second difference of its joints'
 * positions over its last three frames (the change of their per-frame
 * motion); where it exceeds pop_cm, the character's skipped frames within
 * two of its intervals after it are left out of the second measure. */
void crowd_lod_twins(crowd *c) {
    const long f = c->frame - 1;
    for (int k = 0; k < c->twins; k++) {
        const int i = k * c->twin_every;
        stance_instance *tw = c->twin[k];
        inputs_of(c, tw, i, f);
        stance_instance_update(tw, 1.0f / 60.0f, c->twin_ws, NULL);
        const stance_pose *full = stance_instance_model_pose(tw);
        stance_pose *p1 = &c->twin_prev[2 * k], *p2 = &c->twin_prev[2 * k + 1];
        double pop = 0.0;
        for (int j = 0; j < full->joint_count; j++) {
            const double ax = (double)full->tx[j] - 2.0 * p1->tx[j] + p2->tx[j], ay = (double)full->ty[j] - 2.0 * p1->ty[j] + p2->ty[j],
                         az = (double)full->tz[j] - 2.0 * p1->tz[j] + p2->tz[j];
            const double d = sqrt(ax * ax + ay * ay + az * az);
            if (d > pop) pop = d;
        }
        stance_pose_copy(p2, p1, NULL), stance_pose_copy(p1, full, NULL);
        if (!c->measure) continue;
        if (pop > c->pop_max) c->pop_max = pop;
        if (100.0 * pop > c->pop_cm) c->twin_pop[k] = f, c->pop_frames++;
        const stance_pose *mine = stance_instance_model_pose(c->inst[i]);
        if (c->guard_m > 0.0 && c->forced_at[i] == f) { /* updated off its plan: its own pose is shown */
            const double d = pose_dist(full, mine, &c->frc_sum);
            if (d > c->frc_max) c->frc_max = d;
            c->frc_n += full->joint_count;
            continue;
        }
        if (c->last[i] == f) {
            const double d = pose_dist(full, c->ahead && c->items[i].rate > 1 ? &c->older[i] : mine, &c->upd_sum);
            if (d > c->upd_max) c->upd_max = d;
            c->upd_n += full->joint_count;
            continue;
        }
        lod_show(c, i, f, &c->tmp);
        const double sum0 = c->err_sum;
        double d = pose_dist(full, &c->tmp, &c->err_sum);
        if (d > c->err_max) c->err_max = d;
        c->err_n += full->joint_count;
        if (c->px_per_m && c->px_per_m[i] > 0.0f) { /* on screen: the error a viewer sees, in pixels */
            const double px = c->px_per_m[i];
            if (d * px > c->px_max) c->px_max = d * px;
            c->px_sum += (c->err_sum - sum0) * px;
            c->px_n += full->joint_count;
        }
        if (f - c->twin_pop[k] >= 2L * c->items[i].rate) { /* no pop of the twin's in the last two intervals */
            if (d > c->cal_max) c->cal_max = d;
            c->cal_sum += c->err_sum - sum0;
            c->cal_n += full->joint_count;
        }
        if (c->ahead) continue;
        const long a = f - c->last[i], iv = c->interval[i];
        stance_lod_pose_blend(&c->older[i], mine, (a >= iv ? 1.0f : (float)a / (float)iv) - 1.0f, &c->tmp, NULL);
        d = pose_dist(full, &c->tmp, &c->lag_sum);
        if (d > c->lag_max) c->lag_max = d;
        c->lag_n += full->joint_count;
    }
}

static double frame(crowd *c) {
    atomic_store_explicit(&c->next, 0, memory_order_relaxed); /* the start barrier orders it before the workers */
    double t0 = now_s();
    if (c->threads > 1) spin_barrier_wait(&c->start);
    run_slice(&c->w[0]);
    if (c->threads > 1) spin_barrier_wait(&c->done);
    double t = now_s() - t0;
    c->frame++;
    if (!c->lod) c->updates += c->n;
    return t;
}

double crowd_frame_warm(crowd *c) {
    c->warm_frames++;
    return frame(c);
}
double crowd_frame_timed(crowd *c) {
    c->timed_frames++;
    return frame(c);
}

static int find_layer(const stance_graph *g, const char *name) { return stance_graph_find_layer(g, name); }

stance_status crowd_create(const stance_graph *g, int n, int threads, int chunk, crowd **out, stance_error *err) {
    *out = NULL;
    if (!g || n < 1 || threads < 1 || threads > CROWD_MAX_THREADS || threads > n) {
        if (err) { err->status = STANCE_ERR_ARGUMENT; strcpy(err->message, "crowd: need a graph, 1..64 threads and at least one character per thread"); }
        return STANCE_ERR_ARGUMENT;
    }
    crowd *c = calloc(1, sizeof *c);
    if (!c) return STANCE_ERR_MEMORY;
    c->graph = g, c->n = n, c->threads = threads, c->chunk = chunk > 0 ? chunk : 0;
    c->inst = calloc((size_t)n, sizeof *c->inst);
    if (!c->inst) { free(c); return STANCE_ERR_MEMORY; }
    c->p_speed = stance_graph_find_param(g, "speed");
    if (c->p_speed >= 0 && stance_graph_param_type(g, c->p_speed) != STANCE_PARAM_FLOAT) c->p_speed = -1;
    c->p_jump = stance_graph_find_param(g, "jump");
    if (c->p_jump >= 0 && stance_graph_param_type(g, c->p_jump) != STANCE_PARAM_TRIGGER) c->p_jump = -1;
    /* the run speed: the fastest clip the graph plays */
    const stance_clip *clips[256];
    int nc = stance_graph_clips(g, clips, 256);
    c->run_speed = 0.0f;
    for (int k = 0; k < nc && k < 256; k++)
        if (clips[k]->root_speed > c->run_speed) c->run_speed = clips[k]->root_speed;
    if (c->run_speed <= 0.0f) c->run_speed = 4.0f;
    const int lb = find_layer(g, "breathe"), ll = find_layer(g, "lean"), lw = find_layer(g, "wave");
    stance_status s = STANCE_OK;
    for (int i = 0; i < n && !s; i++) {
        s = stance_instance_create(g, NULL, &c->inst[i], err);
        if (s) break;
        if (lb > 0) stance_instance_set_layer_weight(c->inst[i], lb, 0.5f, 0.0f, NULL);
        if (ll > 0) stance_instance_set_layer_weight(c->inst[i], ll, 0.3f, 0.0f, NULL);
        if (lw > 0 && i % 3 == 0) stance_instance_set_layer_weight(c->inst[i], lw, 1.0f, 0.0f, NULL);
    }
    for (int t = 0; t < threads && !s; t++) {
        worker *w = &c->w[t];
        w->c = c, w->index = t;
        w->first = (int)((long)n * t / threads);
        w->count = (int)((long)n * (t + 1) / threads) - w->first;
        s = stance_workspace_create(g, NULL, &w->ws, err);
    }
    if (s) { crowd_destroy(c); return s; }
    if (threads > 1) {
        c->start.n = c->done.n = threads; /* the counters start at 0 (calloc) */
        for (int t = 1; t < threads; t++) pthread_create(&c->w[t].thread, NULL, thread_main, &c->w[t]);
    }
    *out = c;
    return STANCE_OK;
}

void crowd_destroy(crowd *c) {
    if (!c) return;
    if (c->threads > 1 && c->w[1].thread) {
        c->quit = 1;
        spin_barrier_wait(&c->start);
        for (int t = 1; t < c->threads; t++) pthread_join(c->w[t].thread, NULL);
    }
    for (int t = 0; t < c->threads; t++)
        stance_workspace_destroy(c->w[t].ws), stance_pose_destroy(&c->w[t].disp), stance_instance_destroy(c->w[t].probe);
    for (int k = 0; k < 2 * c->twins && c->twin_prev; k++) stance_pose_destroy(&c->twin_prev[k]);
    free(c->twin_prev), free(c->twin_pop), free(c->ahead_pose), st_aligned_free(c->ahead_mem);
    for (int k = 0; k < c->twins; k++) stance_instance_destroy(c->twin[k]);
    stance_workspace_destroy(c->twin_ws);
    stance_pose_destroy(&c->tmp);
    free(c->twin), free(c->items), free(c->older), st_aligned_free(c->older_mem), free(c->last), free(c->interval);
    free(c->force_until), free(c->forced_at);
    for (int i = 0; i < c->n; i++) stance_instance_destroy(c->inst[i]);
    free(c->inst);
    free(c);
}

size_t crowd_instance_bytes(const crowd *c) { return stance_instance_bytes(c->inst[0]); }
stance_instance *crowd_instance(const crowd *c, int i) { return c->inst[i]; }
size_t crowd_instance_hot_bytes(const crowd *c) { return c->inst[0]->hot_bytes; }
void crowd_prefetch(crowd *c, int mode) {
    for (int t = 0; t < c->threads; t++) st_workspace_set_prefetch(c->w[t].ws, mode);
}
size_t crowd_workspace_bytes(const crowd *c) { return stance_workspace_size(c->w[0].ws); }
const void *crowd_workspace(const crowd *c) { return c->w[0].ws; }
double crowd_clips_per_update(const crowd *c) {
    long clips = 0, updates = c->updates;
    for (int t = 0; t < c->threads; t++) clips += c->w[t].clips, updates += c->w[t].lod_updates;
    return updates ? (double)clips / (double)updates : 0.0;
}

stance_status crowd_lod_enable(crowd *c, int twin_every, stance_error *err) {
    const int n = c->n, J = stance_graph_skeleton(c->graph)->joint_count;
    const size_t pb = stance_pose_bytes(J);
    c->items = calloc((size_t)n, sizeof *c->items);
    c->older = calloc((size_t)n, sizeof *c->older);
    c->older_mem = st_aligned_alloc(32, pb * (size_t)n);
    c->last = malloc(sizeof(long) * (size_t)n);
    c->interval = malloc(sizeof(long) * (size_t)n);
    if (!c->items || !c->older || !c->older_mem || !c->last || !c->interval) {
        if (err) { err->status = STANCE_ERR_MEMORY; strcpy(err->message, "crowd: out of memory for the LOD poses"); }
        return STANCE_ERR_MEMORY;
    }
    stance_status s = STANCE_OK;
    for (int i = 0; i < n && !s; i++) {
        c->items[i].rate = 1, c->items[i].phase = 0;
        c->last[i] = -1, c->interval[i] = 1;
        s = stance_pose_init(&c->older[i], J, (char *)c->older_mem + pb * (size_t)i, pb, err);
    }
    for (int t = 0; t < c->threads && !s; t++) s = stance_pose_create(&c->w[t].disp, J, NULL, err);
    if (!s) s = stance_pose_create(&c->tmp, J, NULL, err);
    if (s) return s;
    if (twin_every > 0) {
        c->twin_every = twin_every;
        const int tw = (n + twin_every - 1) / twin_every;
        c->twin = calloc((size_t)tw, sizeof *c->twin);
        c->twin_prev = calloc(2 * (size_t)tw, sizeof *c->twin_prev);
        c->twin_pop = malloc(sizeof(long) * (size_t)tw);
        if (!c->twin || !c->twin_prev || !c->twin_pop) return STANCE_ERR_MEMORY;
        c->pop_cm = 1.0;
        s = stance_workspace_create(c->graph, NULL, &c->twin_ws, err);
        const int lb = find_layer(c->graph, "breathe"), ll = find_layer(c->graph, "lean"), lw = find_layer(c->graph, "wave");
        for (int k = 0; k < tw && !s; k++) {
            /* the twin of character k * twin_every, set up as crowd_create sets it up */
            const int i = k * twin_every;
            s = stance_instance_create(c->graph, NULL, &c->twin[k], err);
            if (s) break;
            c->twins = k + 1;
            c->twin_pop[k] = -1000000;
            s = stance_pose_create(&c->twin_prev[2 * k], J, NULL, err);
            if (!s) s = stance_pose_create(&c->twin_prev[2 * k + 1], J, NULL, err);
            if (s) break;
            stance_pose_set_rest(&c->twin_prev[2 * k], stance_graph_skeleton(c->graph), NULL);
            stance_pose_set_rest(&c->twin_prev[2 * k + 1], stance_graph_skeleton(c->graph), NULL);
            if (lb > 0) stance_instance_set_layer_weight(c->twin[k], lb, 0.5f, 0.0f, NULL);
            if (ll > 0) stance_instance_set_layer_weight(c->twin[k], ll, 0.3f, 0.0f, NULL);
            if (lw > 0 && i % 3 == 0) stance_instance_set_layer_weight(c->twin[k], lw, 1.0f, 0.0f, NULL);
        }
        if (s) return s;
        if (c->frame) { /* the twins start where the characters started */
            if (err) { err->status = STANCE_ERR_ARGUMENT; strcpy(err->message, "crowd: enable LOD before the first frame"); }
            return STANCE_ERR_ARGUMENT;
        }
    }
    c->lod = CROWD_LOD_PLAN;
    return STANCE_OK;
}

stance_status crowd_lod_ahead(crowd *c, int stepped, stance_error *err) {
    const int n = c->n, J = stance_graph_skeleton(c->graph)->joint_count;
    const size_t pb = stance_pose_bytes(J);
    c->ahead_pose = calloc((size_t)n, sizeof *c->ahead_pose);
    c->ahead_mem = st_aligned_alloc(32, pb * (size_t)n);
    if (!c->ahead_pose || !c->ahead_mem) {
        if (err) { err->status = STANCE_ERR_MEMORY; strcpy(err->message, "crowd: out of memory for the LOD poses"); }
        return STANCE_ERR_MEMORY;
    }
    stance_status s = STANCE_OK;
    for (int i = 0; i < n && !s; i++) s = stance_pose_init(&c->ahead_pose[i], J, (char *)c->ahead_mem + pb * (size_t)i, pb, err);
    for (int t = 0; t < c->threads && !s; t++) s = stance_instance_create(c->graph, NULL, &c->w[t].probe, err);
    if (!s) c->ahead = stepped ? 2 : 1;
    return s;
}
void crowd_lod_pop_cm(crowd *c, double cm) { c->pop_cm = cm; }
void crowd_lod_mode(crowd *c, int mode, int summed) { c->lod = mode, c->summed = summed; }
stance_lod_item *crowd_lod_items(crowd *c) { return c->items; }
void crowd_lod_shown(crowd *c, const unsigned char *shown) { c->shown = shown; }
void crowd_lod_pixels(crowd *c, const float *px_per_m) { c->px_per_m = px_per_m; }
void crowd_lod_batch(crowd *c, int on) {
    c->batch = on;
    const stance_pose *m = stance_instance_model_pose(c->inst[0]);
    c->model_at = (size_t)((const char *)m->memory - (const char *)c->inst[0]);
    c->pose_bytes = stance_pose_bytes(m->joint_count);
}
void crowd_lod_measure(crowd *c, int on) {
    c->measure = on;
    c->err_max = c->err_sum = c->lag_max = c->lag_sum = c->upd_max = c->upd_sum = 0.0;
    c->cal_max = c->cal_sum = c->pop_max = 0.0;
    c->err_n = c->lag_n = c->upd_n = c->cal_n = c->pop_frames = 0;
    c->frc_max = c->frc_sum = 0.0, c->frc_n = 0;
    c->px_max = c->px_sum = 0.0, c->px_n = 0;
}
void crowd_lod_errors(const crowd *c, crowd_lod_error *out) {
    out->worst = c->err_max, out->mean = c->err_n ? c->err_sum / (double)c->err_n : 0.0;
    out->late_worst = c->lag_max, out->late_mean = c->lag_n ? c->lag_sum / (double)c->lag_n : 0.0;
    out->updated_worst = c->upd_max, out->updated_mean = c->upd_n ? c->upd_sum / (double)c->upd_n : 0.0;
    out->calm_worst = c->cal_max, out->calm_mean = c->cal_n ? c->cal_sum / (double)c->cal_n : 0.0;
    out->calm_samples = c->cal_n, out->pop_frames = c->pop_frames, out->pop_max = c->pop_max;
    out->joint_samples = c->err_n;
    out->twins = c->twins;
    out->forced_worst = c->frc_max, out->forced_mean = c->frc_n ? c->frc_sum / (double)c->frc_n : 0.0;
    out->forced_samples = c->frc_n;
    out->px_worst = c->px_max, out->px_mean = c->px_n ? c->px_sum / (double)c->px_n : 0.0, out->px_samples = c->px_n;
}
stance_status crowd_lod_guard(crowd *c, double cm, stance_error *err) {
    if (!c->ahead || !(cm > 0.0)) {
        if (err) { err->status = STANCE_ERR_ARGUMENT; strcpy(err->message, "crowd: the error guard needs the poses evaluated ahead and cm > 0"); }
        return STANCE_ERR_ARGUMENT;
    }
    c->force_until = malloc(sizeof(long) * (size_t)c->n);
    c->forced_at = malloc(sizeof(long) * (size_t)c->n);
    if (!c->force_until || !c->forced_at) {
        if (err) { err->status = STANCE_ERR_MEMORY; strcpy(err->message, "crowd: out of memory for the error guard"); }
        return STANCE_ERR_MEMORY;
    }
    for (int i = 0; i < c->n; i++) c->force_until[i] = c->forced_at[i] = -1;
    c->guard_m = cm / 100.0;
    return STANCE_OK;
}
double crowd_frame_cpu_ms(const crowd *c) {
    double worst = 0.0;
    for (int t = 0; t < c->threads; t++)
        if (c->w[t].cpu_ms > worst) worst = c->w[t].cpu_ms;
    return worst;
}
/* A worker's count (a long at `at` in struct worker) summed over the threads. */
static long workers_sum(const crowd *c, size_t at) {
    long u = 0;
    for (int t = 0; t < c->threads; t++) u += *(const long *)((const char *)&c->w[t] + at);
    return u;
}
long crowd_lod_updates(const crowd *c) { return workers_sum(c, offsetof(worker, lod_updates)); }
long crowd_lod_forced(const crowd *c) { return workers_sum(c, offsetof(worker, forced)); }
double crowd_check(const crowd *c) {
    double sum = 0.0;
    for (int i = 0; i < c->n; i++) {
        const stance_pose *m = stance_instance_model_pose(c->inst[i]);
        for (int j = 0; j < m->joint_count; j++) sum += (double)m->tx[j] + (double)m->ty[j] + (double)m->tz[j];
    }
    return sum;
}
