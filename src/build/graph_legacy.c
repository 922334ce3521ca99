/* src/build/graph_legacy.c - the compiled-graph section (GRPH) of format 1
 * (libstance_build): the form files written before the runtime bound
 * compiled graphs hold, a stance_graph_desc beside the skeleton and clips it
 * animates. Read back into a description and compiled (stance_graph_create),
 * for stance_build_load_asset_* (the runtime alone refuses it and says to
 * recompile). Nothing writes this form any more.
 *
 * Its byte layout (little-endian, after the file's SKEL, CLIP and any other
 * asset sections; at most one GRPH, last):
 *
 *   u32 format (1)
 *   f32 default_blend_time, f32 deadblend_halflife
 *   u32 param_count, per parameter:
 *       name, u8 type, f32 value, f32 damping
 *   u32 machine_count, per machine:
 *       name, opt entry, u32 state_count, u32 transition_count
 *       per state: name, u8 type, u8 flags (bit 0 once, bit 1 speed_warp),
 *           f32 speed, opt speed_param, f32 fade_time, then by type:
 *           clip:     u32 clip index
 *           blend1d/2d: opt param_x, opt param_y, u32 entry_count,
 *                     per entry u32 clip index, f32 x, f32 y
 *           machine:  name of the nested machine
 *       per transition: opt from ("" = any state), name to, u8 exit,
 *           f32 exit_time, f32 blend_time, u8 mode, u8 easing,
 *           u8 flags (bit 0 uninterruptible, bit 1 allow_self),
 *           u32 condition_count, per condition: name param, u8 op,
 *           f32 value, f32 hysteresis, u32 group
 *   u32 layer_count, per layer:
 *       name, name machine, f32 weight, u8 mode, u8 space, u8 additive_ref,
 *       i32 ref_clip (-1 = none), i32 priority, u8 has_mask,
 *       f32 mask[joint_count] when has_mask
 *   then, only when the graph has an IK stage (absent = none, so graphs
 *   without one keep their bytes):
 *   u32 ik_count (1..8), per entry: name, u8 kind, u32 leg_count (1..4),
 *       per leg: name hip, name knee, name ankle, opt down_event, opt up_event;
 *       u8 pelvis (0 default, 1 none, 2 named) and opt name pelvis,
 *       f32 blend_time, plant_time, softness, contact_height, contact_speed,
 *       contact_min_duration, f32 root_velocity[3],
 *       u32 chain_count (0..16), per joint: name; f32 forward[3], f32 max_angle
 *
 * A name is u8 length (1..63) and its bytes; "opt" names may have length 0
 * (absent). Clips are indices into the file's clips, never names.
 *
 * Loading checks every count against the bytes left before allocating for
 * it, every enum, flag and index against its range, every float for being
 * finite, and that the body is used exactly; then stance_graph_create runs
 * all of its own checks (names, types, values). */
#include <stdio.h>
#include <string.h>

#include "build/graph_build.h"
#include "core/load/asset_graph.h"
#include "core/base/internal.h"
#include "stance/build.h"

#define GRPH_FORMAT_1 1u
#define NAME_CAP 64

/* ---- reader: bounds-checked; the first failure is kept in msg ----------------- */

/* Every array of the description comes from one of these, freed after
 * stance_graph_create (which copies what it keeps). */
typedef struct gblock {
    struct gblock *next;
    size_t size;
} gblock;

typedef struct gr {
    const unsigned char *p, *end;
    const stance_allocator *al;
    gblock *blocks;
    stance_error *err;
    stance_status status; /* STANCE_OK until something is wrong */
} gr;

static int r_fail(gr *r, const char *what) {
    if (!r->status) r->status = st_fail(r->err, STANCE_ERR_FORMAT, "graph: %s", what);
    return 0;
}
static size_t r_left(const gr *r) { return (size_t)(r->end - r->p); }
static int r_take(gr *r, void *dst, size_t n) {
    if (r->status) return 0;
    if (r_left(r) < n) return r_fail(r, "the section ends inside a value (truncated)");
    memcpy(dst, r->p, n);
    r->p += n;
    return 1;
}
static unsigned r_u8(gr *r) {
    unsigned char b = 0;
    r_take(r, &b, 1);
    return b;
}
static uint32_t r_u32(gr *r) {
    unsigned char b[4] = {0, 0, 0, 0};
    r_take(r, b, 4);
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
static float r_f32(gr *r) {
    uint32_t v = r_u32(r);
    float f;
    memcpy(&f, &v, 4);
    if (!r->status && !st_finite(f)) r_fail(r, "a number is NaN or infinite");
    return st_finite(f) ? f : 0.0f;
}
static void *r_alloc(gr *r, size_t count, size_t size) {
    if (r->status) return NULL;
    size_t bytes = count * size; /* count was checked against the bytes left: no overflow */
    gblock *b = st_alloc(r->al, sizeof(gblock) + bytes + 1, 16);
    if (!b) {
        r->status = st_fail(r->err, STANCE_ERR_MEMORY, "graph: allocation of %zu bytes failed", bytes);
        return NULL;
    }
    b->size = sizeof(gblock) + bytes + 1;
    b->next = r->blocks;
    r->blocks = b;
    return b + 1;
}
/* A count of items that each need at least `min_bytes`, no more than cap. */
static int r_count(gr *r, size_t min_bytes, uint32_t cap, const char *what) {
    uint32_t n = r_u32(r);
    if (r->status) return 0;
    if (n > cap || r_left(r) / min_bytes < n) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s count %u is over %u or larger than the section", what, (unsigned)n, (unsigned)cap);
        return r_fail(r, msg);
    }
    return (int)n;
}
/* A name into the block list; optional names of length 0 give NULL. */
static const char *r_name(gr *r, int optional, const char *what) {
    unsigned n = r_u8(r);
    if (r->status) return NULL;
    if (n == 0) {
        if (!optional) {
            char msg[96];
            snprintf(msg, sizeof msg, "%s has an empty name", what);
            r_fail(r, msg);
        }
        return NULL;
    }
    if (n >= NAME_CAP || r_left(r) < n) return r_fail(r, "a name is over 63 bytes or beyond the section"), NULL;
    char *s = r_alloc(r, n + 1, 1);
    if (!s) return NULL;
    r_take(r, s, n);
    s[n] = 0;
    if (strlen(s) != n) return r_fail(r, "a name contains a zero byte"), NULL;
    return s;
}
static unsigned r_enum(gr *r, unsigned last, const char *what) {
    unsigned v = r_u8(r);
    if (!r->status && v > last) {
        char msg[96];
        snprintf(msg, sizeof msg, "unknown %s %u (at most %u)", what, v, last);
        r_fail(r, msg);
    }
    return v <= last ? v : 0;
}
static const stance_clip *r_clip(gr *r, const stance_asset *a) {
    uint32_t i = r_u32(r);
    if (r->status) return NULL;
    if (i >= (uint32_t)a->clip_count) {
        char msg[96];
        snprintf(msg, sizeof msg, "clip index %u is not below the file's %d clips", (unsigned)i, a->clip_count);
        return r_fail(r, msg), NULL;
    }
    return a->clips[i];
}

static void read_state(gr *r, const stance_asset *a, stance_state_desc *sd) {
    sd->name = r_name(r, 0, "a state");
    sd->type = (stance_motion_type)r_enum(r, STANCE_MOTION_MACHINE, "state type");
    unsigned flags = r_u8(r);
    if (flags > 3) r_fail(r, "unknown state flags");
    sd->once = (flags & 1u) != 0;
    sd->speed_warp = (flags & 2u) != 0;
    sd->speed = r_f32(r);
    sd->speed_param = r_name(r, 1, "speed_param");
    sd->fade_time = r_f32(r);
    if (r->status) return;
    if (sd->type == STANCE_MOTION_CLIP) {
        sd->clip = r_clip(r, a);
    } else if (sd->type == STANCE_MOTION_MACHINE) {
        sd->machine = r_name(r, 0, "a nested machine");
    } else {
        sd->param_x = r_name(r, 1, "param_x");
        sd->param_y = r_name(r, 1, "param_y");
        int n = r_count(r, 12, STANCE_MAX_BLEND_ENTRIES, "blend entry");
        stance_blend_entry_desc *e = n ? r_alloc(r, (size_t)n, sizeof *e) : NULL;
        for (int i = 0; e && i < n && !r->status; i++) {
            e[i].clip = r_clip(r, a);
            e[i].x = r_f32(r);
            e[i].y = r_f32(r);
        }
        sd->entries = e;
        sd->entry_count = n;
    }
}

static void read_transition(gr *r, stance_transition_desc *td) {
    td->from = r_name(r, 1, "from");
    td->to = r_name(r, 0, "a transition's target");
    td->exit = (stance_exit_mode)r_enum(r, STANCE_EXIT_AT_END, "exit mode");
    td->exit_time = r_f32(r);
    td->blend_time = r_f32(r);
    td->mode = (stance_switch_mode)r_enum(r, STANCE_SWITCH_MODE_COUNT - 1, "switch mode");
    td->easing = (stance_easing)r_enum(r, STANCE_EASE_LINEAR, "easing");
    unsigned flags = r_u8(r);
    if (flags > 3) r_fail(r, "unknown transition flags");
    td->uninterruptible = (flags & 1u) != 0;
    td->allow_self = (flags & 2u) != 0;
    int n = r_count(r, 15, STANCE_MAX_CONDITIONS, "condition");
    stance_condition_desc *c = n ? r_alloc(r, (size_t)n, sizeof *c) : NULL;
    for (int i = 0; c && i < n && !r->status; i++) {
        c[i].param = r_name(r, 0, "a condition's parameter");
        c[i].op = (stance_compare)r_enum(r, STANCE_CMP_FALSE, "comparison");
        c[i].value = r_f32(r);
        c[i].hysteresis = r_f32(r);
        uint32_t g = r_u32(r);
        if (!r->status && g >= STANCE_MAX_CONDITIONS) r_fail(r, "a condition group is out of range");
        c[i].group = (int)g;
    }
    td->conditions = c;
    td->condition_count = n;
}

/* The IK stage after the layers (only present when the graph has one). */
static void read_ik(gr *r, stance_graph_desc *d) {
    const int n = r_count(r, 30, STANCE_MAX_IK, "ik entry");
    if (r->status) return;
    if (n < 1) { r_fail(r, "an ik section with no entries"); return; }
    stance_ik_desc *k = r_alloc(r, (size_t)n, sizeof *k);
    for (int i = 0; k && i < n && !r->status; i++) {
        memset(&k[i], 0, sizeof k[i]);
        k[i].name = r_name(r, 0, "an ik entry");
        k[i].kind = (stance_ik_kind)r_enum(r, STANCE_IK_KIND_COUNT - 1, "ik kind");
        const uint32_t legs = r_u32(r);
        if (r->status) break;
        if (legs > STANCE_FOOT_MAX) { r_fail(r, "an ik entry's leg count is over 4"); break; }
        k[i].leg_count = (int)legs;
        for (uint32_t l = 0; l < legs && !r->status; l++) {
            stance_ik_leg_desc *g = &k[i].legs[l];
            g->hip = r_name(r, 0, "an ik leg's hip"), g->knee = r_name(r, 0, "an ik leg's knee");
            g->ankle = r_name(r, 0, "an ik leg's ankle");
            g->down_event = r_name(r, 1, "an ik leg's down event"), g->up_event = r_name(r, 1, "an ik leg's up event");
        }
        const unsigned pelvis = r_enum(r, 2, "ik pelvis mode");
        const char *pn = r_name(r, pelvis != 2, "an ik entry's pelvis");
        if (r->status) break;
        if (pelvis != 2 && pn) { r_fail(r, "an ik entry names a pelvis it does not use"); break; }
        k[i].pelvis = pelvis == 0 ? NULL : pelvis == 1 ? "" : pn;
        float *v[9] = {&k[i].blend_time, &k[i].plant_time, &k[i].softness, &k[i].contact_height, &k[i].contact_speed,
                       &k[i].contact_min_duration, &k[i].root_velocity[0], &k[i].root_velocity[1], &k[i].root_velocity[2]};
        for (int j = 0; j < 9; j++) *v[j] = r_f32(r);
        const uint32_t chain = r_u32(r);
        if (r->status) break;
        if (chain > STANCE_AIM_MAX_CHAIN) { r_fail(r, "an ik entry's chain is over 16 joints"); break; }
        k[i].chain_count = (int)chain;
        for (uint32_t j = 0; j < chain && !r->status; j++) k[i].chain[j] = r_name(r, 0, "an ik chain joint");
        for (int j = 0; j < 3; j++) k[i].forward[j] = r_f32(r);
        k[i].max_angle = r_f32(r);
    }
    d->ik = k;
    d->ik_count = r->status ? 0 : n;
}

static void read_body(gr *r, const stance_asset *a, stance_graph_desc *d) {
    uint32_t format = r_u32(r);
    if (!r->status && format != GRPH_FORMAT_1) {
        r->status = st_fail(r->err, STANCE_ERR_UNSUPPORTED, "graph: section format %u, not the description form (1)",
                            (unsigned)format);
        return;
    }
    d->skeleton = a->skeleton;
    d->default_blend_time = r_f32(r);
    d->deadblend_halflife = r_f32(r);
    int np = r_count(r, 11, STANCE_MAX_PARAMS, "parameter");
    stance_param_desc *p = np ? r_alloc(r, (size_t)np, sizeof *p) : NULL;
    for (int i = 0; p && i < np && !r->status; i++) {
        p[i].name = r_name(r, 0, "a parameter");
        p[i].type = (stance_param_type)r_enum(r, STANCE_PARAM_TRIGGER, "parameter type");
        p[i].value = r_f32(r);
        p[i].damping = r_f32(r);
    }
    d->params = p;
    d->param_count = np;
    int nm = r_count(r, 10, STANCE_MAX_MACHINES, "machine");
    stance_machine_desc *m = nm ? r_alloc(r, (size_t)nm, sizeof *m) : NULL;
    int states_total = 0;
    for (int i = 0; m && i < nm && !r->status; i++) {
        m[i].name = r_name(r, 0, "a machine");
        m[i].entry = r_name(r, 1, "entry");
        int ns = r_count(r, 17, STANCE_MAX_STATES, "state");
        uint32_t nt = r_u32(r);
        if (r->status) break;
        if (ns > STANCE_MAX_STATES - states_total) {
            r_fail(r, "more states than a graph may have");
            break;
        }
        states_total += ns;
        stance_state_desc *s = ns ? r_alloc(r, (size_t)ns, sizeof *s) : NULL;
        for (int k = 0; s && k < ns && !r->status; k++) read_state(r, a, &s[k]);
        m[i].states = s;
        m[i].state_count = ns;
        if (r->status) break;
        if (nt > 4096 || r_left(r) / 19 < nt) {
            r_fail(r, "transition count is over 4096 or larger than the section");
            break;
        }
        stance_transition_desc *t = nt ? r_alloc(r, nt, sizeof *t) : NULL;
        for (uint32_t k = 0; t && k < nt && !r->status; k++) read_transition(r, &t[k]);
        m[i].transitions = t;
        m[i].transition_count = (int)nt;
    }
    d->machines = m;
    d->machine_count = nm;
    int joints = a->skeleton->joint_count;
    int nl = r_count(r, 20, STANCE_MAX_LAYERS, "layer");
    stance_layer_desc *l = nl ? r_alloc(r, (size_t)nl, sizeof *l) : NULL;
    for (int i = 0; l && i < nl && !r->status; i++) {
        l[i].name = r_name(r, 0, "a layer");
        l[i].machine = r_name(r, 0, "a layer's machine");
        l[i].weight = r_f32(r);
        l[i].mode = (stance_layer_mode)r_enum(r, STANCE_LAYER_ADDITIVE, "layer mode");
        l[i].space = (stance_layer_space)r_enum(r, STANCE_SPACE_MESH, "layer space");
        l[i].additive_ref = (stance_additive_ref)r_enum(r, STANCE_ADDITIVE_REF_CLIP_SYNC, "additive reference");
        int32_t ref = (int32_t)r_u32(r);
        l[i].priority = (int)(int32_t)r_u32(r);
        unsigned has_mask = r_u8(r);
        if (r->status) break;
        if (ref < -1 || ref >= a->clip_count) {
            r_fail(r, "a layer's reference clip index is out of range");
            break;
        }
        l[i].ref_clip = ref >= 0 ? a->clips[ref] : NULL;
        if (l[i].priority < -1000 || l[i].priority > 1000 || has_mask > 1) {
            r_fail(r, "a layer's priority is not in [-1000, 1000] or its mask flag is not 0 or 1");
            break;
        }
        if (has_mask) {
            if (r_left(r) / 4 < (size_t)joints) {
                r_fail(r, "a layer's mask is larger than the section");
                break;
            }
            float *w = r_alloc(r, (size_t)joints, sizeof *w);
            for (int j = 0; w && j < joints && !r->status; j++) w[j] = r_f32(r);
            l[i].mask = w;
        }
    }
    d->layers = l;
    d->layer_count = nl;
    if (!r->status && r_left(r) > 0) read_ik(r, d);
    if (!r->status && r_left(r) != 0) r_fail(r, "the section size does not match its content");
}

static stance_status st_graph_section_load_v1(const unsigned char *body, size_t size, const stance_asset *asset,
                                       const stance_allocator *allocator, stance_graph **out, stance_error *err) {
    *out = NULL;
    gr r = {body, body + size, allocator, NULL, err, STANCE_OK};
    stance_graph_desc d;
    memset(&d, 0, sizeof d);
    read_body(&r, asset, &d);
    stance_status s = r.status;
    if (!s) {
        stance_error e = {STANCE_OK, ""};
        s = stance_graph_create(&d, allocator, out, &e);
        if (s) st_fail(err, s, "graph: %s", e.message);
    }
    while (r.blocks) {
        gblock *next = r.blocks->next;
        st_free(allocator, r.blocks, r.blocks->size);
        r.blocks = next;
    }
    return s;
}

stance_status stance_build_load_asset_memory(const void *bytes, size_t size, const stance_allocator *allocator,
                                             stance_asset *out, stance_error *err) {
    return st_asset_load_memory_v1(bytes, size, allocator, st_graph_section_load_v1, out, err);
}

stance_status stance_build_load_asset_file(const char *path, const stance_allocator *allocator, stance_asset *out,
                                           stance_error *err) {
    return st_asset_load_file_v1(path, allocator, st_graph_section_load_v1, out, err);
}
