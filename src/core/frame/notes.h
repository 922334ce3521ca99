/* src/core/frame/notes.h - clip notes at run time (notes.c): events with
 * their payloads into the instance's queue, windows opened and closed in
 * pairs. Not public. */
#ifndef STANCE_NOTES_H
#define STANCE_NOTES_H

#include "core/frame/instance_internal.h"

/* One event into the queue (counted as dropped when it is full). */
void nt_emit(stance_instance *inst, stance_event_type type, int m, int state, int other, const char *name,
             const stance_event_payload *payload, stance_window_reason reason);
/* Machine m's play (old: its outgoing one, which opens no window) stepped
 * from `time` by `step` seconds of clip time (`loop`: its clip loops) over
 * the notes of graph->metas[meta]: the events it crosses fire when the
 * play's weight (the switch's eased progress at the end of the step, times
 * entry_weight: a blend space's dominant entry's) is at least theirs; the
 * current play's windows open and close. dt: the update's step. */
void nt_advance(stance_instance *inst, int m, int old, int meta, float entry_weight, float time, float step, int loop,
                float dt);
/* Closes machine m's open windows (WINDOW_END with `reason`). */
void nt_close(stance_instance *inst, int m, stance_window_reason reason);
/* The same for m and the machines its current states nest, down the nesting. */
void nt_close_nested(stance_instance *inst, int m, stance_window_reason reason);

#endif
