# mdstat: make the kernel's migrate_disable() machinery observable.
#
#   make demo    build what is missing, boot the guest, show it at work
#   make check   every test, host and guest; ends "N passed, N failed"
#   make bench   every benchmark, in the guest; one table (docs/benchmarks.md)
#
# Everything that runs kernel code runs in the QEMU guest (guest/run).

BUILD := build
USER_CFLAGS := -O2 -g -Wall -Wextra -Wno-missing-field-initializers -Werror

# Debian 12 packages the build, the guest and the tests use.
PACKAGES := linux-source-6.1 linux-source-6.12 gcc make patch perl flex bison bc libelf-dev \
	libssl-dev dwarves ccache clang llvm libbpf-dev bpftool bpftrace \
	busybox-static cpio zstd xz-utils kmod util-linux \
	rt-tests stress-ng trace-cmd jq python3 linux-perf spin \
	debhelper dpkg-dev fakeroot lintian man-db prometheus \
	prometheus-node-exporter curl iproute2

# QEMU comes from bookworm-backports: 7.2 in bookworm can run a stale
# translation of kernel text another vCPU just patched (fixed in 8.1 by
# "accel/tcg: Always lock pages before translation"; README).  Only QEMU and
# what it pulls are taken from there.
BACKPORTS_PACKAGES := qemu-system-x86
BACKPORTS_SOURCES := /etc/apt/sources.list.d/bookworm-backports.sources
QEMU_MIN_VERSION := 1:8.1

.PHONY: all deps kernel kernel-debian mdstat install install-files deb bench bench-tools kernel-stock kernel-debug kernel-rt kernel-rt-stock kernel-6.12 check-debug torture vmlinux.h mdload mdload-module shell demo check devtree devtree-build export-patches clean

all: kernel mdload mdstat

# A quick no-op when every package is there; apt-get otherwise.
deps:
	@installed() { dpkg-query -W -f='$${db:Status-Status}\n' $$1 2>/dev/null | grep -qx installed; }; \
	missing=$$(for p in $(PACKAGES); do installed $$p || echo $$p; done); \
	backports=; \
	{ installed qemu-system-x86 && dpkg --compare-versions \
		"$$(dpkg-query -W -f='$${Version}' qemu-system-x86)" ge $(QEMU_MIN_VERSION); } || \
		backports="$(BACKPORTS_PACKAGES)"; \
	if [ -n "$$missing$$backports" ]; then \
		echo "deps: installing" $$missing $$backports; \
		[ "$$(id -u)" = 0 ] || { echo "deps: need root to install packages" >&2; exit 2; }; \
		mkdir -p $(BUILD); \
		{ if [ -n "$$backports" ] && [ ! -f $(BACKPORTS_SOURCES) ]; then \
			printf '%s\n' 'Types: deb' 'URIs: http://deb.debian.org/debian' \
				'Suites: bookworm-backports' 'Components: main' \
				'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' \
				>$(BACKPORTS_SOURCES); fi && \
		  apt-get update && \
		  { [ -z "$$missing" ] || DEBIAN_FRONTEND=noninteractive \
			apt-get install -y --no-install-recommends $$missing; } && \
		  { [ -z "$$backports" ] || DEBIAN_FRONTEND=noninteractive \
			apt-get install -y --no-install-recommends -t bookworm-backports $$backports; }; } \
			>$(BUILD)/apt.log 2>&1 || \
			{ tail -n 20 $(BUILD)/apt.log >&2; \
			  echo "deps: apt-get install failed (log: $(BUILD)/apt.log)" >&2; exit 2; }; \
	fi

kernel: deps
	@guest/build-kernel

# The same tree and config without patches/series, for A/B comparisons.
kernel-stock: deps
	@guest/build-kernel --stock

# With lockdep, atomic-sleep and preemption checks (guest/debug.config).
kernel-debug: deps
	@guest/build-kernel --debug

# linux-source-6.12 with PREEMPT_RT (guest/rt.config) and patches/6.12/,
# and the same without the series.
kernel-rt: deps
	@guest/build-kernel --base 6.12 --rt

kernel-rt-stock: deps
	@guest/build-kernel --base 6.12 --rt --stock

# The same 6.12 kernel without PREEMPT_RT: RT against non-RT on one base.
kernel-6.12: deps
	@guest/build-kernel --base 6.12

# CO-RE programs compile against the built kernel's own BTF, which has the
# series' types; they run on kernels without it too (mdstat doctor).
vmlinux.h: kernel
	@$(MAKE) -s $(BUILD)/vmlinux.h

$(BUILD)/vmlinux.h: $(BUILD)/vmlinux
	bpftool btf dump file $< format c >$@.tmp && mv $@.tmp $@

# mdstat: bpf/ programs, their skeleton, and the cli/mdstat/ command.  The
# programs compile against our kernel's BTF as a header, or against the
# VMLINUX_H given (the Debian package's build: debian/rules).  CPPFLAGS,
# CFLAGS and LDFLAGS are the packager's (dpkg-buildflags).
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror
MDSTAT_SOURCES := $(wildcard cli/mdstat/*.c)
VMLINUX_H := $(BUILD)/vmlinux.h

mdstat: kernel
	@$(MAKE) -s $(BUILD)/mdstat

$(BUILD)/mdstat.bpf.o: bpf/mdstat.bpf.c bpf/mdstat.h $(VMLINUX_H)
	@mkdir -p $(BUILD)
	clang $(BPF_CFLAGS) -I$(dir $(VMLINUX_H)) -Ibpf -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	bpftool gen skeleton $< name $*_bpf >$@.tmp && mv $@.tmp $@

$(BUILD)/mdstat: $(MDSTAT_SOURCES) cli/mdstat/cli.h bpf/mdstat.h $(BUILD)/mdstat.skel.h
	$(CC) $(USER_CFLAGS) $(CPPFLAGS) $(CFLAGS) -I$(BUILD) -Ibpf -o $@ $(MDSTAT_SOURCES) \
		$(LDFLAGS) -lbpf -lelf -lz

# make install: mdstat, the man pages, the md-* scripts as commands (they
# live with mdtrace.py, which they import from where they really are) and
# the one-liners.  install-files copies what is built, without building the
# kernel first (debian/rules).
PREFIX := /usr/local
SBINDIR = $(PREFIX)/sbin
MDSTAT_LIBDIR = $(PREFIX)/lib/mdstat
MAN8DIR = $(PREFIX)/share/man/man8
DOCDIR = $(PREFIX)/share/doc/mdstat
SCRIPTS := md-hotplug-latency md-affinity-latency md-stacking-report

install: mdstat
	@$(MAKE) -s install-files

install-files:
	install -D -m 0755 $(BUILD)/mdstat $(DESTDIR)$(SBINDIR)/mdstat
	install -D -m 0644 cli/mdstat/mdstat.8 $(DESTDIR)$(MAN8DIR)/mdstat.8
	install -m 0644 scripts/md-scripts.8 $(DESTDIR)$(MAN8DIR)/md-hotplug-latency.8
	install -d $(DESTDIR)$(MDSTAT_LIBDIR)
	install -m 0755 $(addprefix scripts/,$(SCRIPTS)) $(DESTDIR)$(MDSTAT_LIBDIR)/
	install -m 0644 scripts/mdtrace.py $(DESTDIR)$(MDSTAT_LIBDIR)/
	for script in $(SCRIPTS); do \
		ln -sfn $$(realpath -m --relative-to=$(SBINDIR) $(MDSTAT_LIBDIR))/$$script \
			$(DESTDIR)$(SBINDIR)/$$script || exit 1; \
	done
	ln -sfn md-hotplug-latency.8 $(DESTDIR)$(MAN8DIR)/md-affinity-latency.8
	ln -sfn md-hotplug-latency.8 $(DESTDIR)$(MAN8DIR)/md-stacking-report.8
	install -D -m 0644 docs/one-liners.md $(DESTDIR)$(DOCDIR)/one-liners.md

# make deb: the Debian package, built by dpkg-buildpackage from a copy of the
# sources that carries our kernel's BTF header, into build/deb/; lintian
# must find no error in it.
DEB_DIR := $(BUILD)/deb
DEB_VERSION = $(shell dpkg-parsechangelog -l debian/changelog -S Version)
DEB_STAGE = $(DEB_DIR)/mdstat-$(DEB_VERSION)

deb: mdstat
	@rm -rf $(DEB_DIR)
	@mkdir -p $(DEB_STAGE)
	@cp -r Makefile bpf cli scripts docs debian $(DEB_STAGE)/
	@cp $(BUILD)/vmlinux.h $(DEB_STAGE)/
	@cd $(DEB_STAGE) && dpkg-buildpackage -b -us -uc >../build.log 2>&1 || \
		{ tail -n 30 $(DEB_DIR)/build.log >&2; \
		  echo "deb: dpkg-buildpackage failed (log: $(DEB_DIR)/build.log)" >&2; exit 1; }
	@lintian --fail-on error --info $(DEB_DIR)/mdstat_$(DEB_VERSION)_amd64.changes \
		>$(DEB_DIR)/lintian.log; status=$$?; cat $(DEB_DIR)/lintian.log; exit $$status
	@echo "deb: $(DEB_DIR)/mdstat_$(DEB_VERSION)_amd64.deb"

# The test module, built out of tree against a kernel's objects (KOBJ) into
# MDLOAD, outside the checkout; and its user-space helpers.
MDLOAD_SOURCES := guest/mdload/Kbuild guest/mdload/mdload.c guest/mdload/mdload.h guest/mdload/stale_int3.c
KOBJ := $(BUILD)/kernel-mdstat/obj
MDLOAD := $(BUILD)/mdload

MDLOAD_HELPERS := $(BUILD)/mdsection $(BUILD)/mdpairs

mdload: kernel $(MDLOAD_HELPERS)
	@$(MAKE) -s mdload-module

mdload-module:
	@mkdir -p $(MDLOAD)
	@cp $(MDLOAD_SOURCES) $(MDLOAD)/
	@$(MAKE) -s -C $(KOBJ) M=$(abspath $(MDLOAD)) modules

$(MDLOAD_HELPERS): $(BUILD)/%: guest/mdload/%.c guest/mdload/mduser.c guest/mdload/mduser.h guest/mdload/mdload.h
	@mkdir -p $(BUILD)
	$(CC) $(USER_CFLAGS) -o $@ $< guest/mdload/mduser.c

shell: kernel mdload mdstat
	@guest/run --shell

demo: kernel mdload mdstat
	@guest/run -- guest/demo

# The benchmarks' BPF consumer of the bare tracepoints.
bench-tools: kernel
	@$(MAKE) -s $(BUILD)/tpcount

$(BUILD)/tpcount.bpf.o: bench/tpcount.bpf.c $(BUILD)/vmlinux.h
	clang $(BPF_CFLAGS) -I$(BUILD) -c $< -o $@

$(BUILD)/tpcount: bench/tpcount.c $(BUILD)/tpcount.skel.h
	$(CC) $(USER_CFLAGS) -I$(BUILD) -o $@ $< -lbpf -lelf -lz

# The guest tests on our kernel, then mdstat's and the one-liners' on the
# stock one, the properties on the debug one, the RT tests on our 6.12
# PREEMPT_RT kernel, and on Debian's generic and RT kernels (below).
STOCK_KERNEL := $(BUILD)/kernel-stock
DEBUG_KERNEL := $(BUILD)/kernel-mdstat-debug
RT_KERNEL := $(BUILD)/kernel-mdstat-6.12-rt
# mdload for them, in this checkout: the kernels' folders are shared by
# every clone, whose mdload sources may differ.
STOCK_MDLOAD := $(BUILD)/mdload-stock
DEBUG_MDLOAD := $(BUILD)/mdload-debug
RT_MDLOAD := $(BUILD)/mdload-rt
DEBIAN_MDLOAD := $(BUILD)/mdload-debian
check: kernel mdload mdstat bench-tools deb kernel-stock kernel-debug kernel-rt kernel-debian
	@$(MAKE) -s mdload-module KOBJ=$(STOCK_KERNEL)/obj MDLOAD=$(STOCK_MDLOAD)
	@$(MAKE) -s mdload-module KOBJ=$(DEBUG_KERNEL)/obj MDLOAD=$(DEBUG_MDLOAD)
	@$(MAKE) -s mdload-module KOBJ=$(RT_KERNEL)/obj MDLOAD=$(RT_MDLOAD)
	@MDSTAT_STOCK_BZIMAGE=$(STOCK_KERNEL)/obj/arch/x86/boot/bzImage \
		MDSTAT_STOCK_MDLOAD_KO=$(abspath $(STOCK_MDLOAD))/mdload.ko \
		MDSTAT_DEBUG_BZIMAGE=$(DEBUG_KERNEL)/obj/arch/x86/boot/bzImage \
		MDSTAT_DEBUG_MDLOAD_KO=$(abspath $(DEBUG_MDLOAD))/mdload.ko \
		MDSTAT_RT_BZIMAGE=$(RT_KERNEL)/obj/arch/x86/boot/bzImage \
		MDSTAT_RT_MDLOAD_KO=$(abspath $(RT_MDLOAD))/mdload.ko \
		MDSTAT_DEBIAN_KERNEL=$(abspath $(DEBIAN_KERNEL)) \
		MDSTAT_DEBIAN_MDLOAD_KO=$(abspath $(DEBIAN_MDLOAD))/mdload.ko \
		MDSTAT_DEBIAN_RT_KERNEL=$(abspath $(DEBIAN_RT_KERNEL)) \
		MDSTAT_DEBIAN_RT_MDLOAD_KO=$(abspath $(DEBIAN_RT_MDLOAD))/mdload.ko tests/check

# Debian's own kernels, generic (amd64) and PREEMPT_RT (rt-amd64), each
# unpacked with its headers outside the checkout (guest/debian-kernel), and
# mdload for it: the kernels our users run.
DEBIAN_KERNEL := $(BUILD)/kernel-debian-amd64
DEBIAN_RT_KERNEL := $(BUILD)/kernel-debian-rt-amd64
DEBIAN_RT_MDLOAD := $(BUILD)/mdload-debian-rt
kernel-debian: deps
	@mkdir -p $(BUILD)
	@dir=$$(guest/debian-kernel --flavour amd64 --headers) && ln -sfn "$$dir" $(DEBIAN_KERNEL)
	@dir=$$(guest/debian-kernel --flavour rt-amd64 --headers) && ln -sfn "$$dir" $(DEBIAN_RT_KERNEL)
	@$(MAKE) -s mdload-module KOBJ=$(DEBIAN_KERNEL)/kbuild MDLOAD=$(DEBIAN_MDLOAD)
	@$(MAKE) -s mdload-module KOBJ=$(DEBIAN_RT_KERNEL)/kbuild MDLOAD=$(DEBIAN_RT_MDLOAD)

# Every benchmark, in the guest on both kernels, and one table (bench/run,
# docs/benchmarks.md); COLD=1 also times a build with nothing cached.
bench: kernel mdload mdstat bench-tools kernel-stock
	@$(MAKE) -s mdload-module KOBJ=$(STOCK_KERNEL)/obj MDLOAD=$(STOCK_MDLOAD)
	@bench/run $(if $(COLD),--cold)

# Hotplug, sections, affinity storms and RT pushes at once, for DURATION
# seconds (guest/torture); a short run is part of make check.
DURATION := 600
torture: kernel mdload
	@guest/run -t $$(($(DURATION) + 300)) -- guest/torture $(DURATION)

# The same tests on the debug kernel: any lockdep or sleep-in-atomic splat
# fails them.
check-debug: kernel-debug mdstat bench-tools $(MDLOAD_HELPERS)
	@$(MAKE) -s mdload-module KOBJ=$(DEBUG_KERNEL)/obj MDLOAD=$(DEBUG_MDLOAD)
	@MDSTAT_BZIMAGE=$(DEBUG_KERNEL)/obj/arch/x86/boot/bzImage \
		MDSTAT_MDLOAD_KO=$(abspath $(DEBUG_MDLOAD))/mdload.ko tests/check

# Kernel development on a base (BASE=6.12, the default, or 6.1):
# build/linux-dev-BASE/src is a git tree with patches/BASE/ as commits;
# devtree-build builds it (and mdload for it), export-patches writes the
# commits back to patches/BASE/.
BASE := 6.12

devtree: deps
	@guest/devtree --base $(BASE) init

devtree-build:
	@guest/devtree --base $(BASE) build
	@$(MAKE) -s mdload-module KOBJ=$(BUILD)/linux-dev-$(BASE)/obj \
		MDLOAD=$(BUILD)/linux-dev-$(BASE)/mdload

export-patches:
	@guest/devtree --base $(BASE) export

clean:
	rm -rf $(BUILD)
