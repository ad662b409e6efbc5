/* SPDX-License-Identifier: MIT */
/* Ray casts against single shapes.
 *
 * The ray is taken into the shape's frame and measured in metres along its
 * unit direction u = delta/|delta| (Q2.30): a hit is found at a distance in
 * [0, |delta|] and the fraction is distance/|delta| at the end. Distances in
 * metres keep the hit point to a few LSB on long rays, where a Q16.16
 * fraction alone would only place it to |delta| * 2^-16.
 *   sphere: closest approach, then back by the half chord (Box2D style);
 *   capsule: the infinite cylinder's side (accepted within the segment) and
 *            the two end spheres, nearest first (the capsule is their union);
 *   box:    slabs, comparing entry distances as exact rationals num/|u_i|;
 *   plane:  the solid side n.p <= offset.
 * An origin strictly inside a shape gives no hit; an origin on the surface
 * moving inwards hits at fraction 0.
 */
#include "qphys/collide.h"
#include "geometry.h"
#include "qphys/mesh.h"
#include "hull.h"

#define Q30_ONE64 ((int64_t)1 << 30)

/* First entry of the ray o + u d into a sphere at the origin, d in [0, max].
 * The origin of the ray must not be strictly inside. */
static bool ray_sphere(qp_vec3 o, qp_vec3 u, fix16_t r, fix16_t max, fix16_t *dist)
{
    int64_t r2 = (int64_t)r * r;
    if (qp_v3_len_sq_wide(o) < r2) return false;
    int64_t tc = -(int64_t)qp_v3_dot_q30(o, u);
    if (tc < 0 || tc - r > max || tc > INT32_MAX) return false;   /* behind, or beyond the end */
    qp_vec3 q = qp__v3_mad_q30(o, u, (fix16_t)tc);
    int64_t h2 = r2 - qp_v3_len_sq_wide(q);
    if (h2 < 0) return false;
    int64_t h = qp_isqrt64((uint64_t)h2);
    if ((uint64_t)h2 - (uint64_t)h * (uint64_t)h > (uint64_t)h) h++;   /* round */
    int64_t d = tc - h;
    if (d < 0) d = 0;
    if (d > max) return false;
    *dist = (fix16_t)d;
    return true;
}

static bool ray_plane(const qp_shape *s, qp_vec3 o, qp_vec3 u, fix16_t len, fix16_t *dist, qp_vec3 *n)
{
    int64_t d0 = (int64_t)qp_v3_dot_q30(o, s->normal) - s->plane_offset;
    if (d0 < 0) return false;
    int64_t cosv = -(((int64_t)u.x * s->normal.x + (int64_t)u.y * s->normal.y +
                      (int64_t)u.z * s->normal.z + (Q30_ONE64 >> 1)) >> 30);
    if (cosv <= 0) return false;
    if (d0 * Q30_ONE64 > (int64_t)len * cosv) return false;
    *dist = (fix16_t)qp__div_round64(d0 * Q30_ONE64, cosv);
    *n = s->normal;
    return true;
}

static bool ray_capsule(const qp_shape *s, qp_vec3 o, qp_vec3 u, fix16_t len, fix16_t *dist, qp_vec3 *n)
{
    fix16_t r = s->radius, hh = s->half_height;
    qp_vec3 axis_pt = qp_v3(0, qp__clamp(o.y, -hh, hh), 0);
    if (qp_v3_len_sq_wide(qp_v3_sub(o, axis_pt)) < (int64_t)r * r) return false;

    bool found = false;
    fix16_t best = 0, d;
    /* Side of the infinite cylinder, in the xz plane with the unit direction w. */
    qp_vec3 w, o2 = qp_v3(o.x, 0, o.z);
    if (qp_v3_normalize_q30(qp_v3(u.x, 0, u.z), &w)) {
        int64_t l2 = qp_isqrt64((uint64_t)((int64_t)u.x * u.x + (int64_t)u.z * u.z)); /* |u_xz|, Q30 */
        int64_t tc = -(int64_t)qp_v3_dot_q30(o2, w);
        /* (a planar distance beyond len cannot be a hit: also keeps tc in range) */
        if (tc >= 0 && tc - r <= len && tc <= INT32_MAX && l2 > 0) {
            qp_vec3 q = qp__v3_mad_q30(o2, w, (fix16_t)tc);
            int64_t h2 = (int64_t)r * r - qp_v3_len_sq_wide(q);
            if (h2 >= 0) {
                int64_t d2 = tc - (int64_t)qp_isqrt64((uint64_t)h2);
                if (d2 < 0) d2 = 0;
                /* 3D distance = planar distance / |u_xz| */
                if (d2 * Q30_ONE64 <= (int64_t)len * l2) {
                    d = (fix16_t)qp__div_round64(d2 * Q30_ONE64, l2);
                    int64_t y = (int64_t)o.y + qp_shift_round((int64_t)u.y * d, 30);
                    if (y >= -hh && y <= hh) {
                        found = true;
                        best = d;
                        qp_vec3 p = qp__v3_mad_q30(o, u, d);
                        qp__normal_or(qp_v3(p.x, 0, p.z), qp_v3_neg(w), n);
                    }
                }
            }
        }
    }
    /* End spheres. A sphere's hit with its point on the inner side of its
     * centre lies inside the cylinder: near the rim it ties with the side hit
     * to within rounding, and the side (whose normal is the right one) wins. */
    bool side = found;
    for (int e = 0; e < 2; e++) {
        qp_vec3 c = qp_v3(0, e == 0 ? -hh : hh, 0);
        qp_vec3 oc = qp_v3_sub(o, c);
        if (!ray_sphere(oc, u, r, len, &d) || (found && d >= best)) continue;
        qp_vec3 p = qp__v3_mad_q30(oc, u, d);
        if (side && (e == 0 ? p.y > 0 : p.y < 0)) continue;
        found = true;
        best = d;
        qp__normal_or(p, qp_v3_neg(u), n);
    }
    *dist = best;
    return found;
}

static bool ray_box(const qp_shape *s, qp_vec3 o, qp_vec3 u, fix16_t len, fix16_t *dist, qp_vec3 *p,
                    qp_vec3 *n)
{
    const fix16_t ov[3] = { o.x, o.y, o.z }, uv[3] = { u.x, u.y, u.z };
    const fix16_t hv[3] = { s->half.x, s->half.y, s->half.z };
    if (ov[0] > -hv[0] && ov[0] < hv[0] && ov[1] > -hv[1] && ov[1] < hv[1] && ov[2] > -hv[2] && ov[2] < hv[2])
        return false;
    /* Entry and exit distances as num/den with den = |u_i| > 0 (Q30), num Q16. */
    int64_t en = 0, ed = 1, xn = 0, xd = 0;   /* k < 0: no entry yet; xd == 0: no exit yet */
    int k = -1;
    for (int i = 0; i < 3; i++) {
        if (uv[i] == 0) {
            if (ov[i] < -hv[i] || ov[i] > hv[i]) return false;
            continue;
        }
        int64_t den = uv[i] < 0 ? -(int64_t)uv[i] : uv[i];
        int64_t so = uv[i] < 0 ? -(int64_t)ov[i] : ov[i];
        int64_t in = -(int64_t)hv[i] - so, out = (int64_t)hv[i] - so;
        if (k < 0 || in * ed > en * den) { en = in; ed = den; k = i; }
        if (xd == 0 || out * xd < xn * den) { xn = out; xd = den; }
    }
    /* en < 0: the origin is on the surface and leaving (strictly inside was excluded). */
    if (k < 0 || en < 0 || xn < 0 || en * xd > xn * ed) return false;
    if (en * Q30_ONE64 > (int64_t)len * ed) return false;
    fix16_t d = (fix16_t)qp__div_round64(en * Q30_ONE64, ed);
    fix16_t pv[3];
    for (int j = 0; j < 3; j++)
        pv[j] = qp__clamp(qp_sat32((int64_t)ov[j] + qp_shift_round((int64_t)uv[j] * d, 30)), -hv[j], hv[j]);
    pv[k] = uv[k] > 0 ? -hv[k] : hv[k];
    fix16_t nv[3] = { 0, 0, 0 };
    nv[k] = uv[k] > 0 ? -QP_Q30_ONE : QP_Q30_ONE;
    *dist = d;
    *p = qp_v3(pv[0], pv[1], pv[2]);
    *n = qp_v3(nv[0], nv[1], nv[2]);
    return true;
}

bool qp_raycast_shape(const qp_shape *s, const qp_transform *xf, qp_vec3 origin, qp_vec3 delta,
                      qp_ray_hit *hit)
{
    qp_vec3 o = qp_transform_point_inv(xf, origin);
    qp_vec3 u;
    if (!qp_v3_normalize_q30(qp_rot3_tmul_v3(&xf->r, delta), &u)) return false;
    fix16_t len = qp_v3_len(delta);
    fix16_t dist = 0;
    qp_vec3 n = qp_v3_zero(), p = qp_v3_zero();
    bool ok;
    switch (s->type) {
    case QP_SHAPE_PLANE:
        ok = ray_plane(s, o, u, len, &dist, &n);
        p = qp__v3_mad_q30(o, u, dist);
        break;
    case QP_SHAPE_SPHERE:
        ok = ray_sphere(o, u, s->radius, len, &dist);
        p = qp__v3_mad_q30(o, u, dist);
        if (ok) qp__normal_or(p, qp_v3_neg(u), &n);
        break;
    case QP_SHAPE_CAPSULE:
        ok = ray_capsule(s, o, u, len, &dist, &n);
        p = qp__v3_mad_q30(o, u, dist);
        break;
    case QP_SHAPE_BOX:
        ok = ray_box(s, o, u, len, &dist, &p, &n);
        break;
    case QP_SHAPE_MESH:
    case QP_SHAPE_HEIGHTFIELD: {
        uint32_t tri;
        ok = qp_level_raycast(s, o, u, len, &dist, &n, &tri);
        p = qp__v3_mad_q30(o, u, dist);
        break;
    }
    case QP_SHAPE_HULL:
        ok = qp__ray_hull(s->hull, o, u, len, &dist, &n);
        p = qp__v3_mad_q30(o, u, dist);
        break;
    default:
        return false;
    }
    if (!ok) return false;
    fix16_t f = qp_div(dist, len);
    hit->fraction = f > QP_ONE ? QP_ONE : f;
    hit->point = qp_transform_point(xf, p);
    hit->normal = qp__rot_q30(&xf->r, n);
    return true;
}
