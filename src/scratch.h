/* SPDX-License-Identifier: MIT */
/* The stages' per-step scratch (qp_world.step_scratch): four layouts that share its
 * memory, each live for part of the step only. The predicted poses live from the predict
 * stage to the end of the narrow phase (and the sensor stage), the placing of new
 * contacts' loads in the contact-graph stage, the velocity passes' scratch from the
 * collision pass to the shock pass, and the split-impulse velocities in the penetration
 * pass, the continuous stage and the position update. The public header
 * gives the storage its size only; its layout is here. */
#ifndef QPHYS_SCRATCH_H
#define QPHYS_SCRATCH_H

#include "qphys/world.h"

/* A contact to visit in a sweep, the island (contact pass) or part (shock pass) of its
 * moving side, and (shock pass) the sides that move. */
typedef struct {
    uint16_t contact, group, move;
} qp_sweep_item;

/* A body's part in placing new contacts' loads (contact_graph.c): the moment of the loads
 * it carries about its centre of mass (kg m) and its weight with them (kg), both Q16.16. */
typedef struct {
    int32_t at[3];
    int32_t weight;
    int32_t state;   /* PLACE_* (contact_graph.c) */
} qp_load_place;
/* Within the predicted poses' bytes a body, which every scratch layout's size covers. */
_Static_assert(sizeof(qp_load_place) <= 28, "qp_load_place fits in QP__SCRATCH_PRED_BYTES a body");
/* ...and with the graph's other bodies and carried points after them (qp_graph_scratch): 20
 * bytes a body and 5 a contact, within the predicted poses' 64 bytes a body where contacts are
 * at most 8.8 a body, else within the passes' 4 a body and 10 a contact (low-RAM: the passes'
 * 28 and 12). */
_Static_assert(sizeof(qp_load_place) == 20, "the contact graph's scratch fits in every layout's size");

#if QP_CFG_FIXED_POOLS
/* Poses at the end of the step if nothing collided (predict.c), by body index. */
typedef struct {
    qp_vec3 x[QP_CFG_MAX_BODIES + 1];
    qp_quat q[QP_CFG_MAX_BODIES + 1];
#if !QP_CFG_LOW_RAM
    qp_rot3 r[QP_CFG_MAX_BODIES + 1];  /* qp_quat_to_rot3(q): once per body, not per pair */
#endif
} qp_predicted_poses;

/* Scratch of the velocity passes, from the collision pass to the shock pass. */
typedef struct {
#if QP_CFG_LOW_RAM
    /* Low-RAM: each body's world inverse inertia (symmetric: xx yy zz xy xz yz),
     * found once in the collision pass for the solver rows of the passes up to
     * the penetration pass, which leave this memory unused; passes_kept says so. */
    fix16_t inv_inertia6[QP_CFG_MAX_BODIES + 1][6];
    /* ...and each awake contact's first friction tangent (Q2.30), found there too: its
     * two components beside the zero that its normal puts in it (solver.c, tangents).
     * The passes visit a contact ten to twenty times a step, and finding it again
     * took a square root and two divisions each time. */
    int32_t tangent[QP_CFG_MAX_CONTACTS][2];
#endif
    /* The contact pass's record of which visits can be skipped (solve_contacts.c):
     * the visit count at which a body's velocity last changed, and at which each
     * contact was last visited to no effect (0: never; low bit: it was sliding). */
    uint32_t moved_at[QP_CFG_MAX_BODIES + 1];
    uint32_t quiet_at[QP_CFG_MAX_CONTACTS];
#if !QP_CFG_LOW_RAM
    /* The contacts a pass's sweeps still visit, in their order, each with the island
     * or part it settles with (solve_contacts.c, shock.c): the sweeps walk this list,
     * which drops what settled, instead of every contact. Low-RAM walks every contact
     * (the same visits): this would grow its world by six bytes a contact. */
    qp_sweep_item sweep[QP_CFG_MAX_CONTACTS];
#endif
} qp_pass_scratch;

/* Scratch of the contact-graph stage: the placing of new contacts' loads, the other body
 * of each entry of the adjacency (w->adj), written beside it: the walk reads the body an edge
 * leads to, and that body's level, without the contact; and what each contact carries
 * (contact_graph.c, place_loads), found once for the placing's visits. */
typedef struct {
    qp_load_place place[QP_CFG_MAX_BODIES + 1];
    uint16_t other[2 * QP_CFG_MAX_CONTACTS];
    uint8_t carried[QP_CFG_MAX_CONTACTS];
} qp_graph_scratch;

/* Scratch of the penetration pass and the position update. */
typedef struct {
    fix16_t pseudo_v[QP_CFG_MAX_BODIES + 1][6];   /* split-impulse velocities */
    /* The contacts the pass's sweeps visit, in contact-graph order: those with a point
     * past the slop or anchors to hold, and a side to move (penetration.c). */
    uint16_t visit[QP_CFG_MAX_CONTACTS];
} qp_split_scratch;

/* The four, in the storage they share. */
typedef union {
    qp_predicted_poses pred;
    qp_graph_scratch graph;       /* the contact-graph stage */
    qp_split_scratch split;       /* the penetration pass and the position update */
    qp_pass_scratch passes;       /* from the collision pass to the shock pass (the predicted poses are dead) */
} qp_step_scratch;

_Static_assert(sizeof(qp_step_scratch) == sizeof(((qp_world *)0)->step_scratch),
               "qp_world.step_scratch (QP__STEP_SCRATCH_WORDS, world_impl.h) is the size of the scratch layouts");
_Static_assert(_Alignof(qp_step_scratch) <= _Alignof(uint32_t), "qp_world.step_scratch is aligned for them");

/* w's scratch, and each of the three in it: const for a const world. */
#define qp__scratch(w)                                                                                        \
    _Generic((w), const qp_world *: (const qp_step_scratch *)(const void *)(w)->step_scratch,                \
             qp_world *: (qp_step_scratch *)(void *)(w)->step_scratch)
#define qp__pred(w) (&qp__scratch(w)->pred)
#define qp__passes(w) (&qp__scratch(w)->passes)
#define qp__split(w) (&qp__scratch(w)->split)
#define qp__places(w) (qp__scratch(w)->graph.place)
#define qp__graph_other(w) (qp__scratch(w)->graph.other)
#define qp__graph_carried(w) (qp__scratch(w)->graph.carried)

#else
/* Pools of the caller's capacities: the same four layouts, each array where
 * src/world_memory.c places it in the memory they share, in the order above (its size
 * QP__STEP_SCRATCH_BYTES, world_impl.h). The fields are as above. */
typedef struct {
    qp_vec3 *x;
    qp_quat *q;
#if !QP_CFG_LOW_RAM
    qp_rot3 *r;
#endif
} qp_predicted_poses;

typedef struct {
#if QP_CFG_LOW_RAM
    fix16_t (*inv_inertia6)[6];
    int32_t (*tangent)[2];
#endif
    uint32_t *moved_at;
    uint32_t *quiet_at;
#if !QP_CFG_LOW_RAM
    qp_sweep_item *sweep;
#endif
} qp_pass_scratch;

typedef struct {
    fix16_t (*pseudo_v)[6];
    uint16_t *visit;
} qp_split_scratch;

struct qp__scratch_views {
    qp_predicted_poses pred;
    qp_load_place *place;
    uint16_t *graph_other;
    uint8_t *graph_carried;
    qp_split_scratch split;
    qp_pass_scratch passes;
};

#define qp__pred(w) (&(w)->scratch_views->pred)
#define qp__passes(w) (&(w)->scratch_views->passes)
#define qp__split(w) (&(w)->scratch_views->split)
#define qp__places(w) ((w)->scratch_views->place)
#define qp__graph_other(w) ((w)->scratch_views->graph_other)
#define qp__graph_carried(w) ((w)->scratch_views->graph_carried)
#endif

#endif
