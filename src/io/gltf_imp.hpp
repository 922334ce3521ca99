/* src/io/gltf_imp.hpp - what the glTF importer's files share (internal).
 *
 * gltf.cpp owns the import (file access, node tree, skeleton, the entry
 * point); gltf_clips.cpp bakes animations into clips; gltf_mesh.cpp builds
 * skins and skinned meshes; gltf_common.cpp holds the helpers more than one
 * of them calls (and calls none of them). This header holds the import state
 * (Imp), the failure types and those helpers. */
#ifndef STANCE_IO_GLTF_IMP_HPP
#define STANCE_IO_GLTF_IMP_HPP

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
#include "core/base/internal.h"
}
#include "gltf.h"
#include "gltf_bake.h"
#include "import_scale.h"


namespace stance_gltf __attribute__((visibility("hidden"))) {


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
    bool keep_images = false; /* load_model keeps the images' encoded bytes (gltf_textures.cpp); else none are read */

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
    int uneven = 0;     /* a scale above the skeleton or in its rest pose differs per axis (import_scale.h) */
    double size = 1.0;  /* the rest pose's extent in model units */

    [[noreturn]] void fail(stance_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
    void warn(const char *fmt, ...) __attribute__((format(printf, 2, 3)));
};

/* ---- shared helpers (gltf_common.cpp) ---- */
std::string show(const std::string &s);
bool quat_normalize(double q[4]);
Mat mat_identity();
Mat mat_mul(const Mat &a, const Mat &b);
Mat mat_from_trs(const Xform &x);
bool mat_inverse(const Mat &a, Mat &o);
bool decompose(const Mat &m, Xform &x);
Xform node_local(Imp &im, int n);
const int CT_BYTE = 5120, CT_UBYTE = 5121, CT_SHORT = 5122, CT_USHORT = 5123, CT_UINT = 5125, CT_FLOAT = 5126;
const char *type_name(int type);
const char *ct_name(int ct);
int ct_size(int ct);
int type_comps(int type);
double decode(const unsigned char *p, int ct, bool norm);
const tinygltf::Accessor &accessor(Imp &im, int idx, const char *what);
void read_accessor(Imp &im, int idx, std::vector<double> &out, const char *what);
int path_kind(const std::string &p);
void joint_t(const Imp &im, int joint, const double in[3], double out[3]);
void joint_r(const Imp &im, int joint, const double in[4], double out[4]);
bool to_floats(const double *in, float *out, int n);
st_scale_ctx scale_ctx(const Imp &im); /* for import_scale.h's checks */
size_t mib(size_t b);

/* ---- clips: their problems (gltf_common.cpp), their baking (gltf_clips.cpp) ---- */
/* A problem that drops one clip (or fails the import with strict). */
struct ClipProblem {
    std::string why;
};
[[noreturn]] void clip_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void read_clip_accessor(Imp &im, int idx, std::vector<double> &out, const char *what);
const char *last_problem(const Imp &im); /* the last error's message without the leading path */
std::string clip_name(Imp &im, const tinygltf::Animation &an, int index, const std::vector<std::string> &done);
/* the clip's entry of the asset's clip notes from the animation's extras, appended to `out` (nothing when none) */
void extras_notes(const tinygltf::Animation &an, const std::string &clip, std::string &out);
stance_clip *build_clip(Imp &im, int ai, const std::string &name, const stance_skeleton *sk, const stance_allocator *al,
                        stance_import_clip_report *rep);

/* ---- skins and meshes (gltf_mesh.cpp) ---- */
void import_skins_meshes(Imp &im, stance_asset &a);
/* A primitive's mesh name as the importer gives it: the mesh's name, else the
 * node's, else "meshN"; "#k" after it when the mesh has several primitives. */
std::string prim_name(const tinygltf::Model &m, const tinygltf::Node &nd, size_t prim);

/* ---- the file (gltf.cpp) and its base-colour images (gltf_textures.cpp) ---- */
void load_model(Imp &im); /* im.model from im.path, within im.budget */
/* The image a triangle primitive's base colour texture shows (-1 none; then
 * note may say why: another UV set, no image, an image that was not found). */
int base_color_image(const tinygltf::Model &m, const tinygltf::Primitive &p, std::string &note);
/* fn(node, primitive index, primitive, vertex count) for each primitive with a POSITION
 * accessor, in the importer's order: skinned nodes' first, then the others. */
template <class Fn> void each_primitive(const tinygltf::Model &m, Fn fn) {
    for (int pass = 0; pass < 2; pass++)
        for (const tinygltf::Node &nd : m.nodes) {
            if (nd.mesh < 0 || (size_t)nd.mesh >= m.meshes.size() || (nd.skin >= 0) != (pass == 0)) continue;
            const tinygltf::Mesh &me = m.meshes[(size_t)nd.mesh];
            for (size_t k = 0; k < me.primitives.size(); k++) {
                const tinygltf::Primitive &p = me.primitives[k];
                auto pos = p.attributes.find("POSITION");
                if (pos == p.attributes.end() || pos->second < 0 || (size_t)pos->second >= m.accessors.size()) continue;
                fn(nd, k, p, m.accessors[(size_t)pos->second].count);
            }
        }
}

} /* namespace stance_gltf */
#endif
