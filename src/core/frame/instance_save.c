/* src/core/frame/instance_save.c - an instance's whole persistent state in a
 * caller's buffer (stance_instance_state_size / _save / _restore,
 * stance/instance.h): rollback, replays, a server's rewind.
 *
 * The buffer: a header of 80 bytes, then the body, 32-bit words in the
 * machine's byte order (a double takes two):
 *   header  magic "STSV", format version, total size, history option, the
 *           counts the body is laid out by (joints, parameters, machines,
 *           layers, IK entries, machine poses, records, cursors), the
 *           graph's identity (core/graph/graph_identity.c), the body's hash
 *           and the header's own hash (FNV-1a 64 of the bytes before it)
 *   body    the instance fields, parameters, each machine's play state,
 *           switch, history and request, its cursors, layer weights, the
 *           local and model poses and the machines' persistent poses (real
 *           joints; padding lanes are never read into a real joint), the
 *           inertialization records, the IK state and targets, the event
 *           queue (a marker's clip as its state's clip, -1, or its entry)
 * Not saved: what is not state (the graph, the allocator, the ground
 * callback: the instance restored keeps its own) and what bind() derives.
 *
 * One visitor (visit) walks the body in three modes: SAVE writes the
 * instance's fields, CHECK reads and validates every field without writing,
 * APPLY writes them into the instance. restore runs CHECK over the whole
 * body and only then APPLY, so a refused restore changes nothing. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/base/internal.h"
#include "core/frame/curves.h"
#include "core/frame/transition.h"
#include "core/graph/graph_identity.h"
#include "core/frame/instance_internal.h"

#define SV_MAGIC 0x56535453u /* "STSV" read as a little-endian word */
#define SV_VERSION 3u /* 2: plays and root motion carry the root yaw (issue 25); 3: the turn's axis too (full root
                           rotation, issue 25), open windows, events' window reasons, markers of authored clip notes
                           (issue 26) */
#define SV_HEADER 80
/* every float of the state that has no tighter rule is finite and at most
 * this in magnitude (world positions, velocities, inertialization records) */
#define SV_BIG 1e12f
/* counters (loops, cursor steps, dropped events) stay far from INT_MAX: they only count up */
#define SV_COUNT_MAX (1 << 30)

typedef struct sv_header {
    uint32_t magic, version;
    uint64_t size;
    uint32_t history_all, joints, params, machines, layers, iks, poses, recs, cursors;
    uint32_t reserved;
    uint64_t graph_id, body_hash, header_hash;
} sv_header;
_Static_assert(sizeof(sv_header) == SV_HEADER, "the saved state's header is 80 bytes");
_Static_assert(sizeof(int) == 4 && sizeof(float) == 4 && sizeof(double) == 8, "32-bit words");

enum { SV_SAVE, SV_CHECK, SV_APPLY };

typedef struct sv_ctx {
    int mode;
    unsigned char *out;         /* SAVE */
    const unsigned char *in;    /* CHECK, APPLY */
    size_t at;
    int bad;                    /* CHECK: a field was refused (the message is in err) */
    int tmp;                    /* the fields are the visitor's own copies: CHECK writes them too */
    stance_error *err;
    const char *sec;            /* the section and index a message names */
    int idx;
} sv_ctx;

static void put(sv_ctx *c, const void *v, size_t n) {
    if (c->mode == SV_SAVE) memcpy(c->out + c->at, v, n);
    c->at += n;
}

static void get(sv_ctx *c, void *v, size_t n) {
    memcpy(v, c->in + c->at, n);
    c->at += n;
}

static void refuse_num(sv_ctx *c, const char *what, double v, double lo, double hi) {
    if (c->bad) return;
    c->bad = 1;
    st_fail(c->err, STANCE_ERR_FORMAT, "instance restore: %s %d: %s = %g is not in [%g, %g] (a corrupt or forged state)",
            c->sec, c->idx, what, v, lo, hi);
}

/* An int field in [lo, hi]: its value (the instance's when saving). */
static int sv_int(sv_ctx *c, int *field, int lo, int hi, const char *what) {
    int v = 0;
    if (c->mode == SV_SAVE) { v = *field; put(c, &v, 4); return v; }
    get(c, &v, 4);
    if (c->mode == SV_CHECK) { if (v < lo || v > hi) refuse_num(c, what, v, lo, hi); }
    else *field = v;
    return v;
}

/* an enum field (stored as an int) */
#define SV_ENUM(c, field, lo, hi, what) do { int e_ = (int)(field); sv_int(c, &e_, lo, hi, what); \
    if ((c)->mode == SV_APPLY) (field) = e_; } while (0)

/* A float field, finite and in [lo, hi]. */
static float sv_float(sv_ctx *c, float *field, float lo, float hi, const char *what) {
    float v = 0.0f;
    if (c->mode == SV_SAVE) { v = *field; put(c, &v, 4); return v; }
    get(c, &v, 4);
    if (c->mode == SV_CHECK && !(v >= lo && v <= hi)) refuse_num(c, what, v, lo, hi); /* NaN fails too */
    if (c->mode == SV_APPLY || c->tmp) *field = v;
    return v;
}

static void sv_floats(sv_ctx *c, float *field, int n, float lo, float hi, const char *what) {
    for (int i = 0; i < n; i++) sv_float(c, &field[i], lo, hi, what);
}

static double sv_double(sv_ctx *c, double *field, double lo, double hi, const char *what) {
    double v = 0.0;
    if (c->mode == SV_SAVE) { v = *field; put(c, &v, 8); return v; }
    get(c, &v, 8);
    if (c->mode == SV_CHECK) { if (!(v >= lo && v <= hi)) refuse_num(c, what, v, lo, hi); }
    else *field = v;
    return v;
}

/* A root motion (g_play.root, stance_instance.root_delta): translation and
 * the turn's angle in [-big, big], the axis' components in [-1.01, 1.01]
 * and, when the angle is not 0, a unit vector. */
static void sv_root(sv_ctx *c, float root[7], float big, const char *what) {
    float v[7];
    memcpy(v, root, sizeof v);
    c->tmp = 1;
    sv_floats(c, v, 4, -big, big, what);
    sv_floats(c, v + 4, 3, -1.01f, 1.01f, "root turn axis");
    c->tmp = 0;
    if (c->mode == SV_CHECK && !c->bad && v[3] != 0.0f && !(fabsf(v[4] * v[4] + v[5] * v[5] + v[6] * v[6] - 1.0f) <= 2e-3f)) {
        c->bad = 1;
        st_fail(c->err, STANCE_ERR_FORMAT, "instance restore: %s %d: the root turn's axis is not a unit vector (a corrupt or "
                "forged state)", c->sec, c->idx);
    }
    if (c->mode == SV_APPLY) memcpy(root, v, sizeof v);
}

static void sv_play(sv_ctx *c, g_play *p, const g_machine *gm) {
    sv_int(c, &p->state, gm->state_first, gm->state_first + gm->state_count - 1, "state");
    sv_int(c, &p->loops, -SV_COUNT_MAX, SV_COUNT_MAX, "loops"); /* negative after playing backwards */
    sv_int(c, &p->finished, 0, 1, "finished");
    sv_float(c, &p->pos, -SV_BIG, SV_BIG, "position");
    sv_double(c, &p->time, 0.0, 1e15, "state time");
    sv_root(c, p->root, STANCE_MAX_TRANSLATION, "root displacement");
}

/* One pose's real joints, 10 floats each. rule: 0 the limits of stance/base.h
 * (st_check_trs) and |scale| at most cap[j] (when cap), 1 finite only. */
static void sv_pose(sv_ctx *c, float *mem, int J, int pc, const float *cap, const float *cap2, int finite_only) {
    for (int j = 0; j < J; j++) {
        float v[10] = {0};
        for (int ch = 0; ch < 10; ch++) {
            float *f = &mem[(size_t)ch * (size_t)pc + (size_t)j];
            if (c->mode == SV_SAVE) put(c, f, 4);
            else {
                get(c, &v[ch], 4);
                if (c->mode == SV_APPLY) *f = v[ch];
            }
        }
        if (c->mode != SV_CHECK || c->bad) continue;
        if (finite_only) {
            if (!st_finite_n(v, 10)) refuse_num(c, "a joint's value", NAN, -FLT_MAX, FLT_MAX);
            continue;
        }
        char why[200];
        if (st_check_trs(v, v + 3, v + 7, why, sizeof why)) {
            c->bad = 1;
            st_fail(c->err, STANCE_ERR_FORMAT, "instance restore: %s %d: joint %d: %s (a corrupt or forged state)", c->sec,
                    c->idx, j, why);
            return;
        }
        if (cap) {
            float top = cap[j] > cap2[j] ? cap[j] : cap2[j];
            top = top * 1.0001f + 1e-6f;
            for (int k = 7; k < 10; k++)
                if (fabsf(v[k]) > top) { refuse_num(c, "a joint's |scale|", fabsf(v[k]), 0.0, top); return; }
        }
    }
}

/* The notes (graph->metas) an event's `code` names: -1 its state's clip's, k its entry k's; -1 none. */
static int code_meta(const stance_graph *g, int state, int code) {
    const g_state *s = &g->states[state];
    if (code == -1) return s->meta;
    return code >= 0 && code < s->entry_count ? g->entries[s->entry_first + code].meta : -1;
}

/* The name (and payload) of a marker (window 0) or a window (1) `other` of
 * notes mi; NULL when out of range. */
static const char *note_name(const stance_graph *g, int mi, int window, int other, const stance_event_payload **payload) {
    *payload = NULL;
    if (mi < 0 || other < 0) return NULL;
    const g_meta *mt = &g->metas[mi];
    if (window) return other < mt->win_count ? g->windows[mt->win_first + other].name : NULL;
    const int E = mt->clip->event_count;
    if (other < E) return mt->clip->events[other].name;
    if (other >= E + mt->auth_count) return NULL;
    const g_authored *a = &g->authored[mt->auth_first + other - E];
    *payload = a->payload.flags ? &a->payload : NULL;
    return a->name;
}

/* a marker's or window's clip: -1 its state's clip, k its state's entry k; -2 unknown */
static int marker_clip(const stance_graph *g, const stance_event *e) {
    if (e->state < 0 || e->state >= g->state_count || e->other < 0) return -2;
    const int window = e->type != STANCE_EVENT_CLIP_MARKER;
    const stance_event_payload *pl;
    for (int code = -1; code < g->states[e->state].entry_count; code++)
        if (note_name(g, code_meta(g, e->state, code), window, e->other, &pl) == e->name) return code;
    return -2;
}

static void sv_events(sv_ctx *c, stance_instance *inst, int count) {
    const stance_graph *g = inst->graph;
    c->sec = "event";
    for (int i = 0; i < STANCE_EVENT_QUEUE; i++) {
        stance_event *e = &inst->events[i];
        stance_event blank = {0};
        stance_event *f = i < count ? e : &blank; /* slots past the count: written as zeros, checked, not applied */
        c->idx = i;
        const int hi_type = STANCE_EVENT_WINDOW_END;
        int type = (int)f->type;
        type = sv_int(c, &type, 0, hi_type, "type");
        sv_int(c, &f->layer, -1, g->layer_count - 1, "layer");
        sv_int(c, &f->machine, -1, g->machine_count - 1, "machine");
        int state = sv_int(c, &f->state, -1, g->state_count - 1, "state");
        int other = sv_int(c, &f->other, -1, INT_MAX, "other");
        sv_float(c, &f->time, 0.0f, 1e15f, "time");
        const int noted = f->type == STANCE_EVENT_CLIP_MARKER || f->type == STANCE_EVENT_WINDOW_BEGIN ||
                          f->type == STANCE_EVENT_WINDOW_END;
        int code = c->mode == SV_SAVE && i < count && noted ? marker_clip(g, f) : -2;
        code = sv_int(c, &code, -2, INT_MAX, "marker clip");
        int reason = (int)f->reason;
        reason = sv_int(c, &reason, 0, STANCE_WINDOW_SEEK, "window reason");
        if (i >= count) continue;
        const int is_note = type == STANCE_EVENT_CLIP_MARKER || type == STANCE_EVENT_WINDOW_BEGIN || type == STANCE_EVENT_WINDOW_END;
        const stance_event_payload *pl = NULL;
        const char *nn = is_note && state >= 0 && code >= -1
                       ? note_name(g, code_meta(g, state, code), type != STANCE_EVENT_CLIP_MARKER, other, &pl) : NULL;
        if (c->mode == SV_CHECK && !c->bad) {
            if (is_note) {
                if (!nn) refuse_num(c, "marker or window (its clip or index)", other, 0, INT_MAX);
            } else if (other >= g->state_count) {
                refuse_num(c, "other state", other, -1, g->state_count - 1);
            }
        }
        if (c->mode == SV_APPLY) {
            e->type = (stance_event_type)type;
            e->name = is_note ? nn : state >= 0 ? g->states[state].name : "";
            e->payload = type == STANCE_EVENT_CLIP_MARKER ? pl : NULL;
            e->reason = (stance_window_reason)reason;
        }
    }
}

static void sv_footlock(sv_ctx *c, stance_footlock_state *s) {
    sv_int(c, &s->started, 0, 1, "started");
    sv_float(c, &s->pelvis_drop, -SV_BIG, SV_BIG, "pelvis drop");
    sv_floats(c, s->root, 3, -SV_BIG, SV_BIG, "root");
    sv_floats(c, s->root_velocity, 3, -SV_BIG, SV_BIG, "root velocity");
    for (int f = 0; f < STANCE_FOOT_MAX; f++) {
        stance_foot_state *ft = &s->feet[f];
        sv_int(c, &ft->planted, 0, 1, "planted");
        sv_floats(c, ft->lock, 3, -SV_BIG, SV_BIG, "lock");
        sv_floats(c, ft->offset, 3, -SV_BIG, SV_BIG, "offset");
        sv_float(c, &ft->fade, 0.0f, 1.0f, "fade");
        sv_float(c, &ft->plant, 0.0f, 1.0f, "plant");
        sv_floats(c, ft->free, 3, -SV_BIG, SV_BIG, "free");
        sv_floats(c, ft->out, 3, -SV_BIG, SV_BIG, "out");
        sv_floats(c, ft->anim, 3, -SV_BIG, SV_BIG, "anim");
        sv_floats(c, ft->velocity, 3, -SV_BIG, SV_BIG, "velocity");
        sv_int(c, &ft->held, 0, 1, "held");
    }
}

/* the most keys of a clip the graph's states play (a cursor's key is below it) */
static int max_keys(const stance_graph *g) {
    int k = 1;
    for (int s = 0; s < g->state_count; s++) {
        const g_state *st = &g->states[s];
        if (st->clip && st->clip->key_count > k) k = st->clip->key_count;
        if (st->delta && st->delta->key_count > k) k = st->delta->key_count;
        for (int e = 0; e < st->entry_count; e++) {
            const g_entry *en = &g->entries[st->entry_first + e];
            if (en->clip && en->clip->key_count > k) k = en->clip->key_count;
            if (en->delta && en->delta->key_count > k) k = en->delta->key_count;
        }
    }
    return k;
}

static void visit(sv_ctx *c, stance_instance *inst) {
    const stance_graph *g = inst->graph;
    const int J = g->skeleton->joint_count, pc = st_pad8(J);
    c->sec = "instance", c->idx = 0;
    { /* play requests (bit 0); the drives' bit (curves.h) is the graph's */
        int rq = inst->requests & 1;
        sv_int(c, &rq, 0, 1, "requests");
        if (c->mode == SV_APPLY) inst->requests = rq | (inst->requests & CV_DRIVES);
    }
    int events = sv_int(c, &inst->event_count, 0, STANCE_EVENT_QUEUE, "event count");
    sv_int(c, &inst->event_dropped, 0, SV_COUNT_MAX, "events dropped");
    sv_int(c, &inst->events_sealed, 0, 1, "events sealed");
    sv_int(c, &inst->root_owned, 0, 1, "root owned");
    sv_int(c, &inst->clips_sampled, 0, SV_COUNT_MAX, "clips sampled");
    sv_int(c, &inst->override_mode, -1, STANCE_SWITCH_MODE_COUNT - 1, "override mode");
    sv_int(c, &inst->override_easing, -1, STANCE_EASE_LINEAR, "override easing");
    sv_float(c, &inst->override_blend, 0.0f, 60.0f, "override blend");
    sv_double(c, &inst->time, 0.0, 1e15, "time");
    sv_root(c, inst->root_delta, SV_BIG, "root motion");
    {
        stance_transform *r = &inst->world_root;
        float v[10];
        memcpy(v, r->t, 12), memcpy(v + 3, r->r, 16), memcpy(v + 7, r->s, 12);
        c->tmp = 1;
        sv_floats(c, v, 10, -SV_BIG, SV_BIG, "world root");
        c->tmp = 0;
        if (c->mode == SV_CHECK && !c->bad) {
            char why[200];
            const float n2 = v[3] * v[3] + v[4] * v[4] + v[5] * v[5] + v[6] * v[6];
            if (st_check_trs(v, v + 3, v + 7, why, sizeof why) || !(fabsf(n2 - 1.0f) <= 2e-3f)) {
                c->bad = 1;
                st_fail(c->err, STANCE_ERR_FORMAT, "instance restore: world root: %s (a corrupt or forged state)",
                        fabsf(n2 - 1.0f) <= 2e-3f ? why : "the rotation is not a unit quaternion");
            }
        }
        if (c->mode == SV_APPLY) memcpy(r->t, v, 12), memcpy(r->r, v + 3, 16), memcpy(r->s, v + 7, 12);
    }
    c->sec = "parameter";
    for (int p = 0; p < g->param_count; p++) {
        c->idx = p;
        const stance_param_type t = g->params[p].type;
        const float hi = t == STANCE_PARAM_FLOAT ? FLT_MAX : t == STANCE_PARAM_INT ? (float)STANCE_PARAM_INT_MAX : 1.0f;
        const float lo = t == STANCE_PARAM_FLOAT || t == STANCE_PARAM_INT ? -hi : 0.0f;
        float *both[2] = {&inst->params[p], &inst->param_target[p]};
        for (int k = 0; k < 2; k++) {
            float v = sv_float(c, both[k], lo, hi, k ? "target" : "value");
            if (c->mode == SV_CHECK && t != STANCE_PARAM_FLOAT && v != floorf(v)) refuse_num(c, "an int/bool value", v, lo, hi);
        }
    }
    const int keys = max_keys(g);
    c->sec = "machine";
    for (int m = 0; m < g->machine_count; m++) {
        g_machine_rt *rt = &inst->machines[m];
        const g_machine *gm = &g->machines[m];
        c->idx = m;
        sv_play(c, &rt->cur, gm);
        sv_play(c, &rt->old, gm);
        sv_int(c, &rt->trans, -1, g->trans_count, "transition");
        const int fs = sv_int(c, &rt->from_state, -1, gm->state_first + gm->state_count - 1, "from state");
        if (c->mode == SV_CHECK && fs >= 0 && fs < gm->state_first) refuse_num(c, "from state", fs, gm->state_first, gm->state_first + gm->state_count - 1);
        sv_float(c, &rt->elapsed, 0.0f, SV_BIG, "elapsed");
        sv_float(c, &rt->duration, 0.0f, 60.0f, "duration");
        SV_ENUM(c, rt->mode, 0, STANCE_SWITCH_MODE_COUNT - 1, "mode");
        SV_ENUM(c, rt->easing, 0, STANCE_EASE_LINEAR, "easing");
        sv_int(c, &rt->locked, 0, 1, "locked");
        sv_int(c, &rt->pending_init, 0, rt->has_history ? 2 : 0, "pending init");
        sv_float(c, &rt->switch_dt, 0.0f, 1.0f, "switch dt");
        sv_int(c, &rt->hist, 0, rt->has_history ? 2 : 0, "history frames");
        sv_int(c, &rt->hist_flip, 0, 1, "history flip");
        sv_float(c, &rt->hist_dt, 0.0f, 1.0f, "history dt");
        sv_int(c, &rt->cur_slot, 0, 1, "cursor slot");
        const int rs = sv_int(c, &rt->req_state, -1, gm->state_first + gm->state_count - 1, "requested state");
        if (c->mode == SV_CHECK && rs >= 0 && rs < gm->state_first) refuse_num(c, "requested state", rs, gm->state_first, gm->state_first + gm->state_count - 1);
        SV_ENUM(c, rt->req_mode, 0, STANCE_SWITCH_MODE_COUNT - 1, "requested mode");
        SV_ENUM(c, rt->req_easing, 0, STANCE_EASE_LINEAR, "requested easing");
        sv_float(c, &rt->req_blend, 0.0f, 60.0f, "requested blend");
        for (int k = 0; k < 2 * rt->cursor_cap; k++) {
            sv_int(c, &rt->cursors[k].key, 0, keys - 1, "cursor key");
            sv_int(c, &rt->cursors[k].steps, 0, SV_COUNT_MAX, "cursor steps");
        }
    }
    c->sec = "layer";
    for (int l = 0; l < g->layer_count; l++) {
        c->idx = l;
        const float lo = l == 0 ? 1.0f : 0.0f;
        sv_float(c, &inst->layer_weight[l], lo, 1.0f, "weight");
        sv_float(c, &inst->layer_target[l], lo, 1.0f, "target");
        sv_float(c, &inst->layer_rate[l], 0.0f, FLT_MAX, "fade rate");
        int off = inst->layer_off[l];
        sv_int(c, &off, 0, l == 0 ? 0 : 1, "disabled");
        if (c->mode == SV_APPLY) inst->layer_off[l] = (unsigned char)off;
    }
    const size_t pb = stance_pose_bytes(J) / sizeof(float);
    c->sec = "local pose", c->idx = 0;
    sv_pose(c, inst->poses[PI_LOCAL].tx, J, pc, NULL, NULL, 0);
    c->sec = "model pose";
    sv_pose(c, inst->poses[PI_MODEL].tx, J, pc, NULL, NULL, 1);
    c->sec = "machine pose";
    for (int m = 0; m < g->machine_count; m++) {
        const g_machine_rt *rt = &inst->machines[m];
        c->idx = m;
        for (int w = 0; w < (rt->has_history ? 3 : 1); w++)
            sv_pose(c, inst->machine_pose_mem + pb * (size_t)(rt->pose_first + w), J, pc, g->scale_cap, g->scale_cap + pc, 0);
    }
    c->sec = "switch record";
    for (int m = 0; m < g->machine_count; m++) {
        c->idx = m;
        if (inst->machines[m].rec) sv_floats(c, inst->machines[m].rec, J * INERT_FLOATS, -SV_BIG, SV_BIG, "value");
    }
    c->sec = "ik entry";
    for (int i = 0; i < g->ik_count; i++) {
        c->idx = i;
        sv_footlock(c, &inst->ik_state[i]);
        float *t = inst->ik_target + (size_t)i * IK_TARGET_FLOATS;
        sv_floats(c, t, 3, -STANCE_MAX_TRANSLATION, STANCE_MAX_TRANSLATION, "target");
        sv_float(c, &t[3], 0.0f, 1.0f, "weight");
        sv_floats(c, t + 4, 3, -STANCE_MAX_TRANSLATION, STANCE_MAX_TRANSLATION, "pole");
        float set = sv_float(c, &t[7], 0.0f, 1.0f, "pole set");
        if (c->mode == SV_CHECK && set != 0.0f && set != 1.0f) refuse_num(c, "pole set", set, 0, 1);
    }
    c->sec = "open windows";
    for (int m = 0; m < g->machine_count; m++) {
        g_machine_rt *rt = &inst->machines[m];
        c->idx = m;
        int meta = sv_int(c, &rt->win_meta, -1, g->meta_count - 1, "notes");
        int open = (int)rt->win_open;
        open = sv_int(c, &open, INT_MIN, INT_MAX, "open windows");
        if (c->mode == SV_CHECK && !c->bad) {
            const int n = meta >= 0 ? g->metas[meta].win_count : 0;
            if (n < 32 && ((unsigned)open >> n) != 0) refuse_num(c, "open windows (bits past the clip's windows)", (unsigned)open, 0, n);
        }
        if (c->mode == SV_APPLY) rt->win_open = (unsigned)open;
    }
    sv_events(c, inst, c->mode == SV_SAVE ? inst->event_count : events);
}

/* The body's size for a graph and history option: a SAVE walk over nothing
 * would need an instance, so the sizes are summed here the same way. */
static size_t body_bytes(const stance_graph *g, int history_all) {
    const int J = g->skeleton->joint_count;
    size_t w = 9 + 2 + 7 + 10;                     /* instance fields, time (2 words), root motion and turn, world root */
    w += 2 * (size_t)g->param_count;
    size_t poses = 2, recs = 0;
    for (int m = 0; m < g->machine_count; m++) {
        const int h = history_all || g->machines[m].history;
        w += 2 * (4 + 2 + 7) + 17 + 4 * (size_t)g->machines[m].clip_cap; /* 2 plays, switch and request, cursors */
        poses += h ? 3 : 1;
        recs += (size_t)h;
    }
    w += 4 * (size_t)g->layer_count;
    w += poses * 10 * (size_t)J + recs * INERT_FLOATS * (size_t)J;
    w += (size_t)g->ik_count * (1 + 1 + 3 + 3 + STANCE_FOOT_MAX * (1 + 3 + 3 + 1 + 1 + 3 + 3 + 3 + 3 + 1) + IK_TARGET_FLOATS);
    w += (size_t)STANCE_EVENT_QUEUE * 8;
    w += 2 * (size_t)g->machine_count;             /* open windows */
    return 4 * w;
}

static void header_of(const stance_graph *g, int history_all, sv_header *h) {
    memset(h, 0, sizeof *h);
    h->magic = SV_MAGIC, h->version = SV_VERSION;
    h->size = SV_HEADER + body_bytes(g, history_all);
    h->history_all = (uint32_t)history_all;
    h->joints = (uint32_t)g->skeleton->joint_count, h->params = (uint32_t)g->param_count;
    h->machines = (uint32_t)g->machine_count, h->layers = (uint32_t)g->layer_count, h->iks = (uint32_t)g->ik_count;
    for (int m = 0; m < g->machine_count; m++) {
        const int k = history_all || g->machines[m].history;
        h->poses += k ? 3u : 1u, h->recs += (uint32_t)k, h->cursors += 2u * (uint32_t)g->machines[m].clip_cap;
    }
    h->graph_id = gr_identity(g);
}

static uint64_t header_hash(const sv_header *h) { return gr_fnv(GR_FNV_SEED, h, offsetof(sv_header, header_hash)); }

stance_status stance_instance_state_size(const stance_graph *graph, const stance_instance_desc *desc, size_t *size,
                                         stance_error *err) {
    if (!size) return st_fail(err, STANCE_ERR_ARGUMENT, "instance state size: size is NULL");
    *size = 0;
    if (!graph) return st_fail(err, STANCE_ERR_ARGUMENT, "instance state size: graph is NULL");
    if (desc && (unsigned)desc->history > STANCE_HISTORY_ALL)
        return st_fail(err, STANCE_ERR_ARGUMENT, "instance state size: unknown history option %d", (int)desc->history);
    *size = SV_HEADER + body_bytes(graph, desc && desc->history == STANCE_HISTORY_ALL);
    return st_ok(err);
}

stance_status stance_instance_save(const stance_instance *inst, void *buf, size_t size, stance_error *err) {
    if (!in_live(inst)) return st_fail(err, STANCE_ERR_ARGUMENT, "instance save: instance is " IN_NOT_LIVE);
    if (!buf) return st_fail(err, STANCE_ERR_ARGUMENT, "instance save: buffer is NULL");
    sv_header h;
    header_of(inst->graph, inst->history_all, &h);
    if (size < h.size)
        return st_fail(err, STANCE_ERR_MEMORY, "instance save: the buffer has %zu bytes, the state needs %zu "
                       "(stance_instance_state_size)", size, (size_t)h.size);
    unsigned char *out = buf;
    sv_ctx c = {SV_SAVE, out + SV_HEADER, NULL, 0, 0, 0, err, "", 0};
    visit(&c, (stance_instance *)inst); /* SAVE only reads the instance */
    h.body_hash = gr_fnv(GR_FNV_SEED, out + SV_HEADER, c.at);
    h.header_hash = header_hash(&h);
    memcpy(out, &h, sizeof h);
    return st_ok(err);
}

stance_status stance_instance_restore(stance_instance *inst, const void *buf, size_t size, stance_error *err) {
    if (!in_live(inst)) return st_fail(err, STANCE_ERR_ARGUMENT, "instance restore: instance is " IN_NOT_LIVE);
    if (!buf) return st_fail(err, STANCE_ERR_ARGUMENT, "instance restore: buffer is NULL");
    sv_header want, h;
    header_of(inst->graph, inst->history_all, &want);
    if (size < SV_HEADER)
        return st_fail(err, STANCE_ERR_FORMAT, "instance restore: %zu bytes are too few for a saved state (%zu expected)",
                       size, (size_t)want.size);
    memcpy(&h, buf, sizeof h);
    if (h.magic != SV_MAGIC)
        return st_fail(err, STANCE_ERR_FORMAT, "instance restore: not a saved instance state (magic 0x%08x, wanted \"STSV\")",
                       (unsigned)h.magic);
    if (h.header_hash != header_hash(&h))
        return st_fail(err, STANCE_ERR_FORMAT, "instance restore: the header is corrupt (its hash does not match)");
    if (h.version != SV_VERSION)
        return st_fail(err, STANCE_ERR_UNSUPPORTED, "instance restore: state format version %u, this library reads version %u",
                       (unsigned)h.version, SV_VERSION);
    if (h.graph_id != want.graph_id || h.joints != want.joints || h.params != want.params ||
        h.machines != want.machines || h.layers != want.layers || h.iks != want.iks)
        return st_fail(err, STANCE_ERR_ARGUMENT, "instance restore: the state was saved from an instance of another graph "
                       "(identity %016llx, this instance's graph %016llx)", (unsigned long long)h.graph_id,
                       (unsigned long long)want.graph_id);
    if (h.history_all != want.history_all || h.poses != want.poses || h.recs != want.recs || h.cursors != want.cursors)
        return st_fail(err, STANCE_ERR_ARGUMENT, "instance restore: the state was saved with history %s, this instance "
                       "was created with history %s", h.history_all ? "all" : "auto", want.history_all ? "all" : "auto");
    if (h.size != want.size || size != want.size)
        return st_fail(err, STANCE_ERR_FORMAT, "instance restore: the buffer has %zu bytes, the state %llu, this instance's "
                       "state %zu", size, (unsigned long long)h.size, (size_t)want.size);
    const unsigned char *in = buf;
    if (gr_fnv(GR_FNV_SEED, in + SV_HEADER, size - SV_HEADER) != h.body_hash)
        return st_fail(err, STANCE_ERR_FORMAT, "instance restore: the body is corrupt (its hash does not match the header's)");
    sv_ctx c = {SV_CHECK, NULL, in + SV_HEADER, 0, 0, 0, err, "", 0};
    visit(&c, inst);
    if (c.bad) return STANCE_ERR_FORMAT; /* the message is in err; nothing changed */
    c.mode = SV_APPLY, c.at = 0;
    visit(&c, inst);
    return st_ok(err);
}
