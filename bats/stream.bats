#!/usr/bin/env bats
# The streamed form (any non-seekable output, or --stream): the tools write
# heap records as segments whose lengths are known when they go out, so
# nothing is patched afterwards and a pipe needs no room in TMPDIR. Checked against the file form: VisualVM's class histogram
# and the oracle's flattened sub-record sequence.

load common

bats_require_minimum_version 1.5.0

setup() {
	T=$BATS_TEST_TMPDIR
}

@test "strip < dump | restore | cat, with no TMPDIR, equals the file-mode restore" {
	local f
	f=$(jdk17_fixture)
	"$STRIP" -o "$T/s.hprof" "$f"
	"$RESTORE" -o "$T/file.hprof" "$T/s.hprof"
	# TMPDIR does not exist: not a byte could be put there
	run --separate-stderr bash -c 'set -o pipefail
		TMPDIR=$3 "$1" <"$2" | TMPDIR=$3 "$4" | cat >"$5"' _ \
		"$STRIP" "$f" "$T/none" "$RESTORE" "$T/pipe.hprof"
	assert_success
	assert_equal "$stderr" ""
	"$ORACLE" flat "$T/file.hprof" "$T/file.flat"
	"$ORACLE" flat "$T/pipe.hprof" "$T/pipe.flat"
	cmp "$T/file.flat" "$T/pipe.flat"
	"$JUDGE" histo "$T/file.hprof" >"$T/file.histo"
	"$JUDGE" histo "$T/pipe.hprof" >"$T/pipe.histo"
	diff "$T/file.histo" "$T/pipe.histo"
}

@test "--stream: a 1.0.1 dump becomes 1.0.2 with segments and a HEAP_DUMP_END; no patch, so also into a file" {
	local f=$CORPUS/hotspot/jdk6-client-id4-small.hprof
	"$STRIP" --stream -o "$T/s.hprof" "$f"
	run "$STRIP" --info "$T/s.hprof"
	assert_success
	assert_line --regexp '^format +JAVA PROFILE 1\.0\.2$'
	assert_line --regexp '^  HEAP_DUMP_SEGMENT +0x1C '
	assert_line --regexp '^  HEAP_DUMP_END +0x2C +1 +9$'
	refute_line --regexp '^  HEAP_DUMP +0x0C '
	"$STRIP" -o "$T/plain.hprof" "$f"
	"$ORACLE" flat "$T/plain.hprof" "$T/plain.flat"
	"$ORACLE" flat "$T/s.hprof" "$T/s.flat"
	cmp "$T/plain.flat" "$T/s.flat"
	# without --stream, a file is written exactly as before, also stdout
	"$STRIP" "$f" >"$T/stdout.hprof"
	cmp "$T/stdout.hprof" "$T/plain.hprof"
	[ "$("$STRIP" -o - "$f" | head -c 18)" = "JAVA PROFILE 1.0.2" ]
}

@test "--stream: bad input to a pipe exits 1 with the offset, and the stream ends cut, never whole" {
	local f
	f=$(jdk17_fixture)
	# cut near the end: megabytes of output have gone out by then
	head -c 12000000 "$f" >"$T/cut.hprof"
	run --separate-stderr bash -c 'set -o pipefail
		"$1" --stream "$2" | cat >"$3"' _ "$STRIP" "$T/cut.hprof" "$T/out"
	assert_failure 1
	assert_equal "$stderr" "hprofstrip: $T/cut.hprof: offset 12000000: stream ended inside a record (--salvage keeps what came before it)"
	[ "$(size_of "$T/out")" -gt 1000000 ] || fail "only $(size_of "$T/out") bytes went out"
	run "$STRIP" --info "$T/out"
	assert_failure 1
	assert_line --partial "malformed at offset"
}
