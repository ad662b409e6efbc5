/* SPDX-License-Identifier: MIT */
/* Stages "broad" and "bounds": broad phase by sweep and prune on x (docs/design.md §3, §4).
 *
 * sap_order keeps every shape sorted by the low x of its box between steps,
 * so insertion sort is nearly linear on coherent scenes. The sweep emits the
 * pairs whose boxes overlap and of which at least one body moves (no
 * static-static, no sleeping-sleeping pairs; a moving kinematic body pairs with
 * the dynamic bodies it may carry, never with static or kinematic ones). Pairs are then sorted by an
 * integer key (body a, body b, shape slots), so their order never depends on
 * the sweep. Shape filters (world.h, qp_shape_filter) drop a pair before it is made.
 * A full pool is counted and flagged, never overrun.
 */
#include "body.h"
#include "contact.h"
#include "joint.h"
#include "stages.h"

static bool sap_less(const qp_world *w, uint16_t a, uint16_t b)
{
    fix16_t la = w->shapes[a].aabb.lo.x, lb = w->shapes[b].aabb.lo.x;
    return la < lb || (la == lb && a < b);
}

/* The sort key of a pair: (body a, body b, slot a, slot b), or where the shapes in use
 * lie in the order of their bodies, one to a body (by_index: bodies of one shape, made
 * in order, as in every benchmark scene), the two shape indices, which then sort the
 * pairs the same way without looking the shapes up. */
static uint64_t pair_key(const qp_world *w, const qp_pair *p, bool by_index)
{
    return by_index ? ((uint64_t)p->a << 16) | p->b : qp__pair_key(w, p);
}

/* x < y for keys made by pair_key: by index they fit 32 bits, and a 32-bit compare is
 * one instruction on a Cortex-M where a 64-bit one is two, and frees a register. */
static QP__ALWAYS_INLINE bool key_less(uint64_t x, uint64_t y, bool by_index)
{
    return by_index ? (uint32_t)x < (uint32_t)y : x < y;
}

static bool shapes_in_body_order(const qp_world *w)
{
    int last = -1;
    for (int i = 1; i <= w->body_high; i++) {
        const qp_body_state *b = &w->bodies[i];
        if (!(b->state & QP_STATE_USED) || b->shape_count == 0) continue;
        if (b->shape_count > 1 || b->shapes[0] <= last) return false;
        last = b->shapes[0];
    }
    return true;
}

/* Heap sort: in place, no recursion, O(n log n); keys are unique, so the
 * result does not depend on the starting order. The pair that sinks keeps its
 * key (made once, not at every level) and is written once, where it stops. */
static QP__ALWAYS_INLINE void sift_down(const qp_world *w, qp_pair *p, int root, int n, bool by_index)
{
    const qp_pair t = p[root];
    const uint64_t kt = pair_key(w, &t, by_index);
    for (;;) {
        int child = 2 * root + 1;
        if (child >= n) break;
        uint64_t kc = pair_key(w, &p[child], by_index);
        if (child + 1 < n) {
            uint64_t k1 = pair_key(w, &p[child + 1], by_index);
            if (key_less(kc, k1, by_index)) {
                child++;
                kc = k1;
            }
        }
        if (!key_less(kt, kc, by_index)) break;
        p[root] = p[child];
        root = child;
    }
    p[root] = t;
}

/* The sort-down's sift (Floyd's): the pair t put at the root comes from the heap's end
 * and mostly belongs near the bottom, so the hole goes down the path of larger children
 * to a leaf first, one comparison a level instead of two, and t climbs back up to its
 * place from there. */
static QP__ALWAYS_INLINE void sift_leaf_first(const qp_world *w, qp_pair *p, qp_pair t, int n, bool by_index)
{
    int hole = 0;
    for (;;) {
        int child = 2 * hole + 1;
        if (child >= n) break;
#if QP__BRANCH_FREE   /* the larger child, chosen without a branch (which one is a coin toss) */
        int right = child + 1 < n ? child + 1 : child;
        child += key_less(pair_key(w, &p[child], by_index), pair_key(w, &p[right], by_index), by_index);
#else
        if (child + 1 < n && key_less(pair_key(w, &p[child], by_index), pair_key(w, &p[child + 1], by_index), by_index))
            child++;
#endif
        p[hole] = p[child];
        hole = child;
    }
    const uint64_t kt = pair_key(w, &t, by_index);
    while (hole > 0) {
        int parent = (hole - 1) / 2;
        if (key_less(kt, pair_key(w, &p[parent], by_index), by_index)) break;
        p[hole] = p[parent];
        hole = parent;
    }
    p[hole] = t;
}

static QP__ALWAYS_INLINE void heap_sort(const qp_world *w, qp_pair *p, int n, bool by_index)
{
    for (int i = n / 2 - 1; i >= 0; i--) sift_down(w, p, i, n, by_index);
    for (int end = n - 1; end > 0; end--) {
        qp_pair t = p[end];
        p[end] = p[0];
        sift_leaf_first(w, p, t, end, by_index);
    }
}

/* One stable counting pass of the pairs in `in` into `out` by the body of their shape a
 * (by_a) or b, with w->queue (free until the contact graph) for the counts. */
static void count_pass(qp_world *w, const qp_pair *in, qp_pair *out, int n, bool by_a)
{
    uint16_t *next = w->queue;   /* bodies + 3 entries >= body_high + 2 */
    const int bodies = w->body_high + 1;
    for (int i = 0; i <= bodies; i++) next[i] = 0;
    for (int i = 0; i < n; i++) next[w->shapes[by_a ? in[i].a : in[i].b].body + 1]++;
    for (int i = 1; i <= bodies; i++) next[i] = (uint16_t)(next[i] + next[i - 1]);
    for (int i = 0; i < n; i++) out[next[w->shapes[by_a ? in[i].a : in[i].b].body]++] = in[i];
}

/* The default layout sorts by counting: by body b, then stably by body a, through the
 * rows' memory (dead until the collision pass makes the rows), which orders the pairs by
 * (body a, body b); an insertion sort on the whole key then puts the rare pairs of the same
 * two bodies (compounds) in slot order, next to each other. The same order as the heap
 * sort's, as keys are unique; a host mispredicts the heap sort's choices of child (coin
 * tosses), where these loops only count. Low-RAM has no rows (qp__pair_sort_scratch), and
 * counts past 16 bits (more than 65 535 pairs) do not fit w->queue: both keep the heap sort. */
static bool count_sort(qp_world *w, qp_pair *p, int n, bool by_index)
{
    qp_pair *scratch = qp__pair_sort_scratch(w);
    if (!scratch || n > 0xFFFF) return false;
    count_pass(w, p, scratch, n, false);
    count_pass(w, scratch, p, n, true);
    if (by_index) return true;   /* one shape a body: (body a, body b) is the whole key */
    for (int i = 1; i < n; i++) {
        const qp_pair t = p[i];
        const uint64_t kt = qp__pair_key(w, &t);
        int j = i - 1;
        while (j >= 0 && kt < qp__pair_key(w, &p[j])) {
            p[j + 1] = p[j];
            j--;
        }
        p[j + 1] = t;
    }
    return true;
}

/* The sort made twice, each with its key inline. */
static void sort_pairs(qp_world *w, qp_pair *p, int n)
{
    bool by_index = shapes_in_body_order(w);
    if (count_sort(w, p, n, by_index)) return;
    if (by_index) heap_sort(w, p, n, true);
    else heap_sort(w, p, n, false);
}

static bool overlap_yz(const qp_aabb *a, const qp_aabb *b)
{
#if QP__BRANCH_FREE   /* all four compares, not short-circuited: each is a coin toss */
    return (a->lo.y <= b->hi.y) & (b->lo.y <= a->hi.y) & (a->lo.z <= b->hi.z) & (b->lo.z <= a->hi.z);
#else
    return a->lo.y <= b->hi.y && b->lo.y <= a->hi.y && a->lo.z <= b->hi.z && b->lo.z <= a->hi.z;
#endif
}

static void sort_order(qp_world *w)
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
}

/* Shape a of a candidate pair: its box, body and what that body does, read once for all
 * its candidates. */
typedef struct {
    qp_aabb box;
    uint16_t body;
    bool moves, dynamic, drives;
} sweep_shape;

/* The pair of shapes order[i] (a) and order[j] (b), whose boxes overlap, if something in
 * it moves; n pairs so far. Returns the new count. */
static QP__ALWAYS_INLINE int pair_up(qp_world *w, const uint16_t *order, int i, const sweep_shape *a, int j, int n)
{
    const qp_shape_slot *b = &w->shapes[order[j]];
    if (a->body == b->body) return n;
    /* Something moves (an awake body, or a kinematic one driving a body that can be
     * pushed); never two bodies that cannot be pushed. */
    const qp_body_state *bb = &w->bodies[b->body];
    if (!a->moves && !qp__body_moves(bb) && !((a->drives && qp__body_dynamic(bb)) || (a->dynamic && qp__body_drives(bb))))
        return n;
    if (!qp__shapes_pair(&w->shapes[order[i]], b)) return n;
    if (qp__joined(w, a->body, b->body)) return n;   /* joined bodies do not collide */
    if (n == qp__cap_pairs(w)) {
        w->stats.overflows++;
        w->bodies[a->body].flags |= QP_FLAG_CONTACTS_LOST;
        w->bodies[b->body].flags |= QP_FLAG_CONTACTS_LOST;
        return n;
    }
    bool a_first = a->body < b->body;
    w->pairs[n].a = a_first ? order[i] : order[j];
    w->pairs[n].b = a_first ? order[j] : order[i];
    return n + 1;
}

void qp__broad_phase(qp_world *w)
{
    uint16_t *order = w->sap_order;
    sort_order(w);
    int n = 0;
    const int count = w->sap_count;
    for (int i = 0; i < count; i++) {
        /* a in a local: the loop's stores (the overflow count) would otherwise have it
         * read again at every candidate. Boxes apart in y or z are dropped first: most
         * candidates end there (nine in ten of rain512's), and the test needs no body
         * record. */
        const qp_shape_slot *sa = &w->shapes[order[i]];
        const qp_body_state *ba = &w->bodies[sa->body];
        const sweep_shape a = { sa->aabb, sa->body, qp__body_moves(ba), qp__body_dynamic(ba), qp__body_drives(ba) };
        const qp_aabb *box = &a.box;
#if QP__BRANCH_FREE
        /* Hosts gather the candidates that overlap into near without a branch on the
         * test, a coin toss each, then pair them: the same candidates in the same order
         * (QP__BRANCH_FREE; rain512's resting step took 2 % less time). */
        int j = i + 1;
        bool past = false;   /* a candidate's box begins beyond a's in x: a's sweep is over */
        while (j < count && !past) {
            uint16_t near[32];
            int m = 0;
            for (; j < count && m < 32; j++) {
                const qp_aabb *bb = &w->shapes[order[j]].aabb;
                if (bb->lo.x > box->hi.x) {
                    past = true;
                    break;
                }
                near[m] = (uint16_t)j;
                m += overlap_yz(box, bb);
            }
            for (int k = 0; k < m; k++) n = pair_up(w, order, i, &a, near[k], n);
        }
#else
        for (int j = i + 1; j < count; j++) {
            const qp_aabb *bb = &w->shapes[order[j]].aabb;
            if (bb->lo.x > box->hi.x) break;
            if (overlap_yz(box, bb)) n = pair_up(w, order, i, &a, j, n);
        }
#endif
    }
    sort_pairs(w, w->pairs, n);
    w->pair_count = n;
    w->stats.pairs = n;
    if (n > w->stats.max_pairs) w->stats.max_pairs = n;
}

/* After the step, every box at its body's new pose (moving bodies' were at the predicted
 * one; sleepers, static and frozen bodies' are already where they are) and the order
 * sorted by them again, so that ray casts between steps can prune with it (query.c).
 * The next broad phase recomputes the moving bodies' boxes at their predicted poses
 * first: what it sees, and so every result, is the same as without this. */
void qp__sap_refresh(qp_world *w)
{
    for (int i = 1; i <= w->body_high; i++) {
        const qp_body_state *b = &w->bodies[i];
        if (!qp__body_moves(b)) continue;
        qp_rot3 r = qp__body_rot(b);
        qp__body_update_aabbs(w, i, &b->x, &r);
    }
    sort_order(w);
    w->sap_sorted = 1;
}
