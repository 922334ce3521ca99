/* src/core/graph_internal.h - the compiled graph (shared, immutable) and the
 * instance layout, shared by graph.c (building), instance.c (running) and
 * transition.c (switch maths). Not public. */
#ifndef STANCE_GRAPH_INTERNAL_H
#define STANCE_GRAPH_INTERNAL_H

#include "stance/graph.h"

#define G_NAME 64

typedef struct g_param {
    char name[G_NAME];
    stance_param_type type;
    float value;
    float damping;
} g_param;

typedef struct g_entry {
    const stance_clip *clip;
    float x, y;
} g_entry;

typedef struct g_state {
    char name[G_NAME];
    int machine;
    stance_motion_type type;
    const stance_clip *clip;
    int once;
    float speed;
    int speed_param;            /* -1 none */
    int entry_first, entry_count;
    int param_x, param_y;       /* -1 none */
    int sub_machine;            /* -1 none */
    int trans_first, trans_count; /* into graph->state_trans */
    int ref_pose;               /* additive reference pose index in graph->ref_poses, -1 none */
    int speed_warp;
    float fade_time;
} g_state;

typedef struct g_cond {
    int param;
    stance_compare op;
    float value, hysteresis;
    int group;
} g_cond;

typedef struct g_trans {
    int from;                   /* global state index, -1 = any */
    int to;
    int cond_first, cond_count;
    stance_exit_mode exit;
    float exit_time, blend_time;
    stance_switch_mode mode;
    stance_easing easing;
    int uninterruptible, allow_self;
} g_trans;

typedef struct g_machine {
    char name[G_NAME];
    int state_first, state_count;
    int entry;                  /* global state index */
    int any_first, any_count;   /* into graph->any_trans */
    int parent_state;           /* the state that nests it, or -1 */
    int layer;                  /* the layer that runs it, or -1 */
} g_machine;

typedef struct g_layer {
    char name[G_NAME];
    int machine;
    float weight;
    stance_layer_mode mode;
    stance_layer_space space;
    int has_mask;
    const float *mask;          /* joint_count weights (inside the graph block) */
    stance_additive_ref additive_ref;
    const stance_clip *ref_clip;
    int ref_clip_pose;          /* first frame of ref_clip in ref_poses, or -1 */
    int priority;
} g_layer;

struct stance_graph {
    const stance_skeleton *skeleton;
    int param_count, state_count, machine_count, layer_count;
    int trans_count, cond_count, entry_count, ref_pose_count;
    g_param *params;
    g_state *states;
    g_trans *trans;
    int *state_trans;           /* per state, its transitions in priority order */
    int *any_trans;             /* per machine, its any-state transitions */
    g_cond *conds;
    g_entry *entries;
    g_machine *machines;
    g_layer *layers;
    float *masks;
    stance_pose *ref_poses;     /* additive references (first frames), bound into the block */
    float default_blend_time;
    float deadblend_halflife;
    stance_allocator allocator;
    size_t bytes;
};

/* ---- instance ------------------------------------------------------------ */

enum { P_OUT, P_OLD, P_SNAP, P_H1, P_H2, P_S1, P_TV, P_SV, P_PER_MACHINE };
enum { P_LAYER_MODEL, P_LAYER_TMP, P_REF, P_DELTA, P_LOCAL, P_MODEL, P_INSTANCE };

typedef struct g_play {
    int state;
    double time;                /* seconds since the state started */
    float pos;                  /* clip: time in the clip; blend space: phase 0..1 */
    int loops;                  /* completed cycles */
    int finished;               /* once: reached the end */
    float root[3];              /* root displacement of the last advance */
    stance_cursor cursor[STANCE_MAX_BLEND_ENTRIES];
} g_play;

/* inertialization record per joint: 3 channels (t, r, s) of 8 floats */
#define INERT_FLOATS 24

typedef struct g_machine_rt {
    g_play cur, old;
    int trans;                  /* running transition index, -1 none */
    int from_state;
    float elapsed, duration;
    stance_switch_mode mode;
    stance_easing easing;
    int locked;                 /* uninterruptible transition running */
    int pending_init;           /* inertialize: offsets to compute at evaluation */
    float switch_dt;            /* dt of the frame the transition started */
    int hist;                   /* valid history frames (0..2) */
    int hist_flip;              /* which of P_H1/P_H2 holds the newer frame */
    float hist_dt;
    int evaluated;              /* evaluated this update */
    int pose_base;              /* first of its P_PER_MACHINE poses */
    float *inert;               /* joint_count * INERT_FLOATS */
    float *vel;                 /* joint_count * 9: dead blending source velocity t, w, s */
} g_machine_rt;

struct stance_instance {
    const stance_graph *graph;
    stance_allocator allocator;
    size_t bytes;
    float *params;              /* what the graph sees */
    float *param_target;        /* what gameplay set (damped params move towards it) */
    g_machine_rt *machines;
    float *layer_weight, *layer_target, *layer_rate;
    unsigned char *layer_off;   /* disabled layers */
    stance_pose *poses;
    int pose_count;
    stance_event events[STANCE_EVENT_QUEUE];
    int event_count, event_dropped;
    int events_sealed;          /* the queue holds a finished update's events */
    float root_delta[3];
    int clips_sampled;
    double time;
    int override_mode, override_easing;
    float override_blend;
};

/* transition.c: the switch modes' maths on poses */
void tr_extrapolate(stance_pose *out, const stance_pose *h1, const stance_pose *h2, float hist_dt, float dt);
void tr_velocity(stance_pose *vel, const stance_pose *h1, const stance_pose *h2, float hist_dt);
void tr_inertialize_init(float *rec, const stance_pose *src, const stance_pose *src_vel,
                         const stance_pose *dst, const stance_pose *dst_vel, float blend_time, int simple);
void tr_inertialize_apply(stance_pose *out, const float *rec, float t, int simple);
void tr_deadblend_source(stance_pose *out, const stance_pose *h1, const float *vel, float t, float halflife);
void tr_lerp(stance_pose *out, const stance_pose *a, const stance_pose *b, float w);
float tr_ease(stance_easing e, float p);
/* The quintic offset of one channel at time t (exposed for the tests). */
float tr_quintic(float x0, float v0, float a0, float T, float t);
void tr_bollo_params(float x0, float v0, float blend, float *a0, float *T);

#endif
