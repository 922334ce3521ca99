/* src/core/control/transfer.c - hot reload: moves what can be moved from an
 * instance of one graph into an instance of another version of it
 * (parameters, layer weights, each machine's state and time, by name; the
 * world root, ground and IK entries' locks and targets), and
 * lists what has no counterpart. */
#include <stdio.h>
#include <string.h>

#include "core/frame/instance_internal.h"
#include "core/base/internal.h"

static void say(char *report, size_t cap, const char *what, const char *name) {
    if (!report || !cap) return;
    size_t n = strlen(report);
    if (n + 4 >= cap) return;
    snprintf(report + n, cap - n, "%sdropped %s '%s'", n ? "; " : "", what, name);
}

stance_status stance_instance_transfer(stance_instance *to, const stance_instance *from, char *report, size_t cap,
                                       stance_error *err) {
    if (!in_live(to) || !in_live(from))
        return st_fail(err, STANCE_ERR_ARGUMENT, "instance transfer: %s is " IN_NOT_LIVE, in_live(to) ? "from" : "to");
    if (report && cap) report[0] = 0;
    const stance_graph *a = from->graph, *b = to->graph;
    for (int i = 0; i < a->param_count; i++) {
        int k = stance_graph_find_param(b, a->params[i].name);
        if (k < 0 || b->params[k].type != a->params[i].type) { say(report, cap, "parameter", a->params[i].name); continue; }
        to->params[k] = from->params[i], to->param_target[k] = from->param_target[i];
    }
    for (int l = 0; l < a->layer_count; l++) {
        int k = stance_graph_find_layer(b, a->layers[l].name);
        if (k < 0) { say(report, cap, "layer", a->layers[l].name); continue; }
        if (k > 0) {
            to->layer_weight[k] = from->layer_weight[l], to->layer_target[k] = from->layer_target[l];
            to->layer_rate[k] = from->layer_rate[l], to->layer_off[k] = from->layer_off[l];
        }
    }
    for (int m = 0; m < a->machine_count; m++) {
        int k = stance_graph_find_machine(b, a->machines[m].name);
        if (k < 0) { say(report, cap, "machine", a->machines[m].name); continue; }
        const g_machine_rt *src = &from->machines[m];
        g_machine_rt *dst = &to->machines[k];
        /* a state asked for by play and not yet started counts as the current one */
        const int src_state = src->req_state >= 0 ? src->req_state : src->cur.state;
        const char *sn = a->states[src_state].name;
        int found = -1;
        for (int s2 = 0; s2 < b->machines[k].state_count; s2++)
            if (!strcmp(b->states[b->machines[k].state_first + s2].name, sn)) found = b->machines[k].state_first + s2;
        if (found < 0) { say(report, cap, "state", sn); continue; }
        memset(&dst->cur, 0, sizeof dst->cur);
        dst->cur.state = found;
        memset(dst->cursors, 0, sizeof(stance_cursor) * 2 * (size_t)b->machines[k].clip_cap);
        dst->req_state = -1;
        if (src->req_state >= 0) { /* starts from its beginning */
            dst->trans = -1, dst->locked = 0, dst->pending_init = 0;
            continue;
        }
        dst->cur.time = src->cur.time;
        dst->cur.loops = src->cur.loops;
        dst->cur.finished = src->cur.finished;
        /* keep the position where the new state's motion has room for it */
        const g_state *ns = &b->states[found];
        float pos = src->cur.pos;
        if (ns->type == STANCE_MOTION_CLIP && pos > ns->clip->duration) pos = ns->clip->duration;
        if (ns->type == STANCE_MOTION_BLEND1D || ns->type == STANCE_MOTION_BLEND2D) pos = pos - floorf(pos);
        if (a->states[src->cur.state].type != ns->type) pos = 0.0f;
        dst->cur.pos = pos;
        dst->trans = -1, dst->locked = 0, dst->pending_init = 0;
    }
    to->time = from->time;
    /* the character stays where it is, on its ground; IK entries of the
     * same name and kind keep their locks (same leg count) or targets and poles */
    to->world_root = from->world_root, to->root_owned = from->root_owned;
    to->ground = from->ground, to->ground_user = from->ground_user;
    for (int e = 0; e < a->ik_count; e++) {
        int found = -1;
        for (int k = 0; k < b->ik_count; k++)
            if (!strcmp(a->ik[e].name, b->ik[k].name) && a->ik[e].kind == b->ik[k].kind) found = k;
        if (found < 0) { say(report, cap, "ik entry", a->ik[e].name); continue; }
        memcpy(to->ik_target + IK_TARGET_FLOATS * (size_t)found, from->ik_target + IK_TARGET_FLOATS * (size_t)e, sizeof(float) * IK_TARGET_FLOATS);
        if (a->ik[e].fd.leg_count == b->ik[found].fd.leg_count) to->ik_state[found] = from->ik_state[e];
    }
    return st_ok(err);
}
