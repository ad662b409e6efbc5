/* SPDX-License-Identifier: MIT */
/* bench/peers/ode_bench.c - the named scenes of docs/design.md §9 in ODE, for the side-by-side table.
 *
 * ODE (Debian libode-dev, double precision) with dWorldQuickStep: 10 iterations, 1/60 s,
 * gravity (0, -10, 0); unit boxes of 1 kg (dMassSetBoxTotal); ground dCreatePlane y = 0;
 * a hash space; up to 4 contact points per touching pair (as qphys' manifolds); contact
 * surface: dContactApprox1 so that mu = 0.5 is a Coulomb coefficient (friction pyramid),
 * no bounce, no soft ERP/CFM of its own. Everything else is ODE's default (ERP 0.2, CFM 1e-5,
 * no surface layer). Sleep on = ODE's auto-disable with its default thresholds.
 *
 *   ode_bench [--steps N] [--repeat R] [--scene NAME]...
 */
#define _POSIX_C_SOURCE 200809L
#include <ode/ode.h>

#include "peer_common.h"

#define MAX_POINTS 4

static dWorldID world;
static dSpaceID space;
static dJointGroupID contacts;
static dBodyID bodies[600];
static int body_count;
static int step_pairs, step_points;

static void near_callback(void *data, dGeomID o1, dGeomID o2)
{
    (void)data;
    dBodyID b1 = dGeomGetBody(o1), b2 = dGeomGetBody(o2);
    if (b1 && b2 && !dBodyIsEnabled(b1) && !dBodyIsEnabled(b2)) return;
    dContact c[MAX_POINTS];
    int n = dCollide(o1, o2, MAX_POINTS, &c[0].geom, sizeof(dContact));
    if (n <= 0) return;
    step_pairs++;
    for (int i = 0; i < n; i++) {
        c[i].surface.mode = dContactApprox1;
        c[i].surface.mu = 0.5;
        c[i].surface.bounce = 0.0;
        dJointID j = dJointCreateContact(world, contacts, &c[i]);
        dJointAttach(j, b1, b2);
        step_points++;
    }
}

static void build(int s, int sleep)
{
    dRandSetSeed(0); /* QuickStep reorders constraints at random: the same order every run */
    world = dWorldCreate();
    space = dHashSpaceCreate(0);
    contacts = dJointGroupCreate(0);
    dWorldSetGravity(world, 0, -10, 0);
    dWorldSetQuickStepNumIterations(world, 10);
    dWorldSetAutoDisableFlag(world, sleep ? 1 : 0);
    dCreatePlane(space, 0, 1, 0, 0);
    body_count = peer_scene_counts[s];
    for (int n = 0; n < body_count; n++) {
        double p[3], ax[3], ang;
        peer_scene_pose(s, n, p, ax, &ang);
        dBodyID b = dBodyCreate(world);
        dMass m;
        dMassSetBoxTotal(&m, 1.0, 1.0, 1.0, 1.0);
        dBodySetMass(b, &m);
        dBodySetPosition(b, p[0], p[1], p[2]);
        dQuaternion q;
        dQFromAxisAndAngle(q, ax[0], ax[1], ax[2], ang);
        dBodySetQuaternion(b, q);
        dGeomID g = dCreateBox(space, 1.0, 1.0, 1.0);
        dGeomSetBody(g, b);
        bodies[n] = b;
    }
}

static void step(void)
{
    step_pairs = step_points = 0;
    dSpaceCollide(space, 0, near_callback);
    dWorldQuickStep(world, 1.0 / 60.0);
    dJointGroupEmpty(contacts);
}

static void position(int n, double p[3])
{
    const dReal *x = dBodyGetPosition(bodies[n]);
    p[0] = x[0];
    p[1] = x[1];
    p[2] = x[2];
}

static int asleep(void)
{
    int k = 0;
    for (int n = 0; n < body_count; n++) k += !dBodyIsEnabled(bodies[n]);
    return k;
}

static void counts(int *pairs, int *points)
{
    *pairs = step_pairs;
    *points = step_points;
}

static void destroy(void)
{
    dJointGroupDestroy(contacts);
    dSpaceDestroy(space); /* destroys its geoms (cleanup mode on by default) */
    dWorldDestroy(world); /* and the bodies */
}

int main(int argc, char **argv)
{
    dInitODE2(0);
    static const peer_ops ops = { "ode", 1, build, step, position, asleep, counts, destroy };
    int rc = peer_main(&ops, argc, argv);
    dCloseODE();
    return rc;
}
