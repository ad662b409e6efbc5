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

fix16_t qp__rel_speed(const qp_vel_ref *v, qp_vec3 ra, qp_vec3 rb, qp_vec3 u)
{
    qp_vec3 pa = qp_v3_add(*v->va, qp_v3_cross(*v->wa, ra));
    qp_vec3 pb = qp_v3_add(*v->vb, qp_v3_cross(*v->wb, rb));
    return qp_v3_dot_q30(qp_v3_sub(pb, pa), u);
}

/* (I^-1 (r x u)) x r . u: the angular share of one side. */
static int64_t angular_term(const qp_body_state *b, qp_vec3 r, qp_vec3 u)
{
    qp_vec3 rxu = qp_v3_cross_q30(r, u);
    qp_vec3 t = qp_v3_cross(qp_mat3_mul_v3(&b->inv_inertia, rxu), r);
    return qp_v3_dot_q30(t, u);
}

static fix16_t inverse_of(int64_t k)
{
    if (k <= 0) return 0;
    return qp_div(QP_ONE, qp_sat32(k));
}

fix16_t qp__eff_mass(const qp_world *w, const qp_contact *c, qp_vec3 ra, qp_vec3 rb, qp_vec3 u, int move)
{
    const qp_body_state *a = &w->bodies[c->a], *b = &w->bodies[c->b];
    int64_t k = 0;
    if (move & QP_MOVE_A) k += (int64_t)a->inv_mass + angular_term(a, ra, u);
    if (move & QP_MOVE_B) k += (int64_t)b->inv_mass + angular_term(b, rb, u);
    return inverse_of(k);
}

/* 1 / (n.Ia^-1 n + n.Ib^-1 n): effective mass of a twist about n. */
fix16_t qp__twist_mass(const qp_world *w, const qp_contact *c, int move)
{
    const qp_body_state *a = &w->bodies[c->a], *b = &w->bodies[c->b];
    qp_vec3 n = qp_v3_from_q30(c->n);
    int64_t k = 0;
    if (move & QP_MOVE_A) k += qp_v3_dot(n, qp_mat3_mul_v3(&a->inv_inertia, n));
    if (move & QP_MOVE_B) k += qp_v3_dot(n, qp_mat3_mul_v3(&b->inv_inertia, n));
    return inverse_of(k);
}

void qp__apply(const qp_world *w, const qp_contact *c, const qp_vel_ref *v, qp_vec3 ra, qp_vec3 rb,
               qp_vec3 u, fix16_t j, int move)
{
    if (j == 0) return;
    qp_vec3 impulse = qp_v3(qp_mul_q30(j, u.x), qp_mul_q30(j, u.y), qp_mul_q30(j, u.z));
    if (move & QP_MOVE_A) {
        const qp_body_state *a = &w->bodies[c->a];
        *v->va = qp_v3_sub(*v->va, qp_v3_scale(impulse, a->inv_mass));
        *v->wa = qp_v3_sub(*v->wa, qp_mat3_mul_v3(&a->inv_inertia, qp_v3_cross(ra, impulse)));
    }
    if (move & QP_MOVE_B) {
        const qp_body_state *b = &w->bodies[c->b];
        *v->vb = qp_v3_add(*v->vb, qp_v3_scale(impulse, b->inv_mass));
        *v->wb = qp_v3_add(*v->wb, qp_mat3_mul_v3(&b->inv_inertia, qp_v3_cross(rb, impulse)));
    }
}

void qp__apply_twist(const qp_world *w, const qp_contact *c, const qp_vel_ref *v, qp_vec3 u, fix16_t j, int move)
{
    if (j == 0) return;
    qp_vec3 l = qp_v3(qp_mul_q30(j, u.x), qp_mul_q30(j, u.y), qp_mul_q30(j, u.z));
    if (move & QP_MOVE_A) *v->wa = qp_v3_sub(*v->wa, qp_mat3_mul_v3(&w->bodies[c->a].inv_inertia, l));
    if (move & QP_MOVE_B) *v->wb = qp_v3_add(*v->wb, qp_mat3_mul_v3(&w->bodies[c->b].inv_inertia, l));
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
        if (c->flags & QP_CONTACT_SLEEPING) continue;
        int move = qp__movable(w, c);
        for (int k = 0; k < c->count; k++) {
            c->p[k].mn = qp__eff_mass(w, c, c->p[k].ra, c->p[k].rb, c->n, move);
            c->p[k].jp = 0;
        }
        c->mt1 = qp__eff_mass(w, c, c->ca, c->cb, c->t1, move);
        c->mt2 = qp__eff_mass(w, c, c->ca, c->cb, c->t2, move);
        c->mtw = qp__twist_mass(w, c, move);
    }
}

fix16_t qp__gap_speed(const qp_world *w, const qp_contact_point *p)
{
    return p->depth < 0 ? qp_div(-p->depth, w->def.dt) : 0;
}

/* Past hold, scale (x, y) down to length slide (static, then dynamic
 * friction); true when it had to. */
static bool cut_to(fix16_t *x, fix16_t *y, fix16_t hold, fix16_t slide)
{
    fix16_t len = qp_v3_len(qp_v3(*x, *y, 0));
    if (len <= hold || len == 0) return false;
    fix16_t k = qp_div(slide, len);
    *x = qp_mul(*x, k);
    *y = qp_mul(*y, k);
    return true;
}

bool qp__friction(const qp_world *w, qp_contact *c, const qp_vel_ref *v, fix16_t jn_sum,
                  qp_friction *acc, int move, bool pinned)
{
    fix16_t m1 = pinned ? qp__eff_mass(w, c, c->ca, c->cb, c->t1, move) : c->mt1;
    fix16_t m2 = pinned ? qp__eff_mass(w, c, c->ca, c->cb, c->t2, move) : c->mt2;
    fix16_t mw = pinned ? qp__twist_mass(w, c, move) : c->mtw;
    fix16_t spin = qp_v3_dot_q30(qp_v3_sub(*v->wb, *v->wa), c->n);
    qp_friction want = {
        qp_sat32((int64_t)acc->t1 - qp_mul(qp__rel_speed(v, c->ca, c->cb, c->t1), m1)),
        qp_sat32((int64_t)acc->t2 - qp_mul(qp__rel_speed(v, c->ca, c->cb, c->t2), m2)),
        qp_sat32((int64_t)acc->tw - qp_mul(spin, mw)),
    };
    bool sliding = cut_to(&want.t1, &want.t2, qp_mul(c->static_friction, jn_sum), qp_mul(c->friction, jn_sum));
    fix16_t twist_hold = qp_mul(qp_mul(c->static_friction, jn_sum), c->twist_radius);
    fix16_t twist_slide = qp_mul(qp_mul(c->friction, jn_sum), c->twist_radius);
    fix16_t zero = 0;
    cut_to(&want.tw, &zero, twist_hold, twist_slide);
    qp__apply(w, c, v, c->ca, c->cb, c->t1, want.t1 - acc->t1, move);
    qp__apply(w, c, v, c->ca, c->cb, c->t2, want.t2 - acc->t2, move);
    qp__apply_twist(w, c, v, c->n, want.tw - acc->tw, move);
    *acc = want;
    return sliding;
}
