/* src/core/graph/graph_curves.c - a graph's curves and drives
 * (graph_curves.h): checked and laid out once, by the builder from a
 * description and by the binder from a compiled graph's "CURV" trailer (the
 * same function, so both give the same graph), and the graph's queries of
 * them (stance/graph.h). What an instance reads from them is
 * core/frame/curves.c. */
#include <stdio.h>
#include <string.h>

#include "core/base/internal.h"
#include "core/base/names.h"
#include "core/graph/graph_curves.h"
#include "stance/graph_query.h"

#define FAILV(...) return st_fail(err, STANCE_ERR_VALUE, __VA_ARGS__)

static int played(const stance_clip *const *clips, int n, const stance_clip *c) {
    for (int i = 0; i < n; i++)
        if (clips[i] == c) return 1;
    return 0;
}

static stance_status check_track(const gr_track_src *t, int i, int name_count, const char (*names)[G_NAME],
                                 stance_error *err) {
    if (!t->clip || t->curve < 0 || t->curve >= name_count || !t->keys)
        return st_fail(err, STANCE_ERR_ARGUMENT, "graph: curve track %d: NULL clip or keys, or curve %d not in 0..%d", i,
                       t->curve, name_count - 1);
    const char *cn = names[t->curve], *cl = t->clip->name;
    if (t->key_count < 1 || t->key_count > STANCE_MAX_CURVE_KEYS)
        FAILV("graph: clip '%s' curve '%s': %d keys, expected 1..%d", cl, cn, t->key_count, STANCE_MAX_CURVE_KEYS);
    const float D = t->clip->duration;
    for (int k = 0; k < t->key_count; k++) {
        const float tk = t->keys[2 * k], v = t->keys[2 * k + 1];
        if (!st_finite(tk) || !st_finite(v)) FAILV("graph: clip '%s' curve '%s': key %d is not finite", cl, cn, k);
        if (!(tk >= 0.0f && tk <= D))
            FAILV("graph: clip '%s' curve '%s': key %d at %g s is outside the clip (0..%g s)", cl, cn, k, (double)tk, (double)D);
        if (k > 0 && !(tk > t->keys[2 * k - 2]))
            FAILV("graph: clip '%s' curve '%s': key %d at %g s is not after key %d (%g s): times must increase", cl, cn, k,
                  (double)tk, k - 1, (double)t->keys[2 * k - 2]);
    }
    return STANCE_OK;
}

static stance_status check_drive(const stance_graph *g, const g_drive *d, int i, int name_count, const g_drive *all,
                                 stance_error *err) {
    static const char *const what[] = {"parameter", "layer", "IK entry"};
    if (d->target < STANCE_DRIVE_PARAM || d->target > STANCE_DRIVE_IK_WEIGHT)
        return st_fail(err, STANCE_ERR_ARGUMENT, "graph: drive %d: unknown target kind %d", i, d->target);
    const int n = d->target == STANCE_DRIVE_PARAM ? g->param_count : d->target == STANCE_DRIVE_LAYER_WEIGHT ? g->layer_count
                                                                                                            : g->ik_count;
    if (d->index < 0 || d->index >= n) FAILV("graph: drive %d: %s %d is not in 0..%d", i, what[d->target], d->index, n - 1);
    if ((d->src_param >= 0) == (d->src_curve >= 0))
        return st_fail(err, STANCE_ERR_ARGUMENT, "graph: drive %d: give a source parameter or a curve (one of them)", i);
    if (d->src_curve >= name_count) FAILV("graph: drive %d: curve %d is not in 0..%d", i, d->src_curve, name_count - 1);
    if (d->src_param >= g->param_count) FAILV("graph: drive %d: parameter %d is not in 0..%d", i, d->src_param, g->param_count - 1);
    if (d->src_param >= 0 && g->params[d->src_param].type != STANCE_PARAM_FLOAT && g->params[d->src_param].type != STANCE_PARAM_INT)
        FAILV("graph: drive %d: parameter '%s' is not a float or int", i, g->params[d->src_param].name);
    for (int k = 0; k < i; k++)
        if (all[k].target == d->target && all[k].index == d->index) FAILV("graph: drive %d: its %s %d is driven twice", i, what[d->target], d->index);
    if (d->target == STANCE_DRIVE_PARAM) {
        const g_param *p = &g->params[d->index];
        if (d->src_curve < 0) FAILV("graph: drive %d: parameter '%s' can follow a curve only", i, p->name);
        if (p->type != STANCE_PARAM_FLOAT || p->damping > 0.0f)
            FAILV("graph: drive %d: parameter '%s' must be a float without damping to follow a curve", i, p->name);
    } else if (d->target == STANCE_DRIVE_LAYER_WEIGHT) {
        if (d->index == 0) FAILV("graph: drive %d: the first layer's weight is always 1", i);
    } else if (g->ik[d->index].kind == STANCE_IK_FOOTLOCK) {
        FAILV("graph: drive %d: IK entry '%s' is a footlock entry (it has no weight)", i, g->ik[d->index].name);
    }
    return STANCE_OK;
}

stance_status gr_curves_build(stance_graph *g, const char (*names)[G_NAME], int name_count, const gr_track_src *tracks,
                              int track_count, const g_drive *drives, int drive_count, stance_error *err) {
    g->curves = NULL;
    if (name_count < 0 || name_count > STANCE_MAX_CURVES || track_count < 0 || drive_count < 0 ||
        (name_count && !names) || (track_count && !tracks) || (drive_count && !drives))
        return st_fail(err, STANCE_ERR_ARGUMENT, "graph: %d curves (0..%d), %d tracks or %d drives without their arrays",
                       name_count, STANCE_MAX_CURVES, track_count, drive_count);
    if (drive_count > g->param_count + g->layer_count + g->ik_count)
        FAILV("graph: %d drives, more than the graph's parameters, layers and IK entries", drive_count);
    if (name_count == 0 && drive_count == 0) return STANCE_OK;
    for (int i = 0; i < name_count; i++) {
        const char *z = memchr(names[i], 0, G_NAME);
        if (!z || z == names[i]) FAILV("graph: curve %d: the name is empty or has no end within %d bytes", i, G_NAME);
        for (int k = 0; k < i; k++)
            if (!strcmp(names[k], names[i])) FAILV("graph: curve '%s' is named twice", names[i]);
    }
    const int clips = stance_graph_clips(g, NULL, 0);
    const stance_clip *pl[256];
    const stance_clip **plc = pl;
    const size_t pb = sizeof(*plc) * (size_t)(clips + 1);
    if (clips > 256 && !(plc = st_alloc(&g->allocator, pb, sizeof(void *))))
        return st_fail(err, STANCE_ERR_MEMORY, "graph: allocation of %zu bytes failed", pb);
    stance_graph_clips(g, plc, clips);
    stance_status s = STANCE_OK;
    int kept = 0, keys = 0;
    for (int i = 0; i < track_count && !s; i++) {
        const gr_track_src *t = &tracks[i];
        if ((s = check_track(t, i, name_count, names, err))) break;
        for (int k = 0; k < i && !s; k++)
            if (tracks[k].clip == t->clip && tracks[k].curve == t->curve)
                s = st_fail(err, STANCE_ERR_VALUE, "graph: clip '%s' has two tracks of curve '%s'", t->clip->name, names[t->curve]);
        if (!s && played(plc, clips, t->clip)) kept++, keys += t->key_count;
    }
    for (int i = 0; i < drive_count && !s; i++) s = check_drive(g, &drives[i], i, name_count, drives, err);
    g_curves *cv = NULL;
    if (!s) {
        const size_t bn = st_align_up(sizeof(g_curves), 16), bnames = st_align_up((size_t)G_NAME * (size_t)name_count, 16);
        const size_t bt = st_align_up(sizeof(g_track) * (size_t)kept, 16), bk = st_align_up(sizeof(float) * 2 * (size_t)keys, 16);
        const size_t bytes = bn + bnames + bt + bk + sizeof(g_drive) * (size_t)drive_count;
        unsigned char *mem = st_alloc(&g->allocator, bytes, 16);
        if (!mem) s = st_fail(err, STANCE_ERR_MEMORY, "graph: allocation of %zu bytes failed", bytes);
        else {
            cv = (g_curves *)mem;
            cv->bytes = bytes;
            cv->names = (char(*)[G_NAME])(mem + bn);
            cv->tracks = (g_track *)(mem + bn + bnames);
            cv->keys = (float *)(mem + bn + bnames + bt);
            cv->drives = (g_drive *)(mem + bn + bnames + bt + bk);
            for (int i = 0; i < name_count; i++) memcpy(cv->names[i], names[i], strlen(names[i]) + 1);
            cv->curve_count = name_count;
            for (int i = 0; i < track_count; i++) {
                const gr_track_src *t = &tracks[i];
                if (!played(plc, clips, t->clip)) continue;
                g_track *o = &cv->tracks[cv->track_count++];
                o->clip = t->clip, o->curve = t->curve, o->key_first = cv->key_count, o->key_count = t->key_count;
                memcpy(cv->keys + 2 * (size_t)cv->key_count, t->keys, sizeof(float) * 2 * (size_t)t->key_count);
                cv->key_count += t->key_count;
            }
            for (int pass = 0; pass < 2; pass++) /* parameters first: the drives reading them see this update's value */
                for (int i = 0; i < drive_count; i++)
                    if ((drives[i].target == STANCE_DRIVE_PARAM) == (pass == 0)) cv->drives[cv->drive_count++] = drives[i];
        }
    }
    if (plc != pl) st_free(&g->allocator, plc, pb);
    if (!s) g->curves = cv;
    return s;
}

void gr_curves_destroy(stance_graph *g) {
    if (!g || !g->curves) return;
    st_free(&g->allocator, g->curves, g->curves->bytes);
    g->curves = NULL;
}

const g_track *gr_curve_track(const g_curves *cv, const stance_clip *clip, int curve) {
    for (int i = 0; i < cv->track_count; i++)
        if (cv->tracks[i].clip == clip && cv->tracks[i].curve == curve) return &cv->tracks[i];
    return NULL;
}

const g_drive *gr_layer_drive(const stance_graph *g, int layer) {
    const g_curves *cv = g ? g->curves : NULL;
    for (int i = 0; cv && i < cv->drive_count; i++)
        if (cv->drives[i].target == STANCE_DRIVE_LAYER_WEIGHT && cv->drives[i].index == layer) return &cv->drives[i];
    return NULL;
}

/* ---- queries (stance/graph.h) ---------------------------------------------------- */

int stance_graph_curve_count(const stance_graph *g) { return g && g->curves ? g->curves->curve_count : 0; }

const char *stance_graph_curve_name(const stance_graph *g, int c) {
    return c >= 0 && c < stance_graph_curve_count(g) ? g->curves->names[c] : NULL;
}

int stance_graph_find_curve(const stance_graph *g, const char *name) {
    const int n = stance_graph_curve_count(g);
    for (int i = 0; name && i < n; i++)
        if (!strcmp(g->curves->names[i], name)) return i;
    return -1;
}

static const char *curve_at(const void *set, int i) { return ((const g_curves *)set)->names[i]; }

const char *stance_graph_closest_curve(const stance_graph *g, const char *name) {
    const char *best = name && stance_graph_curve_count(g) ? st_closest_name(name, curve_at, g->curves, g->curves->curve_count, NULL)
                                                           : NULL;
    return best ? best : "";
}

int stance_graph_clip_curves(const stance_graph *g, const stance_clip *clip, stance_clip_curve *out, int cap) {
    if (!g || !g->curves || !clip) return 0;
    int n = 0;
    for (int i = 0; i < g->curves->track_count; i++) {
        const g_track *t = &g->curves->tracks[i];
        if (t->clip != clip) continue;
        if (out && n < cap) out[n].curve = t->curve, out[n].key_count = t->key_count, out[n].keys = g->curves->keys + 2 * (size_t)t->key_first;
        n++;
    }
    return n;
}

int stance_graph_drive_count(const stance_graph *g) { return g && g->curves ? g->curves->drive_count : 0; }

stance_status stance_graph_drive(const stance_graph *g, int drive, stance_drive_info *out, stance_error *err) {
    if (!g || !out) return st_fail(err, STANCE_ERR_ARGUMENT, "graph drive: graph or out is NULL");
    const int n = stance_graph_drive_count(g);
    if (drive < 0 || drive >= n) return st_fail(err, STANCE_ERR_ARGUMENT, "graph drive: drive %d is not in 0..%d", drive, n - 1);
    const g_drive *d = &g->curves->drives[drive];
    out->target = (stance_drive_target)d->target, out->index = d->index, out->param = d->src_param, out->curve = d->src_curve;
    return STANCE_OK;
}

int stance_graph_track_count(const stance_graph *g) { return g && g->curves ? g->curves->track_count : 0; }

stance_status stance_graph_track(const stance_graph *g, int track, const stance_clip **clip, stance_clip_curve *out,
                                 stance_error *err) {
    if (!g || !clip || !out) return st_fail(err, STANCE_ERR_ARGUMENT, "graph track: graph, clip or out is NULL");
    const int n = stance_graph_track_count(g);
    if (track < 0 || track >= n) return st_fail(err, STANCE_ERR_ARGUMENT, "graph track: track %d is not in 0..%d", track, n - 1);
    const g_track *t = &g->curves->tracks[track];
    *clip = t->clip;
    out->curve = t->curve, out->key_count = t->key_count, out->keys = g->curves->keys + 2 * (size_t)t->key_first;
    return STANCE_OK;
}
