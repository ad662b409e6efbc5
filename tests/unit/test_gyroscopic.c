/* SPDX-License-Identifier: MIT */
/* The gyroscopic term (qp_world_def.gyroscopic): free bodies in zero gravity, 60 Hz.
 *
 * Angular momentum L = I w is read in double from the engine's own inverse inertia
 * (qp_body_state.inv_inertia_local, the inertia the step uses) and the body's rotation.
 *
 *  1. Momentum: boxes of three inertia ratios and a T-handle spun at 10 and 30 rad/s
 *     about axes that are not principal keep L (the world vector) within 1 % at every
 *     step for 10 s, while their angular velocity wanders (by more than 10 % of it):
 *     they tumble, they do not just keep w; their energy never rises (it falls: the
 *     step's known loss, gyroscopic.c). Without the term w stays and L does not.
 *  2. Dzhanibekov: a T-handle spun about its middle principal axis (1 % off it) turns
 *     that axis over (against L) within 2 s; about its largest and smallest axes it
 *     never does in 10 s. The largest stays within 10 degrees of L; the smallest within
 *     30 (it drifts away by the energy the step loses, 18 degrees in 10 s).
 *  3. At the 50 rad/s clamp: a flat plate and a rod spun at 50 rad/s about a skew axis
 *     for 20 s never gain energy and keep |L| within 1 %.
 *  4. The default is off, and off leaves a body's spin exactly as it was.
 *  5. The switch is state: a snapshot keeps it (a restored world steps in the same bits),
 *     and a format 6 snapshot (written before the switch existed) restores with it off.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cmocka.h>

#include "qphys/world.h"

#define Q16 65536.0
#define Q30 1073741824.0

static qp_world W;

static fix16_t f16(double v) { return (fix16_t)llround(v * Q16); }
static qp_vec3 V(double x, double y, double z) { return qp_v3(f16(x), f16(y), f16(z)); }

typedef struct { double m[3][3]; } dmat;
typedef struct { double x[3]; } dvec;

static dvec dv(qp_vec3 v) { dvec r = { { v.x / Q16, v.y / Q16, v.z / Q16 } }; return r; }
static double dlen(dvec a) { return sqrt(a.x[0] * a.x[0] + a.x[1] * a.x[1] + a.x[2] * a.x[2]); }
static double ddot(dvec a, dvec b) { return a.x[0] * b.x[0] + a.x[1] * b.x[1] + a.x[2] * b.x[2]; }
static dvec dsub(dvec a, dvec b)
{
    dvec r = { { a.x[0] - b.x[0], a.x[1] - b.x[1], a.x[2] - b.x[2] } };
    return r;
}
static dvec mul(const dmat *m, dvec v)
{
    dvec r;
    for (int i = 0; i < 3; i++) r.x[i] = m->m[i][0] * v.x[0] + m->m[i][1] * v.x[1] + m->m[i][2] * v.x[2];
    return r;
}
static dvec mul_t(const dmat *m, dvec v)
{
    dvec r;
    for (int i = 0; i < 3; i++) r.x[i] = m->m[0][i] * v.x[0] + m->m[1][i] * v.x[1] + m->m[2][i] * v.x[2];
    return r;
}

static dmat rotation(qp_quat q30)
{
    double w = q30.w / Q30, x = q30.x / Q30, y = q30.y / Q30, z = q30.z / Q30;
    dmat r = { { { 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y) },
                 { 2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x) },
                 { 2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y) } } };
    return r;
}

/* The body-frame inertia the engine uses: the inverse of its inverse inertia. */
static dmat local_inertia(qp_body_id id)
{
    const qp_mat3 *a = &W.bodies[id.index].inv_inertia_local;
    double m[3][3], inv[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) m[i][j] = a->m[i][j] / Q16;
    inv[0][0] = m[1][1] * m[2][2] - m[1][2] * m[2][1];
    inv[0][1] = m[0][2] * m[2][1] - m[0][1] * m[2][2];
    inv[0][2] = m[0][1] * m[1][2] - m[0][2] * m[1][1];
    inv[1][0] = m[1][2] * m[2][0] - m[1][0] * m[2][2];
    inv[1][1] = m[0][0] * m[2][2] - m[0][2] * m[2][0];
    inv[1][2] = m[0][2] * m[1][0] - m[0][0] * m[1][2];
    inv[2][0] = m[1][0] * m[2][1] - m[1][1] * m[2][0];
    inv[2][1] = m[0][1] * m[2][0] - m[0][0] * m[2][1];
    inv[2][2] = m[0][0] * m[1][1] - m[0][1] * m[1][0];
    double det = m[0][0] * inv[0][0] + m[0][1] * inv[1][0] + m[0][2] * inv[2][0];
    dmat r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) r.m[i][j] = inv[i][j] / det;
    return r;
}

/* L = R I R^T w, world frame. */
static dvec momentum(qp_body_id id)
{
    dmat r = rotation(qp_body_rotation(&W, id)), i = local_inertia(id);
    dvec w = dv(qp_body_angular_velocity(&W, id));
    return mul(&r, mul(&i, mul_t(&r, w)));
}

static double energy(qp_body_id id)
{
    return 0.5 * ddot(dv(qp_body_angular_velocity(&W, id)), momentum(id));
}

static void free_world(bool gyroscopic)
{
    qp_world_def def = qp_default_world_def();
    def.gravity = qp_v3_zero();
    def.sleep_enabled = false;
    def.gyroscopic = gyroscopic;
    assert_int_equal(qp_world_init(&W, &def), QP_OK);
}

/* A box of these half extents (m), 1000 kg/m^3. */
static qp_body_id add_box(double hx, double hy, double hz, qp_vec3 omega)
{
    qp_body_def d = qp_default_body_def();
    d.density = QP_INT(1000);
    d.angular_velocity = omega;
    d.shape_count = 1;
    assert_int_equal(qp_make_box(V(hx, hy, hz), &d.shapes[0]), QP_OK);
    qp_result err = QP_RESULT_COUNT;
    qp_body_id id = qp_create_body(&W, &d, &err);
    assert_int_equal(err, QP_OK);
    return id;
}

/* A T: a shaft along x (0 .. 0.3 m) with a crossbar along z (0.4 m) at its end, 1000
 * kg/m^3. Symmetric in y and in z, so its principal axes are the body's x, y and z. */
static qp_body_id add_t_handle(qp_vec3 omega)
{
    qp_body_def d = qp_default_body_def();
    d.density = QP_INT(1000);
    d.angular_velocity = omega;
    d.shape_count = 2;
    assert_int_equal(qp_make_box(V(0.15, 0.02, 0.02), &d.shapes[0]), QP_OK);
    d.shapes[0].offset = V(0.17, 0, 0);
    assert_int_equal(qp_make_box(V(0.02, 0.02, 0.2), &d.shapes[1]), QP_OK);
    qp_result err = QP_RESULT_COUNT;
    qp_body_id id = qp_create_body(&W, &d, &err);
    assert_int_equal(err, QP_OK);
    return id;
}

/* ---- 1. momentum ----------------------------------------------------------------- */

typedef struct {
    double worst_l, w_change, e_max, e_end; /* e: energy over the start's */
} run_result;

static run_result run_free(qp_body_id id, int steps)
{
    dvec l0 = momentum(id), w0 = dv(qp_body_angular_velocity(&W, id));
    double e0 = energy(id);
    run_result r = { 0, 0, 1, 1 };
    for (int s = 0; s < steps; s++) {
        qp_world_step(&W);
        double e = dlen(dsub(momentum(id), l0)) / dlen(l0);
        double dw = dlen(dsub(dv(qp_body_angular_velocity(&W, id)), w0)) / dlen(w0);
        if (e > r.worst_l) r.worst_l = e;
        if (dw > r.w_change) r.w_change = dw;
        r.e_end = energy(id) / e0;
        if (r.e_end > r.e_max) r.e_max = r.e_end;
    }
    return r;
}

static void test_momentum_conserved(void **state)
{
    (void)state;
    static const double boxes[4][3] = { { 0.1, 0.2, 0.3 }, { 0.05, 0.2, 0.4 }, { 0.3, 0.1, 0.12 }, { 0, 0, 0 } };
    static const double axes[3][3] = { { 1, 1, 1 }, { 1, -2, 0.5 }, { 0.2, 1, -3 } };
    static const double speeds[2] = { 10, 30 };
    for (int b = 0; b < 4; b++)
        for (int a = 0; a < 3; a++)
            for (int s = 0; s < 2; s++) {
                double n = sqrt(axes[a][0] * axes[a][0] + axes[a][1] * axes[a][1] + axes[a][2] * axes[a][2]);
                double k = speeds[s] / n;
                qp_vec3 omega = V(axes[a][0] * k, axes[a][1] * k, axes[a][2] * k);
                free_world(true);
                qp_body_id id = b < 3 ? add_box(boxes[b][0], boxes[b][1], boxes[b][2], omega) : add_t_handle(omega);
                run_result r = run_free(id, 600);
                printf("measure: body %d axis %d %4.0f rad/s: |L - L0| / |L0| max %.4f %%, w moved %.0f %%, "
                       "energy max %.5f, at 10 s %.3f of the start\n",
                       b, a, speeds[s], 100 * r.worst_l, 100 * r.w_change, r.e_max, r.e_end);
                assert_true(r.worst_l < 0.01);
                assert_true(r.w_change > 0.1);
                assert_true(r.e_max <= 1.005);   /* the readings' own error: L is read within 0.05 % */
            }
}

/* Without the term the same body keeps w, and its momentum turns with it. */
static void test_off_keeps_omega_not_momentum(void **state)
{
    (void)state;
    free_world(false);
    qp_vec3 omega = V(10, 10, 10);
    qp_body_id id = add_box(0.1, 0.2, 0.3, omega);
    run_result r = run_free(id, 600);
    printf("measure: off: |L - L0| / |L0| max %.1f %%, w moved %.4f %%\n", 100 * r.worst_l, 100 * r.w_change);
    qp_vec3 w1 = qp_body_angular_velocity(&W, id);
    assert_true(w1.x == omega.x && w1.y == omega.y && w1.z == omega.z);
    assert_true(r.worst_l > 0.1);
    assert_false(qp_default_world_def().gyroscopic);
}

/* ---- 2. Dzhanibekov -------------------------------------------------------------- */

/* Body axes sorted by principal moment (the T's tensor is diagonal): smallest, middle, largest. */
static void axes_by_moment(qp_body_id id, int order[3])
{
    dmat i = local_inertia(id);
    order[0] = 0, order[1] = 1, order[2] = 2;
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++)
            if (i.m[order[b]][order[b]] < i.m[order[a]][order[a]]) {
                int t = order[a];
                order[a] = order[b];
                order[b] = t;
            }
}

/* Spun at 10 rad/s about body axis `axis`, 1 % off it on the other two: the first time (s)
 * the axis points against L (< 0 when it never does in `seconds`), and the largest angle
 * (degrees) between it and L. */
static double spin_about(int axis, double seconds, double *worst_deg)
{
    free_world(true);
    double w[3] = { 0.1, 0.1, 0.1 };
    w[axis] = 10;
    qp_body_id id = add_t_handle(V(w[0], w[1], w[2]));
    dvec l0 = momentum(id);
    *worst_deg = 0;
    for (int s = 1; s <= (int)(seconds * 60); s++) {
        qp_world_step(&W);
        dmat r = rotation(qp_body_rotation(&W, id));
        dvec ax = { { r.m[0][axis], r.m[1][axis], r.m[2][axis] } };
        double c = ddot(ax, l0) / dlen(l0);
        double deg = acos(c > 1 ? 1 : c < -1 ? -1 : c) * 180 / 3.14159265358979;
        if (deg > *worst_deg) *worst_deg = deg;
        if (c < 0) return s / 60.0;
    }
    return -1;
}

static void test_t_handle(void **state)
{
    (void)state;
    free_world(true);
    int order[3];
    axes_by_moment(add_t_handle(qp_v3_zero()), order);
    dmat i = local_inertia(qp_world_body_at(&W, 1));
    printf("measure: T-handle moments %.5f %.5f %.5f kg m^2 (x y z)\n", i.m[0][0], i.m[1][1], i.m[2][2]);
    double deg;
    double flip = spin_about(order[1], 3, &deg);
    printf("measure: middle axis (%c): turned against L at %.2f s\n", 'x' + order[1], flip);
    assert_true(flip > 0 && flip <= 2.0);
    for (int k = 0; k < 3; k += 2) {
        double t = spin_about(order[k], 10, &deg);
        printf("measure: %s axis (%c): never turned over in 10 s (%s), largest angle to L %.2f deg\n",
               k == 0 ? "smallest" : "largest", 'x' + order[k], t < 0 ? "yes" : "no", deg);
        assert_true(t < 0);
        assert_true(deg < (k == 0 ? 30 : 10));
    }
}

/* ---- 3. at the clamp ------------------------------------------------------------- */

static void test_stable_at_clamp(void **state)
{
    (void)state;
    static const double plates[2][3] = { { 0.5, 0.02, 0.3 }, { 0.05, 0.05, 0.5 } };
    for (int p = 0; p < 2; p++) {
        free_world(true);
        double k = 50 / sqrt(3.0);
        qp_body_id id = add_box(plates[p][0], plates[p][1], plates[p][2], V(k, k * 0.999, -k * 0.999));
        double e0 = energy(id), l0 = dlen(momentum(id)), e_max = e0, l_max = l0, l_min = l0, w_max = 0;
        for (int s = 0; s < 1200; s++) {
            qp_world_step(&W);
            double e = energy(id), l = dlen(momentum(id)), w = dlen(dv(qp_body_angular_velocity(&W, id)));
            if (e > e_max) e_max = e;
            if (l > l_max) l_max = l;
            if (l < l_min) l_min = l;
            if (w > w_max) w_max = w;
        }
        printf("measure: plate %d at 50 rad/s, 20 s: energy max %.5f of the start, |L| %.5f .. %.5f of it, "
               "|w| max %.3f\n", p, e_max / e0, l_min / l0, l_max / l0, w_max);
        assert_true(e_max <= e0 * 1.001);
        assert_true(l_max <= l0 * 1.01);
        assert_true(l_min >= l0 * 0.99);
        assert_true(w_max <= 50.001);
    }
}

/* ---- 5. snapshots ----------------------------------------------------------------- */

static qp_world W2;
static unsigned char snap[1 << 16];

static void test_snapshot_keeps_switch(void **state)
{
    (void)state;
    free_world(true);
    (void)add_t_handle(V(0.1, 0.1, 10));
    for (int s = 0; s < 30; s++) qp_world_step(&W);
    unsigned long n = qp_world_snapshot(&W, snap, sizeof snap);
    assert_true(n > 0 && n <= sizeof snap);
    assert_int_equal(qp_world_restore(&W2, snap, n), QP_OK);
    assert_true(qp_world_get_def(&W2)->gyroscopic);
    for (int s = 0; s < 90; s++) {
        qp_world_step(&W);
        qp_world_step(&W2);
        assert_int_equal(qp_world_hash(&W), qp_world_hash(&W2));
    }

    /* A snapshot of a format older than the switch (the format is the u16 after the magic,
     * outside the CRC) is refused whole, and the world it was offered to is untouched. */
    uint32_t before = qp_world_hash(&W2);
    snap[4] = 6;
    snap[5] = 0;
    assert_int_equal(qp_world_restore(&W2, snap, n), QP_ERR_BUFFER);
    assert_int_equal(qp_world_hash(&W2), before);
    assert_true(qp_world_get_def(&W2)->gyroscopic);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_momentum_conserved),
        cmocka_unit_test(test_off_keeps_omega_not_momentum),
        cmocka_unit_test(test_t_handle),
        cmocka_unit_test(test_stable_at_clamp),
        cmocka_unit_test(test_snapshot_keeps_switch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
