/* SPDX-License-Identifier: MIT */
/* Behaviour at the edge of small pools, in the low-RAM layout of the boards.
 *
 * Built against a core with small pools (tests/run.sh passes them as
 * EXTRA_CFLAGS: the library and this test must share qp_world's layout):
 * it sizes its scenes from QP_CFG_MAX_CONTACTS, so the edge is exact.
 *
 * Contacts persist in their own pool: during the narrow phase it holds the
 * contacts written so far and last step's not yet read. When every contact
 * moves to new pairs at once, both generations are there together.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "qp_test_util.h"
#include "qphys/world.h"

#define CAP QP_CFG_MAX_CONTACTS
#if QP_CFG_MAX_BODIES < CAP / 2 + 4 || CAP > 64
#error "build with small pools (tests/run.sh): QP_CFG_MAX_BODIES >= QP_CFG_MAX_CONTACTS / 2 + 4"
#endif

static qp_world world;

static qp_body_id add(qp_shape shape, double x, double y, bool dynamic)
{
    qp_body_def d = qp_default_body_def();
    d.type = dynamic ? QP_BODY_DYNAMIC : QP_BODY_STATIC;
    d.shape_count = 1;
    d.shapes[0] = shape;
    d.position = qp_v3(f16(x), f16(y), 0);
    qp_result r;
    qp_body_id id = qp_create_body(&world, &d, &r);
    assert_int_equal(r, QP_OK);
    return id;
}

/* k balls rest on a box far from the origin, then all move onto the ground
 * (a lower body index, so their new contacts sort before the old ones). */
static void move_k_balls(int k, qp_body_id *balls)
{
    qp_world_def wd = qp_default_world_def();
    wd.sleep_enabled = false;
    assert_int_equal(qp_world_init(&world, &wd), QP_OK);
    add(plane(0, 1, 0, 0), 0, 0, false);                      /* index 1 */
    add(box(k * 0.6 + 1, 0.5, 1), 100, 0.5, false);            /* index 2 */
    for (int i = 0; i < k; i++) balls[i] = add(sphere(0.5), 100 + (i - k / 2.0) * 1.1, 1.5, true);
    for (int s = 0; s < 30; s++) qp_world_step(&world);
    assert_int_equal(qp_world_get_stats(&world).contacts, k);
    assert_int_equal(qp_world_get_stats(&world).overflows, 0);
    for (int i = 0; i < k; i++)
        assert_int_equal(qp_body_set_pose(&world, balls[i], qp_v3(f16(i * 1.1), f16(0.5), 0), qp_quat_identity()),
                         QP_OK);
    qp_world_step(&world);
}

static void expect_resting_on_ground(int k, const qp_body_id *balls)
{
    for (int s = 0; s < 60; s++) qp_world_step(&world);
    assert_int_equal(qp_world_get_stats(&world).contacts, k);
    for (int i = 0; i < k; i++) {
        qp_vec3 p = qp_body_position(&world, balls[i]), v = qp_body_linear_velocity(&world, balls[i]);
        assert_true(fabs(d16(p.y) - 0.5) < 0.01);
        assert_true(fabs(d16(p.x) - i * 1.1) < 0.01);
        assert_true(fabs(d16(v.x)) + fabs(d16(v.y)) + fabs(d16(v.z)) < 0.05);
    }
}

/* Half the pool moving at once fits exactly: nothing is lost or flagged. */
static void test_half_the_pool_moves_without_loss(void **state)
{
    (void)state;
    qp_body_id balls[CAP];
    int k = CAP / 2;
    move_k_balls(k, balls);
    assert_int_equal(qp_world_get_stats(&world).overflows, 0);
    for (int i = 0; i < k; i++) assert_int_equal(qp_body_flags(&world, balls[i]) & QP_FLAG_CONTACTS_LOST, 0);
    expect_resting_on_ground(k, balls);
}

/* Two more: old records are given up (counted, flagged on their bodies),
 * this step's contacts are all kept, and the balls still come to rest. */
static void test_more_than_the_pool_loses_old_records_only(void **state)
{
    (void)state;
    qp_body_id balls[CAP];
    int k = CAP / 2 + 2;
    move_k_balls(k, balls);
    qp_world_stats st = qp_world_get_stats(&world);
    assert_true(st.overflows >= 2);
    assert_int_equal(st.contacts, k);
    int flagged = 0;
    for (int i = 0; i < k; i++) flagged += (qp_body_flags(&world, balls[i]) & QP_FLAG_CONTACTS_LOST) != 0;
    assert_true(flagged >= 2);
    /* Every contact kept is one of this step's: a ball on the ground (body 1). */
    for (int c = 0; c < st.contacts; c++) {
        assert_int_equal(world.contacts[c].a, 1);
        if (c > 0) assert_true(world.contacts[c].b > world.contacts[c - 1].b);
    }
    expect_resting_on_ground(k, balls);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_half_the_pool_moves_without_loss),
        cmocka_unit_test(test_more_than_the_pool_loses_old_records_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
