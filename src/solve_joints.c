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
 * it; a distance joint is one row along the line between its points. Limit
 * rows are speculative: a joint short of its limit by C may approach it at
 * C/dt, so it stops at the limit instead of crossing it first.
 *
 * Arithmetic is Q16.16 through the math layer (saturating): arms are at most
 * 100 m (joint.c), inverse inertia at most 10 000 (body.c).
 */
#include "geometry.h"
#include "joint.h"
#include "joint_tree.h"
#include "layout.h"
#include "scratch.h"
#include "solver.h"

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

void qp__joint_rows(const qp_world *w, const qp_joint *j, qp_joint_rows *r)
{
    const qp_body_state *a = &w->bodies[j->a], *b = &w->bodies[j->b];
    qp_rot3 rota = qp__body_rot(a), rotb = qp__body_rot(b);
    r->ra = qp_rot3_mul_v3(&rota, j->la);
    r->rb = qp_rot3_mul_v3(&rotb, j->lb);
    bool ma = body_can_move(a), mb = body_can_move(b);
    r->ia = ma ? qp__body_inv_inertia(a) : qp_mat3_zero();
    r->ib = mb ? qp__body_inv_inertia(b) : qp_mat3_zero();
    r->ma = ma ? a->inv_mass : 0;
    r->mb = mb ? b->inv_mass : 0;
    r->gap = qp_v3_sub(qp_v3_add(b->x, r->rb), qp_v3_add(a->x, r->ra));
    r->value = 0;
    r->axis = r->tilt = qp_v3_zero();
    r->perp[0] = r->perp[1] = qp_v3_zero();
    r->m_perp[0][0] = r->m_perp[0][1] = r->m_perp[1][0] = r->m_perp[1][1] = 0;
    r->m_axis = 0;
    r->k_inv = qp_mat3_zero();
    if (j->type == QP_JOINT_DISTANCE) {
        r->value = qp_v3_len(r->gap);
        if (!qp_v3_normalize(r->gap, &r->axis)) return;
        qp_vec3 ca = qp_v3_cross(r->ra, r->axis), cb = qp_v3_cross(r->rb, r->axis);
        int64_t k = (int64_t)r->ma + r->mb + qp_v3_dot(ca, qp_mat3_mul_v3(&r->ia, ca)) +
                    qp_v3_dot(cb, qp_mat3_mul_v3(&r->ib, cb));
        r->m_axis = inverse_of(k);
        return;
    }
    /* Point rows: K e_i = (ma + mb) e_i - ra x (Ia (ra x e_i)) - rb x (Ib (rb x e_i)). */
    qp_mat3 k;
    for (int i = 0; i < 3; i++) {
        qp_vec3 e = qp_v3(i == 0 ? QP_ONE : 0, i == 1 ? QP_ONE : 0, i == 2 ? QP_ONE : 0);
        qp_vec3 col = qp_v3_scale(e, qp_sat32((int64_t)r->ma + r->mb));
        col = qp_v3_sub(col, qp_v3_cross(r->ra, qp_mat3_mul_v3(&r->ia, qp_v3_cross(r->ra, e))));
        col = qp_v3_sub(col, qp_v3_cross(r->rb, qp_mat3_mul_v3(&r->ib, qp_v3_cross(r->rb, e))));
        k.m[0][i] = col.x;
        k.m[1][i] = col.y;
        k.m[2][i] = col.z;
    }
    if (!qp_mat3_inverse(&k, &r->k_inv)) r->k_inv = qp_mat3_zero();
    if (j->type != QP_JOINT_HINGE) return;
    qp_vec3 na = qp_rot3_mul_v3(&rota, j->axis_a), nb = qp_rot3_mul_v3(&rotb, j->axis_b);   /* Q2.30 */
    qp_vec3 pa = qp_rot3_mul_v3(&rota, j->ref_a), pb = qp_rot3_mul_v3(&rotb, j->ref_b);
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
    qp_vec3 ip0 = qp_mat3_mul_v3(&isum, r->perp[0]), ip1 = qp_mat3_mul_v3(&isum, r->perp[1]);
    int64_t k00 = qp_v3_dot(r->perp[0], ip0), k01 = qp_v3_dot(r->perp[0], ip1);
    int64_t k10 = qp_v3_dot(r->perp[1], ip0), k11 = qp_v3_dot(r->perp[1], ip1);
    int64_t det = k00 * k11 - k01 * k10;   /* Q32 */
    if (det > 0) {
        r->m_perp[0][0] = qp_sat32((k11 * 4294967296LL) / det);
        r->m_perp[0][1] = qp_sat32((-k01 * 4294967296LL) / det);
        r->m_perp[1][0] = qp_sat32((-k10 * 4294967296LL) / det);
        r->m_perp[1][1] = qp_sat32((k00 * 4294967296LL) / det);
    }
    r->m_axis = inverse_of(qp_v3_dot(r->axis, qp_mat3_mul_v3(&isum, r->axis)));
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
    qp_vec3 pb = qp_v3_add(*v->vb, qp_v3_cross(*v->wb, r->rb));
    qp_vec3 pa = qp_v3_add(*v->va, qp_v3_cross(*v->wa, r->ra));
    return qp_v3_sub(pb, pa);
}

/* Impulse p at the points: -p on a, +p on b. */
static void apply_linear(const vel *v, const qp_joint_rows *r, qp_vec3 p)
{
    *v->va = qp_v3_sub(*v->va, qp_v3_scale(p, r->ma));
    *v->wa = qp_v3_sub(*v->wa, qp_mat3_mul_v3(&r->ia, qp_v3_cross(r->ra, p)));
    *v->vb = qp_v3_add(*v->vb, qp_v3_scale(p, r->mb));
    *v->wb = qp_v3_add(*v->wb, qp_mat3_mul_v3(&r->ib, qp_v3_cross(r->rb, p)));
}

/* Angular impulse l: -l on a, +l on b. */
static void apply_angular(const vel *v, const qp_joint_rows *r, qp_vec3 l)
{
    *v->wa = qp_v3_sub(*v->wa, qp_mat3_mul_v3(&r->ia, l));
    *v->wb = qp_v3_add(*v->wb, qp_mat3_mul_v3(&r->ib, l));
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
 * angular): speed s must stay >= lo (sign +1) or <= hi (sign -1). *acc is the
 * accumulated impulse (CONTACT) or null (one push that only acts one way). */
static bool bound_row(const vel *v, const qp_joint_rows *r, qp_vec3 d, bool linear, fix16_t s, fix16_t target,
                      int sign, fix16_t *acc)
{
    fix16_t j = qp__mul(qp_sat32((int64_t)target - s), r->m_axis);
    if (acc) {
        fix16_t total = qp_sat32((int64_t)*acc + j);
        if (sign * (int64_t)total < 0) total = 0;
        j = total - *acc;
        *acc = total;
    } else if (sign * (int64_t)j < 0) {
        j = 0;
    }
    if (j == 0) return false;
    if (linear) apply_linear(v, r, qp_v3_scale(d, j));
    else apply_angular(v, r, qp_v3_scale(d, j));
    return true;
}

/* The gap between the points after the position update (integrate.c's formulas) at the
 * real velocities plus the split-impulse ones in v. */
static qp_vec3 predicted_gap(const qp_world *w, const qp_joint *j, const qp_joint_rows *r, const vel *pv)
{
    fix16_t dt = w->def.dt;
    qp_vec3 end[2];
    for (int k = 0; k < 2; k++) {
        const qp_body_state *b = &w->bodies[k == 0 ? j->a : j->b];
        qp_vec3 pos = k == 0 ? qp_v3_add(b->x, r->ra) : qp_v3_add(b->x, r->rb);
        if (!qp__body_moves(b)) { end[k] = pos; continue; }
        qp_vec3 vl = b->v, omega = b->w;
        qp__clamp_speed(&vl, w->def.max_linear_speed);
        qp__clamp_speed(&omega, w->def.max_angular_speed);
        vl = qp_v3_add(vl, k == 0 ? *pv->va : *pv->vb);
        omega = qp_v3_add(omega, k == 0 ? *pv->wa : *pv->wb);
        qp_rot3 rot = qp_quat_to_rot3(qp_quat_integrate(b->q, omega, dt));
        end[k] = qp_v3_add(qp_v3_mad(b->x, vl, dt), qp_rot3_mul_v3(&rot, k == 0 ? j->la : j->lb));
    }
    return qp_v3_sub(end[1], end[0]);
}

/* The change of the points' relative velocity the point rows ask for (DRIFT: toward the
 * gap kept this step; otherwise to zero), Q16.16. */
static qp_vec3 point_target(const qp_world *w, const qp_joint *j, const qp_joint_rows *r, const vel *v, int mode)
{
    if (mode != DRIFT) return qp_v3_neg(point_velocity(v, r));
    /* Where the position update would take the points at the velocities plus the split
     * impulses so far: the change asked is what brings that end gap to the present gap
     * less its share for this step (nonlinear Gauss-Seidel: each sweep predicts anew). */
    fix16_t dt = w->def.dt;
    qp_vec3 end = predicted_gap(w, j, r, v);
    fix16_t len = qp_v3_len(r->gap);
    qp_vec3 keep = r->gap;
    if (len > 0) keep = qp_v3_sub(r->gap, qp_v3_scale(r->gap, qp_div(qp_mul(drift_speed(w, j, len), dt), len)));
    qp_vec3 dv = qp_v3_scale(qp_v3_sub(keep, end), qp_div(QP_ONE, dt));
    qp__clamp_speed(&dv, w->def.max_linear_speed);
    return dv;
}

#if QP_CFG_JOINT_TREE
/* point_target's drift with the end gap taken at no split impulse and the split impulses'
 * own relative velocity subtracted: linear in them, so that the tree's exact solve meets it
 * in one step (its nonlinear form, re-predicted at each solve, diverged on a whipping chain:
 * the solve's large turns of a link about its long axis moved no anchor in the linear model
 * and swung them in the predicted one). */
static qp_vec3 drift_target_linear(const qp_world *w, const qp_joint *j, const qp_joint_rows *r, const vel *v)
{
    qp_vec3 zero[4] = { qp_v3_zero(), qp_v3_zero(), qp_v3_zero(), qp_v3_zero() };
    vel none = { &zero[0], &zero[1], &zero[2], &zero[3] };
    qp_vec3 d = point_target(w, j, r, &none, DRIFT);
    return qp_v3_sub(d, point_velocity(v, r));
}
#endif

/* The change of the relative spin across a hinge's axis its alignment rows ask for. */
static void align_target(const qp_world *w, const qp_joint *j, const qp_joint_rows *r, const vel *v, int mode,
                         fix16_t *e0, fix16_t *e1)
{
    qp_vec3 rel = qp_v3_sub(*v->wb, *v->wa);
    *e0 = -qp_v3_dot(rel, r->perp[0]);
    *e1 = -qp_v3_dot(rel, r->perp[1]);
    if (mode == DRIFT) {
        *e0 = qp_sat32((int64_t)*e0 + drift_speed(w, j, qp_v3_dot(r->tilt, r->perp[0])));
        *e1 = qp_sat32((int64_t)*e1 + drift_speed(w, j, qp_v3_dot(r->tilt, r->perp[1])));
    }
}

/* One joint's rows; its equality rows (point, alignment) only when `equality` (a joint of
 * a tree has them solved with the tree's, solve_tree). */
static bool solve_joint(const qp_world *w, qp_joint *j, const qp_joint_rows *r, const vel *v, int mode,
                        bool equality)
{
    bool any = false;
    fix16_t dt = w->def.dt;
    fix16_t *lo_acc = mode == CONTACT ? &j->jlo : 0, *hi_acc = mode == CONTACT ? &j->jhi : 0;
    if (j->type == QP_JOINT_DISTANCE) {
        if (r->value < QP_MM(1)) return false;   /* no direction */
        qp_vec3 d = r->axis;
        fix16_t s = qp_v3_dot(point_velocity(v, r), d);
        fix16_t over = qp_sat32((int64_t)r->value - j->upper), under = qp_sat32((int64_t)j->lower - r->value);
        /* max: s <= (upper - L) / dt while slack, pulled back in the drift pass when over. */
        fix16_t hi = mode == DRIFT ? (over > 0 ? -drift_speed(w, j, over) : QP_FIX_MAX)
                                   : (over < 0 ? qp_div(-over, dt) : 0);
        if (hi != QP_FIX_MAX) any |= bound_row(v, r, d, true, s, hi, -1, hi_acc);
        if (j->lower > 0) {
            s = qp_v3_dot(point_velocity(v, r), d);
            fix16_t lo = mode == DRIFT ? (under > 0 ? drift_speed(w, j, under) : -QP_FIX_MAX)
                                       : (under < 0 ? -qp_div(-under, dt) : 0);
            if (lo != -QP_FIX_MAX) any |= bound_row(v, r, d, true, s, lo, 1, lo_acc);
        }
        return any;
    }
    /* Point rows: no relative velocity of the points. In the drift pass the gap the
     * position update would open (a fast turn's second-order term, what the velocity rows
     * left) is cancelled whole, and the gap already open is closed over drift_time. */
    if (equality) {
        qp_vec3 p = qp_mat3_mul_v3(&r->k_inv, point_target(w, j, r, v, mode));
        if (p.x | p.y | p.z) {
            apply_linear(v, r, p);
            any = true;
            if (mode == CONTACT) j->jp = qp_v3_add(j->jp, p);
        }
    }
    if (j->type != QP_JOINT_HINGE) return any;
    /* Alignment rows: no relative turn across the axis (and b's axis turned back to a's). */
    fix16_t e0, e1;
    align_target(w, j, r, v, mode, &e0, &e1);
    fix16_t l0 = qp_sat32((int64_t)qp__mul(r->m_perp[0][0], e0) + qp__mul(r->m_perp[0][1], e1));
    fix16_t l1 = qp_sat32((int64_t)qp__mul(r->m_perp[1][0], e0) + qp__mul(r->m_perp[1][1], e1));
    if (equality && (l0 | l1)) {
        apply_angular(v, r, qp_v3_add(qp_v3_scale(r->perp[0], l0), qp_v3_scale(r->perp[1], l1)));
        any = true;
        if (mode == CONTACT) {
            j->ja[0] = qp_sat32((int64_t)j->ja[0] + l0);
            j->ja[1] = qp_sat32((int64_t)j->ja[1] + l1);
        }
    }
    if (!(j->flags & QP_JOINT_LIMIT)) return any;
    /* Limits along the axis: angle >= lower, angle <= upper. The angle wraps at +-pi, so a
     * limit within 0.01 rad of it is no limit (it would hold a hinge turning through pi). */
    fix16_t above = qp_sat32((int64_t)r->value - j->lower), below = qp_sat32((int64_t)j->upper - r->value);
    fix16_t s = qp_v3_dot(qp_v3_sub(*v->wb, *v->wa), r->axis);
    fix16_t lo = mode == DRIFT ? (above < 0 ? drift_speed(w, j, -above) : -QP_FIX_MAX)
                               : (above > 0 ? -qp_div(above, dt) : 0);
    if (j->lower > -PI_WRAP && lo != -QP_FIX_MAX) any |= bound_row(v, r, r->axis, false, s, lo, 1, lo_acc);
    s = qp_v3_dot(qp_v3_sub(*v->wb, *v->wa), r->axis);
    fix16_t hi = mode == DRIFT ? (below < 0 ? -drift_speed(w, j, -below) : QP_FIX_MAX)
                               : (below > 0 ? qp_div(below, dt) : 0);
    if (j->upper < PI_WRAP && hi != QP_FIX_MAX) any |= bound_row(v, r, r->axis, false, s, hi, -1, hi_acc);
    return any;
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

static bool shares_body(const qp_joint *x, const qp_joint *y)
{
    return x->a == y->a || x->a == y->b || x->b == y->a || x->b == y->b;
}

/* Rows of every live joint, and the order: breadth first from the joints that
 * hold a static (or frozen) body, through shared bodies; the rest after, by index. */
void qp__prepare_joints(qp_world *w)
{
    if (w->joint_count == 0) return;
    int n = 0;
    for (int i = 1; i <= QP_CFG_MAX_JOINTS; i++) {
        qp_joint *j = &w->joints[i - 1];
        if (j->a == 0) continue;
        qp__joint_rows_keep(w, i);
        if (!qp__body_dynamic(&w->bodies[j->a]) || !qp__body_dynamic(&w->bodies[j->b]))
            w->joint_order[n++] = (uint16_t)i;
    }
    for (int head = 0;; head++) {
        if (head == n) {   /* an island with no static body: start it at its lowest index */
            int next = 0;
            for (int i = 1; i <= QP_CFG_MAX_JOINTS && !next; i++) {
                if (w->joints[i - 1].a == 0) continue;
                bool listed = false;
                for (int k = 0; k < n && !listed; k++) listed = w->joint_order[k] == i;
                if (!listed) next = i;
            }
            if (!next) break;
            w->joint_order[n++] = (uint16_t)next;
        }
        const qp_joint *u = &w->joints[w->joint_order[head] - 1];
        for (int i = 1; i <= QP_CFG_MAX_JOINTS; i++) {
            if (w->joints[i - 1].a == 0 || !shares_body(u, &w->joints[i - 1])) continue;
            bool listed = false;
            for (int k = 0; k < n && !listed; k++) listed = w->joint_order[k] == i;
            if (!listed) w->joint_order[n++] = (uint16_t)i;
        }
    }
    (void)qp__joint_tree_prepare(w);
}

static bool in_tree(const qp_world *w, int slot)
{
#if QP_CFG_JOINT_TREE
    return qp__joint_tree(w)->count > 0 && qp__joint_tree(w)->pos[slot - 1] != 0;
#else
    (void)w;
    (void)slot;
    return false;
#endif
}

#if !QP_CFG_JOINT_TREE
static bool solve_tree(qp_world *w, int mode)
{
    (void)w;
    (void)mode;
    return false;
}
#else

/* The equality rows of every joint of the trees at once (solve_joint_tree.c): the targets
 * solve_joint would ask of each, one exact solve, the impulses applied. */
static bool solve_tree(qp_world *w, int mode)
{
    qp_joint_tree *t = qp__joint_tree(w);
    for (int p = 0; p < t->count; p++) {
        int i = t->joint[p];
        qp_joint *j = &w->joints[i - 1];
        qp_joint_rows scratch;
        const qp_joint_rows *r = rows_of(w, i, &scratch);
        vel v = mode == DRIFT ? pseudo_vel(w, j) : real_vel(w, j);
        qp_vec3 d = mode == DRIFT ? drift_target_linear(w, j, r, &v) : point_target(w, j, r, &v, mode);
        t->vec[p][0] = d.x;
        t->vec[p][1] = d.y;
        t->vec[p][2] = d.z;
        if (j->type == QP_JOINT_HINGE) {
            fix16_t e0, e1;
            align_target(w, j, r, &v, mode, &e0, &e1);
            t->vec[p][3] = e0;
            t->vec[p][4] = e1;
        }
    }
    qp__joint_tree_solve(w);
    bool any = false;
    for (int p = 0; p < t->count; p++) {
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
            if (mode == CONTACT) j->jp = qp_v3_add(j->jp, pt);
        }
        if (j->type != QP_JOINT_HINGE || !(x[3] | x[4])) continue;
        fix16_t l0 = (fix16_t)x[3], l1 = (fix16_t)x[4];
        apply_angular(&v, r, qp_v3_add(qp_v3_scale(r->perp[0], l0), qp_v3_scale(r->perp[1], l1)));
        any = true;
        if (mode == CONTACT) {
            j->ja[0] = qp_sat32((int64_t)j->ja[0] + l0);
            j->ja[1] = qp_sat32((int64_t)j->ja[1] + l1);
        }
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
        any |= solve_joint(w, j, rows_of(w, i, &scratch), &v, ELASTIC, !in_tree(w, i));
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
        if (!joint_moves(w, j)) continue;
        if (!warm) {
            j->jp = qp_v3_zero();
            j->ja[0] = j->ja[1] = j->jlo = j->jhi = 0;
            continue;
        }
        qp_joint_rows scratch;
        const qp_joint_rows *r = rows_of(w, i, &scratch);
        vel v = real_vel(w, j);
        fix16_t axial = qp_sat32((int64_t)j->jlo + j->jhi);
        if (j->type == QP_JOINT_DISTANCE) {
            apply_linear(&v, r, qp_v3_scale(r->axis, axial));
            continue;
        }
        if (in_tree(w, i)) {
            /* Solved exactly each pass: nothing to start from. Its last impulse has been
             * read (the tree's stiffness); from here jp sums this step's. */
            j->jp = qp_v3_zero();
            j->ja[0] = j->ja[1] = 0;
        }
        apply_linear(&v, r, j->jp);
        if (j->type == QP_JOINT_HINGE)
            apply_angular(&v, r, qp_v3_add(qp_v3_add(qp_v3_scale(r->perp[0], j->ja[0]), qp_v3_scale(r->perp[1], j->ja[1])),
                                           qp_v3_scale(r->axis, axial)));
    }
}

/* Joint sweeps per sweep of the contact and penetration passes: a chain of n links needs
 * about n Gauss-Seidel sweeps for a pull at one end to reach the other, and joints are
 * few and cheap next to contacts. */
#define JOINT_SWEEPS 4

bool qp__solve_joints(qp_world *w, bool reverse)
{
    bool any = false;
    for (int o = 0; o < w->joint_count * JOINT_SWEEPS; o++) {
        if (o > 0 && o % w->joint_count == 0) reverse = !reverse;   /* there and back */
        int k = o % w->joint_count;
        int i = w->joint_order[reverse ? w->joint_count - 1 - k : k];
        qp_joint *j = &w->joints[i - 1];
        if (joint_moves(w, j)) {
            qp_joint_rows scratch;
            vel v = real_vel(w, j);
            any |= solve_joint(w, j, rows_of(w, i, &scratch), &v, CONTACT, !in_tree(w, i));
        }
        if (k == w->joint_count - 1 && qp__joint_tree_count(w) > 0) any |= solve_tree(w, CONTACT);
    }
    return any;
}

bool qp__drift_joints(qp_world *w)
{
    bool any = false;
    for (int o = 0; o < w->joint_count * JOINT_SWEEPS; o++) {
        int k = o % w->joint_count;
        int i = w->joint_order[(o / w->joint_count) & 1 ? w->joint_count - 1 - k : k];
        qp_joint *j = &w->joints[i - 1];
        if (joint_drifts(w, j)) {
            qp_joint_rows scratch;
            vel v = pseudo_vel(w, j);
            any |= solve_joint(w, j, rows_of(w, i, &scratch), &v, DRIFT, !in_tree(w, i));
        }
        if (k == w->joint_count - 1 && qp__joint_tree_count(w) > 0) any |= solve_tree(w, DRIFT);
    }
    return any;
}
