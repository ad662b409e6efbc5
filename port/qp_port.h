/* SPDX-License-Identifier: MIT */
/* qp_port.h - the platform contract: what an app, test or benchmark needs from a target.
 *
 * The core (src/) never includes this. Implementations: host/ (stdio, clock_gettime),
 * cortex_m/ (semihosting or a board UART, SysTick), template/ (stubs for a new port).
 */
#ifndef QP_PORT_H
#define QP_PORT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define QP_PORT_NORETURN __attribute__((noreturn))
#else
#define QP_PORT_NORETURN
#endif

/* Bring up the console and the tick counter; safe to call more than once. */
void qp_port_init(void);
/* Write len bytes to the console as they are (no translation, no newline added). */
void qp_port_write(const char *s, unsigned len);
/* Write a NUL-terminated string to the console; adds no newline. */
void qp_port_puts(const char *s);
/* Free-running tick counter; wraps at 2^32, so take differences as uint32_t. */
uint32_t qp_port_ticks(void);
/* Ticks per second (host: 1e9; QEMU -icount shift=0: MPS2 25e6 = 40 instructions/tick, microbit 16e6 = 62.5). */
uint32_t qp_port_tick_hz(void);
/* The same counter widened to 64 bits; on Cortex-M read it at least once per 2^24 ticks. */
uint64_t qp_port_ticks64(void);
/* Core clock cycles, free-running, wrapping at 2^32 (take differences as uint32_t):
 * DWT CYCCNT on ARMv7-M (M3, M4, M7), SysTick on ARMv6-M (M0, M0+; read it at least once
 * per 2^24 cycles). qp_port_cycles_running() says whether the count is real: it times a
 * loop of known length, and a counter that moves less than once per instruction (QEMU's
 * models: no DWT, SysTick on virtual time) or not at all (host, RISC-V) is not. */
int qp_port_cycles_running(void);
uint32_t qp_port_cycles(void);
/* Flush the console and stop with exit status code (0..255); never returns. */
QP_PORT_NORETURN void qp_port_exit(int code);

#ifdef __cplusplus
}
#endif

#endif /* QP_PORT_H */
