/* tests/test_clip_blend2.c - stance_clip_sample_blend2 against the three
 * calls it replaces (stance_clip_sample twice, then stance_pose_blend), bit
 * for bit, pose memory and cursors: on the reference workload's clips
 * (bench/WORKLOAD.md, written by tools/workload.c), on clips written here
 * with every mix of keyed and constant channels and uneven key times, in
 * both encodings of the one pass (the VEX copy where the CPU has AVX, the
 * baseline SSE2 copy always), through the compressed-clip and one-weight
 * paths, and every refusal with its message. Also stance_pose_blend with
 * weights whose sum passes the float range (it gave NaN rotations). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/clip/fused.h"
#include "stance/build.h"
#include "stance/stance.h"
#include "workload.h"

static unsigned rng_state = 2026u;
static float frand(void) { /* [0, 1) */
    rng_state = rng_state * 1664525u + 1013904223u;
    return (float)(rng_state >> 8) / 16777216.0f;
}

/* A clip of the skeleton's joints, K keys at uneven times (key_rate 0) or
 * even ones: each channel keyed (random values) or constant (one value at
 * every key, stored once), as mask bits 1 T, 2 R, 4 S say. */
static stance_clip *random_clip(const stance_skeleton *sk, int K, int keyed, int even) {
    const int J = sk->joint_count;
    float *times = malloc(sizeof(float) * (size_t)K), *values = malloc(sizeof(float) * (size_t)J * K * 10);
    stance_track_desc *tracks = malloc(sizeof(stance_track_desc) * (size_t)J * 3);
    for (int k = 0; k < K; k++) times[k] = even ? (float)k / 30.0f : (float)k / 30.0f + (k && k < K - 1 ? 0.01f * frand() : 0.0f);
    float *tv = values, *rv = values + (size_t)J * K * 3, *sv = values + (size_t)J * K * 7;
    for (int j = 0; j < J; j++) {
        float t0[3], r0[4], s0[3];
        for (int k = 0; k < K; k++) {
            float *t = tv + ((size_t)j * K + k) * 3, *r = rv + ((size_t)j * K + k) * 4, *s = sv + ((size_t)j * K + k) * 3;
            for (int c = 0; c < 3; c++) t[c] = (keyed & 1) || !k ? frand() - 0.5f : t0[c];
            for (int c = 0; c < 3; c++) s[c] = (keyed & 4) || !k ? 0.5f + frand() : s0[c];
            if ((keyed & 2) || !k) {
                double q[4], l = 0.0;
                for (int c = 0; c < 4; c++) q[c] = frand() - 0.5 + (c == 3 ? 1.5 : 0.0), l += q[c] * q[c];
                for (int c = 0; c < 4; c++) r[c] = (float)(q[c] / sqrt(l));
            } else {
                for (int c = 0; c < 4; c++) r[c] = r0[c];
            }
            if (!k) memcpy(t0, t, sizeof t0), memcpy(r0, r, sizeof r0), memcpy(s0, s, sizeof s0);
        }
        tracks[j * 3 + 0] = (stance_track_desc){j, STANCE_CHANNEL_TRANSLATION, K, times, tv + (size_t)j * K * 3};
        tracks[j * 3 + 1] = (stance_track_desc){j, STANCE_CHANNEL_ROTATION, K, times, rv + (size_t)j * K * 4};
        tracks[j * 3 + 2] = (stance_track_desc){j, STANCE_CHANNEL_SCALE, K, times, sv + (size_t)j * K * 3};
    }
    stance_clip_desc cd = {.name = "random", .duration = times[K - 1], .track_count = J * 3, .tracks = tracks};
    stance_clip *c = NULL;
    CHECK_OK(stance_clip_create(&cd, sk, NULL, &c, NULL));
    free(times), free(values), free(tracks);
    return c;
}

/* The one call against the three, from the same cursors: the same pose
 * bytes (padding too) and the same cursors after. */
static int same_as_three(const stance_skeleton *sk, const stance_clip *a, float ta, const stance_clip *b, float tb,
                         const float w[2], float threshold, stance_cursor *ca, stance_cursor *cb, stance_pose *scratch) {
    const int J = sk->joint_count;
    const size_t bytes = stance_pose_bytes(J);
    stance_pose pa, pb, ref, out;
    stance_pose_create(&pa, J, NULL, NULL), stance_pose_create(&pb, J, NULL, NULL);
    stance_pose_create(&ref, J, NULL, NULL), stance_pose_create(&out, J, NULL, NULL);
    stance_cursor ra = *ca, rb = *cb;
    const float thr = threshold > 0.0f ? threshold : 1e-4f;
    int ok = 1;
    memset(ref.memory, 0xa5, bytes); /* as out's below: the rest pose leaves the padding as it is */
    if (w[0] + w[1] < thr) {
        CHECK_OK(stance_pose_set_rest(&ref, sk, NULL));
    } else {
        /* a clip of weight 0 is not sampled: its pose there does not count */
        if (w[0] > 0.0f) CHECK_OK(stance_clip_sample(a, ta, &ra, &pa, NULL));
        if (w[1] > 0.0f) CHECK_OK(stance_clip_sample(b, tb, &rb, &pb, NULL));
        const stance_pose *in[2] = {&pa, &pb};
        CHECK_OK(stance_pose_blend(&ref, in, w, 2, threshold, sk, NULL));
    }
    memset(out.memory, 0xa5, bytes);
    stance_error err = {0};
    stance_status s = stance_clip_sample_blend2(&out, a, ta, ca, b, tb, cb, w, threshold, sk, scratch, &err);
    if (s != STANCE_OK) {
        fprintf(stderr, "sample_blend2: %s\n", err.message);
        ok = 0;
    }
    if (memcmp(out.memory, ref.memory, bytes) || ca->key != ra.key || ca->steps != ra.steps || cb->key != rb.key ||
        cb->steps != rb.steps)
        ok = 0;
    stance_pose_destroy(&pa), stance_pose_destroy(&pb), stance_pose_destroy(&ref), stance_pose_destroy(&out);
    return ok;
}

/* The reference workload's clips and weights, over a whole cycle and past
 * both ends, each character's two cursors kept across frames. */
static void test_workload_clips(void) {
    const int sizes[3] = {64, 13, 2};
    int cases = 0, bad = 0;
    for (int si = 0; si < 3; si++) {
        workload w;
        CHECK_OK(workload_create(&w, sizes[si], 3, NULL));
        const float weights[5][2] = {{0.3f, 0.7f}, {0.7f, 0.3f}, {0.5f, 0.5f}, {2.0f, 1e-3f}, {1e-3f, 3.0f}};
        for (int i = 0; i < 3; i++) {
            stance_cursor ca = {0}, cb = {0};
            for (long f = -3; f < 70; f++) {
                const float ta = workload_time(&w, i, 0, f) * 1.06f - 0.03f, tb = workload_time(&w, i, 1, f);
                bad += !same_as_three(w.skeleton, w.clips[i], ta, w.clips[(i + 1) % 3], tb, weights[(f + 5) % 5], 0.0f,
                                      &ca, &cb, NULL);
                cases++;
            }
        }
        /* the workload's own frame: its blended pose is the separate calls' */
        workload_frame(&w, 17);
        unsigned char *one = malloc(stance_pose_bytes(w.joints));
        memcpy(one, w.chars[1].blended.memory, stance_pose_bytes(w.joints));
        const double check = workload_check(&w);
        workload_frame_separate(&w, 17);
        CHECK(!memcmp(one, w.chars[1].blended.memory, stance_pose_bytes(w.joints)));
        CHECK(check == workload_check(&w));
        free(one);
        workload_destroy(&w);
    }
    CHECK(bad == 0);
    printf("  %d blends of the workload's clips, %d differ from the three calls\n", cases, bad);
}

/* Clips with every mix of keyed and constant channels, uneven and even key
 * times, several weights; both encodings of the pass directly. */
static void test_channel_mixes(void) {
    const int J = 11;
    stance_transform rest[11];
    int parents[11];
    for (int j = 0; j < J; j++) parents[j] = j - 1, rest[j] = stance_transform_identity(), rest[j].t[0] = 0.1f;
    stance_skeleton_desc sd = {.joint_count = J, .parents = parents, .rest = rest};
    stance_skeleton *sk = NULL;
    CHECK_OK(stance_skeleton_create(&sd, NULL, &sk, NULL));
    stance_pose ref, out;
    stance_pose_create(&ref, J, NULL, NULL), stance_pose_create(&out, J, NULL, NULL);
    const size_t bytes = stance_pose_bytes(J);
    int cases = 0, bad = 0, encodings = 0;
    for (int ma = 0; ma < 8; ma++)
        for (int mb = 0; mb < 8; mb += 3) {
            stance_clip *a = random_clip(sk, 9, ma, ma & 1), *b = random_clip(sk, 7 + (mb & 1), mb, 0);
            CHECK(a->t_keys == ((ma & 1) ? 9 : 1) && a->r_keys == ((ma & 2) ? 9 : 1) && a->s_keys == ((ma & 4) ? 9 : 1));
            stance_cursor ca = {0}, cb = {0};
            for (int step = 0; step < 24; step++) {
                const float ta = a->duration * (frand() * 1.2f - 0.1f), tb = b->duration * frand();
                const float w[2] = {frand() + (step % 3 == 0 ? 1.0f : 0.0f), frand() + 1e-3f};
                bad += !same_as_three(sk, a, ta, b, tb, w, 0.0f, &ca, &cb, NULL);
                cases++;
                /* each encoding of the pass itself, with stance_pose_blend's normalized weights */
                CHECK_OK(stance_clip_sample_blend2(&ref, a, ta, NULL, b, tb, NULL, w, 0.0f, sk, NULL, NULL));
                const float inv = 1.0f / (w[0] + w[1]);
                memset(out.memory, 0x5a, bytes);
                st_fused_sample_blend2_base(&out, a, ta, NULL, b, tb, NULL, w[0] * inv, w[1] * inv);
                CHECK(!memcmp(out.memory, ref.memory, bytes));
                encodings |= 1;
                if (st_fused_vex_runs()) {
                    memset(out.memory, 0x5a, bytes);
                    st_fused_sample_blend2(&out, a, ta, NULL, b, tb, NULL, w[0] * inv, w[1] * inv);
                    CHECK(!memcmp(out.memory, ref.memory, bytes));
                    encodings |= 2;
                }
            }
            stance_clip_destroy(a), stance_clip_destroy(b);
        }
    CHECK(bad == 0);
    printf("  %d blends of 24 channel mixes, %d differ; encodings compared: %s\n", cases, bad,
           encodings == 3 ? "baseline and VEX" : "baseline (no VEX copy runs here)");
    stance_pose_destroy(&ref), stance_pose_destroy(&out);
    stance_skeleton_destroy(sk);
}

/* Weights at 0, under the threshold, and the sum past the float range. */
static void test_weights(void) {
    workload w;
    CHECK_OK(workload_create(&w, 21, 1, NULL));
    stance_pose scratch;
    stance_pose_create(&scratch, 21, NULL, NULL);
    const float cases[6][2] = {{0.0f, 0.4f}, {0.8f, 0.0f}, {0.0f, 0.0f}, {2e-5f, 3e-5f}, {0.01f, 0.02f}, {FLT_MAX, FLT_MAX}};
    const float thresholds[6] = {0.0f, 0.0f, 0.0f, 0.0f, 0.05f, 0.0f};
    for (int i = 0; i < 6; i++) {
        stance_cursor ca = {0}, cb = {0};
        for (int f = 0; f < 12; f++)
            CHECK(same_as_three(w.skeleton, w.clips[0], (float)f / 11.0f, w.clips[2], (float)f / 13.0f, cases[i],
                                thresholds[i], &ca, &cb, i == 5 ? &scratch : NULL));
        /* a clip of weight 0 is not sampled: its cursor stays */
        if (i == 0) CHECK(ca.key == 0 && ca.steps == 0 && cb.steps > 0);
        if (i == 1) CHECK(cb.key == 0 && cb.steps == 0 && ca.steps > 0);
    }
    /* stance_pose_blend itself: weights summing past FLT_MAX give the blend
     * of equal weights (they were 1 / inf = 0: NaN rotations) */
    stance_pose a, b, big, half;
    stance_pose_create(&a, 21, NULL, NULL), stance_pose_create(&b, 21, NULL, NULL);
    stance_pose_create(&big, 21, NULL, NULL), stance_pose_create(&half, 21, NULL, NULL);
    CHECK_OK(stance_clip_sample(w.clips[0], 0.2f, NULL, &a, NULL));
    CHECK_OK(stance_clip_sample(w.clips[1], 0.7f, NULL, &b, NULL));
    const stance_pose *in[2] = {&a, &b};
    const float wbig[2] = {FLT_MAX, FLT_MAX}, whalf[2] = {0.5f, 0.5f};
    CHECK_OK(stance_pose_blend(&big, in, wbig, 2, 0.0f, NULL, NULL));
    CHECK_OK(stance_pose_blend(&half, in, whalf, 2, 0.0f, NULL, NULL));
    for (int j = 0; j < 21; j++) {
        const float q2 = big.qx[j] * big.qx[j] + big.qy[j] * big.qy[j] + big.qz[j] * big.qz[j] + big.qw[j] * big.qw[j];
        CHECK(fabsf(q2 - 1.0f) < 1e-5f);
        CHECK(fabsf(big.qw[j] - half.qw[j]) < 1e-6f && fabsf(big.tx[j] - half.tx[j]) < 1e-6f);
    }
    stance_pose_destroy(&a), stance_pose_destroy(&b), stance_pose_destroy(&big), stance_pose_destroy(&half);
    stance_pose_destroy(&scratch);
    workload_destroy(&w);
}

/* A compressed clip is sampled on its own into scratch: the same as the
 * three calls; without scratch, a refusal naming the clip. */
static void test_compressed(void) {
    workload w;
    CHECK_OK(workload_create(&w, 17, 1, NULL));
    stance_clip *packed = NULL;
    CHECK_OK(stance_clip_compress(w.clips[1], w.skeleton, NULL, NULL, &packed, NULL));
    CHECK(stance_clip_is_compressed(packed));
    stance_pose scratch, out;
    stance_pose_create(&scratch, 17, NULL, NULL), stance_pose_create(&out, 17, NULL, NULL);
    const float wt[2] = {0.3f, 0.7f};
    stance_cursor ca = {0}, cb = {0};
    for (int f = 0; f < 30; f++) {
        CHECK(same_as_three(w.skeleton, w.clips[0], (float)f / 29.0f, packed, (float)f / 31.0f, wt, 0.0f, &ca, &cb, &scratch));
        CHECK(same_as_three(w.skeleton, packed, (float)f / 29.0f, w.clips[2], (float)f / 31.0f, wt, 0.0f, &cb, &ca, &scratch));
    }
    stance_error err = {0};
    CHECK_STATUS(stance_clip_sample_blend2(&out, w.clips[0], 0.1f, NULL, packed, 0.2f, NULL, wt, 0.0f, NULL, NULL, &err),
                 STANCE_ERR_ARGUMENT);
    CHECK(strstr(err.message, "compressed") && strstr(err.message, "scratch"));
    CHECK_STATUS(stance_clip_sample_blend2(&out, w.clips[0], 0.1f, NULL, packed, 0.2f, NULL, wt, 0.0f, NULL, &out, &err),
                 STANCE_ERR_ARGUMENT);
    /* one weight 0: the compressed clip alone needs no scratch */
    const float only_a[2] = {1.0f, 0.0f};
    CHECK(same_as_three(w.skeleton, packed, 0.4f, w.clips[0], 0.5f, only_a, 0.0f, &ca, &cb, NULL));
    stance_pose_destroy(&scratch), stance_pose_destroy(&out);
    stance_clip_destroy(packed);
    workload_destroy(&w);
}

/* Every refusal: a status and a message naming what is wrong; out untouched. */
static void test_refusals(void) {
    workload w, w2;
    CHECK_OK(workload_create(&w, 9, 1, NULL));
    CHECK_OK(workload_create(&w2, 10, 1, NULL));
    stance_pose out, other;
    stance_pose_create(&out, 9, NULL, NULL), stance_pose_create(&other, 10, NULL, NULL);
    const stance_clip *a = w.clips[0], *b = w.clips[1];
    const float wt[2] = {0.5f, 0.5f}, neg[2] = {0.5f, -1.0f}, nan_w[2] = {NAN, 0.5f}, inf_w[2] = {0.5f, INFINITY};
    const float zero[2] = {0.0f, 0.0f};
    struct { stance_status st; const char *needle; stance_status got; stance_error err; } r[12];
    int n = 0;
#define TRY(status_, needle_, call) do { r[n].st = (status_), r[n].needle = (needle_); memset(&r[n].err, 0, sizeof r[n].err); \
        stance_error *err = &r[n].err; r[n].got = (call); n++; } while (0)
    TRY(STANCE_ERR_ARGUMENT, "out is NULL", stance_clip_sample_blend2(NULL, a, 0, NULL, b, 0, NULL, wt, 0, NULL, NULL, err));
    TRY(STANCE_ERR_ARGUMENT, "clip_a is NULL", stance_clip_sample_blend2(&out, NULL, 0, NULL, b, 0, NULL, wt, 0, NULL, NULL, err));
    TRY(STANCE_ERR_ARGUMENT, "clip_b is NULL", stance_clip_sample_blend2(&out, a, 0, NULL, NULL, 0, NULL, wt, 0, NULL, NULL, err));
    TRY(STANCE_ERR_ARGUMENT, "clip_b 'clip1' has 10 joints", stance_clip_sample_blend2(&out, a, 0, NULL, w2.clips[1], 0, NULL, wt, 0, NULL, NULL, err));
    TRY(STANCE_ERR_ARGUMENT, "has 9 joints, out 10", stance_clip_sample_blend2(&other, a, 0, NULL, w2.clips[1], 0, NULL, wt, 0, NULL, NULL, err));
    TRY(STANCE_ERR_VALUE, "time_b", stance_clip_sample_blend2(&out, a, 0, NULL, b, NAN, NULL, wt, 0, NULL, NULL, err));
    TRY(STANCE_ERR_ARGUMENT, "weights is NULL", stance_clip_sample_blend2(&out, a, 0, NULL, b, 0, NULL, NULL, 0, NULL, NULL, err));
    TRY(STANCE_ERR_VALUE, "weights[1]", stance_clip_sample_blend2(&out, a, 0, NULL, b, 0, NULL, neg, 0, NULL, NULL, err));
    TRY(STANCE_ERR_VALUE, "weights[0]", stance_clip_sample_blend2(&out, a, 0, NULL, b, 0, NULL, nan_w, 0, NULL, NULL, err));
    TRY(STANCE_ERR_VALUE, "weights[1]", stance_clip_sample_blend2(&out, a, 0, NULL, b, 0, NULL, inf_w, 0, NULL, NULL, err));
    TRY(STANCE_ERR_VALUE, "threshold", stance_clip_sample_blend2(&out, a, 0, NULL, b, 0, NULL, wt, -1.0f, NULL, NULL, err));
    TRY(STANCE_ERR_ARGUMENT, "rest pose", stance_clip_sample_blend2(&out, a, 0, NULL, b, 0, NULL, zero, 0, w2.skeleton, NULL, err));
#undef TRY
    for (int i = 0; i < n; i++) {
        CHECK(r[i].got == r[i].st && r[i].err.status == r[i].st);
        if (!strstr(r[i].err.message, r[i].needle)) {
            fprintf(stderr, "refusal %d: '%s' lacks '%s'\n", i, r[i].err.message, r[i].needle);
            CHECK(0);
        }
    }
    stance_pose_destroy(&out), stance_pose_destroy(&other);
    workload_destroy(&w), workload_destroy(&w2);
}

int main(void) {
    RUN(test_workload_clips);
    RUN(test_channel_mixes);
    RUN(test_weights);
    RUN(test_compressed);
    RUN(test_refusals);
    return check_summary();
}
