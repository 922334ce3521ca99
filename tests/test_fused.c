/* tests/test_fused.c - the fused passes of evaluation (src/core/clip/fused.c)
 * against their unfused forms: an additive delta sampled straight into the
 * apply against stance_clip_sample + the additive apply; two clips sampled
 * straight into the blend against two samples and the formulas (lerp,
 * nlerp); a clip sampled straight into the masked override against
 * sample + masked blend; the old clip of a crossfade sampled straight into
 * the fade against sample + lerp; the old two-clip blend of a crossfade
 * sampled straight into the fade against the blend + lerp; the delta flags
 * on clips whose channels are known; a one-key clip's zeros sampled as +0
 * (a -0 of the source too); and a crowd of
 * the lesson graph updated with and without the fused passes (workspace
 * flag), pose for pose; and the passes on compressed clips' sampled poses
 * (blend, crossfade) against their unfused forms. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "core/clip/fused.h"
#include "core/frame/transition.h"
#include "core/frame/workspace.h"
#include "core/base/internal.h"
#include "core/rig/rig_internal.h"
#include "core/math/qmath.h"
#include "core/math/simd.h"
#include "stance/build.h"
#include "stance/stance.h"
#include "stance_lesson/stance_lesson.h"

static stance_builtin B;
#define RANDOM_POSE_SEED 777u
#include "random_pose.h"

static float pose_diff(const stance_pose *a, const stance_pose *b) {
    float worst = 0.0f;
    for (int c = 0; c < 10; c++)
        for (int j = 0; j < a->joint_count; j++) {
            float d = fabsf(a->tx[c * a->padded_count + j] - b->tx[c * b->padded_count + j]);
            if (!(d <= worst)) worst = d; /* NaN counts as the worst */
        }
    return worst;
}

/* A clip on `sk` that keys only rotations (every joint but 4..7, which
 * keep the rest rotation), or also translations when `with_t`. */
static stance_clip *rot_clip(const stance_skeleton *sk, int with_t) {
    enum { K = 9 };
    const int J = sk->joint_count;
    static float times[K], rv[300][K * 4], tv[300][K * 3];
    stance_track_desc tr[600];
    if (J > 300) return NULL;
    int n = 0;
    for (int k = 0; k < K; k++) times[k] = (float)k / 8.0f;
    for (int j = 0; j < J; j++) {
        for (int k = 0; k < K; k++) {
            qm_quat q = qm_qnorm(qm_q(0.3f * sinf(k + j), 0.2f * cosf(0.5f * k + j), 0.1f * j, 1.0f));
            rv[j][4 * k] = q.x, rv[j][4 * k + 1] = q.y, rv[j][4 * k + 2] = q.z, rv[j][4 * k + 3] = q.w;
            tv[j][3 * k] = 0.01f * k, tv[j][3 * k + 1] = -0.02f * j, tv[j][3 * k + 2] = 0.005f * k * j;
        }
        if (j < 4 || j > 7) tr[n++] = (stance_track_desc){j, STANCE_CHANNEL_ROTATION, K, times, rv[j]}; /* 4..7 keep the rest */
        if (with_t) tr[n++] = (stance_track_desc){j, STANCE_CHANNEL_TRANSLATION, K, times, tv[j]};
    }
    stance_clip_desc d = {.name = with_t ? "rt" : "r", .duration = 1.0f, .track_count = n, .tracks = tr};
    stance_clip *c = NULL;
    stance_clip_create(&d, sk, NULL, &c, NULL);
    return c;
}

static void test_delta_flags_and_additive(void) {
    /* identity rest pose: a rotation-only clip has translation 0 and scale 1 */
    int parents[13];
    for (int j = 0; j < 13; j++) parents[j] = j - 1;
    stance_skeleton_desc sd = {.joint_count = 13, .parents = parents};
    stance_skeleton *sk = NULL;
    CHECK_OK(stance_skeleton_create(&sd, NULL, &sk, NULL));
    stance_clip *r = rot_clip(sk, 0), *rt = rot_clip(sk, 1);
    CHECK(r && rt);
    if (!sk || !r || !rt) return;
    CHECK(st_delta_flags(r) == (ST_DELTA_T0 | ST_DELTA_S1));
    CHECK(st_delta_flags(rt) == ST_DELTA_S1);
    /* identity rest: joints 4..7 (block 1) keep the identity rotation; 13 joints, 4 blocks */
    CHECK(st_delta_still_blocks(r) == 2u && st_delta_still_blocks(rt) == 2u);
    for (int i = 0; i < B.clip_count; i++) /* an animated translation is never "zero" */
        if (B.clips[i]->t_keys > 1) CHECK(!(st_delta_flags(B.clips[i]) & ST_DELTA_T0));
    stance_pose base, out, ref, sample;
    stance_pose_create(&base, 13, NULL, NULL), stance_pose_create(&out, 13, NULL, NULL);
    stance_pose_create(&ref, 13, NULL, NULL), stance_pose_create(&sample, 13, NULL, NULL);
    float mask[16] = {0};
    for (int j = 0; j < 13; j++) mask[j] = j % 4 == 0 ? 0.0f : j % 3 == 0 ? 1.0f : frand(0, 1);
    float worst = 0.0f;
    for (int rep = 0; rep < 40; rep++) {
        const stance_clip *c = rep % 2 ? rt : r;
        /* wrong flags would show: the flags passed are the clip's own */
        const int flags = st_delta_flags(c);
        const float t = frand(-0.1f, 1.1f), w = rep % 5 == 0 ? 1.0f : frand(0, 1);
        const float *m = rep % 3 ? mask : NULL;
        random_pose(&base);
        stance_cursor ca = {0}, cb = {0};
        /* unfused: sample, then apply (the runtime's padded apply) */
        CHECK_OK(stance_clip_sample(c, t, &ca, &sample, NULL));
        stance_pose_copy(&ref, &base, NULL);
        st_additive_apply_padded(&ref, &ref, &sample, m, w);
        if (rep % 4 == 0) {
            st_fused_additive(&out, &base, c, flags, st_delta_still_blocks(c), t, &cb, m, w); /* out != base */
        } else {
            stance_pose_copy(&out, &base, NULL);
            st_fused_additive(&out, &out, c, flags, st_delta_still_blocks(c), t, &cb, m, w);
        }
        CHECK(ca.key == cb.key);
        float d = pose_diff(&out, &ref);
        if (!(d <= worst)) worst = d;
    }
    printf("  fused additive against sample + apply: largest difference %.2e\n", (double)worst);
    CHECK(worst <= 1e-6f);
    stance_pose_destroy(&base), stance_pose_destroy(&out), stance_pose_destroy(&ref), stance_pose_destroy(&sample);
    stance_clip_destroy(r), stance_clip_destroy(rt);
    stance_skeleton_destroy(sk);
}

/* The common delta (rotations only, in place, no mask) on a skeleton past
 * the still mask's 64 blocks (270 joints, 68 blocks): every block that is
 * not still is applied, those after the 64th too, as sample + apply. */
static void test_additive_many_blocks(void) {
    enum { J = 270 };
    static int parents[J];
    for (int j = 0; j < J; j++) parents[j] = j - 1;
    stance_skeleton_desc sd = {.joint_count = J, .parents = parents};
    stance_skeleton *sk = NULL;
    CHECK_OK(stance_skeleton_create(&sd, NULL, &sk, NULL));
    stance_clip *c = sk ? rot_clip(sk, 0) : NULL;
    CHECK(c != NULL);
    if (!c) { stance_skeleton_destroy(sk); return; }
    CHECK(st_delta_flags(c) == (ST_DELTA_T0 | ST_DELTA_S1) && st_delta_still_blocks(c) == 2u);
    stance_pose base, out, ref, sample;
    stance_pose_create(&base, J, NULL, NULL), stance_pose_create(&out, J, NULL, NULL);
    stance_pose_create(&ref, J, NULL, NULL), stance_pose_create(&sample, J, NULL, NULL);
    float worst = 0.0f, moved = 0.0f;
    for (int rep = 0; rep < 12; rep++) {
        const float t = frand(0.0f, 1.0f), w = rep % 3 == 0 ? 1.0f : frand(0.1f, 1.0f);
        random_pose(&base);
        stance_cursor ca = {0}, cb = {0};
        CHECK_OK(stance_clip_sample(c, t, &ca, &sample, NULL));
        stance_pose_copy(&ref, &base, NULL);
        st_additive_apply_padded(&ref, &ref, &sample, NULL, w);
        stance_pose_copy(&out, &base, NULL);
        st_fused_additive(&out, &out, c, ST_DELTA_T0 | ST_DELTA_S1, st_delta_still_blocks(c), t, &cb, NULL, w);
        CHECK(ca.key == cb.key);
        const float d = pose_diff(&out, &ref);
        if (!(d <= worst)) worst = d;
        const float m = fabsf(out.qx[J - 1] - base.qx[J - 1]) + fabsf(out.qw[J - 1] - base.qw[J - 1]); /* the last block moved */
        if (m > moved) moved = m;
    }
    printf("  fused additive on %d joints against sample + apply: largest difference %.2e\n", J, (double)worst);
    CHECK(worst <= 1e-6f && moved > 1e-3f);
    stance_pose_destroy(&base), stance_pose_destroy(&out), stance_pose_destroy(&ref), stance_pose_destroy(&sample);
    stance_clip_destroy(c);
    stance_skeleton_destroy(sk);
}

/* The poses and masks of the override tests: a mask leaving whole blocks
 * out, the spine's subtree. */
typedef struct override_case {
    stance_pose base, out, ref, sample;
    float mask[STANCE_MAX_JOINTS], sub[STANCE_MAX_JOINTS];
} override_case;
static override_case OV;
static void override_begin(int J) {
    stance_pose_create(&OV.base, J, NULL, NULL), stance_pose_create(&OV.out, J, NULL, NULL);
    stance_pose_create(&OV.ref, J, NULL, NULL), stance_pose_create(&OV.sample, J, NULL, NULL);
    memset(OV.mask, 0, sizeof OV.mask), memset(OV.sub, 0, sizeof OV.sub);
    stance_mask_subtree(B.skeleton, stance_skeleton_find(B.skeleton, "spine"), 1.0f, 0, OV.sub, NULL);
    for (int j = 0; j < J; j++) OV.mask[j] = j < 8 ? 0.0f : j % 3 == 0 ? 1.0f : frand(0, 1); /* whole blocks left out */
}
static void override_end(void) {
    stance_pose_destroy(&OV.base), stance_pose_destroy(&OV.out), stance_pose_destroy(&OV.ref), stance_pose_destroy(&OV.sample);
}

static void test_override(void) {
    const stance_clip *wave = stance_builtin_clip(&B, "wave");
    const int J = B.skeleton->joint_count;
    override_begin(J);
    stance_pose *const base = &OV.base, *const out = &OV.out, *const ref = &OV.ref, *const sample = &OV.sample;
    const float *const mask = OV.mask, *const sub = OV.sub;
    float worst = 0.0f;
    for (int rep = 0; rep < 40; rep++) {
        const float t = frand(0, wave->duration), w = rep % 4 == 0 ? 1.0f : rep % 7 == 0 ? 0.0f : frand(0, 1);
        const float *m = rep % 3 == 0 ? NULL : rep % 3 == 1 ? mask : sub;
        random_pose(base);
        stance_cursor ca = {0}, cb = {0};
        CHECK_OK(stance_clip_sample(wave, t, &ca, sample, NULL));
        st_blend_masked_padded(ref, base, sample, m, w);
        if (rep % 2) {
            st_fused_override(out, base, wave, t, &cb, m, w);
        } else {
            stance_pose_copy(out, base, NULL);
            st_fused_override(out, out, wave, t, &cb, m, w);
        }
        CHECK(ca.key == cb.key);
        float d = pose_diff(out, ref);
        if (!(d <= worst)) worst = d;
    }
    printf("  fused override against sample + masked blend: largest difference %.2e\n", (double)worst);
    CHECK(worst <= 1e-6f);
    override_end();
}

/* a compressed clip's override (evaluate.c's apply_layer: the clip sampled,
 * then st_fused_override_pose) against sample + masked blend: bit for bit,
 * in place and not, weights 0, 1, above 1 and between, whole blocks left
 * out by the mask */
static void test_override_compressed(void) {
    const stance_clip *wave = stance_builtin_clip(&B, "wave");
    const int J = B.skeleton->joint_count;
    stance_clip *z = NULL;
    const stance_compress_settings cs = {1e-4f, 0.03f, 0};
    CHECK_OK(stance_clip_compress(wave, B.skeleton, &cs, NULL, &z, NULL));
    if (!z) return;
    CHECK(stance_clip_is_compressed(z) && !st_fusable(z));
    override_begin(J);
    stance_pose *const base = &OV.base, *const out = &OV.out, *const ref = &OV.ref, *const sample = &OV.sample;
    const float *const mask = OV.mask, *const sub = OV.sub;
    int differ = 0;
    for (int rep = 0; rep < 60; rep++) {
        const float t = frand(0, z->duration);
        const float w = rep % 4 == 0 ? 1.0f : rep % 7 == 0 ? 0.0f : rep % 11 == 0 ? 1.5f : frand(0, 1);
        const float *m = rep % 3 == 0 ? NULL : rep % 3 == 1 ? mask : sub;
        random_pose(base);
        CHECK_OK(stance_clip_sample(z, t, NULL, sample, NULL));
        st_blend_masked_padded(ref, base, sample, m, w);
        if (rep % 2) {
            st_fused_override_pose(out, base, sample, m, w);
        } else {
            stance_pose_copy(out, base, NULL);
            st_fused_override_pose(out, out, sample, m, w);
        }
        for (int c = 0; c < 10; c++)
            differ += memcmp(out->tx + (size_t)c * (size_t)out->padded_count, ref->tx + (size_t)c * (size_t)ref->padded_count,
                             sizeof(float) * (size_t)J) != 0;
    }
    printf("  compressed clip's override against sample + masked blend: %d rows differ\n", differ);
    CHECK(differ == 0);
    stance_clip_destroy(z);
    override_end();
}

/* the passes on sampled poses of compressed clips (evaluate.c's two-clip
 * blend and crossfade of compressed clips): st_fused_blend2_pose against
 * sv_block_lerp2_ts + sv_block_nlerp2, st_fused_under_pose against tr_lerp,
 * bit for bit, with the clips' rest blocks skipped (st_clip_rest_blocks)
 * and without, in place and not, weights 0, 1, above 1 and between */
static void test_pose_passes_compressed(void) {
    const int J = B.skeleton->joint_count;
    const stance_compress_settings cs = {1e-4f, 0.03f, 0};
    stance_clip *za = NULL, *zb = NULL;
    CHECK_OK(stance_clip_compress(stance_builtin_clip(&B, "walk"), B.skeleton, &cs, NULL, &za, NULL));
    CHECK_OK(stance_clip_compress(stance_builtin_clip(&B, "wave"), B.skeleton, &cs, NULL, &zb, NULL));
    if (!za || !zb) return;
    stance_pose a, b, out, ref;
    stance_pose_create(&a, J, NULL, NULL), stance_pose_create(&b, J, NULL, NULL);
    stance_pose_create(&out, J, NULL, NULL), stance_pose_create(&ref, J, NULL, NULL);
    const int pc = a.padded_count;
    int differ = 0;
    for (int rep = 0; rep < 80; rep++) {
        const int masked = rep % 2;
        const unsigned long long mt = masked ? st_clip_rest_blocks(za, 0) & st_clip_rest_blocks(zb, 0) : 0;
        const unsigned long long ms = masked ? st_clip_rest_blocks(za, 1) & st_clip_rest_blocks(zb, 1) : 0;
        CHECK_OK(stance_clip_sample(za, frand(0, za->duration), NULL, &a, NULL));
        CHECK_OK(stance_clip_sample(zb, frand(0, zb->duration), NULL, &b, NULL));
        /* the blend: weights summing to 1 */
        const float wb = rep % 9 == 0 ? 1.0f : frand(0.01f, 0.99f), wa = 1.0f - wb;
        stance_pose_copy(&ref, &a, NULL);
        sv_block_lerp2_ts(ref.tx, ref.tx, b.tx, wb / (wa + wb), 3 * pc, 7 * pc);
        sv_block_nlerp2(ref.qx, ref.qx, b.qx, wa, wb, pc, pc);
        random_pose(&out);
        if (rep % 4 < 2) {
            st_fused_blend2_pose(&out, &a, &b, wa, wb, mt, ms);
        } else {
            stance_pose_copy(&out, &a, NULL);
            st_fused_blend2_pose(&out, &out, &b, wa, wb, mt, ms);
        }
        for (int c = 0; c < 10; c++)
            differ += memcmp(out.tx + (size_t)c * (size_t)pc, ref.tx + (size_t)c * (size_t)pc, sizeof(float) * (size_t)J) != 0;
        /* the crossfade from b (the old clip) into a */
        const float w = rep % 5 == 0 ? 0.0f : rep % 5 == 1 ? 1.0f : rep % 11 == 0 ? 1.5f : frand(0, 1);
        stance_pose_copy(&out, &a, NULL);
        tr_lerp(&ref, &b, &a, w);
        st_fused_under_pose(&out, &b, w, mt, ms);
        for (int c = 0; c < 10; c++)
            differ += memcmp(out.tx + (size_t)c * (size_t)pc, ref.tx + (size_t)c * (size_t)pc, sizeof(float) * (size_t)J) != 0;
    }
    printf("  compressed clips' blend and crossfade passes against the unfused forms: %d rows differ (rest blocks %llx, %llx)\n",
           differ, st_clip_rest_blocks(za, 0) & st_clip_rest_blocks(zb, 0), st_clip_rest_blocks(za, 1) & st_clip_rest_blocks(zb, 1));
    CHECK(differ == 0);
    CHECK((st_clip_rest_blocks(za, 1) & st_clip_rest_blocks(zb, 1)) != 0); /* the skip is exercised */
    stance_pose_destroy(&a), stance_pose_destroy(&b), stance_pose_destroy(&out), stance_pose_destroy(&ref);
    stance_clip_destroy(za), stance_clip_destroy(zb);
}

/* a clip sampled by the fused pass against stance_clip_sample, every
 * built-in clip, times outside the clip too */
static void test_sample(void) {
    const char *names[] = {"idle", "walk", "run", "jump", "breathe", "lean", "wave"};
    const int J = B.skeleton->joint_count;
    stance_pose a, b;
    stance_pose_create(&a, J, NULL, NULL), stance_pose_create(&b, J, NULL, NULL);
    float worst = 0.0f;
    for (int rep = 0; rep < 70; rep++) {
        const stance_clip *c = stance_builtin_clip(&B, names[rep % 7]);
        const float t = frand(-0.2f, c->duration + 0.2f);
        stance_cursor ca = {0}, cb = {0};
        random_pose(&a), random_pose(&b);
        CHECK_OK(stance_clip_sample(c, t, &ca, &a, NULL));
        st_fused_sample(&b, c, t, &cb);
        CHECK(ca.key == cb.key);
        const float d = pose_diff(&a, &b);
        if (!(d <= worst)) worst = d;
    }
    printf("  fused sample against stance_clip_sample: largest difference %.2e\n", (double)worst);
    CHECK(worst == 0.0f);
    stance_pose_destroy(&a), stance_pose_destroy(&b);
}

/* the crossfade from a clip: the old clip sampled straight into the fade
 * against stance_clip_sample + tr_lerp (evaluate.c's unfused crossfade) */
static void test_under(void) {
    const char *names[2] = {"wave", "jump"};
    const int J = B.skeleton->joint_count;
    stance_pose out, ref, sample;
    stance_pose_create(&out, J, NULL, NULL), stance_pose_create(&ref, J, NULL, NULL), stance_pose_create(&sample, J, NULL, NULL);
    float worst = 0.0f;
    int exact = 0, runs = 0;
    for (int rep = 0; rep < 60; rep++) {
        const stance_clip *c = stance_builtin_clip(&B, names[rep % 2]);
        const float t = frand(-0.1f, c->duration + 0.1f);
        const float w = rep % 5 == 0 ? 0.0f : rep % 5 == 1 ? 1.0f : rep % 11 == 0 ? 1.5f : frand(0, 1);
        random_pose(&out);
        stance_cursor ca = {0}, cb = {0};
        CHECK_OK(stance_clip_sample(c, t, &ca, &sample, NULL));
        tr_lerp(&ref, &sample, &out, w);
        st_fused_under(&out, c, t, &cb, w);
        CHECK(ca.key == cb.key);
        const float d = pose_diff(&out, &ref);
        if (!(d <= worst)) worst = d;
        exact += d == 0.0f, runs++;
    }
    printf("  fused crossfade from a clip against sample + lerp: largest difference %.2e, %d of %d bit for bit\n",
           (double)worst, exact, runs);
    CHECK(worst == 0.0f);
    stance_pose_destroy(&out), stance_pose_destroy(&ref), stance_pose_destroy(&sample);
}

/* The crossfade from a two-clip blend (walk and run) into a pose, in one
 * pass, against the blend into a pose and then the lerp it replaces, bit
 * for bit, the cursors moved alike; at w 0 the blend alone, at w >= 1 the
 * pose alone. */
static void test_blend2_under(void) {
    const stance_clip *walk = stance_builtin_clip(&B, "walk"), *run = stance_builtin_clip(&B, "run");
    const int J = B.skeleton->joint_count;
    stance_pose out, ref, old, start;
    stance_pose_create(&out, J, NULL, NULL), stance_pose_create(&ref, J, NULL, NULL);
    stance_pose_create(&old, J, NULL, NULL), stance_pose_create(&start, J, NULL, NULL);
    int exact = 0, runs = 0;
    for (int rep = 0; rep < 60; rep++) {
        const float ta = frand(-0.1f, walk->duration + 0.1f), tb = frand(0, run->duration), wb = frand(0.01f, 0.99f), wa = 1.0f - wb;
        const float w = rep % 5 == 0 ? 0.0f : rep % 5 == 1 ? 1.0f : rep % 11 == 0 ? 1.5f : frand(0, 1);
        const int same_s = rep % 2;
        random_pose(&start);
        stance_cursor c[4] = {{0}};
        st_fused_blend2(&old, walk, ta, &c[0], run, tb, &c[1], wa, wb, same_s);
        stance_pose_copy(&ref, &start, NULL);
        tr_lerp(&ref, &old, &ref, w);
        stance_pose_copy(&out, &start, NULL);
        st_fused_blend2_under(&out, walk, ta, &c[2], run, tb, &c[3], wa, wb, same_s, w);
        CHECK(c[0].key == c[2].key && c[1].key == c[3].key);
        exact += !memcmp(out.memory, ref.memory, stance_pose_bytes(J)), runs++;
        if (w <= 0.0f) CHECK(!memcmp(out.memory, old.memory, stance_pose_bytes(J)));
        if (w >= 1.0f) CHECK(!memcmp(out.memory, start.memory, stance_pose_bytes(J)));
    }
    printf("  fused crossfade from a two-clip blend against blend + lerp: %d of %d bit for bit\n", exact, runs);
    CHECK(exact == runs);
    stance_pose_destroy(&out), stance_pose_destroy(&ref), stance_pose_destroy(&old), stance_pose_destroy(&start);
}

static void test_blend2(void) {
    const stance_clip *walk = stance_builtin_clip(&B, "walk"), *run = stance_builtin_clip(&B, "run");
    const int J = B.skeleton->joint_count;
    stance_pose out, a, b;
    stance_pose_create(&out, J, NULL, NULL), stance_pose_create(&a, J, NULL, NULL), stance_pose_create(&b, J, NULL, NULL);
    float worst = 0.0f, worst_same = 0.0f;
    /* the built-in walk and run keep one constant scale (1): the graph marks their blend space */
    const int same_s = walk->s_keys == 1 && run->s_keys == 1 &&
                       !memcmp(walk->s, run->s, sizeof(float) * 3 * (size_t)walk->padded_count);
    CHECK(same_s);
    for (int rep = 0; rep < 40; rep++) {
        const float ta = frand(0, walk->duration), tb = frand(0, run->duration), wb = frand(0.01f, 0.99f), wa = 1.0f - wb;
        stance_cursor c[4] = {{0}};
        st_fused_blend2(&out, walk, ta, &c[0], run, tb, &c[1], wa, wb, 0);
        if (same_s) { /* the copied scale block gives the same pose bit for bit */
            stance_cursor e[2] = {{0}};
            st_fused_blend2(&b, walk, ta, &e[0], run, tb, &e[1], wa, wb, 1);
            const float d = pose_diff(&out, &b);
            if (!(d <= worst_same)) worst_same = d;
        }
        stance_clip_sample(walk, ta, &c[2], &a, NULL);
        stance_clip_sample(run, tb, &c[3], &b, NULL);
        CHECK(c[0].key == c[2].key && c[1].key == c[3].key);
        /* the formulas: t, s lerp; q nlerp with b sign-aligned to a */
        for (int j = 0; j < J; j++) {
            stance_transform x, y, o;
            stance_pose_get(&a, j, &x, NULL), stance_pose_get(&b, j, &y, NULL), stance_pose_get(&out, j, &o, NULL);
            qm_quat q = qm_nlerp(qm_q(x.r[0], x.r[1], x.r[2], x.r[3]), qm_q(y.r[0], y.r[1], y.r[2], y.r[3]), wb);
            float d = fabsf(o.r[0] - q.x) + fabsf(o.r[1] - q.y) + fabsf(o.r[2] - q.z) + fabsf(o.r[3] - q.w);
            for (int k = 0; k < 3; k++) {
                d = fmaxf(d, fabsf(o.t[k] - (x.t[k] + (y.t[k] - x.t[k]) * wb)));
                d = fmaxf(d, fabsf(o.s[k] - (x.s[k] + (y.s[k] - x.s[k]) * wb)));
            }
            if (!(d <= worst)) worst = d;
        }
    }
    printf("  fused two-clip blend against two samples and the formulas: largest difference %.2e; "
           "with the scale block copied: %.2e\n", (double)worst, (double)worst_same);
    CHECK(worst < 2e-6f);
    CHECK(worst_same == 0.0f);
    stance_pose_destroy(&out), stance_pose_destroy(&a), stance_pose_destroy(&b);
}

/* the crowd of the benchmark: varied speeds, jumps, every layer on */
static void inputs(stance_instance *inst, int i, int f) {
    float ph = 0.37f * (float)i + (float)f / 150.0f;
    float speed = 2.0f + 2.0f * sinf(ph);
    stance_instance_set_float(inst, 0, speed < 0.3f ? 0.0f : speed, NULL);
    if ((f + 7 * i) % 97 == 0) stance_instance_set_trigger(inst, 1, NULL);
    if (f == 0) {
        stance_instance_set_layer_weight(inst, 1, 0.5f, 0.0f, NULL);
        stance_instance_set_layer_weight(inst, 2, 0.3f, 0.0f, NULL);
        if (i % 3 == 0) stance_instance_set_layer_weight(inst, 3, 1.0f, 0.0f, NULL);
    }
}

static void test_crowd_fused_equals_unfused(void) {
    enum { N = 24, FRAMES = 600 };
    stance_graph *g = NULL;
    CHECK_OK(stance_builtin_lesson_graph(&B, NULL, &g, NULL));
    if (!g) return;
    int marked = 0; /* the Move blend space (idle, walk, run: scale 1 throughout) copies its scale block */
    for (int s = 0; s < g->state_count; s++) marked += g->states[s].same_scale;
    CHECK(marked == 1);
    stance_instance *a[N], *b[N];
    for (int i = 0; i < N; i++) {
        CHECK_OK(stance_instance_create(g, NULL, &a[i], NULL));
        CHECK_OK(stance_instance_create(g, NULL, &b[i], NULL));
    }
    stance_workspace *wf = NULL, *wu = NULL;
    CHECK_OK(stance_workspace_create(g, NULL, &wf, NULL));
    CHECK_OK(stance_workspace_create(g, NULL, &wu, NULL));
    CHECK(st_workspace_set_frame(wu, ST_FRAME_REFERENCE) != NULL); /* every fast path off, the fused passes included */
    float worst = 0.0f;
    long identical = 0, compared = 0, clips_a = 0, clips_b = 0;
    for (int f = 0; f < FRAMES; f++) {
        for (int i = 0; i < N; i++) inputs(a[i], i, f), inputs(b[i], i, f);
        CHECK_OK(stance_instances_update(a, N, 1.0f / 60.0f, wf, NULL));
        CHECK_OK(stance_instances_update(b, N, 1.0f / 60.0f, wu, NULL));
        for (int i = 0; i < N; i++) {
            const float dl = pose_diff(stance_instance_local_pose(a[i]), stance_instance_local_pose(b[i]));
            const float dm = pose_diff(stance_instance_model_pose(a[i]), stance_instance_model_pose(b[i]));
            const float d = fmaxf(dl, dm);
            if (!(d <= worst)) worst = d;
            identical += d == 0.0f, compared++;
            clips_a += stance_instance_clips_sampled(a[i]), clips_b += stance_instance_clips_sampled(b[i]);
        }
    }
    printf("  crowd (%d x %d frames), fused against unfused: largest difference %.2e, %ld of %ld updates bit for bit\n",
           N, FRAMES, (double)worst, identical, compared);
    CHECK(worst <= 1e-6f);
    CHECK(clips_a == clips_b); /* the same clips sampled */
    for (int i = 0; i < N; i++) stance_instance_destroy(a[i]), stance_instance_destroy(b[i]);
    stance_workspace_destroy(wf), stance_workspace_destroy(wu);
    stance_graph_destroy(g);
}

/* A one-key clip's channels are sampled as stored; a -0 of the source is
 * stored as +0, the zero the lerp of keyed blocks gives (a + (b - a) u), so
 * no sampled pose carries a -0: the fused additive's still blocks leave a
 * base as it is where the unfused apply's identity product turns a -0 of
 * the base into +0 (tests/test_reference_compressed.sh). */
static void test_one_key_zero_sign(void) {
    int parents[5];
    for (int j = 0; j < 5; j++) parents[j] = j - 1;
    stance_skeleton_desc sd = {.joint_count = 5, .parents = parents};
    stance_skeleton *sk = NULL;
    CHECK_OK(stance_skeleton_create(&sd, NULL, &sk, NULL));
    if (!sk) return;
    static float times[1] = {0.0f}, rv[4] = {-0.0f, 0.6f, -0.0f, 0.8f}, tv[3] = {-0.0f, 1.0f, -0.0f};
    stance_track_desc tr[2] = {{2, STANCE_CHANNEL_ROTATION, 1, times, rv}, {2, STANCE_CHANNEL_TRANSLATION, 1, times, tv}};
    stance_clip_desc d = {.name = "one", .duration = 1.0f, .track_count = 2, .tracks = tr};
    stance_clip *c = NULL;
    CHECK_OK(stance_clip_create(&d, sk, NULL, &c, NULL));
    stance_pose p;
    stance_pose_create(&p, 5, NULL, NULL);
    if (c) {
        CHECK(c->r_keys == 1 && c->t_keys == 1);
        CHECK_OK(stance_clip_sample(c, 0.5f, NULL, &p, NULL));
        CHECK(p.qy[2] == 0.6f && p.qw[2] == 0.8f && p.ty[2] == 1.0f);
        CHECK(p.qx[2] == 0.0f && !signbit(p.qx[2]) && p.qz[2] == 0.0f && !signbit(p.qz[2]));
        CHECK(p.tx[2] == 0.0f && !signbit(p.tx[2]) && p.tz[2] == 0.0f && !signbit(p.tz[2]));
        st_fused_sample(&p, c, 0.5f, NULL);
        CHECK(!signbit(p.qx[2]) && !signbit(p.qz[2]) && !signbit(p.tx[2]) && !signbit(p.tz[2]));
    }
    stance_pose_destroy(&p);
    stance_clip_destroy(c);
    stance_skeleton_destroy(sk);
}

int main(void) {
    if (stance_builtin_create(NULL, &B, NULL)) return 1;
    RUN(test_delta_flags_and_additive);
    RUN(test_additive_many_blocks);
    RUN(test_one_key_zero_sign);
    RUN(test_override);
    RUN(test_override_compressed);
    RUN(test_pose_passes_compressed);
    RUN(test_blend2);
    RUN(test_sample);
    RUN(test_under);
    RUN(test_blend2_under);
    RUN(test_crowd_fused_equals_unfused);
    stance_builtin_destroy(&B);
    return check_summary();
}
