/* src/core/frame/sync_phase.h - the phase a sync group's members share at
 * run time (sync_phase.c, docs/sync.md): where a switch between two
 * members starts its target, and the steps of a synced crossfade's leader
 * and follower. Members are clip states and blend spaces. Not public. */
#ifndef STANCE_SYNC_PHASE_H
#define STANCE_SYNC_PHASE_H

#include "core/frame/instance_internal.h"

/* A switch of rt (old: the state it leaves; cur: its target, at 0) between
 * two members of one group: the target starts at the phase its markers
 * match with the state it leaves (the leader). Nothing otherwise. */
void sp_start(const stance_instance *inst, g_machine_rt *rt);
/* A crossfade between two members: the seconds the leader steps this
 * update (dt at a rate matched to the blend; wf the follower's eased
 * weight), and then, with the leader stepped, the seconds the follower
 * steps to the leader's phase (forward only: 0 when it is ahead). dt when
 * the two have no matching markers. */
float sp_lead_dt(const stance_instance *inst, const g_play *lead, const g_play *fol, float wf, float dt);
float sp_follow_dt(const stance_instance *inst, const g_play *lead, const g_play *fol, float dt);

#endif
