/* SPDX-License-Identifier: MIT */
/* Rolling resistance (src/rolling.c): a ball launched rolling stops within the distance its
 * coefficient gives and rolls on without one; its spin keeps matching its speed while it
 * slows; a ball rolling along a struck structure's step lets it sleep; the coefficient is
 * checked where it enters (body creation, scene files) and kept by snapshots. */
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

static qp_world world, copy;
static unsigned char snap[1 << 16];

static void load(const char *text)
{
    qp_scene_error err;
    qp_result r = qp_scene_load(&world, text, strlen(text), 0, &err);
    if (r != QP_OK) fail_msg("scene:%d:%d: %s", err.line, err.column, err.message);
}

/* A 1 kg ball of radius r launched rolling without slipping at 2 m/s along x on a floor
 * (a scene line), the ball's own options after it: how far it goes before it stops (under
 * 1 mm/s), within `seconds`; -1 if it does not stop. At second 1 its spin times its radius
 * is within 0.5 % of its speed. */
static double roll_distance(const char *floor, const char *ball_options, double r, double seconds)
{
    char text[512];
    snprintf(text, sizeof text, "%s\nsphere radius %.4f pos 0 %.4f 0 vel 2 0 0 spin 0 0 %.6f mass 1 %s\n", floor, r, r,
             -2 / r, ball_options);
    load(text);
    qp_body_id ball = qp_scene_body(&world, 1);
    for (int s = 1; s <= (int)(seconds * 60); s++) {
        qp_world_step(&world);
        double v = d16(qp_body_linear_velocity(&world, ball).x), spin = -d16(qp_body_angular_velocity(&world, ball).z);
        if (s == 60) {
            printf("[rolling] r %.2f, '%s' '%s': at 1 s speed %.4f m/s, spin x radius %.4f (%.3f %% apart)\n", r, floor,
                   ball_options, v, spin * r, 100 * fabs(spin * r - v) / v);
            assert_true(fabs(spin * r - v) < 0.005 * v);
        }
        if (s > 60 && fabs(v) < 0.001) return d16(qp_body_center(&world, ball).x);
    }
    return -1;
}

/* A solid ball rolling at v slows at 5/7 c g under a rolling torque c r m g: it stops after
 * 7 v^2 / (10 c g) (g = 10), here within 5 % short and 2 % long of it. The coefficient is the
 * larger of the two bodies': the floor's alone does the same. A 5 cm ball at 0.005 takes
 * 4e-5 N m s a step, 2.7 units of Q16.16: the stage keeps it in 2^-24 N m s (rounded to
 * Q16.16 it went 10 % short). */
static void test_ball_stops_within_its_distance(void **state)
{
    (void)state;
    const struct {
        const char *floor, *ball;
        double r, c;
    } cases[] = {
        { "plane", "rolling 0.05", 0.1, 0.05 },
        { "plane rolling 0.05", "", 0.1, 0.05 },
        { "plane", "rolling 0.2", 0.5, 0.2 },
        { "box half 20 0.5 20 pos 0 -0.5 0 static", "rolling 0.1", 0.25, 0.1 },
        { "plane", "rolling 0.005", 0.05, 0.005 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double expect = 7 * 2.0 * 2.0 / (10 * cases[i].c * 10), stop = 2.0 / (5.0 / 7 * cases[i].c * 10);
        double d = roll_distance(cases[i].floor, cases[i].ball, cases[i].r, 1.5 * stop);
        printf("[rolling] c %.3f, r %.2f: stopped after %.3f m (7 v^2 / (10 c g) = %.3f m)\n", cases[i].c, cases[i].r, d,
               expect);
        assert_true(d > 0.95 * expect && d < 1.02 * expect);
    }
}

/* Without a coefficient (the default) nothing slows a rolling ball: after 5 s it still rolls
 * at 2 m/s. */
static void test_ball_without_resistance_rolls_on(void **state)
{
    (void)state;
    assert_true(roll_distance("plane", "", 0.1, 5) < 0);
    qp_body_id ball = qp_scene_body(&world, 1);
    double v = d16(qp_body_linear_velocity(&world, ball).x);
    printf("[rolling] no resistance: %.4f m/s after 5 s\n", v);
    assert_true(fabs(v - 2) < 0.002);
}

/* A stepped wall (two rows of six cubes along z, a third row on the inner one) struck at its
 * base by a 20 kg box at 8 m/s, with a 4 kg ball rolling along its step at 0.5 m/s: with
 * rolling resistance the rolling ball stops and everything sleeps within 20 s; without,
 * the ball rolls on along the step for the 20 s and never sleeps. */
static int struck_wall_sleeps_at(double c)
{
    char text[2048];
    int n = snprintf(text, sizeof text, "plane\n");
    for (int k = 0; k < 6; k++) {
        double z = k * 1.0 - 2.5;
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "box half 0.5 0.5 0.5 pos 0 0.5 %.1f\nbox half 0.5 0.5 0.5 pos 1 0.5 %.1f\n"
                      "box half 0.5 0.5 0.5 pos 0 1.5 %.1f\n",
                      z, z, z);
    }
    n += snprintf(text + n, sizeof text - (size_t)n,
                  "sphere radius 0.25 pos 0.9 1.25 -2.4 vel 0 0 0.5 spin 2 0 0 mass 4 rolling %.3f\n"
                  "box half 0.3 0.3 0.3 pos -3 0.31 0.3 vel 8 0 0 mass 20\n",
                  c);
    load(text);
    for (int s = 1; s <= 1200; s++) {
        qp_world_step(&world);
        if (qp_world_get_stats(&world).awake == 0) return s;
    }
    for (int i = 1; i <= 20; i++)
        if (qp_body_is_awake(&world, qp_scene_body(&world, i))) printf("[rolling]   body %d awake\n", i);
    return -1;
}

static void test_struck_wall_with_rolling_ball_sleeps(void **state)
{
    (void)state;
    int with = struck_wall_sleeps_at(0.05), without = struck_wall_sleeps_at(0);
    printf("[rolling] struck stepped wall with a ball rolling on its step: asleep at step %d (rolling 0.05), %d (0)\n",
           with, without);
    assert_true(with > 0 && with <= 1200);
    assert_int_equal(without, -1);
}

/* Checked where it enters: qp_create_body refuses a coefficient outside 0 .. 1 and creates
 * nothing; a scene names the line. */
static void test_coefficient_checked(void **state)
{
    (void)state;
    qp_world_def wd = qp_default_world_def();
    assert_int_equal(qp_world_init(&world, &wd), QP_OK);
    qp_body_def d = qp_default_body_def();
    assert_int_equal(d.rolling_resistance, 0);
    d.shape_count = 1;
    assert_int_equal(qp_make_sphere(QP_FRAC(1, 10), &d.shapes[0]), QP_OK);
    qp_result r = QP_OK;
    d.rolling_resistance = -1;
    assert_true(qp_body_id_is_null(qp_create_body(&world, &d, &r)));
    assert_int_equal(r, QP_ERR_RANGE);
    d.rolling_resistance = QP_ONE + 1;
    assert_true(qp_body_id_is_null(qp_create_body(&world, &d, &r)));
    assert_int_equal(r, QP_ERR_RANGE);
    assert_int_equal(qp_world_get_stats(&world).bodies, 0);
    const char *text = "plane\nsphere radius 0.1 pos 0 1 0 rolling 1.5\n";
    qp_scene_error err;
    assert_true(qp_scene_load(&world, text, strlen(text), 0, &err) != QP_OK);
    printf("[rolling] scene:%d:%d: %s\n", err.line, err.column, err.message);
    assert_int_equal(err.line, 2);
    assert_non_null(strstr(err.message, "rolling resistance out of range: 0 .. 1"));
}

/* A snapshot keeps the coefficient: the restored world rolls on in the same bits. */
static void test_snapshot_keeps_coefficient(void **state)
{
    (void)state;
    load("plane\nsphere radius 0.1 pos 0 0.1 0 vel 2 0 0 spin 0 0 -20 mass 1 rolling 0.05\n");
    for (int s = 0; s < 30; s++) qp_world_step(&world);
    unsigned long n = qp_world_snapshot(&world, snap, sizeof snap);
    assert_true(n > 0);
    assert_int_equal(qp_world_restore(&copy, snap, n), QP_OK);
    for (int s = 0; s < 120; s++) {
        qp_world_step(&world);
        qp_world_step(&copy);
    }
    assert_int_equal(qp_world_hash(&world), qp_world_hash(&copy));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ball_stops_within_its_distance),
        cmocka_unit_test(test_ball_without_resistance_rolls_on),
        cmocka_unit_test(test_struck_wall_with_rolling_ball_sleeps),
        cmocka_unit_test(test_coefficient_checked),
        cmocka_unit_test(test_snapshot_keeps_coefficient),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
