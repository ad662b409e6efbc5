# SPDX-License-Identifier: MIT
# mk/lib.mk - qphys as a library for other projects (included by the Makefile's host build).
#
#   make install PREFIX=/usr/local [DESTDIR=...]   the host libqphys.a (core + libfixmath), the
#                                 headers (libfixmath's under include/qphys/libfixmath), qphys.pc
#                                 and the CMake package qphysConfig.cmake (tools/install-lib.sh)
#   make lib CPU=cortex-m4f       a static library for firmware, in the same layout under
#                                 build/lib/<cpu>/ (include/, lib/libqphys.a, lib/pkgconfig,
#                                 lib/cmake); CPU is any boards/cpu/<cpu>.mk: cortex-m0, -m3, -m4,
#                                 -m4f (hard-float ABI), -m7, rv32imac. The guard runs on its
#                                 objects: no float helpers, no heap, and no FPU instruction.
# Both use the pinned libfixmath configuration (FIXMATH_FLAGS) and the default pool sizes of
# include/qphys/config.h: a program must be compiled with the same (else QP_ERR_CONFIG).
# make lib takes other pools for a board's RAM, and a folder of its own for them (its objects
# are not rebuilt when only the flags change), e.g. examples/firmware/Makefile:
#   make lib CPU=cortex-m4f LIB_POOLS="-DQP_CFG_MAX_BODIES=16 ..." LIB_DIR=/abs/path
# and the program is compiled with the same LIB_POOLS.

QPHYS_VERSION := $(file <VERSION)
PREFIX ?= /usr/local

.PHONY: install lib
install: $(LIB)
	@sh tools/install-lib.sh "$(PREFIX)" $(LIB) $(FIXMATH_DIR) $(QPHYS_VERSION)

ifeq ($(filter lib,$(MAKECMDGOALS)),)
# (CPU is read only for make lib: an environment's CPU variable changes nothing else)
else ifndef CPU
lib:
	@echo "usage: make lib CPU=<cpu>, one of: $(patsubst boards/cpu/%.mk,%,$(wildcard boards/cpu/*.mk))" >&2; exit 2
else
ifeq ($(wildcard boards/cpu/$(CPU).mk),)
$(error CPU '$(CPU)' has no boards/cpu/$(CPU).mk; known: $(patsubst boards/cpu/%.mk,%,$(wildcard boards/cpu/*.mk)))
endif
include boards/cpu/$(CPU).mk
L_CROSS  := $(if $(filter riscv,$(CPU_ARCH)),riscv64-unknown-elf-,arm-none-eabi-)
L_CC     := $(L_CROSS)gcc
LIB_DIR  ?= build/lib/$(CPU)
L_DIR    := $(LIB_DIR)
LIB_OPT  ?= -O2
L_BASE   := $(CPU_FLAGS) $(LIB_OPT) $(DEBUG_INFO) -ffunction-sections -fdata-sections -fno-common -MMD -MP $(LIB_POOLS)
L_FIX_OBJS  := $(patsubst $(FIXMATH_DIR)/%.c,$(L_DIR)/obj/fixmath/%.o,$(FIXMATH_SRCS))
L_CORE_OBJS := $(patsubst src/%.c,$(L_DIR)/obj/core/%.o,$(CORE_SRCS))
L_LIB       := $(L_DIR)/obj/libqphys.a

$(L_FIX_OBJS): $(L_DIR)/obj/fixmath/%.o: $(FIXMATH_DIR)/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(L_CC) $(L_BASE) $(FIXMATH_FLAGS) -I$(FIXMATH_DIR) -c $< -o $@
$(L_CORE_OBJS): $(L_DIR)/obj/core/%.o: src/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(L_CC) $(L_BASE) $(CORE_WARN) $(CORE_STACK_WARN) $(CORE_INC) $(FIXMATH_FLAGS) -c $< -o $@
$(L_LIB): $(L_CORE_OBJS) $(L_FIX_OBJS)
	@rm -f $@
	$(L_CROSS)ar rcs $@ $^
# The guard on every make lib (a second or so), so its verdict is always printed.
lib: $(L_LIB)
	@NM=$(L_CROSS)nm OBJDUMP=$(if $(filter arm,$(or $(CPU_ARCH),arm)),$(L_CROSS)objdump) \
	  sh tools/check-core-symbols.sh $(L_CORE_OBJS) $(L_FIX_OBJS)
	@sh tools/install-lib.sh "$(abspath $(L_DIR))" $(L_LIB) $(FIXMATH_DIR) $(QPHYS_VERSION)
	@echo "lib: $(L_DIR)/lib/libqphys.a for $(CPU) ($(CPU_FLAGS)); headers in $(L_DIR)/include"
-include $(L_CORE_OBJS:.o=.d) $(L_FIX_OBJS:.o=.d)
endif

# ---- the shared library -----------------------------------------------------------------
#   make shared      $(OUT)/libqphys.so: the same engine sources as libqphys.a compiled with
#                    -fPIC (objects in $(OUT)/pic/), plus the replay reader and verifier that
#                    qphys verify uses and tools/shared_api.c (what ctypes needs: a world
#                    allocated and initialised with this build's signature, struct sizes,
#                    the body layout). The Python package (python/qphys) loads it.
SO_OUT  := $(OUT)/pic
SO_LIB  := $(OUT)/libqphys.so
SO_CORE := $(patsubst src/%.c,$(SO_OUT)/core/%.o,$(CORE_SRCS))
SO_FIX  := $(patsubst $(FIXMATH_DIR)/%.c,$(SO_OUT)/fixmath/%.o,$(FIXMATH_SRCS))
SO_HOST := $(SO_OUT)/tools/replay.o $(SO_OUT)/tools/verify.o $(SO_OUT)/tools/obj.o $(SO_OUT)/tools/obj_text.o $(SO_OUT)/tools/sized_world.o \
           $(SO_OUT)/tools/shared_api.o

$(SO_OUT)/core/%.o: src/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(CORE_WARN) $(HOST_STACK_WARN) $(HOST_CFLAGS) -fPIC -MMD -MP -c $< -o $@
$(SO_OUT)/fixmath/%.o: $(FIXMATH_DIR)/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_OPT) $(FIXMATH_FLAGS) $(EXTRA_CFLAGS) -fPIC -I$(FIXMATH_DIR) -c $< -o $@
$(SO_OUT)/tools/%.o: tools/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -std=c11 -Wall -Wextra -Werror -fPIC -MMD -MP -c $< -o $@
$(SO_LIB): $(SO_CORE) $(SO_FIX) $(SO_HOST)
	$(HOST_CC) -shared -Wl,-soname,libqphys.so -Wl,-z,defs $^ -o $@

.PHONY: shared
shared: $(SO_LIB)
-include $(SO_CORE:.o=.d) $(SO_HOST:.o=.d)
