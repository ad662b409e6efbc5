/* SPDX-License-Identifier: MIT */
/* The level drive: the car of qphys/car.h driven for 10 s over tests/scenes/level.scene (its
 * heightfield of hills and its ramp mesh, loaded through qp_scene_load_level with the OBJ
 * reader of tools/obj.c; the scene's loose bodies removed), on a fixed schedule of throttle,
 * brake and steering, so every run and every target computes the same drive.
 *
 *   build/host/level_drive [SCENE] [--frames DIR EVERY]   (default tests/scenes/level.scene)
 *
 * SCENE is a level whose first body is its heightfield (the route is level.scene's).
 *
 * Prints the path driven, the fraction of wheel-steps with the wheel on the ground, the
 * largest tilt of the chassis, the car's body number and the final world hash. --frames
 * writes a snapshot every EVERY steps into DIR/NNNN.qps (for qphys render SNAPSHOT --scene
 * SCENE --car N: docs/pictures/level-drive.gif, drawn by tools/pictures.sh). Exits 1 when
 * the car fails as a car on a level:
 *   - it flips: the chassis tilts more than 60 degrees from upright (the ramp's 20.6 degree
 *     slope and the hills tilt it 22 degrees at most on this route);
 *   - it falls through: the chassis centre leaves the heightfield's square or is below the
 *     lowest corner of the cell under it (on its wheels it rides about 1 m above);
 *   - it does not drive on its wheels: fewer than 3 of the 4 wheels down on average, a
 *     fraction below 0.75 (this route keeps 0.84: wheels lift over crests and at the ramp's foot).
 * Host program: floats only for printing and those checks, never fed back into the world. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qphys/qphys.h"
#include "obj.h"
#include "save_snapshot.h"

#define STEPS 600   /* 10 s at the scene's 60 Hz */

static qp_world world;

static double fx(fix16_t v) { return (double)v / 65536.0; }

/* The driver: from step `from` on, these inputs (Q16.16 fractions of full). */
typedef struct {
    int from;
    fix16_t throttle, brake, steer;
} leg;

/* From the eastern hill west over the pad and up the ramp (t 0 .. 1.75 s), a stop half way up,
 * back down it in reverse and a stop on the pad (2.5 .. 4.5 s), then forward again, steered
 * left, round through the northern hills (4.5 .. 8 s), braking to a stop there. */
static const leg route[] = {
    {0, QP_FRAC(3, 10), 0, 0},
    {105, 0, QP_ONE, 0},
    {150, QP_FRAC(-2, 10), 0, 0},
    {230, 0, QP_ONE, 0},
    {270, QP_FRAC(3, 10), 0, QP_ONE},
    {480, 0, QP_FRAC(1, 2), QP_ONE},
};
#define LEGS ((int)(sizeof route / sizeof route[0]))

static char *read_file(const char *path, unsigned long *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char text[1 << 16];
    *len = (unsigned long)fread(text, 1, sizeof text - 1, f);
    int full = *len == sizeof text - 1;
    fclose(f);
    if (full) return NULL;
    text[*len] = 0;
    return text;
}

int main(int argc, char **argv)
{
    const char *path = "tests/scenes/level.scene", *frames = NULL;
    long every = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 2 < argc) {
            frames = argv[i + 1];
            every = strtol(argv[i + 2], 0, 10);
            i += 2;
        } else if (argv[i][0] != '-') {
            path = argv[i];
        } else {
            every = -1;
        }
    }
    if (every < 0 || (frames && every < 1)) {
        fprintf(stderr, "usage: level_drive [SCENE] [--frames DIR EVERY]\n");
        return 2;
    }
    unsigned long len;
    const char *text = read_file(path, &len);
    if (!text) {
        fprintf(stderr, "level_drive: cannot read %s (or larger than 64 KB)\n", path);
        return 2;
    }
    qp_scene_level_store *store = obj_level_store(path, text, len);
    qp_scene_info info;
    qp_scene_error err;
    if (!store) return 2;
    if (qp_scene_load_level(&world, text, len, &info, &err, store) != QP_OK) {
        fprintf(stderr, "level_drive: %s does not load: line %d: %s\n", path, err.line, err.message);
        return 2;
    }
    /* Body 0 of the level is its heightfield: its square and heights bound the drive. */
    const qp_shape *ground = qp_body_shape(&world, qp_scene_body(&world, 0), 0);
    if (!ground || ground->type != QP_SHAPE_HEIGHTFIELD || store->fields_capacity < 1) {
        fprintf(stderr, "level_drive: %s: its first body is not a heightfield\n", path);
        return 2;
    }
    const qp_heightfield *hf = &store->fields[0];
    qp_vec3 hf_at = qp_body_position(&world, qp_scene_body(&world, 0));
    double sp = fx(hf->spacing);

    static qp_car car;
    qp_car_def cd = qp_default_car_def();
    /* On the eastern hill, facing west (-x) down the pad's axis to the ramp's foot. */
    cd.position = qp_v3(QP_FRAC(11, 2), QP_FRAC(19, 10), QP_FRAC(-9, 2));
    if (!qp_quat_from_axis_angle(qp_v3(0, QP_ONE, 0), -fix16_pi / 2, &cd.rotation) ||
        qp_car_create(&world, &cd, &car) != QP_OK) return 2;
    int car_number = info.bodies;
    /* The drive is on the level's ground: its loose bodies (balls, boxes, capsules: the scene's
     * own show) go, so that they neither block the route nor change it when the scene changes;
     * after the car took the next slot, so that it is body info.bodies in a snapshot. */
    for (int i = 0; i < info.bodies; i++) {
        qp_body_id b = qp_scene_body(&world, i);
        if (qp_body_get_type(&world, b) == QP_BODY_DYNAMIC && qp_destroy_body(&world, b) != QP_OK) return 2;
    }

    long wheel_steps = 0;
    double path_m = 0, max_tilt = 0;
    qp_vec3 last = qp_body_position(&world, car.chassis);
    const char *failure = NULL;
    int leg_at = -1;
    for (int s = 0; s < STEPS && !failure; s++) {
        if (frames && s % every == 0) {
            char name[4096];
            snprintf(name, sizeof name, "%s/%04d.qps", frames, s / (int)every);
            if (!save_snapshot(&world, name, "level_drive")) return 2;
        }
        while (leg_at + 1 < LEGS && route[leg_at + 1].from <= s) {
            leg_at++;
            if (qp_car_set_input(&car, route[leg_at].throttle, route[leg_at].brake, route[leg_at].steer) != QP_OK)
                return 2;
        }
        if (qp_car_update(&world, &car) != QP_OK) return 2;
        for (int k = 0; k < QP_CAR_WHEELS; k++) wheel_steps += car.wheels[k].contact;
        qp_world_step(&world);

        qp_vec3 p = qp_body_position(&world, car.chassis);
        path_m += hypot(fx(p.x) - fx(last.x), fx(p.z) - fx(last.z));
        last = p;
        /* Tilt: the angle between the chassis' up (the rotation's second column) and +y. */
        qp_rot3 m = qp_quat_to_rot3(qp_body_rotation(&world, car.chassis));
        double up_y = m.m[1][1] / 1073741824.0;
        double tilt = acos(up_y > 1 ? 1 : up_y < -1 ? -1 : up_y) * 180 / M_PI;
        if (tilt > max_tilt) max_tilt = tilt;
        double cx = (fx(p.x) - fx(hf_at.x)) / sp, cz = (fx(p.z) - fx(hf_at.z)) / sp;
        if (getenv("LEVEL_TRACE") && s % 15 == 0)
            printf("t %5.2f  x %6.2f y %5.2f z %6.2f  speed %5.2f  tilt %4.1f  wheels %d%d%d%d\n", s / 60.0, fx(p.x),
                   fx(p.y), fx(p.z), fx(qp_car_forward_speed(&world, &car)), tilt, car.wheels[0].contact,
                   car.wheels[1].contact, car.wheels[2].contact, car.wheels[3].contact);
        if (tilt > 60) {
            failure = "the car flipped (tilt above 60 degrees)";
        } else if (cx < 0 || cz < 0 || cx >= hf->cols - 1 || cz >= hf->rows - 1) {
            failure = "the car left the heightfield's square";
        } else {
            int c = (int)cx, r = (int)cz;
            double low = 1e9;
            for (int k = 0; k < 4; k++) {
                double h = fx(hf->heights[(r + k / 2) * hf->cols + c + k % 2]);
                if (h < low) low = h;
            }
            if (fx(p.y) < fx(hf_at.y) + low) failure = "the car fell through the ground";
        }
        if (failure) printf("step %d: %s\n", s + 1, failure);
    }
    double down = (double)wheel_steps / (QP_CAR_WHEELS * STEPS);
    if (!failure && down < 0.75) failure = "fewer than 3 wheels down on average";
    printf("path driven %.2f m in %.1f s, wheels on the ground %.3f of the time (limit 0.75), "
           "largest tilt %.1f degrees (limit 60)\n", path_m, STEPS / 60.0, down, max_tilt);
    printf("the car is body %d\n", car_number);
    printf("final world hash %08x\n", (unsigned)qp_world_hash(&world));
    if (failure) printf("FAILED: %s\n", failure);
    return failure ? 1 : 0;
}
