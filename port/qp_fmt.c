/* SPDX-License-Identifier: MIT */
/* qp_fmt.c - see qp_fmt.h. */
#include "qp_fmt.h"

unsigned qp_fmt_u32(char *buf, uint32_t v)
{
    char tmp[10];
    unsigned n = 0;
    unsigned i;
    do {
        tmp[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0u);
    for (i = 0; i < n; i++) {
        buf[i] = tmp[n - 1u - i];
    }
    buf[n] = '\0';
    return n;
}

unsigned qp_fmt_i32(char *buf, int32_t v)
{
    if (v < 0) {
        buf[0] = '-';
        /* Negate in unsigned arithmetic so INT32_MIN is fine. */
        return 1u + qp_fmt_u32(buf + 1, 0u - (uint32_t)v);
    }
    return qp_fmt_u32(buf, (uint32_t)v);
}

unsigned qp_fmt_hex32(char *buf, uint32_t v)
{
    static const char digits[] = "0123456789abcdef";
    unsigned i;
    for (i = 0; i < 8u; i++) {
        buf[i] = digits[(v >> (28u - 4u * i)) & 0xfu];
    }
    buf[8] = '\0';
    return 8u;
}
