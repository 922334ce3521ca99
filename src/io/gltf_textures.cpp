/* src/io/gltf_textures.cpp - the base-colour images and COLOR_0 vertex colours
 * of an imported glTF's meshes, for the .stance texture and vertex colour
 * sections (src/io/asset_textures.h): which
 * image each triangle primitive's material shows through
 * pbrMetallicRoughness.baseColorTexture on TEXCOORD_0 (the UV set a MESH
 * section keeps), with the image's PNG or JPEG bytes as the file stores them
 * (never decoded). The asset's meshes are matched to the file's primitives by
 * name and vertex count, in the importer's order (skinned nodes first). */
#include "gltf_imp.hpp"

extern "C" {
#include "io/asset_textures.h"
}

namespace stance_gltf __attribute__((visibility("hidden"))) {

int base_color_image(const tinygltf::Model &m, const tinygltf::Primitive &p, std::string &note) {
    if (p.material < 0 || (size_t)p.material >= m.materials.size()) return -1;
    const tinygltf::TextureInfo &t = m.materials[(size_t)p.material].pbrMetallicRoughness.baseColorTexture;
    if (t.index < 0 || (size_t)t.index >= m.textures.size()) return -1;
    const int src = m.textures[(size_t)t.index].source;
    if (t.texCoord != 0) note = "its base colour texture uses TEXCOORD_" + std::to_string(t.texCoord) + " (the .stance keeps TEXCOORD_0)";
    else if (src < 0 || (size_t)src >= m.images.size()) note = "its base colour texture has no image";
    else if (m.images[(size_t)src].image.empty()) note = "image '" + m.images[(size_t)src].uri + "' was not found (drop it with the file)";
    else return src;
    return -1;
}

/* COLOR_0 of a primitive as the vcol section stores it: 4 u16 little-endian
 * per vertex (value / 65535, clamped to 0..1; alpha 1 for VEC3), or empty
 * (then note may say why). The spec allows VEC3/VEC4 of FLOAT or of
 * normalized UNSIGNED_BYTE or UNSIGNED_SHORT, which u16 keeps exactly. */
std::vector<unsigned char> vertex_colors(Imp &im, const tinygltf::Primitive &p, size_t vertices, std::string &note) {
    auto it = p.attributes.find("COLOR_0");
    if (it == p.attributes.end()) return {};
    try {
        const tinygltf::Accessor &a = accessor(im, it->second, "COLOR_0");
        const int comps = a.type == TINYGLTF_TYPE_VEC3 ? 3 : a.type == TINYGLTF_TYPE_VEC4 ? 4 : 0;
        const bool typed = a.componentType == CT_FLOAT || ((a.componentType == CT_UBYTE || a.componentType == CT_USHORT) && a.normalized);
        if (!comps || !typed || a.count != vertices) {
            note = "COLOR_0 is not VEC3/VEC4 of FLOAT or normalized UNSIGNED_BYTE/SHORT, one per vertex: not kept";
            return {};
        }
        std::vector<double> c;
        read_accessor(im, it->second, c, "COLOR_0");
        std::vector<unsigned char> out(8 * vertices);
        for (size_t v = 0; v < vertices; v++)
            for (int k = 0; k < 4; k++) {
                const double x = k < comps ? c[v * (size_t)comps + (size_t)k] : 1.0;
                const unsigned u = std::isfinite(x) ? (unsigned)std::lround(std::min(1.0, std::max(0.0, x)) * 65535.0) : 65535u;
                out[8 * v + 2 * (size_t)k] = (unsigned char)(u & 0xFF);
                out[8 * v + 2 * (size_t)k + 1] = (unsigned char)(u >> 8);
            }
        return out;
    } catch (const Failure &) {
        note = std::string("COLOR_0: ") + last_problem(im) + ": not kept";
        return {};
    }
}

/* What the file shows on each of the asset's meshes: its image (-1 none) and
 * colours (empty none); notes as warnings. */
struct MeshLook {
    int image = -1;
    std::vector<unsigned char> colors;
};
static std::vector<MeshLook> mesh_looks(Imp &im, const stance_asset &a, std::vector<std::string> &notes) {
    const tinygltf::Model &m = im.model;
    struct P {
        std::string name;
        size_t vertices;
        const tinygltf::Primitive *prim;
        int image;
        bool used;
    };
    std::vector<P> prims;
    each_primitive(m, [&](const tinygltf::Node &nd, size_t k, const tinygltf::Primitive &p, size_t vertices) {
        std::string note;
        const std::string name = prim_name(m, nd, k);
        const int image = base_color_image(m, p, note);
        if (!note.empty()) notes.push_back("mesh '" + show(name) + "': " + note);
        prims.push_back({name, vertices, &p, image, false});
    });
    std::vector<MeshLook> out((size_t)a.mesh_count);
    for (int i = 0; i < a.mesh_count; i++)
        for (P &p : prims)
            if (!p.used && p.name == a.meshes[i]->name && p.vertices == (size_t)a.meshes[i]->vertex_count) {
                p.used = true;
                if (p.image >= 0 && a.meshes[i]->uvs) out[(size_t)i].image = p.image;
                else if (p.image >= 0) notes.push_back("mesh '" + show(p.name) + "': its base colour texture has no TEXCOORD_0");
                std::string note;
                out[(size_t)i].colors = vertex_colors(im, *p.prim, p.vertices, note);
                if (!note.empty()) notes.push_back("mesh '" + show(p.name) + "': " + note);
                break;
            }
    return out;
}

/* One warning line, starting with the path (as import.h's are). */
static void add_warning(stance_import_warnings *w, const char *path, const std::string &what) {
    if (!w) return;
    if (w->count < STANCE_IMPORT_WARNINGS) snprintf(w->message[w->count], sizeof w->message[0], "%s: textures: %s", path, what.c_str());
    w->count++;
}

/* The meshes' colours copied into out->owned_colors (1: out of memory). */
static int keep_colors(const std::vector<MeshLook> &looks, const stance_asset &a, stance_textures *out) {
    size_t total = 0;
    for (const MeshLook &l : looks) total += l.colors.size();
    if (total == 0) return 0;
    if (!(out->owned_colors = static_cast<unsigned char *>(malloc(total)))) return 1;
    size_t at = 0;
    for (size_t i = 0; i < looks.size(); i++) {
        if (looks[i].colors.empty()) continue;
        memcpy(out->owned_colors + at, looks[i].colors.data(), looks[i].colors.size());
        out->mesh_colors[i] = out->owned_colors + at;
        out->mesh_vertices[i] = a.meshes[i]->vertex_count;
        out->color_count++;
        at += looks[i].colors.size();
    }
    return 0;
}

} /* namespace stance_gltf */

using namespace stance_gltf;

extern "C" stance_status stance_gltf_textures(const char *path, const stance_asset *asset, stance_textures *out,
                                              stance_import_warnings *warnings, stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "textures: out is NULL");
    memset(out, 0, sizeof *out);
    if (!path || !asset || (asset->mesh_count > 0 && !asset->meshes))
        return st_fail(err, STANCE_ERR_ARGUMENT, "textures: path or asset is NULL");
    out->mesh_count = asset->mesh_count;
    for (int i = 0; i < asset->mesh_count; i++) out->mesh_image[i] = -1, out->mesh_vertices[i] = asset->meshes[i]->vertex_count;
    if (asset->mesh_count == 0) return st_ok(err);
    try {
        Imp im;
        im.path = path;
        im.err = err ? err : &im.own;
        im.keep_images = true;
        load_model(im);
        std::vector<std::string> notes;
        const std::vector<MeshLook> looks = mesh_looks(im, *asset, notes);
        for (const std::string &n : notes) add_warning(warnings, path, n);
        if (keep_colors(looks, *asset, out)) return st_fail(err, STANCE_ERR_MEMORY, "%s: textures: out of memory", path);
        std::vector<int> by_mesh;
        for (const MeshLook &l : looks) by_mesh.push_back(l.image);
        /* the images the meshes show, in order of first use, copied into one block */
        std::vector<int> slot(im.model.images.size(), -1), used;
        size_t total = 0;
        for (int k : by_mesh)
            if (k >= 0 && slot[(size_t)k] < 0) {
                const std::vector<unsigned char> &b = im.model.images[(size_t)k].image;
                if (!stance_texture_sniff(b.data(), b.size())) {
                    add_warning(warnings, path, "image " + std::to_string(k) + " ('" + show(im.model.images[(size_t)k].uri) + "') is neither PNG nor JPEG: not kept");
                    slot[(size_t)k] = -2;
                    continue;
                }
                if (used.size() == STANCE_TEXTURE_MAX_IMAGES || total + b.size() > STANCE_TEXTURE_MAX_BYTES) {
                    add_warning(warnings, path, "more than " + std::to_string(STANCE_TEXTURE_MAX_IMAGES) + " images or 256 MiB of them: image " +
                                                    std::to_string(k) + " not kept");
                    slot[(size_t)k] = -2;
                    continue;
                }
                slot[(size_t)k] = (int)used.size();
                used.push_back(k);
                total += b.size();
            }
        if (used.empty()) return st_ok(err);
        out->owned = static_cast<unsigned char *>(malloc(total));
        if (!out->owned) return st_fail(err, STANCE_ERR_MEMORY, "%s: textures: out of memory", path);
        size_t at = 0;
        for (int k : used) {
            const std::vector<unsigned char> &b = im.model.images[(size_t)k].image;
            memcpy(out->owned + at, b.data(), b.size());
            out->images[out->image_count++] = {stance_texture_sniff(b.data(), b.size()), out->owned + at, b.size()};
            at += b.size();
        }
        for (int i = 0; i < asset->mesh_count; i++) {
            const int k = by_mesh[(size_t)i];
            out->mesh_image[i] = k >= 0 && slot[(size_t)k] >= 0 ? slot[(size_t)k] : -1;
        }
        return st_ok(err);
    } catch (const Failure &f) {
        stance_textures_free(out);
        return f.status;
    } catch (const std::bad_alloc &) {
        stance_textures_free(out);
        return st_fail(err, STANCE_ERR_MEMORY, "%s: textures: out of memory", path);
    } catch (...) {
        stance_textures_free(out);
        return st_fail(err, STANCE_ERR_FORMAT, "%s: textures: cannot read the glTF", path);
    }
}
