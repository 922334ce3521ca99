/* tools/info_graph.c - what `stance info` says about a compiled graph, read
 * through the graph's public queries (the description is not kept). */
#include <string.h>

#include "info_graph.h"
#include "tool_json.h"

static const char *param_type(stance_param_type t) {
    static const char *const names[] = {"float", "int", "bool", "trigger"};
    return (unsigned)t < 4 ? names[t] : "?";
}

/* A clip's curves as the graph file's "curves" writes them (keys as %.9g:
 * the floats the graph holds, read back bit for bit) */
static void curves_json(FILE *f, const stance_graph *g, const stance_clip *clip, int n) {
    stance_clip_curve cv[STANCE_MAX_CURVES];
    if (n > STANCE_MAX_CURVES) n = STANCE_MAX_CURVES;
    stance_graph_clip_curves(g, clip, cv, n);
    fprintf(f, ",\"curves\":{");
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s", i ? "," : "");
        tool_put_json_string(f, stance_graph_curve_name(g, cv[i].curve));
        fprintf(f, ":[");
        for (int k = 0; k < cv[i].key_count; k++)
            fprintf(f, "%s[%.9g,%.9g]", k ? "," : "", (double)cv[i].keys[2 * k], (double)cv[i].keys[2 * k + 1]);
        fprintf(f, "]");
    }
    fprintf(f, "}");
}

/* The clips the graph plays that have events or windows (its notes), as the
 * graph file's "clips" section writes them, plus each event's origin. */
static void notes_json(FILE *f, const stance_graph *g) {
    const stance_clip *clips[256];
    const int n = stance_graph_clips(g, clips, 256);
    fprintf(f, ",\"clips\":{");
    for (int c = 0, first = 1; c < n && c < 256; c++) {
        stance_clip_note ev[STANCE_MAX_EVENTS];
        stance_clip_window wi[STANCE_MAX_WINDOWS];
        const int ne = stance_graph_clip_events(g, clips[c], ev, STANCE_MAX_EVENTS);
        const int nw = stance_graph_clip_windows(g, clips[c], wi, STANCE_MAX_WINDOWS);
        const int ncv = stance_graph_clip_curves(g, clips[c], NULL, 0);
        if (!ne && !nw && !ncv) continue;
        fprintf(f, "%s", first ? "" : ",");
        first = 0;
        tool_put_json_string(f, clips[c]->name);
        fprintf(f, ":{\"events\":[");
        for (int i = 0; i < ne; i++) {
            fprintf(f, "%s{\"t\":%.9g,\"name\":", i ? "," : "", (double)ev[i].time);
            tool_put_json_string(f, ev[i].name);
            fprintf(f, ",\"authored\":%s,\"min_weight\":%.9g", ev[i].authored ? "true" : "false", (double)ev[i].min_weight);
            const stance_event_payload *p = ev[i].payload;
            if (p) {
                const char *sep = "";
                fprintf(f, ",\"payload\":{");
                if (p->flags & STANCE_PAYLOAD_INT) fprintf(f, "\"int\":%d", p->i), sep = ",";
                if (p->flags & STANCE_PAYLOAD_FLOAT) fprintf(f, "%s\"float\":%.9g", sep, (double)p->f), sep = ",";
                if (p->flags & STANCE_PAYLOAD_STRING) fprintf(f, "%s\"string\":", sep), tool_put_json_string(f, p->s);
                fprintf(f, "}");
            }
            fprintf(f, "}");
        }
        fprintf(f, "],\"windows\":[");
        for (int i = 0; i < nw; i++) {
            fprintf(f, "%s{\"name\":", i ? "," : "");
            tool_put_json_string(f, wi[i].name);
            fprintf(f, ",\"from\":%.9g,\"to\":%.9g,\"min_weight\":%.9g}", (double)wi[i].from, (double)wi[i].to,
                    (double)wi[i].min_weight);
        }
        fprintf(f, "]");
        if (ncv) curves_json(f, g, clips[c], ncv);
        fprintf(f, "}");
    }
    fprintf(f, "}");
}

/* The sync groups (group -> its states) and the clips with markers or a
 * ground speed, as the graph file's "sync" and "clips" keys write them
 * (docs/sync.md). */
static void sync_json(FILE *f, const stance_graph *g) {
    const int ns = stance_graph_state_count(g);
    fprintf(f, ",\"sync\":{\"groups\":{");
    for (int s = 0, first = 1; s < ns; s++) {
        const char *grp = stance_graph_state_sync(g, s);
        int seen = 0;
        for (int k = 0; grp && k < s && !seen; k++) seen = stance_graph_state_sync(g, k) && !strcmp(stance_graph_state_sync(g, k), grp);
        if (!grp || seen) continue;
        fprintf(f, "%s", first ? "" : ",");
        first = 0;
        tool_put_json_string(f, grp);
        fprintf(f, ":[");
        for (int k = s, n = 0; k < ns; k++) {
            const char *o = stance_graph_state_sync(g, k);
            if (!o || strcmp(o, grp)) continue;
            fprintf(f, "%s", n++ ? "," : "");
            tool_put_json_string(f, stance_graph_state_name(g, k));
        }
        fprintf(f, "]");
    }
    fprintf(f, "},\"clips\":{");
    const stance_clip *clips[256];
    const int n = stance_graph_clips(g, clips, 256);
    for (int c = 0, first = 1; c < n && c < 256; c++) {
        stance_clip_marker mk[STANCE_MAX_MARKERS];
        const int nm = stance_graph_clip_markers(g, clips[c], mk, STANCE_MAX_MARKERS);
        const float speed = stance_graph_clip_speed(g, clips[c]);
        if (!nm && speed == 0.0f) continue;
        fprintf(f, "%s", first ? "" : ",");
        first = 0;
        tool_put_json_string(f, clips[c]->name);
        fprintf(f, ":{\"markers\":[");
        for (int i = 0; i < nm; i++) {
            fprintf(f, "%s{\"t\":%.9g,\"name\":", i ? "," : "", (double)mk[i].time);
            tool_put_json_string(f, mk[i].name);
            fprintf(f, "}");
        }
        fprintf(f, "],\"speed\":%.9g}", (double)speed);
    }
    fprintf(f, "}}");
}

void info_graph_text(FILE *f, const stance_graph *g) {
    int np = stance_graph_param_count(g), nm = stance_graph_machine_count(g), ns = stance_graph_state_count(g);
    int nl = stance_graph_layer_count(g);
    fprintf(f, "graph: %d parameters, %d machines, %d states, %d layers\n", np, nm, ns, nl);
    for (int p = 0; p < np; p++) {
        fprintf(f, "  param ");
        tool_put_plain(f, stance_graph_param_name(g, p));
        fprintf(f, " (%s)\n", param_type(stance_graph_param_type(g, p)));
    }
    for (int m = 0; m < nm; m++) {
        fprintf(f, "  machine ");
        tool_put_plain(f, stance_graph_machine_name(g, m));
        fprintf(f, ":");
        for (int s = 0, first = 1; s < ns; s++) {
            if (stance_graph_state_machine(g, s) != m) continue;
            fprintf(f, first ? " " : ", ");
            tool_put_plain(f, stance_graph_state_name(g, s));
            first = 0;
        }
        fprintf(f, "\n");
    }
    for (int l = 0; l < nl; l++) {
        fprintf(f, "  layer %d ", l);
        tool_put_plain(f, stance_graph_layer_name(g, l));
        fprintf(f, ": machine ");
        tool_put_plain(f, stance_graph_machine_name(g, stance_graph_layer_machine(g, l)));
        fprintf(f, ", %s, priority %d\n", stance_graph_layer_mode(g, l) == STANCE_LAYER_ADDITIVE ? "additive" : "override",
                stance_graph_layer_priority(g, l));
    }
    const stance_clip *clips[256];
    const int n = stance_graph_clips(g, clips, 256);
    for (int c = 0; c < n && c < 256; c++) {
        const int ne = stance_graph_clip_events(g, clips[c], NULL, 0), nw = stance_graph_clip_windows(g, clips[c], NULL, 0);
        if (!ne && !nw) continue;
        fprintf(f, "  clip ");
        tool_put_plain(f, clips[c]->name);
        fprintf(f, ": %d events, %d windows\n", ne, nw);
    }
}

void info_graph_json(FILE *f, const stance_graph *g) {
    int np = stance_graph_param_count(g), nm = stance_graph_machine_count(g), ns = stance_graph_state_count(g);
    int nl = stance_graph_layer_count(g);
    fprintf(f, "{\"params\":[");
    for (int p = 0; p < np; p++) {
        fprintf(f, "%s{\"name\":", p ? "," : "");
        tool_put_json_string(f, stance_graph_param_name(g, p));
        fprintf(f, ",\"type\":\"%s\"}", param_type(stance_graph_param_type(g, p)));
    }
    fprintf(f, "],\"machines\":[");
    for (int m = 0; m < nm; m++) {
        fprintf(f, "%s{\"name\":", m ? "," : "");
        tool_put_json_string(f, stance_graph_machine_name(g, m));
        fprintf(f, ",\"states\":[");
        for (int s = 0, first = 1; s < ns; s++) {
            if (stance_graph_state_machine(g, s) != m) continue;
            if (!first) fprintf(f, ",");
            tool_put_json_string(f, stance_graph_state_name(g, s));
            first = 0;
        }
        fprintf(f, "]}");
    }
    fprintf(f, "],\"layers\":[");
    for (int l = 0; l < nl; l++) {
        fprintf(f, "%s{\"name\":", l ? "," : "");
        tool_put_json_string(f, stance_graph_layer_name(g, l));
        fprintf(f, ",\"machine\":");
        tool_put_json_string(f, stance_graph_machine_name(g, stance_graph_layer_machine(g, l)));
        fprintf(f, ",\"mode\":\"%s\",\"priority\":%d}",
                stance_graph_layer_mode(g, l) == STANCE_LAYER_ADDITIVE ? "additive" : "override",
                stance_graph_layer_priority(g, l));
    }
    fprintf(f, "]");
    if (stance_graph_curve_count(g)) { /* curve ids (stance_instance_curve), only when the graph has curves */
        fprintf(f, ",\"curves\":[");
        for (int i = 0; i < stance_graph_curve_count(g); i++)
            fprintf(f, "%s", i ? "," : ""), tool_put_json_string(f, stance_graph_curve_name(g, i));
        fprintf(f, "]");
    }
    notes_json(f, g);
    sync_json(f, g);
    fprintf(f, "}");
}
