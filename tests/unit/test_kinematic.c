/* SPDX-License-Identifier: MIT */
/* Kinematic bodies: moved by their own velocities, never pushed (infinite
 * mass), carrying and waking what rests on them; static bodies refuse to be
 * moved. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "qp_test_util.h"
#include "qphys/scene.h"
#include "qphys/world.h"

static qp_world world, other;
static unsigned char snap_a[1 << 20], snap_b[1 << 20];

static void load(qp_world *w, const char *text)
{
    qp_scene_error err;
    qp_result r = qp_scene_load(w, text, strlen(text), 0, &err);
    if (r != QP_OK) fail_msg("scene:%d:%d: %s", err.line, err.column, err.message);
}

/* A lift (top at y = 0.6) rising at speed with a sleeping cube on it: the cube wakes,
 * rises with the lift, and never sinks into it by more than 1 cm. */
static void lift(const char *speed, double seconds)
{
    char text[512];
    snprintf(text, sizeof text,
             "plane\n"
             "box half 1.5 0.1 1.5 pos 0 0.5 0 kinematic vel 0 %s 0\n"
             "box half 0.5 0.5 0.5 pos 0 1.1 0 asleep\n",
             speed);
    load(&world, text);
    qp_body_id lift_id = qp_scene_body(&world, 1), cube = qp_scene_body(&world, 2);
    assert_int_equal(qp_body_get_type(&world, lift_id), QP_BODY_KINEMATIC);
    assert_false(qp_body_is_awake(&world, cube));
    int steps = (int)(seconds * 60), woke = -1;
    double worst = 0;
    for (int s = 1; s <= steps; s++) {
        qp_world_step(&world);
        if (woke < 0 && qp_body_is_awake(&world, cube)) woke = s;
        double gap = d16(qp_body_center(&world, cube).y) - 0.5 - (d16(qp_body_center(&world, lift_id).y) + 0.1);
        if (gap < worst) worst = gap;
    }
    double rise = d16(qp_body_center(&world, cube).y) - 1.1, lift_rise = d16(qp_body_center(&world, lift_id).y) - 0.5;
    printf("[kinematic] lift at %s m/s: the sleeping cube woke at step %d, rose %.4f m with the lift's %.4f m, sank "
           "into it at most %.4f m\n",
           speed, woke, rise, lift_rise, -worst);
    assert_true(woke >= 1 && woke <= 2);
    assert_true(fabs(rise - lift_rise) < 0.01);
    assert_true(lift_rise > 0.9 * seconds * d16(qp_body_linear_velocity(&world, lift_id).y));
    assert_true(worst > -0.01);
    assert_true(qp_body_is_awake(&world, cube));   /* riding a moving lift is not rest */
    assert_int_equal(qp_body_level(&world, lift_id), 0);   /* immovable like the ground */
}

static void test_lift_carries_sleeping_cube(void **state)
{
    (void)state;
    lift("0.5", 3);
    lift("0.02", 3);   /* slower than any wake threshold: the contact itself wakes it */
}

/* A kinematic body is never pushed: a 100 kg box thrown at it at 20 m/s changes nothing
 * of its motion (bit for bit, against the same body in a world without the box). */
static void test_never_pushed(void **state)
{
    (void)state;
    const char *base = "world gravity 0 -10 0\n"
                       "box half 1 1 1 pos 0 3 0 kinematic vel 0.5 0 0 spin 0 0.7 0.2\n";
    char with_box[512];
    snprintf(with_box, sizeof with_box, "%sbox half 0.5 0.5 0.5 pos -4 3 0 vel 20 0 0 mass 100\n", base);
    load(&world, with_box);
    load(&other, base);
    qp_body_id k = qp_scene_body(&world, 0), k2 = qp_scene_body(&other, 0), thrown = qp_scene_body(&world, 1);
    int touched = 0;
    for (int s = 0; s < 120; s++) {
        qp_world_step(&world);
        qp_world_step(&other);
        touched += qp_world_get_stats(&world).contacts > 0;
        assert_memory_equal(&world.bodies[k.index].x, &other.bodies[k2.index].x, sizeof(qp_vec3));
        assert_memory_equal(&world.bodies[k.index].q, &other.bodies[k2.index].q, sizeof(qp_quat));
        assert_memory_equal(&world.bodies[k.index].v, &other.bodies[k2.index].v, sizeof(qp_vec3));
        assert_memory_equal(&world.bodies[k.index].w, &other.bodies[k2.index].w, sizeof(qp_vec3));
    }
    double vx = d16(qp_body_linear_velocity(&world, thrown).x);
    printf("[kinematic] a 100 kg box hit it at 20 m/s (%d steps in contact): its motion unchanged to the bit; the box "
           "left at %.2f m/s\n",
           touched, vx);
    assert_true(touched > 0);
    assert_true(vx < 5);    /* the box was stopped or thrown back, not the kinematic body */
    /* Forces and impulses are refused; velocities are taken. */
    assert_int_equal(qp_body_apply_force(&world, k, qp_v3(QP_INT(10), 0, 0)), QP_ERR_PARAM);
    assert_int_equal(qp_body_apply_torque(&world, k, qp_v3(QP_INT(10), 0, 0)), QP_ERR_PARAM);
    assert_int_equal(qp_body_apply_impulse(&world, k, qp_v3(QP_INT(10), 0, 0), qp_body_center(&world, k)),
                     QP_ERR_PARAM);
    assert_int_equal(qp_body_set_linear_velocity(&world, k, qp_v3(0, QP_INT(200), 0)), QP_ERR_RANGE);
    assert_int_equal(qp_body_set_linear_velocity(&world, k, qp_v3(0, QP_ONE, 0)), QP_OK);
    assert_int_equal(qp_body_linear_velocity(&world, k).y, QP_ONE);
    assert_int_equal(qp_body_mass(&world, k), 0);
}

/* Moving a static body is refused and changes nothing: hash and snapshot equal. */
static void test_static_refuses_to_move(void **state)
{
    (void)state;
    load(&world, "plane\nbox half 1 1 1 pos 0 1 0 static\nbox half 0.5 0.5 0.5 pos 0 2.5 0\n");
    for (int s = 0; s < 10; s++) qp_world_step(&world);
    qp_body_id ids[2] = { qp_scene_body(&world, 0), qp_scene_body(&world, 1) };
    uint32_t h = qp_world_hash(&world);
    unsigned long n = qp_world_snapshot(&world, snap_a, sizeof snap_a);
    assert_true(n > 0 && n <= sizeof snap_a);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(qp_body_set_pose(&world, ids[i], qp_v3(0, QP_INT(3), 0), qp_quat_identity()), QP_ERR_PARAM);
        assert_int_equal(qp_body_set_linear_velocity(&world, ids[i], qp_v3(QP_ONE, 0, 0)), QP_ERR_PARAM);
        assert_int_equal(qp_body_set_angular_velocity(&world, ids[i], qp_v3(QP_ONE, 0, 0)), QP_ERR_PARAM);
        assert_int_equal(qp_body_apply_impulse(&world, ids[i], qp_v3(QP_ONE, 0, 0), qp_v3_zero()), QP_ERR_PARAM);
    }
    assert_int_equal(qp_world_hash(&world), h);
    assert_int_equal(qp_world_snapshot(&world, snap_b, sizeof snap_b), n);
    assert_memory_equal(snap_a, snap_b, n);
}

/* At rest a kinematic body is like the ground: a cube on it sleeps. Set moving (velocity
 * or pose), it wakes the cube at once and carries it by friction. */
static void test_set_moving_wakes_and_carries(void **state)
{
    (void)state;
    for (int how = 0; how < 2; how++) {
        load(&world, "box half 2 0.1 2 pos 0 0.1 0 kinematic\nbox half 0.5 0.5 0.5 pos 0 0.7 0\n");
        qp_body_id k = qp_scene_body(&world, 0), cube = qp_scene_body(&world, 1);
        for (int s = 0; s < 200 && qp_body_is_awake(&world, cube); s++) qp_world_step(&world);
        /* No gravity on a kinematic body, no ground under it: it holds still by itself. */
        assert_false(qp_body_is_awake(&world, cube));
        assert_int_equal(qp_body_center(&world, k).y, f16(0.1));
        if (how == 0) {
            assert_int_equal(qp_body_set_linear_velocity(&world, k, qp_v3(QP_ONE, 0, 0)), QP_OK);
        } else {
            qp_vec3 p = qp_body_position(&world, k);
            assert_int_equal(qp_body_set_pose(&world, k, qp_v3(p.x, p.y - f16(0.05), p.z), qp_quat_identity()), QP_OK);
        }
        assert_true(qp_body_is_awake(&world, cube));
        for (int s = 0; s < 120; s++) qp_world_step(&world);
        double dx = d16(qp_body_center(&world, cube).x) - d16(qp_body_center(&world, k).x);
        printf("[kinematic] %s: the sleeping cube woke at once; after 2 s it is %.4f m behind the platform's centre\n",
               how == 0 ? "set velocity 1 m/s" : "set pose 5 cm lower", -dx);
        if (how == 0) {
            assert_true(d16(qp_body_center(&world, cube).x) > 1.7);        /* carried about 2 m */
            assert_true(fabs(d16(qp_body_linear_velocity(&world, cube).x) - 1) < 0.01);
        } else {
            assert_true(fabs(d16(qp_body_center(&world, cube).y) - 0.65) < 0.01);  /* fell the 5 cm */
        }
    }
}

/* The type round-trips through a snapshot, and the restored world steps the same. */
static void test_kinematic_snapshot(void **state)
{
    (void)state;
    load(&world, "plane\nbox half 1.5 0.1 1.5 pos 0 0.5 0 kinematic vel 0 0.5 0 spin 0 0.3 0\n"
                 "box half 0.5 0.5 0.5 pos 0 1.1 0\n");
    for (int s = 0; s < 20; s++) qp_world_step(&world);
    unsigned long n = qp_world_snapshot(&world, snap_a, sizeof snap_a);
    assert_int_equal(qp_world_restore(&other, snap_a, n), QP_OK);
    assert_int_equal(qp_body_get_type(&other, qp_scene_body(&other, 1)), QP_BODY_KINEMATIC);
    for (int s = 0; s < 60; s++) {
        qp_world_step(&world);
        qp_world_step(&other);
        assert_int_equal(qp_world_hash(&world), qp_world_hash(&other));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lift_carries_sleeping_cube),
        cmocka_unit_test(test_never_pushed),
        cmocka_unit_test(test_static_refuses_to_move),
        cmocka_unit_test(test_set_moving_wakes_and_carries),
        cmocka_unit_test(test_kinematic_snapshot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
