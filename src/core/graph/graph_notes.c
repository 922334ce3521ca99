/* src/core/graph/graph_notes.c - a graph's clip notes: the events and windows
 * a graph file (or a description) authors for the clips its states play,
 * merged with each clip's own events into the sorted list of points the
 * playback crosses (g_meta, g_note: core/graph/graph_internal.h); built once
 * by the builder and by the binder of a compiled graph (the same function,
 * so both give the same graph), and their queries. The instance's side (what
 * fires, windows opening and closing) is core/frame/notes.c. */
#include <stdio.h>
#include <string.h>

#include "core/base/internal.h"
#include "core/graph/graph_internal.h"

static int name_ok(const char *n) {
    const char *z = memchr(n, 0, STANCE_EVENT_NAME);
    return z && z != n;
}

/* The payload as stored: absent fields zero, the string's tail zero (so two
 * graphs of the same notes are the same bytes). */
static stance_status payload_ok(const stance_event_payload *in, stance_event_payload *out, const char *who,
                                stance_error *err) {
    memset(out, 0, sizeof *out);
    if (in->flags & ~(STANCE_PAYLOAD_INT | STANCE_PAYLOAD_FLOAT | STANCE_PAYLOAD_STRING))
        return st_fail(err, STANCE_ERR_VALUE, "%s: payload flags 0x%x name an unknown type (int 1, float 2, string 4)", who,
                       in->flags);
    out->flags = in->flags;
    if (in->flags & STANCE_PAYLOAD_INT) out->i = in->i;
    if (in->flags & STANCE_PAYLOAD_FLOAT) {
        if (!st_finite(in->f)) return st_fail(err, STANCE_ERR_VALUE, "%s: the payload's float is not finite", who);
        out->f = in->f;
    }
    if (in->flags & STANCE_PAYLOAD_STRING) {
        const char *z = memchr(in->s, 0, sizeof in->s);
        if (!z)
            return st_fail(err, STANCE_ERR_VALUE, "%s: the payload's string has no end within %d bytes", who,
                           STANCE_PAYLOAD_STRING_MAX);
        memcpy(out->s, in->s, (size_t)(z - in->s));
    }
    return STANCE_OK;
}

static int note_rank(int kind) { return kind == G_NOTE_END ? 0 : kind == G_NOTE_EVENT ? 1 : 2; }

/* sorted by time; at one time: ends, events (in list order), begins */
static int note_before(const g_note *a, const g_note *b) {
    if (a->time != b->time) return a->time < b->time;
    if (note_rank(a->kind) != note_rank(b->kind)) return note_rank(a->kind) < note_rank(b->kind);
    return a->index < b->index;
}

static const gr_notes_src *src_of(const gr_notes_src *src, int n, const stance_clip *c) {
    for (int i = 0; i < n; i++)
        if (src[i].clip == c) return &src[i];
    return NULL;
}

static int meta_of(const stance_graph *g, const stance_clip *c) {
    for (int i = 0; i < g->meta_count; i++)
        if (g->metas[i].clip == c && !g->metas[i].merged) return i;
    return -1;
}

static int blend_type(stance_motion_type t) { return t == STANCE_MOTION_BLEND1D || t == STANCE_MOTION_BLEND2D; }

stance_status gr_notes_blend_all(stance_graph *g, const unsigned char *all, stance_error *err) {
    g->blend_all = NULL;
    int any = 0;
    for (int i = 0; all && i < g->state_count; i++) {
        if (all[i] > 1)
            return st_fail(err, STANCE_ERR_VALUE, "graph: state '%s': blend_events %d is not 0 (dominant) or 1 (all)",
                           g->states[i].name, all[i]);
        if (all[i] && !blend_type(g->states[i].type))
            return st_fail(err, STANCE_ERR_VALUE, "graph: state '%s' is not a blend space: blend_events \"all\" is a blend "
                           "space's choice", g->states[i].name);
        any |= all[i];
    }
    if (!any) return STANCE_OK;
    g->blend_all = st_alloc(&g->allocator, (size_t)g->state_count, 16);
    if (!g->blend_all) return st_fail(err, STANCE_ERR_MEMORY, "graph: allocation of %d bytes failed", g->state_count);
    memcpy(g->blend_all, all, (size_t)g->state_count);
    return STANCE_OK;
}

/* The notes of entry k of blend space st whose events are "all": its own
 * clip's (meta `own`, -1 none) and every other entry's events, at the same
 * phase in its clip's seconds, into out (NULL: only counted). */
static int merged_notes(const stance_graph *g, const g_state *st, int k, int own, g_note *out) {
    const float D = g->entries[st->entry_first + k].clip->duration;
    int cnt = 0;
    if (own >= 0)
        for (int i = 0; i < g->metas[own].note_count; i++, cnt++)
            if (out) out[cnt] = g->notes[g->metas[own].note_first + i];
    for (int j = 0; j < st->entry_count; j++) {
        const int mj = j == k ? -1 : meta_of(g, g->entries[st->entry_first + j].clip);
        if (mj < 0) continue;
        const float Dj = g->metas[mj].clip->duration;
        for (int i = 0; i < g->metas[mj].note_count; i++) {
            const g_note *n = &g->notes[g->metas[mj].note_first + i];
            if (n->kind != G_NOTE_EVENT) continue;
            if (out) {
                float t = Dj > 0.0f ? n->time / Dj * D : 0.0f;
                out[cnt] = (g_note){t < D ? t : D, n->min_weight, G_NOTE_EVENT, G_NOTE_OTHER * (j + 1) + n->index};
            }
            cnt++;
        }
    }
    return cnt;
}

stance_status gr_notes_build(stance_graph *g, const gr_notes_src *src, int n, stance_error *err) {
    const int clips = stance_graph_clips(g, NULL, 0);
    const size_t tb = sizeof(const stance_clip *) * (size_t)(clips + 1);
    const stance_clip **played = st_alloc(&g->allocator, tb, sizeof(void *));
    if (!played) return st_fail(err, STANCE_ERR_MEMORY, "graph: allocation of %zu bytes failed", tb);
    stance_graph_clips(g, played, clips);
    char who[120];
    stance_status s = STANCE_OK;
    int metas = 0, notes = 0, auth = 0, wins = 0;
    for (int i = 0; i < n && !s; i++) { /* every authored value, played or not */
        const gr_notes_src *r = &src[i];
        snprintf(who, sizeof who, "clip notes %d", i);
        if (!r->clip || r->event_count < 0 || r->window_count < 0 || (r->event_count && !r->events) ||
            (r->window_count && !r->windows)) {
            s = st_fail(err, STANCE_ERR_ARGUMENT, "%s: clip is NULL, or a count is negative or has no array", who);
            break;
        }
        const float D = r->clip->duration;
        snprintf(who, sizeof who, "clip '%s' notes", r->clip->name);
        for (int k = 0; k < i && !s; k++)
            if (src[k].clip == r->clip) s = st_fail(err, STANCE_ERR_ARGUMENT, "%s: given twice", who);
        if (!s && r->event_count + r->clip->event_count > STANCE_MAX_EVENTS)
            s = st_fail(err, STANCE_ERR_VALUE, "%s: %d events with the clip's own %d, more than %d", who, r->event_count,
                        r->clip->event_count, STANCE_MAX_EVENTS);
        if (!s && r->window_count > STANCE_MAX_WINDOWS)
            s = st_fail(err, STANCE_ERR_VALUE, "%s: %d windows, more than %d", who, r->window_count, STANCE_MAX_WINDOWS);
        for (int k = 0; k < r->event_count && !s; k++) {
            const g_authored *e = &r->events[k];
            stance_event_payload pl;
            if (!name_ok(e->name)) s = st_fail(err, STANCE_ERR_VALUE, "%s: event %d: the name is empty or over 31 bytes", who, k);
            else if (!(e->time >= 0.0f && e->time <= D))
                s = st_fail(err, STANCE_ERR_VALUE, "%s: event '%s' at %g s is outside the clip (0..%g s)", who, e->name,
                            (double)e->time, (double)D);
            else if (!(e->min_weight >= 0.0f && e->min_weight <= 1.0f))
                s = st_fail(err, STANCE_ERR_VALUE, "%s: event '%s': min_weight %g is not in [0, 1]", who, e->name,
                            (double)e->min_weight);
            else s = payload_ok(&e->payload, &pl, who, err);
        }
        for (int k = 0; k < r->window_count && !s; k++) {
            const g_window *w = &r->windows[k];
            if (!name_ok(w->name)) s = st_fail(err, STANCE_ERR_VALUE, "%s: window %d: the name is empty or over 31 bytes", who, k);
            else if (!(w->from >= 0.0f && w->from <= w->to && w->to <= D))
                s = st_fail(err, STANCE_ERR_VALUE, "%s: window '%s' from %g to %g s is not 0 <= from <= to <= %g s", who,
                            w->name, (double)w->from, (double)w->to, (double)D);
            else if (!(w->min_weight >= 0.0f && w->min_weight <= 1.0f))
                s = st_fail(err, STANCE_ERR_VALUE, "%s: window '%s': min_weight %g is not in [0, 1]", who, w->name,
                            (double)w->min_weight);
        }
    }
    for (int c = 0; c < clips && !s; c++) {
        const gr_notes_src *r = src_of(src, n, played[c]);
        const int a = r ? r->event_count : 0, w = r ? r->window_count : 0, e = played[c]->event_count;
        if (e + a + w == 0) continue;
        metas++, notes += e + a + 2 * w, auth += a, wins += w;
    }
    g->meta_count = 0, g->metas = NULL;
    /* the merged notes of "all" blend spaces' entries come after the clips' own: each entry's clip's notes
     * and the other entries' clips' events */
    const int own_metas = metas;
    for (int i = 0; i < g->state_count && g->blend_all && !s && own_metas > 0; i++) {
        if (!g->blend_all[i]) continue;
        const g_state *st = &g->states[i];
        for (int k = 0; k < st->entry_count; k++) {
            metas++;
            for (int j = 0; j < st->entry_count; j++) {
                const stance_clip *cj = g->entries[st->entry_first + j].clip;
                const gr_notes_src *r = src_of(src, n, cj);
                const int a = r ? r->event_count : 0, w = r ? r->window_count : 0;
                notes += cj->event_count + a + (j == k ? 2 * w : 0);
            }
        }
    }
    if (!s && metas > 0) {
        const size_t b_meta = st_align_up(sizeof(g_meta) * (size_t)metas, 16);
        const size_t b_note = st_align_up(sizeof(g_note) * (size_t)notes, 16);
        const size_t b_auth = st_align_up(sizeof(g_authored) * (size_t)auth, 16);
        const size_t bytes = b_meta + b_note + b_auth + sizeof(g_window) * (size_t)wins + 16;
        unsigned char *mem = st_alloc(&g->allocator, bytes, 16);
        if (!mem) {
            s = st_fail(err, STANCE_ERR_MEMORY, "graph: allocation of %zu bytes failed", bytes);
        } else {
            g->notes_bytes = bytes;
            g->metas = (g_meta *)mem;
            g->notes = (g_note *)(mem + b_meta);
            g->authored = (g_authored *)(mem + b_meta + b_note);
            g->windows = (g_window *)(mem + b_meta + b_note + b_auth);
            g->note_count = g->authored_count = g->window_count = 0;
            for (int c = 0; c < clips; c++) {
                const stance_clip *cl = played[c];
                const gr_notes_src *r = src_of(src, n, cl);
                const int a = r ? r->event_count : 0, w = r ? r->window_count : 0, e = cl->event_count;
                if (e + a + w == 0) continue;
                g_meta *m = &g->metas[g->meta_count++];
                m->clip = cl;
                m->auth_first = g->authored_count, m->auth_count = a;
                m->win_first = g->window_count, m->win_count = w;
                m->note_first = g->note_count, m->note_count = e + a + 2 * w;
                m->whole = 0, m->merged = 0;
                g_authored *au = g->authored + m->auth_first;
                for (int k = 0; k < a; k++) { /* insertion by time, stable */
                    g_authored v;
                    memset(&v, 0, sizeof v);
                    memcpy(v.name, r->events[k].name, strlen(r->events[k].name));
                    v.time = r->events[k].time, v.min_weight = r->events[k].min_weight;
                    payload_ok(&r->events[k].payload, &v.payload, "", NULL);
                    int j = k;
                    while (j > 0 && au[j - 1].time > v.time) au[j] = au[j - 1], j--;
                    au[j] = v;
                }
                g_window *wi = g->windows + m->win_first;
                for (int k = 0; k < w; k++) {
                    memset(&wi[k], 0, sizeof wi[k]);
                    memcpy(wi[k].name, r->windows[k].name, strlen(r->windows[k].name));
                    wi[k].from = r->windows[k].from, wi[k].to = r->windows[k].to, wi[k].min_weight = r->windows[k].min_weight;
                    if (wi[k].from <= 0.0f && wi[k].to >= cl->duration) m->whole |= 1u << k;
                }
                g_note *no = g->notes + m->note_first;
                int cnt = 0;
                for (int k = 0; k < e; k++) no[cnt++] = (g_note){cl->events[k].time, 0.0f, G_NOTE_EVENT, k};
                for (int k = 0; k < a; k++) no[cnt++] = (g_note){au[k].time, au[k].min_weight, G_NOTE_EVENT, e + k};
                for (int k = 0; k < w; k++) {
                    no[cnt++] = (g_note){wi[k].from, wi[k].min_weight, G_NOTE_BEGIN, k};
                    no[cnt++] = (g_note){wi[k].to, wi[k].min_weight, G_NOTE_END, k};
                }
                for (int k = 1; k < cnt; k++) {
                    g_note v = no[k];
                    int j = k;
                    while (j > 0 && note_before(&v, &no[j - 1])) no[j] = no[j - 1], j--;
                    no[j] = v;
                }
                g->note_count += cnt, g->authored_count += a, g->window_count += w;
            }
            for (int i = 0; i < g->state_count && g->blend_all && own_metas > 0; i++) {
                if (!g->blend_all[i]) continue;
                const g_state *st = &g->states[i];
                for (int k = 0; k < st->entry_count; k++) {
                    const int own = meta_of(g, g->entries[st->entry_first + k].clip);
                    g_meta *m = &g->metas[g->meta_count];
                    if (own >= 0) *m = g->metas[own];
                    else memset(m, 0, sizeof *m), m->clip = g->entries[st->entry_first + k].clip;
                    m->merged = 1;
                    m->note_first = g->note_count;
                    g_note *no = g->notes + m->note_first;
                    m->note_count = merged_notes(g, st, k, own, no);
                    for (int a = 1; a < m->note_count; a++) {
                        g_note v = no[a];
                        int j = a;
                        while (j > 0 && note_before(&v, &no[j - 1])) no[j] = no[j - 1], j--;
                        no[j] = v;
                    }
                    g->note_count += m->note_count;
                    g->meta_count++;
                }
            }
        }
    }
    st_free(&g->allocator, played, tb);
    for (int i = 0; i < g->state_count; i++) {
        g_state *st = &g->states[i];
        st->meta = st->type == STANCE_MOTION_CLIP && !s ? meta_of(g, st->clip) : -1;
        for (int k = 0; k < st->entry_count; k++) {
            g_entry *en = &g->entries[st->entry_first + k];
            en->meta = s ? -1 : meta_of(g, en->clip);
        }
    }
    for (int i = 0, at = 0; !s && g->metas && g->blend_all && i < g->state_count; i++) { /* "all" entries: their merged notes */
        if (!g->blend_all[i]) continue;
        const g_state *st = &g->states[i];
        while (at < g->meta_count && !g->metas[at].merged) at++;
        for (int k = 0; k < st->entry_count && at < g->meta_count; k++, at++) g->entries[st->entry_first + k].meta = at;
    }
    return s;
}

void gr_notes_destroy(stance_graph *g) {
    if (g && g->blend_all) st_free(&g->allocator, g->blend_all, (size_t)g->state_count), g->blend_all = NULL;
    if (!g || !g->metas) return;
    st_free(&g->allocator, g->metas, g->notes_bytes);
    g->metas = NULL, g->meta_count = 0;
}

int stance_graph_clip_events(const stance_graph *g, const stance_clip *clip, stance_clip_note *out, int cap) {
    const int mi = g && clip ? meta_of(g, clip) : -1;
    if (mi < 0) return 0;
    const g_meta *m = &g->metas[mi];
    const int E = clip->event_count, total = E + m->auth_count;
    for (int i = 0; out && i < total && i < cap; i++) {
        stance_clip_note *o = &out[i];
        memset(o, 0, sizeof *o);
        if (i < E) {
            o->name = clip->events[i].name, o->time = clip->events[i].time;
        } else {
            const g_authored *a = &g->authored[m->auth_first + i - E];
            o->name = a->name, o->time = a->time, o->min_weight = a->min_weight, o->authored = 1;
            o->payload = a->payload.flags ? &a->payload : NULL;
        }
    }
    return total;
}

int stance_graph_clip_windows(const stance_graph *g, const stance_clip *clip, stance_clip_window *out, int cap) {
    const int mi = g && clip ? meta_of(g, clip) : -1;
    if (mi < 0) return 0;
    const g_meta *m = &g->metas[mi];
    for (int i = 0; out && i < m->win_count && i < cap; i++) {
        const g_window *w = &g->windows[m->win_first + i];
        out[i].name = w->name, out[i].from = w->from, out[i].to = w->to, out[i].min_weight = w->min_weight;
    }
    return m->win_count;
}
