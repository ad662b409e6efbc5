/* SPDX-License-Identifier: MIT */
/* The stages of qp_world_step, in order: one source file each, run from the table
 * qp__step_stages (world.c), named there as in docs/design.md's stage table and in
 * each stage file's header comment. */
#ifndef QPHYS_STAGES_H
#define QPHYS_STAGES_H

#include "qphys/world.h"

void qp__events_begin(qp_world *w);     /* events: drop the last readout (events.c) */
void qp__predict(qp_world *w);          /* predict: predicted poses for detection (predict.c) */
void qp__broad_phase(qp_world *w);      /* broad: sweep and prune -> pairs (broad_phase.c) */
void qp__narrow_phase(qp_world *w);     /* narrow: manifolds, persistence (narrow_phase.c) */
void qp__deep_overlaps(qp_world *w);    /* overlaps: deep contacts leave by a free way (overlap.c) */
void qp__sensors(qp_world *w);          /* sensors: sensor overlaps begin and end (sensor.c) */
void qp__contact_graph(qp_world *w);    /* graph: levels and solve order (contact_graph.c) */
void qp__solve_collisions(qp_world *w); /* collisions: elastic pass (solve_collisions.c) */
void qp__apply_forces(qp_world *w);     /* forces: gravity and user forces (integrate.c) */
void qp__rolling(qp_world *w);          /* rolling: rolling resistance on round contacts (rolling.c) */
void qp__solve_contacts(qp_world *w);   /* contacts: inelastic pass + friction (solve_contacts.c) */
void qp__shock(qp_world *w);            /* shock: shock propagation by levels (shock.c) */
void qp__check_sleepers(qp_world *w);   /* check sleepers: sleepers pushed by the passes wake (sleep.c) */
void qp__penetration(qp_world *w);      /* penetration: split impulse (penetration.c) */
void qp__break_joints(qp_world *w);     /* breaks: loads, and joints past their break impulse (solve_joints.c) */
void qp__continuous(qp_world *w);       /* continuous: fast bodies stop at their time of impact (continuous.c) */
void qp__integrate(qp_world *w);        /* integrate: positions from final velocities (integrate.c) */
void qp__project_joints(qp_world *w);   /* project: joint trees closed at the new poses (project_joints.c) */
void qp__sleep(qp_world *w);            /* sleep: islands, three-point / energy tests (sleep.c) */
void qp__sap_refresh(qp_world *w);      /* bounds: boxes at the new poses, kept sorted for queries (broad_phase.c) */
void qp__count_bodies(qp_world *w);     /* count: awake/asleep counts, first all-asleep step (world.c) */
void qp__events_end(qp_world *w);       /* events out: begin impulses, order (events.c) */

/* qp_world_step is this table, run in order (world.c); benchmarks time it stage by stage. */
typedef struct {
    const char *name;
    void (*run)(qp_world *w);
} qp__stage;
extern const qp__stage qp__step_stages[];
extern const int qp__step_stage_count;

#endif
