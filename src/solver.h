/* Impulse arithmetic shared by the velocity passes (collision, contact,
 * shock, penetration): relative velocity at a point, effective mass along
 * a direction, applying an equal and opposite impulse. Directions are unit
 * Q2.30 vectors; everything else Q16.16. */
#ifndef QPHYS_SOLVER_H
#define QPHYS_SOLVER_H

#include "world_internal.h"

/* Which sides of a contact can move (shock propagation pins the lower one). */
enum { QP_MOVE_A = 1, QP_MOVE_B = 2, QP_MOVE_BOTH = 3 };

/* The velocity slots a pass works on: real velocities or split-impulse ones. */
typedef struct {
    qp_vec3 *va, *wa, *vb, *wb;
} qp_vel_ref;

qp_vel_ref qp__vel_ref(qp_world *w, const qp_contact *c);
qp_vel_ref qp__pseudo_vel_ref(qp_world *w, const qp_contact *c);
/* Velocity of b relative to a at the point, along unit u. */
fix16_t qp__rel_speed(const qp_vel_ref *v, const qp_contact_point *p, qp_vec3 u);
/* 1 / (inverse masses + angular terms) along u, for the sides in move. */
fix16_t qp__eff_mass(const qp_world *w, const qp_contact *c, const qp_contact_point *p, qp_vec3 u, int move);
/* Apply impulse j along u: -j to a, +j to b (for the sides in move). */
void qp__apply(const qp_world *w, const qp_contact *c, const qp_vel_ref *v, const qp_contact_point *p,
               qp_vec3 u, fix16_t j, int move);
/* Which sides move: dynamic bodies, minus those pinned by level (shock). */
int qp__movable(const qp_world *w, const qp_contact *c);
/* The effective masses of every point (once per step, after the narrow phase). */
void qp__prepare_contacts(qp_world *w);
/* Speed at which a point may approach and still not touch by the end of the step. */
fix16_t qp__gap_speed(const qp_world *w, const qp_contact_point *p);
/* Coulomb friction at a point given the normal impulse bound. */
void qp__friction(const qp_world *w, const qp_contact *c, const qp_vel_ref *v, qp_contact_point *p,
                  fix16_t jn, fix16_t *jt1, fix16_t *jt2, int move, bool accumulate);

#endif
