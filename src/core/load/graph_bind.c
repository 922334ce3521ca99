/* src/core/load/graph_bind.c - binding a compiled graph: the GRPH section of
 * format 2 (graph_layout.h) read into one block, pointers fixed up from the
 * indices the file holds, then every value checked (graph_check.c) before
 * the graph is handed out; and stance_graph_destroy.
 *
 * Nothing is trusted: every row's tag, count and size is checked against
 * the table and the bytes present before anything is allocated (the block is
 * a few times the section's size at most), every field against its range as
 * it is read, then the graph's own rules. Nothing here resolves a name or
 * samples a clip; the delta clips are the exact CLIP sections the builder
 * wrote, built through the clip loader (src/core/load/asset.c). */
#include <stdio.h>
#include <string.h>

#include "core/load/asset_internal.h"
#include "core/load/graph_bind.h"
#include "core/graph/graph_layout.h"
#include "core/graph/graph_sync.h"
#include "core/graph/graph_curves.h"
#include "core/load/curves_bind.h"

#define FAIL(...) return st_fail(err, STANCE_ERR_FORMAT, __VA_ARGS__)

typedef struct row_in {
    uint32_t count;
    uint32_t bytes;
    const unsigned char *payload;
    size_t at;                  /* the array's offset in the block */
} row_in;

typedef struct binder {
    stance_graph *g;
    const stance_clip *const *clips;
    int clip_count;
    int ref_count[GL_REFS];     /* what each gl_ref's indices are below */
    row_in rows[GL_ROWS];
    stance_error *err;
} binder;

static uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static float lef32(const unsigned char *p) {
    uint32_t v = le32(p);
    float f;
    memcpy(&f, &v, 4);
    return f;
}

/* What indices of kind `ref` point at, for messages: "state". */
static const char *ref_what(int ref) {
    for (int i = 0; i < GL_ROWS; i++)
        if (gl_rows[i].ref == ref) return gl_rows[i].what;
    return "joint";
}

/* "state 3 'Walk'" */
static const char *who(char *buf, size_t cap, const gl_row *row, int i, const unsigned char *elem) {
    if (row->fields && row->fields[0].kind == GL_NAME && elem)
        snprintf(buf, cap, "%s %d '%.63s'", row->what, i, (const char *)elem + row->fields[0].at);
    else if (row->base == GL_SELF)
        snprintf(buf, cap, "%s", row->what);
    else
        snprintf(buf, cap, "%s %d", row->what, i);
    return buf;
}

/* One record of `row` from p into elem; every value checked against its field's range. */
static stance_status read_record(binder *b, const gl_row *row, int i, const unsigned char *p, unsigned char *elem) {
    stance_error *err = b->err;
    char w[160];
    for (int fi = 0; fi < row->field_count; fi++) {
        const gl_field *f = &row->fields[fi];
        unsigned char *dst = elem + f->at;
        switch (f->kind) {
        case GL_NAME: {
            const unsigned char *z = memchr(p, 0, G_NAME);
            const size_t n = z ? (size_t)(z - p) : G_NAME;
            if (n == 0 || n == G_NAME)
                FAIL("graph: %s %d: its name is empty or has no end within %d bytes", row->what, i, G_NAME);
            memcpy(dst, p, n);
            p += G_NAME;
            break;
        }
        case GL_U64: {
            const uint64_t v = (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
            memcpy(dst, &v, 8);
            p += 8;
            break;
        }
        case GL_F32:
            for (int k = 0; k < f->n; k++, p += 4) {
                const float v = lef32(p);
                if (!st_finite(v) || v < f->lo || v > f->hi)
                    FAIL("graph: %s: %s %g is not %sin [%g, %g]", who(w, sizeof w, row, i, elem), f->name, (double)v,
                         st_finite(v) ? "" : "finite and ", (double)f->lo, (double)f->hi);
                memcpy(dst + 4 * (size_t)k, &v, 4);
            }
            break;
        case GL_I32:
            for (int k = 0; k < f->n; k++, p += 4) {
                const int v = (int)(int32_t)le32(p);
                if (f->ref == GL_FIXED) {
                    if ((float)v < f->lo || (float)v > f->hi)
                        FAIL("graph: %s: %s %d is not in %d..%d", who(w, sizeof w, row, i, elem), f->name, v, (int)f->lo,
                             (int)f->hi);
                } else if (v < (int)f->lo || v >= b->ref_count[f->ref]) {
                    FAIL("graph: %s: %s %d is not %s0..%d (the graph's %ss)", who(w, sizeof w, row, i, elem), f->name, v,
                         f->lo < 0.0f ? "-1 or " : "", b->ref_count[f->ref] - 1, ref_what(f->ref));
                }
                memcpy(dst + 4 * (size_t)k, &v, 4);
            }
            break;
        case GL_CLIP:
        case GL_DELTA: {
            const int v = (int)(int32_t)le32(p), n = f->kind == GL_CLIP ? b->clip_count : b->g->delta_count;
            p += 4;
            if (v < -1 || v >= n)
                FAIL("graph: %s: %s %d is not -1 or 0..%d (the %s)", who(w, sizeof w, row, i, elem), f->name, v, n - 1,
                     f->kind == GL_CLIP ? "file's clips" : "graph's delta clips");
            const stance_clip *c = v < 0 ? NULL : f->kind == GL_CLIP ? b->clips[v] : b->g->deltas[v];
            memcpy(dst, &c, sizeof c);
            break;
        }
        default:
            FAIL("graph: internal error: unknown field kind");
        }
    }
    return STANCE_OK;
}

/* The delta clips: exact CLIP sections, each built by the clip loader. */
static stance_status read_deltas(binder *b, const row_in *in, const stance_allocator *al) {
    stance_error *err = b->err;
    stance_graph *g = b->g;
    reader r = {in->payload, in->payload + in->bytes, 0};
    for (uint32_t i = 0; i < in->count; i++) {
        char tag[4];
        r_take(&r, tag, 4);
        const uint32_t zero = r_u32(&r);
        const uint64_t len = r_u64(&r);
        if (r.bad || memcmp(tag, "CLIP", 4) || zero != 0 || len > r_left(&r))
            FAIL("graph: delta clip %u: not a CLIP section within the row", (unsigned)i);
        reader body = {r.p, r.p + len, 0};
        r.p += len;
        stance_error e = {STANCE_OK, ""};
        stance_clip *c = NULL;
        stance_status s = st_asset_load_clip(&body, g->skeleton, al, (int)i, 2u /* exact clips only */, &c, &e);
        if (s) return st_fail(err, s, "graph: delta %s", e.message);
        g->deltas[g->delta_count++] = c;
    }
    if (r_left(&r) != 0) FAIL("graph: the delta clips' row is larger than its %u clips", (unsigned)in->count);
    return STANCE_OK;
}

/* The additive reference poses: each pose's memory as laid out (channels of padded_count floats). */
static stance_status read_poses(binder *b, const row_in *in, unsigned char *mem) {
    stance_error *err = b->err;
    stance_graph *g = b->g;
    const int J = g->skeleton->joint_count, pc = st_pad8(J);
    const size_t pb = stance_pose_bytes(J);
    unsigned char *pm = mem + st_align_up(in->at + sizeof(stance_pose) * in->count, 64);
    const unsigned char *p = in->payload;
    for (uint32_t i = 0; i < in->count; i++) {
        stance_pose *pose = &g->ref_poses[i];
        stance_pose_init(pose, J, pm + pb * i, pb, NULL);
        float *ch[10] = {pose->tx, pose->ty, pose->tz, pose->qx, pose->qy, pose->qz, pose->qw, pose->sx, pose->sy, pose->sz};
        for (int c = 0; c < 10; c++)
            for (int j = 0; j < pc; j++, p += 4) {
                ch[c][j] = lef32(p);
                if (!st_finite(ch[c][j])) FAIL("graph: reference pose %u: a value is not finite", (unsigned)i);
            }
        for (int j = 0; j < J; j++) {
            const float t[3] = {pose->tx[j], pose->ty[j], pose->tz[j]}, q[4] = {pose->qx[j], pose->qy[j], pose->qz[j], pose->qw[j]};
            const float s[3] = {pose->sx[j], pose->sy[j], pose->sz[j]};
            char why[160];
            if (st_check_trs(t, q, s, why, sizeof why)) FAIL("graph: reference pose %u: joint %d: %s", (unsigned)i, j, why);
        }
    }
    return STANCE_OK;
}

/* The contacts row: its layout is walked once before anything is allocated
 * (its block bytes), then read into the block. */
static size_t contact_block_bytes(uint32_t foot_count, uint32_t samples) {
    const size_t n = (size_t)foot_count * samples;
    return st_align_up(sizeof(stance_contacts), 16) + st_align_up(n, 16) + st_align_up(sizeof(float) * n, 16);
}
static stance_status walk_contacts(binder *b, const row_in *in, size_t *bytes) {
    stance_error *err = b->err;
    const unsigned char *p = in->payload, *end = p + in->bytes;
    *bytes = 0;
    for (uint32_t i = 0; i < in->count; i++) {
        if (end - p < 4) FAIL("graph: contacts %u: the row ends inside it", (unsigned)i);
        const uint32_t present = le32(p);
        p += 4;
        if (present > 1) FAIL("graph: contacts %u: present flag %u is not 0 or 1", (unsigned)i, (unsigned)present);
        if (!present) continue;
        if (end - p < GL_CONTACT_HEAD) FAIL("graph: contacts %u: the row ends inside it", (unsigned)i);
        const uint32_t F = le32(p), n = le32(p + 28);
        p += GL_CONTACT_HEAD;
        if (F < 1 || F > STANCE_FOOT_MAX || n < 1 || n > STANCE_MAX_KEYS || (size_t)(end - p) / 5 / F < n)
            FAIL("graph: contacts %u: %u feet and %u samples do not fit the row (1..%d feet)", (unsigned)i, (unsigned)F,
                 (unsigned)n, STANCE_FOOT_MAX);
        p += 5 * (size_t)F * n;
        *bytes += contact_block_bytes(F, n);
    }
    if (p != end) FAIL("graph: the contacts row is larger than its %u slots", (unsigned)in->count);
    return STANCE_OK;
}
/* Slot layout after its flag (GL_CONTACT_HEAD bytes): i32 foot_count at 0, i32 feet[4] at 4, f32 duration at 20,
 * f32 rate at 24, i32 sample_count at 28, i32 from_events at 32, f32 lowest[4] at 36 (graph_layout.h). */
static void read_contacts(binder *b, const row_in *in, unsigned char *mem) {
    stance_graph *g = b->g;
    unsigned char *at = mem + st_align_up(in->at + sizeof(stance_contacts *) * in->count, 64);
    const unsigned char *p = in->payload;
    for (uint32_t i = 0; i < in->count; i++) {
        const uint32_t present = le32(p);
        p += 4;
        if (!present) continue;
        const unsigned char *h = p;
        const uint32_t F = le32(h), n = le32(h + 28);
        stance_contacts *c = (stance_contacts *)at;
        unsigned char *planted = at + st_align_up(sizeof(stance_contacts), 16);
        float *height = (float *)(planted + st_align_up((size_t)F * n, 16));
        at += contact_block_bytes(F, n);
        c->foot_count = (int)F;
        for (int f = 0; f < STANCE_FOOT_MAX; f++) {
            c->feet[f] = (int)(int32_t)le32(h + 4 + 4 * f);
            c->lowest[f] = lef32(h + 36 + 4 * f);
        }
        c->duration = lef32(h + 20);
        c->rate = lef32(h + 24);
        c->sample_count = (int)n;
        c->from_events = (int)(int32_t)le32(h + 32);
        p = h + GL_CONTACT_HEAD;
        memcpy(planted, p, (size_t)F * n);
        p += (size_t)F * n;
        for (size_t k = 0; k < (size_t)F * n; k++, p += 4) height[k] = lef32(p);
        c->planted = planted, c->height = height;
        g->contacts[i] = c;
    }
}

/* The blend events' trailer (graph_write.c): the states whose blend events
 * are "all" (graph_notes.c checks that each is a blend space). */
static stance_status bind_blend_events(binder *b, const unsigned char *p, size_t size) {
    stance_error *err = b->err;
    stance_graph *g = b->g;
    reader r = {p, p + size, 0};
    const uint32_t n = r_u32(&r);
    if (r.bad || n == 0 || n > (uint32_t)g->state_count || g->state_count > STANCE_MAX_STATES || (size_t)n * 4 != r_left(&r))
        FAIL("graph: the blend events name %u states in %zu bytes (the graph has %d states)", (unsigned)n, size, g->state_count);
    unsigned char all[STANCE_MAX_STATES];
    memset(all, 0, sizeof all);
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t k = r_u32(&r);
        if (k >= (uint32_t)g->state_count || k >= STANCE_MAX_STATES || all[k])
            FAIL("graph: blend events %u: state %u of %d, or given twice", (unsigned)i, (unsigned)k, g->state_count);
        all[k] = 1;
    }
    stance_error e = {STANCE_OK, ""};
    const stance_status s = gr_notes_blend_all(g, all, &e);
    if (s == STANCE_ERR_MEMORY) return st_fail(err, s, "%s", e.message);
    if (s) FAIL("graph: the blend events: %s", e.message);
    return STANCE_OK;
}

/* The clip notes' trailer (graph_write.c) into g's notes (graph_notes.c
 * checks every value); without one, the clips' own events alone. */
static stance_status bind_notes(binder *b, const unsigned char *p, size_t size) {
    stance_error *err = b->err;
    stance_graph *g = b->g;
    if (!p) return gr_notes_build(g, NULL, 0, err);
    reader r = {p + 4, p + size, 0};
    const uint32_t n = r_u32(&r);
    if (r.bad || n == 0 || n > (uint32_t)b->clip_count) FAIL("graph: the notes name %u clips, the file has %d", (unsigned)n, b->clip_count);
    size_t events = 0, windows = 0;
    for (uint32_t i = 0; i < n; i++) { /* pass 1: the counts against the bytes present */
        const uint32_t clip = r_u32(&r), e = r_u32(&r), w = r_u32(&r);
        if (r.bad) FAIL("graph: the notes end inside clip %u's head", (unsigned)i);
        if (clip >= (uint32_t)b->clip_count || e > STANCE_MAX_EVENTS || w > STANCE_MAX_WINDOWS)
            FAIL("graph: notes %u: clip %u (of %d), %u events (at most %d) or %u windows (at most %d)", (unsigned)i,
                 (unsigned)clip, b->clip_count, (unsigned)e, STANCE_MAX_EVENTS, (unsigned)w, STANCE_MAX_WINDOWS);
        const size_t need = (size_t)e * (STANCE_EVENT_NAME + 20 + STANCE_PAYLOAD_STRING_MAX + 1) + (size_t)w * (STANCE_EVENT_NAME + 12);
        if (need > r_left(&r)) FAIL("graph: notes %u: its %u events and %u windows go beyond the section", (unsigned)i,
                                    (unsigned)e, (unsigned)w);
        r.p += need;
        events += e, windows += w;
    }
    if (r_left(&r) != 0) FAIL("graph: %zu bytes after the notes", r_left(&r));
    const size_t bytes = sizeof(gr_notes_src) * n + sizeof(g_authored) * events + sizeof(g_window) * windows;
    unsigned char *mem = st_alloc(&g->allocator, bytes, 16);
    if (!mem) return st_fail(err, STANCE_ERR_MEMORY, "graph: allocation of %zu bytes failed", bytes);
    gr_notes_src *src = (gr_notes_src *)mem;
    g_authored *au = (g_authored *)(mem + sizeof(gr_notes_src) * n);
    g_window *wi = (g_window *)(au + events);
    r.p = p + 8;
    for (uint32_t i = 0; i < n; i++) {
        src[i].clip = b->clips[r_u32(&r)];
        src[i].event_count = (int)r_u32(&r), src[i].window_count = (int)r_u32(&r);
        src[i].events = au, src[i].windows = wi;
        for (int k = 0; k < src[i].event_count; k++, au++) {
            r_take(&r, au->name, STANCE_EVENT_NAME);
            au->time = r_f32(&r), au->min_weight = r_f32(&r);
            au->payload.flags = r_u32(&r);
            au->payload.i = (int)(int32_t)r_u32(&r);
            au->payload.f = r_f32(&r);
            r_take(&r, au->payload.s, sizeof au->payload.s);
        }
        for (int k = 0; k < src[i].window_count; k++, wi++) {
            r_take(&r, wi->name, STANCE_EVENT_NAME);
            wi->from = r_f32(&r), wi->to = r_f32(&r), wi->min_weight = r_f32(&r);
        }
    }
    stance_error e = {STANCE_OK, ""};
    stance_status s = gr_notes_build(g, src, (int)n, &e);
    st_free(&g->allocator, mem, bytes);
    if (s == STANCE_ERR_MEMORY) return st_fail(err, s, "%s", e.message);
    if (s) FAIL("graph: the notes: %s", e.message);
    return STANCE_OK;
}

/* The sync trailer (graph_write.c) into g's sync groups and markers
 * (graph_sync.c checks every value). */
static stance_status bind_sync(binder *b, const unsigned char *p, size_t size) {
    stance_error *err = b->err;
    stance_graph *g = b->g;
    reader r = {p, p + size, 0};
    const uint32_t groups = r_u32(&r);
    if (r.bad || groups > G_MAX_SYNC_GROUPS || (size_t)groups * G_NAME > r_left(&r))
        FAIL("graph: the sync trailer names %u groups (at most %d) in %zu bytes", (unsigned)groups, G_MAX_SYNC_GROUPS, size);
    char names[G_MAX_SYNC_GROUPS][G_NAME];
    for (uint32_t k = 0; k < groups; k++) {
        r_take(&r, names[k], G_NAME);
        names[k][G_NAME - 1] = 0;
    }
    const uint32_t states = r_u32(&r);
    if (r.bad || states != (uint32_t)g->state_count || (size_t)states * 4 > r_left(&r))
        FAIL("graph: the sync trailer has %u states, the graph %d", (unsigned)states, g->state_count);
    const unsigned char *sg = r.p;
    r.p += (size_t)states * 4;
    const uint32_t clips = r_u32(&r);
    if (r.bad || clips > (uint32_t)b->clip_count) FAIL("graph: the sync trailer names %u clips, the file has %d", (unsigned)clips, b->clip_count);
    const size_t bytes = sizeof(const char *) * (states + 1) + sizeof(stance_clip_sync_desc) * (clips + 1) +
                         sizeof(stance_marker_desc) * (size_t)(clips + 1) * STANCE_MAX_MARKERS +
                         (size_t)(clips + 1) * STANCE_MAX_MARKERS * STANCE_EVENT_NAME;
    unsigned char *mem = st_alloc(&g->allocator, bytes, 16);
    if (!mem) return st_fail(err, STANCE_ERR_MEMORY, "graph: allocation of %zu bytes failed", bytes);
    const char **sn = (const char **)mem;
    stance_clip_sync_desc *cd = (stance_clip_sync_desc *)(mem + sizeof(const char *) * (states + 1));
    stance_marker_desc *md = (stance_marker_desc *)(cd + clips + 1);
    char (*mn)[STANCE_EVENT_NAME] = (char(*)[STANCE_EVENT_NAME])(md + (size_t)(clips + 1) * STANCE_MAX_MARKERS);
    stance_status s = STANCE_OK;
    int any = 0;
    for (uint32_t i = 0; i < states && !s; i++) {
        reader q = {sg + 4 * i, sg + 4 * i + 4, 0};
        const int32_t k = (int32_t)r_u32(&q);
        if (k < -1 || k >= (int32_t)groups) s = st_fail(err, STANCE_ERR_FORMAT, "graph: sync: state %u's group %d of %u", (unsigned)i, (int)k, (unsigned)groups);
        sn[i] = k >= 0 ? names[k] : NULL, any |= k >= 0;
    }
    int m = 0;
    for (uint32_t c = 0; c < clips && !s; c++) {
        const uint32_t ci = r_u32(&r);
        cd[c].speed = r_f32(&r);
        const uint32_t count = r_u32(&r);
        if (r.bad || ci >= (uint32_t)b->clip_count || count > STANCE_MAX_MARKERS ||
            (size_t)count * (STANCE_EVENT_NAME + 4) > r_left(&r)) {
            s = st_fail(err, STANCE_ERR_FORMAT, "graph: sync clip %u: clip %u (of %d) or %u markers (at most %d) beyond the "
                        "trailer", (unsigned)c, (unsigned)ci, b->clip_count, (unsigned)count, STANCE_MAX_MARKERS);
            break;
        }
        cd[c].clip = b->clips[ci], cd[c].marker_count = (int)count, cd[c].markers = md + m;
        for (uint32_t k = 0; k < count; k++, m++) {
            r_take(&r, mn[m], STANCE_EVENT_NAME);
            mn[m][STANCE_EVENT_NAME - 1] = 0;
            md[m].name = mn[m], md[m].time = r_f32(&r);
        }
    }
    if (!s && (r.bad || r_left(&r) != 0)) s = st_fail(err, STANCE_ERR_FORMAT, "graph: %zu bytes after the sync trailer", r_left(&r));
    if (!s) {
        stance_error e = {STANCE_OK, ""};
        s = gr_sync_build(g, any ? sn : NULL, cd, (int)clips, &e);
        if (s == STANCE_ERR_MEMORY) s = st_fail(err, s, "%s", e.message);
        else if (s) s = st_fail(err, STANCE_ERR_FORMAT, "graph: the sync trailer: %s", e.message);
    }
    st_free(&g->allocator, mem, bytes);
    return s;
}

void stance_graph_destroy(stance_graph *g) {
    if (!g) return;
    gr_notes_destroy(g);
    gr_sync_destroy(g);
    gr_curves_destroy(g);
    for (int i = 0; i < g->delta_count; i++) stance_clip_destroy(g->deltas[i]);
    stance_allocator al = g->allocator;
    st_free(&al, g, g->bytes);
}

stance_status st_graph_bind(const unsigned char *body, size_t size, const stance_skeleton *sk,
                            const stance_clip *const *clips, int clip_count, const stance_allocator *allocator,
                            stance_graph **out, stance_error *err) {
    *out = NULL;
    const int J = sk->joint_count, pc = st_pad8(J);
    reader r = {body, body + size, 0};
    const uint32_t format = r_u32(&r), joints = r_u32(&r), rows = r_u32(&r);
    if (r.bad) FAIL("graph: the section ends inside its head");
    if (format != GL_FORMAT)
        return st_fail(err, STANCE_ERR_UNSUPPORTED, "graph: section format %u, this build binds %u", (unsigned)format, GL_FORMAT);
    if ((int)joints != J) FAIL("graph: compiled for %u joints, the file's skeleton has %d", (unsigned)joints, J);
    if (rows != GL_ROWS) FAIL("graph: %u arrays, this build's compiled graph has %d", (unsigned)rows, GL_ROWS);
    binder b;
    memset(&b, 0, sizeof b);
    b.clips = clips, b.clip_count = clip_count, b.err = err;
    /* pass 1: every row's head against the table and the bytes present, and the block's size */
    size_t bytes = st_align_up(sizeof(stance_graph), 64);
    for (int i = 0; i < GL_ROWS; i++) {
        const gl_row *row = &gl_rows[i];
        row_in *in = &b.rows[i];
        char tag[4];
        r_take(&r, tag, 4);
        in->count = r_u32(&r);
        in->bytes = r_u32(&r);
        if (r.bad) FAIL("graph: the section ends inside array %d's head ('%s')", i, row->tag);
        if (memcmp(tag, row->tag, 4)) FAIL("graph: array %d is not '%s' (the arrays in this build's order)", i, row->tag);
        if (in->count > (uint32_t)row->cap)
            FAIL("graph: the %s array has %u records, more than %d", row->what, (unsigned)in->count, row->cap);
        if (in->bytes > r_left(&r)) FAIL("graph: the %s array's %u bytes go beyond the section", row->what, (unsigned)in->bytes);
        uint64_t want = 0; /* the bytes its records take (at least, for the rows of variable records) */
        if (row->kind == GL_RECORDS) want = (uint64_t)in->count * gl_record_bytes(row);
        else if (row->kind == GL_POSES) want = (uint64_t)in->count * 40u * (uint64_t)pc;
        else want = (uint64_t)in->count * (row->kind == GL_DELTAS ? 16u : 4u);
        if ((row->kind == GL_RECORDS || row->kind == GL_POSES) ? want != in->bytes : want > in->bytes)
            FAIL("graph: the %s array's %u records take %s%llu bytes, it has %u", row->what, (unsigned)in->count,
                 row->kind == GL_RECORDS || row->kind == GL_POSES ? "" : "at least ", (unsigned long long)want,
                 (unsigned)in->bytes);
        if (row->base == GL_SELF && in->count != 1) FAIL("graph: the head array has %u records, not 1", (unsigned)in->count);
        in->payload = r.p;
        r.p += in->bytes;
        if (row->base == GL_SELF) continue;
        in->at = bytes;
        size_t need = row->elem * in->count;
        if (row->kind == GL_POSES) need = st_align_up(need, 64) + stance_pose_bytes(J) * in->count;
        if (row->kind == GL_CONTACTS) {
            size_t extra;
            stance_status s = walk_contacts(&b, in, &extra);
            if (s) return s;
            need = st_align_up(need, 64) + extra;
        }
        bytes = st_align_up(bytes + need, 64);
    }
    const unsigned char *sync = NULL; /* the sync trailer (graph_write.c), when the graph has groups or markers */
    size_t sync_size = 0;
    if (r_left(&r) >= 8 && !memcmp(r.p, "SYNC", 4)) {
        r.p += 4;
        sync_size = r_u32(&r);
        if (sync_size > r_left(&r)) FAIL("graph: the sync trailer's %zu bytes go beyond the section", sync_size);
        sync = r.p, r.p += sync_size;
    }
    const unsigned char *notes = NULL; /* the clip notes' trailer (graph_write.c), when the graph has any */
    size_t notes_size = 0;
    const unsigned char *curves = NULL; /* the curves' trailer before it (curves_bind.c), when any */
    size_t curves_size = 0;
    if (r_left(&r) >= 8 && !memcmp(r.p, "CURV", 4)) {
        r.p += 4;
        curves_size = r_u32(&r);
        if (curves_size > r_left(&r)) FAIL("graph: the curves' %zu bytes go beyond the section", curves_size);
        curves = r.p, r.p += curves_size;
    }
    const unsigned char *bevt = NULL; /* blend spaces whose events are "all" (graph_write.c), when any */
    size_t bevt_size = 0;
    if (r_left(&r) >= 8 && !memcmp(r.p, "BEVT", 4)) {
        r.p += 4;
        bevt_size = r_u32(&r);
        if (bevt_size > r_left(&r)) FAIL("graph: the blend events' %zu bytes go beyond the section", bevt_size);
        bevt = r.p, r.p += bevt_size;
    }
    if (r_left(&r) != 0) {
        if (r_left(&r) < 8 || memcmp(r.p, "NOTE", 4)) FAIL("graph: %zu bytes after the last array", r_left(&r));
        notes = r.p, notes_size = r_left(&r);
    }
    /* the counts every index is checked against */
    for (int i = 0; i < GL_ROWS; i++)
        if (gl_rows[i].ref != GL_FIXED) b.ref_count[gl_rows[i].ref] = (int)b.rows[i].count;
    b.ref_count[GL_R_JOINT] = J;
    stance_allocator al = st_allocator(allocator);
    unsigned char *mem = st_alloc(&al, bytes, 64);
    if (!mem) return st_fail(err, STANCE_ERR_MEMORY, "graph: allocation of %zu bytes failed", bytes);
    stance_graph *g = (stance_graph *)mem;
    g->skeleton = sk, g->allocator = al, g->bytes = bytes;
    b.g = g;
    for (int i = 0; i < GL_ROWS; i++) {
        const gl_row *row = &gl_rows[i];
        if (row->base == GL_SELF) continue;
        void *base = mem + b.rows[i].at;
        memcpy((unsigned char *)g + row->base, &base, sizeof base);
        if (row->count_at >= 0 && row->kind != GL_DELTAS) { /* the delta count grows as they are built */
            const int n = (int)b.rows[i].count;
            memcpy((unsigned char *)g + row->count_at, &n, sizeof n);
        }
    }
    for (int i = 0; i < GL_ROWS; i++) { /* the counts that follow from the others */
        const gl_row *row = &gl_rows[i];
        if (row->base == GL_SELF || row->count_at >= 0 || row->count_free) continue;
        const int want = row->count(g);
        if ((int)b.rows[i].count == want) continue;
        stance_graph_destroy(g);
        FAIL("graph: the %s array has %u records, the graph's counts make %d", row->what, (unsigned)b.rows[i].count, want);
    }
    /* pass 2: the arrays, in the table's order (the delta clips before the records that point at them) */
    stance_status s = STANCE_OK;
    for (int i = 0; i < GL_ROWS && !s; i++) {
        const gl_row *row = &gl_rows[i];
        const row_in *in = &b.rows[i];
        if (row->kind == GL_DELTAS) s = read_deltas(&b, in, &al);
        else if (row->kind == GL_POSES) s = read_poses(&b, in, mem);
        else if (row->kind == GL_CONTACTS) read_contacts(&b, in, mem);
        else {
            const size_t rb = gl_record_bytes(row);
            unsigned char *base = row->base == GL_SELF ? mem : mem + in->at;
            for (uint32_t k = 0; k < in->count && !s; k++)
                s = read_record(&b, row, (int)k, in->payload + rb * k, base + row->elem * k);
        }
    }
    if (!s) {
        for (int l = 0; l < g->layer_count; l++) g->layers[l].mask = g->masks + (size_t)l * (size_t)pc;
        s = gc_check(g, b.ref_count[GL_R_STRN], b.ref_count[GL_R_ANYT], err);
    }
    if (!s && bevt) s = bind_blend_events(&b, bevt, bevt_size);
    if (!s) s = bind_notes(&b, notes, notes_size);
    if (!s && sync) s = bind_sync(&b, sync, sync_size);
    if (!s && curves) s = st_curves_bind(g, curves, curves_size, clips, clip_count, err);
    if (s) {
        stance_graph_destroy(g);
        return s;
    }
    *out = g;
    return STANCE_OK;
}
