/* src/core/graph/graph_internal.h - the compiled graph: what the builder writes
 * (src/build, and graph_program.c for the frame's program) and the binder
 * reads from a file (graph_bind.c, graph_layout.c's table of its arrays),
 * and every stage of the frame reads, shared and immutable once built. The
 * instance is in core/frame/instance_internal.h, the workspace and the plan in
 * core/frame/workspace.h, what builder and binder derive alike in
 * core/graph/graph_derive.h. Not public. */
#ifndef STANCE_GRAPH_INTERNAL_H
#define STANCE_GRAPH_INTERNAL_H

#include <string.h>

#include "stance/instance.h"

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
    int meta;                   /* derived: its clip's notes in graph->metas, -1 none (graph_notes.c) */
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
    int delta_flags;            /* ST_DELTA_* (core/clip/fused.h): channels of the delta that change nothing */
    unsigned long long delta_still; /* st_delta_still_blocks of delta */
    int speed_warp;
    float fade_time;
    int same_scale;             /* blend space: every clip it samples keeps one constant scale block, all
                                   bit for bit the same and without -0 (their blend is that block) */
    int meta;                   /* derived: a clip state's clip's notes (events, windows) in graph->metas,
                                   -1 none (graph_notes.c) */
} g_state;

/* ---- clip notes (graph_notes.c): a played clip's events, its own and the
 * graph file's, and its windows, in one allocation apart from the block.
 * Every clip a state plays that has an event or a window has a g_meta. */
enum { G_NOTE_EVENT = 0, G_NOTE_BEGIN, G_NOTE_END };
/* An event note of index G_NOTE_OTHER * (k + 1) + i: event i (its number in
 * its clip's list) of entry k of the blend space an entry's merged notes
 * serve (a blend space whose events are "all") */
#define G_NOTE_OTHER 1024
typedef struct g_note {         /* a point the playback crosses: an event or a window's bound */
    float time;
    float min_weight;
    int kind;                   /* G_NOTE_* */
    int index;                  /* event: its number in the clip's list (stance_graph_clip_events); bound: its window */
} g_note;
typedef struct g_authored {     /* an event the graph file authored */
    char name[STANCE_EVENT_NAME];
    float time, min_weight;
    stance_event_payload payload;
} g_authored;
typedef struct g_window {
    char name[STANCE_EVENT_NAME];
    float from, to, min_weight;
} g_window;
typedef struct g_meta {
    const stance_clip *clip;
    int note_first, note_count;     /* graph->notes, sorted by time (events in list order, then ends, then begins) */
    int auth_first, auth_count;     /* graph->authored (sorted by time): list numbers event_count.. */
    int win_first, win_count;       /* graph->windows */
    unsigned whole;                 /* windows covering the whole clip: in a loop they never close on a wrap */
    int merged;                     /* 1: an entry's notes in a blend space whose events are "all" (its own clip's
                                       notes and the other entries' events); 0: a clip's own */
} g_meta;

typedef struct g_sync g_sync; /* core/graph/graph_sync.h */

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
    int step;                   /* its step in graph->steps (the frame's program), -1 when no layer runs it */
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
    int step_first, step_last;  /* its machines' steps in graph->steps, children first: its machine is step_last */
} g_layer;

typedef struct g_ik {
    char name[G_NAME];
    stance_ik_kind kind;
    stance_footlock_desc fd;    /* joints resolved; ground from the instance (two_bone: legs[0]) */
    int chain_count, chain[STANCE_AIM_MAX_CHAIN];
    float forward[3], max_angles[STANCE_AIM_MAX_CHAIN];
    int l2m_from, l2m_to;       /* two_bone and aim: the joints whose model transforms its solve changes: the
                                   subtree of joint from within from..to, -1: all (graph_program.c) */
} g_ik;

/* One step of the frame's program (graph_program.c): a machine some layer
 * runs. The steps are layer by layer in layer order, each layer's machines
 * children first, so a machine's subtree is the steps first..its own. */
typedef struct g_step {
    int machine;
    int parent;                 /* the machine that nests it, -1 for its layer's machine */
    int parent_state;           /* the state of the parent that plays it, -1 */
    int first;                  /* the first step of its subtree */
    int layer;                  /* the layer that runs it */
    int has_trans;              /* g_machine.has_trans, at hand */
} g_step;

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
    int step_count;             /* the frame's program: the machines the layers run (graph_program.c derives it) */
    g_step *steps;              /* step_count */
    int meta_count, note_count, authored_count, window_count;
    g_meta *metas;              /* clip notes (graph_notes.c): one allocation of notes_bytes, NULL when none */
    g_note *notes;
    g_authored *authored;
    g_window *windows;
    size_t notes_bytes;
    struct g_sync *sync;        /* sync groups and clip markers (graph_sync.h): own allocation, NULL when none */
    struct g_curves *curves;    /* curves and drives (graph_curves.h): own allocation, NULL when none */
    stance_allocator allocator;
    size_t bytes;
    unsigned char *blend_all;   /* per state: 1 when a blend space's events are "all" (graph_notes.c); NULL when none */
};

/* The aim desc of aim entry gi (its chain, limits and forward) with target. */
static inline void g_ik_aim_desc(const g_ik *gi, const float *target, stance_aim_desc *ad) {
    memset(ad, 0, sizeof *ad);
    ad->chain_count = gi->chain_count, ad->chain = gi->chain;
    ad->max_angles = gi->max_angles[0] > 0.0f ? gi->max_angles : NULL;
    memcpy(ad->forward, gi->forward, sizeof ad->forward);
    if (target) memcpy(ad->target, target, sizeof ad->target);
}

/* The index of a clip the states play in graph->ik_clips (its contacts'
 * column), -1 when it is not one of them. */
static inline int g_ik_clip_index(const stance_graph *g, const stance_clip *clip) {
    for (int c = 0; c < g->ik_clip_count; c++)
        if (g->ik_clips[c] == clip) return c;
    return -1;
}

/* graph_notes.c: a clip's authored notes (from a description or a file) */
typedef struct gr_notes_src {
    const stance_clip *clip;
    int event_count, window_count;
    const g_authored *events;   /* any order */
    const g_window *windows;
} gr_notes_src;
/* Builds g's notes from src (n of them, each clip once; notes of clips no
 * state plays are left out) and every played clip's own events, and sets
 * each state's and entry's meta. Values are checked (STANCE_ERR_VALUE). */
stance_status gr_notes_build(stance_graph *g, const gr_notes_src *src, int n, stance_error *err);
/* Before gr_notes_build: the states whose blend events are "all" (all[i]
 * for state i, NULL: none), checked (blend spaces only) and kept in
 * g->blend_all. */
stance_status gr_notes_blend_all(stance_graph *g, const unsigned char *all, stance_error *err);
void gr_notes_destroy(stance_graph *g);

/* graph_bounds.c: the cap that holds machine m's output within the chain
 * rule's bounds (the graph's scale caps) on the frames of a velocity-mode
 * switch (inertialization, dead blending) */
void gr_cap_transient(const stance_graph *g, int m, stance_pose *out);

#endif
