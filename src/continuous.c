/* SPDX-License-Identifier: MIT */
/* Stage "continuous": continuous collision, a time-of-impact net under fast pairs
 * (docs/design.md §4; seed 003).
 *
 * Runs after the velocity passes, before positions move. A pair whose bodies
 * close in this step by more than half the thinner shape's core is collided at
 * its start poses with a margin grown by the approach (narrow_phase.c: a
 * speculative contact), and the passes stop it at the surface. Where they
 * cannot, the pair would end deep in or past each other: a speculative normal
 * found with the shapes far apart is not always the impact's (a turned box met
 * another's edge 0.9 m away along a face normal, and went into it), and an
 * impact far off a light body's centre asks for more spin than the clamp lets
 * it keep, which leaves the approach at the point (a 0.2 m box hit 1 cm off a
 * ball's centre at 15 m/s sank 10 cm a step and came out the far side).
 *
 * Seed 003's plan is the net: "sweep between the old and the current
 * position, find the first time of collision, move the object to that time".
 * Each such pair is swept from where its bodies are to where integration would
 * take them, and conservative advancement finds the first fraction of the step
 * at which the shapes would be deeper in each other than they may end: half
 * the thinner core for a pair the narrow phase found apart (no contact), the
 * whole core for one in contact (the thinner shape's centre stays out of the
 * other), and no deeper than it already is plus the slop. Its moving bodies
 * then travel only that fraction of their motion; velocities are kept, so the
 * next step meets the contact at its true features. A pair in contact is
 * swept by translation alone, and only its translation is cut: a corner
 * turning into what it touches is for the contact to push back, and cutting
 * the turn stalled spinning bodies against what they touched, step after step.
 * Bodies held by joints are cut together (a limb stopped alone pulled its
 * joints apart).
 *
 * Against ground the net is finer: a body found apart from it that closes in by
 * more than the contact margin ends no deeper in it than the slop. A body struck
 * within the step can be driven into the ground where no contact was found: a
 * cube bouncing clear of the ground, struck back down by a second one in that
 * step, had no pair with the ground at all (the broad phase pairs the predicted
 * poses' boxes, and there it was rising) and went 9 cm in (bench_landings, seed
 * 53142). So a struck body (pushed by a moving body, or held by a joint) that
 * moves more than the margin is swept against every ground shape its motion
 * reaches and has no contact with, paired or not. Ground is static geometry (a
 * static body, or a kinematic one at rest) and, to a struck body, a dynamic body
 * four or more times as heavy that gives way by no more than the margin this
 * step (a 500 kg crate at rest under a 1 kg cube: seed 57185 went 9.5 cm into
 * it). A body falling or sliding freely moves as predicted, and its pairs and
 * contacts were made for that. Between moving bodies of like mass the deeper
 * allowance stays: both give way there, and the struck body's contacts with them
 * push it out.
 *
 * The motion is cut through the split-impulse velocity, which integrate adds
 * and then drops: no memory of its own. Pairs with a kinematic body are left to
 * their speculative contact: a kinematic body's motion is never cut. Pairs are
 * visited in their key order and each cut is made at once, so later pairs see
 * the shortened motion: the result is a function of the state alone.
 */
#include "body.h"
#include "contact.h"
#include "scratch.h"
#include "stages.h"
#include "geometry.h"
#include "level.h"
#include "math_inline.h"

/* Advances per sweep, and halvings when one overshoots: bounded work per pair. */
#define TOI_STEPS 24
#define TOI_HALVINGS 10

/* The motion integrate will give body i this step: its clamped velocities plus
 * the split-impulse ones, and the clamped velocities alone (vc, wc). */
static void motion_of(const qp_world *w, int i, qp_vec3 *v, qp_vec3 *omega, qp_vec3 *vc, qp_vec3 *wc)
{
    const qp_body_state *b = &w->bodies[i];
    *vc = b->v;
    *wc = b->w;
    (void)qp__clamp_speed(vc, w->def.max_linear_speed);
    (void)qp__clamp_speed(wc, w->def.max_angular_speed);
    if (b->state & QP_STATE_WOKEN) {   /* woken by the passes: integrate keeps it still (sleep.c) */
        *v = *omega = qp_v3_zero();
        return;
    }
    const fix16_t *pv = qp__split(w)->pseudo_v[i];
    *v = qp_v3_add(*vc, qp_v3(pv[0], pv[1], pv[2]));
    *omega = qp_v3_add(*wc, qp_v3(pv[3], pv[4], pv[5]));
}

/* Cut body i's translation (and its turn, if turn) to the fraction t of what it
 * is: integrate adds the clamped velocity (the same clamp) and the split-impulse
 * one, so the latter becomes the difference, exactly. */
static void cut_motion(qp_world *w, int i, fix16_t t, bool turn)
{
    qp_vec3 v, omega, vc, wc;
    motion_of(w, i, &v, &omega, &vc, &wc);
    v = qp_v3_sub(qp_v3_scale(v, t), vc);
    omega = qp_v3_sub(qp_v3_scale(omega, turn ? t : QP_ONE), wc);
    fix16_t *pv = qp__split(w)->pseudo_v[i];
    pv[0] = v.x, pv[1] = v.y, pv[2] = v.z;
    pv[3] = omega.x, pv[4] = omega.y, pv[5] = omega.z;
}

/* cut_motion for body i and every moving body its joints hold, through moving
 * bodies (each marked QP_STATE_CUT while the walk lasts). */
static void cut_joined(qp_world *w, int i, fix16_t t, bool turn)
{
    cut_motion(w, i, t, turn);
    if (w->joint_count == 0) return;
    w->bodies[i].state |= QP_STATE_CUT;
    for (bool grew = true; grew;) {
        grew = false;
        for (int k = 0; k < qp__cap_joints(w); k++) {
            const qp_joint *j = &w->joints[k];
            if (j->a == 0) continue;
            bool ca = (w->bodies[j->a].state & QP_STATE_CUT) != 0, cb = (w->bodies[j->b].state & QP_STATE_CUT) != 0;
            int other = ca ? j->b : j->a;
            if (ca == cb || !qp__body_moves(&w->bodies[other])) continue;
            cut_motion(w, other, t, turn);
            w->bodies[other].state |= QP_STATE_CUT;
            grew = true;
        }
    }
    w->bodies[i].state &= (uint16_t)~QP_STATE_CUT;
    for (int k = 0; k < qp__cap_joints(w); k++) {
        const qp_joint *j = &w->joints[k];
        if (j->a == 0) continue;
        w->bodies[j->a].state &= (uint16_t)~QP_STATE_CUT;
        w->bodies[j->b].state &= (uint16_t)~QP_STATE_CUT;
    }
}

/* How far a point of shape s can move per radian its body turns: the distance
 * from the body's centre of mass to the farthest point of the shape's core (a
 * sphere turning about its own centre moves none of its surface). */
static fix16_t turn_arm(const qp_shape *s)
{
    int64_t arm = qp_v3_len(s->offset);
    if (s->type == QP_SHAPE_CAPSULE) arm += s->half_height;
    if (s->type == QP_SHAPE_BOX) arm += qp_v3_len(s->half);
    if (s->type == QP_SHAPE_HULL) arm += s->hull->radius;
    return qp__sat32(arm);
}

/* Each moving body's reach this step, a bound of how far its centre moves, in
 * units of 2^-10 m rounded up (saturated at 64 m): its velocity as integrate adds
 * it, before the clamp (which only shortens it), by the smaller of the sum of its
 * components' sizes and 7/4 of the largest (no square root: every awake body is
 * measured at every step). Written to
 * w->queue (free scratch between the contact graph and sleep), for the pairs'
 * first test. REACH_ANY when some pair might close in by half its thinner core, else
 * REACH_STATIC when some body moves more than the contact margin (only pairs with static
 * geometry are swept then), else REACH_NONE (most steps of a world at rest, at the cost of
 * a scan). */
typedef enum { REACH_NONE, REACH_STATIC, REACH_ANY } qp_reach;

static qp_reach reaches(qp_world *w)
{
    int64_t far = 0;
    fix16_t thinnest = INT32_MAX;
    for (int i = 0; i <= w->body_high; i++) {
        const qp_body_state *b = &w->bodies[i];
        w->queue[i] = 0;
        if (!(b->state & QP_STATE_USED)) continue;
        for (int k = 0; k < b->shape_count; k++) {
            fix16_t core = qp__shape_core(&w->shapes[b->shapes[k]].shape);
            if (core < thinnest) thinnest = core;
        }
        if (!qp__body_moves(b)) continue;
        const fix16_t *pv = qp__split(w)->pseudo_v[i];
        qp_vec3 v = qp_v3_add(b->v, qp_v3(pv[0], pv[1], pv[2]));
        int64_t ax = v.x < 0 ? -(int64_t)v.x : v.x, ay = v.y < 0 ? -(int64_t)v.y : v.y, az = v.z < 0 ? -(int64_t)v.z : v.z;
        int64_t most = ax > ay ? (ax > az ? ax : az) : (ay > az ? ay : az);
        int64_t speed = ax + ay + az, diag = most * 7 / 4;   /* both at least the length (7/4 > sqrt 3) */
        if (diag < speed) speed = diag;
        int64_t reach = (speed + 1) * w->def.dt;   /* Q32 */
        reach = (reach + (INT64_C(1) << 22) - 1) >> 22;
        w->queue[i] = (uint16_t)(reach > 0xFFFF ? 0xFFFF : reach);
        if (reach > far) far = reach;
    }
    return 2 * far > (thinnest / 2) >> 6 ? REACH_ANY : far > w->def.contact_margin >> 6 ? REACH_STATIC : REACH_NONE;
}

/* One pair's sweep: its shapes on their bodies, from the start poses along the
 * bodies' motions; the pose at fraction t of the step is what integrate makes of
 * the motion scaled by t. */
typedef struct {
    const qp_world *w;
    int shape[2];
    qp_vec3 x0[2], v[2], omega[2];
    qp_quat q0[2];
    fix16_t reach;                /* how far the shapes can close in over the whole step, m */
    fix16_t turn;                 /* how far their turns alone can move a point of them, m */
} qp_sweep;

/* A lower bound of the shapes' distance at fraction t (negative: minus their
 * penetration), looked for out to `beyond` (returned when farther), and how far
 * they can close in along its axis over the whole step (*closing: the bodies'
 * approach along the axis, and their turns): nothing brings them closer than the
 * distance less that before it has taken that much of the step (Mirtich's
 * conservative advancement), which sliding bodies, whose motion is across the
 * axis, no longer slow down. Boxes and capsules against boxes by their separating
 * axes and closest points (a manifold reports depths only over a clipped face: none
 * where the shapes are apart sideways), round shapes and planes by the manifold's
 * closest points, which are exact. Out of line: its transforms and manifold stay
 * off the caller's frame (the micro:bit's stack). */
static QP__NOINLINE fix16_t separation(const qp_sweep *s, fix16_t t, fix16_t beyond, fix16_t *closing)
{
    qp_transform xf[2];
    for (int k = 0; k < 2; k++) {
        qp_vec3 x = qp_v3_mad(s->x0[k], qp_v3_scale(s->v[k], t), s->w->def.dt);
        qp_quat q = qp_quat_integrate(s->q0[k], qp_v3_scale(s->omega[k], t), s->w->def.dt);
        qp_rot3 r = qp_quat_to_rot3(q);
        xf[k] = qp__shape_world(s->w, s->shape[k], &x, &r);
    }
    const qp_shape *sh[2] = { &s->w->shapes[s->shape[0]].shape, &s->w->shapes[s->shape[1]].shape };
    int other = sh[1]->type == QP_SHAPE_BOX ? 0 : sh[0]->type == QP_SHAPE_BOX ? 1 : -1;   /* the box's partner */
    fix16_t d;
    qp_vec3 axis;   /* Q2.30, in the frame of shape `from`, from it towards the other */
    int from = 0;
    if (other >= 0 && (sh[other]->type == QP_SHAPE_BOX || sh[other]->type == QP_SHAPE_CAPSULE)) {
        qp_transform rel = qp_transform_relative(&xf[other], &xf[1 - other]);
        d = sh[other]->type == QP_SHAPE_BOX ? qp__box_box_separation(sh[other], sh[1 - other], &rel, &axis)
                                            : qp__capsule_box_separation(sh[other], sh[1 - other], &rel, &axis);
        from = other;
    } else {
        qp_transform rel = qp_transform_relative(&xf[0], &xf[1]);
        qp_manifold m;
        if (qp_collide(sh[0], sh[1], &rel, beyond, &m) == 0) return beyond;
        fix16_t deepest = m.points[0].depth;
        for (int k = 1; k < m.count; k++)
            if (m.points[k].depth > deepest) deepest = m.points[k].depth;
        d = -deepest;
        axis = m.normal;
    }
    if (d >= beyond) return beyond;
    qp_vec3 n = qp_rot3_mul_v3(&xf[from].r, axis);   /* world */
    fix16_t approach = qp__v3_dot_q30(qp_v3_sub(s->v[from], s->v[1 - from]), n);   /* m/s towards each other */
    *closing = qp__sat32((int64_t)(approach > 0 ? qp_mul(approach, s->w->def.dt) : 0) + s->turn);
    return d;
}

/* How far the shapes can still close in after fraction t: reach (1 - t). */
static int64_t reach_left(const qp_sweep *s, fix16_t t)
{
    return qp_mul(s->reach, QP_ONE - t);
}

/* The separation at t, looked for out to what could still come down to stop. */
static fix16_t separation_to(const qp_sweep *s, fix16_t t, fix16_t stop, fix16_t *closing)
{
    int64_t beyond = reach_left(s, t) + stop;
    return separation(s, t, qp__sat32(beyond > 0 ? beyond + 1 : 1), closing);
}

/* The first fraction of the step at which the shapes' separation comes down to
 * stop (< 0: a depth), QP_ONE when it does not within the step, by conservative
 * advancement from the separation d at the start, which can close at most by
 * closing over the step: each advance aims a little past stop; one that ends past
 * stop by the slop (the bound's rounding) is halved back to the last fraction before
 * it. */
static fix16_t time_of_impact(const qp_sweep *s, fix16_t d, fix16_t closing, fix16_t stop)
{
    const fix16_t slop = s->w->def.slop, aim = qp__sat32((int64_t)stop - slop / 2),
                  floor = qp__sat32((int64_t)stop - slop);
    fix16_t t = 0;
    for (int i = 0; i < TOI_STEPS; i++) {
        if (d <= stop) return t;
        if ((int64_t)d - reach_left(s, t) > stop || closing <= 0) return QP_ONE;   /* the rest cannot close it */
        int64_t step = ((((int64_t)d - aim) << 16) + closing - 1) / closing;   /* fraction of the step, rounded up */
        fix16_t next = step >= QP_ONE - t ? QP_ONE : t + (fix16_t)step;
        fix16_t dn = separation_to(s, next, stop, &closing);
        if (dn < floor) {   /* overshot: halve back to the last fraction before it */
            fix16_t lo = t, hi = next, unused = 0;
            for (int h = 0; h < TOI_HALVINGS && hi - lo > 1; h++) {
                fix16_t mid = lo + (hi - lo) / 2;
                if (separation_to(s, mid, stop, &unused) >= floor) lo = mid; else hi = mid;
            }
            return lo;
        }
        if (next == QP_ONE) return QP_ONE;   /* it ends where it may */
        t = next;
        d = dn;
    }
    return t;   /* not converged: where it got to is still short of the floor */
}

/* An upper bound of |d| without a square root: the smaller of the sum of its components'
 * sizes and 7/4 of the largest, plus one for the division's floor (7/4 > sqrt 3). */
static int64_t length_bound(int64_t dx, int64_t dy, int64_t dz)
{
    int64_t ax = dx < 0 ? -dx : dx, ay = dy < 0 ? -dy : dy, az = dz < 0 ? -dz : dz;
    int64_t most = ax > ay ? (ax > az ? ax : az) : (ay > az ? ay : az);
    int64_t sum = ax + ay + az, diag = most * 7 / 4 + 1;
    return diag < sum ? diag : sum;
}

/* False when a pair of moving bodies cannot close in by more than half its thinner core
 * this step: sweep_pair's closing speed bounded from the bodies' velocities before their
 * clamp, with no clamp, square root nor product. Bodies falling side by side reach far
 * and close in little (rain512's cloud of cubes: 750 pairs a step passed the reaches'
 * test, and most of them then stopped at the closing speed). The clamp moves no
 * two velocities apart (a projection onto a ball, rounded towards zero: a few units),
 * the split-impulse ones are added after it (bounded apart), and the saturations only
 * shorten: |sub| <= |v1 - v0| + |p1 - p0| + 16 units, the length's rounding one more
 * and the product's below one. */
static bool may_close_in(const qp_world *w, const int body[2], fix16_t half_core)
{
    int64_t v[2][3], p[2][3];
    for (int k = 0; k < 2; k++) {
        const qp_body_state *b = &w->bodies[body[k]];
        bool moves = qp__body_moves(b);
        const fix16_t *pv = qp__split(w)->pseudo_v[body[k]];
        v[k][0] = moves ? b->v.x : 0, v[k][1] = moves ? b->v.y : 0, v[k][2] = moves ? b->v.z : 0;
        for (int c = 0; c < 3; c++) p[k][c] = moves ? pv[c] : 0;
    }
    int64_t speed = length_bound(v[1][0] - v[0][0], v[1][1] - v[0][1], v[1][2] - v[0][2]) +
                    length_bound(p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]) + 17;
    return ((speed * w->def.dt) >> 16) + 1 > half_core;
}

/* Static geometry: a static body, or a kinematic one that does not move. */
static bool holds_still(const qp_body_state *b)
{
    return !qp__body_dynamic(b) && !qp__body_drives(b);
}

/* How much heavier than a struck body a dynamic body must be to be ground to it. */
#define GROUND_MASS_RATIO 4

/* Is body j ground to a struck body whose inverse mass is inv_mass: static geometry, or a
 * dynamic body at least GROUND_MASS_RATIO times as heavy that gives way by no more than the
 * contact margin this step (asleep, or its reach within the margin)? Struck so, it gives way by
 * at most a fifth of the approach: a cube struck down onto a 500 kg crate is stopped as on the
 * ground (it went 9.5 cm in: bench_landings seed 57185), where two bodies of like mass both give
 * way, and the deeper allowance between moving bodies is theirs. */
static bool ground_to(const qp_world *w, int j, fix16_t inv_mass)
{
    const qp_body_state *b = &w->bodies[j];
    if (holds_still(b)) return true;
    return qp__body_dynamic(b) && (int64_t)b->inv_mass * GROUND_MASS_RATIO <= inv_mass &&
           (!qp__body_moves(b) || w->queue[j] <= w->def.contact_margin >> 6);
}

/* Sweep one pair; cut its bodies' motion where they would sink too deep, if they would. With
 * fixed, the pair is a struck body and ground it has no contact with (sweep_ground), and only
 * the struck body's motion is cut. */
static void sweep_pair(qp_world *w, const qp_pair *p, bool fixed)
{
    const int ends[2] = { w->shapes[p->a].body, w->shapes[p->b].body };
    fix16_t thinnest = qp__shape_core(&w->shapes[p->a].shape), tb = qp__shape_core(&w->shapes[p->b].shape);
    if (tb < thinnest) thinnest = tb;
    /* Most pairs close in by less than half their thinner core (fixed: than the contact
     * margin): the contacts at the predicted poses see them (the narrow phase's test for a
     * swept pair). */
    const fix16_t least = fixed ? w->def.contact_margin : thinnest / 2;
    if ((int64_t)w->queue[ends[0]] + w->queue[ends[1]] <= least >> 6) return;
    if (!may_close_in(w, ends, least)) return;
    qp_sweep s;
    s.w = w;
    int body[2];
    for (int k = 0; k < 2; k++) {
        s.shape[k] = k == 0 ? p->a : p->b;
        body[k] = w->shapes[s.shape[k]].body;
        const qp_body_state *b = &w->bodies[body[k]];
        if (qp__body_drives(b)) return;   /* kinematic: its speculative contact does it */
        s.x0[k] = b->x;
        s.q0[k] = b->q;
        s.v[k] = s.omega[k] = qp_v3_zero();
        qp_vec3 vc, wc;
        if (qp__body_moves(b)) motion_of(w, body[k], &s.v[k], &s.omega[k], &vc, &wc);
    }
    fix16_t closing = qp_mul(qp_v3_len(qp_v3_sub(s.v[1], s.v[0])), w->def.dt);
    if (closing <= least) return;
    int64_t turn = 0;
    for (int k = 0; k < 2; k++) turn += qp_mul(qp_v3_len(s.omega[k]), turn_arm(&w->shapes[s.shape[k]].shape));
    s.turn = qp_mul(qp__sat32(turn), w->def.dt);
    s.reach = qp__sat32((int64_t)closing + s.turn);
    fix16_t along = 0;   /* how far they can close in along the axis of d0 */
    fix16_t d0 = separation_to(&s, 0, w->def.contact_margin, &along);
    bool contact = d0 <= w->def.contact_margin;
    if (contact && closing <= thinnest / 2) return;
    if (contact) {   /* its translation alone (above) */
        s.omega[0] = s.omega[1] = qp_v3_zero();
        s.reach = closing;
        along = qp__sat32((int64_t)along - s.turn);
        s.turn = 0;
    }
    fix16_t sink = d0 < 0 ? qp__sat32((int64_t)w->def.slop - d0) : 0,
            room = contact ? thinnest : fixed ? w->def.slop : thinnest / 2;
    fix16_t t = time_of_impact(&s, d0, along, -(sink > room ? sink : room));
    if (t >= QP_ONE) return;
    for (int k = 0; k < 2; k++)
        if (qp__body_moves(&w->bodies[body[k]]) && !(fixed && w->queue[body[k]] <= w->def.contact_margin >> 6))
            cut_joined(w, body[k], t, !contact);
}

/* A bound of how far from its body's centre of mass shape s reaches, without a square root
 * (each length by the sum of its components' sizes): its core's farthest point, as turn_arm,
 * and its rounding. */
static fix16_t shape_reach(const qp_shape *s)
{
    int64_t r = qp__v3_max_abs(s->offset) * INT64_C(3);
    if (s->type == QP_SHAPE_BOX) r += (int64_t)s->half.x + s->half.y + s->half.z;
    if (s->type == QP_SHAPE_CAPSULE) r += (int64_t)s->half_height + s->radius;
    if (s->type == QP_SHAPE_SPHERE) r += s->radius;
    if (s->type == QP_SHAPE_HULL) r += s->hull->radius;
    return qp__sat32(r);
}

/* Is body i struck (mark_struck) and moving more than the contact margin this step (its
 * reach, reaches)? */
static bool struck_far(const qp_world *w, int i)
{
    const qp_body_state *b = &w->bodies[i];
    return (b->state & QP_STATE_STRUCK) && qp__body_moves(b) && !(b->state & QP_STATE_WOKEN) &&
           w->queue[i] > w->def.contact_margin >> 6;
}

/* Does struck body i move more than the contact margin this step? Then the box that holds
 * shape k over the whole motion, whatever its direction and turn, grown by the margin: its
 * centre's reach about where it is, and the shape's about its centre. */
static bool moves_far(const qp_world *w, int i, int k, qp_aabb *box)
{
    const qp_body_state *b = &w->bodies[i];
    if (!struck_far(w, i)) return false;
    const int64_t grow = ((int64_t)w->queue[i] << 6) + shape_reach(&w->shapes[b->shapes[k]].shape) +
                         w->def.contact_margin;
    box->lo = qp_v3(qp__sat32(b->x.x - grow), qp__sat32(b->x.y - grow), qp__sat32(b->x.z - grow));
    box->hi = qp_v3(qp__sat32(b->x.x + grow), qp__sat32(b->x.y + grow), qp__sat32(b->x.z + grow));
    return true;
}

/* The box of shape k of body i over its motion this step: at its start pose and moved by the
 * step's translation, grown by the margin and by how far its turn can carry a point of it. */
static qp_aabb motion_box(const qp_world *w, int i, int k)
{
    const qp_body_state *b = &w->bodies[i];
    const int sh = b->shapes[k];
    qp_vec3 v, omega, vc, wc;
    motion_of(w, i, &v, &omega, &vc, &wc);
    const qp_rot3 r = qp__body_rot(b);
    const qp_transform xf = qp__shape_world(w, sh, &b->x, &r);
    const qp_aabb at = qp_shape_aabb(&w->shapes[sh].shape, &xf);
    const int64_t spin = (int64_t)qp__abs_sat(omega.x) + qp__abs_sat(omega.y) + qp__abs_sat(omega.z);
    const int64_t grow = w->def.contact_margin + qp_mul(qp_mul(qp__sat32(spin), shape_reach(&w->shapes[sh].shape)),
                                                        w->def.dt);
    const fix16_t move[3] = { qp_mul(v.x, w->def.dt), qp_mul(v.y, w->def.dt), qp_mul(v.z, w->def.dt) };
    const fix16_t lo[3] = { at.lo.x, at.lo.y, at.lo.z }, hi[3] = { at.hi.x, at.hi.y, at.hi.z };
    fix16_t out_lo[3], out_hi[3];
    for (int d = 0; d < 3; d++) {
        out_lo[d] = qp__sat32((int64_t)lo[d] + (move[d] < 0 ? move[d] : 0) - grow);
        out_hi[d] = qp__sat32((int64_t)hi[d] + (move[d] > 0 ? move[d] : 0) + grow);
    }
    qp_aabb box = { qp_v3(out_lo[0], out_lo[1], out_lo[2]), qp_v3(out_hi[0], out_hi[1], out_hi[2]) };
    return box;
}

/* Have shapes sa of body i and sb a contact this step (body i's contacts, the contact graph's
 * adjacency; the narrow phase finds some where the broad phase made no pair: a contact that
 * pushed, found again at the start poses)? */
static bool has_contact(const qp_world *w, int i, int sa, int sb)
{
    for (int e = w->adj_start[i]; e < w->adj_start[i + 1]; e++) {
        const qp_contact *c = &w->contacts[w->adj[e]];
        const int s0 = w->bodies[c->a].shapes[c->sa], s1 = w->bodies[c->b].shapes[c->sb];
        if ((s0 == sa && s1 == sb) || (s0 == sb && s1 == sa)) return true;
    }
    return false;
}

/* Shape k of struck body i, whose box over its motion is box, against shape m of body j:
 * swept when j is ground to i, the boxes meet, the shapes may touch and they have no contact
 * this step. */
static void sweep_ground_pair(qp_world *w, int i, int k, const qp_aabb *box, int j, int m)
{
    const int sa = w->bodies[i].shapes[k], sb = w->bodies[j].shapes[m];
    if (!ground_to(w, j, w->bodies[i].inv_mass)) return;
    /* A dynamic body's box is at its predicted pose: its motion's box instead, from where it is. */
    const qp_aabb there = holds_still(&w->bodies[j]) ? w->shapes[sb].aabb : motion_box(w, j, m);
    if (!qp__aabb_overlap(box, &there) || has_contact(w, i, sa, sb)) return;
    const qp_aabb moved = motion_box(w, i, k);
    if (!qp__aabb_overlap(&moved, &there)) return;
    const qp_pair p = { (uint16_t)(i < j ? sa : sb), (uint16_t)(i < j ? sb : sa) };
    if (!qp__shapes_pair(&w->shapes[sa], &w->shapes[sb]) || qp__pair_is_sensor(w, &p) || qp__joined(w, i, j)) return;
    sweep_pair(w, &p, true);
}

/* Every struck body moving more than the margin against every ground shape its motion
 * reaches, with the finer net, whether the broad phase paired them or not: it pairs boxes at
 * the predicted poses, and a struck body can end far from its prediction. Ground and struck
 * bodies are crossed in index order, shapes in slot order, the ground outermost unless fewer
 * bodies are struck (the same pairs; the work about the bodies times the smaller count; each
 * cut made at once, as the pairs' are). The ground counted is what is ground to the lightest
 * struck body, which holds what is ground to any. */
static void sweep_ground(qp_world *w)
{
    int movers = 0, grounds = 0;
    fix16_t lightest = 0;   /* the largest inverse mass of a struck body moving far */
    for (int i = 1; i <= w->body_high; i++) {
        const qp_body_state *b = &w->bodies[i];
        if (struck_far(w, i) && b->inv_mass > lightest) lightest = b->inv_mass;
    }
    for (int i = 1; i <= w->body_high; i++) {
        const qp_body_state *b = &w->bodies[i];
        if (!(b->state & QP_STATE_USED) || b->shape_count == 0) continue;
        movers += (b->state & QP_STATE_STRUCK) != 0;
        grounds += ground_to(w, i, lightest);
    }
    if (movers == 0 || grounds == 0) return;
    const bool grounds_out = grounds <= movers;
    for (int o = 1; o <= w->body_high; o++) {
        const qp_body_state *outer = &w->bodies[o];
        if (!(outer->state & QP_STATE_USED) ||
            (grounds_out ? !ground_to(w, o, lightest) : !(outer->state & QP_STATE_STRUCK)))
            continue;
        for (int a = 0; a < outer->shape_count; a++) {
            qp_aabb box;
            if (!grounds_out && !moves_far(w, o, a, &box)) continue;
            for (int n = 1; n <= w->body_high; n++) {
                const qp_body_state *inner = &w->bodies[n];
                if (!(inner->state & QP_STATE_USED) ||
                    (grounds_out ? !(inner->state & QP_STATE_STRUCK) : !ground_to(w, n, lightest)))
                    continue;
                for (int b = 0; b < inner->shape_count; b++) {
                    if (!grounds_out) sweep_ground_pair(w, o, a, &box, n, b);
                    else if (moves_far(w, n, b, &box)) sweep_ground_pair(w, n, b, &box, o, a);
                }
            }
        }
    }
}

/* Mark the dynamic bodies whose motion the passes made other than predicted in ways the broad
 * phase could not see: pushed by a moving or driving body (a contact point with a normal
 * impulse) or held by a joint. Only those need the finer net against ground: a body
 * falling or sliding freely moves as predicted, and its pairs were made for that motion. */
static void mark_struck(qp_world *w)
{
    for (int i = 0; i < w->contact_count; i++) {
        const qp_contact *c = &w->contacts[i];
        qp_body_state *a = &w->bodies[c->a], *b = &w->bodies[c->b];
        if ((c->flags & QP_CONTACT_SLEEPING) || holds_still(a) || holds_still(b)) continue;
        bool pushed = false;
        for (int k = 0; k < c->count; k++) pushed = pushed || c->p[k].jn > 0;
        if (!pushed) continue;
        if (qp__body_dynamic(a)) a->state |= QP_STATE_STRUCK;
        if (qp__body_dynamic(b)) b->state |= QP_STATE_STRUCK;
    }
    for (int i = 0; i < qp__cap_joints(w) && w->joint_count > 0; i++) {
        const qp_joint *j = &w->joints[i];
        if (j->a == 0) continue;
        if (qp__body_dynamic(&w->bodies[j->a])) w->bodies[j->a].state |= QP_STATE_STRUCK;
        if (qp__body_dynamic(&w->bodies[j->b])) w->bodies[j->b].state |= QP_STATE_STRUCK;
    }
}

void qp__continuous(qp_world *w)
{
    const qp_reach reach = reaches(w);
    if (reach == REACH_NONE) return;
    for (int i = 0; reach == REACH_ANY && i < w->pair_count; i++) {
        const qp_pair *p = &w->pairs[i];
        if (qp__pair_is_sensor(w, p)) continue;
        sweep_pair(w, p, false);
    }
    mark_struck(w);
    sweep_ground(w);
    for (int i = 1; i <= w->body_high; i++) w->bodies[i].state &= (uint16_t)~QP_STATE_STRUCK;
}
