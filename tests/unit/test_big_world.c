/* SPDX-License-Identifier: MIT */
/* A group of bodies moves as it would alone in the world however large the world around it:
 * a tilted column of 8 cubes, 2 s with sleep off, ends in the same bits beside an awake
 * pyramid wall of 1 830 cubes 60 m away (about 5 400 contacts: some 50 000 visits of the
 * contact pass a step), made before the column or after it. The velocity passes number
 * their visits in 16 bits to skip those that would change nothing, and renumber them when
 * they run out (src/quiet.h): a pass that stopped skipping there would make the column's
 * visits depend on how many the wall made before them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <cmocka.h>

#include "qphys/world.h"
#include "qp_test_util.h"

#define WALL_BASE 60                              /* cubes along the wall's base */
#define WALL_CUBES (WALL_BASE * (WALL_BASE + 1) / 2)
#define COLUMN 8
#define STEPS 120

static uint64_t memory[(12u << 20) / 8];   /* the world and its pools, 8-byte aligned */
static qp_world *W;

static void big_world(void)
{
    qp_world_caps caps = qp_world_caps_for(WALL_CUBES + COLUMN + 1, WALL_CUBES + COLUMN + 1, 0);
    unsigned long bytes = qp_world_memory_size(&caps);
    assert_true(bytes > 0 && bytes <= sizeof memory);
    qp_world_def def = qp_default_world_def();
    def.sleep_enabled = false;
    assert_int_equal(qp_world_init_in(memory, bytes, &caps, &def, &W), QP_OK);
    qp_body_def d = qp_default_body_def();
    d.type = QP_BODY_STATIC;
    d.shape_count = 1;
    d.shapes[0] = plane(0, 1, 0, 0);
    qp_result err;
    qp_create_body(W, &d, &err);
    assert_int_equal(err, QP_OK);
}

static qp_body_id cube(double x, double y, double z, qp_quat q)
{
    qp_body_def d = qp_default_body_def();
    d.shape_count = 1;
    assert_int_equal(qp_make_box(qp_v3(f16(0.5), f16(0.5), f16(0.5)), &d.shapes[0]), QP_OK);
    d.position = qp_v3(f16(x), f16(y), f16(z));
    d.rotation = q;
    qp_result err;
    qp_body_id id = qp_create_body(W, &d, &err);
    assert_int_equal(err, QP_OK);
    return id;
}

/* Unit cubes, each turned a little about a drawn axis and set a little off the one below. */
static void column(qp_body_id ids[COLUMN])
{
    rng_state = 7u;
    for (int i = 0; i < COLUMN; i++) {
        double axis[3];
        urand3(axis, -1, 1);
        qp_quat q;
        assert_true(qp_quat_from_axis_angle(qp_v3(f16(axis[0]), f16(axis[1] + 2), f16(axis[2])),
                                            f16(urand(-6, 6) * 3.14159265358979 / 180), &q));
        ids[i] = cube(urand(-0.02, 0.02), 0.55 + 1.05 * i, urand(-0.02, 0.02), q);
    }
}

/* A pyramid wall in the x-y plane, as bench/scale_scenes.sh writes them, centred at x = 60. */
static void wall(void)
{
    for (int r = 0; r < WALL_BASE; r++)
        for (int k = 0; k < WALL_BASE - r; k++) cube(60 + k - (WALL_BASE - r - 1) / 2.0, 0.5 + r, 0, qp_quat_identity());
}

/* The column's positions, velocities and rotations after STEPS steps; no wall (0), the wall
 * made before the column (1) or after it (2). */
static void column_after(int with_wall, qp_vec3 out[COLUMN][3], qp_quat rot[COLUMN])
{
    qp_body_id ids[COLUMN];
    big_world();
    if (with_wall == 1) wall();
    column(ids);
    if (with_wall == 2) wall();
    for (int s = 0; s < STEPS; s++) qp_world_step(W);
    if (with_wall) assert_true(qp_world_get_stats(W).contacts > 5000);
    for (int i = 0; i < COLUMN; i++) {
        out[i][0] = qp_body_position(W, ids[i]);
        out[i][1] = qp_body_linear_velocity(W, ids[i]);
        out[i][2] = qp_body_angular_velocity(W, ids[i]);
        rot[i] = qp_body_rotation(W, ids[i]);
    }
}

static void test_column_beside_a_big_wall(void **st)
{
    (void)st;
    static qp_vec3 alone[COLUMN][3], beside[COLUMN][3];
    qp_quat rot_alone[COLUMN], rot_beside[COLUMN];
    column_after(0, alone, rot_alone);
    double top = d16(alone[COLUMN - 1][0].y);
    print_message("[big world] column top at %.3f m after %d steps\n", top, STEPS);
    assert_true(top > 7.3);   /* it stands: what is compared is a standing column */
    for (int with_wall = 1; with_wall <= 2; with_wall++) {
        column_after(with_wall, beside, rot_beside);
        for (int i = 0; i < COLUMN; i++) {
            for (int k = 0; k < 3; k++) {
                assert_int_equal(beside[i][k].x, alone[i][k].x);
                assert_int_equal(beside[i][k].y, alone[i][k].y);
                assert_int_equal(beside[i][k].z, alone[i][k].z);
            }
            assert_memory_equal(&rot_beside[i], &rot_alone[i], sizeof rot_alone[i]);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_column_beside_a_big_wall),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
