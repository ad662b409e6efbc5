# SPDX-License-Identifier: MIT
# mk/lockstep.mk - the lockstep demo (examples/lockstep, docs/lockstep.md).
#
# Included twice by the Makefile: before `ifdef BOARD` (the board app's sources, for
# mk/board.mk) and at the end of the host build (the host program's rule, which needs its
# OUT, LIB and PORT_OBJS).
#
#   make                                          build/host/lockstep (part of `all`)
#   make BOARD=qemu-mps2-an386 APP=lockstep       build/qemu-mps2-an386/lockstep.elf, the board peer

LOCKSTEP_SHARED := examples/lockstep/game.c examples/lockstep/proto.c examples/lockstep/peer.c

ifdef BOARD
APP_SRCS_lockstep   ?= examples/lockstep/board_peer.c $(LOCKSTEP_SHARED)
APP_CFLAGS_lockstep ?= -Iexamples/lockstep -Werror
else ifdef LIB
LOCKSTEP := $(OUT)/lockstep
$(LOCKSTEP): examples/lockstep/main.c $(LOCKSTEP_SHARED) $(wildcard examples/lockstep/*.h) $(PORT_OBJS) $(LIB)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -std=c11 -Wall -Wextra -Werror -Iexamples/lockstep \
	  examples/lockstep/main.c $(LOCKSTEP_SHARED) $(PORT_OBJS) $(LIB) -o $@
.PHONY: lockstep
lockstep: $(LOCKSTEP)
all: $(LOCKSTEP)
endif
