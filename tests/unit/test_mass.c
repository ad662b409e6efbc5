/* SPDX-License-Identifier: MIT */
/* `mass M` for any shape size in range (0.01 .. 100 m, 0.01 .. 10000 kg): the
 * body weighs exactly M, its inertia is the shape's scaled to M (read back
 * through the response to an impulse: dw = I^-1 (r x J)), small bodies whose
 * inertia is below the floor get it raised by the floor, and a 10 cm ball of
 * 1 kg loads from a scene, falls and rests on the ground. Heavy loads are held
 * up to the documented edge and flagged past it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "qphys/qphys.h"
#include "qp_test_util.h"

static qp_world W;

/* The body-frame principal inertia of a centred, unrotated shape of mass m (closed forms). */
static void analytic_inertia(const qp_shape *s, double m, double out[3])
{
    if (s->type == QP_SHAPE_BOX) {
        double x = d16(s->half.x), y = d16(s->half.y), z = d16(s->half.z);
        out[0] = m * (y * y + z * z) / 3;
        out[1] = m * (x * x + z * z) / 3;
        out[2] = m * (x * x + y * y) / 3;
    } else if (s->type == QP_SHAPE_SPHERE) {
        double r = d16(s->radius);
        out[0] = out[1] = out[2] = 0.4 * m * r * r;
    } else {
        double r = d16(s->radius), h = d16(s->half_height);
        double vc = 2 * M_PI * r * r * h, vs = 4.0 / 3 * M_PI * r * r * r, mc = m * vc / (vc + vs), ms = m - mc;
        out[1] = mc * r * r / 2 + 0.4 * ms * r * r;
        out[0] = out[2] = mc * (r * r / 4 + h * h / 3) + ms * (0.4 * r * r + h * h + 0.75 * h * r);
    }
}

/* Angular velocity about axis k after an impulse J along another axis at an
 * arm r along the third (world = body frame): expected r J / I_k. J is chosen
 * for a spin of about 20 rad/s, within the speed clamps, and large enough
 * that r x J keeps its digits in Q16.16. */
static double spin_response(qp_body_id id, int k, double inertia, double *expect)
{
    int a = (k + 1) % 3, b = (k + 2) % 3;   /* r along a, J along b: r x J along k */
    double m = d16(qp_body_mass(&W, id)), r = inertia / m >= 1 ? 10 : 0.1;
    double spin = fmin(fmin(20, 50 * m * r / inertia), 20000 / inertia), j = d16(f16(spin * inertia / r));
    double rv[3] = { 0, 0, 0 }, jv[3] = { 0, 0, 0 };
    rv[a] = r;
    jv[b] = j;
    qp_vec3 c = qp_body_center(&W, id);
    qp_vec3 p = qp_v3(c.x + f16(rv[0]), c.y + f16(rv[1]), c.z + f16(rv[2]));
    assert_int_equal(qp_body_set_angular_velocity(&W, id, qp_v3_zero()), QP_OK);
    assert_int_equal(qp_body_set_linear_velocity(&W, id, qp_v3_zero()), QP_OK);
    assert_int_equal(qp_body_apply_impulse(&W, id, qp_v3(f16(jv[0]), f16(jv[1]), f16(jv[2])), p), QP_OK);
    qp_vec3 w = qp_body_angular_velocity(&W, id);
    double wv[3] = { d16(w.x), d16(w.y), d16(w.z) };
    *expect = d16(f16(r)) * j / inertia;
    return wv[k];
}

static void test_mass_any_size(void **st)
{
    (void)st;
    rng_state = 777u;
    int accepted = 0, floored = 0, checked_inertia = 0;
    double worst = 0;
    for (int c = 0; c < 300; c++) {
        qp_world_def def = qp_default_world_def();
        def.gravity = qp_v3_zero();
        assert_int_equal(qp_world_init(&W, &def), QP_OK);
        qp_body_def d = qp_default_body_def();
        d.shape_count = 1;
        int type = c % 3;
        /* Sizes and masses log-uniform over their ranges. */
        double s1 = 0.01 * pow(10000, urand(0, 1)), s2 = 0.01 * pow(10000, urand(0, 1)),
               s3 = 0.01 * pow(10000, urand(0, 1)), m = 0.01 * pow(1e6, urand(0, 1));
        if (type == 0) assert_int_equal(qp_make_sphere(f16(s1), &d.shapes[0]), QP_OK);
        if (type == 1) assert_int_equal(qp_make_box(qp_v3(f16(s1), f16(s2), f16(s3)), &d.shapes[0]), QP_OK);
        if (type == 2) assert_int_equal(qp_make_capsule(f16(s1), f16(s2), &d.shapes[0]), QP_OK);
        d.mass = f16(m);
        double in[3];
        analytic_inertia(&d.shapes[0], d16(d.mass), in);
        double imax = fmax(in[0], fmax(in[1], in[2])), imin = fmin(in[0], fmin(in[1], in[2]));
        qp_result err;
        qp_body_id id = qp_create_body(&W, &d, &err);
        if (imax >= 31000) continue;   /* past the inertia range: refused or not, not this test's edge */
        assert_int_equal(err, QP_OK);
        accepted++;
        assert_int_equal(qp_body_mass(&W, id), d.mass);   /* exactly M */
        if (imin < 2e-4) {
            floored++;
            continue;
        }
        /* The impulse response must be within Q16.16's reach: |dw| of at least ~100 LSB. */
        for (int k = 0; k < 3; k++) {
            double expect, w = spin_response(id, k, in[k], &expect);
            if (fabs(expect) < 1000 / Q16) continue;
            double rel = fabs(w - expect) / fabs(expect);
            /* Where Q16.16 holds both the inertia and its inverse to 0.1%: */
            if (in[k] >= 0.01 && in[k] <= 100 && rel > worst) worst = rel;
            checked_inertia++;
            /* 1%, plus what Q16.16 can say: the inertia, its inverse and the angular impulse each to 1/2 LSB. */
            double tol = 0.01 + 0.5 / (Q16 * in[k]) + 0.5 / (Q16 / in[k]) + 0.5 / (Q16 * fabs(expect) * in[k]);
            if (rel > tol)
                printf("case %d: type %d sizes %g %g %g mass %g axis %d: spin %g, expected %g (I %g)\n", c, type, s1,
                       s2, s3, m, k, w, expect, in[k]);
            assert_true(rel <= tol);
        }
    }
    printf("measure: %d bodies accepted (%d with inertia raised to the floor), %d inertia responses checked, "
           "within %.3f%% where the inertia is 0.01 .. 100 kg m^2\n",
           accepted, floored, checked_inertia, 100 * worst);
    assert_true(accepted >= 250);
    assert_true(checked_inertia >= 100);
}

/* A 10 cm ball of 1 kg and a 2 cm steel ball (4e-5 kg m^2, raised to the
 * floor) load from a scene, fall and rest on the ground, and sleep. */
static void test_small_balls_rest(void **st)
{
    (void)st;
    const char *text = "plane\n"
                       "sphere radius 0.1 pos 0 1 0 mass 1\n"
                       "sphere radius 0.02 pos 1 1 0 density 7800\n"
                       "sphere radius 0.05 pos 2 2 0 mass 10000\n";
    qp_scene_info info;
    qp_scene_error e;
    assert_int_equal(qp_scene_load(&W, text, strlen(text), &info, &e), QP_OK);
    for (int s = 0; s < 600; s++) qp_world_step(&W);
    const double radius[3] = { 0.1, 0.02, 0.05 };
    for (int i = 0; i < 3; i++) {
        qp_body_id id = qp_scene_body(&W, i + 1);
        double y = d16(qp_body_position(&W, id).y);
        printf("measure: ball of radius %.2f m rests at %.5f m (%.2f mm inside the ground), %s\n", radius[i], y,
               1000 * (radius[i] - y), qp_body_is_awake(&W, id) ? "awake" : "asleep");
        assert_true(fabs(y - radius[i]) <= 0.003);
        assert_false(qp_body_is_awake(&W, id));
    }
}

/* A compound's `mass` is shared by volume: a unit cube and a 2 m cube side
 * by side put the centre of mass 1/9 of the way from the big one's centre. */
static void test_mass_shared_by_volume(void **st)
{
    (void)st;
    qp_world_def def = qp_default_world_def();
    assert_int_equal(qp_world_init(&W, &def), QP_OK);
    qp_body_def d = qp_default_body_def();
    d.shape_count = 2;
    assert_int_equal(qp_make_box(qp_v3(QP_ONE / 2, QP_ONE / 2, QP_ONE / 2), &d.shapes[0]), QP_OK);
    assert_int_equal(qp_make_box(qp_v3(QP_ONE, QP_ONE, QP_ONE), &d.shapes[1]), QP_OK);
    d.shapes[0].offset = qp_v3(QP_INT(-1), 0, 0);
    d.shapes[1].offset = qp_v3(QP_INT(1) / 2, 0, 0);
    d.mass = QP_INT(9);
    qp_result err;
    qp_body_id id = qp_create_body(&W, &d, &err);
    assert_int_equal(err, QP_OK);
    /* Masses 1 and 8 kg at x = -1 and 0.5: centre at (-1 + 4) / 9 = 1/3. */
    double cx = d16(qp_body_center(&W, id).x);
    printf("measure: compound centre of mass x = %.6f (expected 0.333333)\n", cx);
    assert_true(fabs(cx - 1.0 / 3) <= 2 / Q16);
    assert_int_equal(qp_body_mass(&W, id), QP_INT(9));
}

/* A compound may weigh the least a body may, 0.01 kg, whatever its parts: shared by volume,
 * each part's share rounds down and they sum to less, but the body weighs what was given. */
static void test_least_mass_compound(void **st)
{
    (void)st;
    qp_world_def def = qp_default_world_def();
    assert_int_equal(qp_world_init(&W, &def), QP_OK);
    for (int parts = 1; parts <= QP_CFG_MAX_BODY_SHAPES; parts++) {
        qp_body_def d = qp_default_body_def();
        d.shape_count = parts;
        for (int k = 0; k < parts; k++) {
            assert_int_equal(qp_make_box(qp_v3(QP_ONE / 10, QP_ONE / 10, QP_ONE / 10 + k * 655), &d.shapes[k]), QP_OK);
            d.shapes[k].offset = qp_v3(QP_FRAC(k, 4), 0, 0);
        }
        d.position = qp_v3(QP_INT(3 * parts), QP_INT(1), 0);
        d.mass = QP_FRAC(1, 100);
        qp_result err;
        qp_body_id id = qp_create_body(&W, &d, &err);
        if (err != QP_OK) fail_msg("a compound of %d parts of 0.01 kg: %s", parts, qp_result_str(err));
        assert_int_equal(qp_body_mass(&W, id), QP_FRAC(1, 100));
        d.mass = QP_FRAC(1, 100) - 1;   /* below the range: refused */
        assert_true(qp_body_is_valid(&W, id));
        assert_int_equal(qp_create_body(&W, &d, &err).index, 0);
        assert_int_equal(err, QP_ERR_RANGE);
    }
}

/* Heavy loads at the edge of the range: a 10 t ball whose weight per step
 * (m |g| dt) is just under 32767 N s holds on its single point of support for
 * 10 s without a flag; past that edge it is flagged QP_FLAG_IMPULSE_LIMIT
 * (and may sink: at g = 500 it does), never silently. A box spreads the same
 * load over four points. */
static double heavy_ball(double g, double mass, int box, uint32_t *flags)
{
    qp_world_def def = qp_default_world_def();
    def.gravity = qp_v3(0, f16(-g), 0);
    def.sleep_enabled = false;
    assert_int_equal(qp_world_init(&W, &def), QP_OK);
    qp_body_def d = qp_default_body_def();
    d.type = QP_BODY_STATIC;
    d.shape_count = 1;
    assert_int_equal(qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &d.shapes[0]), QP_OK);
    qp_result err;
    qp_create_body(&W, &d, &err);
    assert_int_equal(err, QP_OK);
    d = qp_default_body_def();
    d.shape_count = 1;
    if (box) assert_int_equal(qp_make_box(qp_v3(QP_ONE / 2, QP_ONE / 2, QP_ONE / 2), &d.shapes[0]), QP_OK);
    else assert_int_equal(qp_make_sphere(QP_ONE / 2, &d.shapes[0]), QP_OK);
    d.mass = f16(mass);
    d.position = qp_v3(0, QP_ONE / 2, 0);
    qp_body_id id = qp_create_body(&W, &d, &err);
    assert_int_equal(err, QP_OK);
    double lowest = 1;
    for (int s = 0; s < 600; s++) {
        qp_world_step(&W);
        lowest = fmin(lowest, d16(qp_body_position(&W, id).y));
    }
    *flags = qp_body_flags(&W, id);
    printf("measure: %s of %.0f kg under g = %.0f (m g dt = %.0f N s): sank %.1f mm, flags %u\n", box ? "box" : "ball",
           mass, g, mass * g / 60, 1000 * (0.5 - lowest), (unsigned)*flags);
    return 0.5 - lowest;
}

static void test_heavy_load_held_or_flagged(void **st)
{
    (void)st;
    uint32_t flags;
    assert_true(heavy_ball(190, 10000, 0, &flags) <= 0.001);   /* 31 667 N s: held */
    assert_int_equal(flags & QP_FLAG_IMPULSE_LIMIT, 0);
    double sank = heavy_ball(500, 10000, 0, &flags);           /* 83 333 N s: past the edge */
    assert_true(flags & QP_FLAG_IMPULSE_LIMIT);
    assert_true(sank > 0.01);   /* it does sink: the flag is what tells */
    assert_true(heavy_ball(500, 10000, 1, &flags) <= 0.001);   /* four points of 20 833 N s each */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mass_any_size),
        cmocka_unit_test(test_small_balls_rest),
        cmocka_unit_test(test_mass_shared_by_volume),
        cmocka_unit_test(test_least_mass_compound),
        cmocka_unit_test(test_heavy_load_held_or_flagged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
