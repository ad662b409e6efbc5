/* SPDX-License-Identifier: MIT */
/* proto.c - the lockstep demo's packet (proto.h). */
#include "proto.h"

const char *ls_packet_result_str(ls_packet_result r)
{
    switch (r) {
    case LS_PACKET_OK: return "ok";
    case LS_PACKET_SHORT: return "truncated";
    case LS_PACKET_LENGTH: return "bad length";
    case LS_PACKET_MAGIC: return "bad magic";
    case LS_PACKET_VERSION: return "unknown version";
    case LS_PACKET_CRC: return "bad CRC";
    case LS_PACKET_FIELD: return "malformed field";
    default: return "?";
    }
}

uint32_t ls_crc32(const uint8_t *p, unsigned n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (unsigned i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

uint32_t ls_commit(unsigned sender, uint32_t frame, uint32_t hash)
{
    uint64_t x = ((uint64_t)frame << 32 | hash) ^ (sender ? 0x9E3779B97F4A7C15u : 0x7F4A7C159E3779B9u);
    for (int round = 0; round < 2; round++) {
        x ^= x >> 31;
        x *= 0xBF58476D1CE4E5B9u;
        x ^= x >> 29;
        x *= 0x94D049BB133111EBu;
    }
    return (uint32_t)(x ^ (x >> 32));   /* 64 bits folded into 32: many hashes per value */
}

/* ---- writing ------------------------------------------------------------------------ */

typedef struct {
    uint8_t *p;
    unsigned n, cap;
    int over;
} wr;

static void put8(wr *o, uint32_t v)
{
    if (o->n >= o->cap) { o->over = 1; return; }
    o->p[o->n++] = (uint8_t)v;
}

static void put_var(wr *o, uint32_t v)
{
    while (v >= 0x80u) {
        put8(o, (v & 0x7Fu) | 0x80u);
        v >>= 7;
    }
    put8(o, v);
}

static void put_le(wr *o, uint32_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) put8(o, (v >> (8 * i)) & 0xFFu);
}

/* The rules a packet obeys, for the encoder and the decoder alike. */
static int fields_ok(const ls_packet *p)
{
    if (p->sender > 1u || (p->flags & ~(uint32_t)(LS_FLAG_DONE | LS_FLAG_DESYNC)) != 0u) return 0;
    if (p->end == 0u || p->end > LS_MAX_FRAMES) return 0;
    if (p->desync_at > p->end || ((p->flags & LS_FLAG_DESYNC) != 0u) != (p->desync_at != 0u)) return 0;
    if (p->input_ack > p->end || p->commit_ack > p->end || p->hash_ack > p->end) return 0;
    if (p->input_count > LS_MAX_INPUTS || p->commit_count > LS_MAX_HASHES || p->hash_count > LS_MAX_HASHES)
        return 0;
    /* end <= LS_MAX_FRAMES, so these sums cannot wrap. */
    if (p->first_input > p->end || p->input_count > p->end - p->first_input) return 0;
    if (p->first_commit > p->end || p->commit_count > p->end - p->first_commit) return 0;
    if (p->first_hash > p->end || p->hash_count > p->end - p->first_hash) return 0;
    for (unsigned i = 0; i < p->input_count; i++)
        if (!ls_input_valid(p->inputs[i])) return 0;
    return 1;
}

unsigned ls_packet_encode(const ls_packet *p, uint8_t *out, unsigned cap)
{
    if (!fields_ok(p)) return 0;
    wr o = { out, 0, cap < LS_PACKET_MAX ? cap : LS_PACKET_MAX, 0 };
    put8(&o, 'Q');
    put8(&o, 'L');
    put8(&o, 0); /* length, below */
    put8(&o, LS_VERSION);
    put8(&o, p->sender);
    put8(&o, p->flags);
    put_var(&o, p->end);
    put_var(&o, p->desync_at);
    put_var(&o, p->input_ack);
    put_var(&o, p->commit_ack);
    put_var(&o, p->hash_ack);
    put_var(&o, p->first_input);
    put_var(&o, p->input_count);
    for (unsigned i = 0; i < p->input_count; i++) put_le(&o, p->inputs[i], 2);
    put_var(&o, p->first_commit);
    put_var(&o, p->commit_count);
    for (unsigned i = 0; i < p->commit_count; i++) put_le(&o, p->commits[i], 4);
    put_var(&o, p->first_hash);
    put_var(&o, p->hash_count);
    for (unsigned i = 0; i < p->hash_count; i++) put_le(&o, p->hashes[i], 4);
    if (o.over || o.n + 4u > o.cap) return 0;
    out[2] = (uint8_t)(o.n + 4u);
    put_le(&o, ls_crc32(out, o.n), 4);
    return o.n;
}

/* ---- reading ------------------------------------------------------------------------ */

typedef struct {
    const uint8_t *p;
    unsigned n, at;
    int bad;
} rd;

static uint32_t get8(rd *in)
{
    if (in->at >= in->n) { in->bad = 1; return 0; }
    return in->p[in->at++];
}

static uint32_t get_le(rd *in, int bytes)
{
    uint32_t v = 0;
    for (int i = 0; i < bytes; i++) v |= get8(in) << (8 * i);
    return v;
}

/* A varint of at most 5 bytes holding a uint32, in its shortest form (no final 0x00
 * continuation byte, nothing above bit 31): one value, one encoding. */
static uint32_t get_var(rd *in)
{
    uint32_t v = 0;
    for (int i = 0; i < 5; i++) {
        const uint32_t b = get8(in);
        if (in->bad) return 0;
        if (i == 4 && b > 0x0Fu) break;          /* more than 32 bits */
        v |= (b & 0x7Fu) << (7 * i);
        if ((b & 0x80u) == 0u) {
            if (i > 0 && b == 0u) break;          /* a redundant zero byte */
            return v;
        }
    }
    in->bad = 1;
    return 0;
}

ls_packet_result ls_packet_decode(const uint8_t *in, unsigned len, ls_packet *out)
{
    if (len < 3u) return LS_PACKET_SHORT;
    if (in[0] != 'Q' || in[1] != 'L') return LS_PACKET_MAGIC;
    if (in[2] < LS_PACKET_MIN || in[2] > LS_PACKET_MAX) return LS_PACKET_LENGTH;
    if (in[2] > len) return LS_PACKET_SHORT;
    if (in[2] != len) return LS_PACKET_LENGTH;
    if (in[3] != LS_VERSION) return LS_PACKET_VERSION;
    const unsigned body = len - 4u;
    const uint32_t crc = (uint32_t)in[body] | (uint32_t)in[body + 1u] << 8 | (uint32_t)in[body + 2u] << 16 |
                         (uint32_t)in[body + 3u] << 24;
    if (ls_crc32(in, body) != crc) return LS_PACKET_CRC;

    rd r = { in, body, 4u, 0 };
    ls_packet p;
    p.sender = (uint8_t)get8(&r);
    p.flags = (uint8_t)get8(&r);
    p.end = get_var(&r);
    p.desync_at = get_var(&r);
    p.input_ack = get_var(&r);
    p.commit_ack = get_var(&r);
    p.hash_ack = get_var(&r);
    p.first_input = get_var(&r);
    uint32_t count = get_var(&r);
    if (r.bad || count > LS_MAX_INPUTS) return LS_PACKET_FIELD;
    p.input_count = (uint8_t)count;
    for (unsigned i = 0; i < count; i++) p.inputs[i] = (ls_input)get_le(&r, 2);
    p.first_commit = get_var(&r);
    count = get_var(&r);
    if (r.bad || count > LS_MAX_HASHES) return LS_PACKET_FIELD;
    p.commit_count = (uint8_t)count;
    for (unsigned i = 0; i < count; i++) p.commits[i] = get_le(&r, 4);
    p.first_hash = get_var(&r);
    count = get_var(&r);
    if (r.bad || count > LS_MAX_HASHES) return LS_PACKET_FIELD;
    p.hash_count = (uint8_t)count;
    for (unsigned i = 0; i < count; i++) p.hashes[i] = get_le(&r, 4);
    /* Every byte accounted for, and every field within its rules. */
    if (r.bad || r.at != body || !fields_ok(&p)) return LS_PACKET_FIELD;
    *out = p;
    return LS_PACKET_OK;
}

/* ---- a byte stream ------------------------------------------------------------------ */

void ls_framer_init(ls_framer *f)
{
    f->n = 0;
    f->skipped = 0;
}

/* Forget the first k bytes of the buffer. */
static void consume(ls_framer *f, unsigned k)
{
    for (unsigned i = k; i < f->n; i++) f->buf[i - k] = f->buf[i];
    f->n -= k;
}

void ls_framer_put(ls_framer *f, uint8_t byte)
{
    if (f->n == sizeof f->buf) { /* only if ls_framer_get was not called until it said 0 */
        consume(f, 1);
        f->skipped++;
    }
    f->buf[f->n++] = byte;
}

int ls_framer_get(ls_framer *f, ls_packet *p)
{
    while (f->n > 0u) {
        const int starts = f->buf[0] == 'Q' && (f->n < 2u || f->buf[1] == 'L') &&
                           (f->n < 3u || (f->buf[2] >= LS_PACKET_MIN && f->buf[2] <= LS_PACKET_MAX));
        if (starts) {
            if (f->n < 3u || f->n < f->buf[2]) return 0; /* the start of a candidate: wait */
            const unsigned len = f->buf[2];
            if (ls_packet_decode(f->buf, len, p) == LS_PACKET_OK) {
                consume(f, len);
                return 1;
            }
        }
        consume(f, 1);
        f->skipped++;
    }
    return 0;
}
