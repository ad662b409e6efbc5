/* SPDX-License-Identifier: MIT */
/* Sleep (sleep.c): waking bodies, and the islands the sleep stage finds. */
#ifndef QPHYS_SLEEP_H
#define QPHYS_SLEEP_H

#include "qphys/world.h"

void qp__wake_body(qp_world *w, int body);  /* wake one body and everything resting on it */
/* The same, walking the contacts in two index ranges instead of last step's contact graph:
 * the narrow phase rewrites the pool in place as it goes, and last step's adjacency then
 * names contacts that are this step's now (pairs already collided) or were moved up (lift). */
typedef struct {
    int lo[2], hi[2];
} qp__contact_spans;
void qp__wake_body_among(qp_world *w, int body, const qp__contact_spans *spans);
void qp__wake_touching(qp_world *w, int body); /* wake every sleeper in contact with body (kinematic moved) */

/* Islands as a union-find over bodies[].island, which qp__sleep sets anew each step: until
 * then a pass may use it as scratch (solve_contacts.c). The root of i's island, halving paths; and
 * a's and b's islands joined under the lower root, returning the root put under it (0: one already). */
int qp__island_find(qp_world *w, int i);
int qp__island_join(qp_world *w, int a, int b);

#endif
