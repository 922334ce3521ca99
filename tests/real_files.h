/* tests/real_files.h - test-only readers shared by the real-asset tests
 * (test_io_real.c, test_io_real_skins.c), written from the specifications
 * and independent of the importer under test: data paths (STANCE_DATA; a
 * missing file fails only when CI=true), a minimal JSON reader, a GLB
 * reader (JSON chunk + binary chunk, accessors as floats), and rotations
 * and transforms in double. Include after check.h. */
#ifndef STANCE_TESTS_REAL_FILES_H
#define STANCE_TESTS_REAL_FILES_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* ---- files ----------------------------------------------------------------- */

static inline int in_ci(void) {
    const char *ci = getenv("CI");
    return ci && !strcmp(ci, "true");
}

static inline void data_path(char *buf, size_t cap, const char *rel) {
    const char *dir = getenv("STANCE_DATA");
    snprintf(buf, cap, "%s/%s", dir && dir[0] ? dir : "../shared/data", rel);
}

/* The whole file, or NULL (then skipped, or a failure in CI). */
static inline unsigned char *read_all(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0) n = ftell(f);
    if (f && n > 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL) {
        if (fread(buf, 1, (size_t)n, f) != (size_t)n) free(buf), buf = NULL;
        else buf[n] = 0, *size = (size_t)n;
    }
    if (f) fclose(f);
    if (!buf) {
        printf("     %s: %s\n", in_ci() ? "MISSING (CI=true: failing)" : "missing, skipped", path);
        CHECK(!in_ci());
    }
    return buf;
}

/* ---- a minimal JSON reader --------------------------------------------------- */

enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };
typedef struct jv jv;
struct jv {
    int type;
    double num;
    char *str;
    int n;
    jv *items;
    char **keys;
};
typedef struct jp {
    const char *p, *end;
    int bad;
} jp;

static inline void jv_free(jv *v) {
    free(v->str);
    for (int i = 0; i < v->n; i++) {
        jv_free(&v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
}
static inline void j_ws(jp *p) {
    while (p->p < p->end && (*p->p == ' ' || *p->p == '\t' || *p->p == '\n' || *p->p == '\r')) p->p++;
}
static inline char *j_string(jp *p) {
    if (p->p >= p->end || *p->p != '"') return p->bad = 1, NULL;
    p->p++;
    char *s = malloc((size_t)(p->end - p->p) + 1);
    size_t n = 0;
    while (p->p < p->end && *p->p != '"') {
        char c = *p->p++;
        if (c == '\\' && p->p < p->end) {
            c = *p->p++;
            if (c == 'u' && p->end - p->p >= 4) {
                unsigned cp = (unsigned)strtoul((char[5]){p->p[0], p->p[1], p->p[2], p->p[3], 0}, NULL, 16);
                p->p += 4;
                if (cp < 0x80) s[n++] = (char)cp;
                else if (cp < 0x800) s[n++] = (char)(0xC0 | cp >> 6), s[n++] = (char)(0x80 | (cp & 63));
                else s[n++] = (char)(0xE0 | cp >> 12), s[n++] = (char)(0x80 | ((cp >> 6) & 63)), s[n++] = (char)(0x80 | (cp & 63));
                continue;
            }
            c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c == 'b' ? '\b' : c == 'f' ? '\f' : c;
        }
        s[n++] = c;
    }
    if (p->p >= p->end) p->bad = 1;
    else p->p++;
    s[n] = 0;
    return s;
}
static inline void j_value(jp *p, jv *v, int depth) {
    memset(v, 0, sizeof *v);
    j_ws(p);
    if (p->p >= p->end || depth > 64) {
        p->bad = 1;
        return;
    }
    char c = *p->p;
    if (c == '{' || c == '[') {
        v->type = c == '{' ? J_OBJ : J_ARR;
        p->p++;
        int cap = 0;
        for (;;) {
            j_ws(p);
            if (p->p < p->end && *p->p == (c == '{' ? '}' : ']')) {
                p->p++;
                break;
            }
            if (v->n > 0) {
                if (p->p >= p->end || *p->p != ',') {
                    p->bad = 1;
                    return;
                }
                p->p++;
                j_ws(p);
            }
            if (v->n == cap) {
                cap = cap ? 2 * cap : 8;
                v->items = realloc(v->items, sizeof(jv) * (size_t)cap);
                if (c == '{') v->keys = realloc(v->keys, sizeof(char *) * (size_t)cap);
            }
            if (c == '{') {
                v->keys[v->n] = j_string(p);
                j_ws(p);
                if (p->bad || p->p >= p->end || *p->p != ':') {
                    free(v->keys[v->n]);
                    p->bad = 1;
                    return;
                }
                p->p++;
            }
            j_value(p, &v->items[v->n], depth + 1);
            v->n++;
            if (p->bad) return;
        }
    } else if (c == '"') {
        v->type = J_STR;
        v->str = j_string(p);
    } else if (c == 't' || c == 'f' || c == 'n') {
        v->type = c == 'n' ? J_NULL : J_BOOL;
        v->num = c == 't';
        p->p += c == 'f' ? 5 : 4;
        if (p->p > p->end) p->bad = 1;
    } else {
        char *end = NULL;
        v->type = J_NUM;
        v->num = strtod(p->p, &end);
        if (end == p->p || end > p->end) p->bad = 1;
        else p->p = end;
    }
}
static inline const jv *jget(const jv *o, const char *key) {
    if (!o || o->type != J_OBJ) return NULL;
    for (int i = 0; i < o->n; i++)
        if (!strcmp(o->keys[i], key)) return &o->items[i];
    return NULL;
}
static inline const jv *jat(const jv *a, int i) { return a && a->type == J_ARR && i >= 0 && i < a->n ? &a->items[i] : NULL; }
static inline double jnum(const jv *v, double fallback) { return v && v->type == J_NUM ? v->num : fallback; }
static inline int jlen(const jv *a) { return a && a->type == J_ARR ? a->n : 0; }

/* ---- glTF (GLB) ------------------------------------------------------------- */

typedef struct gltf {
    unsigned char *file;
    jv json;
    const unsigned char *bin;
    size_t bin_size;
    int node_count;
    int *parent;
    double (*t)[3], (*r)[4], (*s)[3]; /* rest TRS per node */
} gltf;

static inline void gltf_free(gltf *g) {
    jv_free(&g->json);
    free(g->file), free(g->parent), free(g->t), free(g->r), free(g->s);
}

static inline uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline int gltf_open(gltf *g, const char *path) {
    memset(g, 0, sizeof *g);
    size_t size = 0;
    g->file = read_all(path, &size);
    if (!g->file) return 0;
    CHECK(size >= 20 && !memcmp(g->file, "glTF", 4) && le32(g->file + 4) == 2 && le32(g->file + 8) == size);
    uint32_t jlen_ = le32(g->file + 12);
    CHECK(le32(g->file + 16) == 0x4E4F534Au && 20 + (size_t)jlen_ + 8 <= size);
    jp p = {(const char *)g->file + 20, (const char *)g->file + 20 + jlen_, 0};
    j_value(&p, &g->json, 0);
    CHECK(!p.bad);
    const unsigned char *bin = g->file + 20 + jlen_;
    CHECK(le32(bin + 4) == 0x004E4942u);
    g->bin = bin + 8;
    g->bin_size = le32(bin);
    CHECK(20 + jlen_ + 8 + g->bin_size <= size);
    const jv *nodes = jget(&g->json, "nodes");
    int n = g->node_count = jlen(nodes);
    g->parent = malloc(sizeof(int) * (size_t)n);
    g->t = malloc(sizeof(*g->t) * (size_t)n), g->r = malloc(sizeof(*g->r) * (size_t)n), g->s = malloc(sizeof(*g->s) * (size_t)n);
    for (int i = 0; i < n; i++) g->parent[i] = -1;
    for (int i = 0; i < n; i++) {
        const jv *node = jat(nodes, i);
        CHECK(jget(node, "matrix") == NULL); /* these assets use TRS; this reader does too */
        const jv *t = jget(node, "translation"), *r = jget(node, "rotation"), *s = jget(node, "scale");
        for (int c = 0; c < 3; c++) g->t[i][c] = jnum(jat(t, c), 0.0), g->s[i][c] = jnum(jat(s, c), 1.0);
        for (int c = 0; c < 4; c++) g->r[i][c] = jnum(jat(r, c), c == 3 ? 1.0 : 0.0);
        const jv *kids = jget(node, "children");
        for (int k = 0; k < jlen(kids); k++) {
            int c = (int)jnum(jat(kids, k), -1);
            if (c >= 0 && c < n) g->parent[c] = i;
        }
    }
    return !p.bad;
}

static inline const char *node_name(const gltf *g, int i) {
    const jv *name = jget(jat(jget(&g->json, "nodes"), i), "name");
    return name && name->type == J_STR ? name->str : "";
}

/* An accessor's floats (componentType 5126) as count * comps, malloc'd. */
static inline float *accessor_floats(const gltf *g, int index, int *count, int *comps) {
    const jv *acc = jat(jget(&g->json, "accessors"), index);
    const jv *type = jget(acc, "type");
    *comps = !type || type->type != J_STR ? 0 : !strcmp(type->str, "SCALAR") ? 1 : !strcmp(type->str, "VEC3") ? 3 : !strcmp(type->str, "VEC4") ? 4 : 0;
    *count = (int)jnum(jget(acc, "count"), 0);
    const jv *view = jat(jget(&g->json, "bufferViews"), (int)jnum(jget(acc, "bufferView"), -1));
    CHECK(acc && view && *comps && (int)jnum(jget(acc, "componentType"), 0) == 5126);
    if (!acc || !view || !*comps || *count <= 0) return NULL;
    size_t off = (size_t)jnum(jget(view, "byteOffset"), 0) + (size_t)jnum(jget(acc, "byteOffset"), 0);
    size_t stride = (size_t)jnum(jget(view, "byteStride"), 4.0 * *comps);
    size_t need = off + stride * (size_t)(*count - 1) + 4 * (size_t)*comps;
    CHECK(need <= g->bin_size);
    if (need > g->bin_size) return NULL;
    float *out = malloc(sizeof(float) * (size_t)*count * (size_t)*comps);
    for (int k = 0; k < *count; k++) memcpy(out + (size_t)k * (size_t)*comps, g->bin + off + stride * (size_t)k, 4 * (size_t)*comps);
    return out;
}

/* ---- transforms in double ---------------------------------------------------- */

typedef struct trs {
    double t[3], r[4], s[3];
} trs;

static inline void qmul(const double a[4], const double b[4], double o[4]) {
    double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    o[0] = x, o[1] = y, o[2] = z, o[3] = w;
}
static inline void qrot(const double q[4], const double v[3], double o[3]) {
    double p[4] = {v[0], v[1], v[2], 0}, c[4] = {-q[0], -q[1], -q[2], q[3]}, t[4], r[4];
    qmul(q, p, t);
    qmul(t, c, r);
    o[0] = r[0], o[1] = r[1], o[2] = r[2];
}
static inline void qnorm(double q[4]) {
    double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++) q[i] /= l;
}
/* parent * child, scale per axis (as stance_local_to_model does) */
static inline trs compose(const trs *p, const trs *c) {
    trs o;
    double st[3] = {p->s[0] * c->t[0], p->s[1] * c->t[1], p->s[2] * c->t[2]}, rt[3];
    qrot(p->r, st, rt);
    for (int i = 0; i < 3; i++) o.t[i] = p->t[i] + rt[i], o.s[i] = p->s[i] * c->s[i];
    qmul(p->r, c->r, o.r);
    qnorm(o.r);
    return o;
}
/* Largest component difference of two rotations, either sign. */
static inline double qdiff(const double a[4], const float b[4]) {
    double d1 = 0, d2 = 0;
    for (int i = 0; i < 4; i++) {
        d1 = fmax(d1, fabs(a[i] - b[i]));
        d2 = fmax(d2, fabs(a[i] + b[i]));
    }
    return fmin(d1, d2);
}

#endif
