/* src/core/frame/seek.c - stance_instance_seek: sets where a machine's
 * current state is in its clip (or blend space), at once (docs/events.md,
 * "Seeks"). A seek is a jump, not a crossing: no clip event between the old
 * and the new position fires; the windows the jump leaves end (reason
 * STANCE_WINDOW_SEEK) and those it lands in begin, appended to the last
 * update's events; the next update plays on from the new position by the
 * usual crossing rules (notes.c). Nothing here runs per frame. */
#include <math.h>

#include "core/base/internal.h"
#include "core/frame/advance.h"
#include "core/frame/blend_weights.h"
#include "core/frame/notes.h"

/* Machine m plays now: its layer is enabled and, nested, each machine above
 * plays the state that nests it. */
static int machine_plays(const stance_instance *inst, int m) {
    const stance_graph *g = inst->graph;
    for (int k = 0; k <= STANCE_MAX_MACHINES && m >= 0; k++) {
        const int ps = g->machines[m].parent_state;
        if (ps < 0) {
            const int l = g->machines[m].layer;
            return l >= 0 && !inst->layer_off[l];
        }
        m = g->states[ps].machine;
        if (inst->machines[m].cur.state != ps) return 0;
    }
    return 0;
}

/* Window [from, to] holds clip time t for playback in the direction of
 * `backward` (the crossing rule: forward [from, to), backward (from, to]). */
static int window_holds(const g_window *w, double t, int backward) {
    return backward ? (t > w->from && t <= w->to) : (t >= w->from && t < w->to);
}

/* The current play's windows after a jump to clip time t of note set meta
 * (-1: none) with entry weight `weight`: those open that do not hold t end,
 * those that hold t and are shut begin (a loop's whole-cycle windows stay as
 * they are: they open when it plays and never close on a wrap). */
static void windows_after_jump(stance_instance *inst, int m, int meta, double t, float weight, int backward, int loop) {
    const stance_graph *g = inst->graph;
    g_machine_rt *rt = &inst->machines[m];
    if (rt->win_meta != meta) {
        nt_close(inst, m, STANCE_WINDOW_SEEK);
        rt->win_meta = meta;
    }
    if (meta < 0) return;
    const g_meta *mt = &g->metas[meta];
    const int plays = machine_plays(inst, m);
    for (int k = 0; k < mt->win_count; k++) {
        const unsigned bit = 1u << k;
        if (loop && (mt->whole & bit)) continue;
        const g_window *w = &g->windows[mt->win_first + k];
        const int holds = window_holds(w, t, backward);
        if ((rt->win_open & bit) && !holds) {
            rt->win_open &= ~bit;
            nt_emit(inst, STANCE_EVENT_WINDOW_END, m, rt->cur.state, k, w->name, NULL, STANCE_WINDOW_SEEK);
        } else if (!(rt->win_open & bit) && holds && plays && weight >= w->min_weight) {
            rt->win_open |= bit;
            nt_emit(inst, STANCE_EVENT_WINDOW_BEGIN, m, rt->cur.state, k, w->name, NULL, 0);
        }
    }
}

stance_status stance_instance_seek(stance_instance *inst, int m, float time, stance_error *err) {
    if (!in_live(inst)) return st_fail(err, STANCE_ERR_ARGUMENT, "seek: instance is " IN_NOT_LIVE);
    const stance_graph *g = inst->graph;
    if (m < 0 || m >= g->machine_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "seek: machine %d is not in 0..%d", m, g->machine_count - 1);
    if (!st_finite(time) || time < 0.0f)
        return st_fail(err, STANCE_ERR_VALUE, "seek: time %g is not finite and >= 0 (seconds into the state)", (double)time);
    g_machine_rt *rt = &inst->machines[m];
    if (rt->req_state >= 0)
        return st_fail(err, STANCE_ERR_ARGUMENT,
                       "seek: machine '%s' has a play request the next update carries out; seek after that update",
                       g->machines[m].name);
    if (rt->trans >= 0)
        return st_fail(err, STANCE_ERR_ARGUMENT,
                       "seek: machine '%s' is switching from '%s' to '%s'; seek when the switch has finished (or play "
                       "the state with mode cut first)",
                       g->machines[m].name, g->states[rt->from_state].name, g->states[rt->cur.state].name);
    g_play *p = &rt->cur;
    const g_state *s = &g->states[p->state];
    if (s->type == STANCE_MOTION_MACHINE)
        return st_fail(err, STANCE_ERR_ARGUMENT,
                       "seek: state '%s' of machine '%s' plays machine %d ('%s'); seek that machine", s->name,
                       g->machines[m].name, s->sub_machine, g->machines[s->sub_machine].name);
    float r = s->speed;
    if (s->speed_param >= 0) r *= inst->params[s->speed_param];
    const int backward = r < 0.0f, loop = !s->once;
    float pos;
    double t;
    int meta;
    float weight = 1.0f;
    if (s->type == STANCE_MOTION_CLIP) {
        const double D = s->clip->duration;
        t = loop ? fmod((double)time, D) : (time > D ? D : (double)time);
        pos = (float)t;
        if (loop && pos >= s->clip->duration) pos = 0.0f, t = 0.0;
        meta = s->meta;
    } else { /* a blend space: seconds of its dominant entry's clip */
        float w[STANCE_MAX_BLEND_ENTRIES];
        adv_blend_weights(inst, s, w);
        const g_entry *e = g->entries + s->entry_first;
        int dom = 0;
        for (int i = 1; i < s->entry_count; i++)
            if (w[i] > w[dom]) dom = i;
        const double D = e[dom].clip->duration;
        double ph = (double)time / D;
        if (loop) ph -= floor(ph);
        else if (ph > 1.0) ph = 1.0;
        pos = (float)ph;
        if (loop && pos >= 1.0f) pos = 0.0f;
        t = (double)pos * D;
        meta = e[dom].meta;
        weight = w[dom];
    }
    if (p->finished && pos == p->pos) return st_ok(err); /* a once state seeked to where it finished: nothing moves */
    p->finished = 0;
    p->pos = pos;
    windows_after_jump(inst, m, meta, t, weight, backward, loop);
    return st_ok(err);
}
