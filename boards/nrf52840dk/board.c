/* SPDX-License-Identifier: MIT */
/* board.c - nRF52840 DK console: UARTE0 on the J-Link's virtual COM port (VCOM0).
 *
 * Written against the nRF52840 Product Specification (UARTE §6.34, GPIO §6.9): TX on P0.06,
 * RX on P0.08, the pins the DK wires to its interface MCU; 115200 8N1, no flow control, blocking.
 * UARTE sends by EasyDMA, which reads only RAM, so bytes are copied through a small RAM buffer
 * (a string in flash cannot be sent directly). After each chunk the transmitter is stopped
 * (STOPTX, then TXSTOPPED), which also lets the last byte finish before an exit or reset.
 * The CPU runs from its reset clock (64 MHz, HFINT); the UARTE's baud generator needs no crystal.
 * There is no vendor startup (Nordic's SystemInit applies chip errata workarounds, none of which
 * this console or the engine needs): the vector table and reset are port/cortex_m/startup.c.
 */
#include "board_console.h"

#include <stdint.h>

#define REG(addr) (*(volatile uint32_t *)(addr))

/* UARTE0 registers (PS §6.34) */
#define UARTE0_BASE 0x40002000u
#define UARTE_TASKS_STARTTX REG(UARTE0_BASE + 0x008u)
#define UARTE_TASKS_STOPTX REG(UARTE0_BASE + 0x00Cu)
#define UARTE_EVENTS_ENDTX REG(UARTE0_BASE + 0x120u)
#define UARTE_EVENTS_TXSTOPPED REG(UARTE0_BASE + 0x158u)
#define UARTE_ENABLE REG(UARTE0_BASE + 0x500u)
#define UARTE_PSEL_TXD REG(UARTE0_BASE + 0x50Cu)
#define UARTE_PSEL_RXD REG(UARTE0_BASE + 0x514u)
#define UARTE_BAUDRATE REG(UARTE0_BASE + 0x524u)
#define UARTE_TXD_PTR REG(UARTE0_BASE + 0x544u)
#define UARTE_TXD_MAXCNT REG(UARTE0_BASE + 0x548u)
#define UARTE_CONFIG REG(UARTE0_BASE + 0x56Cu)
#define UARTE_ENABLE_ON 8u
#define UARTE_BAUD_115200 0x01D60000u

/* GPIO port 0 registers (PS §6.9) */
#define P0_OUTSET REG(0x50000508u)
#define P0_DIRSET REG(0x50000518u)

/* PSEL: PIN in bits 0-4, PORT in bit 5, CONNECT (bit 31) = 0 */
#define TX_PIN 6u
#define RX_PIN 8u

static uint8_t tx_buf[64]; /* EasyDMA's source: must be in RAM */

void board_console_init(void)
{
    P0_OUTSET = 1u << TX_PIN; /* TX idles high, also while the UARTE is off */
    P0_DIRSET = 1u << TX_PIN;
    UARTE_PSEL_TXD = TX_PIN;
    UARTE_PSEL_RXD = RX_PIN;
    UARTE_BAUDRATE = UARTE_BAUD_115200;
    UARTE_CONFIG = 0u; /* no parity, no flow control, one stop bit */
    UARTE_ENABLE = UARTE_ENABLE_ON;
}

void board_console_write(const char *s, unsigned len)
{
    while (len > 0u) {
        unsigned n = len < sizeof tx_buf ? len : (unsigned)sizeof tx_buf;
        for (unsigned i = 0; i < n; i++) {
            tx_buf[i] = (uint8_t)s[i];
        }
        UARTE_TXD_PTR = (uint32_t)(uintptr_t)tx_buf;
        UARTE_TXD_MAXCNT = n;
        UARTE_EVENTS_ENDTX = 0u;
        UARTE_EVENTS_TXSTOPPED = 0u;
        UARTE_TASKS_STARTTX = 1u;
        while (UARTE_EVENTS_ENDTX == 0u) {
        }
        UARTE_TASKS_STOPTX = 1u;
        while (UARTE_EVENTS_TXSTOPPED == 0u) {
        }
        s += n;
        len -= n;
    }
}
