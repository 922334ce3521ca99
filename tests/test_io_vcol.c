/* tests/test_io_vcol.c - glTF COLOR_0 kept in the .stance vertex colour section
 * ("vcol", docs/stance-format.md): a .glb written here from the glTF 2.0
 * specification (one animated node drawing a mesh of two triangle
 * primitives: COLOR_0 as normalized UNSIGNED_BYTE VEC4 on one, FLOAT VEC3 on
 * the other) is imported, its colours read as stance import keeps them
 * (value / 65535: a byte c is c * 257 exactly, a float x is round(x * 65535),
 * alpha 1 for VEC3; computed here from the values written), saved, read back
 * from the .stance the same, and the runtime loads the file as the one without
 * the section. */
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
#include "stance/build.h"
#include "stance/import.h"

static const unsigned char U8[12] = {255, 0, 0, 255, 0, 128, 0, 255, 7, 9, 200, 64};
static const float F3[9] = {0.25f, 0.5f, 1.0f, 0.0f, 0.1f, 0.9f, 1.0f, 1.0f, 0.0f};

static void put32(unsigned char *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i)); }

/* The .glb: JSON chunk and BIN chunk (glTF 2.0, "Binary glTF Layout"). */
static void write_glb(const char *path) {
    unsigned char bin[124];
    memset(bin, 0, sizeof bin);
    const float times[2] = {0, 1}, moves[6] = {0, 0, 0, 1, 0, 0}, pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const uint16_t idx[3] = {0, 1, 2};
    memcpy(bin, times, 8), memcpy(bin + 8, moves, 24), memcpy(bin + 32, pos, 36);
    memcpy(bin + 68, U8, 12), memcpy(bin + 80, F3, 36), memcpy(bin + 116, idx, 6);
    char json[2048];
    int n = snprintf(json, sizeof json,
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
        "\"nodes\":[{\"name\":\"joint\",\"mesh\":0}],"
        "\"meshes\":[{\"name\":\"tri\",\"primitives\":["
        "{\"attributes\":{\"POSITION\":2,\"COLOR_0\":3},\"indices\":5},"
        "{\"attributes\":{\"POSITION\":2,\"COLOR_0\":4},\"indices\":5}]}],"
        "\"animations\":[{\"name\":\"move\",\"samplers\":[{\"input\":0,\"output\":1}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}]}],"
        "\"buffers\":[{\"byteLength\":124}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":8,\"byteLength\":24},"
        "{\"buffer\":0,\"byteOffset\":32,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":68,\"byteLength\":12},"
        "{\"buffer\":0,\"byteOffset\":80,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":116,\"byteLength\":6}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"type\":\"SCALAR\",\"count\":2,\"min\":[0],\"max\":[1]},"
        "{\"bufferView\":1,\"componentType\":5126,\"type\":\"VEC3\",\"count\":2},"
        "{\"bufferView\":2,\"componentType\":5126,\"type\":\"VEC3\",\"count\":3,\"min\":[0,0,0],\"max\":[1,1,0]},"
        "{\"bufferView\":3,\"componentType\":5121,\"normalized\":true,\"type\":\"VEC4\",\"count\":3},"
        "{\"bufferView\":4,\"componentType\":5126,\"type\":\"VEC3\",\"count\":3},"
        "{\"bufferView\":5,\"componentType\":5123,\"type\":\"SCALAR\",\"count\":3}]}");
    while (n % 4) json[n++] = ' ';
    unsigned char head[20], bh[8];
    memcpy(head, "glTF", 4), put32(head + 4, 2), put32(head + 8, (uint32_t)(12 + 8 + n + 8 + sizeof bin));
    put32(head + 12, (uint32_t)n), memcpy(head + 16, "JSON", 4);
    put32(bh, sizeof bin), memcpy(bh + 4, "BIN\0", 4);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    fwrite(head, 1, 20, f), fwrite(json, 1, (size_t)n, f), fwrite(bh, 1, 8, f), fwrite(bin, 1, sizeof bin, f);
    fclose(f);
}

static unsigned get16(const unsigned char *p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }

/* The colours of the mesh named `name` in t against those written (kind 0: the bytes, 1: the floats). */
static void check_colors(const stance_asset *a, const stance_textures *t, const char *name, int kind) {
    int m = -1;
    for (int i = 0; i < a->mesh_count; i++)
        if (!strcmp(a->meshes[i]->name, name)) m = i;
    CHECK(m >= 0 && t->mesh_colors[m] && t->mesh_vertices[m] == 3);
    if (m < 0 || !t->mesh_colors[m]) return;
    int off = 0;
    for (int v = 0; v < 3; v++)
        for (int c = 0; c < 4; c++) {
            const unsigned want = kind == 0 ? U8[4 * v + c] * 257u
                                  : c == 3 ? 65535u : (unsigned)floor((double)F3[3 * v + c] * 65535.0 + 0.5);
            off += get16(t->mesh_colors[m] + 8 * v + 2 * c) != want;
        }
    CHECK(off == 0);
}

static void test_color0_round_trip(void) {
    char dir[] = "/tmp/stance_vcol_XXXXXX", glb[300], out[300], plain[300];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(glb, sizeof glb, "%s/tri.glb", dir), snprintf(out, sizeof out, "%s/tri.stance", dir);
    snprintf(plain, sizeof plain, "%s/plain.stance", dir);
    write_glb(glb);
    stance_asset a;
    stance_error err = {STANCE_OK, ""};
    CHECK_OK(stance_open_file(glb, NULL, NULL, &a, &err));
    if (err.status) fprintf(stderr, "  %s\n", err.message);
    CHECK(a.mesh_count == 2);
    stance_textures t;
    stance_import_warnings w = {0};
    CHECK_OK(stance_textures_of_file(glb, &a, &t, &w, &err));
    CHECK(w.count == 0 && t.image_count == 0 && t.color_count == 2);
    check_colors(&a, &t, "tri#0", 0);
    check_colors(&a, &t, "tri#1", 1);
    /* saved (version 6, with the section) and read back from the .stance */
    CHECK_OK(stance_textures_save_file(&a, NULL, &t, out, &err));
    CHECK_OK(stance_asset_save_file(&a, plain, NULL));
    stance_asset b, c;
    CHECK_OK(stance_open_file(out, NULL, NULL, &b, &err));
    stance_textures t2;
    CHECK_OK(stance_textures_of_file(out, &b, &t2, NULL, &err));
    CHECK(t2.color_count == 2);
    check_colors(&b, &t2, "tri#0", 0);
    check_colors(&b, &t2, "tri#1", 1);
    /* the runtime: the same asset as the file without it */
    CHECK_OK(stance_asset_load_file(out, NULL, &c, &err));
    void *x = NULL, *y = NULL;
    size_t xn = 0, yn = 0;
    CHECK_OK(stance_asset_save_memory(&c, &x, &xn, NULL, NULL));
    CHECK_OK(stance_asset_save_memory(&a, &y, &yn, NULL, NULL));
    CHECK(xn == yn && !memcmp(x, y, xn));
    stance_asset_free_bytes(x, xn, NULL), stance_asset_free_bytes(y, yn, NULL);
    stance_textures_free(&t), stance_textures_free(&t2);
    stance_asset_destroy(&a), stance_asset_destroy(&b), stance_asset_destroy(&c);
    remove(glb), remove(out), remove(plain), rmdir(dir);
}

int main(void) {
    RUN(test_color0_round_trip);
    return check_summary();
}
