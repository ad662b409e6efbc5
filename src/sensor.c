/* SPDX-License-Identifier: MIT */
/* Stage "sensors": sensor overlaps (world.h, qp_body_def.sensors).
 *
 * A sensor shape takes part in the broad phase like any shape (filters apply; sensors
 * do not pair with sensors), but the narrow phase makes no contact of its pairs: no
 * solver rows, no contact-graph edge, no wake. Here each such pair is tested for
 * overlap at the predicted poses, as contacts are (touching or penetrating, no margin),
 * and the overlaps are kept from step to step in a list sorted like the pairs, so that
 * a begin and an end event are raised when one appears or goes.
 *
 * The same merge walk as the narrow phase's persistent contacts: last step's overlaps
 * move to the top of their pool, this step's are written from the bottom. An overlap
 * whose bodies both rest (asleep, or asleep on a static body: their pair is not swept)
 * is kept as it was, so a sleeping visitor does not leave the sensor. A full pool is
 * counted (stats.overflows) and the overlap it cannot hold ends or never begins.
 */
#include <string.h>
#include "body.h"
#include "contact.h"
#include "events.h"
#include "scratch.h"
#include "stages.h"

/* Do the pair's shapes touch or overlap at the predicted poses? Out of line: the collide
 * functions are the deepest calls of a step. */
static QP__NOINLINE bool overlapping(const qp_world *w, const qp_pair *p)
{
    const qp_shape_slot *sa = &w->shapes[p->a], *sb = &w->shapes[p->b];
    qp_rot3 ra = qp_quat_to_rot3(qp__pred(w)->q[sa->body]), rb = qp_quat_to_rot3(qp__pred(w)->q[sb->body]);
    qp_transform xa = qp__shape_world(w, p->a, &qp__pred(w)->x[sa->body], &ra);
    qp_transform xb = qp__shape_world(w, p->b, &qp__pred(w)->x[sb->body], &rb);
    qp_transform rel = qp_transform_relative(&xa, &xb);
    qp_manifold m;
    return qp_collide(&sa->shape, &sb->shape, &rel, 0, &m) > 0;
}

/* Both bodies at rest, one of them asleep: the pair is not swept, the overlap stays. */
static bool at_rest(const qp_world *w, const qp_pair *p)
{
    const qp_body_state *a = &w->bodies[w->shapes[p->a].body], *b = &w->bodies[w->shapes[p->b].body];
    return !qp__body_moves(a) && !qp__body_moves(b) && ((a->state | b->state) & QP_STATE_ASLEEP);
}

typedef struct {
    int n;                        /* this step's overlaps: [0, n) */
    int next, end;                /* last step's not yet read: [next, end) */
} walk;

/* Keep overlap p in this step's list; false when the pool cannot hold it. When the slot
 * is an unread old overlap, that one is given up (it ends). */
static bool keep(qp_world *w, walk *k, const qp_pair *p)
{
    if (k->n == qp__cap_sensor_overlaps(w)) {
        w->stats.overflows++;
        return false;
    }
    if (k->n == k->next && k->next < k->end) {
        w->stats.overflows++;
        qp__event_sensor(w, QP_EVENT_END, &w->sensor_overlaps[k->next]);
        k->next++;
    }
    w->sensor_overlaps[k->n++] = *p;
    return true;
}

/* An old overlap whose pair was not swept this step: kept if at rest, else it ends. */
static void settle(qp_world *w, walk *k, const qp_pair *old)
{
    if (!at_rest(w, old) || !keep(w, k, old)) qp__event_sensor(w, QP_EVENT_END, old);
}

void qp__sensors(qp_world *w)
{
    qp_pair *ov = w->sensor_overlaps;
    walk k = { 0, qp__cap_sensor_overlaps(w) - w->sensor_overlap_count, qp__cap_sensor_overlaps(w) };
    if (k.next > 0) memmove(&ov[k.next], &ov[0], (size_t)w->sensor_overlap_count * sizeof *ov);
    for (int i = 0; i < w->pair_count; i++) {
        const qp_pair *p = &w->pairs[i];
        if (!qp__pair_is_sensor(w, p)) continue;
        uint64_t key = qp__pair_key(w, p);
        bool found = false;
        while (k.next < k.end) {
            uint64_t old_key = qp__pair_key(w, &ov[k.next]);
            if (old_key > key) break;
            qp_pair old = ov[k.next++];
            if (old_key == key) {
                found = true;
                break;
            }
            settle(w, &k, &old);
        }
        if (overlapping(w, p)) {
            if (keep(w, &k, p)) {
                if (!found) qp__event_sensor(w, QP_EVENT_BEGIN, p);
            } else if (found) {
                qp__event_sensor(w, QP_EVENT_END, p);
            }
        } else if (found) {
            qp__event_sensor(w, QP_EVENT_END, p);
        }
    }
    while (k.next < k.end) {
        qp_pair old = ov[k.next++];
        settle(w, &k, &old);
    }
    w->sensor_overlap_count = k.n;
}
