/* SPDX-License-Identifier: MIT */
/* What the state hash covers (include/qphys/world.h, src/world_hash.c).
 *
 * 1. Every covered field, of a body, of its shape, of a free slot, of a contact and of
 *    the world definition, changed by its least significant bit, changes qp_world_hash;
 *    a body's field changes that body's qp_body_hash and no other body's.
 * 2. What is left out cannot change the future: each scratch field changed (by far more
 *    than a bit) at the end of a step gives, 1 and 30 steps later, the hashes of the
 *    untouched world. So the hash is exactly "the state that decides later steps".
 * 3. qp_body_hash is 0 for an invalid id; a restored world hashes as the saved one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "qphys/scene.h"
#include "qphys/world.h"

static qp_world base, probe, ref;

/* Awake bodies in contact (a box on a plane, a sphere on the box, a capsule), a
 * destroyed body's slot, after a few steps: contacts with points and anchors. */
static const char scene_text[] =
    "world gravity 0 -10 0 hz 60\n"
    "plane normal 0 1 0 offset 0 friction 0.6\n"
    "box half 0.5 0.5 0.5 pos 0 0.49 0 rot 0 1 0 10 friction 0.7\n"
    "sphere radius 0.3 pos 0.1 1.3 0 restitution 0.2\n"
    "capsule radius 0.2 half_height 0.3 pos 2 0.2 0 rot 0 0 1 90 vel 0.4 0 0\n"
    "box half 0.2 0.2 0.2 pos -3 3 0\n";

static void build(void)
{
    qp_scene_info info;
    qp_scene_error err;
    assert_int_equal(qp_scene_load(&base, scene_text, sizeof scene_text - 1, &info, &err), QP_OK);
    assert_int_equal(qp_destroy_body(&base, qp_scene_body(&base, 4)), QP_OK); /* a free slot, generation 1 */
    for (int s = 0; s < 12; s++) qp_world_step(&base);
    assert_true(base.contact_count >= 2);
    int points = 0;
    for (int c = 0; c < base.contact_count; c++) points += base.contacts[c].count;
    assert_true(points >= 4);
    qp_world_stats st = qp_world_get_stats(&base);
    assert_true(st.awake == 3);
}

/* Flip the least significant bit of a field of size bytes, as a number (any byte order). */
static void flip_lsb(void *p, size_t size)
{
    if (size == 1) {
        uint8_t v;
        memcpy(&v, p, 1);
        v ^= 1u;
        memcpy(p, &v, 1);
    } else if (size == 2) {
        uint16_t v;
        memcpy(&v, p, 2);
        v ^= 1u;
        memcpy(p, &v, 2);
    } else {
        assert_int_equal(size, 4);
        uint32_t v;
        memcpy(&v, p, 4);
        v ^= 1u;
        memcpy(p, &v, 4);
    }
}

typedef struct {
    const char *name;
    size_t offset, size;
} field;

#define F(type, member) { #member, offsetof(type, member), sizeof(((type *)0)->member) }
#define V3(type, member) F(type, member.x), F(type, member.y), F(type, member.z)
#define Q4(type, member) F(type, member.w), F(type, member.x), F(type, member.y), F(type, member.z)
#define ROW(type, member, r) F(type, member.m[r][0]), F(type, member.m[r][1]), F(type, member.m[r][2])
#define BOX(type, member) V3(type, member.lo), V3(type, member.hi)

static const field body_fields[] = {
    F(qp_body_state, generation), F(qp_body_state, state), F(qp_body_state, flags),
    V3(qp_body_state, x), Q4(qp_body_state, q), V3(qp_body_state, v), V3(qp_body_state, w),
    V3(qp_body_state, force), V3(qp_body_state, torque), V3(qp_body_state, local_center),
    ROW(qp_body_state, inv_inertia_local, 0), ROW(qp_body_state, inv_inertia_local, 1),
    ROW(qp_body_state, inv_inertia_local, 2),
    F(qp_body_state, mass), F(qp_body_state, inv_mass), F(qp_body_state, friction),
    F(qp_body_state, static_friction), F(qp_body_state, restitution), F(qp_body_state, user_data),
    F(qp_body_state, still_steps), F(qp_body_state, awake_steps), F(qp_body_state, shape_count),
    F(qp_body_state, shapes[0]), BOX(qp_body_state, sleep_box[0]), BOX(qp_body_state, sleep_box[1]),
    BOX(qp_body_state, sleep_box[2]), F(qp_body_state, motion),
};

static const field shape_fields[] = {
    F(qp_shape_slot, shape.type), V3(qp_shape_slot, shape.offset), Q4(qp_shape_slot, shape.rotation),
    V3(qp_shape_slot, shape.half), F(qp_shape_slot, shape.half_height), BOX(qp_shape_slot, aabb),
};

static const field contact_fields[] = {
    F(qp_contact, a), F(qp_contact, b), F(qp_contact, sa), F(qp_contact, sb), F(qp_contact, count),
    F(qp_contact, flags), V3(qp_contact, n), V3(qp_contact, anchor_a), V3(qp_contact, anchor_b),
    F(qp_contact, jt1), F(qp_contact, jt2), F(qp_contact, jtw),
};

static const field point_fields[] = {
    F(qp_contact_point, id), V3(qp_contact_point, ra), F(qp_contact_point, jn),
};

static const field def_fields[] = {
    V3(qp_world_def, gravity), F(qp_world_def, dt), F(qp_world_def, collision_iterations),
    F(qp_world_def, contact_iterations), F(qp_world_def, shock_iterations),
    F(qp_world_def, penetration_iterations), F(qp_world_def, restitution_ramp),
    F(qp_world_def, alternate_sweeps), F(qp_world_def, accumulate_impulses), F(qp_world_def, warm_start),
    F(qp_world_def, contact_margin), F(qp_world_def, slop), F(qp_world_def, gap_tolerance),
    F(qp_world_def, penetration_rate), F(qp_world_def, max_penetration_speed),
    F(qp_world_def, bounce_threshold), F(qp_world_def, max_linear_speed), F(qp_world_def, max_angular_speed),
    F(qp_world_def, bounds), F(qp_world_def, sleep_enabled), F(qp_world_def, sleep_policy),
    F(qp_world_def, sleep_center_size), F(qp_world_def, sleep_point_size), F(qp_world_def, sleep_steps),
    F(qp_world_def, sleep_energy), F(qp_world_def, sleep_energy_bias), F(qp_world_def, wake_energy_factor),
    F(qp_world_def, wake_speed), F(qp_world_def, wake_velocity), F(qp_world_def, min_awake_steps),
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* A world's pools are pointers into its memory: a copy to change is made with qp_world_copy. */
static void copy_world(qp_world *to, const qp_world *from)
{
    assert_int_equal(qp_world_copy(to, from), QP_OK);
}

/* Body hashes of every slot, for "this body's hash changed and no other's". */
static void body_hashes(const qp_world *w, uint32_t *out)
{
    for (int i = 1; i <= QP_CFG_MAX_BODIES; i++) out[i] = qp_body_hash(w, qp_world_body_at(w, i));
}

static uint32_t hb[QP_CFG_MAX_BODIES + 1], hp[QP_CFG_MAX_BODIES + 1];

/* probe = base with one field flipped (by fn); the world hash must differ, and the body
 * hashes exactly at slot only (0: at none). */
static void expect_change(const char *what, const char *name, int slot)
{
    if (qp_world_hash(&probe) == qp_world_hash(&base)) fail_msg("%s %s: the world hash did not change", what, name);
    body_hashes(&probe, hp);
    for (int i = 1; i <= QP_CFG_MAX_BODIES; i++) {
        if (i == slot && hp[i] == hb[i]) fail_msg("%s %s: body %d's hash did not change", what, name, i);
        if (i != slot && hp[i] != hb[i]) fail_msg("%s %s: body %d's hash changed too", what, name, i);
    }
}

static void test_every_covered_bit_counts(void **state)
{
    (void)state;
    build();
    body_hashes(&base, hb);
    int checked = 0;
    /* Bodies: a static one, an awake box, a sphere; and their first shape. */
    for (int slot = 1; slot <= 3; slot++) {
        for (unsigned f = 0; f < COUNT(body_fields); f++) {
            copy_world(&probe, &base);
            flip_lsb((unsigned char *)&probe.bodies[slot] + body_fields[f].offset, body_fields[f].size);
            expect_change("body", body_fields[f].name, slot);
            checked++;
        }
        for (unsigned f = 0; f < COUNT(shape_fields); f++) {
            copy_world(&probe, &base);
            flip_lsb((unsigned char *)&probe.shapes[base.bodies[slot].shapes[0]] + shape_fields[f].offset,
                     shape_fields[f].size);
            expect_change("shape", shape_fields[f].name, slot);
            checked++;
        }
    }
    /* The destroyed body's slot: the generation the next body there gets. */
    assert_false(base.bodies[5].state & QP_STATE_USED);
    assert_int_equal(base.bodies[5].generation, 1);
    copy_world(&probe, &base);
    probe.bodies[5].generation ^= 1u;
    probe.bodies[5].generation |= 2u;
    expect_change("free slot", "generation", 0);
    /* Every contact, every point. */
    for (int c = 0; c < base.contact_count; c++) {
        for (unsigned f = 0; f < COUNT(contact_fields); f++) {
            copy_world(&probe, &base);
            flip_lsb((unsigned char *)&probe.contacts[c] + contact_fields[f].offset, contact_fields[f].size);
            expect_change("contact", contact_fields[f].name, 0);
            checked++;
        }
        for (int k = 0; k < base.contacts[c].count; k++)
            for (unsigned f = 0; f < COUNT(point_fields); f++) {
                copy_world(&probe, &base);
                flip_lsb((unsigned char *)&probe.contacts[c].p[k] + point_fields[f].offset, point_fields[f].size);
                expect_change("contact point", point_fields[f].name, 0);
                checked++;
            }
    }
    copy_world(&probe, &base);
    probe.contact_count--;
    expect_change("contacts", "count", 0);
    /* The world definition. */
    for (unsigned f = 0; f < COUNT(def_fields); f++) {
        copy_world(&probe, &base);
        flip_lsb((unsigned char *)&probe.def + def_fields[f].offset, def_fields[f].size);
        expect_change("world def", def_fields[f].name, 0);
        checked++;
    }
    assert_true(checked > 300);
}

/* ---- 2. scratch cannot change the future ------------------------------------------------------ */

static void scratch_body_level(qp_world *w) { w->bodies[2].level ^= 5u; w->bodies[3].level = 0; }
static void scratch_body_island(qp_world *w) { w->bodies[2].island = 3; w->bodies[3].island = 1; }
static void scratch_body_supports(qp_world *w) { w->bodies[2].supports = 7; }
static void scratch_body_load(qp_world *w) { w->bodies[2].load += QP_INT(50); }
static void scratch_body_high(qp_world *w) { w->body_high = QP_CFG_MAX_BODIES; }
static void scratch_sap_order(qp_world *w)
{
    uint16_t t = w->sap_order[0];
    w->sap_order[0] = w->sap_order[w->sap_count - 1];
    w->sap_order[w->sap_count - 1] = t;
}
static void scratch_pairs(qp_world *w)
{
    for (int i = 0; i < w->pair_count; i++) w->pairs[i].a = w->pairs[i].b = 0;
    w->pair_count = 0;
}
/* Whether a contact's depths are state (src/contact.h, qp__contact_depths_live): its
 * manifold may be kept by the next step, as far as the contact says. */
static bool depths_live(const qp_contact *c)
{
    return c->count > 0 && (c->flags & QP_CONTACT_KEPT) >> 6 < 2 &&
           !(c->flags & (QP_CONTACT_SLEEPING | QP_CONTACT_SWEPT | QP_CONTACT_OVERLAP));
}

static void scratch_contact_derived(qp_world *w)
{
    for (int c = 0; c < w->contact_count; c++) {
        qp_contact *ct = &w->contacts[c];
        ct->ab.x += QP_ONE;
        ct->ca.y -= QP_ONE;
        ct->cb.z += QP_ONE;
        ct->twist_radius += QP_ONE;
        ct->st1 = ct->st2 = ct->stw = QP_INT(3);
        /* A contact's depths are state only where its manifold may be kept next step. */
        bool depth_scratch = !depths_live(ct);
        for (int k = 0; k < ct->count; k++) {
            if (depth_scratch) ct->p[k].depth += QP_FRAC(1, 10);
            ct->p[k].jp += QP_ONE;
        }
    }
}
static void scratch_step_buffers(qp_world *w)
{
#if QP_CFG_FIXED_POOLS
    memset(w->order, 0x5A, sizeof w->order);
    memset(w->queue, 0xA5, sizeof w->queue);
    memset(w->adj, 0x33, sizeof w->adj);
    memset(w->step_scratch, 0x77, sizeof w->step_scratch);
#if !QP_CFG_LOW_RAM
    memset(w->rows, 0x11, sizeof w->rows);
#endif
#else
    const qp_world_caps c = qp_world_get_caps(w);
    const unsigned long b = (unsigned long)c.bodies, n = (unsigned long)c.contacts;
    memset(w->order, 0x5A, n * sizeof *w->order);
    memset(w->queue, 0xA5, (b + 3) * sizeof *w->queue);
    memset(w->adj, 0x33, 2 * n * sizeof *w->adj);
    /* The step's scratch is the pool just before order (src/world_memory.c). */
    const unsigned long scratch = QP__STEP_SCRATCH_BYTES(b, n);
    memset((unsigned char *)w->order - QP__R8(scratch), 0x77, scratch);
#if !QP_CFG_LOW_RAM
    memset(w->rows, 0x11, n * sizeof *w->rows);
#endif
#endif
}
static void scratch_stats(qp_world *w)
{
    w->stats.step += 1000;
    w->stats.max_pairs += 3;
    w->stats.overflows += 2;
    w->stats.levels = 9;
}

static void test_scratch_does_not_change_the_future(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        void (*perturb)(qp_world *w);
    } scratch[] = {
        { "body level", scratch_body_level }, { "body island", scratch_body_island },
        { "body supports", scratch_body_supports }, { "body load", scratch_body_load },
        { "body_high", scratch_body_high }, { "sap_order", scratch_sap_order }, { "pairs", scratch_pairs },
        { "contact ab, ca, cb, twist, depth, jp, st", scratch_contact_derived },
        { "order, queue, adjacency, predicted poses, rows", scratch_step_buffers }, { "stats", scratch_stats },
    };
    build();
    for (unsigned s = 0; s < COUNT(scratch); s++) {
        copy_world(&ref, &base);
        copy_world(&probe, &base);
        scratch[s].perturb(&probe);
        assert_int_equal(qp_world_hash(&probe), qp_world_hash(&ref));
        for (int k = 1; k <= 30; k++) {
            qp_world_step(&ref);
            qp_world_step(&probe);
            if (qp_world_hash(&probe) != qp_world_hash(&ref))
                fail_msg("%s changed at the end of a step changed step %d", scratch[s].name, k);
        }
    }
}

/* ---- 3. body hash of invalid ids; restore ----------------------------------------------------- */

static unsigned char snap[QP_SNAPSHOT_MAX_SIZE];

static void test_body_hash_ids_and_restore(void **state)
{
    (void)state;
    build();
    qp_body_id id = qp_world_body_at(&base, 2);
    assert_int_not_equal(qp_body_hash(&base, id), 0);
    qp_body_id stale = id;
    stale.generation++;
    assert_int_equal(qp_body_hash(&base, stale), 0);
    assert_int_equal(qp_body_hash(&base, qp_null_body()), 0);
    qp_body_id far = { QP_CFG_MAX_BODIES + 1, 1 };
    assert_int_equal(qp_body_hash(&base, far), 0);
    assert_int_equal(qp_body_hash(NULL, id), 0);
    unsigned long n = qp_world_snapshot(&base, snap, sizeof snap);
    assert_true(n > 0 && n <= sizeof snap);
    memset(&probe, 0x5C, sizeof probe);
    assert_int_equal(qp_world_restore(&probe, snap, n), QP_OK);
    assert_int_equal(qp_world_hash(&probe), qp_world_hash(&base));
    for (int i = 1; i <= 5; i++)
        assert_int_equal(qp_body_hash(&probe, qp_world_body_at(&probe, i)),
                         qp_body_hash(&base, qp_world_body_at(&base, i)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_covered_bit_counts),
        cmocka_unit_test(test_scratch_does_not_change_the_future),
        cmocka_unit_test(test_body_hash_ids_and_restore),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
