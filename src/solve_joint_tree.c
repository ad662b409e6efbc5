/* SPDX-License-Identifier: MIT */
/* Joints solved together along their tree (qp_world_def.joint_tree).
 *
 * One joint at a time (solve_joints.c), a pull at one end of a chain of n links reaches
 * the other after about n sweeps, and a heavy end stretches a light chain by metres.
 * Here the equality rows of every ball, hinge and cone joint whose joints form a tree over
 * the moving bodies (no loop through them) are solved at once, exactly: A lambda = b with
 * A = J M^-1 J^T, the joints' effective mass seen from each other (Baraff, "Linear-time
 * dynamics using Lagrange multipliers", 1996, in its joint-space form).
 *
 * Why linear: two joints are coupled when they share a body. Ordered leaves first (the
 * reverse of a breadth-first walk of the joints from one root joint per tree), the joints
 * still to come that touch a joint when it is eliminated all share one body (its parent
 * body): they are coupled already, so elimination adds no new coupling (no fill), and
 * the work is the sum over bodies of the square of their joint counts.
 *
 * Fixed point: rows are scaled by powers of two so that every diagonal entry of A lies in
 * [1/4, 1) (S A S, S diagonal); a symmetric positive definite matrix scaled so has every
 * entry below 1 in magnitude, and so has its Cholesky factor (|L_ij| <= sqrt(A_ii)), so
 * blocks are Q2.30 and every product of two fits in 64 bits: a 100:1 mass ratio costs no
 * range, only the conditioning it has. A pivot that rounding leaves at or below zero (rows
 * that depend on each other) drops its row: its impulse is 0. Vectors are Q8.24 (int64).
 * A tree that does not fit (a joint with more than QP_TREE_LATER later neighbours, or any
 * fill found) is not solved here: its joints fall back to the joint-at-a-time solve.
 *
 * The solve's inertia carries the joints' geometric stiffness (stiffen, below): exact
 * solves with the geometry frozen over a 60 Hz step let a light chain under a heavy end
 * zig-zag apart.
 *
 * Limits: a cone's swing and twist and a hinge's angle that are met at the step's start
 * (limits_met) are rows of a joint's block after its equality rows (lim, QP_TREE_*; blocks of
 * up to 6 rows). They are unilateral: the caller drops a row whose impulse would pull and
 * factors the tree again (qp__joint_tree_refactor), so what the contacts push against is the
 * whole limb at its limit, not one joint beside the tree.
 *
 * The velocity passes hold the joints to first order over the step only: a link turning
 * 0.8 rad a step (a whipping chain's free end at the 50 rad/s clamp) opens its chord by
 * centimetres. The project stage (project_joints.c) closes that after the position update
 * with this same solve, factored again at the new poses with the inertia stiffened as for
 * the velocity passes (factor's `now`; stiffen says where the bodies' own is kept), with the
 * limits past or at their limit as rows.
 */
#include "compiler.h"
#include "joint.h"
#include "joint_tree.h"
#include "layout.h"
#include "solver.h"
#include "math_inline.h"

#if !QP_CFG_JOINT_TREE
bool qp__joint_tree_prepare(qp_world *w)
{
    (void)w;
    return false;
}

bool qp__joint_tree_factor_now(qp_world *w, bool again)
{
    (void)w;
    (void)again;
    return false;
}

bool qp__joint_tree_refactor(qp_world *w, int lo, int hi)
{
    (void)w;
    (void)lo;
    (void)hi;
    return false;
}

void qp__joint_ends_keep(qp_world *w) { (void)w; }
#else

#define VEC_Q 24                      /* right-hand sides and solutions: Q8.24 */
#define VEC_MAX (((int64_t)1 << 47) - 1)

static int64_t clamp64(int64_t v, int64_t m) { return v > m ? m : v < -m ? -m : v; }

/* v 2^n for any int64 v and -62 <= n <= 62 (saturating up, rounding down). */
static int64_t scale2(int64_t v, int n)
{
    if (n >= 0) {
        int64_t lim = INT64_MAX >> n;
        return v > lim ? INT64_MAX : v < -lim ? -INT64_MAX : v * ((int64_t)1 << n);
    }
    return qp__shift_round64(v, -n);
}

/* y l / 2^30 rounded down, for |y| < 2^47 and a Q2.30 l (|l| <= 2^30): in one 128-bit product
 * where the compiler has one (64-bit hosts, wasm32), else in two halves, the same floor. */
#if defined(__SIZEOF_INT128__)
__extension__ typedef __int128 qp__wide;

static int64_t mul30(int64_t y, int32_t l)
{
    return (int64_t)(((qp__wide)y * l) >> 30);
}
#else
static int64_t mul30(int64_t y, int32_t l)
{
    int64_t hi = y >> 16, lo = y & 0xFFFF;
    return (hi * l + ((lo * l) >> 16)) >> 14;
}
#endif

/* y 2^30 / l for l > 0, truncated toward zero and saturated to +-VEC_MAX. For |y| < 2^33,
 * y 2^30 fits in 63 bits and one division gives it: with y = q l + r (q truncated, r of y's
 * sign), q 2^30 is whole and r 2^30 / l has the sign of the whole quotient, so truncating
 * that quotient truncates r 2^30 / l alone, as the two divisions below do. */
static int64_t div30(int64_t y, int32_t l)
{
    const int64_t small = (int64_t)1 << 33;
    if (y < small && y > -small) return clamp64(y * ((int64_t)1 << 30) / l, VEC_MAX);
    int64_t q = y / l, r = y % l;
    if (q >= ((int64_t)1 << 17) || q <= -((int64_t)1 << 17)) return q > 0 ? VEC_MAX : -VEC_MAX;
    return clamp64(q * ((int64_t)1 << 30) + r * ((int64_t)1 << 30) / l, VEC_MAX);
}

/* ---- rows -------------------------------------------------------------------------------- */

/* Number of rows: ball 3 (the point), hinge 5 (the point and two across its axis), cone 3
 * (the point), and one more for each limit row of lim: in the velocity passes those met,
 * in the projection those past. */
static int rows_of(int type, unsigned lim)
{
    return (type == QP_JOINT_HINGE ? 5 : 3) + (lim & QP_TREE_SWING ? 1 : 0) + (lim & QP_TREE_AXIAL ? 1 : 0);
}

#define PI_WRAP ((fix16_t)(205887 - 655))   /* pi - 0.01 rad: twist limits this near pi are none */

/* An angle's room inside a limit (negative: past it), outside its range taken the short way
 * round: a knee bent 53 degrees past its 140 reads -167 degrees, 53 past the upper, not 167
 * below the lower. */
fix16_t qp__limit_room(const qp_joint *j, fix16_t value, bool upper)
{
    const int64_t pi = 205887, two_pi = 411775;
    int64_t d = upper ? (int64_t)j->upper - value : (int64_t)value - j->lower;
    if (value >= j->lower && value <= j->upper) return qp_sat32(d);
    while (d > pi) d -= two_pi;
    while (d <= -pi) d += two_pi;
    return (fix16_t)d;
}

/* The limit the angle is past (true: the upper), the nearer the short way round, and its
 * room (negative); *room 0 if within both. */
static bool past_limit(const qp_joint *j, fix16_t value, fix16_t *room)
{
    bool has_lo = j->lower > -PI_WRAP, has_hi = j->upper < PI_WRAP;
    bool inside = value >= j->lower && value <= j->upper;
    fix16_t lo = has_lo ? qp__limit_room(j, value, false) : QP_FIX_MAX;
    fix16_t hi = has_hi ? qp__limit_room(j, value, true) : QP_FIX_MAX;
    bool lo_past = has_lo && lo < 0, hi_past = has_hi && hi < 0;
    bool upper = hi_past && (!lo_past || hi > lo);
    *room = inside || !(lo_past || hi_past) ? 0 : upper ? hi : lo;
    return upper;
}

unsigned qp__joint_tree_rows_now(const qp_world *w, const qp_joint *j, qp_joint_rows *r, fix16_t err[2])
{
    qp__joint_rows(w, j, r);
    err[0] = err[1] = 0;
    unsigned lim = 0;
    if (j->type == QP_JOINT_CONE && r->m_swing != 0 && r->swing > j->swing) {
        lim |= QP_TREE_SWING;
        err[0] = qp_sat32((int64_t)j->swing - r->swing);
    }
    if ((j->type != QP_JOINT_CONE && j->type != QP_JOINT_HINGE) || !(j->flags & QP_JOINT_LIMIT)) return lim;
    fix16_t room;
    bool upper = past_limit(j, r->value, &room);
    if (room >= 0) return lim;
    err[1] = upper ? room : -room;   /* the turn along +axis back to it */
    return lim | QP_TREE_AXIAL | (upper ? QP_TREE_UPPER : 0);
}

int qp__joint_tree_dirs(const qp_joint_rows *r, int type, unsigned lim, qp_vec3 *dir)
{
    int n = 0;
    if (type == QP_JOINT_HINGE) {
        dir[n++] = r->perp[0];
        dir[n++] = r->perp[1];
    }
    if (lim & QP_TREE_SWING) dir[n++] = r->tilt;
    if (lim & QP_TREE_AXIAL) dir[n++] = r->axis;
    return n;
}

/* A joint's rows as the tree solves them: the points' arms, and the angular rows' directions
 * after the three point rows. */
typedef struct {
    const qp_joint_rows *r;
    qp_vec3 dir[QP_TREE_ROWS - 3];
} tree_rows;

/* Row k's Jacobian on side `side` (0: a, 1: b): linear and angular parts, Q16.16. */
static void jacobian(const tree_rows *tr, int k, int side, qp_vec3 *lin, qp_vec3 *ang)
{
    const qp_joint_rows *r = tr->r;
    if (k < 3) {
        qp_vec3 e = qp_v3(k == 0 ? QP_ONE : 0, k == 1 ? QP_ONE : 0, k == 2 ? QP_ONE : 0);
        *lin = e;
        *ang = qp__v3_cross(side ? r->rb : r->ra, e);
    } else {
        *lin = qp_v3_zero();
        *ang = tr->dir[k - 3];
    }
    if (!side) {
        *lin = qp__v3_neg(*lin);
        *ang = qp__v3_neg(*ang);
    }
}

/* Coupling of a row (Jacobian lx, ax on a body of inverse mass inv_m) and another row of the
 * same body (linear part ly, angular part ay with iay = I^-1 ay), Q32: lin.lin / m + ang . I^-1 ang. */
static int64_t coupling(qp_vec3 lx, qp_vec3 ax, fix16_t inv_m, qp_vec3 ly, qp_vec3 iay)
{
    int64_t lin = ((int64_t)lx.x * ly.x + (int64_t)lx.y * ly.y + (int64_t)lx.z * ly.z) >> 16;   /* Q16 */
    return lin * inv_m + (int64_t)ax.x * iay.x + (int64_t)ax.y * iay.y + (int64_t)ax.z * iay.z;
}

/* The body joint slot s shares with slot u that moves (0 if none), and its side in each. */
static int shared_body(const qp_world *w, int s, int u, int *side_s, int *side_u)
{
    const qp_joint *x = &w->joints[s - 1], *y = &w->joints[u - 1];
    for (int i = 0; i < 2; i++) {
        int body = i ? x->b : x->a;
        if (!qp__body_moves(&w->bodies[body])) continue;
        if (body == y->a || body == y->b) {
            *side_s = i;
            *side_u = body == y->b;
            return body;
        }
    }
    return 0;
}

static bool takes_part(const qp_world *w, const qp_joint *j)
{
    if (j->a == 0 || (j->type != QP_JOINT_BALL && j->type != QP_JOINT_HINGE && j->type != QP_JOINT_CONE)) return false;
    const qp_body_state *a = &w->bodies[j->a], *b = &w->bodies[j->b];
    bool ma = qp__body_moves(a), mb = qp__body_moves(b);
    return (ma || mb) && (ma || !qp__body_dynamic(a)) && (mb || !qp__body_dynamic(b));
}

/* Slot's rows: as prepared for this step's velocity passes, or (now) at the poses as they are. */
static const qp_joint_rows *rows_at(qp_world *w, int slot, qp_joint_rows *scratch, bool now)
{
    if (!now) return qp__joint_rows_at(w, slot, scratch);
    fix16_t err[2];
    (void)qp__joint_tree_rows_now(w, &w->joints[slot - 1], scratch, err);
    return scratch;
}

/* Tree position p's rows as factored, with the limit rows of lim. */
static void tree_rows_at(qp_world *w, const qp_joint_tree *t, int p, qp_joint_rows *scratch, bool now, tree_rows *out)
{
    out->r = rows_at(w, t->joint[p], scratch, now);
    (void)qp__joint_tree_dirs(out->r, w->joints[t->joint[p] - 1].type, t->lim[p], out->dir);
}

/* The limit rows of a joint that are met: its value at the limit, within LIMIT_NEAR, or
 * moving past it within the step at the bodies' present turn (QP_TREE_*). Those are solved
 * as rows of the tree while their impulse pushes (qp__solve_joints' solve_tree); the rest
 * stay with the joint-at-a-time solve, which catches a limit met later in the step. */
#define LIMIT_NEAR ((fix16_t)1144)   /* 1 degree */

static unsigned limits_met(const qp_world *w, const qp_joint *j, const qp_joint_rows *r, bool moving)
{
    if (j->type != QP_JOINT_CONE && j->type != QP_JOINT_HINGE) return 0;
    qp_vec3 turn = qp_v3_zero();
    for (int side = 0; side < 2 && moving; side++) {
        const qp_body_state *b = &w->bodies[side ? j->b : j->a];
        if (!qp__body_moves(b)) continue;
        qp_vec3 wb = b->w;
        qp__clamp_speed(&wb, w->def.max_angular_speed);
        turn = side ? qp__v3_add(turn, wb) : qp__v3_sub(turn, wb);
    }
    fix16_t dt = w->def.dt;
    unsigned lim = 0;
    if (j->type == QP_JOINT_CONE && r->m_swing != 0) {
        int64_t room = (int64_t)j->swing - r->swing - qp__mul(qp__v3_dot(turn, r->tilt), dt);
        if (room <= LIMIT_NEAR) lim |= QP_TREE_SWING;
    }
    if (!(j->flags & QP_JOINT_LIMIT)) return lim;
    fix16_t room;
    bool upper = past_limit(j, r->value, &room);
    if (room < 0) return lim | QP_TREE_AXIAL | (upper ? QP_TREE_UPPER : 0);
    int64_t move = qp__mul(qp__v3_dot(turn, r->axis), dt);
    bool has_lo = j->lower > -PI_WRAP, has_hi = j->upper < PI_WRAP;
    int64_t lo = has_lo ? (int64_t)r->value - j->lower + move : QP_FIX_MAX;
    int64_t hi = has_hi ? (int64_t)j->upper - r->value - move : QP_FIX_MAX;
    if (lo <= LIMIT_NEAR && lo <= hi) lim |= QP_TREE_AXIAL;
    else if (hi <= LIMIT_NEAR) lim |= QP_TREE_AXIAL | QP_TREE_UPPER;
    return lim;
}

/* Geometric stiffness (Andrews, Teichmann and Kry, "Geometric stiffness for real-time
 * constrained multibody dynamics", 2017). A joint force f at arm r turns with its body:
 * a torque that changes by |f| |r| a radian. Solved with the geometry of the start of the
 * step, that stiffness is explicit, and a light chain pulled straight by a heavy end has
 * bending modes faster than a 60 Hz step holds: its links' turns zig-zag and grow (ten
 * 1 kg links under a 100 kg ball opened a metre in 3 s; at 240 Hz they held within
 * 0.1 mm). Taken implicitly in a diagonal form, it adds to the body's inertia, on every
 * axis and for the tree's solve only (its rows, the impulses it applies and the
 * projection's moves, below),
 * a = STIFF_GAIN dt |jp| |r| summed over its tree joints (jp: the joint's impulse of the
 * last step, dt |jp| |r| = dt^2 |f| |r|): I'^-1 = I^-1 (E + a I^-1)^-1. A stiffer body
 * answers a joint's pull by turning less: it damps those modes and adds no energy. The gain
 * is measured: 1 left the 100 kg chain opening 0.9 m, 2 holds it within 0.2 mm. The
 * addition follows the load with no bound set by the body's own inertia: a bound of k times
 * its largest moment held a 100 kg ball on links of about 100 / (4 k) kg and no lighter
 * (k = 8: links of 1 kg held, of 0.5 kg opened by metres). Only the fixed point bounds it:
 * a I^-1 at most 2^14 on the body's lightest axis (STIFF_MOST). E + a I^-1 is inverted
 * scaled by a power of two that puts its diagonal below 2, so that its inverse keeps its
 * precision however stiff the body. Below 1/STIFF_FLOOR of the body's largest moment
 * nothing is added: a resting ragdoll's small, changing additions kept it creeping awake
 * for 38 s instead of 6.5.
 *
 * A body a contact pushes (an awake contact of it with a point that touches or carries a
 * load, as sleep.c's islands count them) keeps its own inertia. The contacts are solved with
 * the bodies' own inertia: with the stiffened one in the tree, each is an exact projection in
 * a metric of its own, and sweeps alternating the two need not converge. On a limb pinned
 * between the ground and the body (or a wall) they did not: the contacts' accumulated
 * impulses and the tree's grew step after step (the contact pass's warm start applied 3.5,
 * 8, 21, 40, 51, 65 and 81 kJ in successive steps), each pass left the ragdoll with more
 * energy than it began with (up to 1.7 kJ a step), its limbs reached the 50 rad/s clamp and
 * 60 m/s, and the split impulses that then closed the joints turned a knee 149 degrees past
 * its limit in one step, more than the projection turns back (14 of 360 fresh throws past a
 * cone or an elbow or knee, by up to 33 degrees). With one metric for the bodies contacts
 * push, none of those 14 nor of 60 more rises above its start (bench_ragdolls' energy
 * mode). Every body with any
 * contact (speculative ones too) left unstiffened held as well but slept 336 of the 360
 * throws, not 343, and the three-ragdoll demo at 12 s, not 7. */
#define STIFF_GAIN 2
#define STIFF_FLOOR 16
#define STIFF_MOST 14

/* Marks (set) or clears the bodies of every awake contact that pushes them: a point that
 * touches or carries a load (QP_STATE_TOUCHED). */
static void mark_touched(qp_world *w, bool set)
{
    for (int i = 0; i < w->contact_count; i++) {
        const qp_contact *c = &w->contacts[i];
        bool pushes = false;
        for (int k = 0; k < c->count; k++) pushes |= c->p[k].depth >= 0 || c->p[k].jn != 0;
        if (set && ((c->flags & QP_CONTACT_SLEEPING) || !pushes)) continue;
        for (int side = 0; side < 2; side++) {
            qp_body_state *b = &w->bodies[side ? c->b : c->a];
            b->state = (uint16_t)(set ? b->state | QP_STATE_TOUCHED : b->state & ~QP_STATE_TOUCHED);
        }
    }
}

/* I^-1 (E + a I^-1)^-1 for a body's world inverse inertia ii, its largest diagonal entry most
 * and an addition a with a most at most 2^STIFF_MOST. E + a ii is scaled by 2^-s, s the least
 * that puts its diagonal below 2 (s = 0 for an addition below the body's smallest moment),
 * and ii times the scaled inverse is shifted back once: every product in 64 bits, rounded
 * once. Unchanged where the inverse does not exist. */
static qp_mat3 stiffened(const qp_mat3 *ii, fix16_t a, fix16_t most)
{
    const int64_t top = qp__round_shift((int64_t)most * a, 16) + QP_ONE;   /* below 2^(STIFF_MOST + 17) */
    int s = 0;
    while ((top >> s) >= 2 * QP_ONE) s++;
    qp_mat3 m, inv, out;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            m.m[i][j] = qp_sat32(qp__round_shift((int64_t)ii->m[i][j] * a, 16 + s) + (i == j ? QP_ONE >> s : 0));
    if (!qp_mat3_inverse(&m, &inv)) return *ii;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out.m[i][j] = qp_sat32(qp__round_sum4((int64_t)ii->m[i][0] * inv.m[0][j], (int64_t)ii->m[i][1] * inv.m[1][j],
                                                  (int64_t)ii->m[i][2] * inv.m[2][j], 0, 16 + s));
    return out;
}

/* Tree position p's bodies' inertia for the tree's solve (t->ia), stiffened; with the rows of
 * the velocity passes, or (now) at the present poses. */
static void stiffen_at(qp_world *w, qp_joint_tree *t, int n, int p, bool now)
{
    qp_joint_rows scratch;
    const qp_joint_rows *r = rows_at(w, t->joint[p], &scratch, now);
    for (int side = 0; side < 2; side++) {
        int body = side ? w->joints[t->joint[p] - 1].b : w->joints[t->joint[p] - 1].a;
        const qp_mat3 *ii = side ? &r->ib : &r->ia;
        t->ia[p][side] = *ii;
        if (!qp__body_moves(&w->bodies[body]) || (w->bodies[body].state & QP_STATE_TOUCHED)) continue;
        int64_t add = 0;   /* Q16.16, kg m^2 */
        for (int q = 0; q < n; q++) {
            const qp_joint *jq = &w->joints[t->joint[q] - 1];
            if (jq->a != body && jq->b != body) continue;
            qp_joint_rows sq;
            const qp_joint_rows *rq = rows_at(w, t->joint[q], &sq, now);
            fix16_t arm = qp_v3_len(jq->a == body ? rq->ra : rq->rb);
            add += (int64_t)qp__mul_half_up(qp__mul_half_up(qp_v3_len(jq->jp), arm), w->def.dt);
        }
        if (add <= 0) continue;
        add *= STIFF_GAIN;
        fix16_t least = ii->m[0][0], most = ii->m[0][0];   /* 1 / largest and smallest moment */
        for (int d = 1; d < 3; d++) {
            least = ii->m[d][d] < least ? ii->m[d][d] : least;
            most = ii->m[d][d] > most ? ii->m[d][d] : most;
        }
        if (least <= 0 || add < ((int64_t)1 << 32) / least / STIFF_FLOOR) continue;
        if (add > ((int64_t)1 << (STIFF_MOST + 32)) / most) add = ((int64_t)1 << (STIFF_MOST + 32)) / most;
        t->ia[p][side] = stiffened(ii, qp_sat32(add), most);
    }
}

/* The end of the span of the first n positions that starts at lo and that no coupling leaves
 * (a tree, or trees a loop's joint couples): qp__joint_tree_span while factoring. */
static int span_of(const qp_joint_tree *t, int lo, int n)
{
    int reach = lo;
    for (int p = lo; p < n; p++) {
        for (int m = 0; m < t->later_n[p]; m++) reach = t->later[p][m] > reach ? t->later[p][m] : reach;
        if (reach <= p) return p + 1;
    }
    return n;
}

/* How many joints of positions [lo, hi) hold a moving body to one that does not move. */
static int held_to_still(const qp_world *w, const qp_joint_tree *t, int lo, int hi)
{
    int held = 0;
    for (int p = lo; p < hi; p++) {
        const qp_joint *j = &w->joints[t->joint[p] - 1];
        held += !qp__body_moves(&w->bodies[j->a]) || !qp__body_moves(&w->bodies[j->b]);
    }
    return held;
}

/* The first n positions' inertia for the tree's solve: stiffened for the velocity passes, and
 * (now) for the projection in the spans held to still bodies by one joint at most (a chain
 * from a post, a ragdoll, a tree in the air), which can close every gap. The projection keeps
 * the bodies' own inertia between two still bodies or more, where the rows need not all hold
 * (joints between posts pulled apart): in a metric where turns cost more than moves, each of
 * its rounds moves those bodies along instead of turning them (40 fresh scenes of such joints
 * threw their boxes 14.2 m on average, against 7.0 m with their own inertia). */
static void stiffen(qp_world *w, qp_joint_tree *t, int n, bool now)
{
    mark_touched(w, true);
    for (int lo = 0, hi; lo < n; lo = hi) {
        hi = span_of(t, lo, n);
        if (now && held_to_still(w, t, lo, hi) > 1) continue;
        for (int p = lo; p < hi; p++) stiffen_at(w, t, n, p, now);
    }
    mark_touched(w, false);
}

/* ---- each body's joints -------------------------------------------------------------------- */

/* The keys of qp__joint_ends lie in the later blocks' storage (off), which assemble writes
 * only after the walks that read the keys: order_trees and factor's later joints, and before
 * them qp__prepare_joints and, from the broad phase on, qp__joined. */

/* k[root..n) as a heap again after k[root] changed (the largest key on top). */
static void sift_down(uint32_t *k, int root, int n)
{
    for (;;) {
        int child = 2 * root + 1;
        if (child >= n) return;
        if (child + 1 < n && k[child + 1] > k[child]) child++;
        if (k[root] >= k[child]) return;
        uint32_t x = k[root];
        k[root] = k[child];
        k[child] = x;
        root = child;
    }
}

/* t->pass while off[] holds qp__joint_ends_keep's keys (the passes' modes are 0 and up, -1
 * after factoring). */
#define ENDS_KEPT (-2)

int qp__joint_ends(qp_world *w, bool by_order, const uint32_t **keys)
{
    qp_joint_tree *t = qp__joint_tree(w);
    uint32_t *k = (uint32_t *)(void *)t->off + 1;   /* k[-1]: the count */
    int n = 0;
    const int count = by_order ? w->joint_count : qp__cap_joints(w);
    for (int o = 0; o < count; o++) {
        const int slot = by_order ? w->joint_order[o] : o + 1;
        const qp_joint *j = &w->joints[slot - 1];
        if (j->a == 0) continue;
        const uint32_t tag = (uint32_t)(by_order ? o : slot);
        k[n++] = (uint32_t)j->a << 16 | tag;
        k[n++] = (uint32_t)j->b << 16 | tag;
    }
    for (int r = n / 2 - 1; r >= 0; r--) sift_down(k, r, n);   /* heapsort: in place, no recursion */
    for (int end = n - 1; end > 0; end--) {
        uint32_t x = k[0];
        k[0] = k[end];
        k[end] = x;
        sift_down(k, 0, end);
    }
    k[-1] = (uint32_t)n;
    *keys = k;
    return n;
}

void qp__joint_ends_keep(qp_world *w)
{
    const uint32_t *keys;
    if (w->joint_count == 0) return;
    (void)qp__joint_ends(w, false, &keys);
    qp__joint_tree(w)->pass = ENDS_KEPT;
}

int qp__joint_ends_kept(const qp_world *w, const uint32_t **keys)
{
    const qp_joint_tree *t = qp__joint_tree(w);
    if (t->pass != ENDS_KEPT) return -1;
    const uint32_t *k = (const uint32_t *)(const void *)t->off + 1;
    *keys = k;
    return (int)k[-1];
}

int qp__joint_ends_of(const uint32_t *keys, int n, int body)
{
    const uint32_t key = (uint32_t)body << 16;
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (keys[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

int qp__joint_ends_next(const uint32_t *keys, int n, int a, int b, int *ia, int *ib)
{
    const bool more_a = a && *ia < n && (int)(keys[*ia] >> 16) == a, more_b = b && *ib < n && (int)(keys[*ib] >> 16) == b;
    if (!more_a && !more_b) return -1;
    const int ta = more_a ? (int)(keys[*ia] & 0xFFFFu) : INT32_MAX, tb = more_b ? (int)(keys[*ib] & 0xFFFFu) : INT32_MAX;
    const int tag = ta < tb ? ta : tb;
    if (ta == tag) (*ia)++;
    if (tb == tag) (*ib)++;
    return tag;
}

/* ---- the order ----------------------------------------------------------------------------- */

/* A body that moves, else 0 (what shared_body may share). */
static int moving(const qp_world *w, int body) { return qp__body_moves(&w->bodies[body]) ? body : 0; }

/* Whether body is an end of a joint listed in this tree (at positions first and on). */
static bool in_tree(const qp_world *w, const qp_joint_tree *t, const uint32_t *keys, int nk, int body, int first)
{
    for (int e = qp__joint_ends_of(keys, nk, body); e < nk && (int)(keys[e] >> 16) == body; e++) {
        int at = t->pos[w->joint_order[keys[e] & 0xFFFFu] - 1];
        if (at != 0 && at - 1 >= first) return true;
    }
    return false;
}

/* The joints of the trees, leaves first: per tree, a breadth-first walk from its first joint
 * in w->joint_order over joints sharing a moving body (in w->joint_order's order), skipping
 * any that would close a loop, then reversed. keys: qp__joint_ends by order. */
static int order_trees(qp_world *w, qp_joint_tree *t, const uint32_t *keys, int nk)
{
    int n = 0;
    for (int i = 0; i < qp__cap_joints(w); i++) t->pos[i] = 0;
    for (int o = 0; o < w->joint_count; o++) {
        int root = w->joint_order[o];
        if (n >= qp__cap_joints(w)) break;   /* n counts distinct joints: never, but said */
        if (t->pos[root - 1] || !takes_part(w, &w->joints[root - 1])) continue;
        int first = n;
        t->joint[n] = (uint16_t)root;
        t->pos[root - 1] = (uint16_t)(n + 1);
        n++;
        for (int head = first; head < n; head++) {
            int s = t->joint[head];
            const qp_joint *js = &w->joints[s - 1];
            const int a = moving(w, js->a), b = moving(w, js->b);
            int ia = a ? qp__joint_ends_of(keys, nk, a) : nk, ib = b ? qp__joint_ends_of(keys, nk, b) : nk;
            for (int k; (k = qp__joint_ends_next(keys, nk, a, b, &ia, &ib)) >= 0;) {
                int u = w->joint_order[k];
                int ss, su;
                if (t->pos[u - 1] || !takes_part(w, &w->joints[u - 1]) || !shared_body(w, s, u, &ss, &su)) continue;
                /* A loop: u's other moving body is already in this tree (through another joint). */
                const qp_joint *ju = &w->joints[u - 1];
                int other = su ? ju->a : ju->b;
                if (qp__body_moves(&w->bodies[other]) && in_tree(w, t, keys, nk, other, first)) continue;
                if (n >= qp__cap_joints(w)) continue;
                t->joint[n] = (uint16_t)u;
                t->pos[u - 1] = (uint16_t)(n + 1);
                n++;
            }
        }
    }
    /* Reverse: leaves first. */
    for (int i = 0, k = n - 1; i < k && k < qp__cap_joints(w); i++, k--) {
        uint16_t x = t->joint[i];
        t->joint[i] = t->joint[k];
        t->joint[k] = x;
    }
    for (int i = 0; i < n; i++) t->pos[t->joint[i] - 1] = (uint16_t)(i + 1);
    return n;
}

/* ---- building and factoring ----------------------------------------------------------------- */

/* Position of q among p's later neighbours, -1 if none. */
static int later_index(const qp_joint_tree *t, int p, int q)
{
    for (int m = 0; m < t->later_n[p]; m++)
        if (t->later[p][m] == q) return m;
    return -1;
}


/* Scale of a row from its diagonal entry (Q32, > 0): e with A 4^-e in [1/4, 1). */
static int row_scale(int64_t d)
{
    int p = 63 - __builtin_clzll((unsigned long long)d) - 32;   /* 2^p <= A < 2^(p+1) */
    return (p >= 0 ? p / 2 : -((1 - p) / 2)) + 1;
}

static int32_t scaled(int64_t a, int er, int ec)
{
    int64_t v = scale2(a, -2 - er - ec);   /* Q32 -> Q30, times 2^(-er - ec) */
    return (int32_t)clamp64(v, ((int64_t)1 << 30));
}

/* In-place Cholesky of the n x n block d (lower part): false never; a pivot at or below
 * zero drops its row (its column of L set to 0). */
static void cholesky(int32_t d[QP_TREE_ROWS][QP_TREE_ROWS], int n)
{
    for (int k = 0; k < n; k++) {
        int64_t p = (int64_t)d[k][k] * ((int64_t)1 << 30);
        for (int j = 0; j < k; j++) p -= (int64_t)d[k][j] * d[k][j];
        int32_t lkk = p > ((int64_t)1 << 40) ? (int32_t)qp_isqrt64((uint64_t)p) : 0;   /* Q30; pivots below 2^-20 drop */
        d[k][k] = lkk;
        for (int i = k + 1; i < n; i++) {
            int64_t s = (int64_t)d[i][k] * ((int64_t)1 << 30);
            for (int j = 0; j < k; j++) s -= (int64_t)d[i][j] * d[k][j];
            d[i][k] = lkk ? (int32_t)clamp64(s / lkk, (int64_t)1 << 30) : 0;
        }
    }
}

/* x (r rows of joint p's block, c columns of the later joint's) times L_pp^-T, in place. */
static void solve_right(int32_t x[QP_TREE_ROWS][QP_TREE_ROWS], int nr, int32_t l[QP_TREE_ROWS][QP_TREE_ROWS], int nc)
{
    for (int i = 0; i < nr; i++)
        for (int k = 0; k < nc; k++) {
            int64_t s = (int64_t)x[i][k] * ((int64_t)1 << 30);
            for (int j = 0; j < k; j++) s -= (int64_t)x[i][j] * l[k][j];
            x[i][k] = l[k][k] ? (int32_t)clamp64(s / l[k][k], (int64_t)1 << 30) : 0;
        }
}

/* Position p's diagonal block and row scales. (Out of assemble's frame, and the later blocks'
 * out of this one's: their rows and Jacobians are never on the stack together.) */
static QP__NOINLINE void diagonal_block(qp_world *w, qp_joint_tree *t, int p, bool now)
{
    qp_joint_rows ra;
    tree_rows r;
    tree_rows_at(w, t, p, &ra, now, &r);
    const int n = t->rows[p];
    int64_t a[QP_TREE_ROWS][QP_TREE_ROWS];
    for (int side = 0; side < 2; side++) {   /* each side's Jacobians once for all its row pairs */
        qp_vec3 lin[QP_TREE_ROWS], ang[QP_TREE_ROWS], iay[QP_TREE_ROWS];
        for (int k = 0; k < n; k++) {
            jacobian(&r, k, side, &lin[k], &ang[k]);
            iay[k] = qp__mat3_mul_v3(&t->ia[p][side], ang[k]);
        }
        fix16_t inv_m = side ? r.r->mb : r.r->ma;
        for (int k = 0; k < n; k++)
            for (int l = 0; l < n; l++)
                a[k][l] = (side ? a[k][l] : 0) + coupling(lin[k], ang[k], inv_m, lin[l], iay[l]);
    }
    for (int k = 0; k < n; k++) t->scale[p][k] = (int8_t)(a[k][k] > 0 ? row_scale(a[k][k]) : 0);
    for (int k = 0; k < n; k++)
        for (int l = 0; l < n; l++)
            t->diag[p][k][l] = a[k][k] > 0 && a[l][l] > 0 ? scaled(a[k][l], t->scale[p][k], t->scale[p][l]) : 0;
}

/* Position p's later blocks: (later joint's rows) x (p's rows), through the body they share. */
static QP__NOINLINE void later_blocks(qp_world *w, qp_joint_tree *t, int p, bool now)
{
    qp_joint_rows ra, rb;
    tree_rows r, rq;
    tree_rows_at(w, t, p, &ra, now, &r);
    const int n = t->rows[p];
    for (int m = 0; m < t->later_n[p]; m++) {
        int q = t->later[p][m], sp = 0, sq = 0;   /* set by shared_body: later joints share a body */
        tree_rows_at(w, t, q, &rb, now, &rq);
        shared_body(w, t->joint[p], t->joint[q], &sp, &sq);
        qp_vec3 lp[QP_TREE_ROWS], ap[QP_TREE_ROWS], lq[QP_TREE_ROWS], aq[QP_TREE_ROWS];
        for (int l = 0; l < n; l++) {   /* p's rows on the shared body, times its inverse inertia */
            jacobian(&r, l, sp, &lp[l], &ap[l]);
            ap[l] = qp__mat3_mul_v3(&t->ia[q][sq], ap[l]);
        }
        for (int k = 0; k < t->rows[q]; k++) jacobian(&rq, k, sq, &lq[k], &aq[k]);
        fix16_t inv_m = sq ? rq.r->mb : rq.r->ma;
        for (int k = 0; k < t->rows[q]; k++)
            for (int l = 0; l < n; l++)
                t->off[p][m][k][l] =
                    scaled(coupling(lq[k], aq[k], inv_m, lp[l], ap[l]), t->scale[q][k], t->scale[p][l]);
    }
}

/* The blocks of the trees as ordered (t->joint, later, ia) at positions [lo, hi), a span no
 * coupling leaves (qp__joint_tree_span), with each joint's rows as now (velocity passes: its
 * limit rows lim), and their block Cholesky factor. */
static bool assemble(qp_world *w, qp_joint_tree *t, int lo, int hi, bool now)
{
    for (int p = lo; p < hi; p++) t->rows[p] = (uint8_t)rows_of(w->joints[t->joint[p] - 1].type, t->lim[p]);
    /* Diagonal blocks and scales, then the later blocks (which read the later joints' scales). */
    for (int p = lo; p < hi; p++) diagonal_block(w, t, p, now);
    for (int p = lo; p < hi; p++) later_blocks(w, t, p, now);
    /* Block Cholesky, leaves first: L_pp, then L_qp = A_qp L_pp^-T, then the Schur updates
     * A_q2q1 -= L_q2p L_q1p^T of every pair of later neighbours (q1 before q2). */
    for (int p = lo; p < hi; p++) {
        cholesky(t->diag[p], t->rows[p]);
        for (int m = 0; m < t->later_n[p]; m++)
            solve_right(t->off[p][m], t->rows[t->later[p][m]], t->diag[p], t->rows[p]);
        for (int m1 = 0; m1 < t->later_n[p]; m1++)
            for (int m2 = 0; m2 < t->later_n[p]; m2++) {
                int e = t->later[p][m1], l = t->later[p][m2];   /* e no later than l */
                if (l < e) continue;
                int32_t(*dst)[QP_TREE_ROWS];
                if (e == l) dst = t->diag[e];
                else {
                    int k = later_index(t, e, l);
                    if (k < 0) return false;   /* fill: not a tree as ordered */
                    dst = t->off[e][k];        /* A_le: l's rows by e's */
                }
                int32_t(*le)[QP_TREE_ROWS] = t->off[p][m1], (*ll)[QP_TREE_ROWS] = t->off[p][m2];
                for (int i = 0; i < t->rows[l]; i++)
                    for (int j = 0; j < t->rows[e]; j++) {
                        int64_t sum = 0;
                        for (int c = 0; c < t->rows[p]; c++) sum += (int64_t)ll[i][c] * le[j][c];
                        dst[i][j] = (int32_t)clamp64(dst[i][j] - qp__shift_round64(sum, 30), (int64_t)1 << 30);
                    }
            }
    }
    return true;
}

/* Orders and factors the trees: with the rows and stiffened inertia of the velocity passes
 * and the limits met, or (now) with the rows at the present poses and the bodies' own
 * inertia (the projection), its limit rows those past or at their limit now or (again) in
 * an earlier round of this projection. Held so, a limit is not pushed past by what closes a
 * gap (an elbow at its limit was turned 44 degrees past by a 13 mm gap closed without it),
 * and a shoulder's twist brought back does not push its swing past its cone (22 degrees),
 * nor its swing the twist, round after round. */
static bool factor(qp_world *w, bool now, bool again)
{
    qp_joint_tree *t = qp__joint_tree(w);
    t->count = 0;
    t->pass = -1;
    /* A joint alone is solved as without trees: as the builds that leave the trees out
     * (QP_CFG_JOINT_TREE 0, a world of one joint at most) solve it, to the same bits. */
    if (!w->def.joint_tree || w->joint_count < 2) return false;
    const uint32_t *keys;
    const int nk = qp__joint_ends(w, true, &keys);
    int n = order_trees(w, t, keys, nk);
    /* Each position's later joints that share a moving body with it, in increasing order. */
    for (int p = 0; p < n; p++) {
        const qp_joint *js = &w->joints[t->joint[p] - 1];
        const int a = moving(w, js->a), b = moving(w, js->b);
        int ia = a ? qp__joint_ends_of(keys, nk, a) : nk, ib = b ? qp__joint_ends_of(keys, nk, b) : nk;
        int m = 0;
        for (int k; (k = qp__joint_ends_next(keys, nk, a, b, &ia, &ib)) >= 0;) {
            int q = t->pos[w->joint_order[k] - 1] - 1;
            if (q <= p) continue;   /* not in a tree (-1), earlier, or p itself */
            if (m == QP_TREE_LATER) return false;
            int at = m++;
            for (; at > 0 && t->later[p][at - 1] > q; at--) t->later[p][at] = t->later[p][at - 1];
            t->later[p][at] = (uint16_t)q;
        }
        t->later_n[p] = (uint8_t)m;
    }
    if (!now) {
        stiffen(w, t, n, false);
        for (int p = 0; p < n; p++) {
            qp_joint_rows scratch;
            const qp_joint *j = &w->joints[t->joint[p] - 1];
            t->lim[p] = t->met[p] = (uint8_t)limits_met(w, j, rows_at(w, t->joint[p], &scratch, false), true);
        }
    } else {
        for (int p = 0; p < n; p++) {
            qp_joint_rows r;
            fix16_t err[2];
            const qp_joint *j = &w->joints[t->joint[p] - 1];
            unsigned lim = qp__joint_tree_rows_now(w, j, &r, err) | limits_met(w, j, &r, false);
            t->lim[p] = t->met[p] = (uint8_t)(lim | (again ? t->met[p] : 0));
            t->ia[p][0] = r.ia;
            t->ia[p][1] = r.ib;
        }
        stiffen(w, t, n, true);
    }
    if (!assemble(w, t, 0, n, now)) return false;
    t->count = n;
    return true;
}

bool qp__joint_tree_prepare(qp_world *w) { return factor(w, false, false); }

bool qp__joint_tree_factor_now(qp_world *w, bool again) { return factor(w, true, again); }

bool qp__joint_tree_refactor(qp_world *w, int lo, int hi)
{
    qp_joint_tree *t = qp__joint_tree(w);
    int n = t->count;
    t->count = 0;
    if (n == 0 || !assemble(w, t, lo, hi, false)) return false;
    t->count = n;
    return true;
}

int qp__joint_tree_span(const qp_world *w, int lo)
{
    const qp_joint_tree *t = qp__joint_tree(w);
    return span_of(t, lo, t->count);
}

/* ---- solving ------------------------------------------------------------------------------- */

void qp__joint_tree_solve(qp_world *w, int lo, int hi)
{
    qp_joint_tree *t = qp__joint_tree(w);
    /* b (Q16 in vec, as the caller put it) scaled: S b in Q24. */
    for (int p = lo; p < hi; p++)
        for (int k = 0; k < t->rows[p]; k++) t->vec[p][k] = clamp64(scale2(t->vec[p][k], VEC_Q - 16 - t->scale[p][k]), VEC_MAX);
    /* Forward: L y = b. */
    for (int p = lo; p < hi; p++) {
        int64_t *y = t->vec[p];
        for (int k = 0; k < t->rows[p]; k++) {
            int64_t s = y[k];
            for (int j = 0; j < k; j++) s -= mul30(y[j], t->diag[p][k][j]);
            y[k] = t->diag[p][k][k] ? div30(clamp64(s, VEC_MAX), t->diag[p][k][k]) : 0;
        }
        for (int m = 0; m < t->later_n[p]; m++) {
            int q = t->later[p][m];
            for (int i = 0; i < t->rows[q]; i++) {
                int64_t s = t->vec[q][i];
                for (int c = 0; c < t->rows[p]; c++) s -= mul30(y[c], t->off[p][m][i][c]);
                t->vec[q][i] = clamp64(s, VEC_MAX);
            }
        }
    }
    /* Back: L^T x = y, the latest first. */
    for (int p = hi - 1; p >= lo; p--) {
        int64_t *x = t->vec[p];
        for (int m = 0; m < t->later_n[p]; m++) {
            int q = t->later[p][m];
            for (int c = 0; c < t->rows[p]; c++) {
                int64_t s = 0;
                for (int i = 0; i < t->rows[q]; i++) s += mul30(t->vec[q][i], t->off[p][m][i][c]);
                x[c] = clamp64(x[c] - s, VEC_MAX);
            }
        }
        for (int k = t->rows[p] - 1; k >= 0; k--) {
            int64_t s = x[k];
            for (int j = k + 1; j < t->rows[p]; j++) s -= mul30(x[j], t->diag[p][j][k]);
            x[k] = t->diag[p][k][k] ? div30(clamp64(s, VEC_MAX), t->diag[p][k][k]) : 0;
        }
    }
    /* lambda = S x, back to Q16.16. */
    for (int p = lo; p < hi; p++)
        for (int k = 0; k < t->rows[p]; k++)
            t->vec[p][k] = qp__sat32(scale2(t->vec[p][k], 16 - VEC_Q - t->scale[p][k]));
}
#endif
