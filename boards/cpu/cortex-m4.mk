# SPDX-License-Identifier: MIT
# Cortex-M4 (ARMv7E-M, DSP; its optional FPU is left off)
# Compiler flags for every board with CPU_CORE = cortex-m4.
# Always soft-float: the core has no float, soft-float keeps the nm guard meaningful,
# and every board then computes the same bits.
CPU_FLAGS := -mthumb -mcpu=cortex-m4 -mfloat-abi=soft
