/* SPDX-License-Identifier: MIT */
#include "qphys/hash.h"

#define FNV_PRIME UINT32_C(16777619)

uint32_t qp_hash_u32(uint32_t h, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        h ^= (v >> (8 * i)) & 0xFFu;
        h *= FNV_PRIME;
    }
    return h;
}

uint32_t qp_hash_words(uint32_t h, const int32_t *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) h = qp_hash_u32(h, (uint32_t)v[i]);
    return h;
}
