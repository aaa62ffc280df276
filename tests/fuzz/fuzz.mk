# Fuzzing and sanitized test runs; included by the Makefile.
#
#   make fuzz-short      replay tests/fuzz/regressions/*, then fuzz every
#                        target FUZZ_SHORT_SECONDS (20) under ASan+UBSan
#   make fuzz            every target FUZZ_SECONDS (1800); make -j2 fuzz
#                        runs two at a time
#   make fuzz-TARGET     one target for FUZZ_SECONDS (engine, restore, info,
#                        suspects, diff)
#   make fuzz-regress    replay the regression inputs only
#   make fuzz-seeds      seeds cut from the corpus (HPROFSTRIP_CORPUS)
#   make fuzz-coverage   line/branch coverage of strip/ by each target's
#                        corpus (build/fuzz/coverage/TARGET.txt)
#   make check-sanitize  tools and test drivers built with ASan+UBSan in
#                        build/asan, then tests/unit.sh and the offline
#                        Bats suites (bats/offline.list)
#   make check-sanitize-c  the C unit tests under ASan, UBSan and clang's
#                        integer checks (build/isan)
#   make check-ubsan-shim  the shim's suites under UBSan (build/ubsan)
# The fuzz targets carry clang's integer checks too (FUZZ_CFLAGS).
#
# Fuzz binaries, seeds, corpora, artifacts and logs go to FUZZ_BUILD
# (build/fuzz); nothing is written into the shared corpus. A crash found
# is copied into tests/fuzz/regressions/TARGET/ (see tests/fuzz/run.sh)
# and replayed by every fuzz run from then on.

FUZZ_CC ?= clang
FUZZ_BUILD ?= build/fuzz
FUZZ_SECONDS ?= 1800
FUZZ_SHORT_SECONDS ?= 20
FUZZ_MAX_LEN ?= 131072
# diff: the old engine (OLD_REV, before issue 28's refactor) against the
# new, linked into one binary; it needs OLD_REV in the clone's history (a
# shallow clone skips it, saying so)
OLD_REV = f918e88
HAVE_OLD := $(shell git cat-file -e $(OLD_REV)^{commit} 2>/dev/null && echo yes)
# (the targets built from their fuzz_TARGET.c and FUZZ_SRC alone)
FUZZ_PLAIN_TARGETS = engine restore info suspects
FUZZ_TARGETS = $(FUZZ_PLAIN_TARGETS) $(if $(HAVE_OLD),diff)
FUZZ_SKIP = $(if $(HAVE_OLD),,echo "fuzz diff: skipped: commit $(OLD_REV) \
	(the old engine) is not in this clone (shallow?)";)
HPROFSTRIP_CORPUS ?= $(CURDIR)/../shared/corpus

FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -g -O1 \
	-fsanitize=fuzzer,address,undefined,integer \
	-fno-sanitize=unsigned-integer-overflow,unsigned-shift-base \
	-fno-sanitize-recover=all \
	-fno-omit-frame-pointer -DORACLE_LIB
FUZZ_SRC = tests/fuzz/common.c tests/cutrun.c tests/oracle.c tests/walk.c $(ENGINE)
FUZZ_DEPS = $(FUZZ_SRC) tests/fuzz/common.h tests/cutrun.h tests/fuzz/oracle.h \
	tests/walk.h strip/engine/hprof.h strip/engine/internal.h
FUZZ_BINS = $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)
FUZZ_SEEDS = $(FUZZ_BUILD)/seeds/.stamp
FUZZ_RUN = FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_MAX_LEN=$(FUZZ_MAX_LEN) tests/fuzz/run.sh

$(FUZZ_BUILD)/fuzz_engine: tests/fuzz/fuzz_engine.c $(FUZZ_DEPS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_engine.c $(FUZZ_SRC)

$(FUZZ_BUILD)/fuzz_restore: tests/fuzz/fuzz_restore.c $(FUZZ_DEPS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_restore.c $(FUZZ_SRC)

$(FUZZ_BUILD)/fuzz_info: tests/fuzz/fuzz_info.c strip/cli/info.c strip/cli/info.h $(FUZZ_DEPS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_info.c strip/cli/info.c \
		$(FUZZ_SRC)

# the leak analysis (strip/analyze/), its own reader: no engine run
$(FUZZ_BUILD)/fuzz_suspects: tests/fuzz/fuzz_suspects.c $(ANALYZE) $(ANALYZE_HDRS) \
		strip/io/lineout.c $(FUZZ_DEPS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_suspects.c $(ANALYZE) \
		strip/io/lineout.c $(FUZZ_SRC)

# The differential target's old side: the engine, cutrun.c and common.c
# of OLD_REV (git archive into FUZZ_BUILD/old) and diff_side.c, compiled
# against OLD_REV's headers; every global they define is renamed old_NAME
# in each object (objcopy, the names from nm), so that they link beside
# the new engine's (libc's and the sanitizers' undefined ones untouched).
DIFF_OLD = $(FUZZ_BUILD)/old
DIFF_OLD_SRC = strip/engine tests/cutrun.c tests/cutrun.h tests/fuzz/common.c \
	tests/fuzz/common.h

$(DIFF_OLD)/.stamp: tests/fuzz/diff_side.c tests/fuzz/diff.h
	rm -rf $(DIFF_OLD)
	mkdir -p $(DIFF_OLD)/obj $(DIFF_OLD)/renamed
	git archive $(OLD_REV) $(DIFF_OLD_SRC) | tar -x -C $(DIFF_OLD)
	cp tests/fuzz/diff_side.c tests/fuzz/diff.h $(DIFF_OLD)/tests/fuzz/
	for f in $(DIFF_OLD)/strip/engine/*.c $(DIFF_OLD)/tests/cutrun.c \
		$(DIFF_OLD)/tests/fuzz/common.c $(DIFF_OLD)/tests/fuzz/diff_side.c; do \
		$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $(DIFF_OLD)/obj/$$(basename $$f .c).o \
			$$f || exit 1; \
	done
	nm -g --defined-only $(DIFF_OLD)/obj/*.o | \
		awk 'NF == 3 { print $$3, "old_" $$3 }' | sort -u >$(DIFF_OLD)/syms
	for o in $(DIFF_OLD)/obj/*.o; do \
		objcopy --redefine-syms=$(DIFF_OLD)/syms $$o \
			$(DIFF_OLD)/renamed/$$(basename $$o) || exit 1; \
	done
	touch $@

$(FUZZ_BUILD)/fuzz_diff: tests/fuzz/fuzz_diff.c tests/fuzz/diff_side.c \
		tests/fuzz/diff.h $(DIFF_OLD)/.stamp $(FUZZ_DEPS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_diff.c \
		tests/fuzz/diff_side.c tests/fuzz/common.c tests/cutrun.c $(ENGINE) \
		$(DIFF_OLD)/renamed/*.o

$(FUZZ_BUILD)/mkseeds: tests/fuzz/mkseeds.c tests/oracle.c tests/fuzz/oracle.h $(WALK)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DORACLE_LIB -o $@ tests/fuzz/mkseeds.c tests/oracle.c \
		tests/walk.c $(LDFLAGS)

# (diff's seeds: engine's, and the layouts seeds mkseeds cuts for it)
$(FUZZ_SEEDS): $(FUZZ_BUILD)/mkseeds tests/fuzz/fuzz.mk
	@ls $(HPROFSTRIP_CORPUS)/art/*.hprof $(HPROFSTRIP_CORPUS)/hotspot/*.hprof >/dev/null || \
		{ echo "fuzz: no corpus in $(HPROFSTRIP_CORPUS) (set HPROFSTRIP_CORPUS)" >&2; exit 1; }
	rm -rf $(@D)
	mkdir -p $(FUZZ_PLAIN_TARGETS:%=$(@D)/%) $(@D)/diff
	$(FUZZ_BUILD)/mkseeds $(@D) $(HPROFSTRIP_CORPUS)/art/*.hprof $(HPROFSTRIP_CORPUS)/hotspot/*.hprof
	cp $(@D)/engine/* $(@D)/diff/
	cp $(@D)/engine/* $(@D)/suspects/
	touch $@

fuzz-build: $(FUZZ_BINS)
fuzz-seeds: $(FUZZ_SEEDS)

fuzz-regress: $(FUZZ_BINS)
	@$(FUZZ_SKIP) for t in $(FUZZ_TARGETS); do $(FUZZ_RUN) $$t 0 || exit 1; done

fuzz-short: $(FUZZ_BINS) $(FUZZ_SEEDS)
	@$(FUZZ_SKIP) for t in $(FUZZ_TARGETS); do $(FUZZ_RUN) $$t $(FUZZ_SHORT_SECONDS) || exit 1; done

fuzz: $(FUZZ_TARGETS:%=fuzz-%)

$(if $(HAVE_OLD),,fuzz-diff):
	@$(FUZZ_SKIP)

$(FUZZ_TARGETS:%=fuzz-%): fuzz-%: $(FUZZ_BUILD)/fuzz_% $(FUZZ_SEEDS)
	@$(FUZZ_RUN) $* $(FUZZ_SECONDS)

# Line and branch coverage of strip/ by each target's corpus and seeds
# (clang source-based coverage, no sanitizers): build/fuzz/coverage/.
FUZZ_COV = $(FUZZ_BUILD)/coverage
FUZZ_COV_CFLAGS = -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer \
	-fprofile-instr-generate -fcoverage-mapping -DORACLE_LIB
LLVM_PROFDATA ?= llvm-profdata
LLVM_COV ?= llvm-cov

fuzz-coverage: $(FUZZ_SEEDS)
	@mkdir -p $(FUZZ_COV)
	@for t in $(FUZZ_PLAIN_TARGETS); do \
		extra=; [ $$t = info ] && extra=strip/cli/info.c; \
		$(FUZZ_CC) $(FUZZ_COV_CFLAGS) -o $(FUZZ_COV)/fuzz_$$t \
			tests/fuzz/fuzz_$$t.c $$extra $(FUZZ_SRC) || exit 1; \
		mkdir -p $(FUZZ_BUILD)/corpus/$$t; \
		rm -f $(FUZZ_COV)/$$t.profraw; \
		LLVM_PROFILE_FILE=$(FUZZ_COV)/$$t.profraw $(FUZZ_COV)/fuzz_$$t -runs=0 \
			$(FUZZ_BUILD)/corpus/$$t $(FUZZ_BUILD)/seeds/$$t \
			$$(ls -d tests/fuzz/regressions/$$t 2>/dev/null) \
			>$(FUZZ_COV)/$$t.log 2>&1 || exit 1; \
		$(LLVM_PROFDATA) merge -o $(FUZZ_COV)/$$t.profdata $(FUZZ_COV)/$$t.profraw || exit 1; \
		echo "== $$t"; \
		$(LLVM_COV) report $(FUZZ_COV)/fuzz_$$t -instr-profile=$(FUZZ_COV)/$$t.profdata \
			$(ENGINE) $$extra | sed -n '1p;/\.c /p'; \
		$(LLVM_COV) show $(FUZZ_COV)/fuzz_$$t -instr-profile=$(FUZZ_COV)/$$t.profdata \
			$(ENGINE) $$extra >$(FUZZ_COV)/$$t.txt; \
	done
	@echo "== all targets"
	@$(LLVM_PROFDATA) merge -o $(FUZZ_COV)/all.profdata \
		$(FUZZ_PLAIN_TARGETS:%=$(FUZZ_COV)/%.profraw)
	@$(LLVM_COV) report $(FUZZ_COV)/fuzz_engine \
		$(FUZZ_PLAIN_TARGETS:%=-object $(FUZZ_COV)/fuzz_%) \
		-instr-profile=$(FUZZ_COV)/all.profdata $(ENGINE) strip/cli/info.c | \
		sed -n '1p;/\.c /p'
	@$(LLVM_COV) show $(FUZZ_COV)/fuzz_engine \
		$(FUZZ_PLAIN_TARGETS:%=-object $(FUZZ_COV)/fuzz_%) \
		-instr-profile=$(FUZZ_COV)/all.profdata $(ENGINE) strip/cli/info.c \
		>$(FUZZ_COV)/all.txt

# ---- sanitized tests ---------------------------------------------------------

ASAN_BUILD = build/asan
SAN_CFLAGS = -O2 -g -fsanitize=address,undefined,float-cast-overflow \
	-fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_LOG = $(CURDIR)/$(ASAN_BUILD)/sanitizer-logs
# unit.sh's split checks, scaled down: sanitized drivers are 4x slower
SAN_UNIT_PREFIX ?= 32
SAN_UNIT_ROUNDS ?= 2
# any report fails the command it happens in (exit 86 ASan/LSan, 87
# UBSan); ASan reports are also logged, so one in a command whose status a
# test ignores still fails the target (gcc's UBSan, linked with ASan,
# writes to stderr whatever log_path says)
SAN_ENV = ASAN_OPTIONS=halt_on_error=1:exitcode=86:detect_leaks=1:log_path=$(SAN_LOG)/asan \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=87:log_path=$(SAN_LOG)/ubsan \
	HPROFSTRIP_SANITIZED=1 BUILD=$(ASAN_BUILD)

check-sanitize: deps
	$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) CC=gcc \
		CFLAGS="$(SAN_CFLAGS)" LDFLAGS="-fsanitize=address,undefined" \
		$(ASAN_BUILD)/hprofstrip $(ASAN_BUILD)/hprofrestore \
		$(ASAN_BUILD)/splitcheck $(ASAN_BUILD)/oracle $(ASAN_BUILD)/replay \
		$(ASAN_BUILD)/strcheck $(ASAN_BUILD)/redactcheck
	rm -rf $(SAN_LOG)
	mkdir -p $(SAN_LOG)
	env $(SAN_ENV) UNIT_PREFIX=$(SAN_UNIT_PREFIX) UNIT_ROUNDS=$(SAN_UNIT_ROUNDS) tests/unit.sh
	s=$$(tests/bats-list offline) && env $(SAN_ENV) tests/run-bats.sh $$s
	@if ls $(SAN_LOG)/* >/dev/null 2>&1; then \
		cat $(SAN_LOG)/*; echo "check-sanitize: sanitizer reports above" >&2; exit 1; \
	fi
	@echo "check-sanitize: no sanitizer reports"

# The C unit tests under ASan and UBSan with clang's integer checks too
# (implicit conversions that change a value or its sign, signed overflow,
# division by zero), in build/isan; only unsigned wrap-around and shifts
# of unsigned values, which the hashes and the cipher do on purpose, are
# left out.
ISAN_BUILD = build/isan
ISAN_FLAGS = -fsanitize=address,undefined,integer \
	-fno-sanitize=unsigned-integer-overflow,unsigned-shift-base \
	-fno-sanitize-recover=all -fno-omit-frame-pointer
ISAN_TESTS = policytest sealtest pendtest maptest holdtest memtest namerule

check-sanitize-c: deps
	$(MAKE) --no-print-directory BUILD=$(ISAN_BUILD) CC=clang \
		CFLAGS="-O1 -g $(ISAN_FLAGS)" LDFLAGS="$(ISAN_FLAGS)" \
		$(ISAN_TESTS:%=$(ISAN_BUILD)/%)
	for t in $(ISAN_TESTS); do \
		ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		$(ISAN_BUILD)/$$t || exit 1; done

# The shim under UndefinedBehaviorSanitizer (float casts too; no ASan,
# whose runtime must come first in a process the shim is preloaded into):
# its Bats suites with the shim and the tools of build/ubsan. A report
# fails the command it happens in (exit 87) and is logged, so one in a
# command whose status a test ignores still fails the target.
UBSAN_BUILD = build/ubsan
UBSAN_CFLAGS = -O1 -g -fsanitize=undefined,float-cast-overflow \
	-fno-sanitize-recover=all -fno-omit-frame-pointer
UBSAN_LOG = $(CURDIR)/$(UBSAN_BUILD)/sanitizer-logs
UBSAN_SUITES = bats/shim-robust.bats bats/faults.bats bats/handover.bats \
	bats/redact-closed.bats bats/gzip-dumps.bats bats/shim-histo.bats

check-ubsan-shim: deps
	$(MAKE) --no-print-directory BUILD=$(UBSAN_BUILD) CC=gcc \
		CFLAGS="$(UBSAN_CFLAGS)" LDFLAGS="-fsanitize=undefined" all
	rm -rf $(UBSAN_LOG)
	mkdir -p $(UBSAN_LOG)
	env UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=87:log_path=$(UBSAN_LOG)/ubsan \
		BUILD=$(UBSAN_BUILD) tests/run-bats.sh $(UBSAN_SUITES)
	@if ls $(UBSAN_LOG)/* >/dev/null 2>&1; then \
		cat $(UBSAN_LOG)/*; echo "check-ubsan-shim: sanitizer reports above" >&2; exit 1; \
	fi
	@echo "check-ubsan-shim: no sanitizer reports"

.PHONY: fuzz fuzz-short fuzz-regress fuzz-build fuzz-seeds fuzz-coverage \
	check-sanitize check-ubsan-shim check-sanitize-c \
	$(FUZZ_TARGETS:%=fuzz-%) fuzz-diff

# clang and its sanitizer/fuzzer runtimes; GNU time for bats/hostile.bats
deps: deps-fuzz
deps-fuzz:
	tests/ports.sh deps clang libclang-rt-14-dev time

.PHONY: deps-fuzz

# ---- ThreadSanitizer -----------------------------------------------------------
#
#   make check-tsan  the shim and tests/shimrace.c built with
#                    -fsanitize=thread (clang) in build/tsan; shimrace runs
#                    under the shim plain, redacted and names-redacted, and
#                    any report fails it

TSAN_BUILD = build/tsan
TSAN_CC ?= clang
TSAN_CFLAGS = -O1 -g -fsanitize=thread -fno-omit-frame-pointer
TSAN_IN ?= $(HPROFSTRIP_CORPUS)/hotspot/jdk8-u05-x64.hprof
TSAN_ROUNDS ?= 4
# a report ends the run with 66; second_deadlock_stack for lock-order ones
TSAN_ENV = TSAN_OPTIONS=halt_on_error=1:exitcode=66:second_deadlock_stack=1

# the driver needs the shim first (symbols are looked up in it before
# libc, as with LD_PRELOAD), then libshimrace.so, whose constructor starts
# threads before the shim's constructor runs (the later of two needed
# libraries is initialized first)
$(TSAN_BUILD)/libshimrace.so: tests/shimrace.c tests/shimdrive.h
	@mkdir -p $(@D)
	$(TSAN_CC) $(WARN) $(TSAN_CFLAGS) -DSHIMRACE_LIB -fPIC -shared -pthread \
		-o $@ tests/shimrace.c

$(TSAN_BUILD)/shimrace: tests/shimrace.c tests/shimdrive.h $(TSAN_BUILD)/libshimrace.so \
		$(TSAN_BUILD)/libhprofstrip.so
	$(TSAN_CC) $(WARN) $(TSAN_CFLAGS) -pthread -o $@ tests/shimrace.c \
		-L$(TSAN_BUILD) -Wl,--no-as-needed -lhprofstrip -lshimrace \
		-Wl,-rpath,$(abspath $(TSAN_BUILD))

# the libc layer alone while one thread resolves and another calls
$(TSAN_BUILD)/libcrace: tests/libcrace.c preload/libc.c preload/libc.h
	@mkdir -p $(@D)
	$(TSAN_CC) $(WARN) $(TSAN_CFLAGS) -pthread -Ddlsym=libcrace_dlsym \
		-o $@ tests/libcrace.c preload/libc.c

# (the shim by the Makefile's own rule, in TSAN_BUILD)
check-tsan: $(BUILD)/hprofstrip
	$(MAKE) --no-print-directory BUILD=$(TSAN_BUILD) CC=$(TSAN_CC) \
		CFLAGS="$(TSAN_CFLAGS)" LDFLAGS= $(TSAN_BUILD)/libhprofstrip.so \
		$(TSAN_BUILD)/shimrace $(TSAN_BUILD)/libcrace
	TSAN_BUILD=$(TSAN_BUILD) STRIP=$(BUILD)/hprofstrip IN=$(TSAN_IN) \
		ROUNDS=$(TSAN_ROUNDS) $(TSAN_ENV) tests/tsan.sh

.PHONY: check-tsan
