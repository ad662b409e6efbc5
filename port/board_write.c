/* SPDX-License-Identifier: MIT */
/* board_write.c - qp_port_write and qp_port_puts over a board's console (board_console.h),
 * shared by the bare-metal ports (cortex_m/, riscv/). */
#include "qp_port.h"

#include "board_console.h"

void qp_port_write(const char *s, unsigned len)
{
    board_console_write(s, len);
}

void qp_port_puts(const char *s)
{
    unsigned len = 0;
    while (s[len] != '\0') {
        len++;
    }
    board_console_write(s, len);
}
