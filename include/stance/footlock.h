/* stance/footlock.h - foot contacts found once per clip, and foot locking:
 * while a foot is planted its world position stays put and the leg is
 * solved with two-bone IK; release and re-plant blend without a pop; the
 * pelvis drops when a leg cannot reach; the ground height comes from the
 * caller.
 *
 * Shared and immutable: stance_contacts (found once per clip by the builder,
 * stance_contacts_create in stance/build.h; a compiled graph carries its
 * footlock entries' contacts).
 * Per character: stance_footlock_state, plain data the caller owns (zero it
 * to start, or after a teleport). Per frame: stance_footlock_apply reads a
 * local pose, its model pose, the root's world transform and the contact
 * weights, and corrects the local pose (and its model pose) in place. It
 * allocates nothing, does no I/O and touches nothing but its arguments. */
#ifndef STANCE_FOOTLOCK_H
#define STANCE_FOOTLOCK_H

#include "base.h"
#include "clip.h"
#include "pose.h"
#include "skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STANCE_FOOT_MAX 4

/* ---- contacts: built once per clip --------------------------------------- */

/* The thresholds of contacts and of the sliding measure, in one place, as
 * shares of the leg's length (hip-knee + knee-ankle at the bind pose,
 * stance_leg_length in stance/build.h) and of the root's speed, so they mean
 * the same in any unit and on any character:
 *   planted: the foot within STANCE_CONTACT_HEIGHT_LEGS x leg of its lowest
 *   height in the clip, and its horizontal speed below
 *   STANCE_CONTACT_SPEED_ROOT x the root speed + STANCE_CONTACT_SPEED_LEGS
 *   legs per second;
 *   sliding (stance_foot_slide): a foot within STANCE_SLIDE_BAND_LEGS x leg
 *   of its lowest, and below the planted speed, counts its horizontal travel. */
#define STANCE_CONTACT_HEIGHT_LEGS 0.06f
#define STANCE_CONTACT_SPEED_ROOT 1.5f
#define STANCE_CONTACT_SPEED_LEGS 0.2f
#define STANCE_SLIDE_BAND_LEGS 0.013f

/* How contacts are found (stance_contacts_create, stance/build.h). Zero
 * fields take the defaults named. */
typedef struct stance_contact_desc {
    int foot_count;            /* 1..STANCE_FOOT_MAX */
    const int *feet;           /* foot_count joints (the ankles) */
    /* From events: per foot, the names of the clip events that plant and
     * lift it ("footdown_l", "footup_l"). A foot is planted from a down
     * event to the next up event, across the loop for a looping clip.
     * NULL = find contacts from the motion instead. */
    const char *const *down_events;
    const char *const *up_events;
    /* From the motion (the clip played alone, in the frame its root path
     * defines: moved by its root motion, and for a path that is joint 0's
     * own track, the pose as it moves, never the two added): planted while
     * the foot is within `height` of its lowest height in the clip and its
     * horizontal speed is below `speed` (once planted, up to 1.1 x both);
     * then gaps and contacts shorter than min_duration are dropped. */
    float height;              /* model units; 0 = STANCE_CONTACT_HEIGHT_LEGS
                                  (6%) of the foot's leg length */
    float speed;               /* units/s; 0 = STANCE_CONTACT_SPEED_ROOT (1.5)
                                  x the root speed + STANCE_CONTACT_SPEED_LEGS
                                  (0.2) legs per second: between a planted
                                  foot (0, though in-place clips often slide)
                                  and a swing foot (2 to 3 x the root speed) */
    float min_duration;        /* shortest contact or gap kept, s; 0 = 0.05 */
    float root_velocity[3];    /* the root's velocity for a clip that plays in
                                  place and has no root motion; zero = the
                                  clip's root motion (root path or speed, +Z) */
    float rate;                /* samples per second; 0 = 60 */
} stance_contact_desc;

/* Read-only after creation; fields public for tools and plots. */
typedef struct stance_contacts {
    int foot_count;
    int feet[STANCE_FOOT_MAX];
    float duration;            /* the clip's */
    float rate;                /* samples per second */
    int sample_count;          /* samples at i / rate, i = 0..sample_count-1, over [0, duration] */
    int from_events;           /* 1 when built from events */
    const unsigned char *planted; /* foot_count * sample_count: 1 = planted (foot-major) */
    const float *height;       /* foot_count * sample_count: height above the foot's lowest */
    float lowest[STANCE_FOOT_MAX]; /* each foot's lowest model height in the clip */
    stance_allocator allocator;
    size_t bytes;
} stance_contacts;

/* 1 if `foot` (an index into contacts->feet) is planted at clip `time`
 * (clamped to the clip; nearest sample), else 0; 0 for a bad index. */
STANCE_API int stance_contacts_planted(const stance_contacts *contacts, int foot, float time);

/* ---- locking: per character, per frame ------------------------------------ */

typedef struct stance_leg_desc {
    int upper, lower, foot;    /* hip, knee, ankle (see stance_two_bone_desc.end:
                                  the ankle may be an IK control bone outside
                                  the leg's subtree; it is then moved to the lock) */
    float hinge[3];            /* knee hinge in the knee's frame; zero = derived */
} stance_leg_desc;

/* Height of the ground under world (x, z). */
typedef float (*stance_ground_fn)(void *user, float x, float z);

typedef struct stance_footlock_desc {
    int leg_count;             /* 1..STANCE_FOOT_MAX */
    stance_leg_desc legs[STANCE_FOOT_MAX];
    int pelvis;                /* the joint lowered when a leg cannot reach;
                                  0 = the parent of legs[0].upper; < 0 = none */
    float blend_time;          /* s to blend out of a lock after release; 0 = 0.2 */
    float plant_time;          /* s over which a planting foot slows down into its
                                  lock (it keeps 1 - smoothstep of the animation's
                                  motion); 0 = 0.05; less than a frame = it stops
                                  at once. No pop either way; the blend removes
                                  the velocity kink at a plant, but slides */
    float softness;            /* the legs' soft limit (stance_two_bone_desc) in
                                  [0, 0.5); 0 = 0.02. It starts no nearer than
                                  the clip's own hip-ankle distance, so a
                                  target the clip reaches is reached as is */
    stance_ground_fn ground;   /* NULL = flat ground at the root's height */
    void *ground_user;
    /* Releasing a foot that its own motion moves (docs/footlock.md). A
     * split vote (0 < contact < 1: some of the blended clips say planted,
     * some not) goes by the animation's foot itself: it is swinging, so
     * released and not planted, while it moves forward (along the root's
     * horizontal world velocity) faster than the root and than
     * release_speed x the leg's length per second (with the root still,
     * at any such speed). A lock of a blended contact (`blended`) is also
     * released once it is beyond the leg's soft limit from the animation's
     * hip; one clip's lock once no pelvis drop brings it within. A foot
     * released so is planted again only after its release blend. */
    float release_speed;       /* leg lengths per second, >= 0; 0 = 0.1 */
    unsigned blended;          /* per frame: bit i set = contact[i] is a blend of
                                  more than one clip's contacts (the graph's
                                  stage sets it); clear = one clip's own contact */
} stance_footlock_desc;

/* Per foot, caller-owned. Zero = not yet seen. */
typedef struct stance_foot_state {
    int planted;               /* locked this frame */
    float lock[3];             /* world position it is locked at */
    float offset[3];           /* world offset of the output from the animation at release */
    float fade;                /* 1 at release, down to 0 over blend_time */
    float plant;               /* 0 at a plant, up to 1 over plant_time */
    float free[3];             /* where the foot would be if free, last frame (world) */
    float out[3];              /* the foot's world position this frame, after locking */
    float anim[3];             /* the animation's foot (before locking), world, this frame */
    float velocity[3];         /* its horizontal world velocity (y = 0), units/s, from the last step with dt > 0 */
    int held;                  /* released by its motion or reach: no plant until the release blend is over */
} stance_foot_state;

typedef struct stance_footlock_state {
    int started;
    float pelvis_drop;         /* metres the pelvis went down this frame */
    float root[3];             /* the root's world position this frame */
    float root_velocity[3];    /* its horizontal world velocity (y = 0), units/s, from the last step with dt > 0 */
    stance_foot_state feet[STANCE_FOOT_MAX];
} stance_footlock_state;

/* One frame:
 *  1. each foot's world target: planted, the lock (x, z) at the clip's
 *     height above the ground there (with plant_time, the
 *     lock follows a fading share of the animation's motion first); free, the animation moved onto the ground under it, plus
 *     what is left of the offset at release (fading with a smoothstep over
 *     blend_time). A foot plants where it is (contact >= 0.5, and not
 *     moving on a split vote) and is released from where it is held
 *     (contact < 0.5, moving on a split vote, or beyond the leg's reach;
 *     see release_speed).
 *  2. the pelvis goes down (model -Y) as little as lets every leg reach;
 *     an ankle that is an IK control bone outside the pelvis goes down
 *     with it.
 *  3. each leg is solved with stance_ik_two_bone (no pole: the knee keeps
 *     its bend; the ankle keeps its model rotation); an ankle that is an IK
 *     control bone is moved to its target.
 * `contact[i]` in [0, 1] says how planted legs[i]'s foot is in
 * the animation this frame (>= 0.5 = planted): from stance_contacts_planted
 * of the playing clip, or a weighted sum over blended clips. `root` is the
 * character's world transform (the caller accumulates root motion into it),
 * within the limits of stance/base.h as stance_instance_set_root takes it
 * (else STANCE_ERR_VALUE naming the limit); a lock whose model-space target
 * lies further than 1e17 from the character on an axis (the root moved or
 * shrank that much since it was set) is let go, the foot following the
 * animation;
 * `local` and `model` (model = stance_local_to_model of local, root NULL) are
 * corrected in place; dt >= 0 is the frame's time step. */
STANCE_API stance_status stance_footlock_apply(const stance_footlock_desc *desc, stance_footlock_state *state,
                                    const float *contact, const stance_transform *root, float dt,
                                    const stance_skeleton *skeleton, stance_pose *local,
                                    stance_pose *model, stance_error *err);

#ifdef __cplusplus
}
#endif
#endif
