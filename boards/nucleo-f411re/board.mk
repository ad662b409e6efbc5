# SPDX-License-Identifier: MIT
# ST Nucleo-F411RE (STM32F411RE, Cortex-M4F): build only, no QEMU model. 512 KB flash at
# 0x08000000, 128 KB SRAM at 0x20000000. Flash build/nucleo-f411re/probe.bin by copying it to the
# ST-LINK's USB drive (or probe.hex with a debug probe); read the console on the ST-LINK's serial port.
CPU_CORE     := cortex-m4
# SysTick clock in Hz: the reset clock, the 16 MHz internal oscillator (no PLL set up)
CPU_HZ       := 16000000
BOARD_RUN    := none
FLASH_ORIGIN := 0x08000000
FLASH_KB     := 512
RAM_ORIGIN   := 0x20000000
RAM_KB       := 128
# uart: USART2 on PA2/PA3, the ST-LINK virtual COM port (boards/nucleo-f411re/board.c)
CONSOLE      := uart
# Semihosting only when a debugger is attached (DHCSR.C_DEBUGEN), else a reset.
PORT_EXIT    := auto
FLASH_IMAGES := bin hex
# The netduinoplus2's pools (128 KB too): stack50 with room, the default layout.
BOARD_POOLS  := -DQP_CFG_MAX_BODIES=64 -DQP_CFG_MAX_SHAPES=64 -DQP_CFG_MAX_PAIRS=128 \
                -DQP_CFG_MAX_CONTACTS=104 -DQP_CFG_MAX_JOINTS=1 -DQP_CFG_MAX_HULLS=0 \
                -DQP_CFG_MAX_BODY_SHAPES=5
