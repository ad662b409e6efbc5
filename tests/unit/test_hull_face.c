/* SPDX-License-Identifier: MIT */
/* Hull against hull, face contacts: a hull of 4-64 random points at a random pose touching the
 * flat top of a large slab hull gets, from the hull-hull test, the manifold a plane at that
 * top gives it: the same normal and the same deepest depth (to 1 mm), the deepest corner
 * included even when the hull is tilted so that its face most against the slab's normal
 * misses that corner. Random clouds use a fixed seed; QP_HULL_SEED=N runs another set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "qphys/collide.h"
#include "qp_test_util.h"

static qp_hull slab, hull;

static qp_vec3 fv(double x, double y, double z) { return qp_v3(f16(x), f16(y), f16(z)); }

static uint32_t seed_of_run(void)
{
    const char *e = getenv("QP_HULL_SEED");
    uint32_t s = e ? (uint32_t)strtoul(e, NULL, 10) : 20261129u;
    if (s == 0) s = 1;
    printf("test_hull_face: QP_HULL_SEED=%u\n", s);
    return s;
}

/* n points on a sphere of radius 0.2-0.6 m (redrawn while they are too close to its centre). */
static int cloud(qp_vec3 *p, int n)
{
    double r = urand(0.2, 0.6);
    for (int i = 0; i < n; i++) {
        double v[3], l = urand_shell(v);
        p[i] = fv(v[0] / l * r, v[1] / l * r, v[2] / l * r);
    }
    return n;
}

static void test_hull_on_slab_contacts_as_on_plane(void **state)
{
    (void)state;
    rng_state = seed_of_run() ^ 0xA54FF53Au;
    qp_vec3 sp[8];
    for (int k = 0; k < 8; k++) sp[k] = fv(k & 1 ? 4 : -4, k & 2 ? 0 : -0.5, k & 4 ? 4 : -4);   /* top at y = 0 */
    assert_int_equal(qp_hull_build(sp, 8, &slab), QP_OK);
    qp_shape ss, pl;
    assert_int_equal(qp_make_hull(&slab, &ss), QP_OK);
    assert_int_equal(qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &pl), QP_OK);
    /* The slab's shape is about its centre of mass, 0.25 m below its top: the plane's frame is
     * the slab's moved up by that. */
    const double lift = -d16(ss.offset.y);
    const fix16_t margin = QP_FRAC(2, 100);
    int touching = 0, wrong = 0;
    for (int trial = 0; trial < 2000; trial++) {
        qp_vec3 p[QP_HULL_MAX_POINTS];
        int count = cloud(p, 4 + (int)(rng() % 61));
        if (qp_hull_build(p, count, &hull) != QP_OK) continue;
        qp_shape hs;
        assert_int_equal(qp_make_hull(&hull, &hs), QP_OK);
        qp_transform xf = { qp_v3_zero(), qp_quat_to_rot3(rand_quat()) };
        qp_transform hx = qp_shape_transform(&hs, &xf);   /* the hull's own frame at pose xf */
        double lowest = 1e9;
        for (int v = 0; v < hull.vert_count; v++) lowest = fmin(lowest, d16(qp_transform_point(&hx, hull.verts[v]).y));
        xf.p = fv(urand(-2, 2), urand(-0.015, 0.015) - lowest, urand(-2, 2));
        if (fabs(d16(xf.p.y) + lowest - d16(margin)) < 0.0001) continue;   /* at the margin: rounding decides */
        qp_transform in_slab = xf, in_plane = xf;
        in_slab.p.y = f16(d16(xf.p.y) + lift);
        qp_manifold ms, mp;
        int ns = qp_collide(&ss, &hs, &in_slab, margin, &ms), np = qp_collide(&pl, &hs, &in_plane, margin, &mp);
        if (np == 0) continue;
        touching++;
        double ds = -1e9, dp = -1e9;
        for (int k = 0; k < ns; k++) ds = fmax(ds, d16(ms.points[k].depth));
        for (int k = 0; k < np; k++) dp = fmax(dp, d16(mp.points[k].depth));
        bool bad = ns == 0 || fabs(ms.normal.x / Q30) > 1e-5 || fabs(ms.normal.z / Q30) > 1e-5 || fabs(ds - dp) > 0.001;
        if (bad) {
            wrong++;
            print_message("trial %d (%d points, %d faces): %d points, normal %.5f %.5f %.5f, deepest %.5f m on the slab, "
                          "%.5f on a plane\n", trial, count, hull.face_count, ns, ms.normal.x / Q30, ms.normal.y / Q30,
                          ms.normal.z / Q30, ds, dp);
        }
    }
    print_message("%d poses touching, %d not as on a plane\n", touching, wrong);
    assert_true(touching > 1000);
    assert_int_equal(wrong, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hull_on_slab_contacts_as_on_plane),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
