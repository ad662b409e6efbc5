/* SPDX-License-Identifier: MIT */
/* semihost.h - Arm semihosting calls for Cortex-M (ARMv6-M, ARMv7-M, ARMv7E-M).
 *
 * On M-profile cores the semihosting trap is `bkpt 0xab` (not `svc 0x123456`).
 * QEMU serves it with `-semihosting-config enable=on,target=native`. Without a
 * debugger or QEMU, the breakpoint faults: semihosting is for emulation and
 * debug probes only.
 */
#ifndef QP_SEMIHOST_H
#define QP_SEMIHOST_H

#include <stdint.h>

#define QP_SH_SYS_OPEN 0x01u
#define QP_SH_SYS_WRITE0 0x04u
#define QP_SH_SYS_WRITE 0x05u
#define QP_SH_SYS_EXIT 0x18u
#define QP_SH_SYS_EXIT_EXTENDED 0x20u
#define QP_SH_ADP_STOPPED_APPLICATION_EXIT 0x20026u
#define QP_SH_ADP_STOPPED_RUN_TIME_ERROR 0x20023u

static inline int32_t qp_semihost_call(uint32_t op, const void *arg)
{
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return (int32_t)r0;
}

#endif /* QP_SEMIHOST_H */
