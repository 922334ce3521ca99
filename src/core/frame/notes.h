/* src/core/frame/notes.h - clip notes at run time (notes.c): events with
 * their payloads into the instance's queue, windows opened and closed in
 * pairs. Not public. */
#ifndef STANCE_NOTES_H
#define STANCE_NOTES_H

#include "core/frame/instance_internal.h"

/* One event into the queue (counted as dropped when it is full). */
void nt_emit(stance_instance *inst, stance_event_type type, int m, int state, int other, const char *name,
             const stance_event_payload *payload, stance_window_reason reason);
/* Machine m's play (old: its outgoing one, which opens no window) of a
 * clip with notes (graph->metas[meta]) stepped: the events it crosses fire
 * when the play's weight (the switch's eased progress at the end of the
 * step, times entry_weight: a blend space's dominant entry's) is at least
 * theirs; the current play's windows open and close. A clip state: from
 * `time` to new_time after `wraps` loop wraps (stance_clip_advance's
 * results for `step` seconds); a blend space's entry: from phase to
 * new_phase (0..1) after `wraps` (its phase step dphase). dt: the update's. */
void nt_advance_clip(stance_instance *inst, int m, int old, int meta, float time, float new_time, int wraps, float step,
                     int loop, float dt);
void nt_advance_phase(stance_instance *inst, int m, int old, int meta, float entry_weight, float phase, float new_phase,
                      int wraps, float dphase, int loop, float dt);
/* Closes machine m's open windows (WINDOW_END with `reason`). */
void nt_close(stance_instance *inst, int m, stance_window_reason reason);
/* The same for m and the machines its current states nest, down the nesting. */
void nt_close_nested(stance_instance *inst, int m, stance_window_reason reason);

#endif
