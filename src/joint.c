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

static qp_joint *get(qp_world *w, qp_joint_id id)
{
    if (!w || id.index == 0 || id.index > QP_CFG_MAX_JOINTS) return 0;
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
    if (id.index == 0 || id.index > QP_CFG_MAX_BODIES) return 0;
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
    d.min_length = 0;
    d.max_length = QP_ONE;
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

/* The checks of a def that need no world: the input log's replay refuses an entry that
 * fails them as damaged, since no successful call could have recorded it. */
qp_result qp__joint_def_check_values(const qp_joint_def *d)
{
    if (d->type != QP_JOINT_BALL && d->type != QP_JOINT_HINGE && d->type != QP_JOINT_DISTANCE) return QP_ERR_PARAM;
    if (d->drift_time < QP_FRAC(1, 1000) || d->drift_time > QP_INT(10)) return QP_ERR_RANGE;
    if (d->type == QP_JOINT_DISTANCE &&
        (d->min_length < 0 || d->max_length < 0 || d->min_length > d->max_length || d->max_length > JOINT_MAX_LENGTH))
        return QP_ERR_RANGE;
    if (d->type == QP_JOINT_HINGE) {
        qp_vec3 n;
        if (!qp_v3_normalize_q30(d->axis, &n)) return QP_ERR_PARAM;
        if (d->enable_limit &&
            (d->lower_angle < -PI_FIX || d->upper_angle > PI_FIX || d->lower_angle > d->upper_angle))
            return QP_ERR_RANGE;
    }
    return QP_OK;
}

static qp_result check_def(const qp_world *w, const qp_joint_def *d)
{
    if (d->type != QP_JOINT_BALL && d->type != QP_JOINT_HINGE && d->type != QP_JOINT_DISTANCE) return QP_ERR_PARAM;
    const qp_body_state *a = body_of(w, d->a), *b = body_of(w, d->b);
    if (!a || !b) return QP_ERR_INVALID_ID;
    if (d->a.index == d->b.index) return QP_ERR_PARAM;
    if (!(a->state & QP_STATE_DYNAMIC) && !(b->state & QP_STATE_DYNAMIC)) return QP_ERR_PARAM;
    qp_result r = qp__joint_def_check_values(d);
    if (r != QP_OK) return r;
    qp_vec3 arm;
    if (d->type == QP_JOINT_DISTANCE)
        return local_arm(a, d->anchor_a, &arm) && local_arm(b, d->anchor_b, &arm) ? QP_OK : QP_ERR_RANGE;
    return local_arm(a, d->anchor, &arm) && local_arm(b, d->anchor, &arm) ? QP_OK : QP_ERR_RANGE;
}

qp_joint_id qp_create_joint(qp_world *w, const qp_joint_def *def, qp_result *err)
{
    qp_result dummy;
    if (!err) err = &dummy;
    if (!w || !def) { *err = QP_ERR_PARAM; return qp_null_joint(); }
    *err = check_def(w, def);
    if (*err != QP_OK) return qp_null_joint();
    int index = 0;
    for (int i = 1; i <= QP_CFG_MAX_JOINTS; i++)
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
    if (def->type == QP_JOINT_HINGE) {
        qp_vec3 n;
        qp_v3_normalize_q30(def->axis, &n);
        qp_vec3 ref = qp__perpendicular(n);
        qp_rot3 ra = qp__body_rot(a), rb = qp__body_rot(b);
        j->axis_a = qp_rot3_tmul_v3(&ra, n);
        j->axis_b = qp_rot3_tmul_v3(&rb, n);
        j->ref_a = qp_rot3_tmul_v3(&ra, ref);
        j->ref_b = qp_rot3_tmul_v3(&rb, ref);
        if (def->enable_limit) {
            j->flags |= QP_JOINT_LIMIT;
            j->lower = def->lower_angle;
            j->upper = def->upper_angle;
        }
    }
    w->joint_count++;
    qp__wake_body(w, j->a);
    qp__wake_body(w, j->b);
    *err = QP_OK;
    qp_joint_id id = { (uint16_t)index, j->generation };
    qp__record_joint(w, QP_INPUT_CREATE_JOINT, id, def);
    return id;
}

static void free_joint(qp_world *w, int index)
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
    free_joint(w, id.index);
    qp__record_joint(w, QP_INPUT_DESTROY_JOINT, id, 0);
    return QP_OK;
}

void qp__destroy_body_joints(qp_world *w, int body)
{
    for (int i = 1; i <= QP_CFG_MAX_JOINTS; i++) {
        const qp_joint *j = &w->joints[i - 1];
        if (j->a != 0 && (j->a == body || j->b == body)) free_joint(w, i);
    }
}

bool qp__joined(const qp_world *w, int a, int b)
{
    if (w->joint_count == 0) return false;
    for (int i = 1; i <= QP_CFG_MAX_JOINTS; i++) {
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
    if (!w || index < 1 || index > QP_CFG_MAX_JOINTS || w->joints[index - 1].a == 0) return qp_null_joint();
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
    return qp_v3_scale(r.axis, qp_sat32((int64_t)j->jlo + j->jhi));
}

fix16_t qp_joint_angle(const qp_world *w, qp_joint_id id)
{
    const qp_joint *j = cget(w, id);
    if (!j || j->type != QP_JOINT_HINGE) return 0;
    qp_joint_rows r;
    qp__joint_rows(w, j, &r);
    return r.value;
}
