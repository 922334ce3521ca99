/* src/core/graph/graph_program.c - the frame's program, derived from a compiled
 * graph's own arrays: every machine some layer runs as one step, layer by
 * layer in layer order, each layer's machine tree children first (a
 * machine's subtree is the steps from its `first` to its own), with each
 * step's parent; each machine's root layer; and each two_bone and aim
 * entry's local-to-model range. The builder (src/build/graph_build.c)
 * stores them with gr_fill_program and gr_fill_ik_ranges; the binder
 * (graph_check.c) derives them again from a file's arrays and refuses a file
 * whose fields differ. The frame's stages loop over them (docs/frame.md):
 * nothing walks the nesting of machines at run time. */
#include <string.h>

#include "core/graph/graph_derive.h"

/* Appends machine m's subtree (children first, m last) from step `at`;
 * returns the next free step. Nesting is a forest at most STANCE_MAX_NEST
 * deep (the builder validated it, graph_check.c checks it first), so this
 * recursion ends. */
static int add_tree(const stance_graph *g, int l, int m, int parent, int at, g_step *steps, int *machine_step, int *root_layer) {
    const g_machine *gm = &g->machines[m];
    const int first = at;
    for (int s = gm->state_first; s < gm->state_first + gm->state_count; s++)
        if (g->states[s].sub_machine >= 0) at = add_tree(g, l, g->states[s].sub_machine, m, at, steps, machine_step, root_layer);
    g_step *st = &steps[at];
    st->machine = m;
    st->parent = parent;
    st->parent_state = parent >= 0 ? gm->parent_state : -1;
    st->first = first;
    st->layer = l;
    st->has_trans = gm->has_trans;
    machine_step[m] = at, root_layer[m] = l;
    return at + 1;
}

int gr_program(const stance_graph *g, g_step *steps, int *machine_step, int *root_layer, int *layer_first, int *layer_last) {
    for (int m = 0; m < g->machine_count; m++) machine_step[m] = -1, root_layer[m] = -1;
    int at = 0;
    for (int l = 0; l < g->layer_count; l++) {
        layer_first[l] = at;
        at = add_tree(g, l, g->layers[l].machine, -1, at, steps, machine_step, root_layer);
        layer_last[l] = at - 1;
    }
    return at;
}

void gr_ik_range(const stance_graph *g, int e, int *from, int *to) {
    const stance_skeleton *sk = g->skeleton;
    const g_ik *gi = &g->ik[e];
    *from = -1, *to = sk->joint_count - 1; /* footlock: its own passes */
    if (gi->kind != STANCE_IK_TWO_BONE && gi->kind != STANCE_IK_AIM) return;
    const int top = gi->kind == STANCE_IK_TWO_BONE ? gi->fd.legs[0].upper : gi->chain[0];
    /* a root top takes the whole pass: the schedule may compute a root as the
     * identity times its local transform, which a -0 does not survive */
    if (top < 0 || top >= sk->joint_count || sk->parents[top] < 0) return;
    /* joints come parents first: top's subtree lies within top..its last descendant */
    unsigned char in[STANCE_MAX_JOINTS];
    memset(in, 0, (size_t)sk->joint_count);
    in[top] = 1;
    int last = top;
    for (int j = top + 1; j < sk->joint_count; j++)
        if (sk->parents[j] >= 0 && in[sk->parents[j]]) in[j] = 1, last = j;
    *from = top, *to = last;
}

void gr_fill_program(stance_graph *g) {
    int step[STANCE_MAX_MACHINES], root[STANCE_MAX_MACHINES], first[STANCE_MAX_LAYERS], last[STANCE_MAX_LAYERS];
    g->step_count = gr_program(g, g->steps, step, root, first, last);
    for (int m = 0; m < g->machine_count; m++) g->machines[m].step = step[m], g->machines[m].root_layer = root[m];
    for (int l = 0; l < g->layer_count; l++) g->layers[l].step_first = first[l], g->layers[l].step_last = last[l];
}

void gr_fill_ik_ranges(stance_graph *g) {
    for (int e = 0; e < g->ik_count; e++) gr_ik_range(g, e, &g->ik[e].l2m_from, &g->ik[e].l2m_to);
}
