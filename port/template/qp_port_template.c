/* SPDX-License-Identifier: MIT */
/* qp_port_template.c - copy this to port/<your-port>/ and fill in the stubs.
 *
 * A port gives apps, tests and benchmarks a console, a tick counter and a way to stop.
 * The core (src/) never calls it. Checklist for a new target:
 *   - console: any byte sink the user can read (UART, USB CDC, semihosting, RTT);
 *   - ticks: a free-running up-counter; say in qp_port_tick_hz() what one tick is;
 *   - exit: report the status where a test runner can see it (simulator exit status,
 *     a debugger, or at least a final line on the console), then never return.
 * For another Cortex-M board you usually need none of this: port/cortex_m/ already
 * implements it, and a board only adds boards/<name>/board.mk, linker.ld and, for a
 * UART console, board.c with board_console_init() and board_console_write().
 */
#include "qp_port.h"

void qp_port_init(void)
{
    /* Clock the console peripheral and the timer, set pins and baud rate, start the
     * counter. Must be safe to call twice. */
}

void qp_port_write(const char *s, unsigned len)
{
    /* Send len bytes, blocking until each is accepted. No newline translation. */
    (void)s;
    (void)len;
}

void qp_port_puts(const char *s)
{
    /* Usually: count up to the NUL and call qp_port_write(). */
    unsigned len = 0;
    while (s[len] != '\0') {
        len++;
    }
    qp_port_write(s, len);
}

uint64_t qp_port_ticks64(void)
{
    /* A 64-bit up-counter. Widen a narrower hardware counter in software (as
     * port/cortex_m does for the 24-bit SysTick) or from an overflow interrupt. */
    return 0u;
}

uint32_t qp_port_ticks(void)
{
    /* The low 32 bits of the same counter; callers subtract as uint32_t. */
    return (uint32_t)qp_port_ticks64();
}

uint32_t qp_port_tick_hz(void)
{
    /* Ticks per second, e.g. the timer's input clock. Never 0. */
    return 1u;
}

int qp_port_cycles_running(void)
{
    /* 1 if qp_port_cycles() counts the core's clock cycles (time a loop of known length,
     * as port/cortex_m does), else 0: the apps then print "n/a" instead of a number. */
    return 0;
}

uint32_t qp_port_cycles(void)
{
    /* A free-running cycle counter (low 32 bits), or 0 when there is none. */
    return 0u;
}

void qp_port_exit(int code)
{
    /* Flush the console, hand code to whoever runs the program, then stop. */
    (void)code;
    for (;;) {
    }
}
