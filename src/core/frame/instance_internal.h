/* src/core/frame/instance_internal.h - the instance: one character's persistent
 * state in one block (instance.c lays it out and binds it): parameters,
 * each machine's play state and switch, layer weights, its poses, the
 * machines' persistent poses (switch snapshots, history), inertialization
 * records, cursors, IK state and the event queue. The advance stage
 * decides what changes in it; the evaluate and IK stages write its poses
 * and records. Not public. */
#ifndef STANCE_INSTANCE_INTERNAL_H
#define STANCE_INSTANCE_INTERNAL_H

#include "core/base/platform.h"
#include "core/graph/graph_internal.h"

/* A play position in a state. Cursors live apart (per machine, two slots). */
typedef struct g_play {
    int state;
    int loops;                  /* completed cycles */
    int finished;               /* once: reached the end */
    float pos;                  /* clip: time in the clip; blend space: phase 0..1 */
    double time;                /* seconds since the state started */
    float root[7];              /* root motion of the last advance: displacement (x, y, z) in the root's frame, the
                                   turn's angle (radians; 0: none) and, read only when the angle is not 0, its unit
                                   axis (a yaw: (0, 1, 0)); the hot paths zero root[0..3] only */
} g_play;

/* per IK entry: target x, y, z, weight; pole x, y, z, set */
#define IK_TARGET_FLOATS 8

/* Persistent poses of a machine, from its first pose index: SNAP always;
 * H1, H2 when it keeps history. */
enum { PM_SNAP, PM_H1, PM_H2 };

typedef struct g_machine_rt {
    /* hot: what an update of a machine no switch runs in reads or writes */
    g_play cur;
    int trans;                  /* a switch is running (>= 0) or not (-1) */
    stance_switch_mode mode;
    int cur_slot;               /* which cursor slot the current play uses */
    int cursor_cap;             /* graph->machines[m].clip_cap: the size of a slot of cursors, at hand */
    stance_cursor *cursors;     /* 2 slots of graph->machines[m].clip_cap */
    int has_history;
    int hist;                   /* valid history frames (0..2; 0 without history) */
    int hist_flip;              /* which of H1/H2 holds the newer frame */
    int pose_first;             /* its first persistent pose (PM_SNAP) */
    int pending_init;           /* inertialize: 1 offsets to compute at its next evaluation; 2 (Bollo) its velocity
                                   at the next step (the advance stage plans them: g_plan.init) */
    int locked;                 /* uninterruptible transition running */
    unsigned win_open;          /* the current play's open windows: bits of graph->metas[win_meta]'s (notes.c) */
    int win_meta;               /* -1 none */
    /* read while a switch runs, or when one starts or is asked for */
    g_play old;
    int from_state;
    float elapsed, duration;
    stance_easing easing;
    float switch_dt;            /* dt of the frame the transition started */
    float hist_dt;
    int req_state;              /* stance_instance_play request for the next update, -1 none */
    stance_switch_mode req_mode;
    stance_easing req_easing;
    float req_blend;
    float *rec;                 /* joint_count * INERT_FLOATS (core/frame/transition.h) when it keeps history */
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
    /* hot: read or written by every update (docs/performance.md: the block's hot part) */
    const stance_graph *graph;
    float *params;              /* what the graph sees */
    float *param_target;        /* what gameplay set (damped params move towards it) */
    unsigned magic;             /* IN_LIVE, IN_DEAD once destroyed (past the first 16 bytes, which a freed block's
                                   allocator may write) */
    int requests;               /* a machine may hold a stance_instance_play request (req_state) */
    g_machine_rt *machines;
    float *layer_weight, *layer_target, *layer_rate;
    unsigned char *layer_off;   /* disabled layers */
    stance_pose *poses;         /* PI_LOCAL, PI_MODEL */
    int event_count, event_dropped;
    int events_sealed;          /* the queue holds a finished update's events */
    int clips_sampled;
    double time;
    float root_delta[7];        /* this update's root motion: translation in the root's frame, turn (g_play.root) */
    int root_owned;             /* the caller set the root: no root motion accumulated */
    stance_transform world_root;
    size_t hot_bytes;           /* the block's hot part: this struct, the machines' play state, parameters, layer
                                   weights, cursors, IK state, the local and model poses (stance_instances_update
                                   asks for the next instance's while one updates) */
    stance_footlock_state *ik_state; /* graph->ik_count */
    float *ik_target;           /* graph->ik_count x IK_TARGET_FLOATS: two_bone and aim targets (x, y, z,
                                   weight), two_bone poles (x, y, z, 1 = set) */
    /* cold: switches, events, callbacks, the block itself */
    float *machine_pose_mem;    /* the machines' persistent poses (views: ws_mpose), in the cold part */
    stance_event *events;       /* STANCE_EVENT_QUEUE, in the block's cold tail (after the poses) */
    int override_mode, override_easing;
    float override_blend;
    int history_all;
    stance_ground_fn ground;
    void *ground_user;
    stance_allocator allocator;
    size_t bytes;
};

/* 1 for an instance between creation and destroy (see IN_LIVE). */
static inline int in_live(const stance_instance *inst) { return inst && inst->magic == IN_LIVE; }
static inline int in_layer_of_machine(const stance_graph *g, int m) {
    return m >= 0 && m < g->machine_count ? g->machines[m].root_layer : -1;
}
static inline stance_cursor *in_cursors(stance_instance *inst, int m, int slot_is_old) {
    g_machine_rt *rt = &inst->machines[m];
    int slot = slot_is_old ? !rt->cur_slot : rt->cur_slot;
    return rt->cursors + (size_t)slot * (size_t)rt->cursor_cap;
}
/* Asks for the first `bytes` of the block at p (the next instance of a
 * batch, its hot part) to be in the cache soon: one hint a line. p may be
 * any instance pointer, even a destroyed one (a hint never faults); not NULL. */
static inline void in_prefetch(const stance_instance *p, size_t bytes) {
    const char *b = (const char *)p;
    for (size_t o = 0; o < bytes; o += 64) ST_PREFETCH(b + o);
}
static inline stance_pose *in_local(stance_instance *inst) { return &inst->poses[PI_LOCAL]; }
static inline stance_pose *in_model(stance_instance *inst) { return &inst->poses[PI_MODEL]; }

#endif
