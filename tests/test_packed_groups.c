/* tests/test_packed_groups.c - the compressed sampler's rotation tracks,
 * decoded four at once (src/core/clip/clip_packed.c: rot16g, the tracks
 * expanded side by side in groups, st_pgroup), against a scalar decode
 * written here from the .stance v5 lattice stream's description
 * (clip_lattice.h) and the sampler's documented arithmetic (clip_packed.h:
 * keys in the segment's stored order, the dropped component rebuilt as
 * sqrt(1 - the others^2), b into a's order, b to a's hemisphere, nlerp):
 * bit for bit, on every key interval of every clip at the start, the
 * middle and the end of each interval. Clips: the built-in ones compressed
 * at the defaults and, with STANCE_DATA, RobotExpressive imported as
 * `stance import` does by default (compressed at 0.01 cm). Also the
 * resident bytes of RobotExpressive's compressed clips (live bytes of the
 * loaded clips under a counting allocator) against their stored bytes, and
 * the blocks each compressed clip claims to keep at the skeleton's rest
 * translation or scale (st_packed.t_rest, s_rest) against the skeleton.
 * The test also counts the cases it covers (groups with unused lanes, key
 * pairs across segments that dropped different components) and requires
 * each to occur. The translation and scale tracks decoded four at once
 * (vec16g, ST_KIND_VEC16G) are checked the same way against the stream's
 * decode here and the sampler's lerp a + (b - a) u. Each sample is also
 * taken through both copies of the decode (st_packed_sample_as: the
 * baseline SSE2 copy, which an AVX machine never dispatches to, and the VEX
 * copy) and compared byte for byte with stance_clip_sample's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/base/internal.h"
#include "core/clip/clip_lattice.h"
#include "core/clip/clip_packed.h"
#include "core/clip/fused.h"
#include "core/math/simd.h"
#include "stance/build.h"
#include "stance/import.h"
#include "stance/stance.h"
#include "stance_lesson/stance_lesson.h"

static long compared, partial_groups, drop_changes, skipped, vec_compared, vec_groups;
static long loose_compared; /* of compared: loose rotation tracks (not lattice) */
static long encoded[2]; /* samples compared bit for bit in the SSE2 (0) and VEX (1) copies */
static stance_pose scratch; /* the copies' output */

/* Key i of quantized rotation track t (its stream at data + t->offset; a
 * lattice stream decoded here, fixed or segmented bits by st_ptrack_key, the
 * compressor's decode from the stream) in the
 * segment's stored order (x[0..2]) and the rebuilt component x[3]; slot[]
 * the components' places in the quaternion (slot[3] the dropped one). */
static void lat_key(const st_ptrack *t, const unsigned char *data, uint32_t i, float *x, int *slot) {
    if (t->bits != ST_PACK_LAT) { /* fixed bits, or bits within segment ranges: x, y, z stored, w rebuilt */
        st_ptrack_key(t, data, NULL, i, x);
        for (int c = 0; c < 4; c++) slot[c] = c;
        return;
    }
    st_lat_dec dec;
    st_lat_seg seg;
    memset(&seg, 0, sizeof seg);
    st_lat_begin(&dec, data + t->offset, t->n, t->channel == STANCE_CHANNEL_ROTATION, t->ext);
    for (uint32_t s = 0; s <= i / ST_SEG_KEYS; s++) CHECK(st_lat_next(&dec, &seg) == 0);
    const float step = st_lat_step(t->ext, seg.b);
    const uint32_t k = i % ST_SEG_KEYS;
    for (int c = 0; c < 3; c++) {
        const uint32_t lo = seg.lo[c] > seg.hi[c] ? 0 : seg.lo[c];
        const float off = t->min[c] + step * (float)lo;
        x[c] = off + step * (float)(seg.Q[3 * k + (uint32_t)c] - lo);
    }
    const float l = 1.0f - (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    x[3] = l > 0.0f ? sqrtf(l) : 0.0f;
    for (int c = 0, n = 0; c < 4; c++)
        if (c != seg.drop) slot[n++] = c;
    slot[3] = seg.drop;
}

/* The translation or scale of lattice track t at key ia and fraction u, as
 * the sampler computes it (a + (b - a) u per component), into v. */
static void reference_vector(const st_ptrack *t, const unsigned char *data, uint32_t ia, float u, float *v) {
    float a[4], b[4];
    int sa[4], sb[4];
    lat_key(t, data, ia, a, sa);
    lat_key(t, data, ia + (t->n > 1u), b, sb);
    for (int c = 0; c < 3; c++) v[c] = a[c] + (b[c] - a[c]) * u;
}

/* The rotation of lattice track t at key ia and fraction u, as the sampler
 * computes it, into q (x, y, z, w). */
static void reference_rotation(const st_ptrack *t, const unsigned char *data, uint32_t ia, float u, float *q) {
    const uint32_t ib = ia + (t->n > 1u);
    float a[4], b[4];
    int sa[4], sb[4];
    lat_key(t, data, ia, a, sa);
    lat_key(t, data, ib, b, sb);
    if (sa[3] != sb[3]) { /* b into a's order */
        float v[4];
        for (int c = 0; c < 4; c++) v[sb[c]] = b[c];
        for (int c = 0; c < 4; c++) b[c] = v[sa[c]];
        drop_changes++;
    }
    if (a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0.0f)
        for (int c = 0; c < 4; c++) b[c] = -b[c];
    float r[4];
    for (int c = 0; c < 4; c++) r[c] = a[c] + (b[c] - a[c]) * u;
    const float n = 1.0f / sqrtf(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    for (int c = 0; c < 4; c++) q[sa[c]] = r[c] * n;
}

static int same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Every lattice rotation track of compressed clip c, sampled by
 * stance_clip_sample, against the reference. */
static void check_clip(const stance_clip *c, stance_pose *p) {
    const st_packed *pk = c->packed;
    CHECK(pk != NULL);
    if (!pk) return;
    for (int g = 0; g < pk->group_count; g++) partial_groups += pk->groups[g].m < 4;
    vec_groups += pk->vgroup_count;
    const int K = c->key_count;
    for (int k = 0; k < (K > 1 ? K - 1 : 1); k++)
        for (int f = 0; f < 3; f++) {
            const float t = K > 1 ? c->times[k] + (c->times[k + 1] - c->times[k]) * (float)f / 2.0f : 0.0f;
            stance_error err;
            CHECK_OK(stance_clip_sample(c, t, NULL, p, &err));
            float u;
            const float tc = t < c->duration ? t : c->duration;
            const int kk = st_find_key(c, tc, NULL, &u);
            /* both encodings of the sampler's decode (clip_packed.c: the
             * baseline SSE2 copy and, with AVX, the VEX copy), whatever this
             * CPU dispatches to: the same bytes as stance_clip_sample, whose
             * tracks are checked against the reference below */
            const size_t rows = sizeof(float) * 10u * (size_t)p->padded_count;
            for (int vex = 0; vex < 2; vex++) {
                memset(scratch.tx, 0xff, rows);
                if (!st_packed_sample_as(c, kk, tc, &scratch, vex)) continue;
                const int same = !memcmp(scratch.tx, p->tx, rows);
                if (!same) printf("     '%s' at %g: the %s copy differs from stance_clip_sample\n", c->name, (double)t, vex ? "VEX" : "SSE2");
                CHECK(same);
                encoded[vex]++;
            }
            for (int i = 0; i < pk->track_count; i++) {
                const st_ptrack *tr = &pk->tracks[i];
                if (tr->kind == ST_KIND_VEC16G && tr->bits == ST_PACK_LAT) { /* a translation or scale in a group */
                    float v[3];
                    reference_vector(tr, pk->data, (uint32_t)kk, u, v);
                    const float *row = tr->channel == STANCE_CHANNEL_TRANSLATION ? p->tx : p->sx;
                    const size_t pc = (size_t)p->padded_count;
                    int ok = 1;
                    for (int e = 0; e < 3; e++) ok &= same_bits(row[(size_t)e * pc + (size_t)tr->joint], v[e]);
                    if (!ok) printf("     '%s' joint %d channel %d at %g differs from the reference\n", c->name, tr->joint, tr->channel, (double)t);
                    CHECK(ok);
                    vec_compared++;
                    continue;
                }
                if (tr->channel != STANCE_CHANNEL_ROTATION || tr->bits == 0 || tr->bits == ST_PACK_RAW || c->slerp) continue;
                if (st_is_vbr(tr->bits)) { /* v4 streams: not decoded here */
                    skipped++;
                    continue;
                }
                /* lattice tracks of 16 bits at most are grouped; fixed or
                 * segmented bits (the compressor's other search) stay loose,
                 * sampled by the generic decode: compared the same way */
                CHECK(tr->kind == ST_KIND_ROT16G || tr->wide || (tr->bits != ST_PACK_LAT && tr->kind == ST_KIND_ROT16));
                if (tr->kind != ST_KIND_ROT16G && tr->kind != ST_KIND_ROT16) continue;
                if (tr->kind == ST_KIND_ROT16) loose_compared++;
                float q[4];
                reference_rotation(tr, pk->data, (uint32_t)kk, u, q);
                const int j = tr->joint;
                const float got[4] = {p->qx[j], p->qy[j], p->qz[j], p->qw[j]};
                int ok = 1;
                for (int e = 0; e < 4; e++) ok &= same_bits(got[e], q[e]);
                if (!ok)
                    printf("     '%s' joint %d at %g: %.9g %.9g %.9g %.9g, reference %.9g %.9g %.9g %.9g\n", c->name, j,
                           (double)t, (double)got[0], (double)got[1], (double)got[2], (double)got[3], (double)q[0],
                           (double)q[1], (double)q[2], (double)q[3]);
                CHECK(ok);
                compared++;
            }
        }
}

static void test_builtin(void) {
    stance_builtin b;
    stance_error err;
    CHECK_OK(stance_builtin_create(NULL, &b, &err));
    stance_pose p;
    CHECK_OK(stance_pose_create(&p, b.skeleton->joint_count, NULL, NULL));
    CHECK_OK(stance_pose_create(&scratch, b.skeleton->joint_count, NULL, NULL));
    const stance_compress_settings cs = {1e-4f, 0.03f, 0};
    for (int i = 0; i < b.clip_count; i++) {
        stance_clip *z = NULL;
        CHECK_OK(stance_clip_compress(b.clips[i], b.skeleton, &cs, NULL, &z, &err));
        if (z) check_clip(z, &p);
        stance_clip_destroy(z);
    }
    printf("     built-in clips: %ld rotations compared (%ld of loose tracks of fixed or segmented bits)\n", compared, loose_compared);
    stance_pose_destroy(&scratch);
    stance_pose_destroy(&p);
    stance_builtin_destroy(&b);
}

static long rest_blocks_checked;
static int robot_checked; /* RobotExpressive was imported (not in a cross build's io) */

/* st_packed's t_rest / s_rest (the blocks of 4 joints fused.c's pose passes
 * leave as they are when both poses have them): every block a clip claims
 * holds the skeleton's rest translation / scale (padding joints 0 / 1), no
 * -0, when the clip is sampled at the start, the middle and the end of
 * every key interval. */
static void check_rest_blocks(const stance_clip *c, const stance_skeleton *sk, stance_pose *p) {
    const st_packed *pk = c->packed;
    const int J = sk->joint_count, pc = p->padded_count;
    for (int k = 0; k + 1 < c->key_count; k++)
        for (int h = 0; h < 3; h++) {
            const float t = c->times[k] + (c->times[k + 1] - c->times[k]) * 0.5f * (float)h;
            CHECK_OK(stance_clip_sample(c, t, NULL, p, NULL));
            for (int ch = 0; ch < 2; ch++) {
                const unsigned long long m = ch ? pk->s_rest : pk->t_rest;
                const float *row = ch ? p->sx : p->tx;
                for (int b = 0; b < pc / 4 && b < 64; b++) {
                    if (!(m >> b & 1u)) continue;
                    for (int j = 4 * b; j < 4 * b + 4; j++)
                        for (int e = 0; e < 3; e++) {
                            const float v = row[e * pc + j];
                            const float want = j < J ? (ch ? sk->rest[j].s[e] : sk->rest[j].t[e]) : (float)ch;
                            CHECK(v == want && !(v == 0.0f && signbit(v)));
                        }
                    if (k == 0 && h == 0) rest_blocks_checked++;
                }
            }
        }
}

/* An allocator that counts live bytes. */
typedef struct counter {
    size_t live;
} counter;
static void *count_alloc(void *user, size_t size, size_t align) {
    counter *c = user;
    const size_t a = align < sizeof(void *) ? sizeof(void *) : align;
    void *ptr = st_aligned_alloc(a, (size + a) / a * a);
    if (ptr) c->live += size;
    return ptr;
}
static void count_free(void *user, void *ptr, size_t size) {
    counter *c = user;
    c->live -= size;
    st_aligned_free(ptr);
}

static void test_robot_expressive(void) {
    const char *dir = getenv("STANCE_DATA");
    char path[1024];
    snprintf(path, sizeof path, "%s/robot_expressive/RobotExpressive.glb", dir && dir[0] ? dir : "../shared/data");
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("     %s missing: skipped\n", path);
        const char *ci = getenv("CI");
        CHECK(!(ci && strcmp(ci, "true") == 0));
        return;
    }
    fclose(f);
    /* as `stance import` writes it: compressed at the defaults, saved, loaded */
    stance_error err;
    stance_asset a;
    stance_import_options opt = {.scale = 1.0f};
    const stance_status is = stance_import_file(path, &opt, NULL, &a, &err);
    if (is == STANCE_ERR_UNSUPPORTED) { /* a cross build's io has no importers (docs/platforms.md) */
        printf("     RobotExpressive: this build cannot import glTF (%s): skipped\n", err.message);
        return;
    }
    CHECK_OK(is);
    if (is) return;
    const stance_compress_settings cs = {1e-4f, 0.03f, 0};
    CHECK_OK(stance_asset_compress(&a, &cs, &err));
    void *bytes = NULL;
    size_t size = 0;
    CHECK_OK(stance_asset_save_memory(&a, &bytes, &size, NULL, &err));
    stance_asset_destroy(&a);
    counter n = {0};
    const stance_allocator al = {count_alloc, count_free, &n};
    stance_asset b;
    CHECK_OK(stance_asset_load_memory(bytes, size, &al, &b, &err));
    free(bytes);
    stance_pose p;
    CHECK_OK(stance_pose_create(&p, b.skeleton->joint_count, NULL, NULL));
    CHECK_OK(stance_pose_create(&scratch, b.skeleton->joint_count, NULL, NULL));
    const long before = compared;
    size_t stored = 0, resident = 0;
    for (int i = 0; i < b.clip_count; i++) {
        CHECK(stance_clip_is_compressed(b.clips[i]));
        check_clip(b.clips[i], &p);
        check_rest_blocks(b.clips[i], b.skeleton, &p);
        stored += stance_clip_data_bytes(b.clips[i]);
        const size_t live = n.live;
        stance_clip_destroy(b.clips[i]); /* the clip's bytes: what its destruction frees */
        b.clips[i] = NULL;
        resident += live - n.live;
    }
    printf("     RobotExpressive: %ld rotations compared; compressed clips %zu B resident for %zu B stored (%.2fx)\n",
           compared - before, resident, stored, (double)resident / (double)stored);
    CHECK(b.clip_count == 14 && stored == 25408);
    robot_checked = 1;
    /* issue 29: 167,488 B before the default pose was shared with the
     * shell, 155,000 with the groups, 154,304 since a group's segment keeps
     * 4 dropped components instead of 16 slot bytes, 156,944 with the
     * translations' groups (+2,640 B for 126 instructions less per robot.json
     * update), 151,248 since a group's segment keeps one lattice step per
     * lane instead of one per lane and component (only lattice tracks are
     * grouped); the goal of 2x stored is not met (docs/compression.md) */
    CHECK(resident <= 151300);
    printf("     RobotExpressive: %ld blocks of 4 joints at the skeleton's rest translation or scale checked\n", rest_blocks_checked);
    CHECK(rest_blocks_checked > 0);
    stance_pose_destroy(&scratch);
    stance_pose_destroy(&p);
    stance_asset_destroy(&b);
}

/* the cases the tests above covered */
static void test_coverage(void) {
    printf("     %ld rotations compared (%ld of v4 tracks not), %ld groups with unused lanes, %ld key pairs across a change of the dropped component; %ld translations and scales compared in %ld groups\n",
           compared, skipped, partial_groups, drop_changes, vec_compared, vec_groups);
    CHECK(compared > 0 && partial_groups > 0 && drop_changes > 0);
    /* the built-in clips have no translation or scale group: only
     * RobotExpressive's do, and a cross build cannot import it */
    if (robot_checked) CHECK(vec_compared > 0 && vec_groups > 0);
    else printf("     translation and scale groups not covered: RobotExpressive was not imported\n");
    /* the baseline copy runs everywhere; the VEX copy wherever the build
     * has it and the CPU has AVX (this test then covers both on one machine) */
    int vex_here = 0;
#if defined(SV_VEX_COPY)
    vex_here = SV_CPU_HAS_AVX();
#endif
    printf("     decode copies compared with stance_clip_sample: SSE2 (or scalar) %ld samples, VEX %ld%s\n", encoded[0], encoded[1],
           vex_here ? "" : " (not in this build or CPU)");
    CHECK(encoded[0] > 0);
    CHECK(vex_here ? encoded[1] == encoded[0] : encoded[1] == 0);
}

int main(void) {
    RUN(test_builtin);
    RUN(test_robot_expressive);
    RUN(test_coverage);
    return check_summary();
}
