/* src/core/frame/evaluate.c - the evaluate stage, the frame's second
 * (docs/frame.md): runs the jobs the advance stage's switches left (the
 * snapshot of a machine's output as it stood, dead blending's velocity),
 * then each layer's machines children first over the frame's program:
 * samples the clips the plan names (through the instance's cursors), runs
 * the switch modes (crossfade, frozen, inertialization, dead blending) as
 * the plan says, writes the history the plan asks for, and composes the
 * layers (override, mesh space, additive from precomputed delta clips) into
 * the instance's local pose.
 *
 * Reads only the plan and the jobs (core/frame/workspace.h) and the instance's
 * poses and records they name; decides nothing and calls no other stage.
 * Scratch poses come from the workspace. */
#include <string.h>

#include "core/frame/frame_copy.h" /* ST_FAST: the fast paths below are on (docs/fast-paths.md) */
#include "core/frame/evaluate.h"
#include "core/clip/fused.h"
#include "core/base/internal.h"
#include "core/rig/rig_internal.h"
#include "core/clip/clip_internal.h"
#include "core/math/simd.h"
#include "core/frame/transition.h"

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

/* The blocks of 4 joints where a planned source sampled without
 * velocities holds the skeleton's rest translations (scale 0) or scales (1)
 * to the bit (st_clip_rest_blocks): one compressed clip's, or those of both
 * clips of a two-clip blend of compressed clips (a + (b - a) u is a there);
 * 0 for anything else. */
static unsigned long long src_rest(const g_plan_src *src, int scale) {
    if (src->sub >= 0 || src->count < 1 || src->count > 2 || (src->count == 2) != (src->blendspace != 0)) return 0;
    unsigned long long m = st_clip_rest_blocks(src->clip[0], scale);
    if (src->count == 2) m &= st_clip_rest_blocks(src->clip[1], scale);
    return m;
}

/* A planned source's clips (machine m's) into dst; with vel, also their
 * velocity per second. */
static void sample_src(stance_instance *inst, stance_workspace *ws, int m, const g_plan_src *src, stance_pose *dst,
                       stance_pose *vel) {
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
    stance_pose *scratch = ws_pose(ws, m, PW_S1), *sv = ws_pose(ws, m, PW_SV);
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
        if (ST_FAST) { /* the same pass, blocks both clips keep at the skeleton's rest left as they are */
            ST_FUSED(blend2_pose)(dst, dst, scratch, w0, w1, src_rest(src, 0), src_rest(src, 1));
            return;
        }
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

/* One planned source into dst; with vel, also its velocity per second. A
 * nested machine's (evaluated before its parent) is its output; its velocity,
 * asked for by inertialize-simple on the switch frame only, is that of the
 * clips it plays now (down the nesting), sampled again (its own switch, if
 * one runs, is not in it), into their machine's scratch pose PW_OLD, free
 * once it was evaluated. */
static void eval_src(stance_instance *inst, stance_workspace *ws, int m, const g_plan_src *src, stance_pose *dst,
                     stance_pose *vel) {
    if (src->sub < 0) {
        sample_src(inst, ws, m, src, dst, vel);
        return;
    }
    st_pose_copy(dst, ws_pose(ws, src->sub, PW_OUT));
    if (!vel) return;
    memset(vel->memory, 0, stance_pose_bytes(vel->joint_count)); /* stays zero for a state without clips */
    while (src->sub >= 0) m = src->sub, src = &src->sub_plan->cur;
    sample_src(inst, ws, m, src, ws_pose(ws, m, PW_OLD), vel);
}

/* The crossfade from the old source evaluated into a pose (compressed
 * clips, nested machines): tr_lerp, in one pass (st_fused_under_pose)
 * leaving the blocks both hold at the skeleton's rest (src_rest; the
 * current source sampled without velocities) as they are. Not inlined:
 * the exact clips' crossfades (the fused passes) keep eval_machine small. */
static ST_NOINLINE void crossfade_pose(stance_instance *inst, stance_workspace *ws, int m, const g_plan *pl,
                                       stance_pose *out, float w) {
    const int need_vel = pl->init == PI_SIMPLE; /* the current source was sampled with velocities (eval_machine) */
    stance_pose *old = ws_pose(ws, m, PW_OLD);
    eval_src(inst, ws, m, &pl->old, old, NULL);
    if (ST_FAST)
        ST_FUSED(under_pose)(out, old, w, need_vel ? 0 : src_rest(&pl->cur, 0) & src_rest(&pl->old, 0),
                             need_vel ? 0 : src_rest(&pl->cur, 1) & src_rest(&pl->old, 1));
    else
        tr_lerp(out, old, out, w);
}

/* Machine plan pl's output into out (its nested machines were evaluated
 * before it): the current source, the switch as planned, and the history
 * frame the plan asks for. */
static void eval_machine(stance_instance *inst, stance_workspace *ws, int m, const g_plan *pl, stance_pose *out) {
    const stance_graph *g = inst->graph;
    float *rec = inst->machines[m].rec;
    const int need_vel = pl->blend && pl->init == PI_SIMPLE;
    eval_src(inst, ws, m, &pl->cur, out, need_vel ? ws_pose(ws, m, PW_TV) : NULL);
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
            crossfade_pose(inst, ws, m, pl, out, w);
            break;
        }
        case STANCE_SWITCH_FROZEN:
            tr_lerp(out, ws_mpose(ws, inst, m, PM_SNAP), out, w);
            break;
        case STANCE_SWITCH_INERTIALIZE_SIMPLE:
            if (pl->init == PI_SIMPLE) {
                stance_pose *src = ws_pose(ws, m, PW_S1), *sv = ws_pose(ws, m, PW_SV);
                if (pl->hist >= 2) {
                    stance_pose *h1 = ws_mpose(ws, inst, m, pl->h1), *h2 = ws_mpose(ws, inst, m, pl->h2);
                    tr_extrapolate(src, h1, h2, pl->hist_dt, pl->switch_dt);
                    tr_velocity(sv, h1, h2, pl->hist_dt);
                    tr_inertialize_init(rec, src, sv, out, ws_pose(ws, m, PW_TV), pl->duration);
                } else if (pl->hist == 1) {
                    tr_inertialize_init(rec, ws_mpose(ws, inst, m, pl->h1), NULL, out, NULL, pl->duration);
                } else {
                    tr_inertialize_init(rec, out, NULL, out, NULL, pl->duration);
                }
            }
            tr_inertialize_apply(out, rec, pl->elapsed);
            break;
        case STANCE_SWITCH_INERTIALIZE:
            /* on the switch frame: the offset from the extrapolated old pose
             * (kept in SNAP) and the old velocity; on the first frame with
             * time after it: the offset's velocity over that step */
            if (pl->init == PI_BEGIN) {
                stance_pose *src = ws_mpose(ws, inst, m, PM_SNAP), *sv = ws_pose(ws, m, PW_SV);
                if (pl->hist >= 2) {
                    stance_pose *h1 = ws_mpose(ws, inst, m, pl->h1), *h2 = ws_mpose(ws, inst, m, pl->h2);
                    tr_extrapolate(src, h1, h2, pl->hist_dt, pl->switch_dt);
                    tr_velocity(sv, h1, h2, pl->hist_dt);
                    tr_inertia_begin(rec, src, sv, out, pl->duration);
                } else {
                    st_pose_copy(src, pl->hist == 1 ? ws_mpose(ws, inst, m, pl->h1) : out);
                    tr_inertia_begin(rec, src, NULL, out, pl->duration);
                }
            } else if (pl->init == PI_FIT) {
                tr_inertia_fit(rec, ws_mpose(ws, inst, m, PM_SNAP), out, pl->elapsed);
            }
            tr_inertia_apply(out, rec, pl->elapsed);
            break;
        case STANCE_SWITCH_DEADBLEND: {
            stance_pose *src = ws_pose(ws, m, PW_S1);
            tr_deadblend_source(src, ws_mpose(ws, inst, m, PM_SNAP), rec, pl->elapsed + pl->switch_dt, g->deadblend_halflife);
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
    if (pl->push >= 0) st_pose_copy(ws_mpose(ws, inst, m, pl->push), out);
}

/* A switch's job: the snapshot (its history frame, or its evaluation as
 * planned then: the nested machines first, the last plan first), then dead
 * blending's velocities at the switch in its record. */
static void run_job(stance_instance *inst, stance_workspace *ws, const g_job *job) {
    const int m = job->machine;
    stance_pose *snap = ws_mpose(ws, inst, m, PM_SNAP);
    if (job->snap == JOB_COPY) {
        st_pose_copy(snap, ws_mpose(ws, inst, m, job->from));
    } else {
        for (int i = job->plan_first + job->plan_count - 1; i >= job->plan_first; i--) {
            const g_plan *pl = &ws->job_plans[i];
            eval_machine(inst, ws, pl->machine, pl, ws_pose(ws, pl->machine, PW_OUT));
        }
        st_pose_copy(snap, ws_pose(ws, m, PW_OUT));
    }
    if (!job->deadblend) return;
    const int J = inst->graph->skeleton->joint_count;
    float *rec = inst->machines[m].rec;
    memset(rec, 0, sizeof(float) * 9 * (size_t)J);
    if (!job->vel) return;
    stance_pose *v = ws_pose(ws, m, PW_SV);
    tr_velocity(v, ws_mpose(ws, inst, m, job->h1), ws_mpose(ws, inst, m, job->h2), job->hist_dt);
    for (int j = 0; j < J; j++) {
        float *r = rec + (size_t)j * 9;
        r[0] = v->tx[j], r[1] = v->ty[j], r[2] = v->tz[j];
        r[3] = v->qx[j], r[4] = v->qy[j], r[5] = v->qz[j];
        r[6] = v->sx[j], r[7] = v->sy[j], r[8] = v->sz[j];
    }
}

/* A layer (additive first-frame, or a local override) whose machine plays
 * one dense clip, with no switch running, no nested machine and no history
 * to keep: the clip (the additive's delta) sampled straight into the apply
 * or the masked blend (what eval_machine and apply_layer do in two passes).
 * 0 when the layer is not in that state. */
static int fused_layer(stance_instance *inst, const g_plan *pl, const g_layer *gl, float w) {
    const stance_graph *g = inst->graph;
    const g_plan_src *src = &pl->cur;
    if (pl->blend || pl->push != PUSH_NO_HISTORY || src->sub >= 0 || src->blendspace || src->count != 1) return 0;
    if (!st_fusable(src->clip[0])) return 0;
    stance_pose *local = in_local(inst);
    const float *mask = gl->has_mask ? gl->mask : NULL;
    if (gl->mode == STANCE_LAYER_ADDITIVE) {
        const g_state *s = &g->states[src->state];
        const int own = s->delta == src->clip[0];
        ST_FUSED(additive)(local, local, src->clip[0], own ? s->delta_flags : 0, own ? s->delta_still : 0, src->time[0],
                          src->cursor[0], mask, w);
    } else {
        ST_FUSED(override)(local, local, src->clip[0], src->time[0], src->cursor[0], mask, w);
    }
    inst->clips_sampled++;
    return 1;
}

static void apply_layer(stance_instance *inst, stance_workspace *ws, const g_plan *pl, const g_layer *gl, float w) {
    const stance_skeleton *sk = inst->graph->skeleton;
    stance_pose *local = in_local(inst), *lo = ws_pose(ws, gl->machine, PW_OUT);
    const float *mask = gl->has_mask ? gl->mask : NULL;
    if (gl->mode == STANCE_LAYER_ADDITIVE) {
        if (gl->additive_ref == STANCE_ADDITIVE_FIRST_FRAME) {
            /* the machine played the precomputed deltas: apply in one pass */
            st_additive_apply_padded(local, local, lo, mask, w);
            return;
        }
        /* a reference clip at the layer's own time: the delta is made per frame */
        stance_pose *r = ws_shared(ws, PW_REF), *delta = ws_shared(ws, PW_DELTA);
        const g_plan_src *src = &pl->cur; /* at the play's position: a clip state's time, else its phase's */
        const float t = src->sub < 0 && !src->blendspace ? src->time[0] : src->pos * gl->ref_clip->duration;
        st_clip_sample(gl->ref_clip, t, NULL, r);
        inst->clips_sampled++;
        st_pose_additive_make(delta, lo, r);
        st_pose_additive_apply(local, local, delta, mask, w);
    } else if (gl->space == STANCE_SPACE_MESH) {
        stance_pose *lm = ws_shared(ws, PW_LAYER_MODEL), *tmp = ws_shared(ws, PW_LAYER_TMP);
        ST_L2M(lm, lo, sk);
        st_pose_blend_mesh(tmp, local, lo, lm, mask, w, sk);
        st_pose_copy(local, tmp);
    } else if (ST_FAST) { /* the same blend, blocks no joint takes left as they are (a compressed clip's layer) */
        ST_FUSED(override_pose)(local, local, lo, mask, w);
    } else {
        st_blend_masked_padded(local, local, lo, mask, w);
    }
}

void ev_jobs(stance_instance *inst, stance_workspace *ws) {
    for (int j = 0; j < ws->job_count; j++) run_job(inst, ws, &ws->jobs[j]);
}

void ev_frame(stance_instance *inst, stance_workspace *ws) {
    const stance_graph *g = inst->graph;
    inst->clips_sampled = 0;
    for (int j = 0; j < ws->job_count; j++) run_job(inst, ws, &ws->jobs[j]);
    for (int l = 0; l < g->layer_count; l++) {
        const g_layer *gl = &g->layers[l];
        const g_plan *top = &ws->plans[gl->machine];
        if (!top->active) continue;
        const float w = inst->layer_weight[l];
        if (ST_FAST && gl->fusable && fused_layer(inst, top, gl, w)) continue;
        /* the base layer's machine writes the instance's local pose itself
         * (the reference: its output, then copied) */
        for (int i = gl->step_first; i <= gl->step_last; i++) {
            const int m = g->steps[i].machine;
            const g_plan *pl = &ws->plans[m];
            if (pl->active) eval_machine(inst, ws, m, pl, ST_FAST && l == 0 && i == gl->step_last ? in_local(inst) : ws_pose(ws, m, PW_OUT));
        }
        if (!ST_FAST && l == 0) st_pose_copy(in_local(inst), ws_pose(ws, gl->machine, PW_OUT));
        if (l > 0) apply_layer(inst, ws, top, gl, w);
    }
}
