/* SPDX-License-Identifier: MIT */
/* main.c - qphys on a Nucleo-F411RE: a small world stepped at 60 Hz, paced by SysTick, and a
 * line a second on the ST-LINK's virtual COM port (USART2, PA2, 115200 8N1):
 *   t 3 s  step 180  hash HHHHHHHH  awake A  asleep S  cycles/step MEAN max MAX
 * The chip runs on its reset clock, the 16 MHz HSI (CPU_HZ; set the PLL and CPU_HZ for 100 MHz).
 * Cycles come from the DWT cycle counter; QEMU models none, so there they read "n/a".
 * Built with -DEXIT_AFTER_SECONDS=N (make qemu), it stops after N lines through semihosting,
 * which QEMU (or a debugger) serves: never flash that build to a board without a debugger.
 */
#include <stdint.h>

#include "qphys/qphys.h"
#include "scene.h"
#include "uart.h"

#ifndef CPU_HZ
#define CPU_HZ 16000000u
#endif
#define STEP_HZ 60u
_Static_assert(CPU_HZ / STEP_HZ - 1u <= 0xFFFFFFu, "SysTick's reload is 24 bits");

#define REG(addr) (*(volatile uint32_t *)(addr))
#define SYST_CSR REG(0xE000E010u)
#define SYST_RVR REG(0xE000E014u)
#define SYST_CVR REG(0xE000E018u)
#define DEMCR REG(0xE000EDFCu)
#define DWT_CTRL REG(0xE0001000u)
#define DWT_CYCCNT REG(0xE0001004u)

static qp_world world; /* every byte of the physics: in .bss, no heap */
static volatile uint32_t ticks;

void SysTick_Handler(void);
void SysTick_Handler(void)
{
    ticks++;
}

#ifdef EXIT_AFTER_SECONDS
/* SYS_EXIT_EXTENDED (Arm semihosting): QEMU exits with code. */
static void semihost_exit(uint32_t code)
{
    const uint32_t block[2] = { 0x20026u, code }; /* ADP_Stopped_ApplicationExit */
    register uint32_t r0 __asm__("r0") = 0x20u;
    register const uint32_t *r1 __asm__("r1") = block;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
}
#endif

static void report(uint32_t step, uint64_t cycles, uint32_t cycles_max)
{
    qp_world_stats st = qp_world_get_stats(&world);
    uart_puts("t ");
    uart_put_u32(step / STEP_HZ);
    uart_puts(" s  step ");
    uart_put_u32(step);
    uart_puts("  hash ");
    uart_put_hex32(qp_world_hash(&world));
    uart_puts("  awake ");
    uart_put_u32((uint32_t)st.awake);
    uart_puts("  asleep ");
    uart_put_u32((uint32_t)st.asleep);
    if (cycles == 0u) { /* the counter never moved: no DWT (QEMU) */
        uart_puts("  cycles/step n/a\n");
        return;
    }
    uart_puts("  cycles/step ");
    uart_put_u32((uint32_t)(cycles / STEP_HZ));
    uart_puts(" max ");
    uart_put_u32(cycles_max);
    uart_puts("\n");
}

int main(void)
{
    uart_init(CPU_HZ); /* APB1 runs at the core clock after reset */
    uart_puts("qphys " QP_VERSION_STRING " on the Nucleo-F411RE: 60 steps a second\n");
    qp_result r = scene_build(&world);
    if (r != QP_OK) {
        uart_puts("scene: ");
        uart_puts(qp_result_str(r));
        uart_puts("\n");
        for (;;) {
        }
    }
    DEMCR |= 1u << 24; /* TRCENA: the DWT runs */
    DWT_CYCCNT = 0u;
    DWT_CTRL |= 1u;    /* CYCCNTENA */
    SYST_RVR = CPU_HZ / STEP_HZ - 1u;
    SYST_CVR = 0u;
    SYST_CSR = 7u;     /* enable, interrupt, processor clock */

    uint32_t stepped = 0, cycles_max = 0;
    uint64_t cycles = 0;
    for (;;) {
        while (stepped == ticks) __asm__ volatile("wfi"); /* sleep until the next tick */
        /* One step per tick; a step that overran a tick is caught up at once. */
        stepped++;
        const uint32_t c0 = DWT_CYCCNT;
        qp_world_step(&world);
        const uint32_t dc = DWT_CYCCNT - c0;
        cycles += dc;
        if (dc > cycles_max) cycles_max = dc;
        if (stepped % STEP_HZ == 0u) {
            report(stepped, cycles, cycles_max);
            cycles = 0;
            cycles_max = 0;
#ifdef EXIT_AFTER_SECONDS
            if (stepped == STEP_HZ * (EXIT_AFTER_SECONDS)) semihost_exit(0u);
#endif
        }
    }
}
