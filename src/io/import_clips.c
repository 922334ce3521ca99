/* src/io/import_clips.c - assimp's animations to stance clips.
 *
 * Owns one animation's import: ticks to seconds, key times checked and
 * made increasing, tracks mapped to skeleton joints and into the
 * skeleton's space, clip names (Collada takes, file stems, duplicates), the
 * memory budget for keys. A bad animation fails only its clip. */
#ifdef STANCE_HAVE_ASSIMP
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collada_clips.h"
#include "gltf_bake.h"
#include "import_assimp.h"

/* The skeleton joint a channel names (by the node's original name), or -1. */
static int channel_joint(const importer *im, const struct aiString *name) {
    for (int j = 0; j < im->joint_count; j++)
        if (st_imp_ai_eq(&im->nodes[im->joint_node[j]].node->mName, name)) return j;
    return -1;
}

/* One track's times in seconds, checked: finite, >= 0; keys that do not move
 * forward in time are dropped (with a warning). Returns the keys kept, or -1
 * on an error (err set). keep[k] says which keys were kept. */
static int convert_times(importer *im, const char *clip, const char *joint, const char *what,
                         const double *ticks, int n, double tps, float *times, unsigned char *keep) {
    int kept = 0, dropped = 0;
    for (int k = 0; k < n; k++) {
        double sec = ticks[k] / tps;
        float t = (float)sec;
        keep[k] = 0;
        if (!isfinite(sec) || !isfinite(t) || t < 0.0f) {
            st_fail(im->err, STANCE_ERR_VALUE, "%s: clip '%s', joint '%s': %s key %d time %g is not a finite time >= 0",
                    im->path, clip, joint, what, k, sec);
            return -1;
        }
        if (kept > 0 && !(t > times[kept - 1])) {
            dropped++;
            continue;
        }
        keep[k] = 1;
        times[kept++] = t;
    }
    if (dropped && im->strict) {
        st_fail(im->err, STANCE_ERR_ORDER, "%s: clip '%s', joint '%s': %d %s keys are not after the key before them (--strict)",
                im->path, clip, joint, dropped, what);
        return -1;
    }
    if (dropped)
        st_imp_warn(im, "clip '%s', joint '%s': %d %s keys not after the key before them were dropped", clip, joint, dropped, what);
    return kept;
}

typedef struct track_buf {
    float *times, *values;
} track_buf;

/* The file's name without directory and extension, at most 50 bytes (or
 * "clip" when that leaves nothing). */
static void file_stem(const char *path, char out[64]) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot > base ? (size_t)(dot - base) : strlen(base);
    if (n > 50) n = 50;
    memcpy(out, base, n);
    out[n] = 0;
    if (n == 0) memcpy(out, "clip", 5);
}

/* Is there a node of this name? */
static int node_named(const importer *im, const struct aiString *name) {
    for (int i = 0; i < im->node_count; i++)
        if (st_imp_ai_eq(&im->nodes[i].node->mName, name)) return 1;
    return 0;
}

/* assimp 5.2 names a Collada file's animation clips "combinedAnim_<i>":
 * the file's own name for clip <i>, when the file has that many. */
static int collada_clip(importer *im, const struct aiAnimation *an, char name[64]) {
    const char *dot = strrchr(im->path, '.');
    if (!dot || (st_imp_strcasecmp(dot + 1, "dae") && st_imp_strcasecmp(dot + 1, "zae"))) return 0;
    char digits[16];
    size_t n = st_imp_ai_len(&an->mName) - 13;
    if (n == 0 || n >= sizeof digits) return 0;
    memcpy(digits, an->mName.data + 13, n);
    digits[n] = 0;
    char *end = NULL;
    long i = strtol(digits, &end, 10);
    if (*end || i < 0 || i >= STANCE_MAX_CLIPS) return 0;
    char (*names)[64] = malloc(sizeof(*names) * ((size_t)i + 1));
    if (!names) return 0;
    int count = stance_collada_clip_names(im->path, names, (int)i + 1);
    int ok = count > i && count == (int)im->scene->mNumAnimations;
    if (ok) memcpy(name, names[i], 64);
    free(names);
    return ok;
}

/* Unique clip name, at most 63 bytes: the animation's (its take's), or
 * clip<i> when it has none. An animation named after a node (Collada files
 * without clips name the one animation after their first animated node, a
 * camera as often as not) takes the file's name instead. */
static void clip_name(importer *im, const struct aiAnimation *an, int index, stance_clip **done, int done_count,
                      char name[64]) {
    size_t n = st_imp_ai_len(&an->mName);
    if (n == 0) {
        snprintf(name, 64, "clip%d", index);
    } else if (n > 13 && !memcmp(an->mName.data, "combinedAnim_", 13) && collada_clip(im, an, name)) {
        /* the name the Collada file gives the clip */
    } else if (node_named(im, &an->mName)) {
        char b[64];
        file_stem(im->path, name);
        st_imp_warn(im, "animation %d is named after node '%s': the clip is named '%s' after the file", index,
              st_imp_ai_show(&an->mName, b), name);
    } else {
        if (n > 63) {
            n = 63;
            char b[64];
            st_imp_warn(im, "clip name '%s...' cut to 63 bytes", st_imp_ai_show(&an->mName, b));
        }
        memcpy(name, an->mName.data, n);
        name[n] = 0;
    }
    for (int k = 0, tries = 0; k < done_count; k++) {
        if (strcmp(done[k]->name, name)) continue;
        char base[64];
        memcpy(base, name, 64);
        snprintf(name, 64, "%.50s~%d", base, ++tries % 100000);
        st_imp_warn(im, "two clips are named '%s': the second is now '%s'", done[k]->name, name);
        k = -1;
    }
}

size_t st_imp_budget_left(const importer *im, size_t temp) {
    return im->used + temp < im->budget ? im->budget - im->used - temp : 0;
}

static stance_status over_budget(importer *im, const char *clip, size_t need) {
    return st_fail(im->err, STANCE_ERR_MEMORY,
                   "%s: clip '%s' needs %.1f MB more, over the memory budget of %.1f MB (%.1f MB used; --max-memory)",
                   im->path, clip, (double)need / 1048576.0, (double)im->budget / 1048576.0, (double)im->used / 1048576.0);
}

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* How many distinct key times the tracks have together (>= the clip's
 * grid, which also merges times closer than 1e-5 s); 0 when out of memory. */
static size_t distinct_times(const stance_track_desc *tracks, int count) {
    size_t total = 0;
    for (int i = 0; i < count; i++) total += (size_t)tracks[i].key_count;
    float *all = malloc(sizeof(float) * (total ? total : 1));
    if (!all) return 0;
    size_t n = 0;
    for (int i = 0; i < count; i++)
        for (int k = 0; k < tracks[i].key_count; k++) all[n++] = tracks[i].times[k];
    qsort(all, n, sizeof(float), cmp_float);
    size_t distinct = n > 0;
    for (size_t i = 1; i < n; i++) distinct += all[i] != all[i - 1];
    free(all);
    return distinct ? distinct : 1;
}

/* Builds one clip; *out stays NULL (with a warning) when the animation moves
 * no joint. */
stance_status st_imp_build_clip(importer *im, const struct aiAnimation *an, int index, const stance_skeleton *sk,
                                const stance_allocator *al, stance_clip **done, int done_count, stance_clip **out) {
    *out = NULL;
    char name[64];
    clip_name(im, an, index, done, done_count, name);
    double tps = an->mTicksPerSecond;
    if (!isfinite(tps) || tps < 0.0)
        return st_fail(im->err, STANCE_ERR_VALUE, "%s: clip '%s': ticks per second %g is not a finite number >= 0", im->path, name, tps);
    if (tps == 0.0) tps = 25.0; /* assimp's documented default */
    if (an->mNumMorphMeshChannels > 0)
        st_imp_warn(im, "clip '%s': %u morph-weight channels ignored", name, an->mNumMorphMeshChannels);
    if (an->mNumMeshChannels > 0)
        st_imp_warn(im, "clip '%s': %u mesh channels ignored", name, an->mNumMeshChannels);

    const int J = im->joint_count;
    stance_track_desc *tracks = calloc(3 * (size_t)J, sizeof *tracks);
    track_buf *bufs = calloc(3 * (size_t)J, sizeof *bufs);
    unsigned char *used = calloc((size_t)J, 1);
    stance_status s = STANCE_OK;
    int track_count = 0;
    float last = 0.0f;
    size_t temp = 0; /* bytes of this clip's track buffers */
    if (!tracks || !bufs || !used) {
        s = st_fail(im->err, STANCE_ERR_MEMORY, "%s: out of memory", im->path);
        goto done;
    }
    for (unsigned c = 0; an->mChannels && c < an->mNumChannels && !s; c++) {
        const struct aiNodeAnim *ch = an->mChannels[c];
        if (!ch) continue;
        char node_name[64];
        st_imp_ai_show(&ch->mNodeName, node_name);
        int j = channel_joint(im, &ch->mNodeName);
        if (j < 0) {
            const char *kind = st_imp_object_kind(im->scene, &ch->mNodeName);
            if (kind)
                st_imp_warn(im, "clip '%s': channel for %s '%s' ignored (not a joint)", name, kind, node_name);
            else
                st_imp_warn(im, "clip '%s': channel for node '%s', which is not a joint of the skeleton: ignored", name, node_name);
            continue;
        }
        const char *jname = stance_skeleton_joint_name(sk, j);
        if (used[j]) {
            st_imp_warn(im, "clip '%s': a second channel for joint '%s': ignored", name, jname);
            continue;
        }
        used[j] = 1;
        const unsigned counts[3] = {ch->mPositionKeys ? ch->mNumPositionKeys : 0,
                                    ch->mRotationKeys ? ch->mNumRotationKeys : 0,
                                    ch->mScalingKeys ? ch->mNumScalingKeys : 0};
        static const char *what[3] = {"translation", "rotation", "scale"};
        int raised = 0;
        for (int kind = 0; kind < 3 && !s; kind++) {
            unsigned n = counts[kind];
            if (n == 0) continue;
            if (n > STANCE_MAX_KEYS) {
                s = st_fail(im->err, STANCE_ERR_UNSUPPORTED, "%s: clip '%s', joint '%s': %u %s keys, more than %d",
                            im->path, name, jname, n, what[kind], STANCE_MAX_KEYS);
                break;
            }
            const int w = kind == 1 ? 4 : 3;
            /* ticks, keep flags, times and values of this track */
            size_t need = (size_t)n * (sizeof(double) + 1 + sizeof(float) * (size_t)(1 + w));
            if (need > st_imp_budget_left(im, temp)) {
                s = over_budget(im, name, need + temp);
                break;
            }
            temp += need;
            double *ticks = malloc(sizeof(double) * n);
            unsigned char *keep = malloc(n);
            track_buf *b = &bufs[track_count];
            b->times = malloc(sizeof(float) * n);
            b->values = malloc(sizeof(float) * (size_t)w * n);
            if (!ticks || !keep || !b->times || !b->values) {
                free(ticks), free(keep);
                s = st_fail(im->err, STANCE_ERR_MEMORY, "%s: out of memory", im->path);
                break;
            }
            for (unsigned k = 0; k < n; k++)
                ticks[k] = kind == 0 ? ch->mPositionKeys[k].mTime : kind == 1 ? ch->mRotationKeys[k].mTime : ch->mScalingKeys[k].mTime;
            int kept = convert_times(im, name, jname, what[kind], ticks, (int)n, tps, b->times, keep);
            if (kept < 0) s = im->err ? im->err->status : STANCE_ERR_VALUE;
            for (unsigned k = 0, o = 0; !s && k < n; k++) {
                if (!keep[k]) continue;
                float *v = b->values + (size_t)w * o++;
                double in[4];
                if (kind == 1) {
                    const struct aiQuaternion *q = &ch->mRotationKeys[k].mValue;
                    in[0] = q->x, in[1] = q->y, in[2] = q->z, in[3] = q->w;
                } else {
                    const struct aiVector3D *p = kind == 0 ? &ch->mPositionKeys[k].mValue : &ch->mScalingKeys[k].mValue;
                    in[0] = p->x, in[1] = p->y, in[2] = p->z, in[3] = 0.0;
                }
                if (!isfinite(in[0]) || !isfinite(in[1]) || !isfinite(in[2]) || !isfinite(in[3])) {
                    s = st_fail(im->err, STANCE_ERR_VALUE, "%s: clip '%s', joint '%s': %s key %u is not finite",
                                im->path, name, jname, what[kind], k);
                    break;
                }
                if (kind == 0) st_imp_joint_t(im, j, in, v);
                else if (kind == 1) st_imp_joint_r(im, j, in, v);
                else v[0] = (float)in[0], v[1] = (float)in[1], v[2] = (float)in[2], raised += stance_bake_raise_scale(v);
                if (!st_finite_n(v, (size_t)w)) {
                    s = st_fail(im->err, STANCE_ERR_VALUE, "%s: clip '%s', joint '%s': %s key %u overflows a float",
                                im->path, name, jname, what[kind], k);
                    break;
                }
            }
            free(ticks), free(keep);
            if (s) break;
            if (raised)
                st_imp_warn(im, "clip '%s', joint '%s': %d scale values below %g raised to it (a scale of 0 hides a part; %g keeps it "
                            "hidden within the runtime's limits, stance/base.h)", name, jname, raised, (double)STANCE_MIN_SCALE,
                            (double)STANCE_MIN_SCALE);
            raised = 0;
            if (b->times[kept - 1] > last) last = b->times[kept - 1];
            stance_track_desc *t = &tracks[track_count++];
            t->joint = j;
            t->channel = (stance_channel)kind;
            t->key_count = kept;
            t->times = b->times;
            t->values = b->values;
        }
    }
    if (s) goto done;
    if (track_count == 0) {
        st_imp_warn(im, "clip '%s' moves no joint of the skeleton: skipped", name);
        goto done;
    }
    double dur = an->mDuration / tps;
    float duration = isfinite(dur) && dur > 0.0 && (float)dur < 1e30f ? (float)dur : 0.0f;
    if (duration < last) duration = last;
    if (!(duration > 0.0f)) duration = (float)(1.0 / tps); /* a single pose: one tick long */
    /* what stance_clip_create will allocate: the key grid (at most the
     * distinct times of all tracks) times the joints, checked first */
    size_t grid = distinct_times(tracks, track_count);
    if (grid == 0) {
        s = st_fail(im->err, STANCE_ERR_MEMORY, "%s: out of memory", im->path);
        goto done;
    }
    size_t dense = grid * ((size_t)sk->padded_count * 40 + 4) + sizeof(float) * 2 * grid;
    if (dense > st_imp_budget_left(im, temp)) {
        s = over_budget(im, name, dense + temp);
        goto done;
    }
    stance_clip_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.duration = duration;
    d.track_count = track_count;
    d.tracks = tracks;
    s = stance_clip_create(&d, sk, al, out, im->err);
    if (!s) im->used += (*out)->bytes;
    if (s) st_imp_prefix_error(im, s);
done:
    if (bufs)
        for (int i = 0; i < 3 * J; i++) free(bufs[i].times), free(bufs[i].values);
    free(bufs), free(tracks), free(used);
    return s;
}

#endif /* STANCE_HAVE_ASSIMP */
