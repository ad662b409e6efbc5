# SPDX-License-Identifier: MIT
# Shared by the host and board builds: where things are, and the pinned
# libfixmath configuration. Every target compiles libfixmath from the same
# source with the same flags, so every target computes the same bits.

DEPS_DIR        ?= build/deps
LIBFIXMATH_SRC  ?= $(DEPS_DIR)/libfixmath
FIXMATH_DIR     := $(LIBFIXMATH_SRC)/libfixmath
# Pinned: rounding and overflow detection on (libfixmath defaults), caches off
# (they cost ~68 KB of RAM and only change memory, not results).
FIXMATH_FLAGS   := -DFIXMATH_NO_CACHE
FIXMATH_SRCS    := $(addprefix $(FIXMATH_DIR)/,fix16.c fix16_sqrt.c fix16_trig.c fix16_exp.c fix16_str.c)

CORE_SRCS       := $(sort $(wildcard src/*.c))
CORE_INC        := -Iinclude -I$(FIXMATH_DIR)
# The core's own warnings; the guards (-mgeneral-regs-only, nm) are added per target.
CORE_WARN       := -std=c11 -Wall -Wextra -Werror -pedantic -Wundef -Wshadow
# gcc only: bound every core function's stack frame (no recursion, no VLAs).
CORE_STACK_WARN := -Wstack-usage=2048
# The debug information of the board images, make lib and the sanitized fuzz builds: -g for a
# debugger's variables; -g1 (line tables, enough for backtraces and sanitizer reports) compiles
# about a third faster, and the code is the same either way. make test builds with -g1.
DEBUG_INFO      ?= -g

# Every libfixmath source comes from one fetch (tools/deps.sh). A grouped target, so
# that on a fresh clone make knows how to get each of them before any rule needs one
# (naming only fix16.c left "No rule to make target .../fix16_sqrt.o" the first time).
DEPS_STAMP := $(FIXMATH_DIR)/fix16.c
$(FIXMATH_SRCS) $(FIXMATH_DIR)/fix16.h &:
	@sh tools/deps.sh
# The rule above must not become the including Makefile's default goal.
.DEFAULT_GOAL :=
