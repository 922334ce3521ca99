/* lab/lab_import.cpp - in-page import (lab_import.js drives it): a .glb or
 * .gltf written by the page into Emscripten's in-memory file system is
 * imported by `stance import`'s own code (tools/cmd_import.c: the glTF
 * importer of src/io, the default compression, the .stance writer), and its
 * look, which the .stance format does not carry, is read from the same glTF:
 * each triangle primitive's base-colour image (the PNG/JPEG bytes as stored,
 * which the browser decodes) and its COLOR_0 vertex colours.
 *
 * Owns the path buffer JavaScript writes names into and the last look's
 * image bytes, colours and JSON (kept until the next call). Tools side: the
 * runtime never sees any of it. */
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/gltf_imp.hpp"

#include <emscripten.h> /* (lab.h's, outside the C block: it holds C++ templates) */
extern "C" {
#include "lab.h"
int cmd_import(int argc, char **argv); /* tools/commands.h */
}

namespace {

char g_path[2][1024]; /* the file to import, the .stance to write (UTF-8, NUL-terminated) */

struct Look {
    std::vector<std::vector<unsigned char>> images;
    std::vector<std::vector<float>> colors;
    std::string json;
} g_look;

const char *sniff(const std::vector<unsigned char> &b) {
    if (b.size() >= 8 && !memcmp(b.data(), "\x89PNG", 4)) return "image/png";
    if (b.size() >= 3 && b[0] == 0xFF && b[1] == 0xD8) return "image/jpeg";
    return "";
}

/* COLOR_0 of a primitive as 4 floats per vertex (alpha 1 for VEC3), or empty. */
std::vector<float> vertex_colors(stance_gltf::Imp &im, const tinygltf::Primitive &p, size_t vertices, std::string &note) {
    auto it = p.attributes.find("COLOR_0");
    if (it == p.attributes.end()) return {};
    std::vector<double> c;
    try {
        const tinygltf::Accessor &a = stance_gltf::accessor(im, it->second, "COLOR_0");
        const int comps = a.type == TINYGLTF_TYPE_VEC3 ? 3 : a.type == TINYGLTF_TYPE_VEC4 ? 4 : 0;
        if (!comps || a.count != vertices) {
            note = "COLOR_0 is not VEC3/VEC4 of one colour per vertex";
            return {};
        }
        stance_gltf::read_accessor(im, it->second, c, "COLOR_0");
        std::vector<float> out(4 * vertices, 1.0f);
        for (size_t v = 0; v < vertices; v++)
            for (int k = 0; k < comps; k++) {
                double x = c[v * (size_t)comps + (size_t)k];
                out[4 * v + (size_t)k] = std::isfinite(x) ? (float)std::min(1.0, std::max(0.0, x)) : 1.0f;
            }
        return out;
    } catch (const stance_gltf::Failure &) {
        note = im.err->message;
        return {};
    }
}

} // namespace

extern "C" {

/* Buffer 0: the file to import; 1: the .stance to write (1023 bytes of UTF-8 at most). */
LAB_API char *lab_import_path(int which) { return which == 0 || which == 1 ? g_path[which] : nullptr; }

/* `stance import PATH0 -o PATH1 [--scale S]` (scale 0: none), the command
 * line's own code and defaults: its exit status (0 done; 2 a bad scale; the
 * message went to stderr, which the page shows). */
LAB_API int lab_import_run(double scale) {
    char cmd[] = "import", o[] = "-o", opt[] = "--scale", value[32];
    snprintf(value, sizeof value, "%.9g", scale);
    char *argv[] = {cmd, g_path[0], o, g_path[1], opt, value, nullptr};
    return cmd_import(scale != 0.0 ? 6 : 4, argv);
}

/* The look of the glTF at PATH0 as JSON:
 *   {"images": [{"ptr", "size", "mime", "uri"}], "prims": [{"name", "vertices",
 *    "image" (-1 none), "colors" (pointer to 4 floats per vertex, 0 none), "note"}]}
 * prims in the importer's order (skinned nodes' triangle primitives, then the
 * others); the page matches them to the loaded meshes by name and vertex
 * count. Pointers stay valid until the next call. "" and lab_error on failure. */
LAB_API const char *lab_import_looks(void) {
    g_look = Look();
    stance_gltf::Imp im;
    im.path = g_path[0];
    im.err = &im.own;
    im.keep_images = true; /* the importer's loader (src/io/gltf.cpp), images kept as stored */
    try {
        stance_gltf::load_model(im);
    } catch (...) {
        lab_fail("%s: look: %.200s", g_path[0], im.own.message);
        return "";
    }
    nlohmann::json j;
    j["images"] = nlohmann::json::array();
    j["prims"] = nlohmann::json::array();
    for (const tinygltf::Image &img : im.model.images) {
        g_look.images.push_back(img.image);
        const std::vector<unsigned char> &b = g_look.images.back();
        j["images"].push_back({{"ptr", (uintptr_t)b.data()}, {"size", b.size()}, {"mime", sniff(b)}, {"uri", img.uri}});
    }
    const tinygltf::Model &m = im.model;
    stance_gltf::each_primitive(m, [&](const tinygltf::Node &nd, size_t k, const tinygltf::Primitive &p, size_t V) {
        std::string note;
        const int image = stance_gltf::base_color_image(m, p, note);
        g_look.colors.push_back(vertex_colors(im, p, V, note));
        const std::vector<float> &c = g_look.colors.back();
        j["prims"].push_back({{"name", stance_gltf::prim_name(m, nd, k)}, {"vertices", V}, {"image", image},
                              {"colors", c.empty() ? (uintptr_t)0 : (uintptr_t)c.data()}, {"note", note}});
    });
    g_look.json = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return g_look.json.c_str();
}

/* A drawn mesh's UVs (2 floats per vertex, NULL when it has none) and name. */
LAB_API const float *lab_mesh_uvs(int view, int m) {
    lab_view *v = lab_view_at(view);
    return v && m >= 0 && m < v->mesh_count ? v->meshes[m]->uvs : nullptr;
}
LAB_API const char *lab_mesh_name(int view, int m) {
    lab_view *v = lab_view_at(view);
    return v && m >= 0 && m < v->mesh_count ? v->meshes[m]->name : "";
}

} /* extern "C" */
