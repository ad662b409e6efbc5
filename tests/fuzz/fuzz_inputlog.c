/* SPDX-License-Identifier: MIT */
/* fuzz_inputlog.c - hostile input logs, structure-aware (libFuzzer; tools/test-fuzz-corpus.sh
 * replays the corpus with gcc): each input edits the log of a live world's calls (every kind
 * of entry: bodies, poses, velocities, forces, impulses, wake, flags, filters, joints) entry by
 * entry, field by field (tests/fuzz/hostile.h), and the log is replayed step by step into a
 * copy of the world it started from, under ASan + UBSan. Promises checked: an entry refused as
 * malformed leaves the world as the entries before it left it; a failed call is passed, never
 * stuck on; every speed stays within its clamp and every body inside the bounds or flagged.
 * The oracle (tests/scripts/fuzz-oracle.sh) runs the same inputs on a gcc and a clang build
 * and demands the same answer. */
#include "hostile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hs_outcome out;
    hs_run_inputlog(data, size, &out);
    return 0;
}
