/* SPDX-License-Identifier: MIT */
/* Stage "shock": shock propagation (docs/design.md §3; seeds 003, 004; Guendelman et al.).
 *
 * Walk the contact-graph levels from the ground up. At each level, the
 * contacts between a body of this level and a lower one are solved with
 * the lower body immovable (infinite mass), up to shock_iterations sweeps
 * per level, each part of it (below) stopping on its own once it settles or
 * no longer converges (QP_SHOCK_NOISE_UNITS, quiet.h), normal and friction;
 * then the level counts as immovable for the
 * next. Impulses only push in sum (inelastic): the pass removes what approach
 * the iterative passes left, and between levels takes back what they
 * over-pushed. This is what lets a 50-box column stand on 10 iterations and
 * a heavy body rest on a light one. Known flaw
 * (seed 003): an overhanging staircase can stand.
 */
#include "contact_graph.h"
#include "layout.h"
#include "quiet.h"
#include "scratch.h"
#include "sleep.h"
#include "solver.h"
#include "stages.h"
#include "bench_count.h"

/* Joints are not edges of the contact graph and this pass never solves them:
 * a link of a hanging chain is not taken as resting on the link below it,
 * and no joint sees a side pinned. They are solved, both sides movable, in
 * the collision, contact and penetration passes (solve_joints.c). */


/* Low-RAM: the rows of the last four contacts visited, each kept for a visit to the same
 * contact (QP_ROWS_MEMO). A level's sweeps turn round at its ends, so the contacts visited
 * last are the next ones visited first. The pass starts every contact from the contact
 * pass's totals and so builds friction rows at many visits; four sets keep the low-RAM
 * layout within 1.5x of the default's instructions on pyramid20 (make bench, the low-RAM
 * table), where three are just past it. Rows are a pass's scratch there, on the stack: on
 * the micro:bit's Cortex-M0 four sets would make this pass the deepest path, close to the
 * 3 040 bytes tests/scripts/test-stack.sh allows, so it keeps three (a hinge's path is then the
 * deepest). The default layout keeps every contact's rows and uses none of these. */
#if defined(__ARM_ARCH_6M__)
#define SHOCK_ROWS_BUILT 3
#else
#define SHOCK_ROWS_BUILT 4
#endif
#define SHOCK_ROWS_KEPT (QP_LAYOUT_KEEPS_DERIVED ? 1 : SHOCK_ROWS_BUILT)
typedef struct {
    qp_contact_rows rows[SHOCK_ROWS_KEPT];
    int next;   /* the set to fill next: the one filled longest ago */
    int last;   /* the set of the visit before */
} shock_rows;

static void shock_rows_start(shock_rows *s)
{
    for (int i = 0; i < SHOCK_ROWS_KEPT; i++) qp__rows_memo_start(&s->rows[i]);
    s->next = s->last = 0;
}

/* The set holding contact c's rows, or the one to build them in (layout_rows.h). */
static qp_contact_rows *shock_rows_for(shock_rows *s, const qp_contact *c)
{
    return qp__rows_set_for(s->rows, SHOCK_ROWS_KEPT, &s->next, &s->last, c);
}

/* A level's contact names the sides this pass moves (QP_MOVE_A, QP_MOVE_B) and, beside them,
 * whether it pins a side that moves in the other passes: found once for the level's sweeps
 * (level_start), not at every visit. */
#define SHOCK_PINNED 4
_Static_assert((SHOCK_PINNED & QP_MOVE_BOTH) == 0, "the pinned flag is no side");

static inline int shock_sides(const qp_world *w, const qp_contact *c)
{
    int move = qp__shock_movable(w, c);
    return move && move != qp__movable(w, c) ? move | SHOCK_PINNED : move;
}

/* Does contact c touch at three or more points, each within the slop: a face on a face, which
 * turns on its support only by hinging inside the slop? A body touching at an edge or a point
 * turns about it freely, as a rocking body does; pinned for that turn, a pile's cube resting
 * on two edges rocked for ever, the pass adding energy at every landing (seed 18547 of
 * bench_impacts). Read within gap_tolerance (0.5 mm) instead, a cube of a wall tilted a
 * millimetre on its support counted as on an edge, and pyramid24 left standing with sleep off
 * moved 2 cm more. */
static bool on_face(const qp_world *w, const qp_contact *c)
{
    int touching = 0;
    for (int k = 0; k < c->count; k++) touching += c->p[k].depth >= -w->def.slop;
    return touching >= 3;
}

/* Is contact c calm: every point approaching or separating at under QP_SHOCK_CALM_SPEED,
 * and, on a face contact, once its upper body up is awake two sleep windows, approaching at
 * under QP_SHOCK_CALM_APPROACH and up turning with the lower body (within QP_SHOCK_CALM_TURN)?
 * The pass then leaves it as the contact pass left it, when up rests on two or more supports:
 * contacts that bear it, not one at its side (contact_graph.c: a column's cube touching the
 * next column's lower cube at its side rests on one, and a struck tower's leaning column
 * counted as on two rocks for ever, the pass adding 0.1-0.7 J at each close). A body pinned
 * on its supports takes their motion at the contacts (their spin times the lever arm
 * included), and one on two supports took a little more than either gave: a level's rounding
 * grew by about 1.1 a level up a wall, and seed 004's pyramid wall threw its top rows
 * (docs/limits.md). A body on one support keeps the pass's smallest
 * corrections: tilted columns converge through them, sweep after sweep. */
static bool calm(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, const qp_vel_ref *v,
                 const qp_body_state *up)
{
    fix16_t approach = QP_SHOCK_CALM_SPEED;
    if (up->awake_steps > 2 * (int64_t)w->def.sleep_steps && on_face(w, c)) {
        approach = QP_SHOCK_CALM_APPROACH;
        const qp_vec3 wa = w->bodies[c->a].w, wb = w->bodies[c->b].w;
        const int64_t turn[3] = { (int64_t)wb.x - wa.x, (int64_t)wb.y - wa.y, (int64_t)wb.z - wa.z };
        for (int d = 0; d < 3; d++)
            if (turn[d] > QP_SHOCK_CALM_TURN || turn[d] < -QP_SHOCK_CALM_TURN) return false;
    }
    const fix16_t band = QP_SHOCK_CALM_SPEED;
    int64_t lin = qp__rel_dot(v, c->n);
    for (int k = 0; k < c->count; k++) {
        fix16_t vn = qp__add_sat(qp__point_speed_from(v, r, k, lin), qp__point_gap_speed(w, c, r, k));
        if (vn > band || vn < -approach) return false;
    }
    return true;
}

/* What a pinned visit does to its upper body's kinetic energy, found exactly for any shape
 * from the rows the visit has. The energy a set of impulses adds to a body is the impulse
 * times the mean of the body's velocity before and after them, the same whatever their
 * order; per row, the change of its total times the mean of the upper body's speed along it
 * at the visit's start and end (a point's normal, a tangent at the centroid, the spin about
 * the normal for the twist). The lower body is pinned, so the upper one alone moves.
 * Out of line: the pass runs on the micro:bit's 3 KB of stack (compiler.h). */
typedef struct {
    qp_vec3 v, w;                                  /* the upper body's velocities at the start */
    fix16_t jp[QP_MAX_MANIFOLD_POINTS], st[3];     /* the totals at the start */
} visit_start;

static qp_body_state *upper_body(qp_world *w, const qp_contact *c, int move)
{
    return &w->bodies[move & QP_MOVE_A ? c->a : c->b];
}

static void visit_open(qp_world *w, const qp_contact *c, int move, visit_start *s)
{
    const qp_body_state *up = upper_body(w, c, move);
    s->v = up->v;
    s->w = up->w;
    for (int k = 0; k < c->count; k++) s->jp[k] = c->p[k].jp;
    s->st[0] = c->st1, s->st[1] = c->st2, s->st[2] = c->stw;
}

/* The rows' speeds for an upper body moving at lin, ang with the pinned side still (a's
 * negated, as an impulse on a is): points, then the friction rows when friction is built,
 * 0 for the others. */
static void row_speeds(const qp_contact *c, const qp_contact_rows *r, int move, bool friction, qp_vec3 *lin,
                       qp_vec3 *ang, fix16_t speed[QP_MAX_MANIFOLD_POINTS + 3])
{
    qp_vec3 still = { 0, 0, 0 };
    qp_vel_ref v = { &still, &still, &still, &still };
    if (move & QP_MOVE_A) v.va = lin, v.wa = ang;
    else v.vb = lin, v.wb = ang;
    for (int k = 0; k < QP_MAX_MANIFOLD_POINTS; k++) speed[k] = k < c->count ? qp__point_speed(&v, c, r, k) : 0;
    for (int d = 0; d < 3; d++) speed[QP_MAX_MANIFOLD_POINTS + d] = friction ? qp__row_speed(&v, r, d) : 0;
}

static int64_t clamp_bits(int64_t x, int bits)
{
    const int64_t lim = INT64_C(1) << bits;
    return x > lim ? lim : x < -lim ? -lim : x;
}

/* The visit's impulse (every row's change of its total) against the upper body's motion
 * at the start and at the end, in 2^-(32 + shift) J: their mean is the energy the visit
 * added (negative: took away), their difference its impulse's own energy, twice over
 * (never negative). Each change of a total is clamped to 2^29 units (8 192 N s) and each
 * speed to 2^30 (16 384 m/s), so the seven products and the two sums stay below 2^63. */
typedef struct {
    int64_t start, end;
} visit_power;

static QP__NOINLINE visit_power visit_power_of(qp_world *w, const qp_contact *c, const qp_contact_rows *r,
                                               int move, bool friction, const visit_start *s)
{
    qp_body_state *up = upper_body(w, c, move);
    qp_vec3 lin = s->v, ang = s->w;
    fix16_t before[QP_MAX_MANIFOLD_POINTS + 3], after[QP_MAX_MANIFOLD_POINTS + 3];
    row_speeds(c, r, move, friction, &lin, &ang, before);
    row_speeds(c, r, move, friction, &up->v, &up->w, after);
    int64_t change[QP_MAX_MANIFOLD_POINTS + 3] = { 0 };
    for (int k = 0; k < c->count; k++) change[k] = (int64_t)c->p[k].jp - s->jp[k];
    const fix16_t st[3] = { c->st1, c->st2, c->stw };
    for (int d = 0; d < 3; d++) change[QP_MAX_MANIFOLD_POINTS + d] = (int64_t)st[d] - s->st[d];
    visit_power p = { 0, 0 };
    for (int i = 0; i < QP_MAX_MANIFOLD_POINTS + 3; i++) {
        int64_t d = clamp_bits(change[i], 29);
        p.start += d * clamp_bits(before[i], 30);
        p.end += d * clamp_bits(after[i], 30);
    }
    return p;
}

/* The visit undone: the upper body's velocities and the totals as it found them. */
static void visit_undo(qp_world *w, qp_contact *c, int move, const visit_start *s)
{
    qp_body_state *up = upper_body(w, c, move);
    up->v = s->v;
    up->w = s->w;
    for (int k = 0; k < c->count; k++) c->p[k].jp = s->jp[k];
    c->st1 = s->st[0], c->st2 = s->st[1], c->stw = s->st[2];
}

/* The visit's changes of the totals scaled by a (Q16.16, 0 to 1) from where it started:
 * the upper body's velocities and the totals as it found them, then each row's change
 * times a applied again. */
static QP__NOINLINE void visit_scale(qp_world *w, qp_contact *c, const qp_contact_rows *r, const qp_vel_ref *v, int move,
                        const visit_start *s, int64_t a)
{
    fix16_t jp[QP_MAX_MANIFOLD_POINTS];
    const fix16_t st[3] = { c->st1, c->st2, c->stw };
    for (int k = 0; k < c->count; k++) jp[k] = c->p[k].jp;
    visit_undo(w, c, move, s);
    for (int k = 0; k < c->count; k++) {
        fix16_t j = qp__sat32(qp__round_shift(a * ((int64_t)jp[k] - s->jp[k]), 16));
        qp__point_apply(w, c, r, v, k, j, move);
        c->p[k].jp = qp__add_sat(s->jp[k], j);
    }
    fix16_t *to[3] = { &c->st1, &c->st2, &c->stw };
    for (int d = 0; d < 3; d++) {
        fix16_t j = qp__sat32(qp__round_shift(a * ((int64_t)st[d] - s->st[d]), 16));
        qp__row_apply(w, c, r, v, d, j, move);
        *to[d] = qp__add_sat(s->st[d], j);
    }
}

/* The share of a visit (Q16.16) that adds no energy: 1 when the whole adds none, else the
 * one whose energy is zero, 2 |start| / (end - start) when the visit's impulse first takes
 * energy (start < 0), and 0 when it adds from the first unit. The energy of a share a of
 * the impulse is a start + a^2 (end - start) / 2. */
static int64_t visit_share(visit_power p)
{
    if (p.start + p.end <= 0) return 65536;
    if (p.start >= 0) return 0;
    int64_t num = -2 * p.start, den = p.end - p.start;   /* 0 < num < den < 2^63 */
    while (den >= (INT64_C(1) << 46)) num >>= 1, den >>= 1;
    return (num << 16) / den;
}

/* Does body b's centre move along gravity? The kinetic energy a pinned visit hands a body
 * coming down is paid by its height: a leaning column toppling turns as one about its lowest
 * edge, its upper cubes handed the turn of the cubes below them. Bounded there (the visit
 * adding no energy), such a column crept over at about 1 cm/s for 25 s where it fell in 2
 * (a pile's column, seed 40051 of bench_impacts). */
static bool coming_down(const qp_world *w, const qp_body_state *b)
{
    const qp_vec3 g = w->def.gravity;   /* each product under 2^62, a quarter of it under 2^60 */
    return ((int64_t)b->v.x * g.x >> 2) + ((int64_t)b->v.y * g.y >> 2) + ((int64_t)b->v.z * g.z >> 2) > 0;
}

/* One sweep over a contact with the lower body pinned. The pass keeps its
 * own clamped total per point (in jp), so later sweeps can take back what
 * earlier ones over-pushed: a projected Gauss-Seidel solve of each level on
 * its fixed support. Friction first, bounded by the normal totals so far,
 * then the points: the sweep ends with no point approaching. In the other
 * order the friction's turn left a little approach at the loaded edge of
 * every face, the column bent into it step after step, and a column of 20
 * tilted cubes crept up to 5 cm (now 1.8 cm; 40 high: 28 cm, now 9).
 * sides is shock_sides'. Returns the largest change of a total (0: the visit changed nothing). */
static QP__VISIT_NOINLINE uint32_t shock_contact(qp_world *w, qp_contact *c, int sides, bool reverse, fix16_t g_len,
                                                 uint32_t *visit, shock_rows *kept, bool *loud)
{
    int move = sides & QP_MOVE_BOTH;
    if ((c->flags & QP_CONTACT_SLEEPING) || !move) return 0;
    if (qp__quiet_skip(w, c, *visit)) return 0;
    uint32_t most = 0;
    qp_contact_rows *scratch = shock_rows_for(kept, c);
    QP__COUNT(shock_normal, c->count);
    QP__COUNT(shock_friction, 3);
    bool pinned = (sides & SHOCK_PINNED) != 0;
    qp_vec3 drive;
    qp_vel_ref v = qp__vel_ref(w, c, &drive);
    int64_t jn_sum = 0;
    for (int k = 0; k < c->count; k++) jn_sum += c->p[k].jp;
    /* No friction rows are built (low-RAM) for a visit that skips its friction call
     * (below: no load and no totals; the weight only lowers jn_sum), a seventh of
     * pyramid20's. */
    bool friction = jn_sum != 0 || (c->st1 | c->st2 | c->stw) != 0;
    int below = qp__contact_lower(w, c);   /* the lower side, if the contact joins two levels */
    const qp_body_state *up = below >= 0 ? &w->bodies[below == c->a ? c->b : c->a] : NULL;
    /* The calm test reads the points' arms only: low-RAM builds those alone for it (most
     * such visits end here: about 60 % of pyramid20's), the rest when the visit goes on. */
    if (up && up->supports >= 2 &&
        calm(w, c, qp__rows_for(w, c, scratch, QP_ROWS_POINTS | QP_ROWS_LAZY | QP_ROWS_MEMO, move), &v, up)) {
        qp__quiet_mark(w, c, move, false, visit);
        return 0;
    }
    const qp_contact_rows *r =
        qp__rows_for(w, c, scratch, (friction ? QP_ROWS_ALL : QP_ROWS_POINTS) | QP_ROWS_MEMO, move);
    /* Friction, or the pass's normal impulses (tilted by the bodies'
     * small rotations) would push the level sideways unopposed. Its bound
     * is the pass's normal totals so far: a pinned coupling as strong as the
     * contact's whole support drags the upper body with every sway of the
     * lower one and pumps energy up the stack (measured). */
    /* ...and no larger than the weight the contact carries: in an impact the
     * pass's normal impulse is large, and a pinned coupling that strong
     * throws the upper body sideways with every turn of the lower one. */
    if (up && jn_sum > 0) {   /* a weight (>= 0) bounds no jn_sum of 0 */
        /* in the contact's unit (qp__impulse_shift); unsaturated, for a load over 3 277 kg
         * weighs more than Q16.16's 32 768 N: saturated there, the bound held a 10 t box's
         * friction on a 20 degree slope to a third of its pull, and it slid. */
        int64_t weight = qp__mul3_wide(up->load, g_len, w->def.dt) << r->shift;
        if (jn_sum > weight) jn_sum = weight;
    }
    /* A body on one support awake past QP_SHOCK_BOUND_WINDOWS sleep windows, and not coming
     * down, is not settling: a pinned visit may take energy from it, never add any
     * (visit_share). Pinned, a column standing on a rocking cube is handed that cube's turn
     * with no reaction on it, and rocked for ever. Without sleep, a body's time awake says
     * nothing of its settling: every body is past the windows after a few seconds, and bounded
     * so, tilted columns resting with sleep off drifted further (make fidelity: 0.5-0.9 cm in
     * 10 s against 0.3-0.5). */
    const int64_t settling = QP_SHOCK_BOUND_WINDOWS * (int64_t)w->def.sleep_steps;
    bool bound = pinned && w->def.sleep_enabled && up && up->supports < 2 && up->awake_steps > settling &&
                 !coming_down(w, up);
    visit_start found;
    if (bound) visit_open(w, c, move, &found);
    qp_friction f = { c->st1, c->st2, c->stw };
    /* With no load and no totals, qp__friction would take totals of 0 to 0 and apply nothing. */
    if (jn_sum != 0 || (f.t1 | f.t2 | f.tw) != 0)
        qp__friction(w, c, r, &v, qp__sat32(jn_sum), &f, move, pinned, false, false);
    uint32_t df[3] = { qp__change_of(f.t1, c->st1), qp__change_of(f.t2, c->st2), qp__change_of(f.tw, c->stw) };
    for (int d = 0; d < 3; d++) most = df[d] > most ? df[d] : most;
    c->st1 = f.t1;
    c->st2 = f.t2;
    c->stw = f.tw;
    int64_t lin = 0;      /* qp__rel_dot(&v, c->n) while no impulse changed the velocities */
    bool lin_ok = false, noisy = false;
    for (int i = 0; i < c->count; i++) {
        int k = reverse ? c->count - 1 - i : i;
        qp_contact_point *p = &c->p[k];
        if (!lin_ok) lin = qp__rel_dot(&v, c->n);
        fix16_t vn = qp__add_sat(qp__point_speed_from(&v, r, k, lin), qp__point_gap_speed(w, c, r, k));
        if (vn >= 0 && p->jp == 0) {   /* apart, nothing accumulated: it stays at 0 */
            lin_ok = true;
            continue;
        }
        fix16_t m = pinned ? qp__point_mass_pinned(w, c, r, k, move) : r->pt[k].mn;
        QP__NARROW(vn);   /* vn m: one 32 x 32 product (math_inline.h) */
        fix16_t total = qp__add_sat(p->jp, -qp__mul(vn, m));
        if (total < 0) total = 0;
        qp__point_apply(w, c, r, &v, k, total - p->jp, move);
        lin_ok = total == p->jp;
        uint32_t dj = qp__change_of(total, p->jp);
        most = dj > most ? dj : most;
        noisy = noisy || dj > QP_SHOCK_NOISE_UNITS;
        p->jp = total;
    }
    if (bound && most != 0) {
        int64_t share = visit_share(visit_power_of(w, c, r, move, friction, &found));
        if (share == 0) {
            visit_undo(w, c, move, &found);
            most = 0;
            noisy = false;
        } else if (share < 65536) {
            visit_scale(w, c, r, &v, move, &found, share);
        }
    }
    *loud = *loud || noisy;
    qp__quiet_mark(w, c, move, most != 0, visit);
    return most;
}

/* A level's parts: its moving bodies joined by the contacts within it in which both sides
 * move (union-find in bodies[].island, free scratch from the contact pass to the sleep
 * stage). Parts share no moving body, so each one settles on its own, under the level's
 * rule, with the sweeps it would have alone in the world (solve_contacts.c does the same
 * for islands). A resting pile's levels fall into many parts (rain512 at rest: 208 in
 * the first level of 436 contacts), and one part whose friction trades impulses back and
 * forth kept every other part of its level sweeping to the last.
 * Each part's record, on its root in w->queue (free scratch from the contact graph to the
 * sleep stage): the largest change of the sweep it was last visited in and of the one
 * before (change_units), that sweep's number, whether it settled, and two flags (below).
 * A sweep closes the record of the one before at a part's first visit. */
#define CHANGE_UNITS_MAX 15u   /* change_units' largest, and "none yet" before a first sweep */
#define PART_MOST_SHIFT 4
#define PART_SWEEP_SHIFT 8
#define PART_SETTLED (1u << 12)
#define PART_COUNTED (1u << 13)   /* parts_start only */
#define PART_REDUNDANT (1u << 14) /* a body of the part is held by two of the level's contacts */
#define PART_LOUD (1u << 15)      /* the open sweep changed a normal total by more than the noise */
_Static_assert(CHANGE_UNITS_MAX < (1u << PART_MOST_SHIFT), "a part's largest changes fit 4 bits each");
_Static_assert(10 < (1 << (12 - PART_SWEEP_SHIFT)), "a sweep's number (shock_iterations <= 10) fits 4 bits");

static inline int moving_side(const qp_contact *c, int move)
{
    return move & QP_MOVE_A ? c->a : c->b;
}

/* A sweep's largest change as the rule below reads it, in 4 bits: up to the noise bound
 * exactly, above it by its power of two (9: 9-15 units, 10: 16-31, ... 15: 512 and more). */
static uint32_t change_units(uint32_t most)
{
    if (most <= QP_SHOCK_NOISE_UNITS) return most;
    int log2 = 31 - __builtin_clz(most);   /* 3 or more */
    return (uint32_t)(QP_SHOCK_NOISE_UNITS + 1 + (log2 - 3 < 6 ? log2 - 3 : 6));
}

/* Does a part (or a level) settle after sweep number sweep (0: the first), whose largest
 * change was most, the one before's before (both change_units)? When it changed nothing,
 * or once it no longer converges: its largest change not shrinking, either within the
 * noise (the fixed-point sweeps trade the last units of the totals back and forth), or,
 * from the second sweep on, above it (within its power of two, or growing) where quiet
 * is true: a redundant part (a body held by two of the level's contacts) whose normal
 * totals all changed within the noise in that sweep. That is friction on redundant
 * contacts (a cube on two others, each holding its twist): the velocities converge while
 * the totals trade thousands of units between the contacts, sweep after sweep (rain512 at
 * rest: 3 897, 3 449, 2 300, 3 449, ...), and the sweeps left only move the split. A
 * change halving or better goes on, and so does every part with one contact per body (a
 * column's level: its rule is the old one, and a column of tilted cubes needs its sweeps:
 * with the rule there, one of 40 drifted 18 cm). */
static bool settles(uint32_t most, uint32_t before, int sweep, bool quiet)
{
    return most == 0 || (most >= before && (most <= QP_SHOCK_NOISE_UNITS || (quiet && sweep >= 1)));
}

/* A level's contacts are order[start..end), walked by their index o from start. The
 * default layout lists those with a side this pass moves in passes.sweep (scratch.h), each with its
 * sides and, once parts_start found it, its part: the level's setup and its sweeps read
 * each contact's bodies once, not at every walk (a resting pile's sweeps visit a few of
 * them; rain512 at rest: 25 sweeps over 951 contacts for 2 500 visits), and a settled
 * part's contacts are dropped after each sweep. Low-RAM, which has no room for the list,
 * walks the level and finds them again (the same visits). */

/* Lists the level that starts at order[start]; returns its end, and in *n how many of its
 * contacts the walks below take. */
static int level_start(qp_world *w, int start, int *n)
{
    int level = qp__contact_level(w, &w->contacts[w->order[start]]);
    int end = start;
    qp_sweep_item *sweep = qp__sweep_list(w);
    if (!sweep) {
        while (end < w->contact_count && qp__contact_level(w, &w->contacts[w->order[end]]) == level) end++;
        *n = end - start;
        return end;
    }
    int listed = 0;
    for (; end < w->contact_count; end++) {
        const qp_contact *c = &w->contacts[w->order[end]];
        if (qp__contact_level(w, c) != level) break;
        int move = shock_sides(w, c);
        if (!move) continue;
        qp_sweep_item *it = &sweep[listed++];
        it->contact = w->order[end];
        it->move = (uint16_t)move;
        it->group = 1;   /* a whole level's one part, until parts_start */
    }
    *n = listed;
    return end;
}

/* The level's o-th contact and its shock_sides (0: none). */
static inline qp_contact *level_contact(qp_world *w, int start, int o, int *move)
{
    const qp_sweep_item *sweep = qp__sweep_list(w);
    if (!sweep) {
        qp_contact *c = &w->contacts[w->order[start + o]];
        *move = shock_sides(w, c);
        return c;
    }
    *move = sweep[o].move;
    return &w->contacts[sweep[o].contact];
}

/* The bodies of contact c that this pass moves (move), in sides (0 for a side it pins). */
static void moving_sides(const qp_contact *c, int move, int sides[2])
{
    sides[0] = move & QP_MOVE_A ? c->a : 0;
    sides[1] = move & QP_MOVE_B ? c->b : 0;
}

/* The parts of the level's n contacts and their records; returns how many there are, and
 * in *redundant whether the last one counted (the only one, for a level of one part) is
 * redundant. A level of one part (a pyramid's row: its cubes touch side by side) keeps no
 * records, so its count and its flag are found while the parts are joined, and the walks
 * that flag and count the parts are left to levels of more. */
static int parts_start(qp_world *w, int start, int n, bool *redundant)
{
    int sides[2], move;
    qp_sweep_item *sweep = qp__sweep_list(w);
    /* Each moving body its own root, and the level's contacts on it counted (up to 2) in its
     * queue entry while the parts are joined. */
    for (int o = 0; o < n; o++) {
        const qp_contact *c = level_contact(w, start, o, &move);
        moving_sides(c, move, sides);
        for (int s = 0; s < 2; s++) {
            if (!sides[s]) continue;
            w->bodies[sides[s]].island = (uint16_t)sides[s];
            w->queue[sides[s]] = 0;
        }
    }
    int bodies = 0, joins = 0;   /* the parts: one per moving body, less one per join */
    bool held_twice = false;     /* a body held by two of the level's contacts */
    for (int o = 0; o < n; o++) {
        const qp_contact *c = level_contact(w, start, o, &move);
        moving_sides(c, move, sides);
        for (int s = 0; s < 2; s++) {
            if (!sides[s] || w->queue[sides[s]] >= 2) continue;
            bodies += w->queue[sides[s]] == 0;
            held_twice = held_twice || w->queue[sides[s]] == 1;
            w->queue[sides[s]]++;
        }
        if (sides[0] && sides[1]) joins += qp__island_join(w, c->a, c->b) != 0;
    }
    if (bodies - joins <= 1) {
        *redundant = held_twice;
        return bodies - joins;
    }
    /* A body held by two of the level's contacts makes its part redundant (the flag on the
     * root, above the counts' bits). */
    for (int o = 0; o < n; o++) {
        const qp_contact *c = level_contact(w, start, o, &move);
        moving_sides(c, move, sides);
        for (int s = 0; s < 2; s++)
            if (sides[s] && (w->queue[sides[s]] & 3u) >= 2) w->queue[qp__island_find(w, sides[s])] |= PART_REDUNDANT;
    }
    /* Every moving body straight at its root, for the visits; the roots counted once, each
     * record started: sweep 0 open, none changed yet, and as the one before, "none yet". */
    int parts = 0;
    for (int o = 0; o < n; o++) {
        const qp_contact *c = level_contact(w, start, o, &move);
        if (!move) continue;
        int root = qp__island_find(w, moving_side(c, move));
        w->bodies[moving_side(c, move)].island = (uint16_t)root;
        if (sweep) sweep[o].group = (uint16_t)root;
        uint32_t rec = w->queue[root];
        if (rec & PART_COUNTED) continue;
        *redundant = (rec & PART_REDUNDANT) != 0;
        w->queue[root] = (uint16_t)(CHANGE_UNITS_MAX | PART_COUNTED | (rec & PART_REDUNDANT));
        parts++;
    }
    return parts;
}

/* A part, if it takes sweep it: its record opened for this sweep (the sweep before's
 * closed); 0 once settled. */
static int part_open(qp_world *w, int part, int it)
{
    uint32_t rec = w->queue[part];
    if (rec & PART_SETTLED) return 0;
    if ((int)(rec >> PART_SWEEP_SHIFT & 0xFu) != it) {
        uint32_t most = rec >> PART_MOST_SHIFT & 0xFu;
        bool settled = settles(most, rec & 0xFu, (int)(rec >> PART_SWEEP_SHIFT & 0xFu),
                               (rec & PART_REDUNDANT) != 0 && !(rec & PART_LOUD));
        w->queue[part] = (uint16_t)(most | (uint32_t)it << PART_SWEEP_SHIFT | (settled ? PART_SETTLED : 0) |
                                    (rec & PART_REDUNDANT));
        if (settled) return 0;
    }
    return part;
}

static void part_note(qp_world *w, int part, uint32_t most, bool loud)
{
    if (loud) w->queue[part] |= PART_LOUD;
    uint32_t rec = w->queue[part], units = change_units(most);
    if (units > (rec >> PART_MOST_SHIFT & 0xFu))
        w->queue[part] = (uint16_t)((rec & ~(0xFu << PART_MOST_SHIFT)) | units << PART_MOST_SHIFT);
}

/* The level's o-th contact for a sweep, the sides this pass moves, and its part (0 for
 * none; 1 for a whole level). */
static inline qp_contact *level_item(qp_world *w, int start, int o, bool whole, int *move, int *part)
{
    qp_contact *c = level_contact(w, start, o, move);
    const qp_sweep_item *sweep = qp__sweep_list(w);
    if (!sweep) *part = !*move ? 0 : whole ? 1 : w->bodies[moving_side(c, *move)].island;
    else *part = whole ? 1 : sweep[o].group;
    return c;
}

/* After a sweep of a level of parts: the n contacts left without those of the parts that
 * settled. */
static int level_drop_settled(qp_world *w, int n)
{
    qp_sweep_item *sweep = qp__sweep_list(w);
    if (!sweep) return n;
    int kept = 0;
    for (int o = 0; o < n; o++)
        if (!(w->queue[sweep[o].group] & PART_SETTLED)) sweep[kept++] = sweep[o];
    return kept;
}

/* Mark (or unmark) every body a live joint holds, for qp__shock's start. */
static void mark_joined(qp_world *w, bool on)
{
    if (w->joint_count == 0) return;
    for (int i = 0; i < qp__cap_joints(w); i++) {
        const qp_joint *j = &w->joints[i];
        if (j->a == 0) continue;
        uint16_t bit = QP_STATE_JOINED;
        w->bodies[j->a].state = (uint16_t)(on ? w->bodies[j->a].state | bit : w->bodies[j->a].state & ~bit);
        w->bodies[j->b].state = (uint16_t)(on ? w->bodies[j->b].state | bit : w->bodies[j->b].state & ~bit);
    }
}

void qp__shock(qp_world *w)
{
    fix16_t g_len = qp_v3_len(w->def.gravity);
    /* A contact starts from the contact pass's totals, which the sweeps may
     * take back down to zero. Starting from zero, the pass could only push:
     * what the contact pass over-pushed (its iterations leave some, warm
     * starting carries it on, a mass ratio makes it large) stayed as a
     * separating speed, and the level below was lifted step after step: a
     * 1000 kg cube on a 1 kg cube squeezed the light one 6.9 cm sideways in
     * 10 s, and tilted columns swayed until they fell
     * (tests/unit/test_stacking.c). Within a level too: there the totals are
     * what already balances the level, so its sweeps settle sooner, and over
     * 400 piles of cubes fewer stayed awake after 10 s (4 against 11) and
     * fewer tipped (bench/bench_piles). A contact of a
     * body a joint holds starts from zero: the contact pass balanced it
     * against the joint, which this pass does not see (a ragdoll on a box
     * never slept). */
    mark_joined(w, true);
    for (int i = 0; i < w->contact_count; i++) {
        qp_contact *c = &w->contacts[i];
        const qp_body_state *a = &w->bodies[c->a], *b = &w->bodies[c->b];
        bool carry = !((a->state | b->state) & QP_STATE_JOINED);
        for (int k = 0; k < c->count; k++) c->p[k].jp = carry ? c->p[k].jn : 0;
        c->st1 = carry ? c->jt1 : 0;
        c->st2 = carry ? c->jt2 : 0;
        c->stw = carry ? c->jtw : 0;
    }
    mark_joined(w, false);
    uint32_t visit = qp__quiet_start(w);
    shock_rows kept;   /* low-RAM: the last visits' rows, for the visits to come (QP_ROWS_MEMO) */
    shock_rows_start(&kept);
    const int ahead = qp__prefetch_ahead(w);   /* with a sweep list (the default layout) only */
    int start = 0;
    while (start < w->contact_count) {
        int n;
        int end = level_start(w, start, &n);
        QP__COUNT(shock_levels, 1);
        /* One part (a stack's level, a pyramid's row): the level is the part, its rule kept
         * here without records. */
        bool redundant = false;   /* whole: its one part's */
        const bool whole = end - start == 1 || parts_start(w, start, n, &redundant) <= 1;
        uint32_t before = CHANGE_UNITS_MAX;   /* whole: the sweep before's largest change */
        for (int it = 0; it < w->def.shock_iterations; it++) {
            bool loose = false;   /* a part took this sweep */
            uint32_t most = 0;    /* the largest change of the sweep, all parts */
            bool loud = false;    /* whole: a normal total changed by more than the noise */
            for (int o = 0; o < n; o++) {
                /* Alternate directions, as the contact pass does. */
                bool reverse = (it & 1) != 0;
                int move, part;
                qp_contact *c = level_item(w, start, reverse ? n - 1 - o : o, whole, &move, &part);
                if (ahead && o + ahead < n)
                    qp__contact_prefetch(w, qp__sweep_list(w)[reverse ? n - 1 - o - ahead : o + ahead].contact);
                if (part && !whole) part = part_open(w, part, it);
                if (!part) continue;
                loose = true;
                bool m_loud = false;
                uint32_t m = shock_contact(w, c, move, reverse, g_len, &visit, &kept, &m_loud);
                if (!whole) part_note(w, part, m, m_loud);
                loud = loud || m_loud;
                most = m > most ? m : most;
            }
            if (!loose) break;   /* every part settled in the sweep before */
            QP__COUNT(shock_sweeps, 1);
            if (most == 0) break;   /* ...or every part settles now: no need to look again */
            if (whole && settles(change_units(most), before, it, redundant && !loud)) break;
            before = change_units(most);
            if (!whole) n = level_drop_settled(w, n);
        }
        start = end;
    }
    for (int i = 0; i < w->contact_count; i++) {
        qp_contact *c = &w->contacts[i];
        for (int k = 0; k < c->count; k++) c->p[k].jp = 0;
        c->st1 = c->st2 = c->stw = 0;
    }
}
