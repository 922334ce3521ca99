/* src/core/graph/graph_derive.c - what a compiled graph derives from its own
 * arrays: each machine's cursor count and flags, which layers the fused
 * passes may take, and which blend spaces keep one scale (the frame's
 * program and the machines' root layers: graph_program.c). The builder
 * (src/build/graph_build.c) fills these fields with them; the binder
 * (graph_check.c) recomputes them from a file's arrays and refuses a file
 * whose fields differ. */
#include <math.h>
#include <string.h>

#include "core/graph/graph_derive.h"

void gr_machine_flags(const stance_graph *g, int *clip_cap, int *history, int *has_trans) {
    for (int m = 0; m < g->machine_count; m++) {
        const g_machine *gm = &g->machines[m];
        clip_cap[m] = 1, history[m] = 0, has_trans[m] = gm->any_count > 0;
        for (int s = gm->state_first; s < gm->state_first + gm->state_count; s++) {
            if (g->states[s].entry_count > clip_cap[m]) clip_cap[m] = g->states[s].entry_count;
            if (g->states[s].trans_count > 0) has_trans[m] = 1;
        }
    }
    for (int t = 0; t < g->trans_count; t++) {
        const stance_switch_mode md = g->trans[t].mode;
        if (md == STANCE_SWITCH_INERTIALIZE || md == STANCE_SWITCH_INERTIALIZE_SIMPLE || md == STANCE_SWITCH_DEADBLEND)
            history[g->states[g->trans[t].to].machine] = 1;
    }
}

int gr_layer_fusable(const stance_graph *g, int l) {
    const g_layer *gl = &g->layers[l];
    const g_machine *gm = &g->machines[gl->machine];
    const int kind = gl->mode == STANCE_LAYER_ADDITIVE ? gl->additive_ref == STANCE_ADDITIVE_FIRST_FRAME
                                                       : gl->space != STANCE_SPACE_MESH;
    int nests = 0;
    for (int s = gm->state_first; s < gm->state_first + gm->state_count; s++) nests |= g->states[s].sub_machine >= 0;
    return l > 0 && kind && !nests;
}

int gr_same_scale(const stance_graph *g, int si) {
    const g_state *gs = &g->states[si];
    if (gs->type != STANCE_MOTION_BLEND1D && gs->type != STANCE_MOTION_BLEND2D) return 0;
    const g_entry *e = g->entries + gs->entry_first;
    const stance_clip *c0 = e[0].delta ? e[0].delta : e[0].clip;
    int same = 1;
    for (int i = 0; i < gs->entry_count && same; i++) {
        const stance_clip *c = e[i].delta ? e[i].delta : e[i].clip;
        same = !c->packed && c->s_keys == 1 && c->padded_count == c0->padded_count &&
               !memcmp(c->s, c0->s, sizeof(float) * 3 * (size_t)c0->padded_count);
    }
    for (int k = 0; k < 3 * c0->padded_count && same; k++) same = !(c0->s[k] == 0.0f && signbit(c0->s[k]));
    return same;
}

int gr_wants_delta(const stance_graph *g, int m) {
    const int l = g->machines[m].root_layer;
    return l >= 0 && g->layers[l].mode == STANCE_LAYER_ADDITIVE && g->layers[l].additive_ref == STANCE_ADDITIVE_FIRST_FRAME;
}
