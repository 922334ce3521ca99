/* tests/test_io_real.c - the importer on real assets, checked against the
 * numbers stored in the files, read here independently of assimp: a small
 * GLB reader (JSON chunk + binary chunk) for RobotExpressive.glb and
 * Fox.glb, and a BVH reader (hierarchy + motion text) for CMU 01_01.bvh.
 *
 * At every key time the sampled local rotations equal the file's, and the
 * model-space positions and rotations equal the file's node hierarchy
 * evaluated here (in double), within 1e-5 (relative for positions beyond
 * 1 unit). Joint counts and names, clip names and durations, and an
 * import -> .stance -> load round trip are checked too.
 *
 * Data: STANCE_DATA (../shared/data) and assimp-testmodels. When CI=true a
 * missing file fails the test; elsewhere it is skipped with a message. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stance/import.h"
#include "stance/asset.h"
#include "stance/pose.h"

#define BVH_PATH "/usr/share/assimp/models/BVH/01_01.bvh"

/* ---- files ----------------------------------------------------------------- */

static int in_ci(void) {
    const char *ci = getenv("CI");
    return ci && !strcmp(ci, "true");
}

static void data_path(char *buf, size_t cap, const char *rel) {
    const char *dir = getenv("STANCE_DATA");
    snprintf(buf, cap, "%s/%s", dir && dir[0] ? dir : "../shared/data", rel);
}

/* The whole file, or NULL (then skipped, or a failure in CI). */
static unsigned char *read_all(const char *path, size_t *size) {
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

static void jv_free(jv *v) {
    free(v->str);
    for (int i = 0; i < v->n; i++) {
        jv_free(&v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
}
static void j_ws(jp *p) {
    while (p->p < p->end && (*p->p == ' ' || *p->p == '\t' || *p->p == '\n' || *p->p == '\r')) p->p++;
}
static char *j_string(jp *p) {
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
static void j_value(jp *p, jv *v, int depth) {
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
static const jv *jget(const jv *o, const char *key) {
    if (!o || o->type != J_OBJ) return NULL;
    for (int i = 0; i < o->n; i++)
        if (!strcmp(o->keys[i], key)) return &o->items[i];
    return NULL;
}
static const jv *jat(const jv *a, int i) { return a && a->type == J_ARR && i >= 0 && i < a->n ? &a->items[i] : NULL; }
static double jnum(const jv *v, double fallback) { return v && v->type == J_NUM ? v->num : fallback; }
static int jlen(const jv *a) { return a && a->type == J_ARR ? a->n : 0; }

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

static void gltf_free(gltf *g) {
    jv_free(&g->json);
    free(g->file), free(g->parent), free(g->t), free(g->r), free(g->s);
}

static uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int gltf_open(gltf *g, const char *path) {
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

static const char *node_name(const gltf *g, int i) {
    const jv *name = jget(jat(jget(&g->json, "nodes"), i), "name");
    return name && name->type == J_STR ? name->str : "";
}

/* An accessor's floats (componentType 5126) as count * comps, malloc'd. */
static float *accessor_floats(const gltf *g, int index, int *count, int *comps) {
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

static void qmul(const double a[4], const double b[4], double o[4]) {
    double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    o[0] = x, o[1] = y, o[2] = z, o[3] = w;
}
static void qrot(const double q[4], const double v[3], double o[3]) {
    double p[4] = {v[0], v[1], v[2], 0}, c[4] = {-q[0], -q[1], -q[2], q[3]}, t[4], r[4];
    qmul(q, p, t);
    qmul(t, c, r);
    o[0] = r[0], o[1] = r[1], o[2] = r[2];
}
static void qnorm(double q[4]) {
    double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++) q[i] /= l;
}
/* parent * child, scale per axis (as stance_local_to_model does) */
static trs compose(const trs *p, const trs *c) {
    trs o;
    double st[3] = {p->s[0] * c->t[0], p->s[1] * c->t[1], p->s[2] * c->t[2]}, rt[3];
    qrot(p->r, st, rt);
    for (int i = 0; i < 3; i++) o.t[i] = p->t[i] + rt[i], o.s[i] = p->s[i] * c->s[i];
    qmul(p->r, c->r, o.r);
    qnorm(o.r);
    return o;
}
/* Largest component difference of two rotations, either sign. */
static double qdiff(const double a[4], const float b[4]) {
    double d1 = 0, d2 = 0;
    for (int i = 0; i < 4; i++) {
        d1 = fmax(d1, fabs(a[i] - b[i]));
        d2 = fmax(d2, fabs(a[i] + b[i]));
    }
    return fmin(d1, d2);
}

typedef struct errors {
    double pos, rot, local_rot, local_pos;
    long compared;
} errors;

/* Compares a stance local pose (and its model pose) with the file's
 * transforms: world[] per stance joint, local[] per stance joint. */
static void compare_pose(const stance_skeleton *sk, const stance_pose *local, const stance_pose *model,
                         const trs *world, const trs *file_local, const unsigned char *check_local, double above_scale,
                         double tol, errors *e) {
    for (int j = 0; j < sk->joint_count; j++) {
        double mag = sqrt(world[j].t[0] * world[j].t[0] + world[j].t[1] * world[j].t[1] + world[j].t[2] * world[j].t[2]);
        float mt[3] = {model->tx[j], model->ty[j], model->tz[j]};
        float mq[4] = {model->qx[j], model->qy[j], model->qz[j], model->qw[j]};
        double dp = 0;
        for (int c = 0; c < 3; c++) dp = fmax(dp, fabs(world[j].t[c] - mt[c]));
        dp /= fmax(1.0, mag);
        double dq = qdiff(world[j].r, mq);
        CHECK(dp <= tol);
        CHECK(dq <= tol);
        if (dp > tol || dq > tol)
            fprintf(stderr, "  joint %d '%s': position error %g (relative), rotation error %g\n", j,
                    stance_skeleton_joint_name(sk, j), dp, dq);
        e->pos = fmax(e->pos, dp), e->rot = fmax(e->rot, dq);
        if (check_local && check_local[j] && j > 0) {
            float lq[4] = {local->qx[j], local->qy[j], local->qz[j], local->qw[j]};
            double fq[4] = {file_local[j].r[0], file_local[j].r[1], file_local[j].r[2], file_local[j].r[3]};
            qnorm(fq);
            double d = qdiff(fq, lq);
            CHECK(d <= tol);
            e->local_rot = fmax(e->local_rot, d);
            float lt[3] = {local->tx[j], local->ty[j], local->tz[j]};
            double m = 0, dt = 0;
            for (int c = 0; c < 3; c++) {
                double want = file_local[j].t[c] * above_scale;
                m = fmax(m, fabs(want));
                dt = fmax(dt, fabs(want - lt[c]));
            }
            dt /= fmax(1.0, m);
            CHECK(dt <= tol);
            e->local_pos = fmax(e->local_pos, dt);
        }
        e->compared++;
    }
}

/* ---- the .stance round trip of an imported asset ----------------------------- */

static void check_round_trip(const stance_asset *a, const char *label) {
    void *bytes = NULL;
    size_t size = 0;
    stance_error err;
    CHECK_OK(stance_asset_save_memory(a, &bytes, &size, NULL, &err));
    stance_asset b;
    CHECK_OK(stance_asset_load_memory(bytes, size, NULL, &b, &err));
    stance_asset_free_bytes(bytes, size, NULL);
    if (!b.skeleton) return;
    CHECK(b.clip_count == a->clip_count && b.skeleton->joint_count == a->skeleton->joint_count);
    stance_pose pa, pb;
    CHECK_OK(stance_pose_create(&pa, a->skeleton->joint_count, NULL, NULL));
    CHECK_OK(stance_pose_create(&pb, a->skeleton->joint_count, NULL, NULL));
    long floats = 0, rot_differ = 0, other_differ = 0;
    double rot_max = 0;
    for (int i = 0; i < a->clip_count && i < b.clip_count; i++) {
        const stance_clip *c = a->clips[i], *d = b.clips[i];
        CHECK(!strcmp(c->name, d->name) && c->duration == d->duration && c->key_count == d->key_count);
        for (int k = 0; k < 2 * c->key_count; k++) {
            float t = k % 2 == 0 ? c->times[k / 2] : k / 2 + 1 < c->key_count ? 0.5f * (c->times[k / 2] + c->times[k / 2 + 1]) : c->duration;
            CHECK_OK(stance_clip_sample(c, t, NULL, &pa));
            CHECK_OK(stance_clip_sample(d, t, NULL, &pb));
            const float *xa[10] = {pa.tx, pa.ty, pa.tz, pa.sx, pa.sy, pa.sz, pa.qx, pa.qy, pa.qz, pa.qw};
            const float *xb[10] = {pb.tx, pb.ty, pb.tz, pb.sx, pb.sy, pb.sz, pb.qx, pb.qy, pb.qz, pb.qw};
            for (int comp = 0; comp < 10; comp++)
                for (int j = 0; j < pa.joint_count; j++) {
                    floats++;
                    if (!memcmp(&xa[comp][j], &xb[comp][j], sizeof(float))) continue;
                    if (comp < 6) other_differ++;
                    else rot_differ++, rot_max = fmax(rot_max, fabs(xa[comp][j] - xb[comp][j]));
                }
        }
    }
    /* import -> save -> load gives identical samples, bit for bit */
    CHECK(other_differ == 0);
    CHECK(rot_differ == 0);
    printf("     %s round trip: %zu bytes, %ld sampled floats, %ld translation/scale differ, %ld rotation floats differ (max %.2g)\n",
           label, size, floats, other_differ, rot_differ, rot_max);
    stance_pose_destroy(&pa);
    stance_pose_destroy(&pb);
    stance_asset_destroy(&b);
}

/* ---- glTF assets ------------------------------------------------------------- */

typedef struct want_clip {
    const char *name;
    float duration; /* 0: not checked */
} want_clip;

static void check_gltf(const char *rel, int want_joints, int want_clips, const want_clip *want, int want_n) {
    char path[512];
    data_path(path, sizeof path, rel);
    gltf g;
    if (!gltf_open(&g, path)) {
        gltf_free(&g);
        return;
    }
    stance_import_warnings warnings;
    stance_import_options opt = {.warnings = &warnings};
    stance_asset a;
    stance_error err;
    stance_status s = stance_import_file(path, &opt, NULL, &a, &err);
    if (s) fprintf(stderr, "%s\n", err.message);
    CHECK_OK(s);
    if (s) {
        gltf_free(&g);
        return;
    }
    const stance_skeleton *sk = a.skeleton;

    /* the skeleton is the skins' joints, by name */
    const jv *skins = jget(&g.json, "skins");
    int *skin_node = calloc((size_t)g.node_count, sizeof(int));
    int skin_joints = 0;
    for (int k = 0; k < jlen(skins); k++) {
        const jv *joints = jget(jat(skins, k), "joints");
        for (int i = 0; i < jlen(joints); i++) {
            int n = (int)jnum(jat(joints, i), -1);
            if (n >= 0 && n < g.node_count && !skin_node[n]) skin_node[n] = 1, skin_joints++;
        }
    }
    CHECK(skin_joints == want_joints);
    CHECK(sk->joint_count == want_joints);
    int *node_of = malloc(sizeof(int) * (size_t)sk->joint_count);
    for (int j = 0; j < sk->joint_count; j++) {
        node_of[j] = -1;
        for (int n = 0; n < g.node_count; n++)
            if (skin_node[n] && !strcmp(node_name(&g, n), stance_skeleton_joint_name(sk, j))) node_of[j] = n;
        CHECK(node_of[j] >= 0);
        if (node_of[j] < 0) fprintf(stderr, "  joint '%s' is not a skin joint\n", stance_skeleton_joint_name(sk, j));
        if (node_of[j] < 0) node_of[j] = 0;
        if (j > 0) CHECK(g.parent[node_of[j]] == node_of[sk->parents[j]]);
    }

    /* clips: names and durations from the files' key times */
    const jv *anims = jget(&g.json, "animations");
    CHECK(jlen(anims) == want_clips && a.clip_count == want_clips);
    for (int i = 0; i < want_n; i++) {
        const stance_clip *c = stance_asset_find_clip(&a, want[i].name);
        CHECK(c != NULL);
        if (c && want[i].duration > 0) CHECK_NEAR(c->duration, want[i].duration, 0.0005);
    }

    /* what lies above the skeleton's root, evaluated from the file */
    trs above = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    {
        int chain[64], depth = 0;
        for (int p = g.parent[node_of[0]]; p >= 0 && depth < 64; p = g.parent[p]) chain[depth++] = p;
        for (int i = depth - 1; i >= 0; i--) {
            trs local;
            memcpy(local.t, g.t[chain[i]], sizeof local.t), memcpy(local.r, g.r[chain[i]], sizeof local.r), memcpy(local.s, g.s[chain[i]], sizeof local.s);
            above = compose(&above, &local);
        }
    }
    double above_scale = (above.s[0] + above.s[1] + above.s[2]) / 3.0;

    stance_pose local, model;
    CHECK_OK(stance_pose_create(&local, sk->joint_count, NULL, NULL));
    CHECK_OK(stance_pose_create(&model, sk->joint_count, NULL, NULL));
    trs *file_local = malloc(sizeof(trs) * (size_t)sk->joint_count);
    trs *world = malloc(sizeof(trs) * (size_t)sk->joint_count);
    unsigned char *keyed = malloc((size_t)sk->joint_count);
    errors e = {0, 0, 0, 0, 0};
    long poses = 0;
    for (int ai = 0; ai < jlen(anims); ai++) {
        const jv *an = jat(anims, ai);
        const jv *name = jget(an, "name");
        const stance_clip *clip = stance_asset_find_clip(&a, name && name->type == J_STR ? name->str : "");
        CHECK(clip != NULL);
        if (!clip) continue;
        const jv *channels = jget(an, "channels"), *samplers = jget(an, "samplers");
        /* the channels' key data, read once */
        int nch = jlen(channels);
        float **in = calloc((size_t)nch, sizeof(float *)), **out = calloc((size_t)nch, sizeof(float *));
        int *in_n = calloc((size_t)nch, sizeof(int)), *joint = calloc((size_t)nch, sizeof(int)), *path_kind = calloc((size_t)nch, sizeof(int));
        int grid = -1;
        float file_duration = 0;
        for (int c = 0; c < nch; c++) {
            const jv *ch = jat(channels, c), *target = jget(ch, "target");
            const jv *pth = jget(target, "path");
            const jv *smp = jat(samplers, (int)jnum(jget(ch, "sampler"), -1));
            int node = (int)jnum(jget(target, "node"), -1);
            joint[c] = -1;
            path_kind[c] = !pth || pth->type != J_STR ? -1 : !strcmp(pth->str, "translation") ? 0 : !strcmp(pth->str, "rotation") ? 1 : !strcmp(pth->str, "scale") ? 2 : -1;
            for (int j = 0; j < sk->joint_count; j++)
                if (node_of[j] == node) joint[c] = j;
            if (path_kind[c] < 0 || joint[c] < 0) continue; /* morph weights, or not a joint */
            const jv *interp = jget(smp, "interpolation");
            CHECK(!interp || (interp->type == J_STR && !strcmp(interp->str, "LINEAR")));
            int comps = 0, oc = 0, on = 0;
            in[c] = accessor_floats(&g, (int)jnum(jget(smp, "input"), -1), &in_n[c], &comps);
            out[c] = accessor_floats(&g, (int)jnum(jget(smp, "output"), -1), &on, &oc);
            CHECK(in[c] && out[c] && comps == 1 && on == in_n[c] && oc == (path_kind[c] == 1 ? 4 : 3));
            if (!in[c] || !out[c] || on != in_n[c]) {
                joint[c] = -1;
                continue;
            }
            if (in[c][in_n[c] - 1] > file_duration) file_duration = in[c][in_n[c] - 1];
            if (grid < 0) grid = c;
        }
        CHECK_NEAR(clip->duration, file_duration, 1e-5);
        /* key times every joint channel has: compare there */
        for (int k = 0; grid >= 0 && k < in_n[grid]; k++) {
            float t = in[grid][k];
            for (int j = 0; j < sk->joint_count; j++) {
                const int n = node_of[j];
                memcpy(file_local[j].t, g.t[n], sizeof file_local[j].t);
                memcpy(file_local[j].r, g.r[n], sizeof file_local[j].r);
                memcpy(file_local[j].s, g.s[n], sizeof file_local[j].s);
                keyed[j] = 0;
            }
            int everywhere = 1;
            for (int c = 0; c < nch && everywhere; c++) {
                if (joint[c] < 0) continue;
                int key = -1;
                for (int q = 0; q < in_n[c]; q++)
                    if (in[c][q] == t) key = q;
                if (key < 0) {
                    everywhere = 0;
                    break;
                }
                int w = path_kind[c] == 1 ? 4 : 3;
                double *dst = path_kind[c] == 0 ? file_local[joint[c]].t : path_kind[c] == 1 ? file_local[joint[c]].r : file_local[joint[c]].s;
                for (int q = 0; q < w; q++) dst[q] = out[c][(size_t)key * (size_t)w + (size_t)q];
                keyed[joint[c]] = 1;
            }
            if (!everywhere) continue;
            for (int j = 0; j < sk->joint_count; j++) {
                trs l = file_local[j];
                qnorm(l.r);
                world[j] = compose(j == 0 ? &above : &world[sk->parents[j]], &l);
            }
            CHECK_OK(stance_clip_sample(clip, t, NULL, &local));
            CHECK_OK(stance_local_to_model(&model, &local, sk, NULL));
            compare_pose(sk, &local, &model, world, file_local, keyed, above_scale, 1e-5, &e);
            poses++;
        }
        for (int c = 0; c < nch; c++) free(in[c]), free(out[c]);
        free(in), free(out), free(in_n), free(joint), free(path_kind);
    }
    CHECK(poses > 0);
    printf("     %s: %d joints, %d clips, %ld poses at key times, %ld joint transforms; max error: model position %.2g (relative), "
           "model rotation %.2g, local rotation %.2g, local translation %.2g; %d warnings\n",
           rel, sk->joint_count, a.clip_count, poses, e.compared, e.pos, e.rot, e.local_rot, e.local_pos, warnings.count);
    check_round_trip(&a, rel);

    free(file_local), free(world), free(keyed), free(node_of), free(skin_node);
    stance_pose_destroy(&local);
    stance_pose_destroy(&model);
    stance_asset_destroy(&a);
    gltf_free(&g);
}

static void test_robot_expressive(void) {
    static const want_clip want[] = {{"Idle", 3.333f},    {"Walking", 0.958f}, {"Running", 0.958f}, {"Jump", 0.708f},
                                     {"Wave", 1.833f},    {"Yes", 1.667f},     {"No", 1.667f},      {"WalkJump", 0.833f},
                                     {"Punch", 0.833f},   {"ThumbsUp", 1.583f}, {"Dance", 3.333f},   {"Death", 0.958f},
                                     {"Sitting", 0.417f}, {"Standing", 0.417f}};
    check_gltf("robot_expressive/RobotExpressive.glb", 43, 14, want, (int)(sizeof want / sizeof want[0]));
}

static void test_fox(void) {
    static const want_clip want[] = {{"Survey", 3.417f}, {"Walk", 0.708f}, {"Run", 1.158f}};
    check_gltf("fox/Fox.glb", 24, 3, want, 3);
}

/* --scale multiplies translations: model positions scale, rotations do not. */
static void test_scale_option(void) {
    char path[512];
    data_path(path, sizeof path, "fox/Fox.glb");
    size_t size = 0;
    unsigned char *bytes = read_all(path, &size);
    if (!bytes) return;
    free(bytes);
    stance_asset a, b;
    stance_import_options opt = {.scale = 0.01f};
    CHECK_OK(stance_import_file(path, NULL, NULL, &a, NULL));
    CHECK_OK(stance_import_file(path, &opt, NULL, &b, NULL));
    if (!a.skeleton || !b.skeleton) return;
    stance_pose la, lb, ma, mb;
    int J = a.skeleton->joint_count;
    CHECK_OK(stance_pose_create(&la, J, NULL, NULL));
    CHECK_OK(stance_pose_create(&lb, J, NULL, NULL));
    CHECK_OK(stance_pose_create(&ma, J, NULL, NULL));
    CHECK_OK(stance_pose_create(&mb, J, NULL, NULL));
    CHECK_OK(stance_clip_sample(a.clips[1], 0.3f, NULL, &la));
    CHECK_OK(stance_clip_sample(b.clips[1], 0.3f, NULL, &lb));
    CHECK_OK(stance_local_to_model(&ma, &la, a.skeleton, NULL));
    CHECK_OK(stance_local_to_model(&mb, &lb, b.skeleton, NULL));
    for (int j = 0; j < J; j++) {
        CHECK_NEAR(mb.tx[j], 0.01 * ma.tx[j], 1e-5);
        CHECK_NEAR(mb.ty[j], 0.01 * ma.ty[j], 1e-5);
        CHECK_NEAR(mb.tz[j], 0.01 * ma.tz[j], 1e-5);
        CHECK_NEAR(mb.qw[j], ma.qw[j], 1e-6);
    }
    stance_pose_destroy(&la), stance_pose_destroy(&lb), stance_pose_destroy(&ma), stance_pose_destroy(&mb);
    stance_asset_destroy(&a);
    stance_asset_destroy(&b);
    stance_error err;
    opt.scale = -1.0f;
    CHECK_STATUS(stance_import_file(path, &opt, NULL, &a, &err), STANCE_ERR_ARGUMENT);
    opt.scale = NAN;
    CHECK_STATUS(stance_import_file(path, &opt, NULL, &a, &err), STANCE_ERR_ARGUMENT);
}

/* ---- BVH --------------------------------------------------------------------- */

typedef struct bvh_joint {
    char name[64];
    int parent;
    double offset[3];
    int channels, first; /* channel count, index of the first in a frame */
    int kind[6];         /* 0..2 X/Y/Z position, 3..5 X/Y/Z rotation */
} bvh_joint;

typedef struct bvh {
    bvh_joint joint[256];
    int joint_count, channel_count, frames;
    double frame_time;
    double *motion;
} bvh;

/* The next whitespace-separated token (zero-terminated in place), or "". */
static char *next_tok(char **p) {
    char *s = *p;
    while (*s && isspace((unsigned char)*s)) s++;
    char *start = s;
    while (*s && !isspace((unsigned char)*s)) s++;
    if (*s) *s++ = 0;
    *p = s;
    return start;
}

static int bvh_parse(bvh *b, char *text) {
    memset(b, 0, sizeof *b);
    int stack[256], top = 0, in_end_site = 0, ok = 1;
    char *save = text;
    for (char *tok = next_tok(&save); *tok && ok; tok = next_tok(&save)) {
        if (!strcmp(tok, "ROOT") || !strcmp(tok, "JOINT")) {
            bvh_joint *j = &b->joint[b->joint_count];
            snprintf(j->name, sizeof j->name, "%s", next_tok(&save));
            j->parent = top > 0 ? stack[top - 1] : -1;
            stack[top++] = b->joint_count++;
            ok = b->joint_count < 256 && top < 256;
        } else if (!strcmp(tok, "End")) {
            next_tok(&save); /* Site */
            in_end_site = 1;
        } else if (!strcmp(tok, "OFFSET")) {
            double o[3];
            for (int c = 0; c < 3; c++) o[c] = strtod(next_tok(&save), NULL);
            if (!in_end_site) memcpy(b->joint[stack[top - 1]].offset, o, sizeof o);
        } else if (!strcmp(tok, "CHANNELS")) {
            bvh_joint *j = &b->joint[stack[top - 1]];
            j->channels = atoi(next_tok(&save));
            j->first = b->channel_count;
            b->channel_count += j->channels;
            for (int c = 0; c < j->channels && c < 6; c++) {
                const char *ch = next_tok(&save);
                j->kind[c] = (ch[0] - 'X') + (strstr(ch, "rotation") ? 3 : 0);
            }
        } else if (!strcmp(tok, "}")) {
            if (in_end_site) in_end_site = 0;
            else top--;
        } else if (!strcmp(tok, "Frames:")) {
            b->frames = atoi(next_tok(&save));
        } else if (!strcmp(tok, "Frame")) {
            next_tok(&save); /* Time: */
            b->frame_time = strtod(next_tok(&save), NULL);
            size_t n = (size_t)b->frames * (size_t)b->channel_count;
            b->motion = malloc(sizeof(double) * n);
            for (size_t i = 0; i < n && ok; i++) {
                const char *v = next_tok(&save);
                ok = *v != 0;
                if (v) b->motion[i] = strtod(v, NULL);
            }
            break;
        }
    }
    return ok && b->motion && b->frames > 0 && b->frame_time > 0;
}

static void test_bvh(void) {
    size_t size = 0;
    char *text = (char *)read_all(BVH_PATH, &size);
    if (!text) return;
    bvh *b = malloc(sizeof *b);
    CHECK(bvh_parse(b, text));
    free(text);
    stance_asset a;
    stance_error err;
    stance_import_warnings warnings;
    stance_import_options opt = {.warnings = &warnings};
    stance_status s = stance_import_file(BVH_PATH, &opt, NULL, &a, &err);
    if (s) fprintf(stderr, "%s\n", err.message);
    CHECK_OK(s);
    if (s) {
        free(b->motion), free(b);
        return;
    }
    const stance_skeleton *sk = a.skeleton;
    CHECK(b->joint_count == 31 && sk->joint_count == 31);
    CHECK(b->frames == 2752 && a.clip_count == 1);
    CHECK_NEAR(1.0 / b->frame_time, 120.0, 0.01);
    int *bj = malloc(sizeof(int) * (size_t)sk->joint_count); /* stance joint -> bvh joint */
    for (int j = 0; j < sk->joint_count; j++) {
        bj[j] = 0;
        int found = 0;
        for (int k = 0; k < b->joint_count; k++)
            if (!strcmp(b->joint[k].name, stance_skeleton_joint_name(sk, j))) bj[j] = k, found = 1;
        CHECK(found);
        if (j > 0) CHECK(b->joint[bj[j]].parent == bj[sk->parents[j]]);
    }
    const stance_clip *clip = a.clips[0];
    CHECK(clip->key_count == b->frames);
    CHECK_NEAR(clip->duration, (b->frames - 1) * b->frame_time, 1e-3);
    CHECK_NEAR(clip->duration, 22.925, 0.01);

    stance_pose local, model;
    CHECK_OK(stance_pose_create(&local, sk->joint_count, NULL, NULL));
    CHECK_OK(stance_pose_create(&model, sk->joint_count, NULL, NULL));
    trs *world = malloc(sizeof(trs) * (size_t)sk->joint_count);
    trs *file_local = malloc(sizeof(trs) * (size_t)sk->joint_count);
    unsigned char *all = malloc((size_t)sk->joint_count);
    memset(all, 1, (size_t)sk->joint_count);
    errors e = {0, 0, 0, 0, 0};
    int frames_checked = 0;
    for (int f = 0; f < b->frames; f += (f < 10 || f > b->frames - 10) ? 1 : 7) {
        const double *row = b->motion + (size_t)f * (size_t)b->channel_count;
        for (int j = 0; j < sk->joint_count; j++) {
            const bvh_joint *jt = &b->joint[bj[j]];
            trs l = {{jt->offset[0], jt->offset[1], jt->offset[2]}, {0, 0, 0, 1}, {1, 1, 1}};
            for (int c = 0; c < jt->channels; c++) {
                double v = row[jt->first + c];
                int k = jt->kind[c];
                if (k < 3) {
                    l.t[k] += v; /* the root's position channels add to its (zero) offset */
                } else { /* rotations compose in channel order: R = R1 * R2 * R3 */
                    double half = v * 3.14159265358979323846 / 360.0, q[4] = {0, 0, 0, cos(half)}, r[4];
                    q[k - 3] = sin(half);
                    qmul(l.r, q, r);
                    memcpy(l.r, r, sizeof r);
                }
            }
            file_local[j] = l;
            world[j] = j == 0 ? l : compose(&world[sk->parents[j]], &l);
        }
        float t = (float)(f * b->frame_time);
        CHECK_OK(stance_clip_sample(clip, t, NULL, &local));
        CHECK_OK(stance_local_to_model(&model, &local, sk, NULL));
        /* assimp builds BVH rotations in single precision through a rotation
         * matrix per channel; its quaternions are off by up to ~1.5e-5 */
        compare_pose(sk, &local, &model, world, file_local, all, 1.0, 5e-5, &e);
        frames_checked++;
    }
    printf("     01_01.bvh: %d joints, %d frames at %.1f fps (%.3f s), %d frames compared, %ld joint transforms; max error: "
           "model position %.2g (relative), model rotation %.2g, local rotation %.2g, local translation %.2g; %d warnings\n",
           sk->joint_count, clip->key_count, 1.0 / b->frame_time, (double)clip->duration, frames_checked, e.compared, e.pos,
           e.rot, e.local_rot, e.local_pos, warnings.count);
    check_round_trip(&a, "01_01.bvh");
    stance_pose_destroy(&local);
    stance_pose_destroy(&model);
    free(world), free(file_local), free(all), free(bj), free(b->motion), free(b);
    stance_asset_destroy(&a);
}

/* ---- skins: skin matrices and skinned vertices against the file's nodes ------ */

/* Column-major 4x4 in double. */
typedef struct m4 {
    double m[16];
} m4;

static m4 m4_trs(const double t[3], const double q[4], const double s[3]) {
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y),
                   2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x),
                   2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)}; /* columns */
    m4 o;
    memset(&o, 0, sizeof o);
    for (int c = 0; c < 3; c++)
        for (int rr = 0; rr < 3; rr++) o.m[c * 4 + rr] = r[c * 3 + rr] * s[c];
    o.m[12] = t[0], o.m[13] = t[1], o.m[14] = t[2], o.m[15] = 1;
    return o;
}
static m4 m4_mul(const m4 *a, const m4 *b) {
    m4 o;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) {
            double v = 0;
            for (int k = 0; k < 4; k++) v += a->m[k * 4 + r] * b->m[c * 4 + k];
            o.m[c * 4 + r] = v;
        }
    return o;
}

/* An accessor of floats or unsigned bytes/shorts (normalized when flagged)
 * as doubles, count * comps, malloc'd. */
static double *accessor_any(const gltf *g, int index, int *count, int *comps) {
    const jv *acc = jat(jget(&g->json, "accessors"), index);
    const jv *type = jget(acc, "type");
    *comps = !type || type->type != J_STR ? 0 : !strcmp(type->str, "SCALAR") ? 1 : !strcmp(type->str, "VEC2") ? 2
           : !strcmp(type->str, "VEC3") ? 3 : !strcmp(type->str, "VEC4") ? 4 : !strcmp(type->str, "MAT4") ? 16 : 0;
    *count = (int)jnum(jget(acc, "count"), 0);
    int ct = (int)jnum(jget(acc, "componentType"), 0), cs = ct == 5126 || ct == 5125 ? 4 : ct == 5123 ? 2 : ct == 5121 ? 1 : 0;
    const jv *norm = jget(acc, "normalized");
    int normalized = norm && norm->type == J_BOOL && norm->num == 1;
    const jv *view = jat(jget(&g->json, "bufferViews"), (int)jnum(jget(acc, "bufferView"), -1));
    CHECK(acc && view && *comps && cs);
    if (!acc || !view || !*comps || !cs || *count <= 0) return NULL;
    size_t off = (size_t)jnum(jget(view, "byteOffset"), 0) + (size_t)jnum(jget(acc, "byteOffset"), 0);
    size_t stride = (size_t)jnum(jget(view, "byteStride"), (double)cs * *comps);
    CHECK(off + stride * (size_t)(*count - 1) + (size_t)cs * (size_t)*comps <= g->bin_size);
    double *out = malloc(sizeof(double) * (size_t)*count * (size_t)*comps);
    for (int k = 0; k < *count; k++)
        for (int c = 0; c < *comps; c++) {
            const unsigned char *p = g->bin + off + stride * (size_t)k + (size_t)cs * (size_t)c;
            double v;
            if (ct == 5126) {
                float f;
                uint32_t u = le32(p);
                memcpy(&f, &u, 4);
                v = f;
            } else if (ct == 5125) {
                v = le32(p);
            } else if (ct == 5123) {
                v = (double)(p[0] | p[1] << 8);
                if (normalized) v /= 65535.0;
            } else {
                v = p[0];
                if (normalized) v /= 255.0;
            }
            out[(size_t)k * (size_t)*comps + (size_t)c] = v;
        }
    return out;
}

/* Node world matrices from local TRS (parents first, by recursion). */
static void world_of(const gltf *g, int n, const double (*t)[3], const double (*r)[4], const double (*s)[3], m4 *world,
                     unsigned char *done) {
    if (done[n]) return;
    m4 local = m4_trs(t[n], r[n], s[n]);
    int p = g->parent[n];
    if (p >= 0) {
        world_of(g, p, t, r, s, world, done);
        world[n] = m4_mul(&world[p], &local);
    } else {
        world[n] = local;
    }
    done[n] = 1;
}

/* LINEAR channel value at time t (the spec: lerp, slerp for rotations). */
static void channel_at(const float *in, int n, const float *out, int w, double t, double *v) {
    int k = 0;
    while (k + 1 < n && in[k + 1] <= t) k++;
    if (k + 1 >= n || t <= in[k]) {
        for (int i = 0; i < w; i++) v[i] = out[(size_t)k * (size_t)w + (size_t)i];
        return;
    }
    double u = (t - in[k]) / (in[k + 1] - in[k]);
    const float *a = out + (size_t)k * (size_t)w, *b = a + w;
    if (w == 3) {
        for (int i = 0; i < 3; i++) v[i] = a[i] + (b[i] - a[i]) * u;
        return;
    }
    double qa[4] = {a[0], a[1], a[2], a[3]}, qb[4] = {b[0], b[1], b[2], b[3]};
    qnorm(qa), qnorm(qb);
    double d = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3], sg = d < 0 ? -1 : 1;
    d = fabs(d);
    double wa = 1 - u, wb = u;
    if (d < 1 - 1e-12) {
        double th = acos(d);
        wa = sin((1 - u) * th) / sin(th), wb = sin(u * th) / sin(th);
    }
    for (int i = 0; i < 4; i++) v[i] = wa * qa[i] + sg * wb * qb[i];
    qnorm(v);
}

/* At the rest pose every skin matrix is the identity; at a posed time the
 * skinned vertices equal sum_k w_k * world(joint_k) * inverse_bind_k * v
 * evaluated here from the file (nodes, channels, accessors). */
static void check_skins(const char *rel, const char *clip_name, double t) {
    char path[512];
    data_path(path, sizeof path, rel);
    gltf g;
    if (!gltf_open(&g, path)) {
        gltf_free(&g);
        return;
    }
    stance_asset a;
    stance_error err;
    stance_status st = stance_import_file(path, NULL, NULL, &a, &err);
    CHECK_OK(st);
    if (st) {
        fprintf(stderr, "%s\n", err.message);
        gltf_free(&g);
        return;
    }
    const stance_skeleton *sk = a.skeleton;
    const jv *skins = jget(&g.json, "skins"), *meshes = jget(&g.json, "meshes"), *nodes = jget(&g.json, "nodes");
    /* the file's skins, then "rigid" for meshes that hang from a joint */
    CHECK(a.skin_count == jlen(skins) || (a.skin_count == jlen(skins) + 1 && !strcmp(a.skins[jlen(skins)]->name, "rigid")));
    stance_pose local, model;
    CHECK_OK(stance_pose_create(&local, sk->joint_count, NULL, NULL));
    CHECK_OK(stance_pose_create(&model, sk->joint_count, NULL, NULL));
    float *mats = malloc(sizeof(float) * 16 * STANCE_MAX_SKIN_JOINTS);
    /* At the rest pose, a skin joint whose rest is its bind pose has an
     * identity skin matrix. Which joints those are comes from the file: the
     * world rest matrix x inverse bind equals the skin root's (the bind space
     * of the mesh). RobotExpressive's limbs rest in another pose than they
     * were bound in; its root, spine and feet are at their bind pose. */
    CHECK_OK(stance_pose_set_rest(&local, sk));
    CHECK_OK(stance_local_to_model(&model, &local, sk, NULL));
    double worst_bind = 0;
    int at_bind = 0, skin_joints = 0;
    {
        int N0 = g.node_count;
        m4 *rest_world = malloc(sizeof(m4) * (size_t)N0);
        unsigned char *done0 = calloc((size_t)N0, 1);
        for (int n = 0; n < N0; n++) world_of(&g, n, (const double (*)[3])g.t, (const double (*)[4])g.r, (const double (*)[3])g.s, rest_world, done0);
        for (int i = 0; i < a.skin_count && i < jlen(skins); i++) {
            const jv *joints = jget(jat(skins, i), "joints");
            int ibm_n = 0, ibm_c = 0;
            double *ibm = accessor_any(&g, (int)jnum(jget(jat(skins, i), "inverseBindMatrices"), -1), &ibm_n, &ibm_c);
            CHECK(ibm && ibm_n >= jlen(joints) && a.skins[i]->joint_count == jlen(joints));
            if (!ibm) continue;
            CHECK_OK(stance_skin_matrices(a.skins[i], &model, mats, STANCE_MAX_SKIN_JOINTS));
            /* the skin's root: the joint with no skin joint above it */
            int root = 0;
            for (int k = 0; k < jlen(joints); k++) {
                int n = (int)jnum(jat(joints, k), 0), above = 0;
                for (int p = g.parent[n]; p >= 0; p = g.parent[p])
                    for (int q = 0; q < jlen(joints); q++) above |= (int)jnum(jat(joints, q), -1) == p;
                if (!above) {
                    root = k;
                    break;
                }
            }
            m4 d_root, ib;
            memcpy(ib.m, ibm + 16 * root, sizeof ib.m);
            d_root = m4_mul(&rest_world[(int)jnum(jat(joints, root), 0)], &ib);
            double size = 0;
            for (int e = 0; e < 16; e++) size = fabs(d_root.m[e]) > size ? fabs(d_root.m[e]) : size;
            for (int k = 0; k < jlen(joints) && k < a.skins[i]->joint_count; k++, skin_joints++) {
                memcpy(ib.m, ibm + 16 * k, sizeof ib.m);
                m4 d = m4_mul(&rest_world[(int)jnum(jat(joints, k), 0)], &ib);
                double off = 0;
                for (int e = 0; e < 16; e++) off = fabs(d.m[e] - d_root.m[e]) > off ? fabs(d.m[e] - d_root.m[e]) : off;
                if (off > 1e-4 * size) continue;
                at_bind++;
                for (int e = 0; e < 16; e++) {
                    double dd = fabs(mats[16 * k + e] - (e % 5 == 0 ? 1.0 : 0.0));
                    if (dd > worst_bind) worst_bind = dd;
                }
            }
            free(ibm);
        }
        free(rest_world), free(done0);
    }
    CHECK(at_bind > 0 && worst_bind <= 1e-4);

    /* The bind pose itself, from the file: joint k's world at bind is
     * D_root x inverse_bind_k^-1. In stance's model space (the file's world,
     * the uniform scale above the skeleton moved out of the joints' frames)
     * that pose gives identity skin matrices for every joint. */
    double worst_true_bind = 0;
    int bind_checked = 0;
    {
        m4 *rest_world = malloc(sizeof(m4) * (size_t)g.node_count);
        unsigned char *done0 = calloc((size_t)g.node_count, 1);
        for (int n = 0; n < g.node_count; n++) world_of(&g, n, (const double (*)[3])g.t, (const double (*)[4])g.r, (const double (*)[3])g.s, rest_world, done0);
        /* the scale above the skeleton: the world scale of the root joint's parent */
        int root_node = -1;
        for (int n = 0; n < g.node_count; n++)
            if (!strcmp(node_name(&g, n), stance_skeleton_joint_name(sk, 0))) root_node = n;
        double above_s = 1;
        if (root_node >= 0 && g.parent[root_node] >= 0) {
            const double *m = rest_world[g.parent[root_node]].m;
            above_s = (sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]) + sqrt(m[4] * m[4] + m[5] * m[5] + m[6] * m[6]) +
                       sqrt(m[8] * m[8] + m[9] * m[9] + m[10] * m[10])) / 3;
        }
        for (int i = 0; i < a.skin_count && i < jlen(skins); i++) {
            const jv *joints = jget(jat(skins, i), "joints");
            int nj = jlen(joints), ibm_n = 0, ibm_c = 0;
            double *ibm = accessor_any(&g, (int)jnum(jget(jat(skins, i), "inverseBindMatrices"), -1), &ibm_n, &ibm_c);
            if (!ibm) continue;
            int root = 0;
            for (int k = 0; k < nj; k++) {
                int n = (int)jnum(jat(joints, k), 0), above = 0;
                for (int p = g.parent[n]; p >= 0; p = g.parent[p])
                    for (int q = 0; q < nj; q++) above |= (int)jnum(jat(joints, q), -1) == p;
                if (!above) {
                    root = k;
                    break;
                }
            }
            m4 ib, d_root;
            memcpy(ib.m, ibm + 16 * root, sizeof ib.m);
            d_root = m4_mul(&rest_world[(int)jnum(jat(joints, root), 0)], &ib);
            CHECK_OK(stance_pose_set_rest(&model, sk)); /* joints outside the skin: any value */
            for (int k = 0; k < nj; k++) {
                const char *nm = node_name(&g, (int)jnum(jat(joints, k), 0));
                int j = -1;
                for (int q = 0; q < sk->joint_count; q++)
                    if (!strcmp(stance_skeleton_joint_name(sk, q), nm)) j = q;
                CHECK(j >= 0 && a.skins[i]->joints[k] == j);
                if (j < 0) continue;
                /* B = D_root x inverse(inverse_bind): the inverse of an affine 4x4 */
                const double *m = ibm + 16 * k;
                double det = m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2]) + m[8] * (m[1] * m[6] - m[5] * m[2]);
                m4 inv;
                memset(&inv, 0, sizeof inv);
                inv.m[0] = (m[5] * m[10] - m[9] * m[6]) / det, inv.m[4] = (m[8] * m[6] - m[4] * m[10]) / det, inv.m[8] = (m[4] * m[9] - m[8] * m[5]) / det;
                inv.m[1] = (m[9] * m[2] - m[1] * m[10]) / det, inv.m[5] = (m[0] * m[10] - m[8] * m[2]) / det, inv.m[9] = (m[8] * m[1] - m[0] * m[9]) / det;
                inv.m[2] = (m[1] * m[6] - m[5] * m[2]) / det, inv.m[6] = (m[4] * m[2] - m[0] * m[6]) / det, inv.m[10] = (m[0] * m[5] - m[4] * m[1]) / det;
                for (int r = 0; r < 3; r++) inv.m[12 + r] = -(inv.m[r] * m[12] + inv.m[4 + r] * m[13] + inv.m[8 + r] * m[14]);
                inv.m[15] = 1;
                m4 b = m4_mul(&d_root, &inv);
                /* its translation, rotation and scale (no mirror in these files) */
                double sc[3], R[9];
                for (int c = 0; c < 3; c++) {
                    sc[c] = sqrt(b.m[4 * c] * b.m[4 * c] + b.m[4 * c + 1] * b.m[4 * c + 1] + b.m[4 * c + 2] * b.m[4 * c + 2]);
                    for (int r = 0; r < 3; r++) R[3 * c + r] = b.m[4 * c + r] / sc[c]; /* R[col][row] */
                }
                double q[4], tr = R[0] + R[4] + R[8];
                if (tr > 0) {
                    double w = sqrt(tr + 1) * 2;
                    q[3] = 0.25 * w, q[0] = (R[5] - R[7]) / w, q[1] = (R[6] - R[2]) / w, q[2] = (R[1] - R[3]) / w;
                } else if (R[0] > R[4] && R[0] > R[8]) {
                    double w = sqrt(1 + R[0] - R[4] - R[8]) * 2;
                    q[3] = (R[5] - R[7]) / w, q[0] = 0.25 * w, q[1] = (R[3] + R[1]) / w, q[2] = (R[6] + R[2]) / w;
                } else if (R[4] > R[8]) {
                    double w = sqrt(1 + R[4] - R[0] - R[8]) * 2;
                    q[3] = (R[6] - R[2]) / w, q[0] = (R[3] + R[1]) / w, q[1] = 0.25 * w, q[2] = (R[7] + R[5]) / w;
                } else {
                    double w = sqrt(1 + R[8] - R[0] - R[4]) * 2;
                    q[3] = (R[1] - R[3]) / w, q[0] = (R[6] + R[2]) / w, q[1] = (R[7] + R[5]) / w, q[2] = 0.25 * w;
                }
                qnorm(q);
                model.tx[j] = (float)b.m[12], model.ty[j] = (float)b.m[13], model.tz[j] = (float)b.m[14];
                model.qx[j] = (float)q[0], model.qy[j] = (float)q[1], model.qz[j] = (float)q[2], model.qw[j] = (float)q[3];
                model.sx[j] = (float)(sc[0] / above_s), model.sy[j] = (float)(sc[1] / above_s), model.sz[j] = (float)(sc[2] / above_s);
            }
            CHECK_OK(stance_skin_matrices(a.skins[i], &model, mats, STANCE_MAX_SKIN_JOINTS));
            for (int k = 0; k < a.skins[i]->joint_count; k++, bind_checked++)
                for (int e = 0; e < 16; e++) {
                    double dd = fabs(mats[16 * k + e] - (e % 5 == 0 ? 1.0 : 0.0));
                    if (dd > worst_true_bind) worst_true_bind = dd;
                }
            free(ibm);
        }
        free(rest_world), free(done0);
    }
    CHECK(bind_checked > 0 && worst_true_bind <= 1e-4);

    /* the posed frame: node TRS from the file, animated by the clip's channels */
    int N = g.node_count;
    double (*nt)[3] = malloc(sizeof(*nt) * (size_t)N), (*nr)[4] = malloc(sizeof(*nr) * (size_t)N), (*ns)[3] = malloc(sizeof(*ns) * (size_t)N);
    memcpy(nt, g.t, sizeof(*nt) * (size_t)N), memcpy(nr, g.r, sizeof(*nr) * (size_t)N), memcpy(ns, g.s, sizeof(*ns) * (size_t)N);
    const jv *anims = jget(&g.json, "animations");
    for (int ai = 0; ai < jlen(anims); ai++) {
        const jv *an = jat(anims, ai), *name = jget(an, "name");
        if (!name || name->type != J_STR || strcmp(name->str, clip_name)) continue;
        const jv *channels = jget(an, "channels"), *samplers = jget(an, "samplers");
        for (int c = 0; c < jlen(channels); c++) {
            const jv *ch = jat(channels, c), *target = jget(ch, "target"), *pth = jget(target, "path");
            const jv *smp = jat(samplers, (int)jnum(jget(ch, "sampler"), -1));
            int node = (int)jnum(jget(target, "node"), -1), n_in = 0, n_out = 0, ci = 0, co = 0;
            if (!pth || pth->type != J_STR || node < 0 || node >= N || !strcmp(pth->str, "weights")) continue;
            float *in = accessor_floats(&g, (int)jnum(jget(smp, "input"), -1), &n_in, &ci);
            float *out = accessor_floats(&g, (int)jnum(jget(smp, "output"), -1), &n_out, &co);
            if (in && out) {
                if (!strcmp(pth->str, "translation")) channel_at(in, n_in, out, 3, t, nt[node]);
                else if (!strcmp(pth->str, "rotation")) channel_at(in, n_in, out, 4, t, nr[node]);
                else if (!strcmp(pth->str, "scale")) channel_at(in, n_in, out, 3, t, ns[node]);
            }
            free(in), free(out);
        }
    }
    m4 *world = malloc(sizeof(m4) * (size_t)N);
    unsigned char *done = calloc((size_t)N, 1);
    for (int n = 0; n < N; n++) world_of(&g, n, (const double (*)[3])nt, (const double (*)[4])nr, (const double (*)[3])ns, world, done);
    const stance_clip *clip = stance_asset_find_clip(&a, clip_name);
    CHECK(clip != NULL);
    if (clip) {
        CHECK_OK(stance_clip_sample(clip, (float)t, NULL, &local));
        CHECK_OK(stance_local_to_model(&model, &local, sk, NULL));
    }
    int mi = 0;
    long vertices = 0;
    double worst = 0, size = 0;
    for (int n = 0; n < N && clip; n++) {
        const jv *node = jat(nodes, n);
        int skin = (int)jnum(jget(node, "skin"), -1), mesh = (int)jnum(jget(node, "mesh"), -1);
        if (skin < 0 || mesh < 0) continue;
        const jv *joints = jget(jat(skins, skin), "joints");
        int nj = jlen(joints), ibm_n = 0, ibm_c = 0;
        double *ibm = accessor_any(&g, (int)jnum(jget(jat(skins, skin), "inverseBindMatrices"), -1), &ibm_n, &ibm_c);
        const jv *prims = jget(jat(meshes, mesh), "primitives");
        for (int p = 0; p < jlen(prims) && ibm && mi < a.mesh_count; p++, mi++) {
            const stance_mesh *m = a.meshes[mi];
            const jv *attrs = jget(jat(prims, p), "attributes");
            int vc = 0, c3 = 0, jc = 0, c4 = 0, wc = 0, c4b = 0;
            double *pos = accessor_any(&g, (int)jnum(jget(attrs, "POSITION"), -1), &vc, &c3);
            double *jo = accessor_any(&g, (int)jnum(jget(attrs, "JOINTS_0"), -1), &jc, &c4);
            double *we = accessor_any(&g, (int)jnum(jget(attrs, "WEIGHTS_0"), -1), &wc, &c4b);
            CHECK(m->vertex_count == vc && jc == vc && wc == vc && c3 == 3 && c4 == 4 && c4b == 4);
            CHECK_OK(stance_skin_matrices(a.skins[m->skin], &model, mats, STANCE_MAX_SKIN_JOINTS));
            for (int v = 0; v < vc && m->vertex_count == vc; v++, vertices++) {
                double want[3] = {0, 0, 0}, got[3] = {0, 0, 0}, wsum = 0;
                for (int k = 0; k < 4; k++) wsum += we[4 * v + k];
                for (int k = 0; k < 4; k++) {
                    double w = we[4 * v + k] / wsum;
                    int j = (int)jo[4 * v + k];
                    if (w == 0 || j >= nj) continue;
                    m4 ib;
                    memcpy(ib.m, ibm + 16 * j, sizeof ib.m);
                    m4 sm = m4_mul(&world[(int)jnum(jat(joints, j), 0)], &ib);
                    const double *x = pos + 3 * v;
                    for (int r = 0; r < 3; r++) want[r] += w * (sm.m[r] * x[0] + sm.m[4 + r] * x[1] + sm.m[8 + r] * x[2] + sm.m[12 + r]);
                }
                for (int k = 0; k < 4; k++) {
                    const float *M = mats + 16 * m->joints[4 * v + k];
                    const float *x = m->positions + 3 * v;
                    double w = m->weights[4 * v + k];
                    for (int r = 0; r < 3; r++) got[r] += w * (M[r] * x[0] + M[4 + r] * x[1] + M[8 + r] * x[2] + M[12 + r]);
                }
                for (int r = 0; r < 3; r++) {
                    if (fabs(got[r] - want[r]) > worst) worst = fabs(got[r] - want[r]);
                    if (fabs(want[r]) > size) size = fabs(want[r]);
                }
            }
            free(pos), free(jo), free(we);
        }
        free(ibm);
    }
    /* meshes without a skin that hang from a joint follow it rigidly: the
     * file's node world matrix x vertex */
    long rigid_vertices = 0;
    for (int n = 0; n < N && clip; n++) {
        const jv *node = jat(nodes, n);
        int mesh = (int)jnum(jget(node, "mesh"), -1);
        if (mesh < 0 || jget(node, "skin")) continue;
        int under = 0;
        for (int q = n; q >= 0 && !under; q = g.parent[q])
            for (int j = 0; j < sk->joint_count; j++) under |= !strcmp(stance_skeleton_joint_name(sk, j), node_name(&g, q));
        if (!under) continue;
        const jv *prims = jget(jat(meshes, mesh), "primitives");
        for (int p = 0; p < jlen(prims) && mi < a.mesh_count; p++, mi++) {
            const stance_mesh *m = a.meshes[mi];
            int vc = 0, c3 = 0;
            double *pos = accessor_any(&g, (int)jnum(jget(jget(jat(prims, p), "attributes"), "POSITION"), -1), &vc, &c3);
            CHECK(pos && m->vertex_count == vc && c3 == 3 && m->skin >= 0);
            if (!pos || m->vertex_count != vc) {
                free(pos);
                continue;
            }
            CHECK_OK(stance_skin_matrices(a.skins[m->skin], &model, mats, STANCE_MAX_SKIN_JOINTS));
            const m4 *W = &world[n];
            for (int v = 0; v < vc; v++, rigid_vertices++) {
                const double *x = pos + 3 * v;
                double want[3], got[3] = {0, 0, 0};
                for (int r = 0; r < 3; r++) want[r] = W->m[r] * x[0] + W->m[4 + r] * x[1] + W->m[8 + r] * x[2] + W->m[12 + r];
                for (int k = 0; k < 4; k++) {
                    const float *M = mats + 16 * m->joints[4 * v + k];
                    const float *y = m->positions + 3 * v;
                    double w = m->weights[4 * v + k];
                    for (int r = 0; r < 3; r++) got[r] += w * (M[r] * y[0] + M[4 + r] * y[1] + M[8 + r] * y[2] + M[12 + r]);
                }
                for (int r = 0; r < 3; r++) {
                    if (fabs(got[r] - want[r]) > worst) worst = fabs(got[r] - want[r]);
                    if (fabs(want[r]) > size) size = fabs(want[r]);
                }
            }
            free(pos);
        }
    }
    CHECK(mi == a.mesh_count && vertices > 0);
    CHECK(worst <= 1e-4 * (size > 1 ? size : 1));
    printf("     %s: %d skins, %d meshes; bind pose (from the inverse binds): %d skin matrices within %.2g of identity; rest "
           "pose: %d of %d skin joints at their bind pose, within %.2g of identity; '%s' at %.3f s: %ld skinned and %ld "
           "rigid vertices within %.2g of the file's (extent %.3g)\n",
           rel, a.skin_count, a.mesh_count, bind_checked, worst_true_bind, at_bind, skin_joints, worst_bind, clip_name, t,
           vertices, rigid_vertices, worst, size);
    free(nt), free(nr), free(ns), free(world), free(done), free(mats);
    stance_pose_destroy(&local);
    stance_pose_destroy(&model);
    stance_asset_destroy(&a);
    gltf_free(&g);
}

static void test_robot_skins(void) { check_skins("robot_expressive/RobotExpressive.glb", "Wave", 0.61); }
static void test_fox_skins(void) { check_skins("fox/Fox.glb", "Run", 0.4); }
/* rest pose = bind pose for the whole Fox: every skin matrix is the identity there */

/* ---- errors ------------------------------------------------------------------ */

static void test_import_errors(void) {
    stance_asset a;
    stance_error err;
    CHECK_STATUS(stance_import_file("/nonexistent/x.glb", NULL, NULL, &a, &err), STANCE_ERR_IO);
    CHECK(strstr(err.message, "/nonexistent/x.glb") != NULL);
    CHECK_STATUS(stance_import_file(".", NULL, NULL, &a, &err), STANCE_ERR_IO);
    CHECK_STATUS(stance_import_file(NULL, NULL, NULL, &a, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_import_file("x", NULL, NULL, NULL, &err), STANCE_ERR_ARGUMENT);
    CHECK_STATUS(stance_open_file("/nonexistent/x.stance", NULL, NULL, &a, &err), STANCE_ERR_IO);
    CHECK(a.skeleton == NULL && a.clips == NULL);
}

int main(void) {
    RUN(test_robot_expressive);
    RUN(test_fox);
    RUN(test_robot_skins);
    RUN(test_fox_skins);
    RUN(test_scale_option);
    RUN(test_bvh);
    RUN(test_import_errors);
    return check_summary();
}
