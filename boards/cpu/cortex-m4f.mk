# SPDX-License-Identifier: MIT
# Cortex-M4 with its FPU, hard-float ABI: for `make lib CPU=cortex-m4f`, a library that links
# into firmware built with -mfloat-abi=hard. The core still uses no float:
# makes any float a compile error and keeps the FPU registers untouched (no FPU context to save
# in interrupts), and the guard also scans the objects for FPU instructions.
CPU_FLAGS := -mthumb -mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16
# Not for boards: port/cortex_m never enables the FPU (CPACR), and gcc may move 64-bit data
# through FPU registers; firmware built hard-float enables it in its startup.
