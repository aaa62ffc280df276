# Sourced by the benchmarks of tests/bench/ (bench.sh, compress.sh, big.sh,
# redact.sh): a clean environment (the caller's shim settings and preloads
# must not reach the run; HPROFSTRIP_CORPUS and HPROFSTRIP_SANITIZED
# configure the tests) and the small helpers they share.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
export LC_ALL=C

calc() { awk "BEGIN { printf \"$1\", $2 }"; }   # calc FORMAT EXPR
size_of() { stat -c %s "$1"; }

# ---- the JVM benchmarks (big.sh, redact.sh) ---------------------------------

# jvm_bench NAME DIR VAR MB RUNS: how both start, in the checkout: a
# command that fails where nothing checks it said with its line (NAME on
# stderr); B and SHIM the build's; W the work folder (BENCH_DIR, else
# /tmp/hprofstrip-bench, then DIR); MB, RUNS and KINDS from VAR_MB (MB
# megabytes unless set), VAR_RUNS (RUNS) and VAR_KINDS (arrays nodes),
# checked; XMX the Java heap in MiB: the live set is about MB, and G1
# builds 6 GiB of 40-byte nodes in 1.5x (the heap is 62% full then;
# checked at that ratio on a small heap), as compress.sh sizes it
jvm_bench() {
	local mb=${3}_MB runs=${3}_RUNS kinds=${3}_KINDS kind
	BENCH=$1 T_START=$EPOCHREALTIME
	trap 'echo "$BENCH: line $LINENO: a command failed (status $?)" >&2' ERR
	cd "$root"
	B=$b SHIM=$b/libhprofstrip.so W=${BENCH_DIR:-/tmp/hprofstrip-bench}/$2
	MB=${!mb:-$4} RUNS=${!runs:-$5} KINDS=${!kinds:-arrays nodes}
	case $MB in '' | 0 | *[!0-9]*) die "$mb must be a positive number of megabytes" ;; esac
	case $RUNS in '' | 0 | *[!0-9]*) die "$runs must be a positive number" ;; esac
	for kind in $KINDS; do
		case $kind in arrays | nodes) ;; *) die "$kinds: '$kind' is not arrays or nodes" ;; esac
	done
	XMX=$((MB * 3 / 2 + 256))
}

die() { echo "$BENCH: $*" >&2; exit 1; }
# progress, to stderr, with the seconds since the start
say() { printf '%s [%4.0f s]: %s\n' "$BENCH" "$(calc %.1f "$EPOCHREALTIME - $T_START")" "$*" >&2; }
rule() { printf '%s\n' "------------------------------------------------------------------------------------------"; }

# built FILE...: each is in the build, else the run ends
built() {
	local f
	for f in "$@"; do
		[ -e "$B/$f" ] || die "$B/$f missing: run make first"
	done
}

# needs HINT CMD...: each command is on PATH, else the run ends (HINT: how
# to get it)
needs() {
	local c hint=$1
	shift
	for c in "$@"; do
		command -v "$c" >/dev/null || die "$c is needed ($hint)"
	done
}

# jcmd_dump PID DIR KEY ARG...: one timed jcmd PID GC.heap_dump ARG...,
# its output in DIR/jcmd (shown with the JVM's DIR/err when it fails or
# made no dump: the run ends, KEY named); DUMP_S: the seconds it took,
# DUMP_JB: the bytes the JVM says it wrote
jcmd_dump() {
	local pid=$1 d=$2 key=$3 t0 t1
	shift 3
	t0=$EPOCHREALTIME
	jcmd "$pid" GC.heap_dump "$@" >"$d/jcmd" 2>&1 ||
		{ cat "$d/jcmd" "$d/err" >&2; die "$key: jcmd GC.heap_dump $* failed"; }
	t1=$EPOCHREALTIME
	grep -q 'Heap dump file created' "$d/jcmd" ||
		{ cat "$d/jcmd" "$d/err" >&2; die "$key: jcmd GC.heap_dump $*: no dump"; }
	DUMP_S=$(calc %.3f "$t1 - $t0")
	DUMP_JB=$(sed -n 's/.*Heap dump file created \[\([0-9]*\) bytes.*/\1/p' "$d/jcmd")
}
