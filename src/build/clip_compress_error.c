/* src/build/clip_compress_error.c - the compressor's one error walk: a
 * joint's subtree, and the model-space vertex error of a candidate key over
 * it (the measure of clip_compress.c's header comment), used by both
 * searches, the fixed-rate one (clip_compress.c) and the variable-rate one
 * (clip_compress_vbr.c). */
#include <string.h>

#include "build/clip_compress.h"

/* The subtree of j (j first; parents come before children). */
void st_compress_subtree(work *w, int j) {
    w->sub_n = 0;
    w->sub[w->sub_n++] = j;
    for (int d = j + 1; d < w->J; d++) {
        int p = w->sk->parents[d];
        for (int i = 0; i < w->sub_n; i++)
            if (w->sub[i] == p) { w->sub[w->sub_n++] = d; break; }
    }
}

/* Key e of the subtree in w->sub with l as j = w->sub[0]'s local transform
 * (its channel at off, width floats, already set): the model transforms of
 * j and its descendants and their largest vertex error, folded into worst.
 * It stops once worst passes limit unless apply, which also writes l's
 * channel into loc and the model transforms into mod (else into tmp). The
 * one walk both searches measure a candidate with. */
double st_compress_key_error(work *w, int e, const float *l, int off, int width, double worst, double limit, int apply) {
    const int J = w->J, j = w->sub[0], parent = w->sk->parents[j];
    float *le = w->loc + (size_t)e * (size_t)J * 10;
    double *me = w->mod + (size_t)e * (size_t)J * 12, *re = w->ref + (size_t)e * (size_t)J * 9;
    double *out = apply ? me : w->tmp;
    if (apply) memcpy(le + (size_t)j * 10 + off, l + off, sizeof(float) * (size_t)width);
    model_of(w, e, j, l, parent >= 0 ? me + (size_t)parent * 12 : NULL, out + (size_t)j * 12);
    double err = vertex_error(out + (size_t)j * 12, re + (size_t)j * 9, w->dist);
    if (err > worst) worst = err;
    for (int i = 1; i < w->sub_n && (apply || worst <= limit); i++) {
        int d = w->sub[i], p = w->sk->parents[d];
        model_of(w, e, d, le + (size_t)d * 10, out + (size_t)p * 12, out + (size_t)d * 12);
        err = vertex_error(out + (size_t)d * 12, re + (size_t)d * 9, w->dist);
        if (err > worst) worst = err;
    }
    return worst;
}
