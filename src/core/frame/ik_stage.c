/* src/core/frame/ik_stage.c - the IK stage, after local-to-model (docs/frame.md):
 * each entry of the graph's IK in order on the instance's local and model
 * poses. A footlock entry weighs the contacts of the clips the base layer's
 * plan samples (a loop down the nesting the plan names), then runs
 * stance_footlock_apply; a two_bone or aim entry with a weighted target
 * solves, then recomputes the model transforms of the joints it turned (its
 * local-to-model range, graph_program.c), as ozz's LocalToModelJob does
 * with from and to.
 *
 * Reads the plan the advance stage wrote; allocates nothing and touches only
 * its instance and the immutable graph. */
#include <string.h>

#include "core/frame/frame_copy.h" /* ST_FAST: the fast paths below are on (docs/fast-paths.md) */
#include "core/frame/ik_stage.h"
#include "core/base/internal.h"

/* Adds w x planted of every clip of one planned source (weight total its
 * clips' sum) for entry e: clips counts the clips that weigh, planted[f]
 * those of them that plant foot f. */
static void add_src(const stance_graph *g, int e, const g_plan_src *src, float w, float *contact, int *clips, int *planted) {
    float total = 0.0f;
    for (int i = 0; i < src->count; i++) total += src->weight[i];
    if (!(total > 0.0f)) return;
    for (int i = 0; i < src->count; i++) {
        const int c = g_ik_clip_index(g, src->clip[i]);
        if (c < 0 || !(w * src->weight[i] > 0.0f)) continue;
        (*clips)++;
        const stance_contacts *ct = g->contacts[e * g->ik_clip_count + c];
        for (int f = 0; f < g->ik[e].fd.leg_count; f++) {
            const int p = stance_contacts_planted(ct, f, src->time[i]);
            contact[f] += w * src->weight[i] / total * (float)p, planted[f] += p;
        }
    }
}

/* The contacts of the clips the base layer plays. A machine counts with
 * weight w (1 for the base layer's; a nested one's: its parent's times the
 * side that plays it). While a switch blends, both sides count, the old one
 * by 1 - the eased weight: a crossfade shows the old clip that much, and
 * inertialization and dead blending show the old motion (the offset, the
 * extrapolated pose) fading out as fast, so a foot planted in the old clip
 * stays locked until the new side outweighs it. A state nesting a machine
 * samples through it: the sums run from the deepest machine up (its clips,
 * then each machine's old side), the order of the plan's nesting. */
static void contacts_of(const stance_instance *inst, const stance_workspace *ws, int e, float *contact, int *clips, int *planted) {
    const stance_graph *g = inst->graph;
    const g_plan *chain[STANCE_MAX_NEST + 2];
    float w[STANCE_MAX_NEST + 2];
    int n = 0;
    const g_plan *pl = &ws->plans[g->layers[0].machine];
    float wm = 1.0f;
    while (n < STANCE_MAX_NEST + 2 && pl->active && wm > 0.0f) { /* down the nesting: each machine and its weight */
        chain[n] = pl, w[n] = wm, n++;
        if (pl->cur.sub < 0) break;
        const int two = pl->blend && (pl->mode == STANCE_SWITCH_CROSSFADE || pl->old.count > 0);
        wm = wm * (two ? pl->w : 1.0f);
        pl = pl->cur.sub_plan;
    }
    for (int d = n - 1; d >= 0; d--) { /* up: the deepest machine's clips, then each one's old side */
        pl = chain[d];
        const int two = pl->blend && (pl->mode == STANCE_SWITCH_CROSSFADE || pl->old.count > 0);
        if (pl->cur.sub < 0) add_src(g, e, &pl->cur, w[d] * (two ? pl->w : 1.0f), contact, clips, planted);
        if (two) add_src(g, e, &pl->old, w[d] * (1.0f - pl->w), contact, clips, planted);
    }
}

stance_status ik_frame(stance_instance *inst, stance_workspace *ws, float dt) {
    const stance_graph *g = inst->graph;
    stance_status first = STANCE_OK;
    for (int e = 0; e < g->ik_count; e++) {
        const g_ik *gi = &g->ik[e];
        if (gi->kind != STANCE_IK_FOOTLOCK) {
            const float *t = inst->ik_target + IK_TARGET_FLOATS * (size_t)e;
            if (!(t[3] > 0.0f)) continue;
            stance_status s;
            if (gi->kind == STANCE_IK_TWO_BONE) {
                stance_two_bone_desc tb;
                memset(&tb, 0, sizeof tb);
                tb.upper = gi->fd.legs[0].upper, tb.lower = gi->fd.legs[0].lower, tb.end = gi->fd.legs[0].foot;
                tb.softness = gi->fd.softness, tb.keep_end_rotation = 1;
                memcpy(tb.target, t, sizeof tb.target);
                if (t[7] != 0.0f) tb.use_pole = 1, memcpy(tb.pole, t + 4, sizeof tb.pole);
                s = stance_ik_two_bone(&tb, t[3], g->skeleton, in_local(inst), in_model(inst), NULL, NULL);
            } else {
                stance_aim_desc ad;
                g_ik_aim_desc(gi, t, &ad);
                s = stance_ik_aim(&ad, t[3], g->skeleton, in_local(inst), in_model(inst), NULL, NULL);
            }
            ST_L2M_SUBTREE(in_model(inst), in_local(inst), g->skeleton, gi->l2m_from, gi->l2m_to);
            if (s && !first) first = s;
            continue;
        }
        float contact[STANCE_FOOT_MAX] = {0, 0, 0, 0};
        int clips = 0, planted[STANCE_FOOT_MAX] = {0, 0, 0, 0};
        contacts_of(inst, ws, e, contact, &clips, planted);
        /* a vote every clip agrees on is exactly 1 or 0 (the weights' sum
         * may round off it); a split one in (0, 1) */
        for (int f = 0; f < STANCE_FOOT_MAX; f++)
            contact[f] = planted[f] == 0 ? 0.0f : planted[f] == clips ? 1.0f : contact[f] < 1e-6f ? 1e-6f : contact[f] > 0.999999f ? 0.999999f : contact[f];
        stance_footlock_desc fd = g->ik[e].fd;
        fd.ground = inst->ground, fd.ground_user = inst->ground_user;
        /* several clips' vote: its locks are held only within the legs' reach */
        fd.blended = clips > 1 ? (1u << fd.leg_count) - 1u : 0u;
        stance_status s = stance_footlock_apply(&fd, &inst->ik_state[e], contact, &inst->world_root, dt, g->skeleton, in_local(inst),
                                                in_model(inst), NULL);
        if (s && !first) first = s;
    }
    return first;
}
