/* SPDX-License-Identifier: MIT */
/* Rolling resistance (src/rolling.c): a ball launched rolling stops within the distance its
 * coefficient gives and rolls on without one; its spin keeps matching its speed while it
 * slows; a ball rolling along a struck structure's step lets it sleep; a round dynamic body
 * meets QP_ROUND_ROLLING_RESISTANCE by default and anything else none, and a coefficient
 * of 0 leaves every bit as the step without the stage; a lying capsule's spin is resisted
 * along itself, never turned about another axis; the coefficient is checked where it
 * enters (body creation, scene files) and kept by snapshots. */
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
#include "../../bench/impacts.h"
#include "../../src/stages.h"   /* the step's stage table, to step without the rolling stage */

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

/* With a coefficient of 0 nothing slows a rolling ball: after 5 s it still rolls at 2 m/s. */
static void test_ball_without_resistance_rolls_on(void **state)
{
    (void)state;
    assert_true(roll_distance("plane", "rolling 0", 0.1, 5) < 0);
    qp_body_id ball = qp_scene_body(&world, 1);
    double v = d16(qp_body_linear_velocity(&world, ball).x);
    printf("[rolling] no resistance: %.4f m/s after 5 s\n", v);
    assert_true(fabs(v - 2) < 0.002);
}

/* A stepped wall (two rows of six cubes along z, a third row on the inner one) struck at its
 * base by a 20 kg box at 8 m/s, with a 4 kg ball rolling along its step at 0.5 m/s: with
 * rolling resistance (0.05, or the default) the rolling ball stops and everything sleeps
 * within 20 s; with 0, the ball rolls on along the step for the 20 s and never sleeps. */
static int struck_wall_sleeps_at(double c)   /* c < 0: the ball's default */
{
    char text[2048], option[32] = "";
    if (c >= 0) snprintf(option, sizeof option, " rolling %.3f", c);
    int n = snprintf(text, sizeof text, "plane\n");
    for (int k = 0; k < 6; k++) {
        double z = k * 1.0 - 2.5;
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "box half 0.5 0.5 0.5 pos 0 0.5 %.1f\nbox half 0.5 0.5 0.5 pos 1 0.5 %.1f\n"
                      "box half 0.5 0.5 0.5 pos 0 1.5 %.1f\n",
                      z, z, z);
    }
    n += snprintf(text + n, sizeof text - (size_t)n,
                  "sphere radius 0.25 pos 0.9 1.25 -2.4 vel 0 0 0.5 spin 2 0 0 mass 4%s\n"
                  "box half 0.3 0.3 0.3 pos -3 0.31 0.3 vel 8 0 0 mass 20\n",
                  option);
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
    int with = struck_wall_sleeps_at(0.05), by_default = struck_wall_sleeps_at(-1), without = struck_wall_sleeps_at(0);
    printf("[rolling] struck stepped wall with a ball rolling on its step: asleep at step %d (rolling 0.05), %d (the "
           "default), %d (0)\n",
           with, by_default, without);
    assert_true(with > 0 && with <= 1200);
    assert_true(by_default > 0 && by_default <= 1200);
    assert_int_equal(without, -1);
}

/* The default: a ball launched rolling at 1 m/s on a plane (which adds none of its own)
 * stops within 7 v^2 / (10 c g) of c = QP_ROUND_ROLLING_RESISTANCE (14 m at 0.005), within
 * 5 % short and 2 % long. A capsule lying on its side, its inertia about its axis between a
 * solid ball's (2/5 m r^2) and a solid cylinder's (1/2 m r^2), stops between the ball's
 * distance and the cylinder's, 3 v^2 / (4 c g). A box rolls nothing: a 1 kg ball of rolling 0
 * rolling on a box of the default rolls on. */
static double default_roll(const char *body, double radius)
{
    char text[512];
    snprintf(text, sizeof text, "plane\n%s pos 0 %.3f 0 vel 1 0 0 spin 0 0 %.4f mass 1\n", body, radius, -1 / radius);
    load(text);
    qp_body_id id = qp_scene_body(&world, 1);
    const int steps = (int)(2 * 60 * 1.0 / (5.0 / 7 * d16(QP_ROUND_ROLLING_RESISTANCE) * 10));   /* twice its stop */
    for (int s = 1; s <= steps; s++) {
        qp_world_step(&world);
        if (s > 60 && fabs(d16(qp_body_linear_velocity(&world, id).x)) < 0.001) return d16(qp_body_center(&world, id).x);
    }
    return -1;
}

static void test_round_bodies_resist_by_default(void **state)
{
    (void)state;
    qp_body_def d = qp_default_body_def();
    assert_true(d.rolling_resistance < 0);
    const double c = d16(QP_ROUND_ROLLING_RESISTANCE), expect = 7 * 1.0 * 1.0 / (10 * c * 10),
                 cylinder = 3 * 1.0 * 1.0 / (4 * c * 10);
    double ball = default_roll("sphere radius 0.2", 0.2);
    double capsule = default_roll("capsule radius 0.2 half_height 0.3 rot 1 0 0 90", 0.2);
    printf("[rolling] default %.4f: ball stopped after %.3f m (7 v^2 / (10 c g) = %.3f m), capsule %.3f m (%.3f .. %.3f)\n",
           c, ball, expect, capsule, expect, cylinder);
    assert_true(ball > 0.95 * expect && ball < 1.02 * expect);
    assert_true(capsule > 0.95 * expect && capsule < 1.02 * cylinder);
    load("plane rolling 0\nbox half 20 0.1 1 pos 0 0.1 0 mass 50\n"
         "sphere radius 0.2 pos -10 0.4 0 vel 1 0 0 spin 0 0 -5 mass 1 rolling 0\n");
    qp_body_id free_ball = qp_scene_body(&world, 2);
    for (int s = 0; s < 300; s++) qp_world_step(&world);
    double v = d16(qp_body_linear_velocity(&world, free_ball).x);
    printf("[rolling] a ball of rolling 0 on a box of the default: %.4f m/s after 5 s\n", v);
    assert_true(fabs(v - 1) < 0.002);
}

/* The scene's hash after each of 240 steps, stepped whole or (skip) through the stage table
 * without the rolling stage. */
static void hashes(const char *text, bool skip, uint32_t out[240])
{
    load(text);
    for (int s = 0; s < 240; s++) {
        if (skip) {
            world.stats.step++;
            for (int i = 0; i < qp__step_stage_count; i++)
                if (strcmp(qp__step_stages[i].name, "rolling") != 0) qp__step_stages[i].run(&world);
        } else {
            qp_world_step(&world);
        }
        out[s] = qp_world_hash(&world);
    }
}

/* A world whose round bodies all say rolling 0 steps to the same bits as a step without the
 * rolling stage (what a release without rolling resistance computes): balls rolling, a
 * capsule, a ball dropped on a box, a ball rolling into cubes. With the default the stage
 * changes them. */
static void test_rolling_zero_changes_nothing(void **state)
{
    (void)state;
    const char *scene = "plane\n"
                        "sphere radius 0.1 pos 0 0.1 0 vel 2 0 0 spin 0 0 -20 mass 1%1$s\n"
                        "capsule radius 0.1 half_height 0.3 pos 0 0.1 -2 rot 1 0 0 90 vel 0 0 1 spin 10 0 0%1$s\n"
                        "box half 0.5 0.5 0.5 pos 3 0.5 0\nbox half 0.5 0.5 0.5 pos 3 1.5 0\n"
                        "sphere radius 0.3 pos 3 3 0 spin 1 0 0 restitution 0.5%1$s\n"
                        "sphere radius 0.25 pos 1 0.25 0 vel 3 0 0 spin 0 0 -12 mass 4%1$s\n";
    static uint32_t whole[240], without[240];
    char text[1024];
    for (int zero = 0; zero < 2; zero++) {
        snprintf(text, sizeof text, scene, zero ? " rolling 0" : "");
        hashes(text, false, whole);
        hashes(text, true, without);
        int same = 0;
        for (int s = 0; s < 240; s++) same += whole[s] == without[s];
        printf("[rolling] %s: %d of 240 steps hash as the step without the rolling stage\n",
               zero ? "rolling 0" : "the default", same);
        if (zero)
            assert_int_equal(same, 240);
        else
            assert_true(same < 240);
    }
}

/* Seed 28497 of the impact suite (bench/impacts.h): a 6-layer pyramid struck by an 8.6 kg
 * ball (radius 0.39 m) at 9.4 m/s, which it leaves rolling slowly on one of its steps, a cube
 * top tilted by a few mrad. With no rolling resistance the ball rolled on and the pyramid
 * never slept within 40 s; with the default it sleeps within 20 s (at step 351). The cube
 * turns more easily than the ball: sized by both spins, the resisting impulse of the slow roll
 * went mostly into the cube, whose supports took that turn back, and the ball rolled on until
 * step 2 134. */
static void test_ball_on_struck_pyramid_sleeps(void **state)
{
    (void)state;
    static impact_scene scene;
    impact_result r = { 0 };
    assert_true(impact_run(&world, &scene, 28497, 1200, true, &r));
    printf("[rolling] seed 28497 (pyramid, ball left on a step): asleep at step %d\n", r.asleep);
    assert_true(r.asleep > 0 && r.asleep <= 1200);
}

/* A capsule lying on the floor (1 kg, radius 0.1 m, 0.6 m between its ends' centres), at rest
 * for half a second so that its contact carries its weight, then set spinning about an axis of
 * the floor's plane between its length and across it: the rolling stage takes the spin in the
 * plane back along itself, and never turns it about another axis. Its roll about its length
 * turns several times as easily as its pitch across it; resisted about the spin's own axis
 * alone, the stage stopped the spin along that axis and left the capsule rolling about its
 * length the other way ((0.100, 0.037) rad/s to (-0.012, 0.033) with rolling 1; a ragdoll's arm
 * lying so crept for ever: test_joint_tree.c). With
 * rolling 1 it stops the spin in the plane outright; with the default it slows it, along itself. */
static void test_capsule_spin_resisted_along_itself(void **state)
{
    (void)state;
    const char *coefficient[2] = { "1", "0.003" };
    for (int c = 0; c < 2; c++) {
        char text[256];
        snprintf(text, sizeof text, "plane\ncapsule radius 0.1 half_height 0.3 pos 0 0.1 0 rot 0 0 1 90 mass 1 rolling %s\n",
                 coefficient[c]);
        load(text);
        qp_body_id capsule = qp_scene_body(&world, 1);
        for (int s = 0; s < 30; s++) qp_world_step(&world);
        assert_int_equal(qp_body_set_angular_velocity(&world, capsule, qp_v3(QP_FRAC(1, 10), 0, QP_FRAC(1, 10))), QP_OK);
        world.stats.step++;
        double before[2] = { 0, 0 }, after[2] = { 0, 0 };
        for (int i = 0; i < qp__step_stage_count; i++) {
            bool rolling = strcmp(qp__step_stages[i].name, "rolling") == 0;
            qp_vec3 w = qp_body_angular_velocity(&world, capsule);
            if (rolling) before[0] = d16(w.x), before[1] = d16(w.z);
            qp__step_stages[i].run(&world);
            w = qp_body_angular_velocity(&world, capsule);
            if (rolling) after[0] = d16(w.x), after[1] = d16(w.z);
        }
        double b = hypot(before[0], before[1]), a = hypot(after[0], after[1]);
        double across = fabs(before[0] * after[1] - before[1] * after[0]) / b;   /* spin after, across the spin before */
        printf("[rolling] capsule lying, rolling %s: spin in the plane (%.4f, %.4f) -> (%.4f, %.4f) rad/s, %.5f across it\n",
               coefficient[c], before[0], before[1], after[0], after[1], across);
        assert_true(b > 0.05);
        assert_true(a <= b && before[0] * after[0] + before[1] * after[1] >= 0);
        assert_true(across < 0.001 * b);
        if (c == 0)
            assert_true(a < 0.001 * b);
        else
            assert_true(a > 0.5 * b);
    }
}

/* Checked where it enters: qp_create_body refuses a coefficient outside 0 .. 1 and creates
 * nothing; a scene names the line. */
static void test_coefficient_checked(void **state)
{
    (void)state;
    qp_world_def wd = qp_default_world_def();
    assert_int_equal(qp_world_init(&world, &wd), QP_OK);
    qp_body_def d = qp_default_body_def();
    d.shape_count = 1;
    assert_int_equal(qp_make_sphere(QP_FRAC(1, 10), &d.shapes[0]), QP_OK);
    qp_result r = QP_OK;
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
    const char *negative = "plane\nsphere radius 0.1 pos 0 1 0 rolling -0.5\n";
    assert_true(qp_scene_load(&world, negative, strlen(negative), 0, &err) != QP_OK);
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
        cmocka_unit_test(test_ball_on_struck_pyramid_sleeps),
        cmocka_unit_test(test_round_bodies_resist_by_default),
        cmocka_unit_test(test_rolling_zero_changes_nothing),
        cmocka_unit_test(test_capsule_spin_resisted_along_itself),
        cmocka_unit_test(test_coefficient_checked),
        cmocka_unit_test(test_snapshot_keeps_coefficient),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
