/* SPDX-License-Identifier: MIT */
/* The read-only contact query (qp_world_contact_count / qp_world_contact_at, src/query.c)
 * as a viewer uses it:
 * 1. A resting cube: one contact, ground first, a unit normal pointing up, four points on
 *    the ground at the cube's corners, and normal impulses carrying the cube's weight.
 * 2. A cube on a cube: the upper contact's normal points from the lower to the upper body,
 *    and its points lie at the height of the interface.
 * 3. Sleep: once the stack sleeps every contact says so, and the points do not move.
 * 4. Light bodies: the impulses are in N s whatever unit the solver keeps them in.
 * 5. Bad calls: an index out of range, a null world or output answer false/0 and leave
 *    the output untouched; a new world has no contacts.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "qphys/world.h"

static qp_world world;

static double D(fix16_t v) { return v / 65536.0; }
static double Q30(qp_q30 v) { return v / 1073741824.0; }

static qp_body_id add_body(bool ground, double y)
{
    qp_body_def b = qp_default_body_def();
    b.shape_count = 1;
    if (ground) {
        b.type = QP_BODY_STATIC;
        assert_int_equal(qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &b.shapes[0]), QP_OK);
    } else {
        assert_int_equal(qp_make_box(qp_v3(QP_ONE / 2, QP_ONE / 2, QP_ONE / 2), &b.shapes[0]), QP_OK);
        b.position = qp_v3(0, (fix16_t)lround(y * 65536.0), 0);
    }
    qp_result err = QP_OK;
    qp_body_id id = qp_create_body(&world, &b, &err);
    assert_int_equal(err, QP_OK);
    return id;
}

static void setup_stack(int cubes)
{
    qp_world_def def = qp_default_world_def();
    assert_int_equal(qp_world_init(&world, &def), QP_OK);
    add_body(true, 0);
    for (int i = 0; i < cubes; i++) add_body(false, 0.5 + i);
}

static void resting_cube(void **state)
{
    (void)state;
    setup_stack(1);
    assert_int_equal(qp_world_contact_count(&world), 0);
    for (int s = 0; s < 30; s++) qp_world_step(&world);
    assert_int_equal(qp_world_contact_count(&world), 1);
    qp_contact_info c;
    assert_true(qp_world_contact_at(&world, 0, &c));
    assert_int_equal(c.a.index, 1);
    assert_int_equal(c.b.index, 2);
    assert_true(qp_body_is_valid(&world, c.a) && qp_body_is_valid(&world, c.b));
    assert_int_equal(c.shape_a, 0);
    assert_int_equal(c.shape_b, 0);
    assert_true(fabs(Q30(c.normal.y) - 1.0) < 1e-4 && fabs(Q30(c.normal.x)) < 1e-4 && fabs(Q30(c.normal.z)) < 1e-4);
    assert_int_equal(c.count, 4);
    double total = 0;
    for (int k = 0; k < c.count; k++) {
        printf("[contacts] point %d (%.4f, %.4f, %.4f) depth %.5f impulse %.5f\n", k, D(c.points[k].x),
               D(c.points[k].y), D(c.points[k].z), D(c.depth[k]), D(c.impulse[k]));
        assert_true(fabs(fabs(D(c.points[k].x)) - 0.5) < 0.01 && fabs(fabs(D(c.points[k].z)) - 0.5) < 0.01);
        assert_true(fabs(D(c.points[k].y)) < 0.01);
        assert_true(c.impulse[k] >= 0);
        total += D(c.impulse[k]);
    }
    /* The weight over one step: m g dt = 1 kg * 10 m/s^2 / 60 s. */
    printf("[contacts] normal impulse %.5f N s, weight per step %.5f\n", total, 10.0 / 60.0);
    assert_true(fabs(total - 10.0 / 60.0) < 0.02);
}

/* Two cubes of 0.1 kg: their contacts keep impulses in a finer unit inside the solver
 * (qp__impulse_shift), and the query still answers in N s: the weight over a step on
 * each contact, 0.1 kg * 10 m/s^2 / 60 s on the upper one, twice that on the ground. */
static void light_cubes_impulse_in_newton_seconds(void **state)
{
    (void)state;
    setup_stack(0);
    for (int i = 0; i < 2; i++) {
        qp_body_def b = qp_default_body_def();
        b.shape_count = 1;
        assert_int_equal(qp_make_box(qp_v3(QP_ONE / 2, QP_ONE / 2, QP_ONE / 2), &b.shapes[0]), QP_OK);
        b.position = qp_v3(0, QP_ONE / 2 + i * QP_ONE, 0);
        b.mass = QP_ONE / 10;
        qp_result err = QP_OK;
        qp_create_body(&world, &b, &err);
        assert_int_equal(err, QP_OK);
    }
    for (int s = 0; s < 30; s++) qp_world_step(&world);
    assert_int_equal(qp_world_contact_count(&world), 2);
    for (int i = 0; i < 2; i++) {
        qp_contact_info c;
        assert_true(qp_world_contact_at(&world, i, &c));
        double total = 0, want = (c.a.index == 1 ? 2 : 1) * 0.1 * 10.0 / 60.0;
        for (int k = 0; k < c.count; k++) total += D(c.impulse[k]);
        printf("[contacts] 0.1 kg cubes, contact %d-%d: normal impulse %.5f N s, load per step %.5f\n", c.a.index,
               c.b.index, total, want);
        assert_true(fabs(total - want) < 0.1 * want);
    }
}

static void cube_on_cube(void **state)
{
    (void)state;
    setup_stack(2);
    for (int s = 0; s < 30; s++) qp_world_step(&world);
    assert_int_equal(qp_world_contact_count(&world), 2);
    qp_contact_info c;
    assert_true(qp_world_contact_at(&world, 1, &c));
    assert_int_equal(c.a.index, 2); /* the lower cube */
    assert_int_equal(c.b.index, 3);
    assert_true(Q30(c.normal.y) > 0.9999);
    for (int k = 0; k < c.count; k++) assert_true(fabs(D(c.points[k].y) - 1.0) < 0.01);
}

static void sleeping_contacts(void **state)
{
    (void)state;
    setup_stack(3);
    for (int s = 0; s < 300; s++) qp_world_step(&world);
    assert_int_equal(qp_world_get_stats(&world).awake, 0);
    int n = qp_world_contact_count(&world);
    assert_int_equal(n, 3);
    qp_contact_info before[3], after;
    for (int i = 0; i < n; i++) {
        assert_true(qp_world_contact_at(&world, i, &before[i]));
        assert_true(before[i].sleeping);
    }
    qp_world_step(&world);
    for (int i = 0; i < n; i++) {
        assert_true(qp_world_contact_at(&world, i, &after));
        assert_memory_equal(before[i].points, after.points, sizeof after.points);
    }
}

static void bad_calls(void **state)
{
    (void)state;
    setup_stack(1);
    for (int s = 0; s < 10; s++) qp_world_step(&world);
    qp_contact_info c, keep;
    memset(&c, 0x5a, sizeof c);
    keep = c;
    assert_false(qp_world_contact_at(&world, -1, &c));
    assert_false(qp_world_contact_at(&world, qp_world_contact_count(&world), &c));
    assert_false(qp_world_contact_at(NULL, 0, &c));
    assert_false(qp_world_contact_at(&world, 0, NULL));
    assert_memory_equal(&c, &keep, sizeof c);
    assert_int_equal(qp_world_contact_count(NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(resting_cube),
        cmocka_unit_test(light_cubes_impulse_in_newton_seconds),
        cmocka_unit_test(cube_on_cube),
        cmocka_unit_test(sleeping_contacts),
        cmocka_unit_test(bad_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
