# SPDX-License-Identifier: MIT
# mk/fuzz.mk - fuzz targets of tests/fuzz (libFuzzer, clang, ASan + UBSan); included by the Makefile.
#
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS="scene api restore"]
#       builds build/fuzz/fuzz_<t> and runs each for FUZZ_SECONDS on a working copy of its
#       corpus (tests/fuzz/corpus/<t> plus what it finds, kept in build/fuzz/corpus-<t>),
#       printing libFuzzer's final statistics. A crash leaves its input in build/fuzz/:
#       fix the engine, then add the input to tests/fuzz/corpus/<t>/ so that make test
#       replays it for ever (tests/scripts/test-fuzz-corpus.sh, any compiler). Then the oracle
#       (tests/scripts/fuzz-oracle.sh) runs the hostile corpora and what the fuzzers found on a
#       gcc and a clang build and demands the same answer from both.
# The fuzz builds use small pools (FUZZ_POOLS), so that comparing whole worlds is cheap.

FUZZ_TARGETS ?= scene api restore replay state inputlog
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_OUT     := build/fuzz
FUZZ_POOLS   := -DQP_CFG_MAX_BODIES=32 -DQP_CFG_MAX_SHAPES=48 -DQP_CFG_MAX_PAIRS=128 -DQP_CFG_MAX_CONTACTS=64
FUZZ_SAN      := -fsanitize=address,undefined -fno-sanitize-recover=all -std=c11 $(FUZZ_POOLS) $(CORE_INC) $(FIXMATH_FLAGS)
FUZZ_CFLAGS    = $(DEBUG_INFO) -O1 $(FUZZ_SAN)
# The replays below run each input once: unoptimised, their core compiles in 40 % of the time
# and replays the corpus in seconds.
FUZZ_REPLAY_CFLAGS = $(DEBUG_INFO) -O0 $(FUZZ_SAN)

# Host code a target needs besides the core: the replay file reader.
FUZZ_EXTRA_replay := tools/replay.c
$(FUZZ_OUT)/fuzz_replay $(FUZZ_OUT)/replay_replay: $(FUZZ_EXTRA_replay)

$(FUZZ_OUT)/fuzz_%: tests/fuzz/fuzz_%.c $(CORE_SRCS) $(FIXMATH_SRCS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_EXTRA_$*) $(CORE_SRCS) $(FIXMATH_SRCS) -o $@

.PHONY: fuzz
fuzz: $(foreach t,$(FUZZ_TARGETS),$(FUZZ_OUT)/fuzz_$(t))
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_OUT)/corpus-$$t; \
	  echo "== fuzz_$$t for $(FUZZ_SECONDS) s"; \
	  (cd $(FUZZ_OUT) && ./fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	     -artifact_prefix=crash-$$t- corpus-$$t ../../tests/fuzz/corpus/$$t) 2>&1 | \
	     grep -E '^(#[0-9]+[[:space:]]+DONE|stat::|Done|==[0-9]+==ERROR|SUMMARY)' || exit 1; \
	done
	@sh tests/scripts/fuzz-oracle.sh $(foreach t,$(filter state inputlog,$(FUZZ_TARGETS)),$(t):$(FUZZ_OUT)/corpus-$(t)) \
	  $(if $(filter restore,$(FUZZ_TARGETS)),snapshot:$(FUZZ_OUT)/corpus-restore) \
	  $(if $(filter replay,$(FUZZ_TARGETS)),replay:$(FUZZ_OUT)/corpus-replay)

# The regression replay of make test (tests/scripts/test-fuzz-corpus.sh): each target with
# tests/fuzz/replay_main.c instead of libFuzzer, by gcc under ASan + UBSan. The core and
# libfixmath compile once, object by object (make -j), into one archive the targets share:
# each target compiling them itself took four times the work.
FUZZ_REPLAY_CC ?= gcc
FUZZ_REPLAY_OBJS := $(patsubst src/%.c,$(FUZZ_OUT)/core/%.o,$(CORE_SRCS)) \
                    $(patsubst $(FIXMATH_DIR)/%.c,$(FUZZ_OUT)/fixmath/%.o,$(FIXMATH_SRCS))
$(FUZZ_OUT)/core/%.o: src/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(FUZZ_REPLAY_CC) $(FUZZ_REPLAY_CFLAGS) -MMD -MP -c $< -o $@
$(FUZZ_OUT)/fixmath/%.o: $(FIXMATH_DIR)/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(FUZZ_REPLAY_CC) $(FUZZ_REPLAY_CFLAGS) -c $< -o $@
$(FUZZ_OUT)/libqphys-replay.a: $(FUZZ_REPLAY_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^
-include $(patsubst %.o,%.d,$(filter $(FUZZ_OUT)/core/%,$(FUZZ_REPLAY_OBJS)))
$(FUZZ_OUT)/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay_main.c $(FUZZ_OUT)/libqphys-replay.a
	@mkdir -p $(dir $@)
	$(FUZZ_REPLAY_CC) $(FUZZ_REPLAY_CFLAGS) $< tests/fuzz/replay_main.c $(FUZZ_EXTRA_$*) $(FUZZ_OUT)/libqphys-replay.a -o $@

# The oracle's two builds of tests/fuzz/hostile_run.c (tests/scripts/fuzz-oracle.sh): gcc -O0
# with ASan + UBSan (the replay archive above), and clang -O2 with UBSan, compiled whole.
$(FUZZ_OUT)/hostile_run_gcc: tests/fuzz/hostile_run.c tests/fuzz/hostile.h tools/replay.c $(FUZZ_OUT)/libqphys-replay.a
	@mkdir -p $(dir $@)
	$(FUZZ_REPLAY_CC) $(FUZZ_REPLAY_CFLAGS) tests/fuzz/hostile_run.c tools/replay.c $(FUZZ_OUT)/libqphys-replay.a -o $@
$(FUZZ_OUT)/hostile_run_clang: tests/fuzz/hostile_run.c tests/fuzz/hostile.h tools/replay.c $(CORE_SRCS) $(FIXMATH_SRCS) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -O2 -fsanitize=undefined -fno-sanitize-recover=all -std=c11 $(FUZZ_POOLS) $(CORE_INC) $(FIXMATH_FLAGS) \
	  tests/fuzz/hostile_run.c tools/replay.c $(CORE_SRCS) $(FIXMATH_SRCS) -o $@
$(FUZZ_OUT)/fuzz_state $(FUZZ_OUT)/fuzz_inputlog $(FUZZ_OUT)/replay_state $(FUZZ_OUT)/replay_inputlog: tests/fuzz/hostile.h
