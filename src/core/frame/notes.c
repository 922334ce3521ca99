/* src/core/frame/notes.c - clip notes at run time: the events a clip's playback
 * crosses (its own and those a graph file authored, core/graph/graph_notes.c)
 * into the instance's queue with their payloads, and the windows of each
 * machine's current play, opened and closed in pairs (docs/events.md).
 *
 * Called by the advance stage (advance.c, in each of its compiled copies)
 * for a clip with notes, and by reset, play and layer switches to close the
 * windows a state leaves. Allocates nothing; the queue keeps at most
 * STANCE_EVENT_QUEUE events, the rest are counted as dropped. */
#include <math.h>
#include <string.h>

#include "core/base/internal.h"
#include "core/frame/blend_weights.h"
#include "core/frame/notes.h"
#include "core/frame/transition.h"

void nt_emit(stance_instance *inst, stance_event_type type, int m, int state, int other, const char *name,
             const stance_event_payload *payload, stance_window_reason reason) {
    if (inst->event_count >= STANCE_EVENT_QUEUE) { inst->event_dropped++; return; }
    stance_event *e = &inst->events[inst->event_count++];
    e->type = type, e->layer = in_layer_of_machine(inst->graph, m), e->machine = m, e->state = state, e->other = other;
    e->name = name ? name : "";
    e->time = (float)inst->time;
    e->payload = payload, e->reason = reason;
}

void nt_close(stance_instance *inst, int m, stance_window_reason reason) {
    g_machine_rt *rt = &inst->machines[m];
    if (rt->win_open && rt->win_meta >= 0) {
        const g_meta *mt = &inst->graph->metas[rt->win_meta];
        for (int k = 0; k < mt->win_count; k++)
            if (rt->win_open & (1u << k))
                nt_emit(inst, STANCE_EVENT_WINDOW_END, m, rt->cur.state, k, inst->graph->windows[mt->win_first + k].name, NULL,
                        reason);
    }
    rt->win_open = 0, rt->win_meta = -1;
}

void nt_close_nested(stance_instance *inst, int m, stance_window_reason reason) {
    const stance_graph *g = inst->graph;
    for (int k = 0; k < STANCE_MAX_MACHINES && m >= 0; k++) {
        nt_close(inst, m, reason);
        m = g->states[inst->machines[m].cur.state].sub_machine;
    }
}

/* The weight of machine m's play (old: its outgoing one) at the end of this
 * step: the switch's eased progress, 1 when none runs. */
static float play_weight(const stance_instance *inst, int m, int old, float dt) {
    const g_machine_rt *rt = &inst->machines[m];
    if (rt->trans < 0) return old ? 0.0f : 1.0f;
    const float u = rt->duration > 0.0f ? (rt->elapsed + dt) / rt->duration : 1.0f;
    const float w = tr_ease(rt->easing, u > 1.0f ? 1.0f : u);
    return old ? 1.0f - w : w;
}

typedef struct nt_ctx {
    stance_instance *inst;
    const g_meta *mt;
    g_machine_rt *rt;
    int m, state, windows;  /* windows: this play's windows are tracked (the current play) */
    int old;
    float weight;           /* < 0 until a note is crossed (then play_weight times entry_weight) */
    float entry_weight, dt;
    long long fired;        /* crossings that would have been recorded (for skipped cycles) */
} nt_ctx;

/* the play's weight, computed when first needed (most steps cross nothing) */
static float weight_of(nt_ctx *c) {
    if (c->weight < 0.0f) c->weight = play_weight(c->inst, c->m, c->old, c->dt) * c->entry_weight;
    return c->weight;
}

/* An event of another entry of a blend space whose events are "all"
 * (index G_NOTE_OTHER (k + 1) + i: entry k's clip's event i), its crossing
 * counted (c->fired) by the caller: it fires when that entry's effective
 * weight (the play's times the entry's) is above 0 and at least the
 * event's threshold. */
static ST_NOINLINE void other_entry(nt_ctx *c, const g_note *n) {
    stance_instance *inst = c->inst;
    const stance_graph *g = inst->graph;
    const g_state *st = &g->states[c->state];
    const int k = n->index / G_NOTE_OTHER - 1, ev = n->index % G_NOTE_OTHER;
    float w[STANCE_MAX_BLEND_ENTRIES];
    blend_weights(inst, st, w);
    const float weight = play_weight(inst, c->m, c->old, c->dt) * w[k];
    if (!(weight > 0.0f && weight >= n->min_weight)) { c->fired--; return; }
    const stance_clip *clip = g->entries[st->entry_first + k].clip;
    const int E = clip->event_count;
    if (ev < E) {
        nt_emit(inst, STANCE_EVENT_CLIP_MARKER, c->m, c->state, ev, clip->events[ev].name, NULL, 0);
        return;
    }
    for (int i = 0; i < g->meta_count; i++) /* its clip's own notes: the authored event */
        if (g->metas[i].clip == clip && !g->metas[i].merged) {
            const g_authored *a = &g->authored[g->metas[i].auth_first + ev - E];
            nt_emit(inst, STANCE_EVENT_CLIP_MARKER, c->m, c->state, ev, a->name, a->payload.flags ? &a->payload : NULL, 0);
            return;
        }
}

static void cross(nt_ctx *c, const g_note *n, int backward) {
    stance_instance *inst = c->inst;
    const stance_graph *g = inst->graph;
    if (n->kind == G_NOTE_EVENT) {
        if (!(weight_of(c) >= n->min_weight)) return;
        c->fired++;
        const int E = c->mt->clip->event_count;
        if (n->index < E) {
            nt_emit(inst, STANCE_EVENT_CLIP_MARKER, c->m, c->state, n->index, c->mt->clip->events[n->index].name, NULL, 0);
        } else if (n->index >= G_NOTE_OTHER) {
            other_entry(c, n);
        } else {
            const g_authored *a = &g->authored[c->mt->auth_first + n->index - E];
            nt_emit(inst, STANCE_EVENT_CLIP_MARKER, c->m, c->state, n->index, a->name, a->payload.flags ? &a->payload : NULL, 0);
        }
        return;
    }
    if (!c->windows || (c->mt->whole & (1u << n->index))) return;
    const unsigned bit = 1u << n->index;
    const int opens = (n->kind == G_NOTE_BEGIN) != backward;
    const char *name = g->windows[c->mt->win_first + n->index].name;
    if (opens && !(c->rt->win_open & bit) && weight_of(c) >= n->min_weight) {
        c->rt->win_open |= bit;
        c->fired++;
        nt_emit(inst, STANCE_EVENT_WINDOW_BEGIN, c->m, c->state, n->index, name, NULL, 0);
    } else if (!opens && (c->rt->win_open & bit)) {
        c->rt->win_open &= ~bit;
        c->fired++;
        nt_emit(inst, STANCE_EVENT_WINDOW_END, c->m, c->state, n->index, name, NULL, STANCE_WINDOW_FINISHED);
    }
}

/* stance_clip_advance's crossing rules (core/clip/clip.c) over the notes of one cycle */
static void cycle(nt_ctx *c, double t0, double t1, long long cy, int backward) {
    const double D = c->mt->clip->duration;
    const g_note *notes = c->inst->graph->notes + c->mt->note_first;
    const int N = c->mt->note_count;
    for (int k = 0; k < N; k++) { /* sorted by time: past t1, no later one fires */
        const g_note *n = &notes[backward ? N - 1 - k : k];
        const double e = n->time, gt = (double)cy * D + e;
        int fire;
        if (!backward) {
            if (gt > t1) break;
            fire = e < D ? (gt >= t0 && gt < t1) : (gt > t0 && gt <= t1);
        } else {
            if (gt < t1) break;
            fire = e > 0.0 ? (gt > t1 && gt <= t0) : (gt >= t1 && gt < t0);
        }
        if (fire) cross(c, n, backward);
    }
}

/* The notes crossed over the unwrapped span t0 -> t1 (clip seconds, cycles
 * cycles of D apart; t1 is where the next step starts, so consecutive steps
 * partition the time and each point is crossed once). */
static ST_NOINLINE void advance_span_all(stance_instance *inst, int m, int old, int meta, float entry_weight, double t0,
                                         double t1, long long C, int backward, int loop, float dt) {
    const stance_graph *g = inst->graph;
    g_machine_rt *rt = &inst->machines[m];
    const g_play *p = old ? &rt->old : &rt->cur;
    nt_ctx c = {inst, &g->metas[meta], rt, m, p->state, !old, old, -1.0f, entry_weight, dt, 0};
    if (c.windows && rt->win_meta != meta) { /* another clip (a blend space's dominant one changed) */
        nt_close(inst, m, STANCE_WINDOW_INTERRUPTED);
        rt->win_meta = meta;
    }
    if (c.windows && loop && c.mt->whole) { /* windows over the whole cycle of a loop: open while it plays */
        for (int k = 0; k < c.mt->win_count; k++) {
            const unsigned bit = 1u << k;
            const g_window *w = &g->windows[c.mt->win_first + k];
            if ((c.mt->whole & bit) && !(rt->win_open & bit) && weight_of(&c) >= w->min_weight) {
                rt->win_open |= bit;
                nt_emit(inst, STANCE_EVENT_WINDOW_BEGIN, m, c.state, k, w->name, NULL, 0);
            }
        }
    }
    const long long span = backward ? -C : C;
    for (long long k = 0; k <= span; k++) {
        const long long cy = backward ? -k : k;
        if (k == 3 && span > 6) { /* whole cycles in between: each crosses every note once and leaves the windows
                                     as they were; they are counted, not recorded (a huge step) */
            const long long before = c.fired;
            cycle(&c, t0, t1, cy, backward);
            const long long per = c.fired - before, skip = span - 6; /* cycles 4 .. span - 3 */
            inst->event_dropped += (int)(per * skip > (1 << 28) ? (1 << 28) : per * skip);
            k = span - 3;
            continue;
        }
        cycle(&c, t0, t1, cy, backward);
    }
}

/* advance_span_all, after the common step's shortcut: forward inside one
 * cycle with nothing to cross (no note in [t0, t1], the current play's
 * windows of this clip and its whole-cycle ones open) returns at once. */
ST_FORCEINLINE void advance_span(stance_instance *inst, int m, int old, int meta, float entry_weight, double t0, double t1,
                                 long long C, int backward, int loop, float dt) {
    const stance_graph *g = inst->graph;
    const g_meta *mt = &g->metas[meta];
    if (C == 0 && !backward) {
        const g_machine_rt *rt = &inst->machines[m];
        if (old || (rt->win_meta == meta && !(loop && (mt->whole & ~rt->win_open)))) {
            const g_note *n = g->notes + mt->note_first, *end = n + mt->note_count;
            while (n < end && (double)n->time < t0) n++;
            if (n == end || (double)n->time > t1) return;
        }
    }
    advance_span_all(inst, m, old, meta, entry_weight, t0, t1, C, backward, loop, dt);
}

void nt_advance_clip(stance_instance *inst, int m, int old, int meta, float time, float new_time, int wraps, float step,
                     int loop, float dt) {
    const double D = inst->graph->metas[meta].clip->duration;
    double t0 = time; /* where stance_clip_advance starts from */
    if (t0 < 0.0) t0 = 0.0;
    if (loop && t0 >= D) t0 = fmod(t0, D);
    if (!loop && t0 > D) t0 = D;
    advance_span(inst, m, old, meta, 1.0f, t0, (double)wraps * D + (double)new_time, wraps, step < 0.0f, loop, dt);
}

void nt_advance_phase(stance_instance *inst, int m, int old, int meta, float entry_weight, float phase, float new_phase,
                      int wraps, float dphase, int loop, float dt) {
    const double D = inst->graph->metas[meta].clip->duration;
    advance_span(inst, m, old, meta, entry_weight, (double)phase * D, ((double)wraps + (double)new_phase) * D, wraps,
                 dphase < 0.0f, loop, dt);
}
