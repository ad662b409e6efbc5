/* SPDX-License-Identifier: MIT */
/* Tall walls at rest. The shock pass pins each level on the one below, so a body takes its
 * supports' motion at the contacts; a body held by two supports took a little more than
 * either gave, and a level's rounding grew by about 1.1 a level up a wall (docs/limits.md):
 * seed 004's pyramid wall of 8 256 cubes threw its top rows. A running-bond wall four metres
 * wide and 96 rows high (240 bodies, every one above the first row on two supports) shows it
 * within one step: its upper rows reached 2.6 m/s. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <cmocka.h>

#include "qphys/scene.h"
#include "qphys/world.h"
#include "qp_test_util.h"

#define ROWS 96
#define MAX_WALL 256

static qp_world W;
static qp_body_id wall[MAX_WALL];
static qp_vec3 start[MAX_WALL];
static int count;

static char text[32768];

/* The wall as a scene file gives it. Even rows: two 2 m bricks; odd rows: a cube, a brick
 * across the joint below, a cube. Every brick and cube lies on its supports whole, exactly
 * touching them. */
static void build_wall(void)
{
    int n = snprintf(text, sizeof text, "world gravity 0 -10 0 hz 60 iterations 10 sleep on\nplane\n");
    for (int r = 0; r < ROWS; r++) {
        double y = 0.5 + r;
        if (r % 2 == 0)
            n += snprintf(text + n, sizeof text - (size_t)n, "box half 1 0.5 0.5 pos -1 %g 0\nbox half 1 0.5 0.5 pos 1 %g 0\n",
                          y, y);
        else
            n += snprintf(text + n, sizeof text - (size_t)n,
                          "box half 0.5 0.5 0.5 pos -1.5 %g 0\nbox half 1 0.5 0.5 pos 0 %g 0\nbox half 0.5 0.5 0.5 pos 1.5 %g 0\n",
                          y, y, y);
        assert_true(n < (int)sizeof text);
    }
    qp_scene_error err;
    assert_int_equal(qp_scene_load(&W, text, (unsigned long)n, NULL, &err), QP_OK);
    count = 0;
    for (int i = 1; i <= qp_world_capacity(); i++) {
        qp_body_id id = qp_world_body_at(&W, i);
        if (!qp_body_is_valid(&W, id) || qp_body_get_type(&W, id) != QP_BODY_DYNAMIC) continue;
        assert_true(count < MAX_WALL);
        wall[count] = id;
        start[count] = qp_body_position(&W, id);
        count++;
    }
    assert_int_equal(count, ROWS / 2 * 5);
}

static double speed(qp_vec3 v)
{
    return sqrt(d16(v.x) * d16(v.x) + d16(v.y) * d16(v.y) + d16(v.z) * d16(v.z));
}

static double moved(int i)
{
    qp_vec3 p = qp_body_position(&W, wall[i]);
    qp_vec3 d = qp_v3(p.x - start[i].x, p.y - start[i].y, p.z - start[i].z);
    return speed(d);
}

/* The first step adds at most what gravity and the solver's tolerance give: under 1 cm/s
 * everywhere (2.6 m/s at the 60th row when the pass handed the rounding up). */
static void test_wall_first_step_stays_still(void **state)
{
    (void)state;
    build_wall();
    qp_world_step(&W);
    double fastest = 0.0;
    for (int i = 0; i < count; i++) {
        double v = speed(qp_body_linear_velocity(&W, wall[i]));
        fastest = v > fastest ? v : fastest;
    }
    assert_true(fastest < 0.01);
}

/* Over half a second every brick stays within 5 mm of its place (29 cm when it grew). */
static void test_wall_stands_half_a_second(void **state)
{
    (void)state;
    build_wall();
    for (int s = 0; s < 30; s++) qp_world_step(&W);
    double farthest = 0.0;
    for (int i = 0; i < count; i++) farthest = moved(i) > farthest ? moved(i) : farthest;
    assert_true(farthest < 0.005);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wall_first_step_stays_still),
        cmocka_unit_test(test_wall_stands_half_a_second),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
