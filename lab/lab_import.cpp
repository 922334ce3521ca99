/* lab/lab_import.cpp - in-page import (lab_import.js drives it): a .glb or
 * .gltf written by the page into Emscripten's in-memory file system is
 * imported by `stance import`'s own code (tools/cmd_import.c: the glTF
 * importer of src/io, the default compression, the .stance writer with its
 * texture and vertex colour sections), and its look is listed from the same
 * glTF: each triangle primitive's base-colour image (the PNG/JPEG bytes as
 * stored, which the browser decodes) and a note when it is not kept.
 *
 * Owns the path buffer JavaScript writes names into and the last look's
 * image bytes and JSON (kept until the next call). Tools side: the
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
    std::string json;
} g_look;

const char *sniff(const std::vector<unsigned char> &b) {
    if (b.size() >= 8 && !memcmp(b.data(), "\x89PNG", 4)) return "image/png";
    if (b.size() >= 3 && b[0] == 0xFF && b[1] == 0xD8) return "image/jpeg";
    return "";
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
 *    "image" (-1 none), "note"}]}
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
        j["prims"].push_back({{"name", stance_gltf::prim_name(m, nd, k)}, {"vertices", V}, {"image", image}, {"note", note}});
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
