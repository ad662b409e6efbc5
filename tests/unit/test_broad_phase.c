/* SPDX-License-Identifier: MIT */
/* The broad phase (src/broad_phase.c): the pairs it reports are exactly the pairs of
 * shapes whose boxes overlap and of which something moves or a body created asleep has yet
 * to record its contacts (its first step), each once, sorted by body, in
 * scenes that take the plain sweep on x (few shapes) and its sweep in cells (many).
 *
 * 1. Small scene: 100 boxes of mixed sizes and turns, a plane, a few static boxes.
 * 2. A crowd: 500 boxes of mixed sizes among large static and dynamic boxes (wider than
 *    a cell), some asleep, and a plane.
 * 3. A wall of 400 cubes standing in the x-y plane: a column's cubes share their x.
 * 4. Two crowds 1.7 km apart across x and z (a sparse grid, whose cells widen to fit).
 * Each compares with every pair of shapes tested by hand, and checks the pairs' order and
 * the shapes' order on x (made from their creation order: far from sorted, the heap sort's
 * case, in 2-4).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "qphys/world.h"
#include "qphys/world_impl.h"
#include "../../src/stages.h"   /* qp__broad_phase, run here alone */

static qp_world world;

static fix16_t F(double v) { return (fix16_t)lround(v * 65536.0); }
static qp_vec3 V(double x, double y, double z) { return qp_v3(F(x), F(y), F(z)); }

static uint32_t seed;
static double uniform(double lo, double hi)   /* a fixed sequence: the test is the same every run */
{
    seed = seed * 1664525u + 1013904223u;
    return lo + (hi - lo) * (double)(seed >> 8) / 16777216.0;
}

static void init(void)
{
    qp_world_def def = qp_default_world_def();
    assert_int_equal(qp_world_init(&world, &def), QP_OK);
    seed = 12345;
}

static void add_plane(void)
{
    qp_body_def d = qp_default_body_def();
    d.type = QP_BODY_STATIC;
    d.shape_count = 1;
    assert_int_equal(qp_make_plane(V(0, 1, 0), 0, &d.shapes[0]), QP_OK);
    qp_result err;
    qp_create_body(&world, &d, &err);
    assert_int_equal(err, QP_OK);
}

static void add_box(qp_body_type type, qp_vec3 pos, qp_vec3 half, bool turned, bool asleep)
{
    qp_body_def d = qp_default_body_def();
    d.type = type;
    d.position = pos;
    d.asleep = asleep;
    if (turned) {
        assert_true(qp_quat_from_axis_angle(V(0.6, 0.8, 0), F(uniform(0, 3.14159)), &d.rotation));
    }
    d.shape_count = 1;
    assert_int_equal(qp_make_box(half, &d.shapes[0]), QP_OK);
    qp_result err;
    qp_create_body(&world, &d, &err);
    assert_int_equal(err, QP_OK);
}

static void add_crowd(int n, double x0, double z0, double size)
{
    for (int i = 0; i < n; i++) {
        qp_vec3 pos = V(x0 + uniform(-size, size), uniform(0.3, size), z0 + uniform(-size, size));
        double h = uniform(0.2, 1.0);
        add_box(QP_BODY_DYNAMIC, pos, V(h, uniform(0.2, 1.0), h), (i % 3) != 0, (i % 7) == 0);
    }
}

static bool overlap(const qp_aabb *a, const qp_aabb *b)
{
    return a->lo.x <= b->hi.x && b->lo.x <= a->hi.x && a->lo.y <= b->hi.y && b->lo.y <= a->hi.y &&
           a->lo.z <= b->hi.z && b->lo.z <= a->hi.z;
}

static bool moves(int body)
{
    const qp_body_state *b = &world.bodies[body];
    return (b->state & QP_STATE_DYNAMIC) && !(b->state & QP_STATE_ASLEEP);
}

/* Created asleep and not yet stepped: it pairs with what it overlaps, its contacts to be
 * recorded asleep. */
static bool unrecorded(int body)
{
    const qp_body_state *b = &world.bodies[body];
    return (b->state & QP_STATE_DYNAMIC) && (b->state & QP_STATE_ASLEEP) && (b->state & QP_STATE_PLACED);
}

/* The broad phase's pairs against every pair of shapes in use, tested one by one. */
static void check_pairs(int min_expected)
{
    qp__broad_phase(&world);
    assert_int_equal(world.stats.overflows, 0);
    for (int i = 1; i < world.sap_count; i++) {   /* the order ray casts prune with: by low x, then index */
        const qp_aabb *p = &world.shapes[world.sap_order[i - 1]].aabb, *q = &world.shapes[world.sap_order[i]].aabb;
        assert_true(p->lo.x < q->lo.x || (p->lo.x == q->lo.x && world.sap_order[i - 1] < world.sap_order[i]));
    }
    int expected = 0, found = 0;
    uint32_t last = 0;
    for (int i = 0; i < world.pair_count; i++) {
        const qp_pair *p = &world.pairs[i];
        uint32_t key = ((uint32_t)world.shapes[p->a].body << 16) | world.shapes[p->b].body;
        assert_true(i == 0 || key > last);   /* sorted by (body a, body b), none twice */
        last = key;
        assert_true(world.shapes[p->a].body < world.shapes[p->b].body);
    }
    for (int a = 0; a < QP_CFG_MAX_SHAPES; a++) {
        if (world.shapes[a].body == 0) continue;
        for (int b = 0; b < QP_CFG_MAX_SHAPES; b++) {
            int ba = world.shapes[a].body, bb = world.shapes[b].body;
            if (bb == 0 || ba >= bb) continue;
            if (!overlap(&world.shapes[a].aabb, &world.shapes[b].aabb) ||
                (!moves(ba) && !moves(bb) && !unrecorded(ba) && !unrecorded(bb)))
                continue;
            expected++;
            bool listed = false;
            for (int i = 0; i < world.pair_count && !listed; i++)
                listed = world.pairs[i].a == a && world.pairs[i].b == b;
            if (!listed) print_error("pair of bodies %d and %d missing\n", ba, bb);
            found += listed;
        }
    }
    assert_int_equal(found, expected);
    assert_int_equal(world.pair_count, expected);
    assert_true(expected >= min_expected);
}

static void small_scene(void **state)
{
    (void)state;
    init();
    add_plane();
    for (int i = 0; i < 3; i++) add_box(QP_BODY_STATIC, V(-8 + 8 * i, 1, 0), V(2, 1, 2), false, false);
    add_crowd(100, 0, 0, 6);
    check_pairs(100);
}

static void crowd_with_large_shapes(void **state)
{
    (void)state;
    init();
    add_plane();
    for (int i = 0; i < 6; i++) add_box(QP_BODY_STATIC, V(-10 + 4 * i, 1, uniform(-8, 8)), V(3, 1, 1.5), i % 2, false);
    for (int i = 0; i < 6; i++) add_box(QP_BODY_DYNAMIC, V(uniform(-8, 8), 4, uniform(-8, 8)), V(2.5, 0.5, 4), i % 2, i == 3);
    add_crowd(500, 0, 0, 9);
    check_pairs(1000);
}

static void wall(void **state)
{
    (void)state;
    init();
    add_plane();
    for (int r = 0; r < 20; r++)
        for (int k = 0; k < 20; k++) add_box(QP_BODY_DYNAMIC, V(k - 9.5 + 0.5 * (r % 2), 0.5 + r, 0), V(0.5, 0.5, 0.5), false, false);
    check_pairs(400);
}

static void far_apart(void **state)
{
    (void)state;
    init();
    add_plane();
    add_crowd(200, -600, -600, 5);
    add_crowd(200, 600, 600, 5);
    check_pairs(400);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(small_scene),
        cmocka_unit_test(crowd_with_large_shapes),
        cmocka_unit_test(wall),
        cmocka_unit_test(far_apart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
