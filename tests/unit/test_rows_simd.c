/* SPDX-License-Identifier: MIT */
/* The SIMD row kernels (src/rows_simd.h: SSE4.1 on x86-64, NEON on AArch64) against the
 * scalar ones of src/solver.h: a row applied either way leaves the same bits in every
 * velocity component, so a host with the kernels computes what every board computes.
 *
 * On x86-64 this file is compiled for SSE4.1 (GCC) whatever the build's flags, and skips on
 * a processor without it. tests/scripts/rows-simd-cross.sh builds it for AArch64 too (with
 * tests/unit/cross/cmocka.h) and runs it under qemu-aarch64. Cases: seeded random rows
 * (xorshift64*, reproducible) whose velocities, directions, responses and impulses are drawn
 * from small values, values at and around the kernels' bounds (velocities of 2^30, terms of
 * 2^29) and the ends of int32; each kernel either applies the row exactly as the scalar
 * kernels do or writes nothing and declines (the caller then takes the scalar path). Both
 * outcomes must occur. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#pragma GCC target("sse4.1")
#endif

#include <stdarg.h>
#include <stddef.h>
#if !defined(__wasi__)
#include <setjmp.h>   /* cmocka's; WASI has none, nor needs tests/unit/cross/cmocka.h one */
#endif
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/solver.h"   /* the scalar kernels, and rows_simd.h */

#if QP__ROWS_SIMD

/* Whether this processor runs the kernels: NEON is part of AArch64; SSE4.1 is asked. */
#if defined(__x86_64__)
#define KERNELS_RUN() __builtin_cpu_supports("sse4.1")
#else
#define KERNELS_RUN() 1
#endif

enum { CASES = 200000 };

static uint64_t rng = 0x9E3779B97F4A7C15u;

static uint64_t next(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545F4914F6CDD1Du;
}

/* A case draws its values from the usual sizes with an edge now and then (tame), or from
 * every range alike (wild): a row takes the kernels' path only when all twelve of its
 * components and products are within their bounds. */
static bool wild;

static void next_case(void)
{
    wild = next() % 4 == 0;
}

/* An int32 in [-INT32_MAX, INT32_MAX] from one of the ranges the kernels' tests divide. */
static int32_t draw(int kind_bits)
{
    const int64_t edges[] = { 0, 1, (INT64_C(1) << 15) - 1, INT64_C(1) << 15, (INT64_C(1) << 29) - 1,
                              INT64_C(1) << 29, (INT64_C(1) << 30) - 1, INT64_C(1) << 30, INT32_MAX };
    uint64_t r = next();
    int64_t v;
    switch (wild ? r % 4 : r % 32 != 0 ? 0 : 1 + (r >> 5) % 3) {
    case 0: v = (int64_t)(r >> 8) % ((int64_t)1 << kind_bits); break;             /* the usual sizes */
    case 1: v = edges[(r >> 8) % 9] + (int64_t)((r >> 20) % 5) - 2; break;          /* at the bounds */
    case 2: v = (int64_t)(r >> 8) % ((int64_t)1 << (r >> 40) % 32); break;          /* any size */
    default: v = (int64_t)(int32_t)(uint32_t)(r >> 16); break;                      /* any int32 */
    }
    if (r & (UINT64_C(1) << 63)) v = -v;
    return (int32_t)(v > INT32_MAX ? INT32_MAX : v < -INT32_MAX ? -INT32_MAX : v);
}

static qp_vec3 draw3(int kind_bits)
{
    qp_vec3 v = { draw(kind_bits), draw(kind_bits), draw(kind_bits) };
    return v;
}

static void assert_same(const qp_vec3 *a, const qp_vec3 *b)
{
    assert_int_equal(a->x, b->x);
    assert_int_equal(a->y, b->y);
    assert_int_equal(a->z, b->z);
}

/* A kernel's answer on n velocities (got, from v): applied, the scalar reference's bits
 * (ref); declined, nothing written (the scalar path then applies the reference). */
static void tally(bool ok, qp_vec3 *got, const qp_vec3 *ref, const qp_vec3 *v, int n, int *applied, int *declined)
{
    if (ok) {
        (*applied)++;
    } else {
        (*declined)++;
        for (int k = 0; k < n; k++) assert_same(&got[k], &v[k]);
        memcpy(got, ref, (size_t)n * sizeof *got);
    }
    for (int k = 0; k < n; k++) assert_same(&got[k], &ref[k]);
}

/* A row between two bodies of one inverse mass: qp__add_along_pair and two qp__add_scaled. */
static void test_pair_row_same_bits(void **state)
{
    (void)state;
    if (!KERNELS_RUN()) skip();
    int applied = 0, declined = 0;
    for (int n = 0; n < CASES; n++) {
        next_case();
        qp_vec3 v[4] = { draw3(22), draw3(22), draw3(20), draw3(20) };   /* va, vb, wa, wb */
        const qp_vec3 u = draw3(31), ia = draw3(20), ib = draw3(20);
        const fix16_t s = draw(16), j = draw(14);
        qp_vec3 ref[4], got[4];
        memcpy(ref, v, sizeof v);
        memcpy(got, v, sizeof v);
        qp__add_along_pair(&ref[0], &ref[1], u, s);
        qp__add_scaled(&ref[2], ia, -j);
        qp__add_scaled(&ref[3], ib, j);
        const qp_vel_ref vr = { &got[0], &got[2], &got[1], &got[3] };   /* va, wa, vb, wb */
        tally(qp__simd_pair_apply(&vr, &u, s, &ia, &ib, j), got, ref, v, 4, &applied, &declined);
    }
    assert_true(applied > CASES / 10);
    assert_true(declined > CASES / 10);
}

/* One side of a row: qp__add_along and qp__add_scaled. */
static void test_side_row_same_bits(void **state)
{
    (void)state;
    if (!KERNELS_RUN()) skip();
    int applied = 0, declined = 0;
    for (int n = 0; n < CASES; n++) {
        next_case();
        const qp_vec3 v0 = draw3(22), w0 = draw3(20), u = draw3(31), i = draw3(20);
        const fix16_t s = draw(16), j = draw(14);
        const qp_vec3 v[2] = { v0, w0 };
        qp_vec3 ref[2] = { v0, w0 }, got[2] = { v0, w0 };
        qp__add_along(&ref[0], u, s);
        qp__add_scaled(&ref[1], i, j);
        tally(qp__simd_side_apply(&got[0], &got[1], &u, s, &i, j), got, ref, v, 2, &applied, &declined);
    }
    assert_true(applied > CASES / 10);
    assert_true(declined > CASES / 10);
}

/* A row that only turns (the twist): qp__add_scaled. */
static void test_turn_row_same_bits(void **state)
{
    (void)state;
    if (!KERNELS_RUN()) skip();
    int applied = 0, declined = 0;
    for (int n = 0; n < CASES; n++) {
        next_case();
        const qp_vec3 w0 = draw3(20), i = draw3(20);
        const fix16_t j = draw(14);
        qp_vec3 ref = w0, got = w0;
        qp__add_scaled(&ref, i, j);
        tally(qp__simd_turn_apply(&got, &i, j), &got, &ref, &w0, 1, &applied, &declined);
    }
    assert_true(applied > CASES / 10);
    assert_true(declined > CASES / 10);
}

/* Two rows between two bodies of one inverse mass, one after the other (the friction's
 * tangents): each as qp__add_along_pair and two qp__add_scaled. Velocities are drawn up to
 * the kernel's bound, where the second row's sums reach 2^31 - 1. */
static void test_two_pair_rows_same_bits(void **state)
{
    (void)state;
    if (!KERNELS_RUN()) skip();
    int applied = 0, declined = 0;
    for (int n = 0; n < CASES; n++) {
        next_case();
        qp_vec3 v[4] = { draw3(22), draw3(22), draw3(20), draw3(20) };   /* va, vb, wa, wb */
        const qp_vec3 u1 = draw3(31), ia1 = draw3(20), ib1 = draw3(20);
        const qp_vec3 u2 = draw3(31), ia2 = draw3(20), ib2 = draw3(20);
        const fix16_t s1 = draw(16), j1 = draw(14), s2 = draw(16), j2 = draw(14);
        qp_vec3 ref[4], got[4];
        memcpy(ref, v, sizeof v);
        memcpy(got, v, sizeof v);
        qp__add_along_pair(&ref[0], &ref[1], u1, s1);
        qp__add_scaled(&ref[2], ia1, -j1);
        qp__add_scaled(&ref[3], ib1, j1);
        qp__add_along_pair(&ref[0], &ref[1], u2, s2);
        qp__add_scaled(&ref[2], ia2, -j2);
        qp__add_scaled(&ref[3], ib2, j2);
        const qp_vel_ref vr = { &got[0], &got[2], &got[1], &got[3] };   /* va, wa, vb, wb */
        tally(qp__simd_pair2_apply(&vr, &u1, s1, &ia1, &ib1, j1, &u2, s2, &ia2, &ib2, j2), got, ref, v, 4,
              &applied, &declined);
    }
    assert_true(applied > CASES / 20);
    assert_true(declined > CASES / 10);
}

/* A row that only turns (the twist) between two moving bodies: two qp__add_scaled. */
static void test_turn_pair_row_same_bits(void **state)
{
    (void)state;
    if (!KERNELS_RUN()) skip();
    int applied = 0, declined = 0;
    for (int n = 0; n < CASES; n++) {
        next_case();
        const qp_vec3 wa0 = draw3(20), wb0 = draw3(20), ia = draw3(20), ib = draw3(20);
        const fix16_t j = draw(14);
        const qp_vec3 v[2] = { wa0, wb0 };
        qp_vec3 ref[2] = { wa0, wb0 }, got[2] = { wa0, wb0 };
        qp__add_scaled(&ref[0], ia, -j);
        qp__add_scaled(&ref[1], ib, j);
        tally(qp__simd_turn_pair_apply(&got[0], &got[1], &ia, &ib, j), got, ref, v, 2, &applied, &declined);
    }
    assert_true(applied > CASES / 10);
    assert_true(declined > CASES / 10);
}

/* Two rows at the bounds exactly: velocities of 2^30 - 1 and two terms of 2^29 each, all of
 * one sign, end at 2^31 - 1 (the largest int32), as the scalar rows with saturation give. */
static void test_two_rows_at_bounds(void **state)
{
    (void)state;
    if (!KERNELS_RUN()) skip();
    const fix16_t top = (1 << 30) - 1, j = (1 << 20) - 1;
    const qp_vec3 unit = { 1 << 30, 0, 0 }, resp = { (1 << 25) - 1, -((1 << 25) - 1), 0 };
    qp_vec3 v[4] = { { -top, 0, 0 }, { top, 0, 0 }, { -top, top, 0 }, { top, -top, 0 } }, ref[4];
    memcpy(ref, v, sizeof v);
    for (int row = 0; row < 2; row++) {
        qp__add_along_pair(&ref[0], &ref[1], unit, (1 << 28) - 1);
        qp__add_scaled(&ref[2], resp, -j);
        qp__add_scaled(&ref[3], resp, j);
    }
    const qp_vel_ref vr = { &v[0], &v[2], &v[1], &v[3] };
    assert_true(qp__simd_pair2_apply(&vr, &unit, (1 << 28) - 1, &resp, &resp, j, &unit, (1 << 28) - 1, &resp, &resp, j));
    for (int k = 0; k < 4; k++) assert_same(&v[k], &ref[k]);
    assert_true(v[3].x > top + (1 << 29));   /* past 2^30 + 2^29: both terms near 2^29 */
    qp_vec3 wa = { top, 0, 0 }, wb = { -top, 0, 0 }, ra = wa, rb = wb;
    const qp_vec3 neg = { -((1 << 25) - 1), 0, 0 };
    assert_true(qp__simd_turn_pair_apply(&wa, &wb, &neg, &neg, j));
    qp__add_scaled(&ra, neg, -j);
    qp__add_scaled(&rb, neg, j);
    assert_same(&wa, &ra);
    assert_same(&wb, &rb);
}

/* At the bounds exactly (src/rows_simd.h): a velocity of 2^30 - 1, a change of 2^28 along a
 * direction, an impulse of 2^20 - 1 on a response of 2^25 - 1 are taken; one more of any of
 * them is declined, and nothing is written. */
static void test_bounds(void **state)
{
    (void)state;
    if (!KERNELS_RUN()) skip();
    const fix16_t top = (1 << 30) - 1;
    const qp_vec3 unit = { 1 << 30, 0, 0 }, zero = { 0, 0, 0 };
    const qp_vec3 resp = { (1 << 25) - 1, 0, -((1 << 25) - 1) }, resp_over = { 1 << 25, 0, 0 };
    qp_vec3 v = { top, -top, 0 }, w = { -top, 0, top }, rv = v, rw = w;
    assert_true(qp__simd_side_apply(&v, &w, &unit, -(1 << 28), &resp, (1 << 20) - 1));
    qp__add_along(&rv, unit, -(1 << 28));
    qp__add_scaled(&rw, resp, (1 << 20) - 1);
    assert_same(&v, &rv);
    assert_same(&w, &rw);
    assert_int_equal(v.x, top - (1 << 28));
    const qp_vec3 over = { 1 << 30, 0, 0 };
    const struct { qp_vec3 v; fix16_t s, j; const qp_vec3 *r; } no[] = {
        { over, 0, 0, &zero }, { zero, 1 << 28, 0, &zero }, { zero, 0, 1 << 20, &resp }, { zero, 0, -(1 << 20) - 1, &resp },
        { zero, 0, 1, &resp_over },
    };
    for (size_t k = 0; k < sizeof no / sizeof no[0]; k++) {
        qp_vec3 a = no[k].v, b = zero;
        assert_false(qp__simd_side_apply(&a, &b, &unit, no[k].s, no[k].r, no[k].j));
        assert_same(&a, &no[k].v);
        assert_same(&b, &zero);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pair_row_same_bits),
        cmocka_unit_test(test_side_row_same_bits),
        cmocka_unit_test(test_turn_row_same_bits),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_two_pair_rows_same_bits),
        cmocka_unit_test(test_turn_pair_row_same_bits),
        cmocka_unit_test(test_two_rows_at_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

/* No SIMD kernels in this build (another processor or compiler): nothing to compare. */
static void test_no_simd_kernels(void **state)
{
    (void)state;
    skip();
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_no_simd_kernels) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
