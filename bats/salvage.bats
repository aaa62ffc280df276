#!/usr/bin/env bats
# --salvage: a dump cut short (a killed JVM, a full disk) keeps what came
# whole before the cut, and a viewer opens it. Judges: VisualVM's heap
# library (tests/java/HeapJudge, total-instances), against the independent
# count of tests/oracle.c (`oracle objects FULL CUT`: the instance and array
# dumps that end before the cut and whose class a viewer knows).

load common

bats_require_minimum_version 1.5.0

setup_file() {
	# test drivers, not among make all's: built here (a suite run alone has them)
	build_tests oracle
	"$JUDGE" build >&2
}

setup() {
	T=$BATS_TEST_TMPDIR
}

# cuts FULL: 10 or 11 points: inside the file header, the first record
# header, the first heap record header, right after the first object
# dump, the first class dump's fields, the first instance header, the
# first array's elements (when it has one), and 30%, 60%, 85% and the last
# byte but one of the file
cuts() {
	local size
	size=$(size_of "$1")
	"$ORACLE" offsets "$1" | awk '$2 > 0 { print $2 }'
	echo $((size * 30 / 100)) $((size * 60 / 100)) $((size * 85 / 100)) $((size - 1)) |
		tr ' ' '\n'
}

# salvaged TOOL FULL CUT N [ARGS]: TOOL --salvage of the first CUT bytes of
# FULL, checked: before the heap an error naming the offset; else exit 0
# and one line saying what was dropped and kept. The output is $T/out.N,
# and "$T/out.N objects K" (the oracle's count for that prefix) goes to
# $T/want, for judge
salvaged() {
	local tool=$1 full=$2 cut=$3 n=$4 heap kept
	shift 4
	head -c "$cut" "$full" >"$T/cut"
	run --separate-stderr "$tool" --salvage "$@" -o "$T/out.$n" "$T/cut"
	# before the first whole object: nothing a viewer can open
	heap=$("$ORACLE" offsets "$full" | sed -n 's/^first-object-end //p')
	if [ "$cut" -lt "$heap" ]; then
		[ "$status" -eq 1 ] || fail "cut $cut before the heap ($heap): status $status"
		grep -Eq "offset $cut: (stream ended inside the file header|--salvage: the dump was cut before its first object)" <<<"$stderr" ||
			fail "cut $cut: $stderr"
		[ ! -e "$T/out.$n" ] || fail "cut $cut: output left"
		return 0
	fi
	[ "$status" -eq 0 ] || fail "$(basename "$full") cut at $cut: status $status: $stderr"
	[ "$(grep -c . <<<"$stderr")" = 1 ] || fail "cut $cut: $stderr"
	kept=$(sed -n "s/^$(basename "$tool"): .*: salvaged a dump cut at offset $cut: dropped [0-9]* bytes from offset [0-9]* (.*), kept \([0-9]*\) objects\$/\1/p" <<<"$stderr")
	[ -n "$kept" ] || fail "cut $cut: $stderr"
	echo "$T/out.$n $("$ORACLE" objects "$full" "$cut") ($(basename "$full") cut at $cut)" >>"$T/want"
}

# judge: VisualVM reads every $T/out.N listed in $T/want and counts
# exactly the objects the oracle counts (one JVM per file: in one JVM the
# library's caches for dumps with the same timestamp mix them up)
judge() {
	local f want got
	[ -s "$T/want" ] || fail "nothing to judge"
	while read -r f _ want _; do
		got=$("$JUDGE" histo "$f" | sed -n 's/^total-instances \([0-9]*\) .*/\1/p')
		[ "$got" = "$want" ] || fail "$(grep "^$f " "$T/want"): VisualVM: '$got'"
	done <"$T/want"
}

@test "hprofrestore --salvage of every corpus dump's stripped prefix, cut at 10 points: VisualVM opens it with every object the oracle counts" {
	n=0
	for f in $(corpus_files); do
		"$STRIP" -o "$T/s.$n" "$f"
		jvm=()
		case $f in */art/*) jvm=(--jvm) ;; esac
		s=$T/s.$n
		for cut in $(cuts "$s"); do
			n=$((n + 1))
			salvaged "$RESTORE" "$s" "$cut" $n "${jvm[@]}"
		done
	done
	judge
}

@test "hprofstrip --salvage of every corpus dump's plain prefix, cut at 10 points: restored, VisualVM opens it with every object the oracle counts" {
	n=0
	for f in $(corpus_files); do
		jvm=()
		case $f in */art/*) jvm=(--jvm) ;; esac
		for cut in $(cuts "$f"); do
			n=$((n + 1))
			salvaged "$STRIP" "$f" "$cut" $n
			if [ -e "$T/out.$n" ]; then
				"$RESTORE" "${jvm[@]}" -o "$T/r.$n" "$T/out.$n"
				mv "$T/r.$n" "$T/out.$n"
			fi
		done
	done
	judge
}

@test "without --salvage nothing changes, and the message suggests it; --info --salvage says what would be kept" {
	f=$CORPUS/hotspot/jdk8-u05-x64.hprof
	head -c 1500000 "$f" >"$T/cut"
	run --separate-stderr "$STRIP" -o "$T/o" "$T/cut"
	assert_failure 1
	assert_equal "$stderr" "hprofstrip: $T/cut: offset 1500000: stream ended inside a record (--salvage keeps what came before it)"
	[ ! -e "$T/o" ]
	run "$STRIP" --info "$T/cut"
	assert_failure 1
	assert_line "malformed at offset 1500000: stream ended inside a record"
	run --separate-stderr "$STRIP" --info --salvage "$T/cut"
	assert_success
	assert_line --regexp '^well-formed after --salvage: cut at offset 1500000, [0-9]+ bytes from offset [0-9]+ dropped, [0-9]+ objects kept$'
	kept=$(sed -n 's/.* \([0-9]*\) objects kept$/\1/p' <<<"$output")
	"$STRIP" --salvage -q -o "$T/s" "$T/cut"
	run --separate-stderr "$STRIP" --salvage -o "$T/s" "$T/cut"
	grep -q ", kept $kept objects\$" <<<"$stderr" || fail "$stderr"
	run "$STRIP" --info --json --salvage "$T/cut"
	assert_success
	assert_output --partial "\"salvaged\": {\"cut_offset\": 1500000, "
	# a complete dump: --salvage changes nothing and says nothing
	"$STRIP" -o "$T/a" "$f"
	run --separate-stderr "$STRIP" --salvage -o "$T/b" "$f"
	assert_success
	[ -z "$stderr" ]
	cmp "$T/a" "$T/b"
}

@test "--salvage is for a clean prefix: garbage in the middle is still an error at its offset" {
	f=$CORPUS/hotspot/jdk11-string.hprof
	off=$(bad_tag "$f" "$T/bad")
	head -c $(( $(size_of "$f") - 1000 )) "$T/bad" >"$T/badcut"
	run --separate-stderr "$STRIP" --salvage -o "$T/o" "$T/badcut"
	assert_failure 1
	assert_equal "$stderr" "hprofstrip: $T/badcut: offset $off: unknown heap sub-record tag"
	[ ! -e "$T/o" ]
}

@test "--salvage into a pipe: the streamed form, the same sub-records as into a file" {
	f=$(jdk17_fixture)
	"$STRIP" -o "$T/s" "$f"
	cut=$(( $(size_of "$T/s") * 2 / 3 ))
	head -c "$cut" "$T/s" >"$T/cut"
	"$RESTORE" --salvage -q -o "$T/file.hprof" "$T/cut"
	run --separate-stderr bash -c 'set -o pipefail; "$1" --salvage <"$2" | cat >"$3"' _ \
		"$RESTORE" "$T/cut" "$T/pipe.hprof"
	assert_success
	same_heap "$T/file.hprof" "$T/pipe.hprof"
}

@test "JVM: SIGKILL in the middle of a large jcmd dump under the shim; hprofrestore --salvage of what is on disk opens in VisualVM" {
	mkdir "$T/classes" "$T/d"
	javac -d "$T/classes" "$ROOT/tests/bench/DumpBench.java"
	LD_PRELOAD=$SHIM java -Xms1200m -Xmx1200m -XX:+UseSerialGC -cp "$T/classes" \
		DumpBench nodes 700 "$T/stop" >"$T/out" 2>"$T/err" &
	jvm=$!
	for _ in $(seq 600); do
		grep -q '^ready' "$T/out" && break
		sleep 0.1
	done
	grep -q '^ready' "$T/out" || { kill -9 $jvm; fail "DumpBench did not start: $(cat "$T/err")"; }
	jcmd $jvm GC.heap_dump "$T/d/big.hprof" >"$T/jcmd" 2>&1 &
	jc=$!
	# once a good part of the dump is on disk, kill the JVM outright
	for _ in $(seq 1200); do
		[ -e "$T/d/big.hprof" ] && [ "$(size_of "$T/d/big.hprof")" -gt 100000000 ] && break
		sleep 0.05
	done
	kill -9 $jvm
	jvm_status=0
	wait $jvm || jvm_status=$?
	[ "$jvm_status" -eq 137 ] || fail "the JVM was not killed: status $jvm_status"
	wait $jc || :  # jcmd loses its JVM: its status says nothing
	size=$(size_of "$T/d/big.hprof")
	[ "$size" -gt 100000000 ] || fail "only $size bytes on disk"
	# what is on disk is a clean prefix: cut inside a record (the kill came
	# while the shim wrote one), or after a whole one (no HEAP_DUMP_END)
	run "$STRIP" --info -q "$T/d/big.hprof"
	refute_output --regexp 'malformed at offset [0-9]+: (unknown|sub-record|invalid)'
	run --separate-stderr "$RESTORE" --salvage -o "$T/r.hprof" "$T/d/big.hprof"
	assert_success
	[ -z "$stderr" ] || grep -Eq "salvaged a dump cut at offset $size: .*, kept [0-9]+ objects\$" <<<"$stderr" ||
		fail "$stderr"
	# VisualVM sees every object an independent walker finds, and many
	want=$("$ORACLE" objects "$T/r.hprof" "$(size_of "$T/r.hprof")" | sed 's/^objects //')
	[ "$want" -gt 1000000 ] || fail "only $want objects"
	run "$JUDGE" histo "$T/r.hprof"
	assert_success
	assert_line --regexp "^total-instances $want "
	assert_output --regexp 'DumpBench\$Node [1-9][0-9]* '
}

@test "hprof-conv takes a salvaged Android dump, references to objects after the cut and all" {
	for f in $(art_files); do
		"$STRIP" -o "$T/s" "$f"
		for frac in 40 70 95; do
			head -c $(( $(size_of "$T/s") * frac / 100 )) "$T/s" >"$T/cut"
			"$RESTORE" --salvage -q -o "$T/r.hprof" "$T/cut"
			run "$HPROF_CONV" "$T/r.hprof" "$T/conv.hprof"
			assert_success
			[ "$(head -c 18 "$T/conv.hprof")" = "JAVA PROFILE 1.0.2" ]
		done
	done
}
