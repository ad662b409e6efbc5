/* SPDX-License-Identifier: MIT */
/* What the low-RAM layout packs, seen from the public API (built with the boards' small
 * pools, tests/run.sh): a body's inverse inertia kept as its six distinct entries turns
 * it about the axes the full matrix gives, and the sleep test's boxes kept as a corner and
 * 16-bit sizes judge a motion up to the largest size a world accepts, which is under a
 * metre there (the sizes of a box must fit 16 bits), and the bodies' materials kept once
 * each in a palette of QP_CFG_MAX_MATERIALS fill it, share it and free it, and the
 * forces pending on at most QP_CFG_MAX_FORCED_BODIES bodies and the centres off their
 * origin of at most QP_CFG_MAX_OFFSET_BODIES are kept beside them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "qp_test_util.h"
#include "qphys/world.h"

static qp_world world;

static qp_world_def still_world(void)
{
    qp_world_def d = qp_default_world_def();
    d.gravity = qp_v3_zero();
    return d;
}

/* A 1 kg box of half extents 0.1, 0.3, 0.5 m turned by 30 degrees about its body's z
 * axis: its inverse inertia in the body frame has an xy entry. An impulse whose moment
 * is along each axis in turn must turn it by that column of R diag(1/I) R^T. */
static void test_inverse_inertia_turns_a_body_by_each_column(void **state)
{
    (void)state;
    qp_world_def wd = still_world();
    assert_int_equal(qp_world_init(&world, &wd), QP_OK);
    const double hx = 0.1, hy = 0.3, hz = 0.5, th = 30.0 * 3.14159265358979 / 180.0;
    const double ix = (hy * hy + hz * hz) / 3, iy = (hx * hx + hz * hz) / 3, iz = (hx * hx + hy * hy) / 3;
    const double c = cos(th), s = sin(th);
    const double want[3][3] = { { c * c / ix + s * s / iy, c * s * (1 / ix - 1 / iy), 0 },
                                { c * s * (1 / ix - 1 / iy), s * s / ix + c * c / iy, 0 },
                                { 0, 0, 1 / iz } };
    /* impulse and its point's arm, whose moment (arm x impulse) is the unit axis a */
    const double arm[3][3] = { { 0, 1, 0 }, { 0, 0, 1 }, { 1, 0, 0 } };
    const double imp[3][3] = { { 0, 0, 1 }, { 1, 0, 0 }, { 0, 1, 0 } };
    const double j = 0.1;
    for (int a = 0; a < 3; a++) {
        qp_body_def d = qp_default_body_def();
        d.type = QP_BODY_DYNAMIC;
        d.mass = QP_ONE;
        d.shape_count = 1;
        assert_int_equal(qp_make_box(qp_v3(f16(hx), f16(hy), f16(hz)), &d.shapes[0]), QP_OK);
        assert_true(qp_quat_from_axis_angle(qp_v3(0, 0, QP_ONE), f16(th), &d.shapes[0].rotation));
        d.position = qp_v3(f16(3.0 * a), f16(2), 0);
        qp_result r;
        qp_body_id id = qp_create_body(&world, &d, &r);
        assert_int_equal(r, QP_OK);
        qp_vec3 p = qp_v3(d.position.x + f16(arm[a][0]), d.position.y + f16(arm[a][1]), f16(arm[a][2]));
        assert_int_equal(qp_body_apply_impulse(&world, id, qp_v3(f16(j * imp[a][0]), f16(j * imp[a][1]),
                                                                  f16(j * imp[a][2])), p),
                         QP_OK);
        qp_vec3 w = qp_body_angular_velocity(&world, id);
        const double got[3] = { d16(w.x), d16(w.y), d16(w.z) };
        for (int k = 0; k < 3; k++) {
            const double expect = j * want[k][a];
            assert_true(fabs(got[k] - expect) <= 0.01 * fabs(j * want[a][a]) + 1e-4);
        }
    }
}

/* Sleep test sizes: up to a unit under a metre, and a world with a metre is refused and
 * left as it was. */
static void test_sleep_sizes_under_a_metre(void **state)
{
    (void)state;
    qp_world_def d = still_world();
    memset(&world, 0x5A, sizeof world);
    d.sleep_center_size = QP_ONE;
    assert_int_equal(qp_world_init(&world, &d), QP_ERR_RANGE);
    d.sleep_center_size = QP_FRAC(1, 100);
    d.sleep_point_size = QP_ONE;
    assert_int_equal(qp_world_init(&world, &d), QP_ERR_RANGE);
    const unsigned char *bytes = (const unsigned char *)&world;
    for (size_t i = 0; i < sizeof world; i++) assert_int_equal(bytes[i], 0x5A);
    d.sleep_center_size = d.sleep_point_size = QP_ONE - 1;
    assert_int_equal(qp_world_init(&world, &d), QP_OK);
}

/* A box sliding on frictionless ground at 0.9 m/s moves 0.9 m in the 60 steps of its sleep
 * test: with boxes of 0.999 m it sleeps, with 0.85 m it never does (its boxes start again). */
static bool slider_sleeps(fix16_t size)
{
    qp_world_def wd = qp_default_world_def();
    wd.sleep_center_size = wd.sleep_point_size = size;
    assert_int_equal(qp_world_init(&world, &wd), QP_OK);
    qp_body_def g = qp_default_body_def();
    g.type = QP_BODY_STATIC;
    g.shape_count = 1;
    g.friction = 0;
    assert_int_equal(qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &g.shapes[0]), QP_OK);
    qp_result r;
    (void)qp_create_body(&world, &g, &r);
    assert_int_equal(r, QP_OK);
    qp_body_def d = qp_default_body_def();
    d.type = QP_BODY_DYNAMIC;
    d.mass = QP_ONE;
    d.friction = 0;
    d.shape_count = 1;
    assert_int_equal(qp_make_box(qp_v3(QP_FRAC(1, 4), QP_FRAC(1, 4), QP_FRAC(1, 4)), &d.shapes[0]), QP_OK);
    d.position = qp_v3(0, QP_FRAC(1, 4), 0);
    d.linear_velocity = qp_v3(-QP_FRAC(9, 10), 0, 0);   /* towards -x: each step lowers the boxes' low corners */
    qp_body_id id = qp_create_body(&world, &d, &r);
    assert_int_equal(r, QP_OK);
    for (int i = 0; i < 240; i++) {
        qp_world_step(&world);
        if (!qp_body_is_awake(&world, id)) return true;
    }
    assert_true(d16(qp_body_position(&world, id).x) < -(0.9 * 4 - 0.1));   /* it slid all along */
    return false;
}

static void test_sleep_boxes_hold_sizes_up_to_a_metre(void **state)
{
    (void)state;
    assert_true(slider_sleeps(QP_ONE - 64));
    assert_false(slider_sleeps(QP_FRAC(85, 100)));
}

/* Materials: a palette of QP_CFG_MAX_MATERIALS (4 in these pools) distinct ones. Ground
 * (friction 1) and boxes of friction 0.1, 0.2 and 0.3 fill it: a box of 0.4 is refused and
 * changes nothing; one of 0.2 shares an entry. With the 0.3 box gone its entry takes 0.4,
 * and the boxes then slide as far, to the bit, as in a world made with those materials
 * from the start (and less far the more friction they have). */
static qp_body_id add_slider(qp_world *w, double friction, double z, qp_result *r)
{
    qp_body_def d = qp_default_body_def();
    d.type = QP_BODY_DYNAMIC;
    d.mass = QP_ONE;
    d.friction = f16(friction);
    d.shape_count = 1;
    assert_int_equal(qp_make_box(qp_v3(QP_FRAC(1, 4), QP_FRAC(1, 4), QP_FRAC(1, 4)), &d.shapes[0]), QP_OK);
    d.position = qp_v3(0, QP_FRAC(1, 4), f16(z));
    d.linear_velocity = qp_v3(QP_FRAC(3, 2), 0, 0);
    return qp_create_body(w, &d, r);
}

static void add_ground(qp_world *w)
{
    qp_world_def wd = qp_default_world_def();
    assert_int_equal(qp_world_init(w, &wd), QP_OK);
    qp_body_def g = qp_default_body_def();
    g.type = QP_BODY_STATIC;
    g.shape_count = 1;
    g.friction = QP_ONE;
    assert_int_equal(qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &g.shapes[0]), QP_OK);
    qp_result r;
    (void)qp_create_body(w, &g, &r);
    assert_int_equal(r, QP_OK);
}

static qp_world reference;
static unsigned char snap[16384];

static void test_material_palette_fills_shares_and_frees(void **state)
{
    (void)state;
    assert_int_equal(QP_CFG_MAX_MATERIALS, 4);
    qp_result r;
    add_ground(&world);
    qp_body_id a = add_slider(&world, 0.1, 0, &r);
    assert_int_equal(r, QP_OK);
    qp_body_id b = add_slider(&world, 0.2, 2, &r);
    assert_int_equal(r, QP_OK);
    qp_body_id c = add_slider(&world, 0.3, 4, &r);
    assert_int_equal(r, QP_OK);
    const uint32_t full = qp_world_hash(&world);
    assert_true(qp_body_id_is_null(add_slider(&world, 0.4, 6, &r)));
    assert_int_equal(r, QP_ERR_FULL);
    assert_int_equal(qp_world_hash(&world), full);
    qp_body_id shared = add_slider(&world, 0.2, 8, &r);
    assert_int_equal(r, QP_OK);
    assert_int_equal(qp_destroy_body(&world, shared), QP_OK);
    assert_int_equal(qp_destroy_body(&world, c), QP_OK);
    qp_body_id d = add_slider(&world, 0.4, 6, &r);
    assert_int_equal(r, QP_OK);

    add_ground(&reference);
    qp_body_id ra = add_slider(&reference, 0.1, 0, &r);
    qp_body_id rb = add_slider(&reference, 0.2, 2, &r);
    qp_body_id rd = add_slider(&reference, 0.4, 6, &r);
    assert_int_equal(r, QP_OK);
    for (int i = 0; i < 90; i++) {
        qp_world_step(&world);
        qp_world_step(&reference);
    }
    const qp_body_id got[3] = { a, b, d }, want[3] = { ra, rb, rd };
    for (int k = 0; k < 3; k++) {
        qp_vec3 p = qp_body_position(&world, got[k]), q = qp_body_position(&reference, want[k]);
        assert_int_equal(p.x, q.x);
        assert_int_equal(p.y, q.y);
        assert_int_equal(p.z, q.z);
        if (k > 0) assert_true(p.x < qp_body_position(&world, got[k - 1]).x);
    }
}

/* A snapshot keeps each body's material, not its palette entry: restored, the world hashes
 * and steps as the saved one. */
static void test_materials_restore_from_a_snapshot(void **state)
{
    (void)state;
    qp_result r;
    add_ground(&world);
    for (int k = 0; k < 3; k++) {
        (void)add_slider(&world, 0.1 * (k + 1), 2 * k, &r);
        assert_int_equal(r, QP_OK);
    }
    qp_world_step(&world);
    unsigned long n = qp_world_snapshot(&world, snap, sizeof snap);
    assert_true(n > 0 && n <= sizeof snap);
    add_ground(&reference);
    (void)add_slider(&reference, 0.5, 0, &r);   /* a palette of other materials, replaced */
    assert_int_equal(qp_world_restore(&reference, snap, n), QP_OK);
    assert_int_equal(qp_world_hash(&reference), qp_world_hash(&world));
    for (int i = 0; i < 60; i++) {
        qp_world_step(&world);
        qp_world_step(&reference);
    }
    assert_int_equal(qp_world_hash(&reference), qp_world_hash(&world));
}

/* Pending forces: a list of QP_CFG_MAX_FORCED_BODIES (2 in these pools) bodies. A third
 * body's force is refused and changes nothing, until a body in the list is destroyed or a
 * step applies them all; a body's torque joins its force's entry. A snapshot with forces
 * pending restores to a world that steps as the saved one. */
static void test_forces_pending_fill_a_list_the_step_empties(void **state)
{
    (void)state;
    qp_result r;
    add_ground(&world);
    qp_body_id a = add_slider(&world, 0.5, 0, &r);
    qp_body_id b = add_slider(&world, 0.5, 2, &r);
    qp_body_id c = add_slider(&world, 0.5, 4, &r);
    assert_int_equal(r, QP_OK);
    assert_int_equal(qp_body_apply_force(&world, a, qp_v3(0, 0, QP_INT(6))), QP_OK);
    assert_int_equal(qp_body_apply_force(&world, b, qp_v3(0, 0, QP_INT(3))), QP_OK);
    assert_int_equal(qp_body_apply_torque(&world, a, qp_v3(0, QP_INT(5), 0)), QP_OK);   /* more than friction holds */
    const uint32_t full = qp_world_hash(&world);
    assert_int_equal(qp_body_apply_force(&world, c, qp_v3(0, 0, QP_INT(6))), QP_ERR_FULL);
    assert_int_equal(qp_body_apply_torque(&world, c, qp_v3(0, QP_ONE, 0)), QP_ERR_FULL);
    assert_int_equal(qp_world_hash(&world), full);

    unsigned long n = qp_world_snapshot(&world, snap, sizeof snap);
    assert_true(n > 0 && n <= sizeof snap);
    add_ground(&reference);
    assert_int_equal(qp_world_restore(&reference, snap, n), QP_OK);
    assert_int_equal(qp_world_hash(&reference), full);

    qp_world_step(&world);
    qp_world_step(&reference);
    assert_int_equal(qp_world_hash(&reference), qp_world_hash(&world));
    /* a was pushed along z twice as hard as b, and turned; c not at all */
    const double dt = d16(qp_default_world_def().dt);
    assert_true(fabs(d16(qp_body_linear_velocity(&world, a).z) - 6 * dt) < 0.2 * 6 * dt);
    assert_true(fabs(d16(qp_body_linear_velocity(&world, b).z) - 3 * dt) < 0.2 * 3 * dt);
    assert_int_equal(qp_body_linear_velocity(&world, c).z, 0);
    assert_true(qp_body_angular_velocity(&world, a).y > 0);

    /* applied: the list is empty again */
    assert_int_equal(qp_body_apply_force(&world, a, qp_v3(0, 0, QP_ONE)), QP_OK);
    assert_int_equal(qp_body_apply_force(&world, b, qp_v3(0, 0, QP_ONE)), QP_OK);
    assert_int_equal(qp_body_apply_force(&world, c, qp_v3(0, 0, QP_ONE)), QP_ERR_FULL);
    assert_int_equal(qp_destroy_body(&world, b), QP_OK);
    assert_int_equal(qp_body_apply_force(&world, c, qp_v3(0, 0, QP_ONE)), QP_OK);
}

/* Offset centres: a list of QP_CFG_MAX_OFFSET_BODIES (1 in these pools). A box placed 0.5 m
 * off its body's origin has its centre there and its origin where it was put, also after a
 * set_pose; a second such body is refused and changes nothing until the first is gone; a
 * snapshot restores it to the same hash. */
static qp_body_id add_offset_box(qp_world *w, double x, qp_result *r)
{
    qp_body_def d = qp_default_body_def();
    d.type = QP_BODY_DYNAMIC;
    d.mass = QP_ONE;
    d.shape_count = 1;
    assert_int_equal(qp_make_box(qp_v3(QP_FRAC(1, 4), QP_FRAC(1, 4), QP_FRAC(1, 4)), &d.shapes[0]), QP_OK);
    d.shapes[0].offset = qp_v3(QP_FRAC(1, 2), 0, 0);
    d.position = qp_v3(f16(x), QP_FRAC(1, 4), 0);
    return qp_create_body(w, &d, r);
}

static void test_offset_centres_fill_a_list(void **state)
{
    (void)state;
    qp_result r;
    add_ground(&world);
    qp_body_id a = add_offset_box(&world, 0, &r);
    assert_int_equal(r, QP_OK);
    assert_int_equal(qp_body_center(&world, a).x, QP_FRAC(1, 2));
    assert_int_equal(qp_body_position(&world, a).x, 0);
    qp_body_id plain = add_slider(&world, 0.5, 3, &r);   /* centred: no entry */
    assert_int_equal(r, QP_OK);
    const uint32_t full = qp_world_hash(&world);
    assert_true(qp_body_id_is_null(add_offset_box(&world, 6, &r)));
    assert_int_equal(r, QP_ERR_FULL);
    assert_int_equal(qp_world_hash(&world), full);

    const qp_vec3 to = qp_v3(QP_INT(2), QP_FRAC(1, 4), QP_INT(1));
    assert_int_equal(qp_body_set_pose(&world, a, to, qp_quat_identity()), QP_OK);
    assert_int_equal(qp_body_position(&world, a).x, QP_INT(2));
    assert_int_equal(qp_body_center(&world, a).x, QP_INT(2) + QP_FRAC(1, 2));
    unsigned long n = qp_world_snapshot(&world, snap, sizeof snap);
    assert_true(n > 0 && n <= sizeof snap);
    add_ground(&reference);
    assert_int_equal(qp_world_restore(&reference, snap, n), QP_OK);
    assert_int_equal(qp_world_hash(&reference), qp_world_hash(&world));
    for (int i = 0; i < 30; i++) {
        qp_world_step(&world);
        qp_world_step(&reference);
    }
    assert_int_equal(qp_world_hash(&reference), qp_world_hash(&world));

    assert_int_equal(qp_destroy_body(&world, a), QP_OK);
    qp_body_id b = add_offset_box(&world, 6, &r);
    assert_int_equal(r, QP_OK);
    assert_int_equal(qp_body_center(&world, b).x, QP_INT(6) + QP_FRAC(1, 2));
    assert_int_equal(qp_body_center(&world, plain).z, QP_INT(3));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inverse_inertia_turns_a_body_by_each_column),
        cmocka_unit_test(test_sleep_sizes_under_a_metre),
        cmocka_unit_test(test_sleep_boxes_hold_sizes_up_to_a_metre),
        cmocka_unit_test(test_material_palette_fills_shares_and_frees),
        cmocka_unit_test(test_materials_restore_from_a_snapshot),
        cmocka_unit_test(test_forces_pending_fill_a_list_the_step_empties),
        cmocka_unit_test(test_offset_centres_fill_a_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
