/* src/build/graph_curves_build.c - the builder's side of curves and drives
 * (libstance_build): a description's curves (stance_curve_desc, named per
 * clip) and drives (stance_drive_desc, by name) resolved into ids and
 * indices for core/graph/graph_curves.c, which checks and keeps them; and
 * the "CURV" trailer of the compiled graph that carries them
 * (docs/build.md; core/load/curves_bind.c reads it back). */
#include <stdio.h>
#include <string.h>

#include "build/graph_build.h"
#include "build/write.h"
#include "core/base/internal.h"
#include "core/base/names.h"
#include "core/graph/graph_curves.h"

#define FAIL(st, ...) return st_fail(err, st, __VA_ARGS__)

typedef struct names_set {
    char (*names)[G_NAME];
    int count;
} names_set;

static const char *set_at(const void *set, int i) { return ((const names_set *)set)->names[i]; }

static int find_name(const names_set *ns, const char *n) {
    for (int i = 0; i < ns->count; i++)
        if (!strcmp(ns->names[i], n)) return i;
    return -1;
}

static stance_status resolve_drive(const stance_graph *g, const stance_drive_desc *d, int i, const names_set *ns, g_drive *o,
                                   stance_error *err) {
    static const char *const what[] = {"parameter", "layer", "IK entry"};
    if ((unsigned)d->target > STANCE_DRIVE_IK_WEIGHT) FAIL(STANCE_ERR_ARGUMENT, "graph: drive %d: unknown target %d", i, (int)d->target);
    if (!d->name) FAIL(STANCE_ERR_ARGUMENT, "graph: drive %d: the %s's name is NULL", i, what[d->target]);
    if (!d->param == !d->curve) FAIL(STANCE_ERR_ARGUMENT, "graph: drive %d ('%s'): give param or curve (one of them)", i, d->name);
    o->target = (int)d->target;
    o->index = d->target == STANCE_DRIVE_PARAM ? stance_graph_find_param(g, d->name)
             : d->target == STANCE_DRIVE_LAYER_WEIGHT ? stance_graph_find_layer(g, d->name)
                                                      : stance_graph_find_ik(g, d->name);
    if (o->index < 0) FAIL(STANCE_ERR_NOT_FOUND, "graph: drive %d: unknown %s '%.63s'", i, what[d->target], d->name);
    o->src_param = o->src_curve = -1;
    if (d->param) {
        o->src_param = stance_graph_find_param(g, d->param);
        if (o->src_param < 0)
            FAIL(STANCE_ERR_NOT_FOUND, "graph: drive of %s '%s': unknown parameter '%.63s' (did you mean '%s'?)", what[d->target],
                 d->name, d->param, stance_graph_closest_param(g, d->param));
    } else {
        o->src_curve = find_name(ns, d->curve);
        if (o->src_curve < 0) {
            char hint[160];
            st_suggest(hint, sizeof hint, d->curve, set_at, ns, ns->count);
            FAIL(STANCE_ERR_NOT_FOUND, "graph: drive of %s '%s': unknown curve '%.63s'%s", what[d->target], d->name, d->curve, hint);
        }
    }
    return STANCE_OK;
}

stance_status gb_build_curves(stance_graph *g, const stance_graph_desc *d, stance_error *err) {
    const int n = d->curve_count, nd = d->drive_count;
    if (n < 0 || nd < 0 || (n && !d->curves) || (nd && !d->drives))
        FAIL(STANCE_ERR_ARGUMENT, "graph: curve_count %d or drive_count %d without its array", n, nd);
    if (n == 0 && nd == 0) return STANCE_OK;
    const size_t bytes = (size_t)G_NAME * (size_t)(n + 1) + sizeof(gr_track_src) * (size_t)(n + 1) + sizeof(g_drive) * (size_t)(nd + 1);
    unsigned char *mem = st_alloc(&g->allocator, bytes, 16);
    if (!mem) FAIL(STANCE_ERR_MEMORY, "graph: allocation of %zu bytes failed", bytes);
    names_set ns = {(char(*)[G_NAME])mem, 0};
    gr_track_src *tr = (gr_track_src *)(mem + (size_t)G_NAME * (size_t)(n + 1));
    g_drive *dr = (g_drive *)(tr + n + 1);
    stance_status s = STANCE_OK;
    for (int i = 0; i < n && !s; i++) {
        const stance_curve_desc *c = &d->curves[i];
        if (!c->name || !c->name[0] || strlen(c->name) >= G_NAME) {
            s = st_fail(err, STANCE_ERR_VALUE, "graph: curve %d: the name is NULL, empty or over %d bytes", i, G_NAME - 1);
            break;
        }
        int id = find_name(&ns, c->name);
        if (id < 0) {
            if (ns.count == STANCE_MAX_CURVES) {
                s = st_fail(err, STANCE_ERR_VALUE, "graph: more than %d curve names", STANCE_MAX_CURVES);
                break;
            }
            id = ns.count++;
            memcpy(ns.names[id], c->name, strlen(c->name) + 1);
        }
        tr[i].clip = c->clip, tr[i].curve = id, tr[i].key_count = c->key_count, tr[i].keys = c->keys;
    }
    for (int i = 0; i < nd && !s; i++) s = resolve_drive(g, &d->drives[i], i, &ns, &dr[i], err);
    if (!s) s = gr_curves_build(g, (const char(*)[G_NAME])ns.names, ns.count, tr, n, dr, nd, err);
    st_free(&g->allocator, mem, bytes);
    return s;
}

static int index_of(const stance_clip *const *clips, int n, const stance_clip *c) {
    for (int i = 0; i < n; i++)
        if (clips[i] == c) return i;
    return -1;
}

/* "CURV", the body's bytes, then: curve count, names (64 bytes each); track
 * count, per track clip index, curve id, key count and keys (time, value
 * f32 pairs); drive count, per drive target, index, source parameter and
 * source curve (i32, -1 none). Nothing for a graph without curves. */
void gb_write_curves(writer *w, const stance_graph *g, const stance_clip *const *clips, int n) {
    const g_curves *cv = g->curves;
    if (!cv) return;
    w_bytes(w, "CURV", 4);
    const size_t size_at = w->pos;
    w_u32(w, 0);
    const size_t start = w->pos;
    w_u32(w, (uint32_t)cv->curve_count);
    for (int i = 0; i < cv->curve_count; i++) {
        char name[G_NAME];
        memset(name, 0, sizeof name);
        memcpy(name, cv->names[i], strlen(cv->names[i]));
        w_bytes(w, name, G_NAME);
    }
    w_u32(w, (uint32_t)cv->track_count);
    for (int i = 0; i < cv->track_count; i++) {
        const g_track *t = &cv->tracks[i];
        w_u32(w, (uint32_t)index_of(clips, n, t->clip));
        w_u32(w, (uint32_t)t->curve);
        w_u32(w, (uint32_t)t->key_count);
        for (int k = 0; k < 2 * t->key_count; k++) w_f32(w, cv->keys[2 * (size_t)t->key_first + (size_t)k]);
    }
    w_u32(w, (uint32_t)cv->drive_count);
    for (int i = 0; i < cv->drive_count; i++) {
        const g_drive *d = &cv->drives[i];
        w_u32(w, (uint32_t)d->target), w_u32(w, (uint32_t)d->index);
        w_u32(w, (uint32_t)d->src_param), w_u32(w, (uint32_t)d->src_curve);
    }
    if (w->buf) {
        writer patch = {w->buf, size_at};
        w_u32(&patch, (uint32_t)(w->pos - start));
    }
}
