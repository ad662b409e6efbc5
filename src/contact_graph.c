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
 * below. A contact that is new this step starts the contact pass from the
 * impulse its share of weight needs (solve_contacts.c): otherwise a 50-box
 * column takes dozens of steps for its weight to reach the ground, and sinks
 * meanwhile. A body's supports are the contacts that bear it: those holding it
 * from below with a normal within 60 degrees of the vertical (or, for a body
 * held only at its sides, those); the shock pass reads them (shock.c).
 */
#include "body.h"
#include "contact_graph.h"
#include "stages.h"

#define LEVEL_NONE 0xFFFFu

static void compute_loads(qp_world *w, qp_vec3 up);

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
