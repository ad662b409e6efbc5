# SPDX-License-Identifier: MIT
# RV32IMAC (32-bit RISC-V: multiply/divide, atomics, compressed; no FPU).
# Compiler flags for every board with CPU_CORE = rv32imac. Soft-float ABI (ilp32), so the nm
# guard sees any float helper, like the Cortex-M boards. The C library is picolibc.
CPU_ARCH  := riscv
CPU_FLAGS := -march=rv32imac -mabi=ilp32 -mcmodel=medany --specs=picolibc.specs
