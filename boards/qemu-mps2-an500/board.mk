# SPDX-License-Identifier: MIT
# QEMU mps2-an500: Arm MPS2 FPGA image AN500 (Cortex-M7, FPU unused). 4 MB code SSRAM, 4 MB data SSRAM.
CPU_CORE     := cortex-m7
# SysTick clock in Hz (processor clock; CSR = 5)
CPU_HZ       := 25000000
QEMU_MACHINE := mps2-an500
FLASH_ORIGIN := 0x00000000
FLASH_KB     := 4096
RAM_ORIGIN   := 0x20000000
RAM_KB       := 4096
# semihost (port/cortex_m/console_semihost.c) or uart (boards/qemu-mps2-an500/board.c)
CONSOLE      := semihost
# Exit through semihosting always: QEMU serves it, and the tests read the exit status.
PORT_EXIT    := semihost
