# SPDX-License-Identifier: MIT
# mk/bench.mk - the benchmarks of bench/ (docs/benchmarks.md).
#
# Included by the Makefile (best before `ifdef BOARD`, so that the board build sees
# APP_SRCS_bench), or used alone:  make -f mk/bench.mk bench-build
#
#   make bench                                   bench/run.sh: build, run, print the tables (a full
#       run also writes them into docs/benchmarks/bench.md)
#   make -f mk/bench.mk bench-build              the host programs in build/bench/:
#       bench_host (qphys), ode_bench (ODE), bullet_bench (Bullet), bench_window (qphys: a
#       window of steps of a scene file, best of repeated runs, to compare two builds),
#       bench_piles (qphys: how many piles of cubes come to rest, to judge a change of results),
#       bench_impacts (qphys: struck walls, pyramids, towers and piles, how they come to rest),
#       bench_landings (qphys: cubes landing edge-first on seven kinds of ground, how deep they go),
#       bench_energy (qphys: the same seeds, the energy each velocity pass adds),
#       bench_level (qphys: ray casts on a 100 352-triangle mesh, contacts on a heightfield and a mesh),
#       bench_ragdolls (qphys: ragdolls thrown at 20 m/s on a range of seeds, the rates that sleep and
#       hold their limits; `SEED 1 sleep FROM`: why a throw's sleep tests restart; docs/limits.md, Joints)
#   make -f mk/bench.mk build/bench/bench_steps  what each step of a scene file runs: its time and
#       the velocity passes' sweeps and rows, the narrow phase's pairs (a library with the work
#       counters, build/bench-count/)
#   make -f mk/bench.mk bench-big                bench_window with pools for the scaling table's
#       scenes (build/bench/big/bench_window, its library and qphys in build/bench-big/)
#   make bench JOLT_SRC=DIR                      the same with Jolt Physics beside them: builds it once
#       from the source tree DIR (cmake, Release; never part of this repository) with its front end
#       bench/peers/jolt_bench.cpp into build/bench/jolt/ (make -f mk/bench.mk bench-jolt JOLT_SRC=DIR)
#   make fidelity                                bench/fidelity.sh: the fidelity table (also into
#       docs/benchmarks/fidelity.md), qphys and
#       Bullet on the scene files of bench/fidelity/ (build/bench/fidelity_qphys, bullet_bench --file)
#   make BOARD=qemu-mps2-an386 APP=bench [run]   the Cortex-M app (bench/bench_target.c)
#
# The peers need libode-dev and libbullet-dev (and g++, pkg-config): bench/deps.sh
# installs them with apt-get when it may (root or passwordless sudo), like tools/deps.sh.

BENCH_FIRST_MAKEFILE := $(firstword $(MAKEFILE_LIST))
BENCH_SAVED_GOAL := $(.DEFAULT_GOAL)

# ---- the Cortex-M app (mk/board.mk) ---------------------------------------------------
APP_SRCS_bench   ?= bench/bench_target.c bench/scenes.c
APP_CFLAGS_bench ?= -Isrc -Ibench

ifndef BOARD
ifndef CORE_INC
include mk/common.mk
endif

BENCH_OUT   ?= build/bench
BENCH_LIB   := build/host/libqphys.a
BENCH_CC    ?= gcc
BENCH_CXX   ?= g++
BENCH_OPT   ?= -O2
BENCH_CFLAGS = $(BENCH_OPT) -std=c11 -Wall -Wextra $(CORE_INC) -Isrc -Ibench $(FIXMATH_FLAGS)

.PHONY: bench-build bench-host bench-peers bench-deps bench-target
bench-build: bench-host bench-peers $(BENCH_OUT)/fidelity_qphys
bench-host: $(BENCH_OUT)/bench_host $(BENCH_OUT)/bench_window $(BENCH_OUT)/bench_piles $(BENCH_OUT)/bench_impacts \
            $(BENCH_OUT)/bench_energy $(BENCH_OUT)/bench_level $(BENCH_OUT)/bench_ragdolls \
            $(BENCH_OUT)/bench_landings
bench-peers: $(BENCH_OUT)/ode_bench $(BENCH_OUT)/bullet_bench

bench-deps:
	@sh bench/deps.sh

BENCH_HOST_OBJS := $(BENCH_OUT)/obj/bench_host.o $(BENCH_OUT)/obj/scenes.o

$(BENCH_OUT)/obj/%.o: bench/%.c
	@mkdir -p $(dir $@)
	$(BENCH_CC) $(BENCH_CFLAGS) -MMD -MP -c $< -o $@

$(BENCH_OUT)/bench_host: $(BENCH_HOST_OBJS) $(BENCH_LIB)
	$(BENCH_CC) $(BENCH_OPT) $(BENCH_HOST_OBJS) $(BENCH_LIB) -o $@

$(BENCH_OUT)/bench_window: $(BENCH_OUT)/obj/bench_window.o $(BENCH_LIB)
	$(BENCH_CC) $(BENCH_OPT) $< $(BENCH_LIB) -o $@

$(BENCH_OUT)/bench_piles: $(BENCH_OUT)/obj/bench_piles.o $(BENCH_LIB)
	$(BENCH_CC) $(BENCH_OPT) $< $(BENCH_LIB) -o $@ -lm

$(BENCH_OUT)/bench_impacts: $(BENCH_OUT)/obj/bench_impacts.o $(BENCH_LIB)
	$(BENCH_CC) $(BENCH_OPT) $< $(BENCH_LIB) -o $@ -lm

$(BENCH_OUT)/bench_landings: $(BENCH_OUT)/obj/bench_landings.o $(BENCH_LIB)
	$(BENCH_CC) $(BENCH_OPT) $< $(BENCH_LIB) -o $@ -lm

$(BENCH_OUT)/bench_energy: $(BENCH_OUT)/obj/bench_energy.o $(BENCH_LIB)
	$(BENCH_CC) $(BENCH_OPT) $< $(BENCH_LIB) -o $@ -lm

$(BENCH_OUT)/bench_level: $(BENCH_OUT)/obj/bench_level.o $(BENCH_LIB)
	$(BENCH_CC) $(BENCH_OPT) $< $(BENCH_LIB) -o $@ -lm

$(BENCH_OUT)/bench_ragdolls: $(BENCH_OUT)/obj/bench_ragdolls.o $(BENCH_LIB)
	$(BENCH_CC) $(BENCH_OPT) $< $(BENCH_LIB) -o $@ -lm

$(BENCH_OUT)/fidelity_qphys: $(BENCH_OUT)/obj/fidelity_qphys.o $(BENCH_LIB)
	$(BENCH_CC) $(BENCH_OPT) $< $(BENCH_LIB) -o $@ -lm

$(BENCH_OUT)/ode_bench: bench/peers/ode_bench.c bench/peers/peer_common.h | bench-deps
	@mkdir -p $(dir $@)
	$(BENCH_CC) $(BENCH_OPT) -std=c11 -Wall -Wextra $$(pkg-config --cflags ode) $< -o $@ $$(pkg-config --libs ode) -lm

# It reads scene files (--file) with qphys's reader, so it links libqphys.a.
$(BENCH_OUT)/bullet_bench: bench/peers/bullet_bench.cpp bench/peers/peer_common.h bench/fidelity_scene.h $(BENCH_LIB) | bench-deps
	@mkdir -p $(dir $@)
	$(BENCH_CXX) $(BENCH_OPT) -Wall -Wextra $(CORE_INC) -Ibench $(FIXMATH_FLAGS) $$(pkg-config --cflags bullet) $< -o $@ \
	  $(BENCH_LIB) $$(pkg-config --libs bullet) -lm

# The scaling table (bench/run.sh, bench/scale_scenes.sh) runs scenes of up to 8 256 bodies:
# bench_window linked with a library whose pools hold them (BUILD_TAG=bench-big), and built
# with the same pools (the library refuses a program built with others); the wall's golden
# hashes are checked with the qphys command of that build.
BENCH_BIG_POOLS ?= -DQP_CFG_MAX_BODIES=8400 -DQP_CFG_MAX_CONTACTS=32000
BENCH_BIG_LIB   := build/bench-big/libqphys.a
.PHONY: bench-big
bench-big:
	@$(MAKE) --no-print-directory -f Makefile BUILD_TAG=bench-big EXTRA_CFLAGS="$(BENCH_BIG_POOLS)" $(BENCH_BIG_LIB) \
	  build/bench-big/qphys
	@$(MAKE) --no-print-directory -f mk/bench.mk $(BENCH_OUT)/big/bench_window

$(BENCH_OUT)/big/bench_window: bench/bench_window.c bench/bench_clock.h $(wildcard $(BENCH_BIG_LIB))
	@mkdir -p $(dir $@)
	$(BENCH_CC) $(BENCH_CFLAGS) $(BENCH_BIG_POOLS) -MMD -MP $< $(BENCH_BIG_LIB) -o $@

# bench_steps reads the work counters (src/bench_count.h): linked with a library built with
# them, in build/bench-count/ (the counters change no result, only the instructions).
BENCH_COUNT_LIB := build/bench-count/libqphys.a
.PHONY: bench-count-lib
bench-count-lib:
	@$(MAKE) --no-print-directory -f Makefile BUILD_TAG=bench-count EXTRA_CFLAGS="-DQP_BENCH_COUNT=1" $(BENCH_COUNT_LIB)

$(BENCH_OUT)/bench_steps: bench/bench_steps.c bench/bench_clock.h src/bench_count.h bench-count-lib
	@mkdir -p $(dir $@)
	$(BENCH_CC) $(BENCH_CFLAGS) -DQP_BENCH_COUNT=1 $< $(BENCH_COUNT_LIB) -o $@

# Jolt: configured once into $(JOLT_OUT) (cmake keeps its cache there), then only rebuilt
# where its sources or the front end changed. BENCH_JOBS: the build's parallel jobs.
# JOLT_DETERMINISTIC=1: Jolt's cross-platform deterministic build, in a folder of its own.
ifeq ($(JOLT_DETERMINISTIC),1)
JOLT_OUT   ?= $(BENCH_OUT)/jolt-deterministic
JOLT_CMAKE := -DCROSS_PLATFORM_DETERMINISTIC=ON
else
JOLT_OUT   ?= $(BENCH_OUT)/jolt
JOLT_CMAKE := -DCROSS_PLATFORM_DETERMINISTIC=OFF
endif
BENCH_JOBS ?= 2
.PHONY: bench-jolt
bench-jolt:
ifeq ($(strip $(JOLT_SRC)),)
	@echo "Jolt: not built; make bench JOLT_SRC=/path/to/JoltPhysics"
else
	@test -f "$(JOLT_SRC)/Build/CMakeLists.txt" || \
	  { echo "bench: JOLT_SRC=$(JOLT_SRC) is not a JoltPhysics source tree (no Build/CMakeLists.txt)" >&2; exit 2; }
	@if [ ! -f $(JOLT_OUT)/CMakeCache.txt ] || ! grep -qx 'JOLT_SRC:[A-Z]*=$(abspath $(JOLT_SRC))' $(JOLT_OUT)/CMakeCache.txt; then \
	  cmake -S bench/peers/jolt -B $(JOLT_OUT) -DJOLT_SRC=$(abspath $(JOLT_SRC)) $(JOLT_CMAKE) >/dev/null; fi
	cmake --build $(JOLT_OUT) --target jolt_bench -j $(BENCH_JOBS)
endif

# The Cortex-M image, with the app's sources given on the command line so that it
# builds whether or not the Makefile includes this file before mk/board.mk.
bench-target:
	$(MAKE) --no-print-directory BOARD=qemu-mps2-an386 APP=bench \
	  APP_SRCS_bench="$(APP_SRCS_bench)" APP_CFLAGS_bench="$(APP_CFLAGS_bench)"

# Alone (make -f mk/bench.mk): the library comes from the Makefile.
ifeq ($(BENCH_FIRST_MAKEFILE),mk/bench.mk)
.PHONY: bench-lib-force
bench-lib-force:
$(BENCH_LIB): bench-lib-force
	@$(MAKE) --no-print-directory -f Makefile $@
endif

# Every object's header dependencies (-MMD), so a change to a header rebuilds what includes it.
-include $(wildcard $(BENCH_OUT)/obj/*.d $(BENCH_OUT)/big/*.d)
endif

# Included early, this file must not make its first target the Makefile's default goal.
.DEFAULT_GOAL := $(BENCH_SAVED_GOAL)
