/* SPDX-License-Identifier: MIT */
/* soak - a long run of a pile that is thrown up again and again, checked at every step
 * (make soak: 1 000 000 steps; make test runs 20 000).
 *
 *   soak [STEPS]
 *
 * The pile: 48 bodies (boxes, spheres, capsules of 0.15 .. 0.5 m, 1 .. 10 kg) on a ground
 * plane. Every 400 steps each body gets an impulse up and towards the middle (the pile is
 * thrown and lands again, so it never sleeps for long); every 3000 steps the two lowest
 * slots are destroyed and created again, and one body is put back above the middle.
 *
 * Two worlds run side by side: A is driven by those calls with an input log attached
 * (qphys/record.h), B only replays A's log. At every step:
 *   - A and B have the same hash (the log replays exactly, over the whole run);
 *   - no dynamic body is on its way through the ground: its centre stays above half its
 *     smallest half size (it has not sunk more than half its thickness; the deepest
 *     sinking seen is printed at the end: a heavy body landing on a light one pushes it
 *     some centimetres into the ground for a few steps before the split impulse lifts it);
 *   - nothing saturated: no coordinate of a centre, velocity or spin at a Q16.16 limit,
 *     every speed within the world's clamps, every rotation a unit quaternion (2^-10),
 *     no body flagged out of bounds or losing contacts, no pool overflow.
 * Every 100 000 steps (and at the end) a line with the step, the awake count and the hash,
 * so that two builds' outputs can be compared. Exit 0 if every check held, 1 with the first
 * failure, 2 for bad usage.
 *
 * A host program: stdio and doubles for printing are fine here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qphys/qphys.h"

enum { BODIES = 48, THROW_EVERY = 400, RENEW_EVERY = 3000 };

static qp_world a, b;
static fix16_t min_half[QP_CFG_MAX_BODIES + 1];   /* by slot: smallest half size */
static unsigned char log_buf[64 * 1024];
static uint32_t rnd_state = 0x9E3779B9u;

static uint32_t rnd(void)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 17;
    rnd_state ^= rnd_state << 5;
    return rnd_state;
}

/* In [-range, range] (Q16.16 of range units). */
static fix16_t rnd_fix(fix16_t range) { return (fix16_t)(rnd() % (uint32_t)(2 * range + 1)) - range; }

static void fail(long step, const char *what, int slot)
{
    printf("soak: FAILED at step %ld: %s (slot %d)\n", step, what, slot);
    exit(1);
}

/* Body k of the pile, somewhere above the middle. */
static void make_body(int k, long step)
{
    qp_body_def d = qp_default_body_def();
    /* Every draw its own statement, z before x (the order gcc happened to use when the
     * 1 000 000-step run was made): argument order is unspecified in C. */
    fix16_t z = rnd_fix(QP_INT(3));
    fix16_t x = rnd_fix(QP_INT(3));
    d.position = qp_v3(x, QP_INT(2) + (fix16_t)(k % 8) * QP_FRAC(3, 4), z);
    d.rotation.w = QP_Q30_ONE;
    d.rotation.x = (qp_q30)(rnd() >> 2);
    d.rotation.y = 0;
    d.rotation.z = 0;
    d.friction = QP_FRAC(1, 2);
    d.shape_count = 1;
    fix16_t s = QP_FRAC(15, 100) + (fix16_t)(rnd() % (uint32_t)QP_FRAC(35, 100));
    fix16_t smallest = s;
    qp_result r;
    switch (k % 3) {
    case 0: {
        qp_vec3 h = qp_v3(s, s + QP_FRAC(1, 10), s + (fix16_t)(rnd() % (uint32_t)QP_FRAC(2, 10)));
        r = qp_make_box(h, &d.shapes[0]);
        break;
    }
    case 1: r = qp_make_sphere(s, &d.shapes[0]); break;
    default: r = qp_make_capsule(s, s + QP_FRAC(1, 10), &d.shapes[0]); break;
    }
    if (r != QP_OK) fail(step, "a shape was refused", 0);
    d.mass = QP_INT(1) + (fix16_t)(rnd() % (uint32_t)QP_INT(9));   /* 1 .. 10 kg */
    qp_body_id id = qp_create_body(&a, &d, &r);
    if (r != QP_OK) fail(step, "a body was refused", 0);
    min_half[id.index] = smallest;
}

/* Every body: up and towards the middle. */
static void throw_pile(void)
{
    for (int i = 1; i <= qp_world_capacity(); i++) {
        qp_body_id id = qp_world_body_at(&a, i);
        if (qp_body_id_is_null(id) || qp_body_get_type(&a, id) != QP_BODY_DYNAMIC) continue;
        fix16_t m = qp_body_mass(&a, id);
        qp_vec3 c = qp_body_center(&a, id);
        fix16_t dz = rnd_fix(QP_ONE);
        fix16_t dy = rnd_fix(QP_ONE);
        fix16_t dx = rnd_fix(QP_ONE);
        qp_vec3 dv = qp_v3(-c.x / 4 + dx, QP_INT(4) + dy, -c.z / 4 + dz);
        qp_vec3 j = qp_v3_scale(dv, m);
        fix16_t az = rnd_fix(QP_FRAC(1, 10));
        fix16_t ax = rnd_fix(QP_FRAC(1, 10));
        qp_vec3 at = qp_v3(c.x + ax, c.y, c.z + az);
        if (qp_body_apply_impulse(&a, id, j, at) != QP_OK) fail(0, "an impulse was refused", i);
    }
}

static void renew(long step)
{
    for (int k = 0; k < 2; k++) {
        qp_body_id id = qp_world_body_at(&a, 2 + k);
        if (qp_destroy_body(&a, id) != QP_OK) fail(step, "destroy refused", 2 + k);
    }
    for (int k = 0; k < 2; k++) make_body((int)(step / RENEW_EVERY) + k, step);
    qp_body_id id = qp_world_body_at(&a, 2 + (int)(rnd() % BODIES));
    if (qp_body_set_pose(&a, id, qp_v3(0, QP_INT(5), 0), qp_body_rotation(&a, id)) != QP_OK)
        fail(step, "set pose refused", id.index);
}

static fix16_t deepest;   /* deepest sinking seen, m */

static int saturated(fix16_t v) { return v >= INT32_MAX - 1 || v <= INT32_MIN + 1; }

static void check(long step)
{
    const qp_world_def *d = qp_world_get_def(&a);
    qp_world_stats st = qp_world_get_stats(&a);
    if (st.overflows) fail(step, "a pool overflowed", 0);
    for (int i = 1; i <= qp_world_capacity(); i++) {
        qp_body_id id = qp_world_body_at(&a, i);
        if (qp_body_id_is_null(id) || qp_body_get_type(&a, id) != QP_BODY_DYNAMIC) continue;
        qp_vec3 x = qp_body_center(&a, id), v = qp_body_linear_velocity(&a, id), w = qp_body_angular_velocity(&a, id);
        fix16_t sink = min_half[i] - x.y;   /* how deep its lowest possible point is below y = 0 */
        if (sink > deepest) deepest = sink;
        if (x.y < min_half[i] / 2) {
            printf("soak: centre y %.4f m, smallest half size %.4f m, speed y %.3f m/s\n", x.y / 65536.0,
                   min_half[i] / 65536.0, v.y / 65536.0);
            fail(step, "a body sank more than half its thickness into the ground", i);
        }
        if (saturated(x.x) || saturated(x.y) || saturated(x.z) || saturated(v.x) || saturated(v.y) ||
            saturated(v.z) || saturated(w.x) || saturated(w.y) || saturated(w.z))
            fail(step, "a saturated value", i);
        if (qp_v3_len_sq_wide(v) > (int64_t)d->max_linear_speed * d->max_linear_speed ||
            qp_v3_len_sq_wide(w) > (int64_t)d->max_angular_speed * d->max_angular_speed)
            fail(step, "a speed beyond its clamp", i);
        qp_quat q = qp_body_rotation(&a, id);
        int64_t n = (int64_t)q.w * q.w + (int64_t)q.x * q.x + (int64_t)q.y * q.y + (int64_t)q.z * q.z;
        if (n < ((int64_t)1 << 60) - ((int64_t)1 << 50) || n > ((int64_t)1 << 60) + ((int64_t)1 << 50))
            fail(step, "a rotation is not a unit quaternion", i);
        if (qp_body_flags(&a, id) & (QP_FLAG_OUT_OF_BOUNDS | QP_FLAG_CONTACTS_LOST))
            fail(step, "a body flagged out of bounds or losing contacts", i);
    }
}

int main(int argc, char **argv)
{
    long steps = 1000000;
    if (argc > 2 || (argc == 2 && (steps = strtol(argv[1], NULL, 10)) <= 0)) {
        fprintf(stderr, "usage: soak [STEPS]\n");
        return 2;
    }
    qp_world_def def = qp_default_world_def();
    if (qp_world_init(&a, &def) != QP_OK || qp_world_init(&b, &def) != QP_OK) return 2;
    qp_input_log log;
    qp_result r;
    for (int pass = 0; pass < 2; pass++) {   /* the ground, in A and B alike */
        qp_world *w = pass ? &b : &a;
        qp_body_def g = qp_default_body_def();
        g.type = QP_BODY_STATIC;
        g.shape_count = 1;
        if (qp_make_plane(qp_v3(0, QP_Q30_ONE, 0), 0, &g.shapes[0]) != QP_OK) return 2;
        qp_create_body(w, &g, &r);
        if (r != QP_OK) return 2;
    }
    if (qp_input_log_init(&log, log_buf, sizeof log_buf) != QP_OK) return 2;
    qp_world_set_input_log(&a, &log);
    long awake_steps = 0;
    for (long s = 0; s <= steps; s++) {
        if (s > 0) {
            qp_world_step(&a);
            qp_world_step(&b);
        }
        qp_input_log_init(&log, log_buf, sizeof log_buf);
        if (s == 0)
            for (int k = 0; k < BODIES; k++) make_body(k, s);
        else if (s % RENEW_EVERY == 0) renew(s);
        else if (s % THROW_EVERY == 0) throw_pile();
        if (log.lost) fail(s, "the input log is full", 0);
        unsigned long at = 0;
        qp_input_info info;
        if (qp_input_replay_step(&b, log.data, log.len, &at, &info) != QP_OK || at != log.len)
            fail(s, "B refused A's inputs", info.body.index);
        check(s);
        if (qp_world_hash(&a) != qp_world_hash(&b)) fail(s, "A and B differ", 0);
        qp_world_stats st = qp_world_get_stats(&a);
        if (st.awake > 0) awake_steps++;
        if (s % 100000 == 0 || s == steps)
        {
            printf("step %ld: %d awake, %d asleep, hash %08lx\n", s, st.awake, st.asleep,
                   (unsigned long)qp_world_hash(&a));
            fflush(stdout);   /* progress, also when the output is a file */
        }
    }
    printf("soak: %ld steps, every check held at every step (%ld steps with bodies awake); deepest sinking %.1f mm\n",
           steps, awake_steps, deepest / 65.536);
    return 0;
}
