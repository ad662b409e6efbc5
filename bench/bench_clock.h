/* SPDX-License-Identifier: MIT */
/* bench/bench_clock.h - what the host benchmarks share (qphys's bench_host, bench_window and
 * bench_piles, and the peers through peers/peer_common.h): the clock, the fastest run of a
 * step, medians and quantiles, and reading a whole number or a whole file named on the
 * command line. */
#ifndef QPHYS_BENCH_CLOCK_H
#define QPHYS_BENCH_CLOCK_H

#include <stdio.h>
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

/* Microseconds of this thread's processor time (CLOCK_THREAD_CPUTIME_ID): what other processes
 * do not add to, unlike CLOCK_MONOTONIC, where a loaded machine deschedules a run for most of
 * its time (bench_window's cpu_best; docs/benchmarks.md, "Scaling"). */
static inline double bench_cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* qsort's order for doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* slot = t on the first run (rep 0), else the faster of the two: a step's fastest run. */
static inline void bench_keep_min(double *slot, double t, int rep)
{
    if (rep == 0 || t < *slot) *slot = t;
}

/* v[0..n) copied into tmp and sorted, ascending. */
static inline void bench_sort_copy(const double *v, int n, double *tmp)
{
    memcpy(tmp, v, (size_t)n * sizeof *v);
    qsort(tmp, (size_t)n, sizeof *tmp, bench_cmp_double);
}

/* The q-quantile (0 < q <= 1) of v[0..n) by nearest rank, the ceil(q n)-th smallest (tmp: n
 * doubles of scratch); 0 for n <= 0. q = 0.99 of 600 steps is the seventh slowest: the step a
 * game's frame budget must hold, which a median does not show. */
static inline double bench_quantile(const double *v, int n, double q, double *tmp)
{
    if (n <= 0) return 0.0;
    bench_sort_copy(v, n, tmp);
    int k = (int)(q * n + 0.999999);   /* ceil, for the counts used (at most 20 000 steps) */
    return tmp[(k < 1 ? 1 : k > n ? n : k) - 1];
}

/* The median of v[0..n): the mean of the two middle values for an even n (tmp as above). */
static inline double bench_median(const double *v, int n, double *tmp)
{
    if (n <= 0) return 0.0;
    bench_sort_copy(v, n, tmp);
    return (n % 2) ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
}

/* A whole number in [lo, hi] written in decimal, or -1. */
static inline long bench_number(const char *s, long lo, long hi)
{
    char *end;
    long v = strtol(s, &end, 10);
    return *s && !*end && v >= lo && v <= hi ? v : -1;
}

/* Run r (from 0) of a scene ended with hash h: 0 when it is run 0's (*first, set by run 0),
 * else a message naming prog and 1: every run of one scene computes the same bits. */
static inline int bench_same_hash(const char *prog, long r, unsigned long h, unsigned long *first)
{
    if (r > 0 && h != *first) {
        fprintf(stderr, "%s: run %ld ended with hash %08lx, run 1 with %08lx\n", prog, r + 1, h, *first);
        return 1;
    }
    *first = h;
    return 0;
}

/* The whole file at path into text[0..size - 1): its length, or -1 with a message naming
 * prog and the file when it cannot be opened or does not fit. */
static inline long bench_read_file(const char *prog, const char *path, char *text, size_t size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open %s\n", prog, path);
        return -1;
    }
    size_t len = fread(text, 1, size - 1, f);
    int whole = feof(f) && !ferror(f);
    fclose(f);
    if (!whole) {
        fprintf(stderr, "%s: %s: cannot read it whole (at most %zu bytes)\n", prog, path, size - 1);
        return -1;
    }
    return (long)len;
}

#endif
