/* lab/lab_diagram.c - what the lab's state-machine diagram (lab/lab_graphview.js,
 * lab/lab_editor2.js) needs beyond the public graph queries: the machine a
 * state nests, so the diagram draws it inside its state and opens it on a
 * double click. Read from the graph's tables (as lab_editor.c does to write
 * a graph back as JSON); nothing here runs per frame in the runtime. */
#include "lab.h"
#include "core/graph/graph_internal.h"

/* The machine state `state` of view `view`'s graph nests, or -1 (not a
 * nested-machine state, no such state, no view). */
LAB_API int lab_state_nested(int view, int state) {
    lab_view *v = lab_view_at(view);
    if (!v || !v->graph || state < 0 || state >= v->graph->state_count) return -1;
    const g_state *s = &v->graph->states[state];
    return s->type == STANCE_MOTION_MACHINE ? s->sub_machine : -1;
}
