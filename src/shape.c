/* SPDX-License-Identifier: MIT */
/* Shapes: constructors, validation, transforms, bounding boxes and mass.
 *
 * Sizes: zero or negative sizes are malformed (QP_ERR_PARAM); positive sizes
 * outside [QP_SHAPE_MIN_SIZE, QP_SHAPE_MAX_SIZE] are QP_ERR_RANGE. Shape
 * offsets are limited to QP_SHAPE_MAX_SIZE per component.
 *
 * Mass properties go through unsigned 64-bit values in Q18.46 with a 128-bit
 * product helper (mulshr), because a volume is a cube of lengths: r^3 in raw
 * Q16.16 needs 69 bits at r = 100 m, and in Q16.16 the volume of a 1 cm
 * sphere would keep only two significant digits. Intermediate rounding stays
 * far below the final one: mass and the principal moments are within 0.5 LSB
 * of the closed forms (plus the rotation's rounding off the diagonal). Inertia of
 * small shapes may round to a few LSB (a 1 cm sphere of water: 0); the body
 * code checks the summed inertia.
 */
#include "qphys/collide.h"
#include "geometry.h"
#include "qphys/mesh.h"
#include "hull.h"

/* 4/3 pi * 2^61 and 2 pi * 2^60: a mass of 32768 kg needs the constant to 1e-11 */
#define FOUR_THIRDS_PI_Q61  UINT64_C(9658692610769497123)
#define TWO_PI_Q60          UINT64_C(7244019458077122842)

static bool size_ok(fix16_t v, qp_result *res)
{
    if (v <= 0) {
        *res = QP_ERR_PARAM;
        return false;
    }
    if (v < QP_SHAPE_MIN_SIZE || v > QP_SHAPE_MAX_SIZE) {
        *res = QP_ERR_RANGE;
        return false;
    }
    return true;
}

static void shape_init(qp_shape *s, qp_shape_type type)
{
    s->type = type;
    s->offset = qp_v3_zero();
    s->rotation = qp_quat_identity();
    s->normal = qp_v3_zero();   /* normal and plane_offset fill both unions */
    s->plane_offset = 0;
}

qp_result qp_make_sphere(fix16_t radius, qp_shape *out)
{
    qp_result res = QP_OK;
    if (!out) return QP_ERR_PARAM;
    if (!size_ok(radius, &res)) return res;
    shape_init(out, QP_SHAPE_SPHERE);
    out->radius = radius;
    return QP_OK;
}

qp_result qp_make_box(qp_vec3 half, qp_shape *out)
{
    qp_result res = QP_OK;
    if (!out) return QP_ERR_PARAM;
    /* Report a malformed (non-positive) extent before an out-of-range one. */
    if (half.x <= 0 || half.y <= 0 || half.z <= 0) return QP_ERR_PARAM;
    if (!size_ok(half.x, &res) || !size_ok(half.y, &res) || !size_ok(half.z, &res)) return res;
    shape_init(out, QP_SHAPE_BOX);
    out->half = half;
    return QP_OK;
}

qp_result qp_make_capsule(fix16_t radius, fix16_t half_height, qp_shape *out)
{
    qp_result res = QP_OK;
    if (!out) return QP_ERR_PARAM;
    if (radius <= 0 || half_height <= 0) return QP_ERR_PARAM;
    if (!size_ok(radius, &res) || !size_ok(half_height, &res)) return res;
    shape_init(out, QP_SHAPE_CAPSULE);
    out->radius = radius;
    out->half_height = half_height;
    return QP_OK;
}

qp_result qp_make_plane(qp_vec3 normal, fix16_t offset, qp_shape *out)
{
    qp_vec3 n;
    if (!out) return QP_ERR_PARAM;
    if (!qp_v3_normalize_q30(normal, &n)) return QP_ERR_PARAM;
    if (offset < -QP_WORLD_LIMIT || offset > QP_WORLD_LIMIT) return QP_ERR_RANGE;
    shape_init(out, QP_SHAPE_PLANE);
    out->normal = n;
    out->plane_offset = offset;
    return QP_OK;
}

/* |v|^2 - 1 within 2^-20 for a Q2.30 vector of n components (n = 3 or 4). */
static bool is_unit_q30(const int32_t *c, int n)
{
    uint64_t s = 0;
    for (int i = 0; i < n; i++) {
        if (c[i] > QP_Q30_ONE + (1 << 20) || c[i] < -QP_Q30_ONE - (1 << 20)) return false;
        s += (uint64_t)((int64_t)c[i] * c[i]);   /* each below 2^60.1: the sum fits */
    }
    uint64_t one = (uint64_t)1 << 60, tol = (uint64_t)1 << 40;
    return s + tol >= one && s <= one + tol;
}

qp_result qp_shape_validate(const qp_shape *s)
{
    qp_result res = QP_OK;
    if (!s) return QP_ERR_PARAM;
    int32_t q[4] = { s->rotation.w, s->rotation.x, s->rotation.y, s->rotation.z };
    if (!is_unit_q30(q, 4)) return QP_ERR_PARAM;
    if (qp_v3_max_abs(s->offset) > QP_SHAPE_MAX_SIZE) return QP_ERR_RANGE;
    switch (s->type) {
    case QP_SHAPE_SPHERE:
        if (!size_ok(s->radius, &res)) return res;
        return QP_OK;
    case QP_SHAPE_CAPSULE:
        if (s->radius <= 0 || s->half_height <= 0) return QP_ERR_PARAM;
        if (!size_ok(s->radius, &res) || !size_ok(s->half_height, &res)) return res;
        return QP_OK;
    case QP_SHAPE_BOX:
        if (s->half.x <= 0 || s->half.y <= 0 || s->half.z <= 0) return QP_ERR_PARAM;
        if (!size_ok(s->half.x, &res) || !size_ok(s->half.y, &res) || !size_ok(s->half.z, &res))
            return res;
        return QP_OK;
    case QP_SHAPE_PLANE: {
        int32_t n[3] = { s->normal.x, s->normal.y, s->normal.z };
        if (!is_unit_q30(n, 3)) return QP_ERR_PARAM;
        if (s->plane_offset < -QP_WORLD_LIMIT || s->plane_offset > QP_WORLD_LIMIT) return QP_ERR_RANGE;
        return QP_OK;
    }
    case QP_SHAPE_MESH:
        return s->mesh && s->mesh->node_count > 0 && s->mesh->edge_flags ? QP_OK : QP_ERR_PARAM;
    case QP_SHAPE_HEIGHTFIELD:
        return s->heightfield && s->heightfield->heights && s->heightfield->rows >= 2 && s->heightfield->cols >= 2
                   ? QP_OK : QP_ERR_PARAM;
    case QP_SHAPE_HULL:
        return qp__hull_sound(s->hull) ? QP_OK : QP_ERR_PARAM;
    default:
        return QP_ERR_PARAM;
    }
}

/* ---- transforms ------------------------------------------------------------- */

qp_transform qp_transform_relative(const qp_transform *a, const qp_transform *b)
{
    qp_transform r;
    r.r = qp_rot3_tmul(&a->r, &b->r);
    r.p = qp_rot3_tmul_v3(&a->r, qp_v3_sub(b->p, a->p));
    return r;
}

qp_vec3 qp_transform_point(const qp_transform *xf, qp_vec3 local)
{
    return qp_v3_add(xf->p, qp_rot3_mul_v3(&xf->r, local));
}

qp_vec3 qp_transform_point_inv(const qp_transform *xf, qp_vec3 world)
{
    return qp_rot3_tmul_v3(&xf->r, qp_v3_sub(world, xf->p));
}

qp_transform qp_shape_transform(const qp_shape *s, const qp_transform *body_xf)
{
    qp_transform t;
    qp_rot3 local = qp_quat_to_rot3(s->rotation);
    t.p = qp_transform_point(body_xf, s->offset);
    t.r = qp_rot3_mul(&body_xf->r, &local);
    return t;
}

/* ---- bounding boxes --------------------------------------------------------- */

/* sum_j |R_ij| e_j, rounded up (so the box contains the shape), i = 0..2. */
static qp_vec3 abs_rot_extent(const qp_rot3 *r, qp_vec3 e)
{
    fix16_t o[3];
    const fix16_t ev[3] = { e.x, e.y, e.z };
    /* Extents of shapes are never negative: then each product is one unsigned 32 x 32
     * multiply-accumulate on a 32-bit machine (as int64 it took three instructions), the
     * same sum (below 2^55 for a rotation and extents up to 100 m). */
    const bool plain = ev[0] >= 0 && ev[1] >= 0 && ev[2] >= 0;
    for (int i = 0; i < 3; i++) {
        int64_t s = 0;
        if (plain) {
            uint64_t u = 0;
            for (int j = 0; j < 3; j++)
                u += (uint64_t)(r->m[i][j] < 0 ? 0u - (uint32_t)r->m[i][j] : (uint32_t)r->m[i][j]) * (uint32_t)ev[j];
            s = (int64_t)u;
        } else {
            for (int j = 0; j < 3; j++) {
                int64_t m = r->m[i][j] < 0 ? -(int64_t)r->m[i][j] : r->m[i][j];
                s += m * ev[j];
            }
        }
        o[i] = qp__sat32((s + (((int64_t)1 << 30) - 1)) >> 30);
    }
    return qp_v3(o[0], o[1], o[2]);
}

static qp_aabb aabb_around(qp_vec3 c, qp_vec3 ext)
{
    qp_aabb b;
    b.lo = qp__v3_sub(c, ext);
    b.hi = qp__v3_add(c, ext);
    return b;
}

qp_aabb qp__box_aabb_grown(const qp_shape *s, qp_vec3 p, const qp_rot3 *r, fix16_t margin)
{
    const qp_vec3 e = abs_rot_extent(r, s->half), m = qp_v3(margin, margin, margin);
    qp_aabb b = aabb_around(p, e);
    b.lo = qp__v3_sub(b.lo, m);
    b.hi = qp__v3_add(b.hi, m);
    return b;
}

qp_aabb qp_shape_aabb(const qp_shape *s, const qp_transform *xf)
{
    fix16_t big = 2 * QP_WORLD_LIMIT;
    switch (s->type) {
    case QP_SHAPE_SPHERE:
        return aabb_around(xf->p, qp_v3(s->radius, s->radius, s->radius));
    case QP_SHAPE_CAPSULE: {
        qp_vec3 ext = abs_rot_extent(&xf->r, qp_v3(0, s->half_height, 0));
        return aabb_around(xf->p, qp_v3_add(ext, qp_v3(s->radius, s->radius, s->radius)));
    }
    case QP_SHAPE_BOX:
        return aabb_around(xf->p, abs_rot_extent(&xf->r, s->half));
    case QP_SHAPE_MESH:
    case QP_SHAPE_HEIGHTFIELD: {
        /* The level's own box, turned: its centre and half extents (rounded out). */
        qp_aabb local;
        if (s->type == QP_SHAPE_MESH) {
            local = s->mesh->bounds;
        } else {
            const qp_heightfield *f = s->heightfield;
            local.lo = qp_v3(0, f->min_height, 0);
            local.hi = qp_v3((fix16_t)((int64_t)(f->cols - 1) * f->spacing), f->max_height,
                             (fix16_t)((int64_t)(f->rows - 1) * f->spacing));
        }
        qp_vec3 c = qp_v3((fix16_t)(((int64_t)local.lo.x + local.hi.x) >> 1), (fix16_t)(((int64_t)local.lo.y + local.hi.y) >> 1),
                          (fix16_t)(((int64_t)local.lo.z + local.hi.z) >> 1));
        qp_vec3 e = qp_v3(local.hi.x - c.x + 1, local.hi.y - c.y + 1, local.hi.z - c.z + 1);
        return aabb_around(qp_transform_point(xf, c), abs_rot_extent(&xf->r, e));
    }
    case QP_SHAPE_HULL:
        return qp__hull_aabb(s->hull, xf);
    default: {
        /* A half-space: the world box, cut on one side when the world normal
         * is exactly along an axis (a ground plane then has a top). */
        qp_aabb b = { qp_v3(-big, -big, -big), qp_v3(big, big, big) };
        qp_vec3 n = qp__rot_q30(&xf->r, s->normal);
        int64_t off = (int64_t)s->plane_offset + qp_v3_dot_q30(xf->p, n);
        fix16_t *lo = &b.lo.x, *hi = &b.hi.x;
        const fix16_t nv[3] = { n.x, n.y, n.z };
        for (int k = 0; k < 3; k++) {
            if (nv[(k + 1) % 3] != 0 || nv[(k + 2) % 3] != 0) continue;
            if (nv[k] == QP_Q30_ONE && off < big) hi[k] = (fix16_t)(off > -big ? off : -big);
            if (nv[k] == -QP_Q30_ONE && -off > -big) lo[k] = (fix16_t)(-off < big ? -off : big);
        }
        return b;
    }
    }
}

/* ---- mass ---------------------------------------------------------------------- */

/* round(a * b / 2^n) for unsigned 64-bit a, b and 1 <= n <= 63, through a
 * 128-bit product in four 32-bit parts. Sets *ovf when the result needs more
 * than 63 bits. */
static uint64_t mulshr(uint64_t a, uint64_t b, int n, bool *ovf)
{
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    uint64_t lo = (p00 & 0xFFFFFFFFu) | (mid << 32);
    uint64_t hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    /* add the rounding half: 2^(n-1) */
    uint64_t half = (uint64_t)1 << (n - 1);
    uint64_t lo2 = lo + half;
    if (lo2 < lo) hi++;
    uint64_t res = (lo2 >> n) | (hi << (64 - n));
    if ((hi >> n) != 0 || res > (uint64_t)INT64_MAX) {
        *ovf = true;
        return (uint64_t)INT64_MAX;
    }
    return res;
}

/* Q18.46 to Q16.16, rounded; false when it does not fit. */
static bool to_fix(uint64_t v, fix16_t *out)
{
    uint64_t r = (v + ((uint64_t)1 << 29)) >> 30;
    if (r > (uint64_t)INT32_MAX) return false;
    *out = (fix16_t)r;
    return true;
}

static uint64_t add_sat(uint64_t a, uint64_t b, bool *ovf)
{
    if (a > (uint64_t)INT64_MAX - b) {
        *ovf = true;
        return (uint64_t)INT64_MAX;
    }
    return a + b;
}

/* v * num / den for a small fraction, rounded (without forming v * num). */
static uint64_t frac(uint64_t v, uint32_t num, uint32_t den, bool *ovf)
{
    uint64_t q = v / den, r = v % den;
    if (q > (uint64_t)INT64_MAX / num / 2) {
        *ovf = true;
        return (uint64_t)INT64_MAX;
    }
    return q * num + (r * num + den / 2) / den;
}

/* m * x * num / den: m in Q46, x in Q32 (a squared length), result Q46. */
static uint64_t moment(uint64_t m, uint64_t x, uint32_t num, uint32_t den, bool *ovf)
{
    return frac(mulshr(m, x, 32, ovf), num, den, ovf);
}

bool qp__shape_moments(const qp_shape *s, uint64_t rho, uint64_t out[4])
{
    /* Lengths squared in Q32 (exact); the density enters first so that no
     * volume is ever rounded before it is scaled. */
    bool ovf = false;
    uint64_t m, ixx, iyy, izz;
    if (s->type == QP_SHAPE_BOX) {
        uint64_t hx = (uint64_t)s->half.x, hy = (uint64_t)s->half.y, hz = (uint64_t)s->half.z;
        uint64_t x2 = hx * hx, y2 = hy * hy, z2 = hz * hz;
        m = frac(mulshr(rho * hx, hy * hz, 18, &ovf), 8, 1, &ovf);       /* 8 hx hy hz rho */
        ixx = add_sat(moment(m, y2, 1, 3, &ovf), moment(m, z2, 1, 3, &ovf), &ovf);
        iyy = add_sat(moment(m, x2, 1, 3, &ovf), moment(m, z2, 1, 3, &ovf), &ovf);
        izz = add_sat(moment(m, x2, 1, 3, &ovf), moment(m, y2, 1, 3, &ovf), &ovf);
    } else {
        uint64_t r = (uint64_t)s->radius, r2 = r * r;
        /* solid sphere: m = 4/3 pi r^3 rho, I = 2/5 m r^2 */
        uint64_t ms = mulshr(mulshr(rho * r, r2, 18, &ovf), FOUR_THIRDS_PI_Q61, 61, &ovf);
        uint64_t is = moment(ms, r2, 2, 5, &ovf);
        m = ms;
        ixx = iyy = izz = is;
        if (s->type == QP_SHAPE_CAPSULE) {
            /* Cylinder of length 2h plus the two hemispheres (a sphere):
             *   m_c = 2 pi r^2 h rho
             *   I_axis = m_c r^2 / 2 + 2/5 m_s r^2
             *   I_perp = m_c (r^2/4 + h^2/3) + m_s (2/5 r^2 + h^2 + 3/4 h r)
             * (each hemisphere's centroid sits 3r/8 beyond the segment end). */
            uint64_t h = (uint64_t)s->half_height, h2 = h * h, hr = h * r;
            uint64_t mc = mulshr(mulshr(rho * h, r2, 18, &ovf), TWO_PI_Q60, 60, &ovf);
            m = add_sat(mc, ms, &ovf);
            iyy = add_sat(moment(mc, r2, 1, 2, &ovf), is, &ovf);
            ixx = add_sat(moment(mc, r2, 1, 4, &ovf), moment(mc, h2, 1, 3, &ovf), &ovf);
            ixx = add_sat(ixx, is, &ovf);
            ixx = add_sat(ixx, moment(ms, h2, 1, 1, &ovf), &ovf);
            ixx = add_sat(ixx, moment(ms, hr, 3, 4, &ovf), &ovf);
            izz = ixx;
        }
    }
    out[0] = m;
    out[1] = ixx;
    out[2] = iyy;
    out[3] = izz;
    return !ovf;
}

void qp__shape_mass_data(const qp_shape *s, fix16_t m, fix16_t ix, fix16_t iy, fix16_t iz, qp_mass_data *out)
{
    qp_mat3 local = qp_mat3_diag(ix, iy, iz);
    qp_rot3 rot = qp_quat_to_rot3(s->rotation);
    out->mass = m;
    out->center = s->offset;
    out->inertia = qp_mat3_rotate(&rot, &local);
}

qp_result qp__hull_shape_mass(const qp_shape *s, const qp_vec3 *p, int n, const qp_hull *built, fix16_t density,
                              qp_mass_data *out)
{
    /* The volume first, then a full tensor for that mass (qp__hull_mass_data). */
    uint64_t v = 0;
    bool ovf = false;
    fix16_t fm;
    if (!qp__hull_volume_q46(p, n, built, 0, &v)) return QP_ERR_RANGE;
    if (!to_fix(mulshr(v, (uint64_t)density, 16, &ovf), &fm) || ovf || fm == 0) return QP_ERR_RANGE;
    qp__hull_mass_data(p, n, built, s, fm, out);
    return QP_OK;
}

qp_result qp_shape_mass(const qp_shape *s, fix16_t density, qp_mass_data *out)
{
    if (!s || !out || s->type == QP_SHAPE_PLANE || qp_shape_is_level(s->type) || density <= 0) return QP_ERR_PARAM;
    qp_result res = qp_shape_validate(s);
    if (res != QP_OK) return res;
    if (s->type == QP_SHAPE_HULL) return qp__hull_shape_mass(s, s->hull->verts, s->hull->vert_count, s->hull, density, out);
    uint64_t mo[4];
    fix16_t fm, fx, fy, fz;
    if (!qp__shape_moments(s, (uint64_t)density, mo) || !to_fix(mo[0], &fm) || !to_fix(mo[1], &fx) ||
        !to_fix(mo[2], &fy) || !to_fix(mo[3], &fz))
        return QP_ERR_RANGE;
    if (fm == 0) return QP_ERR_RANGE;   /* too light to represent */
    qp__shape_mass_data(s, fm, fx, fy, fz, out);
    return QP_OK;
}

/* ---- results ---------------------------------------------------------------------- */

const char *qp_result_str(qp_result r)
{
    switch (r) {
    case QP_OK: return "ok";
    case QP_ERR_PARAM: return "malformed parameter";
    case QP_ERR_RANGE: return "value out of range";
    case QP_ERR_FULL: return "pool full";
    case QP_ERR_INVALID_ID: return "invalid id";
    case QP_ERR_BUFFER: return "buffer too small";
    case QP_ERR_PARSE: return "parse error";
    case QP_ERR_CONFIG: return "compiled with another layout than the library (QP_CFG_*)";
    default: return "unknown result";
    }
}
