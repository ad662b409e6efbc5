/* SPDX-License-Identifier: MIT */
/* A box dropped on the ground: the smallest complete qphys program. */
#include <stdio.h>
#include "qphys/qphys.h"

static qp_world world;                        /* all state; caller-owned, no heap */

int main(void)
{
    qp_world_def wd = qp_default_world_def(); /* every knob of the step, with defaults */
    if (qp_world_init(&world, &wd) != QP_OK) return 1;

    qp_body_def ground = qp_default_body_def();
    ground.type = QP_BODY_STATIC;
    ground.shape_count = 1;
    if (qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &ground.shapes[0]) != QP_OK) return 1;
    qp_result err;
    if (qp_body_id_is_null(qp_create_body(&world, &ground, &err))) return 1;

    qp_body_def box = qp_default_body_def();
    box.shape_count = 1;
    if (qp_make_box(qp_v3(QP_ONE / 2, QP_ONE / 2, QP_ONE / 2), &box.shapes[0]) != QP_OK) return 1;
    box.position = qp_v3(0, QP_INT(3), 0);    /* 3 m up: it falls, lands, sleeps */
    qp_body_id id = qp_create_body(&world, &box, &err);
    if (qp_body_id_is_null(id)) {             /* err says why, e.g. QP_ERR_FULL */
        printf("create: %s\n", qp_result_str(err));
        return 1;
    }

    for (int i = 0; i < 180; i++) qp_world_step(&world);
    qp_vec3 p = qp_body_position(&world, id);
    printf("box at y = %ld/65536 m, %s, hash %08lx\n", (long)p.y,
           qp_body_is_awake(&world, id) ? "awake" : "asleep", (unsigned long)qp_world_hash(&world));
    return 0;
}
