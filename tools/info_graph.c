/* tools/info_graph.c - what `stance info` says about a compiled graph, read
 * through the graph's public queries (the description is not kept). */
#include "info_graph.h"
#include "tool_json.h"

static const char *param_type(stance_param_type t) {
    static const char *const names[] = {"float", "int", "bool", "trigger"};
    return (unsigned)t < 4 ? names[t] : "?";
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
    fprintf(f, "]}");
}
