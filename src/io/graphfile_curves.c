/* src/io/graphfile_curves.c - curves in a graph file: each clip's "curves"
 * in the "clips" sidecar (name -> [[t, v], ...], piecewise linear in clip
 * seconds), and the bindings that read a parameter or a curve where a value
 * is expected: a layer's "weight" and an IK entry's "weight" ({"param": P}
 * or {"curve": C}), a blend space's position ({"curve": C} beside a
 * parameter's name) and a condition's "curve" (docs/graph-format.md,
 * docs/curves.md). A condition or blend space reading curve C reads the
 * float parameter "curve:C" this file adds, which C drives each update.
 * Curve names are gathered from the sidecar first (gf_scan_curves), so a
 * reference anywhere is checked where it stands, with a suggestion. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/base/internal.h"
#include "core/base/names.h"
#include "io/graphfile_internal.h"

#ifdef STANCE_HAVE_JANSSON
#include <jansson.h>
#include "stance/build.h"

#define GF_MAX_DRIVES (STANCE_MAX_PARAMS + STANCE_MAX_LAYERS + STANCE_MAX_IK)

struct gf_curves {
    const char *names[STANCE_MAX_CURVES]; /* every curve name the sidecar gives (into the document) */
    int name_count;
    stance_curve_desc *tracks;
    int track_count, track_cap;
    stance_drive_desc drives[GF_MAX_DRIVES];
    int drive_count;
};

static const char *name_at(const void *set, int i) { return ((const struct gf_curves *)set)->names[i]; }

static int curve_index(const struct gf_curves *cv, const char *name) {
    for (int i = 0; cv && i < cv->name_count; i++)
        if (!strcmp(cv->names[i], name)) return i;
    return -1;
}

stance_status gf_scan_curves(ctx *c, const jobj *root) {
    struct gf_curves *cv = gf_alloc(c->gf, 1, sizeof *cv);
    if (!cv) return gf_no_memory(c);
    c->cv = cv;
    (void)root; /* the clips' entries: gf_gather_clips */
    for (int k = 0; k < c->clip_entries; k++) {
        const jobj co = gf_clip_key(&c->clips[k], "curves");
        json_t *curves = json_object_get(co.v, "curves"), *v;
        const char *name;
        if (!json_is_object(curves)) continue; /* its errors are gf_read_clip_curves's */
        cv->track_cap += (int)json_object_size(curves);
        json_object_foreach(curves, name, v) {
            (void)v;
            if (name[0] == '_' || curve_index(cv, name) >= 0) continue;
            if (cv->name_count == STANCE_MAX_CURVES) {
                jpath pv = {co.at, "curves", -1}, pn = {&pv, name, -1};
                return gf_fail_at(c, &pn, 1, STANCE_ERR_FORMAT, "more than %d curve names", STANCE_MAX_CURVES);
            }
            cv->names[cv->name_count++] = name;
            cv->track_cap++;
        }
    }
    if (cv->track_cap && !(cv->tracks = gf_alloc(c->gf, (size_t)cv->track_cap, sizeof *cv->tracks))) return gf_no_memory(c);
    return STANCE_OK;
}

/* A curve name at `at` that the sidecar gives, or one message with a suggestion. */
static stance_status find_curve(ctx *c, const jpath *at, const char *name) {
    if (curve_index(c->cv, name) >= 0) return STANCE_OK;
    char hint[200];
    st_suggest(hint, sizeof hint, name, name_at, c->cv, c->cv->name_count);
    return gf_fail_at(c, at, 0, STANCE_ERR_NOT_FOUND, "unknown curve '%.63s'%s; curves are named in \"clips\": "
                      "{\"CLIP\": {\"curves\": {\"NAME\": [[t, v], ...]}}}", name, hint);
}

static stance_status add_drive(ctx *c, const jpath *at, stance_drive_target target, const char *name, const char *param,
                               const char *curve) {
    struct gf_curves *cv = c->cv;
    if (cv->drive_count == GF_MAX_DRIVES) return gf_fail_at(c, at, 0, STANCE_ERR_FORMAT, "too many bindings");
    stance_drive_desc *d = &cv->drives[cv->drive_count++];
    d->target = target, d->name = name, d->param = param, d->curve = curve;
    return STANCE_OK;
}

/* The float parameter that follows curve `curve` ("curve:NAME"), added the
 * first time a curve is read so. */
static stance_status curve_param(ctx *c, const jpath *at, const char *curve, const char **out) {
    char buf[STANCE_MAX_NAME + 8];
    snprintf(buf, sizeof buf, "curve:%s", curve);
    if (strlen(buf) >= STANCE_MAX_NAME)
        return gf_fail_at(c, at, 0, STANCE_ERR_FORMAT, "curve '%.40s...': \"curve:NAME\" must fit %d bytes to be read here",
                          curve, STANCE_MAX_NAME - 1);
    const int i = gf_param_index(c, buf);
    if (i >= 0) {
        for (int k = 0; k < c->cv->drive_count; k++)
            if (c->cv->drives[k].target == STANCE_DRIVE_PARAM && !strcmp(c->cv->drives[k].name, c->params[i].name))
                return *out = c->params[i].name, STANCE_OK;
        return gf_fail_at(c, at, 0, STANCE_ERR_FORMAT, "parameter '%s' is declared in \"params\": the name is the one a "
                          "curve's reader takes; rename it", buf);
    }
    if (c->param_count >= STANCE_MAX_PARAMS)
        return gf_fail_at(c, at, 0, STANCE_ERR_FORMAT, "reading curve '%s' needs a parameter, and there are %d already",
                          curve, STANCE_MAX_PARAMS);
    stance_param_desc *p = gf_alloc(c->gf, (size_t)c->param_count + 1, sizeof *p);
    char *name = gf_alloc(c->gf, strlen(buf) + 1, 1);
    if (!p || !name) return gf_no_memory(c);
    if (c->param_count) memcpy(p, c->params, sizeof *p * (size_t)c->param_count);
    memcpy(name, buf, strlen(buf) + 1);
    p[c->param_count].name = name, p[c->param_count].type = STANCE_PARAM_FLOAT;
    c->params = p, c->param_count++;
    *out = name;
    return add_drive(c, at, STANCE_DRIVE_PARAM, name, NULL, curve);
}

/* {"param": P} or {"curve": C} at o[key]: *param, *curve (one set) */
static stance_status read_source(ctx *c, const jobj *o, const char *key, const char **param, const char **curve) {
    static const char *const keys[] = {"param", "curve", NULL};
    json_t *v = json_object_get(o->v, key);
    jpath p = {o->at, key, -1};
    jobj so = {v, &p, "a binding"};
    stance_status s;
    *param = *curve = NULL;
    if ((s = gf_check_keys(c, &so, keys)) || (s = gf_get_string(c, &so, "param", 0, param)) ||
        (s = gf_get_string(c, &so, "curve", 0, curve)))
        return s;
    if (!*param == !*curve)
        return gf_fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"%s\": expected {\"param\": NAME} or {\"curve\": NAME} (one of them)", key);
    if (*curve) {
        jpath pc = {&p, "curve", -1};
        return find_curve(c, &pc, *curve);
    }
    jpath pp = {&p, "param", -1};
    int i;
    if ((s = gf_find_param(c, &pp, *param, &i))) return s;
    if (c->params[i].type != STANCE_PARAM_FLOAT && c->params[i].type != STANCE_PARAM_INT)
        return gf_fail_at(c, &pp, 0, STANCE_ERR_FORMAT, "parameter '%s' is a %s; a binding reads a float or int parameter",
                          *param, gf_param_types[c->params[i].type].name);
    return STANCE_OK;
}

stance_status gf_read_weight(ctx *c, const jobj *o, const char *key, stance_drive_target target, const char *name,
                             int number_ok, float *weight) {
    json_t *v = json_object_get(o->v, key);
    jpath p = {o->at, key, -1};
    if (!v) return STANCE_OK;
    if (!json_is_object(v)) {
        if (number_ok) return gf_get_number(c, o, key, 0, 0.0, 1.0, 0, weight);
        return gf_fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"%s\": expected {\"param\": NAME} or {\"curve\": NAME}, got %s", key,
                          gf_type_name(v));
    }
    const char *param, *curve;
    stance_status s = read_source(c, o, key, &param, &curve);
    return s ? s : add_drive(c, &p, target, name, param, curve);
}

stance_status gf_read_source_param(ctx *c, const jobj *o, const char *key, const char **out) {
    const char *param, *curve;
    stance_status s = read_source(c, o, key, &param, &curve);
    if (s || param) return *out = param, s;
    jpath p = {o->at, key, -1}, pc = {&p, "curve", -1};
    return curve_param(c, &pc, curve, out);
}

stance_status gf_read_condition_curve(ctx *c, const jobj *o, const char **param) {
    const char *curve;
    jpath p = {o->at, "curve", -1};
    stance_status s = gf_get_string(c, o, "curve", 1, &curve);
    if (s) return s;
    if (json_object_get(o->v, "param"))
        return gf_fail_at(c, &p, 1, STANCE_ERR_FORMAT, "a condition reads \"param\" or \"curve\", not both");
    if ((s = find_curve(c, &p, curve))) return s;
    return curve_param(c, &p, curve, param);
}

stance_status gf_read_clip_curves(ctx *c, const jobj *co, const stance_clip *clip) {
    json_t *v = json_object_get(co->v, "curves"), *kv;
    if (!v) return STANCE_OK;
    jpath p = {co->at, "curves", -1};
    stance_status s = gf_want_object(c, v, &p, "\"curves\" (an object: curve name -> [[t, v], ...])");
    if (s) return s;
    struct gf_curves *cv = c->cv;
    const char *name;
    json_object_foreach(v, name, kv) {
        jpath pn = {&p, name, -1};
        if (name[0] == '_') continue; /* comments */
        if ((s = gf_check_name(c, &pn, name, 0))) return s;
        if (!json_is_array(kv) || json_array_size(kv) < 1 || json_array_size(kv) > STANCE_MAX_CURVE_KEYS)
            return gf_fail_at(c, &pn, 0, STANCE_ERR_FORMAT, "curve '%s': expected an array of 1..%d [t, v] keys, got %s", name,
                              STANCE_MAX_CURVE_KEYS, json_is_array(kv) ? "an array of another size" : gf_type_name(kv));
        const int n = (int)json_array_size(kv);
        float *keys = gf_alloc(c->gf, 2 * (size_t)n, sizeof *keys);
        if (!keys) return gf_no_memory(c);
        for (int k = 0; k < n; k++) {
            json_t *e = json_array_get(kv, (size_t)k);
            jpath pk = {&pn, NULL, k};
            json_t *t = json_array_get(e, 0), *y = json_array_get(e, 1);
            if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_number(t) || !json_is_number(y))
                return gf_fail_at(c, &pk, 0, STANCE_ERR_FORMAT, "curve '%s' key %d: expected [t, v], two numbers", name, k);
            const double td = json_number_value(t), vd = json_number_value(y);
            jpath pt = {&pk, NULL, 0}, pv = {&pk, NULL, 1};
            if (!isfinite(vd) || !st_finite((float)vd))
                return gf_fail_at(c, &pv, 0, STANCE_ERR_FORMAT, "curve '%s' key %d: the value %g is not a finite float", name, k, vd);
            if (!(td >= 0.0 && (float)td <= clip->duration))
                return gf_fail_at(c, &pt, 0, STANCE_ERR_FORMAT, "curve '%s' key %d at %g s is outside clip '%.63s' (0..%g s): "
                                  "t is seconds into the clip", name, k, td, clip->name, (double)clip->duration);
            keys[2 * k] = (float)td, keys[2 * k + 1] = (float)vd;
            if (k > 0 && !(keys[2 * k] > keys[2 * k - 2]))
                return gf_fail_at(c, &pt, 0, STANCE_ERR_FORMAT, "curve '%s' key %d at %g s is not after key %d (%g s): times "
                                  "must increase", name, k, td, k - 1, (double)keys[2 * k - 2]);
        }
        if (cv->track_count == cv->track_cap) return gf_no_memory(c); /* (gf_scan_curves counted them) */
        stance_curve_desc *d = &cv->tracks[cv->track_count++];
        d->clip = clip, d->name = name, d->key_count = n, d->keys = keys;
    }
    return STANCE_OK;
}

void gf_finish_curves(ctx *c, stance_graph_desc *gd) {
    if (!c->cv) return;
    gd->curves = c->cv->tracks, gd->curve_count = c->cv->track_count;
    gd->drives = c->cv->drives, gd->drive_count = c->cv->drive_count;
}

#endif /* STANCE_HAVE_JANSSON */
