/* src/io/gltf_mesh.cpp - glTF skins and skinned meshes into stance's.
 *
 * Owns the skins (joints mapped to skeleton joints, inverse binds in the
 * skeleton's space) and meshes (triangle primitives' attributes checked
 * per the spec, rigid primitives under a joint given a one-joint skin) of
 * one import; a bad skin or mesh is dropped with a warning. */
#include "gltf_imp.hpp"

namespace stance_gltf __attribute__((visibility("hidden"))) {

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
        const std::string name = prim_name(im.model, nd, (size_t)pr.prim);
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

std::string prim_name(const tinygltf::Model &m, const tinygltf::Node &nd, size_t prim) {
    const tinygltf::Mesh &me = m.meshes[(size_t)nd.mesh];
    std::string name = me.name.empty() ? nd.name : me.name;
    if (name.empty()) name = "mesh" + std::to_string(nd.mesh);
    if (me.primitives.size() > 1) name = name.substr(0, 56) + "#" + std::to_string(prim);
    name = name.substr(0, 63);
    return name.substr(0, strnlen(name.c_str(), name.size()));
}

} /* namespace stance_gltf */
