/* SPDX-License-Identifier: MIT */
/* Stage "project": the joint trees closed at the new poses (qp_world_def.joint_tree).
 *
 * The velocity passes hold a joint's points together to first order over the step: a link
 * turning by an angle t in a step moves its anchor along an arc, and its chord misses the
 * tangent by about |r| t^2 / 2 (0.25 m arms at 50 rad/s: 9 cm a step). The whip at the free
 * end of a long chain turns that fast, and the drift pass, linear too, leaves it open.
 *
 * Here the gaps are measured after the position update and closed by moving the poses only
 * (post-stabilisation, Cline and Pai 2003): with the joint rows taken at the new poses, the
 * bodies' own mass and their inertia stiffened as for the velocity passes, the tree's exact
 * solve (solve_joint_tree.c) gives the displacement of least kinetic metric that closes every
 * gap to first order, J M^-1 J^T lambda = -C, applied as dx = M^-1 J^T lambda. The error left
 * is second order in the correction, so a second round closes a gap of centimetres to
 * micrometres. The stiffness makes turning a link cost what the joints' pull on it makes it
 * cost: a light link between a post and a heavy end is moved more and turned less, where with
 * its own inertia the first-order turns overshot round after round and the chain opened (fresh
 * chains of 30 light links under 100 kg to 1 t: 50 of 60 hold, 29 with their own inertia).
 * Velocities are untouched: the projection adds no momentum and no kinetic energy. A joint's
 * rows are its point, a hinge's axis and, past their limits, a cone's swing and twist and a
 * hinge's angle (qp__joint_tree_rows_now): a limit met in one round can make another active in
 * the next, so there are up to PROJECT_ROUNDS. Most steps need one or two; a hard landing can
 * take five or more (with four, a knee was left 3.9 degrees past its limit and a joint 4.7 mm
 * open for a step), and the rounds stop once nothing is left past its slop. A long chain
 * whipping, under a heavy end or not, takes up to dozens: a round's first-order move closes
 * its gaps by only a fraction (a 100-link chain's 10 cm, to within 1 mm in 16 rounds, some
 * rounds widening them again). With 8 rounds such gaps were left open and grew step after step
 * (20 links under 100 kg, 100 links swung from horizontal: opened by metres); with 64 and the
 * stiffened inertia, 70 of 70 fresh long chains (12 to 60 links, ends of 0, 10 or 100 kg) hold
 * within 1 cm, against 56 with 8 rounds and their own inertia.
 * Rows that cannot all hold (a path of joints between two static bodies pulled apart) never
 * close, and every round moves their bodies by a bound (round_excess): at most SCALED_ROUNDS
 * such rounds a step, so that those bodies move no further a step than with 8 rounds (two
 * boxes between fighting joints: 64 such rounds threw them 25 m, 8 rounds 13 m).
 *
 * An error is moved only once past its slop (PROJECT_SLOP of a gap, ANGLE_SLOP of an angle),
 * and then whole; smaller ones are left to the drift pass (split impulses over drift_time). A
 * resting ragdoll lies on its limits with gaps well under a millimetre: nothing moves it and
 * it sleeps. Moving only the excess past the slop would hold its gaps at the slop and move
 * them a little every step: the three-ragdoll demo stays awake so.
 *
 * The multipliers of a displacement are small (a forearm's 0.002 rad is 4e-6 kg m^2 rad,
 * a quarter of Q16.16's step): the errors are solved 2^PROJECT_SHIFT times larger and the
 * displacements taken back down in 64 bits, so that a light limb's small error is moved too.
 */
#include "body.h"
#include "contact.h"
#include "joint.h"
#include "joint_tree.h"
#include "scratch.h"
#include "stages.h"
#include "math_inline.h"

#if !QP_CFG_JOINT_TREE
void qp__project_joints(qp_world *w) { (void)w; }
#else

#define PROJECT_ROUNDS 64
#define SCALED_ROUNDS 8   /* of them, rounds scaled down by round_excess */
#define PROJECT_SLOP QP_MM(1)
#define ANGLE_SLOP ((fix16_t)572)   /* 0.5 degrees */
#define PROJECT_SHIFT 8
#define MAX_TURN ((fix16_t)(QP_ONE / 4))   /* rad a round turns a limit back: its row is linear */
#define MAX_MOVE ((fix16_t)(QP_ONE / 4))   /* m a round moves a body along an axis */
#define MAX_BODY_TURN QP_ONE               /* rad a round turns a body about an axis */

/* e if it is past its slop, else 0. */
static fix16_t past(fix16_t e, fix16_t slop) { return e > slop || e < -slop ? e : 0; }

/* The position error past its slop of tree position p's rows at the present poses,
 * negated into the tree's right-hand side (Q16.16); true if there is any. */
static bool load_error(qp_world *w, qp_joint_tree *t, int p)
{
    const qp_joint *j = &w->joints[t->joint[p] - 1];
    qp_joint_rows r;
    fix16_t err[2];
    (void)qp__joint_tree_rows_now(w, j, &r, err);
    unsigned lim = t->lim[p];   /* those past now, and those past in an earlier round (held) */
    fix16_t len = qp_v3_len(r.gap);
    qp_vec3 gap = len > PROJECT_SLOP ? r.gap : qp_v3_zero();
    t->vec[p][0] = -(int64_t)gap.x * (1 << PROJECT_SHIFT);
    t->vec[p][1] = -(int64_t)gap.y * (1 << PROJECT_SHIFT);
    t->vec[p][2] = -(int64_t)gap.z * (1 << PROJECT_SHIFT);
    bool any = (gap.x | gap.y | gap.z) != 0;
    int k = 3;
    /* A hinge: turning b by the tilt n_b x n_a (less any turn of a) lays its axis on a's. */
    for (int m = 0; m < 2 && j->type == QP_JOINT_HINGE; m++) {
        fix16_t e = past(qp__v3_dot(r.tilt, r.perp[m]), ANGLE_SLOP);
        t->vec[p][k++] = (int64_t)e * (1 << PROJECT_SHIFT);
        any |= e != 0;
    }
    /* A limit past: the turn that brings the swing, twist or angle back to it. */
    for (unsigned row = QP_TREE_SWING, m = 0; row <= QP_TREE_AXIAL; row <<= 1, m++) {
        if (!(lim & row)) continue;
        fix16_t e = past(err[m], ANGLE_SLOP);
        e = e > MAX_TURN ? MAX_TURN : e < -MAX_TURN ? -MAX_TURN : e;
        t->vec[p][k++] = (int64_t)e * (1 << PROJECT_SHIFT);
        any |= e != 0;
    }
    return any;
}

/* m v 2^-PROJECT_SHIFT for a Q16.16 m and v, rounded in 64 bits. */
static int64_t down(fix16_t m, fix16_t v) { return qp__shift_round64((int64_t)m * v, 16 + PROJECT_SHIFT); }

/* Adds tree position p's share of the displacement M^-1 J^T lambda to its bodies'
 * accumulators (the split scratch's pseudo-velocities, dead after the position update). */
static void spread(qp_world *w, const qp_joint_tree *t, int p)
{
    const qp_joint *j = &w->joints[t->joint[p] - 1];
    qp_joint_rows r;
    fix16_t err[2];
    qp_vec3 dir[3];
    (void)qp__joint_tree_rows_now(w, j, &r, err);
    int n = qp__joint_tree_dirs(&r, j->type, t->lim[p], dir);
    const int64_t *x = t->vec[p];
    qp_vec3 lin = qp_v3((fix16_t)x[0], (fix16_t)x[1], (fix16_t)x[2]);
    qp_vec3 ang = qp_v3_zero();
    for (int k = 0; k < n; k++) ang = qp__v3_add(ang, qp__v3_scale(dir[k], (fix16_t)x[3 + k]));
    for (int side = 0; side < 2; side++) {
        int body = side ? j->b : j->a;
        if (!qp__body_moves(&w->bodies[body])) continue;
        fix16_t *acc = qp__split(w)->pseudo_v[body];
        qp_vec3 turn = qp__v3_add(qp__v3_cross(side ? r.rb : r.ra, lin), ang);
        const qp_mat3 *ii = &t->ia[p][side];
        fix16_t inv_m = side ? r.mb : r.ma;
        const fix16_t tv[3] = { turn.x, turn.y, turn.z }, lv[3] = { lin.x, lin.y, lin.z };
        int64_t sign = side ? 1 : -1;
        for (int k = 0; k < 3; k++) {
            int64_t dq = down(ii->m[k][0], tv[0]) + down(ii->m[k][1], tv[1]) + down(ii->m[k][2], tv[2]);
            acc[k] = qp_sat32((int64_t)acc[k] + sign * down(inv_m, lv[k]));
            acc[3 + k] = qp_sat32((int64_t)acc[3 + k] + sign * dq);
        }
    }
}

/* The friction anchors that body i's sticking round contacts hold on it (narrow_phase.c,
 * set_anchors) stay where they were in the world while the body moves from x, r: the move
 * closes joints and is not slip. Anchors carried with the body saw it as slip, and the
 * penetration pass pulled the body back, opening the joints for the next projection: a limb
 * lying on the ground against its elbow's limit was turned to and fro by 5 milliradians
 * every other step and never slept. */
static void anchors_stay(qp_world *w, int i, qp_vec3 x, const qp_rot3 *r)
{
    const qp_body_state *b = &w->bodies[i];
    const qp_rot3 now = qp__body_rot(b);
    for (int e = w->adj_start[i]; e < w->adj_start[i + 1]; e++) {
        qp_contact *c = &w->contacts[w->adj[e]];
        if ((c->flags & (QP_CONTACT_SLEEPING | QP_CONTACT_SLIDING)) || !qp__contact_round(w, c)) continue;
        qp_vec3 *anchor = c->a == i ? &c->anchor_a : &c->anchor_b;
        *anchor = qp_rot3_tmul_v3(&now, qp__v3_add(qp__v3_sub(x, b->x), qp__rot3_mul_v3(r, *anchor)));
    }
}

/* How many times over a bound the round's largest displacement is (Q16.16, at least 1): a
 * body moving more than MAX_MOVE along an axis or turning more than MAX_BODY_TURN about one
 * (the light limbs of ragdolls thrown at 20 m/s turn past a quarter radian in a round in a
 * quarter of the throws, past half a radian in some). The
 * solve is first order: a correction that large is outside where its rows hold (bodies
 * thrown metres apart, or rows that nearly depend on each other): taken whole it turns
 * bodies by hundreds of radians and throws them hundreds of metres. The round is then scaled
 * down as a whole, the same direction, and the next rounds and steps take the rest. */
static int64_t round_excess(qp_world *w, const qp_joint_tree *t)
{
    int64_t worst = QP_ONE;
    for (int p = 0; p < t->count; p++) {
        const qp_joint *j = &w->joints[t->joint[p] - 1];
        for (int side = 0; side < 2; side++) {
            const fix16_t *acc = qp__split(w)->pseudo_v[side ? j->b : j->a];
            for (int k = 0; k < 6; k++) {
                const int64_t a = acc[k] < 0 ? -(int64_t)acc[k] : acc[k], bound = k < 3 ? MAX_MOVE : MAX_BODY_TURN;
                if (a > bound && a * QP_ONE / bound > worst) worst = a * QP_ONE / bound;   /* divides only past it */
            }
        }
    }
    return worst;
}

/* Moves body i by its accumulated displacement over excess (round_excess), once: the
 * accumulator is emptied. */
static void move_body(qp_world *w, int i, int64_t excess)
{
    qp_body_state *b = &w->bodies[i];
    fix16_t *acc = qp__split(w)->pseudo_v[i];
    if (!(acc[0] | acc[1] | acc[2] | acc[3] | acc[4] | acc[5])) return;
    if (excess > QP_ONE)
        for (int k = 0; k < 6; k++) acc[k] = (fix16_t)((int64_t)acc[k] * QP_ONE / excess);
    const qp_vec3 x = b->x;
    const qp_rot3 r = qp__body_rot(b);
    b->x = qp__v3_add(b->x, qp_v3(acc[0], acc[1], acc[2]));
    b->q = qp_quat_integrate(b->q, qp_v3(acc[3], acc[4], acc[5]), QP_ONE);
    qp__body_sync(b);
    anchors_stay(w, i, x, &r);
    b->state = (uint16_t)(b->state & ~QP_STATE_STILL);   /* its manifolds are found anew */
    for (int k = 0; k < 6; k++) acc[k] = 0;
    if (qp__v3_max_abs(b->x) > w->def.bounds) {
        b->state |= QP_STATE_FROZEN;
        b->flags |= QP_FLAG_OUT_OF_BOUNDS;
        b->v = b->w = qp_v3_zero();
    }
    const qp_rot3 moved = qp__body_rot(b);
    qp__body_update_aabbs(w, i, &b->x, &moved);
}

/* Does any joint of moving bodies the tree can hold have an error past its slop? Asked
 * before the first round: most steps have none, and factoring costs more than looking. */
static bool any_error(const qp_world *w)
{
    for (int i = 1; i <= qp__cap_joints(w); i++) {
        const qp_joint *j = &w->joints[i - 1];
        if (j->a == 0 || (j->type != QP_JOINT_BALL && j->type != QP_JOINT_HINGE && j->type != QP_JOINT_CONE)) continue;
        const qp_body_state *a = &w->bodies[j->a], *b = &w->bodies[j->b];
        if (!qp__body_moves(a) && !qp__body_moves(b)) continue;
        qp_joint_rows r;
        fix16_t err[2];
        (void)qp__joint_tree_rows_now(w, j, &r, err);
        if (qp_v3_len(r.gap) > PROJECT_SLOP || past(err[0], ANGLE_SLOP) || past(err[1], ANGLE_SLOP)) return true;
        if (j->type != QP_JOINT_HINGE) continue;
        if (past(qp__v3_dot(r.tilt, r.perp[0]), ANGLE_SLOP) || past(qp__v3_dot(r.tilt, r.perp[1]), ANGLE_SLOP)) return true;
    }
    return false;
}

void qp__project_joints(qp_world *w)
{
    if (!w->def.joint_tree || w->joint_count < 2 || !any_error(w)) return;   /* as factor */
    int scaled = 0;   /* rounds that moved a body by a bound (round_excess) */
    for (int round = 0; round < PROJECT_ROUNDS && scaled < SCALED_ROUNDS; round++) {
        if (!qp__joint_tree_factor_now(w, round > 0)) break;
        qp_joint_tree *t = qp__joint_tree(w);
        bool any = false;
        for (int p = 0; p < t->count; p++) any |= load_error(w, t, p);
        if (!any) break;
        qp__joint_tree_solve(w, 0, t->count);
        for (int p = 0; p < t->count; p++) {
            const qp_joint *j = &w->joints[t->joint[p] - 1];
            for (int k = 0; k < 6; k++) qp__split(w)->pseudo_v[j->a][k] = qp__split(w)->pseudo_v[j->b][k] = 0;
        }
        for (int p = 0; p < t->count; p++) spread(w, t, p);
        const int64_t excess = round_excess(w, t);
        scaled += excess > QP_ONE;
        for (int p = 0; p < t->count; p++) {
            const qp_joint *j = &w->joints[t->joint[p] - 1];
            move_body(w, j->a, excess);
            move_body(w, j->b, excess);
        }
    }
}
#endif
