/* SPDX-License-Identifier: MIT */
/* proto.h - the lockstep demo's packet: a peer's inputs, and its confirmed frames' hashes,
 * committed to before they are revealed.
 *
 * One format for UDP datagrams (host to host) and for a byte stream (a serial line to a
 * board), little-endian, integers as LEB128 varints (shortest form only):
 *
 *   'Q' 'L'  length (1 byte, the whole packet)  version (1)  sender (1: 0 or 1)  flags (1)
 *   end          frames in the run (both peers must agree), 1..LS_MAX_FRAMES
 *   desync_at    0, or (with LS_FLAG_DESYNC) 1 + the frame whose hashes differed
 *   input_ack    the sender holds the receiver's inputs of every frame below this
 *   commit_ack   the sender holds the receiver's commitments of every frame below this
 *   hash_ack     the sender holds the receiver's hashes of every frame below this
 *   first_input  input_count (0..LS_MAX_INPUTS)  inputs, 2 bytes each: frames first_input..
 *   first_commit commit_count (0..LS_MAX_HASHES) commitments, 4 bytes each (ls_commit of the
 *                sender's hash of each frame first_commit..)
 *   first_hash   hash_count (0..LS_MAX_HASHES)   hashes, 4 bytes each: frames first_hash..
 *                (a hash is revealed only for frames below commit_ack: after the sender
 *                held the receiver's commitment of it, so it cannot echo the other's hash)
 *   CRC-32 (IEEE) of every byte before it
 *
 * Decoding checks all of it (length against the bytes received and against the counts,
 * magic, version, CRC, sender, flags, varint forms, frame ranges, every input's layout) and
 * reads nothing outside the buffer; whether the frames are in the receiver's window is the
 * peer's check (peer.c). No OS calls: the board builds this file too.
 */
#ifndef LS_PROTO_H
#define LS_PROTO_H

#include <stdint.h>
#include "game.h"

#define LS_VERSION 2u      /* 2: commitments and the desync frame */
#define LS_MAX_FRAMES 1000000u   /* frames in a run at most (crate numbers are 24-bit) */
#define LS_MAX_INPUTS 16         /* inputs per packet: the redundancy that rides over loss */
#define LS_MAX_HASHES 16
#define LS_PACKET_MIN 20u        /* 6 header bytes, 10 one-byte varints, the CRC */
#define LS_PACKET_MAX 224u       /* 6 + 10 * 5 + 16 * 2 + 16 * 4 + 16 * 4 + 4 = 220, rounded up */

enum {
    LS_FLAG_DONE = 1u,    /* the sender has compared every frame of the run */
    LS_FLAG_DESYNC = 2u   /* the sender found a desync and stopped */
};

typedef struct {
    uint8_t sender, flags;
    uint32_t end, desync_at, input_ack, commit_ack, hash_ack;
    uint32_t first_input;
    uint8_t input_count;
    ls_input inputs[LS_MAX_INPUTS];
    uint32_t first_commit;
    uint8_t commit_count;
    uint32_t commits[LS_MAX_HASHES];
    uint32_t first_hash;
    uint8_t hash_count;
    uint32_t hashes[LS_MAX_HASHES];
} ls_packet;

typedef enum {
    LS_PACKET_OK = 0,
    LS_PACKET_SHORT,      /* fewer bytes than its length field says, or than the least packet */
    LS_PACKET_LENGTH,     /* length field outside LS_PACKET_MIN..MAX or not the bytes received */
    LS_PACKET_MAGIC,
    LS_PACKET_VERSION,
    LS_PACKET_CRC,
    LS_PACKET_FIELD,      /* sender, flags, a varint, a count, a frame range or an input malformed */
    LS_PACKET_RESULT_COUNT
} ls_packet_result;

const char *ls_packet_result_str(ls_packet_result r);

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32) of n bytes. */
uint32_t ls_crc32(const uint8_t *p, unsigned n);

/* The commitment of `sender` to `hash` as its hash of `frame`: a digest that differs for
 * the two senders, so that echoing the other's commitment commits to nothing, and that
 * folds 64 bits of mixing into 32, so that it is no permutation of the hash to run
 * backwards. Finding the hash from it takes a search over its 2^32 values for every frame
 * (the state hash is 32 bits): a peer that echoes is caught, one that searches is slowed,
 * and a game that must stop that too commits with a keyed or longer hash. */
uint32_t ls_commit(unsigned sender, uint32_t frame, uint32_t hash);

/* Encode p into out (cap bytes); returns the length, or 0 when p breaks a rule above or
 * does not fit. */
unsigned ls_packet_encode(const ls_packet *p, uint8_t *out, unsigned cap);

/* Decode exactly len bytes (one datagram, or one frame cut from a stream) into *p;
 * *p is written only when the result is LS_PACKET_OK. */
ls_packet_result ls_packet_decode(const uint8_t *in, unsigned len, ls_packet *p);

/* Packets out of a byte stream (a serial line): put each byte received, then get packets
 * until there is none. Bytes that do not start a sound packet (noise, a damaged packet) are
 * skipped one at a time, and whatever followed them is scanned again, so the next sound
 * packet comes out whole. */
typedef struct {
    uint8_t buf[LS_PACKET_MAX];
    unsigned n;
    uint32_t skipped;     /* bytes thrown away */
} ls_framer;

void ls_framer_init(ls_framer *f);
void ls_framer_put(ls_framer *f, uint8_t byte);
/* 1 when *p holds the next whole packet, else 0 (then the buffer holds at most the start of
 * one, so ls_framer_put never overflows it). */
int ls_framer_get(ls_framer *f, ls_packet *p);

#endif
