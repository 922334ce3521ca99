/* src/core/instance.c - one character running a graph: parameters, each
 * machine's current state and transition, playback with phase-synced blend
 * spaces, the switch modes, layers, events and root motion.
 *
 * All memory is one block made at creation; update allocates nothing and
 * reads only its own instance and the shared, immutable graph and clips. */
#include <stdio.h>
#include <string.h>

#include "core/graph_internal.h"
#include "core/internal.h"
#include "core/names.h"

/* ---- memory ---------------------------------------------------------------- */

typedef struct inst_layout {
    size_t params, ptarget, machines, lw, lt, lr, loff, pose_structs, pose_mem, inert, vel, total;
} inst_layout;

static size_t grab(size_t *off, size_t bytes) {
    size_t at = st_align_up(*off, 64);
    *off = at + bytes;
    return at;
}

static inst_layout layout_of(const stance_graph *g) {
    inst_layout lo;
    const int J = g->skeleton->joint_count, M = g->machine_count, L = g->layer_count;
    const int np = M * P_PER_MACHINE + P_INSTANCE;
    size_t off = sizeof(stance_instance);
    lo.params = grab(&off, sizeof(float) * (size_t)(g->param_count ? g->param_count : 1));
    lo.ptarget = grab(&off, sizeof(float) * (size_t)(g->param_count ? g->param_count : 1));
    lo.machines = grab(&off, sizeof(g_machine_rt) * (size_t)M);
    lo.lw = grab(&off, sizeof(float) * (size_t)L);
    lo.lt = grab(&off, sizeof(float) * (size_t)L);
    lo.lr = grab(&off, sizeof(float) * (size_t)L);
    lo.loff = grab(&off, (size_t)L);
    lo.pose_structs = grab(&off, sizeof(stance_pose) * (size_t)np);
    lo.pose_mem = grab(&off, stance_pose_bytes(J) * (size_t)np);
    lo.inert = grab(&off, sizeof(float) * INERT_FLOATS * (size_t)J * (size_t)M);
    lo.vel = grab(&off, sizeof(float) * 9 * (size_t)J * (size_t)M);
    lo.total = off;
    return lo;
}

/* Points every internal pointer into the block at `inst` (after creation or a copy). */
static void bind(stance_instance *inst) {
    const stance_graph *g = inst->graph;
    unsigned char *mem = (unsigned char *)inst;
    inst_layout lo = layout_of(g);
    const int J = g->skeleton->joint_count, M = g->machine_count;
    const size_t pb = stance_pose_bytes(J);
    inst->params = (float *)(mem + lo.params);
    inst->param_target = (float *)(mem + lo.ptarget);
    inst->machines = (g_machine_rt *)(mem + lo.machines);
    inst->layer_weight = (float *)(mem + lo.lw);
    inst->layer_target = (float *)(mem + lo.lt);
    inst->layer_rate = (float *)(mem + lo.lr);
    inst->layer_off = mem + lo.loff;
    inst->poses = (stance_pose *)(mem + lo.pose_structs);
    inst->pose_count = M * P_PER_MACHINE + P_INSTANCE;
    for (int i = 0; i < inst->pose_count; i++) {
        stance_pose *p = &inst->poses[i];
        unsigned char *pm = mem + lo.pose_mem + pb * (size_t)i;
        int pc = st_pad8(J);
        float **ch[10] = {&p->tx, &p->ty, &p->tz, &p->qx, &p->qy, &p->qz, &p->qw, &p->sx, &p->sy, &p->sz};
        for (int c = 0; c < 10; c++) *ch[c] = (float *)pm + (size_t)c * (size_t)pc;
        p->memory = pm;
        p->joint_count = J, p->padded_count = pc;
        memset(&p->allocator, 0, sizeof p->allocator);
    }
    for (int m = 0; m < M; m++) {
        g_machine_rt *rt = &inst->machines[m];
        rt->pose_base = m * P_PER_MACHINE;
        rt->inert = (float *)(mem + lo.inert) + (size_t)m * INERT_FLOATS * (size_t)J;
        rt->vel = (float *)(mem + lo.vel) + (size_t)m * 9 * (size_t)J;
    }
}

static stance_pose *mpose(stance_instance *inst, int m, int which) {
    return &inst->poses[m * P_PER_MACHINE + which];
}
/* The output one frame ago (age 1) and two frames ago (age 2): the two
 * buffers swap roles each frame instead of copying one into the other. */
static stance_pose *hist(stance_instance *inst, int m, int age) {
    int newer = inst->machines[m].hist_flip ? P_H2 : P_H1;
    return mpose(inst, m, age == 1 ? newer : (newer == P_H1 ? P_H2 : P_H1));
}

static stance_pose *ipose(stance_instance *inst, int which) {
    return &inst->poses[inst->graph->machine_count * P_PER_MACHINE + which];
}

/* ---- events ------------------------------------------------------------------ */

/* The queue holds the events of the last update. Events raised between
 * updates (stance_instance_play) start the next update's list. */
static void emit(stance_instance *inst, stance_event_type type, int layer, int machine, int state, int other,
                 const char *name) {
    if (inst->events_sealed) inst->event_count = inst->event_dropped = 0, inst->events_sealed = 0;
    if (inst->event_count >= STANCE_EVENT_QUEUE) { inst->event_dropped++; return; }
    stance_event *e = &inst->events[inst->event_count++];
    e->type = type, e->layer = layer, e->machine = machine, e->state = state, e->other = other;
    e->name = name ? name : "";
    e->time = (float)inst->time;
}

static int layer_of_machine(const stance_graph *g, int m) {
    while (m >= 0 && g->machines[m].layer < 0) {
        int ps = g->machines[m].parent_state;
        m = ps >= 0 ? g->states[ps].machine : -1;
    }
    return m >= 0 ? g->machines[m].layer : -1;
}

/* ---- playback ----------------------------------------------------------------- */

static void play_start(g_play *p, int state) {
    memset(p, 0, sizeof *p);
    p->state = state;
}

static void reset_machine(stance_instance *inst, int m) {
    g_machine_rt *rt = &inst->machines[m];
    const g_machine *gm = &inst->graph->machines[m];
    play_start(&rt->cur, gm->entry);
    play_start(&rt->old, gm->entry);
    rt->trans = -1, rt->from_state = -1;
    rt->elapsed = rt->duration = 0.0f;
    rt->locked = rt->pending_init = 0;
    rt->hist = 0, rt->hist_dt = 0.0f;
    const g_state *s = &inst->graph->states[gm->entry];
    if (s->sub_machine >= 0) reset_machine(inst, s->sub_machine);
}

static float state_rate(const stance_instance *inst, const g_state *s) {
    float r = s->speed;
    if (s->speed_param >= 0) r *= inst->params[s->speed_param];
    return r;
}

/* Blend space weights into w (entry_count of them). */
static void blend_weights(const stance_instance *inst, const g_state *s, float *w) {
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

/* Cycles per second of a blend space at its weights (phase rate). With
 * speed warp, the rate is scaled so the blended root moves at the
 * parameter's value (phase-synced gaits of different stride lengths would
 * otherwise move slower than their weighted speed), within [1/4, 4]. */
static float blend_phase_rate(const stance_instance *inst, const g_state *s, const float *w) {
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

static int play_duration_known(const stance_instance *inst, const g_play *p) {
    return inst->graph->states[p->state].type != STANCE_MOTION_MACHINE;
}

static float play_normalized(const stance_instance *inst, const g_play *p) {
    const g_state *s = &inst->graph->states[p->state];
    if (s->type == STANCE_MOTION_CLIP) return (float)p->loops + p->pos / s->clip->duration;
    if (s->type == STANCE_MOTION_MACHINE)
        return play_normalized(inst, &inst->machines[s->sub_machine].cur);
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
    blend_weights(inst, s, w);
    float pr = blend_phase_rate(inst, s, w) * rate;
    return pr > 0.0f ? (1.0f - p->pos) / pr : 1e30f;
}

static void update_machine(stance_instance *inst, int m, float dt, unsigned flags);

static void advance_play(stance_instance *inst, int m, g_play *p, float dt, int report, unsigned flags) {
    const stance_graph *g = inst->graph;
    const g_state *s = &g->states[p->state];
    const int layer = layer_of_machine(g, m);
    const float rate = state_rate(inst, s);
    p->root[0] = p->root[1] = p->root[2] = 0.0f;
    p->time += dt;
    stance_event_hit hits[16];
    int n = 0, wraps = 0;
    if (s->type == STANCE_MOTION_CLIP) {
        const stance_clip *c = s->clip;
        float np;
        if (!p->finished) {
            stance_clip_advance(c, p->pos, dt * rate, !s->once, &np, hits, 16, &n, &wraps);
            stance_clip_root_motion(c, p->pos, dt * rate, !s->once, p->root);
            p->pos = np;
            p->loops += wraps;
            if (report) {
                for (int i = 0; i < n && i < 16; i++)
                    emit(inst, STANCE_EVENT_CLIP_MARKER, layer, m, p->state, hits[i].index, c->events[hits[i].index].name);
                if (n > 16) inst->event_dropped += n - 16; /* a huge step crossed more markers than fit */
            }
            /* a clock summed frame by frame may stop a hair short of the end */
            const float eps = 1e-5f * (c->duration > 1.0f ? c->duration : 1.0f);
            if (s->once && rate > 0.0f && np >= c->duration - eps) np = p->pos = c->duration;
            if (s->once && ((rate >= 0.0f && np >= c->duration) || (rate < 0.0f && np <= 0.0f))) {
                p->finished = 1;
                if (report) emit(inst, STANCE_EVENT_CLIP_FINISHED, layer, m, p->state, -1, s->name);
            }
        }
    } else if (s->type == STANCE_MOTION_MACHINE) {
        update_machine(inst, s->sub_machine, dt, flags);
        memcpy(p->root, inst->machines[s->sub_machine].cur.root, sizeof p->root);
    } else {
        float w[STANCE_MAX_BLEND_ENTRIES];
        blend_weights(inst, s, w);
        float dphase = blend_phase_rate(inst, s, w) * rate * dt;
        const g_entry *e = g->entries + s->entry_first;
        int dom = 0;
        for (int i = 0; i < s->entry_count; i++) {
            if (w[i] > w[dom]) dom = i;
            if (w[i] <= 0.0f) continue;
            float r[3], d = e[i].clip->duration;
            stance_clip_root_motion(e[i].clip, p->pos * d, dphase * d, !s->once, r);
            for (int k = 0; k < 3; k++) p->root[k] += w[i] * r[k];
        }
        if (!p->finished) {
            float d = e[dom].clip->duration, np;
            stance_clip_advance(e[dom].clip, p->pos * d, dphase * d, !s->once, &np, hits, 16, &n, &wraps);
            if (report) {
                for (int i = 0; i < n && i < 16; i++)
                    emit(inst, STANCE_EVENT_CLIP_MARKER, layer, m, p->state, hits[i].index, e[dom].clip->events[hits[i].index].name);
                if (n > 16) inst->event_dropped += n - 16;
            }
            double ph = (double)p->pos + dphase;
            if (s->once) {
                if (ph >= 1.0) {
                    ph = 1.0;
                    p->finished = 1;
                    if (report) emit(inst, STANCE_EVENT_CLIP_FINISHED, layer, m, p->state, -1, s->name);
                }
                if (ph < 0.0) ph = 0.0;
            } else {
                double fl = floor(ph);
                p->loops += (int)fl;
                ph -= fl;
                if (ph >= 1.0) ph = 0.0;
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

static int trans_holds(const stance_instance *inst, const g_machine_rt *rt, const g_trans *t) {
    const stance_graph *g = inst->graph;
    if (t->exit == STANCE_EXIT_NORMALIZED && play_normalized(inst, &rt->cur) < t->exit_time) return 0;
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

static void eval_play(stance_instance *inst, int m, g_play *p, stance_pose *dst, stance_pose *vel);

/* Switches machine m to state `to` (a transition `ti`, or -1 when asked for
 * directly by stance_instance_play). */
static void begin_switch(stance_instance *inst, int m, int ti, int to_state, stance_switch_mode mode,
                         stance_easing easing, float blend, int locked, float dt) {
    const stance_graph *g = inst->graph;
    g_machine_rt *rt = &inst->machines[m];
    const int layer = layer_of_machine(g, m);
    const int from = rt->cur.state;
    emit(inst, STANCE_EVENT_TRANSITION_STARTED, layer, m, to_state, from, g->states[to_state].name);
    emit(inst, STANCE_EVENT_STATE_EXITED, layer, m, from, to_state, g->states[from].name);
    emit(inst, STANCE_EVENT_STATE_ENTERED, layer, m, to_state, from, g->states[to_state].name);
    stance_pose *snap = mpose(inst, m, P_SNAP);
    if (mode == STANCE_SWITCH_CROSSFADE &&
        (rt->trans >= 0 || g->states[from].type == STANCE_MOTION_MACHINE)) mode = STANCE_SWITCH_FROZEN;
    switch (mode) {
    case STANCE_SWITCH_CROSSFADE:
        break;
    case STANCE_SWITCH_FROZEN:
    case STANCE_SWITCH_DEADBLEND:
        if (rt->hist >= 1) stance_pose_copy(snap, hist(inst, m, 1));
        else eval_play(inst, m, &rt->cur, snap, NULL);
        memset(rt->vel, 0, sizeof(float) * 9 * (size_t)g->skeleton->joint_count);
        if (mode == STANCE_SWITCH_DEADBLEND && rt->hist >= 2) {
            stance_pose *v = mpose(inst, m, P_SV);
            tr_velocity(v, hist(inst, m, 1), hist(inst, m, 2), rt->hist_dt);
            for (int j = 0; j < g->skeleton->joint_count; j++) {
                float *r = rt->vel + (size_t)j * 9;
                r[0] = v->tx[j], r[1] = v->ty[j], r[2] = v->tz[j];
                r[3] = v->qx[j], r[4] = v->qy[j], r[5] = v->qz[j];
                r[6] = v->sx[j], r[7] = v->sy[j], r[8] = v->sz[j];
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
    play_start(&rt->cur, to_state);
    const g_state *to = &g->states[to_state];
    if (to->sub_machine >= 0) reset_machine(inst, to->sub_machine);
    rt->from_state = from;
    rt->mode = mode;
    rt->easing = easing;
    rt->switch_dt = dt;
    rt->elapsed = 0.0f;
    rt->duration = blend;
    if (mode == STANCE_SWITCH_CUT || blend <= 0.0f) {
        rt->trans = -1;
        rt->locked = 0;
        rt->pending_init = 0;
        emit(inst, STANCE_EVENT_TRANSITION_FINISHED, layer, m, to_state, from, to->name);
    } else {
        rt->trans = ti >= 0 ? ti : g->trans_count; /* any value >= 0 marks a running switch */
        rt->locked = locked;
    }
}

static void start_transition(stance_instance *inst, int m, int ti, float dt) {
    const stance_graph *g = inst->graph;
    const g_trans *t = &g->trans[ti];
    g_machine_rt *rt = &inst->machines[m];
    stance_switch_mode mode = inst->override_mode >= 0 ? (stance_switch_mode)inst->override_mode : t->mode;
    stance_easing easing = inst->override_easing >= 0 ? (stance_easing)inst->override_easing : t->easing;
    float blend = blend_time_of(inst, t);
    if (t->exit == STANCE_EXIT_AT_END && play_duration_known(inst, &rt->cur)) {
        float rem = play_remaining(inst, &rt->cur);
        if (rem < blend) blend = rem > dt ? rem : dt; /* the blend ends as the clip ends */
    }
    for (int i = 0; i < t->cond_count; i++) { /* consume the triggers it read */
        const g_cond *c = &g->conds[t->cond_first + i];
        if (g->params[c->param].type == STANCE_PARAM_TRIGGER) inst->params[c->param] = inst->param_target[c->param] = 0.0f;
    }
    begin_switch(inst, m, ti, t->to, mode, easing, blend, t->uninterruptible, dt);
}

static void update_machine(stance_instance *inst, int m, float dt, unsigned flags) {
    g_machine_rt *rt = &inst->machines[m];
    const stance_graph *g = inst->graph;
    advance_play(inst, m, &rt->cur, dt, 1, flags);
    if (rt->trans >= 0) {
        if (g->states[rt->old.state].type != STANCE_MOTION_MACHINE) advance_play(inst, m, &rt->old, dt, 1, flags);
        rt->elapsed += dt;
        if (rt->elapsed >= rt->duration) {
            int layer = layer_of_machine(g, m);
            rt->trans = -1;
            rt->locked = 0;
            emit(inst, STANCE_EVENT_TRANSITION_FINISHED, layer, m, rt->cur.state, rt->from_state, g->states[rt->cur.state].name);
        }
    }
    if (!(flags & STANCE_UPDATE_NO_TRANSITIONS)) {
        int t = find_transition(inst, m);
        if (t >= 0) start_transition(inst, m, t, dt);
    }
}

/* ---- evaluation ----------------------------------------------------------------- */

static void eval_machine(stance_instance *inst, int m, float dt);

/* dst = dst * w (all channels), the start of an accumulation. */
static void pose_scale(stance_pose *p, float w) {
    float *f = p->tx;
    const size_t n = (size_t)p->padded_count * 10;
    for (size_t i = 0; i < n; i++) f[i] *= w;
}

/* dst += w * src, rotations sign-aligned to dst. */
static void pose_accumulate(stance_pose *dst, const stance_pose *src, float w) {
    for (int j = 0; j < dst->padded_count; j++) {
        dst->tx[j] += src->tx[j] * w, dst->ty[j] += src->ty[j] * w, dst->tz[j] += src->tz[j] * w;
        dst->sx[j] += src->sx[j] * w, dst->sy[j] += src->sy[j] * w, dst->sz[j] += src->sz[j] * w;
        float d = dst->qx[j] * src->qx[j] + dst->qy[j] * src->qy[j] + dst->qz[j] * src->qz[j] + dst->qw[j] * src->qw[j];
        float ws = d < 0.0f ? -w : w;
        dst->qx[j] += src->qx[j] * ws, dst->qy[j] += src->qy[j] * ws, dst->qz[j] += src->qz[j] * ws, dst->qw[j] += src->qw[j] * ws;
    }
}

static void pose_normalize(stance_pose *p) {
    for (int j = 0; j < p->padded_count; j++) {
        float l = p->qx[j] * p->qx[j] + p->qy[j] * p->qy[j] + p->qz[j] * p->qz[j] + p->qw[j] * p->qw[j];
        float inv = l > 0.0f ? 1.0f / sqrtf(l) : 0.0f;
        if (inv == 0.0f) { p->qx[j] = p->qy[j] = p->qz[j] = 0.0f, p->qw[j] = 1.0f; continue; }
        p->qx[j] *= inv, p->qy[j] *= inv, p->qz[j] *= inv, p->qw[j] *= inv;
    }
}

static void vel_scale(stance_pose *v, float k) {
    float *f = v->tx;
    const size_t n = (size_t)v->padded_count * 10;
    for (size_t i = 0; i < n; i++) f[i] *= k;
}

static void vel_add(stance_pose *dst, const stance_pose *src, float k) {
    float *a = dst->tx;
    const float *b = src->tx;
    const size_t n = (size_t)dst->padded_count * 10;
    for (size_t i = 0; i < n; i++) a[i] += b[i] * k;
}

/* Evaluates a playing state into dst; with vel, also its velocity per second. */
static void eval_play(stance_instance *inst, int m, g_play *p, stance_pose *dst, stance_pose *vel) {
    const stance_graph *g = inst->graph;
    const g_state *s = &g->states[p->state];
    const float rate = state_rate(inst, s);
    if (s->type == STANCE_MOTION_CLIP) {
        if (vel) {
            stance_clip_sample_velocity(s->clip, p->pos, &p->cursor[0], dst, vel);
            vel_scale(vel, rate);
        } else {
            stance_clip_sample(s->clip, p->pos, &p->cursor[0], dst);
        }
        inst->clips_sampled++;
        return;
    }
    if (s->type == STANCE_MOTION_MACHINE) {
        eval_machine(inst, s->sub_machine, 0.0f);
        stance_pose_copy(dst, mpose(inst, s->sub_machine, P_OUT));
        if (vel) memset(vel->memory, 0, stance_pose_bytes(vel->joint_count));
        return;
    }
    float w[STANCE_MAX_BLEND_ENTRIES];
    blend_weights(inst, s, w);
    const float prate = blend_phase_rate(inst, s, w) * rate;
    const g_entry *e = g->entries + s->entry_first;
    stance_pose *scratch = mpose(inst, m, P_S1), *sv = mpose(inst, m, P_SV);
    int first = 1;
    for (int i = 0; i < s->entry_count; i++) {
        if (w[i] <= 0.0f) continue;
        float d = e[i].clip->duration, t = p->pos * d;
        stance_pose *target = first ? dst : scratch;
        stance_pose *vt = first ? vel : sv;
        if (vel) stance_clip_sample_velocity(e[i].clip, t, &p->cursor[i], target, vt);
        else stance_clip_sample(e[i].clip, t, &p->cursor[i], target);
        inst->clips_sampled++;
        if (first) {
            if (w[i] < 1.0f) pose_scale(dst, w[i]);
            if (vel) vel_scale(vel, w[i] * d * prate);
            first = 0;
        } else {
            pose_accumulate(dst, scratch, w[i]);
            if (vel) vel_add(vel, sv, w[i] * d * prate);
        }
    }
    pose_normalize(dst);
}

static void eval_machine(stance_instance *inst, int m, float dt) {
    const stance_graph *g = inst->graph;
    g_machine_rt *rt = &inst->machines[m];
    stance_pose *out = mpose(inst, m, P_OUT);
    const int need_vel = rt->trans >= 0 && rt->pending_init;
    eval_play(inst, m, &rt->cur, out, need_vel ? mpose(inst, m, P_TV) : NULL);
    if (rt->trans >= 0) {
        float w = tr_ease(rt->easing, rt->duration > 0.0f ? rt->elapsed / rt->duration : 1.0f);
        switch (rt->mode) {
        case STANCE_SWITCH_CROSSFADE: {
            stance_pose *old = mpose(inst, m, P_OLD);
            eval_play(inst, m, &rt->old, old, NULL);
            tr_lerp(out, old, out, w);
            break;
        }
        case STANCE_SWITCH_FROZEN:
            tr_lerp(out, mpose(inst, m, P_SNAP), out, w);
            break;
        case STANCE_SWITCH_INERTIALIZE:
        case STANCE_SWITCH_INERTIALIZE_SIMPLE: {
            const int simple = rt->mode == STANCE_SWITCH_INERTIALIZE_SIMPLE;
            if (rt->pending_init) {
                stance_pose *src = mpose(inst, m, P_S1), *sv = mpose(inst, m, P_SV);
                if (rt->hist >= 2) {
                    tr_extrapolate(src, hist(inst, m, 1), hist(inst, m, 2), rt->hist_dt, rt->switch_dt);
                    tr_velocity(sv, hist(inst, m, 1), hist(inst, m, 2), rt->hist_dt);
                    tr_inertialize_init(rt->inert, src, sv, out, mpose(inst, m, P_TV), rt->duration, simple);
                } else if (rt->hist == 1) {
                    tr_inertialize_init(rt->inert, hist(inst, m, 1), NULL, out, NULL, rt->duration, simple);
                } else {
                    tr_inertialize_init(rt->inert, out, NULL, out, NULL, rt->duration, simple);
                }
                rt->pending_init = 0;
            }
            tr_inertialize_apply(out, rt->inert, rt->elapsed, simple);
            break;
        }
        case STANCE_SWITCH_DEADBLEND: {
            stance_pose *src = mpose(inst, m, P_S1);
            tr_deadblend_source(src, mpose(inst, m, P_SNAP), rt->vel, rt->elapsed + rt->switch_dt, g->deadblend_halflife);
            tr_lerp(out, src, out, w);
            break;
        }
        default:
            break;
        }
    }
    /* history: H2 <- H1 <- out */
    if (dt > 0.0f) {
        rt->hist_flip = !rt->hist_flip; /* last frame's output becomes age 2 */
        stance_pose_copy(hist(inst, m, 1), out);
        rt->hist = rt->hist < 2 ? rt->hist + 1 : 2;
        rt->hist_dt = dt;
    }
    rt->evaluated = 1;
}

static void apply_layer(stance_instance *inst, int l, float w) {
    const stance_graph *g = inst->graph;
    const g_layer *gl = &g->layers[l];
    const stance_skeleton *sk = g->skeleton;
    stance_pose *local = ipose(inst, P_LOCAL), *lo = mpose(inst, gl->machine, P_OUT);
    const float *mask = gl->has_mask ? gl->mask : NULL;
    if (gl->mode == STANCE_LAYER_ADDITIVE) {
        const g_machine_rt *rt = &inst->machines[gl->machine];
        const g_state *s = &g->states[rt->cur.state];
        const stance_pose *ref;
        if (gl->additive_ref == STANCE_ADDITIVE_REF_CLIP_SYNC) {
            stance_pose *r = ipose(inst, P_REF);
            float t = s->type == STANCE_MOTION_CLIP ? rt->cur.pos : rt->cur.pos * gl->ref_clip->duration;
            stance_clip_sample(gl->ref_clip, t, NULL, r);
            inst->clips_sampled++;
            ref = r;
        } else if (gl->ref_clip_pose >= 0) {
            ref = &g->ref_poses[gl->ref_clip_pose];
        } else if (s->ref_pose >= 0) {
            ref = &g->ref_poses[s->ref_pose];
        } else {
            stance_pose *r = ipose(inst, P_REF);
            stance_pose_set_rest(r, sk);
            ref = r;
        }
        stance_pose *delta = ipose(inst, P_DELTA);
        stance_pose_additive_make(delta, lo, ref);
        stance_pose_additive_apply(local, local, delta, mask, w);
    } else if (gl->space == STANCE_SPACE_MESH) {
        stance_pose *lm = ipose(inst, P_LAYER_MODEL), *tmp = ipose(inst, P_LAYER_TMP);
        stance_local_to_model(lm, lo, sk, NULL);
        stance_pose_blend_mesh(tmp, local, lo, lm, mask, w, sk);
        stance_pose_copy(local, tmp);
    } else {
        stance_pose_blend_masked(local, local, lo, mask, w);
    }
}

/* ---- public ------------------------------------------------------------------------ */

stance_status stance_instance_create(const stance_graph *g, const stance_allocator *allocator, stance_instance **out,
                                     stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "instance: out is NULL");
    *out = NULL;
    if (!g) return st_fail(err, STANCE_ERR_ARGUMENT, "instance: graph is NULL");
    if (st_check_allocator(allocator, "instance", err)) return STANCE_ERR_ARGUMENT; /* issue 12 */
    inst_layout lo = layout_of(g);
    stance_allocator al = st_allocator(allocator);
    stance_instance *inst = st_alloc(&al, lo.total, 64);
    if (!inst) return st_fail(err, STANCE_ERR_MEMORY, "instance: allocation of %zu bytes failed", lo.total);
    inst->graph = g;
    inst->allocator = al;
    inst->bytes = lo.total;
    bind(inst);
    for (int i = 0; i < inst->pose_count; i++) stance_pose_set_rest(&inst->poses[i], g->skeleton);
    stance_instance_reset(inst);
    *out = inst;
    return st_ok(err);
}

void stance_instance_destroy(stance_instance *inst) {
    if (!inst) return;
    stance_allocator al = inst->allocator;
    st_free(&al, inst, inst->bytes);
}

stance_status stance_instance_copy(stance_instance *dst, const stance_instance *src) {
    if (!dst || !src || dst->graph != src->graph) return STANCE_ERR_ARGUMENT;
    if (dst == src) return STANCE_OK;
    stance_allocator al = dst->allocator;
    memcpy(dst, src, src->bytes);
    dst->allocator = al;
    bind(dst);
    /* events point at names in the graph; nothing else to fix */
    return STANCE_OK;
}

stance_status stance_instance_reset(stance_instance *inst) {
    if (!inst) return STANCE_ERR_ARGUMENT;
    const stance_graph *g = inst->graph;
    for (int i = 0; i < g->param_count; i++) inst->params[i] = inst->param_target[i] = g->params[i].value;
    for (int m = 0; m < g->machine_count; m++) reset_machine(inst, m);
    for (int l = 0; l < g->layer_count; l++) {
        inst->layer_weight[l] = inst->layer_target[l] = g->layers[l].weight;
        inst->layer_rate[l] = 0.0f;
        inst->layer_off[l] = 0;
    }
    inst->event_count = inst->event_dropped = 0;
    inst->root_delta[0] = inst->root_delta[1] = inst->root_delta[2] = 0.0f;
    inst->clips_sampled = 0;
    inst->time = 0.0;
    inst->override_mode = inst->override_easing = -1;
    inst->override_blend = 0.0f;
    stance_pose_set_rest(ipose(inst, P_LOCAL), g->skeleton);
    stance_local_to_model(ipose(inst, P_MODEL), ipose(inst, P_LOCAL), g->skeleton, NULL);
    return STANCE_OK;
}

static stance_status check_param(const stance_instance *inst, int p, stance_param_type want_a, stance_param_type want_b,
                                 stance_error *err) {
    if (!inst) return st_fail(err, STANCE_ERR_ARGUMENT, "instance is NULL");
    if (p < 0 || p >= inst->graph->param_count)
        return st_fail(err, STANCE_ERR_NOT_FOUND, "parameter %d is not in 0..%d", p, inst->graph->param_count - 1);
    stance_param_type t = inst->graph->params[p].type;
    if (t != want_a && t != want_b)
        return st_fail(err, STANCE_ERR_ARGUMENT, "parameter '%s' has another type", inst->graph->params[p].name);
    return STANCE_OK;
}

stance_status stance_instance_set_float(stance_instance *inst, int p, float v, stance_error *err) {
    stance_status s = check_param(inst, p, STANCE_PARAM_FLOAT, STANCE_PARAM_INT, err);
    if (s) return s;
    if (!st_finite(v)) return st_fail(err, STANCE_ERR_VALUE, "parameter '%s': %g is not finite", inst->graph->params[p].name, (double)v);
    if (inst->graph->params[p].type == STANCE_PARAM_INT) v = floorf(v);
    inst->param_target[p] = v;
    if (!(inst->graph->params[p].damping > 0.0f)) inst->params[p] = v;
    return st_ok(err);
}

stance_status stance_instance_set_int(stance_instance *inst, int p, int v, stance_error *err) {
    stance_status s = check_param(inst, p, STANCE_PARAM_INT, STANCE_PARAM_FLOAT, err);
    if (s) return s;
    inst->params[p] = inst->param_target[p] = (float)v;
    return st_ok(err);
}

stance_status stance_instance_set_bool(stance_instance *inst, int p, int v, stance_error *err) {
    stance_status s = check_param(inst, p, STANCE_PARAM_BOOL, STANCE_PARAM_BOOL, err);
    if (s) return s;
    inst->params[p] = inst->param_target[p] = v ? 1.0f : 0.0f;
    return st_ok(err);
}

stance_status stance_instance_set_trigger(stance_instance *inst, int p, stance_error *err) {
    stance_status s = check_param(inst, p, STANCE_PARAM_TRIGGER, STANCE_PARAM_TRIGGER, err);
    if (s) return s;
    inst->params[p] = inst->param_target[p] = 1.0f;
    return st_ok(err);
}

static const char *param_name_at(const void *graph, int i) { return stance_graph_param_name(graph, i); }

static stance_status by_name(const stance_instance *inst, const char *name, int *p, stance_error *err) {
    if (!inst || !name) return st_fail(err, STANCE_ERR_ARGUMENT, "instance or name is NULL");
    *p = stance_graph_find_param(inst->graph, name);
    if (*p < 0) {
        char hint[200];
        st_suggest(hint, sizeof hint, name, param_name_at, inst->graph, stance_graph_param_count(inst->graph));
        return st_fail(err, STANCE_ERR_NOT_FOUND, "unknown parameter '%s'%s", name, hint);
    }
    return STANCE_OK;
}

stance_status stance_instance_set_float_by_name(stance_instance *inst, const char *name, float v, stance_error *err) {
    int p = -1;
    stance_status s = by_name(inst, name, &p, err);
    return s ? s : stance_instance_set_float(inst, p, v, err);
}

stance_status stance_instance_set_trigger_by_name(stance_instance *inst, const char *name, stance_error *err) {
    int p = -1;
    stance_status s = by_name(inst, name, &p, err);
    return s ? s : stance_instance_set_trigger(inst, p, err);
}

float stance_instance_param(const stance_instance *inst, int p) {
    return inst && p >= 0 && p < inst->graph->param_count ? inst->params[p] : 0.0f;
}

stance_status stance_instance_override_switch(stance_instance *inst, int mode, float blend_time, int easing) {
    if (!inst) return STANCE_ERR_ARGUMENT;
    if (mode >= STANCE_SWITCH_MODE_COUNT || easing > STANCE_EASE_LINEAR) return STANCE_ERR_ARGUMENT;
    if (!st_finite(blend_time) || blend_time > 60.0f) return STANCE_ERR_VALUE;
    inst->override_mode = mode < 0 ? -1 : mode;
    inst->override_blend = blend_time > 0.0f ? blend_time : 0.0f;
    inst->override_easing = easing < 0 ? -1 : easing;
    return STANCE_OK;
}

stance_status stance_instance_update(stance_instance *inst, float dt) {
    return stance_instance_update_ex(inst, dt, 0);
}

stance_status stance_instance_update_ex(stance_instance *inst, float dt, unsigned flags) {
    if (!inst) return STANCE_ERR_ARGUMENT;
    if (!st_finite(dt) || dt < 0.0f || dt > 1.0f) return STANCE_ERR_VALUE;
    dt = st_step(dt); /* issue 12: a step under STANCE_MIN_DT is a zero step (no history, no velocity from it) */
    const stance_graph *g = inst->graph;
    if (inst->events_sealed) inst->event_count = inst->event_dropped = 0;
    inst->events_sealed = 0;
    inst->clips_sampled = 0;
    inst->time += dt;
    for (int m = 0; m < g->machine_count; m++) inst->machines[m].evaluated = 0;
    for (int i = 0; i < g->param_count; i++) { /* damped parameters follow their targets */
        float h = g->params[i].damping;
        if (h > 0.0f) {
            float tgt = inst->param_target[i];
            const float a = exp2f(-dt / h); /* issue 12: a weighted mean stays finite where tgt + (v - tgt) * a overflowed */
            float v = a * inst->params[i] + (1.0f - a) * tgt;
            if (!st_finite(v)) v = tgt; /* the sum of two halves of FLT_MAX can still round up */
            if (fabsf(v - tgt) < 1e-6f) v = tgt;
            inst->params[i] = v;
        }
    }
    /* layer weights fade towards their targets */
    for (int l = 0; l < g->layer_count; l++) {
        float w = inst->layer_weight[l], t = inst->layer_target[l], r = inst->layer_rate[l];
        if (w != t) {
            float step = !(r > 0.0f) ? 1e30f : dt > 0.0f ? r * dt : 0.0f; /* issue 12: an inf rate (tiny fade) times a zero step was NaN */
            w = w < t ? (w + step > t ? t : w + step) : (w - step < t ? t : w - step);
            inst->layer_weight[l] = w;
        }
    }
    /* every layer's machine plays, seen or not */
    for (int l = 0; l < g->layer_count; l++)
        if (!inst->layer_off[l]) update_machine(inst, g->layers[l].machine, dt, flags);
    /* evaluate: the base layer, then each layer with weight on top, in order */
    stance_pose *local = ipose(inst, P_LOCAL);
    eval_machine(inst, g->layers[0].machine, dt);
    stance_pose_copy(local, mpose(inst, g->layers[0].machine, P_OUT));
    for (int l = 1; l < g->layer_count; l++) {
        float w = inst->layer_weight[l];
        g_machine_rt *rt = &inst->machines[g->layers[l].machine];
        if (w <= 0.0f || inst->layer_off[l]) { rt->hist = 0; continue; }
        eval_machine(inst, g->layers[l].machine, dt);
        apply_layer(inst, l, w);
    }
    stance_local_to_model(ipose(inst, P_MODEL), local, g->skeleton, NULL);
    inst->events_sealed = 1;
    /* root motion: the base machine's, blended across a crossfade */
    const g_machine_rt *base = &inst->machines[g->layers[0].machine];
    for (int k = 0; k < 3; k++) inst->root_delta[k] = base->cur.root[k];
    if (base->trans >= 0 && base->mode == STANCE_SWITCH_CROSSFADE) {
        float w = tr_ease(base->easing, base->duration > 0.0f ? base->elapsed / base->duration : 1.0f);
        for (int k = 0; k < 3; k++) inst->root_delta[k] = base->old.root[k] + (base->cur.root[k] - base->old.root[k]) * w;
    }
    return STANCE_OK;
}

const stance_pose *stance_instance_local_pose(const stance_instance *inst) {
    return inst ? &inst->poses[inst->graph->machine_count * P_PER_MACHINE + P_LOCAL] : NULL;
}
const stance_pose *stance_instance_model_pose(const stance_instance *inst) {
    return inst ? &inst->poses[inst->graph->machine_count * P_PER_MACHINE + P_MODEL] : NULL;
}
const stance_event *stance_instance_events(const stance_instance *inst, int *count, int *dropped) {
    if (count) *count = inst ? inst->event_count : 0;
    if (dropped) *dropped = inst ? inst->event_dropped : 0;
    return inst ? inst->events : NULL;
}
void stance_instance_root_motion(const stance_instance *inst, float out[3]) {
    if (!out) return;
    for (int k = 0; k < 3; k++) out[k] = inst ? inst->root_delta[k] : 0.0f;
}
int stance_instance_clips_sampled(const stance_instance *inst) { return inst ? inst->clips_sampled : 0; }
float stance_instance_time(const stance_instance *inst) { return inst ? (float)inst->time : 0.0f; }

stance_status stance_instance_machine_status(const stance_instance *inst, int m, stance_machine_status *out) {
    if (!inst || !out || m < 0 || m >= inst->graph->machine_count) return STANCE_ERR_ARGUMENT;
    const g_machine_rt *rt = &inst->machines[m];
    out->state = rt->cur.state;
    out->state_time = (float)rt->cur.time;
    out->normalized_time = play_normalized(inst, &rt->cur);
    out->transition = rt->trans >= 0 ? rt->from_state : -1;
    out->progress = rt->trans >= 0 && rt->duration > 0.0f ? rt->elapsed / rt->duration : (rt->trans >= 0 ? 0.0f : 1.0f);
    out->mode = rt->mode;
    return STANCE_OK;
}

float stance_instance_layer_weight(const stance_instance *inst, int l) {
    return inst && l >= 0 && l < inst->graph->layer_count ? inst->layer_weight[l] : 0.0f;
}

stance_status stance_instance_set_layer_weight(stance_instance *inst, int l, float w, float fade) {
    if (!inst || l < 0 || l >= inst->graph->layer_count) return STANCE_ERR_ARGUMENT;
    if (!st_finite(w) || w < 0.0f || w > 1.0f || !st_finite(fade) || fade < 0.0f) return STANCE_ERR_VALUE;
    if (l == 0) return w == 1.0f ? STANCE_OK : STANCE_ERR_ARGUMENT;
    inst->layer_target[l] = w;
    if (fade <= 0.0f) {
        inst->layer_weight[l] = w;
        inst->layer_rate[l] = 0.0f;
    } else {
        float d = fabsf(w - inst->layer_weight[l]);
        inst->layer_rate[l] = d / fade;
        if (d == 0.0f) inst->layer_rate[l] = 1.0f;
    }
    return STANCE_OK;
}

/* For the tests: a blend space state's weights at the current parameters. */
void stance_test_blend_weights(const stance_instance *inst, int state, float *w);
void stance_test_blend_weights(const stance_instance *inst, int state, float *w) {
    blend_weights(inst, &inst->graph->states[state], w);
}

stance_status stance_instance_play(stance_instance *inst, int state, stance_switch_mode mode, stance_easing easing,
                                   float blend_time, stance_error *err) {
    if (!inst) return st_fail(err, STANCE_ERR_ARGUMENT, "play: instance is NULL");
    const stance_graph *g = inst->graph;
    if (state < 0 || state >= g->state_count) return st_fail(err, STANCE_ERR_NOT_FOUND, "play: state %d is not in 0..%d", state, g->state_count - 1);
    if ((unsigned)mode >= STANCE_SWITCH_MODE_COUNT || (unsigned)easing > STANCE_EASE_LINEAR)
        return st_fail(err, STANCE_ERR_ARGUMENT, "play: unknown mode or easing");
    if (!st_finite(blend_time) || blend_time > 60.0f) return st_fail(err, STANCE_ERR_VALUE, "play: blend time %g is not finite and <= 60", (double)blend_time);
    int m = g->states[state].machine;
    begin_switch(inst, m, -1, state, mode, easing, blend_time > 0.0f ? blend_time : 0.0f, 0, 0.0f);
    return st_ok(err);
}

stance_status stance_instance_set_layer_enabled(stance_instance *inst, int layer, int enabled) {
    if (!inst || layer < 0 || layer >= inst->graph->layer_count) return STANCE_ERR_ARGUMENT;
    if (layer == 0 && !enabled) return STANCE_ERR_ARGUMENT; /* the base layer always plays */
    inst->layer_off[layer] = enabled ? 0 : 1;
    if (!enabled) inst->machines[inst->graph->layers[layer].machine].hist = 0;
    return STANCE_OK;
}

static void say(char *report, size_t cap, const char *what, const char *name) {
    if (!report || !cap) return;
    size_t n = strlen(report);
    if (n + 4 >= cap) return;
    snprintf(report + n, cap - n, "%sdropped %s '%s'", n ? "; " : "", what, name);
}

stance_status stance_instance_transfer(stance_instance *to, const stance_instance *from, char *report, size_t cap) {
    if (!to || !from) return STANCE_ERR_ARGUMENT;
    if (report && cap) report[0] = 0;
    const stance_graph *a = from->graph, *b = to->graph;
    for (int i = 0; i < a->param_count; i++) {
        int k = stance_graph_find_param(b, a->params[i].name);
        if (k < 0 || b->params[k].type != a->params[i].type) { say(report, cap, "parameter", a->params[i].name); continue; }
        to->params[k] = from->params[i], to->param_target[k] = from->param_target[i];
    }
    for (int l = 0; l < a->layer_count; l++) {
        int k = stance_graph_find_layer(b, a->layers[l].name);
        if (k < 0) { say(report, cap, "layer", a->layers[l].name); continue; }
        if (k > 0) {
            to->layer_weight[k] = from->layer_weight[l], to->layer_target[k] = from->layer_target[l];
            to->layer_rate[k] = from->layer_rate[l], to->layer_off[k] = from->layer_off[l];
        }
    }
    for (int m = 0; m < a->machine_count; m++) {
        int k = stance_graph_find_machine(b, a->machines[m].name);
        if (k < 0) { say(report, cap, "machine", a->machines[m].name); continue; }
        const g_machine_rt *src = &from->machines[m];
        g_machine_rt *dst = &to->machines[k];
        const char *sn = a->states[src->cur.state].name;
        int found = -1;
        for (int s2 = 0; s2 < b->machines[k].state_count; s2++)
            if (!strcmp(b->states[b->machines[k].state_first + s2].name, sn)) found = b->machines[k].state_first + s2;
        if (found < 0) { say(report, cap, "state", sn); continue; }
        play_start(&dst->cur, found);
        dst->cur.time = src->cur.time;
        dst->cur.loops = src->cur.loops;
        dst->cur.finished = src->cur.finished;
        /* keep the position where the new state's motion has room for it */
        const g_state *ns = &b->states[found];
        float pos = src->cur.pos;
        if (ns->type == STANCE_MOTION_CLIP && pos > ns->clip->duration) pos = ns->clip->duration;
        if (ns->type == STANCE_MOTION_BLEND1D || ns->type == STANCE_MOTION_BLEND2D) pos = pos - floorf(pos);
        if (a->states[src->cur.state].type != ns->type) pos = 0.0f;
        dst->cur.pos = pos;
        dst->trans = -1, dst->locked = 0, dst->pending_init = 0;
    }
    to->time = from->time;
    return STANCE_OK;
}
