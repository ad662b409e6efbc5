// SPDX-License-Identifier: MIT
// bench/peers/jolt_bench.cpp - Jolt Physics on the scene files qphys runs, for the side-by-side table of
// `make bench JOLT_SRC=DIR` (docs/benchmarks.md, "Jolt").
//
//   jolt_bench FILE [--steps N] [--time [--repeat R] [--from F]]
//
// Reads FILE with its own reader of the part of the scene format (docs/scene-format.md) that the
// benchmark scenes use: world (gravity, hz, iterations, sleep), plane (normal, offset, friction,
// restitution) and box, sphere and capsule with pos, rot, vel, spin, mass | density | static, friction,
// restitution. Anything else (joints, compounds, kinematic or asleep bodies, hulls, meshes, the world's
// gyroscopic and joint_tree options...) is refused with FILE:LINE:COLUMN, so a file never runs half
// understood.
//
// Jolt as a game would set it up on one thread: PhysicsSystem stepped by Update(1/hz, 1 collision
// step) with JobSystemSingleThreaded; velocity steps = the file's iterations (10 in every named scene),
// position steps = Jolt's default (2); gravity and materials from the file (Jolt combines frictions as
// sqrt(a b) and restitutions as max(a, b), as qphys does); boxes with Jolt's default convex radius
// (0.05 m, inside the box); no damping (qphys has none; Jolt's default would be 0.05); sleep as the file
// says (the benchmark gives copies with `sleep off`). A plane is Jolt's PlaneShape. Mass: the file's
// `mass` (inertia of the shape at that mass), `density`, or 1 kg as qphys gives a body with neither.
//
// Without --time: steps N times (default 300) and prints each dynamic body's centre, one line each
// ("body I X Y Z"), to check that Jolt built the scene the file describes. With --time: the N steps
// timed R times (default 2), each from a freshly built world, each step keeping its fastest run (as
// qphys's bench_window times its own), and one line:
//   jolt-file scene=.. steps=.. repeat=.. step_mean=.. step_median=.. step_p99=.. step_max=.. moved_max_cm=..
// (--from F: the step figures are those of steps F..N only, as bench_window's FROM)
// (microseconds; moved_max_cm: the largest distance any dynamic body moved from its start, last run).
#include <Jolt/Jolt.h>

#include <Jolt/Core/Factory.h>
#include <Jolt/Core/JobSystemSingleThreaded.h>
#include <Jolt/Core/TempAllocator.h>
#include <Jolt/Physics/Body/BodyCreationSettings.h>
#include <Jolt/Physics/Collision/Shape/BoxShape.h>
#include <Jolt/Physics/Collision/Shape/CapsuleShape.h>
#include <Jolt/Physics/Collision/Shape/PlaneShape.h>
#include <Jolt/Physics/Collision/Shape/SphereShape.h>
#include <Jolt/Physics/PhysicsSettings.h>
#include <Jolt/Physics/PhysicsSystem.h>
#include <Jolt/RegisterTypes.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../bench_clock.h"

namespace {

// ---- the scene file -------------------------------------------------------------------

enum class Kind { plane, box, sphere, capsule };

struct Item {
    Kind kind;
    double half[3] = { 0, 0, 0 };       // box
    double radius = 0, half_height = 0; // sphere, capsule
    double normal[3] = { 0, 1, 0 }, offset = 0;
    double pos[3] = { 0, 0, 0 }, axis[3] = { 0, 1, 0 }, degrees = 0;
    double vel[3] = { 0, 0, 0 }, spin[3] = { 0, 0, 0 };
    double mass = 0, density = 0; // 0: not given
    bool is_static = false;
    double friction = 0.5, restitution = 0;
};

struct Scene {
    double gravity[3] = { 0, -10, 0 };
    int hz = 60, iterations = 10;
    bool sleep = true;
    std::vector<Item> items;
};

struct Reader {
    const char *path;
    int line = 0;
    const char *text = nullptr; // the current line
    std::vector<std::pair<std::string, int>> tokens; // token, column (1-based)
    size_t at = 0;

    bool fail(int column, const std::string &message) const
    {
        std::fprintf(stderr, "%s:%d:%d: %s\n", path, line, column, message.c_str());
        return false;
    }
    int column() const { return at < tokens.size() ? tokens[at].second : (tokens.empty() ? 1 : tokens.back().second); }
    bool more() const { return at < tokens.size(); }
    const std::string &peek() const { return tokens[at].first; }

    // [+|-]DIGITS[.DIGITS], as the format writes numbers.
    bool number(double &out, const char *what)
    {
        if (!more()) return fail(column(), std::string("expected a number (") + what + ")");
        const std::string &t = peek();
        size_t i = (t[0] == '+' || t[0] == '-') ? 1 : 0, digits = 0, frac = 0;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9') { i++; digits++; }
        if (i < t.size() && t[i] == '.') {
            i++;
            while (i < t.size() && t[i] >= '0' && t[i] <= '9') { i++; frac++; }
            if (frac == 0) digits = 0;
        }
        if (digits == 0 || i != t.size()) return fail(column(), "bad number '" + t + "' (" + what + ")");
        out = std::strtod(t.c_str(), nullptr);
        at++;
        return true;
    }
    bool numbers(double *out, int n, const char *what)
    {
        for (int k = 0; k < n; k++)
            if (!number(out[k], what)) return false;
        return true;
    }
    bool integer(int &out, int lo, int hi, const char *what)
    {
        int col = column();
        double v;
        if (!number(v, what)) return false;
        if (v != std::floor(v) || v < lo || v > hi)
            return fail(col, std::string(what) + " must be a whole number " + std::to_string(lo) + ".." + std::to_string(hi));
        out = (int)v;
        return true;
    }
    bool word(const char *expected)
    {
        if (!more() || peek() != expected) return fail(column(), std::string("expected '") + expected + "'");
        at++;
        return true;
    }
};

// Splits a line into tokens (spaces, tabs, a CR), up to a '#'.
void split(Reader &r, const char *s, size_t n)
{
    r.tokens.clear();
    r.at = 0;
    size_t i = 0;
    while (i < n && s[i] != '#') {
        if (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') { i++; continue; }
        size_t b = i;
        while (i < n && s[i] != '#' && s[i] != ' ' && s[i] != '\t' && s[i] != '\r') i++;
        r.tokens.emplace_back(std::string(s + b, i - b), (int)b + 1);
    }
}

bool positive(Reader &r, int col, double v, const char *what)
{
    return v > 0 ? true : r.fail(col, std::string(what) + " must be positive");
}

bool read_world(Reader &r, Scene &sc)
{
    std::vector<std::string> seen;
    while (r.more()) {
        std::string opt = r.peek();
        int col = r.column();
        for (const std::string &s : seen)
            if (s == opt) return r.fail(col, "'" + opt + "' given twice");
        seen.push_back(opt);
        r.at++;
        if (opt == "gravity") {
            if (!r.numbers(sc.gravity, 3, "gravity")) return false;
        } else if (opt == "hz") {
            if (!r.integer(sc.hz, 10, 1000, "hz")) return false;
        } else if (opt == "iterations") {
            if (!r.integer(sc.iterations, 1, 100, "iterations")) return false;
        } else if (opt == "sleep" || opt == "gyroscopic" || opt == "joint_tree") {
            if (!r.more() || (r.peek() != "on" && r.peek() != "off")) return r.fail(r.column(), "expected on or off");
            bool on = r.peek() == "on";
            if (opt == "sleep") sc.sleep = on;
            else if (on) return r.fail(r.column(), "this reader does not know world " + opt + " on");
            r.at++;
        } else {
            return r.fail(col, "unknown world option '" + opt + "'");
        }
    }
    return true;
}

bool read_plane(Reader &r, Item &it)
{
    std::vector<std::string> seen;
    while (r.more()) {
        std::string opt = r.peek();
        int col = r.column();
        for (const std::string &s : seen)
            if (s == opt) return r.fail(col, "'" + opt + "' given twice");
        seen.push_back(opt);
        r.at++;
        if (opt == "normal") {
            if (!r.numbers(it.normal, 3, "normal")) return false;
            if (it.normal[0] == 0 && it.normal[1] == 0 && it.normal[2] == 0) return r.fail(col, "the normal is zero");
        } else if (opt == "offset") {
            if (!r.number(it.offset, "offset")) return false;
        } else if (opt == "friction") {
            if (!r.number(it.friction, "friction")) return false;
        } else if (opt == "restitution") {
            if (!r.number(it.restitution, "restitution")) return false;
        } else {
            return r.fail(col, "unknown plane option '" + opt + "'");
        }
    }
    return true;
}

// box / sphere / capsule: the size, then pos and the OPTIONS this reader knows.
bool read_body(Reader &r, Item &it)
{
    int col = r.column();
    if (it.kind == Kind::box) {
        if (!r.word("half") || !r.numbers(it.half, 3, "half")) return false;
        for (double h : it.half)
            if (!positive(r, col, h, "half extents")) return false;
    } else if (it.kind == Kind::sphere) {
        if (!r.word("radius") || !r.number(it.radius, "radius") || !positive(r, col, it.radius, "radius")) return false;
    } else {
        if (!r.word("radius") || !r.number(it.radius, "radius") || !positive(r, col, it.radius, "radius")) return false;
        col = r.column();
        if (!r.word("half_height") || !r.number(it.half_height, "half_height") ||
            !positive(r, col, it.half_height, "half_height"))
            return false;
    }
    bool have_pos = false;
    std::vector<std::string> seen;
    while (r.more()) {
        std::string opt = r.peek();
        col = r.column();
        for (const std::string &s : seen)
            if (s == opt) return r.fail(col, "'" + opt + "' given twice");
        seen.push_back(opt);
        r.at++;
        if (opt == "pos") {
            if (!r.numbers(it.pos, 3, "pos")) return false;
            have_pos = true;
        } else if (opt == "rot") {
            if (!r.numbers(it.axis, 3, "rot axis") || !r.number(it.degrees, "rot degrees")) return false;
            if (it.axis[0] == 0 && it.axis[1] == 0 && it.axis[2] == 0) return r.fail(col, "the rotation axis is zero");
        } else if (opt == "vel") {
            if (!r.numbers(it.vel, 3, "vel")) return false;
        } else if (opt == "spin") {
            if (!r.numbers(it.spin, 3, "spin")) return false;
        } else if (opt == "mass") {
            if (!r.number(it.mass, "mass") || !positive(r, col, it.mass, "mass")) return false;
        } else if (opt == "density") {
            if (!r.number(it.density, "density") || !positive(r, col, it.density, "density")) return false;
        } else if (opt == "static") {
            it.is_static = true;
        } else if (opt == "friction") {
            if (!r.number(it.friction, "friction")) return false;
        } else if (opt == "restitution") {
            if (!r.number(it.restitution, "restitution")) return false;
        } else {
            return r.fail(col, "this reader does not know the option '" + opt + "'");
        }
    }
    if (!have_pos) return r.fail(r.column(), "pos is required");
    int exclusive = (it.mass > 0) + (it.density > 0) + it.is_static;
    if (exclusive > 1) return r.fail(1, "mass, density and static exclude each other");
    if (it.is_static && (it.vel[0] != 0 || it.vel[1] != 0 || it.vel[2] != 0 || it.spin[0] != 0 || it.spin[1] != 0 ||
                         it.spin[2] != 0))
        return r.fail(1, "a static body has no vel or spin");
    return true;
}

bool read_scene(const char *path, Scene &sc)
{
    FILE *f = std::fopen(path, "rb");
    if (!f) {
        std::fprintf(stderr, "%s: cannot open it\n", path);
        return false;
    }
    std::string text;
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    std::fclose(f);
    Reader r;
    r.path = path;
    bool have_world = false;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        r.line++;
        split(r, text.data() + start, end - start);
        start = end + 1;
        if (!r.more()) continue;
        std::string key = r.peek();
        r.at++;
        if (key == "world") {
            if (have_world) return r.fail(1, "a second world line");
            have_world = true;
            if (!read_world(r, sc)) return false;
            continue;
        }
        Item it;
        if (key == "plane") it.kind = Kind::plane;
        else if (key == "box") it.kind = Kind::box;
        else if (key == "sphere") it.kind = Kind::sphere;
        else if (key == "capsule") it.kind = Kind::capsule;
        else return r.fail(1, "this reader does not know '" + key + "' (it reads world, plane, box, sphere, capsule)");
        if (!(it.kind == Kind::plane ? read_plane(r, it) : read_body(r, it))) return false;
        sc.items.push_back(it);
    }
    return true;
}

// ---- the Jolt world -------------------------------------------------------------------

constexpr JPH::ObjectLayer layer_still = 0, layer_moving = 1;
const JPH::BroadPhaseLayer broad_still(0), broad_moving(1);

class Layers final : public JPH::BroadPhaseLayerInterface {
public:
    JPH::uint GetNumBroadPhaseLayers() const override { return 2; }
    JPH::BroadPhaseLayer GetBroadPhaseLayer(JPH::ObjectLayer l) const override { return l == layer_still ? broad_still : broad_moving; }
#if defined(JPH_EXTERNAL_PROFILE) || defined(JPH_PROFILE_ENABLED)
    const char *GetBroadPhaseLayerName(JPH::BroadPhaseLayer l) const override { return l == broad_still ? "still" : "moving"; }
#endif
};

// Still things meet only moving ones; moving ones meet everything.
class LayerVsBroad final : public JPH::ObjectVsBroadPhaseLayerFilter {
public:
    bool ShouldCollide(JPH::ObjectLayer a, JPH::BroadPhaseLayer b) const override { return a == layer_moving || b == broad_moving; }
};

class LayerPairs final : public JPH::ObjectLayerPairFilter {
public:
    bool ShouldCollide(JPH::ObjectLayer a, JPH::ObjectLayer b) const override { return a == layer_moving || b == layer_moving; }
};

struct World {
    Layers layers;
    LayerVsBroad layer_vs_broad;
    LayerPairs layer_pairs;
    JPH::PhysicsSystem system;
    std::vector<JPH::BodyID> dynamic; // in file order
    std::vector<size_t> number;       // each one's body number in the file (planes count)
    std::vector<JPH::RVec3> start;
};

JPH::Vec3 v3(const double v[3]) { return JPH::Vec3(float(v[0]), float(v[1]), float(v[2])); }

JPH::Ref<JPH::Shape> make_shape(const Item &it)
{
    switch (it.kind) {
    case Kind::plane: {
        JPH::Vec3 n = v3(it.normal).Normalized();
        return new JPH::PlaneShape(JPH::Plane(n, float(-it.offset)));
    }
    case Kind::box: return new JPH::BoxShape(v3(it.half)); // convex radius min(0.05, smallest half)
    case Kind::sphere: return new JPH::SphereShape(float(it.radius));
    case Kind::capsule: return new JPH::CapsuleShape(float(it.half_height), float(it.radius));
    }
    return nullptr;
}

void build(World &w, const Scene &sc)
{
    // Room for every body, and for pairs and contacts well past what a pile of them makes (a cube in a
    // pile touches about 4 others); Update reports it if they run out.
    JPH::uint count = (JPH::uint)sc.items.size() + 1, room = std::max<JPH::uint>(65536, 16 * count);
    w.system.Init(count, 0, room, room, w.layers, w.layer_vs_broad, w.layer_pairs);
    JPH::PhysicsSettings settings;
    settings.mNumVelocitySteps = (JPH::uint)sc.iterations;
    settings.mAllowSleeping = sc.sleep;
    w.system.SetPhysicsSettings(settings);
    w.system.SetGravity(v3(sc.gravity));
    JPH::BodyInterface &bi = w.system.GetBodyInterface();
    w.dynamic.clear();
    w.number.clear();
    w.start.clear();
    for (size_t k = 0; k < sc.items.size(); k++) {
        const Item &it = sc.items[k];
        bool moves = it.kind != Kind::plane && !it.is_static;
        JPH::Ref<JPH::Shape> shape = make_shape(it);
        JPH::Quat rot = it.degrees == 0 ? JPH::Quat::sIdentity()
                                        : JPH::Quat::sRotation(v3(it.axis).Normalized(), float(it.degrees * JPH::JPH_PI / 180.0));
        if (moves && it.density > 0) static_cast<JPH::ConvexShape *>(shape.GetPtr())->SetDensity(float(it.density));
        JPH::BodyCreationSettings b(shape, JPH::RVec3(v3(it.pos)), rot,
                                    moves ? JPH::EMotionType::Dynamic : JPH::EMotionType::Static,
                                    moves ? layer_moving : layer_still);
        b.mFriction = float(it.friction);
        b.mRestitution = float(it.restitution);
        if (moves) {
            b.mLinearVelocity = v3(it.vel);
            b.mAngularVelocity = v3(it.spin);
            b.mLinearDamping = 0;
            b.mAngularDamping = 0;
            b.mAllowSleeping = sc.sleep;
            if (it.density == 0) {
                b.mOverrideMassProperties = JPH::EOverrideMassProperties::CalculateInertia;
                b.mMassPropertiesOverride.mMass = float(it.mass > 0 ? it.mass : 1.0);
            }
        }
        JPH::BodyID id = bi.CreateAndAddBody(b, moves ? JPH::EActivation::Activate : JPH::EActivation::DontActivate);
        if (moves) {
            w.dynamic.push_back(id);
            w.number.push_back(k);
            w.start.push_back(bi.GetCenterOfMassPosition(id));
        }
    }
    w.system.OptimizeBroadPhase();
}

double moved_max(World &w)
{
    const JPH::BodyInterface &bi = w.system.GetBodyInterface();
    double m = 0;
    for (size_t i = 0; i < w.dynamic.size(); i++) {
        JPH::Vec3 d = JPH::Vec3(bi.GetCenterOfMassPosition(w.dynamic[i]) - w.start[i]);
        m = std::fmax(m, double(d.Length()));
    }
    return m;
}

int usage()
{
    std::fputs("usage: jolt_bench FILE [--steps N] [--time [--repeat R] [--from F]]\n", stderr);
    return 2;
}

} // namespace

int main(int argc, char **argv)
{
    const char *path = nullptr;
    long steps = 300, repeat = 2, from = 1;
    bool timed = false;
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--steps") && i + 1 < argc) steps = bench_number(argv[++i], 1, 100000);
        else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = bench_number(argv[++i], 1, 100);
        else if (!std::strcmp(argv[i], "--time")) timed = true;
        else if (!std::strcmp(argv[i], "--from") && i + 1 < argc) from = bench_number(argv[++i], 1, 100000);
        else if (argv[i][0] != '-' && !path) path = argv[i];
        else return usage();
    }
    if (!path || steps < 0 || repeat < 0 || from < 1 || from > steps) return usage();
    Scene sc;
    if (!read_scene(path, sc)) return 2;

    JPH::RegisterDefaultAllocator();
    JPH::Factory::sInstance = new JPH::Factory();
    JPH::RegisterTypes();
    // A step's scratch: Jolt sizes its contact constraints' buffer to the room build() gives
    // them (16 a body), about 600 bytes each, so a wall of 8 256 cubes needs more than 64 MB.
    const size_t room = std::max<size_t>(65536, 16 * (sc.items.size() + 1));
    JPH::TempAllocatorImpl temp((JPH::uint)std::max<size_t>(size_t(64) << 20, 1024 * room));
    JPH::JobSystemSingleThreaded jobs(JPH::cMaxPhysicsJobs);
    const float dt = 1.0f / float(sc.hz);

    std::vector<double> best((size_t)steps), tmp((size_t)steps);
    double moved = 0;
    int status = 0;
    for (long r = 0; r < (timed ? repeat : 1); r++) {
        World *w = new World();
        build(*w, sc);
        for (long s = 0; s < steps; s++) {
            double t0 = bench_now_us();
            JPH::EPhysicsUpdateError e = w->system.Update(dt, 1, &temp, &jobs);
            bench_keep_min(&best[(size_t)s], bench_now_us() - t0, (int)r);
            if (e != JPH::EPhysicsUpdateError::None && status == 0) {
                std::fprintf(stderr, "%s: Jolt's update reported error %u at step %ld\n", path, (unsigned)e, s + 1);
                status = 1;
            }
        }
        moved = moved_max(*w);
        if (!timed) {
            const JPH::BodyInterface &bi = w->system.GetBodyInterface();
            for (size_t i = 0; i < w->dynamic.size(); i++) {
                JPH::RVec3 p = bi.GetCenterOfMassPosition(w->dynamic[i]);
                std::printf("body %zu %.6f %.6f %.6f\n", w->number[i], double(p.GetX()), double(p.GetY()), double(p.GetZ()));
            }
        }
        delete w;
    }
    if (timed) {
        const double *kept = best.data() + (from - 1);
        const int n = (int)(steps - from + 1);
        double sum = 0;
        for (int s = 0; s < n; s++) sum += kept[s];
        std::printf("jolt-file scene=%s steps=%ld repeat=%ld step_mean=%.1f step_median=%.1f step_p99=%.1f step_max=%.1f "
                    "moved_max_cm=%.1f\n",
                    path, steps, repeat, sum / n, bench_median(kept, n, tmp.data()),
                    bench_quantile(kept, n, 0.99, tmp.data()), bench_quantile(kept, n, 1.0, tmp.data()),
                    100 * moved);
    }
    JPH::UnregisterTypes();
    delete JPH::Factory::sInstance;
    JPH::Factory::sInstance = nullptr;
    return status;
}
