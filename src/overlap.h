/* SPDX-License-Identifier: MIT */
/* Deep overlaps (overlap.c): after the narrow phase, a deep contact with static geometry
 * whose way out is blocked takes a free one (or flags its body), and dynamic pairs that
 * begin deep inside each other are marked QP_CONTACT_OVERLAP (the stage, stages.h). */
#ifndef QPHYS_OVERLAP_H
#define QPHYS_OVERLAP_H

#include "qphys/world.h"

/* In the penetration pass, the sides (QP_MOVE_* bits, contact.h) of such a pair that may
 * move: up, never down, and never into static geometry they touch. */
int qp__deep_sides(qp_world *w, const qp_contact *c, int move);

#endif
