/* SPDX-License-Identifier: MIT */
/* game.h - the lockstep demo's game: a walled arena, two avatars pushed by their players'
 * sticks, and crates the players throw in from four spawn points.
 *
 * Everything the game is lives in the qp_world (avatars and crates are told apart by their
 * user_data), so a snapshot of the world is a snapshot of the game, and one frame is a pure
 * function of the world and the two players' inputs. Shared by the host and the board.
 */
#ifndef LS_GAME_H
#define LS_GAME_H

#include <stdbool.h>
#include <stdint.h>
#include "qphys/qphys.h"

#define LS_PLAYERS 2
/* Crates in play at most (6 at the start, thrown ones replace the oldest past this):
 * with the ground, 4 walls and 2 avatars the world holds at most 23 bodies. */
#define LS_MAX_CRATES 16
#define LS_MAX_BODIES (1 + 4 + LS_PLAYERS + LS_MAX_CRATES)

/* One player's input for one frame, 16 bits:
 *   bits 0-3  stick: 0 none, 1..8 the eight compass directions (1 = +x, counter-clockwise
 *             seen from above in steps of 45 degrees); the avatar is pushed that way
 *   bit  4    throw: a crate is thrown in from the spawn point of bits 5-6
 *   bits 5-6  spawn point 0..3 (zero unless throwing)
 *   bits 7-15 zero */
typedef uint16_t ls_input;
#define LS_INPUT_STICK_MASK 0x000Fu
#define LS_INPUT_THROW 0x0010u
#define LS_INPUT_SPAWN_SHIFT 5
#define LS_INPUT_SPAWN_MASK 0x0060u

/* true for an input with no bit outside the layout above (a network input is checked
 * with it before it is used). */
bool ls_input_valid(ls_input in);

/* The world of frame 0 into w (qp_world_init with the default def, then the bodies). */
qp_result ls_game_init(qp_world *w);

/* Frame `frame`: apply in[0] and in[1] (players 0 and 1), then one qp_world_step. */
void ls_game_frame(qp_world *w, uint32_t frame, const ls_input in[LS_PLAYERS]);

/* The deliberate desync of --desync-at: player 1's avatar moved by one LSB (1/65536 m) in x. */
void ls_game_nudge(qp_world *w);

/* The scripted player: its input for a frame, a pure function of (player, frame), so every
 * peer, host or board, plays the same game. A stick held for 32 frames at a time, a throw
 * about every 40 frames. */
ls_input ls_bot_input(int player, uint32_t frame);

#endif
