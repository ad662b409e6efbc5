/* SPDX-License-Identifier: MIT */
/* fuzz_restore.c - snapshot restore on any bytes (libFuzzer; tests/scripts/test-fuzz-corpus.sh replays
 * the corpus with gcc). The corpus starts from real snapshots of the named scenes; the fuzzer
 * mutates them; each input is restored as it is (most mutants stop at the CRC) and again
 * with its CRC recomputed, which takes it to every check behind the checksum. Promises checked: no sanitizer report, whatever the bytes; a refused
 * snapshot leaves the world byte for byte as it was; an accepted one is a world within its
 * promises: it steps with every speed within the clamp and every body inside the bounds or
 * frozen and flagged, and snapshots back to the very same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "qphys/qphys.h"

static qp_world world, before;
static unsigned char again[QP_SNAPSHOT_MAX_SIZE], signed_copy[QP_SNAPSHOT_MAX_SIZE];

/* CRC-32 (IEEE) of the payload, bit by bit, written into the header's CRC field: the
 * mutant then reaches the checks behind the checksum. */
static void resign(unsigned char *s, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 16; i < n; i++) {
        c ^= s[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    c = ~c;
    for (int i = 0; i < 4; i++) s[12 + i] = (unsigned char)(c >> (8 * i));
}

static void restore_one(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    restore_one(data, size);
    if (size >= 24 && size <= sizeof signed_copy) {
        memcpy(signed_copy, data, size);
        resign(signed_copy, size);
        restore_one(signed_copy, size);
    }
    return 0;
}

static void restore_one(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        const char scene[] = "plane\nbox half 0.5 0.5 0.5 pos 0 0.5 0\nsphere radius 0.3 pos 1 2 0\n";
        if (qp_scene_load(&world, scene, sizeof scene - 1, NULL, NULL) != QP_OK) abort();
        ready = 1;
    }
    memcpy(&before, &world, sizeof world);
    qp_result r = qp_world_restore(&world, data, (unsigned long)size);
    if (r != QP_OK) {
        if (memcmp(&world, &before, sizeof world) != 0) abort();   /* refused: untouched */
        return;
    }
    if (qp_world_snapshot(&world, again, sizeof again) != size || memcmp(again, data, size) != 0) abort();
    const qp_world_def *d = qp_world_get_def(&world);
    for (int s = 0; s < 3; s++) qp_world_step(&world);
    for (int i = 1; i <= qp_world_capacity(); i++) {
        qp_body_id id = qp_world_body_at(&world, i);
        if (qp_body_id_is_null(id)) continue;
        if (qp_v3_len_sq_wide(qp_body_linear_velocity(&world, id)) > (int64_t)d->max_linear_speed * d->max_linear_speed)
            abort();
        int inside = qp_v3_max_abs(qp_body_position(&world, id)) <= d->bounds + QP_INT(100);
        if (!inside && !(qp_body_flags(&world, id) & QP_FLAG_OUT_OF_BOUNDS)) abort();
    }
}
