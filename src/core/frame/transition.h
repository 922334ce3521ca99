/* src/core/frame/transition.h - the maths of the switch modes on whole poses
 * (transition.c): history velocity and extrapolation, inertialization (the
 * lesson's per-component quintic and Bollo's vector form), dead blending's
 * source, lerps and easing. The evaluate stage runs them; the advance stage
 * eases switch weights. Not public. */
#ifndef STANCE_TRANSITION_H
#define STANCE_TRANSITION_H

#include "stance/graph.h"

/* inertialization record per joint: 3 channels (t, r, s) of 8 floats
 * (inertialize-simple); Bollo's keeps offset and velocity per channel at
 * 0..17, the blend at 18 and the channels' starting accelerations at 19..21;
 * dead blending keeps its 9 velocity floats per joint in the same record */
#define INERT_FLOATS 24

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
