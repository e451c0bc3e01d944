# vsim build.  Variants (DESIGN.md §10):
#   make                    release build: build/vsim, build/libvsim.a
#   make VARIANT=debug      build/debug/...
#   make VARIANT=san        ASan + UBSan: build/san/...
#   make test               build and run every test (= make check)
#   make sanitize           the tests under ASan + UBSan
#   make valgrind           the tests under valgrind memcheck
#   make bench              benchmarks (table on stdout, JSON under build/bench/)
#   make MPI=1              the program built with mpicc: build/mpi/vsim (mpirun sweeps)
#   make golden-check       rerun the example scenes against tests/golden/ (part of make test)
#   make golden-update      regenerate tests/golden/ and say what changed
VARIANT ?= release
ifeq ($(filter $(VARIANT),release debug san),)
$(error VARIANT must be one of: release debug san (got '$(VARIANT)'))
endif

ifeq ($(VARIANT),release)
BUILD := build
OPT := -O2 -DNDEBUG
else ifeq ($(VARIANT),debug)
BUILD := build/debug
OPT := -O0 -g3
else
BUILD := build/san
OPT := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SANLD := -fsanitize=address,undefined
endif

# MPI=1: the same variant built with mpicc under $(BUILD)/mpi, so that
# `mpirun -np R build/mpi/vsim sweep ...` spreads a sweep's points over the
# ranks (Debian: openmpi-bin libopenmpi-dev).  Nothing else depends on MPI.
ifeq ($(MPI),1)
BUILD := $(BUILD)/mpi
CC := mpicc
OPT += -DVS_WITH_MPI
endif

CC ?= cc
PKG_CONFIG ?= pkg-config
DEPS_CFLAGS := $(shell $(PKG_CONFIG) --cflags yaml-0.1 hdf5 2>/dev/null)
DEPS_LIBS := $(shell $(PKG_CONFIG) --libs yaml-0.1 hdf5 2>/dev/null)
CHECK_CFLAGS := $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECK_LIBS := $(shell $(PKG_CONFIG) --libs check 2>/dev/null)

# -ffp-contract=off: FMA contraction is the one value-changing transform
# compilers enable by default; golden files must hold on every x86-64 machine.
# No -march=native and no -ffast-math for the same reason.  -fno-math-errno
# only stops sqrt() from setting errno (values are unchanged), which lets the
# compiler use the sqrt instruction inline and vectorise the Jacobi kernel.
WARN := -Wall -Wextra -Wshadow -Wpointer-arith -Wstrict-prototypes \
        -Wmissing-prototypes -Wformat=2 -Wundef -Wvla -Wno-unused-parameter
CFLAGS_BASE := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(OPT) \
               -ffp-contract=off -fno-fast-math -fno-math-errno -fopenmp $(WARN) \
               -Ilib/include -Ilib $(DEPS_CFLAGS)
LDLIBS := $(DEPS_LIBS) -lm -fopenmp $(SANLD)

LIB_SRC := $(sort $(wildcard lib/*/*.c))
CMD_SRC := $(sort $(wildcard cmd/*.c))
TEST_SRC := $(sort $(wildcard tests/test_*.c))
BENCH_SRC := $(sort $(wildcard bench/*.c))

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CMD_OBJ := $(CMD_SRC:%.c=$(BUILD)/obj/%.o)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
LIBA := $(BUILD)/libvsim.a
VSIM := $(BUILD)/vsim

.PHONY: all test check sanitize valgrind bench clean install-deps coverage
all: $(VSIM) $(LIBA)

$(BUILD)/obj/lib/%.o: lib/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) -fvisibility=hidden -MMD -MP -c $< -o $@

$(BUILD)/obj/cmd/%.o: cmd/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) -Icmd -MMD -MP -c $< -o $@

$(LIBA): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(VSIM): $(CMD_OBJ) $(LIBA)
	$(CC) $(OPT) -fopenmp $(CMD_OBJ) $(LIBA) $(LDLIBS) -o $@

$(BUILD)/bench/bench: bench/bench.c $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) -MMD -MP $< $(LIBA) $(LDLIBS) -o $@

bench: $(VSIM) $(BUILD)/bench/bench
	$(BUILD)/bench/bench --vsim $(VSIM) --out $(BUILD)/bench/bench.json $(BENCH_ARGS)

$(BUILD)/tests/%: tests/%.c tests/testutil.h $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(CHECK_CFLAGS) -Itests -MMD -MP $< $(LIBA) $(CHECK_LIBS) $(LDLIBS) -o $@

# Every test binary runs even when an earlier one fails; the target fails if any did.
# CK_FORK=no under the sanitizers/valgrind keeps leak reports attached to the test process.
test check: $(VSIM) $(TEST_BIN)
	@fail=0; for t in $(TEST_BIN); do \
	  echo "== $$t"; \
	  VSIM_BIN=$(abspath $(VSIM)) VSIM_ROOT=$(CURDIR) $(TEST_WRAP) $$t || fail=1; \
	done; \
	echo "== golden-check"; \
	VSIM=$(VSIM) sh scripts/golden.sh check || fail=1; \
	if [ $$fail -ne 0 ]; then echo "SOME TESTS FAILED"; exit 1; fi; echo "ALL TESTS PASSED"

# The golden suite (tests/golden/README.md): every example scene rerun and
# compared with its file in tests/golden/; update regenerates the files and
# prints which changed, in which datasets, from which frame, by how much.
.PHONY: golden-check golden-update
golden-check: $(VSIM)
	VSIM=$(VSIM) sh scripts/golden.sh check

golden-update: $(VSIM)
	VSIM=$(VSIM) sh scripts/golden.sh update

sanitize:
	$(MAKE) VARIANT=san test

valgrind:
	$(MAKE) VARIANT=debug test TEST_WRAP="valgrind -q --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite,indirect"

# The end-to-end tests with the program itself under valgrind memcheck: every
# vsim they start runs through tests/valgrind-vsim.sh, and a memory error or a
# definite/indirect leak makes it exit 99, which the tests report.  VSIM_SLOW
# relaxes the tests' timing bounds (and shrinks their largest scenes).
# With -j2 the test programs run side by side.  The program checked is the
# release build (the one users run): memcheck instruments every instruction,
# and the -O0 debug build runs about three times as many (11 minutes against
# about 4 for these two programs); `make valgrind` keeps the debug build.
VALGRIND_E2E ?= test_robust test_cli
.PHONY: valgrind-e2e valgrind-e2e-build $(VALGRIND_E2E:%=valgrind-e2e-%)
valgrind-e2e: $(VALGRIND_E2E:%=valgrind-e2e-%)
valgrind-e2e-build:
	$(MAKE) VARIANT=release build/vsim $(VALGRIND_E2E:%=build/tests/%)
$(VALGRIND_E2E:%=valgrind-e2e-%): valgrind-e2e-%: valgrind-e2e-build
	@echo "== $* (vsim under valgrind)"
	VSIM_SLOW=1 VSIM_REAL_BIN=$(abspath build/vsim) VSIM_BIN=$(CURDIR)/tests/valgrind-vsim.sh \
	  VSIM_ROOT=$(CURDIR) build/tests/$*

# Fuzzing: make fuzz SECONDS=N (default 60) runs libFuzzer with ASan + UBSan
# on the scene loader and --set (tests/fuzz/fuzz_scene.c), built with clang
# (Debian: clang, libclang-rt-14-dev) under build/fuzz/.  The corpus starts
# from the example scenes, the tests' scenes and tests/fuzz/seeds/, and grows
# in build/fuzz/corpus/; a crashing input is written to build/fuzz/crash-*
# (keep it in tests/data/fuzz/: make test replays that directory).  The
# library is built without OpenMP here: the loader is serial, and clang's
# OpenMP runtime would be one more package to install.
FUZZ_CC ?= clang
SECONDS ?= 60
FUZZ_DIR := build/fuzz
FUZZ_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -g -O1 -fno-omit-frame-pointer \
               -fsanitize=address,undefined -fno-sanitize-recover=all -ffp-contract=off \
               $(WARN) -Wno-unknown-pragmas -Ilib/include -Ilib $(DEPS_CFLAGS)
FUZZ_OBJ := $(LIB_SRC:%.c=$(FUZZ_DIR)/obj/%.o)

$(FUZZ_DIR)/obj/lib/%.o: lib/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_DIR)/fuzz_scene: tests/fuzz/fuzz_scene.c $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_OBJ) $(DEPS_LIBS) -lm -o $@

.PHONY: fuzz
fuzz: $(FUZZ_DIR)/fuzz_scene
	@mkdir -p $(FUZZ_DIR)/corpus
	@for f in configs/*.yaml tests/data/*/* tests/fuzz/seeds/*; do \
	  cp "$$f" "$(FUZZ_DIR)/corpus/seed-$$(echo "$$f" | tr / _)"; done
	$(FUZZ_DIR)/fuzz_scene -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
	  -max_total_time=$(SECONDS) -print_final_stats=1 -dict=tests/fuzz/scene.dict \
	  -artifact_prefix=$(FUZZ_DIR)/ $(FUZZ_DIR)/corpus

-include $(FUZZ_OBJ:.o=.d)

install-deps:
	sh scripts/install-deps.sh

clean:
	rm -rf build

-include $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d) $(TEST_BIN:=.d)

# Rigid-body pyramid benchmark (issue 10): vsim's rigid solver, and the same
# pyramid in Bullet when Bullet is installed (pkg-config bullet).
$(BUILD)/bench/rigid_pyramid: bench/rigid_pyramid.c $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) -MMD -MP $< $(LIBA) $(LDLIBS) -o $@

BULLET_OK := $(shell $(PKG_CONFIG) --exists bullet 2>/dev/null && echo 1)
CXX ?= c++
$(BUILD)/bench/bullet_pyramid: bench/bullet_pyramid.cpp
	@mkdir -p $(dir $@)
	$(CXX) -O2 $< $(shell $(PKG_CONFIG) --cflags --libs bullet 2>/dev/null) -o $@

.PHONY: bench-rigid
bench-rigid: $(BUILD)/bench/rigid_pyramid $(if $(BULLET_OK),$(BUILD)/bench/bullet_pyramid)
	$(BUILD)/bench/rigid_pyramid
	$(if $(BULLET_OK),$(BUILD)/bench/bullet_pyramid,@echo "bullet not installed: no Bullet column")
