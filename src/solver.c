#include "solver.h"

qp_vel_ref qp__vel_ref(qp_world *w, const qp_contact *c)
{
    qp_vel_ref r = { &w->bodies[c->a].v, &w->bodies[c->a].w, &w->bodies[c->b].v, &w->bodies[c->b].w };
    return r;
}

qp_vel_ref qp__pseudo_vel_ref(qp_world *w, const qp_contact *c)
{
    qp_vel_ref r = { (qp_vec3 *)&w->pseudo_v[c->a][0], (qp_vec3 *)&w->pseudo_v[c->a][3],
                     (qp_vec3 *)&w->pseudo_v[c->b][0], (qp_vec3 *)&w->pseudo_v[c->b][3] };
    return r;
}

fix16_t qp__rel_speed(const qp_vel_ref *v, const qp_contact_point *p, qp_vec3 u)
{
    qp_vec3 pa = qp_v3_add(*v->va, qp_v3_cross(*v->wa, p->ra));
    qp_vec3 pb = qp_v3_add(*v->vb, qp_v3_cross(*v->wb, p->rb));
    return qp_v3_dot_q30(qp_v3_sub(pb, pa), u);
}

/* (I^-1 (r x u)) x r . u: the angular share of one side. */
static fix16_t angular_term(const qp_body_state *b, qp_vec3 r, qp_vec3 u)
{
    qp_vec3 rxu = qp_v3_cross_q30(r, u);
    qp_vec3 t = qp_v3_cross(qp_mat3_mul_v3(&b->inv_inertia, rxu), r);
    return qp_v3_dot_q30(t, u);
}

fix16_t qp__eff_mass(const qp_world *w, const qp_contact *c, const qp_contact_point *p, qp_vec3 u, int move)
{
    const qp_body_state *a = &w->bodies[c->a], *b = &w->bodies[c->b];
    int64_t k = 0;
    if (move & QP_MOVE_A) k += (int64_t)a->inv_mass + angular_term(a, p->ra, u);
    if (move & QP_MOVE_B) k += (int64_t)b->inv_mass + angular_term(b, p->rb, u);
    if (k <= 0) return 0;
    return qp_div(QP_ONE, qp_sat32(k));
}

void qp__apply(const qp_world *w, const qp_contact *c, const qp_vel_ref *v, const qp_contact_point *p,
               qp_vec3 u, fix16_t j, int move)
{
    if (j == 0) return;
    qp_vec3 impulse = qp_v3(qp_mul_q30(j, u.x), qp_mul_q30(j, u.y), qp_mul_q30(j, u.z));
    if (move & QP_MOVE_A) {
        const qp_body_state *a = &w->bodies[c->a];
        *v->va = qp_v3_sub(*v->va, qp_v3_scale(impulse, a->inv_mass));
        *v->wa = qp_v3_sub(*v->wa, qp_mat3_mul_v3(&a->inv_inertia, qp_v3_cross(p->ra, impulse)));
    }
    if (move & QP_MOVE_B) {
        const qp_body_state *b = &w->bodies[c->b];
        *v->vb = qp_v3_add(*v->vb, qp_v3_scale(impulse, b->inv_mass));
        *v->wb = qp_v3_add(*v->wb, qp_mat3_mul_v3(&b->inv_inertia, qp_v3_cross(p->rb, impulse)));
    }
}

int qp__movable(const qp_world *w, const qp_contact *c)
{
    return (qp__body_dynamic(&w->bodies[c->a]) ? QP_MOVE_A : 0) |
           (qp__body_dynamic(&w->bodies[c->b]) ? QP_MOVE_B : 0);
}

void qp__prepare_contacts(qp_world *w)
{
    for (int i = 0; i < w->contact_count; i++) {
        qp_contact *c = &w->contacts[i];
        int move = qp__movable(w, c);
        for (int k = 0; k < c->count; k++) {
            qp_contact_point *p = &c->p[k];
            p->mn = qp__eff_mass(w, c, p, c->n, move);
            p->mt1 = qp__eff_mass(w, c, p, c->t1, move);
            p->mt2 = qp__eff_mass(w, c, p, c->t2, move);
            p->jp = 0;
        }
    }
}

void qp__friction(const qp_world *w, const qp_contact *c, const qp_vel_ref *v, qp_contact_point *p,
                  fix16_t jn, fix16_t *jt1, fix16_t *jt2, int move, bool accumulate)
{
    /* The tangential impulse that stops sliding at this point... */
    fix16_t d1 = -qp_mul(qp__rel_speed(v, p, c->t1), p->mt1);
    fix16_t d2 = -qp_mul(qp__rel_speed(v, p, c->t2), p->mt2);
    fix16_t n1 = accumulate ? qp_sat32((int64_t)*jt1 + d1) : d1;
    fix16_t n2 = accumulate ? qp_sat32((int64_t)*jt2 + d2) : d2;
    /* ...kept if static friction can hold it, else cut to dynamic friction
     * (seed 004: compare with mu_s * jn, apply mu_d * jn). */
    fix16_t len = qp_v3_len(qp_v3(n1, n2, 0));
    fix16_t hold = qp_mul(c->static_friction, jn);
    if (len > hold && len > 0) {
        fix16_t slide = qp_mul(c->friction, jn);
        fix16_t k = qp_div(slide, len);
        n1 = qp_mul(n1, k);
        n2 = qp_mul(n2, k);
    }
    fix16_t a1 = accumulate ? n1 - *jt1 : n1, a2 = accumulate ? n2 - *jt2 : n2;
    qp__apply(w, c, v, p, c->t1, a1, move);
    qp__apply(w, c, v, p, c->t2, a2, move);
    if (accumulate) {
        *jt1 = n1;
        *jt2 = n2;
    }
}
