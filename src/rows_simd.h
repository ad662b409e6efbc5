/* SPDX-License-Identifier: MIT */
/* A row's velocity changes with integer SIMD: SSE4.1 on an x86-64 processor, NEON on
 * AArch64, SIMD128 on WebAssembly. The same bits as the scalar kernels of solver.h, which
 * every other processor and build runs.
 *
 * A normal or tangent row changes up to twelve velocity components, each by a product
 * rounded once (qp__round_shift: ties away from zero) and added with saturation. Here a
 * vector's three components (lanes 0-2 of four int32 lanes, lane 3 zero) are multiplied and
 * added at once, without a saturation test each: one test for the row checks that none can
 * saturate. Its bounds: every velocity component below 2^30 in size; along a direction
 * (Q2.30, any int32) a change s of size below 2^28; against a response (Q16.16) an impulse j
 * below 2^20 and response components below 2^25. Every term is then at most 2^29 and every
 * sum below 2^31 - 1, so the plain sums are the saturating ones to the bit. Otherwise the
 * kernels write nothing and return false, and the caller takes the scalar path. Each ISA's
 * section gives the lanes' type and operations; the kernels at the end are written once. */
#ifndef QPHYS_ROWS_SIMD_H
#define QPHYS_ROWS_SIMD_H

#include "qphys/math.h"
#include "compiler.h"
/* and qp_vel_ref: included by solver.h, which defines it first */

/* A build with SSE4.1 inlines the kernels. Any other x86-64 build with SSE2 (the default
 * -O2 host build) compiles them for SSE4.1 apart, out of line, and calls them when the
 * processor has it (QP__SIMD_ON, a flag libgcc sets at start-up). AArch64 always has NEON:
 * its builds inline them, as do WebAssembly builds with SIMD128 (-msimd128: a module that
 * runtimes without SIMD128 refuse to load, so the default wasm32 build has none). Builds
 * without vector registers (the core's guard), unoptimised builds (-O0 keeps every vector
 * on the stack: 3.4 KB a kernel) and other processors have none. */
#if !defined(__OPTIMIZE__)
#define QP__ROWS_SIMD 0
#elif defined(__x86_64__) && defined(__SSE4_1__)
#define QP__ROWS_SIMD 1
#define QP__ROWS_SSE41 1
#define QP__SIMD_HELPER QP__ALWAYS_INLINE
#define QP__SIMD_KERNEL QP__ALWAYS_INLINE
#define QP__SIMD_ON() 1
#elif defined(__x86_64__) && defined(__SSE2__) && defined(__GNUC__)
#define QP__ROWS_SIMD 1
#define QP__ROWS_SSE41 1
#define QP__SIMD_HELPER inline __attribute__((always_inline, target("sse4.1")))
#define QP__SIMD_KERNEL __attribute__((noinline, unused, target("sse4.1")))
#define QP__SIMD_ON() __builtin_cpu_supports("sse4.1")
#elif defined(__aarch64__) && defined(__ARM_NEON)
#define QP__ROWS_SIMD 1
#define QP__ROWS_NEON 1
#define QP__SIMD_HELPER QP__ALWAYS_INLINE
#define QP__SIMD_KERNEL QP__ALWAYS_INLINE
#define QP__SIMD_ON() 1
#elif defined(__wasm_simd128__)
#define QP__ROWS_SIMD 1
#define QP__ROWS_WASM 1
#define QP__SIMD_HELPER QP__ALWAYS_INLINE
#define QP__SIMD_KERNEL QP__ALWAYS_INLINE
#define QP__SIMD_ON() 1
#else
#define QP__ROWS_SIMD 0
#endif

#if QP__ROWS_SIMD

/* Each ISA's section defines, for qp__lanes (four int32 lanes):
 *   qp__ld3(v), qp__st3(v, r)       a vector in lanes 0-2, lane 3 zero (no access past it)
 *   qp__lanes_add/sub/or(a, b)      lane by lane, wrapping
 *   qp__size3(v)                    each lane's size: v ^ its sign (|v|, or |v| - 1 below zero)
 *   qp__mul_round3(d, s, n)         d * s rounded by 2^-n (qp__round_shift; n is 16 or 30) in
 *                                   each lane, for products within the bounds above
 *   qp__lanes_fit(resp, vel)        the vectors' bounds: responses' sizes in resp below 2^25,
 *                                   velocities' in vel below 2^30 */

#if defined(QP__ROWS_SSE41)
/* ---- x86-64, SSE4.1 ---- */
#include <smmintrin.h>

typedef __m128i qp__lanes;

static QP__SIMD_HELPER qp__lanes qp__ld3(const qp_vec3 *v)
{
    return _mm_insert_epi32(_mm_loadl_epi64((const __m128i *)(const void *)v), v->z, 2);
}

static QP__SIMD_HELPER void qp__st3(qp_vec3 *v, qp__lanes r)
{
    _mm_storel_epi64((__m128i *)(void *)v, r);
    v->z = _mm_extract_epi32(r, 2);
}

static QP__SIMD_HELPER qp__lanes qp__lanes_add(qp__lanes a, qp__lanes b) { return _mm_add_epi32(a, b); }
static QP__SIMD_HELPER qp__lanes qp__lanes_sub(qp__lanes a, qp__lanes b) { return _mm_sub_epi32(a, b); }
static QP__SIMD_HELPER qp__lanes qp__lanes_or(qp__lanes a, qp__lanes b) { return _mm_or_si128(a, b); }

static QP__SIMD_HELPER qp__lanes qp__size3(qp__lanes v)
{
    return _mm_xor_si128(v, _mm_srai_epi32(v, 31));
}

/* SSE4.1 multiplies lanes 0 and 2 only, unsigned (32 x 32 -> 64) or signed: the sizes'
 * product |d| |s|, rounded up at the half, then signed as d and as s. The rounding is
 * symmetric, so this is the signed product rounded. */
static QP__SIMD_HELPER qp__lanes qp__mul_round3(qp__lanes d, fix16_t s, int n)
{
    const __m128i half = _mm_set1_epi64x(INT64_C(1) << (n - 1));
    const __m128i ad = _mm_abs_epi32(d), as = _mm_set1_epi32(s < 0 ? -s : s);
    const __m128i p02 = _mm_mul_epu32(ad, as), p1 = _mm_mul_epu32(_mm_srli_epi64(ad, 32), as);
    const __m128i r02 = _mm_srli_epi64(_mm_add_epi64(p02, half), n);
    const __m128i r1 = _mm_srli_epi64(_mm_add_epi64(p1, half), n);
    const __m128i t = _mm_blend_epi16(r02, _mm_slli_epi64(r1, 32), 0x0C);
    return _mm_sign_epi32(_mm_sign_epi32(t, d), _mm_set1_epi32(s));   /* 0 where d or s is 0, as t is */
}

static QP__SIMD_HELPER bool qp__lanes_fit(qp__lanes resp, qp__lanes vel)
{
    const __m128i bad = _mm_or_si128(_mm_srli_epi32(resp, 25), _mm_srli_epi32(vel, 30));
    return _mm_testz_si128(bad, bad) != 0;
}

#elif defined(QP__ROWS_NEON)
/* ---- AArch64, NEON ---- */
#include <arm_neon.h>

typedef int32x4_t qp__lanes;

static QP__SIMD_HELPER qp__lanes qp__ld3(const qp_vec3 *v)
{
    return vld1q_lane_s32(&v->z, vcombine_s32(vld1_s32(&v->x), vdup_n_s32(0)), 2);
}

static QP__SIMD_HELPER void qp__st3(qp_vec3 *v, qp__lanes r)
{
    vst1_s32(&v->x, vget_low_s32(r));
    v->z = vgetq_lane_s32(r, 2);
}

static QP__SIMD_HELPER qp__lanes qp__lanes_add(qp__lanes a, qp__lanes b) { return vaddq_s32(a, b); }
static QP__SIMD_HELPER qp__lanes qp__lanes_sub(qp__lanes a, qp__lanes b) { return vsubq_s32(a, b); }
static QP__SIMD_HELPER qp__lanes qp__lanes_or(qp__lanes a, qp__lanes b) { return vorrq_s32(a, b); }

static QP__SIMD_HELPER qp__lanes qp__size3(qp__lanes v)
{
    return veorq_s32(v, vshrq_n_s32(v, 31));
}

/* NEON multiplies signed lanes 0-1 and 2-3 (32 x 32 -> 64). Each product p becomes
 * p + (p >> 63) and is shifted right with rounding (+2^(n-1)) to 32 bits: qp__round_shift's
 * branch-free form, ties away from zero. n is 16 or 30: the narrowing shift takes its
 * count as an immediate, so each count is spelled out (both fold away when inlined). */
static QP__SIMD_HELPER qp__lanes qp__mul_round3(qp__lanes d, fix16_t s, int n)
{
    int64x2_t p01 = vmull_n_s32(vget_low_s32(d), s), p23 = vmull_high_n_s32(d, s);
    p01 = vsraq_n_s64(p01, p01, 63);
    p23 = vsraq_n_s64(p23, p23, 63);
    return n == 30 ? vrshrn_high_n_s64(vrshrn_n_s64(p01, 30), p23, 30)
                   : vrshrn_high_n_s64(vrshrn_n_s64(p01, 16), p23, 16);
}

static QP__SIMD_HELPER bool qp__lanes_fit(qp__lanes resp, qp__lanes vel)
{
    const uint32x4_t bad = vorrq_u32(vshrq_n_u32(vreinterpretq_u32_s32(resp), 25),
                                     vshrq_n_u32(vreinterpretq_u32_s32(vel), 30));
    return vmaxvq_u32(bad) == 0;
}

#elif defined(QP__ROWS_WASM)
/* ---- WebAssembly, SIMD128 ---- */
#include <wasm_simd128.h>

typedef v128_t qp__lanes;

static QP__SIMD_HELPER qp__lanes qp__ld3(const qp_vec3 *v)
{
    return wasm_v128_load32_lane(&v->z, wasm_v128_load64_zero(&v->x), 2);
}

static QP__SIMD_HELPER void qp__st3(qp_vec3 *v, qp__lanes r)
{
    wasm_v128_store64_lane(&v->x, r, 0);
    wasm_v128_store32_lane(&v->z, r, 2);
}

static QP__SIMD_HELPER qp__lanes qp__lanes_add(qp__lanes a, qp__lanes b) { return wasm_i32x4_add(a, b); }
static QP__SIMD_HELPER qp__lanes qp__lanes_sub(qp__lanes a, qp__lanes b) { return wasm_i32x4_sub(a, b); }
static QP__SIMD_HELPER qp__lanes qp__lanes_or(qp__lanes a, qp__lanes b) { return wasm_v128_or(a, b); }

static QP__SIMD_HELPER qp__lanes qp__size3(qp__lanes v)
{
    return wasm_v128_xor(v, wasm_i32x4_shr(v, 31));
}

/* SIMD128 multiplies signed lanes 0-1 and 2-3 (i64x2.extmul, 32 x 32 -> 64). Each product
 * p becomes (p + (p >> 63) + 2^(n-1)) >> n, qp__round_shift's branch-free form, and its low
 * word is kept (the lanes' bounds keep it within 32 bits). */
static QP__SIMD_HELPER qp__lanes qp__mul_round3(qp__lanes d, fix16_t s, int n)
{
    const v128_t vs = wasm_i32x4_splat(s), half = wasm_i64x2_splat(INT64_C(1) << (n - 1));
    v128_t p01 = wasm_i64x2_extmul_low_i32x4(d, vs), p23 = wasm_i64x2_extmul_high_i32x4(d, vs);
    p01 = wasm_i64x2_shr(wasm_i64x2_add(wasm_i64x2_add(p01, wasm_i64x2_shr(p01, 63)), half), n);
    p23 = wasm_i64x2_shr(wasm_i64x2_add(wasm_i64x2_add(p23, wasm_i64x2_shr(p23, 63)), half), n);
    return wasm_i32x4_shuffle(p01, p23, 0, 2, 4, 6);
}

static QP__SIMD_HELPER bool qp__lanes_fit(qp__lanes resp, qp__lanes vel)
{
    return !wasm_v128_any_true(wasm_v128_or(wasm_u32x4_shr(resp, 25), wasm_u32x4_shr(vel, 30)));
}

#endif

/* ---- The kernels, for every ISA above ---- */

/* The scalars' bounds: a change along a direction, an impulse against a response. */
static QP__SIMD_HELPER bool qp__simd_scalars_fit(fix16_t s, fix16_t j)
{
    return (uint32_t)s + (1u << 28) < (1u << 29) && (uint32_t)j + (1u << 20) < (1u << 21);
}

/* qp__add_along_pair(va, vb, u, s), qp__add_scaled(wa, ia, -j) and qp__add_scaled(wb, ib, j)
 * for the velocities v (solver.h): a row between two bodies of one inverse mass. a's change
 * by -j is b's by j negated, as qp__add_along_pair uses too (the rounding is symmetric). */
static QP__SIMD_KERNEL bool qp__simd_pair_apply(const qp_vel_ref *v, const qp_vec3 *u, fix16_t s, const qp_vec3 *ia,
                                                  const qp_vec3 *ib, fix16_t j)
{
    qp_vec3 *va = v->va, *vb = v->vb, *wa = v->wa, *wb = v->wb;
    if (!qp__simd_scalars_fit(s, j)) return false;
    const qp__lanes ra = qp__ld3(ia), rb = qp__ld3(ib);
    const qp__lanes a = qp__ld3(va), b = qp__ld3(vb), c = qp__ld3(wa), d = qp__ld3(wb);
    const qp__lanes vel =
        qp__lanes_or(qp__lanes_or(qp__size3(a), qp__size3(b)), qp__lanes_or(qp__size3(c), qp__size3(d)));
    if (!qp__lanes_fit(qp__lanes_or(qp__size3(ra), qp__size3(rb)), vel)) return false;
    const qp__lanes x = qp__mul_round3(qp__ld3(u), s, 30);
    qp__st3(va, qp__lanes_sub(a, x));
    qp__st3(vb, qp__lanes_add(b, x));
    qp__st3(wa, qp__lanes_sub(c, qp__mul_round3(ra, j, 16)));
    qp__st3(wb, qp__lanes_add(d, qp__mul_round3(rb, j, 16)));
    return true;
}

/* Two rows between two bodies of one inverse mass (the friction's tangents), one after the
 * other as two calls of qp__simd_pair_apply would apply them, with the velocities loaded and
 * stored once: velocities below 2^30 and two terms of at most 2^29 each stay below 2^31 - 1,
 * so the second row's plain sums are its saturating ones too. */
static QP__SIMD_KERNEL bool qp__simd_pair2_apply(const qp_vel_ref *v, const qp_vec3 *u1, fix16_t s1, const qp_vec3 *ia1,
                                                   const qp_vec3 *ib1, fix16_t j1, const qp_vec3 *u2, fix16_t s2,
                                                   const qp_vec3 *ia2, const qp_vec3 *ib2, fix16_t j2)
{
    qp_vec3 *va = v->va, *vb = v->vb, *wa = v->wa, *wb = v->wb;
    if (!qp__simd_scalars_fit(s1, j1) || !qp__simd_scalars_fit(s2, j2)) return false;
    const qp__lanes ra1 = qp__ld3(ia1), rb1 = qp__ld3(ib1), ra2 = qp__ld3(ia2), rb2 = qp__ld3(ib2);
    const qp__lanes a = qp__ld3(va), b = qp__ld3(vb), c = qp__ld3(wa), d = qp__ld3(wb);
    const qp__lanes vel =
        qp__lanes_or(qp__lanes_or(qp__size3(a), qp__size3(b)), qp__lanes_or(qp__size3(c), qp__size3(d)));
    const qp__lanes resp = qp__lanes_or(qp__lanes_or(qp__size3(ra1), qp__size3(rb1)),
                                        qp__lanes_or(qp__size3(ra2), qp__size3(rb2)));
    if (!qp__lanes_fit(resp, vel)) return false;
    const qp__lanes x1 = qp__mul_round3(qp__ld3(u1), s1, 30), x2 = qp__mul_round3(qp__ld3(u2), s2, 30);
    qp__st3(va, qp__lanes_sub(qp__lanes_sub(a, x1), x2));
    qp__st3(vb, qp__lanes_add(qp__lanes_add(b, x1), x2));
    qp__st3(wa, qp__lanes_sub(qp__lanes_sub(c, qp__mul_round3(ra1, j1, 16)), qp__mul_round3(ra2, j2, 16)));
    qp__st3(wb, qp__lanes_add(qp__lanes_add(d, qp__mul_round3(rb1, j1, 16)), qp__mul_round3(rb2, j2, 16)));
    return true;
}

/* qp__add_along(v, u, s) and qp__add_scaled(w, i, j): one side of a row. */
static QP__SIMD_KERNEL bool qp__simd_side_apply(qp_vec3 *v, qp_vec3 *w, const qp_vec3 *u, fix16_t s, const qp_vec3 *i,
                                                  fix16_t j)
{
    if (!qp__simd_scalars_fit(s, j)) return false;
    const qp__lanes r = qp__ld3(i), a = qp__ld3(v), c = qp__ld3(w);
    if (!qp__lanes_fit(qp__size3(r), qp__lanes_or(qp__size3(a), qp__size3(c)))) return false;
    qp__st3(v, qp__lanes_add(a, qp__mul_round3(qp__ld3(u), s, 30)));
    qp__st3(w, qp__lanes_add(c, qp__mul_round3(r, j, 16)));
    return true;
}

/* qp__add_scaled(wa, ia, -j) and qp__add_scaled(wb, ib, j): a row that only turns (the
 * twist) between two moving bodies, both sides in one call. */
static QP__SIMD_KERNEL bool qp__simd_turn_pair_apply(qp_vec3 *wa, qp_vec3 *wb, const qp_vec3 *ia, const qp_vec3 *ib,
                                                       fix16_t j)
{
    if (!qp__simd_scalars_fit(0, j)) return false;
    const qp__lanes ra = qp__ld3(ia), rb = qp__ld3(ib), c = qp__ld3(wa), d = qp__ld3(wb);
    if (!qp__lanes_fit(qp__lanes_or(qp__size3(ra), qp__size3(rb)), qp__lanes_or(qp__size3(c), qp__size3(d))))
        return false;
    qp__st3(wa, qp__lanes_sub(c, qp__mul_round3(ra, j, 16)));
    qp__st3(wb, qp__lanes_add(d, qp__mul_round3(rb, j, 16)));
    return true;
}

/* qp__add_scaled(w, i, j): a row that only turns (the twist), one side. */
static QP__SIMD_KERNEL bool qp__simd_turn_apply(qp_vec3 *w, const qp_vec3 *i, fix16_t j)
{
    if (!qp__simd_scalars_fit(0, j)) return false;
    const qp__lanes r = qp__ld3(i), c = qp__ld3(w);
    if (!qp__lanes_fit(qp__size3(r), qp__size3(c))) return false;
    qp__st3(w, qp__lanes_add(c, qp__mul_round3(r, j, 16)));
    return true;
}

#endif

#endif
