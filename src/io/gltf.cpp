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
 * This file: the import state, file access, the node tree and skeleton, and
 * the entry point; clips are baked in gltf_clips.cpp, skins and meshes built
 * in gltf_mesh.cpp, accessors and the shared helpers are gltf_common.cpp
 * (gltf_imp.hpp is what they share). */
#include <sys/stat.h>

#include "gltf_imp.hpp"

namespace stance_gltf __attribute__((visibility("hidden"))) {


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
/* ... nor for the texture section (gltf_textures.cpp), which keeps their encoded bytes as they are. */
bool keep_image(tinygltf::Image *img, const int, std::string *, std::string *, int, int, const unsigned char *bytes, int size, void *) {
    if (bytes && size > 0) img->image.assign(bytes, bytes + size);
    return true;
}

/* ---- transforms (gltf_bake.c) ------------------------------------------------ */

/* ---- accessors ---------------------------------------------------------- */


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
    loader.SetImageLoader(im.keep_images ? &keep_image : &no_image, nullptr);
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
    std::string first_problem, notes;
    for (size_t i = 0; i < n; i++) {
        std::string name = clip_name(im, im.model.animations[i], (int)i, names);
        stance_import_clip_report r;
        memset(&r, 0, sizeof r);
        try {
            stance_clip *c = build_clip(im, (int)i, name, a.skeleton, &a.allocator, &r);
            a.clips[made++] = c;
            im.used += c->bytes;
            extras_notes(im.model.animations[i], name, notes);
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
    if (!notes.empty()) { /* the asset's clip notes (docs/import.md) */
        notes = "{\"clips\": {\n  " + notes + "}}\n";
        if (notes.size() > STANCE_MAX_CLIP_NOTES_BYTES || memchr(notes.data(), 0, notes.size())) {
            im.warn("the animations' extras make %zu bytes of clip notes (at most %zu, no byte 0); left out", notes.size(),
                    STANCE_MAX_CLIP_NOTES_BYTES);
        } else {
            if (!(a.clip_notes = static_cast<char *>(st_alloc(&a.allocator, notes.size() + 1, 1)))) im.fail(STANCE_ERR_MEMORY, "out of memory");
            memcpy(a.clip_notes, notes.c_str(), notes.size() + 1);
            a.clip_notes_size = notes.size();
        }
    }
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
