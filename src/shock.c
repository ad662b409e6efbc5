/* Stage 8: shock propagation (ENGINE.md 3.5; seeds 003, 004; Guendelman et al.).
 *
 * Walk the contact-graph levels from the ground up. At each level, the
 * contacts between a body of this level and a lower one are solved with
 * the lower body immovable (infinite mass): the upper body alone takes the
 * velocity change that removes the manifold's mean approach, linearly.
 * Then the level counts as immovable for the next. Impulses only push
 * (inelastic): the pass removes what approach the iterative passes left,
 * which is what lets a 50-box column stand on 10 iterations. Known flaw
 * (seed 003): an overhanging staircase can stand.
 */
#include "solver.h"


/* The manifold's mean approach along its normal (gap allowance included). */
static fix16_t mean_approach(const qp_world *w, const qp_contact *c, const qp_vel_ref *v)
{
    int64_t sum = 0;
    for (int k = 0; k < c->count; k++)
        sum += (int64_t)qp__rel_speed(v, &c->p[k], c->n) + qp__gap_speed(w, &c->p[k]);
    return qp_sat32(sum / c->count);
}

void qp__shock(qp_world *w)
{
    if (w->def.shock_iterations == 0) return;
    int start = 0;
    while (start < w->contact_count) {
        int level = qp__contact_level(w, &w->contacts[w->order[start]]);
        int end = start;
        while (end < w->contact_count && qp__contact_level(w, &w->contacts[w->order[end]]) == level) end++;
        for (int it = 0; it < w->def.shock_iterations; it++) {
            for (int o = start; o < end; o++) {
                qp_contact *c = &w->contacts[w->order[o]];
                qp_body_state *a = &w->bodies[c->a], *b = &w->bodies[c->b];
                if ((c->flags & QP_CONTACT_SLEEPING) || a->level == b->level) continue;
                /* Only the upper body moves, and only linearly (seed 004):
                 * a per-corner push would spin it and the spin would be
                 * frozen into every level above. */
                qp_body_state *upper = a->level > b->level ? a : b;
                if (!qp__body_dynamic(upper)) continue;
                qp_vel_ref v = qp__vel_ref(w, c);
                fix16_t vn = mean_approach(w, c, &v);
                if (vn >= 0) continue;
                /* Remove the approach: b moves along +n, a along -n. */
                fix16_t dv = upper == b ? -vn : vn;
                upper->v = qp_v3(upper->v.x + qp_mul_q30(dv, c->n.x), upper->v.y + qp_mul_q30(dv, c->n.y),
                                 upper->v.z + qp_mul_q30(dv, c->n.z));
            }
        }
        start = end;
    }
}
