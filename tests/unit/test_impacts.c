/* SPDX-License-Identifier: MIT */
/* Struck structures come to rest: the fast subset of bench/bench_impacts.c (bench/impacts.h
 * builds each seed's wall, pyramid, tower or pile of unit cubes and throws a ball or a box at
 * it). Every structure sleeps within 20 s, no cube buzzes after 5 s, none sinks into the
 * ground; the wall that a lodged, spinning ball kept awake for ever sleeps; a ball rolling
 * past a column, just apart from it, does not keep the column awake; a struck tower whose
 * column rocked for ever sleeps, so do a tall wall that swayed for ever, a pile whose cube
 * rocked on two edges, a tall wall that leaned over and towers whose column rocked on the edge
 * of a cube; a tall tower left standing sleeps in place; a cube landing edge-first and a
 * sleeping pair struck through its top cube, put to sleep by steps or created asleep, stay
 * out of the ground. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "../../bench/impacts.h"
#include "../../bench/landings.h"
#include "qphys/scene.h"

static qp_world world;
static impact_scene scene;

static void settles(const char *what, const impact_setup *u, impact_result *r)
{
    assert_true(impact_run_setup(&world, &scene, *u, 1200, true, r));
    printf("[impacts] %s: %d cubes, asleep at step %d, buzz at %d, sunk %d\n", what, r->cubes, r->asleep, r->buzz,
           r->sunk);
    assert_true(r->asleep > 0 && r->asleep <= 1200);
    assert_int_equal(r->buzz, -1);
    assert_int_equal(r->sunk, 0);
}

/* Seeds 1-8 of the suite: two of each kind, 30-190 cubes, balls and boxes of 1-48 kg. */
static void test_struck_structures_sleep(void **state)
{
    (void)state;
    for (unsigned seed = 1; seed <= 8; seed++) {
        impact_setup u = impact_setup_of(seed);
        impact_result r;
        char what[64];
        snprintf(what, sizeof what, "seed %u (%s)", seed, impact_kind_name[u.kind]);
        settles(what, &u, &r);
    }
}

/* A 10-row wall (55 cubes) struck near its base by a 20 kg ball of radius 0.5 m at 6 m/s: the
 * ball lodges in it, under cubes, touching the ground at one point. With no twist friction
 * there it spun about the vertical for ever and the wall never slept (the first of these with
 * the ball's contact point midway into the ground, all three with it on the ball). */
static void test_wall_with_lodged_ball_sleeps(void **state)
{
    (void)state;
    const double heights[3] = { 0.6, 0.3, 1.0 }, sides[3] = { -1.0, 0, 0 };
    for (int i = 0; i < 3; i++) {
        impact_setup u;
        memset(&u, 0, sizeof u);
        u.kind = IMPACT_WALL;
        u.size = 10;
        u.ball = true;
        u.radius = 0.5;
        u.mass = 20;
        u.speed = 6;
        u.aim_height = heights[i];
        u.aim_side = sides[i];
        impact_result r;
        char what[64];
        snprintf(what, sizeof what, "10-row wall, 20 kg ball at (%.1f, %.1f) m", sides[i], heights[i]);
        settles(what, &u, &r);
    }
}

/* A column of three cubes, and a ball rolling past it at 3 cm/s, 5 mm from its face: within
 * the contact margin, so the two keep a contact whose points are gaps and carry nothing.
 * That contact joined their islands, and the column stayed awake for as long as the ball
 * rolled (the ball has no rolling resistance, rolling 0: nothing slows it); the column
 * sleeps now while the ball rolls on. */
static void test_ball_rolling_past_leaves_column_asleep(void **state)
{
    (void)state;
    const char *text = "plane\n"
                       "box half 0.5 0.5 0.5 pos 0 0.5 0\n"
                       "box half 0.5 0.5 0.5 pos 0 1.5 0\n"
                       "box half 0.5 0.5 0.5 pos 0 2.5 0\n"
                       "sphere radius 0.25 pos -0.3 0.25 0.755 vel 0.03 0 0 spin 0 0 -0.12 mass 1 rolling 0\n";
    qp_scene_error err;
    assert_int_equal(qp_scene_load(&world, text, strlen(text), 0, &err), QP_OK);
    qp_body_id ball = qp_scene_body(&world, 4);
    int asleep = -1;
    for (int s = 1; s <= 1200 && asleep < 0; s++) {
        qp_world_step(&world);
        bool column_awake = false;
        for (int i = 1; i <= 3; i++) column_awake = column_awake || qp_body_is_awake(&world, qp_scene_body(&world, i));
        if (!column_awake) asleep = s;
    }
    double v = impact_dbl(qp_body_linear_velocity(&world, ball).x), z = impact_dbl(qp_body_position(&world, ball).z);
    printf("[impacts] column beside a rolling ball asleep at step %d; the ball at %.4f m/s, %.1f mm from the face\n",
           asleep, v, (z - 0.75) * 1000);
    assert_true(asleep > 0 && asleep <= 300);
    assert_true(qp_body_is_awake(&world, ball) && v > 0.025);   /* it rolls on, still beside the column */
    assert_true(z - 0.75 < 0.02);
    /* Seed 7063 of the suite: a 2.6 kg ball rolls on at 2.6 cm/s beside a struck pile of 132
     * cubes, 5 mm from one of them (never asleep within 40 s before). */
    impact_setup u = impact_setup_of(7063);
    impact_result r;
    settles("seed 7063 (pile beside a rolling ball)", &u, &r);
}

/* Seed 10218 of the suite: a 2 x 2 x 14 tower struck near its top by a 7.6 kg box at 5.8 m/s.
 * One column, leaning on the next, rocked for ever (never asleep within 40 s), the shock pass
 * adding 0.1-0.7 J at each close of its cubes (56 J after 5 s). Its cubes touched the next
 * column's lower cubes at their sides, and those side contacts counted as second supports, so
 * the pass's calm rule (shock.c) took them for cubes resting on two: a body's supports are the
 * contacts that bear it now (contact_graph.c). */
static void test_rocking_tower_sleeps(void **state)
{
    (void)state;
    impact_setup u = impact_setup_of(10218);
    impact_result r;
    settles("seed 10218 (tower whose leaning column rocked)", &u, &r);
}

/* Seed 12532 of the suite: a pyramid wall one cube deep, 16 rows (136 cubes), struck at 22 m/s
 * by a 1.4 kg box. It swayed front to back as one for ever (never asleep within 40 s: its top
 * cube at up to 5.5 cm/s after 30 s, about 6.7 s a swing), each row turning 0.1-1.5 mrad/s
 * against the one below while its points approached and separated under 1 mm/s: the shock
 * pass took its contacts for calm and left them to the contact pass. A body turning on its
 * supports is not calm now (shock.c). */
static void test_swaying_wall_sleeps(void **state)
{
    (void)state;
    impact_setup u = impact_setup_of(12532);
    impact_result r;
    settles("seed 12532 (16-row wall that swayed)", &u, &r);
}

/* Seed 18547 of the suite: a pile of 166 cubes struck by a 21 kg box at 25 m/s. A cube at
 * level 5, resting on the edge of one cube and the tilted face of another, rocked between them
 * at about 2.4 Hz for ever (6 mm wide, at up to 3.4 cm/s after 35 s), the shock pass adding
 * energy at every landing: the calm rule's turn test took its turn about those edges for a
 * face hinging inside the slop and pinned it. The turn test reads face contacts only now
 * (shock.c). */
static void test_rocking_pile_cube_sleeps(void **state)
{
    (void)state;
    impact_setup u = impact_setup_of(18547);
    impact_result r;
    settles("seed 18547 (pile whose cube rocked on two edges)", &u, &r);
}

/* Seed 18652 of the suite: a pyramid wall one cube deep, 19 rows (190 cubes), struck by a
 * 92 kg ball at 6.3 m/s. Its rows each turned 0.1-0.4 mrad/s against the row below, under the
 * turn test's band, sinking their leading edges into the slop at about 0.3 mm/s: the wall
 * leaned over as a beam bending, its top creeping at 4-6 cm/s, until its upper rows tipped
 * (asleep at step 2 196, never with the turn test on edges too). A face's points approaching
 * at 0.12 mm/s or more are not calm once its body is awake two sleep windows (shock.c). */
static void test_leaning_wall_sleeps(void **state)
{
    (void)state;
    impact_setup u = impact_setup_of(18652);
    impact_result r;
    settles("seed 18652 (19-row wall that leaned over)", &u, &r);
}

/* Seeds 24490 and 24590 of the suite: 4 x 4 towers 8 and 5 high (128 and 80 cubes), struck
 * by a 22 kg ball at 20 m/s and a 90 kg box at 8.9 m/s. In each, a column of cubes left
 * standing tilted on the edge of a cube below rocked about that edge (24490 never asleep within
 * 40 s, at 0.06-0.18 rad/s, its cubes turning together; 24590 asleep at step 1 519): the shock
 * pass pins each cube to the one below, so the column was handed the rocking cube's turn with
 * no reaction. A pinned visit adds no energy now to a body on one support that is awake six
 * sleep windows and not coming down (shock.c). */
static void test_column_on_rocking_cube_sleeps(void **state)
{
    (void)state;
    const unsigned seeds[2] = { 24490, 24590 };
    for (int i = 0; i < 2; i++) {
        impact_setup u = impact_setup_of(seeds[i]);
        impact_result r;
        char what[64];
        snprintf(what, sizeof what, "seed %u (tower whose column rocked on an edge)", seeds[i]);
        settles(what, &u, &r);
    }
}

/* Three struck structures that stayed awake past 20 s: a pile of 88 cubes with two still
 * creeping at 40 s (seed 310647), a 16-row wall (310532, asleep at step 1 739) and a pile of
 * 161 whose top cube rocked across two others at up to 4 cm/s for 12 s (300451, step 1 927).
 * Their contact sweeps left slips of a few mm/s. An island that lingers ten sleep windows gets
 * four times the sweeps (solve_contacts.c), and they sleep at steps 661, 780 and 688. */
static void test_lingering_structures_sleep(void **state)
{
    (void)state;
    const unsigned seeds[3] = { 310647, 310532, 300451 };
    for (int i = 0; i < 3; i++) {
        impact_setup u = impact_setup_of(seeds[i]);
        impact_result r;
        char what[64];
        snprintf(what, sizeof what, "seed %u (%s that crept)", seeds[i], impact_kind_name[u.kind]);
        settles(what, &u, &r);
    }
}

/* A 4 x 4 x 12 tower of unit cubes left standing, nothing thrown at it: it sleeps by step 600
 * with every cube within 8 cm of where it was placed (measured: asleep at step 370, the
 * farthest cube 44.5 mm off, the ground layer's 14 mm). With side contacts counted as supports
 * it crept apart: not asleep within 20 s, a cube 211 mm off and the ground layer 18.5 mm. */
static void test_untouched_tower_stands(void **state)
{
    (void)state;
    impact_setup u;
    memset(&u, 0, sizeof u);
    u.kind = IMPACT_TOWER;
    u.size = 4;
    u.height = 12;
    u.ball = true;
    u.radius = 0.3;
    u.mass = 1;
    u.launch_step = 100000;   /* held out of reach for the whole run: nothing is thrown */
    impact_result r;
    assert_true(impact_run_setup(&world, &scene, u, 1200, true, &r));
    double worst = 0, ground = 0;
    for (int i = 0; i < scene.count; i++) {
        int layer = i / (u.size * u.size), k = i % (u.size * u.size);
        qp_vec3 x = qp_body_position(&world, scene.cubes[i]);
        double dx = impact_dbl(x.x) - (k / u.size - (u.size - 1) * 0.5), dz = impact_dbl(x.z) - (-0.5 - k % u.size);
        double off = sqrt(dx * dx + dz * dz);
        worst = off > worst ? off : worst;
        if (layer == 0) ground = off > ground ? off : ground;
    }
    printf("[impacts] untouched 4 x 4 x 12 tower: asleep at step %d, farthest cube %.1f mm from its place, the "
           "ground layer's %.1f mm\n", r.asleep, 1000 * worst, 1000 * ground);
    assert_true(r.asleep > 0 && r.asleep <= 600);
    assert_true(worst <= 0.08);
}

/* The depth of a unit cube's lowest corner below the ground (y = 0), m: negative above it. */
static double corner_depth(qp_body_id id)
{
    const qp_quat q = qp_body_rotation(&world, id);
    const double w = q.w / 1073741824.0, x = q.x / 1073741824.0, y = q.y / 1073741824.0, z = q.z / 1073741824.0;
    const double r0 = 2 * (x * y + w * z), r1 = 1 - 2 * (x * x + z * z), r2 = 2 * (y * z - w * x);
    return 0.5 * (fabs(r0) + fabs(r1) + fabs(r2)) - impact_dbl(qp_body_position(&world, id).y);
}

/* Seed 50254 of the suite, its two cubes alone: a cube off a tower lands at 12 m/s tilted 20
 * degrees, one bottom edge first, the other 34 cm up; the blow spins it, and the cube that
 * fell with it lands on it the next step. The edge it turns down went under the ground where
 * the plane's contact had no point (only the corners within the margin), and the cube's
 * corners ended 8.6-10 cm deep. Every corner of the face turned to the plane is a
 * point now, those past the margin with their gaps. */
static void test_cube_landing_on_an_edge_stays_out(void **state)
{
    (void)state;
    const double above[2] = { 2.18, 2.2 }, spin[2] = { -1.4, -2 };
    for (int i = 0; i < 4; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "plane friction 0.5\n"
                 "box half 0.5 0.5 0.5 pos 0 0.9 0 rot 1 0 0 -20 vel 0 -11.8 -3.1 spin %.1f 0 0 mass 1 friction 0.5\n"
                 "box half 0.5 0.5 0.5 pos 0.07 %.2f 0 rot 1 0 0 46 vel 0.08 -11.8 -2.9 spin 0.47 0 0 mass 1 "
                 "friction 0.5\n",
                 spin[i & 1], above[i >> 1]);
        qp_scene_error err;
        assert_int_equal(qp_scene_load(&world, text, strlen(text), 0, &err), QP_OK);
        double deepest = -1;
        for (int s = 1; s <= 120; s++) {
            qp_world_step(&world);
            for (int k = 1; k <= 2; k++) deepest = fmax(deepest, corner_depth(qp_scene_body(&world, k)));
        }
        printf("[impacts] cube landing on an edge at 12 m/s, spin %.1f rad/s, the next %.2f m up: deepest corner "
               "%.1f cm\n", spin[i & 1], above[i >> 1], 100 * deepest);
        assert_true(deepest <= 0.02);
    }
}

/* The deepest corner over 120 steps of a scene file's two cubes (its bodies 1 and 2, or 2 and
 * 3 after a ground body) over a ground whose top face is y = 0 and half wide. */
static double two_cubes_deepest(const char *text, bool ground_body, double half)
{
    qp_scene_error err;
    assert_int_equal(qp_scene_load(&world, text, strlen(text), 0, &err), QP_OK);
    const int first = ground_body ? 2 : 1;
    double deepest = -1;
    for (int s = 1; s <= 120; s++) {
        qp_world_step(&world);
        for (int k = first; k <= first + 1; k++)
            deepest = fmax(deepest, landing_corner_depth(&world, qp_scene_body(&world, k), half, 1));
    }
    return deepest;
}

/* The same two cubes landing edge-first on a static slab (a box, as level geometry often is),
 * on a static cube of their own width, which clips the face they land with, and as hulls on
 * the ground plane and on the slab. The box-box, box-hull and plane-hull contacts kept only the
 * points within the margin, so the far edge turned down with no point there: a corner went up
 * to 9.7 cm in. The points past the margin fill the places left, as the plane-box's corners do.
 * A corner counts over the ground's top face and at most 1 m down (the boxes' thickness). */
static void test_cubes_landing_on_an_edge_stay_out_of_boxes_and_hulls(void **state)
{
    (void)state;
    const char *box = "box half 0.5 0.5 0.5",
               *hull = "hull points -0.5 -0.5 -0.5  0.5 -0.5 -0.5  -0.5 0.5 -0.5  0.5 0.5 -0.5  -0.5 -0.5 0.5  "
                       "0.5 -0.5 0.5  -0.5 0.5 0.5  0.5 0.5 0.5";
    const struct { const char *ground, *cube, *what; double half; } cases[4] = {
        { "box half 20 0.5 20 pos 0 -0.5 0 static friction 0.5\n", box, "cubes on a static box 40 m wide", 20 },
        { "box half 0.6 0.5 0.6 pos 0 -0.5 0 static friction 0.5\n", box, "cubes on a static box 1.2 m wide", 0.6 },
        { "", hull, "hull cubes on the plane", 100 },
        { "box half 20 0.5 20 pos 0 -0.5 0 static friction 0.5\n", hull, "hull cubes on a static box 40 m wide", 20 },
    };
    const double spin[2] = { -1.4, -2 };
    double worst = -1;
    for (int i = 0; i < 8; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "plane offset %d friction 0.5\n%s"
                 "%s pos 0 0.9 0 rot 1 0 0 -20 vel 0 -11.8 -3.1 spin %.1f 0 0 mass 1 friction 0.5\n"
                 "%s pos 0.07 2.2 0 rot 1 0 0 46 vel 0.08 -11.8 -2.9 spin 0.47 0 0 mass 1 friction 0.5\n",
                 cases[i >> 1].ground[0] ? -3 : 0, cases[i >> 1].ground, cases[i >> 1].cube, spin[i & 1],
                 cases[i >> 1].cube);
        const double deepest = two_cubes_deepest(text, cases[i >> 1].ground[0] != 0, cases[i >> 1].half);
        printf("[impacts] %s landing on an edge at 12 m/s, spin %.1f rad/s: deepest corner %.1f cm\n",
               cases[i >> 1].what, spin[i & 1], 100 * deepest);
        worst = fmax(worst, deepest);
    }
    assert_true(worst <= 0.02);
}

/* The grounds of the landing tests below, whose top face is y = 0: the plane, a static box
 * 40 m wide, a static hull of the same box and a 500 kg crate (a plane 1 m down under the last
 * three), each with the half width over which corners count. */
static const struct { const char *ground; double half; } landing_grounds[4] = {
    { "", 100 },
    { "box half 20 0.5 20 pos 0 -0.5 0 static friction 0.5\n", 20 },
    { "hull points -20 -1 -20  20 -1 -20  -20 0 -20  20 0 -20  -20 -1 20  20 -1 20  -20 0 20  20 0 20 "
      "pos 0 0 0 static friction 0.5\n", 20 },
    { "box half 4 0.5 4 pos 0 -0.5 0 mass 500 friction 0.5\n", 3.5 },
};

/* The deepest corner of n landings (scene lines of two cubes) on the first grounds of
 * landing_grounds, each printed as what. */
static double landings_deepest(const char *const *landing, int n, int grounds, const char *what)
{
    double worst = -1;
    for (int i = 0; i < n * grounds; i++) {
        char text[1024];
        const int g = i / n;
        snprintf(text, sizeof text, "plane offset %d friction 0.5\n%s%s", landing_grounds[g].ground[0] ? -1 : 0,
                 landing_grounds[g].ground, landing[i % n]);
        const double deepest = two_cubes_deepest(text, landing_grounds[g].ground[0] != 0, landing_grounds[g].half);
        printf("[impacts] landing %d %s, ground %d: deepest corner %.1f cm\n", i % n, what, g, 100 * deepest);
        worst = fmax(worst, deepest);
    }
    return worst;
}

/* Two of bench_landings' landings (seeds 40245 and 50293) where the second cube strikes the
 * first as it turns flat about the edge it landed on. The narrow phase collides a pair at its
 * predicted poses, which turn each body about its centre: there the landing edge was 1-2.3 cm
 * clear of the ground, past the contact margin, and the ground contact ended in the very step
 * the second cube struck (in 50293 the broad phase, pairing the predicted poses' boxes, did
 * not pair them at all): the first cube went 17.7 and 10 cm in. A contact that pushed is now
 * collided at the start poses when the predicted ones lose it. On the plane, a static box 40 m
 * wide, a static hull of the same box and a 500 kg crate. */
static void test_struck_while_turning_flat_stays_out(void **state)
{
    (void)state;
    const char *landing[2] = {
        "box half 0.5 0.5 0.5 pos 0 0.9 0 rot 1 0 0 -19.7 vel 0 -17.20 -3.94 spin 1.09 0 0 mass 1 friction 0.5\n"
        "box half 0.5 0.5 0.5 pos -0.12 2.40 0 rot 0 1 1 61.6 vel 0 -17.20 -3.94 spin 0.47 0 0 mass 1 friction 0.5\n",
        "box half 0.5 0.5 0.5 pos 0 0.9 0 rot 1 0 0 -41.2 vel 0 -17.43 -1.21 spin -1.31 0 0 mass 1 friction 0.5\n"
        "box half 0.5 0.5 0.5 pos -0.13 2.38 0 rot 0 1 1 87.6 vel 0 -17.43 -1.21 spin 0.47 0 0 mass 1 friction 0.5\n",
    };
    assert_true(landings_deepest(landing, 2, 4, "struck while turning flat") <= 0.02);
}

/* Four of bench_landings' landings (seeds 53142, 54678, 55210, 57185) where the first cube's
 * edge bounces clear of the ground and the second cube strikes it back down in the same step.
 * The broad phase pairs the boxes of the predicted poses, and there the first cube was rising
 * or falling slowly, its box 5-10 cm above the ground's: no pair, no contact, and the blow
 * carried it 8-9.6 cm in. The continuous stage now sweeps a struck body moving more than the
 * contact margin against all ground its motion reaches and has no contact with, paired or not,
 * and stops it within the slop: static geometry, and a dynamic body four times as heavy or more
 * that gives way by no more than the margin. On the plane, a static box 40 m wide, a static hull
 * of the same box and a 500 kg crate. */
static void test_struck_while_bouncing_clear_stays_out(void **state)
{
    (void)state;
    const char *landing[4] = {
        "box half 0.5 0.5 0.5 pos 0 0.9 0 rot 1 0 0 -31.9 vel 0 -13.89 -2.70 spin -1.66 0 0 mass 1 friction 0.5\n"
        "box half 0.5 0.5 0.5 pos 0.01 2.26 0 rot 0 1 1 65.3 vel 0 -13.89 -2.70 spin 0.47 0 0 mass 1 friction 0.5\n",
        "box half 0.5 0.5 0.5 pos 0 0.9 0 rot 1 0 0 -24.3 vel 0 -12.05 -1.82 spin -1.57 0 0 mass 1 friction 0.5\n"
        "box half 0.5 0.5 0.5 pos -0.08 1.92 0 rot 0 1 1 56.7 vel 0 -12.05 -1.82 spin 0.47 0 0 mass 1 friction 0.5\n",
        "box half 0.5 0.5 0.5 pos 0 0.9 0 rot 1 0 0 -31.1 vel 0 -12.18 -1.71 spin 0.15 0 0 mass 1 friction 0.5\n"
        "box half 0.5 0.5 0.5 pos -0.07 1.84 0 rot 0 1 1 64.5 vel 0 -12.18 -1.71 spin 0.47 0 0 mass 1 friction 0.5\n",
        "box half 0.5 0.5 0.5 pos 0 0.9 0 rot 1 0 0 -30.6 vel 0 -15.42 -1.09 spin -2.59 0 0 mass 1 friction 0.5\n"
        "box half 0.5 0.5 0.5 pos -0.19 2.28 0 rot 0 1 1 68.0 vel 0 -15.42 -1.09 spin 0.47 0 0 mass 1 friction 0.5\n",
    };
    assert_true(landings_deepest(landing, 4, 4, "struck while bouncing clear") <= 0.02);
}

/* Seed 50036 of the suite, in small: two cubes asleep one on the other, struck from above
 * through the top one at 15 and 20 m/s. The top cube, woken by the arrival in the walk over
 * the pairs after its pair with the bottom cube, moved with that contact unsolved; the bottom
 * cube, pushed through its sleeping contacts, woke after the passes and moved with its ground
 * contact unsolved: 5-13 cm into the ground in that step. Now an arrival wakes its sleeper
 * before the walk, which collides the woken body's contacts, and a body the passes wake stays
 * where it is for that step. */
static void test_sleeping_pair_struck_stays_out(void **state)
{
    (void)state;
    const char *text = "plane friction 0.5\n"
                       "box half 0.5 0.5 0.5 pos 0 0.5 0 mass 1 friction 0.5\n"
                       "box half 0.5 0.5 0.5 pos 0 1.5 0 mass 1 friction 0.5\n"
                       "box half 0.5 0.5 0.5 pos 10 0.5 0 mass 1 friction 0.5\n";
    const double speeds[2] = { 15, 20 }, offsets[2] = { 0, 0.3 };
    for (int i = 0; i < 4; i++) {
        qp_scene_error err;
        assert_int_equal(qp_scene_load(&world, text, strlen(text), 0, &err), QP_OK);
        qp_body_id bottom = qp_scene_body(&world, 1), top = qp_scene_body(&world, 2), cube = qp_scene_body(&world, 3);
        int steps = 0;
        while (steps < 600 && (qp_body_is_awake(&world, bottom) || qp_body_is_awake(&world, top))) {
            qp_world_step(&world);
            steps++;
        }
        assert_false(qp_body_is_awake(&world, bottom) || qp_body_is_awake(&world, top));
        const qp_quat level = { QP_Q30_ONE, 0, 0, 0 };
        assert_int_equal(qp_body_set_pose(&world, cube, qp_v3(impact_fix(offsets[i & 1]), impact_fix(2.6), 0), level),
                         QP_OK);
        assert_int_equal(qp_body_set_linear_velocity(&world, cube, qp_v3(0, impact_fix(-speeds[i >> 1]), 0)), QP_OK);
        double deepest = -1;
        for (int s = 1; s <= 300; s++) {
            qp_world_step(&world);
            for (int k = 1; k <= 3; k++) deepest = fmax(deepest, corner_depth(qp_scene_body(&world, k)));
        }
        printf("[impacts] sleeping pair (asleep at step %d) struck at %.0f m/s, %.1f m off centre: deepest corner "
               "%.1f cm\n", steps, speeds[i >> 1], offsets[i & 1], 100 * deepest);
        assert_true(deepest <= 0.02);
    }
}

/* Two cubes created asleep one on the other (`asleep` in the scene: never stepped awake),
 * struck from above through the top one at 15 and 20 m/s, the striking cube arriving in the
 * first step or 11-15 steps later. Created asleep, they had no contact records: the walk had
 * none of their resting contacts to collide when the arrival woke them, and the bottom cube
 * went 9.6 cm into the ground. A body created asleep has its contacts found in its first
 * step, as sleeping records, as if it had fallen asleep there. */
static void test_pair_created_asleep_struck_stays_out(void **state)
{
    (void)state;
    const double speeds[2] = { 15, 20 }, heights[2] = { 2.6, 6.2 };
    for (int i = 0; i < 4; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "plane friction 0.5\n"
                 "box half 0.5 0.5 0.5 pos 0 0.5 0 mass 1 friction 0.5 asleep\n"
                 "box half 0.5 0.5 0.5 pos 0 1.5 0 mass 1 friction 0.5 asleep\n"
                 "box half 0.5 0.5 0.5 pos 0.2 %.2f 0 vel 0 %.0f 0 mass 1 friction 0.5\n",
                 heights[i & 1], -speeds[i >> 1]);
        qp_scene_error err;
        assert_int_equal(qp_scene_load(&world, text, strlen(text), 0, &err), QP_OK);
        double deepest = -1;
        for (int s = 1; s <= 300; s++) {
            qp_world_step(&world);
            for (int k = 1; k <= 3; k++) deepest = fmax(deepest, corner_depth(qp_scene_body(&world, k)));
        }
        printf("[impacts] pair created asleep struck at %.0f m/s from %.1f m: deepest corner %.1f cm\n",
               speeds[i >> 1], heights[i & 1], 100 * deepest);
        assert_true(deepest <= 0.02);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_struck_structures_sleep),
        cmocka_unit_test(test_wall_with_lodged_ball_sleeps),
        cmocka_unit_test(test_ball_rolling_past_leaves_column_asleep),
        cmocka_unit_test(test_rocking_tower_sleeps),
        cmocka_unit_test(test_swaying_wall_sleeps),
        cmocka_unit_test(test_rocking_pile_cube_sleeps),
        cmocka_unit_test(test_leaning_wall_sleeps),
        cmocka_unit_test(test_column_on_rocking_cube_sleeps),
        cmocka_unit_test(test_lingering_structures_sleep),
        cmocka_unit_test(test_untouched_tower_stands),
        cmocka_unit_test(test_cube_landing_on_an_edge_stays_out),
        cmocka_unit_test(test_cubes_landing_on_an_edge_stay_out_of_boxes_and_hulls),
        cmocka_unit_test(test_struck_while_turning_flat_stays_out),
        cmocka_unit_test(test_struck_while_bouncing_clear_stays_out),
        cmocka_unit_test(test_sleeping_pair_struck_stays_out),
        cmocka_unit_test(test_pair_created_asleep_struck_stays_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
