/* tests/test_asset_textures.c - the .stance texture section (src/io/asset_textures.c,
 * docs/stance-format.md "Textures"), on an asset made here (a skinned mesh with UVs,
 * a rigid one without) and images written here from the PNG and JPEG signatures:
 * insert -> read gives the bytes and mapping back, the file becomes version 6 and
 * the runtime loads it unchanged (it skips the section), before a GRPH section too;
 * a file without textures stays byte for byte what the writer wrote (version 5);
 * every corruption of the section (counts, kinds, sizes, indices, a mesh without
 * UVs, a version 5 file holding it, each truncation, each byte changed) is a clear
 * "texture section: ..." error of the reader, never a crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "io/asset_textures.h"
#include "stance/asset.h"
#include "stance/build.h"
#include "stance/graph.h"

#define V 4

static stance_asset make_asset(void) {
    stance_asset a;
    memset(&a, 0, sizeof a);
    static const char *names[2] = {"root", "tip"};
    static const int parents[2] = {-1, 0};
    stance_transform rest[2] = {stance_transform_identity(), stance_transform_identity()};
    rest[1].t[1] = 1.0f;
    stance_skeleton_desc sd = {2, names, parents, rest};
    CHECK_OK(stance_skeleton_create(&sd, NULL, &a.skeleton, NULL));
    static const float times[2] = {0.0f, 1.0f};
    static const float rot[8] = {0, 0, 0, 1, 0, 0.38268343f, 0, 0.92387953f};
    stance_track_desc tr = {1, STANCE_CHANNEL_ROTATION, 2, times, rot};
    stance_clip_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.name = "turn", cd.track_count = 1, cd.tracks = &tr;
    a.clip_count = 1;
    a.clips = calloc(1, sizeof(stance_clip *));
    CHECK_OK(stance_clip_create(&cd, a.skeleton, NULL, &a.clips[0], NULL));
    static const int skin_joints[2] = {0, 1};
    float ib[32] = {0};
    for (int k = 0; k < 2; k++) ib[16 * k] = ib[16 * k + 5] = ib[16 * k + 10] = ib[16 * k + 15] = 1.0f;
    stance_skin_desc skd = {"body", 2, skin_joints, ib};
    a.skin_count = 1;
    a.skins = calloc(1, sizeof(stance_skin *));
    CHECK_OK(stance_skin_create(&skd, a.skeleton, NULL, &a.skins[0], NULL));
    static const float pos[3 * V] = {-1, 0, 0, 1, 0, 0, -1, 2, 0, 1, 2, 0}, uv[2 * V] = {0, 1, 1, 1, 0, 0, 1, 0};
    static const float w[4 * V] = {1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0};
    static const uint16_t jn[4 * V] = {0};
    static const uint32_t quad[6] = {0, 1, 2, 2, 1, 3};
    stance_mesh_desc md;
    memset(&md, 0, sizeof md);
    md.name = "skin quad", md.skin = 0, md.vertex_count = V, md.positions = pos, md.uvs = uv, md.joints = jn, md.weights = w;
    md.index_count = 6, md.indices = quad;
    a.mesh_count = 2;
    a.meshes = calloc(2, sizeof(stance_mesh *));
    CHECK_OK(stance_mesh_create(&md, a.skins[0], NULL, &a.meshes[0], NULL));
    memset(&md, 0, sizeof md);
    md.name = "prop", md.skin = -1, md.vertex_count = V, md.positions = pos, md.index_count = 6, md.indices = quad;
    CHECK_OK(stance_mesh_create(&md, NULL, NULL, &a.meshes[1], NULL));
    return a;
}

static void free_asset(stance_asset *a) {
    for (int i = 0; i < a->clip_count; i++) stance_clip_destroy(a->clips[i]);
    for (int i = 0; i < a->mesh_count; i++) stance_mesh_destroy(a->meshes[i]);
    for (int i = 0; i < a->skin_count; i++) stance_skin_destroy(a->skins[i]);
    free(a->clips), free(a->meshes), free(a->skins);
    stance_skeleton_destroy(a->skeleton);
}

/* Images: the signatures of the PNG and JPEG specifications, then bytes. */
static unsigned char png[40], jpeg[20];
static void make_images(void) {
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    memcpy(png, sig, 8);
    for (int i = 8; i < (int)sizeof png; i++) png[i] = (unsigned char)(3 * i);
    jpeg[0] = 0xFF, jpeg[1] = 0xD8, jpeg[2] = 0xFF;
    for (int i = 3; i < (int)sizeof jpeg; i++) jpeg[i] = (unsigned char)(7 * i);
}
static stance_textures two_images(void) {
    stance_textures t;
    memset(&t, 0, sizeof t);
    t.image_count = 2;
    t.images[0] = (stance_texture_image){STANCE_TEXTURE_JPEG, jpeg, sizeof jpeg};
    t.images[1] = (stance_texture_image){STANCE_TEXTURE_PNG, png, sizeof png};
    t.mesh_count = 2;
    t.mesh_image[0] = 1, t.mesh_image[1] = -1;
    return t;
}

static uint32_t get_u32(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static void put_u32(unsigned char *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i)); }
static void fix_checksum(unsigned char *b, size_t n) {
    uint64_t h = stance_asset_checksum(b + 32, n - 32);
    for (int i = 0; i < 8; i++) b[24 + i] = (unsigned char)(h >> (8 * i));
}
/* Where the "txtr" head is (the writer's bytes; the test looks for the tag). */
static size_t find_txtr(const unsigned char *b, size_t n) {
    for (size_t at = 32; at + 16 <= n;) {
        uint64_t len = get_u32(b + at + 8) | (uint64_t)get_u32(b + at + 12) << 32;
        if (!memcmp(b + at, "txtr", 4)) return at;
        at += 16 + (size_t)len;
    }
    return 0;
}

static void test_round_trip(void) {
    stance_asset a = make_asset();
    void *plain = NULL, *with = NULL;
    size_t plain_n = 0, with_n = 0;
    CHECK_OK(stance_asset_save_memory(&a, &plain, &plain_n, NULL, NULL));
    stance_textures t;
    stance_error err = {STANCE_OK, ""};
    CHECK_OK(stance_textures_read(plain, plain_n, &t, &err));
    CHECK(t.image_count == 0 && t.mesh_count == 2 && t.mesh_image[0] == -1 && t.mesh_image[1] == -1);
    CHECK(((unsigned char *)plain)[8] == 5); /* without textures: what the writer writes, version 5 */

    stance_textures in = two_images();
    CHECK_OK(stance_textures_insert(plain, plain_n, &in, &with, &with_n, &err));
    const unsigned char *w = with;
    CHECK(w[8] == 6 && with_n == plain_n + 16 + 4 + 8 + sizeof jpeg + 8 + sizeof png + 4 + 8);
    CHECK(find_txtr(w, with_n) == plain_n); /* no graph: the last section */
    CHECK_OK(stance_textures_read(with, with_n, &t, &err));
    CHECK(t.image_count == 2 && t.mesh_count == 2 && t.mesh_image[0] == 1 && t.mesh_image[1] == -1);
    CHECK(t.images[0].kind == STANCE_TEXTURE_JPEG && t.images[0].size == sizeof jpeg && !memcmp(t.images[0].bytes, jpeg, sizeof jpeg));
    CHECK(t.images[1].kind == STANCE_TEXTURE_PNG && t.images[1].size == sizeof png && !memcmp(t.images[1].bytes, png, sizeof png));

    /* the runtime skips the section: the same asset as without it */
    stance_asset b, c;
    CHECK_OK(stance_asset_load_memory(with, with_n, NULL, &b, NULL));
    CHECK_OK(stance_asset_load_memory(plain, plain_n, NULL, &c, NULL));
    void *again = NULL;
    size_t again_n = 0;
    CHECK_OK(stance_asset_save_memory(&b, &again, &again_n, NULL, NULL));
    CHECK(again_n == plain_n && !memcmp(again, plain, plain_n));
    CHECK(b.mesh_count == 2 && b.meshes[0]->uvs && !b.meshes[1]->uvs);
    stance_asset_free_bytes(again, again_n, NULL);
    stance_asset_destroy(&b);
    stance_asset_destroy(&c);

    /* inserting into a file that has one replaces it */
    void *twice = NULL;
    size_t twice_n = 0;
    CHECK_OK(stance_textures_insert(with, with_n, &in, &twice, &twice_n, &err));
    CHECK(twice_n == with_n && !memcmp(twice, with, with_n));
    free(twice);

    /* refused: an image on the mesh without UVs, bytes that are not their kind, the wrong mesh count */
    stance_textures bad = two_images();
    bad.mesh_image[1] = 0;
    CHECK_STATUS(stance_textures_insert(plain, plain_n, &bad, &twice, &twice_n, &err), STANCE_ERR_ARGUMENT);
    bad = two_images();
    bad.images[0].kind = STANCE_TEXTURE_PNG;
    CHECK_STATUS(stance_textures_insert(plain, plain_n, &bad, &twice, &twice_n, &err), STANCE_ERR_ARGUMENT);
    bad = two_images();
    bad.mesh_count = 1;
    CHECK_STATUS(stance_textures_insert(plain, plain_n, &bad, &twice, &twice_n, &err), STANCE_ERR_ARGUMENT);
    CHECK(twice == NULL);
    free(with);
    stance_asset_free_bytes(plain, plain_n, NULL);
    free_asset(&a);
}

/* A compiled graph (GRPH, the last section): the texture section goes before it. */
static void test_with_graph(void) {
    stance_asset a = make_asset();
    stance_state_desc st = {.name = "turn", .clip = a.clips[0]};
    stance_machine_desc md = {.name = "m", .state_count = 1, .states = &st};
    stance_graph_desc gd = {.skeleton = a.skeleton, .machine_count = 1, .machines = &md};
    void *plain = NULL, *with = NULL;
    size_t plain_n = 0, with_n = 0;
    CHECK_OK(stance_asset_save_graph_memory(&a, &gd, &plain, &plain_n, NULL, NULL));
    stance_textures in = two_images(), t;
    CHECK_OK(stance_textures_insert(plain, plain_n, &in, &with, &with_n, NULL));
    const size_t at = find_txtr(with, with_n);
    CHECK(at > 32 && !memcmp((unsigned char *)with + at + 16 + (with_n - plain_n - 16), "GRPH", 4));
    stance_asset b;
    CHECK_OK(stance_asset_load_memory(with, with_n, NULL, &b, NULL));
    CHECK(b.graph != NULL);
    stance_asset_destroy(&b);
    CHECK_OK(stance_textures_read(with, with_n, &t, NULL));
    CHECK(t.image_count == 2 && t.mesh_image[0] == 1);
    free(with);
    stance_asset_free_bytes(plain, plain_n, NULL);
    free_asset(&a);
}

/* Expects the reader to refuse b with a "texture section: " message containing `what`. */
static void refused(unsigned char *b, size_t n, const char *what) {
    fix_checksum(b, n);
    stance_textures t;
    stance_error err = {STANCE_OK, ""};
    CHECK_STATUS(stance_textures_read(b, n, &t, &err), STANCE_ERR_FORMAT);
    if (!strstr(err.message, "texture section: ") || !strstr(err.message, what)) {
        CHECK(!"the message names the problem");
        fprintf(stderr, "  wanted '%s' in: %s\n", what, err.message);
    }
    CHECK(t.image_count == 0);
}

static void test_corrupt(void) {
    stance_asset a = make_asset();
    void *plain = NULL, *with = NULL;
    size_t plain_n = 0, n = 0;
    CHECK_OK(stance_asset_save_memory(&a, &plain, &plain_n, NULL, NULL));
    stance_textures in = two_images();
    CHECK_OK(stance_textures_insert(plain, plain_n, &in, &with, &n, NULL));
    unsigned char *b = malloc(n);
    const size_t body = find_txtr(with, n) + 16, img0 = body + 4, img1 = img0 + 8 + sizeof jpeg, meshes = img1 + 8 + sizeof png;
#define RESET() memcpy(b, with, n)
    RESET(), put_u32(b + body, 0), refused(b, n, "0 images");
    RESET(), put_u32(b + body, 65), refused(b, n, "65 images");
    RESET(), put_u32(b + img0, 3), refused(b, n, "image 0 is kind 3");
    RESET(), put_u32(b + img1, STANCE_TEXTURE_JPEG), refused(b, n, "image 1 is kind 2 but its bytes are png");
    RESET(), put_u32(b + img0 + 4, 1000), refused(b, n, "run past");
    RESET(), put_u32(b + img0 + 4, sizeof jpeg - 1), refused(b, n, "image 1"); /* the next image is then misread */
    RESET(), put_u32(b + meshes, 3), refused(b, n, "the file has 2 meshes");
    RESET(), put_u32(b + meshes + 4, 2), refused(b, n, "mesh 0's image 2");
    RESET(), put_u32(b + meshes + 4, (uint32_t)-2), refused(b, n, "mesh 0's image -2");
    RESET(), put_u32(b + meshes + 8, 0), refused(b, n, "the mesh has none");
    RESET(), put_u32(b + 8, 5), refused(b, n, "needs version 6");
    /* the runtime skips what it does not read: a corrupt texture section still loads there */
    RESET(), put_u32(b + img0, 3), fix_checksum(b, n);
    stance_asset c;
    CHECK_OK(stance_asset_load_memory(b, n, NULL, &c, NULL));
    stance_asset_destroy(&c);
    /* a texture section in a version 5 file is an unknown section to the runtime */
    RESET(), put_u32(b + 8, 5), fix_checksum(b, n);
    stance_error err = {STANCE_OK, ""};
    CHECK_STATUS(stance_asset_load_memory(b, n, NULL, &c, &err), STANCE_ERR_FORMAT);
    CHECK(strstr(err.message, "expected") != NULL);
    /* every truncation and every byte of the section changed: an answer, never a crash */
    stance_textures t;
    int failed = 0;
    for (size_t k = 0; k < n; k++) failed += stance_textures_read(with, k, &t, NULL) != STANCE_OK;
    CHECK(failed == (int)n);
    for (size_t k = body - 16; k < n; k++) {
        RESET();
        b[k] ^= 0x5A;
        fix_checksum(b, n);
        stance_status s = stance_textures_read(b, n, &t, NULL);
        CHECK(s == STANCE_OK || s == STANCE_ERR_FORMAT);
        if (s == STANCE_OK)
            for (int i = 0; i < t.image_count; i++) CHECK(t.images[i].bytes >= b && t.images[i].bytes + t.images[i].size <= b + n);
    }
    free(b);
    free(with);
    stance_asset_free_bytes(plain, plain_n, NULL);
    free_asset(&a);
}


/* Vertex colours for mesh 0 (4 vertices, u16 RGBA little-endian), none for mesh 1. */
static unsigned char colors[8 * V];
static stance_textures with_colors(int images) {
    stance_textures t = images ? two_images() : (stance_textures){0};
    for (int i = 0; i < 8 * V; i++) colors[i] = (unsigned char)(11 * i + 5);
    t.mesh_count = 2;
    if (!images) t.mesh_image[0] = t.mesh_image[1] = -1;
    t.mesh_colors[0] = colors, t.mesh_vertices[0] = V, t.mesh_vertices[1] = V;
    t.color_count = 1;
    return t;
}
static size_t find_tag(const unsigned char *b, size_t n, const char *tag) {
    for (size_t at = 32; at + 16 <= n;) {
        uint64_t len = get_u32(b + at + 8) | (uint64_t)get_u32(b + at + 12) << 32;
        if (!memcmp(b + at, tag, 4)) return at;
        at += 16 + (size_t)len;
    }
    return 0;
}

/* The vertex colour section: alone and with the texture section, read back, the runtime's load unchanged. */
static void test_colors_round_trip(void) {
    stance_asset a = make_asset();
    void *plain = NULL, *with = NULL, *both = NULL, *again = NULL;
    size_t plain_n = 0, with_n = 0, both_n = 0, again_n = 0;
    CHECK_OK(stance_asset_save_memory(&a, &plain, &plain_n, NULL, NULL));
    stance_textures in = with_colors(0), t;
    stance_error err = {STANCE_OK, ""};
    CHECK_OK(stance_textures_insert(plain, plain_n, &in, &with, &with_n, &err));
    const unsigned char *w = with;
    CHECK(w[8] == 6 && with_n == plain_n + 16 + 4 + 2 * 4 + 8 * V);
    CHECK(find_tag(w, with_n, "vcol") == plain_n && find_tag(w, with_n, "txtr") == 0);
    CHECK_OK(stance_textures_read(with, with_n, &t, &err));
    CHECK(t.image_count == 0 && t.color_count == 1 && t.mesh_count == 2 && t.mesh_colors[1] == NULL);
    CHECK(t.mesh_colors[0] && t.mesh_vertices[0] == V && !memcmp(t.mesh_colors[0], colors, sizeof colors));
    /* the runtime skips it: the same asset */
    stance_asset b;
    CHECK_OK(stance_asset_load_memory(with, with_n, NULL, &b, NULL));
    CHECK_OK(stance_asset_save_memory(&b, &again, &again_n, NULL, NULL));
    CHECK(again_n == plain_n && !memcmp(again, plain, plain_n));
    stance_asset_free_bytes(again, again_n, NULL);
    stance_asset_destroy(&b);
    /* both sections: each read back; inserting again replaces both (the same bytes) */
    in = with_colors(1);
    CHECK_OK(stance_textures_insert(with, with_n, &in, &both, &both_n, &err));
    CHECK(find_tag(both, both_n, "txtr") == plain_n && find_tag(both, both_n, "vcol") > plain_n);
    CHECK_OK(stance_textures_read(both, both_n, &t, &err));
    CHECK(t.image_count == 2 && t.mesh_image[0] == 1 && t.color_count == 1 && !memcmp(t.mesh_colors[0], colors, sizeof colors));
    void *twice = NULL;
    size_t twice_n = 0;
    CHECK_OK(stance_textures_insert(both, both_n, &in, &twice, &twice_n, &err));
    CHECK(twice_n == both_n && !memcmp(twice, both, both_n));
    free(twice);
    twice = NULL;
    /* refused: colours for another vertex count, a count that disagrees, nothing to write */
    stance_textures bad = with_colors(0);
    bad.mesh_vertices[0] = V + 1;
    CHECK_STATUS(stance_textures_insert(plain, plain_n, &bad, &twice, &twice_n, &err), STANCE_ERR_ARGUMENT);
    bad = with_colors(0);
    bad.color_count = 2;
    CHECK_STATUS(stance_textures_insert(plain, plain_n, &bad, &twice, &twice_n, &err), STANCE_ERR_ARGUMENT);
    bad = with_colors(0);
    bad.mesh_colors[0] = NULL, bad.color_count = 0;
    CHECK_STATUS(stance_textures_insert(plain, plain_n, &bad, &twice, &twice_n, &err), STANCE_ERR_ARGUMENT);
    CHECK(twice == NULL);
    free(both);
    free(with);
    stance_asset_free_bytes(plain, plain_n, NULL);
    free_asset(&a);
}

/* Expects the reader to refuse b with a message containing `what`. */
static void refused_as(unsigned char *b, size_t n, const char *what) {
    fix_checksum(b, n);
    stance_textures t;
    stance_error err = {STANCE_OK, ""};
    CHECK_STATUS(stance_textures_read(b, n, &t, &err), STANCE_ERR_FORMAT);
    if (!strstr(err.message, what)) {
        CHECK(!"the message names the problem");
        fprintf(stderr, "  wanted '%s' in: %s\n", what, err.message);
    }
    CHECK(t.image_count == 0 && t.color_count == 0);
}

static void test_colors_corrupt(void) {
    stance_asset a = make_asset();
    void *plain = NULL, *with = NULL;
    size_t plain_n = 0, n = 0;
    CHECK_OK(stance_asset_save_memory(&a, &plain, &plain_n, NULL, NULL));
    stance_textures in = with_colors(1);
    CHECK_OK(stance_textures_insert(plain, plain_n, &in, &with, &n, NULL));
    unsigned char *b = malloc(n + 32);
    const size_t head = find_tag(with, n, "vcol"), body = head + 16, m0 = body + 4, m1 = m0 + 4 + 8 * V;
    CHECK(head > 0 && m1 + 4 == n);
    RESET(), put_u32(b + body, 3), refused_as(b, n, "vertex colour section: 3 meshes; the file has 2");
    RESET(), put_u32(b + m0, V - 1), refused_as(b, n, "vertex colour section: mesh 0 has 3 colours (0 or its 4 vertices)");
    RESET(), put_u32(b + m1, V), refused_as(b, n, "vertex colour section: mesh 1's 4 colours run past the section's end");
    RESET(), put_u32(b + m0, 0), refused_as(b, n, "vertex colour section: mesh 1 has"); /* (mesh 0's colours read as mesh 1's count) */
    RESET(), put_u32(b + head + 8, 4 + 4 + 8 * V + 4 + 4), put_u32(b + 16, (uint32_t)(n + 4 - 32));
    refused_as(b, n + 4, "bytes after the last mesh's colours");
    /* no mesh with colours (a section of 12 bytes) */
    RESET(), put_u32(b + m0, 0), memcpy(b + m0 + 4, b + m1, 4), put_u32(b + head + 8, 12), put_u32(b + 16, (uint32_t)(m0 + 8 - 32));
    refused_as(b, m0 + 8, "no mesh has colours");
    RESET(), put_u32(b + 8, 5), refused_as(b, n, "needs version 6");
    /* a second one */
    RESET(), memcpy(b + n, b + head, 16), memcpy(b + n + 16, b + body, 16);
    put_u32(b + n + 8, 16), put_u32(b + 16, (uint32_t)(n + 32 - 32));
    refused_as(b, n + 32, "vertex colour section: more than one");
    /* the runtime skips it: a corrupt one still loads there */
    RESET(), put_u32(b + m0, V - 1), fix_checksum(b, n);
    stance_asset c;
    CHECK_OK(stance_asset_load_memory(b, n, NULL, &c, NULL));
    stance_asset_destroy(&c);
    /* every truncation and every byte of the section changed: an answer, never a crash */
    stance_textures t;
    int failed = 0;
    for (size_t k = 0; k < n; k++) failed += stance_textures_read(with, k, &t, NULL) != STANCE_OK;
    CHECK(failed == (int)n);
    for (size_t k = head; k < n; k++) {
        RESET();
        b[k] ^= 0x5A;
        fix_checksum(b, n);
        stance_status s = stance_textures_read(b, n, &t, NULL);
        /* a colour's own bytes may be any value; a changed tag is a section the reader does not know */
        CHECK(s == STANCE_ERR_FORMAT || (s == STANCE_OK && ((k >= m0 + 4 && k < m1) || k < head + 4)));
        if (s == STANCE_OK && k < head + 4) CHECK(t.color_count == 0 && t.image_count == 2);
        for (int i = 0; s == STANCE_OK && i < t.mesh_count; i++)
            CHECK(!t.mesh_colors[i] || (t.mesh_colors[i] >= b && t.mesh_colors[i] + 8 * (size_t)t.mesh_vertices[i] <= b + n));
    }
    free(b);
    free(with);
    stance_asset_free_bytes(plain, plain_n, NULL);
    free_asset(&a);
}
#undef RESET

int main(void) {
    make_images();
    RUN(test_round_trip);
    RUN(test_with_graph);
    RUN(test_corrupt);
    RUN(test_colors_round_trip);
    RUN(test_colors_corrupt);
    return check_summary();
}
