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
 * sinks meanwhile. The points share it so that every body of a structure built
 * at rest turns nowhere: the walk top down sums the weight and moment of what
 * each body carries, and the touching points of all the faces that bear it take
 * that weight at its centre (least-squares weights over all of them), so that a
 * body resting on two separate cubes loads each as its centre says. Where they
 * cannot (a support on an edge or a point, the centre outside them, more points
 * than PLACE_POINTS), or the body moves (its new contacts are impacts, no
 * statics), the body's supports and those of everything under it take equal
 * shares spread evenly over their points: such a share of weight is a guess, and
 * a moment built on it one too. A pyramid wall, with or without gaps between its
 * cubes, placed so then converges in one or two sweeps from its first
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
static void place_loads(qp_world *w, qp_vec3 up);

/* The adjacency, and where other is not null, the other body of each entry (the graph's
 * scratch: the stage's own call only). */
static void build_adjacency(qp_world *w, uint16_t *other)
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
        const int a = w->contacts[c].a, b = w->contacts[c].b;
        const int ka = w->adj_start[a]++, kb = w->adj_start[b]++;
        w->adj[ka] = w->adj[kb] = (uint16_t)c;
        if (other) {
            other[ka] = (uint16_t)b;
            other[kb] = (uint16_t)a;
        }
    }
    for (int i = nb; i > 0; i--) w->adj_start[i] = w->adj_start[i - 1];
    w->adj_start[0] = 0;
}

void qp__build_adjacency(qp_world *w)
{
    build_adjacency(w, NULL);
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
    uint16_t *other = qp__graph_other(w);
    build_adjacency(w, other);
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
                const int v = other[k];   /* the contact is read only for a body not yet reached */
                if (w->bodies[v].level != LEVEL_NONE) continue;
                const qp_contact *c = &w->contacts[w->adj[k]];
                if (!climbs(w, c, u, up) || (pass == 0 && !touches(w, c))) continue;
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
    place_loads(w, up);
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

/* carries, as found for every contact at the start of place_loads (carried, the graph's
 * scratch: the count of touching points, and CARRIED_B when the upper body is b): nothing it
 * reads changes while the loads are placed, and the placing asks it of a contact up to five
 * times, in the order of the graph, not of memory. */
enum { CARRIED_COUNT = 7, CARRIED_B = 8 };
_Static_assert(QP_MAX_MANIFOLD_POINTS <= CARRIED_COUNT, "a contact's touching points fit in CARRIED_COUNT");

static void find_carried(const qp_world *w, uint8_t *carried)
{
    for (int i = 0; i < w->contact_count; i++) {
        const qp_contact *c = &w->contacts[i];
        int upper = 0, t = carries(w, c, &upper);
        carried[i] = (uint8_t)(t == 0 ? 0 : upper == c->b ? t | CARRIED_B : t);
    }
}

static int carried_of(const qp_world *w, const uint8_t *carried, int i, int *upper)
{
    const int t = carried[i] & CARRIED_COUNT;
    if (t != 0) *upper = (carried[i] & CARRIED_B) ? w->contacts[i].b : w->contacts[i].a;
    return t;
}

static int64_t axis_of(qp_vec3 v, int i)
{
    return i == 0 ? v.x : i == 1 ? v.y : v.z;
}

static int64_t abs64(int64_t v)
{
    return v < 0 ? -v : v;
}

/* The most touching points of a body's supports placed together; a body with more shares
 * evenly (the products of the weights below stay within 64 bits). */
#define PLACE_POINTS 16

/* A body's supports and their touching points, for placing: each point's arm from the body's
 * centre of mass in the plane across gravity (two world axes, i1 and i2), and its weight. */
typedef struct {
    int64_t d[PLACE_POINTS][2];
    int64_t wt[PLACE_POINTS];
    int n;
} place_points;

/* Weights of the points (their sum in *sum, under 2^30) whose centroid lies at `at`, the
 * centre of what the body carries; true if that holds exactly, false if the points are no
 * face (under three, or in a line), `at` lies outside them (a weight below 0) or far off
 * (then the nearest weights of at least 0, or even ones). Least squares: 1/n + d_k . C^-1 s
 * for the points' offsets d_k from their centroid, C the sum of d_k d_k^T and s the offset
 * of `at` from the centroid, everything scaled to at most 2^12 (the products stay in 64
 * bits for up to PLACE_POINTS points). */
static bool point_weights(place_points *pts, const int64_t at[2], int64_t *sum)
{
    const int n = pts->n;
    int64_t mean[2] = { 0, 0 };
    for (int k = 0; k < n; k++) {
        mean[0] += pts->d[k][0];
        mean[1] += pts->d[k][1];
    }
    int64_t d[PLACE_POINTS][2], s[2];
    int64_t most = 1;
    for (int j = 0; j < 2; j++) {
        mean[j] /= n;
        s[j] = at[j] - mean[j];
        for (int k = 0; k < n; k++) {
            d[k][j] = pts->d[k][j] - mean[j];
            if (abs64(d[k][j]) > most) most = abs64(d[k][j]);
        }
    }
    int sh = 0;
    while ((most >> sh) > 4096) sh++;
    int64_t c11 = 0, c22 = 0, c12 = 0;
    for (int k = 0; k < n; k++) {
        d[k][0] >>= sh;
        d[k][1] >>= sh;
        c11 += d[k][0] * d[k][0];
        c22 += d[k][1] * d[k][1];
        c12 += d[k][0] * d[k][1];
    }
    bool exact = n >= 3;
    for (int j = 0; j < 2; j++) {
        s[j] >>= sh;
        if (abs64(s[j]) > 8192) {   /* twice the points' reach: far outside them */
            s[j] = s[j] < 0 ? -8192 : 8192;
            exact = false;
        }
    }
    const int64_t det = c11 * c22 - c12 * c12;
    if (det <= 0) exact = false;
    *sum = 0;
    for (int k = 0; k < n; k++) {
        int64_t v = 1;
        if (det > 0) {
            v = det + n * (d[k][0] * (c22 * s[0] - c12 * s[1]) + d[k][1] * (c11 * s[1] - c12 * s[0]));
            if (v < 0) {
                v = 0;
                exact = false;
            }
        }
        pts->wt[k] = v;
        *sum += v;
    }
    if (*sum == 0)
        for (int k = 0; k < n; k++) *sum += pts->wt[k] = 1;
    while (*sum >= (INT64_C(1) << 30)) {
        *sum = 0;
        for (int k = 0; k < n; k++) *sum += pts->wt[k] >>= 1;
    }
    return exact;
}

/* Do the n points span an area (three or more, not in a line)? */
static bool is_face(int64_t (*d)[2], int n)
{
    int j = 1;
    while (j < n && d[j][0] == d[0][0] && d[j][1] == d[0][1]) j++;
    const int64_t ax = j < n ? d[j][0] - d[0][0] : 0, ay = j < n ? d[j][1] - d[0][1] : 0;
    for (int k = j + 1; k < n; k++) {
        const int64_t bx = d[k][0] - d[0][0], by = d[k][1] - d[0][1];
        /* Arms within a body's reach (under 2^26 units): the products fit 64 bits. */
        if (ax * by != ay * bx) return true;
    }
    return false;
}

/* Body u's arm of point k of contact c. */
static qp_vec3 arm_of(const qp_contact *c, int u, int k)
{
    return u == c->a ? c->p[k].ra : qp__arm_b(c, k);
}

static bool touching(const qp_world *w, const qp_contact *c, int k)
{
    return c->p[k].depth >= -w->def.gap_tolerance;
}

/* The impulse of weight `kg` against gravity this step along c's normal, in c's unit (at
 * most 2^31: times a weight under 2^30 it fits 64 bits). */
static int64_t weight_impulse(const qp_world *w, const qp_contact *c, int lower, fix16_t kg)
{
    fix16_t g_n = qp__v3_dot_q30(w->def.gravity, c->n);
    if (lower == c->b) g_n = -g_n;
    return qp__sat32(qp__mul3_wide(kg, -g_n, w->def.dt) * ((int64_t)1 << qp__contact_shift(w, c)));
}

/* Body u's supports are all reached (the walk is top down): what it carries is summed in
 * place[u]. Its supports' touching points, all together, take its weight at the centre of
 * what it carries, and hand each lower body its part (weight and moment); or, where they
 * cannot, each support takes its even share over its points, and every body under u shares
 * evenly too. A new contact starts from its points' parts (see the top). */
static void settle_place(qp_world *w, int u, qp_load_place *place, const uint8_t *carried, qp_vec3 up_axis, int i1,
                         int i2)
{
    qp_load_place *p = &place[u];
    place_points pts;
    pts.n = 0;
    bool fits = true;
    for (int e = w->adj_start[u]; e < w->adj_start[u + 1]; e++) {
        const qp_contact *c = &w->contacts[w->adj[e]];
        int upper, t = carried_of(w, carried, w->adj[e], &upper);
        if (t == 0 || upper != u || !bears(c, u == c->a ? c->b : c->a, up_axis)) continue;
        const int first = pts.n;
        for (int k = 0; k < c->count && fits; k++) {
            if (!touching(w, c, k)) continue;
            if (pts.n == PLACE_POINTS) {
                fits = false;
                break;
            }
            qp_vec3 r = arm_of(c, u, k);
            pts.d[pts.n][0] = axis_of(r, i1);
            pts.d[pts.n][1] = axis_of(r, i2);
            pts.n++;
        }
        /* An edge or a point: the body turns about it freely, and where it rests on one
         * nothing says how much of its weight that support takes. */
        if (fits && !is_face(pts.d + first, pts.n - first)) fits = false;
    }
    p->state |= PLACE_SETTLED;
    int64_t sum = 1;
    if (fits && pts.n >= 3 && !(p->state & PLACE_EVEN)) {   /* none: held at its sides only */
        const int64_t at[2] = { (int64_t)p->at[i1] * 65536 / p->weight, (int64_t)p->at[i2] * 65536 / p->weight };
        if (!point_weights(&pts, at, &sum)) p->state |= PLACE_EVEN;
    } else {
        p->state |= PLACE_EVEN;
    }
    const bool even = (p->state & PLACE_EVEN) != 0;
    const qp_body_state *body = &w->bodies[u];
    int first = 0;   /* the first of this contact's points in pts */
    for (int e = w->adj_start[u]; e < w->adj_start[u + 1]; e++) {
        qp_contact *c = &w->contacts[w->adj[e]];
        int upper, t = carried_of(w, carried, w->adj[e], &upper);
        if (t == 0 || upper != u) continue;
        const int lower = u == c->a ? c->b : c->a;
        if (even) {
            if ((c->flags & QP_CONTACT_NEW) && !(c->flags & QP_CONTACT_SLEEPING)) {
                const int64_t j = weight_impulse(w, c, lower, body->load / body->supports);
                for (int k = 0; k < c->count; k++) c->p[k].jn = touching(w, c, k) ? (fix16_t)(j / t) : 0;
            }
            place[lower].state = PLACE_EVEN;
            continue;
        }
        const bool fresh = (c->flags & QP_CONTACT_NEW) && !(c->flags & QP_CONTACT_SLEEPING);
        if (!bears(c, lower, up_axis)) {   /* at u's side: it carries none of the weight */
            for (int k = 0; k < c->count && fresh; k++) c->p[k].jn = 0;
            continue;
        }
        const int64_t j = weight_impulse(w, c, lower, p->weight);
        const bool hand = qp__body_dynamic(&w->bodies[lower]) && place[lower].state == 0;
        qp_load_place *q = &place[lower];
        int64_t moment[3] = { 0, 0, 0 }, weight = 0;
        int i = first;
        for (int k = 0; k < c->count; k++) {
            if (!touching(w, c, k)) {
                if (fresh) c->p[k].jn = 0;
                continue;
            }
            if (fresh) c->p[k].jn = (fix16_t)(j * pts.wt[i] / sum);
            /* The point's part of u's weight (kg), and its moment about the lower body's centre. */
            const int64_t part = (int64_t)p->weight * pts.wt[i] / sum;
            const qp_vec3 r = arm_of(c, lower, k);
            moment[0] += (part * r.x) >> 16;
            moment[1] += (part * r.y) >> 16;
            moment[2] += (part * r.z) >> 16;
            weight += part;
            i++;
        }
        first = i;
        if (!hand) continue;
        for (int a = 0; a < 3; a++) {
            const int64_t m = (int64_t)q->at[a] + moment[a];
            q->at[a] = qp__sat32(m);
            if (m != q->at[a]) q->state |= PLACE_EVEN;
        }
        weight += q->weight;
        q->weight = qp__sat32(weight);
        if (weight != q->weight) q->state |= PLACE_EVEN;
    }
}

/* Each new contact's start impulse (see the top): walking the contacts top down, a body's
 * supports are placed once all it carries is summed. Kept from the narrow phase's
 * predicted poses to the velocity passes in the step's scratch. */
static void place_loads(qp_world *w, qp_vec3 up)
{
    if (!w->def.accumulate_impulses || !w->def.warm_start) return;
    bool any = false;
    for (int i = 0; i < w->contact_count && !any; i++) any = (w->contacts[i].flags & QP_CONTACT_NEW) != 0;
    if (!any) return;
    /* The plane across gravity: the two world axes it leans least to. */
    int drop = 0;
    for (int i = 1; i < 3; i++)
        if (abs64(axis_of(w->def.gravity, i)) > abs64(axis_of(w->def.gravity, drop))) drop = i;
    const int i1 = drop == 0 ? 1 : 0, i2 = drop == 2 ? 1 : 2;
    qp_load_place *place = qp__places(w);
    for (int i = 0; i <= w->body_high; i++) {
        const qp_body_state *b = &w->bodies[i];
        const bool still = (b->v.x | b->v.y | b->v.z | b->w.x | b->w.y | b->w.z) == 0;
        place[i] = (qp_load_place){ { 0, 0, 0 }, b->mass > 0 ? b->mass : 1, still ? 0 : PLACE_EVEN };
    }
    uint8_t *carried = qp__graph_carried(w);
    find_carried(w, carried);
    for (int o = w->contact_count - 1; o >= 0; o--) {
        int u;
        if (carried_of(w, carried, w->order[o], &u) && !(place[u].state & PLACE_SETTLED))
            settle_place(w, u, place, carried, up, i1, i2);
    }
}
