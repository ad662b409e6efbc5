# SPDX-License-Identifier: MIT
# qphys — one Makefile for the host and the Cortex-M boards.
#   make            host build: library, qphys tool, demo
#   make run        build and run the main demo on the host (pyramid20 through the qphys command)
#   make check      the quick tier, for the edit loop: host build, core guard, unit tests, scenes on the host
#   make test       everything: deps, guards, unit tests (+ASan/UBSan), cross-target hashes
#   make bench      benchmarks (host and emulated Cortex-M4); a full run writes docs/benchmarks/bench.md
#   make fidelity   qphys beside Bullet on bench/fidelity/*.scene, written into docs/benchmarks/fidelity.md
#   make BOARD=x [run|size|scene]   see boards/ and README.md
include mk/common.mk
# Benchmarks: host runs and the board app (make BOARD=qemu-mps2-an386 APP=bench).
-include mk/bench.mk
# The lockstep demo's board app (make BOARD=qemu-mps2-an386 APP=lockstep); its host rule is below.
-include mk/lockstep.mk

ifdef BOARD
include mk/board.mk
else

HOST_CC   ?= gcc
HOST_OPT  ?= -O2
BUILD_TAG ?= host
OUT       := build/$(BUILD_TAG)
HOST_CFLAGS = $(HOST_OPT) $(CORE_INC) -Iport $(FIXMATH_FLAGS) $(EXTRA_CFLAGS)

# The stack bound is checked by gcc builds without sanitizers (which inflate frames).
HOST_STACK_WARN := $(if $(findstring clang,$(HOST_CC))$(findstring sanitize,$(HOST_OPT)),,$(CORE_STACK_WARN))

FIXMATH_OBJS := $(patsubst $(FIXMATH_DIR)/%.c,$(OUT)/fixmath/%.o,$(FIXMATH_SRCS))
CORE_OBJS    := $(patsubst src/%.c,$(OUT)/core/%.o,$(CORE_SRCS))
PORT_SRCS    := $(sort $(wildcard port/host/*.c)) port/qp_fmt.c
PORT_OBJS    := $(patsubst port/%.c,$(OUT)/port/%.o,$(PORT_SRCS))
LIB          := $(OUT)/libqphys.a

.PHONY: fidelity
.PHONY: all run check test bench deps golden clean core-guard unit probe print-small-pools print-fixmath-dir
all: $(LIB) $(OUT)/probe

# ---- dependencies -----------------------------------------------------------
deps:
	@sh tools/deps.sh

# ---- library ----------------------------------------------------------------
$(OUT)/fixmath/%.o: $(FIXMATH_DIR)/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_OPT) $(FIXMATH_FLAGS) $(EXTRA_CFLAGS) -I$(FIXMATH_DIR) -c $< -o $@

$(OUT)/core/%.o: src/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(CORE_WARN) $(HOST_STACK_WARN) $(HOST_CFLAGS) -MMD -MP -c $< -o $@

$(OUT)/port/%.o: port/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -std=c11 -Wall -Wextra -MMD -MP -c $< -o $@

$(LIB): $(CORE_OBJS) $(FIXMATH_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

# The x86-64 guard: the core compiled with no SSE/x87 registers, so any
# run-time float or double is a compile error ("SSE register return with SSE disabled").
# Unoptimised: every expression is expanded as written, none folded away before the check, in
# a fifth of -O2's compile time. The frames' bound (-Wstack-usage) is the -O2 builds'.
GUARD_OUT  := build/guard
GUARD_OBJS := $(patsubst src/%.c,$(GUARD_OUT)/%.o,$(CORE_SRCS))
$(GUARD_OUT)/%.o: src/%.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@$(HOST_CC) $(CORE_WARN) $(CORE_INC) $(FIXMATH_FLAGS) -O0 -mgeneral-regs-only \
	    -MMD -MP -c $< -o $@ || { \
	  echo "core-guard: $< does not compile without floating-point registers: the core must not use float or double" >&2; exit 1; }
core-guard: $(GUARD_OBJS)
	@if grep -nE '\b(float|double)\b' $(CORE_SRCS) include/qphys/*.h | grep -vE ':\s*(/\*|\*|//)'; then \
	  echo "core-guard: the words float/double appear in the core (above)" >&2; exit 1; fi
	@if grep -nE '\b(malloc|calloc|realloc|free)\s*\(' $(CORE_SRCS) include/qphys/*.h; then \
	  echo "core-guard: heap calls in the core (above): use static pools" >&2; exit 1; fi
	@echo "core-guard: no float, no double, no heap in src/ and include/"

# ---- programs ----------------------------------------------------------------
$(OUT)/probe: tests/probe/probe.c $(PORT_OBJS) $(LIB)
	$(HOST_CC) $(HOST_CFLAGS) -std=c11 -Wall -Wextra $< $(PORT_OBJS) $(LIB) -o $@

probe: $(OUT)/probe

# The README's example (tests/scripts/test-api.sh checks that the two are the same text).
$(OUT)/hello: examples/hello.c $(LIB)
	$(HOST_CC) $(HOST_CFLAGS) -std=c11 -Wall -Wextra -pedantic -Werror $< $(LIB) -o $@
all: $(OUT)/hello

# The car demo (seed 004): a car on ray-cast wheels squashes a box against a wall.
$(OUT)/car: examples/car.c examples/save_snapshot.h $(LIB)
	$(HOST_CC) $(HOST_CFLAGS) -std=c11 -Wall -Wextra -pedantic -Werror $< $(LIB) -o $@
all: $(OUT)/car
# Ragdolls dropped on a column of cubes (the ragdoll builder and joints); exits 1 if they
# never sleep or a joint stays open.
$(OUT)/ragdolls: examples/ragdolls.c examples/save_snapshot.h $(LIB)
	$(HOST_CC) $(HOST_CFLAGS) -std=c11 -Wall -Wextra -pedantic -Werror $< $(LIB) -o $@
all: $(OUT)/ragdolls
# The car driven over tests/scenes/level.scene (its meshes read by tools/obj.c); exits 1 if it
# flips, falls through or leaves its wheels.
$(OUT)/level_drive: examples/level_drive.c examples/save_snapshot.h tools/obj.c tools/obj.h tools/obj_text.c \
                    tools/obj_text.h $(LIB)
	$(HOST_CC) $(HOST_CFLAGS) -std=gnu11 -Wall -Wextra -Werror -Itools $< tools/obj.c tools/obj_text.c $(LIB) -lm -o $@
all: $(OUT)/level_drive

# The main demo: pyramid20 (210 cubes). With a display, the viewer; without one, 10 s of it
# with a summary of what it did, and its animation (tools/run-demo.sh). Dependencies first,
# then a build that sees them (the viewer and render are built when their libraries exist).
run:
	@sh tools/deps.sh
	@sh tools/with-ccache.sh $(MAKE) --no-print-directory all
	@sh tools/run-demo.sh $(OUT) tests/scenes/pyramid20.scene

# ---- tests ----------------------------------------------------------------------
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUT)/unit/%,$(UNIT_SRCS))
# Unit tests read scenes with mesh lines through the tools' OBJ reader (tools/obj.c), compiled
# once per build for all of them.
UNIT_TOOL_OBJS := $(OUT)/unit-tools/obj.o $(OUT)/unit-tools/obj_text.o
$(OUT)/unit-tools/%.o: tools/%.c tools/obj.h tools/obj_text.h Makefile | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -std=gnu11 -Wall -Wextra -Itests/unit -Itools -MMD -MP -c $< -o $@
$(OUT)/unit/%: tests/unit/%.c $(UNIT_TOOL_OBJS) $(LIB) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -std=gnu11 -Wall -Wextra -Itests/unit -Itools -MMD -MP -MF $@.d $< $(UNIT_TOOL_OBJS) $(LIB) \
	  -lcmocka -lm -o $@

unit: $(UNIT_BINS)

# Tests that need small pools (tests/pools): build them in a tag of their own with the pools
# as EXTRA_CFLAGS, as tests/run.sh does, e.g.
#   make BUILD_TAG=host-pools EXTRA_CFLAGS="$(SMALL_POOLS)" build/host-pools/pools/test_small_pools
SMALL_POOLS := -DQP_CFG_LOW_RAM=1 -DQP_CFG_MAX_BODIES=16 -DQP_CFG_MAX_SHAPES=16 -DQP_CFG_MAX_BODY_SHAPES=1 \
               -DQP_CFG_MAX_PAIRS=32 -DQP_CFG_MAX_CONTACTS=12 -DQP_CFG_MAX_MATERIALS=4 -DQP_CFG_MAX_FORCED_BODIES=2 \
               -DQP_CFG_MAX_OFFSET_BODIES=1
$(OUT)/pools/%: tests/pools/%.c $(LIB) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -std=gnu11 -Wall -Wextra -Itests/unit -MMD -MP -MF $@.d $< $(LIB) -lcmocka -lm -o $@
print-small-pools:
	@echo "$(SMALL_POOLS)"
print-fixmath-dir:
	@echo "$(FIXMATH_DIR)"

check: | $(DEPS_STAMP)
	@sh tests/run.sh quick

test: | $(DEPS_STAMP)
	@sh tests/run.sh full

golden: all
	@sh tools/golden.sh

bench: | $(DEPS_STAMP)
	@sh bench/run.sh

fidelity: | $(DEPS_STAMP)
	@sh bench/fidelity.sh

clean:
	rm -rf build/host* build/guard build/test-* build/lib $(patsubst boards/%/board.mk,build/%,$(wildcard boards/*/board.mk))

-include mk/tools.mk
-include mk/lockstep.mk
include mk/fuzz.mk
include mk/lib.mk
-include $(CORE_OBJS:.o=.d) $(PORT_OBJS:.o=.d) $(GUARD_OBJS:.o=.d) $(UNIT_TOOL_OBJS:.o=.d) $(UNIT_BINS:=.d) \
         $(wildcard $(OUT)/pools/*.d)
endif
