/* SPDX-License-Identifier: MIT */
/* bench/landings.h - how far a unit cube's deepest corner lies in the ground whose top face is
 * y = 0 (bench/bench_landings.c, tests/unit/test_impacts.c). */
#ifndef QPHYS_BENCH_LANDINGS_H
#define QPHYS_BENCH_LANDINGS_H

#include <math.h>

#include "qphys/qphys.h"

/* The depth below y = 0 of the deepest corner of the unit cube `id` among its corners over the
 * top face (|x|, |z| < half) and no deeper than deep (below that lies open space, as under a
 * block), m; -1 when no corner is there. */
static inline double landing_corner_depth(const qp_world *w, qp_body_id id, double half, double deep)
{
    const qp_quat q = qp_body_rotation(w, id);
    const double qw = q.w / 1073741824.0, x = q.x / 1073741824.0, y = q.y / 1073741824.0, z = q.z / 1073741824.0;
    const double r[3][3] = { { 1 - 2 * (y * y + z * z), 2 * (x * y - qw * z), 2 * (x * z + qw * y) },
                             { 2 * (x * y + qw * z), 1 - 2 * (x * x + z * z), 2 * (y * z - qw * x) },
                             { 2 * (x * z - qw * y), 2 * (y * z + qw * x), 1 - 2 * (x * x + y * y) } };
    const qp_vec3 p = qp_body_position(w, id);
    const double c[3] = { p.x / 65536.0, p.y / 65536.0, p.z / 65536.0 };
    double deepest = -1;
    for (int k = 0; k < 8; k++) {
        const double l[3] = { k & 1 ? 0.5 : -0.5, k & 2 ? 0.5 : -0.5, k & 4 ? 0.5 : -0.5 };
        double g[3];
        for (int i = 0; i < 3; i++) g[i] = c[i] + r[i][0] * l[0] + r[i][1] * l[1] + r[i][2] * l[2];
        if (fabs(g[0]) < half && fabs(g[2]) < half && -g[1] <= deep && -g[1] > deepest) deepest = -g[1];
    }
    return deepest;
}

#endif
