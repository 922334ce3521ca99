/* src/core/graph_internal.h - the compiled graph (shared, immutable) and the
 * instance layout, shared by graph.c (building), instance.c (running) and
 * transition.c (switch maths). Not public. */
#ifndef STANCE_GRAPH_INTERNAL_H
#define STANCE_GRAPH_INTERNAL_H

#include "stance/instance.h"
#include "stance/build.h"

#define G_NAME 64

typedef struct g_param {
    char name[G_NAME];
    stance_param_type type;
    float value;
    float damping;
} g_param;

typedef struct g_entry {
    const stance_clip *clip;
    const stance_clip *delta;   /* as g_state.delta */
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
    const stance_clip *delta;   /* additive first-frame layers: the clip minus its reference, built once */
    int delta_flags;            /* ST_DELTA_* (core/fused.h): channels of the delta that change nothing */
    unsigned long long delta_still; /* st_delta_still_blocks of delta */
    int speed_warp;
    float fade_time;
    int same_scale;             /* blend space: every clip it samples keeps one constant scale block, all
                                   bit for bit the same and without -0 (their blend is that block) */
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
    int layer;                  /* the layer that runs it, or -1 (nested: see root_layer) */
    int root_layer;             /* the layer whose tree holds it, or -1 */
    int post_first, post_at;    /* graph->post[post_first..post_at]: its subtree, children first, itself last */
    int clip_cap;               /* most clips one of its states samples (cursors per slot) */
    int history;                /* its transitions use velocity modes (inertialize, dead blending) */
    int has_trans;              /* some transition can leave a state of it (any-state or a state's own) */
} g_machine;

typedef struct g_layer {
    char name[G_NAME];
    int machine;
    float weight;
    stance_layer_mode mode;
    stance_layer_space space;
    int has_mask;
    const float *mask;          /* joint_count weights, zeros up to padded_count (inside the graph block) */
    stance_additive_ref additive_ref;
    const stance_clip *ref_clip;
    int ref_clip_pose;          /* first frame of ref_clip in ref_poses, or -1 */
    int priority;
    int fusable;                /* not the base layer, additive first-frame or a local override, its machine
                                   without nested machines: evaluate.c's fused_layer may take it */
} g_layer;

typedef struct g_ik {
    char name[G_NAME];
    stance_ik_kind kind;
    stance_footlock_desc fd;    /* joints resolved; ground from the instance (two_bone: legs[0]) */
    int chain_count, chain[STANCE_AIM_MAX_CHAIN];
    float forward[3], max_angles[STANCE_AIM_MAX_CHAIN];
} g_ik;

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
    int *post;                  /* machines, each subtree children first (see g_machine.post_first) */
    stance_clip **deltas;       /* delta clips the graph owns (delta_count) */
    int delta_count;
    float default_blend_time;
    float deadblend_halflife;
    int ik_count, ik_clip_count;
    g_ik *ik;                   /* ik_count (own allocation, see graph_ik.c) */
    const stance_clip **ik_clips; /* the clips the states play */
    stance_contacts **contacts; /* ik_count * ik_clip_count (footlock entries; else NULL) */
    float *scale_cap;           /* 2 x padded joints: the largest |scale| a machine's output takes at each joint,
                                   then the same for additive first-frame machines (graph_bounds.c) */
    size_t ik_bytes;
    stance_allocator allocator;
    size_t bytes;
};

/* ---- instance (persistent) and workspace (scratch) ---------------------- */

/* A play position in a state. Cursors live apart (per machine, two slots). */
typedef struct g_play {
    int state;
    int loops;                  /* completed cycles */
    int finished;               /* once: reached the end */
    float pos;                  /* clip: time in the clip; blend space: phase 0..1 */
    double time;                /* seconds since the state started */
    float root[3];              /* root displacement of the last advance */
} g_play;

/* inertialization record per joint: 3 channels (t, r, s) of 8 floats
 * (inertialize-simple); Bollo's keeps offset and velocity per channel at
 * 0..17, the blend at 18 and the channels' starting accelerations at 19..21;
 * dead blending keeps its 9 velocity floats per joint in the same record */
#define INERT_FLOATS 24

/* per IK entry: target x, y, z, weight; pole x, y, z, set */
#define IK_TARGET_FLOATS 8

/* Persistent poses of a machine, from its first pose index: SNAP always;
 * H1, H2 when it keeps history. */
enum { PM_SNAP, PM_H1, PM_H2 };

typedef struct g_machine_rt {
    g_play cur, old;
    int trans;                  /* a switch is running (>= 0) or not (-1) */
    int from_state;
    float elapsed, duration;
    stance_switch_mode mode;
    stance_easing easing;
    int locked;                 /* uninterruptible transition running */
    int pending_init;           /* inertialize: 1 offsets to compute at evaluation; 2 (Bollo) its velocity at the next step */
    float switch_dt;            /* dt of the frame the transition started */
    int hist;                   /* valid history frames (0..2; 0 without history) */
    int hist_flip;              /* which of H1/H2 holds the newer frame */
    float hist_dt;
    int cur_slot;               /* which cursor slot the current play uses */
    int req_state;              /* stance_instance_play request for the next update, -1 none */
    stance_switch_mode req_mode;
    stance_easing req_easing;
    float req_blend;
    int pose_first;             /* its first persistent pose (PM_SNAP) */
    int has_history;
    int cursor_cap;             /* graph->machines[m].clip_cap: the size of a slot of cursors, at hand */
    float *rec;                 /* joint_count * INERT_FLOATS when it keeps history */
    stance_cursor *cursors;     /* 2 slots of graph->machines[m].clip_cap */
} g_machine_rt;

/* instance-level persistent poses after the machines' */
enum { PI_LOCAL, PI_MODEL, PI_COUNT };

/* stance_instance.magic: IN_LIVE from creation until stance_instance_destroy
 * writes IN_DEAD (a debug build, NDEBUG not defined, first fills the whole
 * block with IN_POISON bytes): every public instance function checks it
 * (in_live), so a pointer kept past a destroy or a controller reload is
 * refused with STANCE_ERR_ARGUMENT while the memory is still readable
 * (a best effort: a freed block may be reused). */
#define IN_LIVE 0x53544931u /* "STI1" */
#define IN_DEAD 0xDEADD1EDu
#define IN_POISON 0xDB
#define IN_NOT_LIVE "NULL or destroyed (a pointer kept past stance_instance_destroy or stance_controller_reload)"

struct stance_instance {
    const stance_graph *graph;
    stance_allocator allocator;
    size_t bytes;
    unsigned magic;             /* IN_LIVE, IN_DEAD once destroyed (after the allocator's first 16 bytes) */
    int history_all;
    int requests;               /* a machine may hold a stance_instance_play request (req_state) */
    float *params;              /* what the graph sees */
    float *param_target;        /* what gameplay set (damped params move towards it) */
    g_machine_rt *machines;
    float *layer_weight, *layer_target, *layer_rate;
    unsigned char *layer_off;   /* disabled layers */
    stance_pose *poses;         /* PI_LOCAL, PI_MODEL */
    float *machine_pose_mem;    /* the machines' persistent poses (views: in_mpose) */
    int event_count, event_dropped;
    int events_sealed;          /* the queue holds a finished update's events */
    float root_delta[3];
    stance_footlock_state *ik_state; /* graph->ik_count */
    float *ik_target;           /* graph->ik_count x IK_TARGET_FLOATS: two_bone and aim targets (x, y, z,
                                   weight), two_bone poles (x, y, z, 1 = set) */
    stance_transform world_root;
    int root_owned;             /* the caller set the root: no root motion accumulated */
    stance_ground_fn ground;
    void *ground_user;
    int clips_sampled;
    double time;
    int override_mode, override_easing;
    float override_blend;
    stance_event *events;       /* STANCE_EVENT_QUEUE, in the block's cold tail (after the poses) */
};

/* The plan the advance pass writes for one machine and evaluation reads:
 * the clips to sample (for additive layers, their precomputed deltas), at
 * which times, with which weights and cursors, and how to switch. */
typedef struct g_plan_src {
    int count;                  /* clips to sample */
    int sub;                    /* >= 0: a nested machine's output instead of clips */
    int blendspace;             /* weighted sum of the clips, then normalized; else one clip as sampled */
    int same_s;                 /* blend space: g_state.same_scale */
    const stance_clip *clip[STANCE_MAX_BLEND_ENTRIES];
    float time[STANCE_MAX_BLEND_ENTRIES];
    float weight[STANCE_MAX_BLEND_ENTRIES];
    float vscale[STANCE_MAX_BLEND_ENTRIES]; /* velocity per second of instance time, per clip */
    stance_cursor *cursor[STANCE_MAX_BLEND_ENTRIES];
} g_plan_src;

typedef struct g_plan {
    int active;                 /* evaluated this update */
    /* what the advance pass computed for the machine's current blend space
     * state (its weights and phase rate times the state's rate), reused by
     * the plan: valid while stamp == the workspace's stamp (this update,
     * no trigger consumed since) and state matches */
    unsigned stamp;
    int cstate;
    float cprate;
    float cw[STANCE_MAX_BLEND_ENTRIES];
    int blend;                  /* a switch is running: mode and eased weight below */
    stance_switch_mode mode;
    float w;
    g_plan_src cur, old;        /* old: crossfade only */
} g_plan;

/* workspace poses: per machine, then shared */
enum { PW_OUT, PW_OLD, PW_S1, PW_TV, PW_SV, PW_PER_MACHINE };
enum { PW_LAYER_MODEL, PW_LAYER_TMP, PW_REF, PW_DELTA, PW_SNAP, PW_SHARED };

struct stance_workspace {
    stance_allocator allocator;
    size_t bytes;
    int joint_cap, machine_cap;
    int bound_joints;           /* the joint count its poses are bound for (0: none yet) */
    g_plan *plans;              /* machine_cap */
    stance_pose *poses;         /* machine_cap * PW_PER_MACHINE + PW_SHARED */
    int pose_count;
    float *pose_mem;
    stance_pose *views;         /* machine_cap * 3: views of an instance's machine poses */
    /* tests (st_workspace_set_frame): the copy of the frame's passes this
     * workspace runs, NULL = the fast paths (advance.c, evaluate.c as they are) */
    void (*frame)(stance_instance *inst, stance_workspace *ws, float dt, unsigned flags);
    unsigned stamp;             /* moves on at each update and when a trigger is consumed (g_plan.stamp) */
    float damp_h, damp_dt, damp_a; /* the last damping factor exp2f(-dt / h) computed (h 0: none yet) */
};

/* graph_deltas.c: the delta clips of additive first-frame layers */
stance_status gr_build_deltas(stance_graph *g, stance_error *err);
/* graph_bounds.c: the chain rule of stance/base.h for the graph (after the
 * deltas), and the cap that holds machine m's output within it on the
 * frames of a velocity-mode switch (inertialization, dead blending) */
stance_status gr_build_bounds(stance_graph *g, stance_error *err);
void gr_cap_transient(const stance_graph *g, int m, stance_pose *out);

/* instance.c */
/* 1 for an instance between creation and destroy (see IN_LIVE). */
static inline int in_live(const stance_instance *inst) { return inst && inst->magic == IN_LIVE; }
void in_emit(stance_instance *inst, stance_event_type type, int layer, int machine, int state, int other,
             const char *name);
static inline int in_layer_of_machine(const stance_graph *g, int m) {
    return m >= 0 && m < g->machine_count ? g->machines[m].root_layer : -1;
}
/* A machine's persistent pose (PM_*), as a view bound in the workspace. */
stance_pose *in_mpose(stance_instance *inst, stance_workspace *ws, int m, int which);
stance_pose *in_hist(stance_instance *inst, stance_workspace *ws, int m, int age);
static inline stance_pose *in_wpose(stance_workspace *ws, int m, int which) { return &ws->poses[m * PW_PER_MACHINE + which]; }
static inline stance_pose *in_wshared(stance_workspace *ws, int which) {
    return &ws->poses[ws->machine_cap * PW_PER_MACHINE + which];
}
static inline stance_cursor *in_cursors(stance_instance *inst, int m, int slot_is_old) {
    g_machine_rt *rt = &inst->machines[m];
    int slot = slot_is_old ? !rt->cur_slot : rt->cur_slot;
    return rt->cursors + (size_t)slot * (size_t)rt->cursor_cap;
}
void in_reset_machine(stance_instance *inst, int m);
static inline stance_pose *in_local(stance_instance *inst) { return &inst->poses[PI_LOCAL]; }
static inline stance_pose *in_model(stance_instance *inst) { return &inst->poses[PI_MODEL]; }
/* advance.c */
void adv_frame(stance_instance *inst, stance_workspace *ws, float dt, unsigned flags);
void adv_apply_requests(stance_instance *inst, stance_workspace *ws);
void adv_plan_tree(stance_instance *inst, stance_workspace *ws, int m, int active);
/* the plans of every layer's tree: the base layer's always, the others' when enabled and weighted */
void adv_plan_layers(stance_instance *inst, stance_workspace *ws);
void adv_blend_weights(const stance_instance *inst, const g_state *s, float *w);
float adv_normalized(const stance_instance *inst, const g_play *p);
/* evaluate.c */
void ev_machine_tree(stance_instance *inst, stance_workspace *ws, int m, float dt, int push_history);
void ev_frame(stance_instance *inst, stance_workspace *ws, float dt);

/* The frame's passes in order: stance_instance_play requests, advance,
 * evaluate (each compilation of them, core/frame_copy.h, has its own). */
static inline void in_frame_passes(stance_instance *inst, stance_workspace *ws, float dt, unsigned flags) {
    if (inst->requests) {
        adv_apply_requests(inst, ws);
        inst->requests = 0;
    }
    adv_frame(inst, ws, dt, flags);
    ev_frame(inst, ws, dt);
}

/* frame_reference.c, the one test hook of the switch of docs/fast-paths.md:
 * which copy of the frame's passes ws runs from its next update on
 * (ST_FRAME_FAST, the default: the fast paths, the fused passes and
 * local-to-model in the CPU's best encoding; ST_FRAME_SSE2: the same with
 * those in the baseline encoding; ST_FRAME_REFERENCE: every fast path off).
 * Returns the copy's name ("fast", "sse2", "reference"), NULL for an
 * unknown one. */
typedef enum { ST_FRAME_FAST, ST_FRAME_SSE2, ST_FRAME_REFERENCE } st_frame_copy;
const char *st_workspace_set_frame(stance_workspace *ws, st_frame_copy copy);

/* graph_ik.c: the IK stage */
stance_status gr_build_ik(stance_graph *g, const stance_graph_desc *d, stance_error *err);
void gr_destroy_ik(stance_graph *g);
void in_root_advance(stance_instance *inst);
stance_status ik_frame(stance_instance *inst, stance_workspace *ws, float dt);

/* transition.c: the switch modes' maths on poses */
void tr_extrapolate(stance_pose *out, const stance_pose *h1, const stance_pose *h2, float hist_dt, float dt);
void tr_velocity(stance_pose *vel, const stance_pose *h1, const stance_pose *h2, float hist_dt);
/* the lesson's per-component quintic (inertialize-simple): velocities sampled from the clips */
void tr_inertialize_init(float *rec, const stance_pose *src, const stance_pose *src_vel,
                         const stance_pose *dst, const stance_pose *dst_vel, float blend_time);
void tr_inertialize_apply(stance_pose *out, const float *rec, float t);
/* Bollo's vector form: the offset at the switch (velocity: the source's),
 * then its velocity from the first step (src0: the source at the switch,
 * dst1: the target one step dt1 later), then the offset at any time */
void tr_inertia_begin(float *rec, const stance_pose *src, const stance_pose *src_vel, const stance_pose *dst, float blend_time);
void tr_inertia_fit(float *rec, const stance_pose *src0, const stance_pose *dst1, float dt1);
void tr_inertia_apply(stance_pose *out, const float *rec, float t);
/* one channel of it: offset x0[3] with velocity v0[3], blend T, at time t;
 * a0: the along part's starting acceleration (tr_bollo_a0; anything below
 * Bollo's own, 0 included, means Bollo's) */
void tr_bollo_offset(const float *x0, const float *v0, float a0, float T, float t, float *out);
void tr_deadblend_source(stance_pose *out, const stance_pose *h1, const float *vel, float t, float halflife);
void tr_lerp(stance_pose *out, const stance_pose *a, const stance_pose *b, float w);
float tr_ease(stance_easing e, float p);
/* The quintic offset of one channel at time t (exposed for the tests). */
float tr_quintic(float x0, float v0, float a0, float T, float t);
void tr_bollo_params(float x0, float v0, float blend, float *a0, float *T);
/* the starting acceleration stance uses for x0 >= 0 heading back at v0 <= 0:
 * Bollo's t1, and of the a0 at or above Bollo's the one whose quintic has the
 * smallest peak |acceleration| (finite for any finite input) */
float tr_bollo_a0(float x0, float v0, float blend);

#endif
