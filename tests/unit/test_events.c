/* SPDX-License-Identifier: MIT */
/* Events read after the step (world.h, "events"; src/events.c, src/sensor.c).
 *
 * 1. A box dropped 1 m onto the ground: exactly one contact begin, naming the ground and
 *    the box, at the box's foot, normal up, with the impulse that stopped it (m v within
 *    25%); nothing more while it rests, even once asleep; one end when it is sent up.
 * 2. A stack of three sleeps: one slept event per box, in body order, and no contact
 *    ends; a ball thrown at it wakes them: woke events, each body once.
 * 3. Destroying a body ends its contacts at once (ids as they were).
 * 4. A falling sphere through a static sensor box: one sensor begin on entering and one
 *    end on leaving, and the sphere's trajectory is the same bits as without the sensor;
 *    a ball asleep inside a sensor stays in it (no end); a falling sensor-only body
 *    passes through a sleeping box without waking or moving it, and reports it.
 * 5. Event order: every step's events are sorted by their keys and two runs of a pile of
 *    64 falling cubes give the same event streams.
 * 6. More events in a step than the buffer holds: counted as lost, every kept event
 *    intact and sorted, the count cleared by the next step.
 * 7. A snapshot with sensors and filters restores to a world that steps on with the same
 *    hashes and the same events.
 * 8. 600 steps of random drops, throws, destructions and filter changes among a still and
 *    a moving sensor: every contact and overlap begins and ends in turn, the contacts
 *    left open are the world's, nothing is lost.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "qphys/world.h"

static qp_world world, twin;

static double D(fix16_t v) { return v / 65536.0; }
static double DN(fix16_t v) { return v / 1073741824.0; }
static fix16_t F(double v) { return (fix16_t)lround(v * 65536.0); }
static qp_vec3 V(double x, double y, double z) { return qp_v3(F(x), F(y), F(z)); }

static void init(qp_world *w)
{
    qp_world_def def = qp_default_world_def();
    assert_int_equal(qp_world_init(w, &def), QP_OK);
}

static qp_body_id add_ground(qp_world *w)
{
    qp_body_def d = qp_default_body_def();
    d.type = QP_BODY_STATIC;
    d.shape_count = 1;
    assert_int_equal(qp_make_plane(V(0, 1, 0), 0, &d.shapes[0]), QP_OK);
    qp_result err;
    qp_body_id id = qp_create_body(w, &d, &err);
    assert_int_equal(err, QP_OK);
    return id;
}

static qp_body_id add_box(qp_world *w, double x, double y, double z)
{
    qp_body_def d = qp_default_body_def();
    d.position = V(x, y, z);
    d.shape_count = 1;
    assert_int_equal(qp_make_box(V(0.5, 0.5, 0.5), &d.shapes[0]), QP_OK);
    qp_result err;
    qp_body_id id = qp_create_body(w, &d, &err);
    assert_int_equal(err, QP_OK);
    return id;
}

static qp_body_id add_sphere(qp_world *w, double x, double y, double z, double r)
{
    qp_body_def d = qp_default_body_def();
    d.position = V(x, y, z);
    d.shape_count = 1;
    assert_int_equal(qp_make_sphere(F(r), &d.shapes[0]), QP_OK);
    qp_result err;
    qp_body_id id = qp_create_body(w, &d, &err);
    assert_int_equal(err, QP_OK);
    return id;
}

static bool same_id(qp_body_id a, qp_body_id b) { return a.index == b.index && a.generation == b.generation; }

static int count_kind(const qp_contact_event *e, int n, int kind)
{
    int c = 0;
    for (int i = 0; i < n; i++) c += e[i].kind == kind;
    return c;
}

/* ---- 1. a box dropped and lifted ---------------------------------------------------------- */

static void test_drop_and_lift(void **st)
{
    (void)st;
    init(&world);
    qp_body_id ground = add_ground(&world), box = add_box(&world, 0, 1.5, 0);   /* foot 1 m up */
    int begins = 0, ends = 0, begin_step = -1;
    double impulse = 0, speed_before = 0, speed_after = 0;
    for (int s = 0; s < 200; s++) {
        double v = -D(qp_body_linear_velocity(&world, box).y);
        qp_world_step(&world);
        const qp_contact_event *e;
        int n = qp_world_contact_events(&world, &e);
        for (int i = 0; i < n; i++) {
            assert_true(same_id(e[i].a, ground) && same_id(e[i].b, box));
            assert_int_equal(e[i].shape_a, 0);
            assert_int_equal(e[i].shape_b, 0);
            if (e[i].kind == QP_EVENT_BEGIN) {
                begins++;
                begin_step = s;
                impulse = D(e[i].impulse);
                speed_before = v;
                speed_after = -D(qp_body_linear_velocity(&world, box).y);
                /* the foot of the box, the normal up from the ground */
                assert_true(fabs(D(e[i].point.x)) < 0.01 && fabs(D(e[i].point.z)) < 0.01);
                assert_true(fabs(D(e[i].point.y)) < 0.2);
                assert_true(DN(e[i].normal.y) > 0.999);
            } else {
                ends++;
            }
        }
    }
    print_message("[events] drop: begin at step %d, impulse %.3f N s, 1 kg from %.3f m/s to %.3f m/s\n", begin_step,
                  impulse, speed_before, speed_after);
    assert_int_equal(begins, 1);
    assert_int_equal(ends, 0);
    assert_false(qp_body_is_awake(&world, box));   /* asleep: still no end */
    /* The contact is found a step early (at the predicted pose, within the margin): that
     * step's impulse closes the gap, what is left of the approach is stopped at the next.
     * So the impulse is what changed the box's momentum in that step, gravity's m g dt
     * aside, and at most the whole stop. */
    assert_true(impulse > 0.2 * speed_before && impulse < speed_before + 10.0 / 60 + 0.01);
    assert_true(fabs((speed_before - speed_after) + 10.0 / 60 - impulse) < 0.01);
    /* Sent up: the contact ends once, and nothing begins. */
    assert_int_equal(qp_body_set_linear_velocity(&world, box, V(0, 5, 0)), QP_OK);
    for (int s = 0; s < 20; s++) {
        qp_world_step(&world);
        const qp_contact_event *e;
        int n = qp_world_contact_events(&world, &e);
        begins += count_kind(e, n, QP_EVENT_BEGIN);
        for (int i = 0; i < n; i++)
            if (e[i].kind == QP_EVENT_END) {
                ends++;
                assert_true(same_id(e[i].a, ground) && same_id(e[i].b, box));
                assert_true(DN(e[i].normal.y) > 0.999);
                assert_true(D(e[i].impulse) >= 0 && D(e[i].impulse) < 1);   /* resting: m g dt, about 0.17 */
            }
    }
    assert_int_equal(begins, 1);
    assert_int_equal(ends, 1);
    assert_int_equal(qp_world_events_lost(&world), 0);
}

/* ---- 2. a stack sleeps and is hit ------------------------------------------------------------- */

static void test_sleep_and_wake(void **st)
{
    (void)st;
    init(&world);
    add_ground(&world);
    qp_body_id boxes[3];
    for (int i = 0; i < 3; i++) boxes[i] = add_box(&world, 0, 0.5 + i, 0);
    int slept[4] = { 0 }, woke[4] = { 0 }, ends = 0, sleep_step = -1;
    for (int s = 0; s < 400 && sleep_step < 0; s++) {
        qp_world_step(&world);
        const qp_body_event *e;
        int n = qp_world_body_events(&world, &e);
        for (int i = 0; i < n; i++) {
            int k = e[i].body.index - boxes[0].index;
            assert_true(k >= 0 && k < 3);
            assert_true(same_id(e[i].body, boxes[k]));
            if (e[i].kind == QP_EVENT_SLEPT) slept[k]++, sleep_step = s;
            else woke[k]++;
            if (i > 0) assert_true(e[i - 1].body.index < e[i].body.index);   /* body order */
        }
        const qp_contact_event *c;
        int nc = qp_world_contact_events(&world, &c);
        ends += count_kind(c, nc, QP_EVENT_END);
    }
    print_message("[events] stack of 3 asleep at step %d\n", sleep_step);
    assert_true(sleep_step > 0);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(slept[k], 1);
        assert_int_equal(woke[k], 0);
    }
    for (int s = 0; s < 60; s++) {   /* asleep: no events at all */
        qp_world_step(&world);
        assert_int_equal(qp_world_contact_events(&world, 0) + qp_world_body_events(&world, 0), 0);
    }
    assert_int_equal(ends, 0);
    /* A ball thrown at the top box. */
    qp_body_def d = qp_default_body_def();
    d.position = V(-3, 2.5, 0);
    d.linear_velocity = V(10, 0, 0);
    d.shape_count = 1;
    assert_int_equal(qp_make_sphere(F(0.3), &d.shapes[0]), QP_OK);
    d.mass = F(2);
    qp_result err;
    qp_body_id ball = qp_create_body(&world, &d, &err);
    assert_int_equal(err, QP_OK);
    memset(woke, 0, sizeof woke);
    for (int s = 0; s < 40; s++) {
        qp_world_step(&world);
        const qp_body_event *e;
        int n = qp_world_body_events(&world, &e);
        for (int i = 0; i < n; i++) {
            assert_false(same_id(e[i].body, ball));
            int k = e[i].body.index - boxes[0].index;
            if (e[i].kind == QP_EVENT_WOKE) woke[k]++;
        }
    }
    print_message("[events] ball hit: woke %d %d %d\n", woke[0], woke[1], woke[2]);
    for (int k = 0; k < 3; k++) assert_true(woke[k] <= 1);   /* once each, at most */
    assert_int_equal(woke[2], 1);   /* the top box was hit */
    assert_true(qp_body_is_awake(&world, boxes[2]));
}

/* ---- 3. destroying a body --------------------------------------------------------------------- */

static void test_destroy_ends_contacts(void **st)
{
    (void)st;
    init(&world);
    qp_body_id ground = add_ground(&world), low = add_box(&world, 0, 0.5, 0), top = add_box(&world, 0, 1.5, 0);
    for (int s = 0; s < 5; s++) qp_world_step(&world);
    assert_int_equal(qp_world_contact_events(&world, 0), 0);   /* touching from the start: begun at step 1 */
    assert_int_equal(qp_destroy_body(&world, low), QP_OK);
    const qp_contact_event *e;
    int n = qp_world_contact_events(&world, &e);
    assert_int_equal(n, 2);   /* ground-low and low-top, in contact order */
    assert_true(e[0].kind == QP_EVENT_END && same_id(e[0].a, ground) && same_id(e[0].b, low));
    assert_true(e[1].kind == QP_EVENT_END && same_id(e[1].a, low) && same_id(e[1].b, top));
    assert_false(qp_body_is_valid(&world, e[0].b));   /* as it was: now stale */
    /* Still there after the next step (raised by the call since it), then gone. */
    qp_world_step(&world);
    n = qp_world_contact_events(&world, &e);
    assert_true(n >= 2 && e[0].kind == QP_EVENT_END && same_id(e[0].b, low));
    qp_world_step(&world);
    n = qp_world_contact_events(&world, &e);
    for (int i = 0; i < n; i++) assert_false(same_id(e[i].a, low) || same_id(e[i].b, low));
}

/* ---- 4. sensors ----------------------------------------------------------------------------------- */

static qp_body_id add_sensor_box(qp_world *w, double y, double half)
{
    qp_body_def d = qp_default_body_def();
    d.type = QP_BODY_STATIC;
    d.position = V(0, y, 0);
    d.shape_count = 1;
    assert_int_equal(qp_make_box(V(half, half, half), &d.shapes[0]), QP_OK);
    d.sensors[0] = true;
    qp_result err;
    qp_body_id id = qp_create_body(w, &d, &err);
    assert_int_equal(err, QP_OK);
    return id;
}

static void test_sensor_sees_a_falling_sphere(void **st)
{
    (void)st;
    init(&world);
    init(&twin);
    add_ground(&world);
    add_ground(&twin);
    qp_body_id sensor = add_sensor_box(&world, 5, 1);   /* y 4..6 */
    qp_body_id ball = add_sphere(&world, 0, 10, 0, 0.25), ball2 = add_sphere(&twin, 0, 10, 0, 0.25);
    assert_true(qp_body_shape_is_sensor(&world, sensor, 0));
    int begin_step = -1, end_step = -1, begins = 0, ends = 0;
    for (int s = 0; s < 120; s++) {
        qp_world_step(&world);
        qp_world_step(&twin);
        /* the sensor changes nothing: the same bits */
        assert_true(qp_v3_eq(qp_body_center(&world, ball), qp_body_center(&twin, ball2)));
        assert_true(qp_v3_eq(qp_body_linear_velocity(&world, ball), qp_body_linear_velocity(&twin, ball2)));
        assert_int_equal(qp_world_contact_events(&world, 0) , qp_world_contact_events(&twin, 0));
        const qp_sensor_event *e;
        int n = qp_world_sensor_events(&world, &e);
        for (int i = 0; i < n; i++) {
            assert_true(same_id(e[i].sensor, sensor) && same_id(e[i].visitor, ball));
            double y = D(qp_body_center(&world, ball).y);
            if (e[i].kind == QP_EVENT_BEGIN) begins++, begin_step = s, assert_true(y > 6.0 && y < 6.25 + 0.5);
            else ends++, end_step = s, assert_true(y < 3.75 && y > 3.75 - 0.5);
        }
    }
    print_message("[events] sensor: sphere in at step %d, out at step %d\n", begin_step, end_step);
    assert_int_equal(begins, 1);
    assert_int_equal(ends, 1);
    assert_true(begin_step < end_step);
    assert_int_equal(qp_world_get_stats(&world).contacts, qp_world_get_stats(&twin).contacts);

    /* A ball that comes to rest and sleeps inside a sensor stays in it. */
    init(&world);
    add_ground(&world);
    sensor = add_sensor_box(&world, 0.5, 1);   /* y -0.5..1.5 around the resting ball */
    ball = add_sphere(&world, 0, 2, 0, 0.25);
    begins = ends = 0;
    for (int s = 0; s < 400; s++) {
        qp_world_step(&world);
        const qp_sensor_event *e;
        int n = qp_world_sensor_events(&world, &e);
        for (int i = 0; i < n; i++) {
            if (e[i].kind == QP_EVENT_BEGIN) begins++;
            else ends++;
        }
    }
    assert_false(qp_body_is_awake(&world, ball));
    assert_int_equal(begins, 1);
    assert_int_equal(ends, 0);
    /* and leaves it when destroyed */
    assert_int_equal(qp_destroy_body(&world, ball), QP_OK);
    const qp_sensor_event *e;
    assert_int_equal(qp_world_sensor_events(&world, &e), 1);
    assert_int_equal(e[0].kind, QP_EVENT_END);

    /* A falling body that is only a sensor passes through a sleeping box: the box is
     * neither pushed nor woken, and is reported entering and leaving. */
    init(&world);
    qp_body_id ground = add_ground(&world);
    qp_body_id box = add_box(&world, 0, 0.5, 0);
    for (int s = 0; s < 200; s++) qp_world_step(&world);
    assert_false(qp_body_is_awake(&world, box));
    qp_vec3 at = qp_body_center(&world, box);
    qp_body_def d = qp_default_body_def();
    d.position = V(0, 3, 0);
    d.linear_velocity = V(0, -6, 0);
    d.shape_count = 1;
    assert_int_equal(qp_make_sphere(F(0.3), &d.shapes[0]), QP_OK);
    d.sensors[0] = true;
    qp_result err;
    qp_body_id probe = qp_create_body(&world, &d, &err);
    assert_int_equal(err, QP_OK);
    begins = ends = 0;
    for (int s = 0; s < 60; s++) {
        qp_world_step(&world);
        assert_false(qp_body_is_awake(&world, box));
        int n = qp_world_sensor_events(&world, &e);
        for (int i = 0; i < n; i++) {
            assert_true(same_id(e[i].sensor, probe));
            if (same_id(e[i].visitor, ground)) continue;   /* it enters the ground too, and stays */
            assert_true(same_id(e[i].visitor, box));
            if (e[i].kind == QP_EVENT_BEGIN) begins++;
            else ends++;
        }
        assert_int_equal(qp_world_contact_events(&world, 0), 0);
    }
    assert_true(qp_v3_eq(qp_body_center(&world, box), at));
    assert_true(D(qp_body_center(&world, probe).y) < -5);   /* through the ground too: a sensor touches nothing */
    assert_int_equal(begins, 1);
    assert_int_equal(ends, 1);
}

/* ---- 5. order and repeatability ------------------------------------------------------------------ */

static uint32_t mix(uint32_t h, uint32_t v) { return (h ^ v) * 16777619u; }

static uint64_t ckey(const qp_contact_event *e)
{
    return ((uint64_t)e->a.index << 48) | ((uint64_t)e->b.index << 32) | ((uint64_t)e->shape_a << 8) | e->shape_b;
}

/* A pile of 64 cubes falling turned; every step's events checked sorted and hashed. */
static uint32_t pile_run(qp_world *w, int *total)
{
    init(w);
    add_ground(w);
    for (int i = 0; i < 64; i++) {
        qp_body_def d = qp_default_body_def();
        d.position = V(-2.25 + 1.5 * (i % 4) + 0.4 * ((i / 16) % 2), 1 + 1.2 * (i / 16), -2.25 + 1.5 * ((i / 4) % 4));
        assert_true(qp_quat_from_axis_angle(V(1, 1, 1), F(0.3 * i), &d.rotation));
        d.shape_count = 1;
        assert_int_equal(qp_make_box(V(0.5, 0.5, 0.5), &d.shapes[0]), QP_OK);
        qp_result err;
        (void)qp_create_body(w, &d, &err);
        assert_int_equal(err, QP_OK);
    }
    uint32_t h = 2166136261u;
    *total = 0;
    for (int s = 0; s < 300; s++) {
        qp_world_step(w);
        const qp_contact_event *c;
        int n = qp_world_contact_events(w, &c);
        for (int i = 0; i < n; i++) {
            if (i > 0) assert_true(ckey(&c[i - 1]) <= ckey(&c[i]));
            h = mix(h, (uint32_t)(ckey(&c[i]) >> 32));
            h = mix(h, (uint32_t)ckey(&c[i]) ^ c[i].kind);
            h = mix(h, (uint32_t)c[i].impulse);
            h = mix(h, (uint32_t)c[i].point.y);
        }
        const qp_body_event *b;
        int nb = qp_world_body_events(w, &b);
        for (int i = 0; i < nb; i++) {
            if (i > 0) assert_true(b[i - 1].body.index <= b[i].body.index);
            h = mix(h, ((uint32_t)b[i].body.index << 8) | b[i].kind);
        }
        *total += n + nb;
        assert_int_equal(qp_world_events_lost(w), 0);
    }
    return h;
}

static void test_order_repeatable(void **st)
{
    (void)st;
    int n1, n2;
    uint32_t h1 = pile_run(&world, &n1), h2 = pile_run(&twin, &n2);
    print_message("[events] pile of 64: %d events in 300 steps, stream hash %08x\n", n1, h1);
    assert_true(n1 > 64);
    assert_int_equal(n1, n2);
    assert_int_equal(h1, h2);
}

/* ---- 6. overflow ------------------------------------------------------------------------------------ */

static void test_overflow_counted(void **st)
{
    (void)st;
    init(&world);
    add_ground(&world);
    int balls = QP_CFG_MAX_EVENTS + 44;
    if (balls > QP_CFG_MAX_BODIES - 1) skip();
    for (int i = 0; i < balls; i++) add_sphere(&world, -20 + 1.1 * (i % 36), 0.5, -20 + 1.1 * (i / 36), 0.5);
    qp_world_step(&world);   /* every ball touches the ground in the first step */
    const qp_contact_event *e;
    int n = qp_world_contact_events(&world, &e);
    print_message("[events] %d contacts begin at once: %d kept, %u lost\n", balls, n, qp_world_events_lost(&world));
    assert_int_equal(n, QP_CFG_MAX_EVENTS);
    assert_int_equal(qp_world_events_lost(&world), (uint32_t)(balls - QP_CFG_MAX_EVENTS));
    for (int i = 0; i < n; i++) {
        assert_int_equal(e[i].kind, QP_EVENT_BEGIN);
        assert_true(qp_body_is_valid(&world, e[i].a) && qp_body_is_valid(&world, e[i].b));
        assert_true(DN(e[i].normal.y) > 0.999 && e[i].impulse > 0);
        if (i > 0) assert_true(ckey(&e[i - 1]) < ckey(&e[i]));
    }
    qp_world_step(&world);
    assert_int_equal(qp_world_events_lost(&world), 0);
    assert_int_equal(qp_world_contact_events(&world, 0), 0);
}

/* ---- 7. snapshot ------------------------------------------------------------------------------------- */

static unsigned char snap[QP_SNAPSHOT_MAX_SIZE];

static void test_snapshot_keeps_options(void **st)
{
    (void)st;
    init(&world);
    add_ground(&world);
    add_sensor_box(&world, 3, 1.5);
    for (int i = 0; i < 6; i++) {
        qp_body_id b = add_sphere(&world, 0.3 * i, 5 + 1.1 * i, 0, 0.4);
        qp_shape_filter f = qp_default_shape_filter();
        f.category = (uint16_t)(1u << (i % 3));
        f.mask = (uint16_t)(0xFFFFu & ~(i % 2 ? 2u : 0u));
        f.group = (int16_t)(i == 4 ? -7 : 0);
        assert_int_equal(qp_body_set_shape_filter(&world, b, 0, f), QP_OK);
    }
    for (int s = 0; s < 40; s++) qp_world_step(&world);
    unsigned long n = qp_world_snapshot(&world, snap, sizeof snap);
    assert_true(n > 0 && n <= sizeof snap);
    assert_int_equal(qp_world_restore(&twin, snap, n), QP_OK);
    assert_int_equal(qp_world_hash(&twin), qp_world_hash(&world));
    int events = 0;
    for (int s = 0; s < 200; s++) {
        qp_world_step(&world);
        qp_world_step(&twin);
        assert_int_equal(qp_world_hash(&twin), qp_world_hash(&world));
        const qp_sensor_event *a, *b;
        int na = qp_world_sensor_events(&world, &a), nb = qp_world_sensor_events(&twin, &b);
        assert_int_equal(na, nb);
        assert_memory_equal(a, b, (size_t)na * sizeof *a);
        const qp_contact_event *ca, *cb;
        na = qp_world_contact_events(&world, &ca);
        nb = qp_world_contact_events(&twin, &cb);
        assert_int_equal(na, nb);
        assert_memory_equal(ca, cb, (size_t)na * sizeof *ca);
        events += na;
    }
    assert_true(events > 0);
}

/* ---- 8. begin and end pair up ------------------------------------------------------------------------ */

static uint32_t seed = 2463534242u;
static uint32_t rnd(uint32_t n)
{
    seed ^= seed << 13;
    seed ^= seed >> 17;
    seed ^= seed << 5;
    return seed % n;
}

#define KEYS 4096
static uint64_t open_keys[KEYS];
static int open_n;

static int find_key(uint64_t k)
{
    for (int i = 0; i < open_n; i++)
        if (open_keys[i] == k) return i;
    return -1;
}

/* Begin opens a key that was closed, end closes one that was open. */
static void track(uint64_t key, int kind)
{
    int at = find_key(key);
    if (kind == QP_EVENT_BEGIN) {
        assert_true(at < 0);
        assert_true(open_n < KEYS);
        open_keys[open_n++] = key;
    } else {
        assert_true(at >= 0);
        open_keys[at] = open_keys[--open_n];
    }
}

static void track_all(void)
{
    const qp_contact_event *c;
    int n = qp_world_contact_events(&world, &c);
    for (int i = 0; i < n; i++) track(ckey(&c[i]), c[i].kind);
    const qp_sensor_event *e;
    n = qp_world_sensor_events(&world, &e);
    for (int i = 0; i < n; i++)   /* sensor keys, apart from contact keys by the top bit */
        track((uint64_t)1 << 63 | (uint64_t)e[i].sensor.index << 40 | (uint64_t)e[i].sensor_shape << 32 |
                  (uint64_t)e[i].visitor.index << 8 | e[i].visitor_shape,
              e[i].kind);
}

/* Bodies dropped, thrown and destroyed, filters changed, sensors still and moving, for 600
 * steps, the events read once after each step (those of calls come with the step's):
 * every contact and overlap opens and closes in turn, the contacts left open are the
 * world's, and nothing is lost. */
static void test_begin_end_pair_up(void **st)
{
    (void)st;
    init(&world);
    add_ground(&world);
    add_sensor_box(&world, 1, 1.5);
    qp_body_def sd = qp_default_body_def();   /* a moving sensor too */
    sd.position = V(3, 2, 0);
    sd.linear_velocity = V(-1, 0, 0.5);
    sd.shape_count = 1;
    assert_int_equal(qp_make_sphere(F(0.8), &sd.shapes[0]), QP_OK);
    sd.sensors[0] = true;
    qp_result err;
    (void)qp_create_body(&world, &sd, &err);
    assert_int_equal(err, QP_OK);
    open_n = 0;
    qp_body_id ids[64];
    int nids = 0, destroyed = 0, events = 0, max_open = 0;
    for (int s = 0; s < 600; s++) {
        uint32_t op = rnd(12);
        if ((op < 3 && nids < 48) || nids < 8) {   /* drop a box or a sphere */
            double x = (double)rnd(400) / 100 - 2, z = (double)rnd(400) / 100 - 2, y = 1 + (double)rnd(300) / 100;
            bool cube = rnd(2) != 0;
            ids[nids++] = cube ? add_box(&world, x, y, z) : add_sphere(&world, x, y, z, 0.3 + (double)rnd(30) / 100);
        } else if (op == 3) {   /* destroy one: its contacts and overlaps end at once */
            int k = (int)rnd((uint32_t)nids);
            assert_int_equal(qp_destroy_body(&world, ids[k]), QP_OK);
            ids[k] = ids[--nids];
            destroyed++;
        } else if (op == 4) {   /* a filter */
            qp_shape_filter f = qp_default_shape_filter();
            f.category = (uint16_t)(1u << rnd(3));
            f.mask = (uint16_t)(0xFFFFu & ~(rnd(2) ? 2u : 0u));
            f.group = (int16_t)((int)rnd(3) - 1);
            assert_int_equal(qp_body_set_shape_filter(&world, ids[rnd((uint32_t)nids)], 0, f), QP_OK);
        } else if (op == 5) {   /* a throw */
            double vx = (double)rnd(100) / 10 - 5, vy = (double)rnd(80) / 10;
            assert_int_equal(qp_body_set_linear_velocity(&world, ids[rnd((uint32_t)nids)], V(vx, vy, 0)), QP_OK);
        }
        qp_world_step(&world);
        assert_int_equal(qp_world_events_lost(&world), 0);
        events += qp_world_contact_events(&world, 0) + qp_world_sensor_events(&world, 0);
        track_all();
        int open_contacts = 0;
        for (int i = 0; i < open_n; i++) open_contacts += !(open_keys[i] >> 63);
        assert_int_equal(open_contacts, qp_world_get_stats(&world).contacts);
        if (open_n > max_open) max_open = open_n;
    }
    print_message("[events] 600 random steps: %d events, %d bodies destroyed, up to %d contacts and overlaps open\n",
                  events, destroyed, max_open);
    assert_true(destroyed > 20 && events > 500);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_drop_and_lift),
        cmocka_unit_test(test_sleep_and_wake),
        cmocka_unit_test(test_destroy_ends_contacts),
        cmocka_unit_test(test_sensor_sees_a_falling_sphere),
        cmocka_unit_test(test_order_repeatable),
        cmocka_unit_test(test_overflow_counted),
        cmocka_unit_test(test_snapshot_keeps_options),
        cmocka_unit_test(test_begin_end_pair_up),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
