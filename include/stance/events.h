/* stance/events.h - what an update reports: the events of the last
 * stance_instance_update (states entered and exited, transitions started and
 * finished, once clips finished, clip markers crossed, the controller's
 * layers shown and hidden), in the order they happened, at most
 * STANCE_EVENT_QUEUE per update. */
#ifndef STANCE_EVENTS_H
#define STANCE_EVENTS_H

#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STANCE_EVENT_QUEUE 24     /* events kept per update (more are counted as dropped) */

typedef enum stance_event_type {
    STANCE_EVENT_STATE_ENTERED = 0,
    STANCE_EVENT_STATE_EXITED,
    STANCE_EVENT_TRANSITION_STARTED,
    STANCE_EVENT_TRANSITION_FINISHED,
    STANCE_EVENT_CLIP_FINISHED,       /* a once state reached its end */
    STANCE_EVENT_CLIP_MARKER,         /* a clip event crossed by playback */
    STANCE_EVENT_LAYER_SHOWN,         /* controller: a layer became the visible one */
    STANCE_EVENT_LAYER_HIDDEN,
    STANCE_EVENT_STATE_ENDED,         /* controller: a state stopped (finished or reset) */
    STANCE_EVENT_WINDOW_BEGIN,        /* a clip's window opened (its `from` crossed) */
    STANCE_EVENT_WINDOW_END           /* a window closed: `reason` says why; every BEGIN gets one END */
} stance_event_type;

/* Why a window closed (stance_event.reason of STANCE_EVENT_WINDOW_END). */
typedef enum stance_window_reason {
    STANCE_WINDOW_FINISHED = 0,   /* playback passed its end (its `to`; `from` playing backwards; a once clip's end) */
    STANCE_WINDOW_INTERRUPTED,    /* its state was left (a transition or play started), its blend space's
                                     dominant clip changed, or its layer was disabled */
    STANCE_WINDOW_RESET,          /* stance_instance_reset */
    STANCE_WINDOW_SEEK            /* stance_instance_seek jumped out of it (appended to the last update's events) */
} stance_window_reason;

typedef struct stance_event {
    stance_event_type type;
    int layer;         /* -1 when not about a layer */
    int machine;
    int state;         /* global state index (the state entered/exited/finished, or the transition's target) */
    int other;         /* transition: the source state; marker: the event's index in the clip's list
                          (stance_graph_clip_events: the clip's own events first, then those the graph
                          file authored for it, by time); window: its index among the clip's windows */
    float time;        /* instance time in seconds when it happened */
    const char *name;  /* marker: the clip event's name; window: the window's; else the state's name */
    const stance_event_payload *payload; /* marker authored with a payload: it (in the graph, valid while
                                            the graph lives); else NULL */
    stance_window_reason reason;         /* WINDOW_END: why; else 0 */
} stance_event;

/* Events recorded by the last update, in order. *dropped gets how many were
 * crossed or raised but did not fit the queue (STANCE_EVENT_QUEUE): 0 means
 * nothing was lost. Overflow is never silent: read it every update. After
 * stance_instance_reset (until the next update) the list holds the
 * WINDOW_END events (reason reset) of the windows the reset closed; after
 * stance_instance_set_layer_enabled(0) the ends of its windows are appended,
 * and after stance_instance_seek the window ends and begins of the jump. */
STANCE_API const stance_event *stance_instance_events(const stance_instance *inst, int *count, int *dropped);

#ifdef __cplusplus
}
#endif
#endif
