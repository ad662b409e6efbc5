/* SPDX-License-Identifier: MIT */
/* qp_fmt.h - tiny number formatting for apps and ports (no printf needed).
 *
 * Each function writes into buf, NUL-terminates it and returns the number of
 * characters written (without the NUL). Portable C, no float, no heap.
 */
#ifndef QP_FMT_H
#define QP_FMT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QP_FMT_BUF 12 /* enough for any of the functions below, NUL included */

unsigned qp_fmt_u32(char *buf, uint32_t v);   /* decimal, e.g. "4294967295" */
unsigned qp_fmt_i32(char *buf, int32_t v);    /* decimal with '-' when negative */
unsigned qp_fmt_hex32(char *buf, uint32_t v); /* 8 lowercase hex digits, zero-padded, e.g. "1a2b3c4d" */

#ifdef __cplusplus
}
#endif

#endif /* QP_FMT_H */
