/* tests/test_frame.c - the frame as one loop per stage (issue 23 item 3,
 * docs/frame.md): the program compiled with the graph (each layer's
 * machines children first, their parents, the IK entries' local-to-model
 * ranges); the local-to-model of one joint's subtree against the whole
 * pass, bit for bit, on skeletons of both schedules (runs, and tiles with
 * groups and single joints); the IK stage's model pose against the whole
 * pass over its local pose; and a switch's snapshot of a nested machine,
 * which the advance stage leaves to the evaluate stage as a job, against
 * the same frame advanced without the switch. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#define RANDOM_POSE_SEED 2301u
#include "random_pose.h"
#include "core/base/internal.h"
#include "core/rig/rig_internal.h"
#include "core/frame/workspace.h"
#include "stance/build.h"
#include "stance/stance.h"
#include "stance_lesson/stance_lesson.h"

static stance_builtin B;

static int same_bits(const stance_pose *a, const stance_pose *b) {
    return a->joint_count == b->joint_count && !memcmp(a->memory, b->memory, stance_pose_bytes(a->joint_count));
}

/* ---- the program ------------------------------------------------------------------ */

/* Outer plays Inner in its state Nested (Inner plays Deep in its state
 * Down); a second layer runs Waving, which nests nothing. */
static stance_graph *nested_graph(stance_switch_mode mode) {
    static stance_blend_entry_desc entries[3];
    entries[0] = (stance_blend_entry_desc){.clip = stance_builtin_clip(&B, "idle"), .x = 0.0f};
    entries[1] = (stance_blend_entry_desc){.clip = stance_builtin_clip(&B, "walk"), .x = 1.5f};
    entries[2] = (stance_blend_entry_desc){.clip = stance_builtin_clip(&B, "run"), .x = 4.0f};
    static stance_state_desc deep[1], inner[2], outer[2], waving[1];
    deep[0] = (stance_state_desc){.name = "Lean", .clip = stance_builtin_clip(&B, "lean")};
    inner[0] = (stance_state_desc){.name = "Move", .type = STANCE_MOTION_BLEND1D, .param_x = "speed", .entry_count = 3, .entries = entries};
    inner[1] = (stance_state_desc){.name = "Down", .type = STANCE_MOTION_MACHINE, .machine = "Deep"};
    outer[0] = (stance_state_desc){.name = "Nested", .type = STANCE_MOTION_MACHINE, .machine = "Inner"};
    outer[1] = (stance_state_desc){.name = "Jump", .clip = stance_builtin_clip(&B, "jump"), .once = 1};
    waving[0] = (stance_state_desc){.name = "Wave", .clip = stance_builtin_clip(&B, "wave")};
    static stance_condition_desc jump = {.param = "jump", .op = STANCE_CMP_TRUE};
    static stance_transition_desc t;
    t = (stance_transition_desc){.from = "Nested", .to = "Jump", .condition_count = 1, .conditions = &jump, .blend_time = 0.3f,
                                 .mode = mode, .easing = STANCE_EASE_SMOOTHSTEP};
    static stance_machine_desc md[4];
    md[0] = (stance_machine_desc){.name = "Waving", .state_count = 1, .states = waving};
    md[1] = (stance_machine_desc){.name = "Deep", .state_count = 1, .states = deep};
    md[2] = (stance_machine_desc){.name = "Outer", .state_count = 2, .states = outer, .transition_count = 1, .transitions = &t};
    md[3] = (stance_machine_desc){.name = "Inner", .state_count = 2, .states = inner};
    static stance_param_desc pd[2];
    pd[0] = (stance_param_desc){.name = "speed", .type = STANCE_PARAM_FLOAT};
    pd[1] = (stance_param_desc){.name = "jump", .type = STANCE_PARAM_TRIGGER};
    static stance_layer_desc ld[2];
    ld[0] = (stance_layer_desc){.name = "base", .machine = "Outer"};
    ld[1] = (stance_layer_desc){.name = "wave", .machine = "Waving", .weight = 0.5f};
    stance_graph_desc gd = {.skeleton = B.skeleton, .param_count = 2, .params = pd, .machine_count = 4, .machines = md,
                            .layer_count = 2, .layers = ld};
    stance_graph *g = NULL;
    stance_error err = {0};
    CHECK_OK(stance_graph_create(&gd, NULL, &g, &err));
    if (!g) fprintf(stderr, "nested graph: %s\n", err.message);
    return g;
}

/* Every machine a layer runs is one step: the base layer's tree children
 * first (Deep, Inner, Outer), then the wave layer's; each step names its
 * parent, the parent's state that plays it and its subtree's first step. */
static void test_program(void) {
    stance_graph *g = nested_graph(STANCE_SWITCH_FROZEN);
    if (!g) return;
    const int waving = stance_graph_find_machine(g, "Waving"), deep = stance_graph_find_machine(g, "Deep");
    const int outer = stance_graph_find_machine(g, "Outer"), inner = stance_graph_find_machine(g, "Inner");
    CHECK(g->step_count == 4);
    const int want[4] = {deep, inner, outer, waving}, parent[4] = {inner, outer, -1, -1}, first[4] = {0, 0, 0, 3};
    const int pstate[4] = {stance_graph_find_state(g, "Down"), stance_graph_find_state(g, "Nested"), -1, -1};
    for (int i = 0; i < 4 && i < g->step_count; i++) {
        const g_step *st = &g->steps[i];
        CHECK(st->machine == want[i] && st->parent == parent[i] && st->parent_state == pstate[i] && st->first == first[i]);
        CHECK(st->layer == (i < 3 ? 0 : 1) && g->machines[st->machine].step == i);
        CHECK(st->has_trans == (st->machine == outer));
    }
    CHECK(g->layers[0].step_first == 0 && g->layers[0].step_last == 2);
    CHECK(g->layers[1].step_first == 3 && g->layers[1].step_last == 3);
    stance_graph_destroy(g);
}

/* ---- local-to-model of a subtree --------------------------------------------------- */

/* The tree of parents in stance_skeleton_fast_order: a skeleton with runs. */
static stance_skeleton *skeleton_of(const int *parents, int n, int fast) {
    int order[256], pos[256], p2[256];
    for (int i = 0; i < n; i++) order[i] = i;
    if (fast) CHECK_OK(stance_skeleton_fast_order(parents, n, order, NULL));
    for (int i = 0; i < n; i++) pos[order[i]] = i;
    for (int i = 0; i < n; i++) p2[i] = parents[order[i]] < 0 ? -1 : pos[parents[order[i]]];
    stance_skeleton_desc d = {.joint_count = n, .parents = p2};
    stance_skeleton *sk = NULL;
    CHECK_OK(stance_skeleton_create(&d, NULL, &sk, NULL));
    return sk;
}

/* For each joint of sk: its subtree's local transforms changed, the ranged
 * pass over the model pose of the old ones gives the whole pass's model
 * pose of the new ones, bit for bit (every joint: the rest keeps its own). */
static int check_subtrees(const stance_skeleton *sk) {
    const int n = sk->joint_count;
    stance_pose local, model, ref;
    stance_pose_create(&local, n, NULL, NULL), stance_pose_create(&model, n, NULL, NULL), stance_pose_create(&ref, n, NULL, NULL);
    int checked = 0;
    for (int top = 0; top < n; top++) {
        random_pose(&local);
        CHECK_OK(stance_local_to_model(&model, &local, sk, NULL, NULL));
        unsigned char in[256] = {0};
        int last = top;
        for (int j = top; j < n; j++) {
            in[j] = j == top || (sk->parents[j] >= 0 && in[sk->parents[j]]);
            if (!in[j]) continue;
            last = j;
            stance_transform t;
            stance_pose_get(&local, j, &t, NULL);
            t.t[1] += 0.25f, t.s[0] *= 1.1f;
            qm_quat q = qm_qnorm(qm_q(t.r[0] + 0.1f, t.r[1], t.r[2] - 0.2f, t.r[3]));
            t.r[0] = q.x, t.r[1] = q.y, t.r[2] = q.z, t.r[3] = q.w;
            stance_pose_set(&local, j, &t, NULL);
        }
        CHECK_OK(stance_local_to_model(&ref, &local, sk, NULL, NULL));
        st_local_to_model_range(&model, &local, sk, sk->parents[top] < 0 ? -1 : top, last);
        CHECK(same_bits(&model, &ref));
        if (!same_bits(&model, &ref)) { fprintf(stderr, "  %d joints, subtree of joint %d\n", n, top); break; }
        checked++;
    }
    stance_pose_destroy(&local), stance_pose_destroy(&model), stance_pose_destroy(&ref);
    return checked;
}

static void test_subtree_local_to_model(void) {
    int subtrees = 0, runs = 0, tiles = 0;
    subtrees += check_subtrees(B.skeleton);
    tiles += !B.skeleton->l2m_runs;
    /* RobotExpressive's tree (43 joints), chains, forks and random trees, in
     * their own order and the fast one */
    static const int robot[43] = {-1, 0,  0,  2,  3,  4,  5,  6,  5,  8,  9,  10, 11, 12, 10, 14, 10, 16, 17, 10, 19, 20,
                                  5,  22, 23, 24, 25, 26, 24, 28, 24, 30, 31, 24, 33, 34, 2,  36, 2,  38, 0,  0,  0};
    int chain[37], fork[29], rnd[200];
    for (int j = 0; j < 37; j++) chain[j] = j - 1;
    for (int j = 0; j < 29; j++) fork[j] = j == 0 ? -1 : j < 5 ? 0 : j - 4;
    const int *trees[5] = {robot, chain, fork, rnd, rnd};
    const int sizes[5] = {43, 37, 29, 200, 61};
    for (int t = 0; t < 5; t++) {
        if (trees[t] == rnd)
            for (int j = 0; j < sizes[t]; j++) rnd[j] = j == 0 || frand(0, 1) < 0.05f ? -1 : (int)frand(0, (float)j - 0.01f);
        for (int fast = 0; fast < 2; fast++) {
            stance_skeleton *sk = skeleton_of(trees[t], sizes[t], fast);
            if (!sk) continue;
            subtrees += check_subtrees(sk);
            runs += sk->l2m_runs, tiles += !sk->l2m_runs;
            stance_skeleton_destroy(sk);
        }
    }
    printf("  %d subtrees recomputed bit for bit (%d skeletons with runs, %d with tiles and groups)\n", subtrees, runs, tiles);
    CHECK(runs > 0 && tiles > 0);
}

/* The IK stage: a two_bone and an aim entry on a walk; after each update
 * the model pose is the whole pass over the local pose, bit for bit (each
 * entry recomputed only its top joint's subtree), and the ranges are those
 * subtrees. */
static void test_ik_ranges(void) {
    stance_ik_desc ik[2];
    memset(ik, 0, sizeof ik);
    ik[0].name = "reach", ik[0].kind = STANCE_IK_TWO_BONE, ik[0].leg_count = 1, ik[0].softness = 0.05f;
    ik[0].legs[0].hip = "upperarm_r", ik[0].legs[0].knee = "forearm_r", ik[0].legs[0].ankle = "hand_r";
    ik[1].name = "look", ik[1].kind = STANCE_IK_AIM, ik[1].chain_count = 2, ik[1].max_angle = 1.0f;
    ik[1].chain[0] = "neck", ik[1].chain[1] = "head";
    ik[1].forward[2] = 1.0f;
    stance_state_desc st = {.name = "Walk", .clip = stance_builtin_clip(&B, "walk")};
    stance_machine_desc md = {.name = "m", .state_count = 1, .states = &st};
    stance_graph_desc gd = {.skeleton = B.skeleton, .machine_count = 1, .machines = &md, .ik_count = 2, .ik = ik};
    stance_graph *g = NULL;
    stance_error err = {0};
    CHECK_OK(stance_graph_create(&gd, NULL, &g, &err));
    if (!g) { fprintf(stderr, "ik graph: %s\n", err.message); return; }
    const stance_skeleton *sk = B.skeleton;
    const int tops[2] = {stance_skeleton_find(sk, "upperarm_r"), stance_skeleton_find(sk, "neck")};
    for (int e = 0; e < 2; e++) {
        int last = tops[e];
        for (int j = tops[e] + 1; j < sk->joint_count; j++)
            if (stance_skeleton_is_descendant(sk, j, tops[e])) last = j;
        CHECK(g->ik[e].l2m_from == tops[e] && g->ik[e].l2m_to == last);
    }
    stance_instance *inst = NULL;
    stance_workspace *ws = NULL;
    CHECK_OK(stance_instance_create(g, NULL, &inst, NULL));
    CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
    stance_pose ref;
    stance_pose_create(&ref, sk->joint_count, NULL, NULL);
    int same = 0, moved = 0;
    for (int f = 0; f < 120; f++) {
        const float hand[3] = {-0.4f + 0.2f * sinf(0.1f * (float)f), 1.3f, 0.3f}, look[3] = {0.5f * cosf(0.07f * (float)f), 1.6f, 2.0f};
        CHECK_OK(stance_instance_set_ik_target(inst, 0, hand, f % 40 < 30 ? 1.0f : 0.0f, NULL));
        CHECK_OK(stance_instance_set_ik_target(inst, 1, look, 0.8f, NULL));
        CHECK_OK(stance_instance_update(inst, 1.0f / 60.0f, ws, NULL));
        const stance_pose *l = stance_instance_local_pose(inst), *m = stance_instance_model_pose(inst);
        CHECK_OK(stance_local_to_model(&ref, l, sk, NULL, NULL));
        same += same_bits(&ref, m);
        const int h = stance_skeleton_find(sk, "hand_r");
        moved += fabsf(m->tx[h] - hand[0]) < 0.05f && fabsf(m->ty[h] - hand[1]) < 0.05f;
    }
    printf("  ik: %d of 120 updates' model poses the whole pass's bit for bit, the hand on its target in %d\n", same, moved);
    CHECK(same == 120);
    CHECK(moved > 30); /* the solves ran (the target is within reach) */
    stance_pose_destroy(&ref);
    stance_instance_destroy(inst);
    stance_workspace_destroy(ws);
    stance_graph_destroy(g);
}

/* ---- a switch's snapshot ------------------------------------------------------------- */

static float pose_diff(const stance_pose *a, const stance_pose *b) {
    float d = 0.0f;
    for (int j = 0; j < a->joint_count; j++) {
        const float v[10] = {a->tx[j] - b->tx[j], a->ty[j] - b->ty[j], a->tz[j] - b->tz[j], a->qx[j] - b->qx[j], a->qy[j] - b->qy[j],
                             a->qz[j] - b->qz[j], a->qw[j] - b->qw[j], a->sx[j] - b->sx[j], a->sy[j] - b->sy[j], a->sz[j] - b->sz[j]};
        for (int c = 0; c < 10; c++) d = fmaxf(d, fabsf(v[c]));
    }
    return d;
}

/* A frozen switch of Outer away from the state nesting Inner (a blend
 * space): at the switch frame (its eased weight 0) the pose is the
 * snapshot, which must be Outer's output as it stood: without history the
 * same frame advanced without transitions (Inner's blend, evaluated by the
 * job the switch left), with history the last frame's output (a copy). */
static void test_snapshot_of_a_nested_machine(void) {
    stance_graph *g = nested_graph(STANCE_SWITCH_FROZEN);
    if (!g) return;
    stance_workspace *ws = NULL;
    CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
    const int speed = stance_graph_find_param(g, "speed"), jump = stance_graph_find_param(g, "jump");
    const int outer = stance_graph_find_machine(g, "Outer");
    for (int history = 0; history < 2; history++) {
        stance_instance_desc d = {.history = history ? STANCE_HISTORY_ALL : STANCE_HISTORY_AUTO};
        stance_instance *a = NULL, *b = NULL;
        CHECK_OK(stance_instance_create_ex(g, &d, NULL, &a, NULL));
        CHECK_OK(stance_instance_create_ex(g, &d, NULL, &b, NULL));
        if (!a || !b) break;
        CHECK_OK(stance_instance_set_layer_weight(a, 1, 0.0f, 0.0f, NULL)); /* the base layer's pose only */
        CHECK_OK(stance_instance_set_float(a, speed, 2.2f, NULL));
        for (int f = 0; f < 40; f++) CHECK_OK(stance_instance_update(a, 1.0f / 60.0f, ws, NULL));
        CHECK_OK(stance_instance_set_trigger(a, jump, NULL));
        CHECK_OK(stance_instance_copy(b, a, NULL));
        stance_pose last;
        stance_pose_create(&last, B.skeleton->joint_count, NULL, NULL);
        stance_pose_copy(&last, stance_instance_local_pose(a), NULL);
        CHECK_OK(stance_instance_update(a, 1.0f / 60.0f, ws, NULL));
        CHECK_OK(stance_instance_update_ex(b, 1.0f / 60.0f, STANCE_UPDATE_NO_TRANSITIONS, ws, NULL));
        stance_machine_status ms;
        CHECK_OK(stance_instance_machine_status(a, outer, &ms, NULL));
        CHECK(ms.state == stance_graph_find_state(g, "Jump") && ms.transition >= 0 && ms.mode == STANCE_SWITCH_FROZEN);
        const stance_pose *want = history ? &last : stance_instance_local_pose(b);
        const float diff = pose_diff(stance_instance_local_pose(a), want);
        printf("  frozen switch %s history: the switch frame's pose %.2e from %s\n", history ? "with" : "without", (double)diff,
               history ? "the last frame's" : "the frame advanced without the switch");
        CHECK(diff <= 1e-6f);
        /* and the frame without the switch is not the last one: the test tells them apart */
        CHECK(pose_diff(stance_instance_local_pose(b), &last) > 1e-3f);
        stance_pose_destroy(&last);
        stance_instance_destroy(a), stance_instance_destroy(b);
    }
    stance_workspace_destroy(ws);
    stance_graph_destroy(g);
}

/* The workspace's jobs at their heaviest: a chain of 5 machines each
 * nesting the one before (the deepest nesting; requests are carried out in
 * machine order, so the deepest first), every one asked to play its
 * nesting state again (a snapshot of its whole chain) and then leaving it
 * at once (a second snapshot) in one update, all frozen without history:
 * more job plans than one round of switches may take (3 per machine),
 * within the workspace's 6 per machine (ASan watches the bound); the pose
 * stays finite and the model pose the whole pass over the local one. */
static void test_jobs_at_their_bound(void) {
    enum { M = STANCE_MAX_NEST + 1 };
    static char names[M][8], nest_name[M][8];
    static stance_state_desc states[M][2];
    static stance_transition_desc tr[M][2];
    static stance_machine_desc md[M];
    static stance_condition_desc go = {.param = "go", .op = STANCE_CMP_TRUE};
    for (int i = 0; i < M; i++) {
        snprintf(names[i], sizeof names[i], "M%d", i);
        snprintf(nest_name[i], sizeof nest_name[i], "M%d", i - 1);
        states[i][0] = i > 0 ? (stance_state_desc){.name = "N", .type = STANCE_MOTION_MACHINE, .machine = nest_name[i]}
                             : (stance_state_desc){.name = "N", .clip = stance_builtin_clip(&B, "walk")};
        states[i][1] = (stance_state_desc){.name = "C", .clip = stance_builtin_clip(&B, i & 1 ? "run" : "idle")};
        tr[i][0] = (stance_transition_desc){.from = "N", .to = "C", .condition_count = 1, .conditions = &go, .blend_time = 0.2f,
                                            .mode = STANCE_SWITCH_FROZEN};
        tr[i][1] = (stance_transition_desc){.from = "C", .to = "N", .blend_time = 0.2f, .mode = STANCE_SWITCH_FROZEN,
                                            .exit = STANCE_EXIT_NORMALIZED, .exit_time = 0.5f};
        md[i] = (stance_machine_desc){.name = names[i], .entry = "N", .state_count = 2, .states = states[i],
                                      .transition_count = 2, .transitions = tr[i]};
    }
    stance_param_desc pd = {.name = "go", .type = STANCE_PARAM_BOOL};
    stance_layer_desc ld = {.name = "base", .machine = names[M - 1]};
    stance_graph_desc gd = {.skeleton = B.skeleton, .param_count = 1, .params = &pd, .machine_count = M, .machines = md,
                            .layer_count = 1, .layers = &ld};
    stance_graph *g = NULL;
    stance_error err = {0};
    CHECK_OK(stance_graph_create(&gd, NULL, &g, &err));
    if (!g) { fprintf(stderr, "chain graph: %s\n", err.message); return; }
    stance_instance *inst = NULL;
    stance_workspace *ws = NULL;
    CHECK_OK(stance_instance_create(g, NULL, &inst, NULL));
    CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
    stance_pose ref;
    stance_pose_create(&ref, B.skeleton->joint_count, NULL, NULL);
    int most = 0, finite = 1, same = 0;
    for (int f = 0; f < 60; f++) {
        const int heavy = f % 20 == 10;
        CHECK_OK(stance_instance_set_bool(inst, 0, heavy, NULL));
        if (heavy) /* every machine plays its nesting state again: a snapshot of its chain each */
            for (int i = 0; i < M; i++) CHECK_OK(stance_instance_play(inst, g->machines[i].entry, STANCE_SWITCH_FROZEN, STANCE_EASE_SMOOTHSTEP, 0.2f, NULL));
        CHECK_OK(stance_instance_update(inst, 1.0f / 60.0f, ws, NULL));
        if (ws->job_plans_used > most) most = ws->job_plans_used;
        const stance_pose *l = stance_instance_local_pose(inst), *m = stance_instance_model_pose(inst);
        for (int j = 0; j < l->joint_count; j++) finite = finite && isfinite(l->tx[j]) && isfinite(l->qw[j]) && isfinite(m->ty[j]);
        CHECK_OK(stance_local_to_model(&ref, l, B.skeleton, NULL, NULL));
        same += same_bits(&ref, m);
    }
    printf("  a chain of %d machines, each switching twice in one update: %d job plans (one round's bound %d, the workspace's %d)\n",
           M, most, 3 * M, WS_JOB_PLANS_PER_MACHINE * M);
    CHECK(most > 3 * M && most <= WS_JOB_PLANS_PER_MACHINE * M);
    CHECK(finite && same == 60);
    stance_pose_destroy(&ref);
    stance_instance_destroy(inst);
    stance_workspace_destroy(ws);
    stance_graph_destroy(g);
}

int main(void) {
    stance_error err;
    if (stance_builtin_create(NULL, &B, &err)) { fprintf(stderr, "%s\n", err.message); return 1; }
    RUN(test_program);
    RUN(test_subtree_local_to_model);
    RUN(test_ik_ranges);
    RUN(test_snapshot_of_a_nested_machine);
    RUN(test_jobs_at_their_bound);
    stance_builtin_destroy(&B);
    return check_summary();
}
