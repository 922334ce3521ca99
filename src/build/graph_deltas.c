/* src/build/graph_deltas.c - additive layers' delta clips, baked once when
 * a graph is compiled (libstance_build): every clip an additive first-frame
 * layer plays, minus the layer's reference for its state. The graph owns
 * them (shared, immutable; a compiled file holds them as exact clips); per
 * frame the layer samples its delta and applies it. */
#include <stdio.h>
#include <string.h>

#include "build/graph_build.h"
#include "core/clip/clip_retarget.h"
#include "core/clip/fused.h"
#include "core/base/internal.h"

/* The delta of `clip` against `ref`: the clip sampled at each of its keys,
 * minus the reference (stance_pose_additive_make), as a clip of its own.
 * Sampling the delta equals the delta of the sample: per-key differences
 * commute with lerp (translation, scale) and with nlerp/slerp, since a
 * left product by a unit quaternion keeps dot products and norms. */
static stance_status make_delta(const stance_graph *g, const stance_clip *clip, const stance_pose *ref,
                                stance_clip **out, stance_error *err) {
    const stance_skeleton *sk = g->skeleton;
    /* a retargeted clip's keys are its source clip's */
    const stance_clip *grid = clip->retarget ? clip->retarget->source : clip;
    const int J = sk->joint_count, K = grid->key_count > 0 ? grid->key_count : 1;
    const stance_allocator *al = &g->allocator;
    size_t pb = stance_pose_bytes(J);
    size_t nvals = (size_t)J * (size_t)K * 10, ntr = (size_t)J * 3;
    float *times = st_alloc(al, sizeof(float) * (size_t)K, 64);
    float *vals = st_alloc(al, sizeof(float) * nvals, 64);
    stance_track_desc *tr = st_alloc(al, sizeof(stance_track_desc) * ntr, 64);
    unsigned char *pm = st_alloc(al, 2 * pb, 64);
    stance_status s = STANCE_ERR_MEMORY;
    if (!times || !vals || !tr || !pm) {
        st_fail(err, s, "graph: out of memory building the additive delta of clip '%s'", clip->name);
        goto done;
    }
    stance_pose sample, delta;
    stance_pose_init(&sample, J, pm, pb, NULL);
    stance_pose_init(&delta, J, pm + pb, pb, NULL);
    float *tv = vals, *rv = vals + (size_t)J * K * 3, *sv = vals + (size_t)J * K * 7;
    for (int k = 0; k < K; k++) {
        times[k] = grid->key_count > 0 ? grid->times[k] : 0.0f;
        stance_clip_sample(clip, times[k], NULL, &sample, NULL);
        stance_pose_additive_make(&delta, &sample, ref, NULL);
        for (int j = 0; j < J; j++) {
            float *t = tv + ((size_t)j * K + (size_t)k) * 3, *r = rv + ((size_t)j * K + (size_t)k) * 4;
            float *sc = sv + ((size_t)j * K + (size_t)k) * 3;
            t[0] = delta.tx[j], t[1] = delta.ty[j], t[2] = delta.tz[j];
            r[0] = delta.qx[j], r[1] = delta.qy[j], r[2] = delta.qz[j], r[3] = delta.qw[j];
            sc[0] = delta.sx[j], sc[1] = delta.sy[j], sc[2] = delta.sz[j];
        }
    }
    for (int j = 0; j < J; j++) {
        tr[j * 3 + 0] = (stance_track_desc){j, STANCE_CHANNEL_TRANSLATION, K, times, tv + (size_t)j * K * 3};
        tr[j * 3 + 1] = (stance_track_desc){j, STANCE_CHANNEL_ROTATION, K, times, rv + (size_t)j * K * 4};
        tr[j * 3 + 2] = (stance_track_desc){j, STANCE_CHANNEL_SCALE, K, times, sv + (size_t)j * K * 3};
    }
    char name[64];
    snprintf(name, sizeof name, "%.48s~delta", clip->name);
    stance_clip_desc cd = {.name = name, .duration = clip->duration, .track_count = J * 3, .tracks = tr, .slerp = clip->slerp};
    s = stance_clip_create(&cd, sk, al, out, err);
done:
    st_free(al, times, sizeof(float) * (size_t)K);
    st_free(al, vals, sizeof(float) * nvals);
    st_free(al, tr, sizeof(stance_track_desc) * ntr);
    st_free(al, pm, 2 * pb);
    return s;
}

static stance_status delta_of(stance_graph *g, const stance_clip *clip, const stance_pose *ref,
                              const stance_clip **out, stance_error *err) {
    stance_clip *c = NULL;
    stance_status s = make_delta(g, clip, ref, &c, err);
    if (s) return s;
    g->deltas[g->delta_count++] = c;
    *out = c;
    return STANCE_OK;
}

/* Every clip played under an additive first-frame layer gets its delta
 * against the reference the layer uses for its state: ref_clip's first
 * frame, else the state's own reference (its clip's or first entry's first
 * frame; the rest pose for a nested machine, whose states share it). */
static stance_status deltas_in(stance_graph *g, int m, const stance_pose *inherited, int top, const g_layer *gl,
                               stance_pose *rest, stance_error *err) {
    const g_machine *gm = &g->machines[m];
    for (int si = gm->state_first; si < gm->state_first + gm->state_count; si++) {
        g_state *gs = &g->states[si];
        const stance_pose *ref = inherited;
        if (top) ref = gl->ref_clip_pose >= 0 ? &g->ref_poses[gl->ref_clip_pose]
                     : gs->ref_pose >= 0 ? &g->ref_poses[gs->ref_pose] : rest;
        stance_status s = STANCE_OK;
        if (gs->type == STANCE_MOTION_CLIP) {
            s = delta_of(g, gs->clip, ref, &gs->delta, err);
            if (!s) gs->delta_flags = st_delta_flags(gs->delta), gs->delta_still = st_delta_still_blocks(gs->delta);
        }
        else if (gs->type == STANCE_MOTION_MACHINE) s = deltas_in(g, gs->sub_machine, ref, 0, gl, rest, err);
        else
            for (int e = 0; e < gs->entry_count && !s; e++)
                s = delta_of(g, g->entries[gs->entry_first + e].clip, ref, &g->entries[gs->entry_first + e].delta, err);
        if (s) return s;
    }
    return STANCE_OK;
}

stance_status gr_build_deltas(stance_graph *g, stance_error *err) {
    const int J = g->skeleton->joint_count;
    size_t pb = stance_pose_bytes(J);
    void *pm = NULL;
    stance_pose rest;
    stance_status s = STANCE_OK;
    for (int l = 0; l < g->layer_count && !s; l++) {
        const g_layer *gl = &g->layers[l];
        if (gl->mode != STANCE_LAYER_ADDITIVE || gl->additive_ref != STANCE_ADDITIVE_FIRST_FRAME) continue;
        if (!pm) {
            pm = st_alloc(&g->allocator, pb, 64);
            if (!pm) return st_fail(err, STANCE_ERR_MEMORY, "graph: out of memory building additive deltas");
            stance_pose_init(&rest, J, pm, pb, NULL);
            stance_pose_set_rest(&rest, g->skeleton, NULL);
        }
        s = deltas_in(g, gl->machine, &rest, 1, gl, &rest, err);
    }
    if (pm) st_free(&g->allocator, pm, pb);
    return s;
}

