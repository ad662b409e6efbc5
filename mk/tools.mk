# mk/tools.mk - host tools, included by the Makefile's host build.
#
#   make build/<tag>/qphys     the qphys command (tools/qphys.c): run, record, replay, check
#
# Built like the probe: the library $(LIB), the host port and the same flags, so
# BUILD_TAG/HOST_CC/HOST_OPT/EXTRA_CFLAGS variants give variant tools, e.g.
#   make BUILD_TAG=host-O0 HOST_OPT=-O0 build/host-O0/qphys
#   make BUILD_TAG=host-m32 HOST_OPT="-O2 -m32" build/host-m32/qphys
#   make BUILD_TAG=host-big EXTRA_CFLAGS=-DQP_CFG_MAX_BODIES=2200 build/host-big/qphys   (pyramid64)
# tools/scene-check.sh, tools/golden.sh and tools/bad-scenes.sh use them.

QPHYS_TOOL := $(OUT)/qphys

$(QPHYS_TOOL): tools/qphys.c tools/replay.c $(PORT_OBJS) $(LIB)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -std=c11 -Wall -Wextra -Werror -MMD -MP -MF $@.d $< tools/replay.c $(PORT_OBJS) $(LIB) -o $@

.PHONY: qphys
qphys: $(QPHYS_TOOL)
all: $(QPHYS_TOOL)

-include $(QPHYS_TOOL).d

# make soak [SOAK_STEPS=1000000]: a pile thrown up again and again, checked at every step
# (tests/soak/soak.c). Long: not part of make test, which runs 20 000 steps of it.
SOAK_STEPS ?= 1000000
$(OUT)/soak: tests/soak/soak.c $(PORT_OBJS) $(LIB)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -std=c11 -Wall -Wextra -Werror $< $(PORT_OBJS) $(LIB) -o $@

.PHONY: soak
soak: $(OUT)/soak
	$(OUT)/soak $(SOAK_STEPS)
