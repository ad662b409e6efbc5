/* SPDX-License-Identifier: MIT */
/* peer.c - prediction, rollback and hash comparison for one lockstep peer (peer.h). */
#include "peer.h"

#define SLOT(f) ((f) & (LS_RING - 1u))
#define NONE 0xFFFFFFFFu

/* No clock given: the costs read zero. */
static uint64_t no_clock(void) { return 0; }

qp_result ls_peer_init(ls_peer *p, qp_world *w, int me, uint32_t end, bool predict, uint8_t *snap_mem,
                       unsigned long snap_slot)
{
    if ((me != 0 && me != 1) || end > LS_MAX_FRAMES || (predict && (snap_mem == 0 || snap_slot == 0)))
        return QP_ERR_PARAM;
    /* Every field, the rings included, starts at zero. */
    unsigned char *b = (unsigned char *)p;
    for (unsigned long i = 0; i < sizeof *p; i++) b[i] = 0;
    p->world = w;
    p->me = me;
    p->predict = predict;
    p->end = end;
    p->nudge_at = -1;
    p->snap_mem = snap_mem;
    p->snap_slot = snap_slot;
    p->rollback_to = NONE;
    p->desync_frame = -1;
    p->remote_desync_frame = -1;
    p->clock = no_clock;
    return ls_game_init(w);
}

/* The oldest frame whose slots are still needed: not yet compared, or not yet acknowledged. */
static uint32_t low_water(const ls_peer *p)
{
    uint32_t low = p->compared;
    if (p->peer_input_ack < low) low = p->peer_input_ack;
    if (p->peer_commit_ack < low) low = p->peer_commit_ack;
    if (p->peer_hash_ack < low) low = p->peer_hash_ack;
    return low;
}

bool ls_peer_wants_input(const ls_peer *p)
{
    /* The other may run LS_MAX_AHEAD frames past what it confirmed, which is at most my
     * inputs: make a new one only while that lead fits my ring. */
    return !p->stopped && p->local_count == p->frame && p->frame < p->end &&
           p->frame - p->confirmed < LS_MAX_AHEAD &&
           p->local_count + 1u + LS_MAX_AHEAD + 1u <= low_water(p) + LS_RING;
}

void ls_peer_local_input(ls_peer *p, ls_input in)
{
    if (!ls_peer_wants_input(p)) return;
    p->local[SLOT(p->local_count)] = in;
    p->local_count++;
}

const char *ls_peer_receive(ls_peer *p, const ls_packet *pk)
{
    const char *why = 0;
    const uint32_t low = low_water(p);
    /* Check everything first: a refused packet changes nothing. */
    if (pk->sender != (uint8_t)(1 - p->me)) why = "wrong sender";
    else if (p->end != 0u && pk->end != p->end) why = "another run (its frame count differs)";
    else if (pk->input_ack > p->local_count) why = "acknowledges inputs never sent";
    else if (pk->commit_ack > p->confirmed) why = "acknowledges commitments never sent";
    else if (pk->hash_ack > p->confirmed) why = "acknowledges hashes never sent";
    else if (pk->commit_count > 0u && pk->first_commit + pk->commit_count > p->local_count)
        why = "a commitment of a frame it cannot have confirmed";
    else if (pk->hash_count > 0u && pk->first_hash + pk->hash_count > p->local_count)
        why = "a hash of a frame it cannot have confirmed";
    else if (pk->hash_count > 0u && pk->first_hash + pk->hash_count > pk->commit_ack &&
             pk->first_hash + pk->hash_count > p->peer_commit_ack)
        why = "a hash revealed before it held my commitment";
    for (unsigned i = 0; why == 0 && i < pk->input_count; i++) {
        const uint32_t g = pk->first_input + i;
        if (g >= low + LS_RING) why = "an input beyond the window";
        else if (p->remote_tag[SLOT(g)] == g + 1u && p->remote[SLOT(g)] != pk->inputs[i])
            why = "an input that changed";
    }
    for (unsigned i = 0; why == 0 && i < pk->commit_count; i++) {
        const uint32_t c = pk->first_commit + i;
        if (c >= low + LS_RING) why = "a commitment beyond the window";
        else if (p->remote_commit_tag[SLOT(c)] == c + 1u && p->remote_commit[SLOT(c)] != pk->commits[i])
            why = "a commitment that changed";
    }
    for (unsigned i = 0; why == 0 && i < pk->hash_count; i++) {
        const uint32_t c = pk->first_hash + i;
        if (c >= low + LS_RING) why = "a hash beyond the window";
        else if (p->remote_hash_tag[SLOT(c)] == c + 1u && p->remote_hash[SLOT(c)] != pk->hashes[i])
            why = "a hash that changed";
    }
    if (why != 0) {
        p->stats.packets_refused++;
        return why;
    }

    p->stats.packets_in++;
    if (p->end == 0u) p->end = pk->end;
    if (pk->input_ack > p->peer_input_ack) p->peer_input_ack = pk->input_ack;
    if (pk->commit_ack > p->peer_commit_ack) p->peer_commit_ack = pk->commit_ack;
    if (pk->hash_ack > p->peer_hash_ack) p->peer_hash_ack = pk->hash_ack;
    p->peer_flags |= pk->flags;
    if ((pk->flags & LS_FLAG_DESYNC) != 0u) {
        p->stopped = true;
        if (p->remote_desync_frame < 0) p->remote_desync_frame = (int32_t)(pk->desync_at - 1u);
    }

    for (unsigned i = 0; i < pk->input_count; i++) {
        const uint32_t g = pk->first_input + i;
        if (g < p->remote_contig || p->remote_tag[SLOT(g)] == g + 1u) continue; /* had it */
        p->remote[SLOT(g)] = pk->inputs[i];
        p->remote_tag[SLOT(g)] = g + 1u;
        /* Simulated already on a guess: was the guess right? */
        if (g < p->frame && p->used[SLOT(g)] != pk->inputs[i]) {
            p->stats.mispredicted++;
            if (g < p->rollback_to) p->rollback_to = g;
        }
    }
    while (p->remote_tag[SLOT(p->remote_contig)] == p->remote_contig + 1u) {
        p->last_remote = p->remote[SLOT(p->remote_contig)];
        p->remote_contig++;
    }

    for (unsigned i = 0; i < pk->commit_count; i++) {
        const uint32_t c = pk->first_commit + i;
        if (c < p->remote_commit_contig) continue;
        p->remote_commit[SLOT(c)] = pk->commits[i];
        p->remote_commit_tag[SLOT(c)] = c + 1u;
    }
    while (p->remote_commit_tag[SLOT(p->remote_commit_contig)] == p->remote_commit_contig + 1u)
        p->remote_commit_contig++;

    for (unsigned i = 0; i < pk->hash_count; i++) {
        const uint32_t c = pk->first_hash + i;
        if (c < p->remote_hash_contig) continue;
        p->remote_hash[SLOT(c)] = pk->hashes[i];
        p->remote_hash_tag[SLOT(c)] = c + 1u;
    }
    while (p->remote_hash_tag[SLOT(p->remote_hash_contig)] == p->remote_hash_contig + 1u) p->remote_hash_contig++;
    return 0;
}

/* Simulate frame f from the current world: its snapshot first (predicting peers), then the
 * inputs (the other's real one if known, else the last one known), the step, the hash. */
static bool simulate(ls_peer *p, uint32_t f)
{
    if (p->predict) {
        const uint32_t s = f % LS_SNAP_RING;
        const uint64_t t0 = p->clock();
        const unsigned long n = qp_world_snapshot(p->world, p->snap_mem + s * p->snap_slot, p->snap_slot);
        p->stats.snapshot_ticks += p->clock() - t0;
        if (n == 0u || n > p->snap_slot) {
            p->error = "a snapshot larger than its slot";
            return false;
        }
        p->snap_tag[s] = f + 1u;
        p->snap_size[s] = (uint32_t)n;
        p->stats.snapshots++;
        p->stats.snapshot_bytes += n;
        if (n > p->stats.snapshot_max) p->stats.snapshot_max = (uint32_t)n;
    }
    const ls_input other = p->remote_tag[SLOT(f)] == f + 1u ? p->remote[SLOT(f)] : p->last_remote;
    ls_input in[LS_PLAYERS];
    in[p->me] = p->local[SLOT(f)];
    in[1 - p->me] = other;
    p->used[SLOT(f)] = other;
    ls_game_frame(p->world, f, in);
    if (p->nudge_at >= 0 && f == (uint32_t)p->nudge_at) ls_game_nudge(p->world);
    p->hash[SLOT(f)] = qp_world_hash(p->world);
    return true;
}

static bool rollback(ls_peer *p)
{
    const uint32_t from = p->rollback_to, s = from % LS_SNAP_RING;
    p->rollback_to = NONE;
    if (p->snap_tag[s] != from + 1u) {
        p->error = "the snapshot to roll back to was overwritten";
        return false;
    }
    const uint64_t t0 = p->clock();
    const qp_result r = qp_world_restore(p->world, p->snap_mem + s * p->snap_slot, p->snap_size[s]);
    const uint64_t t1 = p->clock();
    if (r != QP_OK) {
        p->error = "qp_world_restore refused a snapshot it wrote";
        return false;
    }
    for (uint32_t f = from; f < p->frame; f++)
        if (!simulate(p, f)) return false;
    const uint32_t steps = p->frame - from;
    p->stats.rollbacks++;
    p->stats.resim_steps += steps;
    if (steps > p->stats.longest) p->stats.longest = steps;
    p->stats.restore_ticks += t1 - t0;
    p->stats.rollback_ticks += p->clock() - t0;
    return true;
}

bool ls_peer_update(ls_peer *p)
{
    if (p->error != 0) return false;
    if (p->rollback_to < p->frame && !rollback(p)) return false;
    p->rollback_to = NONE;
    /* Every frame below both my frame count and the other's known inputs was simulated
     * with real inputs only: confirmed. */
    p->confirmed = p->frame < p->remote_contig ? p->frame : p->remote_contig;
    while (p->compared < p->confirmed && p->compared < p->remote_hash_contig &&
           p->compared < p->remote_commit_contig) {
        const uint32_t c = p->compared;
        const bool kept = ls_commit((unsigned)(1 - p->me), c, p->remote_hash[SLOT(c)]) == p->remote_commit[SLOT(c)];
        if ((!kept || p->hash[SLOT(c)] != p->remote_hash[SLOT(c)]) && p->desync_frame < 0) {
            p->desync_frame = (int32_t)c;
            p->desync_mine = p->hash[SLOT(c)];
            p->desync_theirs = p->remote_hash[SLOT(c)];
            p->desync_commitment = !kept;
            p->stopped = true;
        }
        p->compared++;
    }
    return true;
}

bool ls_peer_advance(ls_peer *p)
{
    if (p->error != 0 || p->stopped || p->frame >= p->local_count || p->frame >= p->end) return false;
    if (p->predict ? p->frame - p->confirmed >= LS_MAX_AHEAD : p->remote_contig <= p->frame) return false;
    const uint64_t t0 = p->clock();
    if (!simulate(p, p->frame)) return false;
    p->stats.frame_ticks += p->clock() - t0;
    p->stats.frames++;
    p->frame++;
    if (p->remote_contig >= p->frame) p->confirmed = p->frame;
    return true;
}

bool ls_peer_packet(ls_peer *p, ls_packet *out, bool reliable)
{
    if (p->end == 0u) return false; /* nothing to say before the run's length is known */
    const uint32_t in_from = reliable ? p->inputs_sent : p->peer_input_ack;
    const uint32_t commit_from = reliable ? p->commits_sent : p->peer_commit_ack;
    const uint32_t hash_from = reliable ? p->hashes_sent : p->peer_hash_ack;
    /* A hash is revealed only once the other's commitment of its frame is held. */
    const uint32_t reveal_end = p->confirmed < p->remote_commit_contig ? p->confirmed : p->remote_commit_contig;
    uint32_t n_in = p->local_count - in_from, n_commit = p->confirmed - commit_from;
    uint32_t n_hash = reveal_end > hash_from ? reveal_end - hash_from : 0u;
    if (n_in > LS_MAX_INPUTS) n_in = LS_MAX_INPUTS;
    if (n_commit > LS_MAX_HASHES) n_commit = LS_MAX_HASHES;
    if (n_hash > LS_MAX_HASHES) n_hash = LS_MAX_HASHES;
    uint8_t flags = (uint8_t)((ls_peer_finished(p) ? LS_FLAG_DONE : 0u) | (p->desync_frame >= 0 ? LS_FLAG_DESYNC : 0u));
    if (reliable && p->sent_any && n_in == 0u && n_commit == 0u && n_hash == 0u && flags == p->sent_flags &&
        p->sent_acks[0] == p->remote_contig && p->sent_acks[1] == p->remote_hash_contig &&
        p->sent_acks[2] == p->remote_commit_contig)
        return false;
    out->sender = (uint8_t)p->me;
    out->flags = flags;
    out->end = p->end;
    out->desync_at = p->desync_frame >= 0 ? (uint32_t)p->desync_frame + 1u : 0u;
    out->input_ack = p->remote_contig;
    out->commit_ack = p->remote_commit_contig;
    out->hash_ack = p->remote_hash_contig;
    out->first_input = in_from;
    out->input_count = (uint8_t)n_in;
    for (uint32_t i = 0; i < n_in; i++) out->inputs[i] = p->local[SLOT(in_from + i)];
    out->first_commit = commit_from;
    out->commit_count = (uint8_t)n_commit;
    for (uint32_t i = 0; i < n_commit; i++)
        out->commits[i] = ls_commit((unsigned)p->me, commit_from + i, p->hash[SLOT(commit_from + i)]);
    out->first_hash = hash_from;
    out->hash_count = (uint8_t)n_hash;
    for (uint32_t i = 0; i < n_hash; i++) out->hashes[i] = p->hash[SLOT(hash_from + i)];
    if (reliable) {
        p->inputs_sent = in_from + n_in;
        p->commits_sent = commit_from + n_commit;
        p->hashes_sent = hash_from + n_hash;
        p->sent_acks[0] = p->remote_contig;
        p->sent_acks[1] = p->remote_hash_contig;
        p->sent_acks[2] = p->remote_commit_contig;
        p->sent_flags = flags;
        p->sent_any = true;
    }
    return true;
}

bool ls_peer_finished(const ls_peer *p)
{
    if (p->desync_frame >= 0) return true;
    /* The other reports a desync at frame n: this peer compares n itself first, from the
     * other's hashes, which may come in packets after the report (a packet holds up to
     * LS_MAX_HASHES). A frame it never simulated it cannot compare: it stops at the report. */
    if (p->remote_desync_frame >= 0)
        return p->frame <= (uint32_t)p->remote_desync_frame || p->compared > (uint32_t)p->remote_desync_frame;
    return p->end != 0u && p->frame == p->end && p->confirmed == p->end && p->compared == p->end;
}
