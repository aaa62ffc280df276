#!/usr/bin/env bats
# The class histogram's counts (hprofstrip --histo) against two judges
# that share no code with the engine:
# - VisualVM's heap library (tests/java/HeapJudge.java jmap-histo:
#   getInstancesCount of every class, its name in jmap's form), through
#   tests/histo-judge visualvm: every class name has the same instance
#   count on both sides, on every corpus dump (Android ones after
#   hprofrestore --jvm, which VisualVM reads) and on fresh JDK 17 dumps
#   (an OOM dump, jcmd GC.heap_dump, a heap of small objects, one of
#   arrays, one of every class the JDK has), and the shim's .histo of an
#   OOM dump against VisualVM's reading of the dump restored. The rules of the comparison
#   (tests/histo-judge's header): a name counts every class of that name
#   (one per loader: VisualVM lists each, hprofstrip --histo gives each a
#   row); a file of several heap dumps is judged one heap dump at a time
#   by VisualVM, which reads only the first, and summed. No rule is
#   needed for java.lang.Class: a HotSpot dump writes each class's mirror
#   as a CLASS_DUMP, which is not an object of the histogram, and the
#   primitive types' mirrors (int.class...) as INSTANCE_DUMPs of
#   java.lang.Class, which both count (9 on JDK 17).
# - jmap -histo:live on a live JVM (the last test): what the JVM itself
#   counts, against the histogram of a live dump taken right after.

load common
bats_require_minimum_version 1.5.0

setup_file() {
	# assert_stripped_dump's oracle: not among make all's
	build_tests oracle
}

setup() {
	T=$BATS_TEST_TMPDIR
	HJ=$ROOT/tests/histo-judge
	export HPROFSTRIP=$STRIP
}

# judged DUMP [JUDGED]: hprofstrip --histo DUMP has VisualVM's counts of
# JUDGED (default DUMP), class by class
judged() {
	run "$HJ" visualvm "$@"
	[ "$status" = 0 ] || fail "$1: the counts differ from VisualVM's: $output"
	assert_output --regexp '^classes [0-9]+, instances [0-9]+: every count equal$'
}

# dumpbench KIND MB FILE: a JVM builds DumpBench's heap KIND of MB
# megabytes (tests/bench/DumpBench.java), and jcmd GC.heap_dump dumps it
dumpbench() {
	local d=$T/db.$1 pid rc=0
	mkdir -p "$d"
	javac -d "$d" "$ROOT/tests/bench/DumpBench.java"
	env -u LD_PRELOAD java -Xmx$(($2 * 3 + 64))m -cp "$d" DumpBench "$1" "$2" "$d/stop" \
		>"$d/out" 2>"$d/err" &
	pid=$!
	for _ in $(seq 600); do
		grep -q '^ready' "$d/out" 2>/dev/null && break
		sleep 0.1
	done
	grep -q '^ready' "$d/out" || { kill $pid; fail "DumpBench $1: $(cat "$d/err")"; }
	# the JVM is stopped before the dump is judged, however jcmd ended
	env -u LD_PRELOAD jcmd "$pid" GC.heap_dump "$3" >"$d/jcmd" 2>&1 || rc=$?
	touch "$d/stop"
	wait "$pid"
	[ $rc = 0 ] && grep -q 'Heap dump file created' "$d/jcmd" ||
		fail "jcmd (status $rc): $(cat "$d/jcmd")"
}

@test "VisualVM: every HotSpot corpus dump, plain and stripped, the same count for every class" {
	local f n=0
	for f in "$CORPUS"/hotspot/*.hprof; do
		judged "$f"
		# stripped: the arrays' elements are gone (0xC3), each array
		# still counted; VisualVM reads the original
		"$STRIP" -o "$T/s.hprof" "$f"
		judged "$T/s.hprof" "$f"
		n=$((n + 1))
	done
	[ "$n" -ge 6 ]
}

@test "VisualVM: every Android corpus dump, from the ART file and from hprofrestore --jvm" {
	local f n=0
	for f in "$CORPUS"/art/*.hprof; do
		"$RESTORE" --jvm -o "$T/jvm.hprof" "$f"
		judged "$T/jvm.hprof"
		# the 1.0.3 dump itself (heap columns, ART's names: byte[],
		# java.lang.String[]) counts as VisualVM reads its conversion
		judged "$f" "$T/jvm.hprof"
		n=$((n + 1))
	done
	[ "$n" -ge 2 ]
}

@test "VisualVM: a file of two heap dumps (the hprof agent's) counts both" {
	local f=$CORPUS/hotspot/jdk6-hprof-agent-id4.hprof one two
	judged "$f"
	# both halves hold objects: a histogram of the first dump alone differs
	one=$("$HJ" counts <("$STRIP" --histo "$f") | awk '{ s += $2 } END { print s }')
	two=$(BUILD=$B "$JUDGE" jmap-histo "$f" | awk '{ s += $2 } END { print s }')
	[ "$one" -gt "$two" ] || fail "hprofstrip counts $one objects, the first dump alone $two"
}

@test "VisualVM: JDK 17 dumps: OOM, jcmd GC.heap_dump" {
	"$JUDGE" build >&2
	env -u LD_PRELOAD timeout 120 java -Xmx64m -XX:+HeapDumpOnOutOfMemoryError \
		-XX:HeapDumpPath="$T/oom.hprof" -XX:+DisplayVMOutputToStderr \
		-cp "$B/java" HeapBuilder oom 2>"$T/oom.err"
	[ -s "$T/oom.hprof" ] || fail "no OOM dump: $(cat "$T/oom.err")"
	judged "$T/oom.hprof"
	start_jvm HeapBuilder
	env -u LD_PRELOAD jcmd "$JVM" GC.heap_dump "$T/jcmd.hprof" >"$T/jcmd.out" 2>&1
	stop_jvm
	grep -q 'Heap dump file created' "$T/jcmd.out" || fail "$(cat "$T/jcmd.out")"
	judged "$T/jcmd.hprof"
}

@test "VisualVM: the shim's .histo of a JDK 17 OOM dump, against its restored dump" {
	"$JUDGE" build >&2
	env LD_PRELOAD="$SHIM" timeout 120 java -Xmx64m -XX:+HeapDumpOnOutOfMemoryError \
		-XX:HeapDumpPath="$T/oom.hprof" -XX:+DisplayVMOutputToStderr \
		-cp "$B/java" HeapBuilder oom 2>"$T/oom.err"
	[ -s "$T/oom.hprof.histo" ] || fail "no .histo beside the shim's dump: $(cat "$T/oom.err")"
	assert_stripped_dump "$T/oom.hprof"
	"$RESTORE" -o "$T/restored.hprof" "$T/oom.hprof"
	judged "$T/oom.hprof.histo" "$T/restored.hprof"
}

@test "VisualVM: JDK 17 dumps: a heap of small objects, a heap of arrays (DumpBench)" {
	dumpbench nodes 40 "$T/nodes.hprof"
	judged "$T/nodes.hprof"
	dumpbench arrays 60 "$T/arrays.hprof"
	judged "$T/arrays.hprof"
}

@test "VisualVM: JDK 17 dump of every class of the JDK's modules (ManyClasses)" {
	"$JUDGE" build >&2
	env -u LD_PRELOAD java -cp "$B/java" ManyClasses "$T/many.hprof" >"$T/many.out"
	# about 24,000 classes: more than the JDK loads for itself
	loaded=$(sed -n 's/^loaded \([0-9]*\) of .*/\1/p' "$T/many.out")
	[ "$loaded" -gt 20000 ] || fail "$(cat "$T/many.out")"
	judged "$T/many.hprof"
}

# jmap's rule, checked by the last tests. jmap -histo:live and a live dump
# are two snapshots of a running JVM, each after its own full GC; between
# them the JVM runs: the Cleaner thread frees what the first GC found
# phantom-reachable (measured: MethodHandleNatives$CallSiteContext and
# CleanerImpl$PhantomCleanableRef), the attach listener allocates for the
# commands. So the test brackets the dump with two jmap -histo:live runs,
# A and B: a class whose count is the same in A and in B is stable, and
# the dump's count of it must be exactly that; a class whose count moved
# between A and B is listed, not judged. Besides:
# - java.lang.Class differs always: jmap counts every class mirror, the
#   dump writes a mirror as a CLASS_DUMP (not an object) unless it is a
#   primitive type's (9, INSTANCE_DUMPs): the dump's count is below
#   jmap's. Without CDS (-Xshare:off) exactly: jmap's count is the dump's
#   class dumps plus its java.lang.Class instances (measured 687 = 678 +
#   9). With CDS (the default) jmap counts more: the archived mirrors of
#   the archive's classes the program never loaded lie in the heap, and
#   the dumper leaves those dormant objects out (measured 1469 against
#   668 + 9);
# - the program's own objects, held from static fields (HeapBuilder's
#   12,345 markers...), must be stable and equal;
# - stable classes are at least 95% of the names (measured: 3 of 278
#   differ, java.lang.Class and the two above), so the judged part is
#   the histogram, not a remainder.

# jmap_bracket [VAR=VALUE...]: HeapBuilder's JVM (with those variables),
# jmap -histo:live, a live jcmd GC.heap_dump to $T/live.hprof, jmap
# -histo:live again; $T/all: "NAME A B DUMP" for every class name (0: not
# listed), A and B jmap's counts, DUMP hprofstrip --histo's; asserts the
# rule above
jmap_bracket() {
	start_jvm "$@" HeapBuilder
	env -u LD_PRELOAD jmap -histo:live "$JVM" >"$T/a.jmap"
	env -u LD_PRELOAD jcmd "$JVM" GC.heap_dump "$T/live.hprof" >"$T/jcmd.out" 2>&1
	env -u LD_PRELOAD jmap -histo:live "$JVM" >"$T/b.jmap"
	stop_jvm
	grep -q 'Heap dump file created' "$T/jcmd.out" || fail "$(cat "$T/jcmd.out")"
	"$STRIP" --histo "$T/live.hprof" >"$T/live.histo"
	"$HJ" counts "$T/a.jmap" >"$T/a"
	"$HJ" counts "$T/b.jmap" >"$T/b"
	"$HJ" counts "$T/live.histo" >"$T/d"
	awk 'FILENAME == ARGV[1] { a[$1] = $2 } FILENAME == ARGV[2] { b[$1] = $2 }
	     FILENAME == ARGV[3] { d[$1] = $2 }
	     { n[$1] = 1 }
	     END { for (k in n) print k, a[k] + 0, b[k] + 0, d[k] + 0 }' \
		"$T/a" "$T/b" "$T/d" | sort >"$T/all"
	awk '$1 != "java.lang.Class" && $2 == $3' "$T/all" >"$T/stable"
	awk '$1 != "java.lang.Class" && $2 != $3' "$T/all" >"$T/moved"
	echo "moved between the two jmap runs (not judged):" >&2
	cat "$T/moved" >&2
	run awk '$2 != $4' "$T/stable"
	[ -z "$output" ] || fail "stable classes, jmap's count (twice) against the dump's: $output"
	total=$(wc -l <"$T/all")
	stable=$(wc -l <"$T/stable")
	[ $((stable * 100)) -ge $((total * 95)) ] || fail "only $stable of $total classes stable"
	run grep -E '^HeapBuilder\$Marker 12345 12345 12345$' "$T/all"
	assert_success
	run awk '$1 == "java.lang.Class" && $4 < $2' "$T/all"
	[ -n "$output" ] || fail "java.lang.Class: $(grep '^java.lang.Class ' "$T/all")"
}

@test "jmap -histo:live around a live jcmd GC.heap_dump: every stable class has jmap's count" {
	jmap_bracket
}

@test "jmap -histo:live without CDS: java.lang.Class is the dump's class dumps and its Class instances" {
	jmap_bracket JAVA_TOOL_OPTIONS=-Xshare:off
	local dumps mirrors
	dumps=$("$ROOT/tests/heap-census" "$T/live.hprof" | awk '$2 == "0x20" { n += $3 } END { print n + 0 }')
	run awk '$1 == "java.lang.Class" { print $2, $3, $4 }' "$T/all"
	read -r a b mirrors <<<"$output"
	[ "$a" = "$b" ] || fail "java.lang.Class moved between the jmap runs: $a, $b"
	[ "$a" = $((dumps + mirrors)) ] ||
		fail "jmap's java.lang.Class $a, the dump's class dumps $dumps and Class instances $mirrors"
}
