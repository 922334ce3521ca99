/* src/io/gltf.cpp - glTF 2.0 import (.gltf and .glb) through Debian's
 * tinygltf, behind the C interface of gltf.h.
 *
 * Owns one import: tinygltf's model and every temporary live only inside
 * stance_gltf_import; the asset (skeleton, clips) belongs to the caller.
 * tinygltf parses the JSON, the GLB chunks, data URIs and external buffers
 * (through our file callbacks: regular files only, within the memory budget;
 * images are never decoded). Everything else is checked here before use:
 * node trees (one parent, no cycles), accessors (type and component type
 * per use, bounds, strides, sparse indices), samplers (interpolation name,
 * input/output counts, times), the memory budget before any large
 * allocation.
 *
 * Sampling semantics are baked onto the runtime's linear key grid (one grid
 * of key times per clip, shared by all joints; src/core/clip/clip.c), with the
 * curve maths in gltf_bake.c:
 *  - every channel is evaluated exactly as the specification says (STEP
 *    holds, LINEAR lerps translations and scales and slerps rotations,
 *    CUBICSPLINE is the Hermite spline with tangents times the key interval,
 *    rotations normalized after) at every grid time;
 *  - STEP: for each key k >= 1 the grid also holds nextafterf(t_k, 0) with
 *    the value of key k-1, so the sampled value is key k-1's for every float
 *    time t < t_k and key k's from t_k on;
 *  - CUBICSPLINE channels and LINEAR rotations (the runtime nlerps) are
 *    checked at 15 points inside every grid interval against the runtime's
 *    interpolation of the baked keys; an interval off by more than the
 *    tolerance is halved, recursively (at most 12 times).
 *
 * This file: the import state, file access, accessors, the node tree and
 * skeleton, and the entry point; clips are baked in gltf_clips.cpp, skins and
 * meshes built in gltf_mesh.cpp (gltf_imp.hpp is what they share). */
#include <sys/stat.h>

#include "gltf_imp.hpp"

namespace stance_gltf __attribute__((visibility("hidden"))) {


void Imp::fail(stance_status s, const char *fmt, ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    st_fail(err, s, "%s: %s", path, msg); /* escaped there: one printable line */
    throw Failure{s};
}

void Imp::warn(const char *fmt, ...) {
    stance_import_warnings *w = opt ? opt->warnings : nullptr;
    if (!w) return;
    if (w->count < STANCE_IMPORT_WARNINGS) {
        char *msg = w->message[w->count];
        size_t cap = sizeof w->message[0];
        int n = snprintf(msg, cap, "%s: ", path);
        if (n < 0 || (size_t)n >= cap) n = 0;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg + n, cap - (size_t)n, fmt, ap);
        va_end(ap);
        st_escape_in_place(msg, cap);
    }
    w->count++;
}

/* A name for messages: at most 40 bytes (fail and warn escape them,
 * core/base/internal.h st_escape). */
std::string show(const std::string &s) {
    std::string o = s.substr(0, 40);
    if (s.size() > 40) o += "...";
    return o;
}

/* ---- file access for tinygltf: regular files within the budget ----------- */

struct FsData {
    size_t budget;
};

bool fs_exists(const std::string &abs, void *) {
    struct stat st;
    return stat(abs.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}
std::string fs_expand(const std::string &p, void *) { return p; }
bool fs_read(std::vector<unsigned char> *out, std::string *err, const std::string &p, void *user) {
    const FsData *d = static_cast<const FsData *>(user);
    struct stat st;
    if (stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
        if (err) *err += "cannot open '" + show(p) + "' (missing, or not a regular file)";
        return false;
    }
    if ((unsigned long long)st.st_size > d->budget) {
        if (err) *err += "'" + show(p) + "' is larger than the memory budget";
        return false;
    }
    FILE *f = fopen(p.c_str(), "rb");
    if (!f) {
        if (err) *err += "cannot open '" + show(p) + "': " + strerror(errno);
        return false;
    }
    out->resize((size_t)st.st_size);
    size_t got = out->empty() ? 0 : fread(out->data(), 1, out->size(), f);
    fclose(f);
    if (got != out->size()) {
        if (err) *err += "cannot read '" + show(p) + "'";
        return false;
    }
    return true;
}
bool fs_write(std::string *err, const std::string &, const std::vector<unsigned char> &, void *) {
    if (err) *err += "writing is not supported";
    return false;
}
/* Images are not needed for animation: never decoded. */
bool no_image(tinygltf::Image *, const int, std::string *, std::string *, int, int, const unsigned char *, int, void *) {
    return true;
}

/* ---- transforms (gltf_bake.c) ------------------------------------------------ */

bool quat_normalize(double q[4]) { return stance_bake_quat_normalize(q) != 0; }
Mat mat_identity() { return stance_bake_mat_identity(); }
Mat mat_mul(const Mat &a, const Mat &b) { return stance_bake_mat_mul(&a, &b); }
Mat mat_from_trs(const Xform &x) { return stance_bake_mat_from_xform(&x); }
bool mat_inverse(const Mat &a, Mat &o) { return stance_bake_mat_inverse(&a, &o) != 0; }
bool decompose(const Mat &m, Xform &x) { return stance_bake_decompose(&m, &x) != 0; }

/* A node's local transform: its matrix, or its TRS (defaults for missing). */
Xform node_local(Imp &im, int n) {
    const tinygltf::Node &nd = im.model.nodes[(size_t)n];
    Xform x{{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    if (!nd.matrix.empty()) {
        if (nd.matrix.size() != 16) im.fail(STANCE_ERR_FORMAT, "node %d '%s': matrix has %zu numbers, not 16", n, show(nd.name).c_str(), nd.matrix.size());
        Mat m;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 4; j++) m.m[i][j] = nd.matrix[(size_t)(j * 4 + i)];
        if (!decompose(m, x)) im.fail(STANCE_ERR_VALUE, "node %d '%s': matrix is degenerate or not finite", n, show(nd.name).c_str());
        return x;
    }
    if ((!nd.translation.empty() && nd.translation.size() != 3) || (!nd.rotation.empty() && nd.rotation.size() != 4) ||
        (!nd.scale.empty() && nd.scale.size() != 3))
        im.fail(STANCE_ERR_FORMAT, "node %d '%s': translation/rotation/scale need 3/4/3 numbers", n, show(nd.name).c_str());
    for (size_t i = 0; i < nd.translation.size(); i++) x.t[i] = nd.translation[i];
    for (size_t i = 0; i < nd.rotation.size(); i++) x.r[i] = nd.rotation[i];
    for (size_t i = 0; i < nd.scale.size(); i++) x.s[i] = nd.scale[i];
    bool finite = true;
    for (int i = 0; i < 3; i++) finite = finite && std::isfinite(x.t[i]) && std::isfinite(x.s[i]);
    for (int i = 0; i < 4; i++) finite = finite && std::isfinite(x.r[i]);
    if (!finite || !quat_normalize(x.r))
        im.fail(STANCE_ERR_VALUE, "node %d '%s': transform is not finite or its rotation cannot be normalized", n, show(nd.name).c_str());
    return x;
}

/* ---- accessors ---------------------------------------------------------- */


const char *type_name(int type) {
    switch (type) {
    case TINYGLTF_TYPE_SCALAR: return "SCALAR";
    case TINYGLTF_TYPE_VEC2: return "VEC2";
    case TINYGLTF_TYPE_VEC3: return "VEC3";
    case TINYGLTF_TYPE_VEC4: return "VEC4";
    case TINYGLTF_TYPE_MAT2: return "MAT2";
    case TINYGLTF_TYPE_MAT3: return "MAT3";
    case TINYGLTF_TYPE_MAT4: return "MAT4";
    default: return "an unknown type";
    }
}
const char *ct_name(int ct) {
    switch (ct) {
    case CT_BYTE: return "BYTE";
    case CT_UBYTE: return "UNSIGNED_BYTE";
    case CT_SHORT: return "SHORT";
    case CT_USHORT: return "UNSIGNED_SHORT";
    case CT_UINT: return "UNSIGNED_INT";
    case CT_FLOAT: return "FLOAT";
    default: return "an unknown componentType";
    }
}
int ct_size(int ct) {
    return ct == CT_BYTE || ct == CT_UBYTE ? 1 : ct == CT_SHORT || ct == CT_USHORT ? 2 : ct == CT_UINT || ct == CT_FLOAT ? 4 : 0;
}
int type_comps(int type) {
    switch (type) {
    case TINYGLTF_TYPE_SCALAR: return 1;
    case TINYGLTF_TYPE_VEC2: return 2;
    case TINYGLTF_TYPE_VEC3: return 3;
    case TINYGLTF_TYPE_VEC4: return 4;
    case TINYGLTF_TYPE_MAT4: return 16;
    default: return 0; /* MAT2/MAT3 have column padding for small types: not read here */
    }
}

double decode(const unsigned char *p, int ct, bool norm) { return stance_bake_decode(p, ct, norm); }

const tinygltf::Accessor &accessor(Imp &im, int idx, const char *what) {
    if (idx < 0 || (size_t)idx >= im.model.accessors.size())
        im.fail(STANCE_ERR_FORMAT, "%s: accessor %d does not exist (%zu accessors)", what, idx, im.model.accessors.size());
    return im.model.accessors[(size_t)idx];
}

/* The bytes of a buffer view, bounds-checked. */
const unsigned char *view_bytes(Imp &im, int v, size_t *len, const char *what) {
    if (v < 0 || (size_t)v >= im.model.bufferViews.size())
        im.fail(STANCE_ERR_FORMAT, "%s: buffer view %d does not exist", what, v);
    const tinygltf::BufferView &bv = im.model.bufferViews[(size_t)v];
    if (bv.buffer < 0 || (size_t)bv.buffer >= im.model.buffers.size())
        im.fail(STANCE_ERR_FORMAT, "%s: buffer view %d names buffer %d, which does not exist", what, v, bv.buffer);
    const std::vector<unsigned char> &data = im.model.buffers[(size_t)bv.buffer].data;
    if (bv.byteOffset > data.size() || bv.byteLength > data.size() - bv.byteOffset)
        im.fail(STANCE_ERR_FORMAT, "%s: buffer view %d (offset %zu, %zu bytes) runs past its buffer (%zu bytes)", what, v,
                bv.byteOffset, bv.byteLength, data.size());
    *len = bv.byteLength;
    return data.data() + bv.byteOffset;
}

/* Reads accessor idx (checked: type, bounds, stride, sparse) into count *
 * comps doubles. The caller checked type and componentType for its use. */
void read_accessor(Imp &im, int idx, std::vector<double> &out, const char *what) {
    const tinygltf::Accessor &a = accessor(im, idx, what);
    const int comps = type_comps(a.type), cs = ct_size(a.componentType);
    if (comps == 0 || cs == 0)
        im.fail(STANCE_ERR_FORMAT, "%s: accessor %d is %s of %s, which cannot be read here", what, idx, type_name(a.type), ct_name(a.componentType));
    const size_t n = a.count, elem = (size_t)comps * (size_t)cs;
    if (n == 0) im.fail(STANCE_ERR_FORMAT, "%s: accessor %d has count 0", what, idx);
    if (n > ((size_t)1 << 31) / (size_t)comps) im.fail(STANCE_ERR_FORMAT, "%s: accessor %d count %zu is absurd", what, idx, n);
    const bool norm = a.normalized;
    out.assign(n * (size_t)comps, 0.0);
    if (a.bufferView >= 0) {
        size_t len = 0;
        const unsigned char *base = view_bytes(im, a.bufferView, &len, what);
        size_t stride = im.model.bufferViews[(size_t)a.bufferView].byteStride;
        if (stride == 0) stride = elem;
        if (stride < elem || stride > 252 || stride % (size_t)cs)
            im.fail(STANCE_ERR_FORMAT, "%s: accessor %d: byteStride %zu does not fit elements of %zu bytes", what, idx, stride, elem);
        if (a.byteOffset % (size_t)cs)
            im.fail(STANCE_ERR_FORMAT, "%s: accessor %d: byteOffset %zu is not a multiple of its component size", what, idx, a.byteOffset);
        if (a.byteOffset > len || elem > len - a.byteOffset || (n - 1) > (len - a.byteOffset - elem) / stride)
            im.fail(STANCE_ERR_FORMAT, "%s: accessor %d (%zu x %zu bytes from offset %zu) runs past its buffer view (%zu bytes)", what,
                    idx, n, elem, a.byteOffset, len);
        const unsigned char *p = base + a.byteOffset;
        for (size_t i = 0; i < n; i++, p += stride)
            for (int c = 0; c < comps; c++) out[i * (size_t)comps + (size_t)c] = decode(p + (size_t)c * (size_t)cs, a.componentType, norm);
    }
    if (a.sparse.isSparse) {
        const int sc = a.sparse.count, ict = a.sparse.indices.componentType;
        if (sc < 1 || (size_t)sc > n) im.fail(STANCE_ERR_FORMAT, "%s: accessor %d: sparse count %d is not in 1..%zu", what, idx, sc, n);
        if (ict != CT_UBYTE && ict != CT_USHORT && ict != CT_UINT)
            im.fail(STANCE_ERR_FORMAT, "%s: accessor %d: sparse indices are %s (need an unsigned integer type)", what, idx, ct_name(ict));
        if (a.sparse.indices.byteOffset < 0 || a.sparse.values.byteOffset < 0)
            im.fail(STANCE_ERR_FORMAT, "%s: accessor %d: negative sparse byteOffset", what, idx);
        size_t ilen = 0, vlen = 0;
        const unsigned char *ip = view_bytes(im, a.sparse.indices.bufferView, &ilen, what);
        const unsigned char *vp = view_bytes(im, a.sparse.values.bufferView, &vlen, what);
        size_t io = (size_t)a.sparse.indices.byteOffset, vo = (size_t)a.sparse.values.byteOffset, is = (size_t)ct_size(ict);
        if (io > ilen || (size_t)sc > (ilen - io) / is || vo > vlen || (size_t)sc > (vlen - vo) / elem)
            im.fail(STANCE_ERR_FORMAT, "%s: accessor %d: sparse indices or values run past their buffer view", what, idx);
        double prev = -1.0;
        for (int k = 0; k < sc; k++) {
            double at = decode(ip + io + (size_t)k * is, ict, false);
            if (!(at > prev) || at >= (double)n)
                im.fail(STANCE_ERR_FORMAT, "%s: accessor %d: sparse index %d (%g) is not increasing or not below count %zu", what, idx, k, at, n);
            prev = at;
            const unsigned char *p = vp + vo + (size_t)k * elem;
            for (int c = 0; c < comps; c++)
                out[(size_t)at * (size_t)comps + (size_t)c] = decode(p + (size_t)c * (size_t)cs, a.componentType, norm);
        }
    }
}

/* ---- the skeleton --------------------------------------------------------- */

void build_tree(Imp &im) {
    const size_t N = im.model.nodes.size();
    if (N == 0) im.fail(STANCE_ERR_FORMAT, "the file has no nodes");
    if (N > (1u << 20)) im.fail(STANCE_ERR_FORMAT, "%zu nodes, more than %d", N, 1 << 20);
    im.parent.assign(N, -1);
    for (size_t n = 0; n < N; n++)
        for (int c : im.model.nodes[n].children) {
            if (c < 0 || (size_t)c >= N) im.fail(STANCE_ERR_FORMAT, "node %zu has child %d, which does not exist", n, c);
            if ((size_t)c == n || im.parent[(size_t)c] >= 0)
                im.fail(STANCE_ERR_FORMAT, "node %d is a child of more than one node (or of itself)", c);
            im.parent[(size_t)c] = (int)n;
        }
    /* depths, and no cycle (a node on a cycle never reaches a top-level node) */
    im.depth.assign(N, -1);
    std::vector<int> chain;
    for (size_t n = 0; n < N; n++) {
        chain.clear();
        int at = (int)n;
        while (at >= 0 && im.depth[(size_t)at] < 0) {
            chain.push_back(at);
            if (chain.size() > N) im.fail(STANCE_ERR_FORMAT, "the node hierarchy has a cycle (through node %d)", at);
            at = im.parent[(size_t)at];
        }
        int d = at >= 0 ? im.depth[(size_t)at] : -1;
        for (size_t i = chain.size(); i-- > 0;) im.depth[(size_t)chain[i]] = ++d;
    }
}

int path_kind(const std::string &p) {
    return p == "translation" ? PATH_T : p == "rotation" ? PATH_R : p == "scale" ? PATH_S : -1;
}

bool is_camera_or_light(const tinygltf::Node &n) {
    return n.camera >= 0 || n.extensions.count("KHR_lights_punctual") > 0;
}

/* Marks the joints, connects them to their lowest common ancestor and orders
 * them parents first (pre-order, children in file order), then in
 * stance_skeleton_fast_order. */
void build_joints(Imp &im) {
    const int N = (int)im.model.nodes.size();
    std::vector<char> mark((size_t)N, 0); /* 1 joint, 2 connector */
    int marked = 0;
    for (size_t s = 0; s < im.model.skins.size(); s++)
        for (int j : im.model.skins[s].joints) {
            if (j < 0 || j >= N) im.fail(STANCE_ERR_FORMAT, "skin %zu names joint node %d, which does not exist", s, j);
            if (!mark[(size_t)j]) mark[(size_t)j] = 1, marked++;
        }
    if (marked == 0) { /* no skin: the nodes the animations move */
        for (const tinygltf::Animation &an : im.model.animations)
            for (const tinygltf::AnimationChannel &ch : an.channels) {
                int n = ch.target_node;
                if (n < 0 || n >= N || path_kind(ch.target_path) < 0 || mark[(size_t)n]) continue;
                if (is_camera_or_light(im.model.nodes[(size_t)n])) continue;
                mark[(size_t)n] = 1, marked++;
            }
    }
    if (marked == 0) im.fail(STANCE_ERR_FORMAT, "no skeleton: no skin joints and no animated nodes");
    /* lowest common ancestor; -1 = none (several top-level trees) */
    int lca = -2;
    for (int i = 0; i < N; i++) {
        if (mark[(size_t)i] != 1) continue;
        if (lca == -2) {
            lca = i;
            continue;
        }
        if (lca == -1) break;
        int a = lca, b = i;
        while (im.depth[(size_t)a] > im.depth[(size_t)b]) a = im.parent[(size_t)a];
        while (im.depth[(size_t)b] > im.depth[(size_t)a]) b = im.parent[(size_t)b];
        while (a != b && a >= 0) a = im.parent[(size_t)a], b = im.parent[(size_t)b];
        lca = a; /* -1 when they meet above the top */
    }
    for (int i = 0; i < N; i++) {
        if (mark[(size_t)i] != 1) continue;
        for (int p = im.parent[(size_t)i]; p >= 0 && (lca < 0 || im.depth[(size_t)p] >= im.depth[(size_t)lca]); p = im.parent[(size_t)p])
            if (!mark[(size_t)p]) mark[(size_t)p] = 2;
    }
    int count = 0;
    for (int i = 0; i < N; i++) count += mark[(size_t)i] != 0;
    if (lca < 0) count++; /* a root joint above the top-level trees */
    if (count > STANCE_MAX_JOINTS)
        im.fail(STANCE_ERR_UNSUPPORTED, "the skeleton has %d joints, more than %d", count, STANCE_MAX_JOINTS);
    im.node_joint.assign((size_t)N, -1);
    std::vector<int> stack;
    if (lca >= 0) {
        stack.push_back(lca);
    } else {
        im.joint_node.push_back(-1);
        for (int i = N - 1; i >= 0; i--)
            if (mark[(size_t)i] && im.parent[(size_t)i] < 0) stack.push_back(i);
    }
    while (!stack.empty()) {
        int at = stack.back();
        stack.pop_back();
        im.node_joint[(size_t)at] = (int)im.joint_node.size();
        im.joint_node.push_back(at);
        const std::vector<int> &ch = im.model.nodes[(size_t)at].children;
        for (size_t k = ch.size(); k-- > 0;)
            if (mark[(size_t)ch[k]]) stack.push_back(ch[k]);
    }
    /* then in stance_skeleton_fast_order (from that pre-order: siblings in
     * file order), so local-to-model runs 4 joints at a time */
    const int J = (int)im.joint_node.size();
    std::vector<int> par((size_t)J), order((size_t)J);
    for (int j = 0; j < J; j++) {
        int n = im.joint_node[(size_t)j], p = n >= 0 ? im.parent[(size_t)n] : -1;
        par[(size_t)j] = j == 0 ? -1 : p >= 0 && im.node_joint[(size_t)p] >= 0 ? im.node_joint[(size_t)p] : 0;
    }
    stance_error oe = {STANCE_OK, ""};
    if (stance_skeleton_fast_order(par.data(), J, order.data(), &oe)) im.fail(oe.status, "%.200s", oe.message);
    std::vector<int> pre = im.joint_node;
    for (int j = 0; j < J; j++) {
        im.joint_node[(size_t)j] = pre[(size_t)order[(size_t)j]];
        if (im.joint_node[(size_t)j] >= 0) im.node_joint[(size_t)im.joint_node[(size_t)j]] = j;
    }
    /* names: the node's or joint<i>, at most 63 bytes, unique */
    for (size_t j = 0; j < im.joint_node.size(); j++) {
        int n = im.joint_node[j];
        std::string name = n < 0 ? std::string("root") : im.model.nodes[(size_t)n].name;
        if (name.empty()) name = "joint" + std::to_string(j);
        if (name.size() > 63) {
            im.warn("joint name '%s' cut to 63 bytes", show(name).c_str());
            name.resize(63);
        }
        name = name.substr(0, strnlen(name.c_str(), 63));
        if (name.empty()) name = "joint" + std::to_string(j);
        for (size_t k = 0, tries = 0; k < j; k++) {
            if (im.joint_name[k] != name) continue;
            std::string base = name.substr(0, 50);
            name = base + "~" + std::to_string(++tries % 100000);
            im.warn("two joints are named '%s': the second is now '%s'", show(base).c_str(), show(name).c_str());
            k = (size_t)-1;
        }
        im.joint_name.push_back(name);
    }
    /* what lies above the root: its world transform, a uniform scale moved into translations */
    Mat m = mat_identity();
    for (int p = lca >= 0 ? im.parent[(size_t)lca] : -1; p >= 0; p = im.parent[(size_t)p]) m = mat_mul(mat_from_trs(node_local(im, p)), m);
    if (!decompose(m, im.space.above)) im.fail(STANCE_ERR_VALUE, "the transform above the skeleton is degenerate or not finite");
    const double *s = im.space.above.s;
    double mean = (std::fabs(s[0]) + std::fabs(s[1]) + std::fabs(s[2])) / 3.0;
    if (s[0] < 0.0) im.warn("the nodes above the skeleton mirror it: the mirror is dropped");
    /* an uneven scale is folded in by its mean like an even one; the poses
     * are then checked (import_scale.c) and refused where that is wrong */
    im.uneven = st_imp_is_uneven(s);
    im.space.push_scale = mean;
    im.space.above_identity = !im.uneven && mean == 1.0 && im.space.above.t[0] == 0.0 && im.space.above.t[1] == 0.0 &&
                              im.space.above.t[2] == 0.0 && im.space.above.r[3] == 1.0;
}

st_scale_ctx scale_ctx(const Imp &im) {
    st_scale_ctx c;
    c.path = im.path, c.err = im.err, c.space = im.space, c.uneven = im.uneven, c.size = im.size;
    return c;
}

/* A joint's local translation / rotation into the skeleton's space. */
void joint_t(const Imp &im, int joint, const double in[3], double out[3]) { stance_bake_joint_t(&im.space, joint, in, out); }
void joint_r(const Imp &im, int joint, const double in[4], double out[4]) { stance_bake_joint_r(&im.space, joint, in, out); }

bool to_floats(const double *in, float *out, int n) {
    for (int i = 0; i < n; i++) {
        out[i] = (float)in[i];
        if (!std::isfinite(out[i])) return false;
    }
    return true;
}

stance_skeleton *make_skeleton(Imp &im, const stance_allocator *al) {
    const int J = (int)im.joint_node.size();
    std::vector<const char *> names((size_t)J);
    std::vector<int> parents((size_t)J);
    std::vector<stance_transform> rest((size_t)J);
    for (int j = 0; j < J; j++) {
        int n = im.joint_node[(size_t)j];
        names[(size_t)j] = im.joint_name[(size_t)j].c_str();
        int p = n >= 0 ? im.parent[(size_t)n] : -1;
        /* a top-level node hangs under the synthetic root (joint 0) */
        parents[(size_t)j] = j == 0 ? -1 : p >= 0 && im.node_joint[(size_t)p] >= 0 ? im.node_joint[(size_t)p] : 0;
        Xform x = n >= 0 ? node_local(im, n) : Xform{{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
        double t[3], r[4];
        joint_t(im, j, x.t, t);
        joint_r(im, j, x.r, r);
        if (!to_floats(t, rest[(size_t)j].t, 3) || !to_floats(r, rest[(size_t)j].r, 4) || !to_floats(x.s, rest[(size_t)j].s, 3))
            im.fail(STANCE_ERR_VALUE, "joint '%s': rest transform overflows a float", show(names[(size_t)j]).c_str());
        if (st_imp_is_uneven(x.s)) im.uneven = 1;
    }
    stance_skeleton_desc d = {J, names.data(), parents.data(), rest.data()};
    stance_skeleton *sk = nullptr;
    stance_error e = {STANCE_OK, ""};
    stance_status s = stance_skeleton_create(&d, al, &sk, &e);
    if (s) im.fail(s, "%.200s", e.message);
    /* exact or refused under an uneven scale */
    st_scale_ctx c = scale_ctx(im);
    s = st_imp_check_rest(&c, sk);
    im.size = c.size;
    if (s) {
        stance_skeleton_destroy(sk);
        im.fail(s, "%.230s", last_problem(im));
    }
    return sk;
}

void load_model(Imp &im) {
    tinygltf::TinyGLTF loader;
    FsData fsd = {im.budget};
    tinygltf::FsCallbacks fs = {&fs_exists, &fs_expand, &fs_read, &fs_write, &fsd};
    loader.SetFsCallbacks(fs);
    loader.SetImageLoader(&no_image, nullptr);
    /* the header first: binary by its magic */
    FILE *f = fopen(im.path, "rb");
    if (!f) im.fail(STANCE_ERR_IO, "cannot open: %s", strerror(errno));
    unsigned char h[20];
    size_t got = fread(h, 1, sizeof h, f);
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    fclose(f);
    if (size < 0) im.fail(STANCE_ERR_IO, "cannot read the file's size");
    if ((unsigned long long)size > im.budget) im.fail(STANCE_ERR_MEMORY, "the file (%ld bytes) is larger than the memory budget", size);
    const bool binary = got >= 4 && !memcmp(h, "glTF", 4);
    if (binary) {
        auto le32 = [&](int o) { return (uint32_t)h[o] | (uint32_t)h[o + 1] << 8 | (uint32_t)h[o + 2] << 16 | (uint32_t)h[o + 3] << 24; };
        if (got < 20) im.fail(STANCE_ERR_FORMAT, "GLB: shorter than its 20-byte header");
        if (le32(4) != 2) im.fail(STANCE_ERR_FORMAT, "GLB: version %u (want glTF 2)", (unsigned)le32(4));
        if ((long)le32(8) != size) im.fail(STANCE_ERR_FORMAT, "GLB: the header gives %u bytes, the file has %ld", (unsigned)le32(8), size);
        if (le32(16) != 0x4E4F534Au || le32(12) > (uint32_t)(size - 20))
            im.fail(STANCE_ERR_FORMAT, "GLB: the first chunk is not JSON or runs past the end");
    }
    /* the parsed JSON takes several times its text: at most budget / 8 of it */
    const size_t json_bytes = binary ? (size_t)(h[12] | h[13] << 8 | h[14] << 16 | (uint32_t)h[15] << 24) : (size_t)size;
    if (json_bytes > im.budget / 8)
        im.fail(STANCE_ERR_MEMORY, "%zu bytes of JSON, more than the memory budget / 8 (%zu MiB) allows to parse", json_bytes, mib(im.budget / 8));
    std::string err, warn;
    bool ok = binary ? loader.LoadBinaryFromFile(&im.model, &err, &warn, im.path) : loader.LoadASCIIFromFile(&im.model, &err, &warn, im.path);
    if (!ok) {
        std::string why = err.empty() ? std::string("unknown error") : err;
        while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
        im.fail(STANCE_ERR_FORMAT, "cannot import glTF: %.200s", why.c_str());
    }
    for (const std::string &x : im.model.extensionsRequired)
        if (x != "KHR_materials_unlit" && x != "KHR_texture_transform" && x != "KHR_materials_emissive_strength")
            im.fail(STANCE_ERR_UNSUPPORTED, "the file requires extension '%s', which stance does not read", show(x).c_str());
}

void import_asset(Imp &im, const stance_allocator *allocator, stance_asset *out) {
    load_model(im);
    if (im.model.animations.empty()) im.fail(STANCE_ERR_FORMAT, "no animations in the file (nothing to import)");
    build_tree(im);
    build_joints(im);
    stance_asset a;
    memset(&a, 0, sizeof a);
    a.allocator = st_allocator(allocator);
    struct Guard {
        stance_asset *a;
        ~Guard() {
            if (a) stance_asset_destroy(a);
        }
    } guard{&a};
    a.skeleton = make_skeleton(im, &a.allocator);
    im.used += a.skeleton->bytes;
    im.rest_model.resize(12 * (size_t)a.skeleton->joint_count);
    for (int j = 0; j < a.skeleton->joint_count; j++) { /* from the stored floats, as the runtime will see them */
        const stance_transform &r = a.skeleton->rest[j];
        Xform x{{r.t[0], r.t[1], r.t[2]}, {r.r[0], r.r[1], r.r[2], r.r[3]}, {r.s[0], r.s[1], r.s[2]}};
        quat_normalize(x.r);
        Mat m = mat_from_trs(x);
        int p = a.skeleton->parents[j];
        if (p >= 0) {
            Mat pm;
            memcpy(pm.m, &im.rest_model[12 * (size_t)p], sizeof pm.m);
            m = mat_mul(pm, m);
        }
        memcpy(&im.rest_model[12 * (size_t)j], m.m, sizeof m.m);
    }
    size_t n = im.model.animations.size();
    if (n > (size_t)STANCE_MAX_CLIPS) {
        im.warn("%zu animations: only the first %d are imported", n, STANCE_MAX_CLIPS);
        n = STANCE_MAX_CLIPS;
    }
    const size_t clips_bytes = sizeof(stance_clip *) * n;
    a.clips = static_cast<stance_clip **>(st_alloc(&a.allocator, clips_bytes, 16));
    if (!a.clips) im.fail(STANCE_ERR_MEMORY, "out of memory");
    a.clip_count = (int)n; /* the array's size, for destroy (unused entries are NULL); compacted below */
    std::vector<std::string> names;
    stance_import_report *rep = im.opt ? im.opt->report : nullptr;
    int made = 0, dropped = 0;
    std::string first_problem;
    for (size_t i = 0; i < n; i++) {
        std::string name = clip_name(im, im.model.animations[i], (int)i, names);
        stance_import_clip_report r;
        memset(&r, 0, sizeof r);
        try {
            stance_clip *c = build_clip(im, (int)i, name, a.skeleton, &a.allocator, &r);
            a.clips[made++] = c;
            im.used += c->bytes;
            names.push_back(name);
            if (rep) {
                if (rep->count < rep->capacity && rep->clips) rep->clips[rep->count] = r;
                rep->count++;
            }
        } catch (const ClipProblem &p) {
            if (im.strict) im.fail(STANCE_ERR_FORMAT, "clip '%s' (animation %zu): %s", show(name).c_str(), i, p.why.c_str());
            im.warn("clip '%s' (animation %zu) dropped: %s", show(name).c_str(), i, p.why.c_str());
            if (first_problem.empty()) first_problem = "clip '" + show(name) + "': " + p.why;
            dropped++;
        }
    }
    if (made == 0) im.fail(STANCE_ERR_FORMAT, "no animation could be imported (%d dropped; first: %.180s)", dropped, first_problem.c_str());
    if ((size_t)made < n) { /* shrink the array to the clips made */
        size_t bytes = sizeof(stance_clip *) * (size_t)made;
        stance_clip **fit = static_cast<stance_clip **>(st_alloc(&a.allocator, bytes, 16));
        if (!fit) im.fail(STANCE_ERR_MEMORY, "out of memory");
        memcpy(fit, a.clips, bytes);
        st_free(&a.allocator, a.clips, clips_bytes);
        a.clips = fit;
    }
    a.clip_count = made;
    import_skins_meshes(im, a);
    *out = a;
    guard.a = nullptr;
}

} /* namespace stance_gltf */

using namespace stance_gltf;


extern "C" stance_status stance_gltf_import(const char *path, const stance_import_options *opt, const stance_allocator *allocator,
                                            stance_asset *out, stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "import: out is NULL");
    memset(out, 0, sizeof *out);
    if (!path || !path[0]) return st_fail(err, STANCE_ERR_ARGUMENT, "import: path is NULL or empty");
    if (opt && opt->report) opt->report->count = 0;
    if (opt && (!std::isfinite(opt->tolerance_units) || opt->tolerance_units < 0.0f || !std::isfinite(opt->tolerance_radians) ||
                opt->tolerance_radians < 0.0f))
        return st_fail(err, STANCE_ERR_ARGUMENT, "%s: tolerances must be finite numbers >= 0", path);
    try {
        Imp im;
        im.path = path;
        im.opt = opt;
        im.err = err ? err : &im.own;
        if (opt) {
            if (opt->scale > 0.0f) im.space.scale = opt->scale;
            if (opt->tolerance_units > 0.0f) im.tol_u = opt->tolerance_units;
            if (opt->tolerance_radians > 0.0f) im.tol_r = opt->tolerance_radians;
            if (opt->max_memory > 0) im.budget = opt->max_memory;
            im.strict = opt->strict != 0;
        }
        import_asset(im, allocator, out);
        return st_ok(err);
    } catch (const Failure &f) {
        return f.status;
    } catch (const std::bad_alloc &) {
        return st_fail(err, STANCE_ERR_MEMORY, "%s: out of memory", path);
    } catch (const std::exception &x) {
        char msg[200];
        snprintf(msg, sizeof msg, "%s", x.what());
        return st_fail(err, STANCE_ERR_FORMAT, "%s: cannot import glTF: %s", path, msg);
    } catch (...) {
        return st_fail(err, STANCE_ERR_FORMAT, "%s: cannot import glTF", path);
    }
}
