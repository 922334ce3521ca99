/* src/io/graphfile_names.c - names of the graph: clips, joints,
 * parameters, machines and states looked up while reading, an unknown one
 * answered with the project's one suggestion (src/core/base/names.c), and
 * duplicates pointing at the first definition. */
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

static const char *clip_name_at(const void *set, int i) {
    const stance_asset *a = set;
    return a->clips[i] ? a->clips[i]->name : NULL;
}
static const char *joint_name_at(const void *set, int i) {
    return stance_skeleton_joint_name((const stance_skeleton *)set, i);
}
static const char *param_name_at(const void *set, int i) { return ((const ctx *)set)->params[i].name; }
static const char *machine_name_at(const void *set, int i) { return ((const ctx *)set)->machines[i].name; }
static const char *state_name_at(const void *set, int i) {
    return ((const stance_machine_desc *)set)->states[i].name;
}

stance_status gf_find_clip_at(ctx *c, const jpath *at, int at_key, const char *name, const stance_clip **out) {
    *out = stance_asset_find_clip(c->asset, name);
    for (int i = 0; !*out && i < c->gf->retargeted_count; i++)
        if (!strcmp(c->gf->retargeted[i]->name, name)) *out = c->gf->retargeted[i];
    if (*out) return STANCE_OK;
    char hint[200];
    st_suggest(hint, sizeof hint, name, clip_name_at, c->asset, c->asset->clip_count);
    return gf_fail_at(c, at, at_key, STANCE_ERR_NOT_FOUND, "unknown clip '%.63s'%s", name, hint);
}
stance_status gf_find_clip(ctx *c, const jpath *at, const char *name, const stance_clip **out) {
    return gf_find_clip_at(c, at, 0, name, out);
}

stance_status gf_find_joint(ctx *c, const jpath *at, int at_key, const char *name, int *out) {
    const stance_skeleton *sk = c->asset->skeleton;
    *out = stance_skeleton_find(sk, name);
    if (*out >= 0) return STANCE_OK;
    char hint[200];
    st_suggest(hint, sizeof hint, name, joint_name_at, sk, sk->joint_count);
    return gf_fail_at(c, at, at_key, STANCE_ERR_NOT_FOUND, "unknown joint '%.63s'%s", name, hint);
}

int gf_param_index(const ctx *c, const char *name) {
    for (int i = 0; i < c->param_count; i++)
        if (!strcmp(c->params[i].name, name)) return i;
    return -1;
}

stance_status gf_find_param(ctx *c, const jpath *at, const char *name, int *out) {
    *out = gf_param_index(c, name);
    if (*out >= 0) return STANCE_OK;
    char hint[200];
    st_suggest(hint, sizeof hint, name, param_name_at, c, c->param_count);
    return gf_fail_at(c, at, 0, STANCE_ERR_NOT_FOUND, "unknown parameter '%.63s'%s", name, hint);
}

int gf_machine_index(const ctx *c, const char *name) {
    for (int i = 0; i < c->machine_count; i++)
        if (c->machines[i].name && !strcmp(c->machines[i].name, name)) return i;
    return -1;
}

stance_status gf_find_machine(ctx *c, const jpath *at, const char *name, int *out) {
    *out = gf_machine_index(c, name);
    if (*out >= 0) return STANCE_OK;
    char hint[200];
    st_suggest(hint, sizeof hint, name, machine_name_at, c, c->machine_count);
    return gf_fail_at(c, at, 0, STANCE_ERR_NOT_FOUND, "unknown machine '%.63s'%s", name, hint);
}

int gf_state_index(const stance_machine_desc *m, const char *name) {
    for (int i = 0; i < m->state_count; i++)
        if (!strcmp(m->states[i].name, name)) return i;
    return -1;
}

stance_status gf_find_state(ctx *c, const jpath *at, const stance_machine_desc *m, const char *name) {
    if (gf_state_index(m, name) >= 0) return STANCE_OK;
    char hint[200];
    st_suggest(hint, sizeof hint, name, state_name_at, m, m->state_count);
    return gf_fail_at(c, at, 0, STANCE_ERR_NOT_FOUND, "unknown state '%.63s' in machine '%s'%s", name, m->name, hint);
}

/* "NAME is defined twice" pointing at the second, naming the first's line. */
stance_status gf_duplicate(ctx *c, const jpath *second, const jpath *first, const char *kind, const char *name) {
    int line, col;
    gf_position_of(c, first, 0, &line, &col);
    return gf_fail_at(c, second, 0, STANCE_ERR_FORMAT, "%s '%s' is defined twice (first at line %d, column %d)", kind,
                   name, line, col);
}

#endif /* STANCE_HAVE_JANSSON */
