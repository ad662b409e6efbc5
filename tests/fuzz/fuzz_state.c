/* SPDX-License-Identifier: MIT */
/* fuzz_state.c - hostile state, structure-aware (libFuzzer; tools/test-fuzz-corpus.sh replays
 * the corpus with gcc): each input is an edit script (tests/fuzz/hostile.h) applied to a live
 * world's fields, written by qp_world_snapshot with a correct CRC, restored and stepped under
 * ASan + UBSan. Promises checked: a refused snapshot leaves the world restored into byte for
 * byte as it was; an accepted one snapshots back to the same bytes and steps with every speed
 * within its clamp and every body inside the bounds or frozen and flagged. The oracle
 * (tests/scripts/fuzz-oracle.sh) runs the same scripts on a gcc and a clang build and demands
 * the same answer. */
#include "hostile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hs_outcome out;
    hs_run_state(data, size, &out);
    return 0;
}
