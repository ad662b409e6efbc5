/* Stage 5: the collision pass, elastic (ENGINE.md 3.2; seeds 003, 004).
 *
 * Runs on the start-of-step velocities, before gravity. A point collides
 * this step when its approach speed is more than the speed that would just
 * close its gap. It then gets the impulse that turns the approach into a
 * rebound of restitution times the approach speed (no bounce below the
 * bounce threshold). Sweeping the manifolds several times in contact-graph
 * order passes momentum along chains (a line of billiard balls).
 * Impulses are accumulated per point within the pass and kept >= 0.
 */
#include "solver.h"

void qp__solve_collisions(qp_world *w)
{
    qp__prepare_contacts(w);
    for (int i = 0; i < w->contact_count; i++) {
        qp_contact *c = &w->contacts[i];
        if (c->flags & QP_CONTACT_SLEEPING) continue;
        qp_vel_ref v = qp__vel_ref(w, c);
        for (int k = 0; k < c->count; k++) c->p[k].vn0 = qp__rel_speed(&v, c->p[k].ra, c->p[k].rb, c->n);
    }
    for (int it = 0; it < w->def.collision_iterations; it++) {
        for (int o = 0; o < w->contact_count; o++) {
            qp_contact *c = &w->contacts[w->order[o]];
            int move = qp__movable(w, c);
            if ((c->flags & QP_CONTACT_SLEEPING) || !move) continue;
            qp_vel_ref v = qp__vel_ref(w, c);
            for (int k = 0; k < c->count; k++) {
                qp_contact_point *p = &c->p[k];
                if ((int64_t)p->vn0 + qp__gap_speed(w, p) >= 0) continue;
                fix16_t e = -p->vn0 > w->def.bounce_threshold ? c->restitution : 0;
                fix16_t target = qp_mul(-e, p->vn0);
                fix16_t vn = qp__rel_speed(&v, p->ra, p->rb, c->n);
                fix16_t j = qp_mul(qp_sat32((int64_t)target - vn), p->mn);
                fix16_t total = qp_sat32((int64_t)p->jp + j);
                if (total < 0) total = 0;
                qp__apply(w, c, &v, p->ra, p->rb, c->n, total - p->jp, move);
                p->jp = total;
            }
        }
    }
    for (int i = 0; i < w->contact_count; i++)
        for (int k = 0; k < w->contacts[i].count; k++) w->contacts[i].p[k].jp = 0;
}
