/* SPDX-License-Identifier: MIT */
/* qp_hash_u32 inline, for the world hash (world_hash.c), which feeds it every word of the
 * state: a call and a loop a word were half of qp_world_hash's instructions on a Cortex-M0,
 * where a lockstep game (and the boards' scene runner) hashes every step. The same four
 * FNV-1a rounds, a byte each, least significant first. */
#ifndef QPHYS_HASH_INLINE_H
#define QPHYS_HASH_INLINE_H

#include "qphys/hash.h"

#define QP__FNV_PRIME UINT32_C(16777619)

static inline uint32_t qp__hash_u32(uint32_t h, uint32_t v)
{
    h = (h ^ (v & 0xFFu)) * QP__FNV_PRIME;
    h = (h ^ ((v >> 8) & 0xFFu)) * QP__FNV_PRIME;
    h = (h ^ ((v >> 16) & 0xFFu)) * QP__FNV_PRIME;
    return (h ^ (v >> 24)) * QP__FNV_PRIME;
}

#endif
