/* SPDX-License-Identifier: MIT */
/* Swept contacts and the time-of-impact net: no sphere, capsule or box of at
 * least 0.1 m passes through a static or dynamic body of at least 0.05 m at any
 * speed up to the clamp (100 m/s), whatever its start offset within a step, its
 * direction or its orientation: walls (static, 30 kg and featherweight 3 kg
 * plates), and boxes, balls and capsules turned any way, hit on or off their
 * centre line; fast frictionless impacts on a plane give no sideways speed; the
 * whole thing is deterministic (two runs, equal hashes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <cmocka.h>

#include "qphys/world.h"
#include "qp_test_util.h"

static qp_world W;

static void world_no_gravity(void)
{
    qp_world_def def = qp_default_world_def();
    def.gravity = qp_v3_zero();
    def.sleep_enabled = false;
    assert_int_equal(qp_world_init(&W, &def), QP_OK);
}

static qp_body_id create(const qp_body_def *d)
{
    qp_result err;
    qp_body_id id = qp_create_body(&W, d, &err);
    assert_int_equal(err, QP_OK);
    return id;
}

/* A wall 2 m x 2 m, `thick` m thick along its normal (x rotated by yaw about y), at the
 * origin: static (mass 0) or of that mass (30 kg: 375 or 1500 kg/m^3 for 0.2 or 0.05 m; a
 * featherweight plate of 3 kg hit off-centre at 60-100 m/s spins at up to the 50 rad/s
 * clamp, 48 degrees a step: its swinging face passed a ball in 5 of 96 shots before the
 * time-of-impact net, continuous.c). */
static qp_body_id wall(double thick, double yaw, double mass)
{
    qp_body_def d = qp_default_body_def();
    d.type = mass > 0 ? QP_BODY_DYNAMIC : QP_BODY_STATIC;
    d.shape_count = 1;
    assert_int_equal(qp_make_box(qp_v3(f16(thick / 2), QP_ONE, QP_ONE), &d.shapes[0]), QP_OK);
    assert_true(qp_quat_from_axis_angle(qp_v3(0, QP_ONE, 0), f16(yaw), &d.rotation));
    if (mass > 0) d.mass = f16(mass);
    return create(&d);
}

/* A projectile of size 0.1 m (kind 0 sphere r 0.05, 1 box half 0.05, 2 capsule r 0.05 h 0.05), 1 kg. */
static qp_body_id projectile(int kind, qp_vec3 pos, qp_vec3 vel, qp_quat rot)
{
    qp_body_def d = qp_default_body_def();
    d.shape_count = 1;
    fix16_t r = QP_FRAC(5, 100);
    if (kind == 0) assert_int_equal(qp_make_sphere(r, &d.shapes[0]), QP_OK);
    if (kind == 1) assert_int_equal(qp_make_box(qp_v3(r, r, r), &d.shapes[0]), QP_OK);
    if (kind == 2) assert_int_equal(qp_make_capsule(r, r, &d.shapes[0]), QP_OK);
    d.mass = QP_ONE;
    d.position = pos;
    d.linear_velocity = vel;
    d.rotation = rot;
    return create(&d);
}

/* p in the wall's frame (its current pose): x across the wall, y and z along its face. */
static void in_wall_frame(qp_body_id wl, qp_vec3 p, double out[3])
{
    qp_quat q = qp_body_rotation(&W, wl);
    qp_vec3 c = qp_body_position(&W, wl);
    double w = q.w / Q30, x = -q.x / Q30, y = -q.y / Q30, z = -q.z / Q30;   /* the inverse rotation */
    double v[3] = { d16(p.x) - d16(c.x), d16(p.y) - d16(c.y), d16(p.z) - d16(c.z) };
    double cx = y * v[2] - z * v[1], cy = z * v[0] - x * v[2], cz = x * v[1] - y * v[0];
    out[0] = v[0] + 2 * (w * cx + y * cz - z * cy);
    out[1] = v[1] + 2 * (w * cy + z * cx - x * cz);
    out[2] = v[2] + 2 * (w * cz + x * cy - y * cx);
}

/* Did the projectile cross the wall's middle plane within its face (not around an end)? */
static bool went_through(qp_body_id wl, qp_vec3 before, qp_vec3 after)
{
    double a[3], b[3];
    in_wall_frame(wl, before, a);
    in_wall_frame(wl, after, b);
    if (a[0] >= 0 || b[0] < 0) return false;
    double t = -a[0] / (b[0] - a[0]);   /* where the centre's path meets the plane */
    double y = a[1] + t * (b[1] - a[1]), z = a[2] + t * (b[2] - a[2]);
    return fabs(y) < 1 && fabs(z) < 1;
}

static void test_no_tunnelling(void **st)
{
    (void)st;
    rng_state = 4242u;
    const double speeds[] = { 10, 30, 60, 100 };
    const double thick[] = { 0.05, 0.2 }, masses[] = { 0, 30, 3 };   /* static, then dynamic */
    int runs = 0, through = 0;
    for (int kind = 0; kind < 3; kind++)
        for (int m = 0; m < 3; m++)
            for (unsigned t = 0; t < 2; t++)
                for (unsigned s = 0; s < 4; s++)
                    for (int k = 0; k < 6; k++) {
                        world_no_gravity();
                        double yaw = urand(-0.6, 0.6);      /* the wall turned up to 34 degrees */
                        double dir = urand(-0.5, 0.5);      /* the shot up to 29 degrees off the x axis */
                        double v = speeds[s], start = 2 + urand(0, v / 60);   /* any offset within a step */
                        qp_body_id wl = wall(thick[t], yaw, masses[m]);
                        qp_quat rot = rand_quat();
                        /* At the clamp: the last bits of a rounded direction must not exceed it. */
                        double vv = v * (1 - 1e-5);
                        qp_vec3 vel = qp_v3(f16(vv * cos(dir)), 0, f16(vv * sin(dir)));
                        qp_vec3 pos = qp_v3(f16(-start * cos(dir)), 0, f16(-start * sin(dir)));
                        qp_body_id p = projectile(kind, pos, vel, rot);
                        bool crossed = false;
                        for (int i = 0; i < 30 && !crossed; i++) {
                            qp_vec3 before = qp_body_position(&W, p);
                            qp_world_step(&W);
                            crossed = went_through(wl, before, qp_body_position(&W, p));
                        }
                        runs++;
                        if (crossed) {
                            through++;
                            printf("through: kind %d wall %.2f m of %.0f kg (0: static), %.0f m/s, yaw %.2f, dir %.2f, "
                                   "start %.3f\n", kind, thick[t], masses[m], v, yaw, dir, start);
                        }
                    }
    printf("measure: %d shots at walls of 0.05 and 0.2 m (static, 30 kg and 3 kg), 10..100 m/s: %d went through\n",
           runs, through);
    assert_int_equal(through, 0);
}

/* A box hitting a frictionless plane at up to 100 m/s, tilted or not: no
 * sideways speed, and it never ends inside the plane. */
static void test_fast_plane_impact(void **st)
{
    (void)st;
    for (int tilted = 0; tilted < 2; tilted++)
        for (int v = 40; v <= 100; v += 20) {
            world_no_gravity();
            qp_body_def g = qp_default_body_def();
            g.type = QP_BODY_STATIC;
            g.shape_count = 1;
            g.friction = 0;
            assert_int_equal(qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &g.shapes[0]), QP_OK);
            create(&g);
            qp_body_def d = qp_default_body_def();
            d.shape_count = 1;
            d.friction = 0;
            assert_int_equal(qp_make_box(qp_v3(QP_ONE / 2, QP_ONE / 2, QP_ONE / 2), &d.shapes[0]), QP_OK);
            if (tilted) assert_true(qp_quat_from_axis_angle(qp_v3(QP_ONE, f16(0.3), f16(0.7)), f16(0.35), &d.rotation));
            d.position = qp_v3(0, QP_INT(5), 0);
            d.linear_velocity = qp_v3(0, QP_INT(-v), 0);
            qp_body_id id = create(&d);
            double lowest = 1e9, sideways = 0;
            for (int i = 0; i < 120; i++) {
                qp_world_step(&W);
                qp_vec3 p = qp_body_position(&W, id), vel = qp_body_linear_velocity(&W, id);
                if (d16(p.y) < lowest) lowest = d16(p.y);
                double sv = hypot(d16(vel.x), d16(vel.z));
                if (sv > sideways) sideways = sv;
            }
            printf("measure: box at %d m/s%s: lowest centre %.3f m, sideways speed %.4f m/s\n", v,
                   tilted ? " (tilted 20 deg)" : "", lowest, sideways);
            assert_true(sideways < 0.01);
            assert_true(lowest > (tilted ? 0.3 : 0.49));   /* the centre stays above the surface */
        }
}

/* ---- fast shots at any target ---------------------------------------------------- */

/* A target or projectile shape, metres: kind 0 sphere (a = radius), 1 box (a, b, c
 * half extents), 2 capsule (a = radius, b = half height). */
typedef struct {
    int kind;
    double a, b, c;
} shot_shape;

static qp_shape make_shape(shot_shape s)
{
    return s.kind == 0 ? sphere(s.a) : s.kind == 1 ? box(s.a, s.b, s.c) : capsule(s.a, s.b);
}

/* v rotated by q (Q2.30), or by its inverse. */
static void rotate(qp_quat q, const double v[3], double out[3], bool inverse)
{
    double w = q.w / Q30, x = q.x / Q30, y = q.y / Q30, z = q.z / Q30;
    if (inverse) x = -x, y = -y, z = -z;
    double cx = y * v[2] - z * v[1], cy = z * v[0] - x * v[2], cz = x * v[1] - y * v[0];
    out[0] = v[0] + 2 * (w * cx + y * cz - z * cy);
    out[1] = v[1] + 2 * (w * cy + z * cx - x * cz);
    out[2] = v[2] + 2 * (w * cz + x * cy - y * cx);
}

/* Is the point p (the shape's frame) inside the shape, shrunk by `in` on every side? */
static bool inside_shape(shot_shape s, const double p[3], double in)
{
    if (s.kind == 0) return p[0] * p[0] + p[1] * p[1] + p[2] * p[2] < (s.a - in) * (s.a - in);
    if (s.kind == 1) return fabs(p[0]) < s.a - in && fabs(p[1]) < s.b - in && fabs(p[2]) < s.c - in;
    double y = fmax(-s.b, fmin(s.b, p[1]));
    return p[0] * p[0] + (p[1] - y) * (p[1] - y) + p[2] * p[2] < (s.a - in) * (s.a - in);
}

/* Half the thickness of the shape's thinnest part (qp__shape_core). */
static double core_of(shot_shape s)
{
    return s.kind == 1 ? fmin(s.a, fmin(s.b, s.c)) : s.a;
}

/* A pose between two of a body's poses: positions in a line, rotations by nlerp. */
static void pose_between(qp_vec3 x0, qp_quat q0, qp_vec3 x1, qp_quat q1, double f, double x[3], qp_quat *q)
{
    double a[4] = { q0.w, q0.x, q0.y, q0.z }, b[4] = { q1.w, q1.x, q1.y, q1.z }, m[4], n = 0;
    double sign = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0 ? -1 : 1;
    for (int k = 0; k < 4; k++) {
        m[k] = a[k] * (1 - f) + sign * b[k] * f;
        n += m[k] * m[k];
    }
    n = sqrt(n);
    q->w = (qp_q30)llround(m[0] / n * Q30), q->x = (qp_q30)llround(m[1] / n * Q30);
    q->y = (qp_q30)llround(m[2] / n * Q30), q->z = (qp_q30)llround(m[3] / n * Q30);
    x[0] = d16(x0.x) + f * (d16(x1.x) - d16(x0.x));
    x[1] = d16(x0.y) + f * (d16(x1.y) - d16(x0.y));
    x[2] = d16(x0.z) + f * (d16(x1.z) - d16(x0.z));
}

/* Spheres, boxes and capsules of 0.1-0.5 m (boxes up to 2:1), any turn, shot along x
 * at 20-100 m/s up to 2 cm off the line through the target's centre, at static or
 * dynamic (1-30 kg) walls (2 m x 2 m, 0.05-0.6 m thick), boxes of 0.05-0.6 m, and balls
 * and capsules of 0.05-2 m, turned any way; no gravity, 60 steps. None may pass through
 * its target: its centre never crosses the target's middle (the plane across the shot
 * through the target's centre) deep in it (past half the target's core), between or at
 * the steps, and it never ends behind that middle within the target's outline. It may
 * sink in: a shot sliding round a ball or a capsule can have its centre under the
 * surface, and the count of shots whose centre was ever inside is measured. */
static void test_fast_shots_at_any_target(void **st)
{
    (void)st;
    rng_state = 20261126u;
    int lanes = 0, through = 0, behind = 0, entered = 0;
    for (int lane = 0; lane < 960; lane++) {
        world_no_gravity();
        int tk = (int)(rng() % 4);   /* wall, box, ball, capsule */
        double tsize = tk < 2 ? urand(0.05, 0.6) : urand(0.05, 2);
        shot_shape ts = { tk == 0 || tk == 1 ? 1 : tk == 2 ? 0 : 2, tsize / 2, tk == 0 ? 1 : tsize / 2, tk == 0 ? 1 : tsize / 2 };
        if (tk == 3) ts.b = urand(0.01, 1);
        bool dynamic = rng() % 2 == 1;
        qp_body_def td = qp_default_body_def();
        td.type = dynamic ? QP_BODY_DYNAMIC : QP_BODY_STATIC;
        td.shape_count = 1;
        td.shapes[0] = make_shape(ts);
        td.rotation = tk == 0 ? qp_quat_identity() : rand_quat();
        if (dynamic) td.mass = f16(urand(1, 30));
        qp_body_id target = create(&td);
        double psize = urand(0.1, 0.5);
        int pk = (int)(rng() % 3);
        shot_shape ps = { pk, psize / 2, 0, 0 };
        if (pk == 1) {
            ps.b = psize / 2 * urand(1, 2);
            ps.c = psize / 2 * urand(1, 2);
        }
        if (pk == 2) ps.b = urand(0.01, 0.5);
        double v = urand(20, 100) * (1 - 1e-5), off_y = urand(-0.02, 0.02), off_z = urand(-0.02, 0.02);
        double start = 1.5 + tsize + urand(0, v / 60);   /* any offset within a step */
        qp_body_def pd = qp_default_body_def();
        pd.shape_count = 1;
        pd.shapes[0] = make_shape(ps);
        pd.mass = f16(urand(0.5, 5));
        pd.rotation = rand_quat();
        pd.position = qp_v3(f16(-start), f16(off_y), f16(off_z));
        pd.linear_velocity = qp_v3(f16(v), 0, 0);
        qp_body_id shot = create(&pd);
        lanes++;
        bool crossed = false, inside = false;
        for (int step = 0; step < 60; step++) {
            qp_vec3 p0 = qp_body_position(&W, shot), c0 = qp_body_position(&W, target);
            qp_quat q0 = qp_body_rotation(&W, target);
            qp_world_step(&W);
            qp_vec3 p1 = qp_body_position(&W, shot), c1 = qp_body_position(&W, target);
            qp_quat q1 = qp_body_rotation(&W, target);
            double last_x = -1;
            for (int k = 0; k <= 32; k++) {   /* the shot's centre in the target's frame along the step */
                double f = k / 32.0, p[3], c[3], d[3], local[3];
                qp_quat q, unused;
                pose_between(p0, q0, p1, q1, f, p, &unused);
                pose_between(c0, q0, c1, q1, f, c, &q);
                for (int i = 0; i < 3; i++) d[i] = p[i] - c[i];
                rotate(q, d, local, true);
                inside |= inside_shape(ts, local, 0);
                crossed |= inside_shape(ts, local, core_of(ts) / 2) && k > 0 && last_x < 0 && d[0] >= 0;
                last_x = d[0];
            }
        }
        qp_vec3 p = qp_body_position(&W, shot), c = qp_body_position(&W, target);
        double d[3] = { 0, d16(p.y) - d16(c.y), d16(p.z) - d16(c.z) }, local[3];
        rotate(qp_body_rotation(&W, target), d, local, true);
        bool ends_behind = d16(p.x) > d16(c.x) && inside_shape(ts, local, 0);
        through += crossed;
        behind += ends_behind;
        entered += inside;
        if (crossed || ends_behind)
            printf("through: lane %d, shot kind %d of %.3f m at %.1f m/s, target kind %d of %.3f m, %s\n", lane, pk,
                   psize, v, tk, tsize, dynamic ? "dynamic" : "static");
    }
    printf("measure: %d fast shots at walls, boxes, balls and capsules: %d through the middle, %d ended behind, "
           "%d with the centre ever inside\n", lanes, through, behind, entered);
    assert_int_equal(through, 0);
    assert_int_equal(behind, 0);
}

/* Bodies that fly past another close by, without closing in, travel as far each step as
 * their velocity says: the time-of-impact net cuts only what approaches (a 0.1 m box
 * grazing a plate's edge at 90 m/s once moved 0.6 m a step instead of 1.5). */
static void test_grazing_keeps_its_motion(void **st)
{
    (void)st;
    for (int kind = 0; kind < 3; kind++)
        for (int k = 0; k < 4; k++) {
            world_no_gravity();
            double gap = 0.005 + 0.004 * k, v = 70 + 10 * k;
            qp_body_def d = qp_default_body_def();
            d.type = QP_BODY_STATIC;
            d.shape_count = 1;
            d.shapes[0] = k % 2 ? box(0.025, 1, 1) : box(0.5, 0.5, 0.5);   /* a plate's edge, a box's top */
            create(&d);
            double y = (k % 2 ? 1 : 0.5) + (kind == 2 ? 0.1 : 0.05) + gap;   /* above it (an upright capsule's
                                                                                 * end 0.1 m down), gap clear */
            qp_body_id p = projectile(kind, qp_v3(QP_INT(-3), f16(y), 0), qp_v3(f16(v), 0, 0), qp_quat_identity());
            double worst = 0;
            for (int i = 0; i < 6; i++) {
                qp_vec3 x0 = qp_body_position(&W, p), v0 = qp_body_linear_velocity(&W, p);
                qp_world_step(&W);
                qp_vec3 x1 = qp_body_position(&W, p), v1 = qp_body_linear_velocity(&W, p);
                /* the step moves it by its velocity after the step (semi-implicit Euler) */
                double moved = d16(x1.x) - d16(x0.x), want = d16(v1.x) / 60;
                (void)v0;
                worst = fmax(worst, fabs(moved - want));
            }
            printf("measure: kind %d %.0f m/s %.3f m past a %s: travelled within %.4f m of its velocity's step\n", kind,
                   v, gap, k % 2 ? "plate's edge" : "box's top", worst);
            assert_true(worst < 0.001);
        }
}

/* Fast shots are as deterministic as the rest. */
static void test_swept_deterministic(void **st)
{
    (void)st;
    uint32_t h[2];
    for (int run = 0; run < 2; run++) {
        world_no_gravity();
        wall(0.05, 0.3, 30);
        for (int k = 0; k < 3; k++)
            projectile(k, qp_v3(QP_INT(-3), f16(0.3 * (k - 1)), 0), qp_v3(QP_INT(90), 0, f16(5)),
                       qp_quat_identity());
        for (int i = 0; i < 60; i++) qp_world_step(&W);
        h[run] = qp_world_hash(&W);
    }
    assert_int_equal(h[0], h[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_tunnelling),
        cmocka_unit_test(test_fast_plane_impact),
        cmocka_unit_test(test_fast_shots_at_any_target),
        cmocka_unit_test(test_grazing_keeps_its_motion),
        cmocka_unit_test(test_swept_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
