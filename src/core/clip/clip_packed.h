/* src/core/clip/clip_packed.h - the compressed ("packed") clip representation
 * shared by its runtime (clip_packed.c), its compressor (src/build/clip_compress.c,
 * clip_compress_vbr.c) and the .stance v3 and v4 CLIP encodings
 * (src/core/load/asset_packed.c reads them, src/build/asset_write.c writes them). Not public API. At runtime every quantized track is also
 * kept expanded (keys as u16 or u32, a decode per 16 keys: st_qseg; the
 * common rotation tracks four side by side: st_pgroup, st_qseg4), which
 * is what the sampler reads; the stream is kept for saving.
 *
 * A packed clip keeps the shared key grid (times) but stores only the
 * tracks that move, each with its own key spacing and precision:
 *   shift s   the track keeps every 2^s-th grid key (key i is grid key
 *             min(i << s, K - 1)), so it has n = ceil((K-1) / 2^s) + 1 keys
 *             and the key holding a grid interval k is k >> s: no search
 *   bits b    0: constant (one raw key, folded into the default pose);
 *             1..24: each of 3 components quantized to b bits against the
 *             track's range [min, min + ext]; rotations store x, y, z of the
 *             key with w >= 0 and rebuild w = sqrt(1 - x^2 - y^2 - z^2);
 *             32: raw floats (3 or 4 per key)
 *             64 + b (ST_PACK_SEG | b, b in 1..24): quantized to b bits within
 *             a range per segment of 16 keys: each segment starts with 3 x
 *             (u8 lo, u8 span), its range being min + ext/255 * [lo, lo +
 *             span]; all segment heads come first, then the keys
 *             ST_PACK_VBR (.stance v4): a bit rate per segment of 16 keys:
 *             the stream is S = ceil(n / 16) codes (u8: bits 0..4 the
 *             segment's bits b in 0..24, bits 5..6 for rotations the
 *             component not stored, rebuilt >= 0 as sqrt(1 - the others^2)),
 *             then S x 3 x (u8 lo, u8 span) as above, then each segment's
 *             keys back to back, each key its 3 components; component c has
 *             b_c = b - floor(log2(largest span / span_c)) bits (at least 0;
 *             0 when span_c is 0), so the three steps are about equal in
 *             255ths of each component's own range; b_c = 0 gives the key
 *             min + ext/255 * lo
 *             ST_PACK_LAT (.stance v5): a bit rate per segment on one
 *             lattice per track, keys coded by prediction and Rice codes
 *             (clip_lattice.h); expanded like VBR
 * Joints without a stored track hold the default pose (rest values and
 * constant tracks), copied at each sample. */
#ifndef STANCE_CLIP_PACKED_H
#define STANCE_CLIP_PACKED_H

#include <math.h>
#include <stdint.h>

#include "core/math/qmath.h"
#include "stance/clip.h"

#define ST_PACK_MAX_SHIFT 8
#define ST_PACK_RAW 32
#define ST_PACK_MAX_BITS 24 /* quantized: 1..24 bits per component */
#define ST_PACK_SEG 0x40    /* bits | ST_PACK_SEG: quantized within segment ranges */
#define ST_SEG_KEYS 16      /* keys per segment */
#define ST_PACK_VBR 0x80    /* bits per segment (v4) */
#define ST_VBR_MAX_BITS 24
#define ST_KIND_ROT16 1     /* a quantized rotation track, 16 bits at most */
#define ST_KIND_VEC16 2     /* a quantized translation or scale track, 16 bits at most */
#define ST_KIND_ROT16G 3    /* a ROT16 track expanded in a group of 4 (st_pgroup) */
#define ST_KIND_VEC16G 4    /* a VEC16 track expanded in a group of 4 (st_pgroup, vector groups) */

typedef struct st_ptrack_desc {
    int joint;
    int channel;            /* stance_channel */
    int shift;              /* 0..ST_PACK_MAX_SHIFT */
    int bits;               /* 0, 1..24 or 32 */
    float min[3], ext[3];   /* bits 1..24 */
    const float *values;    /* bits 0: width floats; 32: n * width */
    const unsigned char *data; /* bits 1..24: st_ptrack_bytes() bytes */
    size_t data_bytes;      /* ST_PACK_LAT (clip_lattice.h): the stream's bytes */
} st_ptrack_desc;

typedef struct st_packed_desc {
    const char *name;
    float duration;         /* > 0 */
    int slerp;
    int key_count;          /* the grid, 1..STANCE_MAX_KEYS */
    const float *times;     /* strictly increasing, finite, >= 0 */
    int track_count;
    const st_ptrack_desc *tracks;
    int event_count;
    const stance_event_desc *events;
    int root_key_count;     /* the root path, kept raw */
    const float *root_times, *root_values;
    const float *root_yaw;  /* root_key_count yaws, or NULL (stance_clip_desc.root_yaw) */
    const float *root_rotation; /* root_key_count quaternions, or NULL (stance_clip_desc.root_rotation) */
    int root_from_joint0;   /* with root_key_count 0: the root path is joint 0's
                               translation as stored here, at every grid key (v4) */
    float root_speed;
    float max_error;        /* measured at compression (model units), >= 0 */
    float vertex_distance;  /* the distance it was measured at, >= 0 */
} st_packed_desc;

/* A track at runtime (inside the packed block). */
typedef struct st_ptrack {
    uint16_t joint;
    uint8_t channel, shift, bits, kind, lane, pad; /* kind: ST_KIND_* (the sampler's decode); lane in its group */
    uint32_t n;             /* keys */
    uint32_t offset;        /* bytes into data (bits 1..24) or floats into raw (32) */
    uint32_t keys_at;       /* segmented: bytes of segment heads before the keys (VBR: codes and heads) */
    float min[3], ext[3], step[3]; /* step = ext / (2^b - 1); segmented: ext / 255 */
    float inv_levels;       /* segmented: 1 / (2^b - 1) */
    /* The runtime's expanded form of a quantized track (sampled from these,
     * the stream above is kept for saving): */
    uint32_t q_at;          /* bytes into data: n x 3 values, u16 (u32 when wide); grouped
                               (ST_KIND_ROT16G, VEC16G): the group's keys + 2 lane bytes */
    uint32_t par_at;        /* bytes into data: st_qseg per 16 keys; grouped: the group's st_qseg4 */
    uint32_t wide;          /* 1: some component has more than 16 bits */
} st_ptrack;

/* Decode of 16 keys of an expanded track: component c = off[c] + scale[c] q,
 * stored to slot[c] of the key; rotations rebuild slot `drop` >= 0. */
typedef struct st_qseg {
    float off[3], scale[3];
    uint8_t slot[3], drop;
    uint32_t pad;
} st_qseg;

/* Decode of 16 keys of a group of 4 rotation tracks (lanes): component c of
 * lane l = off[c][l] + scale[l] q (one lattice step for the three
 * components: only ST_PACK_LAT tracks are grouped), stored at dst[l][c] of the pose's qx
 * (slot * padded_count + joint; dst[l][3] the rebuilt component's); drop[l]
 * the lane's rebuilt component (its slots: st_slot). In a group of
 * translation and scale tracks dst[l][c] is the place in the pose's tx
 * (row * padded_count + joint, rows 0..2 translation, 7..9 scale) and
 * drop[l] is 3 (nothing rebuilt). */
typedef struct st_qseg4 {
    float off[3][4], scale[4];
    uint16_t dst[4][4];
    uint8_t drop[4];
} st_qseg4;

/* Where stored component k (0..2) of a rotation key goes when component
 * `drop` is rebuilt (k = 3: drop itself): the other components in order,
 * as st_qseg's slots are. */
static inline int st_slot(int drop, int k) { return k == 3 ? drop : k < drop ? k : k + 1; }

/* A group of up to 4 common rotation tracks (ST_KIND_ROT16G), or of up to 4
 * translation and scale tracks of 16 bits at most (ST_KIND_VEC16G), all
 * lattice tracks (ST_PACK_LAT, .stance v5), of one
 * key shift, expanded side by side so the sampler decodes them as the lanes
 * of one vector: keys q[i][c][lane] (u16, n x 3 x 4) at q_at, st_qseg4 per
 * 16 keys at par_at; lanes past m hold zeros. */
typedef struct st_pgroup {
    uint32_t q_at, par_at;
    uint8_t shift, m, pad[2];
    uint32_t n;
} st_pgroup;

typedef struct st_packed {
    int track_count;        /* stored, non-constant tracks */
    const st_ptrack *tracks;
    int group_count;        /* groups of ROT16G tracks */
    const st_pgroup *groups;
    int vgroup_count;       /* groups of VEC16G tracks */
    const st_pgroup *vgroups;
    int loose_count;        /* tracks not in a group (the sampler's loop after the groups) */
    const uint16_t *loose;  /* their indices into tracks, in order */
    const unsigned char *data; /* quantized streams, padded by 4 bytes */
    const float *raw;       /* raw keys */
    int const_count;        /* constant tracks (in the default pose) */
    const st_ptrack_desc *consts; /* joint, channel, values (kept for saving) */
    const float *const_values;
    int max_shift;
    unsigned shifts_used;   /* bit s: some track has shift s */
    size_t stored_bytes;    /* the v4 encoding's key data: grid, tracks, root path unless derived */
    int uniform_grid;       /* times[k] == (float)k * times[1] for every k: stored as one step */
    int root_derived;       /* the root path is joint 0's stored translation (not in the file) */
    const float *rest;      /* the default pose as a pose's memory: 10 rows of padded_count (tx..sx) */
    /* Bit b: joints 4b..4b+3 (b < 64) keep the skeleton's rest translation
     * (t_rest) / scale (s_rest) at every time, no track moving them (padding
     * joints: 0 / 1): every such clip samples those blocks to the same bits
     * (+0, never -0), so a blend or fade of two of them leaves the blocks as
     * they are (fused.c's *_pose passes skip them). */
    unsigned long long t_rest, s_rest;
    size_t bytes;           /* this block */
    float max_error, vertex_distance;
} st_packed;

/* Keys of a track with `shift` on a grid of K keys. */
static inline uint32_t st_ptrack_keys(uint32_t K, int shift) {
    return K < 2 ? 1u : ((K - 2u) >> shift) + 2u;
}
/* 1 for a valid bits value: 0, 32, 1..24, ST_PACK_SEG | 1..24, ST_PACK_VBR. */
static inline int st_bits_ok(int bits) {
    int b = bits & ~ST_PACK_SEG;
    return bits == 0 || bits == ST_PACK_RAW || bits == ST_PACK_VBR || bits == 0x82 /* ST_PACK_LAT */ ||
           (b >= 1 && b <= ST_PACK_MAX_BITS);
}
/* The highest value component c of a quantized track (bits 1..24,
 * segmented, VBR or lattice) can decode to: min + ext for plain bits; with
 * segment ranges (lo + span up to 510 255ths of ext) min + 2 ext; on the
 * lattice (one step for the three components) min + the largest ext. Its
 * lowest is min[c]. */
static inline float st_ptrack_top(int bits, const float *min, const float *ext, int c) {
    if (bits == 0x82 /* ST_PACK_LAT */) {
        const float u = ext[0] > ext[1] ? ext[0] : ext[1];
        return min[c] + (u > ext[2] ? u : ext[2]);
    }
    return min[c] + ((bits & ST_PACK_SEG) || bits == ST_PACK_VBR ? 2.0f : 1.0f) * ext[c];
}
/* 1 for a track with a bit rate per segment and segment heads (v4). */
static inline int st_is_vbr(int bits) { return bits == ST_PACK_VBR; }
/* Segments of a VBR track of n keys. */
static inline uint32_t st_vbr_segments(uint32_t n) { return (n + ST_SEG_KEYS - 1u) / ST_SEG_KEYS; }
/* Keys of segment s of a VBR track of n keys. */
static inline uint32_t st_vbr_seg_keys(uint32_t n, uint32_t s) {
    return n - s * ST_SEG_KEYS < ST_SEG_KEYS ? n - s * ST_SEG_KEYS : ST_SEG_KEYS;
}
/* The bits of each component of a VBR segment with code bits b and head h
 * (3 x lo, span); returns their sum. */
static inline int st_vbr_comp_bits(int b, const unsigned char *h, int *bc) {
    int top = h[1] > h[3] ? h[1] : h[3];
    top = top > h[5] ? top : h[5];
    int sum = 0;
    for (int c = 0; c < 3; c++) {
        const int span = h[2 * c + 1];
        int d = 0;
        while (span && (span << (d + 1)) <= top) d++;
        bc[c] = !span || d >= b ? 0 : b - d;
        sum += bc[c];
    }
    return sum;
}
/* Bytes of a VBR stream of n keys (its 7 S bytes of codes and heads are
 * readable; codes checked by the caller: bits <= 24). */
static inline size_t st_vbr_bytes(uint32_t n, const unsigned char *stream) {
    const uint32_t S = st_vbr_segments(n);
    size_t bits = 0;
    int bc[3];
    for (uint32_t s = 0; s < S; s++)
        bits += (size_t)st_vbr_seg_keys(n, s) * (size_t)st_vbr_comp_bits(stream[s] & 31, stream + S + 6u * (size_t)s, bc);
    return 7u * (size_t)S + (bits + 7u) / 8u;
}
/* 1 / (2^b - 1) for b = 0..24 (0 for b = 0). */
static inline float st_inv_levels(int b) { return b ? 1.0f / (float)((1u << b) - 1u) : 0.0f; }
/* A segmented component's decode: value = off + scale * q, with off = min +
 * step lo and scale = step span / (2^b - 1) (one expression for the
 * compressor, the stream decoder and the runtime's expanded tracks). */
static inline void st_seg_param(float min, float step, int lo, int span, int b, float *off, float *scale) {
    *off = min + step * (float)lo;
    *scale = step * (float)span * st_inv_levels(b);
}
/* Bytes of segment heads of a segmented track. */
static inline size_t st_ptrack_heads(uint32_t n, int bits) {
    return (bits & ST_PACK_SEG) ? ((size_t)n + ST_SEG_KEYS - 1u) / ST_SEG_KEYS * 6u : 0u;
}
/* Bytes of a quantized track's stream (segment heads and keys). */
static inline size_t st_ptrack_bytes(uint32_t n, int bits) {
    return st_ptrack_heads(n, bits) + ((size_t)n * 3u * (size_t)(bits & ~ST_PACK_SEG) + 7u) / 8u;
}

/* b bits at bit position pos of p (b <= 25; p readable 3 bytes past pos/8). */
static inline uint32_t st_get_bits(const unsigned char *p, size_t pos, int b) {
    const unsigned char *q = p + (pos >> 3);
    uint32_t v = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
    return (v >> (pos & 7u)) & ((1u << b) - 1u);
}

/* The value at fraction u between decoded keys a and b (b may be changed),
 * as the sampler computes it: lerp, or for rotations a hemisphere check then
 * nlerp (slerp when asked). v gets 3 or 4 floats. */
static inline void st_key_interp(int rotation, float *a, float *b, float u, int slerp, float *v) {
    if (!rotation) {
        for (int e = 0; e < 3; e++) v[e] = a[e] + (b[e] - a[e]) * u;
        return;
    }
    if (a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0.0f)
        b[0] = -b[0], b[1] = -b[1], b[2] = -b[2], b[3] = -b[3];
    if (!slerp) {
        float qx = a[0] + (b[0] - a[0]) * u, qy = a[1] + (b[1] - a[1]) * u;
        float qz = a[2] + (b[2] - a[2]) * u, qw = a[3] + (b[3] - a[3]) * u;
        float n = 1.0f / sqrtf(qx * qx + qy * qy + qz * qz + qw * qw);
        v[0] = qx * n, v[1] = qy * n, v[2] = qz * n, v[3] = qw * n;
    } else {
        qm_quat q = qm_slerp(qm_qnorm(qm_q(a[0], a[1], a[2], a[3])), qm_qnorm(qm_q(b[0], b[1], b[2], b[3])), u);
        v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
    }
}

/* Key i of a raw, fixed or segmented (not VBR) track from its stream, as
 * the sampler decodes it (w rebuilt for rotations): the compressor's
 * candidates. v gets 3 or 4 floats. */
static inline void st_ptrack_key(const st_ptrack *t, const unsigned char *data, const float *raw, uint32_t i,
                                 float *v) {
    const int w = t->channel == STANCE_CHANNEL_ROTATION ? 4 : 3;
    if (t->bits == ST_PACK_RAW) {
        const float *s = raw + t->offset + (size_t)i * (size_t)w;
        for (int c = 0; c < w; c++) v[c] = s[c];
        return;
    }
    const unsigned char *p = data + t->offset;
    const size_t b = t->bits & ~ST_PACK_SEG, pos = (size_t)i * 3u * b;
    if (t->bits & ST_PACK_SEG) {
        const unsigned char *h = p + (size_t)(i / ST_SEG_KEYS) * 6u;
        p += t->keys_at;
        for (int c = 0; c < 3; c++) {
            float off, scale;
            st_seg_param(t->min[c], t->step[c], h[2 * c], h[2 * c + 1], (int)b, &off, &scale);
            v[c] = off + scale * (float)st_get_bits(p, pos + (size_t)c * b, (int)b);
        }
    } else {
        for (int c = 0; c < 3; c++) v[c] = t->min[c] + t->step[c] * (float)st_get_bits(p, pos + (size_t)c * b, (int)b);
    }
    if (w == 4) {
        float l = 1.0f - (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        v[3] = l > 0.0f ? sqrtf(l) : 0.0f;
    }
}

/* Key i of a runtime track (raw, or quantized in its expanded form). */
static inline void st_rtrack_key(const st_ptrack *t, const unsigned char *data, const float *raw, uint32_t i, float *v) {
    if (t->bits == ST_PACK_RAW) {
        const int w = t->channel == STANCE_CHANNEL_ROTATION ? 4 : 3;
        const float *s = raw + t->offset + (size_t)i * (size_t)w;
        for (int c = 0; c < w; c++) v[c] = s[c];
        return;
    }
    if (t->kind == ST_KIND_ROT16G || t->kind == ST_KIND_VEC16G) { /* lane t->lane of its group */
        const st_qseg4 *g = (const st_qseg4 *)(const void *)(data + t->par_at) + i / ST_SEG_KEYS;
        const uint16_t *q = (const uint16_t *)(const void *)(data + t->q_at) + 12u * (size_t)i;
        const int l = t->lane;
        float x[3];
        for (int c = 0; c < 3; c++) x[c] = g->off[c][l] + g->scale[l] * (float)q[4 * c];
        if (t->kind == ST_KIND_VEC16G) {
            v[0] = x[0], v[1] = x[1], v[2] = x[2];
            return;
        }
        const int drop = g->drop[l];
        v[st_slot(drop, 0)] = x[0], v[st_slot(drop, 1)] = x[1], v[st_slot(drop, 2)] = x[2];
        float len = 1.0f - (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        v[drop] = len > 0.0f ? sqrtf(len) : 0.0f;
        return;
    }
    const st_qseg *g = (const st_qseg *)(const void *)(data + t->par_at) + i / ST_SEG_KEYS;
    float x[3];
    if (t->wide) {
        const uint32_t *q = (const uint32_t *)(const void *)(data + t->q_at) + 3u * (size_t)i;
        for (int c = 0; c < 3; c++) x[c] = g->off[c] + g->scale[c] * (float)q[c];
    } else {
        const uint16_t *q = (const uint16_t *)(const void *)(data + t->q_at) + 3u * (size_t)i;
        for (int c = 0; c < 3; c++) x[c] = g->off[c] + g->scale[c] * (float)q[c];
    }
    if (t->channel != STANCE_CHANNEL_ROTATION) {
        v[0] = x[0], v[1] = x[1], v[2] = x[2];
        return;
    }
    v[g->slot[0]] = x[0], v[g->slot[1]] = x[1], v[g->slot[2]] = x[2];
    float l = 1.0f - (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    v[g->drop] = l > 0.0f ? sqrtf(l) : 0.0f;
}

/* A track's value at key ia and fraction u towards key ia + 1 (when it has
 * more than one key), as the sampler computes it: lerp, or for rotations a
 * hemisphere check then nlerp (slerp when asked). v gets 3 or 4 floats. */
static inline void st_ptrack_interp(const st_ptrack *t, const unsigned char *data, const float *raw, uint32_t ia,
                                    float u, int slerp, float *v) {
    float a[4], b[4];
    st_ptrack_key(t, data, raw, ia, a);
    st_ptrack_key(t, data, raw, ia + (t->n > 1u), b);
    st_key_interp(t->channel == STANCE_CHANNEL_ROTATION, a, b, u, slerp, v);
}

/* 1 when times[k] == (float)k * times[1] for every k (K >= 2). */
static inline int st_grid_uniform(const float *times, int K) {
    if (K < 2 || times[0] != 0.0f) return 0;
    for (int k = 2; k < K; k++)
        if (times[k] != (float)k * times[1]) return 0;
    return 1;
}

/* Builds a packed clip (validated like stance_clip_create). */
stance_status st_clip_create_packed(const st_packed_desc *d, const stance_skeleton *sk,
                                    const stance_allocator *allocator, stance_clip **out, stance_error *err);
/* Samples a packed clip at grid interval k (fraction found by the caller's
 * cursor), clamped time t; vel may be NULL. */
void st_packed_sample(const stance_clip *c, int k, float t, stance_pose *out, stance_pose *vel);
void st_packed_destroy(const stance_clip *c);
/* For tests: st_packed_sample without velocities (k a valid grid interval,
 * t in [0, duration]) with the track decode in one encoding (0 the baseline
 * SSE2 copy, or the scalar form where the build has no SIMD; 1 the VEX
 * copy); 0 when that encoding is not in this build or CPU, else 1. */
int st_packed_sample_as(const stance_clip *c, int k, float t, stance_pose *out, int vex);

#endif
