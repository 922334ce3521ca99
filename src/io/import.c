/* src/io/import.c - skeletal animation from interchange files through the
 * assimp C API: picks the skeleton out of assimp's node tree, bakes what
 * lies above it into its root, converts ticks to seconds, and builds the
 * asset through stance_skeleton_create / stance_clip_create.
 *
 * Owns nothing beyond one import: assimp's scene is released before
 * returning, temporaries are freed, the asset belongs to the caller.
 * Everything assimp hands over (pointers, counts, names, floats) is checked
 * before use: malformed files are expected here. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bvh_scan.h"
#include "collada_clips.h"
#include "gltf_bake.h"
#include "core/internal.h"
#include "gltf.h"
#include "stance/import.h"
#include "import_mesh.h"

#ifdef STANCE_HAVE_ASSIMP
#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/material.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#endif

/* Opens `path`, reads its first bytes and finds its size: a missing file,
 * a directory and an empty file get their own message. */
static stance_status probe_file(const char *path, unsigned char *head, size_t cap, size_t *got,
                                long *size, stance_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f) return st_fail(err, STANCE_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    errno = 0;
    size_t n = fread(head, 1, cap, f);
    int e = errno, failed = ferror(f);
    *size = -1;
    if (!failed && fseek(f, 0, SEEK_END) == 0) *size = ftell(f);
    fclose(f);
    if (failed) return st_fail(err, STANCE_ERR_IO, "%s: cannot read: %s", path, e ? strerror(e) : "read error");
    if (n == 0) return st_fail(err, STANCE_ERR_FORMAT, "%s: the file is empty", path);
    *got = n;
    return STANCE_OK;
}

static stance_status check_args(const char *path, const stance_import_options *opt,
                                const stance_allocator *allocator, stance_asset *out,
                                stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "import: out is NULL");
    memset(out, 0, sizeof *out);
    if (!path || !path[0]) return st_fail(err, STANCE_ERR_ARGUMENT, "import: path is NULL or empty");
    if (opt && (!isfinite(opt->scale) || opt->scale < 0.0f))
        return st_fail(err, STANCE_ERR_ARGUMENT, "%s: scale %g is not a finite number > 0", path, (double)opt->scale);
    if (st_check_allocator(allocator, path, err)) return STANCE_ERR_ARGUMENT;
    return STANCE_OK;
}

/* Checks the arguments, clears the warnings, reads the file's first bytes
 * and its size: the start that opening and importing share. */
#define HEAD_BYTES 20
static stance_status begin(const char *path, const stance_import_options *opt, const stance_allocator *allocator,
                           stance_asset *out, unsigned char *head, size_t *got, long *size, stance_error *err) {
    stance_status s = check_args(path, opt, allocator, out, err);
    if (s) return s;
    if (opt && opt->warnings) memset(opt->warnings, 0, sizeof *opt->warnings);
    if (opt && opt->report) opt->report->count = 0;
    return probe_file(path, head, HEAD_BYTES, got, size, err);
}

/* glTF (by the GLB magic or the .gltf/.glb extension) goes to gltf.cpp. */
static int is_gltf(const char *path, const unsigned char *head, size_t got) {
    if (got >= 4 && !memcmp(head, "glTF", 4)) return 1;
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash)) return 0;
    char ext[6] = {0};
    for (int i = 0; i < 5 && dot[1 + i]; i++) ext[i] = (char)tolower((unsigned char)dot[1 + i]);
    return !strcmp(ext, "gltf") || !strcmp(ext, "glb");
}

static stance_status import_gltf(const char *path, const stance_import_options *opt, const stance_allocator *allocator,
                                 stance_asset *out, stance_error *err) {
#ifdef STANCE_HAVE_TINYGLTF
    stance_status s = stance_gltf_import(path, opt, allocator, out, err);
    if (s && opt && opt->report) opt->report->count = 0;
    return s;
#else
    (void)opt, (void)allocator, (void)out;
    return st_fail(err, STANCE_ERR_UNSUPPORTED, "%s: cannot import glTF: built without tinygltf (install libtinygltf-dev)", path);
#endif
}

/* The import proper, once the file was probed (built with or without assimp). */
static stance_status import_probed(const char *path, const unsigned char *head, size_t got, long size,
                                   const stance_import_options *opt, const stance_allocator *allocator,
                                   stance_asset *out, stance_error *err);

stance_status stance_open_file(const char *path, const stance_import_options *opt,
                               const stance_allocator *allocator, stance_asset *out, stance_error *err) {
    unsigned char head[HEAD_BYTES];
    size_t got = 0;
    long size = 0;
    stance_status s = begin(path, opt, allocator, out, head, &got, &size, err);
    if (s) return s;
    if (stance_asset_is_native(head, got)) return stance_asset_load_file(path, allocator, out, err);
    if (is_gltf(path, head, got)) return import_gltf(path, opt, allocator, out, err);
    return import_probed(path, head, got, size, opt, allocator, out, err);
}

stance_status stance_import_file(const char *path, const stance_import_options *opt,
                                 const stance_allocator *allocator, stance_asset *out, stance_error *err) {
    unsigned char head[HEAD_BYTES];
    size_t got = 0;
    long size = 0;
    stance_status s = begin(path, opt, allocator, out, head, &got, &size, err);
    if (s) return s;
    if (is_gltf(path, head, got)) return import_gltf(path, opt, allocator, out, err);
    return import_probed(path, head, got, size, opt, allocator, out, err);
}

void stance_import_warnings_print(const stance_import_warnings *w, const char *prefix, FILE *f) {
    if (!w || !f) return;
    for (int i = 0; i < w->count && i < STANCE_IMPORT_WARNINGS; i++)
        fprintf(f, "%s%.*s\n", prefix ? prefix : "", (int)sizeof w->message[i], w->message[i]);
    if (w->count > STANCE_IMPORT_WARNINGS)
        fprintf(f, "%s%d more warnings\n", prefix ? prefix : "", w->count - STANCE_IMPORT_WARNINGS);
}

#ifndef STANCE_HAVE_ASSIMP

static stance_status import_probed(const char *path, const unsigned char *head, size_t got, long size,
                                   const stance_import_options *opt, const stance_allocator *allocator,
                                   stance_asset *out, stance_error *err) {
    (void)head, (void)got, (void)size, (void)opt, (void)allocator, (void)out;
    return st_fail(err, STANCE_ERR_UNSUPPORTED, "%s: cannot import: built without assimp", path);
}

#else

#define MAX_NODES (1 << 20) /* more means a broken (or cyclic) node tree */

/* Formats that can hold a skeleton and its animation. Others (OBJ, STL,
 * OFF, ...) are refused before assimp reads them: they cannot give a clip,
 * and some of assimp's readers spend minutes and gigabytes on a bad count. */
static int skeletal_format(const char *path) {
    static const char *const ext[] = {"gltf", "glb", "bvh", "fbx", "dae", "zae", "x", "smd", "vta",
                                      "md5mesh", "md5anim", "ms3d", "b3d", "ase"};
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash)) return 0;
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        const char *a = dot + 1, *b = ext[i];
        while (*a && *b && tolower((unsigned char)*a) == *b) a++, b++;
        if (!*a && !*b) return 1;
    }
    return 0;
}

/* ASCII case-insensitive comparison: 0 when equal. */
static int strcasecmp_ascii(const char *a, const char *b) {
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 1;
    return *a || *b;
}

static uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The binary glTF header and first chunk head, which assimp checks only in
 * part (a wrong total length goes through). */
static stance_status check_glb(const char *path, const unsigned char *h, size_t got, long size, stance_error *err) {
    if (got < 20 || size < 20)
        return st_fail(err, STANCE_ERR_FORMAT, "%s: GLB: shorter than its 20-byte header", path);
    if (memcmp(h, "glTF", 4) || le32(h + 4) != 2)
        return st_fail(err, STANCE_ERR_FORMAT, "%s: GLB: bad magic or version (want glTF 2)", path);
    if ((long)le32(h + 8) != size)
        return st_fail(err, STANCE_ERR_FORMAT, "%s: GLB: the header gives %u bytes, the file has %ld", path,
                       (unsigned)le32(h + 8), size);
    if (le32(h + 16) != 0x4E4F534Au || le32(h + 12) > (uint32_t)(size - 20))
        return st_fail(err, STANCE_ERR_FORMAT, "%s: GLB: the first chunk is not JSON or runs past the end", path);
    return STANCE_OK;
}

/* ---- small double-precision transform maths: gltf_bake.h's ------------------ */

typedef stance_bake_xform xform;
typedef stance_bake_mat mat4;

static mat4 mat_from_ai(const struct aiMatrix4x4 *a) {
    mat4 m = {{{a->a1, a->a2, a->a3, a->a4}, {a->b1, a->b2, a->b3, a->b4}, {a->c1, a->c2, a->c3, a->c4}}};
    return m;
}

/* ---- the import ------------------------------------------------------------ */

typedef struct node_rec {
    const struct aiNode *node;
    int parent; /* index into the flat list; -1 for the scene root */
    int depth;
    int mark;   /* 1: a joint (bone or animated node), 2: a node that connects joints */
    int joint;  /* index in the skeleton, or -1 */
} node_rec;

typedef struct importer {
    const char *path;
    const stance_import_options *opt;
    stance_error *err;
    const struct aiScene *scene;
    node_rec *nodes;
    int node_count;
    int root;            /* flat index of the skeleton's root */
    int joint_count;
    int *joint_node;     /* joint -> flat index */
    double scale;        /* the option's scale */
    double push_scale;   /* uniform scale above the skeleton, moved into translations */
    xform above;         /* the transform above the skeleton root (its scale in push_scale) */
    int above_identity;  /* 1 when `above` changes nothing */
    size_t budget;       /* bytes the import may allocate for keys (options.max_memory) */
    size_t used;         /* bytes of the clips kept so far */
    int strict;          /* options.strict */
    int from_skin;       /* the skeleton is the meshes' bones */
    mat4 basis;          /* file world -> metres, Y up (FBX), else identity */
} importer;

/* One line, printable: assimp's messages may hold newlines. */
static void one_line(char *s) {
    for (; *s; s++)
        if ((unsigned char)*s < 32 || *s == 127) *s = ' ';
}

static void warnf(importer *im, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void warnf(importer *im, const char *fmt, ...) {
    stance_import_warnings *w = im->opt ? im->opt->warnings : NULL;
    if (!w) return;
    if (w->count < STANCE_IMPORT_WARNINGS) {
        char *msg = w->message[w->count];
        size_t cap = sizeof w->message[0];
        int n = snprintf(msg, cap, "%s: ", im->path);
        if (n < 0 || (size_t)n >= cap) n = 0;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg + n, cap - (size_t)n, fmt, ap);
        va_end(ap);
        one_line(msg);
    }
    w->count++;
}

/* An aiString's bytes, bounded: its length is clamped to the buffer and cut
 * at the first zero byte. */
static size_t ai_len(const struct aiString *s) {
    size_t n = s->length < MAXLEN ? s->length : MAXLEN - 1;
    const char *z = memchr(s->data, 0, n);
    return z ? (size_t)(z - s->data) : n;
}
static int ai_eq(const struct aiString *a, const struct aiString *b) {
    size_t n = ai_len(a);
    return n == ai_len(b) && !memcmp(a->data, b->data, n);
}
/* A printable copy for messages: at most 63 bytes, control bytes as '?'. */
static const char *ai_show(const struct aiString *s, char buf[64]) {
    size_t n = ai_len(s);
    if (n > 63) n = 63;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s->data[i];
        buf[i] = ch < 32 || ch == 127 ? '?' : (char)ch;
    }
    buf[n] = 0;
    return buf;
}


static stance_status flatten(importer *im) {
    const struct aiNode *root = im->scene->mRootNode;
    if (!root) return st_fail(im->err, STANCE_ERR_FORMAT, "%s: the scene has no root node", im->path);
    int cap = 256;
    im->nodes = malloc(sizeof(node_rec) * (size_t)cap);
    int stack_cap = 256, top = 0;
    int *stack = malloc(sizeof(int) * (size_t)stack_cap);
    if (!im->nodes || !stack) {
        free(stack);
        return st_fail(im->err, STANCE_ERR_MEMORY, "%s: out of memory", im->path);
    }
    /* a node is appended while its parent is expanded, so parents come
     * before children; siblings get indices in file order */
    node_rec r0 = {root, -1, 0, 0, -1};
    im->nodes[0] = r0;
    im->node_count = 1;
    stack[top++] = 0;
    stance_status s = STANCE_OK;
    while (top > 0 && !s) {
        int at = stack[--top];
        const struct aiNode *n = im->nodes[at].node;
        if (n->mNumChildren > 0 && !n->mChildren) {
            char b[64];
            s = st_fail(im->err, STANCE_ERR_FORMAT, "%s: node '%s' has %u children and no child list", im->path,
                        ai_show(&n->mName, b), n->mNumChildren);
            break;
        }
        for (unsigned i = 0; i < n->mNumChildren; i++) {
            const struct aiNode *c = n->mChildren[i];
            if (!c) continue;
            if (im->node_count >= MAX_NODES) {
                s = st_fail(im->err, STANCE_ERR_FORMAT, "%s: more than %d nodes (or a cycle in the node tree)", im->path, MAX_NODES);
                break;
            }
            if (im->node_count == cap || top == stack_cap) {
                int ncap = cap * 2, nstack = stack_cap * 2;
                node_rec *nn = realloc(im->nodes, sizeof(node_rec) * (size_t)ncap);
                if (nn) im->nodes = nn, cap = ncap;
                int *ns = nn ? realloc(stack, sizeof(int) * (size_t)nstack) : NULL;
                if (ns) stack = ns, stack_cap = nstack;
                if (!nn || !ns) {
                    s = st_fail(im->err, STANCE_ERR_MEMORY, "%s: out of memory", im->path);
                    break;
                }
            }
            node_rec r = {c, at, im->nodes[at].depth + 1, 0, -1};
            im->nodes[im->node_count] = r;
            stack[top++] = im->node_count++;
        }
    }
    free(stack);
    return s;
}

/* Is there a bone of this name in any (real) mesh? */
typedef struct bone_list {
    const struct aiString **names;
    int count;
} bone_list;

static int bone_named(const bone_list *b, const struct aiString *name) {
    for (int i = 0; i < b->count; i++)
        if (ai_eq(b->names[i], name)) return 1;
    return 0;
}

/* The node a bone or channel of that name means. Names may repeat (glTF
 * mesh nodes often share their joint's name): prefer a node whose parent is
 * a bone, that holds no mesh, and that has a bone below it. */
static int find_node(const importer *im, const struct aiString *name, const bone_list *bones) {
    int best = -1, best_score = -1;
    for (int i = 0; i < im->node_count; i++) {
        const struct aiNode *n = im->nodes[i].node;
        if (!ai_eq(&n->mName, name)) continue;
        int score = 0;
        if (n->mNumMeshes == 0) score += 1;
        if (bones && im->nodes[i].parent >= 0 && bone_named(bones, &im->nodes[im->nodes[i].parent].node->mName)) score += 2;
        if (bones && n->mChildren)
            for (unsigned c = 0; c < n->mNumChildren; c++)
                if (n->mChildren[c] && bone_named(bones, &n->mChildren[c]->mName)) {
                    score += 1;
                    break;
                }
        if (score > best_score) best = i, best_score = score;
    }
    return best;
}

/* Meshes assimp makes to draw a skeleton (BVH, ...) carry no skin. */
static int is_skeleton_drawing(const struct aiScene *sc, const struct aiMesh *m) {
    if (m->mMaterialIndex >= sc->mNumMaterials || !sc->mMaterials || !sc->mMaterials[m->mMaterialIndex]) return 0;
    struct aiString name;
    if (aiGetMaterialString(sc->mMaterials[m->mMaterialIndex], AI_MATKEY_NAME, &name) != aiReturn_SUCCESS) return 0;
    return ai_len(&name) == 16 && !memcmp(name.data, "SkeletonMaterial", 16);
}

/* What a node is when it is not something a skeleton holds: a camera, a
 * light, or the target node of one ("<name>.Target", as 3ds Max writes
 * them), by the names in the scene's camera and light lists. NULL otherwise. */
static const char *scene_object_kind(const struct aiScene *sc, const struct aiString *name) {
    for (unsigned i = 0; sc->mCameras && i < sc->mNumCameras; i++)
        if (sc->mCameras[i] && ai_eq(&sc->mCameras[i]->mName, name)) return "camera";
    for (unsigned i = 0; sc->mLights && i < sc->mNumLights; i++)
        if (sc->mLights[i] && ai_eq(&sc->mLights[i]->mName, name)) return "light";
    size_t n = ai_len(name);
    if (n > 7 && !memcmp(name->data + n - 7, ".Target", 7)) {
        struct aiString base;
        memset(&base, 0, sizeof base);
        base.length = (ai_uint32)(n - 7);
        memcpy(base.data, name->data, n - 7);
        if (scene_object_kind(sc, &base)) return "camera or light target";
    }
    return NULL;
}

/* Files without a skin: the animated nodes must hang under one root. When
 * they spread over several subtrees of an unanimated scene root (a
 * character, and a sky or prop animated on its own), the subtree with the
 * most animated nodes is the skeleton; the others are left out. */
static void keep_one_subtree(importer *im, int marked) {
    if (im->nodes[0].mark) return;
    int *count = calloc((size_t)im->node_count, sizeof(int)), *top = malloc(sizeof(int) * (size_t)im->node_count);
    if (!count || !top) {
        free(count), free(top);
        return; /* then the scene root joins them, as before */
    }
    int best = -1, groups = 0;
    for (int i = 1; i < im->node_count; i++) {
        top[i] = im->nodes[i].parent == 0 ? i : top[im->nodes[i].parent]; /* parents come first */
        if (!im->nodes[i].mark) continue;
        if (count[top[i]]++ == 0) groups++;
        if (best < 0 || count[top[i]] > count[best]) best = top[i];
    }
    if (groups > 1) {
        char b[64];
        warnf(im, "animated nodes outside the skeleton under '%s' left out: %d of %d (a file without a skin keeps one root)",
              ai_show(&im->nodes[best].node->mName, b), marked - count[best], marked);
        for (int i = 1; i < im->node_count; i++)
            if (im->nodes[i].mark && top[i] != best) im->nodes[i].mark = 0;
    }
    free(count), free(top);
}

static stance_status mark_joints(importer *im) {
    const struct aiScene *sc = im->scene;
    bone_list bones = {NULL, 0};
    size_t cap = 0;
    for (unsigned i = 0; sc->mMeshes && i < sc->mNumMeshes; i++) {
        const struct aiMesh *m = sc->mMeshes[i];
        if (!m || !m->mBones || m->mNumBones == 0 || is_skeleton_drawing(sc, m)) continue;
        for (unsigned b = 0; b < m->mNumBones; b++) {
            const struct aiBone *bone = m->mBones[b];
            if (!bone || bone_named(&bones, &bone->mName)) continue;
            if ((size_t)bones.count == cap) {
                cap = cap ? cap * 2 : 64;
                const struct aiString **nn = realloc((void *)bones.names, sizeof(*nn) * cap);
                if (!nn) {
                    free((void *)bones.names);
                    return st_fail(im->err, STANCE_ERR_MEMORY, "%s: out of memory", im->path);
                }
                bones.names = nn;
            }
            bones.names[bones.count++] = &bone->mName;
        }
    }
    int marked = 0;
    for (int b = 0; b < bones.count; b++) {
        int n = find_node(im, bones.names[b], &bones);
        if (n < 0) {
            char buf[64];
            warnf(im, "bone '%s' has no node: ignored", ai_show(bones.names[b], buf));
            continue;
        }
        if (!im->nodes[n].mark) im->nodes[n].mark = 1, marked++;
    }
    free((void *)bones.names);
    im->from_skin = marked > 0;
    if (marked == 0) { /* no skin: the nodes the animations move */
        for (unsigned a = 0; sc->mAnimations && a < sc->mNumAnimations; a++) {
            const struct aiAnimation *an = sc->mAnimations[a];
            if (!an || !an->mChannels) continue;
            for (unsigned c = 0; c < an->mNumChannels; c++) {
                const struct aiNodeAnim *ch = an->mChannels[c];
                if (!ch || scene_object_kind(sc, &ch->mNodeName)) continue; /* never a joint */
                int n = find_node(im, &ch->mNodeName, NULL);
                if (n >= 0 && !im->nodes[n].mark) im->nodes[n].mark = 1, marked++;
            }
        }
        if (marked > 0) keep_one_subtree(im, marked);
    }
    if (marked == 0)
        return st_fail(im->err, STANCE_ERR_FORMAT, "%s: no skeleton: no skin joints and no animated nodes", im->path);
    return STANCE_OK;
}

/* The lowest common ancestor of the marked nodes becomes the root; the
 * nodes between each joint and it are marked too. */
static void connect_joints(importer *im) {
    int lca = -1;
    for (int i = 0; i < im->node_count; i++) {
        if (!im->nodes[i].mark) continue;
        if (lca < 0) {
            lca = i;
            continue;
        }
        int a = lca, b = i;
        while (im->nodes[a].depth > im->nodes[b].depth) a = im->nodes[a].parent;
        while (im->nodes[b].depth > im->nodes[a].depth) b = im->nodes[b].parent;
        while (a != b) a = im->nodes[a].parent, b = im->nodes[b].parent;
        lca = a;
    }
    for (int i = 0; i < im->node_count; i++) {
        if (im->nodes[i].mark != 1) continue;
        for (int p = im->nodes[i].parent; p >= 0 && im->nodes[p].depth >= im->nodes[lca].depth; p = im->nodes[p].parent)
            if (!im->nodes[p].mark) im->nodes[p].mark = 2;
    }
    if (!im->nodes[lca].mark) im->nodes[lca].mark = 2;
    im->root = lca;
}

/* The joints in an order where parents come before children: a pre-order
 * walk of the marked subtree, siblings in file order. */
static stance_status order_joints(importer *im) {
    int n = 0;
    for (int i = 0; i < im->node_count; i++) n += im->nodes[i].mark != 0;
    if (n > STANCE_MAX_JOINTS)
        return st_fail(im->err, STANCE_ERR_UNSUPPORTED, "%s: the skeleton has %d joints, more than %d", im->path, n, STANCE_MAX_JOINTS);
    im->joint_node = malloc(sizeof(int) * (size_t)n);
    int *stack = malloc(sizeof(int) * (size_t)im->node_count);
    int *first_child = malloc(sizeof(int) * (size_t)im->node_count);
    int *next_sibling = malloc(sizeof(int) * (size_t)im->node_count);
    if (!im->joint_node || !stack || !first_child || !next_sibling) {
        free(stack), free(first_child), free(next_sibling);
        return st_fail(im->err, STANCE_ERR_MEMORY, "%s: out of memory", im->path);
    }
    /* child lists in file order (siblings have increasing flat indices) */
    for (int i = 0; i < im->node_count; i++) first_child[i] = next_sibling[i] = -1;
    for (int i = im->node_count - 1; i > 0; i--) {
        int p = im->nodes[i].parent;
        next_sibling[i] = first_child[p];
        first_child[p] = i;
    }
    int top = 0, count = 0;
    stack[top++] = im->root;
    while (top > 0) {
        int at = stack[--top];
        im->nodes[at].joint = count;
        im->joint_node[count++] = at;
        /* push the marked children so the first pops first */
        int kids = 0, k = 0;
        for (int c = first_child[at]; c >= 0; c = next_sibling[c]) kids += im->nodes[c].mark != 0;
        for (int c = first_child[at]; c >= 0; c = next_sibling[c])
            if (im->nodes[c].mark) stack[top + kids - 1 - k++] = c;
        top += kids;
    }
    free(stack), free(first_child), free(next_sibling);
    im->joint_count = count;
    return STANCE_OK;
}

/* A number from the scene's metadata (int, float or double), or 0. */
static int meta_number(const struct aiScene *sc, const char *key, double *out) {
    const struct aiMetadata *md = sc->mMetaData;
    if (!md || !md->mKeys || !md->mValues) return 0;
    for (unsigned i = 0; i < md->mNumProperties; i++) {
        size_t n = ai_len(&md->mKeys[i]);
        const struct aiMetadataEntry *e = &md->mValues[i];
        if (n != strlen(key) || memcmp(md->mKeys[i].data, key, n) || !e->mData) continue;
        if (e->mType == AI_INT32) *out = *(const int32_t *)e->mData;
        else if (e->mType == AI_FLOAT) *out = *(const float *)e->mData;
        else if (e->mType == AI_DOUBLE) *out = *(const double *)e->mData;
        else return 0;
        return isfinite(*out);
    }
    return 0;
}

static int is_fbx(const struct aiScene *sc) {
    const struct aiMetadata *md = sc->mMetaData;
    if (!md || !md->mKeys || !md->mValues) return 0;
    for (unsigned i = 0; i < md->mNumProperties; i++) {
        const struct aiMetadataEntry *e = &md->mValues[i];
        if (ai_len(&md->mKeys[i]) == 18 && !memcmp(md->mKeys[i].data, "SourceAsset_Format", 18) &&
            e->mType == AI_AISTRING && e->mData) {
            const struct aiString *v = e->mData;
            size_t n = ai_len(v);
            for (size_t k = 0; k + 3 <= n; k++)
                if (!memcmp(v->data + k, "FBX", 3)) return 1;
        }
    }
    return 0;
}

/* FBX leaves units and axes to the reader (assimp 5.2 applies neither):
 * UnitScaleFactor is centimetres per file unit, and the axis settings say
 * which file axes point right, up and to the front. The result maps file
 * space to metres, Y up. */
static mat4 fbx_basis(importer *im) {
    mat4 m = stance_bake_mat_identity();
    double unit = 1.0, v[6];
    if (meta_number(im->scene, "UnitScaleFactor", &unit) && unit > 0.0) unit *= 0.01;
    else unit = 0.01; /* FBX's default unit is the centimetre */
    static const char *const keys[6] = {"CoordAxis", "CoordAxisSign", "UpAxis", "UpAxisSign", "FrontAxis", "FrontAxisSign"};
    int have = 1;
    for (int i = 0; i < 6; i++) have &= meta_number(im->scene, keys[i], &v[i]);
    int ax[3] = {0, 1, 2};
    double sign[3] = {1, 1, 1};
    if (have) {
        for (int r = 0; r < 3; r++) ax[r] = (int)v[2 * r], sign[r] = v[2 * r + 1] < 0 ? -1.0 : 1.0;
        int valid = ax[0] >= 0 && ax[0] < 3 && ax[1] >= 0 && ax[1] < 3 && ax[2] >= 0 && ax[2] < 3 && ax[0] != ax[1] &&
                    ax[1] != ax[2] && ax[0] != ax[2];
        double det = 0;
        if (valid) { /* rows e(ax[r]) * sign[r]: a permutation matrix's determinant */
            int inversions = (ax[0] > ax[1]) + (ax[0] > ax[2]) + (ax[1] > ax[2]);
            det = (inversions % 2 ? -1.0 : 1.0) * sign[0] * sign[1] * sign[2];
        }
        if (!valid || det < 0) {
            warnf(im, "the FBX axis settings are not a rotation: axes left as stored");
            ax[0] = 0, ax[1] = 1, ax[2] = 2, sign[0] = sign[1] = sign[2] = 1;
        }
    }
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) m.m[r][c] = c == ax[r] ? sign[r] * unit : 0.0;
    return m;
}

/* Everything above the root: its world transform, with a uniform scale
 * moved into translations. */
static stance_status compute_above(importer *im) {
    mat4 m = stance_bake_mat_identity();
    for (int p = im->nodes[im->root].parent; p >= 0; p = im->nodes[p].parent) {
        mat4 local = mat_from_ai(&im->nodes[p].node->mTransformation);
        m = stance_bake_mat_mul(&local, &m);
    }
    im->basis = stance_bake_mat_identity();
    if (is_fbx(im->scene)) {
        im->basis = fbx_basis(im);
        m = stance_bake_mat_mul(&im->basis, &m);
    }
    if (!stance_bake_decompose(&m, &im->above))
        return st_fail(im->err, STANCE_ERR_VALUE, "%s: the transform above the skeleton is degenerate or not finite", im->path);
    double *s = im->above.s;
    double mean = (fabs(s[0]) + fabs(s[1]) + fabs(s[2])) / 3.0;
    if (s[0] < 0.0) warnf(im, "the nodes above the skeleton mirror it: the mirror is dropped");
    if (fabs(s[0] - mean) > 1e-4 * mean || fabs(s[1] - mean) > 1e-4 * mean || fabs(s[2] - mean) > 1e-4 * mean)
        warnf(im, "the nodes above the skeleton scale it unevenly (%g %g %g): using the mean %g", s[0], s[1], s[2], mean);
    im->push_scale = mean;
    im->above_identity = mean == 1.0 && im->above.t[0] == 0.0 && im->above.t[1] == 0.0 && im->above.t[2] == 0.0 &&
                         im->above.r[3] == 1.0;
    return STANCE_OK;
}

/* A joint's local translation / rotation into the skeleton's space. */
static void joint_t(const importer *im, int joint, const double in[3], float out[3]) {
    if (joint == 0 && !im->above_identity) {
        double v[3] = {in[0] * im->push_scale, in[1] * im->push_scale, in[2] * im->push_scale}, r[3];
        stance_bake_quat_rotate(im->above.r, v, r);
        for (int i = 0; i < 3; i++) out[i] = (float)(im->scale * (im->above.t[i] + r[i]));
    } else {
        double k = im->scale * (joint == 0 ? 1.0 : im->push_scale);
        for (int i = 0; i < 3; i++) out[i] = (float)(in[i] * k);
    }
}
static void joint_r(const importer *im, int joint, const double in[4], float out[4]) {
    double r[4] = {in[0], in[1], in[2], in[3]};
    if (joint == 0 && !im->above_identity) stance_bake_quat_mul(im->above.r, in, r);
    for (int i = 0; i < 4; i++) out[i] = (float)r[i];
}

/* Skeleton names: the node's, or "joint<i>"; at most 63 bytes; unique. */
static void joint_names(importer *im, char (*names)[STANCE_MAX_NAME]) {
    for (int j = 0; j < im->joint_count; j++) {
        const struct aiString *src = &im->nodes[im->joint_node[j]].node->mName;
        size_t n = ai_len(src);
        char *dst = names[j];
        if (n == 0) {
            snprintf(dst, STANCE_MAX_NAME, "joint%d", j);
        } else {
            if (n > STANCE_MAX_NAME - 1) {
                n = STANCE_MAX_NAME - 1;
                char b[64];
                warnf(im, "joint name '%s...' cut to 63 bytes", ai_show(src, b));
            }
            memcpy(dst, src->data, n);
            dst[n] = 0;
        }
        for (int k = 0, tries = 0; k < j; k++) {
            if (strcmp(names[k], dst)) continue;
            char base[STANCE_MAX_NAME];
            memcpy(base, dst, STANCE_MAX_NAME);
            snprintf(dst, STANCE_MAX_NAME, "%.50s~%d", base, ++tries % 100000);
            warnf(im, "two joints are named '%s': the second is now '%s'", names[k], dst);
            k = -1; /* check the new name from the start */
        }
    }
}

static stance_status build_skeleton(importer *im, const stance_allocator *al, stance_skeleton **out) {
    const int n = im->joint_count;
    char (*names)[STANCE_MAX_NAME] = malloc(sizeof(*names) * (size_t)n);
    const char **name_ptr = malloc(sizeof(char *) * (size_t)n);
    int *parents = malloc(sizeof(int) * (size_t)n);
    stance_transform *rest = malloc(sizeof(stance_transform) * (size_t)n);
    stance_status s = STANCE_OK;
    if (!names || !name_ptr || !parents || !rest) {
        s = st_fail(im->err, STANCE_ERR_MEMORY, "%s: out of memory", im->path);
        goto done;
    }
    joint_names(im, names);
    for (int j = 0; j < n; j++) {
        const node_rec *r = &im->nodes[im->joint_node[j]];
        name_ptr[j] = names[j];
        parents[j] = j == 0 ? -1 : im->nodes[r->parent].joint;
        mat4 m = mat_from_ai(&r->node->mTransformation);
        xform x;
        if (!stance_bake_decompose(&m, &x)) {
            s = st_fail(im->err, STANCE_ERR_VALUE, "%s: joint '%s' has a degenerate or non-finite transform", im->path, names[j]);
            goto done;
        }
        joint_t(im, j, x.t, rest[j].t);
        joint_r(im, j, x.r, rest[j].r);
        for (int c = 0; c < 3; c++) rest[j].s[c] = (float)x.s[c];
        if (!st_finite_n(rest[j].t, 3) || !st_finite_n(rest[j].s, 3)) {
            s = st_fail(im->err, STANCE_ERR_VALUE, "%s: joint '%s' rest transform overflows a float", im->path, names[j]);
            goto done;
        }
    }
    stance_skeleton_desc d = {n, name_ptr, parents, rest};
    s = stance_skeleton_create(&d, al, out, im->err);
    if (s && im->err) {
        char msg[sizeof im->err->message];
        memcpy(msg, im->err->message, sizeof msg);
        msg[sizeof msg - 1] = 0;
        st_fail(im->err, s, "%s: %.200s", im->path, msg);
    }
done:
    free(names), free((void *)name_ptr), free(parents), free(rest);
    return s;
}

/* The skeleton joint a channel names (by the node's original name), or -1. */
static int channel_joint(const importer *im, const struct aiString *name) {
    for (int j = 0; j < im->joint_count; j++)
        if (ai_eq(&im->nodes[im->joint_node[j]].node->mName, name)) return j;
    return -1;
}

/* One track's times in seconds, checked: finite, >= 0; keys that do not move
 * forward in time are dropped (with a warning). Returns the keys kept, or -1
 * on an error (err set). keep[k] says which keys were kept. */
static int convert_times(importer *im, const char *clip, const char *joint, const char *what,
                         const double *ticks, int n, double tps, float *times, unsigned char *keep) {
    int kept = 0, dropped = 0;
    for (int k = 0; k < n; k++) {
        double sec = ticks[k] / tps;
        float t = (float)sec;
        keep[k] = 0;
        if (!isfinite(sec) || !isfinite(t) || t < 0.0f) {
            st_fail(im->err, STANCE_ERR_VALUE, "%s: clip '%s', joint '%s': %s key %d time %g is not a finite time >= 0",
                    im->path, clip, joint, what, k, sec);
            return -1;
        }
        if (kept > 0 && !(t > times[kept - 1])) {
            dropped++;
            continue;
        }
        keep[k] = 1;
        times[kept++] = t;
    }
    if (dropped && im->strict) {
        st_fail(im->err, STANCE_ERR_ORDER, "%s: clip '%s', joint '%s': %d %s keys are not after the key before them (--strict)",
                im->path, clip, joint, dropped, what);
        return -1;
    }
    if (dropped)
        warnf(im, "clip '%s', joint '%s': %d %s keys not after the key before them were dropped", clip, joint, dropped, what);
    return kept;
}

typedef struct track_buf {
    float *times, *values;
} track_buf;

/* The file's name without directory and extension, at most 50 bytes (or
 * "clip" when that leaves nothing). */
static void file_stem(const char *path, char out[64]) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot > base ? (size_t)(dot - base) : strlen(base);
    if (n > 50) n = 50;
    memcpy(out, base, n);
    out[n] = 0;
    if (n == 0) memcpy(out, "clip", 5);
}

/* Is there a node of this name? */
static int node_named(const importer *im, const struct aiString *name) {
    for (int i = 0; i < im->node_count; i++)
        if (ai_eq(&im->nodes[i].node->mName, name)) return 1;
    return 0;
}

/* assimp 5.2 names a Collada file's animation clips "combinedAnim_<i>":
 * the file's own name for clip <i>, when the file has that many. */
static int collada_clip(importer *im, const struct aiAnimation *an, char name[64]) {
    const char *dot = strrchr(im->path, '.');
    if (!dot || (strcasecmp_ascii(dot + 1, "dae") && strcasecmp_ascii(dot + 1, "zae"))) return 0;
    char digits[16];
    size_t n = ai_len(&an->mName) - 13;
    if (n == 0 || n >= sizeof digits) return 0;
    memcpy(digits, an->mName.data + 13, n);
    digits[n] = 0;
    char *end = NULL;
    long i = strtol(digits, &end, 10);
    if (*end || i < 0 || i >= STANCE_MAX_CLIPS) return 0;
    char (*names)[64] = malloc(sizeof(*names) * ((size_t)i + 1));
    if (!names) return 0;
    int count = stance_collada_clip_names(im->path, names, (int)i + 1);
    int ok = count > i && count == (int)im->scene->mNumAnimations;
    if (ok) memcpy(name, names[i], 64);
    free(names);
    return ok;
}

/* Unique clip name, at most 63 bytes: the animation's (its take's), or
 * clip<i> when it has none. An animation named after a node (Collada files
 * without clips name the one animation after their first animated node, a
 * camera as often as not) takes the file's name instead. */
static void clip_name(importer *im, const struct aiAnimation *an, int index, stance_clip **done, int done_count,
                      char name[64]) {
    size_t n = ai_len(&an->mName);
    if (n == 0) {
        snprintf(name, 64, "clip%d", index);
    } else if (n > 13 && !memcmp(an->mName.data, "combinedAnim_", 13) && collada_clip(im, an, name)) {
        /* the name the Collada file gives the clip */
    } else if (node_named(im, &an->mName)) {
        char b[64];
        file_stem(im->path, name);
        warnf(im, "animation %d is named after node '%s': the clip is named '%s' after the file", index,
              ai_show(&an->mName, b), name);
    } else {
        if (n > 63) {
            n = 63;
            char b[64];
            warnf(im, "clip name '%s...' cut to 63 bytes", ai_show(&an->mName, b));
        }
        memcpy(name, an->mName.data, n);
        name[n] = 0;
    }
    for (int k = 0, tries = 0; k < done_count; k++) {
        if (strcmp(done[k]->name, name)) continue;
        char base[64];
        memcpy(base, name, 64);
        snprintf(name, 64, "%.50s~%d", base, ++tries % 100000);
        warnf(im, "two clips are named '%s': the second is now '%s'", done[k]->name, name);
        k = -1;
    }
}

static size_t budget_left(const importer *im, size_t temp) {
    return im->used + temp < im->budget ? im->budget - im->used - temp : 0;
}

static stance_status over_budget(importer *im, const char *clip, size_t need) {
    return st_fail(im->err, STANCE_ERR_MEMORY,
                   "%s: clip '%s' needs %.1f MB more, over the memory budget of %.1f MB (%.1f MB used; --max-memory)",
                   im->path, clip, (double)need / 1048576.0, (double)im->budget / 1048576.0, (double)im->used / 1048576.0);
}

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* How many distinct key times the tracks have together (>= the clip's
 * grid, which also merges times closer than 1e-5 s); 0 when out of memory. */
static size_t distinct_times(const stance_track_desc *tracks, int count) {
    size_t total = 0;
    for (int i = 0; i < count; i++) total += (size_t)tracks[i].key_count;
    float *all = malloc(sizeof(float) * (total ? total : 1));
    if (!all) return 0;
    size_t n = 0;
    for (int i = 0; i < count; i++)
        for (int k = 0; k < tracks[i].key_count; k++) all[n++] = tracks[i].times[k];
    qsort(all, n, sizeof(float), cmp_float);
    size_t distinct = n > 0;
    for (size_t i = 1; i < n; i++) distinct += all[i] != all[i - 1];
    free(all);
    return distinct ? distinct : 1;
}

/* Builds one clip; *out stays NULL (with a warning) when the animation moves
 * no joint. */
static stance_status build_clip(importer *im, const struct aiAnimation *an, int index, const stance_skeleton *sk,
                                const stance_allocator *al, stance_clip **done, int done_count, stance_clip **out) {
    *out = NULL;
    char name[64];
    clip_name(im, an, index, done, done_count, name);
    double tps = an->mTicksPerSecond;
    if (!isfinite(tps) || tps < 0.0)
        return st_fail(im->err, STANCE_ERR_VALUE, "%s: clip '%s': ticks per second %g is not a finite number >= 0", im->path, name, tps);
    if (tps == 0.0) tps = 25.0; /* assimp's documented default */
    if (an->mNumMorphMeshChannels > 0)
        warnf(im, "clip '%s': %u morph-weight channels ignored", name, an->mNumMorphMeshChannels);
    if (an->mNumMeshChannels > 0)
        warnf(im, "clip '%s': %u mesh channels ignored", name, an->mNumMeshChannels);

    const int J = im->joint_count;
    stance_track_desc *tracks = calloc(3 * (size_t)J, sizeof *tracks);
    track_buf *bufs = calloc(3 * (size_t)J, sizeof *bufs);
    unsigned char *used = calloc((size_t)J, 1);
    stance_status s = STANCE_OK;
    int track_count = 0;
    float last = 0.0f;
    size_t temp = 0; /* bytes of this clip's track buffers */
    if (!tracks || !bufs || !used) {
        s = st_fail(im->err, STANCE_ERR_MEMORY, "%s: out of memory", im->path);
        goto done;
    }
    for (unsigned c = 0; an->mChannels && c < an->mNumChannels && !s; c++) {
        const struct aiNodeAnim *ch = an->mChannels[c];
        if (!ch) continue;
        char node_name[64];
        ai_show(&ch->mNodeName, node_name);
        int j = channel_joint(im, &ch->mNodeName);
        if (j < 0) {
            const char *kind = scene_object_kind(im->scene, &ch->mNodeName);
            if (kind)
                warnf(im, "clip '%s': channel for %s '%s' ignored (not a joint)", name, kind, node_name);
            else
                warnf(im, "clip '%s': channel for node '%s', which is not a joint of the skeleton: ignored", name, node_name);
            continue;
        }
        const char *jname = stance_skeleton_joint_name(sk, j);
        if (used[j]) {
            warnf(im, "clip '%s': a second channel for joint '%s': ignored", name, jname);
            continue;
        }
        used[j] = 1;
        const unsigned counts[3] = {ch->mPositionKeys ? ch->mNumPositionKeys : 0,
                                    ch->mRotationKeys ? ch->mNumRotationKeys : 0,
                                    ch->mScalingKeys ? ch->mNumScalingKeys : 0};
        static const char *what[3] = {"translation", "rotation", "scale"};
        for (int kind = 0; kind < 3 && !s; kind++) {
            unsigned n = counts[kind];
            if (n == 0) continue;
            if (n > STANCE_MAX_KEYS) {
                s = st_fail(im->err, STANCE_ERR_UNSUPPORTED, "%s: clip '%s', joint '%s': %u %s keys, more than %d",
                            im->path, name, jname, n, what[kind], STANCE_MAX_KEYS);
                break;
            }
            const int w = kind == 1 ? 4 : 3;
            /* ticks, keep flags, times and values of this track */
            size_t need = (size_t)n * (sizeof(double) + 1 + sizeof(float) * (size_t)(1 + w));
            if (need > budget_left(im, temp)) {
                s = over_budget(im, name, need + temp);
                break;
            }
            temp += need;
            double *ticks = malloc(sizeof(double) * n);
            unsigned char *keep = malloc(n);
            track_buf *b = &bufs[track_count];
            b->times = malloc(sizeof(float) * n);
            b->values = malloc(sizeof(float) * (size_t)w * n);
            if (!ticks || !keep || !b->times || !b->values) {
                free(ticks), free(keep);
                s = st_fail(im->err, STANCE_ERR_MEMORY, "%s: out of memory", im->path);
                break;
            }
            for (unsigned k = 0; k < n; k++)
                ticks[k] = kind == 0 ? ch->mPositionKeys[k].mTime : kind == 1 ? ch->mRotationKeys[k].mTime : ch->mScalingKeys[k].mTime;
            int kept = convert_times(im, name, jname, what[kind], ticks, (int)n, tps, b->times, keep);
            if (kept < 0) s = im->err ? im->err->status : STANCE_ERR_VALUE;
            for (unsigned k = 0, o = 0; !s && k < n; k++) {
                if (!keep[k]) continue;
                float *v = b->values + (size_t)w * o++;
                double in[4];
                if (kind == 1) {
                    const struct aiQuaternion *q = &ch->mRotationKeys[k].mValue;
                    in[0] = q->x, in[1] = q->y, in[2] = q->z, in[3] = q->w;
                } else {
                    const struct aiVector3D *p = kind == 0 ? &ch->mPositionKeys[k].mValue : &ch->mScalingKeys[k].mValue;
                    in[0] = p->x, in[1] = p->y, in[2] = p->z, in[3] = 0.0;
                }
                if (!isfinite(in[0]) || !isfinite(in[1]) || !isfinite(in[2]) || !isfinite(in[3])) {
                    s = st_fail(im->err, STANCE_ERR_VALUE, "%s: clip '%s', joint '%s': %s key %u is not finite",
                                im->path, name, jname, what[kind], k);
                    break;
                }
                if (kind == 0) joint_t(im, j, in, v);
                else if (kind == 1) joint_r(im, j, in, v);
                else v[0] = (float)in[0], v[1] = (float)in[1], v[2] = (float)in[2];
                if (!st_finite_n(v, (size_t)w)) {
                    s = st_fail(im->err, STANCE_ERR_VALUE, "%s: clip '%s', joint '%s': %s key %u overflows a float",
                                im->path, name, jname, what[kind], k);
                    break;
                }
            }
            free(ticks), free(keep);
            if (s) break;
            if (b->times[kept - 1] > last) last = b->times[kept - 1];
            stance_track_desc *t = &tracks[track_count++];
            t->joint = j;
            t->channel = (stance_channel)kind;
            t->key_count = kept;
            t->times = b->times;
            t->values = b->values;
        }
    }
    if (s) goto done;
    if (track_count == 0) {
        warnf(im, "clip '%s' moves no joint of the skeleton: skipped", name);
        goto done;
    }
    double dur = an->mDuration / tps;
    float duration = isfinite(dur) && dur > 0.0 && (float)dur < 1e30f ? (float)dur : 0.0f;
    if (duration < last) duration = last;
    if (!(duration > 0.0f)) duration = (float)(1.0 / tps); /* a single pose: one tick long */
    /* what stance_clip_create will allocate: the key grid (at most the
     * distinct times of all tracks) times the joints, checked first */
    size_t grid = distinct_times(tracks, track_count);
    if (grid == 0) {
        s = st_fail(im->err, STANCE_ERR_MEMORY, "%s: out of memory", im->path);
        goto done;
    }
    size_t dense = grid * ((size_t)sk->padded_count * 40 + 4) + sizeof(float) * 2 * grid;
    if (dense > budget_left(im, temp)) {
        s = over_budget(im, name, dense + temp);
        goto done;
    }
    stance_clip_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.duration = duration;
    d.track_count = track_count;
    d.tracks = tracks;
    s = stance_clip_create(&d, sk, al, out, im->err);
    if (!s) im->used += (*out)->bytes;
    if (s && im->err) {
        char msg[sizeof im->err->message];
        memcpy(msg, im->err->message, sizeof msg);
        msg[sizeof msg - 1] = 0;
        st_fail(im->err, s, "%s: %.200s", im->path, msg);
    }
done:
    if (bufs)
        for (int i = 0; i < 3 * J; i++) free(bufs[i].times), free(bufs[i].values);
    free(bufs), free(tracks), free(used);
    return s;
}

static void mesh_warning(void *ctx, const char *message) { warnf((importer *)ctx, "%s", message); }

static stance_status import_meshes(importer *im, stance_asset *a) {
    st_mesh_import mi;
    memset(&mi, 0, sizeof mi);
    mi.path = im->path;
    mi.scene = im->scene;
    mi.skeleton = a->skeleton;
    const struct aiNode **nodes = malloc(sizeof(*nodes) * (size_t)im->joint_count);
    if (!nodes) return st_fail(im->err, STANCE_ERR_MEMORY, "%s: out of memory", im->path);
    for (int j = 0; j < im->joint_count; j++) nodes[j] = im->nodes[im->joint_node[j]].node;
    mi.joint_node = nodes;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++) mi.to_model[r][c] = im->scale * im->basis.m[r][c];
    mi.pushed_scale = im->scale * im->push_scale;
    mi.budget = budget_left(im, 0);
    mi.warn = mesh_warning;
    mi.warn_ctx = im;
    stance_status s = st_import_meshes(&mi, a, im->err);
    free((void *)nodes);
    return s;
}

static stance_status import_scene(importer *im, const stance_allocator *allocator, stance_asset *out) {
    const struct aiScene *sc = im->scene;
    if (!sc->mAnimations || sc->mNumAnimations == 0)
        return st_fail(im->err, STANCE_ERR_FORMAT, "%s: no animations in the file (nothing to import)", im->path);
    stance_status s = flatten(im);
    if (!s) s = mark_joints(im);
    if (s) return s;
    connect_joints(im);
    s = order_joints(im);
    if (!s) s = compute_above(im);
    if (s) return s;

    stance_asset a;
    memset(&a, 0, sizeof a);
    a.allocator = st_allocator(allocator);
    s = build_skeleton(im, &a.allocator, &a.skeleton);
    if (s) return s;
    const unsigned n = sc->mNumAnimations > STANCE_MAX_CLIPS ? STANCE_MAX_CLIPS : sc->mNumAnimations;
    if (sc->mNumAnimations > STANCE_MAX_CLIPS)
        warnf(im, "%u animations: only the first %d are imported", sc->mNumAnimations, STANCE_MAX_CLIPS);
    size_t clips_bytes = sizeof(stance_clip *) * n;
    stance_clip **clips = st_alloc(&a.allocator, clips_bytes, 16);
    if (!clips) {
        stance_asset_destroy(&a);
        return st_fail(im->err, STANCE_ERR_MEMORY, "%s: out of memory", im->path);
    }
    a.clips = clips;
    a.clip_count = (int)n; /* for destroy; compacted below */
    int made = 0, dropped = 0;
    char first_problem[sizeof im->err->message] = "";
    for (unsigned i = 0; i < n && !s; i++) {
        const struct aiAnimation *an = sc->mAnimations[i];
        if (!an) continue;
        stance_clip *c = NULL;
        stance_error clip_err = {STANCE_OK, ""};
        stance_error *keep_err = im->err;
        im->err = &clip_err;
        s = build_clip(im, an, (int)i, a.skeleton, &a.allocator, clips, made, &c);
        im->err = keep_err;
        if (s && s != STANCE_ERR_MEMORY && !im->strict) {
            /* a partial file: this clip is dropped, the others import */
            const char *why = clip_err.message;
            size_t pl = strlen(im->path);
            if (!strncmp(why, im->path, pl) && !strncmp(why + pl, ": ", 2)) why += pl + 2;
            warnf(im, "%s: the clip is dropped (--strict makes this an error)", why);
            if (!dropped++) snprintf(first_problem, sizeof first_problem, "%s", why);
            s = STANCE_OK;
        } else if (s) {
            st_fail(im->err, s, "%s", clip_err.message);
        }
        if (c) clips[made++] = c;
    }
    if (!s && made == 0 && dropped > 0)
        s = st_fail(im->err, STANCE_ERR_FORMAT, "%s: no clip could be imported (%d dropped; the first: %.150s)", im->path,
                    dropped, first_problem);
    else if (!s && made == 0)
        s = st_fail(im->err, STANCE_ERR_FORMAT, "%s: no animation moves a joint of the skeleton", im->path);
    if (s) {
        stance_asset_destroy(&a);
        return s;
    }
    if ((unsigned)made < n) { /* shrink the array to the clips made */
        size_t bytes = sizeof(stance_clip *) * (size_t)made;
        stance_clip **fit = st_alloc(&a.allocator, bytes, 16);
        if (!fit) {
            stance_asset_destroy(&a);
            return st_fail(im->err, STANCE_ERR_MEMORY, "%s: out of memory", im->path);
        }
        memcpy(fit, clips, bytes);
        st_free(&a.allocator, clips, clips_bytes);
        a.clips = fit;
    }
    a.clip_count = made;
    if (im->from_skin) { /* the skins and meshes the skeleton came from */
        s = import_meshes(im, &a);
        if (s) {
            stance_asset_destroy(&a);
            return s;
        }
    }
    *out = a;
    return st_ok(im->err);
}

static stance_status import_probed(const char *path, const unsigned char *head, size_t got, long size,
                                   const stance_import_options *opt, const stance_allocator *allocator,
                                   stance_asset *out, stance_error *err) {
    stance_status s;
    const char *dot = strrchr(path, '.');
    if ((got >= 4 && !memcmp(head, "glTF", 4)) || (dot && !strcmp(dot, ".glb"))) {
        s = check_glb(path, head, got, size, err);
        if (s) return s;
    } else if (!skeletal_format(path)) {
        return st_fail(err, STANCE_ERR_UNSUPPORTED,
                       "%s: not a format with skeletal animation (stance imports glTF/GLB, BVH, FBX, Collada, X, SMD, "
                       "MD5, MS3D, B3D, ASE)", path);
    }

    const size_t budget = opt && opt->max_memory ? opt->max_memory : STANCE_IMPORT_DEFAULT_MEMORY;
    if ((dot && !strcasecmp_ascii(dot + 1, "bvh")) || (got >= 9 && !memcmp(head, "HIERARCHY", 9))) {
        s = stance_bvh_prescan(path, budget, err); /* before assimp sees it */
        if (s) return s;
    }

    struct aiPropertyStore *props = aiCreatePropertyStore();
    if (!props) return st_fail(err, STANCE_ERR_MEMORY, "%s: out of memory", path);
    /* FBX: no pivot helper nodes between joints (units: see fbx_basis) */
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, 0);
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_FBX_READ_TEXTURES, 0);
    const struct aiScene *scene = aiImportFileExWithProperties(path, aiProcess_ValidateDataStructure, NULL, props);
    aiReleasePropertyStore(props);
    if (!scene) {
        const char *why = aiGetErrorString();
        char msg[200];
        snprintf(msg, sizeof msg, "%s", why && why[0] ? why : "unknown error");
        one_line(msg);
        return st_fail(err, STANCE_ERR_FORMAT, "%s: cannot import: %s", path, msg);
    }
    importer im;
    memset(&im, 0, sizeof im);
    im.path = path;
    im.opt = opt;
    im.err = err;
    im.scene = scene;
    im.scale = opt && opt->scale > 0.0f ? (double)opt->scale : 1.0;
    im.budget = budget;
    im.strict = opt && opt->strict;
    s = import_scene(&im, allocator, out);
    if (s && err) one_line(err->message);
    free(im.nodes);
    free(im.joint_node);
    aiReleaseImport(scene);
    return s;
}

#endif /* STANCE_HAVE_ASSIMP */
