/* src/core/frame/advance_skip.c - the advance stage's plan on a frame the pose skips
 * (stance_instance_advance, stance_instances_advance in skip_frame.c: animation LOD,
 * docs/lod.md). Such a frame evaluates nothing, so of the stage's plan
 * (advance.c's plan(), about a fifth of the advance) it needs only what
 * root motion reads: whether the base layer's machine is in a switch, its
 * mode and its eased weight. The rest of the plan says what to sample, and
 * the next update plans afresh.
 *
 * The plan also moves machine state on (history frames, an inertializing
 * switch's pending fit): an instance with any of that takes the whole plan,
 * so what this skips changes nothing the instance keeps. It owns no state. */
#include "core/frame/advance.h"
#include "core/frame/transition.h"

int adv_skip_plan(stance_instance *inst, stance_workspace *ws) {
    const stance_graph *g = inst->graph;
    for (int m = 0; m < g->machine_count; m++)
        if (inst->machines[m].has_history || inst->machines[m].pending_init) return 0;
    /* root_motion's reads of the base machine's plan, as plan_machine writes them */
    const int m = g->layers[0].machine;
    const g_machine_rt *rt = &inst->machines[m];
    g_plan *pl = &ws->plans[m];
    pl->active = 1;
    pl->blend = rt->trans >= 0;
    if (pl->blend) {
        pl->mode = rt->mode;
        pl->w = tr_ease(rt->easing, rt->duration > 0.0f ? rt->elapsed / rt->duration : 1.0f);
    }
    return 1;
}
