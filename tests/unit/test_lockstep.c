/* SPDX-License-Identifier: MIT */
/* The lockstep demo's packets and peers (examples/lockstep, docs/lockstep.md), in one
 * process, so that make test runs them under ASan and UBSan too:
 * 1. Packets: random packets survive encode and decode; every single-bit flip and every
 *    truncation of one is refused; packets re-signed after breaking one rule (sender, flags,
 *    version, a count, a frame range, an input's layout, a varint not in its shortest form,
 *    a stray byte) are refused; of 200 000 random byte strings with a right length and CRC,
 *    every one decoded re-encodes to the same bytes (one packet, one encoding), and none is
 *    read out of bounds.
 * 2. The stream framer: packets among noise, a damaged packet and a false start come out
 *    whole and in order, whatever the damaged one was, fed a byte at a time.
 * 3. A peer's windows: an input past its window, an acknowledgement of inputs or hashes
 *    never sent, a hash of a frame it cannot have confirmed, an input or hash that changed,
 *    another sender or run: refused, and the peer is left exactly as it was.
 * 4. Two predicting peers over an in-memory link with loss, delay and reordering end with
 *    the hash of the same inputs played in one world, after rollbacks; a one-LSB nudge at
 *    frame 90 is reported at frame 90 by both; a lockstep peer (the board's way) agrees too.
 * 5. Hostile peers: one that echoes the other's commitments and hashes is caught at frame 0;
 *    a desync flag stops the receiver and names the frame; 20 000 garbage packets (random
 *    signed bytes, random sound packets, a real peer's with a field changed) leave the
 *    honest peer as it was whenever they are refused; a snapshot slot holds the largest
 *    snapshot the game's world can make (every number at its longest).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* The demo's sources are one translation unit with this test (the unit rule builds one file). */
#include "../../examples/lockstep/game.c"
#include "../../examples/lockstep/peer.c"
#include "../../examples/lockstep/proto.c"

static uint32_t rng = 12345u;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static ls_input random_input(void)
{
    ls_input in = (ls_input)(rnd() % 9u);
    if (rnd() % 4u == 0u) in = (ls_input)(in | LS_INPUT_THROW | ((rnd() % 4u) << LS_INPUT_SPAWN_SHIFT));
    return in;
}

static ls_packet random_packet(void)
{
    ls_packet p;
    memset(&p, 0, sizeof p);
    p.sender = (uint8_t)(rnd() & 1u);
    p.flags = (uint8_t)(rnd() & 3u);
    const uint32_t range = rnd() % 2u ? 300u : LS_MAX_FRAMES; /* short runs and long ones */
    p.end = 1u + rnd() % range;
    p.desync_at = (p.flags & LS_FLAG_DESYNC) ? 1u + rnd() % p.end : 0u;
    p.input_ack = rnd() % (p.end + 1u);
    p.commit_ack = rnd() % (p.end + 1u);
    p.hash_ack = rnd() % (p.end + 1u);
    p.input_count = (uint8_t)(rnd() % (LS_MAX_INPUTS + 1u));
    if (p.input_count > p.end) p.input_count = (uint8_t)p.end;
    p.first_input = rnd() % (p.end - p.input_count + 1u);
    for (unsigned i = 0; i < p.input_count; i++) p.inputs[i] = random_input();
    p.commit_count = (uint8_t)(rnd() % (LS_MAX_HASHES + 1u));
    if (p.commit_count > p.end) p.commit_count = (uint8_t)p.end;
    p.first_commit = rnd() % (p.end - p.commit_count + 1u);
    for (unsigned i = 0; i < p.commit_count; i++) p.commits[i] = rnd();
    p.hash_count = (uint8_t)(rnd() % (LS_MAX_HASHES + 1u));
    if (p.hash_count > p.end) p.hash_count = (uint8_t)p.end;
    p.first_hash = rnd() % (p.end - p.hash_count + 1u);
    for (unsigned i = 0; i < p.hash_count; i++) p.hashes[i] = rnd();
    return p;
}

static void assert_same_packet(const ls_packet *a, const ls_packet *b)
{
    assert_int_equal(a->sender, b->sender);
    assert_int_equal(a->flags, b->flags);
    assert_int_equal(a->end, b->end);
    assert_int_equal(a->desync_at, b->desync_at);
    assert_int_equal(a->input_ack, b->input_ack);
    assert_int_equal(a->commit_ack, b->commit_ack);
    assert_int_equal(a->hash_ack, b->hash_ack);
    assert_int_equal(a->first_input, b->first_input);
    assert_int_equal(a->input_count, b->input_count);
    assert_memory_equal(a->inputs, b->inputs, a->input_count * sizeof a->inputs[0]);
    assert_int_equal(a->first_commit, b->first_commit);
    assert_int_equal(a->commit_count, b->commit_count);
    assert_memory_equal(a->commits, b->commits, a->commit_count * sizeof a->commits[0]);
    assert_int_equal(a->first_hash, b->first_hash);
    assert_int_equal(a->hash_count, b->hash_count);
    assert_memory_equal(a->hashes, b->hashes, a->hash_count * sizeof a->hashes[0]);
}

/* Rewrite a packet's length byte and CRC after changing it on purpose. */
static unsigned resign(uint8_t *b, unsigned body)
{
    b[2] = (uint8_t)(body + 4u);
    const uint32_t c = ls_crc32(b, body);
    for (int i = 0; i < 4; i++) b[body + (unsigned)i] = (uint8_t)(c >> (8 * i));
    return body + 4u;
}

static void test_packets(void **state)
{
    (void)state;
    uint8_t b[LS_PACKET_MAX + 8], c[LS_PACKET_MAX + 8];
    ls_packet p, q;
    for (int round = 0; round < 300; round++) {
        p = random_packet();
        const unsigned n = ls_packet_encode(&p, b, sizeof b);
        assert_true(n >= LS_PACKET_MIN && n <= LS_PACKET_MAX);
        assert_int_equal(ls_packet_decode(b, n, &q), LS_PACKET_OK);
        assert_same_packet(&p, &q);
        for (unsigned bit = 0; bit < n * 8u; bit++) {
            memcpy(c, b, n);
            c[bit / 8u] ^= (uint8_t)(1u << (bit % 8u));
            assert_int_not_equal(ls_packet_decode(c, n, &q), LS_PACKET_OK);
        }
        for (unsigned len = 0; len < n; len++) assert_int_not_equal(ls_packet_decode(b, len, &q), LS_PACKET_OK);
        b[n] = 0;
        assert_int_equal(ls_packet_decode(b, n + 1u, &q), LS_PACKET_LENGTH); /* a byte too many */
    }

    /* One rule broken at a time, in packets re-signed so that only that rule can refuse them. */
    ls_packet base;
    memset(&base, 0, sizeof base);
    base.end = 100;
    base.first_input = 10;
    base.input_count = 2;
    base.inputs[0] = 3;
    base.inputs[1] = (ls_input)(LS_INPUT_THROW | (2u << LS_INPUT_SPAWN_SHIFT));
    base.first_hash = 5;
    base.hash_count = 1;
    base.hashes[0] = 0xdeadbeefu;
    unsigned n = ls_packet_encode(&base, b, sizeof b);
    assert_int_equal(ls_packet_decode(b, n, &q), LS_PACKET_OK);
    const unsigned body = n - 4u;
    /* Layout of this packet: QL len ver sender flags | end desync ia ca ha | fi 2 in0 in0 in1 in1 |
     * fc 0 | fh 1 h h h h | crc */
    struct { unsigned at; uint8_t value; ls_packet_result want; } edits[] = {
        { 3, 1, LS_PACKET_VERSION },  /* version 1: no commitments */
        { 4, 2, LS_PACKET_FIELD },    /* sender */
        { 5, 4, LS_PACKET_FIELD },    /* an unknown flag */
        { 5, 2, LS_PACKET_FIELD },    /* a desync without its frame */
        { 7, 5, LS_PACKET_FIELD },    /* a desync frame without the flag */
        { 8, 101, LS_PACKET_FIELD },  /* input_ack past end */
        { 9, 101, LS_PACKET_FIELD },  /* commit_ack past end */
        { 11, 99, LS_PACKET_FIELD },  /* inputs 99, 100: past end */
        { 12, 17, LS_PACKET_FIELD },  /* 17 inputs */
        { 13, 9, LS_PACKET_FIELD },   /* stick 9 */
        { 15, 0x20, LS_PACKET_FIELD },/* a spawn point without a throw */
        { 16, 0x80, LS_PACKET_FIELD },/* bit 15 of an input */
        { 18, 17, LS_PACKET_FIELD },  /* 17 commitments */
        { 20, 17, LS_PACKET_FIELD },  /* 17 hashes */
    };
    for (unsigned i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        memcpy(c, b, n);
        c[edits[i].at] = edits[i].value;
        const unsigned m = resign(c, body);
        assert_int_equal(ls_packet_decode(c, m, &q), edits[i].want);
    }
    /* A varint with a redundant continuation: end 100 written as 0xE4 0x80 0x00. */
    memcpy(c, b, 6);
    c[6] = 0xE4;
    c[7] = 0x80;
    c[8] = 0x00;
    memcpy(c + 9, b + 7, body - 7u);
    assert_int_equal(ls_packet_decode(c, resign(c, body + 2u), &q), LS_PACKET_FIELD);
    /* A stray byte before the CRC. */
    memcpy(c, b, body);
    c[body] = 0;
    assert_int_equal(ls_packet_decode(c, resign(c, body + 1u), &q), LS_PACKET_FIELD);
    /* The encoder keeps the same rules. */
    q = base;
    q.sender = 2;
    assert_int_equal(ls_packet_encode(&q, c, sizeof c), 0);
    q = base;
    q.inputs[0] = 9;
    assert_int_equal(ls_packet_encode(&q, c, sizeof c), 0);
    assert_int_equal(ls_packet_encode(&base, c, 20), 0); /* no room */

    /* Random strings with the right magic, length and CRC: half of them random bytes, half
     * sound packets with 1..3 bytes changed (and maybe cut or grown): whatever decodes is
     * canonical. */
    int decoded = 0;
    for (int round = 0; round < 200000; round++) {
        unsigned len;
        uint8_t src[LS_PACKET_MAX + 8];
        if (round % 2 == 0) {
            len = LS_PACKET_MIN + rnd() % (LS_PACKET_MAX - LS_PACKET_MIN + 1u);
            for (unsigned i = 0; i < len; i++) src[i] = (uint8_t)rnd();
            src[3] = LS_VERSION;
            src[4] &= 1u;
            src[5] &= 3u;
        } else {
            p = random_packet();
            len = ls_packet_encode(&p, src, sizeof src);
            for (unsigned k = 1u + rnd() % 3u; k > 0; k--) src[4u + rnd() % (len - 8u)] = (uint8_t)rnd();
            if (rnd() % 4u == 0u && len > LS_PACKET_MIN) len--;
            else if (rnd() % 4u == 0u && len < LS_PACKET_MAX) src[len++] = (uint8_t)rnd();
        }
        src[0] = 'Q';
        src[1] = 'L';
        resign(src, len - 4u);
        uint8_t *r = malloc(len); /* exactly len bytes: ASan sees any read past them */
        assert_non_null(r);
        memcpy(r, src, len);
        if (ls_packet_decode(r, len, &q) == LS_PACKET_OK) {
            decoded++;
            assert_int_equal(ls_packet_encode(&q, c, sizeof c), len);
            assert_memory_equal(c, r, len);
        }
        free(r);
    }
    print_message("lockstep: %d of 200000 random signed strings were sound packets, each canonical\n", decoded);
}

static void test_framer(void **state)
{
    (void)state;
    uint8_t stream[2048], pk[4][LS_PACKET_MAX];
    unsigned len[4], n = 0;
    ls_packet p[4], q;
    for (int i = 0; i < 4; i++) {
        p[i] = random_packet();
        len[i] = ls_packet_encode(&p[i], pk[i], LS_PACKET_MAX);
        assert_true(len[i] > 0u);
    }
    for (int round = 0; round < 200; round++) {
        n = 0;
        for (unsigned k = rnd() % 20u; k > 0; k--) stream[n++] = (uint8_t)rnd();   /* noise */
        memcpy(stream + n, pk[0], len[0]);
        n += len[0];
        stream[n++] = 'Q';                                                         /* a false start */
        stream[n++] = 'L';
        stream[n++] = (uint8_t)(LS_PACKET_MIN + rnd() % 100u);
        memcpy(stream + n, pk[1], len[1]);
        n += len[1];
        memcpy(stream + n, pk[2], len[2]);                                         /* damaged */
        stream[n + rnd() % len[2]] ^= (uint8_t)(1u << (rnd() % 8u));
        n += len[2];
        memcpy(stream + n, pk[3], len[3]);
        n += len[3];
        for (unsigned k = 0; k < LS_PACKET_MAX; k++) stream[n++] = 0;              /* the line goes quiet */

        ls_framer f;
        ls_framer_init(&f);
        int got = 0, want[3] = { 0, 1, 3 };
        for (unsigned i = 0; i < n; i++) {
            ls_framer_put(&f, stream[i]);
            while (ls_framer_get(&f, &q)) {
                assert_true(got < 3);
                assert_same_packet(&q, &p[want[got]]);
                got++;
            }
        }
        assert_int_equal(got, 3);
    }
}

static qp_world wa, wb, wref;
static ls_peer pa, pb;
static uint8_t snap_a[LS_SNAP_RING][LS_SNAP_SLOT], snap_b[LS_SNAP_RING][LS_SNAP_SLOT];

/* Pass packets from one peer to the other, encoded and decoded, and assert acceptance. */
static void deliver(ls_peer *from, ls_peer *to)
{
    ls_packet p, q;
    uint8_t b[LS_PACKET_MAX];
    assert_true(ls_peer_packet(from, &p, false));
    const unsigned n = ls_packet_encode(&p, b, sizeof b);
    assert_true(n > 0u);
    assert_int_equal(ls_packet_decode(b, n, &q), LS_PACKET_OK);
    assert_null(ls_peer_receive(to, &q));
}

static void step_peer(ls_peer *p)
{
    assert_true(ls_peer_update(p));
    if (ls_peer_wants_input(p)) ls_peer_local_input(p, ls_bot_input(p->me, p->local_count));
    ls_peer_advance(p);
    assert_true(ls_peer_update(p));
}

static void test_peer_windows(void **state)
{
    (void)state;
    assert_int_equal(ls_peer_init(&pa, &wa, 0, 1000, true, &snap_a[0][0], LS_SNAP_SLOT), QP_OK);
    assert_int_equal(ls_peer_init(&pb, &wb, 1, 1000, true, &snap_b[0][0], LS_SNAP_SLOT), QP_OK);
    for (int i = 0; i < 6; i++) {
        step_peer(&pa);
        step_peer(&pb);
        deliver(&pb, &pa);
        deliver(&pa, &pb);
    }
    step_peer(&pa);
    step_peer(&pb);
    deliver(&pb, &pa);
    step_peer(&pa);
    assert_int_equal(pa.remote_contig, 7);
    assert_int_equal(pa.confirmed, 7);

    ls_packet good;
    assert_true(ls_peer_packet(&pb, &good, false));
    assert_null(ls_peer_receive(&pa, &good)); /* a duplicate is fine */

    struct { const char *what; ls_packet p; } bad[10];
    int k = 0;
    for (int i = 0; i < 10; i++) bad[i].p = good;
    bad[k].what = "input past the window";
    bad[k].p.first_input = low_water(&pa) + LS_RING;
    bad[k++].p.input_count = 1;
    bad[k].what = "acknowledges inputs never sent";
    bad[k++].p.input_ack = pa.local_count + 1u;
    bad[k].what = "acknowledges hashes never sent";
    bad[k++].p.hash_ack = pa.confirmed + 1u;
    bad[k].what = "hash of a frame it cannot have confirmed";
    bad[k].p.first_hash = pa.local_count;
    bad[k++].p.hash_count = 1;
    bad[k].what = "an input that changed";
    bad[k].p.first_input = 2;
    bad[k].p.input_count = 1;
    bad[k++].p.inputs[0] = (ls_input)((pa.remote[2] + 1u) % 9u);
    bad[k].what = "a hash that changed";
    bad[k].p.first_hash = 0;
    bad[k].p.hash_count = 1;
    bad[k++].p.hashes[0] = pa.remote_hash[0] ^ 1u;
    bad[k].what = "another sender";
    bad[k++].p.sender = 0;
    bad[k].what = "another run";
    bad[k++].p.end = 999;
    assert_true(pa.remote_hash_contig > 0u); /* the changed hash above is of a frame it holds */
    static ls_peer before;
    for (int i = 0; i < k; i++) {
        before = pa;
        const char *why = ls_peer_receive(&pa, &bad[i].p);
        if (why == NULL) print_message("lockstep: %s: accepted\n", bad[i].what);
        assert_non_null(why);
        print_message("lockstep: %s: refused (%s)\n", bad[i].what, why);
        before.stats.packets_refused++;
        assert_memory_equal(&before, &pa, sizeof pa);
    }
}

/* An in-memory link: each packet is lost, delayed 2..5 ticks (so some overtake others) or
 * passed on, from a seeded generator. */
typedef struct {
    struct { uint32_t due; uint8_t b[LS_PACKET_MAX]; unsigned n; } q[64];
    int n;
} wire;

static void wire_send(wire *w, ls_peer *from, uint32_t tick, int loss_pct)
{
    ls_packet p;
    if (!ls_peer_packet(from, &p, false) || (int)(rnd() % 100u) < loss_pct || w->n == 64) return;
    w->q[w->n].due = tick + 2u + rnd() % 4u;
    w->q[w->n].n = ls_packet_encode(&p, w->q[w->n].b, LS_PACKET_MAX);
    assert_true(w->q[w->n].n > 0u);
    w->n++;
}

static void wire_deliver(wire *w, ls_peer *to, uint32_t tick)
{
    int k = 0;
    ls_packet p;
    for (int i = 0; i < w->n; i++) {
        if (w->q[i].due <= tick) {
            assert_int_equal(ls_packet_decode(w->q[i].b, w->q[i].n, &p), LS_PACKET_OK);
            assert_null(ls_peer_receive(to, &p));
        } else {
            w->q[k++] = w->q[i];
        }
    }
    w->n = k;
}

static uint32_t reference_hash(uint32_t frames)
{
    assert_int_equal(ls_game_init(&wref), QP_OK);
    for (uint32_t f = 0; f < frames; f++) {
        const ls_input in[LS_PLAYERS] = { ls_bot_input(0, f), ls_bot_input(1, f) };
        ls_game_frame(&wref, f, in);
    }
    return qp_world_hash(&wref);
}

/* Two peers for `frames` frames; peer b predicts unless lockstep_b; b nudges at nudge_b. */
static void play(uint32_t frames, int loss, bool lockstep_b, int32_t nudge_b)
{
    static wire ab, ba;
    memset(&ab, 0, sizeof ab);
    memset(&ba, 0, sizeof ba);
    assert_int_equal(ls_peer_init(&pa, &wa, 0, frames, true, &snap_a[0][0], LS_SNAP_SLOT), QP_OK);
    assert_int_equal(ls_peer_init(&pb, &wb, 1, frames, !lockstep_b, &snap_b[0][0], LS_SNAP_SLOT), QP_OK);
    pb.nudge_at = nudge_b;
    for (uint32_t tick = 0; tick < 20u * frames && !(ls_peer_finished(&pa) && ls_peer_finished(&pb)); tick++) {
        wire_deliver(&ba, &pa, tick);
        wire_deliver(&ab, &pb, tick);
        step_peer(&pa);
        step_peer(&pb);
        wire_send(&ab, &pa, tick, loss);
        wire_send(&ba, &pb, tick, loss);
    }
    assert_true(ls_peer_finished(&pa));
    assert_true(ls_peer_finished(&pb));
}

static void test_two_peers(void **state)
{
    (void)state;
    const uint32_t frames = 180;
    const uint32_t want = reference_hash(frames);
    play(frames, 15, false, -1);
    assert_int_equal(pa.desync_frame, -1);
    assert_int_equal(pb.desync_frame, -1);
    assert_int_equal(pa.compared, frames);
    assert_int_equal(pb.compared, frames);
    assert_true(pa.stats.rollbacks > 0u && pb.stats.rollbacks > 0u);
    assert_int_equal(qp_world_hash(&wa), want);
    assert_int_equal(qp_world_hash(&wb), want);
    print_message("lockstep: 180 frames, 15%% loss: %u + %u rollbacks, longest %u, final hash %08x as without a network\n",
                  pa.stats.rollbacks, pb.stats.rollbacks, pa.stats.longest, (unsigned)want);

    play(frames, 15, true, -1); /* b in lockstep, as the board */
    assert_int_equal(pa.compared, frames);
    assert_int_equal(pb.compared, frames);
    assert_int_equal(pb.stats.rollbacks, 0);
    assert_int_equal(qp_world_hash(&wb), want);
    assert_int_equal(qp_world_hash(&wa), want);

    play(frames, 15, false, 90);
    assert_int_equal(pa.desync_frame, 90);
    assert_int_equal(pb.desync_frame, 90);
    assert_int_not_equal(pa.desync_mine, pa.desync_theirs);
    assert_int_equal(pa.desync_mine, pb.desync_theirs);
}

/* ---- 5. hostile peers ---------------------------------------------------------------------- */

/* A peer that echoes: b plays (its inputs are real), but the commitments and hashes it sends
 * are a's own, copied from a's packets as they arrive, never its own. a must catch it at
 * the first frame it compares, as a broken commitment. */
static uint32_t echo_commit[LS_RING * 4], echo_commit_tag[LS_RING * 4], echo_hash[LS_RING * 4],
    echo_hash_tag[LS_RING * 4];

static void echo_listen(const ls_packet *from_a)
{
    for (unsigned i = 0; i < from_a->commit_count; i++) {
        const uint32_t f = from_a->first_commit + i;
        echo_commit[f] = from_a->commits[i];
        echo_commit_tag[f] = f + 1u;
    }
    for (unsigned i = 0; i < from_a->hash_count; i++) {
        const uint32_t f = from_a->first_hash + i;
        echo_hash[f] = from_a->hashes[i];
        echo_hash_tag[f] = f + 1u;
    }
}

static void echo_forge(ls_packet *out)
{
    unsigned n = 0;
    while (n < out->commit_count && echo_commit_tag[out->first_commit + n] == out->first_commit + n + 1u) {
        out->commits[n] = echo_commit[out->first_commit + n];
        n++;
    }
    out->commit_count = (uint8_t)n;
    n = 0;
    while (n < out->hash_count && echo_hash_tag[out->first_hash + n] == out->first_hash + n + 1u) {
        out->hashes[n] = echo_hash[out->first_hash + n];
        n++;
    }
    out->hash_count = (uint8_t)n;
}

static void test_echoing_peer_is_caught(void **state)
{
    (void)state;
    memset(echo_commit_tag, 0, sizeof echo_commit_tag);
    memset(echo_hash_tag, 0, sizeof echo_hash_tag);
    const uint32_t frames = 120;
    assert_int_equal(ls_peer_init(&pa, &wa, 0, frames, true, &snap_a[0][0], LS_SNAP_SLOT), QP_OK);
    assert_int_equal(ls_peer_init(&pb, &wb, 1, frames, true, &snap_b[0][0], LS_SNAP_SLOT), QP_OK);
    uint32_t echoed_hashes = 0;
    for (int tick = 0; tick < 400 && !ls_peer_finished(&pa); tick++) {
        step_peer(&pa);
        step_peer(&pb);
        ls_packet p, q;
        uint8_t b[LS_PACKET_MAX];
        if (ls_peer_packet(&pa, &p, false)) {
            const unsigned n = ls_packet_encode(&p, b, sizeof b);
            assert_int_equal(ls_packet_decode(b, n, &q), LS_PACKET_OK);
            echo_listen(&q);
            assert_null(ls_peer_receive(&pb, &q));
        }
        if (ls_peer_packet(&pb, &p, false)) {
            echo_forge(&p);
            echoed_hashes += p.hash_count;
            const unsigned n = ls_packet_encode(&p, b, sizeof b);
            assert_int_equal(ls_packet_decode(b, n, &q), LS_PACKET_OK);
            ls_peer_receive(&pa, &q);
        }
    }
    assert_true(echoed_hashes > 0u);
    assert_int_equal(pa.desync_frame, 0);
    assert_true(pa.desync_commitment);
    assert_true(pa.stopped);
    assert_true(pa.compared <= 1u);   /* nothing accepted past the echo */
    print_message("lockstep: an echoing peer is caught at frame %d (broken commitment)\n", (int)pa.desync_frame);
}

/* A desync flag stops the peer that receives it and names the frame it was found at. */
static void test_desync_flag_names_the_frame(void **state)
{
    (void)state;
    play(180, 15, false, 90);
    assert_true(pa.remote_desync_frame == 90 || pa.remote_desync_frame == -1);
    assert_true(pb.remote_desync_frame == 90 || pb.remote_desync_frame == -1);
    assert_int_equal(ls_peer_init(&pa, &wa, 0, 100, true, &snap_a[0][0], LS_SNAP_SLOT), QP_OK);
    for (int i = 0; i < 5; i++) step_peer(&pa);
    ls_packet p;
    memset(&p, 0, sizeof p);
    p.sender = 1;
    p.end = 100;
    p.flags = LS_FLAG_DESYNC;
    p.desync_at = 43;
    uint8_t b[LS_PACKET_MAX];
    const unsigned n = ls_packet_encode(&p, b, sizeof b);
    ls_packet q;
    assert_int_equal(ls_packet_decode(b, n, &q), LS_PACKET_OK);
    assert_null(ls_peer_receive(&pa, &q));
    assert_true(pa.stopped);
    assert_int_equal(pa.remote_desync_frame, 42);
    assert_true(ls_peer_finished(&pa));
    assert_false(ls_peer_advance(&pa));
}

/* A desync report may come before the hashes that show it (a packet holds LS_MAX_HASHES of
 * them): the peer told of it stops advancing, but is finished only once it has compared that
 * frame itself, so that it prints the frame from its own hashes as the finder does. */
static void test_desync_found_by_both(void **state)
{
    (void)state;
    assert_int_equal(ls_peer_init(&pa, &wa, 0, 200, true, &snap_a[0][0], LS_SNAP_SLOT), QP_OK);
    assert_int_equal(ls_peer_init(&pb, &wb, 1, 200, true, &snap_b[0][0], LS_SNAP_SLOT), QP_OK);
    pb.nudge_at = 50;
    ls_packet p, q;
    uint8_t b[LS_PACKET_MAX];
    /* b hears everything, a no hashes: b finds the desync, a has compared nothing yet. */
    for (int tick = 0; tick < 400 && pb.desync_frame < 0; tick++) {
        step_peer(&pa);
        step_peer(&pb);
        deliver(&pa, &pb);
        assert_true(ls_peer_packet(&pb, &p, false));
        p.hash_count = 0;
        const unsigned n = ls_packet_encode(&p, b, sizeof b);
        assert_int_equal(ls_packet_decode(b, n, &q), LS_PACKET_OK);
        assert_null(ls_peer_receive(&pa, &q));
    }
    assert_int_equal(pb.desync_frame, 50);
    assert_true(pa.frame > 50u && pa.compared == 0u);
    /* The report alone: a stops, and waits for the hashes. */
    assert_true(ls_peer_packet(&pb, &p, false));
    assert_true((p.flags & LS_FLAG_DESYNC) != 0u);
    p.hash_count = 0;
    unsigned n = ls_packet_encode(&p, b, sizeof b);
    assert_int_equal(ls_packet_decode(b, n, &q), LS_PACKET_OK);
    assert_null(ls_peer_receive(&pa, &q));
    assert_true(ls_peer_update(&pa));
    assert_true(pa.stopped);
    assert_int_equal(pa.remote_desync_frame, 50);
    assert_false(ls_peer_finished(&pa));
    assert_false(ls_peer_advance(&pa));
    /* Then the hashes, LS_MAX_HASHES a packet as a acknowledges them: a finds frame 50 itself. */
    for (int k = 0; k < 20 && !ls_peer_finished(&pa); k++) {
        deliver(&pb, &pa);
        assert_true(ls_peer_update(&pa));
        deliver(&pa, &pb);
    }
    assert_true(ls_peer_finished(&pa));
    assert_int_equal(pa.desync_frame, 50);
    assert_int_equal(pa.desync_mine, pb.desync_theirs);
    assert_int_equal(pa.desync_theirs, pb.desync_mine);
}

/* A hostile peer sending garbage: random byte strings that pass the CRC, random sound
 * packets, and a real peer's packets with fields changed. The honest peer plays until what
 * it accepts stops it (a hash that differs); each packet it refuses leaves it exactly as it was (make test runs this under ASan and
 * UBSan: no read or write out of bounds, no undefined behaviour, whatever arrives). */
static ls_peer before_peer;

static void test_hostile_peer_garbage(void **state)
{
    (void)state;
    assert_int_equal(ls_peer_init(&pa, &wa, 0, 1000, true, &snap_a[0][0], LS_SNAP_SLOT), QP_OK);
    assert_int_equal(ls_peer_init(&pb, &wb, 1, 1000, true, &snap_b[0][0], LS_SNAP_SLOT), QP_OK);
    uint32_t refused = 0, accepted = 0;
    for (int round = 0; round < 20000; round++) {
        if (round % 8 == 0) {
            step_peer(&pb);
            if (!pa.stopped) step_peer(&pa);
            deliver(&pa, &pb);
        }
        ls_packet p, q;
        uint8_t b[LS_PACKET_MAX + 8];
        unsigned len;
        switch (round % 3) {
        case 0:   /* random bytes with the magic, version, length and CRC right */
            len = LS_PACKET_MIN + rnd() % (LS_PACKET_MAX - LS_PACKET_MIN + 1u);
            for (unsigned i = 0; i < len; i++) b[i] = (uint8_t)rnd();
            b[0] = 'Q';
            b[1] = 'L';
            b[3] = LS_VERSION;
            b[4] = 1;
            b[5] &= 1u;   /* no desync flag: the honest peer plays on longer */
            resign(b, len - 4u);
            break;
        case 1:   /* a random sound packet from the other's seat */
            p = random_packet();
            p.sender = 1;
            p.flags &= (uint8_t)~LS_FLAG_DESYNC;
            p.desync_at = 0;
            len = ls_packet_encode(&p, b, sizeof b);
            break;
        default:  /* the real peer's packet with a field changed */
            if (!ls_peer_packet(&pb, &p, false)) continue;
            len = ls_packet_encode(&p, b, sizeof b);
            b[6u + rnd() % (len - 10u)] = (uint8_t)rnd();
            resign(b, len - 4u);
            break;
        }
        if (len == 0u || ls_packet_decode(b, len, &q) != LS_PACKET_OK) continue;
        memcpy(&before_peer, &pa, sizeof pa);
        if (ls_peer_receive(&pa, &q) != 0) {
            refused++;
            assert_int_equal(pa.stats.packets_refused, before_peer.stats.packets_refused + 1u);
            before_peer.stats.packets_refused = pa.stats.packets_refused;   /* the one count it keeps */
            assert_memory_equal(&pa, &before_peer, sizeof pa);
        } else {
            accepted++;
        }
        assert_true(ls_peer_update(&pa));
        assert_true(pa.confirmed <= pa.frame && pa.frame <= pa.local_count && pa.compared <= pa.confirmed);
        assert_true(pa.compared <= pa.remote_hash_contig && pa.compared <= pa.remote_commit_contig);
    }
    assert_true(refused > 1000u);
    print_message("lockstep: a hostile peer: %u packets refused (each changing nothing), %u accepted; "
                  "the honest peer at frame %u, %s\n", refused, accepted, pa.frame,
                  pa.desync_frame >= 0 ? "stopped by a hash it was sent" : pa.stopped ? "stopped by a desync flag" : "playing");
}

/* A snapshot slot holds the largest snapshot the game's world can make: LS_MAX_BODIES
 * bodies, a contact between every two with four points, every number at its longest. */
static void test_snapshot_slot_holds_the_worst_case(void **state)
{
    (void)state;
    assert_int_equal(ls_game_init(&wa), QP_OK);
    qp_body_def d = qp_default_body_def();
    d.shape_count = 1;
    assert_int_equal(qp_make_box(qp_v3(QP_ONE, QP_ONE, QP_ONE), &d.shapes[0]), QP_OK);
    while (qp_world_get_stats(&wa).bodies < LS_MAX_BODIES) {
        qp_result r;
        qp_create_body(&wa, &d, &r);
        if (r != QP_OK) break;
        qp_world_step(&wa);
    }
    int bodies = 0;
    for (int i = 1; i <= QP_CFG_MAX_BODIES; i++) {
        qp_body_state *b = &wa.bodies[i];
        if (!(b->state & QP_STATE_USED)) continue;
        bodies++;
        const qp_vec3 far = qp_v3(-INT32_MAX, -INT32_MAX, -INT32_MAX);
        b->x = b->v = b->w = b->force = b->torque = b->local_center = far;
        b->q = (qp_quat){ -INT32_MAX, -INT32_MAX, -INT32_MAX, -INT32_MAX };
        for (int r = 0; r < 3; r++) {
            b->inv_inertia_local.m[r][0] = b->inv_inertia_local.m[r][1] = b->inv_inertia_local.m[r][2] = -INT32_MAX;
            b->sleep_box[r].lo = b->sleep_box[r].hi = qp_v3(0, 0, 0);   /* INT32_MAX from x */
        }
        b->mass = b->inv_mass = b->friction = b->static_friction = b->restitution = -INT32_MAX;
        b->user_data = 0xFFFFFFFFu;
        b->load = b->motion = INT32_MAX;
        b->flags = b->level = b->island = b->supports = b->still_steps = b->awake_steps = 0xFFFFu;
    }
    assert_int_equal(bodies, LS_MAX_BODIES);
    int n = 0;
    for (int a = 1; a <= LS_MAX_BODIES; a++)
        for (int c = a + 1; c <= LS_MAX_BODIES && n < LS_SNAP_CONTACTS; c++) {
            qp_contact *ct = &wa.contacts[n++];
            memset(ct, 0, sizeof *ct);
            ct->a = (uint16_t)a;
            ct->b = (uint16_t)c;
            ct->count = 4;
            ct->flags = QP_CONTACT_SLIDING | QP_CONTACT_NEW | QP_CONTACT_CHANGED;   /* depths live */
            ct->n = ct->anchor_a = ct->anchor_b = qp_v3(-INT32_MAX, -INT32_MAX, -INT32_MAX);
            ct->jt1 = ct->jt2 = ct->jtw = -INT32_MAX;
            for (int k = 0; k < 4; k++) {
                ct->p[k].id = 0xFFFFFFFFu;
                ct->p[k].ra = qp_v3(-INT32_MAX, -INT32_MAX, -INT32_MAX);
                ct->p[k].jn = ct->p[k].depth = -INT32_MAX;
            }
        }
    wa.contact_count = n;
    const unsigned long need = qp_world_snapshot(&wa, NULL, 0);
    print_message("lockstep: the game world's largest snapshot: %lu bytes (%d bodies, %d contacts); a slot: %lu\n",
                  need, bodies, n, (unsigned long)LS_SNAP_SLOT);
    assert_true(need <= LS_SNAP_SLOT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_packets),
        cmocka_unit_test(test_framer),
        cmocka_unit_test(test_peer_windows),
        cmocka_unit_test(test_two_peers),
        cmocka_unit_test(test_echoing_peer_is_caught),
        cmocka_unit_test(test_desync_flag_names_the_frame),
        cmocka_unit_test(test_desync_found_by_both),
        cmocka_unit_test(test_hostile_peer_garbage),
        cmocka_unit_test(test_snapshot_slot_holds_the_worst_case),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
