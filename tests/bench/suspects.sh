#!/usr/bin/env bash
# Section 12 of make bench: the leak analysis, hprofstrip --suspects.
#
#   BUILD=build tests/bench/suspects.sh      (bench.sh runs it last)
#
#   BENCH_SUSPECTS_MB    the small-object heap, MB (10^6; default 1074,
#                        1 GiB: DumpBench nodes, 40-byte objects)
#   BENCH_SUSPECTS_RUNS  rounds (default 3)
#   BENCH_SUSPECTS_VV    VisualVM's library on the same dump: 1 (default)
#                        or 0; it gets BENCH_SUSPECTS_VV_S seconds
#                        (default 1800) and a heap of BENCH_SUSPECTS_VV_XMX
#                        (default 16g)
#   BENCH_DIR            work dir parent (default /tmp/hprofstrip-bench);
#                        this script uses BENCH_DIR/suspects
#
# On two dumps: the 1 GiB small-object heap (jcmd GC.heap_dump of
# DumpBench nodes) and a cache leak of about the size of the issue's
# 538 MB, 10.1-million-object dump (tests/java/LeakHeap cache 1700000,
# dumped by its MXBean). For each, page cache warm, rounds rotating which
# runs first, one untimed run of each before:
#   cat IN >/dev/null, and hprofstrip --suspects IN -o /dev/null: the
#   ratio per round (the goal: at most 20x cat);
#   GNU time's peak RSS, and -v's objects, references and phases: bytes
#   an object (the goal: 32 an object and 8 a reference);
#   --max-memory at a quarter of what the arrays held: time, RSS, bytes in
#   files, and the same dominator tree (cmp);
#   VisualVM's heap library (HeapJudge biggest: every retained size
#   computed) on the same dump, once: time and peak RSS, or that it did
#   not finish in its time.
# Eclipse MAT is not in Debian: its figures (43.6 s, 1.34 GB for the 538
# MB dump on this kind of machine) are the issue's, printed beside ours
# as the issue's, not measured here.
# Prints tables; asserts nothing about speed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
b=${BUILD:-build}
case $b in /*) ;; *) b=$root/$b ;; esac
jvm_bench bench-suspects suspects BENCH_SUSPECTS 1074 3
VV=${BENCH_SUSPECTS_VV:-1}
VV_S=${BENCH_SUSPECTS_VV_S:-1800}
VV_XMX=${BENCH_SUSPECTS_VV_XMX:-16g}
built hprofstrip java/LeakHeap.class
needs "apt-get install time" /usr/bin/time
rm -rf "$W"
mkdir -p "$W"
trap 'rm -rf "$W"' EXIT

# the small-object heap, through jcmd
say "DumpBench nodes $MB MB"
mkdir -p "$W/nodes"
javac -d "$W/nodes" "$here/DumpBench.java"
java -Xmx${XMX}m -cp "$W/nodes" DumpBench nodes "$MB" "$W/nodes/stop" \
	>"$W/nodes/out" 2>"$W/nodes/err" &
pid=$!
until grep -q '^ready' "$W/nodes/out" 2>/dev/null; do
	kill -0 $pid 2>/dev/null || { cat "$W/nodes/err" >&2; die "DumpBench exited"; }
	sleep 0.2
done
jcmd_dump $pid "$W/nodes" nodes "$W/nodes.hprof"
touch "$W/nodes/stop"
wait $pid
say "LeakHeap cache 1700000"
java -Xmx6g -cp "$B/java" LeakHeap cache "$W/cache.hprof" 1700000

# t CMD...: seconds, into SECS
t() {
	local t0=$EPOCHREALTIME
	"$@"
	SECS=$(calc %.3f "$EPOCHREALTIME - $t0")
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '\n12. hprofstrip --suspects: the leak analysis, page cache warm (%s rounds)\n' "$RUNS"
rule
for f in nodes cache; do
	in=$W/$f.hprof
	cat "$in" >/dev/null
	"$B/hprofstrip" --suspects "$in" -o /dev/null
	: >"$W/r.cat"
	: >"$W/r.sus"
	: >"$W/r.ratio"
	for r in $(seq "$RUNS"); do
		if [ $((r % 2)) = 1 ]; then
			t cat "$in" >/dev/null; c=$SECS
			t "$B/hprofstrip" --suspects "$in" -o /dev/null; s=$SECS
		else
			t "$B/hprofstrip" --suspects "$in" -o /dev/null; s=$SECS
			t cat "$in" >/dev/null; c=$SECS
		fi
		echo "$c" >>"$W/r.cat"
		echo "$s" >>"$W/r.sus"
		calc %.2f "$s / $c" >>"$W/r.ratio"
		echo >>"$W/r.ratio"
	done
	/usr/bin/time -f '%M' -o "$W/rss" "$B/hprofstrip" --suspects -v \
		--dominator-tree "$W/tree" "$in" -o /dev/null 2>"$W/v"
	rss=$(tail -1 "$W/rss")
	objs=$(sed -n 's/.*: \([0-9]*\) objects, .*/\1/p' "$W/v")
	refs=$(sed -n 's/.* \([0-9]*\) references;.*/\1/p' "$W/v")
	held=$(sed -n 's/.*arrays held \([0-9]*\) KiB at most.*/\1/p' "$W/v")
	phases=$(sed -n 's/.*s (\(read.*\))$/\1/p' "$W/v")
	printf '%s: %s bytes, %s objects, %s references\n' "$f.hprof" \
		"$(size_of "$in")" "$objs" "$refs"
	printf '  cat            %8.3f s (median)\n' "$(median <"$W/r.cat")"
	printf '  --suspects     %8.3f s (median); %s\n' "$(median <"$W/r.sus")" "$phases"
	printf '  ratio to cat   %8.2fx (median of the rounds'"'"' ratios; goal <= 20x)\n' \
		"$(median <"$W/r.ratio")"
	printf '  peak RSS       %8d KiB: %.1f bytes an object; against 32 an object and 8 a reference (goal): %.2fx\n' \
		"$rss" "$(calc %.1f "$rss * 1024 / $objs")" \
		"$(calc %.2f "$rss * 1024 / ($objs * 32 + $refs * 8)")"
	# a quarter of what the arrays held, the rest in files beside -o
	q=$((held / 4))
	/usr/bin/time -f '%M %e' -o "$W/rss" "$B/hprofstrip" --suspects -v \
		--max-memory "${q}K" --dominator-tree "$W/tree.q" "$in" -o "$W/q.txt" 2>"$W/v"
	read -r qrss qs <"$W/rss"
	cmp -s "$W/tree" "$W/tree.q" || die "$f: --max-memory ${q}K gave another dominator tree"
	printf '  --max-memory %sK (a quarter of %s KiB): %.2f s, peak RSS %s KiB, %s KiB in files; the same tree\n' \
		"$q" "$held" "$qs" "$qrss" "$(sed -n 's/.*(\([0-9]*\) KiB in files).*/\1/p' "$W/v")"
	if [ "$VV" = 1 ]; then
		rc=0
		t0=$EPOCHREALTIME
		HEAPJUDGE_JAVA_OPTS="-Xmx$VV_XMX" /usr/bin/time -f '%M' -o "$W/rss" \
			timeout "$VV_S" "$root/tests/java/judge.sh" biggest "$in" 10 \
			>"$W/vv" 2>"$W/vv.err" || rc=$?
		vs=$(calc %.1f "$EPOCHREALTIME - $t0")
		if [ $rc = 0 ]; then
			printf "  VisualVM's library, every retained size: %s s, peak RSS %s KiB: %.1fx the time of --suspects\n" \
				"$vs" "$(tail -1 "$W/rss")" "$(calc %.1f "$vs / $(median <"$W/r.sus")")"
		elif [ $rc = 124 ]; then
			printf "  VisualVM's library: not done in %s s\n" "$VV_S"
		else
			printf "  VisualVM's library failed (status %s): %s\n" "$rc" "$(tail -1 "$W/vv.err")"
		fi
	fi
	rm -f "$W/tree" "$W/tree.q" "$W/q.txt"
done
printf "Eclipse MAT's headless parse, garbage cleaning and dominator tree of a 538 MB, 10.1-million-object dump:\n"
printf "  43.6 s and 1.34 GB (the issue's figure, not measured here: MAT is not a Debian package)\n"
