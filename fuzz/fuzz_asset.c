/* fuzz/fuzz_asset.c - libFuzzer target for the .stance loader
 * (stance_asset_load_memory). Each input is loaded twice: as it is, and with
 * its header's payload size and checksum made to match, so mutations reach
 * the section parser and the runtime's validation behind the checksum. A
 * file that loads is sampled, saved and loaded again (it must), which runs
 * the created skeleton, clips, skins (the skin matrices of a sampled pose)
 * and meshes too; a compiled graph that loads is run for 60 frames; every
 * output must be finite (fuzz/exercise.c).
 *
 * Build and run: fuzz/run.sh (FUZZ_SECONDS, default 60). */
#include <stdint.h>

#include "exercise.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_load_both(data, size);
    return 0;
}
