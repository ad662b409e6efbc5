/* SPDX-License-Identifier: MIT */
/* fuzz_scene.c - the scene reader on any bytes (libFuzzer; tests/scripts/test-fuzz-corpus.sh replays
 * the corpus with gcc). Promises checked: no sanitizer report; qp_scene_check and
 * qp_scene_load_level agree (but where the level store below is full); a refused text leaves
 * the world exactly as it was, and a loaded one steps with every body inside the world bounds
 * or frozen and flagged. Heightfields are read into the store; a mesh line gets one of two
 * meshes built here (a bumpy floor or a closed box, chosen by its path's first byte), so that
 * fuzzed bodies collide with level geometry without files. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "qphys/qphys.h"

#define FIELDS 8
#define MESHES 8
#define HEIGHTS 4096

static fix16_t heights[HEIGHTS];
static qp_heightfield fields[FIELDS];
static const qp_mesh *mesh_slots[MESHES];

/* A 4 x 4 grid of 1 m cells with bumps of up to 0.3 m (32 triangles), facing up. */
static qp_vec3 floor_v[25];
static uint32_t floor_i[32 * 3];
/* A closed 2 m box (12 triangles), facing out. */
static const qp_vec3 box_v[8] = {
    { QP_INT(-1), QP_INT(-1), QP_INT(-1) }, { QP_INT(1), QP_INT(-1), QP_INT(-1) }, { QP_INT(1), QP_INT(1), QP_INT(-1) },
    { QP_INT(-1), QP_INT(1), QP_INT(-1) },  { QP_INT(-1), QP_INT(-1), QP_INT(1) }, { QP_INT(1), QP_INT(-1), QP_INT(1) },
    { QP_INT(1), QP_INT(1), QP_INT(1) },    { QP_INT(-1), QP_INT(1), QP_INT(1) },
};
static const uint32_t box_i[36] = { 0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                    3, 6, 2, 3, 7, 6, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5 };
static uint32_t floor_mem[QP_MESH_MEMORY_SIZE(32) / 4 + 1], box_mem[QP_MESH_MEMORY_SIZE(12) / 4 + 1];
static qp_mesh floor_mesh, box_mesh;

static void build_meshes(void)
{
    static int built;
    if (built) return;
    for (int z = 0; z < 5; z++)
        for (int x = 0; x < 5; x++)
            floor_v[z * 5 + x] = qp_v3(QP_INT(x - 2), QP_FRAC((x * 7 + z * 3) % 4, 10), QP_INT(z - 2));
    int t = 0;
    for (int z = 0; z < 4; z++)
        for (int x = 0; x < 4; x++) {
            uint32_t a = (uint32_t)(z * 5 + x), b = a + 1, c = a + 5, d = a + 6;
            uint32_t tri[6] = { a, c, b, b, c, d };   /* counter-clockwise seen from +y */
            for (int k = 0; k < 6; k++) floor_i[t++] = tri[k];
        }
    if (qp_mesh_build(&floor_mesh, floor_v, 25, floor_i, 32, floor_mem, sizeof floor_mem, NULL) != QP_OK ||
        qp_mesh_build(&box_mesh, box_v, 8, box_i, 12, box_mem, sizeof box_mem, NULL) != QP_OK)
        abort();
    built = 1;
}

static qp_result mesh_of(void *ctx, const char *path, unsigned long path_len, const qp_mesh **out, const char **message)
{
    (void)ctx, (void)message;
    *out = path_len > 0 && (path[0] & 1) ? &box_mesh : &floor_mesh;
    return QP_OK;
}

static const qp_scene_level_store store = { heights, HEIGHTS, fields, FIELDS, mesh_slots, MESHES, mesh_of, NULL };

/* The store's own refusal: a scene with more level geometry than it holds. */
static int store_full(qp_result r, const qp_scene_error *err)
{
    return r == QP_ERR_FULL && err->message && strstr(err->message, "level store") != NULL;
}

static qp_world world, before;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    build_meshes();
    qp_world_def wd = qp_default_world_def();
    if (qp_world_init(&world, &wd) != QP_OK) abort();
    memcpy(&before, &world, sizeof world);
    qp_scene_info info, counts;
    qp_scene_error err, check_err;
    qp_result checked = qp_scene_check((const char *)data, (unsigned long)size, &counts, &check_err);
    qp_result loaded = qp_scene_load_level(&world, (const char *)data, (unsigned long)size, &info, &err, &store);
    /* The check holds a scene to any world's capacities, the load to this world's: the load
     * may stop, full, at a line before the check's verdict, and refuses a valid scene larger
     * than the world. */
    qp_world_caps cap = qp_world_get_caps(&world);
    bool larger = checked == QP_OK && (counts.bodies > cap.bodies || counts.shapes > cap.shapes ||
                                       counts.joints > cap.joints || counts.hulls > cap.hulls);
    bool full_first = loaded == QP_ERR_FULL && checked != QP_OK && err.line <= check_err.line;
    bool no_room = checked == QP_OK && store_full(loaded, &err);
    if (larger ? loaded != QP_ERR_FULL : checked != loaded && !full_first && !no_room) abort();
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
