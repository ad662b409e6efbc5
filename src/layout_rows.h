/* SPDX-License-Identifier: MIT */
/* The solver rows of a contact in the two memory layouts (include/qphys/config.h,
 * QP_CFG_LOW_RAM), as the velocity passes ask for them: the default layout keeps every
 * awake contact's rows for the step (qp_world.rows), low-RAM keeps none and builds those a
 * visit needs (solver.c). What differs between them is here, as layout.h holds what differs
 * for the bodies and the predicted poses. Included by solver.h, after the kernels it uses. */
#ifndef QPHYS_LAYOUT_ROWS_H
#define QPHYS_LAYOUT_ROWS_H

#include "solver.h"

/* The solver rows of contact c: the world's copy or (QP_CFG_LOW_RAM)
 * computed into *scratch. Valid from qp__prepare_contacts to the end of the
 * penetration pass. */
#if QP_CFG_LOW_RAM
const qp_contact_rows *qp__rows(qp_world *w, const qp_contact *c, qp_contact_rows *scratch);
#else   /* the world's copy: inline, for the passes ask it at every visit */
static inline const qp_contact_rows *qp__rows(qp_world *w, const qp_contact *c, qp_contact_rows *scratch)
{
    (void)scratch;
    return &w->rows[c - w->contacts];
}
#endif
/* The sweeps of the collision, contact, shock and penetration passes visit contacts in
 * contact-graph order, which jumps through the pool in steps a hardware prefetcher does not
 * follow. Where the contacts and their rows outgrow a core's cache (the 8 256-cube wall's are
 * 17 MB, read from the last level at every sweep), the first read of a visit's rows would wait
 * on memory: a sweep asks for the contact QP__PREFETCH_AHEAD visits on (qp__contact_prefetch),
 * docs/benchmarks.md "Scaling". Fewer contacts than
 * QP__PREFETCH_CONTACTS (1.4 MB of them and their rows) stay in a core's cache, and the hints
 * would only add instructions. qp__prefetch_ahead: how far ahead a pass asks, 0 for not at all
 * (low-RAM keeps no rows; a Cortex-M has no data cache). */
#define QP__PREFETCH_AHEAD 6
#define QP__PREFETCH_CONTACTS 2048
static QP__ALWAYS_INLINE int qp__prefetch_ahead(const qp_world *w)
{
    return QP__PREFETCH_ON && QP_LAYOUT_KEEPS_DERIVED && w->contact_count >= QP__PREFETCH_CONTACTS ? QP__PREFETCH_AHEAD
                                                                                                   : 0;
}

/* Contact i's record asked of the cache, every line of it (a walk that reads no rows)... */
static QP__ALWAYS_INLINE void qp__contact_record_prefetch(const qp_world *w, int i)
{
    const char *c = (const char *)&w->contacts[i];
    for (unsigned k = 0; k < sizeof(qp_contact); k += 64) QP__PREFETCH(c + k);
    QP__PREFETCH(c + sizeof(qp_contact) - 1);
}

/* ...and with its rows, every line of them (a visit). */
static QP__ALWAYS_INLINE void qp__contact_prefetch(const qp_world *w, int i)
{
#if QP_LAYOUT_KEEPS_DERIVED
    const char *r = (const char *)&w->rows[i];
    qp__contact_record_prefetch(w, i);
    for (unsigned k = 0; k < sizeof(qp_contact_rows); k += 64) QP__PREFETCH(r + k);
    QP__PREFETCH(r + sizeof(qp_contact_rows) - 1);
#else
    (void)w, (void)i;
#endif
}

/* The same, for a visit that reads only the rows in need, with the sides in move
 * (low-RAM builds only those: the angular responses of the other sides are zero, and
 * the effective masses mn, mt are for the sides in move; a pass that pins a side reads
 * them through qp__point_mass_pinned / qp__row_mass_pinned, as the default layout keeps
 * those apart). restitution is built only with QP_ROWS_RESTITUTION. The default layout
 * returns every row, as qp__rows. */
enum {
    QP_ROWS_TANGENTS = 1u << QP_MAX_MANIFOLD_POINTS,      /* t1, t2 rows, both frictions */
    QP_ROWS_TWIST = 2u << QP_MAX_MANIFOLD_POINTS,         /* the tangents and the twist row */
    QP_ROWS_ALL = (4u << QP_MAX_MANIFOLD_POINTS) - 1u,
    /* Low-RAM, the contact pass: the masses for qp__movable's sides are read from where
     * qp__keep_masses put them at the warm start, not built, and no angular response
     * (ia, ib, ia_f, ib_f) is built: apply through qp__point_apply_kept and
     * qp__friction(..., lazy). */
    QP_ROWS_MASSES_KEPT = 4u << QP_MAX_MANIFOLD_POINTS,
    /* Low-RAM: the scratch is the pass's, started by qp__rows_memo_start and holding the
     * rows of its visit before: the tangents and static friction coefficient are taken
     * from them when the normal and the materials are the same, and all of them when
     * that visit was the same contact's, with the same rows in need and sides. */
    QP_ROWS_MEMO = 8u << QP_MAX_MANIFOLD_POINTS,
    /* The pair's restitution too (the collision pass's bounce). */
    QP_ROWS_RESTITUTION = 16u << QP_MAX_MANIFOLD_POINTS,
    /* Low-RAM, the collision pass: neither the angular responses nor the masses are built
     * (nearly all of its points apply nothing): find a point's mass with
     * qp__point_mass_lazy and apply through qp__point_apply_kept. */
    QP_ROWS_LAZY = 32u << QP_MAX_MANIFOLD_POINTS,
    /* Low-RAM, inside qp__rows_for: the scratch already holds the points' arms crossed with
     * the normal (rna, rnb) of this contact, from a lazy build for the same sides (the
     * shock pass's calm test): a fuller build keeps them. */
    QP_ROWS_ARMS_HELD = 64u << QP_MAX_MANIFOLD_POINTS,
    QP_ROWS_POINTS = (1u << QP_MAX_MANIFOLD_POINTS) - 1u   /* every point's normal row */
};
static inline void qp__rows_memo_start(qp_contact_rows *scratch)
{
#if QP_CFG_LOW_RAM
    scratch->tangents_of = scratch->rows_of = 0;
#else
    (void)scratch;
#endif
}
#define QP_ROWS_POINT(k) (1u << (k))                      /* point k's normal row */
/* The contact whose tangents and static friction coefficient rows r hold, for a visit to
 * take them from (QP_ROWS_MEMO): low-RAM's scratch rows; NULL in the default layout, whose
 * rows are each their own contact's. */
static inline const qp_contact *qp__rows_tangents_of(const qp_contact_rows *r)
{
#if QP_CFG_LOW_RAM
    return r->tangents_of;
#else
    (void)r;
    return NULL;
#endif
}

static inline void qp__rows_tangents_are(qp_contact_rows *r, const qp_contact *c)
{
#if QP_CFG_LOW_RAM
    r->tangents_of = c;
#else
    (void)r, (void)c;
#endif
}
/* Of the n sets of rows a pass keeps for its visits (each started by qp__rows_memo_start),
 * the one holding contact c's rows, or else the one to build them in: *next, filled
 * longest ago, given the tangents of the visit before's, *last (the contacts of one face
 * follow each other, with the same normal). Low-RAM keeps the rows of the last n visits
 * so; the default layout keeps every contact's rows and uses the first set only. */
static inline qp_contact_rows *qp__rows_set_for(qp_contact_rows *sets, int n, int *next, int *last,
                                                const qp_contact *c)
{
#if QP_CFG_LOW_RAM
    for (int i = 0; i < n; i++)
        if (sets[i].rows_of == c) return &sets[(*last = i)];
    qp_contact_rows *r = &sets[*next], *before = &sets[*last];
    r->tangents_of = before->tangents_of;
    r->t1 = before->t1;
    r->t2 = before->t2;
    r->static_friction = before->static_friction;
    *last = *next;
    *next = *next + 1 < n ? *next + 1 : 0;
    return r;
#else
    (void)n, (void)next, (void)last, (void)c;
    return &sets[0];
#endif
}
#if QP_CFG_LOW_RAM
const qp_contact_rows *qp__rows_for(qp_world *w, const qp_contact *c, qp_contact_rows *scratch, unsigned need,
                                    int move);
#else
static inline const qp_contact_rows *qp__rows_for(qp_world *w, const qp_contact *c, qp_contact_rows *scratch,
                                                  unsigned need, int move)
{
    (void)need, (void)move;
    return qp__rows(w, c, scratch);
}
#endif
/* Low-RAM: keep the effective masses of rows r (built for qp__movable's sides) in
 * contact c's shock and split-impulse scratch (jp, st1..stw: seven numbers, which nothing
 * reads from the warm start to the shock pass's start, which sets them), for the contact
 * pass's visits (QP_ROWS_MASSES_KEPT). r NULL: build them. The default layout keeps rows. */
void qp__keep_masses(qp_world *w, qp_contact *c, const qp_contact_rows *r);

/* qp__point_mass for the shock pass's sides (move = qp__shock_movable), kept with
 * the rows (computed once per step), or (QP_CFG_LOW_RAM) built with the visit's rows
 * for its sides in move (fill_part, while their responses are at hand). */
fix16_t qp__point_mass_pinned(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, int k, int move);
fix16_t qp__row_mass_pinned(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, int d, int move);

/* qp__point_apply for rows built with QP_ROWS_MASSES_KEPT or QP_ROWS_LAZY: low-RAM finds the angular
 * responses, which those rows lack, when j is not zero (out of line); the default layout's
 * rows have them (inline, as qp__point_apply). */
#if QP_CFG_LOW_RAM
void qp__point_apply_kept(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, const qp_vel_ref *v, int k,
                          fix16_t j, int move);
#else
static inline void qp__point_apply_kept(const qp_world *w, const qp_contact *c, const qp_contact_rows *r,
                                        const qp_vel_ref *v, int k, fix16_t j, int move)
{
    qp__point_apply(w, c, r, v, k, j, move);
}
#endif

/* Point k's effective mass for the sides in move, for rows built with QP_ROWS_LAZY:
 * low-RAM finds it (out of line) from the responses fill_part would have built; the
 * default layout's rows hold it. */
#if QP_CFG_LOW_RAM
fix16_t qp__point_mass_lazy(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, int k, int move);
#else
static inline fix16_t qp__point_mass_lazy(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, int k,
                                          int move)
{
    (void)w, (void)c, (void)move;
    return r->pt[k].mn;
}
#endif

/* The same for point k of a contact whose rows are r: depths do not change within a
 * step, so the default layout keeps it with the rows (a division saved per point and
 * sweep); low-RAM computes it. */
static inline fix16_t qp__point_gap_speed(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, int k)
{
#if !QP_CFG_LOW_RAM
    (void)w, (void)c;
    return r->pt[k].gap;
#else
    (void)r;
    return qp__gap_speed(w, &c->p[k]);
#endif
}

/* The same for contact c whose rows are r: the rows' copy, or (low-RAM) found here. */
static inline void qp__rows_anchor_drift(const qp_world *w, const qp_contact *c, const qp_contact_rows *r,
                                         fix16_t drift[2], fix16_t target[2])
{
#if !QP_CFG_LOW_RAM
    (void)w, (void)c;
    drift[0] = r->anchor_drift[0], drift[1] = r->anchor_drift[1];
    target[0] = r->anchor_target[0], target[1] = r->anchor_target[1];
#else
    qp__anchor_drift(w, c, r->t1, r->t2, drift, target);
#endif
}

#endif
