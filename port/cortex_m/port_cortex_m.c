/* SPDX-License-Identifier: MIT */
/* port_cortex_m.c - qp_port for Cortex-M: board console, SysTick ticks, semihosting exit.
 *
 * Ticks: SysTick clocked from the processor (CSR = 5: enable, processor clock, no
 * interrupt), reload 0xFFFFFF, so the 24-bit counter counts down at the core clock
 * (QP_BOARD_CPU_HZ, from board.mk). No interrupt is used: qp_port_ticks64() widens
 * the counter in software on each read, so it must be read at least once per 2^24
 * ticks (0.67 s at 25 MHz). Under QEMU with `-icount shift=0` each instruction takes
 * 1 ns of virtual time and the MPS2 SysTick runs at 25 MHz, so 1 tick = 40 guest
 * instructions (microbit: 16 MHz, 62.5 instructions), the same on every run. Call these
 * figures "instructions", not cycles: real Cortex-M cycles differ.
 *
 * Cycles: DWT CYCCNT on ARMv7-M (enabled here: DEMCR.TRCENA, then DWT_CTRL.CYCCNTENA),
 * SysTick itself on ARMv6-M, which has no DWT counter (its SysTick counts the core clock).
 * Whether the count is real is measured once: a loop of LOOP_ITERATIONS iterations takes at
 * least one cycle each on any core (its turn is several instructions, and the M7 issues two
 * a cycle at best), so a cycle counter moves at least that much. QEMU implements no DWT (CYCCNT stays 0) and its
 * SysTick runs on virtual time, one tick per 40 or 62.5 instructions, so neither passes.
 *
 * Exit: with a debugger (or QEMU) to report to, SYS_EXIT_EXTENDED with
 * {ADP_Stopped_ApplicationExit, code}, so QEMU exits with the program's exit status.
 * Without one a semihosting breakpoint hard-faults, so the board resets instead
 * (AIRCR.SYSRESETREQ). Which one (board.mk PORT_EXIT): semihost always reports (the QEMU
 * boards, whose tests read the status); reset always resets; auto (the default) reports
 * only when DHCSR.C_DEBUGEN shows a debugger, which ARMv6-M cores cannot read (they reset).
 */
#include "qp_port.h"

#include "board_console.h"
#include "semihost.h"

#include <stdint.h>

#ifndef QP_BOARD_CPU_HZ
#error "QP_BOARD_CPU_HZ (the SysTick clock, from boards/<name>/board.mk CPU_HZ) is not set"
#endif

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define SYST_MASK 0x00FFFFFFu
#define DEMCR (*(volatile uint32_t *)0xE000EDFCu)
#define DEMCR_TRCENA (1u << 24)
#define DWT_CTRL (*(volatile uint32_t *)0xE0001000u)
#define DWT_CTRL_NOCYCCNT (1u << 25)
#define DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)
#define DWT_LAR (*(volatile uint32_t *)0xE0001FB0u) /* the M7's lock; elsewhere ignored */
#define LOOP_ITERATIONS 1024u

/* Each byte counts on the micro:bit, whose RAM the world fills: the tick count is kept as two
 * words (a uint64_t would be aligned to 8 and padded), and the states are zero-initialised
 * bytes in .bss. */
static uint8_t port_ready;
static uint8_t cycles_state;   /* 0 not measured yet, 1 no cycle counter, 2 counting */
static uint32_t tick_last;     /* last raw SysTick value read */
static uint32_t tick_acc[2];   /* ticks counted so far: low word, high word */

void qp_port_init(void)
{
    if (port_ready) {
        return;
    }
    port_ready = 1u;
    SYST_CSR = 0u;
    SYST_RVR = SYST_MASK;
    SYST_CVR = 0u; /* any write clears it; it reloads on the first tick */
    tick_last = 0u;
    tick_acc[0] = tick_acc[1] = 0u;
    SYST_CSR = 5u; /* ENABLE | CLKSOURCE (processor clock), no TICKINT */
#if !defined(__ARM_ARCH_6M__)
    DEMCR |= DEMCR_TRCENA;
    DWT_LAR = 0xC5ACCE55u;
    if (!(DWT_CTRL & DWT_CTRL_NOCYCCNT)) {
        DWT_CYCCNT = 0u;
        DWT_CTRL |= 1u; /* CYCCNTENA */
    }
#endif
    board_console_init();
}

uint64_t qp_port_ticks64(void)
{
    uint32_t now = SYST_CVR & SYST_MASK;
    uint64_t acc = ((uint64_t)tick_acc[1] << 32 | tick_acc[0]) +
                   ((tick_last - now) & SYST_MASK); /* counts down; mod 2^24 handles one wrap */
    tick_last = now;
    tick_acc[0] = (uint32_t)acc;
    tick_acc[1] = (uint32_t)(acc >> 32);
    return acc;
}

uint32_t qp_port_ticks(void)
{
    return (uint32_t)qp_port_ticks64();
}

uint32_t qp_port_tick_hz(void)
{
    return QP_BOARD_CPU_HZ;
}

uint32_t qp_port_cycles(void)
{
#if defined(__ARM_ARCH_6M__)
    return (uint32_t)qp_port_ticks64();
#else
    return DWT_CYCCNT;
#endif
}

int qp_port_cycles_running(void)
{
    if (cycles_state == 0u) {
        volatile uint32_t n = LOOP_ITERATIONS; /* volatile: the loop stays, load and store each turn */
        const uint32_t t0 = qp_port_cycles();
        while (n > 0u) n = n - 1u;
        const uint32_t dt = qp_port_cycles() - t0;
        cycles_state = dt >= LOOP_ITERATIONS ? 2u : 1u;
    }
    return cycles_state == 2u;
}

/* Report the exit status to a debugger (semihosting)? Board.mk's PORT_EXIT decides, and
 * auto asks DHCSR.C_DEBUGEN, which ARMv6-M cores (Cortex-M0) cannot read from software:
 * there auto never reports. */
static int report_to_debugger(void)
{
#if defined(QP_PORT_EXIT_SEMIHOST)
    return 1;
#elif defined(QP_PORT_EXIT_RESET) || defined(__ARM_ARCH_6M__)
    return 0;
#else
    return (int)(*(volatile uint32_t *)0xE000EDF0u & 1u);
#endif
}

void qp_port_exit(int code)
{
    if (report_to_debugger()) {
        const uint32_t block[2] = {QP_SH_ADP_STOPPED_APPLICATION_EXIT, (uint32_t)code};
        (void)qp_semihost_call(QP_SH_SYS_EXIT_EXTENDED, block);
        /* Reached only if the host lacks SYS_EXIT_EXTENDED: plain SYS_EXIT can say just
         * success or failure. */
        (void)qp_semihost_call(QP_SH_SYS_EXIT, (const void *)(uintptr_t)(code == 0 ? QP_SH_ADP_STOPPED_APPLICATION_EXIT
                                                                                  : QP_SH_ADP_STOPPED_RUN_TIME_ERROR));
    }
    /* No debugger to report to (a semihosting breakpoint would hard-fault): request a
     * system reset, so a board that has finished starts again cleanly. QEMU with
     * -no-reboot stops there. */
    __asm__ volatile("dsb" ::: "memory");
    *(volatile uint32_t *)0xE000ED0Cu = 0x05FA0004u; /* AIRCR: VECTKEY | SYSRESETREQ */
    __asm__ volatile("dsb" ::: "memory");
    for (;;) {
        __asm__ volatile("wfi");
    }
}
