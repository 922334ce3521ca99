/* src/io/graphfile_ik.c - the "ik" section of a graph file: the IK stage
 * after the layers (stance_ik_desc; kind "footlock": legs by joint name,
 * contact events and thresholds; "two_bone": one leg; "aim": a chain). Joint names are checked here so a bad
 * one is reported at its FILE:LINE:COLUMN. */
#include <stdio.h>
#include <string.h>

#include "core/base/internal.h"
#include "io/graphfile_internal.h"

#ifdef STANCE_HAVE_JANSSON
#include <jansson.h>
#include "stance/build.h"

static const named ik_kinds[] = {{"footlock", STANCE_IK_FOOTLOCK}, {"two_bone", STANCE_IK_TWO_BONE}, {"aim", STANCE_IK_AIM}, {NULL, 0}};

static stance_status read_vec3(ctx *c, const jobj *o, const char *key, float *out) {
    json_t *rv = json_object_get(o->v, key);
    if (!rv) return STANCE_OK;
    jpath p = {o->at, key, -1};
    if (!json_is_array(rv) || json_array_size(rv) != 3)
        return gf_fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"%s\": expected an array of 3 numbers", key);
    for (int a = 0; a < 3; a++) {
        json_t *v = json_array_get(rv, (size_t)a);
        jpath pv = {&p, NULL, a};
        if (!json_is_number(v) || !st_finite((float)json_number_value(v)))
            return gf_fail_at(c, &pv, 0, STANCE_ERR_FORMAT, "expected a finite number, got %s", gf_type_name(v));
        out[a] = (float)json_number_value(v);
    }
    return STANCE_OK;
}

static stance_status read_leg(ctx *c, const jobj *o, stance_ik_leg_desc *leg) {
    static const char *const keys[] = {"hip", "knee", "ankle", "down_event", "up_event", NULL};
    static const char *const joints[] = {"hip", "knee", "ankle"};
    const char **out[3] = {&leg->hip, &leg->knee, &leg->ankle};
    stance_status s;
    if ((s = gf_want_object(c, o->v, o->at, "a leg")) || (s = gf_check_keys(c, o, keys))) return s;
    for (int k = 0; k < 3; k++) {
        int j;
        jpath p = {o->at, joints[k], -1};
        if ((s = gf_get_string(c, o, joints[k], 1, out[k])) || (s = gf_find_joint(c, &p, 0, *out[k], &j))) return s;
    }
    if ((s = gf_get_string(c, o, "down_event", 0, &leg->down_event)) || (s = gf_get_string(c, o, "up_event", 0, &leg->up_event)))
        return s;
    if ((leg->down_event == NULL) != (leg->up_event == NULL)) {
        jpath p = {o->at, leg->down_event ? "down_event" : "up_event", -1};
        return gf_fail_at(c, &p, 1, STANCE_ERR_FORMAT, "give both \"down_event\" and \"up_event\", or neither");
    }
    return STANCE_OK;
}

stance_status gf_read_ik(ctx *c, const jobj *root, stance_graph_desc *gd) {
    static const char *const keys[] = {"name", "kind", "legs", "pelvis", "blend_time", "plant_time", "softness",
                                       "contact_height", "contact_speed", "contact_min_duration", "root_velocity",
                                       "chain", "forward", "max_angle", "weight", NULL};
    json_t *arr;
    int n;
    stance_status s = gf_get_array(c, root, "ik", 0, 1, STANCE_MAX_IK, &arr, &n);
    if (s || !n) return s;
    jpath pa = {root->at, "ik", -1};
    stance_ik_desc *kd = gf_alloc(c->gf, (size_t)n, sizeof *kd);
    if (!kd) return gf_no_memory(c);
    for (int i = 0; i < n; i++) {
        jpath pi = {&pa, NULL, i};
        jobj o = {json_array_get(arr, (size_t)i), &pi, "an ik entry"};
        stance_ik_desc *k = &kd[i];
        memset(k, 0, sizeof *k);
        int kind = STANCE_IK_FOOTLOCK;
        if ((s = gf_want_object(c, o.v, &pi, "an ik entry")) || (s = gf_check_keys(c, &o, keys)) ||
            (s = gf_get_name(c, &o, "name", 1, 0, &k->name)) || (s = gf_require(c, &o, "kind")) ||
            (s = gf_get_enum(c, &o, "kind", "ik kind", ik_kinds, &kind)))
            return s;
        k->kind = (stance_ik_kind)kind;
        jpath pn = {&pi, "name", -1};
        for (int e = 0; e < i; e++)
            if (!strcmp(kd[e].name, k->name)) {
                jpath pe = {&pa, NULL, e}, pen = {&pe, "name", -1};
                return gf_duplicate(c, &pn, &pen, "ik entry", k->name);
            }
        if (json_object_get(o.v, "weight")) { /* a binding: {"param": P} or {"curve": C} */
            jpath pw = {&pi, "weight", -1};
            if (k->kind == STANCE_IK_FOOTLOCK)
                return gf_fail_at(c, &pw, 1, STANCE_ERR_FORMAT, "a footlock entry has no weight (only two_bone and aim do)");
            if ((s = gf_read_weight(c, &o, "weight", STANCE_DRIVE_IK_WEIGHT, k->name, 0, NULL))) return s;
        }
        if (k->kind == STANCE_IK_AIM) {
            json_t *chain;
            if ((s = gf_get_array(c, &o, "chain", 1, 1, STANCE_AIM_MAX_CHAIN, &chain, &k->chain_count))) return s;
            jpath pc = {&pi, "chain", -1};
            for (int j = 0; j < k->chain_count; j++) {
                json_t *v = json_array_get(chain, (size_t)j);
                jpath pj = {&pc, NULL, j};
                int joint;
                if (!json_is_string(v)) return gf_fail_at(c, &pj, 0, STANCE_ERR_FORMAT, "expected a joint name, got %s", gf_type_name(v));
                k->chain[j] = json_string_value(v);
                if ((s = gf_find_joint(c, &pj, 0, k->chain[j], &joint))) return s;
            }
            if ((s = read_vec3(c, &o, "forward", k->forward)) ||
                (s = gf_get_number(c, &o, "max_angle", 0, 0.0, 3.14159265, 0, &k->max_angle)))
                return s;
            static const char *const not_aim[] = {"legs", "pelvis", "blend_time", "plant_time", "softness", "contact_height",
                                                  "contact_speed", "contact_min_duration", "root_velocity", NULL};
            for (int j = 0; not_aim[j]; j++)
                if (json_object_get(o.v, not_aim[j])) {
                    jpath p = {&pi, not_aim[j], -1};
                    return gf_fail_at(c, &p, 1, STANCE_ERR_FORMAT, "\"%s\" has no meaning for an aim entry", not_aim[j]);
                }
            continue;
        }
        static const char *const aim_only[] = {"chain", "forward", "max_angle", NULL};
        for (int j = 0; aim_only[j]; j++)
            if (json_object_get(o.v, aim_only[j])) {
                jpath p = {&pi, aim_only[j], -1};
                return gf_fail_at(c, &p, 1, STANCE_ERR_FORMAT, "\"%s\" is for aim entries", aim_only[j]);
            }
        json_t *legs;
        if ((s = gf_get_array(c, &o, "legs", 1, 1, k->kind == STANCE_IK_TWO_BONE ? 1 : STANCE_FOOT_MAX, &legs, &k->leg_count))) return s;
        jpath pl = {&pi, "legs", -1};
        for (int l = 0; l < k->leg_count; l++) {
            jpath pj = {&pl, NULL, l};
            jobj lo = {json_array_get(legs, (size_t)l), &pj, "a leg"};
            if ((s = read_leg(c, &lo, &k->legs[l]))) return s;
        }
        if ((s = gf_get_string(c, &o, "pelvis", 0, &k->pelvis))) return s;
        if (k->pelvis && k->pelvis[0]) {
            int j;
            jpath pp = {&pi, "pelvis", -1};
            if ((s = gf_find_joint(c, &pp, 0, k->pelvis, &j))) return s;
        }
        if ((s = gf_get_number(c, &o, "blend_time", 0, 0.0, 10.0, 0, &k->blend_time)) ||
            (s = gf_get_number(c, &o, "plant_time", 0, 0.0, 10.0, 0, &k->plant_time)) ||
            (s = gf_get_number(c, &o, "softness", 0, 0.0, 0.5, 0, &k->softness)) ||
            (s = gf_get_number(c, &o, "contact_height", 0, 0.0, 1e6, 0, &k->contact_height)) ||
            (s = gf_get_number(c, &o, "contact_speed", 0, 0.0, 1e6, 0, &k->contact_speed)) ||
            (s = gf_get_number(c, &o, "contact_min_duration", 0, 0.0, 10.0, 0, &k->contact_min_duration)))
            return s;
        if (k->softness >= 0.5f) {
            jpath p = {&pi, "softness", -1};
            return gf_fail_at(c, &p, 0, STANCE_ERR_FORMAT, "\"softness\" must be below 0.5");
        }
        if ((s = read_vec3(c, &o, "root_velocity", k->root_velocity))) return s;
    }
    gd->ik = kd;
    gd->ik_count = n;
    return STANCE_OK;
}

#endif /* STANCE_HAVE_JANSSON */
