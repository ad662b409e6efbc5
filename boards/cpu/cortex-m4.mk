# SPDX-License-Identifier: MIT
# Cortex-M4 (ARMv7E-M, DSP; its optional FPU is left off)
# Compiler flags for every board with CPU_CORE = cortex-m4.
# Always soft-float: the core has no float, soft-float keeps the nm guard meaningful,
# and every board then computes the same bits.
CPU_FLAGS := -mthumb -mcpu=cortex-m4 -mfloat-abi=soft
# -O3 unless the board chooses (BOARD_OPT in its board.mk): the velocity passes' kernels
# unrolled and inlined take 8 % fewer instructions a step than -O2 on stack20 and stack50,
# 6 % on pyramid20 and 5 % on rain512 (QEMU mps2-an386, docs/benchmarks.md), for 64 KB more
# flash (330 KB for the benchmark image; these boards have 512 KB to 4 MB). Integer code:
# the same hashes at any level (tests/scripts/scene-check.sh on every board).
BOARD_OPT ?= -O3
