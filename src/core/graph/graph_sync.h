/* src/core/graph/graph_sync.h - a graph's sync groups and clip markers
 * (graph_sync.c): built once from a description or a compiled graph's SYNC
 * trailer, and the marker matching the advance stage uses when a switch or
 * a crossfade runs between two states of one group (docs/sync.md). Not
 * public. */
#ifndef STANCE_GRAPH_SYNC_H
#define STANCE_GRAPH_SYNC_H

#include "core/graph/graph_internal.h"
#include "stance/build.h"

#define G_MAX_SYNC_GROUPS 32

typedef struct g_marker {
    float time;
    int name;                   /* index into g_sync.names */
} g_marker;
typedef struct g_sclip {        /* a played clip's markers and ground speed */
    const stance_clip *clip;
    int first, count;           /* g_sync.markers, sorted by time */
    float speed;
} g_sclip;
struct g_sync {
    int group_count, clip_count, marker_count, name_count;
    char (*groups)[G_NAME];
    int *state_group;           /* per state: its group, -1 none */
    int *state_clip;            /* per state: its clip's g_sclip, -1 none */
    int *entry_clip;            /* per blend space entry (graph->entries): its clip's g_sclip, -1 none */
    g_sclip *clips;
    g_marker *markers;
    char (*names)[STANCE_EVENT_NAME];
    size_t bytes;
};

/* Builds g->sync (NULL when no state has a group and no clip markers or a
 * speed) from per-state group names (state_group[g->state_count], NULL
 * entries for none; NULL for no groups) and n clip descriptions. Checks
 * every value: a group of one state, a member that is neither a clip state
 * nor a blend space, a clip member whose clip has no markers, a blend space
 * none of whose entries' clips has markers, a bad marker or speed
 * (STANCE_ERR_VALUE). */
stance_status gr_sync_build(stance_graph *g, const char *const *state_group, const stance_clip_sync_desc *clips, int n,
                            stance_error *err);
void gr_sync_destroy(stance_graph *g);

/* 1 when states a and b are in one group (clip states with markers, or
 * blend spaces with an entry whose clip has markers). */
static inline int gr_sync_pair(const g_sync *s, int a, int b) {
    return s->state_group[a] >= 0 && s->state_group[a] == s->state_group[b];
}
/* The follower's clip time that matches the leader's at lt, both given as
 * g_sclip indices with markers (a clip state's clip; a blend space's
 * marker clip, core/frame/sync_phase.c): the leader's last marker before
 * lt and its next (across the loop), the fraction of the way between them,
 * and the follower's pair of markers of the same names at that fraction
 * (of its pairs, the one nearest ft). 0 (out untouched) when the follower
 * has no such pair nor a marker of the leader's last name. spans (NULL:
 * not wanted) gets the clip seconds between the leader's two markers and
 * between the follower's pair. */
int gr_sync_match(const g_sync *s, int lclip, float lt, int fclip, float ft, float *out, float spans[2]);

#endif
