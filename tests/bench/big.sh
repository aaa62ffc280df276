#!/usr/bin/env bash
# make bench-big: the JVM's dump time with and without the shim on big
# heaps, every mode, as ratios to the plain dump and to the floor measured
# in the same run; the shim's memory; the tools' throughput; a restored
# dump judged by VisualVM's heap library.
#
#   BUILD=build tests/bench/big.sh           (or: make bench-big)
#
#   BENCH_BIG_MB          heap of each kind, MB (10^6; default 6442, 6 GiB)
#   BENCH_BIG_RUNS        dumps per variant (default 3); every round's
#                         time is printed, and the median
#   BENCH_BIG_KINDS       heap kinds of tests/bench/DumpBench.java
#                         (default "arrays nodes")
#   BENCH_BIG_GZ=1        also the JDK's own -gz=1 (slow: ~60 s a dump at
#                         6 GiB)
#   BENCH_BIG_JUDGE_NODES=1  also judge the nodes heap with VisualVM
#                         (160 million objects at 6 GiB: slow)
#   BENCH_DIR             work dir parent (default /tmp/hprofstrip-bench);
#                         this script uses BENCH_DIR/big
#   HEAPJUDGE_JAVA_OPTS   the judge's JVM options (default -Xmx4g)
#
# For each heap kind, one JVM per environment (the shim reads its
# environment once, when it loads), each building the same heap
# (DumpBench, fixed seed), dumped BENCH_BIG_RUNS times with jcmd
# GC.heap_dump:
#   no shim:   floor (-overwrite /dev/null: the heap walk, output thrown
#              away), plain (a file on disk), -gz=1 (BENCH_BIG_GZ=1)
#   the shim:  one JVM per row of SHIM_TABLE below
# then, per kind: the shim's memory (/proc/PID/smaps, status) beside the
# plain JVM's; the tools' throughput on the plain dump; the shim's dump
# restored and judged by VisualVM's class histogram against a plain dump
# the same JVM took right after it (arrays; nodes with
# BENCH_BIG_JUDGE_NODES=1); and the goals the issue set, met or not.
# Progress goes to stderr, the report to stdout.
#
# A benchmark reports: nothing here fails on a time or a size. It fails
# (exit status not 0) when a JVM, jcmd, a tool or a check breaks, so that
# a broken run never looks like a result.
set -eEuo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/bench/lib.sh
. "$here/lib.sh"    # a clean environment; root, b; jvm_bench, die, say, rule
# B, SHIM, W, MB, RUNS, KINDS, XMX; a command that fails where nothing
# checks it ends the run, and says where
jvm_bench bench-big big BENCH_BIG 6442 3
GZ=${BENCH_BIG_GZ:-0}
JUDGE_NODES=${BENCH_BIG_JUDGE_NODES:-0}
JUDGE_OPTS=${HEAPJUDGE_JAVA_OPTS:--Xmx4g}

# The shim's variants, one JVM each. To add one, add a line:
#   name   environment (VAR=VALUE, comma-separated; - none)   the file the
#   dump leaves (FILE: the path given to jcmd)   its decompressor (- none)
#   when the built shim or the decompressor cannot do it: fail or skip
# 'shim' must stay: its dump is the one restored, judged and timed for
# hprofrestore, and the goals name it.
SHIM_TABLE='
shim        -                          FILE       -     fail
shim+zstd   HPROFSTRIP_COMPRESS=zstd   FILE.zst   zstd  fail
shim+lz4    HPROFSTRIP_COMPRESS=lz4    FILE.lz4   lz4   skip
shim+keep   HPROFSTRIP_KEEP=strings    FILE       -     fail
'

built hprofstrip hprofrestore libhprofstrip.so
needs "make deps" java javac jcmd zstd gzip

mkdir -p "$W"
rm -rf "${W:?}"/* "$W/.du-peak"

# ---- JVMs, cleaned up however the script ends ---------------------------

JVM_PID='' DU_PID=''
cleanup() {
	[ -z "$JVM_PID" ] || { kill "$JVM_PID" 2>/dev/null; wait "$JVM_PID" 2>/dev/null; } || true
	[ -z "$DU_PID" ] || { kill "$DU_PID" 2>/dev/null; wait "$DU_PID" 2>/dev/null; } || true
	# no dump outlives the run, finished or not (they take gigabytes)
	rm -f "$W"/*.hprof*
	rm -rf "$W/run"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The work dir's peak size, sampled every second in the background (the
# dumps and the judge's index files come and go while a command runs)
(
	peak=0
	while :; do
		s=$(du -sb "$W" 2>/dev/null | cut -f1) || s=0
		if [ "${s:-0}" -gt "$peak" ]; then peak=$s; echo "$peak" >"$W/.du-peak"; fi
		sleep 1
	done
) &
DU_PID=$!

# ---- small helpers ------------------------------------------------------

# the median of numbers (one per argument)
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
# med KEY: of the round times in T[KEY]
med() { local a; read -ra a <<<"${T[$1]}"; median "${a[@]}"; }
# "x.xx" of A / B
ratio() { calc %.2f "$1 / $2"; }
# worst KEY: the highest of KEY's round times over its JVM's plain dump's
# in the same round
worst() {
	local a b i w=0 q
	read -ra a <<<"${T[$1]}"
	read -ra b <<<"${T[$1@plain]}"
	for i in "${!a[@]}"; do
		q=$(calc %.4f "${a[$i]} / ${b[$i]}")
		[ "$(calc %d "$w < $q")" = 1 ] && w=$q
	done
	echo "$w"
}

mkdir -p "$W/classes"
javac -d "$W/classes" "$here/DumpBench.java" || die "javac DumpBench failed"

# ---- which shim variants this build can run ----------------------------
# A 40-byte dump (header and HEAP_DUMP_END) copied by cp under the shim
# (HPROFSTRIP_PROGRAMS=cp) with the variant's environment: the variant
# runs if the shim leaves the file its row names, and nothing beside it.
# This asks the built shim itself, not its source or its strings.

declare -a VARIANTS=()   # the shim variants that run, in table order
declare -A VENV VFILE VDEC NOTE
probe() {
	local name=$1 envs=$2 file=$3 dec=$4 p=$W/probe left
	rm -rf "$p"
	mkdir -p "$p"
	{ printf 'JAVA PROFILE 1.0.2\0\0\0\0\10'; printf '\0%.0s' 1 2 3 4 5 6 7 8; printf '\54\0\0\0\0\0\0\0\0'; } >"$p/src"
	if [ "$dec" != - ] && ! command -v "$dec" >/dev/null; then
		NOTE[$name]="$dec is not on PATH"
		return 1
	fi
	# shellcheck disable=SC2086
	env LD_PRELOAD="$SHIM" HPROFSTRIP_PROGRAMS=cp ${envs//,/ } cp "$p/src" "$p/d.hprof" 2>"$p/err" ||
		{ NOTE[$name]="cp under the shim failed: $(cat "$p/err")"; return 1; }
	left=$(cd "$p" && find . -maxdepth 1 -name 'd.hprof*' -printf '%f ')
	if [ "$left" != "${file/FILE/d.hprof} " ]; then
		NOTE[$name]="the shim left '${left% }', not ${file/FILE/d.hprof}: $(grep -v 'bytes in' "$p/err" | paste -sd ' ')"
		return 1
	fi
	rm -rf "$p"
}
while read -r name envs file dec unsupported; do
	[ -n "$name" ] || continue
	[ "$envs" = - ] && envs=
	if probe "$name" "$envs" "$file" "$dec"; then
		VARIANTS+=("$name")
		VENV[$name]=$envs VFILE[$name]=$file VDEC[$name]=$dec
	elif [ "$unsupported" = skip ]; then
		say "skipping $name: ${NOTE[$name]}"
	else
		die "$name cannot run: ${NOTE[$name]}"
	fi
done <<<"$SHIM_TABLE"
rm -rf "$W/probe"

# ---- header -------------------------------------------------------------

git_rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD -- strip restore preload 2>/dev/null || git_rev="$git_rev+uncommitted"
fs="$(findmnt -no FSTYPE -T "$W" 2>/dev/null || echo '?') on $(findmnt -no SOURCE -T "$W" 2>/dev/null || echo '?')"
JOPTS=("-Xms${XMX}m" "-Xmx${XMX}m" -XX:+AlwaysPreTouch -XX:+UseG1GC)
echo "hprofstrip bench-big, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
rule
printf '%-12s %s\n' \
	host "$(hostname), $(nproc) cores ($(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)), $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM, $(uname -sr)" \
	load "$(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) at the start; other work on the machine adds noise" \
	source "$git_rev ($B)" \
	shim "$SHIM ($(size_of "$SHIM") bytes)" \
	java "$(java -version 2>&1 | sed -n 2p)" \
	heaps "$KINDS, $MB MB each (10^6 bytes; $(calc %.2f "$MB * 1e6 / 1073741824") GiB), DumpBench" \
	jvm "java ${JOPTS[*]}" \
	rounds "$RUNS dumps per variant, each in the JVM that built the heap" \
	"work dir" "$W ($fs)"

# The page cache's cost on this machine. A virtual machine whose balloon
# reports free pages to its host (virtio-balloon free page reporting, as
# Firecracker does) gets them back at a fault per page: a dump written to
# pages freed a few seconds earlier can take several times as long as one
# written to pages in use. It hits every variant that writes a file, plain
# or not, in whichever round it falls: the rounds show it.
pc_write() {  # seconds to write 1 GB into the page cache, a new file
	local t0=$EPOCHREALTIME
	dd if=/dev/zero of="$W/pc.bin" bs=1M count=1000 status=none conv=notrunc
	calc %.2f "$EPOCHREALTIME - $t0"
	rm -f "$W/pc.bin"
}
reporting=no
if [ -d /sys/module/page_reporting ] ||
   grep -qs '^.\{5\}1' /sys/bus/virtio/drivers/virtio_balloon/virtio*/features; then
	reporting=yes
fi
pc1=$(pc_write) pc2=$(pc_write)
sleep 5
pc3=$(pc_write)
printf '%-12s %s\n' "page cache" "1 GB written to a new file: $pc1 s, at once again $pc2 s, 5 s later $pc3 s; free page reporting to a host: $reporting"
echo
cat <<EOF
Times are jcmd PID GC.heap_dump's wall time, from its start until it
returns, when the dump is complete (the file closed; for a compressed
variant the compressor has exited and the plain file is gone). Each dump
starts with the full GC jcmd asks for (live objects only), in every
variant alike. Every JVM first takes one untimed dump (a JVM's first
dump is slower). Before each dump the previous file is deleted and sync
runs, untimed. jcmd itself starts a JVM and attaches: its own share is
the 'jcmd alone' line (jcmd PID VM.uptime), which counts at small heaps.
floor: jcmd GC.heap_dump -overwrite /dev/null (JDK 17's jcmd takes
-overwrite, so /dev/null itself is the target) in the JVM without the
shim: the JVM walks the heap and writes every byte of its dump into
write() calls that cost nothing; the time no file can beat. plain: the
same to a file in the work dir, no shim. x plain, x floor: the variant's
median over plain's (floor's) median, same heap, same run; a shim
variant's against the floor and plain dump its own JVM took in the same
rounds (the shim loaded, HPROFSTRIP_SNIFF=no, targets that are not
*.hprof), since JVMs that build the same heap walk it at different
speeds. Every JVM has
-Xms = -Xmx and AlwaysPreTouch: its whole heap is resident, so VmHWM
compares across them. MB = 10^6 bytes, GB/s = 10^9 bytes/s.
EOF
echo

# ---- one JVM ------------------------------------------------------------

R=$W/run   # the JVM's files and its dumps
declare -A T SZ JB HWM RSSKB LIBKB BSSKB BSSSIZE
JCMD_ALONE=

# start_jvm KIND [VAR=VALUE...]: DumpBench KIND MB in a fresh JVM with that
# environment; returns once it has built the heap ("ready")
start_jvm() {
	local kind=$1
	shift
	rm -rf "$R"
	mkdir -p "$R"
	env "$@" java "${JOPTS[@]}" -cp "$W/classes" DumpBench "$kind" "$MB" "$R/stop" \
		>"$R/out" 2>"$R/err" &
	JVM_PID=$!
	until grep -q '^ready' "$R/out" 2>/dev/null; do
		kill -0 "$JVM_PID" 2>/dev/null || {
			cat "$R/err" >&2
			JVM_PID=
			die "DumpBench $kind $MB ($*) exited before it was ready"
		}
		sleep 0.2
	done
}

# stop_jvm: the JVM exits (stop file); its status must be 0
stop_jvm() {
	local rc=0
	touch "$R/stop"
	wait "$JVM_PID" || rc=$?
	JVM_PID=
	[ $rc = 0 ] || { cat "$R/err" >&2; die "DumpBench exited with status $rc"; }
}

# dump KEY LEFT ARGS...: one timed jcmd GC.heap_dump ARGS; LEFT is the
# file it must leave ('-': none). Adds the time to T[KEY], sets JB[KEY] to
# the bytes the JVM says it wrote (under the shim: before stripping) and
# SZ[KEY] to LEFT's size (no file: JB[KEY]).
dump() {
	local key=$1 left=$2
	shift 2
	rm -f "$R"/d.*
	sync
	jcmd_dump "$JVM_PID" "$R" "$key" "$@"
	T[$key]="${T[$key]:-}$DUMP_S "
	JB[$key]=$DUMP_JB
	if [ "$left" = - ]; then
		SZ[$key]=${JB[$key]}
	else
		# the file it must leave, and nothing beside it (a compressor that
		# failed leaves the plain copy: that would not be a result)
		[ -s "$left" ] || { cat "$R/err" >&2; die "$key: no $left (there: $(ls "$R"))"; }
		[ "$(cd "$R" && find . -maxdepth 1 -name 'd.*' -printf '%f ')" = "$(basename "$left") " ] ||
			{ cat "$R/err" >&2; die "$key: files beside $(basename "$left"): $(ls "$R")"; }
		SZ[$key]=$(size_of "$left")
	fi
	say "  $key: $(calc %.2f "$DUMP_S") s, ${SZ[$key]} bytes"
}

# warm FILE: one untimed dump to FILE, removed: a JVM's first dump pays
# for its first heap walk and its writer's start (measured: plain 3.09 s,
# then 2.12-2.23 s in the same JVM at 1 GiB of nodes), which no variant
# should be charged for
warm() {
	jcmd "$JVM_PID" GC.heap_dump "$1" >"$R/jcmd" 2>&1 &&
		grep -q 'Heap dump file created' "$R/jcmd" ||
		{ cat "$R/jcmd" "$R/err" >&2; die "the warm-up dump failed"; }
	rm -f "$R"/d.*
}

# memory KEY: the JVM's peak and current RSS (/proc/PID/status), and the
# resident KiB of the shim's own mappings: libhprofstrip.so's, and the
# anonymous mapping that starts where its last one ends (its .bss; the
# kernel could merge a neighbour into it: its size is kept too) — from
# /proc/PID/smaps. -: the shim is not mapped.
memory() {
	local key=$1
	HWM[$key]=$(awk '/^VmHWM:/ { print $2 }' "/proc/$JVM_PID/status")
	RSSKB[$key]=$(awk '/^VmRSS:/ { print $2 }' "/proc/$JVM_PID/status")
	read -r "LIBKB[$key]" "BSSKB[$key]" "BSSSIZE[$key]" < <(awk -v lib="$SHIM" '
		/^[0-9a-f]+-[0-9a-f]+ / {
			split($1, a, "-")
			cur = ""
			if ($6 == lib) { cur = "lib"; inlib = 1; end = a[2] }
			else if (inlib && $6 == "" && a[1] == end && !bss) { cur = "bss"; bss = 1 }
			else if (inlib) inlib = 0
			next
		}
		/^Size:/ { if (cur == "bss") bs += $2 }
		/^Rss:/ { if (cur == "lib") l += $2; else if (cur == "bss") b += $2 }
		END { if (end == "") print "- - -"; else print l + 0, b + 0, bs + 0 }' "/proc/$JVM_PID/smaps")
}

# ---- one heap kind ------------------------------------------------------

# check_file KEY FILE DEC: the dump FILE reads whole (hprofstrip --info,
# through DEC -dc when DEC is not -)
check_file() {
	local key=$1 f=$2 dec=$3
	if [ "$dec" = - ]; then
		"$B/hprofstrip" --info "$f" >/dev/null 2>"$R/check" ||
			{ cat "$R/check" >&2; die "$key: hprofstrip --info rejects $f"; }
	else
		"$dec" -dc "$f" | "$B/hprofstrip" --info >/dev/null 2>"$R/check" ||
			{ cat "$R/check" >&2; die "$key: $dec -dc | hprofstrip --info rejects $f"; }
	fi
}

# best3 KEY CMD...: the best wall time of 3 runs of CMD (stdout dropped)
declare -A BEST
best3() {
	local key=$1 t0 t1 w
	shift
	BEST[$key]=
	for _ in 1 2 3; do
		t0=$EPOCHREALTIME
		"$@" >/dev/null 2>"$W/stderr" || { cat "$W/stderr" >&2; die "'$*' failed"; }
		t1=$EPOCHREALTIME
		w=$(calc %.4f "$t1 - $t0")
		if [ -z "${BEST[$key]}" ] || [ "$(calc %d "$w < ${BEST[$key]}")" = 1 ]; then BEST[$key]=$w; fi
	done
}

histo() {   # histo DUMP OUT: VisualVM's class histogram of DUMP
	HEAPJUDGE_TMPDIR=$W HEAPJUDGE_JAVA_OPTS=$JUDGE_OPTS BUILD=$B \
		"$root/tests/java/judge.sh" histo "$1" >"$2" 2>"$W/judge.err" ||
		{ cat "$W/judge.err" >&2; die "judge.sh histo $1 failed"; }
}

# shim_dump KIND JUDGE: the 'shim' variant's last dump ($W/KIND.stripped.hprof):
# hprofrestore's throughput on it (BEST[restore]), and its restored size
# against the bytes the JVM wrote (SIZE_NOTE); with JUDGE 1, VisualVM's
# histogram of it restored against the reference dump ($R/ref.gz) the
# same JVM took (VERDICT). A difference fails the run once the report is
# out (JUDGED_BAD). Removes the dumps.
shim_dump() {
	local kind=$1 judge=$2 stripped=$W/$1.stripped.hprof restored_size
	local h=$W/$1.histo
	say "$kind: hprofrestore's throughput on the shim's dump ..."
	STRIPPED_SIZE=$(size_of "$stripped")
	cat "$stripped" >/dev/null
	best3 restore "$B/hprofrestore" "$stripped" -o /dev/null

	VERDICT="not judged (nodes: BENCH_BIG_JUDGE_NODES=1)"
	if [ "$judge" = 1 ]; then
		say "$kind: VisualVM histogram of the reference ..."
		gzip -dc "$R/ref.gz" >"$W/$kind.ref.hprof" || die "gzip -dc of the judge's reference failed"
		rm -f "$R/ref.gz"
		histo "$W/$kind.ref.hprof" "$h.reference"
		rm -f "$W/$kind.ref.hprof"
		say "$kind: restoring the shim's dump, VisualVM histogram ..."
		"$B/hprofrestore" -o "$W/$kind.restored.hprof" "$stripped" ||
			die "hprofrestore of the shim's $kind dump failed"
		rm -f "$stripped"
		restored_size=$(size_of "$W/$kind.restored.hprof")
		histo "$W/$kind.restored.hprof" "$h.restored"
		rm -f "$W/$kind.restored.hprof"
		if cmp -s "$h.reference" "$h.restored"; then
			VERDICT="same ($(grep -cv -e '^roots ' -e '^total-instances ' "$h.reference") classes, $(sed -n 's/^total-instances \([0-9]*\) .*/\1/p' "$h.reference") instances)"
		else
			diff "$h.reference" "$h.restored" >"$h.diff" || true
			VERDICT="DIFFERENT (reference <, restored >; the first 10 lines):
$(awk '/^[<>]/ && n++ < 10' "$h.diff")"
			JUDGED_BAD=1
		fi
	else
		restored_size=$("$B/hprofrestore" "$stripped" | wc -c) ||
			die "hprofrestore of the shim's $kind dump failed"
	fi
	rm -f "$stripped"
	# hprofrestore gives back as many bytes as the JVM wrote
	SIZE_NOTE="restored shim dump: $restored_size bytes, as many as the JVM wrote"
	if [ "$restored_size" != "${JB[$kind.shim]}" ]; then
		SIZE_NOTE="restored shim dump: $restored_size bytes, NOT the ${JB[$kind.shim]} the JVM wrote"
		JUDGED_BAD=1
	fi
}

run_kind() {
	local kind=$1 r v name envs f rows judge=0
	local PLAIN=$W/$kind.plain.hprof STRIPPED=$W/$kind.stripped.hprof
	STRIPPED_SIZE='' VERDICT='' SIZE_NOTE=''
	if [ "$kind" = arrays ] || [ "$JUDGE_NODES" = 1 ]; then judge=1; fi

	# -- the JVM without the shim: floor, -gz=1, plain, round by round
	# (plain last: its last dump is kept for the throughput, and no other
	# dump is on the disk beside it)
	say "$kind: JVM without the shim (building $MB MB of heap) ..."
	start_jvm "$kind"
	# jcmd's own cost (a JVM that starts and attaches), for reading the
	# times of small heaps
	local ts=()
	for _ in 1 2 3; do
		local t0=$EPOCHREALTIME
		jcmd "$JVM_PID" VM.uptime >/dev/null 2>&1 || die "jcmd $JVM_PID VM.uptime failed"
		ts+=("$(calc %.3f "$EPOCHREALTIME - $t0")")
	done
	JCMD_ALONE=$(median "${ts[@]}")
	warm "$R/d.hprof"
	rows="floor plain"
	if [ "$GZ" = 1 ]; then rows="$rows -gz=1"; fi
	for ((r = 1; r <= RUNS; r++)); do
		dump "$kind.floor" - -overwrite /dev/null
		if [ "$GZ" = 1 ]; then dump "$kind.-gz=1" "$R/d.hprof" -gz=1 "$R/d.hprof"; fi
		dump "$kind.plain" "$R/d.hprof" "$R/d.hprof"
	done
	mv "$R/d.hprof" "$PLAIN"
	rm -f "$R"/*.hprof* "$R"/d.*
	memory "$kind.plain"
	stop_jvm

	# -- the tools on the plain dump, warm page cache, best of 3 (restore
	# is timed later, on the shim's dump: one big file on disk at a time);
	# the plain dump is no longer needed after that
	say "$kind: tools' throughput on the plain dump ..."
	local in=${SZ[$kind.plain]}
	cat "$PLAIN" >/dev/null
	best3 cat cat "$PLAIN"
	best3 info "$B/hprofstrip" --info "$PLAIN"
	best3 strip "$B/hprofstrip" "$PLAIN" -o /dev/null
	rm -f "$PLAIN"

	# -- one JVM per shim variant
	for name in "${VARIANTS[@]}"; do
		envs=${VENV[$name]}
		say "$kind: JVM with $name (building $MB MB of heap) ..."
		# HPROFSTRIP_SNIFF=no: only *.hprof is a dump, so the same
		# JVM, the shim loaded, takes its own floor (/dev/null) and
		# plain dump (d.bin, which the shim leaves alone) round by
		# round beside the variant's: JVMs that build the same heap
		# walk it at speeds up to 1.5x apart (measured: a floor of
		# 12.7 s in one, 19.9 s in another, 6 GiB of nodes)
		# shellcheck disable=SC2086
		start_jvm "$kind" LD_PRELOAD="$SHIM" HPROFSTRIP_QUIET=1 HPROFSTRIP_SNIFF=no ${envs//,/ }
		f=${VFILE[$name]/FILE/$R/d.hprof}
		warm "$R/d.hprof"
		for ((r = 1; r <= RUNS; r++)); do
			dump "$kind.$name@floor" - -overwrite /dev/null
			dump "$kind.$name@plain" "$R/d.bin" "$R/d.bin"
			dump "$kind.$name" "$f" "$R/d.hprof"
		done
		# d.bin is not a dump: the shim must have left it whole
		[ "${SZ[$kind.$name@plain]}" = "${JB[$kind.$name@plain]}" ] ||
			die "$kind.$name: the shim changed d.bin, which is not a dump"
		check_file "$kind.$name" "$f" "${VDEC[$name]}"
		if [ "$name" = shim ]; then mv "$f" "$STRIPPED"; fi
		rm -f "$R"/*.hprof* "$R"/d.*
		memory "$kind.$name"
		if [ "$name" = shim ] && [ $judge = 1 ]; then
			# the judge's reference: a plain dump of this JVM's heap,
			# right after the stripped one. Not the plain JVM's dump:
			# JVMs that build the same heap may differ by a few
			# constant-pool Strings, resolved or not. -gz=1, because the
			# shim writes a gzip dump unchanged (its environment stays
			# the one measured); untimed
			say "$kind: the judge's reference, a -gz=1 dump of the same JVM ..."
			if ! jcmd "$JVM_PID" GC.heap_dump -gz=1 "$R/ref.gz" >"$R/jcmd" 2>&1 ||
			   ! grep -q 'Heap dump file created' "$R/jcmd"; then
				cat "$R/jcmd" "$R/err" >&2
				die "$kind: jcmd GC.heap_dump -gz=1 (the judge's reference) failed"
			fi
		fi
		stop_jvm
		# the shim's dump is used at once, before the next JVM's dumps
		# join it on the disk
		if [ "$name" = shim ]; then shim_dump "$kind" $judge; fi
	done

	# -- the report for this kind
	local p f0 k t m
	p=$(med "$kind.plain")
	f0=$(med "$kind.floor")
	echo "$kind heap: $MB MB, jcmd GC.heap_dump, $RUNS rounds"
	rule
	printf '%-11s %8s  %-26s %8s %8s %14s %8s\n' variant "median s" "rounds s" "x plain" "x floor" "file bytes" "% plain"
	for v in $rows "${VARIANTS[@]}"; do
		k=$kind.$v
		m=$(med "$k")
		t=${T[$k]% }
		# a shim variant against its own JVM's plain dump and floor
		if [ -n "${T[$k@plain]:-}" ]; then
			p=$(med "$k@plain") f0=$(med "$k@floor")
		fi
		printf '%-11s %8.3f  %-26s %8s %8s %14s %7.2f%%\n' "$v" "$m" "$t" \
			"$(ratio "$m" "$p")x" "$(ratio "$m" "$f0")x" "${SZ[$k]}" \
			"$(calc %.4f "100 * ${SZ[$k]} / ${SZ[$kind.plain]}")"
	done
	echo "floor's bytes: what jcmd says the JVM wrote to /dev/null. jcmd alone (VM.uptime, median of 3): $JCMD_ALONE s"
	echo "x plain, x floor of a shim variant: against its own JVM's, below."
	echo
	echo "$kind: each shim JVM's own floor and plain dump (HPROFSTRIP_SNIFF=no:"
	echo "/dev/null, and d.bin, which the shim leaves alone), round by round with"
	echo "the variant's; the worst round: the variant's time over the plain"
	echo "dump's of the same round"
	printf '%-11s %8s  %-22s %8s  %-22s %12s\n' JVM floor "rounds s" plain "rounds s" "worst round"
	for v in "${VARIANTS[@]}"; do
		k=$kind.$v
		printf '%-11s %8.3f  %-22s %8.3f  %-22s %11sx\n' "$v" "$(med "$k@floor")" "${T[$k@floor]% }" \
			"$(med "$k@plain")" "${T[$k@plain]% }" "$(calc %.2f "$(worst "$k")")"
	done
	for v in "${!NOTE[@]}"; do echo "$v: skipped: ${NOTE[$v]}"; done
	echo

	echo "$kind: memory, KiB, read from /proc/PID after the JVM's last dump"
	printf '%-11s %12s %12s %14s %22s\n' JVM "VmHWM" "VmRSS" "shim lib Rss" "shim .bss Rss (size)"
	for v in plain "${VARIANTS[@]}"; do
		k=$kind.$v
		t="${BSSKB[$k]} (${BSSSIZE[$k]})"
		[ "${BSSKB[$k]}" != - ] || t=-
		printf '%-11s %12s %12s %14s %22s\n' "$v" "${HWM[$k]}" "${RSSKB[$k]}" "${LIBKB[$k]}" "$t"
	done
	echo "VmHWM: the JVM's peak RSS over its life (heap pretouched: the whole heap is"
	echo "in every one); shim lib: libhprofstrip.so's mappings; .bss: the anonymous"
	echo "mapping right after them (size: all of it, resident or not). The shim's"
	echo "share of VmHWM is the difference to the plain JVM's, within the 1-2 MiB"
	echo "that identical JVMs differ by; memory the shim mapped and unmapped during"
	echo "a dump shows only there."
	echo

	echo "$kind: the tools, warm page cache, best of 3"
	printf '%-44s %8s %8s %8s  %s\n' operation "best s" "GB/s" "x cat" target
	local cat_rate op l tg n
	cat_rate=$(calc %.6f "$in / ${BEST[cat]}")
	for op in cat info strip restore; do
		n=$in
		case $op in
		cat) l="cat PLAIN >/dev/null" tg= ;;
		info) l="hprofstrip --info PLAIN >/dev/null" tg=">= 5 GB/s" ;;
		strip) l="hprofstrip PLAIN -o /dev/null" tg=">= 5 GB/s" ;;
		restore) l="hprofrestore STRIPPED -o /dev/null" tg='' n=${JB[$kind.shim]} ;;
		esac
		printf '%-44s %8.3f %8.2f %7.2fx  %s\n' "$l" "${BEST[$op]}" \
			"$(calc %.4f "$n / ${BEST[$op]} / 1e9")" "$(calc %.4f "$n / ${BEST[$op]} / $cat_rate")" "$tg"
	done
	echo "PLAIN: the plain dump, $in bytes; STRIPPED: the shim's last dump,"
	echo "$STRIPPED_SIZE bytes. GB/s: PLAIN's bytes over the time; for restore, the"
	echo "bytes it writes (${JB[$kind.shim]}, what the JVM wrote into the shim)."
	echo "x cat: the rate over cat's."
	echo
	echo "VisualVM histogram: $VERDICT"
	if [ "$judge" = 1 ]; then
		echo "  (tests/java/judge.sh histo of the shim's last dump, restored, and of a plain"
		echo "  dump the same JVM took right after it: -gz=1, which the shim leaves as it is)"
	fi
	echo "$SIZE_NOTE"
	echo
}

# ---- the goals ----------------------------------------------------------

# goal TEXT MEASURED TARGET: "goal TEXT: measured Xx (met | gap Yx)"
goal() {
	if [ "$2" = - ]; then
		echo "goal $1: not measured (variant skipped)"
	elif [ "$(calc %d "$2 <= $3")" = 1 ]; then
		echo "goal $1: measured $(calc %.2f "$2")x (met)"
	else
		echo "goal $1: measured $(calc %.2f "$2")x (gap $(calc %.2f "$2 - $3")x)"
	fi
}
# over KIND VARIANT BASE: VARIANT's median over the median of BASE (plain,
# floor) in VARIANT's own JVM, or -
over() { [ -n "${T[$1.$2]:-}" ] || { echo -; return; }; calc %.4f "$(med "$1.$2") / $(med "$1.$2@$3")"; }
goals() {
	echo "goals (ratios of medians in the variant's own JVM, same run; a report, not a test)"
	rule
	local k
	for k in $KINDS; do
		case $k in
		nodes)
			goal "nodes: shim <= 1.05x plain in every round (its worst round)" \
				"$(worst nodes.shim)" 1.05
			goal "nodes: shim+zstd <= 1.3x plain" "$(over nodes shim+zstd plain)" 1.3
			goal "nodes: shim+lz4 <= 1.3x plain (for information)" "$(over nodes shim+lz4 plain)" 1.3
			;;
		arrays)
			goal "arrays: shim+zstd <= 1.0x floor" "$(over arrays shim+zstd floor)" 1.0
			goal "arrays: shim+keep <= 1.1x floor" "$(over arrays shim+keep floor)" 1.1
			goal "arrays: shim+lz4 <= 1.0x floor (for information)" "$(over arrays shim+lz4 floor)" 1.0
			;;
		esac
	done
	echo
}

JUDGED_BAD=0
for kind in $KINDS; do
	run_kind "$kind"
done
goals
kill "$DU_PID" 2>/dev/null || true
wait "$DU_PID" 2>/dev/null || true
DU_PID=''
echo "bench-big took $(calc %.0f "$EPOCHREALTIME - $T_START") s; peak size of $W: $(calc %.2f "$(cat "$W/.du-peak" 2>/dev/null || echo 0) / 1e9") GB; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "${W:?}"
[ $JUDGED_BAD = 0 ] || die "a restored dump is not the plain one (VisualVM's histogram or the size differ)"
