/* SPDX-License-Identifier: MIT */
/* Joints: two bodies held together at points (docs/design.md §7).
 *
 * Three kinds, after JigLib's constraints (solved with the same impulse
 * equations as contacts, in the same passes):
 *   QP_JOINT_BALL      the two bodies' points at the anchor stay together (3 rows);
 *   QP_JOINT_HINGE     a ball joint whose bodies also keep the axis aligned
 *                      (2 angular rows), so B turns relative to A only about
 *                      it, within optional angle limits;
 *   QP_JOINT_DISTANCE  the distance between a point on A and a point on B kept
 *                      within [min_length, max_length] (a rope: min 0; a rod:
 *                      min = max).
 * Anchors and axes are given in world space at creation and stored in the
 * bodies' frames. Drift (the error an iterative solver leaves) is removed
 * over the joint's drift_time by split impulses that move the bodies without
 * adding momentum. Joined bodies do not collide with each other unless
 * collide_connected, and they sleep and wake together.
 *
 * Joints are named by ids with generations like bodies (world.h); they live
 * in a static pool of QP_CFG_MAX_JOINTS inside qp_world. Every failing call
 * leaves the world as it was. Destroying a body destroys its joints.
 */
#ifndef QPHYS_JOINT_H
#define QPHYS_JOINT_H

#include <stdbool.h>
#include <stdint.h>
#include "qphys/math.h"
#include "qphys/types.h"
#include "qphys/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A joint's name: index is 1-based (0 = null id), generation counts reuses of the slot. */
typedef struct {
    uint16_t index;
    uint16_t generation;
} qp_joint_id;

static inline qp_joint_id qp_null_joint(void) { qp_joint_id id = { 0, 0 }; return id; }
static inline bool qp_joint_id_is_null(qp_joint_id id) { return id.index == 0; }

typedef enum {
    QP_JOINT_BALL = 0,
    QP_JOINT_HINGE,
    QP_JOINT_DISTANCE
} qp_joint_type;

/* qp_default_joint_def() gives the defaults written beside each field. */
typedef struct {
    qp_joint_type type;           /* default QP_JOINT_BALL */
    qp_body_id a, b;              /* two different valid bodies, not both static; default null */
    qp_vec3 anchor;               /* ball, hinge: world point, m; default 0. Within 100 m of each body's
                                   * centre of mass */
    qp_vec3 anchor_a, anchor_b;   /* distance: world points on a and on b, m; default 0; same range */
    qp_vec3 axis;                 /* hinge: world axis (any non-zero length); default (0, 0, 1) */
    bool enable_limit;            /* hinge: keep the angle within [lower_angle, upper_angle]; default false */
    fix16_t lower_angle;          /* hinge: rad, -pi .. upper_angle; default 0. The angle is 0 at
                                   * creation and grows as B turns about +axis relative to A */
    fix16_t upper_angle;          /* hinge: rad, lower_angle .. pi; default 0. The angle wraps at
                                   * +-pi: a limit within 0.01 rad of +-pi leaves that side free */
    fix16_t min_length;           /* distance: m, 0 .. max_length; default 0 */
    fix16_t max_length;           /* distance: m, min_length .. 1000; default 1 */
    fix16_t drift_time;           /* s: time scale over which position error is removed;
                                   * 0.001 .. 10, default 0.05 (never faster than one step) */
    bool collide_connected;       /* let a and b collide with each other; default false */
} qp_joint_def;

qp_joint_def qp_default_joint_def(void);

/* A null id and *err (if err) on failure, nothing created: QP_ERR_PARAM (null pointer,
 * unknown type, a joint of a body to itself, both bodies static, zero hinge axis),
 * QP_ERR_INVALID_ID (a null or stale body id), QP_ERR_RANGE (anchor too far from a body,
 * limits out of order or outside +-pi, min > max, a negative length, drift_time out of
 * range), QP_ERR_FULL (QP_CFG_MAX_JOINTS joints exist). Both bodies wake. */
qp_joint_id qp_create_joint(qp_world *w, const qp_joint_def *def, qp_result *err);
/* Remove a joint; both its bodies wake. QP_ERR_INVALID_ID for a null or stale id. */
qp_result qp_destroy_joint(qp_world *w, qp_joint_id id);
bool qp_joint_is_valid(const qp_world *w, qp_joint_id id);
/* The id of the joint in slot index (1-based), or null if the slot is free:
 * iterate 1..qp_world_joint_capacity() in index order. */
qp_joint_id qp_world_joint_at(const qp_world *w, int index);
int qp_world_joint_capacity(void);

/* Reads give zero (and QP_JOINT_BALL, null ids) for an invalid id. */
qp_joint_type qp_joint_get_type(const qp_world *w, qp_joint_id id);
/* The joint's two bodies (either pointer may be null). */
void qp_joint_bodies(const qp_world *w, qp_joint_id id, qp_body_id *a, qp_body_id *b);
/* Where the joint's points are now, world space, m (for drawing): the anchor as carried by
 * a and by b (equal when the joint holds; for a distance joint, its two ends). */
void qp_joint_world_anchors(const qp_world *w, qp_joint_id id, qp_vec3 *on_a, qp_vec3 *on_b);
/* Current position error, m: the gap between the two points of a ball or hinge joint, or
 * how far a distance joint's length is outside [min_length, max_length]. */
fix16_t qp_joint_error(const qp_world *w, qp_joint_id id);
/* Last step's accumulated linear impulse on b at the joint, N s (on a: its opposite). */
qp_vec3 qp_joint_impulse(const qp_world *w, qp_joint_id id);
/* Hinge: the current angle of B relative to A about the axis, rad, in (-pi, pi]
 * (0 at creation); 0 for other joints. */
fix16_t qp_joint_angle(const qp_world *w, qp_joint_id id);

#ifdef __cplusplus
}
#endif

#endif
