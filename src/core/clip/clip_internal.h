/* src/core/clip/clip_internal.h - the frame's calls of clip.c's public
 * functions without the message buffer (one body each, compiled with err a
 * constant NULL): the per-update path passes checked arguments and wants no
 * message. The statuses are the public function's. Not public. */
#ifndef STANCE_CLIP_INTERNAL_H
#define STANCE_CLIP_INTERNAL_H

#include "core/base/internal.h"
#include "stance/clip.h"

struct stance_pose;
struct stance_clip;
struct stance_cursor;
struct stance_event_hit;
stance_status st_clip_sample(const struct stance_clip *clip, float time, struct stance_cursor *cursor,
                             struct stance_pose *out);
stance_status st_clip_sample_velocity(const struct stance_clip *clip, float time, struct stance_cursor *cursor,
                                      struct stance_pose *out, struct stance_pose *velocity);
stance_status st_clip_advance(const struct stance_clip *clip, float time, float dt, int loop, float *new_time,
                              struct stance_event_hit *hits, int hit_capacity, int *hit_count, int *wraps);
/* out[0..2] the translation; out[3] the turn's angle (radians) and
 * out[4..6] its unit axis, written for a path that turns only (root_turn;
 * a yaw path: its yaw about (0, 1, 0)) */
stance_status st_clip_root_motion(const struct stance_clip *clip, float time, float dt, int loop, float out[7]);


/* clip.c, for tests: stance_clip_sample of a dense nlerp clip (no cursor)
 * with its pass in one encoding (0 SSE2 or the scalar form, 1 VEX); 0 when
 * that encoding is not in this build or CPU, or the clip is not dense
 * nlerp (compressed, slerp, retargeted), else 1 */
int st_clip_sample_as(const stance_clip *c, float time, struct stance_pose *out, int vex);

/* clip.c: stance_clip_advance and stance_clip_root_motion without their
 * shortcuts (the step inside one cycle, the clip without a root path): the
 * general path, which the reference copy's advance calls; the fast copy
 * calls their st_ twins (above: no message buffer). */
stance_status st_clip_advance_general(const stance_clip *c, float time, float dt, int loop, float *new_time,
                                      stance_event_hit *hits, int cap, int *hit_count, int *wraps);
stance_status st_clip_root_motion_general(const stance_clip *c, float time, float dt, int loop, float out[7]);

/* Where `time` (finite) falls on the root path's n >= 1 key times t: -1 at or
 * before the first key (or a single key), -2 at or after the last, else
 * the key interval k in [0, n-2] with t[k] <= time < t[k+1] and *u the
 * share of it. The path's yaw and rotation use it; its position (clip.c's
 * root_at, on every crowd update) keeps its own copy of the same search,
 * which compiles 2 instructions per update shorter there. */
ST_FORCEINLINE int st_root_interval(const float *t, int n, float time, float *u) {
    if (time <= t[0] || n == 1) return -1;
    if (time >= t[n - 1]) return -2;
    int lo = 0, hi = n - 2;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (t[mid] <= time) lo = mid; else hi = mid - 1;
    }
    *u = (time - t[lo]) / (t[lo + 1] - t[lo]);
    return lo;
}

/* clip_root_rot.c (cold: paths that turn only): the path's
 * orientation at a finite time (slerp between keys); the motion from `time`
 * (at a) to nt (at b) across `wraps` cycles (the path at 0 and at the
 * duration: s0, s1, read when wraps is not 0), into out[0..6] as
 * st_clip_root_motion gives it and, when q is not NULL, the rotation as a
 * unit quaternion (w >= 0) */
void st_root_rot_at(const stance_clip *c, float time, float q[4]);
/* the same for a path with yaw: its yaw at a time (linear between keys),
 * its motion (out[4..6] = +Y) */
float st_root_yaw_at(const stance_clip *c, float time);
void st_root_yaw_motion(const stance_clip *c, float time, float nt, int wraps, const float a[3], const float b[3],
                        const float s0[3], const float s1[3], float out[7]);
void st_root_rot_motion(const stance_clip *c, float time, float nt, int wraps, const float a[3], const float b[3],
                        const float s0[3], const float s1[3], float out[7], float q[4]);

#endif
