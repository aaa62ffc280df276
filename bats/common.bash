# Shared by every .bats file: paths, fixtures, small checks.

# The caller's shim settings (HPROFSTRIP_QUIET, _PATTERN, _LOG, _SNIFF...)
# and preloads must not reach the tests; HPROFSTRIP_CORPUS and
# HPROFSTRIP_SANITIZED configure the tests themselves. clear_env unsets the
# others and LD_PRELOAD (a suite whose tests set the shim's settings calls
# it again in its setup).
clear_env() {
	local v
	for v in ${!HPROFSTRIP_*}; do
		case $v in HPROFSTRIP_CORPUS | HPROFSTRIP_SANITIZED) ;; *) unset "$v" ;; esac
	done
	unset LD_PRELOAD
}
clear_env
# TEST_LD_PRELOAD: the suite runs with it exported as LD_PRELOAD, as a
# Dockerfile ENV would have it (make check-preloaded): the tools must give
# exactly the results they give without it
[ -z "${TEST_LD_PRELOAD:-}" ] || export LD_PRELOAD=$TEST_LD_PRELOAD

ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
BUILD="${BUILD:-build}"
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
STRIP=$B/hprofstrip
RESTORE=$B/hprofrestore
SHIM=$B/libhprofstrip.so
# the shim preloaded into the machine's own programs (sh, touch): SHIM,
# unless BUILD is of another ELF class (make check-i386 sets HOST_SHIM to
# the native one)
SHIM_HOST=${HOST_SHIM:-$SHIM}
ORACLE=$B/oracle
SPLIT=$B/splitcheck
REPLAY=$B/replay
JUDGE=$ROOT/tests/java/judge.sh
CORPUS=${HPROFSTRIP_CORPUS:-$ROOT/../shared/corpus}
HPROF_CONV=/usr/lib/android-sdk/platform-tools/hprof-conv

load /usr/lib/bats/bats-support/load
load /usr/lib/bats/bats-assert/load

corpus_files() {
	ls "$CORPUS"/art/*.hprof "$CORPUS"/hotspot/*.hprof
}

art_files() {
	ls "$CORPUS"/art/*.hprof
}

# A fresh JDK 17 dump of HeapBuilder's heap, made once per build dir.
jdk17_fixture() {
	local f=$B/fixtures/jdk17.hprof
	mkdir -p "$B/fixtures"
	(
		flock 9
		if [ ! -s "$f" ]; then
			"$JUDGE" build >&2
			rm -f "$f.tmp.hprof"
			env -u LD_PRELOAD java -cp "$B/java" HeapBuilder mxbean "$f.tmp.hprof" >&2
			mv "$f.tmp.hprof" "$f"
		fi
	) 9>"$B/fixtures/.lock"
	echo "$f"
}

size_of() {
	stat -c %s "$1"
}

# build_tests NAME...: make $B/NAME for each: the test drivers a suite
# runs that make all does not build (the Makefile's TESTBIN, tests/
# ports.mk's), so that a suite run alone on a fresh build dir has them (or
# says which it cannot have); one make at a time per build dir. Up to date
# (a port's build dir, made by its own make), nothing is rebuilt.
build_tests() {
	local n t=()
	for n in "$@"; do t+=("$B/$n"); done
	mkdir -p "$B"
	(
		flock 9
		env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$ROOT" BUILD="$B" "${t[@]}"
	) 9>"$B/.build-tests.lock" >&2 || {
		echo "build_tests: cannot make ${t[*]}; the suite needs them" >&2
		return 1
	}
}

# cmp_dump A B: A and B are the same bytes, but for the HPROF header's time
# stamp (offsets 23..30, 0-based) when both start "JAVA PROFILE 1.0.";
# else cmp A B. A runtime stamps its dump with the time it began, and so
# does the replay driver, so the shim's output of a replay is hprofstrip's
# of the replay's input but for those 8 bytes. Fails with cmp's message;
# A or B may be a pipe (<(zstd -dc x.zst)), read once.
cmp_dump() {
	"$ROOT/tests/cmp-dump" "$1" "$2"
}

# fresh_dump IN OUT: OUT is the dump IN stamped 10 minutes from now: the
# dump of its own runtime for any process the test starts in that time (a
# runtime stamps its dump with the time the dump began, after the process
# began), where IN, the corpus's, is a copy of an older dump
fresh_dump() {
	local ms
	case $(head -c 17 "$1") in
	"JAVA PROFILE 1.0.") ;;
	*) echo "fresh_dump: $1 is not an HPROF dump" >&2; return 1 ;;
	esac
	[ "$(head -c 19 "$1" | tail -c 1 | od -An -tx1)" = " 00" ] ||
		{ echo "fresh_dump: $1: the stamp is not at offset 23" >&2; return 1; }
	ms=$(( $(date +%s%3N) + 600000 ))
	cp "$1" "$2" && chmod u+w "$2" &&
		perl -e 'print pack("Q>", $ARGV[0])' "$ms" |
		dd of="$2" bs=1 seek=23 count=8 conv=notrunc status=none
}

# cmp_replayed IN OUT: a replay (not stripped) left OUT as its input IN,
# but for the time stamp it wrote, which must be a time of the last hour:
# cmp_dump, and the 8 bytes it skips are a stamp, not garbage
cmp_replayed() {
	"$ROOT/tests/cmp-dump" --restamped "$1" "$2"
}

# start_jvm [NAME=VALUE...] CLASS: java -cp $B/java CLASS wait STOP in the
# background, with only those variables added to a clean environment (no
# LD_PRELOAD unless given: LD_PRELOAD=$SHIM), and waits for its "pid N"
# line. Sets JVM (its pid), JVM_OUT and JVM_ERR (its stdout and stderr) and
# JVM_STOP; stop_jvm ends it.
start_jvm() {
	local vars=()
	while [ $# -gt 1 ] && [[ $1 == *=* ]]; do
		vars+=("$1")
		shift
	done
	"$JUDGE" build >&2
	JVM_OUT=$BATS_TEST_TMPDIR/jvm.out
	JVM_ERR=$BATS_TEST_TMPDIR/jvm.err
	JVM_STOP=$BATS_TEST_TMPDIR/jvm.stop
	env -u LD_PRELOAD "${vars[@]}" java -cp "$B/java" "$1" wait "$JVM_STOP" \
		>"$JVM_OUT" 2>"$JVM_ERR" &
	JVM=$!
	for _ in $(seq 300); do
		grep -q '^pid ' "$JVM_OUT" 2>/dev/null && break
		sleep 0.1
	done
	[ "$(sed -n 's/^pid //p' "$JVM_OUT")" = "$JVM" ] || {
		kill "$JVM" 2>/dev/null
		fail "the JVM did not start: $(cat "$JVM_ERR")"
	}
}

# stop_jvm: lets start_jvm's JVM end, and waits for it
stop_jvm() {
	touch "$JVM_STOP"
	wait "$JVM"
}

# cmp_histo WANT HISTO NAME [DUMP]: HISTO is WANT (hprofstrip --histo's
# text) and one note more, its last line, that names the dump's file NAME
# and the stamp of its header (DUMP's, read with --info, when given)
cmp_histo() {
	local want=$1 got=$2 name=$3 dump=${4:-} note stamp
	note=$(tail -n 1 "$got")
	[[ $note =~ ^#\ dump:\ (.+),\ stamped\ ([0-9]+)\ \([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z\)$ ]] ||
		fail "$got: its last line is no note of its dump: $note"
	assert_equal "${BASH_REMATCH[1]}" "$name"
	if [ -n "$dump" ]; then
		stamp=$("$STRIP" --info "$dump" | awk '$1 == "timestamp" { print $2 }')
		assert_equal "${BASH_REMATCH[2]}" "$stamp"
	fi
	cmp "$want" <(sed '$d' "$got") || fail "$got: not $want and the note"
}

# same_heap A B: two restored dumps hold the same sub-records
# (`oracle flat`, whatever their records' framing: a file's and a
# stream's) and VisualVM's library gives them the same class histogram
same_heap() {
	"$ORACLE" flat "$1" "$1.flat"
	"$ORACLE" flat "$2" "$2.flat"
	cmp "$1.flat" "$2.flat"
	"$JUDGE" histo "$1" >"$1.histo"
	"$JUDGE" histo "$2" >"$2.histo"
	diff "$1.histo" "$2.histo"
}

# Fails unless the file has no 0x23 left and walks cleanly (independent
# parser), and its size plus its arrays' element bytes is the restored size.
assert_stripped_dump() {
	local f=$1 tmp=$BATS_TEST_TMPDIR/asd.$$
	run "$ORACLE" count "$f"
	assert_success
	assert_output --regexp '^p23 0 c3 [1-9][0-9]*$'
	"$RESTORE" -o "$tmp" "$f"
	run "$ORACLE" expect "$tmp"
	assert_success
	local elems
	elems=$(echo "$output" | sed 's/.* elems \([0-9]*\) .*/\1/')
	[ "$elems" -gt 0 ]
	[ $(( $(size_of "$f") + elems )) -eq "$(size_of "$tmp")" ]
	rm -f "$tmp"
}

# drop_empty_heap_records IN OUT: IN less its heap records (0x0C, 0x1C) of
# length 0, which hprof-conv keeps and --jvm drops (the filter tests/unit.sh
# uses too)
drop_empty_heap_records() {
	"$ROOT"/tests/drop-empty-heap-records "$1" "$2"
}

# bad_tag IN OUT: OUT is IN with an invalid heap sub-record tag (0x77) at
# the first instance dump's tag (oracle offsets); prints that offset
bad_tag() {
	local off
	off=$("$ORACLE" offsets "$1" | sed -n 's/^sub-header //p') &&
		[ -n "$off" ] || return 1
	off=$((off - 4))
	cp "$1" "$2" && chmod u+w "$2" &&
		printf '\167' | dd of="$2" bs=1 seek="$off" conv=notrunc status=none &&
		echo "$off"
}
