/* SPDX-License-Identifier: MIT */
/* Heavy loads pressed into static geometry: held, or flagged, never a silent sink; and the
 * documented ranges at their edges (docs/limits.md, docs/math.md).
 *
 * - The fidelity table's case, a 10 t ball on the ground under g = 500-1000, needs 83-167 kN s a step
 *   at one point, past what Q16.16 holds (32767 N s): it sinks, and is flagged
 *   QP_FLAG_IMPULSE_LIMIT from its first steps. A 10 t box spreads the same weight over four
 *   points and is held up to g = 750 (31 250 N s a point), flagged at g = 1000.
 * - Columns of heavy boxes are held against the ground (no point deeper than 1 cm) and stand
 *   within 2 cm at the edges docs/limits.md lists; beyond them they lean and topple (not a load
 *   the numbers cannot hold; the cause is not found, 1 kg boxes stand exactly at any g), and a
 *   deep overlap then only comes from the fall (none before the column leans by 15 cm).
 * Every depth is measured from outside with qp_collide at the bodies' poses. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "qp_test_util.h"
#include "qphys/qphys.h"

static qp_world W;

typedef struct {
    double deepest;      /* m: deepest any body is in the ground or in the one below, over 10 s */
    double moved;        /* m: farthest any body moved from where it was placed */
    int flagged_step;    /* first step with QP_FLAG_IMPULSE_LIMIT, -1 never */
    uint32_t flags;
} column_result;

/* n bodies of mass kg each (unit boxes or balls of radius 0.5) stacked on the ground
 * under gravity g, stepped 10 s with sleep on (the default). */
static column_result column(int n, double kg, double g, bool boxes)
{
    qp_world_def def = qp_default_world_def();
    def.gravity = qp_v3(0, f16(-g), 0);
    qp_body_id ground = init_with_ground(&W, &def);
    qp_body_def d;
    qp_result err;
    qp_body_id id[10];
    assert_true(n <= 10);
    for (int i = 0; i < n; i++) {
        d = qp_default_body_def();
        d.shape_count = 1;
        d.shapes[0] = boxes ? box(0.5, 0.5, 0.5) : sphere(0.5);
        d.mass = f16(kg);
        d.position = qp_v3(0, f16(0.5 + i), 0);
        id[i] = qp_create_body(&W, &d, &err);
        assert_int_equal(err, QP_OK);
    }
    column_result r = { 0, 0, -1, 0 };
    for (int s = 1; s <= 600; s++) {
        qp_world_step(&W);
        for (int i = 0; i < n; i++) {
            r.deepest = fmax(r.deepest, depth_between(&W, i ? id[i - 1] : ground, id[i]));
            qp_vec3 p = qp_body_position(&W, id[i]);
            double dx = d16(p.x), dy = d16(p.y) - (0.5 + i), dz = d16(p.z);
            r.moved = fmax(r.moved, sqrt(dx * dx + dy * dy + dz * dz));
            r.flags |= qp_body_flags(&W, id[i]);
        }
        if (r.flagged_step < 0 && (r.flags & QP_FLAG_IMPULSE_LIMIT)) r.flagged_step = s;
    }
    printf("measure: %2d %s of %5.0f kg, g = %4.0f (bottom %6.0f N s a point): deepest %.4f m, moved %.4f m, "
           "impulse limit flagged at step %d\n",
           n, boxes ? "boxes" : "balls", kg, g, n * kg * g / 60 / (boxes ? 4 : 1), r.deepest, r.moved, r.flagged_step);
    return r;
}

/* The fidelity table's case (bench/fidelity/): a 10 t ball under g = 500, 750, 1000 sinks, flagged from its first steps. */
static void test_heavy_ball_flagged(void **st)
{
    (void)st;
    const double gs[] = { 500, 750, 1000 };
    for (unsigned k = 0; k < sizeof gs / sizeof gs[0]; k++) {
        column_result r = column(1, 10000, gs[k], false);
        assert_true(r.flagged_step >= 1 && r.flagged_step <= 2);
    }
    column_result r = column(1, 10000, 190, false);   /* 31 667 N s: held, not flagged */
    assert_true(r.deepest <= 0.001 && r.flagged_step < 0);
}

/* A 10 t box: four points share the weight. */
static void test_heavy_box_held(void **st)
{
    (void)st;
    column_result r = column(1, 10000, 750, true);   /* 31 250 N s a point: held */
    assert_true(r.deepest <= 0.001 && r.moved <= 0.001 && r.flagged_step < 0);
    r = column(1, 10000, 1000, true);                /* 41 667: past the edge, flagged */
    assert_true(r.flagged_step > 0);
}

/* Columns at the edges docs/limits.md lists: held against the ground and each other (1 cm) and
 * standing within 2 cm for 10 s. */
static void test_heavy_columns_at_their_edges(void **st)
{
    (void)st;
    const struct {
        int n;
        double kg, g;
    } edge[] = {
        { 2, 10000, 200 }, { 3, 10000, 40 }, { 2, 1000, 1000 }, { 3, 1000, 500 }, { 10, 1000, 50 },
        { 3, 100, 300 },   { 5, 100, 300 },  { 10, 100, 100 },  { 10, 1, 1000 },
    };
    for (unsigned k = 0; k < sizeof edge / sizeof edge[0]; k++) {
        column_result r = column(edge[k].n, edge[k].kg, edge[k].g, true);
        assert_true(r.deepest <= 0.01);
        assert_true(r.moved <= 0.02);
        assert_int_equal(r.flags, 0);
    }
    /* Ten 10 t boxes at g = 10 are held (no point deeper than 5 mm); they moved 1.1 mm in
     * 10 s when measured (7.7 cm before the shock pass continued the contact pass's totals). */
    column_result r = column(10, 10000, 10, true);
    assert_true(r.deepest <= 0.005 && r.flags == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heavy_ball_flagged),
        cmocka_unit_test(test_heavy_box_held),
        cmocka_unit_test(test_heavy_columns_at_their_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
