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
 * of key times per clip, shared by all joints; src/core/clip.c), with the
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
 *    tolerance is halved, recursively (at most 12 times). */
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <map>
#include <new>
#include <string>
#include <vector>

#include <tiny_gltf.h>

extern "C" {
#include "core/internal.h"
}
#include "gltf.h"
#include "gltf_bake.h"

namespace {

const double kMaxTime = 1e5;     /* seconds: beyond it a float time is coarser than 8 ms */
const int kMaxDepth = 12;        /* halvings of one key interval while resampling (gltf_bake.c) */
const size_t kDefaultBudget = STANCE_IMPORT_DEFAULT_MEMORY;

enum { PATH_T = 0, PATH_R = 1, PATH_S = 2 };
enum { INTERP_LINEAR = 0, INTERP_STEP = 1, INTERP_CUBIC = 2 };
const char *const kPathName[3] = {"translation", "rotation", "scale"};
const char *const kInterpName[3] = {"LINEAR", "STEP", "CUBICSPLINE"};

struct Failure { /* thrown by Imp::fail after err is set: unwinds to the entry point */
    stance_status status;
};

using Xform = stance_bake_xform;
using Mat = stance_bake_mat;

struct Imp {
    const char *path = nullptr;
    const stance_import_options *opt = nullptr;
    stance_error *err = nullptr; /* the caller's, or own */
    stance_error own{STANCE_OK, ""};
    tinygltf::Model model;
    size_t budget = kDefaultBudget;
    size_t used = 0;     /* bytes of the asset built so far */
    double tol_u = 1e-5, tol_r = 1e-4;
    int strict = 0;

    /* the node tree */
    std::vector<int> parent;  /* -1 for a top-level node */
    std::vector<int> depth;
    /* the skeleton: joint -> node (-1 for a synthetic root), node -> joint */
    std::vector<int> joint_node;
    std::vector<int> node_joint;
    std::vector<std::string> joint_name;
    std::vector<double> rest_model; /* 12 per joint: rows of the skeleton's rest model matrices */
    std::vector<std::vector<double>> skin_bake; /* per asset skin: 12 (rows), the mesh correction, or empty */
    stance_bake_space space{{{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}}, 1.0, 1.0, 1}; /* above the skeleton, the scale option */

    [[noreturn]] void fail(stance_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
    void warn(const char *fmt, ...) __attribute__((format(printf, 2, 3)));
};

void one_line(char *s) {
    for (; *s; s++)
        if ((unsigned char)*s < 32 || *s == 127) *s = ' ';
}

void Imp::fail(stance_status s, const char *fmt, ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    one_line(msg);
    st_fail(err, s, "%s: %s", path, msg);
    one_line(err->message);
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
        one_line(msg);
    }
    w->count++;
}

/* A printable name for messages: at most 40 bytes, control bytes as '?'. */
std::string show(const std::string &s) {
    std::string o = s.substr(0, 40);
    for (char &c : o)
        if ((unsigned char)c < 32 || c == 127) c = '?';
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

const int CT_BYTE = 5120, CT_UBYTE = 5121, CT_SHORT = 5122, CT_USHORT = 5123, CT_UINT = 5125, CT_FLOAT = 5126;

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
 * them parents first (pre-order, children in file order). */
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
    if (std::fabs(s[0] - mean) > 1e-4 * mean || std::fabs(std::fabs(s[1]) - mean) > 1e-4 * mean || std::fabs(std::fabs(s[2]) - mean) > 1e-4 * mean)
        im.warn("the nodes above the skeleton scale it unevenly (%g %g %g): using the mean %g", s[0], s[1], s[2], mean);
    im.space.push_scale = mean;
    im.space.above_identity = mean == 1.0 && im.space.above.t[0] == 0.0 && im.space.above.t[1] == 0.0 && im.space.above.t[2] == 0.0 && im.space.above.r[3] == 1.0;
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
    }
    stance_skeleton_desc d = {J, names.data(), parents.data(), rest.data()};
    stance_skeleton *sk = nullptr;
    stance_error e = {STANCE_OK, ""};
    stance_status s = stance_skeleton_create(&d, al, &sk, &e);
    if (s) im.fail(s, "%.200s", e.message);
    return sk;
}

/* ---- clips ---------------------------------------------------------------- */

struct Chan {
    int index;                   /* in the animation */
    int joint, kind, interp;
    const std::vector<double> *times, *values; /* values: 1 or 3 (cubic) elements per key */
    int width;                   /* 3 or 4 */
    size_t keys;
    stance_bake_curve curve;     /* set once the key data is read */
};

/* The spec's value in the skeleton's space, as the runtime stores it (floats). */
bool eval_final(const Imp &im, const Chan &c, double t, float out[4]) { return stance_bake_value_f(&im.space, &c.curve, t, out) != 0; }

/* A problem that drops one clip (or fails the import with strict). */
struct ClipProblem {
    std::string why;
};
[[noreturn]] void clip_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void clip_fail(const char *fmt, ...) {
    char msg[220];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    throw ClipProblem{msg};
}

/* The last error's message without the leading path. */
const char *last_problem(const Imp &im) {
    const char *m = im.err->message;
    size_t n = strlen(im.path);
    if (!strncmp(m, im.path, n) && !strncmp(m + n, ": ", 2)) m += n + 2;
    return m;
}

/* read_accessor, its problems dropping the clip rather than the file. */
void read_clip_accessor(Imp &im, int idx, std::vector<double> &out, const char *what) {
    try {
        read_accessor(im, idx, out, what);
    } catch (const Failure &) {
        clip_fail("%s", last_problem(im));
    }
}

std::string clip_name(Imp &im, const tinygltf::Animation &an, int index, const std::vector<std::string> &done) {
    std::string name = an.name;
    name = name.substr(0, strnlen(name.c_str(), name.size()));
    if (name.empty()) name = "clip" + std::to_string(index);
    if (name.size() > 63) {
        im.warn("clip name '%s' cut to 63 bytes", show(name).c_str());
        name.resize(63);
    }
    for (size_t k = 0, tries = 0; k < done.size(); k++) {
        if (done[k] != name) continue;
        std::string base = name.substr(0, 50);
        name = base + "~" + std::to_string(++tries % 100000);
        im.warn("two clips are named '%s': the second is now '%s'", show(base).c_str(), show(name).c_str());
        k = (size_t)-1;
    }
    return name;
}

size_t mib(size_t b) { return (b + (1u << 20) - 1) >> 20; }

/* Builds one clip. ClipProblem for a bad animation; im.fail for the file. */
stance_clip *build_clip(Imp &im, int ai, const std::string &name, const stance_skeleton *sk, const stance_allocator *al,
                        stance_import_clip_report *rep) {
    const tinygltf::Animation &an = im.model.animations[(size_t)ai];
    const int N = (int)im.model.nodes.size();
    std::vector<Chan> chans;
    std::vector<char> used((size_t)sk->joint_count * 3, 0);
    /* first pass: references, types and counts; nothing read yet */
    for (size_t ci = 0; ci < an.channels.size(); ci++) {
        const tinygltf::AnimationChannel &ch = an.channels[ci];
        const int n = ch.target_node;
        std::string nname = n >= 0 && n < N ? show(im.model.nodes[(size_t)n].name) : std::string("?");
        if (n < 0) {
            im.warn("clip '%s', channel %zu: no target node: ignored", show(name).c_str(), ci);
            continue;
        }
        if (n >= N) clip_fail("channel %zu targets node %d, which does not exist", ci, n);
        const int kind = path_kind(ch.target_path);
        if (ch.target_path == "weights") {
            im.warn("clip '%s', channel %zu (node '%s'): morph-target weights ignored", show(name).c_str(), ci, nname.c_str());
            continue;
        }
        if (kind < 0) clip_fail("channel %zu (node '%s'): unknown target path '%s'", ci, nname.c_str(), show(ch.target_path).c_str());
        char what[160];
        snprintf(what, sizeof what, "channel %zu (node '%s' %s)", ci, nname.c_str(), kPathName[kind]);
        if (ch.sampler < 0 || (size_t)ch.sampler >= an.samplers.size())
            clip_fail("%s: sampler %d does not exist (%zu samplers)", what, ch.sampler, an.samplers.size());
        const tinygltf::AnimationSampler &sm = an.samplers[(size_t)ch.sampler];
        int interp = sm.interpolation.empty() || sm.interpolation == "LINEAR" ? INTERP_LINEAR
                     : sm.interpolation == "STEP"                             ? INTERP_STEP
                     : sm.interpolation == "CUBICSPLINE"                      ? INTERP_CUBIC
                                                                              : -1;
        if (interp < 0) clip_fail("%s: unknown interpolation '%s' (glTF has LINEAR, STEP, CUBICSPLINE)", what, show(sm.interpolation).c_str());
        if (sm.input < 0 || (size_t)sm.input >= im.model.accessors.size() || sm.output < 0 || (size_t)sm.output >= im.model.accessors.size())
            clip_fail("%s: sampler %d input %d or output %d is not an accessor", what, ch.sampler, sm.input, sm.output);
        const tinygltf::Accessor &in = im.model.accessors[(size_t)sm.input], &out = im.model.accessors[(size_t)sm.output];
        if (in.type != TINYGLTF_TYPE_SCALAR || in.componentType != CT_FLOAT || in.normalized)
            clip_fail("%s: input accessor %d is %s %s, key times need SCALAR FLOAT", what, sm.input, type_name(in.type), ct_name(in.componentType));
        const int want = kind == PATH_R ? TINYGLTF_TYPE_VEC4 : TINYGLTF_TYPE_VEC3;
        bool ct_ok = out.componentType == CT_FLOAT && !out.normalized;
        if (kind == PATH_R && out.normalized &&
            (out.componentType == CT_BYTE || out.componentType == CT_UBYTE || out.componentType == CT_SHORT || out.componentType == CT_USHORT))
            ct_ok = true;
        if (out.type != want || !ct_ok)
            clip_fail("%s: output accessor %d is %s %s%s, %s needs %s", what, sm.output, type_name(out.type), out.normalized ? "normalized " : "",
                      ct_name(out.componentType), kPathName[kind],
                      kind == PATH_R ? "VEC4 FLOAT or normalized BYTE/UNSIGNED_BYTE/SHORT/UNSIGNED_SHORT" : "VEC3 FLOAT");
        if (in.count < 1) clip_fail("%s: input accessor %d has no keys", what, sm.input);
        if (in.count > (size_t)STANCE_MAX_KEYS) clip_fail("%s: %zu keys, more than %d", what, in.count, STANCE_MAX_KEYS);
        if (interp == INTERP_CUBIC && in.count < 2) clip_fail("%s: CUBICSPLINE needs at least 2 keys, the input has %zu", what, in.count);
        const size_t per = interp == INTERP_CUBIC ? 3 : 1;
        if (out.count != in.count * per)
            clip_fail("%s: %s with %zu key times needs %zu output values, the output accessor has %zu", what, kInterpName[interp], in.count,
                      in.count * per, out.count);
        int j = im.node_joint[(size_t)n];
        if (j < 0) {
            im.warn("clip '%s', %s: node is not a joint of the skeleton: ignored", show(name).c_str(), what);
            continue;
        }
        if (used[(size_t)j * 3 + (size_t)kind]) clip_fail("%s: a second channel for the same node and path", what);
        used[(size_t)j * 3 + (size_t)kind] = 1;
        Chan c;
        c.index = (int)ci, c.joint = j, c.kind = kind, c.interp = interp;
        c.times = c.values = nullptr;
        c.width = kind == PATH_R ? 4 : 3;
        c.keys = in.count;
        chans.push_back(c);
    }
    if (chans.empty()) clip_fail("moves no joint of the skeleton");

    /* the memory budget, before reading: the accessors (as doubles), the
     * resampled tracks and the clip, with at least the longest input's keys */
    std::map<int, size_t> acc_bytes;
    size_t kmin = 0, track_floats = 0;
    int floats_per_joint[3] = {0, 0, 0};
    for (const Chan &c : chans) {
        const tinygltf::AnimationSampler &sm = an.samplers[(size_t)an.channels[(size_t)c.index].sampler];
        acc_bytes[sm.input] = c.keys * 8;
        acc_bytes[sm.output] = c.keys * (c.interp == INTERP_CUBIC ? 3 : 1) * (size_t)c.width * 8;
        kmin = std::max(kmin, c.keys);
        track_floats += (size_t)c.width;
        floats_per_joint[c.kind] = c.width;
    }
    const size_t pc = (size_t)sk->padded_count;
    const double per_key = 4.0 * ((double)track_floats + (double)pc * (floats_per_joint[0] + floats_per_joint[1] + floats_per_joint[2]) + 1.0);
    double need = (double)im.used + (double)kmin * per_key;
    for (const auto &kv : acc_bytes) need += (double)kv.second;
    if (need > (double)im.budget)
        im.fail(STANCE_ERR_MEMORY, "clip '%s': %zu keys x %d joints need at least %.0f MiB, more than the memory budget of %zu MiB (max_memory)",
                show(name).c_str(), kmin, sk->joint_count, need / 1048576.0, mib(im.budget));

    /* read and check the key data */
    std::map<int, std::vector<double>> data;
    unsigned interps = 0;
    for (Chan &c : chans) {
        const tinygltf::AnimationSampler &sm = an.samplers[(size_t)an.channels[(size_t)c.index].sampler];
        char what[160];
        snprintf(what, sizeof what, "channel %d (joint '%s' %s)", c.index, show(im.joint_name[(size_t)c.joint]).c_str(), kPathName[c.kind]);
        bool fresh_in = !data.count(sm.input), fresh_out = !data.count(sm.output);
        std::vector<double> &T = data[sm.input];
        if (fresh_in) read_clip_accessor(im, sm.input, T, what);
        for (size_t k = 0; k < c.keys; k++) {
            if (!std::isfinite(T[k]) || T[k] < 0.0 || T[k] > kMaxTime)
                clip_fail("%s: key %zu time %g is not a finite time in [0, %g] s", what, k, T[k], kMaxTime);
            if (k > 0 && !(T[k] > T[k - 1])) clip_fail("%s: key %zu time %g is not after key %zu (%g)", what, k, T[k], k - 1, T[k - 1]);
        }
        std::vector<double> &V = data[sm.output];
        if (fresh_out) read_clip_accessor(im, sm.output, V, what);
        for (size_t i = 0; i < V.size(); i++)
            if (!std::isfinite(V[i]) || std::fabs(V[i]) > 3e38) clip_fail("%s: output value %zu is not a finite float", what, i / (size_t)c.width);
        if (c.kind == PATH_R && c.interp != INTERP_CUBIC)
            for (size_t k = 0; k < c.keys; k++) {
                double *q = &V[k * 4];
                if (!quat_normalize(q)) clip_fail("%s: key %zu rotation cannot be normalized", what, k);
            }
        c.times = &T, c.values = &V;
        c.curve = stance_bake_curve{c.joint, c.kind, c.interp, c.keys, T.data(), V.data()};
        interps |= 1u << c.interp;
    }

    /* the grid: every key time, STEP hold keys, and resampling */
    std::vector<float> grid;
    for (const Chan &c : chans)
        for (size_t k = 0; k < c.keys; k++) {
            float t = (float)(*c.times)[k];
            grid.push_back(t);
        }
    std::sort(grid.begin(), grid.end());
    grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
    const size_t file_keys = grid.size();
    for (const Chan &c : chans) {
        if (c.interp != INTERP_STEP) continue;
        for (size_t k = 1; k < c.keys; k++) {
            float t = (float)(*c.times)[k], h = nextafterf(t, 0.0f);
            if (h > (float)(*c.times)[k - 1]) grid.push_back(h);
        }
    }
    std::sort(grid.begin(), grid.end());
    grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
    std::vector<const stance_bake_curve *> check;
    for (const Chan &c : chans)
        if (c.interp == INTERP_CUBIC || (c.interp == INTERP_LINEAR && c.kind == PATH_R)) check.push_back(&c.curve);
    if (!check.empty()) {
        std::vector<float> fine;
        int unmet = 0;
        struct Added : stance_bake_times {
            ~Added() { free(times); }
        } added;
        added.times = nullptr, added.count = added.cap = 0;
        fine.push_back(grid[0]);
        for (size_t i = 0; i + 1 < grid.size(); i++) {
            added.count = 0;
            int r = stance_bake_refine(&im.space, check.data(), (int)check.size(), grid[i], grid[i + 1], im.tol_u, im.tol_r, &added,
                                       (size_t)STANCE_MAX_KEYS, &unmet);
            if (!r) fine.insert(fine.end(), added.times, added.times + added.count);
            fine.push_back(grid[i + 1]);
            if (r || fine.size() > (size_t)STANCE_MAX_KEYS) clip_fail("resampling needs more than %d keys", STANCE_MAX_KEYS);
        }
        grid.swap(fine);
        if (unmet)
            im.warn("clip '%s': %d key intervals stay outside the tolerance after %d halvings (float resolution)", show(name).c_str(), unmet,
                    kMaxDepth);
    }
    const size_t K = grid.size();
    if (K > (size_t)STANCE_MAX_KEYS) clip_fail("%zu keys after baking, more than %d", K, STANCE_MAX_KEYS);
    need = (double)im.used + (double)K * per_key;
    if (need > (double)im.budget)
        im.fail(STANCE_ERR_MEMORY, "clip '%s': %zu baked keys x %d joints need %.0f MiB, more than the memory budget of %zu MiB (max_memory)",
                show(name).c_str(), K, sk->joint_count, need / 1048576.0, mib(im.budget));
    std::vector<std::vector<float>> vals(chans.size());
    std::vector<stance_track_desc> tracks(chans.size());
    for (size_t i = 0; i < chans.size(); i++) {
        const Chan &c = chans[i];
        vals[i].resize(K * (size_t)c.width);
        for (size_t k = 0; k < K; k++) {
            float *v = &vals[i][k * (size_t)c.width];
            if (!eval_final(im, c, grid[k], v))
                clip_fail("channel %d (joint '%s' rotation): the CUBICSPLINE rotation at %g s is zero and cannot be normalized", c.index,
                          show(im.joint_name[(size_t)c.joint]).c_str(), (double)grid[k]);
            if (!st_finite_n(v, (size_t)c.width))
                clip_fail("channel %d (joint '%s' %s): a value overflows a float", c.index, show(im.joint_name[(size_t)c.joint]).c_str(),
                          kPathName[c.kind]);
        }
        stance_track_desc &t = tracks[i];
        t.joint = c.joint;
        t.channel = (stance_channel)c.kind;
        t.key_count = (int)K;
        t.times = grid.data();
        t.values = vals[i].data();
    }
    stance_clip_desc d;
    memset(&d, 0, sizeof d);
    d.name = name.c_str();
    d.duration = grid[K - 1] > 0.0f ? grid[K - 1] : 1.0f / 30.0f; /* a single pose at t = 0: one frame */
    d.track_count = (int)tracks.size();
    d.tracks = tracks.data();
    stance_error e = {STANCE_OK, ""};
    stance_clip *clip = nullptr;
    stance_status s = stance_clip_create(&d, sk, al, &clip, &e);
    if (s) clip_fail("%.200s", e.message);
    if (rep) {
        snprintf(rep->name, sizeof rep->name, "%s", name.c_str());
        rep->interpolations = interps;
        rep->file_keys = (int)file_keys;
        rep->keys_added = (int)K - (int)file_keys;
    }
    return clip;
}

/* ---- skins and skinned meshes ----------------------------------------------- */

/* Reads an attribute accessor of `comps` components per vertex, checking its
 * type and componentType against the allowed ones (normalized or not). */
void read_attribute(Imp &im, int idx, int type, std::initializer_list<int> cts, bool normalized_ints, size_t count,
                    std::vector<double> &out, const char *what) {
    const tinygltf::Accessor &a = accessor(im, idx, what);
    bool ok = a.type == type;
    bool ct_ok = false;
    for (int ct : cts)
        if (a.componentType == ct) ct_ok = ct == CT_FLOAT ? !a.normalized : a.normalized == normalized_ints;
    if (!ok || !ct_ok) clip_fail("%s: accessor %d is %s %s%s (not allowed here)", what, idx, type_name(a.type), a.normalized ? "normalized " : "",
                                 ct_name(a.componentType));
    if (count && a.count != count) clip_fail("%s: accessor %d has %zu elements, the mesh has %zu vertices", what, idx, a.count, count);
    read_clip_accessor(im, idx, out, what);
}

void check_budget(Imp &im, double bytes, const char *what) {
    if ((double)im.used + bytes > (double)im.budget)
        im.fail(STANCE_ERR_MEMORY, "%s needs %.0f MiB, more than the memory budget of %zu MiB (max_memory)", what, bytes / 1048576.0, mib(im.budget));
}

/* One skin: joints mapped to skeleton joints, inverse binds into the
 * skeleton's space (the uniform scale above the skeleton and the option's
 * scale applied, so model pose x inverse bind is the file's skin matrix). */
stance_skin *build_skin(Imp &im, size_t si, const stance_asset &a) {
    const tinygltf::Skin &sk = im.model.skins[si];
    const size_t J = sk.joints.size();
    if (J == 0 || J > (size_t)STANCE_MAX_SKIN_JOINTS) clip_fail("%zu joints (1..%d)", J, STANCE_MAX_SKIN_JOINTS);
    std::vector<int> joints(J);
    for (size_t k = 0; k < J; k++) joints[k] = im.node_joint[(size_t)sk.joints[k]];
    std::vector<float> ibm(16 * J, 0.0f);
    if (sk.inverseBindMatrices >= 0) {
        std::vector<double> m;
        const tinygltf::Accessor &acc = accessor(im, sk.inverseBindMatrices, "inverseBindMatrices");
        if (acc.type != TINYGLTF_TYPE_MAT4 || acc.componentType != CT_FLOAT)
            clip_fail("inverseBindMatrices accessor %d is %s %s, needs MAT4 FLOAT", sk.inverseBindMatrices, type_name(acc.type), ct_name(acc.componentType));
        if (acc.count < J) clip_fail("inverseBindMatrices has %zu matrices for %zu joints", acc.count, J);
        read_clip_accessor(im, sk.inverseBindMatrices, m, "inverseBindMatrices");
        for (size_t k = 0; k < J; k++)
            for (int c = 0; c < 4; c++)
                for (int r = 0; r < 4; r++) {
                    double v = m[k * 16 + (size_t)(c * 4 + r)];
                    if (r < 3) v *= im.space.push_scale;
                    if (c == 3 && r < 3) v *= im.space.scale;
                    ibm[k * 16 + (size_t)(c * 4 + r)] = (float)v;
                }
    } else {
        for (size_t k = 0; k < J; k++)
            for (int i = 0; i < 4; i++) ibm[k * 16 + (size_t)(i * 5)] = 1.0f;
    }
    /* The mesh's bind space is where rest model x inverse bind is the
     * identity. Files often bind the mesh in another space (Blender: the
     * armature's scale and axis change), the same matrix C for every joint at
     * its bind pose. C is taken at the skin's root joint (the skin joint
     * nearest the skeleton's root, whose rest pose is its bind pose) and moved
     * into the mesh (positions C v) and out of the inverse binds (inverse
     * bind x C^-1): every pose skins the same, and the bind pose gives
     * identity matrices. */
    std::vector<double> bake;
    {
        size_t root = 0;
        std::vector<int> depth_of((size_t)a.skeleton->joint_count, 0);
        for (int j = 1; j < a.skeleton->joint_count; j++) depth_of[(size_t)j] = depth_of[(size_t)a.skeleton->parents[j]] + 1;
        for (size_t k = 1; k < J; k++)
            if (depth_of[(size_t)joints[k]] < depth_of[(size_t)joints[root]]) root = k;
        Mat ib, rm, c, ci;
        for (int r = 0; r < 3; r++)
            for (int cc = 0; cc < 4; cc++) ib.m[r][cc] = ibm[root * 16 + (size_t)(cc * 4 + r)];
        memcpy(rm.m, &im.rest_model[12 * (size_t)joints[root]], sizeof rm.m);
        c = mat_mul(rm, ib);
        double off = 0;
        for (int r = 0; r < 3; r++)
            for (int cc = 0; cc < 4; cc++) off = std::max(off, std::fabs(c.m[r][cc] - (r == cc ? 1.0 : 0.0)));
        if (off > 1e-6 && mat_inverse(c, ci)) {
            bake.assign(&c.m[0][0], &c.m[0][0] + 12);
            for (size_t k = 0; k < J; k++) {
                for (int r = 0; r < 3; r++)
                    for (int cc = 0; cc < 4; cc++) ib.m[r][cc] = ibm[k * 16 + (size_t)(cc * 4 + r)];
                ib = mat_mul(ib, ci);
                for (int r = 0; r < 3; r++)
                    for (int cc = 0; cc < 4; cc++) ibm[k * 16 + (size_t)(cc * 4 + r)] = (float)ib.m[r][cc];
            }
        }
    }
    std::string name = sk.name.empty() ? "skin" + std::to_string(si) : sk.name.substr(0, 63);
    name = name.substr(0, strnlen(name.c_str(), name.size()));
    stance_skin_desc d = {name.c_str(), (int)J, joints.data(), ibm.data()};
    stance_skin *out = nullptr;
    stance_error e = {STANCE_OK, ""};
    if (stance_skin_create(&d, a.skeleton, &a.allocator, &out, &e)) clip_fail("%.200s", e.message);
    im.skin_bake.push_back(bake);
    return out;
}

/* One TRIANGLES primitive as a mesh of skin `askin`. `place` maps the
 * file's vertex positions into the mesh's bind space (normals by its inverse
 * transpose). rigid >= 0: the primitive has no skin of its own, every vertex
 * follows skin joint `rigid` with weight 1. */
stance_mesh *build_mesh(Imp &im, const tinygltf::Primitive &p, const std::string &name, int askin, const stance_skin *skin,
                        const stance_allocator *al, const Mat &place, int rigid) {
    auto attr = [&](const char *key) {
        auto it = p.attributes.find(key);
        return it == p.attributes.end() ? -1 : it->second;
    };
    const int pos = attr("POSITION"), nor = attr("NORMAL"), uv = attr("TEXCOORD_0"), jo = attr("JOINTS_0"), we = attr("WEIGHTS_0");
    if (pos < 0) clip_fail("no POSITION");
    if (rigid < 0 && (jo < 0 || we < 0)) clip_fail("a skinned primitive without JOINTS_0 and WEIGHTS_0");
    const size_t V = accessor(im, pos, "POSITION").count;
    if (V < 1 || V > (size_t)STANCE_MAX_VERTICES) clip_fail("%zu vertices (1..%d)", V, STANCE_MAX_VERTICES);
    size_t I = p.indices >= 0 ? accessor(im, p.indices, "indices").count : V;
    if (I < 3 || I % 3 || I > (size_t)STANCE_MAX_INDICES) clip_fail("%zu indices (a multiple of 3, 3..%d)", I, STANCE_MAX_INDICES);
    check_budget(im, (double)V * 16 * 12 + (double)I * 12, ("mesh '" + show(name) + "'").c_str());
    std::vector<double> P, N, T, JI, W, X;
    read_attribute(im, pos, TINYGLTF_TYPE_VEC3, {CT_FLOAT}, false, V, P, "POSITION");
    if (nor >= 0) read_attribute(im, nor, TINYGLTF_TYPE_VEC3, {CT_FLOAT}, false, V, N, "NORMAL");
    if (uv >= 0) read_attribute(im, uv, TINYGLTF_TYPE_VEC2, {CT_FLOAT, CT_UBYTE, CT_USHORT}, true, V, T, "TEXCOORD_0");
    if (rigid < 0) {
        read_attribute(im, jo, TINYGLTF_TYPE_VEC4, {CT_UBYTE, CT_USHORT}, false, V, JI, "JOINTS_0");
        read_attribute(im, we, TINYGLTF_TYPE_VEC4, {CT_FLOAT, CT_UBYTE, CT_USHORT}, true, V, W, "WEIGHTS_0");
    } else {
        JI.assign(4 * V, 0.0), W.assign(4 * V, 0.0);
        for (size_t v = 0; v < V; v++) JI[4 * v] = rigid, W[4 * v] = 1.0;
    }
    if (p.indices >= 0) read_attribute(im, p.indices, TINYGLTF_TYPE_SCALAR, {CT_UBYTE, CT_USHORT, CT_UINT}, false, I, X, "indices");
    if (attr("JOINTS_1") >= 0) im.warn("mesh '%s': more than 4 joints per vertex: JOINTS_1 and WEIGHTS_1 ignored (weights renormalized)", show(name).c_str());
    if (!p.targets.empty()) im.warn("mesh '%s': %zu morph targets ignored", show(name).c_str(), p.targets.size());
    std::vector<float> pf(3 * V), nf(N.empty() ? 0 : 3 * V), tf(T.empty() ? 0 : 2 * V), wf(4 * V);
    std::vector<uint16_t> jf(4 * V);
    std::vector<uint32_t> xf(I);
    const Mat &C = place;
    Mat Ci;
    if (!mat_inverse(C, Ci)) clip_fail("its node's transform is singular");
    for (size_t v = 0; v < V; v++) {
        const double *x = &P[3 * v];
        for (int r = 0; r < 3; r++) pf[3 * v + (size_t)r] = (float)(C.m[r][0] * x[0] + C.m[r][1] * x[1] + C.m[r][2] * x[2] + C.m[r][3]);
        if (N.empty()) continue;
        double n[3], l = 0; /* normals by the inverse transpose */
        for (int r = 0; r < 3; r++) n[r] = Ci.m[0][r] * N[3 * v] + Ci.m[1][r] * N[3 * v + 1] + Ci.m[2][r] * N[3 * v + 2], l += n[r] * n[r];
        l = l > 0 ? std::sqrt(l) : 1.0;
        for (int r = 0; r < 3; r++) nf[3 * v + (size_t)r] = (float)(n[r] / l);
    }
    for (size_t i = 0; i < tf.size(); i++) tf[i] = (float)T[i];
    if (!st_finite_n(pf.data(), pf.size()) || !st_finite_n(nf.data(), nf.size()) || !st_finite_n(tf.data(), tf.size()))
        clip_fail("a position, normal or uv is not finite");
    const double nj = skin->joint_count;
    for (size_t v = 0; v < V; v++) {
        double sum = 0;
        for (int k = 0; k < 4; k++) {
            double w = W[4 * v + (size_t)k];
            if (!std::isfinite(w) || w < 0) clip_fail("vertex %zu: weight %d is %g (finite, >= 0)", v, k, w);
            sum += w;
        }
        if (!(sum > 0)) clip_fail("vertex %zu: its weights sum to 0", v);
        for (int k = 0; k < 4; k++) {
            double w = W[4 * v + (size_t)k] / sum, j = JI[4 * v + (size_t)k];
            if (j >= nj) {
                if (w > 0) clip_fail("vertex %zu: joint %g is not in the skin's %d joints", v, j, skin->joint_count);
                j = 0;
            }
            wf[4 * v + (size_t)k] = (float)w;
            jf[4 * v + (size_t)k] = (uint16_t)j;
        }
    }
    for (size_t i = 0; i < I; i++) {
        double x = p.indices >= 0 ? X[i] : (double)i;
        if (x >= (double)V) clip_fail("index %zu (%g) is not below the vertex count %zu", i, x, V);
        xf[i] = (uint32_t)x;
    }
    stance_mesh_desc d;
    memset(&d, 0, sizeof d);
    d.name = name.c_str();
    d.skin = askin;
    d.vertex_count = (int)V;
    d.positions = pf.data();
    d.normals = nf.empty() ? nullptr : nf.data();
    d.uvs = tf.empty() ? nullptr : tf.data();
    d.joints = jf.data();
    d.weights = wf.data();
    d.index_count = (int)I;
    d.indices = xf.data();
    d.base_color[0] = d.base_color[1] = d.base_color[2] = d.base_color[3] = 1.0f; /* glTF's default */
    if (p.material >= 0 && (size_t)p.material < im.model.materials.size()) {
        const std::vector<double> &c = im.model.materials[(size_t)p.material].pbrMetallicRoughness.baseColorFactor;
        if (c.size() == 4)
            for (int i = 0; i < 4; i++) d.base_color[i] = std::isfinite(c[(size_t)i]) ? (float)std::min(1.0, std::max(0.0, c[(size_t)i])) : 1.0f;
    }
    stance_mesh *out = nullptr;
    stance_error e = {STANCE_OK, ""};
    if (stance_mesh_create(&d, skin, al, &out, &e)) clip_fail("%.200s", e.message);
    return out;
}

struct Prim {
    int node, mesh, prim;
    int rigid;  /* -1: skinned; else the joint's index in the rigid skin */
    Mat place;  /* rigid: file vertex -> the skeleton's model space at rest */
};

bool triangles(Imp &im, const tinygltf::Node &nd, size_t k) {
    const tinygltf::Primitive &p = im.model.meshes[(size_t)nd.mesh].primitives[k];
    if (p.mode == TINYGLTF_MODE_TRIANGLES || p.mode == -1) return true;
    im.warn("node '%s' primitive %zu: mode %d is not TRIANGLES: not imported", show(nd.name).c_str(), k, p.mode);
    return false;
}

/* Meshes without a skin that hang from a joint (RobotExpressive's body
 * parts, the cubes of a file without skins) follow that joint rigidly: they
 * are bound, with weight 1, to a skin "rigid" of those joints whose inverse
 * binds are the joints' rest model matrices inverted, their vertices placed
 * where the rest pose puts them. */
void rigid_prims(Imp &im, const stance_asset &a, std::vector<Prim> &out, std::vector<int> &joints) {
    for (size_t n = 0; n < im.model.nodes.size(); n++) {
        const tinygltf::Node &nd = im.model.nodes[n];
        if (nd.mesh < 0 || nd.skin >= 0 || (size_t)nd.mesh >= im.model.meshes.size()) continue;
        int j = -1, at = (int)n;
        std::vector<int> chain;
        while (at >= 0 && (j = im.node_joint[(size_t)at]) < 0) chain.push_back(at), at = im.parent[(size_t)at];
        if (j < 0) {
            im.warn("mesh of node '%s' is neither skinned nor under a joint: not imported", show(nd.name).c_str());
            continue;
        }
        /* model at rest = rest model of j x the chain's locals (translations in the skeleton's scale) */
        Mat place;
        memcpy(place.m, &im.rest_model[12 * (size_t)j], sizeof place.m);
        const double k = im.space.scale * im.space.push_scale;
        bool bad = false;
        for (size_t i = chain.size(); i-- > 0 && !bad;) {
            Xform x;
            try {
                x = node_local(im, chain[i]);
            } catch (const Failure &) { /* a mesh's bad transform drops the mesh, not the file */
                if (im.strict) throw;
                im.warn("mesh of node '%s' not imported: %.180s", show(nd.name).c_str(), last_problem(im));
                bad = true;
                break;
            }
            for (int c = 0; c < 3; c++) x.t[c] *= k;
            place = mat_mul(place, mat_from_trs(x));
        }
        if (bad) continue;
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) place.m[r][c] *= k;
        int ji = -1;
        for (size_t q = 0; q < joints.size(); q++)
            if (joints[q] == j) ji = (int)q;
        if (ji < 0) ji = (int)joints.size(), joints.push_back(j);
        for (size_t p = 0; p < im.model.meshes[(size_t)nd.mesh].primitives.size(); p++)
            if (triangles(im, nd, p)) out.push_back({(int)n, nd.mesh, (int)p, ji, place});
    }
    (void)a;
}

stance_skin *build_rigid_skin(Imp &im, const stance_asset &a, const std::vector<int> &joints) {
    if (joints.size() > (size_t)STANCE_MAX_SKIN_JOINTS) clip_fail("%zu joints carry rigid meshes, more than %d", joints.size(), STANCE_MAX_SKIN_JOINTS);
    std::vector<float> ibm(16 * joints.size(), 0.0f);
    for (size_t q = 0; q < joints.size(); q++) {
        Mat m, inv;
        memcpy(m.m, &im.rest_model[12 * (size_t)joints[q]], sizeof m.m);
        if (!mat_inverse(m, inv)) clip_fail("joint '%s' has a singular rest transform", show(im.joint_name[(size_t)joints[q]]).c_str());
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++) ibm[q * 16 + (size_t)(c * 4 + r)] = (float)inv.m[r][c];
        ibm[q * 16 + 15] = 1.0f;
    }
    stance_skin_desc d = {"rigid", (int)joints.size(), joints.data(), ibm.data()};
    stance_skin *out = nullptr;
    stance_error e = {STANCE_OK, ""};
    if (stance_skin_create(&d, a.skeleton, &a.allocator, &out, &e)) clip_fail("%.200s", e.message);
    im.skin_bake.push_back({});
    return out;
}

/* Skins, then the TRIANGLES primitives of skinned nodes, then the meshes
 * that hang rigidly from joints. A bad skin or mesh is dropped with a
 * warning (an error with strict), like a bad clip. */
void import_skins_meshes(Imp &im, stance_asset &a) {
    const size_t nf = std::min(im.model.skins.size(), (size_t)STANCE_MAX_SKINS - 1);
    if (im.model.skins.size() > nf) im.warn("%zu skins: only the first %zu are imported", im.model.skins.size(), nf);
    std::vector<Prim> rigid;
    std::vector<int> rigid_joints;
    rigid_prims(im, a, rigid, rigid_joints);
    const size_t ns = nf + (rigid_joints.empty() ? 0 : 1);
    std::vector<int> skin_map(im.model.skins.size(), -1);
    if (ns) {
        a.skins = static_cast<stance_skin **>(st_alloc(&a.allocator, sizeof(stance_skin *) * ns, 16));
        if (!a.skins) im.fail(STANCE_ERR_MEMORY, "out of memory");
        a.skin_count = (int)ns; /* for destroy; the real count is set below */
    }
    int made = 0, rigid_skin = -1;
    for (size_t s = 0; s < nf; s++) {
        try {
            stance_skin *sk = build_skin(im, s, a);
            skin_map[s] = made;
            a.skins[made++] = sk;
            im.used += sk->bytes;
        } catch (const ClipProblem &p) {
            if (im.strict) im.fail(STANCE_ERR_FORMAT, "skin %zu: %s", s, p.why.c_str());
            im.warn("skin %zu dropped: %s", s, p.why.c_str());
        }
    }
    if (!rigid_joints.empty()) {
        try {
            stance_skin *sk = build_rigid_skin(im, a, rigid_joints);
            rigid_skin = made;
            a.skins[made++] = sk;
            im.used += sk->bytes;
        } catch (const ClipProblem &p) {
            if (im.strict) im.fail(STANCE_ERR_FORMAT, "rigid meshes: %s", p.why.c_str());
            im.warn("rigid meshes dropped: %s", p.why.c_str());
        }
    }
    /* the pointer array keeps its allocated size (ns) for destroy: shrink by copying */
    if (ns && (size_t)made < ns) {
        stance_skin **fit = made ? static_cast<stance_skin **>(st_alloc(&a.allocator, sizeof(stance_skin *) * (size_t)made, 16)) : nullptr;
        if (made && !fit) im.fail(STANCE_ERR_MEMORY, "out of memory");
        if (made) memcpy(fit, a.skins, sizeof(stance_skin *) * (size_t)made);
        st_free(&a.allocator, a.skins, sizeof(stance_skin *) * ns);
        a.skins = fit;
    }
    a.skin_count = made;
    /* primitives of skinned nodes, then the rigid ones */
    std::vector<Prim> prims;
    for (size_t n = 0; n < im.model.nodes.size(); n++) {
        const tinygltf::Node &nd = im.model.nodes[n];
        if (nd.mesh < 0 || nd.skin < 0) continue;
        if ((size_t)nd.mesh >= im.model.meshes.size() || (size_t)nd.skin >= im.model.skins.size()) {
            im.warn("node %zu '%s': mesh %d or skin %d does not exist: not imported", n, show(nd.name).c_str(), nd.mesh, nd.skin);
            continue;
        }
        for (size_t k = 0; k < im.model.meshes[(size_t)nd.mesh].primitives.size(); k++)
            if (triangles(im, nd, k)) prims.push_back({(int)n, nd.mesh, (int)k, -1, mat_identity()});
    }
    if (rigid_skin >= 0) prims.insert(prims.end(), rigid.begin(), rigid.end());
    if (prims.size() > (size_t)STANCE_MAX_MESHES) {
        im.warn("%zu mesh primitives: only the first %d are imported", prims.size(), STANCE_MAX_MESHES);
        prims.resize(STANCE_MAX_MESHES);
    }
    if (prims.empty()) return;
    a.meshes = static_cast<stance_mesh **>(st_alloc(&a.allocator, sizeof(stance_mesh *) * prims.size(), 16));
    if (!a.meshes) im.fail(STANCE_ERR_MEMORY, "out of memory");
    a.mesh_count = (int)prims.size();
    int mm = 0;
    for (const Prim &pr : prims) {
        const tinygltf::Node &nd = im.model.nodes[(size_t)pr.node];
        const tinygltf::Mesh &me = im.model.meshes[(size_t)pr.mesh];
        std::string name = me.name.empty() ? nd.name : me.name;
        if (name.empty()) name = "mesh" + std::to_string(pr.mesh);
        if (me.primitives.size() > 1) name = name.substr(0, 56) + "#" + std::to_string(pr.prim);
        name = name.substr(0, 63);
        name = name.substr(0, strnlen(name.c_str(), name.size()));
        int askin = pr.rigid >= 0 ? rigid_skin : skin_map[(size_t)nd.skin];
        try {
            if (askin < 0) clip_fail("its skin %d was not imported", nd.skin);
            /* bind space: the file's vertices scaled by the option, then C (build_skin) */
            Mat place = mat_identity();
            if (askin >= 0 && !im.skin_bake[(size_t)askin].empty()) memcpy(place.m, im.skin_bake[(size_t)askin].data(), sizeof place.m);
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++) place.m[r][c] *= im.space.scale;
            stance_mesh *m = pr.rigid < 0 ? build_mesh(im, me.primitives[(size_t)pr.prim], name, askin, a.skins[askin], &a.allocator, place, -1)
                                          : build_mesh(im, me.primitives[(size_t)pr.prim], name, rigid_skin, a.skins[rigid_skin], &a.allocator,
                                                       pr.place, pr.rigid);
            a.meshes[mm++] = m;
            im.used += m->bytes;
        } catch (const ClipProblem &p) {
            if (im.strict) im.fail(STANCE_ERR_FORMAT, "mesh '%s': %s", show(name).c_str(), p.why.c_str());
            im.warn("mesh '%s' dropped: %s", show(name).c_str(), p.why.c_str());
        }
    }
    if ((size_t)mm < prims.size()) {
        stance_mesh **fit = mm ? static_cast<stance_mesh **>(st_alloc(&a.allocator, sizeof(stance_mesh *) * (size_t)mm, 16)) : nullptr;
        if (mm && !fit) im.fail(STANCE_ERR_MEMORY, "out of memory");
        if (mm) memcpy(fit, a.meshes, sizeof(stance_mesh *) * (size_t)mm);
        st_free(&a.allocator, a.meshes, sizeof(stance_mesh *) * prims.size());
        a.meshes = fit;
    }
    a.mesh_count = mm;
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

} /* namespace */

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
        one_line(msg);
        return st_fail(err, STANCE_ERR_FORMAT, "%s: cannot import glTF: %s", path, msg);
    } catch (...) {
        return st_fail(err, STANCE_ERR_FORMAT, "%s: cannot import glTF", path);
    }
}
