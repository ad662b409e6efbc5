/* Stage 7: the contact pass, inelastic, with friction (ENGINE.md 3.4; seeds 003, 004).
 *
 * After gravity and forces, sweep the manifolds bottom up in contact-graph
 * order. Iteration k of N uses a restitution of -(N-1-k)/N: from just above
 * -1 on the first sweep to 0 on the last, so each contact removes only part
 * of the approach at first and the stack responds gradually (a see-saw with
 * a stack on one end still tips). Friction follows each normal impulse:
 * static friction holds, else dynamic friction slides (seed 004).
 * With accumulate_impulses, totals per point are clamped (Catto) and may
 * start from last step's (warm_start); otherwise every impulse only pushes.
 */
#include "solver.h"


static void warm_start(qp_world *w)
{
    for (int i = 0; i < w->contact_count; i++) {
        qp_contact *c = &w->contacts[i];
        if (c->flags & QP_CONTACT_SLEEPING) continue;
        int move = qp__movable(w, c);
        qp_vel_ref v = qp__vel_ref(w, c);
        for (int k = 0; k < c->count; k++) {
            qp_contact_point *p = &c->p[k];
            if (!w->def.accumulate_impulses || !w->def.warm_start) {
                p->jn = p->jt1 = p->jt2 = 0;
                continue;
            }
            qp__apply(w, c, &v, p, c->n, p->jn, move);
            qp__apply(w, c, &v, p, c->t1, p->jt1, move);
            qp__apply(w, c, &v, p, c->t2, p->jt2, move);
        }
    }
}

void qp__solve_contacts(qp_world *w)
{
    warm_start(w);
    int iters = w->def.contact_iterations;
    bool acc = w->def.accumulate_impulses;
    for (int it = 0; it < iters; it++) {
        fix16_t e = qp_div(QP_INT(-(iters - 1 - it)), QP_INT(iters));
        fix16_t push = QP_ONE + e;  /* 1 + e: the share of the approach removed */
        for (int o = 0; o < w->contact_count; o++) {
            qp_contact *c = &w->contacts[w->order[o]];
            int move = qp__movable(w, c);
            if ((c->flags & QP_CONTACT_SLEEPING) || !move) continue;
            qp_vel_ref v = qp__vel_ref(w, c);
            for (int k = 0; k < c->count; k++) {
                qp_contact_point *p = &c->p[k];
                fix16_t vn = qp_sat32((int64_t)qp__rel_speed(&v, p, c->n) + qp__gap_speed(w, p));
                fix16_t j = -qp_mul(qp_mul(push, vn), p->mn);
                fix16_t bound;
                if (acc) {
                    fix16_t total = qp_sat32((int64_t)p->jn + j);
                    if (total < 0) total = 0;
                    qp__apply(w, c, &v, p, c->n, total - p->jn, move);
                    p->jn = total;
                    bound = total;
                } else {
                    if (j < 0) j = 0;
                    qp__apply(w, c, &v, p, c->n, j, move);
                    p->jn = j;
                    bound = j;
                }
                qp__friction(w, c, &v, p, bound, &p->jt1, &p->jt2, move, acc);
            }
        }
    }
}
