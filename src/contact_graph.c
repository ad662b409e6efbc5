/* SPDX-License-Identifier: MIT */
/* Stage "graph": the contact graph (docs/design.md §3, §5; seed 003).
 *
 * Nodes are bodies, edges are contacts. Levels come from a breadth-first
 * walk that starts at the static bodies (level 0) and only climbs: an edge is
 * followed from u to v unless v lies clearly below u along gravity; contacts
 * that touch first, then gaps within the margin. Bodies the walk does not
 * reach get the highest level. The walk uses an explicit queue in the world
 * (no recursion); adjacency is a CSR array rebuilt each step. The contacts are
 * then ordered bottom up by the higher level of their two bodies (counting
 * sort, stable on the contact index), which is the order of the contact pass
 * and the grouping of shock propagation.
 *
 * Loads: walking the contacts top down, each body hands its load (its mass
 * plus what rests on it) in equal shares to the contacts that hold it from
 * below. A body's supports are the contacts that bear it: those holding it
 * from below with a normal within 60 degrees of the vertical (or, for a body
 * held only at its sides, those); the shock pass reads them (shock.c).
 *
 * A contact that is new this step starts the contact pass from the impulse its
 * share of weight needs against gravity this step (place_loads): otherwise a
 * 50-box column takes dozens of steps for its weight to reach the ground, and
 * sinks meanwhile. Its points share it so that every body of a structure built
 * at rest turns nowhere: the walk top down sums the moment of what each body
 * carries, and its supports' centres of pressure move off their points'
 * centroids by as much as the weight's centre lies off theirs. Where a support
 * cannot take that (an edge, a point, a centre outside its points), or the body
 * moves (its new contacts are impacts, no statics), the body's supports and those
 * of everything under it share evenly over their points: such a share of weight
 * is a guess, and a moment built on it one too. A
 * pyramid wall placed so then converges in one or two sweeps from its first
 * step, instead of ten for its first 18 steps (docs/notes/2026-11-29-passes.md).
 */
#include "body.h"
#include "contact.h"
#include "contact_graph.h"
#include "scratch.h"
#include "solver.h"
#include "stages.h"

#define LEVEL_NONE 0xFFFFu

static void compute_loads(qp_world *w, qp_vec3 up);
static void place_loads(qp_world *w);

void qp__build_adjacency(qp_world *w)
{
    int nb = w->body_high;
    for (int i = 0; i <= nb + 1; i++) w->adj_start[i] = 0;
    for (int c = 0; c < w->contact_count; c++) {
        w->adj_start[w->contacts[c].a + 1]++;
        w->adj_start[w->contacts[c].b + 1]++;
    }
    for (int i = 1; i <= nb + 1; i++) w->adj_start[i] = (qp__adj_index)(w->adj_start[i] + w->adj_start[i - 1]);
    /* Fill with each body's start as its cursor, which ends at the next body's start; then
     * move the starts back one body. */
    for (int c = 0; c < w->contact_count; c++) {
        w->adj[w->adj_start[w->contacts[c].a]++] = (uint16_t)c;
        w->adj[w->adj_start[w->contacts[c].b]++] = (uint16_t)c;
    }
    for (int i = nb; i > 0; i--) w->adj_start[i] = w->adj_start[i - 1];
    w->adj_start[0] = 0;
}

/* A contact within the margin may still be a gap; only touching ones carry loads
 * and are followed first by the walk. */
static bool touches(const qp_world *w, const qp_contact *c)
{
    for (int k = 0; k < c->count; k++)
        if (c->p[k].depth >= -w->def.gap_tolerance) return true;
    return false;
}

/* Is "to" not clearly below "from"? n points from contact body a to b. */
static bool climbs(const qp_world *w, const qp_contact *c, int from, qp_vec3 up)
{
    fix16_t d = qp_v3_dot_q30(qp_v3_from_q30(c->n), up);  /* n . up, Q16.16 */
    if (from == c->b) d = -d;
    (void)w;
    return d >= -QP_FRAC(1, 2);
}

void qp__contact_graph(qp_world *w)
{
    qp__build_adjacency(w);
    qp_vec3 up;
    if (!qp_v3_normalize_q30(qp_v3_neg(w->def.gravity), &up)) up = qp_v3(0, QP_Q30_ONE, 0);

    int head = 0, tail = 0;
    for (int i = 1; i <= w->body_high; i++) {
        qp_body_state *b = &w->bodies[i];
        if (!(b->state & QP_STATE_USED)) continue;
        if (qp__body_dynamic(b)) {
            b->level = LEVEL_NONE;
        } else {
            b->level = 0;
            w->queue[tail++] = (uint16_t)i;
        }
    }
    /* Two walks: first along the contacts that touch, then, from every body reached, along
     * the rest (gaps within the margin) for the bodies still unreached. A body resting on
     * a thin one lies within the margin of the ground below: in one walk that gap made it
     * a neighbour of the ground, level 1 like its support, so the shock and penetration
     * passes never pinned the light body under the heavy one, and a 2 cm plate of 0.1 kg
     * under a 1 kg cube sank half its thickness into the floor. */
    int top = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) head = 0;
        while (head < tail) {
            int u = w->queue[head++];
            uint16_t next = (uint16_t)(w->bodies[u].level + 1);
            for (int k = w->adj_start[u]; k < w->adj_start[u + 1]; k++) {
                const qp_contact *c = &w->contacts[w->adj[k]];
                int v = c->a == u ? c->b : c->a;
                if (w->bodies[v].level != LEVEL_NONE || !climbs(w, c, u, up) || (pass == 0 && !touches(w, c))) continue;
                w->bodies[v].level = next;
                if (next > top) top = next;
                w->queue[tail++] = (uint16_t)v;
            }
        }
    }
    for (int i = 1; i <= w->body_high; i++)
        if ((w->bodies[i].state & QP_STATE_USED) && w->bodies[i].level == LEVEL_NONE)
            w->bodies[i].level = (uint16_t)(top + 1);
    w->stats.levels = top + 1;

    /* Counting sort of contacts by level (max of the two bodies). */
    int levels = top + 2;
    /* Reuse queue[] as the level histogram: levels <= bodies + 1. */
    for (int l = 0; l <= levels; l++) w->queue[l] = 0;
    for (int c = 0; c < w->contact_count; c++) {
        int la = w->bodies[w->contacts[c].a].level, lb = w->bodies[w->contacts[c].b].level;
        w->queue[(la > lb ? la : lb) + 1]++;
    }
    for (int l = 1; l <= levels; l++) w->queue[l] = (uint16_t)(w->queue[l] + w->queue[l - 1]);
    for (int c = 0; c < w->contact_count; c++) {
        int la = w->bodies[w->contacts[c].a].level, lb = w->bodies[w->contacts[c].b].level;
        w->order[w->queue[la > lb ? la : lb]++] = (uint16_t)c;
    }
    compute_loads(w, up);
    place_loads(w);
}

/* Does contact c bear its upper body: is its normal, from the lower body to the upper,
 * within 60 degrees of up? A contact at the side of a body holds it from below in the
 * contact graph (a column leaning on the next one), but carries none of its weight. */
static bool bears(const qp_contact *c, int lower, qp_vec3 up)
{
    fix16_t d = qp_v3_dot_q30(qp_v3_from_q30(c->n), up);  /* n . up, Q16.16 */
    if (lower == c->b) d = -d;
    return d >= QP_FRAC(1, 2);
}

static void compute_loads(qp_world *w, qp_vec3 up)
{
    /* queue: each body's contacts from below, all of them, which share its load; supports:
     * those that bear it, or all of them where none does. */
    for (int i = 1; i <= w->body_high; i++) {
        w->bodies[i].supports = 0;
        w->bodies[i].load = w->bodies[i].mass;
        w->queue[i] = 0;
    }
    for (int o = 0; o < w->contact_count; o++) {
        const qp_contact *c = &w->contacts[o];
        int lower = qp__contact_lower(w, c);
        if (lower < 0 || !touches(w, c)) continue;
        int u = lower == c->a ? c->b : c->a;
        w->queue[u]++;
        if (bears(c, lower, up)) w->bodies[u].supports++;
    }
    for (int i = 1; i <= w->body_high; i++)
        if (w->bodies[i].supports == 0) w->bodies[i].supports = w->queue[i];
    for (int o = w->contact_count - 1; o >= 0; o--) {
        const qp_contact *c = &w->contacts[w->order[o]];
        int lower = qp__contact_lower(w, c);
        if (lower < 0 || !touches(w, c)) continue;
        int u = lower == c->a ? c->b : c->a;
        qp_body_state *down = &w->bodies[lower];
        if (!qp__body_dynamic(down)) continue;
        down->load = qp_sat32((int64_t)down->load + w->bodies[u].load / w->queue[u]);
    }
}

/* qp_load_place.state: its supports are placed (what it carries is summed); they share
 * its weight evenly over their points (else as turns it nowhere). */
enum { PLACE_SETTLED = 1, PLACE_EVEN = 2 };

/* The touching points of c if it carries its upper body's weight (the new contact's start
 * impulse pushes them apart: gravity presses the upper one on the lower), with the upper
 * body; 0 otherwise. A contact is kept up to the margin, and a gap carries no weight (a
 * dropped box would be thrown by it). */
static int carries(const qp_world *w, const qp_contact *c, int *upper)
{
    int lower = qp__contact_lower(w, c);
    if (lower < 0) return 0;
    int u = lower == c->a ? c->b : c->a;
    if (w->bodies[u].supports == 0) return 0;
    fix16_t g_n = qp__v3_dot_q30(w->def.gravity, c->n);
    if (lower == c->b) g_n = -g_n;
    if (g_n >= 0) return 0;
    int touching = 0;
    for (int k = 0; k < c->count; k++) touching += c->p[k].depth >= -w->def.gap_tolerance;
    *upper = u;
    return touching;
}

static int64_t axis_of(qp_vec3 v, int i)
{
    return i == 0 ? v.x : i == 1 ? v.y : v.z;
}

static int64_t abs64(int64_t v)
{
    return v < 0 ? -v : v;
}

/* Weights of c's touching points (0 elsewhere; their sum in *sum, under 2^30) whose
 * centroid lies off the points' own by shift; true if that holds exactly, false if c is
 * no face (under three points, or in a line) or shift leaves its points (then the nearest
 * weights of at least 0, or even ones). In the plane of the two world axes the normal leans
 * least to: the weights of least squares, 1/n + d_k . C^-1 shift for the points' offsets
 * d_k from their centroid and C the sum of d_k d_k^T, scaled to at most 2^12 (the
 * products below stay in 64 bits). */
static bool point_weights(const qp_world *w, const qp_contact *c, qp_vec3 shift, int64_t wt[QP_MAX_MANIFOLD_POINTS],
                          int64_t *sum)
{
    int drop = 0;
    for (int i = 1; i < 3; i++)
        if (abs64(axis_of(c->n, i)) > abs64(axis_of(c->n, drop))) drop = i;
    const int i1 = drop == 0 ? 1 : 0, i2 = drop == 2 ? 1 : 2;
    int64_t d[QP_MAX_MANIFOLD_POINTS][2], mean[2] = { 0, 0 };
    bool on[QP_MAX_MANIFOLD_POINTS];
    int n = 0;
    for (int k = 0; k < c->count; k++) {
        on[k] = c->p[k].depth >= -w->def.gap_tolerance;
        d[k][0] = axis_of(c->p[k].ra, i1);
        d[k][1] = axis_of(c->p[k].ra, i2);
        if (!on[k]) continue;
        mean[0] += d[k][0];
        mean[1] += d[k][1];
        n++;
    }
    int64_t most = 1;
    for (int k = 0; k < c->count; k++)
        for (int j = 0; j < 2 && on[k]; j++) {
            d[k][j] -= mean[j] / n;
            if (abs64(d[k][j]) > most) most = abs64(d[k][j]);
        }
    int sh = 0;
    while ((most >> sh) > 4096) sh++;
    int64_t c11 = 0, c22 = 0, c12 = 0;
    for (int k = 0; k < c->count; k++) {
        if (!on[k]) continue;
        d[k][0] >>= sh;
        d[k][1] >>= sh;
        c11 += d[k][0] * d[k][0];
        c22 += d[k][1] * d[k][1];
        c12 += d[k][0] * d[k][1];
    }
    int64_t s[2] = { axis_of(shift, i1) >> sh, axis_of(shift, i2) >> sh };
    bool exact = n >= 3;
    for (int j = 0; j < 2; j++)
        if (abs64(s[j]) > 8192) {   /* twice the points' reach: far outside them */
            s[j] = s[j] < 0 ? -8192 : 8192;
            exact = false;
        }
    const int64_t det = c11 * c22 - c12 * c12;
    if (det <= 0) exact = false;
    *sum = 0;
    for (int k = 0; k < c->count; k++) {
        int64_t v = 0;
        if (on[k] && det > 0) {
            v = det + n * (d[k][0] * (c22 * s[0] - c12 * s[1]) + d[k][1] * (c11 * s[1] - c12 * s[0]));
            if (v < 0) {
                v = 0;
                exact = false;
            }
        } else if (on[k]) {
            v = 1;
        }
        wt[k] = v;
        *sum += v;
    }
    if (*sum == 0)
        for (int k = 0; k < c->count; k++) *sum += wt[k] = on[k];
    while (*sum >= (INT64_C(1) << 30)) {
        *sum = 0;
        for (int k = 0; k < c->count; k++) *sum += wt[k] >>= 1;
    }
    return exact;
}

/* Body u's supports are all reached (the walk is top down): the offset of their centres of
 * pressure from what u carries, or the even share where a support cannot take it (then
 * for every body under u too). */
static void settle_place(const qp_world *w, int u, qp_load_place *place)
{
    qp_load_place *p = &place[u];
    int64_t centroids[3] = { 0, 0, 0 };
    int n = 0;
    for (int e = w->adj_start[u]; e < w->adj_start[u + 1]; e++) {
        const qp_contact *c = &w->contacts[w->adj[e]];
        int upper, t = carries(w, c, &upper);
        if (t == 0 || upper != u) continue;
        for (int k = 0; k < c->count; k++) {
            if (c->p[k].depth < -w->def.gap_tolerance) continue;
            qp_vec3 r = u == c->a ? c->p[k].ra : qp__arm_b(c, k);
            centroids[0] += r.x / t;
            centroids[1] += r.y / t;
            centroids[2] += r.z / t;
        }
        n++;
    }
    p->state |= PLACE_SETTLED;
    for (int i = 0; i < 3 && !(p->state & PLACE_EVEN); i++)
        p->at[i] = qp__sat32((int64_t)p->at[i] * 65536 / p->weight - centroids[i] / n);
    const qp_vec3 shift = qp_v3(p->at[0], p->at[1], p->at[2]);
    for (int e = w->adj_start[u]; e < w->adj_start[u + 1] && !(p->state & PLACE_EVEN); e++) {
        const qp_contact *c = &w->contacts[w->adj[e]];
        int upper;
        int64_t wt[QP_MAX_MANIFOLD_POINTS], sum;
        if (carries(w, c, &upper) && upper == u && !point_weights(w, c, shift, wt, &sum)) p->state |= PLACE_EVEN;
    }
    if (!(p->state & PLACE_EVEN)) return;
    p->at[0] = p->at[1] = p->at[2] = 0;
    for (int e = w->adj_start[u]; e < w->adj_start[u + 1]; e++) {
        const qp_contact *c = &w->contacts[w->adj[e]];
        int upper;
        if (carries(w, c, &upper) && upper == u) place[u == c->a ? c->b : c->a].state = PLACE_EVEN;
    }
}

/* Each new contact's start impulse (see the top): walking the contacts top down, a body's
 * supports are placed once all it carries is summed. Kept from the narrow phase's
 * predicted poses to the velocity passes in the step's scratch. */
static void place_loads(qp_world *w)
{
    if (!w->def.accumulate_impulses || !w->def.warm_start) return;
    bool any = false;
    for (int i = 0; i < w->contact_count && !any; i++) any = (w->contacts[i].flags & QP_CONTACT_NEW) != 0;
    if (!any) return;
    qp_load_place *place = qp__places(w);
    for (int i = 0; i <= w->body_high; i++) {
        const qp_body_state *b = &w->bodies[i];
        const bool still = (b->v.x | b->v.y | b->v.z | b->w.x | b->w.y | b->w.z) == 0;
        place[i] = (qp_load_place){ { 0, 0, 0 }, b->mass > 0 ? b->mass : 1, still ? 0 : PLACE_EVEN };
    }
    for (int o = w->contact_count - 1; o >= 0; o--) {
        qp_contact *c = &w->contacts[w->order[o]];
        int u;
        if (carries(w, c, &u) == 0) continue;
        const int lower = u == c->a ? c->b : c->a;
        if (!(place[u].state & PLACE_SETTLED)) settle_place(w, u, place);
        int64_t wt[QP_MAX_MANIFOLD_POINTS], sum;
        point_weights(w, c, qp_v3(place[u].at[0], place[u].at[1], place[u].at[2]), wt, &sum);
        const qp_body_state *up = &w->bodies[u];
        const fix16_t share = up->load / up->supports;
        if ((c->flags & QP_CONTACT_NEW) && !(c->flags & QP_CONTACT_SLEEPING)) {
            fix16_t g_n = qp__v3_dot_q30(w->def.gravity, c->n);
            if (lower == c->b) g_n = -g_n;
            /* In the contact's unit, at most 2^31: times a weight under 2^30 it fits 64 bits. */
            const int64_t j = qp__sat32(qp__mul3_wide(share, -g_n, w->def.dt) * ((int64_t)1 << qp__contact_shift(w, c)));
            for (int k = 0; k < c->count; k++) c->p[k].jn = (fix16_t)(j * wt[k] / sum);
        }
        if (!qp__body_dynamic(&w->bodies[lower]) || place[lower].state != 0) continue;
        /* The share's moment about the lower body's centre of mass, at its centre of pressure. */
        qp_load_place *p = &place[lower];
        for (int i = 0; i < 3; i++) {
            int64_t at = 0;
            for (int k = 0; k < c->count; k++)
                at += axis_of(lower == c->a ? c->p[k].ra : qp__arm_b(c, k), i) * wt[k];
            int64_t m = (int64_t)p->at[i] + (((int64_t)share * (at / sum)) >> 16);
            p->at[i] = qp__sat32(m);
            if (m != p->at[i]) p->state |= PLACE_EVEN;
        }
        int64_t weight = (int64_t)p->weight + share;
        p->weight = qp__sat32(weight);
        if (weight != p->weight) p->state |= PLACE_EVEN;
    }
}
