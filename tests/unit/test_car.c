/* SPDX-License-Identifier: MIT */
/* The car on ray-cast wheels (include/qphys/car.h): it stands on its
 * suspension, accelerates, brakes to a stop, turns with the steering, pushes
 * back on what it stands on, and squashes a box against a wall without
 * pushing it through (seed 004). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "qp_test_util.h"
#include "qphys/car.h"
#include "qphys/world.h"

static qp_world world;
static qp_car car;

static void ground(double friction)
{
    qp_world_def wd = qp_default_world_def();
    assert_int_equal(qp_world_init(&world, &wd), QP_OK);
    qp_body_def d = qp_default_body_def();
    d.type = QP_BODY_STATIC;
    d.shape_count = 1;
    d.friction = f16(friction);
    assert_int_equal(qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &d.shapes[0]), QP_OK);
    qp_result r;
    qp_create_body(&world, &d, &r);
    assert_int_equal(r, QP_OK);
}

static qp_body_id add_box(double hx, double hy, double hz, double x, double y, double z, bool dynamic, double mass,
                          double friction)
{
    qp_body_def d = qp_default_body_def();
    d.shapes[0] = box(hx, hy, hz);
    d.shape_count = 1;
    d.type = dynamic ? QP_BODY_DYNAMIC : QP_BODY_STATIC;
    d.position = qp_v3(f16(x), f16(y), f16(z));
    d.mass = dynamic ? f16(mass) : 0;
    d.friction = f16(friction);
    qp_result r;
    qp_body_id id = qp_create_body(&world, &d, &r);
    assert_int_equal(r, QP_OK);
    return id;
}

static void new_car(double y)
{
    qp_car_def cd = qp_default_car_def();
    cd.position = qp_v3(0, f16(y), 0);
    assert_int_equal(qp_car_create(&world, &cd, &car), QP_OK);
}

static void drive(double throttle, double brake, double steer, int steps)
{
    assert_int_equal(qp_car_set_input(&car, f16(throttle), f16(brake), f16(steer)), QP_OK);
    for (int s = 0; s < steps; s++) {
        assert_int_equal(qp_car_update(&world, &car), QP_OK);
        qp_world_step(&world);
    }
}

static double speed(void) { return d16(qp_car_forward_speed(&world, &car)); }
static qp_vec3 where(void) { return qp_body_position(&world, car.chassis); }

/* Heading: the angle of the chassis' forward axis about +y from +z (positive: turned left). */
static double heading(void)
{
    qp_rot3 r = qp_quat_to_rot3(qp_body_rotation(&world, car.chassis));
    return atan2(r.m[0][2] / Q30, r.m[2][2] / Q30);
}

static void test_car_stands_and_accelerates(void **state)
{
    (void)state;
    ground(0.5);
    new_car(1.2);
    drive(0, 0, 0, 120);
    double y = d16(where().y);
    int contacts = 0;
    for (int i = 0; i < QP_CAR_WHEELS; i++) contacts += car.wheels[i].contact;
    /* Rest: 500 kg on four 30000 N/m springs: 4.2 cm compression. */
    double floor = y - 0.3, expect = 0.35 + 0.4 - 500.0 * 10 / 4 / 30000;
    printf("[car] at rest: chassis floor %.4f m above the ground (spring statics %.4f), %d wheels touch\n", floor,
           expect, contacts);
    assert_int_equal(contacts, 4);
    assert_true(fabs(floor - expect) < 0.005);
    assert_true(fabs(speed()) < 0.001);
    drive(1, 0, 0, 120);
    qp_vec3 p = where();
    /* Full throttle asks 4 x 1500 N (12 m/s^2); the tyres hold tyre_friction x load (10 m/s^2). */
    printf("[car] after 2 s of full throttle: %.3f m/s, %.3f m travelled, %.4f m sideways\n", speed(), d16(p.z),
           d16(p.x));
    assert_true(speed() > 18.0 && speed() < 20.5);
    assert_true(fabs(d16(p.x)) < 0.01);
    assert_true(fabs(heading()) < 0.002);
}

static void test_car_brakes_to_a_stop(void **state)
{
    (void)state;
    ground(0.5);
    new_car(1.0);
    drive(0, 0, 0, 60);
    drive(1, 0, 0, 90);
    double v0 = speed(), z0 = d16(where().z);
    int steps = 0;
    while (speed() > 0.01 && steps < 600) {
        drive(0, 1, 0, 1);
        steps++;
    }
    double dist = d16(where().z) - z0;
    /* Braking is friction-limited: about g (10 m/s^2), so about v0^2 / 20 m. */
    printf("[car] full brake from %.3f m/s: stopped in %d steps over %.3f m (v0^2/2g = %.3f m)\n", v0, steps, dist,
           v0 * v0 / 20);
    assert_true(steps < 600);
    assert_true(dist > 0.8 * v0 * v0 / 20 && dist < 1.3 * v0 * v0 / 20);
    qp_vec3 stop = where();
    drive(0, 1, 0, 60);
    assert_true(fabs(d16(where().z) - d16(stop.z)) < 0.01);
    assert_true(fabs(speed()) < 0.01);
}

static void test_car_turns_with_the_steering(void **state)
{
    (void)state;
    double turned[2];
    for (int k = 0; k < 2; k++) {
        ground(0.5);
        new_car(1.0);
        drive(0, 0, 0, 30);
        drive(0.3, 0, 0, 60);
        double h0 = heading();
        drive(0.3, 0, k == 0 ? 1 : -1, 120);
        turned[k] = heading() - h0;
    }
    printf("[car] 2 s at full lock: heading %+.1f deg (left), %+.1f deg (right)\n", turned[0] * 57.2958,
           turned[1] * 57.2958);
    assert_true(turned[0] > 0.7);             /* more than 40 degrees to the left */
    assert_true(turned[1] < -0.7);
    assert_true(fabs(turned[0] + turned[1]) < 0.02 * fabs(turned[0]));  /* symmetric */
}

/* On a slab that slides without friction, the tyres' reaction pushes the slab back:
 * the horizontal momentum of car and slab stays zero. */
static void test_car_pushes_back_on_what_it_stands_on(void **state)
{
    (void)state;
    ground(0);
    qp_body_id slab = add_box(3, 0.25, 8, 0, 0.25, 0, true, 1000, 0);
    new_car(1.5);
    drive(0, 0, 0, 60);
    drive(1, 0, 0, 60);
    double mc = d16(qp_body_mass(&world, car.chassis)), ms = d16(qp_body_mass(&world, slab));
    double pc = mc * d16(qp_body_linear_velocity(&world, car.chassis).z);
    double ps = ms * d16(qp_body_linear_velocity(&world, slab).z);
    printf("[car] on a free slab: car momentum %.1f, slab %.1f kg m/s\n", pc, ps);
    assert_true(pc > 2000);
    assert_true(fabs(pc + ps) < 0.02 * pc);
}

/* Seed 004: the car drives into a wall with a box in between and keeps pushing;
 * the box's far face never passes the wall's face by more than 1 cm. */
static void test_car_squashes_box_not_through_wall(void **state)
{
    (void)state;
    ground(0.5);
    add_box(3, 1.5, 0.25, 0, 1.5, 12, false, 0, 0.5);  /* wall face at z = 11.75 */
    qp_body_id b = add_box(0.5, 0.5, 0.5, 0, 0.5, 9, true, 1, 0.5);
    new_car(1.0);
    double worst = -1, impact = 0;
    assert_int_equal(qp_car_set_input(&car, f16(0.5), 0, 0), QP_OK);
    for (int s = 0; s < 600; s++) {
        double v = speed();
        assert_int_equal(qp_car_update(&world, &car), QP_OK);
        qp_world_step(&world);
        qp_rot3 m = qp_quat_to_rot3(qp_body_rotation(&world, b));
        double reach = 0;
        for (int k = 0; k < 3; k++) reach += 0.5 * fabs(m.m[2][k] / Q30);
        double past = d16(qp_body_center(&world, b).z) + reach - 11.75;
        if (past > -0.05 && impact == 0) impact = v;
        if (past > worst) worst = past;
    }
    printf("[car] box squashed at %.2f m/s: its far face came to %+.4f m of the wall's face; car stopped at %.3f m/s\n",
           impact, worst, speed());
    assert_true(impact > 8);
    assert_true(worst < 0.01);
    assert_true(worst > -0.01);               /* it did reach the wall */
    assert_true(fabs(speed()) < 0.05);
}

static void test_car_inputs_checked(void **state)
{
    (void)state;
    ground(0.5);
    new_car(1.0);
    qp_car before = car;
    assert_int_equal(qp_car_set_input(&car, f16(1.01), 0, 0), QP_ERR_RANGE);
    assert_int_equal(qp_car_set_input(&car, 0, f16(-0.1), 0), QP_ERR_RANGE);
    assert_int_equal(qp_car_set_input(&car, 0, 0, f16(-1.5)), QP_ERR_RANGE);
    assert_memory_equal(&before, &car, sizeof car);
    uint32_t h = qp_world_hash(&world);
    qp_car_def bad = qp_default_car_def();
    bad.half_track = f16(5);   /* wider than the chassis */
    qp_car other;
    memset(&other, 0x5a, sizeof other);
    qp_car copy = other;
    assert_int_equal(qp_car_create(&world, &bad, &other), QP_ERR_RANGE);
    assert_memory_equal(&copy, &other, sizeof other);
    assert_int_equal(qp_world_hash(&world), h);
    assert_int_equal(qp_destroy_body(&world, car.chassis), QP_OK);
    assert_int_equal(qp_car_update(&world, &car), QP_ERR_INVALID_ID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_car_stands_and_accelerates),
        cmocka_unit_test(test_car_brakes_to_a_stop),
        cmocka_unit_test(test_car_turns_with_the_steering),
        cmocka_unit_test(test_car_pushes_back_on_what_it_stands_on),
        cmocka_unit_test(test_car_squashes_box_not_through_wall),
        cmocka_unit_test(test_car_inputs_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
