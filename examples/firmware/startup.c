/* SPDX-License-Identifier: MIT */
/* startup.c - the Cortex-M4F's vector table and reset: copy .data, zero .bss, turn the FPU on
 * (the library is built for the hard-float ABI, and gcc may move 64-bit values through FPU
 * registers), then main. Only the 16 system vectors: no peripheral interrupt is enabled. */
#include <stdint.h>

extern uint32_t _sidata[], _sdata[], _edata[], _sbss[], _ebss[], _estack[];
extern int main(void);
void Reset_Handler(void);
void SysTick_Handler(void);
void Default_Handler(void);

#define SCB_CPACR (*(volatile uint32_t *)0xE000ED88u)

void Reset_Handler(void)
{
    SCB_CPACR |= 15u << 20; /* CP10 and CP11: full access */
    __asm__ volatile("dsb\n isb" ::: "memory");
    for (uint32_t *s = _sidata, *d = _sdata; d < _edata;) *d++ = *s++;
    for (uint32_t *d = _sbss; d < _ebss;) *d++ = 0u;
    main();
    for (;;) {
    }
}

/* A fault or an unexpected interrupt: stop here, where a debugger shows it. */
void Default_Handler(void)
{
    for (;;) {
    }
}

typedef void (*vector)(void);

__attribute__((used, section(".isr_vector"))) static const vector vectors[16] = {
    (vector)(uintptr_t)_estack, /* initial stack pointer */
    Reset_Handler,
    Default_Handler, /* NMI */
    Default_Handler, /* HardFault */
    Default_Handler, /* MemManage */
    Default_Handler, /* BusFault */
    Default_Handler, /* UsageFault */
    0, 0, 0, 0,
    Default_Handler, /* SVCall */
    Default_Handler, /* DebugMonitor */
    0,
    Default_Handler, /* PendSV */
    SysTick_Handler,
};
