/* src/core/graph/graph_curves.h - a graph's curves and drives (graph_curves.c
 * builds and checks them, for the builder and the binder alike; the
 * instance's side is core/frame/curves.c): named piecewise-linear tracks per
 * played clip, and what parameters, layer weights and IK weights follow a
 * curve or a parameter each update. One allocation apart from the graph's
 * block; graph->curves is NULL for a graph without any. Not public. */
#ifndef STANCE_GRAPH_CURVES_H
#define STANCE_GRAPH_CURVES_H

#include "core/graph/graph_internal.h"

typedef struct g_track {        /* one clip's track of one curve */
    const stance_clip *clip;
    int curve;                  /* its id */
    int key_first, key_count;   /* (time, value) pairs from keys + 2 * key_first */
} g_track;

typedef struct g_drive {
    int target;                 /* stance_drive_target */
    int index;                  /* the parameter, layer or IK entry */
    int src_param, src_curve;   /* one of them >= 0 */
} g_drive;

typedef struct g_curves {
    int curve_count, track_count, key_count, drive_count;
    char (*names)[G_NAME];
    g_track *tracks;            /* in the given order, clips no state plays left out */
    float *keys;
    g_drive *drives;            /* parameter drives first, then the others, each group in the given order */
    size_t bytes;
} g_curves;

/* What gr_curves_build takes (from a description or a compiled trailer). */
typedef struct gr_track_src {
    const stance_clip *clip;
    int curve;
    int key_count;
    const float *keys;          /* key_count pairs */
} gr_track_src;

/* Checks every value (names 1..63 bytes and unique; tracks: a clip, a known
 * curve, each (clip, curve) once, 1..STANCE_MAX_CURVE_KEYS finite keys whose
 * times increase strictly within the clip; drives: targets and sources in
 * range and of the right kind, each target once) and sets g->curves (NULL
 * when there is nothing: no curve and no drive). STANCE_ERR_VALUE or
 * STANCE_ERR_ARGUMENT with a message naming the value. */
stance_status gr_curves_build(stance_graph *g, const char (*names)[G_NAME], int name_count, const gr_track_src *tracks,
                              int track_count, const g_drive *drives, int drive_count, stance_error *err);
void gr_curves_destroy(stance_graph *g);
/* the track of `curve` for `clip`, NULL when none */
const g_track *gr_curve_track(const g_curves *cv, const stance_clip *clip, int curve);
/* the drive of a layer's weight (the layer is bound: docs/curves.md), NULL when none */
const g_drive *gr_layer_drive(const stance_graph *g, int layer);

#endif
