# SPDX-License-Identifier: MIT
# vsim build.  Variants (docs/architecture.md, conventions); `make help`
# prints the indented lines of this block:
#   make                    release build: build/vsim, build/libvsim.a
#   make VARIANT=debug      build/debug/...
#   make VARIANT=san        ASan + UBSan: build/san/...
#   make MPI=1              the program built with mpicc: build/mpi/vsim (mpirun sweeps)
#   make TARGET=aarch64     cross-built for arm64: build/aarch64/vsim (needs
#                           sh scripts/install-deps.sh --cross aarch64)
#   make test               build and run every test (= make check); the last line
#                           says "N passed, N failed, N skipped", counted per check
#   make check T=test_rigid one test program, tests/test_rigid.c (T="a b": several;
#                           CK_RUN_CASE=CASE: one test case of it)
#   make sanitize           the tests under ASan + UBSan (T=... works here too)
#   make valgrind           the tests under valgrind memcheck
#   make valgrind-e2e       the end-to-end tests with every vsim they start under valgrind
#   make CC=clang BUILD=build/clang   the release build by clang in its own folder
#                           (CI checks that it gives the same golden files; clang's
#                           OpenMP is Debian's libomp-dev)
#   make golden-check       rerun the example scenes against tests/golden/ (part of make test)
#   make golden-update      regenerate tests/golden/ and say what changed
#   make golden-check-aarch64  every golden scene on arm64 (qemu) against this
#                           machine's run, bit for bit (SCENES=, GOLDEN_EXTRA=)
#   make clients-check      MDAnalysis and ParaView read results (part of make test)
#   make bench              benchmarks (table on stdout, JSON under build/bench/);
#                           also bench-rigid, bench-bvh, render-bench
#   make fuzz SECONDS=N     libFuzzer on the scene loader and the OBJ reader (clang);
#                           make fuzz-h5 on the result-file reader, fuzz-obj the OBJ alone
#   make install            PREFIX=/usr/local, DESTDIR=: program, libraries, headers,
#                           man page, completions, docs, LICENSE, example scenes
#                           (share/vsim/examples); make uninstall removes exactly those
#   make install-check      install into a temporary prefix, build examples/ against it
#                           (part of make test)
#   make shared / make man  build/libvsim.so, build/vsim.1 alone
#   make schema             regenerate docs/vsim-scene.schema.json (vsim schema)
#   make install-deps       the Debian packages to build and test (scripts/install-deps.sh)
#   make pictures           redraw the README's pictures (docs/images/)
#   make clean              remove build/
#   make help               this list
#   V=1                     with any target: print every command in full (the
#                           default prints one short line a step, "CC lib/x.c")
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
OPT := -O1 -g -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=all
SANLD := -fsanitize=address,undefined,float-cast-overflow
# fontconfig (under cairo's text, vsim render/plot) keeps caches that even
# FcFini does not give back: LeakSanitizer is told to ignore those, and only
# those (tests/lsan.supp); every program the tests start inherits it.
export LSAN_OPTIONS := suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0
# The check timeouts catch hangs; under the sanitizers every run is several
# times slower, and every file a reader opens forks the structure probe
# (lib/io/guard/h5guard_probe.c), whose fork copies ASan's page tables: test_h5out's
# resume cases took over its 60 s on 2 loaded cores.
export CK_TIMEOUT_MULTIPLIER := 4
endif

# Quiet by default: each step prints one short line ("CC lib/solve/step.c",
# "AR build/libvsim.a", "LD build/vsim"); V=1 prints every command in full.
# Warnings and errors are the compiler's own output and always show.
V ?= 0
ifeq ($(V),1)
Q :=
say :=
else
Q := @
say = @printf '  %-7s %s\n' '$(1)' '$(2)'
endif

# MPI=1: the same variant built with mpicc under $(BUILD)/mpi, so that
# `mpirun -np R build/mpi/vsim sweep ...` spreads a sweep's points over the
# ranks (Debian: openmpi-bin libopenmpi-dev).  Nothing else depends on MPI.
ifeq ($(MPI),1)
BUILD := $(BUILD)/mpi
CC := mpicc
OPT += -DVS_WITH_MPI
endif

# TARGET=aarch64: the same variant cross-built for arm64 under
# build/aarch64/ (release; build/aarch64/debug for VARIANT=debug) with
# Debian's gcc-aarch64-linux-gnu, against arm64 libraries unpacked into
# build/aarch64/sysroot (docs/architecture.md, "Other machines").  The
# native build, its tests and its packages are untouched: libhdf5-dev:arm64
# cannot be installed beside libhdf5-dev:amd64 on Debian 12, so the arm64
# packages are unpacked (dpkg -x), never installed, by
# `sh scripts/install-deps.sh --cross aarch64`, which also installs the cross
# compiler and qemu-user.  `make golden-check-aarch64` runs the golden scenes
# with both programs and compares them bit for bit.
TARGET ?=
QEMU_AARCH64 ?= qemu-aarch64
ifneq ($(strip $(TARGET)),)
ifneq ($(TARGET),aarch64)
$(error TARGET=$(TARGET): the cross target is aarch64 (make TARGET=aarch64); no TARGET builds for this machine)
endif
ifneq ($(MPI)$(filter san,$(VARIANT)),)
$(error TARGET=aarch64 builds VARIANT=release or debug, without MPI)
endif
BUILD := build/aarch64$(patsubst build%,%,$(BUILD))
CC := aarch64-linux-gnu-gcc
endif

CC ?= cc
PKG_CONFIG ?= pkg-config
# The library's dependencies, by pkg-config name (also libvsim.pc's
# Requires.private), and the tests' check, each with the Debian package that
# provides it (scripts/install-deps.sh installs them all).
VS_PKGS := yaml-0.1 hdf5 cairo
deb.yaml-0.1 := libyaml-dev
deb.hdf5 := libhdf5-dev
deb.cairo := libcairo2-dev
deb.check := check
# Each is looked for on its own: the flags of all come from one pkg-config
# call, which gives nothing at all when one is missing, and the compiler then
# complained of hdf5.h when cairo was the one not installed.
pkg_missing = $(foreach p,$(1),$(if $(shell $(PKG_CONFIG) --exists $(p) 2>/dev/null && echo 1),,$(p)))
VS_MISSING := $(call pkg_missing,$(VS_PKGS))
CHECK_MISSING := $(call pkg_missing,check)
# $(call need,$(VS_MISSING)) as a recipe's first line stops make there,
# naming what to install, when one is missing; targets that compile nothing
# (clean, help, install-deps) never ask.
need = $(if $(strip $(1)),$(error not installed: $(strip $(1)) (pkg-config); \
  Debian: apt-get install $(foreach p,$(1),$(deb.$(p))), or sh scripts/install-deps.sh))
DEPS_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(VS_PKGS) 2>/dev/null)
DEPS_LIBS := $(shell $(PKG_CONFIG) --libs $(VS_PKGS) 2>/dev/null)
CHECK_CFLAGS := $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECK_LIBS := $(shell $(PKG_CONFIG) --libs check 2>/dev/null)

# The cross build's libraries are the sysroot's archives, named here rather
# than asked of pkg-config (whose .pc files in the sysroot want what was not
# unpacked: cairo's, every library cairo links): the program links HDF5,
# szip, zlib and libyaml statically, as the native one does, so under qemu
# it needs only libc, libm and libgomp (the cross compiler's, linked into
# the sysroot).  cairo's headers only: lib/view loads libcairo.so.2 with
# dlopen (lib/view/cairo_dl.c), so the program never links it, and
# `vsim render` under qemu says that it cannot load cairo.  Each file that
# must be there is named with the arm64 package that has it.
ifeq ($(TARGET),aarch64)
SYSROOT := $(CURDIR)/build/aarch64/sysroot
XLIB := $(SYSROOT)/usr/lib/aarch64-linux-gnu
XNEED := usr/include/yaml.h:libyaml-dev usr/lib/aarch64-linux-gnu/libyaml.a:libyaml-dev \
  usr/include/hdf5/serial/hdf5.h:libhdf5-dev usr/lib/aarch64-linux-gnu/libhdf5_serial.a:libhdf5-dev \
  usr/lib/aarch64-linux-gnu/libsz.a:libaec-dev usr/lib/aarch64-linux-gnu/libaec.a:libaec-dev \
  usr/lib/aarch64-linux-gnu/libz.a:zlib1g-dev usr/include/cairo/cairo.h:libcairo2-dev
XNEED_CHECK := usr/include/check.h:check usr/lib/aarch64-linux-gnu/libcheck_pic.a:check \
  usr/lib/aarch64-linux-gnu/libsubunit.a:libsubunit-dev
xmissing = $(sort $(foreach n,$(1),$(if $(wildcard $(SYSROOT)/$(firstword $(subst :, ,$(n)))),,$(lastword $(subst :, ,$(n))):arm64)))
VS_MISSING := $(if $(shell command -v $(CC) 2>/dev/null),,$(CC)) $(call xmissing,$(XNEED)) \
  $(if $(wildcard $(SYSROOT)/lib/ld-linux-aarch64.so.1),,build/aarch64/sysroot/lib/ld-linux-aarch64.so.1)
CHECK_MISSING := $(call xmissing,$(XNEED_CHECK))
need = $(if $(strip $(1)),$(error TARGET=aarch64: missing $(strip $(1)); \
  sh scripts/install-deps.sh --cross aarch64 installs the cross compiler (gcc-aarch64-linux-gnu) \
  and unpacks the arm64 packages into build/aarch64/sysroot))
DEPS_CFLAGS := -I$(SYSROOT)/usr/include -I$(SYSROOT)/usr/include/hdf5/serial -I$(SYSROOT)/usr/include/cairo
DEPS_LIBS := $(XLIB)/libhdf5_serial.a $(XLIB)/libsz.a $(XLIB)/libaec.a $(XLIB)/libz.a $(XLIB)/libyaml.a
CHECK_CFLAGS := -pthread
CHECK_LIBS := $(XLIB)/libcheck_pic.a $(XLIB)/libsubunit.a -pthread -lrt
endif

# -ffp-contract=off: FMA contraction is the one value-changing transform
# compilers enable by default; golden files must hold on every x86-64 machine.
# No -march=native and no -ffast-math for the same reason.  -fno-math-errno
# only stops sqrt() from setting errno (values are unchanged), which lets the
# compiler use the sqrt instruction inline and vectorise the Jacobi kernel.
WARN := -Wall -Wextra -Wshadow -Wpointer-arith -Wstrict-prototypes \
        -Wmissing-prototypes -Wformat=2 -Wundef -Wvla -Wswitch-enum -Werror=switch-enum -Werror=switch -Wno-unused-parameter
CFLAGS_BASE := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(OPT) \
               -ffp-contract=off -fno-fast-math -fno-math-errno -fopenmp $(WARN) \
               -Ilib/include $(DEPS_CFLAGS)
LDLIBS := $(DEPS_LIBS) -lm -fopenmp $(SANLD)

LIB_SRC := $(sort $(wildcard lib/*/*.c lib/*/*/*.c))
CMD_SRC := $(sort $(wildcard cmd/*.c))
TEST_SRC := $(sort $(wildcard tests/test_*.c))
BENCH_SRC := $(sort $(wildcard bench/*.c))

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CMD_OBJ := $(CMD_SRC:%.c=$(BUILD)/obj/%.o)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
LIBA := $(BUILD)/libvsim.a
VSIM := $(BUILD)/vsim

.PHONY: all help test check sanitize valgrind bench clean install-deps
all: $(VSIM) $(LIBA)

help:
	@sed -n '1,/^[^#]/s/^#   //p' $(firstword $(MAKEFILE_LIST))

$(BUILD)/obj/lib/%.o: lib/%.c
	$(call need,$(VS_MISSING))
	$(call say,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_BASE) $(KFLAGS) -Ilib -fvisibility=hidden -MMD -MP -c $< -o $@

# The coloured-Jacobi kernel paths (lib/solve/kernel_jacobi.h): each file
# alone gets its instruction set, the rest of the build stays baseline
# x86-64; the path is picked at run time from what the CPU has.
ifneq ($(filter x86_64% i386% i486% i586% i686%,$(shell $(CC) -dumpmachine)),)
$(BUILD)/obj/lib/solve/kernel_jacobi_sse2.o $(BUILD)/pic/obj/lib/solve/kernel_jacobi_sse2.o: KFLAGS := -msse2
$(BUILD)/obj/lib/solve/kernel_jacobi_avx2.o $(BUILD)/pic/obj/lib/solve/kernel_jacobi_avx2.o: KFLAGS := -mavx2
$(BUILD)/obj/lib/solve/kernel_jacobi_avx512.o $(BUILD)/pic/obj/lib/solve/kernel_jacobi_avx512.o: KFLAGS := -mavx512f
endif

# The rigid narrow phase at -O3 in the release build: the same bits (-O3
# changes no floating-point semantics: no fast-math, no contraction), 5% fewer
# instructions on the 20-level pyramid (make bench-rigid).
ifeq ($(VARIANT),release)
$(BUILD)/obj/lib/solve/rigid/rigid_collide.o $(BUILD)/pic/obj/lib/solve/rigid/rigid_collide.o: KFLAGS := -O3
# The joints' rows and the forest's factorisation and solve too (rigid_joint.c,
# rigid_tree.c): same bits, the small fixed-size block products unrolled and
# vectorised, 40% fewer instructions on chain_swing.
$(BUILD)/obj/lib/solve/rigid/rigid_tree.o $(BUILD)/pic/obj/lib/solve/rigid/rigid_tree.o: KFLAGS := -O3
$(BUILD)/obj/lib/solve/rigid/rigid_joint.o $(BUILD)/pic/obj/lib/solve/rigid/rigid_joint.o: KFLAGS := -O3
# The contact sweeps, the patches' block LCP and the step's contact rows
# (rigid_solve.c, rigid_block.c, rigid_prepare.c): same bits, fewer
# instructions on the pyramids (make bench-rigid).
$(BUILD)/obj/lib/solve/rigid/rigid_solve.o $(BUILD)/pic/obj/lib/solve/rigid/rigid_solve.o: KFLAGS := -O3
$(BUILD)/obj/lib/solve/rigid/rigid_block.o $(BUILD)/pic/obj/lib/solve/rigid/rigid_block.o: KFLAGS := -O3
$(BUILD)/obj/lib/solve/rigid/rigid_prepare.o $(BUILD)/pic/obj/lib/solve/rigid/rigid_prepare.o: KFLAGS := -O3
# The convex hulls' separating-axis test (rigid_convex.c): same bits, 2%
# fewer instructions on convex_pile.
$(BUILD)/obj/lib/solve/rigid/rigid_convex.o $(BUILD)/pic/obj/lib/solve/rigid/rigid_convex.o: KFLAGS := -O3
endif

# `vsim --version` names the commit it was built from: `git describe --always
# --dirty` (a tag, or a commit, with "-dirty" when the tree has changes) as
# the define VSIM_GIT_DESCRIBE, given to cmd/main.c alone (never to the
# library: its objects do not rebuild on every commit).  $(BUILD)/git-describe
# holds the last value and changes only with it, so a commit recompiles
# main.c and relinks vsim, nothing else.  Outside a git checkout of this
# tree (a release tarball) there is no define and vsim prints its version.
ifeq ($(filter-out clean help install-deps,$(or $(MAKECMDGOALS),all)),)
VSIM_GIT :=
else
VSIM_GIT := $(shell cd '$(CURDIR)' && [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$$(pwd -P)" ] && \
                    git describe --always --dirty 2>/dev/null)
GIT_STAMP := $(BUILD)/git-describe
$(shell mkdir -p $(BUILD) && { [ -f $(GIT_STAMP) ] && [ "$$(cat $(GIT_STAMP))" = '$(VSIM_GIT)' ] || \
        echo '$(VSIM_GIT)' > $(GIT_STAMP); })
$(GIT_STAMP):
	@mkdir -p $(dir $@) && echo '$(VSIM_GIT)' > $@
$(BUILD)/obj/cmd/main.o: $(GIT_STAMP)
$(BUILD)/obj/cmd/main.o: CMD_DEFS := $(if $(VSIM_GIT),-DVSIM_GIT_DESCRIBE='"$(VSIM_GIT)"')
endif

$(BUILD)/obj/cmd/%.o: cmd/%.c
	$(call need,$(VS_MISSING))
	$(call say,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_BASE) $(CMD_DEFS) -Icmd -MMD -MP -c $< -o $@

$(LIBA): $(LIB_OBJ)
	$(call say,AR,$@)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@
	$(Q)ar rcs $@ $^

# Start-up (docs/performance.md): the program links HDF5 statically when its
# archive is installed (Debian's libhdf5-dev ships it): the shared libhdf5
# brings some 30 more shared libraries (curl, TLS, LDAP, ...) into the
# start-up of every run, the archive only the code vsim calls.
# STATIC_HDF5=0 links the shared one.  Tests and libvsim.so are unchanged.
# (TARGET=aarch64 always links the archives: its DEPS_LIBS above.)
STATIC_HDF5 ?= 1
HDF5_A := $(wildcard $(patsubst -L%,%,$(filter -L%,$(shell $(PKG_CONFIG) --libs hdf5 2>/dev/null)))/libhdf5.a)
# With it, libyaml, zlib and szip (libsz and its libaec) are linked from
# their archives too where installed: four shared libraries fewer to map
# and relocate on every start (9 -> 5).
static_a = $(filter /%,$(shell $(CC) -print-file-name=lib$(1).a 2>/dev/null))
YAML_A := $(call static_a,yaml)
Z_A := $(call static_a,z)
SZ_A := $(if $(call static_a,aec),$(call static_a,sz) $(call static_a,aec))
ifeq ($(STATIC_HDF5)$(if $(HDF5_A),1,0)$(TARGET),11)
VSIM_LDLIBS := $(patsubst -lhdf5,$(HDF5_A) $(or $(SZ_A),-lsz) $(or $(Z_A),-lz),$(LDLIBS))
VSIM_LDLIBS := $(patsubst -lyaml,$(or $(YAML_A),-lyaml),$(VSIM_LDLIBS))
else
VSIM_LDLIBS := $(LDLIBS)
endif
# lib/view loads cairo with dlopen when it first draws (lib/view/cairo_dl.h),
# so the program does not link it: `vsim run` never maps it.
VSIM_LDLIBS := $(filter-out -lcairo,$(VSIM_LDLIBS))

$(VSIM): $(CMD_OBJ) $(LIBA)
	$(call need,$(VS_MISSING))
	$(call say,LD,$@)
	$(Q)$(CC) $(OPT) -fopenmp $(CMD_OBJ) $(LIBA) $(VSIM_LDLIBS) -o $@

$(BUILD)/bench/bench: bench/bench.c $(BUILD)/obj/cmd/heap.o $(LIBA)
	$(call say,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_BASE) -Ilib -MMD -MP $< $(BUILD)/obj/cmd/heap.o $(LIBA) $(LDLIBS) -o $@

# ns per projection of the coloured-Jacobi kernel paths (docs/performance.md):
#   VSIM_KERNEL=avx2 build/bench/jacobi_ns 256 1 10 3
$(BUILD)/bench/jacobi_ns: bench/jacobi_ns.c $(LIBA)
	$(call say,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_BASE) -Ilib -MMD -MP $< $(LIBA) $(LDLIBS) -o $@

# ns per projection and accuracy of the Gauss-Seidel order (docs/performance.md):
#   build/bench/gs_ns 256 20 3
$(BUILD)/bench/gs_ns: bench/gs_ns.c $(LIBA)
	$(call say,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_BASE) -Ilib -MMD -MP $< $(LIBA) $(LDLIBS) -o $@

# Bullet (Debian libbullet-dev) is the peer: when pkg-config finds it, the
# same cloths (and the rigid pyramid, make bench-rigid) run in its solvers
# and the table shows both.
# BENCH_ARGS=--quick (seconds) or --full (adds 512^2, ~3 minutes on 2 cores).
CXX ?= c++
HAVE_BULLET := $(shell $(PKG_CONFIG) --exists bullet 2>/dev/null && echo 1)
ifeq ($(HAVE_BULLET),1)
BULLET_CLOTH := $(BUILD)/bench/bullet_cloth
BENCH_PEER := --bullet $(BULLET_CLOTH)
BULLET_PYRAMID := $(BUILD)/bench/bullet_pyramid
BENCH_PYRAMID_PEER := --bullet-pyramid $(BULLET_PYRAMID)
endif
$(BUILD)/bench/bullet_cloth: bench/bullet_cloth.cpp
	$(call say,CXX,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CXX) -O2 $< $(shell $(PKG_CONFIG) --cflags --libs bullet) -o $@

bench: $(VSIM) $(BUILD)/bench/bench $(BULLET_CLOTH) $(BUILD)/bench/rigid_pyramid $(BULLET_PYRAMID)
	$(BUILD)/bench/bench --vsim $(VSIM) --out $(BUILD)/bench/bench.json $(BENCH_PEER) \
	  --pyramid $(BUILD)/bench/rigid_pyramid $(BENCH_PYRAMID_PEER) $(BENCH_ARGS)

# ---- tests ------------------------------------------------------------------
# The test programs are tests/test_*.c (check; shared helpers in
# tests/testutil.h and, for those that run the program, tests/runutil.h).
# The program and the end-to-end tests see only the public headers
# (lib/include/vsim/); the library and its unit tests also see the private
# ones under lib/ (util/alloc.h, io/h5util.h, ...).
#
# A test program is relinked only when an object it took from libvsim.a
# changed, not on every change of the archive: the linker lists the members
# it pulls (-Wl,-t,-t, which changes nothing in the program), and
# scripts/link-deps.sh turns that list into $@.link.d, those objects as
# prerequisites (as -MMD does for headers).  Until a program has that file
# it depends on the whole archive.
E2E_TESTS := test_cli test_robust test_compare_cli test_sweep_cli test_golden test_render_cli test_xdmf_cli test_hostile test_hostile_read \
             test_rigid_surface test_sweep_collect test_junit test_schema_cli test_output_size test_aero
$(E2E_TESTS:%=$(BUILD)/tests/%): $(BUILD)/tests/%: tests/%.c tests/testutil.h tests/runutil.h | $(LIBA)
	$(call need,$(VS_MISSING) $(CHECK_MISSING))
	$(call say,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_BASE) $(CHECK_CFLAGS) -Itests -MMD -MP $< $(LIBA) $(CHECK_LIBS) $(LDLIBS) -Wl,-t,-t -o $@ > $@.trace
	@sh scripts/link-deps.sh $@ $(LIBA) $@.trace $(LIB_OBJ) > $@.link.d && rm -f $@.trace

$(BUILD)/tests/%: tests/%.c tests/testutil.h | $(LIBA)
	$(call need,$(VS_MISSING) $(CHECK_MISSING))
	$(call say,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_BASE) -Ilib $(CHECK_CFLAGS) -Itests -MMD -MP $< $(LIBA) $(CHECK_LIBS) $(LDLIBS) -Wl,-t,-t -o $@ > $@.trace
	@sh scripts/link-deps.sh $@ $(LIBA) $@.trace $(LIB_OBJ) > $@.link.d && rm -f $@.trace

-include $(TEST_BIN:=.link.d)
$(foreach t,$(TEST_BIN),$(if $(wildcard $(t).link.d),,$(eval $(t): $(LIBA))))

# make test runs every test program, even when an earlier one fails, then
# the golden files, the docs check and the real clients (and install-check
# first, in the release build), and ends with one line counted per check,
# "N passed, N failed, N skipped" (tests/run-tests.sh says how); it fails
# when any check failed.  T=NAME (or T="NAME NAME ..."; test_rigid, rigid
# and tests/test_rigid.c all name tests/test_rigid.c) runs only those test
# programs, with the same closing line; a name with no tests/test_NAME.c is
# an error.  CK_RUN_CASE=CASE runs one test case of each.
TEST_NAMES := $(TEST_SRC:tests/%.c=%)
ifneq ($(strip $(T)),)
T_NAMES := $(foreach t,$(basename $(notdir $(T))),$(if $(filter test_%,$(t)),$(t),test_$(t)))
T_UNKNOWN := $(filter-out $(TEST_NAMES),$(T_NAMES))
ifneq ($(T_UNKNOWN),)
$(error T=$(strip $(T)): no test program $(T_UNKNOWN:%=tests/%.c); the test programs are: $(TEST_NAMES))
endif
TEST_RUN := $(T_NAMES:%=$(BUILD)/tests/%)
TEST_STEPS := $(TEST_RUN)
else
TEST_RUN := $(TEST_BIN)
TEST_STEPS := $(TEST_BIN) golden docs clients
endif
# TARGET=aarch64: the arm64 test programs run under qemu-aarch64 (TEST_WRAP),
# and the vsim they start is $(BUILD)/vsim-qemu, a script that runs the arm64
# program the same way.  No script checks: make golden-check-aarch64 is the
# golden suite on arm64 (against this machine's results), and the docs and
# the clients do not depend on the machine.  The whole suite under qemu
# takes long on 2 cores: T=... picks programs.
ifeq ($(TARGET),aarch64)
TEST_STEPS := $(TEST_RUN)
TEST_WRAP ?= $(QEMU_AARCH64) -L $(SYSROOT)
TEST_VSIM := $(BUILD)/vsim-qemu
$(TEST_VSIM): $(VSIM)
	printf '#!/bin/sh\n# the arm64 vsim under qemu-aarch64 (make TARGET=aarch64 check)\nexec %s -L %s %s "$$@"\n' \
	  '$(QEMU_AARCH64)' '$(SYSROOT)' '$(abspath $(VSIM))' > $@.tmp && chmod +x $@.tmp && mv $@.tmp $@
else
TEST_VSIM := $(VSIM)
endif
test check: $(TEST_VSIM) $(TEST_RUN)
	@VSIM=$(TEST_VSIM) VSIM_ROOT=$(CURDIR) TEST_WRAP='$(TEST_WRAP)' sh tests/run-tests.sh $(TEST_STEPS)

# The golden suite (tests/golden/README.md): every example scene rerun and
# compared with its file in tests/golden/; update regenerates the files and
# prints which changed, in which datasets, from which frame, by how much.
.PHONY: golden-check golden-update
golden-check: $(VSIM)
	VSIM=$(VSIM) sh scripts/golden.sh check

golden-update: $(VSIM)
	VSIM=$(VSIM) sh scripts/golden.sh update

# The same bits on arm64 (docs/physics.md, determinism): every golden scene
# (or SCENES="a b") run by build/vsim and by build/aarch64/vsim under
# qemu-aarch64, each arm64 result compared with this machine's by
# build/vsim compare, bitwise (scripts/golden.sh cross); the scene's line
# also says whether this machine's result still equals tests/golden/.
# GOLDEN_EXTRA="--frames N" shortens every scene (CI, .ci/run).  Needs
# sh scripts/install-deps.sh --cross aarch64.
AARCH64_SYSROOT := $(CURDIR)/build/aarch64/sysroot
.PHONY: golden-check-aarch64
golden-check-aarch64:
	@command -v $(QEMU_AARCH64) > /dev/null 2>&1 || { echo "golden-check-aarch64: no $(QEMU_AARCH64) (Debian: qemu-user); sh scripts/install-deps.sh --cross aarch64 installs it" >&2; exit 1; }
	$(MAKE) TARGET= VARIANT=release MPI= build/vsim
	$(MAKE) TARGET=aarch64 VARIANT=release MPI= build/aarch64/vsim
	VSIM=build/vsim VSIM_CROSS="$(QEMU_AARCH64) -L $(AARCH64_SYSROOT) build/aarch64/vsim" \
	  GOLDEN_EXTRA="$(GOLDEN_EXTRA)" sh scripts/golden.sh cross $(SCENES)

# The real readers of the result file (tests/clients/run.sh, part of make
# test): MDAnalysis reads every frame, ParaView opens the .xmf sidecars and
# renders them.  Each is skipped, saying what to install, when absent.
.PHONY: clients-check
clients-check: $(VSIM)
	VSIM=$(VSIM) sh tests/clients/run.sh

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
# The check timeouts catch hangs: under memcheck, beside the other program,
# test_cli's configs_run (every example scene validated and run, 68 vsims)
# took 230 to 300 s of its 300 s on 2 cores, and once more; 4 times the
# timeouts, as under the sanitizers.
$(VALGRIND_E2E:%=valgrind-e2e-%): valgrind-e2e-%: valgrind-e2e-build
	@echo "== $* (vsim under valgrind)"
	VSIM_SLOW=1 CK_TIMEOUT_MULTIPLIER=4 VSIM_REAL_BIN=$(abspath build/vsim) \
	  VSIM_BIN=$(CURDIR)/tests/valgrind-vsim.sh VSIM_ROOT=$(CURDIR) build/tests/$*

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
	$(call need,$(VS_MISSING))
	$(call say,CC fuzz,$<)
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_DIR)/fuzz_scene: tests/fuzz/fuzz_scene.c $(FUZZ_OBJ)
	$(call say,LD,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_OBJ) $(DEPS_LIBS) -lm -o $@

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

# ---- parallel by default ----------------------------------------------------
# `make` alone uses every core (nproc); an explicit -jN (or -j) on the command
# line or in MAKEFLAGS wins, and sub-makes inherit the parent's job server.
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

# ---- install ----------------------------------------------------------------
#   make install [PREFIX=/usr/local] [DESTDIR=/staging]   program, static and
#       shared library, headers, libvsim.pc, man page, bash and zsh completion,
#       docs, LICENSE and CHANGELOG.md (share/doc/vsim), the example scenes with their meshes
#       and sweeps (share/vsim/examples)
#   make uninstall [PREFIX=...] [DESTDIR=...]             removes exactly those
#       files, and the folders that are vsim's own (include/vsim,
#       share/doc/vsim, share/vsim) when they are empty then
#   make install-check      installs into a temporary prefix and builds
#                           examples/ against it (tests/install-check.sh)
# The shared library is built from a second object set compiled with -fPIC
# under $(BUILD)/pic/, so build/libvsim.a and build/vsim are unchanged; it
# exports only the functions the public headers declare (a version script
# generated from them), the rest stays local as in the static build.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
DOCDIR ?= $(PREFIX)/share/doc/vsim
PKGDATADIR ?= $(PREFIX)/share/vsim
EXAMPLESDIR := $(PKGDATADIR)/examples
INSTALL ?= install
OPENMP_LIBS ?= -fopenmp

VSIM_VERSION_STR := $(shell sed -n 's/^\#define VSIM_VERSION "\(.*\)"/\1/p' lib/include/vsim/vsim.h)
SO_MAJOR := $(firstword $(subst ., ,$(VSIM_VERSION_STR)))
PIC_OBJ := $(LIB_SRC:%.c=$(BUILD)/pic/obj/%.o)
LIBSO := $(BUILD)/libvsim.so.$(VSIM_VERSION_STR)
LIBSO_MAP := $(BUILD)/pic/libvsim.map
PUBLIC_H := $(sort $(wildcard lib/include/vsim/*.h))
DOCS_MD := $(sort $(wildcard docs/*.md))
# The example scenes as they are in configs/: the meshes and sweeps in the
# same places relative to the scenes, so that each runs where it is installed.
EX_SCENES := $(sort $(wildcard configs/*.yaml))
EX_MESHES := $(sort $(wildcard configs/meshes/*.obj))
EX_SWEEPS := $(sort $(wildcard configs/sweeps/*.yaml))
MANPAGE := $(BUILD)/vsim.1

$(BUILD)/pic/obj/lib/%.o: lib/%.c
	$(call need,$(VS_MISSING))
	$(call say,CC -fPIC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_BASE) $(KFLAGS) -Ilib -fPIC -MMD -MP -c $< -o $@

$(LIBSO_MAP): $(PUBLIC_H)
	$(call say,GEN,$@)
	@mkdir -p $(dir $@)
	$(Q){ echo '{'; echo '  global:'; \
	  grep -ohE '\bvs_[a-z0-9_]+\(' $(PUBLIC_H) | tr -d '(' | sort -u | sed 's/.*/    &;/'; \
	  echo '  local: *;'; echo '};'; } > $@

$(LIBSO): $(PIC_OBJ) $(LIBSO_MAP)
	$(call say,LD,$@)
	$(Q)$(CC) -shared -Wl,-soname,libvsim.so.$(SO_MAJOR) -Wl,--version-script=$(LIBSO_MAP) \
	  $(OPT) $(PIC_OBJ) $(DEPS_LIBS) -lm $(OPENMP_LIBS) $(SANLD) -o $@

$(MANPAGE): $(VSIM) scripts/gen-man.sh
	$(call say,GEN,$@)
	$(Q)sh scripts/gen-man.sh $(VSIM) > $@.tmp && mv $@.tmp $@

.PHONY: shared man install uninstall install-check schema
shared: $(LIBSO)
man: $(MANPAGE)

# The JSON Schema of the scene format (`vsim schema`, from the key table):
# installed as share/vsim/vsim-scene.schema.json; `make schema` refreshes
# the copy in docs/ that the example scenes name on their first line
# (tests/test_schema_cli.c checks that the two agree).
SCENE_SCHEMA := $(BUILD)/vsim-scene.schema.json
$(SCENE_SCHEMA): $(VSIM)
	$(call say,GEN,$@)
	$(Q)$(VSIM) schema > $@.tmp && mv $@.tmp $@
schema: $(SCENE_SCHEMA)
	cp $(SCENE_SCHEMA) docs/vsim-scene.schema.json

install: $(VSIM) $(LIBA) $(LIBSO) $(MANPAGE) $(SCENE_SCHEMA)
	$(call say,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/vsim \
	  $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) \
	  $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(EXAMPLESDIR)/meshes \
	  $(DESTDIR)$(EXAMPLESDIR)/sweeps
	$(Q)$(INSTALL) -m 755 $(VSIM) $(DESTDIR)$(BINDIR)/vsim
	$(Q)$(INSTALL) -m 644 $(LIBA) $(DESTDIR)$(LIBDIR)/libvsim.a
	$(Q)$(INSTALL) -m 755 $(LIBSO) $(DESTDIR)$(LIBDIR)/libvsim.so.$(VSIM_VERSION_STR)
	$(Q)ln -sf libvsim.so.$(VSIM_VERSION_STR) $(DESTDIR)$(LIBDIR)/libvsim.so.$(SO_MAJOR)
	$(Q)ln -sf libvsim.so.$(SO_MAJOR) $(DESTDIR)$(LIBDIR)/libvsim.so
	$(Q)$(INSTALL) -m 644 $(PUBLIC_H) $(DESTDIR)$(INCLUDEDIR)/vsim/
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@REQUIRES@|$(VS_PKGS)|g' \
	  -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VSIM_VERSION_STR)|g' \
	  -e 's|@OPENMP_LIBS@|$(OPENMP_LIBS)|g' dist/libvsim.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/libvsim.pc
	$(Q)chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/libvsim.pc
	$(Q)$(INSTALL) -m 644 $(MANPAGE) $(DESTDIR)$(MANDIR)/man1/vsim.1
	$(Q)$(INSTALL) -m 644 dist/completions/vsim.bash $(DESTDIR)$(BASHCOMPDIR)/vsim
	$(Q)$(INSTALL) -m 644 dist/completions/_vsim $(DESTDIR)$(ZSHCOMPDIR)/_vsim
	$(Q)$(INSTALL) -m 644 $(DOCS_MD) LICENSE CHANGELOG.md $(DESTDIR)$(DOCDIR)/
	$(Q)$(INSTALL) -m 644 $(EX_SCENES) $(DESTDIR)$(EXAMPLESDIR)/
	$(Q)$(INSTALL) -m 644 $(EX_MESHES) $(DESTDIR)$(EXAMPLESDIR)/meshes/
	$(Q)$(INSTALL) -m 644 $(EX_SWEEPS) $(DESTDIR)$(EXAMPLESDIR)/sweeps/
	$(Q)$(INSTALL) -m 644 $(SCENE_SCHEMA) $(DESTDIR)$(PKGDATADIR)/vsim-scene.schema.json

# Folders: only vsim's own are removed, children first, and only when empty
# (rmdir): bin/, lib/, share/man/... may hold other programs' files.
uninstall:
	$(call say,UNINST,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(DESTDIR)$(BINDIR)/vsim $(DESTDIR)$(LIBDIR)/libvsim.a \
	  $(DESTDIR)$(LIBDIR)/libvsim.so $(DESTDIR)$(LIBDIR)/libvsim.so.$(SO_MAJOR) \
	  $(DESTDIR)$(LIBDIR)/libvsim.so.$(VSIM_VERSION_STR) \
	  $(addprefix $(DESTDIR)$(INCLUDEDIR)/vsim/,$(notdir $(PUBLIC_H))) \
	  $(DESTDIR)$(PKGCONFIGDIR)/libvsim.pc $(DESTDIR)$(MANDIR)/man1/vsim.1 \
	  $(DESTDIR)$(BASHCOMPDIR)/vsim $(DESTDIR)$(ZSHCOMPDIR)/_vsim \
	  $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOCS_MD)) LICENSE CHANGELOG.md) \
	  $(addprefix $(DESTDIR)$(EXAMPLESDIR)/,$(notdir $(EX_SCENES))) \
	  $(addprefix $(DESTDIR)$(EXAMPLESDIR)/meshes/,$(notdir $(EX_MESHES))) \
	  $(addprefix $(DESTDIR)$(EXAMPLESDIR)/sweeps/,$(notdir $(EX_SWEEPS))) \
	  $(DESTDIR)$(PKGDATADIR)/vsim-scene.schema.json
	$(Q)for d in $(DESTDIR)$(INCLUDEDIR)/vsim $(DESTDIR)$(DOCDIR) $(DESTDIR)$(EXAMPLESDIR)/meshes \
	  $(DESTDIR)$(EXAMPLESDIR)/sweeps $(DESTDIR)$(EXAMPLESDIR) $(DESTDIR)$(PKGDATADIR); do \
	  [ ! -d "$$d" ] || rmdir "$$d" 2>/dev/null || echo "make uninstall: $$d is not empty: left in place"; done

# Part of `make test` in the release build (the example links against the
# installed library with nothing but pkg-config; the sanitizer builds would
# need their runtime flags too).
install-check: $(VSIM) $(LIBA) $(LIBSO) $(MANPAGE)
	VSIM_ROOT=$(CURDIR) BUILD=$(BUILD) MAKE="$(MAKE)" sh tests/install-check.sh
ifeq ($(VARIANT)$(MPI)$(strip $(T))$(TARGET),release)
test check: install-check
endif

-include $(PIC_OBJ:.o=.d)
# The mesh BVH's build benchmark (1M triangles in under 1 s, docs/performance.md):
#   make bench-bvh [BVH_ARGS="TRIANGLES REPEATS"]
$(BUILD)/bench/bvh_build: bench/bvh_build.c $(LIBA)
	$(call say,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_BASE) -Ilib -MMD -MP $< $(LIBA) $(LDLIBS) -o $@

.PHONY: bench-bvh
bench-bvh: $(BUILD)/bench/bvh_build
	$(BUILD)/bench/bvh_build $(BVH_ARGS)

# The OBJ mesh reader's fuzzer: libFuzzer on tests/fuzz/fuzz_obj.c,
# seeded from tests/fuzz/seeds-obj/ and configs/meshes/; the corpus grows in
# build/fuzz/corpus-obj/.  `make fuzz` runs it too (SECONDS each).
$(FUZZ_DIR)/fuzz_obj: tests/fuzz/fuzz_obj.c $(FUZZ_OBJ)
	$(call say,LD,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_OBJ) $(DEPS_LIBS) -lm -o $@

.PHONY: fuzz-obj
fuzz-obj: $(FUZZ_DIR)/fuzz_obj
	@mkdir -p $(FUZZ_DIR)/corpus-obj
	@for f in tests/fuzz/seeds-obj/* configs/meshes/*.obj; do \
	  cp "$$f" "$(FUZZ_DIR)/corpus-obj/seed-$$(echo "$$f" | tr / _)"; done
	$(FUZZ_DIR)/fuzz_obj -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
	  -max_total_time=$(SECONDS) -print_final_stats=1 \
	  -artifact_prefix=$(FUZZ_DIR)/obj- $(FUZZ_DIR)/corpus-obj
fuzz: fuzz-obj
# make render-bench: how long lib/view takes to draw a 256x256 cloth frame
# (bench/render_bench.c); RENDER_BENCH_ARGS="--out DIR" also writes pictures.
.PHONY: render-bench
$(BUILD)/bench/render_bench: bench/render_bench.c $(LIBA)
	$(call say,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_BASE) -Ilib -MMD -MP $< $(LIBA) $(LDLIBS) -o $@

render-bench: $(BUILD)/bench/render_bench
	$(BUILD)/bench/render_bench $(RENDER_BENCH_ARGS)

# The result-file reader's fuzzer: libFuzzer on the validating HDF5 reader
# (tests/fuzz/fuzz_h5.c: guarded open, every dataset read in slabs, the
# attributes vsim reads, then the viewers' reader, the sidecar and --resume's
# reads and checks), seeded from the golden files and tests/fuzz/seeds-h5/
# (small resumed runs: tearing, rigid, mesh); the corpus grows in
# build/fuzz/corpus-h5/, a crash is written to build/fuzz/h5-crash-* (keep it
# in tests/data/fuzz-h5/: test_h5guard replays that directory).  Leak
# detection is off, per input and at exit (ASAN_OPTIONS): HDF5 keeps free
# lists for the life of the process, and HDF5 1.10 leaks a metadata cache
# entry when H5Oget_info fails on some corrupt object headers.  HDF5's own
# crashes on corrupt structures happen in the guard's probe child
# (lib/io/guard/h5guard_probe.c) and refuse the file: any crash here is a bug.
$(FUZZ_DIR)/fuzz_h5: tests/fuzz/fuzz_h5.c $(FUZZ_OBJ)
	$(call say,LD,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_OBJ) $(DEPS_LIBS) -lm -o $@

.PHONY: fuzz-h5
fuzz-h5: $(FUZZ_DIR)/fuzz_h5
	@mkdir -p $(FUZZ_DIR)/corpus-h5
	@for f in tests/golden/*.h5 tests/fuzz/seeds-h5/*.h5; do \
	  cp "$$f" "$(FUZZ_DIR)/corpus-h5/seed-$$(echo "$$f" | tr / _)"; done
	ASAN_OPTIONS=detect_leaks=0$${ASAN_OPTIONS:+:$$ASAN_OPTIONS} \
	  $(FUZZ_DIR)/fuzz_h5 -max_len=1048576 -rss_limit_mb=2048 -timeout=20 -detect_leaks=0 \
	  -max_total_time=$(SECONDS) -print_final_stats=1 \
	  -artifact_prefix=$(FUZZ_DIR)/h5- $(FUZZ_DIR)/corpus-h5
# The rigid-body pyramid benchmark: vsim's rigid solver, and the same
# pyramid in Bullet when Bullet is installed (HAVE_BULLET above).
$(BUILD)/bench/rigid_pyramid: bench/rigid_pyramid.c $(LIBA)
	$(call say,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_BASE) -Ilib -MMD -MP $< $(LIBA) $(LDLIBS) -o $@

$(BUILD)/bench/bullet_pyramid: bench/bullet_pyramid.cpp
	$(call say,CXX,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CXX) -O2 $< $(shell $(PKG_CONFIG) --cflags --libs bullet 2>/dev/null) -o $@

# make bench-rigid: vsim's rigid solver beside Bullet's on the scenes of
# bench/rigid/ (chain, joint grid, stacks, pyramids, mass ratio, free spin,
# bounce, tunnelling), each engine at its defaults: a Markdown table on
# stdout, JSON in $(BUILD)/bench/rigid.json (bench/rigid_bench.py).
#   make bench-rigid QUICK=1          one run each, shorter runs
#   make bench-rigid ONLY=chain,5     some rows (names, prefixes or numbers)
#   RIGID_BENCH_ARGS="--reps 5 --cpu 0"
# Without Bullet the table has the vsim column only.
PYTHON ?= python3
$(BUILD)/bench/rigid_scenes: bench/rigid_scenes.c bench/rigid_metrics.h $(LIBA)
	$(call say,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_BASE) -Ilib $< $(LIBA) $(LDLIBS) -o $@

$(BUILD)/bench/bullet_scenes: bench/bullet_scenes.cpp bench/rigid_metrics.h $(LIBA)
	$(call say,CXX,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CXX) -O2 -Ilib/include -Ilib $(shell $(PKG_CONFIG) --cflags bullet 2>/dev/null) $< $(LIBA) \
	  $(LDLIBS) $(shell $(PKG_CONFIG) --libs bullet 2>/dev/null) -o $@

# The same program against Bullet's double-precision build (Debian ships it
# beside the default single-precision one): vsim computes in double.
HAVE_BULLET64 := $(shell $(PKG_CONFIG) --exists bullet-float64 2>/dev/null && echo 1)
$(BUILD)/bench/bullet_scenes64: bench/bullet_scenes.cpp bench/rigid_metrics.h $(LIBA)
	$(call say,CXX,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CXX) -O2 -Ilib/include -Ilib $(shell $(PKG_CONFIG) --cflags bullet-float64 2>/dev/null) $< \
	  $(LIBA) $(LDLIBS) $(shell $(PKG_CONFIG) --libs bullet-float64 2>/dev/null) -o $@

.PHONY: bench-rigid
bench-rigid: $(BUILD)/bench/rigid_scenes $(if $(HAVE_BULLET),$(BUILD)/bench/bullet_scenes) \
             $(if $(HAVE_BULLET64),$(BUILD)/bench/bullet_scenes64)
	$(if $(HAVE_BULLET),,@echo "bullet not installed (pkg-config bullet): vsim column only")
	$(PYTHON) bench/rigid_bench.py --vsim $(BUILD)/bench/rigid_scenes \
	  $(if $(HAVE_BULLET),--bullet $(BUILD)/bench/bullet_scenes) \
	  $(if $(HAVE_BULLET64),--bullet64 $(BUILD)/bench/bullet_scenes64) --scenes bench/rigid \
	  --out $(BUILD)/bench/rigid.json $(if $(filter 1 yes true,$(QUICK)),--quick) \
	  $(if $(ONLY),--only $(ONLY)) $(RIGID_BENCH_ARGS)
# The README's pictures (docs/images/), drawn by `vsim render` and `vsim plot`
# from an example scene: `make pictures` regenerates them.
PICTURES_DIR := $(BUILD)/pictures
.PHONY: pictures
pictures: $(VSIM)
	@mkdir -p $(PICTURES_DIR) docs/images
	$(VSIM) run configs/cloth_sphere.yaml -o $(PICTURES_DIR)/cloth_sphere.h5 --force --quiet
	$(VSIM) render $(PICTURES_DIR)/cloth_sphere.h5 --frame 16 --color speed --size 800x500 -o docs/images/cloth_sphere.png
	$(VSIM) plot $(PICTURES_DIR)/cloth_sphere.h5 --size 800x400 -o docs/images/cloth_sphere_plot.png
	$(VSIM) run configs/rigid_dice.yaml -o $(PICTURES_DIR)/rigid_dice.h5 --force --quiet
	$(VSIM) render $(PICTURES_DIR)/rigid_dice.h5 --size 400x300 -o docs/images/rigid_dice.png
	$(VSIM) run configs/rigid_pyramid.yaml -o $(PICTURES_DIR)/rigid_pyramid.h5 --force --quiet
	$(VSIM) render $(PICTURES_DIR)/rigid_pyramid.h5 --size 400x300 -o docs/images/rigid_pyramid.png
	$(VSIM) run configs/mesh_flag.yaml -o $(PICTURES_DIR)/mesh_flag.h5 --force --quiet
	$(VSIM) render $(PICTURES_DIR)/mesh_flag.h5 --size 400x300 -o docs/images/mesh_flag.png
	$(VSIM) run configs/rigid_arch.yaml -o $(PICTURES_DIR)/rigid_arch.h5 --force --quiet
	$(VSIM) render $(PICTURES_DIR)/rigid_arch.h5 --size 400x300 -o docs/images/rigid_arch.png
	$(VSIM) run configs/rigid_ragdoll.yaml -o $(PICTURES_DIR)/rigid_ragdoll.h5 --force --quiet
	$(VSIM) render $(PICTURES_DIR)/rigid_ragdoll.h5 --size 400x300 -o docs/images/rigid_ragdoll.png
	$(VSIM) run configs/rigid_conveyor.yaml -o $(PICTURES_DIR)/rigid_conveyor.h5 --force --quiet
	$(VSIM) render $(PICTURES_DIR)/rigid_conveyor.h5 --frame 60 --zoom 1.4 --size 400x300 -o docs/images/rigid_conveyor.png
