/* src/build/write.h - the byte-level writer of the .stance format
 * (libstance_build): two passes, the first measures (buf NULL), the second
 * writes; little-endian values, names as u8 length and bytes, section heads
 * whose size end_section patches. The readers and the format's constants are
 * the runtime's (src/core/load/asset_internal.h). Not public. */
#ifndef STANCE_BUILD_WRITE_H
#define STANCE_BUILD_WRITE_H

#include <stdint.h>
#include <string.h>

#include "core/load/asset_internal.h"

typedef struct writer {
    unsigned char *buf;
    size_t pos;
} writer;

static inline void w_bytes(writer *w, const void *p, size_t n) {
    if (w->buf && n) memcpy(w->buf + w->pos, p, n);
    w->pos += n;
}
static inline void w_u8(writer *w, unsigned v) {
    unsigned char b = (unsigned char)v;
    w_bytes(w, &b, 1);
}
static inline void w_u32(writer *w, uint32_t v) {
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    w_bytes(w, b, 4);
}
static inline void w_u64(writer *w, uint64_t v) {
    w_u32(w, (uint32_t)v);
    w_u32(w, (uint32_t)(v >> 32));
}
static inline void w_f32(writer *w, float f) {
    uint32_t v;
    memcpy(&v, &f, 4);
    w_u32(w, v);
}
static inline void w_name(writer *w, const char *s) {
    size_t n = strlen(s);
    w_u8(w, (unsigned)n);
    w_bytes(w, s, n);
}
/* A section head whose size is patched by end_section. */
static inline size_t begin_section(writer *w, const char tag[4]) {
    w_bytes(w, tag, 4);
    w_u32(w, 0);
    size_t at = w->pos;
    w_u64(w, 0);
    return at;
}
static inline void end_section(writer *w, size_t at) {
    if (!w->buf) return;
    size_t size = w->pos - (at + 8);
    writer patch = {w->buf, at};
    w_u64(&patch, (uint64_t)size);
}

/* A CLIP section (its head and body, exact or compressed: src/build/asset_write.c). */
void st_write_clip(writer *w, const stance_clip *c);

#endif
