#!/usr/bin/env bats
# The streamed form (any non-seekable output, or --stream): the tools write
# heap records as segments whose lengths are known when they go out, so
# nothing is patched afterwards and a pipe needs no room in TMPDIR. Checked against the file form: VisualVM's class histogram
# and the oracle's flattened sub-record sequence.

load common

bats_require_minimum_version 1.5.0

setup_file() {
	# test drivers, not among make all's: built here (a suite run alone has them)
	build_tests oracle splitcheck
}

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
	same_heap "$T/file.hprof" "$T/pipe.hprof"
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

# two_heap_dumps IN OUT: the hprof agent's file of two heap dumps (its
# HEAP_DUMP_SEGMENT + HEAP_DUMP_END pairs) as the agent writes it
# unsegmented: JAVA PROFILE 1.0.1, each dump one HEAP_DUMP (0x0C) record
two_heap_dumps() {
	perl -e 'open F, "<", $ARGV[0] or die; binmode F; local $/; $d = <F>;
		$p = index($d, "\0") + 13; $o = substr($d, 0, $p);
		substr($o, 17, 1) = "1";
		while ($p < length $d) {
			($t, $l) = unpack("C x4 N", substr($d, $p, 9));
			if ($t == 0x1C) { $o .= "\x0C" . substr($d, $p + 1, 8 + $l) }
			elsif ($t != 0x2C) { $o .= substr($d, $p, 9 + $l) }
			$p += 9 + $l;
		}
		print $o' "$1" >"$2"
}

# records F: the top-level records in order, a run of the same kind as
# one: HEAP_DUMP 0C, HEAP_DUMP_SEGMENT 1C, HEAP_DUMP_END 2C (each shown),
# any other record R
records() {
	perl -e 'open F, "<", $ARGV[0] or die; binmode F; local $/; $d = <F>;
		$p = index($d, "\0") + 13; @s = ();
		while ($p < length $d) {
			($t, $l) = unpack("C x4 N", substr($d, $p, 9));
			$n = $t == 0x0C ? "0C" : $t == 0x1C ? "1C" : $t == 0x2C ? "2C" : "R";
			push @s, $n unless @s && $s[-1] eq $n && $n ne "2C";
			$p += 9 + $l;
		}
		print "@s\n"' "$1"
}

@test "a file of two HEAP_DUMPs, streamed: each dump's segments end with its own HEAP_DUMP_END; VisualVM reads what it reads of the file form" {
	two_heap_dumps "$CORPUS/hotspot/jdk6-hprof-agent-id4.hprof" "$T/two.hprof"
	[ "$(records "$T/two.hprof")" = "R 0C R 0C" ]
	run --separate-stderr bash -c 'set -o pipefail
		"$1" <"$2" | "$3" | cat >"$4"' _ "$STRIP" "$T/two.hprof" "$RESTORE" "$T/pipe.hprof"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(records "$T/pipe.hprof")" "R 1C 2C R 1C 2C"
	"$STRIP" -o "$T/s.hprof" "$T/two.hprof"
	"$RESTORE" -o "$T/file.hprof" "$T/s.hprof"
	assert_equal "$(records "$T/file.hprof")" "R 0C R 0C"
	same_heap "$T/file.hprof" "$T/pipe.hprof"
	# --stream into a file, --salvage cut inside the second dump: the
	# same, the second dump closed by --salvage's END
	"$STRIP" --stream -o "$T/st.hprof" "$T/two.hprof"
	assert_equal "$(records "$T/st.hprof")" "R 1C 2C R 1C 2C"
	head -c $(( $(size_of "$T/two.hprof") * 80 / 100 )) "$T/two.hprof" >"$T/cut.hprof"
	"$STRIP" --salvage --stream -q -o "$T/cut.s" "$T/cut.hprof"
	assert_equal "$(records "$T/cut.s")" "R 1C 2C R 1C 2C"
	# wherever the input is cut
	"$SPLIT" -S -p 64 -n 2 "$T/two.hprof"
	"$SPLIT" -S -V -c "$(size_of "$T/cut.hprof")" -p 64 -n 2 "$T/two.hprof"
	# a dump already in segments keeps its own ENDs, and no more
	"$STRIP" --stream -o "$T/agent.s" "$CORPUS/hotspot/jdk6-hprof-agent-id4.hprof"
	assert_equal "$(records "$T/agent.s")" "R 1C 2C R 1C 2C"
}
