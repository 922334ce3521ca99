/* src/core/clip/clip_blend2.c - stance_clip_sample_blend2: two clips sampled
 * and blended in one pass (core/clip/fused.c's st_fused_sample_blend2) when
 * both are exact, else through stance_clip_sample and stance_pose_blend;
 * every check of the three calls, with its message. Owns no state. */
#include <float.h>

#include "core/base/internal.h"
#include "core/clip/fused.h"
#include "stance/clip.h"

/* A clip the one pass samples: exact keys, nlerp, not retargeted at run time. */
static int one_pass(const stance_clip *c) { return st_fusable(c) && !c->retarget; }

static int bound(const stance_pose *p) { return p && p->memory && p->joint_count > 0; }

/* Everything past the common case: the checks with their messages, the
 * weights at or under 0 and under the threshold, and clips the one pass
 * does not sample (through the three calls, clip_b into scratch). */
ST_NOINLINE static stance_status sample_blend2_general(stance_pose *out, const stance_clip *a, float ta, stance_cursor *ca,
                                                       const stance_clip *b, float tb, stance_cursor *cb,
                                                       const float *weights, float threshold, const stance_skeleton *sk,
                                                       stance_pose *scratch, stance_error *err) {
    static const char who[] = "clip sample blend2";
    if (!bound(out)) return st_fail(err, STANCE_ERR_ARGUMENT, "%s: out is NULL or not bound to memory", who);
    if (!a || !b) return st_fail(err, STANCE_ERR_ARGUMENT, "%s: clip_%s is NULL", who, a ? "b" : "a");
    const stance_clip *clips[2] = {a, b};
    for (int i = 0; i < 2; i++)
        if (clips[i]->joint_count != out->joint_count)
            return st_fail(err, STANCE_ERR_ARGUMENT, "%s: clip_%c '%s' has %d joints, out %d", who, "ab"[i],
                           clips[i]->name, clips[i]->joint_count, out->joint_count);
    if (!st_finite(ta) || !st_finite(tb))
        return st_fail(err, STANCE_ERR_VALUE, "%s: time_%c %g is not finite", who, st_finite(ta) ? 'b' : 'a',
                       (double)(st_finite(ta) ? tb : ta));
    if (!weights) return st_fail(err, STANCE_ERR_ARGUMENT, "%s: weights is NULL", who);
    for (int i = 0; i < 2; i++)
        if (!st_finite(weights[i]) || weights[i] < 0.0f)
            return st_fail(err, STANCE_ERR_VALUE, "%s: weights[%d] = %g is not finite and >= 0", who, i, (double)weights[i]);
    if (!st_finite(threshold) || threshold < 0.0f)
        return st_fail(err, STANCE_ERR_VALUE, "%s: threshold %g is not finite and >= 0", who, (double)threshold);
    const float w0 = weights[0], w1 = weights[1];
    if (w0 + w1 < (threshold > 0.0f ? threshold : 1e-4f)) {
        if (!sk || sk->joint_count != out->joint_count)
            return st_fail(err, STANCE_ERR_ARGUMENT, "%s: the weights sum to %g, under the threshold, and the skeleton "
                           "for the rest pose is NULL or has another joint count", who, (double)(w0 + w1));
        return stance_pose_set_rest(out, sk, err);
    }
    stance_status s;
    if (!(w0 > 0.0f) || !(w1 > 0.0f)) { /* one clip: sampled, then stance_pose_blend of it alone */
        const int i = w0 > 0.0f ? 0 : 1;
        s = stance_clip_sample(clips[i], i ? tb : ta, i ? cb : ca, out, err);
        if (s) return s;
        const stance_pose *in[1] = {out};
        return stance_pose_blend(out, in, &weights[i], 1, threshold, sk, err);
    }
    /* both clips sampled apart: b into scratch (the weights' sum overflows
     * stance_pose_blend's one pass, or a clip is not exact) */
    if (!bound(scratch) || scratch == out || scratch->joint_count != out->joint_count) {
        if (one_pass(a) && one_pass(b))
            return st_fail(err, STANCE_ERR_ARGUMENT, "%s: the weights %g and %g sum past the float range, which "
                           "needs scratch (a bound pose of %d joints, not out)", who, (double)w0, (double)w1,
                           out->joint_count);
        const stance_clip *c = one_pass(a) ? b : a;
        return st_fail(err, STANCE_ERR_ARGUMENT, "%s: clip '%s' is %s, so it is sampled on its own, which needs "
                       "scratch (a bound pose of %d joints, not out)", who, c->name,
                       c->packed ? "compressed" : c->retarget ? "retargeted at run time" : "keyed for slerp",
                       out->joint_count);
    }
    if ((s = stance_clip_sample(a, ta, ca, out, err)) || (s = stance_clip_sample(b, tb, cb, scratch, err))) return s;
    const stance_pose *in[2] = {out, scratch};
    return stance_pose_blend(out, in, weights, 2, threshold, sk, err);
}

stance_status stance_clip_sample_blend2(stance_pose *out, const stance_clip *a, float ta, stance_cursor *ca,
                                        const stance_clip *b, float tb, stance_cursor *cb, const float weights[2],
                                        float threshold, const stance_skeleton *sk, stance_pose *scratch,
                                        stance_error *err) {
    /* The common case, checked in one go: out bound, both clips exact with
     * its joint count, finite times, both weights finite and > 0 (NaN fails
     * the comparisons) with a finite sum at or above the threshold (a finite
     * one >= 0). Their normalized weights are stance_pose_blend's. */
    if (out && out->memory && a && b && weights && one_pass(a) && one_pass(b) && a->joint_count == out->joint_count &&
        b->joint_count == out->joint_count && st_finite(ta) && st_finite(tb) && threshold >= 0.0f &&
        threshold <= FLT_MAX) {
        const float w0 = weights[0], w1 = weights[1];
        if (w0 > 0.0f && w1 > 0.0f && w0 + w1 <= FLT_MAX && w0 + w1 >= (threshold > 0.0f ? threshold : 1e-4f)) {
            const float inv_total = 1.0f / (w0 + w1);
            st_ok(err); /* before the work: err is not kept through it */
            st_fused_sample_blend2(out, a, ta, ca, b, tb, cb, w0 * inv_total, w1 * inv_total);
            return STANCE_OK;
        }
    }
    return sample_blend2_general(out, a, ta, ca, b, tb, cb, weights, threshold, sk, scratch, err);
}
