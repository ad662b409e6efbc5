/* SPDX-License-Identifier: MIT */
/* peer.h - one peer of the lockstep demo: its inputs, the other's, prediction, rollback
 * and the comparison of confirmed-frame hashes. No OS calls (the board runs it too): the
 * caller moves packets (proto.h) in and out and calls these in a loop.
 *
 * Frames: frame f applies both players' inputs of f, steps the world once, and is hashed.
 * A frame is confirmed when both inputs of it and of every frame before it are known and it
 * was simulated with them. A predicting peer simulates up to LS_MAX_AHEAD frames past its
 * last confirmed one with the other's last known input repeated, keeps the state before each
 * of those frames (qp_world_snapshot into fixed slots), and when an input arrives that
 * differs from what it assumed, restores the state before that frame and simulates again
 * up to where it was. A lockstep peer (the board) waits for the other's input instead.
 *
 * Hashes: a peer sends a commitment to each confirmed frame's hash (ls_commit) and reveals
 * the hash itself only once it holds the other's commitment of that frame; the receiver
 * compares a frame when it holds both and the commitment matches the hash. A peer that
 * echoes the other's hashes without simulating must commit before it has seen them, and is
 * caught at the first frame (a broken commitment counts as a desync of that frame).
 *
 * Windows: everything per frame lives in rings of LS_RING frames starting at the oldest
 * frame still needed (`low`: not yet compared, or not yet acknowledged by the other). A
 * peer makes a new input only while the other's furthest possible lead still fits its ring,
 * so every frame number a sound peer sends falls in the receiver's window; anything outside
 * (or contradicting what was received before) is refused whole, before anything is applied.
 */
#ifndef LS_PEER_H
#define LS_PEER_H

#include <stdbool.h>
#include <stdint.h>
#include "game.h"
#include "proto.h"

#define LS_RING 128        /* frames of inputs and hashes kept (a power of two) */
#define LS_SNAP_RING 32    /* snapshot slots: the state before each of the last 32 frames */
#define LS_MAX_AHEAD 30    /* frames a predicting peer runs past its last confirmed one */
/* Bytes of a snapshot slot: the engine's worst case (QP_SNAPSHOT_SIZE) for the game's world:
 * LS_MAX_BODIES one-shape bodies whose slots were ever used, a contact between every two of
 * them (or as many as the contact pool holds), no sensor and no joint; 63 KB with the default
 * pools, where the demo's snapshots measure 2-13 KB. A larger one would stop the peer with an
 * error, not overflow. The assertion keeps the slot from falling below that bound when either
 * changes. */
#define LS_PAIRS (LS_MAX_BODIES * (LS_MAX_BODIES - 1) / 2)
#define LS_SNAP_CONTACTS (LS_PAIRS < QP_CFG_MAX_CONTACTS ? LS_PAIRS : QP_CFG_MAX_CONTACTS)
#define LS_SNAP_SLOT ((QP_SNAPSHOT_SIZE(LS_MAX_BODIES, LS_MAX_BODIES, LS_SNAP_CONTACTS, 0, 0) + 15ul) & ~15ul)
_Static_assert(LS_SNAP_SLOT >= QP_SNAPSHOT_SIZE(LS_MAX_BODIES, LS_MAX_BODIES, LS_SNAP_CONTACTS, 0, 0),
               "a snapshot slot holds the game world's worst case");

typedef struct {
    uint32_t frames;           /* frames simulated for the first time */
    uint32_t rollbacks;        /* restores */
    uint32_t resim_steps;      /* frames simulated again after a restore */
    uint32_t longest;          /* most frames re-simulated by one rollback */
    uint32_t mispredicted;     /* inputs of the other that differed from the prediction */
    uint64_t rollback_ticks;   /* clock ticks (peer.clock) in rollbacks: restore and re-simulation */
    uint64_t restore_ticks;    /* of which in qp_world_restore */
    uint64_t frame_ticks;      /* in first simulations, their snapshot included */
    uint64_t snapshot_ticks;   /* in qp_world_snapshot */
    uint32_t snapshots;
    uint64_t snapshot_bytes;   /* sum of their sizes */
    uint32_t snapshot_max;
    uint32_t packets_in;       /* accepted */
    uint32_t packets_refused;  /* sound packets refused by the window checks */
} ls_peer_stats;

typedef struct {
    qp_world *world;
    int me;                    /* player 0 or 1; the other sends as 1 - me */
    bool predict;              /* true: predict and roll back; false: lockstep */
    uint32_t end;              /* frames in the run (0 until learnt from the first packet) */
    int32_t nudge_at;          /* frame at which this peer perturbs its world (-1: never) */

    uint8_t *snap_mem;         /* LS_SNAP_RING slots of snap_slot bytes (predicting peers) */
    unsigned long snap_slot;
    uint32_t snap_tag[LS_SNAP_RING];   /* frame + 1 whose starting state the slot holds, 0 none */
    uint32_t snap_size[LS_SNAP_RING];  /* its bytes */

    uint32_t frame;            /* frames simulated: the next one to simulate */
    uint32_t local_count;      /* my inputs made: frames below (frame or frame + 1) */
    uint32_t remote_contig;    /* the other's inputs known for every frame below */
    uint32_t confirmed;        /* frames below are confirmed */
    uint32_t compared;         /* frames below had their hashes compared */
    uint32_t remote_hash_contig;
    uint32_t remote_commit_contig;
    uint32_t rollback_to;      /* earliest frame simulated on a wrong guess; UINT32_MAX none */
    ls_input last_remote;      /* the other's input of frame remote_contig - 1: the prediction */

    ls_input local[LS_RING];
    ls_input remote[LS_RING];
    uint32_t remote_tag[LS_RING];      /* frame + 1 of the real input held, 0 none */
    ls_input used[LS_RING];            /* the other's input the last simulation of a frame used */
    uint32_t hash[LS_RING];            /* world hash after a frame's last simulation */
    uint32_t remote_hash[LS_RING];
    uint32_t remote_hash_tag[LS_RING]; /* frame + 1, 0 none */
    uint32_t remote_commit[LS_RING];   /* the other's commitment to its hash of a frame */
    uint32_t remote_commit_tag[LS_RING];

    uint32_t peer_input_ack, peer_commit_ack, peer_hash_ack;   /* what the other holds of mine */
    uint32_t peer_flags;                      /* flags the other has sent (LS_FLAG_*), or-ed */
    uint32_t inputs_sent, commits_sent, hashes_sent;   /* reliable links: what went out already */
    uint32_t sent_acks[3];
    uint8_t sent_flags;
    bool sent_any;

    bool stopped;              /* a desync (found here or by the other): no more frames */
    int32_t desync_frame;      /* first frame whose hashes differed, -1 none */
    uint32_t desync_mine, desync_theirs;
    bool desync_commitment;    /* that frame's hash broke the other's commitment to it */
    int32_t remote_desync_frame;   /* the frame at which the other reports a desync, -1 none */
    const char *error;         /* an internal failure (snapshot too large, restore refused) */
    uint64_t (*clock)(void);   /* what the costs are measured in (host: CPU ns); none by default */
    ls_peer_stats stats;
} ls_peer;

/* Set up peer `me` (0 or 1) and its world (ls_game_init). end: the frames of the run, or 0
 * to take it from the first packet. A predicting peer needs snap_mem: LS_SNAP_RING slots of
 * snap_slot bytes each. */
qp_result ls_peer_init(ls_peer *p, qp_world *w, int me, uint32_t end, bool predict, uint8_t *snap_mem,
                       unsigned long snap_slot);

/* true when the peer wants its own input of frame p->local_count (ls_peer_local_input). */
bool ls_peer_wants_input(const ls_peer *p);
void ls_peer_local_input(ls_peer *p, ls_input in);

/* A decoded packet: NULL when accepted (and applied), else why it was refused (and nothing
 * of it applied). */
const char *ls_peer_receive(ls_peer *p, const ls_packet *pk);

/* Roll back and simulate again if a guess was wrong, confirm, compare hashes. false on an
 * internal failure (p->error says which). */
bool ls_peer_update(ls_peer *p);

/* Simulate the next frame if the windows allow it; true if it did. */
bool ls_peer_advance(ls_peer *p);

/* The next packet. Datagrams (reliable false): everything the other has not acknowledged, up
 * to LS_MAX_INPUTS inputs and LS_MAX_HASHES hashes, always. A reliable stream: what was not
 * sent yet; false when there is nothing new to say. */
bool ls_peer_packet(ls_peer *p, ls_packet *out, bool reliable);

/* Every frame compared, or stopped by a desync: one this peer found, or the one the other
 * reports (remote_desync_frame names its frame) once this peer has compared that frame
 * itself, or at once if it never simulated it. */
bool ls_peer_finished(const ls_peer *p);

#endif
