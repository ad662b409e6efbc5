# SPDX-License-Identifier: MIT
# Netduino Plus 2 (STM32F405RG, Cortex-M4F at 168 MHz), QEMU -M netduinoplus2. 1 MB flash at
# 0x08000000 (aliased at 0 when BOOT0 is low), 128 KB SRAM at 0x20000000 (the 64 KB CCM is unused).
CPU_CORE     := cortex-m4
# SysTick clock in Hz: the PLL's 168 MHz (boards/netduinoplus2/board.c); QEMU's model clocks it so too
CPU_HZ       := 168000000
QEMU_MACHINE := netduinoplus2
FLASH_ORIGIN := 0x08000000
FLASH_KB     := 1024
RAM_ORIGIN   := 0x20000000
RAM_KB       := 128
# uart: USART6 on PC6/PC7 (boards/netduinoplus2/board.c); QEMU's sixth serial port (index 5)
CONSOLE      := uart
QEMU_UART    := 5
# The .elf reports its exit status by semihosting (QEMU, or a debugger); the .bin and .hex
# written to a real board use auto: semihosting only when a debugger is attached, else a reset.
PORT_EXIT    := semihost
FLASH_EXIT   := auto
FLASH_IMAGES := bin hex
# Pools for 128 KB: stack50 (51 bodies, 50 pairs, 50 manifolds) with room, in the default
# (fast) layout, five shapes a body; larger scenes print SKIP. World and stack: `make
# BOARD=netduinoplus2 size`.
BOARD_POOLS  := -DQP_CFG_MAX_BODIES=64 -DQP_CFG_MAX_SHAPES=64 -DQP_CFG_MAX_PAIRS=128 \
                -DQP_CFG_MAX_CONTACTS=104 -DQP_CFG_MAX_JOINTS=1 -DQP_CFG_MAX_HULLS=0 \
                -DQP_CFG_MAX_BODY_SHAPES=5
