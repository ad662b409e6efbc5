/* bench/bench_clock.h - the clock and the sort order the host benchmarks share (qphys's
 * bench_host and bench_window, and the peers through peers/peer_common.h). */
#ifndef QPHYS_BENCH_CLOCK_H
#define QPHYS_BENCH_CLOCK_H

#include <time.h>

/* Microseconds of CLOCK_MONOTONIC (needs _POSIX_C_SOURCE >= 199309L before <time.h>). */
static inline double bench_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* qsort's order for doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
