/* SPDX-License-Identifier: MIT */
/* step_scene.c - a program outside the qphys tree that uses the installed library: it loads a
 * scene file, steps it and prints one "step hash" line per step, the lines of
 * `qphys run SCENE --hashes --steps N`. Built by tests/scripts/test-install.sh through pkg-config and
 * through add_subdirectory (tests/install/subdirectory/CMakeLists.txt).
 *   step_scene SCENE STEPS
 */
#include <stdio.h>
#include <stdlib.h>

#include <qphys/qphys.h>

static qp_world world; /* caller-owned, no heap in the engine */
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
    if (qp_scene_load(&world, text, (unsigned long)len, &info, &err) != QP_OK) {
        fprintf(stderr, "%s:%d:%d: error: %s\n", argv[1], err.line, err.column, err.message);
        return 2;
    }
    long steps = strtol(argv[2], NULL, 10);
    for (long s = 1; s <= steps; s++) {
        qp_world_step(&world);
        printf("%ld %08lx\n", s, (unsigned long)qp_world_hash(&world));
    }
    return 0;
}
