/* SPDX-License-Identifier: MIT */
/* The part of cmocka's interface the unit tests use that runs on a cross target, where
 * Debian has no cmocka library (tests/scripts/rows-simd-cross.sh puts this directory first
 * on the include path): each test runs in turn, the first failed assertion ends it with its
 * file and line, skip() ends it as skipped. Prints one line per test and a summary; the
 * exit status is the number of failed tests. */
#ifndef QPHYS_CROSS_CMOCKA_H
#define QPHYS_CROSS_CMOCKA_H

#include <setjmp.h>
#include <stdio.h>

struct CMUnitTest {
    const char *name;
    void (*test_func)(void **state);
};

#define cmocka_unit_test(f) { #f, f }

static jmp_buf qp_cm_end;

enum { QP_CM_FAILED = 1, QP_CM_SKIPPED = 2 };

static void qp_cm_fail(const char *what, const char *file, int line)
{
    printf("%s:%d: %s\n", file, line, what);
    longjmp(qp_cm_end, QP_CM_FAILED);
}

static void qp_cm_int_equal(long long a, long long b, const char *file, int line)
{
    if (a == b) return;
    printf("%s:%d: %lld != %lld\n", file, line, a, b);
    longjmp(qp_cm_end, QP_CM_FAILED);
}

#define assert_true(c) ((c) ? (void)0 : qp_cm_fail(#c, __FILE__, __LINE__))
#define assert_false(c) ((c) ? qp_cm_fail("!(" #c ")", __FILE__, __LINE__) : (void)0)
#define assert_int_equal(a, b) qp_cm_int_equal((long long)(a), (long long)(b), __FILE__, __LINE__)
#define skip() longjmp(qp_cm_end, QP_CM_SKIPPED)

/* One test: 0 when it ends, else how it was cut short (no local changes after setjmp). */
static int qp_cm_one(const struct CMUnitTest *test)
{
    const int end = setjmp(qp_cm_end);
    if (end == 0) test->test_func(NULL);
    return end;
}

static int qp_cm_run(const struct CMUnitTest *tests, size_t n)
{
    int failed = 0, skipped = 0;
    for (size_t k = 0; k < n; k++) {
        const int end = qp_cm_one(&tests[k]);
        if (end == 0) {
            printf("[       OK ] %s\n", tests[k].name);
        } else if (end == QP_CM_SKIPPED) {
            printf("[  SKIPPED ] %s\n", tests[k].name);
            skipped++;
        } else {
            printf("[  FAILED  ] %s\n", tests[k].name);
            failed++;
        }
    }
    printf("[  PASSED  ] %d test(s); %d skipped, %d failed.\n", (int)n - failed - skipped, skipped, failed);
    return failed;
}

#define cmocka_run_group_tests(tests, setup, teardown) qp_cm_run(tests, sizeof(tests) / sizeof((tests)[0]))

#endif
