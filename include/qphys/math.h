/* qphys math layer: Q16.16 vectors and matrices, Q2.30 rotations.
 *
 * Two number forms, both plain int32_t so every target computes the same bits:
 *   fix16_t  Q16.16 (libfixmath): positions, velocities, masses, inertia.
 *            Range +-32768, resolution 2^-16 (1.5e-5).
 *   qp_q30   Q2.30: unit quaternions, rotation matrices and unit normals.
 *            Range +-2, resolution 2^-30 (9.3e-10).
 * Orientation lives in Q2.30 because Q16.16 cannot integrate slow spins: at
 * 60 Hz a spin of 0.01 rad/s moves a Q16.16 quaternion by 5 LSB per step and
 * renormalisation eats it (ENGINE.md section 2); in Q2.30 it is 90 000 LSB.
 *
 * Rules every function keeps (tested in tests/unit/test_math.c):
 *   - products are accumulated in int64_t and rounded once (add half an LSB,
 *     then shift arithmetically: round half up),
 *   - results that do not fit saturate to +-0x7FFFFFFF instead of wrapping,
 *   - nothing divides by zero: functions that could return a status.
 * Error bounds are stated per function, in LSB of the result, valid for the
 * ranges stated; they are asserted against a double-precision reference.
 */
#ifndef QPHYS_MATH_H
#define QPHYS_MATH_H

#include <stdbool.h>
#include <stdint.h>
#include <fix16.h>

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
/* Round-shift a 64-bit value right by n (1..62), saturating to int32. */
int32_t qp_shift_round(int64_t v, int n);
/* a*b in Q16.16, rounded, saturating. Exact to 0.5 LSB. */
fix16_t qp_mul(fix16_t a, fix16_t b);
/* a/b in Q16.16, rounded, saturating; b == 0 returns 0 (and callers avoid it). */
fix16_t qp_div(fix16_t a, fix16_t b);
/* Q16.16 value times Q2.30 value, result Q16.16, rounded. Exact to 0.5 LSB. */
fix16_t qp_mul_q30(fix16_t a, qp_q30 u);
/* floor(sqrt(v)) for any 64-bit unsigned v (bit by bit; no division). */
uint32_t qp_isqrt64(uint64_t v);
/* sqrt in Q16.16 for x >= 0, rounded to nearest; x < 0 returns 0. Exact to 0.5 LSB
 * (computed as isqrt(x << 16) with a rounding step). */
fix16_t qp_sqrt(fix16_t x);
/* Convert between Q16.16 and Q2.30. q30_from_fix saturates outside +-2. */
qp_q30 qp_q30_from_fix(fix16_t a);
fix16_t qp_fix_from_q30(qp_q30 u);
/* Sine and cosine of an angle in radians (any Q16.16 value, reduced modulo
 * 2*pi with a 40-bit pi), result in Q2.30 within 8 LSB (7.5e-9). */
qp_q30 qp_sin_q30(fix16_t angle);
qp_q30 qp_cos_q30(fix16_t angle);
/* Degrees to radians, Q16.16 in and out, rounded (0.5 LSB + 1 LSB of pi). */
fix16_t qp_deg_to_rad(fix16_t deg);

/* ---- vectors (Q16.16) ------------------------------------------------- */

static inline qp_vec3 qp_v3(fix16_t x, fix16_t y, fix16_t z) { qp_vec3 v = { x, y, z }; return v; }
static inline qp_vec3 qp_v3_zero(void) { qp_vec3 v = { 0, 0, 0 }; return v; }
/* Saturating componentwise add/sub (never wraps). */
qp_vec3 qp_v3_add(qp_vec3 a, qp_vec3 b);
qp_vec3 qp_v3_sub(qp_vec3 a, qp_vec3 b);
qp_vec3 qp_v3_neg(qp_vec3 a);
/* a * s, rounded per component: 0.5 LSB. */
qp_vec3 qp_v3_scale(qp_vec3 a, fix16_t s);
/* a + b * s, one rounding per component: 0.5 LSB. */
qp_vec3 qp_v3_mad(qp_vec3 a, qp_vec3 b, fix16_t s);
/* a * u with u in Q2.30 (scaling by a unit-range factor): 0.5 LSB. */
qp_vec3 qp_v3_scale_q30(qp_vec3 a, qp_q30 u);
/* Dot product: 64-bit sum of the three raw products, one rounding: 0.5 LSB,
 * saturating when the true result is outside Q16.16. */
fix16_t qp_v3_dot(qp_vec3 a, qp_vec3 b);
/* Dot product as raw Q32.32 in 64 bits: exact, never overflows for any input. */
int64_t qp_v3_dot_wide(qp_vec3 a, qp_vec3 b);
/* Cross product: each component one 64-bit difference of products, rounded once. */
qp_vec3 qp_v3_cross(qp_vec3 a, qp_vec3 b);
/* |a|: exact to 1 LSB for every input (computed from the exact 64-bit sum). */
fix16_t qp_v3_len(qp_vec3 a);
/* |a|^2 as exact raw Q32.32. */
static inline int64_t qp_v3_len_sq_wide(qp_vec3 a) { return qp_v3_dot_wide(a, a); }
/* Unit vector in Q2.30 along a; false (and *out = 0) when a is the zero vector.
 * Each component within 2 LSB of Q2.30 for |a| >= 2^-16 (any non-zero input). */
bool qp_v3_normalize_q30(qp_vec3 a, qp_vec3 *out);
/* The same with a Q16.16 result: within 1 LSB. */
bool qp_v3_normalize(qp_vec3 a, qp_vec3 *out);
/* Componentwise min/max/abs. */
qp_vec3 qp_v3_min(qp_vec3 a, qp_vec3 b);
qp_vec3 qp_v3_max(qp_vec3 a, qp_vec3 b);
qp_vec3 qp_v3_abs(qp_vec3 a);
/* Largest absolute component: cheap bound for range checks. */
fix16_t qp_v3_max_abs(qp_vec3 a);
static inline bool qp_v3_eq(qp_vec3 a, qp_vec3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
/* Dot of a Q16.16 vector with a Q2.30 unit vector, result Q16.16 (0.5 LSB). */
fix16_t qp_v3_dot_q30(qp_vec3 a, qp_vec3 unit30);
/* Cross of Q16.16 a with Q2.30 unit u, result Q16.16 (0.5 LSB per component). */
qp_vec3 qp_v3_cross_q30(qp_vec3 a, qp_vec3 unit30);
/* Convert a Q2.30 unit vector to Q16.16 and back (saturating at +-2). */
qp_vec3 qp_v3_from_q30(qp_vec3 unit30);
qp_vec3 qp_v3_to_q30(qp_vec3 a);

/* ---- quaternions (Q2.30) ---------------------------------------------- */

static inline qp_quat qp_quat_identity(void) { qp_quat q = { QP_Q30_ONE, 0, 0, 0 }; return q; }
/* Hamilton product a*b (apply b, then a). For unit inputs each component is
 * within 2 LSB of the exact product. */
qp_quat qp_quat_mul(qp_quat a, qp_quat b);
qp_quat qp_quat_conj(qp_quat q);
/* Scale to unit length (exact integer square root of the 64-bit sum);
 * false and identity when q is zero. Within 2 LSB per component. */
bool qp_quat_normalize(qp_quat q, qp_quat *out);
/* Rotation by angle (radians, any value) about axis (any non-zero length);
 * false and identity when the axis is zero. Within 16 LSB (1.5e-8). */
bool qp_quat_from_axis_angle(qp_vec3 axis, fix16_t angle, qp_quat *out);
/* Integrate q by angular velocity w (rad/s, world frame) over dt seconds:
 * q' = normalize(q + dt/2 * (0, w) * q). The half-angle increment is formed
 * in 64 bits, so spins down to ~1e-6 rad/s still turn. |w*dt| must stay
 * below ~0.5 rad per step (the engine clamps spin far below that). */
qp_quat qp_quat_integrate(qp_quat q, qp_vec3 w, fix16_t dt);
/* Rotation matrix of a unit quaternion (within 4 LSB per entry). */
qp_rot3 qp_quat_to_rot3(qp_quat q);
/* Rotate v by q (through the matrix). */
qp_vec3 qp_quat_rotate(qp_quat q, qp_vec3 v);

/* ---- rotation matrices (Q2.30) ---------------------------------------- */

qp_rot3 qp_rot3_identity(void);
/* R v and R^T v, Q16.16 v: 64-bit accumulation, one rounding (0.5 LSB for exact R). */
qp_vec3 qp_rot3_mul_v3(const qp_rot3 *r, qp_vec3 v);
qp_vec3 qp_rot3_tmul_v3(const qp_rot3 *r, qp_vec3 v);
/* a*b and a^T*b (relative rotation), within 2 LSB per entry. */
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
qp_mat3 qp_mat3_mul(const qp_mat3 *a, const qp_mat3 *b);
qp_mat3 qp_mat3_transpose(const qp_mat3 *a);
qp_vec3 qp_mat3_mul_v3(const qp_mat3 *a, qp_vec3 v);
qp_mat3 qp_mat3_add(const qp_mat3 *a, const qp_mat3 *b);
/* Inverse through the adjugate with 64-bit determinant; false (and *out
 * untouched) when the determinant is zero or the inverse does not fit. */
bool qp_mat3_inverse(const qp_mat3 *a, qp_mat3 *out);
/* R * M * R^T for a rotation R and symmetric M (rotating an inertia tensor or
 * its inverse into world space): within 2 LSB per entry. */
qp_mat3 qp_mat3_rotate(const qp_rot3 *r, const qp_mat3 *m);

#endif
