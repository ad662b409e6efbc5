/* bench/peers/bullet_bench.cpp - the named scenes of docs/design.md §9 in Bullet, for the side-by-side table.
 *
 * Bullet (Debian libbullet-dev, single precision): btDiscreteDynamicsWorld with
 * btDbvtBroadphase, btCollisionDispatcher and btSequentialImpulseConstraintSolver,
 * 10 solver iterations, exactly one internal step of 1/60 s per step
 * (stepSimulation(1/60, 0)), gravity (0, -10, 0); unit boxes btBoxShape(0.5) of 1 kg
 * (default collision margin 0.04, inside the box); ground btStaticPlaneShape y = 0;
 * restitution 0. Bullet combines the friction of two bodies as their product, so each
 * body gets sqrt(0.5): every touching pair then has friction 0.5, as in qphys.
 * Sleep off = DISABLE_DEACTIVATION on every box; sleep on = Bullet's default deactivation
 * (0.8 m/s, 1 rad/s, 2 s).
 *
 *   bullet_bench [--steps N] [--repeat R] [--scene NAME]...
 */
#include <btBulletDynamicsCommon.h>

#include "peer_common.h"

namespace {

btDefaultCollisionConfiguration *config;
btCollisionDispatcher *dispatcher;
btBroadphaseInterface *broadphase;
btSequentialImpulseConstraintSolver *solver;
btDiscreteDynamicsWorld *world;
btCollisionShape *box_shape;
btCollisionShape *ground_shape;
btRigidBody *ground;
btRigidBody *bodies[600];
int body_count;
const btScalar pair_friction = btScalar(0.5);

btRigidBody *make_body(btCollisionShape *shape, btScalar mass, const btTransform &t)
{
    btVector3 inertia(0, 0, 0);
    if (mass > 0) shape->calculateLocalInertia(mass, inertia);
    btDefaultMotionState *ms = new btDefaultMotionState(t);
    btRigidBody::btRigidBodyConstructionInfo info(mass, ms, shape, inertia);
    info.m_friction = btSqrt(pair_friction);
    info.m_restitution = 0;
    return new btRigidBody(info);
}

void build(int s, int sleep)
{
    config = new btDefaultCollisionConfiguration();
    dispatcher = new btCollisionDispatcher(config);
    broadphase = new btDbvtBroadphase();
    solver = new btSequentialImpulseConstraintSolver();
    world = new btDiscreteDynamicsWorld(dispatcher, broadphase, solver, config);
    world->setGravity(btVector3(0, -10, 0));
    world->getSolverInfo().m_numIterations = 10;

    ground_shape = new btStaticPlaneShape(btVector3(0, 1, 0), 0);
    btTransform t;
    t.setIdentity();
    ground = make_body(ground_shape, 0, t);
    world->addRigidBody(ground);

    box_shape = new btBoxShape(btVector3(0.5, 0.5, 0.5));
    body_count = peer_scene_counts[s];
    for (int n = 0; n < body_count; n++) {
        double p[3], ax[3], ang;
        peer_scene_pose(s, n, p, ax, &ang);
        t.setIdentity();
        t.setOrigin(btVector3(btScalar(p[0]), btScalar(p[1]), btScalar(p[2])));
        t.setRotation(btQuaternion(btVector3(btScalar(ax[0]), btScalar(ax[1]), btScalar(ax[2])), btScalar(ang)));
        btRigidBody *b = make_body(box_shape, 1, t);
        if (!sleep) b->setActivationState(DISABLE_DEACTIVATION);
        world->addRigidBody(b);
        bodies[n] = b;
    }
}

void step()
{
    world->stepSimulation(btScalar(1.0 / 60.0), 0);
}

void position(int n, double p[3])
{
    const btVector3 &x = bodies[n]->getCenterOfMassPosition();
    p[0] = x.x();
    p[1] = x.y();
    p[2] = x.z();
}

int asleep()
{
    int k = 0;
    for (int n = 0; n < body_count; n++) k += bodies[n]->getActivationState() == ISLAND_SLEEPING;
    return k;
}

void counts(int *pairs, int *points)
{
    int m = dispatcher->getNumManifolds(), pa = 0, po = 0;
    for (int i = 0; i < m; i++) {
        int c = dispatcher->getManifoldByIndexInternal(i)->getNumContacts();
        if (c > 0) { pa++; po += c; }
    }
    *pairs = pa;
    *points = po;
}

void destroy()
{
    for (int i = world->getNumCollisionObjects() - 1; i >= 0; i--) {
        btCollisionObject *o = world->getCollisionObjectArray()[i];
        btRigidBody *b = btRigidBody::upcast(o);
        if (b && b->getMotionState()) delete b->getMotionState();
        world->removeCollisionObject(o);
        delete o;
    }
    delete box_shape;
    delete ground_shape;
    delete world;
    delete solver;
    delete broadphase;
    delete dispatcher;
    delete config;
}

} // namespace

int main(int argc, char **argv)
{
    static const peer_ops ops = { "bullet", 1, build, step, position, asleep, counts, destroy };
    return peer_main(&ops, argc, argv);
}
