# SPDX-License-Identifier: MIT
# mk/tools.mk - host tools, included by the Makefile's host build.
#
#   make build/<tag>/qphys     the qphys command (tools/qphys.c): run, record, replay, check, render
#   make viewer                the viewer (tools/viewer/, SDL2): build/host/qphys-viewer
#   make pictures              docs/pictures/: every scene of tests/scenes drawn by qphys render
#
# Built like the probe: the library $(LIB), the host port and the same flags, so
# BUILD_TAG/HOST_CC/HOST_OPT/EXTRA_CFLAGS variants give variant tools, e.g.
#   make BUILD_TAG=host-O0 HOST_OPT=-O0 build/host-O0/qphys
#   make BUILD_TAG=host-m32 HOST_OPT="-O2 -m32" build/host-m32/qphys
#   make BUILD_TAG=host-lowram EXTRA_CFLAGS=-DQP_CFG_LOW_RAM=1 build/host-lowram/qphys
# tests/scripts/scene-check.sh, tools/golden.sh and tests/scripts/bad-scenes.sh use them.

QPHYS_TOOL := $(OUT)/qphys

# `qphys render` (tools/viewer/: the viewer's drawing code, libpng, giflib) is linked into
# the default host build when those libraries are installed (tools/deps.sh installs them);
# every other build (cross targets, sanitizers, variants) links tools/render_stub.c, which
# answers "render: not built into this qphys". QPHYS_RENDER=1 asks for it in any host build.
HAVE_PICTURE_LIBS = $(shell printf '\#include <png.h>\n\#include <gif_lib.h>\n' | $(HOST_CC) -E -x c - >/dev/null 2>&1 && echo 1)
QPHYS_RENDER ?= $(if $(filter host,$(BUILD_TAG)),$(HAVE_PICTURE_LIBS))
VIEWER_DRAW_OBJS := $(addprefix $(OUT)/viewer/,raster.o font.o draw.o load.o image_io.o)
ifeq ($(QPHYS_RENDER),1)
RENDER_OBJS := $(VIEWER_DRAW_OBJS) $(OUT)/viewer/poses.o $(OUT)/viewer/render.o
RENDER_LIBS := -lpng -lgif -lm
else
RENDER_OBJS := $(OUT)/tools/render_stub.o
RENDER_LIBS :=
endif

$(OUT)/viewer/%.o: tools/viewer/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -Itools -std=gnu11 -Wall -Wextra -Werror -MMD -MP -c $< -o $@

# The OBJ reader behind scene files' mesh lines (qphys, the viewer, the unit tests): the file
# loader and the freestanding text reader it shares with the boards' scene runner.
OBJ_READER := $(OUT)/tools/obj.o $(OUT)/tools/obj_text.o
$(OUT)/tools/obj.o: tools/obj.c tools/obj.h tools/obj_text.h mk/tools.mk | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -std=c11 -Wall -Wextra -Werror -MMD -MP -c $< -o $@
$(OUT)/tools/obj_text.o: tools/obj_text.c tools/obj_text.h mk/tools.mk | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -std=c11 -Wall -Wextra -Werror -MMD -MP -c $< -o $@

$(OUT)/tools/render_stub.o: tools/render_stub.c
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -std=c11 -Wall -Wextra -Werror -c $< -o $@

# The replay reader and verifier (tools/replay.c, tools/verify.c) are shared with libqphys.so.
QPHYS_TOOL_SRCS := tools/replay.c tools/verify.c tools/verify_cmd.c tools/sized_world.c
$(QPHYS_TOOL): tools/qphys.c $(QPHYS_TOOL_SRCS) tools/replay.h tools/verify.h tools/sized_world.h $(PORT_OBJS) $(LIB) \
               $(RENDER_OBJS) $(OBJ_READER)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -std=c11 -Wall -Wextra -Werror -MMD -MP -MF $@.d $< \
	  $(QPHYS_TOOL_SRCS) $(OBJ_READER) $(RENDER_OBJS) $(PORT_OBJS) $(LIB) $(RENDER_LIBS) -o $@

.PHONY: qphys viewer pictures
qphys: $(QPHYS_TOOL)
all: $(QPHYS_TOOL)

# make soak [SOAK_STEPS=1000000]: a pile thrown up again and again, checked at every step
# (tests/soak/soak.c). Long: not part of make test, which runs 10 000 steps of it.
SOAK_STEPS ?= 1000000
$(OUT)/soak: tests/soak/soak.c $(PORT_OBJS) $(LIB)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -std=c11 -Wall -Wextra -Werror $< $(PORT_OBJS) $(LIB) -o $@

.PHONY: soak
soak: $(OUT)/soak
	$(OUT)/soak $(SOAK_STEPS)

# The viewer: SDL2 (tools/deps.sh installs libsdl2-dev); part of the default host build
# when SDL2 and the picture libraries are installed.
VIEWER := $(OUT)/qphys-viewer
HAVE_SDL2 = $(shell sdl2-config --version >/dev/null 2>&1 && echo 1)
$(OUT)/tools/sized_world.o: tools/sized_world.c tools/sized_world.h mk/tools.mk | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -std=c11 -Wall -Wextra -Werror -MMD -MP -c $< -o $@
$(VIEWER): $(OUT)/viewer/viewer.o $(VIEWER_DRAW_OBJS) $(OBJ_READER) $(OUT)/tools/sized_world.o $(PORT_OBJS) $(LIB)
	$(HOST_CC) $(HOST_CFLAGS) $^ $$(sdl2-config --libs) -lpng -lgif -lm -o $@
$(OUT)/viewer/viewer.o: HOST_CFLAGS += $$(sdl2-config --cflags)
viewer: $(VIEWER)
ifeq ($(filter host,$(BUILD_TAG))$(HAVE_SDL2)$(QPHYS_RENDER),host11)
all: $(VIEWER)
endif

# What a screenshot shows (tests/scripts/test-viewer.sh): an X window dump or PNG, pixels counted.
$(OUT)/pixels: tools/viewer/pixels.c $(OUT)/viewer/image_io.o
	$(HOST_CC) $(HOST_CFLAGS) -std=gnu11 -Wall -Wextra -Werror $^ -lpng -lgif -o $@

# Pictures for README.md and docs/: every scene, drawn by the host build's qphys render.
pictures: $(QPHYS_TOOL)
	@sh tools/pictures.sh

-include $(QPHYS_TOOL).d $(OBJ_READER:.o=.d) $(OUT)/tools/sized_world.d $(VIEWER_DRAW_OBJS:.o=.d) $(OUT)/viewer/render.d $(OUT)/viewer/poses.d $(OUT)/viewer/viewer.d
