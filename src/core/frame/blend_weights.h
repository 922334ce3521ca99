/* src/core/frame/blend_weights.h - a blend space's entry weights at its
 * parameters' values and its phase rate, inlined where they are read: the
 * advance stage (advance.c, each frame), the curves' query (curves.c), the
 * sync phase (sync_phase.c) and the events of "all" blend spaces
 * (notes.c). Not public. */
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

/* Cycles per second of a blend space at its weights (phase rate). With
 * speed warp, the rate is scaled so the blended root moves at the
 * parameter's value (phase-synced gaits of different stride lengths would
 * otherwise move slower than their weighted speed), within [1/4, 4]. */
ST_FORCEINLINE float blend_phase_rate(const stance_instance *inst, const g_state *s, const float *w) {
    const g_entry *e = inst->graph->entries + s->entry_first;
    float r = 0.0f, stride = 0.0f;
    for (int i = 0; i < s->entry_count; i++)
        if (w[i] > 0.0f) {
            r += w[i] / e[i].clip->duration;
            stride += w[i] * e[i].clip->root_speed * e[i].clip->duration;
        }
    if (s->speed_warp) {
        float v = r * stride, x = inst->params[s->param_x];
        if (v > 1e-4f && x > 0.0f) {
            float k = x / v;
            r *= k < 0.25f ? 0.25f : k > 4.0f ? 4.0f : k;
        }
    }
    return r;
}

#endif
