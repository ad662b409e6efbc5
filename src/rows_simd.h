/* SPDX-License-Identifier: MIT */
/* A row's velocity changes with integer SIMD on an x86-64 processor with SSE4.1: the same
 * bits as the scalar kernels of solver.h, which every other processor and build runs.
 *
 * A normal or tangent row changes up to twelve velocity components, each by a product
 * rounded once (qp__round_shift: ties away from zero) and added with saturation. Here the
 * products of a vector are taken two at a time and the adds four at a time, without a
 * saturation test each: one test for the row checks that none can saturate. Its bounds:
 * every velocity component below 2^30 in size; along a direction (Q2.30, any int32) a
 * change s of size below 2^28; against a response (Q16.16) an impulse j below 2^20 and
 * response components below 2^25. Every term is then at most 2^29 and every sum below
 * 2^31 - 1, so the plain sums are the saturating ones to the bit. Otherwise the kernels
 * write nothing and return false, and the caller takes the scalar path. The rounding is
 * symmetric, so a product is rounded as its size and then signed (as d and s have signs),
 * and a's change by -j is b's by j negated, as qp__add_along_pair uses too. */
#ifndef QPHYS_ROWS_SIMD_H
#define QPHYS_ROWS_SIMD_H

#include "qphys/math.h"
#include "compiler.h"
/* and qp_vel_ref: included by solver.h, which defines it first */

/* A build with SSE4.1 inlines the kernels. Any other x86-64 build with SSE2 (the default
 * -O2 host build) compiles them for SSE4.1 apart, out of line, and calls them when the
 * processor has it (QP__SIMD_ON, a flag libgcc sets at start-up). Builds without SSE
 * registers (the core's guard), unoptimised builds (-O0 keeps every vector on the stack:
 * 3.4 KB a kernel) and other processors have none. */
#if !defined(__OPTIMIZE__)
#define QP__ROWS_SIMD 0
#elif defined(__x86_64__) && defined(__SSE4_1__)
#define QP__ROWS_SIMD 1
#define QP__SIMD_HELPER QP__ALWAYS_INLINE
#define QP__SIMD_KERNEL QP__ALWAYS_INLINE
#define QP__SIMD_ON() 1
#elif defined(__x86_64__) && defined(__SSE2__) && defined(__GNUC__)
#define QP__ROWS_SIMD 1
#define QP__SIMD_HELPER inline __attribute__((always_inline, target("sse4.1")))
#define QP__SIMD_KERNEL __attribute__((noinline, unused, target("sse4.1")))
#define QP__SIMD_ON() __builtin_cpu_supports("sse4.1")
#else
#define QP__ROWS_SIMD 0
#endif

#if QP__ROWS_SIMD
#include <smmintrin.h>

/* A vector's three components in lanes 0-2, lane 3 zero (no read past the vector). */
static QP__SIMD_HELPER __m128i qp__ld3(const qp_vec3 *v)
{
    return _mm_insert_epi32(_mm_loadl_epi64((const __m128i *)(const void *)v), v->z, 2);
}

static QP__SIMD_HELPER void qp__st3(qp_vec3 *v, __m128i r)
{
    _mm_storel_epi64((__m128i *)(void *)v, r);
    v->z = _mm_extract_epi32(r, 2);
}

/* d * s rounded by 2^-n in lanes 0-2, for s within the bounds above: the sizes' product
 * (|d| |s|, unsigned 32 x 32 -> 64), rounded up at the half, then signed as d and as s. */
static QP__SIMD_HELPER __m128i qp__mul_round3(__m128i d, fix16_t s, __m128i half, int n)
{
    const __m128i ad = _mm_abs_epi32(d), as = _mm_set1_epi32(s < 0 ? -s : s);
    const __m128i p02 = _mm_mul_epu32(ad, as), p1 = _mm_mul_epu32(_mm_srli_epi64(ad, 32), as);
    const __m128i r02 = _mm_srli_epi64(_mm_add_epi64(p02, half), n);
    const __m128i r1 = _mm_srli_epi64(_mm_add_epi64(p1, half), n);
    const __m128i t = _mm_blend_epi16(r02, _mm_slli_epi64(r1, 32), 0x0C);
    return _mm_sign_epi32(_mm_sign_epi32(t, d), _mm_set1_epi32(s));   /* 0 where d or s is 0, as t is */
}

/* Each lane's size (v ^ its sign: |v|, or |v| - 1 below zero). */
static QP__SIMD_HELPER __m128i qp__size3(__m128i v)
{
    return _mm_xor_si128(v, _mm_srai_epi32(v, 31));
}

/* The scalars' bounds: a change along a direction, an impulse against a response. */
static QP__SIMD_HELPER bool qp__simd_scalars_fit(fix16_t s, fix16_t j)
{
    return (uint32_t)s + (1u << 28) < (1u << 29) && (uint32_t)j + (1u << 20) < (1u << 21);
}

/* The vectors' bounds: responses' sizes in resp, velocities' in vel. */
static QP__SIMD_HELPER bool qp__simd_vectors_fit(__m128i resp, __m128i vel)
{
    const __m128i bad = _mm_or_si128(_mm_srli_epi32(resp, 25), _mm_srli_epi32(vel, 30));
    return _mm_testz_si128(bad, bad) != 0;
}

/* qp__add_along_pair(va, vb, u, s), qp__add_scaled(wa, ia, -j) and qp__add_scaled(wb, ib, j)
 * for the velocities v (solver.h): a row between two bodies of one inverse mass. */
static QP__SIMD_KERNEL bool qp__simd_pair_apply(const qp_vel_ref *v, const qp_vec3 *u, fix16_t s, const qp_vec3 *ia,
                                                  const qp_vec3 *ib, fix16_t j)
{
    qp_vec3 *va = v->va, *vb = v->vb, *wa = v->wa, *wb = v->wb;
    if (!qp__simd_scalars_fit(s, j)) return false;
    const __m128i ra = qp__ld3(ia), rb = qp__ld3(ib);
    const __m128i a = qp__ld3(va), b = qp__ld3(vb), c = qp__ld3(wa), d = qp__ld3(wb);
    const __m128i vel = _mm_or_si128(_mm_or_si128(qp__size3(a), qp__size3(b)), _mm_or_si128(qp__size3(c), qp__size3(d)));
    if (!qp__simd_vectors_fit(_mm_or_si128(qp__size3(ra), qp__size3(rb)), vel)) return false;
    const __m128i h30 = _mm_set1_epi64x(INT64_C(1) << 29), h16 = _mm_set1_epi64x(INT64_C(1) << 15);
    const __m128i x = qp__mul_round3(qp__ld3(u), s, h30, 30);
    qp__st3(va, _mm_sub_epi32(a, x));
    qp__st3(vb, _mm_add_epi32(b, x));
    qp__st3(wa, _mm_sub_epi32(c, qp__mul_round3(ra, j, h16, 16)));
    qp__st3(wb, _mm_add_epi32(d, qp__mul_round3(rb, j, h16, 16)));
    return true;
}

/* qp__add_along(v, u, s) and qp__add_scaled(w, i, j): one side of a row. */
static QP__SIMD_KERNEL bool qp__simd_side_apply(qp_vec3 *v, qp_vec3 *w, const qp_vec3 *u, fix16_t s, const qp_vec3 *i,
                                                  fix16_t j)
{
    if (!qp__simd_scalars_fit(s, j)) return false;
    const __m128i r = qp__ld3(i), a = qp__ld3(v), c = qp__ld3(w);
    if (!qp__simd_vectors_fit(qp__size3(r), _mm_or_si128(qp__size3(a), qp__size3(c)))) return false;
    qp__st3(v, _mm_add_epi32(a, qp__mul_round3(qp__ld3(u), s, _mm_set1_epi64x(INT64_C(1) << 29), 30)));
    qp__st3(w, _mm_add_epi32(c, qp__mul_round3(r, j, _mm_set1_epi64x(INT64_C(1) << 15), 16)));
    return true;
}

/* qp__add_scaled(w, i, j): a row that only turns (the twist), one side. */
static QP__SIMD_KERNEL bool qp__simd_turn_apply(qp_vec3 *w, const qp_vec3 *i, fix16_t j)
{
    if (!qp__simd_scalars_fit(0, j)) return false;
    const __m128i r = qp__ld3(i), c = qp__ld3(w);
    if (!qp__simd_vectors_fit(qp__size3(r), qp__size3(c))) return false;
    qp__st3(w, _mm_add_epi32(c, qp__mul_round3(r, j, _mm_set1_epi64x(INT64_C(1) << 15), 16)));
    return true;
}

#endif

#endif
