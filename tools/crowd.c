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
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crowd.h"

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
};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Character i's inputs at frame f: speed along its own slow wave between 0
 * and the run speed (idle about a tenth of the time), a jump every 4 s at
 * a time of its own. */
static void inputs(crowd *c, int i, long f) {
    stance_instance *in = c->inst[i];
    if (c->p_speed >= 0) {
        double ph = 0.6180339887 * i * 6.2831853 + (double)f / 60.0 * 6.2831853 / (6.0 + (i % 5));
        double s = (0.5 + 0.5 * sin(ph)) * 1.1 - 0.1;
        stance_instance_set_float(in, c->p_speed, s > 0.0 ? (float)s * c->run_speed : 0.0f, NULL);
    }
    if (c->p_jump >= 0 && (f + 37L * i) % 240 == 0) stance_instance_set_trigger(in, c->p_jump, NULL);
}

static void run_range(worker *w, int first, int count) {
    crowd *c = w->c;
    const long f = c->frame;
    for (int i = first; i < first + count; i++) inputs(c, i, f);
    stance_status s = stance_instances_update(c->inst + first, count, 1.0f / 60.0f, w->ws, NULL);
    if (s && !w->status) w->status = s;
    for (int i = first; i < first + count; i++) w->clips += stance_instance_clips_sampled(c->inst[i]);
}

static void run_slice(worker *w) {
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

static double frame(crowd *c) {
    atomic_store_explicit(&c->next, 0, memory_order_relaxed); /* the start barrier orders it before the workers */
    double t0 = now_s();
    if (c->threads > 1) spin_barrier_wait(&c->start);
    run_slice(&c->w[0]);
    if (c->threads > 1) spin_barrier_wait(&c->done);
    double t = now_s() - t0;
    c->frame++;
    c->updates += c->n;
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
    for (int t = 0; t < c->threads; t++) stance_workspace_destroy(c->w[t].ws);
    for (int i = 0; i < c->n; i++) stance_instance_destroy(c->inst[i]);
    free(c->inst);
    free(c);
}

size_t crowd_instance_bytes(const crowd *c) { return stance_instance_bytes(c->inst[0]); }
size_t crowd_workspace_bytes(const crowd *c) { return stance_workspace_size(c->w[0].ws); }
double crowd_clips_per_update(const crowd *c) {
    long clips = 0;
    for (int t = 0; t < c->threads; t++) clips += c->w[t].clips;
    return c->updates ? (double)clips / (double)c->updates : 0.0;
}
double crowd_check(const crowd *c) {
    double sum = 0.0;
    for (int i = 0; i < c->n; i++) {
        const stance_pose *m = stance_instance_model_pose(c->inst[i]);
        for (int j = 0; j < m->joint_count; j++) sum += (double)m->tx[j] + (double)m->ty[j] + (double)m->tz[j];
    }
    return sum;
}
