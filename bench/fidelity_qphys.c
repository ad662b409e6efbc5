/* SPDX-License-Identifier: MIT */
/* bench/fidelity_qphys.c - qphys's side of the fidelity table (bench/fidelity.sh).
 *
 *   fidelity_qphys SCENE [--steps N]
 *
 * Loads SCENE with qp_scene_load, steps it N times (default 600) and prints the trace of
 * bench/fidelity_scene.h: the bodies as read, then every body's state at step 0 and
 * after each step. bullet_bench --file prints the same for Bullet.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fidelity_scene.h"
#include "qphys/world.h"

static qp_world world;
static fid_scene scene;

static void print_state(long step)
{
    for (int i = 0; i < scene.count; i++) {
        qp_body_id id = qp_scene_body(&world, i);
        qp_vec3 p = qp_body_position(&world, id), v = qp_body_linear_velocity(&world, id);
        qp_vec3 w = qp_body_angular_velocity(&world, id);
        qp_quat q = qp_body_rotation(&world, id);
        double pd[3] = { fid_fx(p.x), fid_fx(p.y), fid_fx(p.z) };
        double qd[4] = { fid_q30(q.w), fid_q30(q.x), fid_q30(q.y), fid_q30(q.z) };
        double vd[3] = { fid_fx(v.x), fid_fx(v.y), fid_fx(v.z) };
        double wd[3] = { fid_fx(w.x), fid_fx(w.y), fid_fx(w.z) };
        int dyn = qp_body_get_type(&world, id) == QP_BODY_DYNAMIC;
        fid_print_body(step, i, pd, qd, vd, wd, dyn && !qp_body_is_awake(&world, id), (unsigned)qp_body_flags(&world, id));
    }
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    long steps = 600;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = atol(argv[++i]);
        else if (!path && argv[i][0] != '-') path = argv[i];
        else { fprintf(stderr, "usage: fidelity_qphys SCENE [--steps N]\n"); return 2; }
    }
    if (!path || steps < 0 || steps > 1000000) { fprintf(stderr, "usage: fidelity_qphys SCENE [--steps N]\n"); return 2; }
    unsigned long len = 0;
    char *text = fid_slurp(path, &len);
    if (!text || fid_read(path, text, len, &scene) != 0) return 2;
    qp_scene_error err;
    if (qp_scene_load(&world, text, len, NULL, &err) != QP_OK) {
        fprintf(stderr, "%s:%d:%d: error: %s\n", path, err.line, err.column, err.message);
        return 2;
    }
    fid_print_header(&scene);
    print_state(0);
    for (long s = 1; s <= steps; s++) {
        qp_world_step(&world);
        print_state(s);
    }
    free(text);
    return 0;
}
