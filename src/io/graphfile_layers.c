/* src/io/graphfile_layers.c - the "layers" section of a graph file: masks,
 * additive references, and the rule that a machine runs in one place. */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/internal.h"
#include "core/base/names.h"
#include "io/graphfile_internal.h"

#ifdef STANCE_HAVE_JANSSON
#include <jansson.h>
#include "stance/build.h"

static stance_status read_mask(ctx *c, const jobj *o, const float **out) {
    static const char *const keys[] = {"subtree", "falloff", "weight", "joints", "weights", NULL};
    static const char *const kinds[] = {"subtree", "joints", "weights", NULL};
    stance_status s;
    if ((s = gf_want_object(c, o->v, o->at, "a mask")) || (s = gf_check_keys(c, o, keys))) return s;
    const char *kind = NULL;
    for (int i = 0; kinds[i]; i++) {
        if (!json_object_get(o->v, kinds[i])) continue;
        if (kind) {
            jpath p = {o->at, kinds[i], -1};
            return gf_fail_at(c, &p, 1, STANCE_ERR_FORMAT, "a mask is one of \"subtree\", \"joints\" or \"weights\": "
                           "\"%s\" and \"%s\" are both given", kind, kinds[i]);
        }
        kind = kinds[i];
    }
    if (!kind)
        return gf_fail_at(c, o->at, 0, STANCE_ERR_FORMAT, "a mask needs \"subtree\", \"joints\" or \"weights\"");
    const stance_skeleton *sk = c->asset->skeleton;
    float *w = gf_alloc(c->gf, (size_t)sk->joint_count, sizeof *w);
    if (!w) return gf_no_memory(c);
    float weight = 1.0f;
    int falloff = 0;
    jpath pk = {o->at, kind, -1};
    if ((s = gf_get_number(c, o, "weight", 0, 0.0, 1.0, 0, &weight))) return s;
    if (strcmp(kind, "subtree") && json_object_get(o->v, "falloff")) {
        jpath pf = {o->at, "falloff", -1};
        return gf_fail_at(c, &pf, 1, STANCE_ERR_FORMAT, "\"falloff\" is for \"subtree\" masks");
    }
    if (!strcmp(kind, "weights") && json_object_get(o->v, "weight")) {
        jpath pw = {o->at, "weight", -1};
        return gf_fail_at(c, &pw, 1, STANCE_ERR_FORMAT, "\"weight\" has no meaning with \"weights\" (each joint has its own)");
    }
    stance_error e = {0};
    if (!strcmp(kind, "subtree")) {
        const char *joint = NULL;
        int j;
        if ((s = gf_get_string(c, o, "subtree", 1, &joint)) || (s = gf_find_joint(c, &pk, 0, joint, &j)) ||
            (s = gf_get_int(c, o, "falloff", 0, 64, &falloff)))
            return s;
        s = stance_mask_subtree(sk, j, weight, falloff, w, &e);
    } else if (!strcmp(kind, "joints")) {
        json_t *arr = json_object_get(o->v, "joints");
        if (!json_is_array(arr) || json_array_size(arr) == 0)
            return gf_fail_at(c, &pk, 0, STANCE_ERR_FORMAT, "\"joints\": expected a non-empty array of joint names");
        for (size_t i = 0; i < json_array_size(arr); i++) {
            json_t *v = json_array_get(arr, i);
            jpath pi = {&pk, NULL, (int)i};
            int j;
            if (!json_is_string(v))
                return gf_fail_at(c, &pi, 0, STANCE_ERR_FORMAT, "expected a joint name, got %s", gf_type_name(v));
            if ((s = gf_find_joint(c, &pi, 0, json_string_value(v), &j))) return s;
            w[j] = weight;
        }
    } else {
        json_t *obj = json_object_get(o->v, "weights");
        if (!json_is_object(obj) || json_object_size(obj) == 0)
            return gf_fail_at(c, &pk, 0, STANCE_ERR_FORMAT, "\"weights\": expected an object of joint names to weights");
        const char *key;
        json_t *v;
        jobj wo = {obj, &pk, "\"weights\""};
        json_object_foreach(obj, key, v) {
            jpath pj = {&pk, key, -1};
            int j;
            float x;
            if ((s = gf_find_joint(c, &pj, 1, key, &j)) || (s = gf_get_number(c, &wo, key, 1, 0.0, 1.0, 0, &x))) return s;
            w[j] = x;
        }
    }
    if (s) return gf_fail_at(c, o->at, 0, s, "bad mask: %s", e.message);
    *out = w;
    return STANCE_OK;
}

/* "first_frame", "first_frame:CLIP" or "clip:CLIP" (synced). */
static stance_status read_additive_ref(ctx *c, const jobj *o, stance_layer_desc *l) {
    const char *ref = NULL;
    stance_status s = gf_get_string(c, o, "additive_ref", 0, &ref);
    if (s || !ref) return s;
    jpath p = {o->at, "additive_ref", -1};
    if (l->mode != STANCE_LAYER_ADDITIVE)
        return gf_fail_at(c, &p, 1, STANCE_ERR_FORMAT, "\"additive_ref\" is for additive layers (\"mode\": \"additive\")");
    if (!strcmp(ref, "first_frame")) {
        l->additive_ref = STANCE_ADDITIVE_FIRST_FRAME;
        return STANCE_OK;
    }
    if (!strncmp(ref, "first_frame:", 12)) {
        l->additive_ref = STANCE_ADDITIVE_FIRST_FRAME;
        return gf_find_clip(c, &p, ref + 12, &l->ref_clip);
    }
    if (!strncmp(ref, "clip:", 5)) {
        l->additive_ref = STANCE_ADDITIVE_REF_CLIP_SYNC;
        return gf_find_clip(c, &p, ref + 5, &l->ref_clip);
    }
    return gf_fail_at(c, &p, 0, STANCE_ERR_FORMAT,
                   "\"additive_ref\": expected \"first_frame\", \"first_frame:CLIP\" or \"clip:CLIP\", got \"%.63s\"",
                   ref);
}

stance_status gf_read_layers(ctx *c, const jobj *root, stance_graph_desc *gd) {
    static const char *const keys[] = {"name", "machine", "mode", "space", "weight", "mask", "additive_ref",
                                       "priority", NULL};
    json_t *arr;
    int n;
    stance_status s = gf_get_array(c, root, "layers", 0, 1, STANCE_MAX_LAYERS, &arr, &n);
    if (s || !n) return s;
    jpath pa = {root->at, "layers", -1};
    stance_layer_desc *ld = gf_alloc(c->gf, (size_t)n, sizeof *ld);
    if (!ld) return gf_no_memory(c);
    for (int i = 0; i < n; i++) {
        jpath pi = {&pa, NULL, i};
        jobj o = {json_array_get(arr, (size_t)i), &pi, "a layer"};
        stance_layer_desc *l = &ld[i];
        int mi, mode = STANCE_LAYER_OVERRIDE, space = STANCE_SPACE_LOCAL;
        l->weight = 1.0f;
        if ((s = gf_want_object(c, o.v, &pi, "a layer")) || (s = gf_check_keys(c, &o, keys)) ||
            (s = gf_get_name(c, &o, "name", 1, 0, &l->name)))
            return s;
        jpath pn = {&pi, "name", -1}, pm = {&pi, "machine", -1};
        for (int k = 0; k < i; k++)
            if (!strcmp(ld[k].name, l->name)) {
                jpath pk = {&pa, NULL, k}, pkn = {&pk, "name", -1};
                return gf_duplicate(c, &pn, &pkn, "layer", l->name);
            }
        if ((s = gf_get_string(c, &o, "machine", 1, &l->machine)) || (s = gf_find_machine(c, &pm, l->machine, &mi)) ||
            (s = gf_get_enum(c, &o, "mode", "layer mode", gf_layer_modes, &mode)) ||
            (s = gf_get_enum(c, &o, "space", "space", gf_spaces, &space)) ||
            (s = (i == 0 && json_is_object(json_object_get(o.v, "weight")))
                     ? gf_fail_at(c, &(jpath){&pi, "weight", -1}, 0, STANCE_ERR_FORMAT,
                                  "the first layer is the base: its weight is always 1, not bound")
                     : gf_read_weight(c, &o, "weight", STANCE_DRIVE_LAYER_WEIGHT, l->name, 1, &l->weight)) ||
            (s = gf_get_int(c, &o, "priority", -1000, 1000, &l->priority)))
            return s;
        l->mode = (stance_layer_mode)mode;
        l->space = (stance_layer_space)space;
        if (i == 0 && l->mode != STANCE_LAYER_OVERRIDE) {
            jpath p = {&pi, "mode", -1};
            return gf_fail_at(c, &p, 0, STANCE_ERR_FORMAT, "the first layer is the base: it must be an override layer");
        }
        if (i == 0 && l->weight != 1.0f) {
            jpath p = {&pi, "weight", -1};
            return gf_fail_at(c, &p, 0, STANCE_ERR_FORMAT, "the first layer is the base: its weight is always 1");
        }
        if ((s = read_additive_ref(c, &o, l))) return s;
        json_t *mask = json_object_get(o.v, "mask");
        if (mask) {
            jpath pk = {&pi, "mask", -1};
            jobj mo = {mask, &pk, "a mask"};
            if ((s = read_mask(c, &mo, &l->mask))) return s;
        }
    }
    gd->layers = ld;
    gd->layer_count = n;
    return STANCE_OK;
}

/* A machine runs in one place: one nesting state or one layer. */
stance_status gf_check_machine_use(ctx *c, const stance_graph_desc *gd) {
    char used[STANCE_MAX_MACHINES][128];
    memset(used, 0, sizeof used);
    jpath pm = {NULL, "machines", -1}, pl = {NULL, "layers", -1};
    for (int m = 0; m < c->machine_count; m++)
        for (int i = 0; i < c->machines[m].state_count; i++) {
            const stance_state_desc *st = &c->machines[m].states[i];
            int t = st->type == STANCE_MOTION_MACHINE ? gf_machine_index(c, st->machine) : -1;
            if (t < 0) continue;
            jpath pi = {&pm, NULL, m}, ps = {&pi, "states", -1}, pj = {&ps, NULL, i}, pk = {&pj, "machine", -1};
            if (used[t][0])
                return gf_fail_at(c, &pk, 0, STANCE_ERR_FORMAT, "machine '%s' already runs in %s; a machine runs in one place",
                               st->machine, used[t]);
            snprintf(used[t], sizeof used[t], "state '%.50s/%.50s'", c->machines[m].name, st->name);
        }
    for (int l = 0; l < gd->layer_count; l++) {
        int t = gf_machine_index(c, gd->layers[l].machine);
        jpath pi = {&pl, NULL, l}, pk = {&pi, "machine", -1};
        if (used[t][0])
            return gf_fail_at(c, &pk, 0, STANCE_ERR_FORMAT, "machine '%s' already runs in %s; a machine runs in one place",
                           gd->layers[l].machine, used[t]);
        snprintf(used[t], sizeof used[t], "layer '%.63s'", gd->layers[l].name);
    }
    return STANCE_OK;
}

#endif /* STANCE_HAVE_JANSSON */
