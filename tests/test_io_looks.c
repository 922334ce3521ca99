/* tests/test_io_looks.c - textures and vertex colours of the assimp formats kept in
 * the .stance texture and vertex colour sections (src/io/import_mesh.c's
 * st_import_looks, docs/import.md): a skinned Collada 1.4.1 file written here
 * from the specification (a 2 m quad on two joints, one clip, a lambert
 * material whose diffuse is a texture on TEXCOORD set 0, per-vertex COLOR) with
 * the PNG its <image> names next to it (written here from the PNG
 * specification: signature, IHDR, a stored-deflate IDAT, IEND, CRCs and Adler
 * computed here) is imported: the image's bytes as written, the mesh mapped to
 * it, and each vertex's colour the one written for its position (value / 65535,
 * rounded); saved and read back from the .stance; and without the PNG, a warning
 * naming the image and the colours still kept. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "io/asset_textures.h"
#include "stance/asset.h"
#include "stance/import.h"

static const float COLORS[4][3] = {{1, 0, 0}, {0.25f, 0.5f, 0.75f}, {0, 0, 1}, {0.1f, 0.9f, 0.3f}};
static const float POS[4][3] = {{-1, 0, 0}, {1, 0, 0}, {1, 2, 0}, {-1, 2, 0}};

static const char *DAE =
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
    "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n"
    " <asset><unit name=\"meter\" meter=\"1\"/><up_axis>Y_UP</up_axis></asset>\n"
    " <library_images><image id=\"tex\"><init_from>tile.png</init_from></image></library_images>\n"
    " <library_effects><effect id=\"fx\"><profile_COMMON>\n"
    "  <newparam sid=\"surf\"><surface type=\"2D\"><init_from>tex</init_from></surface></newparam>\n"
    "  <newparam sid=\"samp\"><sampler2D><source>surf</source></sampler2D></newparam>\n"
    "  <technique sid=\"common\"><lambert><diffuse><texture texture=\"samp\" texcoord=\"UV0\"/></diffuse></lambert></technique>\n"
    " </profile_COMMON></effect></library_effects>\n"
    " <library_materials><material id=\"mat\"><instance_effect url=\"#fx\"/></material></library_materials>\n"
    " <library_geometries><geometry id=\"geo\" name=\"quad\"><mesh>\n"
    "  <source id=\"pos\"><float_array id=\"pos-a\" count=\"12\">-1 0 0 1 0 0 1 2 0 -1 2 0</float_array><technique_common>\n"
    "   <accessor source=\"#pos-a\" count=\"4\" stride=\"3\"><param name=\"X\" type=\"float\"/><param name=\"Y\" type=\"float\"/>"
    "<param name=\"Z\" type=\"float\"/></accessor></technique_common></source>\n"
    "  <source id=\"uv\"><float_array id=\"uv-a\" count=\"8\">0 0 1 0 1 1 0 1</float_array><technique_common>\n"
    "   <accessor source=\"#uv-a\" count=\"4\" stride=\"2\"><param name=\"S\" type=\"float\"/><param name=\"T\" type=\"float\"/>"
    "</accessor></technique_common></source>\n"
    "  <source id=\"col\"><float_array id=\"col-a\" count=\"12\">1 0 0 0.25 0.5 0.75 0 0 1 0.1 0.9 0.3</float_array><technique_common>\n"
    "   <accessor source=\"#col-a\" count=\"4\" stride=\"3\"><param name=\"R\" type=\"float\"/><param name=\"G\" type=\"float\"/>"
    "<param name=\"B\" type=\"float\"/></accessor></technique_common></source>\n"
    "  <vertices id=\"vtx\"><input semantic=\"POSITION\" source=\"#pos\"/></vertices>\n"
    "  <triangles material=\"m0\" count=\"2\"><input semantic=\"VERTEX\" source=\"#vtx\" offset=\"0\"/>"
    "<input semantic=\"TEXCOORD\" source=\"#uv\" offset=\"0\" set=\"0\"/><input semantic=\"COLOR\" source=\"#col\" offset=\"0\"/>"
    "<p>0 1 2 0 2 3</p></triangles>\n"
    " </mesh></geometry></library_geometries>\n"
    " <library_controllers><controller id=\"skin\"><skin source=\"#geo\">\n"
    "  <bind_shape_matrix>1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1</bind_shape_matrix>\n"
    "  <source id=\"jn\"><Name_array id=\"jn-a\" count=\"2\">root top</Name_array><technique_common>"
    "<accessor source=\"#jn-a\" count=\"2\" stride=\"1\"><param name=\"JOINT\" type=\"name\"/></accessor></technique_common></source>\n"
    "  <source id=\"ib\"><float_array id=\"ib-a\" count=\"32\">1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1 1 0 0 0 0 1 0 -2 0 0 1 0 0 0 0 1</float_array>"
    "<technique_common><accessor source=\"#ib-a\" count=\"2\" stride=\"16\"><param name=\"TRANSFORM\" type=\"float4x4\"/></accessor>"
    "</technique_common></source>\n"
    "  <source id=\"w\"><float_array id=\"w-a\" count=\"1\">1</float_array><technique_common>"
    "<accessor source=\"#w-a\" count=\"1\" stride=\"1\"><param name=\"WEIGHT\" type=\"float\"/></accessor></technique_common></source>\n"
    "  <joints><input semantic=\"JOINT\" source=\"#jn\"/><input semantic=\"INV_BIND_MATRIX\" source=\"#ib\"/></joints>\n"
    "  <vertex_weights count=\"4\"><input semantic=\"JOINT\" source=\"#jn\" offset=\"0\"/><input semantic=\"WEIGHT\" source=\"#w\" offset=\"1\"/>"
    "<vcount>1 1 1 1</vcount><v>0 0 0 0 1 0 1 0</v></vertex_weights>\n"
    " </skin></controller></library_controllers>\n"
    " <library_animations><animation id=\"turn\">\n"
    "  <source id=\"t\"><float_array id=\"t-a\" count=\"2\">0 1</float_array><technique_common>"
    "<accessor source=\"#t-a\" count=\"2\" stride=\"1\"><param name=\"TIME\" type=\"float\"/></accessor></technique_common></source>\n"
    "  <source id=\"o\"><float_array id=\"o-a\" count=\"32\">1 0 0 0 0 1 0 2 0 0 1 0 0 0 0 1 0 0 1 0 0 1 0 2 -1 0 0 0 0 0 0 1</float_array>"
    "<technique_common><accessor source=\"#o-a\" count=\"2\" stride=\"16\"><param name=\"TRANSFORM\" type=\"float4x4\"/></accessor>"
    "</technique_common></source>\n"
    "  <source id=\"i\"><Name_array id=\"i-a\" count=\"2\">LINEAR LINEAR</Name_array><technique_common>"
    "<accessor source=\"#i-a\" count=\"2\" stride=\"1\"><param name=\"INTERPOLATION\" type=\"name\"/></accessor></technique_common></source>\n"
    "  <sampler id=\"s\"><input semantic=\"INPUT\" source=\"#t\"/><input semantic=\"OUTPUT\" source=\"#o\"/>"
    "<input semantic=\"INTERPOLATION\" source=\"#i\"/></sampler>\n"
    "  <channel source=\"#s\" target=\"top/transform\"/>\n"
    " </animation></library_animations>\n"
    " <library_visual_scenes><visual_scene id=\"scene\">\n"
    "  <node id=\"root\" sid=\"root\" name=\"root\" type=\"JOINT\"><matrix sid=\"transform\">1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1</matrix>\n"
    "   <node id=\"top\" sid=\"top\" name=\"top\" type=\"JOINT\"><matrix sid=\"transform\">1 0 0 0 0 1 0 2 0 0 1 0 0 0 0 1</matrix></node>\n"
    "  </node>\n"
    "  <node id=\"quad\" name=\"quad\"><instance_controller url=\"#skin\"><skeleton>#root</skeleton><bind_material><technique_common>"
    "<instance_material symbol=\"m0\" target=\"#mat\"><bind_vertex_input semantic=\"UV0\" input_semantic=\"TEXCOORD\" input_set=\"0\"/>"
    "</instance_material></technique_common></bind_material></instance_controller></node>\n"
    " </visual_scene></library_visual_scenes>\n"
    " <scene><instance_visual_scene url=\"#scene\"/></scene>\n"
    "</COLLADA>\n";

/* ---- a PNG from its specification: 2x2 RGB, filter 0, a stored deflate block */
static uint32_t crc32_of(const unsigned char *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xFFFFFFFFu;
}
static void be32(unsigned char *p, uint32_t v) { p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v; }
static size_t chunk(unsigned char *out, const char *type, const unsigned char *data, uint32_t n) {
    be32(out, n);
    memcpy(out + 4, type, 4);
    if (n) memcpy(out + 8, data, n);
    be32(out + 8 + n, crc32_of(out + 4, 4 + n));
    return 12 + n;
}
static size_t make_png(unsigned char *out) {
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    unsigned char ihdr[13] = {0, 0, 0, 2, 0, 0, 0, 2, 8, 2, 0, 0, 0}; /* 2x2, 8 bits, RGB */
    unsigned char raw[14] = {0, 20, 200, 40, 20, 200, 40, 0, 20, 200, 40, 20, 200, 40}; /* two rows: filter 0, green */
    unsigned char z[2 + 5 + sizeof raw + 4] = {0x78, 0x01, 1, sizeof raw, 0, (unsigned char)~sizeof raw, 0xFF};
    memcpy(z + 7, raw, sizeof raw);
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < sizeof raw; i++) a = (a + raw[i]) % 65521, b = (b + a) % 65521;
    be32(z + 7 + sizeof raw, b << 16 | a);
    size_t n = 8;
    memcpy(out, sig, 8);
    n += chunk(out + n, "IHDR", ihdr, 13);
    n += chunk(out + n, "IDAT", z, sizeof z);
    n += chunk(out + n, "IEND", NULL, 0);
    return n;
}

static void write_bytes(const char *path, const void *b, size_t n) {
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    CHECK(fwrite(b, 1, n, f) == n);
    fclose(f);
}

/* Each vertex's colour is the one written for its position (alpha 1). */
static void check_colors(const stance_asset *a, const stance_textures *t) {
    CHECK(t->color_count == 1 && t->mesh_colors[0] && t->mesh_vertices[0] == a->meshes[0]->vertex_count);
    if (!t->mesh_colors[0]) return;
    int off = 0;
    for (int v = 0; v < a->meshes[0]->vertex_count; v++) {
        const float *p = a->meshes[0]->positions + 3 * v;
        int k = 0;
        while (k < 4 && (fabsf(p[0] - POS[k][0]) > 1e-5f || fabsf(p[1] - POS[k][1]) > 1e-5f || fabsf(p[2] - POS[k][2]) > 1e-5f)) k++;
        CHECK(k < 4);
        if (k == 4) return;
        for (int c = 0; c < 4; c++) {
            const unsigned want = c == 3 ? 65535u : (unsigned)floor((double)COLORS[k][c] * 65535.0 + 0.5);
            const unsigned got = (unsigned)t->mesh_colors[0][8 * v + 2 * c] | (unsigned)t->mesh_colors[0][8 * v + 2 * c + 1] << 8;
            off += got != want;
        }
    }
    CHECK(off == 0);
}

static void test_collada_texture(void) {
    char dir[] = "/tmp/stance_looks_XXXXXX", dae[300], png[300], out[300];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(dae, sizeof dae, "%s/quad.dae", dir), snprintf(png, sizeof png, "%s/tile.png", dir);
    snprintf(out, sizeof out, "%s/quad.stance", dir);
    unsigned char image[128];
    const size_t image_n = make_png(image);
    write_bytes(dae, DAE, strlen(DAE));
    write_bytes(png, image, image_n);

    stance_asset a;
    stance_error err = {STANCE_OK, ""};
    CHECK_OK(stance_open_file(dae, NULL, NULL, &a, &err));
    if (err.status) {
        fprintf(stderr, "  %s\n", err.message);
        return;
    }
    CHECK(a.mesh_count == 1 && a.meshes[0]->uvs);
    stance_textures t;
    stance_import_warnings w = {0};
    CHECK_OK(stance_textures_of_file(dae, &a, &t, &w, &err));
    for (int i = 0; i < w.count && i < STANCE_IMPORT_WARNINGS; i++) fprintf(stderr, "  warning: %s\n", w.message[i]);
    CHECK(w.count == 0 && t.image_count == 1 && t.mesh_image[0] == 0);
    CHECK(t.images[0].kind == STANCE_TEXTURE_PNG && t.images[0].size == image_n && !memcmp(t.images[0].bytes, image, image_n));
    check_colors(&a, &t);

    /* saved and read back from the .stance */
    CHECK_OK(stance_textures_save_file(&a, NULL, &t, out, &err));
    stance_asset b;
    stance_textures t2;
    CHECK_OK(stance_open_file(out, NULL, NULL, &b, &err));
    CHECK_OK(stance_textures_of_file(out, &b, &t2, NULL, &err));
    CHECK(t2.image_count == 1 && t2.images[0].size == image_n && !memcmp(t2.images[0].bytes, image, image_n) && t2.mesh_image[0] == 0);
    check_colors(&b, &t2);
    stance_textures_free(&t2);
    stance_asset_destroy(&b);

    /* without the PNG: a warning naming it, no texture, the colours kept */
    remove(png);
    stance_textures_free(&t);
    memset(&w, 0, sizeof w);
    CHECK_OK(stance_textures_of_file(dae, &a, &t, &w, &err));
    CHECK(w.count == 1 && strstr(w.message[0], "textures: mesh 'geo'") && strstr(w.message[0], "'tile.png' was not found"));
    if (w.count) fprintf(stderr, "  (expected) %s\n", w.message[0]);
    CHECK(t.image_count == 0 && t.mesh_image[0] == -1);
    check_colors(&a, &t);
    stance_textures_free(&t);
    stance_asset_destroy(&a);
    remove(dae), remove(out), rmdir(dir);
}

int main(void) {
    RUN(test_collada_texture);
    return check_summary();
}
