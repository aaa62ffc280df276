#!/usr/bin/env bash
# Section 9 of make bench: what the class histogram costs.
#
#   BUILD=build tests/bench/histo.sh         (bench.sh runs it after
#                                             redact.sh)
#
#   BENCH_HISTO_MB      heap of each kind, MB (10^6; default 1074, 1 GiB,
#                       as compress.sh and redact.sh)
#   BENCH_HISTO_RUNS    rounds per measurement (default 5)
#   BENCH_HISTO_KINDS   heaps of tests/bench/DumpBench.java (default
#                       "arrays nodes")
#   BENCH_DIR           work dir parent (default /tmp/hprofstrip-bench);
#                       this script uses BENCH_DIR/histo
#
# The goals the issue set: "--histo runs at --info's speed on the
# page-cached small-object dump (at most 2.5x cat)", and "a dump with the
# histogram on costs at most 1.02x the same dump with it off, median over
# rounds on both DumpBench heaps".
#
# 1. The shim. HPROFSTRIP_HISTO is read once per process, so per heap
#    kind two JVMs build the same heap (DumpBench, fixed seed), both with
#    the shim and HPROFSTRIP_SNIFF=no:
#      off JVM   LD_PRELOAD=libhprofstrip.so HPROFSTRIP_HISTO=no
#      on JVM    LD_PRELOAD=libhprofstrip.so (the histogram: the default)
#    As in redact.sh (which says why at length), each JVM takes, round by
#    round beside its variant's dump (d.hprof, stripped, and in the on
#    JVM its d.hprof.histo), its own floor (-overwrite /dev/null) and its
#    own unstripped dump (d.bin, which the shim leaves alone); a round's
#    ratio is q(on JVM) / q(off JVM), q = the variant's time over the
#    reference's in that JVM: nodes, x unstripped; arrays, x floor. The
#    dumps alternate (the off JVM first in odd rounds); one untimed dump
#    per JVM first; every file is removed once measured. Whether each
#    JVM left a .histo beside its dump is said (on: one, off: none).
# 2. Offline. The off JVM's unstripped dump of the nodes heap (the
#    small-object dump; the first kind's without nodes), taken after the
#    rounds: cat IN, hprofstrip --info IN and hprofstrip --histo IN, all
#    to /dev/null, IN read once before (warm page cache), one untimed run
#    of each first, rounds rotating which goes first. Ratios per round:
#    histo/cat (the goal, <= 2.5x), info/cat, histo/info.
# Prints tables; asserts nothing about speed. Fails when a JVM, jcmd or a
# tool breaks, so that a broken run never looks like a result.
set -eEuo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/bench/lib.sh
. "$here/lib.sh"    # a clean environment; root, b; jvm_bench, die, say, rule
# shellcheck source=tests/bench/pair.sh
. "$here/pair.sh"   # PID, T, SZ, JB; start_jvm, dump, run_tool, quot...
jvm_bench "histo bench" histo BENCH_HISTO 1074 5
JOPTS=("-Xms${XMX}m" "-Xmx${XMX}m" -XX:+AlwaysPreTouch -XX:+UseG1GC)
TARGET_SHIM=1.02 TARGET_CAT=2.5

built hprofstrip libhprofstrip.so
needs "OpenJDK 17" java javac jcmd

pair_setup
declare -A GOAL GOALW SIDECARS

echo
echo "9. The class histogram: under the shim (jcmd GC.heap_dump), on and off; offline --histo, ~$MB MB heaps"
rule
printf '%-12s %s\n' \
	source "$(git rev-parse --short HEAD 2>/dev/null || echo unknown) ($B)" \
	heaps "$KINDS, $MB MB each (10^6 bytes), DumpBench" \
	jvm "java ${JOPTS[*]}" \
	rounds "$RUNS per measurement" \
	load "$(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) at the start; other work on the machine adds noise"
cat <<EOF
Per heap kind two JVMs with the shim and HPROFSTRIP_SNIFF=no, one with
HPROFSTRIP_HISTO=no (off), one with the histogram (on, the default), each
taking its own floor (/dev/null) and unstripped dump (d.bin) round by
round beside its stripped d.hprof. on/off: the on JVM's d.hprof over its
reference, over the off JVM's the same, per round (reference: nodes, x
unstripped; arrays, x floor: see redact.sh). Offline: cat, --info and
--histo of the off JVM's unstripped dump, page cache warm, to /dev/null.
EOF
echo

# shim_kind KIND: the two JVMs of one heap kind, their rounds, the table
shim_kind() {
	local kind=$1 j r order a
	say "$kind: two JVMs with the shim, building $MB MB of heap each ..."
	start_jvm off "$kind" LD_PRELOAD="$SHIM" HPROFSTRIP_SNIFF=no HPROFSTRIP_HISTO=no
	start_jvm on "$kind" LD_PRELOAD="$SHIM" HPROFSTRIP_SNIFF=no
	ready_jvm off
	ready_jvm on
	for j in off on; do
		untimed "$kind" "$j" "$W/$j/d.hprof"
		rm -f "$W/$j/d.hprof" "$W/$j/d.hprof.histo"
	done
	SIDECARS[$kind.on]=0 SIDECARS[$kind.off]=0
	for ((r = 1; r <= RUNS; r++)); do
		if ((r % 2)); then order="off on"; else order="on off"; fi
		for j in $order; do
			dump "$kind.$j@floor" "$j" /dev/null
			dump "$kind.$j@unstripped" "$j" "$W/$j/d.bin"
			rm -f "$W/$j/d.bin"
			dump "$kind.$j" "$j" "$W/$j/d.hprof"
			[ ! -e "$W/$j/d.hprof.histo" ] || SIDECARS[$kind.$j]=$((SIDECARS[$kind.$j] + 1))
			rm -f "$W/$j/d.hprof" "$W/$j/d.hprof.histo"
		done
	done
	if [ "$kind" = nodes ] || [ ! -e "$W/offline.hprof" ]; then
		untimed "$kind" off "$W/off/d.bin"
		mv "$W/off/d.bin" "$W/offline.hprof"
		OFFLINE_KIND=$kind
	fi
	stop_jvm off
	stop_jvm on

	local qu qf
	qu=$(quotq "$(quot "$kind.on" "$kind.on@unstripped")" "$(quot "$kind.off" "$kind.off@unstripped")")
	qf=$(quotq "$(quot "$kind.on" "$kind.on@floor")" "$(quot "$kind.off" "$kind.off@floor")")
	if [ "$kind" = nodes ]; then read -ra a <<<"$qu"; else read -ra a <<<"$qf"; fi
	GOAL[$kind.shim]=$(median "${a[@]}") GOALW[$kind.shim]=$(maxof "${a[@]}")

	echo "$kind heap, the shim: jcmd GC.heap_dump, $RUNS rounds"
	rule
	printf '%-5s %-12s %8s  %-36s %s\n' JVM dump "median s" "rounds s" bytes
	local v k
	for j in off on; do
		for v in floor unstripped shim; do
			k=$kind.$j@$v
			[ $v = shim ] && k=$kind.$j
			printf '%-5s %-12s %8.3f  %-36s %s\n' "$j" "$v" "$(med "$k")" "$(fmt2 "${T[$k]}")" "${SZ[$k]}"
		done
	done
	echo
	printf '%-42s %-32s %8s %8s\n' ratio rounds median worst
	ratios_line "on/off, x unstripped$([ "$kind" = nodes ] && echo ' (the goal)')" "$qu"
	ratios_line "on/off, x floor$([ "$kind" = nodes ] || echo ' (the goal)')" "$qf"
	ratios_line "on/off, raw times across JVMs" "$(quot "$kind.on" "$kind.off")"
	echo "sidecars d.hprof.histo: on JVM ${SIDECARS[$kind.on]} of $RUNS dumps, off JVM ${SIDECARS[$kind.off]} of $RUNS"
	echo
}

# offline: cat, --info, --histo of $W/offline.hprof
offline() {
	local in=$W/offline.hprof r order v l
	local -a ops=(cat info histo)
	say "offline: $(size_of "$in") bytes in ..."
	cat "$in" >/dev/null
	"$B/hprofstrip" --histo "$in" >"$W/offline.histo"
	"$B/hprofstrip" --info "$in" >/dev/null
	for ((r = 1; r <= RUNS; r++)); do
		# rotate: cat info histo, info histo cat, histo cat info
		order="${ops[*]:$(((r - 1) % 3))} ${ops[*]:0:$(((r - 1) % 3))}"
		for v in $order; do
			case $v in
			cat) run_tool off.cat - cat "$in" ;;
			info) run_tool off.info - "$B/hprofstrip" --info "$in" ;;
			histo) run_tool off.histo - "$B/hprofstrip" --histo "$in" ;;
			esac
		done
	done
	local qc a
	qc=$(quot off.histo off.cat)
	read -ra a <<<"$qc"
	GOAL[offline]=$(median "${a[@]}") GOALW[offline]=$(maxof "${a[@]}")
	echo "offline: IN = the off JVM's unstripped dump of the $OFFLINE_KIND heap, $(size_of "$in") bytes, page cache warm"
	rule
	printf '%-36s %7s %8s %7s  %s\n' operation "best s" "median s" "GB/s" "rounds s"
	for v in cat info histo; do
		case $v in
		cat) l="cat IN >/dev/null" ;;
		info) l="hprofstrip --info IN >/dev/null" ;;
		histo) l="hprofstrip --histo IN >/dev/null" ;;
		esac
		printf '%-36s %7.3f %8.3f %7.2f  %s\n' "$l" "$(best "off.$v")" "$(med "off.$v")" \
			"$(calc %.2f "$(size_of "$in") / $(med "off.$v") / 1e9")" "$(fmt2 "${T[off.$v]}")"
	done
	echo
	printf '%-42s %-32s %8s %8s\n' ratio rounds median worst
	ratios_line "histo/cat (the goal)" "$qc"
	ratios_line "info/cat" "$(quot off.info off.cat)"
	ratios_line "histo/info" "$(quot off.histo off.info)"
	echo "the histogram's first lines:"
	head -5 "$W/offline.histo" | sed 's/^/  /'
	echo
}

OFFLINE_KIND=
for kind in $KINDS; do
	shim_kind "$kind"
done
offline

echo "goals (the median of the rounds' ratios; a report, not a test)"
rule
st() { if [ "$(calc %d "$1 <= $2")" = 1 ]; then echo met; else echo "NOT met"; fi; }
for kind in $KINDS; do
	printf '%-7s shim     on/off <= %sx: measured %.2fx, %s; worst round %.2fx\n' "$kind" \
		"$TARGET_SHIM" "${GOAL[$kind.shim]}" "$(st "${GOAL[$kind.shim]}" "$TARGET_SHIM")" "${GOALW[$kind.shim]}"
done
printf '%-7s offline  histo/cat <= %sx: measured %.2fx, %s; worst round %.2fx\n' "$OFFLINE_KIND" \
	"$TARGET_CAT" "${GOAL[offline]}" "$(st "${GOAL[offline]}" "$TARGET_CAT")" "${GOALW[offline]}"
echo "section 9 took $(calc %.0f "$EPOCHREALTIME - $T_START") s; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
