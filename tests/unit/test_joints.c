/* SPDX-License-Identifier: MIT */
/* Joints (include/qphys/joint.h, src/joint.c, src/solve_joints.c; docs/design.md §7).
 *
 * Every test builds its world through the public API, prints what it measured
 * (lines starting "[joints]") and asserts it:
 *  1. a compound pendulum (a sphere on a hinge 1.5 m from its centre, 5 degrees)
 *     swings with the physical period 2 pi sqrt(I_pivot / (m g L)) within 2%;
 *  2. a chain of 10 box links released horizontal never opens a joint more than
 *     1 cm in 300 steps;
 *  3. a door on a hinge limited to +-90 degrees, spun hard both ways, stays within
 *     its limits (2 degrees);
 *  4. a rope (distance joint, max 3 m) catches a falling ball at its length;
 *  5. a 10:1 chain (a 10 kg ball on 1 kg links) released horizontal keeps bounded
 *     speeds and its joints closed;
 *  6. a ragdoll dropped on a box comes to rest and sleeps, every joint within 1 cm;
 *  7. a sleeping jointed island wakes whole when one of its bodies is hit, and
 *     destroying a joint wakes both its bodies; destroying a body destroys its joints;
 *  8. every bad definition is refused with the world unchanged (hash and snapshot).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "qphys/qphys.h"

static qp_world world;

static double D(fix16_t v) { return v / 65536.0; }
static fix16_t F(double v) { return (fix16_t)lround(v * 65536.0); }
static qp_vec3 V(double x, double y, double z) { return qp_v3(F(x), F(y), F(z)); }

static void init(bool sleep)
{
    qp_world_def d = qp_default_world_def();
    d.sleep_enabled = sleep;
    assert_int_equal(qp_world_init(&world, &d), QP_OK);
}

static qp_body_id add_plane(void)
{
    qp_body_def b = qp_default_body_def();
    b.type = QP_BODY_STATIC;
    b.shape_count = 1;
    assert_int_equal(qp_make_plane(qp_v3(0, QP_Q30_ONE, 0), 0, &b.shapes[0]), QP_OK);
    qp_result r;
    qp_body_id id = qp_create_body(&world, &b, &r);
    assert_int_equal(r, QP_OK);
    return id;
}

static qp_body_id add_box(qp_vec3 pos, qp_vec3 half, double mass, bool dynamic)
{
    qp_body_def b = qp_default_body_def();
    b.type = dynamic ? QP_BODY_DYNAMIC : QP_BODY_STATIC;
    b.position = pos;
    b.shape_count = 1;
    /* By density: 'mass' alone checks the inertia at density 1, too small for a thin link. */
    if (dynamic) b.density = F(mass / (8 * D(half.x) * D(half.y) * D(half.z)));
    assert_int_equal(qp_make_box(half, &b.shapes[0]), QP_OK);
    qp_result r;
    qp_body_id id = qp_create_body(&world, &b, &r);
    assert_int_equal(r, QP_OK);
    return id;
}

static qp_body_id add_sphere(qp_vec3 pos, double radius, double mass)
{
    qp_body_def b = qp_default_body_def();
    b.position = pos;
    b.shape_count = 1;
    b.mass = F(mass);
    assert_int_equal(qp_make_sphere(F(radius), &b.shapes[0]), QP_OK);
    qp_result r;
    qp_body_id id = qp_create_body(&world, &b, &r);
    assert_int_equal(r, QP_OK);
    return id;
}

static qp_joint_id ball(qp_body_id a, qp_body_id b, qp_vec3 anchor)
{
    qp_joint_def d = qp_default_joint_def();
    d.a = a;
    d.b = b;
    d.anchor = anchor;
    qp_result r;
    qp_joint_id id = qp_create_joint(&world, &d, &r);
    assert_int_equal(r, QP_OK);
    return id;
}

static double max_joint_error(void)
{
    double m = 0;
    for (int i = 1; i <= qp_world_joint_capacity(); i++) {
        qp_joint_id id = qp_world_joint_at(&world, i);
        if (qp_joint_id_is_null(id)) continue;
        double e = D(qp_joint_error(&world, id));
        if (e > m) m = e;
    }
    return m;
}

static double speed(qp_body_id b)
{
    qp_vec3 v = qp_body_linear_velocity(&world, b);
    return sqrt(D(v.x) * D(v.x) + D(v.y) * D(v.y) + D(v.z) * D(v.z));
}

/* ---- 1. pendulum period ------------------------------------------------------------------ */

static void test_pendulum_period(void **state)
{
    (void)state;
    init(false);
    const double L = 1.5, r = 0.25, m = 2, g = 10, amp = 5 * M_PI / 180;
    qp_body_id pivot = add_box(V(0, 5, 0), V(0.05, 0.05, 0.05), 0, false);
    qp_body_id bob = add_sphere(V(L * sin(amp), 5 - L * cos(amp), 0), r, m);
    qp_joint_def d = qp_default_joint_def();
    d.type = QP_JOINT_HINGE;
    d.a = pivot;
    d.b = bob;
    d.anchor = V(0, 5, 0);
    d.axis = V(0, 0, 1);
    qp_result res;
    qp_create_joint(&world, &d, &res);
    assert_int_equal(res, QP_OK);
    /* Compound pendulum: I about the pivot = 2/5 m r^2 + m L^2. */
    double period = 2 * M_PI * sqrt((0.4 * m * r * r + m * L * L) / (m * g * L));
    /* Times of the upward zero crossings of x (linear interpolation), 5 periods. */
    double prev = D(qp_body_center(&world, bob).x), first = -1, last = -1, max_err = 0;
    int crossings = 0;
    double dt = 1.0 / 60;
    for (int s = 1; s <= (int)(6 * period / dt); s++) {
        qp_world_step(&world);
        double x = D(qp_body_center(&world, bob).x);
        if (prev < 0 && x >= 0) {
            double t = (s - 1 + (-prev) / (x - prev)) * dt;
            if (first < 0) first = t;
            last = t;
            crossings++;
        }
        prev = x;
        double e = max_joint_error();
        if (e > max_err) max_err = e;
    }
    assert_true(crossings >= 4);
    double measured = (last - first) / (crossings - 1);
    printf("[joints] pendulum: period %.4f s, physical %.4f s (%+.2f%%), joint error <= %.2f mm\n", measured, period,
           100 * (measured - period) / period, 1000 * max_err);
    assert_true(fabs(measured - period) / period < 0.02);
    assert_true(max_err < 0.001);
}

/* ---- 2. chain ----------------------------------------------------------------------------- */

/* n box links of mass link_mass along +x from a static post at (0, 8, 0), each joined to
 * the next at its end; the last carries a sphere of end_mass (0: none). Returns the last. */
static qp_body_id make_chain(int n, double link_mass, double end_mass, qp_body_id *first)
{
    qp_body_id post = add_box(V(0, 8, 0), V(0.1, 0.1, 0.1), 0, false);
    qp_body_id prev = post;
    for (int i = 0; i < n; i++) {
        qp_body_id link = add_box(V(0.25 + 0.5 * i, 8, 0), V(0.24, 0.06, 0.06), link_mass, true);
        if (i == 0 && first) *first = link;
        ball(prev, link, V(0.5 * i, 8, 0));
        prev = link;
    }
    if (end_mass > 0) {
        qp_body_id end = add_sphere(V(0.5 * n + 0.3, 8, 0), 0.25, end_mass);
        ball(prev, end, V(0.5 * n, 8, 0));
        prev = end;
    }
    return prev;
}

static void test_chain_holds(void **state)
{
    (void)state;
    init(true);
    add_plane();
    qp_body_id last = make_chain(10, 1, 0, NULL);
    double worst = 0, top = 0;
    for (int s = 0; s < 300; s++) {
        qp_world_step(&world);
        double e = max_joint_error(), v = speed(last);
        if (e > worst) worst = e;
        if (v > top) top = v;
    }
    double y = D(qp_body_center(&world, last).y);
    printf("[joints] chain of 10 released horizontal: worst joint gap %.2f mm, tip speed up to %.1f m/s, tip at y %.2f\n",
           1000 * worst, top, y);
    assert_true(worst < 0.01);
    assert_true(top > 5);    /* it did swing */
    assert_true(y < 8 && y > 2.5);
}

/* ---- 3. door -------------------------------------------------------------------------------- */

static void test_door_limits(void **state)
{
    (void)state;
    init(false);
    add_plane();
    qp_body_id post = add_box(V(0, 1.1, 0), V(0.05, 1.1, 0.05), 0, false);
    qp_body_id door = add_box(V(0.56, 1.1, 0), V(0.5, 1, 0.04), 20, true);
    qp_joint_def d = qp_default_joint_def();
    d.type = QP_JOINT_HINGE;
    d.a = post;
    d.b = door;
    d.anchor = V(0.05, 1.1, 0);
    d.axis = V(0, 1, 0);
    d.enable_limit = true;
    d.lower_angle = F(-M_PI / 2);
    d.upper_angle = F(M_PI / 2);
    qp_result r;
    qp_joint_id j = qp_create_joint(&world, &d, &r);
    assert_int_equal(r, QP_OK);
    double lo = 0, hi = 0;
    for (int round = 0; round < 4; round++) {
        /* Spun hard one way, then the other. */
        assert_int_equal(qp_body_set_angular_velocity(&world, door, V(0, round & 1 ? -20 : 20, 0)), QP_OK);
        for (int s = 0; s < 90; s++) {
            qp_world_step(&world);
            double a = D(qp_joint_angle(&world, j)) * 180 / M_PI;
            if (a < lo) lo = a;
            if (a > hi) hi = a;
        }
    }
    printf("[joints] door spun at 20 rad/s: angle within [%.2f, %.2f] degrees (limits +-90), gap %.2f mm\n", lo, hi,
           1000 * max_joint_error());
    assert_true(lo >= -92 && hi <= 92);
    assert_true(lo < -85 && hi > 85);   /* it reached both limits */
    assert_true(max_joint_error() < 0.01);
}

/* ---- 4. rope ------------------------------------------------------------------------------------ */

static void test_rope_catches(void **state)
{
    (void)state;
    init(false);
    add_plane();
    qp_body_id hook = add_box(V(0, 8, 0), V(0.1, 0.1, 0.1), 0, false);
    qp_body_id ballb = add_sphere(V(0.5, 7.5, 0), 0.3, 2);
    qp_joint_def d = qp_default_joint_def();
    d.type = QP_JOINT_DISTANCE;
    d.a = hook;
    d.b = ballb;
    d.anchor_a = V(0, 8, 0);
    d.anchor_b = V(0.5, 7.5, 0);
    d.max_length = F(3);
    qp_result r;
    qp_create_joint(&world, &d, &r);
    assert_int_equal(r, QP_OK);
    double longest = 0, lowest = 8;
    int caught_at = -1;
    for (int s = 0; s < 240; s++) {
        qp_world_step(&world);
        qp_vec3 c = qp_body_center(&world, ballb);
        double dx = D(c.x), dy = D(c.y) - 8, dz = D(c.z), l = sqrt(dx * dx + dy * dy + dz * dz);
        if (l > longest) longest = l;
        if (D(c.y) < lowest) lowest = D(c.y);
        if (caught_at < 0 && l > 2.99) caught_at = s;
    }
    printf("[joints] rope of 3 m: caught at step %d, longest %.4f m, lowest centre y %.3f\n", caught_at, longest, lowest);
    assert_true(caught_at > 0 && caught_at < 60);
    assert_true(longest < 3.01);
    assert_true(lowest > 8 - 3.01 && lowest < 8 - 2.9);
}

/* ---- 5. mass ratio -------------------------------------------------------------------------------- */

static void test_heavy_end_chain(void **state)
{
    (void)state;
    init(false);
    add_plane();
    qp_body_id end = make_chain(5, 1, 10, NULL);
    double worst = 0, top = 0;
    for (int s = 0; s < 400; s++) {
        qp_world_step(&world);
        for (int i = 1; i <= qp_world_capacity(); i++) {
            qp_body_id b = qp_world_body_at(&world, i);
            if (!qp_body_id_is_null(b) && speed(b) > top) top = speed(b);
        }
        double e = max_joint_error();
        if (e > worst) worst = e;
    }
    /* Falling 2.85 m (the chain's reach) gives 7.5 m/s; a light whip may go faster, an
     * explosion would go to the clamp. */
    printf("[joints] 10:1 chain: top speed %.2f m/s, worst joint gap %.2f mm, end at y %.2f\n", top, 1000 * worst,
           D(qp_body_center(&world, end).y));
    assert_true(top < 20);
    assert_true(worst < 0.02);
    assert_true(D(qp_body_center(&world, end).y) < 8);
}

/* ---- 6. ragdoll ---------------------------------------------------------------------------------------- */

static void test_ragdoll_rests(void **state)
{
    (void)state;
    init(true);
    add_plane();
    add_box(V(0, 0.5, 0), V(1, 0.5, 1), 0, false);
    qp_ragdoll_def rd = qp_default_ragdoll_def();
    rd.position = V(0.2, 3, 0.1);
    qp_body_id parts[QP_RAGDOLL_BODIES];
    qp_result r;
    assert_int_equal(qp_create_ragdoll(&world, &rd, parts, &r), QP_OK);
    assert_int_equal(r, QP_OK);
    int asleep_at = -1;
    double worst = 0;
    for (int s = 0; s < 900 && asleep_at < 0; s++) {
        qp_world_step(&world);
        double e = max_joint_error();
        if (e > worst) worst = e;
        qp_world_stats st = qp_world_get_stats(&world);
        if (st.awake == 0) asleep_at = s;
    }
    double end_err = max_joint_error(), lowest = 10;
    for (int k = 0; k < QP_RAGDOLL_BODIES; k++) {
        double y = D(qp_body_center(&world, parts[k]).y);
        if (y < lowest) lowest = y;
    }
    printf("[joints] ragdoll on a box: asleep at step %d, joint gap at rest %.2f mm (worst %.2f mm), lowest part y %.2f\n",
           asleep_at, 1000 * end_err, 1000 * worst, lowest);
    assert_true(asleep_at > 0);
    assert_true(end_err < 0.01);
    assert_true(lowest > 0);
}

/* ---- 7. wake ------------------------------------------------------------------------------------------------ */

static void settle(int steps)
{
    for (int s = 0; s < steps; s++) qp_world_step(&world);
}

/* Four links hanging straight down from a post, at rest: they fall asleep. */
static qp_body_id hanging_chain(qp_body_id *first)
{
    init(true);
    add_plane();
    qp_body_id post = add_box(V(0, 8, 0), V(0.1, 0.1, 0.1), 0, false), prev = post, last = post;
    for (int i = 0; i < 4; i++) {
        last = add_box(V(0, 7.75 - 0.5 * i, 0), V(0.06, 0.24, 0.06), 1, true);
        if (i == 0) *first = last;
        ball(prev, last, V(0, 8 - 0.5 * i, 0));
        prev = last;
    }
    settle(300);
    return last;
}

static void test_island_wakes(void **state)
{
    (void)state;
    qp_body_id first;
    qp_body_id last = hanging_chain(&first);
    assert_int_equal(qp_world_get_stats(&world).awake, 0);
    /* A ball thrown at the lowest link wakes the whole chain. */
    qp_vec3 low = qp_body_center(&world, last);
    qp_body_id thrown = add_sphere(qp_v3_add(low, V(-1.5, 0, 0)), 0.2, 1);
    assert_int_equal(qp_body_set_linear_velocity(&world, thrown, V(8, 0, 0)), QP_OK);
    int woke_all = -1;
    for (int s = 0; s < 30 && woke_all < 0; s++) {
        qp_world_step(&world);
        if (qp_body_is_awake(&world, first) && qp_body_is_awake(&world, last)) woke_all = s;
    }
    printf("[joints] a ball hits a sleeping chain's lowest link: the top link awake at step %d\n", woke_all);
    assert_true(woke_all >= 0);
    assert_int_equal(qp_world_get_stats(&world).awake, 5);

    /* Destroying a joint wakes both of its bodies (and what hangs on them). */
    hanging_chain(&first);
    assert_int_equal(qp_world_get_stats(&world).awake, 0);
    qp_joint_id j2 = qp_world_joint_at(&world, 2);   /* link 1 to link 2 */
    qp_body_id a, b;
    qp_joint_bodies(&world, j2, &a, &b);
    assert_int_equal(qp_destroy_joint(&world, j2), QP_OK);
    assert_true(qp_body_is_awake(&world, a) && qp_body_is_awake(&world, b));
    assert_false(qp_joint_is_valid(&world, j2));
    assert_int_equal(qp_destroy_joint(&world, j2), QP_ERR_INVALID_ID);

    /* Destroying a body destroys its joints. */
    qp_joint_id j3 = qp_world_joint_at(&world, 3);
    assert_true(qp_joint_is_valid(&world, j3));
    assert_int_equal(qp_destroy_body(&world, b), QP_OK);
    assert_false(qp_joint_is_valid(&world, j3));
}

/* ---- 8. bad input ------------------------------------------------------------------------------------------ */

static unsigned char snap_before[1 << 16], snap_after[1 << 16];

static void expect_refused(const char *what, const qp_joint_def *d, qp_result want)
{
    uint32_t h = qp_world_hash(&world);
    unsigned long n = qp_world_snapshot(&world, snap_before, sizeof snap_before);
    qp_result r = QP_OK;
    qp_joint_id id = qp_create_joint(&world, d, &r);
    if (r != want) fail_msg("%s: got %d, want %d", what, r, want);
    assert_true(qp_joint_id_is_null(id));
    assert_int_equal(qp_world_hash(&world), h);
    assert_int_equal(qp_world_snapshot(&world, snap_after, sizeof snap_after), n);
    assert_memory_equal(snap_before, snap_after, n);
}

static void test_bad_input(void **state)
{
    (void)state;
    init(true);
    qp_body_id ground = add_plane();
    qp_body_id post = add_box(V(0, 5, 0), V(0.1, 0.1, 0.1), 0, false);
    qp_body_id b1 = add_box(V(1, 5, 0), V(0.5, 0.5, 0.5), 1, true);
    qp_body_id b2 = add_box(V(2, 5, 0), V(0.5, 0.5, 0.5), 1, true);
    ball(post, b1, V(0.5, 5, 0));   /* a live joint, so the world holds one */
    qp_body_id gone = add_box(V(4, 5, 0), V(0.5, 0.5, 0.5), 1, true);
    assert_int_equal(qp_destroy_body(&world, gone), QP_OK);
    settle(3);

    qp_joint_def d = qp_default_joint_def();
    d.a = b1;
    d.b = b2;
    d.anchor = V(1.5, 5, 0);
    qp_joint_def t = d;
    t.b = b1;
    expect_refused("joint to itself", &t, QP_ERR_PARAM);
    t = d;
    t.b = gone;
    expect_refused("stale body id", &t, QP_ERR_INVALID_ID);
    t = d;
    t.a = qp_null_body();
    expect_refused("null body id", &t, QP_ERR_INVALID_ID);
    t = d;
    t.a = ground;
    t.b = post;
    expect_refused("both static", &t, QP_ERR_PARAM);
    t = d;
    t.type = (qp_joint_type)7;
    expect_refused("unknown type", &t, QP_ERR_PARAM);
    t = d;
    t.anchor = V(300, 5, 0);
    expect_refused("anchor far from the bodies", &t, QP_ERR_RANGE);
    t = d;
    t.drift_time = 0;
    expect_refused("zero drift time", &t, QP_ERR_RANGE);
    t = d;
    t.type = QP_JOINT_HINGE;
    t.axis = qp_v3_zero();
    expect_refused("zero axis", &t, QP_ERR_PARAM);
    t.axis = V(0, 0, 1);
    t.enable_limit = true;
    t.lower_angle = F(0.5);
    t.upper_angle = F(-0.5);
    expect_refused("limits out of order", &t, QP_ERR_RANGE);
    t.lower_angle = F(-3.2);
    t.upper_angle = F(0);
    expect_refused("limit below -pi", &t, QP_ERR_RANGE);
    t.lower_angle = F(0);
    t.upper_angle = F(3.2);
    expect_refused("limit above pi", &t, QP_ERR_RANGE);
    t = d;
    t.type = QP_JOINT_DISTANCE;
    t.anchor_a = V(1, 5, 0);
    t.anchor_b = V(2, 5, 0);
    t.min_length = F(2);
    t.max_length = F(1);
    expect_refused("min > max", &t, QP_ERR_RANGE);
    t.min_length = F(-1);
    t.max_length = F(1);
    expect_refused("negative min", &t, QP_ERR_RANGE);
    t.min_length = 0;
    t.max_length = F(-1);
    expect_refused("negative max", &t, QP_ERR_RANGE);
    expect_refused("null def", NULL, QP_ERR_PARAM);

    /* A full pool. */
    int made = 1;
    qp_joint_def ok = d;
    ok.type = QP_JOINT_DISTANCE;
    ok.anchor_a = V(1, 5, 0);
    ok.anchor_b = V(2, 5, 0);
    while (made < qp_world_joint_capacity()) {
        qp_result r;
        qp_create_joint(&world, &ok, &r);
        assert_int_equal(r, QP_OK);
        made++;
    }
    expect_refused("full pool", &ok, QP_ERR_FULL);
    printf("[joints] %d bad definitions refused, hash and snapshot unchanged; pool of %d full\n", 17,
           qp_world_joint_capacity());

    /* A ragdoll that does not fit is refused whole. */
    qp_ragdoll_def rd = qp_default_ragdoll_def();
    uint32_t h = qp_world_hash(&world);
    qp_result r;
    assert_int_equal(qp_create_ragdoll(&world, &rd, NULL, &r), QP_ERR_FULL);
    rd.scale = F(0.1);
    assert_int_equal(qp_create_ragdoll(&world, &rd, NULL, &r), QP_ERR_RANGE);
    assert_int_equal(qp_world_hash(&world), h);
}

/* Whether the last step left a contact between bodies x and y. */
static bool touching(qp_body_id x, qp_body_id y)
{
    for (int i = 0; i < qp_world_contact_count(&world); i++) {
        qp_contact_info c;
        assert_true(qp_world_contact_at(&world, i, &c));
        if ((c.a.index == x.index && c.b.index == y.index) || (c.a.index == y.index && c.b.index == x.index))
            return true;
    }
    return false;
}

/* Joined bodies do not collide, as the joints are at each step: joints made and removed
 * between steps, among others whose slots are out of creation order (the engine finds each
 * body's joints from a sorted list of both ends of every joint, built anew each step). */
static void test_joined_pairs_follow_joints(void **state)
{
    (void)state;
    init(false);
    add_plane();
    qp_body_id row[3];
    for (int i = 0; i < 3; i++) row[i] = add_box(V(i, 0.5, 0), V(0.5, 0.5, 0.5), 1, true);
    /* Thirty chains of three spheres away from the row; a joint of every other chain is
     * removed, so that the joints made later take free slots out of creation order. */
    qp_joint_id chain[30][2];
    qp_body_id spheres[3];
    for (int k = 0; k < 30; k++) {
        double z = 3 + 1.5 * k;
        qp_body_id s[3];
        for (int i = 0; i < 3; i++) s[i] = add_sphere(V(i, 0.4, z), 0.4, 1);
        if (k == 0) memcpy(spheres, s, sizeof s);
        for (int i = 0; i < 2; i++) chain[k][i] = ball(s[i], s[i + 1], V(i + 0.5, 0.4, z));
        if (k % 2) assert_int_equal(qp_destroy_joint(&world, chain[k - 1][0]), QP_OK);
    }
    qp_joint_id ab = ball(row[0], row[1], V(0.5, 0.5, 0));
    for (int s = 0; s < 5; s++) qp_world_step(&world);
    assert_false(touching(row[0], row[1]));
    assert_true(touching(row[1], row[2]));
    /* The joint moves from the first pair to the second, in another slot (a joint between
     * two spheres takes the freed one): so does the contact. */
    assert_int_equal(qp_destroy_joint(&world, ab), QP_OK);
    (void)ball(spheres[0], spheres[2], V(1, 0.4, 3));
    qp_joint_id bc = ball(row[1], row[2], V(1.5, 0.5, 0));
    qp_world_step(&world);
    assert_true(touching(row[0], row[1]));
    assert_false(touching(row[1], row[2]));
    assert_int_equal(qp_destroy_joint(&world, bc), QP_OK);
    qp_world_step(&world);
    assert_true(touching(row[1], row[2]));
}

/* The snapshot of a jointed world restores to the same hashes on every later step. */
static void test_snapshot_roundtrip(void **state)
{
    (void)state;
    static qp_world copy;
    init(true);
    add_plane();
    make_chain(6, 1, 2, NULL);
    settle(40);
    unsigned long n = qp_world_snapshot(&world, snap_before, sizeof snap_before);
    assert_true(n > 0 && n <= sizeof snap_before);
    assert_int_equal(qp_world_restore(&copy, snap_before, n), QP_OK);
    for (int s = 0; s < 60; s++) {
        qp_world_step(&world);
        qp_world_step(&copy);
        assert_int_equal(qp_world_hash(&world), qp_world_hash(&copy));
    }
    /* A truncated one is refused. */
    assert_int_equal(qp_world_restore(&copy, snap_before, n - 1), QP_ERR_BUFFER);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pendulum_period), cmocka_unit_test(test_chain_holds),
        cmocka_unit_test(test_door_limits),     cmocka_unit_test(test_rope_catches),
        cmocka_unit_test(test_heavy_end_chain), cmocka_unit_test(test_ragdoll_rests),
        cmocka_unit_test(test_island_wakes),    cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_snapshot_roundtrip), cmocka_unit_test(test_joined_pairs_follow_joints),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
