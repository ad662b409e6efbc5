/* SPDX-License-Identifier: MIT */
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
 *   bullet_bench --file SCENE [--steps N] [--ccd] [--time [--repeat R] [--from F]]
 *
 * --file: the fidelity table's side (bench/fidelity.sh): SCENE (docs/scene-format.md) read by
 * qphys's own scene reader (bench/fidelity_scene.h), built in Bullet, stepped N times
 * (default 600) at the file's hz and iterations, and traced in the format qphys's tracer
 * (bench/fidelity_qphys.c) prints. Bullet's defaults otherwise (split impulse, ERP, no CCD,
 * restitution threshold 0.2 m/s), but pairs combine their materials as qphys does:
 * friction sqrt(a b), restitution max(a, b). sleep off = DISABLE_DEACTIVATION on every
 * body; sleep on = Bullet's own deactivation (0.8 m/s, 1 rad/s for 2 s: not qphys's rule).
 * --ccd: Bullet's opt-in continuous collision on every dynamic body, set as its CCD demo does:
 * motion threshold = the shape's smallest half size, swept sphere radius = 0.9 of it.
 * --time: no trace; the N steps are timed R times (default 2) from a fresh world, each step
 * keeping its fastest run, and one line printed, as qphys's bench_window prints its own:
 *   bullet-file scene=.. steps=.. repeat=.. step_median=.. step_p99=.. step_mean=..
 * --from F: the figures are those of steps F..N only (the earlier ones still run), as
 * bench_window's FROM (the scaling table times a pile once it has formed).
 */
#include <btBulletDynamicsCommon.h>

#include "peer_common.h"
#include "fidelity_scene.h"

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

// The world's bodies and then the world itself (not the shapes, which the caller owns).
void delete_world()
{
    for (int i = world->getNumCollisionObjects() - 1; i >= 0; i--) {
        btCollisionObject *o = world->getCollisionObjectArray()[i];
        btRigidBody *b = btRigidBody::upcast(o);
        if (b && b->getMotionState()) delete b->getMotionState();
        world->removeCollisionObject(o);
        delete o;
    }
    delete world;
    delete solver;
    delete broadphase;
    delete dispatcher;
    delete config;
}

void destroy()
{
    delete_world();
    delete box_shape;
    delete ground_shape;
}

// ---- a scene file, for the fidelity table ---------------------------------------------

fid_scene scene;
btRigidBody *file_bodies[FID_MAX_BODIES];
bool file_ccd;
btCollisionShape *file_shapes[FID_MAX_BODIES];

btScalar qphys_friction(const btCollisionObject *a, const btCollisionObject *b)
{
    return btSqrt(a->getFriction() * b->getFriction());
}

btScalar qphys_restitution(const btCollisionObject *a, const btCollisionObject *b)
{
    return btMax(a->getRestitution(), b->getRestitution());
}

void build_file(void)
{
    gCalculateCombinedFrictionCallback = qphys_friction;
    gCalculateCombinedRestitutionCallback = qphys_restitution;
    config = new btDefaultCollisionConfiguration();
    dispatcher = new btCollisionDispatcher(config);
    broadphase = new btDbvtBroadphase();
    solver = new btSequentialImpulseConstraintSolver();
    world = new btDiscreteDynamicsWorld(dispatcher, broadphase, solver, config);
    world->setGravity(btVector3(btScalar(scene.gravity[0]), btScalar(scene.gravity[1]), btScalar(scene.gravity[2])));
    world->getSolverInfo().m_numIterations = scene.iterations;
    for (int i = 0; i < scene.count; i++) {
        const fid_body &d = scene.body[i];
        btCollisionShape *shape;
        if (d.shape == QP_SHAPE_BOX)
            shape = new btBoxShape(btVector3(btScalar(d.size[0]), btScalar(d.size[1]), btScalar(d.size[2])));
        else if (d.shape == QP_SHAPE_SPHERE)
            shape = new btSphereShape(btScalar(d.size[0]));
        else if (d.shape == QP_SHAPE_CAPSULE)
            shape = new btCapsuleShape(btScalar(d.size[0]), btScalar(2 * d.size[1]));
        else
            shape = new btStaticPlaneShape(btVector3(btScalar(d.size[0]), btScalar(d.size[1]), btScalar(d.size[2])),
                                           btScalar(d.size[3]));
        file_shapes[i] = shape;
        btTransform t;
        t.setIdentity();
        t.setOrigin(btVector3(btScalar(d.pos[0]), btScalar(d.pos[1]), btScalar(d.pos[2])));
        t.setRotation(btQuaternion(btScalar(d.quat[1]), btScalar(d.quat[2]), btScalar(d.quat[3]), btScalar(d.quat[0])));
        btScalar mass = d.type == QP_BODY_DYNAMIC ? btScalar(d.mass) : btScalar(0);
        btVector3 inertia(0, 0, 0);
        if (mass > 0) shape->calculateLocalInertia(mass, inertia);
        btRigidBody::btRigidBodyConstructionInfo info(mass, new btDefaultMotionState(t), shape, inertia);
        info.m_friction = btScalar(d.friction);
        info.m_restitution = btScalar(d.restitution);
        btRigidBody *b = new btRigidBody(info);
        if (d.type == QP_BODY_KINEMATIC) b->setCollisionFlags(b->getCollisionFlags() | btCollisionObject::CF_KINEMATIC_OBJECT);
        if (d.type != QP_BODY_STATIC) {
            b->setLinearVelocity(btVector3(btScalar(d.vel[0]), btScalar(d.vel[1]), btScalar(d.vel[2])));
            b->setAngularVelocity(btVector3(btScalar(d.spin[0]), btScalar(d.spin[1]), btScalar(d.spin[2])));
        }
        if (file_ccd && d.type == QP_BODY_DYNAMIC) {
            double r = d.size[0];
            if (d.shape == QP_SHAPE_BOX) r = btMin(d.size[0], btMin(d.size[1], d.size[2]));
            b->setCcdMotionThreshold(btScalar(r));
            b->setCcdSweptSphereRadius(btScalar(0.9 * r));
        }
        if (d.type == QP_BODY_KINEMATIC || !scene.sleep) b->setActivationState(DISABLE_DEACTIVATION);
        else if (d.asleep) b->setActivationState(ISLAND_SLEEPING);
        world->addRigidBody(b);
        file_bodies[i] = b;
    }
}

// Kinematic bodies move with their velocities: Bullet reads their pose from the motion state.
void move_kinematic(btScalar dt)
{
    for (int i = 0; i < scene.count; i++) {
        if (scene.body[i].type != QP_BODY_KINEMATIC) continue;
        btRigidBody *b = file_bodies[i];
        btTransform t;
        btTransformUtil::integrateTransform(b->getWorldTransform(), b->getLinearVelocity(), b->getAngularVelocity(), dt, t);
        b->getMotionState()->setWorldTransform(t);
    }
}

void trace_file(long step)
{
    for (int i = 0; i < scene.count; i++) {
        const btRigidBody *b = file_bodies[i];
        const btVector3 &x = b->getCenterOfMassPosition(), &v = b->getLinearVelocity(), &w = b->getAngularVelocity();
        btQuaternion q = b->getOrientation();
        double p[3] = { x.x(), x.y(), x.z() }, qd[4] = { q.w(), q.x(), q.y(), q.z() };
        double vd[3] = { v.x(), v.y(), v.z() }, wd[3] = { w.x(), w.y(), w.z() };
        int sleeping = scene.body[i].type == QP_BODY_DYNAMIC && b->getActivationState() == ISLAND_SLEEPING;
        fid_print_body(step, i, p, qd, vd, wd, sleeping, 0u);
    }
}

// The file's world torn down, its shapes with it (the timed runs build it again).
void destroy_file()
{
    delete_world();
    for (int i = 0; i < scene.count; i++) delete file_shapes[i];
}

// --time: the median and 99th percentile step of `repeat` runs, each step its fastest, over
// steps from..steps (1-based).
int time_file(const char *path, long steps, int repeat, long from)
{
    btScalar dt = btScalar(1.0 / scene.hz);
    for (int r = 0; r < repeat; r++) {
        build_file();
        for (long s = 0; s < steps; s++) {
            double t0 = bench_now_us();
            move_kinematic(dt);
            world->stepSimulation(dt, 0);
            bench_keep_min(&peer_step_us[s], bench_now_us() - t0, r);
        }
        destroy_file();
    }
    const double *kept = peer_step_us + (from - 1);
    const int n = (int)(steps - from + 1);
    double sum = 0.0;
    for (int s = 0; s < n; s++) sum += kept[s];
    printf("bullet-file scene=%s steps=%ld repeat=%d step_median=%.1f step_p99=%.1f step_mean=%.1f\n", path, steps, repeat,
           peer_median(kept, n), bench_quantile(kept, n, 0.99, peer_sort_tmp), n > 0 ? sum / (double)n : 0.0);
    return 0;
}

int file_main(int argc, char **argv)
{
    const char *path = NULL;
    long steps = 600, from = 1;
    bool timed = false;
    int repeat = 2;
    const char *usage = "usage: bullet_bench --file SCENE [--steps N] [--ccd] [--time [--repeat R] [--from F]]\n";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--file") && i + 1 < argc) path = argv[++i];
        else if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = atol(argv[++i]);
        else if (!strcmp(argv[i], "--ccd")) file_ccd = true;
        else if (!strcmp(argv[i], "--time")) timed = true;
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--from") && i + 1 < argc) from = atol(argv[++i]);
        else { fputs(usage, stderr); return 2; }
    }
    if (!path || steps < 0 || steps > 1000000 || repeat < 1 || repeat > 100 || (timed && steps > PEER_MAX_STEPS) ||
        from < 1 || (timed && from > steps)) {
        fputs(usage, stderr);
        return 2;
    }
    unsigned long len = 0;
    char *text = fid_slurp(path, &len);
    if (!text || fid_read(path, text, len, &scene) != 0) return 2;
    free(text);
    if (timed) return time_file(path, steps, repeat, from);
    build_file();
    fid_print_header(&scene);
    trace_file(0);
    btScalar dt = btScalar(1.0 / scene.hz);
    for (long s = 1; s <= steps; s++) {
        move_kinematic(dt);
        world->stepSimulation(dt, 0);
        trace_file(s);
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--file")) return file_main(argc, argv);
    static const peer_ops ops = { "bullet", 1, build, step, position, asleep, counts, destroy };
    return peer_main(&ops, argc, argv);
}
