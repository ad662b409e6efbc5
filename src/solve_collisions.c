/* SPDX-License-Identifier: MIT */
/* Stage "collisions": the collision pass, elastic (docs/design.md §3; seeds 003, 004).
 *
 * Runs on the start-of-step velocities, before gravity. In every sweep, a
 * point that is approaching now, faster than the speed that would just
 * close its gap this step, gets the impulse that turns its approach into a
 * rebound of restitution times that approach (no bounce below the bounce
 * threshold: then it just stops at the surface). Impulses only push and are
 * not accumulated, as in Guendelman et al.: a contact whose bodies already
 * separate is left alone, so sweeping the manifolds in contact-graph order
 * passes momentum along chains (a line of billiard balls: each ball stops
 * and the next one takes over).
 */
#include "joint.h"
#include "quiet.h"
#include "solver.h"
#include "stages.h"
#include "bench_count.h"

/* A body's acceleration this step (gravity and the user's force), as the
 * forces stage will apply it: zero for what does not move. */
static qp_vec3 accel_of(const qp_world *w, const qp_body_state *b)
{
    if (!qp__body_moves(b)) return qp_v3_zero();
    return qp_v3_mad(w->def.gravity, qp__body_force(w, b), b->inv_mass);
}

/* The relative acceleration of contact c's bodies along its normal,
 * (a_b - a_a) . n (m/s^2): what the forces stage, which runs after this
 * pass, will add to its normal speed, times dt. */
static fix16_t normal_accel(const qp_world *w, const qp_contact *c)
{
    qp_vec3 da = qp_v3_sub(accel_of(w, &w->bodies[c->b]), accel_of(w, &w->bodies[c->a]));
    int64_t s = (int64_t)da.x * c->n.x + (int64_t)da.y * c->n.y + (int64_t)da.z * c->n.z; /* Q46 */
    return qp_sat32(s >= 0 ? (s + (INT64_C(1) << 29)) >> 30 : -((-s + (INT64_C(1) << 29)) >> 30));
}

/* The normal speed a bounce leaves with, from an approach at speed -vn
 * (vn < 0) that began a gap g short of the surface, under the normal
 * acceleration an: sqrt(e^2 vn^2 + 2 an g (1 - e^2)). The rebound starts
 * where the contact was found, g early; without the second term a ball
 * would climb back e^2 of its drop plus (1 - e^2) g. In 64 bits: speeds up
 * to the clamp square to at most 2^49 (Q32). */
static fix16_t rebound_speed(fix16_t vn, fix16_t e, fix16_t an, fix16_t gap)
{
    int64_t ev = qp__mul(e, vn);
    int64_t u2 = ev * ev;                                              /* Q32 */
    int64_t ag = (int64_t)an * (gap > 0 ? gap : 0);                    /* Q32 */
    const int64_t lim = INT64_C(1) << 46;
    ag = ag > lim ? lim : ag < -lim ? -lim : ag;
    int64_t keep = QP_ONE - (int64_t)qp__mul(e, e);                    /* Q16, 0..1 */
    u2 += 2 * ((ag * keep) >> 16);
    return u2 > 0 ? (fix16_t)qp_isqrt64((uint64_t)u2) : 0;
}

/* The impulse a point needs now (0 when it is not colliding this step).
 * A bounce aims at the speed the point leaves with after this step's
 * forces: the rebound speed once gravity has acted. Reflecting only the
 * start-of-step speed and then adding gravity made the way up one step's
 * kick slower than the way down (Euler's kick, then drift), and a ball
 * with e = 1 lost g dt^2 per step of flight at each bounce: 33% of its
 * energy in 10 s. */
static fix16_t point_impulse(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, int k,
                             const qp_vel_ref *v, fix16_t an, int64_t lin, int move)
{
    fix16_t vn = qp__point_speed_from(v, r, k, lin);
    fix16_t gap = qp__point_gap_speed(w, c, r, k);
    if ((int64_t)vn + gap >= 0) return 0;
    bool bounce = r->restitution > 0 && -vn > w->def.bounce_threshold;
    /* Bounce: to the rebound speed once the forces have acted. No bounce: just close the gap by the end of the step. */
    int64_t dv = bounce ? (int64_t)rebound_speed(vn, r->restitution, an, -c->p[k].depth) - vn - qp__mul(an, w->def.dt)
                        : -((int64_t)vn + gap);
    if (dv <= 0) return 0;   /* the forces alone turn it round */
    return qp__mul(qp_sat32(dv), qp__point_mass_lazy(w, c, r, k, move));
}

/* A manifold of several points that bounces, or a swept one closing in
 * fast, gets its impulse first at the centroid of its points (seed 004's
 * extra averaged point), with the effective mass of the whole face: the
 * corner impulses alone, each a quarter of a corner's, only ever closed the
 * approach geometrically. A box landing flat with e = 1 stopped dead, and a
 * box shot at 100 m/s into a free wall kept 5 m/s too much of its approach
 * and ended inside it. What is left (a spin to turn) is the corners' work.
 * Out of line: its row would otherwise sit in collide_manifold's frame with the
 * manifold's own (the micro:bit's stack). */
static QP__NOINLINE bool centroid_impulse(const qp_world *w, const qp_contact *c, const qp_contact_rows *r,
                                          const qp_vel_ref *v, int move, fix16_t an)
{
    bool swept = (c->flags & QP_CONTACT_SWEPT) != 0;
    int64_t s[3] = { 0, 0, 0 }, depth = 0;
    bool colliding = false;
    int n = 0;
    const int64_t lin = qp__rel_dot(v, c->n);   /* every point's, from the same velocities */
    for (int k = 0; k < c->count; k++) {
        colliding |= (int64_t)qp__point_speed_from(v, r, k, lin) + qp__gap_speed(w, &c->p[k]) < 0;
        if (qp__point_gap(&c->p[k])) break;   /* past the margin, the last: not the face that lands */
        s[0] += c->p[k].ra.x;
        s[1] += c->p[k].ra.y;
        s[2] += c->p[k].ra.z;
        depth += c->p[k].depth;
        n++;
    }
    if (!colliding || n < 2) return false;
    qp_vec3 ra = qp_v3((fix16_t)(s[0] / n), (fix16_t)(s[1] / n), (fix16_t)(s[2] / n));
    qp_contact_point mid = c->p[0];
    mid.depth = (fix16_t)(depth / n);
    qp_normal_row nr;
    qp__normal_row(w, c, ra, move, &nr);
    fix16_t vn = qp__normal_row_speed(v, c, &nr);
    bool bounce = r->restitution > 0 && -vn > w->def.bounce_threshold;
    if (!bounce && !swept) return false;
    int64_t dv = bounce ? (int64_t)rebound_speed(vn, r->restitution, an, -mid.depth) - vn - qp__mul(an, w->def.dt)
                        : -((int64_t)vn + qp__gap_speed(w, &mid));
    if (dv <= 0) return false;
    qp__normal_row_apply(w, c, &nr, v, qp__mul(qp_sat32(dv), nr.mass), move);
    return true;
}

/* All points of a manifold from the same velocities, each applied at
 * 1/count of its size (seed 004): one after the other, the first corner of a
 * box landing flat would take the whole stop and set the box spinning. What
 * the average leaves is taken by the next sweeps and the contact pass. Not inlined on a
 * 32-bit Arm: in its caller's frame it cost the Cortex-M4 2 % more instructions in this
 * pass, where inlined it saves a 64-bit host 0.5 % of rain512's step. */
#if defined(__arm__)
#define MANIFOLD_INLINE QP__NOINLINE
#else
#define MANIFOLD_INLINE
#endif
static MANIFOLD_INLINE bool collide_manifold(qp_world *w, qp_contact *c, int move)
{
    qp_vec3 drive;
    qp_vel_ref v = qp__vel_ref(w, c, &drive);
    /* Low-RAM: only the point rows, which this pass reads, without their masses and
     * responses (found for the points that collide). */
    qp_contact_rows scratch;
    const qp_contact_rows *r = qp__rows_for(w, c, &scratch, QP_ROWS_POINTS | QP_ROWS_RESTITUTION | QP_ROWS_LAZY, move);
    fix16_t j[QP_MAX_MANIFOLD_POINTS];
    /* Only a bounce reads the normal acceleration (a contact without restitution
     * never bounces). */
    fix16_t an = r->restitution > 0 ? normal_accel(w, c) : 0;
    /* Only a manifold of several points that bounces or is swept has a centroid impulse:
     * tested here, before the call (most of a pile's visits, restitution 0). */
    bool any = c->count >= 2 && (r->restitution > 0 || (c->flags & QP_CONTACT_SWEPT)) &&
               centroid_impulse(w, c, r, &v, move, an);
    QP__COUNT(collide_rows, c->count);
    const int64_t lin = qp__rel_dot(&v, c->n);   /* every point's: all from the same velocities */
    /* Points past the margin (qp__point_gap, last: an inelastic contact's far corners) are
     * the contact pass's, which stops a corner that closes more than its gap. */
    int share = c->count;
    while (share > 1 && qp__point_gap(&c->p[share - 1])) share--;
    for (int k = 0; k < share; k++) {
        j[k] = point_impulse(w, c, r, k, &v, an, lin, move) / share;
        any |= j[k] != 0;
    }
    int64_t sum = c->jc;
    for (int k = 0; k < share; k++) {
        qp__point_apply_kept(w, c, r, &v, k, j[k], move);
        sum += j[k];
    }
    c->jc = qp_sat32(sum);   /* for the contact's begin event only */
    return any;
}

void qp__solve_collisions(qp_world *w)
{
    qp__prepare_contacts(w);
    qp__prepare_joints(w);
    /* A manifold that collided with nothing is not visited again while its bodies keep
     * their velocities (qp__quiet_skip): a resting pile, jittering with sleep off, keeps
     * a few points colliding somewhere, and every sweep visited all of its manifolds. */
    uint32_t visit = qp__quiet_start(w);
    const int ahead = qp__prefetch_ahead(w);
    for (int it = 0; it < w->def.collision_iterations; it++) {
        bool any = false;
        if (qp__collide_joints(w)) {
            any = true;
            qp__quiet_joints(w, visit);
        }
        QP__COUNT(collide_sweeps, 1);
        for (int o = 0; o < w->contact_count; o++) {
            qp_contact *c = &w->contacts[w->order[o]];
            if (ahead && o + ahead < w->contact_count) qp__contact_prefetch(w, w->order[o + ahead]);
            int move = qp__movable(w, c);
            if ((c->flags & QP_CONTACT_SLEEPING) || !move || qp__quiet_skip(w, c, visit)) continue;
            bool changed = collide_manifold(w, c, move);
            qp__quiet_mark(w, c, move, changed, &visit);
            any |= changed;
        }
        /* A sweep that changed nothing leaves every velocity as it was: the
         * next one would change nothing either. */
        if (!any) break;
        for (int i = 1; i <= w->body_high; i++)
            if (qp__clamp_spin(w, i)) qp__quiet_moved(w, i, visit);
    }
}
