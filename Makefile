# amsim - one Makefile. `make` builds build/amsim, build/libamsim.a and build/amsim-bench (so no
# stale benchmark binary is left behind); see README.md.
CC      ?= cc
BUILD   ?= build
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wpointer-arith \
           -Wcast-qual -Wwrite-strings -Wundef -Wformat=2 -Wvla -Wnull-dereference \
           -Wdouble-promotion -Wno-unused-parameter
SRCDIR  := $(abspath .)
CPPFLAGS += -MMD -MP -D_POSIX_C_SOURCE=200809L -DAMSIM_SOURCE_DIR='"$(SRCDIR)"'
ALLCFLAGS = -std=c11 $(WARN) $(CFLAGS) $(CPPFLAGS)
LIBS    := -lyaml -lgsl -lgslcblas -lm -lz
TESTLIBS := -lcunit

LIB_SRC := $(filter-out sim/main.c,$(wildcard sim/*.c)) $(wildcard models/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(wildcard tests/unit/*.c)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)

DEB_PKGS := libyaml-dev libgsl-dev libcunit1-dev gnuplot-nox zlib1g-dev parallel strace

.PHONY: all deps run test asan asan-clang clean bench bench-smoke help check-oracles regen-golden
all: $(BUILD)/amsim $(BUILD)/libamsim.a $(BUILD)/amsim-bench

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -c $< -o $@

$(BUILD)/libamsim.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/amsim: $(BUILD)/sim/main.o $(BUILD)/libamsim.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/test_amsim: $(TEST_OBJ) $(BUILD)/libamsim.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS) $(TESTLIBS)

# Installs the Debian packages the build, tests and plots need, only those missing.
deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	else echo "dependencies present: $(DEB_PKGS)"; fi

run: $(BUILD)/amsim
	$(BUILD)/amsim run -c configs/default.yaml -t traces/gpu_train_step.trace

test: $(BUILD)/amsim $(BUILD)/test_amsim
	cd tests/unit && AMSIM=$(abspath $(BUILD)/amsim) $(abspath $(BUILD)/test_amsim)

# The whole test suite under address and undefined-behaviour sanitizers, in its own build tree.
# address and undefined-behaviour sanitizers, an undefined behaviour fatal (asan, asan-clang, fuzz)
SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer

asan:
	$(MAKE) BUILD=build-asan OPT=-O1 CFLAGS="-O1 -g $(SAN)" \
	  LDFLAGS="-fsanitize=address,undefined" test

# The same suites built by clang, whose UBSan checks what gcc's does not (a zero offset added
# to a null pointer) and whose code lays the stack out otherwise, so a read of a field never
# set shows (stats' exact figures did, 2026-11-28). CI runs it where clang is installed.
asan-clang:
	$(MAKE) BUILD=build-asan-clang CC=clang OPT=-O1 CFLAGS="-O1 -g $(SAN)" \
	  LDFLAGS="-fsanitize=address,undefined" test

check-oracles: $(BUILD)/amsim
	../shared/tools/check-oracles $(BUILD)/amsim

clean:
	rm -rf build build-asan build-asan-clang build-fuzz

help:
	@echo "targets: deps all run test asan asan-clang bench bench-smoke check-oracles clean"

-include $(LIB_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BUILD)/sim/main.d

# ---- robustness: fuzzing and valgrind (appended block) ----
# `make fuzz` builds libFuzzer harnesses (tests/fuzz/fuzz_NAME.c) with clang, ASan and UBSan in
# build-fuzz/ and runs each for FUZZ_SECONDS on its seed corpus tests/fuzz/corpus/NAME/ (new
# inputs go to build-fuzz/corpus/NAME/, crashes to build-fuzz/crash-NAME-*); `make fuzz-smoke`
# runs each for 10 s (CI). A crash makes the target fail after all harnesses ran.
# `make valgrind-run` runs `make run` under valgrind memcheck (status 9 on any error or leak).
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := native csv pickle bin config run
FUZZ_SAN     := $(SAN)
FUZZ_CFLAGS  := -O1 -g $(FUZZ_SAN)
FUZZ_FLAGS   ?= -timeout=10 -rss_limit_mb=2048 -print_final_stats=1

.PHONY: fuzz fuzz-build fuzz-smoke valgrind-run
fuzz-build:
	$(MAKE) BUILD=build-fuzz CC=$(FUZZ_CC) OPT=-O1 CFLAGS="$(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link" \
	  build-fuzz/libamsim.a
	@for t in $(FUZZ_TARGETS); do \
	  echo "$(FUZZ_CC) -o build-fuzz/fuzz_$$t tests/fuzz/fuzz_$$t.c"; \
	  $(FUZZ_CC) -std=c11 -D_POSIX_C_SOURCE=200809L $(FUZZ_CFLAGS) -fsanitize=fuzzer \
	    -o build-fuzz/fuzz_$$t tests/fuzz/fuzz_$$t.c build-fuzz/libamsim.a $(LIBS) || exit 1; \
	done

fuzz: fuzz-build
	@st=0; for t in $(FUZZ_TARGETS); do \
	  mkdir -p build-fuzz/corpus/$$t; \
	  echo "fuzz_$$t: $(FUZZ_SECONDS) s"; \
	  build-fuzz/fuzz_$$t $(FUZZ_FLAGS) -max_total_time=$(FUZZ_SECONDS) -dict=tests/fuzz/$$t.dict \
	    -artifact_prefix=build-fuzz/crash-$$t- build-fuzz/corpus/$$t tests/fuzz/corpus/$$t \
	    || { echo "fuzz_$$t: FAILED (see build-fuzz/crash-$$t-*)"; st=1; }; \
	done; exit $$st

fuzz-smoke:
	$(MAKE) fuzz FUZZ_SECONDS=10

valgrind-run: $(BUILD)/amsim
	valgrind --leak-check=full --error-exitcode=9 \
	  $(BUILD)/amsim run -c configs/default.yaml -t traces/gpu_train_step.trace
# ---- end of the robustness block ----

# Rewrites tests/golden/*.golden from the current build (review the diff before committing).
regen-golden: $(BUILD)/amsim $(BUILD)/test_amsim
	cd tests/unit && AMSIM_REGEN_GOLDEN=1 AMSIM=$(abspath $(BUILD)/amsim) $(abspath $(BUILD)/test_amsim) >/dev/null; \
	  git -C $(SRCDIR) diff --stat -- tests/golden

# ---- benchmarks (appended block) ----
# `make bench` builds build/amsim-bench (bench/bench.c against the library) and runs it: it generates
# its inputs in a temporary directory (never in the repository), prints events/s per policy end
# to end, ns per operation at 1k..1M live buffers, peak memory, reader rates and the batch
# speed-up, and writes bench/results/LATEST.txt (the previous file is compared, then kept as
# bench/results/PREVIOUS.txt). BENCH_ARGS=--quick skips the 10M/50M traces and the million-buffer
# populations (about 3 minutes instead of 8). It exits with status 3 when a measurement that
# should give figures did not (a run failed or timed out); `make bench-smoke` is that quick run
# with its figures in build/bench-smoke.txt, leaving bench/results alone (CI runs it).
BENCH_ARGS ?=
$(BUILD)/amsim-bench: $(BUILD)/bench/bench.o $(BUILD)/libamsim.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

bench: $(BUILD)/amsim-bench $(BUILD)/amsim
	$(BUILD)/amsim-bench --amsim $(BUILD)/amsim --config configs/default.yaml \
	  --results bench/results/LATEST.txt $(BENCH_ARGS)

bench-smoke: $(BUILD)/amsim-bench $(BUILD)/amsim
	rm -f $(BUILD)/bench-smoke.txt
	$(BUILD)/amsim-bench --amsim $(BUILD)/amsim --config configs/default.yaml \
	  --results $(BUILD)/bench-smoke.txt --quick

-include $(BUILD)/bench/bench.d
# ---- end of the benchmarks block ----
