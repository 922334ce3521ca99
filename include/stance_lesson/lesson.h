/* stance_lesson/lesson.h - the lesson's experiments (experiments/LESSON.md), run on
 * any graph that has its parameters: the 13.5 s transition script, measured
 * per switch mode. Used by `stance scenario`, the demo and the lab, so all
 * three report the same figures. */
#ifndef STANCE_LESSON_H
#define STANCE_LESSON_H

#include "builtin.h"
#include "../stance/instance.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STANCE_SCENARIO_FRAMES 810 /* 13.5 s at 60 Hz */

/* The six modes of the experiment, in the order the lesson shows them. */
#define STANCE_SCENARIO_MODES 6
STANCE_API extern const stance_switch_mode stance_scenario_modes[STANCE_SCENARIO_MODES];
STANCE_API const char *stance_switch_mode_name(stance_switch_mode mode);   /* "cut", "inertialize-simple", ... */
STANCE_API int stance_switch_mode_parse(const char *name);                 /* -1 if unknown */

/* The script's inputs at time t: speed (m/s), and whether jump is pressed on
 * the frame starting at t (dt = 1/60). */
STANCE_API void stance_scenario_input(float t, float *speed, int *jump_pressed);

typedef struct stance_scenario_frame {
    float time;          /* seconds at the end of the frame */
    int state;           /* current state of the base machine */
    int from_state;      /* -1, or the source of the running transition */
    float progress;      /* 0..1 through the running transition */
    float jump_cm;       /* joint jump if a transition started this frame, else -1 */
    int clips_sampled;
    float speed;
    float accel_ratio;   /* in a transition's blend window: the output's largest joint
                            acceleration this frame over the window's reference
                            (see stance_scenario_result); -1 outside windows */
    int jump_joint;      /* the joint of jump_cm, or -1 */
    int jump_from, jump_to; /* the states of the transition jump_cm measures (the first
                               the base layer started this frame), or -1 */
} stance_scenario_frame;

typedef struct stance_scenario_result {
    stance_switch_mode mode;
    float blend_time;
    float worst_jump_cm;     /* largest jump at a switch */
    float worst_at_s;        /* when */
    char worst_transition[2 * 64 + 4]; /* "From->To" */
    int worst_joint;
    int max_clips_sampled;   /* most clips sampled in one frame */
    int transitions;         /* transitions started */
    /* Whole-transition smoothness. Each transition's blend window is the
     * blend time's frames from its start (cut to the next transition), plus
     * the frame before it. Acceleration: the second difference of a joint's
     * model-space position over three frames / dt^2 (m/s^2). The reference
     * is the largest acceleration of the old state alone (a copy updated
     * with no transition) and the new state alone (a copy that cuts to it),
     * over the same frames, at least STANCE_SCENARIO_ACCEL_FLOOR. Overshoot:
     * per joint and frame, how far the output's offset from the new state
     * alone has crossed to the other side of the offset it started the
     * window with (its component against that start offset). */
    float accel_ratio;       /* largest over the transitions of output max / reference */
    float accel_at_s;        /* the start of that transition */
    float max_accel;         /* its output's largest acceleration, m/s^2 */
    float ref_accel;         /* its reference, m/s^2 */
    float overshoot_cm;      /* largest overshoot in any window */
    float overshoot_at_s;    /* when */
} stance_scenario_result;

#define STANCE_SCENARIO_ACCEL_FLOOR 0.01f /* m/s^2: the reference of clips that do not move */

/* Runs the script on a fresh instance of `graph` (parameters "speed" float
 * and "jump" trigger are required; the base layer's machine is measured)
 * with every transition switched by `mode`, `blend_time` (0 = 0.25 s) and
 * `easing`. The jump at a switch: on the frame a transition starts, the
 * largest model-space distance between the output and the pose the old state
 * alone gives on that frame (a copy of the instance updated with no
 * transition). frames may be NULL, else gets STANCE_SCENARIO_FRAMES. */
STANCE_API stance_status stance_scenario_run(const stance_graph *graph, stance_switch_mode mode, float blend_time,
                                  stance_easing easing, stance_scenario_result *result,
                                  stance_scenario_frame *frames, const stance_allocator *allocator,
                                  stance_error *err);

/* ---- the script one frame at a time ----------------------------------------
 * A runner holds the measured instance, its copies and the measures so far;
 * stance_scenario_run is create, STANCE_SCENARIO_FRAMES steps, measures,
 * destroy. The lab steps a runner as it draws the character, so the figures
 * it shows are the CLI's by construction. Create and destroy allocate; the
 * steps do not. One runner is used by one thread at a time. */
typedef struct stance_scenario stance_scenario;

/* A user's script in place of the lesson's: parameter changes over time,
 * played at 60 Hz. A change at `time` is applied on the frame whose start
 * lies in [time - 1e-4, time + 1/60 - 1e-4) s (as the lesson's rows are):
 * a float, int or bool parameter keeps the value from then on; a trigger
 * fires on that frame (value ignored). */
typedef struct stance_scenario_change {
    float time;    /* seconds from the start, finite, in [0, duration]; changes sorted by time */
    int param;     /* the graph's parameter index (stance_graph_find_param) */
    float value;   /* finite; int: a whole number; bool: 0 or 1 */
} stance_scenario_change;

#define STANCE_SCENARIO_MAX_SECONDS 60.0f  /* a script's longest duration */
#define STANCE_SCENARIO_MAX_CHANGES 4096

typedef struct stance_scenario_script {
    float duration;            /* seconds, (0, STANCE_SCENARIO_MAX_SECONDS]: round(duration x 60) frames */
    int change_count;          /* 0..STANCE_SCENARIO_MAX_CHANGES */
    const stance_scenario_change *changes; /* kept, not copied: it must outlive the runner */
} stance_scenario_script;

/* Zero fields are the defaults named. */
typedef struct stance_scenario_desc {
    stance_switch_mode mode;   /* every transition's switch; 0 = STANCE_SWITCH_CROSSFADE */
    float blend_time;          /* s, in [0, 10]; 0 = 0.25 */
    stance_easing easing;      /* 0 = STANCE_EASE_SMOOTHSTEP */
    /* NULL = the lesson's script (STANCE_SCENARIO_FRAMES frames of
     * stance_scenario_input on "speed" and "jump"); else this one, on any
     * graph: the frames' `speed` is then the first float parameter the
     * script changes as the graph sees it after the update (0 without). */
    const stance_scenario_script *script;
} stance_scenario_desc;

/* A runner on `graph` (kept, not copied: it must outlive the runner; with
 * the lesson's script it needs the parameters "speed", float, and "jump",
 * trigger; the base layer's transitions are measured). desc NULL = all
 * defaults. A script is checked here: each problem one message naming the
 * change (its index, time and parameter). */
STANCE_API stance_status stance_scenario_create(const stance_graph *graph, const stance_scenario_desc *desc,
                                     const stance_allocator *allocator, stance_scenario **out, stance_error *err);
STANCE_API void stance_scenario_destroy(stance_scenario *runner); /* NULL is fine */

/* The script's next frame (1/60 s): sets speed and jump from
 * stance_scenario_input at the frame's start time, updates, measures.
 * `frame` (may be NULL) gets the frame's record; its accel_ratio is final
 * except for the frame just before a transition starts, which the next
 * step fills in (stance_scenario_accel_ratio reads the final values).
 * Refused (STANCE_ERR_ARGUMENT) after the script's STANCE_SCENARIO_FRAMES
 * frames, or after a step by hand, until stance_scenario_restart. */
STANCE_API stance_status stance_scenario_step(stance_scenario *runner, stance_scenario_frame *frame, stance_error *err);

/* One update by `dt` seconds in [0, 1] with the parameters the caller set
 * on stance_scenario_instance: the jump at a switch, the clips sampled and
 * the machine's status are measured as in the script; the blend-window
 * measures (acceleration, overshoot: they play the script ahead) are not,
 * and the frame's accel_ratio is -1. frame->speed is the speed the graph
 * sees after the update (stance_instance_param: damped, if the graph damps
 * it). The script cannot continue after it without a restart. */
STANCE_API stance_status stance_scenario_step_by_hand(stance_scenario *runner, float dt, stance_scenario_frame *frame,
                                           stance_error *err);

/* The measures so far, since the start (as stance_scenario_run's after all
 * the script's frames). */
STANCE_API stance_status stance_scenario_measures(const stance_scenario *runner, stance_scenario_result *result,
                                       stance_error *err);
/* Frame `frame`'s accel_ratio as known now; -1 for frames outside windows,
 * not stepped yet, or after a step by hand. */
STANCE_API float stance_scenario_accel_ratio(const stance_scenario *runner, int frame);
STANCE_API int stance_scenario_frame_index(const stance_scenario *runner);  /* frames stepped since the start */
STANCE_API int stance_scenario_script_done(const stance_scenario *runner);  /* 1 when stance_scenario_step would refuse */
STANCE_API int stance_scenario_frame_count(const stance_scenario *runner); /* the script's frames (0 for NULL) */

/* stance_scenario_run with a desc (and its script): create, every frame of
 * the script, measures, destroy. frames may be NULL, else gets
 * frame_capacity >= the script's frame count records. */
STANCE_API stance_status stance_scenario_run_desc(const stance_graph *graph, const stance_scenario_desc *desc,
                                                  stance_scenario_result *result, stance_scenario_frame *frames,
                                                  int frame_capacity, const stance_allocator *allocator, stance_error *err);

/* Back to a fresh instance (stance_instance_reset) at the script's start,
 * the measures cleared; the switch stays. */
STANCE_API stance_status stance_scenario_restart(stance_scenario *runner, stance_error *err);
/* Switch for the transitions that start from now on (as desc's fields);
 * the measures' mode and blend_time become these. */
STANCE_API stance_status stance_scenario_set_switch(stance_scenario *runner, stance_switch_mode mode, float blend_time,
                                         stance_easing easing, stance_error *err);

/* The measured instance: read its poses, events and status, set its
 * parameters for steps by hand. The runner owns and updates it: do not
 * destroy or update it. NULL for a NULL runner. */
STANCE_API stance_instance *stance_scenario_instance(stance_scenario *runner);

/* ---- the layer experiments (LESSON.md measures 2 and 3) ------------------- */

typedef struct stance_layer_setup {
    const stance_skeleton *skeleton;
    const stance_clip *walk, *run, *wave;
    const stance_clip *lean;   /* additive lean (reference: its first frame); NULL = made
                                  from the rest pose: 20 degrees forward over the spine */
    const char *spine;         /* root of the upper-body mask */
    const char *arm;           /* root of the right-arm mask: the right upper arm */
    const char *elbow;         /* the joint at the end of the upper arm */
    const char *foot_l, *foot_r;
    float seconds;             /* length of each run; 0 = 4 s */
} stance_layer_setup;

typedef struct stance_layer_result {
    float slide_whole, slide_upper;            /* cm of planted-foot sliding per metre */
    float slide_base;                          /* the walk alone, no wave: the clip's own sliding */
    float walk_speed;                          /* m/s the root moved at (declared, or from the feet) */
    float arm_local, arm_local_lean;           /* degrees, largest over the run */
    float arm_mesh, arm_mesh_lean;
} stance_layer_result;

/* The four arm configurations, in the order of stance_layer_result. */
typedef enum stance_arm_config {
    STANCE_ARM_LOCAL = 0, STANCE_ARM_LOCAL_LEAN, STANCE_ARM_MESH, STANCE_ARM_MESH_LEAN
} stance_arm_config;

/* The built-in character's setup (walk, run, wave, lean; spine, upperarm_r...). */
STANCE_API stance_status stance_builtin_layer_setup(const stance_builtin *builtin, stance_layer_setup *out, stance_error *err);

/* Measure 2: wave as an override layer over the walk, whole body vs upper
 * body (subtree of `spine`), the root moving at the walk's speed. Measure 3:
 * wave on a right-arm mask over the run, local vs mesh space, with and
 * without the additive lean below it. Each runs at 60 Hz through the graph
 * runtime's layers. */
STANCE_API stance_status stance_layers_run(const stance_layer_setup *setup, stance_layer_result *result,
                                const stance_allocator *allocator, stance_error *err);

/* One arm configuration at `time`: the output model pose and the wave clip's
 * own model pose (as authored) at the same time, and the angle between the
 * two upper-arm directions in degrees. For drawing the lesson's figure. */
STANCE_API stance_status stance_layers_arm_pose(const stance_layer_setup *setup, stance_arm_config config, float time,
                                     stance_pose *model, stance_pose *authored, float *angle_deg,
                                     const stance_allocator *allocator, stance_error *err);


/* Measure 3's angle: between the upper-arm directions (arm -> elbow joint)
 * of two model poses, in degrees (0..180); -1 for NULL poses or joints out of
 * range. The lab reports it live with this function. */
STANCE_API float stance_arm_angle_deg(const stance_pose *a, const stance_pose *b, int arm, int elbow);

/* Measure 3's angle against a clip as authored: samples `clip` at `time`
 * (no cursor) into `local`, makes its model pose in `authored`, and returns
 * stance_arm_angle_deg(model, authored, arm, elbow). local and authored are
 * the caller's scratch poses of the skeleton's joint count; no allocation.
 * -1 for NULL arguments, a time that is not finite, poses of another joint
 * count, or joints out of range. stance_layers_run and the lab's live arm
 * angle both call it. */
STANCE_API float stance_arm_angle_to_clip(const stance_pose *model, const stance_clip *clip, float time,
                               const stance_skeleton *skeleton, int arm, int elbow, stance_pose *local,
                               stance_pose *authored);

/* ---- foot sliding (the project's one measure) and foot locking ----------- */

/* Foot sliding in cm per metre the root travelled. `pos` holds world foot
 * positions, frame-major: pos[3 * (frame * feet + k)] for foot k, dt
 * seconds apart. Over frames 1..frames-1, a foot that is within `band` of
 * its lowest height in the run and (speed > 0) moved slower than `speed`
 * since the frame before adds its horizontal (x, z) movement since then.
 * The bands come from stance_slide_bands (shares of the leg, stance/footlock.h). */
STANCE_API float stance_foot_slide(const float *pos, int frames, int feet, float metres, float band, float speed, float dt);

/* The sliding measure's bands for these feet at a root speed (units/s):
 * band = STANCE_SLIDE_BAND_LEGS x the feet's mean leg length (stance_leg_length),
 * speed = STANCE_CONTACT_SPEED_ROOT x root_speed + STANCE_CONTACT_SPEED_LEGS
 * legs per second. A foot without a leg counts half the rest pose's height.
 * *leg (may be NULL) gets the mean leg length. */
STANCE_API void stance_slide_bands(const stance_skeleton *skeleton, const int *feet, int foot_count, float root_speed, float *band,
                        float *speed, float *leg);

/* The root velocity of a walk clip: its declared root speed along +Z, or,
 * for an in-place clip that declares none, the mean velocity at which its
 * planted feet (within STANCE_SLIDE_BAND_LEGS of a leg of their lowest)
 * move backwards, reversed. Allocates two scratch poses. */
STANCE_API void stance_walk_velocity(const stance_skeleton *skeleton, const stance_clip *walk, int foot_l, int foot_r,
                          const stance_allocator *allocator, float velocity[3]);

/* The leg above a foot: hip, knee, ankle. A foot whose parent and
 * grandparent are the knee and hip gives those; a foot that is an IK control
 * bone outside the leg (RobotExpressive) takes as knee the joint nearest to
 * it in the rest pose that is neither its ancestor nor its descendant, and
 * that joint's parent as hip. */
STANCE_API stance_status stance_find_leg(const stance_skeleton *skeleton, int foot, int *hip, int *knee, stance_error *err);

#define STANCE_FOOTLOCK_FEET 2

typedef struct stance_footlock_setup {
    const stance_skeleton *skeleton;
    const stance_clip *clip;       /* a walk or run, played alone at 60 Hz */
    const char *foot_l, *foot_r;
    float seconds;                 /* 0 = 4 s */
    float plant_time;              /* stance_footlock_desc.plant_time (0 = its default, 0.05 s) */
    float speed;                   /* m/s the root moves at, for a clip without a root path;
                                      0 = its declared speed or stance_walk_velocity */
} stance_footlock_setup;

#define STANCE_FOOTLOCK_MAX_CONTACTS 16

typedef struct stance_footlock_result {
    float speed;                   /* m/s the root moved at (stance_walk_velocity) */
    float slide_off, slide_on;     /* cm per metre, without and with locking */
    float hip_deg, knee_deg, ankle_deg; /* largest local rotation change locking made */
    float max_angle_deg;           /* the largest of the three */
    float max_pelvis_drop;         /* metres */
    int contacts_found;            /* planted samples in the clip, both feet */
    int hip[2], knee[2], foot[2];  /* the legs used */
    float leg;                     /* the legs' mean length at the bind pose (stance_leg_length) */
    int contact_count[2];          /* per foot: contacts found in one cycle (at most STANCE_FOOTLOCK_MAX_CONTACTS) */
    float contact_start[2][STANCE_FOOTLOCK_MAX_CONTACTS], contact_end[2][STANCE_FOOTLOCK_MAX_CONTACTS]; /* s */
} stance_footlock_result;

typedef struct stance_footlock_frame {
    float time;
    float height_off[2], height_on[2]; /* world foot height */
    float track_off[2], track_on[2];   /* world foot position along the walk */
    int planted[2];                    /* the clip's contacts */
} stance_footlock_frame;

/* Plays the clip alone with the root moving at its speed (along its root
 * path when it has one; a path that is joint 0's track is taken out of
 * joint 0 and moves the root instead, so the travel counts once), with and without
 * stance_footlock_apply (contacts found from the motion, flat ground), and
 * measures both with stance_foot_slide. frames may be NULL, else gets
 * frame_capacity entries at most (seconds * 60 + 1 are made). */
STANCE_API stance_status stance_footlock_run(const stance_footlock_setup *setup, stance_footlock_result *result,
                                  stance_footlock_frame *frames, int frame_capacity,
                                  const stance_allocator *allocator, stance_error *err);

#ifdef __cplusplus
}
#endif
#endif
