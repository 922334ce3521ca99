/* tests/test_api.c - the error convention of the public API (stance/base.h,
 * docs/api.md; issue 23) on the calls that took no message buffer before:
 * a refused call returns its status with err and without (NULL), err gets
 * that status and one line naming the call and what was wrong, and what the
 * call was given is unchanged (an instance's whole block, a pose's bytes);
 * an accepted call leaves err STANCE_OK with an empty message, whatever err
 * held before. The expected statuses and phrases are the headers'. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "refusal.h"
#include "stance/build.h"
#include "stance/graph_query.h"
#include "stance/stance.h"
#include "stance_lesson/stance_lesson.h"

static stance_builtin B;

#define POSE_BYTES(p) stance_pose_bytes((p)->joint_count)

static stance_graph *lesson(void) {
    stance_graph *g = NULL;
    stance_error err;
    if (stance_builtin_lesson_graph(&B, NULL, &g, &err)) fprintf(stderr, "lesson graph: %s\n", err.message);
    return g;
}

/* A graph on a skeleton of 2 joints (its workspace is too small for the lesson graph). */
static stance_skeleton *tiny_skeleton;
static stance_clip *tiny_clip;
static stance_graph *tiny(void) {
    const int parents[2] = {-1, 0};
    stance_skeleton_desc sd = {.joint_count = 2, .parents = parents};
    stance_error err;
    if (!tiny_skeleton && stance_skeleton_create(&sd, NULL, &tiny_skeleton, &err)) return NULL;
    const float times[2] = {0.0f, 1.0f}, values[6] = {0, 0, 0, 1, 0, 0};
    stance_track_desc td = {.joint = 1, .channel = STANCE_CHANNEL_TRANSLATION, .key_count = 2, .times = times,
                            .values = values};
    stance_clip_desc cd = {.name = "move", .track_count = 1, .tracks = &td};
    if (!tiny_clip && stance_clip_create(&cd, tiny_skeleton, NULL, &tiny_clip, &err)) return NULL;
    stance_state_desc st = {.name = "S", .clip = tiny_clip};
    stance_machine_desc m = {.name = "M", .state_count = 1, .states = &st};
    stance_graph_desc gd = {.skeleton = tiny_skeleton, .machine_count = 1, .machines = &m};
    stance_graph *g = NULL;
    if (stance_graph_create(&gd, NULL, &g, &err)) fprintf(stderr, "tiny: %s\n", err.message);
    return g;
}

static void test_instance_calls(void) {
    stance_graph *g = lesson(), *t = tiny();
    CHECK(g && t);
    if (!g || !t) return;
    stance_instance *inst = NULL, *other = NULL, *small = NULL;
    stance_workspace *ws = NULL, *small_ws = NULL;
    CHECK_OK(stance_instance_create(g, NULL, &inst, NULL));
    CHECK_OK(stance_instance_create(t, NULL, &small, NULL));
    stance_instance_desc all = {STANCE_HISTORY_ALL};
    CHECK_OK(stance_instance_create_ex(g, &all, NULL, &other, NULL));
    CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
    CHECK_OK(stance_workspace_create(t, NULL, &small_ws, NULL));
    const size_t nb = stance_instance_bytes(inst);
    ACCEPTED(stance_instance_update(inst, 1.0f / 60, ws, E));
    ACCEPTED(stance_instance_update_ex(inst, 1.0f / 60, STANCE_UPDATE_NO_TRANSITIONS, ws, E));
    /* update: dt, the workspace (NULL, too small), the instance */
    REFUSED(inst, nb, STANCE_ERR_VALUE, stance_instance_update(inst, NAN, ws, E), "instance update", "dt nan",
            "not finite in [0, 1]");
    REFUSED(inst, nb, STANCE_ERR_VALUE, stance_instance_update_ex(inst, 1.5f, 0, ws, E), "dt 1.5");
    REFUSED(inst, nb, STANCE_ERR_ARGUMENT, stance_instance_update(inst, 0.1f, NULL, E), "workspace is NULL");
    REFUSED(NULL, 0, STANCE_ERR_ARGUMENT, stance_instance_update(NULL, 0.1f, ws, E), "instance is NULL or destroyed");
    REFUSED(inst, nb, STANCE_ERR_MEMORY, stance_instance_update(inst, 0.1f, small_ws, E), "instance update",
            "made for 2 joints and 1 machines");
    /* the batch: the first refused instance by its index, the others updated */
    {
        stance_instance *batch[3] = {small, inst, NULL};
        ACCEPTED(stance_instances_update(batch, 1, 1.0f / 60, ws, E));
        stance_error e;
        CHECK_STATUS(stance_instances_update(batch, 3, 1.0f / 60, small_ws, junk(&e)), STANCE_ERR_MEMORY);
        CHECK(e.status == STANCE_ERR_MEMORY && strstr(e.message, "instances update: instance 1:") != NULL);
        batch[1] = small;
        CHECK_STATUS(stance_instances_update(batch, 3, 1.0f / 60, small_ws, junk(&e)), STANCE_ERR_ARGUMENT);
        CHECK(strstr(e.message, "instance 2: instance is NULL") != NULL);
        REFUSED(NULL, 0, STANCE_ERR_ARGUMENT, stance_instances_update(batch, -1, 0.1f, ws, E), "count is negative");
        REFUSED(NULL, 0, STANCE_ERR_VALUE, stance_instances_update(batch, 1, INFINITY, ws, E), "dt inf");
    }
    /* copy, reset, override, ground, machines, layers, transfer */
    REFUSED(inst, nb, STANCE_ERR_ARGUMENT, stance_instance_copy(inst, small, E), "instance copy", "different graphs");
    REFUSED(inst, nb, STANCE_ERR_ARGUMENT, stance_instance_copy(inst, other, E), "different descs");
    REFUSED(NULL, 0, STANCE_ERR_ARGUMENT, stance_instance_copy(NULL, inst, E), "instance copy", "NULL or destroyed");
    ACCEPTED(stance_instance_copy(inst, inst, E));
    REFUSED(NULL, 0, STANCE_ERR_ARGUMENT, stance_instance_reset(NULL, E), "instance reset", "NULL");
    ACCEPTED(stance_instance_reset(inst, E));
    REFUSED(inst, nb, STANCE_ERR_ARGUMENT, stance_instance_override_switch(inst, 99, 0.0f, -1, E), "override switch",
            "mode 99");
    REFUSED(inst, nb, STANCE_ERR_VALUE, stance_instance_override_switch(inst, -1, NAN, -1, E), "blend time nan");
    ACCEPTED(stance_instance_override_switch(inst, -1, 0.0f, -1, E));
    REFUSED(NULL, 0, STANCE_ERR_ARGUMENT, stance_instance_set_ground(NULL, NULL, NULL, E), "set ground");
    ACCEPTED(stance_instance_set_ground(inst, NULL, NULL, E));
    stance_machine_status ms = {0};
    REFUSED(&ms, sizeof ms, STANCE_ERR_ARGUMENT, stance_instance_machine_status(inst, 99, &ms, E), "machine status",
            "machine 99 is not in 0..");
    REFUSED(NULL, 0, STANCE_ERR_ARGUMENT, stance_instance_machine_status(inst, 0, NULL, E), "out is NULL");
    ACCEPTED(stance_instance_machine_status(inst, 0, &ms, E));
    const int layers = stance_graph_layer_count(g);
    CHECK(layers >= 2);
    REFUSED(inst, nb, STANCE_ERR_ARGUMENT, stance_instance_set_layer_enabled(inst, 0, 0, E), "set layer enabled",
            "layer 0", "cannot be disabled");
    REFUSED(inst, nb, STANCE_ERR_ARGUMENT, stance_instance_set_layer_enabled(inst, layers, 1, E), "is not in 0..");
    ACCEPTED(stance_instance_set_layer_enabled(inst, 1, 0, E));
    ACCEPTED(stance_instance_set_layer_enabled(inst, 1, 1, E));
    REFUSED(inst, nb, STANCE_ERR_VALUE, stance_instance_set_layer_weight(inst, 1, NAN, 0.0f, E), "set layer weight",
            "weight nan");
    REFUSED(inst, nb, STANCE_ERR_VALUE, stance_instance_set_layer_weight(inst, 1, 0.5f, 61.0f, E), "fade time 61");
    REFUSED(inst, nb, STANCE_ERR_ARGUMENT, stance_instance_set_layer_weight(inst, 0, 0.5f, 0.0f, E),
            "layer 0 (the base layer) keeps weight 1");
    REFUSED(inst, nb, STANCE_ERR_ARGUMENT, stance_instance_set_layer_weight(inst, -1, 0.5f, 0.0f, E), "layer -1");
    ACCEPTED(stance_instance_set_layer_weight(inst, 1, 0.5f, 0.25f, E));
    ACCEPTED(stance_instance_set_layer_weight(inst, 0, 1.0f, 0.0f, E));
    {
        char report[256];
        REFUSED(inst, nb, STANCE_ERR_ARGUMENT, stance_instance_transfer(inst, NULL, report, sizeof report, E),
                "instance transfer", "from is NULL");
        ACCEPTED(stance_instance_transfer(inst, other, report, sizeof report, E));
    }
    /* the controller's update */
    stance_controller *ctl = NULL;
    CHECK_OK(stance_controller_create(g, NULL, NULL, &ctl, NULL));
    REFUSED(NULL, 0, STANCE_ERR_ARGUMENT, stance_controller_update(ctl, 0.1f, NULL, E), "controller update",
            "workspace is NULL");
    REFUSED(NULL, 0, STANCE_ERR_VALUE, stance_controller_update(ctl, -1.0f, ws, E), "dt -1");
    REFUSED(NULL, 0, STANCE_ERR_MEMORY, stance_controller_update(ctl, 0.1f, small_ws, E), "made for 2 joints");
    ACCEPTED(stance_controller_update(ctl, 0.1f, ws, E));
    stance_controller_destroy(ctl);
    stance_instance_destroy(inst), stance_instance_destroy(other), stance_instance_destroy(small);
    stance_workspace_destroy(ws), stance_workspace_destroy(small_ws);
    stance_graph_destroy(g), stance_graph_destroy(t);
}

static void test_graph_queries(void) {
    stance_graph *g = lesson();
    CHECK(g != NULL);
    if (!g) return;
    stance_transition_info ti;
    stance_condition_info ci;
    const int n = stance_graph_transition_count(g);
    CHECK(n > 0);
    memset(&ti, 0x5A, sizeof ti);
    REFUSED(&ti, sizeof ti, STANCE_ERR_ARGUMENT, stance_graph_transition(g, n, &ti, E), "graph transition",
            "is not in 0..");
    REFUSED(NULL, 0, STANCE_ERR_ARGUMENT, stance_graph_transition(NULL, 0, &ti, E), "graph or out is NULL");
    ACCEPTED(stance_graph_transition(g, 0, &ti, E));
    memset(&ci, 0x5A, sizeof ci);
    REFUSED(&ci, sizeof ci, STANCE_ERR_ARGUMENT, stance_graph_condition(g, 0, ti.condition_count, &ci, E),
            "graph condition", "(transition 0)");
    REFUSED(&ci, sizeof ci, STANCE_ERR_ARGUMENT, stance_graph_condition(g, -1, 0, &ci, E), "transition -1");
    int first = -7, count = -7;
    REFUSED(NULL, 0, STANCE_ERR_ARGUMENT, stance_graph_machine_states(g, 64, &first, &count, E), "graph machine states",
            "machine 64");
    CHECK(first == -7 && count == -7);
    ACCEPTED(stance_graph_machine_states(g, 0, &first, &count, E));
    CHECK(first == 0 && count > 0);
    stance_graph_destroy(g);
}

static void test_clip_and_pose_calls(void) {
    const stance_skeleton *sk = B.skeleton;
    const stance_clip *walk = stance_builtin_clip(&B, "walk");
    const int J = sk->joint_count;
    stance_pose a, b, c, wrong;
    CHECK_OK(stance_pose_create(&a, J, NULL, NULL));
    CHECK_OK(stance_pose_create(&b, J, NULL, NULL));
    CHECK_OK(stance_pose_create(&c, J, NULL, NULL));
    CHECK_OK(stance_pose_create(&wrong, J - 1, NULL, NULL));
    ACCEPTED(stance_clip_sample(walk, 0.3f, NULL, &a, E));
    ACCEPTED(stance_clip_sample(walk, 0.5f, NULL, &b, E));
    const size_t pb = POSE_BYTES(&a);
    /* the clip */
    REFUSED(wrong.memory, POSE_BYTES(&wrong), STANCE_ERR_ARGUMENT, stance_clip_sample(walk, 0.1f, NULL, &wrong, E),
            "clip sample", "out has", "joints, clip 'walk'");
    REFUSED(c.memory, pb, STANCE_ERR_VALUE, stance_clip_sample(walk, NAN, NULL, &c, E), "clip sample", "time nan");
    REFUSED(NULL, 0, STANCE_ERR_ARGUMENT, stance_clip_sample(NULL, 0.1f, NULL, &c, E), "clip is NULL");
    REFUSED(c.memory, pb, STANCE_ERR_ARGUMENT, stance_clip_sample_velocity(walk, 0.1f, NULL, &c, &c, E),
            "clip sample velocity", "the same pose");
    ACCEPTED(stance_clip_sample_velocity(walk, 0.1f, NULL, &a, &c, E));
    float t = 0.25f;
    int hits = 0, wraps = 0;
    REFUSED(NULL, 0, STANCE_ERR_ARGUMENT, stance_clip_advance(walk, 0.0f, 0.1f, 1, NULL, NULL, 0, &hits, &wraps, E),
            "clip advance", "new_time is NULL");
    REFUSED(&t, sizeof t, STANCE_ERR_VALUE, stance_clip_advance(walk, t, INFINITY, 1, &t, NULL, 0, &hits, &wraps, E),
            "dt inf");
    REFUSED(&t, sizeof t, STANCE_ERR_ARGUMENT, stance_clip_advance(walk, t, 0.1f, 1, &t, NULL, 2, &hits, &wraps, E),
            "hits NULL");
    ACCEPTED(stance_clip_advance(walk, t, 0.1f, 1, &t, NULL, 0, &hits, &wraps, E));
    float r[3] = {7, 7, 7};
    REFUSED(r, sizeof r, STANCE_ERR_VALUE, stance_clip_root_position(walk, NAN, r, E), "clip root position");
    REFUSED(NULL, 0, STANCE_ERR_ARGUMENT, stance_clip_root_motion(walk, 0.0f, 0.1f, 1, NULL, E), "clip root motion",
            "out is NULL");
    REFUSED(r, sizeof r, STANCE_ERR_VALUE, stance_clip_root_motion(walk, 0.0f, -INFINITY, 1, r, E), "dt -inf");
    ACCEPTED(stance_clip_root_position(walk, 0.1f, r, E));
    ACCEPTED(stance_clip_root_motion(walk, 0.9f, 0.5f, 1, r, E));
    /* the pose calls */
    REFUSED(NULL, 0, STANCE_ERR_ARGUMENT, stance_pose_set_identity(NULL, E), "pose set identity", "pose is NULL");
    ACCEPTED(stance_pose_set_identity(&c, E));
    REFUSED(c.memory, pb, STANCE_ERR_ARGUMENT, stance_pose_set_rest(&c, NULL, E), "pose set rest", "skeleton is NULL");
    REFUSED(wrong.memory, POSE_BYTES(&wrong), STANCE_ERR_ARGUMENT, stance_pose_set_rest(&wrong, sk, E), "not",
            "joints");
    ACCEPTED(stance_pose_set_rest(&c, sk, E));
    REFUSED(wrong.memory, POSE_BYTES(&wrong), STANCE_ERR_ARGUMENT, stance_pose_copy(&wrong, &a, E), "pose copy",
            "dst has");
    ACCEPTED(stance_pose_copy(&c, &a, E));
    stance_transform tr = stance_transform_identity();
    REFUSED(&tr, sizeof tr, STANCE_ERR_ARGUMENT, stance_pose_get(&a, J, &tr, E), "pose get", "joint");
    ACCEPTED(stance_pose_get(&a, 1, &tr, E));
    tr.s[1] = 1e9f; /* past STANCE_MAX_SCALE */
    REFUSED(c.memory, pb, STANCE_ERR_VALUE, stance_pose_set(&c, 1, &tr, E), "pose set", "joint 1:");
    tr.s[1] = 1.0f, tr.t[0] = NAN;
    REFUSED(c.memory, pb, STANCE_ERR_VALUE, stance_pose_set(&c, 1, &tr, E), "pose set");
    tr.t[0] = 0.0f;
    ACCEPTED(stance_pose_set(&c, 1, &tr, E));
    {
        const stance_pose *two[2] = {&a, &b}, *bad[2] = {&a, &wrong};
        const float w[2] = {0.25f, 0.75f}, wnan[2] = {0.5f, NAN};
        ACCEPTED(stance_pose_blend(&c, two, w, 2, 0.0f, sk, E));
        REFUSED(c.memory, pb, STANCE_ERR_ARGUMENT, stance_pose_blend(&c, two, w, 0, 0.0f, sk, E), "pose blend",
                "count 0");
        REFUSED(c.memory, pb, STANCE_ERR_VALUE, stance_pose_blend(&c, two, wnan, 2, 0.0f, sk, E), "weights[1] = nan");
        REFUSED(c.memory, pb, STANCE_ERR_ARGUMENT, stance_pose_blend(&c, bad, w, 2, 0.0f, sk, E), "poses[1]");
        REFUSED(c.memory, pb, STANCE_ERR_VALUE, stance_pose_blend(&c, two, w, 2, -1.0f, sk, E), "threshold -1");
        const float zero[2] = {0.0f, 0.0f};
        REFUSED(c.memory, pb, STANCE_ERR_ARGUMENT, stance_pose_blend(&c, two, zero, 2, 0.0f, NULL, E),
                "under the threshold");
    }
    REFUSED(c.memory, pb, STANCE_ERR_VALUE, stance_pose_blend_masked(&c, &a, &b, NULL, 2.0f, E), "pose blend masked",
            "weight 2");
    ACCEPTED(stance_pose_blend_masked(&c, &a, &b, NULL, 0.5f, E));
    stance_pose model;
    CHECK_OK(stance_pose_create(&model, J, NULL, NULL));
    ACCEPTED(stance_local_to_model(&model, &b, sk, NULL, E));
    REFUSED(a.memory, pb, STANCE_ERR_ARGUMENT, stance_pose_blend_mesh(&a, &a, &b, &model, NULL, 0.5f, sk, E),
            "pose blend mesh", "must not alias");
    ACCEPTED(stance_pose_blend_mesh(&c, &a, &b, &model, NULL, 0.5f, sk, E));
    REFUSED(c.memory, pb, STANCE_ERR_ARGUMENT, stance_pose_additive_make(&c, &wrong, &a, E), "pose additive make",
            "pose has");
    ACCEPTED(stance_pose_additive_make(&c, &b, &a, E));
    REFUSED(a.memory, pb, STANCE_ERR_VALUE, stance_pose_additive_apply(&a, &a, &c, NULL, NAN, E), "pose additive apply",
            "weight nan");
    ACCEPTED(stance_pose_additive_apply(&a, &a, &c, NULL, 0.5f, E));
    REFUSED(a.memory, pb, STANCE_ERR_ARGUMENT, stance_local_to_model(&a, &a, sk, NULL, E), "local to model",
            "the same pose");
    {
        stance_transform root = stance_transform_identity();
        root.r[3] = INFINITY;
        REFUSED(model.memory, pb, STANCE_ERR_VALUE, stance_local_to_model(&model, &a, sk, &root, E), "not finite");
    }
    REFUSED(c.memory, pb, STANCE_ERR_ARGUMENT, stance_model_to_local(&c, &model, NULL, E), "model to local",
            "skeleton is NULL");
    ACCEPTED(stance_model_to_local(&c, &model, sk, E));
    float d = -1.0f;
    int joint = -1;
    REFUSED(NULL, 0, STANCE_ERR_ARGUMENT, stance_pose_distance(&a, &b, NULL, &joint, E), "pose distance",
            "distance is NULL");
    REFUSED(&d, sizeof d, STANCE_ERR_ARGUMENT, stance_pose_distance(&a, &wrong, &d, &joint, E), "b has");
    ACCEPTED(stance_pose_distance(&a, &b, &d, &joint, E));
    float *m = calloc((size_t)J * 16, sizeof(float));
    CHECK(m != NULL);
    if (m) {
        REFUSED(m, sizeof(float) * 16 * (size_t)J, STANCE_ERR_ARGUMENT, stance_pose_to_matrices(&model, m, J - 1, E),
                "pose to matrices", "holds");
        ACCEPTED(stance_pose_to_matrices(&model, m, J, E));
        /* the skin's matrices */
        const stance_skin *skin = B.skin;
        REFUSED(m, sizeof(float) * 16 * (size_t)J, STANCE_ERR_ARGUMENT,
                stance_skin_matrices(skin, &model, m, skin->joint_count - 1, E), "skin matrices", "room for");
        REFUSED(m, sizeof(float) * 16 * (size_t)J, STANCE_ERR_ARGUMENT,
                stance_skin_matrices(skin, &wrong, m, skin->joint_count, E), "the model pose has");
        ACCEPTED(stance_skin_matrices(skin, &model, m, skin->joint_count, E));
        free(m);
    }
    stance_pose_destroy(&a), stance_pose_destroy(&b), stance_pose_destroy(&c), stance_pose_destroy(&wrong);
    stance_pose_destroy(&model);
}

int main(void) {
    stance_error err;
    if (stance_builtin_create(NULL, &B, &err)) {
        fprintf(stderr, "builtin: %s\n", err.message);
        return 1;
    }
    RUN(test_instance_calls);
    RUN(test_graph_queries);
    RUN(test_clip_and_pose_calls);
    stance_clip_destroy(tiny_clip);
    stance_skeleton_destroy(tiny_skeleton);
    stance_builtin_destroy(&B);
    return check_summary();
}
