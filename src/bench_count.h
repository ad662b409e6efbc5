/* SPDX-License-Identifier: MIT */
/* Work counters for the benchmarks only (bench/, docs/benchmarks.md): how many
 * solver rows each pass visits, how many pairs the narrow phase collides and how
 * many of those touch, how many integer square roots a step takes.
 *
 * Compiled in only with -DQP_BENCH_COUNT=1 (bench/run.sh builds such a variant of
 * the Cortex-M4 benchmark to divide each stage's instructions by its rows); in
 * every other build QP__COUNT expands to nothing, so the core is unchanged. The
 * counters are one global: a benchmark runs one world at a time. */
#ifndef QPHYS_BENCH_COUNT_H
#define QPHYS_BENCH_COUNT_H

#include <stdint.h>

#ifndef QP_BENCH_COUNT
#define QP_BENCH_COUNT 0
#endif

#if QP_BENCH_COUNT
typedef struct {
    uint32_t collide_sweeps, collide_rows;            /* elastic pass: sweeps, point rows */
    uint32_t warm_rows;                               /* warm start: point + friction rows */
    uint32_t contact_sweeps, contact_normal, contact_friction;   /* contact pass: sweeps, point rows, friction rows */
    uint32_t contact_skipped;                         /* contact pass: quiet visits skipped */
    uint32_t shock_levels, shock_sweeps, shock_normal, shock_friction;
    uint32_t pen_sweeps, pen_normal, pen_anchor;      /* split impulse: points, anchor rows */
    uint32_t narrow_calls, narrow_touching;           /* pairs collided, of which touching */
    uint32_t narrow_kept;                             /* contacts whose manifold was kept */
    uint32_t isqrt;                                   /* qp_isqrt64 calls */
} qp__bench_counts;
extern qp__bench_counts qp__counts;
#define QP__COUNT(field, n) (qp__counts.field += (uint32_t)(n))
#else
#define QP__COUNT(field, n) ((void)0)
#endif

#endif
