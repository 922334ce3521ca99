/* fuzz/fuzz_asset.c - libFuzzer target for the .stance loader
 * (stance_asset_load_memory). Each input is loaded twice: as it is, and with
 * its header's payload size and checksum made to match, so mutations reach
 * the section parser and the runtime's validation behind the checksum. A
 * file that loads is sampled, saved and loaded again (it must), which runs
 * the created skeleton, clips, skins (the skin matrices of a sampled pose)
 * and meshes too; a compiled graph that loads is run for 30 frames.
 *
 * Build and run: fuzz/run.sh (FUZZ_SECONDS, default 60). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stance/asset.h"
#include "stance/graph.h"
#include "stance/pose.h"
#include "stance/skin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void exercise(const stance_asset *a) {
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
            if (stance_clip_sample(c, times[k], &cursor, &local)) abort();
            if (stance_local_to_model(&model, &local, a->skeleton, NULL)) abort();
            float root[3];
            if (stance_clip_root_position(c, times[k], root)) abort();
        }
        float nt, dt = 2.5f * c->duration;
        if (!(dt <= 3.0e38f)) dt = c->duration; /* a duration near FLT_MAX */
        stance_event_hit hits[8];
        int hit_count = 0, wraps = 0;
        if (stance_clip_advance(c, 0.1f, dt, 1, &nt, hits, 8, &hit_count, &wraps)) abort();
    }
    for (int i = 0; i < a->skin_count; i++) {
        const stance_skin *s = a->skins[i];
        float *m = malloc(sizeof(float) * 16 * (size_t)s->joint_count);
        if (!m) break;
        if (stance_skin_matrices(s, &model, m, s->joint_count)) abort();
        free(m);
    }
    for (int i = 0; i < a->mesh_count; i++) {
        const stance_mesh *me = a->meshes[i];
        if (me->skin < -1 || me->skin >= a->skin_count) abort();
        for (int v = 0; v < 3 * me->vertex_count; v++)
            if (!isfinite(me->normals[v])) abort();
    }
    stance_pose_destroy(&local);
    stance_pose_destroy(&model);
    if (a->graph) { /* a compiled graph that loads runs */
        stance_instance *inst = NULL;
        stance_workspace *ws = NULL;
        if (stance_instance_create(a->graph, NULL, &inst, NULL) || stance_workspace_create(a->graph, NULL, &ws, NULL)) abort();
        for (int p = 0; p < stance_graph_param_count(a->graph); p++)
            if (stance_graph_param_type(a->graph, p) == STANCE_PARAM_TRIGGER) stance_instance_set_trigger(inst, p, NULL);
            else stance_instance_set_float(inst, p, 2.0f, NULL);
        for (int f = 0; f < 30; f++)
            if (stance_instance_update(inst, 1.0f / 30, ws)) abort();
        stance_workspace_destroy(ws);
        stance_instance_destroy(inst);
    }

    void *bytes = NULL;
    size_t n = 0;
    if (stance_asset_save_memory(a, &bytes, &n, NULL, NULL)) abort();
    stance_asset again;
    if (stance_asset_load_memory(bytes, n, NULL, &again, NULL)) abort(); /* a saved asset must load */
    if (again.clip_count != a->clip_count || again.skeleton->joint_count != a->skeleton->joint_count ||
        again.skin_count != a->skin_count || again.mesh_count != a->mesh_count)
        abort();
    stance_asset_destroy(&again);
    stance_asset_free_bytes(bytes, n, NULL);
}

static void load(const uint8_t *data, size_t size) {
    stance_asset a;
    stance_error err;
    if (stance_asset_load_memory(data, size, NULL, &a, &err) == STANCE_OK) {
        exercise(&a);
        stance_asset_destroy(&a);
    } else if (a.skeleton || a.clips || a.clip_count || a.skins || a.skin_count || a.meshes || a.mesh_count || a.graph ||
               !err.message[0]) {
        abort(); /* a failed load leaves nothing behind and says why */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    load(data, size);
    if (size >= 32) {
        uint8_t *copy = malloc(size);
        if (!copy) return 0;
        memcpy(copy, data, size);
        uint64_t payload = size - 32, sum = stance_asset_checksum(copy + 32, size - 32);
        for (int i = 0; i < 8; i++) {
            copy[16 + i] = (uint8_t)(payload >> (8 * i));
            copy[24 + i] = (uint8_t)(sum >> (8 * i));
        }
        load(copy, size);
        free(copy);
    }
    return 0;
}
