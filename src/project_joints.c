/* SPDX-License-Identifier: MIT */
/* Stage "project": the joint trees closed at the new poses (qp_world_def.joint_tree).
 *
 * The velocity passes hold a joint's points together to first order over the step: a link
 * turning by an angle t in a step moves its anchor along an arc, and its chord misses the
 * tangent by about |r| t^2 / 2 (0.25 m arms at 50 rad/s: 9 cm a step). The whip at the free
 * end of a long chain turns that fast, and the drift pass, linear too, leaves it open.
 *
 * Here the gaps are measured after the position update and closed by moving the poses only
 * (post-stabilisation, Cline and Pai 2003): with the joint rows taken at the new poses and
 * the bodies' own mass and inertia, the tree's exact solve (solve_joint_tree.c) gives the
 * displacement of least kinetic metric that closes every gap to first order, J M^-1 J^T
 * lambda = -C, applied as dx = M^-1 J^T lambda. The error left is second order in the
 * correction, so a second round closes a gap of centimetres to micrometres. Velocities are
 * untouched: the projection adds no momentum and no kinetic energy.
 *
 * Gaps of at most PROJECT_SLOP are left to the drift pass (split impulses over drift_time):
 * a resting ragdoll's small steady gaps never move it, and what sleeps stays asleep.
 */
#include "body.h"
#include "joint.h"
#include "joint_tree.h"
#include "scratch.h"
#include "stages.h"
#include "math_inline.h"

#if !QP_CFG_JOINT_TREE
void qp__project_joints(qp_world *w) { (void)w; }
#else

#define PROJECT_ROUNDS 2
#define PROJECT_SLOP QP_MM(1)

/* The position error of tree position p's rows at the present poses, negated into the
 * tree's right-hand side (Q16.16); the largest of its gap's components and, for a hinge,
 * of its axes' misalignment (rad, times 1 m) is returned. */
static fix16_t load_error(qp_world *w, qp_joint_tree *t, int p)
{
    const qp_joint *j = &w->joints[t->joint[p] - 1];
    qp_joint_rows r;
    fix16_t err[2];
    qp__joint_tree_rows_now(w, j, &r, err);
    t->vec[p][0] = -(int64_t)r.gap.x;
    t->vec[p][1] = -(int64_t)r.gap.y;
    t->vec[p][2] = -(int64_t)r.gap.z;
    fix16_t worst = qp__v3_max_abs(r.gap);
    for (int k = 0; k < 2 && t->rows[p] == 5; k++) {
        /* A hinge: turning b by the tilt n_b x n_a (less any turn of a) lays its axis on
         * a's. A cone: the turn that brings its swing or twist back to its limit. */
        fix16_t e = j->type == QP_JOINT_HINGE ? qp_v3_dot(r.tilt, r.perp[k]) : err[k];
        t->vec[p][3 + k] = e;
        fix16_t size = e < 0 ? qp_sat32(-(int64_t)e) : e;
        if (size > worst) worst = size;
    }
    return worst;
}

/* Adds tree position p's share of the displacement M^-1 J^T lambda to its bodies'
 * accumulators (the split scratch's pseudo-velocities, dead after the position update). */
static void spread(qp_world *w, const qp_joint_tree *t, int p)
{
    const qp_joint *j = &w->joints[t->joint[p] - 1];
    qp_joint_rows r;
    fix16_t err[2];
    qp__joint_tree_rows_now(w, j, &r, err);
    const int64_t *x = t->vec[p];
    qp_vec3 lin = qp_v3((fix16_t)x[0], (fix16_t)x[1], (fix16_t)x[2]);
    qp_vec3 ang = qp_v3_zero();
    if (t->rows[p] == 5)
        ang = qp_v3_add(qp_v3_scale(r.perp[0], (fix16_t)x[3]), qp_v3_scale(r.perp[1], (fix16_t)x[4]));
    for (int side = 0; side < 2; side++) {
        int body = side ? j->b : j->a;
        if (!qp__body_moves(&w->bodies[body])) continue;
        fix16_t *acc = qp__split(w)->pseudo_v[body];
        qp_vec3 turn = qp_v3_add(qp_v3_cross(side ? r.rb : r.ra, lin), ang);
        qp_vec3 dx = qp_v3_scale(lin, side ? r.mb : r.ma);
        qp_vec3 dq = qp_mat3_mul_v3(side ? &r.ib : &r.ia, turn);
        int sign = side ? 1 : -1;
        acc[0] = qp_sat32((int64_t)acc[0] + sign * (int64_t)dx.x);
        acc[1] = qp_sat32((int64_t)acc[1] + sign * (int64_t)dx.y);
        acc[2] = qp_sat32((int64_t)acc[2] + sign * (int64_t)dx.z);
        acc[3] = qp_sat32((int64_t)acc[3] + sign * (int64_t)dq.x);
        acc[4] = qp_sat32((int64_t)acc[4] + sign * (int64_t)dq.y);
        acc[5] = qp_sat32((int64_t)acc[5] + sign * (int64_t)dq.z);
    }
}

/* Moves body i by its accumulated displacement (once: the accumulator is emptied). */
static void move_body(qp_world *w, int i)
{
    qp_body_state *b = &w->bodies[i];
    fix16_t *acc = qp__split(w)->pseudo_v[i];
    if (!(acc[0] | acc[1] | acc[2] | acc[3] | acc[4] | acc[5])) return;
    b->x = qp_v3_add(b->x, qp_v3(acc[0], acc[1], acc[2]));
    b->q = qp_quat_integrate(b->q, qp_v3(acc[3], acc[4], acc[5]), QP_ONE);
    qp__body_sync(b);
    b->state = (uint16_t)(b->state & ~QP_STATE_STILL);   /* its manifolds are found anew */
    for (int k = 0; k < 6; k++) acc[k] = 0;
    if (qp__v3_max_abs(b->x) > w->def.bounds) {
        b->state |= QP_STATE_FROZEN;
        b->flags |= QP_FLAG_OUT_OF_BOUNDS;
        b->v = b->w = qp_v3_zero();
    }
    qp_rot3 r = qp__body_rot(b);
    qp__body_update_aabbs(w, i, &b->x, &r);
}

void qp__project_joints(qp_world *w)
{
    for (int round = 0; round < PROJECT_ROUNDS; round++) {
        if (!qp__joint_tree_factor_now(w)) break;
        qp_joint_tree *t = qp__joint_tree(w);
        fix16_t worst = 0;
        for (int p = 0; p < t->count; p++) {
            fix16_t e = load_error(w, t, p);
            if (e > worst) worst = e;
        }
        if (worst <= PROJECT_SLOP) break;
        qp__joint_tree_solve(w);
        for (int p = 0; p < t->count; p++) {
            const qp_joint *j = &w->joints[t->joint[p] - 1];
            for (int k = 0; k < 6; k++) qp__split(w)->pseudo_v[j->a][k] = qp__split(w)->pseudo_v[j->b][k] = 0;
        }
        for (int p = 0; p < t->count; p++) spread(w, t, p);
        for (int p = 0; p < t->count; p++) {
            const qp_joint *j = &w->joints[t->joint[p] - 1];
            move_body(w, j->a);
            move_body(w, j->b);
        }
    }
}
#endif
