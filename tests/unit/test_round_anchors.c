/* SPDX-License-Identifier: MIT */
/* The static friction anchors of round contacts (src/narrow_phase.c, set_anchors; held by the
 * penetration pass): a capsule leaning against a wall, its foot on the floor, stands where it
 * was placed and sleeps in its first sleep window. Its contact with the wall carries part of
 * its weight in friction along the wall; anchors made where the bodies meet at the predicted
 * poses (a step of free fall on, g dt^2 = 2.8 mm at 60 Hz, along the wall) were that far
 * apart when the penetration pass measured them at the step's start, and the pass lifted the
 * capsule 2.3 to 3 mm up the wall and restarted its sleep test (asleep at steps 65 to 304). */
#include <math.h>
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

/* A capsule (radius 5 cm, segment 0.8 m, 1 kg) leaning deg degrees from the vertical against
 * the wall's face x = 0, friction mu on the floor, the wall and itself: over 10 s, how far its
 * centre strays from where it was placed (m), and the step it sleeps at (*asleep, -1: never). */
static double ladder(double deg, double mu, int *asleep)
{
    const double r = 0.05, h = 0.4, a = deg * 3.14159265358979 / 180;
    char text[512];
    snprintf(text, sizeof text,
             "plane friction %.3f\nbox half 0.5 3 3 pos 0.5 3 0 static friction %.3f\n"
             "capsule radius %.3f half_height %.3f pos %.5f %.5f 0 rot 0 0 1 %.4f mass 1 friction %.3f\n",
             mu, mu, r, h, -r - h * sin(a) + 0.0005, r + h * cos(a) + 0.0005, -deg, mu);
    qp_scene_error err;
    if (qp_scene_load(&world, text, strlen(text), 0, &err) != QP_OK) fail_msg("scene:%d: %s", err.line, err.message);
    qp_body_id capsule = qp_scene_body(&world, 2);
    qp_vec3 start = qp_body_center(&world, capsule);
    double most = 0;
    *asleep = -1;
    for (int s = 1; s <= 600; s++) {
        qp_world_step(&world);
        qp_vec3 d = qp_v3_sub(qp_body_center(&world, capsule), start);
        double m = sqrt(d16(d.x) * d16(d.x) + d16(d.y) * d16(d.y) + d16(d.z) * d16(d.z));
        most = m > most ? m : most;
        if (*asleep < 0 && qp_world_get_stats(&world).awake == 0) *asleep = s;
    }
    return most;
}

static void test_capsule_leaning_on_wall_rests(void **state)
{
    (void)state;
    const double degs[] = { 5, 10, 15, 20, 25 }, mus[] = { 0.3, 0.5, 0.8 };
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 3; j++) {
            int asleep;
            double moved = ladder(degs[i], mus[j], &asleep);
            printf("[anchors] capsule leaning %2.0f deg on a wall, friction %.1f: moved %.3f mm, asleep at step %d\n",
                   degs[i], mus[j], moved * 1000, asleep);
            assert_true(moved < 0.0001);
            assert_true(asleep > 0 && asleep <= 61);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_capsule_leaning_on_wall_rests),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
