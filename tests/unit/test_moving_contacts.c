/* Contacts against moving and rolling bodies: a ball launched sliding rolls with its spin
 * matching its speed. */
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

static qp_world world;

static void load(const char *text)
{
    qp_scene_error err;
    qp_result r = qp_scene_load(&world, text, strlen(text), 0, &err);
    if (r != QP_OK) fail_msg("scene:%d:%d: %s", err.line, err.column, err.message);
}

/* A ball (radius r, 1 kg) launched sliding at 2 m/s without spin along floor `floor`
 * (a scene line): after 2 s its spin times its radius is within 0.5 % of its speed, and
 * the speed is the 5/7 of the launch that rolling without slipping keeps (within 1 %). */
static void rolls(const char *floor, double r)
{
    char text[512];
    snprintf(text, sizeof text, "%s\nsphere radius %.4f pos 0 %.4f 0 vel 2 0 0 mass 1\n", floor, r, r);
    load(text);
    qp_body_id ball = qp_scene_body(&world, 1);
    for (int s = 0; s < 120; s++) qp_world_step(&world);
    double v = d16(qp_body_linear_velocity(&world, ball).x), spin = -d16(qp_body_angular_velocity(&world, ball).z);
    printf("[moving] ball r %.2f on '%s': speed %.4f m/s, spin x radius %.4f m/s (%.3f %% apart)\n", r, floor, v,
           spin * r, 100 * fabs(spin * r - v) / v);
    assert_true(fabs(spin * r - v) < 0.005 * v);
    assert_true(fabs(v - 2.0 * 5 / 7) < 0.01 * 2.0 * 5 / 7);
}

/* The friction turns a ball about its own surface point: its arm is the radius, not the
 * radius less half the depth the predicted pose sinks it by (a 10 cm ball rolled 2.8 % off). */
static void test_ball_rolls_with_matching_spin(void **state)
{
    (void)state;
    rolls("plane", 0.05);
    rolls("plane", 0.5);
    rolls("box half 20 0.5 20 pos 0 -0.5 0 static", 0.05);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ball_rolls_with_matching_spin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
