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

/* Of a body's, contact's and shape's bytes, the state the world hash reads (src/world_hash.c)
 * at the widths this layout keeps it: the golden hashes are of these fields, so a layout with
 * the same bits keeps them (or, a few, finds them again exactly: a shape's box from its
 * body's pose). The rest is derived data and the step's scratch. */
#define QPB_B_ ((const qp_body_state *)0)
#define QPB_C_ ((const qp_contact *)0)
#define QPB_SH_ ((const qp_shape_slot *)0)
#if !QP_CFG_LOW_RAM
#define QPB_STATE_BODY_PACKED                                                                           \
    (sizeof QPB_B_->inv_inertia_local + sizeof QPB_B_->sleep_box + sizeof QPB_B_->friction +            \
     sizeof QPB_B_->static_friction + sizeof QPB_B_->restitution + sizeof QPB_B_->force +               \
     sizeof QPB_B_->torque + sizeof QPB_B_->local_center)
#else
/* The material is a byte naming the world's palette entry (its 16 bytes once per material);
 * a pending force and torque, and a centre off the origin, are in the world's lists of the
 * bodies with one. */
#define QPB_STATE_BODY_PACKED                                                                           \
    (sizeof QPB_B_->inv_inertia_local6 + sizeof QPB_B_->sleep_lo + sizeof QPB_B_->sleep_size +          \
     sizeof QPB_B_->material)
#endif
#define QPB_STATE_BODY                                                                                  \
    (sizeof QPB_B_->generation + sizeof QPB_B_->state + sizeof QPB_B_->flags + sizeof QPB_B_->x +       \
     sizeof QPB_B_->q + sizeof QPB_B_->v + sizeof QPB_B_->w +                                           \
     sizeof QPB_B_->mass +                                                                              \
     sizeof QPB_B_->inv_mass + sizeof QPB_B_->user_data + sizeof QPB_B_->still_steps +                  \
     sizeof QPB_B_->awake_steps + sizeof QPB_B_->motion + sizeof QPB_B_->shape_count +                  \
     sizeof QPB_B_->shapes + QPB_STATE_BODY_PACKED)
#define QPB_STATE_CONTACT                                                                               \
    (sizeof QPB_C_->a + sizeof QPB_C_->b + sizeof QPB_C_->sa + sizeof QPB_C_->sb + sizeof QPB_C_->count + \
     sizeof QPB_C_->flags + sizeof QPB_C_->n + sizeof QPB_C_->anchor_a + sizeof QPB_C_->anchor_b +      \
     sizeof QPB_C_->jt1 + sizeof QPB_C_->jt2 + sizeof QPB_C_->jtw +                                     \
     QP_MAX_MANIFOLD_POINTS * (sizeof QPB_C_->p[0].id + sizeof QPB_C_->p[0].ra + sizeof QPB_C_->p[0].jn + \
                               sizeof QPB_C_->p[0].depth))
#define QPB_STATE_SHAPE (sizeof QPB_SH_->shape + sizeof QPB_SH_->flags + sizeof QPB_SH_->filter + sizeof QPB_SH_->aabb)

#endif
