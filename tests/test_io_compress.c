/* tests/test_io_compress.c - compressed clips (stance_clip_compress, .stance
 * v5): the error bound on every shipped asset and the built-in clips, by
 * this test's own measure; the file round trip of compressed clips; exact
 * (tolerance 0) files unchanged and older versions loading (version 3 and 4
 * compressed files, tests/data/builtin_v3.stance and builtin_v4.stance,
 * written by the writers of those versions); the v5 lattice stream from its
 * description; corrupted compressed sections rejected cleanly; the working
 * memory budget.
 *
 * The measure, written here from its definition and not the library's: at
 * every grid key and 3 points between each (4x the key rate), both clips are
 * sampled, each pose is taken to model space here in double precision
 * (quaternion to matrix, times scale, parent first), and for every joint the
 * points at the vertex distance along its three local axes are compared.
 * The largest distance must be within the tolerance.
 *
 * Data: STANCE_DATA and assimp-testmodels (missing files are skipped, or
 * fail when CI=true). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, rmdir */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "core/clip/clip_lattice.h"
#include "core/clip/clip_packed.h"
#include "stance/import.h"
#include "stance/stance.h"
#include "stance/build.h"
#include "stance_lesson/stance_lesson.h"
#include "core/base/platform.h" /* st_aligned_alloc / st_aligned_free */

#define BVH_PATH "/usr/share/assimp/models/BVH/01_01.bvh"
#define CMU_TO_METRES 0.05644 /* the CMU skeleton's unit: 1 / 0.45 inch */

static int in_ci(void) {
    const char *ci = getenv("CI");
    return ci && !strcmp(ci, "true");
}

static int exists(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    if (!f) {
        printf("     %s: %s\n", in_ci() ? "MISSING (CI=true: failing)" : "missing, skipped", path);
        CHECK(!in_ci());
    }
    return f != NULL;
}

static void data_path(char *buf, size_t cap, const char *rel) {
    const char *dir = getenv("STANCE_DATA");
    snprintf(buf, cap, "%s/%s", dir && dir[0] ? dir : "../shared/data", rel);
}

/* model[j] as a 3x4 matrix (rotation-scale rows, then translation). */
static void to_model(const stance_skeleton *sk, const stance_pose *p, double (*m)[12]) {
    for (int j = 0; j < sk->joint_count; j++) {
        double x = p->qx[j], y = p->qy[j], z = p->qz[j], w = p->qw[j];
        double n = sqrt(x * x + y * y + z * z + w * w);
        x /= n, y /= n, z /= n, w /= n;
        double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                          {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                          {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
        double s[3] = {p->sx[j], p->sy[j], p->sz[j]}, t[3] = {p->tx[j], p->ty[j], p->tz[j]};
        double l[12];
        for (int i = 0; i < 3; i++) {
            for (int c = 0; c < 3; c++) l[3 * i + c] = r[i][c] * s[c];
            l[9 + i] = t[i];
        }
        int par = sk->parents[j];
        if (par < 0) {
            memcpy(m[j], l, sizeof l);
            continue;
        }
        const double *a = m[par];
        for (int i = 0; i < 3; i++) {
            for (int c = 0; c < 3; c++) m[j][3 * i + c] = a[3 * i] * l[c] + a[3 * i + 1] * l[3 + c] + a[3 * i + 2] * l[6 + c];
            m[j][9 + i] = a[3 * i] * l[9] + a[3 * i + 1] * l[10] + a[3 * i + 2] * l[11] + a[9 + i];
        }
    }
}

/* Largest vertex distance between clips a and b at 4x the key rate. */
static double measure(const stance_skeleton *sk, const stance_clip *a, const stance_clip *b, double dist) {
    const int J = sk->joint_count;
    stance_pose pa, pb;
    CHECK_OK(stance_pose_create(&pa, J, NULL, NULL));
    CHECK_OK(stance_pose_create(&pb, J, NULL, NULL));
    double (*ma)[12] = malloc(sizeof(double) * 12 * (size_t)J), (*mb)[12] = malloc(sizeof(double) * 12 * (size_t)J);
    double worst = 0.0;
    const int K = a->key_count;
    for (int g = 0; g < K; g++)
        for (int i = 0; i < (g + 1 < K ? 4 : 1); i++) {
            float t = g + 1 < K ? a->times[g] + (a->times[g + 1] - a->times[g]) * (float)i / 4.0f : a->times[g];
            CHECK_OK(stance_clip_sample(a, t, NULL, &pa, NULL));
            CHECK_OK(stance_clip_sample(b, t, NULL, &pb, NULL));
            to_model(sk, &pa, ma);
            to_model(sk, &pb, mb);
            for (int j = 0; j < J; j++)
                for (int ax = 0; ax < 3; ax++) {
                    double d2 = 0.0;
                    for (int r = 0; r < 3; r++) {
                        double va = ma[j][3 * r + ax] * dist + ma[j][9 + r], vb = mb[j][3 * r + ax] * dist + mb[j][9 + r];
                        d2 += (va - vb) * (va - vb);
                    }
                    if (sqrt(d2) > worst) worst = sqrt(d2);
                }
        }
    free(ma), free(mb);
    stance_pose_destroy(&pa);
    stance_pose_destroy(&pb);
    return worst;
}

typedef struct totals {
    size_t raw, stored;
    double worst;
} totals;

/* Compresses every clip of `a` at tol (model units), checks the bound and
 * the reported error against this test's measure, and the file round trip. */
static totals check_asset(const char *what, stance_asset *a, double tol, double dist) {
    totals T = {0, 0, 0.0};
    const stance_skeleton *sk = a->skeleton;
    stance_compress_settings cs = {(float)tol, (float)dist, 0};
    stance_clip **z = calloc((size_t)a->clip_count, sizeof *z);
    for (int i = 0; i < a->clip_count; i++) {
        stance_error err;
        CHECK_OK(stance_clip_compress(a->clips[i], sk, &cs, NULL, &z[i], &err));
        if (!z[i]) continue;
        CHECK(stance_clip_is_compressed(z[i]) && !stance_clip_is_compressed(a->clips[i]));
        double e = measure(sk, a->clips[i], z[i], dist);
        float vd = 0.0f;
        double reported = stance_clip_max_error(z[i], &vd);
        if (!(e <= tol)) printf("     %s '%s': error %.9g > %.9g\n", what, a->clips[i]->name, e, tol);
        CHECK(e <= tol);
        CHECK_NEAR(reported, e, 1e-3 * tol);
        CHECK(vd == (float)dist);
        T.raw += (size_t)40 * (size_t)sk->joint_count * (size_t)a->clips[i]->key_count;
        T.stored += stance_clip_data_bytes(z[i]);
        if (e > T.worst) T.worst = e;
    }
    /* the compressed asset through a file: the same bytes again, the same samples */
    stance_asset c = *a;
    c.clips = z;
    c.graph = NULL;
    void *bytes = NULL, *again = NULL;
    size_t size = 0, size2 = 0;
    stance_error err;
    CHECK_OK(stance_asset_save_memory(&c, &bytes, &size, NULL, &err));
    CHECK(size > 8 && ((unsigned char *)bytes)[8] == STANCE_ASSET_VERSION);
    stance_asset back;
    CHECK_OK(stance_asset_load_memory(bytes, size, NULL, &back, &err));
    if (back.skeleton) {
        CHECK_OK(stance_asset_save_memory(&back, &again, &size2, NULL, &err));
        CHECK(size2 == size && again && !memcmp(bytes, again, size));
        stance_pose p1, p2;
        CHECK_OK(stance_pose_create(&p1, sk->joint_count, NULL, NULL));
        CHECK_OK(stance_pose_create(&p2, sk->joint_count, NULL, NULL));
        int same = 1;
        for (int i = 0; i < a->clip_count && i < back.clip_count; i++) {
            CHECK(stance_clip_data_bytes(back.clips[i]) == stance_clip_data_bytes(z[i]));
            for (float t = 0.0f; t <= z[i]->duration; t += 1.0f / 97.0f) {
                stance_clip_sample(z[i], t, NULL, &p1, NULL);
                stance_clip_sample(back.clips[i], t, NULL, &p2, NULL);
                same &= !memcmp(p1.memory, p2.memory, stance_pose_bytes(sk->joint_count));
            }
        }
        CHECK(same);
        stance_pose_destroy(&p1);
        stance_pose_destroy(&p2);
        stance_asset_free_bytes(again, size2, NULL);
        stance_asset_destroy(&back);
    }
    stance_asset_free_bytes(bytes, size, NULL);
    for (int i = 0; i < a->clip_count; i++) stance_clip_destroy(z[i]);
    free(z);
    printf("     %s: %d clips, raw %zu, stored %zu bytes (%.2f:1), largest error %.6f cm at %.1f cm\n", what,
           a->clip_count, T.raw, T.stored, T.stored ? (double)T.raw / (double)T.stored : 0.0, T.worst * 100.0, dist * 100.0);
    return T;
}

static int import(const char *path, double scale, stance_asset *a) {
    if (!exists(path)) return 0;
    stance_import_options opt = {.scale = (float)scale};
    stance_error err;
    stance_status s = stance_import_file(path, &opt, NULL, a, &err);
    CHECK_OK(s);
    if (s) printf("     %s\n", err.message);
    return s == STANCE_OK;
}

/* The sampler's inline decodes of quantized tracks (no velocity asked)
 * give bit for bit what its general decode gives (the one the velocity
 * sample runs) on every clip of the asset compressed at the defaults, between keys and on
 * them: translations and scales equal, rotations equal up to the sign of
 * the quaternion. */
static void same_as_general_decode(const stance_asset *a) {
    const int J = a->skeleton->joint_count;
    stance_pose p, q, v;
    CHECK_OK(stance_pose_create(&p, J, NULL, NULL));
    CHECK_OK(stance_pose_create(&q, J, NULL, NULL));
    CHECK_OK(stance_pose_create(&v, J, NULL, NULL));
    long compared = 0, differ = 0;
    double worst_r = 0.0;
    for (int i = 0; i < a->clip_count; i++) {
        stance_clip *c = NULL;
        stance_error err;
        CHECK_OK(stance_clip_compress(a->clips[i], a->skeleton, NULL, NULL, &c, &err)); /* the default compression */
        if (!c) continue;
        CHECK(stance_clip_is_compressed(c));
        for (int s = 0; s <= 97; s++) {
            const float t = c->duration * (float)s / 97.0f;
            CHECK_OK(stance_clip_sample(c, t, NULL, &p, NULL));
            CHECK_OK(stance_clip_sample_velocity(c, t, NULL, &q, &v, NULL));
            for (int j = 0; j < J; j++) {
                const float *P[6] = {p.tx, p.ty, p.tz, p.sx, p.sy, p.sz}, *Q[6] = {q.tx, q.ty, q.tz, q.sx, q.sy, q.sz};
                for (int e = 0; e < 6; e++) differ += memcmp(&P[e][j], &Q[e][j], sizeof(float)) != 0;
                const double d = p.qx[j] * q.qx[j] + p.qy[j] * q.qy[j] + p.qz[j] * q.qz[j] + p.qw[j] * q.qw[j];
                if (1.0 - fabs(d) > worst_r) worst_r = 1.0 - fabs(d);
                compared += 6;
            }
        }
        stance_clip_destroy(c);
    }
    printf("     RobotExpressive: %ld translation and scale values, %ld differ from the general decode; rotations 1 - |dot| <= %.2g\n",
           compared, differ, worst_r);
    CHECK(compared > 0 && differ == 0);
    CHECK(worst_r < 1e-6);
    stance_pose_destroy(&p), stance_pose_destroy(&q), stance_pose_destroy(&v);
}

static void test_robot_expressive(void) {
    char path[1024];
    data_path(path, sizeof path, "robot_expressive/RobotExpressive.glb");
    stance_asset a;
    if (!import(path, 1.0, &a)) return;
    totals T = check_asset("RobotExpressive", &a, 1e-4, 0.03);
    CHECK(a.clip_count == 14);
    same_as_general_decode(&a);
    CHECK(T.stored <= 78904); /* ozz-animation 0.16's size at its defaults (issue 16) */
    /* a looser tolerance stores less */
    totals L = check_asset("RobotExpressive at 0.1 cm", &a, 1e-3, 0.03);
    CHECK(L.stored < T.stored);
    stance_asset_destroy(&a);
}

static void test_fox(void) {
    char path[1024];
    data_path(path, sizeof path, "fox/Fox.glb");
    stance_asset a;
    if (!import(path, 1.0, &a)) return;
    /* the fox is about 100 units long: the tolerance in its own units */
    check_asset("Fox", &a, 1e-4, 0.03);
    stance_asset_destroy(&a);
}

static void test_interpolation(void) {
    char path[1024];
    data_path(path, sizeof path, "interpolation_test/interpolation_test.gltf");
    stance_asset a;
    if (!import(path, 1.0, &a)) return;
    check_asset("InterpolationTest", &a, 1e-4, 0.03);
    stance_asset_destroy(&a);
}

/* CMU 01_01 imported as a user would, no flags (issue 29 item 4): the
 * bounds of 0.01 cm and 3 cm in the unit stance_import_unit_cm finds for a
 * BVH; measured by this test's own double-precision model space in file
 * units and converted with CMU's documented unit (1/0.45 inch), not the
 * found one: >= 20:1 at <= 0.01 cm. */
static void test_cmu(void) {
    stance_asset a;
    if (!import(BVH_PATH, 1.0, &a)) return;
    float unit_cm = 0.0f;
    char how[160];
    stance_error err;
    CHECK_OK(stance_import_unit_cm(BVH_PATH, &a, &unit_cm, how, sizeof how, &err));
    printf("     CMU 01_01 unit: %s\n", how);
    CHECK(unit_cm > 1.0f && unit_cm < 10.0f);
    totals T = check_asset("CMU 01_01 (file units, default bounds; its cm = units x 100)", &a, 0.01 / unit_cm, 3.0 / unit_cm);
    const double true_cm = T.worst * CMU_TO_METRES * 100.0;
    printf("     CMU 01_01: largest error %.6f cm in CMU's own unit (%.4f cm)\n", true_cm, CMU_TO_METRES * 100.0);
    CHECK(true_cm <= 0.01);
    CHECK(T.stored > 0 && T.raw >= 20 * T.stored); /* issue 29: >= 20:1 at 0.01 cm with no flags */
    stance_asset_destroy(&a);
}

/* stance_import_unit_cm's rule on BVH skeletons this test writes (a chain
 * straight up with a given span): a span that is a person's size in
 * metres, centimetres or inches is read so; one that is in none is read as
 * 1.5 m; a .glb/.gltf path is metres whatever its size. */
static void test_units(void) {
    static const struct { double span; float want_cm; } cases[] = {
        {1.7, 100.0f}, {170.0, 1.0f}, {1800.0, 0.1f}, {67.0, 2.54f}, {30.0, 5.0f}, {0.3, 500.0f}, {1e4, 0.015f}};
    char dir[] = "/tmp/stance_units_XXXXXX";
    if (!mkdtemp(dir)) { CHECK(0); return; }
    char path[512];
    snprintf(path, sizeof path, "%s/span.bvh", dir);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        if (!f) break;
        const double h = cases[i].span / 2.0;
        fprintf(f, "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
                   "  JOINT Spine\n  {\n    OFFSET 0 %.6f 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
                   "    JOINT Head\n    {\n      OFFSET 0 %.6f 0\n      CHANNELS 3 Zrotation Xrotation Yrotation\n"
                   "      End Site\n      {\n        OFFSET 0 1 0\n      }\n    }\n  }\n}\n"
                   "MOTION\nFrames: 2\nFrame Time: 0.1\n0 0 0 0 0 0 0 0 0 0 0 0\n0 0 0 0 10 0 0 0 0 0 0 0\n", h, h);
        fclose(f);
        stance_asset a;
        if (!import(path, 1.0, &a)) continue;
        float u = 0.0f;
        char how[160];
        stance_error err;
        CHECK_OK(stance_import_unit_cm(path, &a, &u, how, sizeof how, &err));
        if (!(fabs(u - cases[i].want_cm) <= 1e-4 * cases[i].want_cm))
            printf("     span %g: %g cm per unit, want %g (%s)\n", cases[i].span, (double)u, (double)cases[i].want_cm, how);
        CHECK(fabs(u - cases[i].want_cm) <= 1e-4 * cases[i].want_cm);
        CHECK(strstr(how, "BVH") != NULL);
        float g = 0.0f;
        CHECK_OK(stance_import_unit_cm("character.glb", &a, &g, NULL, 0, &err));
        CHECK(g == 100.0f);
        stance_asset_destroy(&a);
    }
    stance_error err;
    float u = 1.0f;
    CHECK(stance_import_unit_cm(NULL, NULL, &u, NULL, 0, &err) == STANCE_ERR_ARGUMENT && u == 0.0f);
    remove(path);
    rmdir(dir);
}

static void test_builtin(void) {
    stance_builtin b;
    stance_error err;
    CHECK_OK(stance_builtin_create(NULL, &b, &err));
    stance_asset a;
    memset(&a, 0, sizeof a);
    a.skeleton = b.skeleton;
    a.clips = b.clips;
    a.clip_count = b.clip_count;
    check_asset("built-in clips", &a, 1e-4, 0.03);
    stance_builtin_destroy(&b);
}

/* Exact mode is today's format: the sections of a version 2 file, and a
 * version 2 header on them still loads to the same clips. */
static void test_exact_and_old(void) {
    stance_builtin b;
    stance_error err;
    CHECK_OK(stance_builtin_create(NULL, &b, &err));
    stance_asset a;
    memset(&a, 0, sizeof a);
    a.skeleton = b.skeleton;
    a.clips = b.clips;
    a.clip_count = b.clip_count;
    unsigned char *bytes = NULL;
    size_t size = 0;
    CHECK_OK(stance_asset_save_memory(&a, (void **)&bytes, &size, NULL, &err));
    if (!bytes) return;
    bytes[8] = 2; /* the version is outside the checksum */
    stance_asset back;
    CHECK_OK(stance_asset_load_memory(bytes, size, NULL, &back, &err));
    if (back.skeleton) {
        CHECK(back.clip_count == a.clip_count);
        for (int i = 0; i < a.clip_count && i < back.clip_count; i++) {
            const stance_clip *x = a.clips[i], *y = back.clips[i];
            CHECK(!stance_clip_is_compressed(y));
            CHECK(x->key_count == y->key_count && stance_clip_data_bytes(x) == stance_clip_data_bytes(y));
            if (stance_clip_data_bytes(x) == stance_clip_data_bytes(y)) {
                size_t pc = (size_t)x->padded_count;
                CHECK(!memcmp(x->r, y->r, sizeof(float) * 4 * pc * (size_t)x->r_keys));
                CHECK(!memcmp(x->t, y->t, sizeof(float) * 3 * pc * (size_t)x->t_keys));
            }
        }
        stance_asset_destroy(&back);
    }
    stance_asset_free_bytes(bytes, size, NULL);
    stance_builtin_destroy(&b);
}

static void fix_checksum(unsigned char *b, size_t size) {
    uint64_t h = stance_asset_checksum(b + 32, size - 32);
    for (int i = 0; i < 8; i++) b[24 + i] = (unsigned char)(h >> (8 * i));
}

/* Every truncation and every bit flip of a compressed file (checksum made
 * valid again) loads or fails cleanly; a loaded one samples to finite unit
 * rotations. */
static void test_corrupt(void) {
    stance_builtin b;
    stance_error err;
    CHECK_OK(stance_builtin_create(NULL, &b, &err));
    stance_clip *z[3] = {NULL, NULL, NULL};
    stance_compress_settings cs = {1e-3f, 0.03f, 0}, fine = {1e-4f, 0.03f, 0};
    CHECK_OK(stance_clip_compress(b.clips[0], b.skeleton, &cs, NULL, &z[0], &err));
    CHECK_OK(stance_clip_compress(b.clips[4], b.skeleton, &cs, NULL, &z[1], &err));
    /* clip 5 at 0.01 cm takes the per-segment bit rates (v5 VBR tracks) */
    CHECK_OK(stance_clip_compress(b.clips[5], b.skeleton, &fine, NULL, &z[2], &err));
    int vbr = 0;
    for (int i = 0; z[2] && i < z[2]->packed->track_count; i++) vbr += z[2]->packed->tracks[i].bits == ST_PACK_LAT;
    CHECK(vbr > 0);
    stance_asset a;
    memset(&a, 0, sizeof a);
    a.skeleton = b.skeleton;
    a.clips = z;
    a.clip_count = 3;
    unsigned char *bytes = NULL;
    size_t size = 0;
    CHECK_OK(stance_asset_save_memory(&a, (void **)&bytes, &size, NULL, &err));
    unsigned char *copy = malloc(size);
    stance_pose p;
    CHECK_OK(stance_pose_create(&p, b.skeleton->joint_count, NULL, NULL));
    int loaded = 0, rejected = 0, bad = 0;
    for (size_t off = 32; off < size; off++)
        for (int bit = 0; bit < 8; bit++) {
            memcpy(copy, bytes, size);
            copy[off] ^= (unsigned char)(1u << bit);
            fix_checksum(copy, size);
            stance_asset back;
            if (stance_asset_load_memory(copy, size, NULL, &back, &err)) {
                rejected++;
                continue;
            }
            loaded++;
            for (int i = 0; i < back.clip_count; i++)
                for (int k = 0; k <= 8; k++) {
                    stance_clip_sample(back.clips[i], back.clips[i]->duration * (float)k / 8.0f, NULL, &p, NULL);
                    for (int j = 0; j < p.joint_count; j++) {
                        double n = (double)p.qx[j] * p.qx[j] + (double)p.qy[j] * p.qy[j] + (double)p.qz[j] * p.qz[j] + (double)p.qw[j] * p.qw[j];
                        bad += !(fabs(n - 1.0) < 1e-3) || !isfinite(p.tx[j] + p.ty[j] + p.tz[j] + p.sx[j] + p.sy[j] + p.sz[j]);
                    }
                }
            stance_asset_destroy(&back);
        }
    for (size_t n = 32; n < size; n += 3) {
        memcpy(copy, bytes, n);
        stance_asset back;
        CHECK(stance_asset_load_memory(copy, n, NULL, &back, &err) != STANCE_OK);
    }
    printf("     bit flips of a %zu-byte compressed file: %d rejected, %d loaded\n", size, rejected, loaded);
    CHECK(bad == 0 && rejected > 0);
    stance_pose_destroy(&p);
    free(copy);
    stance_asset_free_bytes(bytes, size, NULL);
    stance_clip_destroy(z[0]);
    stance_clip_destroy(z[1]);
    stance_clip_destroy(z[2]);
    stance_builtin_destroy(&b);
}

/* Velocity of a compressed clip: translations are linear inside a key
 * interval, so a finite difference of two samples there gives them; the
 * angular velocity is near the exact clip's (both are interval rotation
 * vectors; the compressed clip's intervals may span several grid keys). */
static void test_velocity(void) {
    stance_builtin b;
    stance_error err;
    CHECK_OK(stance_builtin_create(NULL, &b, &err));
    const stance_clip *x = stance_builtin_clip(&b, "walk");
    stance_clip *z = NULL;
    CHECK_OK(stance_clip_compress(x, b.skeleton, NULL, NULL, &z, &err));
    const int J = b.skeleton->joint_count;
    stance_pose p0, p1, v, ve, pe;
    CHECK_OK(stance_pose_create(&p0, J, NULL, NULL));
    CHECK_OK(stance_pose_create(&p1, J, NULL, NULL));
    CHECK_OK(stance_pose_create(&v, J, NULL, NULL));
    CHECK_OK(stance_pose_create(&ve, J, NULL, NULL));
    CHECK_OK(stance_pose_create(&pe, J, NULL, NULL));
    double worst_t = 0.0, worst_w = 0.0, top_w = 0.0;
    for (int k = 0; z && k + 1 < x->key_count; k += 3) {
        float a = x->times[k], span = x->times[k + 1] - a, t = a + 0.4f * span, h = 0.2f * span;
        CHECK_OK(stance_clip_sample_velocity(z, t, NULL, &p0, &v, NULL));
        CHECK_OK(stance_clip_sample(z, t + h, NULL, &p1, NULL));
        CHECK_OK(stance_clip_sample_velocity(x, t, NULL, &pe, &ve, NULL));
        for (int j = 0; j < J; j++) {
            double fd[3] = {(p1.tx[j] - p0.tx[j]) / h, (p1.ty[j] - p0.ty[j]) / h, (p1.tz[j] - p0.tz[j]) / h};
            double d = fabs(fd[0] - v.tx[j]) + fabs(fd[1] - v.ty[j]) + fabs(fd[2] - v.tz[j]);
            if (d > worst_t) worst_t = d;
            double dw = fabs(v.qx[j] - ve.qx[j]) + fabs(v.qy[j] - ve.qy[j]) + fabs(v.qz[j] - ve.qz[j]);
            if (dw > worst_w) worst_w = dw;
            double mag = fabs(ve.qx[j]) + fabs(ve.qy[j]) + fabs(ve.qz[j]);
            if (mag > top_w) top_w = mag;
            CHECK(v.qw[j] == 0.0f);
        }
    }
    printf("     walk: translation velocity vs finite difference %.2g m/s, angular velocity vs exact %.3g of up to %.3g rad/s\n",
           worst_t, worst_w, top_w);
    CHECK(worst_t < 1e-3);
    CHECK(top_w > 0.5 && worst_w < 0.25 * top_w);
    stance_pose_destroy(&p0), stance_pose_destroy(&p1), stance_pose_destroy(&v), stance_pose_destroy(&ve), stance_pose_destroy(&pe);
    stance_clip_destroy(z);
    stance_builtin_destroy(&b);
}

/* Bad arguments give a status and a message. */
static void test_arguments(void) {
    stance_builtin b;
    stance_error err;
    CHECK_OK(stance_builtin_create(NULL, &b, &err));
    stance_clip *z = NULL;
    CHECK_STATUS(stance_clip_compress(NULL, b.skeleton, NULL, NULL, &z, &err), STANCE_ERR_ARGUMENT);
    stance_compress_settings bad = {-1.0f, 0.0f, 0};
    CHECK_STATUS(stance_clip_compress(b.clips[0], b.skeleton, &bad, NULL, &z, &err), STANCE_ERR_VALUE);
    bad.max_error = NAN;
    CHECK_STATUS(stance_clip_compress(b.clips[0], b.skeleton, &bad, NULL, &z, &err), STANCE_ERR_VALUE);
    CHECK(z == NULL && err.message[0]);
    CHECK_OK(stance_clip_compress(b.clips[0], b.skeleton, NULL, NULL, &z, &err));
    stance_clip *zz = NULL;
    CHECK_STATUS(stance_clip_compress(z, b.skeleton, NULL, NULL, &zz, &err), STANCE_ERR_ARGUMENT);
    CHECK(stance_clip_max_error(b.clips[0], NULL) == 0.0f);
    stance_clip_destroy(z);
    stance_builtin_destroy(&b);
}

/* An older compressed file (tests/data/NAME, two built-in clips compressed
 * at tol by the writer of its version): it loads, samples within its
 * recorded error of the exact built-in clips by this test's measure, and
 * saved again it is the current version and samples bit for bit the same. */
static void old_file(const char *name, double tol) {
    const char *src = getenv("STANCE_SOURCE");
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/%s", src ? src : ".", name);
    stance_asset a;
    stance_error err;
    CHECK_OK(stance_asset_load_file(path, NULL, &a, &err));
    if (!a.skeleton) return;
    stance_builtin b;
    CHECK_OK(stance_builtin_create(NULL, &b, &err));
    CHECK(a.clip_count == 2 && a.skeleton->joint_count == b.skeleton->joint_count);
    for (int i = 0; i < a.clip_count && i < 2; i++) {
        const stance_clip *z = a.clips[i], *x = stance_asset_find_clip(&(stance_asset){.clips = b.clips, .clip_count = b.clip_count}, z->name);
        CHECK(x != NULL && stance_clip_is_compressed(z));
        if (!x) continue;
        float vd = 0.0f;
        double recorded = stance_clip_max_error(z, &vd), e = measure(b.skeleton, x, z, vd);
        printf("     %s '%s': error %.6f cm, recorded %.6f cm\n", name, z->name, e * 100.0, recorded * 100.0);
        CHECK(recorded > 0.0 && recorded <= tol && vd == 0.03f);
        CHECK(e <= tol && fabs(e - recorded) <= 1e-3 * tol);
    }
    void *bytes = NULL;
    size_t size = 0;
    CHECK_OK(stance_asset_save_memory(&a, &bytes, &size, NULL, &err));
    CHECK(size > 8 && ((unsigned char *)bytes)[8] == STANCE_ASSET_VERSION);
    stance_asset back;
    CHECK_OK(stance_asset_load_memory(bytes, size, NULL, &back, &err));
    if (back.skeleton) {
        stance_pose p1, p2;
        CHECK_OK(stance_pose_create(&p1, a.skeleton->joint_count, NULL, NULL));
        CHECK_OK(stance_pose_create(&p2, a.skeleton->joint_count, NULL, NULL));
        int same = 1;
        for (int i = 0; i < a.clip_count; i++)
            for (float t = 0.0f; t <= a.clips[i]->duration; t += 1.0f / 97.0f) {
                stance_clip_sample(a.clips[i], t, NULL, &p1, NULL);
                stance_clip_sample(back.clips[i], t, NULL, &p2, NULL);
                same &= !memcmp(p1.memory, p2.memory, stance_pose_bytes(a.skeleton->joint_count));
            }
        CHECK(same);
        stance_pose_destroy(&p1);
        stance_pose_destroy(&p2);
        stance_asset_destroy(&back);
    }
    stance_asset_free_bytes(bytes, size, NULL);
    stance_builtin_destroy(&b);
    stance_asset_destroy(&a);
}

/* Version 3: the built-in idle and wave at 0.1 cm (fixed and segmented
 * tracks); version 4: jump and lean at 0.01 cm (every track a bit rate per
 * segment), both written before the next version. */
static void test_old_files(void) {
    old_file("builtin_v3.stance", 1e-3);
    old_file("builtin_v4.stance", 1e-4);
}

/* The v5 lattice stream (clip_lattice.h) from its description alone: a
 * writer here codes a two-joint clip's translation track of 20 keys (two
 * segments at 4 and 5 bits, one component constant) with Rice codes, an
 * all-predicted component, escapes and a bit rate change; sampled at its keys
 * it gives min + ext_max 2^-b Q. Streams with a key off its lattice, a short
 * stream, a bad code byte or a dropped component on a translation are
 * rejected. */
typedef struct bitw {
    unsigned char b[256];
    size_t pos;
} bitw;
static void put(bitw *w, uint64_t v, int n) {
    for (int i = 0; i < n; i++, w->pos++)
        if (v >> i & 1u) w->b[w->pos >> 3] |= (unsigned char)(1u << (w->pos & 7u));
}
/* Rice code of residual r with parameter k, or the escape with q in b + 1 bits. */
static void rice(bitw *w, long r, int k, int esc, long q, int b) {
    const unsigned long u = r >= 0 ? 2ul * (unsigned long)r : 2ul * (unsigned long)(-r) - 1ul;
    if (esc) {
        put(w, (1u << 24) - 1u, 24);
        put(w, (uint64_t)q, b + 1);
        return;
    }
    for (unsigned long i = 0; i < u >> k; i++) put(w, 1, 1);
    put(w, 0, 1);
    put(w, u, k);
}
static void test_lattice_stream(void) {
    stance_error err;
    const int parents[2] = {-1, 0};
    stance_skeleton *sk = NULL;
    CHECK_OK(stance_skeleton_create(&(stance_skeleton_desc){2, NULL, parents, NULL}, NULL, &sk, &err));
    if (!sk) return;
    enum { K = 20 };
    float times[K];
    for (int k = 0; k < K; k++) times[k] = (float)k / 30.0f;
    /* component 0: Q on 4 bits then (x 2) on 5; component 1: 0 in segment 0 (all predicted), then escapes and k 1 */
    long q0[K], q1[K];
    for (int k = 0; k < 16; k++) q0[k] = k < 8 ? k : 15 - k / 2, q1[k] = 0;
    for (int k = 16; k < K; k++) q0[k] = 2 * q0[15] + (k - 15), q1[k] = 20 + (k - 16) * 3;
    const float mn[3] = {-0.5f, 0.25f, 2.0f}, ext[3] = {1.0f, 0.75f, 0.0f};
    unsigned char stream[300];
    memset(stream, 0, sizeof stream);
    bitw w;
    memset(&w, 0, sizeof w);
    /* segment 0 (b 4): k = 1 for component 0, 15 (none) for component 1 */
    put(&w, 1, 4), put(&w, 15, 4);
    for (int k = 0; k < 16; k++) {
        long p = k == 0 ? 0 : k == 1 ? q0[0] : 2 * q0[k - 1] - q0[k - 2];
        p = p < 0 ? 0 : p > 16 ? 16 : p;
        rice(&w, q0[k] - p, 1, k == 0, q0[k], 4);
    }
    /* segment 1 (b 5): the history doubled; k = 2 and 1; component 1's first key escapes */
    put(&w, 2, 4), put(&w, 1, 4);
    long h0a = 2 * q0[15], h0b = 2 * q0[14], h1a = 0, h1b = 0;
    for (int k = 16; k < K; k++) {
        long p0 = 2 * h0a - h0b, p1 = 2 * h1a - h1b;
        p0 = p0 < 0 ? 0 : p0 > 32 ? 32 : p0, p1 = p1 < 0 ? 0 : p1 > 32 ? 32 : p1;
        rice(&w, q0[k] - p0, 2, 0, q0[k], 5);
        rice(&w, q1[k] - p1, 1, k == 16, q1[k], 5);
        h0b = h0a, h0a = q0[k], h1b = h1a, h1a = q1[k];
    }
    const size_t body = (w.pos + 7) / 8;
    stream[0] = 4, stream[1] = 5;
    for (int i = 0; i < 4; i++) stream[2 + i] = (unsigned char)(body >> (8 * i));
    memcpy(stream + 6, w.b, body);
    st_ptrack_desc t;
    memset(&t, 0, sizeof t);
    t.joint = 1, t.channel = STANCE_CHANNEL_TRANSLATION, t.bits = ST_PACK_LAT;
    memcpy(t.min, mn, sizeof mn), memcpy(t.ext, ext, sizeof ext);
    t.data = stream, t.data_bytes = 6 + body;
    st_packed_desc d;
    memset(&d, 0, sizeof d);
    d.name = "lattice", d.duration = times[K - 1], d.key_count = K, d.times = times;
    d.track_count = 1, d.tracks = &t;
    stance_clip *c = NULL;
    CHECK_OK(st_clip_create_packed(&d, sk, NULL, &c, &err));
    if (c) {
        stance_pose p;
        CHECK_OK(stance_pose_create(&p, 2, NULL, NULL));
        double worst = 0.0;
        for (int k = 0; k < K; k++) {
            stance_clip_sample(c, times[k], NULL, &p, NULL);
            const int b = k < 16 ? 4 : 5;
            const double step = 1.0 / (1 << b);
            const double want[3] = {mn[0] + step * (double)q0[k], mn[1] + step * (double)q1[k], mn[2]};
            const double got[3] = {p.tx[1], p.ty[1], p.tz[1]};
            for (int e = 0; e < 3; e++) worst = fmax(worst, fabs(got[e] - want[e]));
        }
        CHECK(worst <= 1e-6);
        stance_pose_destroy(&p);
        stance_clip_destroy(c);
    }
    /* broken copies */
    unsigned char bad[300];
    t.data = bad;
    memcpy(bad, stream, sizeof bad);
    bad[0] = 4 | 0x80; /* bit 7 */
    CHECK_STATUS(st_clip_create_packed(&d, sk, NULL, &c, &err), STANCE_ERR_VALUE);
    bad[0] = 4 | 1 << 5; /* a dropped component on a translation */
    CHECK_STATUS(st_clip_create_packed(&d, sk, NULL, &c, &err), STANCE_ERR_VALUE);
    bad[0] = 3; /* segment 0 at 3 bits: its keys above 8 leave the lattice */
    CHECK_STATUS(st_clip_create_packed(&d, sk, NULL, &c, &err), STANCE_ERR_VALUE);
    CHECK(c == NULL && strstr(err.message, "segment 0"));
    memcpy(bad, stream, sizeof bad);
    t.data_bytes = 5 + body; /* one byte short of what the size says */
    CHECK_STATUS(st_clip_create_packed(&d, sk, NULL, &c, &err), STANCE_ERR_ARGUMENT);
    t.data_bytes = 0;
    CHECK_STATUS(st_clip_create_packed(&d, sk, NULL, &c, &err), STANCE_ERR_ARGUMENT);
    t.data_bytes = 6 + body;
    bad[2] = (unsigned char)(body - 2); /* the size leaves the last keys out */
    t.data_bytes = 4 + body;
    CHECK_STATUS(st_clip_create_packed(&d, sk, NULL, &c, &err), STANCE_ERR_VALUE);
    CHECK(c == NULL && strstr(err.message, "segment 1"));
    stance_skeleton_destroy(sk);
}

/* An allocator that counts live bytes and their peak. */
typedef struct counter {
    size_t live, peak;
} counter;
static void *count_alloc(void *user, size_t size, size_t align) {
    counter *c = user;
    const size_t a = align < sizeof(void *) ? sizeof(void *) : align;
    void *p = st_aligned_alloc(a, (size + a) / a * a);
    if (!p) return NULL;
    c->live += size;
    if (c->live > c->peak) c->peak = c->live;
    return p;
}
static void count_free(void *user, void *ptr, size_t size) {
    counter *c = user;
    c->live -= size;
    st_aligned_free(ptr);
}

/* The working memory: what stance_clip_compress_memory says bounds what is
 * allocated besides the result, and a budget under it is a clear error. */
static void test_memory(void) {
    stance_builtin b;
    stance_error err;
    CHECK_OK(stance_builtin_create(NULL, &b, &err));
    stance_asset cmu;
    int have_cmu = import(BVH_PATH, CMU_TO_METRES, &cmu);
    for (int k = 0; k < b.clip_count + have_cmu; k++) {
        const stance_clip *c = k < b.clip_count ? b.clips[k] : cmu.clips[0];
        const stance_skeleton *sk = k < b.clip_count ? b.skeleton : cmu.skeleton;
        const size_t need = stance_clip_compress_memory(c, sk);
        CHECK(need > 0);
        counter n = {0, 0};
        stance_allocator al = {count_alloc, count_free, &n};
        stance_compress_settings cs = {1e-4f, 0.03f, need};
        stance_clip *z = NULL;
        if (k == b.clip_count) { /* CMU (compressed by test_cmu): the budget only */
            cs.max_memory = need - 1;
            CHECK_STATUS(stance_clip_compress(c, sk, &cs, &al, &z, &err), STANCE_ERR_MEMORY);
            CHECK(z == NULL && n.peak == 0 && strstr(err.message, "working memory"));
            printf("     CMU 01_01: %.1f MB of working memory: %s\n", need / 1048576.0, err.message);
            continue;
        }
        CHECK_OK(stance_clip_compress(c, sk, &cs, &al, &z, &err));
        const size_t result = n.live;
        if (n.peak > need + result) printf("     '%s': peak %zu > %zu + %zu\n", c->name, n.peak, need, result);
        CHECK(n.peak <= need + result);
        stance_clip_destroy(z);
        CHECK(n.live == 0);
        cs.max_memory = need - 1;
        z = NULL;
        CHECK_STATUS(stance_clip_compress(c, sk, &cs, &al, &z, &err), STANCE_ERR_MEMORY);
        CHECK(z == NULL && strstr(err.message, "working memory") && n.peak <= need + result);
        if (k == 0) printf("     '%s': %.2f MB of working memory, peak %.2f MB besides the result\n", c->name, need / 1048576.0, (n.peak - result) / 1048576.0);
    }
    if (have_cmu) stance_asset_destroy(&cmu);
    stance_builtin_destroy(&b);
}

int main(void) {
    RUN(test_arguments);
    RUN(test_old_files);
    RUN(test_lattice_stream);
    RUN(test_memory);
    RUN(test_builtin);
    RUN(test_velocity);
    RUN(test_exact_and_old);
    RUN(test_corrupt);
    RUN(test_robot_expressive);
    RUN(test_fox);
    RUN(test_interpolation);
    RUN(test_cmu);
    RUN(test_units);
    return check_summary();
}
