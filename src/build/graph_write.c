/* src/build/graph_write.c - the compiled-graph section (GRPH, format 2)
 * writer (libstance_build): a graph's arrays as they are laid out in
 * memory, walked through the one table of src/core/graph/graph_layout.h (which
 * also documents the bytes), clips as their index among the clips saved
 * with it, delta clips as exact CLIP sections. What it writes is what
 * src/core/load/graph_bind.c binds. */
#include <stdio.h>
#include <string.h>

#include "build/graph_build.h"
#include "build/write.h"
#include "core/graph/graph_layout.h"
#include "core/graph/graph_sync.h"

static int clip_at(const stance_clip *const *clips, int n, const stance_clip *c) {
    for (int i = 0; i < n; i++)
        if (clips[i] == c) return i;
    return -1;
}

static int delta_at(const stance_graph *g, const stance_clip *c) {
    for (int i = 0; i < g->delta_count; i++)
        if (g->deltas[i] == c) return i;
    return -1;
}

static stance_status missing(const char *who, const stance_clip *c, stance_error *err) {
    if (c && c->retarget)
        return st_fail(err, STANCE_ERR_UNSUPPORTED, "graph: %s plays clip '%s', retargeted at run time: a .stance file "
                       "cannot hold it as it is (stance_retarget_clip_bake makes an ordinary clip of it, as stance compile "
                       "does)", who, c->name);
    return st_fail(err, STANCE_ERR_ARGUMENT, "graph: %s plays clip '%s', which is not in the asset (the clips saved with it)", who,
                   c ? c->name : "(null)");
}

stance_status st_graph_section_check(const stance_graph *g, const stance_clip *const *clips, int n, stance_error *err) {
    char who[200];
    for (int s = 0; s < g->state_count; s++) {
        const g_state *gs = &g->states[s];
        snprintf(who, sizeof who, "state '%s/%s'", g->machines[gs->machine].name, gs->name);
        if (gs->type == STANCE_MOTION_CLIP && clip_at(clips, n, gs->clip) < 0) return missing(who, gs->clip, err);
        for (int e = 0; (gs->type == STANCE_MOTION_BLEND1D || gs->type == STANCE_MOTION_BLEND2D) && e < gs->entry_count; e++)
            if (clip_at(clips, n, g->entries[gs->entry_first + e].clip) < 0)
                return missing(who, g->entries[gs->entry_first + e].clip, err);
    }
    for (int l = 0; l < g->layer_count; l++)
        if (g->layers[l].ref_clip && clip_at(clips, n, g->layers[l].ref_clip) < 0) {
            snprintf(who, sizeof who, "layer '%s' (its reference)", g->layers[l].name);
            return missing(who, g->layers[l].ref_clip, err);
        }
    for (int c = 0; c < g->ik_clip_count; c++)
        if (clip_at(clips, n, g->ik_clips[c]) < 0) return missing("the ik stage", g->ik_clips[c], err);
    return STANCE_OK;
}

static void write_record(writer *w, const gl_row *row, const unsigned char *elem, const stance_graph *g,
                         const stance_clip *const *clips, int n) {
    for (int fi = 0; fi < row->field_count; fi++) {
        const gl_field *f = &row->fields[fi];
        const unsigned char *src = elem + f->at;
        if (f->kind == GL_NAME) {
            char name[G_NAME];
            memset(name, 0, sizeof name);
            const unsigned char *z = memchr(src, 0, G_NAME - 1);
            memcpy(name, src, z ? (size_t)(z - src) : G_NAME - 1);
            w_bytes(w, name, G_NAME);
        } else if (f->kind == GL_U64) {
            uint64_t v;
            memcpy(&v, src, 8);
            w_u64(w, v);
        } else if (f->kind == GL_CLIP || f->kind == GL_DELTA) {
            const stance_clip *c;
            memcpy(&c, src, sizeof c);
            w_u32(w, (uint32_t)(!c ? -1 : f->kind == GL_CLIP ? clip_at(clips, n, c) : delta_at(g, c)));
        } else {
            for (int k = 0; k < f->n; k++) {
                uint32_t v;
                memcpy(&v, src + 4 * (size_t)k, 4); /* an int or a float, as it is */
                w_u32(w, v);
            }
        }
    }
}

static void write_contacts(writer *w, const stance_contacts *c) {
    w_u32(w, c != NULL);
    if (!c) return;
    const size_t n = (size_t)c->foot_count * (size_t)c->sample_count;
    w_u32(w, (uint32_t)c->foot_count);
    for (int f = 0; f < STANCE_FOOT_MAX; f++) w_u32(w, (uint32_t)c->feet[f]);
    w_f32(w, c->duration);
    w_f32(w, c->rate);
    w_u32(w, (uint32_t)c->sample_count);
    w_u32(w, (uint32_t)c->from_events);
    for (int f = 0; f < STANCE_FOOT_MAX; f++) w_f32(w, c->lowest[f]);
    w_bytes(w, c->planted, n);
    for (size_t k = 0; k < n; k++) w_f32(w, c->height[k]);
}

/* The sync groups and clip markers (src/core/graph/graph_sync.h): a
 * trailer after the arrays and before the notes', "SYNC" and its byte
 * count, then the group count, each group's name[64], the state count and
 * per state its group (-1 none), the clip count and per clip its index,
 * speed, marker count and markers (name[32], time); a graph without any
 * has none, as before. */
static void write_sync(writer *w, const stance_graph *g, const stance_clip *const *clips, int n) {
    const g_sync *s = g->sync;
    if (!s) return;
    w_bytes(w, "SYNC", 4);
    const size_t size_at = w->pos;
    w_u32(w, 0);
    const size_t start = w->pos;
    w_u32(w, (uint32_t)s->group_count);
    for (int k = 0; k < s->group_count; k++) w_bytes(w, s->groups[k], G_NAME);
    w_u32(w, (uint32_t)g->state_count);
    for (int i = 0; i < g->state_count; i++) w_u32(w, (uint32_t)s->state_group[i]);
    w_u32(w, (uint32_t)s->clip_count);
    for (int c = 0; c < s->clip_count; c++) {
        const g_sclip *sc = &s->clips[c];
        w_u32(w, (uint32_t)clip_at(clips, n, sc->clip));
        w_f32(w, sc->speed);
        w_u32(w, (uint32_t)sc->count);
        for (int k = 0; k < sc->count; k++) {
            const g_marker *m = &s->markers[sc->first + k];
            w_bytes(w, s->names[m->name], STANCE_EVENT_NAME);
            w_f32(w, m->time);
        }
    }
    if (w->buf) {
        writer patch = {w->buf, size_at};
        w_u32(&patch, (uint32_t)(w->pos - start));
    }
}

size_t st_graph_section_write(const stance_graph *g, const stance_clip *const *clips, int n, unsigned char *out) {
    writer w = {out, 0};
    const int J = g->skeleton->joint_count, pc = st_pad8(J);
    w_u32(&w, GL_FORMAT);
    w_u32(&w, (uint32_t)J);
    w_u32(&w, GL_ROWS);
    for (int i = 0; i < GL_ROWS; i++) {
        const gl_row *row = &gl_rows[i];
        const int count = row->count(g);
        w_bytes(&w, row->tag, 4);
        w_u32(&w, (uint32_t)count);
        const size_t size_at = w.pos;
        w_u32(&w, 0); /* the payload's bytes, patched below */
        const size_t start = w.pos;
        const unsigned char *base = (const unsigned char *)g;
        if (row->base != GL_SELF) memcpy(&base, (const unsigned char *)g + row->base, sizeof base);
        for (int k = 0; k < count; k++) {
            if (row->kind == GL_RECORDS) {
                write_record(&w, row, base + row->elem * (size_t)k, g, clips, n);
            } else if (row->kind == GL_POSES) {
                const stance_pose *p = &g->ref_poses[k];
                const float *ch[10] = {p->tx, p->ty, p->tz, p->qx, p->qy, p->qz, p->qw, p->sx, p->sy, p->sz};
                for (int c = 0; c < 10; c++)
                    for (int j = 0; j < pc; j++) w_f32(&w, ch[c][j]);
            } else if (row->kind == GL_DELTAS) {
                st_write_clip(&w, g->deltas[k]);
            } else {
                write_contacts(&w, g->contacts[k]);
            }
        }
        if (w.buf) {
            writer patch = {w.buf, size_at};
            w_u32(&patch, (uint32_t)(w.pos - start));
        }
    }
    write_sync(&w, g, clips, n);
    gb_write_curves(&w, g, clips, n); /* curves and drives: "CURV" (graph_curves_build.c), when any */
    /* blend spaces whose events are "all" (docs/events.md): "BEVT", its byte
     * size, the count and each state's index; a graph without any has none */
    uint32_t nall = 0;
    for (int i = 0; g->blend_all && i < g->state_count; i++) nall += g->blend_all[i] != 0;
    if (nall) {
        w_bytes(&w, "BEVT", 4);
        w_u32(&w, 4 + 4 * nall);
        w_u32(&w, nall);
        for (int i = 0; i < g->state_count; i++)
            if (g->blend_all[i]) w_u32(&w, (uint32_t)i);
    }
    /* the clip notes a graph file authored: a trailer after the arrays,
     * "NOTE", the count of clips, per clip its index, event and window
     * counts, each event (name[32], time, min_weight, payload flags, int,
     * float, string[32]) and window (name[32], from, to, min_weight); a graph
     * without any ends with its arrays, as before */
    uint32_t metas = 0;
    for (int i = 0; i < g->meta_count; i++) /* (an "all" blend space's merged notes are derived again) */
        metas += !g->metas[i].merged && (g->metas[i].auth_count > 0 || g->metas[i].win_count > 0);
    if (metas) {
        w_bytes(&w, "NOTE", 4);
        w_u32(&w, metas);
        for (int i = 0; i < g->meta_count; i++) {
            const g_meta *m = &g->metas[i];
            if (m->merged || (!m->auth_count && !m->win_count)) continue;
            w_u32(&w, (uint32_t)clip_at(clips, n, m->clip));
            w_u32(&w, (uint32_t)m->auth_count);
            w_u32(&w, (uint32_t)m->win_count);
            for (int k = 0; k < m->auth_count; k++) {
                const g_authored *a = &g->authored[m->auth_first + k];
                w_bytes(&w, a->name, STANCE_EVENT_NAME);
                w_f32(&w, a->time);
                w_f32(&w, a->min_weight);
                w_u32(&w, a->payload.flags);
                w_u32(&w, (uint32_t)a->payload.i);
                w_f32(&w, a->payload.f);
                w_bytes(&w, a->payload.s, sizeof a->payload.s);
            }
            for (int k = 0; k < m->win_count; k++) {
                const g_window *wi = &g->windows[m->win_first + k];
                w_bytes(&w, wi->name, STANCE_EVENT_NAME);
                w_f32(&w, wi->from);
                w_f32(&w, wi->to);
                w_f32(&w, wi->min_weight);
            }
        }
    }
    return w.pos;
}
