/* SPDX-License-Identifier: MIT */
/* A car on ray-cast wheels (include/qphys/car.h, docs/car.md; seed 004).
 *
 * No wheel bodies: each wheel is a ray from its mount on the chassis floor
 * down the chassis' up axis. What the ray hits gives the suspension length;
 * the spring-damper pushes the chassis along the contact normal, and the tyre
 * pushes it along and across the wheel's heading within a friction circle
 * whose radius is the suspension's impulse. Everything is an impulse applied
 * before the step through the public calls (qp_body_apply_impulse), so the
 * step sees a body with some velocity, like any other. The only internal read
 * is the chassis' world inverse inertia, for the tyres' effective masses.
 */
#include "qphys/car.h"
#include "body.h"

qp_car_def qp_default_car_def(void)
{
    qp_car_def d;
    d.position = qp_v3(0, QP_ONE, 0);
    d.rotation = qp_quat_identity();
    d.half_extents = qp_v3(QP_FRAC(8, 10), QP_FRAC(3, 10), QP_FRAC(18, 10));
    d.mass = QP_INT(500);
    d.half_track = QP_FRAC(7, 10);
    d.half_wheelbase = QP_FRAC(13, 10);
    d.wheel_radius = QP_FRAC(35, 100);
    d.rest_length = QP_FRAC(4, 10);
    d.stiffness = QP_INT(30000);
    d.damping = QP_INT(2500);
    d.max_suspension_force = QP_INT(25000);
    d.tyre_friction = QP_ONE;
    d.max_drive_force = QP_INT(1500);
    d.max_brake_force = QP_INT(3000);
    d.max_steer = QP_FRAC(1, 2);
    d.friction = QP_FRAC(1, 2);
    return d;
}

static bool in(fix16_t v, fix16_t lo, fix16_t hi) { return v >= lo && v <= hi; }

static bool def_ok(const qp_car_def *d)
{
    const fix16_t big = QP_INT(32000);
    return in(d->mass, QP_INT(10), QP_INT(5000)) && in(d->half_track, 0, d->half_extents.x) &&
           in(d->half_wheelbase, 0, d->half_extents.z) && in(d->wheel_radius, QP_FRAC(5, 100), QP_INT(2)) &&
           in(d->rest_length, QP_FRAC(5, 100), QP_INT(2)) && in(d->stiffness, QP_ONE, big) &&
           in(d->damping, 0, big) && in(d->max_suspension_force, QP_ONE, big) &&
           in(d->tyre_friction, 0, QP_INT(4)) && in(d->max_drive_force, 0, big) &&
           in(d->max_brake_force, 0, big) && in(d->max_steer, 0, QP_FRAC(12, 10)) &&
           in(d->friction, 0, QP_INT(10));
}

qp_result qp_car_create(qp_world *w, const qp_car_def *def, qp_car *car)
{
    if (!w || !def || !car) return QP_ERR_PARAM;
    if (!def_ok(def)) return QP_ERR_RANGE;
    qp_body_def bd = qp_default_body_def();
    qp_result r = qp_make_box(def->half_extents, &bd.shapes[0]);
    if (r != QP_OK) return r;
    bd.shape_count = 1;
    bd.position = def->position;
    bd.rotation = def->rotation;
    bd.mass = def->mass;
    bd.friction = def->friction;
    qp_body_id id = qp_create_body(w, &bd, &r);
    if (r != QP_OK) return r;
    qp_car c;
    c.def = *def;
    c.chassis = id;
    c.throttle = c.brake = c.steer = 0;
    for (int i = 0; i < QP_CAR_WHEELS; i++) {
        qp_car_wheel *wh = &c.wheels[i];
        wh->contact = false;
        wh->ground = qp_null_body();
        wh->point = wh->normal = qp_v3_zero();
        wh->length = def->rest_length;
        wh->load = wh->slip = 0;
    }
    *car = c;
    return QP_OK;
}

qp_result qp_car_set_input(qp_car *car, fix16_t throttle, fix16_t brake, fix16_t steer)
{
    if (!car) return QP_ERR_PARAM;
    if (!in(throttle, -QP_ONE, QP_ONE) || !in(brake, 0, QP_ONE) || !in(steer, -QP_ONE, QP_ONE)) return QP_ERR_RANGE;
    car->throttle = throttle;
    car->brake = brake;
    car->steer = steer;
    return QP_OK;
}

/* Velocity of a body's material point p (world). Zero for a null id. */
static qp_vec3 point_velocity(const qp_world *w, qp_body_id id, qp_vec3 p)
{
    qp_vec3 arm = qp_v3_sub(p, qp_body_center(w, id));
    return qp_v3_add(qp_body_linear_velocity(w, id), qp_v3_cross(qp_body_angular_velocity(w, id), arm));
}

/* 1 / (impulse needed per m/s along unit d at p) of a dynamic body: inv_mass + (r x d) . I^-1 (r x d). */
static int64_t inverse_mass_along(const qp_world *w, qp_body_id id, qp_vec3 p, qp_vec3 d)
{
    if (qp_body_get_type(w, id) != QP_BODY_DYNAMIC) return 0;
    const qp_body_state *b = &w->bodies[id.index];
    qp_vec3 rd = qp_v3_cross(qp_v3_sub(p, b->x), d);
    qp_mat3 inv = qp__body_inv_inertia(b);
    return (int64_t)b->inv_mass + qp_v3_dot(rd, qp_mat3_mul_v3(&inv, rd));
}

/* Impulse that cancels speed along d at p between the chassis and the ground (0 when
 * neither can be pushed). */
static fix16_t stopping_impulse(const qp_world *w, const qp_car *car, qp_body_id ground, qp_vec3 p, qp_vec3 d,
                                fix16_t speed)
{
    int64_t k = inverse_mass_along(w, car->chassis, p, d) + inverse_mass_along(w, ground, p, d);
    if (k <= 0) return 0;
    return qp_sat32(-(int64_t)speed * 65536 / k);
}

/* Push the chassis by J at p, and what the wheel stands on by -J when it is dynamic. */
static void push(qp_world *w, const qp_car *car, qp_body_id ground, qp_vec3 j, qp_vec3 p)
{
    qp_result r = qp_body_apply_impulse(w, car->chassis, j, p);
    (void)r;   /* the chassis is valid and dynamic (checked by qp_car_update) */
    if (qp_body_get_type(w, ground) == QP_BODY_DYNAMIC) r = qp_body_apply_impulse(w, ground, qp_v3_neg(j), p);
}

/* One wheel's impulses on the chassis, at their points: computed for all four wheels
 * from the same velocities before any is applied, so that the order of the wheels
 * does not matter (a left-right symmetric car drives straight). */
typedef struct {
    qp_vec3 normal, tyre;         /* suspension and tyre impulses, N s */
    qp_vec3 at, tyre_at;          /* where they act */
} wheel_push;

/* The ray and the suspension of wheel i. */
static void suspension(qp_world *w, qp_car *car, int i, const qp_rot3 *rot, qp_vec3 origin, wheel_push *out)
{
    const qp_car_def *d = &car->def;
    qp_car_wheel *wh = &car->wheels[i];
    const fix16_t dt = qp_world_get_def(w)->dt;
    qp_vec3 up = qp_v3_from_q30(qp_rot3_col(rot, 1));
    qp_vec3 local = qp_v3((i & 1) ? -d->half_track : d->half_track, -d->half_extents.y,
                          (i & 2) ? -d->half_wheelbase : d->half_wheelbase);
    qp_vec3 mount = qp_v3_add(origin, qp_rot3_mul_v3(rot, local));
    fix16_t reach = d->rest_length + d->wheel_radius;
    qp_world_ray_hit hit;
    wh->contact = false;
    wh->ground = qp_null_body();
    wh->point = wh->normal = qp_v3_zero();
    wh->length = d->rest_length;
    wh->load = wh->slip = 0;
    qp_ray_filter through_chassis = qp_default_ray_filter();
    through_chassis.ignore = car->chassis;
    if (!qp_world_raycast_filtered(w, mount, qp_v3_scale(up, -reach), &through_chassis, &hit)) return;
    qp_vec3 n = qp_v3_from_q30(hit.hit.normal);
    if (qp_v3_dot(n, up) <= 0) return;   /* a surface seen from behind */
    wh->contact = true;
    wh->ground = hit.body;
    wh->point = hit.hit.point;
    wh->normal = hit.hit.normal;
    fix16_t length = qp_mul(hit.hit.fraction, reach) - d->wheel_radius;
    wh->length = length < 0 ? 0 : length;
    /* Spring on the compression, damper on the closing speed along n; never pulling. */
    qp_vec3 p = hit.hit.point;
    qp_vec3 rel = qp_v3_sub(point_velocity(w, car->chassis, p), point_velocity(w, hit.body, p));
    int64_t force = (int64_t)qp_mul(d->stiffness, d->rest_length - wh->length) - qp_mul(d->damping, qp_v3_dot(rel, n));
    if (force < 0) force = 0;
    if (force > d->max_suspension_force) force = d->max_suspension_force;
    wh->load = qp_mul((fix16_t)force, dt);
    out->normal = qp_v3_scale(n, wh->load);
    out->at = p;
}

/* The tyre of wheel i (in contact), shared by `share` wheels in contact. */
static void tyre(qp_world *w, qp_car *car, int i, const qp_rot3 *rot, int share, wheel_push *out)
{
    const qp_car_def *d = &car->def;
    qp_car_wheel *wh = &car->wheels[i];
    const fix16_t dt = qp_world_get_def(w)->dt;
    qp_vec3 left = qp_v3_from_q30(qp_rot3_col(rot, 0)), fwd = qp_v3_from_q30(qp_rot3_col(rot, 2));
    qp_vec3 n = qp_v3_from_q30(wh->normal), p = wh->point;
    /* Heading (steered for the front pair) laid on the ground, and across it. */
    fix16_t angle = i < 2 ? qp_mul(car->steer, d->max_steer) : 0;
    qp_vec3 heading = qp_v3_add(qp_v3_scale_q30(fwd, qp_cos_q30(angle)), qp_v3_scale_q30(left, qp_sin_q30(angle)));
    qp_vec3 along;
    if (!qp_v3_normalize(qp_v3_mad(heading, n, -qp_v3_dot(heading, n)), &along)) return;
    qp_vec3 across = qp_v3_cross(n, along);
    /* At the centre of mass' height above the contact: no roll torque from the tyre. */
    qp_vec3 pt = qp_v3_mad(p, n, qp_v3_dot(qp_v3_sub(qp_body_center(w, car->chassis), p), n));
    qp_vec3 rel = qp_v3_sub(point_velocity(w, car->chassis, pt), point_velocity(w, wh->ground, pt));
    fix16_t v_along = qp_v3_dot(rel, along), v_across = qp_v3_dot(rel, across);
    wh->slip = v_across;
    /* Each wheel in contact takes its share of stopping the slip (they act together). */
    fix16_t j_across = stopping_impulse(w, car, wh->ground, pt, across, v_across) / share;
    fix16_t j_along = qp_mul(qp_mul(car->throttle, d->max_drive_force), dt);
    fix16_t brake = qp_mul(qp_mul(car->brake, d->max_brake_force), dt);
    if (brake > 0) {
        fix16_t stop = stopping_impulse(w, car, wh->ground, pt, along, v_along) / share;
        j_along = qp_sat32((int64_t)j_along + (stop > brake ? brake : stop < -brake ? -brake : stop));
    }
    /* Friction circle: the tyre holds at most tyre_friction times the suspension's impulse. */
    fix16_t limit = qp_mul(d->tyre_friction, wh->load);
    uint64_t len2 = (uint64_t)((int64_t)j_along * j_along) + (uint64_t)((int64_t)j_across * j_across);
    if (len2 > (uint64_t)((int64_t)limit * limit)) {
        int64_t len = (int64_t)qp_isqrt64(len2) + 1;   /* rounded up: never past the limit */
        j_along = (fix16_t)((int64_t)j_along * limit / len);
        j_across = (fix16_t)((int64_t)j_across * limit / len);
    }
    out->tyre = qp_v3_add(qp_v3_scale(along, j_along), qp_v3_scale(across, j_across));
    out->tyre_at = pt;
}

qp_result qp_car_update(qp_world *w, qp_car *car)
{
    if (!w || !car) return QP_ERR_PARAM;
    if (!qp_body_is_valid(w, car->chassis) || qp_body_get_type(w, car->chassis) != QP_BODY_DYNAMIC)
        return QP_ERR_INVALID_ID;
    qp_rot3 rot = qp_quat_to_rot3(qp_body_rotation(w, car->chassis));
    qp_vec3 origin = qp_body_position(w, car->chassis);
    wheel_push push_of[QP_CAR_WHEELS];
    int touching = 0;
    for (int i = 0; i < QP_CAR_WHEELS; i++) {
        push_of[i].normal = push_of[i].tyre = push_of[i].at = push_of[i].tyre_at = qp_v3_zero();
        suspension(w, car, i, &rot, origin, &push_of[i]);
        touching += car->wheels[i].contact;
    }
    for (int i = 0; i < QP_CAR_WHEELS; i++)
        if (car->wheels[i].contact) tyre(w, car, i, &rot, touching, &push_of[i]);
    for (int i = 0; i < QP_CAR_WHEELS; i++) {
        if (!car->wheels[i].contact) continue;
        push(w, car, car->wheels[i].ground, push_of[i].normal, push_of[i].at);
        push(w, car, car->wheels[i].ground, push_of[i].tyre, push_of[i].tyre_at);
    }
    return QP_OK;
}

fix16_t qp_car_forward_speed(const qp_world *w, const qp_car *car)
{
    if (!w || !car || !qp_body_is_valid(w, car->chassis)) return 0;
    qp_rot3 rot = qp_quat_to_rot3(qp_body_rotation(w, car->chassis));
    return qp_v3_dot(qp_body_linear_velocity(w, car->chassis), qp_v3_from_q30(qp_rot3_col(&rot, 2)));
}
