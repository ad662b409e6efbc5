/* Internal interface between the step's stages (one source file each). */
#ifndef QPHYS_WORLD_INTERNAL_H
#define QPHYS_WORLD_INTERNAL_H

#include "qphys/world.h"
#include "compiler.h"
#include "bench_count.h"

/* Largest entry of a body's inverse inertia (1/(kg m^2)): a 0.1 m, 0.1 kg
 * cube has 6000. Bodies beyond it are rejected at creation (QP_ERR_RANGE). */
#define QP_INV_INERTIA_MAX QP_INT(10000)

/* A body the step moves: used, dynamic, awake, not frozen. */
static inline bool qp__body_moves(const qp_body_state *b)
{
    return (b->state & (QP_STATE_USED | QP_STATE_DYNAMIC | QP_STATE_ASLEEP | QP_STATE_FROZEN)) ==
           (QP_STATE_USED | QP_STATE_DYNAMIC);
}

/* A body that takes impulses: used, dynamic, not frozen (sleepers too: a
 * sleeper pushed hard enough wakes after the contact pass). */
static inline bool qp__body_dynamic(const qp_body_state *b)
{
    return (b->state & (QP_STATE_USED | QP_STATE_DYNAMIC | QP_STATE_FROZEN)) ==
           (QP_STATE_USED | QP_STATE_DYNAMIC);
}

/* A body's rotation matrix and world inverse inertia: kept up to date by
 * qp__body_sync, or (QP_CFG_LOW_RAM) computed here by the same functions. */
static inline qp_rot3 qp__body_rot(const qp_body_state *b)
{
#if QP_CFG_LOW_RAM
    return qp_quat_to_rot3(b->q);
#else
    return b->r;
#endif
}

static inline qp_mat3 qp__body_inv_inertia(const qp_body_state *b)
{
#if QP_CFG_LOW_RAM
    if (!(b->state & QP_STATE_DYNAMIC)) return qp_mat3_zero();
    qp_rot3 r = qp_quat_to_rot3(b->q);
    return qp_mat3_rotate(&r, &b->inv_inertia_local);
#else
    return b->inv_inertia;
#endif
}

/* The arm from b's centre of mass to point k of contact c. */
static inline qp_vec3 qp__arm_b(const qp_contact *c, int k)
{
    return qp_v3_add(c->p[k].ra, c->ab);
}

/* Were the caller's headers compiled with the library's pool sizes and options? */
bool qp__config_ok(uint32_t config_signature, unsigned long world_size);
/* Every field of a world definition within its range? (world.c) */
qp_result qp__check_world_def(const qp_world_def *d);
/* The contact graph's adjacency from the contacts (contact_graph.c). */
void qp__build_adjacency(qp_world *w);

/* The stages of qp_world_step, in order (docs/design.md §3). */
void qp__predict(qp_world *w);          /* predict.c: predicted poses for detection */
void qp__broad_phase(qp_world *w);      /* broad_phase.c: sweep and prune -> pairs */
void qp__narrow_phase(qp_world *w);     /* narrow_phase.c: manifolds, persistence */
void qp__contact_graph(qp_world *w);    /* contact_graph.c: levels and solve order */
void qp__solve_collisions(qp_world *w); /* solve_collisions.c: elastic pass */
void qp__apply_forces(qp_world *w);     /* integrate.c: gravity and user forces */
void qp__solve_contacts(qp_world *w);   /* solve_contacts.c: inelastic pass + friction */
void qp__shock(qp_world *w);            /* shock.c: shock propagation by levels */
void qp__check_sleepers(qp_world *w);   /* sleep.c: sleepers pushed by the passes wake */
void qp__penetration(qp_world *w);      /* penetration.c: split impulse */
void qp__integrate(qp_world *w);        /* integrate.c: positions from final velocities */
void qp__sleep(qp_world *w);            /* sleep.c: islands, three-point / energy tests */
void qp__count_bodies(qp_world *w);     /* world.c: awake/asleep counts, first all-asleep step */

/* qp_world_step is this table, run in order (world.c); benchmarks time it stage by stage. */
typedef struct {
    const char *name;
    void (*run)(qp_world *w);
} qp__stage;
extern const qp__stage qp__step_stages[];
extern const int qp__step_stage_count;

/* Helpers shared by stages. */
void qp__predicted_velocity(const qp_world *w, const qp_body_state *b, qp_vec3 *v, qp_vec3 *omega);
void qp__body_sync(qp_body_state *b);   /* rotation matrix and world inertia from q (if kept) */
void qp__body_update_aabbs(qp_world *w, int body, const qp_vec3 *x, const qp_rot3 *r);
qp_transform qp__shape_world(const qp_world *w, int shape, const qp_vec3 *x, const qp_rot3 *r);
void qp__wake_body(qp_world *w, int body);  /* wake one body and everything resting on it */
int qp__contact_level(const qp_world *w, const qp_contact *c); /* higher level of its bodies */
int qp__contact_lower(const qp_world *w, const qp_contact *c); /* lower body, -1 if level */
fix16_t qp__clamp_speed(qp_vec3 *v, fix16_t max); /* returns 1 if clamped */

#endif
