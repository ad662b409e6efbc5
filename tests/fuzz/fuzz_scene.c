/* SPDX-License-Identifier: MIT */
/* fuzz_scene.c - the scene reader on any bytes (libFuzzer; tests/scripts/test-fuzz-corpus.sh replays
 * the corpus with gcc). Promises checked: no sanitizer report; qp_scene_check and
 * qp_scene_load agree; a refused text leaves the world exactly as it was, and a loaded one
 * steps with every body inside the world bounds or frozen and flagged. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "qphys/qphys.h"

static qp_world world, before;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    qp_world_def wd = qp_default_world_def();
    if (qp_world_init(&world, &wd) != QP_OK) abort();
    memcpy(&before, &world, sizeof world);
    qp_scene_info info, counts;
    qp_scene_error err, check_err;
    qp_result checked = qp_scene_check((const char *)data, (unsigned long)size, &counts, &check_err);
    qp_result loaded = qp_scene_load(&world, (const char *)data, (unsigned long)size, &info, &err);
    /* The check holds a scene to any world's capacities, the load to this world's: the load
     * may stop, full, at a line before the check's verdict, and refuses a valid scene larger
     * than the world. */
    qp_world_caps cap = qp_world_get_caps(&world);
    bool larger = checked == QP_OK && (counts.bodies > cap.bodies || counts.shapes > cap.shapes ||
                                       counts.joints > cap.joints || counts.hulls > cap.hulls);
    bool full_first = loaded == QP_ERR_FULL && checked != QP_OK && err.line <= check_err.line;
    if (larger ? loaded != QP_ERR_FULL : checked != loaded && !full_first) abort();
    if (loaded != QP_OK) {
        if (memcmp(&world, &before, sizeof world) != 0) abort(); /* a refusal changes nothing */
        if (err.message == NULL) abort();
        return 0;
    }
    fix16_t bounds = qp_world_get_def(&world)->bounds;
    for (int s = 0; s < 3; s++) qp_world_step(&world);
    for (int i = 1; i <= qp_world_capacity(); i++) {
        qp_body_id id = qp_world_body_at(&world, i);
        if (qp_body_id_is_null(id)) continue;
        qp_vec3 p = qp_body_position(&world, id);
        int inside = qp_v3_max_abs(p) <= bounds + QP_INT(100);   /* origin vs centre: shape sizes */
        if (!inside && !(qp_body_flags(&world, id) & QP_FLAG_OUT_OF_BOUNDS)) abort();
    }
    return 0;
}
