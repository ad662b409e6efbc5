/* SPDX-License-Identifier: MIT */
/* A car on ray-cast wheels (docs/car.md): a box chassis held up by four
 * spring-damper suspensions whose wheels are rays, driven, braked and steered
 * by tyre impulses at the wheels' contacts.
 *
 * The car is a dynamic body of the world plus a caller-owned qp_car that holds
 * its definition, its inputs and what each wheel touched at the last update
 * (no heap, no hidden state). Call qp_car_update once per step, before
 * qp_world_step: it casts the four rays (ignoring the chassis), and applies
 * to the chassis, as impulses for the coming step,
 *   - along each contact normal, the suspension: k * compression - c * closing speed,
 *     clamped to 0 .. max_suspension_force (a spring never pulls);
 *   - along the wheel (its heading, steered for the front pair): drive
 *     (throttle * max_drive_force) and brake (up to brake * max_brake_force, never
 *     more than stops the wheel's rolling speed);
 *   - across the wheel: the impulse that cancels the sideways slip at the wheel;
 * the tyre impulses together limited to tyre_friction times the suspension's
 * (a friction circle), applied at the chassis' centre-of-mass height (no roll
 * torque from the tyres). What the wheel stands on gets the opposite impulses
 * when it is dynamic. Integer arithmetic only: the same bits on every target.
 *
 * Frame: the chassis' local +z is forward, +y up, +x left. steer > 0 turns left
 * (counter-clockwise seen from above).
 */
#ifndef QPHYS_CAR_H
#define QPHYS_CAR_H

#include <stdbool.h>
#include "qphys/math.h"
#include "qphys/types.h"
#include "qphys/world.h"

#ifdef __cplusplus
extern "C" {
#endif

#define QP_CAR_WHEELS 4   /* 0 front left, 1 front right, 2 rear left, 3 rear right */

typedef struct {
    qp_vec3 position;             /* chassis centre, world, m; default (0, 1, 0) */
    qp_quat rotation;             /* chassis orientation; default identity (forward +z) */
    qp_vec3 half_extents;         /* chassis box half extents, m; default (0.8, 0.3, 1.8) */
    fix16_t mass;                 /* chassis mass, kg; default 500; 10 .. 5000 */
    fix16_t half_track;           /* wheel mounts at x = +-half_track, m; default 0.7; 0 .. half_extents.x */
    fix16_t half_wheelbase;       /* wheel mounts at z = +-half_wheelbase, m; default 1.3; 0 .. half_extents.z */
    fix16_t wheel_radius;         /* m; default 0.35; 0.05 .. 2 */
    fix16_t rest_length;          /* unloaded suspension length below the chassis floor, m; default 0.4; 0.05 .. 2 */
    fix16_t stiffness;            /* spring, N/m per wheel; default 30000; 1 .. 32000 */
    fix16_t damping;              /* N s/m per wheel; default 2500; 0 .. 32000 */
    fix16_t max_suspension_force; /* N per wheel; default 25000; 1 .. 32000 */
    fix16_t tyre_friction;        /* tyre impulse <= this * suspension impulse; default 1; 0 .. 4 */
    fix16_t max_drive_force;      /* N per wheel at full throttle (all four drive); default 1500; 0 .. 32000 */
    fix16_t max_brake_force;      /* N per wheel at full brake; default 3000; 0 .. 32000 */
    fix16_t max_steer;            /* front wheel angle at full lock, rad; default 0.5; 0 .. 1.2 */
    fix16_t friction;             /* chassis body friction (what it hits); default 0.5; 0 .. 10 */
} qp_car_def;

/* What one wheel found at the last qp_car_update. */
typedef struct {
    bool contact;                 /* the ray hit something within rest_length + wheel_radius */
    qp_body_id ground;            /* what it hit (null without contact) */
    qp_vec3 point;                /* hit point, world, m */
    qp_vec3 normal;               /* surface normal there, Q2.30 unit */
    fix16_t length;               /* suspension length, m (rest_length without contact) */
    fix16_t load;                 /* suspension impulse applied, N s */
    fix16_t slip;                 /* sideways speed at the wheel before the tyre impulse, m/s */
} qp_car_wheel;

/* A car: owned by the caller (static or on the stack), filled by qp_car_create. */
typedef struct {
    qp_car_def def;
    qp_body_id chassis;
    fix16_t throttle;             /* -1 .. 1 (negative: reverse) */
    fix16_t brake;                /* 0 .. 1 */
    fix16_t steer;                /* -1 .. 1, fraction of max_steer; > 0 turns left */
    qp_car_wheel wheels[QP_CAR_WHEELS];
} qp_car;

qp_car_def qp_default_car_def(void);

/* Validate def, create the chassis body in w and fill *car (inputs zero).
 * QP_ERR_PARAM for null pointers, QP_ERR_RANGE for a field outside its range,
 * or what qp_create_body returns; w and *car are untouched on any error. */
qp_result qp_car_create(qp_world *w, const qp_car_def *def, qp_car *car) QP_MUST_USE;

/* Set the driver's inputs (kept until set again). QP_ERR_RANGE outside
 * throttle -1..1, brake 0..1, steer -1..1 (Q16.16); nothing changes then. */
qp_result qp_car_set_input(qp_car *car, fix16_t throttle, fix16_t brake, fix16_t steer) QP_MUST_USE;

/* Cast the wheel rays and apply suspension and tyre impulses for the coming
 * step. Call once per step before qp_world_step. QP_ERR_INVALID_ID when the
 * chassis no longer exists (nothing changes then). */
qp_result qp_car_update(qp_world *w, qp_car *car) QP_MUST_USE;

/* Chassis speed along its forward axis, m/s (negative when reversing). */
fix16_t qp_car_forward_speed(const qp_world *w, const qp_car *car);

#ifdef __cplusplus
}
#endif

#endif
