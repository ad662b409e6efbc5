/* SPDX-License-Identifier: MIT */
/* Stages "check sleepers" and "sleep": sleep and wake (docs/design.md §6; seeds 000, 001, 002, 003, 004).
 *
 * Three-point test (Lengyel, seed 000): each awake body grows three boxes
 * around C, C + R x and C + R y (x, y: first two columns of its rotation, so the
 * off-centre points see rotation about any axis, even one through C along
 * x; R: how far the body reaches from C, sleep_reach). When a box grows past
 * its threshold all three restart at the current points. A body still for
 * sleep_steps steps may sleep, and keeps that pass while
 * each next window of sleep_steps holds (wants_sleep). The energy policy
 * (seeds 001, 002) keeps a recency-weighted average of |v|^2 + |w|^2 instead.
 *
 * A body whose contacts changed this step (a new touching contact, or a
 * point that carried load gone: a corner lifting, the manifold moving to
 * other features) restarts its test: a swaying or rocking stack keeps
 * changing its load-bearing contacts even when it moves slowly, and must not
 * be frozen at a turning point; a settled one does not. Unless it has not
 * moved since its test began (moved_since_start): then only its manifold
 * flickers between nearly equal features, and it is at rest.
 *
 * Islands: bodies joined by contacts or joints form islands (union-find over
 * the contacts and joints, iterative, path halving; a contact between two moving
 * bodies that are apart and push on nothing joins none); a joint to a static body
 * counts as resting on it, and a wake walks every joint of a woken body. An island sleeps when every body in
 * it may and it rests on something static. Sleepers keep zero velocity, are
 * neither integrated nor solved, and their pairs are not collided (but those of a body created
 * asleep, once: its contacts are recorded asleep in its first step, narrow_phase.c).
 *
 * Wake: a user call, an awake body arriving fast (narrow_phase.c), a sleeper
 * pushed faster than wake_velocity by the passes, removal of a body it
 * touches. A wake spreads up the contact graph: everything resting on the
 * woken body wakes in the same step (pull the bottom block and the whole
 * stack falls at once).
 */
#include <stddef.h>
#include "body.h"
#include "events.h"
#include "layout.h"
#include "sleep.h"
#include "stages.h"

/* How far the off-centre points sit from the centre of mass: as far as the body reaches
 * (its shapes' farthest points, each bounded by its distance from the centre plus its own
 * radius), at least QP_SLEEP_REACH_MIN and at most QP_SLEEP_REACH_MAX. The points then move as
 * the body's surface does, whatever its size: with the points a metre from the centre, a 30 cm
 * limb turning at 0.6 degrees a second failed the 1 cm test while its surface moved 3 mm, and a
 * 10 m plank turning at 0.46 degrees a second passed it while its ends moved 4 cm. The floor
 * keeps the turn the test lets sleep at most about 2.3 degrees a second (1 cm at a quarter
 * metre; Box2D's angular tolerance is 2), however small the body. */
#define QP_SLEEP_REACH_MIN QP_FRAC(1, 4)
#define QP_SLEEP_REACH_MAX QP_INT(1000)
static fix16_t sleep_reach(const qp_world *w, const qp_body_state *b)
{
    int64_t most = 0;
    for (int k = 0; k < b->shape_count; k++) {
        const qp_shape *s = &w->shapes[b->shapes[k]].shape;
        int64_t r = (s->offset.x | s->offset.y | s->offset.z) ? qp_v3_len(s->offset) : 0;
        if (s->type == QP_SHAPE_BOX) r += qp_v3_len(s->half);
        if (s->type == QP_SHAPE_CAPSULE) r += (int64_t)s->half_height + s->radius;
        if (s->type == QP_SHAPE_SPHERE) r += s->radius;
        if (s->type == QP_SHAPE_HULL) r += s->hull->radius;
        if (r > most) most = r;
    }
    return most < QP_SLEEP_REACH_MIN ? QP_SLEEP_REACH_MIN : most > QP_SLEEP_REACH_MAX ? QP_SLEEP_REACH_MAX : (fix16_t)most;
}

/* The three points of the test: C, and C + R times the rotation's first two columns. */
static void sleep_points(const qp_world *w, const qp_body_state *b, qp_vec3 p[3])
{
    const qp_rot3 r = qp__body_rot(b);
    const fix16_t reach = sleep_reach(w, b);
    p[0] = b->x;
    for (int k = 1; k < 3; k++) {
        const qp_vec3 col = qp_rot3_col(&r, k - 1);
        p[k] = qp_v3(qp__sat32((int64_t)b->x.x + qp_mul_q30(reach, col.x)),
                     qp__sat32((int64_t)b->x.y + qp_mul_q30(reach, col.y)),
                     qp__sat32((int64_t)b->x.z + qp_mul_q30(reach, col.z)));
    }
}

/* The test starts again: each box the point p[k] (sleep_points). */
static void reset_boxes_at(qp_body_state *b, const qp_vec3 p[3])
{
    for (int k = 0; k < 3; k++) {
        const qp_aabb point = { p[k], p[k] };
        qp__sleep_box_set(b, k, &point);
    }
    b->still_steps = 0;
}

static void reset_boxes(const qp_world *w, qp_body_state *b)
{
    qp_vec3 p[3];
    sleep_points(w, b, p);
    reset_boxes_at(b, p);
}

/* Is the box's diagonal (how far apart two of the point's positions can be: a point that
 * moved 1 cm obliquely has a box under 1 cm on every side) longer than t, 0 <= t <= 1 m? As
 * qp_v3_len of it, the rounded root of its sum of squares s, is above t: for an integer s
 * that holds exactly when s > t^2 + t, found without the root (every body, every step). */
static bool box_wider(const qp_aabb *a, fix16_t t)
{
    const qp_vec3 d = qp_v3_sub(a->hi, a->lo);
    const uint64_t s = (uint64_t)((int64_t)d.x * d.x) + (uint64_t)((int64_t)d.y * d.y) + (uint64_t)((int64_t)d.z * d.z);
    return s > (uint64_t)t * (uint64_t)t + (uint64_t)t;
}
_Static_assert(QP_LAYOUT_SLEEP_SIZE_MAX <= QP_ONE, "box_wider's thresholds are at most 1 m");

/* A body whose contacts changed starts its test again: its boxes, or (energy policy) its
 * average raised to a woken body's. Millington's average alone froze a rocking weeble at a
 * turning point, where it is still for an instant (tests/unit/test_sleep.c). */
static void restart_test(const qp_world *w, qp_body_state *b)
{
    reset_boxes(w, b);
    if (w->def.sleep_policy != QP_SLEEP_ENERGY) return;
    fix16_t wake = qp_mul(w->def.sleep_energy, w->def.wake_energy_factor);
    if (b->motion < wake) b->motion = wake;
}

/* Has the body moved since its test last started? Under the three-point test, more than a
 * sixteenth of a threshold (0.6 mm by default) at one of its points. A body that has not is
 * not rocking nor swaying, whatever its contacts do: a resting box whose manifold swapped
 * an edge's two points for a face's three every few steps (the separating axis test's two
 * axes a unit either side of its tolerance) would restart its test at every swap, and keep a
 * pile of 512 cubes awake for good. */
static bool moved_since_start(const qp_world *w, const qp_body_state *b)
{
    if (w->def.sleep_policy == QP_SLEEP_ENERGY) return true;
    for (int k = 0; k < 3; k++) {
        const qp_aabb box = qp__sleep_box(b, k);
        if (box_wider(&box, (k == 0 ? w->def.sleep_center_size : w->def.sleep_point_size) >> 4)) return true;
    }
    return false;
}

static void wake_one(qp_world *w, int i)
{
    qp_body_state *b = &w->bodies[i];
    b->state &= (uint16_t)~QP_STATE_ASLEEP;
    b->awake_steps = 0;
    b->motion = qp_mul(w->def.sleep_energy, w->def.wake_energy_factor);
    reset_boxes(w, b);
    qp__event_body(w, QP_EVENT_WOKE, i);
}

/* Does the contact climb from u to the other body (not clearly downwards)? */
static bool above(const qp_world *w, const qp_contact *c, int u)
{
    qp_vec3 up;
    if (!qp_v3_normalize_q30(qp_v3_neg(w->def.gravity), &up)) return true;
    int64_t d = (int64_t)c->n.x * up.x + (int64_t)c->n.y * up.y + (int64_t)c->n.z * up.z;
    if (u == c->b) d = -d;
    return d >= -((int64_t)1 << 59);  /* n.up >= -1/2 in Q60 */
}

/* Wake the sleeper across contact c from u, if it rests on u (the contact climbs from u to
 * it), and queue it at tail; returns the new tail. */
static int wake_up_from(qp_world *w, const qp_contact *c, int u, int tail)
{
    int v = c->a == u ? c->b : c->a;
    if (!(w->bodies[v].state & QP_STATE_ASLEEP) || !above(w, c, u)) return tail;
    wake_one(w, v);
    w->queue[tail] = (uint16_t)v;
    return tail + 1;
}

/* The contacts of every body among spans, as lists (CSR: body u's are list[start[u] ..
 * start[u + 1]), each in the spans' order), in the rows' scratch memory: false where there is
 * none (low-RAM) or too little. Made once for a wake, so that each woken body reads its own
 * contacts instead of scanning them all: a wall of 2 080 cubes woken by one impact scanned
 * its 6 000 contacts 2 080 times. */
typedef struct {
    const uint32_t *start;
    const uint16_t *list;
} span_lists;

static bool list_spans(qp_world *w, const qp__contact_spans *spans, span_lists *out)
{
    unsigned long room;
    unsigned char *mem = qp__rows_scratch(w, &room);
    const int bodies = w->body_high + 1;
    int64_t entries = 0;
    for (int r = 0; r < 2; r++) entries += 2 * (int64_t)(spans->hi[r] > spans->lo[r] ? spans->hi[r] - spans->lo[r] : 0);
    if (!mem || (uint64_t)(4 * ((int64_t)bodies + 1) + 2 * entries) > room) return false;
    uint32_t *start = (uint32_t *)(void *)mem;
    uint16_t *list = (uint16_t *)(void *)(mem + 4 * ((size_t)bodies + 1));
    for (int i = 0; i <= bodies; i++) start[i] = 0;
    for (int r = 0; r < 2; r++)
        for (int i = spans->lo[r]; i < spans->hi[r]; i++) {
            start[w->contacts[i].a + 1]++;
            if (w->contacts[i].b != w->contacts[i].a) start[w->contacts[i].b + 1]++;
        }
    for (int i = 1; i <= bodies; i++) start[i] += start[i - 1];
    /* Placing moves start[u] to the end of u's list, the start of u + 1's: shifted back below. */
    for (int r = 0; r < 2; r++)
        for (int i = spans->lo[r]; i < spans->hi[r]; i++) {
            list[start[w->contacts[i].a]++] = (uint16_t)i;
            if (w->contacts[i].b != w->contacts[i].a) list[start[w->contacts[i].b]++] = (uint16_t)i;
        }
    for (int i = bodies; i > 0; i--) start[i] = start[i - 1];
    start[0] = 0;
    out->start = start;
    out->list = list;
    return true;
}

/* Wake start and, breadth-first up the contact graph, everything resting on it: the
 * contacts of each body found by last step's adjacency, or (spans) among the contacts in
 * spans, through their lists where there is room for them, else by a scan. */
static void wake_spread(qp_world *w, int start, const qp__contact_spans *spans)
{
    qp_body_state *s = &w->bodies[start];
    if (!qp__body_dynamic(s)) return;
    s->awake_steps = 0;
    if (!(s->state & QP_STATE_ASLEEP)) return;
    span_lists lists;
    const bool listed = spans && list_spans(w, spans, &lists);
    wake_one(w, start);
    int head = 0, tail = 0;
    w->queue[tail++] = (uint16_t)start;
    while (head < tail) {
        int u = w->queue[head++];
        if (listed) {
            for (uint32_t k = lists.start[u]; k < lists.start[u + 1]; k++)
                tail = wake_up_from(w, &w->contacts[lists.list[k]], u, tail);
        } else if (spans) {
            for (int r = 0; r < 2; r++)
                for (int i = spans->lo[r]; i < spans->hi[r]; i++) {
                    const qp_contact *c = &w->contacts[i];
                    if (c->a == u || c->b == u) tail = wake_up_from(w, c, u, tail);
                }
        } else {
            for (int k = w->adj_start[u]; k < w->adj_start[u + 1]; k++)
                if (w->adj[k] < w->contact_count) tail = wake_up_from(w, &w->contacts[w->adj[k]], u, tail);
        }
        /* Joined bodies wake together, in any direction (a chain wakes whole). */
        for (int i = 1; i <= qp__cap_joints(w) && w->joint_count > 0; i++) {
            const qp_joint *j = &w->joints[i - 1];
            if (j->a == 0 || (j->a != u && j->b != u)) continue;
            int v = j->a == u ? j->b : j->a;
            if (!(w->bodies[v].state & QP_STATE_ASLEEP)) continue;
            wake_one(w, v);
            w->queue[tail++] = (uint16_t)v;
        }
    }
}

void qp__wake_body(qp_world *w, int start)
{
    wake_spread(w, start, NULL);
}

void qp__wake_body_among(qp_world *w, int start, const qp__contact_spans *spans)
{
    wake_spread(w, start, spans);
}

void qp__wake_touching(qp_world *w, int body)
{
    for (int c = 0; c < w->contact_count; c++) {
        const qp_contact *ct = &w->contacts[c];
        if (ct->a == body) qp__wake_body(w, ct->b);
        else if (ct->b == body) qp__wake_body(w, ct->a);
    }
}

static fix16_t motion_now(const qp_body_state *b)
{
    int64_t e = (qp_v3_len_sq_wide(b->v) + qp_v3_len_sq_wide(b->w)) >> 16;
    return qp_sat32(e);
}

/* A sleeper the passes pushed faster than the limit wakes with what rests on it, and keeps
 * its velocity. One woken so with a sleeping contact (on a sleeper or a static body: a record
 * the passes did not solve) stays where it is this step (QP_STATE_WOKEN, integrate.c): moved
 * at once, a cube pushed through the sleeping one on it went 5.2 cm into the ground in that
 * step (bench_impacts seed 50036). From the next step its contacts are found and solved,
 * against the velocity it keeps. One whose contacts were all solved (carried by a kinematic
 * body) moves. */
void qp__check_sleepers(qp_world *w)
{
    fix16_t limit = w->def.wake_velocity;
    bool woke = false;
    for (int i = 1; i <= w->body_high; i++)
        if (w->bodies[i].state & QP_STATE_ASLEEP) w->bodies[i].state |= QP_STATE_DOZED;
    for (int i = 1; i <= w->body_high; i++) {
        qp_body_state *b = &w->bodies[i];
        if (!(b->state & QP_STATE_ASLEEP)) continue;
        bool wake;
        if (w->def.sleep_policy == QP_SLEEP_ENERGY)
            wake = motion_now(b) > qp_mul(w->def.sleep_energy, w->def.wake_energy_factor);
        else
            wake = qp_v3_max_abs(b->v) > limit || qp_v3_max_abs(b->w) > limit;
        if (wake) {
            qp_vec3 v = b->v, omega = b->w;
            woke = true;
            qp__wake_body(w, i);
            b->v = v;
            b->w = omega;
        } else {
            b->v = b->w = qp_v3_zero();
        }
    }
    for (int c = 0; woke && c < w->contact_count; c++) {
        const qp_contact *ct = &w->contacts[c];
        if (!(ct->flags & QP_CONTACT_SLEEPING)) continue;
        for (int s = 0; s < 2; s++) {
            qp_body_state *b = &w->bodies[s == 0 ? ct->a : ct->b];
            if ((b->state & (QP_STATE_DOZED | QP_STATE_ASLEEP)) == QP_STATE_DOZED) b->state |= QP_STATE_WOKEN;
        }
    }
    for (int i = 1; i <= w->body_high; i++) w->bodies[i].state &= (uint16_t)~QP_STATE_DOZED;
    /* A moving kinematic body carries what it touches: a sleeper on it wakes with the
     * velocity the passes gave it, however slow (a platform starting under a sleeper). */
    for (int c = 0; c < w->contact_count; c++) {
        const qp_contact *ct = &w->contacts[c];
        int drives_a = qp__body_drives(&w->bodies[ct->a]), drives_b = qp__body_drives(&w->bodies[ct->b]);
        if (!drives_a && !drives_b) continue;
        int other = drives_a ? ct->b : ct->a;
        qp_body_state *o = &w->bodies[other];
        if (!(o->state & QP_STATE_ASLEEP)) continue;
        qp_vec3 v = o->v, omega = o->w;
        qp__wake_body(w, other);
        o->v = v;
        o->w = omega;
    }
}

/* Can this awake body sleep, by the world's policy? Updates its history. */
static bool wants_sleep(const qp_world *w, qp_body_state *b)
{
    if (w->def.sleep_policy == QP_SLEEP_ENERGY) {
        fix16_t bias = w->def.sleep_energy_bias;
        fix16_t m = qp_sat32(((int64_t)b->motion * bias + (int64_t)motion_now(b) * (QP_ONE - bias)) >> 16);
        fix16_t cap = qp_mul(w->def.sleep_energy, QP_INT(10));
        b->motion = m > cap ? cap : m;
        return b->motion < w->def.sleep_energy && b->awake_steps >= w->def.min_awake_steps;
    }
    qp_vec3 p[3];
    sleep_points(w, b, p);
    bool reset = false;
    qp_aabb grown[3];
    for (int k = 0; k < 3; k++) {
        qp_aabb *box = &grown[k];
        *box = qp__sleep_box(b, k);
        box->lo = qp_v3_min(box->lo, p[k]);
        box->hi = qp_v3_max(box->hi, p[k]);
        if (box_wider(box, k == 0 ? w->def.sleep_center_size : w->def.sleep_point_size)) reset = true;
    }
    if (reset) reset_boxes_at(b, p);
    else {
        for (int k = 0; k < 3; k++) qp__sleep_box_set(b, k, &grown[k]);
        if (b->still_steps < 0xFFFF) b->still_steps++;
    }
    /* A body that passed (n steps inside its boxes) starts a new window of n steps and keeps
     * its pass while the new window holds too: the test asks whether it moved less than the
     * threshold in the last n to 2n steps. Boxes that kept growing for as long as the body
     * waited judged a resting body by everything it did since it passed: in an island of
     * forty (a tall stack settling by fractions of a millimetre a step) each body's box
     * outgrew the threshold every few hundred steps at its own time, the forty were never
     * ready together, and the stack never slept. */
    int n = w->def.sleep_steps;
    if (n <= 0x7FFF && b->still_steps >= 2 * n) {
        reset_boxes_at(b, p);
        b->still_steps = (uint16_t)n;
    }
    return b->still_steps >= n && b->awake_steps >= w->def.min_awake_steps;
}

int qp__island_find(qp_world *w, int i)
{
    while (w->bodies[i].island != i) {
        w->bodies[i].island = w->bodies[w->bodies[i].island].island;
        i = w->bodies[i].island;
    }
    return i;
}

int qp__island_join(qp_world *w, int a, int b)
{
    int ra = qp__island_find(w, a), rb = qp__island_find(w, b);
    if (ra == rb) return 0;
    if (ra > rb) {
        int t = ra;
        ra = rb;
        rb = t;
    }
    w->bodies[rb].island = (uint16_t)ra;
    return rb;
}

enum { ISLAND_AWAKE = 1, ISLAND_GROUNDED = 2 };

/* Does the contact hold its bodies together this step? Not one whose points are all gaps
 * (a margin contact: the shapes are apart) and that carried no impulse in any pass: a
 * ball rolling past a pile within the margin of one of its cubes joined the pile's island
 * through such a contact and kept its 114 cubes awake for as long as it rolled. A
 * sleeping contact still joins (its bodies rest; the passes skip it). */
static bool holds(const qp_contact *c)
{
    if ((c->flags & QP_CONTACT_SLEEPING) || c->jc != 0) return true;
    for (int k = 0; k < c->count; k++)
        if (c->p[k].depth >= 0 || c->p[k].jn != 0) return true;
    return false;
}

void qp__sleep(qp_world *w)
{
    int n = w->body_high;
    uint16_t *mark = w->queue;  /* per island root */
    for (int i = 1; i <= n; i++) {
        w->bodies[i].island = (uint16_t)i;
        mark[i] = 0;
    }
    for (int c = 0; c < w->contact_count; c++) {
        const qp_contact *ct = &w->contacts[c];
        if (!(ct->flags & QP_CONTACT_CHANGED)) continue;
        for (int s = 0; s < 2; s++) {
            qp_body_state *b = &w->bodies[s == 0 ? ct->a : ct->b];
            if (qp__body_moves(b) && moved_since_start(w, b)) restart_test(w, b);
        }
    }
    for (int i = 1; i <= n; i++) {
        qp_body_state *b = &w->bodies[i];
        if (!qp__body_moves(b)) continue;
        /* Counted with sleep off too: the shock pass reads it (shock.c, calm), and a world
         * moves the same with sleep on and off while nothing sleeps. */
        if (b->awake_steps < 0xFFFF) b->awake_steps++;
        bool ok = w->def.sleep_enabled && wants_sleep(w, b);
        if (!ok) mark[i] |= ISLAND_AWAKE;
    }
    if (!w->def.sleep_enabled) return;
    for (int c = 0; c < w->contact_count; c++) {
        const qp_contact *ct = &w->contacts[c];
        const qp_body_state *a = &w->bodies[ct->a], *b = &w->bodies[ct->b];
        if (qp__body_dynamic(a) && qp__body_dynamic(b)) {
            if (!holds(ct)) continue;
            int rb = qp__island_join(w, ct->a, ct->b);
            if (rb) mark[w->bodies[rb].island] |= mark[rb];
        } else {
            int d = qp__body_dynamic(a) ? ct->a : ct->b;
            const qp_body_state *other = &w->bodies[d == ct->a ? ct->b : ct->a];
            /* Resting on a moving kinematic body is not rest: the island stays awake. */
            if (qp__body_dynamic(&w->bodies[d])) mark[d] |= qp__body_drives(other) ? ISLAND_AWAKE : ISLAND_GROUNDED;
        }
    }
    /* Joints join islands like contacts; a joint to a static body grounds it. */
    for (int i = 1; i <= qp__cap_joints(w) && w->joint_count > 0; i++) {
        const qp_joint *j = &w->joints[i - 1];
        if (j->a == 0) continue;
        const qp_body_state *a = &w->bodies[j->a], *b = &w->bodies[j->b];
        if (qp__body_dynamic(a) && qp__body_dynamic(b)) {
            int rb = qp__island_join(w, j->a, j->b);
            if (rb) mark[w->bodies[rb].island] |= mark[rb];
        } else {
            int d = qp__body_dynamic(a) ? j->a : j->b;
            if (qp__body_dynamic(&w->bodies[d])) mark[d] |= ISLAND_GROUNDED;
        }
    }
    /* Marks were set on bodies before their islands merged: gather at roots. */
    for (int i = 1; i <= n; i++) {
        int r = qp__island_find(w, i);
        if (r != i) mark[r] |= mark[i];
    }
    bool slept = false;
    for (int i = 1; i <= n; i++) {
        qp_body_state *b = &w->bodies[i];
        if (!qp__body_moves(b)) continue;
        if (mark[qp__island_find(w, i)] != ISLAND_GROUNDED) continue;
        b->state |= QP_STATE_ASLEEP;
        qp__event_body(w, QP_EVENT_SLEPT, i);
        b->v = b->w = qp_v3_zero();
        qp_rot3 r = qp__body_rot(b);
        qp__body_update_aabbs(w, i, &b->x, &r);
        slept = true;
    }
    /* The contacts of those that slept sleep too, as the next narrow phase would mark them
     * (a step of a world all asleep runs none): found anew when they wake, never kept, their
     * depths no state to hash or save (qp__contact_depths_live). */
    for (int c = 0; slept && c < w->contact_count; c++) {
        qp_contact *ct = &w->contacts[c];
        const qp_body_state *a = &w->bodies[ct->a], *b = &w->bodies[ct->b];
        if (qp__body_held(a) && qp__body_held(b))
            ct->flags |= QP_CONTACT_SLEEPING;
    }
}
