/* SPDX-License-Identifier: MIT */
/* The velocity passes' bounds and their skipping of visits that would change nothing
 * (solve_collisions.c, solve_contacts.c, shock.c): numbers of visits and of bodies'
 * last changes, kept in the passes' scratch. */
#ifndef QPHYS_QUIET_H
#define QPHYS_QUIET_H

#include "qphys/world.h"
#include "contact.h"
#include "scratch.h"

/* A sweep of the contact pass settles when it changed no impulse by more than this many
 * units (2^-16 N s; a light pair's unit, qp__impulse_shift, is finer): converged fixed-point
 * sweeps go on trading the last units of their totals back and forth (pyramid20: from the
 * third sweep on, 88 % of the rows change nothing and the rest 1-4 units, every sweep).
 * The pass ends with that sweep (solve_contacts.c). 3 by measurement: 96 tilted columns of
 * 20 sleep as soon as with no such end (90 % by step 97); at 4, only by step 114. */
#define QP_SETTLED_UNITS 3

/* The contact pass skips a visit that would at most trade the last unit of an impulse: one
 * that applied no impulse beyond this many units is passed over by the sweeps after it
 * while neither of its bodies is moved by a visit that applied more. Its neighbours' unit
 * changes are not worth another visit (a resting pile's sweeps are nine tenths of such
 * visits: rain512 visited its 720 resting contacts in each of its ten sweeps a step), and
 * warm starting carries what it left to the next step. 1 by measurement: at 3, one of 16
 * tilted columns of 20 sleeps 90 steps later; at 1 and 2 they sleep as without the skip. */
#define QP_QUIET_UNITS 1

/* The shock pass ends a part's sweeps (shock.c) once they no longer converge: a sweep whose largest
 * change of a total is this many units or less (2^-16 N s, finer for light pairs) and no
 * smaller than the sweep before's. pyramid20's levels reach that after 2-3 of their 7 sweeps
 * and then trade 2-16 units for ever; tilted columns converge sweep after sweep until they
 * rest (docs/benchmarks.md). */
#define QP_SHOCK_NOISE_UNITS 8

/* The shock pass leaves alone a contact of a body on two or more supports (contacts that bear
 * it, contact_graph.c) when every point of it approaches or separates at under this speed
 * (2^-16 m/s; 64: about 1 mm/s, 17 um a step at 60 Hz, far inside the slop): at rest that is
 * rounding, which the pass otherwise hands up the levels, growing (shock.c, calm). By
 * measurement: seed 004's wall of 8 256 cubes stands within 9 mm and sleeps by step 90
 * (without it, its top rose 8 cm in 10 steps and fell); pyramid20's top ends 1.9 mm from its
 * place at step 300 (0.3 mm without). */
#define QP_SHOCK_CALM_SPEED 64

/* ...and, for a body awake longer than two sleep windows (2 sleep_steps) on a contact touching
 * at three or more points within the slop (a face), only while it turns relative to the lower
 * body at under this rate about every axis (2^-16 rad/s; 64: about 1 mrad/s, 0.5 mm/s at a
 * point half a metre out). A body that turns on its supports while its points approach and
 * separate within the band above hinges on them inside the slop, and one still awake after
 * two windows is not at rest (a resting one sleeps after one: pyramid20 and seed 004's wall
 * at step 61, before this applies). Left to the contact pass, whose ten sweeps leave a tall
 * stack soft, the rows of a pyramid wall one cube deep, each turning 0.1-1.5 mrad/s against
 * the row below, swayed front to back as one for ever (seed 12532 of bench_impacts, 16 rows:
 * its top cube at up to 5.5 cm/s after 30 s, about 6.7 s a swing). Applied from the first
 * step, pyramid20 changed from step 1, seed 004's wall was all awake at step 120, and at 32,
 * 48 or 128 a 4 x 4 x 12 tower left standing came apart (a cube 1.4 to 11 m off); from one
 * window on, that tower crept 10 cm (tests/unit/test_impacts.c allows 8;
 * docs/notes/2026-11-29-impacts.md). On an edge or a point a body
 * turns freely (it rocks), and the test pinned a pile's rocking cube for ever (seed 18547). */
#define QP_SHOCK_CALM_TURN 64

/* ...and, on such a face, only while none of its points approaches at this speed or more
 * (2^-16 m/s; 8: about 0.12 mm/s). A face's points may sink into the slop unopposed, 2 mm
 * before the penetration pass pushes back: a tall wall one cube deep whose rows each turned
 * 0.1-0.4 mrad/s against the row below, under the turn test's band, sank its rows' leading
 * edges into the slop at about 0.3 mm/s and leaned over as a beam bending, its top creeping at
 * 4-6 cm/s for seconds (seed 18652 of bench_impacts, 19 rows: asleep at step 2 196, 646 now).
 * Pyramid walls left standing with sleep off, where this applies to every body after two
 * windows, creep less (pyramid20's largest move in 10 s 9.5 cm, 15.6 without; pyramid24,
 * 32, 40: 6.0, 2.6, 3.3 cm, 24.6, 34.1, 11.0). At 4 a struck pile's column was pinned into
 * bursts of sliding (test_impacts' seed 7 awake past 20 s); at 16, 18668 slept at step 2 392
 * (764 at 8). */
#define QP_SHOCK_CALM_APPROACH 8

/* The shock pass adds no energy to the upper body of a pinned visit (shock.c: a visit that
 * would is scaled back to the share that adds none) once that body, on one support and not
 * coming down, is awake longer than this many sleep windows: it is not settling then but fed,
 * as a column standing on a rocking cube is handed the cube's turn with no reaction. Settling
 * needs what the pinned passes hand up: from two windows on, tilted columns of 40 cubes
 * (tests/unit/test_stacking.c) leaned up to 16 cm and 7 of 8 were awake at step 300; at 4,
 * 4 tops of 8 ended within 5 cm (the test asks 5); at 6 every column of test_stacking
 * settles as without the bound. */
#define QP_SHOCK_BOUND_WINDOWS 6

/* Skipping visits that would change nothing (the collision and shock passes; the contact
 * pass keeps a sliding bit with its marks, and takes a visit of at most QP_QUIET_UNITS as
 * quiet: solve_contacts.c). A visit that applied nothing
 * is a function of its rows, which a pass does not change, and of its bodies' velocities:
 * while neither body's velocity has changed since, the next visit would apply nothing
 * again and is skipped, with the same bits. Visits are numbered from 1 in 32 bits
 * (w->passes: moved_at, the visit at which a body's velocity last changed, and quiet_at,
 * the visit at which a contact last applied nothing), which a pass never runs out of (at
 * most 65 535 contacts x 100 sweeps, and the joints' sweeps): a count that ran out would
 * turn skipping off for the rest of the pass, and what a group does would depend on how
 * many visits groups far from it made. Past 0xFFFFFFFF the number is 0 and every visit is
 * made. */
static inline uint32_t qp__quiet_start(qp_world *w)
{
    for (int i = 0; i <= w->body_high; i++) qp__passes(w)->moved_at[i] = 0;
    for (int i = 0; i < w->contact_count; i++) qp__passes(w)->quiet_at[i] = 0;
    return 1;
}

static inline bool qp__quiet_skip(const qp_world *w, const qp_contact *c, uint32_t visit)
{
    uint32_t at = qp__passes(w)->quiet_at[c - w->contacts];
    return visit != 0 && at != 0 && qp__passes(w)->moved_at[c->a] < at && qp__passes(w)->moved_at[c->b] < at;
}

/* After visit number *visit to contact c, which changed the velocities of its sides in move
 * or not. Only those are marked: a static body, or one the shock pass pins, keeps its
 * velocity. Marked too, the ground "moved" at every visit to any of its contacts that
 * changed something, and a heap's jitter anywhere kept every other contact on the ground
 * from being skipped: what a group does depended on what happened where it never touched. */
static inline void qp__quiet_moved_sides(qp_world *w, const qp_contact *c, int move, uint32_t visit)
{
    if (move & QP_MOVE_A) qp__passes(w)->moved_at[c->a] = visit;
    if (move & QP_MOVE_B) qp__passes(w)->moved_at[c->b] = visit;
}
static inline void qp__quiet_mark(qp_world *w, const qp_contact *c, int move, bool changed, uint32_t *visit)
{
    if (*visit == 0) return;
    qp__passes(w)->quiet_at[c - w->contacts] = changed ? 0 : *visit;
    if (changed) qp__quiet_moved_sides(w, c, move, *visit);
    *visit = *visit < UINT32_MAX ? *visit + 1 : 0;
}

/* Body i's velocity changed outside a visit (a joint, a clamp), before visit number visit. */
static inline void qp__quiet_moved(qp_world *w, int i, uint32_t visit)
{
    if (visit != 0) qp__passes(w)->moved_at[i] = visit;
}

/* Every body a joint holds: the joints' sweep may have changed their velocities. */
static inline void qp__quiet_joints(qp_world *w, uint32_t visit)
{
    for (int o = 0; o < w->joint_count; o++) {
        const qp_joint *j = &w->joints[w->joint_order[o] - 1];
        qp__quiet_moved(w, j->a, visit);
        qp__quiet_moved(w, j->b, visit);
    }
}

#endif
