/* src/io/graphfile_retarget.c - clips a graph plays from another skeleton
 * (issue 27 item 3, docs/graph-format.md "Clips"): an entry of "clips" with
 * "retarget": {"from": FILE, "clip": NAME, "map": MAP, "source_map": MAP,
 * "fingers": BOOL, "free_feet": BOOL, "bake": BOOL}
 * adds a clip under the entry's name, built when the graph is read by
 * stance_retarget_clip_runtime (the bone map and rest-pose corrections
 * baked) and then, unless "bake" is false, made an ordinary exact clip of
 * the graph's skeleton by stance_retarget_clip_bake (its samples on the
 * source's key grid: each update then samples it as any exact clip, on the
 * fused paths); states and blend spaces name it like any clip of the asset.
 * Every problem is one line at the value's FILE:LINE:COLUMN. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/internal.h"
#include "io/builtin_asset.h"
#include "io/files.h"
#include "io/graphfile_internal.h"
#include "stance/import.h"
#include "stance/retarget.h"

#ifdef STANCE_HAVE_JANSSON
#include <jansson.h>

/* The source clip: "clip" by name, else the file's only clip, else the
 * entry's name. */
static stance_status find_source_clip(ctx *c, const jobj *o, const char *entry, const char *from,
                                      const stance_asset *src, const stance_clip **out) {
    const char *want = NULL;
    stance_status s = gf_get_string(c, o, "clip", 0, &want);
    if (s) return s;
    jpath at = {o->at, want ? "clip" : "from", -1};
    if (src->clip_count < 1) return gf_fail_at(c, &at, 0, STANCE_ERR_NOT_FOUND, "'%s' has no clips", from);
    if (!want && src->clip_count == 1) {
        *out = src->clips[0];
        return STANCE_OK;
    }
    if (!want) want = entry;
    *out = stance_asset_find_clip(src, want);
    if (*out) return STANCE_OK;
    return gf_fail_at(c, &at, 0, STANCE_ERR_NOT_FOUND, "'%s' has no clip '%.63s' (its first: '%.63s'; %d in all)", from,
                      want, src->clips[0]->name, src->clip_count);
}

static stance_status read_one(ctx *c, const jpath *pc, const char *name, json_t *r, stance_clip **out) {
    static const char *const keys[] = {"from", "clip", "map", "source_map", "fingers", "free_feet", "bake", NULL};
    jpath pr = {pc, "retarget", -1};
    jobj o = {r, &pr, "a retarget"};
    const char *from = NULL, *map = NULL, *smap = NULL;
    int fingers = 0, free_feet = 0, bake = 1;
    stance_status s;
    if ((s = gf_want_object(c, r, &pr, "\"retarget\" (an object: from, clip, map, source_map, fingers, free_feet, bake)")) ||
        (s = gf_check_keys(c, &o, keys)) || (s = gf_get_string(c, &o, "from", 1, &from)) ||
        (s = gf_get_string(c, &o, "map", 0, &map)) || (s = gf_get_string(c, &o, "source_map", 0, &smap)) ||
        (s = gf_get_bool(c, &o, "fingers", &fingers)) || (s = gf_get_bool(c, &o, "free_feet", &free_feet)) ||
        (s = gf_get_bool(c, &o, "bake", &bake)))
        return s;
    if (!name[0] || strlen(name) > 63)
        return gf_fail_at(c, pc, 1, STANCE_ERR_FORMAT, "a retargeted clip's name must be 1..63 bytes");
    const stance_clip *had = NULL;
    if ((had = stance_asset_find_clip(c->asset, name)) != NULL)
        return gf_fail_at(c, pc, 1, STANCE_ERR_FORMAT, "clip '%s' is the asset's own: a retargeted clip needs a name "
                          "of its own", name);
    jpath pf = {&pr, "from", -1};
    char *path = NULL, *mpath = NULL, *spath = NULL;
    stance_asset src;
    memset(&src, 0, sizeof src);
    stance_error e = {0};
    if (!strcmp(from, "builtin")) {
        s = io_builtin_asset(&src, &e);
    } else if (!(path = io_join_path(c->base_dir, from))) {
        return gf_no_memory(c);
    } else {
        s = stance_open_file(path, NULL, NULL, &src, &e);
    }
    if (!s && !src.skeleton) s = STANCE_ERR_FORMAT, snprintf(e.message, sizeof e.message, "it has no skeleton");
    if (s) {
        free(path);
        return gf_fail_at(c, &pf, 0, s, "cannot load '%s': %s", from, e.message);
    }
    const stance_clip *clip = NULL;
    s = find_source_clip(c, &o, name, from, &src, &clip);
    if (!s && ((map && !(mpath = io_join_path(c->base_dir, map))) || (smap && !(spath = io_join_path(c->base_dir, smap)))))
        s = gf_no_memory(c);
    if (!s) {
        stance_retarget_desc d = {0};
        d.target_map = mpath, d.source_map = spath, d.fingers = fingers, d.free_feet = free_feet;
        s = stance_retarget_clip_runtime(clip, src.skeleton, c->asset->skeleton, &d, NULL, out, &e);
        if (!s && bake) { /* the run-time clip's samples as an exact clip; the run-time clip goes */
            stance_clip *baked = NULL;
            s = stance_retarget_clip_bake(*out, c->asset->skeleton, NULL, &baked, &e);
            stance_clip_destroy(*out);
            *out = baked;
        }
        if (s) s = gf_fail_at(c, &pr, 1, s, "%s", e.message);
    }
    if (!s) snprintf((*out)->name, sizeof (*out)->name, "%s", name);
    free(path), free(mpath), free(spath);
    stance_asset_destroy(&src);
    return s;
}

stance_status gf_read_retargets(ctx *c, const jobj *root) {
    json_t *v = json_object_get(root->v, "clips");
    if (!v || !json_is_object(v)) return STANCE_OK; /* gf_read_clips says what is wrong */
    size_t n = 0;
    const char *name;
    json_t *cv;
    json_object_foreach(v, name, cv) n += json_is_object(cv) && json_object_get(cv, "retarget");
    if (!n) return STANCE_OK;
    stance_graphfile *gf = c->gf;
    if (!(gf->retargeted = calloc(n, sizeof *gf->retargeted))) return gf_no_memory(c);
    jpath p = {root->at, "clips", -1};
    json_object_foreach(v, name, cv) {
        json_t *r = json_is_object(cv) ? json_object_get(cv, "retarget") : NULL;
        if (!r || name[0] == '_') continue;
        jpath pc = {&p, name, -1};
        stance_clip *out = NULL;
        stance_status s = read_one(c, &pc, name, r, &out);
        if (s) return s;
        gf->retargeted[gf->retargeted_count++] = out;
    }
    return STANCE_OK;
}

#endif /* STANCE_HAVE_JANSSON */
