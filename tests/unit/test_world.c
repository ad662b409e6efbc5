/* SPDX-License-Identifier: MIT */
/* World-level behaviour not covered elsewhere: ray casts against the world,
 * and full pair and contact pools reported, never overrun. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "qp_test_util.h"
#include "qphys/world.h"

static qp_world world;

static void init_world(void)
{
    qp_world_def wd = qp_default_world_def();
    assert_int_equal(qp_world_init(&world, &wd), QP_OK);
}

static qp_body_id add_box(double x, double y, double z, double half, bool dynamic)
{
    qp_body_def d = qp_default_body_def();
    d.type = dynamic ? QP_BODY_DYNAMIC : QP_BODY_STATIC;
    d.shape_count = 1;
    assert_int_equal(qp_make_box(qp_v3(f16(half), f16(half), f16(half)), &d.shapes[0]), QP_OK);
    d.position = qp_v3(f16(x), f16(y), f16(z));
    qp_result r;
    qp_body_id id = qp_create_body(&world, &d, &r);
    assert_int_equal(r, QP_OK);
    return id;
}

static qp_body_id add_ground(void)
{
    qp_body_def d = qp_default_body_def();
    d.type = QP_BODY_STATIC;
    d.shape_count = 1;
    assert_int_equal(qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &d.shapes[0]), QP_OK);
    qp_result r;
    qp_body_id id = qp_create_body(&world, &d, &r);
    assert_int_equal(r, QP_OK);
    return id;
}

/* A ray down a row of boxes hits the nearest one, at its top face. */
static void test_world_raycast_nearest(void **state)
{
    (void)state;
    init_world();
    qp_body_id ground = add_ground();
    qp_body_id low = add_box(0, 0.5, 0, 0.5, true);
    qp_body_id high = add_box(0, 3.0, 0, 0.5, true);
    (void)low;
    qp_world_ray_hit h;
    /* From y = 10 down by 20 m: the high box's top (y = 3.5) at t = 6.5 / 20. */
    assert_true(qp_world_raycast(&world, qp_v3(0, f16(10), 0), qp_v3(0, f16(-20), 0), &h));
    assert_int_equal(h.body.index, high.index);
    assert_int_equal(h.body.generation, high.generation);
    assert_true(fabs(d16(h.hit.fraction) - 6.5 / 20) < 1e-4);
    assert_true(fabs(d16(h.hit.point.y) - 3.5) < 1e-3);
    assert_true(h.hit.normal.y > (qp_q30)(0.999 * Q30));
    /* Beside the boxes it hits the ground at y = 0. */
    assert_true(qp_world_raycast(&world, qp_v3(f16(5), f16(10), 0), qp_v3(0, f16(-20), 0), &h));
    assert_int_equal(h.body.index, ground.index);
    assert_true(fabs(d16(h.hit.point.y)) < 1e-3);
    /* Upwards from above everything: no hit; a zero ray: no hit. */
    assert_false(qp_world_raycast(&world, qp_v3(0, f16(10), 0), qp_v3(0, f16(5), 0), &h));
    assert_false(qp_world_raycast(&world, qp_v3(0, f16(10), 0), qp_v3(0, 0, 0), &h));
    /* A removed body is no longer hit. */
    assert_int_equal(qp_destroy_body(&world, high), QP_OK);
    assert_true(qp_world_raycast(&world, qp_v3(0, f16(10), 0), qp_v3(0, f16(-20), 0), &h));
    assert_int_equal(h.body.index, low.index);
}

/* 200 boxes piled into one spot overlap pairwise (19 900 pairs) far beyond
 * the pair pool (4 per body): the step reports it (stats, flags) and keeps
 * going without writing past its pools, and every contact it kept is valid. */
static void test_full_pools_reported(void **state)
{
    (void)state;
    init_world();
    add_ground();
    int n = 200;
    for (int i = 0; i < n; i++) add_box(0.001 * (i % 7), 0.5 + 0.001 * i, 0.001 * (i % 5), 0.5, true);
    qp_world_step(&world);
    qp_world_stats st = qp_world_get_stats(&world);
    print_message("pairs %d (pool %d), contacts %d (pool %d), overflows %u\n", st.pairs, QP_CFG_MAX_PAIRS,
                  st.contacts, QP_CFG_MAX_CONTACTS, (unsigned)st.overflows);
    assert_true(st.overflows > 0);
    assert_true(st.pairs <= QP_CFG_MAX_PAIRS);
    assert_true(st.contacts <= QP_CFG_MAX_CONTACTS);
    int flagged = 0;
    for (int i = 1; i <= QP_CFG_MAX_BODIES; i++) {
        qp_body_id id = qp_world_body_at(&world, i);
        if (qp_body_id_is_null(id)) continue;
        flagged += (qp_body_flags(&world, id) & QP_FLAG_CONTACTS_LOST) != 0;
    }
    assert_true(flagged > 0);
    /* It keeps stepping, deterministically: a second world built alike agrees. */
    for (int s = 0; s < 5; s++) qp_world_step(&world);
    uint32_t h1 = qp_world_hash(&world);
    init_world();
    add_ground();
    for (int i = 0; i < n; i++) add_box(0.001 * (i % 7), 0.5 + 0.001 * i, 0.001 * (i % 5), 0.5, true);
    for (int s = 0; s < 6; s++) qp_world_step(&world);
    assert_int_equal(qp_world_hash(&world), h1);
}

/* Freed slots are taken again lowest first, bodies and shapes alike, and a world restored
 * from a snapshot takes the same ones: the ids and shapes of what a lockstep peer creates
 * after a join equal the host's. */
static qp_world restored;
static unsigned char slots_snap[QP_SNAPSHOT_MAX_SIZE];

static qp_body_id add_pair_body(qp_world *w, double x)
{
    qp_body_def d = qp_default_body_def();
    d.shape_count = 2;
    assert_int_equal(qp_make_box(qp_v3(f16(0.5), f16(0.5), f16(0.5)), &d.shapes[0]), QP_OK);
    assert_int_equal(qp_make_sphere(f16(0.5), &d.shapes[1]), QP_OK);
    d.shapes[1].offset = qp_v3(0, f16(1), 0);
    d.position = qp_v3(f16(x), f16(1), 0);
    qp_result r;
    qp_body_id id = qp_create_body(w, &d, &r);
    assert_int_equal(r, QP_OK);
    return id;
}

static void test_free_slots_lowest_first(void **state)
{
    (void)state;
    init_world();
    add_ground();
    qp_body_id ids[8];
    for (int i = 0; i < 8; i++) ids[i] = i % 2 ? add_pair_body(&world, 3.0 * i) : add_box(3.0 * i, 0.5, 0, 0.5, true);
    int low_shape = world.bodies[ids[1].index].shapes[0];
    assert_int_equal(qp_destroy_body(&world, ids[5]), QP_OK);
    assert_int_equal(qp_destroy_body(&world, ids[1]), QP_OK);   /* two shapes, the lowest freed */
    assert_int_equal(qp_destroy_body(&world, ids[6]), QP_OK);
    unsigned long n = qp_world_snapshot(&world, slots_snap, sizeof slots_snap);
    assert_true(n > 0);
    assert_int_equal(qp_world_restore(&restored, slots_snap, n), QP_OK);

    qp_world *both[2] = { &world, &restored };
    qp_body_id made[2][4];
    for (int k = 0; k < 2; k++) {
        qp_world *w = both[k];
        qp_result r;
        qp_body_def d = qp_default_body_def();
        d.shape_count = 1;
        assert_int_equal(qp_make_box(qp_v3(f16(0.5), f16(0.5), f16(0.5)), &d.shapes[0]), QP_OK);
        d.position = qp_v3(f16(40), f16(0.5), 0);
        made[k][0] = qp_create_body(w, &d, &r);
        assert_int_equal(r, QP_OK);
        made[k][1] = add_pair_body(w, 45);
        made[k][2] = add_pair_body(w, 50);
        made[k][3] = add_pair_body(w, 55);
    }
    /* The lowest free body slots (ids[1], ids[5], ids[6]), then past the highest. */
    assert_int_equal(made[0][0].index, ids[1].index);
    assert_int_equal(made[0][1].index, ids[5].index);
    assert_int_equal(made[0][2].index, ids[6].index);
    assert_int_equal(made[0][3].index, ids[7].index + 1);
    assert_int_equal(world.bodies[made[0][0].index].shapes[0], low_shape);   /* the lowest free shape */
    for (int i = 0; i < 4; i++) {
        assert_int_equal(made[1][i].index, made[0][i].index);
        assert_int_equal(made[1][i].generation, made[0][i].generation);
        const qp_body_state *a = &world.bodies[made[0][i].index], *b = &restored.bodies[made[1][i].index];
        for (int s = 0; s < a->shape_count; s++) assert_int_equal(b->shapes[s], a->shapes[s]);
    }
    for (int s = 0; s < 30; s++) {
        qp_world_step(&world);
        qp_world_step(&restored);
    }
    assert_int_equal(qp_world_hash(&restored), qp_world_hash(&world));
}

int main(void)
{
    rng_state = 777u;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_world_raycast_nearest),
        cmocka_unit_test(test_full_pools_reported),
        cmocka_unit_test(test_free_slots_lowest_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
