/* stance/graph.h - a compiled animation graph, as the runtime holds it:
 * its vocabulary (parameter types, state kinds, switch modes, easing,
 * layer modes and spaces, IK kinds), its limits, and the queries that find
 * its parameters, machines, states, layers, clips and IK entries by name
 * and index. A graph comes from a compiled .stance file
 * (stance_asset_load_*, stance/asset.h) or from a description built with
 * the offline builder (stance_graph_create, stance/build.h); it is shared
 * and immutable. What runs it per character is a stance_instance
 * (stance/instance.h), fed by parameters (stance/params.h), reporting
 * events (stance/events.h). */
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

/* ---- vocabulary ------------------------------------------------------------ */


typedef enum stance_param_type {
    STANCE_PARAM_FLOAT = 0,
    STANCE_PARAM_INT,
    STANCE_PARAM_BOOL,
    STANCE_PARAM_TRIGGER /* set by gameplay, consumed when a transition reading it fires */
} stance_param_type;

typedef enum stance_motion_type {
    STANCE_MOTION_CLIP = 0,   /* one clip */
    STANCE_MOTION_BLEND1D,    /* clips at positions on one parameter, phase-synced */
    STANCE_MOTION_BLEND2D,    /* clips at 2D positions, gradient band weights, phase-synced */
    STANCE_MOTION_MACHINE     /* a nested state machine */
} stance_motion_type;

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

typedef struct stance_graph stance_graph;
typedef struct stance_instance stance_instance;
typedef struct stance_workspace stance_workspace;

/* ---- queries ---------------------------------------------------------------
 * Queries cannot fail: they take no err, and a NULL graph or an index out of
 * range answers -1 (an index), 0 (a count or a number), "" (a name), NULL (a
 * pointer), or STANCE_PARAM_FLOAT / STANCE_LAYER_OVERRIDE (a kind).
 * Indices are global (a state's index counts the states of every machine
 * before it). Transitions and conditions: stance/graph_query.h. */
STANCE_API void stance_graph_destroy(stance_graph *graph); /* NULL is fine */

STANCE_API const stance_skeleton *stance_graph_skeleton(const stance_graph *graph);

/* parameters (what stance/params.h sets) */
STANCE_API int stance_graph_param_count(const stance_graph *graph);
STANCE_API int stance_graph_find_param(const stance_graph *graph, const char *name);          /* -1 if none */
STANCE_API const char *stance_graph_param_name(const stance_graph *graph, int param);
STANCE_API stance_param_type stance_graph_param_type(const stance_graph *graph, int param);
/* The closest known parameter name to `name` (edit distance), for messages. */
STANCE_API const char *stance_graph_closest_param(const stance_graph *graph, const char *name);

/* machines and their states */
STANCE_API int stance_graph_machine_count(const stance_graph *graph);
STANCE_API int stance_graph_find_machine(const stance_graph *graph, const char *name);
STANCE_API const char *stance_graph_machine_name(const stance_graph *graph, int machine);
STANCE_API int stance_graph_state_count(const stance_graph *graph);                           /* all machines */
/* A state's global index: "Machine/State", or a bare state name when unique. -1 if none. */
STANCE_API int stance_graph_find_state(const stance_graph *graph, const char *name);
STANCE_API const char *stance_graph_state_name(const stance_graph *graph, int state);
STANCE_API int stance_graph_state_machine(const stance_graph *graph, int state);
/* A state's fade time (controller: switch and layer fade time; 0 = uniform)
 * and whether it plays once. */
STANCE_API float stance_graph_state_fade_time(const stance_graph *graph, int state);
STANCE_API int stance_graph_state_once(const stance_graph *graph, int state);

/* layers */
STANCE_API int stance_graph_layer_count(const stance_graph *graph);
STANCE_API int stance_graph_find_layer(const stance_graph *graph, const char *name);
STANCE_API const char *stance_graph_layer_name(const stance_graph *graph, int layer);
STANCE_API int stance_graph_layer_machine(const stance_graph *graph, int layer);
STANCE_API int stance_graph_layer_priority(const stance_graph *graph, int layer);
STANCE_API stance_layer_mode stance_graph_layer_mode(const stance_graph *graph, int layer);

/* clips: the distinct clips the graph's states play (clip states and blend
 * entries), in order of first use: writes up to `capacity`, returns how many
 * there are. */
STANCE_API int stance_graph_clips(const stance_graph *graph, const stance_clip **clips, int capacity);

/* A clip's events as the graph fires them (the events of a STANCE_EVENT_CLIP_MARKER
 * are numbered so): the clip's own first, then those the graph file authored
 * for it, sorted by time; and its windows. Each writes up to `capacity`
 * (out may be NULL) and returns how many there are (0 for a clip the graph
 * does not play). The pointers live as long as the graph and the clip. */
typedef struct stance_clip_note {
    const char *name;
    float time;                          /* seconds in the clip */
    float min_weight;                    /* it fires while its state's weight is at least this (0: always) */
    const stance_event_payload *payload; /* NULL: none (always so for a clip's own events) */
    int authored;                        /* 1: authored in the graph, 0: the clip's own */
} stance_clip_note;
typedef struct stance_clip_window {
    const char *name;
    float from, to;                      /* seconds in the clip */
    float min_weight;
} stance_clip_window;
STANCE_API int stance_graph_clip_events(const stance_graph *graph, const stance_clip *clip, stance_clip_note *out,
                                        int capacity);
STANCE_API int stance_graph_clip_windows(const stance_graph *graph, const stance_clip *clip, stance_clip_window *out,
                                         int capacity);

/* Sync groups and markers (docs/sync.md). stance_graph_clip_markers writes
 * up to `capacity` of the clip's markers sorted by time (out may be NULL)
 * and returns how many there are (0 for a clip without, or one the graph
 * does not play); stance_graph_clip_speed is its ground speed in m/s, 0
 * when not given; stance_graph_state_sync is the state's sync group, NULL
 * for none (or a NULL graph, a state out of range). */
typedef struct stance_clip_marker {
    const char *name;
    float time;                          /* seconds in the clip */
} stance_clip_marker;
STANCE_API int stance_graph_clip_markers(const stance_graph *graph, const stance_clip *clip, stance_clip_marker *out,
                                         int capacity);
STANCE_API float stance_graph_clip_speed(const stance_graph *graph, const stance_clip *clip);
STANCE_API const char *stance_graph_state_sync(const stance_graph *graph, int state);
/* Curves (the graph file's "clips": {"C": {"curves": {...}}}, or
 * stance_graph_desc.curves; docs/curves.md): piecewise-linear float tracks
 * per clip, named; a curve's id is its index here (in order of first
 * appearance; gen-header names them). stance_instance_curve reads their
 * blended value. */
#define STANCE_MAX_CURVES 256       /* distinct curve names in a graph */
#define STANCE_MAX_CURVE_KEYS 4096  /* keys of one clip's track */
/* What a drive (stance_drive_desc, stance/build.h) sets at the start of each update (and at creation and
 * reset), from where the last update left the clips. */
typedef enum stance_drive_target {
    STANCE_DRIVE_PARAM = 0,            /* a float parameter follows a curve (conditions and blend spaces read it) */
    STANCE_DRIVE_LAYER_WEIGHT,         /* a layer's weight (not the first layer's), clamped to [0, 1] */
    STANCE_DRIVE_IK_WEIGHT             /* a two_bone or aim entry's weight, clamped to [0, 1] */
} stance_drive_target;
STANCE_API int stance_graph_curve_count(const stance_graph *graph);                         /* 0 for NULL */
STANCE_API int stance_graph_find_curve(const stance_graph *graph, const char *name);        /* -1 if none */
STANCE_API const char *stance_graph_curve_name(const stance_graph *graph, int curve);       /* NULL if out of range */
/* The closest curve name to `name` (edit distance), for messages; "" when none. */
STANCE_API const char *stance_graph_closest_curve(const stance_graph *graph, const char *name);
/* A clip's tracks: curve id, key count and keys (time, value pairs, times
 * strictly increasing in [0, the clip's duration]), as the graph keeps them
 * (the same bits a file authored). Writes up to `capacity` (out may be NULL)
 * and returns how many the clip has (0 for NULL or a clip without). The
 * pointers live as long as the graph. */
typedef struct stance_clip_curve {
    int curve;                           /* its id (stance_graph_curve_name) */
    int key_count;                       /* 1..STANCE_MAX_CURVE_KEYS */
    const float *keys;                   /* key_count (time, value) pairs */
} stance_clip_curve;
STANCE_API int stance_graph_clip_curves(const stance_graph *graph, const stance_clip *clip, stance_clip_curve *out,
                                        int capacity);

/* IK entries */
STANCE_API int stance_graph_ik_count(const stance_graph *graph);
STANCE_API int stance_graph_find_ik(const stance_graph *graph, const char *name);             /* -1 if none */
/* Entry `ik`'s kind (a stance_ik_kind), -1 when the graph is NULL or ik is out of range. */
STANCE_API int stance_graph_ik_kind(const stance_graph *graph, int ik);
/* Entry `ik`'s contacts for `clip` (one of stance_graph_clips), NULL if none. */
STANCE_API const stance_contacts *stance_graph_ik_contacts(const stance_graph *graph, int ik, const stance_clip *clip);

#ifdef __cplusplus
}
#endif
#endif
