/* bench/bench_clock.h - the clock and the sort order the host benchmarks share (qphys's
 * bench_host and bench_window, and the peers through peers/peer_common.h). */
#ifndef QPHYS_BENCH_CLOCK_H
#define QPHYS_BENCH_CLOCK_H

#include <stdlib.h>
#include <string.h>
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

/* The q-quantile (0 < q <= 1) of v[0..n) by nearest rank, the ceil(q n)-th smallest, from a
 * sorted copy in tmp (n doubles); 0 for n <= 0. q = 0.5 of an even count is the lower middle:
 * medians take the mean of the two middles (bench_median). q = 0.99 of 600 steps is the
 * seventh slowest: the step a game's frame budget must hold, which a median does not show. */
static inline double bench_quantile(const double *v, int n, double q, double *tmp)
{
    if (n <= 0) return 0.0;
    memcpy(tmp, v, (size_t)n * sizeof *v);
    qsort(tmp, (size_t)n, sizeof *tmp, bench_cmp_double);
    int k = (int)(q * n + 0.999999);   /* ceil, for the counts used (at most 20 000 steps) */
    return tmp[(k < 1 ? 1 : k > n ? n : k) - 1];
}

/* The median of v[0..n) (the mean of the two middle values for an even n), sorted in tmp. */
static inline double bench_median(const double *v, int n, double *tmp)
{
    if (n <= 0) return 0.0;
    bench_quantile(v, n, 0.5, tmp);
    return (n % 2) ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
}

#endif
