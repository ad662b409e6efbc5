/* SPDX-License-Identifier: MIT */
/* step_scene.c - a program outside the qphys tree that uses the installed library: it loads a
 * scene file, steps it and prints one "step hash" line per step, the lines of
 * `qphys run SCENE --hashes --steps N`. A scene larger than a world of the default capacities
 * goes into a world of its own size, in memory from the heap (qp_world_init_in). Built by tests/scripts/test-install.sh through pkg-config and
 * through add_subdirectory (tests/install/subdirectory/CMakeLists.txt).
 *   step_scene SCENE STEPS
 */
#include <stdio.h>
#include <stdlib.h>

#include <qphys/qphys.h>

static qp_world world; /* of the default capacities: caller-owned, no heap in the engine */
static char text[1 << 20];

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: step_scene SCENE STEPS\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) {
        perror(argv[1]);
        return 2;
    }
    size_t len = fread(text, 1, sizeof text, f);
    fclose(f);
    qp_scene_info info;
    qp_scene_error err;
    if (qp_scene_check(text, (unsigned long)len, &info, &err) != QP_OK) {
        fprintf(stderr, "%s:%d:%d: error: %s\n", argv[1], err.line, err.column, err.message);
        return 2;
    }
    qp_world *w = &world;
    if (info.bodies > QP_CFG_MAX_BODIES || info.shapes > QP_CFG_MAX_SHAPES || info.joints > QP_CFG_MAX_JOINTS ||
        info.hulls > QP_CFG_MAX_HULLS) {
        qp_world_caps caps = qp_world_caps_for(info.bodies, info.shapes, info.joints);
        if (info.hulls > caps.hulls) caps.hulls = info.hulls;
        unsigned long bytes = qp_world_memory_size(&caps);
        void *memory = malloc(bytes);
        qp_world_def def = qp_default_world_def();
        if (memory == NULL || qp_world_init_in(memory, bytes, &caps, &def, &w) != QP_OK) {
            fprintf(stderr, "%s: no world of %d bodies\n", argv[1], info.bodies);
            return 2;
        }
    }
    if (qp_scene_load(w, text, (unsigned long)len, &info, &err) != QP_OK) {
        fprintf(stderr, "%s:%d:%d: error: %s\n", argv[1], err.line, err.column, err.message);
        return 2;
    }
    long steps = strtol(argv[2], NULL, 10);
    for (long s = 1; s <= steps; s++) {
        qp_world_step(w);
        printf("%ld %08lx\n", s, (unsigned long)qp_world_hash(w));
    }
    return 0;
}
