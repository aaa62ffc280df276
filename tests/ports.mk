# Included by the Makefile: shim robustness and fault-injection tests
# (issue 3, issue 5), the musl and arm64 ports (issue 5).
#
#   make check-shim-extra  build/libfaultinject.so, build/shimstress{,-lfs,
#                          -fortify,-fortify64}; bats/faults.bats,
#                          bats/shim-robust.bats
#                          and examples/android/selftest.sh
#   make check-musl        everything built with musl-gcc into build/musl
#                          (static tools in build/musl/static); unit tests,
#                          offline bats, the musl shim over the replay driver
#   make check-i386        everything built with gcc -m32 into build/i386; the
#                          C unit tests, the shim's robustness suite, the
#                          replay of every runtime under the 32-bit shim, a
#                          dump past 2 GiB written through it
#   make check-arm64       static aarch64 tools and test binaries in
#                          build/arm64/bin, run under qemu-aarch64 through
#                          wrappers in build/arm64; unit tests, offline bats
#
# `make check` also builds the extra test binaries, since bats/ holds
# faults.bats and shim-robust.bats, and runs check-env (the caller's
# HPROFSTRIP_* settings change no result) and check-android (the Android
# example's self-test) before its own recipe.

FAULTINJ = $(BUILD)/libfaultinject.so
SHIMSTRESS = $(BUILD)/shimstress $(BUILD)/shimstress-lfs \
	$(BUILD)/shimstress-fortify $(BUILD)/shimstress-fortify64
SHIM_EXTRA_BIN = $(FAULTINJ) $(SHIMSTRESS)

# which Bats suites the ports, the sanitized build and check-preloaded
# run: bats/offline.list, printed by tests/bats-list USE (a recipe's
# `s=$$(tests/bats-list USE) &&` fails when the list does)

$(FAULTINJ): tests/faultinject.c | $(BUILD)
	$(CC) $(ALL_CFLAGS) -fPIC -shared -fvisibility=hidden -pthread \
		-o $@ tests/faultinject.c -ldl $(LDFLAGS)

# shimstress built so that it calls every name the shim wraps: plain,
# large-file names (open64, lseek64, pwrite64, fcntl64...), fortified
# (__open_2, __openat_2), both (__open64_2, __openat64_2). Fortification
# is off in the first two whatever the compiler's default.
SHIMSTRESS_CFLAGS = $(WARN) -O2 -g -pthread -U_FORTIFY_SOURCE

$(BUILD)/shimstress: tests/shimstress.c tests/shimdrive.h | $(BUILD)
	$(CC) $(SHIMSTRESS_CFLAGS) -o $@ tests/shimstress.c $(LDFLAGS)

$(BUILD)/shimstress-lfs: tests/shimstress.c tests/shimdrive.h | $(BUILD)
	$(CC) $(SHIMSTRESS_CFLAGS) -D_FILE_OFFSET_BITS=64 -o $@ tests/shimstress.c $(LDFLAGS)

$(BUILD)/shimstress-fortify: tests/shimstress.c tests/shimdrive.h | $(BUILD)
	$(CC) $(SHIMSTRESS_CFLAGS) -D_FORTIFY_SOURCE=2 -o $@ tests/shimstress.c $(LDFLAGS)

$(BUILD)/shimstress-fortify64: tests/shimstress.c tests/shimdrive.h | $(BUILD)
	$(CC) $(SHIMSTRESS_CFLAGS) -D_FORTIFY_SOURCE=2 -D_FILE_OFFSET_BITS=64 \
		-o $@ tests/shimstress.c $(LDFLAGS)

check: $(SHIM_EXTRA_BIN) check-env check-android check-preloaded

# The caller's shim settings change no result: every test entry point
# clears HPROFSTRIP_* and LD_PRELOAD (make check once failed with
# HPROFSTRIP_QUIET=1 exported). bats/shim-robust.bats checks the Bats side.
check-env: all $(BUILD)/replay
	env HPROFSTRIP_QUIET=1 HPROFSTRIP_PATTERN='*.nothing' HPROFSTRIP_SNIFF=0 \
		HPROFSTRIP_LOG=/nonexistent/log LD_PRELOAD=$(SHIM) \
		tests/ports.sh shim-replay $(BUILD)

# An exported LD_PRELOAD (a Dockerfile ENV, a shell profile) changes none
# of the tools' results: their own suites once more, with the shim in every
# process they start (bats/common.bash exports TEST_LD_PRELOAD)
check-preloaded: all $(TESTBIN)
	s=$$(tests/bats-list preloaded) && \
		TEST_LD_PRELOAD=$(abspath $(SHIM)) BUILD=$(BUILD) tests/run-bats.sh $$s

# the Android example's self-test (wrap.sh, dumpheap.sh against a fake adb)
check-android: deps all $(BUILD)/replay
	BUILD=$(BUILD) examples/android/selftest.sh

# shim-robust.bats compares strace output with and without the shim
deps: deps-ports
deps-ports:
	tests/ports.sh deps strace binutils

check-shim-extra: deps all $(TESTBIN) $(SHIM_EXTRA_BIN) check-android
	BUILD=$(BUILD) tests/run-bats.sh bats/faults.bats bats/shim-robust.bats

.PHONY: check-shim-extra check-env check-android check-preloaded deps-ports

# ---- musl -------------------------------------------------------------------

MUSL = $(BUILD)/musl
MUSL_STATIC = $(MUSL)/static

check-musl: deps
	tests/ports.sh deps musl-tools file
	$(MAKE) CC=musl-gcc BUILD=$(MUSL) all $(MUSL)/splitcheck $(MUSL)/oracle \
		$(MUSL)/replay $(MUSL)/shimstress $(MUSL)/strcheck $(MUSL)/redactcheck \
		$(MUSL)/memtest
	$(MAKE) CC=musl-gcc BUILD=$(MUSL_STATIC) LDFLAGS=-static \
		$(MUSL_STATIC)/hprofstrip $(MUSL_STATIC)/hprofrestore
	@for f in $(MUSL_STATIC)/hprofstrip $(MUSL_STATIC)/hprofrestore; do \
		file $$f | grep -q 'statically linked' || { echo "$$f is not static"; exit 1; }; done
	@file $(MUSL)/replay | grep -q 'interpreter /lib/ld-musl' || \
		{ echo "$(MUSL)/replay is not linked against musl"; exit 1; }
	$(MUSL)/memtest
	BUILD=$(MUSL) tests/unit.sh
	s=$$(tests/bats-list offline) && BUILD=$(MUSL) tests/run-bats.sh $$s
	s=$$(tests/bats-list static) && \
		BUILD=$(MUSL_STATIC) bats --print-output-on-failure $$s
	tests/ports.sh shim-replay $(MUSL)
	tests/ports.sh shimstress $(MUSL)

# ---- i386 -------------------------------------------------------------------

# 32 bits (Android's armeabi-v7a is): off_t, size_t and long are 32 bits,
# a 64-bit offset goes to the kernel as two halves. The machine's own
# programs (sh, touch) keep the native shim (HOST_SHIM).
I386 = $(BUILD)/i386
I386_UNIT = policytest sealtest pendtest maptest holdtest memtest namerule libcrace
check-i386: deps
	tests/ports.sh deps gcc-multilib
	$(MAKE) --no-print-directory CC="gcc -m32" BUILD=$(I386) all \
		$(I386_UNIT:%=$(I386)/%) $(I386)/replay $(I386)/bigdump \
		$(I386)/libfaultinject.so $(I386)/shimstress $(I386)/shimstress-lfs \
		$(I386)/shimstress-fortify $(I386)/shimstress-fortify64
	@file $(I386)/libhprofstrip.so | grep -q 'ELF 32-bit.*80386' || \
		{ echo "$(I386)/libhprofstrip.so is not an i386 library"; exit 1; }
	for t in $(I386_UNIT); do $(I386)/$$t || exit 1; done
	HOST_SHIM=$(CURDIR)/$(SHIM) BUILD=$(I386) tests/run-bats.sh bats/shim-robust.bats
	tests/ports.sh shim-replay $(I386)
	tests/ports.sh shimstress $(I386)
	tests/ports.sh big $(I386) 2200

# ---- arm64 ------------------------------------------------------------------

ARM64 = $(BUILD)/arm64
ARM64_CC = aarch64-linux-gnu-gcc
ARM64_SYSROOT = /usr/aarch64-linux-gnu
# what the tests run: static, so qemu-aarch64 needs no sysroot; unaligned
# loads behind a cast would be warnings, hence errors
ARM64_MAKE = $(MAKE) CC=$(ARM64_CC) BUILD=$(ARM64)/bin \
	CFLAGS="-O2 -g -Wcast-align=strict"

# Under qemu each run of the engine is some 5 times slower: the arm64 port
# runs redaction's plain split invariance at both levels and the product's
# redactcheck rows, and leaves its variants (--stream, tiny tables, JDK 8
# placeholders, fallback, salvage, --app-only) and the checks of
# redactcheck itself to the native run, where they run whole; the same
# for the histogram: its plain split invariance, not its variants.
ARM64_UNIT_SKIP = ^(split invariance, redact( --|,)|JDK 8 placeholder lengths, redact|fallback at offset [0-9]+, redact|split invariance, redact names --|redactcheck |split invariance, the histogram (while|of))

check-arm64: deps
	tests/ports.sh deps gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user file
	$(ARM64_MAKE) LDFLAGS=-static $(ARM64)/bin/hprofstrip \
		$(ARM64)/bin/hprofrestore $(ARM64)/bin/splitcheck $(ARM64)/bin/oracle \
		$(ARM64)/bin/strcheck $(ARM64)/bin/redactcheck $(ARM64)/bin/memtest
	$(ARM64_MAKE) $(ARM64)/bin/libhprofstrip.so $(ARM64)/bin/replay
	tests/ports.sh wrappers $(ARM64) qemu-aarch64
	@file $(ARM64)/bin/hprofstrip | grep -q 'ARM aarch64' || \
		{ echo "$(ARM64)/bin/hprofstrip is not an arm64 binary"; exit 1; }
	qemu-aarch64 $(ARM64)/bin/memtest
	UNIT_SKIP='$(ARM64_UNIT_SKIP)' BUILD=$(ARM64) tests/unit.sh
	# under qemu a peak RSS is qemu's; hostile.bats measures it natively
	s=$$(tests/bats-list offline) && \
		HPROFSTRIP_SANITIZED=1 BUILD=$(ARM64) tests/run-bats.sh $$s
	tests/ports.sh shim-replay $(ARM64) qemu-aarch64 -L $(ARM64_SYSROOT)

.PHONY: check-musl check-arm64 check-i386
