/* lab/lab_editor.c - the graph editor's C side (lab/lab_editor.js is the
 * page's): a graph JSON text (docs/graph-format.md) read and built by the
 * same reader as the CLI's `stance graph-check` (src/io/graphfile*.c, on
 * Debian's jansson) against the loaded character's asset, then run at once
 * in view 2 with the parameter values kept (the graph view 2 runs written
 * back as graph JSON is lab/lab_editor_json.c's); and the built graph saved as a compiled .stance
 * (`stance compile`'s output for a .stance asset: the skeleton, skins,
 * meshes, the clips the graph plays as stored, and the GRPH section). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "core/base/internal.h"
#include "core/graph/graph_internal.h"
#include "stance/build.h"
#include "stance/graph_query.h"
#include "stance/graphfile.h"
#include "stance/import.h"
#include "io/scenario_script.h"

static struct {
    char *text;              /* the text JavaScript wrote (NUL-terminated) */
    stance_graphfile *gf;    /* the graph view 2 runs when the editor built it */
    unsigned char *saved;    /* lab_editor_save_stance's bytes */
    size_t saved_size;
    char name[256];          /* the text's name in messages, or the asset's name for lab_editor_json (lab_editor_json.c) */
    float *poses;            /* lab_editor_scenario's model-space joint positions, frame by frame */
} ed;

/* 256 bytes for JavaScript to write a NUL-terminated name into. */
LAB_API char *lab_editor_name(void) { return ed.name; }

LAB_API char *lab_editor_text_buffer(int size) {
    free(ed.text);
    ed.text = NULL;
    if (size < 0 || size > (64 << 20)) { lab_fail("editor: bad text size %d", size); return NULL; }
    ed.text = calloc((size_t)size + 1, 1);
    if (!ed.text) lab_fail("editor: out of memory");
    return ed.text;
}

const stance_graph *lab_editor_graph(void) { return ed.gf ? stance_graphfile_graph(ed.gf) : NULL; }

/* 1 when view 2 runs the graph the editor built. */
LAB_API int lab_editor_active(void) { return ed.gf && lab_view_slot(2)->graph == stance_graphfile_graph(ed.gf); }

/* Forgets the editor's graph; view 2 must not run it any more (a new file was loaded). */
LAB_API void lab_editor_release(void) {
    if (lab_editor_active()) lab_view_close(lab_view_slot(2));
    stance_graphfile_destroy(ed.gf);
    ed.gf = NULL;
}

/* Reads and builds the text in the buffer (named by lab_editor_name in messages) on the
 * loaded asset. Fails with the reader's "NAME:LINE:COL: ..." message (lab_error). */
static int build(stance_graphfile **out) {
    const char *name = ed.name;
    const stance_asset *a = lab_asset_loaded();
    if (!a) return lab_fail("no character loaded: open a .stance file first");
    if (!ed.text) return lab_fail("editor: no text");
    stance_graphfile_options opt;
    memset(&opt, 0, sizeof opt);
    opt.asset = a;
    stance_error err = {STANCE_OK, ""};
    if (stance_graphfile_load_string(ed.text, name && name[0] ? name : "graph.json", NULL, &opt, out, &err))
        return lab_fail("%s", err.message);
    return 0;
}

/* Only checks the text (the message as lab_editor_build's); 0 when it builds. */
LAB_API int lab_editor_check(void) {
    stance_graphfile *gf = NULL;
    int r = build(&gf);
    stance_graphfile_destroy(gf);
    return r;
}

/* Builds the text and runs it in view 2 at once, the parameters of the same
 * name and type keeping their values. 0, or -1 with the message. */
LAB_API int lab_editor_build(void) {
    stance_graphfile *gf = NULL;
    if (build(&gf)) return -1;
    const stance_graph *g = stance_graphfile_graph(gf);
    lab_view *v = lab_view_slot(2);
    /* the values now, by name */
    enum { KEEP = STANCE_MAX_PARAMS };
    static char names[KEEP][64];
    static float values[KEEP];
    static int types[KEEP];
    int kept = 0;
    if (v->inst && v->graph)
        for (int p = 0; p < stance_graph_param_count(v->graph) && kept < KEEP; p++) {
            types[kept] = stance_graph_param_type(v->graph, p);
            if (types[kept] == STANCE_PARAM_TRIGGER) continue;
            snprintf(names[kept], sizeof names[kept], "%s", stance_graph_param_name(v->graph, p));
            values[kept++] = stance_instance_param(v->inst, p);
        }
    float root[3] = {v->root[0], v->root[1], v->root[2]};
    int had = v->inst != NULL;
    lab_view_close(v);
    stance_graphfile_destroy(ed.gf);
    ed.gf = gf;
    if (lab_view_open(v, (stance_graph *)g, 0)) return -1;
    stance_error err;
    for (int k = 0; k < kept; k++) {
        int p = stance_graph_find_param(g, names[k]);
        if (p < 0 || (int)stance_graph_param_type(g, p) != types[k]) continue;
        if (types[k] == STANCE_PARAM_FLOAT) stance_instance_set_float(v->inst, p, values[k], &err);
        else if (types[k] == STANCE_PARAM_INT) stance_instance_set_int(v->inst, p, (int)values[k], &err);
        else stance_instance_set_bool(v->inst, p, values[k] != 0.0f, &err);
    }
    lab_asset_view_edited(v);
    if (had) memcpy(v->root, root, sizeof root);
    return 0;
}

/* ---- saving as a compiled .stance ------------------------------------------------ */

static int plays(const stance_graph_desc *d, const stance_clip *c) {
    for (int m = 0; m < d->machine_count; m++)
        for (int s = 0; s < d->machines[m].state_count; s++) {
            const stance_state_desc *sd = &d->machines[m].states[s];
            if (sd->type == STANCE_MOTION_CLIP && sd->clip == c) return 1;
            for (int e = 0; (sd->type == STANCE_MOTION_BLEND1D || sd->type == STANCE_MOTION_BLEND2D) && e < sd->entry_count; e++)
                if (sd->entries[e].clip == c) return 1;
        }
    for (int l = 0; l < d->layer_count; l++)
        if (d->layers[l].ref_clip == c) return 1;
    return 0;
}

/* The editor's graph (built by lab_editor_build) with the asset's skeleton,
 * skins, meshes and the clips it plays, as stored; returns the size (the
 * bytes at lab_editor_saved) or -1. */
LAB_API int lab_editor_save_stance(void) {
    if (!ed.gf) return lab_fail("nothing to save: build the graph first");
    const stance_graph_desc *d = stance_graphfile_desc(ed.gf);
    const stance_asset *a = stance_graphfile_asset(ed.gf);
    if (!d || !a) return lab_fail("editor: no description");
    stance_asset view = *a;
    view.graph = NULL;
    view.clip_count = 0;
    view.clips = malloc(sizeof(stance_clip *) * (size_t)(a->clip_count + 1));
    if (!view.clips) return lab_fail("editor: out of memory");
    for (int i = 0; i < a->clip_count; i++)
        if (plays(d, a->clips[i])) view.clips[view.clip_count++] = a->clips[i];
    stance_asset_free_bytes(ed.saved, ed.saved_size, NULL);
    ed.saved = NULL, ed.saved_size = 0;
    void *bytes = NULL;
    size_t size = 0;
    stance_error err = {STANCE_OK, ""};
    stance_status s = stance_asset_save_graph_memory(&view, d, &bytes, &size, NULL, &err);
    free(view.clips);
    if (s) return lab_fail("save: %s", err.message);
    if (size > 0x7fffffff) { stance_asset_free_bytes(bytes, size, NULL); return lab_fail("save: too large"); }
    ed.saved = bytes, ed.saved_size = size;
    return (int)size;
}
LAB_API const unsigned char *lab_editor_saved(void) { return ed.saved; }

/* ---- a scenario script on the editor's graph (`stance scenario --graph --script`) ---- */

/* Runs the script in the text buffer (docs/graph-format.md, "Scripts"; read
 * by the CLI's reader) on the editor's graph with the lesson library's
 * runner, as `stance scenario --graph G --script S --mode M --poses OUT`
 * does, and keeps each frame's model-space joint positions (x, y, z per
 * joint) at lab_editor_poses. Returns the frame count, or -1. */
LAB_API int lab_editor_scenario(int mode, float blend_time, int easing) {
    if (!ed.gf) return lab_fail("no graph: build one first");
    if (!ed.text) return lab_fail("editor: no script");
    const stance_graph *g = stance_graphfile_graph(ed.gf);
    const char *path = "/tmp/lab_script.json"; /* the runtime's in-memory file system: the reader takes a path */
    FILE *f = fopen(path, "wb");
    if (!f) return lab_fail("script: cannot write %s", path);
    size_t n = strlen(ed.text);
    int bad = fwrite(ed.text, 1, n, f) != n;
    bad |= fclose(f) != 0;
    if (bad) return lab_fail("script: cannot write %s", path);
    stance_scenario_script script;
    stance_error err = {STANCE_OK, ""};
    if (stance_scenario_script_load(path, g, &script, &err)) return lab_fail("%s", err.message);
    const stance_scenario_desc sd = {.mode = (stance_switch_mode)mode, .blend_time = blend_time,
                                     .easing = (stance_easing)easing, .script = &script};
    stance_scenario *run = NULL;
    if (stance_scenario_create(g, &sd, NULL, &run, &err)) {
        stance_scenario_script_free(&script);
        return lab_fail("scenario: %s", err.message);
    }
    const int frames = stance_scenario_frame_count(run), joints = stance_graph_skeleton(g)->joint_count;
    free(ed.poses);
    ed.poses = malloc(sizeof(float) * 3 * (size_t)joints * (size_t)(frames > 0 ? frames : 1));
    int k = ed.poses ? 0 : -1;
    for (int fr = 0; k >= 0 && fr < frames; fr++) {
        if (stance_scenario_step(run, NULL, &err)) { k = -2; break; }
        const stance_pose *p = stance_instance_model_pose(stance_scenario_instance(run));
        for (int j = 0; j < joints; j++)
            ed.poses[k++] = p->tx[j], ed.poses[k++] = p->ty[j], ed.poses[k++] = p->tz[j];
    }
    stance_scenario_destroy(run);
    stance_scenario_script_free(&script);
    if (k == -1) return lab_fail("scenario: out of memory");
    if (k == -2) return lab_fail("scenario: %s", err.message);
    return frames;
}
LAB_API const float *lab_editor_poses(void) { return ed.poses; }
