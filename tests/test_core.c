/* tests/test_core.c - the runtime core: skeleton, clips, sampling, events,
 * root motion, blending, additive, masks, local-to-model, validation, and
 * no allocation per frame. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include "core/math/qmath.h"
#include "stance/stance.h"
#include "stance_lesson/stance_lesson.h"
#include "workload.h"
#include "core/base/platform.h" /* st_aligned_alloc / st_aligned_free */

/* ---- a counting allocator ------------------------------------------------ */
typedef struct counter { long allocs, frees; long long live; int fail_after; } counter;
static void *count_alloc(void *u, size_t size, size_t align) {
    counter *c = u;
    if (c->fail_after >= 0 && c->allocs >= c->fail_after) return NULL;
    c->allocs++;
    c->live += (long long)size;
    return st_aligned_alloc(align < 8 ? 8 : align, (size + align - 1) / align * align);
}
static void count_free(void *u, void *p, size_t size) {
    counter *c = u;
    c->frees++;
    c->live -= (long long)size;
    st_aligned_free(p);
}

/* A 3-joint chain: root -> a (0,1,0) -> b (0,1,0). */
static stance_skeleton *chain3(const stance_allocator *al) {
    static const char *names[] = {"root", "a", "b"};
    int parents[] = {-1, 0, 1};
    stance_transform rest[3];
    for (int j = 0; j < 3; j++) rest[j] = stance_transform_identity();
    rest[1].t[1] = 1.0f, rest[2].t[1] = 1.0f;
    stance_skeleton_desc d = {3, names, parents, rest};
    stance_skeleton *sk = NULL;
    stance_skeleton_create(&d, al, &sk, NULL);
    return sk;
}

static void quat_axis(float *q, float ax, float ay, float az, float angle) {
    qm_quat r = qm_qaxis(qm_v3(ax, ay, az), angle);
    q[0] = r.x, q[1] = r.y, q[2] = r.z, q[3] = r.w;
}

/* A clip on chain3: joint 1 rotates about Z through keys at 0, 0.5, 1.0 (non
 * uniform with an extra key at 0.2 on joint 2's translation), events at
 * 0, 0.25, 0.75, 1.0. */
static stance_clip *test_clip(const stance_skeleton *sk, const stance_allocator *al) {
    static float rt[3] = {0.0f, 0.5f, 1.0f};
    static float rv[12];
    quat_axis(rv + 0, 0, 0, 1, 0.0f);
    quat_axis(rv + 4, 0, 0, 1, 1.0f);
    quat_axis(rv + 8, 0, 0, 1, 2.0f);
    static float tt[3] = {0.0f, 0.2f, 1.0f};
    static float tv[9] = {0, 1, 0, 0, 2, 0, 0, 1, 0};
    stance_track_desc tracks[2] = {
        {1, STANCE_CHANNEL_ROTATION, 3, rt, rv},
        {2, STANCE_CHANNEL_TRANSLATION, 3, tt, tv},
    };
    stance_event_desc ev[4] = {{"end", 1.0f}, {"quarter", 0.25f}, {"start", 0.0f}, {"threeq", 0.75f}};
    stance_clip_desc d = {.name = "test", .track_count = 2, .tracks = tracks, .event_count = 4, .events = ev};
    stance_clip *c = NULL;
    stance_error err;
    if (stance_clip_create(&d, sk, al, &c, &err)) fprintf(stderr, "test_clip: %s\n", err.message);
    return c;
}

static void test_skeleton(void) {
    stance_skeleton *sk = chain3(NULL);
    CHECK(sk && sk->joint_count == 3 && sk->padded_count == 8);
    CHECK(stance_skeleton_find(sk, "b") == 2);
    CHECK(stance_skeleton_find(sk, "nope") == -1);
    CHECK(!strcmp(stance_skeleton_joint_name(sk, 1), "a"));
    CHECK(!strcmp(stance_skeleton_joint_name(sk, 7), ""));
    CHECK(stance_skeleton_is_descendant(sk, 2, 1) && !stance_skeleton_is_descendant(sk, 0, 1));
    stance_skeleton_destroy(sk);
}

static void test_skeleton_errors(void) {
    stance_skeleton *sk = NULL;
    stance_error err;
    int parents[3] = {-1, 2, 0};
    stance_skeleton_desc d = {3, NULL, parents, NULL};
    CHECK_STATUS(stance_skeleton_create(&d, NULL, &sk, &err), STANCE_ERR_ORDER);
    CHECK(strstr(err.message, "parent") != NULL);
    CHECK(sk == NULL);
    int p2[3] = {-1, 0, 5};
    d.parents = p2;
    CHECK_STATUS(stance_skeleton_create(&d, NULL, &sk, &err), STANCE_ERR_ARGUMENT);
    d.joint_count = 0;
    CHECK_STATUS(stance_skeleton_create(&d, NULL, &sk, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_skeleton_create(NULL, NULL, &sk, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_skeleton_create(&d, NULL, NULL, &err), STANCE_ERR_ARGUMENT);
    int p3[2] = {-1, 0};
    const char *dup[2] = {"x", "x"};
    stance_skeleton_desc d2 = {2, dup, p3, NULL};
    CHECK_STATUS(stance_skeleton_create(&d2, NULL, &sk, &err), STANCE_ERR_ARGUMENT);
    CHECK(strstr(err.message, "both named") != NULL);
    const char *empty[2] = {"x", ""};
    d2.names = empty;
    CHECK_STATUS(stance_skeleton_create(&d2, NULL, &sk, &err), STANCE_ERR_ARGUMENT);
    stance_transform rest[2] = {stance_transform_identity(), stance_transform_identity()};
    rest[1].t[0] = NAN;
    stance_skeleton_desc d3 = {2, NULL, p3, rest};
    CHECK_STATUS(stance_skeleton_create(&d3, NULL, &sk, &err), STANCE_ERR_VALUE);
    rest[1] = stance_transform_identity();
    rest[1].r[3] = 0.0f;
    CHECK_STATUS(stance_skeleton_create(&d3, NULL, &sk, &err), STANCE_ERR_VALUE);
    rest[1].r[3] = INFINITY;
    CHECK_STATUS(stance_skeleton_create(&d3, NULL, &sk, &err), STANCE_ERR_VALUE);
}

static void test_sample_keys_and_between(void) {
    stance_skeleton *sk = chain3(NULL);
    stance_clip *c = test_clip(sk, NULL);
    CHECK(c != NULL);
    if (!c) return;
    CHECK_NEAR(c->duration, 1.0, 1e-7);
    CHECK(c->key_count == 4); /* grid 0, 0.2, 0.5, 1.0 */
    CHECK(c->animated[1] == 2 && c->animated[2] == 1 && c->animated[0] == 0);
    stance_pose p;
    CHECK_OK(stance_pose_create(&p, 3, NULL, NULL));
    stance_cursor cur = {0};
    /* at key times: the keys */
    float times[3] = {0.0f, 0.5f, 1.0f};
    for (int k = 0; k < 3; k++) {
        CHECK_OK(stance_clip_sample(c, times[k], &cur, &p, NULL));
        qm_quat want = qm_qaxis(qm_v3(0, 0, 1), (float)k);
        qm_quat got = qm_q(p.qx[1], p.qy[1], p.qz[1], p.qw[1]);
        CHECK_NEAR(fabsf(qm_qdot(want, got)), 1.0, 1e-6);
    }
    CHECK_OK(stance_clip_sample(c, 0.2f, &cur, &p, NULL));
    CHECK_NEAR(p.ty[2], 2.0, 1e-6);
    /* between: translation linear, rotation nlerp of the keys */
    CHECK_OK(stance_clip_sample(c, 0.1f, &cur, &p, NULL));
    CHECK_NEAR(p.ty[2], 1.5, 1e-5);
    CHECK_OK(stance_clip_sample(c, 0.6f, &cur, &p, NULL));
    CHECK_NEAR(p.ty[2], 2.0 - 0.5, 1e-5);
    qm_quat want = qm_nlerp(qm_qaxis(qm_v3(0, 0, 1), 0.0f), qm_qaxis(qm_v3(0, 0, 1), 1.0f), 0.5f);
    CHECK_OK(stance_clip_sample(c, 0.25f, &cur, &p, NULL));
    /* 0.25 lies in grid interval [0.2, 0.5]; the grid key at 0.2 was made by nlerp of the track */
    qm_quat at02 = qm_nlerp(qm_qaxis(qm_v3(0, 0, 1), 0.0f), qm_qaxis(qm_v3(0, 0, 1), 1.0f), 0.4f);
    qm_quat want2 = qm_nlerp(at02, qm_qaxis(qm_v3(0, 0, 1), 1.0f), (0.25f - 0.2f) / 0.3f);
    CHECK_NEAR(fabsf(qm_qdot(qm_q(p.qx[1], p.qy[1], p.qz[1], p.qw[1]), want2)), 1.0, 1e-6);
    (void)want;
    /* unkeyed joint keeps its rest value */
    CHECK_NEAR(p.ty[1], 1.0, 0);
    /* clamped outside */
    CHECK_OK(stance_clip_sample(c, 5.0f, &cur, &p, NULL));
    CHECK_NEAR(p.ty[2], 1.0, 1e-6);
    CHECK_OK(stance_clip_sample(c, -1.0f, NULL, &p, NULL));
    CHECK_NEAR(p.ty[2], 1.0, 1e-6);
    CHECK_STATUS(stance_clip_sample(c, NAN, &cur, &p, NULL), STANCE_ERR_VALUE);
    CHECK_STATUS(stance_clip_sample(c, INFINITY, &cur, &p, NULL), STANCE_ERR_VALUE);
    stance_pose wrong;
    CHECK_OK(stance_pose_create(&wrong, 4, NULL, NULL));
    CHECK_STATUS(stance_clip_sample(c, 0.0f, &cur, &wrong, NULL), STANCE_ERR_ARGUMENT);
    stance_pose_destroy(&wrong);
    stance_pose_destroy(&p);
    stance_clip_destroy(c);
    stance_skeleton_destroy(sk);
}

static void test_slerp_clip(void) {
    stance_skeleton *sk = chain3(NULL);
    float t[2] = {0.0f, 1.0f}, v[8];
    quat_axis(v, 1, 0, 0, 0.0f);
    quat_axis(v + 4, 1, 0, 0, 2.0f);
    stance_track_desc tr = {1, STANCE_CHANNEL_ROTATION, 2, t, v};
    stance_clip_desc d = {.name = "s", .track_count = 1, .tracks = &tr, .slerp = 1};
    stance_clip *c = NULL;
    CHECK_OK(stance_clip_create(&d, sk, NULL, &c, NULL));
    stance_pose p;
    stance_pose_create(&p, 3, NULL, NULL);
    stance_clip_sample(c, 0.25f, NULL, &p, NULL);
    qm_quat want = qm_qaxis(qm_v3(1, 0, 0), 0.5f); /* slerp is constant speed */
    CHECK_NEAR(fabsf(qm_qdot(qm_q(p.qx[1], p.qy[1], p.qz[1], p.qw[1]), want)), 1.0, 1e-6);
    stance_pose_destroy(&p);
    stance_clip_destroy(c);
    stance_skeleton_destroy(sk);
}

static void test_cursor_forward_cost(void) {
    workload w;
    CHECK_OK(workload_create(&w, 16, 1, NULL));
    stance_pose p;
    stance_pose_create(&p, 16, NULL, NULL);
    stance_cursor cur = {0};
    /* forward playback at 60 Hz over 30 keys/s: at most one key moved per frame */
    int worst = 0;
    for (int f = 0; f < 60; f++) {
        int before = cur.steps;
        stance_clip_sample(w.clips[0], (float)f / 60.0f, &cur, &p, NULL);
        if (cur.steps - before > worst) worst = cur.steps - before;
    }
    CHECK(worst <= 1);
    CHECK(cur.steps <= 30);
    stance_pose_destroy(&p);
    workload_destroy(&w);
    /* a non-uniform grid uses the walking cursor */
    stance_skeleton *sk = chain3(NULL);
    float times[50], vals[150];
    for (int k = 0; k < 50; k++) {
        times[k] = (float)k * (float)k / 2500.0f * 2.0f;
        vals[3 * k] = (float)k, vals[3 * k + 1] = 0, vals[3 * k + 2] = 0;
    }
    stance_track_desc tr = {2, STANCE_CHANNEL_TRANSLATION, 50, times, vals};
    stance_clip_desc d = {.name = "nu", .track_count = 1, .tracks = &tr};
    stance_clip *c = NULL;
    CHECK_OK(stance_clip_create(&d, sk, NULL, &c, NULL));
    CHECK(c && c->key_rate == 0.0f);
    stance_pose_create(&p, 3, NULL, NULL);
    stance_cursor cu = {0};
    int steps_total = 0, max_step = 0;
    for (int f = 0; f <= 200; f++) {
        int b = cu.steps;
        float t = (float)f / 100.0f;
        stance_clip_sample(c, t, &cu, &p, NULL);
        /* value check against the keys: x is the key index interpolated */
        float k = sqrtf(t * 2500.0f / 2.0f);
        if (k > 49) k = 49;
        CHECK_NEAR(p.tx[2], k, 0.02 * k + 1e-3);
        if (cu.steps - b > max_step) max_step = cu.steps - b;
    }
    steps_total = cu.steps;
    CHECK(steps_total <= 49); /* touched each key once going forward */
    CHECK(max_step <= 8);
    /* backward sampling works too */
    stance_clip_sample(c, 0.5f, &cu, &p, NULL);
    CHECK_NEAR(p.tx[2], sqrtf(0.5f * 1250.0f), 0.6);
    stance_pose_destroy(&p);
    stance_clip_destroy(c);
    stance_skeleton_destroy(sk);
}

static void test_quaternions_normalized(void) {
    workload w;
    CHECK_OK(workload_create(&w, 64, 3, NULL));
    float worst = 0;
    for (long f = 0; f < 200; f++) {
        workload_frame(&w, f);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 64; j++) {
                const stance_pose *ps[3] = {&w.chars[i].local[0], &w.chars[i].blended, &w.chars[i].model};
                for (int k = 0; k < 3; k++) {
                    const stance_pose *p = ps[k];
                    float l = sqrtf(p->qx[j] * p->qx[j] + p->qy[j] * p->qy[j] + p->qz[j] * p->qz[j] + p->qw[j] * p->qw[j]);
                    if (fabsf(l - 1.0f) > worst) worst = fabsf(l - 1.0f);
                }
            }
    }
    CHECK(worst < 1e-5f);
    workload_destroy(&w);
}

static void test_workload_check_value(void) {
    workload w;
    CHECK_OK(workload_create(&w, 64, 1000, NULL));
    for (long f = 0; f < 510; f++) workload_frame(&w, f);
    double v = workload_check(&w);
    printf("  workload check value J=64: %.2f (reference 31304.98)\n", v);
    CHECK_NEAR(v, 31304.98, 1.0);
    workload_destroy(&w);
}

static int hit_names(const stance_clip *c, const stance_event_hit *h, int n, char *out, size_t cap) {
    out[0] = 0;
    for (int i = 0; i < n; i++) {
        strncat(out, c->events[h[i].index].name, cap - strlen(out) - 1);
        strncat(out, " ", cap - strlen(out) - 1);
    }
    return n;
}

static void test_events_and_wraps(void) {
    stance_skeleton *sk = chain3(NULL);
    stance_clip *c = test_clip(sk, NULL);
    CHECK(c && c->event_count == 4);
    if (!c) return;
    CHECK(!strcmp(c->events[0].name, "start") && !strcmp(c->events[3].name, "end"));
    stance_event_hit h[64];
    int n, wraps;
    float t;
    char s[512];
    /* small forward step from 0 fires start */
    CHECK_OK(stance_clip_advance(c, 0.0f, 0.1f, 1, &t, h, 64, &n, &wraps, NULL));
    hit_names(c, h, n, s, sizeof s);
    CHECK(!strcmp(s, "start ")); CHECK_NEAR(t, 0.1, 1e-6); CHECK(wraps == 0);
    /* across the wrap: threeq, end (on reaching the end), then the next cycle's start */
    CHECK_OK(stance_clip_advance(c, 0.7f, 0.4f, 1, &t, h, 64, &n, &wraps, NULL));
    hit_names(c, h, n, s, sizeof s);
    CHECK(!strcmp(s, "threeq end start "));
    CHECK_NEAR(t, 0.1, 1e-5);
    CHECK(wraps == 1);
    /* big step: 2.5 loops from 0.5 -> each event once per crossing, in order */
    CHECK_OK(stance_clip_advance(c, 0.5f, 2.5f, 1, &t, h, 64, &n, &wraps, NULL));
    hit_names(c, h, n, s, sizeof s);
    CHECK(!strcmp(s, "threeq end start quarter threeq end start quarter threeq end "));
    CHECK(wraps == 3); CHECK_NEAR(t, 0.0, 1e-5);
    CHECK(h[0].loop == 0 && h[1].loop == 0 && h[2].loop == 1 && h[6].loop == 2);
    /* exactly once: 640 steps of 1/64 s (exact in float) over 10 loops give 10 of each */
    int counts[4] = {0, 0, 0, 0};
    t = 0.0f;
    for (int f = 0; f < 640; f++) {
        CHECK_OK(stance_clip_advance(c, t, 1.0f / 64.0f, 1, &t, h, 64, &n, NULL, NULL));
        for (int i = 0; i < n; i++) counts[h[i].index]++;
    }
    CHECK(counts[0] == 10 && counts[1] == 10 && counts[2] == 10 && counts[3] == 10);
    /* backward across the wrap */
    CHECK_OK(stance_clip_advance(c, 0.3f, -0.6f, 1, &t, h, 64, &n, &wraps, NULL));
    hit_names(c, h, n, s, sizeof s);
    CHECK(!strcmp(s, "quarter start end threeq "));
    CHECK(wraps == -1); CHECK_NEAR(t, 0.7, 1e-5);
    /* clamp: forward to the end fires end once, then nothing */
    CHECK_OK(stance_clip_advance(c, 0.8f, 5.0f, 0, &t, h, 64, &n, &wraps, NULL));
    hit_names(c, h, n, s, sizeof s);
    CHECK(!strcmp(s, "end ")); CHECK_NEAR(t, 1.0, 0); CHECK(wraps == 0);
    CHECK_OK(stance_clip_advance(c, 1.0f, 0.5f, 0, &t, h, 64, &n, &wraps, NULL));
    CHECK(n == 0);
    /* capacity: hits counted beyond capacity, huge steps do not hang */
    CHECK_OK(stance_clip_advance(c, 0.0f, 1e6f, 1, &t, h, 4, &n, &wraps, NULL));
    CHECK(n >= 4 * 999999); CHECK(wraps == 1000000);
    CHECK_STATUS(stance_clip_advance(c, 0.0f, NAN, 1, &t, h, 4, &n, &wraps, NULL), STANCE_ERR_VALUE);
    CHECK_STATUS(stance_clip_advance(c, 0.0f, 0.1f, 1, NULL, h, 4, &n, &wraps, NULL), STANCE_ERR_ARGUMENT);
    stance_clip_destroy(c);
    stance_skeleton_destroy(sk);
}

static void test_root_motion(void) {
    stance_skeleton *sk = chain3(NULL);
    float rt[2] = {0.0f, 2.0f}, rv[6] = {0, 0, 0, 0, 0, 3.0f}; /* 1.5 m/s along z */
    float tt[2] = {0.0f, 2.0f}, tv[6] = {0, 1, 0, 0, 1, 0};
    stance_track_desc tr = {1, STANCE_CHANNEL_TRANSLATION, 2, tt, tv};
    stance_clip_desc d = {.name = "walk", .track_count = 1, .tracks = &tr, .root_key_count = 2, .root_times = rt, .root_values = rv};
    stance_clip *c = NULL;
    CHECK_OK(stance_clip_create(&d, sk, NULL, &c, NULL));
    CHECK_NEAR(c->root_speed, 1.5, 1e-6);
    float m[3];
    CHECK_OK(stance_clip_root_motion(c, 0.5f, 1.0f, 1, m, NULL));
    CHECK_NEAR(m[2], 1.5, 1e-5);
    CHECK_OK(stance_clip_root_motion(c, 1.5f, 1.0f, 1, m, NULL)); /* across the wrap */
    CHECK_NEAR(m[2], 1.5, 1e-5);
    CHECK_OK(stance_clip_root_motion(c, 1.5f, 5.0f, 1, m, NULL)); /* 2.5 loops */
    CHECK_NEAR(m[2], 7.5, 1e-4);
    CHECK_OK(stance_clip_root_motion(c, 0.5f, -1.0f, 1, m, NULL)); /* backward across the wrap */
    CHECK_NEAR(m[2], -1.5, 1e-5);
    CHECK_OK(stance_clip_root_motion(c, 1.5f, 1.0f, 0, m, NULL)); /* clamped */
    CHECK_NEAR(m[2], 0.75, 1e-5);
    stance_clip_destroy(c);
    /* root path from joint 0's translation track */
    float t0v[6] = {0, 0, 0, 2, 0, 0};
    stance_track_desc tr0 = {0, STANCE_CHANNEL_TRANSLATION, 2, tt, t0v};
    stance_clip_desc d0 = {.name = "j0", .track_count = 1, .tracks = &tr0};
    CHECK_OK(stance_clip_create(&d0, sk, NULL, &c, NULL));
    CHECK(c->root_from_joint0 == 1);
    CHECK_OK(stance_clip_root_motion(c, 0.0f, 3.0f, 1, m, NULL));
    CHECK_NEAR(m[0], 3.0, 1e-5);
    stance_clip_destroy(c);
    stance_skeleton_destroy(sk);
}

static void test_clip_errors(void) {
    stance_skeleton *sk = chain3(NULL);
    stance_clip *c = NULL;
    stance_error err;
    float t[3] = {0.0f, 0.5f, 0.4f}, v[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    stance_track_desc tr = {1, STANCE_CHANNEL_ROTATION, 3, t, v};
    stance_clip_desc d = {.name = "bad", .track_count = 1, .tracks = &tr};
    CHECK_STATUS(stance_clip_create(&d, sk, NULL, &c, &err), STANCE_ERR_ORDER);
    CHECK(strstr(err.message, "bad") && strstr(err.message, "key 2"));
    t[2] = 1.0f;
    v[5] = NAN;
    CHECK_STATUS(stance_clip_create(&d, sk, NULL, &c, &err), STANCE_ERR_VALUE);
    v[5] = 0.0f, v[7] = 0.0f; /* zero quaternion */
    CHECK_STATUS(stance_clip_create(&d, sk, NULL, &c, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "normalized") != NULL);
    v[7] = 1.0f;
    t[0] = -INFINITY;
    CHECK_STATUS(stance_clip_create(&d, sk, NULL, &c, &err), STANCE_ERR_VALUE);
    t[0] = 0.0f;
    tr.joint = 3;
    CHECK_STATUS(stance_clip_create(&d, sk, NULL, &c, &err), STANCE_ERR_ARGUMENT);
    tr.joint = 1;
    tr.key_count = 0;
    CHECK_STATUS(stance_clip_create(&d, sk, NULL, &c, &err), STANCE_ERR_ARGUMENT);
    tr.key_count = 3;
    tr.channel = (stance_channel)7;
    CHECK_STATUS(stance_clip_create(&d, sk, NULL, &c, &err), STANCE_ERR_ARGUMENT);
    tr.channel = STANCE_CHANNEL_ROTATION;
    stance_track_desc two[2] = {tr, tr};
    d.tracks = two, d.track_count = 2;
    CHECK_STATUS(stance_clip_create(&d, sk, NULL, &c, &err), STANCE_ERR_ARGUMENT);
    CHECK(strstr(err.message, "two rotation tracks") != NULL);
    d.tracks = &tr, d.track_count = 1;
    d.name = "";
    CHECK_STATUS(stance_clip_create(&d, sk, NULL, &c, &err), STANCE_ERR_ARGUMENT);
    d.name = "ok";
    stance_event_desc ev = {"late", 2.0f};
    d.event_count = 1, d.events = &ev;
    CHECK_STATUS(stance_clip_create(&d, sk, NULL, &c, &err), STANCE_ERR_VALUE);
    d.event_count = 0;
    d.duration = NAN;
    CHECK_STATUS(stance_clip_create(&d, sk, NULL, &c, &err), STANCE_ERR_VALUE);
    d.duration = 0.0f;
    float t1[1] = {0.0f};
    stance_track_desc one = {1, STANCE_CHANNEL_ROTATION, 1, t1, v};
    d.tracks = &one;
    CHECK_STATUS(stance_clip_create(&d, sk, NULL, &c, &err), STANCE_ERR_VALUE); /* zero duration */
    d.root_speed = -1.0f;
    CHECK_STATUS(stance_clip_create(&d, sk, NULL, &c, &err), STANCE_ERR_VALUE);
    CHECK(c == NULL);
    CHECK_STATUS(stance_clip_create(NULL, sk, NULL, &c, &err), STANCE_ERR_ARGUMENT);
    stance_skeleton_destroy(sk);
}

static void test_local_to_model(void) {
    stance_skeleton *sk = chain3(NULL);
    stance_pose l, m, back;
    stance_pose_create(&l, 3, NULL, NULL);
    stance_pose_create(&m, 3, NULL, NULL);
    stance_pose_create(&back, 3, NULL, NULL);
    stance_pose_set_rest(&l, sk, NULL);
    /* joint a rotated 90 degrees about z: b (0,1,0) below it goes to (-1,0,0) */
    stance_transform ta = sk->rest[1];
    quat_axis(ta.r, 0, 0, 1, (float)M_PI / 2);
    stance_pose_set(&l, 1, &ta, NULL);
    stance_transform tb = sk->rest[2];
    tb.s[0] = 2.0f; /* scale of the last joint does not move it */
    stance_pose_set(&l, 2, &tb, NULL);
    CHECK_OK(stance_local_to_model(&m, &l, sk, NULL, NULL));
    CHECK_NEAR(m.tx[1], 0, 1e-6); CHECK_NEAR(m.ty[1], 1, 1e-6);
    CHECK_NEAR(m.tx[2], -1, 1e-6); CHECK_NEAR(m.ty[2], 1, 1e-6); CHECK_NEAR(m.tz[2], 0, 1e-6);
    /* with a root transform: translate (5,0,0), rotate 180 about y, scale 2 */
    stance_transform root = stance_transform_identity();
    root.t[0] = 5.0f;
    quat_axis(root.r, 0, 1, 0, (float)M_PI);
    root.s[0] = root.s[1] = root.s[2] = 2.0f;
    CHECK_OK(stance_local_to_model(&m, &l, sk, &root, NULL));
    CHECK_NEAR(m.tx[2], 5 + 2, 1e-5); CHECK_NEAR(m.ty[2], 2, 1e-5);
    /* hand chain check with qmath */
    qm_quat qa = qm_qmul(qm_q(root.r[0], root.r[1], root.r[2], root.r[3]), qm_q(ta.r[0], ta.r[1], ta.r[2], ta.r[3]));
    CHECK_NEAR(fabsf(qm_qdot(qa, qm_q(m.qx[1], m.qy[1], m.qz[1], m.qw[1]))), 1.0, 1e-6);
    CHECK_NEAR(m.sx[2], 4.0, 1e-6);
    /* model to local inverts it */
    CHECK_OK(stance_local_to_model(&m, &l, sk, NULL, NULL));
    CHECK_OK(stance_model_to_local(&back, &m, sk, NULL));
    for (int j = 0; j < 3; j++) {
        CHECK_NEAR(back.tx[j], l.tx[j], 1e-5); CHECK_NEAR(back.ty[j], l.ty[j], 1e-5);
        CHECK_NEAR(fabsf(back.qx[j] * l.qx[j] + back.qy[j] * l.qy[j] + back.qz[j] * l.qz[j] + back.qw[j] * l.qw[j]), 1, 1e-5);
    }
    float mats[48];
    CHECK_OK(stance_pose_to_matrices(&m, mats, 3, NULL));
    CHECK_NEAR(mats[32 + 12], -1, 1e-6);
    CHECK_NEAR(mats[16 + 0], 0, 1e-6); CHECK_NEAR(mats[16 + 1], 1, 1e-6); /* x axis of a -> +y */
    CHECK_STATUS(stance_local_to_model(&m, &m, sk, NULL, NULL), STANCE_ERR_ARGUMENT);
    root.t[0] = NAN;
    CHECK_STATUS(stance_local_to_model(&m, &l, sk, &root, NULL), STANCE_ERR_VALUE);
    float dist;
    int at;
    stance_pose_copy(&back, &m, NULL);
    back.tz[2] += 0.25f;
    CHECK_OK(stance_pose_distance(&m, &back, &dist, &at, NULL));
    CHECK_NEAR(dist, 0.25, 1e-6); CHECK(at == 2);
    stance_pose_destroy(&l), stance_pose_destroy(&m), stance_pose_destroy(&back);
    stance_skeleton_destroy(sk);
}

static void test_blend(void) {
    stance_skeleton *sk = chain3(NULL);
    stance_pose a, b, o;
    stance_pose_create(&a, 3, NULL, NULL), stance_pose_create(&b, 3, NULL, NULL), stance_pose_create(&o, 3, NULL, NULL);
    stance_pose_set_rest(&a, sk, NULL), stance_pose_set_rest(&b, sk, NULL);
    stance_transform t = sk->rest[1];
    t.t[0] = 1.0f;
    quat_axis(t.r, 0, 0, 1, 1.0f);
    stance_pose_set(&b, 1, &t, NULL);
    /* b's rotation stored negated must still blend the short way */
    b.qx[1] = -b.qx[1], b.qy[1] = -b.qy[1], b.qz[1] = -b.qz[1], b.qw[1] = -b.qw[1];
    const stance_pose *ps[2] = {&a, &b};
    float w[2] = {3.0f, 1.0f}; /* normalized to 0.75 / 0.25 */
    CHECK_OK(stance_pose_blend(&o, ps, w, 2, 0, sk, NULL));
    CHECK_NEAR(o.tx[1], 0.25, 1e-6);
    qm_quat want = qm_nlerp(qm_qid(), qm_qaxis(qm_v3(0, 0, 1), 1.0f), 0.25f);
    CHECK_NEAR(fabsf(qm_qdot(want, qm_q(o.qx[1], o.qy[1], o.qz[1], o.qw[1]))), 1.0, 1e-6);
    float l = sqrtf(o.qx[1] * o.qx[1] + o.qy[1] * o.qy[1] + o.qz[1] * o.qz[1] + o.qw[1] * o.qw[1]);
    CHECK_NEAR(l, 1.0, 1e-6);
    /* weights below the threshold: rest pose */
    float tiny[2] = {1e-6f, 0.0f};
    o.tx[1] = 9;
    CHECK_OK(stance_pose_blend(&o, ps, tiny, 2, 0, sk, NULL));
    CHECK_NEAR(o.tx[1], 0, 0); CHECK_NEAR(o.ty[1], 1, 0);
    /* single weight = that pose */
    float wb[2] = {0.0f, 2.0f};
    CHECK_OK(stance_pose_blend(&o, ps, wb, 2, 0, sk, NULL));
    CHECK_NEAR(o.tx[1], 1.0, 1e-6);
    float bad[2] = {-1.0f, 1.0f};
    CHECK_STATUS(stance_pose_blend(&o, ps, bad, 2, 0, sk, NULL), STANCE_ERR_VALUE);
    bad[0] = NAN;
    CHECK_STATUS(stance_pose_blend(&o, ps, bad, 2, 0, sk, NULL), STANCE_ERR_VALUE);
    CHECK_STATUS(stance_pose_blend(&o, ps, w, 0, 0, sk, NULL), STANCE_ERR_ARGUMENT);
    /* aliasing the first input is allowed */
    stance_pose_copy(&o, &a, NULL);
    const stance_pose *ps2[2] = {&o, &b};
    CHECK_OK(stance_pose_blend(&o, ps2, w, 2, 0, sk, NULL));
    CHECK_NEAR(o.tx[1], 0.25, 1e-6);
    stance_pose_destroy(&a), stance_pose_destroy(&b), stance_pose_destroy(&o);
    stance_skeleton_destroy(sk);
}

static void test_masked_and_mesh_blend(void) {
    workload w;
    CHECK_OK(workload_create(&w, 13, 2, NULL));
    workload_frame(&w, 7);
    const stance_skeleton *sk = w.skeleton;
    stance_pose *base = &w.chars[0].local[0], *layer = &w.chars[1].local[0];
    stance_pose o, lm, om, bm;
    stance_pose_create(&o, 13, NULL, NULL), stance_pose_create(&lm, 13, NULL, NULL);
    stance_pose_create(&om, 13, NULL, NULL), stance_pose_create(&bm, 13, NULL, NULL);
    float mask[13];
    /* chain 1 starts at joint 4 (chains of 3): joints 4..6 */
    CHECK_OK(stance_mask_subtree(sk, 4, 1.0f, 0, mask, NULL));
    CHECK(mask[4] == 1 && mask[6] == 1 && mask[3] == 0 && mask[7] == 0 && mask[0] == 0);
    CHECK_OK(stance_pose_blend_masked(&o, base, layer, mask, 1.0f, NULL));
    for (int j = 0; j < 13; j++) {
        const stance_pose *want = mask[j] > 0 ? layer : base;
        CHECK(o.qx[j] == want->qx[j] && o.tx[j] == want->tx[j] && o.qw[j] == want->qw[j]);
    }
    /* fractions: translation halfway */
    CHECK_OK(stance_pose_blend_masked(&o, base, layer, mask, 0.5f, NULL));
    CHECK_NEAR(o.tx[5], 0.5 * (base->tx[5] + layer->tx[5]), 1e-6);
    CHECK(o.tx[2] == base->tx[2]);
    /* falloff ramps in */
    CHECK_OK(stance_mask_subtree(sk, 4, 1.0f, 2, mask, NULL));
    CHECK_NEAR(mask[4], 1.0 / 3, 1e-6); CHECK_NEAR(mask[5], 2.0 / 3, 1e-6); CHECK_NEAR(mask[6], 1.0, 1e-6);
    const char *names[2] = {"joint2", "joint9"};
    CHECK_OK(stance_mask_names(sk, names, 2, 0.5f, mask, NULL));
    CHECK(mask[2] == 0.5f && mask[9] == 0.5f && mask[3] == 0.0f);
    const char *bad[1] = {"nope"};
    stance_error err;
    CHECK_STATUS(stance_mask_names(sk, bad, 1, 1.0f, mask, &err), STANCE_ERR_NOT_FOUND);
    CHECK(strstr(err.message, "nope") != NULL);
    float in[13] = {0};
    in[3] = 2.0f;
    CHECK_STATUS(stance_mask_weights(sk, in, mask, NULL), STANCE_ERR_VALUE);
    CHECK_STATUS(stance_mask_subtree(sk, 40, 1.0f, 0, mask, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_mask_subtree(sk, 4, NAN, 0, mask, NULL), STANCE_ERR_VALUE);

    /* mesh space: masked joints keep the layer's model rotation whatever the base does */
    CHECK_OK(stance_mask_subtree(sk, 5, 1.0f, 0, mask, NULL));
    CHECK_OK(stance_local_to_model(&lm, layer, sk, NULL, NULL));
    CHECK_OK(stance_pose_blend_mesh(&o, base, layer, &lm, mask, 1.0f, sk, NULL));
    CHECK_OK(stance_local_to_model(&om, &o, sk, NULL, NULL));
    CHECK_OK(stance_local_to_model(&bm, base, sk, NULL, NULL));
    for (int j = 0; j < 13; j++) {
        qm_quat a = qm_q(om.qx[j], om.qy[j], om.qz[j], om.qw[j]);
        if (mask[j] > 0) {
            qm_quat b = qm_q(lm.qx[j], lm.qy[j], lm.qz[j], lm.qw[j]);
            CHECK(qm_qangle(a, b) < 1e-4f);
        } else {
            qm_quat b = qm_q(bm.qx[j], bm.qy[j], bm.qz[j], bm.qw[j]);
            CHECK(qm_qangle(a, b) < 1e-4f);
        }
    }
    /* weight 0 keeps the base exactly */
    CHECK_OK(stance_pose_blend_mesh(&o, base, layer, &lm, mask, 0.0f, sk, NULL));
    for (int j = 0; j < 13; j++) CHECK(o.qx[j] == base->qx[j] && o.qw[j] == base->qw[j]);
    CHECK_STATUS(stance_pose_blend_mesh(base, base, layer, &lm, mask, 1.0f, sk, NULL), STANCE_ERR_ARGUMENT);
    stance_pose_destroy(&o), stance_pose_destroy(&lm), stance_pose_destroy(&om), stance_pose_destroy(&bm);
    workload_destroy(&w);
}

static void test_additive(void) {
    workload w;
    CHECK_OK(workload_create(&w, 20, 3, NULL));
    workload_frame(&w, 11);
    stance_pose *p = &w.chars[0].local[0], *ref = &w.chars[1].local[0], *other = &w.chars[2].local[1];
    stance_pose d, o, o2;
    stance_pose_create(&d, 20, NULL, NULL), stance_pose_create(&o, 20, NULL, NULL), stance_pose_create(&o2, 20, NULL, NULL);
    /* non-unit scales in the reference to exercise the ratio */
    for (int j = 0; j < 20; j++) ref->sx[j] = 2.0f, p->sy[j] = 3.0f;
    CHECK_OK(stance_pose_additive_make(&d, p, ref, NULL));
    CHECK_OK(stance_pose_additive_apply(&o, ref, &d, NULL, 1.0f, NULL));
    float worst = 0;
    for (int j = 0; j < 20; j++) {
        float e[5] = {o.tx[j] - p->tx[j], o.ty[j] - p->ty[j], o.sx[j] - p->sx[j], o.sy[j] - p->sy[j],
                      1.0f - fabsf(o.qx[j] * p->qx[j] + o.qy[j] * p->qy[j] + o.qz[j] * p->qz[j] + o.qw[j] * p->qw[j])};
        for (int k = 0; k < 5; k++) if (fabsf(e[k]) > worst) worst = fabsf(e[k]);
        float comp[4] = {o.qx[j] - p->qx[j], o.qy[j] - p->qy[j], o.qz[j] - p->qz[j], o.qw[j] - p->qw[j]};
        float compn[4] = {o.qx[j] + p->qx[j], o.qy[j] + p->qy[j], o.qz[j] + p->qz[j], o.qw[j] + p->qw[j]};
        float m1 = 0, m2 = 0;
        for (int k = 0; k < 4; k++) { if (fabsf(comp[k]) > m1) m1 = fabsf(comp[k]); if (fabsf(compn[k]) > m2) m2 = fabsf(compn[k]); }
        if ((m1 < m2 ? m1 : m2) > worst) worst = m1 < m2 ? m1 : m2;
    }
    CHECK(worst < 1e-5f);
    /* weight 0 is the base exactly (up to normalization); weight applies on a different base */
    CHECK_OK(stance_pose_additive_apply(&o, other, &d, NULL, 0.0f, NULL));
    for (int j = 0; j < 20; j++) { CHECK_NEAR(o.tx[j], other->tx[j], 0); CHECK_NEAR(o.qw[j], other->qw[j], 1e-6); }
    CHECK_OK(stance_pose_additive_apply(&o, other, &d, NULL, 1.0f, NULL));
    for (int j = 0; j < 20; j++) {
        qm_quat want = qm_qmul(qm_q(other->qx[j], other->qy[j], other->qz[j], other->qw[j]), qm_q(d.qx[j], d.qy[j], d.qz[j], d.qw[j]));
        CHECK_NEAR(fabsf(qm_qdot(want, qm_q(o.qx[j], o.qy[j], o.qz[j], o.qw[j]))), 1.0, 1e-5);
        CHECK_NEAR(o.tx[j], other->tx[j] + d.tx[j], 1e-6);
    }
    /* half weight is half the angle (nlerp from identity) */
    CHECK_OK(stance_pose_additive_apply(&o2, other, &d, NULL, 0.5f, NULL));
    for (int j = 0; j < 20; j++) {
        float full = qm_qangle(qm_q(other->qx[j], other->qy[j], other->qz[j], other->qw[j]), qm_q(o.qx[j], o.qy[j], o.qz[j], o.qw[j]));
        float half = qm_qangle(qm_q(other->qx[j], other->qy[j], other->qz[j], other->qw[j]), qm_q(o2.qx[j], o2.qy[j], o2.qz[j], o2.qw[j]));
        CHECK(half <= full + 1e-5f && half >= 0.4f * full - 1e-5f);
    }
    CHECK_STATUS(stance_pose_additive_apply(&o, other, &d, NULL, 1.5f, NULL), STANCE_ERR_VALUE);
    stance_pose_destroy(&d), stance_pose_destroy(&o), stance_pose_destroy(&o2);
    workload_destroy(&w);
}

static void test_pose_api_errors(void) {
    stance_pose p;
    _Alignas(64) char buf[4096];
    CHECK_STATUS(stance_pose_init(&p, 3, buf, 10, NULL), STANCE_ERR_MEMORY);
    CHECK_STATUS(stance_pose_init(&p, 3, buf + 4, sizeof buf - 4, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_pose_init(&p, 0, buf, sizeof buf, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_pose_init(&p, 3, NULL, sizeof buf, NULL), STANCE_ERR_ARGUMENT);
    CHECK_OK(stance_pose_init(&p, 3, buf, sizeof buf, NULL));
    CHECK(p.qw[7] == 1.0f && p.sx[5] == 1.0f);
    stance_transform t = stance_transform_identity();
    t.r[0] = 2.0f; /* normalized on set */
    CHECK_OK(stance_pose_set(&p, 1, &t, NULL));
    CHECK_NEAR(p.qx[1], 2.0 / sqrt(5.0), 1e-6);
    t.t[1] = INFINITY;
    CHECK_STATUS(stance_pose_set(&p, 1, &t, NULL), STANCE_ERR_VALUE);
    CHECK_STATUS(stance_pose_set(&p, 3, &t, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_pose_get(&p, -1, &t, NULL), STANCE_ERR_ARGUMENT);
    CHECK(stance_pose_bytes(0) == 0 && stance_pose_bytes(3) == 8 * 10 * 4);
    CHECK(strcmp(stance_status_name(STANCE_ERR_VALUE), "bad value") == 0);
}

static void test_no_allocation_per_frame(void) {
    counter cnt = {0, 0, 0, -1};
    stance_allocator al = {count_alloc, count_free, &cnt};
    stance_builtin b;
    stance_error err;
    CHECK_OK(stance_builtin_create(&al, &b, &err));
    if (b.skeleton == NULL) return;
    int J = b.skeleton->joint_count;
    stance_pose p[4], d;
    for (int i = 0; i < 4; i++) CHECK_OK(stance_pose_create(&p[i], J, &al, NULL));
    CHECK_OK(stance_pose_create(&d, J, &al, NULL));
    float *mask = malloc(sizeof(float) * (size_t)J);
    stance_mask_subtree(b.skeleton, 2, 1.0f, 1, mask, NULL);
    long before = cnt.allocs;
    stance_cursor c[2] = {{0, 0}, {0, 0}};
    float t = 0.0f;
    stance_event_hit hits[8];
    for (int f = 0; f < 300; f++) {
        int n;
        stance_clip_advance(b.clips[1], t, 1.0f / 60, 1, &t, hits, 8, &n, NULL, NULL);
        stance_clip_sample(b.clips[1], t, &c[0], &p[0], NULL);
        stance_clip_sample(b.clips[2], t, &c[1], &p[1], NULL);
        const stance_pose *in[2] = {&p[0], &p[1]};
        float w[2] = {0.4f, 0.6f};
        stance_pose_blend(&p[2], in, w, 2, 0, b.skeleton, NULL);
        stance_pose_blend_masked(&p[2], &p[2], &p[0], mask, 0.5f, NULL);
        stance_pose_additive_make(&d, &p[0], &p[1], NULL);
        stance_pose_additive_apply(&p[2], &p[2], &d, NULL, 0.3f, NULL);
        stance_local_to_model(&p[3], &p[2], b.skeleton, NULL, NULL);
        stance_pose_blend_mesh(&p[0], &p[1], &p[2], &p[3], mask, 0.7f, b.skeleton, NULL);
        float m[3];
        stance_clip_root_motion(b.clips[1], t, 1.0f / 60, 1, m, NULL);
    }
    CHECK(cnt.allocs == before);
    free(mask);
    for (int i = 0; i < 4; i++) stance_pose_destroy(&p[i]);
    stance_pose_destroy(&d);
    stance_builtin_destroy(&b);
    CHECK(cnt.live == 0);
    CHECK(cnt.allocs == cnt.frees);
}

static void test_allocator_failure(void) {
    /* every allocation in skeleton/clip/builtin creation fails cleanly */
    for (int k = 0; k < 40; k++) {
        counter cnt = {0, 0, 0, k};
        stance_allocator al = {count_alloc, count_free, &cnt};
        stance_builtin b;
        stance_error err;
        stance_status s = stance_builtin_create(&al, &b, &err);
        if (s == STANCE_OK) { stance_builtin_destroy(&b); CHECK(cnt.live == 0); break; }
        CHECK(s == STANCE_ERR_MEMORY);
        CHECK(cnt.live == 0);
    }
    counter cnt = {0, 0, 0, 0};
    stance_allocator al = {count_alloc, count_free, &cnt};
    stance_skeleton *sk = chain3(&al);
    CHECK(sk == NULL);
}

int main(void) {
    RUN(test_skeleton);
    RUN(test_skeleton_errors);
    RUN(test_sample_keys_and_between);
    RUN(test_slerp_clip);
    RUN(test_cursor_forward_cost);
    RUN(test_quaternions_normalized);
    RUN(test_workload_check_value);
    RUN(test_events_and_wraps);
    RUN(test_root_motion);
    RUN(test_clip_errors);
    RUN(test_local_to_model);
    RUN(test_blend);
    RUN(test_masked_and_mesh_blend);
    RUN(test_additive);
    RUN(test_pose_api_errors);
    RUN(test_no_allocation_per_frame);
    RUN(test_allocator_failure);
    return check_summary();
}
