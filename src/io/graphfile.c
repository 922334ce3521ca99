/* src/io/graphfile.c - graph files: JSON (docs/graph-format.md) read with
 * jansson into a stance_graph_desc, built with stance_graph_create; or a
 * compiled graph (a .stance file with a GRPH section) loaded by the runtime.
 *
 * Owns the graphfile object, the asset a file names, the document's top
 * level and the public loaders. The format's rules and messages live in the
 * readers beside it: every field is checked there, with the file position
 * of the offending value (graphfile_pos.c), before the runtime sees the
 * description (the runtime checks again; its messages carry no position):
 * graphfile_values.c (one value), graphfile_names.c (names and
 * suggestions), graphfile_params.c, graphfile_machines.c,
 * graphfile_layers.c, graphfile_ik.c and graphfile_clips.c (one reader per section). It does not touch the
 * runtime's internals: the graph is made only through the public
 * stance_graph_create. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/internal.h"
#include "io/files.h"
#include "io/graphfile_internal.h"
#include "io/builtin_asset.h"
#include "stance/import.h"
#include "stance/build.h"

#ifdef STANCE_HAVE_JANSSON
#include <jansson.h>
#endif

void stance_graphfile_destroy(stance_graphfile *gf) {
    if (!gf) return;
    stance_graph_destroy(gf->graph);
    for (int i = 0; i < gf->retargeted_count; i++) stance_clip_destroy(gf->retargeted[i]);
    free(gf->retargeted);
    stance_asset_destroy(&gf->owned);
    while (gf->blocks) {
        gf_block *next = gf->blocks->next;
        free(gf->blocks);
        gf->blocks = next;
    }
#ifdef STANCE_HAVE_JANSSON
    json_decref((json_t *)gf->json);
    if (gf->notes_json) json_decref((json_t *)gf->notes_json);
#endif
    free(gf->name);
    free(gf->asset_name);
    free(gf);
}

const stance_graph *stance_graphfile_graph(const stance_graphfile *gf) { return gf ? gf->graph : NULL; }
const stance_skeleton *stance_graphfile_skeleton(const stance_graphfile *gf) {
    return gf && gf->asset ? gf->asset->skeleton : NULL;
}
const stance_asset *stance_graphfile_asset(const stance_graphfile *gf) { return gf ? gf->asset : NULL; }
const char *stance_graphfile_name(const stance_graphfile *gf) { return gf && gf->name ? gf->name : ""; }
const char *stance_graphfile_asset_name(const stance_graphfile *gf) {
    return gf && gf->asset_name ? gf->asset_name : "";
}
const stance_graph_desc *stance_graphfile_desc(const stance_graphfile *gf) {
    return gf && !gf->compiled ? &gf->desc : NULL;
}

/* ---- a compiled graph: a .stance file with a GRPH section ------------------ */

static char *dup_string(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static stance_status load_compiled(const char *path, const void *bytes, size_t size,
                                   const stance_graphfile_options *opt, stance_graphfile **out, stance_error *err) {
    if (opt && (opt->asset || opt->asset_override))
        return st_fail(err, STANCE_ERR_ARGUMENT, "%s: a compiled graph carries its asset; no other asset can be given",
                       path);
    stance_graphfile *gf = calloc(1, sizeof *gf);
    if (!gf) return st_fail(err, STANCE_ERR_MEMORY, "%s: out of memory", path);
    stance_error e = {STANCE_OK, ""};
    stance_status s = stance_build_load_asset_memory(bytes, size, NULL, &gf->owned, &e); /* either GRPH form */
    if (s) {
        free(gf);
        return st_fail(err, s, "%s: %s", path, e.message);
    }
    if (!gf->owned.graph) {
        stance_graphfile_destroy(gf);
        return st_fail(err, STANCE_ERR_FORMAT, "%s: a .stance file with no graph in it (make one with `stance compile`)",
                       path);
    }
    gf->graph = gf->owned.graph; /* the graphfile owns it now (destroyed before the asset) */
    gf->owned.graph = NULL;
    gf->asset = &gf->owned;
    gf->compiled = 1;
    gf->name = dup_string(path);
    gf->asset_name = dup_string(path);
    if (!gf->name || !gf->asset_name) {
        stance_graphfile_destroy(gf);
        return st_fail(err, STANCE_ERR_MEMORY, "%s: out of memory", path);
    }
    *out = gf;
    return st_ok(err);
}

#ifndef STANCE_HAVE_JANSSON

static stance_status load_text(const char *text, size_t size, const char *name, const char *base_dir,
                               const stance_graphfile_options *opt, stance_graphfile **out, stance_error *err) {
    (void)text, (void)size, (void)base_dir, (void)opt, (void)out;
    return st_fail(err, STANCE_ERR_UNSUPPORTED, "%s: cannot read JSON graph files: built without jansson", name);
}

#else

/* ---- the asset ------------------------------------------------------------------ */

static stance_status read_asset(ctx *c, const jobj *root, const char *base_dir, const stance_graphfile_options *opt) {
    stance_graphfile *gf = c->gf;
    const char *spec = NULL;
    stance_status s = gf_get_string(c, root, "asset", !(opt && (opt->asset || opt->asset_override)), &spec);
    if (s) return s;
    if (opt && opt->asset) {
        if (!opt->asset->skeleton || opt->asset->clip_count < 0 || (opt->asset->clip_count && !opt->asset->clips))
            return st_fail(c->err, STANCE_ERR_ARGUMENT, "%s: the borrowed asset has no skeleton", c->name);
        gf->asset = opt->asset;
        gf->asset_name = dup_string("(borrowed)");
        return gf->asset_name ? STANCE_OK : gf_no_memory(c);
    }
    const char *dir = base_dir;
    jpath p = {root->at, "asset", -1};
    if (opt && opt->asset_override) {
        spec = opt->asset_override;
        dir = NULL;
    } else if (!spec[0]) {
        return gf_fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"asset\": expected \"builtin\" or a path, got \"\"");
    }
    stance_error e = {0};
    if (!strcmp(spec, "builtin")) {
        gf->asset_name = dup_string("builtin");
        if (!gf->asset_name) return gf_no_memory(c);
        s = io_builtin_asset(&gf->owned, &e);
    } else {
        gf->asset_name = io_join_path(dir, spec);
        if (!gf->asset_name) return gf_no_memory(c);
        s = stance_open_file(gf->asset_name, NULL, NULL, &gf->owned, &e);
    }
    if (s) {
        if (opt && opt->asset_override)
            return st_fail(c->err, s, "%s: cannot load the asset: %s", c->name, e.message);
        return gf_fail_at(c, &p, 0, s, "cannot load the asset: %s", e.message);
    }
    if (!gf->owned.skeleton) {
        stance_asset_destroy(&gf->owned);
        return gf_fail_at(c, &p, 0, STANCE_ERR_FORMAT, "the asset has no skeleton");
    }
    gf->asset = &gf->owned;
    return STANCE_OK;
}

/* ---- the document ------------------------------------------------------------------- */

static stance_status read_graph(ctx *c, json_t *doc, const char *base_dir, const stance_graphfile_options *opt) {
    /* "lesson_layers" is read by io/lesson_setup.c (`stance layers --graph`) */
    static const char *const keys[] = {"$schema", "version", "asset", "default_blend_time", "deadblend_halflife",
                                       "params", "machines", "layers", "ik", "clips", "lesson_layers", NULL};
    stance_graphfile *gf = c->gf;
    stance_graph_desc *gd = &gf->desc;
    jobj root = {doc, NULL, "the graph"};
    stance_status s;
    if (!json_is_object(doc))
        return gf_fail_at(c, NULL, 0, STANCE_ERR_FORMAT, "expected a graph (an object) at the top, got %s", gf_type_name(doc));
    int version = 1;
    const char *schema = NULL; /* "$schema": for editors (docs/graph.schema.json); any string */
    if ((s = gf_check_keys(c, &root, keys)) || (s = gf_get_string(c, &root, "$schema", 0, &schema)) ||
        (s = gf_get_int(c, &root, "version", 1, 1, &version)) ||
        (s = gf_get_number(c, &root, "default_blend_time", 0, 0.0, 60.0, 1, &gd->default_blend_time)) ||
        (s = gf_get_number(c, &root, "deadblend_halflife", 0, 0.0, 60.0, 1, &gd->deadblend_halflife)) ||
        (s = read_asset(c, &root, base_dir, opt)))
        return s;
    c->asset = gf->asset;
    if ((s = gf_read_retargets(c, &root)) || (s = gf_gather_clips(c, &root)) || (s = gf_scan_curves(c, &root)) || (s = gf_read_params(c, &root)) ||
        (s = gf_read_machines(c, &root)) || (s = gf_read_layers(c, &root, gd)) || (s = gf_check_machine_use(c, gd)) ||
        (s = gf_read_ik(c, &root, gd)) || (s = gf_read_clips(c, &root, gd)) || (s = gf_read_sync(c, &root, gd)))
        return s;
    gf_finish_curves(c, gd);
    gd->skeleton = gf->asset->skeleton;
    gd->params = c->params;
    gd->param_count = c->param_count;
    gd->machines = c->machines;
    gd->machine_count = c->machine_count;
    stance_error e = {0};
    s = stance_graph_create(gd, NULL, &gf->graph, &e);
    if (s) return st_fail(c->err, s, "%s: %s", c->name, e.message);
    return STANCE_OK;
}

static stance_status load_text(const char *text, size_t size, const char *name, const char *base_dir,
                               const stance_graphfile_options *opt, stance_graphfile **out, stance_error *err) {
    /* a UTF-8 byte order mark is skipped */
    if (size >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) text += 3, size -= 3;
    size_t i = 0;
    while (i < size && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) i++;
    if (i == size) return st_fail(err, STANCE_ERR_FORMAT, "%s:1:1: the file is empty; expected a graph (a JSON object)", name);
    json_error_t je;
    json_t *doc = json_loadb(text, size, JSON_REJECT_DUPLICATES, &je);
    if (!doc)
        return st_fail(err, STANCE_ERR_FORMAT, "%s:%d:%d: invalid JSON: %s", name, je.line > 0 ? je.line : 1,
                       je.column > 0 ? je.column : 1, je.text);
    stance_graphfile *gf = calloc(1, sizeof *gf);
    if (!gf) {
        json_decref(doc);
        return st_fail(err, STANCE_ERR_MEMORY, "%s: out of memory", name);
    }
    gf->json = doc;
    gf->name = dup_string(name);
    ctx c = {0};
    c.text = text;
    c.size = size;
    c.name = name;
    c.err = err;
    c.gf = gf;
    c.base_dir = base_dir;
    stance_status s = gf->name ? read_graph(&c, doc, base_dir, opt) : gf_no_memory(&c);
    if (s) {
        stance_graphfile_destroy(gf);
        return s;
    }
    *out = gf;
    return st_ok(err);
}

#endif /* STANCE_HAVE_JANSSON */

/* ---- the public loaders: a compiled .stance file or JSON ------------------ */

stance_status stance_graphfile_load_string(const char *text, const char *display_name, const char *base_dir,
                                           const stance_graphfile_options *opt, stance_graphfile **out,
                                           stance_error *err) {
    const char *name = display_name ? display_name : "<string>";
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "%s: out is NULL", name);
    *out = NULL;
    if (!text) return st_fail(err, STANCE_ERR_ARGUMENT, "%s: text is NULL", name);
    return load_text(text, strlen(text), name, base_dir, opt, out, err);
}

stance_status stance_graphfile_load(const char *path, const stance_graphfile_options *opt, stance_graphfile **out,
                                    stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "graph file: out is NULL");
    *out = NULL;
    if (!path || !path[0]) return st_fail(err, STANCE_ERR_ARGUMENT, "graph file: path is NULL or empty");
    void *bytes = NULL;
    size_t size = 0;
    stance_error e = {0};
    stance_status s = stance_io_read_file(path, &bytes, &size, &e);
    if (s) return st_fail(err, s, "%s: %s", path, e.message);
    char *dir = NULL;
    const char *slash = strrchr(path, '/');
    if (slash) {
        size_t n = slash == path ? 1 : (size_t)(slash - path);
        dir = malloc(n + 1);
        if (!dir) {
            free(bytes);
            return st_fail(err, STANCE_ERR_MEMORY, "%s: out of memory", path);
        }
        memcpy(dir, path, n);
        dir[n] = 0;
    }
    s = stance_asset_is_native(bytes, size) ? load_compiled(path, bytes, size, opt, out, err)
                                            : load_text(bytes, size, path, dir, opt, out, err);
    free(dir);
    free(bytes);
    return s;
}

