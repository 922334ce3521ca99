/* tests/test_retarget_api.c - offline retargeting through the C API
 * (stance/retarget.h, issue 27 items 2 and 4) on the built-in character:
 * the refusals (NULL arguments, a skeleton without legs, a bad blend time,
 * a target carrying a graph) leave the outputs cleared and say why in one
 * message; the built-in character retargeted onto a copy of itself scaled
 * by 1.5 (every rest translation) gives, against the test's own reading of
 * the source (the model pose here), the hips and legs at 1.5 x their source
 * positions relative to the leg sockets and the limbs' model rotations, the
 * leg ratio 1.5, the pelvis ratio 1.5, no direction error; the measures of
 * a clip against itself are zero; with the contacts kept, the output
 * carries the source's contacts as footdown/footup events. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stance/build.h"
#include "stance/retarget.h"
#include "stance/stance.h"
#include "stance_lesson/builtin.h"

/* The built-in skeleton with every rest translation times `scale`. */
static stance_skeleton *scaled(const stance_skeleton *sk, float scale) {
    int n = sk->joint_count;
    stance_transform *rest = malloc(sizeof *rest * (size_t)n);
    const char **names = malloc(sizeof *names * (size_t)n);
    for (int j = 0; j < n; j++) {
        rest[j] = sk->rest[j];
        for (int c = 0; c < 3; c++) rest[j].t[c] *= scale;
        names[j] = stance_skeleton_joint_name(sk, j);
    }
    stance_skeleton_desc d = {n, names, sk->parents, rest};
    stance_skeleton *out = NULL;
    CHECK_OK(stance_skeleton_create(&d, NULL, &out, NULL));
    free(rest), free(names);
    return out;
}

static void test_refusals(void) {
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    const stance_clip *walk = stance_builtin_clip(&b, "walk");
    stance_clip *out = (stance_clip *)&b; /* not NULL: must be cleared */
    stance_error err;
    CHECK_STATUS(stance_retarget_clip(NULL, b.skeleton, b.skeleton, NULL, NULL, &out, &err), STANCE_ERR_ARGUMENT);
    CHECK(out == NULL);
    CHECK_STATUS(stance_retarget_clip(walk, b.skeleton, b.skeleton, NULL, NULL, NULL, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_retarget_clip(walk, NULL, b.skeleton, NULL, NULL, &out, &err), STANCE_ERR_ARGUMENT);
    stance_retarget_desc bad = {0};
    bad.blend_time = -1.0f;
    CHECK_STATUS(stance_retarget_clip(walk, b.skeleton, b.skeleton, &bad, NULL, &out, &err), STANCE_ERR_ARGUMENT);
    CHECK(strstr(err.message, "blend_time") != NULL);
    /* a skeleton without legs */
    int parents[2] = {-1, 0};
    const char *names[2] = {"Hips", "Head"};
    stance_skeleton_desc d = {2, names, parents, NULL};
    stance_skeleton *stick = NULL;
    CHECK_OK(stance_skeleton_create(&d, NULL, &stick, NULL));
    CHECK_STATUS(stance_retarget_clip(walk, b.skeleton, stick, NULL, NULL, &out, &err), STANCE_ERR_NOT_FOUND);
    CHECK(strstr(err.message, "target skeleton has no") != NULL);
    CHECK(out == NULL);
    /* a clip of another skeleton */
    CHECK_STATUS(stance_retarget_clip(walk, stick, b.skeleton, NULL, NULL, &out, &err), STANCE_ERR_NOT_FOUND);
    stance_retarget_report r;
    CHECK_STATUS(stance_retarget_measure(walk, b.skeleton, walk, b.skeleton, NULL, NULL, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_retarget_measure(walk, stick, walk, b.skeleton, NULL, &r, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_retarget_asset(NULL, NULL, NULL, &err), STANCE_ERR_ARGUMENT);
    stance_skeleton_destroy(stick);
    stance_builtin_destroy(&b);
}

static void test_scaled_copy(void) {
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    const stance_skeleton *src = b.skeleton;
    stance_skeleton *big = scaled(src, 1.5f);
    stance_humanoid_map m;
    CHECK_OK(stance_humanoid_map_find(src, NULL, &m, NULL));
    stance_retarget_desc desc = {0};
    desc.free_feet = 1;
    stance_pose sl, sm, tl, tm;
    CHECK_OK(stance_pose_create(&sl, src->joint_count, NULL, NULL));
    CHECK_OK(stance_pose_create(&sm, src->joint_count, NULL, NULL));
    CHECK_OK(stance_pose_create(&tl, big->joint_count, NULL, NULL));
    CHECK_OK(stance_pose_create(&tm, big->joint_count, NULL, NULL));
    int la = m.joint[STANCE_SLOT_LEFT_UPPER_LEG], ra = m.joint[STANCE_SLOT_RIGHT_UPPER_LEG];
    const char *clips[] = {"walk", "run", "wave", "jump"};
    for (int c = 0; c < 4; c++) {
        const stance_clip *clip = stance_builtin_clip(&b, clips[c]);
        stance_clip *out = NULL;
        CHECK_OK(stance_retarget_clip(clip, src, big, &desc, NULL, &out, NULL));
        if (!out) continue;
        CHECK(!strcmp(out->name, clip->name) && out->duration == clip->duration && out->event_count == clip->event_count);
        double worst_pos = 0.0, worst_rot = 0.0;
        for (int f = 0; f < out->key_count; f++) { /* at the output's keys (between them each clip interpolates its own grid) */
            float t = out->times[f];
            CHECK_OK(stance_clip_sample(clip, t, NULL, &sl, NULL));
            CHECK_OK(stance_local_to_model(&sm, &sl, src, NULL, NULL));
            CHECK_OK(stance_clip_sample(out, t, NULL, &tl, NULL));
            CHECK_OK(stance_local_to_model(&tm, &tl, big, NULL, NULL));
            /* relative to the sockets' midpoint (its height is the ground's business) */
            float ms[3] = {0.5f * (sm.tx[la] + sm.tx[ra]), 0.5f * (sm.ty[la] + sm.ty[ra]), 0.5f * (sm.tz[la] + sm.tz[ra])};
            float mt[3] = {0.5f * (tm.tx[la] + tm.tx[ra]), 0.5f * (tm.ty[la] + tm.ty[ra]), 0.5f * (tm.tz[la] + tm.tz[ra])};
            CHECK_NEAR(mt[0], 1.5 * ms[0], 1e-4);
            CHECK_NEAR(mt[2], 1.5 * ms[2], 1e-4);
            for (int i = 0; i < STANCE_HUMANOID_SLOTS; i++) {
                int j = m.joint[i];
                if (j < 0) continue;
                double dx = (tm.tx[j] - mt[0]) - 1.5 * (sm.tx[j] - ms[0]), dy = (tm.ty[j] - mt[1]) - 1.5 * (sm.ty[j] - ms[1]),
                       dz = (tm.tz[j] - mt[2]) - 1.5 * (sm.tz[j] - ms[2]);
                double d = sqrt(dx * dx + dy * dy + dz * dz);
                /* the angle of conj(source) * target, by atan2 (acos of a float
                 * dot product near 1 reads 1e-3 rad for none) */
                double ax = -sm.qx[j], ay = -sm.qy[j], az = -sm.qz[j], aw = sm.qw[j];
                double bx = tm.qx[j], by = tm.qy[j], bz = tm.qz[j], bw = tm.qw[j];
                double rx = aw * bx + ax * bw + ay * bz - az * by, ry = aw * by - ax * bz + ay * bw + az * bx;
                double rz = aw * bz + ax * by - ay * bx + az * bw, rw = aw * bw - ax * bx - ay * by - az * bz;
                double ang = 2.0 * atan2(sqrt(rx * rx + ry * ry + rz * rz), fabs(rw));
                /* positions: the hips and the legs (spine1, kept at rest, shortens
                 * the chord from spine to chest when the source bends it, so the
                 * chest and the arms move a little: their directions are the
                 * report's) */
                if ((i == STANCE_SLOT_HIPS || (i >= STANCE_SLOT_LEFT_UPPER_LEG && i <= STANCE_SLOT_RIGHT_TOES)) && d > worst_pos) worst_pos = d;
                /* the spine's slots span spine1, which the target keeps at
                 * rest, so their rotations take its bend: limbs only */
                if (i >= STANCE_SLOT_LEFT_UPPER_LEG && ang > worst_rot) worst_rot = ang;
            }
        }
        printf("  %s: hips and legs within %.2g m of 1.5 x the source, the limbs' model rotations within %.2g rad\n", clips[c], worst_pos, worst_rot);
        CHECK(worst_pos < 1e-4 && worst_rot < 1e-4);
        stance_retarget_report r;
        CHECK_OK(stance_retarget_measure(clip, src, out, big, &desc, &r, NULL));
        CHECK_NEAR(r.leg_ratio, 1.5, 1e-5);
        CHECK_NEAR(r.pelvis_ratio, 1.5, 1e-3);
        CHECK(r.direction_worst_deg < 0.05f && r.segments > 10 && r.frames > 10);
        CHECK(r.step_deg <= 1.01f * r.source_step_deg + 0.01f);
        /* a clip against itself: nothing to measure */
        CHECK_OK(stance_retarget_measure(clip, src, clip, src, NULL, &r, NULL));
        CHECK(r.direction_worst_deg == 0.0f && r.slide_cm == 0.0f && fabsf(r.pelvis_ratio - 1.0f) < 1e-6f);
        stance_clip_destroy(out);
    }
    /* the asset: the target's clips replaced, a graph refused */
    stance_asset target = {0};
    target.skeleton = scaled(src, 1.5f);
    stance_asset source = {0};
    source.skeleton = b.skeleton;
    source.clip_count = b.clip_count;
    source.clips = b.clips;
    CHECK_OK(stance_retarget_asset(&target, &source, &desc, NULL));
    CHECK(target.clip_count == b.clip_count && target.clips && !strcmp(target.clips[1]->name, b.clips[1]->name));
    stance_asset_destroy(&target);
    stance_pose_destroy(&sl), stance_pose_destroy(&sm), stance_pose_destroy(&tl), stance_pose_destroy(&tm);
    stance_skeleton_destroy(big);
    stance_builtin_destroy(&b);
}

/* How many events named `name` the clip has. */
static int count_events(const stance_clip *c, const char *name) {
    int n = 0;
    for (int e = 0; e < c->event_count; e++) n += !strcmp(c->events[e].name, name);
    return n;
}

/* With the contacts kept (the default), the retargeted walk carries the
 * source's contacts as events: per foot footdown/footup alternating, each
 * footdown where the source's foot is within 7% of the leg of its lowest
 * height (the contacts' 6% and their hysteresis; the test's own reading of
 * the source's model pose); its own events kept. Retargeted again, a clip
 * that carries them keeps them as they are (none added) and takes its
 * contacts from them. free_feet adds none. */
static void test_contact_events(void) {
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    stance_skeleton *big = scaled(b.skeleton, 1.5f);
    const stance_clip *walk = stance_builtin_clip(&b, "walk");
    stance_clip *out = NULL, *back = NULL, *free_out = NULL;
    CHECK_OK(stance_retarget_clip(walk, b.skeleton, big, NULL, NULL, &out, NULL));
    stance_retarget_desc ff = {0};
    ff.free_feet = 1;
    CHECK_OK(stance_retarget_clip(walk, b.skeleton, big, &ff, NULL, &free_out, NULL));
    if (!out || !free_out) goto done;
    CHECK(free_out->event_count == walk->event_count);
    static const char *const down[2] = {"footdown_l", "footdown_r"}, *const up[2] = {"footup_l", "footup_r"};
    stance_humanoid_map m;
    CHECK_OK(stance_humanoid_map_find(b.skeleton, NULL, &m, NULL));
    int feet[2] = {m.joint[STANCE_SLOT_LEFT_FOOT], m.joint[STANCE_SLOT_RIGHT_FOOT]};
    stance_pose l, mp;
    CHECK_OK(stance_pose_create(&l, b.skeleton->joint_count, NULL, NULL));
    CHECK_OK(stance_pose_create(&mp, b.skeleton->joint_count, NULL, NULL));
    float low[2] = {INFINITY, INFINITY}, leg = 0.0f;
    for (int f = 0; f <= 120; f++) {
        CHECK_OK(stance_clip_sample(walk, walk->duration * (float)f / 120.0f, NULL, &l, NULL));
        CHECK_OK(stance_local_to_model(&mp, &l, b.skeleton, NULL, NULL));
        for (int s = 0; s < 2; s++) low[s] = fminf(low[s], mp.ty[feet[s]]);
        if (!f) leg = mp.ty[m.joint[STANCE_SLOT_LEFT_UPPER_LEG]] - mp.ty[feet[0]];
    }
    int total = 0;
    for (int s = 0; s < 2; s++) {
        int nd = count_events(out, down[s]), nu = count_events(out, up[s]), last = -1, alternate = 1, low_ok = 1;
        for (int e = 0; e < out->event_count; e++) {
            int d = !strcmp(out->events[e].name, down[s]), u = !strcmp(out->events[e].name, up[s]);
            if (!d && !u) continue;
            if (last == d) alternate = 0;
            last = d;
            if (d) {
                CHECK_OK(stance_clip_sample(walk, out->events[e].time, NULL, &l, NULL));
                CHECK_OK(stance_local_to_model(&mp, &l, b.skeleton, NULL, NULL));
                low_ok &= mp.ty[feet[s]] - low[s] < 0.07f * leg;
            }
        }
        printf("  foot %d: %d footdown, %d footup events\n", s, nd, nu);
        CHECK(nd >= 1 && nu >= 1 && abs(nd - nu) <= 1 && alternate && low_ok);
        total += nd + nu;
    }
    CHECK(out->event_count == walk->event_count + total);
    for (int e = 0; e < walk->event_count; e++) CHECK(count_events(out, walk->events[e].name) >= count_events(walk, walk->events[e].name));
    CHECK_OK(stance_retarget_clip(out, big, b.skeleton, NULL, NULL, &back, NULL));
    if (back) {
        CHECK(back->event_count == out->event_count);
        for (int e = 0; e < out->event_count && e < back->event_count; e++)
            CHECK(!strcmp(back->events[e].name, out->events[e].name) && back->events[e].time == out->events[e].time);
    }
    stance_pose_destroy(&l), stance_pose_destroy(&mp);
done:
    stance_clip_destroy(out), stance_clip_destroy(back), stance_clip_destroy(free_out);
    stance_skeleton_destroy(big);
    stance_builtin_destroy(&b);
}

/* A clip carries its contacts as events when each foot has a footdown and
 * its downs and ups alternate; a foot planted to the end has no footup (a
 * stance held, RobotExpressive's Punch: the left foot). A standing clip (the
 * rest pose, 1 s: both feet planted throughout by the motion) with
 * footdown_l and footdown_r at 0 and no footup keeps its two events (none
 * added: its contacts are those events); with footdown_l twice in a row
 * (footsteps, no contacts) the retarget finds the contacts from the motion
 * and adds them (a footdown per foot at 0). */
static void test_contact_events_held(void) {
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, NULL));
    stance_skeleton *big = scaled(b.skeleton, 1.5f);
    stance_event_desc held[2] = {{"footdown_l", 0.0f}, {"footdown_r", 0.0f}};
    stance_event_desc steps[3] = {{"footdown_l", 0.0f}, {"footdown_r", 0.0f}, {"footdown_l", 0.5f}};
    stance_clip *c1 = NULL, *c2 = NULL, *o1 = NULL, *o2 = NULL;
    stance_clip_desc cd = {0};
    cd.name = "stand", cd.duration = 1.0f, cd.event_count = 2, cd.events = held;
    CHECK_OK(stance_clip_create(&cd, b.skeleton, NULL, &c1, NULL));
    cd.event_count = 3, cd.events = steps;
    CHECK_OK(stance_clip_create(&cd, b.skeleton, NULL, &c2, NULL));
    if (c1) CHECK_OK(stance_retarget_clip(c1, b.skeleton, big, NULL, NULL, &o1, NULL));
    if (c2) CHECK_OK(stance_retarget_clip(c2, b.skeleton, big, NULL, NULL, &o2, NULL));
    if (o1) {
        printf("  held: %d events (source 2)\n", o1->event_count);
        CHECK(o1->event_count == 2 && count_events(o1, "footdown_l") == 1 && count_events(o1, "footdown_r") == 1);
    }
    if (o2) {
        printf("  footsteps: %d events (source 3)\n", o2->event_count);
        CHECK(o2->event_count == 5 && count_events(o2, "footdown_l") == 3 && count_events(o2, "footdown_r") == 2 &&
              count_events(o2, "footup_l") == 0 && count_events(o2, "footup_r") == 0);
    }
    stance_clip_destroy(c1), stance_clip_destroy(c2), stance_clip_destroy(o1), stance_clip_destroy(o2);
    stance_skeleton_destroy(big);
    stance_builtin_destroy(&b);
}

int main(void) {
    RUN(test_refusals);
    RUN(test_scaled_copy);
    RUN(test_contact_events);
    RUN(test_contact_events_held);
    return check_summary();
}
