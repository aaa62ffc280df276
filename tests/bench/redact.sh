#!/usr/bin/env bash
# Section 8 of make bench: what redaction costs over plain stripping.
#
#   BUILD=build tests/bench/redact.sh        (bench.sh runs it after
#                                             compress.sh)
#
#   BENCH_REDACT_MB     heap of each kind, MB (10^6; default 1074, 1 GiB,
#                       as compress.sh)
#   BENCH_REDACT_RUNS   rounds per measurement (default 5)
#   BENCH_REDACT_KINDS  heaps of tests/bench/DumpBench.java (default
#                       "arrays nodes")
#   BENCH_DIR           work dir parent (default /tmp/hprofstrip-bench);
#                       this script uses BENCH_DIR/redact
#
# The goal the issue set: "Redaction costs at most 10% over plain
# stripping, in the shim and offline": redact/plain <= 1.10x.
#
# 1. The shim. HPROFSTRIP_REDACT is read once per process (preload/policy.c,
#    like every shim setting; HPROFSTRIP_PATTERN picks files, not modes), so
#    one JVM cannot dump both ways: per heap kind, two JVMs build the same
#    heap (DumpBench, fixed seed), both with the shim loaded, both with
#    HPROFSTRIP_SNIFF=no:
#      plain JVM    LD_PRELOAD=libhprofstrip.so
#      redact JVM   ... and HPROFSTRIP_REDACT=values
#    JVMs that build the same heap walk it at speeds up to 1.5x apart
#    (tests/bench/big.sh measured it), so their times are not compared
#    directly. As big.sh does, each JVM takes, round by round beside its
#    own variant's dump, its own reference dumps of the same heap:
#      floor        jcmd GC.heap_dump -overwrite /dev/null: the heap walk
#      unstripped   a dump to d.bin, which is not *.hprof (the default
#                   HPROFSTRIP_PATTERN) and, with HPROFSTRIP_SNIFF=no, is
#                   not looked at: the JVM's own dump, written whole
#      variant      a dump to d.hprof: stripped (plain JVM), or stripped
#                   and redacted (redact JVM)
#    Each round: q = variant / reference, in each JVM; the round's ratio
#    is q(redact JVM) / q(plain JVM): the redacted dump's cost over the
#    plain stripped one's, each measured against the same JVM's dump of
#    the same heap. The goal's reference is the one that does what the
#    variant does, but for the shim's work, as big.sh's goals take it:
#      nodes    unstripped: the stripped dump is 99.98% of it, so the JVM
#               walks the heap and writes as many bytes in both
#      arrays   floor: the stripped dump is 6% of the unstripped one, which
#               spends its time writing the arrays into the page cache
#               (at 1074 MB, 1.1 GB: 0.4-2.5 s between rounds on this VM,
#               against 0.2 s for the whole stripped dump)
#    The ratios against the other reference, and of the raw times across
#    the JVMs, are printed for information. Both JVMs live at once and
#    their dumps alternate (the plain JVM first in odd rounds, the redact
#    JVM first in even ones), so a slow spell of the machine falls on
#    both; both do exactly the same between dumps (every file removed as
#    soon as it is measured; the files kept come from untimed dumps after
#    the rounds). Each JVM first takes one untimed dump: this
#    machine is a VM whose freed memory goes back to its host, and a
#    JVM's first dump is slow.
#    Every redacted dump is checked (hprofstrip --info: well-formed) and
#    its size set against the plain JVM's stripped dump's (every plain
#    one is checked too). After the rounds, untimed, each JVM dumps once
#    more, kept: the redacted dump is redacted again offline, which must
#    change nothing (it does change the plain JVM's stripped dump).
# 2. Offline. An unstripped dump the redact JVM took after the rounds:
#    hprofstrip -o OUT IN against hprofstrip --redact -o OUT IN, file to
#    file, rounds alternating which goes first; IN read once before (warm
#    page cache), one untimed run of each first; OUT removed and sync run
#    (untimed) before each run. Then the same to /dev/null (the engine
#    alone), for information.
# Times: jcmd's wall time until it returns (the dump written and closed;
# jcmd's own start and attach, 'jcmd alone', is in every one), and the
# tools' wall time. Prints tables; asserts nothing about speed. Fails
# when a JVM, jcmd or a tool breaks, so that a broken run never looks like
# a result.
set -eEuo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/bench/lib.sh
. "$here/lib.sh"    # a clean environment; root, b; jvm_bench, die, say, rule
# shellcheck source=tests/bench/pair.sh
. "$here/pair.sh"   # PID, T, SZ, JB; start_jvm, dump, run_tool, quot...
# B, SHIM, W, MB, RUNS, KINDS, XMX (as compress.sh and big.sh size the
# heap); a command that fails where nothing checks it ends the run
jvm_bench "redact bench" redact BENCH_REDACT 1074 5
JOPTS=("-Xms${XMX}m" "-Xmx${XMX}m" -XX:+AlwaysPreTouch -XX:+UseG1GC)
TARGET=1.10

built hprofstrip libhprofstrip.so
needs "OpenJDK 17" java javac jcmd

# the work dir, DumpBench, the JVMs cleaned up however the script ends
pair_setup

declare -A GOAL GOALW GOALHOW  # KIND.shim, KIND.offline -> median, worst round, what

# ---- the header ---------------------------------------------------------

git_rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD -- strip restore preload 2>/dev/null || git_rev="$git_rev+uncommitted"
echo
echo "8. Redaction against plain stripping: the shim (jcmd GC.heap_dump) and hprofstrip, ~$MB MB heaps"
rule
printf '%-12s %s\n' \
	source "$git_rev ($B)" \
	heaps "$KINDS, $MB MB each (10^6 bytes), DumpBench" \
	jvm "java ${JOPTS[*]}" \
	rounds "$RUNS per measurement" \
	load "$(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) at the start; other work on the machine adds noise" \
	"work dir" "$W ($(findmnt -no FSTYPE -T "$W" 2>/dev/null || echo '?') on $(findmnt -no SOURCE -T "$W" 2>/dev/null || echo '?'))"
cat <<EOF
The shim reads HPROFSTRIP_REDACT once per process: per heap kind two
JVMs build the same heap, both with the shim and HPROFSTRIP_SNIFF=no, one
with HPROFSTRIP_REDACT=values. JVMs that build the same heap walk it at
different speeds, so each JVM also takes, round by round beside its
variant's dump (d.hprof), its own floor (-overwrite /dev/null) and its
own unstripped dump (d.bin: not *.hprof, left alone). x unstripped: the
variant's time over the same JVM's unstripped dump in the same round; x
floor: over its floor. redact/plain: the redact JVM's ratio over the
plain JVM's, per round. The goal's reference is the one doing what the
variant does but for the shim's work: nodes, x unstripped (the stripped
dump is as big); arrays, x floor (the unstripped dump spends most of its
time writing the arrays the stripped one drops, a page-cache write that
varies several-fold between rounds here). The JVMs' dumps alternate,
the plain JVM first in odd rounds; one untimed dump per JVM first.
Before every dump or run the output is removed and sync runs (untimed).
Offline: an unstripped dump the redact JVM took after the rounds, read
once before (warm page cache), one untimed run of each first, rounds
alternating which goes first.
EOF
echo

# ---- one heap kind ------------------------------------------------------

run_kind() {
	local kind=$1 j r order ts=() t0 dr=$W/redact
	local IN=$W/$kind.unstripped.hprof RED=$W/$kind.redacted.hprof
	local STR=$W/$kind.stripped.hprof OUT=$W/out.hprof
	local said

	say "$kind: two JVMs with the shim, building $MB MB of heap each ..."
	start_jvm plain "$kind" LD_PRELOAD="$SHIM" HPROFSTRIP_SNIFF=no
	start_jvm redact "$kind" LD_PRELOAD="$SHIM" HPROFSTRIP_SNIFF=no HPROFSTRIP_REDACT=values
	ready_jvm plain
	ready_jvm redact
	# jcmd's own cost (a JVM that starts and attaches)
	for _ in 1 2 3; do
		t0=$EPOCHREALTIME
		jcmd "${PID[plain]}" VM.uptime >/dev/null 2>&1 || die "jcmd VM.uptime failed"
		ts+=("$(calc %.3f "$EPOCHREALTIME - $t0")")
	done
	JCMD_ALONE=$(median "${ts[@]}")
	# a JVM's first dump is slow: one untimed dump each
	for j in plain redact; do
		untimed "$kind" "$j" "$W/$j/d.hprof"
		rm -f "$W/$j/d.hprof"
	done

	# Both JVMs do the same in each round: every file is removed as soon
	# as it is measured (so sync has no dump of ours to write before the
	# next), and nothing is kept. On this VM a write into memory freed a
	# few seconds before is slow (the host took the pages back: tests/bench/README.md,
	# "What a dump costs"); keeping one JVM's dump for later made the next
	# sync write it out, and that JVM's next dump land on pages freed
	# seconds before: its dumps took 4.3-4.6 s against 2.5-2.7 s.
	local wfr=0 wfp=0
	for ((r = 1; r <= RUNS; r++)); do
		if ((r % 2)); then order="plain redact"; else order="redact plain"; fi
		for j in $order; do
			dump "$kind.$j@floor" "$j" /dev/null
			dump "$kind.$j@unstripped" "$j" "$W/$j/d.bin"
			# d.bin is not a dump to the shim: it must be whole
			[ "${SZ[$kind.$j@unstripped]}" = "${JB[$kind.$j@unstripped]}" ] ||
				die "$kind: the shim changed d.bin in the $j JVM (${SZ[$kind.$j@unstripped]} of ${JB[$kind.$j@unstripped]} bytes)"
			rm -f "$W/$j/d.bin"
			dump "$kind.$j" "$j" "$W/$j/d.hprof"
			SZL[$kind.$j]="${SZL[$kind.$j]:-}${SZ[$kind.$j]} "
			if well_formed "$W/$j/d.hprof"; then
				if [ "$j" = redact ]; then wfr=$((wfr + 1)); else wfp=$((wfp + 1)); fi
			fi
			rm -f "$W/$j/d.hprof"
		done
	done
	# kept, untimed, once the rounds are over: the redact JVM's unstripped
	# dump (part 2's input) and redacted dump, the plain JVM's stripped one
	say "$kind: the dumps kept (untimed) ..."
	untimed "$kind" redact "$W/redact/d.bin"
	mv "$W/redact/d.bin" "$IN"
	untimed "$kind" redact "$W/redact/d.hprof"
	mv "$W/redact/d.hprof" "$RED"
	untimed "$kind" plain "$W/plain/d.hprof"
	mv "$W/plain/d.hprof" "$STR"

	# the kept redacted dump has no value left to redact: hprofstrip
	# --redact gives it back unchanged, while it changes the kept plain
	# stripped dump (so the check can tell). Two dumps of one JVM differ
	# in ids and serials, so the shim's dump cannot be set against
	# hprofstrip --redact of the unstripped one.
	local again
	"$B/hprofstrip" -q --redact -o "$OUT" "$RED"
	if cmp -s "$OUT" "$RED"; then again="unchanged"; else again="CHANGED (values left)"; fi
	"$B/hprofstrip" -q --redact -o "$OUT" "$STR"
	if cmp -s "$OUT" "$STR"; then again+=", and the plain stripped dump unchanged too (the check cannot tell)"
	else again+=" (the plain stripped dump: changed)"; fi
	rm -f "$OUT" "$RED" "$STR"
	said=$(grep -m1 'redacted the fields' "$dr/err" | sed 's/^hprofstrip: [^:]*: //') || said="nothing about redaction (stderr: $(head -c 300 "$dr/err"))"
	stop_jvm plain
	stop_jvm redact

	local up ur fp fr qu qf qd
	up=$(quot "$kind.plain" "$kind.plain@unstripped")
	ur=$(quot "$kind.redact" "$kind.redact@unstripped")
	fp=$(quot "$kind.plain" "$kind.plain@floor")
	fr=$(quot "$kind.redact" "$kind.redact@floor")
	qu=$(quotq "$ur" "$up")
	qf=$(quotq "$fr" "$fp")
	qd=$(quot "$kind.redact" "$kind.plain")
	local a gu='' gf=''
	if [ "$kind" = nodes ]; then
		read -ra a <<<"$qu"
		gu=" (the goal)"
	else
		read -ra a <<<"$qf"
		gf=" (the goal)"
	fi
	GOAL[$kind.shim]=$(median "${a[@]}") GOALW[$kind.shim]=$(maxof "${a[@]}")
	GOALHOW[$kind.shim]="jcmd, x ${gu:+unstripped}${gf:+floor}"

	echo "$kind heap, the shim: jcmd GC.heap_dump, $RUNS rounds (jcmd alone: $JCMD_ALONE s)"
	rule
	printf '%-7s %-14s %8s  %-36s %s\n' JVM dump "median s" "rounds s" "bytes"
	local v l k
	for j in plain redact; do
		for v in floor unstripped variant; do
			k=$kind.$j@$v
			case $v in
			floor) l="floor" ;;
			unstripped) l="unstripped" ;;
			variant) k=$kind.$j; [ $j = plain ] && l="shim" || l="shim+redact" ;;
			esac
			printf '%-7s %-14s %8.3f  %-36s %s\n' "$j" "$l" "$(med "$k")" "$(fmt2 "${T[$k]}")" "${SZ[$k]}"
		done
	done
	echo
	printf '%-42s %-32s %8s %8s\n' "ratio" "rounds" median worst
	ratios_line "plain JVM: shim / its unstripped" "$up"
	ratios_line "redact JVM: shim+redact / its unstripped" "$ur"
	ratios_line "redact/plain, x unstripped$gu" "$qu"
	ratios_line "redact/plain, x floor$gf" "$qf"
	ratios_line "redact/plain, raw times across JVMs" "$qd"
	local sp sr
	read -ra a <<<"${SZL[$kind.plain]}"
	sp=$(printf '%s\n' "${a[@]}" | sort -u | paste -sd/)
	read -ra a <<<"${SZL[$kind.redact]}"
	sr=$(printf '%s\n' "${a[@]}" | sort -u | paste -sd/)
	echo "well-formed (hprofstrip --info): redacted dumps $wfr of $RUNS, plain stripped dumps $wfp of $RUNS"
	echo "sizes: redacted $sr bytes, plain stripped $sp bytes (every round): $([ "$sr" = "$sp" ] && echo equal || echo "NOT equal")"
	echo "a redacted dump, redacted again by hprofstrip --redact: $again"
	echo "the shim said (redact JVM): $said"
	echo

	# -- offline, on the redact JVM's last unstripped dump
	say "$kind: offline, $(size_of "$IN") bytes in ..."
	cat "$IN" >/dev/null
	"$B/hprofstrip" -q -o "$OUT" "$IN"
	local so sro
	so=$(size_of "$OUT")
	rm -f "$OUT"
	"$B/hprofstrip" -q --redact -o "$OUT" "$IN"
	sro=$(size_of "$OUT")
	rm -f "$OUT"
	for ((r = 1; r <= RUNS; r++)); do
		if ((r % 2)); then order="plain redact"; else order="redact plain"; fi
		for v in $order; do
			if [ "$v" = plain ]; then
				run_tool "$kind.off.plain" "$OUT" "$B/hprofstrip" -q -o "$OUT" "$IN"
			else
				run_tool "$kind.off.redact" "$OUT" "$B/hprofstrip" -q --redact -o "$OUT" "$IN"
			fi
			rm -f "$OUT"
		done
	done
	for ((r = 1; r <= RUNS; r++)); do
		if ((r % 2)); then order="plain redact"; else order="redact plain"; fi
		for v in $order; do
			if [ "$v" = plain ]; then
				run_tool "$kind.null.plain" - "$B/hprofstrip" -q -o /dev/null "$IN"
			else
				run_tool "$kind.null.redact" - "$B/hprofstrip" -q --redact -o /dev/null "$IN"
			fi
		done
	done
	local insize qo qn
	insize=$(size_of "$IN")
	rm -f "$IN"
	qo=$(quot "$kind.off.redact" "$kind.off.plain")
	qn=$(quot "$kind.null.redact" "$kind.null.plain")
	read -ra a <<<"$qo"
	GOAL[$kind.offline]=$(median "${a[@]}") GOALW[$kind.offline]=$(maxof "${a[@]}")
	GOALHOW[$kind.offline]="file to file"

	echo "$kind heap, offline: IN = an unstripped dump from the redact JVM, $insize bytes"
	rule
	printf '%-42s %7s %8s  %s\n' operation "best s" "median s" "rounds s"
	for v in off.plain off.redact null.plain null.redact; do
		case $v in
		off.plain) l="hprofstrip -o OUT IN" ;;
		off.redact) l="hprofstrip --redact -o OUT IN" ;;
		null.plain) l="hprofstrip -o /dev/null IN" ;;
		null.redact) l="hprofstrip --redact -o /dev/null IN" ;;
		esac
		printf '%-42s %7.3f %8.3f  %s\n' "$l" "$(best "$kind.$v")" "$(med "$kind.$v")" "$(fmt2 "${T[$kind.$v]}")"
	done
	echo
	printf '%-42s %-32s %8s %8s\n' "ratio" "rounds" median worst
	ratios_line "redact/plain, file to file (the goal)" "$qo"
	ratios_line "redact/plain, to /dev/null (engine)" "$qn"
	echo "sizes: OUT $so bytes plain, $sro redacted: $([ "$so" = "$sro" ] && echo equal || echo "NOT equal")"
	echo
}

declare -A SZL
JCMD_ALONE=
for kind in $KINDS; do
	run_kind "$kind"
done

# ---- the goals ------------------------------------------------------------

echo "goals: redact/plain <= ${TARGET}x, the median of the rounds' ratios (a report, not a test)"
rule
for kind in $KINDS; do
	for where in shim offline; do
		m=${GOAL[$kind.$where]} w=${GOALW[$kind.$where]}
		if [ "$(calc %d "$m <= $TARGET")" = 1 ]; then st=met; else st="NOT met (gap $(calc %.2f "$m - $TARGET")x)"; fi
		printf '%-7s %-8s %-20s redact/plain <= %sx: measured %.2fx, %s; worst round %.2fx\n' \
			"$kind" "$where" "(${GOALHOW[$kind.$where]})" "$TARGET" "$m" "$st" "$w"
	done
done
echo "section 8 took $(calc %.0f "$EPOCHREALTIME - $T_START") s; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
