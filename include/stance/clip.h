/* stance/clip.h - keyframed clips: creation, sampling with a cursor,
 * playback with loop/clamp, events, root motion.
 *
 * A clip is shared and immutable once created. The per-character state is a
 * stance_cursor (one int) and a time, owned by the caller. */
#ifndef STANCE_CLIP_H
#define STANCE_CLIP_H

#include "base.h"
#include "pose.h"
#include "skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STANCE_MAX_KEYS (1 << 20)
#define STANCE_MAX_EVENTS 256
#define STANCE_MAX_MARKERS 32   /* sync markers a graph authors per clip (stance_clip_sync_desc) */
#define STANCE_MAX_WINDOWS 32   /* windows a graph authors per clip (stance_clip_notes_desc) */
#define STANCE_EVENT_NAME 32

typedef enum stance_channel {
    STANCE_CHANNEL_TRANSLATION = 0, /* 3 floats a key */
    STANCE_CHANNEL_ROTATION = 1,    /* 4 floats a key, x y z w */
    STANCE_CHANNEL_SCALE = 2        /* 3 floats a key */
} stance_channel;

/* One joint's keys for one channel. Keys at arbitrary, strictly increasing
 * times >= 0. Before the first key and after the last the value holds. */
typedef struct stance_track_desc {
    int joint;
    stance_channel channel;
    int key_count;          /* 1..STANCE_MAX_KEYS */
    const float *times;     /* key_count seconds */
    const float *values;    /* key_count * 3 or * 4 floats */
} stance_track_desc;

/* What an event authored in a graph file carries (the "clips" sidecar,
 * docs/graph-format.md): any of an int, a float and a string, each present
 * when its flag is set in `flags`. A clip's own events carry none. */
#define STANCE_PAYLOAD_INT 1u
#define STANCE_PAYLOAD_FLOAT 2u
#define STANCE_PAYLOAD_STRING 4u
#define STANCE_PAYLOAD_STRING_MAX 31   /* bytes of the string, without its NUL */
typedef struct stance_event_payload {
    unsigned flags;                             /* STANCE_PAYLOAD_* that are present; 0 = none */
    int i;                                      /* 0 when absent */
    float f;                                    /* finite; 0 when absent */
    char s[STANCE_PAYLOAD_STRING_MAX + 1];      /* NUL-terminated; "" when absent */
} stance_event_payload;

typedef struct stance_event_desc {
    const char *name; /* 1..31 bytes */
    float time;       /* in [0, duration] */
} stance_event_desc;

typedef struct stance_clip_desc {
    const char *name;                 /* 1..63 bytes */
    float duration;                   /* seconds; 0 = the last key's time */
    int track_count;                  /* at most 3 per joint, one per channel */
    const stance_track_desc *tracks;  /* joints without a track keep their rest value */
    int event_count;
    const stance_event_desc *events;  /* any order; stored sorted by time */
    int slerp;                        /* 0 = nlerp between keys (default), 1 = slerp */
    /* Root motion. With root_key_count > 0 these keys (positions, 3 floats
     * each) are the root's path and the pose stays as keyed (an in-place
     * clip). With 0, the path is joint 0's translation track, if any. */
    int root_key_count;
    const float *root_times;
    const float *root_values;
    float root_speed;                 /* declared speed m/s; 0 = path length / duration */
    /* The path's rotation: root_key_count yaws (radians about +Y, the
     * root's heading relative to the clip's frame, unwrapped: no jumps of
     * 2 pi between keys, |yaw| <= 1e6), interpolated linearly; NULL = none
     * (the root keeps its heading). Needs root_key_count > 0. */
    const float *root_yaw;
    /* The path's full rotation (pitch and roll too): root_key_count
     * quaternions (x, y, z, w: the root's orientation relative to the
     * clip's frame), slerped between keys; NULL = none. Each finite with a
     * length in [1e-3, 1e3] (normalized at creation; consecutive keys are
     * put in one hemisphere at creation). Needs root_key_count > 0; not
     * with root_yaw. */
    const float *root_rotation;
} stance_clip_desc;

typedef struct stance_clip_event {
    char name[STANCE_EVENT_NAME];
    float time;
} stance_clip_event;

/* Read-only after creation. Keys are stored densely: all joints share one key
 * time grid (the union of the tracks' key times), and each key is a block of
 * padded_count floats per component, so sampling is a straight loop. A
 * channel that no joint animates is stored once. */
typedef struct stance_clip {
    char name[64];
    float duration;
    int joint_count, padded_count;
    int key_count;               /* keys on the shared grid */
    const float *times;          /* key_count */
    float key_rate;              /* keys per second when the grid is uniform, else 0 */
    int t_keys, r_keys, s_keys;  /* blocks stored per channel: key_count or 1 */
    const float *t;              /* t_keys blocks of 3 * padded_count (x.., y.., z..) */
    const float *r;              /* r_keys blocks of 4 * padded_count */
    const float *s;              /* s_keys blocks of 3 * padded_count */
    const unsigned char *animated; /* per joint: bit 0 T, bit 1 R, bit 2 S had a track */
    int slerp;
    int event_count;
    const stance_clip_event *events; /* sorted by time */
    int root_key_count;
    const float *root_times, *root_values;
    int root_from_joint0;        /* 1 when the root path is joint 0's track */
    float root_speed;
    const float *root_yaw;       /* root_key_count yaws (radians about +Y); NULL = no rotation */
    const float *root_rotation;  /* root_key_count unit quaternions (x y z w), hemisphere-aligned; NULL = none */
    int root_turn;               /* how the path turns: 0 not, 1 root_yaw, 2 root_rotation */
    stance_allocator allocator;
    size_t bytes;                /* the one block holding the clip */
    /* NULL for an exact (dense) clip. A compressed clip (stance_clip_compress,
     * or a .stance v3 file) keeps times/key_count/key_rate (the grid), the
     * events and the root path; t, r, s hold one block each: the default
     * pose (rest values and constant tracks); its moving tracks are here
     * (src/core/clip/clip_packed.h), sampled through the same functions. */
    const struct st_packed *packed;
    /* NULL but for a retargeted clip (run-time retargeting, built by
     * stance_retarget_clip_live, docs/retargeting.md): its t, r, s hold one
     * block of the target's rest pose, and sampling it plays the source
     * clip this block holds through the baked bone map
     * (src/core/clip/clip_retarget.h). */
    const struct st_retarget *retarget;
} stance_clip;

/* Validates everything (names, joints in range, one track per joint and
 * channel, increasing finite times, translation and scale keys and the root
 * path within the limits of stance/base.h, rotations that normalize, events
 * inside the clip) and builds the clip in one allocation. The
 * skeleton gives the joint count and the rest values of unkeyed joints. */
STANCE_API stance_status stance_clip_create(const stance_clip_desc *desc, const stance_skeleton *skeleton,
                                 const stance_allocator *allocator, stance_clip **out,
                                 stance_error *err);
STANCE_API void stance_clip_destroy(stance_clip *clip); /* NULL is fine */

/* Bytes of key data (times and values) the clip holds: for a compressed
 * clip the bytes its tracks take in the .stance encoding it is saved in
 * (grid, track heads, ranges, segment codes, coded keys, constants, root
 * path unless it is joint 0's stored translation). */
STANCE_API size_t stance_clip_data_bytes(const stance_clip *clip);

/* 1 when the clip is compressed (lossy), 0 when exact. */
STANCE_API int stance_clip_is_compressed(const stance_clip *clip);
/* The largest error measured when the clip was compressed (model units) and
 * the vertex distance it was measured at; 0 and 0 for an exact clip. */
STANCE_API float stance_clip_max_error(const stance_clip *clip, float *vertex_distance);

/* Per-instance sampling state. Zero-initialize. */
typedef struct stance_cursor {
    int key;       /* the last key interval used */
    int steps;     /* keys the cursor has moved over, in total (a cost measure) */
} stance_cursor;

/* Samples at `time` (clamped to [0, duration]) into `out` (joint_count must
 * match). Forward playback moves the cursor over only the keys passed.
 * cursor may be NULL (binary search). time must be finite. */
STANCE_API stance_status stance_clip_sample(const stance_clip *clip, float time, stance_cursor *cursor,
                                 stance_pose *out, stance_error *err);

/* Two clips sampled and blended in one pass: the same pose, bit for bit, as
 * stance_clip_sample(clip_a, time_a, cursor_a, A), stance_clip_sample(clip_b,
 * time_b, cursor_b, B), then stance_pose_blend(out, {A, B}, weights, 2,
 * threshold, skeleton), without writing A and B (a two-clip blend space,
 * or the blend of two layers). Both clips and out have the same joint
 * count; times are finite (clamped to each clip); weights[0..1] finite and
 * >= 0 (normalized); threshold finite and >= 0 (0 = 1e-4); cursors may be
 * NULL. A clip whose weight is 0 is not sampled (its cursor stays); when
 * the weights sum to less than the threshold neither is, and out is the
 * skeleton's rest pose (skeleton: only then needed, may be NULL otherwise).
 * One pass needs both clips exact (not compressed, nlerp, not retargeted at
 * run time); otherwise, when both weights are > 0, the clips are sampled on
 * their own and `scratch` (a bound pose of the same joint count, not out)
 * holds clip_b's sample: NULL then gives STANCE_ERR_ARGUMENT naming the
 * clip. scratch may be NULL for exact clips. */
STANCE_API stance_status stance_clip_sample_blend2(stance_pose *out, const stance_clip *clip_a, float time_a,
                                        stance_cursor *cursor_a, const stance_clip *clip_b, float time_b,
                                        stance_cursor *cursor_b, const float weights[2], float threshold,
                                        const stance_skeleton *skeleton, stance_pose *scratch, stance_error *err);

/* Samples like stance_clip_sample and also writes the pose's rate of change
 * per second of clip time into `velocity`: translation and scale per axis in
 * tx..tz / sx..sz, angular velocity (parent frame, radians per second, the
 * rotation vector of the key interval) in qx..qz with qw = 0; 0 inside a key
 * interval shorter than 10 us (a step). Used where a transition needs the
 * new state's velocity; costs one sample. */
STANCE_API stance_status stance_clip_sample_velocity(const stance_clip *clip, float time, stance_cursor *cursor,
                                          stance_pose *out, stance_pose *velocity, stance_error *err);

/* An event crossed by playback: clip->events[index] at unwrapped time. */
typedef struct stance_event_hit {
    int index;
    int loop;     /* 0 in the current cycle, +1 after one wrap forward, -1 back */
} stance_event_hit;

/* Plays from `time` by `dt` (either sign). With loop, time wraps into
 * [0, duration); without, it clamps. Events are reported in playback order,
 * each once per crossing: forward an event at e fires when e lies in
 * [time, time + dt) (and e = duration fires on reaching the end of a clamped
 * clip); backward when e lies in (time + dt, time]; time + dt here is where the
 * next call starts (new_time, a float, unwrapped), so calls that chain
 * new_time partition the time and fire each event exactly once. `hits` may be NULL;
 * at most hit_capacity are written, *hit_count gets how many were crossed
 * (more than capacity means some were dropped). *wraps counts loop wraps
 * (negative going back). Any output pointer may be NULL except new_time. */
STANCE_API stance_status stance_clip_advance(const stance_clip *clip, float time, float dt, int loop,
                                  float *new_time, stance_event_hit *hits, int hit_capacity,
                                  int *hit_count, int *wraps, stance_error *err);

/* Root position at `time` (clamped), from the root path. */
STANCE_API stance_status stance_clip_root_position(const stance_clip *clip, float time, float out[3], stance_error *err);
/* The root's displacement from `time` over `dt` of playback, across wraps
 * when loop is set. For a path that turns (yaw or full rotation), in the
 * root's frame at `time` (as stance_clip_root_motion_yaw and
 * stance_clip_root_motion_rot give it). */
STANCE_API stance_status stance_clip_root_motion(const stance_clip *clip, float time, float dt, int loop,
                                      float out[3], stance_error *err);
/* The root's motion from `time` over `dt` of playback (across wraps when
 * loop is set) as translation and rotation: out = the displacement in the
 * root's frame at `time`, *yaw = the turn about +Y (radians) over the same
 * playback; each cycle crossed adds its own (the path's end relative to
 * its start, turned by the yaw reached so far). 0 yaw for a path without
 * one; for a path with full rotation, the twist of its rotation about +Y
 * (stance_clip_root_motion_rot gives all of it). yaw may be NULL. */
STANCE_API stance_status stance_clip_root_motion_yaw(const stance_clip *clip, float time, float dt, int loop,
                                          float out[3], float *yaw, stance_error *err);
/* The root's yaw at `time` (clamped), radians; 0 without one (for a path
 * with full rotation: the twist of its rotation about +Y). */
STANCE_API float stance_clip_root_yaw(const stance_clip *clip, float time);
/* The root's orientation at `time` (clamped) relative to the clip's frame,
 * a unit quaternion (x y z w): the path's rotation slerped between keys, a
 * yaw path's yaw about +Y, identity for a path that does not turn. */
STANCE_API stance_status stance_clip_root_rotation(const stance_clip *clip, float time, float q[4], stance_error *err);
/* The root's motion from `time` over `dt` of playback (across wraps when
 * loop is set) as a rigid transform: t = the displacement in the root's
 * frame at `time`, q = the rotation over the same playback (unit, w >= 0),
 * so the root at the end is (p + R t, R q) for a root at (p, R). Each cycle
 * crossed adds its own transform (the path's end relative to its start),
 * whole cycles in closed form (the cycle's transform to the power n: the
 * displacement's part along the turn's axis n times, the rest a rotation
 * series). A yaw path gives its yaw about +Y; a path that does not turn
 * the identity. t is stance_clip_root_motion's. */
STANCE_API stance_status stance_clip_root_motion_rot(const stance_clip *clip, float time, float dt, int loop,
                                          float t[3], float q[4], stance_error *err);

#ifdef __cplusplus
}
#endif
#endif
