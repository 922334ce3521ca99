/* src/io/import_keys.c - one assimp track's keys made what the runtime
 * plays: the keys before a take's start dropped (assimp's FBX reader keeps a
 * curve's first key whatever the take's window, and shifts it to a negative
 * time), and rotation keys added where the runtime's nlerp would leave the
 * tolerance of slerp between the file's keys (assimp splits a long FBX turn
 * into keys 179 degrees apart, a Collada one into 90-degree keys; the file
 * means the turn, which slerp between those keys follows).
 *
 * Owns the track buffers it grows (the caller frees them). The tolerance
 * check and interval halving are the glTF path's (gltf_bake.c). */
#ifdef STANCE_HAVE_ASSIMP
#include <stdlib.h>
#include <string.h>

#include "gltf_bake.h"
#include "import_assimp.h"

int st_imp_drop_before_start(st_imp_track *t, int width) {
    int f = 0;
    while (f < t->count && t->times[f] < 0.0f) f++;
    if (f == 0) return 0;
    if (f == t->count) { /* every key before the start: the last one holds from 0 */
        memmove(t->values, t->values + (size_t)width * (size_t)(f - 1), sizeof(float) * (size_t)width);
        t->times[0] = 0.0f;
        t->count = 1;
        return f - 1;
    }
    memmove(t->times, t->times + f, sizeof(float) * (size_t)(t->count - f));
    memmove(t->values, t->values + (size_t)width * (size_t)f, sizeof(float) * (size_t)width * (size_t)(t->count - f));
    t->count -= f;
    return f;
}

/* Appends one key to a growing track. */
static int push_key(st_imp_track *o, int *cap, float time, const float v[4]) {
    if (o->count == *cap) {
        int ncap = *cap * 2;
        float *nt = realloc(o->times, sizeof(float) * (size_t)ncap);
        if (nt) o->times = nt;
        float *nv = nt ? realloc(o->values, sizeof(float) * 4 * (size_t)ncap) : NULL;
        if (nv) o->values = nv;
        if (!nt || !nv) return -1;
        *cap = ncap;
    }
    o->times[o->count] = time;
    memcpy(o->values + 4 * (size_t)o->count, v, sizeof(float) * 4);
    o->count++;
    return 0;
}

int st_imp_follow_slerp(const importer *im, st_imp_track *t, size_t max_bytes, size_t *bytes, int *unmet) {
    const int n = t->count;
    if (n < 2) return 0;
    double *times = malloc(sizeof(double) * (size_t)n), *values = malloc(sizeof(double) * 4 * (size_t)n);
    int cap = n + n / 2 + 16;
    st_imp_track o = {malloc(sizeof(float) * (size_t)cap), malloc(sizeof(float) * 4 * (size_t)cap), 0, NULL, 0};
    stance_bake_times added = {NULL, 0, 0};
    int result = 0;
    if (!times || !values || !o.times || !o.values) {
        result = -1;
        goto done;
    }
    for (int k = 0; k < n; k++) {
        times[k] = t->times[k];
        for (int i = 0; i < 4; i++) values[4 * k + i] = t->values[4 * k + i];
        if (!stance_bake_quat_normalize(values + 4 * k)) goto done; /* left to stance_clip_create to refuse */
    }
    /* the skeleton's space already: the identity space */
    stance_bake_space space;
    memset(&space, 0, sizeof space);
    space.push_scale = 1.0, space.scale = 1.0, space.above_identity = 1, space.above.r[3] = 1.0;
    stance_bake_curve curve = {0, STANCE_BAKE_R, STANCE_BAKE_LINEAR, (size_t)n, times, values};
    const stance_bake_curve *curves[1] = {&curve};
    for (int k = 0; k + 1 < n && !result; k++) {
        if (push_key(&o, &cap, t->times[k], t->values + 4 * (size_t)k)) result = -1;
        added.count = 0;
        if (!result && stance_bake_refine(&space, curves, 1, t->times[k], t->times[k + 1], im->tol_u, im->tol_r, &added,
                                          (size_t)STANCE_MAX_KEYS, unmet))
            result = -2;
        for (size_t a = 0; a < added.count && !result; a++) {
            float v[4];
            stance_bake_value_f(&space, &curve, added.times[a], v);
            if (push_key(&o, &cap, added.times[a], v)) result = -1;
        }
        if (!result && o.count > STANCE_MAX_KEYS) result = -2;
        if (!result && *bytes + sizeof(float) * 5 * (size_t)(o.count - k - 1) > max_bytes) result = -3;
    }
    if (!result && push_key(&o, &cap, t->times[n - 1], t->values + 4 * (size_t)(n - 1))) result = -1;
    if (!result && o.count > n) {
        result = o.count - n;
        *bytes += sizeof(float) * 5 * (size_t)result;
        free(t->file_times);
        t->file_times = t->times, t->file_count = n;
        float *swap_v = t->values;
        t->times = o.times, t->values = o.values, t->count = o.count;
        o.times = NULL, o.values = swap_v;
    }
done:
    free(times), free(values), free(o.times), free(o.values), free(added.times);
    return result;
}

#endif /* STANCE_HAVE_ASSIMP */
