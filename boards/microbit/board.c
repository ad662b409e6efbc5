/* SPDX-License-Identifier: MIT */
/* board.c - micro:bit v1 console on the nRF51 UART0 (CONSOLE = uart in board.mk).
 *
 * 115200 8N1 on the interface-chip pins (TX P0.24, RX P0.25); on a real board this is
 * the USB serial port, under QEMU it is `-serial stdio`. Blocking, byte by byte.
 */
#include "board_console.h"

#include <stdint.h>

#define UART0_BASE 0x40002000u
#define UART0_REG(off) (*(volatile uint32_t *)(UART0_BASE + (off)))
#define UART_TASKS_STARTTX UART0_REG(0x008u)
#define UART_EVENTS_TXDRDY UART0_REG(0x11Cu)
#define UART_ENABLE UART0_REG(0x500u)
#define UART_PSELTXD UART0_REG(0x50Cu)
#define UART_PSELRXD UART0_REG(0x514u)
#define UART_TXD UART0_REG(0x51Cu)
#define UART_BAUDRATE UART0_REG(0x524u)

#define MICROBIT_TX_PIN 24u
#define MICROBIT_RX_PIN 25u
#define UART_BAUD_115200 0x01D7E000u
#define UART_ENABLE_ON 4u

void board_console_init(void)
{
    UART_PSELTXD = MICROBIT_TX_PIN;
    UART_PSELRXD = MICROBIT_RX_PIN;
    UART_BAUDRATE = UART_BAUD_115200;
    UART_ENABLE = UART_ENABLE_ON;
    UART_TASKS_STARTTX = 1u;
}

void board_console_write(const char *s, unsigned len)
{
    unsigned i;
    for (i = 0; i < len; i++) {
        UART_EVENTS_TXDRDY = 0u;
        UART_TXD = (uint8_t)s[i];
        while (UART_EVENTS_TXDRDY == 0u) {
        }
    }
}
