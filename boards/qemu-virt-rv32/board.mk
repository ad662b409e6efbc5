# SPDX-License-Identifier: MIT
# QEMU virt, 32-bit (qemu-system-riscv32 -M virt -bios none): a bare-metal RV32IMAC machine.
# No flash: QEMU loads the ELF into RAM at 0x80000000; the first 2 MB hold the image.
CPU_CORE     := rv32imac
# Tick clock in Hz: the CLINT's mtime runs at 10 MHz on virt (-icount shift=0: 1 tick = 100 instructions)
CPU_HZ       := 10000000
QEMU_MACHINE := virt
FLASH_ORIGIN := 0x80000000
FLASH_KB     := 2048
RAM_ORIGIN   := 0x80200000
RAM_KB       := 6144
# uart: the NS16550A at 0x10000000 (boards/qemu-virt-rv32/board.c)
CONSOLE      := uart
