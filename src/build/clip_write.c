/* src/build/clip_write.c - one CLIP section of the .stance format
 * (libstance_build), exact or compressed, with its events and root path:
 * exactly what the runtime's readers read (src/core/load/asset_clip.c,
 * asset_packed.c, asset_events.c; the layout in src/core/load/asset.c).
 * Written by the asset writer (asset_write.c) and, for a graph's delta
 * clips, by the GRPH writer (graph_write.c). */
#include <string.h>

#include "build/write.h"
#include "core/clip/clip_lattice.h"
#include "core/clip/clip_packed.h"

static void write_events_root(writer *w, const stance_clip *c) {
    w_u32(w, (uint32_t)c->event_count);
    for (int i = 0; i < c->event_count; i++) {
        w_name(w, c->events[i].name);
        w_f32(w, c->events[i].time);
    }
    const int root_n = c->root_key_count;
    w_u32(w, (uint32_t)root_n);
    for (int k = 0; k < root_n; k++) w_f32(w, c->root_times[k]);
    for (int k = 0; k < 3 * root_n; k++) w_f32(w, c->root_values[k]);
    if (c->root_yaw && root_n > 0) /* FLAG_ROOT_YAW */
        for (int k = 0; k < root_n; k++) w_f32(w, c->root_yaw[k]);
    if (c->root_rotation && root_n > 0) /* FLAG_ROOT_ROT */
        for (int k = 0; k < 4 * root_n; k++) w_f32(w, c->root_rotation[k]);
}

static void write_track_head(writer *w, int joint, int channel, int shift, int bits) {
    w_u8(w, (unsigned)joint & 0xFFu);
    w_u8(w, (unsigned)joint >> 8);
    w_u8(w, (unsigned)channel);
    w_u8(w, (unsigned)shift);
    w_u8(w, (unsigned)bits);
}

static void write_packed_clip(writer *w, const stance_clip *c) {
    size_t at = begin_section(w, "CLIP");
    const st_packed *p = c->packed;
    w_name(w, c->name);
    w_f32(w, c->duration);
    w_u32(w, FLAG_PACKED | (c->slerp ? FLAG_SLERP : 0u) | (c->root_from_joint0 ? FLAG_ROOT_JOINT0 : 0u) |
                 (c->root_yaw && !p->root_derived ? FLAG_ROOT_YAW : 0u) | (c->root_rotation && !p->root_derived ? FLAG_ROOT_ROT : 0u));
    w_f32(w, c->root_speed);
    w_u32(w, (uint32_t)c->key_count);
    w_u8(w, p->uniform_grid ? 1u : 0u);
    if (p->uniform_grid) w_f32(w, c->times[1]);
    else
        for (int k = 0; k < c->key_count; k++) w_f32(w, c->times[k]);
    w_f32(w, p->max_error);
    w_f32(w, p->vertex_distance);
    w_u32(w, (uint32_t)(p->const_count + p->track_count));
    for (int i = 0; i < p->const_count; i++) {
        const st_ptrack_desc *t = &p->consts[i];
        write_track_head(w, t->joint, t->channel, 0, 0);
        for (int e = 0; e < (t->channel == 1 ? 4 : 3); e++) w_f32(w, t->values[e]);
    }
    for (int i = 0; i < p->track_count; i++) {
        const st_ptrack *t = &p->tracks[i];
        const int width = t->channel == 1 ? 4 : 3;
        write_track_head(w, t->joint, t->channel, t->shift, t->bits);
        if (t->bits == ST_PACK_RAW) {
            for (size_t k = 0; k < (size_t)t->n * (size_t)width; k++) w_f32(w, p->raw[t->offset + k]);
        } else if (t->bits == ST_PACK_LAT) {
            for (int e = 0; e < 3; e++) w_f32(w, t->min[e]);
            for (int e = 0; e < 3; e++) w_f32(w, t->ext[e]);
            w_bytes(w, p->data + t->offset, st_lat_bytes(t->n, p->data + t->offset, SIZE_MAX));
        } else if (st_is_vbr(t->bits)) {
            for (int e = 0; e < 3; e++) w_f32(w, t->min[e]);
            for (int e = 0; e < 3; e++) w_f32(w, t->ext[e]);
            w_bytes(w, p->data + t->offset, st_vbr_bytes(t->n, p->data + t->offset));
        } else {
            for (int e = 0; e < 3; e++) w_f32(w, t->min[e]);
            for (int e = 0; e < 3; e++) w_f32(w, t->ext[e]);
            w_bytes(w, p->data + t->offset, st_ptrack_bytes(t->n, t->bits));
        }
    }
    if (p->root_derived) { /* the path is joint 0's stored translation: events, then no root keys */
        stance_clip shell = *c;
        shell.root_key_count = 0;
        write_events_root(w, &shell);
    } else {
        write_events_root(w, c);
    }
    end_section(w, at);
}

void st_write_clip(writer *w, const stance_clip *c) {
    if (c->packed) {
        write_packed_clip(w, c);
        return;
    }
    size_t at = begin_section(w, "CLIP");
    const int J = c->joint_count, pc = c->padded_count;
    w_name(w, c->name);
    w_f32(w, c->duration);
    w_u32(w, (c->slerp ? FLAG_SLERP : 0u) | (c->root_from_joint0 ? FLAG_ROOT_JOINT0 : 0u) | (c->root_yaw ? FLAG_ROOT_YAW : 0u) |
                 (c->root_rotation ? FLAG_ROOT_ROT : 0u));
    w_f32(w, c->root_speed);
    w_u32(w, (uint32_t)c->key_count);
    for (int k = 0; k < c->key_count; k++) w_f32(w, c->times[k]);
    for (int j = 0; j < J; j++) w_u8(w, c->animated[j] & 7u);
    const int blocks[3] = {c->t_keys, c->r_keys, c->s_keys};
    const float *data[3] = {c->t, c->r, c->s};
    for (int ch = 0; ch < 3; ch++) w_u32(w, (uint32_t)blocks[ch]);
    for (int ch = 0; ch < 3; ch++) {
        const int width = ch == 1 ? 4 : 3;
        for (int j = 0; j < J; j++) {
            if (!(c->animated[j] & (1u << ch))) continue;
            if (ch == 0 && j == 0 && c->root_from_joint0) continue; /* stored as the root path */
            for (int k = 0; k < blocks[ch]; k++) {
                const float *blk = data[ch] + (size_t)k * (size_t)width * (size_t)pc;
                for (int e = 0; e < width; e++) w_f32(w, blk[(size_t)e * (size_t)pc + (size_t)j]);
            }
        }
    }
    write_events_root(w, c);
    end_section(w, at);
}
