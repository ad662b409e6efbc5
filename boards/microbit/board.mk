# BBC micro:bit v1 (nRF51822, Cortex-M0), QEMU -M microbit. 256 KB flash, 16 KB RAM.
CPU_CORE     := cortex-m0
# SysTick clock in Hz (processor clock; CSR = 5)
CPU_HZ       := 16000000
QEMU_MACHINE := microbit
FLASH_ORIGIN := 0x00000000
FLASH_KB     := 256
RAM_ORIGIN   := 0x20000000
RAM_KB       := 16
# semihost (port/cortex_m/console_semihost.c) or uart (boards/microbit/board.c)
CONSOLE      := uart
# Pools for 16 KB of RAM: up to 7 bodies and the ground for now (stack20 needs a leaner
# world layout: see the README).
BOARD_POOLS  := -DQP_CFG_MAX_BODIES=8 -DQP_CFG_MAX_SHAPES=8 -DQP_CFG_MAX_BODY_SHAPES=1 \
                -DQP_CFG_MAX_PAIRS=12 -DQP_CFG_MAX_CONTACTS=8 -DQP_CFG_MAX_JOINTS=1
