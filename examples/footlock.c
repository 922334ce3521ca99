/* examples/footlock.c - foot locking and IK on the built-in character: contacts
 * found once from the walk, the feet locked in the world while the root
 * moves up a slope, then a two-bone reach with the right arm and a look-at
 * over chest, neck and head. docs/ik-footlock.md shows this file. */
#include <stdio.h>
#include <stance/build.h>
#include <stance/stance.h>
#include <stance_lesson/stance_lesson.h>

static float ground(void *user, float x, float z) { (void)user; (void)x; return 0.05f * z; } /* a gentle slope */

int main(void) {
    stance_builtin b;
    stance_error err;
    if (stance_builtin_create(NULL, &b, &err)) { puts(err.message); return 1; }
    const stance_skeleton *sk = b.skeleton;
    const stance_clip *walk = stance_builtin_clip(&b, "walk");
    int foot[2] = {stance_skeleton_find(sk, "foot_l"), stance_skeleton_find(sk, "foot_r")};

    /* once per clip, when the asset or graph is built: where each foot is planted */
    stance_contact_desc cd = {.foot_count = 2, .feet = foot};  /* zero fields: default thresholds */
    stance_contacts *contacts;
    if (stance_contacts_create(&cd, walk, sk, NULL, &contacts, &err)) { puts(err.message); return 1; }

    /* per character: the legs, and the lock state (plain data, zeroed) */
    stance_footlock_desc fd = {.leg_count = 2, .ground = ground};
    fd.legs[0] = (stance_leg_desc){.upper = stance_skeleton_find(sk, "upleg_l"), .lower = stance_skeleton_find(sk, "leg_l"), .foot = foot[0]};
    fd.legs[1] = (stance_leg_desc){.upper = stance_skeleton_find(sk, "upleg_r"), .lower = stance_skeleton_find(sk, "leg_r"), .foot = foot[1]};
    stance_footlock_state lock = {0};

    stance_pose local, model;
    stance_pose_create(&local, sk->joint_count, NULL, &err);
    stance_pose_create(&model, sk->joint_count, NULL, &err);
    stance_transform root = stance_transform_identity();   /* the character in the world */
    float t = 0.0f, dt = 1.0f / 60;
    for (int frame = 0; frame < 120; frame++) {             /* per frame: no allocation */
        stance_clip_sample(walk, t, NULL, &local, NULL);
        stance_local_to_model(&model, &local, sk, NULL, NULL);
        float contact[2] = {(float)stance_contacts_planted(contacts, 0, t), (float)stance_contacts_planted(contacts, 1, t)};
        root.t[2] += walk->root_speed * dt;                 /* root motion, accumulated by the caller */
        root.t[1] = ground(NULL, root.t[0], root.t[2]);
        if (stance_footlock_apply(&fd, &lock, contact, &root, dt, sk, &local, &model, &err)) { puts(err.message); return 1; }
        /* local and model now hold the locked pose; lock.feet[i].out is each foot's world position */
        stance_clip_advance(walk, t, dt, 1, &t, NULL, 0, NULL, NULL, NULL);
    }

    /* a one-off two-bone solve: the right hand to a point, elbow towards a pole */
    stance_two_bone_desc arm = {.upper = stance_skeleton_find(sk, "upperarm_r"), .lower = stance_skeleton_find(sk, "forearm_r"),
                                .end = stance_skeleton_find(sk, "hand_r"), .target = {-0.3f, 1.2f, 0.4f},
                                .use_pole = 1, .pole = {-0.6f, 1.0f, -0.5f}, .softness = 0.05f};
    stance_two_bone_result r;
    stance_ik_two_bone(&arm, 1.0f, sk, &local, &model, &r, &err);
    stance_local_to_model(&model, &local, sk, NULL, NULL);

    /* look at a point with the spine, neck and head (the head takes the most) */
    int chain[3] = {stance_skeleton_find(sk, "chest"), stance_skeleton_find(sk, "neck"), stance_skeleton_find(sk, "head")};
    float weights[3] = {0.2f, 0.4f, 1.0f}, limits[3] = {0.3f, 0.5f, 0.8f}; /* radians */
    stance_aim_desc look = {.chain_count = 3, .chain = chain, .weights = weights, .max_angles = limits,
                            .target = {1.0f, 1.6f, 2.0f}};                 /* forward = +Z of the head: the default */
    stance_aim_result ar;
    stance_ik_aim(&look, 1.0f, sk, &local, &model, &ar, &err);
    printf("hand misses by %.4f m, head %.2f rad short\n", r.error, ar.angle_error);

    stance_contacts_destroy(contacts);
    stance_pose_destroy(&local), stance_pose_destroy(&model);
    stance_builtin_destroy(&b);
    return 0;
}
