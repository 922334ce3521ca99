/* src/io/import_clips.c - assimp's animations to stance clips.
 *
 * Owns one animation's import: ticks to seconds, key times checked and
 * made increasing, tracks mapped to skeleton joints and into the
 * skeleton's space, keys before a take's start and rotation keys
 * (import_keys.c), the clip's duration (FBX and Collada: its joints' keys),
 * clip names (Collada takes, file stems, duplicates), the memory budget
 * for keys, the import report. A bad animation fails only its clip. */
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

/* One track's times in seconds, checked: finite (keys before 0, a take's
 * keys before its start, are dropped later: st_imp_drop_before_start); keys
 * that do not move forward in time are dropped (with a warning). Returns
 * the keys kept, or -1 on an error (err set). keep[k] says which keys were
 * kept. */
static int convert_times(importer *im, const char *clip, const char *joint, const char *what,
                         const double *ticks, int n, double tps, float *times, unsigned char *keep) {
    int kept = 0, dropped = 0;
    for (int k = 0; k < n; k++) {
        double sec = ticks[k] / tps;
        float t = (float)sec;
        keep[k] = 0;
        if (!isfinite(sec) || !isfinite(t)) {
            st_fail(im->err, STANCE_ERR_VALUE, "%s: clip '%s', joint '%s': %s key %d time %g is not a finite time",
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

static stance_status over_budget(importer *im, const char *clip, size_t need) {
    return st_fail(im->err, STANCE_ERR_MEMORY,
                   "%s: clip '%s' needs %.1f MB more, over the memory budget of %.1f MB (%.1f MB used; --max-memory)",
                   im->path, clip, (double)need / 1048576.0, (double)im->budget / 1048576.0, (double)im->used / 1048576.0);
}

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* How many distinct times `all` holds (sorted here); 0 when n is 0. */
static size_t count_distinct(float *all, size_t n) {
    qsort(all, n, sizeof(float), cmp_float);
    size_t distinct = n > 0;
    for (size_t i = 1; i < n; i++) distinct += all[i] != all[i - 1];
    return distinct;
}

/* How many distinct key times the tracks have together (the clip's grid,
 * which merges equal times only), the times before keys were added when
 * `before_added`; 0 when out of memory. */
static size_t distinct_times(const st_imp_track *b, int count, int before_added) {
    size_t total = 0;
    for (int i = 0; i < count; i++) total += (size_t)(before_added && b[i].file_times ? b[i].file_count : b[i].count);
    float *all = malloc(sizeof(float) * (total ? total : 1));
    if (!all) return 0;
    size_t n = 0;
    for (int i = 0; i < count; i++) {
        const int fc = before_added && b[i].file_times;
        const float *t = fc ? b[i].file_times : b[i].times;
        for (int k = 0, m = fc ? b[i].file_count : b[i].count; k < m; k++) all[n++] = t[k];
    }
    size_t distinct = count_distinct(all, n);
    free(all);
    return distinct ? distinct : 1;
}

/* The last key time, in seconds, of a channel stance does not import. */
static double channel_end(const struct aiNodeAnim *ch, double tps) {
    double last = 0.0;
    const unsigned counts[3] = {ch->mPositionKeys ? ch->mNumPositionKeys : 0, ch->mRotationKeys ? ch->mNumRotationKeys : 0,
                                ch->mScalingKeys ? ch->mNumScalingKeys : 0};
    for (int kind = 0; kind < 3; kind++)
        for (unsigned k = 0; k < counts[kind]; k++) {
            double t = (kind == 0 ? ch->mPositionKeys[k].mTime : kind == 1 ? ch->mRotationKeys[k].mTime : ch->mScalingKeys[k].mTime) / tps;
            if (isfinite(t) && t > last) last = t;
        }
    return last;
}

/* What a clip's tracks went through, for its warnings and report. */
typedef struct clip_notes {
    int before_start;       /* keys before the take's start, dropped */
    double earliest;        /* the earliest of them, seconds */
    int added, unmet;       /* rotation keys added to follow slerp; intervals left outside */
    double other_end;       /* the latest key of a channel not imported, seconds */
    char other[96];         /* which channel that is */
} clip_notes;

/* One track of channel `ch` (kind 0 translation, 1 rotation, 2 scale) read
 * into `b`, in seconds and the skeleton's space; -1 with err set. */
static int read_track(importer *im, const char *name, const char *jname, int j, const struct aiNodeAnim *ch, int kind,
                      double tps, st_imp_track *b, size_t *temp) {
    static const char *what[3] = {"translation", "rotation", "scale"};
    const unsigned n = kind == 0 ? ch->mNumPositionKeys : kind == 1 ? ch->mNumRotationKeys : ch->mNumScalingKeys;
    if (n > STANCE_MAX_KEYS) {
        st_fail(im->err, STANCE_ERR_UNSUPPORTED, "%s: clip '%s', joint '%s': %u %s keys, more than %d", im->path, name, jname, n,
                what[kind], STANCE_MAX_KEYS);
        return -1;
    }
    const int w = kind == 1 ? 4 : 3;
    /* ticks, keep flags, times and values of this track */
    size_t need = (size_t)n * (sizeof(double) + 1 + sizeof(float) * (size_t)(1 + w));
    if (need > st_imp_budget_left(im, *temp)) {
        over_budget(im, name, need + *temp);
        return -1;
    }
    *temp += need;
    double *ticks = malloc(sizeof(double) * n);
    unsigned char *keep = malloc(n);
    b->times = malloc(sizeof(float) * n);
    b->values = malloc(sizeof(float) * (size_t)w * n);
    int s = 0, raised = 0;
    if (!ticks || !keep || !b->times || !b->values) {
        free(ticks), free(keep);
        st_fail(im->err, STANCE_ERR_MEMORY, "%s: out of memory", im->path);
        return -1;
    }
    for (unsigned k = 0; k < n; k++)
        ticks[k] = kind == 0 ? ch->mPositionKeys[k].mTime : kind == 1 ? ch->mRotationKeys[k].mTime : ch->mScalingKeys[k].mTime;
    int kept = convert_times(im, name, jname, what[kind], ticks, (int)n, tps, b->times, keep);
    if (kept < 0) s = -1;
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
            st_fail(im->err, STANCE_ERR_VALUE, "%s: clip '%s', joint '%s': %s key %u is not finite", im->path, name, jname, what[kind], k);
            s = -1;
            break;
        }
        if (kind == 0) st_imp_joint_t(im, j, in, v);
        else if (kind == 1) st_imp_joint_r(im, j, in, v);
        else v[0] = (float)in[0], v[1] = (float)in[1], v[2] = (float)in[2], raised += stance_bake_raise_scale(v);
        if (!st_finite_n(v, (size_t)w)) {
            st_fail(im->err, STANCE_ERR_VALUE, "%s: clip '%s', joint '%s': %s key %u overflows a float", im->path, name, jname, what[kind], k);
            s = -1;
            break;
        }
    }
    free(ticks), free(keep);
    if (s) return -1;
    if (raised)
        st_imp_warn(im, "clip '%s', joint '%s': %d scale values below %g raised to it (a scale of 0 hides a part; %g keeps it "
                    "hidden within the runtime's limits, stance/base.h)", name, jname, raised, (double)STANCE_MIN_SCALE,
                    (double)STANCE_MIN_SCALE);
    b->count = kept;
    return 0;
}

/* Keys before the take's start dropped, rotation keys added to follow
 * slerp (FBX, Collada); -1 with err set. */
static int shape_track(importer *im, const char *name, int kind, st_imp_track *b, size_t *temp, clip_notes *notes) {
    const int w = kind == 1 ? 4 : 3;
    if (b->count > 0 && b->times[0] < 0.0f && (notes->before_start == 0 || b->times[0] < notes->earliest))
        notes->earliest = b->times[0];
    notes->before_start += st_imp_drop_before_start(b, w);
    if (kind != 1 || im->kind == IMP_OTHER) return 0;
    int added = st_imp_follow_slerp(im, b, st_imp_budget_left(im, 0), temp, &notes->unmet);
    if (added == -1) st_fail(im->err, STANCE_ERR_MEMORY, "%s: out of memory", im->path);
    else if (added == -2) st_fail(im->err, STANCE_ERR_UNSUPPORTED, "%s: clip '%s': following slerp needs more than %d keys", im->path, name, STANCE_MAX_KEYS);
    else if (added == -3) over_budget(im, name, *temp);
    if (added < 0) return -1;
    notes->added += added;
    return 0;
}

/* The clip's length: FBX and Collada clips end at their joints' last key
 * (a camera or light channel or a take's range may run longer, with a
 * warning), other formats at the file's duration or the last key. */
static float clip_duration(importer *im, const struct aiAnimation *an, double tps, const char *name, float last,
                           const clip_notes *notes) {
    double dur = an->mDuration / tps;
    float file = isfinite(dur) && dur > 0.0 && (float)dur < 1e30f ? (float)dur : 0.0f;
    float duration = file > last ? file : last;
    if (im->kind != IMP_OTHER && last > 0.0f) {
        duration = last;
        if (notes->other_end > (double)last * (1.0 + 1e-6) + 1e-6)
            st_imp_warn(im, "clip '%s' lasts %g s, to its joints' last key; %s runs to %g s", name, (double)last, notes->other,
                        notes->other_end);
        else if ((double)file > (double)last * (1.0 + 1e-6) + 1e-6)
            st_imp_warn(im, "clip '%s' lasts %g s, to its joints' last key; the file gives it %g s", name, (double)last, (double)file);
    }
    if (!(duration > 0.0f)) duration = (float)(1.0 / tps); /* a single pose: one tick long */
    return duration;
}

/* Builds one clip; *out stays NULL (with a warning) when the animation moves
 * no joint. */
stance_status st_imp_build_clip(importer *im, const struct aiAnimation *an, int index, const stance_skeleton *sk,
                                const stance_allocator *al, stance_clip **done, int done_count, stance_clip **out,
                                stance_import_clip_report *rep) {
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
    st_imp_track *bufs = calloc(3 * (size_t)J, sizeof *bufs);
    unsigned char *used = calloc((size_t)J, 1);
    stance_status s = STANCE_OK;
    int track_count = 0;
    float last = 0.0f;
    size_t temp = 0; /* bytes of this clip's track buffers */
    clip_notes notes;
    memset(&notes, 0, sizeof notes);
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
            double end = channel_end(ch, tps);
            if (end > notes.other_end) {
                notes.other_end = end;
                snprintf(notes.other, sizeof notes.other, "%s '%s'", kind ? kind : "node", node_name);
            }
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
        for (int kind = 0; kind < 3 && !s; kind++) {
            if (counts[kind] == 0) continue;
            st_imp_track *b = &bufs[track_count];
            if (read_track(im, name, jname, j, ch, kind, tps, b, &temp) || shape_track(im, name, kind, b, &temp, &notes)) {
                s = im->err ? im->err->status : STANCE_ERR_VALUE;
                break;
            }
            if (b->times[b->count - 1] > last) last = b->times[b->count - 1];
            stance_track_desc *t = &tracks[track_count++];
            t->joint = j;
            t->channel = (stance_channel)kind;
            t->key_count = b->count;
            t->times = b->times;
            t->values = b->values;
        }
    }
    if (s) goto done;
    if (track_count == 0) {
        st_imp_warn(im, "clip '%s' moves no joint of the skeleton: skipped", name);
        goto done;
    }
    if (notes.before_start)
        st_imp_warn(im, "clip '%s': %d keys before the take's start (from %g s) dropped", name, notes.before_start, notes.earliest);
    if (notes.unmet)
        st_imp_warn(im, "clip '%s': %d rotation key intervals stay outside the tolerance of slerp (float resolution)", name, notes.unmet);
    float duration = clip_duration(im, an, tps, name, last, &notes);
    /* what stance_clip_create will allocate: the key grid (at most the
     * distinct times of all tracks) times the joints, checked first */
    size_t grid = distinct_times(bufs, track_count, 0);
    if (grid == 0) {
        s = st_fail(im->err, STANCE_ERR_MEMORY, "%s: out of memory", im->path);
        goto done;
    }
    size_t dense = grid * ((size_t)sk->padded_count * 40 + 4) + sizeof(float) * 2 * grid;
    if (dense > st_imp_budget_left(im, temp)) {
        s = over_budget(im, name, dense + temp);
        goto done;
    }
    st_scale_ctx scale_ctx = st_imp_scale_ctx(im);
    s = st_imp_check_clip(&scale_ctx, sk, name, tracks, track_count);
    if (s) goto done;
    stance_clip_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.duration = duration;
    d.track_count = track_count;
    d.tracks = tracks;
    s = stance_clip_create(&d, sk, al, out, im->err);
    if (!s) im->used += (*out)->bytes;
    if (s) st_imp_prefix_error(im, s);
    if (!s && rep) {
        snprintf(rep->name, sizeof rep->name, "%s", name);
        rep->interpolations = STANCE_INTERP_LINEAR;
        rep->file_keys = notes.added ? (int)distinct_times(bufs, track_count, 1) : (*out)->key_count;
        rep->keys_added = (*out)->key_count - rep->file_keys;
    }
done:
    if (bufs)
        for (int i = 0; i < 3 * J; i++) free(bufs[i].times), free(bufs[i].values), free(bufs[i].file_times);
    free(bufs), free(tracks), free(used);
    return s;
}

#endif /* STANCE_HAVE_ASSIMP */
