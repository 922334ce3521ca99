/* src/core/graph/graph_check.c - the rules of a bound graph beyond each field's
 * range (graph_bind.c checked those as it read them): every first/count
 * range inside its array, the machine tree a forest no deeper than
 * STANCE_MAX_NEST, the frame's program and every derived flag as the builder
 * defines them (graph_derive.c), the transition lists, the blend spaces'
 * entries, the delta clips where additive first-frame layers need them, the
 * scale caps no smaller than what the clips give and the chain rule over
 * them, the IK entries (each tried once on the rest pose) and their
 * contacts. A file that fails any of them is refused with one line naming
 * what; nothing here reads a name to resolve it or samples a clip. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/clip/fused.h"
#include "core/graph/graph_check.h"
#include "core/graph/graph_derive.h"
#include "core/base/internal.h"

#define FAIL(...) return st_fail(err, STANCE_ERR_FORMAT, __VA_ARGS__)

static int numeric(const stance_graph *g, int p) {
    return p >= 0 && (g->params[p].type == STANCE_PARAM_FLOAT || g->params[p].type == STANCE_PARAM_INT);
}

_Static_assert(offsetof(g_param, name) == 0 && offsetof(g_state, name) == 0 && offsetof(g_machine, name) == 0 &&
                   offsetof(g_layer, name) == 0 && offsetof(g_ik, name) == 0,
               "twin() reads the names at the start of their records");

/* The first of n names (each at the start of a record of `stride` bytes) that an earlier one repeats, or NULL. */
static const char *twin(const void *first, size_t stride, int n) {
    const char *base = first;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < i; k++)
            if (!strcmp(base + stride * (size_t)i, base + stride * (size_t)k)) return base + stride * (size_t)i;
    return NULL;
}

static stance_status check_names(const stance_graph *g, stance_error *err) {
    const char *t;
    if ((t = twin(g->params, sizeof(g_param), g->param_count))) FAIL("graph: two parameters are named '%s'", t);
    if ((t = twin(g->machines, sizeof(g_machine), g->machine_count))) FAIL("graph: two machines are named '%s'", t);
    if ((t = twin(g->layers, sizeof(g_layer), g->layer_count))) FAIL("graph: two layers are named '%s'", t);
    if ((t = twin(g->ik, sizeof(g_ik), g->ik_count))) FAIL("graph: two ik entries are named '%s'", t);
    for (int m = 0; m < g->machine_count; m++) {
        const g_machine *gm = &g->machines[m];
        if ((t = twin(g->states + gm->state_first, sizeof(g_state), gm->state_count)))
            FAIL("graph: machine '%s': two states are named '%s'", gm->name, t);
    }
    return STANCE_OK;
}

static stance_status check_params(const stance_graph *g, stance_error *err) {
    for (int i = 0; i < g->param_count; i++) {
        const g_param *p = &g->params[i];
        if (p->damping > 0.0f && p->type != STANCE_PARAM_FLOAT)
            FAIL("graph: parameter '%s': only float parameters can be damped", p->name);
    }
    return STANCE_OK;
}

/* Machines: their states in order, one after another; entry, nesting and layer links both ways; the tree. */
static stance_status check_machines(const stance_graph *g, stance_error *err) {
    int at = 0;
    for (int m = 0; m < g->machine_count; m++) {
        const g_machine *gm = &g->machines[m];
        if (gm->state_first != at || gm->state_count > g->state_count - at)
            FAIL("graph: machine '%s': states %d..%d do not follow the machine before it (states %d of %d)", gm->name,
                 gm->state_first, gm->state_first + gm->state_count - 1, at, g->state_count);
        at += gm->state_count;
        for (int s = gm->state_first; s < gm->state_first + gm->state_count; s++)
            if (g->states[s].machine != m) FAIL("graph: state %d '%s' is in machine '%s' but says %d", s, g->states[s].name, gm->name, g->states[s].machine);
        if (gm->entry < gm->state_first || gm->entry >= gm->state_first + gm->state_count)
            FAIL("graph: machine '%s': entry state %d is not one of its states", gm->name, gm->entry);
        if (gm->parent_state >= 0 && g->states[gm->parent_state].sub_machine != m)
            FAIL("graph: machine '%s': its parent state %d does not nest it", gm->name, gm->parent_state);
        if (gm->layer >= 0 && (g->layers[gm->layer].machine != m || gm->parent_state >= 0))
            FAIL("graph: machine '%s': layer %d does not run it, or it is also nested", gm->name, gm->layer);
    }
    if (at != g->state_count) FAIL("graph: the machines hold %d of the %d states", at, g->state_count);
    for (int l = 0; l < g->layer_count; l++)
        if (g->machines[g->layers[l].machine].layer != l)
            FAIL("graph: layer '%s' runs machine %d, which another layer runs", g->layers[l].name, g->layers[l].machine);
    if (g->machines[g->layers[0].machine].parent_state >= 0) FAIL("graph: the base layer's machine is nested");
    /* nesting both ways: a machine state's machine names it as its parent, so each machine has at most one */
    for (int si = 0; si < g->state_count; si++) {
        const g_state *s = &g->states[si];
        if ((s->type == STANCE_MOTION_MACHINE) != (s->sub_machine >= 0) ||
            (s->sub_machine >= 0 && (s->sub_machine == s->machine || g->machines[s->sub_machine].parent_state != si)))
            FAIL("graph: state %d '%s': its nested machine %d is missing, itself, or nested by another state", si, s->name,
                 s->sub_machine);
    }
    /* each machine has one parent (its parent_state, which nests it); walking up ends within STANCE_MAX_NEST */
    for (int m = 0; m < g->machine_count; m++) {
        int cur = m, depth = 0;
        while (g->machines[cur].parent_state >= 0 && depth <= STANCE_MAX_NEST)
            cur = g->states[g->machines[cur].parent_state].machine, depth++;
        if (depth > STANCE_MAX_NEST)
            FAIL("graph: machine '%s': nested deeper than %d (or in a cycle)", g->machines[m].name, STANCE_MAX_NEST);
    }
    return STANCE_OK;
}

/* The derived fields, recomputed (graph_derive.c, graph_program.c) and compared. */
static stance_status check_derived(const stance_graph *g, stance_error *err) {
    int cap[STANCE_MAX_MACHINES], hist[STANCE_MAX_MACHINES], has[STANCE_MAX_MACHINES];
    gr_machine_flags(g, cap, hist, has);
    for (int m = 0; m < g->machine_count; m++) {
        const g_machine *gm = &g->machines[m];
        if (gm->clip_cap < cap[m])
            FAIL("graph: machine '%s': clip_cap %d, one of its states samples %d clips", gm->name, gm->clip_cap, cap[m]);
        if (gm->history != hist[m] || gm->has_trans != has[m])
            FAIL("graph: machine '%s': its history or transition flag does not match its transitions", gm->name);
    }
    /* the frame's program: the machines the layers run, each layer's trees children first */
    g_step steps[STANCE_MAX_MACHINES];
    int step[STANCE_MAX_MACHINES], root[STANCE_MAX_MACHINES], first[STANCE_MAX_LAYERS], last[STANCE_MAX_LAYERS];
    const int n = gr_program(g, steps, step, root, first, last);
    if (n != g->step_count) FAIL("graph: %d program steps, the layers' machine trees make %d", g->step_count, n);
    for (int i = 0; i < n; i++) {
        const g_step *a = &g->steps[i], *b = &steps[i];
        if (a->machine != b->machine || a->parent != b->parent || a->parent_state != b->parent_state || a->first != b->first ||
            a->layer != b->layer || a->has_trans != b->has_trans)
            FAIL("graph: program step %d does not match the layers' machine trees (machine %d, its tree says %d)", i, a->machine,
                 b->machine);
    }
    for (int m = 0; m < g->machine_count; m++)
        if (g->machines[m].step != step[m] || g->machines[m].root_layer != root[m])
            FAIL("graph: machine '%s': its step or root layer does not match the program", g->machines[m].name);
    for (int l = 0; l < g->layer_count; l++) {
        const g_layer *gl = &g->layers[l];
        if (gl->fusable != gr_layer_fusable(g, l)) FAIL("graph: layer '%s': its fusable flag does not match it", gl->name);
        if (gl->step_first != first[l] || gl->step_last != last[l])
            FAIL("graph: layer '%s': its steps %d..%d are not its machines' (%d..%d)", gl->name, gl->step_first, gl->step_last,
                 first[l], last[l]);
    }
    return STANCE_OK;
}

/* States: what each type plays; the blend spaces' entries in order and apart; the delta clips where needed. */
static stance_status check_states(const stance_graph *g, stance_error *err) {
    int entry_at = 0;
    for (int si = 0; si < g->state_count; si++) {
        const g_state *s = &g->states[si];
        char w[160];
        snprintf(w, sizeof w, "state '%s/%s'", g->machines[s->machine].name, s->name);
        const int blend = s->type == STANCE_MOTION_BLEND1D || s->type == STANCE_MOTION_BLEND2D;
        const int wants = gr_wants_delta(g, s->machine);
        if ((s->type == STANCE_MOTION_CLIP) != (s->clip != NULL)) FAIL("graph: %s: a clip state plays one clip, others none", w);
        if (!(s->speed != 0.0f)) FAIL("graph: %s: speed 0 (a compiled graph stores 1 for the default)", w);
        if (s->speed_param >= 0 && !numeric(g, s->speed_param)) FAIL("graph: %s: its speed parameter is not a float or int", w);
        if (blend) {
            if (s->entry_count < 2 || s->entry_first != entry_at || s->entry_count > g->entry_count - entry_at)
                FAIL("graph: %s: entries %d..%d are not 2..%d entries after the state before", w, s->entry_first,
                     s->entry_first + s->entry_count - 1, STANCE_MAX_BLEND_ENTRIES);
            entry_at += s->entry_count;
            if (!numeric(g, s->param_x) || (s->type == STANCE_MOTION_BLEND2D ? !numeric(g, s->param_y) : s->param_y >= 0))
                FAIL("graph: %s: its blend parameters are not float or int parameters", w);
            const g_entry *e = g->entries + s->entry_first;
            for (int i = 0; i < s->entry_count; i++) {
                if (!e[i].clip) FAIL("graph: %s: entry %d plays no clip", w, i);
                if ((e[i].delta != NULL) != wants) FAIL("graph: %s: entry %d's delta clip is %s", w, i, wants ? "missing" : "not wanted");
                if (s->type == STANCE_MOTION_BLEND1D && i > 0 && !(e[i].x > e[i - 1].x))
                    FAIL("graph: %s: entries %d and %d are not in increasing order", w, i - 1, i);
                for (int k = 0; s->type == STANCE_MOTION_BLEND2D && k < i; k++)
                    if (e[k].x == e[i].x && e[k].y == e[i].y) FAIL("graph: %s: entries %d and %d are at the same position", w, k, i);
            }
        } else if (s->entry_count != 0 || s->param_x >= 0 || s->param_y >= 0) {
            FAIL("graph: %s: has blend entries or parameters but is not a blend space", w);
        }
        const int want_delta = s->type == STANCE_MOTION_CLIP && wants;
        if ((s->delta != NULL) != want_delta) FAIL("graph: %s: its delta clip is %s", w, want_delta ? "missing" : "not wanted");
        if (s->delta_flags != (s->delta ? st_delta_flags(s->delta) : 0) ||
            s->delta_still != (s->delta ? st_delta_still_blocks(s->delta) : 0ull))
            FAIL("graph: %s: its delta flags do not match its delta clip", w);
        if (s->same_scale != gr_same_scale(g, si)) FAIL("graph: %s: its same-scale flag does not match its clips", w);
    }
    if (entry_at != g->entry_count) FAIL("graph: the blend spaces hold %d of the %d entries", entry_at, g->entry_count);
    return STANCE_OK;
}

/* Transitions: their conditions in order; each state's and each machine's list exactly as the builder orders them. */
static stance_status check_transitions(const stance_graph *g, int strn, int anyt, stance_error *err) {
    int cond_at = 0;
    for (int t = 0; t < g->trans_count; t++) {
        const g_trans *tr = &g->trans[t];
        if (tr->from >= 0 && g->states[tr->from].machine != g->states[tr->to].machine)
            FAIL("graph: transition %d goes from one machine to another", t);
        if (tr->cond_first != cond_at || tr->cond_count > g->cond_count - cond_at)
            FAIL("graph: transition %d: conditions %d..%d do not follow the transition before", t, tr->cond_first,
                 tr->cond_first + tr->cond_count - 1);
        cond_at += tr->cond_count;
        for (int c = tr->cond_first; c < tr->cond_first + tr->cond_count; c++)
            if (g->params[g->conds[c].param].type == STANCE_PARAM_TRIGGER && g->conds[c].op != STANCE_CMP_TRUE)
                FAIL("graph: transition %d: trigger '%s' can only be tested for being set", t, g->params[g->conds[c].param].name);
    }
    if (cond_at != g->cond_count) FAIL("graph: the transitions hold %d of the %d conditions", cond_at, g->cond_count);
    /* lists: per state (machine) the transitions from it (any-state ones into it), in transition order */
    int sat = 0, aat = 0;
    for (int s = 0; s < g->state_count; s++) {
        if (g->states[s].trans_first != sat || g->states[s].trans_count > strn - sat)
            FAIL("graph: state %d '%s': its transition list does not follow the state before", s, g->states[s].name);
        sat += g->states[s].trans_count;
    }
    for (int m = 0; m < g->machine_count; m++) {
        if (g->machines[m].any_first != aat || g->machines[m].any_count > anyt - aat)
            FAIL("graph: machine '%s': its any-state list does not follow the machine before", g->machines[m].name);
        aat += g->machines[m].any_count;
    }
    if (sat != strn || aat != anyt) FAIL("graph: the transition lists hold %d and %d of %d and %d entries", sat, aat, strn, anyt);
    int ns[STANCE_MAX_STATES], na[STANCE_MAX_MACHINES];
    memset(ns, 0, sizeof ns), memset(na, 0, sizeof na);
    for (int t = 0; t < g->trans_count; t++) {
        const g_trans *tr = &g->trans[t];
        if (tr->from >= 0) {
            const g_state *s = &g->states[tr->from];
            if (ns[tr->from] >= s->trans_count || g->state_trans[s->trans_first + ns[tr->from]] != t)
                FAIL("graph: state '%s': its transitions are not the ones from it in order", s->name);
            ns[tr->from]++;
        } else {
            const int m = g->states[tr->to].machine;
            const g_machine *gm = &g->machines[m];
            if (na[m] >= gm->any_count || g->any_trans[gm->any_first + na[m]] != t)
                FAIL("graph: machine '%s': its any-state transitions are not the ones into it in order", gm->name);
            na[m]++;
        }
    }
    for (int s = 0; s < g->state_count; s++)
        if (ns[s] != g->states[s].trans_count) FAIL("graph: state '%s': its transition list is longer than its transitions", g->states[s].name);
    for (int m = 0; m < g->machine_count; m++)
        if (na[m] != g->machines[m].any_count) FAIL("graph: machine '%s': its any-state list is too long", g->machines[m].name);
    return STANCE_OK;
}

static stance_status check_layers(const stance_graph *g, stance_error *err) {
    const int J = g->skeleton->joint_count, pc = st_pad8(J);
    for (int l = 0; l < g->layer_count; l++) {
        const g_layer *gl = &g->layers[l];
        if (l == 0 && gl->weight != 1.0f) FAIL("graph: layer '%s': the base layer's weight is %g, not 1", gl->name, (double)gl->weight);
        if (gl->additive_ref == STANCE_ADDITIVE_REF_CLIP_SYNC && !gl->ref_clip)
            FAIL("graph: layer '%s': a synced additive reference needs its reference clip", gl->name);
        for (int j = J; j < pc; j++)
            if (gl->mask[j] != 0.0f) FAIL("graph: layer '%s': its mask's padding is not zero", gl->name);
    }
    return STANCE_OK;
}

/* The scale caps: no smaller than what the rest pose and the clips give
 * (graph_bounds.c), the padding 1, and the chain rule over them. */
static stance_status check_bounds(const stance_graph *g, stance_error *err) {
    const int J = g->skeleton->joint_count, pc = st_pad8(J);
    float peak[STANCE_MAX_JOINTS + 8], dpeak[STANCE_MAX_JOINTS + 8];
    gr_scale_peaks(g, peak, dpeak);
    const float *cap = g->scale_cap, *dcap = g->scale_cap + pc;
    for (int j = 0; j < pc; j++) {
        const float want = j < J ? peak[j] : 1.0f, dwant = j < J ? (dpeak[j] > STANCE_MIN_SCALE ? dpeak[j] : STANCE_MIN_SCALE) : 1.0f;
        if (j < J ? cap[j] < want || dcap[j] < dwant : cap[j] != 1.0f || dcap[j] != 1.0f)
            FAIL("graph: joint %d: scale caps %g and %g are below what the clips give (%g, %g)", j, (double)cap[j],
                 (double)dcap[j], (double)want, (double)dwant);
    }
    stance_error e = {STANCE_OK, ""};
    if (gr_check_chain(g, cap, dcap, &e)) FAIL("%s", e.message);
    return STANCE_OK;
}

static stance_status check_ik(const stance_graph *g, stance_error *err) {
    const int J = g->skeleton->joint_count;
    if (g->ik_count == 0 && g->ik_clip_count != 0) FAIL("graph: ik clips without ik entries");
    for (int c = 0; c < g->ik_clip_count; c++)
        for (int k = 0; k < c; k++)
            if (g->ik_clips[k] == g->ik_clips[c]) FAIL("graph: ik clip %d is ik clip %d again", c, k);
    for (int e = 0; e < g->ik_count; e++) {
        const g_ik *k = &g->ik[e];
        const int legs_max = k->kind == STANCE_IK_TWO_BONE ? 1 : k->kind == STANCE_IK_AIM ? 0 : STANCE_FOOT_MAX;
        if (k->kind == STANCE_IK_AIM ? k->fd.leg_count != 0 || k->chain_count < 1 : k->fd.leg_count < 1 || k->fd.leg_count > legs_max || k->chain_count != 0)
            FAIL("graph: ik '%s': %d legs and %d chain joints do not fit its kind", k->name, k->fd.leg_count, k->chain_count);
        if (k->kind == STANCE_IK_TWO_BONE && !(k->fd.softness < 1.0f)) FAIL("graph: ik '%s': softness must be below 1", k->name);
        int from, to;
        gr_ik_range(g, e, &from, &to);
        if (k->l2m_from != from || k->l2m_to != to)
            FAIL("graph: ik '%s': its local-to-model range %d..%d is not its joints' (%d..%d)", k->name, k->l2m_from, k->l2m_to,
                 from, to);
        stance_error why = {STANCE_OK, ""};
        const stance_status s = gr_ik_trial(g, e, &why);
        if (s) return st_fail(err, s == STANCE_ERR_MEMORY ? s : STANCE_ERR_FORMAT, "graph: %s", why.message);
        for (int c = 0; c < g->ik_clip_count; c++) {
            const stance_contacts *ct = g->contacts[e * g->ik_clip_count + c];
            if ((ct != NULL) != (k->kind == STANCE_IK_FOOTLOCK))
                FAIL("graph: ik '%s': clip %d: contacts are %s", k->name, c, ct ? "there for an entry that has none" : "missing");
            if (!ct) continue;
            const stance_clip *clip = g->ik_clips[c];
            if (ct->foot_count != k->fd.leg_count || ct->duration != clip->duration || !st_finite(ct->rate) ||
                !(ct->rate > 0.0f && ct->rate <= 1000.0f) || (ct->from_events != 0 && ct->from_events != 1))
                FAIL("graph: ik '%s': clip '%s': the contacts' feet, duration or rate do not match", k->name, clip->name);
            for (int f = 0; f < STANCE_FOOT_MAX; f++) {
                if ((f < ct->foot_count ? ct->feet[f] != k->fd.legs[f].foot : ct->feet[f] < 0 || ct->feet[f] >= J) ||
                    !st_finite(ct->lowest[f]))
                    FAIL("graph: ik '%s': clip '%s': foot %d of the contacts is not the entry's, or its lowest point is not finite",
                         k->name, clip->name, f);
            }
            const size_t n = (size_t)ct->foot_count * (size_t)ct->sample_count;
            for (size_t i = 0; i < n; i++)
                if (ct->planted[i] > 1 || !st_finite(ct->height[i]))
                    FAIL("graph: ik '%s': clip '%s': contact sample %zu is not 0 or 1, or its height is not finite", k->name, clip->name, i);
        }
    }
    return STANCE_OK;
}

stance_status gc_check(const stance_graph *g, int strn, int anyt, stance_error *err) {
    if (g->state_count < 1 || g->machine_count < 1 || g->layer_count < 1)
        FAIL("graph: %d states, %d machines, %d layers (a graph has at least one of each)", g->state_count, g->machine_count,
             g->layer_count);
    if (!(g->default_blend_time > 0.0f) || !(g->deadblend_halflife > 0.0f))
        FAIL("graph: default_blend_time and deadblend_halflife must be above 0 (a compiled graph stores the defaults)");
    int refs = 0; /* reference poses: one per layer reference clip and per state of an additive layer's machine */
    for (int l = 0; l < g->layer_count; l++)
        if (g->layers[l].mode == STANCE_LAYER_ADDITIVE)
            refs += g->layers[l].ref_clip ? 1 : g->machines[g->layers[l].machine].state_count;
    if (refs != g->ref_pose_count) FAIL("graph: %d reference poses, its additive layers make %d", g->ref_pose_count, refs);
    stance_status s = check_machines(g, err); /* first: the state ranges the others walk */
    if (!s) s = check_names(g, err);
    if (!s) s = check_params(g, err);
    if (!s) s = check_derived(g, err);
    if (!s) s = check_states(g, err);
    if (!s) s = check_transitions(g, strn, anyt, err);
    if (!s) s = check_layers(g, err);
    if (!s) s = check_bounds(g, err);
    if (!s) s = check_ik(g, err);
    return s;
}
