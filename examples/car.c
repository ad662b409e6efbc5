/* SPDX-License-Identifier: MIT */
/* The car demo (seed 004): a car on ray-cast wheels drives at half throttle (about 10 m/s at impact) into
 * a wall with a 1 kg box in between, and keeps pushing. Shock propagation makes
 * the box immovable against the wall for the car, so the box is squashed in
 * place instead of being pushed through the wall.
 *
 *   build/host/car [STEPS]     (default 480: 8 s at 60 Hz)
 *
 * Prints twice a second the car's place and speed and how far the box's far face
 * is from the wall's face, and exits 1 if the box ever passed the wall's face by
 * more than 1 cm. Host program: floats only for printing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qphys/qphys.h"
#include "save_snapshot.h"

static qp_world world;

static double fx(fix16_t v) { return (double)v / 65536.0; }

static qp_body_id add_box(qp_vec3 half, qp_vec3 pos, qp_body_type type)
{
    qp_body_def d = qp_default_body_def();
    qp_result r = qp_make_box(half, &d.shapes[0]);
    d.shape_count = 1;
    d.type = type;
    d.position = pos;
    qp_body_id id = qp_create_body(&world, &d, &r);
    if (r != QP_OK) {
        fprintf(stderr, "car: a body was refused: %s\n", qp_result_str(r));
        exit(2);
    }
    return id;
}

int main(int argc, char **argv)
{
    long steps = argc > 1 ? strtol(argv[1], 0, 10) : 480;
    const char *save_path = argc == 4 && !strcmp(argv[2], "--save") ? argv[3] : NULL;
    if (steps < 1 || steps > 100000 || (argc != 1 && argc != 2 && !save_path)) {
        fprintf(stderr, "usage: car [STEPS 1..100000 [--save SNAPSHOT]]\n");
        return 2;
    }
    qp_world_def wd = qp_default_world_def();
    if (qp_world_init(&world, &wd) != QP_OK) return 2;
    qp_body_def ground = qp_default_body_def();
    ground.type = QP_BODY_STATIC;
    ground.shape_count = 1;
    if (qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &ground.shapes[0]) != QP_OK) return 2;
    qp_result r;
    qp_create_body(&world, &ground, &r);
    if (r != QP_OK) return 2;
    /* The wall's face is at z = 11.75; the box stands 2.25 m before it. */
    const fix16_t wall_face = QP_FRAC(1175, 100);
    add_box(qp_v3(QP_INT(3), QP_FRAC(3, 2), QP_FRAC(1, 4)), qp_v3(0, QP_FRAC(3, 2), QP_INT(12)), QP_BODY_STATIC);
    qp_body_id box = add_box(qp_v3(QP_FRAC(1, 2), QP_FRAC(1, 2), QP_FRAC(1, 2)), qp_v3(0, QP_FRAC(1, 2), QP_INT(9)),
                             QP_BODY_DYNAMIC);

    static qp_car car;
    qp_car_def cd = qp_default_car_def();
    if (qp_car_create(&world, &cd, &car) != QP_OK || qp_car_set_input(&car, QP_FRAC(1, 2), 0, 0) != QP_OK) return 2;

    double worst = -1e9;
    for (long s = 1; s <= steps; s++) {
        if (qp_car_update(&world, &car) != QP_OK) return 2;
        qp_world_step(&world);
        /* The box's far face: its centre plus its largest reach along z. */
        qp_vec3 c = qp_body_center(&world, box);
        qp_quat q = qp_body_rotation(&world, box);
        qp_rot3 m = qp_quat_to_rot3(q);
        double reach = 0;
        for (int k = 0; k < 3; k++) reach += 0.5 * (m.m[2][k] < 0 ? -m.m[2][k] : m.m[2][k]) / 1073741824.0;
        double past = fx(c.z) + reach - fx(wall_face);
        if (past > worst) worst = past;
        if (s % 30 == 0 || s == steps || getenv("CAR_TRACE")) {
            qp_vec3 p = qp_body_position(&world, car.chassis);
            printf("t %5.2f s  car z %6.3f y %5.3f speed %6.3f m/s  box far face %+7.4f m from the wall\n",
                   (double)s / 60.0, fx(p.z), fx(p.y), fx(qp_car_forward_speed(&world, &car)), past);
        }
    }
    if (save_path && !save_snapshot(&world, save_path, "car")) return 2;
    printf("the box's far face came to %+.4f m of the wall's face (limit +0.01)\n", worst);
    printf("final world hash %08x\n", (unsigned)qp_world_hash(&world));
    return worst > 0.01 ? 1 : 0;
}
