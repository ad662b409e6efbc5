/* SPDX-License-Identifier: MIT */
/* board_console.h - the console a board provides to its port (port_cortex_m.c, port_riscv.c).
 *
 * Linked from exactly one of: port/cortex_m/console_semihost.c (CONSOLE = semihost, Arm
 * boards under QEMU or a debug probe) or boards/<name>/board.c (CONSOLE = uart).
 */
#ifndef QP_BOARD_CONSOLE_H
#define QP_BOARD_CONSOLE_H

void board_console_init(void);                           /* make the console ready; called once */
void board_console_write(const char *s, unsigned len);  /* write len bytes, blocking until sent */

#endif /* QP_BOARD_CONSOLE_H */
