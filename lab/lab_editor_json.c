/* lab/lab_editor_json.c - "Edit this graph": the graph view 2 runs (a
 * file's compiled graph, the lesson's graph on matched clips, or the
 * editor's own) written back as graph JSON (docs/graph-format.md) with
 * everything the compiled form holds: parameters, machines, states,
 * transitions, layers, the bindings (a layer's or IK entry's weight, a blend
 * space's axis or a condition that reads a parameter or a curve: the graph's
 * drives), IK entries, sync groups and the clip notes (events, windows,
 * curves, markers, ground speed); and the check that the graph built again
 * from that text is the graph that was loaded (its compiled section byte for
 * byte). The bindings, IK entries and notes are read through the public
 * queries of <stance/graph_query.h> and <stance/graph.h>. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "build/graph_build.h"
#include "core/base/internal.h"
#include "core/graph/graph_internal.h"
#include "stance/graph_query.h"
#include "stance/graphfile.h"

static struct {
    char *out;
    size_t out_len, out_cap;
    int out_failed;
    const stance_graph *source; /* the graph lab_editor_json wrote when it was the loaded file's */
    char lost[1024];            /* what the text could not carry, "" when nothing */
    char same[512];             /* lab_editor_compare's sentence */
} js;

static void put(const char *fmt, ...) ST_PRINTF(1, 2);
static void put(const char *fmt, ...) {
    if (js.out_failed) return;
    va_list ap;
    for (int pass = 0; pass < 2; pass++) {
        va_start(ap, fmt);
        int n = vsnprintf(js.out + js.out_len, js.out_cap - js.out_len, fmt, ap);
        va_end(ap);
        if (n < 0) { js.out_failed = 1; return; }
        if (js.out_len + (size_t)n < js.out_cap) { js.out_len += (size_t)n; return; }
        size_t cap = (js.out_cap + (size_t)n + 1) * 2;
        char *p = realloc(js.out, cap);
        if (!p) { js.out_failed = 1; return; }
        js.out = p, js.out_cap = cap;
    }
}

static void put_str(const char *s) {
    put("\"");
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\') put("\\%c", *p);
        else if (*p < 0x20) put("\\u%04x", *p);
        else put("%c", *p);
    }
    put("\"");
}

/* a float as the shortest text that reads back as the same float */
static void put_num(float f) {
    char b[32];
    for (int digits = 6; digits <= 9; digits++) {
        snprintf(b, sizeof b, "%.*g", digits, (double)f);
        if (strtof(b, NULL) == f) break;
    }
    put("%s", b);
}

static void lost(const char *fmt, ...) ST_PRINTF(1, 2);
static void lost(const char *fmt, ...) {
    size_t n = strlen(js.lost);
    if (n + 3 >= sizeof js.lost) return;
    if (n) js.lost[n++] = ';', js.lost[n++] = ' ';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(js.lost + n, sizeof js.lost - n, fmt, ap);
    va_end(ap);
}

static const char *clip_name(const stance_clip *c) { return c ? c->name : ""; }

static const char *const op_names[] = {">=", ">", "<=", "<", "==", "!=", "true", "false"};
static const char *const mode_names[] = {"cut", "frozen", "crossfade", "inertialize", "inertialize_simple", "deadblend"};

static const char *op_name(stance_compare op) {
    static const stance_compare ops[] = {STANCE_CMP_GE, STANCE_CMP_GT, STANCE_CMP_LE, STANCE_CMP_LT,
                                         STANCE_CMP_EQ, STANCE_CMP_NE, STANCE_CMP_TRUE, STANCE_CMP_FALSE};
    for (int k = 0; k < 8; k++)
        if (ops[k] == op) return op_names[k];
    return "true";
}
static const char *mode_name(stance_switch_mode m) {
    static const stance_switch_mode modes[] = {STANCE_SWITCH_CUT, STANCE_SWITCH_FROZEN, STANCE_SWITCH_CROSSFADE,
                                               STANCE_SWITCH_INERTIALIZE, STANCE_SWITCH_INERTIALIZE_SIMPLE,
                                               STANCE_SWITCH_DEADBLEND};
    for (int k = 0; k < 6; k++)
        if (modes[k] == m) return mode_names[k];
    return "crossfade";
}

/* ---- the drives: which parameters stand for a curve, what weights follow ---------- */

static struct {
    int param_curve[STANCE_MAX_PARAMS]; /* the curve a parameter follows as the reader's "curve:NAME", else -1 */
    int layer[STANCE_MAX_LAYERS], ik[STANCE_MAX_IK]; /* their weight's drive, -1 none */
    stance_drive_info d[STANCE_MAX_PARAMS + STANCE_MAX_LAYERS + STANCE_MAX_IK];
} dr;

static void read_drives(const stance_graph *g) {
    for (int i = 0; i < STANCE_MAX_PARAMS; i++) dr.param_curve[i] = -1;
    for (int i = 0; i < STANCE_MAX_LAYERS; i++) dr.layer[i] = -1;
    for (int i = 0; i < STANCE_MAX_IK; i++) dr.ik[i] = -1;
    const int n = stance_graph_drive_count(g);
    for (int i = 0; i < n && i < (int)(sizeof dr.d / sizeof dr.d[0]); i++) {
        stance_drive_info *d = &dr.d[i];
        if (stance_graph_drive(g, i, d, NULL)) continue;
        if (d->target == STANCE_DRIVE_LAYER_WEIGHT && d->index < STANCE_MAX_LAYERS) dr.layer[d->index] = i;
        else if (d->target == STANCE_DRIVE_IK_WEIGHT && d->index < STANCE_MAX_IK) dr.ik[d->index] = i;
        else if (d->target == STANCE_DRIVE_PARAM && d->index < STANCE_MAX_PARAMS) {
            const char *pn = stance_graph_param_name(g, d->index), *cn = d->curve >= 0 ? stance_graph_curve_name(g, d->curve) : NULL;
            if (cn && !strncmp(pn, "curve:", 6) && !strcmp(pn + 6, cn)) dr.param_curve[d->index] = d->curve;
            else lost("parameter '%s' follows %s '%s' (a graph file has no such key)", pn, cn ? "curve" : "parameter",
                      cn ? cn : stance_graph_param_name(g, d->param));
        }
    }
}

/* a parameter read where a binding may stand: its name, or {"curve": C} */
static void put_source(const stance_graph *g, int p) {
    if (p >= 0 && p < STANCE_MAX_PARAMS && dr.param_curve[p] >= 0) {
        put("{\"curve\":");
        put_str(stance_graph_curve_name(g, dr.param_curve[p]));
        put("}");
    } else put_str(stance_graph_param_name(g, p));
}

/* a layer's or IK entry's weight drive as {"param": P} / {"curve": C} */
static void put_binding(const stance_graph *g, int drive) {
    const stance_drive_info *d = &dr.d[drive];
    if (d->curve >= 0) put("{\"curve\":"), put_str(stance_graph_curve_name(g, d->curve));
    else put("{\"param\":"), put_str(stance_graph_param_name(g, d->param));
    put("}");
}

/* ---- machines and layers ------------------------------------------------------------ */

static void put_conditions(const stance_graph *g, const g_trans *t) {
    int groups = 0;
    for (int c = 0; c < t->cond_count; c++)
        if (g->conds[t->cond_first + c].group + 1 > groups) groups = g->conds[t->cond_first + c].group + 1;
    for (int grp = 0; grp < groups; grp++) {
        put(grp == 0 ? (groups > 1 ? ",\"any_of\":[[" : ",\"when\":[") : "],[");
        int n = 0;
        for (int c = 0; c < t->cond_count; c++) {
            const g_cond *cd = &g->conds[t->cond_first + c];
            if (cd->group != grp) continue;
            if (cd->param >= 0 && cd->param < STANCE_MAX_PARAMS && dr.param_curve[cd->param] >= 0) {
                put("%s{\"curve\":", n++ ? "," : "");
                put_str(stance_graph_curve_name(g, dr.param_curve[cd->param]));
            } else {
                put("%s{\"param\":", n++ ? "," : "");
                put_str(g->params[cd->param].name);
            }
            put(",\"op\":\"%s\"", op_name(cd->op));
            if (cd->op != STANCE_CMP_TRUE && cd->op != STANCE_CMP_FALSE) put(",\"value\":"), put_num(cd->value);
            if (cd->hysteresis > 0.0f) put(",\"hysteresis\":"), put_num(cd->hysteresis);
            put("}");
        }
    }
    if (groups) put(groups > 1 ? "]]" : "]");
}

static void put_transition(const stance_graph *g, const g_trans *t) {
    put("{\"from\":");
    put_str(t->from < 0 ? "*" : g->states[t->from].name);
    put(",\"to\":");
    put_str(g->states[t->to].name);
    put_conditions(g, t);
    if (t->exit == STANCE_EXIT_AT_END) put(",\"exit\":\"end\"");
    else if (t->exit == STANCE_EXIT_NORMALIZED) put(",\"exit\":"), put_num(t->exit_time);
    if (t->blend_time > 0.0f) put(",\"blend_time\":"), put_num(t->blend_time);
    put(",\"mode\":\"%s\",\"easing\":\"%s\"", mode_name(t->mode), t->easing == STANCE_EASE_LINEAR ? "linear" : "smoothstep");
    if (t->uninterruptible) put(",\"uninterruptible\":true");
    if (t->allow_self) put(",\"allow_self\":true");
    put("}");
}

static void put_state(const stance_graph *g, int index) {
    const g_state *s = &g->states[index];
    put("{\"name\":");
    put_str(s->name);
    if (s->type == STANCE_MOTION_CLIP) {
        put(",\"clip\":");
        put_str(clip_name(s->clip));
    } else if (s->type == STANCE_MOTION_MACHINE) {
        put(",\"machine\":");
        put_str(g->machines[s->sub_machine].name);
    } else {
        int two = s->type == STANCE_MOTION_BLEND2D;
        put(two ? ",\"blend2d\":{\"param_x\":" : ",\"blend1d\":{\"param\":");
        put_source(g, s->param_x);
        if (two) put(",\"param_y\":"), put_source(g, s->param_y);
        if (!two && s->speed_warp) put(",\"speed_warp\":true");
        put(",\"entries\":[");
        for (int e = 0; e < s->entry_count; e++) {
            const g_entry *en = &g->entries[s->entry_first + e];
            put("%s{\"clip\":", e ? "," : "");
            put_str(clip_name(en->clip));
            put(",\"x\":"), put_num(en->x);
            if (two) put(",\"y\":"), put_num(en->y);
            put("}");
        }
        put("]}");
    }
    if (s->once) put(",\"once\":true");
    if (s->speed != 1.0f) put(",\"speed\":"), put_num(s->speed);
    if (s->speed_param >= 0) put(",\"speed_param\":"), put_str(g->params[s->speed_param].name);
    const char *sync = stance_graph_state_sync(g, index);
    if (sync) put(",\"sync\":"), put_str(sync);
    if (s->fade_time > 0.0f) lost("state '%s' has a fade time of %g s (a graph file has no such key)", s->name, (double)s->fade_time);
    put("}");
}

static void put_layer(const stance_graph *g, int index) {
    const g_layer *l = &g->layers[index];
    put("{\"name\":");
    put_str(l->name);
    put(",\"machine\":");
    put_str(g->machines[l->machine].name);
    put(",\"mode\":\"%s\",\"space\":\"%s\",\"weight\":", l->mode == STANCE_LAYER_ADDITIVE ? "additive" : "override",
        l->space == STANCE_SPACE_MESH ? "mesh" : "local");
    if (dr.layer[index] >= 0) put_binding(g, dr.layer[index]);
    else put_num(l->weight);
    if (l->has_mask && l->mask) {
        const stance_skeleton *sk = g->skeleton;
        int n = 0;
        for (int j = 0; j < sk->joint_count; j++) n += l->mask[j] > 0.0f;
        if (n) {
            put(",\"mask\":{\"weights\":{");
            n = 0;
            for (int j = 0; j < sk->joint_count; j++) {
                if (!(l->mask[j] > 0.0f)) continue;
                if (n++) put(",");
                put_str(stance_skeleton_joint_name(sk, j));
                put(":"), put_num(l->mask[j]);
            }
            put("}}");
        }
    }
    if (l->mode == STANCE_LAYER_ADDITIVE) {
        if (l->additive_ref == STANCE_ADDITIVE_REF_CLIP_SYNC && l->ref_clip)
            put(",\"additive_ref\":\"clip:%s\"", clip_name(l->ref_clip));
        else if (l->ref_clip) put(",\"additive_ref\":\"first_frame:%s\"", clip_name(l->ref_clip));
    }
    if (l->priority) put(",\"priority\":%d", l->priority);
    put("}");
}

/* ---- IK entries ------------------------------------------------------------------------ */

static void put_joint(const stance_skeleton *sk, int j) { put_str(stance_skeleton_joint_name(sk, j)); }

static void put_ik(const stance_graph *g, int index) {
    const stance_skeleton *sk = stance_graph_skeleton(g);
    stance_ik_info k;
    if (stance_graph_ik_info(g, index, &k, NULL)) return;
    static const char *const kinds[] = {"footlock", "two_bone", "aim"};
    put("{\"name\":");
    put_str(k.name);
    put(",\"kind\":\"%s\"", kinds[(unsigned)k.kind < 3 ? k.kind : 0]);
    if (k.kind == STANCE_IK_AIM) {
        put(",\"chain\":[");
        for (int i = 0; i < k.chain_count; i++) {
            if (i) put(",");
            put_joint(sk, k.chain[i]);
        }
        put("],\"forward\":[");
        put_num(k.forward[0]), put(","), put_num(k.forward[1]), put(","), put_num(k.forward[2]);
        put("]");
        if (k.max_angle > 0.0f) put(",\"max_angle\":"), put_num(k.max_angle);
    } else {
        put(",\"legs\":[");
        for (int i = 0; i < k.leg_count; i++) {
            put("%s{\"hip\":", i ? "," : "");
            put_joint(sk, k.legs[i][0]);
            put(",\"knee\":"), put_joint(sk, k.legs[i][1]);
            put(",\"ankle\":"), put_joint(sk, k.legs[i][2]);
            put("}");
        }
        put("]");
        if (k.kind == STANCE_IK_FOOTLOCK) {
            if (!k.pelvis_default) {
                put(",\"pelvis\":");
                if (k.pelvis < 0) put("\"\"");
                else put_joint(sk, k.pelvis);
            }
            if (k.blend_time > 0.0f) put(",\"blend_time\":"), put_num(k.blend_time);
            if (k.plant_time > 0.0f) put(",\"plant_time\":"), put_num(k.plant_time);
            lost("IK entry '%s': a compiled graph keeps the feet's contacts as found, not what found them (\"contact_height\", "
                 "\"contact_speed\", \"contact_min_duration\", \"root_velocity\", down and up events): the text gives the "
                 "defaults", k.name);
        }
        if (k.softness > 0.0f) put(",\"softness\":"), put_num(k.softness);
    }
    if (dr.ik[index] >= 0) put(",\"weight\":"), put_binding(g, dr.ik[index]);
    put("}");
}

/* ---- the clip notes: events, windows, curves, markers, speed ----------------------------- */

#define MAX_NOTED 256

/* The clips with notes, in an order that keeps the description's order of
 * the curve tracks and of the synced clips (both follow the file's "clips"
 * order, so a merge of the two keeps both), then the other played clips with
 * authored events or windows. */
static int noted_clips(const stance_graph *g, const stance_clip **out) {
    int n = 0;
    const int tracks = stance_graph_track_count(g);
    for (int t = 0; t < tracks; t++) {
        const stance_clip *c;
        stance_clip_curve cc;
        if (stance_graph_track(g, t, &c, &cc, NULL)) continue;
        int k = 0;
        while (k < n && out[k] != c) k++;
        if (k == n && n < MAX_NOTED) out[n++] = c;
    }
    const stance_clip *sync[MAX_NOTED];
    const int ns = stance_graph_sync_clips(g, sync, MAX_NOTED);
    int after = -1; /* the synced clip before, where a new one goes after */
    for (int i = 0; i < ns && i < MAX_NOTED; i++) {
        int k = 0;
        while (k < n && out[k] != sync[i]) k++;
        if (k < n) { after = k; continue; }
        if (n == MAX_NOTED) break;
        memmove(out + after + 2, out + after + 1, sizeof *out * (size_t)(n - after - 1));
        out[++after] = sync[i], n++;
    }
    const stance_clip *played[MAX_NOTED];
    const int np = stance_graph_clips(g, played, MAX_NOTED);
    static stance_clip_note ev[STANCE_MAX_EVENTS];
    for (int i = 0; i < np && i < MAX_NOTED && n < MAX_NOTED; i++) {
        int k = 0, authored = stance_graph_clip_windows(g, played[i], NULL, 0) > 0;
        while (k < n && out[k] != played[i]) k++;
        if (k < n) continue;
        const int ne = stance_graph_clip_events(g, played[i], ev, STANCE_MAX_EVENTS);
        for (int e = 0; e < ne && e < STANCE_MAX_EVENTS; e++) authored |= ev[e].authored;
        if (authored) out[n++] = played[i];
    }
    return n;
}

/* the next item of a clip's list `key`: its opening ("key":[ or "key":{, after a comma when
 * another key came before) for the first, a comma for the others */
static void next_item(int index, int *keys, const char *key, char open) {
    if (index) put(",");
    else put("%s\"%s\":%c", (*keys)++ ? "," : "", key, open);
}

static void put_clip_notes(const stance_graph *g, const stance_clip *c) {
    int keys = 0;
    put_str(c->name);
    put(":{");
    static stance_clip_note ev[STANCE_MAX_EVENTS];
    const int ne = stance_graph_clip_events(g, c, ev, STANCE_MAX_EVENTS);
    int na = 0;
    for (int e = 0; e < ne && e < STANCE_MAX_EVENTS; e++) {
        if (!ev[e].authored) continue;
        next_item(na++, &keys, "events", '[');
        put("{\"t\":"), put_num(ev[e].time);
        put(",\"name\":"), put_str(ev[e].name);
        const stance_event_payload *p = ev[e].payload;
        if (p && p->flags) {
            int n = 0;
            put(",\"payload\":{");
            if (p->flags & STANCE_PAYLOAD_INT) put("\"int\":%d", (int)p->i), n++;
            if (p->flags & STANCE_PAYLOAD_FLOAT) put("%s\"float\":", n++ ? "," : ""), put_num(p->f);
            if (p->flags & STANCE_PAYLOAD_STRING) put("%s\"string\":", n++ ? "," : ""), put_str(p->s);
            put("}");
        }
        if (ev[e].min_weight > 0.0f) put(",\"min_weight\":"), put_num(ev[e].min_weight);
        put("}");
    }
    if (na) put("]");
    static stance_clip_window wi[STANCE_MAX_WINDOWS];
    const int nw = stance_graph_clip_windows(g, c, wi, STANCE_MAX_WINDOWS);
    for (int w = 0; w < nw && w < STANCE_MAX_WINDOWS; w++) {
        next_item(w, &keys, "windows", '[');
        put("{\"name\":"), put_str(wi[w].name);
        put(",\"from\":"), put_num(wi[w].from);
        put(",\"to\":"), put_num(wi[w].to);
        if (wi[w].min_weight > 0.0f) put(",\"min_weight\":"), put_num(wi[w].min_weight);
        put("}");
    }
    if (nw) put("]");
    static stance_clip_curve cu[STANCE_MAX_CURVES];
    const int nc = stance_graph_clip_curves(g, c, cu, STANCE_MAX_CURVES);
    for (int k = 0; k < nc && k < STANCE_MAX_CURVES; k++) {
        next_item(k, &keys, "curves", '{');
        put_str(stance_graph_curve_name(g, cu[k].curve));
        put(":[");
        for (int i = 0; i < cu[k].key_count; i++) {
            put(i ? ",[" : "[");
            put_num(cu[k].keys[2 * i]), put(","), put_num(cu[k].keys[2 * i + 1]);
            put("]");
        }
        put("]");
    }
    if (nc) put("}");
    static stance_clip_marker mk[STANCE_MAX_MARKERS];
    const int nm = stance_graph_clip_markers(g, c, mk, STANCE_MAX_MARKERS);
    for (int k = 0; k < nm && k < STANCE_MAX_MARKERS; k++) {
        next_item(k, &keys, "markers", '[');
        put("{\"t\":"), put_num(mk[k].time);
        put(",\"name\":"), put_str(mk[k].name);
        put("}");
    }
    if (nm) put("]");
    const float speed = stance_graph_clip_speed(g, c);
    if (speed > 0.0f) put("%s\"speed\":", keys++ ? "," : ""), put_num(speed);
    put("}");
}

/* ---- the whole document ------------------------------------------------------------------ */

/* View 2's graph as graph JSON, the asset named by lab_editor_name; NULL (lab_error)
 * when none. What the text cannot carry is at lab_editor_json_lost. */
LAB_API const char *lab_editor_json(void) {
    const char *asset = lab_editor_name();
    lab_view *v = lab_view_at(2);
    if (!v) { lab_fail("no graph to open: load a character first"); return NULL; }
    const stance_graph *g = v->graph;
    const stance_asset *a = lab_asset_loaded();
    js.source = a && a->graph == g ? g : NULL;
    js.out_len = 0, js.out_failed = 0, js.lost[0] = 0;
    read_drives(g);
    put("{\"$schema\":\"../docs/graph.schema.json\",\"version\":1,\"asset\":");
    put_str(asset && asset[0] ? asset : "character.stance");
    put(",\"default_blend_time\":"), put_num(g->default_blend_time);
    if (g->deadblend_halflife != 0.05f) put(",\"deadblend_halflife\":"), put_num(g->deadblend_halflife);
    put(",\"params\":[");
    for (int p = 0, n = 0; p < g->param_count; p++) {
        const g_param *gp = &g->params[p];
        if (p < STANCE_MAX_PARAMS && dr.param_curve[p] >= 0) continue; /* "curve:C": the reader adds it where C is read */
        static const char *const types[] = {"float", "int", "bool", "trigger"};
        put("%s{\"name\":", n++ ? "," : "");
        put_str(gp->name);
        put(",\"type\":\"%s\"", types[gp->type & 3]);
        if (gp->type == STANCE_PARAM_FLOAT) put(",\"value\":"), put_num(gp->value);
        else if (gp->type == STANCE_PARAM_INT) put(",\"value\":%d", (int)gp->value);
        else if (gp->type == STANCE_PARAM_BOOL) put(",\"value\":%s", gp->value != 0.0f ? "true" : "false");
        if (gp->type == STANCE_PARAM_FLOAT && gp->damping > 0.0f) put(",\"damping\":"), put_num(gp->damping);
        put("}");
    }
    put("],\"machines\":[");
    for (int m = 0; m < g->machine_count; m++) {
        const g_machine *gm = &g->machines[m];
        put("%s{\"name\":", m ? "," : "");
        put_str(gm->name);
        put(",\"entry\":");
        put_str(g->states[gm->entry].name);
        put(",\"states\":[");
        for (int s = 0; s < gm->state_count; s++) {
            if (s) put(",");
            put_state(g, gm->state_first + s);
        }
        put("],\"transitions\":[");
        int n = 0; /* in the order of the description: transitions are numbered machine by machine */
        for (int t = 0; t < g->trans_count; t++) {
            stance_transition_info ti;
            if (stance_graph_transition(g, t, &ti, NULL) || ti.machine != m) continue;
            if (n++) put(",");
            put_transition(g, &g->trans[t]);
        }
        put("]}");
    }
    put("],\"layers\":[");
    for (int l = 0; l < g->layer_count; l++) {
        if (l) put(",");
        put_layer(g, l);
    }
    put("]");
    const int ik = stance_graph_ik_count(g);
    for (int i = 0; i < ik; i++) {
        put(i ? "," : ",\"ik\":[");
        put_ik(g, i);
    }
    if (ik) put("]");
    static const stance_clip *noted[MAX_NOTED];
    const int nn = noted_clips(g, noted);
    for (int i = 0; i < nn; i++) {
        put(i ? "," : ",\"clips\":{");
        put_clip_notes(g, noted[i]);
    }
    if (nn) put("}");
    put("}");
    if (js.out_failed || !js.out) { lab_fail("editor: out of memory"); return NULL; }
    return js.out;
}

/* What lab_editor_json's text could not carry ("" when nothing). */
LAB_API const char *lab_editor_json_lost(void) { return js.lost; }

/* After lab_editor_json wrote the loaded file's graph and the editor built
 * that text: whether the graph built is the loaded one, compared as the
 * compiled section `stance compile` writes for each (the same clips).
 * 1 the same bytes, 0 they differ, -1 nothing to compare (the text was not
 * a file's graph, or nothing was built); lab_editor_compare_text says so in
 * a sentence. */
LAB_API int lab_editor_compare(void) {
    const stance_asset *a = lab_asset_loaded();
    const stance_graph *now = lab_editor_graph();
    js.same[0] = 0;
    if (!js.source || !a || a->graph != js.source || !now) return -1;
    const stance_clip *const *clips = (const stance_clip *const *)a->clips;
    const size_t na = st_graph_section_write(js.source, clips, a->clip_count, NULL);
    const size_t nb = st_graph_section_write(now, clips, a->clip_count, NULL);
    unsigned char *ba = malloc(na ? na : 1), *bb = malloc(nb ? nb : 1);
    int r = -1;
    if (ba && bb) {
        st_graph_section_write(js.source, clips, a->clip_count, ba);
        st_graph_section_write(now, clips, a->clip_count, bb);
        size_t at = 0;
        while (at < na && at < nb && ba[at] == bb[at]) at++;
        r = na == nb && at == na;
        if (r) snprintf(js.same, sizeof js.same, "the graph read back compiles to the loaded file's graph byte for byte (%zu bytes)", na);
        else snprintf(js.same, sizeof js.same, "the graph read back is not the loaded file's: their compiled graphs (%zu and %zu "
                      "bytes) differ from byte %zu", na, nb, at);
    }
    free(ba), free(bb);
    return r;
}
LAB_API const char *lab_editor_compare_text(void) { return js.same; }
