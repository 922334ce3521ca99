/* tools/cmd_graph_check.c - `stance graph_check FILE [--asset FILE]`: loads a
 * graph file (docs/graph-format.md) and prints what it describes, or its
 * first error as one line on stderr (exit 1). Reads only; owns no format
 * rules (src/io/graphfile.c does). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "info_graph.h"
#include "stance/graphfile.h"
#include "stance/build.h"

static const char *const k_types[] = {"float", "int", "bool", "trigger"};
static const char *const k_ops[] = {">=", ">", "<=", "<", "==", "!=", "", "is false"};
static const char *const k_modes[] = {"crossfade", "cut", "frozen", "inertialize", "inertialize_simple",
                                      "deadblend"};

static void usage(FILE *f) {
    fprintf(f, "usage: stance graph_check FILE [--asset FILE]\n"
               "  Loads a graph file and prints its parameters, machines (states and\n"
               "  transitions in priority order) and layers, or its first error.\n"
               "  --asset FILE  use this asset (\"builtin\", a .stance file, or anything\n"
               "                the importer reads) instead of the file's \"asset\"\n");
}

/* the IK stage after the layers */
static void print_ik(const stance_graph_desc *d) {
    static const char *const kinds[] = {"footlock", "two_bone", "aim"};
    if (d->ik_count == 0) return;
    printf("ik (%d):\n", d->ik_count);
    for (int i = 0; i < d->ik_count; i++) {
        const stance_ik_desc *k = &d->ik[i];
        printf("  %-12s %s", k->name, (unsigned)k->kind < 3 ? kinds[k->kind] : "?");
        if (k->kind == STANCE_IK_AIM) {
            printf(", chain");
            for (int j = 0; j < k->chain_count; j++) printf(" %s", k->chain[j]);
        } else {
            for (int l = 0; l < k->leg_count; l++)
                printf("%s %s > %s > %s%s%s%s", l ? ";" : ", legs", k->legs[l].hip, k->legs[l].knee, k->legs[l].ankle,
                       k->legs[l].down_event ? " (events " : "", k->legs[l].down_event ? k->legs[l].down_event : "",
                       k->legs[l].down_event ? ")" : "");
        }
        printf("\n");
    }
}

static void print_state(const stance_state_desc *s) {
    printf("    state %-14s ", s->name);
    switch (s->type) {
    case STANCE_MOTION_CLIP: printf("clip %s", s->clip->name); break;
    case STANCE_MOTION_MACHINE: printf("machine %s", s->machine); break;
    default:
        if (s->type == STANCE_MOTION_BLEND1D) printf("blend1d on %s:", s->param_x);
        else printf("blend2d on %s, %s:", s->param_x, s->param_y);
        for (int i = 0; i < s->entry_count; i++) {
            const stance_blend_entry_desc *e = &s->entries[i];
            if (s->type == STANCE_MOTION_BLEND1D) printf(" %s@%g", e->clip->name, (double)e->x);
            else printf(" %s@(%g, %g)", e->clip->name, (double)e->x, (double)e->y);
        }
        break;
    }
    if (s->speed_warp) printf(", speed warp");
    if (s->once) printf(", once");
    if (s->speed != 0.0f && s->speed != 1.0f) printf(", speed %g", (double)s->speed);
    if (s->speed_param) printf(", speed x %s", s->speed_param);
    if (s->sync) printf(", sync group %s", s->sync);
    printf("\n");
}

/* the clips' sync markers and ground speeds (docs/sync.md) */
static void print_clip_sync(const stance_graph_desc *d) {
    for (int i = 0; i < d->clip_sync_count; i++) {
        const stance_clip_sync_desc *c = &d->clip_sync[i];
        printf("  clip %s:", c->clip->name);
        for (int k = 0; k < c->marker_count; k++) printf(" %s@%g", c->markers[k].name, (double)c->markers[k].time);
        if (c->speed > 0.0f) printf("%s speed %g m/s", c->marker_count ? "," : "", (double)c->speed);
        printf("\n");
    }
}

static void print_transition(const stance_transition_desc *t, float default_blend) {
    printf("    %s -> %s", t->from ? t->from : "*", t->to);
    if (t->exit == STANCE_EXIT_AT_END) printf(" at the end");
    else if (t->exit == STANCE_EXIT_NORMALIZED) printf(" at %g", (double)t->exit_time);
    if (t->condition_count) {
        printf(" when ");
        int group = t->conditions[0].group;
        for (int i = 0; i < t->condition_count; i++) {
            const stance_condition_desc *c = &t->conditions[i];
            if (i) printf(c->group != group ? " or " : " and ");
            group = c->group;
            if (c->op == STANCE_CMP_TRUE) printf("%s", c->param);
            else if (c->op == STANCE_CMP_FALSE) printf("%s is false", c->param);
            else printf("%s %s %g", c->param, k_ops[c->op], (double)c->value);
            if (c->hysteresis > 0.0f) printf(" (hysteresis %g)", (double)c->hysteresis);
        }
    } else if (t->exit == STANCE_EXIT_NONE) {
        printf(" always");
    }
    printf("; %s %g s %s", k_modes[t->mode], (double)(t->blend_time > 0.0f ? t->blend_time : default_blend),
           t->easing == STANCE_EASE_LINEAR ? "linear" : "smoothstep");
    if (t->uninterruptible) printf(", uninterruptible");
    if (t->allow_self) printf(", may restart");
    printf("\n");
}

static void print_summary(const stance_graphfile *gf) {
    const stance_graph_desc *d = stance_graphfile_desc(gf);
    const stance_asset *a = stance_graphfile_asset(gf);
    const stance_skeleton *sk = stance_graphfile_skeleton(gf);
    if (!d) { /* a compiled graph: described through the graph's queries */
        printf("%s: ok (compiled)\n", stance_graphfile_name(gf));
        printf("asset %s: %d joints, %d clips\n", stance_graphfile_asset_name(gf), sk->joint_count, a->clip_count);
        info_graph_text(stdout, stance_graphfile_graph(gf));
        return;
    }
    float blend = d->default_blend_time > 0.0f ? d->default_blend_time : 0.25f;
    printf("%s: ok\n", stance_graphfile_name(gf));
    printf("asset %s: %d joints, %d clips\n", stance_graphfile_asset_name(gf), sk->joint_count, a->clip_count);
    printf("params (%d):\n", d->param_count);
    for (int i = 0; i < d->param_count; i++) {
        const stance_param_desc *p = &d->params[i];
        printf("  %-16s %s", p->name, k_types[p->type]);
        if (p->type != STANCE_PARAM_TRIGGER) printf(" = %g", (double)p->value);
        if (p->damping > 0.0f) printf(", damped over %g s", (double)p->damping);
        printf("\n");
    }
    printf("machines (%d):\n", d->machine_count);
    for (int m = 0; m < d->machine_count; m++) {
        const stance_machine_desc *md = &d->machines[m];
        printf("  %s: %d state%s, entry %s, %d transition%s\n", md->name, md->state_count,
               md->state_count == 1 ? "" : "s", md->entry ? md->entry : md->states[0].name,
               md->transition_count, md->transition_count == 1 ? "" : "s");
        for (int s = 0; s < md->state_count; s++) print_state(&md->states[s]);
        for (int t = 0; t < md->transition_count; t++) print_transition(&md->transitions[t], blend);
    }
    print_clip_sync(d);
    if (d->layer_count == 0) {
        printf("layers: one, running %s\n", d->machines[0].name);
        print_ik(d);
        return;
    }
    printf("layers (%d):\n", d->layer_count);
    for (int l = 0; l < d->layer_count; l++) {
        const stance_layer_desc *ld = &d->layers[l];
        printf("  %-12s machine %s, %s, %s space, weight %g", ld->name, ld->machine,
               ld->mode == STANCE_LAYER_ADDITIVE ? "additive" : "override",
               ld->space == STANCE_SPACE_MESH ? "mesh" : "local", (double)ld->weight);
        if (ld->mode == STANCE_LAYER_ADDITIVE) {
            if (ld->additive_ref == STANCE_ADDITIVE_REF_CLIP_SYNC)
                printf(", reference %s (synced)", ld->ref_clip->name);
            else if (ld->ref_clip)
                printf(", reference %s's first frame", ld->ref_clip->name);
            else
                printf(", reference first frame");
        }
        if (ld->mask) {
            int on = 0;
            for (int j = 0; j < sk->joint_count; j++) on += ld->mask[j] > 0.0f;
            printf(", mask on %d of %d joints", on, sk->joint_count);
        }
        if (ld->priority) printf(", priority %d", ld->priority);
        printf("\n");
    }
    print_ik(d);
}

int cmd_graph_check(int argc, char **argv) {
    const char *path = NULL;
    stance_graphfile_options opt = {0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--asset") && i + 1 < argc) {
            opt.asset_override = argv[++i];
        } else if (argv[i][0] == '-' || path) {
            fprintf(stderr, "stance %s: unexpected argument '%s'\n", argv[0], argv[i]);
            usage(stderr);
            return 2;
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        usage(stderr);
        return 2;
    }
    stance_graphfile *gf = NULL;
    stance_error err = {0};
    if (stance_graphfile_load(path, &opt, &gf, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    print_summary(gf);
    stance_graphfile_destroy(gf);
    return 0;
}
