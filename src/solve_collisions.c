/* Stage 5: the collision pass, elastic (docs/design.md §3; seeds 003, 004).
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
#include "solver.h"

/* The impulse a point needs now (0 when it is not colliding this step). */
static fix16_t point_impulse(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, int k,
                             const qp_vel_ref *v)
{
    fix16_t vn = qp__point_speed(v, c, r, k);
    fix16_t gap = qp__point_gap_speed(w, c, r, k);
    if ((int64_t)vn + gap >= 0) return 0;
    bool bounce = r->restitution > 0 && -vn > w->def.bounce_threshold;
    /* Bounce: -(1 + e) vn. No bounce: just close the gap by the end of the step. */
    int64_t dv = bounce ? -((int64_t)vn + qp__mul(r->restitution, vn)) : -((int64_t)vn + gap);
    return qp__mul(qp__sat32(dv), r->mn[k]);
}

/* All points of a manifold from the same velocities, each applied at
 * 1/count of its size (seed 004): one after the other, the first corner of a
 * box landing flat would take the whole stop and set the box spinning. What
 * the average leaves is taken by the next sweeps and the contact pass. */
static bool collide_manifold(qp_world *w, qp_contact *c, int move)
{
    qp_vel_ref v = qp__vel_ref(w, c);
    qp_contact_rows scratch;
    const qp_contact_rows *r = qp__rows(w, c, &scratch);
    fix16_t j[QP_MAX_MANIFOLD_POINTS];
    bool any = false;
    QP__COUNT(collide_rows, c->count);
    for (int k = 0; k < c->count; k++) {
        j[k] = point_impulse(w, c, r, k, &v) / c->count;
        any |= j[k] != 0;
    }
    for (int k = 0; k < c->count; k++) qp__point_apply(w, c, r, &v, k, j[k], move);
    return any;
}

void qp__solve_collisions(qp_world *w)
{
    qp__prepare_contacts(w);
    for (int it = 0; it < w->def.collision_iterations; it++) {
        bool any = false;
        QP__COUNT(collide_sweeps, 1);
        for (int o = 0; o < w->contact_count; o++) {
            qp_contact *c = &w->contacts[w->order[o]];
            int move = qp__movable(w, c);
            if ((c->flags & QP_CONTACT_SLEEPING) || !move) continue;
            any |= collide_manifold(w, c, move);
        }
        /* A sweep that changed nothing leaves every velocity as it was: the
         * next one would change nothing either. */
        if (!any) break;
    }
}
