# amsim - one Makefile. `make` builds build/amsim and build/libamsim.a; see README.md.
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
LIBS    := -lyaml -lgsl -lgslcblas -lm
TESTLIBS := -lcunit

LIB_SRC := $(filter-out sim/main.c,$(wildcard sim/*.c)) $(wildcard models/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(wildcard tests/unit/*.c)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)

DEB_PKGS := libyaml-dev libgsl-dev libcunit1-dev gnuplot-nox

.PHONY: all deps run test asan clean bench help check-oracles
all: $(BUILD)/amsim $(BUILD)/libamsim.a

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
asan:
	$(MAKE) BUILD=build-asan OPT=-O1 \
	  CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
	  LDFLAGS="-fsanitize=address,undefined" test

check-oracles: $(BUILD)/amsim
	../shared/tools/check-oracles $(BUILD)/amsim

clean:
	rm -rf build build-asan build-fuzz

help:
	@echo "targets: deps all run test asan bench check-oracles clean"

-include $(LIB_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BUILD)/sim/main.d
