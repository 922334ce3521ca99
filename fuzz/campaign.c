/* fuzz/campaign.c - the systematic mutation campaign over one .stance file
 * (issue 22). Every byte of the file is mutated, each in the smallest file
 * that still means something: the file is cut into parts (the skeleton and
 * skins; the skeleton and one clip, for each clip; the skeleton, the skins
 * and one mesh, for each mesh; the skeleton, every clip and the compiled
 * graph), each part a valid .stance file of its own (checked), and each
 * byte of the part's own sections (and, in the first part, the file
 * header) is mutated there:
 *   flip      the byte inverted (x ^ 0xff); inside CLIP sections (the clips'
 *             key streams, compressed or exact) and the GRPH section (a
 *             compiled graph) each of its 8 bits flipped alone as well;
 *   truncate  the file cut to end at that byte;
 *   extend    one 0x00 byte inserted there (the rest moves up by one).
 * Each mutated copy is loaded as it is and with its header's payload size
 * and checksum made to match, so the mutation reaches the parser. Every copy
 * must load or be refused with a message and nothing left behind; one that
 * loads is used through fuzz/exercise.c (clips sampled, skins, a compiled
 * graph run 60 frames, every output finite, saved and loaded back). Anything
 * else aborts (fuzz/run.sh builds it with ASan + UBSan).
 *
 *   campaign FILE [--shard K/N]   only the parts' bytes i with i % N == K
 * prints a line per section kind and the total:
 *   "campaign FILE: M mutations of B bytes, L loaded, R refused, 0 faults" */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exercise.h"

enum { K_HEADER, K_HEAD, K_SKEL, K_CLIP, K_SKIN, K_MESH, K_GRPH, K_COUNT };
static const char *const kind_name[K_COUNT] = {"file header", "section heads", "SKEL", "CLIP", "SKIN", "MESH", "GRPH"};
static const char tags[K_COUNT][5] = {"", "", "SKEL", "CLIP", "SKIN", "MESH", "GRPH"};

typedef struct tally {
    long long bytes, mutations, loaded, refused;
} tally;

typedef struct section {
    size_t at, len; /* the head's offset; head + body bytes */
    int kind;
} section;

static unsigned long long rd64(const unsigned char *p) {
    unsigned long long v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static void mutate_at(tally *t, int kind, const unsigned char *part, size_t n, size_t i, unsigned char *work) {
    t->bytes++;
    memcpy(work, part, n);
    work[i] ^= 0xff;
    fz_outcome o = fz_load_both(work, n);
    t->mutations++, o.loaded_fixed ? t->loaded++ : t->refused++;
    for (int bit = 0; (kind == K_CLIP || kind == K_GRPH) && bit < 8; bit++) {
        memcpy(work, part, n);
        work[i] ^= (unsigned char)(1u << bit);
        o = fz_load_both(work, n);
        t->mutations++, o.loaded_fixed ? t->loaded++ : t->refused++;
    }
    o = fz_load_both(part, i); /* truncated: the part up to byte i */
    t->mutations++, o.loaded_fixed ? t->loaded++ : t->refused++;
    memcpy(work, part, i); /* extended: a 0 inserted at i */
    work[i] = 0;
    memcpy(work + i + 1, part + i, n - i);
    o = fz_load_both(work, n + 1);
    t->mutations++, o.loaded_fixed ? t->loaded++ : t->refused++;
}

/* one part: the file header and the sections in `use` (in file order); the
 * bytes of the sections in `own` (and the header when `header`) are mutated */
static int part(const unsigned char *file, const section *sec, int count, const int *use, const int *own, int header,
                long shard, long shards, tally *t, size_t *global) {
    size_t n = 32;
    for (int s = 0; s < count; s++)
        if (use[s]) n += sec[s].len;
    unsigned char *p = malloc(n), *work = malloc(n + 1), *kind = malloc(n);
    size_t *origin = malloc(n * sizeof *origin);
    if (!p || !work || !kind || !origin) { free(p), free(work), free(kind), free(origin); return 0; }
    memcpy(p, file, 32);
    memset(kind, 255, n);
    if (header) memset(kind, K_HEADER, 32);
    for (size_t i = 0; i < 32; i++) origin[i] = i;
    size_t at = 32;
    for (int s = 0; s < count; s++) {
        if (!use[s]) continue;
        memcpy(p + at, file + sec[s].at, sec[s].len);
        for (size_t i = 0; i < sec[s].len; i++) {
            origin[at + i] = sec[s].at + i;
            if (own[s]) kind[at + i] = i < 16 ? K_HEAD : (unsigned char)sec[s].kind;
        }
        at += sec[s].len;
    }
    fz_fix_header(p, n);
    int ok = fz_load_both(p, n).loaded;
    if (!ok) fprintf(stderr, "campaign: a part of %zu bytes does not load\n", n);
    for (size_t i = 0; ok && i < n; i++)
        if (kind[i] != 255 && (long)(origin[i] % (size_t)shards) == shard) mutate_at(&t[kind[i]], kind[i], p, n, i, work);
    for (size_t i = 0; ok && i < n; i++) *global += kind[i] != 255;
    free(p), free(work), free(kind), free(origin);
    return ok;
}

int main(int argc, char **argv) {
    long shard = 0, shards = 1;
    if (argc == 4 && !strcmp(argv[2], "--shard")) {
        if (sscanf(argv[3], "%ld/%ld", &shard, &shards) != 2 || shards < 1 || shard < 0 || shard >= shards) {
            fprintf(stderr, "campaign: --shard takes K/N with 0 <= K < N\n");
            return 2;
        }
    } else if (argc != 2) {
        fprintf(stderr, "usage: campaign FILE [--shard K/N]\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { fprintf(stderr, "campaign: cannot open %s\n", argv[1]); return 2; }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (len < 48) { fprintf(stderr, "campaign: %s is not a .stance file\n", argv[1]); fclose(f); return 2; }
    size_t n = (size_t)len;
    unsigned char *file = malloc(n);
    if (!file || fread(file, 1, n, f) != n) { fprintf(stderr, "campaign: cannot read %s\n", argv[1]); return 2; }
    fclose(f);
    if (!fz_load_both(file, n).loaded) { fprintf(stderr, "campaign: %s itself does not load\n", argv[1]); return 2; }
    /* the sections (the loader has just checked them) */
    int count = 0;
    section *sec = malloc(sizeof *sec * (n / 16));
    for (size_t at = 32; sec && at + 16 <= n; count++) {
        size_t body = (size_t)rd64(file + at + 8);
        sec[count].at = at, sec[count].len = 16 + body, sec[count].kind = K_HEAD;
        for (int k = K_SKEL; k < K_COUNT; k++)
            if (!memcmp(file + at, tags[k], 4)) sec[count].kind = k;
        at += 16 + body;
    }
    int *use = calloc((size_t)count + 1, sizeof *use), *own = calloc((size_t)count + 1, sizeof *own);
    if (!sec || !use || !own) return 2;
    tally t[K_COUNT];
    memset(t, 0, sizeof t);
    size_t covered = 0;
    int ok = 1;
#define PART(USE, OWN, HEADER)                                                   \
    do {                                                                         \
        for (int s = 0; s < count; s++) use[s] = (USE), own[s] = (OWN);         \
        ok &= part(file, sec, count, use, own, HEADER, shard, shards, t, &covered); \
    } while (0)
    /* the skeleton and the skins, with the file header */
    PART(sec[s].kind == K_SKEL || sec[s].kind == K_SKIN, sec[s].kind == K_SKEL || sec[s].kind == K_SKIN, 1);
    for (int c = 0; c < count; c++) {
        if (sec[c].kind == K_CLIP) PART(sec[s].kind == K_SKEL || s == c, s == c, 0);
        if (sec[c].kind == K_MESH) PART(sec[s].kind == K_SKEL || sec[s].kind == K_SKIN || s == c, s == c, 0);
        if (sec[c].kind == K_GRPH) PART(sec[s].kind == K_SKEL || sec[s].kind == K_CLIP || s == c, s == c, 0);
    }
#undef PART
    if (!ok) return 1;
    if (covered != n) {
        fprintf(stderr, "campaign: the parts cover %zu of the file's %zu bytes\n", covered, n);
        return 1;
    }
    tally all = {0, 0, 0, 0};
    for (int k = 0; k < K_COUNT; k++) {
        if (!t[k].bytes) continue;
        printf("  %-13s %8lld bytes, %9lld mutations: %8lld loaded, %8lld refused\n", kind_name[k], t[k].bytes, t[k].mutations,
               t[k].loaded, t[k].refused);
        all.bytes += t[k].bytes, all.mutations += t[k].mutations, all.loaded += t[k].loaded, all.refused += t[k].refused;
    }
    printf("campaign %s (shard %ld/%ld): %lld mutations of %lld bytes, %lld loaded, %lld refused, 0 faults\n", argv[1], shard,
           shards, all.mutations, all.bytes, all.loaded, all.refused);
    free(file), free(sec), free(use), free(own);
    return 0;
}
