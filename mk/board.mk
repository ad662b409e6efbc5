# SPDX-License-Identifier: MIT
# mk/board.mk - build, run and measure an app on a Cortex-M board (included when BOARD is set).
#
#   make BOARD=<name> [APP=probe]   build build/<name>/<app>.elf (fails if the core-symbol guard fails)
#   make BOARD=<name> run           run it under QEMU (timeout $(RUN_TIMEOUT) s); the app's exit code
#                                   is printed and saved in build/<name>/<app>.exit; make fails unless 0
#   make BOARD=<name> size          flash (text+data) and RAM (data+bss+stack) against the board's limits
#   make BOARD=<name> check-core    no float helpers and no heap calls in the core's ARM objects
#   make BOARD=<name> clean         remove build/<name>/ only
#   make BOARD=<name> scene SCENE=path [STEPS=300]   the scene's "step hash" lines, from the board
#   make BOARD=<name> movie SCENE=path [STEPS=60] [MOVIE=out.gif] [EVERY=2] [SIZE=400x300]
#                                   the board streams every step's poses (frame lines with a CRC);
#                                   the host draws them into a GIF and fails unless every frame's
#                                   hash and poses equal its own run's (qphys render --poses)
#   make BOARD=<name> print-run     the QEMU command line [RUN_ELF=file]; make itself can only exit 0 or
#                                   2, so for the app's exact exit status: sh -c "$(make -s BOARD=x print-run)"
#
# Boards are data: boards/<name>/board.mk (CPU_CORE, CPU_HZ, QEMU_MACHINE, FLASH_*/RAM_*, CONSOLE)
# and boards/<name>/linker.ld; CPU flags live once per core in boards/cpu/<core>.mk. Optional fields:
#   BOARD_RUN := none     no QEMU model: build only (make run says so; the scene check and the
#                         probe report it as "build only", never as a failure)
#   QEMU_UART := N        the console is QEMU's serial port N (default 0)
#   FLASH_IMAGES := bin hex   also write build/<name>/<app>.bin/.hex (objcopy), what one flashes
#   FLASH_EXIT := auto    the images' exit policy when it differs from PORT_EXIT (the .elf's, which
#                         QEMU runs): the same objects linked with port_cortex_m.c built that way
#
# Optimisation: BOARD_OPT ?= -O2 (closest to what a benchmark wants; the probe prints the same
# hashes at -Os and -O2, and tests/scripts/cross-check.sh proves it for every app it runs). A board's
# board.mk may choose another: the micro:bit builds with -Os (its 256 KB of flash). A core's
# boards/cpu/<core>.mk may set its boards' default: the Cortex-M4's is -O3 (docs/benchmarks.md).
#
# Apps: APP_SRCS_<name> lists the sources, APP_CFLAGS_<name> extra flags (optional). Define more
# of them before this file is included, or below.

KNOWN_BOARDS := $(sort $(patsubst boards/%/board.mk,%,$(wildcard boards/*/board.mk)))
ifeq ($(filter $(BOARD),$(KNOWN_BOARDS)),)
$(error Unknown BOARD '$(BOARD)'. Known boards: $(KNOWN_BOARDS))
endif

include boards/$(BOARD)/board.mk
ifeq ($(wildcard boards/cpu/$(CPU_CORE).mk),)
$(error boards/$(BOARD)/board.mk: CPU_CORE '$(CPU_CORE)' has no boards/cpu/$(CPU_CORE).mk)
endif
include boards/cpu/$(CPU_CORE).mk

# ---- apps ---------------------------------------------------------------------
APP ?= probe
APP_SRCS_probe ?= tests/probe/probe.c
# make BOARD=x scene SCENE=path STEPS=N: the scene's text is compiled into the image.
APP_SRCS_scene ?= tests/target/scene_main.c tools/obj_text.c
APP_CFLAGS_scene ?= -I$(BOARD_DIR)/scene-gen -Itools
# make BOARD=x movie SCENE=path STEPS=N: the same runner, printing every step's poses.
APP_SRCS_movie ?= tests/target/scene_main.c tools/obj_text.c
APP_CFLAGS_movie ?= -DSCENE_POSES -I$(BOARD_DIR)/movie-gen -Itools
ifeq ($(strip $(APP_SRCS_$(APP))),)
$(error APP '$(APP)' has no sources: define APP_SRCS_$(APP) (see mk/board.mk))
endif

# ---- tools and flags ------------------------------------------------------------
# The instruction set comes from boards/cpu/<core>.mk (CPU_ARCH; Arm when unset): its cross
# toolchain, its port folder, its C library and its QEMU.
CPU_ARCH ?= arm
ifeq ($(CPU_ARCH),riscv)
CROSS_PREFIX ?= riscv64-unknown-elf-
QEMU         ?= qemu-system-riscv32
PORT_DIR     := port/riscv
B_ARCH_PORT  := port/riscv/startup.c port/riscv/port_riscv.c
B_LIBC       :=                      # picolibc, through the core's CPU_FLAGS (--specs)
B_QEMU_ARCH  := -bios none
else ifeq ($(CPU_ARCH),arm)
CROSS_PREFIX ?= arm-none-eabi-
QEMU         ?= qemu-system-arm
PORT_DIR     := port/cortex_m
B_ARCH_PORT  := port/cortex_m/startup.c port/cortex_m/port_cortex_m.c
B_LIBC       := --specs=nano.specs   # newlib-nano
B_QEMU_ARCH  :=
else
$(error boards/cpu/$(CPU_CORE).mk: CPU_ARCH must be arm or riscv, not '$(CPU_ARCH)')
endif
X_CC        := $(CROSS_PREFIX)gcc
X_NM        := $(CROSS_PREFIX)nm
X_SIZE      := $(CROSS_PREFIX)size
RUN_TIMEOUT ?= 300
BOARD_OPT   ?= -O2

# Build folder: one per board; BOARD_DIR gives a variant (other BOARD_POOLS) a folder of its own.
BOARD_DIR ?= build/$(BOARD)
B_DIR   := $(BOARD_DIR)
B_ELF   := $(B_DIR)/$(APP).elf
B_MAP   := $(B_DIR)/$(APP).map

# Pool sizes of qp_world on this board (BOARD_POOLS in boards/<name>/board.mk, e.g. the
# micro:bit's 16 KB): the same for the core and the apps, so the world has one layout.
B_BASE  := $(CPU_FLAGS) $(BOARD_OPT) $(DEBUG_INFO) -ffunction-sections -fdata-sections -fno-common -MMD -MP $(BOARD_POOLS)
B_FIX_CFLAGS  := $(B_BASE) $(FIXMATH_FLAGS) -I$(FIXMATH_DIR)
B_CORE_CFLAGS := $(B_BASE) $(CORE_WARN) $(CORE_STACK_WARN) $(CORE_INC) $(FIXMATH_FLAGS) -fstack-usage
# How a program ends (port/cortex_m/port_cortex_m.c): auto, semihost or reset.
PORT_EXIT ?= auto
ifeq ($(filter $(PORT_EXIT),auto semihost reset),)
$(error PORT_EXIT must be auto, semihost or reset, not '$(PORT_EXIT)')
endif
B_EXIT_FLAG := $(if $(filter semihost,$(PORT_EXIT)),-DQP_PORT_EXIT_SEMIHOST,$(if $(filter reset,$(PORT_EXIT)),-DQP_PORT_EXIT_RESET))
B_PORT_CFLAGS := $(B_BASE) -std=c11 -Wall -Wextra -Werror -Iport -I$(PORT_DIR) $(B_EXIT_FLAG) \
                 -DQP_BOARD_CPU_HZ=$(CPU_HZ)u
B_APP_CFLAGS  := $(B_BASE) -std=c11 -Wall -Wextra $(CORE_INC) -Iport $(FIXMATH_FLAGS) $(APP_CFLAGS_$(APP))
B_LDFLAGS     := $(CPU_FLAGS) -nostartfiles $(B_LIBC) -Wl,--gc-sections \
                 -L$(PORT_DIR) -T boards/$(BOARD)/linker.ld \
                 -Wl,--defsym=__flash_origin=$(FLASH_ORIGIN) -Wl,--defsym=__flash_size=$(FLASH_KB)K \
                 -Wl,--defsym=__ram_origin=$(RAM_ORIGIN) -Wl,--defsym=__ram_size=$(RAM_KB)K

# ---- sources and objects ---------------------------------------------------------
ifeq ($(CONSOLE),semihost)
B_CONSOLE_SRC := port/cortex_m/console_semihost.c
else ifeq ($(CONSOLE),uart)
B_CONSOLE_SRC := boards/$(BOARD)/board.c
else
$(error boards/$(BOARD)/board.mk: CONSOLE must be semihost or uart, not '$(CONSOLE)')
endif
B_PORT_SRCS := $(B_ARCH_PORT) port/board_write.c port/qp_fmt.c $(B_CONSOLE_SRC)

B_FIX_OBJS  := $(patsubst $(FIXMATH_DIR)/%.c,$(B_DIR)/fixmath/%.o,$(FIXMATH_SRCS))
B_CORE_OBJS := $(patsubst src/%.c,$(B_DIR)/core/%.o,$(CORE_SRCS))
B_PORT_OBJS := $(patsubst %.c,$(B_DIR)/%.o,$(B_PORT_SRCS))
B_APP_OBJS  := $(patsubst %.c,$(B_DIR)/app/$(APP)/%.o,$(APP_SRCS_$(APP)))
B_GUARD_OK  := $(B_DIR)/check-core.ok

# Rebuild what depends on flags when they change (another BOARD_OPT, CONSOLE, FIXMATH_FLAGS,
# APP_CFLAGS_<app>, ...): each signature file is rewritten only when its text differs. The core's
# signature is apart from the port's and the link's, so that another app or another PORT_EXIT in
# the same folder recompiles only what they change, never the core. Make reads them itself ($(file
# <...): empty for a missing file), for every make of a board folder, starting no process.
B_CORE_SIG_FILE := $(B_DIR)/core-flags.txt
B_SIG_FILE      := $(B_DIR)/flags.txt
B_APP_SIG_FILE  := $(B_DIR)/app/$(APP)/flags.txt
B_CORE_SIG := $(X_CC) $(B_FIX_CFLAGS) | $(B_CORE_CFLAGS)
B_SIG      := $(X_CC) $(B_PORT_CFLAGS) $(B_PORT_SRCS) | $(B_LDFLAGS)
B_APP_SIG  := $(B_APP_CFLAGS) | $(APP_SRCS_$(APP))
ifneq ($(B_CORE_SIG),$(file <$(B_CORE_SIG_FILE)))
$(shell mkdir -p $(dir $(B_CORE_SIG_FILE)) && echo '$(B_CORE_SIG)' > $(B_CORE_SIG_FILE))
endif
ifneq ($(B_SIG),$(file <$(B_SIG_FILE)))
$(shell mkdir -p $(dir $(B_SIG_FILE)) && echo '$(B_SIG)' > $(B_SIG_FILE))
endif
ifneq ($(B_APP_SIG),$(file <$(B_APP_SIG_FILE)))
$(shell mkdir -p $(dir $(B_APP_SIG_FILE)) && echo '$(B_APP_SIG)' > $(B_APP_SIG_FILE))
endif

.DEFAULT_GOAL := board
.PHONY: board all clean run size check-core print-run print-app print-board-run print-board-map print-board-cflags board-clean

board: $(B_ELF)
all: board
clean: board-clean

$(B_FIX_OBJS): $(B_DIR)/fixmath/%.o: $(FIXMATH_DIR)/%.c $(B_CORE_SIG_FILE)
	@mkdir -p $(dir $@)
	$(X_CC) $(B_FIX_CFLAGS) -c $< -o $@

$(B_CORE_OBJS): $(B_DIR)/core/%.o: src/%.c $(B_CORE_SIG_FILE) | $(FIXMATH_DIR)/fix16.c
	@mkdir -p $(dir $@)
	$(X_CC) $(B_CORE_CFLAGS) -c $< -o $@

$(B_PORT_OBJS): $(B_DIR)/%.o: %.c $(B_SIG_FILE)
	@mkdir -p $(dir $@)
	$(X_CC) $(B_PORT_CFLAGS) -c $< -o $@

$(B_APP_OBJS): $(B_DIR)/app/$(APP)/%.o: %.c $(B_CORE_SIG_FILE) $(B_APP_SIG_FILE) | $(FIXMATH_DIR)/fix16.c
	@mkdir -p $(dir $@)
	$(X_CC) $(B_APP_CFLAGS) -c $< -o $@

# The ARM guard: the core and libfixmath, built soft-float, must not call float helpers or the heap.
$(B_GUARD_OK): $(B_CORE_OBJS) $(B_FIX_OBJS) tools/check-core-symbols.sh
	@NM=$(X_NM) sh tools/check-core-symbols.sh $(B_CORE_OBJS) $(B_FIX_OBJS)
	@touch $@

check-core: $(B_CORE_OBJS) $(B_FIX_OBJS)
	@NM=$(X_NM) sh tools/check-core-symbols.sh $(B_CORE_OBJS) $(B_FIX_OBJS)

$(B_ELF): $(B_APP_OBJS) $(B_CORE_OBJS) $(B_FIX_OBJS) $(B_PORT_OBJS) $(B_GUARD_OK) \
          $(B_SIG_FILE) $(B_APP_SIG_FILE) boards/$(BOARD)/linker.ld $(wildcard $(PORT_DIR)/*.ld)
	$(X_CC) $(B_LDFLAGS) -Wl,-Map=$(B_MAP) $(B_APP_OBJS) $(B_CORE_OBJS) $(B_FIX_OBJS) $(B_PORT_OBJS) -o $@

# ---- flash images ------------------------------------------------------------------
# build/<board>/<app>.bin (raw, from FLASH_ORIGIN) and .hex (Intel HEX, with addresses): what a
# DFU tool, a debug probe or a drag-and-drop loader writes to the board. With FLASH_EXIT set, they
# come from <app>-flash.elf: the same objects, the exit built for a board without a debugger.
ifneq ($(strip $(FLASH_IMAGES)),)
X_OBJCOPY := $(CROSS_PREFIX)objcopy
FLASH_EXIT ?= $(PORT_EXIT)
ifeq ($(FLASH_EXIT),$(PORT_EXIT))
B_FLASH_ELF := $(B_ELF)
else
ifneq ($(CPU_ARCH),arm)
$(error boards/$(BOARD)/board.mk: FLASH_EXIT is for Arm boards (port/cortex_m/port_cortex_m.c))
endif
B_EXIT_SRC       := port/cortex_m/port_cortex_m.c
B_FLASH_ELF      := $(B_DIR)/$(APP)-flash.elf
B_FLASH_EXIT_OBJ := $(B_DIR)/flash-exit/port_cortex_m.o
B_FLASH_EXIT_FLAG := $(if $(filter semihost,$(FLASH_EXIT)),-DQP_PORT_EXIT_SEMIHOST,$(if $(filter reset,$(FLASH_EXIT)),-DQP_PORT_EXIT_RESET))
$(B_FLASH_EXIT_OBJ): $(B_EXIT_SRC) $(B_SIG_FILE)
	@mkdir -p $(dir $@)
	$(X_CC) $(filter-out $(B_EXIT_FLAG),$(B_PORT_CFLAGS)) $(B_FLASH_EXIT_FLAG) -c $< -o $@
$(B_FLASH_ELF): $(B_ELF) $(B_FLASH_EXIT_OBJ)
	$(X_CC) $(B_LDFLAGS) -Wl,-Map=$(B_DIR)/$(APP)-flash.map $(B_APP_OBJS) $(B_CORE_OBJS) $(B_FIX_OBJS) \
	  $(filter-out $(B_DIR)/$(B_EXIT_SRC:.c=.o),$(B_PORT_OBJS)) $(B_FLASH_EXIT_OBJ) -o $@
-include $(B_FLASH_EXIT_OBJ:.o=.d)
endif
B_IMAGES := $(foreach f,$(FLASH_IMAGES),$(B_DIR)/$(APP).$(f))
$(B_DIR)/$(APP).bin: $(B_FLASH_ELF)
	$(X_OBJCOPY) -O binary $< $@
$(B_DIR)/$(APP).hex: $(B_FLASH_ELF)
	$(X_OBJCOPY) -O ihex $< $@
board: $(B_IMAGES)
endif

# ---- running under QEMU ----------------------------------------------------------
# -icount shift=0: every guest instruction advances virtual time by exactly 1 ns, so
# SysTick (CPU_HZ: 25 MHz on MPS2 = 1 tick per 40 instructions; 16 MHz on microbit = 62.5)
# counts instructions, identically on every run. Semihosting output goes to stdout through a chardev.
QEMU_UART ?= 0
ifeq ($(CONSOLE),uart)
B_QEMU_IO := $(foreach n,$(wordlist 1,$(QEMU_UART),1 2 3 4 5 6 7 8),-serial null) -serial stdio \
             -semihosting-config enable=on,target=native
else
B_QEMU_IO := -serial null -chardev stdio,id=qpcon -semihosting-config enable=on,target=native,chardev=qpcon
endif
RUN_ELF    ?= $(B_ELF)
B_QEMU_CMD := $(QEMU) -M $(QEMU_MACHINE) $(B_QEMU_ARCH) -display none -monitor none $(B_QEMU_IO) \
              -icount shift=0 -kernel $(RUN_ELF)

ifeq ($(BOARD_RUN),none)
run:
	@echo "run: $(BOARD) has no QEMU model (BOARD_RUN = none in boards/$(BOARD)/board.mk): build only" >&2; exit 2
else
run: $(B_ELF)
	@rc=0; timeout $(RUN_TIMEOUT) $(B_QEMU_CMD) < /dev/null || rc=$$?; \
	echo $$rc > $(B_DIR)/$(APP).exit; \
	if [ $$rc = 124 ]; then echo "run: $(APP) on $(BOARD) timed out after $(RUN_TIMEOUT) s" >&2; \
	elif [ $$rc != 0 ]; then echo "run: $(APP) on $(BOARD) exited with code $$rc" >&2; fi; \
	exit $$rc
endif

print-run:
	@echo 'timeout $(RUN_TIMEOUT) $(B_QEMU_CMD)'

# For tests/scripts/cross-check.sh: the app's sources and flags, one per line.
print-app:
	@echo 'APP_SRCS=$(APP_SRCS_$(APP))'
	@echo 'APP_CFLAGS=$(APP_CFLAGS_$(APP))'
	@echo 'FIXMATH_DIR=$(FIXMATH_DIR)'
	@echo 'FIXMATH_FLAGS=$(FIXMATH_FLAGS)'
	@echo 'FIXMATH_SRCS=$(FIXMATH_SRCS)'
	@echo 'KNOWN_BOARDS=$(KNOWN_BOARDS)'

# For bench/run.sh: the compiler and flags the board compiles the core with (CPU, optimisation, pools).
print-board-cflags:
	@echo '$(X_CC) $(filter-out -MMD -MP $(DEBUG_INFO),$(B_BASE))'

# "none" for a board that nothing here can run (tests/scripts/cross-check.sh, tests/scripts/scene-check.sh).
print-board-run:
	@echo '$(or $(BOARD_RUN),qemu)'

# For tests/scripts/test-board-images.sh: the memory map and the images, shell assignments.
print-board-map:
	@echo 'flash_origin=$(FLASH_ORIGIN) flash_kb=$(FLASH_KB) ram_origin=$(RAM_ORIGIN) ram_kb=$(RAM_KB) images="$(FLASH_IMAGES)"'

# ---- size --------------------------------------------------------------------------
size: $(B_ELF)
	@stack=$$($(X_NM) $(B_ELF) | awk '$$3 == "__stack_size" { print $$1 }'); \
	$(X_SIZE) -A $(B_ELF) | awk -v board=$(BOARD) -v app=$(APP) -v stack=$$((0x$$stack)) \
	  -v flash_max=$$(($(FLASH_KB) * 1024)) -v ram_max=$$(($(RAM_KB) * 1024)) ' \
	  $$1 == ".text" || $$1 == ".ARM.exidx" { text += $$2 } \
	  $$1 == ".data" { data += $$2 } \
	  $$1 == ".bss" { bss += $$2 } \
	  END { flash = text + data; ram = data + bss + stack; \
	    printf "size %s %s: flash %d of %d bytes (text %d + data %d)\n", board, app, flash, flash_max, text, data; \
	    printf "size %s %s: RAM   %d of %d bytes (data %d + bss %d + stack %d)\n", board, app, ram, ram_max, data, bss, stack; \
	    bad = 0; \
	    if (flash > flash_max) { print "size: flash over the board limit" > "/dev/stderr"; bad = 1 } \
	    if (ram > ram_max) { print "size: RAM over the board limit" > "/dev/stderr"; bad = 1 } \
	    exit bad }'

board-clean:
	rm -rf $(B_DIR)

-include $(B_FIX_OBJS:.o=.d) $(B_CORE_OBJS:.o=.d) $(B_PORT_OBJS:.o=.d) $(B_APP_OBJS:.o=.d)

# ---- any scene on the board ----------------------------------------------------------
# make BOARD=x scene SCENE=path [STEPS=300]: embed the scene, build, run under QEMU and
# print the same "step hash" lines as `qphys run SCENE --hashes --steps N`.
.PHONY: scene
scene:
	@test -n "$(SCENE)" || { echo "usage: make BOARD=$(BOARD) scene SCENE=path/to.scene [STEPS=300]" >&2; exit 2; }
	@sh tools/embed-scene.sh "$(SCENE)" "$(or $(STEPS),300)" $(BOARD_DIR)/scene-gen/scene_data.h
	@$(MAKE) -s --no-print-directory BOARD=$(BOARD) APP=scene board
ifeq ($(BOARD_RUN),none)
	@echo "scene: $(BOARD) is build only: flash $(B_DIR)/scene.$(or $(lastword $(FLASH_IMAGES)),elf) and compare its console"
	@echo "scene: with: head -n $(or $(STEPS),300) tests/scenes/golden/$(basename $(notdir $(SCENE))).hashes (docs/porting.md)"
else
	@$(MAKE) -s --no-print-directory BOARD=$(BOARD) APP=scene run
endif

# ---- what the board computed, as a picture ----------------------------------------------
# make BOARD=x movie SCENE=path [STEPS=60]: the board runs the scene and prints one frame line per
# step (tests/target/scene_main.c with SCENE_POSES), kept in $(B_DIR)/movie.poses; the host's qphys
# checks each against its own run and draws them (qphys render --poses) into MOVIE.
MOVIE ?= $(B_DIR)/movie.gif
.PHONY: movie
movie:
	@test -n "$(SCENE)" || { echo "usage: make BOARD=$(BOARD) movie SCENE=path/to.scene [STEPS=60] [MOVIE=out.gif]" >&2; exit 2; }
	@sh tools/embed-scene.sh "$(SCENE)" "$(or $(STEPS),60)" $(BOARD_DIR)/movie-gen/scene_data.h
	@$(MAKE) -s --no-print-directory BOARD=$(BOARD) APP=movie board
	@$(MAKE) -s --no-print-directory BOARD= build/host/qphys
ifeq ($(BOARD_RUN),none)
	@echo "movie: $(BOARD) is build only: flash $(B_DIR)/movie.$(or $(lastword $(FLASH_IMAGES)),elf), save its console"
	@echo "movie: to a file and draw it: build/host/qphys render $(SCENE) --poses FILE -o $(MOVIE)"
else
	@$(MAKE) -s --no-print-directory BOARD=$(BOARD) APP=movie run > $(B_DIR)/movie.poses
	@build/host/qphys render "$(SCENE)" --poses $(B_DIR)/movie.poses --every $(or $(EVERY),2) \
	  --size $(or $(SIZE),400x300) --title "$(BOARD): $(basename $(notdir $(SCENE)))" -o $(MOVIE)
endif
