/* src/core/frame/blend_weights.h - a blend space's entry weights at its
 * parameters' values, inlined where they are read: the advance stage
 * (advance.c, each frame) and the curves' query (curves.c). Not public. */
#ifndef STANCE_BLEND_WEIGHTS_H
#define STANCE_BLEND_WEIGHTS_H

#include "core/base/platform.h"
#include "core/frame/instance_internal.h"

/* Blend space weights into w (entry_count of them). */
ST_FORCEINLINE void blend_weights(const stance_instance *inst, const g_state *s, float *w) {
    const g_entry *e = inst->graph->entries + s->entry_first;
    const int n = s->entry_count;
    float x = inst->params[s->param_x];
    for (int i = 0; i < n; i++) w[i] = 0.0f;
    if (s->type == STANCE_MOTION_BLEND1D) {
        if (x <= e[0].x) { w[0] = 1.0f; return; }
        if (x >= e[n - 1].x) { w[n - 1] = 1.0f; return; }
        for (int i = 0; i + 1 < n; i++)
            if (x >= e[i].x && x <= e[i + 1].x) {
                float u = (x - e[i].x) / (e[i + 1].x - e[i].x);
                w[i] = 1.0f - u, w[i + 1] = u;
                if (w[i] < 1e-6f) w[i] = 0.0f;
                if (w[i + 1] < 1e-6f) w[i + 1] = 0.0f;
                return;
            }
        return;
    }
    /* 2D: gradient band interpolation (cartesian). Each entry's weight is the
     * smallest of its bands towards every other entry; it needs no
     * triangulation, is exact at the entries and continuous everywhere, and
     * works for any layout of samples. */
    float y = inst->params[s->param_y], total = 0.0f;
    for (int i = 0; i < n; i++) {
        float wi = 1.0f;
        for (int j = 0; j < n; j++) {
            if (j == i) continue;
            float ax = x - e[i].x, ay = y - e[i].y, bx = e[j].x - e[i].x, by = e[j].y - e[i].y;
            float h = 1.0f - (ax * bx + ay * by) / (bx * bx + by * by);
            if (h < wi) wi = h;
        }
        w[i] = wi > 0.0f ? wi : 0.0f;
        total += w[i];
    }
    if (total > 0.0f)
        for (int i = 0; i < n; i++) w[i] /= total;
    else
        w[0] = 1.0f;
}

#endif
