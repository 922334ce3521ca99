/* src/core/clip/clip_retarget.h - run-time retargeting (issue 27 item 3,
 * docs/retargeting.md): what a retargeted clip carries (stance_clip.retarget)
 * and its sampler. A retargeted clip is a clip of the target skeleton whose
 * own data is one key of the target's rest pose; it holds an exact clip of
 * another skeleton (the source) and, per mapped target joint ("entry"), the
 * baked rest-pose corrections, so that sampling it is: the rest pose, then
 * one pass over the entries that reads the source clip's keys of the source
 * joints each entry needs and writes the entry's local rotation (and the
 * pelvis' translation). Built by the io side (src/io/retarget_live.c, which
 * fills this block); immutable once built, so instances on other threads
 * share it. Not public. */
#ifndef STANCE_CLIP_RETARGET_H
#define STANCE_CLIP_RETARGET_H

#include "stance/clip.h"

/* entries a retargeted clip may have (the humanoid slots, the finger slots
 * and a pelvis apart from the hips, with room) */
#define STANCE_RETARGET_MAX_ENTRIES 64
/* source joints a retargeted clip may read */
#define STANCE_RETARGET_MAX_NEED 128

/* One mapped target joint. Its local rotation is
 *   L = pre * inverse(W_parent) * inverse(U) * D * W * post
 * with U the product of the source's local rotations (top down) of the
 * joints `up` names (from below the common ancestor of the source joints of
 * this entry and of its parent entry, down to the parent entry's source
 * joint; empty when that joint is an ancestor of this one's) and D the same
 * for `down` (down to this entry's source joint). W re-aims the segment
 * when source joints lie between this slot's joint and the next slot's
 * (`aim`: those joints and the next slot's, top down): the swing, in the
 * source joint's frame, taking the segment's bind direction `cb` onto its
 * direction now (the joints' rest offsets turned by their rotations now);
 * identity without them. W_parent is the parent entry's. pre and post hold
 * the bind poses and the rest-pose alignment (docs/retargeting.md). */
typedef struct st_rt_entry {
    int joint;                 /* the target joint */
    int parent;                /* the entry of its nearest target ancestor that is one; -1 none */
    int up, up_count;          /* source joints in st_retarget.chain[up ..] */
    int down, down_count;      /* source joints in st_retarget.chain[down ..] */
    int aim, aim_count;        /* source joints in st_retarget.chain[aim ..] (rest offsets in chain_t); 0 none */
    int paim;                  /* 1: the parent entry re-aims (aim_count > 0): W_parent is undone */
    float cb[3];               /* the segment's unit bind direction in the source joint's frame */
    /* pre * g * post as one linear map of g's (x y z w): m[4 r + c] (row r,
     * column c), so a sample's two products are one 4x4 product */
    float m[16];
    int cpar_id;               /* 1: cpar is the identity (the parent entry's joint is the parent) */
    /* model space, for the carried joints (below): the parent entry's bind
     * rotation undone and this joint's parent's applied (cpar), and this
     * joint's bind position in the parent entry's bind frame (off) */
    float cpar[4], off[3];
    /* a joint its chain parent does not carry (an IK foot under the root):
     * placed at the carrier entry's model transform times `carry` (its bind
     * offset in the carrier's bind frame); -1 = not carried */
    int carrier;
    float carry[3];
    int model;                 /* 1: its model transform is kept (a carrier, a leg with contacts, or above one) */
    int pchild;                /* 1: its parent entry is the top (the pelvis' turn is undone, through cpar) */
    /* the inverse of the joint's parent's model transform at rest, to turn a
     * model position into a local translation (carried joints, the top) */
    float pinv_rot[4], ppos[3], pinv_scale[3];
} st_rt_entry;

/* Foot contacts at run time (docs/retargeting.md): what the offline contact
 * pass (stance_retarget_clip without free_feet) did beyond this clip's
 * free-feet pose, per key of a grid, found when the clip is built: the
 * pelvis' model turn (dq) and shift (dp), then per leg the foot's goal as an
 * offset from where the pose puts it after that. A sample interpolates
 * them, turns and shifts the pelvis (the entries below it keep their model
 * rotations and the joints between turn with it, as offline) and solves each leg with a two-bone IK (no pole:
 * the knee keeps its bend plane; the foot keeps its model rotation; a foot
 * under the root is carried after). */
#define ST_RT_FIX_FLOATS 13 /* per key: dq (4), dp (3), left foot (3), right foot (3) */
typedef struct st_rt_fix {
    int key_count;         /* 0: none (free feet) */
    float rate;            /* 0: on the source clip's key grid; else key i at min(i / rate, duration) */
    float duration;
    float *keys;           /* key_count x ST_RT_FIX_FLOATS; its own block (bytes) */
    size_t bytes;
    int legs[2][3];        /* entries: upper leg, lower leg, foot */
    int stage;             /* 2: applied; 1: the pelvis only; 0: none (while it is baked) */
} st_rt_fix;

typedef struct st_retarget {
    const stance_clip *source;  /* exact clip of the source skeleton; owned (destroyed with the clip) */
    int entry_count;            /* 1..; in target joint order (parents first) */
    st_rt_entry *entries;
    int need_count;             /* the source joints any entry reads, each once: sampled first */
    int need_unit;              /* need[0 .. need_unit) turn vectors (the top's chain, the aim chains):
                                   normalized; the rest only scale the products the entries normalize */
    int *need;                  /* their indices in the source skeleton */
    int *chain;                 /* the entries' paths: indices into need[] */
    int carried;                /* entries with carrier >= 0 (their model transforms are then kept) */
    /* the top entry (the pelvis): its translation. Its source joint's model
     * position p and rotation Q come from its `down` chain (the source's
     * local translations, each scaled by the parent's rest scale in
     * chain_scale); the target pelvis' model position is
     *   c + k p + Q w
     * (the leg sockets' midpoint follows the source's times k, the pelvis
     * where its turn puts it), then made local by the entry's pinv_*. */
    int top;                    /* entry index; -1 none */
    float k, c[3], w1[3], w2[3]; /* the target pelvis at c + k p + Q (w1 - W w2) */
    float (*chain_scale)[3];    /* per chain slot: the accumulated rest scale of the joint's parent */
    float (*chain_t)[3];        /* per chain slot: the joint's rest translation (aim chains) */
    st_rt_fix fix;              /* foot contacts (fix.key_count 0: free feet) */
    size_t bytes;               /* the one block holding this struct and its arrays */
} st_retarget;

/* out holds the clip's own sample (the target's rest pose); writes the
 * entries' local rotations and the top's translation at `time` (clamped
 * to the clip), through `cur` on the source clip's keys. */
void st_retarget_apply(const stance_clip *c, float time, stance_cursor *cur, stance_pose *out);
/* The whole sample: the rest pose (the clip's own blocks), then
 * st_retarget_apply. stance_clip_sample's path for a retargeted clip. */
void st_retarget_sample(const stance_clip *c, float time, stance_cursor *cur, stance_pose *out);
/* The velocity of a retargeted clip (per second), by a difference over
 * 1/120 s (out holds the sample at `time`; vel is written). */
void st_retarget_velocity(const stance_clip *c, float time, const stance_pose *out, stance_pose *vel);

#endif
