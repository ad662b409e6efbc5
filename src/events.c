/* SPDX-License-Identifier: MIT */
/* Stages "events" and "events out": what the step tells the game, read after it (world.h, "events").
 *
 * The stages raise events where they see them: the narrow phase a contact's begin and
 * end, the sensor stage an overlap's, sleep and wake a body's; calls between steps raise
 * them too (destroying a body ends its contacts and overlaps, a wake spreads). Each kind
 * has a fixed buffer in the world; an event that does not fit is counted, never written.
 *
 * Order: the stages walk contacts, pairs and bodies by their integer keys, so the
 * events come out sorted, except in the rare ways a walk cannot keep it (a full contact
 * pool gives up an old contact ahead of the walk; a wake spreads breadth-first). The
 * last stage checks the order and sorts what is out of it, stably, so events of the same
 * key stay in the order they happened (an end before a begin).
 *
 * A begin event is raised before the solver has run: the last stage fills in its point,
 * normal and impulse from the contact as the step leaves it.
 */
#include <string.h>
#include "contact.h"
#include "events.h"
#include "stages.h"

static bool room(qp_world *w, int n)
{
    if (n < qp__cap_events(w)) return true;
    if (w->events.lost < UINT32_MAX) w->events.lost++;
    return false;
}

static qp_body_id id_of(const qp_world *w, int index)
{
    qp_body_id id = { (uint16_t)index, w->bodies[index].generation };
    return id;
}

void qp__event_contact(qp_world *w, int kind, int a, int b, int sa, int sb, qp_vec3 point, qp_vec3 normal,
                       fix16_t impulse)
{
    qp_events *ev = &w->events;
    if (!room(w, ev->contact_n)) return;
    qp_contact_event *e = &ev->contact[ev->contact_n++];
    memset(e, 0, sizeof *e);
    e->a = id_of(w, a);
    e->b = id_of(w, b);
    e->shape_a = (uint8_t)sa;
    e->shape_b = (uint8_t)sb;
    e->kind = (uint8_t)kind;
    e->point = point;
    e->normal = normal;
    e->impulse = impulse;
}

/* The centroid of a contact's points in the world, from a's centre of mass as it is now. */
static qp_vec3 centroid(const qp_world *w, const qp_contact *c)
{
    int64_t s[3] = { 0, 0, 0 };
    for (int k = 0; k < c->count; k++) {
        s[0] += c->p[k].ra.x;
        s[1] += c->p[k].ra.y;
        s[2] += c->p[k].ra.z;
    }
    int n = c->count > 0 ? c->count : 1;
    qp_vec3 arm = qp_v3((fix16_t)(s[0] / n), (fix16_t)(s[1] / n), (fix16_t)(s[2] / n));
    return qp_v3_add(w->bodies[c->a].x, arm);
}

/* The contact's normal impulse (and the collision pass's jc) in N s: a contact keeps
 * its impulses in its own unit (qp__impulse_shift). */
static fix16_t normal_impulse(const qp_world *w, const qp_contact *c, fix16_t jc)
{
    int64_t j = jc;
    for (int k = 0; k < c->count; k++) j += c->p[k].jn;
    return qp__contact_impulse(w, c, j);
}

void qp__event_contact_end(qp_world *w, const qp_contact *c)
{
    qp__event_contact(w, QP_EVENT_END, c->a, c->b, c->sa, c->sb, centroid(w, c), c->n, normal_impulse(w, c, 0));
}

void qp__event_sensor(qp_world *w, int kind, const qp_pair *p)
{
    qp_events *ev = &w->events;
    if (!room(w, ev->sensor_n)) return;
    const qp_shape_slot *sa = &w->shapes[p->a], *sb = &w->shapes[p->b];
    bool a_senses = (sa->flags & QP_SHAPE_SENSOR) != 0;
    const qp_shape_slot *sensor = a_senses ? sa : sb, *visitor = a_senses ? sb : sa;
    qp_sensor_event *e = &ev->sensor[ev->sensor_n++];
    memset(e, 0, sizeof *e);
    e->sensor = id_of(w, sensor->body);
    e->visitor = id_of(w, visitor->body);
    e->sensor_shape = sensor->slot;
    e->visitor_shape = visitor->slot;
    e->kind = (uint8_t)kind;
}

void qp__event_body(qp_world *w, int kind, int body)
{
    qp_events *ev = &w->events;
    if (!room(w, ev->body_n)) return;
    qp_body_event *e = &ev->body[ev->body_n++];
    memset(e, 0, sizeof *e);
    e->body = id_of(w, body);
    e->kind = (uint8_t)kind;
}

#if QP_CFG_JOINT_OPTIONS
void qp__event_joint(qp_world *w, int index, fix16_t load)
{
    qp_events *ev = &w->events;
    if (ev->joint_n >= qp__cap_joint_events(w)) {   /* cannot happen: one event per joint a step */
        if (ev->lost < UINT32_MAX) ev->lost++;
        return;
    }
    const qp_joint *j = &w->joints[index - 1];
    qp_joint_event *e = &ev->joint[ev->joint_n++];
    memset(e, 0, sizeof *e);
    e->joint.index = (uint16_t)index;
    e->joint.generation = j->generation;
    e->a = id_of(w, j->a);
    e->b = id_of(w, j->b);
    e->load = load;
    e->kind = QP_EVENT_BROKE;
}
#endif

/* ---- the step's first and last stages ------------------------------------------------- */

/* Drop the first done of n events of size bytes: the rest move to the front. */
static uint16_t drop(void *base, int n, int done, size_t size)
{
    if (done > 0 && n > done) memmove(base, (unsigned char *)base + (size_t)done * size, (size_t)(n - done) * size);
    return (uint16_t)(n - done);
}

void qp__events_begin(qp_world *w)
{
    qp_events *ev = &w->events;
    ev->contact_n = drop(ev->contact, ev->contact_n, ev->contact_done, sizeof ev->contact[0]);
    ev->sensor_n = drop(ev->sensor, ev->sensor_n, ev->sensor_done, sizeof ev->sensor[0]);
    ev->body_n = drop(ev->body, ev->body_n, ev->body_done, sizeof ev->body[0]);
    ev->contact_done = ev->sensor_done = ev->body_done = 0;
#if QP_CFG_JOINT_OPTIONS
    ev->joint_n = drop(ev->joint, ev->joint_n, ev->joint_done, sizeof ev->joint[0]);
    ev->joint_done = 0;
#endif
    ev->contact_from = ev->contact_n;
    ev->sensor_from = ev->sensor_n;
    ev->body_from = ev->body_n;
    ev->lost -= ev->lost_done;
    ev->lost_done = 0;
}

static uint64_t contact_event_key(const void *p)
{
    const qp_contact_event *e = (const qp_contact_event *)p;
    return qp__contact_key(e->a.index, e->b.index, e->shape_a, e->shape_b);
}

static uint64_t sensor_event_key(const void *p)
{
    const qp_sensor_event *e = (const qp_sensor_event *)p;
    int s = e->sensor.index, v = e->visitor.index;
    return s < v ? qp__contact_key(s, v, e->sensor_shape, e->visitor_shape)
                 : qp__contact_key(v, s, e->visitor_shape, e->sensor_shape);
}

static uint64_t body_event_key(const void *p)
{
    return ((const qp_body_event *)p)->body.index;
}

/* Stable insertion sort of n events of size bytes by key, when they are out of order
 * (nearly never: then it is a single check). */
static void sort_events(void *base, int n, size_t size, uint64_t (*key)(const void *))
{
    unsigned char *a = (unsigned char *)base;
    unsigned char tmp[sizeof(qp_contact_event)];
    _Static_assert(sizeof(qp_contact_event) >= sizeof(qp_sensor_event) &&
                       sizeof(qp_contact_event) >= sizeof(qp_body_event), "tmp holds any event");
    for (int i = 1; i < n; i++) {
        uint64_t k = key(a + (size_t)i * size);
        if (key(a + (size_t)(i - 1) * size) <= k) continue;
        memcpy(tmp, a + (size_t)i * size, size);
        int j = i - 1;
        while (j >= 0 && key(a + (size_t)j * size) > k) j--;
        memmove(a + (size_t)(j + 2) * size, a + (size_t)(j + 1) * size, (size_t)(i - j - 1) * size);
        memcpy(a + (size_t)(j + 1) * size, tmp, size);
    }
}

/* The contact of a key, by binary search (contacts are sorted by it), or null. */
static const qp_contact *find_contact(const qp_world *w, uint64_t key)
{
    int lo = 0, hi = w->contact_count - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        const qp_contact *c = &w->contacts[mid];
        uint64_t k = qp__contact_key(c->a, c->b, c->sa, c->sb);
        if (k == key) return c;
        if (k < key) lo = mid + 1;
        else hi = mid - 1;
    }
    return 0;
}

void qp__events_end(qp_world *w)
{
    qp_events *ev = &w->events;
    for (int i = ev->contact_from; i < ev->contact_n; i++) {
        qp_contact_event *e = &ev->contact[i];
        if (e->kind != QP_EVENT_BEGIN) continue;
        const qp_contact *c = find_contact(w, contact_event_key(e));
        if (!c) continue;   /* cannot happen: a contact lives from the narrow phase to the next */
        e->point = centroid(w, c);
        e->normal = c->n;
        e->impulse = normal_impulse(w, c, c->jc);
    }
    sort_events(ev->contact + ev->contact_from, ev->contact_n - ev->contact_from, sizeof ev->contact[0],
                contact_event_key);
    sort_events(ev->sensor + ev->sensor_from, ev->sensor_n - ev->sensor_from, sizeof ev->sensor[0], sensor_event_key);
    sort_events(ev->body + ev->body_from, ev->body_n - ev->body_from, sizeof ev->body[0], body_event_key);
    ev->contact_done = ev->contact_n;
    ev->sensor_done = ev->sensor_n;
    ev->body_done = ev->body_n;
#if QP_CFG_JOINT_OPTIONS
    ev->joint_done = ev->joint_n;   /* raised in joint index order: sorted */
#endif
    ev->lost_done = ev->lost;
}

/* ---- reading ------------------------------------------------------------------------------ */

int qp_world_contact_events(const qp_world *w, const qp_contact_event **out)
{
    if (!w) return 0;
    if (out) *out = w->events.contact;
    return w->events.contact_n;
}

int qp_world_sensor_events(const qp_world *w, const qp_sensor_event **out)
{
    if (!w) return 0;
    if (out) *out = w->events.sensor;
    return w->events.sensor_n;
}

int qp_world_body_events(const qp_world *w, const qp_body_event **out)
{
    if (!w) return 0;
    if (out) *out = w->events.body;
    return w->events.body_n;
}

uint32_t qp_world_events_lost(const qp_world *w)
{
    return w ? w->events.lost : 0;
}

int qp_world_joint_events(const qp_world *w, const qp_joint_event **out)
{
#if QP_CFG_JOINT_OPTIONS
    if (!w) return 0;
    if (out) *out = w->events.joint;
    return w->events.joint_n;
#else
    (void)w;
    if (out) *out = 0;
    return 0;
#endif
}
