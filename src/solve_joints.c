/* SPDX-License-Identifier: MIT */
/* Joints in the velocity passes (docs/design.md §3, §7; seed 004).
 *
 * A joint is solved with the impulse equations of a contact, in every pass
 * where contacts are:
 *   - collision pass (elastic): each sweep makes the joint's relative
 *     velocity zero (not accumulated), so an impact travels along a chain;
 *   - contact pass: warm-started, accumulated impulses (Catto), solved before
 *     each contact sweep in joint order: outward from static bodies, reversed
 *     on the sweeps that run top-down;
 *   - penetration pass: drift removal by split impulses (pseudo-velocities
 *     that move the bodies without entering their momentum): the open error
 *     removed over the joint's drift_time (capped at max_penetration_speed),
 *     and the gap the position update itself would open, predicted from the
 *     velocities with integrate.c's formulas, cancelled whole (a link turning
 *     at 40 rad/s opens 5 cm per step otherwise).
 * Shock propagation does not touch joints: joints are not edges of the
 * contact graph, so a link of a hanging chain is never taken as resting on
 * the link below it, and no joint is solved with a side pinned.
 *
 * Rows: a ball joint is three point rows solved together (the 3x3 effective
 * mass inverted once per step: a block solve, which a 10:1 mass ratio along a
 * chain does not upset as one row at a time would); a hinge adds two angular
 * rows across its axis (2x2 block) and, with limits, one angular row along
 * it; a distance joint is one row along the line between its points. A weld
 * is its point and rotation rows as one 6x6 block; a slider two point rows
 * across its axis, three rotation rows and limits along the axis; a cone the
 * point rows, a swing row and twist limit rows. Motors and springs are rows of
 * their own in the contact pass (a spring soft: solved for the speed it makes).
 * Limit rows are speculative: a joint short of its limit by C may approach it
 * at C/dt, so it stops at the limit instead of crossing it first.
 *
 * Arithmetic is Q16.16 through the math layer (saturating): arms are at most
 * 100 m (joint.c), inverse inertia at most 10 000 (body.c).
 */
#include "geometry.h"
#include "events.h"
#include "joint.h"
#include "joint_tree.h"
#include "layout.h"
#include "quiet.h"
#include "scratch.h"
#include "solver.h"
#include "math_inline.h"

/* atan(2^-i) in Q2.30, for the CORDIC below. */
static const int32_t atan_table[31] = {
    843314857, 497837829, 263043837, 133525159, 67021687, 33543516, 16775851, 8388437, 4194283, 2097149, 1048576,
    524288,    262144,    131072,    65536,     32768,    16384,    8192,     4096,    2048,    1024,    512,
    256,       128,       64,        32,        16,       8,        4,        2,       1
};

/* v / 2^n, rounded toward zero (no right shift of a negative number). */
static int64_t shr(int64_t v, int n)
{
    return v >= 0 ? v >> n : -((-v) >> n);
}

/* atan2(y, x) in Q16.16 radians, (-pi, pi], by CORDIC in integers (0 for 0, 0).
 * |y|, |x| below 2^40 (the caller's Q16.16 or Q2.30 products). Within 2e-5 rad. */
static fix16_t atan2_fix(int64_t y, int64_t x)
{
    if (x == 0 && y == 0) return 0;
    while (x > ((int64_t)1 << 40) || x < -((int64_t)1 << 40) || y > ((int64_t)1 << 40) || y < -((int64_t)1 << 40)) {
        x /= 2;
        y /= 2;
    }
    while (x < ((int64_t)1 << 36) && x > -((int64_t)1 << 36) && y < ((int64_t)1 << 36) && y > -((int64_t)1 << 36)) {
        x *= 2;
        y *= 2;
    }
    const int64_t half_pi = 1686629713;   /* pi/2 in Q2.30 */
    int64_t z = 0;
    if (x < 0) {
        int64_t t = x;
        if (y >= 0) { x = y; y = -t; z = half_pi; }
        else { x = -y; y = t; z = -half_pi; }
    }
    for (int i = 0; i < 31; i++) {
        int64_t xs = shr(x, i), ys = shr(y, i);
        if (y > 0) { x += ys; y -= xs; z += atan_table[i]; }
        else if (y < 0) { x -= ys; y += xs; z -= atan_table[i]; }
        else break;
    }
    return (fix16_t)(z >= 0 ? (z + 8192) >> 14 : -((8192 - z) >> 14));
}

static fix16_t inverse_of(int64_t k)
{
    if (k <= 0) return 0;
    return qp_div(QP_ONE, qp_sat32(k));
}

static bool body_can_move(const qp_body_state *b) { return qp__body_dynamic(b); }

/* 1 / (d . (Ia + Ib) d): the effective mass of an angular row along unit d. (A cone's
 * rows use it: the mass about the anchor (pivot_mass) overshot when both bodies move and
 * blew a landing ragdoll apart.) */
static fix16_t angular_mass(const qp_joint_rows *r, qp_vec3 d)
{
    qp_mat3 isum = qp_mat3_add(&r->ia, &r->ib);
    return inverse_of(qp__v3_dot(d, qp__mat3_mul_v3(&isum, d)));
}

/* The inverse of the 2x2 matrix [d_i . M d_j] of two unit directions, into m (zero when singular). */
static void inverse_2x2(const qp_mat3 *mat, const qp_vec3 d[2], fix16_t m[2][2])
{
    qp_vec3 m0 = qp__mat3_mul_v3(mat, d[0]), m1 = qp__mat3_mul_v3(mat, d[1]);
    int64_t k00 = qp__v3_dot(d[0], m0), k01 = qp__v3_dot(d[0], m1);
    int64_t k10 = qp__v3_dot(d[1], m0), k11 = qp__v3_dot(d[1], m1);
    int64_t det = k00 * k11 - k01 * k10;   /* Q32 */
    m[0][0] = m[0][1] = m[1][0] = m[1][1] = 0;
    if (det <= 0) return;
    m[0][0] = qp_sat32((k11 * 4294967296LL) / det);
    m[0][1] = qp_sat32((-k01 * 4294967296LL) / det);
    m[1][0] = qp_sat32((-k10 * 4294967296LL) / det);
    m[1][1] = qp_sat32((k00 * 4294967296LL) / det);
}

/* Fixed and slider: b's turn from a since creation, as a small rotation vector (rad), and
 * the 3x3 angular rows that hold it. The frames agree at creation; half the sum of the
 * crosses of their three unit vectors is the turn for small turns (and points its way
 * for large ones). */
QP__NOINLINE static void rotation_rows(const qp_joint *j, qp_joint_rows *r, const qp_rot3 *rota, const qp_rot3 *rotb)
{
    qp_vec3 na = qp__rot3_mul_v3(rota, j->axis_a), nb = qp__rot3_mul_v3(rotb, j->axis_b);   /* Q2.30 */
    qp_vec3 pa = qp__rot3_mul_v3(rota, j->ref_a), pb = qp__rot3_mul_v3(rotb, j->ref_b);
    qp_vec3 ca = qp_v3_cross_q30(na, pa), cb = qp_v3_cross_q30(nb, pb);
    qp_vec3 t = qp__v3_add(qp__v3_add(qp_v3_from_q30(qp_v3_cross_q30(na, nb)), qp_v3_from_q30(qp_v3_cross_q30(pa, pb))),
                          qp_v3_from_q30(qp_v3_cross_q30(ca, cb)));
    r->tilt = qp_v3(t.x / 2, t.y / 2, t.z / 2);
}

/* The inverse of the angular rows' 3x3 effective mass, Ia + Ib (zero out of range): found
 * at each use, which costs less RAM and stack than keeping it in the rows. */
QP__NOINLINE static qp_mat3 angular_block(const qp_joint_rows *r)
{
    qp_mat3 isum = qp_mat3_add(&r->ia, &r->ib), inv;
    if (!qp_mat3_inverse(&isum, &inv)) inv = qp_mat3_zero();
    return inv;
}

/* Fixed: the point and rotation rows solved as one 6x6 block, so a long weld under a
 * heavy load holds in one step instead of the two halves passing the load back and forth.
 * With B the coupling (an angular impulse L moves the points by B L, a point impulse P
 * turns them by B^T P; found again at each use, which costs less RAM than keeping it) and
 * A the angular block: P = S^-1 (el - B A^-1 ea), S = K - B A^-1 B^T, L = A^-1 (ea - B^T P).
 * k_inv holds S^-1 (K^-1 when S is out of range: the two halves apart). */
QP__NOINLINE static qp_mat3 coupling_of(const qp_joint_rows *r)
{
    qp_mat3 b;
    for (int i = 0; i < 3; i++) {
        qp_vec3 e = qp_v3(i == 0 ? QP_ONE : 0, i == 1 ? QP_ONE : 0, i == 2 ? QP_ONE : 0);
        qp_vec3 col = qp__v3_neg(qp__v3_add(qp__v3_cross(r->rb, qp__mat3_mul_v3(&r->ib, e)),
                                          qp__v3_cross(r->ra, qp__mat3_mul_v3(&r->ia, e))));
        b.m[0][i] = col.x;
        b.m[1][i] = col.y;
        b.m[2][i] = col.z;
    }
    return b;
}

QP__NOINLINE static void weld_block(qp_joint_rows *r, const qp_mat3 *k)
{
    qp_mat3 b = coupling_of(r), k_ang = angular_block(r);
    qp_mat3 bt = qp_mat3_transpose(&b);
    qp_mat3 bai = qp_mat3_mul(&b, &k_ang);
    qp_mat3 cut = qp_mat3_mul(&bai, &bt), schur;
    for (int i = 0; i < 3; i++)
        for (int c = 0; c < 3; c++) schur.m[i][c] = qp_sat32((int64_t)k->m[i][c] - cut.m[i][c]);
    if (!qp_mat3_inverse(&schur, &r->k_inv) && !qp_mat3_inverse(k, &r->k_inv)) r->k_inv = qp_mat3_zero();
}


/* Slider: the two point rows across a's axis (2x2 block of the point rows' K), the row
 * along it and its translation, and the rotation rows. */
QP__NOINLINE static void slider_rows(const qp_joint *j, qp_joint_rows *r, const qp_mat3 *k, const qp_rot3 *rota,
                        const qp_rot3 *rotb)
{
    qp_vec3 na = qp__rot3_mul_v3(rota, j->axis_a);
    r->axis = qp_v3_from_q30(na);
    qp_vec3 across = qp__perpendicular(na);
    r->perp[0] = qp_v3_from_q30(across);
    r->perp[1] = qp_v3_from_q30(qp_v3_cross_q30(na, across));
    inverse_2x2(k, r->perp, r->m_perp);
    r->m_axis = inverse_of(qp__v3_dot(r->axis, qp__mat3_mul_v3(k, r->axis)));
    r->value = qp__v3_dot(r->gap, r->axis);
    rotation_rows(j, r, rota, rotb);
}

/* v / 2^30 of a 64-bit Q60 sum, rounded toward zero. */
static int32_t q60_to_q30(int64_t v) { return (int32_t)(v >= 0 ? v >> 30 : -((-v) >> 30)); }

/* Cone: the swing (the angle between the axes) with the direction that opens it, and the
 * twist: the angle about a's axis of b's reference once b's axis is turned back onto a's
 * by the shortest turn (Rodrigues: x c + w x x + w (w . x) / (1 + c), w = nb x na). */
QP__NOINLINE static void cone_rows(const qp_joint *j, qp_joint_rows *r, const qp_rot3 *rota, const qp_rot3 *rotb)
{
    qp_vec3 na = qp__rot3_mul_v3(rota, j->axis_a), nb = qp__rot3_mul_v3(rotb, j->axis_b);   /* Q2.30 */
    qp_vec3 pa = qp__rot3_mul_v3(rota, j->ref_a), pb = qp__rot3_mul_v3(rotb, j->ref_b);
    qp_vec3 opening = qp_v3_cross_q30(na, nb);   /* Q2.30, |.| = sin(swing) */
    int32_t c = q60_to_q30((int64_t)na.x * nb.x + (int64_t)na.y * nb.y + (int64_t)na.z * nb.z);
    qp_vec3 u;
    fix16_t sin16 = qp_v3_len(qp_v3_from_q30(opening));
    r->swing = atan2_fix((int64_t)sin16 << 14, c);
    if (qp_v3_normalize_q30(opening, &u) && sin16 > 0) {
        r->tilt = qp_v3_from_q30(u);
        r->m_swing = angular_mass(r, r->tilt);
    }
    /* Twist axis: halfway between the two axes (both turn b about it alike). */
    qp_vec3 h;
    if (!qp_v3_normalize(qp__v3_add(qp_v3_from_q30(na), qp_v3_from_q30(nb)), &h)) h = qp_v3_from_q30(na);
    r->axis = h;
    r->m_axis = angular_mass(r, h);
    if (c <= -(QP_Q30_ONE - QP_Q30_ONE / 64)) return;   /* axes nearly opposed: no shortest turn */
    qp_vec3 wv = qp__v3_neg(opening);
    qp_vec3 wxp = qp_v3_cross_q30(wv, pb);
    int32_t wdp = q60_to_q30((int64_t)wv.x * pb.x + (int64_t)wv.y * pb.y + (int64_t)wv.z * pb.z);
    int64_t f = (int64_t)wdp * QP_Q30_ONE / ((int64_t)QP_Q30_ONE + c);   /* Q2.30 */
    qp_vec3 back;
    back.x = qp_sat32((((int64_t)pb.x * c) >> 30) + wxp.x + (((int64_t)wv.x * f) >> 30));
    back.y = qp_sat32((((int64_t)pb.y * c) >> 30) + wxp.y + (((int64_t)wv.y * f) >> 30));
    back.z = qp_sat32((((int64_t)pb.z * c) >> 30) + wxp.z + (((int64_t)wv.z * f) >> 30));
    qp_vec3 cr = qp_v3_cross_q30(pa, back);
    int64_t s_raw = (int64_t)cr.x * na.x + (int64_t)cr.y * na.y + (int64_t)cr.z * na.z;   /* Q60 */
    int64_t c_raw = (int64_t)pa.x * back.x + (int64_t)pa.y * back.y + (int64_t)pa.z * back.z;
    r->value = atan2_fix(s_raw >> 24, c_raw >> 24);
}

void qp__joint_rows(const qp_world *w, const qp_joint *j, qp_joint_rows *r)
{
    const qp_body_state *a = &w->bodies[j->a], *b = &w->bodies[j->b];
    qp_rot3 rota = qp__body_rot(a), rotb = qp__body_rot(b);
    r->ra = qp__rot3_mul_v3(&rota, j->la);
    r->rb = qp__rot3_mul_v3(&rotb, j->lb);
    bool ma = body_can_move(a), mb = body_can_move(b);
    r->ia = ma ? qp__body_inv_inertia(a) : qp_mat3_zero();
    r->ib = mb ? qp__body_inv_inertia(b) : qp_mat3_zero();
    r->ma = ma ? a->inv_mass : 0;
    r->mb = mb ? b->inv_mass : 0;
    r->gap = qp__v3_sub(qp__v3_add(b->x, r->rb), qp__v3_add(a->x, r->ra));
    r->value = 0;
    r->axis = r->tilt = qp_v3_zero();
    r->perp[0] = r->perp[1] = qp_v3_zero();
    r->m_perp[0][0] = r->m_perp[0][1] = r->m_perp[1][0] = r->m_perp[1][1] = 0;
    r->m_axis = 0;
    r->k_inv = qp_mat3_zero();
    r->swing = r->m_swing = 0;
    if (j->type == QP_JOINT_DISTANCE) {
        r->value = qp_v3_len(r->gap);
        if (!qp_v3_normalize(r->gap, &r->axis)) return;
        qp_vec3 ca = qp__v3_cross(r->ra, r->axis), cb = qp__v3_cross(r->rb, r->axis);
        int64_t k = (int64_t)r->ma + r->mb + qp__v3_dot(ca, qp__mat3_mul_v3(&r->ia, ca)) +
                    qp__v3_dot(cb, qp__mat3_mul_v3(&r->ib, cb));
        r->m_axis = inverse_of(k);
        return;
    }
    if (j->type == QP_JOINT_SLIDER) r->ra = qp__v3_add(r->ra, r->gap);   /* a's arm to b's point */
    /* Point rows: K e_i = (ma + mb) e_i - ra x (Ia (ra x e_i)) - rb x (Ib (rb x e_i)). */
    qp_mat3 k;
    for (int i = 0; i < 3; i++) {
        qp_vec3 e = qp_v3(i == 0 ? QP_ONE : 0, i == 1 ? QP_ONE : 0, i == 2 ? QP_ONE : 0);
        qp_vec3 col = qp__v3_scale(e, qp_sat32((int64_t)r->ma + r->mb));
        col = qp__v3_sub(col, qp__v3_cross(r->ra, qp__mat3_mul_v3(&r->ia, qp__v3_cross(r->ra, e))));
        col = qp__v3_sub(col, qp__v3_cross(r->rb, qp__mat3_mul_v3(&r->ib, qp__v3_cross(r->rb, e))));
        k.m[0][i] = col.x;
        k.m[1][i] = col.y;
        k.m[2][i] = col.z;
    }
    if (j->type == QP_JOINT_SLIDER) {
        slider_rows(j, r, &k, &rota, &rotb);
        return;
    }
    if (j->type == QP_JOINT_FIXED) {
        rotation_rows(j, r, &rota, &rotb);
        weld_block(r, &k);
        return;
    }
    if (!qp_mat3_inverse(&k, &r->k_inv)) r->k_inv = qp_mat3_zero();
    if (j->type == QP_JOINT_CONE) {
        cone_rows(j, r, &rota, &rotb);
        return;
    }
    if (j->type != QP_JOINT_HINGE) return;
    qp_vec3 na = qp__rot3_mul_v3(&rota, j->axis_a), nb = qp__rot3_mul_v3(&rotb, j->axis_b);   /* Q2.30 */
    qp_vec3 pa = qp__rot3_mul_v3(&rota, j->ref_a), pb = qp__rot3_mul_v3(&rotb, j->ref_b);
    r->axis = qp_v3_from_q30(na);
    r->tilt = qp_v3_from_q30(qp_v3_cross_q30(nb, na));
    qp_vec3 across = qp__perpendicular(na);
    r->perp[0] = qp_v3_from_q30(across);
    r->perp[1] = qp_v3_from_q30(qp_v3_cross_q30(na, across));
    /* The angle of b's reference about a's axis from a's reference. */
    qp_vec3 c = qp_v3_cross_q30(pa, pb);   /* Q2.30 */
    int64_t sin_raw = (int64_t)c.x * na.x + (int64_t)c.y * na.y + (int64_t)c.z * na.z;   /* Q60 */
    int64_t cos_raw = (int64_t)pa.x * pb.x + (int64_t)pa.y * pb.y + (int64_t)pa.z * pb.z;
    r->value = atan2_fix(sin_raw >> 24, cos_raw >> 24);   /* both halved alike: the angle stays */
    qp_mat3 isum = qp_mat3_add(&r->ia, &r->ib);
    qp_vec3 ip0 = qp__mat3_mul_v3(&isum, r->perp[0]), ip1 = qp__mat3_mul_v3(&isum, r->perp[1]);
    int64_t k00 = qp__v3_dot(r->perp[0], ip0), k01 = qp__v3_dot(r->perp[0], ip1);
    int64_t k10 = qp__v3_dot(r->perp[1], ip0), k11 = qp__v3_dot(r->perp[1], ip1);
    int64_t det = k00 * k11 - k01 * k10;   /* Q32 */
    if (det > 0) {
        r->m_perp[0][0] = qp_sat32((k11 * 4294967296LL) / det);
        r->m_perp[0][1] = qp_sat32((-k01 * 4294967296LL) / det);
        r->m_perp[1][0] = qp_sat32((-k10 * 4294967296LL) / det);
        r->m_perp[1][1] = qp_sat32((k00 * 4294967296LL) / det);
    }
    r->m_axis = inverse_of(qp__v3_dot(r->axis, qp__mat3_mul_v3(&isum, r->axis)));
}

/* ---- velocities ------------------------------------------------------------------------ */

typedef struct {
    qp_vec3 *va, *wa, *vb, *wb;
} vel;

static vel real_vel(qp_world *w, const qp_joint *j)
{
    vel v = { &w->bodies[j->a].v, &w->bodies[j->a].w, &w->bodies[j->b].v, &w->bodies[j->b].w };
    return v;
}

static vel pseudo_vel(qp_world *w, const qp_joint *j)
{
    vel v = { (qp_vec3 *)&qp__split(w)->pseudo_v[j->a][0], (qp_vec3 *)&qp__split(w)->pseudo_v[j->a][3],
              (qp_vec3 *)&qp__split(w)->pseudo_v[j->b][0], (qp_vec3 *)&qp__split(w)->pseudo_v[j->b][3] };
    return v;
}

/* Velocity of b's point minus a's. */
static qp_vec3 point_velocity(const vel *v, const qp_joint_rows *r)
{
    qp_vec3 pb = qp__v3_add(*v->vb, qp__v3_cross(*v->wb, r->rb));
    qp_vec3 pa = qp__v3_add(*v->va, qp__v3_cross(*v->wa, r->ra));
    return qp__v3_sub(pb, pa);
}

/* Impulse p at the points: -p on a, +p on b. */
static void apply_linear(const vel *v, const qp_joint_rows *r, qp_vec3 p)
{
    *v->va = qp__v3_sub(*v->va, qp__v3_scale(p, r->ma));
    *v->wa = qp__v3_sub(*v->wa, qp__mat3_mul_v3(&r->ia, qp__v3_cross(r->ra, p)));
    *v->vb = qp__v3_add(*v->vb, qp__v3_scale(p, r->mb));
    *v->wb = qp__v3_add(*v->wb, qp__mat3_mul_v3(&r->ib, qp__v3_cross(r->rb, p)));
}

/* Angular impulse l: -l on a, +l on b. */
static void apply_angular(const vel *v, const qp_joint_rows *r, qp_vec3 l)
{
    *v->wa = qp__v3_sub(*v->wa, qp__mat3_mul_v3(&r->ia, l));
    *v->wb = qp__v3_add(*v->wb, qp__mat3_mul_v3(&r->ib, l));
}

/* ---- one joint ---------------------------------------------------------------------------- */

enum { ELASTIC, CONTACT, DRIFT };

#define PI_WRAP ((fix16_t)(205887 - 655))   /* pi - 0.01 rad */

static fix16_t clampf(fix16_t x, fix16_t cap) { return x > cap ? cap : x < -cap ? -cap : x; }

/* The speed at which an error is removed: err / T, T = max(drift_time, dt), capped. */
static fix16_t drift_speed(const qp_world *w, const qp_joint *j, fix16_t err)
{
    fix16_t t = j->drift_time > w->def.dt ? j->drift_time : w->def.dt;
    return clampf(qp_div(err, t), w->def.max_penetration_speed);
}

/* One bounded row along unit direction d (linear at the points when linear, else
 * angular) of effective mass m: speed s must stay >= target (sign +1) or <= target (sign
 * -1). *acc is the accumulated impulse (CONTACT) or null (one push that only acts one
 * way). Returns the impulse applied. */
static fix16_t bound_row(const vel *v, const qp_joint_rows *r, qp_vec3 d, bool linear, fix16_t m, fix16_t s,
                         fix16_t target, int sign, fix16_t *acc)
{
    fix16_t j = qp__mul(qp_sat32((int64_t)target - s), m);
    if (acc) {
        fix16_t total = qp_sat32((int64_t)*acc + j);
        if (sign * (int64_t)total < 0) total = 0;
        j = total - *acc;
        *acc = total;
    } else if (sign * (int64_t)j < 0) {
        j = 0;
    }
    if (j == 0) return 0;
    if (linear) apply_linear(v, r, qp__v3_scale(d, j));
    else apply_angular(v, r, qp__v3_scale(d, j));
    return j;
}

/* The collision pass's impulses (linear and angular), their sizes kept for the step's load. */
static void note_elastic(qp_joint *j, int mode, qp_vec3 lin, qp_vec3 ang)
{
#if QP_CFG_JOINT_OPTIONS
    if (mode != ELASTIC) return;
    j->drive.jel = qp_sat32((int64_t)j->drive.jel + qp_v3_len(lin) + qp_v3_len(ang));
#else
    (void)j, (void)mode, (void)lin, (void)ang;
#endif
}

/* bound_row, noting what the collision pass applies. */
static bool bound(qp_joint *j, int mode, const vel *v, const qp_joint_rows *r, qp_vec3 d, bool linear, fix16_t m,
                  fix16_t s, fix16_t target, int sign, fix16_t *acc)
{
    fix16_t applied = bound_row(v, r, d, linear, m, s, target, sign, acc);
    if (applied) note_elastic(j, mode, qp__v3_scale(d, linear ? applied : 0), qp__v3_scale(d, linear ? 0 : applied));
    return applied != 0;
}

/* The relative speed along d: of the points (linear) or the turn (angular). */
static fix16_t speed_along(const vel *v, const qp_joint_rows *r, qp_vec3 d, bool linear)
{
    return linear ? qp__v3_dot(point_velocity(v, r), d) : qp__v3_dot(qp__v3_sub(*v->wb, *v->wa), d);
}

/* The relative speed along d at the bodies' real velocities (clamped as the position
 * update clamps them): how the value will move in the position update. */
static fix16_t real_speed(const qp_world *w, const qp_joint *j, const qp_joint_rows *r, qp_vec3 d, bool linear)
{
    qp_vec3 lin[2], ang[2];
    for (int k = 0; k < 2; k++) {
        const qp_body_state *b = &w->bodies[k == 0 ? j->a : j->b];
        lin[k] = ang[k] = qp_v3_zero();
        if (!qp__body_moves(b)) continue;
        lin[k] = b->v;
        ang[k] = b->w;
        qp__clamp_speed(&lin[k], w->def.max_linear_speed);
        qp__clamp_speed(&ang[k], w->def.max_angular_speed);
    }
    vel rv = { &lin[0], &ang[0], &lin[1], &ang[1] };
    return speed_along(&rv, r, d, linear);
}

/* The drift speed of an angle past its limit (rad/s): a limb's point 10 cm from the joint
 * moves back at most max_penetration_speed, so the angle at ten times it (1 rad/s took 20
 * steps to undo the 20 degrees a landing ragdoll's spine was bent past its cone). */
static fix16_t angle_drift_speed(const qp_world *w, const qp_joint *j, fix16_t err)
{
    fix16_t t = j->drift_time > w->def.dt ? j->drift_time : w->def.dt;
    return clampf(qp_div(err, t), qp_sat32(10 * (int64_t)w->def.max_penetration_speed));
}

/* The bound on a limit row's speed in each pass, for a value `room` inside its limit
 * (negative: past it), on the side where the value falls (sign +1: the lower limit,
 * speed >= bound; -1: the upper, speed <= bound); none: QP_FIX_MAX times -sign. The
 * velocity passes let the value approach the limit by room in the step (speculative).
 * The drift pass removes what is past it over drift_time; with predict, it also
 * cancels what the real velocities would carry past it in the position update (the
 * contacts, solved after the joints, and the shock pass may leave a limb moving past
 * its limit: 14 degrees when a ragdoll lands). */
static fix16_t limit_bound(const qp_world *w, const qp_joint *j, int mode, fix16_t room, int sign, fix16_t real,
                           bool predict)
{
    fix16_t dt = w->def.dt;
    if (mode != DRIFT) return sign * (room > 0 ? -qp_div(room, dt) : 0);
    if (!predict) return room < 0 ? sign * drift_speed(w, j, -room) : -sign * QP_FIX_MAX;
    int64_t b = room < 0 ? angle_drift_speed(w, j, -room) : -qp_div(room, dt);
    b -= (int64_t)sign * real;                       /* in the lower limit's sense */
    if (b <= 0) return -sign * QP_FIX_MAX;           /* nothing to push */
    return sign * qp_sat32(b);
}

/* Limit rows on a value (angle or translation) moving at the relative speed along d:
 * value >= lower, value <= upper (limit_bound). wraps: an angle, whose limits within
 * 0.01 rad of +-pi are no limits. */
static bool limit_rows(const qp_world *w, qp_joint *j, const qp_joint_rows *r, const vel *v, int mode, qp_vec3 d,
                       bool linear, fix16_t value, bool wraps, bool predict)
{
    bool any = false;
    fix16_t *lo_acc = mode == CONTACT ? &j->jlo : 0, *hi_acc = mode == CONTACT ? &j->jhi : 0;
    fix16_t real = mode == DRIFT && predict ? real_speed(w, j, r, d, linear) : 0;
    fix16_t above = qp_sat32((int64_t)value - j->lower), below = qp_sat32((int64_t)j->upper - value);
    fix16_t lo = limit_bound(w, j, mode, above, 1, real, predict);
    if ((!wraps || j->lower > -PI_WRAP) && lo != -QP_FIX_MAX)
        any |= bound(j, mode, v, r, d, linear, r->m_axis, speed_along(v, r, d, linear), lo, 1, lo_acc);
    fix16_t hi = limit_bound(w, j, mode, below, -1, real, predict);
    if ((!wraps || j->upper < PI_WRAP) && hi != QP_FIX_MAX)
        any |= bound(j, mode, v, r, d, linear, r->m_axis, speed_along(v, r, d, linear), hi, -1, hi_acc);
    return any;
}

/* The gap between the points after the position update (integrate.c's formulas) at the
 * real velocities plus the split-impulse ones in v. */
static qp_vec3 predicted_gap(const qp_world *w, const qp_joint *j, const qp_joint_rows *r, const vel *pv)
{
    fix16_t dt = w->def.dt;
    qp_vec3 end[2];
    for (int k = 0; k < 2; k++) {
        const qp_body_state *b = &w->bodies[k == 0 ? j->a : j->b];
        qp_vec3 pos = k == 0 ? qp__v3_add(b->x, r->ra) : qp__v3_add(b->x, r->rb);
        if (!qp__body_moves(b)) { end[k] = pos; continue; }
        qp_vec3 vl = b->v, omega = b->w;
        qp__clamp_speed(&vl, w->def.max_linear_speed);
        qp__clamp_speed(&omega, w->def.max_angular_speed);
        vl = qp__v3_add(vl, k == 0 ? *pv->va : *pv->vb);
        omega = qp__v3_add(omega, k == 0 ? *pv->wa : *pv->wb);
        qp_rot3 rot = qp_quat_to_rot3(qp_quat_integrate(b->q, omega, dt));
        end[k] = qp__v3_add(qp__v3_mad(b->x, vl, dt), qp__rot3_mul_v3(&rot, k == 0 ? j->la : j->lb));
    }
    return qp__v3_sub(end[1], end[0]);
}

/* ---- motors and springs (contact pass only: they drive, they do not correct) -------------- */

#if QP_CFG_JOINT_OPTIONS

#define TWO_PI_FIX ((fix16_t)411775)

/* A soft row: a damped spring of natural frequency w = 2 pi hz and damping ratio zeta
 * on a row of effective mass m, error C and speed s, with the accumulated impulse acc.
 * The step's impulse L solves L = -m (a v' + h W^2 C), v' the speed after it (the
 * Gauss-Seidel sweeps converge to it; each gives (that - acc) / (1 + a)), with
 * a = 2 zeta h w + beta (h w)^2. beta = 1 is Box2D's and Jolt's soft step, stable at
 * any frequency but damping by about h w / 2 of its own; here beta is the least that
 * stays stable: 0 while h w <= sqrt 2 (f <= 13.5 Hz at 60 Hz: no damping of its own,
 * and W = (2 / h) sin(h w / 2) makes the step's oscillation exactly w), then
 * 1/2 - 1 / (h w)^2. The mass scales the impulse, never the stiffness: any mass ratio. */
static fix16_t soft_impulse(const qp_world *w, const qp_joint *j, fix16_t m, fix16_t err, fix16_t s, fix16_t acc)
{
    fix16_t h = w->def.dt;
    fix16_t omega = qp__mul(j->drive.spring_hz, TWO_PI_FIX);
    fix16_t hw = qp__mul(h, omega);
    int64_t hw_sq = ((int64_t)hw * hw) >> 16;                                          /* (h w)^2, Q16 */
    int64_t a = ((int64_t)hw * qp_sat32(2 * (int64_t)j->drive.spring_damping)) >> 16;          /* 2 zeta h w */
    int64_t hw2;                                                                        /* h W^2, Q16 */
    if (hw_sq <= 2 * QP_ONE) {
        int64_t chord = 2 * (int64_t)qp_sin_q30(hw / 2);                                /* h W, Q2.30 */
        hw2 = qp_div(qp_sat32(((chord * chord) >> 44)), h);
    } else {
        a += hw_sq / 2 - QP_ONE;
        hw2 = ((int64_t)hw * omega) >> 16;
    }
    int64_t t = qp_sat32((a * s + hw2 * err) >> 16);                                  /* Q16 */
    int64_t num = (int64_t)m * t + (int64_t)acc * 65536;                             /* Q32 */
    return qp_sat32(-(num / (QP_ONE + a)));
}

/* Add impulse dj to *acc within +-cap (cap < 0: no bound); returns the change made. */
static fix16_t add_capped(fix16_t *acc, fix16_t dj, fix16_t cap)
{
    int64_t total = (int64_t)*acc + dj;
    if (cap >= 0) total = total > cap ? cap : total < -cap ? -cap : total;
    fix16_t change = qp_sat32(total - *acc);
    *acc = qp_sat32(total);
    return change;
}

/* Angle difference wrapped into (-pi, pi]. */
static fix16_t wrap_angle(int64_t d)
{
    const int64_t pi = 205887, two_pi = 411775;
    while (d > pi) d -= two_pi;
    while (d <= -pi) d += two_pi;
    return (fix16_t)d;
}

/* Hinge: the effective mass about the axis through the anchor, each body turning about
 * it (its inertia about the axis plus m d^2), so a spring of f Hz swings a door at f. */
QP__NOINLINE static fix16_t pivot_mass(const qp_joint_rows *r, qp_vec3 axis)
{
    int64_t inv = 0;
    for (int k = 0; k < 2; k++) {
        const qp_mat3 *ii = k == 0 ? &r->ia : &r->ib;
        fix16_t m = k == 0 ? r->ma : r->mb;
        if (m == 0) continue;
        fix16_t turn = inverse_of(qp__v3_dot(axis, qp__mat3_mul_v3(ii, axis)));   /* inertia about the axis */
        fix16_t d = qp_v3_len(qp__v3_cross(k == 0 ? r->ra : r->rb, axis));
        int64_t pivot = (int64_t)turn + qp__mul(qp__mul(d, d), inverse_of(m));
        inv += qp_div(QP_ONE, qp_sat32(pivot));
    }
    return inverse_of(inv);
}

/* Hinge and slider: the motor, then the spring, along d (angular for a hinge). */
QP__NOINLINE static bool drive_rows(const qp_world *w, qp_joint *j, const qp_joint_rows *r, const vel *v, qp_vec3 d, bool linear)
{
    bool any = false;
    /* The mass driven: a slider's bodies translate (no turning), a hinge's turn about the anchor. */
    fix16_t m_drive = linear ? inverse_of((int64_t)r->ma + r->mb) : pivot_mass(r, d);
    fix16_t dt = w->def.dt;
    if (j->flags & QP_JOINT_MOTOR) {
        fix16_t s = speed_along(v, r, d, linear);
        fix16_t dj = qp__mul(qp_sat32((int64_t)j->drive.motor_speed - s), m_drive);
        dj = add_capped(&j->drive.jm, dj, qp__mul(j->drive.motor_max, dt));
        if (dj) {
            if (linear) apply_linear(v, r, qp__v3_scale(d, dj));
            else apply_angular(v, r, qp__v3_scale(d, dj));
            any = true;
        }
    }
    if (j->flags & QP_JOINT_SPRING) {
        fix16_t s = speed_along(v, r, d, linear);
        int64_t e = (int64_t)r->value - j->drive.spring_target;
        fix16_t err = linear ? qp_sat32(e) : wrap_angle(e);
        fix16_t dj = soft_impulse(w, j, m_drive, err, s, j->drive.js);
        dj = add_capped(&j->drive.js, dj, j->drive.spring_max > 0 ? qp__mul(j->drive.spring_max, dt) : -1);
        if (dj) {
            if (linear) apply_linear(v, r, qp__v3_scale(d, dj));
            else apply_angular(v, r, qp__v3_scale(d, dj));
            any = true;
        }
    }
    return any;
}

/* Hinge and cone friction: the relative turn (about the axis for a hinge, any turn for a
 * cone, through the inverse of its angular mass found once a step) driven to none with at
 * most the joint's friction torque over the step; the step's impulse is bounded as a whole
 * (a disk for a cone), so it never pushes the turn back. */
QP__NOINLINE static bool friction_rows(const qp_world *w, qp_joint *j, const qp_joint_rows *r, const vel *v)
{
    qp_vec3 turn = qp__v3_sub(*v->wb, *v->wa), l;
    if (j->type == QP_JOINT_HINGE)
        l = qp__v3_scale(r->axis, qp__mul(qp_sat32(-(int64_t)qp__v3_dot(turn, r->axis)), angular_mass(r, r->axis)));
    else
        l = qp__mat3_mul_v3(&j->drive.kf, qp__v3_neg(turn));
    qp_vec3 total = qp__v3_add(j->drive.jf, l);
    fix16_t cap = qp__mul(j->drive.friction, w->def.dt), size = qp_v3_len(total);
    if (size > cap) total = qp__v3_scale(total, qp_div(cap, size));
    qp_vec3 change = qp__v3_sub(total, j->drive.jf);
    j->drive.jf = total;
    if (!(change.x | change.y | change.z)) return false;
    apply_angular(v, r, change);
    return true;
}

/* A distance joint with a spring: its length kept in [lower, upper] softly (lower = upper:
 * a spring of that rest length), pulling only while outside. */
QP__NOINLINE static bool soft_distance(const qp_world *w, qp_joint *j, const qp_joint_rows *r, const vel *v)
{
    fix16_t err = r->value > j->upper ? r->value - j->upper : r->value < j->lower ? r->value - j->lower : 0;
    bool two_sided = j->lower == j->upper;
    if (err == 0 && !two_sided) {
        if (j->drive.js == 0) return false;
        fix16_t back = -j->drive.js;   /* inside: the spring lets go */
        j->drive.js = 0;
        apply_linear(v, r, qp__v3_scale(r->axis, back));
        return true;
    }
    fix16_t s = qp__v3_dot(point_velocity(v, r), r->axis);
    fix16_t dj = soft_impulse(w, j, r->m_axis, err, s, j->drive.js);
    int64_t total = (int64_t)j->drive.js + dj;
    if (!two_sided && (err > 0 ? total > 0 : total < 0)) total = 0;   /* a limit only pulls back */
    dj = qp_sat32(total - j->drive.js);
    j->drive.js = qp_sat32(total);
    if (dj == 0) return false;
    apply_linear(v, r, qp__v3_scale(r->axis, dj));
    return true;
}

#endif

/* Fixed and slider: no relative turn (and b's turn from a undone in the drift pass). */
QP__NOINLINE static bool lock_rotation(const qp_world *w, qp_joint *j, const qp_joint_rows *r, const vel *v, int mode)
{
    qp_vec3 e = qp__v3_neg(qp__v3_sub(*v->wb, *v->wa));
    if (mode == DRIFT)
        e = qp__v3_sub(e, qp_v3(drift_speed(w, j, r->tilt.x), drift_speed(w, j, r->tilt.y), drift_speed(w, j, r->tilt.z)));
    qp_mat3 k_ang = angular_block(r);
    qp_vec3 l = qp__mat3_mul_v3(&k_ang, e);
    if (!(l.x | l.y | l.z)) return false;
    apply_angular(v, r, l);
    if (mode == CONTACT) {
        j->ja[0] = qp_sat32((int64_t)j->ja[0] + l.x);
        j->ja[1] = qp_sat32((int64_t)j->ja[1] + l.y);
        j->ja[2] = qp_sat32((int64_t)j->ja[2] + l.z);
    }
    note_elastic(j, mode, qp_v3_zero(), l);
    return true;
}

/* Fixed: both halves at once (weld_block), to the point velocities el and turn ea asked. */
QP__NOINLINE static bool weld_solve(qp_joint *j, const qp_joint_rows *r, const vel *v, int mode, qp_vec3 el, qp_vec3 ea)
{
    qp_mat3 b = coupling_of(r), k_ang = angular_block(r);
    qp_vec3 y = qp__mat3_mul_v3(&k_ang, ea);
    qp_vec3 p = qp__mat3_mul_v3(&r->k_inv, qp__v3_sub(el, qp__mat3_mul_v3(&b, y)));
    qp_mat3 bt = qp_mat3_transpose(&b);
    qp_vec3 l = qp__v3_sub(y, qp__mat3_mul_v3(&k_ang, qp__mat3_mul_v3(&bt, p)));
    if (!(p.x | p.y | p.z | l.x | l.y | l.z)) return false;
    apply_linear(v, r, p);
    apply_angular(v, r, l);
    if (mode == CONTACT) {
        j->jp = qp__v3_add(j->jp, p);
        j->ja[0] = qp_sat32((int64_t)j->ja[0] + l.x);
        j->ja[1] = qp_sat32((int64_t)j->ja[1] + l.y);
        j->ja[2] = qp_sat32((int64_t)j->ja[2] + l.z);
    }
    note_elastic(j, mode, p, l);
    return true;
}

/* Slider: no relative motion of the points across the axis (2x2 block). */
QP__NOINLINE static bool slide_rows(const qp_world *w, qp_joint *j, const qp_joint_rows *r, const vel *v, int mode)
{
    qp_vec3 pv = point_velocity(v, r);
    fix16_t e0 = -qp__v3_dot(pv, r->perp[0]), e1 = -qp__v3_dot(pv, r->perp[1]);
    if (mode == DRIFT) {
        e0 = qp_sat32((int64_t)e0 - drift_speed(w, j, qp__v3_dot(r->gap, r->perp[0])));
        e1 = qp_sat32((int64_t)e1 - drift_speed(w, j, qp__v3_dot(r->gap, r->perp[1])));
    }
    fix16_t l0 = qp_sat32((int64_t)qp__mul(r->m_perp[0][0], e0) + qp__mul(r->m_perp[0][1], e1));
    fix16_t l1 = qp_sat32((int64_t)qp__mul(r->m_perp[1][0], e0) + qp__mul(r->m_perp[1][1], e1));
    if (!(l0 | l1)) return false;
    qp_vec3 p = qp__v3_add(qp__v3_scale(r->perp[0], l0), qp__v3_scale(r->perp[1], l1));
    apply_linear(v, r, p);
    if (mode == CONTACT) j->jp = qp__v3_add(j->jp, p);
    note_elastic(j, mode, p, qp_v3_zero());
    return true;
}

/* Cone: b's axis within the cone (one row along the direction that opens it), then the twist. */
QP__NOINLINE static bool cone_limits(const qp_world *w, qp_joint *j, const qp_joint_rows *r, const vel *v, int mode,
                                     unsigned tree)
{
    bool any = false;
    if (r->m_swing != 0 && !(tree & QP_TREE_SWING)) {
        fix16_t room = qp_sat32((int64_t)j->swing - r->swing);
        fix16_t real = mode == DRIFT ? real_speed(w, j, r, r->tilt, false) : 0;
        fix16_t hi = limit_bound(w, j, mode, room, -1, real, true);
        if (hi != QP_FIX_MAX)
            any |= bound(j, mode, v, r, r->tilt, false, r->m_swing, speed_along(v, r, r->tilt, false), hi, -1,
                         mode == CONTACT ? &j->ja[0] : 0);
    }
    if ((j->flags & QP_JOINT_LIMIT) && !(tree & QP_TREE_AXIAL))
        any |= limit_rows(w, j, r, v, mode, r->axis, false, r->value, true, true);
    return any;
}

/* The change of the points' relative velocity the point rows ask for (DRIFT: toward the
 * gap kept this step; otherwise to zero), Q16.16. */
static qp_vec3 point_target(const qp_world *w, const qp_joint *j, const qp_joint_rows *r, const vel *v, int mode)
{
    if (mode != DRIFT) return qp__v3_neg(point_velocity(v, r));
    /* Where the position update would take the points at the velocities plus the split
     * impulses so far: the change asked is what brings that end gap to the present gap
     * less its share for this step (nonlinear Gauss-Seidel: each sweep predicts anew). */
    fix16_t dt = w->def.dt;
    qp_vec3 end = predicted_gap(w, j, r, v);
    fix16_t len = qp_v3_len(r->gap);
    qp_vec3 keep = r->gap;
    if (len > 0) keep = qp__v3_sub(r->gap, qp__v3_scale(r->gap, qp_div(qp__mul_half_up(drift_speed(w, j, len), dt), len)));
    qp_vec3 dv = qp__v3_scale(qp__v3_sub(keep, end), qp_div(QP_ONE, dt));
    qp__clamp_speed(&dv, w->def.max_linear_speed);
    return dv;
}

#if QP_CFG_JOINT_TREE
/* point_target's drift with the end gap taken at no split impulse. The tree's drift target is
 * this less the split impulses' own relative velocity: linear in them, so that the tree's
 * exact solve meets it in one step (its nonlinear form, re-predicted at each solve, diverged
 * on a whipping chain: the solve's large turns of a link about its long axis moved no anchor
 * in the linear model and swung them in the predicted one). It depends on the poses and
 * velocities alone, which the drift pass leaves as they are: tree_pass computes it once. */
static qp_vec3 drift_at_rest(const qp_world *w, const qp_joint *j, const qp_joint_rows *r)
{
    qp_vec3 zero[4] = { qp_v3_zero(), qp_v3_zero(), qp_v3_zero(), qp_v3_zero() };
    vel none = { &zero[0], &zero[1], &zero[2], &zero[3] };
    return point_target(w, j, r, &none, DRIFT);
}
#endif

/* The change of the relative spin across a hinge's axis its alignment rows ask for. */
static void align_target(const qp_world *w, const qp_joint *j, const qp_joint_rows *r, const vel *v, int mode,
                         fix16_t *e0, fix16_t *e1)
{
    qp_vec3 rel = qp__v3_sub(*v->wb, *v->wa);
    *e0 = -qp__v3_dot(rel, r->perp[0]);
    *e1 = -qp__v3_dot(rel, r->perp[1]);
    if (mode == DRIFT) {
        *e0 = qp_sat32((int64_t)*e0 + drift_speed(w, j, qp__v3_dot(r->tilt, r->perp[0])));
        *e1 = qp_sat32((int64_t)*e1 + drift_speed(w, j, qp__v3_dot(r->tilt, r->perp[1])));
    }
}

/* One joint's rows, but those the tree solves (tree_part: IN_TREE, its equality rows, and
 * the limit rows of QP_TREE_*; solve_tree). */
#define IN_TREE 8

static bool solve_joint(const qp_world *w, qp_joint *j, const qp_joint_rows *r, const vel *v, int mode,
                        unsigned tree)
{
    bool equality = !(tree & IN_TREE);
    bool any = false;
    fix16_t dt = w->def.dt;
    fix16_t *lo_acc = mode == CONTACT ? &j->jlo : 0, *hi_acc = mode == CONTACT ? &j->jhi : 0;
    if (j->type == QP_JOINT_DISTANCE) {
        if (r->value < QP_MM(1)) return false;   /* no direction */
#if QP_CFG_JOINT_OPTIONS
        if (j->flags & QP_JOINT_SPRING) return mode == CONTACT && soft_distance(w, j, r, v);
#endif
        qp_vec3 d = r->axis;
        fix16_t s = qp__v3_dot(point_velocity(v, r), d);
        fix16_t over = qp_sat32((int64_t)r->value - j->upper), under = qp_sat32((int64_t)j->lower - r->value);
        /* max: s <= (upper - L) / dt while slack, pulled back in the drift pass when over. */
        fix16_t hi = mode == DRIFT ? (over > 0 ? -drift_speed(w, j, over) : QP_FIX_MAX)
                                   : (over < 0 ? qp_div(-over, dt) : 0);
        if (hi != QP_FIX_MAX) any |= bound(j, mode, v, r, d, true, r->m_axis, s, hi, -1, hi_acc);
        if (j->lower > 0) {
            s = qp__v3_dot(point_velocity(v, r), d);
            fix16_t lo = mode == DRIFT ? (under > 0 ? drift_speed(w, j, under) : -QP_FIX_MAX)
                                       : (under < 0 ? -qp_div(-under, dt) : 0);
            if (lo != -QP_FIX_MAX) any |= bound(j, mode, v, r, d, true, r->m_axis, s, lo, 1, lo_acc);
        }
        return any;
    }
    /* Motor and spring first: the rows that hold the joint together have the last word. */
#if QP_CFG_JOINT_OPTIONS
    if (mode == CONTACT && (j->flags & (QP_JOINT_MOTOR | QP_JOINT_SPRING)))
        any |= drive_rows(w, j, r, v, r->axis, j->type == QP_JOINT_SLIDER);
    if (mode == CONTACT && j->drive.friction != 0) any |= friction_rows(w, j, r, v);
#endif
    if (j->type == QP_JOINT_SLIDER) {
        any |= slide_rows(w, j, r, v, mode);
        any |= lock_rotation(w, j, r, v, mode);
        if (j->flags & QP_JOINT_LIMIT) any |= limit_rows(w, j, r, v, mode, r->axis, true, r->value, false, true);
        return any;
    }
    /* Point rows: no relative velocity of the points. In the drift pass the gap the
     * position update would open (a fast turn's second-order term, what the velocity rows
     * left) is cancelled whole, and the gap already open is closed over drift_time. */
    if (j->type == QP_JOINT_FIXED) {
        qp_vec3 turn = qp__v3_neg(qp__v3_sub(*v->wb, *v->wa));
        if (mode == DRIFT)
            turn = qp__v3_sub(turn, qp_v3(drift_speed(w, j, r->tilt.x), drift_speed(w, j, r->tilt.y),
                                         drift_speed(w, j, r->tilt.z)));
        return weld_solve(j, r, v, mode, point_target(w, j, r, v, mode), turn);
    }
    /* The target only where these rows are solved here, not along the tree: in the drift pass
     * it predicts both bodies' poses. */
    qp_vec3 p = equality ? qp__mat3_mul_v3(&r->k_inv, point_target(w, j, r, v, mode)) : qp_v3_zero();
    if (p.x | p.y | p.z) {
        apply_linear(v, r, p);
        any = true;
        if (mode == CONTACT) j->jp = qp__v3_add(j->jp, p);
        note_elastic(j, mode, p, qp_v3_zero());
    }
    if (j->type == QP_JOINT_CONE) return cone_limits(w, j, r, v, mode, tree) || any;
    if (j->type != QP_JOINT_HINGE) return any;
    /* Alignment rows: no relative turn across the axis (and b's axis turned back to a's). */
    fix16_t e0, e1;
    align_target(w, j, r, v, mode, &e0, &e1);
    fix16_t l0 = qp_sat32((int64_t)qp__mul(r->m_perp[0][0], e0) + qp__mul(r->m_perp[0][1], e1));
    fix16_t l1 = qp_sat32((int64_t)qp__mul(r->m_perp[1][0], e0) + qp__mul(r->m_perp[1][1], e1));
    if (equality && (l0 | l1)) {
        qp_vec3 l = qp__v3_add(qp__v3_scale(r->perp[0], l0), qp__v3_scale(r->perp[1], l1));
        apply_angular(v, r, l);
        any = true;
        if (mode == CONTACT) {
            j->ja[0] = qp_sat32((int64_t)j->ja[0] + l0);
            j->ja[1] = qp_sat32((int64_t)j->ja[1] + l1);
        }
        note_elastic(j, mode, qp_v3_zero(), l);
    }
    if (!(j->flags & QP_JOINT_LIMIT) || (tree & QP_TREE_AXIAL)) return any;
    /* Limits along the axis: angle >= lower, angle <= upper. The angle wraps at +-pi, so a
     * limit within 0.01 rad of it is no limit (it would hold a hinge turning through pi). */
    return limit_rows(w, j, r, v, mode, r->axis, false, r->value, true, false) || any;
}

/* ---- the passes --------------------------------------------------------------------------- */

/* The rows of joint slot i (layout.h). */
static const qp_joint_rows *rows_of(qp_world *w, int i, qp_joint_rows *scratch)
{
    return qp__joint_rows_at(w, i, scratch);
}

static bool joint_moves(const qp_world *w, const qp_joint *j)
{
    return qp__body_moves(&w->bodies[j->a]) || qp__body_moves(&w->bodies[j->b]);
}

/* Every dynamic side awake: only those take split impulses. */
static bool joint_drifts(const qp_world *w, const qp_joint *j)
{
    const qp_body_state *a = &w->bodies[j->a], *b = &w->bodies[j->b];
    return (qp__body_moves(a) || !qp__body_dynamic(a)) && (qp__body_moves(b) || !qp__body_dynamic(b)) &&
           joint_moves(w, j);
}

/* Joint sweeps per sweep of the contact and penetration passes: a chain of n links needs
 * about n Gauss-Seidel sweeps for a pull at one end to reach the other, and joints are
 * few and cheap next to contacts. A weld or slider passes torque as well as force along
 * its chain, which needs twice the sweeps (two welded boxes off a wall under 100 kg sagged
 * 10 mm in the load's first step with 4, 0.8 mm with 8). */
#define JOINT_SWEEPS 4
#define STIFF_JOINT_SWEEPS 8

/* ...but a joint of the trees takes JOINT_SWEEPS in any world: what a weld's or a slider's
 * joint-at-a-time sweeps pass along a chain, the trees' exact solve after each sweep passes
 * whole, and the contact pass solves the trees again after every visit that changes a contact of
 * their bodies (qp__answer_contact). ragdoll_tree.scene's instructions an awake step (its cones
 * made it eight sweeps): 9.8 M with eight and no answers, 10.2 M with four and the answers
 * (12.1 M with eight and the answers, on the engine of docs/notes/2026-11-29-round.md). Thrown
 * ragdolls on fresh seeds sleep as often with four (bench_ragdolls 44000 360: 359 asleep within
 * 20 s, p50 233, p90 367 steps; with eight, 360, 223, 326; with two, 353, 241, 440). */
#define TREE_JOINT_SWEEPS JOINT_SWEEPS

/* A span of more joints is left to the joint sweeps that begin each contact sweep (their
 * trees' solves), not answered at each visit: an answer solves the whole span, and a chain of
 * n links on the ground has about n visits to answer a sweep, n^2 in all (200 links: 476 M
 * host instructions a step; so, 34.8 M). Chains of 34 to 120 links hold, land and sleep as
 * answered (docs/limits.md, Joints). A ragdoll has 10 to 15 joints, chain30.scene 30. */
#define ANSWER_SPAN 32

static int sweeps_of(const qp_world *w)
{
    for (int i = 1; i <= qp__cap_joints(w); i++)
        if (w->joints[i - 1].a != 0 && w->joints[i - 1].type >= QP_JOINT_FIXED) return STIFF_JOINT_SWEEPS;
    return JOINT_SWEEPS;
}

#if !QP_CFG_JOINT_TREE
static bool shares_body(const qp_joint *x, const qp_joint *y)
{
    return x->a == y->a || x->a == y->b || x->b == y->a || x->b == y->b;
}

static bool listed_in(const qp_world *w, int n, int slot)
{
    for (int k = 0; k < n; k++)
        if (w->joint_order[k] == slot) return true;
    return false;
}
#endif

/* Rows of every live joint, and the order: breadth first from the joints that
 * hold a static (or frozen) body, through shared bodies (each joint's neighbours
 * by slot); the rest after, each island from its lowest slot. */
void qp__prepare_joints(qp_world *w)
{
    if (w->joint_count == 0) {
        (void)qp__joint_tree_prepare(w);   /* none: no tree of the last step is solved */
        return;
    }
#if QP_CFG_JOINT_TREE
    /* Listed: the tree's positions (order_trees sets them anew). */
    uint16_t *listed = qp__joint_tree(w)->pos;
    const uint32_t *keys;
    const int nk = qp__joint_ends(w, false, &keys);
#endif
    int n = 0;
    for (int i = 1; i <= qp__cap_joints(w); i++) {
        qp_joint *j = &w->joints[i - 1];
#if QP_CFG_JOINT_TREE
        listed[i - 1] = 0;
#endif
        if (j->a == 0) continue;
#if QP_CFG_JOINT_OPTIONS
        j->drive.jel = 0;
#endif
        qp__joint_rows_keep(w, i);
        if (!qp__body_dynamic(&w->bodies[j->a]) || !qp__body_dynamic(&w->bodies[j->b])) {
            w->joint_order[n++] = (uint16_t)i;
#if QP_CFG_JOINT_TREE
            listed[i - 1] = 1;
#endif
        }
    }
#if QP_CFG_JOINT_TREE
    int next = 1;   /* the lowest slot that may start an island: the listed only grow */
    for (int head = 0;; head++) {
        if (head == n) {   /* an island with no static body: start it at its lowest slot */
            while (next <= qp__cap_joints(w) && (w->joints[next - 1].a == 0 || listed[next - 1])) next++;
            if (next > qp__cap_joints(w)) break;
            listed[next - 1] = 1;
            w->joint_order[n++] = (uint16_t)next;
        }
        const qp_joint *u = &w->joints[w->joint_order[head] - 1];
        int ia = qp__joint_ends_of(keys, nk, u->a), ib = qp__joint_ends_of(keys, nk, u->b);
        for (int i; (i = qp__joint_ends_next(keys, nk, u->a, u->b, &ia, &ib)) >= 0;) {
            if (listed[i - 1]) continue;
            listed[i - 1] = 1;
            w->joint_order[n++] = (uint16_t)i;
        }
    }
#else
    /* Without the trees' storage (a build that leaves them out to save memory): each
     * joint's neighbours sought among all joints, and whether a joint is listed among the
     * listed. */
    for (int head = 0;; head++) {
        if (head == n) {
            int next = 0;
            for (int i = 1; i <= qp__cap_joints(w) && !next; i++)
                if (w->joints[i - 1].a != 0 && !listed_in(w, n, i)) next = i;
            if (!next) break;
            w->joint_order[n++] = (uint16_t)next;
        }
        const qp_joint *u = &w->joints[w->joint_order[head] - 1];
        for (int i = 1; i <= qp__cap_joints(w); i++)
            if (w->joints[i - 1].a != 0 && shares_body(u, &w->joints[i - 1]) && !listed_in(w, n, i))
                w->joint_order[n++] = (uint16_t)i;
    }
#endif
    (void)qp__joint_tree_prepare(w);
}

/* The part of slot's rows the tree solves this pass: 0, or IN_TREE and its limit rows. */
static unsigned tree_part(const qp_world *w, int slot)
{
#if QP_CFG_JOINT_TREE
    const qp_joint_tree *t = qp__joint_tree(w);
    if (t->count == 0 || t->pos[slot - 1] == 0) return 0;
    return IN_TREE | t->lim[t->pos[slot - 1] - 1];
#else
    (void)w;
    (void)slot;
    return 0;
#endif
}

/* The limit rows of slot met at the step's start (solved in the tree while they push). */
static unsigned tree_met(const qp_world *w, int slot)
{
#if QP_CFG_JOINT_TREE
    const qp_joint_tree *t = qp__joint_tree(w);
    return t->count > 0 && t->pos[slot - 1] != 0 ? t->met[t->pos[slot - 1] - 1] : 0;
#else
    (void)w;
    (void)slot;
    return 0;
#endif
}

#if !QP_CFG_JOINT_TREE
static bool solve_tree(qp_world *w, int mode)
{
    (void)w;
    (void)mode;
    return false;
}

bool qp__answer_contact(qp_world *w, int a, int b, uint32_t visit)
{
    (void)w;
    (void)a;
    (void)b;
    (void)visit;
    return false;
}
#else

/* A limit row of the tree: its direction d, its side (sign +1: the lower limit, speed >= bound,
 * impulse >= 0; -1: the upper) and the bound on the speed along d the pass asks
 * (limit_bound; QP_FIX_MAX times -sign: none), at v (the pass's velocities). */
typedef struct {
    qp_vec3 d;
    int sign;
    fix16_t bound;
} tree_limit;

static tree_limit tree_limit_of(const qp_world *w, const qp_joint *j, const qp_joint_rows *r, int mode, unsigned lim,
                                unsigned row)
{
    tree_limit l;
    fix16_t room;
    if (row == QP_TREE_SWING) {
        l.d = r->tilt;
        l.sign = -1;
        room = qp_sat32((int64_t)j->swing - r->swing);
    } else {
        l.d = r->axis;
        l.sign = lim & QP_TREE_UPPER ? -1 : 1;
        room = qp__limit_room(j, r->value, lim & QP_TREE_UPPER);
    }
    bool predict = j->type == QP_JOINT_CONE;   /* as cone_limits and solve_joint ask */
    fix16_t real = mode == DRIFT && predict ? real_speed(w, j, r, l.d, false) : 0;
    l.bound = limit_bound(w, j, mode, room, l.sign, real, predict);
    return l;
}

/* Rounds of one solve of the trees that drop limit rows pulling back: each drops those whose
 * impulse this pass would turn negative and factors again; what the last leaves pulling is
 * cut to none. */
#define TREE_ROUNDS 3
#define PULL_SLOP 8   /* N m s (Q16.16): a row's impulse this far below zero is rounding */

/* Loads the right-hand sides of the rows at positions [lo, hi): the changes of relative
 * velocity asked. */
static void tree_targets(qp_world *w, qp_joint_tree *t, int mode, int lo, int hi)
{
    for (int p = lo; p < hi; p++) {
        int i = t->joint[p];
        qp_joint *j = &w->joints[i - 1];
        qp_joint_rows scratch;
        const qp_joint_rows *r = rows_of(w, i, &scratch);
        vel v = mode == DRIFT ? pseudo_vel(w, j) : real_vel(w, j);
        qp_vec3 d = mode == DRIFT ? qp__v3_sub(t->drift[p], point_velocity(&v, r)) : point_target(w, j, r, &v, mode);
        t->vec[p][0] = d.x;
        t->vec[p][1] = d.y;
        t->vec[p][2] = d.z;
        int k = 3;
        if (j->type == QP_JOINT_HINGE) {
            fix16_t e0, e1;
            align_target(w, j, r, &v, mode, &e0, &e1);
            t->vec[p][k++] = e0;
            t->vec[p][k++] = e1;
        }
        for (unsigned row = QP_TREE_SWING; row <= QP_TREE_AXIAL; row <<= 1) {
            if (!(t->lim[p] & row)) continue;
            tree_limit l = tree_limit_of(w, j, r, mode, t->lim[p], row);
            t->vec[p][k++] = qp_sat32((int64_t)l.bound - speed_along(&v, r, l.d, false));
        }
    }
}

/* Limit rows of position p whose impulse this pass would pull (bits of lim), given the
 * solve's impulses in vec. */
static unsigned pulling(const qp_world *w, const qp_joint_tree *t, int p)
{
    const qp_joint *j = &w->joints[t->joint[p] - 1];
    unsigned out = 0;
    int k = j->type == QP_JOINT_HINGE ? 5 : 3;
    for (unsigned row = QP_TREE_SWING, a = 0; row <= QP_TREE_AXIAL; row <<= 1, a++) {
        if (!(t->lim[p] & row)) continue;
        int sign = row == QP_TREE_SWING || (t->lim[p] & QP_TREE_UPPER) ? -1 : 1;
        if (sign * ((int64_t)t->acc[p][a] + t->vec[p][k]) < -PULL_SLOP) out |= row;
        k++;
    }
    return out;
}

/* A new pass: its limit rows are those met that it bounds, their impulses from none. */
static bool tree_pass(qp_world *w, qp_joint_tree *t, int mode)
{
    if (t->pass == mode) return true;
    t->pass = mode;
    bool changed = false;
    for (int p = 0; p < t->count; p++) {
        const qp_joint *j = &w->joints[t->joint[p] - 1];
        unsigned lim = t->met[p];
        if (mode == DRIFT) {
            qp_joint_rows scratch;
            const qp_joint_rows *r = rows_of(w, t->joint[p], &scratch);
            t->drift[p] = drift_at_rest(w, j, r);
            for (unsigned row = QP_TREE_SWING; row <= QP_TREE_AXIAL; row <<= 1) {
                if (!(lim & row)) continue;
                tree_limit l = tree_limit_of(w, j, r, mode, lim, row);
                if (l.bound == -l.sign * QP_FIX_MAX) lim &= ~row;   /* a drift bound may be none */
            }
            if (!(lim & QP_TREE_AXIAL)) lim &= ~(unsigned)QP_TREE_UPPER;
        }
        t->acc[p][0] = t->acc[p][1] = 0;
        changed |= lim != t->lim[p];
        t->lim[p] = (uint8_t)lim;
    }
    return !changed || qp__joint_tree_refactor(w, 0, t->count);
}

/* The rows of the joints of the trees at positions [lo, hi) (a span no coupling leaves, or
 * all) at once (solve_joint_tree.c): the equality rows and the limits met (while they push),
 * the targets solve_joint would ask of each, one exact solve, the impulses applied. */
static bool solve_span(qp_world *w, int mode, int lo, int hi)
{
    qp_joint_tree *t = qp__joint_tree(w);
    for (int round = 0;; round++) {
        tree_targets(w, t, mode, lo, hi);
        qp__joint_tree_solve(w, lo, hi);
        bool drop = false;
        for (int p = lo; p < hi; p++) drop |= pulling(w, t, p) != 0;
        if (!drop) break;
        if (round == TREE_ROUNDS - 1) {   /* the last round: what pulls is cut to none */
            for (int p = lo; p < hi; p++) {
                unsigned pull = pulling(w, t, p);
                int k = w->joints[t->joint[p] - 1].type == QP_JOINT_HINGE ? 5 : 3;
                for (unsigned row = QP_TREE_SWING, a = 0; row <= QP_TREE_AXIAL; row <<= 1, a++) {
                    if (!(t->lim[p] & row)) continue;
                    if (pull & row) t->vec[p][k] = -(int64_t)t->acc[p][a];
                    k++;
                }
            }
            break;
        }
        for (int p = lo; p < hi; p++) {
            t->lim[p] = (uint8_t)(t->lim[p] & ~pulling(w, t, p));
            if (!(t->lim[p] & QP_TREE_AXIAL)) t->lim[p] &= (uint8_t)~QP_TREE_UPPER;
        }
        if (!qp__joint_tree_refactor(w, lo, hi)) return false;
    }
    bool any = false;
    for (int p = lo; p < hi; p++) {
        int i = t->joint[p];
        qp_joint *j = &w->joints[i - 1];
        qp_joint_rows scratch;
        qp_joint_rows r_stiff = *rows_of(w, i, &scratch);   /* the tree's inertia (solve_joint_tree.c) */
        r_stiff.ia = t->ia[p][0];
        r_stiff.ib = t->ia[p][1];
        const qp_joint_rows *r = &r_stiff;
        vel v = mode == DRIFT ? pseudo_vel(w, j) : real_vel(w, j);
        const int64_t *x = t->vec[p];
        qp_vec3 pt = qp_v3((fix16_t)x[0], (fix16_t)x[1], (fix16_t)x[2]);
        if (pt.x | pt.y | pt.z) {
            apply_linear(&v, r, pt);
            any = true;
            if (mode == CONTACT) j->jp = qp__v3_add(j->jp, pt);
            note_elastic(j, mode, pt, qp_v3_zero());
        }
        qp_vec3 dir[3];
        int n = qp__joint_tree_dirs(r, j->type, t->lim[p], dir);
        qp_vec3 l = qp_v3_zero();
        for (int k = 0; k < n; k++) l = qp__v3_add(l, qp__v3_scale(dir[k], (fix16_t)x[3 + k]));
        if (!(l.x | l.y | l.z)) continue;
        apply_angular(&v, r, l);
        any = true;
        note_elastic(j, mode, qp_v3_zero(), l);
        int k = 3;
        if (j->type == QP_JOINT_HINGE) {
            if (mode == CONTACT) {
                j->ja[0] = qp_sat32((int64_t)j->ja[0] + (fix16_t)x[3]);
                j->ja[1] = qp_sat32((int64_t)j->ja[1] + (fix16_t)x[4]);
            }
            k = 5;
        }
        for (unsigned row = QP_TREE_SWING, a = 0; row <= QP_TREE_AXIAL; row <<= 1, a++) {
            if (!(t->lim[p] & row)) continue;
            fix16_t dj = (fix16_t)x[k++];
            t->acc[p][a] = qp_sat32((int64_t)t->acc[p][a] + dj);
            if (mode != CONTACT) continue;
            fix16_t *into = row == QP_TREE_SWING ? &j->ja[0] : t->lim[p] & QP_TREE_UPPER ? &j->jhi : &j->jlo;
            *into = qp_sat32((int64_t)*into + dj);
            /* A limit only pushes: a total the solve leaves up to PULL_SLOP on the pulling
             * side is rounding, kept as none (a snapshot holds jlo >= 0 >= jhi). */
            if (into == &j->jlo && j->jlo < 0) j->jlo = 0;
            if (into == &j->jhi && j->jhi > 0) j->jhi = 0;
        }
    }
    return any;
}

/* Every tree at once. */
static bool solve_tree(qp_world *w, int mode)
{
    qp_joint_tree *t = qp__joint_tree(w);
    if (!tree_pass(w, t, mode)) return false;   /* not a tree as ordered: the joints go one at a time */
    return solve_span(w, mode, 0, t->count);
}

/* A contact's visit answered by one span of the trees: each joint's friction, then the exact
 * solve of its rows, its bodies marked moved at visit. */
static bool answer_span(qp_world *w, int lo, int hi, uint32_t visit)
{
    qp_joint_tree *t = qp__joint_tree(w);
    bool any = false;
#if QP_CFG_JOINT_OPTIONS
    for (int p = lo; p < hi; p++) {
        int i = t->joint[p];
        qp_joint *j = &w->joints[i - 1];
        if (j->drive.friction == 0) continue;
        qp_joint_rows scratch;
        vel v = real_vel(w, j);
        any |= friction_rows(w, j, rows_of(w, i, &scratch), &v);
    }
#endif
    any |= solve_span(w, CONTACT, lo, hi);
    if (!any) return false;
    for (int p = lo; p < hi && p < t->count; p++) {
        const qp_joint *j = &w->joints[t->joint[p] - 1];
        qp__quiet_moved(w, j->a, visit);
        qp__quiet_moved(w, j->b, visit);
    }
    return true;
}

/* The contact pass answers a visit that changed a jointed body's velocity with the trees
 * holding its bodies, and only those: between the joints' sweeps, a contact's visit alone
 * answers with its own two bodies' mass while the tree spreads the change over the whole
 * limb, and where a limb bridges from a joint at its friction's bound to a loaded contact
 * the pass's sweeps do not converge (its end state ran round a four-step cycle and the
 * ragdoll never slept: docs/notes/2026-11-29-round.md). */
bool qp__answer_contact(qp_world *w, int a, int b, uint32_t visit)
{
    qp_joint_tree *t = qp__joint_tree(w);
    if (t->count == 0 || t->pass != CONTACT) return false;
    bool any = false;
    for (int lo = 0; lo < t->count;) {
        int hi = qp__joint_tree_span(w, lo);
        if (hi - lo > ANSWER_SPAN) {   /* the joint sweeps' */
            lo = hi;
            continue;
        }
        bool held = false;
        for (int p = lo; p < hi && !held; p++) {
            const qp_joint *j = &w->joints[t->joint[p] - 1];
            held = (a && (j->a == a || j->b == a)) || (b && (j->a == b || j->b == b));
        }
        if (held) any |= answer_span(w, lo, hi, visit);
        lo = hi;
    }
    return any;
}
#endif

bool qp__collide_joints(qp_world *w)
{
    bool any = false;
    for (int o = 0; o < w->joint_count; o++) {
        int i = w->joint_order[o];
        qp_joint *j = &w->joints[i - 1];
        if (!joint_moves(w, j)) continue;
        qp_joint_rows scratch;
        vel v = real_vel(w, j);
        any |= solve_joint(w, j, rows_of(w, i, &scratch), &v, ELASTIC, tree_part(w, i));
    }
    if (qp__joint_tree_count(w) > 0) any |= solve_tree(w, ELASTIC);
    return any;
}

void qp__warm_joints(qp_world *w)
{
    bool warm = w->def.accumulate_impulses && w->def.warm_start;
    for (int o = 0; o < w->joint_count; o++) {
        int i = w->joint_order[o];
        qp_joint *j = &w->joints[i - 1];
#if QP_CFG_JOINT_OPTIONS
        /* Friction starts each step from none; a joint woken within the step has none then. */
        j->drive.jf = qp_v3_zero();
        j->drive.kf = qp_mat3_zero();
        if (j->drive.friction != 0 && j->type == QP_JOINT_CONE && joint_moves(w, j)) {
            qp_joint_rows scratch_f;
            j->drive.kf = angular_block(rows_of(w, i, &scratch_f));
        }
#endif
        if (!joint_moves(w, j)) continue;
        if (!warm) {
            j->jp = qp_v3_zero();
            j->ja[0] = j->ja[1] = j->ja[2] = j->jlo = j->jhi = 0;
#if QP_CFG_JOINT_OPTIONS
            j->drive.jm = j->drive.js = 0;
#endif
            continue;
        }
        qp_joint_rows scratch;
        const qp_joint_rows *r = rows_of(w, i, &scratch);
        vel v = real_vel(w, j);
        if (tree_met(w, i) & QP_TREE_AXIAL) j->jlo = j->jhi = 0;   /* solved in the tree from nothing */
        fix16_t axial = qp_sat32((int64_t)j->jlo + j->jhi + QP__DRIVE(j, jm) + QP__DRIVE(j, js));
        if (j->type == QP_JOINT_DISTANCE) {
            apply_linear(&v, r, qp__v3_scale(r->axis, axial));
            continue;
        }
        if (j->type == QP_JOINT_SLIDER) {
            apply_linear(&v, r, qp__v3_add(j->jp, qp__v3_scale(r->axis, axial)));
            apply_angular(&v, r, qp_v3(j->ja[0], j->ja[1], j->ja[2]));
            continue;
        }
        if (tree_part(w, i)) {
            /* Solved exactly each pass: nothing to start from. Its last impulse has been
             * read (the tree's stiffness); from here jp sums this step's. */
            j->jp = qp_v3_zero();
            j->ja[0] = j->ja[1] = 0;
        }
        apply_linear(&v, r, j->jp);
        if (j->type == QP_JOINT_HINGE)
            apply_angular(&v, r, qp__v3_add(qp__v3_add(qp__v3_scale(r->perp[0], j->ja[0]), qp__v3_scale(r->perp[1], j->ja[1])),
                                           qp__v3_scale(r->axis, axial)));
        else if (j->type == QP_JOINT_FIXED)
            apply_angular(&v, r, qp_v3(j->ja[0], j->ja[1], j->ja[2]));
        else if (j->type == QP_JOINT_CONE)
            apply_angular(&v, r, qp__v3_add(qp__v3_scale(r->tilt, j->ja[0]), qp__v3_scale(r->axis, axial)));
    }
}


bool qp__solve_joints(qp_world *w, bool reverse)
{
    bool any = false;
    int sweeps = sweeps_of(w);
    for (int o = 0; o < w->joint_count * sweeps; o++) {
        if (o > 0 && o % w->joint_count == 0) reverse = !reverse;   /* there and back */
        int k = o % w->joint_count;
        int i = w->joint_order[reverse ? w->joint_count - 1 - k : k];
        bool trees = o / w->joint_count < TREE_JOINT_SWEEPS;
        qp_joint *j = &w->joints[i - 1];
        unsigned tree = tree_part(w, i);
        if (joint_moves(w, j) && (trees || !tree)) {
            qp_joint_rows scratch;
            vel v = real_vel(w, j);
            any |= solve_joint(w, j, rows_of(w, i, &scratch), &v, CONTACT, tree);
        }
        if (k == w->joint_count - 1 && trees && qp__joint_tree_count(w) > 0) any |= solve_tree(w, CONTACT);
    }
    return any;
}

bool qp__drift_joints(qp_world *w)
{
    bool any = false;
    int sweeps = sweeps_of(w);
    for (int o = 0; o < w->joint_count * sweeps; o++) {
        int k = o % w->joint_count;
        int i = w->joint_order[(o / w->joint_count) & 1 ? w->joint_count - 1 - k : k];
        qp_joint *j = &w->joints[i - 1];
        if (joint_drifts(w, j)) {
            qp_joint_rows scratch;
            vel v = pseudo_vel(w, j);
            any |= solve_joint(w, j, rows_of(w, i, &scratch), &v, DRIFT, tree_part(w, i));
        }
        if (k == w->joint_count - 1 && qp__joint_tree_count(w) > 0) any |= solve_tree(w, DRIFT);
    }
    return any;
}

bool qp__drift_trees(qp_world *w) { return qp__joint_tree_count(w) > 0 && solve_tree(w, DRIFT); }

/* ---- loads and breaking ------------------------------------------------------------------ */

/* The impulse the joint applied to b in its last step: its accumulated rows (as the warm
 * start applies them), plus the size of what the collision pass applied. */
static fix16_t step_load(const qp_joint *j, const qp_joint_rows *r)
{
    fix16_t axial = qp_sat32((int64_t)j->jlo + j->jhi + QP__DRIVE(j, jm) + QP__DRIVE(j, js));
    qp_vec3 lin = j->jp, ang = qp_v3_zero();
    switch (j->type) {
    case QP_JOINT_DISTANCE: lin = qp__v3_scale(r->axis, axial); break;
    case QP_JOINT_SLIDER:
        lin = qp__v3_add(lin, qp__v3_scale(r->axis, axial));
        ang = qp_v3(j->ja[0], j->ja[1], j->ja[2]);
        break;
    case QP_JOINT_FIXED: ang = qp_v3(j->ja[0], j->ja[1], j->ja[2]); break;
    case QP_JOINT_HINGE:
        ang = qp__v3_add(qp__v3_add(qp__v3_scale(r->perp[0], j->ja[0]), qp__v3_scale(r->perp[1], j->ja[1])),
                        qp__v3_scale(r->axis, axial));
        break;
    case QP_JOINT_CONE: ang = qp__v3_add(qp__v3_scale(r->tilt, j->ja[0]), qp__v3_scale(r->axis, axial)); break;
    default: break;
    }
    return qp_sat32((int64_t)qp_v3_len(qp_v3(qp_v3_len(lin), qp_v3_len(ang), 0)) + QP__DRIVE(j, jel));
}

fix16_t qp__joint_load(const qp_world *w, const qp_joint *j)
{
    qp_joint_rows r;
    qp__joint_rows(w, j, &r);
    return step_load(j, &r);
}

void qp__break_joints(qp_world *w)
{
#if QP_CFG_JOINT_OPTIONS
    for (int i = 1; i <= qp__cap_joints(w) && w->joint_count > 0; i++) {
        qp_joint *j = &w->joints[i - 1];
        if (j->a == 0 || j->drive.break_impulse == 0 || !joint_moves(w, j)) continue;
        qp_joint_rows scratch;
        fix16_t load = step_load(j, rows_of(w, i, &scratch));
        if (load > j->drive.break_impulse) {
            qp__event_joint(w, i, load);
            qp__free_joint(w, i);
        }
    }
#else
    (void)w;
#endif
}
