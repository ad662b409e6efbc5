# SPDX-License-Identifier: MIT
# Cortex-M3 (ARMv7-M, hardware divide)
# Compiler flags for every board with CPU_CORE = cortex-m3.
# Always soft-float: the core has no float, soft-float keeps the nm guard meaningful,
# and every board then computes the same bits.
CPU_FLAGS := -mthumb -mcpu=cortex-m3 -mfloat-abi=soft
