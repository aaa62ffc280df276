# gcov line and branch coverage of the product; included by the Makefile.
#
#   make coverage   everything built with gcc --coverage -O0 into
#                   build/coverage; the C unit tests of make check,
#                   tests/unit.sh and the Bats suites COVERAGE_SUITES run
#                   against it (the shim's data too: a preloaded
#                   libhprofstrip.so writes its .gcda files into
#                   build/coverage at each process's exit, by absolute
#                   path); then gcovr: build/coverage/summary.txt (lines
#                   and branches per product file: every .c under strip/
#                   and preload/, restore/hprofrestore.c; totals of
#                   strip/ and preload/), build/coverage/uncovered-
#                   branches.txt (per file, the lines with a branch never
#                   taken), gcovr.json, gcovr.txt; the totals printed
#   make coverage-report   the report again from the data there
#
# The time each step took: build/coverage/times.txt. A failing test does
# not stop the run (build/coverage/failed.txt); the target fails after the
# report. The compiler is gcc through tests/coverage.sh cc, which compiles
# each source of a multi-source link to an object of its own (gcc would
# give strip/cli/names.c and strip/engine/names.c one .gcno).
# COVERAGE_SUITES: Bats files or directories (default: all of bats/).
# Be gentle on a shared machine: nice -n 10 make coverage.

COV_BUILD = build/coverage
# (HS_COVERAGE: hprofstrip-run writes its counters before it execs)
COV_CFLAGS = -O0 -g --coverage -DHS_COVERAGE
COV_LDFLAGS = --coverage
COV_CC = $(CURDIR)/tests/coverage.sh cc
COV_UNIT = policytest sealtest libcrace holdtest pendtest maptest memtest namerule
# every suite by default (over 35 minutes under coverage); a subset with
# COVERAGE_SUITES="bats/shim.bats bats/strip.bats ...". (A subset of the
# shim's and the engine's alone once left the leak analysis, the
# histogram loader and the launcher at 0%.)
COVERAGE_SUITES ?= bats/
# what the suites build for themselves (bats/common.bash build_tests),
# made beforehand with the coverage flags
COV_BINS = $(patsubst $(BUILD)/%,$(COV_BUILD)/%,$(TESTBIN) $(SHIM_EXTRA_BIN) \
	$(BUILD)/libhprofstrip-fd1k.so $(BUILD)/bigdump $(STUBS))

coverage: deps
	tests/ports.sh deps gcovr
	$(MAKE) --no-print-directory BUILD=$(COV_BUILD) CC="$(COV_CC)" \
		CFLAGS="$(COV_CFLAGS)" LDFLAGS="$(COV_LDFLAGS)" all $(COV_BINS)
	@rc=0; CC="$(COV_CC)" CFLAGS="$(COV_CFLAGS)" LDFLAGS="$(COV_LDFLAGS)" \
		tests/coverage.sh run $(COV_BUILD) "$(COV_UNIT)" $(COVERAGE_SUITES) || rc=$$?; \
		tests/coverage.sh report $(COV_BUILD) || exit 1; exit $$rc

coverage-report:
	tests/ports.sh deps gcovr
	@tests/coverage.sh report $(COV_BUILD)

.PHONY: coverage coverage-report
