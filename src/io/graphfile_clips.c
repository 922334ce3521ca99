/* src/io/graphfile_clips.c - the "clips" section of a graph file: per clip
 * of the asset, by name, the events (time "t", name, optional payload of
 * int, float and string, optional "min_weight") and windows (name, from,
 * to, optional "min_weight") the graph adds to the clip's own
 * (stance_clip_notes_desc, docs/graph-format.md). Every value is checked
 * here so a bad one is reported at its FILE:LINE:COLUMN; the runtime checks
 * again (src/core/graph/graph_notes.c). Later keys of a clip (curves,
 * markers) belong beside "events" and "windows". The asset's own clip
 * notes (stance_asset.clip_notes: from glTF extras) join the sidecar's
 * here: per clip and key, the sidecar's value if it gives one, else the
 * asset's (gf_gather_clips, gf_clip_key). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/base/internal.h"
#include "io/graphfile_internal.h"

#ifdef STANCE_HAVE_JANSSON
#include <jansson.h>
#include "stance/build.h"

/* "min_weight": a number in [0, 1] (default 0: whatever the weight) */
static stance_status read_min_weight(ctx *c, const jobj *o, float *out) {
    *out = 0.0f;
    return gf_get_number(c, o, "min_weight", 0, 0.0, 1.0, 0, out);
}

static stance_status read_name(ctx *c, const jobj *o, const char **out) {
    stance_status s = gf_get_string(c, o, "name", 1, out);
    if (s) return s;
    jpath p = {o->at, "name", -1};
    if (!(*out)[0] || strlen(*out) >= STANCE_EVENT_NAME)
        return gf_fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"name\": expected 1..%d bytes, got %zu", STANCE_EVENT_NAME - 1,
                          strlen(*out));
    return STANCE_OK;
}

static stance_status read_payload(ctx *c, const jobj *ev, stance_event_payload *out) {
    static const char *const keys[] = {"int", "float", "string", NULL};
    memset(out, 0, sizeof *out);
    json_t *v = json_object_get(ev->v, "payload");
    if (!v) return STANCE_OK;
    jpath p = {ev->at, "payload", -1};
    jobj o = {v, &p, "a payload"};
    stance_status s;
    if ((s = gf_want_object(c, v, &p, "a payload")) || (s = gf_check_keys(c, &o, keys))) return s;
    json_t *iv = json_object_get(v, "int"), *fv = json_object_get(v, "float"), *sv = json_object_get(v, "string");
    if (iv) {
        jpath pi = {&p, "int", -1};
        const double d = json_is_number(iv) ? json_number_value(iv) : NAN;
        if (!json_is_integer(iv) || d < -2147483648.0 || d > 2147483647.0)
            return gf_fail_at(c, &pi, 0, STANCE_ERR_FORMAT, "\"int\": expected a whole number in [-2147483648, 2147483647], got %s",
                              json_is_number(iv) ? "a fraction or one out of range" : gf_type_name(iv));
        out->flags |= STANCE_PAYLOAD_INT, out->i = (int)json_integer_value(iv);
    }
    if (fv) {
        jpath pf = {&p, "float", -1};
        const double d = json_is_number(fv) ? json_number_value(fv) : NAN;
        if (!json_is_number(fv) || !st_finite((float)d))
            return gf_fail_at(c, &pf, 0, STANCE_ERR_FORMAT, "\"float\": expected a finite number, got %s",
                              json_is_number(fv) ? "one out of a float's range" : gf_type_name(fv));
        out->flags |= STANCE_PAYLOAD_FLOAT, out->f = (float)d;
    }
    if (sv) {
        jpath ps = {&p, "string", -1};
        if (!json_is_string(sv))
            return gf_fail_at(c, &ps, 0, STANCE_ERR_FORMAT, "\"string\": expected a string, got %s", gf_type_name(sv));
        const size_t n = json_string_length(sv);
        if (n > STANCE_PAYLOAD_STRING_MAX || strlen(json_string_value(sv)) != n)
            return gf_fail_at(c, &ps, 0, STANCE_ERR_FORMAT, "\"string\": at most %d bytes (no NUL), got %zu",
                              STANCE_PAYLOAD_STRING_MAX, n);
        out->flags |= STANCE_PAYLOAD_STRING;
        memcpy(out->s, json_string_value(sv), n);
    }
    return STANCE_OK;
}

static stance_status read_events(ctx *c, const jobj *co, const stance_clip *clip, stance_clip_notes_desc *nd) {
    static const char *const keys[] = {"t", "name", "payload", "min_weight", NULL};
    json_t *arr;
    int n;
    stance_status s = gf_get_array(c, co, "events", 0, 0, STANCE_MAX_EVENTS - clip->event_count, &arr, &n);
    if (s || !n) return s;
    stance_notify_desc *ev = gf_alloc(c->gf, (size_t)n, sizeof *ev);
    if (!ev) return gf_no_memory(c);
    jpath pa = {co->at, "events", -1};
    for (int i = 0; i < n; i++) {
        jpath pe = {&pa, NULL, i};
        jobj o = {json_array_get(arr, (size_t)i), &pe, "an event"};
        if ((s = gf_want_object(c, o.v, &pe, "an event")) || (s = gf_check_keys(c, &o, keys)) ||
            (s = read_name(c, &o, &ev[i].name)) || (s = gf_get_number(c, &o, "t", 1, -1e30, 1e30, 0, &ev[i].time)) ||
            (s = read_min_weight(c, &o, &ev[i].min_weight)) || (s = read_payload(c, &o, &ev[i].payload)))
            return s;
        jpath pt = {&pe, "t", -1};
        if (ev[i].time < 0.0f || ev[i].time > clip->duration)
            return gf_fail_at(c, &pt, 0, STANCE_ERR_FORMAT, "event '%s' at %g s is %s clip '%.63s' (0..%g s): "
                              "\"t\" is seconds into the clip", ev[i].name, (double)ev[i].time,
                              ev[i].time < 0.0f ? "before the start of" : "past the end of", clip->name, (double)clip->duration);
    }
    nd->events = ev, nd->event_count = n;
    return STANCE_OK;
}

static stance_status read_windows(ctx *c, const jobj *co, const stance_clip *clip, stance_clip_notes_desc *nd) {
    static const char *const keys[] = {"name", "from", "to", "min_weight", NULL};
    json_t *arr;
    int n;
    stance_status s = gf_get_array(c, co, "windows", 0, 0, STANCE_MAX_WINDOWS, &arr, &n);
    if (s || !n) return s;
    stance_window_desc *wd = gf_alloc(c->gf, (size_t)n, sizeof *wd);
    if (!wd) return gf_no_memory(c);
    jpath pa = {co->at, "windows", -1};
    for (int i = 0; i < n; i++) {
        jpath pw = {&pa, NULL, i};
        jobj o = {json_array_get(arr, (size_t)i), &pw, "a window"};
        const double D = clip->duration;
        if ((s = gf_want_object(c, o.v, &pw, "a window")) || (s = gf_check_keys(c, &o, keys)) ||
            (s = read_name(c, &o, &wd[i].name)) || (s = gf_get_number(c, &o, "from", 1, 0.0, D, 0, &wd[i].from)) ||
            (s = gf_get_number(c, &o, "to", 1, 0.0, D, 0, &wd[i].to)) || (s = read_min_weight(c, &o, &wd[i].min_weight)))
            return s;
        if (wd[i].from > wd[i].to) {
            jpath pf = {&pw, "from", -1};
            return gf_fail_at(c, &pf, 0, STANCE_ERR_FORMAT, "window '%s' runs from %g s to %g s: \"from\" must not be after "
                              "\"to\" (swap them? a window over a loop's end is two windows)", wd[i].name,
                              (double)wd[i].from, (double)wd[i].to);
        }
    }
    nd->windows = wd, nd->window_count = n;
    return STANCE_OK;
}

stance_status gf_read_clips(ctx *c, const jobj *root, stance_graph_desc *gd) {
    static const char *const keys[] = {"events", "windows", "curves", "markers", "speed", "retarget", NULL};
    /* curves: graphfile_curves.c; markers, speed: graphfile_sync.c; retarget: graphfile_retarget.c. The
     * asset's notes carry the same keys but "retarget" */
    static const char *const asset_keys[] = {"events", "windows", "curves", "markers", "speed", NULL};
    json_t *v = json_object_get(root->v, "clips");
    jpath p = {root->at, "clips", -1};
    stance_status s;
    if (v && (s = gf_want_object(c, v, &p, "\"clips\" (an object: clip name -> its events and windows)"))) return s;
    if (!c->clip_entries) return STANCE_OK;
    stance_clip_notes_desc *nd = gf_alloc(c->gf, (size_t)c->clip_entries, sizeof *nd);
    if (!nd) return gf_no_memory(c);
    for (int k = 0; k < c->clip_entries; k++) {
        const gf_clip_entry *e = &c->clips[k];
        jobj og = {e->g, &e->pg, "a clip's notes"}, oa = {e->a, &e->pa, "a clip's notes"};
        const stance_clip *clip;
        if ((s = gf_find_clip_at(c, e->g ? &e->pg : &e->pa, 1, e->name, &clip)) ||
            (e->g && ((s = gf_want_object(c, e->g, &e->pg, "a clip's notes")) || (s = gf_check_keys(c, &og, keys)))) ||
            (e->a && ((s = gf_want_object(c, e->a, &e->pa, "a clip's notes")) || (s = gf_check_keys(c, &oa, asset_keys)))))
            return s;
        nd[k].clip = clip;
        const jobj ev = gf_clip_key(e, "events"), wi = gf_clip_key(e, "windows"), cu = gf_clip_key(e, "curves");
        if ((s = read_events(c, &ev, clip, &nd[k])) || (s = read_windows(c, &wi, clip, &nd[k])) ||
            (s = gf_read_clip_curves(c, &cu, clip)))
            return s;
    }
    gd->clip_notes = nd, gd->clip_notes_count = c->clip_entries;
    return STANCE_OK;
}

#endif /* STANCE_HAVE_JANSSON */
