/* SPDX-License-Identifier: MIT */
/* 32-bit FNV-1a over integers fed as little-endian bytes, so the same values
 * give the same hash on every target whatever its byte order or padding. */
#ifndef QPHYS_HASH_H
#define QPHYS_HASH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QP_HASH_INIT UINT32_C(2166136261)

/* Feed one 32-bit value (4 bytes, least significant first). */
uint32_t qp_hash_u32(uint32_t h, uint32_t v);
/* Feed n 32-bit values. */
uint32_t qp_hash_words(uint32_t h, const int32_t *v, unsigned n);

#ifdef __cplusplus
}
#endif

#endif
