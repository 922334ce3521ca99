/* tools/cmd_compile.c - `stance compile GRAPH.json [--asset FILE] -o OUT.stance
 * [--error-cm CM] [--vertex-cm CM] [--unit-cm CM]`:
 * a graph file compiled into one .stance file that the dependency-free
 * runtime loads (stance_asset_load_* gives asset.graph): the skeleton, the
 * clips the graph plays (clip states, blend entries, additive references;
 * in the asset's order), the asset's skins and meshes (and its base-colour images: a
 * texture section, docs/stance-format.md), and the graph in a
 * GRPH section with clips by index. The clips are compressed as `stance
 * import` compresses them (0.01 cm at 3 cm virtual vertices by default),
 * unless the asset is a .stance file (its clips are kept as stored) or
 * --error-cm 0 asks for exact keys. A clip the graph retargets at run time
 * ("retarget" in its "clips") is written as an ordinary clip of the
 * skeleton (stance_retarget_clip_bake) under its graph name, compressed like
 * the others. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "stance/graphfile.h"
#include "stance/build.h"
#include "stance/import.h"
#include "stance/retarget.h"
#include "io/asset_textures.h"

static int usage(FILE *f, int rc) {
    fprintf(f, "usage: stance compile GRAPH.json [--asset FILE] -o OUT.stance [--error-cm CM] [--vertex-cm CM] [--unit-cm CM]\n"
               "  writes the graph, its skeleton and the clips it plays (and the asset's skins and meshes)\n"
               "  into one .stance file; stance_asset_load_file gives the graph in asset.graph\n"
               "  --error-cm CM   clip compression, as stance import: largest model-space error at the\n"
               "             virtual vertices, in cm (default 0.01; 0 = exact keys; a .stance asset's\n"
               "             clips are kept as stored unless this is given)\n"
               "  --vertex-cm CM  distance of the virtual vertices from each joint (default 3)\n"
               "  --unit-cm CM    centimetres per model unit (default 100: metres)\n");
    return rc;
}

/* 1 when the graph's asset is a .stance file (its clips are as its author stored them). */
static int asset_is_native(const stance_graphfile *gf) {
    const char *name = stance_graphfile_asset_name(gf);
    FILE *f = name ? fopen(name, "rb") : NULL;
    unsigned char magic[8] = {0};
    size_t got = f ? fread(magic, 1, sizeof magic, f) : 0;
    if (f) fclose(f);
    return stance_asset_is_native(magic, got);
}

/* The description's copy with every clip pointer in `from` replaced by the
 * one at the same index in `to`: its machines, states, entries, layers,
 * clip notes, clip sync markers and curves (the rest is shared with d). One block, freed with free(). */
static void *redirect_clips(const stance_graph_desc *d, stance_clip *const *from, stance_clip *const *to, int n,
                            stance_graph_desc *out) {
    size_t states = 0, entries = 0;
    for (int m = 0; m < d->machine_count; m++) {
        states += (size_t)d->machines[m].state_count;
        for (int s = 0; s < d->machines[m].state_count; s++) entries += (size_t)d->machines[m].states[s].entry_count;
    }
    size_t bytes = sizeof(stance_machine_desc) * (size_t)d->machine_count + sizeof(stance_state_desc) * states +
                   sizeof(stance_blend_entry_desc) * entries + sizeof(stance_layer_desc) * (size_t)d->layer_count +
                   sizeof(stance_clip_notes_desc) * (size_t)d->clip_notes_count +
                   sizeof(stance_clip_sync_desc) * (size_t)d->clip_sync_count +
                   sizeof(stance_curve_desc) * (size_t)d->curve_count;
    unsigned char *block = malloc(bytes ? bytes : 1);
    if (!block) return NULL;
    stance_machine_desc *mach = (stance_machine_desc *)block;
    stance_state_desc *st = (stance_state_desc *)(mach + d->machine_count);
    stance_blend_entry_desc *en = (stance_blend_entry_desc *)(st + states);
    stance_layer_desc *ly = (stance_layer_desc *)(en + entries);
    stance_clip_notes_desc *no = (stance_clip_notes_desc *)(ly + d->layer_count);
    stance_clip_sync_desc *sy = (stance_clip_sync_desc *)(no + d->clip_notes_count);
    stance_curve_desc *cu = (stance_curve_desc *)(sy + d->clip_sync_count);
#define SWAP(c) do { for (int k = 0; k < n; k++) if ((c) == from[k]) { (c) = to[k]; break; } } while (0)
    *out = *d;
    for (int m = 0; m < d->machine_count; m++) {
        mach[m] = d->machines[m];
        mach[m].states = st;
        for (int s = 0; s < d->machines[m].state_count; s++, st++) {
            *st = d->machines[m].states[s];
            SWAP(st->clip);
            if (st->entry_count > 0) {
                memcpy(en, st->entries, sizeof *en * (size_t)st->entry_count);
                for (int e = 0; e < st->entry_count; e++) SWAP(en[e].clip);
                st->entries = en;
                en += st->entry_count;
            }
        }
    }
    for (int l = 0; l < d->layer_count; l++) {
        ly[l] = d->layers[l];
        SWAP(ly[l].ref_clip);
    }
    for (int i = 0; i < d->clip_notes_count; i++) {
        no[i] = d->clip_notes[i];
        SWAP(no[i].clip);
    }
    for (int i = 0; i < d->clip_sync_count; i++) {
        sy[i] = d->clip_sync[i];
        SWAP(sy[i].clip);
    }
    for (int i = 0; i < d->curve_count; i++) {
        cu[i] = d->curves[i];
        SWAP(cu[i].clip);
    }
#undef SWAP
    out->machines = mach;
    out->layers = ly;
    out->clip_notes = no;
    out->clip_sync = sy;
    out->curves = cu;
    return block;
}

/* 1 when the description plays or references clip c. */
static int uses_clip(const stance_graph_desc *d, const stance_clip *c) {
    for (int m = 0; m < d->machine_count; m++)
        for (int s = 0; s < d->machines[m].state_count; s++) {
            const stance_state_desc *sd = &d->machines[m].states[s];
            if (sd->type == STANCE_MOTION_CLIP && sd->clip == c) return 1;
            if (sd->type == STANCE_MOTION_BLEND1D || sd->type == STANCE_MOTION_BLEND2D)
                for (int e = 0; e < sd->entry_count; e++)
                    if (sd->entries[e].clip == c) return 1;
        }
    for (int l = 0; l < d->layer_count; l++)
        if (d->layers[l].ref_clip == c) return 1;
    return 0;
}

/* The clips retargeted at run time the description plays or references
 * (the graph file's own: clip->retarget set, or baked when the graph was
 * read, so not a clip of the asset), each once: *out (malloc'd; NULL when
 * none) and *n. 1 when out of memory. */
static int graph_own(const stance_asset *a, const stance_clip *c) {
    if (!c) return 0;
    if (c->retarget) return 1;
    for (int i = 0; i < a->clip_count; i++)
        if (a->clips[i] == c) return 0;
    return 1;
}

static int live_clips(const stance_graph_desc *d, const stance_asset *a, stance_clip ***out, int *n) {
    *out = NULL, *n = 0;
    int cap = 0;
    for (int m = 0; m < d->machine_count; m++) cap += d->machines[m].state_count * 2;
    for (int m = 0; m < d->machine_count; m++)
        for (int s = 0; s < d->machines[m].state_count; s++) cap += d->machines[m].states[s].entry_count;
    cap += d->layer_count;
    stance_clip **list = malloc(sizeof *list * (size_t)(cap ? cap : 1));
    if (!list) return 1;
#define ADD(c) do { const stance_clip *c_ = (c); int had_ = 0, own_ = graph_own(a, c_); \
        for (int k_ = 0; own_ && k_ < *n; k_++) had_ |= list[k_] == c_; \
        if (own_ && !had_) list[(*n)++] = (stance_clip *)c_; } while (0)
    for (int m = 0; m < d->machine_count; m++)
        for (int s = 0; s < d->machines[m].state_count; s++) {
            const stance_state_desc *sd = &d->machines[m].states[s];
            ADD(sd->clip);
            for (int e = 0; e < sd->entry_count; e++) ADD(sd->entries[e].clip);
        }
    for (int l = 0; l < d->layer_count; l++) ADD(d->layers[l].ref_clip);
#undef ADD
    *out = list;
    return 0;
}

int cmd_compile(int argc, char **argv) {
    const char *path = NULL, *asset_path = NULL, *out = NULL;
    double error_cm = 0.01, vertex_cm = 3.0, unit_cm = 100.0;
    int error_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--error-cm") || !strcmp(a, "--vertex-cm") || !strcmp(a, "--unit-cm")) {
            char *end = NULL;
            double v = i + 1 < argc ? strtod(argv[++i], &end) : -1.0;
            int zero_ok = !strcmp(a, "--error-cm");
            if (!end || *end || !isfinite(v) || v < 0.0 || (!zero_ok && v == 0.0) || v > 1e6) {
                fprintf(stderr, "stance compile: %s needs a number of centimetres %s\n", a, zero_ok ? ">= 0" : "> 0");
                return 2;
            }
            *(a[2] == 'e' ? &error_cm : a[2] == 'v' ? &vertex_cm : &unit_cm) = v;
            error_given |= a[2] == 'e';
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--asset") && i + 1 < argc) asset_path = argv[++i];
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return usage(stdout, 0);
        else if (argv[i][0] != '-' && !path) path = argv[i];
        else {
            fprintf(stderr, "stance compile: unknown or incomplete option '%s' (see --help)\n", argv[i]);
            return 2;
        }
    }
    if (!path || !out || !out[0]) return usage(stderr, 2);
    stance_graphfile_options opt;
    memset(&opt, 0, sizeof opt);
    opt.asset_override = asset_path;
    stance_graphfile *gf = NULL;
    stance_error err = {STANCE_OK, ""};
    if (stance_graphfile_load(path, &opt, &gf, &err)) {
        fprintf(stderr, "stance: %s\n", err.message);
        return 1;
    }
    const stance_graph_desc *d = stance_graphfile_desc(gf);
    if (!d) {
        fprintf(stderr, "stance: %s: is compiled already (compile its JSON graph file)\n", path);
        stance_graphfile_destroy(gf);
        return 1;
    }
    /* the asset as written: the same skeleton, skins and meshes, only the clips the graph uses */
    const stance_asset *a = stance_graphfile_asset(gf);
    stance_asset view = *a;
    view.graph = NULL;
    view.clip_notes = NULL, view.clip_notes_size = 0; /* the graph's notes are in its GRPH (the clips kept may be fewer) */
    view.clip_count = 0;
    view.clips = a->clip_count ? malloc(sizeof(stance_clip *) * (size_t)a->clip_count) : NULL;
    if (a->clip_count && !view.clips) {
        fprintf(stderr, "stance: %s: out of memory\n", path);
        stance_graphfile_destroy(gf);
        return 1;
    }
    for (int i = 0; i < a->clip_count; i++)
        if (uses_clip(d, a->clips[i])) view.clips[view.clip_count++] = a->clips[i];
    /* clips retargeted at run time: written as ordinary clips of the skeleton
     * (stance_retarget_clip_bake; one the graph baked when it was read, as
     * it is), after the asset's, under their graph names */
    int nlive = 0, rc = 0;
    stance_clip **live = NULL, **baked = NULL;
    const stance_graph_desc *base = d;
    stance_graph_desc bd;
    void *bblock = NULL;
    if (live_clips(d, a, &live, &nlive)) rc = 1;
    if (!rc && nlive) {
        stance_clip **grown = realloc(view.clips, sizeof(stance_clip *) * (size_t)(view.clip_count + nlive));
        baked = calloc((size_t)nlive, sizeof *baked);
        if (grown) view.clips = grown;
        if (!grown || !baked) rc = 1, snprintf(err.message, sizeof err.message, "%s: out of memory", path);
        for (int i = 0; !rc && i < nlive; i++) {
            if (!live[i]->retarget) view.clips[view.clip_count++] = live[i]; /* baked already: the graph's */
            else if (stance_retarget_clip_bake(live[i], a->skeleton, NULL, &baked[i], &err)) rc = 1;
            else view.clips[view.clip_count++] = baked[i];
        }
        /* redirected to itself where the graph baked it; baked[i] NULL there
         * (the graph file destroys it) */
        for (int i = 0; !rc && i < nlive; i++)
            if (!live[i]->retarget) live[i] = NULL;
        if (!rc && !(bblock = redirect_clips(d, live, baked, nlive, &bd)))
            rc = 1, snprintf(err.message, sizeof err.message, "%s: out of memory", path);
        if (!rc) base = &bd;
    } else if (rc) {
        snprintf(err.message, sizeof err.message, "%s: out of memory", path);
    }
    if (rc) {
        fprintf(stderr, "stance: %s\n", err.message);
        for (int i = 0; baked && i < nlive; i++) stance_clip_destroy(baked[i]);
        free(baked), free(live), free(bblock), free(view.clips);
        stance_graphfile_destroy(gf);
        return 1;
    }
    /* the clips compressed as stance import does (exact ones only; a .stance asset's as stored) */
    if (!error_given && asset_is_native(gf)) error_cm = 0.0;
    stance_compress_settings cs = {(float)(error_cm / unit_cm), (float)(vertex_cm / unit_cm), STANCE_IMPORT_DEFAULT_MEMORY};
    stance_clip **exact = NULL, **packed = NULL;
    int npacked = 0;
    stance_graph_desc cd = *base;
    void *cblock = NULL;
    if (error_cm > 0.0 && view.clip_count) {
        if (!(cs.max_error > 0.0f) || !(cs.vertex_distance > 0.0f)) {
            fprintf(stderr, "stance compile: --error-cm and --vertex-cm are too small for --unit-cm\n");
            for (int i = 0; i < nlive; i++) stance_clip_destroy(baked[i]);
            free(baked), free(live), free(bblock), free(view.clips);
            stance_graphfile_destroy(gf);
            return 2;
        }
        exact = malloc(sizeof *exact * (size_t)view.clip_count);
        packed = malloc(sizeof *packed * (size_t)view.clip_count);
        if (!exact || !packed) {
            snprintf(err.message, sizeof err.message, "%s: out of memory", path);
            rc = 1;
        }
        for (int i = 0; !rc && i < view.clip_count; i++) {
            if (stance_clip_is_compressed(view.clips[i])) continue;
            if (stance_clip_compress(view.clips[i], a->skeleton, &cs, NULL, &packed[npacked], &err)) {
                rc = 1;
                break;
            }
            exact[npacked] = view.clips[i];
            view.clips[i] = packed[npacked++];
        }
        if (!rc && npacked && !(cblock = redirect_clips(base, exact, packed, npacked, &cd))) {
            snprintf(err.message, sizeof err.message, "%s: out of memory", path);
            rc = 1;
        }
        if (rc) fprintf(stderr, "stance: %s\n", err.message);
    }
    /* the asset file's base-colour images (its texture section, or a glTF's), kept in the output */
    stance_textures tex = {0};
    const char *asset_file = stance_graphfile_asset_name(gf);
    FILE *probe = !rc && asset_file ? fopen(asset_file, "rb") : NULL;
    if (probe) fclose(probe);
    if (probe && stance_textures_of_file(asset_file, a, &tex, NULL, &err)) {
        fprintf(stderr, "stance: %s\n", err.message);
        rc = 1;
    }
    if (rc) {
        /* reported above */
    } else if (stance_textures_save_file(&view, &cd, &tex, out, &err)) {
        fprintf(stderr, "stance: %s\n", err.message);
        rc = 1;
    } else {
        const stance_graph *g = stance_graphfile_graph(gf);
        printf("%s: graph of %s (%d parameters, %d machines, %d states, %d layers), %d joints, %d of %d clips", out,
               path, stance_graph_param_count(g), stance_graph_machine_count(g), stance_graph_state_count(g),
               stance_graph_layer_count(g), a->skeleton->joint_count, view.clip_count - nlive, a->clip_count);
        if (nlive) printf(" and %d retargeted at run time (baked)", nlive);
        if (npacked) {
            float worst = 0.0f;
            for (int i = 0; i < npacked; i++) worst = fmaxf(worst, stance_clip_max_error(packed[i], NULL));
            printf(", %d compressed (largest error %.4g cm)", npacked, (double)worst * unit_cm);
        }
        printf("\n");
    }
    stance_textures_free(&tex);
    for (int i = 0; i < npacked; i++) stance_clip_destroy(packed[i]);
    free(exact);
    free(packed);
    free(cblock);
    for (int i = 0; i < nlive; i++) stance_clip_destroy(baked[i]);
    free(baked), free(live), free(bblock);
    free(view.clips);
    stance_graphfile_destroy(gf);
    return rc;
}
