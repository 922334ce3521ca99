/* src/core/clip/clip_packed_create.c - building a compressed ("packed") clip
 * from a packed description, with the same validation a file or a caller's
 * description gets: the keys checked, the 16-bit keys expanded, the root path
 * derived. The layout is in clip_packed.h; sampling and freeing one are
 * clip_packed.c; the compressor that chooses the layout is
 * src/build/clip_compress.c (libstance_build).
 *
 * A packed clip is a dense "shell" clip made by stance_clip_create from the
 * constant tracks alone (its one block per channel is the default pose; it
 * also owns the events and the root path) plus one block holding the grid,
 * the moving tracks' heads and their keys. */
#include <float.h>
#include <string.h>

#include "core/clip/clip_lattice.h"
#include "core/clip/clip_packed.h"
#include "core/base/internal.h"
#include "core/math/qmath.h"

static int width_of(int ch) { return ch == STANCE_CHANNEL_ROTATION ? 4 : 3; }

static stance_status check_track(const st_packed_desc *d, int i, uint32_t K, stance_error *err) {
    const st_ptrack_desc *t = &d->tracks[i];
    const int w = width_of(t->channel);
    if (t->shift < 0 || t->shift > ST_PACK_MAX_SHIFT || (K < 2 && t->shift != 0))
        return st_fail(err, STANCE_ERR_ARGUMENT, "clip '%s': track %d key shift %d is not in 0..%d (0 with one key)", d->name, i, t->shift, ST_PACK_MAX_SHIFT);
    const uint32_t n = st_ptrack_keys(K, t->shift);
    const st_values kind = t->channel == STANCE_CHANNEL_TRANSLATION ? ST_TRANSLATION
                         : t->channel == STANCE_CHANNEL_ROTATION ? ST_ROTATION : ST_SCALE;
    char why[200];
    if (t->bits == 0 || t->bits == ST_PACK_RAW) { /* issue 22: the limits of stance/base.h, as an exact clip's keys */
        const size_t keys = t->bits == 0 ? 1u : (size_t)n;
        if (!t->values) return st_fail(err, STANCE_ERR_ARGUMENT, "clip '%s': track %d has no values", d->name, i);
        for (size_t k = 0; k < keys; k++)
            if (st_check_values(kind, t->values + k * (size_t)w, why, sizeof why))
                return st_fail(err, STANCE_ERR_VALUE, "clip '%s': track %d key %zu: %s", d->name, i, k, why);
        return STANCE_OK;
    }
    if (!st_bits_ok(t->bits))
        return st_fail(err, STANCE_ERR_ARGUMENT, "clip '%s': track %d has bits %d (0, 1..24, 32, 64 + 1..24 or 128)", d->name, i, t->bits);
    if (!t->data) return st_fail(err, STANCE_ERR_ARGUMENT, "clip '%s': track %d has no key data", d->name, i);
    if (t->bits == ST_PACK_LAT) {
        if (t->shift != 0 || !t->data_bytes || st_lat_bytes(n, t->data, t->data_bytes) != t->data_bytes)
            return st_fail(err, STANCE_ERR_ARGUMENT, "clip '%s': track %d's lattice stream has shift %d or a size other than its %zu bytes", d->name, i, t->shift, t->data_bytes);
        for (int c = 0; c < 3; c++)
            if (!st_finite(t->ext[c]) || !(t->ext[c] >= 0.0f))
                return st_fail(err, STANCE_ERR_VALUE, "clip '%s': track %d range %d is not finite or negative", d->name, i, c);
        st_lat_dec dec;
        st_lat_seg seg;
        st_lat_begin(&dec, t->data, n, w == 4, t->ext);
        for (uint32_t g = 0; g < dec.S; g++)
            if (st_lat_next(&dec, &seg))
                return st_fail(err, STANCE_ERR_VALUE, "clip '%s': track %d's key stream is bad in segment %u (a bad code, a key off its lattice or past the stream's end)", d->name, i, (unsigned)g);
    }
    if (st_is_vbr(t->bits))
        for (uint32_t g = 0; g < st_vbr_segments(n); g++) {
            const unsigned code = t->data[g];
            if ((code & 31u) > ST_VBR_MAX_BITS || (code & 0x80u) || (w == 3 && (code >> 5)))
                return st_fail(err, STANCE_ERR_VALUE, "clip '%s': track %d segment %u has a bad code %u (bits 0..%d; a dropped component only for rotations)", d->name, i, (unsigned)g, code, ST_VBR_MAX_BITS);
        }
    for (int c = 0; c < 3; c++)
        if (!st_finite(t->min[c]) || !st_finite(t->ext[c]) || t->ext[c] < 0.0f)
            return st_fail(err, STANCE_ERR_VALUE, "clip '%s': track %d range %d is not finite or negative", d->name, i, c);
    /* the lowest and the highest values the keys can decode to (clip_packed.h) */
    float lo[3], hi[3];
    for (int c = 0; c < 3; c++) lo[c] = t->min[c], hi[c] = st_ptrack_top(t->bits, t->min, t->ext, c);
    if (w == 4) { /* the range itself within [-1, 1] (the decoded keys are normalized) */
        for (int c = 0; c < 3; c++)
            if (!(lo[c] >= -1.0f && lo[c] + t->ext[c] <= 1.0f))
                return st_fail(err, STANCE_ERR_VALUE, "clip '%s': track %d rotation range [%g, %g] is outside [-1, 1]", d->name, i, (double)lo[c], (double)(lo[c] + t->ext[c]));
        return STANCE_OK;
    }
    /* issue 22: both ends within the limits of stance/base.h (a scale range
     * from below -STANCE_MIN_SCALE to above it passes through zero, as an
     * exact clip does between keys of opposite signs) */
    if (st_check_values(kind, lo, why, sizeof why) || st_check_values(kind, hi, why, sizeof why))
        return st_fail(err, STANCE_ERR_VALUE, "clip '%s': track %d: the range its keys decode to: %s", d->name, i, why);
    return STANCE_OK;
}

static stance_status validate(const st_packed_desc *d, const stance_skeleton *sk, stance_error *err) {
    if (!d->name || !d->name[0] || strlen(d->name) >= 64)
        return st_fail(err, STANCE_ERR_ARGUMENT, "clip: name is empty, NULL or longer than 63 bytes");
    if (!st_finite(d->duration) || !(d->duration > 0.0f))
        return st_fail(err, STANCE_ERR_VALUE, "clip '%s': duration %g is not a finite time > 0", d->name, (double)d->duration);
    if (d->key_count < 1 || d->key_count > STANCE_MAX_KEYS || !d->times)
        return st_fail(err, STANCE_ERR_ARGUMENT, "clip '%s': key count %d is not in 1..%d", d->name, d->key_count, STANCE_MAX_KEYS);
    for (int k = 0; k < d->key_count; k++) {
        if (!st_finite(d->times[k]) || d->times[k] < 0.0f)
            return st_fail(err, STANCE_ERR_VALUE, "clip '%s': grid key %d time %g is not a finite time >= 0", d->name, k, (double)d->times[k]);
        if (k > 0 && !(d->times[k] > d->times[k - 1]))
            return st_fail(err, STANCE_ERR_ORDER, "clip '%s': grid key %d time %g is not after key %d", d->name, k, (double)d->times[k], k - 1);
    }
    if (d->track_count < 0 || d->track_count > 3 * sk->joint_count || (d->track_count > 0 && !d->tracks))
        return st_fail(err, STANCE_ERR_ARGUMENT, "clip '%s': track_count %d is not in 0..%d (3 per joint)", d->name, d->track_count, 3 * sk->joint_count);
    if (!st_finite(d->max_error) || d->max_error < 0.0f || !st_finite(d->vertex_distance) || d->vertex_distance < 0.0f)
        return st_fail(err, STANCE_ERR_VALUE, "clip '%s': measured error or vertex distance is not finite and >= 0", d->name);
    unsigned char seen[STANCE_MAX_JOINTS];
    memset(seen, 0, (size_t)sk->joint_count);
    for (int i = 0; i < d->track_count; i++) {
        const st_ptrack_desc *t = &d->tracks[i];
        if (t->joint < 0 || t->joint >= sk->joint_count)
            return st_fail(err, STANCE_ERR_ARGUMENT, "clip '%s': track %d joint %d is not in 0..%d", d->name, i, t->joint, sk->joint_count - 1);
        if (t->channel < 0 || t->channel > 2)
            return st_fail(err, STANCE_ERR_ARGUMENT, "clip '%s': track %d has an unknown channel %d", d->name, i, t->channel);
        if (seen[t->joint] & (1u << t->channel))
            return st_fail(err, STANCE_ERR_ARGUMENT, "clip '%s': joint %d has two tracks of channel %d", d->name, t->joint, t->channel);
        seen[t->joint] |= (unsigned char)(1u << t->channel);
        stance_status s = check_track(d, i, (uint32_t)d->key_count, err);
        if (s) return s;
    }
    return STANCE_OK;
}

static float grid_rate(const float *times, int K) {
    if (K < 2 || times[0] != 0.0f) return 0.0f;
    float step = times[K - 1] / (float)(K - 1);
    if (!(step > 0.0f)) return 0.0f;
    for (int k = 1; k < K; k++)
        if (fabsf(times[k] - step * (float)k) > 1e-4f * step) return 0.0f;
    return 1.0f / step;
}

/* 1 when a quantized track has a component of more than 16 bits. */
static int is_wide(const st_ptrack_desc *t, uint32_t n) {
    if (t->bits == ST_PACK_LAT) { /* some segment spans more than 65535 steps */
        st_lat_dec dec;
        st_lat_seg seg;
        st_lat_begin(&dec, t->data, n, t->channel == STANCE_CHANNEL_ROTATION, t->ext);
        for (uint32_t g = 0; g < dec.S; g++) {
            if (st_lat_next(&dec, &seg)) return 1; /* validated before: not reached */
            for (int c = 0; c < 3; c++)
                if (seg.hi[c] - seg.lo[c] > 65535u) return 1;
        }
        return 0;
    }
    if (!st_is_vbr(t->bits)) return (t->bits & ~ST_PACK_SEG) > 16;
    for (uint32_t g = 0; g < st_vbr_segments(n); g++)
        if ((t->data[g] & 31u) > 16u) return 1;
    return 0;
}

/* Where a quantized track's data ends when it starts at `at`: its stream
 * (nb bytes), then its keys expanded (4-aligned), then its st_qseg per
 * segment (16-aligned). */
static size_t expanded_end(size_t at, size_t nb, uint32_t n, int wide) {
    size_t q = st_align_up(at + nb, 4);
    size_t g = st_align_up(q + (size_t)n * 3u * (wide ? 4u : 2u), 16);
    return g + sizeof(st_qseg) * (size_t)st_vbr_segments(n);
}

/* Which groups of 4 (st_pgroup) a track is expanded in: 1 a common
 * rotation track (a lattice track, 16 bits at most, in an nlerp clip), 2 a
 * translation or scale lattice track of 16 bits at most; 0 none (the other
 * kinds of quantized tracks, of .stance v3 and v4, stay loose). */
static int group_class(const st_ptrack_desc *t, uint32_t n, int slerp) {
    /* only lattice tracks: one step for the three components (st_qseg4.scale) */
    if (t->bits != ST_PACK_LAT || is_wide(t, n)) return 0;
    if (t->channel != STANCE_CHANNEL_ROTATION) return 2;
    return slerp ? 0 : 1;
}

/* group_class, but a translation or scale track left alone in a group (the
 * last of 4 k + 1 of one shift) stays loose: a group of one lane keeps 4
 * times the keys for the same decode. vtake[s]: how many of shift s are
 * grouped; vseen[s] counts them (one zeroed array per pass over the tracks,
 * in order). */
static int track_class(const st_ptrack_desc *t, uint32_t n, int slerp, const int *vtake, int *vseen) {
    const int gc = group_class(t, n, slerp);
    return gc == 2 && vseen[t->shift]++ >= vtake[t->shift] ? 0 : gc;
}

/* Bytes of a group of tracks of n keys: keys (16-aligned), then its st_qseg4. */
static size_t group_bytes(uint32_t n) {
    return st_align_up((size_t)n * 24u, 16) + sizeof(st_qseg4) * (size_t)st_vbr_segments(n);
}

/* Expands quantized track o (stream at data + o->offset, from t) into its
 * keys and segment decodes. */
static void expand(st_ptrack *o, const st_ptrack_desc *t, unsigned char *data, size_t nb) {
    const uint32_t n = o->n, S = st_vbr_segments(n);
    const int rot = o->channel == STANCE_CHANNEL_ROTATION;
    o->q_at = (uint32_t)st_align_up(o->offset + nb, 4);
    o->par_at = (uint32_t)st_align_up(o->q_at + (size_t)n * 3u * (o->wide ? 4u : 2u), 16);
    uint16_t *q16 = (uint16_t *)(void *)(data + o->q_at);
    uint32_t *q32 = (uint32_t *)(void *)(data + o->q_at);
    st_qseg *g = (st_qseg *)(void *)(data + o->par_at);
    const unsigned char *p = data + o->offset;
    if (t->bits == ST_PACK_LAT) {
        st_lat_dec dec;
        st_lat_seg seg;
        st_lat_begin(&dec, p, n, rot, t->ext);
        for (uint32_t s = 0; s < S; s++) {
            memset(&g[s], 0, sizeof g[s]);
            if (st_lat_next(&dec, &seg)) memset(&seg, 0, sizeof seg); /* validated before: not reached */
            const float step = st_lat_step(t->ext, seg.b);
            const int drop = rot ? seg.drop : 3;
            for (int c = 0; c < 3; c++) {
                if (seg.lo[c] > seg.hi[c]) seg.lo[c] = 0;
                st_lat_param(o->min[c], step, seg.lo[c], &g[s].off[c], &g[s].scale[c]);
            }
            for (int c = 0, k = 0; c < 4; c++)
                if (c != drop) g[s].slot[k++] = (uint8_t)c;
            g[s].drop = (uint8_t)drop;
            for (uint32_t i = 0; i < seg.m; i++)
                for (int c = 0; c < 3; c++) {
                    const uint32_t v = seg.Q[3 * i + (uint32_t)c] - seg.lo[c];
                    const size_t at = 3 * ((size_t)s * ST_SEG_KEYS + i) + (size_t)c;
                    if (o->wide) q32[at] = v;
                    else q16[at] = (uint16_t)v;
                }
        }
        return;
    }
    size_t bit = 0;
    for (uint32_t s = 0; s < S; s++) {
        int bc[3], drop = 3;
        const unsigned char *keys, *h = NULL;
        memset(&g[s], 0, sizeof g[s]);
        if (st_is_vbr(t->bits)) {
            h = p + S + 6u * (size_t)s;
            st_vbr_comp_bits(p[s] & 31, h, bc);
            drop = rot ? (int)(p[s] >> 5 & 3u) : 3;
            keys = p + 7u * (size_t)S;
        } else {
            const int b = t->bits & ~ST_PACK_SEG;
            bc[0] = bc[1] = bc[2] = b;
            if (t->bits & ST_PACK_SEG) h = p + 6u * (size_t)s;
            keys = p + o->keys_at;
        }
        for (int c = 0; c < 3; c++) {
            if (h) st_seg_param(o->min[c], o->step[c], h[2 * c], h[2 * c + 1], bc[c], &g[s].off[c], &g[s].scale[c]);
            else g[s].off[c] = o->min[c], g[s].scale[c] = o->step[c];
        }
        for (int c = 0, k = 0; c < 4; c++)
            if (c != drop) g[s].slot[k++] = (uint8_t)c;
        g[s].drop = (uint8_t)drop;
        for (uint32_t i = s * ST_SEG_KEYS; i < s * ST_SEG_KEYS + st_vbr_seg_keys(n, s); i++)
            for (int c = 0; c < 3; c++) {
                const uint32_t v = st_get_bits(keys, bit, bc[c]);
                bit += (size_t)bc[c];
                if (o->wide) q32[3 * (size_t)i + (size_t)c] = v;
                else q16[3 * (size_t)i + (size_t)c] = (uint16_t)v;
            }
    }
}

/* Expands groupable track o (stream at data + o->offset, from t, nb bytes)
 * into lane `lane` of group g: the per-track expansion made in scratch (at
 * least expanded_end(0, nb, n, 0) + 4 bytes), its keys and segment decodes
 * copied side by side with the group's other lanes (a rotation's
 * destinations in the pose's qx, a translation's or scale's in its tx). */
static void put_in_group(st_ptrack *o, const st_ptrack_desc *t, unsigned char *data, size_t nb, unsigned char *scratch,
                         st_pgroup *g, int lane, int pc) {
    const uint32_t offset = o->offset, n = o->n;
    memcpy(scratch, data + offset, nb);
    memset(scratch + nb, 0, 4);
    o->offset = 0;
    expand(o, t, scratch, nb);
    const uint16_t *q = (const uint16_t *)(const void *)(scratch + o->q_at);
    const st_qseg *sg = (const st_qseg *)(const void *)(scratch + o->par_at);
    uint16_t *gq = (uint16_t *)(void *)(data + g->q_at);
    st_qseg4 *g4 = (st_qseg4 *)(void *)(data + g->par_at);
    for (uint32_t i = 0; i < n; i++)
        for (int c = 0; c < 3; c++) gq[(3 * (size_t)i + (size_t)c) * 4 + (size_t)lane] = q[3 * (size_t)i + (size_t)c];
    const int rot = o->channel == STANCE_CHANNEL_ROTATION, row0 = o->channel == STANCE_CHANNEL_SCALE ? 7 : 0;
    for (uint32_t s = 0; s < st_vbr_segments(n); s++) {
        for (int c = 0; c < 3; c++) {
            g4[s].off[c][lane] = sg[s].off[c];
            g4[s].dst[lane][c] = (uint16_t)((rot ? sg[s].slot[c] : row0 + c) * pc + o->joint);
        }
        g4[s].scale[lane] = sg[s].scale[0]; /* the lattice's step: scale[1], scale[2] are the same */
        g4[s].drop[lane] = sg[s].drop;
        g4[s].dst[lane][3] = (uint16_t)((rot ? sg[s].drop : row0) * pc + o->joint);
    }
    o->offset = offset;
    o->kind = rot ? ST_KIND_ROT16G : ST_KIND_VEC16G;
    o->lane = (uint8_t)lane;
    o->q_at = g->q_at + 2u * (uint32_t)lane;
    o->par_at = g->par_at;
}

/* The root path as joint 0's translation at every grid key, decoded as the
 * sampler does (the stored track, else the default pose's value). */
static void derive_root(stance_clip *c, float *values) {
    const st_packed *p = c->packed;
    const int K = c->key_count, pc = c->padded_count;
    const st_ptrack *t = NULL;
    for (int i = 0; i < p->track_count; i++)
        if (p->tracks[i].joint == 0 && p->tracks[i].channel == STANCE_CHANNEL_TRANSLATION) t = &p->tracks[i];
    for (int k = 0; k < K; k++) {
        float *v = values + 3 * k;
        if (!t) {
            v[0] = c->t[0], v[1] = c->t[pc], v[2] = c->t[2 * pc];
            continue;
        }
        if (K < 2) {
            st_rtrack_key(t, p->data, p->raw, 0, v);
            continue;
        }
        const int kk = k < K - 1 ? k : K - 2, s = t->shift;
        int ga = (kk >> s) << s, gb = ga + (1 << s);
        if (gb > K - 1) gb = K - 1;
        float u = (c->times[k] - c->times[ga]) / (c->times[gb] - c->times[ga]);
        u = u < 0.0f ? 0.0f : u > 1.0f ? 1.0f : u;
        float a[4], b[4];
        st_rtrack_key(t, p->data, p->raw, (uint32_t)(kk >> s), a);
        st_rtrack_key(t, p->data, p->raw, (uint32_t)(kk >> s) + (t->n > 1u), b);
        st_key_interp(0, a, b, u, c->slerp, v);
    }
    /* the shell's times are the grid's; x.. y.. z.. per key as the clip keeps them */
    c->root_times = c->times;
    c->root_values = values;
    c->root_key_count = K;
    c->root_from_joint0 = 1;
}

/* st_packed.t_rest / s_rest of clip c (its default pose and animated
 * bits set) for channel ch (0 translation, 2 scale). */
static unsigned long long rest_blocks(const stance_clip *c, const stance_skeleton *sk, int ch) {
    const int pc = c->padded_count, J = sk->joint_count, blocks = pc / 4 < 64 ? pc / 4 : 64;
    const float *row = ch == 0 ? c->t : c->s, pad = ch == 0 ? 0.0f : 1.0f;
    if (!sk->rest) return 0;
    unsigned long long m = 0;
    for (int b = 0; b < blocks; b++) {
        int same = 1;
        for (int j = 4 * b; j < 4 * b + 4 && same; j++) {
            if (j < J && (c->animated[j] >> ch & 1u)) same = 0;
            for (int e = 0; e < 3 && same; e++) {
                const float want = j < J ? (ch == 0 ? sk->rest[j].t[e] : sk->rest[j].s[e]) : pad;
                same = row[(size_t)e * (size_t)pc + (size_t)j] == want; /* == : the pose holds +0 for a rest -0 */
            }
        }
        if (same) m |= 1ull << b;
    }
    return m;
}

stance_status st_clip_create_packed(const st_packed_desc *d, const stance_skeleton *sk,
                                    const stance_allocator *allocator, stance_clip **out, stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "clip: out is NULL");
    *out = NULL;
    if (!d || !sk) return st_fail(err, STANCE_ERR_ARGUMENT, "clip: desc or skeleton is NULL");
    stance_status s = validate(d, sk, err);
    if (s) return s;
    stance_allocator al = st_allocator(allocator);
    const uint32_t K = (uint32_t)d->key_count;

    /* Sizes of the packed block. */
    int moving = 0, consts = 0;
    const int derived = d->root_from_joint0 && d->root_key_count == 0;
    size_t raw_floats = 0, data_bytes = 0, scratch_bytes = 0;
    /* groups per class (0 rotations, 1 translations and scales) and shift */
    int gcount[2][ST_PACK_MAX_SHIFT + 1] = {{0}}, gfirst[2][ST_PACK_MAX_SHIFT + 1], groups = 0, rgroups = 0;
    size_t stored = 5 + 4 + (d->root_yaw ? 20 : d->root_rotation ? 32 : 16) * (size_t)d->root_key_count, keys = 0;
    int vtake[ST_PACK_MAX_SHIFT + 1] = {0}, vseen[ST_PACK_MAX_SHIFT + 1] = {0};
    for (int i = 0; i < d->track_count; i++)
        if (group_class(&d->tracks[i], st_ptrack_keys(K, d->tracks[i].shift), d->slerp) == 2) vtake[d->tracks[i].shift]++;
    for (int sh = 0; sh <= ST_PACK_MAX_SHIFT; sh++) vtake[sh] -= vtake[sh] % 4 == 1;
    for (int i = 0; i < d->track_count; i++) {
        const st_ptrack_desc *t = &d->tracks[i];
        const size_t w = (size_t)width_of(t->channel), n = st_ptrack_keys(K, t->shift);
        stored += 5;
        if (t->bits == 0) {
            consts++;
            stored += 4 * w;
        } else if (t->bits == ST_PACK_RAW) {
            moving++;
            raw_floats += n * w;
            stored += 4 * n * w;
            keys += 4 * n * w;
        } else {
            moving++;
            const size_t nb = t->bits == ST_PACK_LAT ? t->data_bytes
                              : st_is_vbr(t->bits) ? st_vbr_bytes((uint32_t)n, t->data) : st_ptrack_bytes((uint32_t)n, t->bits);
            const int gc = track_class(t, (uint32_t)n, d->slerp, vtake, vseen);
            if (gc) { /* the stream here, the keys in its group */
                gcount[gc - 1][t->shift]++;
                data_bytes = st_align_up(data_bytes + nb, 4);
                const size_t sc = expanded_end(0, nb, (uint32_t)n, 0) + 4;
                if (sc > scratch_bytes) scratch_bytes = sc;
            } else {
                data_bytes = expanded_end(data_bytes, nb, (uint32_t)n, is_wide(t, (uint32_t)n));
            }
            stored += 24 + nb;
            keys += nb;
        }
    }
    /* a uniform grid is stored as one step when the keys outweigh K / 4
     * bytes (the loader's bound on what a small section may allocate) */
    const int uniform = st_grid_uniform(d->times, (int)K) && keys >= K / 4;
    stored += uniform ? 4 : 4 * (size_t)K;
    const size_t root_n = derived ? (size_t)K : 0; /* the derived root path: grid times, values */
    /* the groups after the streams and the other tracks' keys */
    const size_t g_at = st_align_up(data_bytes, 16);
    data_bytes = g_at;
    for (int gc = 0; gc < 2; gc++) {
        for (int sh = 0; sh <= ST_PACK_MAX_SHIFT; sh++) {
            gfirst[gc][sh] = groups;
            groups += (gcount[gc][sh] + 3) / 4;
            data_bytes += (size_t)((gcount[gc][sh] + 3) / 4) * group_bytes(st_ptrack_keys(K, sh)); /* each a multiple of 4 */
        }
        if (gc == 0) rgroups = groups;
    }
    size_t o_tracks = st_align_up(sizeof(st_packed), 64);
    size_t o_groups = st_align_up(o_tracks + sizeof(st_ptrack) * (size_t)moving, 16);
    size_t o_loose = st_align_up(o_groups + sizeof(st_pgroup) * (size_t)groups, 16);
    size_t o_consts = st_align_up(o_loose + sizeof(uint16_t) * (size_t)moving, 16);
    size_t o_cval = st_align_up(o_consts + sizeof(st_ptrack_desc) * (size_t)consts, 16);
    size_t o_raw = st_align_up(o_cval + sizeof(float) * 4 * (size_t)consts, 16);
    size_t o_times = st_align_up(o_raw + sizeof(float) * raw_floats, 64);
    size_t o_root = st_align_up(o_times + sizeof(float) * K, 16);
    size_t o_data = st_align_up(o_root + sizeof(float) * 3 * root_n, 64);
    size_t bytes = o_data + data_bytes + 4;

    /* The shell: constant tracks, events, root path. */
    stance_track_desc ct[3 * 64];
    stance_track_desc *cts = consts <= 3 * 64 ? ct : st_alloc(&al, sizeof(stance_track_desc) * (size_t)consts, 16);
    if (!cts) return st_fail(err, STANCE_ERR_MEMORY, "clip '%s': allocation failed", d->name);
    static const float zero_time = 0.0f;
    int ci = 0;
    for (int i = 0; i < d->track_count; i++)
        if (d->tracks[i].bits == 0) {
            stance_track_desc *t = &cts[ci++];
            t->joint = d->tracks[i].joint;
            t->channel = (stance_channel)d->tracks[i].channel;
            t->key_count = 1;
            t->times = &zero_time;
            t->values = d->tracks[i].values;
        }
    stance_clip_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.name = d->name;
    sd.duration = d->duration;
    sd.track_count = consts;
    sd.tracks = cts;
    sd.event_count = d->event_count;
    sd.events = d->events;
    sd.slerp = d->slerp;
    sd.root_key_count = d->root_key_count;
    sd.root_times = d->root_times;
    sd.root_values = d->root_values;
    sd.root_yaw = d->root_key_count > 0 ? d->root_yaw : NULL;
    sd.root_rotation = d->root_key_count > 0 ? d->root_rotation : NULL;
    sd.root_speed = d->root_speed;
    stance_clip *c = NULL;
    s = stance_clip_create(&sd, sk, &al, &c, err);
    if (cts != ct) st_free(&al, cts, sizeof(stance_track_desc) * (size_t)consts);
    if (s) return s;

    /* the default pose: the shell's blocks, back to back (clip.c lays a
     * clip of one block per channel out so), each zero +0 (clip.c stores a
     * one-block channel as v + 0: a -0 of the source would stay in the pose,
     * and the fused additive's still blocks and zero translations, which
     * leave base as it is, would keep a -0 the unfused apply turns into +0:
     * tests/test_reference_compressed.sh) */
    const float *rest = c->t;
    if (c->r != rest + 3 * (size_t)c->padded_count || c->s != rest + 7 * (size_t)c->padded_count) { /* not reached */
        stance_clip_destroy(c);
        return st_fail(err, STANCE_ERR_ARGUMENT, "clip '%s': the default pose is not one block", d->name);
    }
    unsigned char *mem = st_alloc(&al, bytes, 64);
    unsigned char *scratch = scratch_bytes ? st_alloc(&al, scratch_bytes, 16) : NULL;
    if (!mem || (scratch_bytes && !scratch)) {
        if (mem) st_free(&al, mem, bytes);
        stance_clip_destroy(c);
        return st_fail(err, STANCE_ERR_MEMORY, "clip '%s': allocation of %zu bytes failed", d->name, bytes);
    }
    memset(mem, 0, bytes); /* the groups' unused lanes hold zeros */
    st_packed *p = (st_packed *)mem;
    st_ptrack *tr = (st_ptrack *)(mem + o_tracks);
    st_ptrack_desc *cd = (st_ptrack_desc *)(mem + o_consts);
    float *cval = (float *)(mem + o_cval), *raw = (float *)(mem + o_raw), *times = (float *)(mem + o_times);
    unsigned char *data = mem + o_data;
    memcpy(times, d->times, sizeof(float) * K);
    unsigned char *anim = (unsigned char *)c->animated; /* the shell's own memory */
    st_pgroup *grp = (st_pgroup *)(mem + o_groups);
    int gseen[2][ST_PACK_MAX_SHIFT + 1] = {{0}};
    memset(vseen, 0, sizeof vseen);
    size_t gat = g_at;
    for (int gc = 0, gi = 0; gc < 2; gc++)
        for (int sh = 0; sh <= ST_PACK_MAX_SHIFT; sh++) { /* the groups' places, as sized above */
            const uint32_t n = st_ptrack_keys(K, sh);
            const int cnt = gcount[gc][sh];
            for (int g = 0; g < (cnt + 3) / 4; g++, gi++, gat += group_bytes(n)) {
                grp[gi].q_at = (uint32_t)gat;
                grp[gi].par_at = grp[gi].q_at + (uint32_t)st_align_up((size_t)n * 24u, 16);
                grp[gi].shift = (uint8_t)sh;
                grp[gi].m = (uint8_t)(cnt - 4 * g < 4 ? cnt - 4 * g : 4);
                grp[gi].n = n;
            }
        }
    int ti = 0, cj = 0, max_shift = 0;
    unsigned used = 0;
    size_t ro = 0, dof = 0;
    for (int i = 0; i < d->track_count; i++) {
        const st_ptrack_desc *t = &d->tracks[i];
        const int w = width_of(t->channel);
        if (t->bits == 0) {
            cd[cj] = *t;
            cd[cj].values = cval + 4 * cj;
            memcpy(cval + 4 * cj, t->values, sizeof(float) * (size_t)w);
            cj++;
            continue;
        }
        st_ptrack *o = &tr[ti++];
        const uint32_t n = st_ptrack_keys(K, t->shift);
        o->joint = (uint16_t)t->joint;
        o->channel = (uint8_t)t->channel;
        o->shift = (uint8_t)t->shift;
        o->bits = (uint8_t)t->bits;
        o->kind = 0, o->lane = 0, o->pad = 0;
        o->n = n;
        if (t->shift > max_shift) max_shift = t->shift;
        used |= 1u << t->shift;
        anim[t->joint] |= (unsigned char)(1u << t->channel);
        if (t->bits == ST_PACK_RAW) {
            o->offset = (uint32_t)ro;
            memcpy(raw + ro, t->values, sizeof(float) * (size_t)n * (size_t)w);
            ro += (size_t)n * (size_t)w;
        } else {
            const int vbr = st_is_vbr(t->bits) || t->bits == ST_PACK_LAT;
            const size_t nb = t->bits == ST_PACK_LAT ? t->data_bytes : vbr ? st_vbr_bytes(n, t->data) : st_ptrack_bytes(n, t->bits);
            o->offset = (uint32_t)dof;
            memcpy(data + dof, t->data, nb);
            const int seg = vbr || (t->bits & ST_PACK_SEG) != 0;
            const float levels = vbr ? 255.0f : (float)((1u << (t->bits & ~ST_PACK_SEG)) - 1u);
            o->keys_at = vbr ? 7u * st_vbr_segments(n) : (uint32_t)st_ptrack_heads(n, t->bits);
            o->inv_levels = 1.0f / levels;
            for (int k = 0; k < 3; k++) {
                o->min[k] = t->min[k], o->ext[k] = t->ext[k];
                o->step[k] = t->ext[k] / (seg ? 255.0f : levels);
            }
            o->wide = (uint32_t)is_wide(t, n);
            if (!o->wide) o->kind = t->channel == STANCE_CHANNEL_ROTATION ? ST_KIND_ROT16 : ST_KIND_VEC16;
            const int gc = track_class(t, n, d->slerp, vtake, vseen);
            if (gc) {
                const int r = gseen[gc - 1][t->shift]++;
                put_in_group(o, t, data, nb, scratch, &grp[gfirst[gc - 1][t->shift] + r / 4], r % 4, c->padded_count);
                dof = st_align_up(dof + nb, 4);
            } else {
                expand(o, t, data, nb);
                dof = expanded_end(dof, nb, n, (int)o->wide);
            }
        }
    }
    p->rest = rest;
    p->t_rest = rest_blocks(c, sk, 0);
    p->s_rest = rest_blocks(c, sk, 2);
    p->track_count = moving;
    p->tracks = tr;
    p->group_count = rgroups;
    p->groups = grp;
    p->vgroup_count = groups - rgroups;
    p->vgroups = grp + rgroups;
    uint16_t *loose = (uint16_t *)(void *)(mem + o_loose);
    int nl = 0;
    for (int i = 0; i < moving; i++)
        if (tr[i].kind != ST_KIND_ROT16G && tr[i].kind != ST_KIND_VEC16G) loose[nl++] = (uint16_t)i;
    p->loose_count = nl;
    p->loose = loose;
    if (scratch) st_free(&al, scratch, scratch_bytes);
    p->data = data;
    p->raw = raw;
    p->const_count = consts;
    p->consts = cd;
    p->const_values = cval;
    p->max_shift = max_shift;
    p->shifts_used = used;
    p->stored_bytes = stored;
    p->bytes = bytes;
    p->max_error = d->max_error;
    p->vertex_distance = d->vertex_distance;
    c->times = times;
    c->key_count = (int)K;
    c->key_rate = grid_rate(times, (int)K);
    c->root_from_joint0 = d->root_key_count > 0 && d->root_from_joint0;
    if (d->root_key_count == 0) c->root_key_count = 0; /* not a path derived from a constant joint 0 */
    p->uniform_grid = uniform;
    p->root_derived = derived;
    c->packed = p;
    if (derived) derive_root(c, (float *)(mem + o_root));
    *out = c;
    return st_ok(err);
}
