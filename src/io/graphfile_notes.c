/* src/io/graphfile_notes.c - which clips a graph file's "clips" readers
 * see: the entries of its "clips" sidecar and of the asset's own clip notes
 * (stance_asset.clip_notes, JSON text a .stance file's META section
 * carries: from glTF animations' extras), gathered once; per clip and key,
 * the sidecar's value when it gives the key, else the asset's
 * (docs/events.md "Notes the asset carries"). The notes' values have paths
 * under gf_notes_top, so a message points into the notes' own text. The
 * readers of the keys are graphfile_clips.c (events, windows),
 * graphfile_curves.c (curves) and graphfile_sync.c (markers, speed). */
#include <stdio.h>
#include <string.h>

#include "core/base/internal.h"
#include "io/graphfile_internal.h"

#ifdef STANCE_HAVE_JANSSON
#include <jansson.h>

static const jpath graph_top = {NULL, "clips", -1}; /* the graph file's "clips" (the root's path is NULL) */

static stance_status parse_notes(ctx *c, json_t **clips) {
    const stance_asset *a = c->asset;
    *clips = NULL;
    if (!a || !a->clip_notes) return STANCE_OK;
    stance_graphfile *gf = c->gf;
    const size_t nn = strlen(gf->asset_name ? gf->asset_name : "asset") + 16;
    char *name = gf_alloc(gf, nn, 1);
    if (!name) return gf_no_memory(c);
    snprintf(name, nn, "%s (clip notes)", gf->asset_name ? gf->asset_name : "asset");
    c->notes_text = a->clip_notes, c->notes_size = a->clip_notes_size, c->notes_name = name;
    json_error_t je;
    json_t *doc = json_loadb(a->clip_notes, a->clip_notes_size, JSON_REJECT_DUPLICATES, &je);
    if (!doc)
        return st_fail(c->err, STANCE_ERR_FORMAT, "%s:%d:%d: invalid JSON: %s", name, je.line > 0 ? je.line : 1,
                       je.column > 0 ? je.column : 1, je.text);
    gf->notes_json = doc;
    *clips = json_object_get(doc, "clips");
    if (!json_is_object(doc) || json_object_size(doc) != 1 || !json_is_object(*clips))
        return st_fail(c->err, STANCE_ERR_FORMAT, "%s:1:1: expected {\"clips\": {CLIP: its notes, ...}}", name);
    return STANCE_OK;
}

stance_status gf_gather_clips(ctx *c, const jobj *root) {
    json_t *g = json_object_get(root->v, "clips"), *a, *cv;
    stance_status s = parse_notes(c, &a);
    if (s) return s;
    if (!json_is_object(g)) g = NULL; /* gf_read_clips says what is wrong */
    const size_t n = json_object_size(g) + json_object_size(a);
    if (!n) return STANCE_OK;
    if (!(c->clips = gf_alloc(c->gf, n, sizeof *c->clips))) return gf_no_memory(c);
    const char *name;
    int k = 0;
    if (g) json_object_foreach(g, name, cv) {
        if (name[0] == '_') continue; /* comments */
        gf_clip_entry *e = &c->clips[k++];
        e->name = name, e->g = cv, e->a = json_object_get(a, name);
        e->pg = (jpath){&graph_top, name, -1}, e->pa = (jpath){&gf_notes_top, name, -1};
    }
    if (a) json_object_foreach(a, name, cv) {
        if (name[0] == '_' || json_object_get(g, name)) continue;
        gf_clip_entry *e = &c->clips[k++];
        e->name = name, e->a = cv;
        e->pg = (jpath){&graph_top, name, -1}, e->pa = (jpath){&gf_notes_top, name, -1};
    }
    c->clip_entries = k;
    return STANCE_OK;
}

jobj gf_clip_key(const gf_clip_entry *e, const char *key) {
    if (e->g && json_object_get(e->g, key)) return (jobj){e->g, &e->pg, "a clip's notes"};
    if (e->a && json_object_get(e->a, key)) return (jobj){e->a, &e->pa, "a clip's notes"};
    return (jobj){NULL, e->g ? &e->pg : &e->pa, "a clip's notes"};
}

#endif /* STANCE_HAVE_JANSSON */
