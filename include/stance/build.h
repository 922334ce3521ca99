/* stance/build.h - the offline builder: what turns a description of a graph
 * into a compiled one, compresses clips and writes .stance files. It
 * allocates freely and is what tools, importers and editors link; a
 * shipping game that only loads compiled files needs the runtime alone
 * (stance/stance.h).
 *
 * The description: parameters, state machines (states playing clips, 1D/2D
 * blend spaces or nested machines; ordered transitions with conditions,
 * exit time, blend time, easing and a switch mode), layers (override or
 * additive, masks, local or mesh space) and IK entries. Every pointer in a
 * desc is read during the call only. */
#ifndef STANCE_BUILD_H
#define STANCE_BUILD_H

#include "asset.h"
#include "clip.h"
#include "footlock.h"
#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- description ---------------------------------------------------------- */


typedef struct stance_param_desc {
    const char *name;         /* 1..63 bytes, unique */
    stance_param_type type;
    float value;              /* initial value (bool/trigger: 0 or 1) */
    /* Float parameters only: the graph sees the value follow what gameplay
     * sets with this halflife in seconds (0 = at once), as most locomotion
     * inputs are smoothed, so a blend space does not pop when speed jumps. */
    float damping;
} stance_param_desc;

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
    /* Sync group (docs/sync.md): states of one group (the same name, 1..63
     * bytes) share a phase through their clips' markers (stance_clip_sync_desc).
     * A group needs two or more members: clip states playing a clip with
     * markers, and blend spaces with at least one entry whose clip has
     * markers (its phase follows its highest-weighted such entry's). NULL =
     * none. */
    const char *sync;
    /* Blend spaces (docs/events.md, Unreal's notify trigger mode): whose
     * clip events fire. STANCE_BLEND_EVENTS_DOMINANT (0, the default): the
     * largest-weighted entry's only. STANCE_BLEND_EVENTS_ALL: also every
     * other entry's whose effective weight (the state's times the entry's)
     * is above 0 and at least the event's min_weight. Windows are the
     * dominant entry's in both. Other states: 0. */
    int blend_events;
} stance_state_desc;

enum { STANCE_BLEND_EVENTS_DOMINANT = 0, STANCE_BLEND_EVENTS_ALL = 1 };

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
     * they are down (within STANCE_SLIDE_BAND_LEGS of a leg of their lowest), reversed. */
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

/* ---- clip notes: events and windows authored for a clip in the graph ---------
 * (the graph file's "clips" sidecar). They fire at run time with the clip's
 * own events (merged by time) wherever a state plays the clip; notes of a
 * clip no state plays are kept out of the graph. */
typedef struct stance_notify_desc {
    const char *name;                  /* 1..31 bytes */
    float time;                        /* in [0, the clip's duration] */
    float min_weight;                  /* in [0, 1]: fires only while its state's weight is at least this;
                                          0 (default) = whatever the weight */
    stance_event_payload payload;      /* zero = none */
} stance_notify_desc;
typedef struct stance_window_desc {
    const char *name;                  /* 1..31 bytes */
    float from, to;                    /* 0 <= from <= to <= the clip's duration */
    float min_weight;                  /* in [0, 1]: begins only while its state's weight is at least this */
} stance_window_desc;
typedef struct stance_clip_notes_desc {
    const stance_clip *clip;           /* one of the clips the graph's states play (else ignored) */
    int event_count;                   /* with the clip's own, at most STANCE_MAX_EVENTS */
    const stance_notify_desc *events;  /* any order */
    int window_count;                  /* 0..STANCE_MAX_WINDOWS */
    const stance_window_desc *windows;
} stance_clip_notes_desc;

/* ---- clip sync metadata: markers and ground speed (docs/sync.md) -----------
 * (the graph file's "clips" sidecar, "markers" and "speed"). Markers are
 * named points of a clip's cycle (a foot's contact: "L", "R"); states of a
 * sync group switch and crossfade at marker-matched phases. */
typedef struct stance_marker_desc {
    const char *name;                  /* 1..31 bytes */
    float time;                        /* in [0, the clip's duration] */
} stance_marker_desc;
typedef struct stance_clip_sync_desc {
    const stance_clip *clip;           /* one of the clips the graph's states play (else ignored) */
    int marker_count;                  /* 0..STANCE_MAX_MARKERS */
    const stance_marker_desc *markers; /* any order */
    /* The clip's ground speed in m/s (model units a second): how fast the
     * character travels while the clip plays, for clips played in place
     * (stance_graph_clip_speed; the caller moves the character by it).
     * 0 = not given. Finite, >= 0. */
    float speed;
} stance_clip_sync_desc;
/* ---- curves and drives (docs/curves.md) --------------------------------------
 * A curve: a named piecewise-linear float track of one clip, sampled with
 * the clip's cursor wherever a state plays it (tracks of clips no state
 * plays are left out). Keys are (time, value) pairs: times strictly
 * increasing within [0, the clip's duration], values finite; before the
 * first key the first value holds, after the last the last. */
typedef struct stance_curve_desc {
    const stance_clip *clip;           /* one of the clips the graph's states play (else ignored) */
    const char *name;                  /* 1..63 bytes; tracks of one name on several clips are one curve */
    int key_count;                     /* 1..STANCE_MAX_CURVE_KEYS */
    const float *keys;                 /* key_count (time, value) pairs */
} stance_curve_desc;

/* A drive (stance_drive_target, stance/graph.h): a parameter, layer weight
 * or IK weight set from a parameter or a curve each update. */
typedef struct stance_drive_desc {
    stance_drive_target target;
    const char *name;                  /* the parameter (float, no damping), layer or IK entry driven */
    const char *param;                 /* the source: a float or int parameter (not for STANCE_DRIVE_PARAM) ... */
    const char *curve;                 /* ... or a curve's name: exactly one of the two */
} stance_drive_desc;

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
    int clip_notes_count;            /* per clip at most once */
    const stance_clip_notes_desc *clip_notes;
    int clip_sync_count;             /* per clip at most once */
    const stance_clip_sync_desc *clip_sync;
    int curve_count;                 /* tracks (one per clip and name) */
    const stance_curve_desc *curves;
    int drive_count;                 /* each target driven at most once */
    const stance_drive_desc *drives;
} stance_graph_desc;

/* Validates the description and compiles the graph: names resolved to
 * indices, each state's transitions in priority order, the machine trees
 * flattened into one order, additive delta clips baked, foot contacts found
 * for every footlock entry and clip, the scale caps computed. The result is
 * then written in the compiled form a .stance file holds (GRPH format 2)
 * and bound by the runtime as a loaded file is (one block plus the delta
 * clips; every index and value checked again), so a graph made here and one
 * loaded from a compiled file are the same thing; the desc's clips are
 * pointed at, not copied (they must outlive the graph). Issue 22: the chain
 * rule of stance/base.h is checked here for what the graph can play: the
 * largest |scale| the rest pose and the states' clips give each joint, times
 * for each additive layer the largest its delta can multiply by (a
 * first-frame delta clip's, or the clips over a sync reference's smallest),
 * multiplied down every chain, must stay within STANCE_MAX_SCALE
 * (STANCE_ERR_VALUE naming the joint and the product); a sync layer's
 * reference whose scale changes sign is refused (its delta has no bound).
 * At run time a switch's transient (inertialization, dead blending) is held
 * within the same per-joint bounds, so the chain rule holds on every frame. */
STANCE_API stance_status stance_graph_create(const stance_graph_desc *desc, const stance_allocator *allocator,
                                  stance_graph **out, stance_error *err);

/* ---- compression ----------------------------------------------------------
 * Key reduction and quantization driven by the error where it shows: the
 * model-space distance between a virtual vertex of the exact and of the
 * compressed clip, at vertex_distance from each joint along each of its
 * three axes, accumulated down the hierarchy, measured at every grid key and
 * 3 points between each (4x the key rate). Two searches, the smaller
 * result kept: (1) every moving track gets the cheapest of: every 2^s-th key
 * (s = 0..8) x raw floats or 1..24 bits per component against its range,
 * that keeps the largest error of its subtree under its share of max_error
 * (shares grow with depth, the deepest joints get all of it); (2) every key,
 * a bit rate per segment of 16 keys and track (rotations without their
 * largest component, each segment within its own range), chosen segment by
 * segment for all tracks together (.stance v4). Tracks equal to the rest
 * pose are dropped, constant tracks are stored once. The error reported is
 * measured on the result as it samples. */
typedef struct stance_compress_settings {
    float max_error;       /* model units; 0 = 0.0001 (0.01 cm for a skeleton in metres) */
    float vertex_distance; /* model units; 0 = 0.03 (3 cm in metres) */
    size_t max_memory;     /* bytes the compressor may allocate while it works on one clip
                              (checked before it allocates: STANCE_ERR_MEMORY over it); 0 = no limit */
} stance_compress_settings;

/* A compressed copy of an exact clip (clip must not be compressed already;
 * the skeleton is the one it was made for). The result samples through
 * stance_clip_sample & co. like any clip; the error measured while
 * compressing is in stance_clip_max_error. Creation-time work: it allocates
 * about 850 bytes per joint per key while it runs (4 evaluation points per
 * key; stance_clip_compress_memory says how much exactly), and refuses clips
 * past 2^26 points x joints or past settings->max_memory. */
STANCE_API stance_status stance_clip_compress(const stance_clip *clip, const stance_skeleton *skeleton,
                                   const stance_compress_settings *settings, const stance_allocator *allocator,
                                   stance_clip **out, stance_error *err);
/* The bytes stance_clip_compress allocates at most while it compresses
 * `clip` (its working set; 0 for NULL arguments or a clip it refuses). */
STANCE_API size_t stance_clip_compress_memory(const stance_clip *clip, const stance_skeleton *skeleton);

/* Replaces each exact clip by its compressed copy (stance_clip_compress with
 * the asset's skeleton and allocator). Not with a graph (it points at the
 * clips): compress first. On failure the clips done so far stay compressed. */
STANCE_API stance_status stance_asset_compress(stance_asset *asset, const stance_compress_settings *settings,
                                    stance_error *err);

/* ---- foot contacts -------------------------------------------------------- */

/* Finds the contacts of `clip` (made for `skeleton`): from its events or
 * from its motion (stance_contact_desc). stance_graph_create does this for
 * every footlock entry and clip; a compiled graph carries them. */
STANCE_API stance_status stance_contacts_create(const stance_contact_desc *desc, const stance_clip *clip,
                                     const stance_skeleton *skeleton, const stance_allocator *allocator,
                                     stance_contacts **out, stance_error *err);
STANCE_API void stance_contacts_destroy(stance_contacts *contacts); /* NULL is fine */

/* ---- legs and root motion extraction (src/build/root_extract.c) ---------- */

/* The leg above a foot: hip and knee. A foot whose parent and grandparent
 * are the knee and hip (and the hip has a parent) gives those; a foot that is
 * an IK control bone outside the leg (RobotExpressive) takes as knee the
 * joint nearest to it in the rest pose that is neither its ancestor nor its
 * descendant, and that joint's parent as hip. */
STANCE_API stance_status stance_leg_find(const stance_skeleton *skeleton, int foot, int *hip, int *knee, stance_error *err);
/* The leg's length at the bind (rest) pose: |hip - knee| + |knee - foot| in
 * model units (stance_leg_find's hip and knee); the unit of every contact
 * and sliding threshold (stance/footlock.h). */
STANCE_API stance_status stance_leg_length(const stance_skeleton *skeleton, int foot, float *out, stance_error *err);

typedef enum stance_root_mode {
    STANCE_ROOT_NONE = 0, /* the clip as it is */
    STANCE_ROOT_HIPS = 1, /* the pelvis' horizontal ground projection becomes the root path */
    STANCE_ROOT_ROOT = 2  /* an existing root bone above the pelvis (stance_root_find_bone) is the root path */
} stance_root_mode;

typedef struct stance_root_desc {
    stance_root_mode mode;
    /* the pelvis (HIPS) or root bone (ROOT) by name; NULL or "" = found:
     * HIPS: stance_root_find_joint; ROOT: stance_root_find_bone */
    const char *joint;
    /* 1: the pelvis' (root bone's) turn about +Y since time 0 goes into the
     * path too (stance_clip_desc.root_yaw): the in-place pelvis keeps
     * facing as at time 0 and the root turns; 0 = translation only. */
    int yaw;
    /* 1 (ROOT mode only; not with yaw): the root bone's full model-space
     * rotation relative to time 0 and its full 3-D translation go into the
     * path (stance_clip_desc.root_rotation): the bone keeps its time-0 model
     * transform and the bones below it, local to it, follow the path, so
     * their model-space pose (the path applied) is the file's at every key.
     * Joints above the bone (an armature node) keep their model transform
     * and move with the path too. HIPS refuses it (use yaw). */
    int rotation;
} stance_root_desc;

/* The pelvis: the first joint (in order) with translation keys in `clip`
 * that carries the legs (at least two of its child branches reach below it
 * by a quarter of the rest pose's height). *out = -1 and STANCE_ERR_NOT_FOUND
 * when none does. */
STANCE_API stance_status stance_root_find_joint(const stance_skeleton *skeleton, const stance_clip *clip, int *out, stance_error *err);

/* The root bone: of the strict ancestors of the joint carrying the legs
 * (the first joint two of whose child branches reach below it by a quarter
 * of the rest height, keys or not), those with translation keys in `clip`
 * that move (more than 1e-5 of the rest height over the clip), the one
 * whose local translation moves most (on a tie the higher one): an
 * Unreal-style `root` bone, or an armature node carrying the travel, above
 * the pelvis. *out = -1 and STANCE_ERR_NOT_FOUND, with a message saying what
 * was looked for and suggesting --root-motion hips, when none does. */
STANCE_API stance_status stance_root_find_bone(const stance_skeleton *skeleton, const stance_clip *clip, int *out, stance_error *err);

/* An in-place copy of `clip` with a root path (docs/root-motion.md):
 * HIPS: the path at every key of the clip's grid is the pelvis' model-space
 * position projected on the ground (y = 0), relative to its position at time
 * 0; the pelvis' translation loses that offset (through its parents'
 * transform at the key), so it keeps its height and everything it does
 * relative to the path, and the pose at time 0 is unchanged. The clip's
 * declared motion (root_speed) is the per-cycle horizontal travel: the
 * path's end minus its start over the duration. A loop that does not close
 * (the pelvis' height at the end differs from its height at the start) has
 * that residual spread linearly over the cycle (height - residual x t /
 * duration) so it loops without a pop.
 * With desc->yaw, the pelvis' twist about +Y relative to time 0 (unwrapped)
 * becomes the path's yaw, the path is p_h(t) - Y(yaw) p0_h (so the in-place
 * pelvis stays over its spot at time 0) and the pelvis is expressed in the
 * path's frame: position and rotation turned back by the yaw.
 * ROOT: the same with the root bone (desc->joint, else stance_root_find_bone)
 * in place of the pelvis: its horizontal travel is the path and it keeps
 * its height.
 * NONE: an exact copy. The input may be compressed; the copy is exact. */
STANCE_API stance_status stance_clip_extract_root(const stance_clip *clip, const stance_skeleton *skeleton, const stance_root_desc *desc,
                                       const stance_allocator *allocator, stance_clip **out, stance_error *err);
/* stance_clip_extract_root on every clip of the asset, in place (not with a
 * graph: it points at the clips). ROOT without a name finds one root bone
 * for the asset (the first clip's in which stance_root_find_bone finds one)
 * and fails with that function's message when no clip has one. A clip without the joint's translation
 * keys is left as it is. On failure the clips done so far stay replaced. */
STANCE_API stance_status stance_asset_extract_root(stance_asset *asset, const stance_root_desc *desc, stance_error *err);

/* ---- loading files written before the runtime bound compiled graphs ------
 * A .stance file's GRPH section of format 1 (written before stance 0.1's
 * compiled form: the graph's description, clips by index) needs the
 * builder: the runtime's stance_asset_load_* refuse it (STANCE_ERR_UNSUPPORTED,
 * saying to recompile the file with `stance compile` / `stance import` or to
 * load it here). These load any .stance file as stance_asset_load_memory and
 * _file do, and rebuild a format-1 graph from its description
 * (stance_graph_create on the file's skeleton and clips) into asset.graph;
 * a format-2 graph is bound as the runtime binds it. libstance_io's
 * loaders (stance_open_file, graph files naming a .stance) go through them,
 * so the CLI loads both forms. */
STANCE_API stance_status stance_build_load_asset_memory(const void *bytes, size_t size, const stance_allocator *allocator,
                                             stance_asset *out, stance_error *err);
STANCE_API stance_status stance_build_load_asset_file(const char *path, const stance_allocator *allocator, stance_asset *out,
                                           stance_error *err);

/* ---- writing .stance files ------------------------------------------------ */
/* Serializes the asset into one block from `allocator` (NULL = malloc);
 * free it with stance_asset_free_bytes and the same allocator. */
STANCE_API stance_status stance_asset_save_memory(const stance_asset *asset, void **out_bytes,
                                       size_t *out_size, const stance_allocator *allocator,
                                       stance_error *err);
STANCE_API void stance_asset_free_bytes(void *bytes, size_t size, const stance_allocator *allocator);

/* Saves the asset and, in a GRPH section, the graph `graph` describes,
 * compiled (`stance compile`; the section's format 2 is the graph as laid
 * out in memory: docs/build.md): every clip it names must be one of
 * asset->clips (they are stored by index), its masks have the skeleton's
 * joint count. Loading the bytes with the runtime alone gives asset.graph,
 * bound without re-resolving a name or sampling a clip, which updates
 * exactly like a graph built from the same description. graph NULL =
 * stance_asset_save_memory. */
STANCE_API stance_status stance_asset_save_graph_memory(const stance_asset *asset, const stance_graph_desc *graph,
                                             void **out_bytes, size_t *out_size,
                                             const stance_allocator *allocator, stance_error *err);

/* The same through a file: one write of the whole file. Messages start with the path. */
STANCE_API stance_status stance_asset_save_file(const stance_asset *asset, const char *path,
                                     stance_error *err);
STANCE_API stance_status stance_asset_save_graph_file(const stance_asset *asset, const stance_graph_desc *graph,
                                           const char *path, stance_error *err);

#ifdef __cplusplus
}
#endif
#endif
