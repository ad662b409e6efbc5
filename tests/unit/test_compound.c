/* SPDX-License-Identifier: MIT */
/* Compound bodies (one body, several shapes) from scene files, and the demo
 * scenes built from boxes and compounds: a table's mass, centre and inertia are
 * the analytic ones; the body keeps the origin written in the file; a stack of
 * tables and a jenga tower stand and fall asleep; a row of dominoes falls in
 * order. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "qp_test_util.h"
#include "qphys/scene.h"
#include "qphys/world.h"

static qp_world world, other;
static unsigned char snap[1 << 20];

static char *read_all(const char *path, unsigned long *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s (run the tests from the repository root)", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = 0;
    *len = (unsigned long)n;
    return buf;
}

static qp_scene_info load_text(qp_world *w, const char *text)
{
    qp_scene_info info;
    qp_scene_error err;
    qp_result r = qp_scene_load(w, text, strlen(text), &info, &err);
    if (r != QP_OK) fail_msg("scene:%d:%d: %s", err.line, err.column, err.message);
    return info;
}

static qp_scene_info load_file(const char *path)
{
    unsigned long n;
    char *text = read_all(path, &n);
    qp_scene_info info = load_text(&world, text);
    free(text);
    return info;
}

static double tilt_deg(qp_quat q) { return 2 * acos(fmin(1.0, fabs(q.w / Q30))) * 57.29578; }

/* A table: top 1.6 x 0.1 x 1.6 m centred 0.45 m above the origin, legs 0.1 x 0.8 x 0.1 m at
 * (+-0.7, 0, +-0.7), density 1. */
#define TABLE_PARTS                                  \
    "  part box half 0.8 0.05 0.8 at 0 0.45 0\n"      \
    "  part box half 0.05 0.4 0.05 at 0.7 0 0.7\n"    \
    "  part box half 0.05 0.4 0.05 at -0.7 0 0.7\n"   \
    "  part box half 0.05 0.4 0.05 at 0.7 0 -0.7\n"   \
    "  part box half 0.05 0.4 0.05 at -0.7 0 -0.7\n"  \
    "end\n"
static const char table_scene[] = "plane\ncompound pos 1 2 3\n" TABLE_PARTS;
static const char heavy_table_scene[] = "plane\ncompound pos 1 2 3 mass 2.88\n" TABLE_PARTS;

static void test_table_mass_centre_inertia(void **state)
{
    (void)state;
    qp_scene_info info = load_text(&world, table_scene);
    assert_int_equal(info.bodies, 2);
    assert_int_equal(info.shapes, 6);
    qp_body_id t = qp_scene_body(&world, 1);
    assert_int_equal(qp_body_shape_count(&world, t), 5);
    /* Analytic: top 0.256 kg, legs 0.008 kg each. */
    double mt = 1.6 * 0.1 * 1.6, ml = 0.1 * 0.8 * 0.1, m = mt + 4 * ml;
    double cy = mt * 0.45 / m;                                /* = 0.4 */
    double I[3];
    double top_h[3] = { 0.8, 0.05, 0.8 }, leg_h[3] = { 0.05, 0.4, 0.05 };
    for (int a = 0; a < 3; a++) {
        int b = (a + 1) % 3, c = (a + 2) % 3;
        double it = mt / 3 * (top_h[b] * top_h[b] + top_h[c] * top_h[c]);
        double il = ml / 3 * (leg_h[b] * leg_h[b] + leg_h[c] * leg_h[c]);
        /* Parallel axes: the top's centre is 0.45 - cy above the centre, legs cy below and 0.7 out. */
        double dt[3] = { 0, 0.45 - cy, 0 }, dl[3] = { 0.7, -cy, 0.7 };
        it += mt * (dt[b] * dt[b] + dt[c] * dt[c]);
        il += ml * (dl[b] * dl[b] + dl[c] * dl[c]);
        I[a] = it + 4 * il;
    }
    qp_vec3 c = qp_body_center(&world, t);
    printf("[compound] table: mass %.6f kg (analytic %.6f), centre y %.5f (%.5f), inertia %.5f %.5f %.5f "
           "(analytic %.5f %.5f %.5f)\n",
           d16(qp_body_mass(&world, t)), m, d16(c.y), 2 + cy, 1 / d16(world.bodies[t.index].inv_inertia_local.m[0][0]),
           1 / d16(world.bodies[t.index].inv_inertia_local.m[1][1]),
           1 / d16(world.bodies[t.index].inv_inertia_local.m[2][2]), I[0], I[1], I[2]);
    assert_true(fabs(d16(qp_body_mass(&world, t)) - m) < 1e-4);
    assert_true(fabs(d16(c.x) - 1) < 1e-4 && fabs(d16(c.y) - (2 + cy)) < 1e-4 && fabs(d16(c.z) - 3) < 1e-4);
    for (int a = 0; a < 3; a++) {
        double inv = d16(world.bodies[t.index].inv_inertia_local.m[a][a]);
        assert_true(fabs(inv * I[a] - 1) < 0.005);
        for (int b = 0; b < 3; b++)
            if (b != a) assert_true(abs(world.bodies[t.index].inv_inertia_local.m[a][b]) <= 2);
    }
    /* `mass` spreads the given mass by volume: the same centre, inertia scaled. */
    load_text(&world, heavy_table_scene);
    t = qp_scene_body(&world, 1);
    assert_true(fabs(d16(qp_body_mass(&world, t)) - 2.88) < 1e-4);
    assert_true(fabs(d16(qp_body_center(&world, t).y) - (2 + cy)) < 1e-4);
    assert_true(fabs(d16(world.bodies[t.index].inv_inertia_local.m[1][1]) * I[1] * 10 - 1) < 0.005);
}

/* A box, sphere or capsule line with neither mass nor density weighs 1 kg whatever its size
 * (the format's common setting); a compound keeps density 1 (the table above). A ball of
 * radius 0.05 m and a 0.2 m cube load (at density 1 they weighed 0.5 g and 8 g, under the
 * 0.01 kg floor), and the default ball of radius 0.5 has the inertia of a 1 kg ball, 0.1 kg m^2. */
static void test_default_mass_is_one_kg(void **state)
{
    (void)state;
    static const char scene[] = "plane\n"
                                "sphere radius 0.5 pos 0 0.5 0\n"
                                "sphere radius 0.05 pos 3 0.05 0\n"
                                "box half 0.1 0.1 0.1 pos -3 0.1 0\n"
                                "box half 4 0.5 2 pos 0 0.5 6\n"
                                "capsule radius 0.1 half_height 0.3 pos 6 0.1 0 rot 0 0 1 90\n"
                                "box half 0.5 0.5 0.5 pos 0 0.5 -6 density 3\n"
                                "compound pos 9 1 9\n" TABLE_PARTS;
    qp_scene_info info = load_text(&world, scene);
    assert_int_equal(info.bodies, 8);
    const double want[8] = { 0, 1, 1, 1, 1, 1, 3, 0.288 };
    for (int i = 1; i < 8; i++) {
        double m = d16(qp_body_mass(&world, qp_scene_body(&world, i)));
        if (fabs(m - want[i]) > 1e-4) fail_msg("body %d: mass %.6f kg, want %.6f", i, m, want[i]);
    }
    qp_body_id ball = qp_scene_body(&world, 1);
    for (int a = 0; a < 3; a++) assert_true(fabs(d16(world.bodies[ball.index].inv_inertia_local.m[a][a]) * 0.1 - 1) < 0.002);
    /* The small ones rest where they were put. */
    for (int s = 0; s < 120; s++) qp_world_step(&world);
    for (int i = 2; i <= 3; i++) {
        qp_vec3 c = qp_body_center(&world, qp_scene_body(&world, i));
        assert_true(fabs(d16(c.y) - (i == 2 ? 0.05 : 0.1)) < 0.002);
    }
}

/* The body keeps the origin the file gives (what `qphys run --json` prints as pos), with
 * any rotation, although its centre of mass is elsewhere. */
static void test_compound_keeps_file_origin(void **state)
{
    (void)state;
    const char *text = "compound pos -3.25 7.5 0.125 rot 1 2 3 33 vel 1 0 0\n"
                       "  part capsule radius 0.2 half_height 0.5 at 0.3 -0.2 0.1 rot 0 0 1 90\n"
                       "  part sphere radius 0.4 at -0.6 0.2 0\n"
                       "  part box half 0.3 0.1 0.2 at 0 0.5 0.25 rot 1 0 0 30\n"
                       "end\n";
    load_text(&world, text);
    qp_body_id b = qp_scene_body(&world, 0);
    qp_vec3 p = qp_body_position(&world, b), c = qp_body_center(&world, b);
    assert_int_equal(p.x, f16(-3.25));
    assert_int_equal(p.y, f16(7.5));
    assert_int_equal(p.z, f16(0.125));
    assert_true(fabs(d16(c.x) - d16(p.x)) + fabs(d16(c.y) - d16(p.y)) > 0.05);  /* the centre is elsewhere */
    /* The parts sit where the file put them, relative to the origin, in the body frame. */
    qp_scene_reader rd = qp_scene_reader_init(text, strlen(text));
    qp_scene_item item;
    qp_scene_error err;
    assert_int_equal(qp_scene_next(&rd, &item, &err), 1);
    assert_int_equal(item.kind, QP_SCENE_BODY);
    assert_true(item.u.body.given & QP_SCENE_GIVEN_COMPOUND);
    assert_int_equal(item.u.body.def.shape_count, 3);
    assert_int_equal(item.u.body.def.shapes[1].offset.x, f16(-0.6));
    assert_int_equal(qp_scene_next(&rd, &item, &err), 0);   /* parts and end belong to the item */
    qp_rot3 r = qp_quat_to_rot3(qp_body_rotation(&world, b));
    for (int i = 0; i < 3; i++) {
        qp_vec3 in_world = qp_v3_add(c, qp_rot3_mul_v3(&r, qp_body_shape(&world, b, i)->offset));
        qp_vec3 want = qp_v3_add(p, qp_rot3_mul_v3(&r, item.u.body.def.shapes[i].offset));
        assert_true(abs(in_world.x - want.x) <= 2 && abs(in_world.y - want.y) <= 2 && abs(in_world.z - want.z) <= 2);
    }
    /* And it survives a snapshot: restored, the same state and the same steps. */
    unsigned long n = qp_world_snapshot(&world, snap, sizeof snap);
    assert_true(n > 0 && n <= sizeof snap);
    assert_int_equal(qp_world_restore(&other, snap, n), QP_OK);
    for (int s = 0; s < 30; s++) {
        qp_world_step(&world);
        qp_world_step(&other);
    }
    assert_int_equal(qp_world_hash(&world), qp_world_hash(&other));
}

static void test_tables_stand_and_sleep(void **state)
{
    (void)state;
    qp_scene_info info = load_file("tests/scenes/tables.scene");
    assert_int_equal(info.bodies, 6);
    qp_vec3 start[6];
    for (int i = 1; i < 6; i++) start[i] = qp_body_position(&world, qp_scene_body(&world, i));
    for (int s = 0; s < 300; s++) qp_world_step(&world);
    double worst_move = 0, worst_tilt = 0;
    for (int i = 1; i < 6; i++) {
        qp_body_id b = qp_scene_body(&world, i);
        qp_vec3 p = qp_body_position(&world, b);
        double move = fabs(d16(p.x) - d16(start[i].x)) + fabs(d16(p.y) - d16(start[i].y)) +
                      fabs(d16(p.z) - d16(start[i].z));
        worst_move = fmax(worst_move, move);
        worst_tilt = fmax(worst_tilt, tilt_deg(qp_body_rotation(&world, b)));
        assert_false(qp_body_is_awake(&world, b));
    }
    qp_world_stats st = qp_world_get_stats(&world);
    printf("[compound] 5 stacked tables: moved at most %.4f m, tilted %.3f deg, all asleep from step %d\n", worst_move,
           worst_tilt, st.first_all_asleep_step);
    assert_true(worst_move < 0.01);
    assert_true(worst_tilt < 0.5);
    assert_true(st.first_all_asleep_step > 0 && st.first_all_asleep_step < 200);
}

static void test_jenga_stands_and_sleeps(void **state)
{
    (void)state;
    qp_scene_info info = load_file("tests/scenes/jenga.scene");
    assert_int_equal(info.bodies, 37);
    qp_vec3 top0 = qp_body_position(&world, qp_scene_body(&world, 35));
    for (int s = 0; s < 300; s++) qp_world_step(&world);
    double worst_tilt = 0;
    for (int i = 1; i < info.bodies; i++) worst_tilt = fmax(worst_tilt, tilt_deg(qp_body_rotation(&world, qp_scene_body(&world, i))));
    qp_vec3 top = qp_body_position(&world, qp_scene_body(&world, 35));
    qp_world_stats st = qp_world_get_stats(&world);
    printf("[compound] jenga, 12 layers: top board moved %.4f m, boards tilted at most %.3f deg, all asleep from step "
           "%d\n",
           fabs(d16(top.x) - d16(top0.x)) + fabs(d16(top.y) - d16(top0.y)) + fabs(d16(top.z) - d16(top0.z)),
           worst_tilt, st.first_all_asleep_step);
    assert_true(fabs(d16(top.y) - d16(top0.y)) < 0.01 && fabs(d16(top.x) - d16(top0.x)) < 0.01);
    assert_true(worst_tilt < 0.5);
    assert_int_equal(st.awake, 0);
    assert_true(st.first_all_asleep_step > 0);
}

static void test_dominoes_fall_in_order(void **state)
{
    (void)state;
    qp_scene_info info = load_file("tests/scenes/dominoes.scene");
    int n = info.bodies - 1;
    assert_int_equal(n, 16);
    int fell[17];
    for (int i = 1; i <= n; i++) fell[i] = -1;
    for (int s = 1; s <= 300; s++) {
        qp_world_step(&world);
        for (int i = 1; i <= n; i++)
            if (fell[i] < 0 && tilt_deg(qp_body_rotation(&world, qp_scene_body(&world, i))) > 30) fell[i] = s;
    }
    printf("[compound] dominoes past 30 deg at steps:");
    for (int i = 1; i <= n; i++) printf(" %d", fell[i]);
    printf("\n");
    for (int i = 1; i <= n; i++) {
        assert_true(fell[i] > 0);
        if (i > 1) assert_true(fell[i] > fell[i - 1]);
        /* Toppled forwards (+x), about z, and lying down at the end. */
        qp_quat q = qp_body_rotation(&world, qp_scene_body(&world, i));
        assert_true(q.z < 0);
        assert_true(tilt_deg(q) > 60);
    }
}

/* The see-saw: the dropped block throws the stack on the other end up. */
static void test_seesaw_throws_the_stack(void **state)
{
    (void)state;
    load_file("tests/scenes/seesaw.scene");
    qp_body_id top = qp_scene_body(&world, 5), block = qp_scene_body(&world, 6);
    double y0 = d16(qp_body_center(&world, top).y), highest = y0;
    for (int s = 0; s < 300; s++) {
        qp_world_step(&world);
        highest = fmax(highest, d16(qp_body_center(&world, top).y));
    }
    printf("[scenes] seesaw: the top cube of the stack rose from %.3f m to %.3f m; the block ended at y %.3f m\n", y0,
           highest, d16(qp_body_center(&world, block).y));
    assert_true(highest > y0 + 1.0);
    assert_true(d16(qp_body_center(&world, block).y) < 1.5);   /* the block came down on its end */
}

/* The line of spheres passes the hit on: the last ball leaves fast, the others creep. */
static void test_poolline_passes_the_hit(void **state)
{
    (void)state;
    load_file("tests/scenes/poolline.scene");
    double peak = 0;
    for (int s = 0; s < 60; s++) {
        qp_world_step(&world);
        peak = fmax(peak, d16(qp_body_linear_velocity(&world, qp_scene_body(&world, 10)).x));
    }
    double last = d16(qp_body_linear_velocity(&world, qp_scene_body(&world, 10)).x), rest = 0;
    for (int i = 1; i <= 9; i++) rest = fmax(rest, fabs(d16(qp_body_linear_velocity(&world, qp_scene_body(&world, i)).x)));
    double cue = d16(qp_body_linear_velocity(&world, qp_scene_body(&world, 11)).x);
    printf("[scenes] poolline, hit at 6 m/s: the last ball left at %.3f m/s (%.3f after 1 s, rolling on friction), "
           "the 9 between at most %.3f, cue %.3f\n",
           peak, last, rest, cue);
    assert_true(peak > 3.0);
    assert_true(last > 1.5);
    assert_true(rest < 0.5);
    assert_true(fabs(cue) < 0.5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_mass_centre_inertia),
        cmocka_unit_test(test_default_mass_is_one_kg),
        cmocka_unit_test(test_compound_keeps_file_origin),
        cmocka_unit_test(test_tables_stand_and_sleep),
        cmocka_unit_test(test_jenga_stands_and_sleeps),
        cmocka_unit_test(test_dominoes_fall_in_order),
        cmocka_unit_test(test_seesaw_throws_the_stack),
        cmocka_unit_test(test_poolline_passes_the_hit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
