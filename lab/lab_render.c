/* lab/lab_render.c - what the lab's WebGL renderer and state-machine view
 * read from a view: its skinned meshes (vertex arrays in the wasm heap), the
 * skinning matrices of the current pose (stance_skin_matrices, the call an
 * engine makes each frame), the graph described through stance/graph_query.h
 * as JSON, the live machine/parameter/layer values, and generic parameter and
 * layer controls for any graph (a file's own graph included). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lab.h"
#include "stance/graph_query.h"

static const stance_mesh *mesh_at(int view, int m) {
    lab_view *v = lab_view_at(view);
    return v && m >= 0 && m < v->mesh_count ? v->meshes[m] : NULL;
}
LAB_API int lab_mesh_count(int view) { lab_view *v = lab_view_at(view); return v ? v->mesh_count : 0; }
LAB_API int lab_mesh_vertex_count(int view, int m) { const stance_mesh *me = mesh_at(view, m); return me ? me->vertex_count : 0; }
LAB_API int lab_mesh_index_count(int view, int m) { const stance_mesh *me = mesh_at(view, m); return me ? me->index_count : 0; }
LAB_API int lab_mesh_skin(int view, int m) { const stance_mesh *me = mesh_at(view, m); return me ? me->skin : -1; }
LAB_API const float *lab_mesh_positions(int view, int m) { const stance_mesh *me = mesh_at(view, m); return me ? me->positions : NULL; }
LAB_API const float *lab_mesh_normals(int view, int m) { const stance_mesh *me = mesh_at(view, m); return me ? me->normals : NULL; }
LAB_API const uint16_t *lab_mesh_joints(int view, int m) { const stance_mesh *me = mesh_at(view, m); return me ? me->joints : NULL; }
LAB_API const float *lab_mesh_weights(int view, int m) { const stance_mesh *me = mesh_at(view, m); return me ? me->weights : NULL; }
LAB_API const uint32_t *lab_mesh_indices(int view, int m) { const stance_mesh *me = mesh_at(view, m); return me ? me->indices : NULL; }
LAB_API const float *lab_mesh_color(int view, int m) { const stance_mesh *me = mesh_at(view, m); return me ? me->base_color : NULL; }
LAB_API int lab_triangle_count(int view) {
    lab_view *v = lab_view_at(view);
    int n = 0;
    for (int m = 0; v && m < v->mesh_count; m++) n += v->meshes[m]->index_count / 3;
    return n;
}

LAB_API int lab_skin_count(int view) { lab_view *v = lab_view_at(view); return v ? v->skin_count : 0; }
LAB_API int lab_skin_joint_count(int view, int s) {
    lab_view *v = lab_view_at(view);
    return v && s >= 0 && s < v->skin_count ? v->skins[s]->joint_count : 0;
}

static float g_matrices[STANCE_MAX_SKIN_JOINTS * 16];
/* The skin's matrices for the view's current model pose: 16 floats per skin
 * joint, column-major (valid until the next call). NULL on a bad index. */
LAB_API const float *lab_skin_matrices(int view, int s) {
    lab_view *v = lab_view_at(view);
    if (!v || s < 0 || s >= v->skin_count) { lab_fail("no skin %d in view %d", s, view); return NULL; }
    if (stance_skin_matrices(v->skins[s], stance_instance_model_pose(v->inst), g_matrices, STANCE_MAX_SKIN_JOINTS, NULL)) {
        lab_fail("skin matrices failed");
        return NULL;
    }
    return g_matrices;
}

/* ---- the graph as JSON ------------------------------------------------------ */

static char g_json[1 << 16];
static size_t g_at;
static int g_over;

static void put(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void put(const char *fmt, ...) {
    if (g_over) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(g_json + g_at, sizeof g_json - g_at, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof g_json - g_at) g_over = 1;
    else g_at += (size_t)n;
}
/* A name as a JSON string (names are validated printable text; quotes and
 * backslashes escaped anyway). */
static void put_name(const char *s) {
    put("\"");
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\') put("\\%c", *s);
        else if ((unsigned char)*s >= 0x20) put("%c", *s);
    }
    put("\"");
}

/* The values the graph compares parameter p with (a condition's value, and
 * value -/+ its hysteresis) and the positions of blend space entries on p's
 * axis, comma-separated: what the lab's slider ranges are made from. */
static void put_uses(const stance_graph *g, int p) {
    int n = 0;
    for (int t = 0; t < stance_graph_transition_count(g); t++) {
        stance_transition_info ti;
        if (stance_graph_transition(g, t, &ti, NULL)) continue;
        for (int c = 0; c < ti.condition_count; c++) {
            stance_condition_info ci;
            if (stance_graph_condition(g, t, c, &ci, NULL) || ci.param != p) continue;
            if (ci.op == STANCE_CMP_TRUE || ci.op == STANCE_CMP_FALSE) continue;
            put("%s%.9g", n++ ? "," : "", (double)ci.value);
            if (ci.hysteresis > 0.0f) put(",%.9g,%.9g", (double)(ci.value - ci.hysteresis), (double)(ci.value + ci.hysteresis));
        }
    }
    for (int s = 0; s < stance_graph_state_count(g); s++) {
        stance_blend_info bi;
        if (stance_graph_blend_space(g, s, &bi, NULL) || (bi.param_x != p && bi.param_y != p)) continue;
        for (int e = 0; e < bi.entry_count; e++) {
            float at[2];
            if (stance_graph_blend_entry(g, s, e, at, NULL)) continue;
            if (bi.param_x == p) put("%s%.9g", n++ ? "," : "", (double)at[0]);
            if (bi.param_y == p) put("%s%.9g", n++ ? "," : "", (double)at[1]);
        }
    }
}

static const char *const motion_names[] = {"clip", "blend1d", "blend2d", "machine"};
static const char *const exit_names[] = {"none", "normalized", "end"};

/* {params:[{name,type,value (now),uses:[values the graph compares it with or places blend entries at]}], machines:[{name,first,count,entry,layer}],
 *  states:[{name,machine,motion}], transitions:[{machine,from,to,blend,mode,exit,conds:"..."}],
 *  layers:[{name,machine,mode}]} */
LAB_API const char *lab_graph_json(int view) {
    lab_view *v = lab_view_at(view);
    if (!v) { lab_fail("no view %d", view); return NULL; }
    const stance_graph *g = v->graph;
    g_at = 0, g_over = 0;
    static const char *const ptypes[] = {"float", "int", "bool", "trigger"};
    put("{\"params\":[");
    for (int p = 0; p < stance_graph_param_count(g); p++) {
        put("%s{\"name\":", p ? "," : "");
        put_name(stance_graph_param_name(g, p));
        put(",\"type\":\"%s\",\"value\":%.9g,\"uses\":[", ptypes[stance_graph_param_type(g, p) & 3],
            (double)stance_instance_param(v->inst, p));
        put_uses(g, p);
        put("]}");
    }
    put("],\"machines\":[");
    for (int m = 0; m < stance_graph_machine_count(g); m++) {
        int first = 0, count = 0;
        stance_graph_machine_states(g, m, &first, &count, NULL);
        put("%s{\"name\":", m ? "," : "");
        put_name(stance_graph_machine_name(g, m));
        put(",\"first\":%d,\"count\":%d,\"entry\":%d}", first, count, stance_graph_machine_entry(g, m));
    }
    put("],\"states\":[");
    for (int s = 0; s < stance_graph_state_count(g); s++) {
        int mo = stance_graph_state_motion(g, s);
        put("%s{\"name\":", s ? "," : "");
        put_name(stance_graph_state_name(g, s));
        put(",\"machine\":%d,\"motion\":\"%s\"}", stance_graph_state_machine(g, s), mo >= 0 && mo < 4 ? motion_names[mo] : "?");
    }
    put("],\"transitions\":[");
    for (int t = 0; t < stance_graph_transition_count(g); t++) {
        stance_transition_info ti;
        if (stance_graph_transition(g, t, &ti, NULL)) continue;
        put("%s{\"machine\":%d,\"from\":%d,\"to\":%d,\"blend\":%.3g,\"mode\":\"%s\",\"exit\":\"%s\",\"conds\":\"", t ? "," : "",
            ti.machine, ti.from, ti.to, (double)ti.blend_time, stance_switch_mode_name(ti.mode),
            ti.exit >= 0 && ti.exit <= 2 ? exit_names[ti.exit] : "?");
        int group = 0;
        for (int c = 0; c < ti.condition_count; c++) {
            stance_condition_info ci;
            if (stance_graph_condition(g, t, c, &ci, NULL)) continue;
            if (c) put(ci.group != group ? " or " : " and ");
            group = ci.group;
            const char *pn = stance_graph_param_name(g, ci.param);
            if (ci.op == STANCE_CMP_TRUE) put("%s", pn);
            else if (ci.op == STANCE_CMP_FALSE) put("!%s", pn);
            else put("%s %s %g", pn, stance_compare_symbol(ci.op), (double)ci.value);
        }
        if (ti.exit == STANCE_EXIT_AT_END) put("%sat end", ti.condition_count ? ", " : "");
        else if (ti.exit == STANCE_EXIT_NORMALIZED) put("%st >= %.2g", ti.condition_count ? ", " : "", (double)ti.exit_time);
        put("\"}");
    }
    put("],\"layers\":[");
    for (int l = 0; l < stance_graph_layer_count(g); l++) {
        put("%s{\"name\":", l ? "," : "");
        put_name(stance_graph_layer_name(g, l));
        put(",\"machine\":%d,\"mode\":\"%s\"}", stance_graph_layer_machine(g, l),
            stance_graph_layer_mode(g, l) == STANCE_LAYER_ADDITIVE ? "additive" : "override");
    }
    put("]}");
    if (g_over) { lab_fail("graph JSON too long"); return NULL; }
    return g_json;
}

/* Live values: per machine [state, from (-1), progress], per parameter its
 * value as the graph sees it, per layer its weight, in one float array:
 * 3 * machines, then params, then layers. */
static float g_live[3 * STANCE_MAX_MACHINES + STANCE_MAX_PARAMS + STANCE_MAX_LAYERS];
LAB_API const float *lab_live(int view) {
    lab_view *v = lab_view_at(view);
    if (!v) return NULL;
    const stance_graph *g = v->graph;
    int k = 0;
    for (int m = 0; m < stance_graph_machine_count(g); m++) {
        stance_machine_status ms;
        if (stance_instance_machine_status(v->inst, m, &ms, NULL)) ms.state = -1, ms.transition = -1, ms.progress = 0.0f;
        g_live[k++] = (float)ms.state, g_live[k++] = (float)ms.transition, g_live[k++] = ms.progress;
    }
    for (int p = 0; p < stance_graph_param_count(g); p++) g_live[k++] = stance_instance_param(v->inst, p);
    for (int l = 0; l < stance_graph_layer_count(g); l++) g_live[k++] = stance_instance_layer_weight(v->inst, l);
    return g_live;
}

/* ---- generic controls --------------------------------------------------------- */

/* Sets a float/int/bool parameter, or sets a trigger (any value). */
LAB_API int lab_param_set(int view, int param, float value) {
    lab_view *v = lab_view_at(view);
    if (!v || param < 0 || param >= stance_graph_param_count(v->graph)) return lab_fail("no parameter %d", param);
    stance_error err = {0};
    stance_status s;
    switch (stance_graph_param_type(v->graph, param)) {
    case STANCE_PARAM_FLOAT: s = stance_instance_set_float(v->inst, param, value, &err); break;
    case STANCE_PARAM_INT: s = stance_instance_set_int(v->inst, param, (int)value, &err); break;
    case STANCE_PARAM_BOOL: s = stance_instance_set_bool(v->inst, param, value != 0.0f, &err); break;
    default: s = stance_instance_set_trigger(v->inst, param, &err); break;
    }
    return s ? lab_fail("%s", err.message) : 0;
}
/* Layer weight in [0, 1], fading over fade seconds. */
LAB_API int lab_layer_set(int view, int layer, float weight, float fade) {
    lab_view *v = lab_view_at(view);
    if (!v || !(weight >= 0.0f && weight <= 1.0f) || !(fade >= 0.0f && fade <= 10.0f)) return lab_fail("bad layer weight");
    stance_error err;
    return stance_instance_set_layer_weight(v->inst, layer, weight, fade, &err) ? lab_fail("%s", err.message) : 0;
}
/* The switch mode / blend time / easing override on every transition (mode < 0: none). */
LAB_API int lab_switch_set(int view, int mode, float blend_time, int easing) {
    lab_view *v = lab_view_at(view);
    if (!v) return lab_fail("no view %d", view);
    stance_error err;
    return stance_instance_override_switch(v->inst, mode, blend_time, easing, &err) ? lab_fail("%s", err.message) : 0;
}
/* The base layer machine's current state name (for status()), "" if none. */
LAB_API const char *lab_base_state(int view) {
    lab_view *v = lab_view_at(view);
    if (!v) return "";
    stance_machine_status ms;
    if (stance_instance_machine_status(v->inst, stance_graph_layer_machine(v->graph, 0), &ms, NULL)) return "";
    const char *n = stance_graph_state_name(v->graph, ms.state);
    return n ? n : "";
}
