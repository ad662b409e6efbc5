/* SPDX-License-Identifier: MIT */
#include "hash_inline.h"

uint32_t qp_hash_u32(uint32_t h, uint32_t v)
{
    return qp__hash_u32(h, v);
}

uint32_t qp_hash_words(uint32_t h, const int32_t *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) h = qp_hash_u32(h, (uint32_t)v[i]);
    return h;
}
