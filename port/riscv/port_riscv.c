/* SPDX-License-Identifier: MIT */
/* port_riscv.c - qp_port for bare-metal RISC-V (machine mode): board console, mtime ticks,
 * exit through a test-finisher device.
 *
 * Ticks: the CLINT's 64-bit mtime counter (QEMU virt: 10 MHz at 0x0200BFF8). Under QEMU
 * with `-icount shift=0` each instruction takes 1 ns of virtual time, so 1 tick = 100 guest
 * instructions, the same on every run: call such figures instructions, not cycles.
 * Exit: QEMU virt's SiFive test device (0x00100000): 0x5555 stops with status 0, and
 * (code << 16) | 0x3333 with status code. Where a board has no such device, the core then
 * waits for interrupts forever, which nothing enables: a clean halt.
 * Both addresses may be overridden per board (QP_RV_MTIME, QP_RV_FINISHER).
 */
#include "qp_port.h"

#include "board_console.h"

#include <stdint.h>

#ifndef QP_BOARD_CPU_HZ
#error "QP_BOARD_CPU_HZ (the mtime clock, from boards/<name>/board.mk CPU_HZ) is not set"
#endif
#ifndef QP_RV_MTIME
#define QP_RV_MTIME 0x0200BFF8u
#endif
#ifndef QP_RV_FINISHER
#define QP_RV_FINISHER 0x00100000u
#endif

#define MTIME_LO (*(volatile uint32_t *)(QP_RV_MTIME))
#define MTIME_HI (*(volatile uint32_t *)(QP_RV_MTIME + 4u))
#define FINISHER (*(volatile uint32_t *)(QP_RV_FINISHER))

static uint8_t port_ready;

void qp_port_init(void)
{
    if (port_ready) {
        return;
    }
    port_ready = 1u;
    board_console_init();
}

uint64_t qp_port_ticks64(void)
{
    uint32_t hi, lo;
    do { /* a carry between the two reads shows as a changed high word */
        hi = MTIME_HI;
        lo = MTIME_LO;
    } while (hi != MTIME_HI);
    return ((uint64_t)hi << 32) | lo;
}

uint32_t qp_port_ticks(void)
{
    return (uint32_t)qp_port_ticks64();
}

uint32_t qp_port_tick_hz(void)
{
    return QP_BOARD_CPU_HZ;
}

/* mcycle exists, but QEMU counts it by instructions, and no board here runs on silicon: none. */
int qp_port_cycles_running(void)
{
    return 0;
}

uint32_t qp_port_cycles(void)
{
    return 0u;
}

void qp_port_exit(int code)
{
    FINISHER = code == 0 ? 0x5555u : (((uint32_t)code & 0xFFFFu) << 16) | 0x3333u;
    for (;;) {
        __asm__ volatile("wfi");
    }
}
