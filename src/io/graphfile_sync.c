/* src/io/graphfile_sync.c - sync groups in a graph file (docs/sync.md): the
 * "clips" sidecar's per-clip "markers" ([{"t", "name"}]) and "speed" (the
 * clip's ground speed in m/s) into stance_clip_sync_desc, and the states'
 * "sync" group names checked as a whole (a group of one state, a member
 * that plays a nested machine, a clip member whose clip has no markers, a
 * blend space none of whose entries' clips has markers), each at its
 * FILE:LINE:COLUMN. The runtime checks again (src/core/graph/graph_sync.c).
 * graphfile_clips.c reads the sidecar's events and windows and has already
 * checked its clip names. */
#include <string.h>

#include "core/base/internal.h"
#include "core/base/names.h"
#include "io/graphfile_internal.h"

#ifdef STANCE_HAVE_JANSSON
#include <jansson.h>
#include "stance/build.h"

static stance_status read_markers(ctx *c, const jobj *co, const stance_clip *clip, stance_clip_sync_desc *sd) {
    static const char *const keys[] = {"t", "name", NULL};
    json_t *arr;
    int n;
    stance_status s = gf_get_array(c, co, "markers", 0, 0, STANCE_MAX_MARKERS, &arr, &n);
    if (s || !n) return s;
    stance_marker_desc *md = gf_alloc(c->gf, (size_t)n, sizeof *md);
    if (!md) return gf_no_memory(c);
    jpath pa = {co->at, "markers", -1};
    for (int i = 0; i < n; i++) {
        jpath pm = {&pa, NULL, i}, pn = {&pm, "name", -1}, pt = {&pm, "t", -1};
        jobj o = {json_array_get(arr, (size_t)i), &pm, "a marker"};
        if ((s = gf_want_object(c, o.v, &pm, "a marker (\"t\": seconds, \"name\")")) || (s = gf_check_keys(c, &o, keys)) ||
            (s = gf_get_string(c, &o, "name", 1, &md[i].name)) ||
            (s = gf_get_number(c, &o, "t", 1, -1e30, 1e30, 0, &md[i].time)))
            return s;
        if (!md[i].name[0] || strlen(md[i].name) >= STANCE_EVENT_NAME)
            return gf_fail_at(c, &pn, 0, STANCE_ERR_FORMAT, "\"name\": expected 1..%d bytes, got %zu", STANCE_EVENT_NAME - 1,
                              strlen(md[i].name));
        if (md[i].time < 0.0f || md[i].time > clip->duration)
            return gf_fail_at(c, &pt, 0, STANCE_ERR_FORMAT, "marker '%s' at %g s is %s clip '%.63s' (0..%g s): \"t\" is "
                              "seconds into the clip", md[i].name, (double)md[i].time,
                              md[i].time < 0.0f ? "before the start of" : "past the end of", clip->name, (double)clip->duration);
    }
    sd->markers = md, sd->marker_count = n;
    return STANCE_OK;
}

/* the sidecar's markers and speeds */
static stance_status read_clip_sync(ctx *c, const jobj *root, stance_graph_desc *gd) {
    (void)root; /* the clips' entries: gf_gather_clips (the sidecar's, then the asset's notes') */
    if (!c->clip_entries) return STANCE_OK;
    stance_clip_sync_desc *sd = gf_alloc(c->gf, (size_t)c->clip_entries, sizeof *sd);
    if (!sd) return gf_no_memory(c);
    int k = 0;
    stance_status s;
    for (int i = 0; i < c->clip_entries; i++) {
        const gf_clip_entry *e = &c->clips[i];
        const jobj om = gf_clip_key(e, "markers"), os = gf_clip_key(e, "speed");
        if (!om.v && !os.v) continue;
        const stance_clip *clip;
        if ((s = gf_find_clip_at(c, e->g ? &e->pg : &e->pa, 1, e->name, &clip))) return s;
        sd[k].clip = clip;
        if ((s = read_markers(c, &om, clip, &sd[k])) || (s = gf_get_number(c, &os, "speed", 0, 0.0, 1e6, 0, &sd[k].speed)))
            return s;
        k++;
    }
    gd->clip_sync = sd, gd->clip_sync_count = k;
    return STANCE_OK;
}

static int markers_of(const stance_graph_desc *gd, const stance_clip *clip) {
    for (int i = 0; i < gd->clip_sync_count; i++)
        if (gd->clip_sync[i].clip == clip) return gd->clip_sync[i].marker_count;
    return 0;
}

typedef struct group_set {
    const char *names[STANCE_MAX_STATES];
    int count;
} group_set;
static const char *group_at(const void *set, int i) { return ((const group_set *)set)->names[i]; }

stance_status gf_read_sync(ctx *c, const jobj *root, stance_graph_desc *gd) {
    stance_status s = read_clip_sync(c, root, gd);
    if (s) return s;
    jpath pa = {root->at, "machines", -1};
    for (int mi = 0; mi < c->machine_count; mi++) {
        const stance_machine_desc *m = &c->machines[mi];
        for (int si = 0; si < m->state_count; si++) {
            const stance_state_desc *st = &m->states[si];
            if (!st->sync) continue;
            jpath pm = {&pa, NULL, mi}, ps = {&pm, "states", -1}, pi = {&ps, NULL, si}, pg = {&pi, "sync", -1};
            if (st->type == STANCE_MOTION_BLEND1D || st->type == STANCE_MOTION_BLEND2D) {
                int marked = 0;
                for (int e = 0; e < st->entry_count && !marked; e++) marked = markers_of(gd, st->entries[e].clip) > 0;
                if (!marked)
                    return gf_fail_at(c, &pg, 0, STANCE_ERR_FORMAT, "blend space state '%s' is in sync group '%s' but none of "
                                      "its entries' clips has markers (add \"clips\": {\"%s\": {\"markers\": [{\"t\": ..., "
                                      "\"name\": ...}]}})", st->name, st->sync, st->entries[0].clip->name);
            } else if (st->type != STANCE_MOTION_CLIP) {
                return gf_fail_at(c, &pg, 0, STANCE_ERR_FORMAT, "state '%s' is in sync group '%s' but plays a nested machine: "
                                  "a group's members are clip states and blend spaces", st->name, st->sync);
            } else if (!markers_of(gd, st->clip)) {
                return gf_fail_at(c, &pg, 0, STANCE_ERR_FORMAT, "state '%s' is in sync group '%s' but its clip '%s' has no "
                                  "markers (add \"clips\": {\"%s\": {\"markers\": [{\"t\": ..., \"name\": ...}]}})", st->name,
                                  st->sync, st->clip->name, st->clip->name);
            }
            group_set others = {{0}, 0};
            int members = 0;
            for (int mk = 0; mk < c->machine_count; mk++)
                for (int sk = 0; sk < c->machines[mk].state_count; sk++) {
                    const char *g = c->machines[mk].states[sk].sync;
                    if (!g) continue;
                    int seen = 0;
                    for (int k = 0; k < others.count && !seen; k++) seen = !strcmp(others.names[k], g);
                    if (!strcmp(g, st->sync)) members++;
                    else if (!seen && others.count < STANCE_MAX_STATES) others.names[others.count++] = g;
                }
            if (members < 2) {
                char hint[200];
                st_suggest(hint, sizeof hint, st->sync, group_at, &others, others.count);
                return gf_fail_at(c, &pg, 0, STANCE_ERR_FORMAT, "sync group '%s' has one member (state '%s'): a group needs "
                                  "two or more states%s", st->sync, st->name, others.count ? hint : "");
            }
        }
    }
    return STANCE_OK;
}

#endif /* STANCE_HAVE_JANSSON */
