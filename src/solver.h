/* Impulse arithmetic shared by the velocity passes (collision, contact,
 * shock, penetration): relative velocity at a point, effective mass along
 * a direction, applying an equal and opposite impulse, manifold friction.
 * Directions are unit Q2.30 vectors; everything else Q16.16. */
#ifndef QPHYS_SOLVER_H
#define QPHYS_SOLVER_H

#include "world_internal.h"

/* a * b in Q16.16, rounded (inline: the passes call it in their inner loops). */
static inline fix16_t qp__mul(fix16_t a, fix16_t b)
{
    int64_t v = (int64_t)a * b;
    v = v >= 0 ? (v + 32768) >> 16 : -((32768 - v) >> 16);
    return v > INT32_MAX ? INT32_MAX : v < -INT32_MAX ? -INT32_MAX : (fix16_t)v;
}

/* Which sides of a contact can move (shock propagation pins the lower one). */
enum { QP_MOVE_A = 1, QP_MOVE_B = 2, QP_MOVE_BOTH = 3 };

/* The velocity slots a pass works on: real velocities or split-impulse ones. */
typedef struct {
    qp_vec3 *va, *wa, *vb, *wb;
} qp_vel_ref;

qp_vel_ref qp__vel_ref(qp_world *w, const qp_contact *c);
qp_vel_ref qp__pseudo_vel_ref(qp_world *w, const qp_contact *c);
/* The solver rows of contact c: the world's copy or (QP_CFG_LOW_RAM)
 * computed into *scratch. Valid from qp__prepare_contacts to the end of the
 * penetration pass. */
const qp_contact_rows *qp__rows(qp_world *w, const qp_contact *c, qp_contact_rows *scratch);
/* The normal direction at point k, through the rows: relative speed,
 * applying an impulse, effective mass for the sides in move. */
fix16_t qp__point_speed(const qp_vel_ref *v, const qp_contact *c, const qp_contact_rows *r, int k);
void qp__point_apply(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, const qp_vel_ref *v,
                     int k, fix16_t j, int move);
fix16_t qp__point_mass(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, int k, int move);
/* The normal direction at any arm ra from a's centre (b's arm is ra + ab):
 * its rows and effective mass for the sides in move. */
typedef struct {
    qp_vec3 rna, rnb, ia, ib;
    fix16_t mass;
} qp_normal_row;
void qp__normal_row(const qp_world *w, const qp_contact *c, qp_vec3 ra, int move, qp_normal_row *out);
fix16_t qp__normal_row_speed(const qp_vel_ref *v, const qp_contact *c, const qp_normal_row *nr);
void qp__normal_row_apply(const qp_world *w, const qp_contact *c, const qp_normal_row *nr, const qp_vel_ref *v,
                          fix16_t j, int move);
/* Which sides move: dynamic bodies (sleepers included). */
int qp__movable(const qp_world *w, const qp_contact *c);
/* Load centroids, rows and effective masses of every contact (once per step). */
void qp__prepare_contacts(qp_world *w);
/* Speed at which a point may approach and still not touch by the end of the step. */
fix16_t qp__gap_speed(const qp_world *w, const qp_contact_point *p);

/* Friction impulses of one manifold: two tangents and a twist at the centroid. */
typedef struct {
    fix16_t t1, t2, tw;
} qp_friction;

/* Coulomb friction for a manifold whose normal impulse is jn_sum: the impulse
 * that stops sliding and twisting is kept if static friction holds it (|j| <=
 * mu_s jn_sum), else cut to dynamic friction (mu_d jn_sum; seed 004). With
 * accumulate, *acc holds the totals; otherwise it is ignored. Masses from the
 * contact unless pinned (shock), then computed for the sides in move. True
 * when the linear friction had to be cut to the dynamic limit (sliding). */
bool qp__friction(const qp_world *w, qp_contact *c, const qp_contact_rows *r, const qp_vel_ref *v,
                  fix16_t jn_sum, qp_friction *acc, int move, bool pinned);

/* Warm start of a manifold's friction; the friction rows for other passes. */
void qp__friction_warm(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, const qp_vel_ref *v,
                       int move);
fix16_t qp__row_speed(const qp_vel_ref *v, const qp_contact_rows *r, int d);
void qp__row_apply(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, const qp_vel_ref *v, int d,
                   fix16_t j, int move);

#endif
