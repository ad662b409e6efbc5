/* SPDX-License-Identifier: MIT */
/* scene.c - the example's world (scene.h). */
#include "scene.h"

static qp_result add(qp_world *w, qp_body_def *def)
{
    qp_result err = QP_OK;
    qp_body_id id = qp_create_body(w, def, &err);
    return qp_body_id_is_null(id) ? err : QP_OK;
}

qp_result scene_build(qp_world *w)
{
    qp_world_def wd = qp_default_world_def(); /* 60 Hz, gravity -10 m/s^2, sleep on */
    qp_result r = qp_world_init(w, &wd);     /* QP_ERR_CONFIG: built with other pools than the library */
    if (r != QP_OK) return r;

    qp_body_def ground = qp_default_body_def();
    ground.type = QP_BODY_STATIC;
    ground.shape_count = 1;
    r = qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &ground.shapes[0]);
    if (r == QP_OK) r = add(w, &ground);

    qp_body_def box = qp_default_body_def();
    box.shape_count = 1;
    if (r == QP_OK) r = qp_make_box(qp_v3(QP_ONE / 2, QP_ONE / 2, QP_ONE / 2), &box.shapes[0]);
    for (int i = 0; i < 4 && r == QP_OK; i++) {
        box.position = qp_v3(0, QP_ONE / 2 + QP_INT(i), 0);
        r = add(w, &box);
    }

    qp_body_def ball = qp_default_body_def();
    ball.shape_count = 1;
    if (r == QP_OK) r = qp_make_sphere(QP_ONE / 4, &ball.shapes[0]);
    ball.position = qp_v3(QP_ONE * 2 / 5, QP_INT(6), QP_ONE / 10);
    if (r == QP_OK) r = add(w, &ball);
    return r;
}
