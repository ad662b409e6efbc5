/* SPDX-License-Identifier: MIT */
/* A program compiled with other options than its libqphys.a (tests/scripts/test-api.sh
 * builds this file with -DQP_CFG_LOW_RAM=1 against the default library, under
 * AddressSanitizer): every call that lays out the caller's qp_world answers QP_ERR_CONFIG
 * and writes nothing. Built with the library's own options, or other pool sizes
 * (-DQP_CFG_MAX_BODIES=16: pools are the caller's), the same calls work, and the world
 * has the capacities the caller compiled.
 *   config_mismatch expect-config|expect-ok */
#include <stdio.h>
#include <string.h>
#include "qphys/qphys.h"

static qp_world world;
static unsigned char snapshot[64];

static int untouched(void)
{
    const unsigned char *p = (const unsigned char *)&world;
    for (unsigned long i = 0; i < sizeof world; i++)
        if (p[i] != 0xAB) return 0;
    return 1;
}

int main(int argc, char **argv)
{
    int want_config = argc > 1 && !strcmp(argv[1], "expect-config");
    const char scene[] = "plane\nbox half 0.5 0.5 0.5 pos 0 0.5 0\n";
    memset(&world, 0xAB, sizeof world);
    memset(snapshot, 0, sizeof snapshot);
    qp_world_def wd = qp_default_world_def();
    qp_scene_error err;
    qp_result r[3];
    r[0] = qp_world_init(&world, &wd);
    if (want_config && !untouched()) { puts("qp_world_init wrote to a world of another layout"); return 1; }
    r[1] = qp_scene_load(&world, scene, sizeof scene - 1, NULL, &err);
    if (want_config && !untouched()) { puts("qp_scene_load wrote to a world of another layout"); return 1; }
    r[2] = qp_world_restore(&world, snapshot, sizeof snapshot);
    if (want_config && !untouched()) { puts("qp_world_restore wrote to a world of another layout"); return 1; }
    for (int i = 0; i < 3; i++) {
        qp_result want = want_config ? QP_ERR_CONFIG : i == 2 ? QP_ERR_BUFFER : QP_OK;
        if (r[i] != want) {
            printf("call %d: %s, expected %s\n", i, qp_result_str(r[i]), qp_result_str(want));
            return 1;
        }
    }
    if (!want_config && qp_world_body_capacity(&world) != QP_CFG_MAX_BODIES) {
        printf("a world of %d bodies, compiled for %d\n", qp_world_body_capacity(&world), QP_CFG_MAX_BODIES);
        return 1;
    }
    printf("%s: %s\n", want_config ? "refused" : "accepted", qp_result_str(r[0]));
    return 0;
}
