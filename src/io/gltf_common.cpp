/* src/io/gltf_common.cpp - what the glTF importer's files share (they call
 * these; these call none of them): the import's failures and warnings,
 * names for messages, the matrix and quaternion helpers over gltf_bake.c,
 * a node's local transform, channel paths, accessors read with every check (type, bounds,
 * stride, sparse), the skeleton's space, and a clip's problems (which drop
 * the clip, not the file). gltf.cpp is the entry and skeleton,
 * gltf_clips.cpp the clips, gltf_mesh.cpp skins and meshes. */
#include <cmath>

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

size_t mib(size_t b) { return (b + (1u << 20) - 1) >> 20; }

/* An animation channel's target path: PATH_T, PATH_R, PATH_S or -1. */
int path_kind(const std::string &p) {
    return p == "translation" ? PATH_T : p == "rotation" ? PATH_R : p == "scale" ? PATH_S : -1;
}

} /* namespace stance_gltf */
