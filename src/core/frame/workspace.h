/* src/core/frame/workspace.h - the workspace: scratch for one update at a time
 * (instance.c makes and binds it), and in it the plan the advance stage
 * writes for the later stages: per machine, what to sample at which times
 * and weights, how its switch blends and what the switch computes this
 * frame (g_plan), and the switches' work in the order advance decided it
 * (g_job: snapshots of a machine's output as it stood, dead blending's
 * velocity). The evaluate stage reads only the plan and the jobs (and the
 * instance's poses and records they name); the IK stage reads the plan's
 * clips and times. Nothing in it outlives an update. Not public. */
#ifndef STANCE_WORKSPACE_H
#define STANCE_WORKSPACE_H

#include "core/frame/instance_internal.h"

typedef struct g_plan g_plan;

/* One source a machine samples: its clips (for additive layers, their
 * precomputed deltas), at which times, with which weights and cursors; or a
 * nested machine's output. */
typedef struct g_plan_src {
    int count;                  /* clips to sample */
    int sub;                    /* >= 0: a nested machine's output instead of clips */
    const g_plan *sub_plan;     /* the nested machine's plan (inertialize-simple samples its source's velocity) */
    int blendspace;             /* weighted sum of the clips, then normalized; else one clip as sampled */
    int same_s;                 /* blend space: g_state.same_scale */
    int state;                  /* a clip state: the state */
    float pos;                  /* a blend space or nested machine's state: the play's position (an additive
                                   layer's reference clip follows it; a clip state's is time[0]) */
    const stance_clip *clip[STANCE_MAX_BLEND_ENTRIES];
    float time[STANCE_MAX_BLEND_ENTRIES];
    float weight[STANCE_MAX_BLEND_ENTRIES];
    float vscale[STANCE_MAX_BLEND_ENTRIES]; /* velocity per second of instance time, per clip */
    stance_cursor *cursor[STANCE_MAX_BLEND_ENTRIES];
} g_plan_src;

/* What a switch computes at this evaluation (g_plan.init): nothing, the
 * inertialize-simple record, Bollo's offsets, or their velocity fit. */
enum { PI_NONE, PI_SIMPLE, PI_BEGIN, PI_FIT };

struct g_plan {
    int machine;                /* (a job's plan) */
    int active;                 /* evaluated this update */
    int blend;                  /* a switch is running: the fields below to `elapsed` hold */
    stance_switch_mode mode;
    float w;                    /* its eased weight */
    int init;                   /* PI_* */
    int hist;                   /* the machine's history frames before this evaluation (0..2) */
    int h1, h2;                 /* the persistent poses (PM_*) holding them, newest first */
    float hist_dt, switch_dt, duration, elapsed;
    int push;                   /* the persistent pose the output goes to as the newest history frame, or
                                   PUSH_NONE, or PUSH_NO_HISTORY (the machine keeps none: the fused passes may run) */
    g_plan_src cur, old;        /* old: crossfade; the velocity modes' old clips (the IK stage's contacts) */
};

enum { PUSH_NO_HISTORY = -2, PUSH_NONE = -1 };

/* A switch's work (the advance stage's begin_switch) for the evaluate
 * stage, which runs the jobs in order before the frame's machines. */
enum { JOB_NONE, JOB_COPY, JOB_EVAL };
typedef struct g_job {
    int machine;
    int snap;                   /* JOB_COPY: its SNAP pose <- its persistent pose `from`; JOB_EVAL: <- the output
                                   of job_plans[plan_first .. plan_first + plan_count), its nested machines after it */
    int from;
    int plan_first, plan_count;
    int deadblend;              /* then its record's velocities zeroed, or with vel those of history (h1, h2) */
    int vel, h1, h2;
    float hist_dt;
} g_job;

/* The advance stage's blend weights of a machine's current blend space
 * state, computed to step it and reused by its plans in the same update
 * (state -1: none). They stay right within the update: a blend space reads
 * only numeric parameters, which nothing changes after the damping step.
 * No plan reads stale ones: a machine evaluated in an update either kept
 * its state since its step in it (which wrote them if it plays a blend
 * space: a layer's machine steps while its layer is enabled, a nested one
 * when its parent played the state nesting it at its step, as the parent
 * still does unless it switched), or got its state from a switch in it (a
 * switch sets state -1 for the machine and for those it starts over).
 * Play requests come before any step: they set every state -1 first. */
typedef struct g_weights {
    int state;
    float prate;                /* its phase rate times the state's rate */
    float w[STANCE_MAX_BLEND_ENTRIES];
} g_weights;

/* An update starts at most 2 switches per machine (a play request, then a
 * transition), so at most 2 jobs per machine; a JOB_EVAL plans the machine
 * and the nested machines it plays, a chain of h + 1 machines (h: the
 * height of its tree). Split the machines' trees into their longest chains,
 * each of L <= STANCE_MAX_NEST + 1 = 5 machines: a machine at position p
 * from a chain's bottom has h + 1 = p, so the sum of h + 1 over all
 * machines is the sum of L (L + 1) / 2 <= 3 L over the chains, at most 3
 * per machine; twice that over an update's two rounds of switches. Both
 * bounds follow from the machine count alone, so a workspace still serves
 * every graph with no more joints and machines. */
#define WS_JOBS_PER_MACHINE 2
#define WS_JOB_PLANS_PER_MACHINE 6

/* workspace poses: per machine, then shared */
enum { PW_OUT, PW_OLD, PW_S1, PW_TV, PW_SV, PW_PER_MACHINE };
enum { PW_LAYER_MODEL, PW_LAYER_TMP, PW_REF, PW_DELTA, PW_SNAP, PW_SHARED };

struct stance_workspace {
    stance_allocator allocator;
    size_t bytes;
    int joint_cap, machine_cap;
    int bound_joints;           /* the joint count its poses are bound for (0: none yet) */
    g_plan *plans;              /* machine_cap: this update's plan of each machine */
    g_weights *weights;         /* machine_cap: the advance stage's (above) */
    g_job *jobs;                /* machine_cap * WS_JOBS_PER_MACHINE */
    int job_count;
    g_plan *job_plans;          /* machine_cap * WS_JOB_PLANS_PER_MACHINE */
    int job_plans_used;
    stance_pose *poses;         /* machine_cap * PW_PER_MACHINE + PW_SHARED */
    int pose_count;
    float *pose_mem;
    stance_pose *views;         /* machine_cap * 3: views of an instance's machine poses */
    /* tests (st_workspace_set_frame): the copy of the frame's stages this
     * workspace runs, NULL = the fast paths (the stages as they are) */
    stance_status (*frame)(stance_instance *inst, stance_workspace *ws, float dt, unsigned flags);
    int prefetch;               /* whether stance_instances_update asks for the next instance's hot part while one
                                   updates: WS_PREFETCH_* (st_workspace_set_prefetch; WS_PREFETCH_LARGE by default) */
    float damp_h, damp_dt, damp_a; /* the last damping factor sm_exp2f(-dt / h) computed (h 0: none yet) */
};

static inline stance_pose *ws_pose(stance_workspace *ws, int m, int which) { return &ws->poses[m * PW_PER_MACHINE + which]; }
static inline stance_pose *ws_shared(stance_workspace *ws, int which) {
    return &ws->poses[ws->machine_cap * PW_PER_MACHINE + which];
}
/* instance.c: machine m's persistent pose `which` (PM_*) of inst, as a view
 * bound in the workspace */
stance_pose *ws_mpose(stance_workspace *ws, stance_instance *inst, int m, int which);
/* frame_reference.c, the one test hook of the switch of docs/fast-paths.md:
 * which copy of the frame's stages ws runs from its next update on
 * (ST_FRAME_FAST, the default: the fast paths, the fused passes and
 * local-to-model in the CPU's best encoding; ST_FRAME_SSE2: the same with
 * those in the baseline encoding; ST_FRAME_REFERENCE: every fast path off).
 * Returns the copy's name ("fast", "sse2", "reference"), NULL for an
 * unknown one. */
typedef enum { ST_FRAME_FAST, ST_FRAME_SSE2, ST_FRAME_REFERENCE } st_frame_copy;
const char *st_workspace_set_frame(stance_workspace *ws, st_frame_copy copy);
/* The hot parts a batch needs (count x an instance's hot_bytes) before it
 * asks for each next instance ahead (frame.c): 2 MiB, past a core's L2 on
 * the CPUs measured (512 KiB - 1 MiB; docs/performance.md). */
#define WS_PREFETCH_BATCH_BYTES ((size_t)2 << 20)
/* instance.c: whether stance_instances_update with ws asks for each next
 * instance's hot part while one updates: never, for batches whose hot
 * parts come to WS_PREFETCH_BATCH_BYTES or more (the default), or always
 * (a benchmark's and the tests' switch, to measure what the hints pay and
 * check they change nothing). Another value is taken as the default. */
enum { WS_PREFETCH_NEVER, WS_PREFETCH_LARGE, WS_PREFETCH_ALWAYS };
void st_workspace_set_prefetch(stance_workspace *ws, int mode);
/* instance.c: binds the workspace's poses for graph g's joint count (when it changes) */
void ws_bind(stance_workspace *ws, const stance_graph *g);

#endif
