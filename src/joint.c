/* SPDX-License-Identifier: MIT */
/* Joints: creation, removal and reads (docs/design.md §7; seed 004).
 *
 * A joint stores its anchors from each body's centre of mass and its axes in
 * the bodies' frames, so both follow the bodies; the solver (solve_joints.c)
 * turns them into world rows each step. Creation checks everything before it
 * writes anything. Slots are taken lowest index first (deterministic) and keep
 * their generation when freed, so a stale id is detected.
 */
#include "geometry.h"
#include "body.h"
#include "input_log.h"
#include "joint.h"
#include "sleep.h"

#define JOINT_MAX_ARM QP_INT(100)   /* m: an anchor within 100 m of each body's centre */
#define JOINT_MAX_LENGTH QP_INT(1000)
#define PI_FIX ((fix16_t)205887)     /* pi in Q16.16, rounded */
#define MAX_SWING QP_INT(3)          /* rad: a cone narrower than 172 degrees keeps a swing direction */
#define MAX_SPEED QP_INT(100)        /* motor speed, rad/s or m/s */
#define MAX_FORCE QP_INT(30000)      /* motor and spring force, break impulse */
#define MAX_HZ QP_INT(500)
#define MAX_DAMPING QP_INT(100)

static qp_joint *get(qp_world *w, qp_joint_id id)
{
    if (!w || id.index == 0 || id.index > qp__cap_joints(w)) return 0;
    qp_joint *j = &w->joints[id.index - 1];
    if (j->a == 0 || j->generation != id.generation) return 0;
    return j;
}

static const qp_joint *cget(const qp_world *w, qp_joint_id id)
{
    return get((qp_world *)w, id);
}

static const qp_body_state *body_of(const qp_world *w, qp_body_id id)
{
    if (id.index == 0 || id.index > qp__cap_bodies(w)) return 0;
    const qp_body_state *b = &w->bodies[id.index];
    if (!(b->state & QP_STATE_USED) || b->generation != id.generation) return 0;
    return b;
}

qp_joint_def qp_default_joint_def(void)
{
    qp_joint_def d;
    unsigned char *p = (unsigned char *)&d;
    for (unsigned i = 0; i < sizeof d; i++) p[i] = 0;   /* padding too: callers may copy it */
    d.type = QP_JOINT_BALL;
    d.a = d.b = qp_null_body();
    d.anchor = d.anchor_a = d.anchor_b = qp_v3_zero();
    d.axis = qp_v3(0, 0, QP_ONE);
    d.enable_limit = false;
    d.lower_angle = d.upper_angle = 0;
    d.lower_translation = d.upper_translation = 0;
    d.swing_angle = PI_FIX / 4;
    d.min_length = 0;
    d.max_length = QP_ONE;
    d.enable_motor = false;
    d.motor_speed = d.max_motor_force = 0;
    d.enable_spring = false;
    d.spring_hz = QP_ONE;
    d.spring_damping = d.spring_target = d.max_spring_force = 0;
    d.break_impulse = 0;
    d.max_friction_torque = 0;
    d.drift_time = QP_FRAC(1, 20);
    d.collide_connected = false;
    return d;
}

/* The arm from body b's centre to world point p, in its frame; false when too long. */
static bool local_arm(const qp_body_state *b, qp_vec3 p, qp_vec3 *out)
{
    qp_vec3 d = qp_v3_sub(p, b->x);
    if (qp_v3_max_abs(d) > JOINT_MAX_ARM) return false;
    qp_rot3 r = qp__body_rot(b);
    *out = qp_rot3_tmul_v3(&r, d);
    return true;
}

static bool known_type(qp_joint_type t)
{
    return t == QP_JOINT_BALL || t == QP_JOINT_HINGE || t == QP_JOINT_DISTANCE || t == QP_JOINT_FIXED ||
           t == QP_JOINT_SLIDER || t == QP_JOINT_CONE;
}

static bool in(fix16_t v, fix16_t lo, fix16_t hi) { return v >= lo && v <= hi; }

static bool has_axis(qp_joint_type t) { return t == QP_JOINT_HINGE || t == QP_JOINT_SLIDER || t == QP_JOINT_CONE; }

/* The motor's values, for the def and for qp_joint_set_motor. */
static qp_result motor_check(fix16_t speed, fix16_t max_force)
{
    return in(speed, -MAX_SPEED, MAX_SPEED) && in(max_force, 0, MAX_FORCE) ? QP_OK : QP_ERR_RANGE;
}

static fix16_t target_range(qp_joint_type t) { return t == QP_JOINT_HINGE ? PI_FIX : JOINT_MAX_LENGTH; }

/* The checks of a def that need no world: the input log's replay refuses an entry that
 * fails them as damaged, since no successful call could have recorded it. */
qp_result qp__joint_def_check_values(const qp_joint_def *d)
{
    if (!known_type(d->type)) return QP_ERR_PARAM;
    if (d->drift_time < QP_FRAC(1, 1000) || d->drift_time > QP_INT(10)) return QP_ERR_RANGE;
    if (!in(d->break_impulse, 0, MAX_FORCE) || !in(d->max_friction_torque, 0, MAX_FORCE)) return QP_ERR_RANGE;
    if (d->max_friction_torque != 0 && d->type != QP_JOINT_HINGE && d->type != QP_JOINT_CONE) return QP_ERR_PARAM;
    bool drives = d->type == QP_JOINT_HINGE || d->type == QP_JOINT_SLIDER;
    if (d->enable_motor && !drives) return QP_ERR_PARAM;
    if (d->enable_spring && !drives && d->type != QP_JOINT_DISTANCE) return QP_ERR_PARAM;
    if (d->enable_motor && motor_check(d->motor_speed, d->max_motor_force) != QP_OK) return QP_ERR_RANGE;
    if (d->enable_spring &&
        (!in(d->spring_hz, QP_FRAC(1, 100), MAX_HZ) || !in(d->spring_damping, 0, MAX_DAMPING) ||
         !in(d->max_spring_force, 0, MAX_FORCE) ||
         (drives && !in(d->spring_target, -target_range(d->type), target_range(d->type)))))
        return QP_ERR_RANGE;
    if (d->type == QP_JOINT_DISTANCE &&
        (d->min_length < 0 || d->max_length < 0 || d->min_length > d->max_length || d->max_length > JOINT_MAX_LENGTH))
        return QP_ERR_RANGE;
    if (has_axis(d->type)) {
        qp_vec3 n;
        if (!qp_v3_normalize_q30(d->axis, &n)) return QP_ERR_PARAM;
    }
    if ((d->type == QP_JOINT_HINGE || d->type == QP_JOINT_CONE) && d->enable_limit &&
        (d->lower_angle < -PI_FIX || d->upper_angle > PI_FIX || d->lower_angle > d->upper_angle))
        return QP_ERR_RANGE;
    if (d->type == QP_JOINT_SLIDER && d->enable_limit &&
        (d->lower_translation < -JOINT_MAX_LENGTH || d->upper_translation > JOINT_MAX_LENGTH ||
         d->lower_translation > d->upper_translation))
        return QP_ERR_RANGE;
    if (d->type == QP_JOINT_CONE && !in(d->swing_angle, 0, MAX_SWING)) return QP_ERR_RANGE;
    return QP_OK;
}

static qp_result check_def(const qp_world *w, const qp_joint_def *d)
{
    if (!known_type(d->type)) return QP_ERR_PARAM;
    const qp_body_state *a = body_of(w, d->a), *b = body_of(w, d->b);
    if (!a || !b) return QP_ERR_INVALID_ID;
    if (d->a.index == d->b.index) return QP_ERR_PARAM;
    if (!(a->state & QP_STATE_DYNAMIC) && !(b->state & QP_STATE_DYNAMIC)) return QP_ERR_PARAM;
    qp_result r = qp__joint_def_check_values(d);
    if (r != QP_OK) return r;
    if (!QP_CFG_JOINT_OPTIONS && (d->enable_motor || d->enable_spring || d->break_impulse != 0 || d->max_friction_torque != 0))
        return QP_ERR_FULL;
    qp_vec3 arm;
    if (d->type == QP_JOINT_DISTANCE)
        return local_arm(a, d->anchor_a, &arm) && local_arm(b, d->anchor_b, &arm) ? QP_OK : QP_ERR_RANGE;
    return local_arm(a, d->anchor, &arm) && local_arm(b, d->anchor, &arm) ? QP_OK : QP_ERR_RANGE;
}

/* Does the def use anything the first joint kinds lacked (the input log's longer entry)? */
bool qp__joint_def_extended(const qp_joint_def *d)
{
    return d->type > QP_JOINT_DISTANCE || d->enable_motor || d->enable_spring || d->break_impulse != 0 ||
           d->max_friction_torque != 0;
}

qp_joint_id qp_create_joint(qp_world *w, const qp_joint_def *def, qp_result *err)
{
    qp_result dummy;
    if (!err) err = &dummy;
    if (!w || !def) { *err = QP_ERR_PARAM; return qp_null_joint(); }
    *err = check_def(w, def);
    if (*err != QP_OK) return qp_null_joint();
    int index = 0;
    for (int i = 1; i <= qp__cap_joints(w); i++)
        if (w->joints[i - 1].a == 0) { index = i; break; }
    if (index == 0) { *err = QP_ERR_FULL; return qp_null_joint(); }

    qp_joint *j = &w->joints[index - 1];
    uint16_t gen = (uint16_t)(j->generation + 1);
    unsigned char *p = (unsigned char *)j;
    for (unsigned i = 0; i < sizeof *j; i++) p[i] = 0;
    j->generation = gen == 0 ? 1 : gen;
    j->a = def->a.index;
    j->b = def->b.index;
    j->type = (uint8_t)def->type;
    j->drift_time = def->drift_time;
    if (def->collide_connected) j->flags |= QP_JOINT_COLLIDE;
    const qp_body_state *a = &w->bodies[j->a], *b = &w->bodies[j->b];
    if (def->type == QP_JOINT_DISTANCE) {
        local_arm(a, def->anchor_a, &j->la);
        local_arm(b, def->anchor_b, &j->lb);
        j->lower = def->min_length;
        j->upper = def->max_length;
    } else {
        local_arm(a, def->anchor, &j->la);
        local_arm(b, def->anchor, &j->lb);
    }
    if (def->type != QP_JOINT_BALL && def->type != QP_JOINT_DISTANCE) {
        /* A frame in each body that agrees at creation: the axis (x for a weld) and a
         * direction across it. */
        qp_vec3 n;
        if (!has_axis(def->type) || !qp_v3_normalize_q30(def->axis, &n)) n = qp_v3(QP_Q30_ONE, 0, 0);
        qp_vec3 ref = qp__perpendicular(n);
        qp_rot3 ra = qp__body_rot(a), rb = qp__body_rot(b);
        j->axis_a = qp_rot3_tmul_v3(&ra, n);
        j->axis_b = qp_rot3_tmul_v3(&rb, n);
        j->ref_a = qp_rot3_tmul_v3(&ra, ref);
        j->ref_b = qp_rot3_tmul_v3(&rb, ref);
        if (def->enable_limit) {
            j->flags |= QP_JOINT_LIMIT;
            bool slider = def->type == QP_JOINT_SLIDER;
            j->lower = slider ? def->lower_translation : def->lower_angle;
            j->upper = slider ? def->upper_translation : def->upper_angle;
        }
    }
    if (def->type == QP_JOINT_CONE) j->swing = def->swing_angle;
#if QP_CFG_JOINT_OPTIONS
    if (def->enable_motor) {
        j->flags |= QP_JOINT_MOTOR;
        j->drive.motor_speed = def->motor_speed;
        j->drive.motor_max = def->max_motor_force;
    }
    if (def->enable_spring) {
        j->flags |= QP_JOINT_SPRING;
        j->drive.spring_hz = def->spring_hz;
        j->drive.spring_damping = def->spring_damping;
        j->drive.spring_target = def->type == QP_JOINT_DISTANCE ? 0 : def->spring_target;
        j->drive.spring_max = def->max_spring_force;
    }
    j->drive.break_impulse = def->break_impulse;
    j->drive.friction = def->max_friction_torque;
#endif
    w->joint_count++;
    qp__wake_body(w, j->a);
    qp__wake_body(w, j->b);
    *err = QP_OK;
    qp_joint_id id = { (uint16_t)index, j->generation };
    qp__record_joint(w, QP_INPUT_CREATE_JOINT, id, def);
    return id;
}

void qp__free_joint(qp_world *w, int index)
{
    qp_joint *j = &w->joints[index - 1];
    int a = j->a, b = j->b;
    uint16_t gen = j->generation;
    unsigned char *p = (unsigned char *)j;
    for (unsigned i = 0; i < sizeof *j; i++) p[i] = 0;
    j->generation = gen;
    w->joint_count--;
    qp__wake_body(w, a);
    qp__wake_body(w, b);
}

qp_result qp_destroy_joint(qp_world *w, qp_joint_id id)
{
    if (!get(w, id)) return QP_ERR_INVALID_ID;
    qp__free_joint(w, id.index);
    qp__record_joint(w, QP_INPUT_DESTROY_JOINT, id, 0);
    return QP_OK;
}

void qp__destroy_body_joints(qp_world *w, int body)
{
    for (int i = 1; i <= qp__cap_joints(w); i++) {
        const qp_joint *j = &w->joints[i - 1];
        if (j->a != 0 && (j->a == body || j->b == body)) qp__free_joint(w, i);
    }
}

bool qp__joined(const qp_world *w, int a, int b)
{
    if (w->joint_count == 0) return false;
#if QP_CFG_JOINT_TREE
    const uint32_t *keys;
    const int nk = qp__joint_ends_kept(w, &keys);
    if (nk >= 0) {   /* a's joints only */
        for (int e = qp__joint_ends_of(keys, nk, a); e < nk && (int)(keys[e] >> 16) == a; e++) {
            const qp_joint *j = &w->joints[(keys[e] & 0xFFFFu) - 1];
            if (!(j->flags & QP_JOINT_COLLIDE) && (j->a == b || j->b == b)) return true;
        }
        return false;
    }
#endif
    for (int i = 1; i <= qp__cap_joints(w); i++) {
        const qp_joint *j = &w->joints[i - 1];
        if (j->a == 0 || (j->flags & QP_JOINT_COLLIDE)) continue;
        if ((j->a == a && j->b == b) || (j->a == b && j->b == a)) return true;
    }
    return false;
}

bool qp_joint_is_valid(const qp_world *w, qp_joint_id id)
{
    return cget(w, id) != 0;
}

qp_joint_id qp_world_joint_at(const qp_world *w, int index)
{
    if (!w || index < 1 || index > qp__cap_joints(w) || w->joints[index - 1].a == 0) return qp_null_joint();
    qp_joint_id id = { (uint16_t)index, w->joints[index - 1].generation };
    return id;
}

int qp_world_joint_capacity(void)
{
    return QP_CFG_MAX_JOINTS;
}

qp_joint_type qp_joint_get_type(const qp_world *w, qp_joint_id id)
{
    const qp_joint *j = cget(w, id);
    return j ? (qp_joint_type)j->type : QP_JOINT_BALL;
}

void qp_joint_bodies(const qp_world *w, qp_joint_id id, qp_body_id *a, qp_body_id *b)
{
    const qp_joint *j = cget(w, id);
    if (a) *a = j ? qp_world_body_at(w, j->a) : qp_null_body();
    if (b) *b = j ? qp_world_body_at(w, j->b) : qp_null_body();
}

void qp_joint_world_anchors(const qp_world *w, qp_joint_id id, qp_vec3 *on_a, qp_vec3 *on_b)
{
    const qp_joint *j = cget(w, id);
    qp_vec3 pa = qp_v3_zero(), pb = qp_v3_zero();
    if (j) {
        const qp_body_state *a = &w->bodies[j->a], *b = &w->bodies[j->b];
        qp_rot3 ra = qp__body_rot(a), rb = qp__body_rot(b);
        pa = qp_v3_add(a->x, qp_rot3_mul_v3(&ra, j->la));
        pb = qp_v3_add(b->x, qp_rot3_mul_v3(&rb, j->lb));
    }
    if (on_a) *on_a = pa;
    if (on_b) *on_b = pb;
}

fix16_t qp_joint_error(const qp_world *w, qp_joint_id id)
{
    const qp_joint *j = cget(w, id);
    if (!j) return 0;
    qp_joint_rows r;
    qp__joint_rows(w, j, &r);
    if (j->type == QP_JOINT_SLIDER) return qp_v3_len(qp_v3_sub(r.gap, qp_v3_scale(r.axis, r.value)));
    if (j->type != QP_JOINT_DISTANCE) return qp_v3_len(r.gap);
    if (r.value > j->upper) return r.value - j->upper;
    if (r.value < j->lower) return j->lower - r.value;
    return 0;
}

qp_vec3 qp_joint_impulse(const qp_world *w, qp_joint_id id)
{
    const qp_joint *j = cget(w, id);
    if (!j) return qp_v3_zero();
    if (j->type != QP_JOINT_DISTANCE) return j->jp;
    qp_joint_rows r;
    qp__joint_rows(w, j, &r);
    return qp_v3_scale(r.axis, qp_sat32((int64_t)j->jlo + j->jhi + QP__DRIVE(j, js)));
}

fix16_t qp_joint_load(const qp_world *w, qp_joint_id id)
{
    const qp_joint *j = cget(w, id);
    return j ? qp__joint_load(w, j) : 0;
}

fix16_t qp_joint_angle(const qp_world *w, qp_joint_id id)
{
    const qp_joint *j = cget(w, id);
    if (!j || j->type == QP_JOINT_BALL || j->type == QP_JOINT_FIXED) return 0;
    qp_joint_rows r;
    qp__joint_rows(w, j, &r);
    return r.value;
}

bool qp_joint_limits(const qp_world *w, qp_joint_id id, fix16_t *lower, fix16_t *upper, fix16_t *swing)
{
    const qp_joint *j = cget(w, id);
    bool has = j && (j->type == QP_JOINT_DISTANCE || j->type == QP_JOINT_CONE || (j->flags & QP_JOINT_LIMIT));
    bool ranged = has && (j->type == QP_JOINT_DISTANCE || (j->flags & QP_JOINT_LIMIT));
    if (lower) *lower = ranged ? j->lower : 0;
    if (upper) *upper = ranged ? j->upper : 0;
    if (swing) *swing = j && j->type == QP_JOINT_CONE ? j->swing : 0;
    return has;
}

fix16_t qp_joint_swing(const qp_world *w, qp_joint_id id)
{
    const qp_joint *j = cget(w, id);
    if (!j || j->type != QP_JOINT_CONE) return 0;
    qp_joint_rows r;
    qp__joint_rows(w, j, &r);
    return r.swing;
}

void qp_joint_world_frame(const qp_world *w, qp_joint_id id, qp_vec3 *axis, qp_vec3 *ref)
{
    const qp_joint *j = cget(w, id);
    qp_vec3 n = qp_v3_zero(), p = qp_v3_zero();
    if (j && j->type != QP_JOINT_BALL && j->type != QP_JOINT_DISTANCE) {
        qp_rot3 ra = qp__body_rot(&w->bodies[j->a]);
        n = qp_v3_from_q30(qp_rot3_mul_v3(&ra, j->axis_a));
        p = qp_v3_from_q30(qp_rot3_mul_v3(&ra, j->ref_a));
    }
    if (axis) *axis = n;
    if (ref) *ref = p;
}

qp_result qp_joint_set_motor(qp_world *w, qp_joint_id id, bool enable, fix16_t speed, fix16_t max_force)
{
    qp_joint *j = get(w, id);
    if (!j) return QP_ERR_INVALID_ID;
    if (j->type != QP_JOINT_HINGE && j->type != QP_JOINT_SLIDER) return QP_ERR_PARAM;
    if (enable && motor_check(speed, max_force) != QP_OK) return QP_ERR_RANGE;
#if QP_CFG_JOINT_OPTIONS
    if (enable) {
        j->flags |= QP_JOINT_MOTOR;
        j->drive.motor_speed = speed;
        j->drive.motor_max = max_force;
    } else {
        j->flags &= (uint8_t)~QP_JOINT_MOTOR;
        j->drive.motor_speed = j->drive.motor_max = j->drive.jm = 0;
    }
#else
    if (enable) return QP_ERR_FULL;
#endif
    qp__wake_body(w, j->a);
    qp__wake_body(w, j->b);
    qp__record_joint_setting(w, QP_INPUT_SET_JOINT_MOTOR, id, enable, speed, max_force);
    return QP_OK;
}

qp_result qp_joint_set_spring_target(qp_world *w, qp_joint_id id, fix16_t target)
{
    qp_joint *j = get(w, id);
    if (!j) return QP_ERR_INVALID_ID;
    if (!(j->flags & QP_JOINT_SPRING) || j->type == QP_JOINT_DISTANCE) return QP_ERR_PARAM;
    if (!in(target, -target_range((qp_joint_type)j->type), target_range((qp_joint_type)j->type))) return QP_ERR_RANGE;
#if QP_CFG_JOINT_OPTIONS
    j->drive.spring_target = target;
#endif
    qp__wake_body(w, j->a);
    qp__wake_body(w, j->b);
    qp__record_joint_setting(w, QP_INPUT_SET_JOINT_SPRING_TARGET, id, true, target, 0);
    return QP_OK;
}
