/* src/io/graphfile_params.c - the "params" section of a graph file. */
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

stance_status gf_read_params(ctx *c, const jobj *root) {
    static const char *const keys[] = {"name", "type", "value", "damping", NULL};
    json_t *arr;
    int n;
    stance_status s = gf_get_array(c, root, "params", 0, 0, STANCE_MAX_PARAMS, &arr, &n);
    if (s || !n) return s;
    jpath pa = {root->at, "params", -1};
    c->params = gf_alloc(c->gf, (size_t)n, sizeof *c->params);
    if (!c->params) return gf_no_memory(c);
    for (int i = 0; i < n; i++) {
        jpath pi = {&pa, NULL, i};
        jobj o = {json_array_get(arr, (size_t)i), &pi, "a parameter"};
        stance_param_desc *d = &c->params[i];
        int type = -1;
        if ((s = gf_want_object(c, o.v, &pi, "a parameter")) || (s = gf_check_keys(c, &o, keys)) ||
            (s = gf_get_name(c, &o, "name", 1, 0, &d->name)) || (s = gf_require(c, &o, "type")) ||
            (s = gf_get_enum(c, &o, "type", "parameter type", gf_param_types, &type)))
            return s;
        jpath pn = {&pi, "name", -1};
        for (int k = 0; k < i; k++)
            if (!strcmp(c->params[k].name, d->name)) {
                jpath pk = {&pa, NULL, k}, pkn = {&pk, "name", -1};
                return gf_duplicate(c, &pn, &pkn, "parameter", d->name);
            }
        d->type = (stance_param_type)type;
        json_t *v = json_object_get(o.v, "value");
        jpath pv = {&pi, "value", -1};
        if (v && d->type == STANCE_PARAM_TRIGGER)
            return gf_fail_at(c, &pv, 0, STANCE_ERR_FORMAT, "a trigger has no \"value\" (it starts unset)");
        if (v && d->type == STANCE_PARAM_BOOL) {
            int b = 0;
            if ((s = gf_get_bool(c, &o, "value", &b))) return s;
            d->value = (float)b;
        } else if (d->type == STANCE_PARAM_INT) {
            int iv = 0;
            if ((s = gf_get_int(c, &o, "value", -16777216, 16777216, &iv))) return s;
            d->value = (float)iv;
        } else if (d->type == STANCE_PARAM_FLOAT) {
            if ((s = gf_get_number(c, &o, "value", 0, -1e30, 1e30, 0, &d->value))) return s;
        }
        if (json_object_get(o.v, "damping")) {
            jpath pd = {&pi, "damping", -1};
            if (d->type != STANCE_PARAM_FLOAT)
                return gf_fail_at(c, &pd, 1, STANCE_ERR_FORMAT, "\"damping\" is for float parameters; '%s' is a %s",
                               d->name, gf_param_types[d->type].name);
            if ((s = gf_get_number(c, &o, "damping", 0, 0.0, 60.0, 0, &d->damping))) return s;
        }
        c->param_count = i + 1;
    }
    return STANCE_OK;
}

#endif /* STANCE_HAVE_JANSSON */
