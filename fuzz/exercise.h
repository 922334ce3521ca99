/* fuzz/exercise.h - what the .stance fuzzers and the mutation campaign do
 * with a file: load it (as it is, and with its header's payload size and
 * checksum made to match, so a mutation reaches the section parser behind
 * the checksum) and, when it loads, use everything it made. */
#ifndef STANCE_FUZZ_EXERCISE_H
#define STANCE_FUZZ_EXERCISE_H

#include <stddef.h>
#include <stdint.h>

#include "stance/asset.h"

/* How a load of one input ended, for the campaign's counts. */
typedef struct fz_outcome {
    int loaded;       /* the bytes as given loaded */
    int loaded_fixed; /* the copy with its size and checksum made to match loaded */
} fz_outcome;

/* Samples every clip at five times, runs local-to-model and the skins on each
 * pose, checks every mesh, runs a compiled graph 60 frames with its parameters
 * moved through several values, and saves and reloads the asset. Every pose,
 * matrix and root value must be finite: an asset that loads gives finite
 * output, or abort() says which. */
void fz_exercise(const stance_asset *a);

/* Loads `data` as it is and, when it has a header, with the payload size and
 * checksum fixed; a load that fails must leave nothing behind and say why
 * (else abort()). Each load that succeeds is exercised. */
fz_outcome fz_load_both(const uint8_t *data, size_t size);

/* Writes the payload size and checksum of a file image of `size` bytes (>= 32). */
void fz_fix_header(uint8_t *bytes, size_t size);

#endif
