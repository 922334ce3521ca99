/* src/core/clip/fused.h - the fused per-frame passes of evaluation (fused.c):
 * a clip sampled straight into what uses it, block by block, with no
 * intermediate pose. Each equals its unfused form (stance_clip_sample, then
 * the pose operation) within float rounding; tests/test_fused.c checks it.
 * Also the key search they share with clip.c, inline. Not part of the
 * public API. */
#ifndef STANCE_FUSED_H
#define STANCE_FUSED_H

#include "stance/clip.h"
#include "stance/pose.h"
#include "core/rig/rig_internal.h"
#include "core/clip/clip_packed.h"

/* The key interval [k, k+1] holding t (in [0, duration]) and the fraction u
 * in it, moving the cursor (cursor steps counted): the one key search of
 * clip.c and the fused passes, inline in both. */
static inline int st_find_key(const stance_clip *c, float t, stance_cursor *cur, float *u) {
    const int K = c->key_count;
    const float *times = c->times;
    if (K < 2) { *u = 0.0f; return 0; }
    int k;
    if (c->key_rate > 0.0f) {
        float f = t * c->key_rate; /* may exceed INT_MAX when duration > last key */
        k = f >= (float)(K - 2) ? K - 2 : (int)f;
        if (k < 0) k = 0;
        while (k < K - 2 && times[k + 1] <= t) k++;
        while (k > 0 && times[k] > t) k--;
        if (cur) { int d = k - cur->key; cur->steps += d < 0 ? -d : d; }
    } else if (cur) {
        k = cur->key;
        if (k < 0 || k > K - 2) k = 0;
        if (times[k] > t) {
            /* going back: a big jump back (a loop wrap) restarts from the front */
            if (t < times[k] * 0.5f) { cur->steps++; k = 0; }
        }
        while (k < K - 2 && times[k + 1] <= t) k++, cur->steps++;
        while (k > 0 && times[k] > t) k--, cur->steps++;
    } else {
        int lo = 0, hi = K - 2;
        while (lo < hi) {
            int mid = (lo + hi + 1) / 2;
            if (times[mid] <= t) lo = mid; else hi = mid - 1;
        }
        k = lo;
    }
    if (cur) cur->key = k;
    float span = times[k + 1] - times[k];
    float f = (t - times[k]) / span;
    *u = f < 0.0f ? 0.0f : f > 1.0f ? 1.0f : f;
    return k;
}

/* The key interval holding `time` (clamped to the clip) and the fraction u
 * in it, moving the cursor as stance_clip_sample does (clip.c). */
static inline int st_clip_find_key(const stance_clip *c, float time, stance_cursor *cur, float *u) {
    const float t = time < 0.0f ? 0.0f : time > c->duration ? c->duration : time;
    return st_find_key(c, t, cur, u);
}

/* What a delta clip's constant channels are (graph_deltas.c): with
 * ST_DELTA_T0 its translation is 0 everywhere, with ST_DELTA_S1 its scale
 * is 1, so applying them changes nothing and the fused pass skips them. */
enum { ST_DELTA_T0 = 1, ST_DELTA_S1 = 2 };
int st_delta_flags(const stance_clip *delta);
/* Bit b set when joints 4b..4b+3 of the delta keep the identity rotation
 * at every key (blocks past 64 never): the fused apply leaves them as they
 * are (base times the identity, within rounding). */
unsigned long long st_delta_still_blocks(const stance_clip *delta);

/* 1 when a clip can be sampled by the fused passes: dense keys, nlerp. */
static inline int st_fusable(const stance_clip *c) { return !c->packed && !c->slerp; }

/* out = additive apply of (delta sampled at time) on base with weight w and
 * mask (padded_count weights, or NULL): stance_clip_sample into a pose,
 * then st_additive_apply_padded, in one pass. out may be base. */
void st_fused_additive(stance_pose *out, const stance_pose *base, const stance_clip *delta, int flags,
                       unsigned long long still, float time, stance_cursor *cur, const float *mask, float w);

/* out = the masked override of base by `layer` sampled at time (weight
 * times mask, or weight; <= 0 keeps base exactly, >= 1 takes the layer):
 * stance_clip_sample, then st_blend_masked_padded, in one pass; blocks of
 * 4 joints the mask leaves out are not sampled. out may be base. */
void st_fused_override(stance_pose *out, const stance_pose *base, const stance_clip *layer, float time,
                       stance_cursor *cur, const float *mask, float weight);

/* out = the clip sampled at time, as stance_clip_sample (the same
 * arithmetic, over all padded joints 4 at a time; no checks). */
void st_fused_sample(stance_pose *out, const stance_clip *c, float time, stance_cursor *cur);

/* out = the masked override of base by the pose `layer` (a compressed
 * clip sampled): st_blend_masked_padded(out, base, layer, mask, weight),
 * the arithmetic of st_fused_override on the layer's values as they are
 * (blocks no joint takes are base exactly, blocks every joint takes are the
 * layer). out may be base. */
void st_fused_override_pose(stance_pose *out, const stance_pose *base, const stance_pose *layer, const float *mask,
                            float weight);

/* out = the crossfade from `old` sampled at time into out: out's weight w
 * (clamped to [0, 1]), the old clip's 1 - w, over all padded joints:
 * stance_clip_sample into a pose, then evaluate.c's tr_lerp(out, that,
 * out, w), in one pass. The cursor moves as the sample moves it. */
void st_fused_under(stance_pose *out, const stance_clip *old, float time, stance_cursor *cur, float w);

/* out = the crossfade from the pose `old` (a compressed clip, or a blend,
 * sampled) into out: out's weight w (clamped to [0, 1]), old's 1 - w:
 * evaluate.c's tr_lerp(out, old, out, w), the arithmetic of st_fused_under
 * on old's values as they are (w <= 0 gives old, w >= 1 leaves out).
 * Blocks of 4 joints whose bit is set in t_same / s_same (b < 64) hold the
 * same translations / scales in both, none -0: their fade is out's value,
 * left as it is. */
void st_fused_under_pose(stance_pose *out, const stance_pose *old, float w, unsigned long long t_same,
                         unsigned long long s_same);

/* out = the blend of the poses a and b (two compressed clips sampled) with
 * weights wa, wb (both > 0, sum 1): evaluate.c's sv_block_lerp2_ts and
 * sv_block_nlerp2 with u = wb / (wa + wb), in one pass; out may be a.
 * t_same / s_same as st_fused_under_pose (those blocks are a's). */
void st_fused_blend2_pose(stance_pose *out, const stance_pose *a, const stance_pose *b, float wa, float wb,
                          unsigned long long t_same, unsigned long long s_same);

/* The blocks a sampled clip keeps at the skeleton's rest translation
 * (scale: 0) or scale (1) whatever its time (compressed clips: st_packed's
 * t_rest, s_rest; 0 for exact clips). */
static inline unsigned long long st_clip_rest_blocks(const stance_clip *c, int scale) {
    return !c->packed || c->retarget ? 0 : scale ? c->packed->s_rest : c->packed->t_rest;
}

/* out = the blend of clips a and b sampled at ta, tb with weights wa, wb
 * (both > 0, sum 1): two stance_clip_sample, then the lerp/nlerp of
 * evaluate.c's two-clip blend space, in one pass. same_s: both clips keep
 * one constant scale block, bit for bit the same and without -0 (their
 * blend a + (b - a) u is that block, copied; g_state.same_scale). */
void st_fused_blend2(stance_pose *out, const stance_clip *a, float ta, stance_cursor *ca, const stance_clip *b,
                     float tb, stance_cursor *cb, float wa, float wb, int same_s);

/* out = the crossfade from the two-clip blend of `a` and `b` (as
 * st_fused_blend2) into out: out's weight w (clamped to [0, 1]), the
 * blend's 1 - w: st_fused_blend2 into a pose, then evaluate.c's
 * tr_lerp(out, that, out, w), in one pass. The cursors move as the blend
 * moves them. */
void st_fused_blend2_under(stance_pose *out, const stance_clip *a, float ta, stance_cursor *ca, const stance_clip *b,
                           float tb, stance_cursor *cb, float wa, float wb, int same_s, float w);

/* out = clip a sampled at ta and clip b at tb (stance_clip_sample, cursors
 * moved as it moves them), then blended as stance_pose_blend's two-pose
 * pass with the normalized weights wa, wb (both > 0: w0 / (w0 + w1) as
 * stance_pose_blend computes them), in one pass: the same bits as the
 * three calls. Exact nlerp clips only (st_fusable, no retarget), out's
 * joint count theirs; no checks (stance_clip_sample_blend2 makes them). */
void st_fused_sample_blend2(stance_pose *out, const stance_clip *a, float ta, stance_cursor *ca, const stance_clip *b,
                            float tb, stance_cursor *cb, float wa, float wb);

/* The passes, each as (name, parameters, arguments): fused.c compiles each
 * from it in its encodings. */
#define ST_FUSED_PASSES(X) \
    X(additive, (stance_pose *out, const stance_pose *base, const stance_clip *delta, int flags, unsigned long long still, float time, stance_cursor *cur, const float *mask, float weight), (out, base, delta, flags, still, time, cur, mask, weight)) \
    X(blend2, (stance_pose *out, const stance_clip *a, float ta, stance_cursor *ca, const stance_clip *b, float tb, stance_cursor *cb, float wa, float wb, int same_s), (out, a, ta, ca, b, tb, cb, wa, wb, same_s)) \
    X(blend2_under, (stance_pose *out, const stance_clip *a, float ta, stance_cursor *ca, const stance_clip *b, float tb, stance_cursor *cb, float wa, float wb, int same_s, float w), (out, a, ta, ca, b, tb, cb, wa, wb, same_s, w)) \
    X(override, (stance_pose *out, const stance_pose *base, const stance_clip *layer, float time, stance_cursor *cur, const float *mask, float weight), (out, base, layer, time, cur, mask, weight)) \
    X(override_pose, (stance_pose *out, const stance_pose *base, const stance_pose *layer, const float *mask, float weight), (out, base, layer, mask, weight)) \
    X(under, (stance_pose *out, const stance_clip *old, float time, stance_cursor *cur, float w), (out, old, time, cur, w)) \
    X(under_pose, (stance_pose *out, const stance_pose *old, float w, unsigned long long t_same, unsigned long long s_same), (out, old, w, t_same, s_same)) \
    X(blend2_pose, (stance_pose *out, const stance_pose *a, const stance_pose *b, float wa, float wb, unsigned long long t_same, unsigned long long s_same), (out, a, b, wa, wb, t_same, s_same)) \
    X(sample, (stance_pose *out, const stance_clip *c, float time, stance_cursor *cur), (out, c, time, cur)) \
    X(sample_blend2, (stance_pose *out, const stance_clip *a, float ta, stance_cursor *ca, const stance_clip *b, float tb, stance_cursor *cb, float wa, float wb), (out, a, ta, ca, b, tb, cb, wa, wb))

/* Each pass again in the build's baseline encoding (SSE2, or the scalar
 * form), whatever the CPU: st_fused_NAME dispatches to the VEX copy on CPUs
 * with AVX when the build is for baseline x86-64, st_fused_NAME_base never
 * (the frame's SSE2 copy calls them, core/frame/frame_copy.h). */
#define ST_FUSED_BASE_DECL(name, params, args) void st_fused_##name##_base params;
ST_FUSED_PASSES(ST_FUSED_BASE_DECL)
#undef ST_FUSED_BASE_DECL
/* 1 when st_fused_NAME runs the VEX copies here (this build has them and
 * the CPU has AVX), 0 when it runs the baseline ones. */
int st_fused_vex_runs(void);

#endif
