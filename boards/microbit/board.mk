# SPDX-License-Identifier: MIT
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
# Exit through semihosting always: QEMU serves it, and the tests read the exit status.
PORT_EXIT    := semihost
# Built for size: at -Os the engine takes 215 KB of the 256 KB flash (the scene runner with
# stack20: 221 KB); at -O2, with the inlined row kernels of the speed work, the scene runner
# needs 159 KB more than the board has. The same hashes (integer code;
# tests/scripts/scene-check.sh compares them).
BOARD_OPT    ?= -Os
# Pools for 16 KB of RAM: stack20 (21 bodies, 20 pairs, 20 manifolds), in the
# low-RAM layout (QP_CFG_LOW_RAM: derived data is recomputed on use, same bits as the host).
# World 11 868 bytes (1 364 of the 16 KB free): stack20's peaks exactly (20 pairs, 20 contacts), one joint (door, rope) of any
# kind but without motors, springs or break impulses (QP_CFG_JOINT_OPTIONS=0: 40 bytes it has not),
# one event of each kind and one sensor overlap (a board reads no events yet), 6 distinct materials
# (the most of any test scene), forces pending on 4 bodies at once and 1 body whose centre is off
# its origin (docs/memory.md); the stack (3 136 bytes, boards/microbit/linker.ld) and the port take the rest.
BOARD_POOLS  := -DQP_CFG_LOW_RAM=1 -DQP_CFG_FIXED_POOLS=1 -DQP_CFG_MAX_BODIES=21 -DQP_CFG_MAX_SHAPES=21 -DQP_CFG_MAX_BODY_SHAPES=1 \
                -DQP_CFG_MAX_PAIRS=20 -DQP_CFG_MAX_CONTACTS=20 -DQP_CFG_MAX_JOINTS=1 -DQP_CFG_JOINT_OPTIONS=0 -DQP_CFG_MAX_EVENTS=1 \
                -DQP_CFG_MAX_SENSOR_OVERLAPS=1 -DQP_CFG_MAX_HULLS=0 -DQP_CFG_MAX_MATERIALS=6 -DQP_CFG_MAX_FORCED_BODIES=4 \
                -DQP_CFG_MAX_OFFSET_BODIES=1
