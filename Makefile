# netlab: see README.md.
#
#   make deps      install (as root) or name the Debian packages netlab needs
#   make           build the harness, guest agent and traffic generators
#   make kernel    build (or reuse from cache) the instrumented kernel
#                  (FLAVOUR=NAME: kconfigs/flavours/NAME/, as build/kernel-NAME)
#   make guest     assemble the guest initramfs
#   make test      unit + integration tests (boots real guests under TCG)
#   make regress   the regression suite

CC      ?= gcc
B       := build
# CFLAGS is yours (optimisation, debugging, more warnings): `make CFLAGS=-O0`
# adds to what netlab's code needs, NETLAB_CFLAGS, instead of replacing it.
CFLAGS  ?= -O2 -g
NETLAB_CFLAGS := -std=gnu11 -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE
# make unit SANITIZE=1: the library and the unit tests with ASan and UBSan,
# into a build directory of their own (build-san/; B=DIR gives DIR-san).
PLAIN_B := $(B)
SAN_CFLAGS :=
ifeq ($(SANITIZE),1)
override B := $(B)-san
SAN_CFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer
NETLAB_CFLAGS += $(SAN_CFLAGS)
SAN_ENV := ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 \
	   UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	   LSAN_OPTIONS=suppressions=$(CURDIR)/tests/unit/lsan.supp:print_suppressions=0
endif
PKGS    := json-c libpcap openssl inih libtracecmd libtraceevent libvirt libxml-2.0 sqlite3
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm

# harness/: one folder per subsystem (README "Source tree").
HARNESS_LIB := lib/util lib/jsonout lib/proc lib/esc lib/provenance lib/outlock lib/metrics \
	       vm/vm vm/qemu vm/topo vm/topofile vm/backend vm/status vm/backend-qemu vm/backend-libvirt \
	       vm/share vm/libvirt vm/libvirt-volume vm/libvirt-stream vm/libvirt-domain vm/libvirt-xml \
	       boot/kernel boot/flavour boot/initrd boot/acpi boot/kmod \
	       run/run run/rundir run/result run/counters run/pcapstat run/pcapcsum \
	       trace/tracefile trace/tracedrops trace/tracepass trace/traceset trace/analysis \
	       trace/pktpath trace/pktpath-ev trace/pktpath-setup trace/pktpath-drv trace/pktpath-out \
	       trace/netrx trace/netrx-ev trace/netrx-out trace/drvring trace/drvring-read trace/drvring-out trace/txpath trace/txpath-out \
	       trace/hist-json \
	       scenario/scenario scenario/scenario-keys scenario/scenario-traffic scenario/scenario-exec scenario/scenario-smp scenario/ktap scenario/check \
	       scenario/baseline scenario/scngen scenario/scnrun scenario/scnrun-collect scenario/scnrun-loss scenario/scnrun-hops scenario/scnrun-exec \
	       scenario/regress scenario/regress-collect scenario/regress-merge scenario/resultsdb scenario/matrix scenario/coverage \
	       scenario/scngdb \
	       bisect/bisect bisect/bisect-step gdb/gdb gdb/qmp gdb/replay \
	       report/report report/html report/html-bisect report/html-run report/html-flows report/html-suite report/html-util report/svg report/html-history \
	       report/runview report/genflows report/regress-out report/regress-story report/regress-ci \
	       selftests/ksft selftests/ksft-suite
HARNESS_CMD := cmd/netlab cmd/cmd-common cmd/cmd-run cmd/cmd-pcap cmd/cmd-regress cmd/cmd-report \
	       cmd/cmd-bisect cmd/cmd-gdb cmd/cmd-selftests cmd/cmd-history
HARNESS_HDRS := $(wildcard harness/*/*.h)
# Includes name the subsystem: #include "vm/vm.h".
HARNESS_INC := -Iharness -Iguest -Itraffic
# The log-linear latency histogram is shared with the traffic generators, and
# so are the generators' option tables (traffic/generators.h).
LIB_OBJS    := $(HARNESS_LIB:%=$(B)/harness/%.o) $(B)/harness/hist.o $(B)/harness/generators.o \
	       $(B)/harness/nicmodel.o
CMD_OBJS    := $(HARNESS_CMD:%=$(B)/harness/%.o)

.DEFAULT_GOAL := all

# `netlab --version`: this version and the commit the binary was built from.
NETLAB_VERSION := 0.16

# Traffic generators (guest side): defines `traffic::` and TRAFFIC_TESTS.
-include traffic/build.mk
-include Documentation/doc.mk

# tests/unit/ mirrors harness/: tests/unit/DIR/test_*.c -> $(B)/tests/DIR/test_*.
UNIT_TESTS  := $(patsubst tests/unit/%.c,$(B)/tests/%,$(wildcard tests/unit/*/test_*.c))
# Traffic-generator tests link the generators, not the harness: traffic/build.mk.
UNIT_TESTS  := $(filter-out $(B)/tests/traffic/%,$(UNIT_TESTS)) $(TRAFFIC_TESTS)

# Build stamp of the last `make kernel`; `build/kernel` links to its cache dir.
KERNEL_LINK := $(B)/kernel
INITRAMFS   := $(B)/initramfs.cpio.gz

.PHONY: FORCE all deps kernel guest test unit integration regress clean format check-format

all: $(B)/netlab $(B)/guest/netlab-agent traffic

deps:
	@ci/deps.sh

$(B)/harness/%.o: harness/%.c $(HARNESS_HDRS) guest/netlab-proto.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(NETLAB_CFLAGS) $(PKG_CFLAGS) $(HARNESS_INC) -c -o $@ $<

$(B)/harness/hist.o: traffic/hist.c traffic/hist.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(NETLAB_CFLAGS) -c -o $@ $<

$(B)/harness/generators.o: traffic/generators.c $(wildcard traffic/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(NETLAB_CFLAGS) -c -o $@ $<

# The NIC models' table is shared with the guest agent.
$(B)/harness/nicmodel.o: guest/nicmodel.c guest/nicmodel.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(NETLAB_CFLAGS) -c -o $@ $<

# Rewritten only when the commit (or the tree's dirtiness) changes.
$(B)/version.h: FORCE
	@mkdir -p $(@D)
	@c=$$(git -C "$(CURDIR)" describe --always --dirty --abbrev=12 --match=NONE 2>/dev/null || echo unknown); \
	printf '#define NETLAB_VERSION "%s"\n#define NETLAB_COMMIT "%s"\n' "$(NETLAB_VERSION)" "$$c" >$@.tmp; \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(B)/harness/cmd/netlab.o: $(B)/version.h
$(B)/harness/cmd/netlab.o: HARNESS_INC += -I$(B)
FORCE:

$(B)/libnetlab.a: $(LIB_OBJS)
	$(AR) rcs $@ $^

# The commands' option parsers are unit-tested too: they get an archive of their own.
$(B)/libnetlab-cmd.a: $(filter-out $(B)/harness/cmd/netlab.o,$(CMD_OBJS))
	$(AR) rcs $@ $^

$(B)/netlab: $(CMD_OBJS) $(B)/libnetlab.a
	$(CC) $(CFLAGS) $(NETLAB_CFLAGS) -o $@ $(CMD_OBJS) $(B)/libnetlab.a $(PKG_LIBS)

# ---- guest ----------------------------------------------------------------
# An object per source in $(B)/guest/: t20 checks the call graph between them.
AGENT_SRCS := guest/agent.c guest/agent-net.c guest/agent-util.c guest/agent-job.c guest/agent-pci.c \
	      guest/agent-note.c guest/nicmodel.c
AGENT_OBJS := $(AGENT_SRCS:guest/%.c=$(B)/guest/%.o)
$(B)/guest/%.o: guest/%.c guest/agent-int.h guest/agent-job.h guest/agent-pci.h guest/agent-note.h \
		guest/netlab-proto.h guest/nicmodel.h
	@mkdir -p $(@D)
	$(CC) -O2 -Wall -Wextra -D_GNU_SOURCE -Iguest -c -o $@ $<

$(B)/guest/netlab-agent: $(AGENT_OBJS)
	$(CC) -static -O2 -o $@ $(AGENT_OBJS)

traffic:: ;

$(INITRAMFS): $(B)/guest/netlab-agent guest/mkinitramfs.sh guest/copy-exe.sh $(TRAFFIC_BINS)
	guest/mkinitramfs.sh $@ $(B)/guest/netlab-agent $(B)/traffic

# The tools the kernel's selftests need, appended by netlab selftests only.
KSFT_TOOLS := $(B)/ksft-tools.cpio.gz
$(KSFT_TOOLS): $(INITRAMFS) guest/mkksft-tools.sh guest/copy-exe.sh
	guest/mkksft-tools.sh $@ $(INITRAMFS)

guest: $(INITRAMFS) $(KSFT_TOOLS)

# ---- kernel ---------------------------------------------------------------
# harness/kbuild.sh decides from its content-keyed cache whether to build.
# FLAVOUR=NAME builds kconfigs/flavours/NAME/ (harness/kbuild-flavour.sh)
# and links it as build/kernel-NAME, where `netlab --flavour NAME` looks.
FLAVOUR ?= default
FLAVOUR_LINK = $(if $(filter default,$(FLAVOUR)),$(KERNEL_LINK),$(KERNEL_LINK)-$(FLAVOUR))
kernel:
	@mkdir -p $(B)
	@dir=$$(harness/kbuild-flavour.sh '$(FLAVOUR)' | tail -n 1) && ln -sfn "$$dir" $(FLAVOUR_LINK) && \
		echo "kernel: $(FLAVOUR_LINK) -> $$dir"

# ---- tests ----------------------------------------------------------------
$(B)/tests/%: tests/unit/%.c $(B)/libnetlab-cmd.a $(B)/libnetlab.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(NETLAB_CFLAGS) $(PKG_CFLAGS) $(HARNESS_INC) -Itests/unit -DFIXTURES=\"$(CURDIR)/tests/unit/fixtures\" -o $@ $< \
		$(B)/libnetlab-cmd.a $(B)/libnetlab.a $(PKG_LIBS) -lcmocka

# The guest's job parser is built without the harness library.
$(B)/tests/guest/test_agent_job: tests/unit/guest/test_agent_job.c guest/agent-job.c guest/agent-job.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(NETLAB_CFLAGS) -Iguest -o $@ tests/unit/guest/test_agent_job.c guest/agent-job.c -lcmocka

$(B)/tests/guest/test_agent_note: tests/unit/guest/test_agent_note.c guest/agent-note.c guest/agent-note.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(NETLAB_CFLAGS) -Iguest -o $@ tests/unit/guest/test_agent_note.c guest/agent-note.c -lcmocka

$(B)/tests/guest/test_agent_pci: tests/unit/guest/test_agent_pci.c guest/agent-pci.c guest/agent-pci.h guest/nicmodel.c guest/nicmodel.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(NETLAB_CFLAGS) -Iguest -Itests/unit -o $@ tests/unit/guest/test_agent_pci.c guest/agent-pci.c guest/nicmodel.c -lcmocka

$(B)/tests/guest/test_nicmodel: tests/unit/guest/test_nicmodel.c guest/nicmodel.c guest/nicmodel.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(NETLAB_CFLAGS) -Iguest -o $@ tests/unit/guest/test_nicmodel.c guest/nicmodel.c -lcmocka

# A sanitizer's first report ends the test binary, which then fails.
unit: $(UNIT_TESTS)
	@$(SAN_ENV) tests/run-unit.sh $(UNIT_TESTS)

integration: all guest kernel
	@tests/run-integration.sh

# SANITIZE is for the unit tests (tests/run.sh's make unit; 1 unless
# SANITIZE=0): the integration tests run build/netlab, built as usual.
test:
	@ci/deps.sh
	@$(MAKE) --no-print-directory SANITIZE= all guest kernel
	@SANITIZE=$(or $(SANITIZE),1) tests/run.sh

regress:
	@ci/deps.sh
	@$(MAKE) --no-print-directory all guest kernel
	build/netlab regress $(REGRESS_ARGS)

format:
	clang-format -i harness/*/*.[ch] guest/*.[ch] traffic/*.[ch] tests/unit/*/*.c

check-format:
	@clang-format --dry-run --Werror harness/*/*.[ch] 2>&1 | head -20

clean:
	rm -rf $(PLAIN_B) $(PLAIN_B)-san

# ---- fuzzing (tests/fuzz/README.md) ---------------------------------------
# libFuzzer targets for the parsers of untrusted input, built with clang and
# ASan/UBSan into build-fuzz/ (the library too: build/ is left alone).
#   make fuzz         every target for FUZZ_SECONDS (default 60) each
#   make fuzz-smoke   every target a fixed number of runs with -seed=1 (make test
#                     runs it); skips when clang/libFuzzer is missing
# tests/fuzz/run.sh does the work; it builds the targets through the rules below.
FUZZ_B       := build-fuzz
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS  := -O1 -g -fno-omit-frame-pointer -std=gnu11 -Wall -Wextra -Wno-unused-parameter \
		-D_GNU_SOURCE $(FUZZ_SAN)
# clang-only warnings on code gcc builds cleanly; the fuzz build is not its lint.
FUZZ_LIBFLAGS := -Wno-missing-field-initializers -Wno-string-plus-int -fsanitize=fuzzer-no-link
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,$(FUZZ_B)/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_LIB     := $(HARNESS_LIB:%=$(FUZZ_B)/harness/%.o) $(FUZZ_B)/harness/hist.o \
		$(FUZZ_B)/harness/generators.o $(FUZZ_B)/harness/nicmodel.o

$(FUZZ_B)/harness/%.o: harness/%.c $(HARNESS_HDRS) guest/netlab-proto.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_LIBFLAGS) $(PKG_CFLAGS) $(HARNESS_INC) -c -o $@ $<

$(FUZZ_B)/harness/hist.o: traffic/hist.c traffic/hist.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_LIBFLAGS) -c -o $@ $<

$(FUZZ_B)/harness/nicmodel.o: guest/nicmodel.c guest/nicmodel.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_LIBFLAGS) -c -o $@ $<

$(FUZZ_B)/harness/generators.o: traffic/generators.c $(wildcard traffic/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_LIBFLAGS) -c -o $@ $<

$(FUZZ_B)/libnetlab.a: $(FUZZ_LIB)
	$(AR) rcs $@ $^

$(FUZZ_B)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz-util.c tests/fuzz/fuzz.h $(FUZZ_B)/libnetlab.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(PKG_CFLAGS) $(HARNESS_INC) -Itests/fuzz -o $@ \
		$< tests/fuzz/fuzz-util.c $(FUZZ_B)/libnetlab.a $(PKG_LIBS)

.PHONY: fuzz fuzz-smoke
fuzz:
	@FUZZ_CC="$(FUZZ_CC)" tests/fuzz/run.sh --seconds $(FUZZ_SECONDS)

fuzz-smoke:
	@FUZZ_CC="$(FUZZ_CC)" tests/fuzz/run.sh --smoke
# ---- end of fuzzing ---------------------------------------------------------
