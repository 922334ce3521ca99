/* fuzz/fuzz_compiled.c - libFuzzer target for compiled graphs: .stance files
 * with a GRPH section (`stance compile`; the seeds are the shipped graphs
 * compiled, robot_footlock.json among them, fuzz/make_corpus.sh --compiled).
 * Its mutator aims where a compiled graph is fragile: half the mutations
 * land in a CLIP section's body (the clips' key streams, compressed or
 * exact), a quarter in the GRPH section (parameters, machines, states,
 * transitions, layers, IK and foot locking), a quarter anywhere; the
 * section's size field follows a length change half the time, and the
 * header's payload size and checksum are always made to match, so every
 * mutation reaches the parser. An input that loads is used as
 * fuzz/exercise.c says (the graph run 60 frames, every output finite).
 *
 * Build and run: FUZZ_TARGET=compiled fuzz/run.sh. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exercise.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_load_both(data, size);
    return 0;
}

typedef struct section {
    size_t head; /* offset of the 16-byte head */
    size_t body, size;
    int kind;    /* 1 CLIP, 2 GRPH, 0 other */
} section;

static uint64_t rd64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static int sections(const uint8_t *b, size_t n, section *out, int cap) {
    int count = 0;
    size_t at = 32;
    while (count < cap && n >= 16 && at <= n - 16) {
        uint64_t size = rd64(b + at + 8);
        if (size > n - at - 16) break;
        out[count].head = at;
        out[count].body = at + 16;
        out[count].size = (size_t)size;
        out[count].kind = !memcmp(b + at, "CLIP", 4) ? 1 : !memcmp(b + at, "GRPH", 4) ? 2 : 0;
        count++;
        at += 16 + (size_t)size;
    }
    return count;
}

static uint32_t next(uint32_t *s) {
    *s ^= *s << 13, *s ^= *s >> 17, *s ^= *s << 5;
    return *s;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    uint32_t rng = seed | 1u;
    section sec[4200];
    int count = size >= 32 ? sections(data, size, sec, 4200) : 0;
    int want = (int)(next(&rng) % 4); /* 0, 1: a CLIP; 2: the GRPH; 3: anywhere */
    int pick = -1;
    if (count && want < 3) {
        int kind = want < 2 ? 1 : 2, seen = 0;
        for (int i = 0; i < count; i++) /* one of that kind, uniformly */
            if (sec[i].kind == kind && next(&rng) % (uint32_t)++seen == 0) pick = i;
    }
    if (pick < 0 || sec[pick].size == 0) {
        size = LLVMFuzzerMutate(data, size, max_size);
    } else {
        section s = sec[pick];
        size_t tail = size - (s.body + s.size);
        size_t room = max_size - (size - s.size); /* the most the body may grow to */
        uint8_t *body = malloc(room ? room : 1), *rest = malloc(tail ? tail : 1);
        if (!body || !rest) { free(body), free(rest); return LLVMFuzzerMutate(data, size, max_size); }
        memcpy(body, data + s.body, s.size);
        memcpy(rest, data + s.body + s.size, tail);
        size_t nb = LLVMFuzzerMutate(body, s.size, room);
        memcpy(data + s.body, body, nb);
        memcpy(data + s.body + nb, rest, tail);
        size = s.body + nb + tail;
        if (nb != s.size && next(&rng) % 2)
            for (int i = 0; i < 8; i++) data[s.head + 8 + i] = (uint8_t)((uint64_t)nb >> (8 * i));
        free(body), free(rest);
    }
    if (size >= 32) fz_fix_header(data, size);
    return size;
}
