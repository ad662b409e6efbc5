/* Stage 2: broad phase by sweep and prune on x (docs/design.md §4).
 *
 * sap_order keeps every shape sorted by the low x of its box between steps,
 * so insertion sort is nearly linear on coherent scenes. The sweep emits the
 * pairs whose boxes overlap and of which at least one body moves (no
 * static-static, no sleeping-sleeping pairs). Pairs are then sorted by an
 * integer key (body a, body b, shape slots), so their order never depends on
 * the sweep. A full pool is counted and flagged, never overrun.
 */
#include "world_internal.h"

static bool sap_less(const qp_world *w, uint16_t a, uint16_t b)
{
    fix16_t la = w->shapes[a].aabb.lo.x, lb = w->shapes[b].aabb.lo.x;
    return la < lb || (la == lb && a < b);
}

static uint64_t pair_key(const qp_world *w, const qp_pair *p)
{
    const qp_shape_slot *a = &w->shapes[p->a], *b = &w->shapes[p->b];
    return ((uint64_t)a->body << 48) | ((uint64_t)b->body << 32) | ((uint64_t)a->slot << 8) | b->slot;
}

/* Heap sort: in place, no recursion, O(n log n); keys are unique, so the
 * result does not depend on the starting order. */
static void sift_down(const qp_world *w, qp_pair *p, int root, int n)
{
    for (;;) {
        int child = 2 * root + 1;
        if (child >= n) return;
        if (child + 1 < n && pair_key(w, &p[child]) < pair_key(w, &p[child + 1])) child++;
        if (pair_key(w, &p[root]) >= pair_key(w, &p[child])) return;
        qp_pair t = p[root];
        p[root] = p[child];
        p[child] = t;
        root = child;
    }
}

static void sort_pairs(const qp_world *w, qp_pair *p, int n)
{
    for (int i = n / 2 - 1; i >= 0; i--) sift_down(w, p, i, n);
    for (int end = n - 1; end > 0; end--) {
        qp_pair t = p[0];
        p[0] = p[end];
        p[end] = t;
        sift_down(w, p, 0, end);
    }
}

static bool overlap_yz(const qp_aabb *a, const qp_aabb *b)
{
    return a->lo.y <= b->hi.y && b->lo.y <= a->hi.y && a->lo.z <= b->hi.z && b->lo.z <= a->hi.z;
}

void qp__broad_phase(qp_world *w)
{
    uint16_t *order = w->sap_order;
    for (int i = 1; i < w->sap_count; i++) {
        uint16_t s = order[i];
        int j = i - 1;
        while (j >= 0 && sap_less(w, s, order[j])) {
            order[j + 1] = order[j];
            j--;
        }
        order[j + 1] = s;
    }
    int n = 0;
    for (int i = 0; i < w->sap_count; i++) {
        const qp_shape_slot *a = &w->shapes[order[i]];
        bool a_moves = qp__body_moves(&w->bodies[a->body]);
        for (int j = i + 1; j < w->sap_count; j++) {
            const qp_shape_slot *b = &w->shapes[order[j]];
            if (b->aabb.lo.x > a->aabb.hi.x) break;
            if (a->body == b->body) continue;
            if (!a_moves && !qp__body_moves(&w->bodies[b->body])) continue;
            if (!overlap_yz(&a->aabb, &b->aabb)) continue;
            if (qp__joined(w, a->body, b->body)) continue;   /* joined bodies do not collide */
            if (n == QP_CFG_MAX_PAIRS) {
                w->stats.overflows++;
                w->bodies[a->body].flags |= QP_FLAG_CONTACTS_LOST;
                w->bodies[b->body].flags |= QP_FLAG_CONTACTS_LOST;
                continue;
            }
            bool a_first = a->body < b->body;
            w->pairs[n].a = a_first ? order[i] : order[j];
            w->pairs[n].b = a_first ? order[j] : order[i];
            n++;
        }
    }
    sort_pairs(w, w->pairs, n);
    w->pair_count = n;
    w->stats.pairs = n;
    if (n > w->stats.max_pairs) w->stats.max_pairs = n;
}
