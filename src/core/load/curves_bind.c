/* src/core/load/curves_bind.c - a compiled graph's curves and drives: the
 * "CURV" trailer (src/build/graph_curves_build.c) read with every count
 * checked against the bytes present, then handed to gr_curves_build
 * (core/graph/graph_curves.c), which checks every value as for a
 * description. */
#include <string.h>

#include "core/load/asset_internal.h"
#include "core/load/curves_bind.h"
#include "core/graph/graph_curves.h"

#define FAIL(...) return st_fail(err, STANCE_ERR_FORMAT, __VA_ARGS__)

stance_status st_curves_bind(stance_graph *g, const unsigned char *body, size_t size, const stance_clip *const *clips,
                             int clip_count, stance_error *err) {
    reader r = {body, body + size, 0};
    const uint32_t names = r_u32(&r);
    if (r.bad || names > STANCE_MAX_CURVES || (size_t)names * G_NAME > r_left(&r))
        FAIL("graph: the curves name %u curves (at most %d) in %zu bytes", (unsigned)names, STANCE_MAX_CURVES, size);
    const unsigned char *name_at = r.p;
    r.p += (size_t)names * G_NAME;
    const uint32_t tracks = r_u32(&r);
    if (r.bad || tracks > (uint32_t)clip_count * names || (size_t)tracks * 12 > r_left(&r))
        FAIL("graph: the curves have %u tracks (%d clips x %u curves at most) or end early", (unsigned)tracks, clip_count,
             (unsigned)names);
    const unsigned char *track_at = r.p;
    for (uint32_t i = 0; i < tracks; i++) { /* pass 1: the counts against the bytes present */
        const uint32_t clip = r_u32(&r), curve = r_u32(&r), keys = r_u32(&r);
        if (r.bad || clip >= (uint32_t)clip_count || curve >= names || keys < 1 || keys > STANCE_MAX_CURVE_KEYS ||
            (size_t)keys * 8 > r_left(&r))
            FAIL("graph: curve track %u: clip %u (of %d), curve %u (of %u) or %u keys (1..%d) out of range or past the end",
                 (unsigned)i, (unsigned)clip, clip_count, (unsigned)curve, (unsigned)names, (unsigned)keys, STANCE_MAX_CURVE_KEYS);
        r.p += (size_t)keys * 8;
    }
    const uint32_t drives = r_u32(&r);
    if (r.bad || drives > (uint32_t)(g->param_count + g->layer_count + g->ik_count) || (size_t)drives * 16 != r_left(&r))
        FAIL("graph: the curves' %u drives do not fill the trailer's last %zu bytes", (unsigned)drives, r_left(&r));
    const size_t bytes = (size_t)G_NAME * (names + 1) + sizeof(gr_track_src) * (tracks + 1) + sizeof(g_drive) * (drives + 1) +
                         sizeof(float) * 2 * (size / 8 + 1);
    unsigned char *mem = st_alloc(&g->allocator, bytes, 16);
    if (!mem) return st_fail(err, STANCE_ERR_MEMORY, "graph: allocation of %zu bytes failed", bytes);
    char(*nm)[G_NAME] = (char(*)[G_NAME])mem;
    gr_track_src *tr = (gr_track_src *)(mem + (size_t)G_NAME * (names + 1));
    g_drive *dr = (g_drive *)(tr + tracks + 1);
    float *kv = (float *)(dr + drives + 1);
    memcpy(nm, name_at, (size_t)names * G_NAME);
    reader t = {track_at, body + size, 0};
    for (uint32_t i = 0; i < tracks; i++) {
        tr[i].clip = clips[r_u32(&t)];
        tr[i].curve = (int)r_u32(&t);
        tr[i].key_count = (int)r_u32(&t);
        tr[i].keys = kv;
        r_f32n(&t, kv, 2 * (size_t)tr[i].key_count);
        kv += 2 * (size_t)tr[i].key_count;
    }
    for (uint32_t i = 0; i < drives; i++) {
        dr[i].target = (int)(int32_t)r_u32(&r), dr[i].index = (int)(int32_t)r_u32(&r);
        dr[i].src_param = (int)(int32_t)r_u32(&r), dr[i].src_curve = (int)(int32_t)r_u32(&r);
    }
    stance_error e = {STANCE_OK, ""};
    stance_status s = gr_curves_build(g, (const char(*)[G_NAME])nm, (int)names, tr, (int)tracks, dr, (int)drives, &e);
    st_free(&g->allocator, mem, bytes);
    if (s == STANCE_ERR_MEMORY) return st_fail(err, s, "%s", e.message);
    if (s) FAIL("graph: the curves: %s", e.message);
    return STANCE_OK;
}
