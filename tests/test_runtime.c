/* tests/test_runtime.c - the runtime users call: switch modes inside nested
 * machines, the dt contract, workspaces (refused when too small, no
 * allocation per frame), the batch update (bit for bit the same as one by
 * one, and across threads), additive layers from precomputed deltas
 * against the per-frame computation, bytes per instance. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stance/stance.h"
#include "stance/build.h"
#include "stance_lesson/stance_lesson.h"
#include "core/base/platform.h" /* st_aligned_alloc / st_aligned_free */

static stance_builtin B;

typedef struct counter { long allocs, frees; } counter;
static void *c_alloc(void *u, size_t size, size_t align) {
    ((counter *)u)->allocs++;
    return st_aligned_alloc(align < 8 ? 8 : align, (size + align - 1) / align * align);
}
static void c_free(void *u, void *p, size_t size) {
    (void)size;
    ((counter *)u)->frees++;
    st_aligned_free(p);
}

/* The lesson graph (as stance_builtin_lesson_graph), with its Locomotion
 * machine either the base layer's machine or nested one level down in an
 * "Outer" machine's only state. */
static stance_graph *lesson(int nested, const stance_allocator *al) {
    const stance_clip *idle = stance_builtin_clip(&B, "idle"), *walk = stance_builtin_clip(&B, "walk");
    const stance_clip *run = stance_builtin_clip(&B, "run"), *jump = stance_builtin_clip(&B, "jump");
    const stance_clip *wave = stance_builtin_clip(&B, "wave"), *lean = stance_builtin_clip(&B, "lean");
    const stance_clip *breathe = stance_builtin_clip(&B, "breathe");
    const stance_param_desc params[] = {{"speed", STANCE_PARAM_FLOAT, 0.0f, 0.1f}, {"jump", STANCE_PARAM_TRIGGER, 0.0f, 0.0f}};
    const stance_blend_entry_desc move[] = {{idle, 0.0f, 0}, {walk, walk->root_speed, 0}, {run, run->root_speed, 0}};
    const stance_state_desc loco_states[] = {
        {.name = "Idle", .type = STANCE_MOTION_CLIP, .clip = idle},
        {.name = "Move", .type = STANCE_MOTION_BLEND1D, .entry_count = 3, .entries = move, .param_x = "speed", .speed_warp = 1},
        {.name = "Jump", .type = STANCE_MOTION_CLIP, .clip = jump, .once = 1},
    };
    const stance_condition_desc c_jump[] = {{.param = "jump", .op = STANCE_CMP_TRUE}};
    const stance_condition_desc c_moving[] = {{.param = "speed", .op = STANCE_CMP_GE, .value = 0.1f}};
    const stance_condition_desc c_still[] = {{.param = "speed", .op = STANCE_CMP_LT, .value = 0.1f}};
    const stance_transition_desc loco_trans[] = {
        {.from = "Idle", .to = "Jump", .condition_count = 1, .conditions = c_jump},
        {.from = "Idle", .to = "Move", .condition_count = 1, .conditions = c_moving},
        {.from = "Move", .to = "Jump", .condition_count = 1, .conditions = c_jump},
        {.from = "Move", .to = "Idle", .condition_count = 1, .conditions = c_still},
        {.from = "Jump", .to = "Move", .condition_count = 1, .conditions = c_moving, .exit = STANCE_EXIT_AT_END},
        {.from = "Jump", .to = "Idle", .condition_count = 1, .conditions = c_still, .exit = STANCE_EXIT_AT_END},
    };
    const stance_state_desc outer_states[] = {{.name = "Loco", .type = STANCE_MOTION_MACHINE, .machine = "Locomotion"}};
    const stance_state_desc breathe_states[] = {{.name = "Breathe", .type = STANCE_MOTION_CLIP, .clip = breathe}};
    const stance_state_desc lean_states[] = {{.name = "Lean", .type = STANCE_MOTION_CLIP, .clip = lean, .once = 1}};
    const stance_state_desc wave_states[] = {{.name = "Wave", .type = STANCE_MOTION_CLIP, .clip = wave}};
    const stance_machine_desc machines[] = {
        {.name = "Locomotion", .state_count = 3, .states = loco_states, .entry = "Idle", .transition_count = 6, .transitions = loco_trans},
        {.name = "Breathing", .state_count = 1, .states = breathe_states},
        {.name = "Leaning", .state_count = 1, .states = lean_states},
        {.name = "Waving", .state_count = 1, .states = wave_states},
        {.name = "Outer", .state_count = 1, .states = outer_states},
    };
    float mask[STANCE_MAX_JOINTS];
    stance_mask_subtree(B.skeleton, stance_skeleton_find(B.skeleton, "spine"), 1.0f, 0, mask, NULL);
    const stance_layer_desc layers[] = {
        {.name = "base", .machine = nested ? "Outer" : "Locomotion", .weight = 1.0f},
        {.name = "breathe", .machine = "Breathing", .mode = STANCE_LAYER_ADDITIVE, .priority = 1},
        {.name = "lean", .machine = "Leaning", .mode = STANCE_LAYER_ADDITIVE, .priority = 2},
        {.name = "wave", .machine = "Waving", .mask = mask, .priority = 3},
    };
    stance_graph_desc gd = {.skeleton = B.skeleton, .param_count = 2, .params = params,
                            .machine_count = nested ? 5 : 4, .machines = machines,
                            .layer_count = 4, .layers = layers, .default_blend_time = 0.25f};
    stance_graph *g = NULL;
    stance_error err = {0};
    if (stance_graph_create(&gd, al, &g, &err)) fprintf(stderr, "lesson graph: %s\n", err.message);
    return g;
}

static int pose_finite(const stance_pose *p) {
    const float *f = p->tx;
    for (int i = 0; i < p->padded_count * 10; i++)
        if (!isfinite(f[i])) return 0;
    return 1;
}

/* The measure: the largest frame-to-frame move of any joint (model
 * space) over the lesson script, with every switch in `mode`. */
static float worst_step(const stance_graph *g, stance_switch_mode mode) {
    const stance_instance_desc all = {.history = STANCE_HISTORY_ALL};
    stance_instance *inst = NULL;
    stance_workspace *ws = NULL;
    stance_instance_create_ex(g, &all, NULL, &inst, NULL);
    stance_workspace_create(g, NULL, &ws, NULL);
    stance_instance_override_switch(inst, mode, 0.25f, -1, NULL);
    const int J = B.skeleton->joint_count;
    float prev[STANCE_MAX_JOINTS][3], worst = 0.0f;
    for (int f = 0; f < STANCE_SCENARIO_FRAMES; f++) {
        float speed;
        int jp;
        stance_scenario_input(f / 60.0f, &speed, &jp);
        stance_instance_set_float(inst, 0, speed, NULL);
        if (jp) stance_instance_set_trigger(inst, 1, NULL);
        stance_instance_update(inst, 1.0f / 60.0f, ws, NULL);
        const stance_pose *m = stance_instance_model_pose(inst);
        for (int j = 0; j < J; j++) {
            if (f > 0) {
                float dx = m->tx[j] - prev[j][0], dy = m->ty[j] - prev[j][1], dz = m->tz[j] - prev[j][2];
                float d = sqrtf(dx * dx + dy * dy + dz * dz);
                if (d > worst) worst = d;
            }
            prev[j][0] = m->tx[j], prev[j][1] = m->ty[j], prev[j][2] = m->tz[j];
        }
    }
    stance_workspace_destroy(ws);
    stance_instance_destroy(inst);
    return worst * 100.0f;
}

static void test_nested_modes(void) {
    /* Every switch mode inside a nested machine gives the same figures as
     * at the top level: the lesson's measure (jump at a switch against the
     * old state alone), and the largest frame-to-frame joint move. */
    stance_graph *top = lesson(0, NULL), *nest = lesson(1, NULL);
    CHECK(top && nest);
    if (!top || !nest) return;
    for (int i = 0; i < STANCE_SCENARIO_MODES; i++) {
        stance_switch_mode mode = stance_scenario_modes[i];
        stance_scenario_result a, b;
        CHECK_OK(stance_scenario_run(top, mode, 0.25f, STANCE_EASE_SMOOTHSTEP, &a, NULL, NULL, NULL));
        CHECK_OK(stance_scenario_run(nest, mode, 0.25f, STANCE_EASE_SMOOTHSTEP, &b, NULL, NULL, NULL));
        CHECK(a.transitions == 8 && b.transitions == 8);
        CHECK_NEAR(a.worst_jump_cm, b.worst_jump_cm, 1e-4);
        CHECK_NEAR(a.worst_at_s, b.worst_at_s, 1e-6);
        CHECK(!strcmp(a.worst_transition, b.worst_transition));
        CHECK(a.max_clips_sampled == b.max_clips_sampled);
        float sa = worst_step(top, mode), sb = worst_step(nest, mode);
        CHECK_NEAR(sa, sb, 1e-4);
        printf("  %-18s jump at switch %6.2f / %6.2f cm (top / nested), worst step %6.2f / %6.2f cm\n",
               stance_switch_mode_name(mode), (double)a.worst_jump_cm, (double)b.worst_jump_cm, (double)sa, (double)sb);
    }
    /* and the modes differ there: the nested cut is not like the nested inertialization */
    CHECK(worst_step(nest, STANCE_SWITCH_CUT) > 2.0f * worst_step(nest, STANCE_SWITCH_INERTIALIZE));
    stance_graph_destroy(top);
    stance_graph_destroy(nest);
}

static void test_dt_contract(void) {
    stance_graph *g = lesson(0, NULL);
    for (int hist = 0; hist < 2; hist++) {
        const stance_instance_desc d = {.history = hist ? STANCE_HISTORY_ALL : STANCE_HISTORY_AUTO};
        stance_instance *inst = NULL;
        stance_workspace *ws = NULL;
        CHECK_OK(stance_instance_create_ex(g, &d, NULL, &inst, NULL));
        CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
        const float bad[] = {-0.01f, NAN, INFINITY, -INFINITY, 1.0001f, 5.0f};
        for (int i = 0; i < 6; i++) CHECK_STATUS(stance_instance_update(inst, bad[i], ws, NULL), STANCE_ERR_VALUE);
        CHECK(stance_instance_time(inst) == 0.0f);
        CHECK_STATUS(stance_instance_update(inst, 0.016f, NULL, NULL), STANCE_ERR_ARGUMENT);
        /* issue #12: update(0.099), update(1e-40), a dead-blend play, update(0.016) gave NaN on joint 0 */
        stance_instance_set_float(inst, 0, 1.5f, NULL);
        CHECK_OK(stance_instance_update(inst, 0.099f, ws, NULL));
        CHECK_OK(stance_instance_update(inst, 1e-40f, ws, NULL));
        CHECK(stance_instance_time(inst) == 0.099f); /* a subnormal step is no step */
        CHECK_OK(stance_instance_update(inst, 5e-7f, ws, NULL));
        CHECK(stance_instance_time(inst) == 0.099f);
        CHECK_OK(stance_instance_play(inst, stance_graph_find_state(g, "Idle"), STANCE_SWITCH_DEADBLEND, STANCE_EASE_SMOOTHSTEP, 0.3f, NULL));
        CHECK_OK(stance_instance_update(inst, 0.016f, ws, NULL));
        CHECK(pose_finite(stance_instance_local_pose(inst)) && pose_finite(stance_instance_model_pose(inst)));
        /* huge steps around switches stay finite */
        const float steps[] = {1.0f, 1e-6f, 1.0f, 0.5f, 1e-6f, 1.0f};
        const stance_switch_mode modes[] = {STANCE_SWITCH_INERTIALIZE, STANCE_SWITCH_DEADBLEND, STANCE_SWITCH_INERTIALIZE_SIMPLE,
                                            STANCE_SWITCH_FROZEN, STANCE_SWITCH_DEADBLEND, STANCE_SWITCH_INERTIALIZE};
        for (int i = 0; i < 6; i++) {
            stance_instance_set_float(inst, 0, (float)(i % 3) * 2.0f, NULL);
            CHECK_OK(stance_instance_play(inst, stance_graph_find_state(g, i % 2 ? "Move" : "Jump"), modes[i], STANCE_EASE_LINEAR, 0.25f, NULL));
            CHECK_OK(stance_instance_update(inst, steps[i], ws, NULL));
            CHECK_OK(stance_instance_update(inst, 1e-6f, ws, NULL));
            CHECK(pose_finite(stance_instance_local_pose(inst)) && pose_finite(stance_instance_model_pose(inst)));
        }
        stance_workspace_destroy(ws);
        stance_instance_destroy(inst);
    }
    stance_graph_destroy(g);
}

static void test_workspace_refused(void) {
    /* a workspace sized for a smaller graph (fewer machines) is refused */
    stance_graph *big = lesson(1, NULL);
    const stance_state_desc st = {.name = "Idle", .type = STANCE_MOTION_CLIP, .clip = stance_builtin_clip(&B, "idle")};
    const stance_machine_desc md = {.name = "M", .state_count = 1, .states = &st};
    stance_graph_desc gd = {.skeleton = B.skeleton, .machine_count = 1, .machines = &md};
    stance_graph *small = NULL;
    CHECK_OK(stance_graph_create(&gd, NULL, &small, NULL));
    stance_workspace *ws_small = NULL, *ws_big = NULL;
    CHECK_OK(stance_workspace_create(small, NULL, &ws_small, NULL));
    CHECK_OK(stance_workspace_create(big, NULL, &ws_big, NULL));
    CHECK(stance_workspace_size(ws_small) == stance_workspace_bytes(small));
    CHECK(stance_workspace_bytes(small) < stance_workspace_bytes(big));
    stance_instance *ib = NULL, *is = NULL;
    CHECK_OK(stance_instance_create(big, NULL, &ib, NULL));
    CHECK_OK(stance_instance_create(small, NULL, &is, NULL));
    stance_error err = {0};
    CHECK_STATUS(stance_workspace_fits(ws_small, big, &err), STANCE_ERR_MEMORY);
    CHECK(strstr(err.message, "machines") != NULL);
    CHECK_STATUS(stance_instance_update(ib, 0.016f, ws_small, NULL), STANCE_ERR_MEMORY);
    CHECK(stance_instance_time(ib) == 0.0f); /* refused: nothing changed */
    stance_instance *both[2] = {is, ib};
    CHECK_STATUS(stance_instances_update(both, 2, 0.016f, ws_small, NULL), STANCE_ERR_MEMORY);
    /* the larger workspace serves both graphs, in any order */
    CHECK_OK(stance_workspace_fits(ws_big, small, NULL));
    CHECK_OK(stance_instances_update(both, 2, 0.016f, ws_big, NULL));
    CHECK_OK(stance_instance_update(is, 0.016f, ws_big, NULL));
    CHECK_OK(stance_instance_update(ib, 0.016f, ws_big, NULL));
    stance_workspace *none = NULL;
    CHECK_STATUS(stance_workspace_create(NULL, NULL, &none, &err), STANCE_ERR_ARGUMENT);
    CHECK(none == NULL);
    stance_workspace_destroy(ws_small);
    stance_instance_destroy(ib), stance_instance_destroy(is);
    stance_workspace_destroy(ws_big);
    stance_graph_destroy(small), stance_graph_destroy(big);
}

/* ---- a crowd: the bench's inputs per character ------------------------------ */

#define CROWD 24
static void crowd_inputs(stance_instance *inst, int i, int f) {
    float ph = 0.37f * (float)i + (float)f / 150.0f;
    float speed = 2.0f + 2.0f * sinf(ph);
    stance_instance_set_float(inst, 0, speed < 0.05f ? 0.0f : speed, NULL);
    if ((f + 7 * i) % 97 == 0) stance_instance_set_trigger(inst, 1, NULL);
    if (f == 0) {
        stance_instance_set_layer_weight(inst, 1, 0.5f, 0.0f, NULL);
        stance_instance_set_layer_weight(inst, 2, 0.3f, 0.0f, NULL);
        if (i % 3 == 0) stance_instance_set_layer_weight(inst, 3, 1.0f, 0.0f, NULL);
    }
    if (f == 120 && i % 4 == 1) stance_instance_play(inst, stance_graph_find_state(stance_instance_graph(inst), "Jump"),
                                                     STANCE_SWITCH_INERTIALIZE, STANCE_EASE_SMOOTHSTEP, 0.2f, NULL);
}

static int same_output(const stance_instance *a, const stance_instance *b) {
    size_t pb = stance_pose_bytes(B.skeleton->joint_count);
    int na, nb;
    const stance_event *ea = stance_instance_events(a, &na, NULL), *eb = stance_instance_events(b, &nb, NULL);
    if (na != nb) return 0;
    for (int k = 0; k < na; k++)
        if (ea[k].type != eb[k].type || ea[k].state != eb[k].state || ea[k].time != eb[k].time) return 0;
    float ra[3], rb[3];
    stance_instance_root_motion(a, ra), stance_instance_root_motion(b, rb);
    return !memcmp(stance_instance_local_pose(a)->memory, stance_instance_local_pose(b)->memory, pb) &&
           !memcmp(stance_instance_model_pose(a)->memory, stance_instance_model_pose(b)->memory, pb) && !memcmp(ra, rb, sizeof ra);
}

static void test_batch_and_allocation(void) {
    counter cnt = {0, 0};
    stance_allocator al = {c_alloc, c_free, &cnt};
    stance_graph *g = lesson(0, &al);
    stance_instance *a[CROWD], *b[CROWD];
    for (int i = 0; i < CROWD; i++) {
        CHECK_OK(stance_instance_create(g, &al, &a[i], NULL));
        CHECK_OK(stance_instance_create(g, &al, &b[i], NULL));
    }
    stance_workspace *wa = NULL, *wb = NULL;
    CHECK_OK(stance_workspace_create(g, &al, &wa, NULL));
    CHECK_OK(stance_workspace_create(g, &al, &wb, NULL));
    const long before = cnt.allocs;
    int same = 1;
    for (int f = 0; f < 400; f++) {
        for (int i = 0; i < CROWD; i++) crowd_inputs(a[i], i, f), crowd_inputs(b[i], i, f);
        CHECK_OK(stance_instances_update(a, CROWD, 1.0f / 60.0f, wa, NULL));
        for (int i = 0; i < CROWD; i++) CHECK_OK(stance_instance_update(b[i], 1.0f / 60.0f, wb, NULL));
        for (int i = 0; i < CROWD; i++) same &= same_output(a[i], b[i]);
    }
    CHECK(same);
    CHECK(cnt.allocs == before); /* nothing allocated per frame */
    CHECK_STATUS(stance_instances_update(NULL, 1, 0.016f, wa, NULL), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_instances_update(a, -1, 0.016f, wa, NULL), STANCE_ERR_ARGUMENT);
    CHECK_OK(stance_instances_update(a, 0, 0.016f, wa, NULL));
    for (int i = 0; i < CROWD; i++) stance_instance_destroy(a[i]), stance_instance_destroy(b[i]);
    stance_workspace_destroy(wa), stance_workspace_destroy(wb);
    stance_graph_destroy(g);
    CHECK(cnt.allocs == cnt.frees);
}

typedef struct job { stance_instance **inst; int first, count, frames; stance_workspace *ws; } job;
static void *run_job(void *p) {
    job *j = p;
    for (int f = 0; f < j->frames; f++) {
        for (int i = j->first; i < j->first + j->count; i++) crowd_inputs(j->inst[i], i, f);
        stance_instances_update(j->inst + j->first, j->count, 1.0f / 60.0f, j->ws, NULL);
    }
    return NULL;
}

static void test_threads_bit_identical(void) {
    /* the crowd split over 2 threads (each its workspace) against 1 thread */
    stance_graph *g = lesson(0, NULL);
    stance_instance *one[CROWD], *two[CROWD];
    for (int i = 0; i < CROWD; i++) {
        stance_instance_create(g, NULL, &one[i], NULL);
        stance_instance_create(g, NULL, &two[i], NULL);
    }
    stance_workspace *ws[3];
    for (int k = 0; k < 3; k++) CHECK_OK(stance_workspace_create(g, NULL, &ws[k], NULL));
    job j1 = {one, 0, CROWD, 300, ws[0]};
    run_job(&j1);
    job ja = {two, 0, CROWD / 2, 300, ws[1]}, jb = {two, CROWD / 2, CROWD - CROWD / 2, 300, ws[2]};
    pthread_t ta, tb;
    CHECK(pthread_create(&ta, NULL, run_job, &ja) == 0);
    CHECK(pthread_create(&tb, NULL, run_job, &jb) == 0);
    pthread_join(ta, NULL), pthread_join(tb, NULL);
    int same = 1;
    for (int i = 0; i < CROWD; i++) same &= same_output(one[i], two[i]);
    CHECK(same);
    for (int i = 0; i < CROWD; i++) stance_instance_destroy(one[i]), stance_instance_destroy(two[i]);
    for (int k = 0; k < 3; k++) stance_workspace_destroy(ws[k]);
    stance_graph_destroy(g);
}

static void test_additive_deltas(void) {
    /* Additive layers play delta clips the graph built once; the result must
     * equal the per-frame computation: the delta of each layer's clip at its
     * time against its first frame, applied on the pose below (1e-5). */
    stance_graph *g = lesson(0, NULL);
    stance_instance *with = NULL, *base = NULL;
    stance_workspace *ws = NULL;
    stance_instance_create(g, NULL, &with, NULL);
    stance_instance_create(g, NULL, &base, NULL);
    stance_workspace_create(g, NULL, &ws, NULL);
    const int J = B.skeleton->joint_count;
    stance_pose expect, ref, sample, delta;
    stance_pose_create(&expect, J, NULL, NULL), stance_pose_create(&ref, J, NULL, NULL);
    stance_pose_create(&sample, J, NULL, NULL), stance_pose_create(&delta, J, NULL, NULL);
    const stance_clip *clips[2] = {stance_builtin_clip(&B, "breathe"), stance_builtin_clip(&B, "lean")};
    const float weights[2] = {0.5f, 0.3f};
    stance_instance_set_layer_weight(with, 1, weights[0], 0.0f, NULL);
    stance_instance_set_layer_weight(with, 2, weights[1], 0.0f, NULL);
    float worst = 0.0f;
    for (int f = 0; f < 240; f++) {
        float speed = f < 120 ? 1.5f : 4.0f;
        stance_instance_set_float(with, 0, speed, NULL), stance_instance_set_float(base, 0, speed, NULL);
        CHECK_OK(stance_instance_update(with, 1.0f / 60.0f, ws, NULL));
        CHECK_OK(stance_instance_update(base, 1.0f / 60.0f, ws, NULL));
        stance_pose_copy(&expect, stance_instance_local_pose(base), NULL);
        for (int l = 0; l < 2; l++) {
            stance_machine_status ms;
            stance_instance_machine_status(with, stance_graph_layer_machine(g, l + 1), &ms, NULL);
            float nt = ms.normalized_time, t = (nt - floorf(nt)) * clips[l]->duration;
            if (stance_graph_state_once(g, ms.state) && nt >= 1.0f) t = clips[l]->duration;
            stance_clip_sample(clips[l], 0.0f, NULL, &ref, NULL);
            stance_clip_sample(clips[l], t, NULL, &sample, NULL);
            stance_pose_additive_make(&delta, &sample, &ref, NULL);
            stance_pose_additive_apply(&expect, &expect, &delta, NULL, weights[l], NULL);
        }
        const stance_pose *got = stance_instance_local_pose(with);
        for (int j = 0; j < J; j++) {
            float d[10] = {got->tx[j] - expect.tx[j], got->ty[j] - expect.ty[j], got->tz[j] - expect.tz[j],
                           got->sx[j] - expect.sx[j], got->sy[j] - expect.sy[j], got->sz[j] - expect.sz[j]};
            float dot = got->qx[j] * expect.qx[j] + got->qy[j] * expect.qy[j] + got->qz[j] * expect.qz[j] + got->qw[j] * expect.qw[j];
            d[6] = 1.0f - fabsf(dot);
            for (int k = 0; k < 7; k++)
                if (fabsf(d[k]) > worst) worst = fabsf(d[k]);
        }
    }
    printf("  additive from deltas vs per-frame: largest difference %.2e\n", (double)worst);
    CHECK(worst <= 1e-5f);
    stance_pose_destroy(&expect), stance_pose_destroy(&ref), stance_pose_destroy(&sample), stance_pose_destroy(&delta);
    stance_instance_destroy(with), stance_instance_destroy(base);
    stance_workspace_destroy(ws);
    stance_graph_destroy(g);
}

static void test_bytes(void) {
    stance_graph *g = lesson(0, NULL);
    stance_instance *auto_i = NULL, *all_i = NULL;
    const stance_instance_desc all = {.history = STANCE_HISTORY_ALL};
    stance_instance_create(g, NULL, &auto_i, NULL);
    stance_instance_create_ex(g, &all, NULL, &all_i, NULL);
    size_t a = stance_instance_bytes(auto_i), h = stance_instance_bytes(all_i);
    printf("  lesson graph: %zu bytes per instance (history on every machine: %zu), workspace %zu\n", a, h,
           stance_workspace_bytes(g));
    CHECK(a <= 8704); /* issue 26: 8,512 since each of the 24 queued events carries its payload pointer and window reason */
    CHECK(h > a);
    /* a copy needs the same layout */
    CHECK_STATUS(stance_instance_copy(auto_i, all_i, NULL), STANCE_ERR_ARGUMENT);
    stance_instance_destroy(auto_i), stance_instance_destroy(all_i);
    stance_graph_destroy(g);
}

static void test_controller_states_targets(void) {
    /* the instance owns layer weights and fades: the controller states a
     * target once and reads the weights back, no fade of its own */
    stance_graph *g = lesson(0, NULL);
    stance_controller *c = NULL;
    stance_controller_desc cd = {.fade_time = 0.25f};
    CHECK_OK(stance_controller_create(g, &cd, NULL, &c, NULL));
    stance_workspace *ws = NULL;
    CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
    stance_instance *in = stance_controller_instance(c);
    const int wave = stance_graph_find_layer(g, "wave"), breathe = stance_graph_find_layer(g, "breathe");
    CHECK_OK(stance_controller_set(c, stance_graph_find_state(g, "Wave"), NULL));
    CHECK_OK(stance_controller_set(c, stance_graph_find_state(g, "Breathe"), NULL));
    CHECK(stance_instance_layer_target(in, wave) == 1.0f && stance_instance_layer_target(in, breathe) == 1.0f);
    for (int f = 0; f < 6; f++) CHECK_OK(stance_controller_update(c, 1.0f / 48.0f, ws, NULL)); /* half of 0.25 s */
    CHECK_NEAR(stance_instance_layer_weight(in, wave), 0.5, 1e-5);
    CHECK_NEAR(stance_controller_layer_weight(c, wave), 0.5, 1e-5);
    CHECK_NEAR(stance_controller_layer_weight(c, 0), 0.5, 1e-5);
    CHECK_NEAR(stance_controller_layer_weight(c, breathe), stance_instance_layer_weight(in, breathe), 0);
    CHECK_NEAR(stance_instance_layer_weight(in, breathe), 0.5, 1e-5);
    CHECK_OK(stance_controller_reset(c, stance_graph_find_state(g, "Wave"), NULL));
    CHECK(stance_instance_layer_target(in, wave) == 0.0f);
    for (int f = 0; f < 30; f++) CHECK_OK(stance_controller_update(c, 1.0f / 60.0f, ws, NULL));
    CHECK(stance_instance_layer_weight(in, wave) == 0.0f && !stance_instance_layer_enabled(in, wave));
    CHECK(stance_controller_layer_weight(c, 0) == 1.0f);
    stance_workspace_destroy(ws);
    stance_controller_destroy(c);
    stance_graph_destroy(g);
}

static void test_random_calls_finite(void) {
    /* random plays (any mode, any state, nested ones too), overrides, layer
     * weights and steps from 0 to 1 s: every pose stays finite */
    stance_graph *g = lesson(1, NULL);
    const int S = stance_graph_state_count(g);
    unsigned seed = 99;
    int bad = 0;
    for (int hist = 0; hist < 2; hist++) {
        const stance_instance_desc d = {.history = hist ? STANCE_HISTORY_ALL : STANCE_HISTORY_AUTO};
        stance_instance *in = NULL;
        stance_workspace *ws = NULL;
        stance_instance_create_ex(g, &d, NULL, &in, NULL);
        stance_workspace_create(g, NULL, &ws, NULL);
        for (int i = 0; i < 3000; i++) {
            seed = seed * 1103515245u + 12345u;
            unsigned r = (seed >> 16) % 16, k = seed >> 8;
            if (r < 3) stance_instance_play(in, (int)(k % (unsigned)S), (stance_switch_mode)(k % STANCE_SWITCH_MODE_COUNT),
                                            (stance_easing)(k % 2), (float)(k % 7) * 0.1f, NULL);
            else if (r < 4) stance_instance_override_switch(in, (int)(k % 7) - 1, (float)(k % 5) * 0.1f, -1, NULL);
            else if (r < 6) stance_instance_set_layer_weight(in, 1 + (int)(k % 3), (float)(k % 11) / 10.0f, (float)(k % 4) * 0.1f, NULL);
            else if (r < 8) stance_instance_set_float(in, 0, (float)(k % 50) / 10.0f, NULL);
            else if (r < 9) stance_instance_set_trigger(in, 1, NULL);
            else if (r < 10) stance_instance_set_layer_enabled(in, 1 + (int)(k % 3), (int)(k % 2), NULL);
            const float steps[6] = {1.0f / 60.0f, 0.0f, 1e-7f, 1.0f, 0.25f, 1e-38f};
            if (stance_instance_update(in, steps[k % 6], ws, NULL)) bad++;
            if (!pose_finite(stance_instance_local_pose(in)) || !pose_finite(stance_instance_model_pose(in))) bad++;
            float root[3];
            stance_instance_root_motion(in, root);
            if (!isfinite(root[0]) || !isfinite(root[1]) || !isfinite(root[2])) bad++;
        }
        stance_workspace_destroy(ws);
        stance_instance_destroy(in);
    }
    CHECK(bad == 0);
    stance_graph_destroy(g);
}

int main(void) {
    if (stance_builtin_create(NULL, &B, NULL)) return 1;
    RUN(test_nested_modes);
    RUN(test_dt_contract);
    RUN(test_workspace_refused);
    RUN(test_batch_and_allocation);
    RUN(test_threads_bit_identical);
    RUN(test_additive_deltas);
    RUN(test_bytes);
    RUN(test_controller_states_targets);
    RUN(test_random_calls_finite);
    stance_builtin_destroy(&B);
    return check_summary();
}
