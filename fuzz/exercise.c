/* fuzz/exercise.c - the load-and-use step shared by fuzz/fuzz_asset.c,
 * fuzz/fuzz_compiled.c and fuzz/campaign.c (see exercise.h). */
#include "exercise.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stance/instance.h"
#include "stance/pose.h"
#include "stance/skin.h"
#include "stance/build.h"

static void fz_die(const char *what) {
    fprintf(stderr, "exercise: %s\n", what);
    abort();
}

static void fz_finite(const float *v, int n, const char *what) {
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) fz_die(what);
}

static void fz_pose_finite(const stance_pose *p, const char *what) {
    const float *ch[10] = {p->tx, p->ty, p->tz, p->qx, p->qy, p->qz, p->qw, p->sx, p->sy, p->sz};
    for (int c = 0; c < 10; c++) fz_finite(ch[c], p->joint_count, what);
}

static void fz_skins(const stance_asset *a, const stance_pose *model) {
    for (int i = 0; i < a->skin_count; i++) {
        const stance_skin *s = a->skins[i];
        float *m = malloc(sizeof(float) * 16 * (size_t)s->joint_count);
        if (!m) return;
        if (stance_skin_matrices(s, model, m, s->joint_count, NULL)) fz_die("stance_skin_matrices refused a loaded skin");
        fz_finite(m, 16 * s->joint_count, "a skin matrix is not finite");
        free(m);
    }
}

static void fz_run_graph(stance_graph *g) {
    stance_instance *inst = NULL;
    stance_workspace *ws = NULL;
    if (stance_instance_create(g, NULL, &inst, NULL) || stance_workspace_create(g, NULL, &ws, NULL))
        fz_die("a loaded graph gives no instance or workspace");
    const float values[4] = {0.0f, 2.0f, 7.5f, -1.0f};
    for (int f = 0; f < 60; f++) {
        for (int p = 0; f % 15 == 0 && p < stance_graph_param_count(g); p++) {
            if (stance_graph_param_type(g, p) == STANCE_PARAM_TRIGGER) stance_instance_set_trigger(inst, p, NULL);
            else stance_instance_set_float(inst, p, values[f / 15], NULL);
        }
        if (stance_instance_update(inst, f == 30 ? 0.5f : 1.0f / 30, ws, NULL)) fz_die("a loaded graph's update failed");
        fz_pose_finite(stance_instance_local_pose(inst), "a graph's local pose is not finite");
        fz_pose_finite(stance_instance_model_pose(inst), "a graph's model pose is not finite");
    }
    stance_workspace_destroy(ws);
    stance_instance_destroy(inst);
}

void fz_exercise(const stance_asset *a) {
    stance_pose local, model;
    if (stance_pose_create(&local, a->skeleton->joint_count, NULL, NULL)) return;
    if (stance_pose_create(&model, a->skeleton->joint_count, NULL, NULL)) {
        stance_pose_destroy(&local);
        return;
    }
    for (int i = 0; i < a->clip_count; i++) {
        const stance_clip *c = a->clips[i];
        stance_cursor cursor = {0, 0};
        const float times[5] = {-1.0f, 0.0f, 0.37f * c->duration, c->duration, c->duration + 1.0f};
        for (int k = 0; k < 5; k++) {
            if (stance_clip_sample(c, times[k], &cursor, &local, NULL)) fz_die("a loaded clip does not sample");
            fz_pose_finite(&local, "a sampled pose is not finite");
            if (stance_local_to_model(&model, &local, a->skeleton, NULL, NULL)) fz_die("local-to-model refused a loaded skeleton");
            fz_pose_finite(&model, "a model pose is not finite");
            float root[3];
            if (stance_clip_root_position(c, times[k], root, NULL)) fz_die("a loaded clip has no root position");
            fz_finite(root, 3, "a root position is not finite");
        }
        float nt, dt = 2.5f * c->duration;
        if (!(dt <= 3.0e38f)) dt = c->duration; /* a duration near FLT_MAX */
        stance_event_hit hits[8];
        int hit_count = 0, wraps = 0;
        if (stance_clip_advance(c, 0.1f, dt, 1, &nt, hits, 8, &hit_count, &wraps, NULL)) fz_die("a loaded clip does not advance");
    }
    fz_skins(a, &model);
    for (int i = 0; i < a->mesh_count; i++) {
        const stance_mesh *me = a->meshes[i];
        if (me->skin < -1 || me->skin >= a->skin_count) fz_die("a mesh names a skin that is not there");
        fz_finite(me->normals, 3 * me->vertex_count, "a mesh normal is not finite");
    }
    stance_pose_destroy(&local);
    stance_pose_destroy(&model);
    if (a->graph) fz_run_graph(a->graph);

    void *bytes = NULL;
    size_t n = 0;
    if (stance_asset_save_memory(a, &bytes, &n, NULL, NULL)) fz_die("a loaded asset does not save");
    stance_asset again;
    if (stance_asset_load_memory(bytes, n, NULL, &again, NULL)) fz_die("a saved asset does not load");
    if (again.clip_count != a->clip_count || again.skeleton->joint_count != a->skeleton->joint_count ||
        again.skin_count != a->skin_count || again.mesh_count != a->mesh_count)
        fz_die("a saved asset loads back different");
    stance_asset_destroy(&again);
    stance_asset_free_bytes(bytes, n, NULL);
}

static int fz_load(const uint8_t *data, size_t size) {
    stance_asset a;
    stance_error err;
    if (stance_asset_load_memory(data, size, NULL, &a, &err) == STANCE_OK) {
        fz_exercise(&a);
        stance_asset_destroy(&a);
        return 1;
    }
    if (a.skeleton || a.clips || a.clip_count || a.skins || a.skin_count || a.meshes || a.mesh_count || a.graph)
        fz_die("a failed load left something behind");
    if (!err.message[0]) fz_die("a failed load says nothing");
    return 0;
}

void fz_fix_header(uint8_t *bytes, size_t size) {
    uint64_t payload = size - 32, sum = stance_asset_checksum(bytes + 32, size - 32);
    for (int i = 0; i < 8; i++) {
        bytes[16 + i] = (uint8_t)(payload >> (8 * i));
        bytes[24 + i] = (uint8_t)(sum >> (8 * i));
    }
}

fz_outcome fz_load_both(const uint8_t *data, size_t size) {
    fz_outcome o = {fz_load(data, size), 0};
    if (size >= 32) {
        uint8_t *copy = malloc(size);
        if (!copy) return o;
        memcpy(copy, data, size);
        fz_fix_header(copy, size);
        o.loaded_fixed = fz_load(copy, size);
        free(copy);
    }
    return o;
}
