/* SPDX-License-Identifier: MIT */
/* Stage "penetration": split impulse (docs/design.md §3; seed 004).
 *
 * Overlap beyond the slop is removed by pseudo-velocities that move the
 * bodies in the position update and are then forgotten: no momentum is
 * added, so a resting stack does not bounce out of its overlaps. The
 * pseudo-velocity asked of a point is penetration_rate * (depth - slop) / dt,
 * capped at max_penetration_speed. Sleepers and static bodies do not move.
 *
 * The same pass holds static friction in place where a round shape touches:
 * a sticking contact keeps a point on each body whose tangential drift apart
 * is its slip since it began to stick (anchors, narrow_phase.c: they follow
 * the point of contact over a rolling surface), and that drift is undone at
 * the same rate. Flat contacts need no anchors since the shock pass
 * continues the contact pass's friction between levels (shock.c), and with
 * anchors a pile stays awake longer (a corner's anchor drifting: rain512
 * sleeps about 300 steps later) and a column that lands tilted is pulled off
 * line (tilted columns of 20 drift twice as far).
 */
#include "contact_graph.h"
#include "joint.h"
#include "overlap.h"
#include "scratch.h"
#include "solver.h"
#include "stages.h"
#include "bench_count.h"

/* Does this contact have anchors to hold: sticking, where a sphere or capsule
 * touches (the only contacts with them)? */
static bool anchored(const qp_world *w, const qp_contact *c)
{
    return !(c->flags & QP_CONTACT_SLIDING) && qp__contact_round(w, c);
}

/* Tangential drift between the anchors of a sticking contact, pulled back. */
static bool hold_anchors(qp_world *w, qp_contact *c, const qp_contact_rows *r, int move, bool pinned)
{
    QP__COUNT(pen_anchor, 2);
    bool any = false;
    fix16_t drift[2], targets[2];
    qp__rows_anchor_drift(w, c, r, drift, targets);
    /* A sticking contact whose anchors have come apart tangentially is not
     * at rest: its bodies restart their sleep test (sleep.c). Only one that
     * carries a load: without one its anchors hold nothing and never come back
     * (a box settling beside a wall never slept). */
    fix16_t d1 = drift[0], d2 = drift[1];
    int64_t jn_sum = 0;
    for (int k = 0; k < c->count; k++) jn_sum += c->p[k].jn;
    if (jn_sum > 0 && ((d1 < 0 ? -d1 : d1) > w->def.gap_tolerance || (d2 < 0 ? -d2 : d2) > w->def.gap_tolerance))
        c->flags |= QP_CONTACT_CHANGED;
    fix16_t bound = qp__mul(r->static_friction, qp__sat32(jn_sum));
    qp_vel_ref v = qp__pseudo_vel_ref(w, c);
    fix16_t *total[2] = { &c->st1, &c->st2 };
    for (int i = 0; i < 2; i++) {
        fix16_t target = targets[i];
        fix16_t m = pinned ? qp__row_mass_pinned(w, c, r, i, move) : r->mt[i];
        fix16_t j = qp__mul(qp__sat32((int64_t)target - qp__row_speed(&v, r, i)), m);
        fix16_t want = qp__sat32((int64_t)*total[i] + j);
        if (want > bound) want = bound;
        if (want < -bound) want = -bound;
        qp__row_apply(w, c, r, &v, i, want - *total[i], move);
        any |= want != *total[i];
        *total[i] = want;
    }
    return any;
}

/* What a visit to a contact does: the sides it moves, pinned or not, and the rows it
 * needs (points past the slop, anchors to hold). Set by the positions, the flags and the
 * contact graph, none of which the pass changes: a contact with nothing to do at the
 * first sweep has nothing at any (a point within the slop takes no impulse, so its
 * total stays 0). */
typedef struct {
    int move, pin;
    bool pinned, light_below, anchors;
    unsigned need;
} qp_split_visit;

/* False when a visit would do nothing. */
static bool plan_visit(qp_world *w, const qp_contact *c, qp_split_visit *s)
{
    /* The points past the slop or holding a split impulse, found first: most contacts of a
     * pile have none and no anchors, and then no visit whatever their sides (the same
     * answer; finding the sides flags bodies only for a deep overlap, left to the test). */
    unsigned points = 0;
    for (int k = 0; k < c->count; k++)
        if (c->p[k].depth > w->def.slop || c->p[k].jp != 0) points |= QP_ROWS_POINT(k);
    if (points == 0 && !(c->flags & QP_CONTACT_OVERLAP) && !anchored(w, c)) return false;
    int move = (qp__body_moves(&w->bodies[c->a]) ? QP_MOVE_A : 0) | (qp__body_moves(&w->bodies[c->b]) ? QP_MOVE_B : 0);
    /* A lighter body under a heavier one (across contact-graph levels) is
     * pinned, as in the shock pass: between unequal masses a split impulse
     * moves the light body almost all the way, into what holds it (a 1 kg box
     * a car presses against a wall, a light cube under a heavy one). */
    s->pin = qp__shock_movable(w, c);
    int lower = qp__contact_lower(w, c);
    s->light_below = lower >= 0 && w->bodies[lower].inv_mass > w->bodies[lower == c->a ? c->b : c->a].inv_mass;
    if (s->light_below) move &= s->pin;
    if ((c->flags & QP_CONTACT_SLEEPING) || !move) return false;
    if (!(move = qp__deep_sides(w, c, move))) return false;   /* not into static geometry (overlap.c) */
    s->move = move;
    s->pinned = move != qp__movable(w, c);
    /* Only the rows this visit uses (low-RAM builds them at every visit). */
    s->need = points;
    /* Anchors pull back with both sides moving, or the light one pinned (not
     * against a sleeper: it does not move, and its contact's masses are not kept). */
    s->anchors = (!s->pinned || (s->light_below && move == s->pin)) && anchored(w, c);
    if (s->anchors) s->need |= QP_ROWS_TANGENTS;
    return s->need != 0;
}

/* One sweep over one contact: its points' split impulses, then its anchors; returns the
 * sides whose pseudo-velocities it changed (0: none). Out of line, so that its rows (on
 * the stack in low-RAM) are not in the pass's frame while the joints' drift is solved
 * (the micro:bit's stack). */
static QP__NOINLINE int separate(qp_world *w, qp_contact *c)
{
    qp_split_visit s;
    if (!plan_visit(w, c, &s)) return 0;
    const int move = s.move, pin = s.pin;
    const bool pinned = s.pinned;
    const unsigned need = s.need;
    bool any = false;
    fix16_t dt = w->def.dt;
    qp_vel_ref v = qp__pseudo_vel_ref(w, c);
    qp_contact_rows scratch;
    const qp_contact_rows *r = qp__rows_for(w, c, &scratch, need, move);
    int64_t lin = 0;      /* qp__rel_dot(&v, c->n) while no impulse changed the velocities */
    bool lin_ok = false;
    for (int k = 0; k < c->count; k++) {
        qp_contact_point *p = &c->p[k];
        if (!(need & QP_ROWS_POINT(k))) continue;
        QP__COUNT(pen_normal, 1);
        fix16_t excess = p->depth > w->def.slop ? p->depth - w->def.slop : 0;
        fix16_t target = qp__div(qp__mul(w->def.penetration_rate, excess), dt);
        if (target > w->def.max_penetration_speed) target = w->def.max_penetration_speed;
        fix16_t m = !pinned ? r->pt[k].mn : move == pin ? qp__point_mass_pinned(w, c, r, k, move) : qp__point_mass(w, c, r, k, move);
        if (!lin_ok) lin = qp__rel_dot(&v, c->n);
        fix16_t j = qp__mul(qp__sat32((int64_t)target - qp__point_speed_from(&v, r, k, lin)), m);
        fix16_t total = qp__sat32((int64_t)p->jp + j);
        if (total < 0) total = 0;
        qp__point_apply(w, c, r, &v, k, total - p->jp, move);
        lin_ok = total == p->jp;
        any |= total != p->jp;
        p->jp = total;
    }
    if (s.anchors) any |= hold_anchors(w, c, r, move, pinned);
    return any ? move : 0;
}

/* Visits that would change nothing are skipped, as in the other passes (quiet.h): a visit
 * that changed no pseudo-velocity is a function of its plan and rows, which the pass does not
 * change, of its contact's own totals, which it left as they were, and of its bodies'
 * pseudo-velocities. While neither of those has changed since, the next visit would change
 * nothing again, with the same bits (its flags set as before). A resting pile's sweeps are
 * mostly such visits (rain512 over steps 201-300: of 165 contacts listed, 128-145 a sweep
 * change nothing). Visits are numbered from 1 in 16 bits: moved_at, the visit at which a
 * body's pseudo-velocity last changed, in w->queue (free scratch from the contact graph to the
 * continuous stage); quiet_at, the visit at which a listed contact last changed nothing,
 * after the list in its own array when both fit there. Past 0xFFFF, or with no room, every
 * visit is made. */
typedef struct {
    uint16_t visit;      /* this visit's number; 0: skipping is off */
    uint16_t *quiet_at;  /* by place in the list */
} qp_split_quiet;

static void split_quiet_start(qp_world *w, qp_split_quiet *q, int n)
{
    q->visit = 0;
    q->quiet_at = 0;
    if (2 * n > qp__cap_contacts(w)) return;
    q->quiet_at = qp__split(w)->visit + n;
    for (int o = 0; o < n; o++) q->quiet_at[o] = 0;
    for (int i = 0; i <= w->body_high; i++) w->queue[i] = 0;
    q->visit = 1;
}

static void split_quiet_next(qp_split_quiet *q)
{
    if (q->visit != 0) q->visit = q->visit < 0xFFFF ? (uint16_t)(q->visit + 1) : 0;
}

/* The joints' drift may have changed their bodies' pseudo-velocities: marked at every
 * sweep, whatever it answered. */
static void split_quiet_joints(qp_world *w, qp_split_quiet *q)
{
    if (q->visit == 0 || w->joint_count == 0) return;
    for (int o = 0; o < w->joint_count; o++) {
        const qp_joint *j = &w->joints[w->joint_order[o] - 1];
        w->queue[j->a] = w->queue[j->b] = q->visit;
    }
    split_quiet_next(q);
}

/* The visit of the o-th listed contact, c, unless it would change nothing; true if it
 * changed a pseudo-velocity. */
static bool split_visit(qp_world *w, qp_split_quiet *q, int o, qp_contact *c)
{
    if (q->visit == 0) return separate(w, c) != 0;
    uint16_t at = q->quiet_at[o];
    if (at != 0 && w->queue[c->a] < at && w->queue[c->b] < at) return false;
    int moved = separate(w, c);
    q->quiet_at[o] = moved ? 0 : q->visit;
    if (moved & QP_MOVE_A) w->queue[c->a] = q->visit;
    if (moved & QP_MOVE_B) w->queue[c->b] = q->visit;
    split_quiet_next(q);
    return moved != 0;
}

/* After the sweeps: anchors that the pass could not bring any closer yield. Their pull is
 * static friction, bounded by the contact's load; what holds against it is a rule without a
 * bound, a wall's or the ground's non-penetration or a joint at its limit, and the anchors
 * ask for a place the body cannot reach. Static friction would need more than its bound, so
 * the contact slips: along such a tangent b's anchor moves to where the bodies' points meet
 * after this step's move. Held, the anchors pulled for ever: a forearm on the ground, pushed
 * out of the wall by the wall's split impulse, read the push as slip and was pulled back into
 * the wall, whose impulse grew with the anchors' over every sweep (40 sweeps did not settle
 * it); the anchors stayed 1.7 mm apart and restarted the limb's sleep test every step. Drift
 * within the gap tolerance is creep, which the anchors hold. Out of line, as
 * separate, for the micro:bit's stack. */
static QP__NOINLINE void yield_anchors(qp_world *w, qp_contact *c)
{
    qp_split_visit s;
    if (!anchored(w, c) || !plan_visit(w, c, &s) || !s.anchors) return;   /* flat contacts: none */
    qp_contact_rows scratch;
    const qp_contact_rows *r = qp__rows_for(w, c, &scratch, QP_ROWS_TANGENTS, s.move);
    fix16_t drift[2], targets[2];
    qp__rows_anchor_drift(w, c, r, drift, targets);
    qp_vel_ref v = qp__pseudo_vel_ref(w, c);
    qp_vec3 shift = qp_v3_zero();   /* world */
    for (int i = 0; i < 2; i++) {
        int64_t asked = targets[i], done = qp__row_speed(&v, r, i);
        if (qp__abs_sat(drift[i]) <= w->def.gap_tolerance || done * asked > 0) continue;
        /* The slip: the drift the step's move (done dt) leaves, taken back. */
        fix16_t slip = qp__sat32(-(int64_t)drift[i] - qp__mul(qp__sat32(done), w->def.dt));
        qp_vec3 t = i == 0 ? r->t1 : r->t2;
        shift = qp__v3_add(shift, qp_v3(qp__r30((int64_t)slip * t.x), qp__r30((int64_t)slip * t.y), qp__r30((int64_t)slip * t.z)));
    }
    if (!(shift.x | shift.y | shift.z)) return;
    const qp_rot3 rb = qp__body_rot(&w->bodies[c->b]);
    c->anchor_b = qp__v3_add(c->anchor_b, qp_rot3_tmul_v3(&rb, shift));
}

void qp__penetration(qp_world *w)
{
    qp__passes_forget(w);   /* its memory becomes the pseudo-velocities */
    for (int i = 0; i <= w->body_high; i++)
        for (int k = 0; k < 6; k++) qp__split(w)->pseudo_v[i][k] = 0;
    /* The sweeps visit only the contacts with something to do: a resting pile's sweeps
     * walked all of them for a few (rain512 at rest: four sweeps over 951 contacts, of
     * which 157 have work). Not even listed without sweeps: finding a contact's sides can
     * flag its bodies (qp__deep_sides), which no sweep did then. */
    int n = 0;
    const int ahead = qp__prefetch_ahead(w);
    for (int o = 0; w->def.penetration_iterations > 0 && o < w->contact_count; o++) {
        if (ahead && o + ahead < w->contact_count) qp__contact_record_prefetch(w, w->order[o + ahead]);
        qp_split_visit s;
        if (plan_visit(w, &w->contacts[w->order[o]], &s)) qp__split(w)->visit[n++] = w->order[o];
    }
    qp_split_quiet q;
    split_quiet_start(w, &q, n);
    for (int it = 0; it < w->def.penetration_iterations; it++) {
        bool any = qp__drift_joints(w);
        split_quiet_joints(w, &q);
        QP__COUNT(pen_sweeps, 1);
        for (int o = 0; o < n; o++) {
            if (ahead && o + ahead < n) qp__contact_prefetch(w, qp__split(w)->visit[o + ahead]);
            any |= split_visit(w, &q, o, &w->contacts[qp__split(w)->visit[o]]);
        }
        if (!any) break;  /* nothing moved: the next sweep would not either */
    }
    /* The sweeps end with the contacts, whose split impulses can open the trees' joints: an
     * upper arm pressed into the ground by its ragdoll was turned 40-70 mrad a step by its
     * contact's and turned back by the projection, awake for ever. The trees' drift rows,
     * solved once more, leave only the move the joints allow; the contacts take the rest in
     * the steps that follow. */
    if (w->def.penetration_iterations > 0) (void)qp__drift_trees(w);
    for (int o = 0; o < n; o++) yield_anchors(w, &w->contacts[qp__split(w)->visit[o]]);
    for (int i = 0; i < w->contact_count; i++) w->contacts[i].st1 = w->contacts[i].st2 = 0;
    /* The split impulses move a body at most as fast as the speed clamp lets it move: joints
     * pulled far apart by rows that fight each other (a body held by joints to two static
     * bodies and welded besides) drive them, unclamped, to Q16.16's end, 32 767 m/s, and a
     * step moves a body 546 m. Their turn is not bounded: a thrown ragdoll's drift pass turns
     * a light limb at 90-100 rad/s for a step, and a turn moves no body out of the world. */
    for (int i = 1; i <= w->body_high; i++) {
        fix16_t *pv = qp__split(w)->pseudo_v[i];
        qp_vec3 v = qp_v3(pv[0], pv[1], pv[2]);
        /* Within half the limit on every axis, within it (sqrt 3 / 2 < 1): no products. */
        if (qp__v3_max_abs(v) <= w->def.max_linear_speed / 2 || !qp__clamp_speed(&v, w->def.max_linear_speed))
            continue;
        pv[0] = v.x, pv[1] = v.y, pv[2] = v.z;
        w->bodies[i].flags |= QP_FLAG_SPEED_CLAMPED;
    }
}
