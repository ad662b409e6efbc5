/* Stage 9: penetration by split impulse (ENGINE.md 3.6; seed 004).
 *
 * Overlap beyond the slop is removed by pseudo-velocities that move the
 * bodies in the position update and are then forgotten: no momentum is
 * added, so a resting stack does not bounce out of its overlaps. The
 * pseudo-velocity asked of a point is penetration_rate * (depth - slop) / dt,
 * capped at max_penetration_speed. Sleepers and static bodies do not move.
 */
#include "solver.h"

void qp__penetration(qp_world *w)
{
    for (int i = 0; i <= w->body_high; i++)
        for (int k = 0; k < 6; k++) w->pseudo_v[i][k] = 0;
    fix16_t dt = w->def.dt;
    for (int it = 0; it < w->def.penetration_iterations; it++) {
        for (int o = 0; o < w->contact_count; o++) {
            qp_contact *c = &w->contacts[w->order[o]];
            int move = (qp__body_moves(&w->bodies[c->a]) ? QP_MOVE_A : 0) |
                       (qp__body_moves(&w->bodies[c->b]) ? QP_MOVE_B : 0);
            if ((c->flags & QP_CONTACT_SLEEPING) || !move) continue;
            qp_vel_ref v = qp__pseudo_vel_ref(w, c);
            for (int k = 0; k < c->count; k++) {
                qp_contact_point *p = &c->p[k];
                if (p->depth <= w->def.slop && p->jp == 0) continue;
                fix16_t excess = p->depth > w->def.slop ? p->depth - w->def.slop : 0;
                fix16_t target = qp_div(qp_mul(w->def.penetration_rate, excess), dt);
                if (target > w->def.max_penetration_speed) target = w->def.max_penetration_speed;
                fix16_t m = move == qp__movable(w, c) ? p->mn : qp__eff_mass(w, c, p, c->n, move);
                fix16_t j = qp_mul(qp_sat32((int64_t)target - qp__rel_speed(&v, p, c->n)), m);
                fix16_t total = qp_sat32((int64_t)p->jp + j);
                if (total < 0) total = 0;
                qp__apply(w, c, &v, p, c->n, total - p->jp, move);
                p->jp = total;
            }
        }
    }
}
