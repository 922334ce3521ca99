/* stance/lod.h - animation LOD and a per-frame update budget (docs/lod.md):
 * each instance has a significance the game sets (from distance and
 * whether it is on screen with stance_lod_significance, or any number of
 * its own); stance_lod_allocate picks each instance's update rate (every
 * frame, every 2nd, 4th, ... up to a maximum) so that the frame's cost fits
 * a budget in microseconds, and a phase so the updates of one rate spread
 * evenly over the frames. On the frames an instance skips, the game calls
 * stance_instance_advance (instance.h: its controller, time, events and root
 * motion step exactly as a full update's) and shows a pose blended from its
 * last two evaluated model poses with stance_lod_pose_blend: extrapolated
 * from the last two updates, or (less error, docs/lod.md) interpolated
 * towards a pose evaluated one interval ahead on a copy of the instance.
 *
 * Nothing here allocates or keeps state: the allocator works in the
 * caller's arrays and a scratch buffer the caller sized once
 * (stance_lod_scratch_bytes), and the same inputs give the same rates and
 * phases on every platform (the costs are summed in double, in a fixed
 * order). */
#ifndef STANCE_LOD_H
#define STANCE_LOD_H

#include "pose.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STANCE_LOD_MAX_RATE 64 /* the longest interval between two updates, in frames */
#define STANCE_LOD_LEVELS 7    /* rates 1, 2, 4, 8, 16, 32, 64 */

typedef struct stance_lod_desc {
    /* The frame's budget in microseconds: the sum over instances of what
     * their frame costs (update_us on a frame an instance updates, skip_us
     * on one it skips), i.e. CPU time, not wall time: on T threads that
     * share the work evenly, a wall-time budget B fits T x B of it. Finite
     * and > 0 (0, NaN, inf or negative: STANCE_ERR_VALUE). */
    float budget_us;
    /* The longest interval: a power of two in [1, STANCE_LOD_MAX_RATE];
     * 0 = 8. Another value is STANCE_ERR_VALUE. */
    int max_rate;
    /* The keep_full most significant instances always update every frame
     * (the player, a character in a cut-scene); 0 = none, at most count. */
    int keep_full;
} stance_lod_desc;

/* One instance, as the allocator sees it: the game fills the inputs, the
 * allocator writes rate and phase. */
typedef struct stance_lod_item {
    float significance; /* in: higher = more important (degraded last); finite (NaN: STANCE_ERR_VALUE) */
    float update_us;    /* in: the cost of one full update, microseconds; finite, >= 0 */
    float skip_us;      /* in: the cost of a frame it skips (stance_instance_advance and the pose
                           blend), microseconds; finite, >= 0; when it is not below update_us,
                           skipping saves nothing and the instance keeps rate 1 */
    int rate;           /* out: it updates every rate-th frame (1, 2, 4, ... max_rate) */
    int phase;          /* out: on the frames where frame % rate == phase (0 <= phase < rate) */
} stance_lod_item;

/* What stance_lod_allocate planned. */
typedef struct stance_lod_result {
    double frame_us;                  /* the planned cost of a frame: the sum over instances of
                                         update_us / rate + skip_us * (1 - 1 / rate) (the mean over
                                         max_rate frames; with the phases spread, every frame is
                                         within one update per rate of it) */
    double full_us;                   /* the same with every instance at rate 1 */
    int fits;                         /* 1 when frame_us <= budget_us; 0 when even the plan with every
                                         instance but the keep_full ones at max_rate is over it */
    int at_rate[STANCE_LOD_LEVELS];   /* instances at rate 1, 2, 4, ... 64 */
} stance_lod_result;

/* The view stance_lod_significance measures from. */
typedef struct stance_lod_view {
    float eye[3];           /* the camera's position (world) */
    float forward[3];       /* where it looks (any length > 0; normalized here) */
    float cos_half_fov;     /* cosine of half the widest field of view, in [-1, 1); 0 = 0.5 (120 degrees) */
    float off_screen;       /* the factor an instance off screen is weighted by, in [0, 1]; 0 = 0.25 */
} stance_lod_view;

/* The scratch stance_lod_allocate needs for `count` instances (bytes; the
 * caller allocates it once, e.g. with the instances); 0 for count <= 0. */
STANCE_API size_t stance_lod_scratch_bytes(int count);

/* Picks rate and phase for items[0..count). The rule, in significance
 * order (higher first; equal significances in index order):
 *  - every instance starts at rate 1; while the frame is over budget, the
 *    least significant instance at the lowest rate that can still be
 *    lowered goes one rate down (2 -> 4 ...), so every instance reaches
 *    rate 2 before any reaches 4: a skipped frame's error grows with the
 *    square of the interval and the time saved only as 1 - 1/rate, so even
 *    intervals give the least error for the time saved, and at each step
 *    the least significant pay first. The result has at most two adjacent
 *    rates among the degraded instances, split at one significance;
 *  - the keep_full most significant, and instances whose skip_us is not
 *    below update_us, stay at rate 1;
 *  - phases: among the instances of one rate, in index order, 0, 1, ...
 *    rate-1, 0, 1, ...: each frame updates the same number of them, give
 *    or take one.
 * count 0 is fine (an empty plan). NULL items (count > 0), desc or scratch,
 * or scratch_bytes below stance_lod_scratch_bytes(count):
 * STANCE_ERR_ARGUMENT / STANCE_ERR_MEMORY; a bad desc or item (the first
 * is named): STANCE_ERR_VALUE; nothing is written then. result may be NULL. */
STANCE_API stance_status stance_lod_allocate(const stance_lod_desc *desc, stance_lod_item *items, int count,
                                             void *scratch, size_t scratch_bytes, stance_lod_result *result,
                                             stance_error *err);

/* 1 when an item with this rate and phase updates on `frame` (frame % rate
 * == phase), else 0 (also for a rate < 1 or a frame < 0). */
STANCE_API int stance_lod_due(int rate, int phase, long long frame);

/* A significance from the view: radius / distance (the size on screen, in
 * radians for a small sphere), times view->off_screen when the sphere of
 * `radius` at `position` is wholly outside the view's cone. Inside the
 * sphere it is radius / radius = 1 at most. Every value finite, radius > 0,
 * forward not zero, cos_half_fov in [-1, 1), off_screen in [0, 1]: else
 * STANCE_ERR_VALUE (*out unchanged). */
STANCE_API stance_status stance_lod_significance(const stance_lod_view *view, const float position[3], float radius,
                                                 float *out, stance_error *err);

/* The pose shown on a skipped frame, from the last two evaluated model
 * poses: `older` evaluated `interval` frames before `last`, and the frame
 * shown `ahead` frames after `last` (docs/lod.md: extrapolation, measured
 * against full-rate updates). t = ahead / interval: 0 is `last`, 1 one
 * more interval on. Evaluated ahead (docs/lod.md), `older` is the pose
 * evaluated for the last update's frame, `last` the one for the next, and
 * t = ahead / interval - 1 interpolates. Translations and scales move on linearly, rotations
 * along the same arc (the quaternion difference older -> last taken t
 * times, in its normalized linear form), per joint and in model space.
 * t = -1 gives `older`, so t in [-1, 0] interpolates between the two.
 * All three poses of one joint count (out may be last or older); t
 * finite in [-1, 1]; else STANCE_ERR_ARGUMENT / STANCE_ERR_VALUE. */
STANCE_API stance_status stance_lod_pose_blend(const stance_pose *older, const stance_pose *last, float t,
                                               stance_pose *out, stance_error *err);

#ifdef __cplusplus
}
#endif
#endif
