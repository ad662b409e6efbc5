/* SPDX-License-Identifier: MIT */
/* Struck structures come to rest: the fast subset of bench/bench_impacts.c (bench/impacts.h
 * builds each seed's wall, pyramid, tower or pile of unit cubes and throws a ball or a box at
 * it). Every structure sleeps within 20 s, no cube buzzes after 5 s, none sinks into the
 * ground; and the wall that a lodged, spinning ball kept awake for ever sleeps. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "../../bench/impacts.h"

static qp_world world;
static impact_scene scene;

static void settles(const char *what, const impact_setup *u, impact_result *r)
{
    assert_true(impact_run_setup(&world, &scene, *u, 1200, true, r));
    printf("[impacts] %s: %d cubes, asleep at step %d, buzz at %d, sunk %d\n", what, r->cubes, r->asleep, r->buzz,
           r->sunk);
    assert_true(r->asleep > 0 && r->asleep <= 1200);
    assert_int_equal(r->buzz, -1);
    assert_int_equal(r->sunk, 0);
}

/* Seeds 1-8 of the suite: two of each kind, 30-190 cubes, balls and boxes of 1-48 kg. */
static void test_struck_structures_sleep(void **state)
{
    (void)state;
    for (unsigned seed = 1; seed <= 8; seed++) {
        impact_setup u = impact_setup_of(seed);
        impact_result r;
        char what[64];
        snprintf(what, sizeof what, "seed %u (%s)", seed, impact_kind_name[u.kind]);
        settles(what, &u, &r);
    }
}

/* A 10-row wall (55 cubes) struck near its base by a 20 kg ball of radius 0.5 m at 6 m/s: the
 * ball lodges in it, under cubes, touching the ground at one point. With no twist friction
 * there it spun about the vertical for ever and the wall never slept (the first of these with
 * the ball's contact point midway into the ground, all three with it on the ball). */
static void test_wall_with_lodged_ball_sleeps(void **state)
{
    (void)state;
    const double heights[3] = { 0.6, 0.3, 1.0 }, sides[3] = { -1.0, 0, 0 };
    for (int i = 0; i < 3; i++) {
        impact_setup u;
        memset(&u, 0, sizeof u);
        u.kind = IMPACT_WALL;
        u.size = 10;
        u.ball = true;
        u.radius = 0.5;
        u.mass = 20;
        u.speed = 6;
        u.aim_height = heights[i];
        u.aim_side = sides[i];
        impact_result r;
        char what[64];
        snprintf(what, sizeof what, "10-row wall, 20 kg ball at (%.1f, %.1f) m", sides[i], heights[i]);
        settles(what, &u, &r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_struck_structures_sleep),
        cmocka_unit_test(test_wall_with_lodged_ball_sleeps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
