/* tests/test_lod.c - animation LOD (stance/lod.h, stance_instance_advance;
 * docs/lod.md). References are this test's own:
 *  - the allocator against assignments written out by hand, and against a
 *    plain simulation of the documented rule (one instance one rate down at
 *    a time, recomputing the whole frame's cost each step) on seeded random
 *    inputs whose costs are small multiples of 1/8 us (every sum exact in
 *    double, so the two must agree at the budget's edge too);
 *  - the built-in character's lesson graph played twice with the same
 *    inputs (speed changes and jumps on frames that are not multiples of 4):
 *    once updated every frame, once updated every 4th frame and advanced on
 *    the others. Events (count, type, state, time, name), the world root and
 *    the root motion must be equal on every frame, and the pose on the
 *    update frames;
 *  - stance_instances_advance: a crowd advanced and updated in batches
 *    against a twin crowd stepped one call at a time, bit for bit;
 *  - the skipped frames' pose: stance_lod_pose_blend against this test's
 *    double-precision form of the documented blend, and its error against
 *    the full-rate poses, which must be below the error of showing the last
 *    pose unchanged;
 *  - bad inputs: one clear error each. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stance/stance.h"
#include "stance_lesson/builtin.h"

/* ---- the allocator ---------------------------------------------------------- */

static stance_lod_item item(float sig, float upd, float skip) {
    stance_lod_item it = {sig, upd, skip, -1, -1};
    return it;
}

static void allocate(const stance_lod_desc *d, stance_lod_item *items, int n, stance_lod_result *res) {
    size_t bytes = stance_lod_scratch_bytes(n);
    void *scratch = malloc(bytes ? bytes : 1);
    stance_error err;
    CHECK_OK(stance_lod_allocate(d, items, n, scratch, bytes, res, &err));
    free(scratch);
}

static void test_allocate_by_hand(void) {
    /* four instances of 10 us, a skipped frame 1 us: at rate 2 each costs
     * 5 + 0.5 = 5.5. Budget 30 from 40: the least significant three move
     * to rate 2 (40 - 4.5 x 3 = 26.5; two would leave 31) */
    stance_lod_item it[4] = {item(0.5f, 10, 1), item(2.0f, 10, 1), item(1.0f, 10, 1), item(0.1f, 10, 1)};
    stance_lod_desc d = {30.0f, 0, 0};
    stance_lod_result r;
    allocate(&d, it, 4, &r);
    const int rate[4] = {2, 1, 2, 2}, phase[4] = {0, 0, 1, 0}; /* phases: rate 2 in index order 0, 2, 3 */
    for (int i = 0; i < 4; i++) {
        CHECK(it[i].rate == rate[i]);
        CHECK(it[i].phase == phase[i]);
    }
    CHECK_NEAR(r.frame_us, 26.5, 0.0);
    CHECK_NEAR(r.full_us, 40.0, 0.0);
    CHECK(r.fits == 1 && r.at_rate[0] == 1 && r.at_rate[1] == 3);

    /* budget 12: all at 2 is 22, all at 4 is 4 x (2.5 + 0.75) = 13, all at 8
     * 4 x (1.25 + 0.875) = 8.5: from all at 4, the least significant move to
     * 8 while over: 13 - 1.125 = 11.875 fits after one (index 3) */
    for (int i = 0; i < 4; i++) it[i].rate = it[i].phase = -1;
    d.budget_us = 12.0f;
    allocate(&d, it, 4, &r);
    const int rate2[4] = {4, 4, 4, 8};
    for (int i = 0; i < 4; i++) CHECK(it[i].rate == rate2[i]);
    CHECK(it[0].phase == 0 && it[1].phase == 1 && it[2].phase == 2 && it[3].phase == 0);
    CHECK_NEAR(r.frame_us, 11.875, 0.0);
    CHECK(r.fits);

    /* keep_full 1: the most significant (index 1) stays at 1; max_rate 2:
     * the others at 2 make 10 + 16.5 = 26.5 > 12: over the budget */
    for (int i = 0; i < 4; i++) it[i].rate = it[i].phase = -1;
    d.keep_full = 1, d.max_rate = 2;
    allocate(&d, it, 4, &r);
    const int rate3[4] = {2, 1, 2, 2};
    for (int i = 0; i < 4; i++) CHECK(it[i].rate == rate3[i]);
    CHECK(!r.fits);
    CHECK_NEAR(r.frame_us, 26.5, 0.0);

    /* equal significances: the higher index is degraded first; an instance
     * whose skipped frame costs as much as an update stays at rate 1 */
    stance_lod_item eq[3] = {item(1.0f, 8, 0), item(1.0f, 8, 0), item(0.0f, 8, 8)};
    stance_lod_desc d2 = {20.0f, 0, 0};
    allocate(&d2, eq, 3, &r); /* 24 -> index 1 to rate 2: 20 */
    CHECK(eq[0].rate == 1 && eq[1].rate == 2 && eq[2].rate == 1);
    CHECK_NEAR(r.frame_us, 20.0, 0.0);
    CHECK(r.fits);

    /* a budget above the full cost: everyone at 1; count 0 is an empty plan */
    stance_lod_desc d3 = {1000.0f, 0, 0};
    allocate(&d3, eq, 3, &r);
    CHECK(eq[0].rate == 1 && eq[1].rate == 1 && eq[2].rate == 1 && r.fits);
    CHECK_OK(stance_lod_allocate(&d3, NULL, 0, NULL, 0, &r, NULL));
    CHECK(r.frame_us == 0.0 && r.fits);
}

/* The documented rule, simulated plainly: each step recomputes the frame's
 * cost and moves the least significant instance among those at the lowest
 * rate that can still go down. */
static double total_of(const stance_lod_item *it, const int *rate, int n) {
    double t = 0.0;
    for (int i = 0; i < n; i++) t += (double)it[i].update_us / rate[i] + (double)it[i].skip_us * (1.0 - 1.0 / rate[i]);
    return t;
}
static int more_significant(const stance_lod_item *it, int a, int b) {
    return it[a].significance > it[b].significance || (it[a].significance == it[b].significance && a < b);
}
static void simulate(const stance_lod_desc *d, const stance_lod_item *it, int n, int *rate) {
    const int max = d->max_rate ? d->max_rate : 8;
    int *free_ = calloc((size_t)n, sizeof(int));
    for (int i = 0; i < n; i++) {
        int above = 0; /* instances more significant than i */
        for (int k = 0; k < n; k++) above += k != i && more_significant(it, k, i);
        free_[i] = above >= d->keep_full && it[i].skip_us < it[i].update_us;
        rate[i] = 1;
    }
    while (total_of(it, rate, n) > d->budget_us) {
        int pick = -1;
        for (int i = 0; i < n; i++) {
            if (!free_[i] || rate[i] >= max) continue;
            if (pick < 0 || rate[i] < rate[pick] || (rate[i] == rate[pick] && more_significant(it, pick, i))) pick = i;
        }
        if (pick < 0) break;
        rate[pick] *= 2;
    }
    free(free_);
}

static void test_allocate_against_the_rule(void) {
    unsigned x = 12345u;
#define RND() (x = x * 1103515245u + 12345u, (x >> 8) & 0xffffu)
    int cases = 0, degraded = 0;
    for (int c = 0; c < 400; c++) {
        const int n = 1 + (int)(RND() % 60);
        stance_lod_item *it = calloc((size_t)n, sizeof *it);
        int *want = calloc((size_t)n, sizeof(int));
        for (int i = 0; i < n; i++) {
            it[i].significance = (float)(RND() % 16) * 0.25f; /* many ties */
            it[i].update_us = (float)(1 + RND() % 64) * 0.125f;
            it[i].skip_us = (float)(RND() % 12) * 0.125f;
        }
        double full = 0.0;
        for (int i = 0; i < n; i++) full += it[i].update_us;
        stance_lod_desc d = {(float)(full * (double)(1 + RND() % 100) / 100.0), 1 << (RND() % 7), (int)(RND() % 3)};
        if (d.keep_full > n) d.keep_full = n;
        simulate(&d, it, n, want);
        stance_lod_result r;
        allocate(&d, it, n, &r);
        int same = 1, counts[7][64];
        memset(counts, 0, sizeof counts);
        for (int i = 0; i < n; i++) {
            same &= it[i].rate == want[i];
            degraded += it[i].rate > 1;
            if (it[i].rate >= 1 && it[i].rate <= 64 && it[i].phase >= 0 && it[i].phase < it[i].rate) {
                int lv = 0;
                while ((1 << lv) < it[i].rate) lv++;
                counts[lv][it[i].phase]++;
            } else {
                same = 0;
            }
        }
        /* each rate's updates spread: phase counts differ by at most one */
        for (int lv = 0; lv < 7; lv++) {
            int lo = 1 << 30, hi = 0;
            for (int p = 0; p < (1 << lv); p++) lo = counts[lv][p] < lo ? counts[lv][p] : lo, hi = counts[lv][p] > hi ? counts[lv][p] : hi;
            CHECK(hi - lo <= 1);
        }
        CHECK(same);
        CHECK_NEAR(r.frame_us, total_of(it, want, n), 1e-9);
        CHECK(r.fits == (r.frame_us <= d.budget_us));
        /* the same inputs give the same plan */
        stance_lod_item *again = malloc(sizeof *it * (size_t)n);
        memcpy(again, it, sizeof *it * (size_t)n);
        allocate(&d, again, n, &r);
        CHECK(!memcmp(again, it, sizeof *it * (size_t)n));
        free(again), free(it), free(want);
        cases++;
    }
    printf("  %d random plans equal the simulated rule (%d instances degraded)\n", cases, degraded);
    CHECK(degraded > 1000);
#undef RND
}

/* ---- exact time on skipped frames -------------------------------------------- */

typedef struct fixture {
    stance_builtin b;
    stance_graph *g;
    stance_workspace *ws;
    int p_speed, p_jump;
} fixture;

static int fixture_open(fixture *fx) {
    stance_error err;
    memset(fx, 0, sizeof *fx);
    if (stance_builtin_create(NULL, &fx->b, &err) || stance_builtin_lesson_graph(&fx->b, NULL, &fx->g, &err) ||
        stance_workspace_create(fx->g, NULL, &fx->ws, &err)) {
        fprintf(stderr, "fixture: %s\n", err.message);
        return 0;
    }
    fx->p_speed = stance_graph_find_param(fx->g, "speed");
    fx->p_jump = stance_graph_find_param(fx->g, "jump");
    return fx->p_speed >= 0 && fx->p_jump >= 0;
}
static void fixture_close(fixture *fx) {
    stance_workspace_destroy(fx->ws);
    stance_graph_destroy(fx->g);
    stance_builtin_destroy(&fx->b);
}

/* frame f's inputs: speed steps through idle, walk and run on frames that
 * are not multiples of 4, and jumps */
static void inputs(const fixture *fx, stance_instance *in, int f) {
    static const float speeds[] = {0.0f, 1.3f, 4.5f, 0.05f, 2.2f, 6.0f, 0.0f, 3.1f};
    if (f % 37 == 3) stance_instance_set_float(in, fx->p_speed, speeds[(f / 37) % 8], NULL);
    if (f % 113 == 57 || f % 251 == 130) stance_instance_set_trigger(in, fx->p_jump, NULL);
}

static int same_events(const stance_instance *a, const stance_instance *b, long *count) {
    int na, nb, da, db;
    const stance_event *ea = stance_instance_events(a, &na, &da), *eb = stance_instance_events(b, &nb, &db);
    if (na != nb || da != db) return 0;
    for (int i = 0; i < na; i++) {
        if (ea[i].type != eb[i].type || ea[i].state != eb[i].state || ea[i].machine != eb[i].machine ||
            ea[i].other != eb[i].other || ea[i].layer != eb[i].layer || ea[i].time != eb[i].time ||
            strcmp(ea[i].name, eb[i].name) || ea[i].reason != eb[i].reason)
            return 0;
    }
    *count += na;
    return 1;
}

static double pose_worst(const stance_pose *a, const stance_pose *b, double *sum) {
    double worst = 0.0;
    for (int j = 0; j < a->joint_count; j++) {
        const double dx = (double)a->tx[j] - b->tx[j], dy = (double)a->ty[j] - b->ty[j], dz = (double)a->tz[j] - b->tz[j];
        const double d = sqrt(dx * dx + dy * dy + dz * dz);
        worst = d > worst ? d : worst;
        if (sum) *sum += d;
    }
    return worst;
}

/* The blend as docs/lod.md states it, in double: translations and scales
 * last + t (last - older), rotations the same on older's sign-aligned
 * quaternion, normalized. */
static void blend_ref(const stance_pose *o, const stance_pose *l, double t, int j, double out[10]) {
    const float *oc[10] = {o->tx, o->ty, o->tz, o->qx, o->qy, o->qz, o->qw, o->sx, o->sy, o->sz};
    const float *lc[10] = {l->tx, l->ty, l->tz, l->qx, l->qy, l->qz, l->qw, l->sx, l->sy, l->sz};
    double dot = 0.0;
    for (int c = 3; c < 7; c++) dot += (double)oc[c][j] * lc[c][j];
    const double sg = dot < 0.0 ? -1.0 : 1.0;
    double len = 0.0;
    for (int c = 0; c < 10; c++) {
        const double a = c >= 3 && c < 7 ? sg * oc[c][j] : oc[c][j], b = lc[c][j];
        out[c] = b + t * (b - a);
        if (c >= 3 && c < 7) len += out[c] * out[c];
    }
    for (int c = 3; c < 7; c++) out[c] /= sqrt(len);
}

static void test_every_4th_frame(void) {
    fixture fx;
    if (!fixture_open(&fx)) { CHECK(0); return; }
    stance_error err;
    stance_instance *full = NULL, *lod = NULL, *summed = NULL;
    CHECK_OK(stance_instance_create(fx.g, NULL, &summed, &err));
    CHECK_OK(stance_instance_create(fx.g, NULL, &full, &err));
    CHECK_OK(stance_instance_create(fx.g, NULL, &lod, &err));
    const int J = stance_graph_skeleton(fx.g)->joint_count;
    stance_pose older, shown;
    CHECK_OK(stance_pose_create(&older, J, NULL, &err));
    CHECK_OK(stance_pose_create(&shown, J, NULL, &err));
    const float dt = 1.0f / 60.0f;
    const int rate = 4, phase = 1, FRAMES = 1800;
    long events = 0, kinds[16] = {0};
    int events_equal = 1, root_equal = 1, pose_equal = 1, blend_ok = 1;
    double root_worst = 0.0, err_worst = 0.0, err_sum = 0.0, hold_sum = 0.0, hold_worst = 0.0, blend_dev = 0.0;
    long skipped_joints = 0, summed_differs = 0;
    int last = -1;
    for (int f = 0; f < FRAMES; f++) {
        inputs(&fx, full, f), inputs(&fx, lod, f), inputs(&fx, summed, f);
        CHECK_OK(stance_instance_update(full, dt, fx.ws, NULL));
        const int due = stance_lod_due(rate, phase, f);
        if (due) {
            CHECK_OK(stance_pose_copy(&older, stance_instance_model_pose(lod), NULL));
            CHECK_OK(stance_instance_update(lod, dt, fx.ws, NULL));
            last = f;
            /* the other way: one update with the summed dt (what this test
             * must tell apart: its events come late, on update frames) */
            CHECK_OK(stance_instance_update(summed, f < rate ? dt * (float)(f + 1) : dt * (float)rate, fx.ws, NULL));
            long ignored = 0;
            summed_differs += !same_events(full, summed, &ignored);
        } else {
            CHECK_OK(stance_instance_advance(lod, dt, fx.ws, NULL));
        }
        int n;
        const stance_event *ev = stance_instance_events(full, &n, NULL);
        for (int i = 0; i < n; i++) kinds[ev[i].type]++;
        events_equal &= same_events(full, lod, &events);
        stance_transform ra, rb;
        stance_instance_root(full, &ra), stance_instance_root(lod, &rb);
        float ma[3], mb[3];
        stance_instance_root_motion(full, ma), stance_instance_root_motion(lod, mb);
        root_equal &= !memcmp(&ra, &rb, sizeof ra) && !memcmp(ma, mb, sizeof ma) &&
                      stance_instance_root_yaw(full) == stance_instance_root_yaw(lod);
        for (int k = 0; k < 3; k++) {
            const double d = fabs((double)ra.t[k] - rb.t[k]);
            root_worst = d > root_worst ? d : root_worst;
        }
        const stance_pose *pf = stance_instance_model_pose(full), *pl = stance_instance_model_pose(lod);
        if (due) {
            pose_equal &= pose_worst(pf, pl, NULL) == 0.0;
        } else if (last >= 0 && f > rate + phase) {
            /* shown: extrapolated from the last two updates (rate apart) */
            const float t = (float)(f - last) / (float)rate;
            CHECK_OK(stance_lod_pose_blend(&older, pl, t, &shown, NULL));
            for (int j = 0; j < J; j++) {
                double ref[10];
                blend_ref(&older, pl, t, j, ref);
                const float *sc[10] = {shown.tx, shown.ty, shown.tz, shown.qx, shown.qy, shown.qz, shown.qw, shown.sx, shown.sy, shown.sz};
                for (int c = 0; c < 10; c++) {
                    const double d = fabs(ref[c] - sc[c][j]) / (1.0 + fabs(ref[c]));
                    blend_dev = d > blend_dev ? d : blend_dev;
                }
            }
            const double e = pose_worst(pf, &shown, &err_sum), h = pose_worst(pf, pl, &hold_sum);
            err_worst = e > err_worst ? e : err_worst, hold_worst = h > hold_worst ? h : hold_worst;
            skipped_joints += J;
        }
    }
    blend_ok = blend_dev < 2e-6;
    printf("  %d frames, every %dth updated: %ld events equal (%ld markers, %ld states entered, %ld transitions), "
           "world root within %.3g m\n",
           FRAMES, rate, events, kinds[STANCE_EVENT_CLIP_MARKER], kinds[STANCE_EVENT_STATE_ENTERED],
           kinds[STANCE_EVENT_TRANSITION_STARTED], root_worst);
    printf("  skipped frames, extrapolated: worst %.3f cm, mean %.4f cm; the last pose held: worst %.3f cm, mean %.4f cm; "
           "blend against the test's double form %.2g\n",
           100 * err_worst, 100 * err_sum / (double)skipped_joints, 100 * hold_worst, 100 * hold_sum / (double)skipped_joints,
           blend_dev);
    printf("  the same with the summed dt instead: events differ on %ld of %d update frames\n", summed_differs, FRAMES / rate);
    CHECK(summed_differs > 10);
    CHECK(events_equal);
    CHECK(root_equal);
    CHECK(pose_equal);
    CHECK(blend_ok);
    CHECK(kinds[STANCE_EVENT_CLIP_MARKER] > 50 && kinds[STANCE_EVENT_TRANSITION_STARTED] > 20);
    CHECK(root_worst == 0.0);
    /* the extrapolation is worth it: less error than holding the last pose */
    CHECK(err_sum < 0.85 * hold_sum);
    stance_pose_destroy(&older), stance_pose_destroy(&shown);
    stance_instance_destroy(full), stance_instance_destroy(lod), stance_instance_destroy(summed);
    fixture_close(&fx);
}

/* The skipped frame's plan (src/core/frame/advance_skip.c): an advance
 * plans only what root motion reads unless a machine keeps history or has
 * a pending inertialization, where it takes the whole plan. Both ways,
 * against an instance of the same kind updated every frame: events and
 * the world root equal on every frame, over switches of the lesson graph
 * as it is (crossfades: the short plan) and with every machine keeping
 * history and every switch inertializing (the whole plan; its poses on
 * update frames differ from full rate's by design: no history is
 * recorded on a skipped frame). */
static void test_skip_plan_kinds(void) {
    fixture fx;
    if (!fixture_open(&fx)) { CHECK(0); return; }
    const float dt = 1.0f / 60.0f;
    for (int kind = 0; kind < 2; kind++) {
        const stance_instance_desc desc = {kind ? STANCE_HISTORY_ALL : STANCE_HISTORY_AUTO};
        stance_instance *full = NULL, *lod = NULL;
        CHECK_OK(stance_instance_create_ex(fx.g, &desc, NULL, &full, NULL));
        CHECK_OK(stance_instance_create_ex(fx.g, &desc, NULL, &lod, NULL));
        if (!full || !lod) break;
        if (kind) {
            CHECK_OK(stance_instance_override_switch(full, STANCE_SWITCH_INERTIALIZE, -1.0f, -1, NULL));
            CHECK_OK(stance_instance_override_switch(lod, STANCE_SWITCH_INERTIALIZE, -1.0f, -1, NULL));
        }
        long events = 0, started = 0;
        int equal = 1, poses_equal = 1;
        for (int f = 0; f < 900; f++) {
            inputs(&fx, full, f), inputs(&fx, lod, f);
            CHECK_OK(stance_instance_update(full, dt, fx.ws, NULL));
            const int due = stance_lod_due(4, 3, f);
            CHECK_OK(due ? stance_instance_update(lod, dt, fx.ws, NULL) : stance_instance_advance(lod, dt, fx.ws, NULL));
            equal &= same_events(full, lod, &events);
            int n;
            const stance_event *ev = stance_instance_events(full, &n, NULL);
            for (int i = 0; i < n; i++) started += ev[i].type == STANCE_EVENT_TRANSITION_STARTED;
            stance_transform ra, rb;
            stance_instance_root(full, &ra), stance_instance_root(lod, &rb);
            equal &= !memcmp(&ra, &rb, sizeof ra);
            if (due) poses_equal &= pose_worst(stance_instance_model_pose(full), stance_instance_model_pose(lod), NULL) == 0.0;
        }
        printf("  %s: events (%ld) and the world root %s over 900 frames at rate 4 (%ld transitions)%s\n",
               kind ? "history kept, inertializing (the whole plan)" : "as built (the skipped frame's plan)", events,
               equal ? "equal" : "DIFFER", started, kind ? "" : poses_equal ? ", update frames' poses equal" : ", update frames' poses DIFFER");
        CHECK(equal);
        CHECK(started > 10);
        if (!kind) CHECK(poses_equal);
        stance_instance_destroy(full), stance_instance_destroy(lod);
    }
    fixture_close(&fx);
}

/* stance_instances_advance (the batch the bench's LOD frame uses): a crowd
 * of 12 with inputs of their own (every third keeping history and
 * inertializing, so both kinds of skipped plan run), advanced in batches
 * with its due members updated in a batch, against a twin crowd stepped
 * one call at a time: events, world root and model pose equal bit for bit
 * on every frame. Then the batch's refusals: the first bad instance named,
 * the others advanced all the same. */
static void test_batch_advance(void) {
    fixture fx;
    if (!fixture_open(&fx)) { CHECK(0); return; }
    enum { N = 12 };
    const float dt = 1.0f / 60.0f;
    stance_instance *one[N] = {0}, *many[N] = {0};
    for (int i = 0; i < N; i++) {
        const stance_instance_desc desc = {i % 3 == 2 ? STANCE_HISTORY_ALL : STANCE_HISTORY_AUTO};
        CHECK_OK(stance_instance_create_ex(fx.g, &desc, NULL, &one[i], NULL));
        CHECK_OK(stance_instance_create_ex(fx.g, &desc, NULL, &many[i], NULL));
        if (!one[i] || !many[i]) goto done;
        if (i % 3 == 2) {
            CHECK_OK(stance_instance_override_switch(one[i], STANCE_SWITCH_INERTIALIZE, -1.0f, -1, NULL));
            CHECK_OK(stance_instance_override_switch(many[i], STANCE_SWITCH_INERTIALIZE, -1.0f, -1, NULL));
        }
    }
    long events = 0;
    int equal = 1, skipped = 0;
    for (int f = 0; f < 600; f++) {
        stance_instance *upd[N], *adv[N];
        int nu = 0, na = 0;
        for (int i = 0; i < N; i++) {
            inputs(&fx, one[i], f + 29 * i), inputs(&fx, many[i], f + 29 * i);
            const int rate = 1 << (i % 4), due = stance_lod_due(rate, i % rate, f);
            CHECK_OK(due ? stance_instance_update(one[i], dt, fx.ws, NULL) : stance_instance_advance(one[i], dt, fx.ws, NULL));
            if (due) upd[nu++] = many[i];
            else adv[na++] = many[i];
        }
        CHECK_OK(stance_instances_update(upd, nu, dt, fx.ws, NULL));
        CHECK_OK(stance_instances_advance(adv, na, dt, fx.ws, NULL));
        skipped += na;
        for (int i = 0; i < N; i++) {
            equal &= same_events(one[i], many[i], &events);
            stance_transform ra, rb;
            stance_instance_root(one[i], &ra), stance_instance_root(many[i], &rb);
            equal &= !memcmp(&ra, &rb, sizeof ra);
            const stance_pose *pa = stance_instance_model_pose(one[i]), *pb = stance_instance_model_pose(many[i]);
            equal &= !memcmp(pa->memory, pb->memory, stance_pose_bytes(pa->joint_count));
        }
    }
    printf("  12 instances, 600 frames at rates 1-8: %d skipped frames in batches; events (%ld), world roots and poses %s\n",
           skipped, events, equal ? "equal bit for bit" : "DIFFER");
    CHECK(equal);
    CHECK(events > 500 && skipped > 3000);
    /* refusals */
    stance_error err;
    stance_instance *bad[3] = {many[0], NULL, many[1]};
    const float t0 = stance_instance_time(many[0]), t2 = stance_instance_time(many[1]);
    CHECK_STATUS(stance_instances_advance(bad, 3, dt, fx.ws, &err), STANCE_ERR_ARGUMENT);
    CHECK(strstr(err.message, "instances advance") && strstr(err.message, "instance 1"));
    CHECK(stance_instance_time(many[0]) > t0 && stance_instance_time(many[1]) > t2); /* the others advanced */
    CHECK_STATUS(stance_instances_advance(bad, -1, dt, fx.ws, &err), STANCE_ERR_ARGUMENT);
    CHECK(strstr(err.message, "negative"));
    CHECK_STATUS(stance_instances_advance(NULL, 2, dt, fx.ws, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_instances_advance(many, 2, dt, NULL, &err), STANCE_ERR_ARGUMENT);
    CHECK(strstr(err.message, "workspace"));
    CHECK_STATUS(stance_instances_advance(many, 2, NAN, fx.ws, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "dt"));
    CHECK_OK(stance_instances_advance(NULL, 0, dt, fx.ws, &err));
done:
    for (int i = 0; i < N; i++) stance_instance_destroy(one[i]), stance_instance_destroy(many[i]);
    fixture_close(&fx);
}

/* Evaluated ahead (docs/lod.md): the instance advances on every frame; on
 * its update frames a copy of it (the probe) is updated by the interval to
 * the next update, and the skipped frames interpolate between the pose
 * evaluated for the last update's frame and that one. Checked against an
 * instance updated every frame with the same inputs: events, root motion
 * and the world root equal on every frame (the instance itself only ever
 * advances), and the shown poses closer to the full-rate ones than the
 * extrapolation's of test_every_4th_frame's loop, run here side by side. */
static void test_ahead(void) {
    fixture fx;
    if (!fixture_open(&fx)) { CHECK(0); return; }
    stance_error err;
    stance_instance *full = NULL, *ahead = NULL, *probe = NULL, *ex = NULL;
    CHECK_OK(stance_instance_create(fx.g, NULL, &full, &err));
    CHECK_OK(stance_instance_create(fx.g, NULL, &ahead, &err));
    CHECK_OK(stance_instance_create(fx.g, NULL, &probe, &err));
    CHECK_OK(stance_instance_create(fx.g, NULL, &ex, &err));
    const int J = stance_graph_skeleton(fx.g)->joint_count;
    stance_pose pa, pb, ex_older, shown;
    CHECK_OK(stance_pose_create(&pa, J, NULL, &err));
    CHECK_OK(stance_pose_create(&pb, J, NULL, &err));
    CHECK_OK(stance_pose_create(&ex_older, J, NULL, &err));
    CHECK_OK(stance_pose_create(&shown, J, NULL, &err));
    stance_pose *now = &pa, *next = &pb; /* evaluated for the last update's frame, for the next one */
    const float dt = 1.0f / 60.0f;
    const int rate = 4, phase = 1, FRAMES = 1800;
    long events = 0;
    int events_equal = 1, root_equal = 1;
    double a_sum = 0.0, a_worst = 0.0, x_sum = 0.0, x_worst = 0.0, u_sum = 0.0, u_worst = 0.0;
    long joints = 0, u_joints = 0;
    int last = -1;
    for (int f = 0; f < FRAMES; f++) {
        inputs(&fx, full, f), inputs(&fx, ahead, f), inputs(&fx, ex, f);
        CHECK_OK(stance_instance_update(full, dt, fx.ws, NULL));
        CHECK_OK(stance_instance_advance(ahead, dt, fx.ws, NULL));
        const int due = stance_lod_due(rate, phase, f);
        if (due) {
            stance_pose *t = now;
            now = next, next = t;
            CHECK_OK(stance_instance_copy(probe, ahead, NULL));
            CHECK_OK(stance_instance_update(probe, dt * (float)rate, fx.ws, NULL));
            CHECK_OK(stance_pose_copy(next, stance_instance_model_pose(probe), NULL));
            CHECK_OK(stance_pose_copy(&ex_older, stance_instance_model_pose(ex), NULL));
            CHECK_OK(stance_instance_update(ex, dt, fx.ws, NULL));
        } else {
            CHECK_OK(stance_instance_advance(ex, dt, fx.ws, NULL));
        }
        events_equal &= same_events(full, ahead, &events);
        stance_transform ra, rb;
        stance_instance_root(full, &ra), stance_instance_root(ahead, &rb);
        float ma[3], mb[3];
        stance_instance_root_motion(full, ma), stance_instance_root_motion(ahead, mb);
        root_equal &= !memcmp(&ra, &rb, sizeof ra) && !memcmp(ma, mb, sizeof ma);
        if (last >= 0 && f > 2 * rate + phase) {
            const stance_pose *pf = stance_instance_model_pose(full);
            if (due) { /* shown: the pose evaluated for this frame one interval before */
                const double e = pose_worst(pf, now, &u_sum);
                u_worst = e > u_worst ? e : u_worst;
                u_joints += J;
            } else {
                const float t = (float)(f - last) / (float)rate;
                CHECK_OK(stance_lod_pose_blend(now, next, t - 1.0f, &shown, NULL));
                double e = pose_worst(pf, &shown, &a_sum);
                a_worst = e > a_worst ? e : a_worst;
                CHECK_OK(stance_lod_pose_blend(&ex_older, stance_instance_model_pose(ex), t, &shown, NULL));
                e = pose_worst(pf, &shown, &x_sum);
                x_worst = e > x_worst ? e : x_worst;
                joints += J;
            }
        }
        if (due) last = f;
    }
    printf("  evaluated ahead, every %dth frame: %ld events equal; skipped frames interpolated: worst %.3f cm, mean %.4f cm "
           "(extrapolated: worst %.3f cm, mean %.4f cm); update frames: worst %.3f cm, mean %.4f cm\n",
           rate, events, 100 * a_worst, 100 * a_sum / (double)joints, 100 * x_worst, 100 * x_sum / (double)joints,
           100 * u_worst, 100 * u_sum / (double)u_joints);
    CHECK(events_equal);
    CHECK(root_equal);
    CHECK(events > 200);
    /* the point of evaluating ahead: less error on the skipped frames than
     * extrapolating, on mean and worst */
    CHECK(a_sum < 0.6 * x_sum);
    CHECK(a_worst < x_worst);
    stance_pose_destroy(&pa), stance_pose_destroy(&pb), stance_pose_destroy(&ex_older), stance_pose_destroy(&shown);
    stance_instance_destroy(full), stance_instance_destroy(ahead), stance_instance_destroy(probe), stance_instance_destroy(ex);
    fixture_close(&fx);
}

static void test_blend_ends(void) {
    /* t = 0 is the last pose, t = -1 the older one (to rounding), t = 1 one
     * interval on; a pose moving at constant velocity is extrapolated exactly */
    stance_pose a, b, o;
    stance_error err;
    CHECK_OK(stance_pose_create(&a, 5, NULL, &err));
    CHECK_OK(stance_pose_create(&b, 5, NULL, &err));
    CHECK_OK(stance_pose_create(&o, 5, NULL, &err));
    for (int j = 0; j < 5; j++) {
        const double ang0 = 0.1 * j, ang1 = 0.1 * j + 0.2; /* about z */
        a.tx[j] = (float)j, a.ty[j] = 1.0f, a.tz[j] = -1.0f;
        b.tx[j] = (float)j + 0.5f, b.ty[j] = 1.25f, b.tz[j] = -1.0f;
        a.qz[j] = (float)sin(ang0 / 2), a.qw[j] = (float)cos(ang0 / 2);
        b.qz[j] = (float)-sin(ang1 / 2), b.qw[j] = (float)-cos(ang1 / 2); /* the other hemisphere */
    }
    CHECK_OK(stance_lod_pose_blend(&a, &b, 0.0f, &o, &err));
    for (int j = 0; j < 5; j++) CHECK(o.tx[j] == b.tx[j] && fabsf(o.qz[j] - b.qz[j]) < 1e-7f && fabsf(o.qw[j] - b.qw[j]) < 1e-7f);
    CHECK_OK(stance_lod_pose_blend(&a, &b, -1.0f, &o, &err));
    for (int j = 0; j < 5; j++) CHECK(o.tx[j] == a.tx[j] && fabsf(fabsf(o.qw[j]) - a.qw[j]) < 1e-6f);
    CHECK_OK(stance_lod_pose_blend(&a, &b, 1.0f, &o, &err));
    for (int j = 0; j < 5; j++) {
        CHECK(o.tx[j] == (float)j + 1.0f && o.ty[j] == 1.5f && o.tz[j] == -1.0f && o.sx[j] == 1.0f);
        /* the turn goes on about z: 0.1 j + 0.4 within the normalized-linear form's error */
        const double got = 2.0 * atan2(-(double)o.qz[j], -(double)o.qw[j]);
        CHECK_NEAR(got, 0.1 * j + 0.4, 2e-3);
    }
    /* out may be one of the inputs */
    CHECK_OK(stance_lod_pose_blend(&a, &b, 0.5f, &b, &err));
    CHECK(b.tx[1] == 1.75f);
    CHECK_OK(stance_lod_pose_blend(&a, &b, 0.5f, &a, &err));
    CHECK(a.tx[1] == 2.125f);
    stance_pose_destroy(&a), stance_pose_destroy(&b), stance_pose_destroy(&o);
}

static void test_significance(void) {
    stance_lod_view v = {{0, 0, 0}, {0, 0, 2}, 0.0f, 0.0f};
    stance_error err;
    float s = -1.0f;
    const float ahead[3] = {0, 0, 10}, behind[3] = {0, 0, -10}, side[3] = {10, 0, 1}, inside[3] = {0.5f, 0, 0};
    CHECK_OK(stance_lod_significance(&v, ahead, 1.0f, &s, &err));
    CHECK_NEAR(s, 0.1, 1e-7);
    CHECK_OK(stance_lod_significance(&v, behind, 1.0f, &s, &err));
    CHECK_NEAR(s, 0.025, 1e-7); /* off screen: x 0.25 */
    /* 84.3 deg off the axis, half fov 60 deg: off screen; with the fov at
     * 170 deg on screen */
    CHECK_OK(stance_lod_significance(&v, side, 1.0f, &s, &err));
    CHECK_NEAR(s, 0.25 / sqrt(101.0), 1e-7);
    v.cos_half_fov = (float)cos(85.0 * 3.14159265358979 / 180.0);
    CHECK_OK(stance_lod_significance(&v, side, 1.0f, &s, &err));
    CHECK_NEAR(s, 1.0 / sqrt(101.0), 1e-7);
    CHECK_OK(stance_lod_significance(&v, inside, 1.0f, &s, &err));
    CHECK(s == 1.0f);
}

static void test_bad_inputs(void) {
    stance_lod_item it[2] = {item(1.0f, 2.0f, 0.1f), item(0.5f, 2.0f, 0.1f)};
    char scratch[64];
    stance_lod_desc d = {3.0f, 0, 0};
    stance_error err;
    it[1].significance = NAN;
    CHECK_STATUS(stance_lod_allocate(&d, it, 2, scratch, sizeof scratch, NULL, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "instance 1") && strstr(err.message, "significance"));
    CHECK(it[0].rate == -1 && it[1].rate == -1); /* nothing written */
    it[1].significance = 0.5f;
    d.budget_us = 0.0f;
    CHECK_STATUS(stance_lod_allocate(&d, it, 2, scratch, sizeof scratch, NULL, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "budget_us"));
    d.budget_us = INFINITY;
    CHECK_STATUS(stance_lod_allocate(&d, it, 2, scratch, sizeof scratch, NULL, &err), STANCE_ERR_VALUE);
    d.budget_us = 3.0f;
    it[0].update_us = -1.0f;
    CHECK_STATUS(stance_lod_allocate(&d, it, 2, scratch, sizeof scratch, NULL, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "instance 0") && strstr(err.message, "update_us"));
    it[0].update_us = 2.0f, it[0].skip_us = -0.5f;
    CHECK_STATUS(stance_lod_allocate(&d, it, 2, scratch, sizeof scratch, NULL, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "skip_us"));
    it[0].skip_us = 0.1f;
    d.max_rate = 3;
    CHECK_STATUS(stance_lod_allocate(&d, it, 2, scratch, sizeof scratch, NULL, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "max_rate 3"));
    d.max_rate = 128;
    CHECK_STATUS(stance_lod_allocate(&d, it, 2, scratch, sizeof scratch, NULL, &err), STANCE_ERR_VALUE);
    d.max_rate = 0, d.keep_full = 3;
    CHECK_STATUS(stance_lod_allocate(&d, it, 2, scratch, sizeof scratch, NULL, &err), STANCE_ERR_VALUE);
    d.keep_full = 0;
    CHECK_STATUS(stance_lod_allocate(&d, it, 2, scratch, 8, NULL, &err), STANCE_ERR_MEMORY);
    CHECK(strstr(err.message, "stance_lod_scratch_bytes"));
    CHECK_STATUS(stance_lod_allocate(NULL, it, 2, scratch, sizeof scratch, NULL, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_lod_allocate(&d, NULL, 2, scratch, sizeof scratch, NULL, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_lod_allocate(&d, it, 2, NULL, sizeof scratch, NULL, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_lod_allocate(&d, it, -1, scratch, sizeof scratch, NULL, &err), STANCE_ERR_ARGUMENT);
    CHECK_OK(stance_lod_allocate(&d, it, 2, scratch, sizeof scratch, NULL, &err));
    CHECK(stance_lod_scratch_bytes(-1) == 0);
    CHECK(!stance_lod_due(0, 0, 5) && !stance_lod_due(2, 0, -2) && stance_lod_due(4, 1, 9) && !stance_lod_due(4, 1, 10));

    stance_lod_view v = {{0, 0, 0}, {0, 0, 0}, 0.0f, 0.0f};
    const float p[3] = {0, 0, 5}, bad[3] = {0, NAN, 5};
    float s = 7.0f;
    CHECK_STATUS(stance_lod_significance(&v, p, 1.0f, &s, &err), STANCE_ERR_VALUE); /* forward zero */
    CHECK(strstr(err.message, "forward"));
    v.forward[2] = 1.0f;
    CHECK_STATUS(stance_lod_significance(&v, bad, 1.0f, &s, &err), STANCE_ERR_VALUE);
    CHECK_STATUS(stance_lod_significance(&v, p, 0.0f, &s, &err), STANCE_ERR_VALUE);
    v.cos_half_fov = 1.0f;
    CHECK_STATUS(stance_lod_significance(&v, p, 1.0f, &s, &err), STANCE_ERR_VALUE);
    v.cos_half_fov = 0.0f, v.off_screen = 2.0f;
    CHECK_STATUS(stance_lod_significance(&v, p, 1.0f, &s, &err), STANCE_ERR_VALUE);
    CHECK(s == 7.0f);
    CHECK_STATUS(stance_lod_significance(NULL, p, 1.0f, &s, &err), STANCE_ERR_ARGUMENT);

    stance_pose a, b;
    CHECK_OK(stance_pose_create(&a, 4, NULL, &err));
    CHECK_OK(stance_pose_create(&b, 5, NULL, &err));
    CHECK_STATUS(stance_lod_pose_blend(&a, &b, 0.5f, &a, &err), STANCE_ERR_ARGUMENT);
    CHECK(strstr(err.message, "joint counts"));
    CHECK_STATUS(stance_lod_pose_blend(&a, &a, NAN, &a, &err), STANCE_ERR_VALUE);
    CHECK_STATUS(stance_lod_pose_blend(&a, &a, 1.5f, &a, &err), STANCE_ERR_VALUE);
    CHECK_STATUS(stance_lod_pose_blend(NULL, &a, 0.5f, &a, &err), STANCE_ERR_ARGUMENT);
    stance_pose_destroy(&a), stance_pose_destroy(&b);

    /* the advance takes the update's checks */
    fixture fx;
    if (!fixture_open(&fx)) { CHECK(0); return; }
    stance_instance *in = NULL;
    CHECK_OK(stance_instance_create(fx.g, NULL, &in, &err));
    CHECK_STATUS(stance_instance_advance(in, NAN, fx.ws, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "instance advance") && strstr(err.message, "dt"));
    CHECK_STATUS(stance_instance_advance(in, 0.1f, NULL, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_instance_advance(NULL, 0.1f, fx.ws, &err), STANCE_ERR_ARGUMENT);
    CHECK_OK(stance_instance_advance(in, 0.1f, fx.ws, &err));
    CHECK(stance_instance_time(in) > 0.09f);
    stance_instance_destroy(in);
    fixture_close(&fx);
}

int main(void) {
    RUN(test_allocate_by_hand);
    RUN(test_allocate_against_the_rule);
    RUN(test_every_4th_frame);
    RUN(test_skip_plan_kinds);
    RUN(test_batch_advance);
    RUN(test_ahead);
    RUN(test_blend_ends);
    RUN(test_significance);
    RUN(test_bad_inputs);
    return check_summary();
}
