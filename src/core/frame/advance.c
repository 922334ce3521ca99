/* src/core/frame/advance.c - the advance stage, the first of the frame
 * (docs/frame.md): play requests, damped parameters, layer fades; then, over
 * the frame's program (graph_program.c), each layer's machines children
 * first: playback with phase-synced blend spaces, clip markers, exit times
 * and transitions (conditions, switch modes), events; then that layer's
 * plan, parents first (core/frame/workspace.h: what each machine's evaluation
 * samples and how its switch blends, and the jobs its switches left); then
 * root motion and the world root.
 *
 * It decides everything the later stages compute and computes no pose. It
 * writes one instance's play state and events and the workspace's plan,
 * and calls no later stage. */
#include <stdint.h>
#include <string.h>

#include "core/frame/frame_copy.h" /* ST_FAST: the fast paths below are on (docs/fast-paths.md) */
#include "core/frame/advance.h"
#include "core/frame/blend_weights.h"
#include "core/frame/curves.h"
#include "core/base/internal.h"
#include "core/math/qmath.h"
#include "core/frame/notes.h"
#include "core/graph/graph_sync.h"
#include "core/frame/sync_phase.h"
#include "core/frame/transition.h"
#include "core/frame/workspace.h"

static float state_rate(const stance_instance *inst, const g_state *s) {
    float r = s->speed;
    if (s->speed_param >= 0) r *= inst->params[s->speed_param];
    return r;
}

/* inlined where it runs each frame; kept apart where inlining into the
 * stage's loop would crowd its registers (measured: make callgrind) */
#define ADV_INLINE ST_FORCEINLINE
#define ADV_APART static ST_NOINLINE

void adv_blend_weights(const stance_instance *inst, const g_state *s, float *w) { blend_weights(inst, s, w); }

/* A play of a nested machine's state stands for what that machine plays
 * (down the nesting). */
static const g_play *played(const stance_instance *inst, const g_play *p) {
    while (inst->graph->states[p->state].type == STANCE_MOTION_MACHINE)
        p = &inst->machines[inst->graph->states[p->state].sub_machine].cur;
    return p;
}

float adv_normalized(const stance_instance *inst, const g_play *p) {
    p = played(inst, p);
    const g_state *s = &inst->graph->states[p->state];
    if (s->type == STANCE_MOTION_CLIP) return (float)p->loops + p->pos / s->clip->duration;
    return (float)p->loops + p->pos;
}

/* Seconds left in the current cycle at the current rate (large if paused). */
static float play_remaining(const stance_instance *inst, const g_play *p) {
    p = played(inst, p);
    const g_state *s = &inst->graph->states[p->state];
    float rate = state_rate(inst, s);
    if (s->type == STANCE_MOTION_CLIP) {
        if (rate > 0.0f) return (s->clip->duration - p->pos) / rate;
        if (rate < 0.0f) return p->pos / -rate;
        return 1e30f;
    }
    float w[STANCE_MAX_BLEND_ENTRIES];
    adv_blend_weights(inst, s, w);
    float pr = blend_phase_rate(inst, s, w) * rate;
    return pr > 0.0f ? (1.0f - p->pos) / pr : 1e30f;
}

/* The queue holds the events of the last update. */
static void emit(stance_instance *inst, stance_event_type type, int layer, int machine, int state, int other,
                 const char *name) {
    if (inst->event_count >= STANCE_EVENT_QUEUE) { inst->event_dropped++; return; }
    stance_event *e = &inst->events[inst->event_count++];
    e->type = type, e->layer = layer, e->machine = machine, e->state = state, e->other = other;
    e->name = name ? name : "";
    e->time = (float)inst->time;
    e->payload = NULL, e->reason = STANCE_WINDOW_FINISHED;
}

/* Turns (angle acc[3] about the unit axis acc[4..6], read only when the
 * angle is not 0) add as rotation vectors (angle x axis), weighted: about
 * one axis (every yaw) that is the weighted sum of the angles, as it always
 * was; about different axes, the sum's length about its direction (per
 * update the turns are small, where this is the normalized weighted mean of
 * their quaternions to second order). Out of the hot path: only plays of
 * paths that turn come here. */
static ST_NOINLINE ST_COLD void turn_add(float acc[7], float w, const float r[7]) {
    uint32_t rb;
    memcpy(&rb, &r[3], sizeof rb);
    if ((rb << 1) == 0) return; /* no turn: the angle stays (x + 0 is x, and acc[3] is never -0) */
    uint32_t ab;
    memcpy(&ab, &acc[3], sizeof ab);
    if ((ab << 1) == 0 || (acc[4] == r[4] && acc[5] == r[5] && acc[6] == r[6])) {
        if ((ab << 1) == 0) acc[4] = r[4], acc[5] = r[5], acc[6] = r[6];
        acc[3] += w * r[3];
        return;
    }
    float v[3], n2 = 0.0f;
    for (int k = 0; k < 3; k++) v[k] = acc[3] * acc[4 + k] + w * r[3] * r[4 + k], n2 += v[k] * v[k];
    const float n = sqrtf(n2);
    if (!(n > 0.0f)) { acc[3] = 0.0f; return; }
    acc[3] = n;
    for (int k = 0; k < 3; k++) acc[4 + k] = v[k] / n;
}

/* A crossfade's turn: old's and cur's turns (at least one not 0) blended
 * with the eased weight w (into out[3..6]) as turn_add sums them. */
static ST_NOINLINE ST_COLD void turn_fade(float out[7], const float old[7], const float cur[7], float w) {
    float acc[7] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f}, o[7], c[7];
    memcpy(o, old, sizeof o), memcpy(c, cur, sizeof c);
    uint32_t ob, cb;
    memcpy(&ob, &o[3], sizeof ob), memcpy(&cb, &c[3], sizeof cb);
    if ((ob << 1) == 0 || (cb << 1) == 0 || (o[4] == c[4] && o[5] == c[5] && o[6] == c[6])) {
        /* one axis: the angles' lerp, as for every yaw (out[3] holds it) */
        memcpy(out + 4, (cb << 1) != 0 ? c + 4 : o + 4, sizeof(float) * 3);
        return;
    }
    turn_add(acc, 1.0f - w, o);
    turn_add(acc, w, c);
    memcpy(out + 3, acc + 3, sizeof(float) * 4);
}

/* One play's step by dt (a nested machine's state: that machine stepped
 * before it, children first). */
static void advance_play(stance_instance *inst, stance_workspace *ws, int m, g_play *p, float dt) {
    const stance_graph *g = inst->graph;
    const g_state *s = &g->states[p->state];
    const int layer = in_layer_of_machine(g, m);
    const int root = layer == 0; /* root motion is the base layer's */
    const float rate = state_rate(inst, s);
    p->root[0] = p->root[1] = p->root[2] = p->root[3] = 0.0f;
    p->time += dt;
    int wraps = 0;
    if (s->type == STANCE_MOTION_CLIP) {
        const stance_clip *c = s->clip;
        float np;
        if (!p->finished) {
            const float step = dt * rate;
            if (ST_FAST && !s->once && s->meta < 0 && step >= 0.0f && p->pos >= 0.0f && p->pos < c->duration &&
                (double)p->pos + (double)step < (double)c->duration) {
                /* a looping clip without markers inside its cycle: stance_clip_advance's first case */
                np = (float)((double)p->pos + (double)step);
                if (np >= c->duration) np = 0.0f;
            } else {
                ST_CLIP_ADVANCE(c, p->pos, step, !s->once, &np, NULL, 0, NULL, &wraps);
                /* a clock summed frame by frame may stop a hair short of the end */
                const float eps = 1e-5f * (c->duration > 1.0f ? c->duration : 1.0f);
                if (s->once && rate > 0.0f && np >= c->duration - eps) np = c->duration;
                /* the events and windows it crosses, from where it was (notes.c) */
                if (s->meta >= 0) nt_advance_clip(inst, m, p != &inst->machines[m].cur, s->meta, p->pos, np, wraps, step, !s->once, dt);
            }
            if (root) ST_CLIP_ROOT_MOTION(c, p->pos, dt * rate, !s->once, p->root);
            p->pos = np;
            p->loops += wraps;
            if (s->once && ((rate >= 0.0f && np >= c->duration) || (rate < 0.0f && np <= 0.0f))) {
                p->finished = 1;
                if (p == &inst->machines[m].cur && inst->machines[m].win_open) nt_close(inst, m, STANCE_WINDOW_FINISHED);
                emit(inst, STANCE_EVENT_CLIP_FINISHED, layer, m, p->state, -1, s->name);
            }
        }
    } else if (s->type == STANCE_MOTION_MACHINE) {
        memcpy(p->root, inst->machines[s->sub_machine].cur.root, sizeof p->root);
    } else {
        /* the current play's weights go where its plan reads them (g_weights) */
        float wbuf[STANCE_MAX_BLEND_ENTRIES];
        g_weights *cw = &ws->weights[m];
        float *w = ST_FAST && p == &inst->machines[m].cur ? cw->w : wbuf;
        blend_weights(inst, s, w);
        const float prate = blend_phase_rate(inst, s, w) * rate;
        float dphase = prate * dt;
        if (w == cw->w) cw->state = p->state, cw->prate = prate;
        const g_entry *e = g->entries + s->entry_first;
        int dom = 0;
        for (int i = 0; i < s->entry_count; i++) {
            if (w[i] > w[dom]) dom = i;
            /* a clip without a root path adds 0 (p->root is never -0: it starts at +0) */
            if (w[i] <= 0.0f || !root || (ST_FAST && e[i].clip->root_key_count == 0)) continue;
            float r[7], d = e[i].clip->duration;
            ST_CLIP_ROOT_MOTION(e[i].clip, p->pos * d, dphase * d, !s->once, r);
            for (int k = 0; k < 3; k++) p->root[k] += w[i] * r[k];
            if (e[i].clip->root_turn) turn_add(p->root, w[i], r); /* r[3..6] are written for a path that turns only */
        }
        if (!p->finished) {
            const float pos0 = p->pos;
            const int loops0 = p->loops;
            double ph = (double)p->pos + dphase;
            int done = 0;
            if (s->once) {
                if (ph >= 1.0) ph = 1.0, done = 1;
                if (ph < 0.0) ph = 0.0;
            } else {
                if (!ST_FAST || !(ph > 0.0 && ph < 1.0)) { /* inside the cycle: floor is 0 and ph stays as it is */
                    double fl = floor(ph);
                    p->loops += (int)fl;
                    ph -= fl;
                    if (ph >= 1.0) ph = 0.0;
                }
            }
            p->pos = (float)ph;
            if (e[dom].meta >= 0) /* the dominant entry's events and windows, over the phase's step */
                nt_advance_phase(inst, m, p != &inst->machines[m].cur, e[dom].meta, w[dom], pos0, p->pos, p->loops - loops0,
                                 dphase, !s->once, dt);
            else if (inst->machines[m].win_open && p == &inst->machines[m].cur)
                nt_close(inst, m, STANCE_WINDOW_INTERRUPTED); /* the dominant clip has no windows now */
            if (done) {
                p->finished = 1;
                if (p == &inst->machines[m].cur && inst->machines[m].win_open) nt_close(inst, m, STANCE_WINDOW_FINISHED);
                emit(inst, STANCE_EVENT_CLIP_FINISHED, layer, m, p->state, -1, s->name);
            }
        }
    }
}

/* ---- transitions --------------------------------------------------------------- */

static int cond_holds(const stance_instance *inst, const g_cond *c) {
    float v = inst->params[c->param];
    switch (c->op) {
    case STANCE_CMP_GE: return v >= c->value + c->hysteresis;
    case STANCE_CMP_GT: return v > c->value + c->hysteresis;
    case STANCE_CMP_LE: return v <= c->value - c->hysteresis;
    case STANCE_CMP_LT: return v < c->value - c->hysteresis;
    case STANCE_CMP_EQ: return v == c->value;
    case STANCE_CMP_NE: return v != c->value;
    case STANCE_CMP_TRUE: return v != 0.0f;
    case STANCE_CMP_FALSE: return v == 0.0f;
    }
    return 0;
}

static float blend_time_of(const stance_instance *inst, const g_trans *t) {
    if (inst->override_blend > 0.0f) return inst->override_blend;
    return t->blend_time > 0.0f ? t->blend_time : inst->graph->default_blend_time;
}

ST_FORCEINLINE int trans_holds(const stance_instance *inst, const g_machine_rt *rt, const g_trans *t) {
    const stance_graph *g = inst->graph;
    if (t->exit == STANCE_EXIT_NORMALIZED && adv_normalized(inst, &rt->cur) < t->exit_time) return 0;
    if (t->exit == STANCE_EXIT_AT_END) {
        const g_state *s = &g->states[rt->cur.state];
        int done = rt->cur.finished || (s->type == STANCE_MOTION_MACHINE && inst->machines[s->sub_machine].cur.finished);
        if (!done && play_remaining(inst, &rt->cur) > blend_time_of(inst, t) + 1e-5f) return 0;
    }
    if (t->cond_count == 0) return 1;
    unsigned groups = 0, failed = 0;
    for (int i = 0; i < t->cond_count; i++) {
        const g_cond *c = &g->conds[t->cond_first + i];
        groups |= 1u << c->group;
        if (!cond_holds(inst, c)) failed |= 1u << c->group;
    }
    return (groups & ~failed) != 0;
}

static int find_transition(const stance_instance *inst, int m) {
    const stance_graph *g = inst->graph;
    const g_machine_rt *rt = &inst->machines[m];
    if (rt->locked && rt->trans >= 0) return -1;
    const g_machine *gm = &g->machines[m];
    for (int i = 0; i < gm->any_count; i++) {
        int t = g->any_trans[gm->any_first + i];
        if (g->trans[t].to == rt->cur.state && !g->trans[t].allow_self) continue;
        if (trans_holds(inst, rt, &g->trans[t])) return t;
    }
    const g_state *s = &g->states[rt->cur.state];
    for (int i = 0; i < s->trans_count; i++) {
        int t = g->state_trans[s->trans_first + i];
        if (trans_holds(inst, rt, &g->trans[t])) return t;
    }
    return -1;
}

/* ---- the plan ------------------------------------------------------------------------ */

static inline int velocity_mode(stance_switch_mode mode) {
    return mode == STANCE_SWITCH_INERTIALIZE || mode == STANCE_SWITCH_INERTIALIZE_SIMPLE || mode == STANCE_SWITCH_DEADBLEND;
}

/* The persistent pose holding machine rt's history frame of `age` (1: the newest). */
static inline int hist_at(const g_machine_rt *rt, int age) {
    const int newer = rt->hist_flip ? PM_H2 : PM_H1;
    return age == 1 ? newer : (newer == PM_H1 ? PM_H2 : PM_H1);
}

/* What play p samples (cw: the weights advance computed for it this update,
 * or NULL); a nested machine's state: that machine's output and its plan
 * in plans (NULL: the caller says). */
ADV_INLINE void plan_src(stance_instance *inst, const g_weights *cw, const g_play *p, stance_cursor *cursors,
                            const g_plan *plans, g_plan_src *src) {
    const stance_graph *g = inst->graph;
    const g_state *s = &g->states[p->state];
    if (s->type == STANCE_MOTION_CLIP) {
        src->sub = -1;
        src->count = 1;
        src->blendspace = 0;
        src->state = p->state;
        src->clip[0] = s->delta ? s->delta : s->clip;
        src->time[0] = p->pos;
        src->weight[0] = 1.0f;
        src->vscale[0] = state_rate(inst, s);
        src->cursor[0] = &cursors[0];
        return;
    }
    if (s->type == STANCE_MOTION_MACHINE) {
        src->sub = s->sub_machine;
        src->sub_plan = plans ? plans + s->sub_machine : NULL;
        src->count = 0;
        src->pos = p->pos;
        return;
    }
    float wbuf[STANCE_MAX_BLEND_ENTRIES], prate;
    const float *w;
    if (ST_FAST && cw && cw->state == p->state) { /* as the step computed them */
        w = cw->w, prate = cw->prate;
    } else {
        blend_weights(inst, s, wbuf);
        w = wbuf, prate = blend_phase_rate(inst, s, wbuf) * state_rate(inst, s);
    }
    const g_entry *e = g->entries + s->entry_first;
    int k = 0;
    for (int i = 0; i < s->entry_count; i++) {
        if (w[i] <= 0.0f) continue;
        float d = e[i].clip->duration;
        src->clip[k] = e[i].delta ? e[i].delta : e[i].clip;
        src->time[k] = p->pos * d;
        src->weight[k] = w[i];
        src->vscale[k] = w[i] * d * prate;
        src->cursor[k] = &cursors[i];
        k++;
    }
    src->sub = -1;
    src->count = k;
    src->blendspace = 1;
    src->same_s = s->same_scale;
    src->pos = p->pos;
}

/* Machine m's plan into pl, for an evaluation: the frame's (push: its
 * output becomes its newest history frame, when it keeps history and dt >
 * 0) or a switch's snapshot (a job: its nested machine's plan is the next).
 * What the switch computes is decided here: the plan says it, the machine's
 * pending_init moves on. */
ADV_INLINE void plan_machine(stance_instance *inst, stance_workspace *ws, g_plan *pl, int m, int job, float dt) {
    const stance_graph *g = inst->graph;
    g_machine_rt *rt = &inst->machines[m];
    if (job) pl->machine = m;
    pl->active = 1;
    plan_src(inst, &ws->weights[m], &rt->cur, in_cursors(inst, m, 0), job ? NULL : ws->plans, &pl->cur);
    if (job) pl->cur.sub_plan = pl + 1; /* a job's plans: the machine its state nests comes next */
    pl->blend = rt->trans >= 0;
    if (pl->blend) {
        const stance_switch_mode mode = rt->mode;
        pl->mode = mode;
        pl->w = tr_ease(rt->easing, rt->duration > 0.0f ? rt->elapsed / rt->duration : 1.0f);
        pl->hist = rt->hist, pl->h1 = hist_at(rt, 1), pl->h2 = hist_at(rt, 2);
        pl->hist_dt = rt->hist_dt, pl->switch_dt = rt->switch_dt, pl->duration = rt->duration, pl->elapsed = rt->elapsed;
        pl->init = PI_NONE;
        if (mode == STANCE_SWITCH_INERTIALIZE_SIMPLE && rt->pending_init) {
            pl->init = PI_SIMPLE;
            rt->pending_init = 0;
        } else if (mode == STANCE_SWITCH_INERTIALIZE && rt->pending_init == 1) {
            pl->init = PI_BEGIN;
            rt->pending_init = rt->hist >= 1 ? 2 : 0; /* without history: no offset to fit */
        } else if (mode == STANCE_SWITCH_INERTIALIZE && rt->pending_init == 2 && rt->elapsed >= STANCE_MIN_DT) {
            pl->init = PI_FIT;
            rt->pending_init = 0;
        }
        pl->old.count = 0, pl->old.sub = -1;
        /* crossfade samples the old state; the velocity modes do not, but
         * the IK stage reads its clips' contacts (a nested machine's old
         * state no longer plays: none) */
        if (mode == STANCE_SWITCH_CROSSFADE ||
            (velocity_mode(mode) && g->states[rt->old.state].type != STANCE_MOTION_MACHINE))
            plan_src(inst, NULL, &rt->old, in_cursors(inst, m, 1), NULL, &pl->old);
    }
    /* history: H2 <- H1 <- the output (steps below STANCE_MIN_DT were made 0) */
    pl->push = rt->has_history ? PUSH_NONE : PUSH_NO_HISTORY;
    if (!job && rt->has_history && dt > 0.0f) {
        rt->hist_flip = !rt->hist_flip; /* last frame's output becomes age 2 */
        pl->push = hist_at(rt, 1);
        rt->hist = rt->hist < 2 ? rt->hist + 1 : 2;
        rt->hist_dt = dt;
    }
}

/* The plan of every machine, parents first (the program's steps from the
 * last): a layer's machine is evaluated when its layer is on (the base
 * layer always, the others when enabled and weighted), a nested machine
 * when its parent is and plays the state nesting it; one not evaluated
 * loses its history. */
ADV_APART void plan(stance_instance *inst, stance_workspace *ws, float dt) {
    const stance_graph *g = inst->graph;
    for (int i = g->step_count - 1; i >= 0; i--) {
        const g_step *st = &g->steps[i];
        const int m = st->machine;
        g_plan *pl = &ws->plans[m];
        const int active = st->parent < 0 ? st->layer == 0 || (!inst->layer_off[st->layer] && inst->layer_weight[st->layer] > 0.0f)
                                          : ws->plans[st->parent].active && inst->machines[st->parent].cur.state == st->parent_state;
        if (active) {
            plan_machine(inst, ws, pl, m, 0, dt);
        } else {
            pl->active = 0;
            inst->machines[m].hist = 0;
        }
    }
}

/* ---- switches ---------------------------------------------------------------------- */

/* The snapshot of machine m's output as it stands (before the switch) into
 * its SNAP pose, for the evaluate stage (a job): its last output when it
 * keeps history, else its evaluation now, planned here: m and its nested
 * machines, parents first (those it does not play lose their history, as
 * in the frame's plan). */
static void snapshot(stance_instance *inst, stance_workspace *ws, int m, g_job *job) {
    const stance_graph *g = inst->graph;
    g_machine_rt *rt = &inst->machines[m];
    job->machine = m;
    if (rt->has_history && rt->hist >= 1) {
        job->snap = JOB_COPY;
        job->from = hist_at(rt, 1);
        return;
    }
    job->snap = JOB_EVAL;
    job->plan_first = ws->job_plans_used;
    const int own = g->machines[m].step, first = g->steps[own].first;
    unsigned char active[STANCE_MAX_MACHINES];
    for (int i = own; i >= first; i--) {
        const g_step *st = &g->steps[i];
        const int k = st->machine;
        const int on = i == own || (active[g->machines[st->parent].step - first] &&
                                    inst->machines[st->parent].cur.state == st->parent_state);
        active[i - first] = (unsigned char)on;
        if (on) plan_machine(inst, ws, &ws->job_plans[ws->job_plans_used++], k, 1, 0.0f);
        else inst->machines[k].hist = 0;
    }
    job->plan_count = ws->job_plans_used - job->plan_first;
}

/* Machine m at its entry state, then the machine its entry state nests,
 * down the nesting; in an update (ws), their weights are spent. */
static void reset_machines(stance_instance *inst, stance_workspace *ws, int m) {
    const stance_graph *g = inst->graph;
    for (;;) {
        g_machine_rt *rt = &inst->machines[m];
        const g_machine *gm = &g->machines[m];
        memset(&rt->cur, 0, sizeof rt->cur);
        rt->cur.state = gm->entry;
        rt->old = rt->cur;
        memset(rt->cursors, 0, sizeof(stance_cursor) * 2 * (size_t)gm->clip_cap);
        rt->trans = -1, rt->from_state = -1;
        rt->elapsed = rt->duration = 0.0f;
        rt->mode = STANCE_SWITCH_CROSSFADE, rt->easing = STANCE_EASE_SMOOTHSTEP;
        rt->locked = rt->pending_init = 0;
        rt->hist = 0, rt->hist_dt = 0.0f;
        rt->req_state = -1;
        rt->win_open = 0, rt->win_meta = -1; /* (closed by whoever left them: notes.c) */
        if (ws) ws->weights[m].state = -1;
        m = g->states[gm->entry].sub_machine;
        if (m < 0) return;
    }
}

/* ---- sync groups (docs/sync.md, core/frame/sync_phase.c) ------------------------- */

/* A crossfade between two clip states of one group: the leader (the higher
 * eased weight after this step) plays its own step, at a rate matched to
 * the blend (Unreal's sync groups): the real time its current marker span
 * takes is the weighted mean of its own and the follower's matching span,
 * (1 - wf) Sl / rl + wf Sf / rf with wf the follower's weight, so the
 * blended stride's cycle moves from one clip's to the other's without a
 * jump at the lead's change (wf = 0.5 on both sides). The follower steps
 * to the phase matching the leader's markers, forward only (a follower
 * ahead waits). Both clocks count the real time. */
static void sync_plays(stance_instance *inst, stance_workspace *ws, int m, float dt) {
    const stance_graph *g = inst->graph;
    g_machine_rt *rt = &inst->machines[m];
    const float w = tr_ease(rt->easing, rt->duration > 0.0f ? (rt->elapsed + dt) / rt->duration : 1.0f);
    g_play *lead = w >= 0.5f ? &rt->cur : &rt->old, *fol = w >= 0.5f ? &rt->old : &rt->cur;
    const g_state *fs = &g->states[fol->state];
    const float rate = state_rate(inst, fs), lrate = state_rate(inst, &g->states[lead->state]), wf = w >= 0.5f ? 1.0f - w : w;
    const int lc = g->sync->state_clip[lead->state], fc = g->sync->state_clip[fol->state];
    float to, sp[2], ldt = dt;
    if (!fol->finished && rate > 0.0f && lrate > 0.0f && gr_sync_match(g->sync, lc, lead->pos, fc, fol->pos, &to, sp)) {
        const float own = sp[0] / lrate, blended = (1.0f - wf) * own + wf * (sp[1] / rate);
        if (blended > 0.0f) ldt = dt * (own / blended);
    }
    const double lt = lead->time;
    advance_play(inst, ws, m, lead, ldt);
    lead->time = lt + dt;
    const float dur = fs->clip->duration;
    float fdt = dt;
    if (!fol->finished && rate > 0.0f && gr_sync_match(g->sync, lc, lead->pos, fc, fol->pos, &to, NULL)) {
        float d = to - fol->pos; /* the shortest way round, forward only */
        if (d > 0.5f * dur) d -= dur;
        if (d < -0.5f * dur) d += dur;
        fdt = d > 0.0f ? d / rate : 0.0f;
    }
    const double t = fol->time;
    advance_play(inst, ws, m, fol, fdt);
    fol->time = t + dt;
}

/* The same where a blend space is one of the two: its marker clip, time and
 * rate are sync_phase.c's (the same rule; kept apart so that the clip
 * states' step stays as it was). */
static ST_NOINLINE ST_COLD void sync_plays_blend(stance_instance *inst, stance_workspace *ws, int m, float dt) {
    g_machine_rt *rt = &inst->machines[m];
    const float w = tr_ease(rt->easing, rt->duration > 0.0f ? (rt->elapsed + dt) / rt->duration : 1.0f);
    g_play *lead = w >= 0.5f ? &rt->cur : &rt->old, *fol = w >= 0.5f ? &rt->old : &rt->cur;
    const double lt = lead->time, ft = fol->time;
    advance_play(inst, ws, m, lead, sp_lead_dt(inst, lead, fol, w >= 0.5f ? 1.0f - w : w, dt));
    lead->time = lt + dt;
    advance_play(inst, ws, m, fol, sp_follow_dt(inst, lead, fol, dt));
    fol->time = ft + dt;
}

/* Switches machine m to state `to` (a transition `ti`, or -1 when asked for
 * by stance_instance_play). */
static void begin_switch(stance_instance *inst, stance_workspace *ws, int m, int ti, int to_state, stance_switch_mode mode,
                         stance_easing easing, float blend, int locked, float dt) {
    const stance_graph *g = inst->graph;
    g_machine_rt *rt = &inst->machines[m];
    const int layer = in_layer_of_machine(g, m);
    const int from = rt->cur.state;
    nt_close_nested(inst, m, STANCE_WINDOW_INTERRUPTED); /* the windows of what it leaves end first */
    emit(inst, STANCE_EVENT_TRANSITION_STARTED, layer, m, to_state, from, g->states[to_state].name);
    emit(inst, STANCE_EVENT_STATE_EXITED, layer, m, from, to_state, g->states[from].name);
    emit(inst, STANCE_EVENT_STATE_ENTERED, layer, m, to_state, from, g->states[to_state].name);
    const int blends = mode != STANCE_SWITCH_CUT && blend > 0.0f;
    if (mode == STANCE_SWITCH_CROSSFADE &&
        (rt->trans >= 0 || g->states[from].type == STANCE_MOTION_MACHINE)) mode = STANCE_SWITCH_FROZEN;
    /* the velocity modes need the machine's history; without it they fade from the frozen pose */
    if (!rt->has_history && (mode == STANCE_SWITCH_INERTIALIZE || mode == STANCE_SWITCH_INERTIALIZE_SIMPLE ||
                             mode == STANCE_SWITCH_DEADBLEND))
        mode = STANCE_SWITCH_FROZEN;
    if (blends) switch (mode) {
    case STANCE_SWITCH_FROZEN:
    case STANCE_SWITCH_DEADBLEND: {
        /* the pose it fades from, and dead blending's velocity at the switch: evaluate's (a job) */
        g_job *job = &ws->jobs[ws->job_count++];
        snapshot(inst, ws, m, job);
        job->deadblend = mode == STANCE_SWITCH_DEADBLEND;
        job->vel = job->deadblend && rt->hist >= 2;
        if (job->vel) job->h1 = hist_at(rt, 1), job->h2 = hist_at(rt, 2), job->hist_dt = rt->hist_dt;
        break;
    }
    case STANCE_SWITCH_INERTIALIZE:
    case STANCE_SWITCH_INERTIALIZE_SIMPLE:
        rt->pending_init = 1;
        break;
    default:
        break;
    }
    ws->weights[m].state = -1; /* (after the snapshot) its new state's are not computed yet */
    /* the old state's clock keeps running through the blend (it is sampled
     * only by crossfade) so its markers and "clip finished" still arrive */
    rt->old = rt->cur;
    rt->cur_slot = !rt->cur_slot;
    memset(&rt->cur, 0, sizeof rt->cur);
    rt->cur.state = to_state;
    memset(in_cursors(inst, m, 0), 0, sizeof(stance_cursor) * (size_t)g->machines[m].clip_cap);
    if (g->sync) sp_start(inst, rt); /* a sync group's target starts at the matched phase */
    const g_state *to = &g->states[to_state];
    if (to->sub_machine >= 0) reset_machines(inst, ws, to->sub_machine);
    rt->from_state = from;
    rt->mode = mode;
    rt->easing = easing;
    rt->switch_dt = dt;
    rt->elapsed = 0.0f;
    rt->duration = blend;
    if (!blends) {
        rt->trans = -1;
        rt->locked = 0;
        rt->pending_init = 0;
        emit(inst, STANCE_EVENT_TRANSITION_FINISHED, layer, m, to_state, from, to->name);
    } else {
        rt->trans = ti >= 0 ? ti : g->trans_count; /* any value >= 0 marks a running switch */
        rt->locked = locked;
    }
}

static void start_transition(stance_instance *inst, stance_workspace *ws, int m, int ti, float dt) {
    const stance_graph *g = inst->graph;
    const g_trans *t = &g->trans[ti];
    g_machine_rt *rt = &inst->machines[m];
    stance_switch_mode mode = inst->override_mode >= 0 ? (stance_switch_mode)inst->override_mode : t->mode;
    stance_easing easing = inst->override_easing >= 0 ? (stance_easing)inst->override_easing : t->easing;
    float blend = blend_time_of(inst, t);
    if (t->exit == STANCE_EXIT_AT_END && g->states[rt->cur.state].type != STANCE_MOTION_MACHINE) {
        float rem = play_remaining(inst, &rt->cur);
        if (rem < blend) blend = rem > dt ? rem : dt; /* the blend ends as the clip ends */
    }
    for (int i = 0; i < t->cond_count; i++) { /* consume the triggers it read */
        const g_cond *c = &g->conds[t->cond_first + i];
        if (g->params[c->param].type == STANCE_PARAM_TRIGGER) /* (no blend space reads a trigger: g_weights stay) */
            inst->params[c->param] = inst->param_target[c->param] = 0.0f;
    }
    begin_switch(inst, ws, m, ti, t->to, mode, easing, blend, t->uninterruptible, dt);
}

/* advance_play's most common steps, without its setup: a clip played to
 * its end (once) that only counts time, and a looping clip without markers
 * stepping forward inside its cycle with no root motion to accumulate. The
 * same results as advance_play; 0 (nothing done) for any other step. */
static inline int advance_plain(const stance_instance *inst, int m, g_play *p, float dt) {
    const stance_graph *g = inst->graph;
    const g_state *s = &g->states[p->state];
    if (s->type != STANCE_MOTION_CLIP) return 0;
    const stance_clip *c = s->clip;
    if (!p->finished) {
        if (s->once || s->meta >= 0) return 0;
        const float step = dt * state_rate(inst, s);
        if (!(step >= 0.0f && p->pos >= 0.0f && p->pos < c->duration && (double)p->pos + (double)step < (double)c->duration))
            return 0;
        if (c->root_key_count != 0 && in_layer_of_machine(g, m) == 0) return 0; /* the base layer's root motion */
        float np = (float)((double)p->pos + (double)step);
        if (np >= c->duration) np = 0.0f;
        p->pos = np;
    }
    p->root[0] = p->root[1] = p->root[2] = p->root[3] = 0.0f;
    p->time += dt;
    return 1;
}


/* Machine m's step (its nested machine's came before it): its plays, its
 * switch's time, then the transition that may start. */
ADV_APART void update_machine(stance_instance *inst, stance_workspace *ws, int m, float dt, unsigned flags) {
    g_machine_rt *rt = &inst->machines[m];
    const stance_graph *g = inst->graph;
    if (rt->trans < 0) {
        if (!(ST_FAST && advance_plain(inst, m, &rt->cur, dt))) advance_play(inst, ws, m, &rt->cur, dt);
    } else {
        if (g->sync && rt->mode == STANCE_SWITCH_CROSSFADE && gr_sync_pair(g->sync, rt->old.state, rt->cur.state)) {
            if (g->states[rt->old.state].type == STANCE_MOTION_CLIP && g->states[rt->cur.state].type == STANCE_MOTION_CLIP)
                sync_plays(inst, ws, m, dt);
            else
                sync_plays_blend(inst, ws, m, dt);
        } else {
            if (!(ST_FAST && advance_plain(inst, m, &rt->cur, dt))) advance_play(inst, ws, m, &rt->cur, dt);
            if (g->states[rt->old.state].type != STANCE_MOTION_MACHINE && !(ST_FAST && advance_plain(inst, m, &rt->old, dt)))
                advance_play(inst, ws, m, &rt->old, dt);
        }
        rt->elapsed += dt;
        if (rt->elapsed >= rt->duration) {
            int layer = in_layer_of_machine(g, m);
            rt->trans = -1;
            rt->locked = 0;
            emit(inst, STANCE_EVENT_TRANSITION_FINISHED, layer, m, rt->cur.state, rt->from_state, g->states[rt->cur.state].name);
        }
    }
    if (!(flags & STANCE_UPDATE_NO_TRANSITIONS) &&
        (!ST_FAST || g->machines[m].any_count > 0 || g->states[rt->cur.state].trans_count > 0)) { /* else none can start */
        int t = find_transition(inst, m);
        if (t >= 0) start_transition(inst, ws, m, t, dt);
    }
}

/* 1 when the machine of step st plays this frame: each machine above it
 * plays the state nesting the one below (their states before their own
 * steps, which come after: children first). */
static int plays(const stance_instance *inst, const g_step *st) {
    const stance_graph *g = inst->graph;
    for (; st->parent >= 0; st = &g->steps[g->machines[st->parent].step])
        if (inst->machines[st->parent].cur.state != st->parent_state) return 0;
    return 1;
}

void adv_reset_machine(stance_instance *inst, int m) { reset_machines(inst, NULL, m); }

/* The root motion of this update (the base machine's, blended across a
 * crossfade) and the world root moved by it (model space, rotated and
 * scaled by the root), unless the caller owns the root. */
ADV_APART void root_motion(stance_instance *inst, const stance_workspace *ws) {
    const int m = inst->graph->layers[0].machine;
    const g_machine_rt *base = &inst->machines[m];
    const g_plan *pl = &ws->plans[m]; /* (planned: the base layer's machine always is) */
    for (int k = 0; k < 4; k++) inst->root_delta[k] = base->cur.root[k];
    int faded = 0;
    if (pl->blend && pl->mode == STANCE_SWITCH_CROSSFADE) { /* its eased weight, as its plan has it */
        const float w = ST_FAST ? pl->w : tr_ease(base->easing, base->duration > 0.0f ? base->elapsed / base->duration : 1.0f);
        for (int k = 0; k < 4; k++) inst->root_delta[k] = base->old.root[k] + (base->cur.root[k] - base->old.root[k]) * w;
        uint32_t ob, cb;
        memcpy(&ob, &base->old.root[3], sizeof ob), memcpy(&cb, &base->cur.root[3], sizeof cb);
        if (((ob | cb) << 1) != 0) turn_fade(inst->root_delta, base->old.root, base->cur.root, w), faded = 1;
    }
    if (inst->root_owned) {
        if (!faded) memcpy(inst->root_delta + 4, base->cur.root + 4, sizeof(float) * 3); /* the turn's axis */
        return;
    }
    stance_transform *r = &inst->world_root;
    /* no motion (every delta +-0): the rotated step is +-0 (the root's
     * rotation and scale are finite), which leaves t as it is unless t
     * holds a -0 (0x80000000) */
    uint32_t db[4], tb[3];
    memcpy(db, inst->root_delta, sizeof db);
    memcpy(tb, r->t, sizeof tb);
    if (((db[0] | db[1] | db[2] | db[3]) << 1) == 0 && tb[0] != 0x80000000u && tb[1] != 0x80000000u && tb[2] != 0x80000000u) return;
    const qm_vec3 d = qm_v3(inst->root_delta[0] * r->s[0], inst->root_delta[1] * r->s[1], inst->root_delta[2] * r->s[2]);
    const qm_quat q = qm_q(r->r[0], r->r[1], r->r[2], r->r[3]);
    const qm_vec3 w = qm_qrot(q, d);
    r->t[0] += w.x, r->t[1] += w.y, r->t[2] += w.z;
    if ((db[3] << 1) != 0) { /* the turn, about its axis in the root's own frame, after the step */
        float *ax = inst->root_delta + 4;
        if (!faded) memcpy(ax, base->cur.root + 4, sizeof(float) * 3);
        const float h = 0.5f * inst->root_delta[3];
        qm_quat t;
        if (ax[0] == 0.0f && ax[1] == 1.0f && ax[2] == 0.0f) { /* a yaw: about the root's up axis */
            t = qm_q(0.0f, sm_sinf(h), 0.0f, sm_cosf(h));
        } else {
            const float sh = sm_sinf(h);
            t = qm_q(ax[0] * sh, ax[1] * sh, ax[2] * sh, sm_cosf(h));
        }
        const qm_quat n = qm_qnorm(qm_qmul(q, t));
        r->r[0] = n.x, r->r[1] = n.y, r->r[2] = n.z, r->r[3] = n.w;
    }
}

/* skip: a frame the pose skips (adv_frame_skip), a constant where inlined */
ST_FORCEINLINE void adv_frame_as(stance_instance *inst, stance_workspace *ws, float dt, unsigned flags, int skip) {
    const stance_graph *g = inst->graph;
    inst->event_count = inst->event_dropped = 0;
    inst->events_sealed = 0;
    ws->job_count = 0, ws->job_plans_used = 0;
    if (inst->requests) {
        if (inst->requests & 1) {
            /* stance_instance_play requests, carried out before the frame
             * advances (their events open this update's list, at the time they
             * were asked); no weights are this update's yet */
            for (int m = 0; m < g->machine_count; m++) ws->weights[m].state = -1;
            for (int m = 0; m < g->machine_count; m++) {
                g_machine_rt *rt = &inst->machines[m];
                if (rt->req_state < 0) continue;
                int state = rt->req_state;
                rt->req_state = -1;
                begin_switch(inst, ws, m, -1, state, rt->req_mode, rt->req_easing, rt->req_blend, 0, 0.0f);
            }
        }
        inst->requests &= CV_DRIVES;
        /* a graph with drives: parameters, layer and IK weights from curves
         * and parameters, where the last update left the clips (curves.c) */
        if (inst->requests) cv_drive(inst);
    }
    inst->time += dt;
    for (int i = 0; i < g->param_count; i++) { /* damped parameters follow their targets */
        float h = g->params[i].damping;
        if (h > 0.0f) {
            float tgt = inst->param_target[i];
            if (!ST_FAST || h != ws->damp_h || dt != ws->damp_dt) /* instances of one graph share it frame after frame */
                ws->damp_h = h, ws->damp_dt = dt, ws->damp_a = sm_exp2f(-dt / h);
            const float a = ws->damp_a; /* issue 12: a weighted mean stays finite where tgt + (v - tgt) * a overflowed */
            float v = a * inst->params[i] + (1.0f - a) * tgt;
            if (!st_finite(v)) v = tgt; /* the sum of two halves of FLT_MAX can still round up */
            if (fabsf(v - tgt) < 1e-6f) v = tgt;
            inst->params[i] = v;
        }
    }
    /* layer weights fade towards their targets (the one owner of layer weights) */
    for (int l = 0; l < g->layer_count; l++) {
        float w = inst->layer_weight[l], t = inst->layer_target[l], r = inst->layer_rate[l];
        if (!ST_FAST || w != t) {
            float step = !(r > 0.0f) ? 1e30f : dt > 0.0f ? r * dt : 0.0f; /* issue 12: an inf rate (tiny fade) times a zero step was NaN */
            /* within 1e-6 of the target is the target (a fade summed frame by frame stops a hair short) */
            w = w < t ? (w + step > t - 1e-6f ? t : w + step) : (w - step < t + 1e-6f ? t : w - step);
            inst->layer_weight[l] = w;
        }
    }
    /* every enabled layer's machines play, seen or not, children first; one
     * that no switch runs in and no transition can leave, stepped plainly,
     * is done at once */
    for (const g_step *st = g->steps, *end = st + g->step_count; st < end; st++) {
        if (inst->layer_off[st->layer] || (st->parent >= 0 && !plays(inst, st))) continue;
        const int m = st->machine;
        g_machine_rt *rt = &inst->machines[m];
        if (ST_FAST && rt->trans < 0 && !st->has_trans && advance_plain(inst, m, &rt->cur, dt)) continue;
        update_machine(inst, ws, m, dt, flags);
    }
    if (!(ST_FAST && skip && adv_skip_plan(inst, ws))) plan(inst, ws, dt); /* (advance_skip.c) */
    root_motion(inst, ws);
}
void adv_frame(stance_instance *inst, stance_workspace *ws, float dt, unsigned flags) { adv_frame_as(inst, ws, dt, flags, 0); }
void adv_frame_skip(stance_instance *inst, stance_workspace *ws, float dt) { adv_frame_as(inst, ws, dt, 0, 1); }
