/* src/core/graph/graph_identity.c - a graph's identity (graph_identity.h):
 * the hash a saved instance state carries (core/frame/instance_save.c) so
 * that a state is restored only into an instance of a graph of the same
 * shape, names and clip lengths. */
#include "core/graph/graph_identity.h"

#include "stance/skeleton.h"

uint64_t gr_fnv(uint64_t h, const void *bytes, size_t n) {
    const unsigned char *p = bytes;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t h_int(uint64_t h, int v) {
    int32_t x = (int32_t)v;
    return gr_fnv(h, &x, sizeof x);
}

static uint64_t h_float(uint64_t h, float v) { return gr_fnv(h, &v, sizeof v); }

/* a name up to its terminator (what follows in its buffer is not the graph's) */
static uint64_t h_name(uint64_t h, const char *s) { return gr_fnv(h, s, strlen(s) + 1); }

/* a clip a state plays: its name, length, key count and events' names */
static uint64_t h_clip(uint64_t h, const stance_clip *c) {
    if (!c) return h_int(h, -1);
    h = h_name(h, c->name);
    h = h_int(h_float(h, c->duration), c->key_count);
    h = h_int(h, c->event_count);
    for (int e = 0; e < c->event_count; e++) h = h_name(h, c->events[e].name);
    return h;
}

uint64_t gr_identity(const stance_graph *g) {
    uint64_t h = GR_FNV_SEED;
    const stance_skeleton *sk = g->skeleton;
    h = h_int(h, sk->joint_count);
    for (int j = 0; j < sk->joint_count; j++) {
        h = h_int(h, sk->parents[j]);
        h = h_name(h, stance_skeleton_joint_name(sk, j));
    }
    h = h_int(h, g->param_count);
    for (int i = 0; i < g->param_count; i++) h = h_int(h_name(h, g->params[i].name), (int)g->params[i].type);
    h = h_int(h, g->machine_count);
    for (int m = 0; m < g->machine_count; m++) {
        const g_machine *gm = &g->machines[m];
        h = h_name(h, gm->name);
        h = h_int(h_int(h_int(h, gm->state_first), gm->state_count), gm->entry);
        h = h_int(h_int(h, gm->clip_cap), gm->history);
    }
    h = h_int(h, g->state_count);
    for (int s = 0; s < g->state_count; s++) {
        const g_state *st = &g->states[s];
        h = h_name(h, st->name);
        h = h_int(h_int(h_int(h, st->machine), (int)st->type), st->sub_machine);
        h = h_int(h_clip(h, st->clip), st->entry_count);
        for (int e = 0; e < st->entry_count; e++) h = h_clip(h, g->entries[st->entry_first + e].clip);
    }
    h = h_int(h_int(h, g->trans_count), g->entry_count);
    h = h_int(h, g->layer_count);
    for (int l = 0; l < g->layer_count; l++) h = h_int(h_name(h, g->layers[l].name), g->layers[l].machine);
    h = h_int(h, g->ik_count);
    for (int i = 0; i < g->ik_count; i++) {
        h = h_int(h_name(h, g->ik[i].name), (int)g->ik[i].kind);
        h = h_int(h, g->ik[i].kind == STANCE_IK_FOOTLOCK ? g->ik[i].fd.leg_count : 0);
    }
    return h;
}
