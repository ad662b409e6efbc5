# SPDX-License-Identifier: MIT
# Cortex-M7 (ARMv7E-M, dual issue; its optional FPU is left off)
# Compiler flags for every board with CPU_CORE = cortex-m7.
# Always soft-float: the core has no float, soft-float keeps the nm guard meaningful,
# and every board then computes the same bits.
CPU_FLAGS := -mthumb -mcpu=cortex-m7 -mfloat-abi=soft
