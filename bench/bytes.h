/* SPDX-License-Identifier: MIT */
/* What one more body, contact, shape or pair adds to qp_world in the layout and pools this
 * file is compiled with: every array of qp_world indexed by it. The predicted poses share
 * memory with the split-impulse velocities and the passes' scratch, whose arrays by contact
 * are counted, as one more contact makes it larger than the poses at some count. Read by
 * bench/bench_target.c (the Cortex-M4 bench, both layouts) and bench/bytes.c (a board's
 * pools, compiled for its CPU: bench/run.sh). */
#ifndef QPB_BYTES_H
#define QPB_BYTES_H

#include "qphys/world.h"
#include "scratch.h"

#define QPB_W_ ((const qp_world *)0)
/* The scratch's arrays (src/scratch.h): inside the world with fixed pools, else its views. */
#if QP_CFG_FIXED_POOLS
#define QPB_S_ ((const qp_step_scratch *)0)
#else
#define QPB_S_ ((const struct qp__scratch_views *)0)
#endif
#define QPB_MAX_(a, b) ((a) > (b) ? (a) : (b))

#if !QP_CFG_LOW_RAM
#define QPB_PRED_ROT (sizeof QPB_S_->pred.r[0])
#else
#define QPB_PRED_ROT 0u
#endif
#define QPB_BYTES_BODY                                                                                  \
    (sizeof QPB_W_->bodies[0] + sizeof QPB_W_->queue[0] + sizeof QPB_W_->adj_start[0] +                 \
     QPB_MAX_(sizeof QPB_S_->split.pseudo_v[0], sizeof QPB_S_->pred.x[0] + sizeof QPB_S_->pred.q[0] + QPB_PRED_ROT))
#if !QP_CFG_LOW_RAM
#define QPB_BYTES_CONTACT_ROWS (sizeof QPB_W_->rows[0] + sizeof QPB_S_->passes.sweep[0])
#else
#define QPB_BYTES_CONTACT_ROWS (sizeof QPB_S_->passes.tangent[0])
#endif
#define QPB_BYTES_CONTACT                                                                               \
    (sizeof QPB_W_->contacts[0] + sizeof QPB_W_->order[0] + 2u * sizeof QPB_W_->adj[0] +                \
     sizeof QPB_S_->passes.quiet_at[0] + QPB_BYTES_CONTACT_ROWS)
#define QPB_BYTES_SHAPE (sizeof QPB_W_->shapes[0] + sizeof QPB_W_->sap_order[0])
#define QPB_BYTES_PAIR (sizeof QPB_W_->pairs[0])

#endif
