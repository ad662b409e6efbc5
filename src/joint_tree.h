/* SPDX-License-Identifier: MIT */
/* The joint-tree solve's per-step scratch (solve_joint_tree.c, solve_joints.c;
 * def.joint_tree): the joints solved together along their trees this step. The public
 * header gives the storage its size only (qp_world.joint_tree_scratch); its layout is here. */
#ifndef QPHYS_JOINT_TREE_H
#define QPHYS_JOINT_TREE_H

#include "qphys/world.h"

/* lim's bits: the limit rows a joint's block carries after its equality rows, in this order. */
#define QP_TREE_SWING 1               /* a cone's swing past (or at) its cone */
#define QP_TREE_AXIAL 2               /* a cone's twist or a hinge's angle at a limit */
#define QP_TREE_UPPER 4               /* that limit is the upper one */

#if QP_CFG_JOINT_TREE
/* Positions are in elimination order (leaves first); blocks are Q2.30 of the row-scaled
 * effective mass, then its Cholesky factor. Fields from the widest alignment down, so that
 * the size is the sum of theirs (QP__JOINT_TREE_BYTES, world_impl.h). */
#define QP_TREE_LATER 6               /* joints still to come a joint may share a body with */
#define QP_TREE_ROWS 6                /* a hinge's point, alignment and one limit row */
#if QP_CFG_FIXED_POOLS
typedef struct {
    int64_t vec[QP_CFG_MAX_JOINTS][QP_TREE_ROWS];     /* right-hand side in (Q16.16), impulses out */
    qp_mat3 ia[QP_CFG_MAX_JOINTS][2];                 /* each side's inverse inertia, stiffened */
    int32_t diag[QP_CFG_MAX_JOINTS][QP_TREE_ROWS][QP_TREE_ROWS];
    int32_t off[QP_CFG_MAX_JOINTS][QP_TREE_LATER][QP_TREE_ROWS][QP_TREE_ROWS]; /* later joint's rows by this one's */
    int32_t acc[QP_CFG_MAX_JOINTS][2];                /* limit rows' impulses so far in this pass */
    qp_vec3 drift[QP_CFG_MAX_JOINTS];                 /* drift pass: point rows' target at no split impulse */
    int count;                                        /* 0: none this step */
    int pass;                                         /* the pass the accumulators are of */
    uint16_t joint[QP_CFG_MAX_JOINTS];                /* slot at each position */
    uint16_t pos[QP_CFG_MAX_JOINTS];                  /* slot i's position + 1 at [i - 1]; 0: not in */
    uint16_t later[QP_CFG_MAX_JOINTS][QP_TREE_LATER]; /* positions of the later joints it touches */
    uint8_t rows[QP_CFG_MAX_JOINTS];                  /* 3 (ball, cone) or 5 (hinge), and its limit rows */
    uint8_t later_n[QP_CFG_MAX_JOINTS];
    int8_t scale[QP_CFG_MAX_JOINTS][QP_TREE_ROWS];    /* row r scaled by 2^-scale */
    uint8_t lim[QP_CFG_MAX_JOINTS];                   /* limit rows factored now (QP_TREE_*) */
    uint8_t met[QP_CFG_MAX_JOINTS];                   /* limit rows met at the step's start */
} qp_joint_tree;

/* At most, not equal: the storage is QP__JOINT_TREE_BYTES rounded up to whole 8-byte words,
 * and a 32-bit ABI that aligns int64_t to 4 bytes (i386) pads the struct less. */
_Static_assert(sizeof(qp_joint_tree) <= sizeof(((qp_world *)0)->joint_tree_scratch) &&
                   sizeof(((qp_world *)0)->joint_tree_scratch) - sizeof(qp_joint_tree) < 8,
               "qp_world.joint_tree_scratch (QP__JOINT_TREE_BYTES, world_impl.h) holds qp_joint_tree");
_Static_assert(_Alignof(qp_joint_tree) <= _Alignof(uint64_t), "qp_world.joint_tree_scratch is aligned for it");

/* w's joint-tree scratch: const for a const world. */
#define qp__joint_tree(w)                                                                                     \
    _Generic((w), const qp_world *: (const qp_joint_tree *)(const void *)(w)->joint_tree_scratch,            \
             qp_world *: (qp_joint_tree *)(void *)(w)->joint_tree_scratch)
#else
/* Pools of the caller's capacities: the same fields, each array where src/world_memory.c
 * places it (in the order above, QP__JOINT_TREE_BYTES in all; the count is here). */
typedef struct qp__joint_tree_views {
    int64_t (*vec)[QP_TREE_ROWS];
    qp_mat3 (*ia)[2];
    int32_t (*diag)[QP_TREE_ROWS][QP_TREE_ROWS];
    int32_t (*off)[QP_TREE_LATER][QP_TREE_ROWS][QP_TREE_ROWS];
    int32_t (*acc)[2];
    qp_vec3 *drift;
    int count;
    int pass;
    uint16_t *joint;
    uint16_t *pos;
    uint16_t (*later)[QP_TREE_LATER];
    uint8_t *rows;
    uint8_t *later_n;
    int8_t (*scale)[QP_TREE_ROWS];
    uint8_t *lim;
    uint8_t *met;
} qp_joint_tree;

#define qp__joint_tree(w) ((w)->joint_tree)
#endif
#endif

/* Joints this step solves as trees (none without QP_CFG_JOINT_TREE). */
static inline int qp__joint_tree_count(const qp_world *w)
{
#if QP_CFG_JOINT_TREE
    return qp__joint_tree(w)->count;
#else
    (void)w;
    return 0;
#endif
}

#endif
