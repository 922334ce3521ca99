/* src/core/advance.c - the advance pass of a frame: damped parameters,
 * layer fades, play requests, transitions (conditions, exit times, switch
 * modes), playback with phase-synced blend spaces, events and root motion;
 * then the plan per machine that evaluation reads (which clips, at which
 * times, with which weights and cursors, how to switch).
 *
 * Works on one instance (persistent state) and its workspace (the plans,
 * and scratch for a snapshot when a switch freezes the last pose). */
#include <string.h>

#include "core/frame_copy.h" /* ST_FAST: the fast paths below are on (docs/fast-paths.md) */
#include "core/graph_internal.h"
#include "core/internal.h"

static float state_rate(const stance_instance *inst, const g_state *s) {
    float r = s->speed;
    if (s->speed_param >= 0) r *= inst->params[s->speed_param];
    return r;
}

#if defined(__GNUC__)
#define ADV_INLINE static inline __attribute__((always_inline))
#else
#define ADV_INLINE static inline
#endif

/* Blend space weights into w (entry_count of them). */
ADV_INLINE void blend_weights(const stance_instance *inst, const g_state *s, float *w) {
    const g_entry *e = inst->graph->entries + s->entry_first;
    const int n = s->entry_count;
    float x = inst->params[s->param_x];
    for (int i = 0; i < n; i++) w[i] = 0.0f;
    if (s->type == STANCE_MOTION_BLEND1D) {
        if (x <= e[0].x) { w[0] = 1.0f; return; }
        if (x >= e[n - 1].x) { w[n - 1] = 1.0f; return; }
        for (int i = 0; i + 1 < n; i++)
            if (x >= e[i].x && x <= e[i + 1].x) {
                float u = (x - e[i].x) / (e[i + 1].x - e[i].x);
                w[i] = 1.0f - u, w[i + 1] = u;
                if (w[i] < 1e-6f) w[i] = 0.0f;
                if (w[i + 1] < 1e-6f) w[i + 1] = 0.0f;
                return;
            }
        return;
    }
    /* 2D: gradient band interpolation (cartesian). Each entry's weight is the
     * smallest of its bands towards every other entry; it needs no
     * triangulation, is exact at the entries and continuous everywhere, and
     * works for any layout of samples. */
    float y = inst->params[s->param_y], total = 0.0f;
    for (int i = 0; i < n; i++) {
        float wi = 1.0f;
        for (int j = 0; j < n; j++) {
            if (j == i) continue;
            float ax = x - e[i].x, ay = y - e[i].y, bx = e[j].x - e[i].x, by = e[j].y - e[i].y;
            float h = 1.0f - (ax * bx + ay * by) / (bx * bx + by * by);
            if (h < wi) wi = h;
        }
        w[i] = wi > 0.0f ? wi : 0.0f;
        total += w[i];
    }
    if (total > 0.0f)
        for (int i = 0; i < n; i++) w[i] /= total;
    else
        w[0] = 1.0f;
}
void adv_blend_weights(const stance_instance *inst, const g_state *s, float *w) { blend_weights(inst, s, w); }

/* Cycles per second of a blend space at its weights (phase rate). With
 * speed warp, the rate is scaled so the blended root moves at the
 * parameter's value (phase-synced gaits of different stride lengths would
 * otherwise move slower than their weighted speed), within [1/4, 4]. */
ADV_INLINE float blend_phase_rate(const stance_instance *inst, const g_state *s, const float *w) {
    const g_entry *e = inst->graph->entries + s->entry_first;
    float r = 0.0f, stride = 0.0f;
    for (int i = 0; i < s->entry_count; i++)
        if (w[i] > 0.0f) {
            r += w[i] / e[i].clip->duration;
            stride += w[i] * e[i].clip->root_speed * e[i].clip->duration;
        }
    if (s->speed_warp) {
        float v = r * stride, x = inst->params[s->param_x];
        if (v > 1e-4f && x > 0.0f) {
            float k = x / v;
            r *= k < 0.25f ? 0.25f : k > 4.0f ? 4.0f : k;
        }
    }
    return r;
}

float adv_normalized(const stance_instance *inst, const g_play *p) {
    const g_state *s = &inst->graph->states[p->state];
    if (s->type == STANCE_MOTION_CLIP) return (float)p->loops + p->pos / s->clip->duration;
    if (s->type == STANCE_MOTION_MACHINE) return adv_normalized(inst, &inst->machines[s->sub_machine].cur);
    return (float)p->loops + p->pos;
}

/* Seconds left in the current cycle at the current rate (large if paused). */
static float play_remaining(const stance_instance *inst, const g_play *p) {
    const g_state *s = &inst->graph->states[p->state];
    float rate = state_rate(inst, s);
    if (s->type == STANCE_MOTION_MACHINE) return play_remaining(inst, &inst->machines[s->sub_machine].cur);
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

static void update_machine(stance_instance *inst, stance_workspace *ws, int m, float dt, unsigned flags);

static void emit_markers(stance_instance *inst, int layer, int m, const g_play *p, const stance_clip *c,
                         const stance_event_hit *hits, int n) {
    for (int i = 0; i < n && i < 16; i++)
        in_emit(inst, STANCE_EVENT_CLIP_MARKER, layer, m, p->state, hits[i].index, c->events[hits[i].index].name);
    if (n > 16) inst->event_dropped += n - 16; /* a huge step crossed more markers than fit */
}

static void advance_play(stance_instance *inst, stance_workspace *ws, int m, g_play *p, float dt, unsigned flags) {
    const stance_graph *g = inst->graph;
    const g_state *s = &g->states[p->state];
    const int layer = in_layer_of_machine(g, m);
    const int root = layer == 0; /* root motion is the base layer's */
    const float rate = state_rate(inst, s);
    p->root[0] = p->root[1] = p->root[2] = 0.0f;
    p->time += dt;
    stance_event_hit hits[16];
    int n = 0, wraps = 0;
    if (s->type == STANCE_MOTION_CLIP) {
        const stance_clip *c = s->clip;
        float np;
        if (!p->finished) {
            const float step = dt * rate;
            if (ST_FAST && !s->once && c->event_count == 0 && step >= 0.0f && p->pos >= 0.0f && p->pos < c->duration &&
                (double)p->pos + (double)step < (double)c->duration) {
                /* a looping clip without markers inside its cycle: stance_clip_advance's first case */
                np = (float)((double)p->pos + (double)step);
                if (np >= c->duration) np = 0.0f;
            } else {
                ST_CLIP_ADVANCE(c, p->pos, step, !s->once, &np, hits, 16, &n, &wraps);
            }
            if (root) ST_CLIP_ROOT_MOTION(c, p->pos, dt * rate, !s->once, p->root);
            p->pos = np;
            p->loops += wraps;
            emit_markers(inst, layer, m, p, c, hits, n);
            /* a clock summed frame by frame may stop a hair short of the end */
            const float eps = 1e-5f * (c->duration > 1.0f ? c->duration : 1.0f);
            if (s->once && rate > 0.0f && np >= c->duration - eps) np = p->pos = c->duration;
            if (s->once && ((rate >= 0.0f && np >= c->duration) || (rate < 0.0f && np <= 0.0f))) {
                p->finished = 1;
                in_emit(inst, STANCE_EVENT_CLIP_FINISHED, layer, m, p->state, -1, s->name);
            }
        }
    } else if (s->type == STANCE_MOTION_MACHINE) {
        update_machine(inst, ws, s->sub_machine, dt, flags);
        memcpy(p->root, inst->machines[s->sub_machine].cur.root, sizeof p->root);
    } else {
        float w[STANCE_MAX_BLEND_ENTRIES];
        blend_weights(inst, s, w);
        const float prate = blend_phase_rate(inst, s, w) * rate;
        float dphase = prate * dt;
        if (ST_FAST && p == &inst->machines[m].cur) { /* the plan reuses them (plan_src) */
            g_plan *pl = &ws->plans[m];
            pl->stamp = ws->stamp, pl->cstate = p->state, pl->cprate = prate;
            memcpy(pl->cw, w, sizeof(float) * (size_t)s->entry_count);
        }
        const g_entry *e = g->entries + s->entry_first;
        int dom = 0;
        for (int i = 0; i < s->entry_count; i++) {
            if (w[i] > w[dom]) dom = i;
            /* a clip without a root path adds 0 (p->root is never -0: it starts at +0) */
            if (w[i] <= 0.0f || !root || (ST_FAST && e[i].clip->root_key_count == 0)) continue;
            float r[3], d = e[i].clip->duration;
            ST_CLIP_ROOT_MOTION(e[i].clip, p->pos * d, dphase * d, !s->once, r);
            for (int k = 0; k < 3; k++) p->root[k] += w[i] * r[k];
        }
        if (!p->finished) {
            if (e[dom].clip->event_count > 0) { /* its markers (the phase moves on below) */
                float d = e[dom].clip->duration, np;
                ST_CLIP_ADVANCE(e[dom].clip, p->pos * d, dphase * d, !s->once, &np, hits, 16, &n, &wraps);
                emit_markers(inst, layer, m, p, e[dom].clip, hits, n);
            }
            double ph = (double)p->pos + dphase;
            if (s->once) {
                if (ph >= 1.0) {
                    ph = 1.0;
                    p->finished = 1;
                    in_emit(inst, STANCE_EVENT_CLIP_FINISHED, layer, m, p->state, -1, s->name);
                }
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

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int trans_holds(const stance_instance *inst, const g_machine_rt *rt, const g_trans *t) {
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

/* The machine's output as it stands (before the switch) into its SNAP pose:
 * the last output when it keeps history, else evaluated now. */
static void snapshot(stance_instance *inst, stance_workspace *ws, int m) {
    g_machine_rt *rt = &inst->machines[m];
    stance_pose *snap = in_mpose(inst, ws, m, PM_SNAP);
    if (rt->has_history && rt->hist >= 1) {
        st_pose_copy(snap, in_hist(inst, ws, m, 1));
        return;
    }
    adv_plan_tree(inst, ws, m, 1);
    ev_machine_tree(inst, ws, m, 0.0f, 0);
    st_pose_copy(snap, in_wpose(ws, m, PW_OUT));
}

/* Switches machine m to state `to` (a transition `ti`, or -1 when asked for
 * by stance_instance_play). */
static void begin_switch(stance_instance *inst, stance_workspace *ws, int m, int ti, int to_state, stance_switch_mode mode,
                         stance_easing easing, float blend, int locked, float dt) {
    const stance_graph *g = inst->graph;
    g_machine_rt *rt = &inst->machines[m];
    const int layer = in_layer_of_machine(g, m);
    const int from = rt->cur.state;
    in_emit(inst, STANCE_EVENT_TRANSITION_STARTED, layer, m, to_state, from, g->states[to_state].name);
    in_emit(inst, STANCE_EVENT_STATE_EXITED, layer, m, from, to_state, g->states[from].name);
    in_emit(inst, STANCE_EVENT_STATE_ENTERED, layer, m, to_state, from, g->states[to_state].name);
    const int blends = mode != STANCE_SWITCH_CUT && blend > 0.0f;
    if (mode == STANCE_SWITCH_CROSSFADE &&
        (rt->trans >= 0 || g->states[from].type == STANCE_MOTION_MACHINE)) mode = STANCE_SWITCH_FROZEN;
    /* the velocity modes need the machine's history; without it they fade from the frozen pose */
    if (!rt->has_history && (mode == STANCE_SWITCH_INERTIALIZE || mode == STANCE_SWITCH_INERTIALIZE_SIMPLE ||
                             mode == STANCE_SWITCH_DEADBLEND))
        mode = STANCE_SWITCH_FROZEN;
    const int J = g->skeleton->joint_count;
    if (blends) switch (mode) {
    case STANCE_SWITCH_FROZEN:
    case STANCE_SWITCH_DEADBLEND:
        snapshot(inst, ws, m);
        if (mode == STANCE_SWITCH_DEADBLEND) {
            memset(rt->rec, 0, sizeof(float) * 9 * (size_t)J);
            if (rt->hist >= 2) {
                stance_pose *v = in_wpose(ws, m, PW_SV);
                tr_velocity(v, in_hist(inst, ws, m, 1), in_hist(inst, ws, m, 2), rt->hist_dt);
                for (int j = 0; j < J; j++) {
                    float *r = rt->rec + (size_t)j * 9;
                    r[0] = v->tx[j], r[1] = v->ty[j], r[2] = v->tz[j];
                    r[3] = v->qx[j], r[4] = v->qy[j], r[5] = v->qz[j];
                    r[6] = v->sx[j], r[7] = v->sy[j], r[8] = v->sz[j];
                }
            }
        }
        break;
    case STANCE_SWITCH_INERTIALIZE:
    case STANCE_SWITCH_INERTIALIZE_SIMPLE:
        rt->pending_init = 1;
        break;
    default:
        break;
    }
    /* the old state's clock keeps running through the blend (it is sampled
     * only by crossfade) so its markers and "clip finished" still arrive */
    rt->old = rt->cur;
    rt->cur_slot = !rt->cur_slot;
    memset(&rt->cur, 0, sizeof rt->cur);
    rt->cur.state = to_state;
    memset(in_cursors(inst, m, 0), 0, sizeof(stance_cursor) * (size_t)g->machines[m].clip_cap);
    const g_state *to = &g->states[to_state];
    if (to->sub_machine >= 0) in_reset_machine(inst, to->sub_machine);
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
        in_emit(inst, STANCE_EVENT_TRANSITION_FINISHED, layer, m, to_state, from, to->name);
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
        if (g->params[c->param].type == STANCE_PARAM_TRIGGER) {
            inst->params[c->param] = inst->param_target[c->param] = 0.0f;
            if (++ws->stamp == 0) ws->stamp = 1; /* the cached blend weights may have read it */
        }
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
        if (s->once || c->event_count != 0) return 0;
        const float step = dt * state_rate(inst, s);
        if (!(step >= 0.0f && p->pos >= 0.0f && p->pos < c->duration && (double)p->pos + (double)step < (double)c->duration))
            return 0;
        if (c->root_key_count != 0 && in_layer_of_machine(g, m) == 0) return 0; /* the base layer's root motion */
        float np = (float)((double)p->pos + (double)step);
        if (np >= c->duration) np = 0.0f;
        p->pos = np;
    }
    p->root[0] = p->root[1] = p->root[2] = 0.0f;
    p->time += dt;
    return 1;
}

static void update_machine(stance_instance *inst, stance_workspace *ws, int m, float dt, unsigned flags) {
    g_machine_rt *rt = &inst->machines[m];
    const stance_graph *g = inst->graph;
    if (!(ST_FAST && advance_plain(inst, m, &rt->cur, dt))) advance_play(inst, ws, m, &rt->cur, dt, flags);
    if (rt->trans >= 0) {
        if (g->states[rt->old.state].type != STANCE_MOTION_MACHINE && !(ST_FAST && advance_plain(inst, m, &rt->old, dt)))
            advance_play(inst, ws, m, &rt->old, dt, flags);
        rt->elapsed += dt;
        if (rt->elapsed >= rt->duration) {
            int layer = in_layer_of_machine(g, m);
            rt->trans = -1;
            rt->locked = 0;
            in_emit(inst, STANCE_EVENT_TRANSITION_FINISHED, layer, m, rt->cur.state, rt->from_state, g->states[rt->cur.state].name);
        }
    }
    if (!(flags & STANCE_UPDATE_NO_TRANSITIONS) &&
        (!ST_FAST || g->machines[m].any_count > 0 || g->states[rt->cur.state].trans_count > 0)) { /* else none can start */
        int t = find_transition(inst, m);
        if (t >= 0) start_transition(inst, ws, m, t, dt);
    }
}

/* stance_instance_play requests, carried out before the frame advances
 * (their events open this update's list, at the time they were asked). */
void adv_apply_requests(stance_instance *inst, stance_workspace *ws) {
    const stance_graph *g = inst->graph;
    for (int m = 0; m < g->machine_count; m++) {
        g_machine_rt *rt = &inst->machines[m];
        if (rt->req_state < 0) continue;
        int state = rt->req_state;
        rt->req_state = -1;
        begin_switch(inst, ws, m, -1, state, rt->req_mode, rt->req_easing, rt->req_blend, 0, 0.0f);
    }
}

void adv_frame(stance_instance *inst, stance_workspace *ws, float dt, unsigned flags) {
    const stance_graph *g = inst->graph;
    inst->time += dt;
    for (int i = 0; i < g->param_count; i++) { /* damped parameters follow their targets */
        float h = g->params[i].damping;
        if (h > 0.0f) {
            float tgt = inst->param_target[i];
            if (!ST_FAST || h != ws->damp_h || dt != ws->damp_dt) /* instances of one graph share it frame after frame */
                ws->damp_h = h, ws->damp_dt = dt, ws->damp_a = exp2f(-dt / h);
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
    /* every enabled layer's machine plays, seen or not; one that no switch
     * runs in and no transition can leave, stepped plainly, is done here */
    for (int l = 0; l < g->layer_count; l++) {
        if (inst->layer_off[l]) continue;
        const int m = g->layers[l].machine;
        g_machine_rt *rt = &inst->machines[m];
        if (ST_FAST && rt->trans < 0 && !g->machines[m].has_trans && advance_plain(inst, m, &rt->cur, dt))
            continue;
        update_machine(inst, ws, m, dt, flags);
    }
}

/* ---- the plan ----------------------------------------------------------------------- */

static inline void plan_src(stance_instance *inst, const stance_workspace *ws, const g_plan *pl, const g_play *p,
                     stance_cursor *cursors, g_plan_src *src) {
    const stance_graph *g = inst->graph;
    const g_state *s = &g->states[p->state];
    src->sub = -1;
    src->count = 0;
    src->blendspace = 0;
    src->same_s = 0;
    if (s->type == STANCE_MOTION_CLIP) {
        const float rate = state_rate(inst, s);
        src->count = 1;
        src->clip[0] = s->delta ? s->delta : s->clip;
        src->time[0] = p->pos;
        src->weight[0] = 1.0f;
        src->vscale[0] = rate;
        src->cursor[0] = &cursors[0];
        return;
    }
    if (s->type == STANCE_MOTION_MACHINE) {
        src->sub = s->sub_machine;
        return;
    }
    float wbuf[STANCE_MAX_BLEND_ENTRIES], prate;
    const float *w;
    if (ST_FAST && pl && pl->stamp == ws->stamp && pl->cstate == p->state) { /* as the advance pass computed them */
        w = pl->cw, prate = pl->cprate;
    } else {
        adv_blend_weights(inst, s, wbuf);
        w = wbuf, prate = blend_phase_rate(inst, s, wbuf) * state_rate(inst, s);
    }
    const g_entry *e = g->entries + s->entry_first;
    for (int i = 0; i < s->entry_count; i++) {
        if (w[i] <= 0.0f) continue;
        float d = e[i].clip->duration;
        int k = src->count++;
        src->clip[k] = e[i].delta ? e[i].delta : e[i].clip;
        src->time[k] = p->pos * d;
        src->weight[k] = w[i];
        src->vscale[k] = w[i] * d * prate;
        src->cursor[k] = &cursors[i];
    }
    src->blendspace = 1;
    src->same_s = s->same_scale;
}

/* Writes machine m's own plan (evaluated when `active`; a machine not
 * evaluated this frame loses its history). */
static inline void plan_machine(stance_instance *inst, stance_workspace *ws, int m, int active) {
    const stance_graph *g = inst->graph;
    g_machine_rt *rt = &inst->machines[m];
    g_plan *pl = &ws->plans[m];
    pl->active = active;
    if (!active) {
        rt->hist = 0;
    } else {
        plan_src(inst, ws, pl, &rt->cur, in_cursors(inst, m, 0), &pl->cur);
        pl->blend = rt->trans >= 0;
        pl->mode = rt->mode;
        pl->w = pl->blend ? tr_ease(rt->easing, rt->duration > 0.0f ? rt->elapsed / rt->duration : 1.0f) : 1.0f;
        pl->old.count = 0, pl->old.sub = -1;
        /* crossfade samples the old state; the velocity modes do not, but
         * the IK stage reads its clips' contacts (a nested machine's old
         * state no longer plays: none) */
        const int velocity_mode = rt->mode == STANCE_SWITCH_INERTIALIZE || rt->mode == STANCE_SWITCH_INERTIALIZE_SIMPLE ||
                                  rt->mode == STANCE_SWITCH_DEADBLEND;
        if (pl->blend && (rt->mode == STANCE_SWITCH_CROSSFADE ||
                          (velocity_mode && g->states[rt->old.state].type != STANCE_MOTION_MACHINE)))
            plan_src(inst, ws, NULL, &rt->old, in_cursors(inst, m, 1), &pl->old);
    }
}

/* The plans of the machines nested in m (m's own is written). */
static void plan_nested(stance_instance *inst, stance_workspace *ws, int m, int active) {
    const stance_graph *g = inst->graph;
    const g_machine *gm = &g->machines[m];
    const int cur = inst->machines[m].cur.state;
    for (int s = gm->state_first; s < gm->state_first + gm->state_count; s++) {
        int sub = g->states[s].sub_machine;
        if (sub >= 0) adv_plan_tree(inst, ws, sub, active && cur == s);
    }
}

/* Writes the plans of machine m's subtree: m is evaluated when `active`,
 * and a nested machine when its parent is and plays the state nesting it.
 * Machines not evaluated this frame lose their history. */
void adv_plan_tree(stance_instance *inst, stance_workspace *ws, int m, int active) {
    plan_machine(inst, ws, m, active);
    const g_machine *gm = &inst->graph->machines[m];
    if (gm->post_first != gm->post_at) plan_nested(inst, ws, m, active);
}

void adv_plan_layers(stance_instance *inst, stance_workspace *ws) {
    const stance_graph *g = inst->graph;
    for (int l = 0; l < g->layer_count; l++) {
        const int m = g->layers[l].machine, on = l == 0 || (!inst->layer_off[l] && inst->layer_weight[l] > 0.0f);
        plan_machine(inst, ws, m, on);
        if (g->machines[m].post_first != g->machines[m].post_at) plan_nested(inst, ws, m, on);
    }
}
