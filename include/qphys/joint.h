/* SPDX-License-Identifier: MIT */
/* Joints: two bodies held together at points (docs/design.md §7, docs/joints.md).
 *
 * Six kinds (solved with the same impulse equations as contacts, in the same passes):
 *   QP_JOINT_BALL      the two bodies' points at the anchor stay together (3 rows);
 *   QP_JOINT_HINGE     a ball joint whose bodies also keep the axis aligned
 *                      (2 angular rows), so B turns relative to A only about
 *                      it, within optional angle limits; a motor and a spring
 *                      may drive the angle;
 *   QP_JOINT_DISTANCE  the distance between a point on A and a point on B kept
 *                      within [min_length, max_length] (a rope: min 0; a rod:
 *                      min = max); with a spring, softly;
 *   QP_JOINT_FIXED     a weld: B keeps its position and orientation relative
 *                      to A as at creation (3 point rows, 3 angular rows);
 *   QP_JOINT_SLIDER    B moves relative to A only along the axis (prismatic: 2
 *                      point rows across it, 3 angular rows), within optional
 *                      limits; a motor and a spring may drive the translation;
 *   QP_JOINT_CONE      a ball joint whose B keeps its copy of the axis within
 *                      swing_angle of A's (a cone) and its twist about it
 *                      within [lower_angle, upper_angle] (when enable_limit).
 * Anchors and axes are given in world space at creation and stored in the
 * bodies' frames. Drift (the error an iterative solver leaves) is removed
 * over the joint's drift_time by split impulses that move the bodies without
 * adding momentum. Joined bodies do not collide with each other unless
 * collide_connected, and they sleep and wake together.
 *
 * Motors and springs (hinge, slider; springs on distance joints too) are
 * rows of their own: a motor drives the relative speed to motor_speed with at
 * most max_motor_force; a spring pulls the angle or translation towards
 * spring_target (a servo) as a damped spring of spring_hz and
 * spring_damping, with at most max_spring_force (0: unbounded). Springs are
 * soft constraints (implicit in the step, as Box2D and Jolt make them), so
 * their stiffness does not depend on the masses and any frequency is stable.
 *
 * Friction (hinge, cone): the relative turn of the bodies is resisted with at
 * most max_friction_torque (about the axis for a hinge, about any axis for a
 * cone), as a ragdoll's joints are: a limb swinging freely comes to rest.
 *
 * Loads and breaking: each joint reports the impulse it applied in the last
 * step (qp_joint_load); one with a break_impulse is removed at the end of a
 * step whose load exceeded it, and a QP_EVENT_BROKE joint event says so
 * (qp_world_joint_events, world.h).
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

static inline qp_joint_id qp_null_joint(void) { qp_joint_id id = { 0, 0 }; return id; }
static inline bool qp_joint_id_is_null(qp_joint_id id) { return id.index == 0; }

typedef enum {
    QP_JOINT_BALL = 0,
    QP_JOINT_HINGE,
    QP_JOINT_DISTANCE,
    QP_JOINT_FIXED,
    QP_JOINT_SLIDER,
    QP_JOINT_CONE
} qp_joint_type;

/* qp_default_joint_def() gives the defaults written beside each field. */
typedef struct {
    qp_joint_type type;           /* default QP_JOINT_BALL */
    qp_body_id a, b;              /* two different valid bodies, not both static; default null */
    qp_vec3 anchor;               /* every kind but distance: world point, m; default 0. Within 100 m
                                   * of each body's centre of mass (fixed: where the weld's load is
                                   * measured; any point near both bodies) */
    qp_vec3 anchor_a, anchor_b;   /* distance: world points on a and on b, m; default 0; same range */
    qp_vec3 axis;                 /* hinge, slider, cone: world axis (any non-zero length); default (0, 0, 1) */
    bool enable_limit;            /* hinge: keep the angle within [lower_angle, upper_angle]; slider:
                                   * the translation within [lower_translation, upper_translation];
                                   * cone: the twist within [lower_angle, upper_angle]; default false */
    fix16_t lower_angle;          /* hinge, cone: rad, -pi .. upper_angle; default 0. The angle is 0 at
                                   * creation and grows as B turns about +axis relative to A */
    fix16_t upper_angle;          /* hinge, cone: rad, lower_angle .. pi; default 0. The angle wraps at
                                   * +-pi: a limit within 0.01 rad of +-pi leaves that side free */
    fix16_t lower_translation;    /* slider: m, -1000 .. upper_translation; default 0. The translation
                                   * is 0 at creation and grows as B moves along +axis relative to A */
    fix16_t upper_translation;    /* slider: m, lower_translation .. 1000; default 0 */
    fix16_t swing_angle;          /* cone: the cone's half angle, rad, 0 .. 3 (172 degrees); default pi/4 */
    fix16_t min_length;           /* distance: m, 0 .. max_length; default 0 */
    fix16_t max_length;           /* distance: m, min_length .. 1000; default 1 */
    bool enable_motor;            /* hinge, slider: drive the relative speed; default false */
    fix16_t motor_speed;          /* rad/s (hinge, about +axis) or m/s (slider, along +axis) of B
                                   * relative to A, -100 .. 100; default 0 */
    fix16_t max_motor_force;      /* N m (hinge) or N (slider), 0 .. 30000; default 0 */
    bool enable_spring;           /* hinge, slider: pull the angle or translation to spring_target;
                                   * distance: keep the length in [min_length, max_length] softly
                                   * (min = max: a spring of that rest length); default false */
    fix16_t spring_hz;            /* the spring's natural frequency, Hz, 0.01 .. 500; default 1 */
    fix16_t spring_damping;       /* its damping ratio (0 none, 1 critical), 0 .. 100; default 0 */
    fix16_t spring_target;        /* hinge: rad, -pi .. pi; slider: m, -1000 .. 1000; default 0 */
    fix16_t max_spring_force;     /* N m or N, 0 .. 30000; 0 (the default): unbounded */
    fix16_t break_impulse;        /* N s, 0 .. 30000: the joint breaks when its load in one step
                                   * exceeds it; 0 (the default): never */
    fix16_t max_friction_torque;  /* hinge, cone: N m, 0 .. 30000, the most torque that resists the
                                   * bodies' relative turn; 0 (the default): none */
    fix16_t drift_time;           /* s: time scale over which position error is removed;
                                   * 0.001 .. 10, default 0.05 (never faster than one step) */
    bool collide_connected;       /* let a and b collide with each other; default false */
} qp_joint_def;

qp_joint_def qp_default_joint_def(void);

/* A null id and *err (if err) on failure, nothing created: QP_ERR_PARAM (null pointer,
 * unknown type, a joint of a body to itself, both bodies static, zero axis, a motor or
 * spring on a kind that has none), QP_ERR_INVALID_ID (a null or stale body id),
 * QP_ERR_RANGE (anchor too far from a body, limits out of order or outside their range,
 * min > max, a negative length, a swing, motor, spring or break value outside its range,
 * drift_time out of range), QP_ERR_FULL (QP_CFG_MAX_JOINTS joints exist, or a motor, spring
 * or break impulse in a build with QP_CFG_JOINT_OPTIONS 0). Both bodies wake. */
qp_joint_id qp_create_joint(qp_world *w, const qp_joint_def *def, qp_result *err);
/* Remove a joint; both its bodies wake. QP_ERR_INVALID_ID for a null or stale id. */
qp_result qp_destroy_joint(qp_world *w, qp_joint_id id);
bool qp_joint_is_valid(const qp_world *w, qp_joint_id id);
/* The id of the joint in slot index (1-based), or null if the slot is free:
 * iterate 1..qp_world_get_caps(w).joints in index order. */
qp_joint_id qp_world_joint_at(const qp_world *w, int index);
/* The joint slots of a world of the library's default capacities. */
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
/* Last step's accumulated linear impulse on b at the joint's point rows, N s (on a: its
 * opposite); a distance joint: along its line. */
qp_vec3 qp_joint_impulse(const qp_world *w, qp_joint_id id);
/* The load: the whole impulse the joint applied to b in the last step (every row and
 * pass, motor and spring included), |linear (N s)| and |angular (N m s)| combined as
 * sqrt(|P|^2 + |L|^2 / 1 m^2). What break_impulse is compared with. 0 before a step. */
fix16_t qp_joint_load(const qp_world *w, qp_joint_id id);
/* Hinge: the current angle of B relative to A about the axis, rad, in (-pi, pi] (0 at
 * creation); cone: the twist about the axis, likewise; slider: the translation along the
 * axis, m (0 at creation); distance: the length, m; 0 for other joints. */
fix16_t qp_joint_angle(const qp_world *w, qp_joint_id id);
/* The joint's limits as created (for drawing and checks): true when it has them, with
 * *lower and *upper (hinge: angle, cone: twist, rad; slider: translation, distance:
 * length, m) and *swing (cone: the cone's half angle, rad; 0 otherwise). Any pointer may
 * be null. A cone always has its swing (true even without twist limits: then lower and
 * upper are 0). */
bool qp_joint_limits(const qp_world *w, qp_joint_id id, fix16_t *lower, fix16_t *upper, fix16_t *swing);
/* Cone: the angle between A's and B's copies of the axis, rad (0 for other joints). */
fix16_t qp_joint_swing(const qp_world *w, qp_joint_id id);
/* Where the joint's frame is now, for drawing: the axis and the direction across it at
 * which a hinge's angle or a cone's twist is 0, as carried by a (unit, Q16.16; a weld's
 * frame starts as the world's x and a direction across it; zero for ball and distance
 * joints). Either pointer may be null. */
void qp_joint_world_frame(const qp_world *w, qp_joint_id id, qp_vec3 *axis, qp_vec3 *ref);
/* Change a hinge's or slider's motor (speed, max force; enable false: off) or a spring's
 * target (a servo's set point) between steps; both bodies wake. QP_ERR_INVALID_ID,
 * QP_ERR_PARAM (a kind with no motor or spring), QP_ERR_RANGE (values as in the def).
 * Recorded like every call that changes a world (record.h). */
qp_result qp_joint_set_motor(qp_world *w, qp_joint_id id, bool enable, fix16_t speed, fix16_t max_force);
qp_result qp_joint_set_spring_target(qp_world *w, qp_joint_id id, fix16_t target);

#ifdef __cplusplus
}
#endif

#endif
