/* SPDX-License-Identifier: MIT */
/* Stage "contacts": the contact pass, inelastic, with friction (docs/design.md §3; seeds 003, 004).
 *
 * After gravity and forces, sweep the manifolds bottom up in contact-graph
 * order. Iteration k of N uses a restitution of -(N-1-k)/N: from just above
 * -1 on the first sweep to 0 on the last, so each contact removes only part
 * of the approach at first and the stack responds gradually (a see-saw with
 * a stack on one end still tips); it slows only the part of an approach
 * beyond what resting contact gathers in a step (ramped, below). Friction
 * follows each manifold's normal impulses (qp__friction: static friction
 * holds, else dynamic friction slides). With accumulate_impulses, totals
 * are clamped (Catto) and may start from last step's (warm_start; a new
 * contact's from its share of the load, contact_graph.c);
 * otherwise every impulse only pushes. An island's sweep that settled (no
 * impulse beyond QP_SETTLED_UNITS, quiet.h) is its last; an island that
 * lingers, still moving after ten sleep windows, gets four times the sweeps.
 */
#include "contact_graph.h"
#include "joint.h"
#include "layout.h"
#include "quiet.h"
#include "scratch.h"
#include "sleep.h"
#include "solver.h"
#include "stages.h"
#include "bench_count.h"

#include <stddef.h>

static void warm_start(qp_world *w)
{
    bool warm = w->def.accumulate_impulses && w->def.warm_start;
    qp_contact_rows scratch;   /* low-RAM: each contact's rows, kept for the next (QP_ROWS_MEMO) */
    qp__rows_memo_start(&scratch);
    for (int i = 0; i < w->contact_count; i++) {
        qp_contact *c = &w->contacts[i];
        if (c->flags & QP_CONTACT_SLEEPING) continue;
        if (!warm) {
            for (int k = 0; k < c->count; k++) c->p[k].jn = 0;
            c->jt1 = c->jt2 = c->jtw = 0;
            qp__keep_masses(w, c, NULL);
            continue;
        }
        int move = qp__movable(w, c);
        QP__COUNT(warm_rows, c->count + 3);
        qp_vec3 drive;
        qp_vel_ref v = qp__vel_ref(w, c, &drive);
        const qp_contact_rows *r = qp__rows_for(w, c, &scratch, QP_ROWS_ALL | QP_ROWS_MEMO, move);
        qp__warm_apply(w, c, r, &v, move);
        qp__keep_masses(w, c, r);   /* low-RAM: for the visits below */
    }
}

/* A point's impulse reached the end of Q16.16 (32767 N s in one step): the
 * contact cannot hold its load, which may sink. Never silently: both bodies
 * are flagged (a 10 t ball under g = 500 needs 83 333 N s a step). */
static void impulse_limit(qp_world *w, const qp_contact *c)
{
    w->bodies[c->a].flags |= QP_FLAG_IMPULSE_LIMIT;
    w->bodies[c->b].flags |= QP_FLAG_IMPULSE_LIMIT;
}

/* Visits that would change at most the last unit of an impulse are skipped. A visit is quiet
 * when it applied no impulse beyond QP_QUIET_UNITS (quiet.h) and none of its points
 * depended on the sweep's push (ramped): each within the resting band, which every sweep
 * takes whole, or separating with nothing accumulated. Its inputs are then the contact's own
 * totals, its rows and its bodies' velocities: while neither body's velocity has been changed
 * since by a visit that was not quiet (another contact's, a joint's, a spin clamp), the next
 * visit would at most trade units again and is skipped, only its sliding flag set as the
 * quiet visit found it. Visits are counted in 31 bits (quiet_at holds count * 2 + sliding),
 * which a pass never runs out of (quiet.h). */
typedef struct {
    uint32_t visit;   /* this visit's number, from 1; 0: skipping is off */
} qp_quiet;

static void quiet_start(qp_world *w, qp_quiet *q)
{
    q->visit = qp__quiet_start(w);
}

static void quiet_next(qp_quiet *q)
{
    if (q->visit != 0) q->visit = q->visit < 0x7FFFFFFF ? q->visit + 1 : 0;
}

/* The joints' sweep may have changed their bodies' velocities. */
static void quiet_joints(qp_world *w, qp_quiet *q)
{
    if (q->visit == 0 || w->joint_count == 0) return;
    qp__quiet_joints(w, q->visit);
    quiet_next(q);
}

/* A contact slides when its last visit's friction had to be cut (qp__friction). */
static void set_sliding(qp_contact *c, bool sliding)
{
    c->flags = (uint8_t)(sliding ? c->flags | QP_CONTACT_SLIDING : c->flags & ~QP_CONTACT_SLIDING);
}

/* A visit that changed a jointed body's velocity: the trees holding its bodies answer it
 * (qp__answer_contact). */
static void answer_joints(qp_world *w, const qp_contact *c, qp_quiet *q)
{
    int move = qp__movable(w, c);
    if (qp__answer_contact(w, move & QP_MOVE_A ? c->a : 0, move & QP_MOVE_B ? c->b : 0, q->visit)) quiet_next(q);
}

static bool quiet_skip(qp_world *w, qp_contact *c, const qp_quiet *q)
{
    const qp_pass_scratch *s = qp__passes(w);
    uint32_t at = s->quiet_at[c - w->contacts] >> 1;
    if (q->visit == 0 || at == 0 || s->moved_at[c->a] >= at || s->moved_at[c->b] >= at) return false;
    QP__COUNT(contact_skipped, 1);
    set_sliding(c, (qp__passes(w)->quiet_at[c - w->contacts] & 1) != 0);
    return true;
}

/* The speed a visit removes at a point whose relative normal speed is vn, over of it
 * beyond rest (beyond_rest, below): up to rest (either way) in full, and the sweep's
 * share push of the rest of it. The
 * ramp is for impacts, whose speed must reach up a stack gradually (seed 003's
 * see-saw); the approach that resting contact gathers in a step is not one, and
 * ramped it only slows convergence: columns of 40 tilted cubes drift
 * 19-51 mm with every approach ramped, 6-40 mm with this (docs/design.md §3).
 * Without gravity rest is 0 and every approach is ramped. */
static inline fix16_t ramped(fix16_t vn, fix16_t push, fix16_t over)
{
    return (vn - over) + qp__mul(push, over);
}

/* The part of vn beyond the resting band [-rest, rest] (rest >= 0): above it > 0, below it
 * < 0, within it 0. The visit reads its sign for steady, too. */
static inline fix16_t beyond_rest(fix16_t vn, fix16_t rest)
{
    return vn > rest ? vn - rest : vn < -rest ? vn + rest : 0;
}

/* The approach of resting contact: one step of gravity, of at most 10 m/s^2.
 * Under stronger gravity the ramp keeps its hold on the rest: loads near the end
 * of Q16.16 need its gradual start, or the sweeps' overshoot reaches the impulse
 * limit (2 x 10 t boxes at g = 200, tests/unit/test_heavy.c). */
static fix16_t resting_speed(const qp_world *w)
{
    fix16_t g = qp_v3_len(w->def.gravity);
    return qp__mul(g < QP_INT(10) ? g : QP_INT(10), w->def.dt);
}

/* One visit; true if it changed an impulse by more than QP_SETTLED_UNITS. */
static QP__VISIT_NOINLINE bool solve_contact(qp_world *w, qp_contact *c, fix16_t push, fix16_t rest, bool reverse,
                                             qp_quiet *q, qp_contact_rows *scratch)
{
    int move = qp__movable(w, c);
    if ((c->flags & QP_CONTACT_SLEEPING) || !move) return false;
    if (quiet_skip(w, c, q)) return false;
    bool acc = w->def.accumulate_impulses;
    uint32_t most = 0;   /* the largest impulse applied, in units */
    bool steady = true;  /* no point's impulse depends on the sweep's push (ramped) */
    QP__COUNT(contact_normal, c->count);
    QP__COUNT(contact_friction, 3);
    qp_vec3 drive;
    qp_vel_ref v = qp__vel_ref(w, c, &drive);
    const qp_contact_rows *r = qp__rows_for(w, c, scratch, QP_ROWS_ALL | QP_ROWS_MASSES_KEPT | QP_ROWS_MEMO, move);
    int64_t jn_sum = 0;
    int64_t lin = 0;      /* qp__rel_dot(&v, c->n) ... */
    bool lin_ok = false;  /* ...while no impulse changed the velocities */
    for (int i = 0; i < c->count; i++) {
        int k = reverse ? c->count - 1 - i : i;
        qp_contact_point *p = &c->p[k];
        if (!lin_ok) lin = qp__rel_dot(&v, c->n);
        fix16_t vn = qp__add_sat(qp__point_speed_from(&v, r, k, lin), qp__point_gap_speed(w, c, r, k));
        /* Separating (or closing less than its gap) with nothing accumulated: the visit would
         * take it to 0 again and apply nothing, most and steady as they are (a far corner's
         * gap, most of a tumbling pile's). */
        if (vn >= 0 && p->jn == 0) {
            lin_ok = true;
            continue;
        }
        const fix16_t over = beyond_rest(vn, rest);
        fix16_t j = -qp__mul(ramped(vn, push, over), r->pt[k].mn);
        if (acc) {
            fix16_t total = qp__add_sat(p->jn, j);
            if (total < 0) total = 0;
            if (total == INT32_MAX) impulse_limit(w, c);
            j = total - p->jn;
            p->jn = total;
            jn_sum += total;
        } else {
            if (j < 0) j = 0;
            p->jn = j;
            jn_sum += j;
        }
        const uint32_t dj = qp__change_of(j, 0);
        most = dj > most ? dj : most;
        /* A larger push (the sweeps after) takes the same from a point within the resting
         * band, and leaves a separating one with nothing at nothing. */
        steady = steady && over >= 0 && (over == 0 || p->jn == 0);
        qp__point_apply_kept(w, c, r, &v, k, j, move);
        lin_ok = j == 0;
    }
    qp_friction f = { c->jt1, c->jt2, c->jtw };
    if (!acc) f.t1 = f.t2 = f.tw = 0;
    qp_friction f0 = f;
    bool sliding = qp__friction(w, c, r, &v, qp__sat32(jn_sum), &f, move, false, true, true);
    set_sliding(c, sliding);
    const uint32_t df[3] = { qp__change_of(f.t1, f0.t1), qp__change_of(f.t2, f0.t2), qp__change_of(f.tw, f0.tw) };
    for (int d = 0; d < 3; d++) most = df[d] > most ? df[d] : most;
    if (acc) {
        c->jt1 = f.t1;
        c->jt2 = f.t2;
        c->jtw = f.tw;
    }
    if (q->visit != 0) {
        bool quiet = most <= QP_QUIET_UNITS && steady;
        qp__passes(w)->quiet_at[c - w->contacts] = quiet ? q->visit << 1 | (uint32_t)sliding : 0;
        if (!quiet) qp__quiet_moved_sides(w, c, move, q->visit);
        quiet_next(q);
    }
    return most > QP_SETTLED_UNITS;
}

/* Islands (bodies joined by contacts between two dynamic bodies, or by joints) settle
 * one by one: an island whose sweep settled is not visited by the sweeps left. Islands
 * share no moving body, so each one's sweeps are those it would have alone in the world,
 * under the same rule (a pile still tumbling kept every resting box on the floor sweeping:
 * rain512 ran 7.9 sweeps a step). Every body a joint holds is in one island: the joints'
 * sweep is one. The islands are found in bodies[].island (sleep.c's union-find, which the
 * sleep stage sets anew), each body pointing at its root; the root's state holds the
 * island's marks for this pass. */
enum { ISLAND_LOOSE = QP_STATE_LOOSE, ISLAND_SETTLED = QP_STATE_SETTLED, ISLAND_BRISK = QP_STATE_BRISK };

/* Islands that linger: an island with a body that has been awake for QP_LINGER_WINDOWS sleep
 * windows and moves slowly (at most QP_LINGER_SPEED and QP_LINGER_SPIN) has not come to rest
 * with the sweeps it had. It gets about QP_LINGER_SWEEPS times as many (an even number more),
 * those past the first ones with the whole push; the settled rule still ends them.
 * Gauss-Seidel on a struck structure's redundant supports leaves slips of a few mm/s that the
 * shock pass keeps from step to step, and the structure creeps instead of resting
 * (docs/limits.md). The joints' island keeps its sweeps. */
#define QP_LINGER_WINDOWS 10
#define QP_LINGER_SWEEPS 4
#define QP_LINGER_SPEED QP_FRAC(1, 10)   /* m/s, each component */
#define QP_LINGER_SPIN QP_FRAC(1, 2)     /* rad/s, each component */

static bool body_lingers(const qp_world *w, const qp_body_state *b)
{
    if ((int64_t)b->awake_steps < (int64_t)QP_LINGER_WINDOWS * w->def.sleep_steps) return false;
    const fix16_t *v = &b->v.x, *a = &b->w.x;
    for (int d = 0; d < 3; d++)
        if (v[d] > QP_LINGER_SPEED || v[d] < -QP_LINGER_SPEED || a[d] > QP_LINGER_SPIN || a[d] < -QP_LINGER_SPIN)
            return false;
    return true;
}

/* Marks the root of every island that does not linger (ISLAND_BRISK); true if one does. An
 * island's root may be asleep (a sleeper joins the island of what touches it): the roots are
 * read through the moving bodies. */
static bool islands_linger(qp_world *w, int joined)
{
    for (int i = 1; i <= w->body_high; i++) {
        const qp_body_state *b = &w->bodies[i];
        if (qp__body_moves(b)) w->bodies[b->island].state |= ISLAND_BRISK;
    }
    for (int i = 1; i <= w->body_high; i++) {
        const qp_body_state *b = &w->bodies[i];
        if (qp__body_moves(b) && body_lingers(w, b))
            w->bodies[b->island].state = (uint16_t)(w->bodies[b->island].state & ~ISLAND_BRISK);
    }
    if (joined) w->bodies[joined].state |= ISLAND_BRISK;
    for (int i = 1; i <= w->body_high; i++) {
        const qp_body_state *b = &w->bodies[i];
        if (qp__body_moves(b) && !(w->bodies[b->island].state & ISLAND_BRISK)) return true;
    }
    return false;
}

/* After the sweeps every island has: those that do not linger are done. */
static void islands_brisk_settle(qp_world *w)
{
    for (int i = 1; i <= w->body_high; i++) {
        qp_body_state *b = &w->bodies[i];
        if (b->island == i && (b->state & ISLAND_BRISK)) b->state |= ISLAND_SETTLED;
    }
}

/* Each body's root in bodies[].island; returns the root of the joints' island (0: no joint). */
static int islands_start(qp_world *w)
{
    for (int i = 1; i <= w->body_high; i++) w->bodies[i].island = (uint16_t)i;
    for (int i = 0; i < w->contact_count; i++) {
        const qp_contact *c = &w->contacts[i];
        if (qp__body_dynamic(&w->bodies[c->a]) && qp__body_dynamic(&w->bodies[c->b])) qp__island_join(w, c->a, c->b);
    }
    int joined = 0;
    for (int o = 0; o < w->joint_count; o++) {
        const qp_joint *j = &w->joints[w->joint_order[o] - 1];
        int ends[2] = { j->a, j->b };
        for (int e = 0; e < 2; e++) {
            if (!qp__body_dynamic(&w->bodies[ends[e]])) continue;
            if (joined == 0) joined = ends[e];
            qp__island_join(w, joined, ends[e]);
        }
    }
    for (int i = 1; i <= w->body_high; i++) w->bodies[i].island = (uint16_t)qp__island_find(w, i);
    return joined ? w->bodies[joined].island : 0;
}

/* The island of contact c (its dynamic side's). */
static inline int island_of(const qp_world *w, const qp_contact *c)
{
    return w->bodies[qp__body_dynamic(&w->bodies[c->a]) ? c->a : c->b].island;
}

/* End of a sweep: an island with no loose visit in it settled. True if any is still loose. */
static bool islands_sweep_end(qp_world *w)
{
    bool any = false;
    for (int i = 1; i <= w->body_high; i++) {
        qp_body_state *b = &w->bodies[i];
        if (b->island != i) continue;
        if (b->state & ISLAND_LOOSE) {
            any = true;
            b->state = (uint16_t)(b->state & ~ISLAND_LOOSE);
        } else {
            b->state |= ISLAND_SETTLED;
        }
    }
    return any;
}

/* The contacts the sweeps visit: awake, with a side that moves, in contact-graph order;
 * returns how many. The default layout lists them with their islands once a pass
 * (passes.sweep, scratch.h) and drops a settled island's after each sweep, since a resting pile's
 * sweeps would walk every contact of the world to visit a few (rain512 at rest: ten sweeps
 * over 951 contacts for 3 230 visits). Low-RAM, which has no room for the list, walks every
 * contact and skips the others (the same visits). */
static int sweep_start(qp_world *w)
{
    qp_sweep_item *sweep = qp__sweep_list(w);
    if (!sweep) return w->contact_count;
    int n = 0;
    for (int o = 0; o < w->contact_count; o++) {
        const qp_contact *c = &w->contacts[w->order[o]];
        if ((c->flags & QP_CONTACT_SLEEPING) || !qp__movable(w, c)) continue;
        sweep[n].contact = w->order[o];
        sweep[n++].group = (uint16_t)island_of(w, c);
    }
    return n;
}

/* The o-th contact of the sweeps and its island. */
static inline qp_contact *sweep_item(qp_world *w, int o, int *island)
{
    const qp_sweep_item *sweep = qp__sweep_list(w);
    if (!sweep) {
        qp_contact *c = &w->contacts[w->order[o]];
        *island = island_of(w, c);
        return c;
    }
    *island = sweep[o].group;
    return &w->contacts[sweep[o].contact];
}

/* After a sweep: the n contacts left without those of the islands that settled. */
static int sweep_drop_settled(qp_world *w, int n)
{
    qp_sweep_item *sweep = qp__sweep_list(w);
    if (!sweep) return n;
    int kept = 0;
    for (int o = 0; o < n; o++)
        if (!(w->bodies[sweep[o].group].state & ISLAND_SETTLED)) sweep[kept++] = sweep[o];
    return kept;
}

static void islands_end(qp_world *w)
{
    for (int i = 0; i <= w->body_high; i++)
        w->bodies[i].state = (uint16_t)(w->bodies[i].state & ~(ISLAND_LOOSE | ISLAND_SETTLED | ISLAND_BRISK));
}

void qp__solve_contacts(qp_world *w)
{
    warm_start(w);
    qp__warm_joints(w);
    int iters = w->def.contact_iterations;
    fix16_t rest = resting_speed(w);
    qp_quiet q;
    quiet_start(w, &q);
    qp_contact_rows scratch;   /* low-RAM: each visit's rows, kept for the next (QP_ROWS_MEMO) */
    qp__rows_memo_start(&scratch);
    int joined = islands_start(w);
    /* A lingering island's extra sweeps come in pairs, so that its last sweep is bottom-up too. */
    int sweeps = islands_linger(w, joined) ? iters + (QP_LINGER_SWEEPS - 1) * iters / 2 * 2 : iters;
    int n = sweep_start(w);
    const int ahead = qp__prefetch_ahead(w);   /* with a sweep list (the default layout) only */
    for (int it = 0; it < sweeps; it++) {
        if (it == iters) {
            islands_brisk_settle(w);
            n = sweep_drop_settled(w, n);
        }
        fix16_t e = w->def.restitution_ramp && it < iters ? qp__div(QP_INT(-(iters - 1 - it)), QP_INT(iters)) : 0;
        fix16_t push = QP_ONE + e;  /* 1 + e: the share of the approach removed */
        /* Alternate bottom-up and top-down sweeps, and the order of the
         * points in each manifold with them (seed 003: one fixed order
         * makes a stack drift slowly one way). Support climbs the stack in
         * one direction, weight comes down in the other; the last sweep is
         * bottom-up (unless an earlier one settled). */
        bool up = ((iters - 1 + it) & 1) == 0 || !w->def.alternate_sweeps;
        QP__COUNT(contact_sweeps, 1);
        /* Joints first: outward from static bodies on upward sweeps. Any impulse of theirs
         * keeps the sweep unsettled: a ragdoll cut short of its sweeps never slept. */
        if (joined && !(w->bodies[joined].state & ISLAND_SETTLED)) {
            if (qp__solve_joints(w, !up)) w->bodies[joined].state |= ISLAND_LOOSE;
            quiet_joints(w, &q);
        }
        for (int o = 0; o < n; o++) {
            int island;
            qp_contact *c = sweep_item(w, up ? o : n - 1 - o, &island);
            if (ahead && o + ahead < n)
                qp__contact_prefetch(w, qp__sweep_list(w)[up ? o + ahead : n - 1 - o - ahead].contact);
            if (w->bodies[island].state & ISLAND_SETTLED) continue;
            if (!solve_contact(w, c, push, rest, !up, &q, &scratch)) continue;
            w->bodies[island].state |= ISLAND_LOOSE;
            if (island == joined) answer_joints(w, c, &q);
        }
        for (int i = 1; i <= w->body_high; i++) {   /* a clamped body's contacts are not quiet, nor its sweep settled */
            qp_body_state *root = &w->bodies[w->bodies[i].island];
            if ((root->state & ISLAND_SETTLED) || !qp__clamp_spin(w, i)) continue;
            root->state |= ISLAND_LOOSE;
            qp__quiet_moved(w, i, q.visit);
        }
        /* Settled: the sweeps left would only trade an island's last units, so this one is
         * its last (its visits set the sliding flags). A last sweep with the whole push after
         * it changed the same few units again (measured: the same stacks, piles, columns). */
        if (!islands_sweep_end(w)) break;
        n = sweep_drop_settled(w, n);
    }
    islands_end(w);
}
