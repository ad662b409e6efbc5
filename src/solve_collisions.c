/* Stage 5: the collision pass, elastic (ENGINE.md 3.2; seeds 003, 004).
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

static void collide_point(qp_world *w, qp_contact *c, qp_contact_point *p, const qp_vel_ref *v, int move)
{
    fix16_t vn = qp__rel_speed(v, p->ra, p->rb, c->n);
    fix16_t gap = qp__gap_speed(w, p);
    if ((int64_t)vn + gap >= 0) return;
    bool bounce = c->restitution > 0 && -vn > w->def.bounce_threshold;
    /* Bounce: -(1 + e) vn. No bounce: just close the gap by the end of the step. */
    int64_t dv = bounce ? -((int64_t)vn + qp_mul(c->restitution, vn)) : -((int64_t)vn + gap);
    qp__apply(w, c, v, p->ra, p->rb, c->n, qp_mul(qp_sat32(dv), p->mn), move);
}

void qp__solve_collisions(qp_world *w)
{
    qp__prepare_contacts(w);
    for (int it = 0; it < w->def.collision_iterations; it++) {
        for (int o = 0; o < w->contact_count; o++) {
            qp_contact *c = &w->contacts[w->order[o]];
            int move = qp__movable(w, c);
            if ((c->flags & QP_CONTACT_SLEEPING) || !move) continue;
            qp_vel_ref v = qp__vel_ref(w, c);
            for (int k = 0; k < c->count; k++) collide_point(w, c, &c->p[k], &v, move);
        }
    }
}
