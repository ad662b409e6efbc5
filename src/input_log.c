/* SPDX-License-Identifier: MIT */
/* The input log's writer (include/qphys/record.h): each mutating call that succeeded, as a
 * portable byte entry in the caller's buffer. body.c and joint.c call it through
 * input_log.h after the call; input_replay.c reads the entries back. */
#include "qphys/mesh.h"
#include "qphys/record.h"
#include "input_log.h"
#include "joint.h"

#define ENTRY_HEADER 9ul   /* kind u8, step u32, index u16, generation u16 */
#define SHAPE_BYTES 52ul   /* a shape with its sensor flag and filter */
#define DEF_BYTES 83ul     /* a body def without its shapes */
#define FILTER_BYTES 7ul   /* set shape filter: slot u8, category, mask, group */
#define JOINT_BYTES 79ul   /* a joint def */
#define JOINT_FULL_BYTES (JOINT_BYTES + 46ul)   /* and the later kinds' options */
#define MOTOR_BYTES 9ul    /* set joint motor: enable u8, speed, max force */

_Static_assert(ENTRY_HEADER + JOINT_FULL_BYTES <= QP_INPUT_MAX_ENTRY, "a joint entry fits QP_INPUT_MAX_ENTRY");
#define HULL_SHAPE_BYTES(n) (37ul + 12ul * (unsigned long)(n))   /* a hull shape and its corners */
_Static_assert(ENTRY_HEADER + DEF_BYTES +
                       (QP_CFG_MAX_HULLS > 0 ? HULL_SHAPE_BYTES(QP_HULL_MAX_POINTS) : SHAPE_BYTES) *
                           QP_CFG_MAX_BODY_SHAPES ==
                   QP_INPUT_MAX_ENTRY,
               "QP_INPUT_MAX_ENTRY is the largest body create");

qp_result qp_input_log_init(qp_input_log *log, void *buf, unsigned long size)
{
    if (!log || !buf) return QP_ERR_PARAM;
    log->data = (unsigned char *)buf;
    log->size = size;
    log->len = 0;
    log->count = 0;
    log->lost = 0;
    return QP_OK;
}

void qp_world_set_input_log(qp_world *w, qp_input_log *log)
{
    if (w) w->input_log = log;
}

typedef struct {
    unsigned char *p;
    unsigned long n;
} out_bytes;

static void put(out_bytes *o, uint32_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) o->p[o->n++] = (unsigned char)(v >> (8 * i));
}

static void put_i(out_bytes *o, int32_t v) { put(o, (uint32_t)v, 4); }

static void put_v3(out_bytes *o, qp_vec3 v)
{
    put_i(o, v.x);
    put_i(o, v.y);
    put_i(o, v.z);
}

static void put_quat(out_bytes *o, qp_quat q)
{
    put_i(o, q.w);
    put_i(o, q.x);
    put_i(o, q.y);
    put_i(o, q.z);
}

static void put_filter(out_bytes *o, qp_shape_filter f)
{
    put(o, f.category, 2);
    put(o, f.mask, 2);
    put(o, (uint16_t)f.group, 2);
}

static unsigned long payload_size(qp_input_kind kind, const qp_body_def *def)
{
    switch (kind) {
    case QP_INPUT_CREATE_BODY: {
        unsigned long n = DEF_BYTES;
        for (int k = 0; k < def->shape_count; k++)
            n += def->shapes[k].type == QP_SHAPE_HULL ? HULL_SHAPE_BYTES(def->shapes[k].hull->vert_count) : SHAPE_BYTES;
        return n;
    }
    case QP_INPUT_SET_POSE: return 28;
    case QP_INPUT_SET_LINEAR_VELOCITY:
    case QP_INPUT_SET_ANGULAR_VELOCITY:
    case QP_INPUT_APPLY_FORCE:
    case QP_INPUT_APPLY_TORQUE: return 12;
    case QP_INPUT_APPLY_IMPULSE: return 24;
    case QP_INPUT_SET_SHAPE_FILTER: return FILTER_BYTES;
    case QP_INPUT_CREATE_JOINT: return JOINT_BYTES;
    case QP_INPUT_CREATE_JOINT_FULL: return JOINT_FULL_BYTES;
    case QP_INPUT_SET_JOINT_MOTOR: return MOTOR_BYTES;
    case QP_INPUT_SET_JOINT_SPRING_TARGET: return 4;
    default: return 0;
    }
}

/* Room for an entry of `payload` bytes after its header, which it writes into *o (kind,
 * w's step, index, generation); false when w has no log, or it is full: then the log
 * stops here and counts the entry lost. */
static bool begin(qp_world *w, out_bytes *o, qp_input_kind kind, uint16_t index, uint16_t generation,
                  unsigned long payload)
{
    qp_input_log *log = w->input_log;
    if (!log) return false;
    unsigned long need = ENTRY_HEADER + payload;
    if (log->lost || log->len > log->size || need > log->size - log->len) {
        log->lost++;
        return false;
    }
    o->p = log->data + log->len;
    o->n = 0;
    put(o, (uint32_t)kind, 1);
    put(o, w->stats.step, 4);
    put(o, index, 2);
    put(o, generation, 2);
    return true;
}

static void finish(qp_world *w, const out_bytes *o)
{
    w->input_log->len += o->n;
    w->input_log->count++;
}

/* Append one entry for a call that succeeded: a and b are its vectors, q its rotation,
 * def its body def (create), as the kind needs. */
void qp__record_input(qp_world *w, qp_input_kind kind, qp_body_id id, const qp_vec3 *a, const qp_vec3 *b,
                      const qp_quat *q, const qp_body_def *def)
{
    out_bytes o;
    if (!begin(w, &o, kind, id.index, id.generation, payload_size(kind, def))) return;
    switch (kind) {
    case QP_INPUT_CREATE_BODY:
        put(&o, (uint32_t)def->type, 1);
        put_v3(&o, def->position);
        put_quat(&o, def->rotation);
        put_v3(&o, def->linear_velocity);
        put_v3(&o, def->angular_velocity);
        put_i(&o, def->mass);
        put_i(&o, def->density);
        put_i(&o, def->friction);
        put_i(&o, def->static_friction);
        put_i(&o, def->restitution);
        put_i(&o, def->rolling_resistance);
        put(&o, def->asleep ? 1u : 0u, 1);
        put(&o, def->user_data, 4);
        put(&o, (uint32_t)def->shape_count, 1);
        for (int k = 0; k < def->shape_count; k++) {
            const qp_shape *s = &def->shapes[k];
            put(&o, (uint32_t)s->type, 1);
            put_v3(&o, s->offset);
            put_quat(&o, s->rotation);
            if (qp_shape_is_level(s->type)) {
                /* Referenced geometry: its checksum (the replay finds it in the world), never
                 * its address, which differs between machines and runs. */
                put(&o, s->type == QP_SHAPE_MESH ? s->mesh->checksum : s->heightfield->checksum, 4);
                put(&o, 0, 4);
                put(&o, 0, 4);
                put(&o, 0, 4);
            } else if (s->type == QP_SHAPE_HULL) {   /* its corners (the build gives the same hull back) */
                put(&o, s->hull->vert_count, 1);
                for (int v = 0; v < s->hull->vert_count; v++) put_v3(&o, s->hull->verts[v]);
            } else {
                put_v3(&o, s->half);
                put_i(&o, s->half_height);
            }
            put(&o, def->sensors[k] ? 1u : 0u, 1);
            put_filter(&o, def->filters[k]);
        }
        break;
    case QP_INPUT_SET_POSE:
        put_v3(&o, *a);
        put_quat(&o, *q);
        break;
    case QP_INPUT_APPLY_IMPULSE:
        put_v3(&o, *a);
        put_v3(&o, *b);
        break;
    default:
        if (payload_size(kind, def) == 12) put_v3(&o, *a);
        break;
    }
    finish(w, &o);
}

void qp__record_shape_filter(qp_world *w, qp_body_id id, int shape, qp_shape_filter filter)
{
    out_bytes o;
    if (!begin(w, &o, QP_INPUT_SET_SHAPE_FILTER, id.index, id.generation, FILTER_BYTES)) return;
    put(&o, (uint32_t)shape, 1);
    put_filter(&o, filter);
    finish(w, &o);
}

/* Create (with its def) or destroy (def null) of joint id. A def that uses the later
 * kinds' options takes the longer entry; the first ones keep their bytes. */
void qp__record_joint(qp_world *w, qp_input_kind kind, qp_joint_id id, const qp_joint_def *def)
{
    out_bytes o;
    bool full = def && qp__joint_def_extended(def);
    if (full) kind = QP_INPUT_CREATE_JOINT_FULL;
    if (!begin(w, &o, kind, id.index, id.generation, def ? payload_size(kind, 0) : 0)) return;
    if (def) {
        put(&o, (uint32_t)def->type, 1);
        put(&o, def->a.index, 2);
        put(&o, def->a.generation, 2);
        put(&o, def->b.index, 2);
        put(&o, def->b.generation, 2);
        put_v3(&o, def->anchor);
        put_v3(&o, def->anchor_a);
        put_v3(&o, def->anchor_b);
        put_v3(&o, def->axis);
        put(&o, def->enable_limit ? 1u : 0u, 1);
        put_i(&o, def->lower_angle);
        put_i(&o, def->upper_angle);
        put_i(&o, def->min_length);
        put_i(&o, def->max_length);
        put_i(&o, def->drift_time);
        put(&o, def->collide_connected ? 1u : 0u, 1);
    }
    if (full) {
        put_i(&o, def->lower_translation);
        put_i(&o, def->upper_translation);
        put_i(&o, def->swing_angle);
        put(&o, def->enable_motor ? 1u : 0u, 1);
        put_i(&o, def->motor_speed);
        put_i(&o, def->max_motor_force);
        put(&o, def->enable_spring ? 1u : 0u, 1);
        put_i(&o, def->spring_hz);
        put_i(&o, def->spring_damping);
        put_i(&o, def->spring_target);
        put_i(&o, def->max_spring_force);
        put_i(&o, def->break_impulse);
        put_i(&o, def->max_friction_torque);
    }
    finish(w, &o);
}

void qp__record_joint_setting(qp_world *w, qp_input_kind kind, qp_joint_id id, bool enable, fix16_t value,
                              fix16_t max_force)
{
    out_bytes o;
    if (!begin(w, &o, kind, id.index, id.generation, payload_size(kind, 0))) return;
    if (kind == QP_INPUT_SET_JOINT_MOTOR) {
        put(&o, enable ? 1u : 0u, 1);
        put_i(&o, value);
        put_i(&o, max_force);
    } else {
        put_i(&o, value);
    }
    finish(w, &o);
}
