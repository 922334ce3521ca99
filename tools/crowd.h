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
size_t crowd_instance_bytes(const crowd *c);
size_t crowd_workspace_bytes(const crowd *c);
/* Mean clips sampled per update over the frames run so far. */
double crowd_clips_per_update(const crowd *c);
/* Sum over characters and joints of model-space x + y + z. */
double crowd_check(const crowd *c);
#endif
