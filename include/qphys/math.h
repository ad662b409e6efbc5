/* SPDX-License-Identifier: MIT */
/* qphys math layer: Q16.16 vectors and matrices, Q2.30 rotations.
 *
 * Two number forms, both plain int32_t so every target computes the same bits:
 *   fix16_t  Q16.16 (libfixmath): positions, velocities, masses, inertia.
 *            Range +-32768, resolution 2^-16 (1.5e-5).
 *   qp_q30   Q2.30: unit quaternions, rotation matrices and unit normals.
 *            Range +-2, resolution 2^-30 (9.3e-10).
 * Orientation lives in Q2.30 because Q16.16 cannot integrate slow spins: at
 * 60 Hz a spin of 0.01 rad/s moves a Q16.16 quaternion by 5 LSB per step and
 * renormalisation eats it (docs/design.md §2); in Q2.30 it is 90 000 LSB.
 *
 * Rules every function keeps (tested in tests/unit/test_math.c, docs/math.md):
 *   - products are accumulated exactly in 64 bits (sums of three or four
 *     products, which may need 65 bits, are split so that they stay exact)
 *     and rounded once: round half up (floor(x + 1/2)); divisions round the
 *     magnitude half away from zero,
 *   - results that do not fit saturate to +-0x7FFFFFFF instead of wrapping,
 *     for every int32 input (no signed overflow anywhere: UBSan-tested),
 *   - nothing divides by zero: functions that could return a status.
 * Error bounds are stated per function, in LSB of the result, for every input
 * unless a range is given; "exact" means correctly rounded (0.5 LSB) and
 * saturated. They are asserted against __int128 or long double references.
 */
#ifndef QPHYS_MATH_H
#define QPHYS_MATH_H

#include <stdbool.h>
#include <stdint.h>
#include <fix16.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t qp_q30;

#define QP_ONE        ((fix16_t)0x00010000)  /* 1.0 in Q16.16 */
#define QP_Q30_ONE    ((qp_q30)0x40000000)   /* 1.0 in Q2.30 */
#define QP_FIX_MAX    ((fix16_t)0x7FFFFFFF)
#define QP_FIX_MIN    ((fix16_t)-0x7FFFFFFF) /* symmetric: -QP_FIX_MAX */

/* Integer-only constants. QP_FRAC(n, d) = n/d rounded to nearest (d > 0):
 * QP_FRAC(1, 60) is the default time step, QP_FRAC(-3, 2) is -1.5. */
#define QP_INT(i)       ((fix16_t)((int32_t)(i) * 65536))
#define QP_FRAC(n, d)   ((fix16_t)(((int64_t)(n) * 131072 + ((n) < 0 ? -(int64_t)(d) : (int64_t)(d))) / (2 * (int64_t)(d))))
#define QP_MM(mm)       QP_FRAC((mm), 1000)   /* millimetres (or milli-anything) */

typedef struct { fix16_t x, y, z; } qp_vec3;          /* Q16.16 */
typedef struct { qp_q30 w, x, y, z; } qp_quat;        /* Q2.30, unit for rotations */
typedef struct { qp_q30 m[3][3]; } qp_rot3;           /* Q2.30 rotation, row-major */
typedef struct { fix16_t m[3][3]; } qp_mat3;          /* Q16.16, row-major */

/* ---- scalars ---------------------------------------------------------- */

/* Saturate a 64-bit value into int32 range (+-0x7FFFFFFF). */
int32_t qp_sat32(int64_t v);
/* Round-shift a 64-bit value right by n (1..62), saturating to int32; exact
 * for every int64 (no overflow near INT64_MAX). */
int32_t qp_shift_round(int64_t v, int n);
/* a*b in Q16.16, rounded, saturating. Exact (0.5 LSB). */
fix16_t qp_mul(fix16_t a, fix16_t b);
/* a/b in Q16.16, rounded half away from zero, saturating: exact (0.5 LSB).
 * b == 0 returns 0 (and callers avoid it). */
fix16_t qp_div(fix16_t a, fix16_t b);
/* Q16.16 value times Q2.30 value, result Q16.16, rounded, saturating. Exact (0.5 LSB). */
fix16_t qp_mul_q30(fix16_t a, qp_q30 u);
/* floor(sqrt(v)) for any 64-bit unsigned v, exactly (bit by bit; no division). */
uint32_t qp_isqrt64(uint64_t v);
/* sqrt in Q16.16 for x >= 0, rounded to nearest; x < 0 returns 0. Exact (0.5 LSB)
 * (computed as isqrt(x << 16) with a rounding step). */
fix16_t qp_sqrt(fix16_t x);
/* Convert between Q16.16 and Q2.30. q30_from_fix is exact inside (-2, 2) and
 * saturates outside; fix_from_q30 is exact (0.5 LSB). */
qp_q30 qp_q30_from_fix(fix16_t a);
fix16_t qp_fix_from_q30(qp_q30 u);
/* Sine and cosine of an angle in radians (any Q16.16 value, +-32768 rad:
 * reduced by multiples of pi/2 with a 64-bit-accurate pi/2), result in Q2.30
 * within 1.5 LSB (1.4e-9) of the true value of the Q16.16 angle; never
 * beyond +-1. */
qp_q30 qp_sin_q30(fix16_t angle);
qp_q30 qp_cos_q30(fix16_t angle);
/* Degrees to radians, Q16.16 in and out, rounded: 0.5 LSB (+3e-6 LSB from the
 * 48-bit pi/180), any input. */
fix16_t qp_deg_to_rad(fix16_t deg);

/* ---- vectors (Q16.16) ------------------------------------------------- */

static inline qp_vec3 qp_v3(fix16_t x, fix16_t y, fix16_t z) { qp_vec3 v = { x, y, z }; return v; }
static inline qp_vec3 qp_v3_zero(void) { qp_vec3 v = { 0, 0, 0 }; return v; }
/* Saturating componentwise add/sub (never wraps). */
qp_vec3 qp_v3_add(qp_vec3 a, qp_vec3 b);
qp_vec3 qp_v3_sub(qp_vec3 a, qp_vec3 b);
qp_vec3 qp_v3_neg(qp_vec3 a);
/* a * s, rounded per component, saturating: exact (0.5 LSB). */
qp_vec3 qp_v3_scale(qp_vec3 a, fix16_t s);
/* a + b * s, one rounding per component, saturating: exact (0.5 LSB). */
qp_vec3 qp_v3_mad(qp_vec3 a, qp_vec3 b, fix16_t s);
/* a * u with u in Q2.30 (scaling by a unit-range factor): exact (0.5 LSB). */
qp_vec3 qp_v3_scale_q30(qp_vec3 a, qp_q30 u);
/* Dot product: exact sum of the three raw products, one rounding: exact
 * (0.5 LSB), saturating when the true result is outside Q16.16. Any input. */
fix16_t qp_v3_dot(qp_vec3 a, qp_vec3 b);
/* Dot product as raw Q32.32 in 64 bits: exact whenever the true sum fits in
 * int64 (always when every component of a and b is within +-26754), else
 * saturated to INT64_MAX / INT64_MIN (the sum of three products of
 * components near +-32768 needs 65 bits). Never overflows. */
int64_t qp_v3_dot_wide(qp_vec3 a, qp_vec3 b);
/* Cross product: each component one exact difference of products, rounded
 * once, saturating: exact (0.5 LSB). */
qp_vec3 qp_v3_cross(qp_vec3 a, qp_vec3 b);
/* |a|: correctly rounded root of the exact sum of squares (0.5 LSB) for every
 * input; QP_FIX_MAX when |a| >= 32768. */
fix16_t qp_v3_len(qp_vec3 a);
/* |a|^2 as exact raw Q32.32 (saturates to INT64_MAX only when |a| >= 46341,
 * which needs components near +-32768). */
static inline int64_t qp_v3_len_sq_wide(qp_vec3 a) { return qp_v3_dot_wide(a, a); }
/* Unit vector in Q2.30 along a; false (and *out = 0) when a is the zero vector.
 * Each component within 1 LSB of Q2.30 for any non-zero input, from 1-LSB
 * vectors to components at +-32768. */
bool qp_v3_normalize_q30(qp_vec3 a, qp_vec3 *out);
/* The same with a Q16.16 result: within 0.5 LSB (+2^-14). */
bool qp_v3_normalize(qp_vec3 a, qp_vec3 *out);
/* Componentwise min/max/abs. */
qp_vec3 qp_v3_min(qp_vec3 a, qp_vec3 b);
qp_vec3 qp_v3_max(qp_vec3 a, qp_vec3 b);
qp_vec3 qp_v3_abs(qp_vec3 a);
/* Largest absolute component: cheap bound for range checks. */
fix16_t qp_v3_max_abs(qp_vec3 a);
static inline bool qp_v3_eq(qp_vec3 a, qp_vec3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
/* Dot of a Q16.16 vector with a Q2.30 vector, result Q16.16: exact (0.5 LSB),
 * saturating, any input. */
fix16_t qp_v3_dot_q30(qp_vec3 a, qp_vec3 unit30);
/* Cross of Q16.16 a with Q2.30 u, result Q16.16: exact (0.5 LSB), saturating. */
qp_vec3 qp_v3_cross_q30(qp_vec3 a, qp_vec3 unit30);
/* Convert a Q2.30 unit vector to Q16.16 and back (saturating at +-2). */
qp_vec3 qp_v3_from_q30(qp_vec3 unit30);
qp_vec3 qp_v3_to_q30(qp_vec3 a);

/* ---- quaternions (Q2.30) ---------------------------------------------- */

static inline qp_quat qp_quat_identity(void) { qp_quat q = { QP_Q30_ONE, 0, 0, 0 }; return q; }
/* Hamilton product a*b (apply b, then a): each component one exact sum of
 * four products, rounded once: exact (0.5 LSB), saturating, any input. */
qp_quat qp_quat_mul(qp_quat a, qp_quat b);
/* (w, -x, -y, -z), saturating (-INT32_MIN). */
qp_quat qp_quat_conj(qp_quat q);
/* Scale to unit length (integer square root of the exact sum of squares);
 * false and identity when q is zero. Within 1 LSB per component of q/|q|,
 * any non-zero input (1 LSB to components at +-2). */
bool qp_quat_normalize(qp_quat q, qp_quat *out);
/* Rotation by angle (radians, any Q16.16 value) about axis (any non-zero
 * length); false and identity when the axis is zero. Within 4 LSB (3.7e-9)
 * per component of (cos(angle/2), sin(angle/2) axis/|axis|). */
bool qp_quat_from_axis_angle(qp_vec3 axis, fix16_t angle, qp_quat *out);
/* Integrate q by angular velocity w (rad/s, world frame) over dt seconds:
 * q' = normalize(q + dt/2 * (0, w) * q). w*dt is exact in Q32.32 and each
 * component of dq is rounded once, so every non-zero w turns, down to 1 LSB
 * (1.5e-5 rad/s). One step is within 2 LSB of that formula evaluated exactly.
 * The scheme turns by 2 atan(|w| dt / 2) per step, (w dt)^2 / 12 less than
 * w dt (2.3e-3 relative at 10 rad/s, 60 Hz). Over 600 steps at 60 Hz about
 * one axis the angle turned is within 6e-5 (w = 0.001 rad/s), 2e-5 (0.01),
 * 5e-5 (1) and 2.5e-3 (10) of w t, the axis within 600 LSB. w*dt is clamped
 * to +-0.5 rad per component (the engine clamps spin far below that); q
 * returned unchanged if the sum is zero. */
qp_quat qp_quat_integrate(qp_quat q, qp_vec3 w, fix16_t dt);
/* Rotation matrix of a unit quaternion by 1 - 2(y^2 + z^2), 2(xy - wz), ...:
 * each entry that formula on the given q, exact (0.5 LSB), saturating. For q
 * within 1 LSB per component of a unit quaternion (what qp_quat_normalize
 * returns), within 8.5 LSB of the rotation of q/|q| and R R^T within 18 LSB
 * of I (the formula assumes |q| = 1). */
qp_rot3 qp_quat_to_rot3(qp_quat q);
/* Rotate v by q (through the matrix): for q as above, within 0.5 LSB +
 * 0.4 LSB per 256 of max |v_i| (0.9 LSB for |v_i| <= 256). */
qp_vec3 qp_quat_rotate(qp_quat q, qp_vec3 v);

/* ---- rotation matrices (Q2.30) ---------------------------------------- */

qp_rot3 qp_rot3_identity(void);
/* R v and R^T v, Q16.16 v: exact sum, one rounding: exact (0.5 LSB for the
 * given R), saturating, any input. */
qp_vec3 qp_rot3_mul_v3(const qp_rot3 *r, qp_vec3 v);
qp_vec3 qp_rot3_tmul_v3(const qp_rot3 *r, qp_vec3 v);
/* a*b and a^T*b (relative rotation): exact (0.5 LSB per entry for the given
 * matrices), saturating, any input. */
qp_rot3 qp_rot3_mul(const qp_rot3 *a, const qp_rot3 *b);
qp_rot3 qp_rot3_tmul(const qp_rot3 *a, const qp_rot3 *b);
qp_rot3 qp_rot3_transpose(const qp_rot3 *r);
/* Column i of R (the body's local axis i in world space), as a Q2.30 vector. */
qp_vec3 qp_rot3_col(const qp_rot3 *r, int i);
/* Row i of R. */
qp_vec3 qp_rot3_row(const qp_rot3 *r, int i);

/* ---- general 3x3 matrices (Q16.16) ------------------------------------ */

qp_mat3 qp_mat3_zero(void);
qp_mat3 qp_mat3_diag(fix16_t a, fix16_t b, fix16_t c);
/* a*b and a*v: exact sums, one rounding: exact (0.5 LSB), saturating. */
qp_mat3 qp_mat3_mul(const qp_mat3 *a, const qp_mat3 *b);
qp_mat3 qp_mat3_transpose(const qp_mat3 *a);
qp_vec3 qp_mat3_mul_v3(const qp_mat3 *a, qp_vec3 v);
/* Saturating entrywise sum. */
qp_mat3 qp_mat3_add(const qp_mat3 *a, const qp_mat3 *b);
/* Inverse through the adjugate: exact cofactors (Q32.32) and an exact 128-bit
 * determinant, then one correctly rounded division per entry: exact (0.5 LSB)
 * for every matrix. False (and *out untouched) when the matrix is singular
 * or an entry of the inverse does not fit in Q16.16 (|entry| >= 32768, e.g.
 * an inertia below 1/32768). */
bool qp_mat3_inverse(const qp_mat3 *a, qp_mat3 *out);
/* R * M * R^T for a rotation R and symmetric M (rotating an inertia tensor or
 * its inverse into world space): M R^T rounded once, then R (M R^T) rounded
 * once, then the two triangles averaged so the result is exactly symmetric.
 * Within 2 LSB per entry of R M R^T (given R) when |m_ij| <= 18918 (so that
 * M R^T fits); saturating, still symmetric, beyond. */
qp_mat3 qp_mat3_rotate(const qp_rot3 *r, const qp_mat3 *m);

#ifdef __cplusplus
}
#endif

#endif
