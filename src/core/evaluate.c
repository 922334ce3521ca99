/* src/core/evaluate.c - the evaluation pass of a frame: reads the plan the
 * advance pass wrote for each machine, samples its clips (through the
 * instance's cursors), runs the switch modes, keeps the history of the
 * machines that need it, composes the layers (override, mesh space, and
 * additive from precomputed delta clips) and builds the model pose.
 *
 * Machines are evaluated children first in the order flattened when the
 * graph was built, all with the frame's dt. Scratch poses come from the
 * workspace; the instance keeps only history, snapshots and the outputs. */
#include <string.h>

#include "core/frame_copy.h" /* ST_FAST: the fast paths below are on (docs/fast-paths.md) */
#include "core/fused.h"
#include "core/graph_internal.h"
#include "core/internal.h"
#include "core/simd.h"

/* dst = dst * w (all channels), the start of an accumulation. */
static void pose_scale(stance_pose *p, float w) { sv_block_scale(p->tx, p->tx, w, p->padded_count * 10); }

/* dst += w * src, rotations sign-aligned to dst. */
static void pose_accumulate(stance_pose *dst, const stance_pose *src, float w) {
    const int pc = dst->padded_count;
    sv_block_add(dst->tx, src->tx, w, 3 * pc);
    sv_block_add(dst->sx, src->sx, w, 3 * pc);
    sv_block_add_rot(dst->qx, src->qx, w, pc, pc);
}

static void pose_normalize(stance_pose *p) { sv_block_normalize_rot(p->qx, p->padded_count, p->padded_count); }

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

/* One planned source into dst; with vel, also its velocity per second. A
 * nested machine's (evaluated before its parent) is its output; its velocity,
 * asked for by inertialize-simple on the switch frame only, is that of the
 * source it plays now, sampled again (its own switch, if one runs, is not
 * in it), into its scratch pose PW_OLD, free once it was evaluated. */
static void eval_src(stance_instance *inst, stance_workspace *ws, int m, const g_plan_src *src, stance_pose *dst,
                     stance_pose *vel) {
    if (src->sub >= 0) {
        st_pose_copy(dst, in_wpose(ws, src->sub, PW_OUT));
        if (vel) {
            memset(vel->memory, 0, stance_pose_bytes(vel->joint_count)); /* stays zero for a state without clips */
            eval_src(inst, ws, src->sub, &ws->plans[src->sub].cur, in_wpose(ws, src->sub, PW_OLD), vel);
        }
        return;
    }
    if (!src->blendspace) { /* one clip */
        if (src->count == 0) return;
        if (vel) {
            st_clip_sample_velocity(src->clip[0], src->time[0], src->cursor[0], dst, vel);
            vel_scale(vel, src->vscale[0]);
        } else if (ST_FAST && st_fusable(src->clip[0])) {
            ST_FUSED(sample)(dst, src->clip[0], src->time[0], src->cursor[0]);
        } else {
            st_clip_sample(src->clip[0], src->time[0], src->cursor[0], dst);
        }
        inst->clips_sampled++;
        return;
    }
    stance_pose *scratch = in_wpose(ws, m, PW_S1), *sv = in_wpose(ws, m, PW_SV);
    if (ST_FAST && src->count == 2 && !vel && st_fusable(src->clip[0]) && st_fusable(src->clip[1])) {
        /* the common case: both clips sampled straight into the blend */
        ST_FUSED(blend2)(dst, src->clip[0], src->time[0], src->cursor[0], src->clip[1], src->time[1], src->cursor[1],
                        src->weight[0], src->weight[1], src->same_s);
        inst->clips_sampled += 2;
        return;
    }
    if (src->count == 2 && !vel) { /* both samples, then one pass */
        st_clip_sample(src->clip[0], src->time[0], src->cursor[0], dst);
        st_clip_sample(src->clip[1], src->time[1], src->cursor[1], scratch);
        inst->clips_sampled += 2;
        const int pc = dst->padded_count;
        const float w0 = src->weight[0], w1 = src->weight[1];
        const float u = w1 / (w0 + w1); /* weights of a blend space sum to 1 */
        sv_block_lerp2_ts(dst->tx, dst->tx, scratch->tx, u, 3 * pc, 7 * pc);
        sv_block_nlerp2(dst->qx, dst->qx, scratch->qx, w0, w1, pc, pc);
        return;
    }
    for (int i = 0; i < src->count; i++) {
        stance_pose *target = i == 0 ? dst : scratch;
        stance_pose *vt = i == 0 ? vel : sv;
        if (vel) st_clip_sample_velocity(src->clip[i], src->time[i], src->cursor[i], target, vt);
        else st_clip_sample(src->clip[i], src->time[i], src->cursor[i], target);
        inst->clips_sampled++;
        if (i == 0) {
            if (!ST_FAST || src->weight[0] < 1.0f) pose_scale(dst, src->weight[0]);
            if (vel) vel_scale(vel, src->vscale[0]);
        } else {
            pose_accumulate(dst, scratch, src->weight[i]);
            if (vel) vel_add(vel, sv, src->vscale[i]);
        }
    }
    pose_normalize(dst);
}

/* Machine m's output into its workspace pose PW_OUT (its nested machines
 * are evaluated before it). */
static void eval_machine(stance_instance *inst, stance_workspace *ws, int m, float dt, int push_history) {
    const stance_graph *g = inst->graph;
    g_machine_rt *rt = &inst->machines[m];
    const g_plan *pl = &ws->plans[m];
    /* the base layer's machine writes the instance's local pose itself
     * (nothing reads its workspace output; a snapshot does not push) */
    const int into_local = push_history && m == g->layers[0].machine;
    stance_pose *out = ST_FAST && into_local ? in_local(inst) : in_wpose(ws, m, PW_OUT);
    const int need_vel = pl->blend && rt->pending_init && pl->mode == STANCE_SWITCH_INERTIALIZE_SIMPLE;
    eval_src(inst, ws, m, &pl->cur, out, need_vel ? in_wpose(ws, m, PW_TV) : NULL);
    if (pl->blend) {
        const float w = pl->w;
        switch (pl->mode) {
        case STANCE_SWITCH_CROSSFADE: {
            const g_plan_src *os = &pl->old;
            if (ST_FAST && os->sub < 0 && !os->blendspace && os->count == 1 && st_fusable(os->clip[0])) {
                ST_FUSED(under)(out, os->clip[0], os->time[0], os->cursor[0], w); /* the old clip sampled into the fade */
                inst->clips_sampled++;
                break;
            }
            if (ST_FAST && os->sub < 0 && os->blendspace && os->count == 2 && st_fusable(os->clip[0]) &&
                st_fusable(os->clip[1])) { /* the old two-clip blend sampled into the fade */
                ST_FUSED(blend2_under)(out, os->clip[0], os->time[0], os->cursor[0], os->clip[1], os->time[1], os->cursor[1],
                                      os->weight[0], os->weight[1], os->same_s, w);
                inst->clips_sampled += 2;
                break;
            }
            stance_pose *old = in_wpose(ws, m, PW_OLD);
            eval_src(inst, ws, m, &pl->old, old, NULL);
            tr_lerp(out, old, out, w);
            break;
        }
        case STANCE_SWITCH_FROZEN:
            tr_lerp(out, in_mpose(inst, ws, m, PM_SNAP), out, w);
            break;
        case STANCE_SWITCH_INERTIALIZE_SIMPLE:
            if (rt->pending_init) {
                stance_pose *src = in_wpose(ws, m, PW_S1), *sv = in_wpose(ws, m, PW_SV);
                if (rt->hist >= 2) {
                    tr_extrapolate(src, in_hist(inst, ws, m, 1), in_hist(inst, ws, m, 2), rt->hist_dt, rt->switch_dt);
                    tr_velocity(sv, in_hist(inst, ws, m, 1), in_hist(inst, ws, m, 2), rt->hist_dt);
                    tr_inertialize_init(rt->rec, src, sv, out, in_wpose(ws, m, PW_TV), rt->duration);
                } else if (rt->hist == 1) {
                    tr_inertialize_init(rt->rec, in_hist(inst, ws, m, 1), NULL, out, NULL, rt->duration);
                } else {
                    tr_inertialize_init(rt->rec, out, NULL, out, NULL, rt->duration);
                }
                rt->pending_init = 0;
            }
            tr_inertialize_apply(out, rt->rec, rt->elapsed);
            break;
        case STANCE_SWITCH_INERTIALIZE:
            /* on the switch frame: the offset from the extrapolated old pose
             * (kept in SNAP) and the old velocity; on the first frame with
             * time after it: the offset's velocity over that step */
            if (rt->pending_init == 1) {
                stance_pose *src = in_mpose(inst, ws, m, PM_SNAP), *sv = in_wpose(ws, m, PW_SV);
                if (rt->hist >= 2) {
                    tr_extrapolate(src, in_hist(inst, ws, m, 1), in_hist(inst, ws, m, 2), rt->hist_dt, rt->switch_dt);
                    tr_velocity(sv, in_hist(inst, ws, m, 1), in_hist(inst, ws, m, 2), rt->hist_dt);
                    tr_inertia_begin(rt->rec, src, sv, out, rt->duration);
                } else {
                    st_pose_copy(src, rt->hist == 1 ? in_hist(inst, ws, m, 1) : out);
                    tr_inertia_begin(rt->rec, src, NULL, out, rt->duration);
                }
                rt->pending_init = rt->hist >= 1 ? 2 : 0; /* without history: no offset to fit */
            } else if (rt->pending_init == 2 && rt->elapsed >= STANCE_MIN_DT) {
                tr_inertia_fit(rt->rec, in_mpose(inst, ws, m, PM_SNAP), out, rt->elapsed);
                rt->pending_init = 0;
            }
            tr_inertia_apply(out, rt->rec, rt->elapsed);
            break;
        case STANCE_SWITCH_DEADBLEND: {
            stance_pose *src = in_wpose(ws, m, PW_S1);
            tr_deadblend_source(src, in_mpose(inst, ws, m, PM_SNAP), rt->rec, rt->elapsed + rt->switch_dt, g->deadblend_halflife);
            tr_lerp(out, src, out, w);
            break;
        }
        default:
            break;
        }
        /* issue 22: a velocity-mode transient stays within the graph's bounds (graph_bounds.c) */
        if (pl->mode == STANCE_SWITCH_INERTIALIZE || pl->mode == STANCE_SWITCH_INERTIALIZE_SIMPLE ||
            pl->mode == STANCE_SWITCH_DEADBLEND)
            gr_cap_transient(g, m, out);
    }
    /* history: H2 <- H1 <- out (steps below STANCE_MIN_DT were made 0) */
    if (push_history && rt->has_history && dt > 0.0f) {
        rt->hist_flip = !rt->hist_flip; /* last frame's output becomes age 2 */
        st_pose_copy(in_hist(inst, ws, m, 1), out);
        rt->hist = rt->hist < 2 ? rt->hist + 1 : 2;
        rt->hist_dt = dt;
    }
    if (!ST_FAST && into_local) st_pose_copy(in_local(inst), out); /* the reference: output, then copied */
}

void ev_machine_tree(stance_instance *inst, stance_workspace *ws, int m, float dt, int push_history) {
    const stance_graph *g = inst->graph;
    const g_machine *gm = &g->machines[m];
    for (int i = gm->post_first; i <= gm->post_at; i++) {
        int k = g->post[i];
        if (ws->plans[k].active) eval_machine(inst, ws, k, dt, push_history);
    }
}

/* A layer (additive first-frame, or a local override) whose machine plays
 * one dense clip, with no switch running, no nested machine and no history
 * to keep: the clip (the additive's delta) sampled straight into the apply
 * or the masked blend (what eval_machine and apply_layer do in two passes).
 * 0 when the layer is not in that state. */
static int fused_layer(stance_instance *inst, stance_workspace *ws, int l, float w) {
    const stance_graph *g = inst->graph;
    const g_layer *gl = &g->layers[l];
    const int m = gl->machine;
    const int additive = gl->mode == STANCE_LAYER_ADDITIVE;
    if (!gl->fusable) return 0;
    const g_plan *pl = &ws->plans[m];
    const g_plan_src *src = &pl->cur;
    const g_machine_rt *rt = &inst->machines[m];
    if (!pl->active || pl->blend || rt->has_history || src->sub >= 0 || src->blendspace || src->count != 1) return 0;
    if (!st_fusable(src->clip[0])) return 0;
    stance_pose *local = in_local(inst);
    const float *mask = gl->has_mask ? gl->mask : NULL;
    if (additive) {
        const g_state *s = &g->states[rt->cur.state];
        const int own = s->delta == src->clip[0];
        ST_FUSED(additive)(local, local, src->clip[0], own ? s->delta_flags : 0, own ? s->delta_still : 0, src->time[0],
                          src->cursor[0], mask, w);
    } else {
        ST_FUSED(override)(local, local, src->clip[0], src->time[0], src->cursor[0], mask, w);
    }
    inst->clips_sampled++;
    return 1;
}

static void apply_layer(stance_instance *inst, stance_workspace *ws, int l, float w) {
    const stance_graph *g = inst->graph;
    const g_layer *gl = &g->layers[l];
    const stance_skeleton *sk = g->skeleton;
    stance_pose *local = in_local(inst), *lo = in_wpose(ws, gl->machine, PW_OUT);
    const float *mask = gl->has_mask ? gl->mask : NULL;
    if (gl->mode == STANCE_LAYER_ADDITIVE) {
        if (gl->additive_ref == STANCE_ADDITIVE_FIRST_FRAME) {
            /* the machine played the precomputed deltas: apply in one pass */
            st_additive_apply_padded(local, local, lo, mask, w);
            return;
        }
        /* a reference clip at the layer's own time: the delta is made per frame */
        const g_machine_rt *rt = &inst->machines[gl->machine];
        const g_state *s = &g->states[rt->cur.state];
        stance_pose *r = in_wshared(ws, PW_REF), *delta = in_wshared(ws, PW_DELTA);
        float t = s->type == STANCE_MOTION_CLIP ? rt->cur.pos : rt->cur.pos * gl->ref_clip->duration;
        st_clip_sample(gl->ref_clip, t, NULL, r);
        inst->clips_sampled++;
        st_pose_additive_make(delta, lo, r);
        st_pose_additive_apply(local, local, delta, mask, w);
    } else if (gl->space == STANCE_SPACE_MESH) {
        stance_pose *lm = in_wshared(ws, PW_LAYER_MODEL), *tmp = in_wshared(ws, PW_LAYER_TMP);
        ST_L2M(lm, lo, sk);
        st_pose_blend_mesh(tmp, local, lo, lm, mask, w, sk);
        st_pose_copy(local, tmp);
    } else {
        st_blend_masked_padded(local, local, lo, mask, w);
    }
}

void ev_frame(stance_instance *inst, stance_workspace *ws, float dt) {
    const stance_graph *g = inst->graph;
    adv_plan_layers(inst, ws); /* the base layer always, other layers when enabled and weighted */
    stance_pose *local = in_local(inst);
    ev_machine_tree(inst, ws, g->layers[0].machine, dt, 1); /* into local */
    for (int l = 1; l < g->layer_count; l++) {
        if (!ws->plans[g->layers[l].machine].active) continue;
        if (ST_FAST && fused_layer(inst, ws, l, inst->layer_weight[l])) continue;
        ev_machine_tree(inst, ws, g->layers[l].machine, dt, 1);
        apply_layer(inst, ws, l, inst->layer_weight[l]);
    }
    ST_L2M(in_model(inst), local, g->skeleton);
    /* root motion: the base machine's, blended across a crossfade */
    const g_machine_rt *base = &inst->machines[g->layers[0].machine];
    for (int k = 0; k < 3; k++) inst->root_delta[k] = base->cur.root[k];
    if (base->trans >= 0 && base->mode == STANCE_SWITCH_CROSSFADE) {
        float w = tr_ease(base->easing, base->duration > 0.0f ? base->elapsed / base->duration : 1.0f);
        for (int k = 0; k < 3; k++) inst->root_delta[k] = base->old.root[k] + (base->cur.root[k] - base->old.root[k]) * w;
    }
}
