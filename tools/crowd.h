/* tools/crowd.h - the crowd workload (bench/WORKLOAD.md, "the real path"):
 * N instances of a graph, each with its own inputs (speed pattern between
 * 0 and the run speed, staggered jumps, breathe 0.5, lean 0.3, wave 1.0 on
 * every third), updated in frames at 60 Hz, split over T threads (each with
 * its own workspace). Used by `stance bench --graph` and callgrind. */
#ifndef STANCE_TOOLS_CROWD_H
#define STANCE_TOOLS_CROWD_H
#include "stance/stance.h"

typedef struct crowd crowd;

/* chunk 0: each thread updates its equal slice (WORKLOAD.md); chunk > 0:
 * the threads take that many characters at a time until none are left. */
stance_status crowd_create(const stance_graph *graph, int characters, int threads, int chunk, crowd **out,
                           stance_error *err);
void crowd_destroy(crowd *c);
/* One frame of all characters (inputs, then the update), on every thread.
 * The warm-up and the timed frames run through different functions so a
 * profiler can count the steady state alone. Return the frame's seconds. */
double crowd_frame_warm(crowd *c);
double crowd_frame_timed(crowd *c);
/* With LOD (crowd_lod_enable), the last frame's CPU time of its slowest
 * thread (each thread's CLOCK_THREAD_CPUTIME_ID over its slice, barriers
 * left out): on a loaded machine, the frame's work without the waits for
 * other jobs. 0 without LOD. */
double crowd_frame_cpu_ms(const crowd *c);
size_t crowd_instance_bytes(const crowd *c);
stance_instance *crowd_instance(const crowd *c, int i); /* character i's instance */
/* The instance's hot part (its block's first bytes, what every update
 * touches; the runtime's layout, core/frame/instance.c). */
size_t crowd_instance_hot_bytes(const crowd *c);
/* Whether the batch updates ask for the next instance's hot part ahead:
 * 0 never, 1 for batches past the runtime's size (the default), 2 always
 * (st_workspace_set_prefetch). */
void crowd_prefetch(crowd *c, int mode);
size_t crowd_workspace_bytes(const crowd *c);
const void *crowd_workspace(const crowd *c); /* thread 0's workspace block (scripts/hot_lines.c) */
/* Mean clips sampled per update over the frames run so far. */
double crowd_clips_per_update(const crowd *c);
/* ---- animation LOD (stance/lod.h; `stance bench --budget-ms`) ----
 * Enabled before the first frame: each character then updates on the
 * frames its item's rate and phase say (stance_lod_due; all rate 1 at
 * first) and otherwise advances (stance_instance_advance) and shows its
 * pose extrapolated from its last two (stance_lod_pose_blend). twin_every >
 * 0: every twin_every-th character gets a twin updated every frame with the
 * same inputs (untimed, after each frame), to measure the skipped frames'
 * error. */
#define CROWD_LOD_PLAN 1
#define CROWD_LOD_SKIP 2 /* every character skips (the cost of a skipped frame) */
stance_status crowd_lod_enable(crowd *c, int twin_every, stance_error *err);
/* summed 1: a skipped frame does nothing (no advance) and an update steps
 * by the frames since the last one (the summed dt). */
void crowd_lod_mode(crowd *c, int mode, int summed);
/* After crowd_lod_enable, before the first frame: the updates of characters
 * at rate > 1 evaluate one interval ahead (their controller still advances
 * exactly; a copy of it is updated by the interval) and the skipped frames
 * interpolate between the pose evaluated for the last update's frame and
 * the one for the next (docs/lod.md). stepped 1: the copy advances frame by
 * frame over the interval and updates on its last frame (one update by the
 * whole interval otherwise). */
stance_status crowd_lod_ahead(crowd *c, int stepped, stance_error *err);
/* The pop threshold of the calm measure: a twin's joint whose position's
 * second difference over three frames exceeds it (cm; default 1). */
void crowd_lod_pop_cm(crowd *c, double cm);
/* After each frame (untimed): the twins update, and are compared while measuring. */
void crowd_lod_twins(crowd *c);
stance_lod_item *crowd_lod_items(crowd *c);
/* shown[i] 0: character i's pose is not blended on the frames it skips (off
 * screen: nothing draws it); NULL (the default): every one is. Kept, not copied. */
void crowd_lod_shown(crowd *c, const unsigned char *shown);
/* px_per_m[i]: the pixels one metre spans at character i's distance (0:
 * off screen); the skipped frames' error of the twins on screen is then
 * also measured in pixels (crowd_lod_error.px_*). NULL: not measured. Kept,
 * not copied. */
void crowd_lod_pixels(crowd *c, const float *px_per_m);
/* on 1: frames with exact steps and extrapolated poses (no error guard) run
 * in batches (stance_instances_update, stance_instances_advance) of 64
 * characters, the same calls per character in the same order (bit for
 * bit); 0 (the default): one character at a time. */
void crowd_lod_batch(crowd *c, int on);
/* Starts (on: 1) or stops measuring the error; the sums start at 0. */
void crowd_lod_measure(crowd *c, int on);
typedef struct crowd_lod_error {
    double worst, mean;           /* m, shown pose of skipped frames (extrapolated) against the twin */
    double late_worst, late_mean; /* m, the same interpolated one interval late */
    double updated_worst;         /* m, updated frames against the twin (0: the advance is exact; ahead: the pose
                                     evaluated for the frame one interval before) */
    double updated_mean;
    double calm_worst, calm_mean; /* m, skipped frames as shown, leaving out those within two intervals after a
                                     pop of the twin's own (crowd_lod_pop_cm) */
    long calm_samples, pop_frames; /* joints x skipped frames in calm_*; twin frames that popped */
    double pop_max;               /* m, the largest second difference of a twin's joint over three frames */
    long joint_samples;           /* joints x skipped frames measured */
    double forced_worst, forced_mean; /* m, error-aware: frames updated off the plan against the twin (0: exact) */
    long forced_samples;
    double px_worst, px_mean;     /* pixels, skipped frames as shown, twins on screen (crowd_lod_pixels) */
    long px_samples;              /* joints x skipped frames in px_* */
    int twins;
} crowd_lod_error;
void crowd_lod_errors(const crowd *c, crowd_lod_error *out);
long crowd_lod_updates(const crowd *c); /* updates run by LOD frames so far */
/* Error-aware rates (after crowd_lod_ahead, before the first frame): on
 * each update, the error of interpolating the next interval is predicted
 * from the last three evaluated poses (the largest second difference of a
 * joint's position / 8); over cm, the character updates every frame of
 * that interval and shows its exact pose on the next update frame too. A
 * skipped frame whose advance starts a transition or enters a state (not
 * in the poses evaluated ahead) does the same for the rest of its
 * interval. The plan is not changed: these updates come on top of it
 * (crowd_lod_forced counts them). */
stance_status crowd_lod_guard(crowd *c, double cm, stance_error *err);
long crowd_lod_forced(const crowd *c); /* updates run off the plan so far (crowd_lod_guard) */
/* Sum over characters and joints of model-space x + y + z. */
double crowd_check(const crowd *c);
#endif
