/* stance/graph.h - animation graphs: parameters, state machines (states
 * playing clips, 1D/2D blend spaces or nested machines; ordered transitions
 * with conditions, exit time, blend time, easing and a switch mode), layers
 * (override or additive, masks, local or mesh space), and the per-character
 * instance that runs them.
 *
 * A stance_graph is shared and immutable; a stance_instance is one
 * character's persistent state (parameters, machine states, cursors, the
 * history its switch modes need, its output poses and events), created once
 * with all its memory. Evaluation scratch lives in a stance_workspace the
 * caller owns, one per thread. Updating an instance allocates nothing, does
 * no I/O and touches no other instance, so instances of one graph update
 * safely on different threads, each thread with its own workspace:
 *
 *     // thread t of T updates characters [t*N/T, (t+1)*N/T) with workspace ws[t]
 *     stance_instances_update(inst + t * N / T, (t + 1) * N / T - t * N / T, dt, ws[t]);
 *
 * The result does not depend on how a crowd is split (each instance's
 * update reads only itself and the graph). */
#ifndef STANCE_GRAPH_H
#define STANCE_GRAPH_H

#include "base.h"
#include "clip.h"
#include "footlock.h"
#include "ik.h"
#include "pose.h"
#include "skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STANCE_MAX_PARAMS 256
#define STANCE_MAX_STATES 1024
#define STANCE_MAX_MACHINES 64
#define STANCE_MAX_LAYERS 16
#define STANCE_MAX_BLEND_ENTRIES 16
#define STANCE_MAX_CONDITIONS 16 /* per transition */
#define STANCE_MAX_NEST 4         /* nested machine depth */
#define STANCE_EVENT_QUEUE 24     /* events kept per update (more are counted as dropped) */
#define STANCE_MIN_DT 1e-6f       /* update steps below this (subnormal, tiny) are treated as 0 */

/* ---- description ---------------------------------------------------------- */

typedef enum stance_param_type {
    STANCE_PARAM_FLOAT = 0,
    STANCE_PARAM_INT,
    STANCE_PARAM_BOOL,
    STANCE_PARAM_TRIGGER /* set by gameplay, consumed when a transition reading it fires */
} stance_param_type;

typedef struct stance_param_desc {
    const char *name;         /* 1..63 bytes, unique */
    stance_param_type type;
    float value;              /* initial value (bool/trigger: 0 or 1) */
    /* Float parameters only: the graph sees the value follow what gameplay
     * sets with this halflife in seconds (0 = at once), as most locomotion
     * inputs are smoothed, so a blend space does not pop when speed jumps. */
    float damping;
} stance_param_desc;

typedef enum stance_motion_type {
    STANCE_MOTION_CLIP = 0,   /* one clip */
    STANCE_MOTION_BLEND1D,    /* clips at positions on one parameter, phase-synced */
    STANCE_MOTION_BLEND2D,    /* clips at 2D positions, gradient band weights, phase-synced */
    STANCE_MOTION_MACHINE     /* a nested state machine */
} stance_motion_type;

typedef struct stance_blend_entry_desc {
    const stance_clip *clip;
    float x, y;               /* position in the blend space (y only for 2D) */
} stance_blend_entry_desc;

typedef struct stance_state_desc {
    const char *name;                 /* unique within its machine */
    stance_motion_type type;
    const stance_clip *clip;          /* STANCE_MOTION_CLIP */
    int once;                         /* 0 = loop (default), 1 = play once and hold the last frame */
    float speed;                      /* playback rate; 0 = 1 */
    const char *speed_param;          /* optional float parameter multiplying speed */
    int entry_count;                  /* blend spaces: 2..STANCE_MAX_BLEND_ENTRIES */
    const stance_blend_entry_desc *entries;
    const char *param_x, *param_y;    /* blend space parameters (y for 2D) */
    const char *machine;              /* STANCE_MOTION_MACHINE: the nested machine's name */
    /* 1D blend spaces whose positions are root speeds: scale playback so the
     * root moves at the parameter's value (within 1/4x..4x). */
    int speed_warp;
    float fade_time;                  /* controller: switch and layer fade time for this state; 0 = uniform */
} stance_state_desc;

typedef enum stance_compare {
    STANCE_CMP_GE = 0,        /* param >= value (+ hysteresis while inactive) */
    STANCE_CMP_GT,
    STANCE_CMP_LE,            /* param <= value (- hysteresis) */
    STANCE_CMP_LT,
    STANCE_CMP_EQ,
    STANCE_CMP_NE,
    STANCE_CMP_TRUE,          /* bool is true, or trigger is set (and is consumed) */
    STANCE_CMP_FALSE
} stance_compare;

typedef struct stance_condition_desc {
    const char *param;
    stance_compare op;
    float value;
    /* Moves the threshold away from the other side: GE/GT need value +
     * hysteresis, LE/LT need value - hysteresis. With the same hysteresis on
     * Idle->Move (speed >= 0.1) and Move->Idle (speed < 0.1) the two
     * thresholds differ and a speed hovering at 0.1 cannot flicker. */
    float hysteresis;
    int group;                /* conditions of one group are AND-ed; groups are OR-ed */
} stance_condition_desc;

typedef enum stance_switch_mode {
    STANCE_SWITCH_CROSSFADE = 0,      /* both states evaluated, weights eased */
    STANCE_SWITCH_CUT,                /* new pose at once */
    STANCE_SWITCH_FROZEN,             /* fade from a snapshot of the last output */
    STANCE_SWITCH_INERTIALIZE,        /* Bollo: quintic along the offset axis, no overshoot; the rest of its velocity kept */
    STANCE_SWITCH_INERTIALIZE_SIMPLE, /* the lesson's quintic per component, zero start acceleration */
    STANCE_SWITCH_DEADBLEND,          /* Holden: extrapolate the last output with decaying velocity, fade */
    STANCE_SWITCH_MODE_COUNT
} stance_switch_mode;

typedef enum stance_easing {
    STANCE_EASE_SMOOTHSTEP = 0,
    STANCE_EASE_LINEAR
} stance_easing;

typedef enum stance_exit_mode {
    STANCE_EXIT_NONE = 0,     /* conditions only */
    STANCE_EXIT_NORMALIZED,   /* and the state's normalized time reached exit_time */
    STANCE_EXIT_AT_END        /* and the blend finishes as the clip ends (starts blend_time before) */
} stance_exit_mode;

typedef struct stance_transition_desc {
    const char *from;         /* state name; NULL or "*" = any state */
    const char *to;
    int condition_count;
    const stance_condition_desc *conditions;
    stance_exit_mode exit;
    float exit_time;          /* normalized, for STANCE_EXIT_NORMALIZED */
    float blend_time;         /* seconds; 0 = the graph's default_blend_time */
    stance_switch_mode mode;
    stance_easing easing;
    /* While this transition blends, the target's own transitions are not
     * checked, so it cannot be interrupted or bounce back before it ends. */
    int uninterruptible;
    int allow_self;           /* any-state transitions: may restart the current state */
} stance_transition_desc;

typedef struct stance_machine_desc {
    const char *name;                  /* unique */
    int state_count;
    const stance_state_desc *states;
    const char *entry;                 /* NULL = the first state */
    int transition_count;              /* checked per state in this order: first match wins */
    const stance_transition_desc *transitions;
} stance_machine_desc;

typedef enum stance_layer_mode {
    STANCE_LAYER_OVERRIDE = 0,
    STANCE_LAYER_ADDITIVE
} stance_layer_mode;

typedef enum stance_layer_space {
    STANCE_SPACE_LOCAL = 0,   /* masked joints keep the layer's angle to their parent */
    STANCE_SPACE_MESH         /* masked joints keep the layer's model-space rotation */
} stance_layer_space;

/* Additive layers. FIRST_FRAME: the graph builds, once, each clip's delta
 * against the reference of its state (its clip's first frame, a blend
 * space's first entry's, ref_clip's if given; the rest pose under a nested
 * machine) and the layer's machine plays the deltas: per frame the layer
 * samples them and applies the result in one pass (a switch inside the
 * layer blends deltas). REF_CLIP_SYNC: the delta is made per frame against
 * ref_clip sampled at the layer's current time. */
typedef enum stance_additive_ref {
    STANCE_ADDITIVE_FIRST_FRAME = 0, /* each clip's own first frame (or ref_clip's, if given) */
    STANCE_ADDITIVE_REF_CLIP_SYNC    /* ref_clip sampled at the layer's current time */
} stance_additive_ref;

typedef struct stance_layer_desc {
    const char *name;
    const char *machine;             /* the machine this layer runs */
    float weight;                    /* initial weight in [0, 1] (the first layer is always 1) */
    stance_layer_mode mode;
    stance_layer_space space;
    const float *mask;               /* joint_count weights in [0, 1]; NULL = whole body */
    stance_additive_ref additive_ref;
    const stance_clip *ref_clip;
    int priority;                    /* for the gameplay controller; higher shows on top */
} stance_layer_desc;

/* ---- IK stage: after the layers, on the model pose ----------------------------
 * Each entry runs every update on the output of the layers, in order. Kind
 * footlock: the graph finds each foot's contacts in every clip its states
 * play (from the clip's events down_event/up_event when the clip has them,
 * else from the motion, see stance_contact_desc) when it is built; per
 * update the instance weighs them by what the base layer plays (while a
 * switch blends, crossfade, inertialization or dead blending, both sides:
 * the old state's clips by 1 - the eased weight; a blend space's clips by
 * theirs; a nested machine's plays inside) and runs stance_footlock_apply with the
 * instance's world root (stance_instance_set_root) and ground
 * (stance_instance_set_ground). */
#define STANCE_MAX_IK 8

typedef enum stance_ik_kind {
    STANCE_IK_FOOTLOCK = 0, /* legs locked while planted (above) */
    STANCE_IK_TWO_BONE,     /* legs[0] (hip/knee/ankle = upper/lower/end) reaches the
                               target set with stance_instance_set_ik_target, the knee
                               towards the pole of stance_instance_set_ik_pole (none set:
                               the bend is kept); the end keeps its model rotation */
    STANCE_IK_AIM,          /* chain[] turns so `forward` of its last joint points at
                               the target set with stance_instance_set_ik_target */
    STANCE_IK_KIND_COUNT
} stance_ik_kind;

typedef struct stance_ik_leg_desc {
    const char *hip, *knee, *ankle;     /* joint names, all three required (see stance_leg_desc) */
    /* Names of the clip events that plant and lift this foot; a clip with
     * both events of every leg takes its contacts from them, others from
     * the motion. NULL = from the motion always. */
    const char *down_event, *up_event;
} stance_ik_leg_desc;

typedef struct stance_ik_desc {
    const char *name;                   /* 1..63 bytes, unique among the entries */
    stance_ik_kind kind;
    int leg_count;                      /* 1..STANCE_FOOT_MAX */
    stance_ik_leg_desc legs[STANCE_FOOT_MAX];
    const char *pelvis;                 /* joint lowered when a leg cannot reach; NULL = the
                                           first hip's parent; "" = none */
    float blend_time, plant_time, softness; /* stance_footlock_desc's (0 = its defaults) */
    /* contact finding from the motion: stance_contact_desc's height, speed,
     * min_duration (0 = its defaults). root_velocity: for clips played in
     * place (no root motion, root speed 0), the velocity the character
     * moves at while they play; zero = the mean velocity of the feet while
     * they are down (within 2 cm of their lowest), reversed. */
    float contact_height, contact_speed, contact_min_duration;
    float root_velocity[3];
    /* aim: joint names from the top to the end (each below the one before),
     * the end joint's forward axis (zero = +Z) and each joint's largest
     * turn in radians (0 = no limit); see stance_aim_desc. */
    int chain_count;                    /* aim: 1..STANCE_AIM_MAX_CHAIN */
    const char *chain[STANCE_AIM_MAX_CHAIN];
    float forward[3];
    float max_angle;
} stance_ik_desc;

typedef struct stance_graph_desc {
    const stance_skeleton *skeleton;
    int param_count;
    const stance_param_desc *params;
    int machine_count;
    const stance_machine_desc *machines;
    int layer_count;                 /* 0 = one layer running the first machine */
    const stance_layer_desc *layers;
    float default_blend_time;        /* 0 = 0.25 s */
    float deadblend_halflife;        /* velocity decay of dead blending; 0 = 0.05 s */
    int ik_count;                    /* 0..STANCE_MAX_IK entries run after the layers */
    const stance_ik_desc *ik;
} stance_graph_desc;

typedef struct stance_graph stance_graph;
typedef struct stance_instance stance_instance;
typedef struct stance_workspace stance_workspace;

/* Validates the description and builds the graph (its additive deltas,
 * IK contacts) in one allocation plus what those need. Issue 22: the chain
 * rule of stance/base.h is checked here for what the graph can play: the
 * largest |scale| the rest pose and the states' clips give each joint, times
 * for each additive layer the largest its delta can multiply by (a
 * first-frame delta clip's, or the clips over a sync reference's smallest),
 * multiplied down every chain, must stay within STANCE_MAX_SCALE
 * (STANCE_ERR_VALUE naming the joint and the product); a sync layer's
 * reference whose scale changes sign is refused (its delta has no bound).
 * At run time a switch's transient (inertialization, dead blending) is held
 * within the same per-joint bounds, so the chain rule holds on every frame. */
stance_status stance_graph_create(const stance_graph_desc *desc, const stance_allocator *allocator,
                                  stance_graph **out, stance_error *err);
void stance_graph_destroy(stance_graph *graph);

const stance_skeleton *stance_graph_skeleton(const stance_graph *graph);
int stance_graph_param_count(const stance_graph *graph);
int stance_graph_find_param(const stance_graph *graph, const char *name);          /* -1 if none */
const char *stance_graph_param_name(const stance_graph *graph, int param);
stance_param_type stance_graph_param_type(const stance_graph *graph, int param);
int stance_graph_machine_count(const stance_graph *graph);
int stance_graph_find_machine(const stance_graph *graph, const char *name);
const char *stance_graph_machine_name(const stance_graph *graph, int machine);
int stance_graph_state_count(const stance_graph *graph);                           /* all machines */
/* A state's global index: "Machine/State", or a bare state name when unique. -1 if none. */
int stance_graph_find_state(const stance_graph *graph, const char *name);
const char *stance_graph_state_name(const stance_graph *graph, int state);
int stance_graph_state_machine(const stance_graph *graph, int state);
int stance_graph_layer_count(const stance_graph *graph);
int stance_graph_find_layer(const stance_graph *graph, const char *name);
const char *stance_graph_layer_name(const stance_graph *graph, int layer);
int stance_graph_layer_machine(const stance_graph *graph, int layer);
int stance_graph_layer_priority(const stance_graph *graph, int layer);
/* The distinct clips the graph's states play (clip states and blend
 * entries), in order of first use: writes up to `capacity`, returns how many
 * there are. */
int stance_graph_clips(const stance_graph *graph, const stance_clip **clips, int capacity);
/* The closest known name of a kind to `name` (edit distance), for messages. */
const char *stance_graph_closest_param(const stance_graph *graph, const char *name);
int stance_graph_ik_count(const stance_graph *graph);
int stance_graph_find_ik(const stance_graph *graph, const char *name);             /* -1 if none */
/* Entry `ik`'s kind (a stance_ik_kind), -1 when the graph is NULL or ik is out of range. */
int stance_graph_ik_kind(const stance_graph *graph, int ik);
/* Entry `ik`'s contacts for `clip` (one of stance_graph_clips), NULL if none. */
const stance_contacts *stance_graph_ik_contacts(const stance_graph *graph, int ik, const stance_clip *clip);

/* ---- instance ------------------------------------------------------------- */

typedef enum stance_event_type {
    STANCE_EVENT_STATE_ENTERED = 0,
    STANCE_EVENT_STATE_EXITED,
    STANCE_EVENT_TRANSITION_STARTED,
    STANCE_EVENT_TRANSITION_FINISHED,
    STANCE_EVENT_CLIP_FINISHED,       /* a once state reached its end */
    STANCE_EVENT_CLIP_MARKER,         /* a clip event crossed by playback */
    STANCE_EVENT_LAYER_SHOWN,         /* controller: a layer became the visible one */
    STANCE_EVENT_LAYER_HIDDEN,
    STANCE_EVENT_STATE_ENDED          /* controller: a state stopped (finished or reset) */
} stance_event_type;

typedef struct stance_event {
    stance_event_type type;
    int layer;         /* -1 when not about a layer */
    int machine;
    int state;         /* global state index (the state entered/exited/finished, or the transition's target) */
    int other;         /* transition: the source state; marker: the clip event index */
    float time;        /* instance time in seconds when it happened */
    const char *name;  /* marker: the clip event's name; else the state's name */
} stance_event;

/* ---- workspace: per-thread evaluation scratch --------------------------------
 * Sized from a graph: it serves every graph with no more joints and machines
 * (so one workspace made from the largest graph serves them all); a graph
 * that does not fit is refused (update returns STANCE_ERR_MEMORY;
 * stance_workspace_fits says why). One thread at a time uses a workspace;
 * nothing in it outlives an update. */
stance_status stance_workspace_create(const stance_graph *graph, const stance_allocator *allocator,
                                      stance_workspace **out, stance_error *err);
void stance_workspace_destroy(stance_workspace *workspace);
size_t stance_workspace_bytes(const stance_graph *graph);           /* what create allocates */
size_t stance_workspace_size(const stance_workspace *workspace);
stance_status stance_workspace_fits(const stance_workspace *workspace, const stance_graph *graph,
                                    stance_error *err);

typedef enum stance_history {
    /* Two past output poses and a switch record only for machines whose
     * transitions use inertialization or dead blending. On other machines
     * those modes (asked for by stance_instance_play or
     * stance_instance_override_switch) fade from the frozen last pose
     * instead, and stance_instance_machine_status reports STANCE_SWITCH_FROZEN. */
    STANCE_HISTORY_AUTO = 0,
    STANCE_HISTORY_ALL        /* history for every machine (experiments, the lab) */
} stance_history;

typedef struct stance_instance_desc {
    stance_history history;
} stance_instance_desc;

/* desc may be NULL (all defaults). */
stance_status stance_instance_create_ex(const stance_graph *graph, const stance_instance_desc *desc,
                                        const stance_allocator *allocator, stance_instance **out,
                                        stance_error *err);
stance_status stance_instance_create(const stance_graph *graph, const stance_allocator *allocator,
                                     stance_instance **out, stance_error *err);
/* Bytes of the instance's one block (its whole persistent state). */
size_t stance_instance_bytes(const stance_instance *instance);
const stance_graph *stance_instance_graph(const stance_instance *instance);
void stance_instance_destroy(stance_instance *instance);
/* Copies the whole state of src into dst (same graph, same desc). */
stance_status stance_instance_copy(stance_instance *dst, const stance_instance *src);
/* Back to the initial state: parameters at their defaults, entry states, time 0. */
stance_status stance_instance_reset(stance_instance *instance);

stance_status stance_instance_set_float(stance_instance *inst, int param, float value, stance_error *err);
stance_status stance_instance_set_int(stance_instance *inst, int param, int value, stance_error *err);
stance_status stance_instance_set_bool(stance_instance *inst, int param, int value, stance_error *err);
stance_status stance_instance_set_trigger(stance_instance *inst, int param, stance_error *err);
/* By name: an unknown name is an error naming the closest known one. */
stance_status stance_instance_set_float_by_name(stance_instance *inst, const char *name, float value, stance_error *err);
stance_status stance_instance_set_trigger_by_name(stance_instance *inst, const char *name, stance_error *err);
/* The value the graph currently sees (after damping). */
float stance_instance_param(const stance_instance *inst, int param);

/* Overrides every transition's switch mode / blend time / easing (for
 * experiments and the lab). mode < 0, blend_time <= 0, easing < 0 = no override. */
stance_status stance_instance_override_switch(stance_instance *inst, int mode, float blend_time, int easing);

#define STANCE_UPDATE_NO_TRANSITIONS 1 /* update flag: start no transition this update */

/* Advances by dt seconds and evaluates: carries out play requests, checks
 * transitions, advances playback, evaluates every machine (nested ones
 * too, with the same dt), composes the layers, builds the local and model
 * poses, records events and root motion. dt must be finite and in [0, 1]
 * (else STANCE_ERR_VALUE, nothing changes); a dt below STANCE_MIN_DT
 * (subnormal or tiny) is treated as 0: the pose is evaluated, nothing
 * moves, and no velocity is ever taken over such a step. workspace: see
 * above (NULL: STANCE_ERR_ARGUMENT). */
stance_status stance_instance_update(stance_instance *inst, float dt, stance_workspace *workspace);
stance_status stance_instance_update_ex(stance_instance *inst, float dt, unsigned flags,
                                        stance_workspace *workspace);
/* Updates instances[0..count) in order with one workspace, exactly as
 * count calls of stance_instance_update (bit for bit). The instances may
 * belong to different graphs that fit the workspace. Returns the first
 * error, after updating all the others. */
stance_status stance_instances_update(stance_instance *const *instances, int count, float dt,
                                      stance_workspace *workspace);

const stance_pose *stance_instance_local_pose(const stance_instance *inst);
const stance_pose *stance_instance_model_pose(const stance_instance *inst);
/* Events recorded by the last update, in order. *dropped gets how many did not fit. */
const stance_event *stance_instance_events(const stance_instance *inst, int *count, int *dropped);
/* Root displacement of the last update (the base layer's motion, model space). */
void stance_instance_root_motion(const stance_instance *inst, float out[3]);
/* Clips sampled by the last update (a cost measure). */
int stance_instance_clips_sampled(const stance_instance *inst);
float stance_instance_time(const stance_instance *inst);

/* The character's world transform, which places it for foot locking.
 * Until set, the instance starts at the identity and moves it by its own
 * root motion each update (rotated by the root's rotation). Once set, the
 * caller owns it: each update uses the last one set (set it every frame
 * for a character gameplay moves); root NULL = back to moving it by root
 * motion from where it is. teleport = 1 also forgets every lock (as on
 * reset): feet plant anew where they are. The rotation must be a unit
 * quaternion (within 1e-3; it is normalized); translation and scale within
 * the limits of stance/base.h (|t| <= STANCE_MAX_TRANSLATION, |s| in
 * [STANCE_MIN_SCALE, STANCE_MAX_SCALE]), the rule the footlock stage uses
 * too; else STANCE_ERR_VALUE naming the limit. */
stance_status stance_instance_set_root(stance_instance *inst, const stance_transform *root, int teleport,
                                       stance_error *err);
void stance_instance_root(const stance_instance *inst, stance_transform *out);
/* The ground under world (x, z) for the footlock entries; fn NULL = flat
 * ground at the root's height. */
stance_status stance_instance_set_ground(stance_instance *inst, stance_ground_fn fn, void *user);
/* The target of a two_bone or aim entry, in model space (the character's
 * own space; a position within the limits of stance/base.h), and how much of
 * the solve shows, in [0, 1] (0, the initial value, leaves the pose as the
 * layers made it). Kept until set again;
 * reset returns it to weight 0. */
stance_status stance_instance_set_ik_target(stance_instance *inst, int ik, const float target[3], float weight,
                                            stance_error *err);
/* The pole of a two_bone entry, in model space (a position within the
 * limits of stance/base.h): the knee (the middle joint)
 * bends towards it (stance_two_bone_desc.pole). NULL clears it: the bend of
 * the layers' pose is kept, as before any pole was set. Kept until set
 * again; reset clears it; hot reload keeps it with the target. */
stance_status stance_instance_set_ik_pole(stance_instance *inst, int ik, const float pole[3], stance_error *err);
/* The lock state of footlock entry `ik` after the last update (NULL for a bad index). */
const stance_footlock_state *stance_instance_footlock_state(const stance_instance *inst, int ik);

/* What a machine is doing. */
typedef struct stance_machine_status {
    int state;             /* global index of the current (target) state */
    float state_time;      /* seconds in the current state */
    float normalized_time; /* current state's playback position / duration (loops count up) */
    int transition;        /* -1 when no transition is running, else the source state */
    float progress;        /* 0..1 through the running transition */
    stance_switch_mode mode;
} stance_machine_status;
stance_status stance_instance_machine_status(const stance_instance *inst, int machine,
                                             stance_machine_status *out);
/* Switches the machine that owns `state` to it, like a transition with this
 * mode, easing and blend time (blend_time <= 0 or mode cut: at once). The
 * switch happens at the start of the next update (its events open that
 * update's list); until then stance_instance_machine_status reports the
 * state asked for, and a later play on the same machine replaces it. Used
 * by the gameplay controller; the state may be the current one (a restart). */
stance_status stance_instance_play(stance_instance *inst, int state, stance_switch_mode mode, stance_easing easing,
                                   float blend_time, stance_error *err);
/* A disabled layer's machine neither plays nor reports events (weight 0 layers still play). */
stance_status stance_instance_set_layer_enabled(stance_instance *inst, int layer, int enabled);
int stance_instance_layer_enabled(const stance_instance *inst, int layer);
/* Moves what can be moved from `from` (an instance of another graph, e.g.
 * the previous version of a reloaded file) into `to`: parameters, layer
 * weights and each machine's current state and its time, matched by name;
 * the world root and ground; the locks, targets and poles of IK entries of the
 * same name and kind (locks only with the same leg count). What has no counterpart is listed in `report` (may be NULL). */
stance_status stance_instance_transfer(stance_instance *to, const stance_instance *from, char *report,
                                       size_t report_size);
float stance_graph_state_fade_time(const stance_graph *graph, int state);
int stance_graph_state_once(const stance_graph *graph, int state);
stance_layer_mode stance_graph_layer_mode(const stance_graph *graph, int layer);

/* Current layer weight (after fades). The instance is the one owner of
 * layer weights: set_layer_weight states a target and the time to reach it
 * (0 = at once, else a linear fade of |target - weight| / fade_time per
 * second), each update moves the weight towards it. The weight must be
 * finite in [0, 1] and fade_time finite in [0, 60] s (else STANCE_ERR_VALUE);
 * a bad layer, or a weight other than 1 for layer 0, is STANCE_ERR_ARGUMENT. */
float stance_instance_layer_weight(const stance_instance *inst, int layer);
float stance_instance_layer_target(const stance_instance *inst, int layer);
stance_status stance_instance_set_layer_weight(stance_instance *inst, int layer, float weight,
                                               float fade_time);

#ifdef __cplusplus
}
#endif
#endif
