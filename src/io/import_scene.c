/* src/io/import_scene.c - assimp's scene to a stance skeleton and asset.
 *
 * Owns the skeleton's choice (bones of the skins, else animated nodes, and
 * the nodes that connect them, in one subtree), its order (parents first),
 * what lies above its root (baked in, FBX units and axes to metres, Y up),
 * and the asset's assembly: skeleton, clips (import_clips.c), meshes
 * (import_mesh.c). Everything assimp hands over is checked before use. */
#ifdef STANCE_HAVE_ASSIMP
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collada_clips.h"
#include "import_assimp.h"
#include "import_mesh.h"

#define MAX_NODES (1 << 20) /* more means a broken (or cyclic) node tree */



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
                        st_imp_ai_show(&n->mName, b), n->mNumChildren);
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
        if (st_imp_ai_eq(b->names[i], name)) return 1;
    return 0;
}

/* The node a bone or channel of that name means. Names may repeat (glTF
 * mesh nodes often share their joint's name): prefer a node whose parent is
 * a bone, that holds no mesh, and that has a bone below it. */
static int find_node(const importer *im, const struct aiString *name, const bone_list *bones) {
    int best = -1, best_score = -1;
    for (int i = 0; i < im->node_count; i++) {
        const struct aiNode *n = im->nodes[i].node;
        if (!st_imp_ai_eq(&n->mName, name)) continue;
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
    return st_imp_ai_len(&name) == 16 && !memcmp(name.data, "SkeletonMaterial", 16);
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
        st_imp_warn(im, "animated nodes outside the skeleton under '%s' left out: %d of %d (a file without a skin keeps one root)",
              st_imp_ai_show(&im->nodes[best].node->mName, b), marked - count[best], marked);
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
            st_imp_warn(im, "bone '%s' has no node: ignored", st_imp_ai_show(bones.names[b], buf));
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
                if (!ch || st_imp_object_kind(sc, &ch->mNodeName)) continue; /* never a joint */
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
 * walk of the marked subtree, siblings in file order, then put in
 * stance_skeleton_fast_order. */
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
    im->joint_count = count;
    /* then in stance_skeleton_fast_order (from that pre-order), so
     * local-to-model runs 4 joints at a time; stack and first_child hold
     * the parents and the order */
    int *par = stack, *order = first_child;
    for (int j = 0; j < count; j++) par[j] = j == 0 ? -1 : im->nodes[im->nodes[im->joint_node[j]].parent].joint;
    stance_status s = stance_skeleton_fast_order(par, count, order, im->err);
    if (!s) {
        for (int j = 0; j < count; j++) next_sibling[j] = im->joint_node[order[j]];
        for (int j = 0; j < count; j++) im->joint_node[j] = next_sibling[j], im->nodes[next_sibling[j]].joint = j;
    }
    free(stack), free(first_child), free(next_sibling);
    return s;
}

/* A number from the scene's metadata (int, float or double), or 0. */
static int meta_number(const struct aiScene *sc, const char *key, double *out) {
    const struct aiMetadata *md = sc->mMetaData;
    if (!md || !md->mKeys || !md->mValues) return 0;
    for (unsigned i = 0; i < md->mNumProperties; i++) {
        size_t n = st_imp_ai_len(&md->mKeys[i]);
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
        if (st_imp_ai_len(&md->mKeys[i]) == 18 && !memcmp(md->mKeys[i].data, "SourceAsset_Format", 18) &&
            e->mType == AI_AISTRING && e->mData) {
            const struct aiString *v = e->mData;
            size_t n = st_imp_ai_len(v);
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
            st_imp_warn(im, "the FBX axis settings are not a rotation: axes left as stored");
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
    const char *dot = strrchr(im->path, '.');
    if (dot && (!st_imp_strcasecmp(dot + 1, "dae") || !st_imp_strcasecmp(dot + 1, "zae"))) im->kind = IMP_COLLADA;
    if (is_fbx(im->scene)) {
        im->kind = IMP_FBX;
        im->basis = fbx_basis(im);
        m = stance_bake_mat_mul(&im->basis, &m);
    }
    if (!stance_bake_decompose(&m, &im->above))
        return st_fail(im->err, STANCE_ERR_VALUE, "%s: the transform above the skeleton is degenerate or not finite", im->path);
    double *s = im->above.s;
    double mean = (fabs(s[0]) + fabs(s[1]) + fabs(s[2])) / 3.0;
    if (s[0] < 0.0) st_imp_warn(im, "the nodes above the skeleton mirror it: the mirror is dropped");
    /* an uneven scale is folded in by its mean like an even one; the poses
     * are then checked (import_scale.c) and refused where that is wrong */
    im->uneven = st_imp_is_uneven(s);
    im->push_scale = mean;
    im->above_identity = !im->uneven && mean == 1.0 && im->above.t[0] == 0.0 && im->above.t[1] == 0.0 &&
                         im->above.t[2] == 0.0 && im->above.r[3] == 1.0;
    return STANCE_OK;
}

/* Skeleton names: the node's, or "joint<i>"; at most 63 bytes; unique. */
static void joint_names(importer *im, char (*names)[STANCE_MAX_NAME]) {
    for (int j = 0; j < im->joint_count; j++) {
        const struct aiString *src = &im->nodes[im->joint_node[j]].node->mName;
        size_t n = st_imp_ai_len(src);
        char *dst = names[j];
        if (n == 0) {
            snprintf(dst, STANCE_MAX_NAME, "joint%d", j);
        } else {
            if (n > STANCE_MAX_NAME - 1) {
                n = STANCE_MAX_NAME - 1;
                char b[64];
                st_imp_warn(im, "joint name '%s...' cut to 63 bytes", st_imp_ai_show(src, b));
            }
            memcpy(dst, src->data, n);
            dst[n] = 0;
        }
        for (int k = 0, tries = 0; k < j; k++) {
            if (strcmp(names[k], dst)) continue;
            char base[STANCE_MAX_NAME];
            memcpy(base, dst, STANCE_MAX_NAME);
            snprintf(dst, STANCE_MAX_NAME, "%.50s~%d", base, ++tries % 100000);
            st_imp_warn(im, "two joints are named '%s': the second is now '%s'", names[k], dst);
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
        st_imp_joint_t(im, j, x.t, rest[j].t);
        st_imp_joint_r(im, j, x.r, rest[j].r);
        for (int c = 0; c < 3; c++) rest[j].s[c] = (float)x.s[c];
        if (st_imp_is_uneven(x.s)) im->uneven = 1;
        if (!st_finite_n(rest[j].t, 3) || !st_finite_n(rest[j].s, 3)) {
            s = st_fail(im->err, STANCE_ERR_VALUE, "%s: joint '%s' rest transform overflows a float", im->path, names[j]);
            goto done;
        }
    }
    stance_skeleton_desc d = {n, name_ptr, parents, rest};
    s = stance_skeleton_create(&d, al, out, im->err);
    if (s) st_imp_prefix_error(im, s);
    if (!s) {
        st_scale_ctx c = st_imp_scale_ctx(im);
        s = st_imp_check_rest(&c, *out);
        im->size = c.size;
    }
    if (s) stance_skeleton_destroy(*out), *out = NULL;
done:
    free(names), free((void *)name_ptr), free(parents), free(rest);
    return s;
}

static void mesh_warning(void *ctx, const char *message) { st_imp_warn((importer *)ctx, "%s", message); }

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
    mi.budget = st_imp_budget_left(im, 0);
    mi.warn = mesh_warning;
    mi.warn_ctx = im;
    stance_status s = st_import_meshes(&mi, a, im->err);
    free((void *)nodes);
    return s;
}

stance_status st_imp_scene(importer *im, const stance_allocator *allocator, stance_asset *out) {
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
        st_imp_warn(im, "%u animations: only the first %d are imported", sc->mNumAnimations, STANCE_MAX_CLIPS);
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
    stance_import_report *rep = im->opt ? im->opt->report : NULL;
    for (unsigned i = 0; i < n && !s; i++) {
        const struct aiAnimation *an = sc->mAnimations[i];
        if (!an) continue;
        stance_clip *c = NULL;
        stance_error clip_err = {STANCE_OK, ""};
        stance_error *keep_err = im->err;
        stance_import_clip_report r;
        memset(&r, 0, sizeof r);
        im->err = &clip_err;
        s = st_imp_build_clip(im, an, (int)i, a.skeleton, &a.allocator, clips, made, &c, &r);
        im->err = keep_err;
        if (s && s != STANCE_ERR_MEMORY && !im->strict) {
            /* a partial file: this clip is dropped, the others import */
            const char *why = clip_err.message;
            size_t pl = strlen(im->path);
            if (!strncmp(why, im->path, pl) && !strncmp(why + pl, ": ", 2)) why += pl + 2;
            st_imp_warn(im, "%s: the clip is dropped (--strict makes this an error)", why);
            if (!dropped++) snprintf(first_problem, sizeof first_problem, "%s", why);
            s = STANCE_OK;
        } else if (s) {
            st_fail(im->err, s, "%s", clip_err.message);
        }
        if (c) {
            clips[made++] = c;
            if (rep && rep->clips && rep->count < rep->capacity) rep->clips[rep->count] = r;
            if (rep) rep->count++;
        }
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

#endif /* STANCE_HAVE_ASSIMP */
