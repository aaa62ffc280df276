#!/usr/bin/env bats
# hprofstrip --suspects on fresh JDK 17 dumps, and the shim's
# HPROFSTRIP_SUSPECTS. Judges that share no code with the analysis:
# tests/domref.c (Cooper-Harvey-Kennedy) for every dominator tree, and
# VisualVM's heap library (HeapJudge retained: getRetainedSize and
# getNearestGCRootPointer) for the top objects and their paths. The heaps
# (tests/java/LeakHeap.java): a cache leak with weak, soft, thread-local
# and Android-like objects beside it; an OOM under the shim; jcmd; the
# arrays of HeapBuilder; a chain of 10 million objects.

load common
bats_require_minimum_version 1.5.0

setup_file() {
	build_tests domref
	export T=$BATS_FILE_TMPDIR
	"$JUDGE" build >&2
	env -u LD_PRELOAD java -cp "$B/java" LeakHeap cache "$T/leak.hprof" >&2
	${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 \
		-o "$T/androidize" "$ROOT/tests/androidize.c" "$ROOT/tests/walk.c"
}

setup() {
	DOMREF=$B/domref
	TMO=120
	W=$BATS_TEST_TMPDIR
}

# agrees DUMP [--strong]: hprofstrip's tree is domref's
agrees() {
	"$DOMREF" "${@:2}" "$1" >"$W/ref" || fail "domref $1 failed"
	"$STRIP" --suspects "${@:2}" --dominator-tree "$W/mine" -o "$W/rep" "$1" ||
		fail "hprofstrip --suspects $1 failed"
	[ "$(wc -l <"$W/ref")" -gt 1000 ] || fail "domref: $(wc -l <"$W/ref") objects"
	cmp "$W/ref" "$W/mine" || fail "$1 ${*:2}: the dominator trees differ"
}

# wait_for FILE: until FILE is there and whole (its writer renamed it in)
wait_for() {
	for _ in $(seq 600); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	fail "$1 did not come"
}

@test "the cache leak: the report names the cache, its table, the fan-out and the Android leaks" {
	"$STRIP" --suspects -o "$W/r.txt" "$T/leak.hprof"
	cat "$W/r.txt" >&3
	run sed -n '/^ 1\. /,/^ 2\. /p' "$W/r.txt"
	assert_output --partial 'class LeakHeap @'
	assert_output --partial '<- suspect'
	assert_output --partial 'accumulated in java.util.HashMap$Node[] @'
	assert_output --regexp 'static CACHE +java.util.HashMap @'
	assert_output --regexp '\.table +java.util.HashMap\$Node\[\] @'
	assert_output --regexp 'bytes in 100000 java.util.HashMap\$Node'
	run sed -n '/^Activities destroyed/,/^Fragments/p' "$W/r.txt"
	[ "$(grep -c '^  LeakHeap\$MainActivity @' <<<"$output")" = 2 ]
	assert_output --regexp 'static LISTENERS +java.util.ArrayList'
	run sed -n '/^Fragments detached/,$p' "$W/r.txt"
	[ "$(grep -c '^  LeakHeap\$DetailFragment @' <<<"$output")" = 1 ]
	# by class: Order's 100000 instances retain at least their shallow bytes
	grep -Eq '^ +[0-9]+ +[0-9.]+% +100000 +[0-9]+  LeakHeap\$Order$' "$W/r.txt"
}

@test "the cache leak: domref's dominator tree, MAT's references and --strong's" {
	agrees "$T/leak.hprof"
	agrees "$T/leak.hprof" --strong
	# stripped as the shim would, the same tree
	"$STRIP" -o "$W/s.hprof" "$T/leak.hprof"
	agrees "$W/s.hprof"
}

@test "VisualVM: the top objects' retained sets and paths, every difference MAT's semantics" {
	local line id cls vv ours n=0 same=0
	"$STRIP" --suspects --json --dominator-tree "$W/tree" -o "$W/r.json" "$T/leak.hprof"
	run -0 "$JUDGE" retained "$T/leak.hprof" "$W/tree" 40
	echo "$output" >&3
	while read -r id cls vv ours path root; do
		vv=${vv#vv=} ours=${ours#ours=}
		n=$((n + 1))
		if [ "$vv" = "$ours" ]; then
			same=$((same + 1))
			continue
		fi
		# MAT makes a thread's frame roots its references (VisualVM
		# roots each itself); MAT follows soft and weak referents
		# (VisualVM does not, nor sizes what only they reach); MAT
		# links every instance to its class, VisualVM the first
		# instance of each class alone, so a class loader's classes
		# are more often its alone in VisualVM
		case $cls in
		java.lang.Thread | java.lang.ref.SoftReference | java.lang.ref.WeakReference) ;;
		*ClassLoader) [ "$vv" -gt "$ours" ] || fail "$id $cls: VisualVM retains $vv, less than $ours" ;;
		*) [ "$vv" = 0 ] || fail "$id $cls: VisualVM retains $vv, hprofstrip's tree $ours" ;;
		esac
	done <<<"$output"
	[ "$n" = 40 ] && [ "$same" -ge 34 ] || fail "$same of $n equal"
	# the cache's table and map: VisualVM's path to a GC root is as long
	# as the report's, from the same root
	echo "$output" >"$W/vv"
	python3 - "$W/r.json" "$W/vv" <<-'P'
	import json, sys
	d = json.load(open(sys.argv[1]))
	vv = {}
	for line in open(sys.argv[2]):
	    f = line.split()
	    vv[f[0]] = (f[4][5:], f[5][5:])
	t = d["top"][0]
	a = t["accumulation"]
	assert a["class"] == "java.util.HashMap$Node[]", a
	path = t["path"]
	steps, root = vv[a["id"]]
	assert int(steps) == len(path) - 1, (steps, path)
	assert root == path[0]["id"], (root, path[0])
	P
}

@test "--strong against VisualVM: the thread keeps no frame's object, as in VisualVM" {
	"$STRIP" --suspects --strong --dominator-tree "$W/tree" -o /dev/null "$T/leak.hprof"
	run -0 "$JUDGE" retained "$T/leak.hprof" "$W/tree" 40
	while read -r id cls vv ours path root; do
		[ "$cls" != java.lang.Thread ] || [ "$vv" = "$ours" ] ||
			fail "--strong: $id $vv $ours"
	done <<<"$output"
}

@test "an OOM dump under the shim with HPROFSTRIP_SUSPECTS: .suspects beside it, 0600, the tool's report of the file" {
	cd "$W"
	run env HPROFSTRIP_SUSPECTS=yes LD_PRELOAD="$SHIM" timeout "$TMO" \
		java -Xmx64m -XX:+HeapDumpOnOutOfMemoryError \
		-XX:HeapDumpPath="$W/oom.hprof" -cp "$B/java" LeakHeap oom
	assert_output --regexp "hprofstrip: .*oom.hprof: what holds the heap goes to .*oom.hprof.suspects \(hprofstrip --suspects, pid [0-9]+"
	wait_for "$W/oom.hprof.suspects"
	[ "$(stat -c %a "$W/oom.hprof.suspects")" = 600 ]
	"$STRIP" --suspects --max-memory 256M -o "$W/again.txt" "$W/oom.hprof"
	cmp "$W/oom.hprof.suspects" "$W/again.txt"
	grep -q 'accumulated in java.util.HashMap$Node\[\] @' "$W/oom.hprof.suspects"
	agrees "$W/oom.hprof"
	[ -z "$(ls -A "$W" | grep tmp)" ]
}

@test "HPROFSTRIP_SUSPECTS never replaces a file: the .suspects there stays, said" {
	echo mine >"$W/mx.hprof.suspects"
	# run's capture ends when the analysis, which has the JVM's stderr,
	# has ended too
	run env HPROFSTRIP_SUSPECTS=yes LD_PRELOAD="$SHIM" timeout "$TMO" \
		java -cp "$B/java" HeapBuilder mxbean "$W/mx.hprof"
	assert_output --regexp "mx.hprof.suspects: exists already; left as it is"
	[ "$(cat "$W/mx.hprof.suspects")" = mine ]
}

@test "jcmd GC.heap_dump under hprofstrip-run --suspects: the dump's .suspects, domref's tree" {
	start_jvm LD_PRELOAD="$SHIM" HPROFSTRIP_SUSPECTS=1 LeakHeap
	run timeout "$TMO" jcmd "$JVM" GC.heap_dump "$W/j.hprof"
	assert_output --partial "Heap dump file created"
	wait_for "$W/j.hprof.suspects"
	stop_jvm
	grep -q 'static CACHE' "$W/j.hprof.suspects"
	agrees "$W/j.hprof"
	agrees "$W/j.hprof" --strong
	# hprofstrip-run's flag sets the variable
	run -0 "$B/hprofstrip-run" --suspects env
	assert_line HPROFSTRIP_SUSPECTS=1
}

@test "a redacted dump: the Android part is not known, said in text and JSON" {
	cd "$W"
	env HPROFSTRIP_REDACT=values HPROFSTRIP_SUSPECTS=yes LD_PRELOAD="$SHIM" \
		timeout "$TMO" java -cp "$B/java" LeakHeap cache "$W/red.hprof" 2>"$W/err"
	wait_for "$W/red.hprof.suspects"
	grep -q "not known: the dump's values were redacted" "$W/red.hprof.suspects"
	"$STRIP" --suspects --redacted --json -o "$W/red.json" "$W/red.hprof"
	python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["android"]; assert a["known"] is False and a["destroyed_activities"] == [], a' "$W/red.json"
	# unredacted, the same heap's are known
	"$STRIP" --suspects --json -o "$W/leak.json" "$T/leak.hprof"
	python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["android"]; assert a["known"] and len(a["destroyed_activities"]) == 2 and len(a["detached_fragments"]) == 1, a' "$W/leak.json"
}

@test "Android 1.0.3 form (8-byte ids): the same destroyed activities and fragment, domref's tree" {
	"$T/androidize" -z "$T/leak.hprof" "$W/a.hprof"
	"$STRIP" --suspects --json -o "$W/a.json" "$W/a.hprof"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); a=d["android"]; assert d["format"].endswith("1.0.3") and len(a["destroyed_activities"]) == 2 and len(a["detached_fragments"]) == 1, a' "$W/a.json"
	agrees "$W/a.hprof"
}

@test "HeapBuilder's arrays and markers (the JDK 17 fixture): domref's tree" {
	local f
	f=$(jdk17_fixture)
	agrees "$f"
	agrees "$f" --strong
}

@test "a chain of 10 million objects: no deep recursion, domref's tree" {
	env -u LD_PRELOAD java -Xmx3g -cp "$B/java" LeakHeap chain "$W/chain.hprof" 10000000
	# CHK's fingers walk the chain for every Link's class edge: the
	# judge takes the chain without class edges (--strong)
	agrees "$W/chain.hprof" --strong
	run -0 "$STRIP" --suspects --json --top 1 --dominator-tree "$W/t" -o "$W/c.json" "$W/chain.hprof"
	python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["top"][0]; assert t["object"]["retained_objects"] > 10000000 and t["accumulation"]["class"] == "LeakHeap$Link", t' "$W/c.json"
	rm -f "$W/chain.hprof"
}
