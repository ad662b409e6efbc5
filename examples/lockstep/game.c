/* SPDX-License-Identifier: MIT */
/* game.c - the lockstep demo's game (game.h). Integer and fixed-point only: it runs on
 * the boards too, and every peer must compute the same bits. */
#include "game.h"

/* user_data: a tag in the top byte, a number below it. */
#define TAG_AVATAR 1u
#define TAG_CRATE 2u
#define USER(tag, n) (((uint32_t)(tag) << 24) | ((uint32_t)(n) & 0xFFFFFFu))
#define USER_TAG(u) ((u) >> 24)

#define ARENA QP_INT(8)              /* inner half-size of the walled floor, m */
#define CRATE_HALF QP_FRAC(35, 100)  /* crates are 0.7 m cubes (0.343 kg) */
#define AVATAR_HALF QP_FRAC(6, 10)   /* avatars are 1.2 m cubes of 4 kg */
#define PUSH QP_FRAC(1, 2)           /* N s per frame a stick gives its avatar (~3 m/s^2 net of friction) */
#define DIAG 46341                   /* sqrt(1/2) in Q16.16 */

bool ls_input_valid(ls_input in)
{
    if ((in & ~(LS_INPUT_STICK_MASK | LS_INPUT_THROW | LS_INPUT_SPAWN_MASK)) != 0u) return false;
    if ((in & LS_INPUT_STICK_MASK) > 8u) return false;
    /* One input, one encoding: a spawn point only with a throw. */
    if ((in & LS_INPUT_THROW) == 0u && (in & LS_INPUT_SPAWN_MASK) != 0u) return false;
    return true;
}

static qp_result add_box(qp_world *w, qp_body_type type, qp_vec3 half, qp_vec3 pos, fix16_t mass, uint32_t user)
{
    qp_body_def d = qp_default_body_def();
    d.type = type;
    d.shape_count = 1;
    qp_result r = qp_make_box(half, &d.shapes[0]);
    if (r != QP_OK) return r;
    d.position = pos;
    d.mass = mass;
    d.user_data = user;
    (void)qp_create_body(w, &d, &r);
    return r;
}

qp_result ls_game_init(qp_world *w)
{
    qp_world_def wd = qp_default_world_def();
    qp_result r = qp_world_init(w, &wd);
    if (r != QP_OK) return r;

    qp_body_def ground = qp_default_body_def();
    ground.type = QP_BODY_STATIC;
    ground.shape_count = 1;
    r = qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &ground.shapes[0]);
    if (r != QP_OK) return r;
    (void)qp_create_body(w, &ground, &r);
    if (r != QP_OK) return r;

    /* Four walls 2 m high around the floor. */
    const fix16_t wall_at = ARENA + QP_FRAC(1, 2);
    const qp_vec3 long_x = qp_v3(ARENA + QP_ONE, QP_ONE, QP_FRAC(1, 2));
    const qp_vec3 long_z = qp_v3(QP_FRAC(1, 2), QP_ONE, ARENA + QP_ONE);
    if ((r = add_box(w, QP_BODY_STATIC, long_x, qp_v3(0, QP_ONE, wall_at), 0, 0)) != QP_OK ||
        (r = add_box(w, QP_BODY_STATIC, long_x, qp_v3(0, QP_ONE, -wall_at), 0, 0)) != QP_OK ||
        (r = add_box(w, QP_BODY_STATIC, long_z, qp_v3(wall_at, QP_ONE, 0), 0, 0)) != QP_OK ||
        (r = add_box(w, QP_BODY_STATIC, long_z, qp_v3(-wall_at, QP_ONE, 0), 0, 0)) != QP_OK)
        return r;

    /* The avatars, in opposite corners. */
    const qp_vec3 avatar = qp_v3(AVATAR_HALF, AVATAR_HALF, AVATAR_HALF);
    if ((r = add_box(w, QP_BODY_DYNAMIC, avatar, qp_v3(QP_INT(-4), AVATAR_HALF, QP_INT(-4)), QP_INT(4),
                     USER(TAG_AVATAR, 0))) != QP_OK ||
        (r = add_box(w, QP_BODY_DYNAMIC, avatar, qp_v3(QP_INT(4), AVATAR_HALF, QP_INT(4)), QP_INT(4),
                     USER(TAG_AVATAR, 1))) != QP_OK)
        return r;

    /* Two stacks of three crates in the middle, to be knocked over. */
    const qp_vec3 crate = qp_v3(CRATE_HALF, CRATE_HALF, CRATE_HALF);
    for (int i = 0; i < 6; i++) {
        const fix16_t x = i < 3 ? QP_FRAC(-3, 2) : QP_FRAC(3, 2);
        const fix16_t y = CRATE_HALF + (fix16_t)(i % 3) * 2 * CRATE_HALF;
        if ((r = add_box(w, QP_BODY_DYNAMIC, crate, qp_v3(x, y, 0), 0, USER(TAG_CRATE, 0))) != QP_OK) return r;
    }
    return QP_OK;
}

static qp_body_id find_avatar(const qp_world *w, int player)
{
    const int n = qp_world_capacity();
    for (int i = 1; i <= n; i++) {
        qp_body_id id = qp_world_body_at(w, i);
        if (!qp_body_id_is_null(id) && qp_body_user_data(w, id) == USER(TAG_AVATAR, (uint32_t)player)) return id;
    }
    return qp_null_body();
}

static void push(qp_world *w, int player, unsigned stick)
{
    static const fix16_t dir[8][2] = { { QP_ONE, 0 }, { DIAG, DIAG }, { 0, QP_ONE }, { -DIAG, DIAG },
                                       { -QP_ONE, 0 }, { -DIAG, -DIAG }, { 0, -QP_ONE }, { DIAG, -DIAG } };
    qp_body_id id = find_avatar(w, player);
    if (qp_body_id_is_null(id) || stick == 0u || stick > 8u) return;
    const qp_vec3 impulse = qp_v3(qp_mul(dir[stick - 1][0], PUSH), 0, qp_mul(dir[stick - 1][1], PUSH));
    (void)qp_body_apply_impulse(w, id, impulse, qp_body_center(w, id));
}

/* A crate from spawn point `spawn` (one per corner, 4 m up), thrown towards the middle. When
 * LS_MAX_CRATES are in play the oldest goes first (lowest number, then lowest slot). */
static void throw_crate(qp_world *w, uint32_t frame, int player, unsigned spawn)
{
    static const int corner[4][2] = { { -1, -1 }, { 1, -1 }, { 1, 1 }, { -1, 1 } };
    const int n = qp_world_capacity();
    int crates = 0;
    qp_body_id oldest = qp_null_body();
    uint32_t oldest_user = 0;
    for (int i = 1; i <= n; i++) {
        qp_body_id id = qp_world_body_at(w, i);
        if (qp_body_id_is_null(id)) continue;
        const uint32_t u = qp_body_user_data(w, id);
        if (USER_TAG(u) != TAG_CRATE) continue;
        crates++;
        if (qp_body_id_is_null(oldest) || u < oldest_user) {
            oldest = id;
            oldest_user = u;
        }
    }
    if (crates >= LS_MAX_CRATES) (void)qp_destroy_body(w, oldest);

    const int sx = corner[spawn & 3u][0], sz = corner[spawn & 3u][1];
    qp_body_def d = qp_default_body_def();
    d.shape_count = 1;
    if (qp_make_box(qp_v3(CRATE_HALF, CRATE_HALF, CRATE_HALF), &d.shapes[0]) != QP_OK) return;
    d.position = qp_v3(QP_INT(6) * sx, QP_INT(4), QP_INT(6) * sz);
    d.linear_velocity = qp_v3(QP_INT(-3) * sx, QP_INT(2), QP_INT(-3) * sz);
    /* A tumble that differs from throw to throw: up to about 3 rad/s about each axis. */
    const int32_t spin = (int32_t)((frame * 7u + (uint32_t)player * 3u) % 7u) - 3;
    d.angular_velocity = qp_v3(QP_INT(spin), QP_INT(1), QP_INT(-spin));
    d.user_data = USER(TAG_CRATE, frame + 1u);
    qp_result r;
    (void)qp_create_body(w, &d, &r); /* cannot be full: the oldest crate made room */
}

void ls_game_frame(qp_world *w, uint32_t frame, const ls_input in[LS_PLAYERS])
{
    for (int p = 0; p < LS_PLAYERS; p++) {
        push(w, p, in[p] & LS_INPUT_STICK_MASK);
        if ((in[p] & LS_INPUT_THROW) != 0u)
            throw_crate(w, frame, p, (unsigned)(in[p] & LS_INPUT_SPAWN_MASK) >> LS_INPUT_SPAWN_SHIFT);
    }
    qp_world_step(w);
}

void ls_game_nudge(qp_world *w)
{
    qp_body_id id = find_avatar(w, 1);
    qp_vec3 p = qp_body_position(w, id);
    p.x += 1;
    (void)qp_body_set_pose(w, id, p, qp_body_rotation(w, id));
}

/* A 32-bit integer mixer (xorshift-multiply rounds): well spread bits from a counter. */
static uint32_t mix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

ls_input ls_bot_input(int player, uint32_t frame)
{
    const uint32_t p = (uint32_t)player & 1u;
    /* The stick: one of 9 positions, held for 32 frames; player 1 changes 16 frames later. */
    const uint32_t held = (frame + 16u * p) >> 5;
    ls_input in = (ls_input)(mix(held * 2u + p + 0x9e3779b9u) % 9u);
    /* A throw about one frame in 40, from one of the four corners. */
    const uint32_t t = mix(frame * 2u + p + 0x85ebca6bu);
    if (t % 40u == 0u) in = (ls_input)(in | LS_INPUT_THROW | (((t >> 8) & 3u) << LS_INPUT_SPAWN_SHIFT));
    return in;
}
