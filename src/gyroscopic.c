/* SPDX-License-Identifier: MIT */
/* Stage 6's gyroscopic term (qp_world_def.gyroscopic): spin that keeps angular momentum.
 *
 * Without torque a body keeps its angular momentum L = I w, not its angular velocity:
 * a box turning about other than a principal axis tumbles, a T-handle spun about its
 * middle axis flips over and back (Euler's equations). The step integrates the pose
 * with the angular velocity w1 it ends with (integrate.c: q1 = P(w1) q0, P the turn by
 * the quaternion (1, u), u = dt w1 / 2). So w1 is chosen for L to stay what it was:
 *
 *     R1 I_body R1^T w1 = L0   <=>   g(w1) = I0 P^T w1 - P^T L0 = 0
 *
 * (I0 the world inertia at the start of the step, L0 = I0 w0), solved by six Newton
 * steps from w0 with g's Jacobian at w0 to second order in dt, constant over the steps
 * (one 3x3 inverse): J = I0 - dt skew(L0) - dt^2/2 ((w0.L0) E + w0 L0^T - 2 L0 w0^T). P^T v = v - c u x v + c u x (u x v) with
 * c = 2 / (1 + |u|^2): rational, no trigonometry, u clamped per component as
 * qp_quat_integrate clamps it. This is the implicit form of Catto's ("Numerical
 * Methods", GDC 2015: I (w1 - w0) + dt w1 x I w1 = 0 is g to first order); that one
 * step of it loses a third of |L| in 10 s at 10 rad/s, this keeps L within 0.05 % at up
 * to 30 rad/s (past it qp_quat_integrate's clamp of 0.5 rad a step on an axis, at 60 Hz,
 * bends the turn and L and the energy stray by up to 1 %). It loses kinetic energy: a
 * box tumbling about a skew axis keeps 40 to 96 % of it after 10 s (the turn uses the
 * step's last spin, as backward Euler does), its spin drifting toward its axis of
 * largest inertia as a slightly soft body's does; it never gains any.
 *
 * Both sides are linear in I, so any positive multiple of it serves. The body keeps
 * its inverse inertia only; its adjugate is det(I^-1) I, found with no division, and
 * is scaled by a power of two so that its largest entry lies in [2^19, 2^20): the same
 * bits of precision for a 0.1 kg cube and a 1000 kg one, every product below in 64
 * bits. J is inverted by its adjugate over its determinant; a determinant of zero or
 * below (no inertia left by rounding) leaves w0 as it was.
 */
#include "body.h"
#include "math_inline.h"

#define GYRO_BITS 20   /* the scaled inertia's largest entry: [2^19, 2^20) */

static int64_t shift_round(int64_t v, int n)
{
    return n <= 0 ? v : qp__shift_round64(v, n);
}

/* m scaled by a power of two so that its largest |entry| lies in [2^19, 2^20); false
 * for a zero m. */
static bool normalise(int64_t m[3][3])
{
    int64_t max = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            int64_t a = m[i][j] < 0 ? -m[i][j] : m[i][j];
            if (a > max) max = a;
        }
    if (max == 0) return false;
    int down = 0, up = 0;
    while ((max >> down) >= ((int64_t)1 << GYRO_BITS)) down++;
    while ((max << up) < ((int64_t)1 << (GYRO_BITS - 1))) up++;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) m[i][j] = down ? shift_round(m[i][j], down) : m[i][j] * ((int64_t)1 << up);
    return true;
}

/* The adjugate of m (entries below 2^30 in magnitude): adj(m) m = det(m) E. */
static void adjugate(int64_t m[3][3], int64_t adj[3][3])
{
    adj[0][0] = m[1][1] * m[2][2] - m[1][2] * m[2][1];
    adj[0][1] = m[0][2] * m[2][1] - m[0][1] * m[2][2];
    adj[0][2] = m[0][1] * m[1][2] - m[0][2] * m[1][1];
    adj[1][0] = m[1][2] * m[2][0] - m[1][0] * m[2][2];
    adj[1][1] = m[0][0] * m[2][2] - m[0][2] * m[2][0];
    adj[1][2] = m[0][2] * m[1][0] - m[0][0] * m[1][2];
    adj[2][0] = m[1][0] * m[2][1] - m[1][1] * m[2][0];
    adj[2][1] = m[0][1] * m[2][0] - m[0][0] * m[2][1];
    adj[2][2] = m[0][0] * m[1][1] - m[0][1] * m[1][0];
}

/* inv = j^-1 in Q16.16 (entries saturated to +-INT32_MAX) for j with entries below
 * 2^20 in magnitude in the fixed scale 2^k, k <= 20: adj(j) 2^k / det(j). False, inv
 * untouched, when det(j) <= 0. */
static bool inverse3(int64_t j[3][3], int k, int64_t inv[3][3])
{
    int64_t adj[3][3];
    adjugate(j, adj);                                   /* |entries| < 2^41 */
    int64_t det = j[0][0] * adj[0][0] + j[0][1] * adj[1][0] + j[0][2] * adj[2][0]; /* < 3 2^61 */
    /* In Q16.16, adj 2^(k + 16) / det: adj takes 21 of the k + 16 bits (|adj| 2^21 <
     * 2^62), det gives up the rest. */
    int lose = k + 16 - 21;
    int64_t d = lose > 0 ? shift_round(det, lose) : det;
    if (d <= 0) return false;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            int64_t num = adj[r][c] * ((int64_t)1 << 21);
            int64_t q = lose >= 0 ? num / d : num / d * ((int64_t)1 << -lose);
            inv[r][c] = q > INT32_MAX ? INT32_MAX : q < -INT32_MAX ? -INT32_MAX : q;
        }
    return true;
}

/* a x b for a Q2.30 and b Q16.16: Q16.16. */
static void cross30(const int64_t a[3], const int64_t b[3], int64_t r[3])
{
    r[0] = shift_round(a[1] * b[2] - a[2] * b[1], 30);
    r[1] = shift_round(a[2] * b[0] - a[0] * b[2], 30);
    r[2] = shift_round(a[0] * b[1] - a[1] * b[0], 30);
}

/* P^T v = v - c u x v + c u x (u x v), u Q2.30, c Q2.30, v Q16.16. */
static void turn_back(const int64_t u[3], int64_t c, const int64_t v[3], int64_t r[3])
{
    int64_t uv[3], uuv[3];
    cross30(u, v, uv);
    cross30(u, uv, uuv);
    for (int i = 0; i < 3; i++) r[i] = v[i] + shift_round(c * (uuv[i] - uv[i]), 30);
}

#define GYRO_NEWTON_STEPS 6

qp_vec3 qp__gyroscopic(const qp_mat3 *inv_inertia, qp_vec3 omega, fix16_t dt)
{
    if ((omega.x | omega.y | omega.z) == 0) return omega;
    int64_t a[3][3], ii[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) a[i][j] = inv_inertia->m[i][j];
    adjugate(a, ii);                                     /* det(I^-1) I, |entries| < 2^60 */
    if (!normalise(ii)) return omega;                    /* I, scaled: Q20 of a unit largest */
    int64_t w[3] = { omega.x, omega.y, omega.z };        /* |w| <= 100 rad/s: < 2^23 */
    int64_t l0[3];                                       /* I w0, Q16.16, < 2^25 */
    for (int i = 0; i < 3; i++) l0[i] = shift_round(ii[i][0] * w[0] + ii[i][1] * w[1] + ii[i][2] * w[2], GYRO_BITS);

    /* J = I - dt skew(L0), in the scale of I; skew(l) = [0 -lz ly; lz 0 -lx; -ly lx 0],
     * dt l from Q32 to Q20 by 2^12. Then down to entries below 2^20 (det in 64 bits). */
    int64_t j[3][3], dl[3];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) j[r][c] = ii[r][c];
    for (int i = 0; i < 3; i++) dl[i] = shift_round(l0[i] * dt, 12);
    j[0][1] += dl[2];
    j[0][2] -= dl[1];
    j[1][0] -= dl[2];
    j[1][2] += dl[0];
    j[2][0] += dl[1];
    j[2][1] -= dl[0];
    /* - dt^2 / 2 ((w0.L0) E + w0 L0^T - 2 L0 w0^T): P^T's second-order part, which keeps
     * the Newton steps converging at tens of rad/s. Q32 products -> Q16, times dt twice. */
    int64_t wl = shift_round(w[0] * l0[0] + w[1] * l0[1] + w[2] * l0[2], 16);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            int64_t t = shift_round(w[r] * l0[c] - 2 * l0[r] * w[c], 16) + (r == c ? wl : 0);
            j[r][c] -= shift_round(shift_round(t * dt, 16) * dt, 13);
        }
    int64_t jmax = 0;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            int64_t v = j[r][c] < 0 ? -j[r][c] : j[r][c];
            if (v > jmax) jmax = v;
        }
    int down = 0;
    while ((jmax >> down) >= ((int64_t)1 << GYRO_BITS)) down++;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) j[r][c] = shift_round(j[r][c], down);
    int64_t inv[3][3];
    if (!inverse3(j, GYRO_BITS - down, inv)) return omega;

    for (int step = 0; step < GYRO_NEWTON_STEPS; step++) {
        /* u = clamp(dt w, +-0.5) / 2 as qp_quat_integrate turns: Q32 -> Q30 and halved. */
        int64_t u[3], usq = 0;
        for (int i = 0; i < 3; i++) {
            int64_t t = w[i] * dt;
            const int64_t half = (int64_t)1 << 31;
            t = t > half ? half : t < -half ? -half : t;
            u[i] = shift_round(t, 3);                       /* |u| <= 2^28 */
            usq += u[i] * u[i];                             /* < 3 2^56 */
        }
        int64_t c = ((int64_t)1 << 61) / (((int64_t)1 << 30) + shift_round(usq, 30)); /* 2 / (1 + u^2), Q30 */
        int64_t pw[3], pl[3], g[3];
        turn_back(u, c, w, pw);
        turn_back(u, c, l0, pl);
        for (int i = 0; i < 3; i++)
            g[i] = shift_round(ii[i][0] * pw[0] + ii[i][1] * pw[1] + ii[i][2] * pw[2], GYRO_BITS) - pl[i];
        for (int i = 0; i < 3; i++) {
            int64_t dw = shift_round(inv[i][0] * g[0] + inv[i][1] * g[1] + inv[i][2] * g[2], 16);
            int64_t nw = w[i] - dw;
            w[i] = nw > INT32_MAX ? INT32_MAX : nw < -INT32_MAX ? -INT32_MAX : nw;
        }
    }
    return qp_v3((fix16_t)w[0], (fix16_t)w[1], (fix16_t)w[2]);
}
