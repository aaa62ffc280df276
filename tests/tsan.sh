#!/usr/bin/env bash
# make check-tsan: tests/shimrace.c and the shim, both built with
# ThreadSanitizer (TSAN_BUILD), the shim linked in as the driver's first
# library (it comes first in symbol lookup, as LD_PRELOAD would put it,
# and the sanitizer's symbolizer, a child, gets no preload it cannot
# load). Plain, with HPROFSTRIP_REDACT=values and =names; first in a
# process that strips nothing, where every dump must come out as IN, so
# the driver checks itself. TSAN_OPTIONS (from the Makefile) make a
# report end the run with status 66: any report fails the target.
#
#   TSAN_BUILD=DIR STRIP=hprofstrip IN=dump.hprof ROUNDS=N tests/tsan.sh
. "$(dirname "$0")/lib.sh"

: "${TSAN_BUILD:?}" "${STRIP:?}" "${IN:?}" "${ROUNDS:=4}"
race=$(cd "$TSAN_BUILD" && pwd)/shimrace
IN=$(cd "$(dirname "$IN")" && pwd)/$(basename "$IN")
key=00112233445566778899aabbccddeeff
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
fail=0


# run NAME EXP [VAR=VALUE...]: shimrace in a fresh directory
run() {
	name=$1 exp=$2
	shift 2
	rm -rf "$t/d" && mkdir "$t/d" || exit 1
	# (from inside DIR: a names map goes beside the dump's path as
	# opened, which is relative for openat)
	if (cd "$t/d" && exec env "$@" SHIMRACE_IN="$IN" SHIMRACE_DIR="$t/d" \
		"$race" "$IN" "$exp" "$t/d" "$ROUNDS") >"$t/out" 2>&1; then
		echo "ok: shimrace, $name"
		sed 's/^/    /' "$t/out" | grep 'signal:'
	else
		echo "FAILED (status $?): shimrace, $name"
		sed 's/^/    /' "$t/out"
		fail=1
	fi
}

"$STRIP" -q -o "$t/plain.hprof" "$IN" &&
	"$STRIP" -q --redact=values -o "$t/values.hprof" "$IN" &&
	HPROFSTRIP_NAMES_KEY=$key "$STRIP" -q --redact=names \
		-o "$t/names.hprof" "$IN" || exit 1

# the libc layer: a call while another thread resolves
if env TSAN_OPTIONS="$TSAN_OPTIONS" "$TSAN_BUILD/libcrace" >"$t/out" 2>&1; then
	echo "ok: libcrace"
else
	echo "FAILED (status $?): libcrace"
	sed 's/^/    /' "$t/out"
	fail=1
fi

# a process the shim leaves alone: every dump comes out as IN
run "a process that strips nothing" "$IN" SHIMRACE_SEGMENTS_EXACT=1
shimenv="HPROFSTRIP_PROGRAMS=shimrace HPROFSTRIP_QUIET=1"
# shellcheck disable=SC2086
run "under the shim" "$t/plain.hprof" $shimenv SHIMRACE_SEGMENTS_EXACT=1 \
	SHIMRACE_NEED_REFUSED=1
# shellcheck disable=SC2086
run "under the shim, HPROFSTRIP_REDACT=values" "$t/values.hprof" $shimenv \
	HPROFSTRIP_REDACT=values SHIMRACE_NEED_REFUSED=1
# shellcheck disable=SC2086
run "under the shim, HPROFSTRIP_REDACT=names" "$t/names.hprof" $shimenv \
	HPROFSTRIP_REDACT=names HPROFSTRIP_NAMES_KEY=$key SHIMRACE_NEED_REFUSED=1
exit $fail
