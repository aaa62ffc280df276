#!/bin/bash
# Section 7 of make bench: compressing while the JVM dumps.
#
#   BUILD=build tests/bench/compress.sh      (bench.sh runs it last)
#
# Two heaps of tests/bench/DumpBench.java, each about BENCH_COMPRESS_MB
# (default 1074, 1 GiB) MB: 'arrays' (large random primitive arrays, what
# stripping removes) and 'nodes' (40-byte objects, nothing to strip). For
# each, jcmd GC.heap_dump in JVMs that built the same heap:
#   plain        no shim
#   -gz=1        no shim, the JDK's own gzip (same JVM as plain)
#   shim         LD_PRELOAD=libhprofstrip.so
#   shim, -gz=1  the JDK's own gzip under the shim (same JVM as shim): it
#                inflates, strips and compresses again (issue 39); its file
#                beside gzip -1 of the offline strip of a -gz=1 dump the
#                same JVM wrote just before under a name the shim leaves
#                alone (HPROFSTRIP_SNIFF=no, x.bin)
#   shim+zstd    ... with HPROFSTRIP_COMPRESS=zstd (level 1)
# The time is jcmd's wall time, from its start until it returns: the dump
# is complete (for shim+zstd, the .zst is written and zstd has exited)
# when it does. Best of BENCH_COMPRESS_RUNS (default 2) per variant.
# Prints a table and the ratios the issue set targets for; asserts
# nothing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$root/$BUILD ;; esac
W=${BENCH_DIR:-/tmp/hprofstrip-bench}/compress
MB=${BENCH_COMPRESS_MB:-1074}
RUNS=${BENCH_COMPRESS_RUNS:-2}
SHIM=$B/libhprofstrip.so

die() { echo "compress bench: $*" >&2; exit 1; }

[ -e "$SHIM" ] || die "$SHIM missing: run make first"
command -v zstd >/dev/null || die "zstd is needed (apt-get install zstd)"
command -v jcmd >/dev/null || die "jcmd (OpenJDK 17) is needed"
mkdir -p "$W/classes"
javac -d "$W/classes" "$here/DumpBench.java" || die "javac failed"

declare -A BEST SIZE OFFGZ

# one_jvm KIND VARIANT...: a JVM with the heap KIND, dumped once per
# VARIANT with jcmd; env for the JVM from ENVS
one_jvm() {
	local kind=$1 xmx pid v f t0 t1 w out
	shift
	xmx=$((MB * 3 / 2 + 256))
	rm -rf "$W/run"
	mkdir -p "$W/run"
	env "${ENVS[@]}" java -Xms${xmx}m -Xmx${xmx}m -XX:+UseG1GC -cp "$W/classes" \
		DumpBench "$kind" "$MB" "$W/run/stop" >"$W/run/out" 2>"$W/run/err" &
	pid=$!
	for _ in $(seq 1200); do
		grep -q '^ready' "$W/run/out" 2>/dev/null && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	grep -q '^ready' "$W/run/out" || { cat "$W/run/err" >&2; die "DumpBench $kind did not start"; }
	for v in "$@"; do
		f=$W/run/$v.hprof
		out=$f
		case $v in
		gz | shimgz) opt=-gz=1 out=$f ;;
		shimraw) f=$W/run/$v.bin opt=-gz=1 out=$f ;;  # a name not stripped
		zstd) opt= out=$f.zst ;;
		*) opt= ;;
		esac
		sync
		t0=$EPOCHREALTIME
		jcmd $pid GC.heap_dump $opt "$f" >"$W/run/jcmd" 2>&1 ||
			{ cat "$W/run/jcmd" >&2; die "jcmd $v failed"; }
		t1=$EPOCHREALTIME
		grep -q 'Heap dump file created' "$W/run/jcmd" ||
			{ cat "$W/run/jcmd" >&2; die "jcmd $v: no dump"; }
		[ -s "$out" ] || die "$v: no $out ($(ls "$W/run"))"
		w=$(calc %.3f "$t1 - $t0")
		if [ -z "${BEST[$kind.$v]:-}" ] || [ "$(calc %d "$w < ${BEST[$kind.$v]}")" = 1 ]; then
			BEST[$kind.$v]=$w
		fi
		SIZE[$kind.$v]=$(size_of "$out")
		# the JDK's own gzip dump of the shim's JVM (the same heap, a
		# name the shim leaves alone) stripped offline, then gzip -1:
		# what the shim's gzip dump is to be no larger than
		if [ $v = shimraw ] && [ -z "${OFFGZ[$kind]:-}" ]; then
			OFFGZ[$kind]=$(gzip -dc "$out" | "$B/hprofstrip" --stream |
				gzip -1 -c | wc -c)
		fi
		if [ $v = shimgz ] && [ "$(od -An -tx1 -N2 "$out" | tr -d ' ')" != 1f8b ]; then
			die "shimgz: $out is not gzip"
		fi
		if [ $v = zstd ] && [ -e "$f" ]; then
			die "zstd: $f was left beside $out"
		fi
		rm -f "$f" "$f.zst" "$f.histo"
	done
	touch "$W/run/stop"
	wait $pid
}

echo "7. Compressing while the JVM dumps: jcmd GC.heap_dump, best of $RUNS, ~$MB MB heaps"
printf '%s\n' "------------------------------------------------------------------------------------------"
KINDS=${BENCH_COMPRESS_KINDS:-arrays nodes}
for kind in $KINDS; do
	echo "running the $kind heap: $RUNS x 3 JVMs ..." >&2
	for ((r = 1; r <= RUNS; r++)); do
		ENVS=()
		one_jvm $kind plain gz
		ENVS=(LD_PRELOAD="$SHIM" HPROFSTRIP_QUIET=1 HPROFSTRIP_SNIFF=no)
		one_jvm $kind shim shimraw shimgz
		ENVS=(LD_PRELOAD="$SHIM" HPROFSTRIP_QUIET=1 HPROFSTRIP_COMPRESS=zstd)
		one_jvm $kind zstd
	done
done

cat <<EOF
'arrays': large random byte[] (what stripping removes) and 4% small
objects; 'nodes': 40-byte objects only (nothing to strip). Time: jcmd's
wall time until it returned (the file complete; for shim+zstd the .zst
written and zstd exited). Size: the file left on disk. MB = 10^6 bytes.

EOF
printf '%-8s %-26s %9s %14s %10s\n' heap variant "time s" "file bytes" "file MB"
# each variant's line in the table
declare -A LABEL=([plain]="plain (no shim)" [gz]="-gz=1 (no shim)"
	[shim]="shim" [shimgz]="shim, -gz=1" [zstd]="shim, COMPRESS=zstd (-1)")
for kind in $KINDS; do
	for v in plain gz shim shimgz zstd; do
		printf '%-8s %-26s %9.3f %14s %10.1f\n' $kind "${LABEL[$v]}" "${BEST[$kind.$v]}" \
			"${SIZE[$kind.$v]}" "$(calc %.1f "${SIZE[$kind.$v]} / 1e6")"
	done
done
echo
for kind in $KINDS; do
	z=${BEST[$kind.zstd]} s=${BEST[$kind.shim]} g=${BEST[$kind.gz]}
	printf '%s: shim+zstd time %.2fx the shim alone (target <= 1.3x), %.1fx faster than -gz=1' \
		$kind "$(calc %.4f "$z / $s")" "$(calc %.4f "$g / $z")"
	[ $kind = arrays ] && printf ' (target >= 10x)'
	printf '; file %.2f%% of -gz=1'"'"'s' "$(calc %.4f "100 * ${SIZE[$kind.zstd]} / ${SIZE[$kind.gz]}")"
	[ $kind = arrays ] && printf ' (target < 2%%)' || printf ' (target < 100%%)'
	echo
done
for kind in $KINDS; do
	printf '%s: the runtime'"'"'s -gz=1 dump under the shim %.2fx its time without (target <= 1.15x); file %s bytes, gzip -1 of the offline strip %s (%.2fx; target <= 1x)\n' \
		$kind "$(calc %.4f "${BEST[$kind.shimgz]} / ${BEST[$kind.gz]}")" \
		"${SIZE[$kind.shimgz]}" "${OFFGZ[$kind]}" \
		"$(calc %.4f "${SIZE[$kind.shimgz]} / ${OFFGZ[$kind]}")"
done
