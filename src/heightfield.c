/* SPDX-License-Identifier: MIT */
/* Heightfields: a grid of heights in caller memory, seen as two triangles per cell.
 *
 * No tree: a box's cells are found from its x and z range directly, and a ray walks
 * the rows of cells its path crosses. Each triangle's active edges come from its
 * neighbours' heights (the grid is its own adjacency), by the same rule as a mesh's:
 * an edge is active when convex by more than about 5 degrees, or on the border.
 *
 * Cell (i, j) has corners p00 = (j, i), p10 = (j, i + 1), p11 = (j + 1, i + 1),
 * p01 = (j + 1, i) in (column, row); half 0 is p00 p10 p11, half 1 is p00 p11 p01,
 * both counter-clockwise seen from above.
 */
#include "level.h"
#include "geometry.h"

static qp_vec3 grid_point(const qp_heightfield *f, int64_t row, int64_t col)
{
    return qp_v3((fix16_t)(col * f->spacing), f->heights[row * f->cols + col], (fix16_t)(row * f->spacing));
}

qp_result qp_heightfield_init(qp_heightfield *out, const fix16_t *heights, uint32_t rows, uint32_t cols,
                              fix16_t spacing)
{
    if (!out || !heights || rows < 2 || cols < 2) return QP_ERR_PARAM;
    if (rows > QP_HEIGHTFIELD_MAX_SIDE || cols > QP_HEIGHTFIELD_MAX_SIDE) return QP_ERR_RANGE;
    if (spacing < QP_HEIGHTFIELD_MIN_SPACING || spacing > QP_HEIGHTFIELD_MAX_SPACING) return QP_ERR_RANGE;
    if ((int64_t)(rows - 1) * spacing > QP_LEVEL_MAX_COORD || (int64_t)(cols - 1) * spacing > QP_LEVEL_MAX_COORD)
        return QP_ERR_RANGE;
    fix16_t lo = heights[0], hi = heights[0];
    uint32_t h = 2166136261u;
    h = qp__level_hash(h, rows);
    h = qp__level_hash(h, cols);
    h = qp__level_hash(h, (uint32_t)spacing);
    for (uint32_t k = 0; k < rows * cols; k++) {
        fix16_t v = heights[k];
        if (v > QP_LEVEL_MAX_COORD || v < -QP_LEVEL_MAX_COORD) return QP_ERR_RANGE;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        h = qp__level_hash(h, (uint32_t)v);
    }
    out->heights = heights;
    out->rows = rows;
    out->cols = cols;
    out->spacing = spacing;
    out->min_height = lo;
    out->max_height = hi;
    out->checksum = h;
    return QP_OK;
}

qp_result qp_make_heightfield_shape(const qp_heightfield *field, qp_shape *out)
{
    if (!field || !out || !field->heights || field->rows < 2 || field->cols < 2) return QP_ERR_PARAM;
    out->type = QP_SHAPE_HEIGHTFIELD;
    out->offset = qp_v3_zero();
    out->rotation = qp_quat_identity();
    out->half = qp_v3_zero();
    out->half_height = 0;
    out->heightfield = field;
    return QP_OK;
}

/* Whether edge a-b (of a triangle with normal n) is active, with the neighbour's far corner
 * at grid point (row, col) when that lies on the grid, else a border edge (active). */
static uint8_t edge_bit(const qp_heightfield *f, qp_vec3 n, qp_vec3 a, qp_vec3 b, int64_t row, int64_t col, int k)
{
    if (row < 0 || col < 0 || row >= (int64_t)f->rows || col >= (int64_t)f->cols) return (uint8_t)(1u << k);
    return qp__edge_active(n, a, b, grid_point(f, row, col)) ? (uint8_t)(1u << k) : 0;
}

/* Triangle `half` of cell (row i, column j), with its active edges. */
static void cell_triangle(const qp_heightfield *f, int64_t i, int64_t j, int half, qp_level_triangle *t)
{
    qp_vec3 p00 = grid_point(f, i, j), p10 = grid_point(f, i + 1, j), p11 = grid_point(f, i + 1, j + 1),
            p01 = grid_point(f, i, j + 1);
    qp_vec3 n;
    t->index = (uint32_t)(2 * (i * (f->cols - 1) + j) + half);
    t->active = 0;
    if (half == 0) {
        t->v[0] = p00, t->v[1] = p10, t->v[2] = p11;
        if (!qp__tri_normal(p00, p10, p11, &n)) return;
        t->active |= edge_bit(f, n, p00, p10, i, j - 1, 0);        /* column j: cell (i, j - 1), half 1 */
        t->active |= edge_bit(f, n, p10, p11, i + 2, j + 1, 1);    /* row i + 1: cell (i + 1, j), half 1 */
        t->active |= edge_bit(f, n, p11, p00, i, j + 1, 2);        /* the diagonal: half 1 */
    } else {
        t->v[0] = p00, t->v[1] = p11, t->v[2] = p01;
        if (!qp__tri_normal(p00, p11, p01, &n)) return;
        t->active |= edge_bit(f, n, p00, p11, i + 1, j, 0);        /* the diagonal: half 0 */
        t->active |= edge_bit(f, n, p11, p01, i + 1, j + 2, 1);    /* column j + 1: cell (i, j + 1), half 0 */
        t->active |= edge_bit(f, n, p01, p00, i - 1, j, 2);        /* row i: cell (i - 1, j), half 0 */
    }
}

/* Cells [c0, c1] x [r0, r1] that a range [lo, hi] (x or z) covers; false when none. */
static bool cell_range(fix16_t lo, fix16_t hi, fix16_t spacing, uint32_t cells, int64_t *c0, int64_t *c1)
{
    if (hi < 0 || lo > (int64_t)cells * spacing) return false;
    int64_t a = lo < 0 ? 0 : (int64_t)lo / spacing, b = (int64_t)hi / spacing;
    if (b >= (int64_t)cells) b = (int64_t)cells - 1;
    *c0 = a;
    *c1 = b;
    return a <= b;
}

uint32_t qp__heightfield_query(const qp_heightfield *f, const qp_aabb *box, qp_level_visit visit, void *ctx)
{
    int64_t r0, r1, c0, c1;
    uint32_t seen = 0;
    if (!f || box->hi.y < f->min_height || box->lo.y > f->max_height) return 0;
    if (!cell_range(box->lo.x, box->hi.x, f->spacing, f->cols - 1, &c0, &c1) ||
        !cell_range(box->lo.z, box->hi.z, f->spacing, f->rows - 1, &r0, &r1))
        return 0;
    for (int64_t i = r0; i <= r1; i++)
        for (int64_t j = c0; j <= c1; j++)
            for (int half = 0; half < 2; half++) {
                qp_level_triangle t;
                cell_triangle(f, i, j, half, &t);
                fix16_t ylo = t.v[0].y, yhi = t.v[0].y;
                for (int k = 1; k < 3; k++) {
                    ylo = t.v[k].y < ylo ? t.v[k].y : ylo;
                    yhi = t.v[k].y > yhi ? t.v[k].y : yhi;
                }
                if (yhi < box->lo.y || ylo > box->hi.y) continue;
                seen++;
                if (visit(ctx, &t)) return seen;
            }
    return seen;
}

/* The ray walks rows of cells: within row strip i (z in [i s, (i + 1) s]), the cells
 * between the x at which the ray enters and leaves the strip (clamped to its span). */
bool qp__heightfield_raycast(const qp_heightfield *f, qp_vec3 o, qp_vec3 u, fix16_t len, fix16_t *dist,
                             qp_vec3 *normal, uint32_t *tri_index)
{
    if (!f) return false;
    qp_vec3 e = qp__v3_mad_q30(o, u, len);
    int64_t r0, r1;
    fix16_t zlo = o.z < e.z ? o.z : e.z, zhi = o.z < e.z ? e.z : o.z;
    if (!cell_range(zlo - 4, zhi + 4, f->spacing, f->rows - 1, &r0, &r1)) return false;   /* 4 units: rounding */
    bool hit = false;
    fix16_t best = 0;
    uint32_t best_tri = 0;
    qp_vec3 best_n = qp_v3_zero();
    for (int64_t i = r0; i <= r1; i++) {
        /* x range of the ray over the strip (one cell of slack on each side for rounding). */
        fix16_t xlo = o.x < e.x ? o.x : e.x, xhi = o.x < e.x ? e.x : o.x;
        if (u.z != 0) {
            int64_t za = i * f->spacing, zb = za + f->spacing;
            int64_t ta = (((za - o.z) * ((int64_t)1 << 30)) / u.z), tb = (((zb - o.z) * ((int64_t)1 << 30)) / u.z);
            if (ta > tb) {
                int64_t s = ta; ta = tb; tb = s;
            }
            ta = ta < 0 ? 0 : ta > len ? len : ta;
            tb = tb < 0 ? 0 : tb > len ? len : tb;
            fix16_t xa = qp__v3_mad_q30(o, u, (fix16_t)ta).x, xb = qp__v3_mad_q30(o, u, (fix16_t)tb).x;
            xlo = (xa < xb ? xa : xb) - f->spacing;
            xhi = (xa < xb ? xb : xa) + f->spacing;
        }
        int64_t c0, c1;
        if (!cell_range(xlo, xhi, f->spacing, f->cols - 1, &c0, &c1)) continue;
        for (int64_t j = c0; j <= c1; j++)
            for (int half = 0; half < 2; half++) {
                qp_level_triangle t;
                cell_triangle(f, i, j, half, &t);
                fix16_t d;
                qp_vec3 n;
                if (!qp_raycast_triangle(&t, o, u, len, &d, &n)) continue;
                if (!hit || d < best || (d == best && t.index < best_tri)) {
                    hit = true;
                    best = d;
                    best_tri = t.index;
                    best_n = n;
                }
            }
    }
    if (!hit) return false;
    *dist = best;
    *normal = best_n;
    *tri_index = best_tri;
    return true;
}
