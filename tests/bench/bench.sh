#!/usr/bin/env bash
# Benchmark figures for hprofstrip, hprofrestore and libhprofstrip.so.
#
#   BUILD=build tests/bench/bench.sh        (or: make bench)
#
# Prints tables; asserts nothing about speed. In one run:
#   1. a heap dump of about BENCH_MB (default 1200) MB from a real JVM
#      (tests/bench/BigHeap.java), kept in BENCH_DIR (default
#      /tmp/hprofstrip-bench) and reused while the generator, the size and
#      the JDK are unchanged
#   2. throughput file to file, best of 3, warm page cache: cat, cp, dd,
#      hprofstrip, hprofrestore, with ratios to cp from the same run
#   3. peak RSS of hprofstrip and hprofrestore (GNU time %M)
#   4. JVM dumpHeap wall time without and with the shim, best of 2 each
#      (BENCH_JVM_RUNS)
#   5. peak RSS the shim adds to the JVM during the dump
#   6. keeping strings: the share of String values kept (tests/strcheck,
#      an independent parser) from a file and streamed from a pipe, and
#      the size it costs, on every corpus dump and on fresh JDK 17 dumps
#      of tests/java/StringHeap under G1, Parallel and Serial GC; and the
#      time --keep-strings takes against a plain strip of the big dump
#   7. compression while the JVM dumps (tests/bench/compress.sh): jcmd
#      GC.heap_dump plain, with -gz=1, under the shim, and under the shim
#      with HPROFSTRIP_COMPRESS=zstd, on a heap of large arrays and on a
#      heap of small objects; time and file size of each
#   8. redaction against plain stripping (tests/bench/redact.sh): jcmd
#      GC.heap_dump under the shim with and without HPROFSTRIP_REDACT=values
#      (one JVM each, each against its own floor and unstripped dump),
#      and hprofstrip --redact against hprofstrip, on the same two heaps;
#      the ratios the issue set a goal for (<= 1.10x)
#   9. the class histogram (tests/bench/histo.sh): jcmd GC.heap_dump under
#      the shim with the histogram on and off (HPROFSTRIP_HISTO=no), one
#      JVM each, on both heaps (goal <= 1.02x); hprofstrip --histo against
#      --info and cat on the small-object dump, page cache warm (goal
#      --histo <= 2.5x cat)
#  10. keeping bitmaps (tests/bench/bitmaps.sh): 200 bitmaps of
#      tests/java/BitmapHeap (pictures in DumpData as AOSP's dumpAll
#      allocates them, the pictures first, and API 25's raw mBuffer), in
#      HotSpot's order and ART's form, and the corpus's Dalvik dump: full,
#      plain strip and --keep-bitmaps sizes, the arrays kept from a file
#      and from a pipe
#  12. the leak analysis, hprofstrip --suspects (tests/bench/suspects.sh):
#      against cat, VisualVM's library and --max-memory at a quarter, on a
#      1 GiB small-object heap and a 10-million-object cache leak; peak
#      RSS per object
#  11. what a process that never dumps pays for the shim in its
#      LD_PRELOAD (tests/bench/bystander.sh, also make bench-bystander):
#      process starts, a file loop, tar x and a JVM's start, each paired
#      run by run against an empty preloaded library; an idle process's
#      memory; user-space instructions counted by valgrind
# Parts 4 and 5 are skipped when $BUILD/libhprofstrip.so does not exist as
# the bench starts.
# Installs GNU time and webp (cwebp, for section 10) if missing (as root,
# through apt-get).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
root=$(cd "$here/../.." && pwd)
cd "$root"
BUILD=${BUILD:-build}
W=${BENCH_DIR:-/tmp/hprofstrip-bench}
MB=${BENCH_MB:-1200}
RUNS=3      # throughput runs per operation
JRUNS=${BENCH_JVM_RUNS:-2}   # JVM runs per variant
XMX=$((2 * MB + 1024))   # MiB of Java heap: the live set is about MB

die() { echo "bench: $*" >&2; exit 1; }

case $MB in ''|*[!0-9]*) die "BENCH_MB must be a number of megabytes" ;; esac
case $JRUNS in ''|0|*[!0-9]*) die "BENCH_JVM_RUNS must be a positive number" ;; esac
[ -x "$BUILD/hprofstrip" ] && [ -x "$BUILD/hprofrestore" ] ||
	die "$BUILD/hprofstrip or $BUILD/hprofrestore missing: run make first"
B=$(cd "$BUILD" && pwd)
SHIM=$B/libhprofstrip.so
HAVE_SHIM=0
[ -e "$SHIM" ] && HAVE_SHIM=1
command -v java >/dev/null && command -v javac >/dev/null ||
	die "java and javac (OpenJDK 17) are needed"
mkdir -p "$W"

# ---- GNU time ----------------------------------------------------------

# apt-get install, waiting while another process holds the dpkg/apt lock.
apt_install() {
	local try updated=0
	[ "$(id -u)" = 0 ] || die "not root: install $* yourself"
	export DEBIAN_FRONTEND=noninteractive
	for try in $(seq 1 40); do
		if apt-get -o DPkg::Lock::Timeout=30 install -y -q "$@" \
		     >"$W/apt.log" 2>&1; then
			return 0
		fi
		if grep -qiE 'lock|could not get|temporarily unavailable' "$W/apt.log"; then
			echo "bench: apt is busy (try $try), waiting..." >&2
			sleep 10
		elif [ $updated = 0 ]; then
			updated=1
			apt-get -o DPkg::Lock::Timeout=300 update -q >>"$W/apt.log" 2>&1 || true
		else
			cat "$W/apt.log" >&2
			die "apt-get install $* failed"
		fi
	done
	die "apt stayed locked; install $* yourself"
}
[ -x /usr/bin/time ] || apt_install time
# section 10's WEBP pictures (tests/java/BitmapHeap.java runs cwebp)
command -v cwebp >/dev/null || apt_install webp
/usr/bin/time -f %M true >/dev/null 2>&1 || die "/usr/bin/time is not GNU time"

# ---- helpers -----------------------------------------------------------

mbytes() { calc %.1f "$1 / 1e6"; }

declare -A BEST USR SYS RSS TIMES
T_START=$EPOCHREALTIME
# the last lines: how long the bench took, the load while it ran
footer() {
	echo
	echo "bench took $(calc %.0f "$EPOCHREALTIME - $T_START") s; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# run_best KEY OUT CMD...: one timed run of CMD (stdout to /dev/null,
# stderr kept). OUT ('-': none) is removed and the system synced first,
# untimed, so no writeback from an earlier run competes. Keeps the best
# wall time, the user+sys CPU of that run, the highest peak RSS.
run_best() {
	local key=$1 out=$2 t0 t1 w m u s
	shift 2
	[ "$out" = - ] || rm -f "$out"
	sync
	t0=$EPOCHREALTIME
	if ! /usr/bin/time -f '%M %U %S' -o "$W/time.txt" "$@" \
	     >/dev/null 2>"$W/stderr.txt"; then
		cat "$W/stderr.txt" "$W/time.txt" >&2
		die "$key: '$*' failed"
	fi
	t1=$EPOCHREALTIME
	read -r m u s <"$W/time.txt"
	w=$(calc %.4f "$t1 - $t0")
	TIMES[$key]="${TIMES[$key]:-}$(calc %.2f "$w") "
	if [ -z "${BEST[$key]:-}" ] || [ "$(calc %d "$w < ${BEST[$key]}")" = 1 ]; then
		BEST[$key]=$w
		USR[$key]=$u
		SYS[$key]=$s
	fi
	if [ "$m" -gt "${RSS[$key]:-0}" ]; then
		RSS[$key]=$m
	fi
}

# ---- header ------------------------------------------------------------

git_rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD -- strip restore preload 2>/dev/null || git_rev="$git_rev+uncommitted"
echo "hprofstrip bench, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
rule
printf '%-14s %s\n' \
	host "$(nproc) cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)), $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM, $(uname -sr)" \
	os "$(. /etc/os-release && echo "$PRETTY_NAME")" \
	"work dir" "$W ($(findmnt -no FSTYPE -T "$W" 2>/dev/null || echo '?') on $(findmnt -no SOURCE -T "$W" 2>/dev/null || echo '?'))" \
	hprofstrip "$("$B/hprofstrip" --version) ($B/hprofstrip, source $git_rev)" \
	hprofrestore "$("$B/hprofrestore" --version)" \
	shim "$( [ $HAVE_SHIM = 1 ] && echo "$SHIM ($(size_of "$SHIM") bytes)" || echo "$SHIM: absent")" \
	compiler "$(${CC:-cc} --version 2>/dev/null | head -1)" \
	java "$(java -version 2>&1 | sed -n 2p)" \
	cp "$(cp --version | head -1)" \
	"GNU time" "$(dpkg-query -W -f '${Version}' time 2>/dev/null || echo '?')" \
	load "$(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) at the start; other work on the machine adds noise"
echo

# ---- 1. the dump -------------------------------------------------------

classes=$W/classes
stamp_want="$(sha256sum "$here/BigHeap.java" | cut -d' ' -f1) mb=$MB $(java -version 2>&1 | sed -n 2p)"
if [ "$(cat "$classes/stamp" 2>/dev/null)" != "$stamp_want" ]; then
	rm -rf "$classes"
	mkdir -p "$classes"
	javac -d "$classes" "$here/BigHeap.java"
	echo "$stamp_want" >"$classes/stamp"
fi
JOPTS=("-Xms${XMX}m" "-Xmx${XMX}m" -XX:+AlwaysPreTouch -XX:+UseG1GC)

# jvm_run OUT.hprof LOG [VAR=VALUE...]: BigHeap in a fresh JVM, dumping to
# OUT.hprof; its key=value lines go to LOG, GNU time's peak RSS is added
# as time_rss_kb. Returns the JVM's status.
jvm_run() {
	local out=$1 log=$2 rc=0
	shift 2
	rm -f "$out"
	sync
	/usr/bin/time -f 'time_rss_kb=%M' -o "$log.time" env "$@" \
		java "${JOPTS[@]}" -cp "$classes" BigHeap "$out" "$MB" >"$log" 2>"$log.err" || rc=$?
	cat "$log.time" >>"$log"
	return $rc
}
val() { sed -n "s/^$2=//p" "$1" | tail -1; }

DUMP=$W/big.hprof
gen_state="reused (generator, BENCH_MB and JDK unchanged)"
if [ "$(cat "$W/big.stamp" 2>/dev/null)" != "$stamp_want" ] || [ ! -s "$DUMP" ]; then
	echo "generating a ~$MB MB dump (java -Xmx${XMX}m BigHeap) ..." >&2
	rm -f "$DUMP" "$W/big.stamp"
	jvm_run "$W/gen.hprof" "$W/gen.out" ||
		{ cat "$W/gen.out.err" >&2; die "BigHeap failed"; }
	mv "$W/gen.hprof" "$DUMP"
	echo "$stamp_want" >"$W/big.stamp"
	gen_state="generated in this run"
fi
IN_SIZE=$(size_of "$DUMP")
echo "1. Heap dump"
rule
g=$W/gen.out
printf '%-14s %s\n' \
	file "$DUMP, $IN_SIZE bytes ($(mbytes "$IN_SIZE") MB, $(calc %.2f "$IN_SIZE / 1073741824") GiB), $gen_state" \
	made-by "BigHeap $MB: HotSpotDiagnosticMXBean.dumpHeap(f, true), java ${JOPTS[*]}" \
	contents "$(val "$g" nodes) linked nodes, ~$(val "$g" small_objects) small objects in all;" \
	"" "$(val "$g" arrays) large primitive arrays (1-16 MB, all 8 types), $(mbytes "$(val "$g" array_bytes)") MB of elements" \
	"plain dump" "$(val "$g" dump_ms) ms for dumpHeap when it was generated"
echo

# ---- 2 and 3. throughput and peak RSS of the tools ----------------------

STRIPPED=$W/out.stripped.hprof
RESTORED=$W/out.restored.hprof
COPY=$W/out.copy.hprof
echo "running throughput: $RUNS rounds of cat, cp, dd, hprofstrip, hprofrestore ..." >&2
cat "$DUMP" >/dev/null   # warm the page cache, untimed
for ((round = 1; round <= RUNS; round++)); do
	run_best cat - cat "$DUMP"
	run_best cp "$COPY" cp "$DUMP" "$COPY"
	rm -f "$COPY"
	run_best dd "$COPY" dd if="$DUMP" of="$COPY" bs=1M
	rm -f "$COPY"
	run_best strip "$STRIPPED" "$B/hprofstrip" -o "$STRIPPED" "$DUMP"
	STRIP_SIZE=$(size_of "$STRIPPED")
	run_best restore "$RESTORED" "$B/hprofrestore" -o "$RESTORED" "$STRIPPED"
	REST_SIZE=$(size_of "$RESTORED")
	# streamed: a pipe gets segments written as they come, no spool
	run_best stream "$COPY" sh -c '"$1" <"$2" | cat >"$3"' _ "$B/hprofstrip" "$DUMP" "$COPY"
	STREAM_SIZE=$(size_of "$COPY")
	rm -f "$COPY"
	run_best rstream "$COPY" sh -c '"$1" <"$2" | cat >"$3"' _ "$B/hprofrestore" "$STRIPPED" "$COPY"
	rm -f "$COPY"
	# deleted before the next sync: their dirty pages never reach the disk
	rm -f "$RESTORED" "$STRIPPED"
done

cp_rate=$(calc %.6f "$IN_SIZE / ${BEST[cp]} / 1e6")
# row LABEL KEY IN_BYTES OUT_BYTES RATIO_BYTES TARGET
# RATIO_BYTES: the bytes whose rate is compared with cp's (0: no ratio)
row() {
	local key=$2 t=${BEST[$2]} in_r out_r ratio=-
	in_r=$(calc %.0f "$3 / $t / 1e6")
	out_r=$([ "$4" = 0 ] && echo - || calc %.0f "$4 / $t / 1e6")
	[ "$5" = 0 ] || ratio=$(calc %.2fx "$5 / $t / 1e6 / $cp_rate")
	printf '%-28s %7.3f  %-16s %11s %8s %8s %6s  %s\n' "$1" "$t" "${TIMES[$key]% }" \
		"${USR[$key]}+${SYS[$key]}" "$in_r" "$out_r" "$ratio" "$6"
}
echo "2. Throughput, file to file, best of $RUNS (rounds interleaved), $(mbytes "$IN_SIZE") MB dump"
rule
cat <<EOF
Page cache warm for every run: the dump was read once before timing, and
the stripped file is read right after hprofstrip wrote it. Outputs go to
the page cache on $(findmnt -no FSTYPE -T "$W" 2>/dev/null || echo '?'); before each run the output is removed and sync
runs (untimed), so no earlier writeback competes; flushing to disk is not
timed. cp 9.x copies with copy_file_range (in the kernel, no user-space
copy); dd bs=1M is the read()/write() reference. MB = 10^6 bytes.
'x cp' = rate of the full-size stream (strip: input, restore: output)
over cp's rate.

EOF
printf '%-28s %7s  %-16s %11s %8s %8s %6s  %s\n' operation "best s" "runs s" "usr+sys s" \
	"MB/s in" "MB/s out" "x cp" target
row "cat IN > /dev/null" cat "$IN_SIZE" 0 0 ""
row "cp IN OUT" cp "$IN_SIZE" "$IN_SIZE" "$IN_SIZE" ""
row "dd if=IN of=OUT bs=1M" dd "$IN_SIZE" "$IN_SIZE" "$IN_SIZE" ""
row "hprofstrip -o OUT IN" strip "$IN_SIZE" "$STRIP_SIZE" "$IN_SIZE" ">= 0.70x"
row "hprofrestore -o OUT2 OUT" restore "$STRIP_SIZE" "$REST_SIZE" "$REST_SIZE" ">= 0.50x (output rate)"
row "hprofstrip <IN | cat >OUT" stream "$IN_SIZE" "$STREAM_SIZE" "$IN_SIZE" ">= 0.70x (streamed)"
row "hprofrestore <OUT | cat >O2" rstream "$STRIP_SIZE" "$REST_SIZE" "$REST_SIZE" "(none: cat copies it once more)"
echo
printf 'sizes: dump %s bytes -> stripped %s bytes (%.1f%%) -> restored %s bytes (%s the dump'"'"'s size)\n' \
	"$IN_SIZE" "$STRIP_SIZE" "$(calc %.4f "100 * $STRIP_SIZE / $IN_SIZE")" "$REST_SIZE" \
	"$([ "$REST_SIZE" = "$IN_SIZE" ] && echo same as || echo 'NOT the same as')"
echo 'usr+sys s: CPU seconds of the best run (GNU time).'
echo

echo "3. Peak RSS (GNU time %M, highest of the $RUNS runs)"
rule
printf '%-34s %10s %9s  %s\n' program "KiB" "MiB" target
for k in strip restore cp cat; do
	case $k in
	strip) l=hprofstrip; tg="< 8 MiB" ;;
	restore) l=hprofrestore; tg="< 8 MiB" ;;
	*) l="$k (reference)"; tg="" ;;
	esac
	printf '%-34s %10s %9s  %s\n' "$l" "${RSS[$k]}" "$(calc %.2f "${RSS[$k]} / 1024")" "$tg"
done
echo

# ---- 4 and 5. the JVM with and without the shim -------------------------

echo "4. JVM dumpHeap wall time, without and with the shim"
rule
if [ $HAVE_SHIM = 0 ]; then
	echo "SKIPPED: $SHIM did not exist when the bench started (make, then rerun)."
	echo
	echo "5. Peak RSS the shim adds to the JVM"
	rule
	echo "SKIPPED: $SHIM did not exist when the bench started."
	footer
	exit 0
fi

J=$W/jvm
mkdir -p "$J"
rm -f "$J"/*
declare -a P_MS=() S_MS=() P_GC=() S_GC=() P_HWM=() S_HWM=() P_GROW=() S_GROW=()
declare -a P_RSS=() S_RSS=() P_SIZE=() S_SIZE=() P_JIT=() S_JIT=()
S_SHIM=- S_VALID="not checked" S_FILES="" S_SAID=""
echo "running $JRUNS x 2 JVMs (-Xmx${XMX}m, plain and shim interleaved) ..." >&2
for ((r = 1; r <= JRUNS; r++)); do
	for v in plain shim; do
		log=$J/$v.$r.out
		out=$J/$v.hprof
		if [ $v = plain ]; then
			envs=()
		else
			envs=(LD_PRELOAD="$SHIM" HPROFSTRIP_PATTERN='*.hprof')
		fi
		if ! jvm_run "$out" "$log" "${envs[@]}"; then
			echo "$v run $r: the JVM failed (exit status, stderr below)"
			tail -20 "$log.err"
			ms=- gc=- hwm=- grow=- trss=- sz=- jit=-
		else
			ms=$(val "$log" dump_ms) gc=$(val "$log" gc_ms)
			hwm=$(val "$log" hwm_dump_kb)
			grow=$((hwm - $(val "$log" rss_before_kb)))
			trss=$(val "$log" time_rss_kb) jit=$(val "$log" jit_ms)
			sz=$( [ -e "$out" ] && size_of "$out" || echo -)
		fi
		if [ $v = plain ]; then
			P_MS+=("$ms") P_GC+=("$gc") P_HWM+=("$hwm") P_GROW+=("$grow")
			P_RSS+=("$trss") P_SIZE+=("$sz") P_JIT+=("$jit")
		else
			S_MS+=("$ms") S_GC+=("$gc") S_HWM+=("$hwm") S_GROW+=("$grow")
			S_RSS+=("$trss") S_SIZE+=("$sz") S_JIT+=("$jit")
			S_SHIM=$(val "$log" shim_rss_kb)
			S_SAID=$(head -3 "$log.err")
			S_FILES=$(cd "$J" && ls -l --time-style=+ -- *.hprof* 2>/dev/null |
				awk '{ printf "%s%s %s", s, $NF, $5; s = ", " }')
			# the shim's dump must parse, and be stripped already:
			# stripping it again must change nothing
			if [ "$r" = 1 ] && [ -e "$out" ]; then
				if "$B/hprofstrip" -q -o "$J/check.hprof" "$out" &&
				   cmp -s "$out" "$J/check.hprof"; then
					S_VALID="yes: hprofstrip reads it whole and leaves it unchanged"
				else
					S_VALID="NO: hprofstrip rejects it or changes it"
				fi
				rm -f "$J/check.hprof"
			fi
		fi
		rm -f "$J"/*.hprof*
	done
done

# min of numbers, '-' ignored
minof() { printf '%s\n' "$@" | awk '$1 != "-" && (m == "" || $1 + 0 < m + 0) { m = $1 } END { print (m == "" ? "-" : m) }'; }
maxof() { printf '%s\n' "$@" | awk '$1 != "-" && (m == "" || $1 + 0 > m + 0) { m = $1 } END { print (m == "" ? "-" : m) }'; }
# net: dump ms - GC ms, per run
net() { local a=("${@:2:$1}") b=("${@:$(($1 + 2))}") i; for ((i = 0; i < $1; i++)); do
	if [ "${a[i]}" = - ]; then echo -; else calc '%.1f\n' "${a[i]} - ${b[i]}"; fi; done; }
mapfile -t P_NET < <(net "$JRUNS" "${P_MS[@]}" "${P_GC[@]}")
mapfile -t S_NET < <(net "$JRUNS" "${S_MS[@]}" "${S_GC[@]}")
pbest=$(minof "${P_MS[@]}") sbest=$(minof "${S_MS[@]}")
pnet=$(minof "${P_NET[@]}") snet=$(minof "${S_NET[@]}")
cat <<EOF
$JRUNS JVMs per variant, interleaved, each a fresh
  java ${JOPTS[*]} BigHeap f.hprof $MB
which builds the same heap, runs System.gc() twice, waits (<= 5 s) for
the JIT to go idle, then times with System.nanoTime() only
HotSpotDiagnosticMXBean.dumpHeap(f, true). That call starts with a full
GC for live objects: 'GC ms' is its share, from the
GarbageCollectorMXBeans; 'net' = dumpHeap - GC. Shim runs add
  LD_PRELOAD=$SHIM HPROFSTRIP_PATTERN='*.hprof'
Output to $J (page cache; sync before each JVM, untimed).

EOF
printf '%-8s %-20s %9s   %-14s %-20s %s\n' variant "dumpHeap ms (runs)" "best ms" "GC ms (runs)" "net ms (runs)" "file bytes (runs)"
printf '%-8s %-20s %9s   %-14s %-20s %s\n' plain "${P_MS[*]}" "$pbest" "${P_GC[*]}" "${P_NET[*]}" "${P_SIZE[*]}"
printf '%-8s %-20s %9s   %-14s %-20s %s\n' shim "${S_MS[*]}" "$sbest" "${S_GC[*]}" "${S_NET[*]}" "${S_SIZE[*]}"
echo
if [ "$pbest" != - ] && [ "$sbest" != - ]; then
	echo "ratio shim/plain, best dumpHeap: $(calc %.2fx "$sbest / $pbest")   target <= 1.00x"
	echo "ratio shim/plain, best net:      $(calc %.2fx "$snet / $pnet")"
fi
if [ "${P_SIZE[0]}" != - ] && [ "${S_SIZE[0]}" != - ]; then
	echo "shim's file / plain file: $(calc %.1f%% "100 * ${S_SIZE[0]} / ${P_SIZE[0]}")"
fi
echo "files after a shim run: ${S_FILES:-none}"
echo "shim's dump valid: $S_VALID"
[ -z "$S_SAID" ] || printf 'shim said on stderr: %s\n' "$S_SAID"
echo

echo "5. Peak RSS the shim adds to the JVM (target < 1 MiB = 1024 KiB)"
rule
cat <<EOF
dump peak = VmHWM read in Java after dumpHeap; the peak was reset
(/proc/self/clear_refs 5) just before the call, so this is the peak RSS
during the dump. growth = dump peak - RSS just before the call. JVM peak =
GNU time %M of the whole JVM. -Xms = -Xmx with AlwaysPreTouch keeps the
whole heap resident in every run, and BigHeap waits for the JIT to go
idle before dumping, yet the JVM's RSS still moves by 1 to 2 MiB between
identical runs (JIT compilations still ending during the dump: 'JIT ms';
GC, malloc arenas, the dumper's buffers): a difference within the
run-to-run spread is noise, not the shim. The direct measurement below
is the shim's own memory.

EOF
printf '%-8s %-22s %-12s %-22s %s\n' variant "dump peak KiB (runs)" "growth KiB" "JVM peak KiB (runs)" "JIT ms"
printf '%-8s %-22s %-12s %-22s %s\n' plain "${P_HWM[*]}" "${P_GROW[*]}" "${P_RSS[*]}" "${P_JIT[*]}"
printf '%-8s %-22s %-12s %-22s %s\n' shim "${S_HWM[*]}" "${S_GROW[*]}" "${S_RSS[*]}" "${S_JIT[*]}"
echo
spread() { local a b; a=$(minof "$@") b=$(maxof "$@"); if [ "$a" = - ]; then echo -; else echo $((b - a)); fi; }
# diffmin N PLAIN... SHIM...: min(SHIM) - min(PLAIN)
diffmin() {
	local a b
	a=$(minof "${@:2:$1}") b=$(minof "${@:$(($1 + 2))}")
	if [ "$a" = - ] || [ "$b" = - ]; then echo -; else echo $((b - a)); fi
}
printf '%-36s %10s %10s %10s\n' "KiB" "dump peak" growth "JVM peak"
printf '%-36s %10s %10s %10s\n' "shim - plain (min vs min)" \
	"$(diffmin "$JRUNS" "${P_HWM[@]}" "${S_HWM[@]}")" \
	"$(diffmin "$JRUNS" "${P_GROW[@]}" "${S_GROW[@]}")" \
	"$(diffmin "$JRUNS" "${P_RSS[@]}" "${S_RSS[@]}")"
printf '%-36s %10s %10s %10s\n' "spread within plain runs" "$(spread "${P_HWM[@]}")" \
	"$(spread "${P_GROW[@]}")" "$(spread "${P_RSS[@]}")"
printf '%-36s %10s %10s %10s\n' "spread within shim runs" "$(spread "${S_HWM[@]}")" \
	"$(spread "${S_GROW[@]}")" "$(spread "${S_RSS[@]}")"
echo
echo "measured directly: resident memory of the shim's own mappings after the"
echo "dump (code, data and .bss, from /proc/self/smaps): ${S_SHIM} KiB"
echo "  (-1: not mapped; malloc'ed or mmap'ed memory would not be in this figure)"
echo "  its sections (size -A), .bss pages count only once touched:"
size -A "$SHIM" 2>/dev/null |
	awk '$1 ~ /^\.(text|rodata|data|bss)$/ { printf "    %-8s %9d bytes\n", $1, $2 }'
echo "  HPROFSTRIP_KEEP=strings maps 896 KiB of tables per dump besides"
echo

echo "6. Keeping strings (--keep-strings, HPROFSTRIP_KEEP=strings)"
rule
echo "kept: String values whose elements were kept, by tests/strcheck (no other"
echo "array may be kept). file: exact, two passes; pipe: one pass, fixed tables,"
echo "as the shim does. cost: the --keep-strings file over the plain stripped one."
echo
"$root/tests/java/judge.sh" build >&2
K=$W/keep
CORPUS=${HPROFSTRIP_CORPUS:-$root/../shared/corpus}
mkdir -p "$K"
for gc in G1 Parallel Serial; do
	[ -s "$K/jdk17-$gc.hprof" ] ||
		java -Xmx64m -XX:+Use${gc}GC -cp "$BUILD/java" StringHeap mxbean "$K/jdk17-$gc.hprof" >&2
done
printf '%-36s %7s %8s %8s %9s %9s %6s\n' dump strings "kept file" "kept pipe" "stripped" "kept" cost
for f in "$CORPUS"/*/*.hprof "$K"/jdk17-*.hprof; do
	"$BUILD/hprofstrip" -o "$K/plain" "$f"
	"$BUILD/hprofstrip" --keep-strings -o "$K/file" "$f"
	cat "$f" | "$BUILD/hprofstrip" --keep-strings >"$K/pipe"
	fc=$("$BUILD/strcheck" "$f" "$K/file" | sed -n 's/.*strings \([0-9]*\), .*kept [0-9]* (\([0-9.]*%\)).*/\1 \2/p')
	pc=$("$BUILD/strcheck" "$f" "$K/pipe" | sed -n 's/.* kept [0-9]* (\([0-9.]*%\)).*/\1/p')
	ps=$(size_of "$K/plain") ks=$(size_of "$K/file")
	printf '%-36s %7s %8s %8s %9s %9s %6s\n' "$(basename "$f" .hprof)" "${fc% *}" \
		"${fc#* }" "$pc" "$ps" "$ks" "+$(calc %.1f%% "100 * ($ks - $ps) / $ps")"
done
echo
echo "running --keep-strings and plain strips of the $(mbytes "$IN_SIZE") MB dump ..." >&2
unset 'BEST[plain]' 'BEST[keep]' 'BEST[keeppipe]'
for _ in 1 2; do
	run_best plain "$K/big" "$BUILD/hprofstrip" -o "$K/big" "$DUMP"
	run_best keep "$K/big" "$BUILD/hprofstrip" --keep-strings -o "$K/big" "$DUMP"
	run_best keeppipe - sh -c 'cat "$1" | "$2" --keep-strings >/dev/null' _ "$DUMP" "$BUILD/hprofstrip"
done
echo "big dump, best of 2: plain strip ${BEST[plain]} s, --keep-strings from the file ${BEST[keep]} s" \
	"($(calc %.2fx "${BEST[keep]} / ${BEST[plain]}"): it reads the file twice), from a pipe ${BEST[keeppipe]} s" \
	"($(calc %.2fx "${BEST[keeppipe]} / ${BEST[plain]}"))"
rm -f "$K/big" "$K/plain" "$K/file" "$K/pipe"
echo

# ---- 7. compressing while the JVM dumps ---------------------------------
BUILD=$B BENCH_DIR=$W "$here/compress.sh"
# ---- 8. what redaction costs --------------------------------------------
BUILD=$B BENCH_DIR=$W "$here/redact.sh"
# ---- 9. what the class histogram costs -----------------------------------
BUILD=$B BENCH_DIR=$W "$here/histo.sh"
# ---- 10. keeping bitmaps: sizes and arrays kept --------------------------
BUILD=$B BENCH_DIR=$W "$here/bitmaps.sh"
# ---- 11. what a bystander pays -------------------------------------------
BUILD=$B BENCH_DIR=$W "$here/bystander.sh"
# ---- 12. the leak analysis -------------------------------------------------
BUILD=$B BENCH_DIR=$W "$here/suspects.sh"
footer
