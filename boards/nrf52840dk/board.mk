# SPDX-License-Identifier: MIT
# Nordic nRF52840 DK (PCA10056; nRF52840, Cortex-M4F at 64 MHz): build only, no QEMU model.
# 1 MB flash at 0, 256 KB RAM at 0x20000000. No SoftDevice or bootloader: the image starts at 0.
# Flash build/nrf52840dk/probe.hex by copying it to the J-Link's USB drive (or nrfjprog
# --program); read the console on the J-Link's serial port (VCOM0).
CPU_CORE     := cortex-m4
# SysTick clock in Hz: the CPU's 64 MHz (HFINT at reset; the crystal is not started)
CPU_HZ       := 64000000
BOARD_RUN    := none
FLASH_ORIGIN := 0x00000000
FLASH_KB     := 1024
RAM_ORIGIN   := 0x20000000
RAM_KB       := 256
# uart: UARTE0 on P0.06 (TX) / P0.08 (RX), the DK's VCOM pins (boards/nrf52840dk/board.c)
CONSOLE      := uart
# Semihosting only when a debugger is attached (DHCSR.C_DEBUGEN), else a reset.
PORT_EXIT    := auto
FLASH_IMAGES := bin hex
# Pools for 256 KB in the default layout: 127 bodies besides the ground, world about 194 KB
# (stack50 fits; pyramid20's 211 bodies do not), five shapes a body.
BOARD_POOLS  := -DQP_CFG_MAX_BODIES=128 -DQP_CFG_MAX_SHAPES=128 -DQP_CFG_MAX_PAIRS=256 \
                -DQP_CFG_MAX_CONTACTS=224 -DQP_CFG_MAX_JOINTS=1 -DQP_CFG_MAX_HULLS=0 \
                -DQP_CFG_MAX_BODY_SHAPES=5
