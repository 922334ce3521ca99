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
    STANCE_EVENT_STATE_ENDED          /* controller: a state stopped (finished or reset) */
} stance_event_type;

typedef struct stance_event {
    stance_event_type type;
    int layer;         /* -1 when not about a layer */
    int machine;
    int state;         /* global state index (the state entered/exited/finished, or the transition's target) */
    int other;         /* transition: the source state; marker: the clip event index */
    float time;        /* instance time in seconds when it happened */
    const char *name;  /* marker: the clip event's name; else the state's name */
} stance_event;

/* Events recorded by the last update, in order. *dropped gets how many did not fit. */
STANCE_API const stance_event *stance_instance_events(const stance_instance *inst, int *count, int *dropped);

#ifdef __cplusplus
}
#endif
#endif
