/* SPDX-License-Identifier: MIT */
/* Stages "broad" and "bounds": broad phase by sweep and prune on x (docs/design.md §3, §4).
 *
 * sap_order keeps every shape sorted by the low x of its box between steps,
 * so insertion sort is nearly linear on coherent scenes. The sweep emits the
 * pairs whose boxes overlap and of which at least one body moves (no
 * static-static, no sleeping-sleeping pairs but those of a body created asleep, in its first
 * step; a moving kinematic body pairs with
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

/* Heap sort of the shapes by sap_less: the same order as the insertion sort's (the keys
 * are unique), in O(n log n) whatever the starting order. */
static void sift_shape(const qp_world *w, uint16_t *order, int root, int n)
{
    const uint16_t t = order[root];
    for (;;) {
        int child = 2 * root + 1;
        if (child >= n) break;
        if (child + 1 < n && sap_less(w, order[child], order[child + 1])) child++;
        if (!sap_less(w, t, order[child])) break;
        order[root] = order[child];
        root = child;
    }
    order[root] = t;
}

static void heap_sort_order(const qp_world *w, uint16_t *order, int n)
{
    for (int i = n / 2 - 1; i >= 0; i--) sift_shape(w, order, i, n);
    for (int end = n - 1; end > 0; end--) {
        uint16_t t = order[end];
        order[end] = order[0];
        order[0] = t;
        sift_shape(w, order, 0, end);
    }
}

/* Insertion sort: nearly linear on the order kept from the last step. An order far from
 * sorted (the creation order of a new scene, whose first sort moved each of a wall's 8 256
 * cubes past 2 000 others) stops it after SORT_MOVES_PER_SHAPE moves a shape, and the
 * heap sort finishes. */
#define SORT_MOVES_PER_SHAPE 16
static void sort_order(qp_world *w)
{
    uint16_t *order = w->sap_order;
    int64_t budget = (int64_t)SORT_MOVES_PER_SHAPE * w->sap_count;
    for (int i = 1; i < w->sap_count; i++) {
        uint16_t s = order[i];
        int j = i - 1;
        while (j >= 0 && sap_less(w, s, order[j])) {
            order[j + 1] = order[j];
            j--;
        }
        order[j + 1] = s;
        budget -= i - 1 - j;
        if (budget < 0) {
            heap_sort_order(w, order, w->sap_count);
            return;
        }
    }
}

/* Shape a of a candidate pair: its box, body and what that body does, read once for all
 * its candidates. */
typedef struct {
    qp_aabb box;
    uint16_t body;
    bool moves, dynamic, drives, unrecorded;
} sweep_shape;

static QP__ALWAYS_INLINE sweep_shape sweep_shape_of(const qp_world *w, uint16_t s)
{
    const qp_shape_slot *sa = &w->shapes[s];
    const qp_body_state *ba = &w->bodies[sa->body];
    const sweep_shape a = { sa->aabb, sa->body, qp__body_moves(ba), qp__body_dynamic(ba), qp__body_drives(ba),
                            qp__body_unrecorded(ba) };
    return a;
}

/* The pair of shapes sa (described by a) and sb, whose boxes overlap, if something in it
 * moves; n pairs so far. Returns the new count. */
static QP__ALWAYS_INLINE int pair_up(qp_world *w, uint16_t sa, const sweep_shape *a, uint16_t sb, int n)
{
    const qp_shape_slot *b = &w->shapes[sb];
    if (a->body == b->body) return n;
    /* Something moves (an awake body, or a kinematic one driving a body that can be
     * pushed), or a sleeper created asleep has its contacts found (body.h); never two
     * bodies that cannot be pushed. */
    const qp_body_state *bb = &w->bodies[b->body];
    if (!a->moves && !qp__body_moves(bb) && !((a->drives && qp__body_dynamic(bb)) || (a->dynamic && qp__body_drives(bb))) &&
        !a->unrecorded && !qp__body_unrecorded(bb))
        return n;
    if (!qp__shapes_pair(&w->shapes[sa], b)) return n;
    if (qp__joined(w, a->body, b->body)) return n;   /* joined bodies do not collide */
    if (n == qp__cap_pairs(w)) {
        w->stats.overflows++;
        w->bodies[a->body].flags |= QP_FLAG_CONTACTS_LOST;
        w->bodies[b->body].flags |= QP_FLAG_CONTACTS_LOST;
        return n;
    }
    bool a_first = a->body < b->body;
    w->pairs[n].a = a_first ? sa : sb;
    w->pairs[n].b = a_first ? sb : sa;
    return n + 1;
}

/* The pairs of order[i] with the shapes after it in order[0..count) whose boxes begin
 * within its box in x (the sweep on x); n pairs so far. Returns the new count. */
static int sweep_from(qp_world *w, const uint16_t *order, int count, int i, int n)
{
    const sweep_shape a = sweep_shape_of(w, order[i]);   /* in a local: pair_up's stores would reload it */
    const qp_aabb *box = &a.box;
#if QP__BRANCH_FREE
    /* Hosts gather the candidates that overlap into near without a branch on the test, a
     * coin toss each, then pair them: the same candidates in the same order (rain512's
     * resting step took 2 % less time). */
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
            near[m] = order[j];
            m += overlap_yz(box, bb);
        }
        for (int k = 0; k < m; k++) n = pair_up(w, order[i], &a, near[k], n);
    }
#else
    /* Boxes apart in y or z are dropped first: most candidates end there, and the test
     * needs no body record. */
    for (int j = i + 1; j < count; j++) {
        const qp_aabb *bb = &w->shapes[order[j]].aabb;
        if (bb->lo.x > box->hi.x) break;
        if (overlap_yz(box, bb)) n = pair_up(w, order[i], &a, order[j], n);
    }
#endif
    return n;
}

/* ---- the sweep in cells ----------------------------------------------------------------
 * Sweeping all shapes on x costs each shape the boxes that begin within it in x: every
 * box of its column in a wall, of its slab in a pile, so the broad phase grew as the
 * bodies to the power 1.5 and more. Large scenes instead sweep on x inside the square
 * cells of a grid in y and z, 2^shift units a side, no smaller than the shapes' mean
 * extent: a shape no wider than a cell ("small") lies in at most 2 x 2 of them, and meets
 * there only the few shapes near it. A pair of small shapes is made in the first cell the
 * two share (the larger of their first cells' y and z), so once. The other shapes
 * ("large": planes, big boxes) sweep as before with everything after them in x, and each
 * small one with the large ones after it. The pairs found are the same set as the plain
 * sweep's, and are sorted afterwards, so the results do not depend on which sweep ran. */

/* Fewer shapes than this sweep all together: the grid's counts cost more than it saves. */
#define GRID_MIN_SHAPES 256
/* At most this many cells per shape swept, so that clearing the counts stays linear. */
#define GRID_CELLS_PER_SHAPE 4
/* Extents at or above this (2^24 units, 256 m) are not counted in the mean (planes). */
#define GRID_EXTENT_CAP (INT64_C(1) << 24)

static QP__ALWAYS_INLINE int64_t box_extent_yz(const qp_aabb *b)
{
    int64_t ey = (int64_t)b->hi.y - b->lo.y, ez = (int64_t)b->hi.z - b->lo.z;
    return ey > ez ? ey : ez;
}

typedef struct {
    int shift;                 /* a cell is 2^shift units a side */
    int64_t small;             /* shapes of extent <= small are swept in cells */
    int32_t y0, z0;            /* the first cell in y and z */
    int64_t ny, nz;            /* cells in y and z */
    uint32_t *start;           /* start[c]: where cell c's shapes begin in cell_shapes (ny nz + 1) */
    uint16_t *cell_shapes;     /* the small shapes of every cell, cell by cell, each in x order */
    uint16_t *large;           /* positions in the order of the large shapes, ascending */
    int large_count;
} grid;

static QP__ALWAYS_INLINE int32_t cell_of(fix16_t v, int shift)
{
    return v >> shift;   /* floor: an arithmetic shift */
}

/* Lays out the grid for order[0..count) in the broad phase's scratch memory: false when
 * the scene is too small for it, low-RAM (no scratch), or the cells do not fit. */
static bool grid_plan(qp_world *w, const uint16_t *order, int count, grid *g)
{
    unsigned long room;
    unsigned char *mem = qp__rows_scratch(w, &room);
    if (!mem || count < GRID_MIN_SHAPES) return false;
    int64_t sum = 0, counted = 0;
    for (int i = 0; i < count; i++) {
        int64_t e = box_extent_yz(&w->shapes[order[i]].aabb);
        if (e < GRID_EXTENT_CAP) {
            sum += e;
            counted++;
        }
    }
    if (counted == 0) return false;
    int shift = 1;
    while (shift < 24 && (INT64_C(1) << shift) * counted < sum) shift++;
    g->small = INT64_C(1) << shift;
    int64_t ylo = INT32_MAX, yhi = INT32_MIN, zlo = INT32_MAX, zhi = INT32_MIN, smalls = 0;
    for (int i = 0; i < count; i++) {
        const qp_aabb *b = &w->shapes[order[i]].aabb;
        if (box_extent_yz(b) > g->small) continue;
        smalls++;
        ylo = b->lo.y < ylo ? b->lo.y : ylo;
        yhi = b->hi.y > yhi ? b->hi.y : yhi;
        zlo = b->lo.z < zlo ? b->lo.z : zlo;
        zhi = b->hi.z > zhi ? b->hi.z : zhi;
    }
    if (smalls == 0) return false;
    int64_t large = count - smalls, entries = 4 * smalls;
    /* Wider cells where a sparse scene would need too many (small shapes stay small). */
    for (;; shift++) {
        if (shift > 30) return false;
        int64_t ny = cell_of((fix16_t)yhi, shift) - (int64_t)cell_of((fix16_t)ylo, shift) + 1;
        int64_t nz = cell_of((fix16_t)zhi, shift) - (int64_t)cell_of((fix16_t)zlo, shift) + 1;
        int64_t cells = ny * nz;
        if (cells > GRID_CELLS_PER_SHAPE * (int64_t)count) continue;
        if ((uint64_t)(4 * (cells + 1) + 2 * (entries + large)) <= room) {
            g->shift = shift;
            g->y0 = cell_of((fix16_t)ylo, shift);
            g->z0 = cell_of((fix16_t)zlo, shift);
            g->ny = ny;
            g->nz = nz;
            break;
        }
    }
    g->start = (uint32_t *)(void *)mem;
    g->cell_shapes = (uint16_t *)(void *)(mem + 4 * (g->ny * g->nz + 1));
    g->large = g->cell_shapes + entries;
    g->large_count = 0;
    return true;
}

/* The cells a small box covers, as (first y, first z, last y, last z) relative to the grid. */
typedef struct {
    int32_t y0, z0, y1, z1;
} cell_span;

static QP__ALWAYS_INLINE cell_span span_of(const grid *g, const qp_aabb *b)
{
    cell_span s = { cell_of(b->lo.y, g->shift) - g->y0, cell_of(b->lo.z, g->shift) - g->z0,
                    cell_of(b->hi.y, g->shift) - g->y0, cell_of(b->hi.z, g->shift) - g->z0 };
    return s;
}

/* Counts and places the small shapes in their cells (a stable counting sort of the order,
 * so each cell's shapes are in x order) and lists the large ones. */
static void grid_fill(qp_world *w, const uint16_t *order, int count, grid *g)
{
    const int64_t cells = g->ny * g->nz;
    uint32_t *start = g->start;
    for (int64_t c = 0; c <= cells; c++) start[c] = 0;
    for (int i = 0; i < count; i++) {
        const qp_aabb *b = &w->shapes[order[i]].aabb;
        if (box_extent_yz(b) > g->small) continue;
        cell_span s = span_of(g, b);
        for (int32_t y = s.y0; y <= s.y1; y++)
            for (int32_t z = s.z0; z <= s.z1; z++) start[(int64_t)y * g->nz + z + 1]++;
    }
    for (int64_t c = 1; c <= cells; c++) start[c] += start[c - 1];
    /* start[c] is now where cell c begins; placing advances it to where c ends, which is
     * where c + 1 begins: shifted back by one cell below. */
    for (int i = 0; i < count; i++) {
        const qp_aabb *b = &w->shapes[order[i]].aabb;
        if (box_extent_yz(b) > g->small) {
            g->large[g->large_count++] = (uint16_t)i;
            continue;
        }
        cell_span s = span_of(g, b);
        for (int32_t y = s.y0; y <= s.y1; y++)
            for (int32_t z = s.z0; z <= s.z1; z++) g->cell_shapes[start[(int64_t)y * g->nz + z]++] = order[i];
    }
    for (int64_t c = cells; c > 0; c--) start[c] = start[c - 1];
    start[0] = 0;
}

/* The pairs of small shapes, cell by cell: each shape's sweep on x among the shapes after
 * it in its cell, a pair made only in the first cell its two shapes share. */
static int grid_sweep_cells(qp_world *w, const grid *g, int n)
{
    for (int64_t y = 0; y < g->ny; y++) {
        for (int64_t z = 0; z < g->nz; z++) {
            const int64_t c = y * g->nz + z;
            const uint16_t *in = g->cell_shapes;
            const uint32_t end = g->start[c + 1];
            for (uint32_t e = g->start[c]; e < end; e++) {
                const sweep_shape a = sweep_shape_of(w, in[e]);
                const cell_span sa = span_of(g, &a.box);
#if QP__BRANCH_FREE
                /* As sweep_from: the candidates that pair gathered into near without a branch
                 * on the tests (coin tosses), then paired in the same order. rain512's broad
                 * phase took 3.8 % of its step's time with the branches, 2.8 % without, for
                 * 1.3 % more instructions a step. */
                uint32_t f = e + 1;
                bool past = false;   /* a candidate's box begins beyond a's in x */
                while (f < end && !past) {
                    uint16_t near[32];
                    int m = 0;
                    for (; f < end && m < 32; f++) {
                        const qp_aabb *bb = &w->shapes[in[f]].aabb;
                        if (bb->lo.x > a.box.hi.x) {
                            past = true;
                            break;
                        }
                        /* The first cell both lie in is this one: one of them begins in its
                         * row and one in its column (the same or the other). */
                        const int32_t by = cell_of(bb->lo.y, g->shift) - g->y0, bz = cell_of(bb->lo.z, g->shift) - g->z0;
                        near[m] = in[f];
                        m += overlap_yz(&a.box, bb) & ((sa.y0 == y) | (by == y)) & ((sa.z0 == z) | (bz == z));
                    }
                    for (int k = 0; k < m; k++) n = pair_up(w, in[e], &a, near[k], n);
                }
#else
                for (uint32_t f = e + 1; f < end; f++) {
                    const qp_aabb *bb = &w->shapes[in[f]].aabb;
                    if (bb->lo.x > a.box.hi.x) break;
                    if (!overlap_yz(&a.box, bb)) continue;
                    /* The first cell both lie in is this one: one of them begins in its
                     * row and one in its column (the same or the other). */
                    const cell_span sb = span_of(g, bb);
                    if ((sa.y0 == y || sb.y0 == y) && (sa.z0 == z || sb.z0 == z)) n = pair_up(w, in[e], &a, in[f], n);
                }
#endif
            }
        }
    }
    return n;
}

/* The pairs with a large shape: each large one sweeps on x with every shape after it in
 * the order, each small one with the large ones after it. */
static int grid_sweep_large(qp_world *w, const uint16_t *order, int count, const grid *g, int n)
{
    int next = 0;   /* the first large shape after position i */
    for (int i = 0; i < count; i++) {
        if (next < g->large_count && g->large[next] == i) {
            next++;
            n = sweep_from(w, order, count, i, n);
            continue;
        }
        if (next == g->large_count) continue;
        const sweep_shape a = sweep_shape_of(w, order[i]);
        for (int l = next; l < g->large_count; l++) {
            const uint16_t s = order[g->large[l]];
            const qp_aabb *bb = &w->shapes[s].aabb;
            if (bb->lo.x > a.box.hi.x) break;
            if (overlap_yz(&a.box, bb)) n = pair_up(w, order[i], &a, s, n);
        }
    }
    return n;
}

void qp__broad_phase(qp_world *w)
{
    uint16_t *order = w->sap_order;
    sort_order(w);
    qp__joint_ends_keep(w);   /* each body's joints, for qp__joined */
    int n = 0;
    const int count = w->sap_count;
    grid g;
    if (grid_plan(w, order, count, &g)) {
        grid_fill(w, order, count, &g);
        n = grid_sweep_cells(w, &g, n);
        n = grid_sweep_large(w, order, count, &g, n);
    } else {
        for (int i = 0; i < count; i++) n = sweep_from(w, order, count, i, n);
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
