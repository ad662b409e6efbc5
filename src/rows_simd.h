/* SPDX-License-Identifier: MIT */
/* A row's velocity changes with integer SIMD, where the build has SSE4.1 (x86-64 built with
 * -msse4.1 or -march=x86-64-v2 and up): the same bits as the scalar kernels of solver.h,
 * which every other build runs.
 *
 * A normal or tangent row changes up to twelve velocity components, each by a product
 * rounded once (qp__round_shift: ties away from zero) and added with saturation. Here the
 * products of a vector are taken two at a time (_mm_mul_epi32: signed 32 x 32 -> 64) and
 * the adds four at a time, without a saturation test each: one test for the row checks
 * that none can saturate (every velocity component below 2^30 in size, every product
 * below 2^(n + 29) for a shift n, so every term is at most 2^29 and every sum below
 * 2^31 - 1). Then the plain sums are the saturating ones to the bit. Otherwise the kernels
 * write nothing and return false, and the caller takes the scalar path. The rounding is
 * symmetric, so a's change by -j is b's by j negated, as qp__add_along_pair uses too. */
#ifndef QPHYS_ROWS_SIMD_H
#define QPHYS_ROWS_SIMD_H

#include "qphys/math.h"
#include "compiler.h"

#if defined(__SSE4_1__) && defined(__x86_64__)
#include <smmintrin.h>
#define QP__ROWS_SIMD 1

/* A vector's three components in lanes 0-2, lane 3 zero (no read past the vector). */
static QP__ALWAYS_INLINE __m128i qp__ld3(const qp_vec3 *v)
{
    return _mm_insert_epi32(_mm_loadl_epi64((const __m128i *)(const void *)v), v->z, 2);
}

static QP__ALWAYS_INLINE void qp__st3(qp_vec3 *v, __m128i r)
{
    _mm_storel_epi64((__m128i *)(void *)v, r);
    v->z = _mm_extract_epi32(r, 2);
}

/* d * s (s in every lane), rounded by 2^-n, in lanes 0-2. *big gathers each product's size
 * (p ^ its sign: |p|, or |p| - 1 below zero), whose bits from n + 29 up are 0 while the
 * term is at most 2^29; the term is then the low word of the logical shift, which is the
 * arithmetic shift's there. */
static QP__ALWAYS_INLINE __m128i qp__mul_round3(__m128i d, __m128i s, __m128i half, int n, __m128i *big)
{
    const __m128i p02 = _mm_mul_epi32(d, s), p1 = _mm_mul_epi32(_mm_srli_epi64(d, 32), s);
    const __m128i g02 = _mm_shuffle_epi32(_mm_srai_epi32(p02, 31), _MM_SHUFFLE(3, 3, 1, 1));
    const __m128i g1 = _mm_shuffle_epi32(_mm_srai_epi32(p1, 31), _MM_SHUFFLE(3, 3, 1, 1));
    *big = _mm_or_si128(*big, _mm_or_si128(_mm_xor_si128(p02, g02), _mm_xor_si128(p1, g1)));
    const __m128i r02 = _mm_srli_epi64(_mm_add_epi64(_mm_add_epi64(p02, half), g02), n);
    const __m128i r1 = _mm_srli_epi64(_mm_add_epi64(_mm_add_epi64(p1, half), g1), n);
    return _mm_blend_epi16(r02, _mm_slli_epi64(r1, 32), 0x0C);
}

/* Each lane's size (v ^ its sign), below 2^30 while |v| is. */
static QP__ALWAYS_INLINE __m128i qp__size3(__m128i v)
{
    return _mm_xor_si128(v, _mm_srai_epi32(v, 31));
}

/* True when no bound is broken: products along a unit (Q2.30, shift 30) in big30, products
 * with a response (Q16.16, shift 16) in big16, velocities' sizes in bigv. */
static QP__ALWAYS_INLINE bool qp__simd_fits(__m128i big30, __m128i big16, __m128i bigv)
{
    const __m128i bad = _mm_or_si128(_mm_or_si128(_mm_srli_epi64(big30, 59), _mm_srli_epi64(big16, 45)),
                                     _mm_srli_epi32(bigv, 30));
    return _mm_testz_si128(bad, bad) != 0;
}

/* qp__add_along_pair(va, vb, u, s), qp__add_scaled(wa, ia, -j) and qp__add_scaled(wb, ib, j):
 * a row between two bodies of one inverse mass. */
static QP__ALWAYS_INLINE bool qp__simd_pair_apply(qp_vec3 *va, qp_vec3 *vb, qp_vec3 *wa, qp_vec3 *wb, const qp_vec3 *u,
                                                  fix16_t s, const qp_vec3 *ia, const qp_vec3 *ib, fix16_t j)
{
    const __m128i vj = _mm_set1_epi32(j);
    const __m128i h30 = _mm_set1_epi64x(INT64_C(1) << 29), h16 = _mm_set1_epi64x(INT64_C(1) << 15);
    __m128i big30 = _mm_setzero_si128(), big16 = _mm_setzero_si128();
    const __m128i x = qp__mul_round3(qp__ld3(u), _mm_set1_epi32(s), h30, 30, &big30);
    const __m128i ta = qp__mul_round3(qp__ld3(ia), vj, h16, 16, &big16);
    const __m128i tb = qp__mul_round3(qp__ld3(ib), vj, h16, 16, &big16);
    const __m128i a = qp__ld3(va), b = qp__ld3(vb), c = qp__ld3(wa), d = qp__ld3(wb);
    const __m128i bigv = _mm_or_si128(_mm_or_si128(qp__size3(a), qp__size3(b)), _mm_or_si128(qp__size3(c), qp__size3(d)));
    if (!qp__simd_fits(big30, big16, bigv)) return false;
    qp__st3(va, _mm_sub_epi32(a, x));
    qp__st3(vb, _mm_add_epi32(b, x));
    qp__st3(wa, _mm_sub_epi32(c, ta));
    qp__st3(wb, _mm_add_epi32(d, tb));
    return true;
}

/* qp__add_along(v, u, s) and qp__add_scaled(w, i, j): one side of a row. */
static QP__ALWAYS_INLINE bool qp__simd_side_apply(qp_vec3 *v, qp_vec3 *w, const qp_vec3 *u, fix16_t s, const qp_vec3 *i,
                                                  fix16_t j)
{
    const __m128i h30 = _mm_set1_epi64x(INT64_C(1) << 29), h16 = _mm_set1_epi64x(INT64_C(1) << 15);
    __m128i big30 = _mm_setzero_si128(), big16 = _mm_setzero_si128();
    const __m128i x = qp__mul_round3(qp__ld3(u), _mm_set1_epi32(s), h30, 30, &big30);
    const __m128i t = qp__mul_round3(qp__ld3(i), _mm_set1_epi32(j), h16, 16, &big16);
    const __m128i a = qp__ld3(v), c = qp__ld3(w);
    if (!qp__simd_fits(big30, big16, _mm_or_si128(qp__size3(a), qp__size3(c)))) return false;
    qp__st3(v, _mm_add_epi32(a, x));
    qp__st3(w, _mm_add_epi32(c, t));
    return true;
}

#else
#define QP__ROWS_SIMD 0
#endif

#endif
