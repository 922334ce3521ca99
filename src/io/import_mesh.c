/* src/io/import_mesh.c - skins and skinned meshes out of an assimp scene
 * (FBX, Collada, ...): the skin joints and inverse bind matrices of each
 * mesh's bones, its vertices moved into the skeleton's model space, its
 * weights reduced to 4 per vertex, its faces as triangles.
 *
 * Spaces: assimp's bone offset matrix maps the mesh node's space to the
 * bone's space at the bind pose: offset = W_bone^-1 * W_mesh. The skeleton's
 * model space is C x (world) with C = to_model, and its model matrices are
 * M(j) = C W(j) U^-1 (U = the pushed uniform scale). So vertices are stored
 * as p = C W_mesh v and the inverse bind is IB = U offset W_mesh^-1 C^-1,
 * which makes M(j) IB p = C W(j) offset v: assimp's skinning, in model
 * space, and the identity when the skeleton is at its bind pose.
 *
 * And the looks of those meshes for the .stance texture and vertex colour
 * sections (st_import_looks): each material's base-colour (or diffuse)
 * texture on UV set 0, embedded or a file next to the model, and colour set 0.
 *
 * Owns nothing beyond one call; the skins and meshes go into the asset. */
#include "import_mesh.h"

#ifdef STANCE_HAVE_ASSIMP
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <assimp/material.h>

#include "core/base/internal.h"
#include "gltf_bake.h"
#include "io/files.h"

typedef stance_bake_mat dm; /* rows; the fourth is 0 0 0 1 (gltf_bake.h's maths) */

static dm dm_from_ai(const struct aiMatrix4x4 *a) {
    dm m = {{{a->a1, a->a2, a->a3, a->a4}, {a->b1, a->b2, a->b3, a->b4}, {a->c1, a->c2, a->c3, a->c4}}};
    return m;
}
static void dm_point(const dm *a, double x, double y, double z, float out[3]) {
    for (int i = 0; i < 3; i++) out[i] = (float)(a->m[i][0] * x + a->m[i][1] * y + a->m[i][2] * z + a->m[i][3]);
}

static void warn(const st_mesh_import *mi, const char *fmt, ...) ST_PRINTF(2, 3);
static void warn(const st_mesh_import *mi, const char *fmt, ...) {
    if (!mi->warn) return;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    mi->warn(mi->warn_ctx, msg);
}

static size_t ai_len(const struct aiString *s) {
    size_t n = s->length < MAXLEN ? s->length : MAXLEN - 1;
    const char *z = memchr(s->data, 0, n);
    return z ? (size_t)(z - s->data) : n;
}
static void ai_copy(const struct aiString *s, char out[64]) {
    size_t n = ai_len(s);
    if (n > 63) n = 63;
    for (size_t i = 0; i < n; i++) out[i] = (unsigned char)s->data[i] < 32 ? '?' : s->data[i];
    out[n] = 0;
}

/* The skeleton joint whose node has this name, or -1. */
static int joint_named(const st_mesh_import *mi, const struct aiString *name) {
    size_t n = ai_len(name);
    for (int j = 0; j < mi->skeleton->joint_count; j++) {
        const struct aiString *jn = &mi->joint_node[j]->mName;
        if (ai_len(jn) == n && !memcmp(jn->data, name->data, n)) return j;
    }
    return -1;
}

static dm node_world(const struct aiNode *node) {
    dm m = {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}};
    for (const struct aiNode *p = node; p; p = p->mParent) {
        dm local = dm_from_ai(&p->mTransformation);
        m = stance_bake_mat_mul(&local, &m);
    }
    return m;
}

/* The first node that draws mesh `index`, with its world matrix; NULL when
 * none does (or out of memory for the walk). */
static const struct aiNode *mesh_node(const struct aiNode *root, unsigned index, dm *world, int *instances) {
    const struct aiNode *found = NULL;
    size_t cap = 256, top = 0;
    const struct aiNode **stack = malloc(sizeof(*stack) * cap);
    if (!stack) return NULL;
    stack[top++] = root;
    while (top > 0) {
        const struct aiNode *n = stack[--top];
        for (unsigned k = 0; n->mMeshes && k < n->mNumMeshes; k++)
            if (n->mMeshes[k] == index) {
                if (!found) found = n;
                (*instances)++;
            }
        for (unsigned c = 0; n->mChildren && c < n->mNumChildren; c++) {
            if (!n->mChildren[c]) continue;
            if (top == cap) {
                const struct aiNode **grown = realloc((void *)stack, sizeof(*stack) * cap * 2);
                if (!grown) {
                    free((void *)stack);
                    return NULL;
                }
                stack = grown, cap *= 2;
            }
            stack[top++] = n->mChildren[c];
        }
    }
    free((void *)stack);
    if (!found) return NULL;
    *world = node_world(found);
    return found;
}

static void base_color(const struct aiScene *sc, const struct aiMesh *m, float out[4]) {
    out[0] = out[1] = out[2] = 0.8f, out[3] = 1.0f;
    if (!sc->mMaterials || m->mMaterialIndex >= sc->mNumMaterials || !sc->mMaterials[m->mMaterialIndex]) return;
    const struct aiMaterial *mat = sc->mMaterials[m->mMaterialIndex];
    struct aiColor4D c;
    if (aiGetMaterialColor(mat, AI_MATKEY_BASE_COLOR, &c) == aiReturn_SUCCESS ||
        aiGetMaterialColor(mat, AI_MATKEY_COLOR_DIFFUSE, &c) == aiReturn_SUCCESS) {
        const float v[4] = {c.r, c.g, c.b, c.a};
        for (int i = 0; i < 4; i++) out[i] = isfinite(v[i]) ? fminf(fmaxf(v[i], 0.0f), 1.0f) : (i == 3 ? 1.0f : 0.8f);
    }
    ai_real opacity = 1; /* aiGetMaterialFloat is a C99 inline with no external definition: call the array form */
    unsigned one = 1;
    if (aiGetMaterialFloatArray(mat, AI_MATKEY_OPACITY, &opacity, &one) == aiReturn_SUCCESS && one == 1 && isfinite(opacity))
        out[3] = fminf(fmaxf((float)opacity, 0.0f), 1.0f);
    if (out[0] == 0.0f && out[1] == 0.0f && out[2] == 0.0f && out[3] == 0.0f) out[3] = 1.0f; /* not "the default" */
}

typedef struct mesh_bufs {
    int *joints;
    float *ib, *pos, *nrm, *uv, *w;
    uint16_t *jn;
    uint32_t *idx;
} mesh_bufs;

static void free_bufs(mesh_bufs *b) {
    free(b->joints), free(b->ib), free(b->pos), free(b->nrm), free(b->uv), free(b->w), free(b->jn), free(b->idx);
    memset(b, 0, sizeof *b);
}

/* One mesh: 0 and *skin, *mesh set; 1 skipped (warned); or an error status
 * (negative: the status is in err). */
static int one_mesh(const st_mesh_import *mi, unsigned index, int skin_index, const stance_allocator *al,
                    size_t *used, stance_skin **skin_out, stance_mesh **mesh_out, stance_error *err) {
    const struct aiMesh *m = mi->scene->mMeshes[index];
    char name[64];
    ai_copy(&m->mName, name);
    if (!name[0]) snprintf(name, sizeof name, "mesh%u", index);
    const unsigned V = m->mNumVertices, B = m->mNumBones;
    if (!m->mVertices || V == 0 || V > STANCE_MAX_VERTICES || !m->mFaces || m->mNumFaces == 0) {
        warn(mi, "mesh '%s': %u vertices and %u faces: skipped", name, V, m->mNumFaces);
        return 1;
    }
    if (B > STANCE_MAX_SKIN_JOINTS) {
        warn(mi, "mesh '%s': %u bones, more than %d: skipped", name, B, STANCE_MAX_SKIN_JOINTS);
        return 1;
    }
    size_t tris = 0;
    for (unsigned f = 0; f < m->mNumFaces; f++)
        if (m->mFaces[f].mIndices && m->mFaces[f].mNumIndices >= 3) tris += m->mFaces[f].mNumIndices - 2;
    if (tris == 0 || tris * 3 > STANCE_MAX_INDICES) {
        warn(mi, "mesh '%s': %zu triangles (none, or more than %d): skipped", name, tris, STANCE_MAX_INDICES / 3);
        return 1;
    }
    const int uvs = m->mTextureCoords[0] != NULL, normals = m->mNormals != NULL;
    size_t need = (size_t)V * (12 + 12 + (uvs ? 8 : 0) + 16 + 8) * 2 + tris * 12 * 2 + (size_t)B * 68 * 2;
    if (need > mi->budget - *used) {
        st_fail(err, STANCE_ERR_MEMORY, "%s: mesh '%s' needs %.1f MB, over the memory budget (--max-memory)", mi->path,
                name, (double)need / 1048576.0);
        return -1;
    }
    *used += need;
    int instances = 0;
    dm world;
    if (!mesh_node(mi->scene->mRootNode, index, &world, &instances)) {
        warn(mi, "mesh '%s' is drawn by no node: skipped", name);
        return 1;
    }
    if (instances > 1) warn(mi, "mesh '%s' is drawn by %d nodes: the first is kept", name, instances);
    /* G: mesh space -> world at the bind pose. Skinning is right for any G
     * (see the top); the rest pose looks like the bind pose when G is what
     * the bones that move vertices say at the rest pose, W_rest(bone) *
     * offset. When they disagree (the file's rest pose is not its bind
     * pose), the mesh node's world matrix is used. */
    dm G = world;
    {
        int have = 0, agree = 1;
        dm first;
        double size = 1e-9;
        for (unsigned k = 0; k < V; k++)
            size = fmax(size, fmax(fabs(m->mVertices[k].x), fmax(fabs(m->mVertices[k].y), fabs(m->mVertices[k].z))));
        for (unsigned k = 0; k < B && agree; k++) {
            const struct aiBone *bone = m->mBones ? m->mBones[k] : NULL;
            int j = bone && bone->mNumWeights > 0 ? joint_named(mi, &bone->mName) : -1;
            if (j < 0) continue; /* a bone that moves no vertex says nothing */
            dm wj = node_world(mi->joint_node[j]), off = dm_from_ai(&bone->mOffsetMatrix), g = stance_bake_mat_mul(&wj, &off);
            if (!have) {
                first = g, have = 1;
                continue;
            }
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 4; c++)
                    if (fabs(g.m[r][c] - first.m[r][c]) > 1e-4 * (c == 3 ? size + fabs(first.m[r][c]) : 1.0)) agree = 0;
        }
        if (have && agree) G = first;
        else if (have) warn(mi, "mesh '%s': the rest pose is not the bind pose (its skin matrices at rest are not the identity)", name);
    }
    dm to_model, C;
    memcpy(C.m, mi->to_model, sizeof C.m);
    to_model = stance_bake_mat_mul(&C, &G); /* C G */
    dm inv_to_model;
    if (!stance_bake_mat_inverse(&to_model, &inv_to_model)) {
        warn(mi, "mesh '%s': its bind transform is singular: skipped", name);
        return 1;
    }
    mesh_bufs b;
    memset(&b, 0, sizeof b);
    b.joints = malloc(sizeof(int) * (B ? B : 1));
    b.ib = malloc(sizeof(float) * 16 * (B ? B : 1));
    b.pos = malloc(sizeof(float) * 3 * V);
    b.nrm = normals ? malloc(sizeof(float) * 3 * V) : NULL;
    b.uv = uvs ? malloc(sizeof(float) * 2 * V) : NULL;
    b.w = calloc((size_t)V * 4, sizeof(float));
    b.jn = calloc((size_t)V * 4, sizeof(uint16_t));
    b.idx = malloc(sizeof(uint32_t) * 3 * tris);
    if (!b.joints || !b.ib || !b.pos || (normals && !b.nrm) || (uvs && !b.uv) || !b.w || !b.jn || !b.idx) {
        free_bufs(&b);
        st_fail(err, STANCE_ERR_MEMORY, "%s: out of memory", mi->path);
        return -1;
    }
    /* skin joints: the bones that name a skeleton joint (others are left out) */
    int *slot = malloc(sizeof(int) * (B ? B : 1)); /* bone -> skin joint, or -1 */
    if (!slot) {
        free_bufs(&b);
        st_fail(err, STANCE_ERR_MEMORY, "%s: out of memory", mi->path);
        return -1;
    }
    int n = 0, missing = 0;
    for (unsigned k = 0; k < B; k++) {
        const struct aiBone *bone = m->mBones ? m->mBones[k] : NULL;
        int j = bone ? joint_named(mi, &bone->mName) : -1;
        slot[k] = -1;
        if (j < 0) {
            missing++;
            continue;
        }
        dm offset = dm_from_ai(&bone->mOffsetMatrix), t = stance_bake_mat_mul(&offset, &inv_to_model);
        float *o = b.ib + 16 * (size_t)n;
        for (int c = 0; c < 4; c++) {
            for (int r = 0; r < 3; r++) o[4 * c + r] = (float)(mi->pushed_scale * t.m[r][c]);
            o[4 * c + 3] = c == 3 ? 1.0f : 0.0f;
        }
        if (!st_finite_n(o, 16)) {
            missing++;
            continue;
        }
        b.joints[n] = j;
        slot[k] = n++;
    }
    if (missing) warn(mi, "mesh '%s': %d of %u bones are not skeleton joints: their weights are dropped", name, missing, B);
    /* the four largest weights of each vertex */
    for (unsigned k = 0; k < B; k++) {
        const struct aiBone *bone = m->mBones[k];
        if (slot[k] < 0 || !bone->mWeights) continue;
        for (unsigned i = 0; i < bone->mNumWeights; i++) {
            unsigned v = bone->mWeights[i].mVertexId;
            float wt = bone->mWeights[i].mWeight;
            if (v >= V || !isfinite(wt) || !(wt > 0.0f)) continue;
            float *wv = b.w + 4 * (size_t)v;
            uint16_t *jv = b.jn + 4 * (size_t)v;
            int low = 0;
            for (int q = 1; q < 4; q++)
                if (wv[q] < wv[low]) low = q;
            if (wt > wv[low]) wv[low] = wt, jv[low] = (uint16_t)slot[k];
        }
    }
    free(slot);
    int unweighted = 0;
    for (unsigned v = 0; v < V; v++) {
        float *wv = b.w + 4 * (size_t)v, s = wv[0] + wv[1] + wv[2] + wv[3];
        if (!(s > 0.0f) || !isfinite(s)) {
            unweighted++;
            wv[0] = 1.0f, wv[1] = wv[2] = wv[3] = 0.0f;
            b.jn[4 * (size_t)v] = 0;
            continue;
        }
        for (int q = 0; q < 4; q++) wv[q] /= s;
    }
    if (n == 0) {
        free_bufs(&b);
        warn(mi, "mesh '%s': none of its bones is a skeleton joint: skipped", name);
        return 1;
    }
    if (unweighted) warn(mi, "mesh '%s': %d vertices have no weight: bound to its first skin joint", name, unweighted);
    /* vertices into model space; normals by the inverse transpose */
    dm nm; /* rows of (C W)^-T */
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) nm.m[r][c] = inv_to_model.m[c][r];
    for (int r = 0; r < 3; r++) nm.m[r][3] = 0.0;
    int bad = 0;
    for (unsigned v = 0; v < V; v++) {
        const struct aiVector3D *p = &m->mVertices[v];
        dm_point(&to_model, p->x, p->y, p->z, b.pos + 3 * (size_t)v);
        if (normals) {
            const struct aiVector3D *q = &m->mNormals[v];
            float *o = b.nrm + 3 * (size_t)v;
            dm_point(&nm, q->x, q->y, q->z, o);
            float l = sqrtf(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
            if (isfinite(l) && l > 1e-12f) o[0] /= l, o[1] /= l, o[2] /= l;
            else o[0] = 0.0f, o[1] = 1.0f, o[2] = 0.0f;
        }
        if (uvs) {
            const struct aiVector3D *t = &m->mTextureCoords[0][v];
            b.uv[2 * v] = t->x, b.uv[2 * v + 1] = t->y;
        }
        bad += !st_finite_n(b.pos + 3 * (size_t)v, 3) || (uvs && !st_finite_n(b.uv + 2 * (size_t)v, 2));
    }
    size_t ni = 0;
    for (unsigned f = 0; f < m->mNumFaces; f++) {
        const struct aiFace *fc = &m->mFaces[f];
        if (!fc->mIndices || fc->mNumIndices < 3) continue;
        for (unsigned k = 1; k + 1 < fc->mNumIndices; k++) {
            b.idx[ni++] = fc->mIndices[0], b.idx[ni++] = fc->mIndices[k], b.idx[ni++] = fc->mIndices[k + 1];
        }
    }
    if (bad) {
        free_bufs(&b);
        warn(mi, "mesh '%s': %d vertices are not finite: skipped", name, bad);
        return 1;
    }
    stance_skin_desc sd = {name, n, b.joints, b.ib};
    stance_error e2 = {STANCE_OK, ""};
    stance_status s = stance_skin_create(&sd, mi->skeleton, al, skin_out, &e2);
    if (!s) {
        stance_mesh_desc md;
        memset(&md, 0, sizeof md);
        md.name = name;
        md.skin = skin_index;
        md.vertex_count = (int)V;
        md.positions = b.pos;
        md.normals = b.nrm;
        md.uvs = b.uv;
        md.joints = b.jn;
        md.weights = b.w;
        md.index_count = (int)ni;
        md.indices = b.idx;
        base_color(mi->scene, m, md.base_color);
        s = stance_mesh_create(&md, *skin_out, al, mesh_out, &e2);
        if (s) {
            stance_skin_destroy(*skin_out);
            *skin_out = NULL;
        }
    }
    free_bufs(&b);
    if (s == STANCE_ERR_MEMORY) {
        st_fail(err, s, "%s: %s", mi->path, e2.message);
        return -1;
    }
    if (s) {
        warn(mi, "mesh '%s' skipped: %s", name, e2.message);
        return 1;
    }
    return 0;
}

static int is_skeleton_drawing(const struct aiScene *sc, const struct aiMesh *m) {
    if (m->mMaterialIndex >= sc->mNumMaterials || !sc->mMaterials || !sc->mMaterials[m->mMaterialIndex]) return 0;
    struct aiString name;
    if (aiGetMaterialString(sc->mMaterials[m->mMaterialIndex], AI_MATKEY_NAME, &name) != aiReturn_SUCCESS) return 0;
    return ai_len(&name) == 16 && !memcmp(name.data, "SkeletonMaterial", 16);
}

stance_status st_import_meshes(const st_mesh_import *mi, stance_asset *a, stance_error *err) {
    const struct aiScene *sc = mi->scene;
    unsigned skinned = 0;
    for (unsigned i = 0; sc->mMeshes && i < sc->mNumMeshes; i++)
        if (sc->mMeshes[i] && sc->mMeshes[i]->mNumBones > 0 && sc->mMeshes[i]->mBones && !is_skeleton_drawing(sc, sc->mMeshes[i]))
            skinned++;
    if (skinned == 0) return STANCE_OK;
    if (skinned > STANCE_MAX_MESHES) {
        warn(mi, "%u skinned meshes: only the first %d are imported", skinned, STANCE_MAX_MESHES);
        skinned = STANCE_MAX_MESHES;
    }
    a->skins = st_alloc(&a->allocator, sizeof(stance_skin *) * skinned, 16);
    a->meshes = st_alloc(&a->allocator, sizeof(stance_mesh *) * skinned, 16);
    if (!a->skins || !a->meshes) {
        st_free(&a->allocator, a->skins, sizeof(stance_skin *) * skinned);
        st_free(&a->allocator, a->meshes, sizeof(stance_mesh *) * skinned);
        a->skins = NULL, a->meshes = NULL;
        return st_fail(err, STANCE_ERR_MEMORY, "%s: out of memory", mi->path);
    }
    a->skin_count = a->mesh_count = (int)skinned; /* for destroy: NULL entries are fine */
    int made = 0;
    size_t used = 0;
    for (unsigned i = 0; sc->mMeshes && i < sc->mNumMeshes && made < (int)skinned; i++) {
        const struct aiMesh *m = sc->mMeshes[i];
        if (!m || m->mNumBones == 0 || !m->mBones || is_skeleton_drawing(sc, m)) continue;
        stance_skin *skin = NULL;
        stance_mesh *mesh = NULL;
        int r = one_mesh(mi, i, made, &a->allocator, &used, &skin, &mesh, err);
        if (r < 0) return err ? err->status : STANCE_ERR_MEMORY;
        if (r == 0) a->skins[made] = skin, a->meshes[made] = mesh, made++;
    }
    /* the counts of what was made (the arrays keep their size: shrink them) */
    if (made < (int)skinned) {
        stance_skin **s2 = made ? st_alloc(&a->allocator, sizeof(stance_skin *) * (size_t)made, 16) : NULL;
        stance_mesh **m2 = made ? st_alloc(&a->allocator, sizeof(stance_mesh *) * (size_t)made, 16) : NULL;
        if (made && (!s2 || !m2)) {
            st_free(&a->allocator, s2, sizeof(stance_skin *) * (size_t)made);
            st_free(&a->allocator, m2, sizeof(stance_mesh *) * (size_t)made);
            return st_fail(err, STANCE_ERR_MEMORY, "%s: out of memory", mi->path);
        }
        if (made) {
            memcpy(s2, a->skins, sizeof(stance_skin *) * (size_t)made);
            memcpy(m2, a->meshes, sizeof(stance_mesh *) * (size_t)made);
        }
        st_free(&a->allocator, a->skins, sizeof(stance_skin *) * skinned);
        st_free(&a->allocator, a->meshes, sizeof(stance_mesh *) * skinned);
        a->skins = s2, a->meshes = m2;
        a->skin_count = a->mesh_count = made;
    }
    return STANCE_OK;
}

/* ---- the meshes' looks: base-colour textures and vertex colours ---------- */

static void look_warn(stance_import_warnings *w, const char *path, const char *fmt, ...) ST_PRINTF(3, 4);
static void look_warn(stance_import_warnings *w, const char *path, const char *fmt, ...) {
    if (!w) return;
    if (w->count < STANCE_IMPORT_WARNINGS) {
        char msg[200];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        snprintf(w->message[w->count], sizeof w->message[0], "%s: textures: %s", path, msg);
    }
    w->count++;
}

/* The embedded texture a material's path names ("*N", or the file name of
 * one the file holds), as aiScene::GetEmbeddedTexture finds it; NULL none. */
static const struct aiTexture *embedded(const struct aiScene *sc, const char *tex) {
    if (!sc->mTextures) return NULL;
    if (tex[0] == '*') {
        char *end = NULL;
        long k = strtol(tex + 1, &end, 10);
        return end != tex + 1 && !*end && k >= 0 && (unsigned long)k < sc->mNumTextures ? sc->mTextures[k] : NULL;
    }
    const char *a = strrchr(tex, '/') ? strrchr(tex, '/') + 1 : strrchr(tex, '\\') ? strrchr(tex, '\\') + 1 : tex;
    for (unsigned i = 0; i < sc->mNumTextures; i++) {
        const struct aiTexture *t = sc->mTextures[i];
        if (!t) continue;
        const char *f = t->mFilename.data, *b = strrchr(f, '/') ? strrchr(f, '/') + 1 : strrchr(f, '\\') ? strrchr(f, '\\') + 1 : f;
        if (!strcmp(a, b)) return t;
    }
    return NULL;
}

/* The encoded image (PNG or JPEG, never decoded) a material's texture path
 * names: embedded in the file, else a file relative to the model's folder.
 * Malloc'd, or NULL with why. */
static unsigned char *texture_bytes(const struct aiScene *sc, const char *model, const char *tex, size_t *size, char *why, size_t cap) {
    *size = 0;
    const struct aiTexture *t = embedded(sc, tex);
    if (t) {
        if (t->mHeight != 0 || !t->pcData) {
            snprintf(why, cap, "embedded texture '%s' is stored decoded (%ux%u texels), not as PNG or JPEG", tex, t->mWidth, t->mHeight);
            return NULL;
        }
        unsigned char *b = malloc(t->mWidth ? t->mWidth : 1);
        if (!b) return snprintf(why, cap, "out of memory"), NULL;
        memcpy(b, t->pcData, t->mWidth);
        *size = t->mWidth;
        return b;
    }
    if (tex[0] == '*') return snprintf(why, cap, "texture '%s' names no embedded image", tex), NULL;
    const char *rel = !strncmp(tex, "file://", 7) ? tex + 7 : tex;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", model);
    char *slash = strrchr(dir, '/');
    if (slash) slash[1] = 0;
    else dir[0] = 0;
    char *full = io_join_path(dir, rel);
    if (!full) return snprintf(why, cap, "out of memory"), NULL;
    void *bytes = NULL;
    stance_error e = {STANCE_OK, ""};
    if (stance_io_read_file(full, &bytes, size, &e)) {
        snprintf(why, cap, "image '%s' was not found next to the file (%s)", tex, e.message);
        bytes = NULL, *size = 0;
    }
    free(full);
    return bytes;
}

/* The u16 RGBA colours (little-endian, value / 65535) of aiMesh colour set 0. */
static unsigned char *mesh_colors(const struct aiMesh *m) {
    unsigned char *c = malloc(8 * (size_t)m->mNumVertices);
    if (!c) return NULL;
    for (unsigned v = 0; v < m->mNumVertices; v++) {
        const struct aiColor4D *x = &m->mColors[0][v];
        const float ch[4] = {x->r, x->g, x->b, x->a};
        for (int k = 0; k < 4; k++) {
            const float f = isfinite(ch[k]) ? fminf(fmaxf(ch[k], 0.0f), 1.0f) : 1.0f;
            const unsigned u = (unsigned)lround((double)f * 65535.0);
            c[8 * (size_t)v + 2 * (size_t)k] = (unsigned char)(u & 0xFF), c[8 * (size_t)v + 2 * (size_t)k + 1] = (unsigned char)(u >> 8);
        }
    }
    return c;
}

stance_status st_import_looks(const char *path, const struct aiScene *sc, const stance_asset *a, stance_textures *out,
                              stance_import_warnings *w, stance_error *err) {
    unsigned char *img[STANCE_TEXTURE_MAX_IMAGES] = {0}, *col[STANCE_MAX_MESHES] = {0};
    size_t img_size[STANCE_TEXTURE_MAX_IMAGES] = {0}, total = 0, colors = 0;
    char img_path[STANCE_TEXTURE_MAX_IMAGES][128];
    int n_img = 0, oom = 0;
    unsigned cursor = 0;
    for (int i = 0; i < a->mesh_count && !oom; i++) {
        const stance_mesh *am = a->meshes[i];
        const struct aiMesh *m = NULL;
        for (; sc->mMeshes && cursor < sc->mNumMeshes && !m; cursor++) { /* the next skinned mesh of this name and size */
            const struct aiMesh *c = sc->mMeshes[cursor];
            if (!c || c->mNumBones == 0 || !c->mBones || is_skeleton_drawing(sc, c)) continue;
            char name[64];
            ai_copy(&c->mName, name);
            if (!name[0]) snprintf(name, sizeof name, "mesh%u", cursor);
            if (!strcmp(name, am->name) && c->mNumVertices == (unsigned)am->vertex_count) m = c;
        }
        if (!m) break; /* (the asset is not this scene's: nothing more matches) */
        if (m->mColors[0]) {
            if (!(col[i] = mesh_colors(m))) oom = 1;
            colors += 8 * (size_t)m->mNumVertices;
        }
        const struct aiMaterial *mat = m->mMaterialIndex < sc->mNumMaterials && sc->mMaterials ? sc->mMaterials[m->mMaterialIndex] : NULL;
        struct aiString tp;
        unsigned uv = 0;
        enum aiTextureType type = aiTextureType_BASE_COLOR;
        if (!mat || aiGetMaterialTexture(mat, type, 0, &tp, NULL, &uv, NULL, NULL, NULL, NULL) != aiReturn_SUCCESS) {
            type = aiTextureType_DIFFUSE;
            if (!mat || aiGetMaterialTexture(mat, type, 0, &tp, NULL, &uv, NULL, NULL, NULL, NULL) != aiReturn_SUCCESS) continue;
        }
        char tex[128];
        ai_copy(&tp, tex);
        if (uv != 0 || !am->uvs) {
            look_warn(w, path, "mesh '%s': its base colour texture uses UV set %u (the .stance keeps the first, which it %s)", am->name,
                      uv, am->uvs ? "has" : "does not have");
            continue;
        }
        int k = 0;
        while (k < n_img && strcmp(img_path[k], tex)) k++;
        if (k == n_img) {
            char why[300] = "";
            size_t size = 0;
            unsigned char *b = texture_bytes(sc, path, tex, &size, why, sizeof why);
            if (b && !stance_texture_sniff(b, size)) snprintf(why, sizeof why, "image '%s' is neither PNG nor JPEG", tex);
            else if (b && (n_img == STANCE_TEXTURE_MAX_IMAGES || total + size > STANCE_TEXTURE_MAX_BYTES))
                snprintf(why, sizeof why, "more than %d images or 256 MiB of them: '%s' not kept", STANCE_TEXTURE_MAX_IMAGES, tex);
            else if (b) why[0] = 0;
            if (why[0]) {
                free(b);
                if (!strcmp(why, "out of memory")) oom = 1;
                else look_warn(w, path, "mesh '%s': %s: not kept", am->name, why);
                continue;
            }
            snprintf(img_path[k], sizeof img_path[k], "%s", tex);
            img[k] = b, img_size[k] = size, total += size, n_img++;
        }
        out->mesh_image[i] = k;
    }
    if (!oom && total && !(out->owned = malloc(total))) oom = 1;
    if (!oom && colors && !(out->owned_colors = malloc(colors))) oom = 1;
    for (int k = 0, at = 0; !oom && k < n_img; at += (int)img_size[k], k++) {
        memcpy(out->owned + at, img[k], img_size[k]);
        out->images[k] = (stance_texture_image){stance_texture_sniff(img[k], img_size[k]), out->owned + at, img_size[k]};
    }
    if (!oom) out->image_count = n_img;
    for (int i = 0, at = 0; !oom && i < a->mesh_count; i++)
        if (col[i]) {
            const size_t n = 8 * (size_t)a->meshes[i]->vertex_count;
            memcpy(out->owned_colors + at, col[i], n);
            out->mesh_colors[i] = out->owned_colors + at, out->color_count++, at += (int)n;
        }
    for (int k = 0; k < n_img; k++) free(img[k]);
    for (int i = 0; i < a->mesh_count; i++) free(col[i]);
    if (oom) {
        stance_textures_free(out);
        return st_fail(err, STANCE_ERR_MEMORY, "%s: textures: out of memory", path);
    }
    return STANCE_OK;
}

#else
typedef int stance_import_mesh_unused; /* built without assimp: nothing here */
#endif
