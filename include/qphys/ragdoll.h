/* SPDX-License-Identifier: MIT */
/* A ragdoll: eleven bodies (boxes and capsules) held by cone-twist joints with
 * human ranges at the neck, spine, shoulders and hips and by limited hinges at
 * the elbows and knees (src/ragdoll.c), each joint with a friction torque of a
 * share of its limb's weight about it (none on the micro:bit's pools, which hold
 * no joint options). One call creates all of it or nothing. */
#ifndef QPHYS_RAGDOLL_H
#define QPHYS_RAGDOLL_H

#include <stdbool.h>
#include "qphys/joint.h"
#include "qphys/math.h"
#include "qphys/types.h"
#include "qphys/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The bodies, in the order qp_create_ragdoll writes their ids. */
enum {
    QP_RAGDOLL_PELVIS = 0,
    QP_RAGDOLL_TORSO,
    QP_RAGDOLL_HEAD,
    QP_RAGDOLL_UPPER_ARM_L,
    QP_RAGDOLL_FOREARM_L,
    QP_RAGDOLL_UPPER_ARM_R,
    QP_RAGDOLL_FOREARM_R,
    QP_RAGDOLL_THIGH_L,
    QP_RAGDOLL_SHIN_L,
    QP_RAGDOLL_THIGH_R,
    QP_RAGDOLL_SHIN_R,
    QP_RAGDOLL_BODIES,            /* 11 bodies */
    QP_RAGDOLL_JOINTS = 10        /* and 10 joints */
};

typedef struct {
    qp_vec3 position;             /* centre of the pelvis, world, m; default (0, 1, 0) */
    fix16_t scale;                /* size: 1 is about 1.6 m from feet to head; 0.75 .. 4, default 1.
                                   * Standing upright, arms out along x, facing +z */
    fix16_t density;              /* kg/m^3; 100 .. 2000, default 1000 (about 40 kg at scale 1) */
    fix16_t friction;             /* 0 .. 10, default 0.5 */
    bool asleep;                  /* start asleep; default false */
} qp_ragdoll_def;

qp_ragdoll_def qp_default_ragdoll_def(void);

/* Create the ragdoll: ids of its QP_RAGDOLL_BODIES bodies into out_ids (may be null), in
 * the order above. Returns QP_OK, or (also into *err, if err) QP_ERR_PARAM (null world or
 * def), QP_ERR_RANGE (a field out of range, a part outside the world bounds), QP_ERR_FULL
 * (not enough free bodies, shapes or joints): nothing created. */
qp_result qp_create_ragdoll(qp_world *w, const qp_ragdoll_def *def, qp_body_id *out_ids, qp_result *err);

#ifdef __cplusplus
}
#endif

#endif
