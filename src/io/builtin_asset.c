/* src/io/builtin_asset.c - the built-in character (libstance_lesson) as an
 * asset: its skeleton, clips, skin and mesh handed over to a stance_asset. */
#include <string.h>

#include "core/base/internal.h"
#include "io/builtin_asset.h"
#include "stance_lesson/builtin.h"

stance_status io_builtin_asset(stance_asset *out, stance_error *err) {
    stance_builtin b;
    stance_status s = stance_builtin_create(NULL, &b, err);
    if (s) return s;
    memset(out, 0, sizeof *out);
    out->clips = st_alloc(&out->allocator, sizeof(stance_clip *) * (size_t)b.clip_count, sizeof(void *));
    if (!out->clips) {
        stance_builtin_destroy(&b);
        return st_fail(err, STANCE_ERR_MEMORY, "builtin: out of memory");
    }
    out->skins = st_alloc(&out->allocator, sizeof(stance_skin *), sizeof(void *));
    out->meshes = st_alloc(&out->allocator, sizeof(stance_mesh *), sizeof(void *));
    if (!out->skins || !out->meshes) {
        st_free(&out->allocator, out->skins, sizeof(stance_skin *));
        st_free(&out->allocator, out->meshes, sizeof(stance_mesh *));
        st_free(&out->allocator, out->clips, sizeof(stance_clip *) * (size_t)b.clip_count);
        memset(out, 0, sizeof *out);
        stance_builtin_destroy(&b);
        return st_fail(err, STANCE_ERR_MEMORY, "builtin: out of memory");
    }
    out->skeleton = b.skeleton;
    out->clip_count = b.clip_count;
    for (int i = 0; i < b.clip_count; i++) out->clips[i] = b.clips[i];
    out->skin_count = out->mesh_count = 1;
    out->skins[0] = b.skin;
    out->meshes[0] = b.mesh;
    return STANCE_OK;
}
