/* src/core/frame/sync_phase.c - the phase a sync group's members share at
 * run time (sync_phase.h, docs/sync.md). A member is a clip state (its
 * clip's markers at its play time) or a blend space: its markers are
 * those of its highest-weighted entry whose clip has markers (the first of
 * equals), at its phase times that clip's duration (its entries play at
 * one phase), and its rate is its phase rate times that duration. The
 * marker matching itself is graph_sync.c's (gr_sync_match); the advance
 * stage (advance.c) steps the plays by the seconds given here. */
#include "core/frame/sync_phase.h"
#include "core/frame/blend_weights.h"
#include "core/graph/graph_sync.h"

/* a member's marker clip (g_sclip), its time in it, the clip's duration and
 * the clip seconds it plays a second */
typedef struct sp_member {
    int clip;
    float t, dur, rate;
} sp_member;

static int member(const stance_instance *inst, const g_play *p, sp_member *o) {
    const stance_graph *g = inst->graph;
    const g_sync *s = g->sync;
    const g_state *st = &g->states[p->state];
    float r = st->speed;
    if (st->speed_param >= 0) r *= inst->params[st->speed_param];
    if (st->type == STANCE_MOTION_CLIP) {
        o->clip = s->state_clip[p->state], o->t = p->pos, o->dur = st->clip->duration, o->rate = r;
        return o->clip >= 0 && s->clips[o->clip].count > 0;
    }
    if (st->type != STANCE_MOTION_BLEND1D && st->type != STANCE_MOTION_BLEND2D) return 0;
    float w[STANCE_MAX_BLEND_ENTRIES];
    blend_weights(inst, st, w);
    int best = -1;
    for (int i = 0; i < st->entry_count; i++) {
        const int c = s->entry_clip[st->entry_first + i];
        if (c >= 0 && s->clips[c].count > 0 && (best < 0 || w[i] > w[best])) best = i;
    }
    if (best < 0) return 0;
    const float d = g->entries[st->entry_first + best].clip->duration;
    o->clip = s->entry_clip[st->entry_first + best], o->t = p->pos * d, o->dur = d;
    o->rate = blend_phase_rate(inst, st, w) * r * d;
    return 1;
}

/* a play's position at its marker clip's time t */
static float pos_at(const stance_instance *inst, const g_play *p, const sp_member *m, float t) {
    if (inst->graph->states[p->state].type == STANCE_MOTION_CLIP) return t;
    const float ph = t / m->dur;
    return ph >= 0.0f && ph < 1.0f ? ph : 0.0f;
}

void sp_start(const stance_instance *inst, g_machine_rt *rt) {
    const g_sync *s = inst->graph->sync;
    sp_member L, F;
    float t;
    if (gr_sync_pair(s, rt->old.state, rt->cur.state) && member(inst, &rt->old, &L) && member(inst, &rt->cur, &F) &&
        gr_sync_match(s, L.clip, L.t, F.clip, 0.0f, &t, NULL))
        rt->cur.pos = pos_at(inst, &rt->cur, &F, t);
}

/* The leader's marker span takes (1 - wf) Sl / rl + wf Sf / rf real
 * seconds (Unreal's sync groups: the blend's cycle moves from one clip's
 * to the other's, without a jump when the lead changes hands at wf = 0.5). */
float sp_lead_dt(const stance_instance *inst, const g_play *lead, const g_play *fol, float wf, float dt) {
    sp_member L, F;
    float to, sp[2];
    if (fol->finished || !member(inst, lead, &L) || !member(inst, fol, &F) || !(F.rate > 0.0f && L.rate > 0.0f) ||
        !gr_sync_match(inst->graph->sync, L.clip, L.t, F.clip, F.t, &to, sp))
        return dt;
    const float own = sp[0] / L.rate, blended = (1.0f - wf) * own + wf * (sp[1] / F.rate);
    return blended > 0.0f ? dt * (own / blended) : dt;
}

float sp_follow_dt(const stance_instance *inst, const g_play *lead, const g_play *fol, float dt) {
    sp_member L, F;
    float to;
    if (fol->finished || !member(inst, lead, &L) || !member(inst, fol, &F) || !(F.rate > 0.0f) ||
        !gr_sync_match(inst->graph->sync, L.clip, L.t, F.clip, F.t, &to, NULL))
        return dt;
    float d = to - F.t; /* the shortest way round, forward only */
    if (d > 0.5f * F.dur) d -= F.dur;
    if (d < -0.5f * F.dur) d += F.dur;
    return d > 0.0f ? d / F.rate : 0.0f;
}
