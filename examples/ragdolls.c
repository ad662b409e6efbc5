/* SPDX-License-Identifier: MIT */
/* Ragdolls on a stack: three ragdolls (30 of the default 64 joints) (qp_create_ragdoll) dropped one after the other onto a
 * column of five cubes, then left to come to rest. Prints, every second, how many bodies are
 * awake, how high the column's top cube stands and the largest joint gap; exits 1 if a joint
 * ends open by more than 1 cm or the scene never sleeps. With --save FILE it also writes a
 * snapshot once the three ragdolls are in the air (step 91), for qphys render (make pictures).
 * The world solves joint trees (qp_world_def.joint_tree): without it one ragdoll never sleeps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qphys/qphys.h"
#include "save_snapshot.h"

static qp_world world;

static fix16_t worst_gap(void)
{
    fix16_t worst = 0;
    for (int i = 1; i <= qp_world_joint_capacity(); i++) {
        qp_joint_id j = qp_world_joint_at(&world, i);
        if (!qp_joint_id_is_null(j) && qp_joint_error(&world, j) > worst) worst = qp_joint_error(&world, j);
    }
    return worst;
}

int main(int argc, char **argv)
{
    const char *save_path = argc == 3 && !strcmp(argv[1], "--save") ? argv[2] : NULL;
    if (argc != 1 && !save_path) {
        fprintf(stderr, "usage: ragdolls [--save SNAPSHOT]\n");
        return 2;
    }
    qp_world_def wd = qp_default_world_def();
    wd.joint_tree = true;   /* each ragdoll's joints solved together, its gaps closed at the new poses */
    if (qp_world_init(&world, &wd) != QP_OK) return 2;
    qp_result r;
    qp_body_def ground = qp_default_body_def();
    ground.type = QP_BODY_STATIC;
    ground.shape_count = 1;
    if (qp_make_plane(qp_v3(0, QP_Q30_ONE, 0), 0, &ground.shapes[0]) != QP_OK) return 2;
    qp_create_body(&world, &ground, &r);
    qp_body_id top = qp_null_body();
    for (int i = 0; i < 5; i++) {
        qp_body_def cube = qp_default_body_def();
        cube.position = qp_v3(0, QP_FRAC(1, 2) + QP_INT(i), 0);
        cube.shape_count = 1;
        cube.mass = QP_INT(20);
        if (qp_make_box(qp_v3(QP_FRAC(1, 2), QP_FRAC(1, 2), QP_FRAC(1, 2)), &cube.shapes[0]) != QP_OK) return 2;
        top = qp_create_body(&world, &cube, &r);
        if (r != QP_OK) return 2;
    }
    int dropped = 0;
    for (int step = 0; step < 60 * 20; step++) {
        if (step % 45 == 0 && dropped < 3) {
            qp_ragdoll_def rd = qp_default_ragdoll_def();
            rd.position = qp_v3(QP_FRAC(dropped % 3 - 1, 4), QP_INT(7), QP_FRAC(dropped % 2, 5));
            if (qp_create_ragdoll(&world, &rd, NULL, &r) != QP_OK) {
                printf("ragdoll %d refused: %s\n", dropped, qp_result_str(r));
                return 2;
            }
            dropped++;
        }
        qp_world_step(&world);
        if (save_path && step == 90 && !save_snapshot(&world, save_path, "ragdolls")) return 2;
        if (step % 60 == 59) {
            qp_world_stats st = qp_world_get_stats(&world);
            printf("t %2d s: %3d awake, top cube at y %.3f, worst joint gap %.2f mm\n", (step + 1) / 60, st.awake,
                   fix16_to_float(qp_body_center(&world, top).y), 1000 * fix16_to_float(worst_gap()));
        }
    }
    qp_world_stats st = qp_world_get_stats(&world);
    return worst_gap() <= QP_MM(10) && st.first_all_asleep_step >= 0 ? 0 : 1;
}
