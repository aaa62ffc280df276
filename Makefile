# hprofstrip: see README.md.
#   make            build/hprofstrip, build/hprofrestore, build/libhprofstrip.so,
#                   build/libhprofstrip.a (dump tracking for in-process hooks)
#   make demo       a real JVM dumps under the shim; restore, check, sizes
#   make check      every test (installs what it needs)
#   make bench      throughput, RSS and dump-time figures
#   make bench-big  the JVM's dump time in every mode on 6 GiB heaps, as ratios
#                   to the plain dump and the floor; the shim's memory
#   make bench-bystander  what a process that never dumps pays for the shim
#   make mutants    deliberate bugs, each of which a test must catch
#   make install    the tools, hprofstrip-run, the shim and the man pages
#                   under $(DESTDIR)$(PREFIX) (PREFIX=/usr/local); uninstall
#   make deb, make dist   the Debian packages; static release tarballs
#                   (tests/release/release.mk)
CC ?= cc
BUILD ?= build
CFLAGS ?= -O2 -g
WARN = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror
ALL_CFLAGS = $(WARN) $(CFLAGS)
# the product's files see 64-bit off_t and stat on 32-bit ABIs too (files
# past 2 GiB); the shim's wrappers.c and libc.c, which define and call the
# names with and without 64, undefine it
LFS = -D_FILE_OFFSET_BITS=64

# the engine, its files top to bottom (strip/engine/internal.h strip/engine/points.h)
ENGINE = strip/engine/rewrite.c strip/engine/engine.c strip/engine/histo.c strip/engine/android.c strip/engine/keep.c \
	strip/engine/bitmap.c strip/engine/claims.c strip/engine/names.c strip/engine/redact.c strip/engine/exempt.c strip/engine/salvage.c strip/engine/record.c strip/engine/hold.c strip/engine/sweep.c \
	strip/engine/segment.c strip/engine/emit.c strip/engine/format.c
# the I/O both front ends use (the shim and the tools): the output buffer,
# the names map, the compressors, the level words, the escaping
IO = strip/io/outbuf.c strip/io/namesmap.c strip/io/histotext.c strip/io/lineout.c
IO_HDRS = strip/io/outbuf.h strip/io/namesmap.h strip/io/histo.h strip/io/lineout.h strip/io/compressors.h \
	strip/io/levels.h strip/io/escape.h
CLI = strip/cli/cli.c strip/cli/args.c strip/cli/names.c strip/cli/out.c $(IO) \
	strip/cli/info.c strip/cli/keepset.c strip/cli/standaside.c strip/cli/decomp.c \
	strip/cli/input.c strip/cli/notes.c strip/cli/counts.c \
	strip/cli/histo.c strip/cli/histoload.c strip/cli/suspects.c $(ANALYZE)
# the leak analysis (hprofstrip --suspects), a reader of its own
ANALYZE = strip/analyze/big.c strip/analyze/load.c strip/analyze/objects.c \
	strip/analyze/graph.c strip/analyze/dom.c strip/analyze/findings.c \
	strip/analyze/report.c
ANALYZE_HDRS = strip/analyze/big.h strip/analyze/heap.h strip/analyze/load.h \
	strip/analyze/dom.h strip/analyze/report.h strip/analyze/suspects.h
HDRS = strip/engine/hprof.h strip/engine/format.h strip/engine/histo.h strip/engine/layers.h \
	strip/engine/internal.h strip/engine/points.h strip/cli/cli.h strip/cli/run.h strip/cli/args.h \
	strip/cli/names.h strip/cli/out.h strip/cli/info.h \
	strip/cli/keepset.h strip/cli/decomp.h strip/cli/histo.h $(IO_HDRS) \
	strip/cli/suspects.h $(ANALYZE_HDRS)
TOOLS = $(BUILD)/hprofstrip $(BUILD)/hprofrestore
SHIM = $(BUILD)/libhprofstrip.so
LAUNCHER = $(BUILD)/hprofstrip-run
TESTBIN = $(BUILD)/splitcheck $(BUILD)/oracle $(BUILD)/replay \
	$(BUILD)/libreenter.so $(BUILD)/policytest $(BUILD)/strcheck \
	$(BUILD)/redactcheck $(BUILD)/embedtest $(BUILD)/holdtest $(BUILD)/namerule \
	$(BUILD)/memtest $(BUILD)/libcrace $(BUILD)/domref $(BUILD)/sealtest \
	$(BUILD)/pendtest $(BUILD)/maptest
ARCHIVE = $(BUILD)/libhprofstrip.a

all: $(TOOLS) $(SHIM) $(LAUNCHER) $(ARCHIVE)

$(BUILD):
	mkdir -p $@

$(BUILD)/hprofstrip: strip/cli/hprofstrip.c $(ENGINE) $(CLI) $(HDRS) | $(BUILD)
	$(CC) $(ALL_CFLAGS) $(LFS) -o $@ strip/cli/hprofstrip.c $(ENGINE) $(CLI) $(LDFLAGS)

$(BUILD)/hprofrestore: restore/hprofrestore.c $(ENGINE) $(CLI) $(HDRS) | $(BUILD)
	$(CC) $(ALL_CFLAGS) $(LFS) -o $@ restore/hprofrestore.c $(ENGINE) $(CLI) $(LDFLAGS)

SHIM_SRC = preload/wrappers.c preload/libc.c preload/policy.c preload/say.c \
	preload/api.c preload/fdtable.c preload/opens.c preload/session.c \
	preload/feed.c preload/summary.c preload/tables.c preload/rawdump.c \
	preload/calls.c preload/pipe.c preload/refuse.c preload/histofile.c \
	preload/suspects.c preload/seal.c preload/inflate.c $(ENGINE) $(IO)
SHIM_HDRS = preload/libc.h preload/policy.h preload/say.h preload/seal.h \
	preload/inflate.h \
	preload/fdstate.h preload/fdtable.h preload/session.h preload/pipe.h preload/refuse.h \
	strip/engine/hprof.h strip/engine/format.h strip/engine/layers.h \
	strip/engine/internal.h strip/engine/points.h strip/engine/histo.h \
	$(IO_HDRS) preload/hprofstrip.h

# the hst_* API stays hidden in the shim (HPROFSTRIP_API empty): it
# exports the wrappers only
$(SHIM): $(SHIM_SRC) $(SHIM_HDRS) | $(BUILD)
	$(CC) $(ALL_CFLAGS) $(LFS) -fPIC -shared -fvisibility=hidden -pthread \
		-DHPROFSTRIP_API= -o $@ $(SHIM_SRC) -ldl $(LDFLAGS)

# the shim with a table of 1024 fds (HST_MAX_FD), so that a test reaches
# the fds past it under an fd limit below 65536 (bats/redact-closed.bats)
$(BUILD)/libhprofstrip-fd1k.so: $(SHIM_SRC) $(SHIM_HDRS) | $(BUILD)
	$(CC) $(ALL_CFLAGS) $(LFS) -fPIC -shared -fvisibility=hidden -pthread \
		-DHPROFSTRIP_API= -DHST_MAX_FD=1024 -o $@ $(SHIM_SRC) -ldl \
		$(LDFLAGS)

# Dump tracking without the wrappers, for an app's own hooks
# (preload/hprofstrip.h): one relocatable object whose only global
# definitions are the hst_* API; the engine's names are made local.
# Link with -pthread -ldl.
ARCHIVE_SRC = $(filter-out preload/wrappers.c,$(SHIM_SRC))
ARCHIVE_OBJ = $(patsubst %.c,$(BUILD)/archive/%.o,$(notdir $(ARCHIVE_SRC)))
OBJCOPY ?= objcopy

$(ARCHIVE): $(ARCHIVE_SRC) $(SHIM_HDRS) | $(BUILD)
	mkdir -p $(BUILD)/archive
	for s in $(ARCHIVE_SRC); do \
		o=$(BUILD)/archive/$$(basename $$s .c).o; \
		$(CC) $(ALL_CFLAGS) $(LFS) -fPIC -fvisibility=hidden -pthread \
			-c -o $$o $$s || exit 1; \
	done
	$(CC) -r -nostdlib -o $(BUILD)/archive/hprofstrip.o $(ARCHIVE_OBJ)
	$(OBJCOPY) --localize-hidden $(BUILD)/archive/hprofstrip.o
	rm -f $@
	$(AR) rcs $@ $(BUILD)/archive/hprofstrip.o

# the archive from C, as an app's PLT hook uses it: the hook example,
# driven by a stand-in for bytehook (bats/embed.bats)
$(BUILD)/embedtest: tests/embedtest.c examples/android/hook-example.c \
		preload/hprofstrip.h $(ARCHIVE) | $(BUILD)
	$(CC) $(ALL_CFLAGS) -Ipreload -pthread -o $@ tests/embedtest.c \
		$(ARCHIVE) -ldl $(LDFLAGS)

# sets LD_PRELOAD and the shim's variables, then execs a command; it looks
# for the shim in the Debian package's multiarch directory too (the
# compiler's triplet; none if it has none)
MULTIARCH = $(shell $(CC) -print-multiarch 2>/dev/null)
$(LAUNCHER): preload/hprofstrip-run.c preload/runlibc.c preload/runlibc.h \
		strip/engine/hprof.h strip/io/compressors.h strip/io/levels.h | $(BUILD)
	$(CC) $(ALL_CFLAGS) $(LFS) -DHS_MULTIARCH='"$(MULTIARCH)"' -o $@ \
		preload/hprofstrip-run.c preload/runlibc.c $(LDFLAGS)

# splitcheck's mode letters, from the table of modes
$(BUILD)/modes.h: tests/modes.tsv tests/modes.sh | $(BUILD)
	tests/modes.sh header >$@.tmp && mv $@.tmp $@

$(BUILD)/splitcheck: tests/splitcheck.c tests/cutrun.c tests/cutrun.h $(ENGINE) strip/io/histotext.c strip/io/lineout.c strip/io/histo.h \
		strip/engine/hprof.h strip/engine/internal.h strip/engine/points.h $(BUILD)/modes.h | $(BUILD)
	$(CC) $(ALL_CFLAGS) -I$(BUILD) -o $@ tests/splitcheck.c tests/cutrun.c $(ENGINE) \
		strip/io/histotext.c strip/io/lineout.c $(LDFLAGS)

# the engine's hold-back clamp, through the public API
$(BUILD)/holdtest: tests/holdtest.c tests/check.h tests/dumpbuf.h $(ENGINE) strip/engine/hprof.h \
		strip/engine/internal.h strip/engine/points.h | $(BUILD)
	$(CC) $(ALL_CFLAGS) -o $@ tests/holdtest.c $(ENGINE) $(LDFLAGS)

# a dump of any size, made as it is written (a 32-bit writer past 2 GiB)
$(BUILD)/bigdump: tests/bigdump.c | $(BUILD)
	$(CC) $(ALL_CFLAGS) -o $@ tests/bigdump.c $(LDFLAGS)

# keep-strings' pending table against a model
$(BUILD)/pendtest: tests/pendtest.c tests/check.h $(ENGINE) strip/engine/hprof.h \
		strip/engine/internal.h strip/engine/points.h | $(BUILD)
	$(CC) $(ALL_CFLAGS) -o $@ tests/pendtest.c $(ENGINE) $(LDFLAGS)

# the names map's reader (hprofrestore --unredact) against a model
$(BUILD)/maptest: tests/maptest.c tests/check.h strip/io/namesmap.c strip/io/outbuf.c \
		$(IO_HDRS) strip/engine/format.h | $(BUILD)
	$(CC) $(ALL_CFLAGS) -o $@ tests/maptest.c strip/io/namesmap.c strip/io/outbuf.c $(LDFLAGS)

# the layers' memory is the caller's; prints sizeof(struct hs_state)
$(BUILD)/memtest: tests/memtest.c tests/check.h tests/dumpbuf.h $(ENGINE) $(HDRS) | $(BUILD)
	$(CC) $(ALL_CFLAGS) -o $@ tests/memtest.c $(ENGINE) $(LDFLAGS)

# the test side's one HPROF walker (nothing from strip/)
WALK = tests/walk.c tests/walk.h

$(BUILD)/oracle: tests/oracle.c $(WALK) | $(BUILD)
	$(CC) $(ALL_CFLAGS) -o $@ tests/oracle.c tests/walk.c $(LDFLAGS)

# the test side's dominator tree (Cooper-Harvey-Kennedy), the judge of
# hprofstrip --suspects --dominator-tree
$(BUILD)/domref: tests/domref.c $(WALK) | $(BUILD)
	$(CC) $(ALL_CFLAGS) -o $@ tests/domref.c tests/walk.c $(LDFLAGS)

# kept String values of a stripped dump, by the test side's walker
$(BUILD)/strcheck: tests/strcheck.c $(WALK) | $(BUILD)
	$(CC) $(ALL_CFLAGS) -o $@ tests/strcheck.c tests/walk.c $(LDFLAGS)

# a values redaction against its original, by the test side's walker
$(BUILD)/redactcheck: tests/redactcheck.c $(WALK) | $(BUILD)
	$(CC) $(ALL_CFLAGS) -o $@ tests/redactcheck.c tests/walk.c $(LDFLAGS)

# the names level's rule over a table of texts, through the engine's API
$(BUILD)/namerule: tests/namerule.c $(ENGINE) $(HDRS) | $(BUILD)
	$(CC) $(ALL_CFLAGS) -o $@ tests/namerule.c $(ENGINE) $(LDFLAGS)

# the replay driver loads the stub of the runtime it replays
STUBS = $(BUILD)/stub/libjvm.so $(BUILD)/stub/libart.so

$(STUBS): tests/runtime-stub.c
	mkdir -p $(BUILD)/stub
	$(CC) $(ALL_CFLAGS) -fPIC -shared -o $@ tests/runtime-stub.c

$(BUILD)/replay: tests/replay.c tests/shimdrive.h $(WALK) $(STUBS) | $(BUILD)
	$(CC) $(ALL_CFLAGS) -pthread -o $@ tests/replay.c tests/walk.c -ldl \
		$(LDFLAGS)

# the shim's policy as plain C, without LD_PRELOAD
$(BUILD)/sealtest: tests/sealtest.c tests/check.h preload/seal.c preload/seal.h | $(BUILD)
	$(CC) $(ALL_CFLAGS) -o $@ tests/sealtest.c $(LDFLAGS)

$(BUILD)/policytest: tests/policytest.c tests/check.h preload/policy.c preload/policy.h \
		strip/io/compressors.h strip/io/levels.h | $(BUILD)
	$(CC) $(ALL_CFLAGS) -o $@ tests/policytest.c preload/policy.c \
		-ldl $(LDFLAGS)

# the libc layer's lookups as the shim is built (optimized, no sanitizer,
# which keeps stores the optimizer may drop; 64-bit off_t, as the shim's
# other files): tests/libcrace.c
$(BUILD)/libcrace: tests/libcrace.c preload/libc.c preload/libc.h | $(BUILD)
	$(CC) $(ALL_CFLAGS) $(LFS) -pthread -Ddlsym=libcrace_dlsym -o $@ \
		tests/libcrace.c preload/libc.c $(LDFLAGS)

# a preload below the shim that calls back into it (bats/dumps.bats)
$(BUILD)/libreenter.so: tests/reenter.c | $(BUILD)
	$(CC) $(ALL_CFLAGS) -fPIC -shared -fvisibility=hidden -o $@ tests/reenter.c

deps:
	tests/install-deps.sh

# Sanitized runs and short fuzzing first, so the Bats summary closes.
check: deps all $(TESTBIN) check-man
	$(MAKE) fuzz-short
	$(MAKE) check-sanitize
	$(MAKE) check-sanitize-c
	$(MAKE) check-ubsan-shim
	$(MAKE) check-tsan
	$(BUILD)/policytest
	$(BUILD)/sealtest
	$(BUILD)/libcrace
	$(BUILD)/holdtest
	$(BUILD)/pendtest
	$(BUILD)/maptest
	$(BUILD)/memtest
	$(BUILD)/namerule
	CC="$(CC)" tests/circles.sh
	tests/engine-modes.py
	BUILD=$(BUILD) tests/unit.sh
	BUILD=$(BUILD) tests/run-bats.sh $(filter-out bats/release.bats,$(wildcard bats/*.bats))

# the demo installs what it needs alone: a JDK and VisualVM's heap library
# (not the test toolchain: clang, the fuzzers, the cross compilers)
demo: deps-demo all
	BUILD=$(BUILD) examples/demo.sh

deps-demo:
	tests/install-deps.sh demo

bench: all $(BUILD)/strcheck
	BUILD=$(BUILD) tests/bench/bench.sh

# what a process that never dumps pays for the shim (bench's section 11
# alone; BENCH_BYSTANDER_RUNS, BENCH_BYSTANDER_DIR: see the script)
bench-bystander: all
	BUILD=$(BUILD) tests/bench/bystander.sh

# BENCH_BIG_MB, BENCH_BIG_RUNS, BENCH_BIG_KINDS, BENCH_BIG_GZ,
# BENCH_BIG_JUDGE_NODES, BENCH_DIR: see tests/bench/big.sh
bench-big: all
	BUILD=$(BUILD) tests/bench/big.sh

# deliberate one-line bugs, each run against the test files of its area
# (tests/mutants.py)
mutants: deps
	tests/mutants.py

clean:
	rm -rf $(BUILD)

# ---- install ----------------------------------------------------------------
# hprofstrip-run finds the shim at <its dir>/../lib/hprofstrip, so the bin
# and lib directories are PREFIX's, not set apart.
PREFIX ?= /usr/local
INSTALL ?= install
MAN1 = strip/cli/hprofstrip.1 restore/hprofrestore.1 preload/hprofstrip-run.1
MAN7 = preload/libhprofstrip.7
INSTALLED = $(addprefix $(PREFIX)/bin/,hprofstrip hprofrestore hprofstrip-run) \
	$(PREFIX)/lib/hprofstrip/libhprofstrip.so \
	$(PREFIX)/include/hprofstrip.h $(PREFIX)/lib/libhprofstrip.a \
	$(addprefix $(PREFIX)/share/man/man1/,$(notdir $(MAN1))) \
	$(addprefix $(PREFIX)/share/man/man7/,$(notdir $(MAN7)))

install: $(TOOLS) $(SHIM) $(LAUNCHER) $(ARCHIVE) $(MAN1) $(MAN7)
	$(INSTALL) -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/hprofstrip \
		$(DESTDIR)$(PREFIX)/include \
		$(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man7
	$(INSTALL) -m 755 $(TOOLS) $(LAUNCHER) $(DESTDIR)$(PREFIX)/bin/
	$(INSTALL) -m 644 $(SHIM) $(DESTDIR)$(PREFIX)/lib/hprofstrip/
	$(INSTALL) -m 644 $(ARCHIVE) $(DESTDIR)$(PREFIX)/lib/
	$(INSTALL) -m 644 preload/hprofstrip.h $(DESTDIR)$(PREFIX)/include/
	$(INSTALL) -m 644 $(MAN1) $(DESTDIR)$(PREFIX)/share/man/man1/
	$(INSTALL) -m 644 $(MAN7) $(DESTDIR)$(PREFIX)/share/man/man7/

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	[ ! -d $(DESTDIR)$(PREFIX)/lib/hprofstrip ] || \
		rmdir --ignore-fail-on-non-empty $(DESTDIR)$(PREFIX)/lib/hprofstrip

# Every man page formats without a warning (man-db and groff, from deps).
# MANPAGES=FILE checks other pages (bats/install.bats checks a bad one).
MANPAGES = $(MAN1) $(MAN7)
check-man: deps
	@fail=0; for p in $(MANPAGES); do \
		err=$$(LC_ALL=C.UTF-8 MANROFFSEQ= MANWIDTH=80 \
			man --warnings -E UTF-8 -l -Tutf8 -Z "$$p" 2>&1 >/dev/null) && \
			[ -z "$$err" ] || { echo "check-man: $$p:"; \
			printf '%s\n' "$$err"; fail=1; }; \
	done; [ $$fail = 0 ] && echo "check-man: $(words $(MANPAGES)) pages, no warnings"

# Fuzzing and sanitizer builds; musl and arm64 ports.
-include tests/fuzz/fuzz.mk
-include tests/ports.mk
-include tests/static.mk
-include tests/mutsample.mk
-include tests/coverage.mk
-include tests/release/release.mk

.PHONY: all deps deps-demo check demo bench bench-big bench-bystander mutants clean install uninstall check-man
