/* src/build/clip_compress.h - what the clip compressor's two searches share
 * (clip_compress.c: a key spacing and precision per track; clip_compress_vbr.c:
 * a bit rate per segment of 16 keys): the working set of evaluation points
 * and the double-precision model-space error at virtual vertices. Not public. */
#ifndef STANCE_BUILD_CLIP_COMPRESS_H
#define STANCE_BUILD_CLIP_COMPRESS_H

#include <math.h>
#include <string.h>

#include "core/clip/clip_packed.h"
#include "core/base/internal.h"

#define SUB 4          /* evaluation points per grid interval */
#define MAX_WORK (1u << 26) /* evaluation points x joints */

typedef struct work {
    const stance_clip *clip;
    const stance_skeleton *sk;
    int J, K, E;
    float *loc;        /* E x J x 10: the current local pose (t3 q4 s3) */
    double *mod;       /* E x J x 12: the current model transforms (3x3 row-major, then t) */
    double *ref;       /* E x J x 9: the exact clip's vertex points */
    double *tmp;       /* J x 12 */
    uint32_t *ia;      /* E x (ST_PACK_MAX_SHIFT + 1): key index per shift */
    float *fr;         /* E x (ST_PACK_MAX_SHIFT + 1): fraction per shift */
    int *sub;          /* the current subtree, j first */
    int sub_n;
    double dist;
} work;

static inline void local_aff(const float *l, double *m) {
    double x = l[3], y = l[4], z = l[5], w = l[6];
    double n = sqrt(x * x + y * y + z * z + w * w);
    x /= n, y /= n, z /= n, w /= n;
    double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
                   2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
                   2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)};
    for (int i = 0; i < 3; i++)
        for (int c = 0; c < 3; c++) m[3 * i + c] = r[3 * i + c] * (double)l[7 + c];
    m[9] = l[0], m[10] = l[1], m[11] = l[2];
}

static inline void compose(const double *p, const double *l, double *o) {
    for (int i = 0; i < 3; i++) {
        for (int c = 0; c < 3; c++) o[3 * i + c] = p[3 * i] * l[c] + p[3 * i + 1] * l[3 + c] + p[3 * i + 2] * l[6 + c];
        o[9 + i] = p[3 * i] * l[9] + p[3 * i + 1] * l[10] + p[3 * i + 2] * l[11] + p[9 + i];
    }
}

static inline void model_of(const work *w, int e, int j, const float *l, const double *parent_model, double *o) {
    double m[12];
    local_aff(l, m);
    (void)w, (void)e, (void)j;
    if (parent_model) compose(parent_model, m, o);
    else memcpy(o, m, sizeof m);
}

/* Largest distance of the three vertex points of model m from ref. */
static inline double vertex_error(const double *m, const double *ref, double d) {
    double worst = 0.0;
    for (int a = 0; a < 3; a++) {
        double dx = m[a] * d + m[9] - ref[3 * a], dy = m[3 + a] * d + m[10] - ref[3 * a + 1];
        double dz = m[6 + a] * d + m[11] - ref[3 * a + 2];
        double e = dx * dx + dy * dy + dz * dz;
        if (e > worst) worst = e;
    }
    return sqrt(worst);
}

static inline void vertex_points(const double *m, double d, double *out) {
    for (int a = 0; a < 3; a++)
        out[3 * a] = m[a] * d + m[9], out[3 * a + 1] = m[3 + a] * d + m[10], out[3 * a + 2] = m[6 + a] * d + m[11];
}

typedef struct chosen {
    st_ptrack t;
    unsigned char *data;
    float *raw;
    size_t data_bytes, raw_floats;
    int constant;      /* 1: one raw key in raw */
} chosen;

/* The subtree of j into w->sub (j first; parents before children). */
void st_compress_subtree(work *w, int j);
/* one key's error over the subtree in w->sub (clip_compress.c) */
double st_compress_key_error(work *w, int e, const float *l, int off, int width, double worst, double limit, int apply);

/* Per-segment bit rates (ST_PACK_LAT at shift 0) for the T moving tracks
 * ch[0..T-1] (joint, channel set; vals[i]: grid values, K x width), parents
 * first, each segment's error under tol at every joint (shares share[j] of
 * tol while choosing, then lowered to use what is left). w holds the exact
 * poses (loc, mod, ref); loc and mod are changed. Fills ch[i].t and
 * ch[i].data (from al); *cost_bits as the other search counts it. Returns
 * STANCE_ERR_VALUE when a segment cannot meet tol at 31 bits. */
stance_status st_compress_vbr(work *w, int T, chosen *ch, const float *const *vals, double tol, const double *share,
                              stance_allocator *al, size_t *cost_bits, stance_error *err);
/* Bytes st_compress_vbr allocates for T tracks of K keys, J joints (its working set). */
size_t st_compress_vbr_bytes(int T, int K, int J);

/* A segment's range within its track's, in 255ths of the track's range: h[0]
 * the step at or below the segment's lowest value a, h[1] >= 1 the steps up
 * to at or above its highest z (both clamped to 0..255). A constant channel
 * (ext 0) gets 0, 0. */
static inline void seg_head(float min, float ext, float step, float a, float z, unsigned char h[2]) {
    int h0 = 0, h1 = 0;
    if (ext > 0.0f) {
        h0 = (int)floorf((a - min) / step);
        int h2 = (int)ceilf((z - min) / step);
        h0 = h0 < 0 ? 0 : h0 > 255 ? 255 : h0;
        h2 = h2 < h0 ? h0 : h2 > 255 ? 255 : h2;
        h1 = h2 - h0;
        if (h1 == 0 && h0 < 255) h1 = 1;
        else if (h1 == 0) h0--, h1 = 1;
    }
    h[0] = (unsigned char)h0, h[1] = (unsigned char)h1;
}

#endif
