/* src/core/frame/curves.c - curves at run time: a curve's value, each
 * playing clip's track sampled at its cursor and weighted as the clip is
 * in its machine (switches, blend spaces, nesting; docs/curves.md), and the
 * drives a graph file's {"param": P} / {"curve": C} bindings compile to,
 * run at the start of each update (advance.c) and at reset. Reads the
 * instance's play state only; allocates nothing. The graph's side is
 * core/graph/graph_curves.c. */
#include <string.h>

#include "core/base/internal.h"
#include "core/base/names.h"
#include "core/frame/blend_weights.h"
#include "core/frame/curves.h"
#include "core/frame/transition.h"
#include "core/graph/graph_curves.h"

/* A track at clip time t: linear between keys, the end keys' values held
 * outside them. */
static float sample(const float *k, int n, float t) {
    if (!(t > k[0])) return k[1];
    if (t >= k[2 * (n - 1)]) return k[2 * (n - 1) + 1];
    int lo = 0, hi = n - 1; /* k[2 lo] < t < k[2 hi] */
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (k[2 * mid] <= t) lo = mid;
        else hi = mid;
    }
    const float t0 = k[2 * lo], v0 = k[2 * lo + 1], t1 = k[2 * hi], v1 = k[2 * hi + 1];
    return v0 + (v1 - v0) * ((t - t0) / (t1 - t0));
}

static float clip_value(const g_curves *cv, const stance_clip *clip, int c, float t) {
    const g_track *tr = gr_curve_track(cv, clip, c);
    return tr ? sample(cv->keys + 2 * (size_t)tr->key_first, tr->key_count, t) : 0.0f;
}

static float machine_value(const stance_instance *inst, int m, int c, int depth);

static float play_value(const stance_instance *inst, const g_play *p, int c, int depth) {
    const stance_graph *g = inst->graph;
    const g_state *s = &g->states[p->state];
    if (s->type == STANCE_MOTION_CLIP) return clip_value(g->curves, s->clip, c, p->pos);
    if (s->type == STANCE_MOTION_MACHINE) return depth < STANCE_MAX_MACHINES ? machine_value(inst, s->sub_machine, c, depth + 1) : 0.0f;
    float w[STANCE_MAX_BLEND_ENTRIES], v = 0.0f;
    blend_weights(inst, s, w);
    const g_entry *e = g->entries + s->entry_first;
    for (int i = 0; i < s->entry_count; i++)
        if (w[i] > 0.0f) v += w[i] * clip_value(g->curves, e[i].clip, c, p->pos * e[i].clip->duration);
    return v;
}

static float machine_value(const stance_instance *inst, int m, int c, int depth) {
    const g_machine_rt *rt = &inst->machines[m];
    if (rt->trans < 0) return play_value(inst, &rt->cur, c, depth);
    const float u = rt->duration > 0.0f ? rt->elapsed / rt->duration : 1.0f;
    const float w = tr_ease(rt->easing, u > 1.0f ? 1.0f : u);
    return (1.0f - w) * play_value(inst, &rt->old, c, depth) + w * play_value(inst, &rt->cur, c, depth);
}

float cv_value(const stance_instance *inst, int c) {
    const stance_graph *g = inst->graph;
    float v = 0.0f;
    for (int l = 0; l < g->layer_count; l++)
        if (!inst->layer_off[l]) v += machine_value(inst, g->layers[l].machine, c, 0);
    return v;
}

static float unit(float v) { return v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f; }

void cv_drive(stance_instance *inst) {
    const g_curves *cv = inst->graph->curves;
    for (int i = 0; i < cv->drive_count; i++) {
        const g_drive *d = &cv->drives[i];
        const float v = d->src_curve >= 0 ? cv_value(inst, d->src_curve) : inst->params[d->src_param];
        if (d->target == STANCE_DRIVE_PARAM) {
            inst->params[d->index] = inst->param_target[d->index] = v;
        } else if (d->target == STANCE_DRIVE_LAYER_WEIGHT) {
            inst->layer_weight[d->index] = inst->layer_target[d->index] = unit(v);
        } else {
            inst->ik_target[IK_TARGET_FLOATS * (size_t)d->index + 3] = unit(v);
        }
    }
}

/* ---- public (stance/instance.h) ------------------------------------------------ */

stance_status stance_instance_curve(const stance_instance *inst, int curve, float *value, stance_error *err) {
    if (!in_live(inst) || !value) return st_fail(err, STANCE_ERR_ARGUMENT, "curve: value is NULL or instance is " IN_NOT_LIVE);
    const int n = stance_graph_curve_count(inst->graph);
    if (curve < 0 || curve >= n) {
        *value = 0.0f;
        return st_fail(err, STANCE_ERR_NOT_FOUND, "curve: id %d is not in 0..%d (the graph has %d curves)", curve, n - 1, n);
    }
    *value = cv_value(inst, curve);
    return st_ok(err);
}

static const char *name_at(const void *set, int i) { return ((const g_curves *)set)->names[i]; }

stance_status stance_instance_curve_by_name(const stance_instance *inst, const char *name, float *value, stance_error *err) {
    if (!in_live(inst) || !value || !name)
        return st_fail(err, STANCE_ERR_ARGUMENT, "curve_by_name: name or value is NULL or instance is " IN_NOT_LIVE);
    const int c = stance_graph_find_curve(inst->graph, name);
    if (c < 0) {
        char hint[160];
        const g_curves *cv = inst->graph->curves;
        st_suggest(hint, sizeof hint, name, name_at, cv, cv ? cv->curve_count : 0);
        *value = 0.0f;
        return st_fail(err, STANCE_ERR_NOT_FOUND, "curve_by_name: unknown curve '%.63s'%s", name, hint);
    }
    *value = cv_value(inst, c);
    return st_ok(err);
}
