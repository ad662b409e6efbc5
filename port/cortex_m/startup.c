/* SPDX-License-Identifier: MIT */
/* startup.c - vector table, reset and fault handlers shared by all Cortex-M boards.
 *
 * Reset: copy .data from flash, zero .bss, qp_port_init(), main(), then
 * qp_port_exit(main's return value). No newlib start files and no rdimon: the console
 * and exit are direct semihosting calls (or a board UART), so there is no
 * initialise_monitor_handles() and no heap (_sbrk is not defined, so anything that
 * pulls in malloc fails to link).
 *
 * Faults: every exception other than reset lands in one handler that prints the
 * exception number and the stacked PC, then exits with QP_PORT_EXIT_FAULT instead of
 * hanging. Nothing enables interrupts, so SysTick and IRQs never fire.
 */
#include "qp_port.h"
#include "qp_fmt.h"

#include <stdint.h>
#include <string.h>

#define QP_PORT_EXIT_FAULT 99

/* From the linker script (port/cortex_m/cortex_m.ld). */
extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __bss_start[], __bss_end[];
extern uint32_t __stack_top[];

extern int main(void);

void qp_cm_reset(void);
void qp_cm_fault_entry(void);
void qp_cm_fault_report(const uint32_t *frame);

void qp_cm_reset(void)
{
    memcpy(__data_start, __data_load, (size_t)((char *)__data_end - (char *)__data_start));
    memset(__bss_start, 0, (size_t)((char *)__bss_end - (char *)__bss_start));
    qp_port_init();
    qp_port_exit(main());
}

/* Naked so the stacked frame is found from MSP untouched (nothing here uses PSP). */
__attribute__((naked)) void qp_cm_fault_entry(void)
{
    __asm__ volatile("mrs r0, msp\n"
                     "ldr r1, =qp_cm_fault_report\n"
                     "bx r1\n"
                     ".ltorg\n");
}

void qp_cm_fault_report(const uint32_t *frame)
{
    char num[QP_FMT_BUF];
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    qp_port_puts("\nqp_port: fault: exception ");
    qp_port_write(num, qp_fmt_u32(num, ipsr & 0x1ffu));
    qp_port_puts(ipsr == 3u ? " (HardFault)" : "");
    qp_port_puts(" pc=0x");
    qp_port_write(num, qp_fmt_hex32(num, frame[6]));
    qp_port_puts(" lr=0x");
    qp_port_write(num, qp_fmt_hex32(num, frame[5]));
    qp_port_puts("\n");
    qp_port_exit(QP_PORT_EXIT_FAULT);
}

typedef void (*qp_cm_vector)(void);

/* The 16 system entries; no external IRQ is ever enabled, so none are listed. */
__attribute__((used, section(".vectors"))) static const qp_cm_vector qp_cm_vectors[16] = {
    (qp_cm_vector)(uintptr_t)__stack_top, /* 0: initial main stack pointer */
    qp_cm_reset,                          /* 1: Reset */
    qp_cm_fault_entry,                    /* 2: NMI */
    qp_cm_fault_entry,                    /* 3: HardFault */
    qp_cm_fault_entry,                    /* 4: MemManage (v7-M) */
    qp_cm_fault_entry,                    /* 5: BusFault (v7-M) */
    qp_cm_fault_entry,                    /* 6: UsageFault (v7-M) */
    0, 0, 0, 0,                           /* 7-10: reserved */
    qp_cm_fault_entry,                    /* 11: SVCall */
    qp_cm_fault_entry,                    /* 12: DebugMonitor (v7-M) */
    0,                                    /* 13: reserved */
    qp_cm_fault_entry,                    /* 14: PendSV */
    qp_cm_fault_entry,                    /* 15: SysTick */
};
