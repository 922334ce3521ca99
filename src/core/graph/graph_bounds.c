/* src/core/graph/graph_bounds.c - the chain rule of stance/base.h for a graph
 * (issue 22): how large a scale each joint's local pose can take, from the
 * rest pose and every clip the graph plays, through its additive layers;
 * the refusal of a graph whose chains multiply past STANCE_MAX_SCALE; and
 * the cap that holds a switch's transient (inertialization, dead blending)
 * inside those bounds at run time. Computed when the graph is compiled and
 * checked when it is bound; the cap runs only on the frames of such a switch.
 *
 * Why the bounds hold (the argument of stance/base.h): a machine's output is
 * a clip sample (keys lerped: each scale component between its keys), a
 * blend of samples (convex), a crossfade or a frozen fade (convex, with the
 * machine's own earlier output), or a velocity-mode transient (capped here
 * at the same bound). So every scale component a machine outputs at joint j
 * is at most peak[j] in size: the rest pose's and its clips' largest, the
 * delta clips' for an additive first-frame layer's machine. An override or
 * mesh-space layer lerps (convex again); an additive layer multiplies by
 * 1 + (d - 1) w with w in [0, 1], at most max(1, |d|) in size, d the delta:
 * the delta clip's value (first frame) or the machine's output over the
 * reference clip's sample (sync; the reference's smallest |scale| at j is
 * its floor, > 0 only when no component's keys change sign, which a sync
 * layer requires). The product of these per-joint bounds down every chain
 * is what stance_graph_create checks against STANCE_MAX_SCALE. */
#include <string.h>

#include "core/clip/clip_packed.h"
#include "core/graph/graph_derive.h"
#include "core/base/internal.h"

/* A switch's transient translation is held within this (16 x the limit of
 * a translation: a clip's keys are within 1 x, an extrapolation reaches
 * 9 x, nothing that animates comes near it). */
#define GB_MAX_TRANSIENT (16.0f * STANCE_MAX_TRANSLATION)

static void extent_of(float v, int j, float *peak, float *floor, int *sign, int c) {
    const float a = fabsf(v);
    if (a > peak[j]) peak[j] = a;
    if (!floor) return;
    if (a < floor[j]) floor[j] = a;
    const int sg = v < 0.0f ? -1 : 1, k = 3 * j + c; /* a component whose keys change sign passes through 0 */
    if (!sign[k]) sign[k] = sg;
    else if (sign[k] != sg) floor[j] = 0.0f;
}

/* The largest |scale component| clip c can sample at each joint into peak
 * (kept when larger); with floor (and sign, 3 per joint, zeroed), the
 * smallest too, 0 where a component changes sign. An exact clip samples
 * between its keys; a compressed one between the ends of its tracks'
 * ranges (clip_packed.h: st_ptrack_top), its other joints at the default
 * pose (rest values and constant tracks). */
static void clip_extent(const stance_clip *c, float *peak, float *floor, int *sign) {
    const int J = c->joint_count, pc = c->padded_count;
    for (int k = 0; k < c->s_keys; k++)
        for (int j = 0; j < J; j++)
            for (int a = 0; a < 3; a++) extent_of(c->s[(size_t)k * 3 * (size_t)pc + (size_t)a * (size_t)pc + (size_t)j], j, peak, floor, sign, a);
    const st_packed *p = c->packed;
    for (int i = 0; p && i < p->track_count; i++) {
        const st_ptrack *t = &p->tracks[i];
        if (t->channel != STANCE_CHANNEL_SCALE) continue;
        for (int a = 0; a < 3; a++) {
            if (t->bits == ST_PACK_RAW) {
                for (uint32_t k = 0; k < t->n; k++) extent_of(p->raw[t->offset + 3 * k + (uint32_t)a], t->joint, peak, floor, sign, a);
            } else {
                extent_of(t->min[a], t->joint, peak, floor, sign, a);
                extent_of(st_ptrack_top(t->bits, t->min, t->ext, a), t->joint, peak, floor, sign, a);
            }
        }
    }
}

void gr_scale_peaks(const stance_graph *g, float *peak, float *dpeak) {
    const stance_skeleton *sk = g->skeleton;
    const int J = sk->joint_count, pc = st_pad8(J);
    for (int j = 0; j < pc; j++) peak[j] = 1.0f, dpeak[j] = 1.0f; /* the padding holds the identity */
    for (int j = 0; j < J; j++) {
        const float *s = sk->rest[j].s;
        peak[j] = fmaxf(fabsf(s[0]), fmaxf(fabsf(s[1]), fabsf(s[2])));
        dpeak[j] = 0.0f;
    }
    for (int s = 0; s < g->state_count; s++) { /* every clip a state plays */
        const g_state *gs = &g->states[s];
        if (gs->type == STANCE_MOTION_CLIP) clip_extent(gs->clip, peak, NULL, NULL);
        for (int e = 0; gs->type != STANCE_MOTION_CLIP && gs->type != STANCE_MOTION_MACHINE && e < gs->entry_count; e++)
            clip_extent(g->entries[gs->entry_first + e].clip, peak, NULL, NULL);
    }
    for (int i = 0; i < g->delta_count; i++) clip_extent(g->deltas[i], dpeak, NULL, NULL);
}

stance_status gr_check_chain(const stance_graph *g, const float *peak, const float *dpeak, stance_error *err) {
    const stance_skeleton *sk = g->skeleton;
    const int J = sk->joint_count;
    float chain[STANCE_MAX_JOINTS], floor[STANCE_MAX_JOINTS];
    for (int j = 0; j < J; j++) chain[j] = peak[j];
    for (int l = 0; l < g->layer_count; l++) {
        const g_layer *gl = &g->layers[l];
        if (gl->mode != STANCE_LAYER_ADDITIVE) continue;
        if (gl->additive_ref == STANCE_ADDITIVE_FIRST_FRAME) {
            for (int j = 0; j < J; j++) chain[j] *= fmaxf(1.0f, dpeak[j]);
            continue;
        }
        /* sync: the delta is the machine's output (<= peak) over the reference clip's sample (>= its floor) */
        int sign[3 * STANCE_MAX_JOINTS];
        float rpeak[STANCE_MAX_JOINTS];
        memset(sign, 0, sizeof(int) * 3 * (size_t)J);
        for (int j = 0; j < J; j++) floor[j] = 3.4e38f, rpeak[j] = 0.0f;
        clip_extent(gl->ref_clip, rpeak, floor, sign);
        for (int j = 0; j < J; j++) {
            if (!(floor[j] >= STANCE_MIN_SCALE))
                return st_fail(err, STANCE_ERR_VALUE, "layer '%s': joint %d '%s' of its reference clip '%s' has a scale that "
                               "changes sign (it passes through 0), so the additive delta (pose / reference) has no bound; "
                               "see the chain rule of stance/base.h", gl->name, j, stance_skeleton_joint_name(sk, j),
                               gl->ref_clip->name);
            chain[j] *= fmaxf(1.0f, peak[j] / floor[j]);
        }
    }
    double product = 0.0;
    const int over = st_chain_scale_over(sk->parents, J, chain, &product);
    if (over >= 0)
        return st_fail(err, STANCE_ERR_VALUE, "graph: joint %d '%s': the largest scales its clips, rest pose and additive "
                       "layers can give the joints of its chain multiply to %g, beyond %g (STANCE_MAX_SCALE, the chain "
                       "rule of stance/base.h)", over, stance_skeleton_joint_name(sk, over), product, (double)STANCE_MAX_SCALE);
    return STANCE_OK;
}

void gr_cap_transient(const stance_graph *g, int m, stance_pose *out) {
    const int ml = g->machines[m].root_layer;
    const g_layer *gl = ml >= 0 ? &g->layers[ml] : NULL;
    const int delta = gl && gl->mode == STANCE_LAYER_ADDITIVE && gl->additive_ref == STANCE_ADDITIVE_FIRST_FRAME;
    const int pc = out->padded_count;
    const float *cap = g->scale_cap + (delta ? pc : 0);
    float *s[3] = {out->sx, out->sy, out->sz}, *t[3] = {out->tx, out->ty, out->tz};
    for (int a = 0; a < 3; a++)
        for (int j = 0; j < pc; j++) {
            s[a][j] = fminf(fmaxf(s[a][j], -cap[j]), cap[j]);
            t[a][j] = fminf(fmaxf(t[a][j], -GB_MAX_TRANSIENT), GB_MAX_TRANSIENT);
        }
}
