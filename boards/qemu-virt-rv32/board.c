/* SPDX-License-Identifier: MIT */
/* board.c - QEMU virt console on its NS16550A UART at 0x10000000 (CONSOLE = uart in board.mk).
 *
 * Under QEMU this is `-serial stdio`. 8N1; QEMU ignores the baud rate, which a real 16550
 * would take from the divisor latch (set here for 115200 from a 1.8432 MHz clock).
 * Blocking, byte by byte: each byte waits for the transmit holding register to empty.
 */
#include "board_console.h"

#include <stdint.h>

#define UART_BASE 0x10000000u
#define UART_REG(off) (*(volatile uint8_t *)(UART_BASE + (off)))
#define UART_THR UART_REG(0u) /* transmit holding (DLAB = 0) */
#define UART_DLL UART_REG(0u) /* divisor latch low (DLAB = 1) */
#define UART_DLM UART_REG(1u) /* divisor latch high (DLAB = 1) */
#define UART_FCR UART_REG(2u)
#define UART_LCR UART_REG(3u)
#define UART_LSR UART_REG(5u)
#define LCR_DLAB 0x80u
#define LCR_8N1 0x03u
#define LSR_THRE 0x20u

void board_console_init(void)
{
    UART_LCR = LCR_DLAB;
    UART_DLL = 1u; /* 1.8432 MHz / (16 * 1) = 115200 baud */
    UART_DLM = 0u;
    UART_LCR = LCR_8N1;
    UART_FCR = 0x07u; /* FIFOs on and cleared */
}

void board_console_write(const char *s, unsigned len)
{
    unsigned i;
    for (i = 0; i < len; i++) {
        while ((UART_LSR & LSR_THRE) == 0u) {
        }
        UART_THR = (uint8_t)s[i];
    }
}
