/* src/core/load/asset_packed.c - the .stance version 3 and 4 encodings of
 * compressed clips (a CLIP section with flag bit 2): reading one with every
 * track's size checked against the section before anything is allocated
 * (src/build/asset_write.c writes them). The layout is documented in asset.c with the other
 * sections, the track encoding in clip_packed.h; the clip itself is built by
 * st_clip_create_packed, which validates every value. */
#include <string.h>

#include "core/load/asset_internal.h"
#include "core/clip/clip_lattice.h"
#include "core/clip/clip_packed.h"

/* A version 3 or 4 compressed clip, after its header (K in 1..max keys).
 * Every track's size is checked before anything is allocated. */
stance_status st_asset_load_packed_clip(reader *r, const stance_skeleton *sk, const stance_allocator *al, int index,
                                 const char *name, float duration, uint32_t flags, float root_speed, uint32_t K,
                                 uint32_t version, stance_clip **out, stance_error *err) {
    scratch s = {al, {0}, {0}, 0};
    stance_status st = STANCE_OK;
    const uint32_t J = (uint32_t)sk->joint_count;
    const unsigned grid = version >= 4 ? r_u8(r) : 0u;
    /* explicit times are in the section; a uniform grid needs K / 4 bytes of keys */
    if (r->bad || grid > 1 || (grid == 0 ? r_left(r) / 4 < K : r_left(r) < 4 + K / 4))
        return st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': grid kind %u with %u keys does not fit in the section", index, name, grid, (unsigned)K);
    float *times = scratch_alloc(&s, sizeof(float) * K);
    if (!times) return st_fail(err, STANCE_ERR_MEMORY, "clip %d '%s': allocation failed", index, name);
    if (grid == 1) {
        const float step = r_f32(r);
        for (uint32_t k = 0; k < K; k++) times[k] = (float)k * step;
    } else {
        r_f32n(r, times, K);
    }
    float max_error = r_f32(r), vdist = r_f32(r);
    uint32_t n = r_u32(r);
    if (r->bad || n > 3 * J || r_left(r) / 5 < n) {
        st = st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': track count %u is not in 0..%u or larger than the section", index, name, (unsigned)n, (unsigned)(3 * J));
        goto done;
    }
    size_t floats = 0;
    for (int pass = 0; pass < 2; pass++) {
        reader q = *r;
        st_ptrack_desc *tracks = NULL;
        float *v = NULL;
        if (pass == 1) {
            tracks = scratch_alloc(&s, sizeof(st_ptrack_desc) * (n ? n : 1));
            v = scratch_alloc(&s, sizeof(float) * (floats ? floats : 1));
            if (!tracks || !v) {
                st = st_fail(err, STANCE_ERR_MEMORY, "clip %d '%s': allocation of %u tracks failed", index, name, (unsigned)n);
                goto done;
            }
        }
        for (uint32_t i = 0; i < n; i++) {
            unsigned lo = r_u8(&q), hi = r_u8(&q);
            int joint = (int)(lo | hi << 8), ch = (int)r_u8(&q), shift = (int)r_u8(&q), bits = (int)r_u8(&q);
            if (q.bad || ch > 2 || shift > ST_PACK_MAX_SHIFT || !st_bits_ok(bits) || (bits == ST_PACK_VBR && version < 4) || (bits == ST_PACK_LAT && version < 5)) {
                st = st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': track %u has a bad head (channel %d, shift %d, bits %d)", index, name, (unsigned)i, ch, shift, bits);
                goto done;
            }
            const size_t w = ch == 1 ? 4 : 3, keys = st_ptrack_keys(K, shift);
            const size_t nf = bits == 0 ? w : bits == ST_PACK_RAW ? keys * w : 6;
            size_t nb = bits == 0 || bits == ST_PACK_RAW ? 0 : st_is_vbr(bits) || bits == ST_PACK_LAT ? 0 : st_ptrack_bytes((uint32_t)keys, bits);
            if (bits == ST_PACK_LAT) { /* its codes and size first: they give the stream's size */
                if (r_left(&q) / 4 < nf || !(nb = st_lat_bytes((uint32_t)keys, q.p + 4 * nf, r_left(&q) - 4 * nf))) {
                    st = st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': track %u's segment codes and key stream do not fit in the section", index, name, (unsigned)i);
                    goto done;
                }
            }
            if (st_is_vbr(bits)) { /* the codes first: they give the stream's size */
                const size_t S = st_vbr_segments((uint32_t)keys);
                if (r_left(&q) / 4 < nf || r_left(&q) - 4 * nf < 7 * S) {
                    st = st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': track %u's segment codes and heads do not fit in the section", index, name, (unsigned)i);
                    goto done;
                }
                const unsigned char *codes = q.p + 4 * nf;
                for (size_t g = 0; g < S; g++)
                    if ((codes[g] & 31u) > ST_VBR_MAX_BITS) {
                        st = st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': track %u segment %zu has %u bits (0..%d)", index, name, (unsigned)i, g, codes[g] & 31u, ST_VBR_MAX_BITS);
                        goto done;
                    }
                nb = st_vbr_bytes((uint32_t)keys, codes);
            }
            if (r_left(&q) / 4 < nf || r_left(&q) - 4 * nf < nb) {
                st = st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': track %u's keys do not fit in the section", index, name, (unsigned)i);
                goto done;
            }
            if (pass == 0) {
                floats += nf;
                q.p += 4 * nf + nb;
                continue;
            }
            st_ptrack_desc *t = &tracks[i];
            memset(t, 0, sizeof *t);
            t->joint = joint, t->channel = ch, t->shift = shift, t->bits = bits;
            r_f32n(&q, v, nf);
            if (bits == 0 || bits == ST_PACK_RAW) {
                t->values = v;
            } else {
                memcpy(t->min, v, sizeof t->min);
                memcpy(t->ext, v + 3, sizeof t->ext);
                t->data = q.p;
                t->data_bytes = nb;
                q.p += nb;
            }
            v += nf;
        }
        if (pass == 0) continue;
        *r = q;
        stance_event_desc events[STANCE_MAX_EVENTS];
        char event_names[STANCE_MAX_EVENTS][STANCE_EVENT_NAME];
        uint32_t event_count = 0, root_n = 0;
        float *root = NULL, *yaw = NULL;
        st = st_asset_read_events_root(r, &s, index, name, events, event_names, &event_count, &root_n, &root,
                                       (flags & (FLAG_ROOT_YAW | FLAG_ROOT_ROT)) ? &yaw : NULL, (flags & FLAG_ROOT_ROT) ? 4 : 1, err);
        if (st) goto done;
        st_packed_desc d;
        memset(&d, 0, sizeof d);
        d.name = name, d.duration = duration, d.slerp = (flags & FLAG_SLERP) ? 1 : 0;
        d.key_count = (int)K, d.times = times;
        d.track_count = (int)n, d.tracks = tracks;
        d.event_count = (int)event_count, d.events = events;
        d.root_key_count = (int)root_n, d.root_times = root, d.root_values = root ? root + root_n : NULL;
        d.root_from_joint0 = (flags & FLAG_ROOT_JOINT0) != 0, d.root_speed = root_speed;
        if (flags & FLAG_ROOT_ROT) d.root_rotation = yaw; /* (yaw holds what the flag says) */
        else d.root_yaw = yaw;
        if (version < 4 && root_n == 0) d.root_from_joint0 = 0; /* v3: the path is always explicit */
        d.max_error = max_error, d.vertex_distance = vdist;
        st = st_clip_create_packed(&d, sk, al, out, err);
    }
done:
    scratch_release(&s);
    return st;
}

