/* tests/test_footlock.c - foot contacts and foot locking: contacts from
 * events (exact intervals, wrapping) and from the motion (the built-in
 * walk's authored plants), a planted foot that stays put in the world while
 * the root moves, the pelvis drop against its closed form, a release and a
 * re-plant without a pop, uneven ground from the callback, bad and
 * degenerate input, no allocation per frame, and the goals of issue 15 on
 * the built-in walk and run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stance/build.h"
#include "stance/stance.h"
#include "stance_lesson/stance_lesson.h"
#include "core/base/platform.h" /* st_aligned_alloc / st_aligned_free */
#include "heap_use.h"

/* root (0), pelvis (1) 0.95 up, hip (2), knee (3) 0.45 below, ankle (4)
 * 0.45 below the knee; a static clip with the knee bent 0.3 rad (the shin
 * swings forward, +Z). */
enum { ROOT, PELVIS, HIP, KNEE, ANKLE, JOINTS };
static const float BEND = 0.3f;

typedef struct scene {
    stance_skeleton *sk;
    stance_clip *clip;
    stance_pose local, model;
    stance_footlock_desc fd;
    stance_footlock_state st;
} scene;

static void scene_make(scene *s, float thigh, float shin) {
    memset(s, 0, sizeof *s);
    const int parents[JOINTS] = {-1, 0, 1, 2, 3};
    stance_transform rest[JOINTS];
    for (int i = 0; i < JOINTS; i++) rest[i] = stance_transform_identity();
    rest[PELVIS].t[1] = 0.95f, rest[HIP].t[0] = 0.1f, rest[KNEE].t[1] = -thigh, rest[ANKLE].t[1] = -shin;
    rest[KNEE].r[0] = -sinf(BEND / 2), rest[KNEE].r[3] = cosf(BEND / 2);
    stance_skeleton_desc sd = {JOINTS, NULL, parents, rest};
    CHECK_OK(stance_skeleton_create(&sd, NULL, &s->sk, NULL));
    float times[1] = {0.0f};
    float rot[4] = {rest[KNEE].r[0], 0, 0, rest[KNEE].r[3]};
    stance_track_desc tr = {KNEE, STANCE_CHANNEL_ROTATION, 1, times, rot};
    stance_clip_desc cd = {.name = "stand", .duration = 1.0f, .track_count = 1, .tracks = &tr};
    CHECK_OK(stance_clip_create(&cd, s->sk, NULL, &s->clip, NULL));
    stance_pose_create(&s->local, JOINTS, NULL, NULL), stance_pose_create(&s->model, JOINTS, NULL, NULL);
    s->fd.leg_count = 1;
    s->fd.plant_time = 1e-6f; /* shorter than a frame: a foot locks at once */
    s->fd.legs[0].upper = HIP, s->fd.legs[0].lower = KNEE, s->fd.legs[0].foot = ANKLE;
}
static void scene_free(scene *s) {
    stance_pose_destroy(&s->local), stance_pose_destroy(&s->model);
    stance_clip_destroy(s->clip), stance_skeleton_destroy(s->sk);
}
/* one frame: the clip's pose, the root at z = root_z, locking applied */
static stance_status frame(scene *s, float root_z, float contact, float dt) {
    stance_clip_sample(s->clip, 0.0f, NULL, &s->local, NULL);
    stance_local_to_model(&s->model, &s->local, s->sk, NULL, NULL);
    stance_transform root = stance_transform_identity();
    root.t[2] = root_z;
    return stance_footlock_apply(&s->fd, &s->st, &contact, &root, dt, s->sk, &s->local, &s->model, NULL);
}
static double dist3(const float *a, const float *b) {
    double x = a[0] - b[0], y = a[1] - b[1], z = a[2] - b[2];
    return sqrt(x * x + y * y + z * z);
}
static int finite_pose(const stance_pose *p) {
    for (int j = 0; j < p->joint_count; j++)
        if (!isfinite(p->tx[j]) || !isfinite(p->ty[j]) || !isfinite(p->tz[j]) || !isfinite(p->qx[j]) || !isfinite(p->qw[j])) return 0;
    return 1;
}

static const float DT = 1.0f / 60.0f;
/* the clip's ankle in its model space, from the geometry */
static const double ANKLE_Y = 0.95 - 0.45 - 0.45 * 0.955336489125606, ANKLE_Z = 0.45 * 0.29552020666134;

static void test_planted_foot_stays_in_the_world(void) {
    scene s;
    scene_make(&s, 0.45f, 0.45f);
    float start[3];
    for (int f = 0; f <= 6; f++) { /* the root walks 0.1 m; the foot is held */
        CHECK_OK(frame(&s, (float)f * DT, 1.0f, f ? DT : 0.0f));
        if (f == 0) {
            memcpy(start, s.st.feet[0].out, sizeof start);
            CHECK_NEAR(start[1], ANKLE_Y, 1e-5);
            CHECK_NEAR(start[2], ANKLE_Z, 1e-5);
        }
        CHECK(dist3(s.st.feet[0].out, start) < 1e-4);
        /* and the model pose says the same: ankle + root = start */
        CHECK_NEAR(s.model.tz[ANKLE] + (float)f * DT, start[2], 1e-4);
    }
    CHECK(s.st.pelvis_drop == 0.0f);
    CHECK(finite_pose(&s.local));
    scene_free(&s);
}

static void test_pelvis_drops_when_the_leg_cannot_reach(void) {
    scene s;
    scene_make(&s, 0.45f, 0.45f);
    CHECK_OK(frame(&s, 0.0f, 1.0f, 0.0f));
    float start[3];
    memcpy(start, s.st.feet[0].out, sizeof start);
    CHECK_OK(frame(&s, 0.4f, 1.0f, DT)); /* the root jumps 0.4 m ahead: the foot is far behind */
    /* closed form: hip at (0.1, 0.95, 0.4) must come within R of the foot:
     * the soft limit's start, 0.9 (1 - 0.02), or the clip's own hip-ankle
     * distance where that is longer (it is: the knee is bent only 0.3 rad) */
    const double clip_d = sqrt((0.95 - ANKLE_Y) * (0.95 - ANKLE_Y) + ANKLE_Z * ANKLE_Z);
    const double R = clip_d > 0.9 * 0.98 ? clip_d : 0.9 * 0.98, h = 0.4 - ANKLE_Z, dy = 0.95 - ANKLE_Y;
    const double want = dy - sqrt(R * R - h * h);
    CHECK(want > 0.02);
    CHECK_NEAR(s.st.pelvis_drop, want, 1e-4);
    CHECK_NEAR(s.model.ty[PELVIS], 0.95 - want, 1e-4);
    CHECK(dist3(s.st.feet[0].out, start) < 1e-3); /* and the foot stays */
    scene_free(&s);
}

static void test_release_and_replant_without_pop(void) {
    scene s;
    scene_make(&s, 0.45f, 0.45f);
    float z = 0.0f, prev[3];
    int f = 0;
    for (; f <= 6; f++, z += DT) CHECK_OK(frame(&s, z, 1.0f, f ? DT : 0.0f));
    memcpy(prev, s.st.feet[0].out, sizeof prev);
    /* release: the foot goes back to the animation (7 frames ahead: the root
     * moved while it was held) over 0.2 s */
    const double offset = 7.0 * DT;
    double worst = 0.0;
    for (int k = 0; k < 20; k++, f++, z += DT) {
        CHECK_OK(frame(&s, z, 0.0f, DT));
        double step = dist3(s.st.feet[0].out, prev);
        if (step > worst) worst = step;
        memcpy(prev, s.st.feet[0].out, sizeof prev);
    }
    /* a release at once would jump by the offset; the blend moves at most the
     * smoothstep's peak rate (1.5 x offset / 0.2 s) plus the root's 1 m/s */
    CHECK(worst < (1.5 * offset / 0.2 + 1.0) * DT + 1e-4);
    CHECK(worst > DT * 0.9);
    CHECK_NEAR(s.st.feet[0].out[2], z - DT + ANKLE_Z, 1e-4); /* back on the animation */
    /* re-plant in the middle of a release: it locks where the foot is */
    for (int k = 0; k < 6; k++, f++, z += DT) CHECK_OK(frame(&s, z, 1.0f, DT));
    memcpy(prev, s.st.feet[0].out, sizeof prev);
    for (int k = 0; k < 5; k++, f++, z += DT) CHECK_OK(frame(&s, z, 0.0f, DT)); /* release, 5 frames */
    memcpy(prev, s.st.feet[0].out, sizeof prev);
    CHECK_OK(frame(&s, z, 1.0f, DT)); /* plant again while blending */
    double step = dist3(s.st.feet[0].out, prev);
    CHECK(step < (1.5 * offset / 0.2 + 1.0) * DT + 1e-4);
    float lock[3];
    memcpy(lock, s.st.feet[0].out, sizeof lock);
    z += DT;
    CHECK_OK(frame(&s, z, 1.0f, DT));
    CHECK(dist3(s.st.feet[0].out, lock) < 1e-4);
    scene_free(&s);
}

/* plant_time: the foot slows into its lock with a smoothstep instead of
 * stopping dead; the root moves at 1 m/s, the clip's foot with it */
static void test_plant_blend(void) {
    scene s;
    scene_make(&s, 0.45f, 0.45f);
    s.fd.plant_time = 0.1f; /* 6 frames */
    CHECK_OK(frame(&s, 0.0f, 0.0f, 0.0f)); /* free */
    float prev[3];
    memcpy(prev, s.st.feet[0].out, sizeof prev);
    double last = 1.0, travelled = 0.0;
    for (int f = 1; f <= 12; f++) {
        CHECK_OK(frame(&s, (float)f * DT, 1.0f, DT)); /* planted from frame 1 */
        double step = dist3(s.st.feet[0].out, prev);
        memcpy(prev, s.st.feet[0].out, sizeof prev);
        /* the lock is where the foot was on the plant frame; after that, the
         * foot moves (1 - smoothstep(p)) of the root's step, p = k / 6 */
        if (f >= 2) {
            double p = (f - 1) / 6.0, sm = p >= 1 ? 1 : p * p * (3 - 2 * p);
            CHECK_NEAR(step, (1.0 - sm) * DT, 1e-5);
            CHECK(step <= last + 1e-7);
            last = step;
            travelled += step;
        } else {
            CHECK_NEAR(step, DT, 1e-5); /* the plant frame itself follows the animation */
        }
    }
    CHECK(last < 1e-6 && travelled > 0.5 * 6 * DT * 0.5);
    scene_free(&s);
}

/* one frame with the clip's leg carried pelvis_z along +Z in model space */
static stance_status frame_moved(scene *s, float root_z, float pelvis_z, float contact, float dt) {
    stance_clip_sample(s->clip, 0.0f, NULL, &s->local, NULL);
    s->local.tz[PELVIS] += pelvis_z;
    stance_local_to_model(&s->model, &s->local, s->sk, NULL, NULL);
    stance_transform root = stance_transform_identity();
    root.t[2] = root_z;
    return stance_footlock_apply(&s->fd, &s->st, &contact, &root, dt, s->sk, &s->local, &s->model, NULL);
}

/* Issue 22: a contact blended from several clips holds a foot only while
 * the foot's own world motion agrees. The leg (0.9 long) stands planted;
 * then the root moves at r m/s and the animation carries the leg at m m/s
 * in model space, so the animation's foot (and hip) moves at r + m in the
 * world. A split vote (0 < contact < 1) releases it once it moves forward
 * faster than max(the body's r, 0.1 x 0.9 = 0.09) m/s (the body still:
 * at any speed above 0.09). A blended lock (desc.blended) also goes once
 * the hip is further from it than the clip's own hip-ankle distance (the
 * soft limit R here): the hip, ANKLE_Z behind the foot at the plant, is
 * that far past it after 2 x ANKLE_Z of travel. One clip's contact is
 * trusted until no pelvis drop brings the lock within R: the hip R +
 * ANKLE_Z on; until then the pelvis drop reaches it. */
static void test_blended_contacts_release(void) {
    static const struct { float r, m, contact; int blended; } cases[8] = {
        {0.0f, 0.5f, 0.75f, 1}, {0.0f, 0.5f, 1.0f, 0}, {0.5f, -0.1f, 0.75f, 1}, {0.5f, -0.5f, 0.75f, 1},
        {0.5f, 0.1f, 0.75f, 1}, {0.5f, 0.1f, 1.0f, 0}, {0.0f, 0.5f, 1.0f, 1}, {0.0f, 0.05f, 0.75f, 1}};
    const double clip_d = sqrt((0.95 - ANKLE_Y) * (0.95 - ANKLE_Y) + ANKLE_Z * ANKLE_Z), R = clip_d > 0.9 * 0.98 ? clip_d : 0.9 * 0.98;
    for (int c = 0; c < 8; c++) {
        scene s;
        scene_make(&s, 0.45f, 0.45f);
        const double r = cases[c].r, m = cases[c].m, w = r + m;
        s.fd.blended = cases[c].blended ? 1u : 0u;
        int first_free = -1, f = 0;
        float lock[3] = {0, 0, 0};
        for (; f <= 400 && first_free < 0; f++) {
            const float t = (float)f * DT;
            CHECK_OK(frame_moved(&s, (float)(r * t), (float)(m * t), cases[c].contact, f ? DT : 0.0f));
            if (f == 0) memcpy(lock, s.st.feet[0].out, sizeof lock);
            if (s.st.feet[0].planted) CHECK(dist3(s.st.feet[0].out, lock) < 1e-4);
            else first_free = f;
        }
        CHECK(finite_pose(&s.local) && finite_pose(&s.model));
        /* the velocities: the animation's foot in the world (the root's motion counted once) and the root's */
        CHECK_NEAR(s.st.feet[0].velocity[2], w, 1e-3);
        CHECK_NEAR(s.st.root_velocity[2], r, 1e-3);
        CHECK(s.st.feet[0].velocity[0] == 0.0f && s.st.root_velocity[0] == 0.0f);
        const int split = cases[c].contact < 1.0f;
        int want;
        if (!cases[c].blended) want = (int)ceil((R + ANKLE_Z) / (w * DT));
        else if (split && (r > 0.0 ? w : fabs(w)) > (r > 0.09 ? r : 0.09)) want = 1;
        else if (w > 0.0) want = (int)ceil(2.0 * ANKLE_Z / (w * DT));
        else want = -1;
        printf("  root %.2f, leg %+.2f m/s, contact %.2f%s: released at frame %d (wanted %d)\n", r, m, (double)cases[c].contact,
               cases[c].blended ? " blended" : "", first_free, want);
        CHECK(first_free == want);
        if (c == 0) { /* released by its motion: held off while the release blends (0.2 s), then still moving */
            for (int k = 0; k < 30; k++, f++) {
                CHECK_OK(frame_moved(&s, 0.0f, (float)(m * f * DT), cases[c].contact, DT));
                CHECK(!s.st.feet[0].planted);
            }
        }
        scene_free(&s);
    }
}

static float slope(void *user, float x, float z) {
    (void)x;
    return *(const float *)user * z;
}
static float bad_ground(void *user, float x, float z) {
    (void)user, (void)x, (void)z;
    return NAN;
}

static void test_uneven_ground(void) {
    scene s;
    scene_make(&s, 0.45f, 0.45f);
    float k = 0.2f;
    s.fd.ground = slope, s.fd.ground_user = &k;
    /* free foot: its height above the root's ground is kept above the ground under it */
    CHECK_OK(frame(&s, 0.0f, 0.0f, 0.0f));
    CHECK_NEAR(s.st.feet[0].out[1], 0.2 * ANKLE_Z + ANKLE_Y, 1e-4);
    /* planted: the lock's ground, while the root moves on */
    CHECK_OK(frame(&s, 0.0f, 1.0f, DT));
    for (int f = 1; f <= 5; f++) CHECK_OK(frame(&s, (float)f * DT, 1.0f, DT));
    CHECK_NEAR(s.st.feet[0].out[1], 0.2 * ANKLE_Z + ANKLE_Y, 1e-4);
    CHECK_NEAR(s.st.feet[0].out[2], ANKLE_Z, 1e-4);
    /* a ground that answers NaN reads as flat: never a NaN pose */
    s.fd.ground = bad_ground;
    CHECK_OK(frame(&s, 0.2f, 1.0f, DT));
    CHECK(finite_pose(&s.local) && finite_pose(&s.model));
    scene_free(&s);
}

static void test_bad_and_degenerate_input(void) {
    scene s;
    scene_make(&s, 0.45f, 0.45f);
    stance_clip_sample(s.clip, 0.0f, NULL, &s.local, NULL);
    stance_local_to_model(&s.model, &s.local, s.sk, NULL, NULL);
    stance_transform root = stance_transform_identity();
    float c = 1.0f, bad_c = 2.0f, nan_c = NAN;
    stance_error err;
    CHECK_STATUS(stance_footlock_apply(&s.fd, &s.st, &bad_c, &root, DT, s.sk, &s.local, &s.model, &err), STANCE_ERR_VALUE);
    CHECK_STATUS(stance_footlock_apply(&s.fd, &s.st, &nan_c, &root, DT, s.sk, &s.local, &s.model, &err), STANCE_ERR_VALUE);
    CHECK_STATUS(stance_footlock_apply(&s.fd, &s.st, &c, &root, -1.0f, s.sk, &s.local, &s.model, &err), STANCE_ERR_VALUE);
    root.t[0] = NAN;
    CHECK_STATUS(stance_footlock_apply(&s.fd, &s.st, &c, &root, DT, s.sk, &s.local, &s.model, &err), STANCE_ERR_VALUE);
    root = stance_transform_identity();
    root.r[3] = 0.0f; /* a zero rotation */
    CHECK_STATUS(stance_footlock_apply(&s.fd, &s.st, &c, &root, DT, s.sk, &s.local, &s.model, &err), STANCE_ERR_VALUE);
    root = stance_transform_identity();
    stance_footlock_desc bad = s.fd;
    bad.legs[0].lower = ROOT; /* the knee above the hip */
    CHECK_STATUS(stance_footlock_apply(&bad, &s.st, &c, &root, DT, s.sk, &s.local, &s.model, &err), STANCE_ERR_ARGUMENT);
    bad = s.fd;
    bad.leg_count = 2, bad.legs[1] = bad.legs[0]; /* two legs sharing joints */
    float c2[2] = {1, 1};
    CHECK_STATUS(stance_footlock_apply(&bad, &s.st, c2, &root, DT, s.sk, &s.local, &s.model, &err), STANCE_ERR_ARGUMENT);
    bad = s.fd;
    bad.release_speed = NAN;
    CHECK_STATUS(stance_footlock_apply(&bad, &s.st, &c, &root, DT, s.sk, &s.local, &s.model, &err), STANCE_ERR_VALUE);
    bad.release_speed = -1.0f;
    CHECK_STATUS(stance_footlock_apply(&bad, &s.st, &c, &root, DT, s.sk, &s.local, &s.model, &err), STANCE_ERR_VALUE);
    bad = s.fd;
    bad.pelvis = KNEE; /* inside the leg */
    CHECK_STATUS(stance_footlock_apply(&bad, &s.st, &c, &root, DT, s.sk, &s.local, &s.model, &err), STANCE_ERR_ARGUMENT);
    CHECK(!s.st.started); /* refused calls leave the state alone */
    /* a rotated, scaled root still holds the foot in the world */
    root.r[1] = sinf(0.4f), root.r[3] = cosf(0.4f);
    root.s[0] = root.s[1] = root.s[2] = 2.0f;
    CHECK_OK(stance_footlock_apply(&s.fd, &s.st, &c, &root, 0.0f, s.sk, &s.local, &s.model, &err));
    float start[3];
    memcpy(start, s.st.feet[0].out, sizeof start);
    root.t[0] = 0.05f;
    stance_clip_sample(s.clip, 0.0f, NULL, &s.local, NULL);
    stance_local_to_model(&s.model, &s.local, s.sk, NULL, NULL);
    CHECK_OK(stance_footlock_apply(&s.fd, &s.st, &c, &root, DT, s.sk, &s.local, &s.model, &err));
    CHECK(dist3(s.st.feet[0].out, start) < 2e-4);
    scene_free(&s);
    /* zero-length bones: defined, no NaN */
    scene z;
    scene_make(&z, 0.0f, 0.45f);
    for (int f = 0; f < 5; f++) CHECK_OK(frame(&z, (float)f * 0.1f, 1.0f, DT));
    CHECK(finite_pose(&z.local) && finite_pose(&z.model) && isfinite(z.st.pelvis_drop));
    scene_free(&z);
}

/* ---- contacts ------------------------------------------------------------ */

static void test_contacts_from_events(void) {
    scene s;
    scene_make(&s, 0.45f, 0.45f);
    float times[1] = {0.0f};
    float rot[4] = {0, 0, 0, 1};
    stance_track_desc tr = {KNEE, STANCE_CHANNEL_ROTATION, 1, times, rot};
    stance_event_desc ev[4] = {{"footdown_l", 0.2f}, {"footup_l", 0.6f}, {"footdown_r", 0.7f}, {"footup_r", 0.3f}};
    stance_clip_desc cd = {.name = "steps", .duration = 1.0f, .track_count = 1, .tracks = &tr, .event_count = 4, .events = ev};
    stance_clip *clip;
    CHECK_OK(stance_clip_create(&cd, s.sk, NULL, &clip, NULL));
    const int feet[2] = {ANKLE, ANKLE};
    const char *down[2] = {"footdown_l", "footdown_r"}, *up[2] = {"footup_l", "footup_r"};
    stance_contact_desc d = {.foot_count = 2, .feet = feet, .down_events = down, .up_events = up};
    stance_contacts *c = NULL;
    CHECK_OK(stance_contacts_create(&d, clip, s.sk, NULL, &c, NULL));
    CHECK(c && c->from_events && c->sample_count == 61);
    for (int i = 0; i < c->sample_count; i++) {
        float t = (float)i / 60.0f;
        CHECK(c->planted[i] == (t >= 0.2f && t < 0.6f));
        CHECK(c->planted[c->sample_count + i] == (t >= 0.7f || t < 0.3f)); /* across the loop */
    }
    CHECK(stance_contacts_planted(c, 0, 0.4f) == 1 && stance_contacts_planted(c, 0, 0.1f) == 0);
    CHECK(stance_contacts_planted(c, 1, 0.95f) == 1 && stance_contacts_planted(c, 5, 0.95f) == 0);
    stance_contacts_destroy(c);
    const char *missing[2] = {"footdown_l", "nope"};
    d.down_events = missing;
    stance_error err;
    CHECK_STATUS(stance_contacts_create(&d, clip, s.sk, NULL, &c, &err), STANCE_ERR_NOT_FOUND);
    CHECK(c == NULL && strstr(err.message, "nope"));
    d.down_events = down, d.up_events = NULL;
    CHECK_STATUS(stance_contacts_create(&d, clip, s.sk, NULL, &c, &err), STANCE_ERR_ARGUMENT);
    d.up_events = up, d.height = NAN;
    CHECK_STATUS(stance_contacts_create(&d, clip, s.sk, NULL, &c, &err), STANCE_ERR_VALUE);
    stance_clip_destroy(clip);
    scene_free(&s);
}

static void test_contacts_from_motion(void) {
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    const stance_skeleton *sk = b.skeleton;
    const int feet[2] = {stance_skeleton_find(sk, "foot_l"), stance_skeleton_find(sk, "foot_r")};
    const char *names[2] = {"walk", "run"};
    for (int ci = 0; ci < 2; ci++) {
        const stance_clip *clip = stance_builtin_clip(&b, names[ci]);
        stance_contact_desc d = {.foot_count = 2, .feet = feet};
        stance_contacts *c = NULL;
        CHECK_OK(stance_contacts_create(&d, clip, sk, NULL, &c, NULL));
        /* the built-in gaits plant foot_l at its event "foot_l" (t = 0) and
         * foot_r at "foot_r" (half a cycle later) */
        float at_r = -1.0f;
        for (int e = 0; e < clip->event_count; e++)
            if (!strcmp(clip->events[e].name, "foot_r")) at_r = clip->events[e].time;
        CHECK(at_r > 0.0f);
        CHECK(stance_contacts_planted(c, 0, 0.03f) == 1);
        CHECK(stance_contacts_planted(c, 1, at_r + 0.03f) == 1);
        /* duty factor: a walking foot is down more than half the cycle, a running one less */
        for (int k = 0; k < 2; k++) {
            int down = 0;
            for (int i = 0; i < c->sample_count; i++) down += c->planted[k * c->sample_count + i];
            double duty = (double)down / c->sample_count;
            if (ci == 0) CHECK(duty > 0.5 && duty < 0.8);
            else CHECK(duty > 0.1 && duty < 0.5);
        }
        /* in the middle half of each contact, the built-in feet are still in
         * the world: sample the clip independently and move it by its root path */
        stance_pose l, m;
        stance_pose_create(&l, sk->joint_count, NULL, NULL), stance_pose_create(&m, sk->joint_count, NULL, NULL);
        for (int k = 0; k < 2; k++)
            for (int i = 1; i + 1 < c->sample_count; i++) {
                const unsigned char *p = c->planted + k * c->sample_count;
                int a = i, e = i;
                while (a > 0 && p[a - 1]) a--;
                while (e + 1 < c->sample_count && p[e + 1]) e++;
                if (!p[i] || a == 0 || e + 1 == c->sample_count) continue; /* runs cut by the clip's ends: skip */
                const int run = e - a + 1;
                if (i < a + run / 4 || i > e - run / 4) continue;
                float w[2][3];
                for (int h = 0; h < 2; h++) {
                    float t = (float)(i + h) / 60.0f, r[3], r0[3];
                    stance_clip_sample(clip, t, NULL, &l, NULL);
                    stance_local_to_model(&m, &l, sk, NULL, NULL);
                    stance_clip_root_position(clip, t, r, NULL), stance_clip_root_position(clip, 0.0f, r0, NULL);
                    w[h][0] = m.tx[feet[k]] + r[0] - r0[0], w[h][1] = m.ty[feet[k]], w[h][2] = m.tz[feet[k]] + r[2] - r0[2];
                }
                CHECK(dist3(w[0], w[1]) * 60.0 < 0.05); /* < 5 cm/s */
            }
        stance_pose_destroy(&l), stance_pose_destroy(&m);
        stance_contacts_destroy(c);
    }
    stance_builtin_destroy(&b);
}

/* ---- memory ---------------------------------------------------------------- */

typedef struct counter { long allocs, frees, live; } counter;
static void *count_alloc(void *u, size_t size, size_t align) {
    counter *c = u;
    c->allocs++, c->live += (long)size;
    size_t a = align < sizeof(void *) ? sizeof(void *) : align;
    return st_aligned_alloc(a, (size + a - 1) / a * a + a);
}
static void count_free(void *u, void *p, size_t size) {
    counter *c = u;
    c->frees++, c->live -= (long)size;
    st_aligned_free(p);
}

static void test_no_allocation_per_frame(void) {
    counter cnt = {0, 0, 0};
    stance_allocator al = {count_alloc, count_free, &cnt};
    stance_builtin b;
    CHECK_OK(stance_builtin_create(&al, &b, NULL));
    const stance_skeleton *sk = b.skeleton;
    const stance_clip *walk = stance_builtin_clip(&b, "walk");
    const int feet[2] = {stance_skeleton_find(sk, "foot_l"), stance_skeleton_find(sk, "foot_r")};
    stance_contact_desc d = {.foot_count = 2, .feet = feet};
    stance_contacts *c = NULL;
    CHECK_OK(stance_contacts_create(&d, walk, sk, &al, &c, NULL));
    stance_pose l, m;
    stance_pose_create(&l, sk->joint_count, &al, NULL), stance_pose_create(&m, sk->joint_count, &al, NULL);
    stance_footlock_desc fd;
    memset(&fd, 0, sizeof fd);
    fd.leg_count = 2;
    const char *hips[2] = {"upleg_l", "upleg_r"}, *knees[2] = {"leg_l", "leg_r"};
    for (int k = 0; k < 2; k++)
        fd.legs[k].upper = stance_skeleton_find(sk, hips[k]), fd.legs[k].lower = stance_skeleton_find(sk, knees[k]),
        fd.legs[k].foot = feet[k];
    stance_footlock_state st;
    memset(&st, 0, sizeof st);
    const long allocs = cnt.allocs;
    const size_t heap_before = heap_in_use();
    float t = 0.0f;
    for (int f = 0; f < 600; f++) {
        stance_clip_sample(walk, t, NULL, &l, NULL);
        stance_local_to_model(&m, &l, sk, NULL, NULL);
        stance_transform root = stance_transform_identity();
        root.t[2] = walk->root_speed * (float)f / 60.0f;
        float contact[2] = {(float)stance_contacts_planted(c, 0, t), (float)stance_contacts_planted(c, 1, t)};
        CHECK_OK(stance_footlock_apply(&fd, &st, contact, &root, 1.0f / 60.0f, sk, &l, &m, NULL));
        stance_clip_advance(walk, t, 1.0f / 60.0f, 1, &t, NULL, 0, NULL, NULL, NULL);
    }
    const size_t heap_after = heap_in_use();
    CHECK(cnt.allocs == allocs);                   /* nothing through the allocator */
    CHECK(heap_after == heap_before);      /* nor from the heap */
    stance_pose_destroy(&l), stance_pose_destroy(&m);
    stance_contacts_destroy(c);
    stance_builtin_destroy(&b);
    CHECK(cnt.live == 0 && cnt.allocs == cnt.frees);
}

/* ---- the goals: the experiment on the built-in gaits ------------------------- */

static void test_goals_builtin(void) {
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    stance_layer_setup ls;
    CHECK_OK(stance_builtin_layer_setup(&b, &ls, NULL));
    stance_layer_result lr;
    CHECK_OK(stance_layers_run(&ls, &lr, NULL, NULL));
    const char *names[2] = {"walk", "run"};
    for (int i = 0; i < 2; i++) {
        stance_footlock_setup su = {b.skeleton, stance_builtin_clip(&b, names[i]), "foot_l", "foot_r", 0.0f, 0.0f, 0.0f};
        stance_footlock_result r;
        static stance_footlock_frame frames[241];
        CHECK_OK(stance_footlock_run(&su, &r, frames, 241, NULL, NULL));
        printf("  %s: %.3f -> %.3f cm/m, largest angle change %.2f deg\n", names[i], (double)r.slide_off, (double)r.slide_on,
               (double)r.max_angle_deg);
        CHECK(r.slide_on < 0.5f);
        CHECK(r.max_angle_deg >= 0.0f && r.max_angle_deg < 30.0f && isfinite(r.max_angle_deg));
        CHECK(r.contacts_found > 0);
        if (i == 0) CHECK_NEAR(r.slide_off, lr.slide_base, 1e-3); /* the same measure as the layer experiment's */
        CHECK_NEAR(frames[240].time, 4.0, 1e-4);
    }
    stance_builtin_destroy(&b);
}

int main(void) {
    RUN(test_planted_foot_stays_in_the_world);
    RUN(test_pelvis_drops_when_the_leg_cannot_reach);
    RUN(test_release_and_replant_without_pop);
    RUN(test_plant_blend);
    RUN(test_blended_contacts_release);
    RUN(test_uneven_ground);
    RUN(test_bad_and_degenerate_input);
    RUN(test_contacts_from_events);
    RUN(test_contacts_from_motion);
    RUN(test_no_allocation_per_frame);
    RUN(test_goals_builtin);
    return check_summary();
}
