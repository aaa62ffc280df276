# Included by the Makefile: the product under two static analysers.
#
#   make check-static    check-cppcheck and check-scan-build; fails on any
#                        finding of either (installs cppcheck and
#                        clang-tools-14 when missing: tests/ports.sh deps)
#   make check-cppcheck  cppcheck over strip/, preload/ and restore/
#   make check-scan-build
#                        clang's analyzer (scan-build) over `make all`,
#                        built into build/scan with clang; the report, when
#                        there is one, under build/scan/report
#
# A false positive is suppressed where it is, with a comment saying why:
# /* cppcheck-suppress ID */ on the line before (--inline-suppr), and for
# scan-build a restructuring that makes the code clearer. No checker is
# suppressed as a whole.

CPPCHECK ?= cppcheck
SCAN_BUILD ?= scan-build-14
SCAN_CC ?= clang-14
STATIC_BUILD = $(BUILD)/scan

# cppcheck's checks:
# - warning, portability, performance: the classes that find bugs; style
#   is left out (mostly variableScope, funcArgNamesDifferent and
#   shadowFunction: taste, not bugs, some 80 of them), and so is
#   unusedFunction (the hst_* API and the test entry points are used
#   from outside what is checked)
# - --inconclusive: findings cppcheck is not sure of count too
# - --library=posix --library=gnu: what the C library's functions take
#   and return (leaks of fds and mmap, bad arguments); gnu because the
#   product is built with _GNU_SOURCE (and posix.cfg alone wants mmap's
#   fd >= 0, where MAP_ANONYMOUS takes -1)
# - the configuration the product is built in (-D: that one only);
#   preload/wrappers.c and preload/libc.c #undef _FILE_OFFSET_BITS
#   themselves. The system headers are not read (cppcheck knows the C
#   library through its --library files); the project's own are found by
#   their relative #include paths.
# - --error-exitcode=1: any finding fails, an internal error (code
#   cppcheck cannot parse) too
CPPCHECK_FLAGS = --enable=warning,portability,performance --inconclusive \
	--std=c11 --library=posix --library=gnu \
	-D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 \
	--inline-suppr --error-exitcode=1 --quiet \
	--template='{file}:{line}:{column}: {severity}: {id}: {message}'
CPPCHECK_DIRS = strip preload restore

check-static: check-cppcheck check-scan-build

deps-static:
	tests/ports.sh deps cppcheck clang-14 clang-tools-14

check-cppcheck: deps-static
	$(CPPCHECK) $(CPPCHECK_FLAGS) $(CPPCHECK_DIRS)
	@echo "check-cppcheck: no findings"

# From a clean tree, so that every file is compiled (analysed) again;
# --status-bugs: exit 1 when the analyzer reports anything; the build
# itself must pass too (clang, -Werror). The command is `make` as such:
# scan-build puts its CC= on the command line only of a command named
# make (not /usr/bin/make, which $(MAKE) may be); + passes the jobserver.
check-scan-build: deps-static
	rm -rf $(STATIC_BUILD)
	+$(SCAN_BUILD) --status-bugs --use-cc=$(SCAN_CC) -o $(STATIC_BUILD)/report \
		make -s BUILD=$(STATIC_BUILD) all
	@echo "check-scan-build: no findings"

.PHONY: check-static check-cppcheck check-scan-build deps-static
