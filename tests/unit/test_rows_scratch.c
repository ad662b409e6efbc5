/* SPDX-License-Identifier: MIT */
/* The rows' memory lent between steps (src/layout.h, qp__rows_scratch): the broad phase's
 * grid of cells and the narrow phase's wake lists take it only when what they need fits in
 * the bytes it reports, so a size short of the pool turns them off without a trace (the
 * plain sweep on x and the scans give the same pairs, slower), and a size past the pool
 * would let them write over other state.
 *
 * 1. The size is the rows of every contact the world can hold: its capacity times a row.
 * 2. Every byte of it is dead between steps: a pile whose scratch is scribbled over before
 *    each step gives the same hash at every step as the same pile left alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "qphys/world.h"
#include "qphys/world_impl.h"
#include "../../src/layout.h"

static qp_world quiet_world, scribbled;

static fix16_t F(double v) { return (fix16_t)(v * 65536.0 + (v < 0 ? -0.5 : 0.5)); }

/* A plane and 4 x 3 x 4 cubes, turned, dropped in a block: they land and press on one another. */
static void make_pile(qp_world *w)
{
    qp_world_def def = qp_default_world_def();
    def.sleep_enabled = false;
    assert_int_equal(qp_world_init(w, &def), QP_OK);
    qp_result err;
    qp_body_def ground = qp_default_body_def();
    ground.type = QP_BODY_STATIC;
    ground.shape_count = 1;
    assert_int_equal(qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &ground.shapes[0]), QP_OK);
    qp_create_body(w, &ground, &err);
    assert_int_equal(err, QP_OK);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 4; k++) {
                qp_body_def d = qp_default_body_def();
                d.position = qp_v3(F(1.1 * i), F(0.6 + 1.1 * j), F(1.1 * k));
                assert_true(qp_quat_from_axis_angle(qp_v3(QP_ONE, QP_ONE, QP_ONE), F(0.1 * (i + j + k)), &d.rotation));
                d.shape_count = 1;
                assert_int_equal(qp_make_box(qp_v3(F(0.5), F(0.5), F(0.5)), &d.shapes[0]), QP_OK);
                qp_create_body(w, &d, &err);
                assert_int_equal(err, QP_OK);
            }
}

static void size_is_the_pool(void **state)
{
    (void)state;
    make_pile(&quiet_world);
    unsigned long bytes = 1;
    unsigned char *mem = qp__rows_scratch(&quiet_world, &bytes);
#if QP_LAYOUT_KEEPS_DERIVED
    qp_world_caps caps = qp_world_get_caps(&quiet_world);
    assert_non_null(mem);
    assert_true(caps.contacts > 0);
    assert_int_equal(bytes, (unsigned long)caps.contacts * sizeof(qp_contact_rows));
    assert_ptr_equal(mem, (unsigned char *)quiet_world.rows);
#else
    assert_null(mem);   /* low-RAM keeps no rows: nothing to lend */
    assert_int_equal(bytes, 0);
#endif
}

static void every_byte_is_dead_between_steps(void **state)
{
    (void)state;
    make_pile(&quiet_world);
    make_pile(&scribbled);
    assert_int_equal(qp_world_hash(&quiet_world), qp_world_hash(&scribbled));
    for (int step = 0; step < 90; step++) {
        unsigned long bytes = 0;
        unsigned char *mem = qp__rows_scratch(&scribbled, &bytes);
        if (mem) memset(mem, 0xA5 ^ step, bytes);
        qp_world_step(&quiet_world);
        qp_world_step(&scribbled);
        assert_int_equal(qp_world_hash(&quiet_world), qp_world_hash(&scribbled));
    }
    /* The pile did something worth comparing: the cubes met the ground and each other. */
    assert_true(quiet_world.stats.contacts > 48);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(size_is_the_pool),
        cmocka_unit_test(every_byte_is_dead_between_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
