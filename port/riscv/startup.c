/* SPDX-License-Identifier: MIT */
/* startup.c - reset and trap handling for the bare-metal RISC-V boards (machine mode).
 *
 * _start sets the stack and global pointers and jumps to C; qp_rv_reset copies .data,
 * clears .bss, brings up the port and runs main. Any trap (nothing enables interrupts, so
 * only exceptions: an illegal instruction, a bad address) prints its cause and address and
 * exits with code 99, as the Cortex-M fault handler does.
 */
#include "qp_port.h"
#include "qp_fmt.h"

#include <stdint.h>
#include <string.h>

#define QP_PORT_EXIT_FAULT 99

/* From the linker script (port/riscv/riscv.ld). */
extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __bss_start[], __bss_end[];

extern int main(void);

void qp_rv_reset(void);
void qp_rv_trap(void);

/* CSR access needs the Zicsr extension, which -march=rv32imac leaves out (the multilib has
 * no _zicsr variant), so it is enabled for these instructions only. */
#define QP_RV_ZICSR(insn) ".option push\n.option arch, +zicsr\n" insn "\n.option pop\n"
#define QP_RV_CSR_READ(csr, out) __asm__ volatile(QP_RV_ZICSR("csrr %0, " csr) : "=r"(out))

__attribute__((naked, section(".text.start"))) void _start(void)
{
    __asm__ volatile(".option push\n"
                     ".option norelax\n"
                     "la gp, __global_pointer$\n"
                     ".option pop\n"
                     "la sp, __stack_top\n"
                     "la t0, qp_rv_trap_entry\n"
                     QP_RV_ZICSR("csrw mtvec, t0")
                     "j qp_rv_reset\n");
}

/* Traps land here (mtvec, direct mode, 4-byte aligned). */
__attribute__((naked, aligned(4))) void qp_rv_trap_entry(void)
{
    __asm__ volatile("j qp_rv_trap\n");
}

void qp_rv_trap(void)
{
    char num[QP_FMT_BUF];
    uint32_t cause, epc, tval;
    QP_RV_CSR_READ("mcause", cause);
    QP_RV_CSR_READ("mepc", epc);
    QP_RV_CSR_READ("mtval", tval);
    qp_port_puts("\nqp_port: trap: mcause ");
    qp_port_write(num, qp_fmt_u32(num, cause));
    qp_port_puts(" mepc=0x");
    qp_port_write(num, qp_fmt_hex32(num, epc));
    qp_port_puts(" mtval=0x");
    qp_port_write(num, qp_fmt_hex32(num, tval));
    qp_port_puts("\n");
    qp_port_exit(QP_PORT_EXIT_FAULT);
}

void qp_rv_reset(void)
{
    memcpy(__data_start, __data_load, (size_t)((char *)__data_end - (char *)__data_start));
    memset(__bss_start, 0, (size_t)((char *)__bss_end - (char *)__bss_start));
    qp_port_init();
    qp_port_exit(main());
}
