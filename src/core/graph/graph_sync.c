/* src/core/graph/graph_sync.c - a graph's sync groups and clip markers
 * (graph_sync.h): the block built from per-state group names and the
 * clips' markers and ground speeds (the same function for a description
 * and a compiled graph's SYNC trailer, so both give the same graph), the
 * marker matching of a switch or crossfade between members, and the
 * queries. The rule is docs/sync.md's. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/base/internal.h"
#include "core/graph/graph_sync.h"
#include "stance/graph_query.h"

static int marker_name_ok(const char *n) { return n && n[0] && strlen(n) < STANCE_EVENT_NAME; }

static int played(const stance_clip *const *clips, int n, const stance_clip *c) {
    for (int i = 0; i < n; i++)
        if (clips[i] == c) return 1;
    return 0;
}

/* every value of the clip descriptions; the played ones counted */
static stance_status check_clips(const stance_clip_sync_desc *clips, int n, const stance_clip *const *pl, int np,
                                 int *kept, int *markers, stance_error *err) {
    *kept = *markers = 0;
    for (int i = 0; i < n; i++) {
        const stance_clip_sync_desc *c = &clips[i];
        if (!c->clip || c->marker_count < 0 || c->marker_count > STANCE_MAX_MARKERS || (c->marker_count && !c->markers))
            return st_fail(err, STANCE_ERR_ARGUMENT, "graph: clip sync %d: clip is NULL, or marker_count %d is not 0..%d "
                           "with its array", i, c->marker_count, STANCE_MAX_MARKERS);
        for (int k = 0; k < i; k++)
            if (clips[k].clip == c->clip)
                return st_fail(err, STANCE_ERR_ARGUMENT, "graph: clip '%s' sync: given twice", c->clip->name);
        if (!(c->speed >= 0.0f && c->speed <= 1e6f))
            return st_fail(err, STANCE_ERR_VALUE, "graph: clip '%s': speed %g is not a ground speed (0..1e6 m/s)",
                           c->clip->name, (double)c->speed);
        for (int k = 0; k < c->marker_count; k++) {
            const stance_marker_desc *m = &c->markers[k];
            if (!marker_name_ok(m->name))
                return st_fail(err, STANCE_ERR_VALUE, "graph: clip '%s': marker %d: the name is NULL, empty or over %d bytes",
                               c->clip->name, k, STANCE_EVENT_NAME - 1);
            if (!(m->time >= 0.0f && m->time <= c->clip->duration))
                return st_fail(err, STANCE_ERR_VALUE, "graph: clip '%s': marker '%s' at %g s is outside the clip (0..%g s)",
                               c->clip->name, m->name, (double)m->time, (double)c->clip->duration);
        }
        if (played(pl, np, c->clip) && (c->marker_count || c->speed > 0.0f)) (*kept)++, *markers += c->marker_count;
    }
    return STANCE_OK;
}

static int find_sclip(const g_sync *s, const stance_clip *c) {
    for (int i = 0; i < s->clip_count; i++)
        if (s->clips[i].clip == c) return i;
    return -1;
}

static int intern(g_sync *s, const char *name) {
    for (int i = 0; i < s->name_count; i++)
        if (!strcmp(s->names[i], name)) return i;
    memset(s->names[s->name_count], 0, STANCE_EVENT_NAME);
    memcpy(s->names[s->name_count], name, strlen(name));
    return s->name_count++;
}

stance_status gr_sync_build(stance_graph *g, const char *const *state_group, const stance_clip_sync_desc *clips, int n,
                            stance_error *err) {
    g->sync = NULL;
    if (n < 0 || (n > 0 && !clips)) return st_fail(err, STANCE_ERR_ARGUMENT, "graph: clip_sync_count %d without clip_sync", n);
    const int S = g->state_count;
    int members = 0;
    for (int i = 0; state_group && i < S; i++) members += state_group[i] != NULL;
    if (!members && !n) return STANCE_OK;
    const int np = stance_graph_clips(g, NULL, 0);
    const stance_clip *pl[256];
    const stance_clip **played_clips = pl;
    if (np > 256) return st_fail(err, STANCE_ERR_VALUE, "graph: sync markers on a graph of %d clips (at most 256)", np);
    stance_graph_clips(g, played_clips, np);
    int kept, nm;
    stance_status st = check_clips(clips, n, played_clips, np, &kept, &nm, err);
    if (st) return st;
    if (!members && !kept) return STANCE_OK;
    const size_t b_head = st_align_up(sizeof(g_sync), 16);
    const size_t b_groups = sizeof(char[G_NAME]) * G_MAX_SYNC_GROUPS;
    const size_t b_states = st_align_up(sizeof(int) * (2 * (size_t)S + (size_t)g->entry_count), 16);
    const size_t b_clips = st_align_up(sizeof(g_sclip) * (size_t)kept, 16);
    const size_t b_marks = st_align_up(sizeof(g_marker) * (size_t)nm, 16);
    const size_t bytes = b_head + b_groups + b_states + b_clips + b_marks + sizeof(char[STANCE_EVENT_NAME]) * (size_t)nm + 16;
    unsigned char *mem = st_alloc(&g->allocator, bytes, 16);
    if (!mem) return st_fail(err, STANCE_ERR_MEMORY, "graph: allocation of %zu bytes failed", bytes);
    memset(mem, 0, bytes);
    g_sync *s = (g_sync *)mem;
    s->bytes = bytes;
    s->groups = (char(*)[G_NAME])(mem + b_head);
    s->state_group = (int *)(mem + b_head + b_groups);
    s->state_clip = s->state_group + S;
    s->entry_clip = s->state_clip + S;
    s->clips = (g_sclip *)(mem + b_head + b_groups + b_states);
    s->markers = (g_marker *)(mem + b_head + b_groups + b_states + b_clips);
    s->names = (char(*)[STANCE_EVENT_NAME])(mem + b_head + b_groups + b_states + b_clips + b_marks);
    g->sync = s;
    for (int i = 0; i < n; i++) { /* the played clips' markers, sorted by time (stable) */
        const stance_clip_sync_desc *c = &clips[i];
        if (!played(played_clips, np, c->clip) || !(c->marker_count || c->speed > 0.0f)) continue;
        g_sclip *sc = &s->clips[s->clip_count++];
        sc->clip = c->clip, sc->speed = c->speed, sc->first = s->marker_count, sc->count = c->marker_count;
        g_marker *mk = s->markers + sc->first;
        for (int k = 0; k < c->marker_count; k++) {
            g_marker v = {c->markers[k].time, intern(s, c->markers[k].name)};
            int at = k;
            while (at > 0 && mk[at - 1].time > v.time) mk[at] = mk[at - 1], at--;
            mk[at] = v;
        }
        s->marker_count += c->marker_count;
    }
    for (int i = 0; i < g->entry_count; i++) s->entry_clip[i] = find_sclip(s, g->entries[i].clip);
    for (int i = 0; i < S; i++) {
        const g_state *gs = &g->states[i];
        s->state_group[i] = -1;
        s->state_clip[i] = gs->type == STANCE_MOTION_CLIP ? find_sclip(s, gs->clip) : -1;
        const char *name = state_group ? state_group[i] : NULL;
        if (!name) continue;
        if (!name[0] || strlen(name) >= G_NAME) {
            st = st_fail(err, STANCE_ERR_VALUE, "graph: state '%s': sync group name empty or over %d bytes", gs->name, G_NAME - 1);
            break;
        }
        int k = 0;
        while (k < s->group_count && strcmp(s->groups[k], name)) k++;
        if (k == s->group_count) {
            if (k == G_MAX_SYNC_GROUPS) {
                st = st_fail(err, STANCE_ERR_VALUE, "graph: more than %d sync groups", G_MAX_SYNC_GROUPS);
                break;
            }
            memcpy(s->groups[k], name, strlen(name));
            s->group_count++;
        }
        s->state_group[i] = k;
        const int blend = gs->type == STANCE_MOTION_BLEND1D || gs->type == STANCE_MOTION_BLEND2D;
        int marked = -1; /* a blend space's first entry whose clip has markers */
        for (int k2 = 0; blend && k2 < gs->entry_count && marked < 0; k2++) {
            const int c = s->entry_clip[gs->entry_first + k2];
            if (c >= 0 && s->clips[c].count > 0) marked = k2;
        }
        if (gs->type != STANCE_MOTION_CLIP && !blend)
            st = st_fail(err, STANCE_ERR_VALUE, "graph: state '%s' is in sync group '%s' but plays a nested machine "
                         "(a group's members are clip states and blend spaces)", gs->name, name);
        else if (blend && marked < 0)
            st = st_fail(err, STANCE_ERR_VALUE, "graph: blend space state '%s' is in sync group '%s' but none of its "
                         "entries' clips has markers (give its clips \"markers\")", gs->name, name);
        else if (!blend && (s->state_clip[i] < 0 || s->clips[s->state_clip[i]].count == 0))
            st = st_fail(err, STANCE_ERR_VALUE, "graph: state '%s' is in sync group '%s' but its clip '%s' has no markers "
                         "(give the clip \"markers\")", gs->name, name, gs->clip->name);
        if (st) break;
    }
    for (int k = 0; k < s->group_count && !st; k++) {
        int count = 0, one = -1;
        for (int i = 0; i < S; i++)
            if (s->state_group[i] == k) count++, one = i;
        if (count < 2)
            st = st_fail(err, STANCE_ERR_VALUE, "graph: sync group '%s' has one member (state '%s'); a group needs two or "
                         "more states", s->groups[k], g->states[one].name);
    }
    if (st) gr_sync_destroy(g);
    return st;
}

void gr_sync_destroy(stance_graph *g) {
    if (!g || !g->sync) return;
    st_free(&g->allocator, g->sync, g->sync->bytes);
    g->sync = NULL;
}

/* ---- matching ------------------------------------------------------------------ */

/* the marker at or before t (across the loop: the last one) */
static int prev_marker(const g_marker *m, int n, float t) {
    int i = n - 1;
    for (int k = 0; k < n; k++) {
        if (m[k].time > t) break;
        i = k;
    }
    if (m[0].time > t) i = n - 1;
    return i;
}

/* the length from marker i to the next (across the loop), > 0 */
static float span_after(const g_marker *m, int n, int i, float dur) {
    float len = i + 1 < n ? m[i + 1].time - m[i].time : m[0].time + dur - m[i].time;
    return len > 0.0f ? len : dur > 0.0f ? dur : 1.0f;
}

static float wrap(float t, float dur) {
    if (!(dur > 0.0f)) return 0.0f;
    while (t >= dur) t -= dur;
    while (t < 0.0f) t += dur;
    return t;
}

int gr_sync_match(const g_sync *s, int lc, float lpos, int fc, float fpos, float *out, float spans[2]) {
    if (lc < 0 || fc < 0) return 0;
    const g_sclip *L = &s->clips[lc], *F = &s->clips[fc];
    if (!L->count || !F->count) return 0;
    const g_marker *lm = s->markers + L->first, *fm = s->markers + F->first;
    const float ld = L->clip->duration, fd = F->clip->duration;
    const int i = prev_marker(lm, L->count, lpos);
    const int a = lm[i].name, b = lm[(i + 1) % L->count].name;
    float since = lpos - lm[i].time;
    if (since < 0.0f) since += ld;
    float frac = since / span_after(lm, L->count, i, ld);
    frac = frac < 0.0f ? 0.0f : frac > 1.0f ? 1.0f : frac;
    /* the follower's pairs a -> b (else any marker a), the nearest to fpos */
    float best = 0.0f, best_d = 1e30f, best_span = 0.0f;
    int found = 0;
    for (int pass = 0; pass < 2 && !found; pass++) {
        for (int k = 0; k < F->count; k++) {
            if (fm[k].name != a || (pass == 0 && fm[(k + 1) % F->count].name != b)) continue;
            const float fs = span_after(fm, F->count, k, fd), t = wrap(fm[k].time + frac * fs, fd);
            float d = fabsf(t - fpos);
            if (fd - d < d) d = fd - d;
            if (d < best_d) best_d = d, best = t, best_span = fs, found = 1;
        }
    }
    if (found) *out = best;
    if (found && spans) spans[0] = span_after(lm, L->count, i, ld), spans[1] = best_span;
    return found;
}

/* ---- queries --------------------------------------------------------------------- */

int stance_graph_clip_markers(const stance_graph *g, const stance_clip *clip, stance_clip_marker *out, int cap) {
    const int i = g && clip && g->sync ? find_sclip(g->sync, clip) : -1;
    if (i < 0) return 0;
    const g_sclip *c = &g->sync->clips[i];
    for (int k = 0; out && k < c->count && k < cap; k++) {
        const g_marker *m = &g->sync->markers[c->first + k];
        out[k].name = g->sync->names[m->name], out[k].time = m->time;
    }
    return c->count;
}

float stance_graph_clip_speed(const stance_graph *g, const stance_clip *clip) {
    const int i = g && clip && g->sync ? find_sclip(g->sync, clip) : -1;
    return i < 0 ? 0.0f : g->sync->clips[i].speed;
}

const char *stance_graph_state_sync(const stance_graph *g, int state) {
    if (!g || !g->sync || state < 0 || state >= g->state_count) return NULL;
    const int k = g->sync->state_group[state];
    return k < 0 ? NULL : g->sync->groups[k];
}

int stance_graph_sync_clips(const stance_graph *g, const stance_clip **clips, int cap) {
    const int n = g && g->sync ? g->sync->clip_count : 0;
    for (int i = 0; clips && i < n && i < cap; i++) clips[i] = g->sync->clips[i].clip;
    return n;
}
