/* SPDX-License-Identifier: MIT */
/* The part of cmocka's interface the unit tests use that runs on a cross target, where
 * Debian has no cmocka library (tests/scripts/rows-simd-cross.sh puts this directory first
 * on the include path). No setjmp (WASI has none): a failed assertion prints its file and
 * line (the first few) and marks its test failed, which runs on to its end; skip() returns
 * from the test function (it is called there, as every test here does). Prints one line
 * per test and a summary; the exit status is the number of failed tests. */
#ifndef QPHYS_CROSS_CMOCKA_H
#define QPHYS_CROSS_CMOCKA_H

#include <stdio.h>

struct CMUnitTest {
    const char *name;
    void (*test_func)(void **state);
};

#define cmocka_unit_test(f) { #f, f }

static int qp_cm_failures, qp_cm_skipped;   /* of the test running */

static void qp_cm_fail(const char *what, const char *file, int line)
{
    if (qp_cm_failures++ < 5) printf("%s:%d: %s\n", file, line, what);
}

static void qp_cm_int_equal(long long a, long long b, const char *file, int line)
{
    if (a == b) return;
    char what[64];
    snprintf(what, sizeof what, "%lld != %lld", a, b);
    qp_cm_fail(what, file, line);
}

#define assert_true(c) ((c) ? (void)0 : qp_cm_fail(#c, __FILE__, __LINE__))
#define assert_false(c) ((c) ? qp_cm_fail("!(" #c ")", __FILE__, __LINE__) : (void)0)
#define assert_int_equal(a, b) qp_cm_int_equal((long long)(a), (long long)(b), __FILE__, __LINE__)
#define skip()              \
    do {                    \
        qp_cm_skipped = 1;  \
        return;             \
    } while (0)

static int qp_cm_run(const struct CMUnitTest *tests, size_t n)
{
    int failed = 0, skipped = 0;
    for (size_t k = 0; k < n; k++) {
        qp_cm_failures = qp_cm_skipped = 0;
        tests[k].test_func(NULL);
        if (qp_cm_failures) {
            printf("[  FAILED  ] %s (%d failed assertions)\n", tests[k].name, qp_cm_failures);
            failed++;
        } else if (qp_cm_skipped) {
            printf("[  SKIPPED ] %s\n", tests[k].name);
            skipped++;
        } else {
            printf("[       OK ] %s\n", tests[k].name);
        }
    }
    printf("[  PASSED  ] %d test(s); %d skipped, %d failed.\n", (int)n - failed - skipped, skipped, failed);
    return failed;
}

#define cmocka_run_group_tests(tests, setup, teardown) qp_cm_run(tests, sizeof(tests) / sizeof((tests)[0]))

#endif
