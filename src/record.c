/* The input log (include/qphys/record.h): mutating calls as portable byte entries in a
 * caller's buffer, and their replay. Writing is called by body.c after each successful
 * call; replay decodes an entry completely, then makes the same public call. */
#include "qphys/record.h"
#include "world_internal.h"

#define ENTRY_HEADER 9ul   /* kind u8, step u32, index u16, generation u16 */
#define SHAPE_BYTES 45ul
#define DEF_BYTES 79ul     /* a body def without its shapes */

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

/* ---- writing ------------------------------------------------------------------------- */

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

static unsigned long payload_size(qp_input_kind kind, const qp_body_def *def)
{
    switch (kind) {
    case QP_INPUT_CREATE_BODY: return DEF_BYTES + SHAPE_BYTES * (unsigned long)def->shape_count;
    case QP_INPUT_SET_POSE: return 28;
    case QP_INPUT_SET_LINEAR_VELOCITY:
    case QP_INPUT_SET_ANGULAR_VELOCITY:
    case QP_INPUT_APPLY_FORCE:
    case QP_INPUT_APPLY_TORQUE: return 12;
    case QP_INPUT_APPLY_IMPULSE: return 24;
    default: return 0;
    }
}

/* Append one entry for a call that succeeded: a and b are its vectors, q its rotation,
 * def its body def (create), as the kind needs. */
void qp__record_input(qp_world *w, qp_input_kind kind, qp_body_id id, const qp_vec3 *a, const qp_vec3 *b,
                      const qp_quat *q, const qp_body_def *def)
{
    qp_input_log *log = w->input_log;
    if (!log) return;
    unsigned long need = ENTRY_HEADER + payload_size(kind, def);
    if (log->lost || log->len > log->size || need > log->size - log->len) {
        log->lost++;
        return;
    }
    out_bytes o = { log->data + log->len, 0 };
    put(&o, (uint32_t)kind, 1);
    put(&o, w->stats.step, 4);
    put(&o, id.index, 2);
    put(&o, id.generation, 2);
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
        put(&o, def->asleep ? 1u : 0u, 1);
        put(&o, def->user_data, 4);
        put(&o, (uint32_t)def->shape_count, 1);
        for (int k = 0; k < def->shape_count; k++) {
            const qp_shape *s = &def->shapes[k];
            put(&o, (uint32_t)s->type, 1);
            put_v3(&o, s->offset);
            put_quat(&o, s->rotation);
            put_v3(&o, s->half);
            put_i(&o, s->half_height);
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
    log->len += o.n;
    log->count++;
}

/* ---- replay --------------------------------------------------------------------------- */

typedef struct {
    const unsigned char *p;
    unsigned long n, at;
    int bad;
} in_bytes;

static uint32_t get(in_bytes *in, int bytes)
{
    if (in->bad || in->n - in->at < (unsigned long)bytes) {
        in->bad = 1;
        return 0;
    }
    uint32_t v = 0;
    for (int i = 0; i < bytes; i++) v |= (uint32_t)in->p[in->at++] << (8 * i);
    return v;
}

static int32_t get_i(in_bytes *in) { return (int32_t)get(in, 4); }

static qp_vec3 get_v3(in_bytes *in)
{
    qp_vec3 v;
    v.x = get_i(in);
    v.y = get_i(in);
    v.z = get_i(in);
    return v;
}

static qp_quat get_quat(in_bytes *in)
{
    qp_quat q;
    q.w = get_i(in);
    q.x = get_i(in);
    q.y = get_i(in);
    q.z = get_i(in);
    return q;
}

/* One entry, decoded (nothing applied). */
typedef struct {
    qp_input_kind kind;
    uint32_t step;
    qp_body_id id;
    qp_vec3 a, b;
    qp_quat q;
    qp_body_def def;
} entry;

static void get_def(in_bytes *in, qp_body_def *d)
{
    *d = qp_default_body_def();
    d->type = (qp_body_type)get(in, 1);
    d->position = get_v3(in);
    d->rotation = get_quat(in);
    d->linear_velocity = get_v3(in);
    d->angular_velocity = get_v3(in);
    d->mass = get_i(in);
    d->density = get_i(in);
    d->friction = get_i(in);
    d->static_friction = get_i(in);
    d->restitution = get_i(in);
    uint32_t asleep = get(in, 1);
    if (asleep > 1) in->bad = 1;
    d->asleep = asleep != 0;
    d->user_data = get(in, 4);
    uint32_t count = get(in, 1);
    if (count < 1 || count > QP_CFG_MAX_BODY_SHAPES) in->bad = 1;
    d->shape_count = in->bad ? 0 : (int)count;
    for (int k = 0; k < d->shape_count; k++) {
        qp_shape *s = &d->shapes[k];
        s->type = (qp_shape_type)get(in, 1);
        s->offset = get_v3(in);
        s->rotation = get_quat(in);
        s->half = get_v3(in);
        s->half_height = get_i(in);
    }
}

static void get_entry(in_bytes *in, entry *e)
{
    uint32_t kind = get(in, 1);
    e->kind = (qp_input_kind)kind;
    e->step = get(in, 4);
    e->id.index = (uint16_t)get(in, 2);
    e->id.generation = (uint16_t)get(in, 2);
    if (kind < QP_INPUT_CREATE_BODY || kind >= QP_INPUT_KIND_END) {
        in->bad = 1;
        return;
    }
    switch (e->kind) {
    case QP_INPUT_CREATE_BODY: get_def(in, &e->def); break;
    case QP_INPUT_SET_POSE:
        e->a = get_v3(in);
        e->q = get_quat(in);
        break;
    case QP_INPUT_APPLY_IMPULSE:
        e->a = get_v3(in);
        e->b = get_v3(in);
        break;
    case QP_INPUT_SET_LINEAR_VELOCITY:
    case QP_INPUT_SET_ANGULAR_VELOCITY:
    case QP_INPUT_APPLY_FORCE:
    case QP_INPUT_APPLY_TORQUE: e->a = get_v3(in); break;
    default: break;
    }
}

static qp_result apply(qp_world *w, const entry *e, qp_body_id *got)
{
    *got = e->id;
    switch (e->kind) {
    case QP_INPUT_CREATE_BODY: {
        qp_result r;
        *got = qp_create_body(w, &e->def, &r);
        return r;
    }
    case QP_INPUT_DESTROY_BODY: return qp_destroy_body(w, e->id);
    case QP_INPUT_SET_POSE: return qp_body_set_pose(w, e->id, e->a, e->q);
    case QP_INPUT_SET_LINEAR_VELOCITY: return qp_body_set_linear_velocity(w, e->id, e->a);
    case QP_INPUT_SET_ANGULAR_VELOCITY: return qp_body_set_angular_velocity(w, e->id, e->a);
    case QP_INPUT_APPLY_FORCE: return qp_body_apply_force(w, e->id, e->a);
    case QP_INPUT_APPLY_TORQUE: return qp_body_apply_torque(w, e->id, e->a);
    case QP_INPUT_APPLY_IMPULSE: return qp_body_apply_impulse(w, e->id, e->a, e->b);
    case QP_INPUT_WAKE: return qp_body_wake(w, e->id);
    case QP_INPUT_CLEAR_FLAGS:
        if (!qp_body_is_valid(w, e->id)) return QP_ERR_INVALID_ID;
        qp_body_clear_flags(w, e->id);
        return QP_OK;
    /* Joints: their kinds (32..63, record.h) get a payload in payload_size, an encoding in
     * qp__record_input, a decoding in get_entry and their call here. */
    default: return QP_ERR_PARAM;   /* not reached: get_entry refused it */
    }
}

qp_result qp_input_replay_step(qp_world *w, const void *buf, unsigned long len, unsigned long *at,
                               qp_input_info *info)
{
    qp_input_info dummy;
    if (!info) info = &dummy;
    info->kind = (qp_input_kind)0;
    info->step = 0;
    info->body = info->got = qp_null_body();
    info->result = QP_OK;
    if (!w || !at || (!buf && len > 0) || *at > len) return QP_ERR_PARAM;
    while (*at < len) {
        in_bytes in = { (const unsigned char *)buf, len, *at, 0 };
        entry e;
        get_entry(&in, &e);
        if (in.bad) return QP_ERR_BUFFER;
        if (e.step > w->stats.step) return QP_OK;     /* a later step's */
        info->kind = e.kind;
        info->step = e.step;
        info->body = e.id;
        if (e.step < w->stats.step) return QP_ERR_BUFFER;
        qp_body_id got;
        qp_result r = apply(w, &e, &got);
        info->got = got;
        info->result = r;
        *at = in.at;
        if (r != QP_OK) return r;
        if (e.kind == QP_INPUT_CREATE_BODY && (got.index != e.id.index || got.generation != e.id.generation))
            return QP_ERR_INVALID_ID;
    }
    return QP_OK;
}
