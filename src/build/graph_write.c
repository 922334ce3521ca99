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
    return w.pos;
}
