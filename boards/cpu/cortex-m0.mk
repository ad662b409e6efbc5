# SPDX-License-Identifier: MIT
# Cortex-M0 (ARMv6-M, Thumb-1 + a few Thumb-2, no divide instruction)
# Compiler flags for every board with CPU_CORE = cortex-m0.
# Always soft-float: the core has no float, soft-float keeps the nm guard meaningful,
# and every board then computes the same bits.
CPU_FLAGS := -mthumb -mcpu=cortex-m0 -mfloat-abi=soft
