#!/usr/bin/env bats
# Keeping String contents: hprofstrip --keep-strings and, under the shim,
# HPROFSTRIP_KEEP=strings keep the elements of the arrays that
# java.lang.String values point at, so that after hprofrestore VisualVM
# reads the Strings of the heap (thread names, map keys, a LeakCanary-like
# KeyedWeakReference's key, enum names, long URLs) as they were. The heap
# is StringHeap's (tests/java/StringHeap.java); HeapJudge strings reads the
# values back with VisualVM's heap library, and must print exactly what
# StringHeap expect prints. tests/strcheck.c checks a stripped dump against
# its original: only String arrays kept, each with its original elements.

load common

bats_require_minimum_version 1.5.0

TMO=${STRINGS_TIMEOUT:-120}
STRCHECK=$B/strcheck

# The shim's settings and preloads come from each test, never the caller:
# setup_file and setup call common.bash's clear_env (TEST_LD_PRELOAD would
# set LD_PRELOAD).

# What every test compares with: StringHeap's values, and one unstripped
# MXBean dump of its heap per collector, taken side by side.
setup_file() {
	clear_env
	# test drivers, not among make all's: built here (a suite run alone has them)
	build_tests oracle replay strcheck splitcheck
	"$JUDGE" build >&2
	local d=$BATS_FILE_TMPDIR gc p pids=()
	java -cp "$B/java" StringHeap expect >"$d/expect"
	[ -s "$d/expect" ]
	for gc in G1 Parallel Serial; do
		timeout "$TMO" java -Xmx64m -XX:+Use${gc}GC -cp "$B/java" \
			StringHeap mxbean "$d/$gc.hprof" >&2 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p"
	done
}

setup() {
	clear_env
	T=$BATS_TEST_TMPDIR
	E=$BATS_FILE_TMPDIR/expect
}

# orig GC: the unstripped MXBean dump taken under -XX:+Use<GC>GC
orig() {
	echo "$BATS_FILE_TMPDIR/$1.hprof"
}

# assert_strings DUMP: VisualVM reads StringHeap's values from DUMP, all
# of them, exactly (the diff is shown cut to 160 columns: the URLs are long)
assert_strings() {
	"$JUDGE" strings "$1" >"$T/got" || fail "HeapJudge cannot read $1"
	cmp -s "$E" "$T/got" ||
		fail "$1: other String values than StringHeap's:
$(diff "$E" "$T/got" | cut -c1-160 | head -40)"
}

# assert_restored_strings STRIPPED: the same, once STRIPPED is restored
assert_restored_strings() {
	"$RESTORE" -o "$T/restored.hprof" "$1"
	assert_strings "$T/restored.hprof"
	rm -f "$T/restored.hprof"
}

# assert_some_kept STRIPPED: a stripped dump that kept some arrays whole
# (0x23) and stripped others (0xC3), as the independent oracle counts them
assert_some_kept() {
	[ -s "$1" ] || fail "no dump at $1"
	run "$ORACLE" count "$1"
	assert_success
	assert_output --regexp '^p23 [1-9][0-9]* c3 [1-9][0-9]*$'
}

# assert_summary ERR FILE: the shim's summary line for FILE is in ERR
assert_summary() {
	grep -q "^hprofstrip: .*$(basename "$2"): " "$1" ||
		fail "no summary line for $2 in: $(cat "$1")"
}

need_strcheck() {
	[ -x "$STRCHECK" ] || fail "$STRCHECK is missing: make $BUILD/strcheck"
}

# nuls N: N escaped NUL chars, as the judge prints a zeroed String
nuls() {
	local i s=
	for ((i = 0; i < $1; i++)); do s+='\u0000'; done
	printf '%s' "$s"
}

@test "StringHeap expect: the documented values, the same on every run" {
	run --separate-stderr java -cp "$B/java" StringHeap expect
	assert_success
	assert_equal "$output" "$(cat "$E")"
	assert_equal "${#lines[@]}" 13
	assert_equal "$(printf '%s\n' "${lines[@]}" | cut -d' ' -f1 | uniq -c | tr -s ' ')" \
		"$(printf ' %s\n' '3 thread' '5 map-key' '1 ref-key' '1 ref-description' \
			'1 enum' '2 url')"
	assert_line --index 0 'thread hs-worker-alpha'
	assert_line --index 2 'thread hs-worker-\u03b3amma'
	assert_line --regexp '^map-key \\u4e2d\\u6587-key-1$'
	assert_line --regexp '^ref-key [0-9a-f]{8}-[0-9a-f]{4}-3[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
	assert_line 'enum STARTED'
	[ "${#lines[11]}" -eq $((4 + 2069)) ]
	[ "${#lines[12]}" -ge $((4 + 6000)) ]
	# the seed changes the UUID and the strings built at run time
	run --separate-stderr java -cp "$B/java" StringHeap expect seed=2
	assert_success
	refute_line "$(grep '^ref-key ' "$E")"
	assert_line 'map-key cart-2-items'
}

@test "the judge reads StringHeap's values from unstripped dumps (G1, Parallel, Serial)" {
	local gc
	for gc in G1 Parallel Serial; do
		assert_strings "$(orig $gc)"
	done
}

@test "plain hprofstrip + hprofrestore: every String reads as NULs" {
	"$STRIP" -o "$T/s.hprof" "$(orig G1)"
	"$RESTORE" -o "$T/r.hprof" "$T/s.hprof"
	"$JUDGE" strings "$T/r.hprof" >"$T/got"
	run cmp -s "$E" "$T/got"
	assert_failure
	# no thread is named "hs-..." any more
	run grep -c '^thread ' "$T/got"
	assert_output 0
	run cat "$T/got"
	assert_line "ref-key $(nuls 36)"
	assert_line "enum $(nuls 7)"
	assert_line "url $(nuls 2069)"
	# the UTF16 key: 9 chars in 18 bytes, all zero
	assert_line "map-key $(nuls 9)"
	[ "${#lines[@]}" -eq 10 ]
}

@test "hprofstrip --keep-strings + hprofrestore: every String survives" {
	run --separate-stderr "$STRIP" --keep-strings "$(orig G1)" -o "$T/k.hprof"
	assert_success
	assert_some_kept "$T/k.hprof"
	[ "$(size_of "$T/k.hprof")" -lt "$(size_of "$(orig G1)")" ]
	assert_restored_strings "$T/k.hprof"
}

@test "shim: HPROFSTRIP_KEEP=strings, HotSpotDiagnosticMXBean.dumpHeap" {
	HPROFSTRIP_KEEP=strings LD_PRELOAD=$SHIM timeout "$TMO" \
		java -cp "$B/java" StringHeap mxbean "$T/mx.hprof" 2>"$T/err"
	assert_summary "$T/err" "$T/mx.hprof"
	assert_some_kept "$T/mx.hprof"
	assert_restored_strings "$T/mx.hprof"
}

@test "shim: HPROFSTRIP_KEEP=strings, -XX:+HeapDumpOnOutOfMemoryError" {
	HPROFSTRIP_KEEP=strings LD_PRELOAD=$SHIM timeout "$TMO" java -Xmx64m \
		-XX:+HeapDumpOnOutOfMemoryError -XX:HeapDumpPath="$T/oom.hprof" \
		-XX:+DisplayVMOutputToStderr -cp "$B/java" StringHeap oom 2>"$T/err"
	assert_summary "$T/err" "$T/oom.hprof"
	assert_some_kept "$T/oom.hprof"
	assert_restored_strings "$T/oom.hprof"
}

@test "shim: HPROFSTRIP_KEEP=strings, jcmd GC.heap_dump" {
	start_jvm HPROFSTRIP_KEEP=strings LD_PRELOAD="$SHIM" StringHeap
	run timeout "$TMO" jcmd "$JVM" GC.heap_dump "$T/jcmd.hprof"
	stop_jvm
	assert_output --partial "Heap dump file created"
	assert_summary "$JVM_ERR" "$T/jcmd.hprof"
	assert_some_kept "$T/jcmd.hprof"
	assert_restored_strings "$T/jcmd.hprof"
}

# per_gc GC: under -XX:+Use<GC>GC, one heap dumped unstripped: a plain
# strip of it keeps no String (strcheck passes, but fails --min 1); it is
# stripped with --keep-strings from a file (strcheck --min 100) and
# streamed from a pipe in one pass (strcheck --min 90); and a dump under
# the shim with HPROFSTRIP_KEEP=strings (a different heap, so no
# strcheck) restores to StringHeap's values, as the file and the pipe
# results do.
per_gc() {
	local gc=$1 o
	o=$(orig "$gc")
	need_strcheck

	"$STRIP" -o "$T/plain.hprof" "$o"
	run --separate-stderr "$STRCHECK" "$o" "$T/plain.hprof"
	[ "$status" -eq 0 ] || fail "$gc, plain strip: $output $stderr"
	run --separate-stderr "$STRCHECK" --min 1 "$o" "$T/plain.hprof"
	assert_failure 1

	run --separate-stderr "$STRIP" --keep-strings "$o" -o "$T/file.hprof"
	assert_success
	run --separate-stderr "$STRCHECK" --min 100 "$o" "$T/file.hprof"
	[ "$status" -eq 0 ] || fail "$gc, from a file: $output $stderr"
	assert_restored_strings "$T/file.hprof"

	cat "$o" | "$STRIP" --keep-strings >"$T/pipe.hprof"
	run --separate-stderr "$STRCHECK" --min 90 "$o" "$T/pipe.hprof"
	[ "$status" -eq 0 ] || fail "$gc, from a pipe: $output $stderr"
	assert_restored_strings "$T/pipe.hprof"

	HPROFSTRIP_KEEP=strings LD_PRELOAD=$SHIM timeout "$TMO" java -Xmx64m \
		-XX:+Use${gc}GC -cp "$B/java" StringHeap mxbean "$T/shim.hprof" 2>"$T/err"
	assert_summary "$T/err" "$T/shim.hprof"
	assert_some_kept "$T/shim.hprof"
	assert_restored_strings "$T/shim.hprof"
}

@test "G1: --keep-strings from a file, from a pipe, and under the shim (strcheck)" {
	per_gc G1
}

@test "Parallel GC: --keep-strings from a file, from a pipe, and under the shim (strcheck)" {
	per_gc Parallel
}

@test "Serial GC: --keep-strings from a file, from a pipe, and under the shim (strcheck)" {
	per_gc Serial
}

@test "replay: every runtime's write pattern with HPROFSTRIP_KEEP=strings gives exactly the streamed hprofstrip --keep-strings (JDK 22 and 25's segment files too, 1 to 8 dumpers)" {
	local f mode out
	for f in $(corpus_files); do
		# the shim streams: its result is that of a pipe, not a file's
		cat "$f" | "$STRIP" --keep-strings >"$T/want"
		for mode in random threads jdk8 art artcloexec pwrite writev jdk22 jdk25; do
			out=$T/$mode.hprof
			rm -f "$out"
			HPROFSTRIP_KEEP=strings HPROFSTRIP_QUIET=1 LD_PRELOAD=$SHIM \
				timeout 60 "$REPLAY" "$mode" "$f" "$out" 7 ||
				fail "$mode: replay failed on $f"
			cmp_dump "$out" "$T/want" || fail "$mode: $f"
		done
		# JDK 25: a serial dump (jcmd's -parallel=1), 4 and 8 dumpers,
		# the class dumps of .p0 written after the others' first segments
		for n in 1 4 8; do
			out=$T/jdk25.$n.hprof
			rm -f "$out"
			REPLAY_DUMPERS=$n HPROFSTRIP_KEEP=strings HPROFSTRIP_QUIET=1 \
				LD_PRELOAD=$SHIM timeout 60 "$REPLAY" jdk25 "$f" "$out" 3 ||
				fail "jdk25, $n dumpers: replay failed on $f"
			cmp_dump "$out" "$T/want" || fail "jdk25, $n dumpers: $f"
		done
	done
}

@test "--keep-strings: sizes are exact, --info tells kept from stripped, hprofrestore refills only the stripped" {
	local o k kept stripped
	o=$(orig Serial)
	"$STRIP" --keep-strings -o "$T/k.hprof" "$o"
	run "$STRIP" --info --json "$T/k.hprof"
	assert_success
	kept=$(sed -n 's/^  "kept_arrays": {"count": \([0-9]*\), "bytes": \([0-9]*\).*/\1 \2/p' <<<"$output")
	stripped=$(sed -n 's/^  "stripped_arrays": {"count": [0-9]*, "bytes": \([0-9]*\).*/\1/p' <<<"$output")
	[ -n "$kept" ] && [ -n "$stripped" ] || fail "no kept_arrays/stripped_arrays in: $output"
	[ "${kept%% *}" -gt 0 ] || fail "nothing kept: $kept"
	# stripped size = original - the element bytes of the stripped arrays
	[ "$(size_of "$T/k.hprof")" -eq $(( $(size_of "$o") - stripped )) ] ||
		fail "size $(size_of "$T/k.hprof"), want $(size_of "$o") - $stripped"
	run "$STRIP" --info "$T/k.hprof"
	assert_line --regexp '^kept arrays \(0x23, stripped dump\) +count +element bytes$'
	# an unstripped dump has kept nothing
	run "$STRIP" --info --json "$o"
	assert_line --partial '"kept_arrays": {"count": 0, "bytes": 0,'
	# restore refills the 0xC3 arrays only: the original's size, and the
	# kept arrays' elements are the original's (the oracle zeroes them)
	"$RESTORE" -o "$T/r.hprof" "$T/k.hprof"
	[ "$(size_of "$T/r.hprof")" -eq "$(size_of "$o")" ]
	run "$STRCHECK" --min 100 "$o" "$T/k.hprof"
	assert_success
}

@test "--keep-strings keeps every thread's name, Thread subclasses' too (JDK 6 and 8: char[] names, counted by strcheck)" {
	local f t want
	need_strcheck
	# strcheck's own parser finds the name arrays of every Thread
	# instance, subclasses included (T); each must be kept whole. The
	# JDK 8 dump has 10 threads, 2 of them of a subclass of Thread
	for f in $(corpus_files); do
		"$STRIP" --keep-strings -o "$T/k.hprof" "$f"
		run -0 "$STRCHECK" "$f" "$T/k.hprof"
		t=$(sed -n 's/.*thread-name arrays \([0-9]*\) kept \([0-9]*\),.*/\1 \2/p' <<<"$output")
		[ -n "$t" ] || fail "$f: $output"
		[ "${t% *}" = "${t#* }" ] || fail "$(basename "$f"): thread names kept: ${t#* } of ${t% *}"
		case $(basename "$f") in
		jdk8-u05-x64.hprof) want=10 ;;
		jdk6-x32-id4.hprof) want=16 ;;
		jdk6-hprof-agent-id4.hprof) want=8 ;;
		jdk6-client-id4-small.hprof) want=7 ;;
		*) want=0 ;;  # JDK 9+ and Android: names are Strings
		esac
		[ "${t% *}" = "$want" ] || fail "$(basename "$f"): $t thread names, not $want"
	done
	# streamed in one pass, and under the shim, the JDK 8 dump's too
	f=$CORPUS/hotspot/jdk8-u05-x64.hprof
	cat "$f" | "$STRIP" --keep-strings >"$T/p.hprof"
	run -0 "$STRCHECK" "$f" "$T/p.hprof"
	assert_output --partial 'thread-name arrays 10 kept 10,'
	HPROFSTRIP_KEEP=strings HPROFSTRIP_QUIET=1 LD_PRELOAD=$SHIM "$REPLAY" jdk8 "$f" "$T/s.hprof"
	run -0 "$STRCHECK" "$f" "$T/s.hprof"
	assert_output --partial 'thread-name arrays 10 kept 10,'
}

@test "shim: HPROFSTRIP_KEEP with a word it does not know says so once and strips as usual" {
	local f=$CORPUS/hotspot/jdk8-u05-x64.hprof
	"$STRIP" -o "$T/want" "$f"
	HPROFSTRIP_KEEP=string LD_PRELOAD=$SHIM "$REPLAY" random "$f" "$T/x.hprof" 2>"$T/err"
	cmp_dump "$T/x.hprof" "$T/want"
	[ "$(grep -c "HPROFSTRIP_KEEP: 'string' is not known" "$T/err")" -eq 1 ] ||
		fail "$(cat "$T/err")"
}

@test "--keep-strings on stdin that is a file: exact, from where stdin stands" {
	local f=$CORPUS/hotspot/jdk8-u05-x64.hprof
	"$STRIP" --keep-strings -o "$T/want" "$f"
	"$STRIP" --keep-strings <"$f" >"$T/stdin.hprof"
	cmp "$T/stdin.hprof" "$T/want"
	# 5 bytes of something else first, read off by dd: the dump starts
	# where stdin stands, not at offset 0
	{ printf 'junk!'; cat "$f"; } >"$T/junk"
	{ dd bs=5 count=1 of=/dev/null 2>/dev/null; "$STRIP" --keep-strings >"$T/after.hprof"; } <"$T/junk"
	cmp "$T/after.hprof" "$T/want"
}

# assert_long_strings DUMP MIN: HeapJudge reads LongStrings' Strings from
# DUMP (see tests/java/LongStrings.java), and at least MIN% of each kind
# whole: 20,000 and 65,536 chars, made by StringBuilder.toString() (the
# String before its value) and by + (the value before its String)
assert_long_strings() {
	local kind len whole total
	"$JUDGE" long-strings "$1" >"$T/long" || fail "HeapJudge cannot read $1"
	[ "$(cut -d' ' -f1,2,4 "$T/long")" = "$(java -cp "$B/java" LongStrings expect | cut -d' ' -f1,2,4)" ] ||
		fail "$1: other Strings than LongStrings': $(cat "$T/long")"
	while read -r kind len whole total; do
		[ $((100 * whole)) -ge $(($2 * total)) ] ||
			fail "$1: $kind ($len chars): $whole of $total whole, under $2%: $(cat "$T/long")"
	done <"$T/long"
}

@test "LongStrings, G1: --keep-strings from a file keeps every long String (20 KB, 64 KiB, by StringBuilder and by +)" {
	need_strcheck
	timeout "$TMO" java -Xmx512m -cp "$B/java" LongStrings mxbean "$T/g1.hprof" >&2
	"$STRIP" --keep-strings -o "$T/k.hprof" "$T/g1.hprof"
	run --separate-stderr "$STRCHECK" --min 100 "$T/g1.hprof" "$T/k.hprof"
	[ "$status" -eq 0 ] || fail "$output $stderr"
	rm -f "$T/g1.hprof"
	"$RESTORE" -o "$T/r.hprof" "$T/k.hprof"
	assert_long_strings "$T/r.hprof" 100
}

# Under the shim (one pass), a String's value is kept when it comes after
# the String (the pending table) or right before it, with up to 256 KiB of
# elements (the hold-back), also when a segment ends between the two (as
# HotSpot ends one after a large array). StringBuilder.toString() makes the
# String first; + (StringConcatFactory) fills the value first. So that no
# collection moves them apart before the dump, the heap is built in a young
# generation that holds it all, by the interpreter and C1 (C2's code may
# allocate the String first), and Serial GC's full collection before the
# dump keeps the order. Under G1 a collection or a new region puts a fifth
# or more of such values megabytes before their String, where no fixed
# memory reaches (strip/limits.md): strip such a dump from a file.
@test "shim: HPROFSTRIP_KEEP=strings keeps long Strings written beside their value: at least 99% of 20 KB and 64 KiB ones, by StringBuilder and by + (LongStrings)" {
	HPROFSTRIP_KEEP=strings LD_PRELOAD=$SHIM timeout "$TMO" java -Xmx1g -Xmn768m \
		-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp "$B/java" LongStrings mxbean \
		"$T/ls.hprof" 2>"$T/err"
	assert_summary "$T/err" "$T/ls.hprof"
	assert_some_kept "$T/ls.hprof"
	"$RESTORE" -o "$T/r.hprof" "$T/ls.hprof"
	rm -f "$T/ls.hprof"
	assert_long_strings "$T/r.hprof" 99
}

@test "--keep-strings streamed: an array that ends a heap segment is kept when the String that starts the next claims it (tests/split-after-arrays)" {
	local o n0 n1
	o=$(orig G1)
	need_strcheck
	"$ROOT/tests/split-after-arrays" "$o" "$T/cut.hprof"
	# many more segments, the same sub-records
	n0=$("$STRIP" --info "$o" | awk '$1 == "HEAP_DUMP_SEGMENT" { print $3 }')
	n1=$("$STRIP" --info "$T/cut.hprof" | awk '$1 == "HEAP_DUMP_SEGMENT" { print $3 }')
	[ "$n1" -gt $((n0 + 1000)) ] || fail "segments: $n0, cut: $n1"
	"$ORACLE" flat "$o" "$T/o.flat"
	"$ORACLE" flat "$T/cut.hprof" "$T/c.flat"
	cmp "$T/o.flat" "$T/c.flat"
	# the same arrays kept, however the heap is cut into segments
	cat "$o" | "$STRIP" --keep-strings >"$T/a.hprof"
	cat "$T/cut.hprof" | "$STRIP" --keep-strings >"$T/b.hprof"
	"$ORACLE" flat "$T/a.hprof" "$T/a.flat"
	"$ORACLE" flat "$T/b.hprof" "$T/b.flat"
	cmp "$T/a.flat" "$T/b.flat"
	run --separate-stderr "$STRCHECK" --min 99 "$T/cut.hprof" "$T/b.hprof"
	[ "$status" -eq 0 ] || fail "$output $stderr"
	assert_restored_strings "$T/b.hprof"
	# whatever the cuts of the input, streamed or not, with JDK 8
	# placeholder lengths too
	run "$SPLIT" -k -p 64 -n 3 "$T/cut.hprof"
	assert_success
	run "$SPLIT" -k -S -p 64 -n 3 "$T/cut.hprof"
	assert_success
	run "$SPLIT" -k -O -p 64 -n 3 "$T/cut.hprof"
	assert_success
	run "$SPLIT" -k -S -O -p 64 -n 3 "$T/cut.hprof"
	assert_success
}
