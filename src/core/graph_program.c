/* src/core/graph_program.c - the frame's program, compiled once with the
 * graph (after its IK entries): every machine some layer runs as one step,
 * layer by layer in layer order, each layer's machine tree children first
 * (a machine's subtree is the steps from its `first` to its own), with each
 * step's parent; and each two_bone and aim entry's local-to-model range.
 * The frame's stages loop over these (docs/frame.md): nothing walks the
 * nesting of machines at run time.
 *
 * Owns the program's one allocation (g->steps, program_bytes). */
#include <string.h>

#include "core/graph_build.h"
#include "core/internal.h"

/* Appends machine m's subtree (children first, m last); returns the next
 * free step. Nesting is at most STANCE_MAX_NEST deep and each machine is
 * nested once (graph.c validated it), so this build-time recursion ends. */
static int add_tree(stance_graph *g, int l, int m, int parent, int at) {
    const g_machine *gm = &g->machines[m];
    const int first = at;
    for (int s = gm->state_first; s < gm->state_first + gm->state_count; s++)
        if (g->states[s].sub_machine >= 0) at = add_tree(g, l, g->states[s].sub_machine, m, at);
    g_step *st = &g->steps[at];
    st->machine = m;
    st->parent = parent;
    st->parent_state = parent >= 0 ? gm->parent_state : -1;
    st->first = first;
    st->layer = l;
    st->has_trans = gm->has_trans;
    g->machines[m].step = at;
    return at + 1;
}

/* The joints a solve from joint top changes: top's subtree. Joints come
 * parents first, so the subtree lies within top..its last descendant. A
 * root top takes the whole pass (from -1): the schedule may compute a root
 * as the identity times its local transform, which a -0 does not survive. */
static void subtree_range(const stance_skeleton *sk, int top, int *from, int *to) {
    if (sk->parents[top] < 0) {
        *from = -1, *to = sk->joint_count - 1;
        return;
    }
    unsigned char in[STANCE_MAX_JOINTS];
    memset(in, 0, (size_t)sk->joint_count);
    in[top] = 1;
    int last = top;
    for (int j = top + 1; j < sk->joint_count; j++)
        if (sk->parents[j] >= 0 && in[sk->parents[j]]) in[j] = 1, last = j;
    *from = top, *to = last;
}

stance_status gr_build_program(stance_graph *g, stance_error *err) {
    const int M = g->machine_count;
    g->program_bytes = sizeof(g_step) * (size_t)M;
    g->steps = st_alloc(&g->allocator, g->program_bytes, 16);
    if (!g->steps) return st_fail(err, STANCE_ERR_MEMORY, "graph: allocation of %zu bytes for the frame's program failed", g->program_bytes);
    for (int m = 0; m < M; m++) g->machines[m].step = -1;
    int at = 0;
    for (int l = 0; l < g->layer_count; l++) {
        g_layer *gl = &g->layers[l];
        gl->step_first = at;
        at = add_tree(g, l, gl->machine, -1, at);
        gl->step_last = at - 1;
    }
    g->step_count = at;
    for (int e = 0; e < g->ik_count; e++) {
        g_ik *gi = &g->ik[e];
        gi->l2m_from = -1, gi->l2m_to = g->skeleton->joint_count - 1; /* footlock: its own passes */
        if (gi->kind == STANCE_IK_TWO_BONE) subtree_range(g->skeleton, gi->fd.legs[0].upper, &gi->l2m_from, &gi->l2m_to);
        if (gi->kind == STANCE_IK_AIM) subtree_range(g->skeleton, gi->chain[0], &gi->l2m_from, &gi->l2m_to);
    }
    return STANCE_OK;
}

void gr_destroy_program(stance_graph *g) {
    if (!g->steps) return;
    st_free(&g->allocator, g->steps, g->program_bytes);
    g->steps = NULL;
}
