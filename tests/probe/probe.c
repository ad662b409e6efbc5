/* SPDX-License-Identifier: MIT */
/* Determinism probe: drives the math layer (and the libfixmath functions the
 * core relies on) through a fixed, seeded sequence and prints one hash per
 * kind of operation and one over everything. Every target must print the same
 * lines: tests/scripts/cross-check.sh compares them. */
#include <stdint.h>
#include "qp_fmt.h"
#include "qp_port.h"
#include "qphys/hash.h"
#include "qphys/math.h"

#ifndef PROBE_ROUNDS
#define PROBE_ROUNDS 100000
#endif

static uint32_t rng_state = 0x9E3779B9u;
/* The wide products' own sequence: the other kinds draw what they always drew. */
static uint32_t wide_state = 0x85EBCA6Bu;

static uint32_t xorshift(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

static uint32_t rng(void)
{
    return xorshift(&rng_state);
}

/* 64-bit products, as the core writes them: a 32 x 32 -> 64 one of signed values, and a
 * 64 x 64 -> 64 one (modulo 2^64). A 32-bit core without a wide multiply calls its run-time
 * helper for both (on ARMv6-M, src/mul64.c's), and a firmware linking qphys gets it too. */
static uint32_t hash_wide(uint32_t h)
{
    int32_t a = (int32_t)xorshift(&wide_state), b = (int32_t)xorshift(&wide_state);
    uint64_t x = (uint64_t)xorshift(&wide_state) << 32, y = (uint64_t)xorshift(&wide_state) << 32;
    x |= xorshift(&wide_state);
    y |= xorshift(&wide_state);
    uint64_t p = (uint64_t)((int64_t)a * b), q = x * y;
    h = qp_hash_u32(qp_hash_u32(h, (uint32_t)p), (uint32_t)(p >> 32));
    return qp_hash_u32(qp_hash_u32(h, (uint32_t)q), (uint32_t)(q >> 32));
}

/* A value in [-range, range] (range in raw units, below 2^31). */
static int32_t rnd(int32_t range)
{
    uint64_t span = (uint64_t)range * 2u + 1u;
    return (int32_t)((int64_t)(rng() % span) - range);
}

/* Arguments are evaluated in an unspecified order: draw in statements. */
static qp_vec3 rnd_v3(int32_t range)
{
    qp_vec3 v;
    v.x = rnd(range);
    v.y = rnd(range);
    v.z = rnd(range);
    return v;
}

static qp_quat rnd_quat(void)
{
    qp_quat q;
    q.w = rnd(QP_Q30_ONE);
    q.x = rnd(QP_Q30_ONE);
    q.y = rnd(QP_Q30_ONE);
    q.z = rnd(QP_Q30_ONE);
    qp_quat n;
    qp_quat_normalize(q, &n);
    return n;
}

static uint32_t hv(uint32_t h, qp_vec3 v)
{
    return qp_hash_u32(qp_hash_u32(qp_hash_u32(h, (uint32_t)v.x), (uint32_t)v.y), (uint32_t)v.z);
}

static uint32_t hq(uint32_t h, qp_quat q)
{
    int32_t w[4] = { q.w, q.x, q.y, q.z };
    return qp_hash_words(h, w, 4);
}

static uint32_t hm(uint32_t h, const int32_t m[3][3])
{
    for (int i = 0; i < 3; i++) h = qp_hash_words(h, m[i], 3);
    return h;
}

static void put_hex(const char *name, uint32_t h)
{
    char buf[48];
    unsigned n = 0;
    while (name[n] && n < 24) { buf[n] = name[n]; n++; }
    buf[n++] = ' ';
    for (int i = 7; i >= 0; i--) buf[n++] = "0123456789abcdef"[(h >> (4 * i)) & 0xF];
    buf[n++] = '\n';
    qp_port_write(buf, n);
}

enum { K_SCALAR, K_LIBFIX, K_VEC, K_QUAT, K_ROT, K_MAT, K_WIDE, K_COUNT };
static const char *const kind_name[K_COUNT] = { "scalar", "libfixmath", "vector", "quaternion", "rotation", "matrix",
                                                "wide" };

int main(void)
{
    qp_port_init();
    uint32_t h[K_COUNT];
    for (int k = 0; k < K_COUNT; k++) h[k] = QP_HASH_INIT;
    const int32_t M = 0x7FFFFFFF, R100 = QP_INT(100), R180 = QP_INT(180);
    const int counting = qp_port_cycles_running();
    const uint32_t c0 = counting ? qp_port_cycles() : 0u;

    for (long i = 0; i < PROBE_ROUNDS; i++) {
        fix16_t a = rnd(M);
        fix16_t b = rnd(M);
        fix16_t s = rnd(R180);
        h[K_SCALAR] = qp_hash_u32(h[K_SCALAR], (uint32_t)qp_mul(a, b));
        h[K_SCALAR] = qp_hash_u32(h[K_SCALAR], (uint32_t)qp_div(a, b));
        h[K_SCALAR] = qp_hash_u32(h[K_SCALAR], (uint32_t)qp_sqrt(a));
        h[K_SCALAR] = qp_hash_u32(h[K_SCALAR], (uint32_t)qp_sin_q30(a));
        h[K_SCALAR] = qp_hash_u32(h[K_SCALAR], (uint32_t)qp_cos_q30(s));
        uint64_t wide = (uint64_t)rng() << 32;
        wide |= rng();
        h[K_SCALAR] = qp_hash_u32(h[K_SCALAR], qp_isqrt64(wide));
        h[K_SCALAR] = qp_hash_u32(h[K_SCALAR], (uint32_t)qp_deg_to_rad(rnd(QP_INT(3600))));

        h[K_LIBFIX] = qp_hash_u32(h[K_LIBFIX], (uint32_t)fix16_mul(s, b));
        h[K_LIBFIX] = qp_hash_u32(h[K_LIBFIX], (uint32_t)fix16_div(a, b | 1));
        h[K_LIBFIX] = qp_hash_u32(h[K_LIBFIX], (uint32_t)fix16_sqrt(a < 0 ? -a : a));
        h[K_LIBFIX] = qp_hash_u32(h[K_LIBFIX], (uint32_t)fix16_sin(s));

        qp_vec3 u = rnd_v3(R100);
        qp_vec3 v = rnd_v3(R100);
        qp_vec3 big = rnd_v3(M), n;
        h[K_VEC] = hv(h[K_VEC], qp_v3_add(big, v));
        h[K_VEC] = hv(h[K_VEC], qp_v3_mad(u, v, s));
        h[K_VEC] = hv(h[K_VEC], qp_v3_cross(u, v));
        h[K_VEC] = qp_hash_u32(h[K_VEC], (uint32_t)qp_v3_dot(u, v));
        h[K_VEC] = qp_hash_u32(h[K_VEC], (uint32_t)qp_v3_dot(big, big));
        h[K_VEC] = qp_hash_u32(h[K_VEC], (uint32_t)qp_v3_len(big));
        h[K_VEC] = qp_hash_u32(h[K_VEC], (uint32_t)qp_v3_normalize_q30(u, &n));
        h[K_VEC] = hv(h[K_VEC], n);
        h[K_VEC] = hv(h[K_VEC], qp_v3_cross_q30(v, n));

        qp_quat p = rnd_quat();
        qp_quat q = rnd_quat(), r;
        h[K_QUAT] = hq(h[K_QUAT], qp_quat_mul(p, q));
        h[K_QUAT] = hq(h[K_QUAT], qp_quat_integrate(p, rnd_v3(QP_INT(20)), QP_FRAC(1, 60)));
        h[K_QUAT] = qp_hash_u32(h[K_QUAT], (uint32_t)qp_quat_from_axis_angle(u, s, &r));
        h[K_QUAT] = hq(h[K_QUAT], r);
        h[K_QUAT] = hv(h[K_QUAT], qp_quat_rotate(q, v));

        qp_rot3 ra = qp_quat_to_rot3(p), rb = qp_quat_to_rot3(q);
        qp_rot3 rab = qp_rot3_mul(&ra, &rb), rtb = qp_rot3_tmul(&ra, &rb);
        h[K_ROT] = hm(h[K_ROT], (const int32_t(*)[3])rab.m);
        h[K_ROT] = hm(h[K_ROT], (const int32_t(*)[3])rtb.m);
        h[K_ROT] = hv(h[K_ROT], qp_rot3_tmul_v3(&ra, big));

        qp_mat3 ma, mb, mi;
        for (int r0 = 0; r0 < 3; r0++)
            for (int c0 = 0; c0 < 3; c0++) {
                ma.m[r0][c0] = rnd(QP_INT(50));
                mb.m[r0][c0] = rnd(QP_INT(50));
            }
        qp_mat3 mab = qp_mat3_mul(&ma, &mb);
        h[K_MAT] = hm(h[K_MAT], (const int32_t(*)[3])mab.m);
        h[K_MAT] = qp_hash_u32(h[K_MAT], (uint32_t)qp_mat3_inverse(&ma, &mi));
        if (qp_mat3_inverse(&ma, &mi)) h[K_MAT] = hm(h[K_MAT], (const int32_t(*)[3])mi.m);
        qp_mat3 sym = qp_mat3_zero();
        for (int d = 0; d < 3; d++) sym.m[d][d] = rnd(QP_INT(100));
        sym.m[0][1] = sym.m[1][0] = rnd(QP_INT(10));
        qp_mat3 rot = qp_mat3_rotate(&ra, &sym);
        h[K_MAT] = hm(h[K_MAT], (const int32_t(*)[3])rot.m);

        h[K_WIDE] = hash_wide(h[K_WIDE]);
    }
    /* On a board with a cycle counter (not QEMU, not the host): the cycles of one round. */
    if (counting) {
        char buf[QP_FMT_BUF];
        qp_port_puts("cycles per round: ");
        qp_port_write(buf, qp_fmt_u32(buf, (qp_port_cycles() - c0) / (uint32_t)PROBE_ROUNDS));
        qp_port_puts("\n");
    } else {
        qp_port_puts("cycles: n/a (counter not running)\n");
    }
    uint32_t all = QP_HASH_INIT;
    for (int k = 0; k < K_COUNT; k++) {
        put_hex(kind_name[k], h[k]);
        all = qp_hash_u32(all, h[k]);
    }
    put_hex("probe", all);
    return 0;
}
