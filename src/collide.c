/* SPDX-License-Identifier: MIT */
/* qp_collide: the narrow-phase dispatch table.
 *
 * The pair functions take the lower shape type as A. For a pair given the
 * other way round, the canonical function runs with the shapes swapped and
 * the inverse pose, and its manifold (in b's frame, normal from b to a) is
 * mapped back: points through b_in_a, normal rotated and negated.
 */
#include "qphys/collide.h"
#include "geometry.h"
#include "level.h"

typedef int (*collide_fn)(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a,
                          fix16_t margin, qp_manifold *m);

/* [a][b] for a <= b; plane-plane has no function (two static half-spaces). */
static const collide_fn pair_table[QP_SHAPE_TYPE_COUNT][QP_SHAPE_TYPE_COUNT] = {
    [QP_SHAPE_PLANE] = { [QP_SHAPE_SPHERE] = qp_collide_plane_sphere,
                         [QP_SHAPE_CAPSULE] = qp_collide_plane_capsule,
                         [QP_SHAPE_BOX] = qp_collide_plane_box,
                         [QP_SHAPE_HULL] = qp_collide_plane_hull },
    [QP_SHAPE_SPHERE] = { [QP_SHAPE_SPHERE] = qp_collide_sphere_sphere,
                          [QP_SHAPE_CAPSULE] = qp_collide_sphere_capsule,
                          [QP_SHAPE_BOX] = qp_collide_sphere_box,
                          [QP_SHAPE_HULL] = qp_collide_sphere_hull },
    [QP_SHAPE_CAPSULE] = { [QP_SHAPE_CAPSULE] = qp_collide_capsule_capsule,
                           [QP_SHAPE_BOX] = qp_collide_capsule_box,
                           [QP_SHAPE_HULL] = qp_collide_capsule_hull },
    [QP_SHAPE_BOX] = { [QP_SHAPE_BOX] = qp_collide_box_box,
                       [QP_SHAPE_HULL] = qp_collide_box_hull },
    [QP_SHAPE_HULL] = { [QP_SHAPE_HULL] = qp_collide_hull_hull },
};

static bool type_ok(qp_shape_type t)
{
    /* Unsigned compare: enums are one byte on arm-none-eabi (short enums). */
    return (unsigned)t < (unsigned)QP_SHAPE_TYPE_COUNT;
}

/* A pair given higher type first: collide it the other way round and bring
 * the result back to a's frame. Not inlined, so that its temporaries are not
 * on the stack under the collide functions of the direct path. */
static QP__NOINLINE int collide_swapped(collide_fn fn, const qp_shape *a, const qp_shape *b,
                                        const qp_transform *b_in_a, fix16_t margin, qp_manifold *m)
{
    qp_transform a_in_b;
    a_in_b.r = qp_rot3_transpose(&b_in_a->r);
    a_in_b.p = qp_v3_neg(qp_rot3_mul_v3(&a_in_b.r, b_in_a->p));
    qp_manifold mb;
    int n = fn(b, a, &a_in_b, margin, &mb);
    m->normal = qp_v3_neg(qp__rot_q30(&b_in_a->r, mb.normal));
    for (int i = 0; i < n; i++) {
        m->points[i] = mb.points[i];
        m->points[i].point = qp_transform_point(b_in_a, mb.points[i].point);
    }
    m->count = n;
    return n;
}

int qp_collide(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, fix16_t margin,
               qp_manifold *m)
{
    /* The functions with a box clear their manifold first themselves (they are
     * public): a pair that goes straight to one is not cleared twice. */
    if (type_ok(a->type) && a->type <= b->type && b->type == QP_SHAPE_BOX)
        return pair_table[a->type][b->type](a, b, b_in_a, margin, m);
    /* Every byte defined, unused points included (manifolds may be hashed). */
    unsigned char *bytes = (unsigned char *)m;
    for (unsigned i = 0; i < sizeof *m; i++) bytes[i] = 0;
    if (!type_ok(a->type) || !type_ok(b->type)) return 0;
    /* Level shapes (static meshes, heightfields) take the other shape as it is. */
    if (qp_shape_is_level(a->type)) return qp_shape_is_level(b->type) ? 0 : qp__collide_level(a, b, b_in_a, margin, m);
    if (qp_shape_is_level(b->type)) return collide_swapped(qp__collide_level, a, b, b_in_a, margin, m);
    if (a->type <= b->type) {
        collide_fn fn = pair_table[a->type][b->type];
        return fn ? fn(a, b, b_in_a, margin, m) : 0;
    }
    collide_fn fn = pair_table[b->type][a->type];
    return fn ? collide_swapped(fn, a, b, b_in_a, margin, m) : 0;
}
